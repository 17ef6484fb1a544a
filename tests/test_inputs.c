/*
 * What an input is, told by its content (pd_input_detect()): every
 * command that takes a recording takes perf.data of either version and
 * either byte order, or pprof, and says "neither perf.data nor pprof",
 * naming the file, of anything else (text, an empty file, a program,
 * gzipped text) instead of a pprof decoder's "malformed protobuf".
 *
 * Version-1 perf.data ("PERFFILE", as perf of Linux 2.6.3x wrote it) is
 * made here from version-2 files (to_v1() says how), and perf 6.1 is the
 * oracle twice: it must read the converted file as it reads the original
 * (so the conversion is a v1 file perf accepts), and perfdiff must read
 * the converted file as perf and as it reads the original.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUSY "sh -c 'head -c 30000000 /dev/zero | sha256sum >/dev/null'"

static uint64_t ld64(const uint8_t *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static void st64(uint8_t *p, uint64_t v, bool swap)
{
	v = swap ? __builtin_bswap64(v) : v;
	memcpy(p, &v, 8);
}

static void st32(uint8_t *p, uint32_t v, bool swap)
{
	v = swap ? __builtin_bswap32(v) : v;
	memcpy(p, &v, 4);
}

/*
 * Rewrite the version-2 file `src` as perf of Linux 2.6.3x wrote version
 * 1, into `dst`:
 *   - the magic is "PERFFILE", as text: it gives no byte order;
 *   - each perf_event_attr is cut to its first 72 bytes
 *     (PERF_ATTR_SIZE_VER1, attr.size says so; what follows is zero for
 *     `perf record -e cpu-clock -g`) and followed by its ids section, so
 *     attr_size is 88: perf 6.1 takes the byte order from attr_size, a
 *     known attr size + 16 in one order only (VER0..VER4);
 *   - the attrs are rewritten in place: they shrink, and every section
 *     keeps its offset;
 *   - `hsize` 104 keeps the header's feature bitmap (2.6.33 on); 72, the
 *     older header, drops it, and with it the features after the data.
 * The byte order of `src` is kept.  False when `src` is no v2 file.
 */
static bool to_v1(const char *src, const char *dst, uint64_t hsize)
{
	size_t n;
	uint8_t *d = pd_test_read_file(src, &n);
	if (!d || n < 104 || (memcmp(d, "PERFILE2", 8) && memcmp(d, "2ELIFREP", 8))) {
		free(d);
		return false;
	}
	bool swap = memcmp(d, "2ELIFREP", 8) == 0;
	uint64_t attr_size = ld64(d + 16, swap), off = ld64(d + 24, swap);
	uint64_t count = ld64(d + 32, swap) / attr_size;
	ck_assert(attr_size >= 72 + 16 && off + count * attr_size <= n);
	for (uint64_t i = 0; i < count; i++) {
		uint8_t attr[88];
		memcpy(attr, d + off + i * attr_size, 72);
		st32(attr + 4, 72, swap);
		memcpy(attr + 72, d + off + (i + 1) * attr_size - 16, 16);
		memcpy(d + off + i * 88, attr, 88);
	}
	memcpy(d, "PERFFILE", 8);
	st64(d + 8, hsize, swap);
	st64(d + 16, 88, swap);
	st64(d + 32, count * 88, swap);
	bool ok = pd_test_write_file(dst, d, n);
	free(d);
	return ok;
}

/* `perf report --stats` of `data`: its TOTAL and SAMPLE event counts. */
static void perf_counts(const char *data, long *total, long *samples)
{
	char cmd[4400];
	snprintf(cmd, sizeof cmd,
		 "perf report --stats -i '%s' 2>/dev/null | awk '/TOTAL events:/ && !t {t=$3} "
		 "/SAMPLE events:/ && !s {s=$3} END {print t+0, s+0}'", data);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(sscanf(out, "%ld %ld", total, samples), 2);
	free(out);
}

/* `perf script -F FIELDS` of `data` (caller frees). */
static char *perf_script(const char *data, const char *fields)
{
	char cmd[4400];
	snprintf(cmd, sizeof cmd, "perf script -F %s -i '%s' 2>/dev/null", fields, data);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	return out;
}

static char *cli(const char *dir, int *status, char **err, const char *fmt, const char *a)
{
	char args[9000];
	snprintf(args, sizeof args, fmt, a, a);
	return pd_test_cli(dir, args, status, err);
}

static json_t *json_of(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	ck_assert_msg(j != NULL, "not JSON (%s): %.200s", je.text, text);
	return j;
}

/* The events of `perfdiff report --format=json FILE` (a new reference). */
static json_t *report_events(const char *dir, const char *file)
{
	int st;
	char *out = cli(dir, &st, NULL, "report -q --format=json '%s'", file);
	ck_assert_msg(st == 0, "report %s: exit %d", file, st);
	json_t *j = json_of(out);
	json_t *ev = json_incref(json_object_get(j, "events"));
	json_decref(j);
	free(out);
	return ev;
}

/* perf reads `v1` as it reads `v2` (the conversion is sound), and
 * perfdiff reads `v1` as perf does and as it reads `v2`. */
static void check_v1(const char *dir, const char *v2, const char *v1, const char *fields)
{
	long t2, s2, t1, s1;
	perf_counts(v2, &t2, &s2);
	perf_counts(v1, &t1, &s1);
	ck_assert_msg(t1 == t2 && s1 == s2 && s1 > 0,
		      "perf reads %s as %ld records, %ld samples; %s as %ld, %ld", v1, t1, s1, v2,
		      t2, s2);
	char *p2 = perf_script(v2, fields), *p1 = perf_script(v1, fields);
	ck_assert_msg(strcmp(p1, p2) == 0 && p1[0], "perf script differs on %s", v1);
	free(p1);
	free(p2);

	int st;
	char *err;
	char *out = cli(dir, &st, &err, "dump --stats --format=json '%s'", v1);
	ck_assert_msg(st == 0, "dump --stats %s: exit %d: %s", v1, st, err);
	json_t *j = json_of(out);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "total_records")), t1);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "samples")), s1);
	json_decref(j);
	free(out);
	free(err);
	out = cli(dir, &st, NULL, "dump --stats '%s'", v1);
	ck_assert_msg(strstr(out, "(PERFFILE v1)"), "dump --stats does not name version 1");
	free(out);

	char *s_v2 = cli(dir, &st, NULL, "script '%s'", v2);
	char *s_v1 = cli(dir, &st, NULL, "script '%s'", v1);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strcmp(s_v1, s_v2) == 0 && s_v1[0], "perfdiff script differs on %s", v1);
	free(s_v1);
	free(s_v2);
	json_t *e2 = report_events(dir, v2), *e1 = report_events(dir, v1);
	ck_assert_msg(json_equal(e1, e2), "perfdiff report's events differ on %s", v1);
	json_decref(e1);
	json_decref(e2);
}

START_TEST(test_version_1)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(false, &dir));
	char v2[4200], v1[4300], v1old[4300], be[4200], be1[4300];
	snprintf(v2, sizeof v2, "%s/v2.data", dir);
	snprintf(v1, sizeof v1, "%s/v1.data", dir);
	snprintf(v1old, sizeof v1old, "%s/v1-72.data", dir);
	if (!pd_test_perf_record(v2, "-q -N -e cpu-clock -g", BUSY)) {
		pd_test_lab_close(dir);
		PD_SKIP("perf record failed");
	}
	ck_assert(to_v1(v2, v1, 104));
	ck_assert(to_v1(v2, v1old, 72));
	check_v1(dir, v2, v1, "ip,sym,period,tid,time");
	check_v1(dir, v2, v1old, "ip,sym,period,tid,time");
	/* a big-endian v2 fixture (tests/data, pd-swap), as a big-endian v1 */
	pd_test_data(be, sizeof be, "fp.be.data");
	snprintf(be1, sizeof be1, "%s/v1.be.data", dir);
	ck_assert(to_v1(be, be1, 104));
	check_v1(dir, be, be1, "ip,period,tid,time");
	pd_test_lab_close(dir);
}
END_TEST

/* Inputs that are neither, each given to every command. */
static const struct neither {
	const char *name;
	const char *bytes;   /* NULL: made by `make` */
	size_t len;
	const char *make;    /* shell text writing %s */
	const char *why;
} neither[] = {
	{ "text.data", "hello world\n", 12, NULL, "not a protobuf Profile" },
	{ "sentence.data", "this is not a recording\n", 24, NULL, "not a protobuf Profile" },
	{ "newline.data", "\n", 1, NULL, "not a protobuf Profile" },
	{ "empty.data", "", 0, NULL, "the file is empty" },
	{ "program.data", NULL, 0, "cp /bin/true '%s'", "not a protobuf Profile" },
	{ "text.gz", NULL, 0, "echo 'a gzipped line of text' | gzip -c > '%s'",
	  "gzip, but not of a protobuf Profile" },
};

static const char *const commands[] = {
	"report '%s'", "diff '%s' '%s'", "'%s' '%s'", "dump '%s'", "dump --stats '%s'",
	"script '%s'", "report --format=pprof -o /dev/null '%s'",
};

static void write_neither(const char *dir, const struct neither *x, char *path, size_t n)
{
	snprintf(path, n, "%s/%s", dir, x->name);
	if (x->bytes) {
		ck_assert(pd_test_write_file(path, x->bytes, x->len));
		return;
	}
	char cmd[9000];
	snprintf(cmd, sizeof cmd, x->make, path);
	ck_assert_msg(pd_test_sh_ok(cmd), "%s", cmd);
}

START_TEST(test_neither_perf_nor_pprof)
{
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	for (size_t i = 0; i < sizeof neither / sizeof *neither; i++) {
		char path[4300], want[4600];
		/* without zlib gzip cannot be looked into: it is taken for
		 * pprof and refused as such (test_optional) */
		if (!PD_TEST_HAVE_PPROF && strstr(neither[i].why, "gzip"))
			continue;
		write_neither(dir, &neither[i], path, sizeof path);
		snprintf(want, sizeof want,
			 "perfdiff: %s: offset 0: neither perf.data nor pprof (", path);
		for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
			int st;
			char *err;
			free(cli(dir, &st, &err, commands[c], path));
			ck_assert_msg(st == 2, "%s on %s: exit %d", commands[c], neither[i].name, st);
			/* one line, that line, ending in a newline */
			ck_assert_msg(strncmp(err, want, strlen(want)) == 0 &&
					      strstr(err, neither[i].why) &&
					      strchr(err, '\n') == err + strlen(err) - 1,
				      "%s on %s says:\n%s", commands[c], neither[i].name, err);
			free(err);
		}
		/* the library says it in those words, with the code */
		pd_input_kind kind;
		pd_error e;
		ck_assert_int_eq(pd_input_detect(path, &kind, &e), PD_ENOTPERF);
		ck_assert_ptr_nonnull(strstr(e.message, "neither perf.data nor pprof"));
		pd_profile *p;
		ck_assert_int_eq(pd_profile_new(&p, NULL, &e), 0);
		ck_assert_int_eq(pd_profile_add_input(p, path, &e), PD_ENOTPERF);
		ck_assert_ptr_nonnull(strstr(e.message, path));
		ck_assert_uint_eq(pd_profile_run_count(p), 0);
		pd_profile_free(p);
	}
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* dump --stats --format=json gives its object even then, with the error. */
START_TEST(test_neither_in_dump_json)
{
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char path[4300];
	write_neither(dir, &neither[0], path, sizeof path);
	int st;
	char *out = cli(dir, &st, NULL, "dump --stats --format=json '%s'", path);
	ck_assert_int_eq(st, 2);
	json_t *j = json_of(out);
	const char *e = json_string_value(json_object_get(j, "error"));
	ck_assert_msg(e && strstr(e, "neither perf.data nor pprof"), "error: %s", e);
	json_decref(j);
	free(out);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* fp.data exported as pprof (gzipped or not) into `dir` is pprof to
 * pd_input_detect(). */
static void detect_export(const char *fp, const char *dir, int gz)
{
	char path[4300];
	pd_error e;
	pd_profile *p;
	ck_assert_int_eq(pd_profile_new(&p, NULL, &e), 0);
	ck_assert_int_eq(pd_profile_add_file(p, fp, &e), 0);
	pd_pprof_write_options wo;
	pd_pprof_write_options_init(&wo, PD_PPROF_WRITE_OPTIONS_VERSION);
	wo.gzip = gz;
	snprintf(path, sizeof path, "%s/run.pb%s", dir, gz ? ".gz" : "");
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pd_profile_write_pprof(p, f, &wo, &e), 0);
	fclose(f);
	pd_input_kind kind = PD_INPUT_PERF;
	ck_assert_int_eq(pd_input_detect(path, &kind, &e), 0);
	ck_assert_int_eq(kind, PD_INPUT_PPROF);
	pd_profile_free(p);
}

/* What each kind of real input is taken for; a FIFO is not read ahead
 * (that would block, or lose its bytes), nor a missing file (the reader
 * names it). */
START_TEST(test_detect_kinds)
{
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char fp[4200], path[4300];
	pd_test_data(fp, sizeof fp, "fp.data");
	pd_input_kind kind = PD_INPUT_PPROF;
	pd_error e;
	const char *perf_inputs[] = { fp, "-", dir, "/nonexistent/run.data" };
	for (size_t i = 0; i < 4; i++) {
		ck_assert_int_eq(pd_input_detect(perf_inputs[i], &kind, &e), 0);
		ck_assert_int_eq(kind, PD_INPUT_PERF);
	}
	pd_test_data(path, sizeof path, "fp.be.data");
	ck_assert_int_eq(pd_input_detect(path, &kind, &e), 0);
	ck_assert_int_eq(kind, PD_INPUT_PERF);
	snprintf(path, sizeof path, "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(pd_input_detect(path, &kind, &e), 0);
	ck_assert_int_eq(kind, PD_INPUT_PERF);
	/* pprof, gzipped and not (without pprof: test_optional) */
	for (int gz = 0; gz < 2 && PD_TEST_HAVE_PPROF; gz++)
		detect_export(fp, dir, gz);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *inputs_suite(void)
{
	Suite *s = suite_create("inputs");
	TCase *tc = tcase_create("inputs");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_version_1);
	tcase_add_test(tc, test_neither_perf_nor_pprof);
	tcase_add_test(tc, test_neither_in_dump_json);
	tcase_add_test(tc, test_detect_kinds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(inputs_suite());
}
