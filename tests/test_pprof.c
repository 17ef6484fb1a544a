/*
 * pprof out and in (perfdiff/pprof.h, docs/pprof.md): an export read back
 * gives the same report and the same diff as the perf.data it came from,
 * with the binaries gone; go tool pprof reads every export; Go's own CPU
 * profiles are read and diffed; hostile files end in clear errors.
 */
#include "testutil.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "profile.pb-c.h"

#define PATHMAX 4096

/* ---------------------------------------------------------------- helpers */

/* With the symbol facts of the builds, which an export does not carry
 * (docs/pprof.md), a relation's score and evidence text differ. */
static bool drop_facts;

/* `v` without the keys that name files (paths differ by design), and
 * without where this machine found the symbols (symbol_origins), which
 * an export does not carry: an import names its frames from the file. */
static void drop_paths(json_t *v)
{
	if (json_is_object(v)) {
		json_object_del(v, "path");
		json_object_del(v, "paths");
		json_object_del(v, "files");
		json_object_del(v, "symbol_origins");
		if (drop_facts) {
			json_object_del(v, "score");
			json_object_del(v, "evidence");
		}
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x)
			drop_paths(x);
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
			drop_paths(x);
	}
}

/* Equal JSON, reals within 1e-9 (relative), file names aside. */
static bool near(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b)) {
		double x = json_number_value(a), y = json_number_value(b);
		return fabs(x - y) <= 1e-9 * fmax(1, fmax(fabs(x), fabs(y)));
	}
	if (json_typeof(a) != json_typeof(b))
		return false;
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!near(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	if (json_is_object(a)) {
		const char *k;
		json_t *x;
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach((json_t *)a, k, x) {
			json_t *y = json_object_get(b, k);
			if (!y || !near(x, y)) {
				fprintf(stderr, "differs at key %s\n", k);
				return false;
			}
		}
		return true;
	}
	return json_equal((json_t *)a, (json_t *)b);
}

static void assert_same_json(const char *a, const char *b)
{
	json_error_t e;
	json_t *x = json_loads(a, 0, &e), *y = json_loads(b, 0, &e);
	ck_assert_msg(x && y, "JSON: %s", e.text);
	drop_paths(x);
	drop_paths(y);
	ck_assert_msg(near(x, y), "JSON differs:\n%.2000s\n---\n%.2000s", a, b);
	json_decref(x);
	json_decref(y);
}

/* The report JSON of profile `p`, for pd_test_written(). */
static int write_report_json(pd_writer *w, void *p, pd_error *err)
{
	pd_report_write_options o;
	pd_report_write_options_init(&o, PD_REPORT_WRITE_OPTIONS_VERSION);
	o.format = PD_FORMAT_JSON;
	return pd_report_write(w, p, &o, err);
}

/* The report JSON of `p` (caller frees). */
static char *report_json(pd_profile *p)
{
	return pd_test_written(write_report_json, p);
}

/* A profile of `path` (perf.data or pprof). */
static pd_profile *load(const char *path)
{
	pd_profile *p;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, NULL, &err), 0);
	ck_assert_msg(pd_profile_add_input(p, path, &err) == 0, "%s", err.message);
	return p;
}

/* `p` exported (gzip or raw) and read back. */
static pd_profile *round_trip(pd_profile *p, bool gzip)
{
	pd_pprof_write_options o;
	pd_pprof_write_options_init(&o, PD_PPROF_WRITE_OPTIONS_VERSION);
	o.gzip = gzip;
	void *buf;
	size_t len;
	pd_error err;
	ck_assert_msg(pd_profile_write_pprof_buffer(p, &buf, &len, &o, &err) == 0, "%s",
		      err.message);
	ck_assert(pd_pprof_detect(buf, len));
	pd_profile *q;
	ck_assert_int_eq(pd_profile_new(&q, NULL, &err), 0);
	ck_assert_msg(pd_profile_add_pprof_buffer(q, buf, len, "export", &err) == 0, "%s",
		      err.message);
	free(buf);
	return q;
}

/* The report of `data` equals that of its export read back. */
static void check_report_round_trip(const char *data, bool gzip)
{
	pd_profile *p = load(data), *q = round_trip(p, gzip);
	char *a = report_json(p), *b = report_json(q);
	assert_same_json(a, b);
	free(a);
	free(b);
	pd_profile_free(p);
	pd_profile_free(q);
}

/* ------------------------------------------------------------ fixtures */

START_TEST(test_fixtures)
{
	static const char *const names[] = { "fp.data", "dwarf.data", "sys.data", "threads.data" };
	char path[PATHMAX];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		check_report_round_trip(pd_test_data(path, sizeof path, names[i]), true);
		check_report_round_trip(pd_test_data(path, sizeof path, names[i]), false);
	}
}
END_TEST

/* Content sniffing: pprof by gzip magic or a Profile field, not PERFILE2. */
START_TEST(test_detect)
{
	ck_assert(pd_pprof_detect("\x1f\x8b\x08", 3));
	ck_assert(pd_pprof_detect("\x0a\x04\x08\x01", 4));
	ck_assert(!pd_pprof_detect("PERFILE2", 8));
	ck_assert(!pd_pprof_detect("", 0));
	ck_assert(!pd_pprof_detect("\xff\xff", 2));
	/* either perf.data magic, either byte order; text after a few bytes */
	ck_assert(!pd_pprof_detect("PERFFILE", 8));
	ck_assert(!pd_pprof_detect("2ELIFREP", 8));
	ck_assert(!pd_pprof_detect("hello world\n", 12));
}
END_TEST

/* ------------------------------------------------------------- hostile */

typedef Perftools__Profiles__Profile pprof_msg;

/* fp.data exported raw, decoded for mutation. */
static pprof_msg *valid_message(void)
{
	char path[PATHMAX];
	pd_profile *p = load(pd_test_data(path, sizeof path, "fp.data"));
	pd_pprof_write_options o;
	pd_pprof_write_options_init(&o, PD_PPROF_WRITE_OPTIONS_VERSION);
	o.gzip = false;
	void *buf;
	size_t len;
	pd_error err;
	ck_assert_int_eq(pd_profile_write_pprof_buffer(p, &buf, &len, &o, &err), 0);
	pprof_msg *m = perftools__profiles__profile__unpack(NULL, len, buf);
	ck_assert_ptr_nonnull(m);
	free(buf);
	pd_profile_free(p);
	return m;
}

/* Reading `buf` fails with `code` and a message holding `what`; no run. */
static void expect_error(const void *buf, size_t len, int code, const char *what)
{
	pd_profile *p;
	pd_error err;
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(pd_profile_new(&p, NULL, &err), 0);
	int rc = pd_profile_add_pprof_buffer(p, buf, len, "hostile.pb", &err);
	ck_assert_msg(rc == code, "got %d (%s), want %d for %s", rc, err.message, code, what);
	ck_assert_msg(strstr(err.message, what), "message '%s' lacks '%s'", err.message, what);
	ck_assert_msg(strstr(err.message, "hostile.pb"), "message '%s' names no file",
		      err.message);
	ck_assert_uint_eq(pd_profile_run_count(p), 0);
	pd_profile_free(p);
	/* held open as it is (dump, script): the same checks, the same error */
	pd_pprof *pp = (pd_pprof *)1;
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(pd_pprof_open_buffer(&pp, buf, len, "hostile.pb", &err), code);
	ck_assert_ptr_null(pp);
	ck_assert_msg(strstr(err.message, what), "open: '%s' lacks '%s'", err.message, what);
}

static void expect_message_error(pprof_msg *m, int code, const char *what)
{
	size_t n = perftools__profiles__profile__get_packed_size(m);
	uint8_t *buf = malloc(n);
	perftools__profiles__profile__pack(m, buf);
	expect_error(buf, n, code, what);
	free(buf);
}

START_TEST(test_hostile_ids)
{
	pprof_msg *m = valid_message();
	ck_assert_uint_gt(m->n_sample, 0);
	uint64_t loc = m->sample[0]->location_id[0];
	m->sample[0]->location_id[0] = 999999;
	expect_message_error(m, PD_ECORRUPT, "Sample 0: location_id is no Location");
	m->sample[0]->location_id[0] = loc;

	uint64_t fn = m->location[0]->line[0]->function_id;
	m->location[0]->line[0]->function_id = 777;
	expect_message_error(m, PD_ECORRUPT, "Location 0: line's function_id is no Function");
	m->location[0]->line[0]->function_id = fn;

	uint64_t id = m->location[1]->id;
	m->location[1]->id = m->location[0]->id;
	expect_message_error(m, PD_ECORRUPT, "given twice");
	m->location[1]->id = 0;
	expect_message_error(m, PD_ECORRUPT, "Location 1: id 0");
	m->location[1]->id = id;

	uint64_t map = m->location[0]->mapping_id;
	m->location[0]->mapping_id = 55;
	expect_message_error(m, PD_ECORRUPT, "mapping_id is no Mapping");
	m->location[0]->mapping_id = map;
	perftools__profiles__profile__free_unpacked(m, NULL);
}
END_TEST

START_TEST(test_hostile_strings)
{
	pprof_msg *m = valid_message();
	int64_t name = m->function[0]->name;
	m->function[0]->name = (int64_t)m->n_string_table;
	expect_message_error(m, PD_ECORRUPT, "Function 0: name is string");
	m->function[0]->name = -1;
	expect_message_error(m, PD_ECORRUPT, "Function 0: name is string -1");
	m->function[0]->name = name;

	m->sample[0]->label[0]->key = 1 << 30;
	expect_message_error(m, PD_ECORRUPT, "Sample 0: label key");
	m->sample[0]->label[0]->key = 0;

	char *first = m->string_table[0];
	m->string_table[0] = (char *)"x";
	expect_message_error(m, PD_ECORRUPT, "string_table[0]");
	m->string_table[0] = first;
	perftools__profiles__profile__free_unpacked(m, NULL);
}
END_TEST

START_TEST(test_hostile_values)
{
	pprof_msg *m = valid_message();
	ck_assert_uint_gt(m->n_sample, 1);
	int64_t v0 = m->sample[0]->value[1];
	m->sample[0]->value[1] = -5;
	expect_message_error(m, PD_ECORRUPT, "negative value");
	m->sample[0]->value[1] = INT64_MAX;
	m->sample[1]->value[1] = INT64_MAX;
	expect_message_error(m, PD_ELIMIT, "sum overflows");
	m->sample[0]->value[1] = v0;
	m->sample[1]->value[1] = v0;

	size_t nv = m->sample[0]->n_value;
	m->sample[0]->n_value = 1;
	expect_message_error(m, PD_ECORRUPT, "not one per sample_type");
	m->sample[0]->n_value = nv;

	/* a time block outside the grid */
	pprof_msg *t = m;
	for (size_t i = 0; i < t->n_sample; i++)
		for (size_t k = 0; k < t->sample[i]->n_label; k++)
			if (strcmp(t->string_table[t->sample[i]->label[k]->key], "block") == 0)
				t->sample[i]->label[k]->num = 40;
	bool has_block = false;
	for (size_t i = 0; i < t->n_sample && !has_block; i++)
		has_block = t->sample[i]->n_label > 1;
	if (has_block)
		expect_message_error(m, PD_ECORRUPT, "label block 40");
	perftools__profiles__profile__free_unpacked(m, NULL);
}
END_TEST

/* `n` bytes of gzip holding `raw` bytes of zeros, as `copies` members. */
static uint8_t *zeros_gzip(size_t raw, int copies, size_t *n)
{
	uint8_t *zero = calloc(1, raw);
	z_stream z;
	memset(&z, 0, sizeof z);
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + 15, 9, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, raw);
	uint8_t *one = malloc(cap);
	z.next_in = zero;
	z.avail_in = (uInt)raw;
	z.next_out = one;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t len = cap - z.avail_out;
	deflateEnd(&z);
	uint8_t *all = malloc(len * (size_t)copies);
	for (int i = 0; i < copies; i++)
		memcpy(all + len * (size_t)i, one, len);
	free(zero);
	free(one);
	*n = len * (size_t)copies;
	return all;
}

START_TEST(test_hostile_gzip)
{
	char path[PATHMAX];
	pd_profile *p = load(pd_test_data(path, sizeof path, "fp.data"));
	void *buf;
	size_t len;
	pd_error err;
	ck_assert_int_eq(pd_profile_write_pprof_buffer(p, &buf, &len, NULL, &err), 0);
	pd_profile_free(p);
	/* truncated anywhere: an error, never a crash nor a run */
	for (size_t cut = 2; cut < len; cut += len / 17 + 1)
		expect_error(buf, cut, PD_ECORRUPT, "pprof");
	expect_error(buf, len - 4, PD_ECORRUPT, "ends early");
	/* a flipped byte in the deflate stream */
	uint8_t *bad = malloc(len);
	memcpy(bad, buf, len);
	bad[len / 2] ^= 0x55;
	pd_profile *q;
	ck_assert_int_eq(pd_profile_new(&q, NULL, &err), 0);
	ck_assert_int_lt(pd_profile_add_pprof_buffer(q, bad, len, "flip", &err), 0);
	pd_profile_free(q);
	free(bad);
	free(buf);
	/* a zip bomb: 64 MiB of zeros, five times over, stops at the cap */
	size_t n;
	uint8_t *bomb = zeros_gzip((size_t)64 << 20, 5, &n);
	ck_assert_uint_lt(n, 1 << 20);
	expect_error(bomb, n, PD_ELIMIT, "inflates to more than");
	free(bomb);
	/* neither gzip nor protobuf; garbage after a plausible first byte */
	expect_error("PERFILE2xxxxxxxx", 16, PD_ENOTPERF, "not a pprof");
	expect_error("\x0a\xff\xff\xff\xff\x0f", 6, PD_ECORRUPT, "malformed protobuf");
}
END_TEST

/* ------------------------------------------------------------- pd_pprof */

typedef Perftools__Profiles__ValueType pprof_vt;
typedef Perftools__Profiles__Label pprof_label;

/* A message made by hand: a Location with an inline Line, one without
 * Lines, labels, two sample types with the second the default. */
START_TEST(test_handle)
{
	char *strs[] = { "", "samples", "count", "cpu", "nanoseconds", "leaf", "outer",
			 "/bin/app", "app.c", "pid", "comm", "worker", "a comment" };
	pprof_vt vt[2] = { PERFTOOLS__PROFILES__VALUE_TYPE__INIT,
			   PERFTOOLS__PROFILES__VALUE_TYPE__INIT };
	vt[0].type = 1, vt[0].unit = 2, vt[1].type = 3, vt[1].unit = 4;
	pprof_vt *vts[2] = { &vt[0], &vt[1] };
	Perftools__Profiles__Mapping mp = PERFTOOLS__PROFILES__MAPPING__INIT, *mps[1] = { &mp };
	mp.id = 1, mp.memory_start = 0x400000, mp.memory_limit = 0x500000;
	mp.file_offset = 0x1000, mp.filename = 7;
	Perftools__Profiles__Function fn[2] = { PERFTOOLS__PROFILES__FUNCTION__INIT,
						PERFTOOLS__PROFILES__FUNCTION__INIT };
	fn[0].id = 1, fn[0].name = 5, fn[0].filename = 8;
	fn[1].id = 2, fn[1].name = 6, fn[1].filename = 8;
	Perftools__Profiles__Function *fns[2] = { &fn[0], &fn[1] };
	Perftools__Profiles__Line ln[2] = { PERFTOOLS__PROFILES__LINE__INIT,
					    PERFTOOLS__PROFILES__LINE__INIT };
	ln[0].function_id = 1, ln[0].line = 12, ln[1].function_id = 2, ln[1].line = 40;
	Perftools__Profiles__Line *lns[2] = { &ln[0], &ln[1] };
	Perftools__Profiles__Location loc[2] = { PERFTOOLS__PROFILES__LOCATION__INIT,
						 PERFTOOLS__PROFILES__LOCATION__INIT };
	loc[0].id = 1, loc[0].mapping_id = 1, loc[0].address = 0x401234;
	loc[0].n_line = 2, loc[0].line = lns;
	loc[1].id = 2, loc[1].address = 0x99;
	Perftools__Profiles__Location *locs[2] = { &loc[0], &loc[1] };
	pprof_label lb[2] = { PERFTOOLS__PROFILES__LABEL__INIT, PERFTOOLS__PROFILES__LABEL__INIT };
	lb[0].key = 9, lb[0].num = 77, lb[1].key = 10, lb[1].str = 11;
	pprof_label *lbs[2] = { &lb[0], &lb[1] };
	uint64_t ids[2] = { 1, 2 };
	int64_t vals[2] = { 3, 750 };
	Perftools__Profiles__Sample sm = PERFTOOLS__PROFILES__SAMPLE__INIT, *sms[1] = { &sm };
	sm.n_location_id = 2, sm.location_id = ids, sm.n_value = 2, sm.value = vals;
	sm.n_label = 2, sm.label = lbs;
	int64_t comments[1] = { 12 };
	pprof_msg m = PERFTOOLS__PROFILES__PROFILE__INIT;
	m.n_sample_type = 2, m.sample_type = vts, m.n_sample = 1, m.sample = sms;
	m.n_mapping = 1, m.mapping = mps, m.n_location = 2, m.location = locs;
	m.n_function = 2, m.function = fns, m.n_string_table = 13, m.string_table = strs;
	m.n_comment = 1, m.comment = comments, m.time_nanos = 5, m.duration_nanos = 6;
	m.period_type = &vt[1], m.period = 250;
	size_t n = perftools__profiles__profile__get_packed_size(&m);
	uint8_t *buf = malloc(n);
	perftools__profiles__profile__pack(&m, buf);
	pd_pprof *pp;
	pd_error err;
	ck_assert_int_eq(pd_pprof_open_buffer(&pp, buf, n, "hand.pb", &err), 0);
	free(buf);
	ck_assert_uint_eq(pd_pprof_type_count(pp), 2);
	ck_assert_str_eq(pd_pprof_type_name(pp, 1), "cpu");
	ck_assert_str_eq(pd_pprof_type_unit(pp, 0), "count");
	ck_assert_uint_eq(pd_pprof_default_type(pp), 1);
	ck_assert_uint_eq(pd_pprof_total(pp, 1), 750);
	ck_assert_uint_eq(pd_pprof_count(pp, PD_PPROF_LOCATIONS), 2);
	ck_assert_uint_eq(pd_pprof_count(pp, PD_PPROF_STRINGS), 13);
	ck_assert_str_eq(pd_pprof_comment(pp, 0), "a comment");
	ck_assert_int_eq(pd_pprof_time_nanos(pp), 5);
	ck_assert_int_eq(pd_pprof_duration_nanos(pp), 6);
	const pd_pprof_sample *s = pd_pprof_sample_at(pp, 0, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert(s->has_pid && s->pid == 77 && !s->has_tid && !s->has_cpu);
	ck_assert_str_eq(s->comm, "worker");
	ck_assert_uint_eq(s->nvalues, 2);
	ck_assert_uint_eq(s->values[0], 3);
	ck_assert_uint_eq(s->nframes, 3);
	ck_assert(s->frames[0].inlined && !s->frames[1].inlined && !s->frames[2].inlined);
	ck_assert_str_eq(s->frames[0].symbol, "leaf");
	ck_assert_uint_eq(s->frames[0].line, 12);
	ck_assert_str_eq(s->frames[1].symbol, "outer");
	ck_assert_str_eq(s->frames[1].srcfile, "app.c");
	ck_assert_str_eq(s->frames[1].dso, "/bin/app");
	ck_assert_uint_eq(s->frames[1].dso_addr, 0x401234 - 0x400000 + 0x1000);
	ck_assert_ptr_null(s->frames[2].symbol);
	ck_assert_str_eq(s->frames[2].dso, "[unknown]");
	ck_assert_ptr_null(pd_pprof_sample_at(pp, 1, &err));
	ck_assert_int_eq(err.code, PD_EINVAL);
	pd_pprof_free(pp);
}
END_TEST

/* ------------------------------------------------------------ recorded */

#define RENAME PD_TEST_DATA_DIR "/../workloads/diff_rename.c"
#define INLINE PD_TEST_DATA_DIR "/../workloads/inline.c"
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

/* `perfdiff ARGS` (printf-style): its stdout; the test fails unless it
 * exits 0 or 1 (read with warnings). */
#define cli pd_test_cli_read

/* Two builds of diff_rename (hash_chunk renamed hash_block), two runs a
 * side of two events; exports made, binaries deleted: the diff and the
 * robot's keys of the exports are those of the perf.data files. */
START_TEST(test_recorded_diff)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	const char *args = "-q -N -e cpu-clock,task-clock -g";
	char run[2][2][PATHMAX], bin[PATHMAX], w[PATHMAX + 16];
	for (int side = 0; side < 2; side++) {
		snprintf(bin, sizeof bin, "%s/%s", dir, side ? "new" : "old");
		pd_test_mkdirs(bin);
		strcat(bin, "/app");
		ck_assert(pd_test_compile("cc", side ? WFLAGS " -DPD_NEW" : WFLAGS, bin, RENAME));
		snprintf(w, sizeof w, "'%s' 300", bin);
		for (int r = 0; r < 2; r++) {
			snprintf(run[side][r], PATHMAX, "%s/%s%d.data", dir, side ? "new" : "old", r + 1);
			if (!pd_test_perf_record(run[side][r], args, w)) {
				pd_test_lab_close(dir);
				PD_SKIP("perf record -e cpu-clock,task-clock failed");
			}
		}
	}
	char *a = cli(dir, "diff --format=json --all '%s' '%s' -- '%s' '%s'", run[0][0], run[0][1],
		      run[1][0], run[1][1]);
	char *la = cli(dir, "report --format=lkp '%s'", run[0][0]);
	free(cli(dir, "report --format=pprof -o '%s/exp/' '%s' '%s' '%s' '%s'", dir, run[0][0],
		 run[0][1], run[1][0], run[1][1]));
	free(cli(dir, "report --format=pprof --perf-compat --no-demangle --keep-suffixes -U "
		 "-o '%s/lkp.pb.gz' '%s'", dir, run[0][0]));
	char rm[PATHMAX + 32];
	snprintf(rm, sizeof rm, "rm -rf '%s/old' '%s/new'", dir, dir);
	ck_assert(pd_test_sh_ok(rm));
	/* -o DIR/ names each export N-NAME.pb.gz, N its place among the FILEs */
	char *b = cli(dir, "diff --format=json --all %s/exp/1-old1.data.pb.gz "
		      "%s/exp/2-old2.data.pb.gz -- %s/exp/3-new1.data.pb.gz %s/exp/4-new2.data.pb.gz",
		      dir, dir, dir, dir);
	drop_facts = true;
	assert_same_json(a, b);
	drop_facts = false;
	ck_assert_msg(strstr(b, "\"kind\":\"renamed\""), "no rename relation: %.3000s", b);
	char *lb = cli(dir, "report --format=lkp '%s/lkp.pb.gz'", dir);
	ck_assert_str_eq(la, lb);
	/* dump and script read the export, binaries gone */
	free(cli(dir, "dump --stats '%s/lkp.pb.gz'", dir));
	char *sc = cli(dir, "script '%s/lkp.pb.gz'", dir);
	ck_assert_msg(strstr(sc, "hash_chunk"), "no hash_chunk frame: %.2000s", sc);
	free(sc);
	free(a);
	free(b);
	free(la);
	free(lb);
	pd_test_lab_close(dir);
}
END_TEST

/* The report of `data` and of its CLI export, binaries deleted between. */
static void check_cli_round_trip(const char *dir, const char *data, const char *rm)
{
	char *a = cli(dir, "report --format=json '%s'", data);
	free(cli(dir, "report --format=pprof -o '%s.pb.gz' '%s'", data, data));
	ck_assert(pd_test_sh_ok(rm));
	char *b = cli(dir, "report --format=json '%s.pb.gz'", data);
	assert_same_json(a, b);
	free(a);
	free(b);
}

/* DWARF unwinding with inline frames; system-wide with kernel frames. */
START_TEST(test_recorded_kinds)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	char bin[PATHMAX], data[PATHMAX], w[PATHMAX + 16], rm[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/inline", dir);
	ck_assert(pd_test_compile("cc", "-O2 -g -fno-omit-frame-pointer", bin, INLINE));
	snprintf(w, sizeof w, "'%s' 300", bin);
	snprintf(data, sizeof data, "%s/dwarf.data", dir);
	snprintf(rm, sizeof rm, "rm -f '%s'", bin);
	if (pd_test_perf_record(data, "-q -N -e cpu-clock --call-graph dwarf", w)) {
		char *txt = cli(dir, "report --format=json '%s'", data);
		ck_assert_msg(strstr(txt, "\"inlined\":true"), "no inline frame recorded");
		free(txt);
		check_cli_round_trip(dir, data, rm);
	}
	snprintf(bin, sizeof bin, "%s/rename", dir);
	ck_assert(pd_test_compile("cc", WFLAGS, bin, RENAME));
	snprintf(w, sizeof w, "'%s' 300", bin);
	snprintf(data, sizeof data, "%s/sys.data", dir);
	snprintf(rm, sizeof rm, "rm -f '%s'", bin);
	if (pd_test_perf_record(data, "-q -N -a -g -e cpu-clock", w)) {
		char *txt = cli(dir, "report --format=json '%s'", data);
		ck_assert_msg(strstr(txt, "\"kernel\":true"), "no kernel frame recorded");
		free(txt);
		check_cli_round_trip(dir, data, rm);
	}
	pd_test_lab_close(dir);
}
END_TEST

/* ------------------------------------------------------------------ Go */

/* The environment go runs in: no network, no toolchain download. */
#define GOENV "GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-buildvcs=false GO111MODULE=off "

static bool have_go(void)
{
	return pd_test_sh_ok(GOENV "go version >/dev/null 2>&1");
}

/* Sum of column `col` (0 or 1) of `go tool pprof -raw`'s samples. */
static uint64_t raw_total(const char *raw, int col)
{
	const char *s = strstr(raw, "\nSamples:\n");
	ck_assert_ptr_nonnull(s);
	s = strchr(s + 10, '\n');  /* the sample types' line */
	uint64_t sum = 0;
	for (const char *line = s + 1; *line && strncmp(line, "Locations", 9);) {
		unsigned long long a, b;
		if (sscanf(line, " %llu %llu:", &a, &b) == 2)
			sum += col ? b : a;
		const char *nl = strchr(line, '\n');
		if (!nl)
			break;
		line = nl + 1;
	}
	return sum;
}

/* go tool pprof reads an export: the same totals per sample type, the same
 * top function, and -diff_base on two exports runs. */
START_TEST(test_go_client)
{
	if (!have_go())
		PD_SKIP("go (golang-go) is not installed");
	char *dir = pd_test_tmpdir();
	char data[PATHMAX], cmd[4 * PATHMAX];
	const char *names[] = { "fp.data", "sys.data" };
	for (int i = 0; i < 2; i++) {
		pd_test_data(data, sizeof data, names[i]);
		free(cli(dir, "report --format=pprof -o '%s/%d.pb.gz' '%s'", dir, i, data));
		snprintf(cmd, sizeof cmd, GOENV "go tool pprof -raw '%s/%d.pb.gz' 2>/dev/null", dir, i);
		int st;
		char *raw = pd_test_run(cmd, &st);
		ck_assert_int_eq(st, 0);
		pd_profile *p = load(data);
		int ev = pd_profile_default_event(p);
		ck_assert_uint_eq(raw_total(raw, 0), pd_profile_samples(p, (size_t)ev, SIZE_MAX));
		ck_assert_uint_eq(raw_total(raw, 1), pd_profile_total(p, (size_t)ev, SIZE_MAX));
		free(raw);
		/* the top function by self is one of perfdiff's top ones */
		snprintf(cmd, sizeof cmd, GOENV "go tool pprof -top -nodecount=1 '%s/%d.pb.gz' "
			 "2>/dev/null | tail -1 | awk '{print $NF}'", dir, i);
		char *top = pd_test_run(cmd, &st);
		top[strcspn(top, "\n")] = 0;
		const pd_flat_entry *fl;
		size_t n;
		pd_error err;
		ck_assert_int_eq(pd_profile_flat(p, (size_t)ev, &fl, &n, &err), 0);
		uint64_t best = 0;
		for (size_t k = 0; k < n; k++)
			best = fl[k].self > best ? fl[k].self : best;
		bool found = false;
		for (size_t k = 0; k < n; k++)
			found |= fl[k].self == best && strcmp(fl[k].symbol, top) == 0;
		ck_assert_msg(found, "go's top function %s is not perfdiff's", top);
		free(top);
		pd_profile_free(p);
	}
	snprintf(cmd, sizeof cmd, GOENV "go tool pprof -top -diff_base='%s/0.pb.gz' '%s/1.pb.gz' "
		 ">/dev/null 2>&1", dir, dir);
	ck_assert(pd_test_sh_ok(cmd));
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* ------------------------------------------------------ dump and script */

/* The stacks of `script --format=json` output, leaf first, raw names
 * joined by ';' (an unknown frame "?"), each with its count: 1 a line
 * for perf.data, the "samples" value (values[0] of a one-event export)
 * for pprof. */
static json_t *stacks(const char *jsonl, bool pprof)
{
	json_t *m = json_object();
	char *copy = strdup(jsonl), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);
		ck_assert_msg(o, "bad script line: %s", line);
		size_t cap = 64, len = 0;
		char *key = calloc(1, cap);
		json_t *fr;
		size_t i;
		json_array_foreach(json_object_get(o, "frames"), i, fr) {
			const char *sym = json_string_value(json_object_get(fr, "raw_symbol"));
			size_t n = strlen(sym ? sym : "?") + 2;
			while (len + n >= cap)
				key = realloc(key, cap *= 2);
			len += (size_t)snprintf(key + len, cap - len, "%s;", sym ? sym : "?");
		}
		json_int_t w = pprof ? json_integer_value(json_array_get(json_object_get(o, "values"), 0))
				     : 1;
		json_int_t had = json_integer_value(json_object_get(m, key));
		json_object_set_new(m, key, json_integer(had + w));
		free(key);
		json_decref(o);
	}
	free(copy);
	return m;
}

/* A recording's export: `script` of it gives the stacks `script` gives of
 * the perf.data, with the same counts; `dump --stats` its totals, which
 * are go tool pprof's. */
START_TEST(test_recorded_script)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	char bin[PATHMAX], data[PATHMAX], w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/app", dir);
	ck_assert(pd_test_compile("cc", WFLAGS, bin, RENAME));
	snprintf(w, sizeof w, "'%s' 300", bin);
	snprintf(data, sizeof data, "%s/run.data", dir);
	if (!pd_test_perf_record(data, "-q -N -e cpu-clock -g", w)) {
		pd_test_lab_close(dir);
		PD_SKIP("perf record -e cpu-clock -g failed");
	}
	free(cli(dir, "report --format=pprof -o '%s/run.pb.gz' '%s'", dir, data));
	char *a = cli(dir, "script --format=json '%s'", data);
	char *b = cli(dir, "script --format=json '%s/run.pb.gz'", dir);
	json_t *sa = stacks(a, false), *sb = stacks(b, true);
	ck_assert_msg(json_object_size(sa) > 1, "too few stacks: %.2000s", a);
	char *da = json_dumps(sa, JSON_SORT_KEYS), *db = json_dumps(sb, JSON_SORT_KEYS);
	ck_assert_str_eq(da, db);
	free(da);
	free(db);
	json_decref(sa);
	json_decref(sb);
	free(a);
	free(b);
	char *st = cli(dir, "dump --stats --format=json '%s/run.pb.gz'", dir);
	json_error_t je;
	json_t *o = json_loads(st, 0, &je);
	ck_assert_msg(o, "bad stats: %s", st);
	json_t *types = json_object_get(o, "sample_types");
	ck_assert_uint_eq(json_array_size(types), 2);
	if (!have_go()) {
		printf("test_recorded_script: go is not installed: totals not checked\n");
	} else {
		char cmd[2 * PATHMAX];
		snprintf(cmd, sizeof cmd, GOENV "go tool pprof -raw '%s/run.pb.gz' 2>/dev/null", dir);
		int rc;
		char *raw = pd_test_run(cmd, &rc);
		ck_assert_int_eq(rc, 0);
		for (int col = 0; col < 2; col++) {
			json_t *t = json_array_get(types, (size_t)col);
			ck_assert_uint_eq((uint64_t)json_integer_value(json_object_get(t, "total")),
					  raw_total(raw, col));
		}
		free(raw);
	}
	json_decref(o);
	free(st);
	pd_test_lab_close(dir);
}
END_TEST

static const char go_program[] =
	"package main\n"
	"import (\"os\"; \"runtime/pprof\"; \"time\")\n"
	"var sink uint64\n"
	"//go:noinline\n"
	"func mix(x uint64) uint64 { for i := 0; i < 300; i++ { x ^= x >> 29; x *= 0xbf58476d1ce4e5b9 }; return x }\n"
	"//go:noinline\n"
	"func HOT(x uint64) uint64 { for i := 0; i < 600; i++ { x ^= x >> 31; x *= 0x94d049bb133111eb }; return mix(x) }\n"
	"//go:noinline\n"
	"func process(n int) uint64 { var s uint64; for i := 0; i < n; i++ { s += HOT(uint64(i)) }; return s }\n"
	"func main() {\n"
	"\tf, _ := os.Create(os.Args[1]); pprof.StartCPUProfile(f)\n"
	"\tend := time.Now().Add(1500 * time.Millisecond)\n"
	"\tfor time.Now().Before(end) { sink += process(1000) }\n"
	"\tpprof.StopCPUProfile(); f.Close()\n"
	"}\n";

/* Go's own CPU profiles of two builds, the hot function renamed: read
 * with the defaults for foreign profiles, their diff shows one rename. */
START_TEST(test_go_foreign)
{
	if (!have_go())
		PD_SKIP("go (golang-go) is not installed");
	char *dir = pd_test_tmpdir();
	char src[PATHMAX], cmd[4 * PATHMAX];
	const char *hot[2] = { "hashChunk", "hashBlock" };
	for (int side = 0; side < 2; side++) {
		snprintf(src, sizeof src, "%s/%s", dir, side ? "new" : "old");
		pd_test_mkdirs(src);
		strcat(src, "/main.go");
		FILE *f = fopen(src, "w");
		ck_assert_ptr_nonnull(f);
		fputs(go_program, f);
		fclose(f);
		snprintf(cmd, sizeof cmd, "sed -i 's/HOT/%s/g' '%s' && cd '%s/%s' && " GOENV
			 "go build -o app main.go >/dev/null 2>&1 && ./app cpu.pprof", hot[side], src,
			 dir, side ? "new" : "old");
		if (!pd_test_sh_ok(cmd)) {
			pd_test_rmrf(dir);
			free(dir);
			PD_SKIP("go build or the Go program failed");
		}
	}
	char *out = cli(dir, "diff --format=json '%s/old/cpu.pprof' '%s/new/cpu.pprof'", dir, dir);
	json_error_t e;
	json_t *d = json_loads(out, 0, &e);
	ck_assert_ptr_nonnull(d);
	json_t *rel = json_object_get(d, "relations");
	size_t renames = 0, i;
	json_t *r;
	json_array_foreach(rel, i, r)
		renames += strcmp(json_string_value(json_object_get(r, "kind")), "renamed") == 0 &&
			   strstr(json_string_value(json_object_get(r, "base_symbol")), "hashChunk") &&
			   strstr(json_string_value(json_object_get(r, "new_symbol")), "hashBlock");
	ck_assert_msg(renames == 1, "renames %zu in %.3000s", renames, out);
	json_decref(d);
	free(out);
	/* script of Go's own profile: its Lines' source lines, and no pid labels */
	char *sc = cli(dir, "script --srcline '%s/old/cpu.pprof'", dir);
	ck_assert_msg(strstr(sc, "main.hashChunk") && strstr(sc, "main.go:"),
		      "no hashChunk or main.go line: %.3000s", sc);
	free(sc);
	char *st = cli(dir, "dump --stats '%s/old/cpu.pprof'", dir);
	ck_assert_msg(strstr(st, "cpu/nanoseconds total "), "no cpu type: %s", st);
	free(st);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* ------------------------------------------------------ header facts */

/* What perf prints for `key` in `perf report --header-only -i data`
 * ("# hostname : vm"), trailing blanks cut; the fixture's saved copy of
 * that output (NAME.header) when perf is not installed.  Caller frees. */
static char *perf_header(const char *data, const char *key)
{
	char cmd[2 * PATHMAX], hdr[PATHMAX];
	snprintf(hdr, sizeof hdr, "%.*s.header", (int)(strlen(data) - 5), data);
	if (pd_test_have_perf())
		snprintf(cmd, sizeof cmd, "perf report --header-only -i '%s' 2>/dev/null", data);
	else
		snprintf(cmd, sizeof cmd, "cat '%s'", hdr);
	int st;
	char *out = pd_test_run(cmd, &st);
	char want[64];
	snprintf(want, sizeof want, "\n# %s : ", key);
	char *at = strstr(out, want);
	ck_assert_msg(at, "perf's header has no %s", key);
	at += strlen(want);
	size_t n = strcspn(at, "\n");
	while (n && at[n - 1] == ' ')
		n--;
	char *v = strndup(at, n);
	free(out);
	return v;
}

static void assert_info_eq(const pd_run_info *a, const pd_run_info *b)
{
	ck_assert_str_eq(a->perf_version, b->perf_version);
	ck_assert_str_eq(a->hostname, b->hostname);
	ck_assert_str_eq(a->osrelease, b->osrelease);
	ck_assert_str_eq(a->arch, b->arch);
	ck_assert_str_eq(a->cmdline, b->cmdline);
}

/* The comments `go tool pprof -comments` prints of the export of `p`
 * (caller frees), NULL without go. */
static char *go_comments(pd_profile *p, const char *dir)
{
	if (!have_go())
		return NULL;
	char path[PATHMAX], cmd[2 * PATHMAX];
	snprintf(path, sizeof path, "%s/facts.pb.gz", dir);
	FILE *f = fopen(path, "wb");
	pd_error err;
	ck_assert_msg(pd_profile_write_pprof(p, f, NULL, &err) == 0, "%s", err.message);
	fclose(f);
	snprintf(cmd, sizeof cmd, GOENV "go tool pprof -comments '%s' 2>/dev/null", path);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_int_eq(st, 0);
	return out;
}

/* perf's header facts as perf prints them, kept by the profile, written
 * as comments a pprof client shows, read back, and written again. */
START_TEST(test_header_facts)
{
	static const char *const names[] = { "fp.data", "sys.data" };
	char data[PATHMAX];
	char *dir = pd_test_tmpdir();
	for (size_t i = 0; i < 2; i++) {
		pd_test_data(data, sizeof data, names[i]);
		pd_profile *p = load(data);
		const pd_run_info *ri = pd_profile_run_info(p, 0);
		ck_assert_ptr_nonnull(ri);
		ck_assert_ptr_null(pd_profile_run_info(p, 1));
		static const char *const keys[] = { "perf version", "hostname", "os release",
						    "arch", "cmdline" };
		const char *got[] = { ri->perf_version, ri->hostname, ri->osrelease, ri->arch,
				      ri->cmdline };
		for (size_t k = 0; k < 5; k++) {
			char *want = perf_header(data, keys[k]);
			ck_assert_ptr_nonnull(got[k]);
			ck_assert_str_eq(got[k], want);
			free(want);
		}
		char *com = go_comments(p, dir);
		char line[8192];
		snprintf(line, sizeof line, "perf version %s\nhostname %s\nkernel %s\narch %s\n"
			 "perf command line: %s\n", ri->perf_version, ri->hostname, ri->osrelease,
			 ri->arch, ri->cmdline);
		ck_assert_msg(!com || strstr(com, line), "go shows no facts: %s", com);
		free(com);
		pd_profile *q = round_trip(p, true), *r = round_trip(q, false);
		assert_info_eq(pd_profile_run_info(q, 0), ri);
		assert_info_eq(pd_profile_run_info(r, 0), ri);
		pd_profile_free(r);
		pd_profile_free(q);
		pd_profile_free(p);
	}
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* ---------------------------------------------------------- build-ids */

/* `id` (n bytes) as hex into hex[41]. */
static const char *hex_of(const uint8_t *id, size_t n, char *hex)
{
	hex[0] = 0;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return hex;
}

/* The build-id of every dso of `p`'s default event (run 0) as
 * `perf buildid-list` prints one: "HEX PATH" lines, sorted. */
static char *profile_build_ids(pd_profile *p, const char *dir)
{
	const pd_flat_entry *fl;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_profile_flat(p, (size_t)pd_profile_default_event(p), &fl, &n, &err), 0);
	char path[PATHMAX], cmd[2 * PATHMAX], hex[41];
	snprintf(path, sizeof path, "%s/ours", dir);
	FILE *f = fopen(path, "w");
	for (size_t k = 0; k < n; k++) {
		const uint8_t *id;
		size_t len = pd_profile_dso_build_id(p, 0, fl[k].dso, &id);
		if (len)
			fprintf(f, "%s %s\n", hex_of(id, len, hex), fl[k].dso);
	}
	fclose(f);
	snprintf(cmd, sizeof cmd, "sort -u '%s'", path);
	int st;
	return pd_test_run(cmd, &st);
}

/* The build-ids of a recording's dsos are those `perf buildid-list`
 * prints; an export's Mappings carry them (go tool pprof shows them) and
 * reading it back gives them again. */
START_TEST(test_build_ids)
{
	if (!pd_test_have_perf())
		PD_SKIP("perf is not installed");
	static const char *const names[] = { "fp.data", "sys.data" };
	char data[PATHMAX], cmd[3 * PATHMAX];
	char *dir = pd_test_tmpdir();
	for (size_t i = 0; i < 2; i++) {
		pd_test_data(data, sizeof data, names[i]);
		pd_profile *p = load(data);
		char *ours = profile_build_ids(p, dir);
		ck_assert_msg(strstr(ours, i ? "[kernel.kallsyms]" : "/workload"), "missing: %s", ours);
		/* perf's list, cut to the lines of our dsos: the same lines */
		snprintf(cmd, sizeof cmd, "perf buildid-list -i '%s' 2>/dev/null | sort -u | "
			 "grep -Fx -f '%s/ours'", data, dir);
		int st;
		char *perfs = pd_test_run(cmd, &st);
		ck_assert_str_eq(perfs, ours);
		pd_profile *q = round_trip(p, true);
		char *back = profile_build_ids(q, dir);
		ck_assert_str_eq(back, ours);
		/* two runs of one build: the build-id of both */
		pd_error err;
		ck_assert_int_eq(pd_profile_add_input(q, data, &err), 0);
		const uint8_t *a, *b;
		const char *bin = i ? "[kernel.kallsyms]" : strchr(ours, ' ') + 1;
		char one[PATHMAX];
		snprintf(one, sizeof one, "%.*s", (int)strcspn(bin, "\n"), bin);
		size_t la = pd_profile_dso_build_id(q, 0, one, &a);
		ck_assert_uint_ne(la, 0);
		ck_assert_uint_eq(pd_profile_dso_build_id(q, SIZE_MAX, one, &b), la);
		ck_assert(memcmp(a, b, la) == 0);
		ck_assert_uint_eq(pd_profile_dso_build_id(q, 2, one, &b), 0);
		ck_assert_uint_eq(pd_profile_dso_build_id(q, 0, "no such dso", &b), 0);
		if (have_go()) {
			free(cli(dir, "report --format=pprof -o '%s/b.pb.gz' '%s'", dir, data));
			snprintf(cmd, sizeof cmd, GOENV "go tool pprof -raw '%s/b.pb.gz' 2>/dev/null | "
				 "sed -n '/^Mappings/,$p' | awk 'NF >= 4 && $4 !~ /^\\[/ "
				 "{print $4, $3}' | sort -u", dir);
			char *go = pd_test_run(cmd, &st);
			ck_assert_str_eq(go, ours);
			free(go);
		}
		free(back);
		free(perfs);
		free(ours);
		pd_profile_free(q);
		pd_profile_free(p);
	}
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pprof");
	TCase *tc = tcase_create("pprof");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_detect);
	tcase_add_test(tc, test_fixtures);
	tcase_add_test(tc, test_hostile_ids);
	tcase_add_test(tc, test_hostile_strings);
	tcase_add_test(tc, test_hostile_values);
	tcase_add_test(tc, test_hostile_gzip);
	tcase_add_test(tc, test_handle);
	tcase_add_test(tc, test_recorded_diff);
	tcase_add_test(tc, test_recorded_kinds);
	tcase_add_test(tc, test_go_client);
	tcase_add_test(tc, test_go_foreign);
	tcase_add_test(tc, test_recorded_script);
	tcase_add_test(tc, test_header_facts);
	tcase_add_test(tc, test_build_ids);
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
