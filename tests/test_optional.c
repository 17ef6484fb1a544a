/*
 * The optional parts of the library (PERFDIFF_PPROF, PERFDIFF_BPF) as a
 * program and a user see them, whichever way this build went.  With
 * pprof, an export of fp.data reads back as a run, through the library
 * and the command line.  Without it, every call that would encode or
 * decode pprof fails with PD_EUNSUPPORTED and a message naming the input
 * and the build option, nothing is added to the profile, a pprof input is
 * still told from perf.data (refused, not misread as a broken recording),
 * and `perfdiff report --format=pprof` and a pprof input exit 2 with the
 * same words and write nothing.  The BPF part: the symbolizer's lines
 * are there exactly when libbpf was built in.  `perfdiff tui` without
 * ncurses (PERFDIFF_TUI) exits 2 saying so; with it, and no terminal, it
 * prints what `perfdiff report` prints.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbols/bpf_lines.h"

#define WITHOUT "this perfdiff was built without pprof support (PERFDIFF_PPROF=OFF)"

static pd_profile *fp_profile(void)
{
	char path[PD_TEST_PATHMAX];
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, NULL, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(p, pd_test_data(path, sizeof path, "fp.data"), &err),
			 0);
	return p;
}

/* A Profile message of two strings ("", "cpu") and nothing else: pprof
 * to pd_input_detect() by its fields, gzip or not. */
static const uint8_t tiny_pprof[] = { 0x32, 0x00, 0x32, 0x03, 'c', 'p', 'u' };

/* `err` is the refusal of a build without pprof, about `name`. */
static void refused(int rc, const pd_error *err, const char *name)
{
	char want[PD_ERROR_MESSAGE_MAX];
	snprintf(want, sizeof want, "%s: %s", name, WITHOUT);
	ck_assert_int_eq(rc, PD_EUNSUPPORTED);
	ck_assert_int_eq(err->code, PD_EUNSUPPORTED);
	ck_assert_str_eq(err->message, want);
}

START_TEST(test_pprof_calls)
{
	char *dir = pd_test_tmpdir(), path[PD_TEST_PATHMAX];
	snprintf(path, sizeof path, "%s/tiny.pb", dir);
	ck_assert(pd_test_write_file(path, tiny_pprof, sizeof tiny_pprof));
	pd_input_kind kind;
	pd_error err;
	ck_assert_int_eq(pd_input_detect(path, &kind, &err), 0);
	ck_assert_int_eq(kind, PD_INPUT_PPROF);
	pd_profile *p = fp_profile();
	void *buf = NULL;
	size_t len = 0;
	int rc = pd_profile_write_pprof_buffer(p, &buf, &len, NULL, &err);
	pd_pprof *pp = NULL;
	if (!PD_TEST_HAVE_PPROF) {
		refused(rc, &err, "pprof");
		refused(pd_profile_add_pprof_buffer(p, tiny_pprof, sizeof tiny_pprof, "mem.pb", &err),
			&err, "mem.pb");
		refused(pd_profile_add_input(p, path, &err), &err, path);
		refused(pd_pprof_open(&pp, path, &err), &err, path);
		ck_assert_ptr_null(pp);
		ck_assert_uint_eq(pd_profile_run_count(p), 1);
	} else {
		ck_assert_msg(rc == 0, "%s", err.message);
		ck_assert_msg(pd_profile_add_pprof_buffer(p, buf, len, "fp.pb.gz", &err) == 0, "%s",
			      err.message);
		ck_assert_int_eq(pd_pprof_open_buffer(&pp, buf, len, "fp.pb.gz", &err), 0);
		ck_assert_uint_gt(pd_pprof_count(pp, PD_PPROF_SAMPLES), 0);
		ck_assert_uint_eq(pd_profile_run_count(p), 2);
		ck_assert_uint_eq(pd_profile_total(p, 0, 1), pd_profile_total(p, 0, 0));
	}
	pd_pprof_free(pp);
	free(buf);
	pd_profile_free(p);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* The command line, stderr with stdout: exit status and what it said. */
static char *cli(int *status, const char *fmt, const char *a, const char *b)
{
	char args[3 * PD_TEST_PATHMAX], cmd[4 * PD_TEST_PATHMAX];
	snprintf(args, sizeof args, fmt, a, b);
	snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", PD_CLI_PATH, args);
	char *out = pd_test_run(cmd, status);
	ck_assert_ptr_nonnull(out);
	return out;
}

START_TEST(test_pprof_cli)
{
	char *dir = pd_test_tmpdir(), data[PD_TEST_PATHMAX], out[PD_TEST_PATHMAX];
	pd_test_data(data, sizeof data, "fp.data");
	snprintf(out, sizeof out, "%s/fp.pb.gz", dir);
	int st;
	char *said = cli(&st, "report -q --format=pprof '%s' -o '%s'", data, out);
	struct stat sb;
	bool written = stat(out, &sb) == 0;
	if (!PD_TEST_HAVE_PPROF) {
		ck_assert_msg(st == 2 && strstr(said, WITHOUT) && !written, "status %d: %s", st,
			      said);
		/* a pprof input: refused with its name, nothing printed */
		snprintf(out, sizeof out, "%s/tiny.pb", dir);
		ck_assert(pd_test_write_file(out, tiny_pprof, sizeof tiny_pprof));
		free(said);
		said = cli(&st, "report -q '%s'%s", out, "");
		char want[2 * PD_TEST_PATHMAX];
		snprintf(want, sizeof want, "perfdiff: %s: %s\n", out, WITHOUT);
		ck_assert_msg(st == 2 && strcmp(said, want) == 0, "status %d: %s", st, said);
	} else {
		ck_assert_msg(st == 0 && written && !strstr(said, "PERFDIFF_PPROF"), "status %d: %s",
			      st, said);
		free(said);
		said = cli(&st, "report -q '%s'%s", out, "");
		ck_assert_msg(st == 0 && strstr(said, "%"), "status %d: %s", st, said);
	}
	free(said);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

START_TEST(test_tui_cli)
{
	char data[PD_TEST_PATHMAX];
	pd_test_data(data, sizeof data, "fp.data");
	int st, rst;
	char *said = cli(&st, "tui -q '%s'%s", data, "");
	if (!PD_TEST_HAVE_TUI) {
		ck_assert_msg(st == 2 && strstr(said, "built without it (PERFDIFF_TUI"),
			      "status %d: %s", st, said);
	} else {
		char *report = cli(&rst, "report -q '%s'%s", data, "");
		ck_assert_int_eq(st, rst);
		ck_assert_str_eq(said, report);
		free(report);
	}
	free(said);
}
END_TEST

START_TEST(test_bpf_lines_built)
{
	ck_assert_int_eq(pd_bpf_lines_supported(), PD_TEST_HAVE_BPF);
}
END_TEST

static Suite *optional_suite(void)
{
	Suite *s = suite_create("optional");
	TCase *tc = tcase_create("optional");
	tcase_add_test(tc, test_pprof_calls);
	tcase_add_test(tc, test_pprof_cli);
	tcase_add_test(tc, test_bpf_lines_built);
	tcase_add_test(tc, test_tui_cli);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(optional_suite());
}
