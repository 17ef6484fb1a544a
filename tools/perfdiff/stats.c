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

static void text_str(pd_writer *w, const char *label, const char *s)
{
	pd_writer_printf(w, "%-22s", label);
	pd_writer_text(w, s ? s : "(absent)");
	cli_putc(w, '\n');
}

static void text_time(pd_writer *w, uint64_t t)
{
	pd_writer_printf(w, "%" PRIu64 ".%09" PRIu64, t / 1000000000u, t % 1000000000u);
}

static void text_header(pd_writer *w, const pd_header_info *h, const stats_times *t)
{
	pd_writer_printf(w, "%-22s%s\n", "mode:", cli_mode_name(h->mode));
	pd_writer_printf(w, "%-22s%s%s\n", "byte order:", byte_order(h),
		h->v1 ? " (PERFFILE v1)" : "");
	text_str(w, "perf version:", h->version);
	text_str(w, "hostname:", h->hostname);
	text_str(w, "os release:", h->osrelease);
	text_str(w, "arch:", h->arch);
	if (h->nr_cpus_available || h->nr_cpus_online)
		pd_writer_printf(w, "%-22s%" PRIu32 " online, %" PRIu32 " available\n",
			"cpus:", h->nr_cpus_online, h->nr_cpus_available);
	else
		pd_writer_printf(w, "%-22s(absent)\n", "cpus:");
	pd_writer_printf(w, "%-22s", "cmdline:");
	if (!h->cmdline_nr)
		cli_puts(w, "(absent)");
	for (size_t i = 0; i < h->cmdline_nr; i++) {
		if (i)
			cli_putc(w, ' ');
		pd_writer_text(w, h->cmdline[i] ? h->cmdline[i] : "");
	}
	cli_putc(w, '\n');
	if (h->compressed)
		pd_writer_printf(w, "%-22syes (type %" PRIu32 ", level %" PRIu32 ")\n",
			"compressed:", h->comp_type, h->comp_level);
	else
		pd_writer_printf(w, "%-22sno\n", "compressed:");
	uint64_t first, last;
	const char *src;
	pd_writer_printf(w, "%-22s", "sample time:");
	if (sample_range(h, t, &first, &last, &src)) {
		text_time(w, first);
		cli_puts(w, " .. ");
		text_time(w, last);
		pd_writer_printf(w, " (from %s)\n", src);
	} else {
		cli_puts(w, "(none)\n");
	}
}

static void text_count(pd_writer *w, const char *name, uint64_t n, uint64_t total)
{
	pd_writer_printf(w, "%20s records: %10" PRIu64, name, n);
	if (total)
		pd_writer_printf(w, "  (%4.1f%%)", 100.0 * (double)n / (double)total);
	cli_putc(w, '\n');
}

static void text_counts(pd_writer *w, const pd_reader *r)
{
	const pd_reader_stats *s = pd_reader_stats_get(r);
	cli_puts(w, "\nrecords:\n");
	pd_writer_printf(w, "%20s records: %10" PRIu64 "\n", "TOTAL", s->records);
	for (uint32_t i = 0; i < 128; i++) {
		const char *n = pd_record_type_name(i);
		if (n && s->by_type[i])
			text_count(w, n, s->by_type[i], s->records);
	}
	uint64_t unk = unknown_count(s);
	if (unk)
		text_count(w, "UNKNOWN", unk, s->records);
	pd_writer_printf(w, "%29s %10" PRIu64 "\n", "from compressed records:",
		s->compressed_inner);

	cli_puts(w, "\nsamples per event:\n");
	size_t na = pd_reader_attr_count(r);
	for (size_t i = 0; i < na; i++) {
		const pd_attr *a = pd_reader_attr(r, i);
		cli_puts(w, "  ");
		pd_writer_text(w, a && a->name ? a->name : "?");
		pd_writer_printf(w, ": %" PRIu64 "\n", pd_reader_attr_samples(r, i));
	}
	pd_writer_printf(w, "%-22s%" PRIu64 "\n", "unattributed samples:",
		s->unattributed);
	pd_writer_printf(w, "%-22s%" PRIu64 "\n", "total samples:",
		s->by_type[PD_RECORD_SAMPLE]);

	cli_putc(w, '\n');
	pd_writer_printf(w, "%-22s%" PRIu64 " (sum of LOST records)\n", "lost:", s->lost);
	pd_writer_printf(w, "%-22s%" PRIu64 " (sum of LOST_SAMPLES records)\n",
		"lost samples:", s->lost_samples);
	pd_writer_printf(w, "%-22s%" PRIu64 "\n", "out of order:", s->out_of_order);
	pd_writer_printf(w, "%-22s%" PRIu64 " (KSYMBOL/BPF_EVENT larger than their contents)\n",
		"oversized side-band:", s->oversized_sideband);
	pd_writer_printf(w, "%-22s%" PRIu64 "\n", "bytes read:", s->bytes_read);
	if (s->bytes_decompressed)
		pd_writer_printf(w, "%-22s%" PRIu64 "\n", "bytes decompressed:",
			s->bytes_decompressed);

	size_t nw = pd_reader_warning_count(r);
	pd_writer_printf(w, "%-22s%zu\n", "warnings:", nw);
	for (size_t i = 0; i < nw; i++) {
		cli_puts(w, "  ");
		const char *msg = pd_reader_warning(r, i);
		pd_writer_text(w, msg ? msg : "");
		cli_putc(w, '\n');
	}
}

/* A titled list of per-dso sample counts, most first, or "(none)". */
static void text_dso_counts(pd_writer *w, const char *title, const stats_unresolved *v, size_t n)
{
	pd_writer_printf(w, "%s\n", title);
	if (!n)
		cli_puts(w, "  (none)\n");
	for (size_t i = 0; i < n; i++) {
		pd_writer_printf(w, "%12" PRIu64 "  ", v[i].samples);
		pd_writer_text(w, v[i].dso);
		cli_putc(w, '\n');
	}
}

/* Stacks of --call-graph dwarf samples that the unwinder could not follow
 * to their outermost frame, by the dso where it stopped. */
static void text_truncated(pd_writer *w, const stats_symbols *sym)
{
	uint64_t cut = 0;
	for (size_t i = 0; i < sym->ntruncated; i++)
		cut += sym->truncated[i].samples;
	pd_writer_printf(w, "%-22s%" PRIu64 " samples, %" PRIu64 " truncated",
		"user stacks unwound:", sym->unwound, cut);
	if (sym->unwound)
		pd_writer_printf(w, " (%.1f%%)", 100.0 * (double)cut / (double)sym->unwound);
	cli_putc(w, '\n');
	text_dso_counts(w, "truncated stacks per dso:", sym->truncated, sym->ntruncated);
}

/* The session delivers every attributed sample (an unattributed one has no
 * event to lay it out by); `samples` counts those. */
static void text_symbols(pd_writer *w, const stats_symbols *sym)
{
	uint64_t total = sym->samples;
	cli_putc(w, '\n');
	pd_writer_printf(w, "%-22s%" PRIu64 " of %" PRIu64 " samples symbolized",
		"leaf symbol named:", sym->resolved, total);
	if (total)
		pd_writer_printf(w, " (%.1f%%)", 100.0 * (double)sym->resolved / (double)total);
	cli_putc(w, '\n');
	text_dso_counts(w, "unresolved samples per dso:", sym->unresolved, sym->nunresolved);
	text_truncated(w, sym);
	text_dso_counts(w, "call chains cut at an invalid context value, per dso:",
			sym->invalid, sym->ninvalid);
	pd_writer_printf(w, "%-22s%zu\n", "symbol warnings:", sym->nwarnings);
	for (size_t i = 0; i < sym->nwarnings; i++) {
		cli_puts(w, "  ");
		pd_writer_text(w, sym->warnings[i]);
		cli_putc(w, '\n');
	}
	if (sym->error)
		text_str(w, "symbols error:", sym->error);
}

static void stats_text(pd_writer *w, const char *path, const pd_reader *r,
		       const stats_times *t, const char *error,
		       const stats_symbols *sym)
{
	text_str(w, "file:", path);
	if (r) {
		text_header(w, pd_reader_header(r), t);
		text_counts(w, r);
		if (sym)
			text_symbols(w, sym);
	}
	/* Reading stopped here: the counts above cover what came before. */
	if (error)
		text_str(w, "error:", error);
}

/* ------------------------------------------------------------------ json */

static void json_sample_time(pd_writer *w, const pd_header_info *h, const stats_times *t)
{
	uint64_t first, last;
	const char *src;
	if (!sample_range(h, t, &first, &last, &src)) {
		cli_json_null(w, "sample_time");
		return;
	}
	pd_json_key(w, "sample_time");
	pd_json_begin_object(w);
	cli_json_u64(w, "first", first);
	cli_json_u64(w, "last", last);
	cli_json_str(w, "source", src);
	pd_json_end_object(w);
}

static void json_header(pd_writer *w, const pd_header_info *h, const stats_times *t)
{
	cli_json_str(w, "mode", cli_mode_name(h->mode));
	cli_json_str(w, "byte_order", byte_order(h));
	cli_json_str(w, "perf_version", h->version);
	cli_json_str(w, "hostname", h->hostname);
	cli_json_str(w, "osrelease", h->osrelease);
	cli_json_str(w, "arch", h->arch);
	cli_json_i64(w, "nr_cpus_online", h->nr_cpus_online);
	cli_json_i64(w, "nr_cpus_available", h->nr_cpus_available);
	pd_json_key(w, "cmdline");
	pd_json_begin_array(w);
	for (size_t i = 0; i < h->cmdline_nr; i++)
		pd_json_string(w, h->cmdline[i]);
	pd_json_end_array(w);
	cli_json_bool(w, "compressed", h->compressed);
	json_sample_time(w, h, t);
}

static void json_records(pd_writer *w, const pd_reader_stats *s)
{
	pd_json_key(w, "records");
	pd_json_begin_object(w);
	for (uint32_t i = 0; i < 128; i++) {
		const char *n = pd_record_type_name(i);
		if (n && s->by_type[i])
			cli_json_u64(w, n, s->by_type[i]);
	}
	uint64_t unk = unknown_count(s);
	if (unk)
		cli_json_u64(w, "UNKNOWN", unk);
	pd_json_end_object(w);
}

static void json_events(pd_writer *w, const pd_reader *r)
{
	pd_json_key(w, "events");
	pd_json_begin_array(w);
	size_t na = pd_reader_attr_count(r);
	for (size_t i = 0; i < na; i++) {
		const pd_attr *a = pd_reader_attr(r, i);
		if (!a)
			continue;
		pd_json_begin_object(w);
		cli_json_str(w, "name", a->name);
		cli_json_u64(w, "samples", pd_reader_attr_samples(r, i));
		cli_json_i64(w, "type", a->type);
		cli_json_hex(w, "config", a->config);
		pd_json_end_object(w);
	}
	pd_json_end_array(w);
}

/* An array of strings under `key`; get(i) gives string i. */
static void json_strings(pd_writer *w, const char *key, size_t n,
			 const char *(*get)(const void *, size_t), const void *obj)
{
	pd_json_key(w, key);
	pd_json_begin_array(w);
	for (size_t i = 0; i < n; i++)
		pd_json_string(w, get(obj, i));
	pd_json_end_array(w);
}

static const char *reader_warning(const void *r, size_t i)
{
	return pd_reader_warning(r, i);
}

static void json_counts(pd_writer *w, const pd_reader *r)
{
	const pd_reader_stats *s = pd_reader_stats_get(r);
	cli_json_u64(w, "samples", s->by_type[PD_RECORD_SAMPLE]);
	cli_json_u64(w, "total_records", s->records);
	json_records(w, s);
	cli_json_u64(w, "compressed_inner", s->compressed_inner);
	json_events(w, r);
	cli_json_u64(w, "unattributed", s->unattributed);
	cli_json_u64(w, "lost", s->lost);
	cli_json_u64(w, "lost_samples", s->lost_samples);
	cli_json_u64(w, "out_of_order", s->out_of_order);
	cli_json_u64(w, "oversized_sideband", s->oversized_sideband);
	cli_json_u64(w, "bytes_read", s->bytes_read);
	cli_json_u64(w, "bytes_decompressed", s->bytes_decompressed);
	json_strings(w, "warnings", pd_reader_warning_count(r), reader_warning, r);
}

/* [{dso, samples}], in the order given (most samples first). */
static void json_dso_counts(pd_writer *w, const char *key, const stats_unresolved *c,
			    size_t n)
{
	pd_json_key(w, key);
	pd_json_begin_array(w);
	for (size_t i = 0; i < n; i++) {
		pd_json_begin_object(w);
		cli_json_str(w, "dso", c[i].dso);
		cli_json_u64(w, "samples", c[i].samples);
		pd_json_end_object(w);
	}
	pd_json_end_array(w);
}

static const char *symbol_warning(const void *sym, size_t i)
{
	return ((const stats_symbols *)sym)->warnings[i];
}

static void json_symbols(pd_writer *w, const stats_symbols *sym)
{
	cli_json_u64(w, "samples_symbolized", sym->samples);
	cli_json_u64(w, "samples_resolved", sym->resolved);
	json_dso_counts(w, "unresolved", sym->unresolved, sym->nunresolved);
	cli_json_u64(w, "unwound_samples", sym->unwound);
	json_dso_counts(w, "truncated", sym->truncated, sym->ntruncated);
	json_dso_counts(w, "invalid_chains", sym->invalid, sym->ninvalid);
	json_strings(w, "symbol_warnings", sym->nwarnings, symbol_warning, sym);
	cli_json_str(w, "symbols_error", sym->error);
}

/* The same keys when nothing could be read, so scripts need no special case. */
static void json_empty(pd_writer *w)
{
	cli_json_null(w, "mode");
	cli_json_i64(w, "samples", 0);
	cli_json_i64(w, "total_records", 0);
	pd_json_key(w, "records");
	pd_json_begin_object(w);
	pd_json_end_object(w);
	pd_json_key(w, "events");
	pd_json_begin_array(w);
	pd_json_end_array(w);
	cli_json_i64(w, "lost", 0);
	cli_json_i64(w, "lost_samples", 0);
	cli_json_i64(w, "unattributed", 0);
	pd_json_key(w, "warnings");
	pd_json_begin_array(w);
	pd_json_end_array(w);
}

static void stats_json(pd_writer *w, const char *path, const pd_reader *r,
		       const stats_times *t, const char *error, const stats_symbols *sym)
{
	pd_json_begin_object(w);
	cli_json_str(w, "file", path);
	cli_json_str(w, "error", error);
	if (r) {
		json_header(w, pd_reader_header(r), t);
		json_counts(w, r);
		if (sym)
			json_symbols(w, sym);
	} else {
		json_empty(w);
	}
	pd_json_end_object(w);
	pd_json_end(w);
}

void stats_print(pd_writer *w, pd_format fmt, const char *path, const pd_reader *r,
		 const stats_times *t, const char *error, const stats_symbols *sym)
{
	if (fmt == PD_FORMAT_JSON)
		stats_json(w, path, r, t, error, sym);
	else
		stats_text(w, path, r, t, error, sym);
}
