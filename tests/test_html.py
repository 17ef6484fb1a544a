#!/usr/bin/env python3
"""test_html: the HTML and SVG flame graphs, opened in headless Chromium.

Records tests/workloads/diff_rename.c built twice (hash_chunk renamed
hash_block in the second build, two runs a side, as test_diff_cli does),
writes `perfdiff diff --format=html`, `--format=svg` and `perfdiff report
--format=html`, and opens each page in Debian's chromium with a dead proxy:

  * no console error, nothing in the page's #pd-errors, the page drawn
    (<body data-ready>), no resource asked of the network (no http(s) or
    protocol-relative src/href, a Content-Security-Policy, and Chromium
    refused nothing);
  * the renamed function is ONE box carrying both names, as wide against
    the root as the larger of its two shares in `--format=json --tree`
    (an independent output of the same diff), and no box of the new name
    alone;
  * a search (driven through the URL's #search=) marks that box and
    reports the share the JSON gives; on the report page the share of
    hash_chunk is its children share in `report --format=json`, and the
    event is named once in the page's data (no object holds a key twice)
    and shown by name on its button and heading;
  * the SVG draws the renamed node once, as wide as its max(base, new)
    layout computed from the JSON's tree rows alone;
  * the who-calls view (#view=callee&callee=mix_step) roots mix_step,
    summed over its places, at its children share in the JSON, and merges
    its callers: the renamed caller is one box carrying both names, as
    wide as the new tree rows through it say;
  * html and svg imply --tree: without the option, the renamed node
    carries its tree row's q-value, the SVG's boxes name a q-value, and
    the page's table (#metric=tree), which builds the tree rows from the
    aligned tree's columns, has as many as `--format=json --tree` shows,
    with the same new means (the JSON without --tree has no tree row, so
    the option is not the default).

Screenshots go into the test's temporary directory (printed).  Exit 77
(CTest's skip) without chromium, perf, a compiler or perf permission.
Usage: test_html.py PERFDIFF WORKLOAD.c
"""
import html.parser
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SKIP = 77


def skip(why):
    print("test_html: skipped: " + why)
    sys.exit(SKIP)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def record_pair(work, workload):
    """The two builds, two runs each: {"old": [..], "new": [..]}."""
    flags = ["-O0", "-g", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls"]
    args = ["-q", "-N", "-e", "cpu-clock", "-g", "-F", "4000"]
    if run(["perf", "record"] + args + ["-o", work + "/probe.data", "true"]).returncode:
        args = args[:-2]
    runs = {}
    for side in ("old", "new"):
        os.makedirs(f"{work}/{side}")
        extra = ["-DPD_NEW"] if side == "new" else []
        if run(["cc"] + flags + extra + ["-o", f"{work}/{side}/app", workload]).returncode:
            skip("cannot build " + workload)
        runs[side] = []
        for r in (1, 2):
            out = f"{work}/{side}{r}.data"
            if run(["perf", "record"] + args + ["-o", out, f"{work}/{side}/app", "300"]).returncode:
                skip("perf record failed (perf_event_paranoid?)")
            runs[side].append(out)
    return runs


class Boxes(html.parser.HTMLParser):
    """The flame graph's boxes, the page's error box, match and ready state."""

    def __init__(self):
        super().__init__()
        self.boxes, self.match, self.ready, self.errors = [], None, None, ""
        self.callee, self.note, self.cells, self.in_td = None, None, [], False
        self.in_errors = False
        self.tabs, self.in_tabs, self.in_tab = [], False, False
        self.summary, self.in_summary = None, False
        self.largest, self.in_largest = None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.ready = a.get("data-ready")
        if a.get("id") == "pd-errors":
            self.in_errors = True
        if a.get("id") == "pd-match":
            self.match = a
        if a.get("id") == "pd-callee":
            self.callee = a
        if a.get("id") == "pd-note":
            self.note = a
        if a.get("id") == "pd-largest":
            self.in_largest, self.largest = True, ""
        if "pd-tabs" in cls:
            self.in_tabs = True
        if tag == "button" and self.in_tabs:
            self.in_tab = True
            self.tabs.append("")
        if a.get("id") == "pd-summary":
            self.in_summary = True
            self.summary = ""
        if tag == "tr":
            self.cells.append([])
        if tag == "td" and self.cells:
            self.in_td = True
            self.cells[-1].append("")
        if "pd-fr" in cls and "data-i" in a:
            w = re.search(r"width:\s*([\d.]+)px", a.get("style", ""))
            self.boxes.append(dict(a, cls=cls, width=float(w.group(1)) if w else 0.0))

    def handle_endtag(self, tag):
        if tag == "div":
            self.in_errors = self.in_tabs = False
        if tag == "button":
            self.in_tab = False
        if tag == "p":
            self.in_summary = self.in_largest = False
        if tag == "td":
            self.in_td = False

    def handle_data(self, data):
        if self.in_errors:
            self.errors += data
        if self.in_tab:
            self.tabs[-1] += data
        if self.in_summary:
            self.summary += data
        if self.in_largest:
            self.largest += data
        if self.in_td:
            self.cells[-1][-1] += data


def chromium(browser, url, extra, work):
    """Chromium's output for `url` with a dead proxy: (stdout, stderr)."""
    cmd = [browser, "--headless=new", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
           "--window-size=1400,1200", "--proxy-server=http://127.0.0.1:9",
           "--enable-logging=stderr", "--v=0", "--user-data-dir=" + work + "/profile"] + extra + [url]
    p = run(cmd, timeout=120, cwd=work)
    return p.stdout, p.stderr


def check_console(err, what):
    bad = [l for l in err.splitlines()
           if "CONSOLE" in l and re.search(r"Uncaught|Error|Refused", l)
           or "Refused to" in l or "ERR_PROXY" in l or "net::ERR" in l]
    assert not bad, f"{what}: console errors or network requests:\n" + "\n".join(bad)


def open_page(browser, path, frag, work, shot):
    out, err = chromium(browser, "file://" + path + frag, ["--dump-dom"], work)
    check_console(err, path)
    chromium(browser, "file://" + path + frag, ["--screenshot=" + shot], work)
    b = Boxes()
    b.feed(out)
    assert not b.errors.strip(), f"{path}: the page reports: {b.errors}"
    assert b.ready is not None, f"{path}: never drawn (no data-ready)"
    assert b.boxes, f"{path}: no flame graph box"
    return b


def check_offline(path):
    text = open(path, encoding="utf-8").read()
    refs = re.findall(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", text, re.I)
    assert not refs, f"{path}: loads from the network: {refs}"
    if path.endswith(".html"):
        assert "Content-Security-Policy" in text and "default-src 'none'" in text, path


def tree_share(diffjson, name):
    """max(base, new) mean of the heaviest tree row ending in `name`."""
    rows = [r for r in diffjson["rows"] if r["metric"] == "tree" and r["key"].split(";")[-1] == name]
    assert rows, "no tree row of " + name
    r = max(rows, key=lambda r: max(r["base"]["mean"], r["new"]["mean"]))
    return max(r["base"]["mean"], r["new"]["mean"]), r


def check_diff_page(b, diffjson):
    root = [x for x in b.boxes if x["data-i"] == "0"][0]
    pair = [x for x in b.boxes if x.get("data-base") == "hash_chunk" and x.get("data-new") == "hash_block"]
    assert len(pair) == 1, f"the renamed function in {len(pair)} boxes"
    # one side's name alone may stand for a stray sample under another
    # caller (an interrupt's path), never for the function's cost
    for x in b.boxes:
        one = x.get("data-base"), x.get("data-new")
        if one in (("hash_chunk", None), (None, "hash_block")):
            assert x["width"] < 0.05 * root["width"], "a large box of one name alone: " + str(x)
    # width=new: a box is its new share of the root exactly (max(base, new)
    # squeezes children whose maxima add up to more than their caller's)
    _, row = tree_share(diffjson, "hash_block")
    share = row["new"]["mean"]  # points of the new side's total: the root is 100
    got = (pair[0]["width"] + 1) / (root["width"] + 1)  # boxes leave a 1 px gap
    assert abs(got - share / 100) < 1.5 / root["width"], \
        f"renamed box {got:.4f} of the root, JSON {share:.2f} %"
    assert "pd-hit" in pair[0]["cls"], "the search did not mark the renamed box"
    assert b.match and int(b.match["data-count"]) >= 1, "the search found nothing"
    assert float(b.match["data-new"]) >= row["new"]["mean"] - 0.01, b.match
    print(f"diff page: {len(b.boxes)} boxes; hash_chunk → hash_block one box, "
          f"{100 * got:.2f} % of the root by new (JSON {share:.2f} %); search: {b.match['data-new']} %",
          flush=True)


def strict_pairs(pairs):
    """json.loads hook: an object with a key twice is an error, not the
    last value silently winning (as in every browser's JSON.parse)."""
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    assert not dup, f"an object with the key(s) {dup} twice"
    return dict(pairs)


def check_report_page(b, reportjson, path):
    """The page's own data names the event once, and the page shows that
    name on its button and heading (not a column of numbers)."""
    doc = page_json(path, "pd-report")
    names = [e["name"] for e in doc["events"]]
    want = [e["name"] for e in reportjson["events"]]
    assert names == want, f"report page: events named {str(names)[:80]}, want {want}"
    assert b.tabs == names, f"report: event buttons {b.tabs}, want {names}"
    assert b.summary and b.summary.startswith(names[0] + ": "), f"report: heading {b.summary!r}"
    ev = [e for e in reportjson["events"] if e["default"]][0]
    child = [e for e in ev["entries"] if e["symbol"] == "hash_chunk"][0]["children_pct"]
    boxes = [x for x in b.boxes if x.get("data-base") == "hash_chunk"]
    assert boxes and all("pd-hit" in x["cls"] for x in boxes), "report: hash_chunk not marked"
    assert abs(float(b.match["data-share"]) - child) < 0.01, (b.match, child)
    print(f"report page: {len(b.boxes)} boxes; search share {b.match['data-share']} % "
          f"(JSON children {child:.2f} %)")


def squeezed_share(diffjson, key):
    """The width (points of the root) the SVG's max(base, new) layout gives
    the tree row `key`, from the JSON's tree rows alone: each box is its
    max share, scaled as its caller's box is, and children whose maxima add
    up to more than their caller's are squeezed into it."""
    size = {}
    for r in diffjson["rows"]:
        if r["metric"] == "tree":
            size[r["key"]] = size.get(r["key"], 0) + max(r["base"]["mean"], r["new"]["mean"])
    frames, scale, parent, room = key.split(";"), 1.0, None, 100.0
    for k in range(len(frames)):
        path = ";".join(frames[:k + 1])
        prefix = "" if parent is None else parent + ";"
        kids = sum(v for p, v in size.items() if p.startswith(prefix) and ";" not in p[len(prefix):])
        scale *= room / max(room, kids)
        parent, room = path, size[path]
    return size[key] * scale


def check_callee_page(b, diffjson):
    """#view=callee&callee=mix_step&width=new: the root is mix_step summed
    over its outermost places (its children row), its callers merged."""
    child = [r for r in diffjson["rows"] if r["metric"] == "children" and r["key"] == "mix_step"]
    assert len(child) == 1, child
    who = b.callee
    assert who and who.get("data-name") == "mix_step", who
    for side in ("base", "new"):
        assert abs(float(who["data-" + side]) - child[0][side]["mean"]) < 0.01, (who, child[0])
    root = [x for x in b.boxes if x["data-i"] == "0"]
    assert root and root[0].get("data-base") == "mix_step", root
    pair = [x for x in b.boxes if x.get("data-base") == "hash_chunk" and x.get("data-new") == "hash_block"]
    assert len(pair) == 1, f"the renamed caller in {len(pair)} boxes"
    # the new side's cost of mix_step called by hash_block: its tree rows
    via = sum(r["new"]["mean"] for r in diffjson["rows"]
              if r["metric"] == "tree" and r["key"].endswith(";hash_block;mix_step"))
    want = via / child[0]["new"]["mean"]
    got = (pair[0]["width"] + 1) / (root[0]["width"] + 1)
    assert abs(got - want) < 1.5 / root[0]["width"], f"caller box {got:.4f} of the root, rows {want:.4f}"
    print(f"callee view: mix_step base {who['data-base']} new {who['data-new']} "
          f"(JSON children {child[0]['base']['mean']:.2f}, {child[0]['new']['mean']:.2f}); "
          f"hash_chunk → hash_block one caller box, {100 * got:.2f} % (tree rows {100 * want:.2f} %)")


def page_json(path, elem, strict=True):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script[^>]*id="' + elem + r'"[^>]*>(.*?)</script>', text, re.S)
    assert m, f"{path}: no {elem}"
    return json.loads(m.group(1), object_pairs_hook=strict_pairs if strict else None)


def check_implied_tree(work, diffjson, plainjson, treejson, b):
    """html and svg were written without --tree: their data has the tree
    rows' tests all the same.  The page's document leaves the tree rows to
    #pd-flame; its table (#metric=tree, page `b`) builds them from there:
    as many as --format=json --tree shows, with the same new means."""
    assert not [r for r in plainjson["rows"] if r["metric"] == "tree"], "tree rows without --tree"
    doc = page_json(f"{work}/diff.html", "pd-diff")
    assert doc["options"]["tree"] is True, doc["options"]
    fl = page_json(f"{work}/diff.html", "pd-flame")
    names = fl["names"]
    pair = [i for i in range(len(fl["parent"]))
            if fl["bname"][i] >= 0 and fl["nname"][i] >= 0 and names[fl["bname"][i]] == "hash_chunk"
            and names[fl["nname"][i]] == "hash_block"]
    assert pair, "no renamed node in the page's tree"
    i = max(pair, key=lambda k: fl["n"][k])
    _, row = tree_share(diffjson, "hash_block")
    assert fl["sig"][i] in (0, 1) and fl["q"][i] is not None, (fl["sig"][i], fl["q"][i])
    assert math.isclose(fl["q"][i], row["q_value"], rel_tol=1e-3, abs_tol=1e-12), (fl["q"][i], row)
    titles = [t.text for t in ET.parse(f"{work}/diff.svg").getroot().iter("{http://www.w3.org/2000/svg}title")
              if t.text and t.text.startswith("hash_chunk \u2192 hash_block\n")]
    assert titles and re.search(r", q [0-9]", titles[0]), f"the SVG's renamed box names no q-value: {titles}"
    want = [r for r in treejson["rows"] if r["metric"] == "tree"]
    assert want, "--format=json --tree shows no tree row"
    assert b.note and int(b.note["data-count"]) == len(want), (b.note, len(want))
    # the page's values have 5 significant digits, the table shows 2 decimals:
    # rounded twice, a value can be off by half a unit of each (30.8455 is
    # kept as 30.845, which shows as 30.84)
    got = sorted(float(c[3].split()[0]) for c in b.cells if len(c) == 6 and c[0] == "tree")
    means = sorted(r["new"]["mean"] for r in want)

    def shown_within(g, m):
        fifth = 0.5 * 10 ** (math.floor(math.log10(abs(m))) - 4) if m else 0
        return abs(g - m) <= 0.005 + fifth + 1e-9
    assert len(got) == len(means) and all(shown_within(g, m) for g, m in zip(got, means)), (got, means)
    print(f"html and svg imply --tree: the renamed node's q {fl['q'][i]} (JSON --tree {row['q_value']:.4g}); "
          f"the table's {len(want)} tree rows as --format=json --tree shows them")


def check_svg(path, diffjson, runs):
    ns = {"s": "http://www.w3.org/2000/svg"}
    tree = ET.parse(path)
    width = float(tree.getroot().get("width"))
    # the title line names every run of each side, in order
    title = tree.getroot().find("s:text", ns).text
    names = [" \u2192 ".join("2 runs: " + ", ".join(os.path.basename(p) for p in runs[s])
                              for s in ("old", "new"))]
    assert title.startswith(names[0] + " ("), f"the SVG's title: {title!r}, want {names[0]!r}"
    pairs = []
    for g in tree.getroot().iter("{http://www.w3.org/2000/svg}g"):
        t = g.find("s:title", ns)
        if t is not None and t.text.startswith("hash_chunk \u2192 hash_block\n"):
            pairs.append(float(g.find("s:rect", ns).get("width")))
        if t is not None and t.text.startswith("hash_block\n"):
            assert float(g.find("s:rect", ns).get("width")) < 0.05 * width, "an SVG box of hash_block alone"
    assert len(pairs) == 1, f"the renamed function in {len(pairs)} SVG boxes"
    share = squeezed_share(diffjson, tree_share(diffjson, "hash_block")[1]["key"])
    assert abs(pairs[0] / width - share / 100) < 0.002, (pairs[0] / width, share)
    print(f"svg: one box hash_chunk → hash_block, {100 * pairs[0] / width:.2f} % wide")


def page_title(path):
    return re.search(r"<title>([^<]*)</title>", open(path, encoding="utf-8").read()).group(1)


def check_quiet_page(b, alljson):
    """Nothing significant (two fixtures of one workload): the page says
    so and lists the largest changes, each marked n.s., as many and in the
    order that the rows of --format=json --all give by |change| (flat
    rows, changes that show at 0.1 points, the first 10)."""
    rows = [r for r in alljson["rows"] if r["metric"] not in ("shift", "tree")
            and abs(r["change"]) >= 0.05]
    assert rows and not any(r["significant"] for r in alljson["rows"]), "a significant row"
    want = sorted(rows, key=lambda r: -abs(r["change"]))[:10]
    assert b.largest is not None and f"the {len(want)} largest changes" in b.largest, b.largest
    got = [c for c in b.cells if len(c) == 6 and c[0] in ("calltrace", "children", "self")]
    assert [(c[0], c[5].strip()) for c in got] == [(r["metric"], r["key"]) for r in want], \
        (got, [(r["metric"], r["key"]) for r in want])
    assert all(c[4].endswith("(n.s.)") for c in got), got
    assert all(abs(float(c[2].replace("\u2212", "-")) - r["change"]) < 0.006
               for c, r in zip(got, want)), (got, want)
    print(f"quiet page: the {len(got)} largest changes, n.s., as --format=json --all orders them")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: test_html.py PERFDIFF WORKLOAD.c")
    perfdiff, workload = sys.argv[1:]
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        skip("no chromium (apt-get install chromium)")
    for tool in ("perf", "cc"):
        if not shutil.which(tool):
            skip("no " + tool)
    work = tempfile.mkdtemp(prefix="pd-html-")
    print("test_html: files and screenshots in " + work)
    runs = record_pair(work, workload)
    sides = runs["old"] + ["--"] + runs["new"]
    for fmt, out in (("html", "diff.html"), ("svg", "diff.svg")):
        p = run([perfdiff, "diff", "-q", "--format=" + fmt, "-o", f"{work}/{out}"] + sides)
        assert p.returncode == 0, p.stderr
    p = run([perfdiff, "report", "-q", "--format=html", "-o", f"{work}/report.html", runs["old"][0]])
    assert p.returncode == 0, p.stderr
    diffjson = json.loads(run([perfdiff, "diff", "-q", "--format=json", "--tree", "--all"] + sides).stdout)
    plainjson = json.loads(run([perfdiff, "diff", "-q", "--format=json", "--all"] + sides).stdout)
    treejson = json.loads(run([perfdiff, "diff", "-q", "--format=json", "--tree"] + sides).stdout)
    reportjson = json.loads(run([perfdiff, "report", "-q", "--format=json", runs["old"][0]]).stdout)
    for f in ("diff.html", "diff.svg", "report.html"):
        check_offline(f"{work}/{f}")
    b = open_page(browser, f"{work}/diff.html", "#search=hash_block&width=new", work, work + "/diff.png")
    check_diff_page(b, diffjson)
    b = open_page(browser, f"{work}/diff.html", "#view=callee&callee=mix_step&width=new", work,
                  work + "/callee.png")
    check_callee_page(b, diffjson)
    b = open_page(browser, f"{work}/diff.html", "#metric=tree", work, work + "/tree.png")
    check_implied_tree(work, diffjson, plainjson, treejson, b)
    b = open_page(browser, f"{work}/report.html", "#search=hash_chunk", work, work + "/report.png")
    check_report_page(b, reportjson, f"{work}/report.html")
    _, err = chromium(browser, f"file://{work}/diff.svg", ["--screenshot=" + work + "/svg.png"], work)
    check_console(err, "diff.svg")
    check_svg(f"{work}/diff.svg", diffjson, runs)
    # nothing significant: two fixtures of tests/data, one run a side
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    quiet = [os.path.join(data, "fp.data"), os.path.join(data, "two.data")]
    p = run([perfdiff, "diff", "-q", "--format=html", "-o", f"{work}/quiet.html"] + quiet)
    assert p.returncode == 0, p.stderr
    alljson = json.loads(run([perfdiff, "diff", "-q", "--format=json", "--all"] + quiet).stdout)
    b = open_page(browser, f"{work}/quiet.html", "", work, work + "/quiet.png")
    check_quiet_page(b, alljson)
    # a page's title names every run of a side, one file as given
    assert page_title(f"{work}/quiet.html") == f"perfdiff: {quiet[0]} vs {quiet[1]}"
    title = page_title(f"{work}/diff.html")
    assert title == "perfdiff: 2 runs: old1.data, old2.data vs 2 runs: new1.data, new2.data", title
    for png in ("diff.png", "callee.png", "tree.png", "report.png", "svg.png", "quiet.png"):
        assert os.path.getsize(f"{work}/{png}") > 1000, png + ": no screenshot"
    print("test_html: passed")


if __name__ == "__main__":
    main()
