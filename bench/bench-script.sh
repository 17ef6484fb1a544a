#!/usr/bin/env bash
# Symbolized output throughput: `perfdiff script` against `perf script` on
# one large system-wide recording with call chains (>= 50 MB), page-cached,
# output to /dev/null, several runs each.
#
#   bench/bench-script.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time (default: build/perfdiff)
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

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_REC=12
FREQ=20000
RUNS=5
MIN_MB=50
OUT=$ROOT/bench/out

while getopts "s:F:r:m:o:h" opt; do
	case $opt in
	s) SECONDS_REC=$OPTARG ;;
	F) FREQ=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	m) MIN_MB=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,23p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=${1:-$ROOT/build/perfdiff}

die() { echo "bench-script: $*" >&2; exit 1; }
[ -x "$PERFDIFF" ] || die "no perfdiff binary at $PERFDIFF (build it or pass its path)"
command -v perf >/dev/null || die "perf is not installed"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
mkdir -p "$OUT"

# bench-reader.sh's workload and recording, so that either script's
# recording serves both: a dd doing tiny syscalls and a shell loop forking
# hashers, recorded system-wide with call chains.
workload() {
	local secs=$1
	timeout "$secs" dd if=/dev/zero of=/dev/null bs=64 2>/dev/null &
	timeout "$secs" sh -c 'while :; do head -c 4M /dev/urandom | sha256sum >/dev/null; done' &
	wait || true
}
export -f workload

record() {
	local file=$1 secs=$2
	echo "recording $file: -F $FREQ, ${secs}s system-wide"
	perf record -N -a -g -e cpu-clock -F "$FREQ" -o "$file" -- \
		bash -c "workload $secs" 2>&1 | sed 's/^/  perf: /'
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

# hyperfine sends the command's output to /dev/null itself; -i because
# both tools exit non-zero when they only warn (missing binaries, ...).
# Sets WALL (median seconds).
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
# runs of "$@".  Sets RSS and CPU.  CPU time is less disturbed than wall
# time by other jobs on a shared machine.
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

# Arguments are word-split by hyperfine -N the same way as here: none of
# them may contain spaces (the recording's path included).
measure() {
	if command -v hyperfine >/dev/null && command -v python3 >/dev/null &&
	   hyperfine_median "$*"; then
		:
	else
		loop_median "$@"
	fi
	peak_rss "$@"
}

FILE=$OUT/big.data
echo "perfdiff: $PERFDIFF"
echo "perf:     $(perf --version)"
echo "machine:  $(nproc) CPUs, $(uname -r); load now: $(cut -d' ' -f1-3 /proc/loadavg)"
if command -v hyperfine >/dev/null; then
	echo "timing:   hyperfine -N, median of $RUNS runs; peak RSS from /usr/bin/time"
else
	echo "timing:   shell loop, median of $RUNS runs; peak RSS from /usr/bin/time"
fi
ensure_recording "$FILE"
case $FILE in *" "*) die "the recording's path must not contain spaces: $FILE" ;; esac
bytes=$(stat -c %s "$FILE")
cat "$FILE" >/dev/null   # page-cache it

samples=$("$PERFDIFF" dump --stats --no-symbols --format=json "$FILE" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])' 2>/dev/null || echo 0)
# The size of what each prints, for the record (MB/s of output).
pd_out=$("$PERFDIFF" script "$FILE" 2>/dev/null | wc -c || true)
js_out=$("$PERFDIFF" script --format=json "$FILE" 2>/dev/null | wc -c || true)
perf_out=$(perf script -i "$FILE" 2>/dev/null | wc -c || true)
echo
echo "== $FILE: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }'), $samples samples"

declare -A W R C
run() {
	local label=$1
	shift
	measure "$@"
	W[$label]=$WALL
	R[$label]=$RSS
	C[$label]=$CPU
}
run "perfdiff script" "$PERFDIFF" script "$FILE"
run "perfdiff script --format=json" "$PERFDIFF" script --format=json "$FILE"
run "perf script" perf script -i "$FILE"
run "perfdiff dump --stats" "$PERFDIFF" dump --stats "$FILE"
run "perfdiff dump --stats --no-symbols" "$PERFDIFF" dump --stats --no-symbols "$FILE"

printf '%-36s %9s %8s %11s %10s %14s\n' command "wall (s)" "CPU (s)" "ksamples/s" "output MB" "peak RSS (MB)"
for t in "perfdiff script" "perfdiff script --format=json" "perf script" \
	 "perfdiff dump --stats" "perfdiff dump --stats --no-symbols"; do
	case $t in
	"perfdiff script") o=$pd_out ;;
	"perfdiff script --format=json") o=$js_out ;;
	"perf script") o=$perf_out ;;
	*) o=0 ;;
	esac
	awk -v t="$t" -v w="${W[$t]}" -v c="${C[$t]}" -v n="$samples" -v o="$o" -v r="${R[$t]}" 'BEGIN {
		printf "%-36s %9.4f %8.2f %11.0f %10.1f %14.1f\n", t, w, c, (w > 0 ? n / 1e3 / w : 0), o / 1e6, r / 1024 }'
done
awk -v a="${W[perfdiff script]}" -v b="${W[perf script]}" -v j="${W[perfdiff script --format=json]}" \
    -v s="${W[perfdiff dump --stats]}" -v n="${W[perfdiff dump --stats --no-symbols]}" -v runs="$RUNS" 'BEGIN {
	if (a > 0 && b > 0)
		printf "ratio: perfdiff script / perf script = %.2f (%.2fx as fast; JSON: %.2f)\n", a / b, b / a, j / b
	printf "split of perfdiff script: one pass that reads in timestamp order and\n"
	printf "  symbolizes, %.3f s (dump --stats minus dump --stats --no-symbols, whose\n", s - n
	printf "  reading alone takes %.3f s), then formatting and writing, %.3f s\n", n, a - (s - n)
	printf "wall: median of %d runs; CPU: median of 3\n", runs }'
