"""Text in and out, one way: whatever the module hands out (warnings,
filter values, event names) is decoded as os.fsdecode() does and whatever
it is given is encoded as os.fsencode() does, so bytes that are not UTF-8
go through both ways; and Diff checks its numbers as `perfdiff diff`
checks the same options, in the same words (an InvalidArgumentError, as
the library's own checks of some of them raise).

On the fixture fp.data: no perf needed."""

import os
import subprocess
import warnings

import pytest

import perfdiff
from conftest import SRC, tool_env

FP = os.path.join(SRC, "tests/data/fp.data")


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfdiff.PerfdiffWarning)
        return fn(*args, **kw)


@pytest.fixture(scope="module")
def fp():
    return quiet(perfdiff.Profile, FP)


def test_warnings_list_odd_paths():
    """A symfs whose name is not UTF-8: the warnings naming it, as issued
    and as listed, give its bytes back."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = perfdiff.Profile(FP, symfs=b"/nonexistent-\xfe")
    listed = [m for _, m in p.warnings]
    assert [str(w.message) for w in caught
            if issubclass(w.category, perfdiff.PerfdiffWarning)] == listed
    odd = [m for m in listed if "/nonexistent-" in m]
    assert odd and all(b"/nonexistent-\xfe/" in os.fsencode(m) for m in odd)


def test_filters_take_and_give_odd_names():
    p = quiet(perfdiff.Profile, FP, dso="\udcff-lib", comm=[b"x\xff", "workload"])
    assert sorted(p.unmatched_filters) == [("comm", "x\udcff"), ("dso", "\udcff-lib")]


def test_event_by_str_or_bytes(fp):
    assert fp.total(event="cpu-clock") == fp.total(event=b"cpu-clock") == fp.total()
    with pytest.raises(perfdiff.InvalidArgumentError, match="no event"):
        fp.total(event="cpu-clock\udcff")
    assert perfdiff.Diff(fp, fp, event=b"cpu-clock").event == "cpu-clock"


@pytest.mark.parametrize("option, value", [
    ("depth", -1), ("depth", 2**32), ("min_change", -1), ("min_change", float("nan")),
    ("fdr", 0), ("fdr", 1.5), ("rename_score", 2)])
def test_diff_checks_numbers_as_the_command(fp, cli, option, value):
    with pytest.raises(perfdiff.InvalidArgumentError) as e:
        perfdiff.Diff(fp, fp, **{option: value})
    flag = "--" + option.replace("_", "-")
    r = subprocess.run([cli, "diff", f"{flag}={value}", FP, FP], capture_output=True,
                       text=True, env=tool_env())
    assert r.returncode == 2
    said = r.stderr.splitlines()[0].removeprefix("perfdiff: ").replace(flag, option)
    assert str(e.value) == said.replace("'", "")


def test_diff_takes_the_edges(fp):
    d = perfdiff.Diff(fp, fp, depth=0, min_change=0, fdr=1, rename_score=0,
                      cost_tolerance=1)
    assert d.rows and perfdiff.Diff(fp, fp, min_change=None).rows
    with pytest.raises(TypeError):
        perfdiff.Diff(fp, fp, depth=1.5)
    with pytest.raises(perfdiff.InvalidArgumentError, match="cost_tolerance"):
        perfdiff.Diff(fp, fp, cost_tolerance=-0.5)
