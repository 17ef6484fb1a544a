/*
 * flame.js — the flame graph of perfdiff's HTML pages (diff and report),
 * plain DOM, no framework, no network.
 *
 * Why DOM boxes and not a canvas: only boxes at least a pixel wide are
 * drawn (narrower siblings become one grey "+N" box per caller), so a
 * 200k-node tree never puts more than a few thousand elements on the
 * page, and every box is then an element that tests, the browser's find
 * and assistive tools can see, carrying its names (data-base, data-new).
 *
 * PD.Flame(host, model) draws the tree `model` describes:
 *   n                 nodes; parent[i] (Int32Array, -1 root, parent < i)
 *   size(i)           width value (changes with the page's width toggle)
 *   color(i)          CSS colour
 *   label(i)          text of the box; names(i): [base, new] for data-*
 *   hatched(i)        one-side-only node
 *   tip(i)            HTML of the tooltip
 *   dblclick(i)       optional: what a double click on box i does
 * Methods: draw(), zoom(i), search(text) → the outermost matches,
 * setInverted(b), setModel(m) (another tree, at its root).
 */
"use strict";
var PD = window.PD || (window.PD = {});

/* Text for HTML: names come from perf.data and may hold anything. */
PD.esc = function (s) {
	return String(s).replace(/[&<>"]/g, function (c) {
		return { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" }[c];
	});
};

PD.el = function (tag, attrs, text) {
	var e = document.createElement(tag);
	for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
	if (text !== undefined) e.textContent = text;
	return e;
};

/* Children lists of a parent array, in one pass (counting sort). */
PD.kids = function (parent) {
	var n = parent.length, count = new Int32Array(n + 1), start = new Int32Array(n + 1);
	for (var i = 1; i < n; i++) count[parent[i]]++;
	for (i = 0; i < n; i++) start[i + 1] = start[i] + count[i];
	var list = new Int32Array(Math.max(n - 1, 0)), fill = start.slice(0, n);
	for (i = 1; i < n; i++) list[fill[parent[i]]++] = i;
	return { start: start, list: list };
};

PD.Flame = function (host, model) {
	this.host = host;
	this.m = model;
	this.k = PD.kids(model.parent);
	this.root = 0;
	this.inverted = false;
	this.hits = null;
	this.rowH = 17;
	this.box = PD.el("div", { "class": "pd-flame" });
	/* a deep system-wide graph is taller than the window: it scrolls in a
	 * view of its own, which opens at the root (see draw()) */
	this.view = PD.el("div", { "class": "pd-flame-view" });
	this.view.appendChild(this.box);
	/* one tooltip per page, whichever graph is shown */
	this.tip = document.querySelector(".pd-tip") || document.body.appendChild(PD.el("div", { "class": "pd-tip" }));
	this.tip.hidden = true;
	host.appendChild(this.view);
	var self = this;
	this.box.addEventListener("click", function (e) { self.onClick(e); });
	this.box.addEventListener("dblclick", function (e) {
		var i = self.nodeAt(e);
		if (i >= 0 && self.m.dblclick) self.m.dblclick(i);
	});
	this.box.addEventListener("mousemove", function (e) { self.onMove(e); });
	this.box.addEventListener("mouseleave", function () { self.tip.hidden = true; });
};

/* Children of i, widest first, each with its width. */
PD.Flame.prototype.children = function (i) {
	var out = [], s = this.k.start, m = this.m;
	for (var j = s[i]; j < s[i + 1]; j++) {
		var c = this.k.list[j], v = m.size(c);
		if (v > 0) out.push([c, v]);
	}
	out.sort(function (a, b) { return b[1] - a[1]; });
	return out;
};

/* Boxes to draw: [node, x, w, depth] in px, ancestors of the zoom root
 * first; narrow siblings as [-count, x, w, depth]. */
PD.Flame.prototype.layout = function (width) {
	var boxes = [], depth = 0, anc = [];
	for (var a = this.m.parent[this.root]; a >= 0; a = this.m.parent[a]) anc.unshift(a);
	for (var t = 0; t < anc.length; t++) boxes.push([anc[t], 0, width, depth++, true]);
	var stack = [[this.root, 0, width, depth]];
	while (stack.length) {
		var b = stack.pop(), i = b[0];
		boxes.push(b);
		var kids = this.children(i), sum = 0;
		for (var k = 0; k < kids.length; k++) sum += kids[k][1];
		var room = Math.max(this.m.size(i), sum), x = b[1], narrow = 0, nn = 0;
		for (k = 0; k < kids.length && room > 0; k++) {
			var w = b[2] * kids[k][1] / room;
			if (w < 1) { narrow += w; nn++; continue; }
			stack.push([kids[k][0], x, w, b[3] + 1]);
			x += w;
		}
		if (narrow >= 1) boxes.push([-nn, x, narrow, b[3] + 1]);
	}
	return boxes;
};

PD.Flame.prototype.draw = function () {
	var width = this.box.clientWidth || 1000, boxes = this.layout(width);
	var maxd = 0, frag = document.createDocumentFragment(), m = this.m;
	for (var b = 0; b < boxes.length; b++) maxd = Math.max(maxd, boxes[b][3]);
	for (b = 0; b < boxes.length; b++) {
		var i = boxes[b][0], d = boxes[b][3];
		var y = (this.inverted ? d : maxd - d) * this.rowH;
		var e = PD.el("div", { "class": "pd-fr" });
		e.style.cssText = "left:" + boxes[b][1].toFixed(1) + "px;width:" +
			Math.max(boxes[b][2] - 1, 0.5).toFixed(1) + "px;top:" + y + "px";
		if (i < 0) {
			e.className += " pd-merged";
			e.title = (-i) + " nodes too narrow to draw";
		} else {
			this.decorate(e, i, boxes[b][2]);
			if (boxes[b][4]) e.className += " pd-anc";
		}
		frag.appendChild(e);
	}
	this.box.textContent = "";
	this.box.style.height = (maxd + 1) * this.rowH + "px";
	this.box.appendChild(frag);
	/* the wide boxes are at the root: the bottom of a flame graph, the
	 * top of an icicle */
	this.view.scrollTop = this.inverted ? 0 : this.view.scrollHeight;
};

PD.Flame.prototype.decorate = function (e, i, w) {
	var m = this.m, names = m.names(i);
	e.setAttribute("data-i", i);
	if (names[0] !== null) e.setAttribute("data-base", names[0]);
	if (names[1] !== null) e.setAttribute("data-new", names[1]);
	e.style.background = m.color(i);
	if (m.hatched(i)) e.className += " pd-hatch";
	if (this.hits && this.hits[i]) e.className += " pd-hit";
	e.textContent = w > 24 ? m.label(i) : "";
};

PD.Flame.prototype.nodeAt = function (e) {
	var t = e.target, i = t && t.getAttribute ? t.getAttribute("data-i") : null;
	return i === null ? -1 : +i;
};

PD.Flame.prototype.onClick = function (e) {
	var i = this.nodeAt(e);
	if (i >= 0) this.zoom(i);
};

PD.Flame.prototype.zoom = function (i) {
	this.root = i;
	this.draw();
	if (this.onzoom) this.onzoom(i);
};

PD.Flame.prototype.onMove = function (e) {
	var i = this.nodeAt(e);
	if (i < 0) { this.tip.hidden = true; return; }
	this.tip.innerHTML = this.m.tip(i);
	this.tip.hidden = false;
	var x = Math.min(e.pageX + 14, window.scrollX + window.innerWidth - this.tip.offsetWidth - 8);
	this.tip.style.left = Math.max(x, 0) + "px";
	this.tip.style.top = (e.pageY + 16) + "px";
};

PD.Flame.prototype.setModel = function (m) {
	if (m === this.m) return;
	this.m = m;
	this.k = PD.kids(m.parent);
	this.root = 0;
	this.hits = null;
};

PD.Flame.prototype.setInverted = function (b) {
	this.inverted = b;
	this.draw();
};

/*
 * Mark the nodes whose names match `text` (a substring, or /regexp/) and
 * return the matches not under another match (their values are the
 * matched share, each sample counted once), or null for empty text.
 */
PD.Flame.prototype.search = function (text) {
	var m = this.m, n = m.parent.length;
	if (!text) { this.hits = null; this.draw(); return null; }
	var re = null;
	if (text.length > 2 && text[0] === "/" && text[text.length - 1] === "/") {
		try { re = new RegExp(text.slice(1, -1)); } catch (err) { re = null; }
	}
	var hits = new Uint8Array(n), covered = new Uint8Array(n), top = [];
	for (var i = 1; i < n; i++) {
		var nm = m.names(i), hit = false;
		for (var s = 0; s < 2; s++)
			if (nm[s] !== null && (re ? re.test(nm[s]) : nm[s].indexOf(text) >= 0)) hit = true;
		hits[i] = hit ? 1 : 0;
		covered[i] = covered[m.parent[i]] || hits[i];
		if (hit && !covered[m.parent[i]]) top.push(i);
	}
	this.hits = hits;
	this.draw();
	return top;
};

/*
 * Run the page's code: an error is written into #pd-errors (a headless
 * test reads the DOM, a person sees it) as well as to the console; once
 * drawn, <body data-ready> holds the milliseconds from navigation start,
 * and <body data-painted> the same once the next frame is painted, which
 * the benchmark (bench/bench-html.sh) reads.
 */
PD.fail = function (msg) {
	var e = document.getElementById("pd-errors");
	if (e) {
		e.hidden = false;
		e.appendChild(PD.el("div", {}, "error: " + msg));
	}
};
window.addEventListener("error", function (ev) { PD.fail(ev.message); });
PD.run = function (fn) {
	try {
		fn();
	} catch (err) {
		PD.fail(err && err.stack ? err.stack : String(err));
		throw err;
	}
	document.body.setAttribute("data-ready", performance.now().toFixed(0));
	/* and once the browser has laid out and painted it: the next frame */
	requestAnimationFrame(function () {
		setTimeout(function () {
			document.body.setAttribute("data-painted", performance.now().toFixed(0));
		}, 0);
	});
};
