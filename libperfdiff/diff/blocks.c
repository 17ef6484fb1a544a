/*
 * Each row's variation within a run, from the run's time blocks ("batch
 * means"; pd_profile_block_count() and friends).
 *
 * One run a side is the robot's most common comparison, and a test on
 * its sample counts alone takes every sample as an independent draw: on
 * a busy machine other processes' bursts, phases of the program and the
 * scheduler move a function's share far more than that, and a few
 * percent of thousands of rows come out "significant" between two
 * recordings of the same setup.  The run's own equal slices of time show
 * that variation: a row whose share holds still from block to block is
 * measured well, one that jumps is not.
 *
 * For run r with K blocks, block b holding x_b of the row's samples out
 * of the event's T_b (X and T the run's sums, p = X/T), the variance of
 * the run's share is estimated as for a ratio over clusters of unequal
 * size:  V = K/(K−1) · Σ_b (x_b − p·T_b)² / T²  (in points² here).  Under
 * pure sampling noise its expectation is the binomial p(1−p)/T.
 *
 * A row's block counts come from the profile nodes folded into it: a
 * node's samples count in the self row of its key, in the calltrace row
 * of every ancestor nearest the leaf with its key (callee order, as the
 * values do) and in the children row of every key on the path, once.
 * Shift rows sum their members' blocks.  Rows of the robot's keys
 * (PD_DIFF_LKP_KEYS) and tree rows have no blocks: they keep NAN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct pass {
	pd_diff *d;
	int side;
	size_t run, K;
	uint32_t *acc;       /* [row * K + block] samples */
	dt_leafwalk walk;
	uint32_t block, n;   /* what credit() adds, and where */
} pass;

static void credit_row(void *ctx, uint32_t row)
{
	pass *ps = ctx;
	ps->acc[(size_t)row * ps->K + ps->block] += ps->n;
}

/* Credit `n` samples of block b, whose leaf is node v, to v's rows. */
static void credit(pass *ps, uint32_t v, uint32_t b, uint32_t n)
{
	ps->block = b;
	ps->n = n;
	dt_leaf_rows(ps->d, ps->side, &ps->walk, v, credit_row, ps);
}

static void credit_all(pass *ps)
{
	const dt_tree *t = &ps->d->tree[ps->side];
	for (size_t i = 0; i < t->nsrc; i++) {
		const pd_block_count *e;
		size_t n = pd_cct_blocks(t->src[i], ps->run, &e);
		for (size_t j = 0; j < n; j++)
			if (e[j].block < ps->K)
				credit(ps, t->src_id[i], e[j].block, e[j].samples);
	}
}

/* Shift rows: their members' blocks summed. */
static void credit_shifts(pass *ps)
{
	pd_diff *d = ps->d;
	for (size_t i = 0; i < d->nrels; i++) {
		uint32_t rows[2 * DT_REL_MAX];
		size_t n = pd_diff_shift_members(d, i, rows);
		uint32_t *to = &ps->acc[(size_t)d->relinfo[i].row * ps->K];
		for (size_t k = 0; k < n; k++)
			for (size_t b = 0; b < ps->K; b++)
				to[b] += ps->acc[(size_t)rows[k] * ps->K + b];
	}
}

/*
 * Each command's samples per block of the run (strata.c gave each tree
 * node its command): the totals a row's share within its process is
 * taken of.  [command * K + block]; NULL without commands, or memory.
 */
static double *process_blocks(const pass *ps)
{
	const pd_diff *d = ps->d;
	const dt_tree *t = &d->tree[ps->side];
	if (!d->strata || !d->nprocs)
		return NULL;
	double *TP = calloc(d->nprocs * ps->K, sizeof *TP);
	for (size_t i = 0; TP && i < t->nsrc; i++) {
		uint32_t c = d->vproc[ps->side][t->src_id[i]];
		const pd_block_count *e;
		size_t n = pd_cct_blocks(t->src[i], ps->run, &e);
		for (size_t j = 0; c != DT_NONE && j < n; j++)
			if (e[j].block < ps->K)
				TP[(size_t)c * ps->K + e[j].block] += e[j].samples;
	}
	return TP;
}

/* A row's variance in the run: of its share of all samples, or, when it
 * knows its process, of its share within the process scaled to the
 * process's mean share (the value the test compares, strata.c), so that
 * bursts of other load within the run do not count as the row's own. */
static void variances(pass *ps, const double *T, const double *TP)
{
	pd_diff *d = ps->d;
	size_t col = (ps->side ? d->nruns[0] : 0) + ps->run;
	for (size_t i = 0; i < d->nrows; i++) {
		const dt_row *r = &d->rows[i];
		if (r->pub.metric == PD_DIFF_TREE)
			continue;
		const uint32_t *x = &ps->acc[i * ps->K];
		if (TP && r->proc != DT_NONE) {
			double w = d->proc_share[r->proc];
			d->rows[i].bvar[col] =
				w * w * pd_stat_batch_var(x, &TP[(size_t)r->proc * ps->K], ps->K);
		} else {
			d->rows[i].bvar[col] = 1e4 * pd_stat_batch_var(x, T, ps->K);
		}
	}
}

/* One run of one side: 0 or PD_ENOMEM. */
static int run_pass(pass *ps)
{
	pd_diff *d = ps->d;
	const dt_tree *t = &d->tree[ps->side];
	ps->K = pd_profile_block_count(t->prof, ps->run);
	d->nblocks[ps->side][ps->run] = ps->K ? ps->K : 1;
	if (ps->K < 2)
		return 0;
	double *T = malloc(ps->K * sizeof *T);
	ps->acc = calloc(d->nrows * ps->K, sizeof *ps->acc);
	if (!T || !ps->acc) {
		free(T);
		free(ps->acc);
		return PD_ENOMEM;
	}
	for (size_t b = 0; b < ps->K; b++)
		T[b] = (double)pd_profile_block_samples(t->prof, t->ev, ps->run, b);
	credit_all(ps);
	credit_shifts(ps);
	double *TP = process_blocks(ps);
	variances(ps, T, TP);
	free(TP);
	free(T);
	free(ps->acc);
	ps->acc = NULL;
	return 0;
}

/* ------------------------------------------------- the tree's own noise */

/* φ of the self share of the sources order[0..n) (one node of the tree)
 * in run r: its block variance over its binomial variance, or NAN when
 * it has too few samples to tell. */
static double node_phi(const dt_tree *t, const uint32_t *order, size_t n, size_t r,
		       const double *T, size_t K, double all)
{
	uint32_t x[32] = { 0 };
	double X = 0;
	for (size_t i = 0; i < n; i++) {
		const pd_block_count *e;
		size_t m = pd_cct_blocks(t->src[order[i]], r, &e);
		for (size_t j = 0; j < m; j++)
			if (e[j].block < K && K <= 32) {
				x[e[j].block] += e[j].samples;
				X += e[j].samples;
			}
	}
	if (X < DT_PHI_MIN_SAMPLES || X >= all)
		return NAN;
	double p = X / all;
	return pd_stat_batch_var(x, T, K) / (p * (1 - p) / all);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The sources in the order of the tree nodes they were folded into
 * (counting sort: node ids are dense), so that each node's sources are
 * adjacent.  NULL without memory. */
static uint32_t *sources_by_node(const dt_tree *t)
{
	uint32_t *at = calloc((size_t)t->nn + 1, sizeof *at);
	uint32_t *order = malloc((t->nsrc ? t->nsrc : 1) * sizeof *order);
	if (!at || !order) {
		free(at);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < t->nsrc; i++)
		at[t->src_id[i] + 1]++;
	for (size_t v = 0; v < t->nn; v++)
		at[v + 1] += at[v];
	for (size_t i = 0; i < t->nsrc; i++)
		order[at[t->src_id[i]]++] = (uint32_t)i;
	free(at);
	return order;
}

/* The φs of run r's well-sampled nodes appended to phi[*n]. */
static void run_phis(const dt_tree *t, const uint32_t *order, size_t r, double *phi,
		     size_t *n)
{
	size_t K = pd_profile_block_count(t->prof, r);
	double T[32], all = 0;
	if (K < 2 || K > 32)
		return;
	for (size_t b = 0; b < K; b++)
		all += T[b] = (double)pd_profile_block_samples(t->prof, t->ev, r, b);
	for (size_t i = 0, j; i < t->nsrc && all > 0; i = j) {
		for (j = i + 1; j < t->nsrc && t->src_id[order[j]] == t->src_id[order[i]]; j++)
			;
		double f = node_phi(t, order + i, j - i, r, T, K, all);
		if (isfinite(f))
			phi[(*n)++] = f;
	}
}

/*
 * The median φ of the tree's well-sampled nodes with self time over its
 * runs (1 without any): how much more than sampling noise a share varies
 * here.  Measured on the tree's nodes, the rows' own units, not on the
 * profile's: a dso's unnamed addresses, one node here, are one sample of
 * φ whether or not the profile kept them apart
 * (PD_PROFILE_MERGE_UNRESOLVED).
 */
static int tree_phi(dt_tree *t)
{
	size_t n = 0, cap = t->nsrc * t->nruns;
	double *phi = malloc((cap ? cap : 1) * sizeof *phi);
	uint32_t *order = sources_by_node(t);
	if (!phi || !order) {
		free(phi);
		free(order);
		return PD_ENOMEM;
	}
	for (size_t r = 0; r < t->nruns; r++)
		run_phis(t, order, r, phi, &n);
	if (n > 0) {
		qsort(phi, n, sizeof *phi, dbl_cmp);
		t->phi = fmax(1, n % 2 ? phi[n / 2] : 0.5 * (phi[n / 2 - 1] + phi[n / 2]));
	}
	free(phi);
	free(order);
	return 0;
}

int dt_tree_measure_phi(dt_tree *t)
{
	t->phi = 1;
	return t->prof ? tree_phi(t) : 0;
}

int pd_diff_block_variances(pd_diff *d)
{
	for (int s = 0; s < 2; s++) {
		d->nblocks[s] = pd_arena_alloc(&d->arena, d->nruns[s] * sizeof *d->nblocks[s]);
		if (!d->nblocks[s])
			return PD_ENOMEM;
		for (size_t r = 0; r < d->nruns[s]; r++)
			d->nblocks[s][r] = 1;
	}
	/* the robot's keys are no tree's rows; rates are no shares */
	if (d->opts.flags & (PD_DIFF_LKP_KEYS | PD_DIFF_ABSOLUTE))
		return 0;
	int rc = 0;
	for (int s = 0; s < 2 && rc == 0; s++) {
		const dt_tree *t = &d->tree[s];
		if (!t->prof)
			continue;
		pass ps = { .d = d, .side = s };
		uint32_t *anc = malloc((t->nn ? t->nn : 1) * sizeof *anc);
		ps.walk.stamp = calloc(t->keys->n ? t->keys->n : 1, sizeof *ps.walk.stamp);
		ps.walk.anc = anc;
		rc = !anc || !ps.walk.stamp ? PD_ENOMEM : dt_same_key_ancestors(t, anc);
		for (size_t r = 0; r < d->nruns[s] && rc == 0; r++) {
			ps.run = r;
			rc = run_pass(&ps);
		}
		free(anc);
		free(ps.walk.stamp);
	}
	return rc;
}
