"""Fixtures of the perfdiff Python module's tests: recordings made at test
time with `perf record -e cpu-clock -N -g` of tests/workloads/diff_rename.c
built twice (hash_chunk, then renamed hash_block), and the `perfdiff`
command line tool as the oracle the module must reproduce.

Recordings are made once per session: 6 short runs a side (0.3 s each),
the first two of each side for most tests, all twelve for the Dask one.
Without perf, a compiler or permission to record, the tests that need a
recording skip with the reason."""

import json
import os
import shutil
import subprocess
import tempfile

import pytest

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS_A_SIDE = 6
RUN_MS = "300"


def tool_env():
    """The environment for perf, cc, cmake and the command line tool:
    without the sanitizer runtime preloaded into Python (run.sh), which
    they carry themselves or do not want, and with the sanitizer options
    the suite was given (leak detection as asked)."""
    env = dict(os.environ)
    pre = os.environ.get("PERFDIFF_PRELOAD")
    if pre:
        rest = [p for p in env.get("LD_PRELOAD", "").split() if p != pre]
        if rest:
            env["LD_PRELOAD"] = " ".join(rest)
        else:
            env.pop("LD_PRELOAD", None)
        if os.environ.get("PERFDIFF_TOOL_ASAN_OPTIONS"):
            env["ASAN_OPTIONS"] = os.environ["PERFDIFF_TOOL_ASAN_OPTIONS"]
        else:
            env.pop("ASAN_OPTIONS", None)
    return env


# What a library built with -DPERFDIFF_PPROF=OFF says of every pprof
# input and export.
PPROF_OFF = "this perfdiff was built without pprof support (PERFDIFF_PPROF=OFF)"


def has_pprof():
    """Whether the library reads and writes pprof: a build without it
    refuses a two-byte Profile (an empty string table) in those words."""
    import perfdiff
    try:
        perfdiff.Profile([("probe.pb", b"\x32\x00")])
    except perfdiff.Error as e:
        return PPROF_OFF not in str(e)
    return True


# For the tests of pprof input and output, and those that use pprof bytes
# as their input: skipped, with the reason, in a build without pprof.
needs_pprof = pytest.mark.skipif(not has_pprof(), reason=PPROF_OFF)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, env=tool_env(), **kw)


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("PERFDIFF_CLI") or os.path.join(SRC, "build", "perfdiff")
    if not os.access(path, os.X_OK):
        pytest.skip(f"no perfdiff command at {path}")
    return path


@pytest.fixture(scope="session")
def cli_out(cli):
    """Run `perfdiff ARGS...`; its standard output as it is (CSV's CRLF
    kept), exit status 0 or 1."""
    def call(*args):
        r = run([cli] + list(args))
        assert r.returncode in (0, 1), r.stderr
        return r.stdout.decode("utf-8", "surrogateescape")
    return call


@pytest.fixture(scope="session")
def cli_json(cli_out):
    return lambda *args: json.loads(cli_out(*args, "--format=json"))


@pytest.fixture(scope="session")
def work():
    d = tempfile.mkdtemp(prefix="perfdiff-py-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _build(work, side):
    exe = os.path.join(work, side, "app")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    flags = ["-O0", "-g", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls"]
    define = ["-DPD_NEW"] if side == "new" else []
    r = run(["cc"] + flags + define + ["-o", exe, os.path.join(SRC, "tests/workloads/diff_rename.c")])
    if r.returncode:
        pytest.skip(f"cc failed: {r.stderr.decode(errors='replace')}")
    return exe


@pytest.fixture(scope="session")
def recordings(work):
    """{'base': [6 paths], 'new': [6 paths]}."""
    for tool in ("perf", "cc"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is not installed")
    probe = os.path.join(work, "probe.data")
    if run(["perf", "record", "-q", "-N", "-e", "cpu-clock", "-o", probe, "true"]).returncode:
        pytest.skip("perf record fails here (perf_event_paranoid?)")
    out = {}
    for side in ("base", "new"):
        exe = _build(work, side)
        out[side] = []
        for i in range(RUNS_A_SIDE):
            path = os.path.join(work, f"{side}{i + 1}.data")
            r = run(["perf", "record", "-q", "-N", "-e", "cpu-clock", "-g", "-o", path,
                     "--", exe, RUN_MS])
            assert r.returncode == 0, r.stderr
            out[side].append(path)
    return out


@pytest.fixture(scope="session")
def base(recordings):
    return recordings["base"][:2]


@pytest.fixture(scope="session")
def new(recordings):
    return recordings["new"][:2]


def pytest_configure(config):
    # recordings made with -N have no build-ids: every binary is used
    # unverified, a warning each; the tests that check warnings catch them
    config.addinivalue_line("filterwarnings", "ignore::perfdiff.UnverifiedWarning")
