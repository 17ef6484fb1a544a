/*
 * Public relations from the aligner's: names instead of node ids, the
 * children-row changes that say how much each one moved, and duplicates
 * folded (a function renamed is found once under every caller it has).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdiff/report.h"
#include "internal.h"

/* Distinct symbols of a relation's nodes on one side; their keys in keys[]. */
static size_t rel_syms(const dt_tree *t, const uint32_t *ids, uint32_t n, const char **syms,
		       uint32_t *keys)
{
	size_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = t->n[ids[i]].key;
		bool dup = false;
		for (size_t j = 0; j < m; j++)
			dup |= keys[j] == k;
		if (!dup) {
			keys[m] = k;
			syms[m++] = t->keys->v[k].sym;
		}
	}
	return m;
}

static double children_change(const pd_diff *d, const char *sym, uint32_t key)
{
	uint32_t r = pd_diff_children_row(d, sym, key);
	return r == DT_NONE ? 0 : d->rows[r].pub.change;
}

static bool same_rel(const pd_diff_relation *a, const pd_diff_relation *b)
{
	if (a->kind != b->kind || a->nbase_symbols != b->nbase_symbols ||
	    a->nnew_symbols != b->nnew_symbols || strcmp(a->dso, b->dso) != 0)
		return false;
	for (size_t i = 0; i < a->nbase_symbols; i++)
		if (strcmp(a->base_symbols[i], b->base_symbols[i]) != 0)
			return false;
	for (size_t i = 0; i < a->nnew_symbols; i++)
		if (strcmp(a->new_symbols[i], b->new_symbols[i]) != 0)
			return false;
	/* a move is from one caller to another: other callers, other moves */
	if (a->kind == PD_REL_MOVED) {
		if (!a->base_parent != !b->base_parent || !a->new_parent != !b->new_parent)
			return false;
		if (a->base_parent && strcmp(a->base_parent, b->base_parent) != 0)
			return false;
		if (a->new_parent && strcmp(a->new_parent, b->new_parent) != 0)
			return false;
	}
	return true;
}

typedef struct relsort {
	pd_diff_relation r;
	uint32_t keys[2 * DT_REL_MAX];  /* keys of base then new symbols */
	size_t nkeys;
	uint32_t pkeys[2];              /* moved: keys of the two callers */
	size_t npkeys;
	size_t order;
} relsort;

static int rel_cmp(const void *a, const void *b)
{
	const relsort *x = a, *y = b;
	double wx = fabs(x->r.base_change) + fabs(x->r.new_change);
	double wy = fabs(y->r.base_change) + fabs(y->r.new_change);
	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->r.score != y->r.score)
		return x->r.score > y->r.score ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * The changes of a relation (in the unit of children rows):
 *   base_change  sum of the children-row changes of its base symbols;
 *   new_change   the same over its new symbols;
 *   net          what is left once the cost is carried across:
 *     renamed, split, merged: the sum over the distinct symbols of both
 *       sides (−12.1 of __fget_light and +14.6 of __fdget: +2.5);
 *     inlined: the caller's children change (new_change): the caller's
 *       inclusive cost holds the callee's in both builds, once as a call
 *       and once inline, so it is the change the shift leaves;
 *       outlined: likewise the caller's (base_change);
 *     moved: the symbol's children change: flat views do not see moves.
 */
static void rel_changes(const pd_diff *d, relsort *s, const uint32_t *bk, size_t nb,
			const uint32_t *nk, size_t nn)
{
	pd_diff_relation *r = &s->r;
	r->base_change = r->new_change = 0;
	for (size_t i = 0; i < nb; i++)
		r->base_change += children_change(d, r->base_symbols[i], bk[i]);
	for (size_t i = 0; i < nn; i++)
		r->new_change += children_change(d, r->new_symbols[i], nk[i]);
	switch (r->kind) {
	case PD_REL_INLINED:
		r->net = r->new_change;
		break;
	case PD_REL_OUTLINED:
	case PD_REL_MOVED:
		r->net = r->base_change;
		break;
	default: {
		double net = r->base_change;
		for (size_t i = 0; i < nn; i++) {
			bool also_base = false;
			for (size_t j = 0; j < nb; j++)
				also_base |= bk[j] == nk[i];
			if (!also_base)
				net += children_change(d, r->new_symbols[i], nk[i]);
		}
		r->net = net;
	}
	}
}

/* Is `sym` (or its robot-cleaned form in LKP mode) one of the frames of
 * `key`, frames separated by `sep`? */
static bool key_has_frame(const pd_diff *d, const char *key, char sep, const char *sym)
{
	char buf[512];
	if (d->opts.flags & PD_DIFF_LKP_KEYS) {
		size_t n = pd_lkp_symbol_clean(sym, buf, sizeof buf);
		if (n >= sizeof buf)
			return false;
		sym = buf;
	}
	size_t len = strlen(sym);
	if (len == 0)
		return false;
	/* names may contain the separator ("foo.cold"): match whole frames */
	for (const char *at = strstr(key, sym); at; at = strstr(at + 1, sym))
		if ((at == key || at[-1] == sep) && (at[len] == 0 || at[len] == sep))
			return true;
	return false;
}

/* Does a path row (calltrace, tree) pass through a symbol of `s`? */
static bool path_of_rel(const pd_diff *d, const dt_row *r, const relsort *s)
{
	if (r->pub.metric != PD_DIFF_CALLTRACE && r->pub.metric != PD_DIFF_TREE)
		return false;
	char sep = r->pub.metric == PD_DIFF_TREE ? ';' : '.';
	for (size_t i = 0; i < s->nkeys; i++)
		if (key_has_frame(d, r->pub.key, sep, d->keys.v[s->keys[i]].sym))
			return true;
	return false;
}

/* Is row `r` about a caller a subtree moved from or to? */
static bool caller_of_move(const pd_diff *d, const dt_row *r, const relsort *s)
{
	if (r->pub.metric == PD_DIFF_SELF)
		return false;
	for (size_t i = 0; i < s->npkeys; i++) {
		if (r->inner != DT_NONE) {
			if (r->inner == s->pkeys[i])
				return true;
			continue;
		}
		char buf[512];
		size_t n = pd_lkp_symbol_clean(d->keys.v[s->pkeys[i]].sym, buf, sizeof buf);
		if (r->pub.symbol && n < sizeof buf && strcmp(buf, r->pub.symbol) == 0)
			return true;
	}
	return false;
}

/* Does row `r` show a symbol of relation `s`? */
static bool row_of_rel(const pd_diff *d, const dt_row *r, const relsort *s)
{
	/* a move changes no flat cost: only paths tell it */
	if (s->r.kind == PD_REL_MOVED &&
	    (r->pub.metric == PD_DIFF_CHILDREN || r->pub.metric == PD_DIFF_SELF))
		return false;
	if (r->inner != DT_NONE) {
		for (size_t i = 0; i < s->nkeys; i++)
			if (s->keys[i] == r->inner)
				return true;
		return false;
	}
	if (!r->pub.symbol)
		return false;
	char buf[512];
	for (size_t i = 0; i < s->nkeys; i++) {
		const char *sym = d->keys.v[s->keys[i]].sym;
		size_t n = pd_lkp_symbol_clean(sym, buf, sizeof buf);
		if (n < sizeof buf && strcmp(buf, r->pub.symbol) == 0)
			return true;
	}
	return false;
}

/* The aligner's evidence, saying so when the dso is one of a pair: the
 * two names are then part of what made the relation. */
static const char *evidence(pd_diff *d, const char *ev, const char *dso)
{
	size_t len = strnlen(ev, sizeof ((dt_rel *)0)->evidence);
	const char *db = dt_basename(dso);
	for (uint32_t i = 0; i < d->dso_pairs.n; i++) {
		const dt_dso_pair *p = &d->dso_pairs.v[i];
		if (strcmp(dt_basename(p->base_dso), db) != 0)
			continue;
		const char *nb = dt_basename(p->new_dso);
		size_t n = len + strlen(nb) + strlen(db) + 64;
		char *s = pd_arena_alloc(&d->arena, n);
		if (s)
			snprintf(s, n, "%.*s; dso %s taken for %s (%.0f %% of symbol names shared)",
				 (int)len, ev, nb, db, 100 * p->similarity);
		return s;
	}
	return pd_arena_strndup(&d->arena, ev, len);
}

int pd_diff_build_relations(pd_diff *d)
{
	const dt_align *al = &d->align;
	relsort *v = calloc(al->nrels ? al->nrels : 1, sizeof *v);
	if (!v)
		return PD_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < al->nrels; i++) {
		const dt_rel *a = &al->rels[i];
		const dt_tree *B = &d->tree[0], *N = &d->tree[1];
		relsort *s = &v[n];
		const char **bs = pd_arena_alloc(&d->arena, DT_REL_MAX * sizeof *bs);
		const char **ns = pd_arena_alloc(&d->arena, DT_REL_MAX * sizeof *ns);
		if (!bs || !ns) {
			free(v);
			return PD_ENOMEM;
		}
		uint32_t bk[DT_REL_MAX], nk[DT_REL_MAX];
		size_t nb = rel_syms(B, a->b, a->nb, bs, bk);
		size_t nn = rel_syms(N, a->n, a->nn, ns, nk);
		pd_diff_relation *r = &s->r;
		r->kind = a->kind;
		r->base_symbols = bs;
		r->nbase_symbols = nb;
		r->new_symbols = ns;
		r->nnew_symbols = nn;
		r->base_symbol = nb ? bs[0] : NULL;
		r->new_symbol = nn ? ns[0] : NULL;
		r->base_parent = a->bparent != DT_NONE ? dt_node_sym(B, a->bparent) : NULL;
		r->new_parent = a->nparent != DT_NONE ? dt_node_sym(N, a->nparent) : NULL;
		r->dso = nb ? d->keys.v[bk[0]].dso : nn ? d->keys.v[nk[0]].dso : "";
		r->score = a->score;
		r->evidence = evidence(d, a->evidence, r->dso);
		if (!r->evidence) {
			free(v);
			return PD_ENOMEM;
		}
		/* the same shift found under another caller: keep the stronger */
		size_t j = 0;
		while (j < n && !same_rel(&v[j].r, r))
			j++;
		if (j < n) {
			if (r->score > v[j].r.score) {
				v[j].r.score = r->score;
				v[j].r.evidence = r->evidence;
			}
			continue;
		}
		rel_changes(d, s, bk, nb, nk, nn);
		memcpy(s->keys, bk, nb * sizeof *bk);
		memcpy(s->keys + nb, nk, nn * sizeof *nk);
		s->nkeys = nb + nn;
		s->npkeys = 0;
		if (r->kind == PD_REL_MOVED) {
			if (a->bparent != DT_NONE && a->bparent != 0)
				s->pkeys[s->npkeys++] = B->n[a->bparent].key;
			if (a->nparent != DT_NONE && a->nparent != 0)
				s->pkeys[s->npkeys++] = N->n[a->nparent].key;
		}
		s->order = n++;
	}
	qsort(v, n, sizeof *v, rel_cmp);
	d->rels = pd_arena_alloc(&d->arena, (n ? n : 1) * sizeof *d->rels);
	if (!d->rels) {
		free(v);
		return PD_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		d->rels[i] = v[i].r;
	d->nrels = n;
	/* rows: the first (largest) relation that names their symbol; else
	 * one whose symbols are on their path; else a move from or to them */
	for (size_t k = 0; k < d->nrows; k++) {
		dt_row *r = &d->rows[k];
		for (size_t i = 0; i < n && r->rel == DT_NONE; i++)
			if (row_of_rel(d, r, &v[i]))
				r->rel = (uint32_t)i;
		for (size_t i = 0; i < n && r->rel == DT_NONE; i++)
			if (path_of_rel(d, r, &v[i]))
				r->rel = (uint32_t)i;
		for (size_t i = 0; i < n && r->rel == DT_NONE; i++)
			if (caller_of_move(d, r, &v[i]))
				r->rel = (uint32_t)i;
	}
	free(v);
	return 0;
}
