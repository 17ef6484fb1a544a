/*
 * Moves (diff-landscape.md §5.2 step 6): a subtree left unpaired under
 * an aligned caller on one side that reappears, the same function with
 * mostly the same descendants, under another aligned caller on the other
 * side.  Flat views do not see a move; calltraces do.
 *
 * The two callers differ, so costs compare as shares of each side's time
 * outside the idle loop, which other load and idle time move less than
 * shares of the whole profile.
 */
#include <stdio.h>
#include <stdlib.h>

#include "align_ctx.h"

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
		    !plt_stub(t, i) && substantial(c, t, i))
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

typedef struct mscratch {
	uint32_t *rb, *rn, *head, *next, *stack;
	mcand *cand;
	size_t ncand, cap_cand, cap_stack;
} mscratch;

static void mscratch_free(mscratch *m)
{
	free(m->rb);
	free(m->rn);
	free(m->head);
	free(m->next);
	free(m->stack);
	free(m->cand);
}

static int add_cand(mscratch *m, mcand v)
{
	if (m->ncand == m->cap_cand) {
		size_t cap = m->cap_cand ? m->cap_cand * 2 : 64;
		mcand *nv = realloc(m->cand, cap * sizeof *nv);
		if (!nv)
			return PD_ENOMEM;
		m->cand = nv;
		m->cap_cand = cap;
	}
	m->cand[m->ncand++] = v;
	return 0;
}

/* Candidate pairs: same key, similar busy-time cost, similar descendants. */
static void collect_moves(ctx *c, mscratch *m, size_t nb, size_t nn)
{
	dt_tree *B = c->b, *N = c->n;
	for (uint32_t k = 0; k < B->keys->n; k++)
		m->head[k] = DT_NONE;
	for (size_t j = nn; j > 0; j--) {
		uint32_t key = N->n[m->rn[j - 1]].key;
		m->next[j - 1] = m->head[key];
		m->head[key] = (uint32_t)(j - 1);
	}
	for (size_t i = 0; i < nb && !c->err; i++) {
		uint32_t x = m->rb[i];
		for (uint32_t j = m->head[B->n[x].key]; j != DT_NONE; j = m->next[j]) {
			uint32_t y = m->rn[j];
			double cs = cost_sim(busy_cost(B, x), busy_cost(N, y));
			if (cs < 1 - c->tol)
				continue;
			double dice = desc_dice(c, x, y, &m->stack, &m->cap_stack);
			if (dice >= DT_MOVE_DICE && add_cand(m, (mcand){ x, y, 0.5 * dice + 0.5 * cs,
									  dice }) < 0)
				c->err = PD_ENOMEM;
		}
	}
}

/* The best score among other free candidates sharing x or y. */
static double move_rival(const ctx *c, const mscratch *m, size_t k)
{
	double r = -1;
	const mcand *a = &m->cand[k];
	for (size_t l = 0; l < m->ncand; l++) {
		const mcand *b = &m->cand[l];
		if (l == k || (b->x != a->x && b->y != a->y))
			continue;
		if (c->b->n[b->x].partner != DT_NONE || c->n->n[b->y].partner != DT_NONE)
			continue;
		if (b->s > r)
			r = b->s;
	}
	return r;
}

/* The flags of an inline frame only / a real call only. */
static bool only(const dt_tree *t, uint32_t i, uint32_t flag)
{
	return (t->n[i].flags & (DT_SEEN_INLINED | DT_SEEN_OUTLINE)) == flag;
}

/*
 * A "move" that inline frames explain: x, a real call under G in one
 * build, is an inline frame of P in the other, and P is a callee of G
 * there too.  Frame-pointer chains skipped P while its frameless callee
 * ran (align_inline.c); the inline frames show where x went.  Inlined
 * (or, the other way round, outlined) rather than moved.
 */
static bool inline_move(ctx *c, const mcand *m, uint32_t pb, uint32_t pn)
{
	dt_tree *B = c->b, *N = c->n;
	bool inl = only(B, m->x, DT_SEEN_OUTLINE) && only(N, m->y, DT_SEEN_INLINED) && pn &&
		   N->n[pn].partner != DT_NONE && B->n[N->n[pn].partner].parent == pb;
	bool outl = only(B, m->x, DT_SEEN_INLINED) && only(N, m->y, DT_SEEN_OUTLINE) && pb &&
		    B->n[pb].partner != DT_NONE && N->n[B->n[pb].partner].parent == pn;
	if (!inl && !outl)
		return false;
	char ev[DT_EVIDENCE_MAX];
	if (inl) {
		snprintf(ev, sizeof ev, "inline frames (DWARF): %s is now inlined into %s; the base "
			 "chains skip %s, the caller of the frameless %s", sym(B, m->x), sym(N, pn),
			 sym(N, pn), sym(B, m->x));
		align_add_rel(c, PD_REL_INLINED, &m->x, 1, &pn, 1, pb, pn, m->s, ev);
	} else {
		snprintf(ev, sizeof ev, "inline frames (DWARF): %s was inlined into %s; the new "
			 "chains skip %s, the caller of the frameless %s", sym(N, m->y), sym(B, pb),
			 sym(B, pb), sym(N, m->y));
		align_add_rel(c, PD_REL_OUTLINED, &pb, 1, &m->y, 1, pb, pn, m->s, ev);
	}
	align_pair(c, m->x, m->y);
	return true;
}

static void take_move(ctx *c, const mcand *m)
{
	dt_tree *B = c->b, *N = c->n;
	uint32_t pb = B->n[m->x].parent, pn = N->n[m->y].parent;
	if (inline_move(c, m, pb, pn))
		return;
	char ev[DT_EVIDENCE_MAX];
	snprintf(ev, sizeof ev,
		 "the same subtree (%u vs %u nodes, descendants %.2f alike), %.1f %% vs %.1f %% "
		 "of the busy time, under %s instead of %s",
		 B->n[m->x].size, N->n[m->y].size, m->dice, 100 * busy_cost(B, m->x),
		 100 * busy_cost(N, m->y), sym(N, pn), sym(B, pb));
	align_add_rel(c, PD_REL_MOVED, &m->x, 1, &m->y, 1, pb, pn, m->s, ev);
	align_pair(c, m->x, m->y);
}

void align_moves(ctx *c)
{
	dt_tree *B = c->b, *N = c->n;
	mscratch m;
	memset(&m, 0, sizeof m);
	m.rb = malloc((size_t)B->nn * sizeof *m.rb);
	m.rn = malloc((size_t)N->nn * sizeof *m.rn);
	m.head = malloc((size_t)(B->keys->n ? B->keys->n : 1) * sizeof *m.head);
	if (!m.rb || !m.rn || !m.head) {
		c->err = PD_ENOMEM;
		goto out;
	}
	size_t nb = move_roots(c, B, m.rb), nn = move_roots(c, N, m.rn);
	if (nb == 0 || nn == 0)
		goto out;
	if (!(m.next = malloc(nn * sizeof *m.next))) {
		c->err = PD_ENOMEM;
		goto out;
	}
	collect_moves(c, &m, nb, nn);
	if (m.ncand > 1)
		qsort(m.cand, m.ncand, sizeof *m.cand, mcand_cmp);
	for (size_t k = 0; k < m.ncand && !c->err; k++) {
		const mcand *a = &m.cand[k];
		if (B->n[a->x].partner != DT_NONE || N->n[a->y].partner != DT_NONE)
			continue;
		if (a->s - move_rival(c, &m, k) >= DT_AMBIGUITY_MARGIN)
			take_move(c, a);
	}
out:
	mscratch_free(&m);
}
