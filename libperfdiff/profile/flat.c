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
 * node of frame f on the current path.  The walk's stack holds the path
 * only (node and next child), so it grows with depth, not with the tree,
 * and no memory of the tree's size is touched besides same_anc[]. */
typedef struct dfs_ent {
	uint32_t node, next;
} dfs_ent;

static int link_same_frames(pd_pevent *e, uint32_t nframes)
{
	const pd_cct *t = &e->tree;
	uint32_t *sa = realloc(e->same_anc, (size_t)t->n * sizeof *sa);
	if (!sa)
		return PD_ENOMEM;
	e->same_anc = sa;
	uint32_t *last = malloc((nframes ? nframes : 1) * sizeof *last);
	size_t cap = 256;
	dfs_ent *stack = malloc(cap * sizeof *stack);
	if (!last || !stack) {
		free(last);
		free(stack);
		return PD_ENOMEM;
	}
	for (uint32_t f = 0; f < nframes; f++)
		last[f] = PD_NO_ID;
	sa[0] = PD_NO_ID;
	size_t depth = 0;
	stack[depth++] = (dfs_ent){ 0, 0 };
	while (depth) {
		dfs_ent *top = &stack[depth - 1];
		uint32_t v = top->node;
		const pd_cct_node *nv = &t->nodes[v];
		if (top->next < nv->nchild) {
			uint32_t c = t->child_ids[nv->child0 + top->next++];
			uint32_t f = t->nodes[c].frame;
			sa[c] = last[f];
			last[f] = c;
			if (depth == cap) {
				dfs_ent *x = realloc(stack, 2 * cap * sizeof *x);
				if (!x) {
					free(last);
					free(stack);
					return PD_ENOMEM;
				}
				stack = x;
				cap *= 2;
			}
			stack[depth++] = (dfs_ent){ c, 0 };
			continue;
		}
		depth--;
		if (v != 0)
			last[nv->frame] = sa[v];
	}
	free(last);
	free(stack);
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

/* What the sort compares, small and in one place: most entries differ in
 * their values or in the first bytes of their names (unresolved frames
 * share "0x0000..." up to the 12th), so the names themselves are rarely
 * reached.  The entries themselves are written once, in sorted order:
 * a second array of entries to sort from would be the view's largest
 * temporary (72 bytes an entry, 620,000 entries on a heavy recording). */
typedef struct sort_key {
	uint64_t children, self;
	uint64_t prefix[2];  /* the symbol's first 16 bytes, big-endian, 0-padded */
	uint32_t frame;
	uint32_t vals;       /* the entry's per-run values, at flat_vals + 2 * nruns * vals */
} sort_key;

static void name_prefix(const char *s, uint64_t out[2])
{
	size_t i = 0;
	for (int w = 0; w < 2; w++) {
		uint64_t v = 0;
		for (int k = 0; k < 8; k++) {
			unsigned char c = s[i] ? (unsigned char)s[i++] : 0;
			v = v << 8 | c;
		}
		out[w] = v;
	}
}

/* Whether `x` sorts before `y`: children, then self, descending; then
 * symbol, dso, inline-ness and kernel-ness as in the header. */
static bool entry_before(const pd_profile *p, const sort_key *x, const sort_key *y)
{
	if (x->children != y->children)
		return x->children > y->children;
	if (x->self != y->self)
		return x->self > y->self;
	if (x->prefix[0] != y->prefix[0])
		return x->prefix[0] < y->prefix[0];
	if (x->prefix[1] != y->prefix[1])
		return x->prefix[1] < y->prefix[1];
	const pd_pframe *a = &p->frames.v[x->frame], *b = &p->frames.v[y->frame];
	int c = strcmp(pd_strtab_get(&p->strings, a->sym), pd_strtab_get(&p->strings, b->sym));
	if (c)
		return c < 0;
	c = strcmp(pd_strtab_get(&p->strings, a->dso), pd_strtab_get(&p->strings, b->dso));
	if (c)
		return c < 0;
	bool ai = a->flags & PD_PF_INLINED, bi = b->flags & PD_PF_INLINED;
	if (ai != bi)
		return bi;
	bool ak = a->flags & PD_PF_KERNEL, bk = b->flags & PD_PF_KERNEL;
	return ak != bk && bk;
}

/* Bottom-up merge sort of `v` with scratch `tmp` (n each): the comparison
 * inlined, which qsort's callback cannot be, for tens of thousands of
 * entries.  Returns the array holding the result. */
static sort_key *sort_keys(const pd_profile *p, sort_key *v, sort_key *tmp, size_t n)
{
	for (size_t run = 1; run < n; run *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * run) {
			size_t mid = lo + run < n ? lo + run : n;
			size_t hi = mid + run < n ? mid + run : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = entry_before(p, &v[j], &v[i]) ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		sort_key *x = v;
		v = tmp;
		tmp = x;
	}
	return v;
}

/* Self and children of frame f, per run (`sr`, `cr`) and summed, into
 * the key `sk`. */
static void values_of_frame(const pd_profile *p, const pd_pevent *e, uint32_t f,
			    uint64_t *sr, uint64_t *cr, sort_key *sk)
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
		/* one run: its values are the sums, read below */
		for (size_t r = 0; nr > 1 && r < nr; r++) {
			sr[r] += pd_cct_self_of(t, *v, r);
			if (top)
				cr[r] += t->total_runs[r][*v];
		}
		self += t->self_sum[*v];
		if (top)
			children += t->total_sum[*v];
	}
	if (nr == 1) {
		sr[0] = self;
		cr[0] = children;
	}
	sk->children = children;
	sk->self = self;
	sk->frame = f;
	name_prefix(pd_strtab_get(&p->strings, p->frames.v[f].sym), sk->prefix);
}

/* The entry of key `sk`, its per-run values at `sr` and `sr + nruns`. */
static pd_flat_entry entry_of_key(const pd_profile *p, const sort_key *sk, const uint64_t *sr)
{
	const pd_pframe *pf = &p->frames.v[sk->frame];
	return (pd_flat_entry){
		.symbol = pd_strtab_get(&p->strings, pf->sym),
		.dso = pd_strtab_get(&p->strings, pf->dso),
		.kernel = (pf->flags & PD_PF_KERNEL) != 0,
		.self = sk->self,
		.children = sk->children,
		.self_runs = sr,
		.children_runs = sr + p->nruns,
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
	sort_key *keys = malloc(2 * slots * sizeof *keys);
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
	if (!keys || !flat || !ff || !of || !vals) {
		free(keys);
		return PD_ENOMEM;
	}

	uint32_t k = 0;
	for (uint32_t f = 0; f < nframes; f++) {
		of[f] = PD_NO_ID;
		if (e->frame_nodes_at[f + 1] == e->frame_nodes_at[f])
			continue;
		uint64_t *sr = vals + (size_t)k * 2 * nr;
		values_of_frame(p, e, f, sr, sr + nr, &keys[k]);
		keys[k].vals = k;
		k++;
	}
	const sort_key *sorted = sort_keys(p, keys, keys + slots, nent);
	for (size_t i = 0; i < nent; i++) {
		const sort_key *sk = &sorted[i];
		flat[i] = entry_of_key(p, sk, vals + (size_t)sk->vals * 2 * nr);
		ff[i] = sk->frame;
		of[sk->frame] = (uint32_t)i;
	}
	free(keys);
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
