/*
 * Aligning the base and new trees (diff-landscape.md §5.2).
 *
 * Top-down from the roots, each aligned pair of nodes has its children
 * aligned in passes that go from certain to merely likely:
 *
 *   exact     same key (symbol, dso basename; a dso's unresolved frames
 *             are its one "[unknown]"): almost everything;
 *   inlined   a base-only child X whose callees all hang off the new
 *             caller directly and whose self reappears as the caller's
 *             self (outlined: the mirror image); also where the base
 *             chains skip the caller (align_inline.c);
 *   stems     children whose names differ only in clone suffixes (only
 *             with PD_PROFILE_KEEP_SUFFIXES): one ↔ several is split or
 *             merged, one ↔ one a rename, costs summing up;
 *   renamed   the rest of the siblings, scored on callees, cost, name,
 *             source file and the builds' symbol tables, paired 1:1
 *             only where no runner-up comes close (align_rename.c).
 *
 * Then subtrees left unpaired under aligned parents are compared across
 * parents (moved, align_move.c).  Pairs found by any pass are aligned in
 * turn.
 *
 * Sampling noise and other load make small nodes appear, vanish and
 * wander between callers in two recordings of the same binary, so a
 * relation needs costs above that noise (DT_NOISE_SIGMAS deviations of
 * the tree's own variation, dt_share_noise) as well as its structure: an
 * A/A comparison must not come out full of "renames".
 */
#include <stdio.h>
#include <stdlib.h>

#include "align_ctx.h"

static void push(ctx *c, uint32_t x, uint32_t y)
{
	if (c->err)
		return;
	if (c->qn + 2 > c->qcap) {
		size_t cap = c->qcap ? c->qcap * 2 : 256;
		uint32_t *q = realloc(c->q, cap * sizeof *q);
		if (!q) {
			c->err = PD_ENOMEM;
			return;
		}
		c->q = q;
		c->qcap = cap;
	}
	c->q[c->qn++] = x;
	c->q[c->qn++] = y;
}

/* Pair base node x with new node y and queue their children. */
void align_pair(ctx *c, uint32_t x, uint32_t y)
{
	c->b->n[x].partner = y;
	c->n->n[y].partner = x;
	push(c, x, y);
}

/* The relation's nodes carry it; the callers of inlined/outlined are
 * aligned already and keep whatever they had. */
static void mark_rel(ctx *c, const dt_rel *r, uint32_t id)
{
	for (uint32_t i = 0; i < r->nb; i++)
		if (c->b->n[r->b[i]].rel == DT_NONE &&
		    !(r->kind == PD_REL_OUTLINED && r->b[i] == r->bparent))
			c->b->n[r->b[i]].rel = id;
	for (uint32_t i = 0; i < r->nn; i++)
		if (c->n->n[r->n[i]].rel == DT_NONE &&
		    !(r->kind == PD_REL_INLINED && r->n[i] == r->nparent))
			c->n->n[r->n[i]].rel = id;
}

uint32_t align_add_rel(ctx *c, pd_diff_relation_kind kind, const uint32_t *bs, uint32_t nb,
		       const uint32_t *ns, uint32_t nn, uint32_t bparent, uint32_t nparent,
		       double score, const char *evidence)
{
	dt_align *al = c->al;
	if (c->err)
		return DT_NONE;
	if (al->nrels == al->cap) {
		size_t cap = al->cap ? al->cap * 2 : 16;
		dt_rel *v = realloc(al->rels, cap * sizeof *v);
		if (!v) {
			c->err = PD_ENOMEM;
			return DT_NONE;
		}
		al->rels = v;
		al->cap = cap;
	}
	uint32_t id = (uint32_t)al->nrels++;
	dt_rel *r = &al->rels[id];
	memset(r, 0, sizeof *r);
	r->kind = kind;
	r->nb = nb > DT_REL_MAX ? DT_REL_MAX : nb;
	r->nn = nn > DT_REL_MAX ? DT_REL_MAX : nn;
	memcpy(r->b, bs, r->nb * sizeof *bs);
	memcpy(r->n, ns, r->nn * sizeof *ns);
	r->bparent = bparent;
	r->nparent = nparent;
	r->score = score < 0 ? 0 : score > 1 ? 1 : score;
	snprintf(r->evidence, sizeof r->evidence, "%s", evidence);
	mark_rel(c, r, id);
	if (kind == PD_REL_RENAMED) {
		for (uint32_t i = 0; i < r->nb; i++)
			c->renamed[c->b->n[r->b[i]].key] = 1;
		for (uint32_t i = 0; i < r->nn; i++)
			c->renamed[c->n->n[r->n[i]].key] = 1;
	}
	return id;
}

void ev_add(evbuf *e, const char *fmt, ...)
{
	if (e->n >= sizeof e->s - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(e->s + e->n, sizeof e->s - e->n, fmt, ap);
	va_end(ap);
	if (w > 0)
		e->n += (size_t)w < sizeof e->s - e->n ? (size_t)w : sizeof e->s - 1 - e->n;
}

static int by_incl_desc(const dt_tree *t, uint32_t a, uint32_t b)
{
	double x = incl(t, a), y = incl(t, b);
	return x > y ? -1 : x < y ? 1 : (a > b) - (a < b);
}

void sort_by_incl(const dt_tree *t, uint32_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && by_incl_desc(t, v[j - 1], v[j]) > 0; j--) {
			uint32_t s = v[j];
			v[j] = v[j - 1];
			v[j - 1] = s;
		}
}

/* ------------------------------------------------------------ exact */

/* The same function, now (or no longer) an inline frame: the inline
 * frames themselves (DWARF) say so. */
static void inline_flag_change(ctx *c, uint32_t pb, uint32_t pn, uint32_t x, uint32_t y)
{
	dt_tree *B = c->b, *N = c->n;
	uint32_t fb = B->n[x].flags & (DT_SEEN_INLINED | DT_SEEN_OUTLINE);
	uint32_t fn = N->n[y].flags & (DT_SEEN_INLINED | DT_SEEN_OUTLINE);
	if (fb == fn || (fb != DT_SEEN_INLINED && fn != DT_SEEN_INLINED) ||
	    (fb | fn) != (DT_SEEN_INLINED | DT_SEEN_OUTLINE) || pb == 0 || !substantial(c, B, x))
		return;
	char ev[DT_EVIDENCE_MAX];
	if (fn == DT_SEEN_INLINED) {
		snprintf(ev, sizeof ev, "inline frames (DWARF): %s is now inlined into %s", sym(B, x),
			 sym(N, pn));
		align_add_rel(c, PD_REL_INLINED, &x, 1, &pn, 1, pb, pn, 1.0, ev);
	} else {
		snprintf(ev, sizeof ev, "inline frames (DWARF): %s was inlined into %s, now a call",
			 sym(N, y), sym(B, pb));
		align_add_rel(c, PD_REL_OUTLINED, &pb, 1, &y, 1, pb, pn, 1.0, ev);
	}
}

static void align_exact(ctx *c, uint32_t pb, uint32_t pn)
{
	dt_tree *B = c->b, *N = c->n;
	for (uint32_t i = 0; i < B->n[pb].nkids; i++) {
		uint32_t x = dt_kid(B, pb, i);
		if (B->n[x].partner != DT_NONE)
			continue;
		/* unresolved frames too: "[unknown]" of a dso under an aligned
		 * caller is the same code as far as anything can tell */
		uint32_t y = dt_tree_find(N, pn, B->n[x].key);
		if (y == DT_NONE || N->n[y].partner != DT_NONE)
			continue;
		align_pair(c, x, y);
		if (!(c->o->flags & PD_DIFF_NO_ALIGN) && !unresolved(B, x))
			inline_flag_change(c, pb, pn, x, y);
	}
}

/* ------------------------------------------------------------ children */

static int collect_unmatched(const dt_tree *t, uint32_t p, uint32_t **v, size_t *cap,
			     uint32_t *n)
{
	*n = 0;
	for (uint32_t i = 0; i < t->n[p].nkids; i++) {
		uint32_t x = dt_kid(t, p, i);
		if (t->n[x].partner != DT_NONE)
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 32;
			uint32_t *nv = realloc(*v, nc * sizeof *nv);
			if (!nv)
				return PD_ENOMEM;
			*v = nv;
			*cap = nc;
		}
		(*v)[(*n)++] = x;
	}
	return 0;
}

typedef struct scratch {
	uint32_t *ub, *un;
	size_t cap_b, cap_n;
} scratch;

static void align_children(ctx *c, scratch *s, uint32_t pb, uint32_t pn)
{
	align_exact(c, pb, pn);
	if (c->o->flags & PD_DIFF_NO_ALIGN)
		return;
	uint32_t nb, nn;
	if (collect_unmatched(c->b, pb, &s->ub, &s->cap_b, &nb) < 0 ||
	    collect_unmatched(c->n, pn, &s->un, &s->cap_n, &nn) < 0) {
		c->err = PD_ENOMEM;
		return;
	}
	if (nb == 0 && nn == 0)
		return;
	/* an "[unknown]" caller's self is many functions': its growth shows
	 * nothing; the root (no key) has no self to absorb anything */
	if (!unresolved(c->b, pb) && !unresolved(c->n, pn)) {
		align_inline(c, true, pb, pn, s->ub, nb);
		align_inline(c, false, pn, pb, s->un, nn);
		align_inline_skipped(c, true, pb, pn, s->ub, nb);
		align_inline_skipped(c, false, pn, pb, s->un, nn);
	}
	align_stems(c, pb, pn, s->ub, nb, true);
	align_stems(c, pb, pn, s->un, nn, false);
	align_renames(c, pb, pn, s->ub, nb, s->un, nn);
	align_regrown(c, pb, pn, true);
	align_regrown(c, pb, pn, false);
}

static void drain(ctx *c, scratch *s)
{
	while (c->qhead < c->qn && !c->err) {
		uint32_t x = c->q[c->qhead++];
		uint32_t y = c->q[c->qhead++];
		align_children(c, s, x, y);
	}
}

int dt_align_run(dt_align *al, dt_tree *b, dt_tree *n, const pd_diff_options *o,
		 const dt_facts *facts)
{
	ctx c;
	memset(&c, 0, sizeof c);
	c.al = al;
	c.b = b;
	c.n = n;
	c.o = o;
	c.facts = facts;
	c.tol = o->cost_tolerance;
	c.min_pts = dt_min_pts(o);
	c.mark = calloc(b->keys->n ? b->keys->n : 1, sizeof *c.mark);
	c.renamed = calloc(b->keys->n ? b->keys->n : 1, sizeof *c.renamed);
	if (!c.mark || !c.renamed || evidence_init(&c) < 0) {
		free(c.mark);
		free(c.renamed);
		evidence_free(&c);
		return PD_ENOMEM;
	}
	scratch s;
	memset(&s, 0, sizeof s);
	align_pair(&c, 0, 0);
	drain(&c, &s);
	if (!(o->flags & PD_DIFF_NO_ALIGN) && !c.err) {
		/* a wrapper inlined pairs its callees, whose subtrees then
		 * show the next functions gone: again while that finds more */
		for (int round = 0; round < DT_GONE_ROUNDS && !c.err; round++) {
			size_t had = al->nrels;
			align_gone(&c, true);
			align_gone(&c, false);
			drain(&c, &s);
			if (al->nrels == had)
				break;
		}
		align_moves(&c);
		drain(&c, &s);
	}
	free(s.ub);
	free(s.un);
	free(c.q);
	free(c.mark);
	free(c.renamed);
	evidence_free(&c);
	return c.err;
}

void dt_align_free(dt_align *al)
{
	free(al->rels);
	memset(al, 0, sizeof *al);
}
