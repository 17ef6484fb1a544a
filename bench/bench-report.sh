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
#
# Timed commands (output to /dev/null):
#   perf report --children -g folded,0.5,callee --sort=dso,symbol --stdio -i FILE
#   perfdiff report FILE                       default: inline frames, caller chains
#   perfdiff report --order=callee FILE        the robot's chain order
#   perfdiff report --perf-compat FILE         perf's symbolization (no inline frames)
#   perfdiff report --format=json FILE         the whole tree as JSON
#   perfdiff report --format=folded FILE       collapsed stacks
# Wall time is the median of RUNS runs (hyperfine when installed); CPU time
# (user + system) and peak RSS come from /usr/bin/time, which also shows how
# much a loaded machine stretched the wall times.
set -euo pipefail

BENCH_NAME=bench-report
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FILE=$ROOT/bench/out/big.data
# without -i: a run that only warns fails hyperfine, and the shell loop
# times it
HYPERFINE_OPTS=(-N --warmup 1)
while getopts "f:r:h" opt; do
	case $opt in
	f) FILE=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	*) bench_usage 2 22 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
bench_require "$PERFDIFF"
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
