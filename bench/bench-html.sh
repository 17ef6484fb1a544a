#!/usr/bin/env bash
# The HTML diff page on a large pair: its size and how long Chromium takes
# from opening the file to a drawn, interactive page (issue 20's budget:
# 2 s for two 100 MB system-wide recordings, ~200k aligned-tree nodes).
#
#   bench/bench-html.sh [options] [PERFDIFF | BUILD_DIR]
#
#   -a FILE       base recording (default OUT/diff-a.data, as bench-diff.sh records it)
#   -b FILE       new recording (default OUT/diff-b.data)
#   -g SECONDS    generate the pair instead: OUT/stacks-a.data and -b.data, each a
#                 system-wide recording (perf record -a -g -F 4000) of SECONDS of
#                 bench/stacks.c, a workload of ~12 new call-tree nodes a sample
#                 (2 s a side: ~200k aligned-tree nodes), with seeds 1 and 2
#   -A ARGS       more options of perfdiff diff, e.g. "--all --depth=2": every
#                 row in the page's table (the tree rows, one per node, and
#                 ~60k calltrace rows of the generated pair)
#   -r RUNS       page loads timed; the median is reported (default 5)
#   -o DIR        where the recordings are and the page goes (default bench/out)
#
# Record the pair first with bench/bench-diff.sh (it keeps them in OUT), or
# generate a large one with -g.  Besides the plain load, the page is timed
# opened in the states a reader reaches by hand, each a fresh load with the
# state in the URL (see docs/html-report.md): a search marking every box of
# one function (#search=), and the who-calls view of that function
# (#view=callee&callee=), which merges all its places' callers.
# The page draws synchronously when loaded and then sets <body
# data-ready=MS>, MS being performance.now() (milliseconds since the
# navigation started: reading the file, parsing HTML and JSON, building
# the tree, laying out and drawing the flame graph and the tables), and
# once the next frame is painted <body data-painted=MS>: the page is on
# screen and interactive from then on, and that is the figure.  Each load is a fresh headless
# Chromium (--dump-dom), so the figure includes no warm cache of the page.
set -euo pipefail
BENCH_NAME=bench-html
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RUNS=5
A='' B='' GEN='' ARGS=''
while getopts "a:b:g:A:r:o:h" opt; do
	case $opt in
	a) A=$OPTARG ;;
	b) B=$OPTARG ;;
	g) GEN=$OPTARG ;;
	A) ARGS=$OPTARG ;;
	h) bench_usage 3 30 ;;
	*) bench_opt "$opt" "${OPTARG:-}" || bench_usage 3 30 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
BROWSER=$(command -v chromium || command -v chromium-browser || true)
[ -n "$BROWSER" ] || die "no chromium (apt-get install chromium)"
bench_require "$PERFDIFF" cc
mkdir -p "$OUT"
if [ -n "$GEN" ] && [ -f "$OUT/stacks-a.data" ] && [ "${REUSE:-}" = 1 ]; then
	A=$OUT/stacks-a.data B=$OUT/stacks-b.data  # REUSE=1: the pair generated before
elif [ -n "$GEN" ]; then
	cc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$OUT/stacks" \
		"$ROOT/bench/stacks.c" || die "cannot build bench/stacks.c"
	A=$OUT/stacks-a.data B=$OUT/stacks-b.data
	perf record -q -N -a -g -e cpu-clock -F 4000 -o "$A" -- "$OUT/stacks" "$GEN" 1 ||
		die "perf record -a failed (perf_event_paranoid, or not root?)"
	perf record -q -N -a -g -e cpu-clock -F 4000 -o "$B" -- "$OUT/stacks" "$GEN" 2 ||
		die "perf record -a failed"
fi
A=${A:-$OUT/diff-a.data}
B=${B:-$OUT/diff-b.data}
[ -f "$A" ] && [ -f "$B" ] || die "no $A or $B: record them with bench/bench-diff.sh"

bench_banner "$PERFDIFF"
echo "browser:  $("$BROWSER" --version 2>/dev/null)"
echo "inputs:   $A ($(bench_mb "$(stat -c %s "$A")")), $B ($(bench_mb "$(stat -c %s "$B")"))"
PAGE=$OUT/diff.html
start=$(date +%s.%N)
# shellcheck disable=SC2086  # ARGS: options, split on purpose
"$PERFDIFF" diff -q --format=html $ARGS -o "$PAGE" "$A" "$B" || true
end=$(date +%s.%N)
nodes=$(grep -o '"parent":\[[^]]*' "$PAGE" | head -1 | tr -cd ',' | wc -c)
rows=$(grep -o '"rows_total":[0-9]*' "$PAGE" | head -1 | tr -cd '0-9')
echo "page:     $PAGE, $(bench_mb "$(stat -c %s "$PAGE")"), $((nodes + 1)) aligned-tree nodes," \
	"$rows rows, written in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f s", b - a }')"

PROFILE=$(mktemp -d)
trap 'rm -rf "$PROFILE"' EXIT
# The function searched and shown in the who-calls view: the page's most
# frequent name (the generated pair's are spread evenly over f00..fff).
FN=$(grep -o '"names":\[[^]]*' "$PAGE" | head -1 | tr ',' '\n' | sed -n '2p' | tr -d '"')
[ -n "$GEN" ] && FN=f01

# Milliseconds to <body data-painted> of RUNS fresh loads of the page with
# fragment $1: "MEDIAN (each load's)".
load() {
	local ms i times=()
	for ((i = 0; i < RUNS; i++)); do
		ms=$("$BROWSER" --headless=new --disable-gpu --no-sandbox --window-size=1400,1000 \
			--user-data-dir="$PROFILE" --dump-dom "file://$PAGE$1" 2>/dev/null |
			grep -o 'data-painted="[0-9]*"' | head -1 | tr -cd '0-9')
		[ -n "$ms" ] || die "the page never became ready (see it in a browser: $PAGE$1)"
		times+=("$ms")
	done
	printf '%s\n' "${times[@]}" | sort -n |
		awk -v all="${times[*]}" '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] " (" all ")" }'
}
for frag in "" "#search=$FN" "#view=callee&callee=$FN"; do
	echo "open to interactive${frag:+ at $frag}: median $(load "$frag") ms over $RUNS loads"
done
