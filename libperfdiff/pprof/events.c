/*
 * Sample types ↔ events.  An export writes each event as two sample
 * types, ("samples", "count") then (event name, unit), and a comment with
 * the event's perf identity, so that a re-read event matches the same
 * event of a perf.data run.  A foreign profile's types are paired the
 * same way where they come so (Go's CPU profile: samples/count,
 * cpu/nanoseconds); a type alone is an event whose period is its value.
 * Go's "cpu" is taken for cpu-clock, the event perf samples CPU time by;
 * any other foreign type gets an identity of its own from its name.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define TYPE_SOFTWARE 1u
#define SW_CPU_CLOCK 0u
/* foreign sample types: a type no perf event has */
#define TYPE_FOREIGN 0xfffffff0u

static bool is_count(const pp_profile *m, size_t i)
{
	return strcmp(pp_str(m, m->sample_type[i]->type), "samples") == 0 &&
	       strcmp(pp_str(m, m->sample_type[i]->unit), "count") == 0;
}

/* The comment "perfdiff.event NAME type=T config=C[ pmu=P]" of `name`. */
static bool ident_comment(const pp_profile *m, const char *name, pp_event *e)
{
	size_t nl = strlen(name), cl = strlen(PP_EVENT_COMMENT);
	for (size_t i = 0; i < m->n_comment; i++) {
		const char *c = pp_str(m, m->comment[i]);
		if (strncmp(c, PP_EVENT_COMMENT, cl) || strncmp(c + cl, name, nl) || c[cl + nl] != ' ')
			continue;
		unsigned type;
		uint64_t config;
		int at = 0;
		if (sscanf(c + cl + nl, " type=%u config=%" SCNu64 "%n", &type, &config, &at) < 2)
			continue;
		e->type = type;
		e->config = config;
		const char *pmu = strstr(c + cl + nl + at, " pmu=");
		e->pmu = pmu ? pmu + 5 : NULL;
		return true;
	}
	return false;
}

static void foreign_ident(const char *name, const char *unit, pp_event *e)
{
	if (strcmp(name, "cpu") == 0 && strcmp(unit, "nanoseconds") == 0) {
		e->type = TYPE_SOFTWARE;
		e->config = SW_CPU_CLOCK;
		e->name = "cpu-clock";
		return;
	}
	e->type = TYPE_FOREIGN;
	e->config = (uint32_t)pd_hash_str(PD_HASH_INIT, name);
}

/* Event of the sample type at `at` (the period), counted by `count_at`. */
static void one_event(const pp_profile *m, int count_at, int at, pp_event *e)
{
	const char *name = pp_str(m, m->sample_type[at]->type);
	const char *unit = pp_str(m, m->sample_type[at]->unit);
	*e = (pp_event){ count_at, at, 0, 0, NULL, name };
	if (!*name)
		e->name = "pprof";
	if (!ident_comment(m, name, e))
		foreign_ident(e->name, unit, e);
}

int pp_events(const pp_profile *m, pp_event *ev, size_t *nev, const char *name,
	      pd_error *err)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n_sample_type; n++) {
		/* an export's event may itself be named "samples": its comment
		 * says it is an event */
		pp_event probe;
		bool pair = is_count(m, i) && i + 1 < m->n_sample_type &&
			    (!is_count(m, i + 1) ||
			     ident_comment(m, pp_str(m, m->sample_type[i + 1]->type), &probe));
		if (pair) {
			one_event(m, (int)i, (int)i + 1, &ev[n]);
			i += 2;
			continue;
		}
		/* a type alone: its value is the period; a count is also the samples */
		bool count = strcmp(pp_str(m, m->sample_type[i]->unit), "count") == 0;
		one_event(m, count ? (int)i : -1, (int)i, &ev[n]);
		i++;
	}
	(void)name;
	(void)err;
	*nev = n;
	return 0;
}

const pp_infokey pp_info_keys[PP_NINFOKEYS] = {
	{ "perf version ", offsetof(pd_run_info, perf_version) },
	{ "hostname ", offsetof(pd_run_info, hostname) },
	{ "kernel ", offsetof(pd_run_info, osrelease) },
	{ "arch ", offsetof(pd_run_info, arch) },
	{ "perf command line: ", offsetof(pd_run_info, cmdline) },
};

/* A comment of perf's header facts into ri->run.info: whether it was one. */
static bool info_comment(const char *c, pp_runinfo *ri)
{
	for (size_t k = 0; k < PP_NINFOKEYS; k++) {
		const char *pre = pp_info_keys[k].prefix;
		if (strncmp(c, pre, strlen(pre)) == 0) {
			*pp_info_field(&ri->run.info, &pp_info_keys[k]) = c + strlen(pre);
			return true;
		}
	}
	return false;
}

/* "perfdiff.run span=N lost=N read=N truncated=B block_width=N", and the
 * header facts' comments */
void pp_runinfo_read(const pp_profile *m, pp_runinfo *ri)
{
	memset(ri, 0, sizeof *ri);
	ri->run.span = m->duration_nanos > 0 ? (uint64_t)m->duration_nanos : 0;
	ri->run.start = m->time_nanos > 0 ? (uint64_t)m->time_nanos : 0;
	size_t cl = strlen(PP_RUN_COMMENT);
	for (size_t i = 0; i < m->n_comment; i++) {
		const char *c = pp_str(m, m->comment[i]);
		if (info_comment(c, ri) || strncmp(c, PP_RUN_COMMENT, cl))
			continue;
		uint64_t span, lost, read, bw;
		unsigned trunc;
		if (sscanf(c + cl, "span=%" SCNu64 " lost=%" SCNu64 " read=%" SCNu64
			   " truncated=%u block_width=%" SCNu64, &span, &lost, &read, &trunc,
			   &bw) != 5)
			continue;
		pd_run_info info = ri->run.info;
		ri->run = (pd_pbuild_run){ span, ri->run.start, lost, read, trunc != 0, bw, info };
		ri->from_perfdiff = true;
	}
}
