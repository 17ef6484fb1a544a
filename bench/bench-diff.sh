#!/usr/bin/env bash
# Diff speed: `perfdiff diff A B` against what it replaces -- the robot's
# perf report on each side (it compares their outputs afterwards), and
# `perf diff A B` -- on two large system-wide recordings (>= 50 MB each),
# page-cached, several runs each, side by side.
#
#   bench/bench-diff.sh [options] [PERFDIFF | BUILD_DIR]
#
#   PERFDIFF      perfdiff binary to time, or the build directory holding it
#                 (default: build/perfdiff)
#   -a FILE       base recording (default OUT/diff-a.data; recorded when missing)
#   -b FILE       new recording (default OUT/diff-b.data; recorded when missing)
#   -s SECONDS    length of each recorded load (default 70, ~55 MB; longer when the
#                 first recording is smaller than -m)
#   -F FREQ       sampling frequency per CPU (default 4000)
#   -m MB         smallest acceptable recording in MB (default 50)
#   -r RUNS       timed runs per command; the median is reported (default 5)
#   -o DIR        where recordings and the load's binaries go (default
#                 bench/out, git-ignored)
#   -R RUNS       interleaved rounds on the heavy pair (default 3)
#   -P RUNS       rounds of hotspot-perfparser on A and on B (default 0:
#                 hotspot has no diff, and bench-report.sh times its parser;
#                 minutes per round on the heavy pair)
#   -n            the existing recipe only
#
# The load, system-wide (perf record -N -a -g -e cpu-clock): one loop per
# CPU running the repo's tests/workloads/diff_*.c programs one after the
# other -- the base build for A, the -DPD_NEW build for B, so the diff has
# real renamed/inlined/moved/split shifts -- and a dd of tiny blocks for
# kernel stacks.  Existing recordings are reused; delete them to record
# again.
#
# Timed commands (output to /dev/null):
#   perfdiff diff A B
#   perf report --children -g folded,0.5,callee --sort=dso,symbol --stdio -i A,
#     then the same on B: the two times summed, the larger peak RSS
#   perf diff A B
# Wall time is the median of RUNS runs (hyperfine when installed); CPU time
# (user + system) and peak RSS come from /usr/bin/time, which also shows how
# much a loaded machine stretched the wall times.
#
# The heavy recipe (bench/heavy.sh: OUT/heavy-a.data and heavy-b.data, the
# same busy-machine load twice; recorded when missing), in interleaved
# rounds -- each round runs every command once; wall, CPU and peak RSS of
# the same runs, medians (RSS: the largest):
#   perfdiff A B
#   perf diff A B
#   perf report (the robot's command) on A, and on B
#   hotspot-perfparser on A, and on B (with -P)
set -euo pipefail

BENCH_NAME=bench-diff
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FILE_A=
FILE_B=
SECONDS_REC=70
FREQ=4000
HEAVY_RUNS=3
PP_RUNS=0
NO_HEAVY=0
while getopts "a:b:s:F:m:r:o:R:P:nh" opt; do
	bench_opt "$opt" "${OPTARG:-}" || case $opt in
	a) FILE_A=$OPTARG ;;
	b) FILE_B=$OPTARG ;;
	R) HEAVY_RUNS=$OPTARG ;;
	P) PP_RUNS=$OPTARG ;;
	n) NO_HEAVY=1 ;;
	*) bench_usage 2 49 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
FILE_A=${FILE_A:-$OUT/diff-a.data}
FILE_B=${FILE_B:-$OUT/diff-b.data}
bench_require "$PERFDIFF"
mkdir -p "$OUT"

# ------------------------------------------------------------ recording

LOAD=$OUT/diff-load
WORKLOADS=(diff_rename diff_inline diff_move diff_split)
WFLAGS="-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

# Build the base (a) or new (b) variant of every workload into LOAD/SIDE.
build_load() {
	local side=$1 def=
	[ "$side" = b ] && def=-DPD_NEW
	mkdir -p "$LOAD/$side"
	for w in "${WORKLOADS[@]}"; do
		# shellcheck disable=SC2086
		cc $WFLAGS $def -o "$LOAD/$side/$w" "$ROOT/tests/workloads/$w.c" ||
			die "cannot build tests/workloads/$w.c"
	done
}

# SECS seconds of load with the SIDE build: one workload loop per CPU and
# a dd doing tiny read/write syscalls.
load() {
	local side=$1 secs=$2 end
	end=$(( $(date +%s) + secs ))
	timeout "$secs" dd if=/dev/zero of=/dev/null bs=64 2>/dev/null &
	for _ in $(seq "$(nproc)"); do
		(
			while [ "$(date +%s)" -lt "$end" ]; do
				for w in "${WORKLOADS[@]}"; do
					"$LOAD/$side/$w" 200
				done
			done
		) &
	done
	wait || true
}

record() {
	local file=$1 secs=$2 side=$3
	echo "recording $file: -F $FREQ, ${secs}s system-wide, load built as '$side'"
	perf record -N -a -g -e cpu-clock -F "$FREQ" -o "$file" -- \
		bash -c "$(declare -f load); LOAD='$LOAD'; WORKLOADS=(${WORKLOADS[*]}); load $side $secs" \
		2>&1 | sed 's/^/  perf: /'
}

# Record FILE with the SIDE load unless it exists -- only inside OUT: a
# path given with -a or -b must be there already.
ensure_side() {
	local file=$1 side=$2
	if [ ! -s "$file" ]; then
		case $file in
		"$OUT"/*) ;;
		*) die "no recording at $file" ;;
		esac
		[ -x "$LOAD/$side/${WORKLOADS[0]}" ] || build_load "$side"
	fi
	bench_ensure_recording "$file" "$side"
}

ensure_side "$FILE_A" a
ensure_side "$FILE_B" b
HEAVY_A=$OUT/heavy-a.data
HEAVY_B=$OUT/heavy-b.data
if [ "$NO_HEAVY" = 0 ] && { [ ! -s "$HEAVY_A" ] || [ ! -s "$HEAVY_B" ]; }; then
	"$ROOT/bench/heavy.sh" -o "$OUT"
fi

# --------------------------------------------------------------- timing

bytes_a=$(stat -c %s "$FILE_A")
bytes_b=$(stat -c %s "$FILE_B")
bench_cache "$FILE_A" "$FILE_B"
echo
bench_banner "$PERFDIFF"
echo "A:        $FILE_A, $bytes_a bytes ($(bench_mb "$bytes_a"))"
echo "B:        $FILE_B, $bytes_b bytes ($(bench_mb "$bytes_b"))"
echo "runs:     median of $RUNS (wall), of 3 (CPU); peak RSS: largest of 3"
echo

status=0
"$PERFDIFF" diff "$FILE_A" "$FILE_B" >"$OUT/diff.perfdiff.txt" 2>"$OUT/diff.perfdiff.err" ||
	status=$?
if [ "$status" -ge 2 ] && [ ! -s "$OUT/diff.perfdiff.txt" ]; then
	sed 's/^/  /' "$OUT/diff.perfdiff.err" >&2
	die "perfdiff diff failed (status $status): nothing to time"
fi
[ "$status" = 0 ] || echo "note: perfdiff diff exited $status (see $OUT/diff.perfdiff.err)"
echo "perfdiff diff: $(grep -c . "$OUT/diff.perfdiff.txt" || true) lines of output ($OUT/diff.perfdiff.txt)"
echo

# shellcheck disable=SC2054  # the commas are perf's
REPORT=(perf report --children -g folded,0.5,callee --sort=dso,symbol --stdio -i)

bench_run "perfdiff diff A B" "$PERFDIFF" diff "$FILE_A" "$FILE_B"
bench_run "perf report A" "${REPORT[@]}" "$FILE_A"
bench_run "perf report B" "${REPORT[@]}" "$FILE_B"
bench_run "perf diff A B" perf diff "$FILE_A" "$FILE_B"
pd_wall=${W[perfdiff diff A B]} pdf_wall=${W[perf diff A B]}
ra=("${W[perf report A]}" "${C[perf report A]}" "${R[perf report A]}")
rb=("${W[perf report B]}" "${C[perf report B]}" "${R[perf report B]}")
rep_wall=$(awk -v a="${ra[0]}" -v b="${rb[0]}" 'BEGIN { printf "%.3f", a + b }')
rep_cpu=$(awk -v a="${ra[1]}" -v b="${rb[1]}" 'BEGIN { printf "%.3f", a + b }')
rep_rss=$(awk -v a="${ra[2]}" -v b="${rb[2]}" 'BEGIN { printf "%.1f", (a + 0 > b + 0) ? a : b }')

printf '%-34s %9s %9s %10s %14s %14s %12s\n' command "wall (s)" "CPU (s)" "RSS (MB)" \
	"wall / report" "wall / p.diff" "RSS / report"
row() {
	awk -v l="$1" -v w="$2" -v c="$3" -v r="$4" -v w0="$rep_wall" -v w1="$pdf_wall" \
	    -v r0="$rep_rss" 'BEGIN {
		printf "%-34s %9.3f %9.3f %10.1f %14.3f %14.3f %12.3f\n", l, w, c, r,
		       (w0 > 0 ? w / w0 : 0), (w1 > 0 ? w / w1 : 0), (r0 > 0 ? r / r0 : 0) }'
}
row "perfdiff diff A B" "${W[perfdiff diff A B]}" "${C[perfdiff diff A B]}" "${R[perfdiff diff A B]}"
row "perf report A + perf report B" "$rep_wall" "$rep_cpu" "$rep_rss"
row "  perf report A" "${ra[@]}"
row "  perf report B" "${rb[@]}"
row "perf diff A B" "$pdf_wall" "${C[perf diff A B]}" "${R[perf diff A B]}"
echo
awk -v a="$pd_wall" -v b="$rep_wall" -v c="$pdf_wall" -v n="$RUNS" 'BEGIN {
	if (a > 0) printf "speed-up (above 1: perfdiff is faster): perf report A + B / perfdiff diff = %.2f, perf diff / perfdiff diff = %.2f; median of %d runs\n", b / a, c / a, n }'
[ "$NO_HEAVY" = 0 ] || exit 0

# ---------------------------------------------------------- heavy recipe

bench_cache "$HEAVY_A" "$HEAVY_B"
echo
for f in "$HEAVY_A" "$HEAVY_B"; do
	bytes=$(stat -c %s "$f")
	echo "== heavy recipe: $f, $bytes bytes ($(bench_mb "$bytes")), $(bench_samples "$f") samples"
done
echo "runs:     $HEAVY_RUNS interleaved rounds; medians, RSS the largest"
echo
ORDER=()
bench_il_add "perfdiff A B" "$HEAVY_RUNS" "$PERFDIFF" "$HEAVY_A" "$HEAVY_B"
bench_il_add "perf diff A B" "$HEAVY_RUNS" perf diff "$HEAVY_A" "$HEAVY_B"
bench_il_add "perf report A" "$HEAVY_RUNS" "${REPORT[@]}" "$HEAVY_A"
bench_il_add "perf report B" "$HEAVY_RUNS" "${REPORT[@]}" "$HEAVY_B"
PP=$(bench_perfparser)
if [ -n "$PP" ] && [ "$PP_RUNS" -gt 0 ]; then
	bench_il_add "hotspot-perfparser A" "$PP_RUNS" "$PP" --input "$HEAVY_A" --output /dev/null
	bench_il_add "hotspot-perfparser B" "$PP_RUNS" "$PP" --input "$HEAVY_B" --output /dev/null
fi
bench_il_run
bench_table "perf diff A B" "${ORDER[@]}"
echo
echo "goal: perfdiff A B at most 0.5 x perf diff's wall time and 0.8 x its CPU time, peak RSS at most 1.0 x"
