#!/usr/bin/env python3
"""bench-fleet: examples/fleet_diff.py end to end, against the command.

    bench/bench-fleet.py [-o OUT] [-s SIZES] [-d DISTINCT] [-r REPEAT] BUILD_DIR

Records tests/workloads/diff_rename.c (hash_chunk, then renamed hash_block)
DISTINCT times a side (default 20) with `perf record -N -e cpu-clock -g`,
0.1 s each, once into OUT (bench/out/fleet); a side of N recordings is
those files over and over.  Then, with the interpreter running this script
(its perfdiff module: BUILD_DIR/python; Dask installed), for each N of
SIZES (default 10,100) recordings a side, median of REPEAT (default 3):

  * end to end: a fresh process running fleet_diff.main() with a
    LocalCluster of 1 and of 2 worker processes (`--workers`), the JSON
    diff written; its wall time, start-up of the interpreter and of the
    cluster included, and its peak RSS (ru_maxrss of the client process:
    the workers are other processes);
  * recordings folded per second per worker: on a LocalCluster already up
    and warmed by one task, 2N fold tasks submitted at once, from the first
    submit to the last pprof gathered, divided by the workers;
  * the command: `perfdiff diff BASE... -- NEW... --format=json` in one
    process, and its peak RSS.

Prints Markdown tables for docs/benchmarks.md.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CLIENT = r"""
import resource, sys, time
t = time.perf_counter()
sys.path.insert(0, sys.argv[1])
import fleet_diff
rc = fleet_diff.main(sys.argv[3:])
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, rc)
"""


def record(out, distinct):
    """DISTINCT recordings a side, made once; {'base': [...], 'new': [...]}."""
    files = {}
    for side in ("base", "new"):
        exe = os.path.join(out, side + "-app")
        if not os.path.exists(exe):
            flags = ["-O0", "-g", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls"]
            subprocess.run(["cc", *flags, *(["-DPD_NEW"] if side == "new" else []), "-o", exe,
                            os.path.join(ROOT, "tests/workloads/diff_rename.c")], check=True)
        files[side] = []
        for i in range(distinct):
            path = os.path.join(out, f"{side}{i:03d}.data")
            if not os.path.exists(path):
                subprocess.run(["perf", "record", "-q", "-N", "-e", "cpu-clock", "-g", "-o",
                                path, "--", exe, "100"], check=True, stderr=subprocess.DEVNULL)
            files[side].append(path)
    return files


def side(files, name, n):
    return [files[name][i % len(files[name])] for i in range(n)]


def end_to_end(files, n, workers, out, env):
    """(wall s, client peak RSS MB) of fleet_diff.main() in a fresh process."""
    args = ["--workers", str(workers), "-q", "--json", os.path.join(out, "diff.json"),
            "--base", *side(files, "base", n), "--new", *side(files, "new", n)]
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", CLIENT, os.path.join(ROOT, "examples"), "-",
                        *args], capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - t
    inner, rss, rc = r.stdout.split()[-3:]
    assert rc == "0", r.stderr
    return wall, int(rss) / 1024


def command(cli, files, n):
    """(wall s, peak RSS MB) of `perfdiff diff` on the same files."""
    base, new = side(files, "base", n), side(files, "new", n)
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M", cli, "diff", "-q", "--format=json",
                        *base, "--", *new], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    wall, rss = r.stderr.split()[-2:]
    return float(wall), int(rss) / 1024


def fold_rate(files, n, workers):
    """Recordings folded per second per worker on a warmed LocalCluster."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import fleet_diff
    from dask.distributed import Client, LocalCluster
    paths = side(files, "base", n) + side(files, "new", n)
    opts = {"merge_unresolved": True}
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.gather([client.submit(fleet_diff.fold, paths[0], opts, pure=False)
                       for _ in range(workers)])   # warm each worker
        t0 = time.perf_counter()
        futures = [client.submit(fleet_diff.fold, p, opts, pure=False) for p in paths]
        for f in futures:
            assert f.result()[0]
        return len(paths) / (time.perf_counter() - t0) / workers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "bench", "out", "fleet"))
    ap.add_argument("-s", "--sizes", default="10,100")
    ap.add_argument("-d", "--distinct", type=int, default=20)
    ap.add_argument("-r", "--repeat", type=int, default=3)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    sys.path.insert(0, os.path.join(build, "python"))
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    os.environ["PYTHONPATH"] = env["PYTHONPATH"]   # the LocalCluster's workers too
    import perfdiff  # noqa: F401  (fails here, not in a worker, when not built)
    for tool in ("perf", "cc"):
        if not shutil.which(tool):
            sys.exit(f"bench-fleet: {tool} is not installed")
    os.makedirs(args.out, exist_ok=True)
    files = record(args.out, args.distinct)
    cli = os.path.join(build, "perfdiff")
    print(f"{args.distinct} distinct recordings a side (0.1 s each), median of {args.repeat}\n")
    print("| runs a side | workers | end to end (start-up included) | client peak RSS "
          "| folded per second per worker | `perfdiff diff` | its peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (int(x) for x in args.sizes.split(",")):
        cmd = [command(cli, files, n) for _ in range(args.repeat)]
        cw, cr = statistics.median(c[0] for c in cmd), statistics.median(c[1] for c in cmd)
        for w in (1, 2):
            e2e = [end_to_end(files, n, w, args.out, env) for _ in range(args.repeat)]
            wall = statistics.median(e[0] for e in e2e)
            rss = statistics.median(e[1] for e in e2e)
            rate = statistics.median(fold_rate(files, n, w) for _ in range(args.repeat))
            print(f"| {n} | {w} | {wall:.2f} s | {rss:.0f} MB | {rate:.0f} | {cw:.2f} s "
                  f"| {cr:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
