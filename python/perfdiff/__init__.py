"""perfdiff: libperfdiff for Python — read perf.data and pprof profiles, fold
them into calling-context trees, and compare two sets of runs.

    import perfdiff
    base = perfdiff.Profile(["base1.data", "base2.data"])
    new = perfdiff.Profile(["new1.data", "new2.data"])
    d = perfdiff.Diff(base, new)
    for rel in d.relations:
        print(rel.kind, rel.base_symbol, "->", rel.new_symbol, rel.net)
    print(d.text())

The extension (perfdiff._perfdiff) is a client of libperfdiff's public C
API; this file adds the conveniences written in Python.  Errors raise
subclasses of perfdiff.Error (.code, .code_name, .offset, .path, .message);
the library's warnings go through the `warnings` module as subclasses of
PerfdiffWarning, one per kind.

Threads: reading, folding, diffing and writing release the GIL, so
profiles built on several threads build at once.  Every object may be used
from several threads: each Profile, Diff and samples() iterator has a lock,
and a call waits for another thread's call on the same object to finish.
See docs/python.md.
"""

from . import _perfdiff
from ._perfdiff import (  # noqa: F401  (the module's API)
    Chain, CorruptError, DataLostWarning, Entry, Error, Frame, InvalidArgumentError,
    LimitError, MetadataWarning, MismatchWarning, Node, NotFoundWarning, NotPerfDataError,
    OutOfMemoryError, PerfdiffWarning, ReadError, Relation, Row, Run, Sample, Samples, Side,
    SymbolCache, UnsupportedError, UnverifiedWarning, default_symbol_cache, library_version,
    samples,
)

__all__ = [
    "Profile", "Diff", "samples", "library_version", "SymbolCache", "default_symbol_cache",
    "Error", "InvalidArgumentError",
    "OutOfMemoryError", "ReadError", "NotPerfDataError", "UnsupportedError",
    "CorruptError", "LimitError", "PerfdiffWarning", "DataLostWarning",
    "MetadataWarning", "UnverifiedWarning", "NotFoundWarning", "MismatchWarning",
    "Run", "Entry", "Chain", "Node", "Frame", "Sample", "Samples", "Side", "Row", "Relation",
]

__version__ = library_version()


def _pandas():
    """pandas, imported only by the methods that return a DataFrame."""
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)") from e
    return pandas


def _frame(records):
    """A pandas DataFrame of struct-sequence records, a column per field."""
    rows = [dict(zip(type(r).__match_args__, r)) for r in records]
    return _pandas().DataFrame.from_records(rows)


class Profile(_perfdiff.Profile):
    """Profile(paths, event=None, inline=True, perf_compat=False, demangle=True,
    keep_suffixes=False, hide_unresolved=False, merge_unresolved=False, lkp=False,
    comm=None, pid=None, tid=None, cpu=None, dso=None, time=None, kallsyms=None, symfs=None,
    buildid_dir=None, vmlinux=None, jit_dir=None, max_stack=None, unwinder=None,
    threads=None, symbols=None)

    One run per input.  An input is a path (str or os.PathLike) to a
    perf.data file, a `perf record --threads` directory or a pprof file
    (recognised by content), pprof bytes in memory (bytes, bytearray,
    memoryview), or a (name, pprof bytes) pair.  `paths` is one input or a
    list of them.  Paths are encoded as os.fsencode() does (a name that is
    not UTF-8 comes as os.fsdecode() gives it) and handed back decoded
    that way.  The options are the command line's (`perfdiff report`):
    `inline=False` is --no-inline, `perf_compat` names frames as perf 6.1,
    `lkp=True` builds the profile as the kernel test robot's perf report
    reads the file (what lkp_keys() needs); the filters take a value or a
    list of values, `time` a (start_ns, end_ns) pair (None: open).  `event`
    chooses the event methods use by default (else cycles, cpu-clock, ...,
    the robot's choice).  `symbols` is the SymbolCache the inputs are named
    with: None, the module's own (default_symbol_cache(): one per process,
    kept across profiles), a SymbolCache of your own, or False for none.
    Raises a perfdiff.Error on an input that cannot be read.
    """

    def rows(self, metric="children", event=None):
        """The rows of one metric: "children" (every Entry, by children
        descending, as `perfdiff report`), "self" (the Entries with self,
        by self descending), or "calltrace" (a Chain per caller path under
        every entry, callee order, as `perf report -g callee` draws them)."""
        if metric == "children":
            return self._flat(event)
        if metric == "self":
            entries = [e for e in self._flat(event) if e.self > 0]
            return sorted(entries, key=lambda e: e.self, reverse=True)
        if metric == "calltrace":
            return self._chains(event)
        raise ValueError(f"metric is children, self or calltrace, not {metric!r}")

    def json(self, event=None, percent_limit=0.0):
        """`perfdiff report --format=json` (schema perfdiff.report/1) as a str."""
        return self.report("json", event, percent_limit)

    def text(self, event=None, **options):
        """`perfdiff report`'s text (options: percent_limit, sort_self, chains,
        threshold, callee).  The threshold a chain node needs defaults to the
        percent_limit when one is given, else 0.5, as perf's."""
        return self.report("text", event, **options)

    def folded(self, event=None, samples=False):
        """Collapsed stacks, "comm;root;...;leaf WEIGHT" per line (periods, or
        sample counts with samples=True)."""
        return self.report("folded", event, weight_samples=samples)

    def html(self, event=None):
        """`perfdiff report --format=html`: one self-contained page."""
        return self.report("html", event)

    def to_pandas(self, metric="children", event=None):
        """rows(metric) as a pandas DataFrame (needs pandas)."""
        return _frame(self.rows(metric, event))


class Diff(_perfdiff.Diff):
    """Diff(base, new, event=None, fdr=0.05, min_change=None, depth=5,
    tree=False, align=True, absolute=False, lkp=False, rename_score=0.6,
    cost_tolerance=0.25)

    Two Profiles compared as `perfdiff diff` compares them: `rows` (every
    Row, significant or not, each with the Relation explaining it),
    `relations` (explained shifts: renamed, inlined, outlined, split,
    merged, moved), `significant`.  min_change None is the mode's default
    (0.1 points, 5 % with absolute).  The diff keeps both profiles.
    """

    @property
    def significant(self):
        """The significant rows."""
        return [r for r in self.rows if r.significant]

    def json(self, all=False, **options):
        """`perfdiff diff --format=json` (schema perfdiff.diff/1) as a str."""
        return self.write("json", all, **options)

    def text(self, all=False, **options):
        """`perfdiff diff`'s text: explained shifts, then the compare table."""
        return self.write("text", all, **options)

    def lkp(self, all=False, **options):
        """The kernel test robot's compare table (`--format=lkp`)."""
        return self.write("lkp", all, **options)

    def html(self, all=False, **options):
        """One self-contained HTML page with the differential flame graph
        (make the Diff with tree=True to colour its nodes by their test)."""
        return self.write("html", all, **options)

    def svg(self, **options):
        """A static differential flame graph."""
        return self.write("svg", **options)

    def to_pandas(self):
        """rows as a pandas DataFrame: the sides' mean, stddev and present
        as columns base_mean, ..., and the relation's kind (needs pandas)."""
        flat = []
        for r in self.rows:
            d = dict(zip(type(r).__match_args__, r))
            for side in ("base", "new"):
                s = d.pop(side)
                d[side + "_mean"], d[side + "_stddev"] = s.mean, s.stddev
                d[side + "_runs"], d[side + "_present"] = s.runs, s.present
            rel = d.pop("relation")
            d["relation"] = rel.kind if rel is not None else None
            flat.append(d)
        return _pandas().DataFrame.from_records(flat)
