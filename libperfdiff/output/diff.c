/*
 * pd_diff_write(): the options of a comparison's output checked, what
 * every diff format needs gathered once (the diff's options, each side's
 * files and runs, the robot's name of the event), then one writer per
 * format (diff_text.c for text and lkp, diff_json.c, csv.c).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "perfdiff/report.h"
#include "util/util.h"

/* How far each version of pd_diff_write_options went. */
static const size_t diff_sizes[] = {
	0, PD_OPTIONS_END(pd_diff_write_options, weight_samples),
	PD_OPTIONS_END(pd_diff_write_options, percent_limit),
	PD_OPTIONS_END(pd_diff_write_options, no_comm),
	PD_OPTIONS_END(pd_diff_write_options, show_dso),
	PD_OPTIONS_END(pd_diff_write_options, all_origins),
};

int pd_diff_write_options_init(pd_diff_write_options *o, unsigned version)
{
	const pd_diff_write_options d = PD_DIFF_WRITE_OPTIONS_INIT;
	return pd_options_init(o, version, &d, diff_sizes, PD_DIFF_WRITE_OPTIONS_VERSION);
}

int pdo_diff_options(pd_diff_write_options *out, const pd_diff_write_options *o,
		     pd_error *err)
{
	*out = PD_DIFF_WRITE_OPTIONS_INIT;
	if (!o)
		return 0;
	int rc = pd_options_import(out, o, diff_sizes, PD_DIFF_WRITE_OPTIONS_VERSION,
				   "pd_diff_write_options", "output", err);
	if (rc == 0 && (unsigned)out->sort > PD_DIFF_SORT_NAME)
		rc = pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no diff sort %d",
				  (int)out->sort);
	if (rc == 0 && !(out->percent_limit >= 0 && out->percent_limit <= 100))
		rc = pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				  "percent_limit must be from 0 to 100");
	return rc;
}

bool pdo_row_kept(const pdo_diff *v, const pd_diff_row *r)
{
	if (v->percent_limit <= 0)
		return true;
	if (r->metric == PD_DIFF_SHIFT)
		return !r->relation || pdo_rel_listed(v, r->relation);
	return r->base.mean >= v->percent_limit || r->new.mean >= v->percent_limit;
}

bool pdo_rel_listed(const pdo_diff *v, const pd_diff_relation *rel)
{
	if (v->rel_kept) {
		size_t n = pd_diff_relation_count(v->d);
		for (size_t i = 0; i < n; i++)
			if (pd_diff_relation_at(v->d, i) == rel && !v->rel_kept[i])
				return false;
	}
	return v->all || (rel->row && rel->row->significant) || rel->rows_significant;
}

/* ---- a side in a title ---- */

/* The length of the directories all `n` paths share ("a/b/" of "a/b/x"
 * and "a/b/y"), so that what tells the runs apart is what is shown. */
static size_t shared_dirs(const char *const *p, size_t n)
{
	size_t len = 0, dir = 0;
	for (;; len++) {
		char c = p[0][len];
		for (size_t i = 1; i < n; i++)
			if (p[i][len] != c)
				return dir;
		if (c == '\0')
			return dir;
		if (c == '/')
			dir = len + 1;
	}
}

void pdo_side_name(const pdo_diff *v, int side, char *buf, size_t n)
{
	size_t k = v->nfiles[side];
	const char *const *f = v->files[side];
	if (k <= 1) {
		snprintf(buf, n, "%s", k ? f[0] : side ? "new" : "base");
		return;
	}
	size_t skip = shared_dirs(f, k), more = 24;  /* room for " and 999 more" */
	size_t at = (size_t)snprintf(buf, n, "%zu runs: ", k);
	for (size_t i = 0; i < k && at < n; i++) {
		const char *name = f[i] + skip;
		size_t len = strlen(name) + (i ? 2 : 0);
		bool last = i + 1 == k;
		if (at + len + (last ? 0 : more) >= n && i > 0) {
			snprintf(buf + at, n - at, " and %zu more", k - i);
			return;
		}
		at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", name);
	}
}

/* ---- the largest changes, when nothing is significant ---- */

static double magnitude(double x)
{
	return x < 0 ? -x : x;
}

/* Whether anything is written as significant: a row or a listed shift. */
static bool any_shown(const pdo_diff *v)
{
	for (size_t i = 0; i < pd_diff_row_count(v->d); i++)
		if (pdo_row_shown(v, pd_diff_row_at(v->d, i)))
			return true;
	for (size_t i = 0; i < pd_diff_relation_count(v->d); i++)
		if (pdo_rel_listed(v, pd_diff_relation_at(v->d, i)))
			return true;
	return false;
}

static bool largest_candidate(const pdo_diff *v, const pd_diff_row *r)
{
	return r->metric != PD_DIFF_SHIFT && r->metric != PD_DIFF_TREE &&
	       pdo_row_kept(v, r) && magnitude(r->change) >= 0.05;
}

size_t pdo_largest_changes(const pdo_diff *v, size_t *out, size_t max)
{
	if (v->all || max == 0 || any_shown(v))
		return 0;
	size_t n = 0;
	/* insertion into the few kept: stable, as the rows come in order */
	for (size_t k = 0; k < pd_diff_row_count(v->d); k++) {
		const pd_diff_row *r = pdo_diff_row(v, k);
		if (!largest_candidate(v, r))
			continue;
		size_t at = n;
		while (at > 0 && magnitude(pd_diff_row_at(v->d, out[at - 1])->change) <
					 magnitude(r->change))
			at--;
		if (at == max)
			continue;
		if (n < max)
			n++;
		memmove(out + at + 1, out + at, (n - 1 - at) * sizeof *out);
		out[at] = v->order[k];
	}
	return n;
}

/* ---- the order of the rows (--sort) ---- */

typedef struct sort_ref {
	const pd_diff_row *r;
	size_t i;
	pd_diff_sort by;
} sort_ref;

static int cmp_rows(const void *a, const void *b)
{
	const sort_ref *x = a, *y = b;
	if (x->r->metric != y->r->metric)
		return x->r->metric < y->r->metric ? -1 : 1;
	int c = 0;
	if (x->by == PD_DIFF_SORT_ABS_CHANGE && magnitude(x->r->change) != magnitude(y->r->change))
		c = magnitude(x->r->change) > magnitude(y->r->change) ? -1 : 1;
	else if (x->by == PD_DIFF_SORT_NAME && !(c = strcmp(x->r->key ? x->r->key : "",
							    y->r->key ? y->r->key : "")))
		c = strcmp(x->r->dso ? x->r->dso : "", y->r->dso ? y->r->dso : "");
	/* the diff's own order (by change) among equals */
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* The rows' indices in the order `by`, malloc'd; NULL without memory. */
static size_t *row_order(const pd_diff *d, pd_diff_sort by)
{
	size_t n = pd_diff_row_count(d);
	size_t *order = malloc((n ? n : 1) * sizeof *order);
	sort_ref *refs = malloc((n ? n : 1) * sizeof *refs);
	if (order && refs) {
		for (size_t i = 0; i < n; i++)
			refs[i] = (sort_ref){ pd_diff_row_at(d, i), i, by };
		if (by != PD_DIFF_SORT_CHANGE)
			qsort(refs, n, sizeof *refs, cmp_rows);
		for (size_t i = 0; i < n; i++)
			order[i] = refs[i].i;
	} else {
		free(order);
		order = NULL;
	}
	free(refs);
	return order;
}

/* Per relation: whether a row it explains reaches the percent limit;
 * NULL without a limit, or without memory (*failed then). */
static bool *relations_kept(const pdo_diff *v, bool *failed)
{
	size_t nrel = pd_diff_relation_count(v->d), n = pd_diff_row_count(v->d);
	*failed = false;
	if (v->percent_limit <= 0 || nrel == 0)
		return NULL;
	bool *kept = calloc(nrel, sizeof *kept);
	if (!kept) {
		*failed = true;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const pd_diff_row *r = pd_diff_row_at(v->d, i);
		if (!r->relation || r->metric == PD_DIFF_SHIFT || !pdo_row_kept(v, r))
			continue;
		for (size_t k = 0; k < nrel; k++)
			if (pd_diff_relation_at(v->d, k) == r->relation)
				kept[k] = true;
	}
	return kept;
}

/* The side's files as given, else its runs' paths (`paths` has room for
 * the runs). */
static void side_files(pdo_diff *v, int side, const pd_diff_write_options *o,
		       const char **paths)
{
	const pd_profile *p = pd_diff_profile(v->d, side);
	v->nruns[side] = pd_diff_run_count(v->d, side);
	if (o->files[side]) {
		v->files[side] = o->files[side];
		v->nfiles[side] = o->nfiles[side];
		return;
	}
	size_t col[2];
	const pd_lkp_table *t = pd_diff_lkp_table(v->d, &col[0], &col[1]);
	if (t) {  /* a robot's table: its commit */
		paths[0] = t->commits[col[side]];
		v->files[side] = paths;
		v->nfiles[side] = 1;
		return;
	}
	for (size_t r = 0; r < v->nruns[side]; r++)
		paths[r] = pd_profile_run_path(p, r);
	v->files[side] = paths;
	v->nfiles[side] = v->nruns[side];
}

static int dispatch(const pdo_diff *v, pd_format f)
{
	switch (f) {
	case PD_FORMAT_LKP:
		return pdo_diff_lkp(v);
	case PD_FORMAT_JSON:
		return pdo_diff_json(v);
	case PD_FORMAT_CSV:
		return pdo_diff_csv(v);
	case PD_FORMAT_HTML:
		return pdo_diff_html(v);
	case PD_FORMAT_SVG:
		return pdo_diff_svg(v);
	default:
		return pdo_diff_text(v);
	}
}

void pdo_diff_columns(pdo_diff *v, bool comm, bool dso)
{
	v->col_comm = comm ? 7 : 0;
	v->col_dso = dso ? 13 : 0;
	for (size_t i = 0; i < pd_diff_row_count(v->d); i++) {
		const pd_diff_row *r = pd_diff_row_at(v->d, i);
		size_t c = r->process ? strlen(r->process) : 1;
		size_t d = r->dso ? strlen(pdo_short_dso(r->dso)) : 1;
		if (comm && c > v->col_comm)
			v->col_comm = c;
		if (dso && d > v->col_dso)
			v->col_dso = d;
	}
}

/* Each side's facts (facts.c) of the event compared. */
static int side_facts(pdo_diff *v)
{
	size_t ev[2];
	pd_profile *p[2] = { (pd_profile *)pd_diff_profile(v->d, 0),
			     (pd_profile *)pd_diff_profile(v->d, 1) };
	bool have_ev = pd_diff_events(p[0], p[1], pd_diff_event(v->d), ev, NULL) == 0;
	for (int side = 0; side < 2; side++)
	{
		if (pdo_facts_get(&v->facts[side], p[side], have_ev ? ev[side] : SIZE_MAX,
				  v->files[side], v->nfiles[side]) < 0)
			return pdo_nomem(v->err);
		v->facts[side].all_origins = v->all_origins;
	}
	return 0;
}

/* The order, the kept relations and the facts, then the format. */
static int prepare_and_write(pdo_diff *v, pd_format f)
{
	bool failed;
	size_t *order = row_order(v->d, v->opts_sort);
	bool *kept = relations_kept(v, &failed);
	int rc = !order || failed ? pdo_nomem(v->err) : side_facts(v);
	v->order = order;
	v->rel_kept = kept;
	if (rc == 0)
		rc = dispatch(v, f);
	pdo_facts_free(&v->facts[0]);
	pdo_facts_free(&v->facts[1]);
	free(order);
	free(kept);
	return rc;
}

static int write_view(pdo_diff *v, const pd_diff_write_options *o)
{
	const char **paths[2] = { NULL, NULL };
	int rc = 0;
	for (int side = 0; side < 2 && rc == 0; side++) {
		size_t runs = pd_diff_run_count(v->d, side);
		if (!o->files[side] && !(paths[side] = calloc(runs ? runs : 1, sizeof(char *))))
			rc = pdo_nomem(v->err);
		else
			side_files(v, side, o, paths[side]);
	}
	if (rc == 0)
		rc = prepare_and_write(v, o->format);
	free(paths[0]);
	free(paths[1]);
	return rc;
}

int pd_diff_write(pd_writer *w, const pd_diff *d, const pd_diff_write_options *o,
		  pd_error *err)
{
	if (!w || !d)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no writer or diff given");
	pd_diff_write_options opts;
	int rc = pdo_diff_options(&opts, o, err);
	if (rc == 0)
		rc = pdo_format_check(opts.format, PDO_BIT(PD_FORMAT_TEXT) | PDO_BIT(PD_FORMAT_LKP) |
				      PDO_BIT(PD_FORMAT_JSON) | PDO_BIT(PD_FORMAT_CSV) |
				      PDO_BIT(PD_FORMAT_HTML) | PDO_BIT(PD_FORMAT_SVG) |
				      PDO_BIT(PD_FORMAT_FOLDED), "a diff", err);
	if (rc < 0)
		return rc;
	if (opts.format == PD_FORMAT_FOLDED && pd_diff_lkp_table(d, NULL, NULL))
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "a robot's table has no stacks to fold");
	if (opts.format == PD_FORMAT_FOLDED) {
		rc = pdo_diff_folded(w, d, &opts, err);
		return rc < 0 ? rc : pdo_done(w, err);
	}
	pdo_diff v = { .w = w, .d = d, .all = opts.all, .all_origins = opts.all_origins,
		       .color = opts.color,
		       .percent_limit = opts.percent_limit, .opts_sort = opts.sort, .err = err };
	pd_diff_options_get(d, &v.opts, PD_DIFF_OPTIONS_VERSION);
	if (opts.percent_limit > 0 && (v.opts.flags & PD_DIFF_ABSOLUTE))
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "a percent limit does not go with absolute values (rates)");
	pd_lkp_event_name(pd_diff_event(d), v.event, sizeof v.event);
	pd_peek *pk = NULL;
	if (opts.peek && opts.format != PD_FORMAT_TEXT && opts.format != PD_FORMAT_JSON)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "a peek is written as text or JSON only");
	if (opts.peek && (rc = pd_diff_peek(d, opts.peek, &pk, err)) < 0)
		return rc;
	v.peek = pk;
	v.peek_regex = opts.peek;
	pdo_diff_columns(&v, opts.show_comm, opts.show_dso);
	if (pk && opts.format == PD_FORMAT_TEXT)
		pdo_peek_text(w, pk, opts.peek, true);
	else
		rc = write_view(&v, &opts);
	pd_peek_free(pk);
	return rc < 0 ? rc : pdo_done(w, err);
}
