/*
 * `perfdiff report --format=lkp` output; see report_lkp.h.
 */
#include "report_lkp.h"

static void print_keys(FILE *out, const pd_lkp_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s: %.2f\n", k[i].key, k[i].value);
}

int report_lkp(FILE *out, const pd_profile *p, const report_lkp_options *o,
	       pd_error *err)
{
	size_t ev = o ? o->event : PD_LKP_ALL_EVENTS;
	size_t runs = pd_profile_run_count(p);
	pd_lkp_key *k;
	size_t n;
	int rc;

	if (o && o->mean) {
		if ((rc = pd_lkp_keys_mean(&k, &n, p, ev, err)) < 0)
			return rc;
		fprintf(out, "# mean of %zu run%s\n", runs, runs == 1 ? "" : "s");
		print_keys(out, k, n);
		pd_lkp_keys_free(k, n);
		return 0;
	}
	for (size_t r = 0; r < runs; r++) {
		if ((rc = pd_lkp_keys(&k, &n, p, ev, r, err)) < 0)
			return rc;
		if (runs > 1) {
			if (o && o->files && r < o->nfiles)
				fprintf(out, "# %s\n", o->files[r]);
			else
				fprintf(out, "# run %zu\n", r + 1);
		}
		print_keys(out, k, n);
		pd_lkp_keys_free(k, n);
	}
	return 0;
}
