/*
 * Renames among the siblings left unpaired under an aligned pair of
 * callers: clone-suffix stems first (foo ↔ foo + foo.cold: split and
 * merged), then every other pair scored on what it shares.
 *
 * A rename keeps the function: its callees, its share of its caller's
 * time, usually its source file and much of its name, and — where the
 * subtree is deep — what happens far below it.  A change of code path
 * (poll() replaced by epoll_wait()) shares only the generic first levels
 * (the system-call entry) and is no rename; neither is a pair whose old
 * name the new build still defines (evidence.c).  Scores run from 0 to
 * 1; a pair must clear `rename_score`, raised when the names are unlike
 * or the source files differ, and no runner-up may come within
 * DT_AMBIGUITY_MARGIN.  PLT stubs are named after their targets and
 * never paired on their own.
 */
#include <stdio.h>
#include <stdlib.h>

#include "align_ctx.h"

/* ------------------------------------------------------------ stems */

/* Children of p whose key has stem `stem` and the dso of key `like`. */
static uint32_t stem_group(const ctx *c, const dt_tree *t, uint32_t p, uint64_t stem,
			   uint32_t like, uint32_t *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->n[p].nkids && n < DT_REL_MAX; i++) {
		uint32_t x = dt_kid(t, p, i);
		const dt_key *k = dt_node_key(t, x);
		if (k->stem == stem && !k->unresolved &&
		    dt_key_same_dso(c->b->keys, t->n[x].key, like))
			out[n++] = x;
	}
	return n;
}

/* Is a node of group v[0..n) aligned with one outside the other side's
 * group w[0..m)?  It is taken then: an inlined callee's frames are
 * aligned with its caller's, and a caller that the base's chains show now
 * and then keeps a twin of one, which is no rename of it.  (foo aligned
 * with foo while foo.cold appears is a split: both in the groups.) */
static bool aligned_outside(const dt_tree *t, const uint32_t *v, uint32_t n, const uint32_t *w,
			    uint32_t m)
{
	for (uint32_t j = 0; j < n; j++) {
		uint32_t p = t->n[v[j]].partner;
		bool inside = p == DT_NONE;
		for (uint32_t k = 0; k < m && !inside; k++)
			inside = w[k] == p;
		if (!inside)
			return true;
	}
	return false;
}

/* Sum of the group's inclusive costs as shares of the caller p, with
 * their noise; false when one of them is taken already. */
static bool group_cost(const dt_tree *t, uint32_t p, const uint32_t *v, uint32_t n,
		       double *cost, double *noise)
{
	double sum = 0;
	bool fresh = true;
	for (uint32_t j = 0; j < n; j++) {
		fresh &= t->n[v[j]].rel == DT_NONE;
		sum += incl(t, v[j]);
	}
	*cost = share_of(t, sum, p);
	*noise = share_of(t, dt_share_noise(t, sum), p);
	return fresh;
}

/* Pair what is still unpaired, biggest with biggest, so that the
 * subtrees below align. */
static void pair_groups(ctx *c, const uint32_t *sb, uint32_t nb, const uint32_t *sn,
			uint32_t nn)
{
	uint32_t ib = 0, in = 0;
	for (;;) {
		while (ib < nb && c->b->n[sb[ib]].partner != DT_NONE)
			ib++;
		while (in < nn && c->n->n[sn[in]].partner != DT_NONE)
			in++;
		if (ib == nb || in == nn)
			break;
		align_pair(c, sb[ib++], sn[in++]);
	}
}

void align_stems(ctx *c, uint32_t pb, uint32_t pn, const uint32_t *u, size_t nu,
		 bool u_is_base)
{
	dt_tree *B = c->b, *N = c->n;
	const dt_tree *U = u_is_base ? B : N;
	for (size_t i = 0; i < nu; i++) {
		uint32_t x = u[i];
		if (U->n[x].partner != DT_NONE || U->n[x].rel != DT_NONE || unresolved(U, x))
			continue;
		const dt_key *k = dt_node_key(U, x);
		uint32_t sb[DT_REL_MAX], sn[DT_REL_MAX];
		uint32_t nb = stem_group(c, B, pb, k->stem, U->n[x].key, sb);
		uint32_t nn = stem_group(c, N, pn, k->stem, U->n[x].key, sn);
		if (nb == 0 || nn == 0 || (nb == nn && nb > 1) ||
		    aligned_outside(B, sb, nb, sn, nn) || aligned_outside(N, sn, nn, sb, nb))
			continue;
		double cb, cn, nzb, nzn;
		bool fresh_b = group_cost(B, pb, sb, nb, &cb, &nzb);
		bool fresh_n = group_cost(N, pn, sn, nn, &cn, &nzn);
		if (!fresh_b || !fresh_n || !substantial(c, U, x) ||
		    !conserved(c, cb, cn, hypot(nzb, nzn)))
			continue;
		sort_by_incl(B, sb, nb);
		sort_by_incl(N, sn, nn);
		pd_diff_relation_kind kind = nn > nb   ? PD_REL_SPLIT
					     : nb > nn ? PD_REL_MERGED
						       : PD_REL_RENAMED;
		char ev[DT_EVIDENCE_MAX];
		snprintf(ev, sizeof ev,
			 "the same name but for clone suffixes, %u vs %u part%s, %.0f %% vs %.0f %% "
			 "of %s's time",
			 nb, nn, nb + nn > 2 ? "s" : "", 100 * cb, 100 * cn, sym(B, pb));
		align_add_rel(c, kind, sb, nb, sn, nn, pb, pn, cost_sim(cb, cn), ev);
		pair_groups(c, sb, nb, sn, nn);
	}
}

/* ------------------------------------------------------------ rename */

/*
 * Whether x (base) and y (new) are compiled from one source file: 1 yes,
 * 0 no, -1 unknown (no DWARF for one of them).  Files compare by
 * basename: the two builds are often made in different folders.
 */
static int same_unit(const ctx *c, uint32_t x, uint32_t y)
{
	const char *ux = dt_tree_unit(c->b, c->b->n[x].key);
	const char *uy = dt_tree_unit(c->n, c->n->n[y].key);
	if (!ux || !uy)
		return -1;
	return strcmp(dt_basename(ux), dt_basename(uy)) == 0;
}

/* Everything a candidate pair is judged on. */
typedef struct rscore {
	double s, bar;         /* score and the bar it must clear */
	double name, cost, callees, agree;
	uint32_t common, kx;
	int unit;              /* same_unit() */
	int fx, fy;            /* x defined in the new build, y in the base build */
	bool deep;
	const char *veto;      /* why the pair cannot be a rename, or NULL */
} rscore;

/* What the builds' symbol tables say: a rename removes the old name and
 * brings the new one. */
static void rename_facts(const ctx *c, uint32_t x, uint32_t y, rscore *r)
{
	r->fx = fact_defined(c, 1, c->b, x, sym(c->b, x));
	r->fy = fact_defined(c, 0, c->n, y, sym(c->n, y));
	if (r->fx == DT_FACT_YES)
		r->veto = "the old name is still defined in the new build";
	else if (r->fy == DT_FACT_YES)
		r->veto = "the new name was defined in the base build already";
}

/* How alike two nodes' shares of their callers are, a difference within
 * two standard deviations of their noise counting as none: small shares
 * of a busy machine's profile wander by more than a ratio of them says. */
static double rel_cost_sim(const ctx *c, uint32_t x, uint32_t y)
{
	const dt_tree *B = c->b, *N = c->n;
	double a = rel_cost(B, x), b = rel_cost(N, y);
	double na = share_of(B, dt_share_noise(B, incl(B, x)), B->n[x].parent);
	double nb = share_of(N, dt_share_noise(N, incl(N, y)), N->n[y].parent);
	double m = fmax(a, b), d = fmax(0, fabs(a - b) - 2 * hypot(na, nb));
	return m > 0 ? 1 - d / m : 1;
}

static void rename_score(ctx *c, uint32_t x, uint32_t y, rscore *r)
{
	memset(r, 0, sizeof *r);
	r->kx = costly_kids(c, c->b, x);
	uint32_t ky = costly_kids(c, c->n, y);
	r->name = dt_name_similarity(sym(c->b, x), sym(c->n, y));
	r->cost = rel_cost_sim(c, x, y);
	r->unit = same_unit(c, x, y);
	r->agree = deep_agreement(c, x, y, &r->deep);
	if (r->deep && r->agree < DT_AGREE_MIN)
		r->veto = "the subtrees differ below their first level";
	/* rebuilt from keys, the root's children are functions whose callers
	 * the table does not give: two of them share no caller, and only
	 * names alike say they may be one */
	if (c->b->from_keys && c->b->n[x].parent == 0 && r->name < DT_NAME_ALIKE)
		r->veto = "no caller in common, and names not alike";
	rename_facts(c, x, y, r);
	if (r->kx + ky == 0) {
		/* two leaves: no callee evidence either way */
		r->s = 0.55 * r->cost + 0.45 * r->name;
	} else {
		r->callees = callee_evidence(c, x, y, &r->common);
		r->s = 0.45 * r->callees + 0.30 * r->cost + 0.25 * r->name;
	}
	if (r->fx == DT_FACT_NO && r->fy == DT_FACT_NO)
		r->s += DT_FACTS_WEIGHT;
	if (r->unit > 0)
		r->s += DT_UNIT_WEIGHT;
	r->s = fmin(1.0, r->s);
	r->bar = c->o->rename_score + (r->name < DT_NAME_DISSIMILAR ? DT_BAR_NAME : 0) +
		 (r->unit == 0 ? DT_BAR_FILE : 0);
}

/* The first costly callee of x (base) that y (new) calls too. */
static const char *first_common(const ctx *c, uint32_t x, uint32_t y)
{
	for (uint32_t k = 0; k < c->b->n[x].nkids; k++) {
		uint32_t v = dt_kid(c->b, x, k);
		if (shaping(c, c->b, x, v) && dt_tree_find(c->n, y, c->b->n[v].key) != DT_NONE)
			return sym(c->b, v);
	}
	return NULL;
}

static void rename_evidence(const ctx *c, uint32_t x, uint32_t y, const rscore *r, evbuf *e)
{
	if (r->fx == DT_FACT_NO && r->fy == DT_FACT_NO && c->facts && c->facts->defined_from)
		ev_add(e, "%s: %s only in the base runs, %s only in the new; ",
		       c->facts->defined_from, sym(c->b, x), sym(c->n, y));
	else if (r->fx == DT_FACT_NO && r->fy == DT_FACT_NO)
		ev_add(e, "symbol tables: %s only in the base build, %s only in the new; ",
		       sym(c->b, x), sym(c->n, y));
	if (r->kx)
		ev_add(e, "%u of %u callees alike (%s%s); ", r->common, r->kx,
		       r->common ? first_common(c, x, y) : "none",
		       r->callees < 0.5 && r->common ? ", common to many callers" : "");
	if (r->deep)
		ev_add(e, "the same below them: %.2f; ", r->agree);
	uint32_t p = c->b->n[x].parent;
	ev_add(e, "%.0f %% vs %.0f %% of %s%s; names %.2f alike", 100 * rel_cost(c->b, x),
	       100 * rel_cost(c->n, y), p ? sym(c->b, p) : "the busy time", p ? "'s time" : "",
	       r->name);
	if (r->unit > 0)
		ev_add(e, "; same file %s", dt_basename(dt_tree_unit(c->b, c->b->n[x].key)));
	else if (r->unit == 0)
		ev_add(e, "; other files");
}

/* Keep the `cap` biggest of v (unmatched, relation-free, resolved, not a
 * PLT stub, big enough). */
static uint32_t rename_pool(const ctx *c, const dt_tree *t, uint32_t *v, uint32_t n)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = v[i];
		if (t->n[x].partner == DT_NONE && t->n[x].rel == DT_NONE && !unresolved(t, x) &&
		    !plt_stub(t, x) && substantial(c, t, x))
			v[m++] = x;
	}
	if (m > DT_RENAME_CAP) {
		sort_by_incl(t, v, m);
		m = DT_RENAME_CAP;
	}
	return m;
}

static void take_rename(ctx *c, uint32_t pb, uint32_t pn, uint32_t x, uint32_t y)
{
	rscore r;
	rename_score(c, x, y, &r);
	evbuf e = { .n = 0 };
	e.s[0] = '\0';
	rename_evidence(c, x, y, &r, &e);
	align_add_rel(c, PD_REL_RENAMED, &x, 1, &y, 1, pb, pn, r.s, e.s);
	align_pair(c, x, y);
}

/* Scores of every pair (-1: not a candidate) and the candidates above
 * their bar.  Returns how many. */
static size_t score_pairs(ctx *c, const uint32_t *ub, uint32_t nb, const uint32_t *un,
			  uint32_t nn, double *sc, dt_cand *cand)
{
	size_t ncand = 0;
	for (uint32_t i = 0; i < nb; i++)
		for (uint32_t j = 0; j < nn; j++) {
			rscore r = { .s = -1 };
			bool same = dt_key_same_dso(c->b->keys, c->b->n[ub[i]].key,
						    c->n->n[un[j]].key) &&
				    (c->b->n[ub[i]].flags & DT_KERNEL) ==
					    (c->n->n[un[j]].flags & DT_KERNEL);
			if (same)
				rename_score(c, ub[i], un[j], &r);
			sc[(size_t)i * nn + j] = r.veto ? -1 : r.s;
			if (same && !r.veto && r.s >= r.bar)
				cand[ncand++] = (dt_cand){ i, j, r.s };
		}
	return ncand;
}

void align_renames(ctx *c, uint32_t pb, uint32_t pn, uint32_t *ub, uint32_t nb, uint32_t *un,
		   uint32_t nn)
{
	nb = rename_pool(c, c->b, ub, nb);
	nn = rename_pool(c, c->n, un, nn);
	if (nb == 0 || nn == 0)
		return;
	double *sc = malloc((size_t)nb * nn * sizeof *sc);
	dt_cand *cand = malloc((size_t)nb * nn * sizeof *cand);
	bool *db = calloc(nb, 1), *dn = calloc(nn, 1);
	if (!sc || !cand || !db || !dn) {
		c->err = PD_ENOMEM;
		goto out;
	}
	size_t ncand = score_pairs(c, ub, nb, un, nn, sc, cand);
	ncand = dt_match(sc, nb, nn, cand, ncand, db, dn);
	for (size_t k = 0; k < ncand; k++)
		take_rename(c, pb, pn, ub[cand[k].i], un[cand[k].j]);
out:
	free(sc);
	free(cand);
	free(db);
	free(dn);
}
