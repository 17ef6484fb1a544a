"""perfdiff.Diff against `perfdiff diff` on the same recordings: the JSON
document byte for byte, every row and relation against the CLI's JSON with
--all, and the other formats; each option of Diff() against the command
line option it stands for."""

import pytest

import perfdiff


@pytest.fixture(scope="module")
def sides(base, new):
    # read as `perfdiff diff` reads its files (the same diff, cheaper)
    return (perfdiff.Profile(base, merge_unresolved=True),
            perfdiff.Profile(new, merge_unresolved=True))


def test_json_is_the_clis(sides, base, new, cli_out):
    d = perfdiff.Diff(*sides)
    assert d.json() == cli_out("diff", "--format=json", *base, "--", *new)
    assert d.json(all=True) == cli_out("diff", "--format=json", "--all", *base, "--", *new)


def side_of(s):
    return {"mean": s.mean, "stddev": s.stddev, "runs": list(s.runs), "present": s.present}


def test_rows_and_relations_equal_cli(sides, base, new, cli_json):
    d = perfdiff.Diff(*sides)
    doc = cli_json("diff", "--all", *base, "--", *new)
    assert d.event == doc["event"] and d.test == doc["test"]
    assert len(d.rows) == doc["rows_total"] == len(doc["rows"])
    for r, w in zip(d.rows, doc["rows"]):
        assert (r.metric, r.key, r.symbol, r.dso) == (w["metric"], w["key"], w["symbol"], w["dso"])
        assert side_of(r.base) == pytest.approx(w["base"], rel=1e-15)
        assert side_of(r.new) == pytest.approx(w["new"], rel=1e-15)
        assert r.change == pytest.approx(w["change"], rel=1e-15)
        assert r.p_value == pytest.approx(w["p_value"], rel=1e-15)
        assert r.q_value == pytest.approx(w["q_value"], rel=1e-15)
        assert r.significant == w["significant"]
        assert (r.relation is None) == (w["relation"] is None)
        if r.relation is not None:
            assert (r.relation.kind, r.relation.base_symbol, r.relation.new_symbol) == \
                (w["relation"]["kind"], w["relation"]["base_symbol"], w["relation"]["new_symbol"])
    assert len(d.relations) == len(doc["relations"]) >= 1
    for rel, w in zip(d.relations, doc["relations"]):
        for k in ("kind", "base_symbol", "new_symbol", "base_parent", "new_parent", "dso",
                  "evidence", "significant", "rows_significant"):
            assert getattr(rel, k) == w[k], k
        assert list(rel.base_symbols) == w["base_symbols"]
        assert list(rel.new_symbols) == w["new_symbols"]
        for k in ("base_change", "new_change", "net", "score", "p_value", "q_value"):
            assert getattr(rel, k) == pytest.approx(w[k], rel=1e-15), k
    # the rename the workload makes, explained once
    top = d.relations[0]
    assert (top.kind, top.base_symbol, top.new_symbol) == ("renamed", "hash_chunk", "hash_block")
    assert [r.key for r in d.rows if r.relation is top and r.metric == "children"] == \
        ["hash_chunk", "hash_block"]
    assert d.significant == [r for r in d.rows if r.significant]
    assert d.base is sides[0] and d.new is sides[1]


@pytest.mark.parametrize("args,kw", [
    (["--fdr=0.2"], {"fdr": 0.2}),
    (["--min-change=1"], {"min_change": 1.0}),
    (["--depth=2"], {"depth": 2}),
    (["--tree"], {"tree": True}),
    (["--no-align"], {"align": False}),
    (["--absolute"], {"absolute": True}),
    (["--rename-score=0.9"], {"rename_score": 0.9}),
    (["--event=cpu-clock"], {"event": "cpu-clock"}),
])
def test_options_as_cli(sides, base, new, cli_out, args, kw):
    d = perfdiff.Diff(*sides, **kw)
    assert d.json(all=True) == cli_out("diff", "--format=json", "--all", *args, *base, "--", *new)


def test_lkp_keys_diff(base, new, cli_out):
    b, n = perfdiff.Profile(base, lkp=True), perfdiff.Profile(new, lkp=True)
    d = perfdiff.Diff(b, n, lkp=True)
    assert d.lkp() == cli_out("diff", "--format=lkp", *base, "--", *new)
    assert all(r.dso is None for r in d.rows)


def test_formats(sides, base, new, cli_out):
    d = perfdiff.Diff(*sides)
    files = [*base, "--", *new]
    assert d.text() == cli_out("diff", *files)
    assert d.text(all=True, sort="name") == cli_out("diff", "--all", "--sort=name", *files)
    assert d.text(sort="abs-change", percent_limit=1) == \
        cli_out("diff", "--sort=abs-change", "--percent-limit=1", *files)
    assert d.text(color=True) == cli_out("diff", "--color=always", *files)
    assert d.write("csv") == cli_out("diff", "--format=csv", *files)
    # the command's flame graphs colour nodes by their tree rows' test
    t = perfdiff.Diff(*sides, tree=True)
    assert t.html() == cli_out("diff", "--format=html", *files)
    assert t.svg() == cli_out("diff", "--format=svg", *files)
    assert t.html(all=True) == cli_out("diff", "--format=html", "--all", *files)
    with pytest.raises(ValueError):
        d.write(sort="nosuch")
    with pytest.raises(ValueError):
        d.write("nosuch")


def test_bad_options(sides):
    for kw in ({"fdr": 0}, {"rename_score": 2}, {"cost_tolerance": -1},
               {"min_change": float("nan")}, {"event": "cycles"}):
        with pytest.raises(perfdiff.InvalidArgumentError) as e:
            perfdiff.Diff(*sides, **kw)
        assert e.value.code == -2 and e.value.code_name
    # cost_tolerance in range is taken (no command line option stands for it)
    assert perfdiff.Diff(*sides, cost_tolerance=0.25).json() == perfdiff.Diff(*sides).json()
    with pytest.raises(TypeError):
        perfdiff.Diff(sides[0], "not a profile")


def test_to_pandas(sides):
    pandas = pytest.importorskip("pandas")
    d = perfdiff.Diff(*sides)
    df = d.to_pandas()
    assert isinstance(df, pandas.DataFrame) and len(df) == len(d.rows)
    assert list(df["key"]) == [r.key for r in d.rows]
    assert list(df["base_mean"]) == [r.base.mean for r in d.rows]
    assert set(df["relation"].dropna()) == {r.relation.kind for r in d.rows if r.relation}


def test_merge_unresolved_changes_nothing(sides, base, new):
    # the diff keys a dso's unnamed frames as one either way, and its tree
    # is walked in name order: the same bytes whether or not the profiles
    # kept every address apart
    plain = perfdiff.Diff(perfdiff.Profile(base), perfdiff.Profile(new), tree=True)
    merged = perfdiff.Diff(*sides, tree=True)
    assert plain.rows
    assert plain.json(all=True) == merged.json(all=True)
    assert plain.html() == merged.html()
