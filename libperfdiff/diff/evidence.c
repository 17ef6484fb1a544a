/*
 * Weighing the evidence that two differently named nodes are one
 * function, beyond what their names say.
 *
 * A shared callee is weak evidence when it is shared by everything: on a
 * system-wide recording every system-call wrapper calls the system-call
 * entry, every copy loop memcpy.  A shared callee weighs as much of its
 * function's cost as comes through the pair on each side (the smaller of
 * the two): all of it for a helper of the renamed function alone, little
 * for the system-call entry of a machine making many calls.
 *
 * Two wrappers of two different system calls share their first levels
 * (the entry, do_syscall_64) and nothing below: a rename keeps the whole
 * subtree.  So where much of a subtree's cost lies below its first level,
 * the self cost found down there must sit at the same places on both
 * sides (deep_agreement).
 *
 * The builds themselves are the last word where they can be read
 * (dt_facts): a function still defined in the new build's symbol table
 * was not renamed away, and DWARF that shows a callee inlined into its
 * caller confirms an inlining that frames without inline information
 * cannot show.
 */
#include <stdlib.h>

#include "align_ctx.h"

int evidence_init(ctx *c)
{
	uint32_t nk = c->b->keys->n;
	for (int s = 0; s < 2; s++) {
		c->ktotal[s] = calloc(nk ? nk : 1, sizeof *c->ktotal[s]);
		if (!c->ktotal[s])
			return PD_ENOMEM;
		const dt_tree *t = side_tree(c, s);
		for (uint32_t i = 1; i < t->nn; i++)
			c->ktotal[s][t->n[i].key] += incl(t, i);
	}
	return 0;
}

void evidence_free(ctx *c)
{
	free(c->ktotal[0]);
	free(c->ktotal[1]);
	c->ktotal[0] = c->ktotal[1] = NULL;
}

/* How much of callee v's function's cost on its side comes through this
 * one node (0..1). */
static double concentration(const ctx *c, int side, uint32_t v)
{
	const dt_tree *t = side_tree(c, side);
	double all = c->ktotal[side][t->n[v].key];
	return all > 0 ? fmin(1.0, incl(t, v) / all) : 1;
}

int fact_defined(const ctx *c, int side, const dt_tree *of, uint32_t i, const char *name)
{
	if (!c->facts || !c->facts->defined || !name)
		return DT_FACT_UNKNOWN;
	const char *dso = dt_tree_dso(side_tree(c, side), of->n[i].key);
	if (!dso)
		return DT_FACT_UNKNOWN;
	return c->facts->defined(c->facts->ctx, side, dso, name);
}

int fact_inlined(const ctx *c, int side, uint32_t caller, const char *callee)
{
	const dt_tree *t = side_tree(c, side);
	if (!c->facts || !c->facts->inlined_into || caller == 0 || !callee)
		return DT_FACT_UNKNOWN;
	const char *dso = dt_tree_dso(t, t->n[caller].key);
	if (!dso)
		return DT_FACT_UNKNOWN;
	return c->facts->inlined_into(c->facts->ctx, side, dso, callee, sym(t, caller));
}

double callee_evidence(ctx *c, uint32_t x, uint32_t y, uint32_t *common)
{
	const dt_tree *B = c->b, *N = c->n;
	uint32_t kx = costly_kids(c, B, x), ky = costly_kids(c, N, y);
	double w = 0;
	*common = 0;
	for (uint32_t k = 0; k < B->n[x].nkids; k++) {
		uint32_t v = dt_kid(B, x, k);
		uint32_t w2 = shaping(c, B, x, v) ? dt_tree_find(N, y, B->n[v].key) : DT_NONE;
		if (w2 == DT_NONE)
			continue;
		(*common)++;
		w += fmin(concentration(c, 0, v), concentration(c, 1, w2));
	}
	return kx + ky ? fmin(1.0, 2.0 * w / (double)(kx + ky)) : 0;
}

/* Cost of the subtree of v below its first level, as a share of v. */
static double deep_share(const dt_tree *t, uint32_t v)
{
	double d = incl(t, v) - self(t, v);
	for (uint32_t k = 0; k < t->n[v].nkids; k++)
		d -= self(t, dt_kid(t, v, k));
	return incl(t, v) > 0 ? fmax(0, d) / incl(t, v) : 0;
}

/* Self cost (shares of x and y) at the same places of both subtrees,
 * `depth` levels below x and y; at most `*budget` more nodes visited. */
static double same_places(const ctx *c, uint32_t v, uint32_t w, double ix, double iy,
			  unsigned depth, uint32_t *budget)
{
	const dt_tree *B = c->b, *N = c->n;
	double sum = depth >= 2 ? fmin(self(B, v) / ix, self(N, w) / iy) : 0;
	for (uint32_t k = 0; k < B->n[v].nkids && *budget > 0; k++) {
		uint32_t v2 = dt_kid(B, v, k);
		uint32_t w2 = dt_tree_find(N, w, B->n[v2].key);
		if (w2 == DT_NONE)
			continue;
		(*budget)--;
		sum += same_places(c, v2, w2, ix, iy, depth + 1, budget);
	}
	return sum;
}

double deep_agreement(ctx *c, uint32_t x, uint32_t y, bool *deep)
{
	double dx = deep_share(c->b, x), dy = deep_share(c->n, y);
	*deep = dx >= DT_DEEP_FRACTION || dy >= DT_DEEP_FRACTION;
	if (!*deep)
		return 1;
	uint32_t budget = 4096;
	double same = same_places(c, x, y, incl(c->b, x), incl(c->n, y), 0, &budget);
	return fmin(1.0, same / fmax(dx, dy));
}
