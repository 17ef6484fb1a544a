/*
 * Frame keys.  A tree node is (parent, frame); a frame is (symbol, dso,
 * flags).  Numbering frames once lets a tree edge be one 64-bit key and
 * lets the flat view index its entries by frame id.
 */
#include <stdlib.h>

#include "internal.h"

void pd_frametab_init(pd_frametab *t)
{
	t->v = NULL;
	t->n = t->cap = 0;
	pd_idmap_init(&t->index);
}

void pd_frametab_free(pd_frametab *t)
{
	free(t->v);
	pd_idmap_free(&t->index);
	pd_frametab_init(t);
}

uint32_t pd_frametab_get(pd_frametab *t, uint32_t sym, uint32_t dso, uint32_t flags)
{
	/* dso ids need 29 bits here: far more strings than any profile has */
	if (dso >= (1u << 29) || flags > 7)
		return PD_NO_ID;
	uint64_t key = (uint64_t)sym << 32 | (uint64_t)dso << 3 | flags;
	uint32_t id = pd_idmap_get(&t->index, key);
	if (id != PD_NO_ID)
		return id;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		if (cap <= t->cap || cap > PD_ID_LIMIT)
			return PD_NO_ID;
		pd_pframe *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return PD_NO_ID;
		t->v = v;
		t->cap = cap;
	}
	id = t->n;
	if (pd_idmap_put(&t->index, key, id) < 0)
		return PD_NO_ID;
	t->v[id] = (pd_pframe){ sym, dso, flags, PD_NO_ID };
	t->n++;
	return id;
}
