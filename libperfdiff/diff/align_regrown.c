/*
 * A rename to a name that was there already, at almost nothing.  The
 * kernel's __fget_light() became __fdget(), which had been a tiny
 * wrapper (1.27 % of do_poll's samples in the base, 32.36 % in the new
 * build, while __fget_light went from 32.69 % to nothing): exact
 * alignment pairs __fdget with __fdget, and __fget_light is left without
 * a sibling to be renamed to.  So, under each aligned pair of callers,
 * a callee X of one side that is gone from the other is paired with an
 * aligned sibling Y that the first side had at near nothing (at most
 * DT_NEAR_ZERO of X's cost) and that grew by about X's cost: the cost
 * carried across, as shares of the callers, within the tolerance and the
 * noise.  The pair must score as a rename does (callees, cost, name;
 * the builds or keys saying X is gone add to it; unlike names raise the
 * bar), no runner-up may come close, and X must be gone from the other
 * build (a name still defined there was not renamed away).  Y was a
 * function of its own before, so X's code can only have gone into it by
 * inlining: where Y's build has DWARF of Y and no instance of X in it
 * (Go's runtime.acquirem, inlined into mallocgc, against the
 * heapBitsSetType that newarray now reaches), no rename.
 */
#include <stdio.h>

#include "align_ctx.h"

#define DT_NEAR_ZERO 0.1  /* Y's cost before, at most this share of X's */

typedef struct regrow {
	double s, bar, cost, name, callees;
	uint32_t common, kx;
	int gone;   /* pd_symbol_fact of X on the side it left */
} regrow;

/* Y (tree T, aligned with y0 of tree F) against X (tree F): its score,
 * or false when it cannot be X renamed. */
static bool regrow_score(ctx *c, bool from_base, uint32_t x, uint32_t y, regrow *r)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	uint32_t y0 = T->n[y].partner;
	double a = rel_cost(F, x), before = rel_cost(F, y0), after = rel_cost(T, y);
	if (incl(F, y0) > DT_NEAR_ZERO * incl(F, x))
		return false;
	if (fact_inlined(c, from_base ? 1 : 0, y, sym(F, x)) == DT_FACT_NO)
		return false;
	double name = dt_name_similarity(sym(F, x), sym(T, y));
	/* the root's children of a tree rebuilt from keys share no caller
	 * the table gives: only names alike pair there (align_rename.c) */
	if (F->from_keys && F->n[x].parent == 0 && name < DT_NAME_ALIKE)
		return false;
	double na = share_of(F, dt_share_noise(F, incl(F, x) + incl(F, y0)), F->n[x].parent);
	double nb = share_of(T, dt_share_noise(T, incl(T, y)), T->n[y].parent);
	if (!conserved(c, a + before, after, hypot(na, nb)))
		return false;
	r->kx = costly_kids(c, F, x);
	uint32_t ky = costly_kids(c, T, y);
	r->name = name;
	r->cost = cost_sim(a, after - before);
	if (r->kx + ky == 0) {
		r->s = 0.55 * r->cost + 0.45 * r->name;
	} else {
		/* callee_evidence() reads its pair as (base, new) */
		r->callees = from_base ? callee_evidence(c, x, y, &r->common)
				       : callee_evidence(c, y, x, &r->common);
		r->s = 0.45 * r->callees + 0.30 * r->cost + 0.25 * r->name;
	}
	if (r->gone == DT_FACT_NO)
		r->s += DT_FACTS_WEIGHT;
	r->s = fmin(1.0, r->s);
	r->bar = c->o->rename_score + (r->name < DT_NAME_DISSIMILAR ? DT_BAR_NAME : 0);
	return r->s >= r->bar;
}

/* Can X (tree F) be renamed away: a real, costly function, alone? */
static bool gone_candidate(const ctx *c, const dt_tree *F, uint32_t x)
{
	return F->n[x].partner == DT_NONE && F->n[x].rel == DT_NONE && !unresolved(F, x) &&
	       !plt_stub(F, x) && substantial(c, F, x) && !(F->from_keys && c->renamed[F->n[x].key]);
}

/* Can Y (tree T) have grown into X's place: aligned, free, same kind of code? */
static bool grown_candidate(const ctx *c, const dt_tree *F, uint32_t x, const dt_tree *T,
			    uint32_t y)
{
	uint32_t y0 = T->n[y].partner;
	return y0 != DT_NONE && T->n[y].rel == DT_NONE && F->n[y0].rel == DT_NONE &&
	       !unresolved(T, y) && !plt_stub(T, y) && substantial(c, T, y) &&
	       dt_key_same_dso(F->keys, F->n[x].key, T->n[y].key) &&
	       (F->n[x].flags & DT_KERNEL) == (T->n[y].flags & DT_KERNEL);
}

static void record(ctx *c, bool from_base, uint32_t pb, uint32_t pn, uint32_t x, uint32_t y,
		   const regrow *r)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	uint32_t y0 = T->n[y].partner, p = F->n[x].parent;
	evbuf e = { .n = 0 };
	e.s[0] = '\0';
	if (r->gone == DT_FACT_NO && c->facts && c->facts->defined_from)
		ev_add(&e, "%s: %s 0.00 in every %s run; ", c->facts->defined_from, sym(F, x),
		       from_base ? "new" : "base");
	else if (r->gone == DT_FACT_NO)
		ev_add(&e, "symbol tables: %s gone from the %s build; ", sym(F, x),
		       from_base ? "new" : "base");
	if (r->kx)
		ev_add(&e, "%u of %u callees alike; ", r->common, r->kx);
	/* base x gone, new y grown; or base y shrunk, new x come */
	ev_add(&e, "%s %s from %.0f %% to %.0f %% of %s%s where %s %s %.0f %%; "
	       "names %.2f alike", sym(T, y), from_base ? "grew" : "fell",
	       100 * (from_base ? rel_cost(F, y0) : rel_cost(T, y)),
	       100 * (from_base ? rel_cost(T, y) : rel_cost(F, y0)),
	       p ? sym(F, p) : "the busy time", p ? "'s time" : "", sym(F, x),
	       from_base ? "had" : "has", 100 * rel_cost(F, x), r->name);
	if (from_base)
		align_add_rel(c, PD_REL_RENAMED, &x, 1, &y, 1, pb, pn, r->s, e.s);
	else
		align_add_rel(c, PD_REL_RENAMED, &y, 1, &x, 1, pb, pn, r->s, e.s);
}

void align_regrown(ctx *c, uint32_t pb, uint32_t pn, bool from_base)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	uint32_t pf = from_base ? pb : pn, pt = from_base ? pn : pb;
	for (uint32_t i = 0; i < F->n[pf].nkids && !c->err; i++) {
		uint32_t x = dt_kid(F, pf, i);
		if (!gone_candidate(c, F, x))
			continue;
		int gone = fact_defined(c, from_base ? 1 : 0, F, x, sym(F, x));
		if (gone == DT_FACT_YES)
			continue;  /* still there on the other side: not renamed away */
		uint32_t best = DT_NONE;
		regrow rb = { .s = -1 }, r;
		double second = -1;
		for (uint32_t k = 0; k < T->n[pt].nkids; k++) {
			uint32_t y = dt_kid(T, pt, k);
			r = (regrow){ .gone = gone };
			if (!grown_candidate(c, F, x, T, y) || !regrow_score(c, from_base, x, y, &r))
				continue;
			if (r.s > rb.s) {
				second = rb.s;
				rb = r;
				best = y;
			} else if (r.s > second) {
				second = r.s;
			}
		}
		if (best != DT_NONE && rb.s - second >= DT_AMBIGUITY_MARGIN)
			record(c, from_base, pb, pn, x, best, &rb);
	}
}
