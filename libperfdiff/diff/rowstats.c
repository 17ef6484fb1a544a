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
 *
 * Rows of different processes vary differently: on a busy machine another
 * job's rows swing by tens of points from run to run while the program's
 * hold still.  So the priors and the inflation are per process (the
 * command with most of the row's samples, strata.c), and with one run a
 * side a row is tested within its processes (the Cochran–Mantel–Haenszel
 * sums), not against shares that another job's coming and going moves.
 *
 * Only rows that can be significant are tested together: a row whose
 * pooled share is too small to ever change by min_change, or whose
 * samples are too few for any split of them between the sides to reach
 * the FDR level, leaves the family before the correction (independent
 * filtering, Bourgon, Gentleman & Huber 2010: the filter ignores which
 * run is on which side, so it leaves the tests' p-values as they are and
 * only spares the correction hundreds of hopeless rows).
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
	pd_stat_row s;        /* on the values within the row's processes (svals) */
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
	/* the row's own variation: its values standardized to its processes'
	 * mean shares (strata.c) */
	const double *vals[2] = { r->svals, r->svals + d->nruns[0] };
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
 * The priors, per process.  Group g < ng holds the rows whose process is
 * command g; group ng every row, for rows without a process and for
 * processes without rows to fit on.  `which` 0: the runs' φ̂, 1: the
 * blocks'.
 */
typedef struct dt_prior {
	double d0, phi0;
	size_t rows;     /* self rows it was fitted on (0: the default) */
} dt_prior;

typedef struct groups {
	size_t ng;          /* processes; [ng] is all rows together */
	dt_prior *runs, *blocks;
	double *infl;       /* one run a side: each group's inflation */
	uint32_t *member;   /* rows by their process, those without one last */
	size_t *at;         /* process k's rows: member[at[k] .. at[k + 1]) */
} groups;

/* The group of row i: its process, or all rows when it has none or its
 * process has no prior of its own (`pri` NULL: its process alone). */
static size_t group_of(const pd_diff *d, const groups *g, const dt_prior *pri, size_t i)
{
	uint32_t p = d->rows[i].proc;
	if (p == DT_NONE || p >= g->ng)
		return g->ng;
	return !pri || pri[p].rows ? p : g->ng;
}

/* A row's φ̂ and its degrees of freedom for prior `which`: 0 the runs',
 * 1 the time blocks'. */
static double phi_of(const row_in *in, int which)
{
	return which ? in->bphi : in->s.phi;
}

static double df_of(const row_in *in, int which)
{
	return which ? in->bdf : in->s.df;
}

/* Can row i inform a prior: a self row with enough samples a run to
 * follow the binomial model (self shares partition the samples, so they
 * are close to independent; children and calltrace rows repeat them). */
static bool informs(const pd_diff *d, const row_in *in, size_t i, int which)
{
	double p = phi_of(&in[i], which), f = df_of(&in[i], which);
	bool ok = which ? f > 0 : in[i].runs_ok;
	return d->rows[i].pub.metric == PD_DIFF_SELF && ok && isfinite(p) &&
	       in[i].s.samples >= DT_PRIOR_MIN_SAMPLES;
}

static int dbl_cmp(const void *a, const void *b);

/* The median of v[0..n) on a log scale (the geometric mean of the middle
 * two for even n), at least 1e-3; v is sorted. */
static double log_median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, dbl_cmp);
	double a = fmax(v[(n - 1) / 2], 1e-3), b = fmax(v[n / 2], 1e-3);
	return sqrt(a * b);
}

/*
 * The prior of a group's rows: with DT_PRIOR_MIN_ROWS of them, Smyth's
 * fit (pd_stat_fit_prior) with d0 at most the degrees of freedom behind
 * it; with fewer, their median φ̂ on a log scale (1 without any, rows 0;
 * one row of a process that swings, a program's page faults say, must not
 * set the others' variation) held with DT_PRIOR_D0 degrees of freedom.
 */
static int fit_one(const pd_diff *d, const row_in *in, int which, size_t grp,
		   const groups *g, double *phi, double *df, dt_prior *out)
{
	size_t n = 0, lo = grp < g->ng ? g->at[grp] : 0;
	size_t hi = grp < g->ng ? g->at[grp + 1] : d->nrows;
	double sum_df = 0;
	for (size_t k = lo; k < hi; k++) {
		size_t i = grp < g->ng ? g->member[k] : k;
		if (!informs(d, in, i, which))
			continue;
		phi[n] = phi_of(&in[i], which);
		df[n] = df_of(&in[i], which);
		sum_df += df[n++];
	}
	out->rows = n;
	int rc = 0;
	if (n >= DT_PRIOR_MIN_ROWS) {
		rc = pd_stat_fit_prior(phi, df, n, &out->d0, &out->phi0);
		if (!(out->d0 <= sum_df))
			out->d0 = sum_df;
	} else {
		out->phi0 = n ? log_median(phi, n) : 1;
		out->d0 = n && sum_df < DT_PRIOR_D0 ? sum_df : DT_PRIOR_D0;
	}
	/* no prior below sampling noise: rows that agree run for run (a
	 * process sampled a handful of times, a periodic sampler on a steady
	 * loop) must not pull another row's own spread down */
	out->phi0 = fmax(1, out->phi0);
	return rc;
}

/* Every group's prior of kind `which`, into pri[0..ng]. */
static int fit_priors(const pd_diff *d, const row_in *in, int which, const groups *g,
		      dt_prior *pri)
{
	size_t n = d->nrows ? d->nrows : 1;
	double *phi = malloc(n * sizeof *phi), *df = malloc(n * sizeof *df);
	int rc = phi && df ? 0 : PD_ENOMEM;
	for (size_t k = 0; k <= g->ng && rc == 0; k++)
		rc = fit_one(d, in, which, k, g, phi, df, &pri[k]);
	free(phi);
	free(df);
	return rc;
}

/* The blocks' φ̃ of row i (1 without blocks): its own φ̂ shrunk to its
 * group's prior. */
/*
 * The prior's degrees of freedom for a row whose own φ̂ on `df` degrees of
 * freedom is `phi`: the prior's, unless the row varies far more than the
 * prior allows (its φ̂/φ0 beyond the F(df, d0) distribution's upper
 * DT_HYPERVARIABLE tail): such a row is not one of the prior's (another
 * job's activity that two or three runs happened to catch alike on each
 * side), and shrinking its variance toward its neighbours' would make its
 * swings look like a change.  It keeps its own (d0 = 0), as in limma's
 * robust fit (Phipson et al. 2016), which moves such rows' d0 toward 0.
 */
static double prior_df(double phi, double df, const dt_prior *pr)
{
	if (!(df > 0) || !(pr->d0 > 0) || !(phi > pr->phi0))
		return pr->d0;
	double d0 = isinf(pr->d0) ? 1e7 : pr->d0, f = phi / pr->phi0;
	double tail = pd_stat_incbeta(d0 / 2, df / 2, d0 / (d0 + df * f));
	return tail < DT_HYPERVARIABLE ? 0 : pr->d0;
}

static double block_post(const pd_diff *d, const groups *g, const row_in *in, size_t i)
{
	const dt_prior *pr = &g->blocks[group_of(d, g, g->blocks, i)];
	if (!(in[i].bdf > 0) || !isfinite(in[i].bphi))
		return d->block_rows ? fmax(1, pr->phi0) : 1;
	double d0 = prior_df(in[i].bphi, in[i].bdf, pr), s20 = pr->phi0;
	if (d0 == 0)
		return fmax(1, in[i].bphi);
	double post = isinf(d0) ? s20 : (d0 * s20 + in[i].bdf * in[i].bphi) / (d0 + in[i].bdf);
	return fmax(1, post);
}

/* Is row i tested within its processes (one run a side, strata.c)? */
static bool stratified(const pd_diff *d, size_t i)
{
	return d->strata && d->rows[i].proc != DT_NONE;
}

/*
 * One run a side: the statistic of the blocks' or the proportion test.
 * A row that knows its processes is tested on its share within them
 * (the CMH z): its own change, whatever its processes' totals did.
 */
static void one_run_stat(const pd_diff *d, const groups *g, row_in *in, size_t i)
{
	const dt_row *r = &d->rows[i];
	bool prop = d->test == PD_DIFF_TEST_PROPORTION;
	double post = prop ? 1 : block_post(d, g, in, i);
	in[i].df = prop ? INFINITY
			: (in[i].bdf > 0 ? in[i].bdf : 0) + g->blocks[group_of(d, g, g->blocks, i)].d0;
	if (stratified(d, i)) {
		double z = r->cmh_v > 0 ? r->cmh_u / sqrt(r->cmh_v * post) : 0;
		/* within its processes the row moved against its share of the
		 * whole: not a change of its own */
		in[i].stat = z * r->pub.change < 0 ? 0 : z;
		return;
	}
	if (prop) {
		in[i].stat = proportion_z(d, r);
		return;
	}
	double v = post * in[i].s.var;
	in[i].stat = v > 0 ? in[i].s.diff / sqrt(v) : in[i].s.diff == 0 ? 0 : INFINITY;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Can row i inform the inflation of its group: a self row with enough
 * samples whose test had something to judge. */
static bool inflation_row(const pd_diff *d, const row_in *in, size_t i)
{
	return d->rows[i].pub.metric == PD_DIFF_SELF && isfinite(in[i].stat) &&
	       in[i].s.samples >= DT_PRIOR_MIN_SAMPLES &&
	       (!stratified(d, i) || d->rows[i].cmh_v > 0);
}

/*
 * One run a side cannot show how two runs of one setup differ as a
 * whole.  The rows show it themselves: if nothing changed, their
 * statistics' squares follow χ²(1); a larger spread is variation the test
 * does not cover, and every variance is raised by that factor (genomic
 * control, Devlin & Roeder 1999).  Per process, over its self rows with
 * enough samples (nearly independent), from their lower quartile rather
 * than the median: one changed function moves every other row of its
 * process a little (their shares within it make 100 %), and a process
 * has few rows.  A process with fewer than DT_INFLATION_MIN_ROWS such
 * rows is not inflated: its runs' time blocks are all that judges it.
 */
static int inflation(pd_diff *d, const row_in *in, groups *g)
{
	double *z2 = malloc((d->nrows ? d->nrows : 1) * sizeof *z2);
	if (!z2)
		return PD_ENOMEM;
	d->inflation = 1;
	for (size_t k = 0; k <= g->ng; k++) {
		size_t n = 0;
		for (size_t m = g->at[k]; m < g->at[k + 1]; m++)
			if (inflation_row(d, in, g->member[m]))
				z2[n++] = in[g->member[m]].stat * in[g->member[m]].stat;
		g->infl[k] = 1;
		if (n >= DT_INFLATION_MIN_ROWS) {
			qsort(z2, n, sizeof *z2, dbl_cmp);
			double q = z2[(n - 1) / 4];
			g->infl[k] = fmax(1, q / DT_CHI2_1_Q25);
		}
		d->inflation = fmax(d->inflation, g->infl[k]);
	}
	free(z2);
	return 0;
}

/* The moderated t-test of one of a row's two views with its group's
 * prior. */
static double moderated_p(const pd_diff *d, const groups *g, const row_in *in, size_t i,
			  const pd_stat_row *s, const dt_prior *pri)
{
	const dt_prior *pr = &pri[group_of(d, g, pri, i)];
	double d0 = prior_df(s->phi, s->df, pr);
	return pd_stat_moderated_t_floor(s->diff, s->var, s->phi, s->df, d0, pr->phi0,
					 block_post(d, g, in, i), NULL, NULL);
}

/*
 * With runs, a row that knows its processes is tested on its values
 * standardized to its processes' mean shares (strata.c): another job's
 * coming and going, or a build taking the program's CPU in some runs,
 * moves a process's share of the machine, and would move every row of it.
 * The standardized change must go the way the row's share moved, or it is
 * not a change of the row's own.
 */
static double runs_p(const pd_diff *d, const groups *g, const row_in *in, size_t i)
{
	if (!in[i].runs_ok || in[i].s.diff * d->rows[i].pub.change < 0)
		return 1;
	return moderated_p(d, g, in, i, &in[i].s, g->runs);
}

static double row_p(const pd_diff *d, const groups *g, const row_in *in, size_t i)
{
	if (d->test == PD_DIFF_TEST_MODERATED_T)
		return runs_p(d, g, in, i);
	if (isinf(in[i].stat))
		return 0;
	double t = in[i].stat / sqrt(g->infl[group_of(d, g, NULL, i)]);
	return isinf(in[i].df) ? pd_stat_z_p2(t) : pd_stat_t_p2(t, in[i].df);
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

/* The |z| a two-sided test needs for p = fdr. */
static double z_needed(double fdr)
{
	double lo = 0, hi = 40;
	for (int i = 0; i < 100; i++) {
		double mid = 0.5 * (lo + hi);
		if (pd_stat_z_p2(mid) > fdr)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/*
 * Can row r be significant, whichever runs are on which side?  (1) A
 * share: the change is at most the larger side's mean, which is at most
 * the mean over all N runs times N / (runs of the smaller side): below
 * min_change, never.  (2) Samples: c of them over all runs, all on the
 * side of smaller exposure, give the largest z a count test can, √(c ·
 * E_max / E_min); every test here is at least as strict (φ̃ ≥ 1, t's
 * heavier tails), so below the z that the FDR level needs, never.
 */
static bool can_reach(const pd_diff *d, const dt_row *r, double mc, double z)
{
	size_t nb = d->nruns[0], nn = d->nruns[1], N = nb + nn;
	double sum = 0, c = 0, e[2] = { 0, 0 };
	for (size_t i = 0; i < N; i++) {
		double u = d->sunit[i < nb][i < nb ? i : i - nb];
		sum += r->vals[i];
		if (u > 0) {
			c += r->vals[i] / u;
			e[i >= nb] += 1 / u;
		}
	}
	if (!(d->opts.flags & PD_DIFF_ABSOLUTE) &&
	    sum / (double)(nb < nn ? nb : nn) < mc * (1 - 1e-9))
		return false;
	double lo = fmin(e[0], e[1]), hi = fmax(e[0], e[1]);
	return lo > 0 && c * hi / lo >= z * z * (1 - 1e-9);
}

/* p-values, q-values over the rows that can be significant, and
 * significance. */
static int decide(pd_diff *d, const groups *g, const row_in *in)
{
	size_t n = d->nrows ? d->nrows : 1;
	double *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q);
	size_t *fam = malloc(n * sizeof *fam);
	int rc = !p || !q || !fam ? PD_ENOMEM : 0;
	double mc = min_change(d), z = z_needed(d->opts.fdr);
	d->tested = 0;
	for (size_t i = 0; i < d->nrows && rc == 0; i++) {
		dt_row *r = &d->rows[i];
		r->pub.p_value = row_p(d, g, in, i);
		r->pub.q_value = 1;
		r->pub.tested = can_reach(d, r, mc, z);
		if (r->pub.tested) {
			p[d->tested] = r->pub.p_value;
			fam[d->tested++] = i;
		}
	}
	if (rc == 0)
		rc = pd_stat_bh(p, d->tested, q);
	for (size_t k = 0; k < d->tested && rc == 0; k++)
		d->rows[fam[k]].pub.q_value = q[k];
	for (size_t i = 0; i < d->nrows && rc == 0; i++) {
		dt_row *r = &d->rows[i];
		r->pub.significant =
			r->pub.tested && r->pub.q_value <= d->opts.fdr && fabs(r->pub.change) >= mc;
	}
	free(p);
	free(q);
	free(fam);
	return rc;
}

/* The rows by process (counting sort): each group's rows one run of
 * g->member, so that no group's loop walks every row. */
static int sort_members(const pd_diff *d, groups *g)
{
	for (size_t i = 0; i < d->nrows; i++)
		g->at[group_of(d, g, NULL, i) + 1]++;
	for (size_t k = 0; k <= g->ng; k++)
		g->at[k + 1] += g->at[k];
	size_t *next = malloc((g->ng + 1) * sizeof *next);
	if (!next)
		return PD_ENOMEM;
	memcpy(next, g->at, (g->ng + 1) * sizeof *next);
	for (size_t i = 0; i < d->nrows; i++)
		g->member[next[group_of(d, g, NULL, i)]++] = (uint32_t)i;
	free(next);
	return 0;
}

static int groups_init(pd_diff *d, groups *g)
{
	memset(g, 0, sizeof *g);
	g->ng = d->strata ? d->nprocs : 0;
	g->runs = calloc(g->ng + 1, sizeof *g->runs);
	g->blocks = calloc(g->ng + 1, sizeof *g->blocks);
	g->infl = calloc(g->ng + 1, sizeof *g->infl);
	for (size_t k = 0; g->infl && k <= g->ng; k++)
		g->infl[k] = 1;
	g->member = malloc((d->nrows ? d->nrows : 1) * sizeof *g->member);
	g->at = calloc(g->ng + 2, sizeof *g->at);
	if (!g->runs || !g->blocks || !g->infl || !g->member || !g->at)
		return PD_ENOMEM;
	return sort_members(d, g);
}

static void groups_free(groups *g)
{
	free(g->runs);
	free(g->blocks);
	free(g->infl);
	free(g->member);
	free(g->at);
}

static int by_samples(const void *a, const void *b)
{
	const pd_diff_process *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

/* What pd_diff_process_at() says of each process: its rows, its prior and
 * its inflation. */
static int keep_processes(pd_diff *d, const groups *g)
{
	if (!g->ng)
		return 0;
	pd_diff_process *v = pd_arena_alloc(&d->arena, g->ng * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	const dt_prior *pri = d->test == PD_DIFF_TEST_MODERATED_T ? g->runs : g->blocks;
	for (size_t k = 0; k < g->ng; k++) {
		const dt_prior *p = &pri[pri[k].rows ? k : g->ng];
		bool prop = d->test == PD_DIFF_TEST_PROPORTION;  /* sampling noise alone */
		v[k] = (pd_diff_process){ d->procs[k], (uint64_t)d->proc_samples[k], 0,
					  prop ? 1 : p->phi0, prop ? 0 : p->d0,
					  prop ? 0 : pri[k].rows, g->infl[k], d->proc_pids[k] };
	}
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].proc != DT_NONE && d->rows[i].proc < g->ng)
			v[d->rows[i].proc].rows++;
	qsort(v, g->ng, sizeof *v, by_samples);
	d->pubprocs = v;
	return 0;
}

/* The priors the diff reports (pd_diff_test_prior(), pd_diff_block_prior()):
 * those of all rows together. */
static void keep_priors(pd_diff *d, const groups *g)
{
	d->prior_df = g->runs[g->ng].d0;
	d->prior_phi = g->runs[g->ng].phi0;
	d->prior_rows = g->runs[g->ng].rows;
	d->block_df = g->blocks[g->ng].d0;
	d->block_phi = g->blocks[g->ng].phi0;
	d->block_rows = g->blocks[g->ng].rows;
}

int pd_diff_row_stats(pd_diff *d, pd_error *err)
{
	row_in *in = malloc((d->nrows ? d->nrows : 1) * sizeof *in);
	groups g;
	int rc = groups_init(d, &g);
	if (!in)
		rc = PD_ENOMEM;
	for (size_t i = 0; i < d->nrows && rc == 0; i++) {
		summarise(d, &d->rows[i]);
		row_inputs(d, &d->rows[i], &in[i]);
	}
	if (rc == 0 && d->test == PD_DIFF_TEST_MODERATED_T)
		rc = fit_priors(d, in, 0, &g, g.runs);
	if (rc == 0 && d->test != PD_DIFF_TEST_PROPORTION)
		rc = fit_priors(d, in, 1, &g, g.blocks);
	if (rc == 0)
		keep_priors(d, &g);
	d->inflation = 1;
	if (rc == 0 && d->test != PD_DIFF_TEST_MODERATED_T) {
		for (size_t i = 0; i < d->nrows; i++)
			one_run_stat(d, &g, in, i);
		rc = inflation(d, in, &g);
	}
	if (rc == 0)
		rc = decide(d, &g, in);
	if (rc == 0)
		rc = keep_processes(d, &g);
	free(in);
	groups_free(&g);
	if (rc < 0)
		return pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory");
	return 0;
}
