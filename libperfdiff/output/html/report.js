/*
 * report.js — the page of `perfdiff report --format=html`: per event a
 * flame graph of the calling-context tree (the runs summed) with search,
 * zoom and tooltips, and the children/self table, from the page's
 * #pd-report document (perfdiff.flame/1, kind "report";
 * docs/html-report.md).  The URL's fragment (#search=NAME&event=N&
 * view=icicle) sets the state, as on the diff page.
 */
"use strict";
(function () {
	var R, E, flame, app = document.getElementById("pd-app");
	var st = { event: "", view: "flame", search: "" };

	function fmt(x) { return (+x).toFixed(2); }
	function name(k) { return k < 0 ? null : R.names[k]; }
	/* warm colours, stable per name, as flamegraph.pl's */
	function hue(s) {
		var h = 0;
		for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
		return h;
	}
	function model() {
		return {
			parent: E.parent,
			names: function (i) { var n = name(E.sym[i]); return [n, n]; },
			size: function (i) { return E.total[i]; },
			label: function (i) { return i === 0 ? "all" : name(E.sym[i]) || "[unknown]"; },
			hatched: function () { return false; },
			color: function (i) {
				var h = hue(name(E.sym[i]) || ""), k = E.flags[i] & 1;
				return k ? "rgb(" + (200 + h % 40) + "," + (130 + h % 50) + ",60)"
					: "rgb(" + (205 + h % 50) + "," + (80 + (h >> 8) % 120) + "," + (40 + (h >> 16) % 40) + ")";
			},
			tip: function (i) {
				var d = E.dso[i] >= 0 ? R.dsos[E.dso[i]] : "";
				return "<b>" + PD.esc(this.label(i)) + "</b><br><small>" + PD.esc(d) + "</small><br>total " +
					fmt(E.total[i]) + " %, self " + fmt(E.self[i]) + " %" + (E.flags[i] & 2 ? " (inlined)" : "");
			}
		};
	}
	function doSearch(text) {
		st.search = text;
		var top = flame.search(text), out = document.getElementById("pd-match");
		if (!top) { out.textContent = ""; return; }
		var s = 0;
		top.forEach(function (i) { s += E.total[i]; });
		out.textContent = top.length + " matched: " + fmt(s) + " % of the total";
		out.setAttribute("data-share", s);
		out.setAttribute("data-count", top.length);
	}
	function table(box) {
		var t = PD.el("table", { "class": "pd-table", id: "pd-rows" }), body = PD.el("tbody");
		var f = PD.el("input", { id: "pd-filter", type: "search", placeholder: "filter symbols" });
		var order = { col: 0, dir: -1 }, heads = ["children", "self", "symbol", "dso"];
		function fill() {
			var idx = [];
			for (var i = 0; i < E.rname.length; i++) {
				var n = name(E.rname[i]) || "";
				if (!f.value || n.indexOf(f.value) >= 0) idx.push(i);
			}
			var key = [E.children, E.rself, E.rname, E.rdso][order.col];
			idx.sort(function (a, b) {
				var x = key[a], y = key[b];
				if (order.col >= 2) { x = (order.col === 2 ? name(x) : R.dsos[x]) || ""; y = (order.col === 2 ? name(y) : R.dsos[y]) || ""; }
				return (x < y ? -1 : x > y ? 1 : 0) * order.dir;
			});
			body.textContent = "";
			idx.slice(0, 1000).forEach(function (i) {
				var tr = PD.el("tr");
				[fmt(E.children[i]), fmt(E.rself[i]), name(E.rname[i]) || "[unknown]",
					E.rdso[i] >= 0 ? R.dsos[E.rdso[i]] : ""].forEach(function (c) { tr.appendChild(PD.el("td", {}, c)); });
				body.appendChild(tr);
			});
		}
		var head = PD.el("tr");
		heads.forEach(function (h, k) {
			var th = PD.el("th", {}, h);
			th.addEventListener("click", function () { order.dir = order.col === k ? -order.dir : (k < 2 ? -1 : 1); order.col = k; fill(); });
			head.appendChild(th);
		});
		t.appendChild(PD.el("thead")).appendChild(head);
		t.appendChild(body);
		f.addEventListener("input", fill);
		box.appendChild(f);
		box.appendChild(t);
		fill();
	}
	function show(k) {
		E = R.events[k];
		E.parent = Int32Array.from(E.parent);
		app.textContent = "";
		var h = PD.el("header");
		h.appendChild(PD.el("h1", {}, "perfdiff report: " + R.runs.join(" ")));
		var tabs = PD.el("div", { "class": "pd-tabs pd-bar" });
		R.events.forEach(function (e, j) {
			var b = PD.el("button", { type: "button", "aria-pressed": String(j === k) }, e.name);
			b.addEventListener("click", function () { st.event = String(j); show(j); });
			tabs.appendChild(b);
		});
		h.appendChild(tabs);
		h.appendChild(PD.el("p", { id: "pd-summary" }, E.name + ": " + E.samples + " samples, period " + E.period +
			(R.runs.length > 1 ? ", " + R.runs.length + " runs summed" : "")));
		app.appendChild(h);
		var s = PD.el("section", { "class": "pd-graph" }), bar = PD.el("div", { "class": "pd-bar" });
		var q = PD.el("input", { id: "pd-search", type: "search", placeholder: "search (text or /regexp/)" });
		q.value = st.search;
		q.addEventListener("input", function () { doSearch(q.value); });
		var view = PD.el("button", { type: "button", id: "pd-view" }, "flip (icicle/flame)");
		view.addEventListener("click", function () { st.view = st.view === "flame" ? "icicle" : "flame"; flame.setInverted(st.view === "icicle"); });
		var reset = PD.el("button", { type: "button" }, "reset zoom");
		reset.addEventListener("click", function () { flame.zoom(0); });
		[q, view, reset, PD.el("span", { id: "pd-match" })].forEach(function (e) { bar.appendChild(e); });
		s.appendChild(PD.el("h2", {}, "Flame graph"));
		s.appendChild(bar);
		app.appendChild(s);
		flame = new PD.Flame(s, model());
		flame.inverted = st.view === "icicle";
		flame.draw();
		if (st.search) doSearch(st.search);
		var t = PD.el("section", { "class": "pd-compare" });
		t.appendChild(PD.el("h2", {}, "Children and self"));
		app.appendChild(t);
		table(t);
	}

	PD.run(function () {
		R = JSON.parse(document.getElementById("pd-report").textContent);
		location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
			var p = kv.split("=");
			if (p.length === 2 && p[0] in st) st[p[0]] = decodeURIComponent(p[1]);
		});
		if (!R.events.length) { app.textContent = "No event with samples."; return; }
		var k = 0;
		R.events.forEach(function (e, j) { if (e.default) k = j; });
		if (st.event !== "" && R.events[+st.event]) k = +st.event;
		show(k);
	});
})();
