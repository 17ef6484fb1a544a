#!/bin/sh
# Write the ABI baseline abi/libperfdiff.abi from a build's shared library
# (with debug info: the types come from its DWARF), described by the
# public headers only.  Run it, and commit its output, together with a
# change that docs/abi.md says needs it (a new SONAME, or new functions
# once released).
#
#   abi/update.sh [BUILD_DIR]      (default: build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
lib=$(readlink -f "$build/libperfdiff.so")
abidw --headers-dir "$root/include/perfdiff" --no-corpus-path --drop-private-types \
	--out-file "$root/abi/libperfdiff.abi" "$lib"
echo "abi/libperfdiff.abi from $lib ($(objdump -p "$lib" | awk '/SONAME/ { print $2 }'))"
