#!/usr/bin/env bash
# Reader throughput: `perfdiff dump --stats --no-symbols` (the reader alone,
# without the symbolizing pass) against `perf report --stats` on
# one large system-wide recording (>= 50 MB), page-cached, several runs each.
#
#   bench/bench-reader.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time (default: build/perfdiff)
#   -s SECONDS    length of the recorded workload (default 12)
#   -F FREQ       sampling frequency per CPU (default 20000)
#   -r RUNS       timed runs per tool; the median is reported (default 5)
#   -m MB         smallest acceptable recording in MB (default 50)
#   -z            also record and time a zstd-compressed (-z) recording
#   -o DIR        where recordings go (default bench/out, git-ignored)
#
# An existing recording is reused; delete it to record again.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_REC=12
FREQ=20000
RUNS=5
MIN_MB=50
ZSTD=0
OUT=$ROOT/bench/out

while getopts "s:F:r:m:zo:h" opt; do
	case $opt in
	s) SECONDS_REC=$OPTARG ;;
	F) FREQ=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	m) MIN_MB=$OPTARG ;;
	z) ZSTD=1 ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,17p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=${1:-$ROOT/build/perfdiff}

die() { echo "bench-reader: $*" >&2; exit 1; }
[ -x "$PERFDIFF" ] || die "no perfdiff binary at $PERFDIFF (build it or pass its path)"
command -v perf >/dev/null || die "perf is not installed"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
mkdir -p "$OUT"

# CPU and syscall heavy, with process churn so the file also carries
# COMM/MMAP/FORK/EXIT side-band: one dd doing tiny read/write syscalls, one
# shell loop forking hashers.
workload() {
	local secs=$1
	timeout "$secs" dd if=/dev/zero of=/dev/null bs=64 2>/dev/null &
	timeout "$secs" sh -c 'while :; do head -c 4M /dev/urandom | sha256sum >/dev/null; done' &
	wait || true
}
export -f workload

record() {
	local file=$1 secs=$2
	shift 2
	echo "recording $file: -F $FREQ, ${secs}s system-wide $*"
	perf record -N -a -g -e cpu-clock -F "$FREQ" "$@" -o "$file" -- \
		bash -c "workload $secs" 2>&1 | sed 's/^/  perf: /'
}

size_mb() { echo $(( $(stat -c %s "$1") / 1000000 )); }

# Record once; when the file is too small, scale the duration and record again.
ensure_recording() {
	local file=$1
	shift
	if [ -s "$file" ]; then
		echo "reusing $file ($(size_mb "$file") MB)"
		return
	fi
	record "$file" "$SECONDS_REC" "$@"
	local mb
	mb=$(size_mb "$file")
	if [ "$mb" -lt "$MIN_MB" ]; then
		local secs=$(( SECONDS_REC * MIN_MB * 12 / 10 / (mb > 0 ? mb : 1) + 1 ))
		echo "only $mb MB; recording again for ${secs}s"
		record "$file" "$secs" "$@"
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

# hyperfine, when present, measures with less overhead and noise than a shell
# loop.  Sets WALL (median seconds).
hyperfine_median() {
	local json
	json=$(mktemp)
	if ! hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$json" "$1" >/dev/null 2>&1; then
		rm -f "$json"
		return 1
	fi
	if command -v jq >/dev/null; then
		WALL=$(jq -r '.results[0].median' "$json" | awk '{ printf "%.4f", $1 }')
	else
		WALL=$(python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$json")
	fi
	rm -f "$json"
}

# Largest peak RSS (KB) of three runs of "$@".  Sets RSS.
peak_rss() {
	local tmp r
	tmp=$(mktemp)
	RSS=0
	for _ in 1 2 3; do
		/usr/bin/time -f '%M' -o "$tmp" "$@" >/dev/null 2>&1 || true
		r=$(tail -1 "$tmp")
		[ "$r" -gt "$RSS" ] && RSS=$r
	done
	rm -f "$tmp"
}

measure() {
	if command -v hyperfine >/dev/null && hyperfine_median "$*"; then
		:
	else
		loop_median "$@"
	fi
	peak_rss "$@"
}

bench_file() {
	local file=$1 label=$2 bytes records
	bytes=$(stat -c %s "$file")
	cat "$file" >/dev/null   # page-cache it
	echo
	echo "== $label: $file, $bytes bytes ($(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }'))"
	"$PERFDIFF" dump --stats --no-symbols "$file" >"$OUT/$label.perfdiff.txt" 2>&1 || echo "  perfdiff exited non-zero (see $OUT/$label.perfdiff.txt)"
	perf report --stats -i "$file" >"$OUT/$label.perf.txt" 2>&1 || echo "  perf exited non-zero (see $OUT/$label.perf.txt)"
	records=$(awk '/TOTAL events:/ { print $3; exit }' "$OUT/$label.perf.txt")
	echo "records (perf report --stats): ${records:-?}"

	# perf report sorts records by time; --ordered makes perfdiff do the same.
	local pd_wall pd_rss perf_wall perf_rss ord_wall ord_rss
	measure "$PERFDIFF" dump --stats --no-symbols "$file"; pd_wall=$WALL; pd_rss=$RSS
	measure "$PERFDIFF" dump --stats --no-symbols --ordered "$file"; ord_wall=$WALL; ord_rss=$RSS
	measure perf report --stats -i "$file"; perf_wall=$WALL; perf_rss=$RSS
	printf '%-28s %10s %10s %8s %12s %14s\n' tool "wall (s)" "MB/s" "GB/s" "Mrecords/s" "peak RSS (MB)"
	for t in perfdiff "perfdiff --ordered" "perf report"; do
		local w r
		case $t in
		perfdiff) w=$pd_wall r=$pd_rss ;;
		"perfdiff --ordered") w=$ord_wall r=$ord_rss ;;
		*) w=$perf_wall r=$perf_rss ;;
		esac
		awk -v t="$t" -v w="$w" -v b="$bytes" -v r="$r" -v n="${records:-0}" 'BEGIN {
			mbs = w > 0 ? b / 1e6 / w : 0
			rps = w > 0 ? n / 1e6 / w : 0
			printf "%-28s %10.4f %10.0f %8.2f %12.1f %14.1f\n", t, w, mbs, mbs / 1000, rps, r / 1024 }'
	done
	awk -v a="$pd_wall" -v o="$ord_wall" -v b="$perf_wall" -v ra="$pd_rss" -v rb="$perf_rss" -v n="$RUNS" 'BEGIN {
		if (a > 0 && o > 0) printf "ratio: perf wall / perfdiff wall = %.2f (%.2f with --ordered; above 1: perfdiff is faster)", b / a, b / o
		if (rb > 0) printf "; perfdiff peak RSS = %.2f x perf'"'"'s", ra / rb
		printf "; median of %d runs\n", n }'
	local dbytes
	dbytes=$(awk '/^bytes decompressed:/ { print $3; exit }' "$OUT/$label.perfdiff.txt")
	if [ -n "$dbytes" ]; then
		awk -v d="$dbytes" -v a="$pd_wall" -v b="$perf_wall" 'BEGIN {
			ra = a > 0 ? d / 1e6 / a : 0
			rb = b > 0 ? d / 1e6 / b : 0
			printf "decompressed: %.1f MB; per decompressed byte: perfdiff %.0f MB/s, perf report %.0f MB/s\n", d / 1e6, ra, rb }'
	fi
}

echo "perfdiff: $PERFDIFF"
echo "perf:     $(perf --version)"
echo "machine:  $(nproc) CPUs, $(uname -r); load now: $(cut -d' ' -f1-3 /proc/loadavg)"
if command -v hyperfine >/dev/null; then
	echo "timing:   hyperfine -N, median of $RUNS runs; peak RSS from /usr/bin/time"
else
	echo "timing:   shell loop, median of $RUNS runs; peak RSS from /usr/bin/time"
fi

ensure_recording "$OUT/big.data"
bench_file "$OUT/big.data" big
if [ "$ZSTD" = 1 ]; then
	ensure_recording "$OUT/big-z.data" -z
	bench_file "$OUT/big-z.data" big-z
fi
