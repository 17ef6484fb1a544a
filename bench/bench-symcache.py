#!/usr/bin/env python3
"""bench-symcache: one Profile of many small recordings against the command.

    bench/bench-symcache.py [-o OUT] [-n FILES] [-r REPEAT] BUILD_DIR

Records tests/workloads/diff_rename.c FILES times (default 60) with
`perf record -N -e cpu-clock -g`, 0.1 s each, once into OUT (default
bench/out/symcache), then times, REPEAT times each (default 5, median),
interleaved:

  * `perfdiff report` of all of them (the command: one pd_symcache for all),
    its output to /dev/null;
  * a fresh Python process building `perfdiff.Profile(files)` (the module's
    default symbol cache), timed inside from the call to its return, and
    the same process's whole wall time (interpreter start and import too);
  * the same with `symbols=False` (no cache: what the module did before);
  * a second Profile of the same files in the same process (a warm cache,
    as a Dask worker's next task finds it).

Prints a Markdown table for docs/benchmarks.md and the cache's stats.
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

CHILD = r"""
import json, sys, time, warnings
import perfdiff
warnings.simplefilter("ignore")
files, symbols = sys.argv[2:], (None if sys.argv[1] == "default" else False)
t = time.perf_counter(); perfdiff.Profile(files, symbols=symbols); first = time.perf_counter() - t
t = time.perf_counter(); perfdiff.Profile(files, symbols=symbols); again = time.perf_counter() - t
print(json.dumps({"first": first, "again": again,
                  "stats": perfdiff.default_symbol_cache().stats()}))
"""


def record(out, n):
    exe = os.path.join(out, "app")
    if not os.path.exists(exe):
        subprocess.run(["cc", "-O0", "-g", "-fno-omit-frame-pointer",
                        "-fno-optimize-sibling-calls", "-o", exe,
                        os.path.join(ROOT, "tests/workloads/diff_rename.c")], check=True)
    files = []
    for i in range(n):
        path = os.path.join(out, f"r{i:04d}.data")
        if not os.path.exists(path):
            subprocess.run(["perf", "record", "-q", "-N", "-e", "cpu-clock", "-g", "-o", path,
                            "--", exe, "100"], check=True, stderr=subprocess.DEVNULL)
        files.append(path)
    return files


def wall(args, env=None):
    t = time.perf_counter()
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                       check=True, text=True)
    return time.perf_counter() - t, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "bench", "out", "symcache"))
    ap.add_argument("-n", "--files", type=int, default=60)
    ap.add_argument("-r", "--repeat", type=int, default=5)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    for tool in ("perf", "cc"):
        if not shutil.which(tool):
            sys.exit(f"bench-symcache: {tool} is not installed")
    os.makedirs(args.out, exist_ok=True)
    files = record(args.out, args.files)
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    cli = os.path.join(build, "perfdiff")
    t = {k: [] for k in ("cli", "py", "py_proc", "py_again", "nocache", "nocache_proc")}
    stats = None
    for _ in range(args.repeat):
        t["cli"].append(wall([cli, "report", "-q", *files])[0])
        for mode, key in (("default", "py"), ("none", "nocache")):
            w, out = wall([sys.executable, "-c", CHILD, mode, *files], env)
            r = json.loads(out)
            t[key].append(r["first"])
            t[key + "_proc"].append(w)
            if mode == "default":
                t["py_again"].append(r["again"])
                stats = r["stats"]
    m = {k: statistics.median(v) for k, v in t.items()}
    print(f"{len(files)} recordings, {sum(os.path.getsize(f) for f in files) / 1e6:.1f} MB; "
          f"median of {args.repeat}\n")
    print("| what | wall | against the command |")
    print("|---|---:|---:|")
    rows = [("`perfdiff report` of all (process)", "cli"),
            ("`Profile(files)`, default cache, first in its process", "py"),
            ("the same process, start and import included", "py_proc"),
            ("a second `Profile(files)` in that process (warm cache)", "py_again"),
            ("`Profile(files, symbols=False)` (no cache)", "nocache"),
            ("the same process, start and import included", "nocache_proc")]
    for label, key in rows:
        print(f"| {label} | {m[key]:.3f} s | {m[key] / m['cli']:.2f}x |")
    print(f"\ncache after two profiles: {stats}")


if __name__ == "__main__":
    main()
