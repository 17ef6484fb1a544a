"""examples/fleet_diff.py on a Dask cluster started as users start one:
`dask scheduler` and two `dask worker` processes (Debian's
python3-distributed) on the loopback, stopped at the end.

* --scheduler gives the same rows and relations as `perfdiff diff` on the
  same files, and the workers kept their symbol cache across tasks (each
  worker's module cache found what its earlier tasks loaded);
* a worker killed while it has tasks: the diff is still complete (Dask
  runs the lost tasks again on the other worker) or the script fails with
  one line naming a lost recording -- never a side with fewer runs.

Skipped without Dask or its `dask` command."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import SRC

STARTUP_S = 60   # scheduler and workers up, on a loaded machine


def _dask():
    pytest.importorskip("dask.distributed", reason="needs Dask (python3-distributed)")
    exe = shutil.which("dask")
    if not exe:
        pytest.skip("no `dask` command (python3-distributed installs /usr/bin/dask)")
    return exe


def _stop(procs):
    """SIGTERM to each process we started, SIGKILL to any still there."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    end = time.monotonic() + 10
    for p in procs:
        try:
            p.wait(timeout=max(0.1, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _log_tail(path, n=15):
    try:
        return "".join(open(path, errors="replace").readlines()[-n:])
    except OSError:
        return ""


@pytest.fixture(scope="module")
def cluster(work):
    """{'address', 'workers': {name: Popen}, 'client'}: a scheduler on a
    free loopback port (the kernel's choice, read from its scheduler
    file) and two single-threaded workers without nannies (so that
    killing one kills it), each logging to a file."""
    dask = _dask()
    from distributed import Client
    d = os.path.join(work, "cluster")
    os.makedirs(d, exist_ok=True)
    sfile = os.path.join(d, "scheduler.json")
    procs, logs = [], {}

    def start(name, args):
        logs[name] = os.path.join(d, name + ".log")
        p = subprocess.Popen([dask, *args], stdout=subprocess.DEVNULL,
                             stderr=open(logs[name], "w"), cwd=d)
        procs.append(p)
        return p

    try:
        start("scheduler", ["scheduler", "--host", "127.0.0.1", "--port", "0",
                            "--no-dashboard", "--no-show", "--scheduler-file", sfile])
        end = time.monotonic() + STARTUP_S
        while not os.path.exists(sfile) and time.monotonic() < end and procs[0].poll() is None:
            time.sleep(0.05)
        assert os.path.exists(sfile), "scheduler did not start:\n" + _log_tail(logs["scheduler"])
        address = json.load(open(sfile))["address"]
        assert address.startswith("tcp://127.0.0.1:"), address
        workers = {name: start(name, ["worker", address, "--name", name, "--nthreads", "1",
                                      "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                                      "--local-directory", d])
                   for name in ("w1", "w2")}
        client = Client(address, timeout=STARTUP_S)
        try:
            client.wait_for_workers(2, timeout=STARTUP_S)
        except Exception:
            pytest.fail("workers did not start:\n" + _log_tail(logs["w1"]) + _log_tail(logs["w2"]))
        yield {"address": address, "workers": workers, "client": client, "logs": logs}
        client.close()
    finally:
        _stop(procs)


def fleet(args, **kw):
    return subprocess.Popen([sys.executable, os.path.join(SRC, "examples", "fleet_diff.py"),
                             "-q", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def rows(doc):
    def row(x):
        rel = x["relation"]
        return (x["metric"], x["key"], x["symbol"], x["dso"], x["base"], x["new"], x["change"],
                x["p_value"], x["q_value"], x["significant"],
                rel and (rel["kind"], rel["base_symbol"], rel["new_symbol"]))
    return [row(x) for x in doc["rows"]]


def relations(doc):
    # a pprof profile has no symbol tables: evidence and score may differ
    return [{k: v for k, v in x.items() if k not in ("evidence", "score")}
            for x in doc["relations"]]


def same_as_command(out, base, new, cli_out):
    got = json.load(open(out))
    want = json.loads(cli_out("diff", "--format=json", "--all", *base, "--", *new))
    assert got["base"]["files"] == base and got["new"]["files"] == new
    assert (got["event"], got["test"], got["rows_total"]) == \
        (want["event"], want["test"], want["rows_total"])
    assert rows(got) == rows(want)
    assert relations(got) == relations(want)


def cache_stats(client):
    """{worker address: its module cache's stats} (the default cache)."""
    def stats():
        import perfdiff
        return perfdiff.default_symbol_cache().stats()
    return client.run(stats)


def test_scheduler_and_workers(cluster, recordings, work, cli_out):
    base, new = recordings["base"], recordings["new"]
    out = os.path.join(work, "cluster.json")
    p = fleet(["--scheduler", cluster["address"], "--all", "--json", out,
               "--base", *base, "--new", *new])
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    same_as_command(out, base, new, cli_out)
    # each worker read its binaries and the kernel's table once, then found
    # them in its cache: more hits than misses over its six or so tasks
    stats = cache_stats(cluster["client"])
    assert len(stats) == 2
    for addr, st in stats.items():
        if st["misses"]:   # a worker that ran at least one task
            assert st["hits"] > st["misses"], (addr, st)
    assert sum(st["misses"] for st in stats.values()) > 0, stats


def _processing_on(client, addr):
    try:
        return len(client.processing().get(addr, ()))
    except Exception:
        return 0


def test_killed_worker(cluster, recordings, work, cli_out):
    """w2 killed (SIGKILL) while it holds tasks of the run: Dask runs them
    again on w1 and recomputes the results lost with w2; the diff must
    then be the command's on every file, or the script must fail with one
    line naming one of them."""
    client = cluster["client"]
    w2 = cluster["workers"]["w2"]
    if w2.poll() is not None:
        pytest.skip("w2 is gone already")
    addr = next(a for a, w in client.scheduler_info()["workers"].items() if w["name"] == "w2")
    # twice each recording: more tasks than the workers can finish before
    # the kill, so that w2 dies with work in hand
    base = recordings["base"] * 2
    new = recordings["new"] * 2
    out = os.path.join(work, "killed.json")
    p = fleet(["--scheduler", cluster["address"], "--all", "--json", out,
               "--base", *base, "--new", *new])
    end = time.monotonic() + 60
    while _processing_on(client, addr) == 0 and p.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    if p.poll() is not None:
        pytest.fail("the run ended before w2 took a task: " + p.stderr.read())
    os.kill(w2.pid, signal.SIGKILL)
    w2.wait()
    _, err = p.communicate(timeout=300)
    print(f"killed w2 mid-run: fleet_diff exit {p.returncode} {err.strip()}")
    if p.returncode == 0:
        same_as_command(out, base, new, cli_out)
    else:
        lines = err.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1, err
        assert any(lines[0].startswith(f"fleet_diff: {f}: ") for f in set(base + new)), err
        assert "Traceback" not in err
