/*
 * Interning: every distinct string (comm, dso path, KSYMBOL name) and every
 * distinct dso identity is stored once in the machine's arena, so memory
 * grows with distinct values, not with records, and callers may compare
 * and keep the pointers for the machine's lifetime.
 */
#include "internal.h"

#include <stdlib.h>

typedef struct pd_istr {
	struct pd_istr *next;
	size_t len;
	char s[];
} pd_istr;

typedef struct dso_node {
	pd_dso_id id;
	struct dso_node *next;
} dso_node;

void pd_intern_init(pd_intern *in, const pd_header_info *info)
{
	memset(in, 0, sizeof *in);
	pd_arena_init(&in->arena);
	pd_u64map_init(&in->strings);
	pd_u64map_init(&in->dsos);
	pd_u64map_init(&in->bid_index);
	in->info = info;
}

void pd_intern_free(pd_intern *in)
{
	pd_arena_free(&in->arena);
	pd_u64map_free(&in->strings);
	pd_u64map_free(&in->dsos);
	pd_u64map_free(&in->bid_index);
	free(in->bid_next);
	in->bid_next = NULL;
}

const char *pd_intern_str(pd_intern *in, const char *s, size_t len)
{
	uint64_t h = pd_hash_bytes(PD_HASH_INIT, s, len);
	pd_istr *head = pd_u64map_get(&in->strings, h);
	for (pd_istr *e = head; e; e = e->next)
		if (e->len == len && memcmp(e->s, s, len) == 0)
			return e->s;
	if (len > SIZE_MAX - sizeof(pd_istr) - 1)
		return NULL;
	pd_istr *e = pd_arena_alloc(&in->arena, sizeof *e + len + 1);
	if (!e)
		return NULL;
	memcpy(e->s, s, len);
	e->s[len] = '\0';
	e->len = len;
	e->next = head;
	if (pd_u64map_put(&in->strings, h, e) < 0)
		return NULL;   /* the arena keeps `e`; nothing points to it */
	return e->s;
}

/*
 * Index the header's BUILD_ID entries by path.  Pipe mode appends entries
 * as HEADER_BUILD_ID records arrive: new entries in the same array are
 * added, a moved (reallocated) or shrunk array is indexed afresh, so the
 * total work stays linear when the reader grows it geometrically.
 */
static int index_build_ids(pd_intern *in)
{
	const pd_header_info *info = in->info;
	if (!info)
		return 0;
	size_t nr = info->build_ids ? info->nr_build_ids : 0;
	if (info->build_ids == in->indexed && nr == in->indexed_nr)
		return 0;
	size_t from = in->indexed_nr;
	if (info->build_ids != in->indexed || nr < in->indexed_nr) {
		pd_u64map_clear(&in->bid_index);
		from = 0;
	}
	in->indexed = NULL;   /* until the index is complete */
	in->indexed_nr = 0;
	if (nr > SIZE_MAX / sizeof(size_t))
		return PD_ENOMEM;
	size_t *next = realloc(in->bid_next, (nr ? nr : 1) * sizeof *next);
	if (!next)
		return PD_ENOMEM;
	in->bid_next = next;
	for (size_t i = from; i < nr; i++) {
		const pd_build_id *b = &info->build_ids[i];
		next[i] = 0;
		if (!b->path || b->size == 0)
			continue;
		uint64_t h = pd_hash_str(PD_HASH_INIT, b->path);
		next[i] = (size_t)(uintptr_t)pd_u64map_get(&in->bid_index, h);
		if (pd_u64map_put(&in->bid_index, h, (void *)(uintptr_t)(i + 1)) < 0)
			return PD_ENOMEM;
	}
	in->indexed = info->build_ids;
	in->indexed_nr = nr;
	return 0;
}

/*
 * The header entry for `path`: perf writes each entry with its machine's
 * pid (-1 for the host), so the process's pid only matches for guests or
 * other writers; prefer it, then the host's, then the earliest entry.
 */
static int header_build_id(pd_intern *in, const char *path, int32_t pid,
			   const pd_build_id **out)
{
	*out = NULL;
	int rc = index_build_ids(in);
	if (rc || !in->indexed_nr)
		return rc;
	uint64_t h = pd_hash_str(PD_HASH_INIT, path);
	size_t best = 0;
	int best_rank = 0;
	for (size_t k = (size_t)(uintptr_t)pd_u64map_get(&in->bid_index, h); k;
	     k = in->bid_next[k - 1]) {
		const pd_build_id *b = &in->indexed[k - 1];
		if (strcmp(b->path, path) != 0)
			continue;
		int rank = b->pid == pid ? 3 : b->pid == -1 ? 2 : 1;
		if (rank > best_rank || (rank == best_rank && k < best)) {
			best = k;
			best_rank = rank;
		}
	}
	if (best)
		*out = &in->indexed[best - 1];
	return 0;
}

/*
 * With a build-id the identity is the build-id and the path, as perf keys
 * dsos by path: a program and its stripped copy share a build-id, but each
 * sample must name the file its process mapped (the symbolizer shares the
 * per-build-id work between them).  Without one it is the path and the
 * inode; the inode generation is kept but not compared, because perf's
 * synthesized MMAP2 records (from /proc/PID/maps) carry 0 there while the
 * kernel's carry the real value, and the same file would otherwise count
 * twice.
 */
static uint64_t dso_hash(const pd_dso_id *d)
{
	uint64_t h = pd_hash_bytes(PD_HASH_INIT, &d->kernel, 1);
	h = pd_hash_str(h, d->name);
	if (d->build_id_size)
		return pd_hash_bytes(h, d->build_id, d->build_id_size);
	uint64_t dev[3] = { d->maj, d->min, d->ino };
	return pd_hash_bytes(h, dev, sizeof dev);
}

static bool dso_eq(const pd_dso_id *a, const pd_dso_id *b)
{
	if (a->kernel != b->kernel || a->build_id_size != b->build_id_size)
		return false;
	if (strcmp(a->name, b->name) != 0)
		return false;
	if (a->build_id_size)
		return memcmp(a->build_id, b->build_id, a->build_id_size) == 0;
	return a->maj == b->maj && a->min == b->min && a->ino == b->ino;
}

const pd_dso_id *pd_intern_dso(pd_intern *in, const pd_dso_id *want, int32_t pid)
{
	pd_dso_id id = *want;
	if (id.build_id_size > sizeof id.build_id)
		id.build_id_size = sizeof id.build_id;
	if (!id.build_id_size) {
		const pd_build_id *b;
		if (header_build_id(in, id.name, pid, &b) < 0)
			return NULL;
		if (b) {
			id.build_id_size = b->size < sizeof id.build_id ? b->size
									 : sizeof id.build_id;
			memcpy(id.build_id, b->id, id.build_id_size);
		}
	}
	if (id.build_id_size < sizeof id.build_id)
		memset(id.build_id + id.build_id_size, 0,
		       sizeof id.build_id - id.build_id_size);
	uint64_t h = dso_hash(&id);
	dso_node *head = pd_u64map_get(&in->dsos, h);
	for (dso_node *e = head; e; e = e->next)
		if (dso_eq(&e->id, &id))
			return &e->id;
	id.name = pd_intern_str(in, id.name, strlen(id.name));
	dso_node *e = id.name ? pd_arena_alloc(&in->arena, sizeof *e) : NULL;
	if (!e)
		return NULL;
	e->id = id;
	e->next = head;
	if (pd_u64map_put(&in->dsos, h, e) < 0)
		return NULL;
	return &e->id;
}
