/*
 * Time blocks: for every run a grid of equal-duration blocks, and per
 * (event, run) the number of samples whose leaf is each tree node in each
 * block.  A two-proportion test treats a run's samples as independent
 * draws; bursts and other load within one run are variance it does not
 * see, and the spread of a row's share across the run's own blocks
 * ("batch means") estimates it.
 *
 * Folding is the hot loop, so a sample costs one slot of a per-node array:
 * samples come in time order and a node's blocks only grow, so each node
 * keeps an open (block, count) cell, closed into a sequential log when the
 * node's next sample falls in a later block (internal.h).  No hash table:
 * a map keyed by (node, block) cost ~2 % of `perfdiff report`'s CPU in
 * probes and inserts on a system-wide recording.
 *
 * The grid starts at 2^20 ns blocks from the run's first timed sample and
 * doubles its width (merging pairs of blocks) when a sample lands beyond
 * PD_BLOCK_MAX blocks: the open cells and the log are renumbered in place,
 * and cells that now share a block are merged when the run ends, as the
 * counts are compacted into the tree's run values: per node a list of
 * (block, samples) sorted by block (CSR by node id).
 */
#include <stdlib.h>

#include "internal.h"

void pd_blockrun_init(pd_blockrun *b)
{
	memset(b, 0, sizeof *b);
	b->shift = PD_BLOCK_SHIFT0;
}

static void acc_free(pd_blockacc *a)
{
	free(a->open);
	free(a->cells);
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

/* Room for event `ev` and its node `node`; false without memory. */
static bool make_room(pd_blockrun *b, uint32_t ev, uint32_t node)
{
	if (ev >= b->nacc) {
		size_t n = (size_t)ev + 1;
		pd_blockacc *v = realloc(b->acc, n * sizeof *v);
		if (!v)
			return false;
		memset(v + b->nacc, 0, (n - b->nacc) * sizeof *v);
		b->acc = v;
		b->nacc = n;
	}
	pd_blockacc *a = &b->acc[ev];
	if (node < a->nopen)
		return true;
	/* nodes are made in id order: grow ahead, as the tree's arrays do */
	uint64_t want = (uint64_t)node + node / 2 + 64;
	uint32_t n = want > UINT32_MAX ? UINT32_MAX : (uint32_t)want;
	pd_blockopen *o = realloc(a->open, (size_t)n * sizeof *o);
	if (!o)
		return false;
	memset(o + a->nopen, 0, (size_t)(n - a->nopen) * sizeof *o);
	a->open = o;
	a->nopen = n;
	return true;
}

int pd_blockrun_count_new(pd_blockrun *b, uint32_t ev, uint32_t node, uint32_t block)
{
	if (!make_room(b, ev, node))
		return PD_ENOMEM;
	return pd_blockrun_count(b, ev, node, block);
}

static int log_cell(pd_blockacc *a, uint32_t node, uint32_t block, uint32_t count)
{
	if (a->n == a->cap) {
		uint32_t cap = a->cap ? a->cap * 2 : 1024;
		pd_blockcell *v = cap > a->cap ? realloc(a->cells, (size_t)cap * sizeof *v) : NULL;
		if (!v)
			return PD_ENOMEM;
		a->cells = v;
		a->cap = cap;
	}
	a->cells[a->n++] = (pd_blockcell){ node, block, count };
	return 0;
}

int pd_blockrun_switch(pd_blockacc *a, uint32_t node, uint32_t block)
{
	pd_blockopen *o = &a->open[node];
	/* out of time order: a cell of its own, merged at the end */
	if (o->block1 > block + 1)
		return log_cell(a, node, block, 1);
	if (o->block1) {
		int rc = log_cell(a, node, o->block1 - 1, o->count);
		if (rc < 0)
			return rc;
	}
	*o = (pd_blockopen){ block + 1, 1 };
	return 0;
}

static uint32_t add_sat(uint32_t c, uint64_t n)
{
	return n >= UINT32_MAX - c ? UINT32_MAX : c + (uint32_t)n;
}

int pd_blockrun_count_n(pd_blockrun *b, uint32_t ev, uint32_t node, uint32_t block,
			uint64_t n)
{
	if (n == 0)
		return 0;
	int rc = pd_blockrun_count(b, ev, node, block);
	if (rc < 0 || n == 1)
		return rc;
	/* the first sample opened or logged the cell the others join */
	pd_blockacc *a = &b->acc[ev];
	a->total[block] += n - 1;
	if (a->open[node].block1 == block + 1)
		a->open[node].count = add_sat(a->open[node].count, n - 1);
	else
		a->cells[a->n - 1].count = add_sat(a->cells[a->n - 1].count, n - 1);
	return 0;
}

/* x >> d for any d: a sample far in the future (a hostile time) widens
 * the blocks by more than 31 levels at once. */
static uint32_t shr(uint32_t x, unsigned d)
{
	return d >= 32 ? 0 : x >> d;
}

/* `a`'s blocks renumbered `d` levels coarser: block i becomes i >> d. */
static void acc_merge(pd_blockacc *a, unsigned d)
{
	for (uint32_t i = 0; i < a->nopen; i++)
		if (a->open[i].block1)
			a->open[i].block1 = shr(a->open[i].block1 - 1, d) + 1;
	for (uint32_t i = 0; i < a->n; i++)
		a->cells[i].block = shr(a->cells[i].block, d);
	uint64_t total[PD_BLOCK_MAX] = { 0 };
	for (unsigned i = 0; i < PD_BLOCK_MAX; i++)
		total[shr(i, d)] += a->total[i];
	memcpy(a->total, total, sizeof total);
}

void pd_blockrun_widen(pd_blockrun *b, uint64_t t)
{
	unsigned shift = b->shift;
	while (shift < 63 && ((t - b->t0) >> shift) >= PD_BLOCK_MAX)
		shift++;
	unsigned d = shift - b->shift;
	for (size_t i = 0; i < b->nacc; i++)
		acc_merge(&b->acc[i], d);
	b->shift = shift;
	b->last = shr(b->last, d);
}

static int cmp_block(const void *a, const void *b)
{
	uint32_t x = ((const pd_block_count *)a)->block, y = ((const pd_block_count *)b)->block;
	return x < y ? -1 : x > y;
}

/* One node's cells ordered by block, equal blocks merged: the new count.
 * Usually a few cells in order; many only where samples came out of time
 * order (a reader in file order). */
static size_t sort_merge(pd_block_count *v, size_t n)
{
	if (n > PD_BLOCK_MAX)
		qsort(v, n, sizeof *v, cmp_block);
	for (size_t i = 1; i <= PD_BLOCK_MAX && i < n; i++) {
		pd_block_count x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1].block > x.block; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].block == v[i].block) {
			uint32_t c = v[k - 1].samples;
			v[k - 1].samples = UINT32_MAX - c < v[i].samples ? UINT32_MAX : c + v[i].samples;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

/* The log's cells grouped by node (at[node] .. at[node + 1]). */
static void scatter(const pd_blockacc *a, uint32_t *at, uint32_t nodes, pd_block_count *v)
{
	for (uint32_t i = 0; i < a->n; i++)
		at[a->cells[i].node + 1]++;
	for (uint32_t i = 0; i < nodes; i++)
		at[i + 1] += at[i];
	/* at[node] walks its list while filling, then moves back one node */
	for (uint32_t i = 0; i < a->n; i++)
		v[at[a->cells[i].node]++] = (pd_block_count){ a->cells[i].block, a->cells[i].count };
	for (uint32_t i = nodes; i > 0; i--)
		at[i] = at[i - 1];
	at[0] = 0;
}

/* The counts of `a` (open cells closed) as the CSR lists of `rv`. */
static int compact(pd_blockacc *a, pd_runvals *rv)
{
	uint32_t nodes = 0;
	for (uint32_t i = 0; i < a->nopen; i++)
		if (a->open[i].block1) {
			if (log_cell(a, i, a->open[i].block1 - 1, a->open[i].count) < 0)
				return PD_ENOMEM;
			nodes = i + 1;
		}
	for (uint32_t i = 0; i < a->n; i++)
		nodes = a->cells[i].node >= nodes ? a->cells[i].node + 1 : nodes;
	uint32_t *at = calloc((size_t)nodes + 1, sizeof *at);
	pd_block_count *v = malloc((a->n ? a->n : 1) * sizeof *v);
	if (!at || !v) {
		free(at);
		free(v);
		return PD_ENOMEM;
	}
	scatter(a, at, nodes, v);
	/* merged lists only shrink: rewritten front to back in place */
	uint32_t w = 0;
	for (uint32_t i = 0, start = 0; i < nodes; i++) {
		uint32_t end = at[i + 1];
		size_t k = sort_merge(v + start, end - start);
		memmove(v + w, v + start, k * sizeof *v);
		at[i] = w;
		w += (uint32_t)k;
		start = end;
	}
	at[nodes] = w;
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
	const pd_runvals *rv = n && run < n->tree->nruns ? &n->tree->runs[run] : NULL;
	bool any = rv && n->id < rv->blk_nodes;
	if (out)
		*out = any ? rv->blk + rv->blk_at[n->id] : NULL;
	return any ? rv->blk_at[n->id + 1] - rv->blk_at[n->id] : 0;
}
