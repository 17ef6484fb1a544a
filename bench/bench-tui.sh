#!/usr/bin/env bash
# `perfdiff tui` on a large pair: how long from the command to the first
# screen, against `perfdiff diff` printing its text on the same pair (both
# read, fold and compare the same; what is left is the screen's own
# cost), and how long keys take on that tree; then the tree model alone
# (bench/tui-model.c) on 200k nodes.
#
#   bench/bench-tui.sh [options] [PERFDIFF | BUILD_DIR]
#
#   -a FILE       base recording (default OUT/heavy-a.data, bench/heavy.sh's;
#                 bench/bench-html.sh -g 3 generates a pair of ~250k aligned-tree
#                 nodes, OUT/stacks-a.data and stacks-b.data)
#   -b FILE       new recording (default OUT/heavy-b.data)
#   -r RUNS       rounds; the median is reported (default 3)
#   -o DIR        where the recordings are (default bench/out)
#
# The screen is read as test_tui reads it: tmux on a private socket, a
# 120x40 window, capture-pane polled every 20 ms until the text expected
# shows; a key's time is from send-keys to the screen that shows its
# effect, tmux's round trip included.  Keys timed: G (the last row), a
# search that matches nothing (a walk of the whole tree), g (the first).
set -euo pipefail
BENCH_NAME=bench-tui
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RUNS=3
A='' B=''
while getopts "a:b:r:o:h" opt; do
	case $opt in
	a) A=$OPTARG ;;
	b) B=$OPTARG ;;
	h) bench_usage 3 21 ;;
	*) bench_opt "$opt" "${OPTARG:-}" || bench_usage 3 21 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
bench_require "$PERFDIFF" cc tmux
A=${A:-$OUT/heavy-a.data}
B=${B:-$OUT/heavy-b.data}
[ -f "$A" ] && [ -f "$B" ] || die "no $A or $B: record them with bench/heavy.sh"
SOCK=bench-tui-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b - a }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Seconds until the screen shows the fixed string $1 (60 s at most).
wait_screen() {
	local t0 i
	t0=$(now)
	for ((i = 0; i < 3000; i++)); do
		tmux -L "$SOCK" capture-pane -p -t b | grep -qF -- "$1" && { secs "$t0" "$(now)"; return; }
		sleep 0.02
	done
	die "the screen never showed '$1'"
}

# One key and the text its screen shows: the seconds between.
key_time() {
	local t0
	t0=$(now)
	tmux -L "$SOCK" send-keys -t b "${@:2}"
	while ! tmux -L "$SOCK" capture-pane -p -t b | grep -qF -- "$1"; do sleep 0.005; done
	secs "$t0" "$(now)"
}

bench_banner "$PERFDIFF"
echo "inputs:   $A ($(bench_mb "$(stat -c %s "$A")")), $B ($(bench_mb "$(stat -c %s "$B")"))"
bench_cache "$A" "$B"
: >"$OUT/tui-diff.t"; : >"$OUT/tui-open.t"; : >"$OUT/tui-keys.t"
for ((r = 0; r < RUNS; r++)); do
	t0=$(now)
	"$PERFDIFF" diff -q --no-progress "$A" "$B" >/dev/null || true
	secs "$t0" "$(now)" >>"$OUT/tui-diff.t"
	t0=$(now)
	tmux -L "$SOCK" -f /dev/null new-session -d -s b -x 120 -y 40 \
		"'$PERFDIFF' tui -q --no-progress '$A' '$B'; sleep 600"
	wait_screen "Aligned tree" >/dev/null
	secs "$t0" "$(now)" >>"$OUT/tui-open.t"
	end=$(key_time "filters:" G)
	miss=$(key_time "not found: zzzz_none" / zzzz_none Enter)
	top=$(key_time "Explained shifts" g)
	echo "$end $miss $top" >>"$OUT/tui-keys.t"
	tmux -L "$SOCK" kill-session -t b
done
echo "perfdiff diff (text):        $(median <"$OUT/tui-diff.t") s"
echo "perfdiff tui, first screen:  $(median <"$OUT/tui-open.t") s"
echo "keys (median, s): G $(cut -d' ' -f1 "$OUT/tui-keys.t" | median)," \
	"search through everything $(cut -d' ' -f2 "$OUT/tui-keys.t" | median)," \
	"g $(cut -d' ' -f3 "$OUT/tui-keys.t" | median)"
cc -O2 -o "$OUT/tui-model" "$ROOT/bench/tui-model.c" || die "cannot build bench/tui-model.c"
"$OUT/tui-model" 200000
