/*
 * The export's samples from a profile's sites (profile/sites.h): each
 * entry is one sample's leaf node, its frames' addresses and maps, and
 * its labels.  Its nodes from the leaf up, one per site, are grouped into
 * Locations: an inline frame joins the frame it was inlined into, which
 * has the same address, so each Location is one (mapping, address) with
 * its inline chain as Lines, innermost first, as pprof defines.  Samples
 * get the command, pid and tid (and CPU) of their entry; entries that
 * differ only in what the export does not write (the run, with every run
 * summed) add up in one sample.
 */
#include <stdlib.h>

#include "internal.h"

/* The nodes of `leaf`'s path, leaf first, into up[]: their number, or
 * SIZE_MAX beyond PP_MAX_DEPTH. */
static size_t path_of(const pd_cct_node *leaf, const pd_cct_node **up)
{
	size_t n = 0;
	for (const pd_cct_node *c = leaf; pd_cct_parent(c); c = pd_cct_parent(c)) {
		if (n == PP_MAX_DEPTH)
			return SIZE_MAX;
		up[n++] = c;
	}
	return n;
}

/* Whether node up[j] is inlined into up[j + 1] at the same place. */
static bool same_place(const pd_cct_node *const *up, const pd_site *s, size_t j)
{
	return pd_cct_inlined(up[j]) && s[j].addr == s[j + 1].addr && s[j].map == s[j + 1].map;
}

/* Entry `e`'s locations into loc[]: their number, or 0 with *rc set. */
static size_t locations(pp_tables *t, const pd_site_sample *e, const pd_cct_node **up,
			uint64_t *loc, int *rc)
{
	size_t n = path_of(e->leaf, up), nloc = 0;
	/* one site per node: anything else is a profile this code does not know */
	if (n == SIZE_MAX || n != e->nsites) {
		*rc = n == SIZE_MAX ? PD_ELIMIT : PD_EINVAL;
		return 0;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && j - i + 1 < PP_MAX_LINES && same_place(up, e->sites, j))
			j++;
		uint64_t id = pp_tables_site_location(t, up + i, e->sites + i, j - i + 1);
		if (!id) {
			*rc = PD_ENOMEM;
			return 0;
		}
		loc[nloc++] = id;
		i = j + 1;
	}
	*rc = 0;
	return nloc;
}

int pp_export_sites(pp_samples *s, pp_tables *t, const pd_profile *p, size_t ev, size_t run,
		    size_t slot, bool timed)
{
	const pd_cct_node **up = malloc(PP_MAX_DEPTH * sizeof *up);
	uint64_t *loc = malloc(PP_MAX_DEPTH * sizeof *loc);
	int rc = up && loc ? 0 : PD_ENOMEM;
	size_t n = pd_profile_site_count(p, ev);
	for (size_t i = 0; i < n && rc == 0; i++) {
		pd_site_sample e;
		pd_profile_site_sample(p, ev, i, &e);
		if ((run != SIZE_MAX && e.run != run) || (e.samples == 0 && e.period == 0))
			continue;
		size_t nloc = locations(t, &e, up, loc, &rc);
		pp_labels l = { e.comm, true, e.has_cpu, timed, e.pid, e.tid, e.cpu, e.block };
		if (rc == 0)
			rc = pp_samples_add(s, t, loc, nloc, &l, slot, e.samples, e.period);
	}
	free(up);
	free(loc);
	return rc;
}
