/*
 * `perfdiff diff --format=json`: schema "perfdiff.diff/1", documented in
 * docs/diff-json.md.  Built with jansson (json_out.h): a diff has at most
 * some thousands of rows, and every string goes through jo_str(), which
 * turns the raw bytes of perf.data names into well-formed UTF-8.
 */
#include <math.h>
#include <string.h>

#include "diff_cli.h"
#include "json_out.h"

#define SCHEMA "perfdiff.diff/1"

/* JSON has no NaN or infinity: those (a p-value the engine could not
 * compute) become null. */
static json_t *jreal(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *str_array(const char *const *v, size_t n, const char *first)
{
	json_t *a = json_array();
	if (!a)
		return NULL;
	if (!v && first)
		v = &first, n = 1;
	for (size_t i = 0; v && i < n; i++)
		if (json_array_append_new(a, jo_str(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *relation_obj(const pd_diff_relation *r)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	int rc = 0;
	rc |= jo_set(o, "kind", jo_str(pd_diff_relation_kind_name(r->kind)));
	rc |= jo_set(o, "base_symbol", jo_str(r->base_symbol));
	rc |= jo_set(o, "new_symbol", jo_str(r->new_symbol));
	rc |= jo_set(o, "base_symbols",
		     str_array(r->base_symbols, r->nbase_symbols, r->base_symbol));
	rc |= jo_set(o, "new_symbols", str_array(r->new_symbols, r->nnew_symbols, r->new_symbol));
	rc |= jo_set(o, "base_parent", jo_str(r->base_parent));
	rc |= jo_set(o, "new_parent", jo_str(r->new_parent));
	rc |= jo_set(o, "dso", jo_str(r->dso));
	rc |= jo_set(o, "base_change", jreal(r->base_change));
	rc |= jo_set(o, "new_change", jreal(r->new_change));
	rc |= jo_set(o, "net", jreal(r->net));
	rc |= jo_set(o, "score", jreal(r->score));
	rc |= jo_set(o, "evidence", jo_str(r->evidence));
	/* the net change's own test (its shift row) */
	rc |= jo_set(o, "significant", json_boolean(r->row && r->row->significant));
	rc |= jo_set(o, "p_value", r->row ? jreal(r->row->p_value) : json_null());
	rc |= jo_set(o, "q_value", r->row ? jreal(r->row->q_value) : json_null());
	rc |= jo_set(o, "rows_significant", json_boolean(r->rows_significant));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *side_of_row(const pd_diff_side *s)
{
	json_t *o = json_object(), *runs = json_array();
	if (!o || !runs) {
		json_decref(o);
		json_decref(runs);
		return NULL;
	}
	int rc = 0;
	for (size_t i = 0; i < s->nruns && s->runs; i++)
		rc |= json_array_append_new(runs, jreal(s->runs[i]));
	rc |= jo_set(o, "mean", jreal(s->mean));
	rc |= jo_set(o, "stddev", jreal(s->stddev));
	rc |= jo_set(o, "runs", runs);
	rc |= jo_set(o, "present", json_integer((json_int_t)s->present));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *row_obj(const pd_diff_row *r)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	int rc = 0;
	rc |= jo_set(o, "metric", jo_str(pd_diff_metric_name(r->metric)));
	rc |= jo_set(o, "key", jo_str(r->key));
	rc |= jo_set(o, "symbol", jo_str(r->symbol));
	rc |= jo_set(o, "dso", jo_str(r->dso));
	rc |= jo_set(o, "base", side_of_row(&r->base));
	rc |= jo_set(o, "new", side_of_row(&r->new));
	rc |= jo_set(o, "change", jreal(r->change));
	rc |= jo_set(o, "significant", json_boolean(r->significant));
	rc |= jo_set(o, "p_value", jreal(r->p_value));
	rc |= jo_set(o, "q_value", jreal(r->q_value));
	rc |= jo_set(o, "relation", r->relation ? relation_obj(r->relation) : json_null());
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *side_obj(const diff_view *v, int side)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	int rc = 0;
	rc |= jo_set(o, "files", str_array(v->files[side], v->nfiles[side], NULL));
	rc |= jo_set(o, "runs", json_integer((json_int_t)v->nruns[side]));
	rc |= jo_set(o, "samples", jo_u64(pd_diff_samples(v->d, side, SIZE_MAX)));
	rc |= jo_set(o, "total", jo_u64(pd_diff_total(v->d, side, SIZE_MAX)));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *options_obj(const diff_view *v)
{
	const pd_diff_options *o = v->opts;
	json_t *j = json_object();
	if (!j)
		return NULL;
	int rc = 0;
	rc |= jo_set(j, "absolute", json_boolean(o->flags & PD_DIFF_ABSOLUTE));
	rc |= jo_set(j, "align", json_boolean(!(o->flags & PD_DIFF_NO_ALIGN)));
	rc |= jo_set(j, "tree", json_boolean(o->flags & PD_DIFF_TREE_ROWS));
	rc |= jo_set(j, "lkp_keys", json_boolean(o->flags & PD_DIFF_LKP_KEYS));
	rc |= jo_set(j, "all", json_boolean(v->all));
	rc |= jo_set(j, "depth", json_integer(o->depth));
	rc |= jo_set(j, "min_change", jreal(o->min_change));
	rc |= jo_set(j, "fdr", jreal(o->fdr));
	rc |= jo_set(j, "rename_score", jreal(o->rename_score));
	if (rc) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The priors of the test: the runs' and the time blocks' variation, as
 * multiples of sampling variance, with their degrees of freedom. */
static json_t *variation_obj(const pd_diff *d)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	double phi = 0, df = 0;
	size_t blocks[2] = { 0, 0 };
	int rc = 0;
	bool runs = pd_diff_test_prior(d, &phi, &df, NULL);
	rc |= jo_set(o, "runs_phi", runs ? jreal(phi) : json_null());
	rc |= jo_set(o, "runs_df", runs ? jreal(df) : json_null());
	bool blk = pd_diff_block_prior(d, &phi, &df, NULL, blocks);
	rc |= jo_set(o, "blocks_phi", blk ? jreal(phi) : json_null());
	rc |= jo_set(o, "blocks_df", blk ? jreal(df) : json_null());
	rc |= jo_set(o, "base_blocks", json_integer((json_int_t)blocks[0]));
	rc |= jo_set(o, "new_blocks", json_integer((json_int_t)blocks[1]));
	rc |= jo_set(o, "inflation", jreal(pd_diff_inflation(d)));
	rc |= jo_set(o, "base_noise", jreal(pd_diff_noise(d, 0)));
	rc |= jo_set(o, "new_noise", jreal(pd_diff_noise(d, 1)));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The dsos taken for one program under two names. */
static json_t *dso_pairs(const pd_diff *d)
{
	json_t *a = json_array();
	if (!a)
		return NULL;
	for (size_t i = 0; i < pd_diff_dso_pair_count(d); i++) {
		const char *b = NULL, *n = NULL;
		double sim = 0;
		if (!pd_diff_dso_pair_at(d, i, &b, &n, &sim))
			break;
		json_t *o = json_object();
		int rc = !o;
		if (o) {
			rc |= jo_set(o, "base_dso", jo_str(b));
			rc |= jo_set(o, "new_dso", jo_str(n));
			rc |= jo_set(o, "similarity", jreal(sim));
		}
		if (rc || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int diff_write_json(const diff_view *v, FILE *f)
{
	json_t *doc = json_object(), *rows = json_array(), *rels = json_array();
	if (!doc || !rows || !rels) {
		json_decref(doc);
		json_decref(rows);
		json_decref(rels);
		return -1;
	}
	int rc = 0;
	size_t n = pd_diff_row_count(v->d), shown = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const pd_diff_row *r = diff_row(v->d, i);
		if (!dv_shown(v, r))
			continue;
		shown++;
		rc |= json_array_append_new(rows, row_obj(r));
	}
	for (size_t i = 0; i < pd_diff_relation_count(v->d) && rc == 0; i++)
		rc |= json_array_append_new(rels, relation_obj(diff_relation(v->d, i)));
	static const char *const tests[] = { "moderated-t", "proportion", "blocks" };
	pd_diff_test_kind tk = pd_diff_test(v->d);
	rc |= jo_set(doc, "schema", json_string(SCHEMA));
	rc |= jo_set(doc, "generator", json_string("perfdiff " PD_VERSION_STRING));
	rc |= jo_set(doc, "event", jo_str(pd_diff_event(v->d)));
	rc |= jo_set(doc, "lkp_event", jo_str(v->event));
	rc |= jo_set(doc, "test", json_string(tests[(unsigned)tk < 3 ? tk : 1]));
	rc |= jo_set(doc, "variation", variation_obj(v->d));
	rc |= jo_set(doc, "options", options_obj(v));
	rc |= jo_set(doc, "base", side_obj(v, 0));
	rc |= jo_set(doc, "new", side_obj(v, 1));
	rc |= jo_set(doc, "dso_pairs", dso_pairs(v->d));
	rc |= jo_set(doc, "rows_total", json_integer((json_int_t)n));
	rc |= jo_set(doc, "rows_hidden", json_integer((json_int_t)(n - shown)));
	if (rc) {
		json_decref(rows);
		json_decref(rels);
		json_decref(doc);
		return -1;
	}
	/* json_object_set_new() releases the value when it fails */
	if (jo_set(doc, "rows", rows) | jo_set(doc, "relations", rels)) {
		json_decref(doc);
		return -1;
	}
	return jo_emit(doc, f);
}
