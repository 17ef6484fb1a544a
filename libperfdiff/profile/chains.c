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
 *                 symbol, and everything below it.  Except for a sample
 *                 whose leaf is the entry: perf adds the leaf's entry
 *                 before walking the cursor, with the cursor's whole root
 *                 → leaf chain, and the walk then skips the entry as
 *                 already credited.  Those samples make further roots
 *                 (their outermost frames); below the topmost node their
 *                 weight is taken out ("deduct") of every node from the
 *                 leaf up to that topmost node.
 *
 * Both are built from the tree and the same-frame ancestor links of
 * flat.c, never from samples.  A chain node stands for a set of tree
 * positions with weights; its children are those positions' next steps
 * (callees, or the caller) grouped by frame.  Expanding only groups that
 * reach `min_total` keeps the cost proportional to what is kept, which
 * matters because a report asks for the chains of every row.  The whole
 * chains of leaf samples are followed along copies of their root → leaf
 * paths instead (one per tree node of the entry with self period), so
 * their positions carry exactly the leaf's weight.
 */
#include <stdlib.h>

#include "internal.h"

typedef struct item {
	uint32_t node;      /* tree position; in a whole chain, index in the paths */
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
	bool whole;                /* on a leaf sample's whole chain */
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
	uint32_t entry;            /* the entry's frame */
	uint32_t virt;             /* the parent of the whole chains' roots, or PD_NO_ID */
	pd_idmap deduct_at;        /* tree node → index in deduct */
	uint64_t *deduct;          /* leaf samples' period under a node, caller order */
	size_t ndeduct, capdeduct;
	uint32_t *paths;           /* 0, root → leaf path, PD_NO_ID; per leaf node */
	size_t npaths, cappaths;
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
			    0, 0, 0, 0, 0, 0, parent != PD_NO_ID && b->v[parent].whole };
	return id;
}

/* The period through tree node `id` that caller-order chains from the
 * entry carry: its total less the entry's leaf samples below it. */
static uint64_t caller_weight(const builder *b, uint32_t id)
{
	uint64_t w = pd_cct_total_of(&b->e->tree, id, b->run);
	if (b->ndeduct == 0)
		return w;   /* the entry has no leaf samples: nothing to look up */
	uint32_t k = pd_idmap_get(&b->deduct_at, id);
	return k == PD_NO_ID ? w : w - b->deduct[k];
}

/* Self of chain node `c` and the next steps of its positions into scratch. */
static int next_steps(builder *b, uint32_t c)
{
	const pd_cct *t = &b->e->tree;
	b->nscratch = 0;
	uint64_t self = 0;
	for (size_t i = 0; i < b->v[c].nitems; i++) {
		item x = b->it[b->v[c].items + i];
		if (b->v[c].whole) {
			uint32_t next = b->paths[x.node + 1];
			if (next == PD_NO_ID)
				self += x.w;
			else if (push_item(&b->scratch, &b->nscratch, &b->capscratch,
					   (item){ x.node + 1, t->nodes[next].frame, x.w }) < 0)
				return PD_ENOMEM;
			continue;
		}
		const pd_cct_node *tn = &t->nodes[x.node];
		if (b->order == PD_CHAIN_CALLER) {
			/* a leaf of the entry's frame is on a whole chain instead */
			if (tn->frame != b->entry)
				self += pd_cct_self_of(t, x.node, b->run);
			for (uint32_t k = 0; k < tn->nchild; k++) {
				uint32_t ch = t->child_ids[tn->child0 + k];
				uint64_t w = caller_weight(b, ch);
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

static int add_deduct(builder *b, uint32_t node, uint64_t w)
{
	uint32_t k = pd_idmap_get(&b->deduct_at, node);
	if (k == PD_NO_ID) {
		if (b->ndeduct >= PD_ID_LIMIT ||
		    reserve((void **)&b->deduct, &b->capdeduct, b->ndeduct + 1, sizeof *b->deduct) < 0)
			return PD_ENOMEM;
		k = (uint32_t)b->ndeduct;
		if (pd_idmap_put(&b->deduct_at, node, k) < 0)
			return PD_ENOMEM;
		b->deduct[b->ndeduct++] = 0;
	}
	b->deduct[k] += w;
	return 0;
}

/*
 * Caller order: the samples whose leaf is the entry.  Their period leaves
 * every node from the leaf up to the entry's topmost node above it, and
 * each leaf node's root → leaf path is copied for its whole chain.
 * Returns the sum of their period, or PD_ENOMEM as a negative value
 * through *rc.
 */
static uint64_t leaf_samples(builder *b, const uint32_t *nodes, size_t n, int *rc)
{
	const pd_pevent *e = b->e;
	const pd_cct *t = &e->tree;
	uint64_t sum = 0;
	*rc = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t m = nodes[i];
		uint64_t s = pd_cct_self_of(t, m, b->run);
		if (s == 0)
			continue;
		for (uint32_t u = m; u != 0; u = t->nodes[u].parent) {
			if ((*rc = add_deduct(b, u, s)) < 0)
				return 0;
			if (t->nodes[u].frame == b->entry && e->same_anc[u] == PD_NO_ID)
				break;
		}
		size_t d = t->nodes[m].depth, at = b->npaths;
		if (at + d + 2 > PD_ID_LIMIT ||
		    reserve((void **)&b->paths, &b->cappaths, at + d + 2, sizeof *b->paths) < 0) {
			*rc = PD_ENOMEM;
			return 0;
		}
		b->paths[at] = 0;
		size_t k = at + d;
		for (uint32_t u = m; u != 0 && k > at; u = t->nodes[u].parent)
			b->paths[k--] = u;
		b->paths[at + d + 1] = PD_NO_ID;
		b->npaths = at + d + 2;
		sum += s;
	}
	return sum;
}

/* The entry's own positions: topmost nodes (caller) or every node with
 * the period for which it is the deepest (callee).  In caller order the
 * whole chains of leaf samples hang from a virtual node, b->virt. */
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
		int rc;
		uint64_t leaves = leaf_samples(b, nodes, n, &rc);
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < n; i++) {
			if (e->same_anc[nodes[i]] != PD_NO_ID)
				continue;
			uint64_t w = caller_weight(b, nodes[i]);
			if (w == 0)
				continue;
			if (push_item(&b->it, &b->nit, &b->capit, (item){ nodes[i], f, w }) < 0)
				return PD_ENOMEM;
			total += w;
		}
		b->v[root].nitems = b->nit;
		b->v[root].total = total;
		if (leaves == 0)
			return 0;
		uint32_t virt = new_cnode(b, f, PD_NO_ID);
		if (virt == PD_NO_ID)
			return PD_ENOMEM;
		b->virt = virt;
		b->v[virt].whole = true;
		b->v[virt].items = b->nit;
		b->v[virt].total = leaves;
		/* the paths were written in this order */
		size_t at = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t s = pd_cct_self_of(t, nodes[i], b->run);
			if (s == 0)
				continue;
			if (push_item(&b->it, &b->nit, &b->capit, (item){ (uint32_t)at, f, s }) < 0)
				return PD_ENOMEM;
			at += t->nodes[nodes[i]].depth + 2;
		}
		b->v[virt].nitems = b->nit - b->v[virt].items;
		return 0;
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

/* Ids without the virtual node, which is not handed out. */
static uint32_t out_id(const builder *b, uint32_t id)
{
	return b->virt != PD_NO_ID && id > b->virt ? id - 1 : id;
}

static int output(const builder *b, pd_chain_tree *out)
{
	const pd_profile *p = b->p;
	uint32_t n = b->n - (b->virt != PD_NO_ID);
	out->n = n;
	out->nodes = calloc(n, sizeof *out->nodes);
	out->kids = malloc((n > 1 ? n - 1 : 1) * sizeof *out->kids);
	if (!out->nodes || !out->kids)
		return PD_ENOMEM;
	/* children were created together, heaviest first: ids are ranges */
	for (uint32_t i = 1; i < n; i++)
		out->kids[i - 1] = i;
	for (uint32_t i = 0; i < b->n; i++) {
		if (i == b->virt)
			continue;
		const cnode *c = &b->v[i];
		const pd_pframe *pf = &p->frames.v[c->frame];
		pd_chain_node *o = &out->nodes[out_id(b, i)];
		o->symbol = pd_strtab_get(&p->strings, pf->sym);
		o->dso = pd_strtab_get(&p->strings, pf->dso);
		o->kernel = (pf->flags & PD_PF_KERNEL) != 0;
		o->inlined = (pf->flags & PD_PF_INLINED) != 0;
		o->unresolved = (pf->flags & PD_PF_UNRESOLVED) != 0;
		o->total = c->total;
		o->self = c->self;
		o->parent = c->parent == PD_NO_ID ? SIZE_MAX : out_id(b, c->parent);
		o->depth = c->depth;
		o->nchildren = c->nkids;
		o->children = c->nkids ? out->kids + (out_id(b, c->first) - 1) : out->kids;
	}
	return 0;
}

typedef struct stack {
	uint32_t *v;
	size_t n, cap;
} stack;

static int push_id(stack *s, uint32_t id)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint32_t *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = id;
	return 0;
}

/* Push the children of chain node `c` for expansion, first on top. */
static int push_kids(const builder *b, uint32_t c, stack *s)
{
	for (uint32_t k = b->v[c].nkids; k-- > 0;)
		if (push_id(s, b->v[c].first + k) < 0)
			return PD_ENOMEM;
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
	b.entry = e->flat_frame[entry];
	b.virt = PD_NO_ID;
	pd_idmap_init(&b.deduct_at);
	b.min_total = min_total ? min_total : 1;
	pd_chain_tree *t = calloc(1, sizeof *t);
	if (!t)
		rc = PD_ENOMEM;
	if (rc == 0)
		rc = seed(&b, b.entry);
	/* depth first, so pending work stays small; ids are given when
	 * children are created, so a node's children are consecutive */
	stack st = { NULL, 0, 0 };
	if (rc == 0 && b.virt != PD_NO_ID && (rc = expand(&b, b.virt)) == 0) {
		/* the whole chains' outermost frames are roots of their own */
		for (uint32_t k = 0; k < b.v[b.virt].nkids; k++) {
			b.v[b.v[b.virt].first + k].parent = PD_NO_ID;
			b.v[b.v[b.virt].first + k].depth = 0;
		}
		rc = push_kids(&b, b.virt, &st);
	}
	if (rc == 0 && b.v[0].total > 0)
		rc = push_id(&st, 0);
	while (rc == 0 && st.n) {
		uint32_t c = st.v[--st.n];
		if ((rc = expand(&b, c)) == 0)
			rc = push_kids(&b, c, &st);
	}
	free(st.v);
	if (rc == 0)
		rc = output(&b, t);
	free(b.v);
	free(b.it);
	free(b.scratch);
	free(b.sorted);
	free(b.slots);
	free(b.groups);
	free(b.deduct);
	free(b.paths);
	pd_idmap_free(&b.deduct_at);
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
