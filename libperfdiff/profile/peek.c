/*
 * Peek (profile.h, peek.h): the callers and callees of the functions
 * whose name matches an expression, with the period through each edge,
 * counted as pprof's -peek counts them.  A function is (symbol, dso),
 * over all its nodes: its cum is the total of its outermost nodes (a
 * sample counts once under recursion), an edge's period the total of
 * the nodes where the edge first occurs on their path (once per sample),
 * and a call to itself is no edge.  Each side is walked once, depth
 * first with the path at hand, so that those checks look up the path.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "peek.h"

/* ------------------------------------------------------------ one side */

typedef struct edge {
	const char *sym, *dso;
	uint64_t period;
} edge;

typedef struct edges {
	edge *v;
	size_t n, cap;
} edges;

typedef struct sfn {
	const char *sym, *dso;
	uint64_t self, cum;
	edges callers, callees;
} sfn;

typedef struct side {
	const pd_profile *p;
	size_t ev;
	int index;                  /* 0 base, 1 new */
	const regex_t *re;
	const pd_peek_align *al;
	pd_u64map verdict;          /* symbol pointer → (void *)1 no, 2 yes */
	sfn *fn;
	size_t nfn, capfn;
	uint64_t total;
} side;

static bool same(const pd_cct_node *a, const pd_cct_node *b)
{
	return pd_cct_symbol(a) == pd_cct_symbol(b) && pd_cct_dso(a) == pd_cct_dso(b);
}

static int matches(side *s, const pd_cct_node *n, bool *yes)
{
	const char *sym = pd_cct_symbol(n);
	uintptr_t v = (uintptr_t)pd_u64map_get(&s->verdict, (uint64_t)(uintptr_t)sym);
	if (!v) {
		const char *o = s->al && s->al->other_name
					? s->al->other_name(s->al->ctx, s->index, sym, pd_cct_dso(n))
					: NULL;
		bool m = regexec(s->re, sym, 0, NULL, 0) == 0 ||
			 (o && regexec(s->re, o, 0, NULL, 0) == 0);
		v = m ? 2 : 1;
		if (pd_u64map_put(&s->verdict, (uint64_t)(uintptr_t)sym, (void *)v) < 0)
			return PD_ENOMEM;
	}
	*yes = v == 2;
	return 0;
}

static sfn *fn_of(side *s, const pd_cct_node *n)
{
	const char *sym = pd_cct_symbol(n), *dso = pd_cct_dso(n);
	for (size_t i = 0; i < s->nfn; i++)
		if (s->fn[i].sym == sym && s->fn[i].dso == dso)
			return &s->fn[i];
	if (s->nfn == s->capfn) {
		size_t cap = s->capfn ? 2 * s->capfn : 8;
		sfn *v = realloc(s->fn, cap * sizeof *v);
		if (!v)
			return NULL;
		s->fn = v;
		s->capfn = cap;
	}
	sfn *f = &s->fn[s->nfn++];
	*f = (sfn){ .sym = sym, .dso = dso };
	return f;
}

static int add_edge(edges *e, const pd_cct_node *n, uint64_t period)
{
	const char *sym = pd_cct_symbol(n), *dso = pd_cct_dso(n);
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].sym == sym && e->v[i].dso == dso) {
			e->v[i].period += period;
			return 0;
		}
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 8;
		edge *v = realloc(e->v, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = (edge){ sym, dso, period };
	return 0;
}

/* Whether the edge (a → b) occurs on path[1..d]: path[i - 1] → path[i]. */
static bool on_path(const pd_cct_node *const *path, size_t d, const pd_cct_node *a,
		    const pd_cct_node *b)
{
	for (size_t i = 2; i <= d; i++)
		if (same(path[i - 1], a) && same(path[i], b))
			return true;
	return false;
}

/* Node path[d], a matching function's: its self, cum, callers, callees. */
static int visit(side *s, const pd_cct_node *const *path, size_t d)
{
	const pd_cct_node *n = path[d], *up = path[d - 1];
	sfn *f = fn_of(s, n);
	if (!f)
		return PD_ENOMEM;
	f->self += pd_cct_self(n, SIZE_MAX);
	bool outer = true;
	for (size_t i = 1; i < d && outer; i++)
		outer = !same(path[i], n);
	if (outer)
		f->cum += pd_cct_total(n, SIZE_MAX);
	if (d >= 2 && !same(up, n) && !on_path(path, d - 1, up, n) &&
	    add_edge(&f->callers, up, pd_cct_total(n, SIZE_MAX)) < 0)
		return PD_ENOMEM;
	for (size_t i = 0; i < pd_cct_child_count(n); i++) {
		const pd_cct_node *c = pd_cct_child(n, i);
		if (!same(c, n) && !on_path(path, d, n, c) &&
		    add_edge(&f->callees, c, pd_cct_total(c, SIZE_MAX)) < 0)
			return PD_ENOMEM;
	}
	return 0;
}

/* Every node of the side's tree, depth first, the matching ones visited. */
static int walk(side *s)
{
	size_t cap = 64, d = 0;
	const pd_cct_node **path = malloc(cap * sizeof *path);
	size_t *next = malloc(cap * sizeof *next);
	int rc = path && next ? 0 : PD_ENOMEM;
	if (rc == 0) {
		path[0] = pd_profile_root(s->p, s->ev);
		next[0] = 0;
	}
	while (rc == 0) {
		if (next[d] >= pd_cct_child_count(path[d])) {
			if (d-- == 0)
				break;
			continue;
		}
		const pd_cct_node *c = pd_cct_child(path[d], next[d]++);
		if (d + 1 == cap) {
			cap *= 2;
			const pd_cct_node **p2 = realloc(path, cap * sizeof *p2);
			if (p2)
				path = p2;
			size_t *n2 = p2 ? realloc(next, cap * sizeof *n2) : NULL;
			if (!n2) {
				rc = PD_ENOMEM;
				break;
			}
			next = n2;
		}
		path[++d] = c;
		next[d] = 0;
		bool yes;
		if ((rc = matches(s, c, &yes)) == 0 && yes)
			rc = visit(s, path, d);
	}
	free(path);
	free(next);
	return rc;
}

static void side_free(side *s)
{
	for (size_t i = 0; i < s->nfn; i++) {
		free(s->fn[i].callers.v);
		free(s->fn[i].callees.v);
	}
	free(s->fn);
	pd_u64map_free(&s->verdict);
}

/* ------------------------------------------------------------ pairing */

struct pd_peek {
	pd_peek_entry *v;
	size_t n;
	void **owned;
	size_t nowned;
};

static const char *base_name(const char *dso)
{
	const char *b = dso ? strrchr(dso, '/') : NULL;
	return b ? b + 1 : dso ? dso : "";
}

/* Whether base (bs, bd) and new (ns, nd) are one function. */
static bool paired(const pd_peek_align *al, const char *bs, const char *bd, const char *ns,
		   const char *nd)
{
	const char *o = al && al->other_name ? al->other_name(al->ctx, 0, bs, bd) : NULL;
	if (strcmp(o ? o : bs, ns) != 0)
		return false;
	if (strcmp(base_name(bd), base_name(nd)) == 0)
		return true;
	return al && al->same_dso && al->same_dso(al->ctx, bd, nd);
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static void fill(pd_peek_line *l, uint64_t tb, uint64_t tn)
{
	l->base_pct = pct(l->base_period, tb);
	l->new_pct = pct(l->new_period, tn);
	l->change = l->new_pct - l->base_pct;
}

static int by_period(const void *a, const void *b)
{
	const pd_peek_line *x = a, *y = b;
	if (x->base_period != y->base_period)
		return x->base_period < y->base_period ? 1 : -1;
	if (x->new_period != y->new_period)
		return x->new_period < y->new_period ? 1 : -1;
	const char *xs = x->base_symbol ? x->base_symbol : x->new_symbol;
	const char *ys = y->base_symbol ? y->base_symbol : y->new_symbol;
	return strcmp(xs, ys);
}

/* The lines of two sides' edges (either may be NULL), paired. */
static int pair_edges(const edges *b, const edges *n, const side *s, const pd_peek_align *al,
		      const pd_peek_line **out, size_t *nout)
{
	size_t nb = b ? b->n : 0, nn = n ? n->n : 0;
	pd_peek_line *v = calloc(nb + nn + 1, sizeof *v);
	bool *used = calloc(nn + 1, sizeof *used);
	if (!v || !used) {
		free(v);
		free(used);
		return PD_ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < nb; i++) {
		pd_peek_line *l = &v[k++];
		*l = (pd_peek_line){ .base_symbol = b->v[i].sym, .dso = b->v[i].dso,
				     .base_period = b->v[i].period };
		for (size_t j = 0; j < nn && !l->new_symbol; j++)
			if (!used[j] && paired(al, b->v[i].sym, b->v[i].dso, n->v[j].sym, n->v[j].dso)) {
				used[j] = true;
				l->new_symbol = n->v[j].sym;
				l->new_period = n->v[j].period;
			}
	}
	for (size_t j = 0; j < nn; j++)
		if (!used[j])
			v[k++] = (pd_peek_line){ .new_symbol = n->v[j].sym, .dso = n->v[j].dso,
						 .new_period = n->v[j].period };
	for (size_t i = 0; i < k; i++)
		fill(&v[i], s[0].total, s[1].total);
	qsort(v, k, sizeof *v, by_period);
	free(used);
	*out = v;
	*nout = k;
	return 0;
}

static int entry(pd_peek_entry *e, const sfn *b, const sfn *n, const side *s,
		 const pd_peek_align *al)
{
	*e = (pd_peek_entry){ 0 };
	e->fn.base_symbol = b ? b->sym : NULL;
	e->fn.new_symbol = n ? n->sym : NULL;
	e->fn.dso = b ? b->dso : n->dso;
	e->fn.base_period = b ? b->cum : 0;
	e->fn.new_period = n ? n->cum : 0;
	fill(&e->fn, s[0].total, s[1].total);
	e->base_self = b ? b->self : 0;
	e->new_self = n ? n->self : 0;
	e->base_self_pct = pct(e->base_self, s[0].total);
	e->new_self_pct = pct(e->new_self, s[1].total);
	e->self_change = e->new_self_pct - e->base_self_pct;
	int rc = pair_edges(b ? &b->callers : NULL, n ? &n->callers : NULL, s, al, &e->callers,
			    &e->ncallers);
	if (rc == 0)
		rc = pair_edges(b ? &b->callees : NULL, n ? &n->callees : NULL, s, al,
				&e->callees, &e->ncallees);
	return rc;
}

static int by_cum(const void *a, const void *b)
{
	const pd_peek_entry *x = a, *y = b;
	double mx = x->fn.base_pct > x->fn.new_pct ? x->fn.base_pct : x->fn.new_pct;
	double my = y->fn.base_pct > y->fn.new_pct ? y->fn.base_pct : y->fn.new_pct;
	if (mx != my)
		return mx < my ? 1 : -1;
	return by_period(&x->fn, &y->fn);
}

/* The entries of both sides' functions, paired. */
static int pair_all(pd_peek *pk, const side *s, const pd_peek_align *al)
{
	size_t nb = s[0].nfn, nn = s[1].nfn;
	bool *used = calloc(nn + 1, sizeof *used);
	if (!used || !(pk->v = calloc(nb + nn + 1, sizeof *pk->v))) {
		free(used);
		return PD_ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < nb && rc == 0; i++) {
		const sfn *n = NULL;
		for (size_t j = 0; j < nn && !n; j++)
			if (!used[j] && paired(al, s[0].fn[i].sym, s[0].fn[i].dso, s[1].fn[j].sym,
					       s[1].fn[j].dso)) {
				used[j] = true;
				n = &s[1].fn[j];
			}
		rc = entry(&pk->v[pk->n++], &s[0].fn[i], n, s, al);
	}
	for (size_t j = 0; j < nn && rc == 0; j++)
		if (!used[j])
			rc = entry(&pk->v[pk->n++], NULL, &s[1].fn[j], s, al);
	free(used);
	if (rc == 0)
		qsort(pk->v, pk->n, sizeof *pk->v, by_cum);
	return rc;
}

int pd_peek_build(pd_peek **out, const pd_profile *const prof[2], const size_t ev[2],
		  const char *regex, const pd_peek_align *al, pd_error *err)
{
	*out = NULL;
	regex_t re;
	int rrc = regcomp(&re, regex ? regex : "", REG_EXTENDED | REG_NOSUB);
	if (rrc != 0 || !regex || !*regex) {
		char msg[256] = "an empty expression";
		if (rrc != 0)
			regerror(rrc, &re, msg, sizeof msg);
		else
			regfree(&re);
		return pd_error_set(err, PD_EINVAL, "peek", PD_NO_OFFSET,
				    "bad regular expression '%s': %s", regex ? regex : "", msg);
	}
	side s[2] = { { 0 }, { 0 } };
	pd_peek *pk = calloc(1, sizeof *pk);
	int rc = pk ? 0 : PD_ENOMEM;
	bool said = false;
	for (int i = 0; i < 2 && rc == 0; i++) {
		pd_u64map_init(&s[i].verdict);
		if (!prof[i])
			continue;
		if (ev[i] >= pd_profile_event_count(prof[i])) {
			rc = pd_error_set(err, PD_EINVAL, "peek", PD_NO_OFFSET, "no event %zu", ev[i]);
			said = true;
			break;
		}
		s[i] = (side){ .p = prof[i], .ev = ev[i], .index = i, .re = &re, .al = al,
			       .total = pd_profile_total(prof[i], ev[i], SIZE_MAX) };
		pd_u64map_init(&s[i].verdict);
		rc = walk(&s[i]);
	}
	if (rc == 0)
		rc = pair_all(pk, s, al);
	side_free(&s[0]);
	side_free(&s[1]);
	regfree(&re);
	if (rc < 0) {
		pd_peek_free(pk);
		return said ? rc : pd_error_set(err, rc, "peek", PD_NO_OFFSET, "out of memory");
	}
	*out = pk;
	return 0;
}

int pd_profile_peek(const pd_profile *p, size_t ev, const char *regex, pd_peek **out,
		    pd_error *err)
{
	if (!out || !p)
		return pd_error_set(err, PD_EINVAL, "peek", PD_NO_OFFSET, "no profile given");
	const pd_profile *side[2] = { p, NULL };
	const size_t evs[2] = { ev, 0 };
	return pd_peek_build(out, side, evs, regex, NULL, err);
}

size_t pd_peek_count(const pd_peek *pk)
{
	return pk ? pk->n : 0;
}

const pd_peek_entry *pd_peek_at(const pd_peek *pk, size_t i)
{
	return pk && i < pk->n ? &pk->v[i] : NULL;
}

pd_peek_entry *pd_peek_entry_edit(pd_peek *pk, size_t i)
{
	return pk && i < pk->n ? &pk->v[i] : NULL;
}

int pd_peek_own(pd_peek *pk, void *mem)
{
	void **v = realloc(pk->owned, (pk->nowned + 1) * sizeof *v);
	if (!v) {
		free(mem);
		return PD_ENOMEM;
	}
	pk->owned = v;
	pk->owned[pk->nowned++] = mem;
	return 0;
}

void pd_peek_free(pd_peek *pk)
{
	if (!pk)
		return;
	for (size_t i = 0; i < pk->n; i++) {
		free((void *)pk->v[i].callers);
		free((void *)pk->v[i].callees);
	}
	free(pk->v);
	for (size_t i = 0; i < pk->nowned; i++)
		free(pk->owned[i]);
	free(pk->owned);
	free(pk);
}
