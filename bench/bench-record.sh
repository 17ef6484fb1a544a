#!/usr/bin/env bash
# The cost of recording, measured: a fixed amount of work (bench/
# record_work.c: a compute loop and small reads, timed from inside with
# CLOCK_MONOTONIC) runs bare, under `perfdiff record -a` and under
# `perf record -a -g`, at the same frequencies, each recorder started
# before the workload and stopped (SIGINT) after it.
#
#   bench/bench-record.sh [-r RUNS] [-n REPEAT] [-o DIR] [-f "1000 4000 10000"] [PERFDIFF]
#
#   PERFDIFF   the perfdiff to time, or the build directory holding it
#              (default build/perfdiff)
#   -r RUNS    runs of each (recorder, frequency) (default 3; the median
#              is printed)
#   -f FREQS   the frequencies (default 1000 4000 10000 Hz)
#   -n REPEAT  the workload this many times in a row under one recording
#              (default 1): perf.data grows with the samples, perfdiff's
#              output with the distinct stacks, so their sizes part with
#              the length of the recording
#   -o DIR     where the recordings go (default bench/out/record)
#
# Prints one line per (recorder, frequency): the workload's wall time and
# its own CPU time (ms, medians), the recorder's own CPU time (user + system, ms, from
# /usr/bin/time, its final write of the output included), the output's
# size and the samples it holds.  Needs root, perf and a C compiler.
set -euo pipefail

BENCH_NAME=bench-record
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS=3 FREQS="1000 4000 10000" REPEAT=1
OUT=$ROOT/bench/out/record
while getopts "r:n:o:f:h" opt; do
	case $opt in
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	f) FREQS=$OPTARG ;;
	n) REPEAT=$OPTARG ;;
	*) bench_usage 2 20 ;;
	esac
done
shift $((OPTIND - 1))
PD=$(bench_perfdiff "${1:-}")
command -v perf >/dev/null || die "perf is not installed"
[ -x /usr/bin/time ] || die "no /usr/bin/time (Debian's time)"
mkdir -p "$OUT"
W=$OUT/record_work
cc -O2 -o "$W" "$ROOT/bench/record_work.c" || die "cannot build record_work.c"

# The workload REPEAT times: "WALL_MS WORK_CPU_MS", summed.
work() {
	for ((k = 0; k < REPEAT; k++)); do "$W"; done | awk '{ w += $1; c += $2 } END { print w, c }'
}

# One run of the workload under recorder $1 ("bare", "perfdiff", "perf")
# at $2 Hz: prints "WALL_MS WORK_CPU_MS CPU_MS BYTES SAMPLES".
one() {
	local rec=$1 hz=$2 out pid wall cpu bytes samples
	case $rec in
	bare) echo "$(work) 0 0 0"; return ;;
	perfdiff) out=$OUT/rec.pb.gz
		/usr/bin/time -f "%U %S" -o "$OUT/time" "$PD" record -q -a -F "$hz" -o "$out" &
		;;
	perf) out=$OUT/rec.data
		/usr/bin/time -f "%U %S" -o "$OUT/time" perf record -q -a -g -e cpu-clock \
			-F "$hz" -o "$out" 2>/dev/null &
		;;
	esac
	pid=$!
	sleep 1    # the recorder is loaded and sampling
	wall=$(work)
	# SIGINT to the recorder under time(1)
	pkill -INT -P "$pid" || true
	wait "$pid" || true
	# the last line: time(1) may say first that the status was not 0
	cpu=$(tail -n 1 "$OUT/time" | awk '{ printf "%d", ($1 + $2) * 1000 }')
	bytes=$(stat -c %s "$out")
	if [ "$rec" = perfdiff ]; then
		samples=$("$PD" dump --stats "$out" 2>/dev/null |
			awk '/samples\/count total/ { print $NF; exit }')
	else
		samples=$(perf report -i "$out" --stats 2>/dev/null |
			awk '$1 == "SAMPLE" { print $3; exit }')
	fi
	echo "$wall $cpu $bytes $samples"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf "%-9s %6s %8s %12s %12s %10s %9s\n" recorder Hz wall_ms work_cpu_ms recorder_ms bytes \
	samples
for hz in $FREQS; do
	for rec in bare perfdiff perf; do
		[ "$rec" = bare ] && [ "$hz" != "${FREQS%% *}" ] && continue
		: > "$OUT/runs"
		for ((i = 0; i < RUNS; i++)); do
			one "$rec" "$hz" >> "$OUT/runs"
		done
		printf "%-9s %6s %8s %12s %12s %10s %9s\n" "$rec" \
			"$([ "$rec" = bare ] && echo - || echo "$hz")" \
			"$(cut -d' ' -f1 "$OUT/runs" | median)" "$(cut -d' ' -f2 "$OUT/runs" | median)" \
			"$(cut -d' ' -f3 "$OUT/runs" | median)" "$(cut -d' ' -f4 "$OUT/runs" | median)" \
			"$(cut -d' ' -f5 "$OUT/runs" | median)"
	done
done
