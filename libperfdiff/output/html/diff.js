/*
 * diff.js — the page of `perfdiff diff --format=html`: header, explained
 * shifts, the differential flame graph of the aligned tree and the
 * robot's compare table, from the two JSON documents in the page
 * (#pd-diff: perfdiff.diff/1 as --format=json writes it; #pd-flame: the
 * aligned tree's columns, perfdiff.flame/1; docs/html-report.md).
 *
 * The page's state is also read from the URL's fragment
 * (#search=NAME&width=new&view=icicle&color=self, or view=callee&
 * callee=NAME for who calls NAME; metric=tree for the table), so that a link can point at a finding
 * and a test can drive the page without clicking.
 * Errors are written into #pd-errors as well as thrown, so that a
 * headless test reads them from the DOM.
 */
"use strict";
(function () {
	var D, F, flame, app = document.getElementById("pd-app");
	var st = { width: "max", color: "incl", view: "flame", search: "", callee: "", metric: "all" };
	var full, callee = null;  /* the aligned tree's model; the who-calls one */

	function data(id) { return JSON.parse(document.getElementById(id).textContent); }
	function fmt(x, d) { return x === null || x === undefined ? "–" : (+x).toFixed(d); }
	function sign(x, d) { return (x > 0 ? "+" : x < 0 ? "−" : "") + Math.abs(x).toFixed(d); }
	/* the robot's "± 12%": the relative stddev, truncated, shown above 2 % */
	function sdPct(s) {
		if (!s || !(s.mean > 0)) return "";
		var p = Math.floor(100 * s.stddev / s.mean);
		return p > 2 ? " ±" + p + "%" : "";
	}
	function section(title, cls) {
		var s = PD.el("section", { "class": cls });
		s.appendChild(PD.el("h2", {}, title));
		app.appendChild(s);
		return s;
	}

	/* ---- header: sides, runs, samples, event, test, what it rests on ---- */
	function sideFacts(s) {
		var f = [];
		if (s.unresolved_pct >= 10) f.push(fmt(s.unresolved_pct, 1) + " % of the period has an unresolved leaf");
		if (s.truncated && s.truncated.length) f.push("input cut short: " + s.truncated.join(", "));
		if (s.lost) f.push(s.lost + " samples lost while recording");
		if (s.too_few_samples) f.push("a run has only " + s.fewest_run_samples + " samples: too few for the test");
		if (s.unmatched_filters && s.unmatched_filters.length) f.push("filters that matched nothing: " + s.unmatched_filters.join(", "));
		return f;
	}
	function header() {
		var h = PD.el("header");
		h.appendChild(PD.el("h1", {}, "perfdiff: " + D.base.files.join(" ") + " → " + D.new.files.join(" ")));
		var t = PD.el("table", { "class": "pd-sides" });
		t.innerHTML = "<tr><th></th><th>files</th><th>runs</th><th>samples</th><th>period</th></tr>";
		[["base", D.base], ["new", D.new]].forEach(function (p) {
			var tr = PD.el("tr");
			[p[0], p[1].files.join(" "), p[1].runs, p[1].samples, p[1].total].forEach(function (v) {
				tr.appendChild(PD.el("td", {}, String(v)));
			});
			t.appendChild(tr);
		});
		h.appendChild(t);
		var o = D.options, v = D.variation;
		var facts = ["event " + D.event + " (" + D.lkp_event + ")", "test: " + D.test,
			"significant: q ≤ " + o.fdr + " and |change| ≥ " + o.min_change + (o.absolute ? " %" : " points"),
			"variation: runs φ " + fmt(v.runs_phi, 2) + ", blocks φ " + fmt(v.blocks_phi, 2) + ", inflation " + fmt(v.inflation, 2),
			D.rows_total + " rows, " + D.rows_hidden + " not shown"];
		sideFacts(D.base).forEach(function (f) { facts.push("base: " + f); });
		sideFacts(D.new).forEach(function (f) { facts.push("new: " + f); });
		var ul = PD.el("ul", { "class": "pd-facts" });
		facts.forEach(function (f) { ul.appendChild(PD.el("li", {}, f)); });
		h.appendChild(ul);
		app.appendChild(h);
	}

	/* ---- the explained shifts, first ---- */
	function shifts() {
		var s = section("Explained shifts", "pd-shifts"), any = false;
		D.relations.forEach(function (r, i) {
			if (!F.listed[i]) return;
			any = true;
			var d = PD.el("div", { "class": "pd-shift" + (r.significant ? " pd-sig" : "") });
			d.appendChild(PD.el("span", { "class": "pd-kind" }, r.kind));
			d.appendChild(PD.el("b", {}, r.base_symbols.join(" + ") + " → " + r.new_symbols.join(" + ")));
			d.appendChild(PD.el("span", {}, " " + sign(r.base_change, 1) + " → " + sign(r.new_change, 1) +
				", net " + sign(r.net, 2) + (r.significant ? " (q " + fmt(r.q_value, 3) + ")" : " (n.s.)")));
			d.appendChild(PD.el("div", { "class": "pd-evidence" }, r.evidence));
			s.appendChild(d);
		});
		if (!any) s.appendChild(PD.el("p", {}, "No shift explained."));
	}

	/* ---- the aligned tree's model for the flame graph ---- */
	function name(k) { return k < 0 ? null : F.names[k]; }
	function maxAbs(get) {
		var m = 0;
		for (var i = 1; i < F.parent.length; i++) m = Math.max(m, Math.abs(get(i)));
		return m || 1;
	}
	function model() {
		var chIncl = function (i) { return F.n[i] - F.b[i]; };
		var chSelf = function (i) { return F.nself[i] - F.bself[i]; };
		var top = { incl: maxAbs(chIncl), self: maxAbs(chSelf) };
		return {
			parent: F.parent,
			vb: function (i) { return F.b[i]; },
			vn: function (i) { return F.n[i]; },
			dblclick: function (i) { showCallers(i); },
			names: function (i) { return [name(F.bname[i]), name(F.nname[i])]; },
			size: function (i) {
				return st.width === "base" ? F.b[i] : st.width === "new" ? F.n[i] : Math.max(F.b[i], F.n[i]);
			},
			label: function (i) { return label(i); },
			hatched: function (i) { return i > 0 && (F.bname[i] < 0 || F.nname[i] < 0); },
			color: function (i) {
				var self = st.color === "self", c = self ? chSelf(i) : chIncl(i);
				if (self ? Math.abs(c) < D.options.min_change : F.sig[i] === 0) return "#c8c8c8";
				return PD.changeColor(c, self ? top.self : top.incl);
			},
			tip: tip
		};
	}
	function label(i) {
		var b = name(F.bname[i]), n = name(F.nname[i]);
		if (i === 0) return "all";
		return b !== null && n !== null && b !== n ? b + " → " + n : b !== null ? b : n;
	}
	/* red for a cost that grew, blue for one that fell, stronger the larger */
	PD.changeColor = function (c, top) {
		var t = Math.min(1, Math.sqrt(Math.abs(c) / top)), to = c > 0 ? [224, 48, 32] : [32, 96, 224];
		var rgb = to.map(function (v) { return Math.round(242 + (v - 242) * t); });
		return "rgb(" + rgb.join(",") + ")";
	};
	function runsChart(i) {
		var R = D.base.runs, S = D.new.runs, vals = [], k;
		for (k = 0; k < R; k++) vals.push(["b", F.bruns[i * R + k]]);
		for (k = 0; k < S; k++) vals.push(["n", F.nruns[i * S + k]]);
		var hi = Math.max.apply(null, vals.map(function (v) { return v[1]; })) || 1;
		var svg = "<svg class='pd-runs' width='160' height='34'>";
		vals.forEach(function (v) {
			var x = 4 + 150 * v[1] / hi, y = v[0] === "b" ? 10 : 26;
			svg += "<circle cx='" + x.toFixed(1) + "' cy='" + y + "' r='3' class='pd-run-" + v[0] + "'/>";
		});
		return svg + "<text x='0' y='13'>b</text><text x='0' y='29'>n</text></svg>";
	}
	function tip(i) {
		var u = D.options.absolute ? "/s" : " %", rel = F.rel[i] >= 0 ? D.relations[F.rel[i]] : null;
		var h = "<b>" + PD.esc(label(i)) + "</b>";
		if (F.dso[i] >= 0) h += "<br><small>" + PD.esc(F.dsos[F.dso[i]]) + "</small>";
		h += "<table><tr><td>base</td><td>" + fmt(F.b[i], 2) + u + " ± " + fmt(F.bsd[i], 2) +
			"</td><td>self " + fmt(F.bself[i], 2) + "</td></tr><tr><td>new</td><td>" + fmt(F.n[i], 2) + u +
			" ± " + fmt(F.nsd[i], 2) + "</td><td>self " + fmt(F.nself[i], 2) + "</td></tr><tr><td>change</td><td>" +
			sign(F.n[i] - F.b[i], 2) + "</td><td>q " + (F.q[i] === null ? "–" : fmt(F.q[i], 4)) +
			(F.sig[i] === 0 ? " (n.s.)" : "") + "</td></tr></table>";
		if (rel) h += "<div><b>" + PD.esc(rel.kind) + "</b>: " + PD.esc(rel.evidence) + "</div>";
		return h + runsChart(i);
	}

	/*
	 * ---- who calls a function: its callers merged over every place ----
	 * The function's outermost nodes (none under another node of it, so
	 * each sample counts once) are the root; each one's callers, caller's
	 * callers and so on up to the tree's root become paths under it,
	 * merged by the pair of names, each carrying the inclusive values of
	 * the occurrences below it.  These sums have no test of their own:
	 * the boxes are coloured by their change, never greyed.
	 */
	function calleeModel(fname) {
		var N = F.parent.length, covered = new Uint8Array(N), occ = [];
		for (var i = 1; i < N; i++) {
			var hit = name(F.bname[i]) === fname || name(F.nname[i]) === fname;
			covered[i] = covered[F.parent[i]] || (hit ? 1 : 0);
			if (hit && !covered[F.parent[i]]) occ.push(i);
		}
		var par = [-1], src = [occ.length ? occ[0] : 0], vb = [0], vn = [0], seen = new Map();
		occ.forEach(function (o) {
			vb[0] += F.b[o];
			vn[0] += F.n[o];
			for (var a = F.parent[o], cur = 0; a > 0; a = F.parent[a]) {
				var key = cur + " " + F.bname[a] + " " + F.nname[a], d = seen.get(key);
				if (d === undefined) {
					d = par.length;
					seen.set(key, d);
					par.push(cur); src.push(a); vb.push(0); vn.push(0);
				}
				vb[d] += F.b[o];
				vn[d] += F.n[o];
				cur = d;
			}
		});
		var top = 0;
		for (i = 0; i < vb.length; i++) top = Math.max(top, Math.abs(vn[i] - vb[i]));
		return {
			fname: fname, occurrences: occ.length, parent: Int32Array.from(par),
			vb: function (i) { return vb[i]; },
			vn: function (i) { return vn[i]; },
			dblclick: function (i) { showCallers(src[i]); },
			names: function (i) { return [name(F.bname[src[i]]), name(F.nname[src[i]])]; },
			size: function (i) {
				return st.width === "base" ? vb[i] : st.width === "new" ? vn[i] : Math.max(vb[i], vn[i]);
			},
			label: function (i) { return label(src[i]); },
			hatched: function (i) { return vb[i] === 0 || vn[i] === 0; },
			color: function (i) { return PD.changeColor(vn[i] - vb[i], top || 1); },
			tip: function (i) {
				var u = D.options.absolute ? "/s" : " %";
				return "<b>" + PD.esc(label(src[i])) + "</b>" + (i ? " → … → " + PD.esc(fname) : "") +
					"<table><tr><td>base</td><td>" + fmt(vb[i], 2) + u + "</td></tr><tr><td>new</td><td>" +
					fmt(vn[i], 2) + u + "</td></tr><tr><td>change</td><td>" + sign(vn[i] - vb[i], 2) +
					"</td></tr></table><small>" + PD.esc(fname) + "'s cost through this path, " +
					"summed over its " + occ.length + " places; double-click: its callers</small>";
			}
		};
	}
	/* The function of node i (either name; the new one where the base has
	 * none) in the who-calls view. */
	function showCallers(i) {
		st.callee = name(F.bname[i]) !== null ? name(F.bname[i]) : name(F.nname[i]) || "";
		st.view = "callee";
		document.getElementById("pd-view").value = "callee";
		redraw();
	}
	/* Without a function named: the zoomed box's, else the one with the
	 * largest self cost. */
	function defaultCallee() {
		var best = 1, v = -1;
		if (flame.root > 0 && flame.m === full) best = flame.root;
		else for (var i = 1; i < F.parent.length; i++) {
			var s = Math.max(F.bself[i], F.nself[i]);
			if (s > v) { v = s; best = i; }
		}
		return name(F.bname[best]) !== null ? name(F.bname[best]) : name(F.nname[best]);
	}

	/* ---- the flame graph and its controls ---- */
	function control(box, label, key, options) {
		var sel = PD.el("select", { id: "pd-" + key, "aria-label": label });
		options.forEach(function (o) {
			var opt = PD.el("option", { value: o[0] }, o[1]);
			if (st[key] === o[0]) opt.selected = true;
			sel.appendChild(opt);
		});
		sel.addEventListener("change", function () { st[key] = sel.value; redraw(); });
		box.appendChild(PD.el("label", {}, label + " "));
		box.lastChild.appendChild(sel);
	}
	function redraw() {
		var who = document.getElementById("pd-callee");
		if (st.view === "callee") {
			if (!st.callee) st.callee = defaultCallee() || "";
			if (!callee || callee.fname !== st.callee) callee = calleeModel(st.callee);
			flame.setModel(callee);
			who.textContent = "callers of " + st.callee + " (" + callee.occurrences + " places): base " +
				fmt(callee.vb(0), 2) + ", new " + fmt(callee.vn(0), 2);
			who.setAttribute("data-name", st.callee);
			who.setAttribute("data-base", callee.vb(0));
			who.setAttribute("data-new", callee.vn(0));
			who.setAttribute("data-count", callee.occurrences);
		} else {
			flame.setModel(full);
			who.textContent = "";
		}
		flame.inverted = st.view !== "flame";
		flame.draw();
		if (st.search) doSearch(st.search);
	}
	function doSearch(text) {
		st.search = text;
		var top = flame.search(text), out = document.getElementById("pd-match");
		if (!top) { out.textContent = ""; return; }
		var b = 0, n = 0, m = flame.m;
		top.forEach(function (i) { b += m.vb(i); n += m.vn(i); });
		out.textContent = top.length + " matched: base " + fmt(b, 2) + ", new " + fmt(n, 2) +
			(D.options.absolute ? " per second" : " % of the total");
		out.setAttribute("data-base", b);
		out.setAttribute("data-new", n);
		out.setAttribute("data-count", top.length);
	}
	function flameSection() {
		var s = section("Differential flame graph of the aligned tree", "pd-graph");
		var bar = PD.el("div", { "class": "pd-bar" });
		control(bar, "width", "width", [["max", "max(base, new)"], ["base", "base"], ["new", "new"]]);
		control(bar, "colour", "color", [["incl", "inclusive change"], ["self", "self change"]]);
		control(bar, "view", "view", [["flame", "flame (root below)"], ["icicle", "icicle (root above)"],
			["callee", "who calls a function"]]);
		var q = PD.el("input", { id: "pd-search", type: "search", placeholder: "search (text or /regexp/)" });
		q.value = st.search;
		q.addEventListener("input", function () { doSearch(q.value); });
		bar.appendChild(q);
		var reset = PD.el("button", { type: "button" }, "reset zoom");
		reset.addEventListener("click", function () { flame.zoom(0); });
		bar.appendChild(reset);
		bar.appendChild(PD.el("span", { id: "pd-match" }));
		s.appendChild(bar);
		s.appendChild(PD.el("div", { id: "pd-callee", "class": "pd-legend" }));
		s.appendChild(PD.el("p", { "class": "pd-legend" }, "Red: costs more in the new build, blue: less, " +
			"the deeper the larger the change; grey: not significant; hatched: on one side only. " +
			"A renamed or inlined function is one box with both names. Click to zoom; " +
			"double-click: who calls the function (its callers merged over every place it is called)."));
		full = model();
		flame = new PD.Flame(s, full);
		redraw();
	}

	/* ---- the robot's compare table: sortable, filterable ---- */
	var cols = [
		["metric", function (r) { return r.metric; }],
		["base", function (r) { return r.base.mean; }],
		["change", function (r) { return r.change; }],
		["new", function (r) { return r.new.mean; }],
		["q", function (r) { return r.q_value === null ? 2 : r.q_value; }],
		["key", function (r) { return r.key; }]];
	var tsort = { col: -1, dir: 1 }, LIMIT = 1000;
	function rowOrder(a, b) {
		if (tsort.col < 0) {
			if (a.significant !== b.significant) return a.significant ? -1 : 1;
			return Math.abs(b.change) - Math.abs(a.change);
		}
		var f = cols[tsort.col][1], x = f(a), y = f(b);
		return (x < y ? -1 : x > y ? 1 : 0) * tsort.dir;
	}
	function rowCells(r) {
		var tr = PD.el("tr", { "class": r.significant ? "pd-sig" : "pd-ns" });
		var cells = [r.metric, fmt(r.base.mean, 2) + sdPct(r.base), sign(r.change, 2),
			fmt(r.new.mean, 2) + sdPct(r.new),
			(r.q_value === null ? "–" : r.q_value.toPrecision(2)) + (r.significant ? "" : " (n.s.)"),
			r.key + (r.relation ? "  [" + r.relation.kind + "]" : "")];
		cells.forEach(function (c, k) { tr.appendChild(PD.el("td", k === 5 ? { "class": "pd-key" } : {}, c)); });
		tr.className += r.change > 0 ? " pd-up" : r.change < 0 ? " pd-down" : "";
		return tr;
	}
	/* The tree rows the JSON would show, from the aligned tree's columns
	 * (the page's #pd-diff leaves them out: docs/html-report.md), keyed by
	 * the aligned path, each frame the base's name where the base has it. */
	var treeRows = null;
	function pathOf(i) {
		var p = [];
		for (; i > 0; i = F.parent[i]) p.push(name(F.bname[i]) !== null ? name(F.bname[i]) : name(F.nname[i]));
		return p.reverse().join(";");
	}
	function makeTreeRows() {
		var out = [];
		for (var i = 1; i < F.parent.length; i++) {
			if (!F.shown[i]) continue;
			out.push({ metric: "tree", key: pathOf(i), base: { mean: F.b[i], stddev: F.bsd[i] },
				new: { mean: F.n[i], stddev: F.nsd[i] }, change: F.n[i] - F.b[i], q_value: F.q[i],
				significant: F.sig[i] === 1, relation: F.rel[i] >= 0 ? D.relations[F.rel[i]] : null });
		}
		return out;
	}
	/* The document's rows; when nothing is significant, the largest
	 * changes, so that a quiet comparison still says what moved most. */
	function flatRows() {
		return D.rows.length || !D.largest ? D.rows : D.largest;
	}
	function fillTable(body, note) {
		var text = document.getElementById("pd-filter").value, metric = document.getElementById("pd-metric").value;
		if (metric === "tree" && !treeRows) treeRows = makeTreeRows();
		var rows = (metric === "tree" ? treeRows : flatRows()).filter(function (r) {
			return (metric === "all" ? r.metric !== "tree" : r.metric === metric) &&
				(!text || r.key.indexOf(text) >= 0);
		}).sort(rowOrder);
		body.textContent = "";
		var frag = document.createDocumentFragment();
		rows.slice(0, LIMIT).forEach(function (r) { frag.appendChild(rowCells(r)); });
		body.appendChild(frag);
		note.textContent = rows.length + " rows" + (rows.length > LIMIT ? ", the first " + LIMIT + " shown" : "");
		note.setAttribute("data-count", rows.length);
	}
	function table() {
		var s = section("Compare table", "pd-compare"), bar = PD.el("div", { "class": "pd-bar" });
		var f = PD.el("input", { id: "pd-filter", type: "search", placeholder: "filter keys" });
		var m = PD.el("select", { id: "pd-metric" });
		["all", "calltrace", "children", "self", "shift", "tree"].forEach(function (x) {
			m.appendChild(PD.el("option", { value: x }, x === "all" ? "all but tree" : x));
			if (x === st.metric) m.lastChild.selected = true;
		});
		var note = PD.el("span", { id: "pd-note" });
		bar.appendChild(f); bar.appendChild(m); bar.appendChild(note);
		if (!D.rows.length && D.largest && D.largest.length)
			s.appendChild(PD.el("p", { id: "pd-largest" }, "No significant change; the " +
				D.largest.length + " largest changes, none significant (n.s.):"));
		s.appendChild(bar);
		var t = PD.el("table", { "class": "pd-table", id: "pd-rows" }), head = PD.el("tr"), body = PD.el("tbody");
		cols.forEach(function (c, k) {
			var th = PD.el("th", {}, c[0]);
			th.addEventListener("click", function () {
				tsort.dir = tsort.col === k ? -tsort.dir : 1;
				tsort.col = k;
				fillTable(body, note);
			});
			head.appendChild(th);
		});
		t.appendChild(PD.el("thead")).appendChild(head);
		t.appendChild(body);
		s.appendChild(t);
		f.addEventListener("input", function () { fillTable(body, note); });
		m.addEventListener("change", function () { fillTable(body, note); });
		fillTable(body, note);
	}

	function fromHash() {
		location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
			var p = kv.split("=");
			if (p.length === 2 && p[0] in st) st[p[0]] = decodeURIComponent(p[1]);
		});
	}

	PD.run(function () {
		D = data("pd-diff");
		F = data("pd-flame");
		F.parent = Int32Array.from(F.parent);
		fromHash();
		header();
		shifts();
		flameSection();
		table();
	});
})();
