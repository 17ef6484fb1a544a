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
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/bench/out
FILE_A=
FILE_B=
SECONDS_REC=70
FREQ=4000
MIN_MB=50
RUNS=5
while getopts "a:b:s:F:m:r:o:h" opt; do
	case $opt in
	a) FILE_A=$OPTARG ;;
	b) FILE_B=$OPTARG ;;
	s) SECONDS_REC=$OPTARG ;;
	F) FREQ=$OPTARG ;;
	m) MIN_MB=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,35p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=${1:-$ROOT/build/perfdiff}
[ -d "$PERFDIFF" ] && PERFDIFF=$PERFDIFF/perfdiff
FILE_A=${FILE_A:-$OUT/diff-a.data}
FILE_B=${FILE_B:-$OUT/diff-b.data}

die() { echo "bench-diff: $*" >&2; exit 1; }
[ -x "$PERFDIFF" ] || die "no perfdiff binary at $PERFDIFF (build it or pass its path)"
command -v perf >/dev/null || die "perf is not installed"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
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

size_mb() { echo $(( $(stat -c %s "$1") / 1000000 )); }

record() {
	local file=$1 side=$2 secs=$3
	echo "recording $file: -F $FREQ, ${secs}s system-wide, load built as '$side'"
	perf record -N -a -g -e cpu-clock -F "$FREQ" -o "$file" -- \
		bash -c "$(declare -f load); LOAD='$LOAD'; WORKLOADS=(${WORKLOADS[*]}); load $side $secs" \
		2>&1 | sed 's/^/  perf: /'
}

# Record FILE with the SIDE load unless it exists; when it is smaller than
# MIN_MB, scale the duration and record again.
ensure_recording() {
	local file=$1 side=$2
	if [ -s "$file" ]; then
		echo "reusing $file ($(size_mb "$file") MB)"
		return
	fi
	case $file in
	"$OUT"/*) ;;
	*) die "no recording at $file" ;;
	esac
	[ -x "$LOAD/$side/${WORKLOADS[0]}" ] || build_load "$side"
	record "$file" "$side" "$SECONDS_REC"
	local mb secs
	mb=$(size_mb "$file")
	if [ "$mb" -lt "$MIN_MB" ]; then
		secs=$(( SECONDS_REC * MIN_MB * 12 / 10 / (mb > 0 ? mb : 1) + 1 ))
		echo "only $mb MB; recording again for ${secs}s"
		record "$file" "$side" "$secs"
	fi
	mb=$(size_mb "$file")
	[ "$mb" -ge "$MIN_MB" ] || echo "warning: $file is $mb MB (< $MIN_MB MB)" >&2
}

ensure_recording "$FILE_A" a
ensure_recording "$FILE_B" b

# --------------------------------------------------------------- timing
# (the pieces of bench/bench-report.sh)

# Median wall seconds of RUNS runs after one warm-up.  Sets WALL.
median_wall() {
	local walls=() t0 t1
	"$@" >/dev/null 2>&1 || true
	for _ in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		walls+=("$(( (t1 - t0) / 1000 ))")
	done
	WALL=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p" |
		awk '{ printf "%.3f", $1 / 1e6 }')
}

hyperfine_wall() {
	local json
	json=$(mktemp)
	if ! hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$json" "$1" >/dev/null 2>&1; then
		rm -f "$json"
		return 1
	fi
	WALL=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$json")
	rm -f "$json"
}

# Median CPU seconds (user + sys) and the largest peak RSS (MB) of three
# runs.  Sets CPU and RSS.
cpu_rss() {
	local tmp cpus=() r
	tmp=$(mktemp)
	RSS=0
	for _ in 1 2 3; do
		/usr/bin/time -f '%U %S %M' -o "$tmp" "$@" >/dev/null 2>&1 || true
		read -r u s r < <(tail -1 "$tmp")
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')")
		[ "$r" -gt "$RSS" ] && RSS=$r
	done
	rm -f "$tmp"
	CPU=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 2p)
	RSS=$(awk -v r="$RSS" 'BEGIN { printf "%.1f", r / 1024 }')
}

# hyperfine -N splits the command on blanks: arguments with blanks go the
# shell-loop way.
measure() {
	local a plain=1
	for a in "$@"; do
		[[ $a == *[[:space:]]* ]] && plain=0
	done
	if ! { [ "$plain" = 1 ] && command -v hyperfine >/dev/null && hyperfine_wall "$*"; }; then
		median_wall "$@"
	fi
	cpu_rss "$@"
}

bytes_a=$(stat -c %s "$FILE_A")
bytes_b=$(stat -c %s "$FILE_B")
cat "$FILE_A" "$FILE_B" >/dev/null  # page-cache them
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
echo
echo "perfdiff: $PERFDIFF"
echo "perf:     $(perf --version)"
echo "machine:  $(nproc) CPUs, $(uname -r); load now: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A:        $FILE_A, $bytes_a bytes ($(mb "$bytes_a"))"
echo "B:        $FILE_B, $bytes_b bytes ($(mb "$bytes_b"))"
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

measure "$PERFDIFF" diff "$FILE_A" "$FILE_B"
pd_wall=$WALL pd_cpu=$CPU pd_rss=$RSS
measure "${REPORT[@]}" "$FILE_A"
ra_wall=$WALL ra_cpu=$CPU ra_rss=$RSS
measure "${REPORT[@]}" "$FILE_B"
rb_wall=$WALL rb_cpu=$CPU rb_rss=$RSS
rep_wall=$(awk -v a="$ra_wall" -v b="$rb_wall" 'BEGIN { printf "%.3f", a + b }')
rep_cpu=$(awk -v a="$ra_cpu" -v b="$rb_cpu" 'BEGIN { printf "%.3f", a + b }')
rep_rss=$(awk -v a="$ra_rss" -v b="$rb_rss" 'BEGIN { printf "%.1f", (a + 0 > b + 0) ? a : b }')
measure perf diff "$FILE_A" "$FILE_B"
pdf_wall=$WALL pdf_cpu=$CPU pdf_rss=$RSS

printf '%-34s %9s %9s %10s %14s %14s %12s\n' command "wall (s)" "CPU (s)" "RSS (MB)" \
	"wall / report" "wall / p.diff" "RSS / report"
row() {
	awk -v l="$1" -v w="$2" -v c="$3" -v r="$4" -v w0="$rep_wall" -v w1="$pdf_wall" \
	    -v r0="$rep_rss" 'BEGIN {
		printf "%-34s %9.3f %9.3f %10.1f %14.3f %14.3f %12.3f\n", l, w, c, r,
		       (w0 > 0 ? w / w0 : 0), (w1 > 0 ? w / w1 : 0), (r0 > 0 ? r / r0 : 0) }'
}
row "perfdiff diff A B" "$pd_wall" "$pd_cpu" "$pd_rss"
row "perf report A + perf report B" "$rep_wall" "$rep_cpu" "$rep_rss"
row "  perf report A" "$ra_wall" "$ra_cpu" "$ra_rss"
row "  perf report B" "$rb_wall" "$rb_cpu" "$rb_rss"
row "perf diff A B" "$pdf_wall" "$pdf_cpu" "$pdf_rss"
echo
awk -v a="$pd_wall" -v b="$rep_wall" -v c="$pdf_wall" -v n="$RUNS" 'BEGIN {
	if (a > 0) printf "speed-up (above 1: perfdiff is faster): perf report A + B / perfdiff diff = %.2f, perf diff / perfdiff diff = %.2f; median of %d runs\n", b / a, c / a, n }'
