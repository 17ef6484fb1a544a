#!/bin/sh
# Re-create the recorded fixtures in this folder with the perf of this
# machine, and the expected values the tests compare the reader against.
#
#   tests/data/record-fixtures.sh        (as root, or perf_event_paranoid <= 1;
#                                         -a needs root)
#
# For every fixture X (X.data, or the directory threads.data):
#   X.stats    `perf report --stats`            record counts per type/event
#   X.header   `perf report --header-only`      features and events
#   X.samples  `perf report -D` through perf-dump-samples.awk: one line per
#              SAMPLE (offset time cpu pid tid misc ip period nr chain...)
# zpipe.data (perf record -z into a pipe) cannot be read by perf 6.1
# ("Couldn't decompress data"), so its .stats/.samples come from
# ../tools/pd-walk, an independent walker that this script first checks
# against perf on every fixture perf can read.
# Byte-swapped copies: ../tools/pd-swap writes X.be.data (big-endian) and
# X.be.stats (counts of the records it kept); perf must read X.be.data with
# exactly those counts and the same samples as X.data.
#
# Only software events (no hardware counters in VMs) and -N (no build-id
# cache) are used; runs are short so that everything stays small.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS=$HERE/../tools
CC=${CC:-cc}
WORK=$(mktemp -d /tmp/pd-fixtures.XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM

die() {
	echo "record-fixtures: $*" >&2
	exit 1
}

command -v perf >/dev/null || die "perf not found"
$CC -std=c11 -O1 -g -fno-omit-frame-pointer -pthread \
	-o "$WORK/workload" "$HERE/workload.c"
$CC -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
	-o "$WORK/pd-walk" "$TOOLS/pd-walk.c" -lzstd
$CC -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
	-o "$WORK/pd-swap" "$TOOLS/pd-swap.c"

cd "$WORK"
W=./workload

rec() {
	perf record -N -q "$@" 2>>perf-record.log ||
		die "perf record $* failed: $(cat perf-record.log)"
}

# ---------------------------------------------------------------- record
rec -e cpu-clock -F 1000 -g -m 4 -o fp.data -- $W 200 2
rec -e cpu-clock -F 1000 -g -m 4 -o - -- $W 200 2 >pipe.data
# -m 2: small buffers give many rounds and many COMPRESSED records, some of
# which end in the middle of an inner record
rec -z -e cpu-clock -F 1000 -g -m 2 -o zstd.data -- $W 250 2
rec -z -e cpu-clock -F 1000 -g -m 2 -o - -- $W 250 2 >zpipe.data
rec -e cpu-clock -F 200 --call-graph dwarf,1024 -o dwarf.data -- $W 200 2
rec -a -e cpu-clock -F 200 -g -o sys.data -- $W 300 2
rec -e cpu-clock,task-clock -c 2000000 -g -o two.data -- $W 200 2
rec --threads -e cpu-clock -F 1000 -g -o threads.data -- $W 200 2

# ---------------------------------------------------------------- expect
# perf's own view: stats, header, samples
expect() { # name input pipe?
	if [ "$3" = pipe ]; then
		perf report --stats -i - <"$2" >"$1.stats" 2>/dev/null
		perf report --header-only -i - <"$2" >"$1.header" 2>/dev/null
		perf report -D -i - <"$2" 2>/dev/null |
			awk -v base=16 -f "$HERE/perf-dump-samples.awk" >"$1.samples"
	else
		perf report --stats -i "$2" >"$1.stats" 2>/dev/null
		perf report --header-only -i "$2" >"$1.header" 2>/dev/null
		perf report -D -i "$2" 2>/dev/null |
			awk -v base=0 -f "$HERE/perf-dump-samples.awk" >"$1.samples"
	fi
	grep -q "TOTAL events" "$1.stats" || die "perf cannot read $2"
	[ -s "$1.samples" ] || die "no samples in $2"
}

nopct() { sed 's/ *( *[0-9.]*%)$//' "$1"; }

for x in fp zstd dwarf sys two; do
	expect $x $x.data file
	# the walker must agree with perf wherever perf can read the input
	./pd-walk --stats $x.data >w.txt 2>/dev/null
	nopct $x.stats | diff - w.txt || die "pd-walk and perf disagree on $x.data counts"
	./pd-walk --samples $x.data 2>/dev/null | sort >w.txt
	sort $x.samples | cmp -s - w.txt || die "pd-walk and perf disagree on $x.data samples"
done
./pd-walk --stats zstd.data 2>&1 >/dev/null | grep -q "end inside" ||
	die "no inner record of zstd.data straddles two COMPRESSED records: re-run"
expect pipe pipe.data pipe
./pd-walk --stats pipe.data >w.txt 2>/dev/null
nopct pipe.stats | diff - w.txt || die "pd-walk and perf disagree on pipe.data counts"
./pd-walk --samples pipe.data 2>/dev/null | sort >w.txt
sort pipe.samples | cmp -s - w.txt || die "pd-walk and perf disagree on pipe.data samples"
expect threads threads.data file

# perf 6.1 cannot decompress a pipe: the checked walker speaks for it
if perf report --stats -i - <zpipe.data >zpipe.stats 2>/dev/null &&
	grep -q "TOTAL events" zpipe.stats; then
	perf report -D -i - <zpipe.data 2>/dev/null |
		awk -v base=16 -f "$HERE/perf-dump-samples.awk" >zpipe.samples
else
	./pd-walk --stats zpipe.data >zpipe.stats 2>/dev/null
	./pd-walk --samples zpipe.data 2>/dev/null >zpipe.samples
fi
perf report --header-only -i - <zpipe.data >zpipe.header 2>/dev/null || true

# ---------------------------------------------------------------- swapped
for x in fp dwarf sys two; do
	./pd-swap $x.data $x.be.data $x.be.stats 2>/dev/null
	perf report --stats -i $x.be.data 2>/dev/null >be.txt
	nopct be.txt | diff - $x.be.stats || die "perf reads $x.be.data differently"
	perf report -D -i $x.be.data 2>/dev/null |
		awk -v base=0 -f "$HERE/perf-dump-samples.awk" | cut -d' ' -f2- | sort >a.txt
	cut -d' ' -f2- $x.samples | sort | cmp -s - a.txt ||
		die "perf decodes $x.be.data samples differently from $x.data"
done

# ---------------------------------------------------------------- install
total=0
for f in ./*.data threads.data/*; do
	[ -f "$f" ] || continue
	s=$(stat -c %s "$f")
	[ "$s" -lt 1048576 ] || die "$f is $s bytes (limit 1 MiB)"
	total=$((total + s))
done
[ "$total" -lt 3145728 ] || die "fixtures total $total bytes (limit 3 MiB)"

rm -rf "$HERE/threads.data"
cp -r threads.data "$HERE/"
for f in ./*.data; do
	if [ -f "$f" ]; then cp "$f" "$HERE/"; fi
done
cp ./*.stats ./*.header ./*.samples "$HERE/"
chmod -R u+rwX,go+rX,go-w "$HERE"/*.data "$HERE"/*.stats "$HERE"/*.header \
	"$HERE"/*.samples "$HERE/threads.data"
perf --version >"$HERE/perf-version.txt"
echo "record-fixtures: wrote $(ls ./*.data | wc -l) files + threads.data/ ($total bytes) to $HERE"
