/*
 * The frames of kernel addresses a session has already named.  In a
 * system-wide profile most frames are kernel return addresses, and a few
 * hundred of them make up nearly all: naming one again would cost a map
 * search, a KSYMBOL search, the kernel view and a hash probe into a large
 * table.  Direct-mapped (a collision replaces), so a hit costs one
 * multiply and one compare and the hot entries stay in cache.
 *
 * An entry is valid for the machine's kernel generation it was made in:
 * kernel MMAP and KSYMBOL records bump it (pd_machine_kernel_generation()).
 * Only addresses the machine answers for every pid alike may be kept
 * (at or above pd_machine_kernel_start()).
 */
#ifndef PD_SESSION_KCACHE_H
#define PD_SESSION_KCACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "perfdiff/session.h"
#include "util/util.h"

#define PD_KCACHE_BITS 12

typedef struct pd_kcache_slot {
	uint64_t addr;
	uint64_t tag;      /* 0: empty; else generation, caller bit, cpumode */
	pd_frame frame;
} pd_kcache_slot;

typedef struct pd_kcache {
	pd_kcache_slot *slots;   /* 1 << PD_KCACHE_BITS, allocated at the first put */
	bool failed;             /* no memory for it: stay uncached */
} pd_kcache;

static inline uint64_t pd_kcache_tag(uint64_t gen, bool caller, uint8_t cpumode)
{
	return gen << 10 | (uint64_t)caller << 9 | 1u << 8 | cpumode;
}

static inline pd_kcache_slot *pd_kcache_slot_of(const pd_kcache *c, uint64_t addr)
{
	return &c->slots[(addr * 0x9e3779b97f4a7c15ull) >> (64 - PD_KCACHE_BITS)];
}

/* The frame kept for `addr` named with this tag, or NULL. */
static inline const pd_frame *pd_kcache_get(const pd_kcache *c, uint64_t addr, uint64_t tag)
{
	if (!c->slots)
		return NULL;
	const pd_kcache_slot *s = pd_kcache_slot_of(c, addr);
	return s->tag == tag && s->addr == addr ? &s->frame : NULL;
}

/* Keep `f` (whose strings must live as long as the cache's user). */
static inline void pd_kcache_put(pd_kcache *c, uint64_t addr, uint64_t tag, const pd_frame *f)
{
	if (!c->slots) {
		if (c->failed)
			return;
		c->slots = pd_zalloc_touched((size_t)1 << PD_KCACHE_BITS, sizeof *c->slots);
		if (!c->slots) {
			c->failed = true;   /* only a cache */
			return;
		}
	}
	pd_kcache_slot *s = pd_kcache_slot_of(c, addr);
	s->addr = addr;
	s->tag = tag;
	s->frame = *f;
}

static inline void pd_kcache_free(pd_kcache *c)
{
	free(c->slots);
	c->slots = NULL;
}

#endif
