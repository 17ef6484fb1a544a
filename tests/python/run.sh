#!/bin/sh
# CTest's test_python: the pytest suite of the perfdiff Python module
# (tests/python/), run with the interpreter the module was built for.
#
#   run.sh PYTHON PYTHON_DIR PERFDIFF SANITIZER_RUNTIME SOURCE_DIR
#
# PYTHON_DIR holds the built package (build/python).  In a sanitizer build
# (SANITIZER_RUNTIME not empty) the extension and libperfdiff.so need the
# sanitizers' runtime, which an interpreter built without them does not
# load: it is preloaded into Python (and so into Dask's worker processes;
# conftest.py leaves it out of perf and the command line tool, which carry
# their own), and leak detection is off, since the interpreter keeps its
# objects to the end by design.  Exit 77 (skipped) without pytest.
set -eu
py=$1
export PYTHONPATH="$2"
export PERFDIFF_CLI="$3"
sanrt=$4
src=$5
if ! "$py" -c "import pytest" 2>/dev/null; then
	echo "pytest is not installed for $py (Debian: python3-pytest): skipped"
	exit 77
fi
if [ -n "$sanrt" ]; then
	if [ ! -f "$sanrt" ]; then
		echo "the sanitizer runtime $sanrt is missing: skipped"
		exit 77
	fi
	export PERFDIFF_PRELOAD="$sanrt"
	export PERFDIFF_TOOL_ASAN_OPTIONS="${ASAN_OPTIONS-}"
	export LD_PRELOAD="$sanrt${LD_PRELOAD:+ $LD_PRELOAD}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
cd "$src"
exec "$py" -m pytest -q -rfE -p no:cacheprovider tests/python
