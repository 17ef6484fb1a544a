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
below it).  HOST:PATH folds PATH on the worker(s) of that host only; a
plain path goes to any worker, so it must be readable there (a shared file
system, or a local cluster).  Workers need the perfdiff module (and
whatever the recordings' binaries, kallsyms and debug files need, as
`perfdiff report` does); the client needs only the module.

Client memory: the two profiles (their distinct stacks, with a value per
run and node) and the pprof bytes of the one run being added -- not the
recordings, and not the runs' bytes all at once: the bytes of a run stay
on its worker until the client asks for them, in order (so that runs keep
the command line's order and the diff its exact values).
"""

import argparse
import glob
import os
import sys
import warnings


def fold(path, options):
    """On a worker: one recording folded into pprof bytes, and the texts of
    the warnings reading it gave."""
    import perfdiff
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = perfdiff.Profile(path, **options).pprof()
    return data, [str(w.message) for w in caught]


def expand(args):
    """(host or None, path) for each argument, directories expanded."""
    out = []
    for a in args:
        host, sep, path = a.partition(":")
        if not sep or "/" in host:
            host, path = None, a
        if host is None and os.path.isdir(path):
            found = sorted(set(glob.glob(os.path.join(path, "**", "*.data"), recursive=True) +
                               glob.glob(os.path.join(path, "**", "perf.data"), recursive=True)))
            if not found:
                sys.exit(f"fleet_diff: no recordings in {path}")
            out += [(None, f) for f in found]
        else:
            out.append((host, path))
    return out


def submit(client, inputs, options):
    """One task per recording, on its host's workers when it names one."""
    futures = []
    for host, path in inputs:
        where = {"workers": [host], "allow_other_workers": False} if host else {}
        futures.append(client.submit(fold, path, options, pure=False, **where))
    return futures


def runs(inputs, futures, quiet):
    """(name, pprof bytes) of each run in order, each fetched when the
    profile is ready for it and then let go, on the client and the worker."""
    for (host, path), fut in zip(inputs, futures):
        data, texts = fut.result()
        fut.release()
        if not quiet:
            for t in texts:
                print(f"fleet_diff: warning: {t}", file=sys.stderr)
        yield (f"{host}:{path}" if host else path), data
        del data


def client_for(args):
    from dask.distributed import Client, LocalCluster
    if args.scheduler:
        return Client(args.scheduler), None
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster), cluster


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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


def write(path, text):
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)


def main(argv=None):
    import perfdiff
    args = parse(argv)
    # a dso's unnamed frames as one, as perfdiff diff reads its files: the
    # comparison keys them so anyway, and the workers ship less
    options = {"perf_compat": args.perf_compat, "inline": not args.no_inline,
               "merge_unresolved": True}
    sides = [expand(args.base), expand(args.new)]
    client, cluster = client_for(args)
    try:
        futures = [submit(client, inputs, options) for inputs in sides]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", perfdiff.PerfdiffWarning)  # said by the workers
            profiles = [perfdiff.Profile(runs(i, f, args.quiet), event=args.event)
                        for i, f in zip(sides, futures)]
    finally:
        client.close()
        if cluster:
            cluster.close()
    diff = perfdiff.Diff(*profiles, event=args.event)
    if args.text:
        write(args.text, diff.text(all=args.all))
    if args.json:
        write(args.json, diff.json(all=args.all))
    if args.html:
        # the flame graph colours each node by its tree row's test
        write(args.html, perfdiff.Diff(*profiles, event=args.event, tree=True).html(all=args.all))
    return 0


if __name__ == "__main__":
    sys.exit(main())
