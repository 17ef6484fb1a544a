/*
 * The tree each side of a diff is aligned on: the profile's CCT for one
 * event, re-keyed by (symbol, dso basename).  The inlined flag becomes an
 * attribute, so "f (inlined)" of one build and "f" of another are one
 * node, and siblings that then share a key are merged: whether the
 * compiler inlined f is a difference to report, not a reason to lose the
 * match.  Unresolved frames of a dso become its one "[unknown]" node
 * (keys.c) the same way: their addresses differ between runs, their dso
 * does not.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int dt_tree_init(dt_tree *t, dt_keytab *keys, size_t nruns)
{
	memset(t, 0, sizeof *t);
	t->keys = keys;
	t->nruns = nruns;
	t->phi = 1;
	pd_u64map_init(&t->child_of);
	pd_u64map_init(&t->dso_path);
	if (nruns == 0 || nruns > SIZE_MAX / sizeof(uint64_t) / 1024)
		return PD_EINVAL;
	t->total = calloc(nruns, sizeof *t->total);
	t->samples = calloc(nruns, sizeof *t->samples);
	t->span = calloc(nruns, sizeof *t->span);
	t->cap = 64;
	t->n = malloc(t->cap * sizeof *t->n);
	t->self = calloc((size_t)t->cap * nruns, sizeof *t->self);
	if (!t->total || !t->samples || !t->span || !t->n || !t->self) {
		dt_tree_free(t);
		return PD_ENOMEM;
	}
	memset(&t->n[0], 0, sizeof t->n[0]);
	t->n[0].key = DT_NONE;
	t->n[0].parent = DT_NONE;
	t->n[0].partner = DT_NONE;
	t->n[0].rel = DT_NONE;
	t->nn = 1;
	return 0;
}

void dt_tree_free(dt_tree *t)
{
	free(t->n);
	free(t->kids);
	free(t->self);
	free(t->incl);
	free(t->mean_incl);
	free(t->mean_self);
	free(t->total);
	free(t->samples);
	free(t->span);
	free(t->unit);
	free(t->src);
	free(t->src_id);
	pd_u64map_free(&t->child_of);
	pd_u64map_free(&t->dso_path);
	memset(t, 0, sizeof *t);
}

static uint64_t dbase_hash(const char *dbase)
{
	return pd_hash_str(PD_HASH_INIT, dbase);
}

int dt_tree_note_dso(dt_tree *t, uint32_t key, const char *dso)
{
	if (key == DT_NONE || !dso)
		return 0;
	uint64_t h = dbase_hash(t->keys->v[key].dbase);
	if (pd_u64map_get(&t->dso_path, h))
		return 0;
	return pd_u64map_put(&t->dso_path, h, (void *)(uintptr_t)dso) < 0 ? PD_ENOMEM : 0;
}

const char *dt_tree_dso(const dt_tree *t, uint32_t key)
{
	if (key == DT_NONE || key >= t->keys->n)
		return NULL;
	/* by the key's basename: a dso paired with another name (dsos.c) is
	 * keyed by the base's, and found under it here on both sides */
	return pd_u64map_get(&t->dso_path, dbase_hash(t->keys->v[key].dbase));
}

/*
 * The idle loop's share: the kernel runs it when a CPU has nothing to do,
 * and a system-wide cpu-clock recording samples it there.  Its subtrees
 * start at do_idle (Linux 4.x on), cpu_idle_loop (3.x) or cpu_idle (2.6);
 * cpu_startup_entry calls them.  The topmost such frame of a path counts.
 */
static bool idle_name(const char *s)
{
	static const char *const names[] = { "do_idle", "cpu_startup_entry", "cpu_idle_loop",
					     "cpu_idle" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(s, names[i]) == 0)
			return true;
	return false;
}

static int measure_idle(dt_tree *t)
{
	size_t N = t->nn;
	bool *in = calloc(N ? N : 1, sizeof *in);
	if (!in)
		return PD_ENOMEM;
	t->idle = 0;
	for (size_t i = 1; i < N; i++) {
		const dt_node *n = &t->n[i];
		in[i] = in[n->parent];
		if (in[i] || !(n->flags & DT_KERNEL) || !idle_name(t->keys->v[n->key].sym))
			continue;
		in[i] = true;
		t->idle += t->mean_incl[i];
	}
	free(in);
	return 0;
}

int dt_tree_set_unit(dt_tree *t, uint32_t key, const char *unit)
{
	if (!unit || key == DT_NONE || dt_tree_unit(t, key))
		return 0;
	if (key >= t->nunit) {
		uint32_t n = t->nunit ? t->nunit : 64;
		while (n <= key && n < DT_NONE / 2)
			n *= 2;
		if (n <= key)
			return PD_ENOMEM;
		const char **u = realloc(t->unit, (size_t)n * sizeof *u);
		if (!u)
			return PD_ENOMEM;
		memset(u + t->nunit, 0, (size_t)(n - t->nunit) * sizeof *u);
		t->unit = u;
		t->nunit = n;
	}
	t->unit[key] = unit;
	return 0;
}

static int grow(dt_tree *t)
{
	uint32_t cap = t->cap * 2;
	if (cap <= t->cap || cap >= DT_NONE - 1 ||
	    (size_t)cap > SIZE_MAX / sizeof(uint64_t) / t->nruns)
		return PD_ELIMIT;
	dt_node *n = realloc(t->n, (size_t)cap * sizeof *n);
	if (!n)
		return PD_ENOMEM;
	t->n = n;
	uint64_t *s = realloc(t->self, (size_t)cap * t->nruns * sizeof *s);
	if (!s)
		return PD_ENOMEM;
	memset(s + (size_t)t->cap * t->nruns, 0, (size_t)(cap - t->cap) * t->nruns * sizeof *s);
	t->self = s;
	t->cap = cap;
	return 0;
}

uint32_t dt_tree_find(const dt_tree *t, uint32_t parent, uint32_t key)
{
	if (key == DT_NONE || parent == DT_NONE)
		return DT_NONE;
	uintptr_t v = (uintptr_t)pd_u64map_get(&t->child_of, (uint64_t)parent << 32 | key);
	return v ? (uint32_t)(v - 1) : DT_NONE;
}

uint32_t dt_tree_child(dt_tree *t, uint32_t parent, uint32_t key, uint32_t flags)
{
	if (parent >= t->nn || key == DT_NONE)
		return DT_NONE;
	uint32_t id = dt_tree_find(t, parent, key);
	if (id != DT_NONE) {
		t->n[id].flags |= flags;
		return id;
	}
	if (t->nn == t->cap && grow(t) < 0)
		return DT_NONE;
	id = t->nn;
	if (pd_u64map_put(&t->child_of, (uint64_t)parent << 32 | key,
			  (void *)(uintptr_t)(id + 1)) < 0)
		return DT_NONE;
	dt_node *n = &t->n[id];
	memset(n, 0, sizeof *n);
	n->key = key;
	n->parent = parent;
	n->depth = t->n[parent].depth + 1;
	n->flags = flags;
	n->partner = DT_NONE;
	n->rel = DT_NONE;
	t->nn++;
	return id;
}

void dt_tree_add_self(dt_tree *t, uint32_t id, size_t run, uint64_t period)
{
	if (id < t->nn && run < t->nruns)
		t->self[(size_t)id * t->nruns + run] += period;
}

int dt_tree_finish(dt_tree *t)
{
	size_t R = t->nruns, N = t->nn;
	free(t->kids);
	free(t->incl);
	free(t->mean_incl);
	free(t->mean_self);
	t->kids = malloc(N * sizeof *t->kids);
	t->incl = malloc(N * R * sizeof *t->incl);
	t->mean_incl = calloc(N, sizeof *t->mean_incl);
	t->mean_self = calloc(N, sizeof *t->mean_self);
	if (!t->kids || !t->incl || !t->mean_incl || !t->mean_self)
		return PD_ENOMEM;
	memcpy(t->incl, t->self, N * R * sizeof *t->incl);
	for (size_t i = N - 1; i > 0; i--)
		for (size_t r = 0; r < R; r++)
			t->incl[(size_t)t->n[i].parent * R + r] += t->incl[i * R + r];

	/* children lists in creation order: a counting sort by parent */
	for (size_t i = 0; i < N; i++)
		t->n[i].nkids = 0;
	for (size_t i = 1; i < N; i++)
		t->n[t->n[i].parent].nkids++;
	uint32_t at = 0;
	for (size_t i = 0; i < N; i++) {
		t->n[i].kid0 = at;
		at += t->n[i].nkids;
		t->n[i].nkids = 0;
	}
	for (size_t i = 1; i < N; i++) {
		dt_node *p = &t->n[t->n[i].parent];
		t->kids[p->kid0 + p->nkids++] = (uint32_t)i;
	}

	t->all_samples = 0;
	for (size_t r = 0; r < R; r++) {
		if (t->total[r] == 0)
			t->total[r] = t->incl[r];
		if (t->samples[r] == 0)
			t->samples[r] = t->total[r];
		t->all_samples += t->samples[r];
	}
	for (size_t i = 0; i < N; i++) {
		double si = 0, ss = 0;
		for (size_t r = 0; r < R; r++) {
			if (t->total[r] == 0)
				continue;
			si += 100.0 * (double)t->incl[i * R + r] / (double)t->total[r];
			ss += 100.0 * (double)t->self[i * R + r] / (double)t->total[r];
		}
		t->mean_incl[i] = si / (double)R;
		t->mean_self[i] = ss / (double)R;
	}

	/* subtree hashes: a sum of the children's mixed hashes does not
	 * depend on sibling order, which means nothing in a CCT */
	for (size_t i = 0; i < N; i++) {
		t->n[i].merkle = 0;
		t->n[i].size = 1;
	}
	for (size_t i = N - 1; i > 0; i--) {
		dt_node *n = &t->n[i];
		n->merkle = pd_mix64(t->keys->v[n->key].hash ^ pd_mix64(n->merkle + 1));
		t->n[n->parent].merkle += n->merkle;
		t->n[n->parent].size += n->size;
	}
	return measure_idle(t);
}

double dt_share_noise(const dt_tree *t, double pct)
{
	if (t->from_keys)  /* the table's own variation, relative to the value */
		return t->rel_noise * fabs(pct);
	double p = pct / 100.0;
	if (p <= 0 || t->all_samples == 0)
		return 0;
	if (p > 1)
		p = 1;
	return 100.0 * sqrt(t->phi * p * (1 - p) / (double)t->all_samples);
}

/*
 * Keys of frames already met: a CCT repeats a frame under each of its
 * callers, and keying it hashes and compares its names.  Direct-mapped by
 * the profile's name pointers, which stay put while the tree is built
 * (equal pointers, equal names; equal names behind two pointers are just
 * keyed twice).
 */
#define KEY_MEMO_BITS 12

typedef struct key_memo {
	const char *sym, *dso;
	bool unresolved, used;
	uint32_t key;
} key_memo;

static uint32_t memo_key(key_memo *m, dt_keytab *keys, const pd_cct_node *c)
{
	const char *sym = pd_cct_symbol(c), *dso = pd_cct_dso(c);
	bool unres = pd_cct_unresolved(c);
	uint64_t h = pd_mix64((uint64_t)(uintptr_t)sym * 0x9e3779b97f4a7c15ull ^
			      (uint64_t)(uintptr_t)dso ^ unres);
	key_memo *e = &m[h & ((1u << KEY_MEMO_BITS) - 1)];
	if (e->used && e->sym == sym && e->dso == dso && e->unresolved == unres)
		return e->key;
	uint32_t key = dt_keytab_get(keys, sym, dso, unres);
	if (key != DT_NONE)
		*e = (key_memo){ sym, dso, unres, true, key };
	return key;
}

/* Remember that profile node c was folded into node id: its time blocks
 * count there. */
static int add_source(dt_tree *t, const pd_cct_node *c, uint32_t id)
{
	if (t->nsrc == t->cap_src) {
		size_t cap = t->cap_src ? t->cap_src * 2 : 256;
		const pd_cct_node **s = realloc(t->src, cap * sizeof *s);
		if (!s)
			return PD_ENOMEM;
		t->src = s;
		uint32_t *ids = realloc(t->src_id, cap * sizeof *ids);
		if (!ids)
			return PD_ENOMEM;
		t->src_id = ids;
		t->cap_src = cap;
	}
	t->src[t->nsrc] = c;
	t->src_id[t->nsrc++] = id;
	return 0;
}

/*
 * The walk that fills a tree.  A node of the tree stands for every
 * profile node folded into it (its members): a dso's unnamed addresses,
 * "f" and "f (inlined)", one program under two paths.  Each node is
 * expanded once, from all its members' children together, sorted by
 * name, so that the tree -- its node ids, its keys, the order of every
 * sum over it -- depends on what the profile holds, not on the order its
 * samples came in or on how finely it split the frames
 * (PD_PROFILE_MERGE_UNRESOLVED gives the same tree).
 */
typedef struct pending {
	uint32_t id;
	size_t at, n;        /* its members: members[at .. at + n) */
} pending;

typedef struct kid {
	const pd_cct_node *c;
	uint32_t id;
	size_t pos;          /* in name order: keeps the sort by id stable */
} kid;

typedef struct walker {
	dt_tree *t;
	key_memo *memo;
	const pd_cct_node **members;
	size_t nmem, capmem;
	pending *st;
	size_t nst, capst;
	kid *kids;
	size_t capkids;
} walker;

static const char *sort_name(const pd_cct_node *c)
{
	const char *s = pd_cct_symbol(c);
	return pd_cct_unresolved(c) || !s ? DT_UNKNOWN : s;
}

static const char *sort_dso(const pd_cct_node *c)
{
	const char *s = pd_cct_dso(c);
	return s ? s : "";
}

static int kid_by_name(const void *a, const void *b)
{
	const pd_cct_node *x = ((const kid *)a)->c, *y = ((const kid *)b)->c;
	int r = strcmp(sort_name(x), sort_name(y));
	if (r == 0)
		r = strcmp(sort_dso(x), sort_dso(y));
	if (r == 0)
		r = (int)pd_cct_inlined(x) - (int)pd_cct_inlined(y);
	return r;
}

static int kid_by_id(const void *a, const void *b)
{
	const kid *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The children of node `p`'s members, in name order: *n of them. */
static int gather(walker *w, const pending *p, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < p->n; i++) {
		const pd_cct_node *m = w->members[p->at + i];
		size_t nk = pd_cct_child_count(m);
		if (pd_grow(&w->kids, &w->capkids, *n + nk, sizeof *w->kids) < 0)
			return PD_ENOMEM;
		for (size_t k = 0; k < nk; k++)
			w->kids[(*n)++] = (kid){ pd_cct_child(m, k), DT_NONE, 0 };
	}
	qsort(w->kids, *n, sizeof *w->kids, kid_by_name);
	return 0;
}

/* Profile node `c` into the tree under `parent`: its node's id in *id. */
static int place(walker *w, uint32_t parent, const pd_cct_node *c, uint32_t *id)
{
	dt_tree *t = w->t;
	uint32_t key = memo_key(w->memo, t->keys, c);
	uint32_t flags = (pd_cct_inlined(c) ? DT_SEEN_INLINED : DT_SEEN_OUTLINE) |
			 (pd_cct_kernel(c) ? DT_KERNEL : 0);
	*id = key == DT_NONE ? DT_NONE : dt_tree_child(t, parent, key, flags);
	if (*id == DT_NONE)
		return t->nn >= DT_NONE - 2 ? PD_ELIMIT : PD_ENOMEM;
	if (dt_tree_set_unit(t, key, pd_cct_unit(c)) < 0 ||
	    dt_tree_note_dso(t, key, pd_cct_dso(c)) < 0 ||
	    (pd_cct_self(c, SIZE_MAX) && add_source(t, c, *id) < 0))
		return PD_ENOMEM;
	for (size_t r = 0; r < t->nruns; r++)
		dt_tree_add_self(t, *id, r, pd_cct_self(c, r));
	return 0;
}

/* Push node `id`, whose members are kids[from, to), to be expanded. */
static int push(walker *w, uint32_t id, size_t from, size_t to)
{
	if (pd_grow(&w->members, &w->capmem, w->nmem + (to - from), sizeof *w->members) < 0 ||
	    pd_grow(&w->st, &w->capst, w->nst + 1, sizeof *w->st) < 0)
		return PD_ENOMEM;
	w->st[w->nst++] = (pending){ id, w->nmem, to - from };
	for (size_t k = from; k < to; k++)
		w->members[w->nmem++] = w->kids[k].c;
	return 0;
}

/* Node `p`'s children made, then pushed first-made on top. */
static int expand(walker *w, pending p)
{
	size_t n;
	int rc = gather(w, &p, &n);
	for (size_t k = 0; k < n && rc == 0; k++) {
		w->kids[k].pos = k;
		rc = place(w, p.id, w->kids[k].c, &w->kids[k].id);
	}
	if (rc < 0)
		return rc;
	qsort(w->kids, n, sizeof *w->kids, kid_by_id);
	for (size_t to = n; to > 0 && rc == 0;) {
		size_t from = to - 1;
		while (from > 0 && w->kids[from - 1].id == w->kids[to - 1].id)
			from--;
		rc = push(w, w->kids[from].id, from, to);
		to = from;
	}
	return rc;
}

static int walk(dt_tree *t, const pd_cct_node *root)
{
	walker w = { .t = t };
	w.memo = calloc((size_t)1 << KEY_MEMO_BITS, sizeof *w.memo);
	int rc = w.memo ? pd_grow(&w.kids, &w.capkids, 1, sizeof *w.kids) : PD_ENOMEM;
	if (rc == 0) {
		w.kids[0] = (kid){ root, 0, 0 };
		rc = push(&w, 0, 0, 1);
	}
	while (rc == 0 && w.nst > 0)
		rc = expand(&w, w.st[--w.nst]);
	free(w.memo);
	free(w.members);
	free(w.st);
	free(w.kids);
	return rc;
}

int dt_tree_build(dt_tree *t, dt_keytab *keys, const pd_profile *p, size_t ev)
{
	size_t R = pd_profile_run_count(p);
	int rc = dt_tree_init(t, keys, R);
	if (rc < 0)
		return rc;
	t->prof = p;
	t->ev = ev;
	for (size_t r = 0; r < R; r++) {
		t->total[r] = pd_profile_total(p, ev, r);
		t->samples[r] = pd_profile_samples(p, ev, r);
		t->span[r] = pd_profile_run_span(p, r);
	}
	const pd_cct_node *root = pd_profile_root(p, ev);
	if (!root)
		return PD_EINVAL;
	for (size_t r = 0; r < R; r++)
		dt_tree_add_self(t, 0, r, pd_cct_self(root, r));
	if ((rc = walk(t, root)) < 0)
		return rc;
	return dt_tree_finish(t);
}
