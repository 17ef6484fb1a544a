"""__init__ and readiness: a Profile or Diff is usable only once its
__init__ has finished; a failed __init__ leaves nothing behind (no half-read
profile to use, no options, event or sides kept), so that __init__ may run
again on the same object; a finished object is made once.

On the fixtures of tests/data: no perf needed."""

import os
import sys
import warnings

import pytest

import perfdiff
from conftest import SRC

FP = os.path.join(SRC, "tests/data/fp.data")
NOT_READY = "not ready"


@pytest.fixture(scope="module")
def fp():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfdiff.PerfdiffWarning)
        return perfdiff.Profile(FP)


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfdiff.PerfdiffWarning)
        return fn(*args, **kw)


def test_profile_half_read_is_not_ready():
    """An input that fails after one that was read: the object is not
    ready (not a profile of the first input only), and __init__ may run
    again."""
    p = perfdiff.Profile.__new__(perfdiff.Profile)
    with pytest.raises(perfdiff.ReadError):
        quiet(p.__init__, [FP, "/nonexistent/run.data"])
    for use in (lambda: p.events, lambda: p.runs, lambda: p.total(), lambda: p.rows(),
                lambda: p.tree(), lambda: p.pprof(), lambda: p.report()):
        with pytest.raises(RuntimeError, match=NOT_READY):
            use()
    quiet(p.__init__, FP)
    assert len(p.runs) == 1 and p.total() > 0


def test_profile_made_once(fp):
    with pytest.raises(RuntimeError, match="made once"):
        fp.__init__(FP)
    assert len(fp.runs) == 1


def test_profile_failed_iterator_is_not_ready():
    """A user's iterator raising midway: the error comes through and the
    object is not ready."""
    def inputs():
        yield FP
        raise KeyError("boom")
    p = perfdiff.Profile.__new__(perfdiff.Profile)
    with pytest.raises(KeyError):
        quiet(p.__init__, inputs())
    with pytest.raises(RuntimeError, match=NOT_READY):
        p.events


def test_diff_failed_init_keeps_no_reference(fp):
    """A Diff whose __init__ fails (no such event) holds neither side,
    however often it is retried; it is not ready, and a good __init__
    then makes it."""
    d = perfdiff.Diff.__new__(perfdiff.Diff)
    before = sys.getrefcount(fp)
    for _ in range(20):
        with pytest.raises(perfdiff.InvalidArgumentError):
            d.__init__(fp, fp, event="no-such-event")
    assert sys.getrefcount(fp) == before
    with pytest.raises(RuntimeError, match=NOT_READY):
        d.rows
    with pytest.raises(RuntimeError, match=NOT_READY):
        d.write()
    d.__init__(fp, fp)
    assert d.base is fp and d.event == "cpu-clock"
    with pytest.raises(RuntimeError, match="made once"):
        d.__init__(fp, fp)
    del d
    assert sys.getrefcount(fp) == before


def test_diff_of_unready_profile(fp):
    p = perfdiff.Profile.__new__(perfdiff.Profile)
    with pytest.raises(RuntimeError, match=NOT_READY):
        perfdiff.Diff(fp, p)
