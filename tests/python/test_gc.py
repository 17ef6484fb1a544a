"""Garbage collection: a Diff stored on one of its own Profiles
(`a.d = perfdiff.Diff(a, b)`) is a reference cycle through the diff's
sides.  The types take part in Python's cycle collector, so such a cycle
is freed by gc.collect(), library memory and all.

The profiles are made from the pprof bytes of the fixture tests/data/fp.data
(four runs a side, as a robot compares several runs): no perf needed, and
fast enough to build 200 cycles in a couple of seconds, each of which kept
~0.7 MB of library memory alive while the cycle leaked."""

import gc
import os
import warnings
import weakref

import pytest

import perfdiff
from conftest import SRC, needs_pprof

CYCLES = 200
MAX_GROWTH = 50 << 20

# the runs travel as pprof bytes
pytestmark = needs_pprof


def rss():
    """Resident set size of this process, in bytes (/proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture(scope="module")
def runs():
    """Four runs of the fixture fp.data, as pprof bytes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfdiff.PerfdiffWarning)
        data = perfdiff.Profile(os.path.join(SRC, "tests/data/fp.data")).pprof()
    return [("fp%d.pb.gz" % i, data) for i in range(4)]


def cycle(runs):
    """A Diff stored on its base: base -> __dict__ -> diff -> base."""
    a = perfdiff.Profile(runs)
    b = perfdiff.Profile(runs)
    a.d = perfdiff.Diff(a, b)
    return weakref.ref(a), weakref.ref(a.d), weakref.ref(b)


def test_cycle_is_collected(runs):
    gc.collect()
    refs = cycle(runs)
    assert refs[0]() is not None, "the cycle should outlive its last name"
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


def test_diff_referrers_are_traversed(runs):
    """gc sees the diff's references to its sides (tp_traverse)."""
    a = perfdiff.Profile(runs)
    b = perfdiff.Profile(runs)
    d = perfdiff.Diff(a, b)
    assert gc.is_tracked(d) and gc.is_tracked(a)
    referents = gc.get_referents(d)
    assert any(r is a for r in referents) and any(r is b for r in referents)


@pytest.mark.skipif(bool(os.environ.get("PERFDIFF_PRELOAD")),
                    reason="a sanitizer build: ASan's quarantine keeps freed memory resident")
def test_cycles_do_not_grow_rss(runs):
    cycle(runs)  # the allocator's first arenas, before measuring
    gc.collect()
    before = rss()
    for _ in range(CYCLES):
        cycle(runs)
    gc.collect()
    growth = rss() - before
    assert growth <= MAX_GROWTH, f"{CYCLES} dropped cycles grew RSS by {growth >> 20} MB"
