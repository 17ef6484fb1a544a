/*
 * String interning.  Symbol and dso names are stored once per profile,
 * whatever the number of samples, runs and sessions that name them; a
 * frame or a node refers to them by id.
 */
#include <stdlib.h>

#include "internal.h"
#include "util/u64map.h"

void pd_strtab_init(pd_strtab *t)
{
	memset(t, 0, sizeof *t);
	pd_arena_init(&t->arena);
}

void pd_strtab_free(pd_strtab *t)
{
	pd_arena_free(&t->arena);
	free(t->strs);
	free(t->lens);
	free(t->hashes);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

static uint32_t hash_str(const char *s, size_t len)
{
	uint64_t h = pd_hash_bytes(PD_HASH_INIT, s, len);
	return (uint32_t)(h ^ (h >> 32));
}

static int rehash(pd_strtab *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = malloc(nslots * sizeof *slots);
	if (!slots)
		return PD_ENOMEM;
	for (size_t i = 0; i < nslots; i++)
		slots[i] = PD_NO_ID;
	for (uint32_t id = 0; id < t->n; id++) {
		size_t i = t->hashes[id] & (nslots - 1);
		while (slots[i] != PD_NO_ID)
			i = (i + 1) & (nslots - 1);
		slots[i] = id;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

static int grow_ids(pd_strtab *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 256;
	if (cap <= t->cap || cap > PD_ID_LIMIT)
		return PD_ELIMIT;
	const char **strs = realloc(t->strs, cap * sizeof *strs);
	if (!strs)
		return PD_ENOMEM;
	t->strs = strs;
	uint32_t *lens = realloc(t->lens, cap * sizeof *lens);
	if (!lens)
		return PD_ENOMEM;
	t->lens = lens;
	uint32_t *hashes = realloc(t->hashes, cap * sizeof *hashes);
	if (!hashes)
		return PD_ENOMEM;
	t->hashes = hashes;
	t->cap = cap;
	return 0;
}

uint32_t pd_strtab_intern(pd_strtab *t, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		return PD_NO_ID;
	uint32_t h = hash_str(s, len);
	if (t->nslots) {
		size_t mask = t->nslots - 1;
		for (size_t i = h & mask; t->slots[i] != PD_NO_ID; i = (i + 1) & mask) {
			uint32_t id = t->slots[i];
			if (t->hashes[id] == h && t->lens[id] == len &&
			    memcmp(t->strs[id], s, len) == 0)
				return id;
		}
	}
	if (t->n == t->cap && grow_ids(t) < 0)
		return PD_NO_ID;
	if (2 * ((size_t)t->n + 1) > t->nslots && rehash(t) < 0)
		return PD_NO_ID;
	char *copy = pd_arena_strndup(&t->arena, s, len);
	if (!copy)
		return PD_NO_ID;
	/* pd_arena_strndup stops at a NUL; names never contain one */
	uint32_t id = t->n++;
	t->strs[id] = copy;
	t->lens[id] = (uint32_t)strlen(copy);
	t->hashes[id] = h;
	size_t mask = t->nslots - 1;
	size_t i = h & mask;
	while (t->slots[i] != PD_NO_ID)
		i = (i + 1) & mask;
	t->slots[i] = id;
	return id;
}

uint32_t pd_strtab_find(const pd_strtab *t, const char *s, size_t len)
{
	if (len > UINT32_MAX || !t->nslots)
		return PD_NO_ID;
	uint32_t h = hash_str(s, len);
	size_t mask = t->nslots - 1;
	for (size_t i = h & mask; t->slots[i] != PD_NO_ID; i = (i + 1) & mask) {
		uint32_t id = t->slots[i];
		if (t->hashes[id] == h && t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
			return id;
	}
	return PD_NO_ID;
}
