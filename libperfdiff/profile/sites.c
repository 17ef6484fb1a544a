/*
 * Sites (profile/sites.h): with PD_PROFILE_KEEP_SITES, each folded sample
 * is also counted under its leaf node, its frames' addresses and maps and
 * its labels, for the pprof export's Locations per address, Mappings and
 * pid/tid labels, which the name-keyed trees cannot give.
 *
 * A frame's map and raw name come as the session's values and pointers;
 * two direct-mapped caches turn them into the profile's ids so that most
 * frames cost a compare, not a hash of strings.  A thread's samples often
 * repeat its previous stack, so the entry it last hit is tried first.
 */
#include <stdlib.h>

#include "pipeline.h"
#include "sites.h"

void pd_sitetab_init(pd_sitetab *t)
{
	memset(t, 0, sizeof *t);
	pd_idmap_init(&t->index);
}

void pd_sitetab_free(pd_sitetab *t)
{
	free(t->v);
	free(t->sites);
	pd_idmap_free(&t->index);
	pd_sitetab_init(t);
}

void pd_sitemaps_free(pd_sitemaps *m)
{
	free(m->v);
	free(m->run);
	pd_u64map_free(&m->index);
}

void pd_sitefold_init(pd_sitefold *f)
{
	memset(f, 0, sizeof *f);
}

void pd_sitefold_free(pd_sitefold *f)
{
	free(f->maps);
	free(f->raws);
	free(f->scratch);
}

int pd_sites_begin_run(pd_profile *p, pd_sitefold *f, size_t run)
{
	pd_sitemaps *m = &p->sitemaps;
	size_t had = m->cap_run;
	if (pd_grow(&m->run, &m->cap_run, run + 1, sizeof *m->run) < 0)
		return PD_ENOMEM;
	memset(m->run + had, 0, (m->cap_run - had) * sizeof *m->run);
	m->run[run] = true;
	f->maps = calloc(PD_SITEFOLD_MAPS, sizeof *f->maps);
	f->raws = calloc(PD_SITEFOLD_RAWS, sizeof *f->raws);
	return f->maps && f->raws ? 0 : PD_ENOMEM;
}

static bool same_map(const pd_sitemap *a, const pd_sitemap *b)
{
	return a->dso == b->dso && a->kernel == b->kernel && a->start == b->start &&
	       a->end == b->end && a->pgoff == b->pgoff;
}

/* The profile's id of map `k`, added if new; PD_NO_ID without memory. */
static uint32_t map_id(pd_profile *p, const pd_sitemap *k)
{
	pd_sitemaps *m = &p->sitemaps;
	uint64_t w[4] = { (uint64_t)k->dso << 1 | k->kernel, k->start, k->end, k->pgoff };
	uint64_t h = pd_hash_words(w, sizeof w);
	for (;; h++) {
		uintptr_t i = (uintptr_t)pd_u64map_get(&m->index, h);
		if (!i)
			break;
		if (same_map(&m->v[i - 1], k))
			return (uint32_t)(i - 1);
	}
	if (m->n >= PD_ID_LIMIT || pd_grow(&m->v, &m->cap, m->n + 1, sizeof *m->v) < 0 ||
	    pd_u64map_put(&m->index, h, (void *)(uintptr_t)(m->n + 1)) < 0)
		return PD_NO_ID;
	m->v[m->n] = *k;
	return (uint32_t)m->n++;
}

/* The map of frame `k` at `s`, through the run's cache. */
static uint32_t frame_map(pd_profile *p, pd_sitefold *f, const pd_fkey *k, const pd_fsite *s)
{
	bool kernel = (k->flags & PD_PF_KERNEL) != 0;
	const char *dso = k->dso ? k->dso : "[unknown]";
	uint64_t h = pd_mix64(s->start ^ (uint64_t)(uintptr_t)dso ^ s->pgoff * 31 ^ kernel);
	pd_sitefold_map *c = &f->maps[h & (PD_SITEFOLD_MAPS - 1)];
	if (c->dso == dso && c->start == s->start && c->end == s->end && c->pgoff == s->pgoff &&
	    c->kernel == kernel && c->id != 0)
		return c->id - 1;
	pd_sitemap key = { pd_strtab_intern(&p->strings, dso, strlen(dso)), kernel, s->start,
			   s->end, s->pgoff };
	uint32_t id = key.dso == PD_NO_ID ? PD_NO_ID : map_id(p, &key);
	if (id != PD_NO_ID)
		*c = (pd_sitefold_map){ dso, s->start, s->end, s->pgoff, kernel, id + 1 };
	return id;
}

/* The string id of raw name `raw` (NULL: PD_SITE_NONE), through the cache. */
static uint32_t raw_id(pd_profile *p, pd_sitefold *f, const char *raw, bool *nomem)
{
	if (!raw)
		return PD_SITE_NONE;
	pd_sitefold_raw *c = &f->raws[pd_mix64((uintptr_t)raw) & (PD_SITEFOLD_RAWS - 1)];
	if (c->raw == raw)
		return c->id;
	uint32_t id = pd_strtab_intern(&p->strings, raw, strlen(raw));
	if (id == PD_NO_ID)
		*nomem = true;
	else
		*c = (pd_sitefold_raw){ raw, id };
	return id;
}

/* The record's sites as the profile's ids, into f->scratch. */
static int record_sites(pd_profile *p, pd_sitefold *f, const pd_srec *r)
{
	if (pd_grow(&f->scratch, &f->cap_scratch, r->nframes, sizeof *f->scratch) < 0)
		return PD_ENOMEM;
	const pd_fkey *k = pd_srec_frames(r);
	const pd_fsite *s = pd_srec_sites(r);
	bool nomem = false;
	for (uint32_t i = 0; i < r->nframes; i++) {
		uint32_t map = frame_map(p, f, &k[i], &s[i]);
		f->scratch[i] = (pd_site){ s[i].addr, map, raw_id(p, f, s[i].raw, &nomem) };
		if (map == PD_NO_ID || nomem)
			return PD_ENOMEM;
	}
	return 0;
}

static bool same_entry(const pd_sitetab *t, const pd_sitent *a, const pd_sitent *b,
		       const pd_site *sites)
{
	return a->leaf == b->leaf && a->comm == b->comm && a->pid == b->pid &&
	       a->tid == b->tid && a->cpu == b->cpu && a->block == b->block &&
	       a->run == b->run && a->nsites == b->nsites &&
	       memcmp(t->sites + a->at, sites, b->nsites * sizeof *sites) == 0;
}

static uint64_t entry_hash(const pd_sitent *e, const pd_site *sites)
{
	uint64_t w[4] = { (uint64_t)e->leaf << 32 | e->comm, (uint64_t)e->pid << 32 | e->tid,
			  (uint64_t)e->cpu << 32 | e->block, e->run };
	uint64_t h = pd_hash_words(sites, e->nsites * sizeof *sites) ^ pd_hash_words(w, sizeof w);
	return h == PD_IDMAP_EMPTY ? 0 : h;  /* the idmap's free mark */
}

/* The index of entry `k` with sites `sites`, added if new; SIZE_MAX
 * without memory. */
static size_t entry_of(pd_sitetab *t, const pd_sitent *k, const pd_site *sites)
{
	/* an idmap keeps key and value side by side: one miss a probe */
	uint64_t h = entry_hash(k, sites);
	for (;; h = h + 1 == PD_IDMAP_EMPTY ? 0 : h + 1) {
		uint32_t i = pd_idmap_get(&t->index, h);
		if (i == PD_NO_ID)
			break;
		if (same_entry(t, &t->v[i], k, sites))
			return i;
	}
	if (t->n >= PD_ID_LIMIT || pd_grow(&t->v, &t->cap, t->n + 1, sizeof *t->v) < 0 ||
	    pd_grow(&t->sites, &t->cap_sites, t->nsites + k->nsites, sizeof *t->sites) < 0 ||
	    pd_idmap_put(&t->index, h, (uint32_t)t->n) < 0)
		return SIZE_MAX;
	t->v[t->n] = *k;
	t->v[t->n].at = t->nsites;
	t->v[t->n].samples = t->v[t->n].period = 0;
	memcpy(t->sites + t->nsites, sites, k->nsites * sizeof *sites);
	t->nsites += k->nsites;
	return t->n++;
}

int pd_sites_add(pd_profile *p, pd_sitefold *f, pd_sitetab *t, const pd_sitekey *key,
		 const pd_srec *r, uint32_t *last)
{
	if (!r->sites)
		return 0;
	int rc = record_sites(p, f, r);
	if (rc < 0)
		return rc;
	bool cpu = (p->options.o.flags & PD_PROFILE_KEEP_CPU) != 0;
	pd_sitent k = { (uint32_t)key->run, key->leaf, r->pid, r->tid, cpu ? r->cpu : 0,
			key->comm, key->block, r->nframes, 0, 0, 0 };
	size_t i = *last;
	if (i >= t->n || !same_entry(t, &t->v[i], &k, f->scratch))
		i = entry_of(t, &k, f->scratch);
	if (i == SIZE_MAX)
		return PD_ENOMEM;
	t->v[i].samples++;
	t->v[i].period += r->period;
	*last = (uint32_t)i;
	return 0;
}

void pd_sites_end_run(pd_profile *p, size_t run, unsigned shift)
{
	for (size_t ev = 0; ev < p->nevents; ev++) {
		pd_sitetab *t = &p->events[ev]->sites;
		for (size_t i = 0; i < t->n; i++) {
			pd_sitent *e = &t->v[i];
			unsigned at = e->block >> 16;
			/* blocks are below PD_BLOCK_MAX: 16 doublings later all are 0 */
			if (e->run == run && at <= shift)
				e->block = shift - at < 16 ? (e->block & 0xffffu) >> (shift - at) : 0;
		}
	}
}

/* ------------------------------------------------------------ reading */

bool pd_profile_has_sites(const pd_profile *p, size_t run)
{
	const pd_sitemaps *m = &p->sitemaps;
	if (p->nruns == 0)
		return false;
	size_t r0 = run == SIZE_MAX ? 0 : run, r1 = run == SIZE_MAX ? p->nruns : run + 1;
	for (size_t r = r0; r < r1; r++)
		if (r >= m->cap_run || !m->run[r])
			return false;
	return true;
}

size_t pd_profile_site_count(const pd_profile *p, size_t ev)
{
	return ev < p->nevents ? p->events[ev]->sites.n : 0;
}

void pd_profile_site_sample(const pd_profile *p, size_t ev, size_t i, pd_site_sample *out)
{
	const pd_pevent *e = p->events[ev];
	const pd_sitent *s = &e->sites.v[i];
	*out = (pd_site_sample){
		.leaf = &e->tree.nodes[s->leaf],
		.run = s->run,
		.pid = s->pid,
		.tid = s->tid,
		.cpu = s->cpu,
		.has_cpu = (p->options.o.flags & PD_PROFILE_KEEP_CPU) != 0,
		.comm = pd_strtab_get(&p->strings, s->comm),
		.block = s->block,
		.samples = s->samples,
		.period = s->period,
		.sites = e->sites.sites + s->at,
		.nsites = s->nsites,
	};
}

void pd_profile_site_map(const pd_profile *p, uint32_t map, pd_site_map *out)
{
	const pd_sitemap *m = &p->sitemaps.v[map];
	*out = (pd_site_map){ pd_strtab_get(&p->strings, m->dso), m->kernel, m->start, m->end,
			      m->pgoff };
}

const char *pd_profile_site_raw(const pd_profile *p, uint32_t raw)
{
	return raw == PD_SITE_NONE ? NULL : pd_strtab_get(&p->strings, raw);
}
