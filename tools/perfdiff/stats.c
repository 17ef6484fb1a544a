/*
 * `dump --stats`: header facts and counters of what was read, as text
 * (similar in spirit to `perf report --stats`) or as one JSON object.
 * Records with a type this library cannot name are summed under "UNKNOWN".
 * Unless --no-symbols is given, the report ends with what symbolizing the
 * samples found (stats_symbols.c).
 */
#include <inttypes.h>
#include <string.h>

#include "dump.h"
#include "json_out.h"
#include "utf8.h"

void stats_times_add(stats_times *t, const pd_record *rec)
{
	if (rec->type != PD_RECORD_SAMPLE ||
	    !(rec->u.sample.sample_type & PD_SAMPLE_TIME))
		return;
	uint64_t v = rec->u.sample.time;
	if (!t->have) {
		t->have = true;
		t->first = t->last = v;
		return;
	}
	if (v < t->first)
		t->first = v;
	if (v > t->last)
		t->last = v;
}

static bool host_is_little_endian(void)
{
	const uint16_t one = 1;
	uint8_t b;
	memcpy(&b, &one, 1);
	return b == 1;
}

static const char *byte_order(const pd_header_info *h)
{
	return host_is_little_endian() != h->swapped ? "little-endian"
						     : "big-endian";
}

static uint64_t unknown_count(const pd_reader_stats *s)
{
	uint64_t n = s->unknown_types;
	for (uint32_t i = 0; i < 128; i++)
		if (!pd_record_type_name(i))
			n += s->by_type[i];
	return n;
}

/* The SAMPLE_TIME feature when the file has it, else what was seen. */
static bool sample_range(const pd_header_info *h, const stats_times *t,
			 uint64_t *first, uint64_t *last, const char **source)
{
	/* A pipe's SAMPLE_TIME is written before any sample, as zeros. */
	if (h->has_sample_time && h->sample_time_last != 0) {
		*first = h->sample_time_first;
		*last = h->sample_time_last;
		*source = "header";
		return true;
	}
	if (t && t->have) {
		*first = t->first;
		*last = t->last;
		*source = "samples";
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------ text */

static void text_str(FILE *f, const char *label, const char *s)
{
	fprintf(f, "%-22s", label);
	utf8_fput_escaped(s ? s : "(absent)", f);
	fputc('\n', f);
}

static void text_time(FILE *f, uint64_t t)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, t / 1000000000u, t % 1000000000u);
}

static void text_header(FILE *f, const pd_header_info *h, const stats_times *t)
{
	fprintf(f, "%-22s%s\n", "mode:", cli_mode_name(h->mode));
	fprintf(f, "%-22s%s%s\n", "byte order:", byte_order(h),
		h->v1 ? " (PERFFILE v1)" : "");
	text_str(f, "perf version:", h->version);
	text_str(f, "hostname:", h->hostname);
	text_str(f, "os release:", h->osrelease);
	text_str(f, "arch:", h->arch);
	if (h->nr_cpus_available || h->nr_cpus_online)
		fprintf(f, "%-22s%" PRIu32 " online, %" PRIu32 " available\n",
			"cpus:", h->nr_cpus_online, h->nr_cpus_available);
	else
		fprintf(f, "%-22s(absent)\n", "cpus:");
	fprintf(f, "%-22s", "cmdline:");
	if (!h->cmdline_nr)
		fputs("(absent)", f);
	for (size_t i = 0; i < h->cmdline_nr; i++) {
		if (i)
			fputc(' ', f);
		utf8_fput_escaped(h->cmdline[i] ? h->cmdline[i] : "", f);
	}
	fputc('\n', f);
	if (h->compressed)
		fprintf(f, "%-22syes (type %" PRIu32 ", level %" PRIu32 ")\n",
			"compressed:", h->comp_type, h->comp_level);
	else
		fprintf(f, "%-22sno\n", "compressed:");
	uint64_t first, last;
	const char *src;
	fprintf(f, "%-22s", "sample time:");
	if (sample_range(h, t, &first, &last, &src)) {
		text_time(f, first);
		fputs(" .. ", f);
		text_time(f, last);
		fprintf(f, " (from %s)\n", src);
	} else {
		fputs("(none)\n", f);
	}
}

static void text_count(FILE *f, const char *name, uint64_t n, uint64_t total)
{
	fprintf(f, "%20s records: %10" PRIu64, name, n);
	if (total)
		fprintf(f, "  (%4.1f%%)", 100.0 * (double)n / (double)total);
	fputc('\n', f);
}

static void text_counts(FILE *f, const pd_reader *r)
{
	const pd_reader_stats *s = pd_reader_stats_get(r);
	fputs("\nrecords:\n", f);
	fprintf(f, "%20s records: %10" PRIu64 "\n", "TOTAL", s->records);
	for (uint32_t i = 0; i < 128; i++) {
		const char *n = pd_record_type_name(i);
		if (n && s->by_type[i])
			text_count(f, n, s->by_type[i], s->records);
	}
	uint64_t unk = unknown_count(s);
	if (unk)
		text_count(f, "UNKNOWN", unk, s->records);
	fprintf(f, "%29s %10" PRIu64 "\n", "from compressed records:",
		s->compressed_inner);

	fputs("\nsamples per event:\n", f);
	size_t na = pd_reader_attr_count(r);
	for (size_t i = 0; i < na; i++) {
		const pd_attr *a = pd_reader_attr(r, i);
		fputs("  ", f);
		utf8_fput_escaped(a && a->name ? a->name : "?", f);
		fprintf(f, ": %" PRIu64 "\n", pd_reader_attr_samples(r, i));
	}
	fprintf(f, "%-22s%" PRIu64 "\n", "unattributed samples:",
		s->unattributed);
	fprintf(f, "%-22s%" PRIu64 "\n", "total samples:",
		s->by_type[PD_RECORD_SAMPLE]);

	fputc('\n', f);
	fprintf(f, "%-22s%" PRIu64 " (sum of LOST records)\n", "lost:", s->lost);
	fprintf(f, "%-22s%" PRIu64 " (sum of LOST_SAMPLES records)\n",
		"lost samples:", s->lost_samples);
	fprintf(f, "%-22s%" PRIu64 "\n", "out of order:", s->out_of_order);
	fprintf(f, "%-22s%" PRIu64 "\n", "bytes read:", s->bytes_read);
	if (s->bytes_decompressed)
		fprintf(f, "%-22s%" PRIu64 "\n", "bytes decompressed:",
			s->bytes_decompressed);

	size_t nw = pd_reader_warning_count(r);
	fprintf(f, "%-22s%zu\n", "warnings:", nw);
	for (size_t i = 0; i < nw; i++) {
		fputs("  ", f);
		const char *w = pd_reader_warning(r, i);
		utf8_fput_escaped(w ? w : "", f);
		fputc('\n', f);
	}
}

/* A titled list of per-dso sample counts, most first, or "(none)". */
static void text_dso_counts(FILE *f, const char *title, const stats_unresolved *v, size_t n)
{
	fprintf(f, "%s\n", title);
	if (!n)
		fputs("  (none)\n", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%12" PRIu64 "  ", v[i].samples);
		utf8_fput_escaped(v[i].dso, f);
		fputc('\n', f);
	}
}

/* Stacks of --call-graph dwarf samples that the unwinder could not follow
 * to their outermost frame, by the dso where it stopped. */
static void text_truncated(FILE *f, const stats_symbols *sym)
{
	uint64_t cut = 0;
	for (size_t i = 0; i < sym->ntruncated; i++)
		cut += sym->truncated[i].samples;
	fprintf(f, "%-22s%" PRIu64 " samples, %" PRIu64 " truncated",
		"user stacks unwound:", sym->unwound, cut);
	if (sym->unwound)
		fprintf(f, " (%.1f%%)", 100.0 * (double)cut / (double)sym->unwound);
	fputc('\n', f);
	text_dso_counts(f, "truncated stacks per dso:", sym->truncated, sym->ntruncated);
}

/* The session delivers every attributed sample (an unattributed one has no
 * event to lay it out by); `samples` counts those. */
static void text_symbols(FILE *f, const stats_symbols *sym)
{
	uint64_t total = sym->samples;
	fputc('\n', f);
	fprintf(f, "%-22s%" PRIu64 " of %" PRIu64 " samples symbolized",
		"leaf symbol named:", sym->resolved, total);
	if (total)
		fprintf(f, " (%.1f%%)", 100.0 * (double)sym->resolved / (double)total);
	fputc('\n', f);
	text_dso_counts(f, "unresolved samples per dso:", sym->unresolved, sym->nunresolved);
	text_truncated(f, sym);
	fprintf(f, "%-22s%zu\n", "symbol warnings:", sym->nwarnings);
	for (size_t i = 0; i < sym->nwarnings; i++) {
		fputs("  ", f);
		utf8_fput_escaped(sym->warnings[i], f);
		fputc('\n', f);
	}
	if (sym->error)
		text_str(f, "symbols error:", sym->error);
}

static void stats_text(FILE *f, const char *path, const pd_reader *r,
		       const stats_times *t, const char *error,
		       const stats_symbols *sym)
{
	text_str(f, "file:", path);
	if (r) {
		text_header(f, pd_reader_header(r), t);
		text_counts(f, r);
		if (sym)
			text_symbols(f, sym);
	}
	/* Reading stopped here: the counts above cover what came before. */
	if (error)
		text_str(f, "error:", error);
}

/* ------------------------------------------------------------------ json */

static void json_header(json_t *o, const pd_header_info *h,
			const stats_times *t)
{
	jo_set(o, "mode", json_string(cli_mode_name(h->mode)));
	jo_set(o, "byte_order", json_string(byte_order(h)));
	jo_set(o, "perf_version", jo_str(h->version));
	jo_set(o, "hostname", jo_str(h->hostname));
	jo_set(o, "osrelease", jo_str(h->osrelease));
	jo_set(o, "arch", jo_str(h->arch));
	jo_set(o, "nr_cpus_online", json_integer(h->nr_cpus_online));
	jo_set(o, "nr_cpus_available", json_integer(h->nr_cpus_available));
	json_t *cmd = json_array();
	for (size_t i = 0; cmd && i < h->cmdline_nr; i++)
		json_array_append_new(cmd, jo_str(h->cmdline[i]));
	jo_set(o, "cmdline", cmd);
	jo_set(o, "compressed", json_boolean(h->compressed));
	uint64_t first, last;
	const char *src;
	if (sample_range(h, t, &first, &last, &src)) {
		json_t *st = json_object();
		if (st) {
			jo_set(st, "first", jo_u64(first));
			jo_set(st, "last", jo_u64(last));
			jo_set(st, "source", json_string(src));
		}
		jo_set(o, "sample_time", st);
	} else {
		jo_set(o, "sample_time", json_null());
	}
}

static void json_counts(json_t *o, const pd_reader *r)
{
	const pd_reader_stats *s = pd_reader_stats_get(r);
	jo_set(o, "samples", jo_u64(s->by_type[PD_RECORD_SAMPLE]));
	jo_set(o, "total_records", jo_u64(s->records));
	json_t *recs = json_object();
	for (uint32_t i = 0; recs && i < 128; i++) {
		const char *n = pd_record_type_name(i);
		if (n && s->by_type[i])
			jo_set(recs, n, jo_u64(s->by_type[i]));
	}
	uint64_t unk = unknown_count(s);
	if (recs && unk)
		jo_set(recs, "UNKNOWN", jo_u64(unk));
	jo_set(o, "records", recs);
	jo_set(o, "compressed_inner", jo_u64(s->compressed_inner));

	json_t *ev = json_array();
	size_t na = pd_reader_attr_count(r);
	for (size_t i = 0; ev && i < na; i++) {
		const pd_attr *a = pd_reader_attr(r, i);
		json_t *e = json_object();
		if (!e || !a) {
			json_decref(e);
			continue;
		}
		jo_set(e, "name", jo_str(a->name));
		jo_set(e, "samples", jo_u64(pd_reader_attr_samples(r, i)));
		jo_set(e, "type", json_integer(a->type));
		jo_set(e, "config", jo_hex(a->config));
		json_array_append_new(ev, e);
	}
	jo_set(o, "events", ev);
	jo_set(o, "unattributed", jo_u64(s->unattributed));
	jo_set(o, "lost", jo_u64(s->lost));
	jo_set(o, "lost_samples", jo_u64(s->lost_samples));
	jo_set(o, "out_of_order", jo_u64(s->out_of_order));
	jo_set(o, "bytes_read", jo_u64(s->bytes_read));
	jo_set(o, "bytes_decompressed", jo_u64(s->bytes_decompressed));

	json_t *w = json_array();
	size_t nw = pd_reader_warning_count(r);
	for (size_t i = 0; w && i < nw; i++)
		json_array_append_new(w, jo_str(pd_reader_warning(r, i)));
	jo_set(o, "warnings", w);
}

/* [{dso, samples}], in the order given (most samples first). */
static json_t *json_dso_counts(const stats_unresolved *c, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		json_t *e = json_object();
		if (!e)
			continue;
		jo_set(e, "dso", jo_str(c[i].dso));
		jo_set(e, "samples", jo_u64(c[i].samples));
		json_array_append_new(a, e);
	}
	return a;
}

static void json_symbols(json_t *o, const stats_symbols *sym)
{
	jo_set(o, "samples_symbolized", jo_u64(sym->samples));
	jo_set(o, "samples_resolved", jo_u64(sym->resolved));
	jo_set(o, "unresolved", json_dso_counts(sym->unresolved, sym->nunresolved));
	jo_set(o, "unwound_samples", jo_u64(sym->unwound));
	jo_set(o, "truncated", json_dso_counts(sym->truncated, sym->ntruncated));
	json_t *w = json_array();
	for (size_t i = 0; w && i < sym->nwarnings; i++)
		json_array_append_new(w, jo_str(sym->warnings[i]));
	jo_set(o, "symbol_warnings", w);
	jo_set(o, "symbols_error", jo_str(sym->error));
}

/* The same keys when nothing could be read, so scripts need no special case. */
static void json_empty(json_t *o)
{
	jo_set(o, "mode", json_null());
	jo_set(o, "samples", json_integer(0));
	jo_set(o, "total_records", json_integer(0));
	jo_set(o, "records", json_object());
	jo_set(o, "events", json_array());
	jo_set(o, "lost", json_integer(0));
	jo_set(o, "lost_samples", json_integer(0));
	jo_set(o, "unattributed", json_integer(0));
	jo_set(o, "warnings", json_array());
}

static int stats_json(FILE *f, const char *path, const pd_reader *r,
		      const stats_times *t, const char *error,
		      const stats_symbols *sym)
{
	json_t *o = json_object();
	if (!o)
		return -1;
	jo_set(o, "file", jo_str(path));
	jo_set(o, "error", jo_str(error));
	if (r) {
		json_header(o, pd_reader_header(r), t);
		json_counts(o, r);
		if (sym)
			json_symbols(o, sym);
	} else {
		json_empty(o);
	}
	return jo_emit(o, f);
}

int stats_print(FILE *f, pd_format fmt, const char *path,
		const pd_reader *r, const stats_times *t, const char *error,
		const stats_symbols *sym)
{
	if (fmt == PD_FORMAT_JSON)
		return stats_json(f, path, r, t, error, sym);
	stats_text(f, path, r, t, error, sym);
	return ferror(f) ? -1 : 0;
}
