/*
 * Progress: the reader's callback (pd_reader_options.progress, version 3)
 * and the CLI's progress line.
 *
 * The callback's byte counts never go backwards and end at the input's
 * size: a file grown to 8 MB by tests/tools/pd-repeat (a call per MiB, in
 * file and in timestamp order), a `--threads` directory (the sum of its
 * files), and a pipe (total unknown, the last count the bytes written).
 * A caller built against version 2 of the options is never called back.
 * The CLI draws its line on a terminal (`script` gives it one) with
 * --progress, for dump, report and both sides of a diff, and writes
 * nothing when standard error is not a terminal, --progress or not, nor
 * on a terminal with --no-progress.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *g_dir;
static char g_big[PD_TEST_PATHMAX];

static void setup(void)
{
	g_dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(g_dir);
	char in[PD_TEST_PATHMAX], cmd[3 * PD_TEST_PATHMAX];
	snprintf(g_big, sizeof g_big, "%s/big.data", g_dir);
	pd_test_data(in, sizeof in, "sys.data");
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' 8", PD_REPEAT_PATH, in, g_big);
	ck_assert_msg(pd_test_sh_ok(cmd), "%s failed", cmd);
}

static void teardown(void)
{
	pd_test_rmrf(g_dir);
	free(g_dir);
}

typedef struct calls {
	uint64_t bytes[4096], total[4096];
	size_t n;
	const pd_reader *r;
} calls;

static void note(const pd_reader *r, uint64_t bytes, uint64_t total, void *payload)
{
	calls *c = payload;
	ck_assert_ptr_eq(r, c->r ? c->r : r);
	ck_assert_uint_lt(c->n, 4096);
	c->bytes[c->n] = bytes;
	c->total[c->n] = total;
	c->n++;
}

static uint64_t size_of(const char *path)
{
	struct stat sb;
	ck_assert_int_eq(stat(path, &sb), 0);
	return (uint64_t)sb.st_size;
}

/* Read all of `r`; the calls must be monotonic and end at `end`. */
static void read_all(pd_reader *r, calls *c, uint64_t total, uint64_t end)
{
	c->r = r;
	const pd_record *rec;
	pd_error err;
	int rc;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0)
		;
	ck_assert_msg(rc == PD_ITEROVER, "%s", err.message);
	ck_assert_uint_gt(c->n, 0);
	for (size_t i = 0; i < c->n; i++) {
		ck_assert_uint_eq(c->total[i], total);
		if (i)
			ck_assert_uint_ge(c->bytes[i], c->bytes[i - 1]);
		if (total)
			ck_assert_uint_le(c->bytes[i], total);
	}
	ck_assert_uint_eq(c->bytes[c->n - 1], end);
	/* no call after the end */
	size_t n = c->n;
	ck_assert_int_eq(pd_reader_next(r, &rec, &err), PD_ITEROVER);
	ck_assert_uint_eq(c->n, n);
}

static void check_file(unsigned flags)
{
	static calls c;
	memset(&c, 0, sizeof c);
	pd_reader_options o = PD_READER_OPTIONS_INIT;
	o.flags = flags;
	o.progress = note;
	o.progress_payload = &c;
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, g_big, &o, &err) == 0, "%s", err.message);
	uint64_t size = size_of(g_big);
	read_all(r, &c, size, size);
	/* a call per MiB of an 8 MiB data section, and the last */
	ck_assert_uint_ge(c.n, 8);
	ck_assert_uint_lt(c.n, 20);
	pd_reader_free(r);
}

START_TEST(file_order)
{
	check_file(PD_READER_FILE_ORDER);
}
END_TEST

START_TEST(time_order)
{
	check_file(0);
}
END_TEST

START_TEST(directory)
{
	static calls c;
	memset(&c, 0, sizeof c);
	char dir[PD_TEST_PATHMAX], f[PD_TEST_PATHMAX + 16];
	pd_test_data(dir, sizeof dir, "threads.data");
	uint64_t total = 0;
	const char *names[] = { "data", "data.0", "data.1" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(f, sizeof f, "%s/%s", dir, names[i]);
		total += size_of(f);
	}
	pd_reader_options o = PD_READER_OPTIONS_INIT;
	o.progress = note;
	o.progress_payload = &c;
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, dir, &o, &err) == 0, "%s", err.message);
	read_all(r, &c, total, total);
	pd_reader_free(r);
}
END_TEST

START_TEST(pipe_unknown_total)
{
	static calls c;
	memset(&c, 0, sizeof c);
	char path[PD_TEST_PATHMAX];
	size_t len;
	uint8_t *bytes = pd_test_read_file(pd_test_data(path, sizeof path, "pipe.data"), &len);
	ck_assert_ptr_nonnull(bytes);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		size_t off = 0;
		while (off < len) {
			ssize_t w = write(fds[1], bytes + off, len - off);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	pd_reader_options o = PD_READER_OPTIONS_INIT;
	o.progress = note;
	o.progress_payload = &c;
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open_fd(&r, fds[0], "<pipe>", &o, &err) == 0, "%s", err.message);
	read_all(r, &c, 0, len);
	pd_reader_free(r);
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	free(bytes);
}
END_TEST

/* Version 2 ended at max_branches: what follows is not the caller's. */
START_TEST(version2_caller)
{
	static calls c;
	memset(&c, 0, sizeof c);
	pd_reader_options o = PD_READER_OPTIONS_INIT;
	o.version = 2;
	o.progress = note;
	o.progress_payload = &c;
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, g_big, &o, &err) == 0, "%s", err.message);
	const pd_record *rec;
	while (pd_reader_next(r, &rec, &err) == 0)
		;
	ck_assert_uint_eq(c.n, 0);
	pd_reader_free(r);
}
END_TEST

/* ---- the CLI ---- */

static bool have_script(void)
{
	return pd_test_sh_ok("script --version >/dev/null 2>&1");
}

/* What `perfdiff ARGS` writes to standard error; on a terminal when `tty`
 * (standard output goes to /dev/null either way). */
static char *stderr_of(const char *args, bool tty)
{
	char cmd[4 * PD_TEST_PATHMAX];
	if (tty)
		snprintf(cmd, sizeof cmd,
			 "script -q -e -c \"'%s' %s >/dev/null\" /dev/null </dev/null", PD_CLI_PATH,
			 args);
	else
		snprintf(cmd, sizeof cmd, "'%s' %s 2>&1 >/dev/null", PD_CLI_PATH, args);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	return out;
}

START_TEST(cli_line_on_terminal)
{
	if (!have_script()) {
		fprintf(stderr, "SKIP: no script(1) to give the CLI a terminal\n");
		return;
	}
	char args[2 * PD_TEST_PATHMAX + 64];
	snprintf(args, sizeof args, "dump --stats --no-symbols --progress '%s'", g_big);
	char *out = stderr_of(args, true);
	ck_assert_msg(strstr(out, "\rperfdiff: reading big.data ") &&
			      strstr(out, "% of 8.") && strstr(out, "M samples/s"),
		      "dump: %s", out);
	free(out);

	/* with symbols dump reads twice: the first pass is drawn at once */
	snprintf(args, sizeof args, "dump --stats --progress '%s'", g_big);
	out = stderr_of(args, true);
	ck_assert_msg(strstr(out, "\rperfdiff: reading naming big.data "), "dump: %s", out);
	free(out);

	snprintf(args, sizeof args, "report --progress '%s'", g_big);
	out = stderr_of(args, true);
	ck_assert_msg(strstr(out, "\rperfdiff: reading big.data "), "report: %s", out);
	free(out);

	snprintf(args, sizeof args, "--progress '%s' '%s'", g_big, g_big);
	out = stderr_of(args, true);
	ck_assert_msg(strstr(out, "base big.data ") || strstr(out, "new big.data "), "diff: %s",
		      out);
	free(out);

	snprintf(args, sizeof args, "dump --stats --no-symbols --no-progress '%s'", g_big);
	out = stderr_of(args, true);
	ck_assert_msg(!strstr(out, "perfdiff: reading"), "--no-progress: %s", out);
	free(out);
}
END_TEST

START_TEST(cli_nothing_without_terminal)
{
	char args[2 * PD_TEST_PATHMAX + 64];
	const char *forms[] = { "dump --stats --no-symbols --progress '%s'",
				"dump --stats --no-symbols '%s'", "report --progress '%s'" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(args, sizeof args, forms[i], g_big);
		char *out = stderr_of(args, false);
		ck_assert_msg(!strstr(out, "perfdiff: reading") && !strchr(out, '\r'), "%s: %s",
			      args, out);
		free(out);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("progress");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, file_order);
	tcase_add_test(tc, time_order);
	tcase_add_test(tc, directory);
	tcase_add_test(tc, pipe_unknown_total);
	tcase_add_test(tc, version2_caller);
	tcase_add_test(tc, cli_line_on_terminal);
	tcase_add_test(tc, cli_nothing_without_terminal);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
