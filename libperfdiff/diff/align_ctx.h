/*
 * What the alignment passes share (align.c drives them; align_inline.c,
 * align_rename.c and align_move.c find relations; evidence.c weighs
 * them): the pair of trees, the queue of aligned pairs whose children are
 * still to align, and the measures every pass compares costs with.
 *
 * Costs are compared on scales that other load does not move.  A share
 * of the whole profile changes when idle time or another process comes
 * and goes, so two builds recorded on a busy machine never agree on it;
 * a node's share of its aligned caller's inclusive cost does not change
 * with them.  So a node is compared with its counterpart as a share of
 * its caller (rel_cost), nodes under two different callers as shares of
 * the side's time outside the idle loop (busy_cost), and a callee's cost
 * that reappears in its caller as a share of that caller.
 */
#ifndef PD_DIFF_ALIGN_CTX_H
#define PD_DIFF_ALIGN_CTX_H

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "internal.h"

typedef struct ctx {
	dt_align *al;
	dt_tree *b, *n;
	const pd_diff_options *o;
	const dt_facts *facts;
	double tol, min_pts;
	uint32_t *q;          /* pending pairs, base and new id in turn */
	size_t qn, qcap, qhead;
	uint32_t *mark;       /* per key: stamp, for descendant sets */
	uint32_t stamp;
	double *ktotal[2];    /* per side and key: summed inclusive cost of its nodes */
	uint8_t *renamed;     /* per key: taking part in a rename already */
	int err;
} ctx;

static inline dt_tree *side_tree(const ctx *c, int side)
{
	return side ? c->n : c->b;
}

static inline double incl(const dt_tree *t, uint32_t i) { return t->mean_incl[i]; }
static inline double self(const dt_tree *t, uint32_t i) { return t->mean_self[i]; }

static inline bool unresolved(const dt_tree *t, uint32_t i)
{
	const dt_key *k = dt_node_key(t, i);
	return !k || k->unresolved;
}

static inline const char *sym(const dt_tree *t, uint32_t i)
{
	const char *s = dt_node_sym(t, i);
	return s ? s : "[root]";
}

/* The side's time outside the idle loop, in points (never below 1). */
static inline double busy(const dt_tree *t)
{
	return fmax(1.0, 100.0 - t->idle);
}

/* A node's cost as a share of the side's busy time (0..1). */
static inline double busy_cost(const dt_tree *t, uint32_t i)
{
	return incl(t, i) / busy(t);
}

/* Share (0..1) of `v` in the inclusive cost of `of`, or of the busy time
 * when `of` is the root. */
static inline double share_of(const dt_tree *t, double v, uint32_t of)
{
	double base = of == 0 ? busy(t) : incl(t, of);
	return base > 0 ? v / base : 0;
}

/* Share of `v` in the inclusive cost of the caller of `at` (the busy
 * time at the top). */
static inline double up_share(const dt_tree *t, double v, uint32_t at)
{
	return share_of(t, v, at ? t->n[at].parent : 0);
}

/* A node's inclusive cost as a share of its caller's (0..1). */
static inline double rel_cost(const dt_tree *t, uint32_t i)
{
	return share_of(t, incl(t, i), t->n[i].parent);
}

static inline double cost_sim(double a, double b)
{
	double m = fmax(fabs(a), fabs(b));
	return m > 0 ? 1 - fabs(a - b) / m : 1;
}

/* Cost beyond noise: worth explaining. */
static inline bool substantial(const ctx *c, const dt_tree *t, uint32_t i)
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
static inline bool shaping(const ctx *c, const dt_tree *t, uint32_t top, uint32_t v)
{
	return substantial(c, t, v) && incl(t, v) >= DT_SHAPE_FRACTION * incl(t, top);
}

/* Callees of v that are evidence. */
static inline uint32_t costly_kids(const ctx *c, const dt_tree *t, uint32_t v)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < t->n[v].nkids; k++)
		n += shaping(c, t, v, dt_kid(t, v, k));
	return n;
}

/* Two costs that should be equal if cost moved from one place to the
 * other: equal within the relative tolerance plus `sigmas` of their
 * noise `noise` (same unit as a and b). */
static inline bool conserved(const ctx *c, double a, double b, double noise)
{
	double m = fmax(fabs(a), fabs(b));
	return fabs(a - b) <= c->tol * m + DT_NOISE_SIGMAS * noise;
}

/* Is PLT stub: named after the function it jumps to, so never paired by
 * evidence of its own. */
static inline bool plt_stub(const dt_tree *t, uint32_t i)
{
	const char *s = dt_node_sym(t, i);
	size_t n = s ? strlen(s) : 0;
	return n > 4 && strcmp(s + n - 4, "@plt") == 0;
}

/* align.c */
void align_pair(ctx *c, uint32_t x, uint32_t y);
uint32_t align_add_rel(ctx *c, pd_diff_relation_kind kind, const uint32_t *bs, uint32_t nb,
		       const uint32_t *ns, uint32_t nn, uint32_t bparent, uint32_t nparent,
		       double score, const char *evidence);
void sort_by_incl(const dt_tree *t, uint32_t *v, uint32_t n);

/* align_inline.c: the callee candidates `cand` of aligned callers pf (in
 * the base when from_base) and pt. */
void align_inline(ctx *c, bool from_base, uint32_t pf, uint32_t pt, const uint32_t *cand,
		  size_t ncand);
/* The same where the chains skip the caller: a callee of `pf` gone into
 * a callee of pt (align_inline.c). */
void align_inline_skipped(ctx *c, bool from_base, uint32_t pf, uint32_t pt,
			  const uint32_t *cand, size_t ncand);

/* Functions gone from the whole other tree, their nodes under each
 * surviving caller function weighed together: inlined (outlined when
 * from_base is false) where the build's DWARF or symbol tables say so
 * (align_gone.c).  After the per-caller passes. */
void align_gone(ctx *c, bool from_base);

/* align_rename.c */
void align_stems(ctx *c, uint32_t pb, uint32_t pn, const uint32_t *u, size_t nu,
		 bool u_is_base);
void align_renames(ctx *c, uint32_t pb, uint32_t pn, uint32_t *ub, uint32_t nb, uint32_t *un,
		   uint32_t nn);
/* A callee of one side gone while a sibling that the other side had at
 * almost nothing grew by its cost: renamed to that name (align_regrown.c).
 * `from_base`: the one gone is the base's. */
void align_regrown(ctx *c, uint32_t pb, uint32_t pn, bool from_base);

/* align_move.c */
void align_moves(ctx *c);

/* evidence.c */
int evidence_init(ctx *c);
void evidence_free(ctx *c);
/* pd_symbol_fact of whether side `side`'s build of node i's dso defines
 * the function `name` (i a node of side `of`, whose key names the dso). */
int fact_defined(const ctx *c, int side, const dt_tree *of, uint32_t i, const char *name);
/* pd_symbol_fact of whether side `side`'s DWARF has `callee` inlined into
 * `caller` (nodes of that side's tree: callee's dso is caller's). */
int fact_inlined(const ctx *c, int side, uint32_t caller, const char *callee);
/* Weighted share of x's costly callees (base) that y (new) calls too:
 * a callee that hangs under many nodes (system-call entry, memcpy) counts
 * little.  *common gets the plain count. */
double callee_evidence(ctx *c, uint32_t x, uint32_t y, uint32_t *common);
/* How far the subtrees of x (base) and y (new) agree below their first
 * level: 1 when they need not (shallow), else the share of their deep
 * self cost found at the same places. */
double deep_agreement(ctx *c, uint32_t x, uint32_t y, bool *deep);

/* evidence text: appends to a fixed buffer, never overflowing */
typedef struct evbuf {
	char s[DT_EVIDENCE_MAX];
	size_t n;
} evbuf;
void ev_add(evbuf *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
