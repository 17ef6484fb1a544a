/*
 * The reader's memory does not grow with its input (reader/window.c).
 * tests/tools/pd-repeat grows a real recording (the system-wide fixture)
 * to 64 MB and to 256 MB by repeating its records with shifted times;
 * `perfdiff dump --stats --no-symbols`, run in a child whose peak RSS
 * wait4() reports, must peak within a few MB on both, in file order and
 * in timestamp order (where records wait in the ordering queue, pointing
 * into the mapping, until their round is delivered).  Before the window
 * the whole file stayed resident, and the two peaks differed by the
 * 192 MB between the sizes.
 *
 * Pages handed back must read back intact: the 256 MB file read through
 * the library gives the fixture's samples, field by field summed, exactly
 * as many times over as the file holds copies.
 *
 * The >= 1 GB figure and report's peak are bench/bench-reader.sh's
 * (docs/benchmarks.md): a gigabyte is too much to write in a unit test.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define SMALL_MB 64
#define BIG_MB 256
/* the allowed difference between the two peaks, and the ceiling of both */
#define SLACK_KB (8 << 10)
#define CEILING_KB (48 << 10)

static char *g_dir;
static char g_small[PD_TEST_PATHMAX], g_big[PD_TEST_PATHMAX];

static void grow(const char *out, int mb)
{
	char in[PD_TEST_PATHMAX], cmd[3 * PD_TEST_PATHMAX];
	pd_test_data(in, sizeof in, "sys.data");
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' %d", PD_REPEAT_PATH, in, out, mb);
	ck_assert_msg(pd_test_sh_ok(cmd), "%s failed", cmd);
}

static void setup(void)
{
	g_dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(g_dir);
	snprintf(g_small, sizeof g_small, "%s/small.data", g_dir);
	snprintf(g_big, sizeof g_big, "%s/big.data", g_dir);
	grow(g_small, SMALL_MB);
	grow(g_big, BIG_MB);
}

static void teardown(void)
{
	pd_test_rmrf(g_dir);
	free(g_dir);
}

/* Peak RSS (KB) of `perfdiff dump --stats --no-symbols [extra] path`, which
 * must read the whole data section. */
static long dump_peak_kb(const char *path, const char *extra)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		if (*extra)
			execl(PD_CLI_PATH, "perfdiff", "dump", "--stats", "--no-symbols", extra, path,
			      (char *)NULL);
		else
			execl(PD_CLI_PATH, "perfdiff", "dump", "--stats", "--no-symbols", path,
			      (char *)NULL);
		_exit(127);
	}
	int status;
	struct rusage ru;
	ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "dump of %s: status %d",
		      path, status);
	return ru.ru_maxrss;
}

static void check_flat(const char *extra)
{
	long small = dump_peak_kb(g_small, extra), big = dump_peak_kb(g_big, extra);
	fprintf(stderr, "dump --stats --no-symbols %s: peak %ld KB at %d MB, %ld KB at %d MB\n",
		extra, small, SMALL_MB, big, BIG_MB);
	ck_assert_msg(big - small < SLACK_KB, "peak grew by %ld KB from %d MB to %d MB of input",
		      big - small, SMALL_MB, BIG_MB);
	ck_assert_int_lt(big, CEILING_KB);
}

START_TEST(peak_flat_file_order)
{
	check_flat("");
}
END_TEST

START_TEST(peak_flat_time_order)
{
	check_flat("--ordered");
}
END_TEST

/* Fields of every sample, summed; and how many samples. */
typedef struct sums {
	uint64_t n, ip, period, tid, chain, sq;
} sums;

static void sum_file(const char *path, sums *s)
{
	memset(s, 0, sizeof *s);
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, path, NULL, &err) == 0, "%s", err.message);
	const pd_record *rec;
	int rc;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
		if (rec->type != PD_RECORD_SAMPLE)
			continue;
		const pd_sample *x = &rec->u.sample;
		s->n++;
		s->ip += x->ip;
		s->period += x->period;
		s->tid += x->tid;
		for (uint64_t i = 0; i < x->callchain_nr; i++) {
			s->chain += x->callchain[i];
			s->sq += x->callchain[i] * (i + 1);
		}
	}
	ck_assert_msg(rc == PD_ITEROVER, "%s", err.message);
	ck_assert_uint_eq(pd_reader_stats_get(r)->out_of_order, 0);
	pd_reader_free(r);
}

START_TEST(records_intact)
{
	char in[PD_TEST_PATHMAX];
	sums one, many;
	sum_file(pd_test_data(in, sizeof in, "sys.data"), &one);
	sum_file(g_big, &many);
	ck_assert_uint_gt(one.n, 0);
	ck_assert_uint_eq(many.n % one.n, 0);
	uint64_t k = many.n / one.n;
	ck_assert_uint_gt(k, 1000); /* 256 MB of a 59 KB fixture */
	ck_assert_uint_eq(many.ip, k * one.ip);
	ck_assert_uint_eq(many.period, k * one.period);
	ck_assert_uint_eq(many.tid, k * one.tid);
	ck_assert_uint_eq(many.chain, k * one.chain);
	ck_assert_uint_eq(many.sq, k * one.sq);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("window");
	TCase *tc = tcase_create("window");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, peak_flat_file_order);
	tcase_add_test(tc, peak_flat_time_order);
	tcase_add_test(tc, records_intact);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
