"""Paths that are not UTF-8: every path argument takes str, bytes and
os.PathLike as os.fsencode() does, and every path handed back (run paths,
dsos, error and warning texts) is decoded as os.fsdecode() does, so that
it round-trips to the same bytes.  The command line tool, which never
decodes, is the oracle: a program built and recorded under a directory
whose name holds the byte 0xff reads the same through both."""

import json
import os
import pathlib
import shutil
import warnings

import pytest

import perfdiff
from conftest import SRC, run, needs_pprof

ODD = b"odd-\xff"


@pytest.fixture(scope="module")
def odd(work):
    """(recording, program) as bytes paths, both under work/odd-\\xff/."""
    for tool in ("perf", "cc"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is not installed")
    d = os.path.join(os.fsencode(work), ODD)
    os.makedirs(d, exist_ok=True)
    exe, data = os.path.join(d, b"app-\xfe"), os.path.join(d, b"run-\xff.data")
    src = os.path.join(SRC, "tests/workloads/diff_rename.c")
    r = run([b"cc", b"-O0", b"-g", b"-fno-omit-frame-pointer", b"-o", exe, os.fsencode(src)])
    if r.returncode:
        pytest.skip(f"cc failed: {r.stderr.decode(errors='replace')}")
    r = run([b"perf", b"record", b"-q", b"-N", b"-e", b"cpu-clock", b"-g", b"-o", data, b"--",
             exe, b"300"])
    if r.returncode:
        pytest.skip("perf record fails here (perf_event_paranoid?)")
    return data, exe


def cli_report(cli, data):
    r = run([os.fsencode(cli), b"report", b"-q", b"--format=json", data])
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("kind", ["str", "pathlike"])
def test_profile_reads_odd_name(odd, cli, kind):
    data, exe = odd
    arg = os.fsdecode(data) if kind == "str" else pathlib.Path(os.fsdecode(data))
    p = perfdiff.Profile(arg)
    assert p.runs[0].path == os.fsdecode(data)
    assert os.fsencode(p.runs[0].path) == data
    want = cli_report(cli, data)["events"][0]
    assert p.runs[0].samples_read == want["samples"]
    # the program's own rows carry its path as the file system spells it
    mine = [e for e in p.rows() if e.dso == os.fsdecode(exe)]
    assert {e.symbol for e in mine} >= {"main", "hash_chunk"}
    got = {e.symbol: e.children for e in mine}
    assert got == {e["symbol"]: e["children"] for e in want["entries"]
                   if e["symbol"] in got and not e["kernel"]}


def test_warnings_name_odd_file(odd):
    """A copy cut to two thirds warns (features outside the file, the
    data cut short), each warning naming the file as os.fsdecode does."""
    data, _ = odd
    cut = os.path.join(os.path.dirname(data), b"cut-\xff.data")
    blob = open(data, "rb").read()
    open(cut, "wb").write(blob[:len(blob) * 2 // 3])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        perfdiff.Profile(os.fsdecode(cut))
    texts = [str(w.message) for w in caught if issubclass(w.category, perfdiff.PerfdiffWarning)]
    assert texts and all(t.startswith(os.fsdecode(cut) + ": ") for t in texts), texts


@pytest.mark.parametrize("kind", ["str", "bytes", "pathlike"])
def test_samples_reads_odd_name(odd, cli_out, kind):
    data, exe = odd
    arg = {"str": os.fsdecode(data), "bytes": data,
           "pathlike": pathlib.Path(os.fsdecode(data))}[kind]
    got = list(perfdiff.samples(arg))
    want = cli_out("script", "--format=json", os.fsdecode(data)).splitlines()
    assert len(got) == len(want) > 100
    dsos = {f.dso for s in got for f in s.frames}
    assert os.fsdecode(exe) in dsos


def test_option_paths_take_bytes(odd):
    data, _ = odd
    ks = os.path.join(os.path.dirname(data), b"kallsyms-\xff")
    shutil.copyfile("/proc/kallsyms", ks)
    by_bytes = list(perfdiff.samples(data, kallsyms=ks))
    by_str = list(perfdiff.samples(data, kallsyms=os.fsdecode(ks)))
    assert by_bytes == by_str and by_bytes


def test_errors_name_odd_paths(work):
    gone = os.path.join(os.fsencode(work), b"gone-\xff.data")
    for call in (lambda: perfdiff.Profile(os.fsdecode(gone)),
                 lambda: perfdiff.samples(gone)):
        with pytest.raises(perfdiff.ReadError) as e:
            call()
        assert e.value.path == os.fsdecode(gone)
        assert os.fsdecode(gone) in e.value.message


@needs_pprof
def test_pprof_pair_name(odd):
    data, _ = odd
    blob = perfdiff.Profile(os.fsdecode(data)).pprof()
    name = b"from-\xff.pb.gz"
    p = perfdiff.Profile((name, blob))
    assert p.runs[0].path == os.fsdecode(name)
