#!/bin/sh
# The installed library as its users get it: `cmake --install` of the
# build into a temporary prefix, then tests/install/consumer.c built
# against that prefix two ways -- with pkg-config (shared, and static with
# --static) and with CMake's find_package (perfdiff::perfdiff and
# perfdiff::perfdiff_static) -- and run on a fixture whose per-event
# sample counts `perf report --stats` gave when it was recorded
# (tests/data/two.stats).  The shared library must export pd_* only.
#
#   run.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
data=$src/tests/data/two.data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
pc=$(find "$work/prefix" -name libperfdiff.pc)
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH="$libdir/pkgconfig"

# exports: pd_* and the version node, nothing else
bad=$(nm -D --defined-only "$libdir/libperfdiff.so" | awk '$3 !~ /^pd_/ && $3 != "PERFDIFF_0"')
[ -z "$bad" ] || { echo "exported besides pd_*: $bad" >&2; exit 1; }

# the oracle: "<event> stats:" then "SAMPLE events: N", per event
awk '/^[^ ].* stats:$/ && !/^Aggregated/ { ev = $1 } /SAMPLE events:/ && ev { print ev, $3; ev = "" }' \
	"$src/tests/data/two.stats" | sort >"$work/want"
# shellcheck disable=SC2086
cc -o "$work/pc_shared" "$src/tests/install/consumer.c" $(pkg-config --cflags --libs libperfdiff)
# shellcheck disable=SC2086
cc -o "$work/pc_static" "$src/tests/install/consumer.c" \
	$(pkg-config --static --cflags libperfdiff) "$libdir/libperfdiff.a" \
	$(pkg-config --static --libs-only-other --libs-only-l libperfdiff | sed 's/-lperfdiff//')
cmake -S "$src/tests/install" -B "$work/cm" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cm" >/dev/null

status=0
for prog in "$work/pc_shared" "$work/pc_static" "$work/cm/consumer_shared" "$work/cm/consumer_static"; do
	LD_LIBRARY_PATH="$libdir" "$prog" "$data" >"$work/out"
	grep -v '^relations ' "$work/out" | sed 's/:[a-zA-Z]*//' | sort >"$work/got"
	if ! cmp -s "$work/want" "$work/got" || ! grep -qx 'relations 0 significant 0' "$work/out"; then
		echo "$prog: got" >&2
		cat "$work/out" >&2
		echo "want (perf report --stats):" >&2
		cat "$work/want" >&2
		status=1
	else
		echo "$prog: $(tr '\n' ' ' <"$work/out")"
	fi
done
exit $status
