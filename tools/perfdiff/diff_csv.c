/*
 * `perfdiff diff --format=csv`: RFC 4180, as `report --format=csv` writes
 * it (CRLF line ends, fields quoted only when they hold a comma, a quote
 * or a line break), one line per row with the fields of the JSON rows
 * (docs/diff-json.md) and the value of every run at the end.  Missing
 * values (no dso, no relation, a p-value that could not be computed) are
 * empty fields.
 */
#include <math.h>
#include <string.h>

#include "diff_cli.h"

static void put_field(const char *s, FILE *f)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (const char *c = s; *c; c++) {
		if (*c == '"')
			fputc('"', f);
		fputc(*c, f);
	}
	fputc('"', f);
}

static void put_num(double x, FILE *f)
{
	fputc(',', f);
	if (isfinite(x))
		fprintf(f, "%.10g", x);
}

int diff_write_csv(const diff_view *v, FILE *f)
{
	fputs("metric,key,symbol,dso,base_mean,base_stddev,base_present,new_mean,new_stddev,"
	      "new_present,change,significant,p_value,q_value,relation,relation_base,"
	      "relation_new,relation_net", f);
	for (size_t r = 0; r < v->nruns[0]; r++)
		fprintf(f, ",base_%zu", r);
	for (size_t r = 0; r < v->nruns[1]; r++)
		fprintf(f, ",new_%zu", r);
	fputs("\r\n", f);
	size_t n = pd_diff_row_count(v->d);
	for (size_t i = 0; i < n; i++) {
		const pd_diff_row *r = diff_row(v->d, i);
		if (!dv_shown(v, r))
			continue;
		put_field(pd_diff_metric_name(r->metric), f);
		fputc(',', f);
		put_field(r->key, f);
		fputc(',', f);
		put_field(r->symbol, f);
		fputc(',', f);
		put_field(r->dso, f);
		put_num(r->base.mean, f);
		put_num(r->base.stddev, f);
		fprintf(f, ",%zu", r->base.present);
		put_num(r->new.mean, f);
		put_num(r->new.stddev, f);
		fprintf(f, ",%zu", r->new.present);
		put_num(r->change, f);
		fputs(r->significant ? ",1" : ",0", f);
		put_num(r->p_value, f);
		put_num(r->q_value, f);
		const pd_diff_relation *rel = r->relation;
		fputc(',', f);
		if (rel) {
			put_field(pd_diff_relation_kind_name(rel->kind), f);
			fputc(',', f);
			put_field(rel->base_symbol, f);
			fputc(',', f);
			put_field(rel->new_symbol, f);
			put_num(rel->net, f);
		} else {
			fputs(",,,", f);
		}
		/* every row has one value per run of its side */
		for (int side = 0; side < 2; side++) {
			const pd_diff_side *s = side ? &r->new : &r->base;
			for (size_t k = 0; k < v->nruns[side]; k++)
				if (s->runs && k < s->nruns)
					put_num(s->runs[k], f);
				else
					fputc(',', f);
		}
		fputs("\r\n", f);
	}
	return ferror(f) ? -1 : 0;
}
