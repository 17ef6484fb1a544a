/*
 * pd-skip-probe MODE: a check suite whose tests skip, pass or fail as
 * MODE says, run through pd_test_main(), so that test_skip_status can
 * hold pd_test_main() to its exit statuses (testutil.h): 77 (CTest's
 * "not run") when every test skipped, 0 when some passed and the others
 * skipped, 1 when one failed, skips or not.  MODE is a word of the
 * letters s (skip), p (pass) and f (fail), a test each.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char *mode = "";

START_TEST(test_one)
{
	char c = mode[_i];
	if (c == 's')
		PD_SKIP("as the probe's mode says");
	ck_assert_msg(c == 'p', "fails as the probe's mode says");
}
END_TEST

int main(int argc, char **argv)
{
	if (argc != 2 || !argv[1][0] || strspn(argv[1], "spf") != strlen(argv[1])) {
		fprintf(stderr, "usage: pd-skip-probe MODE (letters s, p, f)\n");
		return 2;
	}
	mode = argv[1];
	Suite *s = suite_create("skip-probe");
	TCase *tc = tcase_create("probe");
	tcase_add_loop_test(tc, test_one, 0, (int)strlen(mode));
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
