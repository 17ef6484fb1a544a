#!/usr/bin/env bash
# pprof export and import (docs/pprof.md): sizes and times on one
# system-wide recording, page-cached.
#
#   bench/bench-pprof.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time, or the build directory holding it
#        (default: build/perfdiff)
#   -f FILE       the recording (default bench/out/pprof.data: perf record -N -a -g
#                 -e cpu-clock -F 4000 for 10 s over a loop of forked sha256sum
#                 processes and dd, made when missing)
#   -r RUNS       timed runs per command; the median is reported (default 5)
#
# Sizes: the perf.data file, the export (gzipped and raw), and with go
# installed the export's samples, locations, functions and mappings.  Timed commands
# (output to /dev/null):
#   perfdiff report --format=pprof -o X.pb.gz FILE   fold, symbolize, export
#   perfdiff report --format=json FILE               the same profile from perf.data
#   perfdiff report --format=json X.pb.gz            ... and from the export
#   perfdiff FILE FILE / X.pb.gz X.pb.gz             a diff of either
#   go tool pprof -raw X.pb.gz                       when go is installed
set -euo pipefail

BENCH_NAME=bench-pprof
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FILE=$ROOT/bench/out/pprof.data
HYPERFINE_OPTS=(-N --warmup 1 -i)
while getopts "f:r:h" opt; do
	case $opt in
	f) FILE=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	*) bench_usage 2 20 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
bench_require "$PERFDIFF"
if [ ! -s "$FILE" ]; then
	mkdir -p "$(dirname "$FILE")"
	perf record -q -N -a -g -e cpu-clock -F 4000 -o "$FILE" -- sh -c '
		end=$(($(date +%s) + 10))
		dd if=/dev/zero of=/dev/null bs=64 count=20000000 2>/dev/null &
		while [ "$(date +%s)" -lt "$end" ]; do
			head -c 200000 /dev/urandom | sha256sum >/dev/null
		done; kill %1 2>/dev/null; true' >/dev/null 2>&1
fi
OUT=$(dirname "$FILE")/pprof-export.pb.gz
"$PERFDIFF" report --format=pprof -o "$OUT" "$FILE" 2>/dev/null || true
gzip -dc "$OUT" > "${OUT%.gz}"
bench_cache "$FILE"
bench_banner "$PERFDIFF"
for f in "$FILE" "$OUT" "${OUT%.gz}"; do
	echo "size: $(stat -L -c %s "$f") bytes ($(bench_mb "$(stat -L -c %s "$f")"))  $f"
done
if command -v go >/dev/null; then
	go tool pprof -raw "$OUT" 2>/dev/null | awk '
		/^Samples:/ { s = 1; next } /^Locations/ { s = 0; l = 1; next }
		/^Mappings/ { l = 0; m = 1; next }
		s && /^ +[0-9]+ +[0-9]+: / { ns++ }
		l && /^ +[0-9]+: 0x/ { nl++ } m && /^[0-9]+: / { nm++ }
		END { printf "export: %d samples, %d locations, %d mappings\n", ns, nl, nm }'
fi
echo "load: $(cut -d" " -f1-3 /proc/loadavg) (1, 5, 15 min) before the runs"
echo "runs: median of $RUNS (wall), of 3 (CPU); peak RSS: largest of 3"
echo

bench_run "export (report --format=pprof)" "$PERFDIFF" report --format=pprof -o "$OUT.tmp" "$FILE"
bench_run "report --format=json perf.data" "$PERFDIFF" report --format=json "$FILE"
bench_run "report --format=json export" "$PERFDIFF" report --format=json "$OUT"
bench_run "diff perf.data perf.data" "$PERFDIFF" diff "$FILE" "$FILE"
bench_run "diff export export" "$PERFDIFF" diff "$OUT" "$OUT"
if command -v go >/dev/null; then
	bench_run "go tool pprof -raw export" go tool pprof -raw "$OUT"
fi
rm -f "$OUT.tmp"

printf '%-34s %9s %9s %10s\n' command "wall (s)" "CPU (s)" "RSS (MB)"
for t in "${ORDER[@]}"; do
	printf '%-34s %9.3f %9.3f %10.1f\n' "$t" "${W[$t]}" "${C[$t]}" "${R[$t]}"
done
