/*
 * The call chains under one flat entry, as `perf report --children` hangs
 * them under a row.  perf walks each sample's chain in cursor order and
 * credits an entry at its first occurrence, appending the rest of the
 * chain from there:
 *
 *   callee order  first occurrence from the leaf: the chain runs from the
 *                 deepest node of the symbol up through its callers.  In
 *                 the tree that sample's weight is the node's total minus
 *                 what passes through a deeper node of the same symbol.
 *   caller order  first occurrence from the root: the topmost node of the
 *                 symbol, and everything below it.
 *
 * Both are built from the tree and the same-frame ancestor links of
 * flat.c, never from samples.  A chain node stands for a set of tree
 * positions with weights; its children are those positions' next steps
 * (callees, or the caller) grouped by frame.  Expanding only groups that
 * reach `min_total` keeps the cost proportional to what is kept, which
 * matters because a report asks for the chains of every row.
 */
#include <stdlib.h>

#include "internal.h"

typedef struct item {
	uint32_t node;      /* tree position */
	uint32_t frame;     /* its frame, the grouping key */
	uint64_t w;         /* period carried through it */
} item;

typedef struct cnode {
	uint32_t frame;
	uint32_t parent;
	uint32_t depth;
	uint32_t first, nkids;     /* children: ids first .. first + nkids - 1 */
	size_t items, nitems;      /* range in the item buffer */
	uint64_t total, self;
} cnode;

struct pd_chain_tree {
	size_t n;
	pd_chain_node *nodes;
	size_t *kids;
};

typedef struct group {
	uint32_t frame;
	size_t at, n;      /* range in the grouped items */
	uint64_t sum;
	const char *name;
} group;

static int cmp_group(const void *a, const void *b)
{
	const group *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

typedef struct builder {
	const pd_profile *p;
	const pd_pevent *e;
	size_t run;
	pd_chain_order order;
	uint64_t min_total;
	cnode *v;
	uint32_t n, cap;
	item *it;                  /* items of every chain node */
	size_t nit, capit;
	item *scratch;             /* next steps of one chain node */
	size_t nscratch, capscratch;
	item *sorted;              /* the same, grouped by frame */
	size_t capsorted;
	uint32_t *slots;           /* frame hash → group, for grouping */
	size_t capslots;
	group *groups;
	size_t capgroups;
} builder;

static int push_item(item **v, size_t *n, size_t *cap, item x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		item *nv = realloc(*v, c * sizeof *nv);
		if (!nv)
			return PD_ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static uint32_t new_cnode(builder *b, uint32_t frame, uint32_t parent)
{
	if (b->n >= PD_ID_LIMIT)
		return PD_NO_ID;
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? (b->cap > PD_ID_LIMIT / 2 ? PD_ID_LIMIT : b->cap * 2) : 64;
		cnode *v = realloc(b->v, (size_t)cap * sizeof *v);
		if (!v)
			return PD_NO_ID;
		b->v = v;
		b->cap = cap;
	}
	uint32_t id = b->n++;
	b->v[id] = (cnode){ frame, parent, parent == PD_NO_ID ? 0 : b->v[parent].depth + 1,
			    0, 0, 0, 0, 0, 0 };
	return id;
}

/* Self of chain node `c` and the next steps of its positions into scratch. */
static int next_steps(builder *b, uint32_t c)
{
	const pd_cct *t = &b->e->tree;
	b->nscratch = 0;
	uint64_t self = 0;
	for (size_t i = 0; i < b->v[c].nitems; i++) {
		item x = b->it[b->v[c].items + i];
		const pd_cct_node *tn = &t->nodes[x.node];
		if (b->order == PD_CHAIN_CALLER) {
			self += pd_cct_self_of(t, x.node, b->run);
			for (uint32_t k = 0; k < tn->nchild; k++) {
				uint32_t ch = t->child_ids[tn->child0 + k];
				uint64_t w = pd_cct_total_of(t, ch, b->run);
				if (w && push_item(&b->scratch, &b->nscratch, &b->capscratch,
						   (item){ ch, t->nodes[ch].frame, w }) < 0)
					return PD_ENOMEM;
			}
		} else if (tn->parent == 0) {
			self += x.w;   /* the chain ends at the outermost frame */
		} else if (push_item(&b->scratch, &b->nscratch, &b->capscratch,
				     (item){ tn->parent, t->nodes[tn->parent].frame, x.w }) < 0) {
			return PD_ENOMEM;
		}
	}
	b->v[c].self = self;
	return 0;
}

static int reserve(void **v, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < n)
		c *= 2;
	void *x = realloc(*v, c * size);
	if (!x)
		return PD_ENOMEM;
	*v = x;
	*cap = c;
	return 0;
}

/*
 * Group the next steps of `c` by frame (a hash table, not a sort: a row
 * near the root has tens of thousands of them) and add the groups that
 * reach min_total as its children, heaviest first.
 */
static int expand(builder *b, uint32_t c)
{
	int rc = next_steps(b, c);
	if (rc < 0 || b->nscratch == 0)
		return rc;
	size_t n = b->nscratch, nslots = 16;
	while (nslots < 2 * n)
		nslots *= 2;
	if (reserve((void **)&b->slots, &b->capslots, nslots, sizeof *b->slots) < 0 ||
	    reserve((void **)&b->groups, &b->capgroups, n, sizeof *b->groups) < 0 ||
	    reserve((void **)&b->sorted, &b->capsorted, n, sizeof *b->sorted) < 0)
		return PD_ENOMEM;
	memset(b->slots, 0xff, nslots * sizeof *b->slots);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t f = b->scratch[i].frame;
		size_t h = pd_mix64(f) & (nslots - 1);
		while (b->slots[h] != PD_NO_ID && b->groups[b->slots[h]].frame != f)
			h = (h + 1) & (nslots - 1);
		if (b->slots[h] == PD_NO_ID) {
			b->slots[h] = (uint32_t)ng;
			b->groups[ng++] = (group){ f, 0, 0, 0, NULL };
		}
		group *g = &b->groups[b->slots[h]];
		g->n++;
		g->sum += b->scratch[i].w;
	}
	/* place each step in its group's range */
	size_t at = 0;
	for (size_t k = 0; k < ng; k++) {
		b->groups[k].at = at;
		at += b->groups[k].n;
		b->groups[k].n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t f = b->scratch[i].frame;
		size_t h = pd_mix64(f) & (nslots - 1);
		while (b->groups[b->slots[h]].frame != f)
			h = (h + 1) & (nslots - 1);
		group *g = &b->groups[b->slots[h]];
		b->sorted[g->at + g->n++] = b->scratch[i];
	}
	size_t kept = 0;
	for (size_t k = 0; k < ng; k++)
		if (b->groups[k].sum >= b->min_total) {
			const pd_pframe *pf = &b->p->frames.v[b->groups[k].frame];
			b->groups[k].name = pd_strtab_get(&b->p->strings, pf->sym);
			b->groups[kept++] = b->groups[k];
		}
	qsort(b->groups, kept, sizeof *b->groups, cmp_group);
	b->v[c].first = b->n;
	b->v[c].nkids = (uint32_t)kept;
	for (size_t k = 0; k < kept; k++) {
		const group *g = &b->groups[k];
		uint32_t id = new_cnode(b, g->frame, c);
		if (id == PD_NO_ID)
			return PD_ENOMEM;
		b->v[id].items = b->nit;
		b->v[id].nitems = g->n;
		b->v[id].total = g->sum;
		for (size_t j = 0; j < g->n; j++)
			if (push_item(&b->it, &b->nit, &b->capit, b->sorted[g->at + j]) < 0)
				return PD_ENOMEM;
	}
	return 0;
}

/* The entry's own positions: topmost nodes (caller) or every node with
 * the period for which it is the deepest (callee). */
static int seed(builder *b, uint32_t f)
{
	const pd_pevent *e = b->e;
	const pd_cct *t = &e->tree;
	const uint32_t *nodes = e->frame_nodes + e->frame_nodes_at[f];
	size_t n = e->frame_nodes_at[f + 1] - e->frame_nodes_at[f];
	uint32_t root = new_cnode(b, f, PD_NO_ID);
	if (root == PD_NO_ID)
		return PD_ENOMEM;
	b->v[root].items = 0;
	uint64_t total = 0;
	if (b->order == PD_CHAIN_CALLER) {
		for (size_t i = 0; i < n; i++) {
			uint64_t w = pd_cct_total_of(t, nodes[i], b->run);
			if (e->same_anc[nodes[i]] != PD_NO_ID || w == 0)
				continue;
			if (push_item(&b->it, &b->nit, &b->capit, (item){ nodes[i], f, w }) < 0)
				return PD_ENOMEM;
			total += w;
		}
	} else {
		/* nodes[] is in id order and an ancestor has a smaller id: the
		 * weight a deeper node of the same frame takes away from its
		 * nearest such ancestor is known when the ancestor is reached
		 * walking backwards */
		uint64_t *deeper = calloc(n ? n : 1, sizeof *deeper);
		if (!deeper)
			return PD_ENOMEM;
		for (size_t i = n; i-- > 0;) {
			uint64_t tot = pd_cct_total_of(t, nodes[i], b->run);
			uint32_t a = e->same_anc[nodes[i]];
			if (a != PD_NO_ID) {
				size_t lo = 0, hi = i;
				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;
					if (nodes[mid] < a)
						lo = mid + 1;
					else
						hi = mid;
				}
				deeper[lo] += tot;
			}
			uint64_t w = tot - deeper[i];
			if (w == 0)
				continue;
			if (push_item(&b->it, &b->nit, &b->capit, (item){ nodes[i], f, w }) < 0) {
				free(deeper);
				return PD_ENOMEM;
			}
			total += w;
		}
		free(deeper);
	}
	b->v[root].nitems = b->nit;
	b->v[root].total = total;
	return 0;
}

static int output(const builder *b, pd_chain_tree *out)
{
	const pd_profile *p = b->p;
	out->n = b->n;
	out->nodes = calloc(b->n, sizeof *out->nodes);
	out->kids = malloc((b->n > 1 ? b->n - 1 : 1) * sizeof *out->kids);
	if (!out->nodes || !out->kids)
		return PD_ENOMEM;
	/* children were created together, heaviest first: ids are ranges */
	for (uint32_t i = 1; i < b->n; i++)
		out->kids[i - 1] = i;
	for (uint32_t i = 0; i < b->n; i++) {
		const cnode *c = &b->v[i];
		const pd_pframe *pf = &p->frames.v[c->frame];
		pd_chain_node *o = &out->nodes[i];
		o->symbol = pd_strtab_get(&p->strings, pf->sym);
		o->dso = pd_strtab_get(&p->strings, pf->dso);
		o->kernel = (pf->flags & PD_PF_KERNEL) != 0;
		o->inlined = (pf->flags & PD_PF_INLINED) != 0;
		o->unresolved = (pf->flags & PD_PF_UNRESOLVED) != 0;
		o->total = c->total;
		o->self = c->self;
		o->parent = c->parent == PD_NO_ID ? SIZE_MAX : c->parent;
		o->depth = c->depth;
		o->nchildren = c->nkids;
		o->children = c->nkids ? out->kids + (c->first - 1) : out->kids;
	}
	return 0;
}

int pd_profile_chains(pd_profile *p, size_t ev, size_t entry, pd_chain_order order,
		      size_t run, uint64_t min_total, pd_chain_tree **out, pd_error *err)
{
	if (!out)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "no output pointer given");
	*out = NULL;
	int rc = pd_profile_prepare_flat(p, ev, err);
	if (rc < 0)
		return rc;
	pd_pevent *e = p->events[ev];
	if (entry >= e->nflat || (run != SIZE_MAX && run >= p->nruns) ||
	    (order != PD_CHAIN_CALLER && order != PD_CHAIN_CALLEE))
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "no entry %zu, run %zu or chain order %d", entry, run,
				    (int)order);
	builder b;
	memset(&b, 0, sizeof b);
	b.p = p;
	b.e = e;
	b.run = run;
	b.order = order;
	b.min_total = min_total ? min_total : 1;
	pd_chain_tree *t = calloc(1, sizeof *t);
	if (!t)
		rc = PD_ENOMEM;
	if (rc == 0)
		rc = seed(&b, e->flat_frame[entry]);
	/* depth first, so pending work stays small; ids are given when
	 * children are created, so a node's children are consecutive */
	uint32_t *stack = NULL;
	size_t depth = 0, cap = 0;
	if (rc == 0 && b.v[0].total > 0) {
		cap = 64;
		stack = malloc(cap * sizeof *stack);
		if (!stack)
			rc = PD_ENOMEM;
		else
			stack[depth++] = 0;
	}
	while (rc == 0 && depth) {
		uint32_t c = stack[--depth];
		if ((rc = expand(&b, c)) < 0)
			break;
		for (uint32_t k = b.v[c].nkids; k-- > 0;) {
			if (depth == cap) {
				uint32_t *s = realloc(stack, 2 * cap * sizeof *s);
				if (!s) {
					rc = PD_ENOMEM;
					break;
				}
				stack = s;
				cap *= 2;
			}
			stack[depth++] = b.v[c].first + k;
		}
	}
	free(stack);
	if (rc == 0)
		rc = output(&b, t);
	free(b.v);
	free(b.it);
	free(b.scratch);
	free(b.sorted);
	free(b.slots);
	free(b.groups);
	if (rc < 0) {
		pd_chain_tree_free(t);
		return pd_error_set(err, rc, "profile", PD_NO_OFFSET, "out of memory");
	}
	*out = t;
	return 0;
}

size_t pd_chain_tree_size(const pd_chain_tree *t)
{
	return t ? t->n : 0;
}

const pd_chain_node *pd_chain_tree_node(const pd_chain_tree *t, size_t i)
{
	return t && i < t->n ? &t->nodes[i] : NULL;
}

void pd_chain_tree_free(pd_chain_tree *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->kids);
	free(t);
}
