#!/usr/bin/env bash
# A perf archive tarball read in place (--buildid-dir=FILE) against
# extracting it first, on a ~100 MB tarball made here.
#
#   bench/bench-symtar.sh [options] [PERFDIFF]
#
#   PERFDIFF      perfdiff binary to time, or the build directory holding it
#        (default: build/perfdiff)
#   -m MB         the program's padding, in MB (default 100): random bytes in a
#                 section of their own, so the tarball is that big compressed
#   -r RUNS       timed runs per command; the median is reported (default 5)
#   -o DIR        where the lab goes (default bench/out; DIR/symtar is remade)
#
# The program (compiled here, with a build-id) is recorded with perf record
# -N -g -e cpu-clock, put into a private build-id cache (HOME in
# bench/out/symtar) and packed by perf archive (bzip2), repacked with zstd;
# then renamed away.  Timed (output to /dev/null):
#   in place    perfdiff report --format=lkp --buildid-dir=T.tar.bz2 p.data
#   extract     mkdir D; tar xf T.tar.bz2 -C D; perfdiff ... --buildid-dir=D p.data
#   extracted   perfdiff ... --buildid-dir=D p.data (the directory already there)
# and the same with the zstd tarball.  Every run names the program's frames
# (checked once before timing).
set -euo pipefail

BENCH_NAME=bench-symtar
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
MB=100
while getopts "m:r:o:h" opt; do
	case $opt in
	m) MB=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) bench_usage 2 22 ;;
	esac
done
shift $((OPTIND - 1))
PERFDIFF=$(bench_perfdiff "${1:-}")
bench_require "$PERFDIFF" cc objcopy tar bzip2 zstd
D=$OUT/symtar
rm -rf "$D"
mkdir -p "$D/home"
cat > "$D/prog.c" <<'EOF'
static volatile double sink;
__attribute__((noinline)) void bt_spin(long n)
{ double x = 0; for (long i = 0; i < n; i++) x += i * 0.5; sink += x; }
int main(void) { for (int i = 0; i < 4; i++) bt_spin(30000000); return 0; }
EOF
cc -O1 -g -Wl,--build-id -o "$D/prog.small" "$D/prog.c"
head -c "$((MB * 1000000))" /dev/urandom > "$D/pad"
objcopy --add-section .bench_pad="$D/pad" "$D/prog.small" "$D/prog"
rm -f "$D/pad" "$D/prog.small"
perf record -q -N -g -e cpu-clock -o "$D/p.data" -- "$D/prog" >/dev/null 2>&1
HOME=$D/home perf buildid-cache -a "$D/prog"
(cd "$D" && HOME=$D/home perf archive p.data >/dev/null 2>&1) || true
[ -s "$D/p.data.tar.bz2" ] || die "perf archive made no tarball"
bzip2 -dc "$D/p.data.tar.bz2" | zstd -q -o "$D/p.data.tar.zst"
mv "$D/prog" "$D/prog.moved"
mkdir -p "$D/x"
tar xjf "$D/p.data.tar.bz2" -C "$D/x"
"$PERFDIFF" report --format=lkp --buildid-dir="$D/p.data.tar.bz2" "$D/p.data" 2>/dev/null |
	grep -q bt_spin || die "the tarball does not name the program"

extract() {  # TARBALL: extract into a fresh directory, then read
	rm -rf "$D/e"
	mkdir "$D/e"
	tar xf "$1" -C "$D/e"
	"$PERFDIFF" report --format=lkp --buildid-dir="$D/e" "$D/p.data"
}
export -f extract
export D PERFDIFF

bench_cache "$D/p.data" "$D/p.data.tar.bz2" "$D/p.data.tar.zst"
bench_banner "$PERFDIFF"
bench_timing_line
for t in bz2 zst; do
	echo "tarball: $t, $(bench_mb "$(stat -c %s "$D/p.data.tar.$t")")"
done
for t in bz2 zst; do
	bench_run "in place ($t)" "$PERFDIFF" report --format=lkp \
		--buildid-dir="$D/p.data.tar.$t" "$D/p.data"
	bench_run "extract, then read ($t)" bash -c "extract $D/p.data.tar.$t"
done
bench_run "already extracted" "$PERFDIFF" report --format=lkp --buildid-dir="$D/x" "$D/p.data"
bench_table "already extracted" "${ORDER[@]}"
rm -rf "$D/e"
