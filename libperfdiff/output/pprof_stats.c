/*
 * pd_pprof_write_stats(): `perfdiff dump --stats` of a pprof file, what
 * the Profile holds, in the layout of the perf.data report (the CLI's
 * stats.c: "label:" in 22 columns, or one JSON object): its sample types
 * with each one's total, the period, start and duration, the comments,
 * and how many entries each table has.  The totals are what
 * `go tool pprof -raw` and -traces sum, so the two can be checked against
 * each other.
 */
#include <inttypes.h>

#include "internal.h"
#include "perfdiff/pprof.h"
#include "util/util.h"

static const struct {
	const char *key;
	pd_pprof_table t;
} tables[] = {
	{ "samples", PD_PPROF_SAMPLES },     { "locations", PD_PPROF_LOCATIONS },
	{ "functions", PD_PPROF_FUNCTIONS }, { "mappings", PD_PPROF_MAPPINGS },
	{ "strings", PD_PPROF_STRINGS },
};
#define NTABLES (sizeof tables / sizeof tables[0])

static void text_types(pd_writer *w, const pd_pprof *pp)
{
	size_t n = pd_pprof_type_count(pp), def = pd_pprof_default_type(pp);
	pd_writer_printf(w, "%-22s%zu\n", "sample types:", n);
	for (size_t i = 0; i < n; i++) {
		pd_writer_printf(w, "  %-20s", "");
		pd_writer_text(w, pd_pprof_type_name(pp, i));
		pd_writer_printf(w, "/");
		pd_writer_text(w, pd_pprof_type_unit(pp, i));
		pd_writer_printf(w, " total %" PRIu64 "%s\n", pd_pprof_total(pp, i),
				 i == def ? " (default)" : "");
	}
}

static void text_head(pd_writer *w, const pd_pprof *pp)
{
	const char *type, *unit;
	int64_t period;
	pd_pprof_period(pp, &type, &unit, &period);
	pd_writer_printf(w, "%-22s", "period:");
	pd_writer_text(w, *type ? type : "(none)");
	pd_writer_printf(w, "/");
	pd_writer_text(w, unit);
	pd_writer_printf(w, " %" PRId64 "\n", period);
	pd_writer_printf(w, "%-22s%" PRId64 "\n", "time_nanos:", pd_pprof_time_nanos(pp));
	pd_writer_printf(w, "%-22s%" PRId64 "\n", "duration_nanos:",
			 pd_pprof_duration_nanos(pp));
	size_t nc = pd_pprof_comment_count(pp);
	pd_writer_printf(w, "%-22s%zu\n", "comments:", nc);
	for (size_t i = 0; i < nc; i++) {
		pd_writer_printf(w, "  %-20s", "");
		pd_writer_text(w, pd_pprof_comment(pp, i));
		pd_writer_printf(w, "\n");
	}
}

static void write_text(pd_writer *w, const pd_pprof *pp, const char *path)
{
	pd_writer_printf(w, "%-22s", "file:");
	pd_writer_text(w, path ? path : "");
	pd_writer_printf(w, "\n%-22spprof\n", "format:");
	text_types(w, pp);
	text_head(w, pp);
	for (size_t i = 0; i < NTABLES; i++) {
		char label[24];
		snprintf(label, sizeof label, "%s:", tables[i].key);
		pd_writer_printf(w, "%-22s%zu\n", label, pd_pprof_count(pp, tables[i].t));
	}
}

static void json_types(pd_writer *w, const pd_pprof *pp)
{
	size_t n = pd_pprof_type_count(pp);
	pd_json_key(w, "sample_types");
	pd_json_begin_array(w);
	for (size_t i = 0; i < n; i++) {
		pd_json_begin_object(w);
		pd_json_key(w, "type");
		pd_json_string(w, pd_pprof_type_name(pp, i));
		pd_json_key(w, "unit");
		pd_json_string(w, pd_pprof_type_unit(pp, i));
		pd_json_key(w, "total");
		pd_json_u64(w, pd_pprof_total(pp, i));
		pd_json_end_object(w);
	}
	pd_json_end_array(w);
	pd_json_key(w, "default_sample_type");
	pd_json_string(w, n ? pd_pprof_type_name(pp, pd_pprof_default_type(pp)) : NULL);
}

static void json_head(pd_writer *w, const pd_pprof *pp)
{
	const char *type, *unit;
	int64_t period;
	pd_pprof_period(pp, &type, &unit, &period);
	pd_json_key(w, "period_type");
	pd_json_begin_object(w);
	pd_json_key(w, "type");
	pd_json_string(w, type);
	pd_json_key(w, "unit");
	pd_json_string(w, unit);
	pd_json_end_object(w);
	pd_json_key(w, "period");
	pd_json_i64(w, period);
	pd_json_key(w, "time_nanos");
	pd_json_i64(w, pd_pprof_time_nanos(pp));
	pd_json_key(w, "duration_nanos");
	pd_json_i64(w, pd_pprof_duration_nanos(pp));
	pd_json_key(w, "comments");
	pd_json_begin_array(w);
	for (size_t i = 0; i < pd_pprof_comment_count(pp); i++)
		pd_json_string(w, pd_pprof_comment(pp, i));
	pd_json_end_array(w);
}

static void write_json(pd_writer *w, const pd_pprof *pp, const char *path)
{
	pd_json_begin_object(w);
	pd_json_key(w, "file");
	pd_json_string(w, path);
	pd_json_key(w, "format");
	pd_json_string(w, "pprof");
	json_types(w, pp);
	json_head(w, pp);
	pd_json_key(w, "counts");
	pd_json_begin_object(w);
	for (size_t i = 0; i < NTABLES; i++) {
		pd_json_key(w, tables[i].key);
		pd_json_u64(w, pd_pprof_count(pp, tables[i].t));
	}
	pd_json_end_object(w);
	pd_json_end_object(w);
	pd_json_end(w);
}

int pd_pprof_write_stats(const pd_pprof *pp, pd_writer *w, pd_format fmt, const char *path,
			 pd_error *err)
{
	if (!pp || !w)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no pprof or writer given");
	int rc = pdo_format_check(fmt, PDO_BIT(PD_FORMAT_TEXT) | PDO_BIT(PD_FORMAT_JSON),
				  "dump --stats", err);
	if (rc < 0)
		return rc;
	if (fmt == PD_FORMAT_JSON)
		write_json(w, pp, path);
	else
		write_text(w, pp, path);
	return pdo_done(w, err);
}
