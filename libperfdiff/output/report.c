/*
 * pd_report_write(): the options of a report checked and resolved once,
 * then one writer per format (report_text.c, report_json.c, csv.c,
 * folded.c, report_lkp.c), and the numbers they share: a
 * share of the total as perf rounds it, a dso's short name.
 */
#include <stddef.h>
#include <stdlib.h>

#include "internal.h"
#include "profile/options.h"
#include "util/util.h"

/* How far each version of pd_report_write_options went. */
static const size_t report_sizes[] = {
	0, PD_OPTIONS_END(pd_report_write_options, profile_options),
	PD_OPTIONS_END(pd_report_write_options, color),
	PD_OPTIONS_END(pd_report_write_options, nr_samples),
	PD_OPTIONS_END(pd_report_write_options, all_origins),
};

int pd_report_write_options_init(pd_report_write_options *o, unsigned version)
{
	const pd_report_write_options d = PD_REPORT_WRITE_OPTIONS_INIT;
	return pd_options_init(o, version, &d, report_sizes, PD_REPORT_WRITE_OPTIONS_VERSION);
}

static int check_event(const pdo_report *r)
{
	if (r->o.event < -1 || (r->o.event >= 0 &&
				(size_t)r->o.event >= pd_profile_event_count(r->p)))
		return pd_error_set(r->err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no event %d in the profile", r->o.event);
	return 0;
}

static int dispatch(const pdo_report *r)
{
	switch (r->o.format) {
	case PD_FORMAT_JSON:
		return pdo_report_json(r);
	case PD_FORMAT_CSV:
		return pdo_report_csv(r);
	case PD_FORMAT_FOLDED:
		return pdo_report_folded(r);
	case PD_FORMAT_LKP:
		return pdo_report_lkp(r);
	case PD_FORMAT_HTML:
		return pdo_report_html(r);
	default:
		return pdo_report_text(r);
	}
}

int pd_report_write(pd_writer *w, pd_profile *p, const pd_report_write_options *o,
		    pd_error *err)
{
	if (!w || !p)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no writer or profile given");
	pdo_report r = { .w = w, .p = p, .err = err };
	r.o = PD_REPORT_WRITE_OPTIONS_INIT;
	int rc = o ? pd_options_import(&r.o, o, report_sizes, PD_REPORT_WRITE_OPTIONS_VERSION,
				       "pd_report_write_options", "output", err) : 0;
	if (rc == 0)
		rc = pdo_format_check(r.o.format, PDO_BIT(PD_FORMAT_TEXT) | PDO_BIT(PD_FORMAT_JSON) |
				      PDO_BIT(PD_FORMAT_CSV) | PDO_BIT(PD_FORMAT_FOLDED) |
				      PDO_BIT(PD_FORMAT_LKP) | PDO_BIT(PD_FORMAT_HTML), "a report", err);
	if (rc == 0)
		rc = check_event(&r);
	if (rc == 0 && r.o.peek && r.o.format != PD_FORMAT_TEXT && r.o.format != PD_FORMAT_JSON)
		rc = pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				  "a peek is written as text or JSON only");
	if (r.o.threshold < 0)
		r.o.threshold = r.o.percent_limit > 0 ? r.o.percent_limit : 0.5;
	/* the profile's options as this library lays them out, whatever
	 * version the caller's are */
	pd_profile_opts popts;
	if (rc == 0)
		rc = pd_profile_opts_import(&popts, r.o.profile_options, "output", err);
	if (rc < 0)
		return rc;
	r.popts = &popts.o;
	rc = dispatch(&r);
	if (rc < 0)
		return rc;
	return pdo_done(w, err);
}

int pdo_report_peek(const pdo_report *r, size_t ev)
{
	pd_peek *pk;
	int rc = pd_profile_peek(r->p, ev, r->o.peek, &pk, r->err);
	if (rc < 0)
		return rc;
	if (r->o.format == PD_FORMAT_JSON)
		pdo_peek_json(r->w, pk, r->o.peek, false);
	else
		pdo_peek_text(r->w, pk, r->o.peek, false);
	pd_peek_free(pk);
	return 0;
}

size_t pdo_report_events(const pdo_report *r, size_t *evs)
{
	if (r->o.event >= 0) {
		evs[0] = (size_t)r->o.event;
		return 1;
	}
	size_t n = 0;
	for (size_t i = 0; i < pd_profile_event_count(r->p); i++)
		if (pd_profile_samples(r->p, i, SIZE_MAX) > 0)
			evs[n++] = i;
	return n;
}

uint64_t pdo_hundredths(uint64_t v, uint64_t total)
{
	if (!total)
		return 0;
	/* the share as perf computes it, rounded as printf("%.2f") rounds:
	 * to nearest, ties to even (1 sample in 800 is 0.12, as in perf) */
	double y = 100.0 * (double)v / (double)total * 100.0;
	uint64_t t = (uint64_t)y;  /* libm-free rint() for y >= 0 */
	double frac = y - (double)t;
	if (frac > 0.5 || (frac == 0.5 && (t & 1)))
		t++;
	return t;
}

void pdo_put_pct(pd_writer *w, uint64_t v, uint64_t total, unsigned width)
{
	/* by hand: one row and chain line each, hundreds of thousands */
	char tmp[32];
	char *end = tmp + sizeof tmp, *p = end;
	uint64_t h = pdo_hundredths(v, total);
	*--p = (char)('0' + h % 10);
	*--p = (char)('0' + h / 10 % 10);
	*--p = '.';
	uint64_t whole = h / 100;
	do
		*--p = (char)('0' + whole % 10);
	while ((whole /= 10) && p > tmp);
	size_t n = (size_t)(end - p);
	if (!pdo_reserve(w, n + width))
		return;
	for (size_t i = n; i < width; i++)
		pdo_putc_r(w, ' ');
	pdo_putn_r(w, p, n);
}

const char *pdo_short_dso(const char *dso)
{
	if (!dso)
		return "[unknown]";
	if (dso[0] == '[')
		return dso;
	const char *s = strrchr(dso, '/');
	return s && s[1] ? s + 1 : dso;
}
