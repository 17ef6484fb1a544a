/*
 * Inlined everywhere: a function the new build inlined into its callers
 * is gone from the whole new tree, not only from under one caller.  A
 * compiler that inlines across compilation units and packages (Go's
 * default against -gcflags=-l, LTO) does it to small helpers reached
 * through many paths: runtime.spanOf under findObject under four
 * different write-barrier paths, each node a few hundredths of a point.
 * align_inline.c, which looks at one caller pair at a time, finds each
 * node within its noise; here a function's nodes are weighed together.
 *
 * Every node X of a function missing from the other tree is taken with
 * the nearest ancestor P that has a partner, through ancestors missing
 * too (inlined chains: runtime.lock -> lockWithRank, both into the
 * caller).  X went into P when:
 *
 *   the build says so: the DWARF of the build X is gone from has X's
 *   inline instance in P's concrete code (libdw follows the abstract
 *   origin across units, so another package's helper counts), or in the
 *   code of a callee of P that both builds have (frame-pointer chains
 *   skip the caller of a frameless leaf, and Go's small leaves keep no
 *   frame: the base shows X under P's caller).  The nodes so placed are
 *   taken together when their summed cost clears the noise;
 *
 *   or, where DWARF cannot say (kallsyms, stripped builds, and Go, which
 *   records no instance for a helper no instruction is attributed to),
 *   every function gone into P is gone from that build's symbol table and
 *   P's own self grew by what they cost, within the tolerance: the cost
 *   moved, it did not vanish.
 *
 * Either way X's costly callees must hang off the node X went into.
 * DWARF without the instance refutes a function the build still has
 * code of.  The mirror image (a function the base build had inlined
 * everywhere, called in the new) is outlined.  This runs after the
 * per-caller passes, on the nodes they left, and again under the pairs
 * it makes (align.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "align_ctx.h"

typedef struct gone {
	uint32_t fkey, ikey;  /* the function gone, its surviving caller's */
	uint32_t x, q;        /* its node (tree F) and that caller's (tree F) */
	double cost;          /* incl(x) unless an ancestor up to q is X too */
	uint32_t into;        /* tree T: where DWARF puts it, or DT_NONE */
	uint32_t comp;        /* its component, for the symbol tables' route */
	int verdict;          /* 1 inlined (DWARF), 0 open, -1 not */
} gone;

typedef struct gone_set {
	gone *v;
	size_t n, cap;
} gone_set;

/* A key with nodes in tree F only. */
static bool missing(const ctx *c, bool from_base, uint32_t key)
{
	return c->ktotal[from_base ? 1 : 0][key] <= 0;
}

/* What the symbol table of the build x (tree F) is gone from says of
 * x's name: that build's dso is known from x's caller's partner there. */
static int defined_there(const ctx *c, bool from_base, const gone *e)
{
	const dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	return fact_defined(c, from_base ? 1 : 0, T, F->n[e->q].partner, sym(F, e->x));
}

static bool candidate(const ctx *c, bool from_base, const dt_tree *F, uint32_t x)
{
	const dt_node *n = &F->n[x];
	return n->partner == DT_NONE && n->rel == DT_NONE && !c->renamed[n->key] &&
	       (n->flags & DT_SEEN_OUTLINE) && !unresolved(F, x) && !plt_stub(F, x) &&
	       missing(c, from_base, n->key);
}

/* The nearest ancestor of x with a partner, through nodes that are
 * missing too; 0 when there is none (the root absorbs nothing). */
static uint32_t surviving_caller(const ctx *c, bool from_base, const dt_tree *F, uint32_t x,
				 bool *nested)
{
	*nested = false;
	for (uint32_t q = F->n[x].parent; q != 0; q = F->n[q].parent) {
		if (F->n[q].partner != DT_NONE)
			return unresolved(F, q) ? 0 : q;
		if (!missing(c, from_base, F->n[q].key) || unresolved(F, q))
			return 0;
		*nested |= F->n[q].key == F->n[x].key;
	}
	return 0;
}

static int push_gone(gone_set *s, gone g)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		gone *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = g;
	return 0;
}

/* By function gone, then caller function: the groups of one function
 * together. */
static int by_function(const void *a, const void *b)
{
	const gone *p = a, *q = b;
	if (p->fkey != q->fkey)
		return p->fkey < q->fkey ? -1 : 1;
	if (p->ikey != q->ikey)
		return p->ikey < q->ikey ? -1 : 1;
	return p->cost > q->cost ? -1 : p->cost < q->cost;
}

/* By component (the symbol tables' route: comp holds it), then function
 * gone. */
static int by_component(const void *a, const void *b)
{
	const gone *p = a, *q = b;
	if (p->comp != q->comp)
		return p->comp < q->comp ? -1 : 1;
	return by_function(a, b);
}

static uint32_t uf_find(uint32_t *up, uint32_t k)
{
	while (up[k] != k) {
		up[k] = up[up[k]];
		k = up[k];
	}
	return k;
}

/*
 * The entries v[0..n) that DWARF left open fall into components: gone
 * functions and the caller functions they went into, joined where one
 * went into the other.  A caller's self grows by everything gone into
 * it, and a helper's cost is spread over all its callers, so the cost
 * can only be balanced over a whole component.  Sets each entry's comp.
 */
static int components(const ctx *c, gone *v, size_t n)
{
	uint32_t nk = c->b->keys->n;
	uint32_t *up = malloc((nk ? nk : 1) * sizeof *up);
	if (!up)
		return PD_ENOMEM;
	for (uint32_t k = 0; k < nk; k++)
		up[k] = k;
	for (size_t i = 0; i < n; i++)
		up[uf_find(up, v[i].fkey)] = uf_find(up, v[i].ikey);
	for (size_t i = 0; i < n; i++)
		v[i].comp = uf_find(up, v[i].fkey);
	free(up);
	return 0;
}

static int collect(const ctx *c, bool from_base, gone_set *s)
{
	const dt_tree *F = from_base ? c->b : c->n;
	for (uint32_t x = 1; x < F->nn; x++) {
		if (!candidate(c, from_base, F, x))
			continue;
		bool nested;
		uint32_t q = surviving_caller(c, from_base, F, x, &nested);
		/* code is inlined into a caller of its own binary: an interrupt's
		 * kernel entry under a user function it hit is no inlining */
		if (q == 0 || !dt_key_same_dso(F->keys, F->n[x].key, F->n[q].key) ||
		    (F->n[x].flags & DT_KERNEL) != (F->n[q].flags & DT_KERNEL))
			continue;
		gone g = { F->n[x].key, F->n[q].key, x, q, nested ? 0 : incl(F, x), DT_NONE, 0, 0 };
		if (push_gone(s, g) < 0)
			return PD_ENOMEM;
	}
	return 0;
}

/* Every costly callee of x (tree F) hangs off `at` in tree T, looking
 * through callees that are gone too (inlined with x). */
static bool closure_follows(const ctx *c, bool from_base, uint32_t top, uint32_t x,
			    uint32_t at, int depth)
{
	const dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	for (uint32_t k = 0; k < F->n[x].nkids; k++) {
		uint32_t y = dt_kid(F, x, k);
		if (!shaping(c, F, top, y))
			continue;
		if (missing(c, from_base, F->n[y].key)) {
			if (depth > 32 || !closure_follows(c, from_base, top, y, at, depth + 1))
				return false;
		} else if (dt_tree_find(T, at, F->n[y].key) == DT_NONE) {
			return false;
		}
	}
	return true;
}

/* Pair the callees of x (and of the gone callees under it) with the same
 * keys under `at`, so that what they call is aligned in turn. */
static void pair_closure(ctx *c, bool from_base, uint32_t x, uint32_t at, int depth)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	for (uint32_t k = 0; k < F->n[x].nkids && depth <= 32; k++) {
		uint32_t y = dt_kid(F, x, k);
		if (F->n[y].partner != DT_NONE)
			continue;
		if (missing(c, from_base, F->n[y].key)) {
			pair_closure(c, from_base, y, at, depth + 1);
			continue;
		}
		uint32_t z = dt_tree_find(T, at, F->n[y].key);
		if (z == DT_NONE || T->n[z].partner != DT_NONE)
			continue;
		if (from_base)
			align_pair(c, y, z);
		else
			align_pair(c, z, y);
	}
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The distinct caller nodes (tree F) of entries v[0..n), sorted, into
 * *out; how many, or PD_ENOMEM. */
static int caller_nodes(const gone *v, size_t n, uint32_t **out)
{
	uint32_t *q = malloc((n ? n : 1) * sizeof *q);
	if (!q)
		return PD_ENOMEM;
	for (size_t i = 0; i < n; i++)
		q[i] = v[i].q;
	qsort(q, n, sizeof *q, by_id);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (m == 0 || q[m - 1] != q[i])
			q[m++] = q[i];
	*out = q;
	return (int)m;
}

/* The callers' own self, as a share of the busy time, in tree T minus
 * in tree F, and its noise: what the functions gone into them brought.
 * NAN where a table does not give a caller's self. */
static double callers_growth(const ctx *c, bool from_base, const uint32_t *q, int nq,
			     double *noise)
{
	const dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	double now = 0, before = 0;
	for (int i = 0; i < nq; i++) {
		uint32_t p = F->n[q[i]].partner;
		if ((F->n[q[i]].flags | T->n[p].flags) & DT_SELF_UNKNOWN) {
			*noise = 0;
			return NAN;
		}
		before += self(F, q[i]);
		now += self(T, p);
	}
	*noise = hypot(dt_share_noise(T, now) / busy(T), dt_share_noise(F, before) / busy(F));
	return now / busy(T) - before / busy(F);
}

/* Summed self of the nodes gone into one caller function: entries
 * v[0..n), every function of them (shares of the busy time). */
static double gone_self(const dt_tree *F, const gone *v, size_t n, double *noise)
{
	double a = 0;
	for (size_t i = 0; i < n; i++)
		a += self(F, v[i].x);
	*noise = dt_share_noise(F, a) / busy(F);
	return a / busy(F);
}

/* The symbol tables' route for a component v[0..n): no DWARF could
 * say, each function is gone from the table of the build it was inlined
 * in, and the callers' self grew by what they all cost.  1 yes, 0 no,
 * PD_ENOMEM. */
static int by_symbols(ctx *c, bool from_base, const gone *v, size_t n, evbuf *why)
{
	const dt_tree *F = from_base ? c->b : c->n;
	for (size_t i = 0; i < n; i++)
		if (defined_there(c, from_base, &v[i]) != DT_FACT_NO)
			return 0;
	uint32_t *q;
	int nq = caller_nodes(v, n, &q);
	if (nq < 0)
		return nq;
	double ng, na, g = callers_growth(c, from_base, q, nq, &ng);
	double a = gone_self(F, v, n, &na);
	free(q);
	if (!(g > DT_NOISE_SIGMAS * ng) || !conserved(c, a, g, hypot(ng, na)))
		return 0;
	ev_add(why, "gone from the %s build's symbol table; the own self of %s%s %s by %.1f %% "
	       "of the busy time, as much as the functions gone into %s had taken (%.1f %%); ",
	       from_base ? "new" : "base", sym(F, v[0].q), nq > 1 ? " and its fellow callers" : "",
	       from_base ? "grew" : "shrank", 100 * fabs(g), nq > 1 ? "them" : "it", 100 * a);
	return 1;
}

/* Whether a cost (points of tree F) clears the noise and the smallest
 * change worth explaining. */
static bool clears(const ctx *c, const dt_tree *F, double cost)
{
	return cost >= c->min_pts && cost >= DT_NOISE_SIGMAS * dt_share_noise(F, cost);
}

/* Record entries g[0..n) of one function, which took `cost` points
 * through `paths` call paths: a relation per node, which relations.c
 * folds into one per caller. */
static void record_group(ctx *c, bool from_base, const gone *g, size_t n, double cost,
			 size_t paths, const char *why)
{
	dt_tree *F = from_base ? c->b : c->n;
	evbuf e = { .n = 0 };
	e.s[0] = '\0';
	ev_add(&e, "%s%s took %.2f %% through %zu call path%s, %s", why, sym(F, g[0].x), cost,
	       paths, paths == 1 ? "" : "s", from_base ? "all gone" : "all new");
	const char *ev = e.s;
	for (size_t i = 0; i < n; i++) {
		uint32_t x = g[i].x, q = g[i].q;
		uint32_t p = g[i].into != DT_NONE ? g[i].into : F->n[q].partner;
		if (from_base)
			align_add_rel(c, PD_REL_INLINED, &x, 1, &p, 1, q, p, 0.9, ev);
		else
			align_add_rel(c, PD_REL_OUTLINED, &p, 1, &x, 1, p, q, 0.9, ev);
		pair_closure(c, from_base, x, p, 0);
	}
}

/* Whether the build's DWARF has x's function inlined into node p of
 * tree T, with x's costly callees hanging off p there. */
static bool dwarf_into(const ctx *c, bool from_base, uint32_t x, uint32_t p, int *dw)
{
	const dt_tree *F = from_base ? c->b : c->n;
	*dw = fact_inlined(c, from_base ? 1 : 0, p, sym(F, x));
	return *dw == DT_FACT_YES && closure_follows(c, from_base, x, x, p, 0);
}

/* Where the DWARF of the build entry e's function is gone from puts it:
 * its surviving caller, or (frame-pointer chains skip the caller of a
 * frameless leaf: Go's small leaves keep no frame) the callee of that
 * caller which both builds have, whose code holds the instance and whose
 * self grew most.  Sets e->into and e->verdict: 1 found, 0 the DWARF
 * cannot tell (the symbol tables may), -1 refuted. */
static void dwarf_verdict(const ctx *c, bool from_base, gone *e)
{
	const dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	uint32_t p = F->n[e->q].partner, found = DT_NONE;
	int dw, kdw;
	e->verdict = 1;
	if (dwarf_into(c, from_base, e->x, p, &dw)) {
		e->into = p;
		return;
	}
	double most = -INFINITY;
	for (uint32_t k = 0; k < T->n[p].nkids; k++) {
		uint32_t y = dt_kid(T, p, k);
		if (missing(c, !from_base, T->n[y].key) || !dwarf_into(c, from_base, e->x, y, &kdw))
			continue;
		/* several callees hold an instance (a leaf shared by a family
		 * of step functions): the cost went where self grew most */
		uint32_t was = T->n[y].partner;
		double g = self(T, y) - (was != DT_NONE ? self(F, was) : 0);
		if (g > most) {
			most = g;
			found = y;
		}
	}
	e->into = found;
	if (found != DT_NONE)
		return;
	/* DWARF without the instance refutes a function the build still
	 * has code of; one it has none of went somewhere all the same (Go
	 * records no instance for a helper no instruction is attributed
	 * to): the symbol tables decide */
	bool gone_code = defined_there(c, from_base, e) == DT_FACT_NO;
	e->verdict = dw == DT_FACT_NO && !gone_code ? -1 : 0;
}

/* One function's entries v[0..n): those DWARF puts somewhere are
 * recorded together when their summed cost clears the noise (a helper
 * spread over many callers is small at each); the others keep their
 * verdict for the symbol tables. */
static void function_groups(ctx *c, bool from_base, gone *v, size_t n)
{
	const dt_tree *F = from_base ? c->b : c->n;
	double yes = 0;
	size_t paths = 0;
	for (size_t i = 0; i < n; i++) {
		dwarf_verdict(c, from_base, &v[i]);
		yes += v[i].verdict > 0 ? v[i].cost : 0;
		paths += v[i].verdict > 0;
	}
	if (!clears(c, F, yes)) {
		for (size_t i = 0; i < n; i++)
			v[i].verdict = v[i].verdict > 0 ? -1 : v[i].verdict;
		return;
	}
	const dt_tree *T = from_base ? c->n : c->b;
	for (size_t i = 0; i < n; i++) {
		if (v[i].verdict <= 0)
			continue;
		evbuf why = { .n = 0 };
		why.s[0] = '\0';
		ev_add(&why, "DWARF of the %s build: %s inlined into %s; ",
		       from_base ? "new" : "base", sym(F, v[i].x), sym(T, v[i].into));
		record_group(c, from_base, v + i, 1, yes, paths, why.s);
	}
}

/* Entries v[0..n) (sorted by function gone) balanced by the symbol
 * tables: each function recorded whose cost clears the noise.  1 when
 * they balance, 0 not, PD_ENOMEM. */
static int balanced(ctx *c, bool from_base, gone *v, size_t n)
{
	const dt_tree *F = from_base ? c->b : c->n;
	evbuf why = { .n = 0 };
	why.s[0] = '\0';
	int rc = by_symbols(c, from_base, v, n, &why);
	for (size_t i = 0, j; i < n && rc > 0; i = j) {
		double cost = 0;
		for (j = i; j < n && v[j].fkey == v[i].fkey; j++)
			cost += v[j].cost;
		if (clears(c, F, cost))
			record_group(c, from_base, v + i, j - i, cost, j - i, why.s);
	}
	return rc;
}

/* By caller function, then function gone. */
static int by_caller(const void *a, const void *b)
{
	const gone *p = a, *q = b;
	if (p->ikey != q->ikey)
		return p->ikey < q->ikey ? -1 : 1;
	return by_function(a, b);
}

/* The open entries of one component, v[0..n) (sorted by function gone):
 * balanced as a whole, or else caller function by caller function (a
 * component joined through a caller whose self grew for other reasons
 * can still hold callers that balance alone). */
static int component_groups(ctx *c, bool from_base, gone *v, size_t n)
{
	int rc = balanced(c, from_base, v, n);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	qsort(v, n, sizeof *v, by_caller);
	for (size_t i = 0, j; i < n && rc >= 0; i = j) {
		for (j = i; j < n && v[j].ikey == v[i].ikey; j++)
			;
		if (j - i < n)
			rc = balanced(c, from_base, v + i, j - i);
	}
	return rc < 0 ? rc : 0;
}

void align_gone(ctx *c, bool from_base)
{
	gone_set s = { 0 };
	if (collect(c, from_base, &s) < 0) {
		c->err = PD_ENOMEM;
		return;
	}
	if (s.n == 0)
		return;
	qsort(s.v, s.n, sizeof *s.v, by_function);
	for (size_t i = 0, j; i < s.n; i = j) {
		for (j = i; j < s.n && s.v[j].fkey == s.v[i].fkey; j++)
			;
		function_groups(c, from_base, s.v + i, j - i);
	}
	/* what DWARF left open, by component */
	size_t open = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].verdict == 0)
			s.v[open++] = s.v[i];
	if (open && components(c, s.v, open) < 0)
		c->err = PD_ENOMEM;
	if (open && !c->err)
		qsort(s.v, open, sizeof *s.v, by_component);
	for (size_t i = 0, j; i < open && !c->err; i = j) {
		for (j = i; j < open && s.v[j].comp == s.v[i].comp; j++)
			;
		if (component_groups(c, from_base, s.v + i, j - i) < 0)
			c->err = PD_ENOMEM;
	}
	free(s.v);
}
