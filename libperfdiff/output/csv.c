/*
 * CSV (RFC 4180) of reports and diffs: CRLF line ends, a field quoted only
 * when it holds a comma, a quote or a line break, quotes doubled.  A
 * report has one line per row of every event, a diff one per shown row
 * with the value of every run at the end; missing values (no dso, no
 * relation, a p-value that could not be computed) are empty fields.
 */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

static void put_field(pd_writer *w, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		pdo_puts(w, s);
		return;
	}
	pdo_putc(w, '"');
	for (const char *c = s; *c; c++) {
		if (*c == '"')
			pdo_putc(w, '"');
		pdo_putc(w, *c);
	}
	pdo_putc(w, '"');
}

static void put_pct(pd_writer *w, uint64_t v, uint64_t total)
{
	pdo_printf(w, "%.4f", total ? 100.0 * (double)v / (double)total : 0.0);
}

static void report_head(const pdo_report *r, size_t runs)
{
	pdo_puts(r->w, "event,symbol,dso,level,inlined,children_pct,self_pct,children,self");
	for (size_t i = 0; i < runs; i++)
		pdo_printf(r->w, ",children_%zu,self_%zu", i, i);
	pdo_puts(r->w, "\r\n");
}

static void report_line(pd_writer *w, const char *event, const pd_flat_entry *e,
			uint64_t total, size_t runs)
{
	put_field(w, event);
	pdo_putc(w, ',');
	put_field(w, e->symbol);
	pdo_putc(w, ',');
	put_field(w, e->dso);
	pdo_puts(w, e->kernel ? ",k," : ",.,");
	pdo_puts(w, e->inlined ? "1," : "0,");
	put_pct(w, e->children, total);
	pdo_putc(w, ',');
	put_pct(w, e->self, total);
	pdo_putc(w, ',');
	pdo_dec(w, e->children);
	pdo_putc(w, ',');
	pdo_dec(w, e->self);
	for (size_t i = 0; i < runs; i++) {
		pdo_putc(w, ',');
		pdo_dec(w, e->children_runs[i]);
		pdo_putc(w, ',');
		pdo_dec(w, e->self_runs[i]);
	}
	pdo_puts(w, "\r\n");
	pdo_flush_some(w);
}

static int report_event(const pdo_report *r, size_t ev, size_t runs)
{
	const pd_flat_entry *fl;
	size_t n;
	int rc = pd_profile_flat(r->p, ev, &fl, &n, r->err);
	if (rc < 0)
		return rc;
	uint64_t total = pd_profile_total(r->p, ev, SIZE_MAX);
	uint64_t min = (uint64_t)((double)total * r->o.percent_limit / 100.0);
	const char *name = pd_profile_event_name(r->p, ev);
	for (size_t j = 0; j < n && !r->w->failed; j++)
		if ((r->o.sort_self ? fl[j].self : fl[j].children) >= min)
			report_line(r->w, name, &fl[j], total, runs);
	return 0;
}

int pdo_report_csv(const pdo_report *r)
{
	size_t runs = pd_profile_run_count(r->p);
	size_t nev = pd_profile_event_count(r->p);
	size_t *evs = malloc((nev ? nev : 1) * sizeof *evs);
	if (!evs)
		return pdo_nomem(r->err);
	report_head(r, runs);
	size_t k = pdo_report_events(r, evs);
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0 && !r->w->failed; i++)
		rc = report_event(r, evs[i], runs);
	free(evs);
	return rc;
}

/* ---- diff ---- */

static void put_num(pd_writer *w, double x)
{
	pdo_putc(w, ',');
	if (isfinite(x))
		pdo_printf(w, "%.10g", x);
}

static void diff_head(const pdo_diff *v)
{
	pdo_puts(v->w, "metric,key,symbol,dso,base_mean,base_stddev,base_present,new_mean,"
		 "new_stddev,new_present,change,significant,p_value,q_value,relation,"
		 "relation_base,relation_new,relation_net");
	for (size_t r = 0; r < v->nruns[0]; r++)
		pdo_printf(v->w, ",base_%zu", r);
	for (size_t r = 0; r < v->nruns[1]; r++)
		pdo_printf(v->w, ",new_%zu", r);
	pdo_puts(v->w, "\r\n");
}

static void diff_relation(pd_writer *w, const pd_diff_relation *rel)
{
	pdo_putc(w, ',');
	if (!rel) {
		pdo_puts(w, ",,,");
		return;
	}
	put_field(w, pd_diff_relation_kind_name(rel->kind));
	pdo_putc(w, ',');
	put_field(w, rel->base_symbol);
	pdo_putc(w, ',');
	put_field(w, rel->new_symbol);
	put_num(w, rel->net);
}

/* Every row has one value per run of its side. */
static void diff_runs(const pdo_diff *v, const pd_diff_row *r)
{
	for (int side = 0; side < 2; side++) {
		const pd_diff_side *s = side ? &r->new : &r->base;
		for (size_t k = 0; k < v->nruns[side]; k++)
			if (s->runs && k < s->nruns)
				put_num(v->w, s->runs[k]);
			else
				pdo_putc(v->w, ',');
	}
}

static void diff_line(const pdo_diff *v, const pd_diff_row *r)
{
	pd_writer *w = v->w;
	put_field(w, pd_diff_metric_name(r->metric));
	pdo_putc(w, ',');
	put_field(w, r->key);
	pdo_putc(w, ',');
	put_field(w, r->symbol);
	pdo_putc(w, ',');
	put_field(w, r->dso);
	put_num(w, r->base.mean);
	put_num(w, r->base.stddev);
	pdo_printf(w, ",%zu", r->base.present);
	put_num(w, r->new.mean);
	put_num(w, r->new.stddev);
	pdo_printf(w, ",%zu", r->new.present);
	put_num(w, r->change);
	pdo_puts(w, r->significant ? ",1" : ",0");
	put_num(w, r->p_value);
	put_num(w, r->q_value);
	diff_relation(w, r->relation);
	diff_runs(v, r);
	pdo_puts(w, "\r\n");
	pdo_flush_some(w);
}

int pdo_diff_csv(const pdo_diff *v)
{
	diff_head(v);
	size_t n = pd_diff_row_count(v->d);
	for (size_t k = 0; k < n && !v->w->failed; k++) {
		const pd_diff_row *r = pdo_diff_row(v, k);
		if (pdo_row_shown(v, r))
			diff_line(v, r);
	}
	return 0;
}
