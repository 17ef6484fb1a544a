/*
 * A peek (profile.h, pd_profile_peek(); diff.h, pd_diff_peek()) as text
 * and JSON: each function's callers above it and callees below it, as
 * pprof's -peek prints them.  A report's shows periods, with each edge's
 * share of the function's cum ("calls%" in pprof); a diff's shows each
 * side's share of its total and the change, the function's line also its
 * self, its children row's q-value and the relations that name it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "json.h"

/* The width of the columns before " | ": a report's, a diff's. */
#define WIDTH1 62
#define WIDTH2 60

static void rule(pd_writer *w, int width)
{
	for (int i = 0; i <= width; i++)
		pdo_putc(w, '-');
	pdo_puts(w, "+-------------\n");
}

static const char *base_name(const char *dso)
{
	const char *b = dso ? strrchr(dso, '/') : NULL;
	return b ? b + 1 : dso ? dso : "?";
}

/* "a", "a -> b" (two names), "a (base only)", "b (new only)". */
static void put_names(pd_writer *w, const pd_peek_line *l, bool two)
{
	if (l->base_symbol)
		pdo_put_escaped(w, l->base_symbol);
	if (two && l->base_symbol && l->new_symbol && strcmp(l->base_symbol, l->new_symbol)) {
		pdo_puts(w, " -> ");
		pdo_put_escaped(w, l->new_symbol);
	} else if (two && !l->base_symbol) {
		pdo_put_escaped(w, l->new_symbol);
		pdo_puts(w, " (new only)");
	} else if (two && !l->new_symbol) {
		pdo_puts(w, " (base only)");
	}
}

/* ------------------------------------------------------------ a report */

static void put_edges1(pd_writer *w, const pd_peek_line *v, size_t n, uint64_t cum)
{
	for (size_t i = 0; i < n; i++) {
		pdo_printf(w, "%41s %12" PRIu64 " %6.2f%% |   ", "", v[i].base_period,
			   cum ? 100.0 * (double)v[i].base_period / (double)cum : 0.0);
		put_names(w, &v[i], false);
		pdo_putc(w, '\n');
	}
}

static void put_entry1(pd_writer *w, const pd_peek_entry *e)
{
	put_edges1(w, e->callers, e->ncallers, e->fn.base_period);
	pdo_printf(w, "%12" PRIu64 " %6.2f%% %12" PRIu64 " %6.2f%% %20s | ", e->base_self,
		   e->base_self_pct, e->fn.base_period, e->fn.base_pct, "");
	put_names(w, &e->fn, false);
	pdo_printf(w, " [%s]\n", base_name(e->fn.dso));
	put_edges1(w, e->callees, e->ncallees, e->fn.base_period);
	rule(w, WIDTH1);
}

/* ------------------------------------------------------------ a diff */

static void put_edges2(pd_writer *w, const pd_peek_line *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pdo_printf(w, "%8.2f%% %8.2f%% %+8.2f %31s |   ", v[i].base_pct, v[i].new_pct,
			   v[i].change, "");
		put_names(w, &v[i], true);
		pdo_putc(w, '\n');
	}
}

static void put_relations(pd_writer *w, const pd_peek_entry *e)
{
	for (size_t i = 0; i < e->nrelations; i++) {
		const pd_diff_relation *r = e->relations[i];
		pdo_printf(w, "%*s |     %s ", WIDTH2, "", pd_diff_relation_kind_name(r->kind));
		pdo_put_escaped(w, r->base_symbol ? r->base_symbol : "?");
		pdo_puts(w, " -> ");
		pdo_put_escaped(w, r->new_symbol ? r->new_symbol : "?");
		pdo_printf(w, " (net %+.2f, score %.2f)\n", r->net, r->score);
	}
}

static void put_entry2(pd_writer *w, const pd_peek_entry *e)
{
	put_edges2(w, e->callers, e->ncallers);
	const pd_diff_row *row = e->children_row;
	char q[32] = "";
	if (row)
		snprintf(q, sizeof q, "q=%.2g%s", row->q_value, row->significant ? " *" : "");
	pdo_printf(w, "%8.2f%% %8.2f%% %+8.2f  self %6.2f%% %6.2f%% %-9s | ", e->fn.base_pct,
		   e->fn.new_pct, e->fn.change, e->base_self_pct, e->new_self_pct, q);
	put_names(w, &e->fn, true);
	pdo_printf(w, " [%s]\n", base_name(e->fn.dso));
	put_relations(w, e);
	put_edges2(w, e->callees, e->ncallees);
	rule(w, WIDTH2);
}

void pdo_peek_text(pd_writer *w, const pd_peek *pk, const char *regex, bool two)
{
	pdo_puts(w, "Peek '");
	pdo_put_escaped(w, regex);
	pdo_printf(w, "': %zu function%s, callers above and callees below each\n",
		   pd_peek_count(pk), pd_peek_count(pk) == 1 ? "" : "s");
	rule(w, two ? WIDTH2 : WIDTH1);
	if (two)
		pdo_printf(w, "%9s %9s %8s  %-30s | caller / function / callee\n", "base", "new",
			   "change", "(self base, new; q)");
	else
		pdo_printf(w, "%12s %7s %12s %7s %12s %7s | caller / function / callee\n", "self",
			   "self%", "cum", "cum%", "edge", "edge%");
	rule(w, two ? WIDTH2 : WIDTH1);
	for (size_t i = 0; i < pd_peek_count(pk); i++)
		(two ? put_entry2 : put_entry1)(w, pd_peek_at(pk, i));
}

/* ------------------------------------------------------------ JSON */

static void key_pct(pd_writer *w, const char *k, double x)
{
	char tmp[32];
	snprintf(tmp, sizeof tmp, "%.4f", x);
	pdo_json_key(w, k);
	pdo_json_raw(w, tmp);
}

static void line_json(pd_writer *w, const pd_peek_line *l, bool two)
{
	pdo_json_open(w, '{');
	pdo_json_key_str(w, two ? "base_symbol" : "symbol", l->base_symbol);
	if (two)
		pdo_json_key_str(w, "new_symbol", l->new_symbol);
	pdo_json_key_str(w, "dso", l->dso);
	pdo_json_key_u64(w, two ? "base_period" : "period", l->base_period);
	key_pct(w, two ? "base_pct" : "pct", l->base_pct);
	if (two) {
		pdo_json_key_u64(w, "new_period", l->new_period);
		key_pct(w, "new_pct", l->new_pct);
		key_pct(w, "change", l->change);
	}
	pdo_json_close(w, '}');
}

static void lines_json(pd_writer *w, const char *k, const pd_peek_line *v, size_t n, bool two)
{
	pdo_json_key(w, k);
	pdo_json_open(w, '[');
	for (size_t i = 0; i < n; i++)
		line_json(w, &v[i], two);
	pdo_json_close(w, ']');
}

static void row_json(pd_writer *w, const char *k, const pd_diff_row *r)
{
	pdo_json_key(w, k);
	if (!r) {
		pdo_json_raw(w, "null");
		return;
	}
	pdo_json_open(w, '{');
	key_pct(w, "change", r->change);
	pdo_json_key(w, "p_value");
	pdo_json_item(w);
	pdo_json_real(w, r->p_value);
	pdo_json_key(w, "q_value");
	pdo_json_item(w);
	pdo_json_real(w, r->q_value);
	pdo_json_key(w, "significant");
	pdo_json_raw(w, r->significant ? "true" : "false");
	pdo_json_close(w, '}');
}

static void relations_json(pd_writer *w, const pd_peek_entry *e)
{
	pdo_json_key(w, "relations");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < e->nrelations; i++) {
		const pd_diff_relation *r = e->relations[i];
		pdo_json_open(w, '{');
		pdo_json_key_str(w, "kind", pd_diff_relation_kind_name(r->kind));
		pdo_json_key_str(w, "base_symbol", r->base_symbol);
		pdo_json_key_str(w, "new_symbol", r->new_symbol);
		key_pct(w, "net", r->net);
		key_pct(w, "score", r->score);
		pdo_json_close(w, '}');
	}
	pdo_json_close(w, ']');
}

static void entry_json(pd_writer *w, const pd_peek_entry *e, bool two)
{
	pdo_json_newline(w);
	pdo_json_open(w, '{');
	pdo_json_key(w, "function");
	line_json(w, &e->fn, two);
	pdo_json_key_u64(w, two ? "base_self" : "self", e->base_self);
	key_pct(w, two ? "base_self_pct" : "self_pct", e->base_self_pct);
	if (two) {
		pdo_json_key_u64(w, "new_self", e->new_self);
		key_pct(w, "new_self_pct", e->new_self_pct);
		key_pct(w, "self_change", e->self_change);
		row_json(w, "children_row", e->children_row);
		row_json(w, "self_row", e->self_row);
		relations_json(w, e);
	}
	lines_json(w, "callers", e->callers, e->ncallers, two);
	lines_json(w, "callees", e->callees, e->ncallees, two);
	pdo_json_close(w, '}');
}

void pdo_peek_json(pd_writer *w, const pd_peek *pk, const char *regex, bool two)
{
	pdo_json_key(w, "peek");
	if (!pk) {
		pdo_json_raw(w, "null");
		return;
	}
	pdo_json_open(w, '{');
	pdo_json_key_str(w, "regex", regex);
	pdo_json_key(w, "functions");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < pd_peek_count(pk); i++)
		entry_json(w, pd_peek_at(pk, i), two);
	pdo_json_close(w, ']');
	pdo_json_close(w, '}');
}
