"""examples/fleet_diff.py on a Dask LocalCluster of two worker processes,
6 recordings a side made at test time: the same rows and relations as
`perfdiff diff` on the same files (the runs travel as pprof bytes, which
keep every value; the evidence of a relation may differ, since a pprof
profile carries no symbol tables), and its text and HTML outputs."""

import json
import os
import subprocess
import sys

import pytest

from conftest import SRC


def test_fleet_diff_local_cluster(recordings, work, cli_out):
    pytest.importorskip("dask.distributed", reason="needs Dask (python3-distributed)")
    base, new = recordings["base"], recordings["new"]
    assert len(base) == len(new) == 6
    out = {k: os.path.join(work, "fleet." + k) for k in ("json", "txt", "html")}
    r = subprocess.run([sys.executable, os.path.join(SRC, "examples", "fleet_diff.py"),
                        "--workers", "2", "--all", "-q", "--json", out["json"],
                        "--text", out["txt"], "--html", out["html"],
                        "--base", *base, "--new", *new],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    got = json.load(open(out["json"]))
    want = json.loads(cli_out("diff", "--format=json", "--all", *base, "--", *new))
    assert got["base"]["files"] == base and got["new"]["files"] == new
    assert (got["event"], got["test"], got["rows_total"]) == \
        (want["event"], want["test"], want["rows_total"])

    def row(x):
        rel = x["relation"]
        return (x["metric"], x["key"], x["symbol"], x["dso"], x["base"], x["new"], x["change"],
                x["p_value"], x["q_value"], x["significant"],
                rel and (rel["kind"], rel["base_symbol"], rel["new_symbol"]))
    assert [row(x) for x in got["rows"]] == [row(x) for x in want["rows"]]

    def relation(x):
        return {k: v for k, v in x.items() if k not in ("evidence", "score")}
    assert [relation(x) for x in got["relations"]] == [relation(x) for x in want["relations"]]
    assert got["relations"][0]["kind"] == "renamed"
    text = open(out["txt"]).read()
    assert "hash_chunk -> hash_block" in text or "hash_chunk" in text and "renamed" in text
    assert open(out["html"]).read().startswith("<!DOCTYPE html>")
