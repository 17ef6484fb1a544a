/*
 * pd_diff_new_lkp(): a diff of two columns of a robot's table, through
 * the same stages as a diff of profiles (diff.c) but for where the trees,
 * the rows, the facts and the test come from:
 *
 *   trees   rebuilt from the keys (keytree.c);
 *   rows    the table's perf-profile rows of the event, keyed as the
 *           robot keys them (PD_DIFF_LKP_KEYS), each with its values;
 *   facts   what the aligner asks of the builds, answered from the table:
 *           a function is defined on a side when a key of it has a value
 *           there, absent when its keys are 0.00 in every run there (the
 *           robot's print of a key no run had); an inlining is confirmed
 *           by the new commit's subject line when it names the callee and
 *           says it is inlined (or, for an outlining, un-inlined);
 *   test    Welch's t on the table's means, standard deviations and runs
 *           (keystats.c).
 *
 * Alignment, relations, shift rows and the aligned tree are the diff's
 * own (align*.c, relations.c, nodes.c).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* ------------------------------------------------------------ facts */

/* The facts' index: per side, the hash of a function's name → its
 * fact + 1 (DT_FACT_NO, or DT_FACT_YES once some run had one of its rows). */
typedef struct key_facts {
	const pd_diff *d;
	pd_u64map fact[2];
} key_facts;

/* The function row `r` is of: its name, or a calltrace's first frame. */
static uint64_t function_hash(const pd_lkp_row *r)
{
	size_t n = r->metric == PD_LKP_CALLTRACE ? strcspn(r->name, ".") : strlen(r->name);
	return pd_hash_bytes(PD_HASH_INIT, r->name, n);
}

static int key_facts_init(key_facts *f, const pd_diff *d)
{
	f->d = d;
	int rc = 0;
	for (int s = 0; s < 2; s++)
		pd_u64map_init(&f->fact[s]);
	for (size_t i = 0; i < d->lkp->nrows && rc == 0; i++) {
		const pd_lkp_row *r = &d->lkp->rows[i];
		if (strcmp(r->event, d->event) != 0)
			continue;
		uint64_t h = function_hash(r);
		for (int s = 0; s < 2 && rc == 0; s++) {
			const pd_lkp_cell *c = &r->cells[d->lkp_col[s]];
			bool seen = c->mean > 0 || c->stddev_pct >= 0;  /* some run had it */
			if ((uintptr_t)pd_u64map_get(&f->fact[s], h) == DT_FACT_YES + 1)
				continue;
			rc = pd_u64map_put(&f->fact[s], h,
					   (void *)(uintptr_t)((seen ? DT_FACT_YES : DT_FACT_NO) + 1));
		}
	}
	return rc < 0 ? PD_ENOMEM : 0;
}

static void key_facts_free(key_facts *f)
{
	pd_u64map_free(&f->fact[0]);
	pd_u64map_free(&f->fact[1]);
}

static int keys_defined(void *ctx, int side, const char *dso, const char *name)
{
	const key_facts *f = ctx;
	(void)dso;
	uintptr_t v = (uintptr_t)pd_u64map_get(&f->fact[side],
					       pd_hash_bytes(PD_HASH_INIT, name, strlen(name)));
	return v ? (int)(v - 1) : DT_FACT_UNKNOWN;
}

/* Does `text` name `fn` as a word ("fn" or "fn()")? */
static bool names_function(const char *text, const char *fn)
{
	size_t n = strlen(fn);
	for (const char *at = strstr(text, fn); n && at; at = strstr(at + 1, fn)) {
		char before = at > text ? at[-1] : ' ', after = at[n];
		if (!isalnum((unsigned char)before) && before != '_' &&
		    !isalnum((unsigned char)after) && after != '_')
			return true;
	}
	return false;
}

/* The subject says the function is inlined (`in`) or un-inlined. */
static bool says_inline(const char *subject, bool in)
{
	static const char *const out_words[] = { "uninline", "noinline", "out of line",
						 "out-of-line", "don't inline", "do not inline",
						 "outline" };
	for (size_t i = 0; i < sizeof out_words / sizeof *out_words; i++)
		if (strcasestr(subject, out_words[i]))
			return !in;
	return in && strcasestr(subject, "inline") != NULL;
}

static int keys_inlined(void *ctx, int side, const char *dso, const char *callee,
			const char *caller)
{
	const pd_diff *d = ((const key_facts *)ctx)->d;
	(void)dso;
	(void)caller;  /* the subject names the callee; the trees name its caller */
	const char *subject = d->lkp->subjects[d->lkp_col[1]];
	if (!subject || !names_function(subject, callee) || !says_inline(subject, side == 1))
		return DT_FACT_UNKNOWN;
	return DT_FACT_YES;
}

/* ------------------------------------------------------------ rows */

static int key_rows(pd_diff *d, pd_error *err)
{
	static const pd_diff_metric metric[] = { PD_DIFF_CALLTRACE, PD_DIFF_CHILDREN,
						 PD_DIFF_SELF };
	const pd_lkp_table *t = d->lkp;
	for (size_t i = 0; i < t->nrows; i++) {
		const pd_lkp_row *r = &t->rows[i];
		if (strcmp(r->event, d->event) != 0)
			continue;
		uint32_t k = pd_diff_row_get(d, metric[r->metric], r->name, strlen(r->name),
					     DT_NONE);
		if (k == DT_NONE)
			return pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
		dt_row *row = &d->rows[k];
		if (row->lkp)
			continue;  /* a key listed twice: the first stays */
		row->lkp = r;
		const char *dot = r->metric == PD_LKP_CALLTRACE ? strchr(r->name, '.') : NULL;
		row->pub.symbol = dot ? pd_arena_strndup(&d->arena, r->name, (size_t)(dot - r->name))
				      : row->pub.key;
		if (!row->pub.symbol)
			return pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
		for (int s = 0; s < 2; s++) {
			const pd_lkp_cell *c = &r->cells[d->lkp_col[s]];
			for (size_t run = 0; run < d->nruns[s]; run++)
				row->vals[(s ? d->nruns[0] : 0) + run] =
					c->runs && run < c->nruns ? c->runs[run] : c->mean;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ setup */

static int check_input(const pd_lkp_table *t, size_t bc, size_t nc, const char *event,
		       const pd_diff_options *o, pd_error *err)
{
	const char *bad = NULL;
	if (!t)
		bad = "no table given";
	else if (bc >= t->ncolumns || nc >= t->ncolumns || bc == nc)
		bad = "two different columns of the table needed";
	else if (o->flags & PD_DIFF_ABSOLUTE)
		bad = "a table's shares have no absolute values";
	else if (t->nevents == 0)
		bad = "the table has no perf-profile rows";
	if (bad)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET, "%s", bad);
	for (size_t i = 0; event && i < t->nevents; i++)
		if (strcmp(t->events[i], event) == 0)
			return 0;
	if (event)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET,
				    "the table has no rows of event '%s' (it has '%s'%s)", event,
				    t->events[0], t->nevents > 1 ? " and others" : "");
	return 0;
}

/* Units, blocks (none) and the trees. */
static int setup(pd_diff *d, pd_error *err)
{
	const pd_lkp_table *t = d->lkp;
	for (int s = 0; s < 2; s++) {
		size_t R = t->runs_source == PD_LKP_RUNS_COUNTED ? t->runs[d->lkp_col[s]] : 1;
		d->nruns[s] = R ? R : 1;
		d->lkp_runs[s] = t->runs[d->lkp_col[s]];
		d->unit[s] = pd_arena_alloc(&d->arena, d->nruns[s] * sizeof(double));
		d->sunit[s] = pd_arena_alloc(&d->arena, d->nruns[s] * sizeof(double));
		d->nblocks[s] = pd_arena_alloc(&d->arena, d->nruns[s] * sizeof(size_t));
		if (!d->unit[s] || !d->sunit[s] || !d->nblocks[s])
			return pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
		for (size_t r = 0; r < d->nruns[s]; r++) {
			d->unit[s][r] = d->sunit[s][r] = 1.0 / KT_SCALE;
			d->nblocks[s][r] = 1;
		}
	}
	kt_input in = { t, { d->lkp_col[0], d->lkp_col[1] }, d->event,
			{ d->nruns[0], d->nruns[1] } };
	int rc = kt_build_trees(&in, &d->keys, &d->arena, d->tree);
	if (rc < 0)
		return pd_error_set(err, rc, "diff", PD_NO_OFFSET,
				    "out of memory while rebuilding the trees");
	return 0;
}

static int align(pd_diff *d, pd_error *err)
{
	const char *subject = d->lkp->subjects[d->lkp_col[1]];
	char *from = NULL;
	if (subject) {
		size_t n = strlen(subject) + 32;
		if ((from = pd_arena_alloc(&d->arena, n)))
			snprintf(from, n, "the commit subject \"%s\"", subject);
	}
	key_facts kf;
	int rc = key_facts_init(&kf, d);
	dt_facts facts = { keys_defined, keys_inlined, &kf, "keys", { from, from } };
	if (rc == 0)
		rc = dt_align_run(&d->align, &d->tree[0], &d->tree[1], &d->opts, &facts);
	key_facts_free(&kf);
	if (rc < 0)
		return pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory while aligning");
	return 0;
}

int pd_diff_new_lkp(pd_diff **out, const pd_lkp_table *table, size_t base_col,
		    size_t new_col, const char *event, const pd_diff_options *opts,
		    pd_error *err)
{
	if (!out)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET, "no output pointer given");
	*out = NULL;
	pd_diff_options o;
	int rc = pd_diff_import_options(&o, opts, err);
	if (rc == 0)
		rc = check_input(table, base_col, new_col, event, &o, err);
	if (rc < 0)
		return rc;
	o.flags |= PD_DIFF_LKP_KEYS;
	pd_diff *d = pd_diff_alloc(&o);
	if (!d)
		return pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
	d->lkp = table;
	d->lkp_col[0] = base_col;
	d->lkp_col[1] = new_col;
	const char *ev = event ? event : table->events[0];
	d->event = pd_arena_strndup(&d->arena, ev, strlen(ev));
	d->opts.event = d->event;
	if (!d->event)
		rc = pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
	if (rc == 0)
		rc = setup(d, err);
	if (rc == 0)
		rc = align(d, err);
	if (rc == 0)
		rc = key_rows(d, err);
	if (rc == 0 && (rc = pd_diff_collect_relations(d)) < 0)
		pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory");
	d->test = PD_DIFF_TEST_TABLE;
	if (rc == 0)
		rc = pd_diff_key_stats(d, err);
	if (rc == 0)
		rc = pd_diff_publish(d, err);
	if (rc < 0) {
		pd_diff_free(d);
		return rc;
	}
	*out = d;
	return 0;
}
