#!/usr/bin/env bash
# DWARF unwinding throughput: `perfdiff script` against `perf script` on one
# large `--call-graph dwarf` recording (>= 50 MB), page-cached, output to
# /dev/null, several runs each; and the unwinders (libdw, libdw without its
# cached CFI rows, libunwind)
# against a run without unwinding, to isolate what unwinding costs.
#
#   bench/bench-unwind.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time, or the build directory holding it
#        (default: build/perfdiff)
#   -s SECONDS    length of the recorded workload (default 6)
#   -F FREQ       sampling frequency (default 1000)
#   -r RUNS       timed runs per command; the median is reported (default 5)
#   -m MB         smallest acceptable recording in MB (default 50)
#   -o DIR        where the recording goes (default bench/out, git-ignored)
#   -R            also time `perfdiff report --format=folded --unwinder=NAME`
#                 per back end (the same unwinding, then folding)
#
# The workload (recorded with perf record -N --call-graph dwarf, children
# followed): tests/workloads/unwind_mix.c (callbacks through libc, deep
# recursion, libm, signal frames) and a shell loop starting short-lived
# `head | sha256sum` pipelines (many processes and execs: address spaces
# are built and dropped all the time).  An existing recording
# (dwarf.data) is reused; delete it to record again.
#
# Per-back-end timings are `perfdiff script --unwinder=NAME` runs, so that
# the none run is the `perfdiff script` row minus unwinding.
set -euo pipefail

BENCH_NAME=bench-unwind
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECONDS_REC=6
FREQ=1000
REPORT_ROWS=0

while getopts "s:F:r:m:o:Rh" opt; do
	bench_opt "$opt" "${OPTARG:-}" || case $opt in
	R) REPORT_ROWS=1 ;;
	*) bench_usage 2 26 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
bench_require "$PERFDIFF" cc
mkdir -p "$OUT"

MIX=$OUT/unwind_mix
if [ ! -x "$MIX" ] || [ "$ROOT/tests/workloads/unwind_mix.c" -nt "$MIX" ]; then
	cc -O2 -g -o "$MIX" "$ROOT/tests/workloads/unwind_mix.c" -lm ||
		die "cannot build the workload"
fi

workload() {
	local secs=$1 mix=$2
	timeout "$secs" "$mix" $((secs * 1000)) &
	timeout "$secs" sh -c 'while :; do head -c 1M /dev/urandom | sha256sum >/dev/null; done' &
	wait || true
}
export -f workload

record() {
	local file=$1 secs=$2
	echo "recording $file: --call-graph dwarf -F $FREQ, ${secs}s"
	perf record -N -e cpu-clock -F "$FREQ" --call-graph dwarf -o "$file" -- \
		bash -c "workload $secs '$MIX'" 2>&1 | sed 's/^/  perf: /'
}

FILE=$OUT/dwarf.data
bench_banner "$PERFDIFF"
bench_ensure_recording "$FILE"
case $FILE in *" "*) die "the recording's path must not contain spaces: $FILE" ;; esac
bytes=$(stat -c %s "$FILE")
bench_cache "$FILE"

samples=$(bench_samples "$FILE")
echo
echo "== $FILE: $(bench_mb "$bytes"), $samples samples"

# (not piped into grep -q: with pipefail, perfdiff killed by SIGPIPE when
# grep stops reading would count as "no such option")
script_help=$("$PERFDIFF" help script 2>&1 || true)
case $script_help in
*--unwinder*) ;;
*) die "$PERFDIFF script has no --unwinder option (an older build?)" ;;
esac

bench_run "perf script" perf script -i "$FILE"
bench_run "perfdiff script" "$PERFDIFF" script "$FILE"
for u in libdw libdw-uncached libunwind none; do
	bench_run "perfdiff script --unwinder=$u" "$PERFDIFF" script "--unwinder=$u" "$FILE"
done
if [ "$REPORT_ROWS" = 1 ]; then
	for u in libdw libunwind none; do
		bench_run "perfdiff report --format=folded --unwinder=$u" \
			"$PERFDIFF" report --format=folded "--unwinder=$u" "$FILE"
	done
fi

printf '%-52s %9s %8s %10s %14s\n' command "wall (s)" "CPU (s)" "us/sample" "peak RSS (MB)"
for t in "${ORDER[@]}"; do
	awk -v t="$t" -v w="${W[$t]}" -v c="${C[$t]}" -v n="$samples" -v r="${R[$t]}" 'BEGIN {
		printf "%-52s %9.4f %8.2f %10.2f %14.1f\n", t, w, c, (n > 0 ? w * 1e6 / n : 0), r }'
done
awk -v a="${W[perfdiff script]}" -v b="${W[perf script]}" -v n="$samples" \
    -v ca="${C[perfdiff script]}" -v cb="${C[perf script]}" \
    -v dw="${W[perfdiff script --unwinder=libdw]}" -v lu="${W[perfdiff script --unwinder=libunwind]}" \
    -v no="${W[perfdiff script --unwinder=none]}" -v pl="${W[perfdiff script --unwinder=libdw-uncached]}" \
    -v cpl="${C[perfdiff script --unwinder=libdw-uncached]}" \
    -v cdw="${C[perfdiff script --unwinder=libdw]}" -v clu="${C[perfdiff script --unwinder=libunwind]}" \
    -v cno="${C[perfdiff script --unwinder=none]}" -v runs="$RUNS" 'BEGIN {
	if (a > 0 && b > 0)
		printf "ratio: perfdiff script / perf script = %.3f wall, %.3f CPU\n", a / b, (cb > 0 ? ca / cb : 0)
	if (n > 0) {
		printf "perfdiff script: %.2f us per sample wall, %.2f us CPU\n", a * 1e6 / n, ca * 1e6 / n
		printf "unwinding alone (run minus the --unwinder=none run), us/sample:\n"
		printf "  libdw     %7.2f wall %7.2f CPU\n", (dw - no) * 1e6 / n, (cdw - cno) * 1e6 / n
		printf "  libdw without cached CFI rows %7.2f wall %7.2f CPU\n", (pl - no) * 1e6 / n, (cpl - cno) * 1e6 / n
		printf "  libunwind %7.2f wall %7.2f CPU\n", (lu - no) * 1e6 / n, (clu - cno) * 1e6 / n
	}
	printf "wall: median of %d runs; CPU: median of 3 (steadier on a shared machine)\n", runs }'
