"""No Python code runs under an object's lock: a user's iterator of
inputs, or a warning handler (warnings.showwarning, a filter), may use the
object being built or iterated.  Before, such a call waited for a lock its
own thread held, forever.

Each case runs in a child interpreter with a timeout, so that a deadlock
fails the test instead of hanging the suite.  On the fixture fp.data,
whose binary is not on this machine: reading it gives a NotFoundWarning."""

import os
import subprocess
import sys
import textwrap

from conftest import SRC

FP = os.path.join(SRC, "tests/data/fp.data")


def run_child(code):
    """Run `code` in a child python; its stdout's last line."""
    prelude = f"import warnings, perfdiff\nFP = {FP!r}\n"
    try:
        r = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("deadlock: the child did not finish in 60 s") from None
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()[-1]


def test_input_iterator_uses_the_profile():
    out = run_child("""
        warnings.simplefilter("ignore")
        seen = []
        def inputs():
            yield FP
            try:
                p.rows()
            except RuntimeError as e:
                seen.append("not ready" in str(e))
            yield FP
        p = perfdiff.Profile.__new__(perfdiff.Profile)
        p.__init__(inputs())
        print(seen, len(p.runs))
    """)
    assert out == "[True] 2"


def test_warning_handler_uses_the_profile():
    out = run_child("""
        seen = []
        def show(message, category, *rest, **kw):
            try:
                p.tree()
            except RuntimeError:
                seen.append(category.__name__)
        warnings.showwarning = show
        warnings.simplefilter("always")
        p = perfdiff.Profile.__new__(perfdiff.Profile)
        p.__init__(FP)
        print("NotFoundWarning" in seen, len(p.tree()) > 1)
    """)
    assert out == "True True"


def test_warning_handler_uses_the_samples():
    """samples() gives its warnings at the end: the handler may close the
    iterator or ask it for more."""
    out = run_child("""
        seen = []
        def show(message, category, *rest, **kw):
            seen.append(next(it, None))
            it.close()
        warnings.showwarning = show
        warnings.simplefilter("always")
        it = perfdiff.samples(FP)
        n = sum(1 for _ in it)
        print(n > 0, len(seen) > 0 and set(seen) == {None})
    """)
    assert out == "True True"
