/*
 * The export's tables: the string table, Mappings with the build-id the
 * profile knew for the dso, one Function per frame key (and raw name) and
 * Locations.  A profile that kept its sites (profile/sites.h) gives one
 * Mapping per map of the recording and one Location per (mapping,
 * address, inline chain).  Without sites the profile keeps names, not
 * addresses: one Mapping per (dso, kernel) and one Location per distinct
 * inline chain of frames in it, at a made-up address, unique within its
 * mapping (docs/pprof.md).  Either way kernel mappings lie in the
 * kernel's half of the address space or are named "[kernel...", which is
 * how a reader tells kernel frames apart.
 *
 * Keys are hashed into u64 maps; two keys that hash alike probe on to the
 * next hash value, so every lookup compares the entry it finds.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define KERNEL_BASE 0xffff800000000000ull

typedef struct fkey {            /* a frame as the profile interns it */
	const char *sym, *dso;
	unsigned flags;
	const char *raw;             /* its raw name from the sites, or NULL */
} fkey;

void pp_tables_init(pp_tables *t)
{
	memset(t, 0, sizeof *t);
	pd_u64map_init(&t->strs);
	pd_u64map_init(&t->fn_of_frame);
	pd_u64map_init(&t->loc_of_chain);
	pd_u64map_init(&t->map_of_dso);
	pd_u64map_init(&t->map_of_site);
	pd_arena_init(&t->arena);
}

void pp_tables_free(pp_tables *t)
{
	pd_u64map_free(&t->strs);
	pd_u64map_free(&t->fn_of_frame);
	pd_u64map_free(&t->loc_of_chain);
	pd_u64map_free(&t->map_of_dso);
	pd_u64map_free(&t->map_of_site);
	free(t->str);
	free(t->fn);
	free(t->loc);
	free(t->map);
	free(t->fkeys);
	pd_arena_free(&t->arena);
}

/* Room for one more pointer in `*v`. */
static int more(void ***v, size_t n, size_t *cap)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 256;
	void **nv = realloc(*v, c * sizeof *nv);
	if (!nv)
		return PD_ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

int64_t pp_tables_str(pp_tables *t, const char *s)
{
	uint64_t h = pd_hash_str(PD_HASH_INIT, s);
	for (;; h++) {
		uintptr_t i = (uintptr_t)pd_u64map_get(&t->strs, h);
		if (!i)
			break;
		if (strcmp(t->str[i - 1], s) == 0)
			return (int64_t)i - 1;
	}
	char *copy = pd_arena_strndup(&t->arena, s, strlen(s));
	if (!copy || more((void ***)&t->str, t->nstr, &t->cap_str) < 0 ||
	    pd_u64map_put(&t->strs, h, (void *)(uintptr_t)(t->nstr + 1)) < 0)
		return -1;
	t->str[t->nstr] = copy;
	return (int64_t)t->nstr++;
}

static fkey key_of(const pd_cct_node *n, const char *raw)
{
	unsigned f = (pd_cct_inlined(n) ? 1u : 0) | (pd_cct_kernel(n) ? 2u : 0) |
		     (pd_cct_unresolved(n) ? 4u : 0);
	return (fkey){ pd_cct_symbol(n), pd_cct_dso(n), f, raw };
}

static uint64_t fkey_hash(const fkey *k)
{
	uint64_t w[4] = { (uintptr_t)k->sym, (uintptr_t)k->dso, k->flags, (uintptr_t)k->raw };
	return pd_hash_words(w, sizeof w);
}

static pp_function *new_function(pp_tables *t, const pd_cct_node *n, const char *raw,
				 uint64_t id)
{
	pp_function *f = pd_arena_alloc(&t->arena, sizeof *f);
	if (!f)
		return NULL;
	perftools__profiles__function__init(f);
	f->id = id;
	/* name: the profile's (canonical) name; system_name: the symbol as
	 * the binary has it, when the sites kept it */
	f->name = pp_tables_str(t, pd_cct_symbol(n));
	f->system_name = raw ? pp_tables_str(t, raw) : f->name;
	f->filename = pp_tables_str(t, pd_cct_unit(n) ? pd_cct_unit(n) : "");
	return f->name < 0 || f->system_name < 0 || f->filename < 0 ? NULL : f;
}

/* The function id of node `n`'s frame (by raw name `raw` too, when not
 * NULL); 0 without memory. */
static uint64_t function_of(pp_tables *t, const pd_cct_node *n, const char *raw)
{
	fkey k = key_of(n, raw);
	uint64_t h = fkey_hash(&k);
	for (;; h++) {
		uintptr_t i = (uintptr_t)pd_u64map_get(&t->fn_of_frame, h);
		if (!i)
			break;
		const fkey *o = t->fkeys[i - 1];
		if (o->sym == k.sym && o->dso == k.dso && o->flags == k.flags && o->raw == k.raw)
			return i;
	}
	if (more((void ***)&t->fn, t->nfn, &t->cap_fn) < 0 ||
	    more((void ***)&t->fkeys, t->nfn, &t->cap_fkeys) < 0)
		return 0;
	pp_function *f = new_function(t, n, raw, t->nfn + 1);
	fkey *kk = pd_arena_memdup(&t->arena, &k, sizeof k);
	if (!f || !kk || pd_u64map_put(&t->fn_of_frame, h, (void *)(uintptr_t)(t->nfn + 1)) < 0)
		return 0;
	t->fkeys[t->nfn] = kk;
	t->fn[t->nfn++] = f;
	return f->id;
}

/* The build-id the profile knows for `dso` as pprof writes it, lower-case
 * hex (as perf and go tool pprof print one), into m->build_id. */
static bool set_build_id(pp_tables *t, pp_mapping *m, const char *dso)
{
	const uint8_t *id;
	size_t n = t->p ? pd_profile_dso_build_id(t->p, t->run, dso, &id) : 0;
	if (n == 0)
		return true;
	char hex[2 * 20 + 1];
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	m->build_id = pp_tables_str(t, hex);
	return m->build_id >= 0;
}

/* The mapping of node `n`'s dso and mode; NULL without memory. */
static pp_mapping *mapping_of(pp_tables *t, const pd_cct_node *n)
{
	const char *dso = pd_cct_dso(n);
	bool kernel = pd_cct_kernel(n);
	uint64_t h = pd_hash_str(PD_HASH_INIT, dso) * 2 + kernel;
	for (;; h += 2) {
		uintptr_t i = (uintptr_t)pd_u64map_get(&t->map_of_dso, h);
		if (!i)
			break;
		pp_mapping *m = t->map[i - 1];
		if (strcmp(t->str[m->filename], dso) == 0 && (m->memory_start >= KERNEL_BASE) == kernel)
			return m;
	}
	pp_mapping *m = pd_arena_alloc(&t->arena, sizeof *m);
	if (!m || more((void ***)&t->map, t->nmap, &t->cap_map) < 0)
		return NULL;
	perftools__profiles__mapping__init(m);
	m->id = t->nmap + 1;
	/* 2^32 bytes of made-up addresses each; kernel ones in its half */
	m->memory_start = (kernel ? KERNEL_BASE : 0) + ((m->id & 0x7fffu) << 32);
	m->memory_limit = m->memory_start + 0xffffffffull;
	m->filename = pp_tables_str(t, dso);
	m->has_functions = true;
	if (m->filename < 0 || !set_build_id(t, m, dso) ||
	    pd_u64map_put(&t->map_of_dso, h, (void *)(uintptr_t)m->id) < 0)
		return NULL;
	t->map[t->nmap++] = m;
	return m;
}

static bool same_chain(const pp_location *l, uint64_t map, const uint64_t *fn, size_t n)
{
	if (l->mapping_id != map || l->n_line != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (l->line[i]->function_id != fn[i])
			return false;
	return true;
}

static pp_location *new_location(pp_tables *t, pp_mapping *mp, const uint64_t *fn, size_t n)
{
	pp_location *l = pd_arena_alloc(&t->arena, sizeof *l);
	pp_line **lines = pd_arena_alloc(&t->arena, n * sizeof *lines);
	if (!l || !lines || more((void ***)&t->loc, t->nloc, &t->cap_loc) < 0)
		return NULL;
	perftools__profiles__location__init(l);
	l->id = t->nloc + 1;
	l->mapping_id = mp->id;
	l->address = mp->memory_start + 16 * (l->id & 0xfffffffu);
	l->n_line = n;
	l->line = lines;
	for (size_t i = 0; i < n; i++) {
		if (!(lines[i] = pd_arena_alloc(&t->arena, sizeof *lines[i])))
			return NULL;
		perftools__profiles__line__init(lines[i]);
		lines[i]->function_id = fn[i];
	}
	t->loc[t->nloc++] = l;
	return l;
}

uint64_t pp_tables_location(pp_tables *t, const pd_cct_node *const *nodes, size_t n)
{
	uint64_t fn[PP_MAX_LINES];
	if (n == 0 || n > PP_MAX_LINES)
		return 0;
	pp_mapping *mp = mapping_of(t, nodes[n - 1]);
	for (size_t i = 0; i < n; i++)
		if (!(fn[i] = function_of(t, nodes[i], NULL)))
			return 0;
	if (!mp)
		return 0;
	mp->has_inline_frames |= n > 1;
	mp->has_filenames |= t->str[t->fn[fn[n - 1] - 1]->filename][0] != 0;
	uint64_t h = pd_hash_words(fn, n * sizeof *fn) ^ mp->id;
	for (;; h++) {
		uintptr_t i = (uintptr_t)pd_u64map_get(&t->loc_of_chain, h);
		if (!i)
			break;
		if (same_chain(t->loc[i - 1], mp->id, fn, n))
			return i;
	}
	pp_location *l = new_location(t, mp, fn, n);
	if (!l || pd_u64map_put(&t->loc_of_chain, h, (void *)(uintptr_t)l->id) < 0)
		return 0;
	return l->id;
}

/* ------------------------------------------------------------ from sites */

/* Whether a reader takes mapping (start, dso) for kernel code (import.c). */
static bool reads_kernel(uint64_t start, const char *dso)
{
	return start >= KERNEL_BASE || strncmp(dso, "[kernel", 7) == 0;
}

/* The Mapping of the profile's site map `id`; NULL without memory. */
static pp_mapping *site_mapping(pp_tables *t, uint32_t id, const pd_site_map *sm)
{
	uintptr_t i = (uintptr_t)pd_u64map_get(&t->map_of_site, (uint64_t)id + 1);
	if (i)
		return t->map[i - 1];
	pp_mapping *m = pd_arena_alloc(&t->arena, sizeof *m);
	if (!m || more((void ***)&t->map, t->nmap, &t->cap_map) < 0)
		return NULL;
	perftools__profiles__mapping__init(m);
	m->id = t->nmap + 1;
	m->memory_start = sm->start;
	m->memory_limit = sm->end;
	m->file_offset = sm->pgoff;
	m->filename = pp_tables_str(t, sm->dso);
	m->has_functions = true;
	if (m->filename < 0 || !set_build_id(t, m, sm->dso) ||
	    pd_u64map_put(&t->map_of_site, (uint64_t)id + 1, (void *)(uintptr_t)m->id) < 0)
		return NULL;
	t->map[t->nmap++] = m;
	return m;
}

static bool same_site_chain(const pp_location *l, uint64_t map, uint64_t addr,
			    const uint64_t *fn, size_t n)
{
	return l->address == addr && same_chain(l, map, fn, n);
}

/* The Location of (mp, addr, chain fn[0..n)), made if new; 0 without
 * memory.  Shares loc_of_chain with made-up places: their mappings are
 * others, so neither lookup takes the other's. */
static uint64_t site_location_of(pp_tables *t, pp_mapping *mp, uint64_t addr,
				 const uint64_t *fn, size_t n)
{
	uint64_t h = pd_hash_words(fn, n * sizeof *fn) ^ pd_mix64(mp->id ^ addr * 31);
	for (;; h++) {
		uintptr_t i = (uintptr_t)pd_u64map_get(&t->loc_of_chain, h);
		if (!i)
			break;
		if (same_site_chain(t->loc[i - 1], mp->id, addr, fn, n))
			return i;
	}
	pp_location *l = new_location(t, mp, fn, n);
	if (!l || pd_u64map_put(&t->loc_of_chain, h, (void *)(uintptr_t)l->id) < 0)
		return 0;
	l->address = addr;
	return l->id;
}

uint64_t pp_tables_site_location(pp_tables *t, const pd_cct_node *const *nodes,
				 const pd_site *sites, size_t n)
{
	uint64_t fn[PP_MAX_LINES];
	if (n == 0 || n > PP_MAX_LINES)
		return 0;
	pd_site_map sm;
	pd_profile_site_map(t->p, sites[n - 1].map, &sm);
	/* a map that would read as the other mode keeps the made-up place */
	if (reads_kernel(sm.start, sm.dso) != pd_cct_kernel(nodes[n - 1]))
		return pp_tables_location(t, nodes, n);
	pp_mapping *mp = site_mapping(t, sites[n - 1].map, &sm);
	for (size_t i = 0; i < n; i++)
		if (!(fn[i] = function_of(t, nodes[i], pd_profile_site_raw(t->p, sites[i].raw))))
			return 0;
	if (!mp)
		return 0;
	mp->has_inline_frames |= n > 1;
	mp->has_filenames |= t->str[t->fn[fn[n - 1] - 1]->filename][0] != 0;
	return site_location_of(t, mp, sites[n - 1].addr, fn, n);
}
