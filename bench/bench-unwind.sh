#!/usr/bin/env bash
# DWARF unwinding throughput: `perfdiff script` against `perf script` on one
# large `--call-graph dwarf` recording (>= 50 MB), page-cached, output to
# /dev/null, several runs each; and the two unwinders (libdw, libunwind)
# against a run without unwinding, to isolate what unwinding costs.
#
#   bench/bench-unwind.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time (default: build/perfdiff)
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

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_REC=6
FREQ=1000
RUNS=5
MIN_MB=50
OUT=$ROOT/bench/out
REPORT_ROWS=0

while getopts "s:F:r:m:o:Rh" opt; do
	case $opt in
	s) SECONDS_REC=$OPTARG ;;
	F) FREQ=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	m) MIN_MB=$OPTARG ;;
	o) OUT=$OPTARG ;;
	R) REPORT_ROWS=1 ;;
	*) sed -n '2,26p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=${1:-$ROOT/build/perfdiff}

die() { echo "bench-unwind: $*" >&2; exit 1; }
[ -x "$PERFDIFF" ] || die "no perfdiff binary at $PERFDIFF (build it or pass its path)"
command -v perf >/dev/null || die "perf is not installed"
command -v cc >/dev/null || die "no C compiler (cc) for the workload"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
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

size_mb() { echo $(( $(stat -c %s "$1") / 1000000 )); }

ensure_recording() {
	local file=$1
	if [ -s "$file" ]; then
		echo "reusing $file ($(size_mb "$file") MB)"
		return
	fi
	record "$file" "$SECONDS_REC"
	local mb
	mb=$(size_mb "$file")
	if [ "$mb" -lt "$MIN_MB" ]; then
		local secs=$(( SECONDS_REC * MIN_MB * 12 / 10 / (mb > 0 ? mb : 1) + 1 ))
		echo "only $mb MB; recording again for ${secs}s"
		record "$file" "$secs"
	fi
	mb=$(size_mb "$file")
	[ "$mb" -ge "$MIN_MB" ] || echo "warning: $file is $mb MB (< $MIN_MB MB)" >&2
}

# Median wall seconds of RUNS runs of "$@" (output discarded), after one
# warm-up run.  Sets WALL.
loop_median() {
	local walls=() t0 t1
	"$@" >/dev/null 2>&1 || true
	for _ in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		walls+=("$(( (t1 - t0) / 1000 ))")
	done
	local med
	med=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
	WALL=$(awk -v us="$med" 'BEGIN { printf "%.4f", us / 1e6 }')
}

# hyperfine -N (no shell), -i (both tools exit non-zero when they only
# warn).  Sets WALL (median seconds).
hyperfine_median() {
	local json
	json=$(mktemp)
	if ! hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$json" "$1" >/dev/null 2>&1; then
		rm -f "$json"
		return 1
	fi
	WALL=$(python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$json")
	rm -f "$json"
}

# Largest peak RSS (KB) and median CPU seconds (user + system) of three
# runs.  Sets RSS and CPU.
peak_rss() {
	local tmp r cpus=()
	tmp=$(mktemp)
	RSS=0
	for _ in 1 2 3; do
		/usr/bin/time -f '%M %U %S' -o "$tmp" "$@" >/dev/null 2>&1 || true
		read -r r u s < <(tail -1 "$tmp")
		[ "$r" -gt "$RSS" ] && RSS=$r
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
	done
	rm -f "$tmp"
	CPU=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 2p)
}

# Arguments must not contain spaces (hyperfine -N splits them).
measure() {
	if command -v hyperfine >/dev/null && command -v python3 >/dev/null &&
	   hyperfine_median "$*"; then
		:
	else
		loop_median "$@"
	fi
	peak_rss "$@"
}

FILE=$OUT/dwarf.data
echo "perfdiff: $PERFDIFF"
echo "perf:     $(perf --version)"
echo "machine:  $(nproc) CPUs, $(uname -r); load now: $(cut -d' ' -f1-3 /proc/loadavg)"
ensure_recording "$FILE"
case $FILE in *" "*) die "the recording's path must not contain spaces: $FILE" ;; esac
bytes=$(stat -c %s "$FILE")
cat "$FILE" >/dev/null   # page-cache it

samples=$("$PERFDIFF" dump --stats --no-symbols --format=json "$FILE" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])' 2>/dev/null || echo 0)
echo
echo "== $FILE: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }'), $samples samples"

# (not piped into grep -q: with pipefail, perfdiff killed by SIGPIPE when
# grep stops reading would count as "no such option")
script_help=$("$PERFDIFF" help script 2>&1 || true)
case $script_help in
*--unwinder*) ;;
*) die "$PERFDIFF script has no --unwinder option (an older build?)" ;;
esac

declare -A W R C
ORDER=()
run() {
	local label=$1
	shift
	measure "$@"
	W[$label]=$WALL
	R[$label]=$RSS
	C[$label]=$CPU
	ORDER+=("$label")
}
run "perf script" perf script -i "$FILE"
run "perfdiff script" "$PERFDIFF" script "$FILE"
for u in libdw libunwind none; do
	run "perfdiff script --unwinder=$u" "$PERFDIFF" script "--unwinder=$u" "$FILE"
done
if [ "$REPORT_ROWS" = 1 ]; then
	for u in libdw libunwind none; do
		run "perfdiff report --format=folded --unwinder=$u" \
			"$PERFDIFF" report --format=folded "--unwinder=$u" "$FILE"
	done
fi

printf '%-52s %9s %8s %10s %14s\n' command "wall (s)" "CPU (s)" "us/sample" "peak RSS (MB)"
for t in "${ORDER[@]}"; do
	awk -v t="$t" -v w="${W[$t]}" -v c="${C[$t]}" -v n="$samples" -v r="${R[$t]}" 'BEGIN {
		printf "%-52s %9.4f %8.2f %10.2f %14.1f\n", t, w, c, (n > 0 ? w * 1e6 / n : 0), r / 1024 }'
done
awk -v a="${W[perfdiff script]}" -v b="${W[perf script]}" -v n="$samples" \
    -v ca="${C[perfdiff script]}" -v cb="${C[perf script]}" \
    -v dw="${W[perfdiff script --unwinder=libdw]}" -v lu="${W[perfdiff script --unwinder=libunwind]}" \
    -v no="${W[perfdiff script --unwinder=none]}" \
    -v cdw="${C[perfdiff script --unwinder=libdw]}" -v clu="${C[perfdiff script --unwinder=libunwind]}" \
    -v cno="${C[perfdiff script --unwinder=none]}" -v runs="$RUNS" 'BEGIN {
	if (a > 0 && b > 0)
		printf "ratio: perfdiff script / perf script = %.3f wall, %.3f CPU\n", a / b, (cb > 0 ? ca / cb : 0)
	if (n > 0) {
		printf "perfdiff script: %.2f us per sample wall, %.2f us CPU\n", a * 1e6 / n, ca * 1e6 / n
		printf "unwinding alone (run minus the --unwinder=none run), us/sample:\n"
		printf "  libdw     %7.2f wall %7.2f CPU\n", (dw - no) * 1e6 / n, (cdw - cno) * 1e6 / n
		printf "  libunwind %7.2f wall %7.2f CPU\n", (lu - no) * 1e6 / n, (clu - cno) * 1e6 / n
	}
	printf "wall: median of %d runs; CPU: median of 3 (steadier on a shared machine)\n", runs }'
