/*
 * pd_report_write() in the kernel test robot's layout: its perf-profile
 * keys (perfdiff/report.h), one "key: value" line each, exactly as the
 * robot's parser prints them for the same perf.data.  One run: only the
 * key lines (the robot's output verbatim); several runs: a "# NAME" line
 * before each run's keys; `mean`: a "# mean of N runs" line, then the
 * means (a key missing in a run counts as 0 there, as in the robot's
 * compare table).
 */
#include "internal.h"
#include "perfdiff/report.h"

static void put_keys(pd_writer *w, const pd_lkp_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pdo_printf(w, "%s: %.2f\n", k[i].key, k[i].value);
	pdo_flush_some(w);
}

static int put_mean(const pdo_report *r, size_t ev, size_t runs)
{
	pd_lkp_key *k;
	size_t n;
	int rc = pd_lkp_keys_mean(&k, &n, r->p, ev, r->err);
	if (rc < 0)
		return rc;
	pdo_printf(r->w, "# mean of %zu run%s\n", runs, runs == 1 ? "" : "s");
	put_keys(r->w, k, n);
	pd_lkp_keys_free(k, n);
	return 0;
}

static int put_run(const pdo_report *r, size_t ev, size_t run, size_t runs)
{
	pd_lkp_key *k;
	size_t n;
	int rc = pd_lkp_keys(&k, &n, r->p, ev, run, r->err);
	if (rc < 0)
		return rc;
	if (runs > 1) {
		if (r->o.files && run < r->o.nfiles)
			pdo_printf(r->w, "# %s\n", r->o.files[run]);
		else
			pdo_printf(r->w, "# run %zu\n", run + 1);
	}
	put_keys(r->w, k, n);
	pd_lkp_keys_free(k, n);
	return 0;
}

int pdo_report_lkp(const pdo_report *r)
{
	size_t ev = r->o.event >= 0 ? (size_t)r->o.event : PD_LKP_ALL_EVENTS;
	size_t runs = pd_profile_run_count(r->p);
	if (r->o.mean)
		return put_mean(r, ev, runs);
	int rc = 0;
	for (size_t i = 0; i < runs && rc == 0 && !r->w->failed; i++)
		rc = put_run(r, ev, i, runs);
	return rc;
}
