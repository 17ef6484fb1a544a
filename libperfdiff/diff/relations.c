/*
 * Public relations from the aligner's: names instead of node ids,
 * duplicates folded (a function renamed is found once under every caller
 * it has), a row of its own for each shift's net change, and the rows
 * each shift explains.
 *
 * A shift is one finding: a renamed function's −62.3 and +62.4 children
 * rows are two halves of a +0.1 change.  So the shift row (PD_DIFF_SHIFT)
 * carries the values whose change is the net, is tested like any row
 * (and counted in the Benjamini–Hochberg family), and the rows a shift
 * explains take its significance instead of their own: a CI gate on
 * significant changes then fires on what the change left, not on the
 * size of the rename.
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

/* The aligner's evidence, saying so when the dso is one of a pair: the
 * two names are then part of what made the relation. */
static const char *evidence(pd_diff *d, const char *ev, const char *dso)
{
	size_t len = strnlen(ev, DT_EVIDENCE_MAX);
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

/* Fill public relation `r` and its keys `ri` from the aligner's `a`. */
static int publish(pd_diff *d, const dt_rel *a, pd_diff_relation *r, dt_relinfo *ri)
{
	const dt_tree *B = &d->tree[0], *N = &d->tree[1];
	const char **bs = pd_arena_alloc(&d->arena, DT_REL_MAX * sizeof *bs);
	const char **ns = pd_arena_alloc(&d->arena, DT_REL_MAX * sizeof *ns);
	if (!bs || !ns)
		return PD_ENOMEM;
	memset(r, 0, sizeof *r);
	memset(ri, 0, sizeof *ri);
	ri->nb = rel_syms(B, a->b, a->nb, bs, ri->keys);
	ri->nn = rel_syms(N, a->n, a->nn, ns, ri->keys + ri->nb);
	r->kind = a->kind;
	r->base_symbols = bs;
	r->nbase_symbols = ri->nb;
	r->new_symbols = ns;
	r->nnew_symbols = ri->nn;
	r->base_symbol = ri->nb ? bs[0] : NULL;
	r->new_symbol = ri->nn ? ns[0] : NULL;
	r->base_parent = a->bparent != DT_NONE ? dt_node_sym(B, a->bparent) : NULL;
	r->new_parent = a->nparent != DT_NONE ? dt_node_sym(N, a->nparent) : NULL;
	r->dso = ri->nb ? d->keys.v[ri->keys[0]].dso : ri->nn ? d->keys.v[ri->keys[ri->nb]].dso : "";
	r->score = a->score;
	r->evidence = evidence(d, a->evidence, r->dso);
	if (a->kind == PD_REL_MOVED) {
		if (a->bparent != DT_NONE && a->bparent != 0)
			ri->pkeys[ri->npkeys++] = B->n[a->bparent].key;
		if (a->nparent != DT_NONE && a->nparent != 0)
			ri->pkeys[ri->npkeys++] = N->n[a->nparent].key;
	}
	/* align_inline.c's skipped callers: the caller aligned with the other
	 * side's is the callee's caller's caller there */
	if (a->kind == PD_REL_INLINED && a->bparent != DT_NONE && a->nparent != DT_NONE)
		ri->skipped = B->n[a->bparent].partner != a->nparent;
	if (a->kind == PD_REL_OUTLINED && a->bparent != DT_NONE && a->nparent != DT_NONE)
		ri->skipped = N->n[a->nparent].partner != a->bparent;
	return r->evidence ? 0 : PD_ENOMEM;
}

/* ------------------------------------------------------------ shift rows */

/* "a+b" of a relation side into b. */
static int put_side(pd_buf *b, const char *const *syms, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (i)
			rc = pd_buf_append(b, "+", 1);
		if (rc == 0)
			rc = pd_buf_append(b, syms[i], strlen(syms[i]));
	}
	return rc;
}

/* The shift row's key: "BASE->NEW", moved "SYMBOL:FROM->TO". */
static int shift_key(const pd_diff_relation *r, pd_buf *b)
{
	b->len = 0;
	if (r->kind == PD_REL_MOVED) {
		const char *from = r->base_parent ? r->base_parent : "[root]";
		const char *to = r->new_parent ? r->new_parent : "[root]";
		int rc = put_side(b, r->base_symbols, r->nbase_symbols);
		if (rc == 0)
			rc = pd_buf_append(b, ":", 1);
		if (rc == 0)
			rc = pd_buf_append(b, from, strlen(from));
		if (rc == 0)
			rc = pd_buf_append(b, "->", 2);
		return rc ? rc : pd_buf_append(b, to, strlen(to));
	}
	int rc = put_side(b, r->base_symbols, r->nbase_symbols);
	if (rc == 0)
		rc = pd_buf_append(b, "->", 2);
	return rc ? rc : put_side(b, r->new_symbols, r->nnew_symbols);
}

/* The children row of relation key i. */
static uint32_t key_row(const pd_diff *d, const dt_relinfo *ri, size_t i)
{
	return pd_diff_children_row(d, d->keys.v[ri->keys[i]].sym, ri->keys[i]);
}

/* Add `row` to the set rows[0..*n) unless absent or there already. */
static void add_member(uint32_t *rows, size_t *n, uint32_t row)
{
	if (row == DT_NONE)
		return;
	for (size_t i = 0; i < *n; i++)
		if (rows[i] == row)
			return;
	rows[(*n)++] = row;
}

/* Whether the function relation i carries into (or out of) its caller
 * goes into another caller too: its row then holds the cost of both. */
static bool callee_shared(const pd_diff *d, size_t i)
{
	const pd_diff_relation *r = &d->rels[i];
	size_t at = r->kind == PD_REL_INLINED ? 0 : d->relinfo[i].nb;
	uint32_t key = d->relinfo[i].keys[at];
	for (size_t j = 0; j < d->nrels; j++) {
		const dt_relinfo *o = &d->relinfo[j];
		size_t oat = r->kind == PD_REL_INLINED ? 0 : o->nb;
		if (j != i && d->rels[j].kind == r->kind && o->nb + o->nn > oat &&
		    o->keys[oat] == key)
			return true;
	}
	return false;
}

size_t pd_diff_shift_members(const pd_diff *d, size_t i, uint32_t *rows)
{
	const pd_diff_relation *r = &d->rels[i];
	const dt_relinfo *ri = &d->relinfo[i];
	size_t n = 0;
	/* skipped callers: the callee's row joins the caller's, unless the
	 * callee went into other callers too (its row holds their share as
	 * well, which would be counted under each) */
	bool join = ri->skipped && !callee_shared(d, i);
	switch (join ? PD_REL_RENAMED : r->kind) {
	case PD_REL_INLINED:   /* the caller's: its inclusive cost holds the callee's */
		add_member(rows, &n, key_row(d, ri, ri->nb));
		break;
	case PD_REL_OUTLINED:
	case PD_REL_MOVED:
		add_member(rows, &n, key_row(d, ri, 0));
		break;
	default:
		for (size_t k = 0; k < ri->nb + ri->nn; k++)
			add_member(rows, &n, key_row(d, ri, k));
	}
	return n;
}

/* The values whose change is relation i's net (diff.h, pd_diff_row_at). */
static void shift_values(pd_diff *d, size_t i, uint32_t sr)
{
	uint32_t rows[2 * DT_REL_MAX];
	size_t n = pd_diff_shift_members(d, i, rows), nv = d->nruns[0] + d->nruns[1];
	for (size_t k = 0; k < n; k++)
		for (size_t v = 0; v < nv; v++)
			d->rows[sr].vals[v] += d->rows[rows[k]].vals[v];
}

static int shift_row(pd_diff *d, size_t i, pd_buf *b)
{
	pd_diff_relation *r = &d->rels[i];
	dt_relinfo *ri = &d->relinfo[i];
	if (shift_key(r, b) < 0)
		return PD_ENOMEM;
	uint32_t sr = pd_diff_row_get(d, PD_DIFF_SHIFT, (const char *)b->data, b->len,
				      ri->nb ? ri->keys[0] : ri->keys[ri->nb]);
	if (sr == DT_NONE)
		return PD_ENOMEM;
	dt_row *row = &d->rows[sr];
	row->pub.symbol = r->base_symbol ? r->base_symbol : r->new_symbol;
	row->pub.dso = (d->opts.flags & PD_DIFF_LKP_KEYS) ? NULL : r->dso;
	ri->row = sr;
	shift_values(d, i, sr);
	return 0;
}

int pd_diff_collect_relations(pd_diff *d)
{
	const dt_align *al = &d->align;
	size_t cap = al->nrels ? al->nrels : 1;
	d->rels = pd_arena_alloc(&d->arena, cap * sizeof *d->rels);
	d->relinfo = pd_arena_alloc(&d->arena, cap * sizeof *d->relinfo);
	d->relmap = pd_arena_alloc(&d->arena, cap * sizeof *d->relmap);
	if (!d->rels || !d->relinfo || !d->relmap)
		return PD_ENOMEM;
	pd_buf b;
	memset(&b, 0, sizeof b);
	size_t n = 0;
	int rc = 0;
	for (size_t i = 0; i < al->nrels && rc == 0; i++) {
		if ((rc = publish(d, &al->rels[i], &d->rels[n], &d->relinfo[n])) < 0)
			break;
		/* the same shift found under another caller: keep the stronger */
		size_t j = 0;
		while (j < n && !same_rel(&d->rels[j], &d->rels[n]))
			j++;
		d->relmap[i] = (uint32_t)j;  /* its place before the sort (finish) */
		if (j < n) {
			if (d->rels[n].score > d->rels[j].score) {
				d->rels[j].score = d->rels[n].score;
				d->rels[j].evidence = d->rels[n].evidence;
			}
			continue;
		}
		n++;
	}
	/* shift rows once all are known: a row's members depend on the
	 * other relations (pd_diff_shift_members) */
	d->nrels = n;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = shift_row(d, i, &b);
	pd_buf_free(&b);
	return rc;
}

/* ------------------------------------------------------ after the stats */

static double children_change(const pd_diff *d, const dt_relinfo *ri, size_t i)
{
	uint32_t r = key_row(d, ri, i);
	return r == DT_NONE ? 0 : d->rows[r].pub.change;
}

/*
 * The changes of a relation (in the unit of children rows):
 *   base_change  sum of the children-row changes of its base symbols;
 *   new_change   the same over its new symbols;
 *   net          the change of its shift row: what is left once the cost
 *                is carried across (diff.h).
 */
static void rel_changes(const pd_diff *d, pd_diff_relation *r, const dt_relinfo *ri)
{
	r->base_change = r->new_change = 0;
	for (size_t i = 0; i < ri->nb; i++)
		r->base_change += children_change(d, ri, i);
	for (size_t i = ri->nb; i < ri->nb + ri->nn; i++)
		r->new_change += children_change(d, ri, i);
	r->net = d->rows[ri->row].pub.change;
}

typedef struct relsort {
	pd_diff_relation r;
	dt_relinfo ri;
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

/* Does a path row (calltrace, tree) pass through a symbol of `ri`? */
static bool path_of_rel(const pd_diff *d, const dt_row *r, const dt_relinfo *ri)
{
	if (r->pub.metric != PD_DIFF_CALLTRACE && r->pub.metric != PD_DIFF_TREE)
		return false;
	char sep = r->pub.metric == PD_DIFF_TREE ? ';' : '.';
	for (size_t i = 0; i < ri->nb + ri->nn; i++)
		if (key_has_frame(d, r->pub.key, sep, d->keys.v[ri->keys[i]].sym))
			return true;
	return false;
}

/* Whether the robot-cleaned form of key `k`'s symbol is `symbol`. */
static bool lkp_named(const pd_diff *d, uint32_t k, const char *symbol)
{
	char buf[512];
	size_t n = pd_lkp_symbol_clean(d->keys.v[k].sym, buf, sizeof buf);
	return symbol && n < sizeof buf && strcmp(buf, symbol) == 0;
}

/* Is row `r` about a caller a subtree moved from or to? */
static bool caller_of_move(const pd_diff *d, const dt_row *r, const dt_relinfo *ri)
{
	if (r->pub.metric == PD_DIFF_SELF)
		return false;
	for (size_t i = 0; i < ri->npkeys; i++)
		if (r->inner != DT_NONE ? r->inner == ri->pkeys[i]
					: lkp_named(d, ri->pkeys[i], r->pub.symbol))
			return true;
	return false;
}

/* Does row `r` show a symbol of relation `s`? */
static bool row_of_rel(const pd_diff *d, const dt_row *r, const pd_diff_relation *rel,
		       const dt_relinfo *ri)
{
	/* a move changes no flat cost: only paths tell it */
	if (rel->kind == PD_REL_MOVED &&
	    (r->pub.metric == PD_DIFF_CHILDREN || r->pub.metric == PD_DIFF_SELF))
		return false;
	for (size_t i = 0; i < ri->nb + ri->nn; i++)
		if (r->inner != DT_NONE ? ri->keys[i] == r->inner
					: lkp_named(d, ri->keys[i], r->pub.symbol))
			return true;
	return false;
}

/* Rows: the first (largest) relation that names their symbol; else one
 * whose symbols are on their path; else a move from or to them.  A row
 * explained so is significant when its shift is. */
static void attach_rows(pd_diff *d)
{
	for (size_t k = 0; k < d->nrows; k++) {
		dt_row *r = &d->rows[k];
		if (r->pub.metric == PD_DIFF_SHIFT)
			continue;
		for (size_t i = 0; i < d->nrels && r->rel == DT_NONE; i++)
			if (row_of_rel(d, r, &d->rels[i], &d->relinfo[i]))
				r->rel = (uint32_t)i;
		for (size_t i = 0; i < d->nrels && r->rel == DT_NONE; i++)
			if (path_of_rel(d, r, &d->relinfo[i]))
				r->rel = (uint32_t)i;
		for (size_t i = 0; i < d->nrels && r->rel == DT_NONE; i++)
			if (caller_of_move(d, r, &d->relinfo[i]))
				r->rel = (uint32_t)i;
		if (r->rel == DT_NONE)
			continue;
		d->rels[r->rel].rows_significant |= r->pub.significant;
		r->pub.significant = d->rows[d->relinfo[r->rel].row].pub.significant;
	}
	for (size_t i = 0; i < d->nrels; i++)
		d->rows[d->relinfo[i].row].rel = (uint32_t)i;
}

/* The aligner's relations to their public places after the sort: the
 * aligned tree's nodes name their relation through d->relmap. */
static int remap_relations(pd_diff *d, const relsort *v, size_t n)
{
	uint32_t *post = malloc((n ? n : 1) * sizeof *post);
	if (!post)
		return PD_ENOMEM;
	for (size_t i = 0; i < n; i++)
		post[v[i].order] = (uint32_t)i;
	for (size_t a = 0; a < d->align.nrels; a++)
		d->relmap[a] = d->relmap[a] < n ? post[d->relmap[a]] : DT_NONE;
	free(post);
	return 0;
}

int pd_diff_finish_relations(pd_diff *d)
{
	size_t n = d->nrels;
	relsort *v = calloc(n ? n : 1, sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i].r = d->rels[i];
		v[i].ri = d->relinfo[i];
		v[i].order = i;
		rel_changes(d, &v[i].r, &v[i].ri);
	}
	qsort(v, n, sizeof *v, rel_cmp);
	for (size_t i = 0; i < n; i++) {
		d->rels[i] = v[i].r;
		d->relinfo[i] = v[i].ri;
	}
	int rc = remap_relations(d, v, n);
	free(v);
	attach_rows(d);
	return rc;
}
