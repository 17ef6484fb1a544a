/*
 * The test of a diff of a robot's table: what the table gives is each
 * column's mean, standard deviation and number of runs (robot.h), and
 * per-run values only when it comes from result directories.  So each
 * row is tested with Welch's t on the two means: the variance of a mean
 * is σ²/(n − 1) for a population standard deviation σ over n runs, the
 * degrees of freedom Welch–Satterthwaite's.  A shift row (relations.c)
 * sums its member rows: with per-run values the runs' sums are its
 * values; from a mail its mean is the sum of the means and its variance
 * the sum of theirs (the table gives no covariance).  Benjamini–Hochberg
 * then runs over the rows whose larger mean could change by min_change,
 * and a row is significant as in diff.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct side_in {
	double mean, sd;   /* population standard deviation */
	size_t n;          /* runs */
} side_in;

static double mean_var(const side_in *s)
{
	double n = (double)s->n;
	return s->n > 1 ? s->sd * s->sd / (n - 1) : s->sd * s->sd;
}

/* Welch's two-sided p-value of new − base. */
static double welch_p(const side_in *b, const side_in *n)
{
	double vb = mean_var(b), vn = mean_var(n), diff = n->mean - b->mean;
	double v = vb + vn;
	if (!(v > 0))
		return diff == 0 ? 1 : 0;
	double den = 0;
	if (b->n > 1)
		den += vb * vb / (double)(b->n - 1);
	if (n->n > 1)
		den += vn * vn / (double)(n->n - 1);
	double df = den > 0 ? v * v / den : 1;
	return pd_stat_t_p2(diff / sqrt(v), fmax(1, df));
}

/* Mean and population standard deviation of v[0..n). */
static void moments(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = n ? sqrt(ss / (double)n) : 0;
}

/* A table row's side s. */
static void row_side(const pd_diff *d, const dt_row *r, int s, side_in *out, pd_diff_side *pub)
{
	const pd_lkp_cell *c = &r->lkp->cells[d->lkp_col[s]];
	const double *runs = r->vals + (s ? d->nruns[0] : 0);
	*out = (side_in){ c->mean, c->stddev, c->nruns };
	size_t present = 0;
	for (size_t i = 0; c->runs && i < d->nruns[s]; i++)
		present += runs[i] != 0;
	if (!c->runs)  /* a mail: every run had it, or (0.00, no "±") none */
		present = c->mean > 0 || c->stddev_pct >= 0 ? c->nruns : 0;
	*pub = (pd_diff_side){ c->mean, c->stddev, c->runs ? runs : NULL,
			       c->runs ? d->nruns[s] : 0, present };
}

/* A shift row's side s: its members summed. */
static void shift_side(const pd_diff *d, const dt_row *r, const uint32_t *m, size_t nm, int s,
		       side_in *out, pd_diff_side *pub)
{
	bool runs = d->lkp->runs_source == PD_LKP_RUNS_COUNTED;
	const double *vals = r->vals + (s ? d->nruns[0] : 0);
	double mean = 0, var = 0;
	size_t n = d->lkp_runs[s], present = 0;
	if (runs) {
		moments(vals, d->nruns[s], &mean, &var);
		var *= var;
		for (size_t i = 0; i < d->nruns[s]; i++)
			present += vals[i] != 0;
	} else {
		for (size_t k = 0; k < nm; k++) {
			const pd_lkp_cell *c = &d->rows[m[k]].lkp->cells[d->lkp_col[s]];
			mean += c->mean;
			var += c->stddev * c->stddev;
			present = c->mean > 0 ? n : present;
		}
	}
	*out = (side_in){ mean, sqrt(var), n };
	*pub = (pd_diff_side){ mean, sqrt(var), runs ? vals : NULL, runs ? d->nruns[s] : 0,
			       present };
}

static double min_change(const pd_diff *d)
{
	return d->opts.min_change >= 0 ? d->opts.min_change : 0.1;
}

/* The relation whose shift row is row i, or SIZE_MAX. */
static size_t relation_of(const pd_diff *d, size_t i)
{
	for (size_t k = 0; k < d->nrels; k++)
		if (d->relinfo[k].row == i)
			return k;
	return SIZE_MAX;
}

/* Row i's summaries, change and p-value. */
static void test_row(pd_diff *d, size_t i)
{
	dt_row *r = &d->rows[i];
	side_in s[2];
	pd_diff_side *pub[2] = { &r->pub.base, &r->pub.new };
	if (r->lkp) {
		for (int k = 0; k < 2; k++)
			row_side(d, r, k, &s[k], pub[k]);
	} else {
		uint32_t m[2 * DT_REL_MAX];
		size_t rel = relation_of(d, i);
		size_t nm = rel == SIZE_MAX ? 0 : pd_diff_shift_members(d, rel, m);
		for (int k = 0; k < 2; k++)
			shift_side(d, r, m, nm, k, &s[k], pub[k]);
	}
	r->pub.change = s[1].mean - s[0].mean;
	r->pub.p_value = welch_p(&s[0], &s[1]);
	r->pub.tested = fmax(s[0].mean, s[1].mean) >= min_change(d) * (1 - 1e-9);
}

int pd_diff_key_stats(pd_diff *d, pd_error *err)
{
	size_t n = d->nrows ? d->nrows : 1;
	double *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q);
	size_t *fam = malloc(n * sizeof *fam);
	int rc = p && q && fam ? 0 : PD_ENOMEM;
	d->tested = 0;
	for (size_t i = 0; i < d->nrows && rc == 0; i++) {
		test_row(d, i);
		d->rows[i].pub.q_value = 1;
		if (d->rows[i].pub.tested) {
			p[d->tested] = d->rows[i].pub.p_value;
			fam[d->tested++] = i;
		}
	}
	if (rc == 0)
		rc = pd_stat_bh(p, d->tested, q);
	for (size_t k = 0; k < d->tested && rc == 0; k++)
		d->rows[fam[k]].pub.q_value = q[k];
	for (size_t i = 0; i < d->nrows && rc == 0; i++) {
		pd_diff_row *r = &d->rows[i].pub;
		r->significant = r->tested && r->q_value <= d->opts.fdr &&
				 fabs(r->change) >= min_change(d);
	}
	free(p);
	free(q);
	free(fam);
	return rc < 0 ? pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory") : 0;
}
