/*
 * pd_diff_write()'s folded stacks: the two columns of a differential
 * flame graph ("stack BASE NEW", as FlameGraph's difffolded.pl writes
 * them), with each side's stacks named as the diff's aligned tree names
 * them.  Tools such as flamegraph.pl pair the two sides by the stack's
 * text alone, so a function renamed or inlined between the builds, or a
 * subtree that moved, would be drawn as all gone on one side and all new
 * on the other.  Here a new stack takes the path of its aligned node, and
 * every aligned node the base's name where the base has one: the pair is
 * one line carrying both sides' values.  The command frame goes the same
 * way: a binary renamed between the builds (diff.h, "Renamed binaries")
 * has its new command written as the base's, or the frame is left out.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/util.h"

/* A command name is the binary's basename cut to TASK_COMM_LEN - 1. */
#define COMM_MAX 15

typedef struct aligned {
	const pd_diff *d;
	size_t nn;              /* aligned nodes */
	unsigned char *inl;     /* per node: the frame naming it is an inline frame */
	size_t *path;           /* room for one stack's nodes, leaf first */
	size_t cap;
	bool comm;
	pdo_folded_path fp;     /* a stack the aligned tree does not know */
} aligned;


/* Node k's frames from the root, leaf last, into a->path (reversed);
 * their number, or SIZE_MAX when memory runs out. */
static size_t walk(aligned *a, size_t k)
{
	size_t depth = 0;
	for (; k != 0 && k < a->nn && depth < a->nn; k = pd_diff_node_at(a->d, k)->parent) {
		if (pd_grow(&a->path, &a->cap, depth + 1, sizeof *a->path) < 0)
			return SIZE_MAX;
		a->path[depth++] = k;
	}
	return depth;
}

static const char *node_name(const pd_diff_node *n)
{
	return n->base_symbol ? n->base_symbol : n->new_symbol;
}

static int aligned_text(pd_writer *w, int side, const pd_stack *s, void *ctx)
{
	aligned *a = ctx;
	size_t k = pd_diff_node_of(a->d, side, s->leaf);
	if (k == SIZE_MAX)  /* no self cost: a stack of no weight */
		return pdo_folded_stack(w, s, &a->fp, a->comm);
	size_t depth = walk(a, k);
	if (depth == SIZE_MAX)
		return -1;
	char buf[COMM_MAX + 1];
	if (a->comm)
		pdo_folded_name(w, side ? pd_diff_base_comm(a->d, s->comm, buf) : s->comm, false);
	else if (depth == 0)
		pdo_puts(w, PDO_FOLDED_NO_FRAME);
	for (size_t d = depth; d-- > 0;) {
		if (a->comm || d + 1 < depth)
			pdo_putc(w, ';');
		pdo_folded_name(w, node_name(pd_diff_node_at(a->d, a->path[d])), a->inl[a->path[d]]);
	}
	return w->failed ? -1 : 0;
}

/*
 * Which aligned nodes are inline frames, as the side naming them saw
 * them: a base stack's frames are its aligned nodes one for one; a new
 * stack's are so up to its first node the base also has (the aligned
 * tree hangs new-only nodes under their caller's node).
 */
static void mark_inline(aligned *a, int side, const pd_stack *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = pd_diff_node_of(a->d, side, st[i].leaf);
		for (const pd_cct_node *c = st[i].leaf; c && pd_cct_parent(c) && k != 0 && k < a->nn;
		     c = pd_cct_parent(c)) {
			const pd_diff_node *dn = pd_diff_node_at(a->d, k);
			if (side && dn->base_symbol)
				break;
			a->inl[k] = pd_cct_inlined(c);
			k = dn->parent;
		}
	}
}

static int mark_sides(aligned *a, pd_profile *const p[2], pd_error *err)
{
	size_t ev[2];
	int rc = pd_diff_events(p[0], p[1], pd_diff_event(a->d), ev, err);
	for (int side = 0; side < 2 && rc == 0; side++) {
		const pd_stack *st;
		size_t n;
		rc = pd_profile_stacks(p[side], ev[side], &st, &n, err);
		if (rc == 0)
			mark_inline(a, side, st, n);
	}
	return rc;
}

int pdo_diff_folded(pd_writer *w, const pd_diff *d, const pd_diff_write_options *o,
		    pd_error *err)
{
	/* the profiles build their stacks on first use: not const */
	pd_profile *p[2] = { (pd_profile *)pd_diff_profile(d, 0),
			     (pd_profile *)pd_diff_profile(d, 1) };
	aligned a = { .d = d, .nn = pd_diff_node_count(d), .comm = !o->no_comm };
	if (!p[0] || !p[1])
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "the diff's profiles are gone");
	a.inl = calloc(a.nn ? a.nn : 1, 1);
	if (!a.inl)
		return pdo_nomem(err);
	int rc = mark_sides(&a, p, err);
	if (rc == 0)
		rc = pdo_folded_columns(w, p, pd_diff_event(d), o->weight_samples, aligned_text, &a,
					err);
	free(a.inl);
	free(a.path);
	pdo_folded_path_free(&a.fp);
	return rc;
}
