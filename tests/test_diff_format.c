/*
 * pd_diff_format_lkp_row() against the kernel test robot's compare table:
 * the lines of a real robot e-mail (lkp-perf-profile.md §6.5, commit
 * 253ca8678d "Improve __fget_files_rcu() code generation", lmbench3
 * select) and of the layout example (§6.1) reproduced byte for byte from
 * hand-made runs whose means and population standard deviations are
 * worked out in the comments; then each rule of §6.2 on its own.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define PM "\xc2\xb1" /* ± in UTF-8, as the robot prints it */

static char *fmt(double bm, double bs, double nm, double ns, const char *key)
{
	size_t n = pd_diff_format_lkp_row(NULL, 0, bm, bs, nm, ns, key);
	char *s = malloc(n + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(pd_diff_format_lkp_row(s, n + 1, bm, bs, nm, ns, key), n);
	ck_assert_uint_eq(strlen(s), n);
	return s;
}

#define ASSERT_ROW(want, bm, bs, nm, ns, key)                                  \
	do {                                                                   \
		char *got_ = fmt(bm, bs, nm, ns, key);                         \
		ck_assert_msg(strcmp(got_, want) == 0, "\n got: [%s]\nwant: [%s]", \
			      got_, want);                                     \
		free(got_);                                                    \
	} while (0)

/* mean and population stddev, to check the hand arithmetic below */
static void stats(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, q = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = sqrt(q / (double)n);
}

static void check_stats(const double *v, size_t n, double mean, double sd)
{
	double m, s;
	stats(v, n, &m, &s);
	ck_assert_msg(fabs(m - mean) < 1e-9 && fabs(s - sd) < 1e-4,
		      "hand arithmetic: mean %.6f sd %.6f, computed %.6f %.6f", mean, sd, m, s);
}

#define CT "perf-profile.calltrace.cycles-pp."
#define SELECT_PATH "do_select.core_sys_select.kern_select.__x64_sys_select"

START_TEST(test_email_lines)
{
	/* __fget_light, base: runs {16.50, 7.68}: mean 24.18 / 2 = 12.09,
	 * sigma |16.50 - 7.68| / 2 = 4.41, 100 * 4.41 / 12.09 = 36.48 -> "36";
	 * new: absent in both runs {0, 0}: 0.00, no ±; change 0 - 12.09. */
	static const double fl_base[] = { 16.50, 7.68 };
	check_stats(fl_base, 2, 12.09, 4.41);
	ASSERT_ROW("     12.09 " PM " 36%     -12.1        0.00        " CT "__fget_light."
		   SELECT_PATH, 12.09, 4.41, 0, 0, CT "__fget_light." SELECT_PATH);

	/* __fdget, base: ten runs {0.4995, 0.0005, 0 x 8}: mean 0.5 / 10 = 0.05;
	 * E[x^2] = (0.24950025 + 0.00000025) / 10 = 0.02495005, minus 0.05^2:
	 * 0.02245005, sigma 0.14983 -> 299.67 % -> "299" (in the robot's data:
	 * present in one run of ten, 100 * sqrt(9) = 300 less rounding);
	 * new: runs {22.68, 7.26}: mean 14.97, sigma 7.71 -> 51.50 % -> "51";
	 * change 14.97 - 0.05 = 14.92 -> +14.9. */
	static const double fd_base[] = { 0.4995, 0.0005, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const double fd_new[] = { 22.68, 7.26 };
	check_stats(fd_base, 10, 0.05, 0.14983);
	check_stats(fd_new, 2, 14.97, 7.71);
	ASSERT_ROW("      0.05 " PM "299%     +14.9       14.97 " PM " 51%  " CT "__fdget."
		   SELECT_PATH, 0.05, 0.14983, 14.97, 7.71, CT "__fdget." SELECT_PATH);

	/* children of __fget_light: the same runs as its calltrace */
	ASSERT_ROW("     12.09 " PM " 36%     -12.1        0.00        "
		   "perf-profile.children.cycles-pp.__fget_light",
		   12.09, 4.41, 0, 0, "perf-profile.children.cycles-pp.__fget_light");

	/* children of __fdget, base {0.512, 0.208}: mean 0.36, sigma 0.152 ->
	 * 42.2 % -> "42"; new {22.70, 7.26}: mean 14.98, sigma 7.72 -> 51.5 %;
	 * change 14.62 -> +14.6. */
	static const double cf_base[] = { 0.512, 0.208 }, cf_new[] = { 22.70, 7.26 };
	check_stats(cf_base, 2, 0.36, 0.152);
	check_stats(cf_new, 2, 14.98, 7.72);
	ASSERT_ROW("      0.36 " PM " 42%     +14.6       14.98 " PM " 51%  "
		   "perf-profile.children.cycles-pp.__fdget",
		   0.36, 0.152, 14.98, 7.72, "perf-profile.children.cycles-pp.__fdget");

	/* self of __fget_light, base {16.45, 7.65}: mean 12.05, sigma 4.40 ->
	 * 36.5 %; change -12.05, printed -12.1 (12.05 is 12.0500000000000007
	 * as a double) */
	static const double sf_base[] = { 16.45, 7.65 };
	check_stats(sf_base, 2, 12.05, 4.40);
	ASSERT_ROW("     12.05 " PM " 36%     -12.1        0.00        "
		   "perf-profile.self.cycles-pp.__fget_light",
		   12.05, 4.40, 0, 0, "perf-profile.self.cycles-pp.__fget_light");

	/* self of __fdget, base {0.441, 0.179}: mean 0.31, sigma 0.131 -> 42.3 %;
	 * new {22.71, 7.11}: mean 14.91, sigma 7.80 -> 52.3 %; change 14.60 */
	static const double ss_base[] = { 0.441, 0.179 }, ss_new[] = { 22.71, 7.11 };
	check_stats(ss_base, 2, 0.31, 0.131);
	check_stats(ss_new, 2, 14.91, 7.80);
	ASSERT_ROW("      0.31 " PM " 42%     +14.6       14.91 " PM " 52%  "
		   "perf-profile.self.cycles-pp.__fdget",
		   0.31, 0.131, 14.91, 7.80, "perf-profile.self.cycles-pp.__fdget");
}
END_TEST

START_TEST(test_relative_change)
{
	/* §6.1: a benchmark key (not perf-profile, no '%' at the end) changes
	 * relatively: 100 * (1.6056 - 1.78) / 1.78 = -9.80 %; single runs
	 * (stddev 0) show no ±. */
	ASSERT_ROW("      1.78            -9.8%       1.61        lmbench3.Select.100fd.latency.us",
		   1.78, 0, 1.6056, 0, "lmbench3.Select.100fd.latency.us");
	/* a key ending in '%' changes absolutely: 7.50 - 5.00 */
	ASSERT_ROW("      5.00            +2.5        7.50        mpstat.cpu.all.sys%",
		   5.0, 0, 7.5, 0, "mpstat.cpu.all.sys%");
	/* base 0: divided by 1e-100, 5 / 1e-100 * 100 = 5e+102 in "%.2g" */
	ASSERT_ROW("      0.00         +5e+102%       5.00        some.counter",
		   0, 0, 5, 0, "some.counter");
	/* |change| >= 100000: 100 * (2000 - 1) / 1 = 199900 -> "+2e+05" */
	ASSERT_ROW("      1.00          +2e+05%       2000        some.counter",
		   1, 0, 2000, 0, "some.counter");
	/* just below: 100 * (1000.5 - 1) = 99950.0 stays "%.1f" */
	ASSERT_ROW("      1.00        +99950.0%       1000        some.counter",
		   1, 0, 1000.5, 0, "some.counter");
}
END_TEST

START_TEST(test_stddev_rules)
{
	/* 100 * 0.15 / 10 = 1.5 %: not shown (only above 2 %) */
	ASSERT_ROW("     10.00            +0.0       10.00        perf-profile.self.cpu-clock.f",
		   10, 0.15, 10, 0.15, "perf-profile.self.cpu-clock.f");
	/* 2.1 % is shown, truncated to 2; 9.99 % truncated to 9 */
	ASSERT_ROW("     10.00 " PM "  2%      +0.0       10.00 " PM "  9%  perf-profile.self.cpu-clock.f",
		   10, 0.21, 10, 0.999, "perf-profile.self.cpu-clock.f");
	/* unknown (negative) stddev: blanks */
	ASSERT_ROW("      3.00            +1.0        4.00        perf-profile.self.cpu-clock.f",
		   3, -1, 4, -1, "perf-profile.self.cpu-clock.f");
	/* absent on both sides: 0.00 without ± */
	ASSERT_ROW("      0.00            +0.0        0.00        perf-profile.self.cpu-clock.f",
		   0, 0, 0, 0, "perf-profile.self.cpu-clock.f");
	/* over 999 %: the column widens, as Ruby's "%3d" does */
	ASSERT_ROW("      0.01 " PM "1500%      +0.0        0.01        perf-profile.self.cpu-clock.f",
		   0.01, 0.15, 0.01, 0, "perf-profile.self.cpu-clock.f");
}
END_TEST

START_TEST(test_large_values)
{
	/* 1000 <= |avg| <= 1e8: "%10d" of the value truncated toward zero;
	 * 100 * (13580.49 - 12345.9) / 12345.9 = 10.0 % */
	ASSERT_ROW("     12345           +10.0%      13580        k",
		   12345.9, 0, 13580.49, 0, "k");
	/* toward zero for negative values too: -12345.9 -> -12345; the
	 * change is relative to a negative base: 100 * 24691.8 / -12345.9 */
	ASSERT_ROW("    -12345          -200.0%      12345        k",
		   -12345.9, 0, 12345.9, 0, "k");
	/* 1e8 itself is still "%10d"; above it "%10.4g" */
	ASSERT_ROW(" 100000000           +23.5%  1.235e+08        k",
		   100000000.0, 0, 123456789.0, 0, "k");
	/* 999.999 rounds up in "%.2f" to 1000.00, as Ruby prints it */
	ASSERT_ROW("   1000.00            -0.5      999.50        perf-profile.self.cycles-pp.f",
		   999.999, 0, 999.5, 0, "perf-profile.self.cycles-pp.f");
}
END_TEST

START_TEST(test_buffer_contract)
{
	const char *key = "perf-profile.children.cycles-pp.foo";
	char *full = fmt(1.5, 0, 2.5, 0, key);
	size_t n = strlen(full);
	char small[12];
	memset(small, 'x', sizeof small);
	ck_assert_uint_eq(pd_diff_format_lkp_row(small, sizeof small, 1.5, 0, 2.5, 0, key), n);
	ck_assert_uint_eq(strlen(small), sizeof small - 1);
	ck_assert(strncmp(small, full, sizeof small - 1) == 0);
	/* n = 1: only the NUL */
	char one = 'x';
	ck_assert_uint_eq(pd_diff_format_lkp_row(&one, 1, 1.5, 0, 2.5, 0, key), n);
	ck_assert_int_eq(one, '\0');
	/* NULL key: an empty key */
	char *nokey = fmt(1.5, 0, 2.5, 0, NULL);
	ck_assert_uint_eq(strlen(nokey) + strlen(key), n);
	free(nokey);
	free(full);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("diff_format");
	TCase *tc = tcase_create("lkp_row");
	tcase_add_test(tc, test_email_lines);
	tcase_add_test(tc, test_relative_change);
	tcase_add_test(tc, test_stddev_rules);
	tcase_add_test(tc, test_large_values);
	tcase_add_test(tc, test_buffer_contract);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
