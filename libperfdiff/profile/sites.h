/*
 * A profile's sites: what PD_PROFILE_KEEP_SITES keeps besides the trees,
 * for the pprof export (docs/pprof.md).  The trees key frames by name, so
 * they have no addresses, pids or tids; with the flag, folding also adds
 * each sample to a table keyed by its leaf node, its frames' instruction
 * addresses and maps, and its command, pid, tid, time block (and CPU
 * with PD_PROFILE_KEEP_CPU).  An entry's sites are one per node of the
 * leaf's path, leaf first, so the export names a site by its node and
 * places it by its address.  The profile stage's interface for pprof/
 * (docs/architecture.md).
 */
#ifndef PD_PROFILE_SITES_H
#define PD_PROFILE_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/profile.h"

#define PD_SITE_NONE UINT32_MAX

/* A frame's place: its address as recorded, the map holding it
 * (pd_profile_site_map()) and its raw name (pd_profile_site_raw()). */
typedef struct pd_site {
	uint64_t addr;
	uint32_t map;
	uint32_t raw;              /* PD_SITE_NONE: no symbol */
} pd_site;

/* A map as the recording's MMAP records laid it out; start = end = 0: the
 * frame was in no map. */
typedef struct pd_site_map {
	const char *dso;
	bool kernel;               /* frames of kernel mode */
	uint64_t start, end, pgoff;
} pd_site_map;

/* One entry: the samples of one (leaf, sites, labels) in one run. */
typedef struct pd_site_sample {
	const pd_cct_node *leaf;
	size_t run;
	uint32_t pid, tid, cpu;
	bool has_cpu;              /* PD_PROFILE_KEEP_CPU */
	const char *comm;
	uint32_t block;            /* the time block (0 without times) */
	uint64_t samples, period;
	const pd_site *sites;      /* one per node from the leaf up, leaf first */
	size_t nsites;
} pd_site_sample;

/* Whether every run of `run` (SIZE_MAX: all) was folded keeping sites. */
bool pd_profile_has_sites(const pd_profile *p, size_t run);
/* The entries of event `ev`, any run. */
size_t pd_profile_site_count(const pd_profile *p, size_t ev);
void pd_profile_site_sample(const pd_profile *p, size_t ev, size_t i, pd_site_sample *out);
void pd_profile_site_map(const pd_profile *p, uint32_t map, pd_site_map *out);
/* The raw name of id `raw`; NULL for PD_SITE_NONE. */
const char *pd_profile_site_raw(const pd_profile *p, uint32_t raw);

#endif
