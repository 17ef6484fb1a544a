/*
 * The thread budget (pd_session_options.threads, util/threads.h): with 0
 * the library starts no thread at all, with N it never runs more than N
 * at once, and whatever the budget the profiles, reports and comparisons
 * are the same bytes.  Threads are counted where the library starts and
 * joins them: this suite is linked with --wrap=pthread_create and
 * --wrap=pthread_join (tests/CMakeLists.txt), so the library's calls come
 * here first (a test-only hook: the library keeps no state for it).
 */
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ counting the threads */

int __real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);
int __real_pthread_join(pthread_t th, void **ret);
int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);
int __wrap_pthread_join(pthread_t th, void **ret);

static atomic_uint started, live, most_live;

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	int rc = __real_pthread_create(th, attr, fn, arg);
	if (rc == 0) {
		atomic_fetch_add(&started, 1);
		unsigned now = atomic_fetch_add(&live, 1) + 1;
		unsigned most = atomic_load(&most_live);
		while (now > most && !atomic_compare_exchange_weak(&most_live, &most, now))
			;
	}
	return rc;
}

int __wrap_pthread_join(pthread_t th, void **ret)
{
	int rc = __real_pthread_join(th, ret);
	if (rc == 0)
		atomic_fetch_sub(&live, 1);
	return rc;
}

static void reset_counts(void)
{
	atomic_store(&started, 0);
	atomic_store(&live, 0);
	atomic_store(&most_live, 0);
}

/* ------------------------------------------------ what is compared */

typedef struct out {
	char *p;
	size_t n;
} out;

static int collect(void *ctx, const char *buf, size_t n)
{
	out *o = ctx;
	char *p = realloc(o->p, o->n + n + 1);
	if (!p)
		return -1;
	memcpy(p + o->n, buf, n);
	o->p = p;
	o->n += n;
	o->p[o->n] = '\0';
	return 0;
}

static pd_profile *profile_of(const char *const *files, size_t n, unsigned threads)
{
	pd_session_options so;
	pd_profile_options po;
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	pd_profile_options_init(&po, PD_PROFILE_OPTIONS_VERSION);
	so.threads = threads;
	po.session = &so;
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &po, &err), 0);
	char path[PD_TEST_PATHMAX];
	for (size_t i = 0; i < n; i++) {
		pd_test_data(path, sizeof path, files[i]);
		int rc = pd_profile_add_file(p, path, &err);
		ck_assert_msg(rc == 0, "%s: %s", path, err.message);
	}
	return p;
}

/* Every output of a report of `files` and of their comparison with
 * `other`, concatenated, each format in turn. */
static out outputs(const char *const *files, size_t n, const char *other, unsigned threads)
{
	pd_profile *p = profile_of(files, n, threads);
	pd_profile *q = profile_of(&other, 1, threads);
	out o = { NULL, 0 };
	pd_writer *w;
	pd_error err;
	ck_assert_int_eq(pd_writer_new_callback(&w, collect, &o, &err), 0);
	static const pd_format rf[] = { PD_FORMAT_TEXT, PD_FORMAT_JSON, PD_FORMAT_CSV,
					PD_FORMAT_FOLDED };
	for (size_t i = 0; i < sizeof rf / sizeof rf[0]; i++) {
		pd_report_write_options ro;
		pd_report_write_options_init(&ro, PD_REPORT_WRITE_OPTIONS_VERSION);
		ro.format = rf[i];
		ck_assert_int_eq(pd_report_write(w, p, &ro, &err), 0);
	}
	pd_diff *d;
	ck_assert_int_eq(pd_diff_new(&d, q, p, NULL, &err), 0);
	static const pd_format df[] = { PD_FORMAT_TEXT, PD_FORMAT_JSON, PD_FORMAT_CSV };
	for (size_t i = 0; i < sizeof df / sizeof df[0]; i++) {
		pd_diff_write_options dw;
		pd_diff_write_options_init(&dw, PD_DIFF_WRITE_OPTIONS_VERSION);
		dw.format = df[i];
		dw.all = true;
		ck_assert_int_eq(pd_diff_write(w, d, &dw, &err), 0);
	}
	ck_assert_int_eq(pd_writer_flush(w, &err), 0);
	pd_writer_free(w);
	pd_diff_free(d);
	pd_profile_free(q);
	pd_profile_free(p);
	ck_assert_uint_gt(o.n, 1000);
	return o;
}

static const char *const runs[] = { "fp.data", "two.data", "sys.data" };

/* The most threads one profile of `runs` and its text report ran at once
 * (a budget is per profile: two profiles may each run theirs). */
static unsigned most_at_once(unsigned threads)
{
	reset_counts();
	pd_profile *p = profile_of(runs, 3, threads);
	out o = { NULL, 0 };
	pd_writer *w;
	pd_error err;
	ck_assert_int_eq(pd_writer_new_callback(&w, collect, &o, &err), 0);
	ck_assert_int_eq(pd_report_write(w, p, NULL, &err), 0);
	ck_assert_int_eq(pd_writer_flush(w, &err), 0);
	pd_writer_free(w);
	pd_profile_free(p);
	free(o.p);
	ck_assert_uint_eq(atomic_load(&live), 0);  /* every thread joined */
	return atomic_load(&most_live);
}

/* ------------------------------------------------ the tests */

START_TEST(test_budgets)
{
	reset_counts();
	out all = outputs(runs, 3, "dwarf.data", PD_THREADS_DEFAULT);
	unsigned all_started = atomic_load(&started);
	/* the producer of each of 4 runs at least */
	ck_assert_uint_ge(all_started, 4);
	ck_assert_uint_eq(atomic_load(&live), 0);  /* every thread joined */
	/* without a limit, more than one at once (producer and prefetch) */
	unsigned most = most_at_once(PD_THREADS_DEFAULT);
	printf("threads default: %u started, at most %u at once\n", all_started, most);
	ck_assert_uint_ge(most, 2);
	static const unsigned budgets[] = { 0, 1, 2 };
	for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
		reset_counts();
		out o = outputs(runs, 3, "dwarf.data", budgets[i]);
		ck_assert_msg(o.n == all.n && memcmp(o.p, all.p, o.n) == 0,
			      "threads %u: output differs", budgets[i]);
		ck_assert_uint_eq(atomic_load(&live), 0);
		if (budgets[i] == 0)
			ck_assert_uint_eq(atomic_load(&started), 0);
		else
			ck_assert_uint_gt(atomic_load(&started), 0);
		free(o.p);
		unsigned n = atomic_load(&started), most = most_at_once(budgets[i]);
		printf("threads %u: %u started, at most %u at once\n", budgets[i], n, most);
		ck_assert_uint_le(most, budgets[i]);
	}
	free(all.p);
}
END_TEST

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* A session alone: the same samples and names without a thread. */
START_TEST(test_session)
{
	char path[PD_TEST_PATHMAX];
	pd_test_data(path, sizeof path, "sys.data");
	uint64_t sum[2] = { 0, 0 };
	for (int zero = 0; zero < 2; zero++) {
		reset_counts();
		pd_session_options so;
		pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
		so.threads = zero ? 0 : PD_THREADS_DEFAULT;
		pd_session *s;
		pd_error err;
		ck_assert_int_eq(pd_session_open(&s, path, &so, &err), 0);
		const pd_resolved_sample *rs;
		int rc;
		while ((rc = pd_session_next(s, &rs, &err)) == 0)
			for (size_t i = 0; i < rs->nframes; i++)
				sum[zero] = sum[zero] * 31 + str_hash(rs->frames[i].symbol) +
					    rs->frames[i].addr;
		ck_assert_int_eq(rc, PD_ITEROVER);
		pd_session_free(s);
		if (zero)
			ck_assert_uint_eq(atomic_load(&started), 0);
	}
	ck_assert_uint_eq(sum[0], sum[1]);
}
END_TEST

static Suite *threads_suite(void)
{
	Suite *s = suite_create("threads");
	TCase *tc = tcase_create("threads");
	tcase_add_test(tc, test_budgets);
	tcase_add_test(tc, test_session);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(threads_suite());
}
