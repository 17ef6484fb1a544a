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
 *             self (outlined: the mirror image);
 *   stems     children whose names differ only in clone suffixes (only
 *             with PD_PROFILE_KEEP_SUFFIXES): one ↔ several is split or
 *             merged, one ↔ one a rename, costs summing up;
 *   renamed   the rest of the siblings, scored on callees, cost and name,
 *             and on the source file where DWARF named both (the
 *             same file adds DT_UNIT_WEIGHT, two files take it away),
 *             paired 1:1 only where no runner-up comes close.
 *
 * Then subtrees left unpaired under aligned parents are compared across
 * parents (moved).  Pairs found by any pass are aligned in turn.
 *
 * Costs are mean shares over runs.  Sampling noise makes small nodes
 * appear, vanish and wander between callers in two recordings of the
 * same binary, so a relation needs costs above that noise
 * (DT_NOISE_SIGMAS binomial deviations) as well as its structure: an A/A
 * comparison must not come out full of "renames".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct ctx {
	dt_align *al;
	dt_tree *b, *n;
	const pd_diff_options *o;
	double tol, min_pts;
	uint32_t *q;          /* pending pairs, base and new id in turn */
	size_t qn, qcap, qhead;
	uint32_t *mark;       /* per key: stamp, for descendant sets */
	uint32_t stamp;
	int err;
} ctx;

static double incl(const dt_tree *t, uint32_t i) { return t->mean_incl[i]; }
static double self(const dt_tree *t, uint32_t i) { return t->mean_self[i]; }

static bool unresolved(const dt_tree *t, uint32_t i)
{
	const dt_key *k = dt_node_key(t, i);
	return !k || k->unresolved;
}

/* Cost beyond sampling noise: worth explaining. */
static bool substantial(const ctx *c, const dt_tree *t, uint32_t i)
{
	double v = incl(t, i);
	return v >= c->min_pts && v >= DT_NOISE_SIGMAS * dt_share_noise(t, v);
}

/*
 * Part of the shape of the subtree of `top`: above the noise and a fair
 * share of top's cost.  Timer interrupts, page faults and the like hang
 * small subtrees off any busy function, differently in every run; they
 * are not evidence of what a function calls.
 */
static bool shaping(const ctx *c, const dt_tree *t, uint32_t top, uint32_t v)
{
	return substantial(c, t, v) && incl(t, v) >= DT_SHAPE_FRACTION * incl(t, top);
}

/* Callees of v that are evidence. */
static uint32_t costly_kids(const ctx *c, const dt_tree *t, uint32_t v)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < t->n[v].nkids; k++)
		n += shaping(c, t, v, dt_kid(t, v, k));
	return n;
}

/* Two costs that should be equal if cost moved from one place to the
 * other: equal within the relative tolerance plus the noise of both. */
static bool conserved(const ctx *c, double a, double b, double noise)
{
	double m = fmax(fabs(a), fabs(b));
	return fabs(a - b) <= c->tol * m + DT_NOISE_SIGMAS * noise;
}

static double cost_sim(double a, double b)
{
	double m = fmax(fabs(a), fabs(b));
	return m > 0 ? 1 - fabs(a - b) / m : 1;
}

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
static void pair(ctx *c, uint32_t x, uint32_t y)
{
	c->b->n[x].partner = y;
	c->n->n[y].partner = x;
	push(c, x, y);
}

static uint32_t add_rel(ctx *c, pd_diff_relation_kind kind, const uint32_t *bs, uint32_t nb,
			const uint32_t *ns, uint32_t nn, uint32_t bparent, uint32_t nparent,
			double score, const char *fmt, ...) __attribute__((format(printf, 10, 11)));

static uint32_t add_rel(ctx *c, pd_diff_relation_kind kind, const uint32_t *bs, uint32_t nb,
			const uint32_t *ns, uint32_t nn, uint32_t bparent, uint32_t nparent,
			double score, const char *fmt, ...)
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
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->evidence, sizeof r->evidence, fmt, ap);
	va_end(ap);
	/* the callee side of inlined/outlined carries the relation; the
	 * caller is aligned already and keeps whatever it had */
	for (uint32_t i = 0; i < r->nb; i++)
		if (c->b->n[r->b[i]].rel == DT_NONE &&
		    !(kind == PD_REL_OUTLINED && r->b[i] == bparent))
			c->b->n[r->b[i]].rel = id;
	for (uint32_t i = 0; i < r->nn; i++)
		if (c->n->n[r->n[i]].rel == DT_NONE &&
		    !(kind == PD_REL_INLINED && r->n[i] == nparent))
			c->n->n[r->n[i]].rel = id;
	return id;
}

static const char *sym(const dt_tree *t, uint32_t i)
{
	const char *s = dt_node_sym(t, i);
	return s ? s : "[root]";
}

/* ------------------------------------------------------------ exact */

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
		pair(c, x, y);
		if ((c->o->flags & PD_DIFF_NO_ALIGN) || unresolved(B, x))
			continue;
		/* the same function, now (or no longer) an inline frame */
		uint32_t fb = B->n[x].flags & (DT_SEEN_INLINED | DT_SEEN_OUTLINE);
		uint32_t fn = N->n[y].flags & (DT_SEEN_INLINED | DT_SEEN_OUTLINE);
		if (fb != fn && (fb == DT_SEEN_INLINED || fn == DT_SEEN_INLINED) &&
		    (fb | fn) == (DT_SEEN_INLINED | DT_SEEN_OUTLINE) && pb != 0 &&
		    substantial(c, B, x)) {
			if (fn == DT_SEEN_INLINED)
				add_rel(c, PD_REL_INLINED, &x, 1, &pn, 1, pb, pn, 1.0,
					"now an inline frame of %s", sym(N, pn));
			else
				add_rel(c, PD_REL_OUTLINED, &pb, 1, &y, 1, pb, pn, 1.0,
					"no longer an inline frame of %s", sym(B, pb));
		}
	}
}

/* ------------------------------------------------------------ inline */

/*
 * X, a child of `pf` in tree F only, vanished into `pt` (pf's partner in
 * tree T): every callee of X is a child of pt, and pt's self grew by X's
 * self.  Inlined when F is the base, outlined when F is the new tree.
 */
static void align_inline(ctx *c, bool from_base, uint32_t pf, uint32_t pt,
			 const uint32_t *cand, size_t ncand)
{
	dt_tree *F = from_base ? c->b : c->n, *T = from_base ? c->n : c->b;
	uint32_t ok[DT_REL_MAX];
	uint32_t nok = 0;
	for (size_t i = 0; i < ncand && nok < DT_REL_MAX; i++) {
		uint32_t x = cand[i];
		if (F->n[x].partner != DT_NONE || F->n[x].rel != DT_NONE || unresolved(F, x) ||
		    !substantial(c, F, x))
			continue;
		bool all = true;
		for (uint32_t k = 0; k < F->n[x].nkids && all; k++) {
			uint32_t y = dt_kid(F, x, k);
			all = !shaping(c, F, x, y) || dt_tree_find(T, pt, F->n[y].key) != DT_NONE;
		}
		if (all)
			ok[nok++] = x;
	}
	if (nok == 0)
		return;
	double grew = self(T, pt) - self(F, pf);
	double noise = hypot(dt_share_noise(T, self(T, pt)), dt_share_noise(F, self(F, pf)));
	/* a self within the noise of the caller's self "moves" trivially:
	 * then only callees of weight are evidence */
	uint32_t m = 0;
	for (uint32_t i = 0; i < nok; i++) {
		double a = self(F, ok[i]);
		if (costly_kids(c, F, ok[i]) > 0 ||
		    a > DT_NOISE_SIGMAS * hypot(noise, dt_share_noise(F, a)))
			ok[m++] = ok[i];
	}
	nok = m;
	if (nok == 0)
		return;
	/* all candidates together, else the one that fits best alone */
	double sum = 0, nsum = 0;
	for (uint32_t i = 0; i < nok; i++) {
		sum += self(F, ok[i]);
		nsum += dt_share_noise(F, self(F, ok[i]));
	}
	uint32_t take = 0;
	if (conserved(c, sum, grew, hypot(noise, nsum))) {
		take = nok;
	} else {
		double best = -1;
		for (uint32_t i = 0; i < nok; i++) {
			double a = self(F, ok[i]);
			if (!conserved(c, a, grew, hypot(noise, dt_share_noise(F, a))))
				continue;
			double s = cost_sim(a, grew);
			if (s > best) {
				best = s;
				ok[0] = ok[i];
				take = 1;
			}
		}
		sum = take ? self(F, ok[0]) : 0;
	}
	for (uint32_t i = 0; i < take; i++) {
		uint32_t x = ok[i];
		double score = cost_sim(sum, grew);
		if (from_base)
			add_rel(c, PD_REL_INLINED, &x, 1, &pt, 1, pf, pt, score,
				"callees %u/%u now under %s, its self %+.2f vs %.2f of %s",
				costly_kids(c, F, x), costly_kids(c, F, x), sym(T, pt), grew, self(F, x),
				sym(F, x));
		else
			add_rel(c, PD_REL_OUTLINED, &pt, 1, &x, 1, pt, pf, score,
				"callees %u/%u were under %s, its self %+.2f vs %.2f of %s",
				costly_kids(c, F, x), costly_kids(c, F, x), sym(T, pt), -grew, self(F, x),
				sym(F, x));
		/* X's callees are the caller's callees on the other side */
		for (uint32_t k = 0; k < F->n[x].nkids; k++) {
			uint32_t y = dt_kid(F, x, k);
			uint32_t z = dt_tree_find(T, pt, F->n[y].key);
			if (z == DT_NONE || T->n[z].partner != DT_NONE || F->n[y].partner != DT_NONE)
				continue;
			if (from_base)
				pair(c, y, z);
			else
				pair(c, z, y);
		}
	}
}

/* ------------------------------------------------------------ stems */

static int by_incl_desc(const dt_tree *t, uint32_t a, uint32_t b)
{
	double x = incl(t, a), y = incl(t, b);
	return x > y ? -1 : x < y ? 1 : (a > b) - (a < b);
}

static void sort_by_incl(const dt_tree *t, uint32_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && by_incl_desc(t, v[j - 1], v[j]) > 0; j--) {
			uint32_t s = v[j];
			v[j] = v[j - 1];
			v[j - 1] = s;
		}
}

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

static void align_stems(ctx *c, uint32_t pb, uint32_t pn, const uint32_t *u, size_t nu,
			bool u_is_base)
{
	dt_tree *B = c->b, *N = c->n;
	for (size_t i = 0; i < nu; i++) {
		const dt_tree *U = u_is_base ? B : N;
		uint32_t x = u[i];
		if (U->n[x].partner != DT_NONE || U->n[x].rel != DT_NONE || unresolved(U, x))
			continue;
		const dt_key *k = dt_node_key(U, x);
		uint32_t sb[DT_REL_MAX], sn[DT_REL_MAX];
		uint32_t nb = stem_group(c, B, pb, k->stem, U->n[x].key, sb);
		uint32_t nn = stem_group(c, N, pn, k->stem, U->n[x].key, sn);
		if (nb == 0 || nn == 0 || (nb == nn && nb > 1))
			continue;
		bool fresh = true;
		double cb = 0, cn = 0, nzb = 0, nzn = 0;
		for (uint32_t j = 0; j < nb; j++) {
			fresh &= B->n[sb[j]].rel == DT_NONE;
			cb += incl(B, sb[j]);
		}
		for (uint32_t j = 0; j < nn; j++) {
			fresh &= N->n[sn[j]].rel == DT_NONE;
			cn += incl(N, sn[j]);
		}
		nzb = dt_share_noise(B, cb);
		nzn = dt_share_noise(N, cn);
		if (!fresh || !substantial(c, U, x) || !conserved(c, cb, cn, hypot(nzb, nzn)))
			continue;
		sort_by_incl(B, sb, nb);
		sort_by_incl(N, sn, nn);
		pd_diff_relation_kind kind = nn > nb   ? PD_REL_SPLIT
					     : nb > nn ? PD_REL_MERGED
						       : PD_REL_RENAMED;
		add_rel(c, kind, sb, nb, sn, nn, pb, pn, cost_sim(cb, cn),
			"same name but clone suffixes, %u vs %u part%s, cost %.2f vs %.2f", nb, nn,
			nb + nn > 2 ? "s" : "", cb, cn);
		/* pair what is still unpaired, biggest with biggest, so that
		 * the subtrees below align */
		uint32_t ib = 0, in = 0;
		for (;;) {
			while (ib < nb && B->n[sb[ib]].partner != DT_NONE)
				ib++;
			while (in < nn && N->n[sn[in]].partner != DT_NONE)
				in++;
			if (ib == nb || in == nn)
				break;
			pair(c, sb[ib++], sn[in++]);
		}
	}
}

/* ------------------------------------------------------------ rename */

typedef struct rcand {
	uint32_t i, j;   /* indices into the base and new lists */
	double s;
} rcand;

static int rcand_cmp(const void *a, const void *b)
{
	const rcand *x = a, *y = b;
	if (x->s != y->s)
		return x->s > y->s ? -1 : 1;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* Costly callees of x (base) that y (new) calls too. */
static uint32_t common_callees(const ctx *c, uint32_t x, uint32_t y)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < c->b->n[x].nkids; k++) {
		uint32_t v = dt_kid(c->b, x, k);
		n += shaping(c, c->b, x, v) && dt_tree_find(c->n, y, c->b->n[v].key) != DT_NONE;
	}
	return n;
}

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

static double rename_score(const ctx *c, uint32_t x, uint32_t y, double *name_out,
			   uint32_t *common_out)
{
	uint32_t kx = costly_kids(c, c->b, x), ky = costly_kids(c, c->n, y);
	double name = dt_name_similarity(dt_node_sym(c->b, x), dt_node_sym(c->n, y));
	double cost = cost_sim(incl(c->b, x), incl(c->n, y));
	int unit = same_unit(c, x, y);
	double file = unit < 0 ? 0 : unit ? DT_UNIT_WEIGHT : -DT_UNIT_WEIGHT;
	*name_out = name;
	*common_out = 0;
	/* two leaves: no callee evidence either way, so cost and name decide */
	if (kx + ky == 0)
		return fmin(1.0, 0.55 * cost + 0.45 * name + file);
	uint32_t common = common_callees(c, x, y);
	*common_out = common;
	double dice = fmin(1.0, 2.0 * common / (double)(kx + ky));
	return fmin(1.0, 0.45 * dice + 0.30 * cost + 0.25 * name + file);
}

/* Keep the `cap` biggest of v (unmatched, relation-free, resolved, big enough). */
static uint32_t rename_pool(const ctx *c, const dt_tree *t, uint32_t *v, uint32_t n)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = v[i];
		if (t->n[x].partner == DT_NONE && t->n[x].rel == DT_NONE && !unresolved(t, x) &&
		    substantial(c, t, x))
			v[m++] = x;
	}
	if (m > DT_RENAME_CAP) {
		sort_by_incl(t, v, m);
		m = DT_RENAME_CAP;
	}
	return m;
}

static void align_renames(ctx *c, uint32_t pb, uint32_t pn, uint32_t *ub, uint32_t nb,
			  uint32_t *un, uint32_t nn)
{
	nb = rename_pool(c, c->b, ub, nb);
	nn = rename_pool(c, c->n, un, nn);
	if (nb == 0 || nn == 0)
		return;
	double *sc = malloc((size_t)nb * nn * sizeof *sc);
	rcand *cand = malloc((size_t)nb * nn * sizeof *cand);
	bool *db = calloc(nb, 1), *dn = calloc(nn, 1);
	if (!sc || !cand || !db || !dn) {
		c->err = PD_ENOMEM;
		goto out;
	}
	size_t ncand = 0;
	for (uint32_t i = 0; i < nb; i++)
		for (uint32_t j = 0; j < nn; j++) {
			double name;
			uint32_t common;
			double s = -1;
			if (dt_key_same_dso(c->b->keys, c->b->n[ub[i]].key, c->n->n[un[j]].key))
				s = rename_score(c, ub[i], un[j], &name, &common);
			sc[(size_t)i * nn + j] = s;
			if (s >= c->o->rename_score)
				cand[ncand++] = (rcand){ i, j, s };
		}
	qsort(cand, ncand, sizeof *cand, rcand_cmp);
	for (size_t k = 0; k < ncand; k++) {
		uint32_t i = cand[k].i, j = cand[k].j;
		if (db[i] || dn[j])
			continue;
		/* a runner-up this close means the evidence cannot tell: no pair */
		double rival = -1;
		for (uint32_t jj = 0; jj < nn; jj++)
			if (jj != j && !dn[jj] && sc[(size_t)i * nn + jj] > rival)
				rival = sc[(size_t)i * nn + jj];
		for (uint32_t ii = 0; ii < nb; ii++)
			if (ii != i && !db[ii] && sc[(size_t)ii * nn + j] > rival)
				rival = sc[(size_t)ii * nn + j];
		if (cand[k].s - rival < DT_AMBIGUITY_MARGIN)
			continue;
		db[i] = dn[j] = true;
		uint32_t x = ub[i], y = un[j];
		double name;
		uint32_t common;
		double s = rename_score(c, x, y, &name, &common);
		uint32_t kx = costly_kids(c, c->b, x);
		int unit = same_unit(c, x, y);
		add_rel(c, PD_REL_RENAMED, &x, 1, &y, 1, pb, pn, s,
			"same callees %u/%u, cost %.2f vs %.2f, name %.2f%s%s", common, kx,
			incl(c->b, x), incl(c->n, y), name,
			unit < 0 ? "" : unit ? ", same file " : ", other files",
			unit > 0 ? dt_basename(dt_tree_unit(c->b, c->b->n[x].key)) : "");
		pair(c, x, y);
	}
out:
	free(sc);
	free(cand);
	free(db);
	free(dn);
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
	/* the root has no self to absorb anything; an "[unknown]" caller's
	 * self is many functions': its growth shows nothing */
	if (pb != 0 && !unresolved(c->b, pb) && !unresolved(c->n, pn)) {
		align_inline(c, true, pb, pn, s->ub, nb);
		align_inline(c, false, pn, pb, s->un, nn);
	}
	align_stems(c, pb, pn, s->ub, nb, true);
	align_stems(c, pb, pn, s->un, nn, false);
	align_renames(c, pb, pn, s->ub, nb, s->un, nn);
}

static void drain(ctx *c, scratch *s)
{
	while (c->qhead < c->qn && !c->err) {
		uint32_t x = c->q[c->qhead++];
		uint32_t y = c->q[c->qhead++];
		align_children(c, s, x, y);
	}
}

/* ------------------------------------------------------------ moved */

/* Distinct keys below x (x excluded), stamped in c->mark; count returned.
 * Subtrees bigger than `limit` nodes are cut off: the Dice is then an
 * estimate over their upper part. */
static uint32_t stamp_desc(ctx *c, const dt_tree *t, uint32_t x, uint32_t stamp,
			   uint32_t *common, uint32_t **stack, size_t *cap)
{
	enum { LIMIT = 4096 };
	uint32_t distinct = 0, seen = 0;
	size_t n = 0;
	if (*cap == 0) {
		*stack = malloc(64 * sizeof **stack);
		if (!*stack) {
			c->err = PD_ENOMEM;
			return 0;
		}
		*cap = 64;
	}
	(*stack)[n++] = x;
	while (n > 0 && seen < LIMIT) {
		uint32_t v = (*stack)[--n];
		for (uint32_t k = 0; k < t->n[v].nkids; k++) {
			uint32_t y = dt_kid(t, v, k);
			uint32_t key = t->n[y].key;
			if (!shaping(c, t, x, y))
				continue;
			seen++;
			if (common) {
				/* second subtree: count keys stamped by the first */
				if (c->mark[key] == stamp) {
					(*common)++;
					c->mark[key] = stamp + 1;
				} else if (c->mark[key] != stamp + 1 && c->mark[key] != stamp + 2) {
					distinct++;
					c->mark[key] = stamp + 2;
				}
			} else if (c->mark[key] != stamp) {
				c->mark[key] = stamp;
				distinct++;
			}
			if (n == *cap) {
				uint32_t *ns = realloc(*stack, *cap * 2 * sizeof *ns);
				if (!ns) {
					c->err = PD_ENOMEM;
					return distinct;
				}
				*stack = ns;
				*cap *= 2;
			}
			(*stack)[n++] = y;
		}
	}
	return distinct;
}

static double desc_dice(ctx *c, uint32_t x, uint32_t y, uint32_t **stack, size_t *cap)
{
	const dt_node *a = &c->b->n[x], *b = &c->n->n[y];
	if (a->merkle == b->merkle)
		return 1;
	if (c->stamp > UINT32_MAX - 8) {
		memset(c->mark, 0, c->b->keys->n * sizeof *c->mark);
		c->stamp = 0;
	}
	uint32_t st = c->stamp + 1;
	c->stamp += 3;
	uint32_t na = stamp_desc(c, c->b, x, st, NULL, stack, cap);
	uint32_t common = 0;
	uint32_t only_b = stamp_desc(c, c->n, y, st, &common, stack, cap);
	uint32_t nbk = common + only_b;
	return na + nbk ? 2.0 * common / (double)(na + nbk) : 1;
}

/* Unmatched, relation-free subtree roots under an aligned parent. */
static size_t move_roots(const ctx *c, const dt_tree *t, uint32_t *out)
{
	size_t m = 0;
	for (uint32_t i = 1; i < t->nn; i++) {
		const dt_node *n = &t->n[i];
		/* under "[unknown]" the caller is not known: no move from or to it */
		if (n->partner == DT_NONE && n->rel == DT_NONE && t->n[n->parent].partner != DT_NONE &&
		    !unresolved(t, i) && (n->parent == 0 || !unresolved(t, n->parent)) &&
		    substantial(c, t, i))
			out[m++] = i;
	}
	return m;
}

typedef struct mcand {
	uint32_t x, y;
	double s, dice;
} mcand;

static int mcand_cmp(const void *a, const void *b)
{
	const mcand *p = a, *q = b;
	if (p->s != q->s)
		return p->s > q->s ? -1 : 1;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->y > q->y) - (p->y < q->y);
}

static void align_moves(ctx *c)
{
	dt_tree *B = c->b, *N = c->n;
	uint32_t *rb = malloc((size_t)B->nn * sizeof *rb);
	uint32_t *rn = malloc((size_t)N->nn * sizeof *rn);
	uint32_t *head = NULL, *next = NULL, *stack = NULL;
	mcand *cand = NULL;
	size_t ncand = 0, cap_cand = 0, cap_stack = 0;
	if (!rb || !rn) {
		c->err = PD_ENOMEM;
		goto out;
	}
	size_t nb = move_roots(c, B, rb), nn = move_roots(c, N, rn);
	if (nb == 0 || nn == 0)
		goto out;
	/* new roots by key */
	uint32_t nkeys = B->keys->n;
	head = malloc((size_t)nkeys * sizeof *head);
	next = malloc(nn * sizeof *next);
	if (!head || !next) {
		c->err = PD_ENOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < nkeys; k++)
		head[k] = DT_NONE;
	for (size_t j = nn; j > 0; j--) {
		uint32_t key = N->n[rn[j - 1]].key;
		next[j - 1] = head[key];
		head[key] = (uint32_t)(j - 1);
	}
	for (size_t i = 0; i < nb && !c->err; i++) {
		uint32_t x = rb[i];
		for (uint32_t j = head[B->n[x].key]; j != DT_NONE; j = next[j]) {
			uint32_t y = rn[j];
			double cs = cost_sim(incl(B, x), incl(N, y));
			if (cs < 1 - c->tol)
				continue;
			double dice = desc_dice(c, x, y, &stack, &cap_stack);
			if (dice < DT_MOVE_DICE)
				continue;
			if (ncand == cap_cand) {
				size_t cap = cap_cand ? cap_cand * 2 : 64;
				mcand *v = realloc(cand, cap * sizeof *v);
				if (!v) {
					c->err = PD_ENOMEM;
					goto out;
				}
				cand = v;
				cap_cand = cap;
			}
			cand[ncand++] = (mcand){ x, y, 0.5 * dice + 0.5 * cs, dice };
		}
	}
	if (ncand > 1)
		qsort(cand, ncand, sizeof *cand, mcand_cmp);
	for (size_t k = 0; k < ncand && !c->err; k++) {
		mcand *m = &cand[k];
		if (B->n[m->x].partner != DT_NONE || N->n[m->y].partner != DT_NONE)
			continue;
		double rival = -1;
		for (size_t l = 0; l < ncand; l++) {
			if (l == k || (cand[l].x != m->x && cand[l].y != m->y))
				continue;
			if (B->n[cand[l].x].partner != DT_NONE || N->n[cand[l].y].partner != DT_NONE)
				continue;
			if (cand[l].s > rival)
				rival = cand[l].s;
		}
		if (m->s - rival < DT_AMBIGUITY_MARGIN)
			continue;
		uint32_t pb = B->n[m->x].parent, pn = N->n[m->y].parent;
		add_rel(c, PD_REL_MOVED, &m->x, 1, &m->y, 1, pb, pn, m->s,
			"same subtree (%u vs %u nodes, descendants %.2f), cost %.2f vs %.2f, "
			"under %s instead of %s",
			B->n[m->x].size, N->n[m->y].size, m->dice, incl(B, m->x), incl(N, m->y),
			sym(N, pn), sym(B, pb));
		pair(c, m->x, m->y);
	}
out:
	free(rb);
	free(rn);
	free(head);
	free(next);
	free(stack);
	free(cand);
}

int dt_align_run(dt_align *al, dt_tree *b, dt_tree *n, const pd_diff_options *o)
{
	ctx c;
	memset(&c, 0, sizeof c);
	c.al = al;
	c.b = b;
	c.n = n;
	c.o = o;
	c.tol = o->cost_tolerance;
	c.min_pts = dt_min_pts(o);
	c.mark = calloc(b->keys->n ? b->keys->n : 1, sizeof *c.mark);
	if (!c.mark)
		return PD_ENOMEM;
	scratch s;
	memset(&s, 0, sizeof s);
	pair(&c, 0, 0);
	drain(&c, &s);
	if (!(o->flags & PD_DIFF_NO_ALIGN) && !c.err) {
		align_moves(&c);
		drain(&c, &s);
	}
	free(s.ub);
	free(s.un);
	free(c.q);
	free(c.mark);
	return c.err;
}

void dt_align_free(dt_align *al)
{
	free(al->rels);
	memset(al, 0, sizeof *al);
}
