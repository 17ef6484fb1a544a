/*
 * perf report's side of the robot's pipeline, computed from a calling-
 * context tree instead of from samples.
 *
 * perf credits each sample once to every distinct (dso, symbol) entry of
 * its chain, walking leaf → root, and appends to that entry's call-chain
 * tree the sample's chain from the credited frame outwards.  In a CCT the
 * chain "from a frame outwards" is exactly the node of that frame, and the
 * credited frame of an entry is the occurrence nearest the leaf.  So the
 * period perf attaches to the chain ending at node d under d's row is
 *
 *     hit(d) = incl(d) − Σ incl(e) over the nearest descendants e of d
 *              with the same (dso, symbol) as d,
 *
 * the samples below d that meet no deeper occurrence of d's entry.  One
 * depth-first pass computes it, keeping for every entry the innermost open
 * ancestor of that entry.  Σ hit over an entry's nodes is its Children
 * period; Σ self its Self period.
 *
 * Folded output prints a chain when hit(d) ≥ the truncated integer
 * total · 0.5 % (perf's min_callchain_hits) and hit(d) > 0; percentages
 * are 100 · v / total with the total of the event.
 */
#include "lkp_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/u64map.h"
#include "util/util.h"

#define UNKNOWN_NAME "[unknown]"

typedef struct row {
	const void *node;     /* one node of the entry, for its printed name */
	const char *sym, *dso;
	bool inl;
	uint64_t self, children;
	size_t open;      /* innermost open frame of this entry + 1; 0: none */
	size_t next;      /* next row with the same hash + 1 */
} row;

typedef struct frame {
	const void *node;
	size_t row;
	size_t next_child;
	uint64_t self, incl, sub;
	uint64_t nc_incl, nc_sub; /* the same of samples perf draws no chain for */
	size_t prev_same; /* the entry's previous open frame + 1 */
} frame;

typedef struct walk {
	const lkp_tree *t;
	size_t run;
	row *rows;
	size_t nrows, rcap;
	pd_u64map index;  /* hash → first row + 1 */
	frame *st;
	size_t depth, scap;
	const char **names;
	size_t ncap;
} walk;

static bool same_str(const char *a, const char *b)
{
	if (a == b)
		return true;
	return a && b && strcmp(a, b) == 0;
}

static int row_of(walk *w, const void *node, size_t *out)
{
	const char *sym = w->t->symbol(node);
	const char *dso = w->t->dso(node);
	bool inl = w->t->inlined ? w->t->inlined(node) : false;
	uint64_t h = pd_hash_str(PD_HASH_INIT, sym ? sym : "");
	h = pd_hash_bytes(h, "", 1);
	h = pd_hash_str(h, dso ? dso : "");
	h = pd_hash_bytes(h, &inl, 1);
	size_t head = (size_t)(uintptr_t)pd_u64map_get(&w->index, h);
	for (size_t r = head; r; r = w->rows[r - 1].next) {
		const row *x = &w->rows[r - 1];
		if (x->inl == inl && same_str(x->sym, sym) && same_str(x->dso, dso)) {
			*out = r - 1;
			return 0;
		}
	}
	if (w->nrows == w->rcap) {
		size_t cap = w->rcap ? w->rcap * 2 : 256;
		row *rows = realloc(w->rows, cap * sizeof *rows);
		if (!rows)
			return PD_ENOMEM;
		w->rows = rows;
		w->rcap = cap;
	}
	row *x = &w->rows[w->nrows];
	memset(x, 0, sizeof *x);
	x->node = node;
	x->sym = sym;
	x->dso = dso;
	x->inl = inl;
	x->next = head;
	if (pd_u64map_put(&w->index, h, (void *)(uintptr_t)(w->nrows + 1)) < 0)
		return PD_ENOMEM;
	*out = w->nrows++;
	return 0;
}

static int push(walk *w, const void *node, bool is_root)
{
	if (w->depth == w->scap) {
		size_t cap = w->scap ? w->scap * 2 : 64;
		frame *st = realloc(w->st, cap * sizeof *st);
		if (!st)
			return PD_ENOMEM;
		w->st = st;
		w->scap = cap;
	}
	frame f = { .node = node };
	if (!is_root) {
		int rc = row_of(w, node, &f.row);
		if (rc < 0)
			return rc;
		f.self = f.incl = w->t->self(node, w->run);
		f.nc_incl = w->t->chainless ? w->t->chainless(node, w->run) : 0;
		f.prev_same = w->rows[f.row].open;
		w->rows[f.row].open = w->depth + 1;
	}
	w->st[w->depth++] = f;
	return 0;
}

/* What perf prints for the entry of `node` (NULL: not printable). */
static const char *print_name(const walk *w, const void *node, const char *sym,
			      bool inl)
{
	/* An inline frame prints as "f (inlined)": NULL stands for the space. */
	if (inl)
		return NULL;
	if (!sym)
		return UNKNOWN_NAME;
	return w->t->name ? w->t->name(w->t->ctx, node) : sym;
}

static const char *frame_name(const walk *w, const void *node)
{
	bool inl = w->t->inlined && w->t->inlined(node);
	return print_name(w, node, w->t->symbol(node), inl);
}

/* The chain of the frame on top of the stack, callee first. */
static int emit_chain(walk *w, lkp_acc *a, uint64_t hit, uint64_t total)
{
	size_t n = w->depth - 1;   /* st[0] is the root */
	if (n > w->ncap) {
		const char **names = realloc(w->names, n * sizeof *names);
		if (!names)
			return PD_ENOMEM;
		w->names = names;
		w->ncap = n;
	}
	for (size_t i = 0; i < n; i++)
		w->names[i] = frame_name(w, w->st[w->depth - 1 - i].node);
	return lkp_acc_chain(a, (double)hit * 100.0 / (double)total, w->names, n);
}

static uint64_t tree_total(walk *w, int *rc)
{
	uint64_t total = 0;
	*rc = push(w, w->t->root, true);
	while (*rc == 0 && w->depth) {
		frame *f = &w->st[w->depth - 1];
		if (f->next_child < w->t->child_count(f->node)) {
			const void *c = w->t->child(f->node, f->next_child++);
			total += w->t->self(c, w->run);
			*rc = push(w, c, true);
		} else {
			w->depth--;
		}
	}
	return total;
}

static int fold(walk *w, lkp_acc *a, uint64_t total)
{
	uint64_t min_hit = (uint64_t)((double)total * (0.5 / 100));
	int rc = push(w, w->t->root, true);
	while (rc == 0 && w->depth) {
		frame *f = &w->st[w->depth - 1];
		if (f->next_child < w->t->child_count(f->node)) {
			rc = push(w, w->t->child(f->node, f->next_child++), false);
			continue;
		}
		if (w->depth == 1) {
			w->depth = 0;
			break;
		}
		uint64_t hit = f->incl - f->sub;
		/* samples whose chain perf dropped count in the row, not in a chain */
		uint64_t drawn = hit - (f->nc_incl - f->nc_sub);
		row *r = &w->rows[f->row];
		r->children += hit;
		r->self += f->self;
		r->open = f->prev_same;
		if (f->prev_same) {
			w->st[f->prev_same - 1].sub += f->incl;
			w->st[f->prev_same - 1].nc_sub += f->nc_incl;
		}
		if (drawn && drawn >= min_hit)
			rc = emit_chain(w, a, drawn, total);
		w->st[w->depth - 2].incl += f->incl;
		w->st[w->depth - 2].nc_incl += f->nc_incl;
		w->depth--;
	}
	return rc;
}

static const char *short_name(const char *dso)
{
	if (!dso)
		return UNKNOWN_NAME;
	const char *s = strrchr(dso, '/');
	return s && s[1] ? s + 1 : dso;
}

int lkp_walk(lkp_acc *a, const lkp_tree *tree, size_t run, const char *event,
	     uint64_t *total)
{
	walk w = { .t = tree, .run = run };
	pd_u64map_init(&w.index);
	int rc = 0;
	*total = tree->root ? tree_total(&w, &rc) : 0;
	if (rc == 0 && *total && (rc = lkp_acc_event(a, event)) == 0) {
		w.depth = 0;
		rc = fold(&w, a, *total);
	}
	for (size_t i = 0; rc == 0 && i < w.nrows; i++) {
		const row *r = &w.rows[i];
		if (!r->children)
			continue;
		rc = lkp_acc_row(a, short_name(r->dso),
				 print_name(&w, r->node, r->sym, r->inl),
				 100.0 * (double)r->children / (double)*total,
				 100.0 * (double)r->self / (double)*total);
	}
	free(w.rows);
	free(w.st);
	free(w.names);
	pd_u64map_free(&w.index);
	return rc;
}
