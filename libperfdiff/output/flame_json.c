/*
 * The data of the HTML pages' flame graphs, as JSON for the page's
 * script (schema "perfdiff.flame/1", docs/html-report.md): one object of
 * columns — parent, names, values, one array each — rather than one
 * object per node, since a system-wide diff has 200k nodes and the page
 * must parse them in well under a second.  Names and dsos are indices
 * into string tables written once.  Every node is written, however
 * small: the page merges what is too narrow to draw, never the data.
 */
#include <math.h>
#include <stdlib.h>

#include "flame.h"
#include "util/u64map.h"
#include "util/util.h"

/* ---- string tables: a name's index by its address ---- */

long pdo_strtab_id(pdo_strtab *t, const char *s)
{
	if (!s)
		return -1;
	void *got = pd_u64map_get(&t->index, (uint64_t)(uintptr_t)s);
	if (got)
		return (long)((uintptr_t)got - 1);
	if (pd_grow(&t->v, &t->cap, t->n + 1, sizeof *t->v) < 0 ||
	    pd_u64map_put(&t->index, (uint64_t)(uintptr_t)s, (void *)(uintptr_t)(t->n + 1)) < 0) {
		t->failed = true;
		return -1;
	}
	t->v[t->n] = s;
	return (long)t->n++;
}

void pdo_strtab_write(pd_writer *w, const char *key, const pdo_strtab *t)
{
	pdo_json_key(w, key);
	pdo_json_open(w, '[');
	for (size_t i = 0; i < t->n; i++) {
		pdo_json_item(w);
		pdo_json_str(w, t->v[i]);
	}
	pdo_json_close(w, ']');
}

void pdo_strtab_free(pdo_strtab *t)
{
	pd_u64map_free(&t->index);
	free(t->v);
}

void pdo_flame_long(pd_writer *w, long x)
{
	pdo_json_item(w);
	pdo_printf(w, "%ld", x);
}

void pdo_flame_short(pd_writer *w, double x)
{
	pdo_json_item(w);
	pdo_json_short(w, x);
}

/* ---- the diff's aligned tree ---- */

enum { C_PARENT, C_BNAME, C_NNAME, C_DSO, C_B, C_N, C_BSD, C_NSD, C_BSELF, C_NSELF, C_Q,
       C_SIG, C_REL, C_SHOWN, C_INT_END = C_B, C_NCOLS = C_SHOWN + 1 };

static const char *const col_names[C_NCOLS] = {
	"parent", "bname", "nname", "dso", "b", "n", "bsd", "nsd", "bself", "nself", "q",
	"sig", "rel", "shown",
};

typedef struct diff_cols {
	const pdo_diff *v;
	const pd_diff *d;
	pdo_strtab names, dsos;
} diff_cols;

static double node_col(diff_cols *c, const pd_diff_node *n, int col)
{
	switch (col) {
	case C_PARENT: return n->parent == SIZE_MAX ? -1 : (double)n->parent;
	case C_BNAME: return (double)pdo_strtab_id(&c->names, n->base_symbol);
	case C_NNAME: return (double)pdo_strtab_id(&c->names, n->new_symbol);
	case C_DSO: return (double)pdo_strtab_id(&c->dsos, n->dso);
	case C_B: return n->base.mean;
	case C_N: return n->new.mean;
	case C_BSD: return n->base.stddev;
	case C_NSD: return n->new.stddev;
	case C_BSELF: return n->base_self;
	case C_NSELF: return n->new_self;
	case C_Q: return n->row ? n->row->q_value : NAN;
	case C_SIG: return n->row ? n->row->significant : -1;
	/* the page's table draws its tree rows from here (diff_html.c) */
	case C_SHOWN: return n->row && pdo_row_shown(c->v, n->row);
	default:
		return n->relation ? (double)(n->relation - pd_diff_relation_at(c->d, 0)) : -1;
	}
}

static void diff_column(pd_writer *w, diff_cols *c, int col)
{
	pdo_json_key(w, col_names[col]);
	pdo_json_open(w, '[');
	size_t n = pd_diff_node_count(c->d);
	for (size_t i = 0; i < n && !w->failed; i++) {
		double x = node_col(c, pd_diff_node_at(c->d, i), col);
		if (col < C_INT_END || col >= C_SIG)
			pdo_flame_long(w, (long)x);
		else
			pdo_flame_short(w, x);
	}
	pdo_json_close(w, ']');
}

/* Every run's value of every node of a side, node after node. */
static void diff_runs(pd_writer *w, const pd_diff *d, int side)
{
	pdo_json_key(w, side ? "nruns" : "bruns");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < pd_diff_node_count(d) && !w->failed; i++) {
		const pd_diff_side *s = side ? &pd_diff_node_at(d, i)->new : &pd_diff_node_at(d, i)->base;
		for (size_t r = 0; r < s->nruns; r++)
			pdo_flame_short(w, s->runs[r]);
	}
	pdo_json_close(w, ']');
}

/* Which relations the page lists as explained shifts (pdo_rel_listed). */
static void listed(const pdo_diff *v)
{
	pdo_json_key(v->w, "listed");
	pdo_json_open(v->w, '[');
	for (size_t i = 0; i < pd_diff_relation_count(v->d); i++)
		pdo_flame_long(v->w, pdo_rel_listed(v, pd_diff_relation_at(v->d, i)));
	pdo_json_close(v->w, ']');
}

int pdo_diff_flame_json(const pdo_diff *v)
{
	pd_writer *w = v->w;
	diff_cols c = { .v = v, .d = v->d };
	pd_u64map_init(&c.names.index);
	pd_u64map_init(&c.dsos.index);
	for (size_t i = 0; i < pd_diff_node_count(v->d); i++)
		for (int col = C_BNAME; col <= C_DSO; col++)
			node_col(&c, pd_diff_node_at(v->d, i), col);  /* fills the tables */
	pdo_json_open(w, '{');
	pdo_json_key(w, "schema");
	pdo_json_item(w);
	pdo_json_str(w, "perfdiff.flame/1");
	pdo_json_key(w, "kind");
	pdo_json_item(w);
	pdo_json_str(w, "diff");
	pdo_strtab_write(w, "names", &c.names);
	pdo_strtab_write(w, "dsos", &c.dsos);
	for (int col = 0; col < C_NCOLS; col++)
		diff_column(w, &c, col);
	diff_runs(w, v->d, 0);
	diff_runs(w, v->d, 1);
	listed(v);
	pdo_json_close(w, '}');
	pdo_json_end(w);
	bool failed = c.names.failed || c.dsos.failed;
	pdo_strtab_free(&c.names);
	pdo_strtab_free(&c.dsos);
	return failed ? pdo_nomem(v->err) : pdo_done(w, v->err);
}
