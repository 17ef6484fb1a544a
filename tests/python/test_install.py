"""The module after `cmake --install` into a prefix, with that prefix's
site directory on PYTHONPATH: it imports, and its extension loads the
prefix's libperfdiff (by its relative RPATH), not the build tree's."""

import glob
import os
import shutil
import subprocess
import sys

import pytest

import perfdiff
from conftest import tool_env


def test_installed_module(work, base):
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(perfdiff.__file__))))
    if not os.path.exists(os.path.join(build, "cmake_install.cmake")):
        pytest.skip(f"{build} is not a CMake build tree")
    prefix = os.path.join(work, "prefix")
    r = subprocess.run(["cmake", "--install", build, "--prefix", prefix],
                       capture_output=True, text=True, env=tool_env(), timeout=300)
    assert r.returncode == 0, r.stderr
    pkgs = glob.glob(os.path.join(prefix, "lib*", "**", "site-packages", "perfdiff"),
                     recursive=True)
    assert len(pkgs) == 1, pkgs
    site = os.path.dirname(pkgs[0])
    assert {"__init__.py", "__init__.pyi", "py.typed"} <= set(os.listdir(pkgs[0]))
    env = dict(os.environ, PYTHONPATH=site)
    env.pop("LD_LIBRARY_PATH", None)
    code = ("import perfdiff, sys\n"
            "p = perfdiff.Profile(sys.argv[1])\n"
            "libs = [l.split()[-1] for l in open('/proc/self/maps') if 'libperfdiff.so' in l]\n"
            "print(perfdiff.__file__); print(sorted(set(libs))[0]); print(p.total())\n")
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code, base[0]], env=env, timeout=120,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    mod, lib, total = r.stdout.split()
    assert mod.startswith(prefix) and os.path.realpath(lib).startswith(os.path.realpath(prefix))
    assert int(total) == perfdiff.Profile(base[0]).total()
    shutil.rmtree(prefix)
