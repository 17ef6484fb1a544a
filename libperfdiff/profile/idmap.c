/*
 * u64 → u32 open-addressing map with linear probing, for frames, stacks
 * and threads.  Flat (one array of slots: one cache miss per probe, no
 * per-entry allocation); it never shrinks or deletes.
 */
#include <stdlib.h>

#include "internal.h"

void pd_idmap_init(pd_idmap *m)
{
	m->slots = NULL;
	m->cap = m->n = 0;
}

void pd_idmap_free(pd_idmap *m)
{
	free(m->slots);
	pd_idmap_init(m);
}

static void place(pd_idslot *slots, size_t cap, uint64_t key, uint32_t val)
{
	size_t mask = cap - 1;
	size_t i = pd_mix64(key) & mask;
	while (slots[i].key != PD_IDMAP_EMPTY)
		i = (i + 1) & mask;
	slots[i].key = key;
	slots[i].val = val;
}

static int grow(pd_idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	if (cap > SIZE_MAX / sizeof(pd_idslot))
		return PD_ENOMEM;
	pd_idslot *slots = malloc(cap * sizeof *slots);
	if (!slots)
		return PD_ENOMEM;
	for (size_t i = 0; i < cap; i++)
		slots[i].key = PD_IDMAP_EMPTY;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key != PD_IDMAP_EMPTY)
			place(slots, cap, m->slots[i].key, m->slots[i].val);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int pd_idmap_put(pd_idmap *m, uint64_t key, uint32_t val)
{
	/* at most half full: probes stay short */
	if (2 * (m->n + 1) > m->cap) {
		int rc = grow(m);
		if (rc < 0)
			return rc;
	}
	place(m->slots, m->cap, key, val);
	m->n++;
	return 0;
}
