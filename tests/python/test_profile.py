"""perfdiff.Profile against `perfdiff report` on the same recordings: the
JSON document byte for byte, and every view's values against the CLI's
JSON (entries, tree, runs, totals), lkp keys, folded stacks and text; each
option of Profile() against the command line option it stands for."""

import os
import warnings

import pytest

import perfdiff
from conftest import needs_pprof



def event_of(doc, name=None):
    for ev in doc["events"]:
        if (name is None and ev["default"]) or ev["name"] == name:
            return ev
    raise AssertionError(f"no event {name}")


def test_json_is_the_clis(base, cli_out):
    p = perfdiff.Profile(base)
    assert p.json() == cli_out("report", "--format=json", *base)


def test_entries_equal_cli(base, cli_json):
    p = perfdiff.Profile(base)
    ev = event_of(cli_json("report", *base))
    got = p.rows("children")
    assert len(got) == len(ev["entries"]) > 5
    for e, want in zip(got, ev["entries"]):
        assert (e.symbol, e.dso, e.kernel, e.inlined, e.unresolved) == \
            (want["symbol"], want["dso"], want["kernel"], want["inlined"], want["unresolved"])
        assert (e.children, e.self) == (want["children"], want["self"])
        assert list(e.children_runs) == want["children_runs"]
        assert list(e.self_runs) == want["self_runs"]
        assert round(e.children_pct, 4) == pytest.approx(want["children_pct"], abs=1e-9)
        assert round(e.self_pct, 4) == pytest.approx(want["self_pct"], abs=1e-9)
    names = {e.symbol for e in got}
    assert {"hash_chunk", "mix_step", "process"} <= names


def test_self_rows(base, cli_json):
    p = perfdiff.Profile(base)
    rows = p.rows("self")
    ev = event_of(cli_json("report", *base))
    want = {(e["symbol"], e["dso"]): e["self"] for e in ev["entries"] if e["self"] > 0}
    assert {(r.symbol, r.dso): r.self for r in rows} == want
    assert [r.self for r in rows] == sorted((r.self for r in rows), reverse=True)


def test_tree_equals_cli(base, cli_json):
    p = perfdiff.Profile(base)
    ev = event_of(cli_json("report", *base))
    tree = p.tree()
    assert len(tree) == len(ev["tree"]) == ev["nodes"]
    for n, want in zip(tree, ev["tree"]):
        assert (n.id, n.parent, n.symbol, n.dso, n.unit) == \
            (want["id"], want["parent"], want["symbol"], want["dso"], want["unit"])
        assert (n.kernel, n.inlined, n.unresolved) == \
            (want["kernel"], want["inlined"], want["unresolved"])
        assert (n.self, n.total) == (want["self"], want["total"])
        assert (list(n.self_runs), list(n.total_runs)) == (want["self_runs"], want["total_runs"])
        if n.parent is not None:
            assert n.depth == tree[n.parent].depth + 1


def test_calltrace_chains(base):
    p = perfdiff.Profile(base)
    chains = p.rows("calltrace")
    entries = {e.symbol: e for e in p.rows()}
    # node 0 of each entry's chains is the entry itself, with its children
    heads = [c for c in chains if len(c.path) == 1]
    assert {c.path[0]: c.total for c in heads} == \
        {s: e.children for s, e in entries.items() if s in {c.path[0] for c in heads}}
    mix = [c for c in chains if c.path[:2] == ("mix_step", "hash_chunk")]
    assert mix and mix[0].total > 0
    # the chains ending at a path and those going on from it make its total
    for c in chains[:200]:
        below = sum(d.total for d in chains
                    if len(d.path) == len(c.path) + 1 and d.path[:-1] == c.path)
        assert c.self + below == c.total


def test_runs_totals_events(base, cli_json):
    p = perfdiff.Profile(base)
    doc = cli_json("report", *base)
    ev = event_of(doc)
    assert p.events == [e["name"] for e in doc["events"]] == ["cpu-clock"]
    assert p.event == "cpu-clock"
    assert [r.path for r in p.runs] == [r["path"] for r in doc["runs"]] == base
    assert [r.lost for r in p.runs] == [r["lost"] for r in doc["runs"]]
    assert all(r.samples_read > 0 and r.span > 0 and not r.truncated for r in p.runs)
    assert all(r.cmdline.startswith("/usr/bin/perf record") or "record" in r.cmdline
               for r in p.runs)
    assert p.total() == ev["period"] == p.total("cpu-clock") == p.total(0)
    assert [p.total(run=i) for i in range(2)] == ev["period_runs"]
    assert p.sample_count() == ev["samples"]
    assert [p.sample_count(run=i) for i in range(2)] == ev["samples_runs"]
    with pytest.raises(IndexError):
        p.total(run=2)
    with pytest.raises(perfdiff.InvalidArgumentError):
        p.total("cycles")


@pytest.mark.parametrize("args,kw", [
    (["--perf-compat"], {"perf_compat": True}),
    (["--no-inline"], {"inline": False}),
    (["--no-demangle"], {"demangle": False}),
    (["--keep-suffixes"], {"keep_suffixes": True}),
    (["-U"], {"hide_unresolved": True}),
    (["--max-stack=3"], {"max_stack": 3}),
    (["--unwinder=none"], {"unwinder": "none"}),
    (["--comm=app"], {"comm": "app"}),
    (["--comm=app,nothere"], {"comm": ["app", "nothere"]}),
    (["--dso=app"], {"dso": ["app"]}),
    (["--cpu=0,1"], {"cpu": [0, 1]}),
    (["--event=cpu-clock"], {"event": "cpu-clock"}),
    (["--symfs=/nonexistent"], {"symfs": "/nonexistent"}),
    (["--kallsyms=/proc/kallsyms"], {"kallsyms": "/proc/kallsyms"}),
    (["--buildid-dir=/nonexistent"], {"buildid_dir": "/nonexistent"}),
    (["--offline"], {"offline": True}),
    (["--symbols-from=/nonexistent", "--symbols-from=/nonexistent2"],
     {"symbols_from": ["/nonexistent", "/nonexistent2"]}),
    (["--jit-dir=/nonexistent"], {"jit_dir": "/nonexistent"}),
    (["--vmlinux=/nonexistent"], {"vmlinux": "/nonexistent"}),
])
def test_options_as_cli(base, cli_out, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = perfdiff.Profile(base, threads=1, **kw)
    assert p.json() == cli_out("report", "--format=json", *args, *base)


def test_pid_tid_time_filters(base, cli_out):
    first = perfdiff.Profile(base[0])
    # the workload's pid: a sample of it, through samples()
    s = next(x for x in perfdiff.samples(base[0]) if x.comm == "app")
    p = perfdiff.Profile(base[0], pid=s.pid, tid=[s.tid])
    assert p.json() == cli_out("report", "--format=json", f"--pid={s.pid}", f"--tid={s.tid}",
                               base[0])
    assert p.unmatched_filters == []
    q = perfdiff.Profile(base[0], pid=[s.pid, 1])
    assert q.unmatched_filters == [("pid", "1")]
    t0 = s.time
    r = perfdiff.Profile(base[0], time=(t0, None))
    secs = f"{t0 // 10**9}.{t0 % 10**9:09d}"
    assert r.json() == cli_out("report", "--format=json", f"--time={secs},", base[0])
    assert 0 < r.sample_count() <= first.sample_count()


def test_lkp_keys_equal_cli(base, cli_out):
    p = perfdiff.Profile(base[0], lkp=True)
    want = {}
    for line in cli_out("report", "--format=lkp", base[0]).splitlines():
        k, v = line.rsplit(": ", 1)
        want[k] = float(v)
    got = p.lkp_keys()
    assert got == want and len(got) > 3
    assert p.lkp_keys(run=0) == want
    assert p.lkp_keys(event="cpu-clock") == want
    two = perfdiff.Profile(base, lkp=True)
    mean = {}
    for line in cli_out("report", "--format=lkp", "--mean", *base).splitlines():
        if not line.startswith("#"):
            k, v = line.rsplit(": ", 1)
            mean[k] = float(v)
    assert two.lkp_keys(mean=True) == pytest.approx(mean, abs=0.0051)
    assert two.report("lkp") == cli_out("report", "--format=lkp", *base)


def test_folded_text_html_csv(base, cli_out):
    p = perfdiff.Profile(base)
    assert p.folded() == cli_out("report", "--format=folded", *base)
    assert p.folded(samples=True) == cli_out("report", "--format=folded", "--weight=samples",
                                             *base)
    assert p.text() == cli_out("report", *base)
    assert p.text(percent_limit=5, sort_self=True) == \
        cli_out("report", "--percent-limit=5", "--sort=self", *base)
    assert p.text(chains=False) == cli_out("report", "--no-chains", *base)
    assert p.text(callee=True, threshold=2) == \
        cli_out("report", "--order=callee", "--threshold=2", *base)
    assert p.report("csv") == cli_out("report", "--format=csv", *base)
    assert p.html() == cli_out("report", "--format=html", *base)
    assert p.json(percent_limit=1) == cli_out("report", "--format=json", "--percent-limit=1",
                                              *base)
    with pytest.raises(ValueError):
        p.report("nosuch")
    with pytest.raises(ValueError):
        p.rows("nosuch")


@needs_pprof
def test_pprof_round_trip(base, work, cli_out):
    p = perfdiff.Profile(base)
    path = os.path.join(work, "both.pb.gz")
    p.write_pprof(path)
    assert cli_out("report", "--format=json", path) == perfdiff.Profile(path).json()
    from_file = perfdiff.Profile(path)
    assert [(e.symbol, e.children, e.self) for e in from_file.rows()] == \
        [(e.symbol, e.children, e.self) for e in p.rows()]
    # one run's bytes, gzipped or not, in memory, named or not
    runs = [p.pprof(run=i) for i in range(2)]
    raw = p.pprof(run=0, gzip=False)
    assert raw[:2] != b"\x1f\x8b" and runs[0][:2] == b"\x1f\x8b"
    mem = perfdiff.Profile([("one", runs[0]), bytearray(runs[1])])
    assert [r.path for r in mem.runs] == ["one", "<pprof 1>"]
    assert [(e.symbol, e.children_runs) for e in mem.rows()] == \
        [(e.symbol, e.children_runs) for e in p.rows()]
    assert perfdiff.Profile(memoryview(raw)).rows() == perfdiff.Profile(runs[0]).rows()
    assert perfdiff.Profile(("solo", runs[0])).runs[0].path == "solo"


def test_pathlike_and_single_path(base):
    import pathlib
    a = perfdiff.Profile(pathlib.Path(base[0]))
    b = perfdiff.Profile(base[0])
    assert a.rows() == b.rows() and len(a.runs) == 1


def test_to_pandas(base):
    pandas = pytest.importorskip("pandas")
    p = perfdiff.Profile(base)
    df = p.to_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert list(df["symbol"]) == [e.symbol for e in p.rows()]
    assert list(df["children"]) == [e.children for e in p.rows()]
    assert len(p.to_pandas("calltrace")) == len(p.rows("calltrace"))


@needs_pprof
def test_write_pprof_whole_or_refused(base, work):
    """write_pprof() never writes over a run (by name, hard link or
    symlink: the same inode), and replaces a file whole, keeping its mode,
    through a temporary file that does not stay behind."""
    p = perfdiff.Profile(base)
    before = open(base[0], "rb").read()
    d = os.path.join(work, "write_pprof")
    os.makedirs(d)
    hard, soft = os.path.join(d, "hard.data"), os.path.join(d, "soft.data")
    os.link(base[0], hard)
    os.symlink(os.path.abspath(base[0]), soft)
    for target in (base[0], hard, soft, os.fsencode(soft)):
        with pytest.raises(perfdiff.Error) as e:
            p.write_pprof(target)
        assert "not overwriting" in str(e.value)
    assert open(base[0], "rb").read() == before
    out = os.path.join(d, "out.pb.gz")
    with open(out, "w") as f:
        f.write("old\n")
    os.chmod(out, 0o640)
    p.write_pprof(out, run=1)
    assert open(out, "rb").read() == p.pprof(run=1)
    assert os.stat(out).st_mode & 0o777 == 0o640
    with pytest.raises(perfdiff.Error):
        p.write_pprof(os.path.join(d, "no", "such", "dir.pb.gz"))
    assert sorted(os.listdir(d)) == ["hard.data", "out.pb.gz", "soft.data"]
