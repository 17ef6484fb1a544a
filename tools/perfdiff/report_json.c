/*
 * `perfdiff report --format=json`: the whole profile in one JSON document
 * (schema "perfdiff-report", version 1, documented in docs/report-json.md):
 * runs, and per event its totals, its rows and its calling-context tree as
 * a list of nodes with parent ids.  Written by hand, one row or node per
 * line, because a system-wide profile has hundreds of thousands of nodes
 * and building a jansson tree for them would cost more than folding them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define SCHEMA_VERSION 1

static void put_key(outbuf *b, const char *k)
{
	rb_putc(b, '"');
	ob_puts(b, k);
	ob_puts(b, "\":");
}

static void put_bool(outbuf *b, const char *k, bool v, bool comma)
{
	put_key(b, k);
	ob_puts(b, v ? "true" : "false");
	if (comma)
		rb_putc(b, ',');
}

static void put_u64(outbuf *b, const char *k, uint64_t v, bool comma)
{
	put_key(b, k);
	ob_put_json_u64(b, v);
	if (comma)
		rb_putc(b, ',');
}

static void put_str(outbuf *b, const char *k, const char *v, bool comma)
{
	put_key(b, k);
	ob_put_json_str(b, v);
	if (comma)
		rb_putc(b, ',');
}

/* A percentage with 4 decimals; JSON numbers need no trailing zeros kept. */
static void put_pct(outbuf *b, const char *k, uint64_t v, uint64_t total, bool comma)
{
	char tmp[48];
	double x = total ? 100.0 * (double)v / (double)total : 0.0;
	int n = snprintf(tmp, sizeof tmp, "%.4f", x);
	put_key(b, k);
	ob_putn(b, tmp, n > 0 ? (size_t)n : 0);
	if (comma)
		rb_putc(b, ',');
}

typedef uint64_t (*run_value)(const void *obj, size_t run);

static void put_runs(outbuf *b, const char *k, size_t runs, run_value f, const void *obj,
		     bool comma)
{
	put_key(b, k);
	rb_putc(b, '[');
	for (size_t r = 0; r < runs; r++) {
		if (r)
			rb_putc(b, ',');
		ob_put_json_u64(b, f(obj, r));
	}
	rb_putc(b, ']');
	if (comma)
		rb_putc(b, ',');
}

typedef struct ev_ref {
	const pd_profile *p;
	size_t ev;
} ev_ref;

static uint64_t ev_samples(const void *o, size_t r)
{
	const ev_ref *e = o;
	return pd_profile_samples(e->p, e->ev, r);
}

static uint64_t ev_total(const void *o, size_t r)
{
	const ev_ref *e = o;
	return pd_profile_total(e->p, e->ev, r);
}

static uint64_t ev_unresolved(const void *o, size_t r)
{
	const ev_ref *e = o;
	return pd_profile_unresolved(e->p, e->ev, r);
}

static uint64_t node_self(const void *o, size_t r)
{
	return pd_cct_self(o, r);
}

static uint64_t node_total(const void *o, size_t r)
{
	return pd_cct_total(o, r);
}

static uint64_t entry_children(const void *o, size_t r)
{
	return ((const pd_flat_entry *)o)->children_runs[r];
}

static uint64_t entry_self(const void *o, size_t r)
{
	return ((const pd_flat_entry *)o)->self_runs[r];
}

static void put_settings(outbuf *b, const report_opts *o)
{
	const pd_profile_options *po = o->popts;
	ob_puts(b, "\"settings\":{");
	put_bool(b, "keep_suffixes", po->flags & PD_PROFILE_KEEP_SUFFIXES, true);
	put_bool(b, "hide_unresolved", po->flags & PD_PROFILE_HIDE_UNRESOLVED, true);
	put_bool(b, "perf_compat", po->session.flags & PD_SESSION_PERF_COMPAT, true);
	put_bool(b, "inline", !(po->session.flags & PD_SESSION_NO_INLINE), true);
	put_bool(b, "demangle", !(po->session.flags & PD_SESSION_NO_DEMANGLE), true);
	put_key(b, "percent_limit");
	char tmp[32];
	int n = snprintf(tmp, sizeof tmp, "%g", o->percent_limit);
	ob_putn(b, tmp, n > 0 ? (size_t)n : 0);
	ob_puts(b, ",\"filters\":{");
	put_str(b, "comm", po->comms, true);
	put_str(b, "pid", po->pids, true);
	put_str(b, "tid", po->tids, true);
	put_str(b, "cpu", po->cpus, true);
	put_str(b, "dso", po->dsos, true);
	put_key(b, "time_start_ns");
	if (po->time_start)
		ob_put_json_u64(b, po->time_start);
	else
		ob_puts(b, "null");
	rb_putc(b, ',');
	put_key(b, "time_end_ns");
	if (po->time_end)
		ob_put_json_u64(b, po->time_end);
	else
		ob_puts(b, "null");
	ob_puts(b, "}},\n");
}

static void put_frame_fields(outbuf *b, const char *sym, const char *dso, bool kernel,
			     bool inlined, bool unresolved)
{
	put_str(b, "symbol", sym, true);
	put_str(b, "dso", dso, true);
	put_bool(b, "kernel", kernel, true);
	put_bool(b, "inlined", inlined, true);
	put_bool(b, "unresolved", unresolved, true);
}

static int put_entries(pd_profile *p, size_t ev, const report_opts *o, outbuf *b)
{
	const pd_flat_entry *fl;
	size_t n;
	pd_error err;
	if (pd_profile_flat(p, ev, &fl, &n, &err) < 0) {
		cli_error("%s", err.message);
		return -1;
	}
	size_t runs = pd_profile_run_count(p);
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	uint64_t min = (uint64_t)((double)total * o->percent_limit / 100.0);
	ob_puts(b, "\"entries\":[");
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		const pd_flat_entry *e = &fl[i];
		if ((o->sort_self ? e->self : e->children) < min)
			continue;
		ob_puts(b, first ? "\n{" : ",\n{");
		first = false;
		put_frame_fields(b, e->symbol, e->dso, e->kernel, e->inlined, e->unresolved);
		put_u64(b, "children", e->children, true);
		put_u64(b, "self", e->self, true);
		put_pct(b, "children_pct", e->children, total, true);
		put_pct(b, "self_pct", e->self, total, true);
		put_runs(b, "children_runs", runs, entry_children, e, true);
		put_runs(b, "self_runs", runs, entry_self, e, false);
		rb_putc(b, '}');
		if (report_flush_some(b) < 0)
			return -1;
	}
	ob_puts(b, "],\n");
	return 0;
}

typedef struct tw {
	const pd_cct_node *n;
	size_t next;
	size_t id;
} tw;

/* The tree in depth-first preorder; node ids are positions in the list. */
static int put_tree(const pd_profile *p, size_t ev, const report_opts *o, outbuf *b)
{
	size_t runs = pd_profile_run_count(p);
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	uint64_t min = (uint64_t)((double)total * o->percent_limit / 100.0);
	size_t cap = 64, depth = 0, next_id = 0;
	tw *st = malloc(cap * sizeof *st);
	if (!st)
		return -1;
	ob_puts(b, "\"tree\":[");
	const pd_cct_node *n = pd_profile_root(p, ev);
	size_t parent = SIZE_MAX;
	int rc = 0;
	for (;;) {
		if (n) {
			size_t id = next_id++;
			ob_puts(b, id ? ",\n{" : "\n{");
			put_u64(b, "id", id, true);
			put_key(b, "parent");
			if (parent == SIZE_MAX)
				ob_puts(b, "null");
			else
				ob_put_json_u64(b, parent);
			rb_putc(b, ',');
			put_frame_fields(b, pd_cct_symbol(n), pd_cct_dso(n), pd_cct_kernel(n),
					 pd_cct_inlined(n), pd_cct_unresolved(n));
			put_str(b, "unit", pd_cct_unit(n), true);
			put_u64(b, "self", pd_cct_self(n, SIZE_MAX), true);
			put_u64(b, "total", pd_cct_total(n, SIZE_MAX), true);
			put_runs(b, "self_runs", runs, node_self, n, true);
			put_runs(b, "total_runs", runs, node_total, n, false);
			rb_putc(b, '}');
			if (report_flush_some(b) < 0) {
				rc = -1;
				break;
			}
			if (depth == cap) {
				tw *x = realloc(st, 2 * cap * sizeof *x);
				if (!x) {
					rc = -1;
					break;
				}
				st = x;
				cap *= 2;
			}
			st[depth++] = (tw){ n, 0, id };
		}
		/* the next child above the limit of the deepest open node */
		n = NULL;
		while (depth && !n) {
			tw *w = &st[depth - 1];
			if (w->next == pd_cct_child_count(w->n)) {
				depth--;
				continue;
			}
			const pd_cct_node *c = pd_cct_child(w->n, w->next++);
			if (pd_cct_total(c, SIZE_MAX) >= min && pd_cct_total(c, SIZE_MAX) > 0) {
				n = c;
				parent = w->id;
			}
		}
		if (!n)
			break;
	}
	free(st);
	ob_puts(b, "]");
	return rc;
}

int report_json(pd_profile *p, const report_opts *o, outbuf *b)
{
	size_t runs = pd_profile_run_count(p);
	char tmp[64];
	ob_puts(b, "{\"schema\":\"perfdiff-report\",");
	snprintf(tmp, sizeof tmp, "\"version\":%d,", SCHEMA_VERSION);
	ob_puts(b, tmp);
	put_str(b, "generator", "perfdiff " PD_VERSION_STRING, false);
	ob_puts(b, ",\n");
	put_settings(b, o);
	ob_puts(b, "\"runs\":[");
	for (size_t r = 0; r < runs; r++) {
		ob_puts(b, r ? ",\n{" : "\n{");
		put_str(b, "path", pd_profile_run_path(p, r), true);
		put_u64(b, "lost", pd_profile_lost(p, r), false);
		rb_putc(b, '}');
	}
	ob_puts(b, "],\n\"events\":[");
	size_t nev = pd_profile_event_count(p);
	size_t *evs = malloc((nev ? nev : 1) * sizeof *evs);
	if (!evs)
		return -1;
	size_t k = report_events(p, o, evs);
	int dflt = pd_profile_default_event(p);
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0; i++) {
		size_t ev = evs[i];
		ev_ref ref = { p, ev };
		ob_puts(b, i ? ",\n{" : "\n{");
		put_str(b, "name", pd_profile_event_name(p, ev), true);
		put_bool(b, "default", dflt >= 0 && (size_t)dflt == ev, true);
		put_u64(b, "samples", pd_profile_samples(p, ev, SIZE_MAX), true);
		put_runs(b, "samples_runs", runs, ev_samples, &ref, true);
		put_u64(b, "period", pd_profile_total(p, ev, SIZE_MAX), true);
		put_runs(b, "period_runs", runs, ev_total, &ref, true);
		put_u64(b, "unresolved_period", pd_profile_unresolved(p, ev, SIZE_MAX), true);
		put_runs(b, "unresolved_period_runs", runs, ev_unresolved, &ref, true);
		put_u64(b, "nodes", pd_profile_node_count(p, ev), false);
		ob_puts(b, ",\n");
		if ((rc = put_entries(p, ev, o, b)) == 0)
			rc = put_tree(p, ev, o, b);
		rb_putc(b, '}');
	}
	free(evs);
	ob_puts(b, "]}\n");
	return rc < 0 || b->oom ? -1 : 0;
}
