/*
 * The pd_diff object: options, choosing the event on both sides, the
 * order of the stages (trees → alignment → rows and statistics →
 * relations) and the accessors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *pd_diff_metric_name(pd_diff_metric m)
{
	static const char *const names[] = { "calltrace", "children", "self", "tree", "shift" };
	return (unsigned)m < 5 ? names[m] : NULL;
}

const char *pd_diff_relation_kind_name(pd_diff_relation_kind k)
{
	static const char *const names[] = { "renamed", "inlined", "outlined",
					     "split",   "merged",  "moved" };
	return (unsigned)k < 6 ? names[k] : NULL;
}

/* How far each version of pd_diff_options went. */
static const size_t diff_sizes[] = {
	0, PD_OPTIONS_END(pd_diff_options, cost_tolerance),
};

int pd_diff_options_init(pd_diff_options *opts, unsigned version)
{
	const pd_diff_options d = PD_DIFF_OPTIONS_INIT;
	return pd_options_init(opts, version, &d, diff_sizes, PD_DIFF_OPTIONS_VERSION);
}

static int check_options(const pd_diff_options *o, pd_error *err)
{
	const char *bad = NULL;
	if (o->flags & ~(unsigned)(PD_DIFF_ABSOLUTE | PD_DIFF_NO_ALIGN | PD_DIFF_TREE_ROWS |
				   PD_DIFF_LKP_KEYS))
		bad = "unknown flags";
	else if (!(o->fdr > 0 && o->fdr <= 1))
		bad = "fdr must be in (0, 1]";
	else if (!(o->rename_score >= 0 && o->rename_score <= 1))
		bad = "rename_score must be in [0, 1]";
	else if (!(o->cost_tolerance >= 0 && o->cost_tolerance <= 1))
		bad = "cost_tolerance must be in [0, 1]";
	else if (isnan(o->min_change))
		bad = "min_change is not a number";
	if (bad)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET, "%s", bad);
	return 0;
}

/* Event `name` in `p`: exact, else without modifiers. */
static int find_event(const pd_profile *p, const char *name, char *tmp, size_t n)
{
	int ev = pd_profile_find_event(p, name);
	if (ev >= 0)
		return ev;
	const char *colon = strchr(name, ':');
	if (!colon || (size_t)(colon - name) >= n)
		return -1;
	memcpy(tmp, name, (size_t)(colon - name));
	tmp[colon - name] = 0;
	return pd_profile_find_event(p, tmp);
}

/* "; its events: cycles:P (1200 samples), instructions (1190 samples)", or
 * "; it has no samples" (filters that pass none, an empty recording): what
 * to ask for instead of a missing event. */
static void events_note(const pd_profile *p, char *buf, size_t n)
{
	size_t at = 0, nev = pd_profile_event_count(p);
	buf[0] = '\0';
	for (size_t i = 0; i < nev && at < n; i++) {
		uint64_t samples = pd_profile_samples(p, i, SIZE_MAX);
		if (samples == 0)
			continue;
		int k = snprintf(buf + at, n - at, "%s%s (%llu samples)", at ? ", " : "; its events: ",
				 pd_profile_event_name(p, i), (unsigned long long)samples);
		at = k < 0 ? n : at + (size_t)k;
	}
	if (at == 0)
		snprintf(buf, n, "; it has no samples");
}

/* PD_EINVAL: the profile of `side` lacks event `name`. */
static int no_event(pd_error *err, const char *side, const pd_profile *p, const char *name)
{
	char note[256];
	events_note(p, note, sizeof note);
	if (!name)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET,
				    "%s profile has no event with samples%s", side, note);
	return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET, "%s profile has no event '%s'%s",
			    side, name, note);
}

int pd_diff_events(const pd_profile *b, const pd_profile *n, const char *event, size_t ev[2],
		   pd_error *err)
{
	if (!b || !n || !ev)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET,
				    "no profile or output array given");
	char tmp[256];
	int eb, en;
	if (event) {
		eb = find_event(b, event, tmp, sizeof tmp);
		if (eb < 0)
			return no_event(err, "base", b, event);
	} else {
		eb = pd_profile_default_event(b);
		if (eb < 0)
			return no_event(err, "base", b, NULL);
	}
	const char *name = pd_profile_event_name(b, (size_t)eb);
	/* several events may share a name (one per PMU): the new side's own
	 * choice first, when it is the same event */
	en = event ? -1 : pd_profile_default_event(n);
	if (en >= 0 && strcmp(pd_profile_event_name(n, (size_t)en), name) != 0)
		en = -1;
	if (en < 0)
		en = find_event(n, event ? event : name, tmp, sizeof tmp);
	if (en < 0 && event)
		en = find_event(n, name, tmp, sizeof tmp);
	if (en < 0)
		return no_event(err, "new", n, event ? event : name);
	ev[0] = (size_t)eb;
	ev[1] = (size_t)en;
	return 0;
}

static int choose_events(pd_diff *d, pd_error *err)
{
	int rc = pd_diff_events(d->prof[0], d->prof[1], d->opts.event, d->ev, err);
	if (rc == 0)
		d->event = pd_profile_event_name(d->prof[0], d->ev[0]);
	return rc;
}

/* Value of one period and of one sample, per run. */
static int units(pd_diff *d, pd_error *err)
{
	bool abs_ = d->opts.flags & PD_DIFF_ABSOLUTE;
	for (int s = 0; s < 2; s++) {
		const dt_tree *t = &d->tree[s];
		d->unit[s] = pd_arena_alloc(&d->arena, d->nruns[s] * sizeof(double));
		d->sunit[s] = pd_arena_alloc(&d->arena, d->nruns[s] * sizeof(double));
		if (!d->unit[s] || !d->sunit[s])
			return pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
		for (size_t r = 0; r < d->nruns[s]; r++) {
			double u = 0;
			if (abs_) {
				if (t->span[r] == 0)
					return pd_error_set(
						err, PD_EINVAL,
						pd_profile_run_path(d->prof[s], r), PD_NO_OFFSET,
						"no recording span for per-second values: "
						"its samples carry no time");
				u = 1e9 / (double)t->span[r];
			} else if (t->total[r]) {
				u = 100.0 / (double)t->total[r];
			}
			d->unit[s][r] = u;
			d->sunit[s][r] = t->samples[r] ? u * (double)t->total[r] / (double)t->samples[r]
						       : 0;
		}
	}
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const pd_diff_row *x = a, *y = b;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	if (x->change != y->change)
		return x->change < y->change ? -1 : 1;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return strcmp(x->dso ? x->dso : "", y->dso ? y->dso : "");
}

/* Rows sorted for the public, and each relation pointed at its row: the
 * sort moves rows, so they are found again by their shift. */
typedef struct row_ref {
	pd_diff_row pub;
	size_t i;
} row_ref;

static int row_ref_cmp(const void *a, const void *b)
{
	return row_cmp(&((const row_ref *)a)->pub, &((const row_ref *)b)->pub);
}

static int publish_rows(pd_diff *d)
{
	size_t n = d->nrows ? d->nrows : 1;
	row_ref *v = malloc(n * sizeof *v);
	d->out = pd_arena_alloc(&d->arena, n * sizeof *d->out);
	d->rowpos = pd_arena_alloc(&d->arena, n * sizeof *d->rowpos);
	if (!v || !d->out || !d->rowpos) {
		free(v);
		return PD_ENOMEM;
	}
	for (size_t i = 0; i < d->nrows; i++) {
		dt_row *r = &d->rows[i];
		v[i] = (row_ref){ r->pub, i };
		v[i].pub.relation = r->rel != DT_NONE ? &d->rels[r->rel] : NULL;
		v[i].pub.process = r->proc != DT_NONE && d->strata ? d->procs[r->proc] : NULL;
	}
	qsort(v, d->nrows, sizeof *v, row_ref_cmp);
	for (size_t k = 0; k < d->nrows; k++) {
		d->out[k] = v[k].pub;
		d->rowpos[v[k].i] = k;  /* the aligned tree's nodes find their rows */
		if (d->out[k].metric == PD_DIFF_SHIFT && d->out[k].relation)
			d->rels[d->out[k].relation - d->rels].row = &d->out[k];
	}
	free(v);
	return 0;
}

/* What the profiles' files say (profile.h, "symbol facts"), for the
 * aligner (internal.h, dt_facts); the values are the same. */
static int facts_defined(void *ctx, int side, const char *dso, const char *name)
{
	const pd_diff *d = ctx;
	return (int)pd_profile_symbol_defined(d->prof[side], dso, name);
}

static int facts_inlined(void *ctx, int side, const char *dso, const char *callee,
			 const char *caller)
{
	const pd_diff *d = ctx;
	return (int)pd_profile_inlined_into(d->prof[side], dso, callee, caller);
}

/* Runs on both sides: their spread; else the runs' time blocks where
 * both sides have them; else sampling noise alone. */
static pd_diff_test_kind choose_test(const pd_diff *d)
{
	if (d->nruns[0] >= 2 && d->nruns[1] >= 2)
		return PD_DIFF_TEST_MODERATED_T;
	for (int s = 0; s < 2; s++) {
		bool any = false;
		for (size_t r = 0; r < d->nruns[s]; r++)
			any |= d->nblocks[s][r] >= 2;
		if (!any)
			return PD_DIFF_TEST_PROPORTION;
	}
	return PD_DIFF_TEST_BLOCKS;
}

int pd_diff_publish(pd_diff *d, pd_error *err)
{
	int rc;
	if ((rc = pd_diff_finish_relations(d)) < 0 || (rc = publish_rows(d)) < 0 ||
	    (rc = pd_diff_build_nodes(d)) < 0)
		return pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory");
	return 0;
}

static int build_trees_once(pd_diff *d, pd_error *err)
{
	for (int s = 0; s < 2; s++) {
		int rc = dt_tree_build(&d->tree[s], &d->keys, d->prof[s], d->ev[s]);
		/* rates are no shares: their noise stays binomial */
		if (rc == 0 && !(d->opts.flags & PD_DIFF_ABSOLUTE))
			rc = dt_tree_measure_phi(&d->tree[s]);
		if (rc < 0)
			return pd_error_set(err, rc, "diff", PD_NO_OFFSET,
					    "%s while building the %s tree",
					    rc == PD_ELIMIT ? "too many nodes" : "out of memory",
					    s ? "new" : "base");
	}
	return 0;
}

/*
 * Both trees, with the dsos that are one program under two names keyed
 * as one: which they are shows only once both trees are built, so then
 * they are built again over a key table that knows.
 */
static int build_trees(pd_diff *d, pd_error *err)
{
	int rc = build_trees_once(d, err);
	if (rc < 0)
		return rc;
	const dt_tree *t[2] = { &d->tree[0], &d->tree[1] };
	if ((rc = dt_pair_dsos(&d->keys, t, dt_min_pts(&d->opts), &d->dso_pairs)) < 0)
		return pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory");
	if (d->dso_pairs.n == 0)
		return 0;
	for (int s = 0; s < 2; s++)
		dt_tree_free(&d->tree[s]);
	dt_keytab_free(&d->keys);
	dt_keytab_init(&d->keys);
	for (uint32_t i = 0; i < d->dso_pairs.n; i++)
		if (dt_keytab_alias(&d->keys, d->dso_pairs.v[i].new_dso,
				    d->dso_pairs.v[i].base_dso) < 0)
			return pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
	return build_trees_once(d, err);
}

int pd_diff_import_options(pd_diff_options *o, const pd_diff_options *opts, pd_error *err)
{
	*o = PD_DIFF_OPTIONS_INIT;
	int rc = opts ? pd_options_import(o, opts, diff_sizes, PD_DIFF_OPTIONS_VERSION,
					  "pd_diff_options", "diff", err) : 0;
	return rc < 0 ? rc : check_options(o, err);
}

pd_diff *pd_diff_alloc(const pd_diff_options *o)
{
	pd_diff *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	pd_arena_init(&d->arena);
	dt_keytab_init(&d->keys);
	pd_u64map_init(&d->row_index);
	pd_u64map_init(&d->node_of[0]);
	pd_u64map_init(&d->node_of[1]);
	d->opts = *o;
	return d;
}

int pd_diff_new(pd_diff **out, const pd_profile *base, const pd_profile *new_,
		const pd_diff_options *opts, pd_error *err)
{
	if (!out)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET, "no output pointer given");
	*out = NULL;
	if (!base || !new_)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET, "no profile given");
	pd_diff_options o;
	int rc = pd_diff_import_options(&o, opts, err);
	if (rc < 0)
		return rc;
	if (pd_profile_run_count(base) == 0 || pd_profile_run_count(new_) == 0)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET, "%s profile has no run",
				    pd_profile_run_count(base) == 0 ? "base" : "new");
	pd_diff *d = pd_diff_alloc(&o);
	if (!d)
		return pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
	d->prof[0] = base;
	d->prof[1] = new_;
	d->nruns[0] = pd_profile_run_count(base);
	d->nruns[1] = pd_profile_run_count(new_);
	if ((rc = choose_events(d, err)) < 0)
		goto fail;
	if (d->opts.event) {
		/* the caller's string need not outlive the call */
		d->opts.event = pd_arena_strndup(&d->arena, d->opts.event, strlen(d->opts.event));
		if (!d->opts.event) {
			rc = pd_error_set(err, PD_ENOMEM, "diff", PD_NO_OFFSET, "out of memory");
			goto fail;
		}
	}
	if ((rc = build_trees(d, err)) < 0)
		goto fail;
	if ((rc = units(d, err)) < 0)
		goto fail;
	dt_facts facts = { facts_defined, facts_inlined, d, NULL, { NULL, NULL } };
	if ((rc = dt_align_run(&d->align, &d->tree[0], &d->tree[1], &d->opts, &facts)) < 0) {
		pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory while aligning");
		goto fail;
	}
	if ((rc = pd_diff_build_rows(d, err)) < 0)
		goto fail;
	if ((rc = pd_diff_collect_relations(d)) < 0 || (rc = pd_diff_strata(d)) < 0 ||
	    (rc = pd_diff_block_variances(d)) < 0) {
		pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory");
		goto fail;
	}
	d->test = choose_test(d);
	if ((rc = pd_diff_row_stats(d, err)) < 0 || (rc = pd_diff_publish(d, err)) < 0)
		goto fail;
	*out = d;
	return 0;
fail:
	pd_diff_free(d);
	return rc;
}

void pd_diff_free(pd_diff *d)
{
	if (!d)
		return;
	dt_tree_free(&d->tree[0]);
	dt_tree_free(&d->tree[1]);
	dt_keytab_free(&d->keys);
	dt_dso_pairs_free(&d->dso_pairs);
	dt_align_free(&d->align);
	for (int s = 0; s < 2; s++) {
		free(d->ctrow[s]);
		free(d->krow[s]);
		free(d->trow[s]);
		pd_u64map_free(&d->node_of[s]);
	}
	free(d->rows);
	pd_u64map_free(&d->row_index);
	pd_arena_free(&d->arena);
	free(d);
}

const char *pd_diff_event(const pd_diff *d)
{
	return d ? d->event : NULL;
}

pd_diff_test_kind pd_diff_test(const pd_diff *d)
{
	return d ? d->test : PD_DIFF_TEST_MODERATED_T;
}

bool pd_diff_test_prior(const pd_diff *d, double *phi0, double *d0, size_t *rows)
{
	if (!d || d->test != PD_DIFF_TEST_MODERATED_T)
		return false;
	if (phi0)
		*phi0 = d->prior_phi;
	if (d0)
		*d0 = d->prior_df;
	if (rows)
		*rows = d->prior_rows;
	return true;
}

bool pd_diff_block_prior(const pd_diff *d, double *phi0, double *d0, size_t *rows,
			 size_t blocks[2])
{
	if (!d || d->test == PD_DIFF_TEST_PROPORTION)
		return false;
	bool any = false;
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < d->nruns[s]; r++)
			any |= d->nblocks[s][r] >= 2;
	if (!any)
		return false;
	if (phi0)
		*phi0 = d->block_phi;
	if (d0)
		*d0 = d->block_df;
	if (rows)
		*rows = d->block_rows;
	if (blocks)
		for (int s = 0; s < 2; s++)
			blocks[s] = d->nruns[s] ? d->nblocks[s][0] : 0;
	return true;
}

double pd_diff_noise(const pd_diff *d, int side)
{
	if (!d || (side != 0 && side != 1))
		return 1;
	return d->tree[side].phi >= 1 ? d->tree[side].phi : 1;
}

double pd_diff_inflation(const pd_diff *d)
{
	return d && d->inflation >= 1 ? d->inflation : 1;
}

size_t pd_diff_process_count(const pd_diff *d)
{
	return d && d->pubprocs ? d->nprocs : 0;
}

const pd_diff_process *pd_diff_process_at(const pd_diff *d, size_t i)
{
	return i < pd_diff_process_count(d) ? &d->pubprocs[i] : NULL;
}

size_t pd_diff_tested_count(const pd_diff *d)
{
	return d ? d->tested : 0;
}

size_t pd_diff_dso_pair_count(const pd_diff *d)
{
	return d ? d->dso_pairs.n : 0;
}

bool pd_diff_dso_pair_at(const pd_diff *d, size_t i, const char **base_dso,
			 const char **new_dso, double *similarity)
{
	if (!d || i >= d->dso_pairs.n)
		return false;
	const dt_dso_pair *p = &d->dso_pairs.v[i];
	if (base_dso)
		*base_dso = p->base_dso;
	if (new_dso)
		*new_dso = p->new_dso;
	if (similarity)
		*similarity = p->similarity;
	return true;
}

/* A command is a binary's file name cut to the kernel's 15 characters. */
#define COMM_MAX 15

/* `path`'s file name cut as a command, into buf; its length. */
static size_t comm_of(const char *path, char buf[COMM_MAX + 1])
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t n = strlen(name) < COMM_MAX ? strlen(name) : COMM_MAX;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return n;
}

const char *pd_diff_base_comm(const pd_diff *d, const char *comm, char buf[16])
{
	char nw[COMM_MAX + 1];
	for (size_t i = 0; d && comm && i < d->dso_pairs.n; i++) {
		const dt_dso_pair *p = &d->dso_pairs.v[i];
		if (!p->base_dso || !p->new_dso)
			continue;
		comm_of(p->new_dso, nw);
		if (strcmp(comm, nw) == 0) {
			comm_of(p->base_dso, buf);
			return buf;
		}
	}
	return comm;
}

size_t pd_diff_row_count(const pd_diff *d)
{
	return d ? d->nrows : 0;
}

const pd_diff_row *pd_diff_row_at(const pd_diff *d, size_t i)
{
	return d && i < d->nrows ? &d->out[i] : NULL;
}

size_t pd_diff_relation_count(const pd_diff *d)
{
	return d ? d->nrels : 0;
}

const pd_diff_relation *pd_diff_relation_at(const pd_diff *d, size_t i)
{
	return d && i < d->nrels ? &d->rels[i] : NULL;
}

static uint64_t side_sum(const pd_diff *d, int side, size_t run, const uint64_t *v)
{
	size_t n = d->nruns[side];
	if (run != SIZE_MAX)
		return run < n ? v[run] : 0;
	uint64_t s = 0;
	for (size_t r = 0; r < n; r++)
		s += v[r];
	return s;
}

const pd_profile *pd_diff_profile(const pd_diff *d, int side)
{
	return d && (side == 0 || side == 1) ? d->prof[side] : NULL;
}

int pd_diff_options_get(const pd_diff *d, pd_diff_options *out, unsigned version)
{
	pd_diff_options o = d ? d->opts : PD_DIFF_OPTIONS_INIT;
	/* as rowstats.c's min_change() applies it */
	if (d && o.min_change < 0)
		o.min_change = (o.flags & PD_DIFF_ABSOLUTE) ? 5.0 : 0.1;
	return pd_options_init(out, version, &o, diff_sizes, PD_DIFF_OPTIONS_VERSION);
}

size_t pd_diff_run_count(const pd_diff *d, int side)
{
	if (!d || (side != 0 && side != 1))
		return 0;
	return d->lkp ? d->lkp_runs[side] : d->nruns[side];
}

const pd_lkp_table *pd_diff_lkp_table(const pd_diff *d, size_t *base_col, size_t *new_col)
{
	if (!d || !d->lkp)
		return NULL;
	if (base_col)
		*base_col = d->lkp_col[0];
	if (new_col)
		*new_col = d->lkp_col[1];
	return d->lkp;
}

uint64_t pd_diff_total(const pd_diff *d, int side, size_t run)
{
	if (!d || d->lkp || (side != 0 && side != 1))
		return 0;
	return side_sum(d, side, run, d->tree[side].total);
}

uint64_t pd_diff_samples(const pd_diff *d, int side, size_t run)
{
	if (!d || d->lkp || (side != 0 && side != 1))
		return 0;
	return side_sum(d, side, run, d->tree[side].samples);
}

uint64_t pd_diff_span(const pd_diff *d, int side, size_t run)
{
	if (!d || d->lkp || (side != 0 && side != 1))
		return 0;
	return side_sum(d, side, run, d->tree[side].span);
}
