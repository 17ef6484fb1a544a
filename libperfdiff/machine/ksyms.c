/*
 * KSYMBOL ranges.  A BPF program's range is reused after it is unloaded, so
 * a new range replaces whatever it overlaps (its unregister record may have
 * been lost) rather than being split around it: a range is one symbol.
 */
#include "internal.h"

#include <stdlib.h>

static size_t first_ending_after(const pd_ksymset *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->syms[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Drop the ranges overlapping [start, end); the index where they were. */
static size_t cut(pd_ksymset *s, uint64_t start, uint64_t end)
{
	if (!s->n)
		return 0;
	size_t i = first_ending_after(s, start), j = i;
	while (j < s->n && s->syms[j].start < end)
		j++;
	memmove(s->syms + i, s->syms + j, (s->n - j) * sizeof *s->syms);
	s->n -= j - i;
	return i;
}

int pd_ksymset_add(pd_ksymset *s, const pd_ksym *k)
{
	if (k->start >= k->end)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		if (cap > SIZE_MAX / sizeof(pd_ksym))
			return PD_ENOMEM;
		pd_ksym *syms = realloc(s->syms, cap * sizeof *syms);
		if (!syms)
			return PD_ENOMEM;
		s->syms = syms;
		s->cap = cap;
	}
	size_t i = cut(s, k->start, k->end);
	memmove(s->syms + i + 1, s->syms + i, (s->n - i) * sizeof *s->syms);
	s->syms[i] = *k;
	s->n++;
	return 0;
}

void pd_ksymset_remove(pd_ksymset *s, uint64_t start, uint64_t end)
{
	if (start < end)
		cut(s, start, end);
}

const pd_ksym *pd_ksymset_find(const pd_ksymset *s, uint64_t addr)
{
	size_t i = first_ending_after(s, addr);
	if (i < s->n && s->syms[i].start <= addr)
		return &s->syms[i];
	return NULL;
}

void pd_ksymset_free(pd_ksymset *s)
{
	free(s->syms);
	s->syms = NULL;
	s->n = s->cap = 0;
}
