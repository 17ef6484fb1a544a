#!/usr/bin/env python3
"""bench-fleet: examples/fleet_diff.py's throughput and client memory.

    bench/bench-fleet.py [-o OUT] [-n TASKS] BUILD_DIR

Records tests/workloads/diff_rename.c (hash_chunk, then renamed hash_block)
4 times a side with `perf record -N -e cpu-clock -g`, 0.3 s each, once into
OUT (bench/out/fleet), and then measures, with the interpreter running
this script (its perfdiff module: BUILD_DIR/python; Dask installed):

  * recordings folded per second on a LocalCluster of 1 and of 2 worker
    processes: TASKS recordings (default 40, the 8 files over and over)
    submitted at once, from the first submit to the last pprof gathered,
    cluster start-up left out;
  * the client's peak RSS running fleet_diff.main() with 1, 10 and 100
    runs a side (2 workers), each in a fresh process, its own
    ru_maxrss (the workers are other processes).

Prints a Markdown table for docs/benchmarks.md.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record(out):
    """4 recordings a side, made once; {'base': [...], 'new': [...]}."""
    files = {}
    for side in ("base", "new"):
        exe = os.path.join(out, side + "-app")
        if not os.path.exists(exe):
            flags = ["-O0", "-g", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls"]
            subprocess.run(["cc", *flags, *(["-DPD_NEW"] if side == "new" else []), "-o", exe,
                            os.path.join(ROOT, "tests/workloads/diff_rename.c")], check=True)
        files[side] = []
        for i in range(4):
            path = os.path.join(out, f"{side}{i}.data")
            if not os.path.exists(path):
                subprocess.run(["perf", "record", "-q", "-N", "-e", "cpu-clock", "-g", "-o",
                                path, "--", exe, "300"], check=True, stderr=subprocess.DEVNULL)
            files[side].append(path)
    return files


def throughput(files, workers, tasks):
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import fleet_diff
    from dask.distributed import Client, LocalCluster
    paths = (files["base"] + files["new"]) * (tasks // 8 + 1)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.submit(fleet_diff.fold, paths[0], {}, pure=False).result()  # warm the workers
        t0 = time.perf_counter()
        futures = [client.submit(fleet_diff.fold, p, {}, pure=False) for p in paths[:tasks]]
        size = sum(len(f.result()[0]) for f in futures)
        return tasks / (time.perf_counter() - t0), size / tasks


def client_rss(files, runs, out):
    """Peak RSS (MB) of a process running fleet_diff.main() on `runs` a side."""
    args = []
    for side in ("base", "new"):
        args += ["--" + side] + [files[side][i % 4] for i in range(runs)]
    code = ("import resource, sys; sys.path.insert(0, sys.argv[1]); import fleet_diff\n"
            "fleet_diff.main(sys.argv[3:] + ['-q', '--json', sys.argv[2]])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    r = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "examples"),
                        os.path.join(out, "diff.json"), *args],
                       capture_output=True, text=True, check=True)
    return int(r.stdout.split()[-1]) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "bench", "out", "fleet"))
    ap.add_argument("-n", "--tasks", type=int, default=40)
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.build), "python"))
    os.environ["PYTHONPATH"] = os.path.join(os.path.abspath(args.build), "python")
    import perfdiff  # noqa: F401  (fails here, not in a worker, when not built)
    for tool in ("perf", "cc"):
        if not shutil.which(tool):
            sys.exit(f"bench-fleet: {tool} is not installed")
    os.makedirs(args.out, exist_ok=True)
    files = record(args.out)
    print("| local workers | recordings folded per second | pprof bytes per recording |")
    print("|---|---|---|")
    for w in (1, 2):
        rate, size = throughput(files, w, args.tasks)
        print(f"| {w} | {rate:.1f} | {size / 1024:.1f} KB |")
    print()
    print("| runs a side | client peak RSS |")
    print("|---|---|")
    for runs in (1, 10, 100):
        print(f"| {runs} | {client_rss(files, runs, args.out):.0f} MB |")
    print(f"\n(max RSS of this process: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
