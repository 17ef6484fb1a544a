/*
 * Inlining and outlining (diff-landscape.md §5.2 step 4): a callee X of
 * caller P in one build is gone in the other, and its cost reappears as
 * P's own self — a tree edit that deletes X and hangs its callees off P.
 * Frames with inline information show it directly (align.c); here it is
 * found where they do not: kernel frames named from kallsyms, sessions
 * without inline frames, perf-compatible naming.
 *
 * Costs are shares of the inclusive cost of P's caller, which holds the
 * callee's in both builds, so other load moving the profile's shares
 * does not break the balance: P's own share must grow by X's.  (P's own
 * inclusive cost would hide a callee whose cost simply went away: P's
 * self then grows as a share of a P that shrank.)
 *
 * Frame-pointer chains often skip the caller of a leaf: a leaf that sets
 * up no frame runs with the frame pointer still at its caller's frame, so
 * the unwinder's next return address is the grandparent's.  The base then
 * shows X directly under P's caller G, and the new build the cost as P's
 * self under that same G (align_inline_skipped).
 *
 * The builds settle what the trees only suggest (evidence.c): DWARF that
 * has X inlined into P confirms, DWARF without it refutes; where there
 * is no DWARF (kallsyms) X must be gone from the symbol table of the
 * build it was inlined in.  Without any of that (profiles from elsewhere)
 * the trees decide alone.
 */
#include <math.h>
#include <stdio.h>

#include "align_ctx.h"

/* Whether the build of side `side` (the one X is gone from) confirms
 * that X went into `into` (a node of that side): 1 confirmed, 0 not known,
 * -1 refuted.  `why` gets the words. */
static int inline_facts(const ctx *c, int side, uint32_t into, const char *x, evbuf *why)
{
	const char *build = side ? "new" : "base";
	const char *from = c->facts ? c->facts->inlined_from[side] : NULL;
	int dw = fact_inlined(c, side, into, x);
	if (dw == DT_FACT_YES) {
		if (from)
			ev_add(why, "%s names %s; ", from, x);
		else
			ev_add(why, "DWARF of the %s build: %s inlined into %s; ", build, x,
			       sym(side_tree(c, side), into));
		return 1;
	}
	if (dw == DT_FACT_NO)
		return -1;
	int def = fact_defined(c, side, side_tree(c, side), into, x);
	if (def == DT_FACT_YES)
		return -1;
	if (def == DT_FACT_NO) {
		if (c->facts && c->facts->defined_from)
			ev_add(why, "%s: %s 0.00 in every %s run; ", c->facts->defined_from, x,
			       build);
		else
			ev_add(why, "%s gone from the %s build's symbol table; ", x, build);
		return 1;
	}
	return 0;
}

/* Every costly callee of x (tree F) hangs off `at` in tree T. */
static bool callees_follow(const ctx *c, const dt_tree *F, uint32_t x, const dt_tree *T,
			   uint32_t at)
{
	for (uint32_t k = 0; k < F->n[x].nkids; k++) {
		uint32_t y = dt_kid(F, x, k);
		if (shaping(c, F, x, y) && dt_tree_find(T, at, F->n[y].key) == DT_NONE)
			return false;
	}
	return true;
}

/* Pair x's callees (tree F) with the same keys under `at` (tree T). */
static void pair_callees(ctx *c, bool from_base, uint32_t x, uint32_t at)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	for (uint32_t k = 0; k < F->n[x].nkids; k++) {
		uint32_t y = dt_kid(F, x, k);
		uint32_t z = dt_tree_find(T, at, F->n[y].key);
		if (z == DT_NONE || T->n[z].partner != DT_NONE || F->n[y].partner != DT_NONE)
			continue;
		if (from_base)
			align_pair(c, y, z);
		else
			align_pair(c, z, y);
	}
}

/* A candidate callee: free, named, costly, not a PLT stub, and a real
 * call (an inline frame that one build's samples show and the other's do
 * not was inlined in both). */
static bool free_callee(const ctx *c, const dt_tree *F, uint32_t x)
{
	/* in a tree rebuilt from keys a function's nodes are its rows: one
	 * found renamed at one place was renamed, not inlined, at another */
	if (F->from_keys && c->renamed[F->n[x].key])
		return false;
	return F->n[x].partner == DT_NONE && F->n[x].rel == DT_NONE && !unresolved(F, x) &&
	       !plt_stub(F, x) && (F->n[x].flags & DT_SEEN_OUTLINE) && substantial(c, F, x);
}

/* Record X (tree F, under pf) gone into `into` (tree T): inlined when F
 * is the base.  `g` is into's self growth and `a` X's self, both shares
 * of pf's caller (up_share); `why` holds the facts so far. */
static void record(ctx *c, bool from_base, uint32_t x, uint32_t pf, uint32_t into, double a,
		   double g, double score, evbuf *why)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	uint32_t kids = costly_kids(c, F, x);
	const char *verb = from_base ? "now" : "was";
	uint32_t ref = pf ? F->n[pf].parent : 0;
	ev_add(why, "%s's %.0f %% of %s %s %s's own self (%+.0f %%)", sym(F, x), 100 * a,
	       ref ? sym(F, ref) : "the busy time", verb, sym(T, into),
	       100 * (from_base ? g : -g));
	if (kids)
		ev_add(why, "; its %u callee%s %s called by %s", kids, kids == 1 ? "" : "s",
		       from_base ? (kids == 1 ? "is now" : "are now") : (kids == 1 ? "was" : "were"),
		       sym(T, into));
	if (from_base)
		align_add_rel(c, PD_REL_INLINED, &x, 1, &into, 1, pf, into, score, why->s);
	else
		align_add_rel(c, PD_REL_OUTLINED, &into, 1, &x, 1, into, pf, score, why->s);
	pair_callees(c, from_base, x, into);
}

/* Self share growth of `into` (tree T, under tp) against its partner's
 * in tree F (under fp), in shares of tp's and fp's callers; and its
 * noise. */
static double self_growth(const ctx *c, bool from_base, uint32_t into, uint32_t tp,
			  uint32_t fp, double *noise)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	uint32_t was = into == tp ? fp : T->n[into].partner;
	/* a self the table does not give: its growth is not known */
	if ((T->n[into].flags & DT_SELF_UNKNOWN) ||
	    (was != DT_NONE && (F->n[was].flags & DT_SELF_UNKNOWN))) {
		*noise = 0;
		return NAN;
	}
	double now = self(T, into), before = was != DT_NONE ? self(F, was) : 0;
	*noise = hypot(up_share(T, dt_share_noise(T, now), tp),
		       up_share(F, dt_share_noise(F, before), fp));
	return up_share(T, now, tp) - up_share(F, before, fp);
}

/* Callees of pf (tree F) that may have gone into pt: free, calling only
 * what pt calls, above the noise, not refuted by the build; their facts
 * in why[].  Returns how many, at most DT_REL_MAX. */
static uint32_t inline_candidates(ctx *c, bool from_base, uint32_t pf, uint32_t pt,
				  const uint32_t *cand, size_t ncand, double noise, uint32_t *ok,
				  evbuf *why)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	uint32_t nok = 0;
	for (size_t i = 0; i < ncand && nok < DT_REL_MAX; i++) {
		uint32_t x = cand[i];
		if (!free_callee(c, F, x) || !callees_follow(c, F, x, T, pt))
			continue;
		double a = up_share(F, self(F, x), pf);
		double na = up_share(F, dt_share_noise(F, self(F, x)), pf);
		/* a self within the noise of the caller's "moves" trivially:
		 * then only callees of weight are evidence */
		if (costly_kids(c, F, x) == 0 && a <= DT_NOISE_SIGMAS * hypot(noise, na))
			continue;
		why[nok].n = 0;
		why[nok].s[0] = '\0';
		if (inline_facts(c, from_base ? 1 : 0, pt, sym(F, x), &why[nok]) >= 0)
			ok[nok++] = x;
	}
	return nok;
}

/*
 * X, a child of `pf` in tree F only, vanished into `pt` (pf's partner in
 * tree T): every costly callee of X is a child of pt, and pt's self grew
 * by X's self.  Inlined when F is the base, outlined when F is the new
 * tree.  All candidates together when their selves sum to the growth,
 * else the one that fits best alone.
 */
/*
 * The caller's self is not measured (a tree rebuilt from keys that lists
 * no self row for it): its growth cannot carry the callee's cost across,
 * so only a confirming fact makes an inlining -- the commit's subject
 * naming the callee and inlining, as DWARF would for a build.  The table
 * still says what it can: the callee gone, its callees called by the
 * caller, and (the caller's row not listed) the caller's cost level.
 */
static void inline_unmeasured(ctx *c, bool from_base, uint32_t pf, uint32_t pt,
			      const uint32_t *cand, size_t ncand)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	for (size_t i = 0; i < ncand; i++) {
		uint32_t x = cand[i];
		if (!free_callee(c, F, x) || !callees_follow(c, F, x, T, pt))
			continue;
		/* a name gone is no inlining: only a confirming fact is */
		int side = from_base ? 1 : 0;
		if (fact_inlined(c, side, pt, sym(F, x)) != DT_FACT_YES)
			continue;
		evbuf why = { .n = 0 };
		why.s[0] = '\0';
		inline_facts(c, side, pt, sym(F, x), &why);
		ev_add(&why, "%s %s %.0f %% under %s, whose own cost the table does not list",
		       sym(F, x), from_base ? "took" : "takes", incl(F, x), sym(T, pt));
		if (from_base)
			align_add_rel(c, PD_REL_INLINED, &x, 1, &pt, 1, pf, pt, 0.9, why.s);
		else
			align_add_rel(c, PD_REL_OUTLINED, &pt, 1, &x, 1, pt, pf, 0.9, why.s);
		pair_callees(c, from_base, x, pt);
	}
}

void align_inline(ctx *c, bool from_base, uint32_t pf, uint32_t pt, const uint32_t *cand,
		  size_t ncand)
{
	dt_tree *F = from_base ? c->b : c->n;
	double noise, g = self_growth(c, from_base, pt, pt, pf, &noise);
	if (isnan(g)) {
		inline_unmeasured(c, from_base, pf, pt, cand, ncand);
		return;
	}
	/* the caller's self must have grown beyond its noise: a small
	 * subtree's noise would let any cost "reappear" in nothing */
	if (!(g > DT_NOISE_SIGMAS * noise))
		return;
	uint32_t ok[DT_REL_MAX];
	evbuf why[DT_REL_MAX];
	uint32_t nok = inline_candidates(c, from_base, pf, pt, cand, ncand, noise, ok, why);
	double sum = 0, nsum = 0;
	for (uint32_t i = 0; i < nok; i++) {
		sum += up_share(F, self(F, ok[i]), pf);
		nsum = hypot(nsum, up_share(F, dt_share_noise(F, self(F, ok[i])), pf));
	}
	if (nok > 1 && conserved(c, sum, g, hypot(noise, nsum))) {
		for (uint32_t i = 0; i < nok; i++)
			record(c, from_base, ok[i], pf, pt, up_share(F, self(F, ok[i]), pf), g,
			       cost_sim(sum, g), &why[i]);
		return;
	}
	uint32_t best = DT_NONE;
	double best_fit = -1;
	for (uint32_t i = 0; i < nok; i++) {
		double a = up_share(F, self(F, ok[i]), pf);
		double na = up_share(F, dt_share_noise(F, self(F, ok[i])), pf);
		if (conserved(c, a, g, hypot(noise, na)) && cost_sim(a, g) > best_fit) {
			best = i;
			best_fit = cost_sim(a, g);
		}
	}
	if (best != DT_NONE)
		record(c, from_base, ok[best], pf, pt, up_share(F, self(F, ok[best]), pf), g,
		       best_fit, &why[best]);
}

/* Whether callee p of tree T existed in the other build too: under the
 * same caller there, or in its symbol table.  A callee new in T that took
 * X's cost is X renamed, not X's caller. */
static bool existed(const ctx *c, bool from_base, uint32_t p)
{
	const dt_tree *T = from_base ? c->n : c->b;
	if (T->n[p].partner != DT_NONE)
		return true;
	return fact_defined(c, from_base ? 0 : 1, T, p, sym(T, p)) == DT_FACT_YES;
}

/* The callee P of pt (tree T) that X (tree F, under pf) went into while
 * the chains skipped P, or DT_NONE: the build must confirm it, P must be
 * no newcomer, and P's self must have grown by X's. */
static uint32_t skipped_into(ctx *c, bool from_base, uint32_t x, uint32_t pf, uint32_t pt,
			     evbuf *why)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	double a = up_share(F, self(F, x), pf);
	double na = up_share(F, dt_share_noise(F, self(F, x)), pf);
	uint32_t best = DT_NONE;
	for (uint32_t k = 0; k < T->n[pt].nkids; k++) {
		uint32_t p = dt_kid(T, pt, k);
		double noise, g = self_growth(c, from_base, p, pt, pf, &noise);
		if (!(g > DT_NOISE_SIGMAS * noise) || unresolved(T, p) || plt_stub(T, p) ||
		    !conserved(c, a, g, hypot(noise, na)) ||
		    !callees_follow(c, F, x, T, p) || !existed(c, from_base, p))
			continue;
		evbuf w = { .n = 0 };
		if (inline_facts(c, from_base ? 1 : 0, p, sym(F, x), &w) <= 0)
			continue;
		if (best != DT_NONE)
			return DT_NONE;  /* two callers fit: the trees cannot tell */
		best = p;
		*why = w;
	}
	return best;
}

void align_inline_skipped(ctx *c, bool from_base, uint32_t pf, uint32_t pt,
			  const uint32_t *cand, size_t ncand)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	for (size_t i = 0; i < ncand; i++) {
		uint32_t x = cand[i];
		if (!free_callee(c, F, x))
			continue;
		evbuf why = { .n = 0 };
		uint32_t p = skipped_into(c, from_base, x, pf, pt, &why);
		if (p == DT_NONE)
			continue;
		ev_add(&why, "the %s chains skip %s, the caller of the frameless %s; ",
		       from_base ? "base" : "new", sym(T, p), sym(F, x));
		double noise, g = self_growth(c, from_base, p, pt, pf, &noise);
		double a = up_share(F, self(F, x), pf);
		record(c, from_base, x, pf, p, a, g, cost_sim(a, g), &why);
	}
}
