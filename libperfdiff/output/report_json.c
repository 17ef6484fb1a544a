/*
 * pd_report_write() in JSON: the whole profile in one document (schema
 * "perfdiff.report/1", docs/report-json.md): settings, runs, and per
 * event its totals, its rows and its calling-context tree as a list of
 * nodes with parent ids.  Written straight to the writer, one row or node
 * per line, because a system-wide profile has hundreds of thousands of
 * nodes and building a tree of JSON objects for them would cost more than
 * folding them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "util/util.h"

#define SCHEMA "perfdiff.report/1"
/* "version" as the schema's number, kept for readers of the old
 * "perfdiff-report" name, which only had it */
#define SCHEMA_VERSION "1"

/* A number formatted with printf (a percentage with 4 decimals). */
static void key_num(pd_writer *w, const char *k, const char *fmt, double x)
{
	char tmp[48];
	if (snprintf(tmp, sizeof tmp, fmt, x) < 0)
		tmp[0] = '\0';
	pdo_json_key(w, k);
	pdo_json_raw(w, tmp);
}

static void key_pct(pd_writer *w, const char *k, uint64_t v, uint64_t total)
{
	key_num(w, k, "%.4f", total ? 100.0 * (double)v / (double)total : 0.0);
}

/* A time filter's bound, null when unset. */
static void key_time(pd_writer *w, const char *k, uint64_t t)
{
	if (t)
		pdo_json_key_u64(w, k, t);
	else
		pdo_json_key_str(w, k, NULL);
}

typedef uint64_t (*run_value)(const void *obj, size_t run);

static void key_runs(pd_writer *w, const char *k, size_t runs, run_value f, const void *obj)
{
	pdo_json_key(w, k);
	pdo_json_open(w, '[');
	for (size_t r = 0; r < runs; r++) {
		pdo_json_item(w);
		pdo_json_u64(w, f(obj, r));
	}
	pdo_json_close(w, ']');
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

/* A list filter as the command line gives it, its values joined by
 * commas; null when it has none. */
static void key_names(pd_writer *w, const char *k, const char *const *v, size_t n)
{
	pd_buf b = { 0 };
	for (size_t i = 0; i < n; i++)
		if ((i && pd_buf_append(&b, ",", 1) < 0) || pd_buf_append(&b, v[i], strlen(v[i])) < 0)
			w->failed = PD_ENOMEM;
	if (n && pd_buf_append(&b, "", 1) < 0)
		w->failed = PD_ENOMEM;
	pdo_json_key_str(w, k, n && !w->failed ? (const char *)b.data : NULL);
	pd_buf_free(&b);
}

static void key_ids(pd_writer *w, const char *k, const uint32_t *v, size_t n)
{
	pd_buf b = { 0 };
	for (size_t i = 0; i < n; i++) {
		char num[16];
		int len = snprintf(num, sizeof num, "%s%" PRIu32, i ? "," : "", v[i]);
		if (pd_buf_append(&b, num, (size_t)len) < 0)
			w->failed = PD_ENOMEM;
	}
	if (n && pd_buf_append(&b, "", 1) < 0)
		w->failed = PD_ENOMEM;
	pdo_json_key_str(w, k, n && !w->failed ? (const char *)b.data : NULL);
	pd_buf_free(&b);
}

static void put_filters(pd_writer *w, const pd_profile_options *po)
{
	pdo_json_key(w, "filters");
	pdo_json_open(w, '{');
	key_names(w, "comm", po->comms, po->ncomms);
	key_ids(w, "pid", po->pids, po->npids);
	key_ids(w, "tid", po->tids, po->ntids);
	key_ids(w, "cpu", po->cpus, po->ncpus);
	key_names(w, "dso", po->dsos, po->ndsos);
	key_time(w, "time_start_ns", po->time_start);
	key_time(w, "time_end_ns", po->time_end);
	pdo_json_close(w, '}');
}

static void put_settings(const pdo_report *r)
{
	pd_writer *w = r->w;
	const pd_profile_options *po = r->popts;
	pdo_json_key(w, "settings");
	pdo_json_open(w, '{');
	pdo_json_key_bool(w, "keep_suffixes", po->flags & PD_PROFILE_KEEP_SUFFIXES);
	pdo_json_key_bool(w, "hide_unresolved", po->flags & PD_PROFILE_HIDE_UNRESOLVED);
	pdo_json_key_bool(w, "perf_compat", po->session->flags & PD_SESSION_PERF_COMPAT);
	pdo_json_key_bool(w, "inline", !(po->session->flags & PD_SESSION_NO_INLINE));
	pdo_json_key_bool(w, "demangle", !(po->session->flags & PD_SESSION_NO_DEMANGLE));
	key_num(w, "percent_limit", "%g", r->o.percent_limit);
	put_filters(w, po);
	pdo_json_close(w, '}');
}

static void put_frame_fields(pd_writer *w, const char *sym, const char *dso, bool kernel,
			     bool inlined, bool unresolved)
{
	pdo_json_key_str(w, "symbol", sym);
	pdo_json_key_str(w, "dso", dso);
	pdo_json_key_bool(w, "kernel", kernel);
	pdo_json_key_bool(w, "inlined", inlined);
	pdo_json_key_bool(w, "unresolved", unresolved);
}

static void put_entry(pd_writer *w, const pd_flat_entry *e, uint64_t total, size_t runs)
{
	pdo_json_newline(w);
	pdo_json_open(w, '{');
	put_frame_fields(w, e->symbol, e->dso, e->kernel, e->inlined, e->unresolved);
	pdo_json_key_u64(w, "children", e->children);
	pdo_json_key_u64(w, "self", e->self);
	key_pct(w, "children_pct", e->children, total);
	key_pct(w, "self_pct", e->self, total);
	key_runs(w, "children_runs", runs, entry_children, e);
	key_runs(w, "self_runs", runs, entry_self, e);
	pdo_json_close(w, '}');
}

static int put_entries(const pdo_report *r, size_t ev)
{
	const pd_flat_entry *fl;
	size_t n;
	int rc = pd_profile_flat(r->p, ev, &fl, &n, r->err);
	if (rc < 0)
		return rc;
	size_t runs = pd_profile_run_count(r->p);
	uint64_t total = pd_profile_total(r->p, ev, SIZE_MAX);
	uint64_t min = (uint64_t)((double)total * r->o.percent_limit / 100.0);
	pdo_json_key(r->w, "entries");
	pdo_json_open(r->w, '[');
	for (size_t i = 0; i < n && !r->w->failed; i++)
		if ((r->o.sort_self ? fl[i].self : fl[i].children) >= min)
			put_entry(r->w, &fl[i], total, runs);
	pdo_json_close(r->w, ']');
	return 0;
}

static void put_node(pd_writer *w, const pd_cct_node *n, size_t id, size_t parent, size_t runs)
{
	pdo_json_newline(w);
	pdo_json_open(w, '{');
	pdo_json_key_u64(w, "id", id);
	if (parent == SIZE_MAX)
		pdo_json_key_str(w, "parent", NULL);
	else
		pdo_json_key_u64(w, "parent", parent);
	put_frame_fields(w, pd_cct_symbol(n), pd_cct_dso(n), pd_cct_kernel(n),
			 pd_cct_inlined(n), pd_cct_unresolved(n));
	pdo_json_key_str(w, "unit", pd_cct_unit(n));
	pdo_json_key_u64(w, "self", pd_cct_self(n, SIZE_MAX));
	pdo_json_key_u64(w, "total", pd_cct_total(n, SIZE_MAX));
	key_runs(w, "self_runs", runs, node_self, n);
	key_runs(w, "total_runs", runs, node_total, n);
	pdo_json_close(w, '}');
}

typedef struct tw {
	const pd_cct_node *n;
	size_t next;
	size_t id;
} tw;

typedef struct tree_walk {
	tw *st;
	size_t depth, cap;
	uint64_t min;
} tree_walk;

/* The next child above the limit of the deepest open node, its parent's
 * id in *parent; NULL when the walk is over. */
static const pd_cct_node *next_node(tree_walk *t, size_t *parent)
{
	while (t->depth) {
		tw *x = &t->st[t->depth - 1];
		if (x->next == pd_cct_child_count(x->n)) {
			t->depth--;
			continue;
		}
		const pd_cct_node *c = pd_cct_child(x->n, x->next++);
		uint64_t total = pd_cct_total(c, SIZE_MAX);
		if (total >= t->min && total > 0) {
			*parent = x->id;
			return c;
		}
	}
	return NULL;
}

static bool push_node(tree_walk *t, const pd_cct_node *n, size_t id)
{
	if (t->depth == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		tw *x = realloc(t->st, cap * sizeof *x);
		if (!x)
			return false;
		t->st = x;
		t->cap = cap;
	}
	t->st[t->depth++] = (tw){ n, 0, id };
	return true;
}

/* The tree in depth-first preorder; node ids are positions in the list. */
static int put_tree(const pdo_report *r, size_t ev)
{
	size_t runs = pd_profile_run_count(r->p);
	uint64_t total = pd_profile_total(r->p, ev, SIZE_MAX);
	tree_walk t = { .min = (uint64_t)((double)total * r->o.percent_limit / 100.0) };
	pdo_json_key(r->w, "tree");
	pdo_json_open(r->w, '[');
	const pd_cct_node *n = pd_profile_root(r->p, ev);
	size_t parent = SIZE_MAX, next_id = 0;
	int rc = 0;
	for (; n && rc == 0; n = next_node(&t, &parent)) {
		size_t id = next_id++;
		put_node(r->w, n, id, parent, runs);
		if (pdo_flush_some(r->w) < 0)
			break;
		if (!push_node(&t, n, id))
			rc = pdo_nomem(r->err);
	}
	free(t.st);
	pdo_json_close(r->w, ']');
	return rc;
}

static int put_event(const pdo_report *r, size_t ev)
{
	pd_writer *w = r->w;
	size_t runs = pd_profile_run_count(r->p);
	int dflt = pd_profile_default_event(r->p);
	ev_ref ref = { r->p, ev };
	pdo_json_newline(w);
	pdo_json_open(w, '{');
	pdo_json_key_str(w, "name", pd_profile_event_name(r->p, ev));
	pdo_json_key_bool(w, "default", dflt >= 0 && (size_t)dflt == ev);
	pdo_json_key_u64(w, "samples", pd_profile_samples(r->p, ev, SIZE_MAX));
	key_runs(w, "samples_runs", runs, ev_samples, &ref);
	pdo_json_key_u64(w, "period", pd_profile_total(r->p, ev, SIZE_MAX));
	key_runs(w, "period_runs", runs, ev_total, &ref);
	pdo_json_key_u64(w, "unresolved_period", pd_profile_unresolved(r->p, ev, SIZE_MAX));
	key_runs(w, "unresolved_period_runs", runs, ev_unresolved, &ref);
	pdo_json_key_u64(w, "nodes", pd_profile_node_count(r->p, ev));
	uint64_t fewest = UINT64_MAX;
	for (size_t run = 0; run < runs; run++)
		if (pd_profile_samples(r->p, ev, run) < fewest)
			fewest = pd_profile_samples(r->p, ev, run);
	pdo_json_key_bool(w, "too_few_samples", runs && fewest < PDO_FEW_SAMPLES);
	pdo_stack_filters_json(w, r->p, ev);
	int rc = 0;
	if (r->o.peek) {
		pdo_json_newline(w);
		rc = pdo_report_peek(r, ev);
	}
	pdo_json_newline(w);
	if (rc == 0)
		rc = put_entries(r, ev);
	if (rc == 0) {
		pdo_json_newline(w);
		rc = put_tree(r, ev);
	}
	pdo_json_close(w, '}');
	return rc;
}

/* The filter values that matched no sample (facts.c). */
static void put_unmatched(const pdo_report *r)
{
	const char **v;
	size_t n = pdo_unmatched_filters(r->p, &v);
	pdo_json_key(r->w, "unmatched_filters");
	pdo_json_open(r->w, '[');
	for (size_t i = 0; i < n; i++) {
		pdo_json_item(r->w);
		pdo_json_str(r->w, v[i]);
	}
	pdo_json_close(r->w, ']');
	free(v);
}

static void put_runs(const pdo_report *r)
{
	pdo_json_key(r->w, "runs");
	pdo_json_open(r->w, '[');
	for (size_t i = 0; i < pd_profile_run_count(r->p); i++) {
		pdo_json_newline(r->w);
		pdo_json_open(r->w, '{');
		pdo_json_key_str(r->w, "path", pd_profile_run_path(r->p, i));
		pdo_json_key_u64(r->w, "lost", pd_profile_lost(r->p, i));
		pdo_json_key_u64(r->w, "samples_read", pd_profile_run_samples_read(r->p, i));
		pdo_json_key_bool(r->w, "truncated", pd_profile_run_truncated(r->p, i));
		pdo_json_close(r->w, '}');
	}
	pdo_json_close(r->w, ']');
}

int pdo_report_json(const pdo_report *r)
{
	pd_writer *w = r->w;
	size_t nev = pd_profile_event_count(r->p);
	size_t *evs = malloc((nev ? nev : 1) * sizeof *evs);
	if (!evs)
		return pdo_nomem(r->err);
	pdo_json_open(w, '{');
	pdo_json_key_str(w, "schema", SCHEMA);
	pdo_json_key(w, "version");
	pdo_json_raw(w, SCHEMA_VERSION);
	pdo_json_key_str(w, "generator", "perfdiff " PD_VERSION_STRING);
	pdo_json_newline(w);
	put_settings(r);
	pdo_json_newline(w);
	put_runs(r);
	put_unmatched(r);
	pdo_origins_json(w, r->p);
	pdo_json_newline(w);
	pdo_json_key(w, "events");
	pdo_json_open(w, '[');
	size_t k = pdo_report_events(r, evs);
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0; i++)
		rc = put_event(r, evs[i]);
	free(evs);
	pdo_json_close(w, ']');
	pdo_json_close(w, '}');
	pdo_json_end(w);
	return rc;
}
