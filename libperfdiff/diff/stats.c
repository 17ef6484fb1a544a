/*
 * The tests behind a row's p-value, and the correction for testing
 * thousands of rows at once.
 *
 * Student's t distribution function comes from the regularised incomplete
 * beta function, P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2), evaluated with
 * the continued fraction of Abramowitz & Stegun 26.5.8 (modified Lentz),
 * on the side of the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) where it
 * converges fast.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double pd_stat_incbeta(double a, double b, double x)
{
	if (!(a > 0) || !(b > 0) || isnan(x))
		return NAN;
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	double bt = exp(lbt);
	if (x < (a + 1) / (a + b + 2))
		return bt * beta_cf(a, b, x) / a;
	return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

double pd_stat_z_p2(double z)
{
	if (isnan(z))
		return 1;
	return erfc(fabs(z) / sqrt(2.0));
}

double pd_stat_t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return 1;
	if (isinf(t))
		return 0;
	if (df > 1e7)
		return pd_stat_z_p2(t);
	double p = pd_stat_incbeta(df / 2, 0.5, df / (df + t * t));
	if (isnan(p))
		return 1;
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* ---------------------------------------------------------- polygamma */

/*
 * Digamma and trigamma: the recurrences ψ(x) = ψ(x+1) − 1/x and
 * ψ′(x) = ψ′(x+1) + 1/x² carry x above 10, where the asymptotic series
 * (Abramowitz & Stegun 6.3.18, 6.4.12) are good to 1e-13.
 */
double pd_stat_digamma(double x)
{
	if (!(x > 0) || isinf(x))
		return isinf(x) && x > 0 ? INFINITY : NAN;
	double acc = 0;
	while (x < 10) {
		acc -= 1 / x;
		x += 1;
	}
	double r = 1 / (x * x);
	return acc + log(x) - 0.5 / x -
	       r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * 1.0 / 132))));
}

double pd_stat_trigamma(double x)
{
	if (!(x > 0))
		return NAN;
	if (isinf(x))
		return 0;
	double acc = 0;
	while (x < 10) {
		acc += 1 / (x * x);
		x += 1;
	}
	double r = 1 / (x * x);
	return acc + 1 / x + r / 2 +
	       r / x * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30 - r * 5.0 / 66))));
}

double pd_stat_trigamma_inv(double y)
{
	if (!(y > 0) || isinf(y))
		return NAN;
	/* ψ′ falls monotonically from +∞ to 0 on (0, ∞), and ψ′(x) ≈ 1/x +
	 * 1/(2x²): limma's starting point, widened until it brackets */
	double lo = 0.5 + 1 / y, hi = lo;
	while (pd_stat_trigamma(lo) <= y)
		lo /= 2;
	while (pd_stat_trigamma(hi) >= y)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (pd_stat_trigamma(mid) > y)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* ------------------------------------------------------- moderated t */

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int pd_stat_fit_prior(const double *s2, const double *df, size_t n, double *d0,
		      double *s20)
{
	*d0 = 0;
	*s20 = 1;
	if (n < 2)
		return 0;
	double *v = malloc(n * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	memcpy(v, s2, n * sizeof *v);
	qsort(v, n, sizeof *v, dbl_cmp);
	double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	free(v);
	/* a variance of exactly 0 (runs that agree to the sample) has log −∞:
	 * offset as limma does */
	double lo = 1e-5 * (med > 0 ? med : 1);
	double emean = 0, tri = 0;
	for (size_t i = 0; i < n; i++) {
		double e = log(fmax(s2[i], lo)) - pd_stat_digamma(df[i] / 2) + log(df[i] / 2);
		emean += e;
		tri += pd_stat_trigamma(df[i] / 2);
	}
	emean /= (double)n;
	tri /= (double)n;
	double evar = 0;
	for (size_t i = 0; i < n; i++) {
		double e = log(fmax(s2[i], lo)) - pd_stat_digamma(df[i] / 2) + log(df[i] / 2);
		evar += (e - emean) * (e - emean);
	}
	evar = evar / (double)(n - 1) - tri;
	if (evar > 0) {
		*d0 = 2 * pd_stat_trigamma_inv(evar);
		*s20 = exp(emean + pd_stat_digamma(*d0 / 2) - log(*d0 / 2));
	} else {
		*d0 = INFINITY;
		*s20 = exp(emean);
	}
	return 0;
}

double pd_stat_batch_var(const uint32_t *x, const double *T, size_t K)
{
	double X = 0, all = 0;
	for (size_t b = 0; b < K; b++) {
		X += x[b];
		all += T[b];
	}
	if (K < 2 || !(all > 0))
		return NAN;
	double p = X / all, ss = 0;
	for (size_t b = 0; b < K; b++)
		ss += ((double)x[b] - p * T[b]) * ((double)x[b] - p * T[b]);
	return (double)K / (double)(K - 1) * ss / (all * all);
}

int pd_stat_pooled(const double *const vals[2], const size_t n[2],
		   const double *const unit[2], bool binomial, double *pooled, double *q,
		   double *samples)
{
	double c = 0, e = 0;
	size_t k = 0;
	for (int s = 0; s < 2; s++) {
		if (n[s] == 0)
			return PD_EINVAL;
		for (size_t i = 0; i < n[s]; i++) {
			if (!(unit[s][i] > 0))
				continue;
			c += vals[s][i] / unit[s][i];
			e += 1 / unit[s][i];
			k++;
		}
	}
	*pooled = e > 0 ? c / e : 0;
	*q = binomial ? fmax(0, 1 - *pooled / 100.0) : 1;
	*samples = k ? c / (double)k : 0;
	return 0;
}

int pd_stat_overdispersion(const double *const vals[2], const size_t n[2],
			   const double *const unit[2], bool binomial, pd_stat_row *out)
{
	memset(out, 0, sizeof *out);
	double pooled, q;
	if (pd_stat_pooled(vals, n, unit, binomial, &pooled, &q, &out->samples) < 0)
		return PD_EINVAL;
	double ratio = 0, mean[2] = { 0, 0 };
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < n[s]; i++)
			mean[s] += vals[s][i] / (double)n[s];
		double vsum = 0, ss = 0;
		size_t ks = 0;
		for (size_t i = 0; i < n[s]; i++) {
			ss += (vals[s][i] - mean[s]) * (vals[s][i] - mean[s]);
			if (unit[s][i] > 0) {
				vsum += unit[s][i] * pooled * q;
				ks++;
			}
		}
		double vbar = ks ? vsum / (double)ks : 0;
		if (!(vbar > 0))
			return PD_EINVAL;
		ratio += ss / vbar;
		out->var += vbar / (double)n[s];
		out->df += (double)n[s] - 1;
	}
	out->diff = mean[1] - mean[0];
	out->phi = out->df > 0 ? ratio / out->df : 1;
	return out->df > 0 ? 0 : PD_EINVAL;
}

double pd_stat_moderated_t(double diff, double var, double s2, double d, double d0, double s20,
			   double *t_out, double *df_out)
{
	return pd_stat_moderated_t_floor(diff, var, s2, d, d0, s20, 1, t_out, df_out);
}

double pd_stat_moderated_t_floor(double diff, double var, double s2, double d, double d0,
				 double s20, double floor_, double *t_out, double *df_out)
{
	if (t_out)
		*t_out = 0;
	if (df_out)
		*df_out = 0;
	if (!(d >= 0) || !(d0 >= 0) || (d + d0 == 0) || isnan(s2) || isnan(s20))
		return 1;
	double post = isinf(d0) ? s20 : (d0 * s20 + d * s2) / (d0 + d);
	if (!(post >= floor_))
		post = floor_ >= 1 ? floor_ : 1;
	double se2 = post * var;
	if (!(se2 > 0))
		return diff == 0 ? 1 : 0;
	double t = diff / sqrt(se2);
	double df = d + d0;
	if (t_out)
		*t_out = t;
	if (df_out)
		*df_out = df;
	return pd_stat_t_p2(t, isinf(df) ? 1e300 : df);
}

double pd_stat_rate_zscore(double c1, double e1, double c2, double e2, bool binomial)
{
	if (!(e1 > 0) || !(e2 > 0) || c1 < 0 || c2 < 0)
		return 0;
	double r = (c1 + c2) / (e1 + e2);
	double v = r * (1 / e1 + 1 / e2);
	if (binomial)
		v *= r < 1 ? 1 - r : 0;
	double d = c2 / e2 - c1 / e1;
	if (!(v > 0))
		return d == 0 ? 0 : d > 0 ? INFINITY : -INFINITY;
	return d / sqrt(v);
}

double pd_stat_rate_z(double c1, double e1, double c2, double e2, bool binomial)
{
	double z = pd_stat_rate_zscore(c1, e1, c2, e2, binomial);
	return isinf(z) ? 0 : pd_stat_z_p2(z);
}

typedef struct pq {
	double p;
	size_t i;
} pq;

static int pq_cmp(const void *a, const void *b)
{
	const pq *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int pd_stat_bh(const double *p, size_t n, double *q)
{
	if (n == 0)
		return 0;
	pq *v = malloc(n * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = (pq){ isnan(p[i]) ? 1.0 : p[i], i };
	qsort(v, n, sizeof *v, pq_cmp);
	/* q of rank k (1-based) is min over ranks j >= k of p_(j) · n / j */
	double run = 1.0;
	for (size_t k = n; k > 0; k--) {
		double x = v[k - 1].p * (double)n / (double)k;
		if (x < run)
			run = x;
		q[v[k - 1].i] = run;
	}
	free(v);
	return 0;
}
