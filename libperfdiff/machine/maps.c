/*
 * The interval set of one address space.  A sorted array: lookups are a
 * binary search and an insert moves the tail, which stays cheap because
 * only executable mappings are kept (tens to a few thousand per process).
 */
#include "internal.h"

#include <stdlib.h>

pd_mapset *pd_mapset_share(pd_mapset *s)
{
	if (s)
		s->refs++;
	return s;
}

void pd_mapset_release(pd_mapset *s)
{
	if (s && --s->refs == 0) {
		free(s->maps);
		free(s);
	}
}

/* Make *sp private to the caller with room for `extra` more maps. */
static int own(pd_mapset **sp, size_t extra)
{
	pd_mapset *s = *sp;
	size_t n = s ? s->n : 0;
	if (s && s->refs == 1 && s->cap - s->n >= extra)
		return 0;
	size_t cap = s && s->cap ? s->cap : 8;
	while (cap - n < extra)
		cap *= 2;
	if (cap > SIZE_MAX / sizeof(pd_map))
		return PD_ENOMEM;
	if (s && s->refs == 1) {
		pd_map *maps = realloc(s->maps, cap * sizeof *maps);
		if (!maps)
			return PD_ENOMEM;
		s->maps = maps;
		s->cap = cap;
		return 0;
	}
	pd_mapset *c = malloc(sizeof *c);
	pd_map *maps = malloc(cap * sizeof *maps);
	if (!c || !maps) {
		free(c);
		free(maps);
		return PD_ENOMEM;
	}
	if (n)
		memcpy(maps, s->maps, n * sizeof *maps);
	c->refs = 1;
	c->n = n;
	c->cap = cap;
	c->maps = maps;
	if (s)
		s->refs--;   /* still held by the process we share it with */
	*sp = c;
	return 0;
}

/* Index of the first map ending after `addr`. */
static size_t first_ending_after(const pd_mapset *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->maps[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Replace whatever [start, end) holds by `m` (or by nothing). */
static int replace(pd_mapset **sp, uint64_t start, uint64_t end, const pd_map *m)
{
	if (start >= end)
		return 0;
	size_t i = 0, j = 0;
	if (*sp) {
		i = first_ending_after(*sp, start);
		j = i;
		while (j < (*sp)->n && (*sp)->maps[j].start < end)
			j++;
	}
	if (i == j && !m)
		return 0;
	/* Indices survive own(): it copies or grows, never reorders. */
	int rc = own(sp, 3);
	if (rc)
		return rc;
	pd_mapset *s = *sp;
	pd_map left = { 0 }, right = { 0 };
	bool has_left = i < j && s->maps[i].start < start;
	bool has_right = i < j && s->maps[j - 1].end > end;
	if (has_left) {
		left = s->maps[i];
		left.end = start;
	}
	if (has_right) {
		right = s->maps[j - 1];
		right.pgoff += end - right.start;
		right.start = end;
	}
	size_t k = (size_t)has_left + (m != NULL) + (size_t)has_right;
	memmove(s->maps + i + k, s->maps + j, (s->n - j) * sizeof *s->maps);
	s->n = s->n - (j - i) + k;
	if (has_left)
		s->maps[i++] = left;
	if (m)
		s->maps[i++] = *m;
	if (has_right)
		s->maps[i] = right;
	return 0;
}

int pd_mapset_insert(pd_mapset **sp, const pd_map *m)
{
	return replace(sp, m->start, m->end, m);
}

int pd_mapset_punch(pd_mapset **sp, uint64_t start, uint64_t end)
{
	return replace(sp, start, end, NULL);
}

const pd_map *pd_mapset_find(const pd_mapset *s, uint64_t addr)
{
	if (!s)
		return NULL;
	size_t i = first_ending_after(s, addr);
	if (i < s->n && s->maps[i].start <= addr)
		return &s->maps[i];
	return NULL;
}
