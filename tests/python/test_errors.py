"""Errors raise perfdiff.Error subclasses carrying code, byte offset and
path, as the command reports them; warnings go through Python's warnings,
one category per kind, and obey its filters."""

import os
import warnings

import pytest

import perfdiff
from conftest import PPROF_OFF, needs_pprof


def record_offset(cli_out, path, n):
    """The byte offset of record n of `path`, as `perfdiff dump` lists it."""
    line = cli_out("dump", path).splitlines()[n]
    return int(line.split()[0], 16)


@pytest.fixture(scope="module")
def corrupt(base, work, cli_out):
    """base[0] with record 100's size set to 3: (path, that record's offset)."""
    data = bytearray(open(base[0], "rb").read())
    off = record_offset(cli_out, base[0], 100)
    data[off + 6:off + 8] = (3).to_bytes(2, "little")
    path = os.path.join(work, "corrupt.data")
    open(path, "wb").write(data)
    return path, off


def test_missing_file():
    with pytest.raises(perfdiff.ReadError) as e:
        perfdiff.Profile(["/nonexistent/run.data"])
    assert isinstance(e.value, perfdiff.Error)
    assert e.value.code == -4 and e.value.code_name == "I/O error" or e.value.code_name
    assert e.value.path == "/nonexistent/run.data"
    assert "/nonexistent/run.data" in e.value.message and str(e.value) == e.value.message
    with pytest.raises(perfdiff.ReadError):
        perfdiff.samples("/nonexistent/run.data")


def test_not_perf_data(work):
    path = os.path.join(work, "zero.data")
    open(path, "wb").write(bytes(64))
    with pytest.raises(perfdiff.NotPerfDataError) as e:
        perfdiff.Profile(path)
    assert (e.value.code, e.value.offset, e.value.path) == (-5, 0, path)


def test_corrupt_record_offset(corrupt, cli):
    from conftest import run
    path, off = corrupt
    with pytest.raises(perfdiff.CorruptError) as e:
        perfdiff.Profile(path)
    assert (e.value.code, e.value.offset, e.value.path) == (-7, off, path)
    r = run([cli, "report", path], text=True)
    assert r.returncode == 2 and e.value.message in r.stderr
    # samples() hands out the samples before the corrupt record, then raises
    it = perfdiff.samples(path)
    got = []
    with pytest.raises(perfdiff.CorruptError) as e2:
        for s in it:
            got.append(s)
    assert e2.value.offset == off and len(got) > 10
    with pytest.raises(StopIteration):
        next(it)


def test_pprof_refused_without_support(work):
    """A build without pprof refuses pprof input and output with
    UnsupportedError naming the input and the build option."""
    from conftest import has_pprof
    if has_pprof():
        pytest.skip("this build has pprof (test_corrupt_pprof and others test it)")
    with pytest.raises(perfdiff.UnsupportedError) as e:
        perfdiff.Profile([("mem.pb", b"\x32\x00")])
    assert e.value.path == "mem.pb" and e.value.message == "mem.pb: " + PPROF_OFF
    p = perfdiff.Profile(os.path.join(os.path.dirname(__file__), "..", "data", "fp.data"))
    with pytest.raises(perfdiff.UnsupportedError) as e:
        p.pprof()
    assert PPROF_OFF in e.value.message


@needs_pprof
def test_corrupt_pprof(work):
    data = b"\x1f\x8b\x08\x00garbagegarbage"
    with pytest.raises(perfdiff.CorruptError) as e:
        perfdiff.Profile([("bad.pb.gz", data)])
    assert e.value.path == "bad.pb.gz" and e.value.offset == 18
    path = os.path.join(work, "bad.pb.gz")
    open(path, "wb").write(data)
    with pytest.raises(perfdiff.CorruptError):
        perfdiff.Profile(path)


def test_bad_arguments(base):
    with pytest.raises(TypeError):
        perfdiff.Profile(base, nosuch=1)
    with pytest.raises(TypeError):
        perfdiff.samples(base[0], comm="app")  # a profile's filter
    with pytest.raises(ValueError):
        perfdiff.Profile(base, unwinder="nosuch")
    with pytest.raises(ValueError):
        perfdiff.Profile(base, pid=2**40)
    with pytest.raises(TypeError):
        perfdiff.Profile(base, time=5)
    with pytest.raises(perfdiff.InvalidArgumentError) as e:
        perfdiff.Profile(base, event="cycles")
    assert "cpu-clock" in str(e.value)
    with pytest.raises(perfdiff.InvalidArgumentError):
        perfdiff.Profile(base, comm="")  # the library refuses an empty name
    p = perfdiff.Profile(base[0])
    with pytest.raises(RuntimeError):
        p.__init__(base[0])
    with pytest.raises(RuntimeError):
        perfdiff.Profile.__new__(perfdiff.Profile).rows()
    with pytest.raises(IndexError):
        p.lkp_keys(run=5)
    with pytest.raises(IndexError):
        p.pprof(run=1)


KINDS = {"other": perfdiff.PerfdiffWarning, "data_lost": perfdiff.DataLostWarning,
         "metadata": perfdiff.MetadataWarning, "unverified": perfdiff.UnverifiedWarning,
         "not_found": perfdiff.NotFoundWarning, "mismatch": perfdiff.MismatchWarning}


def test_warnings(base, work):
    # every binary looked up under an empty symfs: not found
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        p = perfdiff.Profile(base[0], symfs=work)
    assert [(type(x.message), str(x.message)) for x in w] == \
        [(KINDS[k], m) for k, m in p.warnings]
    assert "not_found" in {k for k, _ in p.warnings}
    assert any(e.unresolved for e in p.rows())
    # a cut file: read up to the cut, a data-lost warning
    cut = os.path.join(work, "cut.data")
    open(cut, "wb").write(open(base[0], "rb").read()[:6000])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        q = perfdiff.Profile(cut)
    assert any(isinstance(x.message, perfdiff.DataLostWarning) for x in w)
    assert q.runs[0].truncated and "data_lost" in {k for k, _ in q.warnings}
    # warnings made errors raise, as any warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", perfdiff.NotFoundWarning)
        with pytest.raises(perfdiff.NotFoundWarning):
            perfdiff.Profile(base[0], symfs=work)
        with pytest.raises(perfdiff.NotFoundWarning):
            list(perfdiff.samples(base[0], symfs=work))
