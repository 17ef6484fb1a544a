/*
 * pd_diff_write() in JSON: schema "perfdiff.diff/1", documented in
 * docs/diff-json.md.  One compact document with a newline, keys in the
 * order below; the bytes are those the CLI wrote when it built the
 * document with jansson (json.h says how numbers are printed).
 */
#include "internal.h"

#define SCHEMA "perfdiff.diff/1"

/* An array of the strings `v`, or of `first` alone when there is no `v`. */
static void key_strs(pd_writer *w, const char *k, const char *const *v, size_t n,
		     const char *first)
{
	pdo_json_key(w, k);
	pdo_json_open(w, '[');
	if (!v && first)
		v = &first, n = 1;
	for (size_t i = 0; v && i < n; i++) {
		pdo_json_item(w);
		pdo_json_str(w, v[i]);
	}
	pdo_json_close(w, ']');
}

/* The net change's own test (its shift row). */
static void relation_test(pd_writer *w, const pd_diff_relation *r)
{
	pdo_json_key_bool(w, "significant", r->row && r->row->significant);
	if (r->row) {
		pdo_json_key_real(w, "p_value", r->row->p_value);
		pdo_json_key_real(w, "q_value", r->row->q_value);
	} else {
		pdo_json_key_null(w, "p_value");
		pdo_json_key_null(w, "q_value");
	}
	pdo_json_key_bool(w, "rows_significant", r->rows_significant);
}

static void relation_obj(pd_writer *w, const pd_diff_relation *r)
{
	pdo_json_open(w, '{');
	pdo_json_key_str(w, "kind", pd_diff_relation_kind_name(r->kind));
	pdo_json_key_str(w, "base_symbol", r->base_symbol);
	pdo_json_key_str(w, "new_symbol", r->new_symbol);
	key_strs(w, "base_symbols", r->base_symbols, r->nbase_symbols, r->base_symbol);
	key_strs(w, "new_symbols", r->new_symbols, r->nnew_symbols, r->new_symbol);
	pdo_json_key_str(w, "base_parent", r->base_parent);
	pdo_json_key_str(w, "new_parent", r->new_parent);
	pdo_json_key_str(w, "dso", r->dso);
	pdo_json_key_real(w, "base_change", r->base_change);
	pdo_json_key_real(w, "new_change", r->new_change);
	pdo_json_key_real(w, "net", r->net);
	pdo_json_key_real(w, "score", r->score);
	pdo_json_key_str(w, "evidence", r->evidence);
	relation_test(w, r);
	pdo_json_close(w, '}');
}

static void side_of_row(pd_writer *w, const char *k, const pd_diff_side *s)
{
	pdo_json_key(w, k);
	pdo_json_open(w, '{');
	pdo_json_key_real(w, "mean", s->mean);
	pdo_json_key_real(w, "stddev", s->stddev);
	pdo_json_key(w, "runs");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < s->nruns && s->runs; i++) {
		pdo_json_item(w);
		pdo_json_real(w, s->runs[i]);
	}
	pdo_json_close(w, ']');
	pdo_json_key_u64(w, "present", s->present);
	pdo_json_close(w, '}');
}

static void row_obj(pd_writer *w, const pd_diff_row *r)
{
	pdo_json_open(w, '{');
	pdo_json_key_str(w, "metric", pd_diff_metric_name(r->metric));
	pdo_json_key_str(w, "key", r->key);
	pdo_json_key_str(w, "symbol", r->symbol);
	pdo_json_key_str(w, "dso", r->dso);
	side_of_row(w, "base", &r->base);
	side_of_row(w, "new", &r->new);
	pdo_json_key_real(w, "change", r->change);
	pdo_json_key_bool(w, "significant", r->significant);
	pdo_json_key_real(w, "p_value", r->p_value);
	pdo_json_key_real(w, "q_value", r->q_value);
	pdo_json_key_bool(w, "tested", r->tested);
	pdo_json_key_str(w, "process", r->process);
	if (r->relation) {
		pdo_json_key(w, "relation");
		relation_obj(w, r->relation);
	} else {
		pdo_json_key_null(w, "relation");
	}
	pdo_json_close(w, '}');
}

/* What the side's numbers rest on (facts.c). */
static void side_facts(pd_writer *w, const pdo_facts *f)
{
	pdo_json_key_real(w, "unresolved_pct", f->unresolved_pct);
	key_strs(w, "truncated", f->truncated, f->ntruncated, NULL);
	pdo_json_key_u64(w, "lost", f->lost);
	pdo_json_key_u64(w, "samples_read", f->read);
	pdo_json_key_u64(w, "fewest_run_samples", f->fewest);
	pdo_json_key_bool(w, "too_few_samples", f->too_few);
	key_strs(w, "unmatched_filters", f->unmatched, f->nunmatched, NULL);
	pdo_stack_filters_json(w, f->prof, f->ev);
	if (f->prof)
		pdo_origins_json(w, f->prof);
}

static void side_obj(const pdo_diff *v, const char *k, int side)
{
	pd_writer *w = v->w;
	pdo_json_key(w, k);
	pdo_json_open(w, '{');
	key_strs(w, "files", v->files[side], v->nfiles[side], NULL);
	pdo_json_key_u64(w, "runs", v->nruns[side]);
	pdo_json_key_u64(w, "samples", pd_diff_samples(v->d, side, SIZE_MAX));
	pdo_json_key_u64(w, "total", pd_diff_total(v->d, side, SIZE_MAX));
	side_facts(w, &v->facts[side]);
	pdo_json_close(w, '}');
}

static const char *const sort_names[] = { "change", "abs-change", "name" };

static void options_obj(const pdo_diff *v)
{
	pd_writer *w = v->w;
	const pd_diff_options *o = &v->opts;
	pdo_json_key(w, "options");
	pdo_json_open(w, '{');
	pdo_json_key_bool(w, "absolute", o->flags & PD_DIFF_ABSOLUTE);
	pdo_json_key_bool(w, "align", !(o->flags & PD_DIFF_NO_ALIGN));
	pdo_json_key_bool(w, "tree", o->flags & PD_DIFF_TREE_ROWS);
	pdo_json_key_bool(w, "lkp_keys", o->flags & PD_DIFF_LKP_KEYS);
	pdo_json_key_bool(w, "all", v->all);
	pdo_json_key_u64(w, "depth", o->depth);
	pdo_json_key_real(w, "min_change", o->min_change);
	pdo_json_key_real(w, "fdr", o->fdr);
	pdo_json_key_real(w, "rename_score", o->rename_score);
	pdo_json_key_str(w, "sort", sort_names[(unsigned)v->opts_sort <= PD_DIFF_SORT_NAME ? v->opts_sort
										   : 0]);
	pdo_json_key_real(w, "percent_limit", v->percent_limit);
	pdo_json_close(w, '}');
}

/* A prior of the test, null when the test had none. */
static void key_prior(pd_writer *w, const char *k, bool have, double x)
{
	if (have)
		pdo_json_key_real(w, k, x);
	else
		pdo_json_key_null(w, k);
}

/* The priors of the test: the runs' and the time blocks' variation, as
 * multiples of sampling variance, with their degrees of freedom. */
static void variation_obj(pd_writer *w, const pd_diff *d)
{
	double phi = 0, df = 0;
	size_t blocks[2] = { 0, 0 };
	pdo_json_key(w, "variation");
	pdo_json_open(w, '{');
	bool runs = pd_diff_test_prior(d, &phi, &df, NULL);
	key_prior(w, "runs_phi", runs, phi);
	key_prior(w, "runs_df", runs, df);
	bool blk = pd_diff_block_prior(d, &phi, &df, NULL, blocks);
	key_prior(w, "blocks_phi", blk, phi);
	key_prior(w, "blocks_df", blk, df);
	pdo_json_key_u64(w, "base_blocks", blocks[0]);
	pdo_json_key_u64(w, "new_blocks", blocks[1]);
	pdo_json_key_real(w, "inflation", pd_diff_inflation(d));
	pdo_json_key_real(w, "base_noise", pd_diff_noise(d, 0));
	pdo_json_key_real(w, "new_noise", pd_diff_noise(d, 1));
	pdo_json_key_u64(w, "tested_rows", pd_diff_tested_count(d));
	pdo_json_key(w, "processes");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < pd_diff_process_count(d); i++) {
		const pd_diff_process *p = pd_diff_process_at(d, i);
		pdo_json_open(w, '{');
		pdo_json_key_str(w, "comm", p->comm);
		pdo_json_key_u64(w, "samples", p->samples);
		pdo_json_key_u64(w, "rows", p->rows);
		pdo_json_key_real(w, "phi", p->phi0);
		pdo_json_key_real(w, "df", p->d0);
		pdo_json_key_u64(w, "prior_rows", p->prior_rows);
		pdo_json_key_real(w, "inflation", p->inflation);
		pdo_json_close(w, '}');
	}
	pdo_json_close(w, ']');
	pdo_json_close(w, '}');
}

/* The dsos taken for one program under two names. */
static void dso_pairs(pd_writer *w, const pd_diff *d)
{
	pdo_json_key(w, "dso_pairs");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < pd_diff_dso_pair_count(d); i++) {
		const char *b = NULL, *n = NULL;
		double sim = 0;
		if (!pd_diff_dso_pair_at(d, i, &b, &n, &sim))
			break;
		pdo_json_open(w, '{');
		pdo_json_key_str(w, "base_dso", b);
		pdo_json_key_str(w, "new_dso", n);
		pdo_json_key_real(w, "similarity", sim);
		pdo_json_close(w, '}');
	}
	pdo_json_close(w, ']');
}

static void rows_and_relations(const pdo_diff *v)
{
	pd_writer *w = v->w;
	size_t n = pd_diff_row_count(v->d), shown = 0;
	for (size_t i = 0; i < n; i++)
		shown += pdo_row_shown(v, pd_diff_row_at(v->d, i));
	pdo_json_key_u64(w, "rows_total", n);
	pdo_json_key_u64(w, "rows_hidden", n - shown);
	pdo_json_key(w, "rows");
	pdo_json_open(w, '[');
	for (size_t k = 0; k < n && !w->failed; k++) {
		const pd_diff_row *r = pdo_diff_row(v, k);
		if (pdo_row_shown(v, r) && !(v->json_no_tree && r->metric == PD_DIFF_TREE))
			row_obj(w, r);
	}
	pdo_json_close(w, ']');
	if (v->json_largest) {
		size_t top[PDO_LARGEST], k = pdo_largest_changes(v, top, PDO_LARGEST);
		pdo_json_key(w, "largest");
		pdo_json_open(w, '[');
		for (size_t i = 0; i < k; i++)
			row_obj(w, pd_diff_row_at(v->d, top[i]));
		pdo_json_close(w, ']');
	}
	pdo_json_key(w, "relations");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < pd_diff_relation_count(v->d) && !w->failed; i++)
		relation_obj(w, pd_diff_relation_at(v->d, i));
	pdo_json_close(w, ']');
}

int pdo_diff_json(const pdo_diff *v)
{
	static const char *const tests[] = { "moderated-t", "proportion", "blocks", "table" };
	pd_writer *w = v->w;
	pd_diff_test_kind tk = pd_diff_test(v->d);
	pdo_json_open(w, '{');
	pdo_json_key_str(w, "schema", SCHEMA);
	pdo_json_key_str(w, "generator", "perfdiff " PD_VERSION_STRING);
	pdo_json_key_str(w, "event", pd_diff_event(v->d));
	pdo_json_key_str(w, "lkp_event", v->event);
	pdo_json_key_str(w, "test", tests[(unsigned)tk < 4 ? tk : 1]);
	variation_obj(w, v->d);
	options_obj(v);
	side_obj(v, "base", 0);
	side_obj(v, "new", 1);
	dso_pairs(w, v->d);
	rows_and_relations(v);
	pdo_diff_json_table(w, v->d);
	if (v->peek) {
		pdo_json_newline(w);
		pdo_peek_json(w, v->peek, v->peek_regex, true);
	}
	pdo_json_close(w, '}');
	pdo_json_end(w);
	return 0;
}
