/*
 * perfdiff/report.h: the robot's keys from a pd_profile.  The profile's
 * tree is handed to lkp_walk (perf report's half), whose rows and chains
 * go into lkp_acc (the robot parser's half).
 */
#include "lkp_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static size_t cct_child_count(const void *n)
{
	return pd_cct_child_count(n);
}

static const void *cct_child(const void *n, size_t i)
{
	return pd_cct_child(n, i);
}

static const char *cct_symbol(const void *n)
{
	return pd_cct_symbol(n);
}

/* perf demangles user-space names only (symbol_conf.demangle_kernel is off). */
static const char *cct_name(void *ctx, const void *n)
{
	const char *raw = pd_cct_symbol(n);
	return pd_cct_kernel(n) ? raw : lkp_perf_name(ctx, raw);
}

static const char *cct_dso(const void *n)
{
	return pd_cct_dso(n);
}

static bool cct_inlined(const void *n)
{
	return pd_cct_inlined(n);
}

static uint64_t cct_self(const void *n, size_t run)
{
	return pd_cct_self(n, run);
}

static uint64_t cct_chainless(const void *n, size_t run)
{
	return pd_cct_chainless(n, run);
}

PD_EXTERN(void) pd_lkp_profile_options(pd_profile_options *opts, pd_session_options *session)
{
	if (session)
		session->flags |= PD_SESSION_PERF_COMPAT | PD_SESSION_NO_INLINE |
				  PD_SESSION_NO_DEMANGLE;
	if (!opts)
		return;
	opts->flags |= PD_PROFILE_KEEP_SUFFIXES | PD_PROFILE_HIDE_UNRESOLVED;
	if (session)
		opts->session = session;
}

static int check_args(pd_lkp_key **out, size_t *n, const pd_profile *p, size_t ev,
		      pd_error *err)
{
	if (!out || !n || !p)
		return pd_error_set(err, PD_EINVAL, "lkp", PD_NO_OFFSET,
				    "NULL argument");
	*out = NULL;
	*n = 0;
	if (ev != PD_LKP_ALL_EVENTS && ev >= pd_profile_event_count(p))
		return pd_error_set(err, PD_EINVAL, "lkp", PD_NO_OFFSET,
				    "no event %zu (the profile has %zu)", ev,
				    pd_profile_event_count(p));
	return 0;
}

/* One perf report of run `run`: events in file order, as perf prints them. */
static int fold_run(lkp_acc *a, lkp_names *names, const pd_profile *p, size_t ev,
		    size_t run)
{
	size_t first = ev == PD_LKP_ALL_EVENTS ? 0 : ev;
	size_t last = ev == PD_LKP_ALL_EVENTS ? pd_profile_event_count(p) : ev + 1;
	for (size_t e = first; e < last; e++) {
		lkp_tree t = {
			.root = pd_profile_root(p, e),
			.child_count = cct_child_count,
			.child = cct_child,
			.symbol = cct_symbol,
			.name = cct_name,
			.ctx = names,
			.dso = cct_dso,
			.inlined = cct_inlined,
			.self = cct_self,
			.chainless = cct_chainless,
		};
		uint64_t total;
		int rc = lkp_walk(a, &t, run, pd_profile_event_name(p, e), &total);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int nomem(pd_error *err)
{
	return pd_error_set(err, PD_ENOMEM, "lkp", PD_NO_OFFSET, "out of memory");
}

PD_EXTERN(int) pd_lkp_keys(pd_lkp_key **out, size_t *n, const pd_profile *p,
			   size_t ev, size_t run, pd_error *err)
{
	int rc = check_args(out, n, p, ev, err);
	if (rc < 0)
		return rc;
	if (run != PD_LKP_ALL_RUNS && run >= pd_profile_run_count(p))
		return pd_error_set(err, PD_EINVAL, "lkp", PD_NO_OFFSET,
				    "no run %zu (the profile has %zu)", run,
				    pd_profile_run_count(p));
	lkp_acc *a = NULL;
	lkp_names *names = NULL;
	if (lkp_acc_new(&a) < 0 || lkp_names_new(&names) < 0) {
		lkp_acc_free(a);
		return nomem(err);
	}
	rc = fold_run(a, names, p, ev, run);
	if (rc == 0)
		rc = lkp_acc_result(a, 5, 1.0, out, n);
	lkp_acc_free(a);
	lkp_names_free(names);
	return rc < 0 ? nomem(err) : 0;
}

static int by_key(const void *k, const void *e)
{
	return strcmp(k, ((const pd_lkp_key *)e)->key);
}

/*
 * Ruby's Array#sum of floats, which the robot's average uses: Kahan-
 * Babuska (Neumaier) compensated, in run order.  Only ties at the third
 * decimal could tell it from a plain sum, but those are common here: the
 * values are 2-decimal numbers and the means of few of them.
 */
static double ruby_sum(const double *x, size_t n)
{
	double f = 0, c = 0;
	for (size_t i = 0; i < n; i++) {
		double t = f + x[i];
		if (fabs(f) >= fabs(x[i]))
			c += (f - t) + x[i];
		else
			c += (x[i] - t) + f;
		f = t;
	}
	return f + c;
}

PD_EXTERN(int) pd_lkp_keys_mean(pd_lkp_key **out, size_t *n, const pd_profile *p,
				size_t ev, pd_error *err)
{
	int rc = check_args(out, n, p, ev, err);
	if (rc < 0)
		return rc;
	size_t runs = pd_profile_run_count(p);
	if (!runs)
		return 0;
	pd_lkp_key **k = calloc(runs, sizeof *k);
	size_t *nk = calloc(runs, sizeof *nk);
	double *x = calloc(runs, sizeof *x);
	lkp_acc *all = NULL;
	if (!k || !nk || !x || lkp_acc_new(&all) < 0)
		rc = nomem(err);
	for (size_t r = 0; rc == 0 && r < runs; r++)
		rc = pd_lkp_keys(&k[r], &nk[r], p, ev, r, err);
	/* the keys of any run, sorted; then each one's zero-filled mean */
	for (size_t r = 0; rc == 0 && r < runs; r++)
		for (size_t i = 0; rc == 0 && i < nk[r]; i++)
			if (lkp_acc_add(all, k[r][i].key, 1) < 0)
				rc = nomem(err);
	if (rc == 0 && lkp_acc_result(all, 1, 1.0, out, n) < 0)
		rc = nomem(err);
	for (size_t i = 0; rc == 0 && i < *n; i++) {
		for (size_t r = 0; r < runs; r++) {
			const pd_lkp_key *e = bsearch((*out)[i].key, k[r], nk[r],
						      sizeof *k[r], by_key);
			x[r] = e ? e->value : 0;
		}
		(*out)[i].value = ruby_sum(x, runs) / (double)runs;
	}
	if (rc < 0) {
		pd_lkp_keys_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	for (size_t r = 0; k && r < runs; r++)
		pd_lkp_keys_free(k[r], nk[r]);
	free(k);
	free(nk);
	free(x);
	lkp_acc_free(all);
	return rc;
}
