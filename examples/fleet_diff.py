#!/usr/bin/env python3
"""Compare two groups of perf recordings folded on a Dask cluster.

A test robot keeps thousands of recordings, grouped by setup, on many
machines.  This script folds each recording into a profile on a Dask
worker -- on the machine where the file is -- and sends back only the
profile, as pprof bytes (what `perfdiff report --format=pprof` writes:
named, folded, small).  The client builds each side's profile from those
bytes, one run at a time, and writes the diff as `perfdiff diff` would:
text, JSON, HTML.

    fleet_diff.py --base base/*.data --new new/*.data            # local cluster
    fleet_diff.py --workers 8 --base DIR --new DIR --json diff.json --html diff.html
    fleet_diff.py --scheduler tcp://10.0.0.1:8786 \\
                  --base host1:/srv/lkp/a/perf.data host2:/srv/lkp/b/perf.data --new ...

A directory stands for the recordings in it (every *.data and perf.data
below it).  Without --scheduler every argument is a local path (the local
cluster's workers read this machine's files), colons and all: `x:1.data`
is the file x:1.data, and a missing file is an error before any work.
With --scheduler, an argument that names a file or directory here is
that path; otherwise HOST:PATH (HOST without a '/') folds PATH on the
workers of HOST only (a worker's host address, its name, or a host name
resolving to that address), and a HOST with no worker is an error; any
other argument goes to any worker, so it must be readable there (a
shared file system).  Workers need the perfdiff module (and whatever the
recordings' binaries, kallsyms and debug files need, as `perfdiff
report` does); the client needs only the module.

A recording that cannot be read (missing, unreadable, not perf.data nor
pprof) ends the script with one line naming it, "fleet_diff: NAME: why",
and exit status 2, as `perfdiff diff` does; so does one whose task the
cluster lost for good (its worker died more often than Dask retries).

Workers name frames with the perfdiff module's symbol cache, one per
worker process, kept from task to task: the kernel's table and each
binary's symbols and DWARF are read once per worker, not once per
recording (docs/python.md).

Client memory: the two profiles (their distinct stacks, with a value per
run and node) and the pprof bytes of the one run being added -- not the
recordings, and not the runs' bytes all at once: the bytes of a run stay
on its worker until the client asks for them, in order (so that runs keep
the command line's order and the diff its exact values).
"""

import argparse
import glob
import os
import socket
import sys
import warnings
from typing import TYPE_CHECKING, Any, Iterator, Optional

if TYPE_CHECKING:  # imported where used, so that a worker imports it there
    import perfdiff

# (name, host or None, its workers' addresses or None, path): one recording
Input = tuple[str, Optional[str], Optional[list[str]], str]
# what fold() sends back: (pprof bytes or None, warnings' texts, error or None)
Folded = tuple[Optional[bytes], list[str], Optional[str]]
# Dask's Client and futures, which Dask does not annotate
Client = Any


class Unreadable(Exception):
    """A recording that cannot be read: its name and why, in one line."""


def fold(path: str, options: dict[str, Any]) -> Folded:
    """On a worker: one recording folded into pprof bytes, and the texts of
    the warnings reading it gave; (None, texts, the error's message) when
    it cannot be read, so that the client says so in one line.  Named with
    the module's symbol cache, which the worker process keeps from one task
    to the next."""
    import perfdiff
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            data, err = perfdiff.Profile(path, **options).pprof(), None
        except perfdiff.Error as e:
            data, err = None, e.message
    return data, [str(w.message) for w in caught], err


def recordings_in(path: str) -> list[str]:
    found = sorted(set(glob.glob(os.path.join(path, "**", "*.data"), recursive=True) +
                       glob.glob(os.path.join(path, "**", "perf.data"), recursive=True)))
    if not found:
        raise Unreadable(f"{path}: no recordings in this directory")
    return found


def worker_hosts(client: Client) -> dict[str, list[str]]:
    """{host, name or address: [worker addresses]} of the cluster."""
    hosts: dict[str, list[str]] = {}
    for addr, w in client.scheduler_info()["workers"].items():
        for key in (w.get("host"), str(w.get("name")), addr):
            if key:
                hosts.setdefault(key, []).append(addr)
    return hosts


def host_workers(host: str, hosts: dict[str, list[str]], arg: str) -> list[str]:
    """The addresses of HOST's workers; Unreadable when it has none."""
    if host in hosts:
        return hosts[host]
    try:
        ip = socket.gethostbyname(host)
    except OSError:
        ip = None
    if ip in hosts:
        return hosts[ip]
    known = sorted(h for h in hosts if "://" not in h)
    raise Unreadable(f"{arg}: no worker runs on host {host!r} (workers' hosts: "
                     f"{', '.join(known) or 'none'}); a local path needs no host")


def expand(args: list[str], hosts: Optional[dict[str, list[str]]]) -> list[Input]:
    """(name, host or None, its workers' addresses or None, path) for each
    argument, by the rule of the module's documentation; `hosts` is None
    without --scheduler (every argument local).  A local path goes to the
    workers absolute: theirs may be another working directory."""
    out: list[Input] = []
    for a in args:
        host, sep, path = a.partition(":")
        local = hosts is None or os.path.exists(a) or not sep or not host or "/" in host
        if local and os.path.isdir(a):
            out += [(f, None, None, os.path.abspath(f)) for f in recordings_in(a)]
        elif local and hosts is None and not os.path.exists(a):
            raise Unreadable(f"{a}: no such file or directory")
        elif local:
            out.append((a, None, None, os.path.abspath(a)))
        else:
            assert hosts is not None  # not local: there is a scheduler
            out.append((a, host, host_workers(host, hosts, a), path))
    return out


def submit(client: Client, inputs: list[Input], options: dict[str, Any]) -> list[Any]:
    """One task per recording, on its host's workers when it names one."""
    futures = []
    for _, _, where, path in inputs:
        pin = {"workers": where, "allow_other_workers": False} if where else {}
        futures.append(client.submit(fold, path, options, pure=False, **pin))
    return futures


def fetch(name: str, fut: Any) -> Folded:
    """The Folded of one task.  Dask runs a task again when its worker dies
    (up to distributed.scheduler.allowed-failures times) and recomputes a
    result lost with one; past that, or on any other failure of the
    cluster, the recording is lost: one line naming it, never a side
    without it."""
    try:
        result: Folded = fut.result()
    except Exception as e:  # KilledWorker, CommClosedError, a worker's crash
        why = (str(e).strip().splitlines() or [""])[0]
        raise Unreadable(f"{name}: lost on the cluster: {type(e).__name__}"
                         f"{': ' + why if why else ''}") from None
    return result


def runs(inputs: list[Input], futures: list[Any], quiet: bool) -> Iterator[tuple[str, bytes]]:
    """(name, pprof bytes) of each run in order, each fetched when the
    profile is ready for it and then let go, on the client and the worker."""
    for (name, host, _, path), fut in zip(inputs, futures):
        data, texts, err = fetch(name, fut)
        fut.release()
        if not quiet:
            for t in texts:
                print(f"fleet_diff: warning: {t}", file=sys.stderr)
        if err is not None:   # the library's message starts with the path
            raise Unreadable(f"{name}{err[len(path):]}" if err.startswith(path) else
                             f"{name}: {err}")
        assert data is not None  # fold() gives bytes or an error
        yield name, data
        del data


def client_for(args: argparse.Namespace) -> tuple[Client, Any]:
    from dask.distributed import Client, LocalCluster
    # Dask does not annotate these: what they return is Any
    if args.scheduler:
        return Client(args.scheduler), None  # type: ignore[no-untyped-call]
    cluster = LocalCluster(n_workers=args.workers,  # type: ignore[no-untyped-call]
                           threads_per_worker=1, processes=True, dashboard_address=None)
    return Client(cluster), cluster  # type: ignore[no-untyped-call]


def parse(argv: Optional[list[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--base", nargs="+", required=True, help="recordings of the base setup")
    ap.add_argument("--new", nargs="+", required=True, help="recordings of the new setup")
    ap.add_argument("--scheduler", help="address of a Dask scheduler (else a local cluster)")
    ap.add_argument("--workers", type=int, default=2, help="local cluster's workers (2)")
    ap.add_argument("--text", help="the text diff to this file ('-': standard output)")
    ap.add_argument("--json", help="the JSON diff (perfdiff.diff/1) to this file")
    ap.add_argument("--html", help="the HTML page with its flame graph to this file")
    ap.add_argument("--all", action="store_true", help="every row, not the significant ones")
    ap.add_argument("--event", help="the event to compare (default: the robot's choice)")
    ap.add_argument("--perf-compat", action="store_true", help="name frames as perf 6.1")
    ap.add_argument("--no-inline", action="store_true", help="no inline frames")
    ap.add_argument("-q", "--quiet", action="store_true", help="no warnings")
    args = ap.parse_args(argv)
    if not (args.text or args.json or args.html):
        args.text = "-"
    return args


def write(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)


def diff_sides(args: argparse.Namespace, client: Client,
               options: dict[str, Any]) -> list["perfdiff.Profile"]:
    import perfdiff
    hosts = worker_hosts(client) if args.scheduler else None
    sides = [expand(args.base, hosts), expand(args.new, hosts)]
    futures = [submit(client, inputs, options) for inputs in sides]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfdiff.PerfdiffWarning)  # said by the workers
        return [perfdiff.Profile(runs(i, f, args.quiet), event=args.event)
                for i, f in zip(sides, futures)]


def main(argv: Optional[list[str]] = None) -> int:
    import perfdiff
    args = parse(argv)
    # a dso's unnamed frames as one, as perfdiff diff reads its files: the
    # comparison keys them so anyway, and the workers ship less
    options = {"perf_compat": args.perf_compat, "inline": not args.no_inline,
               "merge_unresolved": True}
    try:
        if not args.scheduler:   # local paths: say what is missing before starting workers
            expand(args.base, None), expand(args.new, None)
        client, cluster = client_for(args)
        try:
            profiles = diff_sides(args, client, options)
        finally:
            client.close()
            if cluster:
                cluster.close()
    except (Unreadable, perfdiff.Error) as e:
        print(f"fleet_diff: {e}", file=sys.stderr)
        return 2
    base, new = profiles
    diff = perfdiff.Diff(base, new, event=args.event)
    if args.text:
        write(args.text, diff.text(all=args.all))
    if args.json:
        write(args.json, diff.json(all=args.all))
    if args.html:
        # the flame graph colours each node by its tree row's test
        write(args.html, perfdiff.Diff(base, new, event=args.event, tree=True).html(all=args.all))
    return 0


if __name__ == "__main__":
    sys.exit(main())
