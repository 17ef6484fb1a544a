# Type stub of the perfdiff module (python/perfdiff/__init__.py and the
# extension perfdiff._perfdiff); docs/python.md describes every name.
import os
from typing import Any, Iterator, NamedTuple, Optional, Sequence, Union

_Input = Union[str, os.PathLike, bytes, bytearray, memoryview, tuple[str, bytes]]
_Event = Union[None, str, int]

__version__: str
def library_version() -> str: ...

class Error(Exception):
    code: int
    code_name: str
    offset: Optional[int]
    path: Optional[str]
    message: str
class InvalidArgumentError(Error): ...
class OutOfMemoryError(Error): ...
class ReadError(Error): ...
class NotPerfDataError(Error): ...
class UnsupportedError(Error): ...
class CorruptError(Error): ...
class LimitError(Error): ...

class PerfdiffWarning(UserWarning): ...
class DataLostWarning(PerfdiffWarning): ...
class MetadataWarning(PerfdiffWarning): ...
class UnverifiedWarning(PerfdiffWarning): ...
class NotFoundWarning(PerfdiffWarning): ...
class MismatchWarning(PerfdiffWarning): ...

class Run(NamedTuple):
    path: str
    samples_read: int
    lost: int
    truncated: bool
    span: int
    perf_version: Optional[str]
    hostname: Optional[str]
    cmdline: Optional[str]

class Entry(NamedTuple):
    symbol: str
    dso: str
    kernel: bool
    inlined: bool
    unresolved: bool
    children: int
    self: int
    children_pct: float
    self_pct: float
    children_runs: tuple[int, ...]
    self_runs: tuple[int, ...]

class Chain(NamedTuple):
    path: tuple[str, ...]
    dso: str
    total: int
    self: int
    total_pct: float

class Node(NamedTuple):
    id: int
    parent: Optional[int]
    symbol: Optional[str]
    dso: Optional[str]
    unit: Optional[str]
    kernel: bool
    inlined: bool
    unresolved: bool
    depth: int
    self: int
    total: int
    self_runs: tuple[int, ...]
    total_runs: tuple[int, ...]

class Frame(NamedTuple):
    addr: int
    dso_addr: int
    symbol: Optional[str]
    raw_symbol: Optional[str]
    offset: Optional[int]
    dso: str
    inlined: bool
    srcfile: Optional[str]
    line: Optional[int]
    unit: Optional[str]

class Sample(NamedTuple):
    comm: str
    pid: int
    tid: int
    cpu: Optional[int]
    time: Optional[int]
    period: int
    event: str
    frames: tuple[Frame, ...]

class Side(NamedTuple):
    mean: float
    stddev: float
    runs: tuple[float, ...]
    present: int

class Relation(NamedTuple):
    kind: str
    base_symbol: str
    new_symbol: str
    base_symbols: tuple[str, ...]
    new_symbols: tuple[str, ...]
    base_parent: Optional[str]
    new_parent: Optional[str]
    dso: Optional[str]
    base_change: float
    new_change: float
    net: float
    score: float
    evidence: str
    significant: bool
    p_value: Optional[float]
    q_value: Optional[float]
    rows_significant: bool

class Row(NamedTuple):
    metric: str
    key: str
    symbol: str
    dso: Optional[str]
    base: Side
    new: Side
    change: float
    p_value: float
    q_value: float
    significant: bool
    relation: Optional[Relation]
    tested: bool
    process: Optional[str]

class Profile:
    def __init__(self, paths: Union[_Input, Sequence[_Input]], *, event: Optional[str] = ...,
                 inline: bool = ..., perf_compat: bool = ..., demangle: bool = ...,
                 keep_suffixes: bool = ..., hide_unresolved: bool = ..., lkp: bool = ...,
                 comm: Union[None, str, Sequence[str]] = ...,
                 pid: Union[None, int, Sequence[int]] = ...,
                 tid: Union[None, int, Sequence[int]] = ...,
                 cpu: Union[None, int, Sequence[int]] = ...,
                 dso: Union[None, str, Sequence[str]] = ...,
                 time: Optional[tuple[Optional[int], Optional[int]]] = ...,
                 kallsyms: Optional[str] = ..., symfs: Optional[str] = ...,
                 buildid_dir: Optional[str] = ..., vmlinux: Optional[str] = ...,
                 jit_dir: Optional[str] = ..., max_stack: Optional[int] = ...,
                 unwinder: Optional[str] = ..., threads: Optional[int] = ...) -> None: ...
    @property
    def events(self) -> list[str]: ...
    @property
    def event(self) -> Optional[str]: ...
    @property
    def runs(self) -> list[Run]: ...
    @property
    def warnings(self) -> list[tuple[str, str]]: ...
    @property
    def unmatched_filters(self) -> list[tuple[str, str]]: ...
    def total(self, event: _Event = ..., run: Optional[int] = ...) -> int: ...
    def sample_count(self, event: _Event = ..., run: Optional[int] = ...) -> int: ...
    def rows(self, metric: str = ..., event: _Event = ...) -> Union[list[Entry], list[Chain]]: ...
    def tree(self, event: _Event = ...) -> list[Node]: ...
    def lkp_keys(self, run: Optional[int] = ..., event: _Event = ...,
                 mean: bool = ...) -> dict[str, float]: ...
    def pprof(self, run: Optional[int] = ..., gzip: bool = ...) -> bytes: ...
    def write_pprof(self, path: Union[str, bytes, os.PathLike], run: Optional[int] = ...,
                    gzip: bool = ...) -> None: ...
    def report(self, format: str = ..., event: _Event = ..., percent_limit: float = ...,
               sort_self: bool = ..., chains: bool = ..., threshold: float = ...,
               callee: bool = ..., weight_samples: bool = ..., mean: bool = ...) -> str: ...
    def json(self, event: _Event = ..., percent_limit: float = ...) -> str: ...
    def text(self, event: _Event = ..., **options: Any) -> str: ...
    def folded(self, event: _Event = ..., samples: bool = ...) -> str: ...
    def html(self, event: _Event = ...) -> str: ...
    def to_pandas(self, metric: str = ..., event: _Event = ...) -> Any: ...

class Diff:
    def __init__(self, base: Profile, new: Profile, event: Optional[str] = ...,
                 fdr: float = ..., min_change: Optional[float] = ..., depth: int = ...,
                 tree: bool = ..., align: bool = ..., absolute: bool = ..., lkp: bool = ...,
                 rename_score: float = ..., cost_tolerance: float = ...) -> None: ...
    @property
    def rows(self) -> list[Row]: ...
    @property
    def relations(self) -> list[Relation]: ...
    @property
    def significant(self) -> list[Row]: ...
    @property
    def event(self) -> str: ...
    @property
    def test(self) -> str: ...
    @property
    def base(self) -> Profile: ...
    @property
    def new(self) -> Profile: ...
    def write(self, format: str = ..., all: bool = ..., sort: str = ...,
              percent_limit: float = ..., color: bool = ...) -> str: ...
    def json(self, all: bool = ..., **options: Any) -> str: ...
    def text(self, all: bool = ..., **options: Any) -> str: ...
    def lkp(self, all: bool = ..., **options: Any) -> str: ...
    def html(self, all: bool = ..., **options: Any) -> str: ...
    def svg(self, **options: Any) -> str: ...
    def to_pandas(self) -> Any: ...

class Samples(Iterator[Sample]):
    def __next__(self) -> Sample: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Samples": ...
    def __exit__(self, *exc: Any) -> None: ...

def samples(path: Union[str, os.PathLike], *, event: Optional[str] = ..., inline: bool = ...,
            perf_compat: bool = ..., demangle: bool = ..., srcline: bool = ...,
            kallsyms: Optional[str] = ..., symfs: Optional[str] = ...,
            buildid_dir: Optional[str] = ..., vmlinux: Optional[str] = ...,
            jit_dir: Optional[str] = ..., max_stack: Optional[int] = ...,
            unwinder: Optional[str] = ..., threads: Optional[int] = ...) -> Samples: ...
