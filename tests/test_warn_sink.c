/*
 * The warning sink of the options (pd_warn_fn, perfdiff/common.h): the
 * reader, the session and the profile hand each warning they keep to the
 * caller's `warn` as they keep it.  The oracle is the object's own getters
 * after the read: the sink must have received exactly what they hold, in
 * their order and with their kinds, each time on the thread that called
 * the library (pthread_self() compared), with the input's path, and
 * whether the profile and the session may start threads or not.  The input
 * is the fixture fp.data cut at test time in the middle of its records,
 * which the reader warns about (a lost tail and the header sections after
 * it), plus the symbolizer's warnings about binaries of another machine.
 */
#include "testutil.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What the sink received. */
typedef struct got {
	size_t n;
	char *msg[256];
	pd_warning_kind kind[256];
	char *path[256];
	pthread_t caller;
	size_t other_thread;   /* calls from a thread not the caller's */
} got;

static void sink(void *ctx, pd_warning_kind kind, const char *path, const char *msg)
{
	got *g = ctx;
	if (!pthread_equal(pthread_self(), g->caller))
		g->other_thread++;
	ck_assert_ptr_nonnull(msg);
	if (g->n == sizeof g->msg / sizeof g->msg[0])
		return;
	g->kind[g->n] = kind;
	g->msg[g->n] = strdup(msg);
	g->path[g->n++] = path ? strdup(path) : NULL;
}

static void got_init(got *g)
{
	memset(g, 0, sizeof *g);
	g->caller = pthread_self();
}

static void got_free(got *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->msg[i]);
		free(g->path[i]);
	}
	got_init(g);
}

/* The getters of one object, for got_equal(). */
typedef struct getters {
	size_t (*count)(const void *o);
	const char *(*text)(const void *o, size_t i);
	pd_warning_kind (*kind)(const void *o, size_t i);
} getters;

static size_t r_count(const void *o) { return pd_reader_warning_count(o); }
static const char *r_text(const void *o, size_t i) { return pd_reader_warning(o, i); }
static pd_warning_kind r_kind(const void *o, size_t i) { return pd_reader_warning_kind(o, i); }
static size_t s_count(const void *o) { return pd_session_warning_count(o); }
static const char *s_text(const void *o, size_t i) { return pd_session_warning(o, i); }
static pd_warning_kind s_kind(const void *o, size_t i) { return pd_session_warning_kind(o, i); }
static size_t p_count(const void *o) { return pd_profile_warning_count(o); }
static const char *p_text(const void *o, size_t i) { return pd_profile_warning(o, i); }
static pd_warning_kind p_kind(const void *o, size_t i) { return pd_profile_warning_kind(o, i); }

static const getters reader_get = { r_count, r_text, r_kind };
static const getters session_get = { s_count, s_text, s_kind };
static const getters profile_get = { p_count, p_text, p_kind };

/* The sink got what the getters of `o` hold, in order, on the caller's
 * thread; the path of warning i is paths[i] (NULL: any). */
static void got_equal(const got *g, const getters *get, const void *o, const char *const *paths,
		      const char *what)
{
	ck_assert_msg(g->other_thread == 0, "%s: %zu calls off the caller's thread", what,
		      g->other_thread);
	ck_assert_msg(g->n == get->count(o), "%s: sink %zu, getters %zu", what, g->n,
		      get->count(o));
	for (size_t i = 0; i < g->n; i++) {
		ck_assert_str_eq(g->msg[i], get->text(o, i));
		ck_assert_int_eq(g->kind[i], get->kind(o, i));
		if (paths && paths[i])
			ck_assert_str_eq(g->path[i], paths[i]);
	}
}

/* fp.data cut in the middle of its records, in `dir`. */
static void cut_fixture(char *out, size_t n, const char *dir)
{
	char src[PD_TEST_PATHMAX];
	size_t len = 0;
	uint8_t *b = pd_test_read_file(pd_test_data(src, sizeof src, "fp.data"), &len);
	ck_assert_ptr_nonnull(b);
	snprintf(out, n, "%s/cut.data", dir);
	ck_assert(pd_test_write_file(out, b, len * 3 / 5));
	free(b);
}

/* The two thread settings every case runs with: none, and no limit. */
static const unsigned thread_budgets[2] = { 0, PD_THREADS_DEFAULT };

START_TEST(test_reader_sink)
{
	char *dir = pd_test_tmpdir(), path[PD_TEST_PATHMAX];
	cut_fixture(path, sizeof path, dir);
	got g;
	got_init(&g);
	pd_reader_options ro = PD_READER_OPTIONS_INIT;
	ro.warn = sink;
	ro.warn_ctx = &g;
	pd_reader *r = NULL;
	pd_error err;
	ck_assert_int_eq(pd_reader_open(&r, path, &ro, &err), 0);
	const pd_record *rec;
	int rc;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0)
		;
	ck_assert_int_eq(rc, PD_ITEROVER);
	ck_assert_uint_gt(g.n, 0);
	bool lost = false;
	for (size_t i = 0; i < g.n; i++) {
		ck_assert_str_eq(g.path[i], path);
		lost |= g.kind[i] == PD_WARN_DATA_LOST;
	}
	ck_assert(lost);
	got_equal(&g, &reader_get, r, NULL, "reader");
	pd_reader_free(r);
	got_free(&g);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* A session: its own sink gets the symbolizer's warnings, its reader's
 * options' sink the reader's, each what its getters hold. */
START_TEST(test_session_sink)
{
	char *dir = pd_test_tmpdir(), path[PD_TEST_PATHMAX];
	cut_fixture(path, sizeof path, dir);
	got rg, sg;
	got_init(&rg);
	got_init(&sg);
	pd_reader_options ro = PD_READER_OPTIONS_INIT;
	ro.warn = sink;
	ro.warn_ctx = &rg;
	pd_session_options so = PD_SESSION_OPTIONS_INIT;
	so.reader = &ro;
	so.threads = thread_budgets[_i];
	so.flags |= PD_SESSION_READ_AHEAD;
	so.warn = sink;
	so.warn_ctx = &sg;
	pd_session *s = NULL;
	pd_error err;
	ck_assert_int_eq(pd_session_open(&s, path, &so, &err), 0);
	const pd_resolved_sample *rs;
	int rc;
	while ((rc = pd_session_next(s, &rs, &err)) == 0)
		;
	ck_assert_int_eq(rc, PD_ITEROVER);
	ck_assert_uint_gt(rg.n, 0);
	got_equal(&rg, &reader_get, pd_session_reader(s), NULL, "session's reader");
	got_equal(&sg, &session_get, s, NULL, "session");
	for (size_t i = 0; i < sg.n; i++)
		ck_assert_str_eq(sg.path[i], path);
	size_t before = rg.n + sg.n;
	pd_session_free(s);
	ck_assert_uint_eq(rg.n + sg.n, before); /* nothing after the getters */
	got_free(&rg);
	got_free(&sg);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* A profile of three inputs: every warning of each, prefixed, through the
 * profile's sink with that input's path, from pd_profile_add_file()'s
 * thread though the inputs are read on the profile's; the sinks of the
 * session and reader options it was given are not called (they would be
 * called from its producer thread). */
START_TEST(test_profile_sink)
{
	char *dir = pd_test_tmpdir(), cut[PD_TEST_PATHMAX], whole[PD_TEST_PATHMAX];
	cut_fixture(cut, sizeof cut, dir);
	pd_test_data(whole, sizeof whole, "fp.data");
	got pg, inner;
	got_init(&pg);
	got_init(&inner);
	pd_reader_options ro = PD_READER_OPTIONS_INIT;
	ro.warn = sink;
	ro.warn_ctx = &inner;
	pd_session_options so = PD_SESSION_OPTIONS_INIT;
	so.reader = &ro;
	so.threads = thread_budgets[_i];
	so.warn = sink;
	so.warn_ctx = &inner;
	pd_profile_options po = PD_PROFILE_OPTIONS_INIT;
	po.session = &so;
	po.warn = sink;
	po.warn_ctx = &pg;
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &po, &err), 0);
	const char *inputs[3] = { cut, whole, cut };
	const char *paths[256] = { 0 };
	for (size_t k = 0; k < 3; k++) {
		size_t from = pd_profile_warning_count(p);
		ck_assert_int_eq(pd_profile_add_file(p, inputs[k], &err), 0);
		/* delivered by the time the call returns */
		ck_assert_uint_eq(pg.n, pd_profile_warning_count(p));
		for (size_t i = from; i < pg.n && i < 256; i++)
			paths[i] = inputs[k];
	}
	ck_assert_uint_gt(pg.n, 0);
	ck_assert(pd_profile_run_truncated(p, 0));
	got_equal(&pg, &profile_get, p, paths, "profile");
	ck_assert_uint_eq(inner.n, 0);
	ck_assert_uint_eq(inner.other_thread, 0);
	pd_profile_free(p);
	got_free(&pg);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *warn_sink_suite(void)
{
	Suite *s = suite_create("warn_sink");
	TCase *tc = tcase_create("warn_sink");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_reader_sink);
	tcase_add_loop_test(tc, test_session_sink, 0, 2);
	tcase_add_loop_test(tc, test_profile_sink, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(warn_sink_suite());
}
