/*
 * `perfdiff report --format=html`: one page with a flame graph of the
 * profile per event (the runs summed, shares of their total: the mean of
 * the runs weighted by their length) and the children/self table, for
 * people who read profiles as flame graphs.  The data is one
 * "perfdiff.flame/1" document of kind "report" (docs/html-report.md):
 * per event the calling-context tree as columns, in preorder, and the
 * flat rows; the page's script (html/report.js, html/flame.js) draws it.
 */
#include <stdlib.h>

#include "flame.h"
#include "html.h"
#include "assets.h"

typedef struct report_data {
	const pdo_report *r;
	pdo_strtab names, dsos;
	const pd_cct_node **stack;   /* preorder walk */
	long *up;                    /* the parent index of each stacked node */
} report_data;

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

/* The tree's columns, preorder: parent, sym (the node's name; not
 * "name", which the event object holds already), dso, total %, self %,
 * flags (1 kernel, 2 inlined). */
static void tree_columns(report_data *rd, size_t ev, pd_writer *w, uint64_t total)
{
	static const char *const cols[] = { "parent", "sym", "dso", "total", "self", "flags" };
	for (int c = 0; c < 6 && !w->failed; c++) {
		pdo_json_key(w, cols[c]);
		pdo_json_open(w, '[');
		size_t sp = 0;
		long id = 0;
		rd->stack[sp] = pd_profile_root(rd->r->p, ev);
		rd->up[sp++] = -1;
		while (sp > 0 && rd->stack[sp - 1]) {
			const pd_cct_node *n = rd->stack[--sp];
			long parent = rd->up[sp];
			switch (c) {
			case 0: pdo_flame_long(w, parent); break;
			case 1: pdo_flame_long(w, pdo_strtab_id(&rd->names, pd_cct_symbol(n))); break;
			case 2: pdo_flame_long(w, pdo_strtab_id(&rd->dsos, pd_cct_dso(n))); break;
			case 3: pdo_flame_short(w, pct(pd_cct_total(n, SIZE_MAX), total)); break;
			case 4: pdo_flame_short(w, pct(pd_cct_self(n, SIZE_MAX), total)); break;
			default: pdo_flame_long(w, (pd_cct_kernel(n) ? 1 : 0) | (pd_cct_inlined(n) ? 2 : 0));
			}
			/* children pushed last-first so that they come out in order */
			for (size_t k = pd_cct_child_count(n); k-- > 0;) {
				rd->stack[sp] = pd_cct_child(n, k);
				rd->up[sp++] = id;
			}
			id++;
		}
		pdo_json_close(w, ']');
	}
}

/* The flat children/self rows, as columns. */
static int flat_columns(report_data *rd, size_t ev, pd_writer *w, uint64_t total)
{
	const pd_flat_entry *e;
	size_t n;
	int rc = pd_profile_flat(rd->r->p, ev, &e, &n, rd->r->err);
	if (rc < 0)
		return rc;
	static const char *const cols[] = { "rname", "rdso", "children", "rself" };
	for (int c = 0; c < 4; c++) {
		pdo_json_key(w, cols[c]);
		pdo_json_open(w, '[');
		for (size_t i = 0; i < n && !w->failed; i++) {
			if (c == 0)
				pdo_flame_long(w, pdo_strtab_id(&rd->names, e[i].symbol));
			else if (c == 1)
				pdo_flame_long(w, pdo_strtab_id(&rd->dsos, e[i].dso));
			else
				pdo_flame_short(w, pct(c == 2 ? e[i].children : e[i].self, total));
		}
		pdo_json_close(w, ']');
	}
	return 0;
}

static int event_obj(report_data *rd, size_t ev)
{
	pd_writer *w = rd->r->w;
	pd_profile *p = rd->r->p;
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	size_t nn = pd_profile_node_count(p, ev) + 1;
	rd->stack = malloc(nn * sizeof *rd->stack);
	rd->up = malloc(nn * sizeof *rd->up);
	int rc = rd->stack && rd->up ? 0 : pdo_nomem(rd->r->err);
	if (rc == 0) {
		pdo_json_open(w, '{');
		pdo_json_key(w, "name");
		pdo_json_item(w);
		pdo_json_str(w, pd_profile_event_name(p, ev));
		pdo_json_key(w, "default");
		pdo_json_raw(w, (int)ev == pd_profile_default_event(p) ? "true" : "false");
		pdo_json_key(w, "samples");
		pdo_json_item(w);
		pdo_json_u64(w, pd_profile_samples(p, ev, SIZE_MAX));
		pdo_json_key(w, "period");
		pdo_json_item(w);
		pdo_json_u64(w, total);
		tree_columns(rd, ev, w, total);
		rc = flat_columns(rd, ev, w, total);
		pdo_json_close(w, '}');
	}
	free(rd->stack);
	free(rd->up);
	return rc;
}

static int report_doc(report_data *rd, const size_t *evs, size_t nev)
{
	pd_writer *w = rd->r->w;
	pdo_json_open(w, '{');
	pdo_json_key(w, "schema");
	pdo_json_item(w);
	pdo_json_str(w, "perfdiff.flame/1");
	pdo_json_key(w, "kind");
	pdo_json_item(w);
	pdo_json_str(w, "report");
	pdo_json_key(w, "runs");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < pd_profile_run_count(rd->r->p); i++) {
		pdo_json_item(w);
		pdo_json_str(w, pd_profile_run_path(rd->r->p, i));
	}
	pdo_json_close(w, ']');
	pdo_json_key(w, "events");
	pdo_json_open(w, '[');
	int rc = 0;
	for (size_t i = 0; i < nev && rc == 0; i++)
		rc = event_obj(rd, evs[i]);
	pdo_json_close(w, ']');
	/* the tables last: the events filled them */
	pdo_strtab_write(w, "names", &rd->names);
	pdo_strtab_write(w, "dsos", &rd->dsos);
	pdo_json_close(w, '}');
	pdo_json_end(w);
	return rc;
}

int pdo_report_html(const pdo_report *r)
{
	size_t *evs = malloc((pd_profile_event_count(r->p) + 1) * sizeof *evs);
	if (!evs)
		return pdo_nomem(r->err);
	size_t nev = pdo_report_events(r, evs);
	report_data rd = { .r = r };
	pd_u64map_init(&rd.names.index);
	pd_u64map_init(&rd.dsos.index);
	const char *first = pd_profile_run_count(r->p) ? pd_profile_run_path(r->p, 0) : "";
	pdo_html_begin(r->w, "report", first);
	pdo_html_data_begin(r->w, "pd-report");
	int rc = report_doc(&rd, evs, nev);
	pdo_html_data_end(r->w);
	pdo_html_end(r->w, pdo_asset_report_js, pdo_asset_report_js_len);
	if (rc == 0 && (rd.names.failed || rd.dsos.failed))
		rc = pdo_nomem(r->err);
	pdo_strtab_free(&rd.names);
	pdo_strtab_free(&rd.dsos);
	free(evs);
	return rc;
}
