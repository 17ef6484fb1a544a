#!/usr/bin/env bash
# Symbolized output throughput: `perfdiff script` against `perf script` on
# one large system-wide recording with call chains (>= 50 MB), page-cached,
# output to /dev/null, several runs each.
#
#   bench/bench-script.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time, or the build directory holding it
#        (default: build/perfdiff)
#   -s SECONDS    length of the recorded workload (default 12)
#   -F FREQ       sampling frequency per CPU (default 20000)
#   -r RUNS       timed runs per command; the median is reported (default 5)
#   -m MB         smallest acceptable recording in MB (default 50)
#   -o DIR        where the recording goes (default bench/out, git-ignored)
#
# The recording is bench-reader.sh's (same recipe, same file, big.data):
# an existing one is reused; delete it to record again.
#
# Besides the two script commands it times `perfdiff script --format=json`
# and two runs without any sample output, to split perfdiff's time:
# `dump --stats --no-symbols` reads the file once (the reader alone) and
# `dump --stats` reads it once more and symbolizes every sample (reader,
# address spaces, symbols, no printing); the difference is what `perfdiff
# script` spends before formatting.
set -euo pipefail

BENCH_NAME=bench-script
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECONDS_REC=12
FREQ=20000

while getopts "s:F:r:m:o:h" opt; do
	bench_opt "$opt" "${OPTARG:-}" || bench_usage 2 23
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
bench_require "$PERFDIFF"
mkdir -p "$OUT"

# bench-reader.sh's workload and recording (lib.sh), so that either
# script's recording serves both.
record() { record_system "$@"; }

FILE=$OUT/big.data
bench_banner "$PERFDIFF"
bench_timing_line
bench_ensure_recording "$FILE"
case $FILE in *" "*) die "the recording's path must not contain spaces: $FILE" ;; esac
bytes=$(stat -c %s "$FILE")
bench_cache "$FILE"

samples=$(bench_samples "$FILE")
# The size of what each prints, for the record (MB/s of output).
pd_out=$("$PERFDIFF" script "$FILE" 2>/dev/null | wc -c || true)
js_out=$("$PERFDIFF" script --format=json "$FILE" 2>/dev/null | wc -c || true)
perf_out=$(perf script -i "$FILE" 2>/dev/null | wc -c || true)
echo
echo "== $FILE: $(bench_mb "$bytes"), $samples samples"

bench_run "perfdiff script" "$PERFDIFF" script "$FILE"
bench_run "perfdiff script --format=json" "$PERFDIFF" script --format=json "$FILE"
bench_run "perf script" perf script -i "$FILE"
bench_run "perfdiff dump --stats" "$PERFDIFF" dump --stats "$FILE"
bench_run "perfdiff dump --stats --no-symbols" "$PERFDIFF" dump --stats --no-symbols "$FILE"

printf '%-36s %9s %8s %11s %10s %14s\n' command "wall (s)" "CPU (s)" "ksamples/s" "output MB" "peak RSS (MB)"
for t in "${ORDER[@]}"; do
	case $t in
	"perfdiff script") o=$pd_out ;;
	"perfdiff script --format=json") o=$js_out ;;
	"perf script") o=$perf_out ;;
	*) o=0 ;;
	esac
	awk -v t="$t" -v w="${W[$t]}" -v c="${C[$t]}" -v n="$samples" -v o="$o" -v r="${R[$t]}" 'BEGIN {
		printf "%-36s %9.4f %8.2f %11.0f %10.1f %14.1f\n", t, w, c, (w > 0 ? n / 1e3 / w : 0), o / 1e6, r }'
done
awk -v a="${W[perfdiff script]}" -v b="${W[perf script]}" -v j="${W[perfdiff script --format=json]}" \
    -v s="${W[perfdiff dump --stats]}" -v n="${W[perfdiff dump --stats --no-symbols]}" -v runs="$RUNS" 'BEGIN {
	if (a > 0 && b > 0)
		printf "ratio: perfdiff script / perf script = %.2f (%.2fx as fast; JSON: %.2f)\n", a / b, b / a, j / b
	printf "split of perfdiff script: one pass that reads in timestamp order and\n"
	printf "  symbolizes, %.3f s (dump --stats minus dump --stats --no-symbols, whose\n", s - n
	printf "  reading alone takes %.3f s), then formatting and writing, %.3f s\n", n, a - (s - n)
	printf "wall: median of %d runs; CPU: median of 3\n", runs }'
