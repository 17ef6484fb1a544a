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
#include <math.h>
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

/* Run `PRE perfdiff ARGS` (shell text: PRE "cd D &&", "NO_COLOR=1", or
 * ""); stderr is captured through a file in `dir`. */
static cli_result run_cli_pre(const char *dir, const char *pre, const char *args)
{
	cli_result r = { -1, NULL, NULL };
	char errpath[4200], cmd[16384];
	ck_assert_msg(access(PD_CLI_PATH, X_OK) == 0,
		      "%s is not built (build target perfdiff_cli)", PD_CLI_PATH);
	snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
	snprintf(cmd, sizeof cmd, "%s '%s' %s 2>'%s'", pre, PD_CLI_PATH, args, errpath);
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

/* Run `perfdiff ARGS` (ARGS is shell text). */
static cli_result run_cli(const char *dir, const char *args)
{
	return run_cli_pre(dir, "", args);
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
	ck_assert_ptr_nonnull(strstr(r.out, "EXIT STATUS"));
	cli_result_free(&r);

	r = run_cli(dir, "dump --help");
	ck_assert_int_eq(r.status, 0);
	const char *documented[] = { "--stats", "--ordered", "--format", "--help",
				     "--no-symbols", "unresolved", "-i FILE", "./perf.data",
				     "UNKNOWN", "EXIT STATUS", "  0", "  1", "  2" };
	for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++)
		ck_assert_msg(strstr(r.out, documented[i]),
			      "dump --help does not mention %s", documented[i]);
	/* where man finds no page (none beside the build's binary), help is
	 * the same text */
	cli_result h = run_cli_pre(dir, "MANPATH=/nonexistent", "help dump");
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
		{ "reprot x.data", "unknown command 'reprot', did you mean 'report'?" },
		{ "scirpt", "did you mean 'script'?" },
		{ "dump --stat x.data", "unknown option '--stat', did you mean '--stats'?" },
		{ "script --srclin x.data", "did you mean '--srcline'?" },
		{ "report --percent-limt=1 x.data", "did you mean '--percent-limit'?" },
		{ "report --colour=never x.data", "did you mean '--color'?" },
		{ "dump -i", "'-i' needs a FILE" },
		{ "report -o", "'-o' needs a value" },
		{ "report --color=sometimes x.data", "sometimes" },
		{ "-q report x.data", "'report' is a command: put it first" },
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

/* ------------------------------------------- the command line at large */

/*
 * Recordings made once for the tests below: a busy program (`busy`), the
 * same without build-ids (`nobid`, perf record -B: every binary is then
 * used unverified, as in a system-wide `perf record -N`), a few samples
 * (`sparse`, a period of 50 ms), one whose samples do not fit perf's
 * buffer (`lost`: -m 1 and 16 KB stack copies), and a whole system with
 * -N (`sys`, skipped where perf may not record it).
 */
#define BUSY "sh -c 'head -c 40000000 /dev/zero | sha256sum >/dev/null'"
/* Busy in two programs of their own besides libc and the kernel, so that
 * at least four binaries have samples however loaded the machine is. */
#define BUSY2 "sh -c 'head -c 40000000 /dev/zero | sha256sum >/dev/null; " \
	      "head -c 40000000 /dev/zero | md5sum >/dev/null'"

static struct lab {
	const char *skip;
	char *dir;
	char busy[4200], nobid[4200], sparse[4200], lost[4200], sys[4200];
	bool have_sys;
} L;

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(false, &L.dir);
	if (L.skip)
		return;
	snprintf(L.busy, sizeof L.busy, "%s/busy.data", L.dir);
	snprintf(L.nobid, sizeof L.nobid, "%s/nobid.data", L.dir);
	snprintf(L.sparse, sizeof L.sparse, "%s/sparse.data", L.dir);
	snprintf(L.lost, sizeof L.lost, "%s/lost.data", L.dir);
	snprintf(L.sys, sizeof L.sys, "%s/sys.data", L.dir);
	if (!pd_test_perf_record(L.busy, "-q -N -g -e cpu-clock", BUSY) ||
	    !pd_test_perf_record(L.nobid, "-q -N -B -e cpu-clock", BUSY2) ||
	    !pd_test_perf_record(L.sparse, "-q -N -e cpu-clock -c 50000000", BUSY) ||
	    !pd_test_perf_record(L.lost, "-q -N -m 1 --call-graph dwarf,16384 -e cpu-clock "
				 "-c 100000", BUSY))
		L.skip = "perf record failed";
	L.have_sys = pd_test_perf_record(L.sys, "-q -N -a -g -e cpu-clock", "sleep 0.3");
}

static void lab_teardown(void)
{
	pd_test_lab_close(L.dir);
	memset(&L, 0, sizeof L);
}

/* A number perf prints for `data`: the output of `perf CMD` piped to
 * `filter` (shell text that prints one integer). */
static long perf_number(const char *data, const char *cmd, const char *filter)
{
	char sh[16384];
	snprintf(sh, sizeof sh, "perf %s -i '%s' 2>/dev/null | %s", cmd, data, filter);
	int st;
	char *out = pd_test_run(sh, &st);
	ck_assert_msg(out && out[0], "no number from: %s", sh);
	long n = atol(out);
	free(out);
	return n;
}

/* Samples perf script shows for `data` (all of cpu-clock here). */
static long perf_samples(const char *data)
{
	return perf_number(data, "script -F event", "grep -c cpu-clock");
}

static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The forms work: -i and --input name the FILE, no FILE is
 * ./perf.data (named when it is not there), options come after the file. */
START_TEST(test_inputs)
{
	PD_SKIP_IF(L.skip);
	static const char *const cmds[] = { "dump", "script", "report" };
	char args[9000], pre[4400];
	snprintf(pre, sizeof pre, "cd '%s' &&", L.dir);
	for (size_t i = 0; i < 3; i++) {
		/* no FILE and no ./perf.data: the message names it */
		cli_result r = run_cli_pre(L.dir, pre, cmds[i]);
		ck_assert_msg(r.status == 2, "%s without perf.data: exit %d", cmds[i], r.status);
		ck_assert_msg(strstr(r.err, "no FILE given, and there is no ./perf.data"),
			      "%s: %s", cmds[i], r.err);
		ck_assert_str_eq(r.out, "");
		cli_result_free(&r);
		/* the file as FILE is the oracle of the other spellings */
		snprintf(args, sizeof args, "%s '%s'", cmds[i], L.busy);
		cli_result want = run_cli(L.dir, args);
		ck_assert_msg(want.status == 0, "%s FILE: exit %d %s", cmds[i], want.status, want.err);
		const char *forms[] = { "%s -i '%s'", "%s --input='%s'", "%s '%s' --ns" };
		for (size_t k = 0; k < 3; k++) {
			if (k == 2 && i != 1)
				continue;  /* an option after the file: script's --ns */
			snprintf(args, sizeof args, forms[k], cmds[i], L.busy);
			r = run_cli(L.dir, args);
			ck_assert_msg(r.status == 0, "%s: exit %d %s", args, r.status, r.err);
			if (k < 2)
				ck_assert_msg(strcmp(r.out, want.out) == 0, "%s differs", args);
			else  /* nanoseconds: as many lines, longer */
				ck_assert_msg(count_lines(r.out) == count_lines(want.out) &&
					      strlen(r.out) > strlen(want.out), "%s", args);
			cli_result_free(&r);
		}
		/* ./perf.data: the same (the report's header names it so) */
		snprintf(args, sizeof args, "cp '%s' '%s/perf.data'", L.busy, L.dir);
		ck_assert(pd_test_sh_ok(args));
		r = run_cli_pre(L.dir, pre, cmds[i]);
		ck_assert_msg(r.status == 0, "%s in a directory with perf.data: exit %d %s", cmds[i],
			      r.status, r.err);
		if (i < 2)
			ck_assert_str_eq(r.out, want.out);
		else
			ck_assert_uint_eq(count_lines(r.out), count_lines(want.out));
		cli_result_free(&r);
		snprintf(args, sizeof args, "%s/perf.data", L.dir);
		unlink(args);
		cli_result_free(&want);
	}
	/* dump's lines are the records the library reads */
	pd_test_readout ro;
	pd_test_read_all(L.busy, PD_READER_FILE_ORDER, &ro);
	snprintf(args, sizeof args, "dump -i '%s'", L.busy);
	cli_result r = run_cli(L.dir, args);
	ck_assert_uint_eq(count_lines(r.out), ro.stats.records);
	cli_result_free(&r);
	/* the bare form of the issue: options first, then '-' */
	snprintf(args, sizeof args, "--format=json - '%s' < '%s'", L.busy, L.busy);
	r = run_cli(L.dir, args);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	ck_assert_str_eq(json_string_value(json_object_get(j, "schema")), "perfdiff.diff/1");
	json_decref(j);
	cli_result_free(&r);
}
END_TEST

/* A first word that is an existing file starts a comparison, even where
 * it looks like a mistyped command. */
START_TEST(test_file_named_like_a_command)
{
	PD_SKIP_IF(L.skip);
	char cmd[9000], pre[4400];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s/reprot'", L.busy, L.dir);
	ck_assert(pd_test_sh_ok(cmd));
	snprintf(pre, sizeof pre, "cd '%s' &&", L.dir);
	cli_result r = run_cli_pre(L.dir, pre, "reprot reprot");
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_ptr_nonnull(strstr(r.out, "no significant change"));
	cli_result_free(&r);
	/* elsewhere the same word is the typo */
	r = run_cli(L.dir, "reprot reprot");
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "did you mean 'report'?"));
	cli_result_free(&r);
}
END_TEST

/* The dsos of perf script's frames of `data`, one per line, as text. */
static char *perf_dsos(const char *data)
{
	char sh[8400];
	snprintf(sh, sizeof sh, "perf script -F ip,dso -i '%s' 2>/dev/null | "
		 "sed -n 's/.*(\\(.*\\))$/\\1/p' | sort -u", data);
	int st;
	char *out = pd_test_run(sh, &st);
	ck_assert_ptr_nonnull(out);
	return out;
}

/* Binaries used without a build-id check (a recording without build-ids,
 * as every `perf record -N` has; perf says nothing of them): one line
 * counting them from every command, the same for a file read twice; -v
 * lists them, -q says nothing; exit 0, with --strict too, which still
 * fails on a warning (a binary not found). */
START_TEST(test_unverified_exit_zero)
{
	PD_SKIP_IF(L.skip);
	char args[9000];
	/* -v: every one, each a binary perf sampled, used unverified */
	snprintf(args, sizeof args, "report -v '%s'", L.nobid);
	cli_result all = run_cli(L.dir, args);
	ck_assert_int_eq(all.status, 0);
	size_t n = count_lines(all.err);
	ck_assert_msg(n >= 4, "only %zu warnings without build-ids:\n%s", n, all.err);
	ck_assert_uint_eq(count_of(all.err, " unverified\n"), n);
	char *dsos = perf_dsos(L.nobid);
	for (char *l = strtok(all.err, "\n"); l; l = strtok(NULL, "\n")) {
		char *dso = strstr(l, ".data: ") + 7;
		*strstr(dso, ": ") = '\0';
		char line[4200];
		snprintf(line, sizeof line, "%s\n", dso);
		ck_assert_msg(strstr(dsos, line), "%s is no dso perf script shows", dso);
	}
	free(dsos);
	/* by default: the count alone, once, from every command */
	char want[256];
	snprintf(want, sizeof want, "perfdiff: %zu binaries read without a recorded build-id "
		 "(unverified); -v lists them\n", n);
	static const char *const forms[] = { "report '%s'", "script '%s'", "'%s' '%s'",
					     "dump --stats --strict '%s'",
					     "report --format=json '%s'", "report --strict '%s'",
					     "script --strict '%s'", "--strict '%s' '%s'" };
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		snprintf(args, sizeof args, forms[i], L.nobid, L.nobid);
		cli_result r = run_cli(L.dir, args);
		ck_assert_msg(r.status == 0, "%s: exit %d\n%s", args, r.status, r.err);
		/* dump --stats lists the symbolizer's warnings in its report */
		const char *w = i == 3 ? "" : want;
		ck_assert_msg(strcmp(r.err, w) == 0, "%s: stderr\n%s\nnot\n%s", args, r.err, w);
		if (i == 5)  /* the output written all the same */
			ck_assert_ptr_nonnull(strstr(r.out, "# Event 'cpu-clock'"));
		cli_result_free(&r);
	}
	/* --strict still means something: a binary not found is a warning */
	snprintf(args, sizeof args, "report --strict --symfs='%s/none' '%s'", L.dir, L.nobid);
	cli_result r = run_cli(L.dir, args);
	ck_assert_msg(r.status == 1 && strstr(r.err, "perfdiff: warning: "), "exit %d:\n%s",
		      r.status, r.err);
	cli_result_free(&r);
	/* -q: nothing on stderr */
	snprintf(args, sizeof args, "script -q '%s' -o /dev/null", L.nobid);
	r = run_cli(L.dir, args);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(r.out, "");
	cli_result_free(&r);
	cli_result_free(&all);
}
END_TEST

/* The recording: `perf record -N` of a whole system exits 0 from
 * every command. */
START_TEST(test_system_wide_exit_zero)
{
	PD_SKIP_IF(L.skip);
	PD_SKIP_IF(L.have_sys ? NULL : "perf record -a is not allowed here");
	char args[9000];
	static const char *const forms[] = { "report '%s'", "script '%s'", "'%s' '%s'",
					     "dump --stats '%s'", "dump '%s'" };
	for (size_t i = 0; i < 5; i++) {
		snprintf(args, sizeof args, forms[i], L.sys, L.sys);
		cli_result r = run_cli(L.dir, args);
		ck_assert_msg(r.status == 0, "%s: exit %d\n%s", args, r.status, r.err);
		/* never more than 3 lines a kind, and the count */
		ck_assert_uint_le(count_lines(r.err), 3 * 6 + 1);
		cli_result_free(&r);
	}
}
END_TEST

/* A file cut short: 1 from report and script (as from dump), the cut
 * named in the report's header and its JSON. */
START_TEST(test_truncated_status)
{
	PD_SKIP_IF(L.skip);
	pd_reader *rd;
	pd_error err;
	ck_assert_int_eq(pd_reader_open(&rd, L.busy, NULL, &err), 0);
	uint64_t end = pd_reader_header(rd)->data_offset + pd_reader_header(rd)->data_size / 2;
	pd_reader_free(rd);
	size_t len;
	uint8_t *bytes = pd_test_read_file(L.busy, &len);
	char cut[4300], args[9000];
	snprintf(cut, sizeof cut, "%s/cut.data", L.dir);
	ck_assert(pd_test_write_file(cut, bytes, (size_t)end | 1));
	free(bytes);
	static const char *const forms[] = { "report '%s'", "script '%s'", "dump '%s'",
					     "report --format=json '%s'" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(args, sizeof args, forms[i], cut);
		cli_result r = run_cli(L.dir, args);
		ck_assert_msg(r.status == 1, "%s: exit %d", args, r.status);
		ck_assert_msg(strstr(r.err, "truncated"), "%s: %s", args, r.err);
		if (i == 0)
			ck_assert_ptr_nonnull(strstr(r.out, "\n#     truncated: records after the "
						     "cut are missing\n"));
		if (i == 3) {
			json_t *j = parse_json(r.out);
			json_t *run = json_array_get(json_object_get(j, "runs"), 0);
			ck_assert(json_is_true(json_object_get(run, "truncated")));
			/* fewer samples than perf finds in the whole file */
			json_t *ev = json_array_get(json_object_get(j, "events"), 0);
			ck_assert_int_lt(jint(ev, "samples"), perf_samples(L.busy));
			json_decref(j);
		}
		cli_result_free(&r);
	}
	/* and the whole file says nothing of the kind */
	snprintf(args, sizeof args, "report --format=json '%s'", L.busy);
	cli_result r = run_cli(L.dir, args);
	json_t *j = parse_json(r.out);
	ck_assert(json_is_false(json_object_get(json_array_get(json_object_get(j, "runs"), 0),
						"truncated")));
	json_decref(j);
	cli_result_free(&r);
}
END_TEST

/* Samples perf says were lost while recording (its LOST_SAMPLES events)
 * against those it kept: above 5 % the input lost data (exit 1). */
START_TEST(test_lost_samples)
{
	PD_SKIP_IF(L.skip);
	/* the event's own section of perf's stats, not the aggregated one
	 * (where LOST_SAMPLES counts records) */
	long lost = perf_number(L.lost, "report --stats",
				"awk '/ stats:$/ { e = $1 == \"cpu-clock\" } "
				"e && / LOST_SAMPLES events:/ { n += $3 } END { print n + 0 }'");
	long kept = perf_number(L.lost, "report --stats",
				"awk '/ stats:$/ { e = $1 == \"cpu-clock\" } "
				"e && / SAMPLE events:/ { n += $3 } END { print n + 0 }'");
	PD_SKIP_IF(lost == 0 ? "perf lost no sample here" : NULL);
	int want = (double)lost > 0.05 * (double)(lost + kept) ? 1 : 0;
	char args[9000], text[128];
	snprintf(text, sizeof text, ": %ld samples lost while recording (", lost);
	static const char *const forms[] = { "dump '%s'", "script '%s'", "report '%s'",
					     "dump --stats --no-symbols '%s'" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(args, sizeof args, forms[i], L.lost);
		cli_result r = run_cli(L.dir, args);
		ck_assert_msg(r.status == want, "%s: exit %d, want %d (perf: %ld lost, %ld kept)",
			      args, r.status, want, lost, kept);
		ck_assert_msg(strstr(r.err, text), "%s: no '%s' in %s", args, text, r.err);
		cli_result_free(&r);
	}
	/* the report's JSON keeps the count */
	snprintf(args, sizeof args, "report --format=json '%s'", L.lost);
	cli_result r = run_cli(L.dir, args);
	json_t *j = parse_json(r.out);
	ck_assert_int_eq(jint(json_array_get(json_object_get(j, "runs"), 0), "lost"), lost);
	json_decref(j);
	cli_result_free(&r);
}
END_TEST

/* What leaves a report empty or thin is said: filters that pass nothing
 * (with the samples they turned away), a missing event (with the events
 * there are), an event of too few samples. */
START_TEST(test_report_explains)
{
	PD_SKIP_IF(L.skip);
	char args[9000], want[512];
	long samples = perf_samples(L.busy);
	snprintf(args, sizeof args, "report --comm=nothing '%s'", L.busy);
	cli_result r = run_cli(L.dir, args);
	ck_assert_int_eq(r.status, 0);
	snprintf(want, sizeof want, "perfdiff: warning: no sample passes the filters "
		 "--comm=nothing (of %ld read)\n", samples);
	ck_assert_msg(strstr(r.err, want), "no '%s' in %s", want, r.err);
	ck_assert_ptr_nonnull(strstr(r.out, "# no samples"));
	cli_result_free(&r);

	snprintf(args, sizeof args, "report --event=cycles '%s'", L.busy);
	r = run_cli(L.dir, args);
	ck_assert_int_eq(r.status, 2);
	snprintf(want, sizeof want, "no event 'cycles' in the input; its events: cpu-clock "
		 "(%ld samples)", samples);
	ck_assert_msg(strstr(r.err, want), "no '%s' in %s", want, r.err);
	cli_result_free(&r);

	long few = perf_samples(L.sparse);
	ck_assert_msg(few > 0 && few < 100, "%ld samples with a 50 ms period", few);
	snprintf(args, sizeof args, "report '%s'", L.sparse);
	r = run_cli(L.dir, args);
	ck_assert_int_eq(r.status, 0);
	snprintf(want, sizeof want, "\n# Too few samples: %ld in a run, fewer than 100", few);
	ck_assert_msg(strstr(r.out, want), "no '%s' in %s", want, r.out);
	cli_result_free(&r);
	snprintf(args, sizeof args, "report --format=json '%s' '%s'", L.sparse, L.busy);
	r = run_cli(L.dir, args);
	json_t *j = parse_json(r.out);
	ck_assert(json_is_true(json_object_get(json_array_get(json_object_get(j, "events"), 0),
					       "too_few_samples")));
	json_decref(j);
	cli_result_free(&r);
	snprintf(args, sizeof args, "report '%s'", L.busy);
	r = run_cli(L.dir, args);
	ck_assert_ptr_null(strstr(r.out, "Too few samples"));
	cli_result_free(&r);
}
END_TEST

/* Share of the samples of `data` whose leaf perf cannot name (its rows
 * named by an address), in %. */
static double perf_unresolved_pct(const char *data)
{
	char sh[8400];
	snprintf(sh, sizeof sh, "perf report -i '%s' --stdio --no-children -F sample,sym "
		 "-g none 2>/dev/null | awk '/\\] 0x/ { u += $1 } /\\[/ { t += $1 } "
		 "END { printf \"%%.3f\\n\", t ? 100 * u / t : -1 }'", data);
	int st;
	char *out = pd_test_run(sh, &st);
	ck_assert_ptr_nonnull(out);
	double v = atof(out);
	free(out);
	return v;
}

/* What each side of a diff rests on is said under it, and in its JSON: the
 * share perf cannot name either, a side of too few samples, filters that
 * matched nothing, a cut run (exit 1). */
START_TEST(test_diff_footers)
{
	PD_SKIP_IF(L.skip);
	char args[9000], want[4600];
	double unres = perf_unresolved_pct(L.busy);
	long few = perf_samples(L.sparse);
	snprintf(args, sizeof args, "'%s' '%s'", L.busy, L.sparse);
	cli_result r = run_cli(L.dir, args);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	snprintf(want, sizeof want, "      too few samples: %ld in a run, fewer than 100: the "
		 "test cannot be trusted\n", few);
	const char *new_side = strstr(r.out, "\nnew: ");
	ck_assert_ptr_nonnull(new_side);
	ck_assert_msg(strstr(new_side, want) && count_of(r.out, "too few samples") == 1,
		      "not once under new: '%s' in %s", want, r.out);
	char *un = strstr(r.out, " % of the period has no symbol for its leaf");
	if (unres >= 10) {
		ck_assert_msg(un && un < new_side, "no unresolved share under base: %s", r.out);
		while (un[-1] != ' ')
			un--;
		ck_assert_msg(fabs(atof(un) - unres) < 0.5, "unresolved %.1f %%, perf %.1f %%",
			      atof(un), unres);
	} else {
		ck_assert_msg(!un || un > new_side, "%.1f %% unresolved shown: %s", unres, r.out);
	}
	cli_result_free(&r);
	snprintf(args, sizeof args, "--format=json '%s' '%s'", L.busy, L.sparse);
	r = run_cli(L.dir, args);
	json_t *j = parse_json(r.out);
	json_t *b = json_object_get(j, "base"), *n = json_object_get(j, "new");
	ck_assert(json_is_false(json_object_get(b, "too_few_samples")));
	ck_assert(json_is_true(json_object_get(n, "too_few_samples")));
	ck_assert_int_eq(jint(n, "fewest_run_samples"), few);
	ck_assert_msg(fabs(json_real_value(json_object_get(b, "unresolved_pct")) - unres) < 0.5,
		      "unresolved_pct against perf's %.1f", unres);
	json_decref(j);
	cli_result_free(&r);

	/* filters: each value that matched nothing, under both sides */
	snprintf(args, sizeof args, "--comm=sha256sum,nothing --dso=sha256sum,libnothing.so '%s' '%s'", L.busy, L.busy);
	r = run_cli(L.dir, args);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_uint_eq(count_of(r.out, "      filters that matched nothing: --comm=nothing, "
				   "--dso=libnothing.so\n"), 2);
	cli_result_free(&r);
	snprintf(args, sizeof args, "--format=json --comm=sha256sum,nothing '%s' '%s'", L.busy,
		 L.busy);
	r = run_cli(L.dir, args);
	j = parse_json(r.out);
	json_t *u = json_object_get(json_object_get(j, "new"), "unmatched_filters");
	ck_assert_uint_eq(json_array_size(u), 1);
	ck_assert_str_eq(json_string_value(json_array_get(u, 0)), "--comm=nothing");
	json_decref(j);
	cli_result_free(&r);

	/* a cut run: named under its side; data lost, exit 1 */
	size_t len;
	uint8_t *bytes = pd_test_read_file(L.busy, &len);
	char cut[4300];
	snprintf(cut, sizeof cut, "%s/cut-new.data", L.dir);
	ck_assert(pd_test_write_file(cut, bytes, len * 2 / 3));
	free(bytes);
	snprintf(args, sizeof args, "'%s' '%s'", L.busy, cut);
	r = run_cli(L.dir, args);
	ck_assert_msg(r.status == 1, "exit %d: %s", r.status, r.err);
	snprintf(want, sizeof want, "      truncated (records after the cut are missing): %s\n",
		 cut);
	new_side = strstr(r.out, "\nnew: ");
	ck_assert_msg(new_side && strstr(new_side, want), "no '%s' under new: %s", want, r.out);
	ck_assert_uint_eq(count_of(r.out, "truncated (records"), 1);
	cli_result_free(&r);
}
END_TEST

/* perf's colours in the report: a terminal's only, never in JSON; the
 * text without them is the plain text. */
START_TEST(test_report_colour)
{
	PD_SKIP_IF(L.skip);
	char args[9000];
	snprintf(args, sizeof args, "report --no-chains '%s'", L.busy);
	cli_result plain = run_cli(L.dir, args);
	snprintf(args, sizeof args, "report --no-chains --color=always '%s'", L.busy);
	cli_result col = run_cli(L.dir, args);
	ck_assert_int_eq(col.status, 0);
	/* each percentage coloured by its own value, as perf: red from 5 %,
	 * green from 0.5 %; then the escapes taken out give the plain text */
	size_t red = 0, green = 0;
	char *o = col.out, *w = col.out;
	while (*o) {
		if (o[0] != '\033') {
			*w++ = *o++;
			continue;
		}
		const char *m = strchr(o, 'm');
		ck_assert_ptr_nonnull(m);
		if (strncmp(o, "\033[31m", 5) == 0 || strncmp(o, "\033[32m", 5) == 0) {
			double v = strtod(m + 1, NULL);
			bool is_red = o[3] == '1';
			red += is_red;
			green += !is_red;
			ck_assert_msg(is_red ? v >= 5 : v >= 0.5 && v < 5, "%.2f coloured %s", v,
				      is_red ? "red" : "green");
		}
		o = (char *)m + 1;
	}
	*w = '\0';
	ck_assert_str_eq(col.out, plain.out);
	ck_assert_uint_gt(red, 0);
	ck_assert_uint_gt(green + red, 2);
	cli_result_free(&col);
	/* auto: no terminal here; NO_COLOR; JSON never */
	const char *forms[] = { "report --no-chains --color=auto '%s'",
				"report --no-chains '%s'",
				"report --format=json --color=always '%s'" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(args, sizeof args, forms[i], L.busy);
		cli_result r = run_cli_pre(L.dir, i == 1 ? "NO_COLOR=1" : "", args);
		ck_assert_msg(!strchr(r.out, '\033'), "%s: colour", args);
		if (i < 2)
			ck_assert_str_eq(r.out, plain.out);
		cli_result_free(&r);
	}
	cli_result_free(&plain);
}
END_TEST

/* -o FILE: the output in FILE, nothing on standard output. */
START_TEST(test_output_file)
{
	PD_SKIP_IF(L.skip);
	char args[9000], out[4300];
	snprintf(out, sizeof out, "%s/out.txt", L.dir);
	static const char *const cmds[] = { "dump", "script", "report", "diff" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(args, sizeof args, "%s '%s'%s%s%s", cmds[i], L.busy, i == 3 ? " '" : "",
			 i == 3 ? L.busy : "", i == 3 ? "'" : "");
		cli_result want = run_cli(L.dir, args);
		strcat(args, " -o '");
		strcat(strcat(args, out), "'");
		cli_result r = run_cli(L.dir, args);
		ck_assert_msg(r.status == 0 && r.out[0] == '\0', "%s: exit %d", args, r.status);
		size_t n;
		char *got = (char *)pd_test_read_file(out, &n);
		ck_assert_ptr_nonnull(got);
		ck_assert_msg(n == strlen(want.out) && memcmp(got, want.out, n) == 0,
			      "%s: the file differs from standard output", args);
		free(got);
		cli_result_free(&r);
		cli_result_free(&want);
	}
	cli_result r = run_cli(L.dir, "report -o /nonexistent/dir/x.txt /dev/null");
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent/dir/x.txt: cannot write"));
	cli_result_free(&r);
}
END_TEST

/* The words of `text`, one per line; without its first line and its last
 * non-empty line when `trim` (man's title and footer). */
static char *words(const char *text, bool trim)
{
	const char *p = text, *end = text + strlen(text);
	if (trim) {
		p = strchr(text, '\n') ? strchr(text, '\n') + 1 : end;
		while (end > p && end[-1] == '\n')
			end--;
		while (end > p && end[-1] != '\n')
			end--;
	}
	char *out = malloc((size_t)(end - p) + 2), *w = out;
	ck_assert_ptr_nonnull(out);
	for (bool sp = true; p < end; p++) {
		bool blank = *p == ' ' || *p == '\n' || *p == '\t';
		if (blank && !sp)
			*w++ = '\n';
		else if (!blank)
			*w++ = *p;
		sp = blank;
	}
	*w = '\0';
	return out;
}

/* One source: each command's --help is its manual page, word for word,
 * as man renders the page scdoc built from docs/man; `perfdiff help CMD`
 * shows that page where man finds it. */
START_TEST(test_help_is_the_manual)
{
	char man1[4200];
	snprintf(man1, sizeof man1, "%s/../man/man1", PD_TEST_BUILD_DIR);
	struct stat sb;
	PD_SKIP_IF(stat(man1, &sb) != 0 ? "scdoc did not build the manual pages" : NULL);
	PD_SKIP_IF(!pd_test_sh_ok("command -v man >/dev/null") ? "no man" : NULL);
	char *dir = pd_test_tmpdir();
	static const char *const pages[] = { "perfdiff", "perfdiff-dump", "perfdiff-script",
					     "perfdiff-report", "perfdiff-diff", "perfdiff-tui" };
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		char sh[9000], args[64];
		snprintf(sh, sizeof sh, "MANWIDTH=1000 man -E ascii -l '%s/%s.1' 2>/dev/null",
			 man1, pages[i]);
		int st;
		char *page = pd_test_run(sh, &st);
		snprintf(args, sizeof args, "%s --help", i ? pages[i] + 9 : "");
		cli_result r = run_cli(dir, args);
		/* man's title line and footer are its own */
		/* man -E ascii writes the pages' one non-ASCII sign, ±, as +- */
		for (char *pm; (pm = strstr(r.out, "\xc2\xb1"));)
			memcpy(pm, "+-", 2);
		char *a = words(page, true), *b = words(r.out, false);
		ck_assert_msg(strcmp(a, b) == 0, "%s --help is not its manual page", pages[i]);
		free(a);
		free(b);
		free(page);
		cli_result_free(&r);
	}
	char pre[4400];
	snprintf(pre, sizeof pre, "MANPATH='%s/..' MANWIDTH=80", man1);
	cli_result r = run_cli_pre(dir, pre, "help diff");
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strncmp(r.out, "perfdiff-diff(1)", 16) == 0, "not the page: %.200s", r.out);
	cli_result_free(&r);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* Every option `perfdiff --list-options CMD` lists (the completion's and
 * "did you mean"'s list) is one its command takes, and every option its
 * manual names is listed: the list cannot drift from either. */
static const char *value_for(const char *arg, const char *file)
{
	static char first[64];
	if (!arg[0])
		return NULL;
	if (strcmp(arg, "FILE") == 0)
		return file;
	if (strcmp(arg, "DIR") == 0)
		return "/tmp";
	if (strchr(arg, '|')) {
		snprintf(first, sizeof first, "%.*s", (int)strcspn(arg, "|"), arg);
		return first;
	}
	return strcmp(arg, "START,END") == 0 ? "1,2" : strcmp(arg, "NAME") == 0 ? "x" : "1";
}

/* The option names on the heading lines of a manual's OPTIONS section
 * ("  -o FILE, --output=FILE": "-o", "--output"), each "NAME\n" after a
 * leading "\n" in the result. */
static char *documented_options(const char *help)
{
	const char *l = strstr(help, "\nOPTIONS\n");
	ck_assert_ptr_nonnull(l);
	char *out = calloc(1, strlen(help) + 2);
	ck_assert_ptr_nonnull(out);
	out[0] = '\n';
	for (l += 9; *l && !(*l >= 'A' && *l <= 'Z'); l = strchr(l, '\n') + 1) {
		if (strncmp(l, "  -", 3) == 0)
			for (const char *p = l + 2; *p && *p != '\n'; p++) {
				if (*p != '-' || (p[-1] != ' ' && p[-1] != ','))
					continue;
				size_t n = strspn(p, "-abcdefghijklmnopqrstuvwxyzUV");
				strncat(strncat(out, p, n), "\n", 2);
				p += n - 1;
			}
		if (!strchr(l, '\n'))
			break;
	}
	return out;
}

START_TEST(test_options_listed)
{
	char *dir = pd_test_tmpdir();
	static const char *const cmds[] = { "dump", "script", "report", "diff", "explain", "tui" };
	for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
		char args[8400];
		snprintf(args, sizeof args, "--list-options %s", cmds[c]);
		cli_result list = run_cli(dir, args);
		ck_assert_int_eq(list.status, 0);
		snprintf(args, sizeof args, "%s --help", cmds[c]);
		cli_result help = run_cli(dir, args);
		char *doc = documented_options(help.out);
		size_t n = 0;
		for (char *l = strtok(list.out, "\n"); l; l = strtok(NULL, "\n"), n++) {
			char *tab = strchr(l, '\t');
			ck_assert_ptr_nonnull(tab);
			*tab = '\0';
			const char *val = value_for(tab + 1, "/dev/null");
			/* taken by the parser: the --help after it is reached */
			snprintf(args, sizeof args, "%s %s%s%s --help", cmds[c], l,
				 val ? " " : "", val ? val : "");
			cli_result r = run_cli(dir, args);
			ck_assert_msg(r.status == 0, "%s: exit %d %s", args, r.status, r.err);
			cli_result_free(&r);
			char name[128];
			snprintf(name, sizeof name, "\n%s\n", l);
			bool side = strncmp(l, "--base-", 7) == 0 || strncmp(l, "--new-", 6) == 0;
			ck_assert_msg(side || strstr(doc, name), "%s --help lacks %s", cmds[c], l);
		}
		/* and the other way round */
		for (char *d = strtok(doc + 1, "\n"); d; d = strtok(NULL, "\n")) {
			if (strcmp(d, "--base-") == 0 || strcmp(d, "--new-") == 0 ||
			    strcmp(d, "--") == 0)
				continue;
			snprintf(args, sizeof args, "%s %s", cmds[c], d);
			cli_result r = run_cli(dir, args);
			ck_assert_msg(!strstr(r.err, "unknown option"), "%s documents %s: %s",
				      cmds[c], d, r.err);
			cli_result_free(&r);
		}
		ck_assert_uint_gt(n, 8);
		free(doc);
		cli_result_free(&help);
		cli_result_free(&list);
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
	tcase_add_test(tc, test_help_is_the_manual);
	tcase_add_test(tc, test_options_listed);
	suite_add_tcase(s, tc);
	TCase *lab = tcase_create("lab");
	tcase_add_unchecked_fixture(lab, lab_setup, lab_teardown);
	tcase_set_timeout(lab, 300);
	tcase_add_test(lab, test_inputs);
	tcase_add_test(lab, test_file_named_like_a_command);
	tcase_add_test(lab, test_unverified_exit_zero);
	tcase_add_test(lab, test_system_wide_exit_zero);
	tcase_add_test(lab, test_truncated_status);
	tcase_add_test(lab, test_lost_samples);
	tcase_add_test(lab, test_report_explains);
	tcase_add_test(lab, test_diff_footers);
	tcase_add_test(lab, test_report_colour);
	tcase_add_test(lab, test_output_file);
	suite_add_tcase(s, lab);
	return s;
}

int main(void)
{
	return pd_test_main(cli_suite());
}
