#!/usr/bin/env bash
# Profile speed: `perfdiff report` against the perf report command the kernel
# test robot runs, on one large system-wide recording (>= 50 MB),
# page-cached, several runs each, side by side.
#
#   bench/bench-report.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time, or the build directory holding it
#        (default: build/perfdiff)
#   -f FILE       the recording (default bench/out/big.data; made by
#                 bench/bench-reader.sh when missing)
#   -r RUNS       timed runs per command; the median is reported (default 5)
#   -H FILE       the heavy recipe's recording (default bench/out/heavy-a.data;
#                 made by bench/heavy.sh when missing)
#   -R RUNS       interleaved rounds on the heavy recording (default 3)
#   -P RUNS       rounds of hotspot-perfparser, which takes minutes on the
#                 heavy recording (default 1; 0: none)
#   -n            the existing recipe only
#
# Timed commands (output to /dev/null):
#   perf report --children -g folded,0.5,callee --sort=dso,symbol --stdio -i FILE
#   perfdiff report FILE                       default: inline frames, caller chains
#   perfdiff report --order=callee FILE        the robot's chain order
#   perfdiff report --perf-compat FILE         perf's symbolization (no inline frames)
#   perfdiff report --format=json FILE         the whole tree as JSON
#   perfdiff report --format=folded FILE       collapsed stacks
#   hotspot-perfparser --input FILE --output /dev/null   where installed
# Wall time is the median of RUNS runs (hyperfine when installed); CPU time
# (user + system) and peak RSS come from /usr/bin/time, which also shows how
# much a loaded machine stretched the wall times.
#
# The heavy recipe (bench/heavy.sh: a busy machine, thousands of
# short-lived compiler processes, stripped binaries), in interleaved
# rounds -- each round runs every command once; wall, CPU and peak RSS of
# the same runs, medians (RSS: the largest):
#   perf report (the robot's command, as above)
#   perfdiff report --format=lkp FILE          the robot's keys
#   perfdiff report FILE
#   perfdiff report --perf-compat FILE
#   hotspot-perfparser --input FILE --output /dev/null   where installed
set -euo pipefail

BENCH_NAME=bench-report
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FILE=$ROOT/bench/out/big.data
# without -i: a run that only warns fails hyperfine, and the shell loop
# times it
HYPERFINE_OPTS=(-N --warmup 1)
HEAVY=$ROOT/bench/out/heavy-a.data
HEAVY_RUNS=3
PP_RUNS=1
NO_HEAVY=0
while getopts "f:r:H:R:P:nh" opt; do
	case $opt in
	f) FILE=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	H) HEAVY=$OPTARG ;;
	R) HEAVY_RUNS=$OPTARG ;;
	P) PP_RUNS=$OPTARG ;;
	n) NO_HEAVY=1 ;;
	*) bench_usage 2 40 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
bench_require "$PERFDIFF"
PP=$(bench_perfparser)
if [ "$NO_HEAVY" = 0 ] && [ ! -s "$HEAVY" ]; then
	[ "$HEAVY" = "$ROOT/bench/out/heavy-a.data" ] || die "no recording at $HEAVY"
	echo "no $HEAVY: recording it with bench/heavy.sh"
	"$ROOT/bench/heavy.sh" >&2
fi
if [ ! -s "$FILE" ]; then
	[ "$FILE" = "$ROOT/bench/out/big.data" ] || die "no recording at $FILE"
	echo "no $FILE: recording it with bench/bench-reader.sh"
	"$ROOT/bench/bench-reader.sh" -r 1 "$PERFDIFF" >/dev/null
fi

bytes=$(stat -c %s "$FILE")
bench_cache "$FILE"
bench_banner "$PERFDIFF"
echo "file:     $FILE, $bytes bytes ($(bench_mb "$bytes"))"
echo "runs:     median of $RUNS (wall), of 3 (CPU); peak RSS: largest of 3"
echo

bench_run "perf report (robot's command)" \
	perf report --children -g folded,0.5,callee --sort=dso,symbol --stdio -i "$FILE"
bench_run "perfdiff report" "$PERFDIFF" report "$FILE"
bench_run "perfdiff report --order=callee" "$PERFDIFF" report --order=callee "$FILE"
bench_run "perfdiff report --perf-compat" "$PERFDIFF" report --perf-compat "$FILE"
bench_run "perfdiff report --format=json" "$PERFDIFF" report --format=json "$FILE"
bench_run "perfdiff report --format=folded" "$PERFDIFF" report --format=folded "$FILE"
if [ -n "$PP" ] && [ "$PP_RUNS" -gt 0 ]; then
	bench_il_add "hotspot-perfparser ($PP_RUNS runs)" "$PP_RUNS" "$PP" --input "$FILE" --output /dev/null
	bench_il_run
fi

printf '%-34s %9s %9s %10s %13s %12s %11s\n' command "wall (s)" "CPU (s)" "RSS (MB)" \
	"wall / perf" "CPU / perf" "RSS / perf"
base=${ORDER[0]}
for t in "${ORDER[@]}"; do
	awk -v l="$t" -v w="${W[$t]}" -v c="${C[$t]}" -v r="${R[$t]}" \
	    -v w0="${W[$base]}" -v c0="${C[$base]}" -v r0="${R[$base]}" 'BEGIN {
		printf "%-34s %9.3f %9.3f %10.1f %13.3f %12.3f %11.3f\n", l, w, c, r,
		       (w0 > 0 ? w / w0 : 0), (c0 > 0 ? c / c0 : 0), (r0 > 0 ? r / r0 : 0) }'
done
echo
echo "goal: perfdiff report at most 0.1 x perf's time and 0.5 x its peak RSS"
[ "$NO_HEAVY" = 0 ] || exit 0

# ---------------------------------------------------------- heavy recipe

bytes=$(stat -c %s "$HEAVY")
bench_cache "$HEAVY"
echo
echo "== heavy recipe: $HEAVY, $bytes bytes ($(bench_mb "$bytes")), $(bench_samples "$HEAVY") samples"
echo "runs:     $HEAVY_RUNS interleaved rounds (hotspot-perfparser: $PP_RUNS); medians, RSS the largest"
echo
ORDER=()
# shellcheck disable=SC2054  # the commas are perf's
bench_il_add "perf report (robot's command)" "$HEAVY_RUNS" \
	perf report --children -g folded,0.5,callee --sort=dso,symbol --stdio -i "$HEAVY"
bench_il_add "perfdiff report --format=lkp" "$HEAVY_RUNS" "$PERFDIFF" report --format=lkp "$HEAVY"
bench_il_add "perfdiff report" "$HEAVY_RUNS" "$PERFDIFF" report "$HEAVY"
bench_il_add "perfdiff report --perf-compat" "$HEAVY_RUNS" "$PERFDIFF" report --perf-compat "$HEAVY"
if [ -n "$PP" ] && [ "$PP_RUNS" -gt 0 ]; then
	bench_il_add "hotspot-perfparser ($PP_RUNS runs)" "$PP_RUNS" \
		"$PP" --input "$HEAVY" --output /dev/null
fi
bench_il_run
bench_table "${ORDER[0]}" "${ORDER[@]}"
echo
echo "goal: perfdiff report --format=lkp at most 0.10 x perf report's wall time and 0.35 x its peak RSS"
