"""perfdiff.SymbolCache and the module's default cache (docs/python.md,
include/perfdiff/symcache.h): profiles read with a cache equal those read
without one and the command's report; the second recording of a machine
finds the kernel's table and its binaries in the cache (hits grow, nothing
is read again); a budget of one byte drops every entry once no profile
uses it and changes no value; a binary rebuilt on disk under the same path
is read anew, as the command reads it."""

import json
import os
import shutil
import subprocess
import warnings

import pytest

import perfdiff
from conftest import SRC, run


def report(paths, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfdiff.PerfdiffWarning)
        return json.loads(perfdiff.Profile(paths, **kw).json())


def test_results_equal_with_and_without(base, new, cli_json):
    files = base + new
    want = cli_json("report", *files)
    cache = perfdiff.SymbolCache()
    assert report(files, symbols=False) == want
    assert report(files, symbols=cache) == want
    assert report(files) == want   # the module's own cache
    assert cache.stats()["misses"] > 0


def test_second_file_hits(recordings):
    """One recording loads the kernel's table and the binaries (misses);
    the next recording of the same programs finds them (hits grow), and
    the first read again loads nothing."""
    cache = perfdiff.SymbolCache()
    assert cache.stats()["hits"] == cache.stats()["misses"] == 0
    one, two = recordings["base"][0], recordings["base"][1]
    report(one, symbols=cache)
    first = cache.stats()
    assert first["misses"] >= 2 and first["dsos"] >= 2 and first["bytes"] > 0, first
    report(two, symbols=cache)
    second = cache.stats()
    # ld.so may have samples in one recording and not the other: a miss
    assert second["hits"] >= first["hits"] + 2, (first, second)
    assert second["misses"] <= first["misses"] + 1, (first, second)
    report(one, symbols=cache)
    third = cache.stats()
    assert third["hits"] > second["hits"] and third["misses"] == second["misses"], third
    assert third["evictions"] == 0 and third["failed"] == 0, third


def test_default_cache_is_kept():
    d = perfdiff.default_symbol_cache()
    assert d is perfdiff.default_symbol_cache()
    assert isinstance(d, perfdiff.SymbolCache)
    assert d.stats()["max_bytes"] == 256 << 20


def test_default_cache_serves_profiles(recordings):
    d = perfdiff.default_symbol_cache()
    report(recordings["new"][2])
    before = d.stats()
    report(recordings["new"][2])
    after = d.stats()
    assert after["hits"] > before["hits"] and after["misses"] == before["misses"]


def test_tiny_budget_evicts_same_results(base, new, cli_json):
    files = base + new
    want = cli_json("report", *files)
    cache = perfdiff.SymbolCache(max_bytes=1)
    assert report(files, symbols=cache) == want
    st = cache.stats()
    assert st["max_bytes"] == 1
    assert st["evictions"] >= st["misses"] - 1 > 0, st   # all gone but the last in use
    assert st["dsos"] + st["kernel_tables"] == 0 and st["bytes"] == 0, st
    # read again, from nothing, to the same values
    assert report(files, symbols=cache) == want


def test_bad_arguments():
    with pytest.raises(TypeError):
        perfdiff.Profile([], symbols="cache")
    with pytest.raises(ValueError):
        perfdiff.SymbolCache(max_bytes=-1)
    with pytest.raises(RuntimeError):
        perfdiff.SymbolCache().__init__()


def test_changed_binary_is_read_again(recordings, work, cli_json):
    """A recording without build-ids (perf record -B) names its frames from
    the binary at the recorded path.  Rebuilt there with hash_chunk renamed
    hash_block (same size, same addresses), the binary has another
    identity on disk (inode, mtime): the cache reads it again, and the
    frames are the new binary's, as the command, which reads every file
    anew, gives them -- not the old table's hash_chunk."""
    d = os.path.join(work, "rebuilt")
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, "app")
    src = os.path.join(SRC, "tests/workloads/diff_rename.c")
    flags = ["-O0", "-g", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls"]
    assert run(["cc", *flags, "-o", exe, src]).returncode == 0
    data = os.path.join(d, "run.data")
    for _ in range(3):   # a busy machine may give a recording too short
        r = run(["perf", "record", "-q", "-N", "-B", "-e", "cpu-clock", "-g", "-o", data, "--",
                 exe, "200"])
        assert r.returncode == 0, r.stderr
        if "hash_chunk" in json.dumps(report(data, symbols=False)):
            break
    cache = perfdiff.SymbolCache()
    old = report(data, symbols=cache)
    assert "hash_chunk" in json.dumps(old) and old == cli_json("report", data)
    misses = cache.stats()["misses"]
    tmp = exe + ".new"
    assert run(["cc", *flags, "-DPD_NEW", "-o", tmp, src]).returncode == 0
    os.replace(tmp, exe)
    got = report(data, symbols=cache)
    assert got == cli_json("report", data)
    assert "hash_block" in json.dumps(got) and "hash_chunk" not in json.dumps(got)
    st = cache.stats()
    assert st["misses"] > misses and st["evictions"] >= 1, st
