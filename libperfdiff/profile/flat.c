/*
 * The flat children/self view, projected from the tree.
 *
 * A sample's chain is one root → leaf path.  Counting a symbol once per
 * sample (perf's rule under recursion) is the same as adding the
 * inclusive total of every node of that symbol that has no ancestor of the
 * same symbol: each sample passes through exactly one such topmost node.
 * One depth-first walk finds, for every node, its nearest ancestor with
 * the same frame; that link also serves the chains under an entry
 * (chains.c).
 */
#include <stdlib.h>

#include "internal.h"

/* same_anc[] by an iterative depth-first walk; `last[f]` is the nearest
 * node of frame f on the current path. */
static int link_same_frames(pd_pevent *e, uint32_t nframes)
{
	const pd_cct *t = &e->tree;
	uint32_t *sa = realloc(e->same_anc, (size_t)t->n * sizeof *sa);
	if (!sa)
		return PD_ENOMEM;
	e->same_anc = sa;
	uint32_t *last = malloc((nframes ? nframes : 1) * sizeof *last);
	uint32_t *stack = malloc((size_t)t->n * sizeof *stack);
	uint32_t *next = malloc((size_t)t->n * sizeof *next);
	if (!last || !stack || !next) {
		free(last);
		free(stack);
		free(next);
		return PD_ENOMEM;
	}
	for (uint32_t f = 0; f < nframes; f++)
		last[f] = PD_NO_ID;
	sa[0] = PD_NO_ID;
	size_t depth = 0;
	stack[depth++] = 0;
	next[0] = 0;
	while (depth) {
		uint32_t v = stack[depth - 1];
		const pd_cct_node *nv = &t->nodes[v];
		if (next[v] < nv->nchild) {
			uint32_t c = t->child_ids[nv->child0 + next[v]++];
			uint32_t f = t->nodes[c].frame;
			sa[c] = last[f];
			last[f] = c;
			next[c] = 0;
			stack[depth++] = c;
			continue;
		}
		depth--;
		if (v != 0)
			last[nv->frame] = sa[v];
	}
	free(last);
	free(stack);
	free(next);
	return 0;
}

/* Nodes grouped by frame, for the chains under an entry. */
static int group_by_frame(pd_pevent *e, uint32_t nframes)
{
	const pd_cct *t = &e->tree;
	uint32_t *at = realloc(e->frame_nodes_at, ((size_t)nframes + 1) * sizeof *at);
	if (!at)
		return PD_ENOMEM;
	e->frame_nodes_at = at;
	uint32_t *nodes = realloc(e->frame_nodes, (t->n > 1 ? t->n - 1 : 1) * sizeof *nodes);
	if (!nodes)
		return PD_ENOMEM;
	e->frame_nodes = nodes;
	memset(at, 0, ((size_t)nframes + 1) * sizeof *at);
	for (uint32_t v = 1; v < t->n; v++)
		at[t->nodes[v].frame + 1]++;
	for (uint32_t f = 0; f < nframes; f++)
		at[f + 1] += at[f];
	/* fill using at[f] as a cursor, then shift back */
	for (uint32_t v = 1; v < t->n; v++)
		nodes[at[t->nodes[v].frame]++] = v;
	for (uint32_t f = nframes; f > 0; f--)
		at[f] = at[f - 1];
	at[0] = 0;
	return 0;
}

typedef struct tmp_entry {
	pd_flat_entry x;
	uint32_t frame;
} tmp_entry;

static int cmp_entries(const void *a, const void *b)
{
	const pd_flat_entry *x = &((const tmp_entry *)a)->x;
	const pd_flat_entry *y = &((const tmp_entry *)b)->x;
	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	int c = strcmp(x->symbol, y->symbol);
	if (c)
		return c;
	c = strcmp(x->dso, y->dso);
	if (c)
		return c;
	if (x->inlined != y->inlined)
		return x->inlined ? 1 : -1;
	return x->kernel == y->kernel ? 0 : x->kernel ? 1 : -1;
}

/* Self and children of frame f, per run and summed, into `te`. */
static void entry_of_frame(const pd_profile *p, const pd_pevent *e, uint32_t f,
			   uint64_t *sr, uint64_t *cr, tmp_entry *te)
{
	const pd_cct *t = &e->tree;
	size_t nr = p->nruns;
	const uint32_t *nb = e->frame_nodes + e->frame_nodes_at[f];
	const uint32_t *ne = e->frame_nodes + e->frame_nodes_at[f + 1];
	memset(sr, 0, nr * sizeof *sr);
	memset(cr, 0, nr * sizeof *cr);
	uint64_t self = 0, children = 0;
	for (const uint32_t *v = nb; v < ne; v++) {
		bool top = e->same_anc[*v] == PD_NO_ID;
		for (size_t r = 0; r < nr; r++) {
			sr[r] += pd_cct_self_of(t, *v, r);
			if (top)
				cr[r] += t->total_runs[r][*v];
		}
		self += t->self_sum[*v];
		if (top)
			children += t->total_sum[*v];
	}
	const pd_pframe *pf = &p->frames.v[f];
	te->frame = f;
	te->x = (pd_flat_entry){
		.symbol = pd_strtab_get(&p->strings, pf->sym),
		.dso = pd_strtab_get(&p->strings, pf->dso),
		.kernel = (pf->flags & PD_PF_KERNEL) != 0,
		.self = self,
		.children = children,
		.self_runs = sr,
		.children_runs = cr,
		.inlined = (pf->flags & PD_PF_INLINED) != 0,
		.unresolved = (pf->flags & PD_PF_UNRESOLVED) != 0,
	};
}

static int build_flat(pd_profile *p, pd_pevent *e)
{
	uint32_t nframes = p->frames.n;
	size_t nr = p->nruns;
	int rc;
	if ((rc = link_same_frames(e, nframes)) < 0 || (rc = group_by_frame(e, nframes)) < 0)
		return rc;

	size_t nent = 0;
	for (uint32_t f = 0; f < nframes; f++)
		nent += e->frame_nodes_at[f + 1] > e->frame_nodes_at[f];
	size_t slots = nent ? nent : 1;
	tmp_entry *tmp = malloc(slots * sizeof *tmp);
	pd_flat_entry *flat = realloc(e->flat, slots * sizeof *flat);
	if (flat)
		e->flat = flat;
	uint32_t *ff = realloc(e->flat_frame, slots * sizeof *ff);
	if (ff)
		e->flat_frame = ff;
	uint32_t *of = realloc(e->flat_of_frame, (nframes ? nframes : 1) * sizeof *of);
	if (of)
		e->flat_of_frame = of;
	uint64_t *vals = realloc(e->flat_vals, slots * (nr ? 2 * nr : 1) * sizeof *vals);
	if (vals)
		e->flat_vals = vals;
	if (!tmp || !flat || !ff || !of || !vals) {
		free(tmp);
		return PD_ENOMEM;
	}

	size_t k = 0;
	for (uint32_t f = 0; f < nframes; f++) {
		of[f] = PD_NO_ID;
		if (e->frame_nodes_at[f + 1] == e->frame_nodes_at[f])
			continue;
		uint64_t *sr = vals + k * 2 * nr;
		entry_of_frame(p, e, f, sr, sr + nr, &tmp[k]);
		k++;
	}
	qsort(tmp, nent, sizeof *tmp, cmp_entries);
	for (size_t i = 0; i < nent; i++) {
		flat[i] = tmp[i].x;
		ff[i] = tmp[i].frame;
		of[tmp[i].frame] = (uint32_t)i;
	}
	free(tmp);
	e->nflat = nent;
	return 0;
}

int pd_profile_prepare_flat(pd_profile *p, size_t ev, pd_error *err)
{
	if (!p || ev >= p->nevents)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "no such event: %zu", ev);
	pd_pevent *e = p->events[ev];
	if (e->flat_valid)
		return 0;
	int rc = build_flat(p, e);
	if (rc < 0)
		return pd_error_set(err, rc, "profile", PD_NO_OFFSET, "out of memory");
	e->flat_valid = true;
	return 0;
}

int pd_profile_flat(pd_profile *p, size_t ev, const pd_flat_entry **out, size_t *n,
		    pd_error *err)
{
	if (!out || !n)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "no output pointers given");
	int rc = pd_profile_prepare_flat(p, ev, err);
	if (rc < 0)
		return rc;
	*out = p->events[ev]->flat;
	*n = p->events[ev]->nflat;
	return 0;
}
