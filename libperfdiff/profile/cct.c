/*
 * The calling-context tree of one event.  While samples are folded only
 * two things happen per sample: one edge lookup per frame (root → leaf) and
 * one add to the leaf's self period of the current run.  Inclusive totals,
 * sums over runs and child lists are derived afterwards in one pass
 * (pd_cct_finalise): a child is always created after its parent, so
 * walking ids downwards visits every node before its parent.
 *
 * The edge table is only needed while samples are folded, and it is the
 * tree's largest part (16 bytes a slot: 33-67 MB for 1.5 M nodes).  Finalising releases it; a later run that adds nodes rebuilds it
 * from the nodes (parent, frame), recomputing the path hashes root first.
 */
#include <stdlib.h>

#include "internal.h"

int pd_cct_init(pd_cct *t, const struct pd_profile *prof)
{
	memset(t, 0, sizeof *t);
	t->prof = prof;
	t->nodes = malloc(64 * sizeof *t->nodes);
	if (!t->nodes)
		return PD_ENOMEM;
	t->cap = 64;
	t->n = 1;
	t->nodes[0] = (pd_cct_node){ t, 0, PD_NO_ID, PD_NO_ID, 0, 0, 0 };
	return pd_cct_finalise(t);
}

void pd_cct_free(pd_cct *t)
{
	free(t->nodes);
	free(t->edges);
	for (size_t r = 0; r < t->nruns; r++) {
		free(t->runs[r].self);
		free(t->runs[r].blk_at);
		free(t->runs[r].blk);
		if (t->total_runs)
			free(t->total_runs[r]);
	}
	free(t->runs);
	free(t->total_runs);
	free(t->self_sum);
	free(t->total_sum);
	free(t->child_ids);
	pd_cct_chainless_free(t);
	memset(t, 0, sizeof *t);
}

int pd_cct_begin_run(pd_cct *t, size_t run)
{
	while (t->nruns <= run) {
		pd_runvals *runs = realloc(t->runs, (t->nruns + 1) * sizeof *runs);
		if (!runs)
			return PD_ENOMEM;
		t->runs = runs;
		uint64_t **tr = realloc(t->total_runs, (t->nruns + 1) * sizeof *tr);
		if (!tr)
			return PD_ENOMEM;
		t->total_runs = tr;
		t->runs[t->nruns] = (pd_runvals){ 0 };
		t->total_runs[t->nruns] = NULL;
		t->nruns++;
	}
	t->final = false;
	return 0;
}

/* `cap` free edge slots (a power of two), NULL when out of memory. */
static pd_edge *empty_edges(size_t cap)
{
	if (cap > SIZE_MAX / sizeof(pd_edge) || cap > ((size_t)1 << 32))
		return NULL;
	pd_edge *v = malloc(cap * sizeof *v);
	for (size_t i = 0; v && i < cap; i++)
		v[i].key = PD_IDMAP_EMPTY;
	return v;
}

static int grow_edges(pd_cct *t)
{
	size_t cap = t->cap_edges ? t->cap_edges * 2 : 1024;
	pd_edge *v = empty_edges(cap);
	if (!v)
		return PD_ENOMEM;
	for (size_t i = 0; i < t->cap_edges; i++) {
		if (t->edges[i].key == PD_IDMAP_EMPTY)
			continue;
		size_t j = t->edges[i].hash & (cap - 1);
		while (v[j].key != PD_IDMAP_EMPTY)
			j = (j + 1) & (cap - 1);
		v[j] = t->edges[i];
	}
	free(t->edges);
	t->edges = v;
	t->cap_edges = cap;
	return 0;
}

/* The edge table of every node after pd_cct_finalise() released it:
 * 0 or PD_ENOMEM (the tree unchanged). */
static int rebuild_edges(pd_cct *t)
{
	uint64_t *ph = malloc((size_t)t->n * sizeof *ph);
	if (!ph)
		return PD_ENOMEM;
	size_t cap = 1024;
	while (3 * cap < 4 * (size_t)t->n)
		cap *= 2;
	t->edges = empty_edges(cap);
	if (!t->edges) {
		free(ph);
		return PD_ENOMEM;
	}
	t->cap_edges = cap;
	size_t mask = cap - 1;
	ph[0] = PD_ROOT_PATH_HASH;
	for (uint32_t id = 1; id < t->n; id++) {
		const pd_cct_node *nd = &t->nodes[id];
		ph[id] = pd_path_hash(ph[nd->parent], nd->frame);
		size_t i = ph[id] & mask;
		while (t->edges[i].key != PD_IDMAP_EMPTY)
			i = (i + 1) & mask;
		t->edges[i] = (pd_edge){ (uint64_t)nd->parent << 32 | nd->frame, id,
					 (uint32_t)ph[id] };
	}
	t->nedges = t->n - 1;
	free(ph);
	return 0;
}

uint32_t pd_cct_child_slow(pd_cct *t, uint32_t parent, uint32_t frame, uint64_t h)
{
	/* every node but the root has an edge unless finalising released them */
	if (t->nedges + 1 != t->n) {
		if (rebuild_edges(t) < 0)
			return PD_NO_ID;
		return pd_cct_child_id(t, parent, frame, h);
	}
	if (t->n >= PD_ID_LIMIT)
		return PD_NO_ID;
	if (t->n == t->cap) {
		uint32_t cap = t->cap > PD_ID_LIMIT / 2 ? PD_ID_LIMIT : t->cap * 2;
		pd_cct_node *v = realloc(t->nodes, (size_t)cap * sizeof *v);
		if (!v)
			return PD_NO_ID;
		t->nodes = v;
		t->cap = cap;
	}
	/* at most three quarters full: probes stay within a line or two (four
	 * slots a line; a sample's slots are prefetched, see internal.h), and
	 * the table, sized by the nodes of the fold's peak, half the size of a
	 * half-full one after most doublings */
	if (4 * (t->nedges + 1) > 3 * t->cap_edges && grow_edges(t) < 0)
		return PD_NO_ID;
	uint32_t id = t->n;
	size_t mask = t->cap_edges - 1;
	size_t i = h & mask;
	while (t->edges[i].key != PD_IDMAP_EMPTY)
		i = (i + 1) & mask;
	t->edges[i] = (pd_edge){ (uint64_t)parent << 32 | frame, id, (uint32_t)h };
	t->nedges++;
	t->nodes[id] = (pd_cct_node){ t, id, parent, frame, t->nodes[parent].depth + 1, 0, 0 };
	t->n++;
	t->final = false;
	return id;
}

int pd_cct_add_self(pd_cct *t, uint32_t node, uint64_t period)
{
	pd_runvals *rv = &t->runs[t->nruns - 1];
	if (node >= rv->len) {
		if (node >= rv->cap) {
			/* cover every node created so far, with room to spare */
			uint64_t want = (uint64_t)t->n + t->n / 2 + 64;
			uint32_t cap = want > UINT32_MAX ? UINT32_MAX : (uint32_t)want;
			uint64_t *v = realloc(rv->self, (size_t)cap * sizeof *v);
			if (!v)
				return PD_ENOMEM;
			rv->self = v;
			rv->cap = cap;
		}
		memset(rv->self + rv->len, 0, (size_t)(node + 1 - rv->len) * sizeof *rv->self);
		rv->len = node + 1;
	}
	rv->self[node] += period;
	return 0;
}

int pd_cct_finalise(pd_cct *t)
{
	size_t n = t->n;
	uint64_t *ss = realloc(t->self_sum, n * sizeof *ss);
	if (!ss)
		return PD_ENOMEM;
	t->self_sum = ss;
	uint64_t *ts = realloc(t->total_sum, n * sizeof *ts);
	if (!ts)
		return PD_ENOMEM;
	t->total_sum = ts;
	uint32_t *kids = realloc(t->child_ids, (n > 1 ? n - 1 : 1) * sizeof *kids);
	if (!kids)
		return PD_ENOMEM;
	t->child_ids = kids;
	memset(ss, 0, n * sizeof *ss);
	for (size_t r = 0; r < t->nruns; r++) {
		uint64_t *tr = realloc(t->total_runs[r], n * sizeof *tr);
		if (!tr)
			return PD_ENOMEM;
		t->total_runs[r] = tr;
		const pd_runvals *rv = &t->runs[r];
		if (rv->len)
			memcpy(tr, rv->self, rv->len * sizeof *tr);
		memset(tr + rv->len, 0, (n - rv->len) * sizeof *tr);
		for (size_t i = 0; i < rv->len; i++)
			ss[i] += rv->self[i];
		for (size_t i = n - 1; i > 0; i--)
			tr[t->nodes[i].parent] += tr[i];
	}
	memcpy(ts, ss, n * sizeof *ts);
	for (size_t i = n - 1; i > 0; i--)
		ts[t->nodes[i].parent] += ts[i];

	/* child lists: counting sort by parent keeps creation order */
	for (size_t i = 0; i < n; i++)
		t->nodes[i].nchild = 0;
	for (size_t i = 1; i < n; i++)
		t->nodes[t->nodes[i].parent].nchild++;
	uint32_t at = 0;
	for (size_t i = 0; i < n; i++) {
		t->nodes[i].child0 = at;
		at += t->nodes[i].nchild;
		t->nodes[i].nchild = 0;
	}
	for (size_t i = 1; i < n; i++) {
		pd_cct_node *pn = &t->nodes[t->nodes[i].parent];
		kids[pn->child0 + pn->nchild++] = (uint32_t)i;
	}
	free(t->edges);
	t->edges = NULL;
	t->nedges = t->cap_edges = 0;
	t->final = true;
	return 0;
}

/* ------------------------------------------------------------ accessors */

static const pd_pframe *frame_of(const pd_cct_node *n)
{
	if (!n || n->frame == PD_NO_ID)
		return NULL;
	return &n->tree->prof->frames.v[n->frame];
}

const char *pd_cct_symbol(const pd_cct_node *n)
{
	const pd_pframe *f = frame_of(n);
	return f ? pd_strtab_get(&n->tree->prof->strings, f->sym) : NULL;
}

const char *pd_cct_dso(const pd_cct_node *n)
{
	const pd_pframe *f = frame_of(n);
	return f ? pd_strtab_get(&n->tree->prof->strings, f->dso) : NULL;
}

const char *pd_cct_unit(const pd_cct_node *n)
{
	const pd_pframe *f = frame_of(n);
	return f && f->unit != PD_NO_ID ? pd_strtab_get(&n->tree->prof->strings, f->unit) : NULL;
}

bool pd_cct_inlined(const pd_cct_node *n)
{
	const pd_pframe *f = frame_of(n);
	return f && (f->flags & PD_PF_INLINED);
}

bool pd_cct_kernel(const pd_cct_node *n)
{
	const pd_pframe *f = frame_of(n);
	return f && (f->flags & PD_PF_KERNEL);
}

bool pd_cct_unresolved(const pd_cct_node *n)
{
	const pd_pframe *f = frame_of(n);
	return f && (f->flags & PD_PF_UNRESOLVED);
}

size_t pd_cct_id(const pd_cct_node *n)
{
	return n ? n->id : SIZE_MAX;
}

size_t pd_cct_count(const pd_cct_node *n)
{
	return n ? n->tree->n : 0;
}

const pd_cct_node *pd_cct_parent(const pd_cct_node *n)
{
	if (!n || n->parent == PD_NO_ID)
		return NULL;
	return &n->tree->nodes[n->parent];
}

size_t pd_cct_child_count(const pd_cct_node *n)
{
	return n ? n->nchild : 0;
}

const pd_cct_node *pd_cct_child(const pd_cct_node *n, size_t i)
{
	if (!n || i >= n->nchild)
		return NULL;
	return &n->tree->nodes[n->tree->child_ids[n->child0 + i]];
}

uint64_t pd_cct_self(const pd_cct_node *n, size_t run)
{
	return n ? pd_cct_self_of(n->tree, n->id, run) : 0;
}

uint64_t pd_cct_total(const pd_cct_node *n, size_t run)
{
	return n ? pd_cct_total_of(n->tree, n->id, run) : 0;
}

size_t pd_cct_depth(const pd_cct_node *n)
{
	return n ? n->depth : 0;
}

uint32_t pd_cct_leaf_of(pd_cct *t, const uint32_t *frames, size_t n)
{
	uint32_t node = 0;
	uint64_t h = PD_ROOT_PATH_HASH;
	for (size_t i = n; i-- > 0;) {
		h = pd_path_hash(h, frames[i]);
		node = pd_cct_child_id(t, node, frames[i], h);
		if (node == PD_NO_ID)
			return PD_NO_ID;
	}
	return node;
}
