"""examples/fleet_diff.py on a Dask LocalCluster of two worker processes,
6 recordings a side made at test time: the same rows and relations as
`perfdiff diff` on the same files (the runs travel as pprof bytes, which
keep every value; the evidence of a relation may differ, since a pprof
profile carries no symbol tables), and its text and HTML outputs."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import SRC, needs_pprof

# the runs travel as pprof bytes
pytestmark = needs_pprof


def test_fleet_diff_local_cluster(recordings, work, cli_out):
    pytest.importorskip("dask.distributed", reason="needs Dask (python3-distributed)")
    base, new = recordings["base"], recordings["new"]
    assert len(base) == len(new) == 6
    out = {k: os.path.join(work, "fleet." + k) for k in ("json", "txt", "html")}
    r = subprocess.run([sys.executable, os.path.join(SRC, "examples", "fleet_diff.py"),
                        "--workers", "2", "--all", "-q", "--json", out["json"],
                        "--text", out["txt"], "--html", out["html"],
                        "--base", *base, "--new", *new],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    got = json.load(open(out["json"]))
    want = json.loads(cli_out("diff", "--format=json", "--all", *base, "--", *new))
    assert got["base"]["files"] == base and got["new"]["files"] == new
    assert (got["event"], got["test"], got["rows_total"]) == \
        (want["event"], want["test"], want["rows_total"])

    def row(x):
        rel = x["relation"]
        return (x["metric"], x["key"], x["symbol"], x["dso"], x["base"], x["new"], x["change"],
                x["p_value"], x["q_value"], x["significant"],
                rel and (rel["kind"], rel["base_symbol"], rel["new_symbol"]))
    assert [row(x) for x in got["rows"]] == [row(x) for x in want["rows"]]

    def relation(x):
        return {k: v for k, v in x.items() if k not in ("evidence", "score")}
    assert [relation(x) for x in got["relations"]] == [relation(x) for x in want["relations"]]
    assert got["relations"][0]["kind"] == "renamed"
    text = open(out["txt"]).read()
    assert "hash_chunk -> hash_block" in text or "hash_chunk" in text and "renamed" in text
    assert open(out["html"]).read().startswith("<!DOCTYPE html>")


def fleet(args, timeout=300, cwd=None):
    return subprocess.run([sys.executable, os.path.join(SRC, "examples", "fleet_diff.py"),
                           "--workers", "1", "-q"] + args,
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)


def test_fleet_colon_in_local_path(recordings, work):
    """Without --scheduler a colon is part of the file name: x:1.data, a
    relative path, is read here (it used to wait for a worker on host
    "x")."""
    pytest.importorskip("dask.distributed", reason="needs Dask (python3-distributed)")
    base, new = "x:1.data", "y:2.data"
    shutil.copyfile(recordings["base"][0], os.path.join(work, base))
    shutil.copyfile(recordings["new"][0], os.path.join(work, new))
    out = os.path.join(work, "colon.json")
    try:
        r = fleet(["--json", out, "--base", base, "--new", new], timeout=120, cwd=work)
    except subprocess.TimeoutExpired:
        pytest.fail("fleet_diff waited for a host named after the file's name")
    assert r.returncode == 0, r.stderr
    got = json.load(open(out))
    assert got["base"]["files"] == [base] and got["new"]["files"] == [new]


@pytest.mark.parametrize("kind", ["missing", "text", "empty"])
def test_fleet_bad_input_one_line(recordings, work, kind):
    """A recording that cannot be read: one line naming it, exit 2, no
    traceback (a missing file before any worker starts; a text file and an
    empty one as the worker's reader says)."""
    pytest.importorskip("dask.distributed", reason="needs Dask (python3-distributed)")
    bad = os.path.join(work, f"bad-{kind}.data")
    if kind == "text":
        open(bad, "w").write("this is not a recording\n")
    elif kind == "empty":
        open(bad, "w").close()
    r = fleet(["--base", recordings["base"][0], "--new", bad])
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2, r.stderr
    assert len(lines) == 1 and lines[0].startswith(f"fleet_diff: {bad}: "), r.stderr
    assert "Traceback" not in r.stderr


def test_fleet_hosts_with_scheduler(recordings, work):
    """With --scheduler: a local file named with a colon is that file;
    HOST:PATH runs on HOST's workers (127.0.0.1 here); a host with no
    worker is one line naming the argument, at once."""
    distributed = pytest.importorskip("dask.distributed", reason="needs Dask (python3-distributed)")
    colon = "z:3.data"
    shutil.copyfile(recordings["base"][1], os.path.join(work, colon))
    out = os.path.join(work, "sched.json")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        sched = ["--scheduler", cluster.scheduler_address]
        new = "127.0.0.1:" + recordings["new"][0]
        r = fleet(sched + ["--json", out, "--base", colon, "--new", new], timeout=120, cwd=work)
        assert r.returncode == 0, r.stderr
        got = json.load(open(out))
        assert got["base"]["files"] == [colon] and got["new"]["files"] == [new]
        r = fleet(sched + ["--base", colon, "--new", "nohost.invalid:/x.data"], timeout=60,
                  cwd=work)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert lines[0].startswith("fleet_diff: nohost.invalid:/x.data: no worker runs on host"), r.stderr
