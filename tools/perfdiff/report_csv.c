/*
 * `perfdiff report --format=csv` (RFC 4180: one line per row of every
 * event, quoted where needed) and `--format=folded` (Brendan Gregg's
 * collapsed stacks, the input of flamegraph.pl: "comm;root;...;leaf N",
 * the stack written by folded.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "report.h"

static void put_csv_field(outbuf *b, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		ob_puts(b, s);
		return;
	}
	rb_putc(b, '"');
	for (const char *c = s; *c; c++) {
		if (*c == '"')
			rb_putc(b, '"');
		rb_putc(b, *c);
	}
	rb_putc(b, '"');
}

static void put_u64(outbuf *b, uint64_t v)
{
	if (ob_reserve(b, OB_DEC_MAX))
		ob_dec_r(b, v, 0, ' ', false);
}

static void put_pct(outbuf *b, uint64_t v, uint64_t total)
{
	char tmp[48];
	int n = snprintf(tmp, sizeof tmp, "%.4f",
			 total ? 100.0 * (double)v / (double)total : 0.0);
	ob_putn(b, tmp, n > 0 ? (size_t)n : 0);
}

int report_csv(pd_profile *p, const report_opts *o, outbuf *b)
{
	size_t runs = pd_profile_run_count(p);
	ob_puts(b, "event,symbol,dso,level,inlined,children_pct,self_pct,children,self");
	char tmp[64];
	for (size_t r = 0; r < runs; r++) {
		snprintf(tmp, sizeof tmp, ",children_%zu,self_%zu", r, r);
		ob_puts(b, tmp);
	}
	ob_puts(b, "\r\n");
	size_t nev = pd_profile_event_count(p);
	size_t *evs = malloc((nev ? nev : 1) * sizeof *evs);
	if (!evs)
		return -1;
	size_t k = report_events(p, o, evs);
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0; i++) {
		size_t ev = evs[i];
		const pd_flat_entry *fl;
		size_t n;
		pd_error err;
		if (pd_profile_flat(p, ev, &fl, &n, &err) < 0) {
			cli_error("%s", err.message);
			rc = -1;
			break;
		}
		uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
		uint64_t min = (uint64_t)((double)total * o->percent_limit / 100.0);
		const char *name = pd_profile_event_name(p, ev);
		for (size_t j = 0; j < n; j++) {
			const pd_flat_entry *e = &fl[j];
			if ((o->sort_self ? e->self : e->children) < min)
				continue;
			put_csv_field(b, name);
			rb_putc(b, ',');
			put_csv_field(b, e->symbol);
			rb_putc(b, ',');
			put_csv_field(b, e->dso);
			ob_puts(b, e->kernel ? ",k," : ",.,");
			ob_puts(b, e->inlined ? "1," : "0,");
			put_pct(b, e->children, total);
			rb_putc(b, ',');
			put_pct(b, e->self, total);
			rb_putc(b, ',');
			put_u64(b, e->children);
			rb_putc(b, ',');
			put_u64(b, e->self);
			for (size_t r = 0; r < runs; r++) {
				rb_putc(b, ',');
				put_u64(b, e->children_runs[r]);
				rb_putc(b, ',');
				put_u64(b, e->self_runs[r]);
			}
			ob_puts(b, "\r\n");
			if (report_flush_some(b) < 0) {
				rc = -1;
				break;
			}
		}
	}
	free(evs);
	return rc < 0 || b->oom ? -1 : 0;
}

int report_folded(pd_profile *p, const report_opts *o, outbuf *b)
{
	const pd_stack *st;
	size_t n;
	pd_error err;
	size_t ev = (size_t)o->event;
	if (pd_profile_stacks(p, ev, &st, &n, &err) < 0) {
		cli_error("%s", err.message);
		return -1;
	}
	folded_path fp = { 0 };
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = folded_put_stack(b, &st[i], &fp);
		rb_putc(b, ' ');
		put_u64(b, folded_weight(&st[i], o->weight_samples));
		rb_putc(b, '\n');
		if (rc == 0)
			rc = report_flush_some(b);
	}
	folded_path_free(&fp);
	return rc < 0 || b->oom ? -1 : 0;
}
