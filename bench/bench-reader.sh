#!/usr/bin/env bash
# Reader throughput: `perfdiff dump --stats --no-symbols` (the reader alone,
# without the symbolizing pass) against `perf report --stats` on
# one large system-wide recording (>= 50 MB), page-cached, several runs each.
#
#   bench/bench-reader.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time, or the build directory holding it
#        (default: build/perfdiff)
#   -s SECONDS    length of the recorded workload (default 12)
#   -F FREQ       sampling frequency per CPU (default 20000)
#   -r RUNS       timed runs per tool; the median is reported (default 5)
#   -m MB         smallest acceptable recording in MB (default 50)
#   -z            also record and time a zstd-compressed (-z) recording
#   -o DIR        where recordings go (default bench/out, git-ignored)
#   -G MB         grow the recording to MB (default 1024; 0: skip) with
#                 tests/tools/pd-repeat, in a temporary directory, and time
#                 `dump --stats --no-symbols` and `report` on it and on a
#                 100 MB slice of the same records: peak RSS must not follow
#                 the file's size
#
# An existing recording is reused; delete it to record again.
set -euo pipefail

BENCH_NAME=bench-reader
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECONDS_REC=12
FREQ=20000
ZSTD=0
GROW_MB=1024
# more warm-up runs, and a run that only warns counts as failed (then the
# shell loop times it)
HYPERFINE_OPTS=(-N --warmup 3)

while getopts "s:F:r:m:zo:G:h" opt; do
	bench_opt "$opt" "${OPTARG:-}" || case $opt in
	z) ZSTD=1 ;;
	G) GROW_MB=$OPTARG ;;
	*) bench_usage 2 22 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
bench_require "$PERFDIFF"
mkdir -p "$OUT"

# The recording recipe is lib.sh's system_workload, shared with
# bench-script.sh.
record() { record_system "$@"; }

bench_file() {
	local file=$1 label=$2 bytes records
	bytes=$(stat -c %s "$file")
	bench_cache "$file"
	echo
	echo "== $label: $file, $bytes bytes ($(bench_mb "$bytes"))"
	"$PERFDIFF" dump --stats --no-symbols "$file" >"$OUT/$label.perfdiff.txt" 2>&1 || echo "  perfdiff exited non-zero (see $OUT/$label.perfdiff.txt)"
	perf report --stats -i "$file" >"$OUT/$label.perf.txt" 2>&1 || echo "  perf exited non-zero (see $OUT/$label.perf.txt)"
	records=$(awk '/TOTAL events:/ { print $3; exit }' "$OUT/$label.perf.txt")
	echo "records (perf report --stats): ${records:-?}"

	# perf report sorts records by time; --ordered makes perfdiff do the same.
	W=() R=() ORDER=()
	bench_run perfdiff "$PERFDIFF" dump --stats --no-symbols "$file"
	bench_run "perfdiff --ordered" "$PERFDIFF" dump --stats --no-symbols --ordered "$file"
	bench_run "perf report" perf report --stats -i "$file"
	local pd_wall=${W[perfdiff]} ord_wall=${W[perfdiff --ordered]} perf_wall=${W[perf report]}
	printf '%-28s %10s %10s %8s %12s %14s\n' tool "wall (s)" "MB/s" "GB/s" "Mrecords/s" "peak RSS (MB)"
	for t in "${ORDER[@]}"; do
		awk -v t="$t" -v w="${W[$t]}" -v b="$bytes" -v r="${R[$t]}" -v n="${records:-0}" 'BEGIN {
			mbs = w > 0 ? b / 1e6 / w : 0
			rps = w > 0 ? n / 1e6 / w : 0
			printf "%-28s %10.4f %10.0f %8.2f %12.1f %14.1f\n", t, w, mbs, mbs / 1000, rps, r }'
	done
	awk -v a="$pd_wall" -v o="$ord_wall" -v b="$perf_wall" -v ra="${R[perfdiff]}" -v rb="${R[perf report]}" -v n="$RUNS" 'BEGIN {
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

bench_banner "$PERFDIFF"
bench_timing_line

bench_ensure_recording "$OUT/big.data"
bench_file "$OUT/big.data" big
if [ "$ZSTD" = 1 ]; then
	bench_ensure_recording "$OUT/big-z.data" -z
	bench_file "$OUT/big-z.data" big-z
fi

# The memory bound: the same records at 100 MB and at GROW_MB.  pd-repeat is
# the build's (PERFDIFF's build directory) or compiled here.
GROWN_TMP=
grown() {
	local tmp repeat mb f
	tmp=$(mktemp -d)
	GROWN_TMP=$tmp
	trap 'rm -rf "$GROWN_TMP"' EXIT
	repeat=$(dirname "$PERFDIFF")/tests/pd-repeat
	if [ ! -x "$repeat" ]; then
		repeat=$tmp/pd-repeat
		cc -O2 -o "$repeat" "$ROOT/tests/tools/pd-repeat.c" || die "cannot build pd-repeat"
	fi
	echo
	echo "== big.data grown by pd-repeat to 100 MB and $GROW_MB MB (in $tmp)"
	printf '%-44s %10s %10s %14s\n' command "wall (s)" "CPU (s)" "peak RSS (MB)"
	for mb in 100 "$GROW_MB"; do
		f=$tmp/grown-$mb.data
		"$repeat" "$OUT/big.data" "$f" "$mb"
		bench_cache "$f"
		W=() C=() R=() ORDER=()
		bench_run "dump --stats --no-symbols, $(size_mb "$f") MB" "$PERFDIFF" dump --stats --no-symbols "$f"
		bench_run "report, $(size_mb "$f") MB" "$PERFDIFF" report "$f"
		for t in "${ORDER[@]}"; do
			printf '%-44s %10s %10s %14s\n' "$t" "${W[$t]}" "${C[$t]}" "${R[$t]}"
		done
		rm -f "$f"
	done
}
if [ "$GROW_MB" -gt 0 ]; then
	grown
fi
