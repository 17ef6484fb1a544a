/*
 * The tree behind `perfdiff tui`, without drawing: a tree given as a
 * parent per node (the aligned tree of a diff, pd_diff_node_at()) turned
 * into the rows a screen shows — each open node's children under it,
 * hottest first — with the expand state and search.  Kept apart from the
 * curses code so that a test can drive it as the keys do.
 *
 * The visible rows are one array of node indices, changed in place:
 * opening a node inserts the rows of its subtree that are shown, closing
 * removes them, so a key costs the size of what it opens or closes and
 * never a pass over the whole tree (a system-wide tree has 200k nodes).
 * Search walks the tree in preorder from the selected node and opens the
 * ancestors of what it finds.
 */
#ifndef PERFDIFF_TUI_MODEL_H
#define PERFDIFF_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tui_tree {
	size_t n;            /* nodes; node 0 is the root, never a row */
	size_t *parent;      /* parent[0] = SIZE_MAX */
	size_t *first;       /* children of i: kids[first[i] .. first[i + 1]) */
	size_t *kids;        /* hottest first */
	unsigned *depth;     /* the root's children are at depth 0 */
	size_t *pre;         /* the nodes in preorder (children in kids' order) */
	size_t *pre_at;      /* where each node is in pre[] */
	bool *open;
	size_t *rows;        /* the visible rows, node indices */
	size_t nrows;
} tui_tree;

/*
 * Build the tree of `n` nodes from `parent` (parent[0] SIZE_MAX, every
 * other parent a smaller index: pd_diff_node_at()'s order), children
 * ordered by `weight` descending (ties by index).  Only the root's
 * children are rows.  0, or -1 when out of memory or `parent` is not of
 * that form (nothing to free then).
 */
int tui_tree_init(tui_tree *t, size_t n, const size_t *parent, const double *weight);
void tui_tree_free(tui_tree *t);

static inline size_t tui_tree_nkids(const tui_tree *t, size_t node)
{
	return t->first[node + 1] - t->first[node];
}

/* Open (show the children of) / close the node at row `row`; false when
 * nothing changed (a leaf, already so, or no such row). */
bool tui_tree_expand(tui_tree *t, size_t row);
bool tui_tree_collapse(tui_tree *t, size_t row);

/* The row of the parent of the node at `row`; `row` itself at the top. */
size_t tui_tree_parent_row(const tui_tree *t, size_t row);

/* Open the ancestors of `node` so that it is a row; its row. */
size_t tui_tree_reveal(tui_tree *t, size_t node);

/* Whether node `node` is what a search looks for. */
typedef bool (*tui_match_fn)(void *ctx, size_t node);

/* The next node after `from` in preorder (wrapping round, `from` itself
 * last; from = 0: the first) that `match` takes, or SIZE_MAX. */
size_t tui_tree_find(const tui_tree *t, size_t from, tui_match_fn match, void *ctx);

#endif
