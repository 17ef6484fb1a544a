"""Threads: the GIL is released while the library reads (a reader blocked
on a FIFO lets the thread that fills it run), profiles built on several
threads at once equal those built one after the other, and one Profile or
Diff used from several threads at once gives every thread the same
answers."""

import faulthandler
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import perfdiff


def test_gil_released_while_reading(work):
    """samples() on a FIFO blocks in the library until this thread writes
    the recording into it: with the GIL held there, nothing would write
    (faulthandler then ends the run instead of hanging)."""
    import shutil
    import pytest
    if not shutil.which("perf"):
        pytest.skip("perf is not installed")
    pipe_data = os.path.join(work, "pipe.data")
    with open(pipe_data, "wb") as out:
        r = subprocess_record(out)
    if r.returncode:
        pytest.skip("perf record to a pipe failed")
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    got = []

    def read():
        got.extend(perfdiff.samples(fifo))

    faulthandler.dump_traceback_later(120, exit=True)
    try:
        t = threading.Thread(target=read)
        t.start()
        with open(fifo, "wb") as f:   # opens once the reader has opened it
            f.write(open(pipe_data, "rb").read())
        t.join()
    finally:
        faulthandler.cancel_dump_traceback_later()
    assert len(got) > 0 and got == list(perfdiff.samples(pipe_data))


def subprocess_record(out):
    import subprocess
    from conftest import tool_env
    return subprocess.run(["perf", "record", "-q", "-N", "-e", "cpu-clock", "-g", "-o", "-", "--",
                "sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"], stdout=out,
                          stderr=subprocess.DEVNULL, env=tool_env())


def summary(p):
    return (p.json(), p.rows(), p.tree(), p.folded())


def test_profiles_on_threads(base, new):
    inputs = [base, new, base[:1], new[1:]]
    serial = [summary(perfdiff.Profile(x)) for x in inputs]
    with ThreadPoolExecutor(4) as ex:
        parallel = list(ex.map(lambda x: summary(perfdiff.Profile(x)), inputs))
    assert parallel == serial


def test_shared_objects(base, new):
    b, n = perfdiff.Profile(base), perfdiff.Profile(new)
    want = summary(perfdiff.Profile(base))
    fresh = perfdiff.Profile(base)   # views built for the first time on threads
    with ThreadPoolExecutor(6) as ex:
        got = list(ex.map(lambda _: summary(fresh), range(6)))
        diffs = list(ex.map(lambda i: perfdiff.Diff(b, n) if i % 2 else perfdiff.Diff(n, b),
                            range(6)))
        texts = list(ex.map(lambda d: d.json(all=True), diffs))
    assert got == [want] * 6
    assert texts[1::2] == [perfdiff.Diff(b, n).json(all=True)] * 3
    assert texts[0::2] == [perfdiff.Diff(n, b).json(all=True)] * 3
