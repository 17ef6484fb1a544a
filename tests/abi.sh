#!/bin/sh
# The shared library against the ABI baseline (abi/libperfdiff.abi,
# docs/abi.md): an incompatible change (a function removed, a type
# changed under a caller) fails, unless the SONAME and the baseline were
# changed together; additions pass and are listed.  Skips (exit 77)
# without abidiff (Debian's abigail-tools) or a baseline.
#
#   abi.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
base=$src/abi/libperfdiff.abi
command -v abidiff >/dev/null || { echo "no abidiff (abigail-tools): skipped"; exit 77; }
[ -f "$base" ] || { echo "no $base: skipped"; exit 77; }
lib=$(readlink -f "$build/libperfdiff.so")
soname=$(objdump -p "$lib" | awk '/SONAME/ { print $2 }')
want=$(sed -n 's/.*soname=.\([^"'"'"']*\).*/\1/p' "$base" | head -1)
if [ "$soname" != "$want" ]; then
	echo "SONAME $soname, baseline $want: update the baseline with the SONAME (abi/update.sh)"
	exit 1
fi
out=$(abidiff --headers-dir2 "$src/include/perfdiff" --drop-private-types \
	--suppressions "$src/abi/libperfdiff.abignore" "$base" "$lib")
st=$?
echo "$out"
# abidiff's status bits: 1 error, 2 usage, 4 an ABI change, 8 an incompatible one
if [ $((st & 3)) -ne 0 ]; then
	echo "abidiff failed (status $st)"
	exit 1
fi
# a function removed, or one whose types changed in a way the suppressions
# do not allow, under the same SONAME
changed=$(echo "$out" | awk '/changes summary:/ { if ($4 + 0 || $6 + 0) n++ } END { print n + 0 }')
if [ $((st & 8)) -ne 0 ] || [ "$changed" -ne 0 ]; then
	echo "incompatible ABI change under the SONAME $soname: bump PD_SOVERSION in"
	echo "CMakeLists.txt and run abi/update.sh in the same commit (docs/abi.md)"
	exit 1
fi
[ $((st & 4)) -ne 0 ] && echo "compatible ABI changes (above): fine"
exit 0
