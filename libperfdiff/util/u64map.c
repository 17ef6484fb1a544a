#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "perfdiff/common.h"
#include "util.h"

/* Keys are often small consecutive integers (pids): spread them over the
 * table before masking. */
static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)pd_mix64(key) & (cap - 1);
}

void pd_u64map_init(pd_u64map *m)
{
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

void pd_u64map_free(pd_u64map *m)
{
	free(m->keys);
	free(m->vals);
	pd_u64map_init(m);
}

void pd_u64map_clear(pd_u64map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		m->vals[i] = NULL;
	m->n = 0;
}

void *pd_u64map_get(const pd_u64map *m, uint64_t key)
{
	if (!m->n)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static void place(uint64_t *keys, void **vals, size_t cap, uint64_t key, void *val)
{
	size_t i = slot_of(key, cap);
	while (vals[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	keys[i] = key;
	vals[i] = val;
}

static int grow(pd_u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	if (cap > SIZE_MAX / sizeof(void *) || cap < m->cap)
		return PD_ENOMEM;
	uint64_t *keys = malloc(cap * sizeof *keys);
	void **vals = pd_zalloc_touched(cap, sizeof *vals);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return PD_ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			place(keys, vals, cap, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int pd_u64map_put(pd_u64map *m, uint64_t key, void *val)
{
	/* Keep the load under 3/4 so probes stay short and one slot stays free. */
	if ((m->n + 1) * 4 > m->cap * 3) {
		int rc = grow(m);
		if (rc)
			return rc;
	}
	size_t i = slot_of(key, m->cap);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

uint64_t pd_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t pd_hash_words(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = ((h << 5 | h >> 59) ^ w) * 0x9e3779b97f4a7c15ull;
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, s + i, n - i);
		h = ((h << 5 | h >> 59) ^ w) * 0x9e3779b97f4a7c15ull;
	}
	return pd_mix64(h);
}

uint64_t pd_hash_str(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	/* a terminator, so ("ab","c") and ("a","bc") hash apart */
	h ^= 0xff;
	return h * 0x100000001b3ull;
}
