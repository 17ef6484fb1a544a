#!/bin/sh
# The installed library as its users get it: `cmake --install` of the
# build into a temporary prefix, then tests/install/consumer.c built
# against that prefix two ways -- with pkg-config (shared, and static with
# --static) and with CMake's find_package (perfdiff::perfdiff and
# perfdiff::perfdiff_static) -- and run on a fixture whose per-event
# sample counts `perf report --stats` gave when it was recorded
# (tests/data/two.stats).  The shared library must export pd_* only.
# The command's manual pages render with man (when man is installed and
# scdoc built them), `perfdiff help diff` shows the installed page, and
# the bash completion is installed and completes from the installed
# program.  The installed program runs from its prefix, not a system one,
# without LD_LIBRARY_PATH: it finds libperfdiff.so.N by its RUNPATH,
# relative to itself ($ORIGIN), and reads the fixture as the consumers do.
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

# exports: pd_* and the version node (the map's), nothing else
node=$(sed -n 's/^\(PERFDIFF_[0-9]*\) {.*/\1/p' "$src/libperfdiff/libperfdiff.map")
bad=$(nm -D --defined-only "$libdir/libperfdiff.so" | awk -v node="$node" '$3 !~ /^pd_/ && $3 != node')
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
prefix=$work/prefix
bin=$prefix/bin/perfdiff
unset LD_LIBRARY_PATH

# the program alone: its library by RUNPATH ($ORIGIN-relative), none
# given; and so from a copy of the prefix moved elsewhere
rpath=$(readelf -d "$bin" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p; s/.*(RPATH).*\[\(.*\)\]/\1/p')
case $rpath in
'$ORIGIN'/*) ;;
*) echo "$bin: RUNPATH [$rpath], not relative to \$ORIGIN" >&2; status=1 ;;
esac
cp -a "$prefix" "$work/moved"
for b in "$bin" "$work/moved/bin/perfdiff"; do
	if ! "$b" dump --stats --format=json "$data" >"$work/dump.json" 2>"$work/dump.err"; then
		echo "$b without LD_LIBRARY_PATH:" >&2
		cat "$work/dump.err" >&2
		status=1
		continue
	fi
	awk '/^[^ ].* stats:$/ && !/^Aggregated/ { ev = $1 } /SAMPLE events:/ && ev { print ev, $3; ev = "" }' \
		"$src/tests/data/two.stats" | awk '{ s += $2 } END { print s }' >"$work/want_samples"
	grep -q "\"samples\":$(cat "$work/want_samples")," "$work/dump.json" ||
		{ echo "$b: samples differ from perf's: $(head -c 300 "$work/dump.json")" >&2; status=1; }
done
[ $status -eq 0 ] && echo "installed perfdiff: runs without LD_LIBRARY_PATH (RUNPATH $rpath), moved too"

# manual pages: built when scdoc was there, installed to share/man
if [ -d "$build/man" ]; then
	for page in man1/perfdiff.1 man1/perfdiff-dump.1 man1/perfdiff-script.1 \
		    man1/perfdiff-report.1 man1/perfdiff-diff.1 man3/libperfdiff.3; do
		[ -f "$prefix/share/man/$page" ] || { echo "not installed: share/man/$page" >&2; status=1; }
	done
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man -M "$prefix/share/man" perfdiff-diff >"$work/man.txt" 2>&1 || true
		grep -q 'perfdiff-diff - compare two profiles' "$work/man.txt" &&
			grep -q -- '--percent-limit=PCT' "$work/man.txt" ||
			{ echo "man -M PREFIX/share/man perfdiff-diff:" >&2; cat "$work/man.txt" >&2; status=1; }
		# the page beside the program, whatever MANPATH says
		MANPATH=/nonexistent MANWIDTH=80 "$bin" help diff >"$work/help.txt" 2>&1
		head -1 "$work/help.txt" | grep -q '^perfdiff-diff(1)' ||
			{ echo "perfdiff help diff is not the page:" >&2; head -3 "$work/help.txt" >&2; status=1; }
		echo "man pages: installed, rendered, shown by perfdiff help"
	else
		echo "man not installed: the pages' rendering is not checked"
	fi
else
	echo "scdoc not found at build time: no manual pages to check"
fi

# bash completion: installed, and completing from the installed program
comp=$prefix/share/bash-completion/completions/perfdiff
if [ ! -f "$comp" ]; then
	echo "not installed: share/bash-completion/completions/perfdiff" >&2
	status=1
elif command -v bash >/dev/null 2>&1; then
	got=$(PATH="$prefix/bin:$PATH" bash -c '
		. "$1"
		complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
			_perfdiff 2>/dev/null; echo "${COMPREPLY[*]}"; }
		complete_words perfdiff diff --perc
		complete_words perfdiff report --format = j
		complete_words perfdiff rep' sh "$comp")
	want=$(printf '%s\n' --percent-limit= json report)
	[ "$got" = "$want" ] ||
		{ echo "completion: got [$got], want [$want]" >&2; status=1; }
	echo "bash completion: installed and completing"
fi

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
