"""perfdiff.samples() against `perfdiff script --format=json`: every
sample and frame, with each option of the session."""

import json
import os
import shutil

import pytest

import perfdiff


def as_json(s):
    d = dict(zip(type(s).__match_args__, s))
    d["frames"] = []
    for f in s.frames:
        fd = dict(zip(type(f).__match_args__, f))
        fd["addr"], fd["dso_addr"] = hex(f.addr), hex(f.dso_addr)
        d["frames"].append(fd)
    return d


@pytest.fixture(scope="module")
def kallsyms(work):
    path = os.path.join(work, "kallsyms")
    shutil.copyfile("/proc/kallsyms", path)
    return path


@pytest.mark.parametrize("args,kw", [
    ([], {}),
    (["--perf-compat"], {"perf_compat": True}),
    (["--no-inline"], {"inline": False}),
    (["--srcline"], {"srcline": True}),
    (["--no-demangle", "--max-stack=2"], {"demangle": False, "max_stack": 2}),
    (["--symfs=/nonexistent", "--buildid-dir=/nonexistent"],
     {"symfs": "/nonexistent", "buildid_dir": "/nonexistent"}),
    (["--jit-dir=/tmp", "--unwinder=libdw"], {"jit_dir": "/tmp", "unwinder": "libdw"}),
])
def test_samples_equal_script(base, cli_out, kallsyms, args, kw):
    # both name the kernel from one copy of /proc/kallsyms: the live table
    # changes as other programs load BPF programs and modules
    want = [json.loads(x) for x in
            cli_out("script", "--format=json", f"--kallsyms={kallsyms}", *args, base[0]).splitlines()]
    got = [as_json(s) for s in perfdiff.samples(base[0], threads=1, kallsyms=kallsyms, **kw)]
    assert len(got) == len(want) > 100
    assert got == want


def test_event_filter_and_close(base):
    all_ = list(perfdiff.samples(base[0]))
    assert {s.event for s in all_} == {"cpu-clock"}
    assert list(perfdiff.samples(base[0], event="cpu-clock")) == all_
    assert list(perfdiff.samples(base[0], event="cycles")) == []
    with perfdiff.samples(base[0]) as it:
        first = next(it)
        assert first == all_[0]
    with pytest.raises(StopIteration):
        next(it)
    it = perfdiff.samples(base[0])
    it.close()
    assert list(it) == []
    # the period of the samples is the profile's total
    assert sum(s.period for s in all_) == perfdiff.Profile(base[0]).total()
