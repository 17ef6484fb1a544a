"""Subinterpreters: the extension is initialised in phases (PEP 489) with
its classes in the module's state, so each interpreter that imports it
gets its own module and classes -- none shared with the main interpreter
-- and uses it, and destroying a subinterpreter leaves the main one's
module working.

Run in a child process (a crash in a subinterpreter would take the test
run down) through CPython's _xxsubinterpreters (Debian's python3.11 has
it); skipped where the interpreter lacks it."""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import SRC

FP = os.path.join(SRC, "tests/data/fp.data")

CHILD = """
import _xxsubinterpreters as interpreters
import warnings
import perfdiff
from perfdiff import _perfdiff

SUB = '''
import warnings
import perfdiff
from perfdiff import _perfdiff
assert id(_perfdiff) != {mod}, "the main interpreter's module"
for name in ("Profile", "Diff", "Samples", "Error", "Row", "PerfdiffWarning"):
    assert id(getattr(_perfdiff, name)) != {ids}[name], name + " is shared"
warnings.simplefilter("ignore")
p = perfdiff.Profile({fp!r})
d = perfdiff.Diff(p, p)
assert p.total() == {total} and d.rows and len(list(perfdiff.samples({fp!r}))) > 0
try:
    perfdiff.Profile("/nonexistent.data")
except perfdiff.ReadError as e:
    assert e.code == -4
else:
    raise AssertionError("no ReadError")
'''

warnings.simplefilter("ignore")
total = perfdiff.Profile(FP).total()
ids = {n: id(getattr(_perfdiff, n)) for n in
       ("Profile", "Diff", "Samples", "Error", "Row", "PerfdiffWarning")}
for _ in range(2):
    sub = interpreters.create()
    try:
        interpreters.run_string(sub, SUB.format(mod=id(_perfdiff), ids=ids, fp=FP,
                                                total=total))
    finally:
        interpreters.destroy(sub)
assert perfdiff.Profile(FP).total() == total
print("ok")
"""


def test_subinterpreters():
    r = subprocess.run([sys.executable, "-c", "import _xxsubinterpreters"],
                       capture_output=True)
    if r.returncode:
        pytest.skip("this python has no _xxsubinterpreters")
    code = f"FP = {FP!r}\n" + textwrap.dedent(CHILD)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
