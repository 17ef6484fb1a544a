/*
 * The test of every row (diff.h, "Statistics"): its summary per side,
 * its change, a p-value, the Benjamini–Hochberg q-value over all rows
 * and whether it is significant.
 *
 * Which variation a row is judged against depends on what the runs can
 * show.  With two runs or more a side, the runs' spread (moderated t,
 * each row's shrunk toward all rows'), but never less than what each
 * run's time blocks show (blocks.c): two or three runs can happen to
 * agree where bursts of other load make every run unsteady.  With one run
 * on a side, the time blocks alone (moderated the same way, on the
 * blocks' degrees of freedom).  Without time blocks (samples without
 * time, per-second values), sampling noise alone: a two-proportion test
 * on the sample counts, which pd_diff_test() owns up to.  One run a side
 * cannot see how two runs differ as a whole; the rows' own spread does
 * (inflation()).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void side_summary(pd_diff_side *s, const double *v, size_t n)
{
	double sum = 0;
	size_t present = 0;
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		present += v[i] != 0;
	}
	double m = n ? sum / (double)n : 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	s->mean = m;
	s->stddev = n ? sqrt(ss / (double)n) : 0;
	s->runs = v;
	s->nruns = n;
	s->present = present;
}

/*
 * Sampling noise only: each run's value is a count of samples times
 * d->sunit, and the counts of the two sides go through a two-proportion
 * (shares) or two-rate (per second) z-test.  Its z.
 */
static double proportion_z(const pd_diff *d, const dt_row *r)
{
	bool share = !(d->opts.flags & PD_DIFF_ABSOLUTE);
	double c[2] = { 0, 0 }, e[2] = { 0, 0 };
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < d->nruns[s]; i++) {
			double u = d->sunit[s][i];
			if (!(u > 0))
				continue;
			c[s] += r->vals[(s ? d->nruns[0] : 0) + i] / u;
			e[s] += 1 / u;
		}
	/* shares: exposures in samples (a sample is 100/N points) */
	double k = share ? 100 : 1;
	return pd_stat_rate_zscore(c[0], k * e[0], c[1], k * e[1], share);
}

/* A row's inputs: the runs' overdispersion (pd_stat_overdispersion) and
 * the blocks' (bphi on bdf degrees of freedom; 0 of them: none). */
typedef struct row_in {
	pd_stat_row s;
	bool runs_ok;
	double bphi, bdf;
	double stat, df;  /* one run a side: the t (or z, df INFINITY) before inflation */
} row_in;

/* The blocks' φ̂: each run's block variance against its sampling
 * variance at the pooled value, weighted by its K − 1 degrees of freedom. */
static void block_inputs(const pd_diff *d, const dt_row *r, double pooled, double q,
			 row_in *in)
{
	double num = 0, den = 0;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < d->nruns[s]; i++) {
			size_t col = (s ? d->nruns[0] : 0) + i, K = d->nblocks[s][i];
			double v = d->sunit[s][i] * pooled * q;
			if (K < 2 || !isfinite(r->bvar[col]) || !(v > 0))
				continue;
			num += (double)(K - 1) * r->bvar[col] / v;
			den += (double)(K - 1);
		}
	in->bphi = den > 0 ? num / den : NAN;
	in->bdf = den;
}

static void row_inputs(const pd_diff *d, const dt_row *r, row_in *in)
{
	const double *vals[2] = { r->vals, r->vals + d->nruns[0] };
	const double *unit[2] = { d->sunit[0], d->sunit[1] };
	bool share = !(d->opts.flags & PD_DIFF_ABSOLUTE);
	memset(in, 0, sizeof *in);
	in->runs_ok = pd_stat_overdispersion(vals, d->nruns, unit, share, &in->s) == 0;
	double pooled, q, samples;
	if (!in->runs_ok) {
		/* one run on a side: the same inputs but the runs' spread */
		if (pd_stat_pooled(vals, d->nruns, unit, share, &pooled, &q, &samples) < 0)
			return;
		in->s.samples = samples;
		for (int s = 0; s < 2; s++) {
			double m = 0, v = 0;
			for (size_t i = 0; i < d->nruns[s]; i++) {
				m += vals[s][i] / (double)d->nruns[s];
				v += unit[s][i] * pooled * q / (double)d->nruns[s];
			}
			in->s.diff += s ? m : -m;
			in->s.var += v / (double)d->nruns[s];
		}
	} else {
		pd_stat_pooled(vals, d->nruns, unit, share, &pooled, &q, &samples);
	}
	block_inputs(d, r, pooled, q, in);
}

/*
 * A prior (d0, φ0) from the self rows with enough samples to follow the
 * binomial model (self shares partition the samples, so they are close
 * to independent; children and calltrace rows repeat them): with
 * DT_PRIOR_MIN_ROWS of them, Smyth's fit (pd_stat_fit_prior) with d0 at
 * most the degrees of freedom behind it; with fewer, their pooled φ̂ (1
 * without any) held with DT_PRIOR_D0 degrees of freedom.  `which`: 0 the
 * runs' φ̂, 1 the blocks'.
 */
static int fit_prior(const pd_diff *d, const row_in *in, int which, double *d0, double *phi0,
		     size_t *rows)
{
	size_t g = 0, n = d->nrows ? d->nrows : 1;
	double *phi = malloc(n * sizeof *phi), *df = malloc(n * sizeof *df);
	if (!phi || !df) {
		free(phi);
		free(df);
		return PD_ENOMEM;
	}
	double sum_df = 0, sum_ss = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		double p = which ? in[i].bphi : in[i].s.phi, f = which ? in[i].bdf : in[i].s.df;
		if (d->rows[i].pub.metric != PD_DIFF_SELF || (which ? !(f > 0) : !in[i].runs_ok) ||
		    !isfinite(p) || in[i].s.samples < DT_PRIOR_MIN_SAMPLES)
			continue;
		phi[g] = p;
		df[g] = f;
		sum_df += f;
		sum_ss += f * p;
		g++;
	}
	int rc = 0;
	*rows = g;
	if (g >= DT_PRIOR_MIN_ROWS) {
		rc = pd_stat_fit_prior(phi, df, g, d0, phi0);
		if (!(*d0 <= sum_df))
			*d0 = sum_df;
	} else {
		*phi0 = g ? sum_ss / sum_df : 1;
		*d0 = g && sum_df < DT_PRIOR_D0 ? sum_df : DT_PRIOR_D0;
	}
	free(phi);
	free(df);
	return rc;
}

/* The blocks' φ̃ of a row (1 without blocks): its own φ̂ shrunk to the
 * blocks' prior. */
static double block_post(const pd_diff *d, const row_in *in)
{
	if (!(in->bdf > 0) || !isfinite(in->bphi))
		return d->block_rows ? fmax(1, d->block_phi) : 1;
	double d0 = d->block_df, s20 = d->block_phi;
	double post = isinf(d0) ? s20 : (d0 * s20 + in->bdf * in->bphi) / (d0 + in->bdf);
	return fmax(1, post);
}

/* One run a side: the statistic of the blocks' or the proportion test. */
static void one_run_stat(const pd_diff *d, const dt_row *r, row_in *in)
{
	if (d->test == PD_DIFF_TEST_PROPORTION) {
		in->stat = proportion_z(d, r);
		in->df = INFINITY;
		return;
	}
	double v = block_post(d, in) * in->s.var;
	in->stat = v > 0 ? in->s.diff / sqrt(v) : in->s.diff == 0 ? 0 : INFINITY;
	in->df = (in->bdf > 0 ? in->bdf : 0) + d->block_df;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * One run a side cannot show how two runs of one setup differ as a
 * whole: another program got more of the machine in one recording, every
 * row of it moves together.  The rows show it themselves: if nothing
 * changed, their statistics' squares have the median of χ²(1), 0.455; a
 * larger median is variation the test does not cover, and every row's
 * variance is inflated by that factor (genomic control, Devlin & Roeder
 * 1999).  Taken over the self rows with enough samples (nearly
 * independent); a few real changes hardly move a median.
 */
static int inflation(pd_diff *d, const row_in *in)
{
	d->inflation = 1;
	double *z2 = malloc((d->nrows ? d->nrows : 1) * sizeof *z2);
	if (!z2)
		return PD_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].pub.metric == PD_DIFF_SELF && isfinite(in[i].stat) &&
		    in[i].s.samples >= DT_PRIOR_MIN_SAMPLES)
			z2[n++] = in[i].stat * in[i].stat;
	if (n >= DT_INFLATION_MIN_ROWS) {
		qsort(z2, n, sizeof *z2, dbl_cmp);
		double med = n % 2 ? z2[n / 2] : 0.5 * (z2[n / 2 - 1] + z2[n / 2]);
		d->inflation = fmax(1, med / DT_CHI2_1_MEDIAN);
	}
	free(z2);
	return 0;
}

static double row_p(const pd_diff *d, const row_in *in)
{
	if (d->test == PD_DIFF_TEST_MODERATED_T)
		return !in->runs_ok ? 1
				    : pd_stat_moderated_t_floor(in->s.diff, in->s.var, in->s.phi,
								in->s.df, d->prior_df, d->prior_phi,
								block_post(d, in), NULL, NULL);
	if (isinf(in->stat))
		return 0;
	double t = in->stat / sqrt(d->inflation);
	return isinf(in->df) ? pd_stat_z_p2(t) : pd_stat_t_p2(t, in->df);
}

static double min_change(const pd_diff *d)
{
	if (d->opts.min_change >= 0)
		return d->opts.min_change;
	return (d->opts.flags & PD_DIFF_ABSOLUTE) ? 5.0 : 0.1;
}

static void summarise(pd_diff *d, dt_row *r)
{
	side_summary(&r->pub.base, r->vals, d->nruns[0]);
	side_summary(&r->pub.new, r->vals + d->nruns[0], d->nruns[1]);
	double b = r->pub.base.mean, nw = r->pub.new.mean;
	if (!(d->opts.flags & PD_DIFF_ABSOLUTE))
		r->pub.change = nw - b;
	else  /* the robot's convention for a base of 0 (lkp-perf-profile.md §6.2) */
		r->pub.change = nw == b ? 0 : 100.0 * (nw - b) / (b != 0 ? b : 1e-100);
}

/* p-values, q-values and significance, once the inputs are known. */
static int decide(pd_diff *d, const row_in *in)
{
	size_t n = d->nrows ? d->nrows : 1;
	double *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q);
	int rc = !p || !q ? PD_ENOMEM : 0;
	for (size_t i = 0; i < d->nrows && rc == 0; i++)
		p[i] = row_p(d, &in[i]);
	if (rc == 0)
		rc = pd_stat_bh(p, d->nrows, q);
	double mc = min_change(d);
	for (size_t i = 0; i < d->nrows && rc == 0; i++) {
		dt_row *r = &d->rows[i];
		r->pub.p_value = p[i];
		r->pub.q_value = q[i];
		r->pub.significant = q[i] <= d->opts.fdr && fabs(r->pub.change) >= mc;
	}
	free(p);
	free(q);
	return rc;
}

int pd_diff_row_stats(pd_diff *d, pd_error *err)
{
	row_in *in = malloc((d->nrows ? d->nrows : 1) * sizeof *in);
	int rc = in ? 0 : PD_ENOMEM;
	for (size_t i = 0; i < d->nrows && rc == 0; i++) {
		summarise(d, &d->rows[i]);
		row_inputs(d, &d->rows[i], &in[i]);
	}
	if (rc == 0 && d->test == PD_DIFF_TEST_MODERATED_T)
		rc = fit_prior(d, in, 0, &d->prior_df, &d->prior_phi, &d->prior_rows);
	if (rc == 0 && d->test != PD_DIFF_TEST_PROPORTION)
		rc = fit_prior(d, in, 1, &d->block_df, &d->block_phi, &d->block_rows);
	d->inflation = 1;
	if (rc == 0 && d->test != PD_DIFF_TEST_MODERATED_T) {
		for (size_t i = 0; i < d->nrows; i++)
			one_run_stat(d, &d->rows[i], &in[i]);
		rc = inflation(d, in);
	}
	if (rc == 0)
		rc = decide(d, in);
	free(in);
	if (rc < 0)
		return pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory");
	return 0;
}
