/*
 * The perfdiff command line tool, run as a separate process: exit codes,
 * messages, help, and `dump` / `dump --stats` output checked against the
 * library API (pd_test_read_all), against `perf report --stats` for files
 * recorded here with perf (skipped when perf is absent), and against names
 * whose bytes the test chose.  (The UTF-8 and number formatting the CLI
 * had of its own is the library's now: test_output.c.)
 * `dump --stats` counts of unresolved samples are checked against
 * `perf script -F ip,dso` for a program deleted after its recording.
 */
#include "testutil.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CORPUS_SLEEP "linux-perf-data/tests/fixtures/sleep.data"
#define CORPUS_ZSTD "linux-perf-data/tests/fixtures/sleep.compressed.data"
#define CORPUS_PIPE "perf_data_converter/src/quipper/testdata/perf.data.piped.target-3.8"
#define CORPUS_CORRUPT \
	"perf_data_converter/src/quipper/testdata/perf.data.piped.corrupted.zero_size_sample-3.2"

/* ------------------------------------------------------------ running */

typedef struct cli_result {
	int status;
	char *out;
	char *err;
} cli_result;

static void cli_result_free(cli_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}

/* Run `perfdiff ARGS` (ARGS is shell text); stderr is captured through a
 * file in `dir`. */
static cli_result run_cli(const char *dir, const char *args)
{
	cli_result r = { -1, NULL, NULL };
	char errpath[4200], cmd[16384];
	ck_assert_msg(access(PD_CLI_PATH, X_OK) == 0,
		      "%s is not built (build target perfdiff_cli)", PD_CLI_PATH);
	snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
	snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", PD_CLI_PATH, args, errpath);
	r.out = pd_test_run(cmd, &r.status);
	size_t n = 0;
	uint8_t *e = pd_test_read_file(errpath, &n);
	r.err = malloc(n + 1);
	ck_assert_ptr_nonnull(r.out);
	ck_assert_ptr_nonnull(r.err);
	if (e)
		memcpy(r.err, e, n);
	r.err[n] = '\0';
	free(e);
	return r;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Every non-empty stderr line starts with "perfdiff: " (or is the hint). */
static void assert_stderr_prefixed(const char *err)
{
	const char *p = err;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > 0 && strncmp(p, "Try '", 5) != 0)
			ck_assert_msg(strncmp(p, "perfdiff: ", 10) == 0,
				      "stderr line without prefix: %.*s", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
}

static json_t *parse_json(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);
	ck_assert_msg(j != NULL, "invalid JSON (%s line %d): %.200s", jerr.text,
		      jerr.line, text);
	return j;
}

static uint64_t jint(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	ck_assert_msg(json_is_integer(v), "key %s is not an integer", key);
	return (uint64_t)json_integer_value(v);
}

/* ---------------------------------------------------- inputs for tests */

/* Record a tiny workload with perf into dir/NAME; false (with reason) when
 * perf is not usable here. */
static bool perf_record(const char *dir, const char *name, const char *extra,
			const char *workload, char *path, size_t n)
{
	if (!pd_test_have_perf())
		return false;
	snprintf(path, n, "%s/%s", dir, name);
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "perf record -N -e cpu-clock %s -o '%s' -- %s >/dev/null 2>&1; echo $?",
		 extra, path, workload);
	int st;
	char *out = pd_test_run(cmd, &st);
	bool ok = out && atoi(out) == 0;
	free(out);
	struct stat sb;
	return ok && stat(path, &sb) == 0;
}

/* A well-formed file-mode perf.data: recorded now, or from the corpus. */
static bool good_file(const char *dir, char *path, size_t n)
{
	if (perf_record(dir, "good.data", "", "sleep 0.05", path, n))
		return true;
	return pd_test_corpus(path, n, CORPUS_SLEEP) != NULL;
}

/* ----------------------------------------------- perf report --stats */

#define MAX_KINDS 64

typedef struct perf_stats {
	int n;
	char type[MAX_KINDS][128];
	uint64_t count[MAX_KINDS];
	uint64_t total;
	int nev;
	char ev_name[MAX_KINDS][128];
	uint64_t ev_samples[MAX_KINDS];
} perf_stats;

/*
 * Parse `perf report --stats` text:
 *
 *   Aggregated stats:
 *              TOTAL events:         18
 *               MMAP events:          1  ( 5.6%)
 *   cpu-clock stats:
 *             SAMPLE events:          3
 */
static bool parse_perf_stats(const char *text, perf_stats *ps)
{
	memset(ps, 0, sizeof *ps);
	bool in_agg = false, seen_agg = false;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl ? 1 : 0);

		char name[128];
		unsigned long long v;
		size_t l = strlen(line);
		if (strstr(line, "Aggregated stats:")) {
			in_agg = seen_agg = true;
		} else if (l > 7 && strcmp(line + l - 7, " stats:") == 0) {
			in_agg = false;
			if (ps->nev < MAX_KINDS) {
				const char *s = line;
				while (*s == ' ')
					s++;
				snprintf(ps->ev_name[ps->nev], sizeof ps->ev_name[0],
					 "%.*s", (int)(strlen(s) - 7), s);
				ps->nev++;
			}
		} else if (sscanf(line, " %127s events: %llu", name, &v) == 2) {
			if (in_agg && strcmp(name, "TOTAL") == 0) {
				ps->total = v;
			} else if (in_agg && ps->n < MAX_KINDS) {
				snprintf(ps->type[ps->n], sizeof ps->type[0], "%s", name);
				ps->count[ps->n++] = v;
			} else if (!in_agg && ps->nev > 0 && strcmp(name, "SAMPLE") == 0) {
				ps->ev_samples[ps->nev - 1] = v;
			}
		}
	}
	return seen_agg && ps->total > 0;
}

/* The stats object of `dump --stats --format=json` equals perf's counts. */
static void assert_matches_perf(const char *dir, const char *path)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "perf report --stats -i '%s' 2>/dev/null", path);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(text);
	perf_stats ps;
	ck_assert_msg(parse_perf_stats(text, &ps),
		      "cannot parse perf report --stats output: %.300s", text);
	free(text);

	char args[4300];
	snprintf(args, sizeof args, "dump --stats --format=json '%s'", path);
	cli_result r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	json_t *j = parse_json(r.out);
	ck_assert_uint_eq(jint(j, "total_records"), ps.total);
	json_t *recs = json_object_get(j, "records");
	ck_assert_uint_eq(json_object_size(recs), (size_t)ps.n);
	for (int i = 0; i < ps.n; i++) {
		json_t *v = json_object_get(recs, ps.type[i]);
		ck_assert_msg(json_is_integer(v), "perf counts %s, perfdiff does not",
			      ps.type[i]);
		ck_assert_msg((uint64_t)json_integer_value(v) == ps.count[i],
			      "%s: perfdiff %lld, perf %llu", ps.type[i],
			      json_integer_value(v), (unsigned long long)ps.count[i]);
	}
	json_t *events = json_object_get(j, "events");
	ck_assert_uint_eq(json_array_size(events), (size_t)ps.nev);
	for (int i = 0; i < ps.nev; i++) {
		json_t *e = json_array_get(events, (size_t)i);
		ck_assert_str_eq(json_string_value(json_object_get(e, "name")),
				 ps.ev_name[i]);
		ck_assert_uint_eq(jint(e, "samples"), ps.ev_samples[i]);
	}
	json_decref(j);
	cli_result_free(&r);
}

/* The stats object equals what the library API reports for `path`. */
static void assert_matches_library(const json_t *j, const char *path,
				   unsigned flags)
{
	pd_test_readout ro;
	pd_test_read_all(path, flags, &ro);
	ck_assert_int_eq(ro.open_rc, 0);
	ck_assert_uint_eq(jint(j, "samples"), ro.samples);
	ck_assert_uint_eq(jint(j, "total_records"), ro.stats.records);
	ck_assert_uint_eq(jint(j, "lost"), ro.stats.lost);
	ck_assert_uint_eq(jint(j, "lost_samples"), ro.stats.lost_samples);
	ck_assert_uint_eq(jint(j, "unattributed"), ro.stats.unattributed);
	ck_assert_uint_eq(jint(j, "compressed_inner"), ro.stats.compressed_inner);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "warnings")),
			  ro.warnings);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "events")), ro.nattrs);

	json_t *recs = json_object_get(j, "records");
	uint64_t sum = 0, unknown = ro.stats.unknown_types;
	for (uint32_t t = 0; t < 128; t++) {
		const char *name = pd_record_type_name(t);
		if (!name) {
			unknown += ro.stats.by_type[t];
			continue;
		}
		json_t *v = json_object_get(recs, name);
		uint64_t got = v ? (uint64_t)json_integer_value(v) : 0;
		ck_assert_msg(got == ro.stats.by_type[t], "%s: CLI %llu, library %llu",
			      name, (unsigned long long)got,
			      (unsigned long long)ro.stats.by_type[t]);
		sum += got;
	}
	json_t *u = json_object_get(recs, "UNKNOWN");
	ck_assert_uint_eq(u ? (uint64_t)json_integer_value(u) : 0, unknown);
	ck_assert_uint_eq(sum + unknown, ro.stats.records);

	uint64_t ev_sum = 0;
	json_t *e;
	size_t i;
	json_array_foreach(json_object_get(j, "events"), i, e)
		ev_sum += jint(e, "samples");
	ck_assert_uint_eq(ev_sum + ro.stats.unattributed, ro.samples);
}

/* ---------------------------------------------------------------- tests */

START_TEST(test_help_and_version)
{
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);

	cli_result r = run_cli(dir, "--help");
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "dump"));
	ck_assert_ptr_nonnull(strstr(r.out, "Exit status"));
	cli_result_free(&r);

	r = run_cli(dir, "dump --help");
	ck_assert_int_eq(r.status, 0);
	const char *documented[] = { "--stats", "--ordered", "--format", "--help",
				     "--no-symbols", "unresolved",
				     "UNKNOWN", "Exit status", "  0", "  1", "  2" };
	for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++)
		ck_assert_msg(strstr(r.out, documented[i]),
			      "dump --help does not mention %s", documented[i]);
	cli_result h = run_cli(dir, "help dump");
	ck_assert_int_eq(h.status, 0);
	ck_assert_str_eq(h.out, r.out);
	cli_result_free(&h);
	cli_result_free(&r);

	r = run_cli(dir, "--version");
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, PD_VERSION_STRING));
	cli_result_free(&r);

	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_usage_errors)
{
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	static const struct {
		const char *args, *mention;
	} cases[] = {
		{ "", "Usage" },
		{ "frobnicate", "frobnicate" },
		{ "--bogus", "--bogus" },
		{ "dump", "FILE" },
		{ "dump --bogus x.data", "--bogus" },
		{ "dump --format=xml x.data", "xml" },
		{ "dump --format", "--format" },
		{ "dump a.data b.data", "b.data" },
		{ "help frobnicate", "frobnicate" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cli_result r = run_cli(dir, cases[i].args);
		ck_assert_msg(r.status == 2, "'%s': exit %d, want 2", cases[i].args,
			      r.status);
		ck_assert_msg(strstr(r.err, cases[i].mention),
			      "'%s': stderr does not mention %s: %s", cases[i].args,
			      cases[i].mention, r.err);
		ck_assert_str_eq(r.out, "");
		if (cases[i].args[0])
			assert_stderr_prefixed(r.err);
		cli_result_free(&r);
	}
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_good_file)
{
	char *dir = pd_test_tmpdir();
	char path[4200], args[4400];
	ck_assert_ptr_nonnull(dir);
	if (!good_file(dir, path, sizeof path)) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("neither perf nor the corpus is available");
	}
	pd_test_readout ro;
	pd_test_read_all(path, PD_READER_FILE_ORDER, &ro);
	ck_assert_int_eq(ro.rc, PD_ITEROVER);
	ck_assert_uint_gt(ro.stats.records, 0);

	/* text: one line per record, exit 0, nothing on stderr */
	snprintf(args, sizeof args, "dump '%s'", path);
	cli_result r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	ck_assert_uint_eq(count_lines(r.out), ro.stats.records);
	ck_assert_ptr_nonnull(strstr(r.out, " SAMPLE "));
	cli_result_free(&r);

	/* --ordered delivers the same records */
	snprintf(args, sizeof args, "dump --ordered '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(count_lines(r.out), ro.stats.records);
	cli_result_free(&r);

	/* JSON lines: each parses, SAMPLE objects count the samples */
	snprintf(args, sizeof args, "dump --format=json '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	uint64_t lines = 0, samples = 0;
	for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
		json_t *o = parse_json(line);
		lines++;
		const char *type = json_string_value(json_object_get(o, "type"));
		ck_assert_ptr_nonnull(type);
		if (strcmp(type, "SAMPLE") == 0) {
			samples++;
			ck_assert(json_is_string(json_object_get(o, "event")));
		}
		json_decref(o);
	}
	ck_assert_uint_eq(lines, ro.stats.records);
	ck_assert_uint_eq(samples, ro.samples);
	cli_result_free(&r);

	/* stats JSON: the library's counts, header facts */
	snprintf(args, sizeof args, "dump --stats --format=json '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	json_t *j = parse_json(r.out);
	ck_assert(json_is_null(json_object_get(j, "error")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "mode")), "file");
	ck_assert_str_eq(json_string_value(json_object_get(j, "file")), path);
	ck_assert(json_is_boolean(json_object_get(j, "compressed")));
	assert_matches_library(j, path, PD_READER_FILE_ORDER);
	json_decref(j);
	cli_result_free(&r);

	/* stats text */
	snprintf(args, sizeof args, "dump --stats '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	char want[64];
	snprintf(want, sizeof want, "SAMPLE records: %10llu",
		 (unsigned long long)ro.samples);
	ck_assert_msg(strstr(r.out, want), "no '%s' in %s", want, r.out);
	cli_result_free(&r);

	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_stats_match_perf_report)
{
	char *dir = pd_test_tmpdir();
	char path[4200];
	ck_assert_ptr_nonnull(dir);
	if (!perf_record(dir, "perf.data", "", "sleep 0.05", path, sizeof path)) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf is absent or cannot record here");
	}
	assert_matches_perf(dir, path);

	/* zstd-compressed: inner records counted by their own type, as perf does */
	if (perf_record(dir, "z.data", "-z", "sleep 0.05", path, sizeof path)) {
		assert_matches_perf(dir, path);
		char args[4400];
		snprintf(args, sizeof args, "dump '%s'", path);
		cli_result r = run_cli(dir, args);
		ck_assert_int_eq(r.status, 0);
		pd_test_readout ro;
		pd_test_read_all(path, PD_READER_FILE_ORDER, &ro);
		ck_assert_uint_gt(ro.stats.compressed_inner, 0);
		uint64_t z = 0;
		for (char *l = strtok(r.out, "\n"); l; l = strtok(NULL, "\n"))
			z += strstr(l, "] z ") != NULL;
		ck_assert_uint_eq(z, ro.stats.compressed_inner);
		cli_result_free(&r);
	}
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_directory_input)
{
	char *dir = pd_test_tmpdir();
	char path[4200], args[4400];
	ck_assert_ptr_nonnull(dir);
	if (!perf_record(dir, "threads.data", "--threads", "sleep 0.05", path,
			 sizeof path)) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf is absent or cannot record --threads here");
	}
	assert_matches_perf(dir, path);
	snprintf(args, sizeof args, "dump --stats --format=json '%s'", path);
	cli_result r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	json_t *j = parse_json(r.out);
	ck_assert_str_eq(json_string_value(json_object_get(j, "mode")), "directory");
	assert_matches_library(j, path, PD_READER_FILE_ORDER);
	json_decref(j);
	cli_result_free(&r);

	/* samples live in data.N files: their lines name the stream */
	snprintf(args, sizeof args, "dump '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, " data."));
	cli_result_free(&r);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_truncated_file)
{
	char *dir = pd_test_tmpdir();
	char path[4200], cut[4300], args[4400];
	ck_assert_ptr_nonnull(dir);
	if (!good_file(dir, path, sizeof path)) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("neither perf nor the corpus is available");
	}
	pd_reader *rd;
	pd_error err;
	ck_assert_int_eq(pd_reader_open(&rd, path, NULL, &err), 0);
	uint64_t data_off = pd_reader_header(rd)->data_offset;
	uint64_t data_size = pd_reader_header(rd)->data_size;
	pd_reader_free(rd);
	ck_assert_uint_gt(data_size, 64);

	/* Cut inside the data section, at an odd offset so a record is split. */
	size_t len;
	uint8_t *bytes = pd_test_read_file(path, &len);
	ck_assert_ptr_nonnull(bytes);
	size_t keep = (size_t)(data_off + data_size / 2) | 1;
	ck_assert_uint_lt(keep, len);
	snprintf(cut, sizeof cut, "%s/cut.data", dir);
	ck_assert(pd_test_write_file(cut, bytes, keep));
	free(bytes);

	pd_test_readout full, part;
	pd_test_read_all(path, PD_READER_FILE_ORDER, &full);
	pd_test_read_all(cut, PD_READER_FILE_ORDER, &part);
	ck_assert_int_eq(part.rc, PD_ITEROVER);
	ck_assert_uint_gt(part.warnings, 0);
	ck_assert_uint_lt(part.stats.records, full.stats.records);

	snprintf(args, sizeof args, "dump '%s'", cut);
	cli_result r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 1);
	ck_assert_uint_eq(count_lines(r.out), part.stats.records);
	ck_assert_ptr_nonnull(strstr(r.err, "perfdiff: warning: "));
	ck_assert_ptr_nonnull(strstr(r.err, cut));
	assert_stderr_prefixed(r.err);
	cli_result_free(&r);

	snprintf(args, sizeof args, "dump --stats --format=json '%s'", cut);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 1);
	json_t *j = parse_json(r.out);
	ck_assert(json_is_null(json_object_get(j, "error")));
	ck_assert_uint_gt(json_array_size(json_object_get(j, "warnings")), 0);
	assert_matches_library(j, cut, PD_READER_FILE_ORDER);
	json_decref(j);
	cli_result_free(&r);

	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_garbage_and_missing_files)
{
	char *dir = pd_test_tmpdir();
	char path[4200], args[4400];
	ck_assert_ptr_nonnull(dir);

	/* Deterministic pseudo-random bytes (an LCG): no magic anywhere. */
	uint8_t junk[4096];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof junk; i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (uint8_t)(x >> 16);
	}
	snprintf(path, sizeof path, "%s/garbage.data", dir);
	ck_assert(pd_test_write_file(path, junk, sizeof junk));

	snprintf(args, sizeof args, "dump '%s'", path);
	cli_result r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(strstr(r.err, path), "stderr does not name the file: %s", r.err);
	assert_stderr_prefixed(r.err);
	cli_result_free(&r);

	/* --stats --format=json still gives an object, with the error */
	snprintf(args, sizeof args, "dump --stats --format=json '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 2);
	json_t *j = parse_json(r.out);
	ck_assert(json_is_string(json_object_get(j, "error")));
	ck_assert_uint_eq(jint(j, "samples"), 0);
	json_decref(j);
	cli_result_free(&r);

	snprintf(path, sizeof path, "%s/no-such.data", dir);
	snprintf(args, sizeof args, "dump --stats '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, path), "stderr does not name the file: %s", r.err);
	assert_stderr_prefixed(r.err);
	cli_result_free(&r);

	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_corrupt_record)
{
	char path[4200], args[4400];
	if (!pd_test_corpus(path, sizeof path, CORPUS_CORRUPT))
		PD_SKIP("corpus absent");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	pd_test_readout ro;
	pd_test_read_all(path, PD_READER_FILE_ORDER, &ro);
	ck_assert_int_eq(ro.rc, PD_ECORRUPT);
	ck_assert_uint_gt(ro.stats.records, 0);

	/* What was read before the error is printed, then the error, exit 2. */
	snprintf(args, sizeof args, "dump --stats --format=json '%s'", path);
	cli_result r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 2);
	json_t *j = parse_json(r.out);
	ck_assert(json_is_string(json_object_get(j, "error")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "mode")), "pipe");
	ck_assert_uint_eq(jint(j, "total_records"), ro.stats.records);
	ck_assert_uint_eq(jint(j, "samples"), ro.samples);
	json_decref(j);
	ck_assert_ptr_nonnull(strstr(r.err, "49104"));
	assert_stderr_prefixed(r.err);
	cli_result_free(&r);

	snprintf(args, sizeof args, "dump '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 2);
	ck_assert_uint_eq(count_lines(r.out), ro.stats.records);
	cli_result_free(&r);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_stdin_and_compressed_corpus)
{
	char path[4200], args[4400];
	if (!pd_test_corpus(path, sizeof path, CORPUS_PIPE))
		PD_SKIP("corpus absent");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);

	snprintf(args, sizeof args, "dump --stats --format=json - < '%s'", path);
	cli_result r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	json_t *j = parse_json(r.out);
	ck_assert_str_eq(json_string_value(json_object_get(j, "mode")), "pipe");
	ck_assert_str_eq(json_string_value(json_object_get(j, "file")), "-");
	assert_matches_library(j, path, PD_READER_FILE_ORDER);
	json_decref(j);
	cli_result_free(&r);

	pd_test_corpus(path, sizeof path, CORPUS_ZSTD);
	snprintf(args, sizeof args, "dump --stats --format=json '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	j = parse_json(r.out);
	ck_assert(json_is_true(json_object_get(j, "compressed")));
	ck_assert_uint_gt(jint(j, "compressed_inner"), 0);
	assert_matches_library(j, path, PD_READER_FILE_ORDER);
	json_decref(j);
	cli_result_free(&r);

	/* JSON lines mark the records that came out of compressed ones */
	pd_test_readout ro;
	pd_test_read_all(path, PD_READER_FILE_ORDER, &ro);
	snprintf(args, sizeof args, "dump --format=json '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	uint64_t inner = 0;
	for (char *l = strtok(r.out, "\n"); l; l = strtok(NULL, "\n")) {
		json_t *o = parse_json(l);
		inner += json_is_true(json_object_get(o, "compressed"));
		json_decref(o);
	}
	ck_assert_uint_eq(inner, ro.stats.compressed_inner);
	cli_result_free(&r);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* A program whose name has an invalid UTF-8 byte and a control character:
 * its COMM and MMAP2 file name reach the output intact or escaped. */
START_TEST(test_bad_bytes_in_names)
{
	char *dir = pd_test_tmpdir();
	char prog[4200], path[4200], args[4400], cmd[9000];
	ck_assert_ptr_nonnull(dir);
	snprintf(prog, sizeof prog, "%s/bad\xff\x01n", dir);
	snprintf(cmd, sizeof cmd, "cp \"$(command -v sleep)\" '%s'", prog);
	int st;
	free(pd_test_run(cmd, &st));
	ck_assert_int_eq(st, 0);
	char workload[4300];
	snprintf(workload, sizeof workload, "'%s' 0.05", prog);
	if (!perf_record(dir, "bad.data", "", workload, path, sizeof path)) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf is absent or cannot record here");
	}

	snprintf(args, sizeof args, "dump --format=json '%s'", path);
	cli_result r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	bool comm_seen = false, mmap_seen = false;
	for (char *l = strtok(r.out, "\n"); l; l = strtok(NULL, "\n")) {
		json_t *o = parse_json(l); /* jansson rejects invalid UTF-8 */
		const char *c = json_string_value(json_object_get(o, "comm"));
		if (c && strcmp(c, "bad\xEF\xBF\xBD\x01n") == 0)
			comm_seen = true;
		const char *f = json_string_value(json_object_get(o, "filename"));
		if (f && strstr(f, "/bad\xEF\xBF\xBD\x01n"))
			mmap_seen = true;
		json_decref(o);
	}
	ck_assert(comm_seen);
	ck_assert(mmap_seen);
	cli_result_free(&r);

	/* text: escaped, and still one line per record */
	pd_test_readout ro;
	pd_test_read_all(path, PD_READER_FILE_ORDER, &ro);
	snprintf(args, sizeof args, "dump '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(count_lines(r.out), ro.stats.records);
	ck_assert_ptr_nonnull(strstr(r.out, "comm=bad\\xff\\x01n exec"));
	cli_result_free(&r);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* ------------------------------------ unresolved samples in --stats */

/* A CPU-bound program for about 200 ms, compiled at test time so that no
 * build-id cache or debug directory knows it. */
static const char spin_src[] =
	"#include <time.h>\n"
	"static volatile unsigned long sink;\n"
	"int main(void)\n"
	"{\n"
	"	struct timespec a, b;\n"
	"	clock_gettime(CLOCK_MONOTONIC, &a);\n"
	"	do {\n"
	"		for (int i = 0; i < 100000; i++)\n"
	"			sink += (unsigned long)i;\n"
	"		clock_gettime(CLOCK_MONOTONIC, &b);\n"
	"	} while ((b.tv_sec - a.tv_sec) * 1000000000L +\n"
	"		 (b.tv_nsec - a.tv_nsec) < 200000000L);\n"
	"	return 0;\n"
	"}\n";

/* Samples whose ip perf places in `dso`: lines "IP (DSO)" of
 * `perf script -F ip,dso` (a recording without call chains). */
static uint64_t perf_samples_in_dso(const char *data, const char *dso)
{
	char cmd[8400], tail[4300];
	snprintf(cmd, sizeof cmd, "perf script -F ip,dso -i '%s' 2>/dev/null", data);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_msg(out && st == 0, "perf script failed on %s", data);
	snprintf(tail, sizeof tail, " (%s)", dso);
	size_t tl = strlen(tail);
	uint64_t n = 0;
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		size_t len = strlen(l);
		if (len > tl && strcmp(l + len - tl, tail) == 0)
			n++;
	}
	free(out);
	return n;
}

START_TEST(test_stats_unresolved_per_dso)
{
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char src[4200], prog[4200], path[4200], args[8600], cmd[8600];
	snprintf(src, sizeof src, "%s/spin.c", dir);
	snprintf(prog, sizeof prog, "%s/spin_gone", dir);
	ck_assert(pd_test_write_file(src, spin_src, sizeof spin_src - 1));
	snprintf(cmd, sizeof cmd, "cc -O1 -o '%s' '%s' 2>&1", prog, src);
	int st;
	free(pd_test_run(cmd, &st));
	if (st != 0 || !perf_record(dir, "gone.data", "", prog, path, sizeof path)) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("no C compiler, or perf is absent or cannot record here");
	}
	uint64_t want = perf_samples_in_dso(path, prog);
	ck_assert_msg(want >= 20, "only %llu samples in %s", (unsigned long long)want,
		      prog);
	ck_assert_int_eq(unlink(prog), 0);

	/* JSON: the deleted program is listed with perf's count; its samples
	 * are all of its unresolved ones, since nothing can name them now */
	snprintf(args, sizeof args, "dump --stats --format=json '%s'", path);
	cli_result r = run_cli(dir, args);
	ck_assert_msg(r.status == 0, "status %d (symbolizer warnings are not "
		      "reader warnings): %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	json_t *u = json_object_get(j, "unresolved");
	ck_assert(json_is_array(u));
	uint64_t got = 0, unresolved = 0;
	bool found = false;
	for (size_t i = 0; i < json_array_size(u); i++) {
		json_t *e = json_array_get(u, i);
		const char *dso = json_string_value(json_object_get(e, "dso"));
		ck_assert_ptr_nonnull(dso);
		uint64_t n = jint(e, "samples");
		ck_assert_uint_gt(n, 0);
		if (i > 0) /* most samples first */
			ck_assert_uint_le(n, jint(json_array_get(u, i - 1), "samples"));
		unresolved += n;
		if (strcmp(dso, prog) == 0) {
			found = true;
			got = n;
		}
	}
	ck_assert_msg(found, "%s is not among the unresolved dsos: %s", prog, r.out);
	ck_assert_uint_eq(got, want);
	uint64_t samples = jint(j, "samples");
	ck_assert_uint_eq(jint(j, "unattributed"), 0);
	ck_assert_uint_eq(jint(j, "samples_symbolized"), samples);
	ck_assert_uint_le(jint(j, "samples_resolved") + unresolved, samples);
	ck_assert(json_is_null(json_object_get(j, "symbols_error")));
	/* why: the warning names the missing program */
	json_t *w = json_object_get(j, "symbol_warnings");
	bool named = false;
	for (size_t i = 0; i < json_array_size(w); i++)
		named |= strstr(json_string_value(json_array_get(w, i)), prog) != NULL;
	ck_assert_msg(named, "no symbol warning names %s", prog);
	json_decref(j);
	cli_result_free(&r);

	/* text: the section, with the count in front of the path */
	char line[4400];
	snprintf(line, sizeof line, "\n%12llu  %s\n", (unsigned long long)want, prog);
	snprintf(args, sizeof args, "dump --stats '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	char *sec = strstr(r.out, "\nunresolved samples per dso:\n");
	ck_assert_ptr_nonnull(sec);
	ck_assert_msg(strstr(sec, line) != NULL, "no line '%s' in: %s", line + 1, sec);
	cli_result_free(&r);

	/* --no-symbols: the reader's statistics only */
	snprintf(args, sizeof args, "dump --stats --no-symbols --format=json '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	j = parse_json(r.out);
	ck_assert_uint_eq(jint(j, "samples"), samples);
	const char *absent[] = { "unresolved", "samples_resolved",
				 "samples_symbolized", "symbol_warnings",
				 "symbols_error" };
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
		ck_assert_msg(json_object_get(j, absent[i]) == NULL,
			      "--no-symbols still gives %s", absent[i]);
	json_decref(j);
	cli_result_free(&r);
	snprintf(args, sizeof args, "dump --stats --no-symbols '%s'", path);
	r = run_cli(dir, args);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, "unresolved"));
	ck_assert_ptr_nonnull(strstr(r.out, "total samples:"));
	cli_result_free(&r);

	/* standard input: a regular file (read again through /dev/stdin),
	 * and a pipe of the pipe-mode copy (read once, in timestamp order) */
	snprintf(cmd, sizeof cmd, "perf inject -i '%s' -o - > '%s.pipe' 2>/dev/null",
		 path, path);
	free(pd_test_run(cmd, &st));
	bool have_pipe = st == 0;
	for (int k = 0; k < 2; k++) {
		if (k == 1 && !have_pipe)
			break;
		if (k == 0)
			snprintf(cmd, sizeof cmd,
				 "'%s' dump --stats --format=json - < '%s' 2>/dev/null",
				 PD_CLI_PATH, path);
		else
			snprintf(cmd, sizeof cmd,
				 "cat '%s.pipe' | '%s' dump --stats --format=json - 2>/dev/null",
				 path, PD_CLI_PATH);
		char *out = pd_test_run(cmd, &st);
		ck_assert_msg(out && st == 0, "%s: status %d", cmd, st);
		j = parse_json(out);
		ck_assert_str_eq(json_string_value(json_object_get(j, "mode")),
				 k == 0 ? "file" : "pipe");
		u = json_object_get(j, "unresolved");
		got = 0;
		for (size_t i = 0; i < json_array_size(u); i++) {
			json_t *e = json_array_get(u, i);
			if (strcmp(json_string_value(json_object_get(e, "dso")), prog) == 0)
				got = jint(e, "samples");
		}
		ck_assert_msg(got == want, "%s: %llu samples unresolved in %s, perf %llu",
			      cmd, (unsigned long long)got, prog, (unsigned long long)want);
		json_decref(j);
		free(out);
	}
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_help_and_version);
	tcase_add_test(tc, test_usage_errors);
	tcase_add_test(tc, test_good_file);
	tcase_add_test(tc, test_stats_match_perf_report);
	tcase_add_test(tc, test_directory_input);
	tcase_add_test(tc, test_truncated_file);
	tcase_add_test(tc, test_garbage_and_missing_files);
	tcase_add_test(tc, test_corrupt_record);
	tcase_add_test(tc, test_stdin_and_compressed_corpus);
	tcase_add_test(tc, test_bad_bytes_in_names);
	tcase_add_test(tc, test_stats_unresolved_per_dso);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(cli_suite());
}
