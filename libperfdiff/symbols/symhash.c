/*
 * Open-addressing hash map for the symbolizer's caches.  Keys are two
 * words because every cache is keyed by (owner object, address).
 */
#include <stdlib.h>

#include "symb_internal.h"
#include "util/u64map.h"

static uint64_t mix(uint64_t k1, uint64_t k2)
{
	/* splitmix64 finaliser: addresses differ mostly in low bits and
	 * owners are pointers, so both need spreading before masking. */
	return pd_mix64(k1 * 0x9e3779b97f4a7c15ull ^ (k2 + 0x632be59bd9b4e019ull));
}

void *pd_symhash_get(const pd_symhash *h, uint64_t k1, uint64_t k2)
{
	if (!h->cap)
		return NULL;
	size_t mask = h->cap - 1;
	for (size_t i = mix(k1, k2) & mask;; i = (i + 1) & mask) {
		const pd_symhash_slot *s = &h->slots[i];
		if (!s->v)
			return NULL;
		if (s->k1 == k1 && s->k2 == k2)
			return s->v;
	}
}

static void insert(pd_symhash_slot *slots, size_t cap, uint64_t k1, uint64_t k2, void *v,
		   size_t *n)
{
	size_t mask = cap - 1;
	for (size_t i = mix(k1, k2) & mask;; i = (i + 1) & mask) {
		pd_symhash_slot *s = &slots[i];
		if (!s->v) {
			s->k1 = k1;
			s->k2 = k2;
			s->v = v;
			(*n)++;
			return;
		}
		if (s->k1 == k1 && s->k2 == k2) {
			s->v = v;
			return;
		}
	}
}

int pd_symhash_put(pd_symhash *h, uint64_t k1, uint64_t k2, void *v)
{
	if ((h->n + 1) * 2 > h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 64;
		if (ncap > SIZE_MAX / sizeof(pd_symhash_slot))
			return PD_ENOMEM;
		pd_symhash_slot *ns = pd_zalloc_touched(ncap, sizeof *ns);
		if (!ns)
			return PD_ENOMEM;
		size_t n = 0;
		for (size_t i = 0; i < h->cap; i++)
			if (h->slots[i].v)
				insert(ns, ncap, h->slots[i].k1, h->slots[i].k2, h->slots[i].v, &n);
		free(h->slots);
		h->slots = ns;
		h->cap = ncap;
		h->n = n;
	}
	insert(h->slots, h->cap, k1, k2, v, &h->n);
	return 0;
}

void pd_symhash_free(pd_symhash *h)
{
	free(h->slots);
	h->slots = NULL;
	h->cap = h->n = 0;
}

/* ---- direct-mapped front ---- */

static pd_symhash_slot *front_slot(const pd_symfront *f, uint64_t k1, uint64_t k2)
{
	return &f->slots[mix(k1, k2) >> (64 - PD_SYMFRONT_BITS)];
}

void *pd_symfront_get(const pd_symfront *f, uint64_t k1, uint64_t k2)
{
	if (!f->slots)
		return NULL;
	const pd_symhash_slot *s = front_slot(f, k1, k2);
	return s->v && s->k1 == k1 && s->k2 == k2 ? s->v : NULL;
}

void pd_symfront_put(pd_symfront *f, uint64_t k1, uint64_t k2, void *v)
{
	if (!f->slots) {
		if (f->failed)
			return;
		f->slots = calloc(PD_SYMFRONT_SLOTS, sizeof *f->slots);
		if (!f->slots) {
			f->failed = true;
			return;
		}
	}
	*front_slot(f, k1, k2) = (pd_symhash_slot){ k1, k2, v };
}

void pd_symfront_free(pd_symfront *f)
{
	free(f->slots);
	f->slots = NULL;
}

uint64_t pd_symhash_bytes(const void *p, size_t n, uint64_t seed)
{
	return pd_hash_bytes(PD_HASH_INIT ^ seed, p, n);
}

/* ---- string pool ---- */

const char *pd_strpool_intern(pd_strpool *p, pd_arena *a, const char *s)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	/* a symbol table's every name goes through here */
	uint64_t h = pd_hash_words(s, len);
	if ((p->n + 1) * 2 > p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 256;
		if (ncap > SIZE_MAX / sizeof(pd_strpool_slot))
			return NULL;
		pd_strpool_slot *ns = pd_zalloc_touched(ncap, sizeof *ns);
		if (!ns)
			return NULL;
		for (size_t i = 0; i < p->cap; i++) {
			if (!p->slots[i].s)
				continue;
			size_t j = p->slots[i].hash & (ncap - 1);
			while (ns[j].s)
				j = (j + 1) & (ncap - 1);
			ns[j] = p->slots[i];
		}
		free(p->slots);
		p->slots = ns;
		p->cap = ncap;
	}
	size_t mask = p->cap - 1;
	size_t i = h & mask;
	for (; p->slots[i].s; i = (i + 1) & mask)
		if (p->slots[i].hash == h && strcmp(p->slots[i].s, s) == 0)
			return p->slots[i].s;
	char *copy = pd_arena_strndup(a, s, len);
	if (!copy)
		return NULL;
	p->slots[i].s = copy;
	p->slots[i].hash = h;
	p->n++;
	return copy;
}

void pd_strpool_free(pd_strpool *p)
{
	free(p->slots);
	p->slots = NULL;
	p->cap = p->n = 0;
}
