/*
 * The self period of a tree's nodes that came from samples whose call
 * chain was dropped: perf drops a chain with garbage in it whole ("invalid
 * callchain context") and keeps the sample at its own address, which it
 * counts in the entry's Children and Self but draws no chain for.  The
 * robot's calltrace keys leave those samples out, so under perf-compatible
 * naming the tree says how much of a node's self they are.  Sparse: most
 * profiles have none, and the few they have sit on nodes of depth one.
 */
#include <stdlib.h>

#include "internal.h"

static uint64_t chainless_key(size_t run, uint32_t node)
{
	return (uint64_t)run << 32 | node;
}

int pd_cct_add_chainless(pd_cct *t, uint32_t node, uint64_t period)
{
	uint64_t key = chainless_key(t->nruns - 1, node);
	uintptr_t at = (uintptr_t)pd_u64map_get(&t->chainless, key);
	if (at) {
		t->chainless_v[at - 1] += period;
		return 0;
	}
	if (pd_grow(&t->chainless_v, &t->cap_chainless, t->nchainless + 1,
		    sizeof *t->chainless_v) < 0)
		return PD_ENOMEM;
	if (pd_u64map_put(&t->chainless, key, (void *)(uintptr_t)(t->nchainless + 1)) < 0)
		return PD_ENOMEM;
	t->chainless_v[t->nchainless++] = period;
	return 0;
}

void pd_cct_chainless_free(pd_cct *t)
{
	pd_u64map_free(&t->chainless);
	free(t->chainless_v);
	t->chainless_v = NULL;
	t->nchainless = t->cap_chainless = 0;
}

static uint64_t chainless_of(const pd_cct *t, uint32_t id, size_t run)
{
	uintptr_t at = (uintptr_t)pd_u64map_get(&t->chainless, chainless_key(run, id));
	return at ? t->chainless_v[at - 1] : 0;
}

uint64_t pd_cct_chainless(const pd_cct_node *n, size_t run)
{
	if (!n || n->tree->nchainless == 0)
		return 0;
	if (run != SIZE_MAX)
		return chainless_of(n->tree, n->id, run);
	uint64_t sum = 0;
	for (size_t r = 0; r < n->tree->nruns; r++)
		sum += chainless_of(n->tree, n->id, r);
	return sum;
}
