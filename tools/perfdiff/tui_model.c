/*
 * The tree model of `perfdiff tui` (tui_model.h): children lists built
 * once, the visible rows spliced in place as nodes open and close, and
 * search in preorder.  No curses here: tests drive it directly.
 */
#include "tui_model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct weighed {
	double w;
	size_t i;
} weighed;

/* Hottest first; ties by index, so the order is the same on every run. */
static int by_weight(const void *a, const void *b)
{
	const weighed *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* kids[] and first[]: each node's children, sorted by weight. */
static int build_kids(tui_tree *t, const double *weight)
{
	size_t n = t->n;
	weighed *tmp = malloc(n * sizeof *tmp);
	size_t *fill = calloc(n + 1, sizeof *fill);
	if (!tmp || !fill) {
		free(tmp);
		free(fill);
		return -1;
	}
	for (size_t i = 1; i < n; i++)
		t->first[t->parent[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		t->first[i + 1] += t->first[i];
	for (size_t i = 1; i < n; i++) {
		size_t p = t->parent[i];
		tmp[t->first[p] + fill[p]++] = (weighed){ weight ? weight[i] : 0, i };
	}
	for (size_t p = 0; p < n; p++)
		qsort(tmp + t->first[p], t->first[p + 1] - t->first[p], sizeof *tmp, by_weight);
	for (size_t k = 0; k + 1 < n; k++)
		t->kids[k] = tmp[k].i;
	free(tmp);
	free(fill);
	return 0;
}

/* pre[], pre_at[] and depth[]: one walk, a stack of nodes to visit. */
static int build_order(tui_tree *t)
{
	size_t *stack = malloc(t->n * sizeof *stack), top = 0, k = 0;
	if (!stack)
		return -1;
	stack[top++] = 0;
	while (top) {
		size_t v = stack[--top];
		t->pre_at[v] = k;
		t->pre[k++] = v;
		if (v)
			t->depth[v] = t->parent[v] == 0 ? 0 : t->depth[t->parent[v]] + 1;
		/* pushed last first, so that the hottest comes out first */
		for (size_t c = t->first[v + 1]; c > t->first[v]; c--)
			stack[top++] = t->kids[c - 1];
	}
	free(stack);
	return 0;
}

int tui_tree_init(tui_tree *t, size_t n, const size_t *parent, const double *weight)
{
	memset(t, 0, sizeof *t);
	if (n == 0 || parent[0] != SIZE_MAX)
		return -1;
	for (size_t i = 1; i < n; i++)
		if (parent[i] >= i)
			return -1;
	t->n = n;
	t->parent = malloc(n * sizeof *t->parent);
	t->first = calloc(n + 1, sizeof *t->first);
	t->kids = malloc(n * sizeof *t->kids);
	t->depth = calloc(n, sizeof *t->depth);
	t->pre = malloc(n * sizeof *t->pre);
	t->pre_at = malloc(n * sizeof *t->pre_at);
	t->open = calloc(n, sizeof *t->open);
	t->rows = malloc(n * sizeof *t->rows);
	if (!t->parent || !t->first || !t->kids || !t->depth || !t->pre || !t->pre_at ||
	    !t->open || !t->rows)
		goto fail;
	memcpy(t->parent, parent, n * sizeof *parent);
	if (build_kids(t, weight) < 0 || build_order(t) < 0)
		goto fail;
	t->open[0] = true;
	for (size_t k = t->first[0]; k < t->first[1]; k++)
		t->rows[t->nrows++] = t->kids[k];
	return 0;
fail:
	tui_tree_free(t);
	return -1;
}

void tui_tree_free(tui_tree *t)
{
	free(t->parent);
	free(t->first);
	free(t->kids);
	free(t->depth);
	free(t->pre);
	free(t->pre_at);
	free(t->open);
	free(t->rows);
	memset(t, 0, sizeof *t);
}

/* The shown descendants of open node `node` into out[], in row order;
 * their number.  `stack` has room for n nodes. */
static size_t shown_below(const tui_tree *t, size_t node, size_t *out, size_t *stack)
{
	size_t top = 0, k = 0;
	for (size_t c = t->first[node + 1]; c > t->first[node]; c--)
		stack[top++] = t->kids[c - 1];
	while (top) {
		size_t v = stack[--top];
		out[k++] = v;
		if (t->open[v])
			for (size_t c = t->first[v + 1]; c > t->first[v]; c--)
				stack[top++] = t->kids[c - 1];
	}
	return k;
}

bool tui_tree_expand(tui_tree *t, size_t row)
{
	if (row >= t->nrows)
		return false;
	size_t node = t->rows[row];
	if (t->open[node] || tui_tree_nkids(t, node) == 0)
		return false;
	size_t *buf = malloc(2 * t->n * sizeof *buf);
	if (!buf)
		return false;
	t->open[node] = true;
	size_t k = shown_below(t, node, buf, buf + t->n);
	memmove(t->rows + row + 1 + k, t->rows + row + 1, (t->nrows - row - 1) * sizeof *t->rows);
	memcpy(t->rows + row + 1, buf, k * sizeof *buf);
	t->nrows += k;
	free(buf);
	return true;
}

bool tui_tree_collapse(tui_tree *t, size_t row)
{
	if (row >= t->nrows)
		return false;
	size_t node = t->rows[row];
	if (!t->open[node] || tui_tree_nkids(t, node) == 0)
		return false;
	t->open[node] = false;
	size_t end = row + 1;
	while (end < t->nrows && t->depth[t->rows[end]] > t->depth[node])
		end++;
	memmove(t->rows + row + 1, t->rows + end, (t->nrows - end) * sizeof *t->rows);
	t->nrows -= end - row - 1;
	return true;
}

size_t tui_tree_parent_row(const tui_tree *t, size_t row)
{
	if (row >= t->nrows || t->depth[t->rows[row]] == 0)
		return row;
	unsigned d = t->depth[t->rows[row]];
	while (row > 0 && t->depth[t->rows[row]] >= d)
		row--;
	return row;
}

/* The row of `node`, which is shown; SIZE_MAX if it is not. */
static size_t row_of(const tui_tree *t, size_t node)
{
	for (size_t r = 0; r < t->nrows; r++)
		if (t->rows[r] == node)
			return r;
	return SIZE_MAX;
}

size_t tui_tree_reveal(tui_tree *t, size_t node)
{
	if (node == 0 || node >= t->n)
		return SIZE_MAX;
	/* the ancestors below the root, outermost first: each is shown once
	 * the one above it is open */
	size_t depth = t->depth[node], chain_top = depth;
	size_t *chain = malloc((depth + 1) * sizeof *chain);
	if (!chain)
		return row_of(t, node);
	for (size_t v = t->parent[node]; v != 0; v = t->parent[v])
		chain[--chain_top] = v;
	for (size_t k = 0; k < depth; k++)
		if (!t->open[chain[k]])
			tui_tree_expand(t, row_of(t, chain[k]));
	free(chain);
	return row_of(t, node);
}

size_t tui_tree_find(const tui_tree *t, size_t from, tui_match_fn match, void *ctx)
{
	if (from >= t->n)
		from = 0;
	size_t at = t->pre_at[from];
	for (size_t k = 1; k <= t->n; k++) {
		size_t v = t->pre[(at + k) % t->n];
		if (v != 0 && match(ctx, v))
			return v;
	}
	return SIZE_MAX;
}
