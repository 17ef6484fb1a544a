/*
 * Time blocks: for every run a grid of equal-duration blocks, and per
 * (event, run) the number of samples whose leaf is each tree node in each
 * block.  A two-proportion test treats a run's samples as independent
 * draws; bursts and other load within one run are variance it does not
 * see, and the spread of a row's share across the run's own blocks
 * ("batch means") estimates it.
 *
 * While folding, counts are kept sparsely per event, keyed by
 * (node << 5 | block); the folder skips even that lookup when a thread's
 * sample has the same leaf and block as its previous one.  The grid
 * starts at 2^20 ns blocks from the run's first timed sample and doubles
 * its width (merging pairs of blocks, and so rebuilding the keys) when a
 * sample lands beyond PD_BLOCK_MAX blocks: at most log2(span / 1 ms / 32)
 * rebuilds of a map as large as the distinct (leaf, block) pairs.  At the
 * end of the run the counts are compacted into the tree's run values as
 * a per-node list sorted by block (CSR by node id).
 */
#include <stdlib.h>

#include "internal.h"

#define BLOCK_BITS 5  /* log2(PD_BLOCK_MAX) */

void pd_blockrun_init(pd_blockrun *b)
{
	memset(b, 0, sizeof *b);
	b->shift = PD_BLOCK_SHIFT0;
}

static void acc_free(pd_blockacc *a)
{
	pd_idmap_free(&a->cells);
	free(a->key);
	free(a->count);
	memset(a, 0, sizeof *a);
}

void pd_blockrun_free(pd_blockrun *b)
{
	for (size_t i = 0; i < b->nacc; i++)
		acc_free(&b->acc[i]);
	free(b->acc);
	b->acc = NULL;
	b->nacc = 0;
}

/* The accumulator of event `ev`, made when new; NULL without memory. */
static pd_blockacc *acc_of(pd_blockrun *b, uint32_t ev)
{
	if (ev >= b->nacc) {
		size_t n = (size_t)ev + 1;
		pd_blockacc *v = realloc(b->acc, n * sizeof *v);
		if (!v)
			return NULL;
		memset(v + b->nacc, 0, (n - b->nacc) * sizeof *v);
		for (size_t i = b->nacc; i < n; i++)
			pd_idmap_init(&v[i].cells);
		b->acc = v;
		b->nacc = n;
	}
	return &b->acc[ev];
}

/* `n` to the cell of `key` (made when new): its index, or PD_NO_ID. */
static uint32_t acc_add(pd_blockacc *a, uint64_t key, uint32_t n)
{
	uint32_t i = pd_idmap_get(&a->cells, key);
	if (i == PD_NO_ID) {
		if (a->n == a->cap) {
			uint32_t cap = a->cap ? a->cap * 2 : 256;
			uint64_t *k = cap > a->cap ? realloc(a->key, (size_t)cap * sizeof *k) : NULL;
			if (!k)
				return PD_NO_ID;
			a->key = k;
			uint32_t *c = realloc(a->count, (size_t)cap * sizeof *c);
			if (!c)
				return PD_NO_ID;
			a->count = c;
			a->cap = cap;
		}
		if (pd_idmap_put(&a->cells, key, a->n) < 0)
			return PD_NO_ID;
		i = a->n++;
		a->key[i] = key;
		a->count[i] = 0;
	}
	a->count[i] = UINT32_MAX - a->count[i] < n ? UINT32_MAX : a->count[i] + n;
	return i;
}

int pd_blockrun_add(pd_blockrun *b, uint32_t ev, uint32_t node, uint32_t block, uint32_t *cell)
{
	pd_blockacc *a = acc_of(b, ev);
	uint32_t i = a ? acc_add(a, (uint64_t)node << BLOCK_BITS | block, 1) : PD_NO_ID;
	if (i == PD_NO_ID)
		return PD_ENOMEM;
	a->total[block]++;
	*cell = i;
	return 0;
}

/* `a` with its blocks merged `d` levels: block i becomes i >> d. */
static int acc_merge(pd_blockacc *a, unsigned d)
{
	pd_blockacc m;
	memset(&m, 0, sizeof m);
	pd_idmap_init(&m.cells);
	for (uint32_t i = 0; i < a->n; i++) {
		uint64_t node = a->key[i] >> BLOCK_BITS, block = a->key[i] & (PD_BLOCK_MAX - 1);
		if (acc_add(&m, node << BLOCK_BITS | block >> d, a->count[i]) == PD_NO_ID) {
			acc_free(&m);
			return PD_ENOMEM;
		}
	}
	for (unsigned i = 0; i < PD_BLOCK_MAX; i++)
		m.total[i >> d] += a->total[i];
	acc_free(a);
	*a = m;
	return 0;
}

int pd_blockrun_widen(pd_blockrun *b, uint64_t t)
{
	unsigned shift = b->shift;
	while (shift < 63 && ((t - b->t0) >> shift) >= PD_BLOCK_MAX)
		shift++;
	unsigned d = shift - b->shift;
	for (size_t i = 0; i < b->nacc; i++) {
		int rc = acc_merge(&b->acc[i], d);
		if (rc < 0)
			return rc;
	}
	b->shift = shift;
	b->last >>= d;
	b->gen++;
	return 0;
}

/* Order one node's (block, samples) list by block: at most PD_BLOCK_MAX. */
static void sort_blocks(pd_block_count *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		pd_block_count x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1].block > x.block; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The counts of `a` as the CSR lists of `rv` (its previous ones freed). */
static int compact(const pd_blockacc *a, pd_runvals *rv)
{
	uint32_t nodes = 0;
	for (uint32_t i = 0; i < a->n; i++)
		if ((uint32_t)(a->key[i] >> BLOCK_BITS) + 1 > nodes)
			nodes = (uint32_t)(a->key[i] >> BLOCK_BITS) + 1;
	uint32_t *at = calloc((size_t)nodes + 1, sizeof *at);
	pd_block_count *v = malloc((a->n ? a->n : 1) * sizeof *v);
	if (!at || !v) {
		free(at);
		free(v);
		return PD_ENOMEM;
	}
	for (uint32_t i = 0; i < a->n; i++)
		at[(a->key[i] >> BLOCK_BITS) + 1]++;
	for (uint32_t i = 0; i < nodes; i++)
		at[i + 1] += at[i];
	/* at[node] walks its list while filling, then moves back one node */
	for (uint32_t i = 0; i < a->n; i++)
		v[at[a->key[i] >> BLOCK_BITS]++] = (pd_block_count){
			(uint32_t)(a->key[i] & (PD_BLOCK_MAX - 1)), a->count[i] };
	for (uint32_t i = nodes; i > 0; i--)
		at[i] = at[i - 1];
	at[0] = 0;
	for (uint32_t i = 0; i < nodes; i++)
		sort_blocks(v + at[i], at[i + 1] - at[i]);
	free(rv->blk_at);
	free(rv->blk);
	*rv = (pd_runvals){ rv->self, rv->len, rv->cap, nodes, at, v };
	return 0;
}

int pd_blockrun_finish(pd_blockrun *b, struct pd_profile *p, size_t run)
{
	p->run_block_width[run] = b->timed ? (uint64_t)1 << b->shift : 0;
	p->run_blocks[run] = b->last + 1;
	for (size_t ev = 0; ev < b->nacc && ev < p->nevents; ev++) {
		pd_pevent *e = p->events[ev];
		int rc = compact(&b->acc[ev], &e->tree.runs[run]);
		if (rc < 0)
			return rc;
		memcpy(e->block_samples + run * PD_BLOCK_MAX, b->acc[ev].total,
		       sizeof b->acc[ev].total);
		acc_free(&b->acc[ev]);
	}
	return 0;
}

/* ------------------------------------------------------------ accessors */

size_t pd_profile_block_count(const pd_profile *p, size_t run)
{
	return p && run < p->nruns ? p->run_blocks[run] : 0;
}

uint64_t pd_profile_block_width(const pd_profile *p, size_t run)
{
	return p && run < p->nruns ? p->run_block_width[run] : 0;
}

uint64_t pd_profile_block_samples(const pd_profile *p, size_t ev, size_t run, size_t block)
{
	if (!p || ev >= p->nevents || run >= p->nruns || block >= PD_BLOCK_MAX)
		return 0;
	return p->events[ev]->block_samples[run * PD_BLOCK_MAX + block];
}

size_t pd_cct_blocks(const pd_cct_node *n, size_t run, const pd_block_count **out)
{
	*out = NULL;
	if (!n || run >= n->tree->nruns)
		return 0;
	const pd_runvals *rv = &n->tree->runs[run];
	if (n->id >= rv->blk_nodes)
		return 0;
	*out = rv->blk + rv->blk_at[n->id];
	return rv->blk_at[n->id + 1] - rv->blk_at[n->id];
}
