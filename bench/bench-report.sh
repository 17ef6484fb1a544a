#!/usr/bin/env bash
# Profile speed: `perfdiff report` against the perf report command the kernel
# test robot runs, on one large system-wide recording (>= 50 MB),
# page-cached, several runs each, side by side.
#
#   bench/bench-report.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time (default: build/perfdiff)
#   -f FILE       the recording (default bench/out/big.data; made by
#                 bench/bench-reader.sh when missing)
#   -r RUNS       timed runs per command; the median is reported (default 5)
#
# Timed commands (output to /dev/null):
#   perf report --children -g folded,0.5,callee --sort=dso,symbol --stdio -i FILE
#   perfdiff report FILE                       default: inline frames, caller chains
#   perfdiff report --order=callee FILE        the robot's chain order
#   perfdiff report --perf-compat FILE         perf's symbolization (no inline frames)
#   perfdiff report --format=json FILE         the whole tree as JSON
#   perfdiff report --format=folded FILE       collapsed stacks
# Wall time is the median of RUNS runs (hyperfine when installed); CPU time
# (user + system) and peak RSS come from /usr/bin/time, which also shows how
# much a loaded machine stretched the wall times.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FILE=$ROOT/bench/out/big.data
RUNS=5
while getopts "f:r:h" opt; do
	case $opt in
	f) FILE=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	*) sed -n '2,22p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=${1:-$ROOT/build/perfdiff}

die() { echo "bench-report: $*" >&2; exit 1; }
[ -x "$PERFDIFF" ] || die "no perfdiff binary at $PERFDIFF (build it or pass its path)"
command -v perf >/dev/null || die "perf is not installed"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
if [ ! -s "$FILE" ]; then
	[ "$FILE" = "$ROOT/bench/out/big.data" ] || die "no recording at $FILE"
	echo "no $FILE: recording it with bench/bench-reader.sh"
	"$ROOT/bench/bench-reader.sh" -r 1 "$PERFDIFF" >/dev/null
fi

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
	if ! hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$json" "$1" >/dev/null 2>&1; then
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

measure() {
	if ! { command -v hyperfine >/dev/null && hyperfine_wall "$*"; }; then
		median_wall "$@"
	fi
	cpu_rss "$@"
}

bytes=$(stat -c %s "$FILE")
cat "$FILE" >/dev/null  # page-cache it
echo "perfdiff: $PERFDIFF"
echo "perf:     $(perf --version)"
echo "machine:  $(nproc) CPUs, $(uname -r); load now: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "file:     $FILE, $bytes bytes ($(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }'))"
echo "runs:     median of $RUNS (wall), of 3 (CPU); peak RSS: largest of 3"
echo

labels=() walls=() cpus=() rsss=()
run() {
	local label=$1
	shift
	measure "$@"
	labels+=("$label") walls+=("$WALL") cpus+=("$CPU") rsss+=("$RSS")
}

run "perf report (robot's command)" \
	perf report --children -g folded,0.5,callee --sort=dso,symbol --stdio -i "$FILE"
run "perfdiff report" "$PERFDIFF" report "$FILE"
run "perfdiff report --order=callee" "$PERFDIFF" report --order=callee "$FILE"
run "perfdiff report --perf-compat" "$PERFDIFF" report --perf-compat "$FILE"
run "perfdiff report --format=json" "$PERFDIFF" report --format=json "$FILE"
run "perfdiff report --format=folded" "$PERFDIFF" report --format=folded "$FILE"

printf '%-34s %9s %9s %10s %13s %12s %11s\n' command "wall (s)" "CPU (s)" "RSS (MB)" \
	"wall / perf" "CPU / perf" "RSS / perf"
for i in "${!labels[@]}"; do
	awk -v l="${labels[$i]}" -v w="${walls[$i]}" -v c="${cpus[$i]}" -v r="${rsss[$i]}" \
	    -v w0="${walls[0]}" -v c0="${cpus[0]}" -v r0="${rsss[0]}" 'BEGIN {
		printf "%-34s %9.3f %9.3f %10.1f %13.3f %12.3f %11.3f\n", l, w, c, r,
		       (w0 > 0 ? w / w0 : 0), (c0 > 0 ? c / c0 : 0), (r0 > 0 ? r / r0 : 0) }'
done
echo
echo "goal: perfdiff report at most 0.1 x perf's time and 0.5 x its peak RSS"
