"""examples/fleet_diff.py on a Dask cluster started as users start one:
`dask scheduler` and two `dask worker` processes (Debian's
python3-distributed) on the loopback, stopped at the end.

* --scheduler gives the same rows and relations as `perfdiff diff` on the
  same files, and the workers kept their symbol cache across tasks (each
  worker's module cache found what its earlier tasks loaded);
* a worker killed while it has tasks: the diff is still complete (Dask
  runs the lost tasks again on the other worker) or the script fails with
  one line naming a lost recording -- never a side with fewer runs;
* with a scheduler that retries nothing, the only worker killed: one
  line naming the lost recording, exit status 2.

Skipped without Dask or its `dask` command."""

import contextlib
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


@contextlib.contextmanager
def started(d, names, env=None):
    """{'address', 'workers': {name: Popen}, 'client', 'logs'}: a scheduler
    on a free loopback port (the kernel's choice, read from its scheduler
    file) and single-threaded workers without nannies (so that killing one
    kills it), each logging to a file in `d`; all stopped at the end."""
    dask = _dask()
    from distributed import Client
    os.makedirs(d, exist_ok=True)
    sfile = os.path.join(d, "scheduler.json")
    procs, logs = [], {}

    def start(name, args):
        logs[name] = os.path.join(d, name + ".log")
        p = subprocess.Popen([dask, *args], stdout=subprocess.DEVNULL,
                             stderr=open(logs[name], "w"), cwd=d, env=env)
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
                   for name in names}
        client = Client(address, timeout=STARTUP_S)
        try:
            client.wait_for_workers(len(names), timeout=STARTUP_S)
        except Exception:
            pytest.fail("workers did not start:\n" +
                        "".join(_log_tail(logs[n]) for n in names))
        try:
            yield {"address": address, "workers": workers, "client": client, "logs": logs}
        finally:
            client.close()
    finally:
        _stop(procs)


@pytest.fixture(scope="module")
def cluster(work):
    with started(os.path.join(work, "cluster"), ("w1", "w2")) as c:
        yield c


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
    if cluster["workers"]["w2"].poll() is not None:
        pytest.skip("w2 is gone already")
    # twice each recording: more tasks than the workers can finish before
    # the kill, so that w2 dies with work in hand
    base = recordings["base"] * 2
    new = recordings["new"] * 2
    out = os.path.join(work, "killed.json")
    p = fleet(["--scheduler", cluster["address"], "--all", "--json", out,
               "--base", *base, "--new", *new])
    if not _kill_with_tasks(cluster, "w2", p):
        pytest.fail("the run ended before w2 took a task: " + p.stderr.read())
    _, err = p.communicate(timeout=300)
    if p.returncode == 0:
        same_as_command(out, base, new, cli_out)
    else:
        lines = err.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1, err
        assert any(lines[0].startswith(f"fleet_diff: {f}: ") for f in set(base + new)), err
        assert "Traceback" not in err


def _kill_with_tasks(c, name, proc):
    """SIGKILL worker `name` once the scheduler has given it a task of
    `proc`'s run; False when the run ended first."""
    client, w = c["client"], c["workers"][name]
    addr = next(a for a, i in client.scheduler_info()["workers"].items() if i["name"] == name)
    end = time.monotonic() + 60
    while _processing_on(client, addr) == 0 and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    if proc.poll() is not None:
        return False
    os.kill(w.pid, signal.SIGKILL)
    w.wait()
    return True


def test_lost_recording_is_one_line(recordings, work):
    """A scheduler that retries nothing (allowed-failures 0) and its only
    worker killed with a task in hand: the task is lost for good, and the
    script says which recording in one line, exit status 2."""
    env = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0")
    with started(os.path.join(work, "noretry"), ("w1",), env=env) as c:
        base, new = recordings["base"] * 2, recordings["new"] * 2
        p = fleet(["--scheduler", c["address"], "--json", os.path.join(work, "lost.json"),
                   "--base", *base, "--new", *new])
        if not _kill_with_tasks(c, "w1", p):
            pytest.fail("the run ended before w1 took a task: " + p.stderr.read())
        _, err = p.communicate(timeout=300)
    lines = err.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, err
    assert any(lines[0].startswith(f"fleet_diff: {f}: lost on the cluster: KilledWorker")
               for f in set(base)), err
