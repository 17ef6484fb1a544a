/*
 * The aligned tree as one tree (diff.h, pd_diff_node): what a
 * differential flame graph draws.  The aligner leaves two trees whose
 * nodes point at their partners; here every base node becomes a node
 * (with its partner's values when it has one) and every new node without
 * a partner becomes one under its caller's node.  So a renamed function
 * is one node with two names, not a −X and a +X tower side by side, and
 * the flame graph needs nothing of the aligner's internals.  Built once,
 * at the end of pd_diff_new(), when the rows and relations are final.
 * Each side's profile nodes with self cost (the leaves of its stacks) are
 * mapped to their aligned node too, so that a side's stacks can be named
 * as the aligned tree names them (the differential folded stacks).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A node's share of the big arrays: its values per run, both sides. */
typedef struct node_build {
	pd_diff *d;
	uint32_t *new_to;      /* new tree id → node index */
	double *vals;          /* [nodes * (R0 + R1)] */
	size_t R[2];
} node_build;

static void side_of(pd_diff_side *s, const double *v, size_t n)
{
	double sum = 0, ss = 0;
	size_t present = 0;
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		present += v[i] != 0;
	}
	double m = n ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*s = (pd_diff_side){ m, n ? sqrt(ss / (double)n) : 0, v, n, present };
}

/* Fill side `side` of node `k` from tree node `v` (DT_NONE: zeros). */
static void fill_side(node_build *nb, size_t k, int side, uint32_t v)
{
	const pd_diff *d = nb->d;
	const dt_tree *t = &d->tree[side];
	double *vals = nb->vals + k * (nb->R[0] + nb->R[1]) + (side ? nb->R[0] : 0);
	double self = 0;
	pd_diff_node *n = &d->nodes[k];
	for (size_t r = 0; v != DT_NONE && r < nb->R[side]; r++) {
		vals[r] = (double)t->incl[(size_t)v * t->nruns + r] * d->unit[side][r];
		self += (double)t->self[(size_t)v * t->nruns + r] * d->unit[side][r];
	}
	side_of(side ? &n->new : &n->base, vals, nb->R[side]);
	if (side)
		n->new_self = nb->R[1] ? self / (double)nb->R[1] : 0;
	else
		n->base_self = nb->R[0] ? self / (double)nb->R[0] : 0;
	if (v != DT_NONE && v != 0) {
		const char **name = side ? &n->new_symbol : &n->base_symbol;
		*name = dt_node_sym(t, v);
		if (!n->dso)
			n->dso = dt_node_key(t, v)->dso;
	}
}

/* The public relation and the tree row of node `k`, from tree node `v`
 * of `side` (either of the pair will do: they carry the same). */
static void link_node(node_build *nb, size_t k, int side, uint32_t v)
{
	pd_diff *d = nb->d;
	pd_diff_node *n = &d->nodes[k];
	uint32_t rel = d->tree[side].n[v].rel;
	if (!n->relation && rel != DT_NONE && d->relmap && d->relmap[rel] != DT_NONE)
		n->relation = &d->rels[d->relmap[rel]];
	if (!n->row && d->trow[side] && d->trow[side][v] != DT_NONE)
		n->row = &d->out[d->rowpos[d->trow[side][v]]];
}

static void build_node(node_build *nb, size_t k, uint32_t bv, uint32_t nv, size_t parent)
{
	pd_diff_node *n = &nb->d->nodes[k];
	memset(n, 0, sizeof *n);
	n->parent = parent;
	fill_side(nb, k, 0, bv);
	fill_side(nb, k, 1, nv);
	n->change = n->new.mean - n->base.mean;
	if (bv != DT_NONE)
		link_node(nb, k, 0, bv);
	if (nv != DT_NONE)
		link_node(nb, k, 1, nv);
}

/* Base nodes keep their ids; new nodes without a partner follow. */
static size_t number_new(node_build *nb)
{
	const dt_tree *B = &nb->d->tree[0], *N = &nb->d->tree[1];
	size_t k = B->nn;
	nb->new_to[0] = 0;
	for (uint32_t v = 1; v < N->nn; v++)
		nb->new_to[v] = N->n[v].partner != DT_NONE ? N->n[v].partner : (uint32_t)k++;
	return k;
}

static void build_all(node_build *nb)
{
	const dt_tree *B = &nb->d->tree[0], *N = &nb->d->tree[1];
	for (uint32_t v = 0; v < B->nn; v++) {
		uint32_t p = v == 0 ? 0 : B->n[v].partner;
		build_node(nb, v, v, p, v == 0 ? SIZE_MAX : B->n[v].parent);
	}
	for (uint32_t v = 1; v < N->nn; v++)
		if (N->n[v].partner == DT_NONE)
			build_node(nb, nb->new_to[v], DT_NONE, v, nb->new_to[N->n[v].parent]);
}

/* Each source profile node of `side` (tree.c: the nodes with self cost)
 * → its aligned node + 1.  0 or PD_ENOMEM. */
static int map_sources(node_build *nb, int side)
{
	const dt_tree *t = &nb->d->tree[side];
	pd_u64map *m = &nb->d->node_of[side];
	for (size_t i = 0; i < t->nsrc; i++) {
		size_t k = side ? nb->new_to[t->src_id[i]] : t->src_id[i];
		if (pd_u64map_put(m, (uint64_t)(uintptr_t)t->src[i], (void *)(uintptr_t)(k + 1)) < 0)
			return PD_ENOMEM;
	}
	return 0;
}

int pd_diff_build_nodes(pd_diff *d)
{
	node_build nb = { .d = d, .R = { d->nruns[0], d->nruns[1] } };
	nb.new_to = malloc((d->tree[1].nn ? d->tree[1].nn : 1) * sizeof *nb.new_to);
	if (!nb.new_to)
		return PD_ENOMEM;
	size_t n = number_new(&nb), per = nb.R[0] + nb.R[1];
	d->nodes = pd_arena_alloc(&d->arena, n * sizeof *d->nodes);
	nb.vals = per && n <= SIZE_MAX / per / sizeof(double)
			  ? pd_arena_alloc(&d->arena, n * per * sizeof(double)) : NULL;
	int rc = d->nodes && nb.vals ? 0 : PD_ENOMEM;
	if (rc == 0) {
		d->nnodes = n;
		build_all(&nb);
		for (int side = 0; side < 2 && rc == 0; side++)
			rc = map_sources(&nb, side);
	}
	free(nb.new_to);
	return rc;
}

size_t pd_diff_node_count(const pd_diff *d)
{
	return d ? d->nnodes : 0;
}

const pd_diff_node *pd_diff_node_at(const pd_diff *d, size_t i)
{
	return d && i < d->nnodes ? &d->nodes[i] : NULL;
}

size_t pd_diff_node_of(const pd_diff *d, int side, const pd_cct_node *c)
{
	if (!d || side < 0 || side > 1 || !c)
		return SIZE_MAX;
	uintptr_t k = (uintptr_t)pd_u64map_get(&d->node_of[side], (uint64_t)(uintptr_t)c);
	return k ? (size_t)k - 1 : SIZE_MAX;
}
