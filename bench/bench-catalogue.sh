#!/usr/bin/env bash
# The diff's statistics measured as the catalogue scores them: power
# (labelled real changes flagged significant) and false alarms (significant
# rows of the A/A cases), over many fresh recordings of tests/diffcases,
# optionally while a parallel build of the project loads the machine.
#
#   bench/bench-catalogue.sh [options] [BUILD_DIR]
#
#   BUILD_DIR     a build tree with tests/test_diffcases (default: build)
#   -n RUNS       catalogue runs, each recording every case afresh (default 10)
#   -l            load: `cmake --build -j2` of this repository, again and
#                 again, in OUT/loadbuild while the catalogue runs
#   -o DIR        where the labs and logs go (default bench/out/catalogue)
#
# Prints one line per run (its failed cases, power and false positives, as
# test_diffcases' summary prints them) and the totals: runs passed, labelled
# changes flagged by kind (must / may, 3 runs / 1 run a side), significant
# rows over rows of the A/A cases.  Needs root (perf record -a) and perf.
set -euo pipefail

BENCH_NAME=bench-catalogue
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N=10 LOAD=0
OUT=$ROOT/bench/out/catalogue
while getopts "n:lo:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	l) LOAD=1 ;;
	o) OUT=$OPTARG ;;
	*) bench_usage 2 17 ;;
	esac
done
shift $((OPTIND - 1))
BUILD=${1:-$ROOT/build}
BIN=$BUILD/tests/test_diffcases
[ -x "$BIN" ] || die "no $BIN (cmake --build $BUILD --target test_diffcases)"
command -v perf >/dev/null || die "perf is not installed"
mkdir -p "$OUT"

LOADPID=
stop_load() { [ -n "$LOADPID" ] && kill -- -"$LOADPID" 2>/dev/null || true; }
trap stop_load EXIT
if [ "$LOAD" = 1 ]; then
	setsid bash -c "while :; do rm -rf '$OUT/loadbuild'
		cmake -S '$ROOT' -B '$OUT/loadbuild' -DPERFDIFF_PYTHON=OFF >/dev/null 2>&1
		cmake --build '$OUT/loadbuild' -j2 >/dev/null 2>&1; done" &
	LOADPID=$!
	sleep 5
fi

echo "$BENCH_NAME: $N runs of $BIN$([ "$LOAD" = 1 ] && echo ", a parallel build alongside")"
passed=0
for i in $(seq 1 "$N"); do
	lab=$OUT/lab.$i
	rm -rf "$lab"
	st=0
	PD_DIFFCASES_LAB=$lab "$BIN" >"$OUT/run.$i.log" 2>&1 || st=$?
	[ "$st" = 0 ] && passed=$((passed + 1))
	fails=$(sed -n '/^diff catalogue/,$p' "$OUT/run.$i.log" | awk '$2 == "FAIL" { printf "%s ", $1 }')
	echo "run $i: exit $st ${fails:+failed: $fails}"
	grep '^power:' "$OUT/run.$i.log" | sed 's/^/  /'
	rm -rf "$lab"
done

# The changes by label and runs, from every run's case lines:
# "  change self target must: flagged" under "case power_10_3runs: ...".
awk '/^case /{c=$2} /^  change /{
	k = (/ must:/ ? "must" : "may") "/" (c ~ /1run/ ? "1 run" : "3 runs");
	n[k]++; if (/: flagged$/) f[k]++ }
	END { for (k in n) printf "  %-12s %d of %d flagged\n", k, f[k], n[k] }' "$OUT"/run.*.log |
	sort
awk '/^power:/ { split($0, a, "false positives: "); split(a[2], b, " ");
	s += b[1]; r += b[3] } END { printf "  A/A rows significant: %d of %d (%.3f %%)\n",
	s, r, r ? 100 * s / r : 0 }' "$OUT"/run.*.log
echo "runs passed: $passed of $N"
