/*
 * pd_*_options_init() and PD_*_OPTIONS_INIT of every options struct of the
 * public API.  A program built against an older header has a smaller
 * struct than the library's, so init must write only as far as the
 * version it is given went: here each struct's oldest layout (a test-local
 * copy of the fields it had) meets the current init, inside a buffer of
 * canaries (any build) and in a heap block of exactly its size (ASan).
 * That layout's fields then hold the defaults; a version the library does
 * not know is refused with nothing written; and the macro's defaults are
 * what init sets, compared field by field (padding and pointers make
 * memcmp the wrong test).
 */
#include "testutil.h"

#include <assert.h>
#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* How far a struct went: the end of its field `last`. */
#define END(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* ------------------------------------------------- the fields, by version */

/* Every field but `version` (which init sets to the version asked for),
 * as X(field); *_V1 the fields of the oldest layout the library reads. */
#define READER_V1(X)                                                           \
	X(flags) X(max_attrs) X(max_ids_per_attr) X(max_feature_bytes)         \
	X(max_queue_bytes) X(max_decompressed)
#define READER_ALL(X)                                                          \
	READER_V1(X) X(max_record_bytes) X(max_string) X(max_callchain)        \
	X(max_branches) X(progress) X(progress_payload) X(max_pprof_bytes)     \
	X(max_pprof_memory) X(warn) X(warn_ctx)
#define SESSION_V3(X)                                                          \
	X(flags) X(reader) X(symfs) X(kallsyms) X(buildid_dir) X(jit_dir)      \
	X(max_stack) X(vmlinux) X(unwinder) X(symcache) X(threads)
#define SESSION_ALL(X) SESSION_V3(X) X(warn) X(warn_ctx)
#define PROFILE_V2(X)                                                          \
	X(flags) X(session) X(comms) X(ncomms) X(pids) X(npids) X(tids)        \
	X(ntids) X(cpus) X(ncpus) X(dsos) X(ndsos) X(time_start) X(time_end)
#define PROFILE_ALL(X) PROFILE_V2(X) X(warn) X(warn_ctx)
#define DIFF_ALL(X)                                                            \
	X(flags) X(event) X(depth) X(min_change) X(fdr) X(rename_score)        \
	X(cost_tolerance)
#define REPORT_V1(X)                                                           \
	X(format) X(event) X(order) X(chains) X(threshold) X(percent_limit)    \
	X(sort_self) X(weight_samples) X(mean) X(files) X(nfiles)              \
	X(profile_options)
#define REPORT_ALL(X) REPORT_V1(X) X(color)
#define DIFF_WRITE_V1(X)                                                       \
	X(format) X(all) X(files[0]) X(files[1]) X(nfiles[0]) X(nfiles[1])     \
	X(event) X(weight_samples)
#define DIFF_WRITE_ALL(X)                                                      \
	DIFF_WRITE_V1(X) X(color) X(sort) X(percent_limit) X(no_comm)
#define SCRIPT_ALL(X) X(format) X(srcline) X(full_path) X(ns)
#define PPROF_ALL(X) X(run) X(gzip) X(comments) X(ncomments)

/* ------------------------------------------- the oldest layouts, copied */

/* pd_reader_options version 1: up to max_decompressed. */
typedef struct reader_v1 {
	unsigned int version;
	unsigned int flags;
	uint32_t max_attrs;
	uint64_t max_ids_per_attr;
	uint64_t max_feature_bytes;
	uint64_t max_queue_bytes;
	uint64_t max_decompressed;
} reader_v1;

/* pd_report_write_options version 1: up to profile_options. */
typedef struct report_v1 {
	unsigned int version;
	pd_format format;
	int event;
	pd_chain_order order;
	bool chains;
	double threshold;
	double percent_limit;
	bool sort_self;
	bool weight_samples;
	bool mean;
	const char *const *files;
	size_t nfiles;
	const pd_profile_options *profile_options;
} report_v1;

/* pd_diff_write_options version 1: up to weight_samples. */
typedef struct diff_write_v1 {
	unsigned int version;
	pd_format format;
	bool all;
	const char *const *files[2];
	size_t nfiles[2];
	const char *event;
	bool weight_samples;
} diff_write_v1;

/* The copies are the library's layout, field by field (else the tests
 * below would prove nothing). */
#define SAME_AT(old, cur, f)                                                   \
	static_assert(offsetof(old, f) == offsetof(cur, f) &&                  \
			      sizeof(((old *)0)->f) == sizeof(((cur *)0)->f),  \
		      #old "." #f);
#define READER_SAME(f) SAME_AT(reader_v1, pd_reader_options, f)
#define REPORT_SAME(f) SAME_AT(report_v1, pd_report_write_options, f)
#define DIFF_WRITE_SAME(f) SAME_AT(diff_write_v1, pd_diff_write_options, f)
READER_SAME(version) READER_V1(READER_SAME)
REPORT_SAME(version) REPORT_V1(REPORT_SAME)
DIFF_WRITE_SAME(version) DIFF_WRITE_V1(DIFF_WRITE_SAME)

/* ------------------------------------------------------ per struct */

/* A field of `a` (any layout that has it) equal to the macro's `d`. */
#define EQ(f) ck_assert_msg(a.f == d.f, "%s: field %s is not the macro's", what, #f);

/*
 * For struct `type` with init `fn` and macro `MACRO`: all_NAME() checks a
 * whole current struct in `p` against the macro, old_NAME() the fields of
 * the oldest layout `old` (OLD_FIELDS) in the `n` bytes at `p` against the
 * macro.  The struct is copied out first: the buffer is bytes, not the
 * type, and may end where the layout's last field does.
 */
#define PER_STRUCT(name, type, fn, MACRO, old, OLD_FIELDS, ALL_FIELDS)         \
	static int init_##name(void *p, unsigned v)                            \
	{                                                                      \
		return fn(p, v);                                               \
	}                                                                      \
	static void all_##name(const void *p, const char *what)                \
	{                                                                      \
		type a, d = MACRO;                                             \
		memcpy(&a, p, sizeof a);                                       \
		ALL_FIELDS(EQ)                                                 \
	}                                                                      \
	static void old_##name(const void *p, size_t n, const char *what)      \
	{                                                                      \
		old a;                                                         \
		type d = MACRO;                                                \
		memset(&a, 0, sizeof a);                                       \
		memcpy(&a, p, n < sizeof a ? n : sizeof a);                    \
		OLD_FIELDS(EQ)                                                 \
	}

PER_STRUCT(reader, pd_reader_options, pd_reader_options_init, PD_READER_OPTIONS_INIT,
	   reader_v1, READER_V1, READER_ALL)
PER_STRUCT(session, pd_session_options, pd_session_options_init, PD_SESSION_OPTIONS_INIT,
	   pd_session_options, SESSION_V3, SESSION_ALL)
PER_STRUCT(profile, pd_profile_options, pd_profile_options_init, PD_PROFILE_OPTIONS_INIT,
	   pd_profile_options, PROFILE_V2, PROFILE_ALL)
PER_STRUCT(diff, pd_diff_options, pd_diff_options_init, PD_DIFF_OPTIONS_INIT,
	   pd_diff_options, DIFF_ALL, DIFF_ALL)
PER_STRUCT(report, pd_report_write_options, pd_report_write_options_init,
	   PD_REPORT_WRITE_OPTIONS_INIT, report_v1, REPORT_V1, REPORT_ALL)
PER_STRUCT(diff_write, pd_diff_write_options, pd_diff_write_options_init,
	   PD_DIFF_WRITE_OPTIONS_INIT, diff_write_v1, DIFF_WRITE_V1, DIFF_WRITE_ALL)
PER_STRUCT(script, pd_script_write_options, pd_script_write_options_init,
	   PD_SCRIPT_WRITE_OPTIONS_INIT, pd_script_write_options, SCRIPT_ALL, SCRIPT_ALL)
PER_STRUCT(pprof, pd_pprof_write_options, pd_pprof_write_options_init,
	   PD_PPROF_WRITE_OPTIONS_INIT, pd_pprof_write_options, PPROF_ALL, PPROF_ALL)

typedef struct init_case {
	const char *name;
	int (*init)(void *p, unsigned version);
	size_t size;          /* sizeof the current struct */
	unsigned current;     /* its version */
	unsigned oldest;      /* the oldest version the library reads */
	size_t oldest_end;    /* how far that version went */
	void (*all)(const void *p, const char *what);
	void (*old)(const void *p, size_t n, const char *what);
	unsigned refused[3];  /* older layouts no longer read (0: end) */
} init_case;

#define CASE(N, T, VER, FIRST, OLDT, LAST)                                     \
	.name = #T, .init = init_##N, .size = sizeof(T), .current = VER,       \
	.oldest = FIRST, .oldest_end = END(OLDT, LAST), .all = all_##N,        \
	.old = old_##N

static const init_case cases[] = {
	{ CASE(reader, pd_reader_options, PD_READER_OPTIONS_VERSION, 1, reader_v1,
	       max_decompressed) },
	/* versions 1 and 2 held the reader's options by value */
	{ CASE(session, pd_session_options, PD_SESSION_OPTIONS_VERSION, 3, pd_session_options,
	       threads), .refused = { 1, 2 } },
	/* version 1 held the session's options by value */
	{ CASE(profile, pd_profile_options, PD_PROFILE_OPTIONS_VERSION, 2, pd_profile_options,
	       time_end), .refused = { 1 } },
	{ CASE(diff, pd_diff_options, PD_DIFF_OPTIONS_VERSION, 1, pd_diff_options,
	       cost_tolerance) },
	{ CASE(report, pd_report_write_options, PD_REPORT_WRITE_OPTIONS_VERSION, 1, report_v1,
	       profile_options) },
	{ CASE(diff_write, pd_diff_write_options, PD_DIFF_WRITE_OPTIONS_VERSION, 1,
	       diff_write_v1, weight_samples) },
	{ CASE(script, pd_script_write_options, PD_SCRIPT_WRITE_OPTIONS_VERSION, 1,
	       pd_script_write_options, ns) },
	{ CASE(pprof, pd_pprof_write_options, PD_PPROF_WRITE_OPTIONS_VERSION, 1,
	       pd_pprof_write_options, ncomments) },
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* ------------------------------------------------------ the tests */

#define CANARY 0xA5
#define SLACK 64

/* Room for any options struct and canaries after it, aligned for all. */
typedef struct canaried {
	alignas(max_align_t) unsigned char b[512 + SLACK];
} canaried;

/* The first byte at or after `from` that is no longer a canary, or n. */
static size_t first_written(const canaried *c, size_t from, size_t n)
{
	while (from < n && c->b[from] == CANARY)
		from++;
	return from;
}

static unsigned version_of(const canaried *c)
{
	unsigned v;
	memcpy(&v, c->b, sizeof v);
	return v;
}

/* The current version over canaries: every field is the macro's, and
 * nothing is written past the struct (a size table gone stale leaves a
 * canary in a field, which the comparison catches). */
START_TEST(test_init_is_macro)
{
	const init_case *k = &cases[_i];
	canaried c;
	ck_assert_uint_le(k->size, sizeof c.b - SLACK);
	memset(&c, CANARY, sizeof c);
	ck_assert_int_eq(k->init(c.b, k->current), 0);
	ck_assert_uint_eq(version_of(&c), k->current);
	k->all(c.b, k->name);
	ck_assert_uint_eq(first_written(&c, k->size, sizeof c.b), sizeof c.b);
}
END_TEST

/* The oldest layout the library reads meets the current init: not a byte
 * past that layout's last field is written, and its fields are the
 * defaults. */
START_TEST(test_oldest_layout)
{
	const init_case *k = &cases[_i];
	/* exactly that size on the heap: ASan sees a byte more */
	void *p = malloc(k->oldest_end);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(k->init(p, k->oldest), 0);
	k->old(p, k->oldest_end, k->name);
	free(p);
	/* canaries after it, for a build without ASan */
	canaried c;
	memset(&c, CANARY, sizeof c);
	ck_assert_int_eq(k->init(c.b, k->oldest), 0);
	ck_assert_uint_eq(version_of(&c), k->oldest);
	k->old(c.b, k->oldest_end, k->name);
	ck_assert_msg(first_written(&c, k->oldest_end, sizeof c.b) == sizeof c.b,
		      "%s version %u: a byte written past its end", k->name, k->oldest);
}
END_TEST

/* 0, a newer version and a layout no longer read are refused before
 * anything is written; so is a NULL struct. */
START_TEST(test_unknown_refused)
{
	const init_case *k = &cases[_i];
	unsigned bad[3 + 3] = { 0, k->current + 1, UINT_MAX };
	size_t n = 3;
	for (size_t j = 0; j < 3 && k->refused[j]; j++)
		bad[n++] = k->refused[j];
	for (size_t j = 0; j < n; j++) {
		canaried c;
		memset(&c, CANARY, sizeof c);
		ck_assert_int_eq(k->init(c.b, bad[j]), PD_EINVAL);
		ck_assert_msg(first_written(&c, 0, sizeof c.b) == sizeof c.b,
			      "%s version %u refused, yet written", k->name, bad[j]);
	}
	ck_assert_int_eq(k->init(NULL, k->current), PD_EINVAL);
}
END_TEST

/* pd_diff_options_get() writes by version too: a diff's options (here
 * the defaults, of no diff) as far as the caller's struct went. */
START_TEST(test_diff_options_get)
{
	canaried c;
	memset(&c, CANARY, sizeof c);
	ck_assert_int_eq(pd_diff_options_get(NULL, (pd_diff_options *)(void *)c.b,
					     PD_DIFF_OPTIONS_VERSION), 0);
	all_diff(c.b, "pd_diff_options_get");
	ck_assert_uint_eq(first_written(&c, END(pd_diff_options, cost_tolerance), sizeof c.b),
			  sizeof c.b);
	memset(&c, CANARY, sizeof c);
	ck_assert_int_eq(pd_diff_options_get(NULL, (pd_diff_options *)(void *)c.b, 0), PD_EINVAL);
	ck_assert_uint_eq(first_written(&c, 0, sizeof c.b), sizeof c.b);
}
END_TEST

/* The layouts just before the warning sink (reader version 4, session 3,
 * profile 2) still work: each in a heap block of exactly its size (ASan
 * sees a read past it), pointing at one another, reads a cut fixture
 * with the warnings held for polling, as many as with the current
 * layouts. */
START_TEST(test_pre_sink_layouts_work)
{
	char src[PD_TEST_PATHMAX], cut[PD_TEST_PATHMAX];
	size_t len = 0;
	uint8_t *b = pd_test_read_file(pd_test_data(src, sizeof src, "fp.data"), &len);
	char *dir = pd_test_tmpdir();
	ck_assert(b && dir);
	snprintf(cut, sizeof cut, "%s/cut.data", dir);
	ck_assert(pd_test_write_file(cut, b, len * 3 / 5));
	free(b);
	pd_reader_options *ro = malloc(END(pd_reader_options, max_pprof_memory));
	pd_session_options *so = malloc(END(pd_session_options, threads));
	pd_profile_options *po = malloc(END(pd_profile_options, time_end));
	ck_assert(ro && so && po);
	ck_assert_int_eq(pd_reader_options_init(ro, 4), 0);
	ck_assert_int_eq(pd_session_options_init(so, 3), 0);
	ck_assert_int_eq(pd_profile_options_init(po, 2), 0);
	/* no `so->reader =`: the compiler knows the block is smaller than the
	 * type, whose fields past the end are the point of the test */
	const pd_reader_options *rp = ro;
	const pd_session_options *sp = so;
	unsigned none = 0;
	memcpy((char *)so + offsetof(pd_session_options, reader), &rp, sizeof rp);
	memcpy((char *)so + offsetof(pd_session_options, threads), &none, sizeof none);
	memcpy((char *)po + offsetof(pd_profile_options, session), &sp, sizeof sp);
	pd_error err;
	pd_session *s = NULL;
	ck_assert_int_eq(pd_session_open(&s, cut, so, &err), 0);
	const pd_resolved_sample *rs;
	while (pd_session_next(s, &rs, &err) == 0)
		;
	size_t nread = pd_reader_warning_count(pd_session_reader(s));
	ck_assert_uint_gt(nread, 0);
	pd_session_free(s);
	pd_profile *old = NULL, *cur = NULL;
	ck_assert_int_eq(pd_profile_new(&old, po, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(old, cut, &err), 0);
	ck_assert_int_eq(pd_profile_new(&cur, NULL, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(cur, cut, &err), 0);
	ck_assert_uint_ge(pd_profile_warning_count(old), nread);
	ck_assert_uint_eq(pd_profile_warning_count(old), pd_profile_warning_count(cur));
	ck_assert(pd_profile_run_truncated(old, 0));
	pd_profile_free(old);
	pd_profile_free(cur);
	free(ro);
	free(so);
	free(po);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *options_init_suite(void)
{
	Suite *s = suite_create("options_init");
	TCase *tc = tcase_create("options_init");
	tcase_add_loop_test(tc, test_init_is_macro, 0, NCASES);
	tcase_add_loop_test(tc, test_oldest_layout, 0, NCASES);
	tcase_add_loop_test(tc, test_unknown_refused, 0, NCASES);
	tcase_add_test(tc, test_diff_options_get);
	tcase_add_test(tc, test_pre_sink_layouts_work);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(options_init_suite());
}
