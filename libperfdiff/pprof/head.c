/*
 * An export's Profile fields besides samples and tables: which events go
 * out and their sample types, the default sample type (the event
 * pd_profile_default_event() picks), period_type and period, the run's
 * duration, and the comments: the caller's, and the perfdiff ones a
 * reader needs to restore the run (each event's perf identity; span,
 * lost and read samples, truncation, the time blocks' width).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define TYPE_SOFTWARE 1u

static const char *unit_of(const pd_profile *p, size_t ev)
{
	uint32_t type;
	uint64_t config;
	const char *pmu;
	pd_profile_event_ident(p, ev, &type, &config, &pmu);
	/* cpu-clock and task-clock count nanoseconds */
	return type == TYPE_SOFTWARE && config <= 1 ? "nanoseconds" : "count";
}

static pp_valuetype *value_type(pp_tables *t, const char *type, const char *unit)
{
	pp_valuetype *v = pd_arena_alloc(&t->arena, sizeof *v);
	if (!v)
		return NULL;
	perftools__profiles__value_type__init(v);
	v->type = pp_tables_str(t, type);
	v->unit = pp_tables_str(t, unit);
	return v->type < 0 || v->unit < 0 ? NULL : v;
}

static int add_comment(pp_head *h, pp_tables *t, const char *s)
{
	int64_t *v = realloc(h->comments, (h->ncomments + 1) * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	h->comments = v;
	int64_t i = pp_tables_str(t, s);
	if (i < 0)
		return PD_ENOMEM;
	h->comments[h->ncomments++] = i;
	return 0;
}

static int event_comment(pp_head *h, pp_tables *t, const pd_profile *p, size_t ev)
{
	uint32_t type;
	uint64_t config;
	const char *pmu;
	pd_profile_event_ident(p, ev, &type, &config, &pmu);
	char *s;
	if (asprintf(&s, PP_EVENT_COMMENT "%s type=%u config=%" PRIu64 "%s%s",
		     pd_profile_event_name(p, ev), type, config, pmu ? " pmu=" : "",
		     pmu ? pmu : "") < 0)
		return PD_ENOMEM;
	int rc = add_comment(h, t, s);
	free(s);
	return rc;
}

static int run_comment(pp_head *h, pp_tables *t, const pd_profile *p, size_t run)
{
	bool trunc = false;
	for (size_t r = 0; r < pd_profile_run_count(p); r++)
		trunc |= (run == SIZE_MAX || r == run) && pd_profile_run_truncated(p, r);
	char s[256];
	snprintf(s, sizeof s,
		 PP_RUN_COMMENT "span=%" PRIu64 " lost=%" PRIu64 " read=%" PRIu64
		 " truncated=%d block_width=%" PRIu64,
		 pd_profile_run_span(p, run), pd_profile_lost(p, run),
		 pd_profile_run_samples_read(p, run), trunc,
		 pd_profile_block_width(p, run == SIZE_MAX ? 0 : run));
	return add_comment(h, t, s);
}

/* Field `k` of the run's header facts; of every run when `run` is
 * SIZE_MAX, NULL unless all runs agree. */
static const char *info_value(const pd_profile *p, size_t run, const pp_infokey *k)
{
	size_t r0 = run == SIZE_MAX ? 0 : run;
	size_t r1 = run == SIZE_MAX ? pd_profile_run_count(p) : run + 1;
	const char *v = NULL;
	for (size_t r = r0; r < r1; r++) {
		pd_run_info ri = *pd_profile_run_info(p, r);
		const char *x = *pp_info_field(&ri, k);
		if (!x || (v && strcmp(v, x) != 0))
			return NULL;
		v = x;
	}
	return v;
}

/* perf's header facts, a comment each ("perf version 6.1.187"). */
static int info_comments(pp_head *h, pp_tables *t, const pd_profile *p, size_t run)
{
	for (size_t k = 0; k < PP_NINFOKEYS; k++) {
		const char *v = info_value(p, run, &pp_info_keys[k]);
		char *s;
		if (!v)
			continue;
		if (asprintf(&s, "%s%s", pp_info_keys[k].prefix, v) < 0)
			return PD_ENOMEM;
		int rc = add_comment(h, t, s);
		free(s);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The events with samples in the run, two sample types each. */
static int events(pp_head *h, pp_tables *t, pd_profile *p, size_t run)
{
	size_t ne = pd_profile_event_count(p);
	h->evs = malloc((ne ? ne : 1) * sizeof *h->evs);
	h->types = malloc((2 * ne + 1) * sizeof *h->types);
	if (!h->evs || !h->types)
		return PD_ENOMEM;
	for (size_t ev = 0; ev < ne; ev++) {
		if (pd_profile_samples(p, ev, run) == 0)
			continue;
		const char *name = pd_profile_event_name(p, ev);
		pp_valuetype *a = value_type(t, "samples", "count");
		pp_valuetype *b = value_type(t, name, unit_of(p, ev));
		if (!a || !b || event_comment(h, t, p, ev) < 0)
			return PD_ENOMEM;
		h->types[h->ntypes++] = a;
		h->types[h->ntypes++] = b;
		h->evs[h->nev++] = ev;
	}
	return 0;
}

int pp_head_build(pp_head *h, pp_tables *t, pd_profile *p, const pd_pprof_write_options *o)
{
	memset(h, 0, sizeof *h);
	int rc = events(h, t, p, o->run);
	for (size_t i = 0; i < o->ncomments && rc == 0; i++)
		rc = add_comment(h, t, o->comments[i] ? o->comments[i] : "");
	if (rc == 0)
		rc = info_comments(h, t, p, o->run);
	if (rc == 0)
		rc = run_comment(h, t, p, o->run);
	int d = pd_profile_default_event(p);
	if (rc < 0 || d < 0 || pd_profile_samples(p, (size_t)d, o->run) == 0)
		return rc;
	h->period_type = value_type(t, pd_profile_event_name(p, (size_t)d), unit_of(p, (size_t)d));
	if (!h->period_type)
		return PD_ENOMEM;
	h->default_type = h->period_type->type;
	/* the profile keeps no sampling period: the mean period stands for it */
	uint64_t total = pd_profile_total(p, (size_t)d, o->run);
	uint64_t mean = total / pd_profile_samples(p, (size_t)d, o->run);
	h->period = mean > INT64_MAX ? INT64_MAX : (int64_t)mean;
	return 0;
}

void pp_head_free(pp_head *h)
{
	free(h->comments);
	free(h->types);
	free(h->evs);
}
