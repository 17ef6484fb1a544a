#!/usr/bin/env bash
# The HTML diff page on a large pair: its size and how long Chromium takes
# from opening the file to a drawn, interactive page (issue 20's budget:
# 2 s for two 100 MB system-wide recordings, ~200k aligned-tree nodes).
#
#   bench/bench-html.sh [options] [PERFDIFF | BUILD_DIR]
#
#   -a FILE       base recording (default OUT/diff-a.data, as bench-diff.sh records it)
#   -b FILE       new recording (default OUT/diff-b.data)
#   -r RUNS       page loads timed; the median is reported (default 5)
#   -o DIR        where the recordings are and the page goes (default bench/out)
#
# Record the pair first with bench/bench-diff.sh (it keeps them in OUT).
# The page draws synchronously when loaded and then sets <body
# data-ready=MS>, MS being performance.now() (milliseconds since the
# navigation started: reading the file, parsing HTML and JSON, building
# the tree, laying out and drawing the flame graph and the tables); the
# page is interactive from then on.  Each load is a fresh headless
# Chromium (--dump-dom), so the figure includes no warm cache of the page.
set -euo pipefail
BENCH_NAME=bench-html
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RUNS=5
A= B=
while getopts "a:b:r:o:h" opt; do
	case $opt in
	a) A=$OPTARG ;;
	b) B=$OPTARG ;;
	h) bench_usage 3 16 ;;
	*) bench_opt "$opt" "${OPTARG:-}" || bench_usage 3 16 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
BROWSER=$(command -v chromium || command -v chromium-browser || true)
[ -n "$BROWSER" ] || die "no chromium (apt-get install chromium)"
bench_require "$PERFDIFF"
A=${A:-$OUT/diff-a.data}
B=${B:-$OUT/diff-b.data}
[ -f "$A" ] && [ -f "$B" ] || die "no $A or $B: record them with bench/bench-diff.sh"

bench_banner "$PERFDIFF"
echo "browser:  $("$BROWSER" --version 2>/dev/null)"
echo "inputs:   $A ($(bench_mb "$(stat -c %s "$A")")), $B ($(bench_mb "$(stat -c %s "$B")"))"
PAGE=$OUT/diff.html
start=$(date +%s.%N)
"$PERFDIFF" diff -q --format=html -o "$PAGE" "$A" "$B" || true
end=$(date +%s.%N)
nodes=$(grep -o '"parent":\[[^]]*' "$PAGE" | head -1 | tr -cd ',' | wc -c)
echo "page:     $PAGE, $(bench_mb "$(stat -c %s "$PAGE")"), $((nodes + 1)) aligned-tree nodes," \
	"written in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f s", b - a }')"

PROFILE=$(mktemp -d)
trap 'rm -rf "$PROFILE"' EXIT
times=()
for ((i = 0; i < RUNS; i++)); do
	ms=$("$BROWSER" --headless=new --disable-gpu --no-sandbox --window-size=1400,1000 \
		--user-data-dir="$PROFILE" --dump-dom "file://$PAGE" 2>/dev/null |
		grep -o 'data-ready="[0-9]*"' | head -1 | tr -cd '0-9')
	[ -n "$ms" ] || die "the page never became ready (see it in a browser: $PAGE)"
	times+=("$ms")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "open to interactive: median ${median} ms over $RUNS loads (${times[*]})"
