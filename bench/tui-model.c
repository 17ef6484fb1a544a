/*
 * The tree model of `perfdiff tui` (tools/perfdiff/tui_model.c) on a
 * tree of N nodes (default 200000, a system-wide diff's aligned tree):
 * how long building it takes, and each key that changes the rows —
 * opening every node one after another, closing and reopening the top
 * node (the most rows spliced at once), revealing the deepest node (a
 * search's hit) and a search through the whole tree that finds nothing.
 * Drawing is a screen's rows whatever N is, so these are what N costs.
 *
 *   cc -O2 -o tui-model bench/tui-model.c && ./tui-model [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tools/perfdiff/tui_model.c"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool never(void *ctx, size_t node)
{
	(void)ctx;
	(void)node;
	return false;
}

/* A random tree: 50 roots' worth of children at the top, every other node
 * under one in the first third of those before it (depths of 10 to 20). */
static void make_tree(size_t n, size_t *parent, double *w)
{
	unsigned seed = 1;
	parent[0] = SIZE_MAX;
	for (size_t i = 1; i < n; i++) {
		parent[i] = i < 50 ? 0 : (size_t)rand_r(&seed) % (i / 3 + 1);
		w[i] = rand_r(&seed) % 1000;
	}
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	size_t *parent = malloc(n * sizeof *parent);
	double *w = malloc(n * sizeof *w);
	if (n < 2 || !parent || !w)
		return 2;
	make_tree(n, parent, w);
	tui_tree t;
	double a = now();
	if (tui_tree_init(&t, n, parent, w) < 0)
		return 1;
	double b = now();
	printf("nodes %zu: build %.1f ms\n", n, (b - a) * 1e3);
	a = now();
	for (size_t r = 0; r < t.nrows; r++)
		tui_tree_expand(&t, r);
	b = now();
	printf("open every node, one key each: %.1f ms in all (%zu rows)\n", (b - a) * 1e3,
	       t.nrows);
	a = now();
	tui_tree_collapse(&t, 0);
	b = now();
	printf("close the top node: %.3f ms (%zu rows left)\n", (b - a) * 1e3, t.nrows);
	a = now();
	tui_tree_expand(&t, 0);
	b = now();
	printf("reopen it: %.3f ms\n", (b - a) * 1e3);
	size_t deep = 0;
	for (size_t i = 1; i < n; i++)
		deep = t.depth[i] > t.depth[deep] ? i : deep;
	for (size_t r = 0; r < t.nrows; r++)
		tui_tree_collapse(&t, r);
	a = now();
	size_t row = tui_tree_reveal(&t, deep);
	b = now();
	printf("reveal a node at depth %u: %.3f ms (row %zu)\n", t.depth[deep], (b - a) * 1e3, row);
	a = now();
	tui_tree_find(&t, 0, never, NULL);
	b = now();
	printf("search the whole tree: %.3f ms\n", (b - a) * 1e3);
	tui_tree_free(&t);
	free(parent);
	free(w);
	return 0;
}
