"""The type stub (python/perfdiff/__init__.pyi) matches the runtime: mypy's
stubtest compares every name and signature with the module as built, the
examples type-check under `mypy --strict` with it, and what the stub says
of the records holds (struct sequences: tuples with named read-only
fields, not NamedTuples, not subclassable).  Skipped without mypy
(Debian's `mypy`)."""

import os
import subprocess
import sys
import warnings

import pytest

import perfdiff
from conftest import SRC

FP = os.path.join(SRC, "tests/data/fp.data")


def mypy(work, *args, env=None):
    """Run python -m ARGS in `work` (mypy's cache there, not in the source
    tree); its status and output."""
    pytest.importorskip("mypy")
    r = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, env=env,
                       cwd=work, timeout=600)
    return r.returncode, r.stdout + r.stderr


def test_stubtest(work):
    """Every name of the stub is in the module and the other way round:
    the module as built, with the stub beside it."""
    built = os.path.dirname(os.path.dirname(os.path.abspath(perfdiff.__file__)))
    env = dict(os.environ, MYPYPATH=built, PYTHONPATH=built)
    rc, out = mypy(work, "mypy.stubtest", "perfdiff", env=env)
    assert rc == 0, out


def test_examples_are_strictly_typed(work):
    """The stub is the one in the source tree, as installed next to the
    module; the examples' own imports (Dask) are found where installed."""
    examples = os.path.join(SRC, "examples")
    paths = sorted(os.path.join(examples, f) for f in os.listdir(examples) if f.endswith(".py"))
    env = dict(os.environ, MYPYPATH=os.path.join(SRC, "python"))
    rc, out = mypy(work, "mypy", "--strict", *paths, env=env)
    assert rc == 0, out


def test_records_are_struct_sequences():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfdiff.PerfdiffWarning)
        p = perfdiff.Profile(FP)
        d = perfdiff.Diff(p, p)
    for rec in (p.runs[0], p.rows()[0], p.rows("calltrace")[0], p.tree()[0], d.rows[0],
                d.rows[0].base, next(iter(perfdiff.samples(FP)))):
        cls = type(rec)
        assert isinstance(rec, tuple) and not hasattr(rec, "_asdict"), cls
        first = cls.__match_args__[0]
        assert len(cls.__match_args__) == len(rec) and rec[0] == getattr(rec, first)
        with pytest.raises(AttributeError):
            setattr(rec, first, None)
        with pytest.raises(TypeError):
            type("Sub", (cls,), {})
