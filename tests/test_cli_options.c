/*
 * The command line's option table seen from outside (tools/perfdiff/
 * cli_opttab.c): the shell completion offers exactly the options each
 * command's table lists, and the habits perf users bring along work:
 * --stdio is taken, -g is --order and --threshold in one, perf's -s, -c,
 * -T (and diff's -g) are answered with the option that does that job,
 * and a bare `perfdiff` beside perf.data.old and perf.data compares the
 * two, as a bare `perf diff` does.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATHMAX 4096

/* `cd DIR && perfdiff ARGS`, stdout and stderr together (2>&1 in
 * `redirect`) or stdout alone (""); its exit status in *status. */
static char *run_in(const char *dir, const char *args, const char *redirect, int *status)
{
	char cmd[3 * PATHMAX];
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s %s", dir, PD_CLI_PATH, args, redirect);
	char *out = pd_test_run(cmd, status);
	ck_assert_ptr_nonnull(out);
	return out;
}

START_TEST(test_perf_spellings_answered)
{
	char *dir = pd_test_tmpdir();
	static const struct {
		const char *args, *mention;
	} cases[] = {
		{ "report -s sym x.data", "unknown option '-s', did you mean '--sort'?" },
		{ "diff -s a b", "did you mean '--sort'?" },
		{ "report -c app x.data", "did you mean '--comm'?" },
		{ "script -c app x.data", "did you mean '--comm'?" },
		{ "report -T x.data", "did you mean '--tid'?" },
		{ "diff -g a b", "did you mean '--tree'?" },
		{ "report -g sideways x.data", "-g is caller or callee" },
		{ "report -g", "option '-g' needs a value" },
		{ "diff --new-kalsyms=k a b", "did you mean '--new-kallsyms'?" },
		{ "report --order", "needs a value (caller or callee)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int st;
		char *out = run_in(dir, cases[i].args, "2>&1", &st);
		ck_assert_msg(st == 2, "'%s': exit %d", cases[i].args, st);
		ck_assert_msg(strstr(out, cases[i].mention), "'%s': %s", cases[i].args, out);
		free(out);
	}
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* `report A` and `report B` of the fixture print the same. */
static void assert_same_report(const char *dir, const char *a, const char *b)
{
	char fp[PATHMAX], args[2 * PATHMAX];
	pd_test_data(fp, sizeof fp, "fp.data");
	int sa, sb;
	snprintf(args, sizeof args, "report %s '%s'", a, fp);
	char *oa = run_in(dir, args, "2>/dev/null", &sa);
	snprintf(args, sizeof args, "report %s '%s'", b, fp);
	char *ob = run_in(dir, args, "2>/dev/null", &sb);
	ck_assert_int_eq(sa, 0);
	ck_assert_int_eq(sb, 0);
	ck_assert_msg(strcmp(oa, ob) == 0, "report %s is not report %s", a, b);
	free(oa);
	free(ob);
}

START_TEST(test_stdio_and_call_graph)
{
	char *dir = pd_test_tmpdir();
	assert_same_report(dir, "--stdio", "");
	assert_same_report(dir, "-g callee,1", "--order=callee --threshold=1");
	assert_same_report(dir, "--call-graph=graph,2,callee", "--order=callee --threshold=2");
	assert_same_report(dir, "-g caller", "--order=caller");
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_bare_perfdiff_compares_old_and_new)
{
	char *dir = pd_test_tmpdir(), fp[PATHMAX], sh[3 * PATHMAX];
	pd_test_data(fp, sizeof fp, "fp.data");
	snprintf(sh, sizeof sh, "cp '%s' '%s/perf.data' && cp '%s' '%s/perf.data.old'", fp, dir,
		 fp, dir);
	ck_assert(pd_test_sh_ok(sh));
	int s1, s2, s3;
	char *bare = run_in(dir, "", "2>/dev/null", &s1);
	char *given = run_in(dir, "diff perf.data.old perf.data", "2>/dev/null", &s2);
	char *json = run_in(dir, "diff --format=json", "2>/dev/null", &s3);
	ck_assert_int_eq(s1, 0);
	ck_assert_int_eq(s2, 0);
	ck_assert_int_eq(s3, 0);
	ck_assert_str_eq(bare, given);
	ck_assert_ptr_nonnull(strstr(bare, "perf.data.old"));
	ck_assert_ptr_nonnull(strstr(json, "perf.data.old"));
	free(bare);
	free(given);
	free(json);
	/* with one of them gone, the usage as before */
	snprintf(sh, sizeof sh, "rm '%s/perf.data.old'", dir);
	ck_assert(pd_test_sh_ok(sh));
	char *usage = run_in(dir, "", "2>&1", &s1);
	ck_assert_int_eq(s1, 2);
	ck_assert_ptr_nonnull(strstr(usage, "Usage"));
	free(usage);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* What the completion offers after `perfdiff WORDS` with CUR under the
 * cursor, one word a line, sorted. */
static char *complete(const char *dir, const char *words, const char *cur)
{
	char bash[PATHMAX], sh[4 * PATHMAX];
	pd_test_data(bash, sizeof bash, "../../tools/perfdiff/perfdiff.bash");
	snprintf(sh, sizeof sh,
		 "cd '%s' && bash -c '. \"%s\"; COMP_WORDS=(\"%s\" %s \"%s\"); "
		 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _perfdiff 2>/dev/null; "
		 "printf \"%%s\\n\" \"${COMPREPLY[@]}\"' | sort",
		 dir, bash, PD_CLI_PATH, words, cur);
	int st;
	char *out = pd_test_run(sh, &st);
	ck_assert_ptr_nonnull(out);
	return out;
}

/* The names `perfdiff --list-options CMD` lists that start with `cur`,
 * as the completion words them (a long option with a value ends in
 * '='), one a line, sorted. */
static char *listed(const char *dir, const char *cmd, const char *cur)
{
	char sh[3 * PATHMAX];
	snprintf(sh, sizeof sh,
		 "cd '%s' && '%s' --list-options %s | awk -F'\\t' '"
		 "index($1, \"%s\") == 1 { print $1 ($2 != \"\" && $1 ~ /^--/ ? \"=\" : \"\") }'"
		 " | sort", dir, PD_CLI_PATH, cmd, cur);
	int st;
	char *out = pd_test_run(sh, &st);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(st, 0);
	return out;
}

START_TEST(test_completion_is_the_table)
{
	PD_SKIP_IF(!pd_test_sh_ok("command -v bash >/dev/null") ? "no bash" : NULL);
	char *dir = pd_test_tmpdir();
	static const char *const cmds[] = { "dump", "script", "report", "diff", "explain", "tui" };
	for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
		char *got = complete(dir, cmds[c], "-"), *want = listed(dir, cmds[c], "-");
		ck_assert_msg(strcmp(got, want) == 0, "%s: completion\n%s\ntable\n%s", cmds[c],
			      got, want);
		ck_assert_uint_gt(strlen(got), 40);
		free(got);
		free(want);
	}
	/* a word's values are the table's words */
	char *got = complete(dir, "report --order", "");
	ck_assert_str_eq(got, "callee\ncaller\n");
	free(got);
	/* before a command: a comparison's options and the top level's */
	got = complete(dir, "", "--v");
	ck_assert_str_eq(got, "--verbose\n--version\n--vmlinux=\n");
	free(got);
	/* the commands: those main.c runs, and help (an empty directory: no
	 * file names among them) */
	got = complete(dir, "", "");
	ck_assert_str_eq(got, "diff\ndump\nexplain\nhelp\nrecord\nreport\nscript\ntui\n");
	free(got);
	int st;
	char *usage = run_in(dir, "", "2>&1", &st);
	ck_assert_ptr_nonnull(strstr(usage, "Commands: dump, script, report, diff, explain, record, tui, help"));
	free(usage);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *cli_options_suite(void)
{
	Suite *s = suite_create("cli_options");
	TCase *tc = tcase_create("cli_options");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_perf_spellings_answered);
	tcase_add_test(tc, test_stdio_and_call_graph);
	tcase_add_test(tc, test_bare_perfdiff_compares_old_and_new);
	tcase_add_test(tc, test_completion_is_the_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(cli_options_suite());
}
