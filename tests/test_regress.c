/*
 * Inputs that once broke the reader or the stages after it (found by the
 * fuzzers in fuzz/), kept under tests/data/regress/.  `file-*` is a whole
 * file; `pipe-*` is what follows a pipe-mode header, read through the
 * stream path as the pipe harness does; `session-*` is a whole file read
 * into a profile and diffed with itself, as the session harness does.
 * Each must end in a result or an error with a message; under the
 * sanitizer build a leak, a bad access or undefined behaviour fails the
 * run.
 *
 * Inputs found by hand (issue 26) are made at test time instead: pprof
 * files of one field repeated a hundred million times (tests/tools/
 * pd-hostile, 200 to 250 KB gzipped, which drove `report` and `dump` to
 * 2.3 GB), a FIFO or /dev/zero as data.0 of a `perf record --threads`
 * directory, a `data` link to itself, and devices named as the input.
 * Each, through the command line, must end within 10 s under 1 GiB of
 * peak RSS (wait4()'s, as test_window measures) with exactly one line on
 * stderr that names the file and says what is wrong; pipes, named or on
 * standard input, must still read as the same file does.
 */
#include "testutil.h"

#include "perfdiff/diff.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char **list_regress(size_t *n)
{
	char dir[4096];
	pd_test_data(dir, sizeof dir, "regress");
	DIR *d = opendir(dir);
	char **names = NULL;
	*n = 0;
	if (!d)
		return NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "file-", 5) && strncmp(de->d_name, "pipe-", 5) &&
		    strncmp(de->d_name, "session-", 8))
			continue;
		names = realloc(names, (*n + 1) * sizeof *names);
		names[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	return names;
}

/* A whole file folded into a profile, then diffed with itself: no
 * relation, nothing significant. */
static void check_session(const char *name, const char *path)
{
	pd_profile *p = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(pd_profile_new(&p, NULL, &err), 0);
	int rc = pd_profile_add_file(p, path, &err);
	ck_assert_msg(rc == 0 || err.message[0], "%s: error %d without a message", name, rc);
	pd_diff *d = NULL;
	if (pd_profile_run_count(p) && pd_profile_default_event(p) >= 0 &&
	    pd_diff_new(&d, p, p, NULL, &err) == 0) {
		ck_assert_uint_eq(pd_diff_relation_count(d), 0);
		for (size_t i = 0; i < pd_diff_row_count(d); i++)
			ck_assert(!pd_diff_row_at(d, i)->significant);
	}
	fprintf(stderr, "%s: rc %d, %zu runs, %zu diff rows\n", name, rc,
		pd_profile_run_count(p), d ? pd_diff_row_count(d) : 0);
	pd_diff_free(d);
	pd_profile_free(p);
}

static void check_one(const char *name)
{
	char path[4096], rel[1024];
	snprintf(rel, sizeof rel, "regress/%s", name);
	pd_test_data(path, sizeof path, rel);
	if (strncmp(name, "session-", 8) == 0) {
		check_session(name, path);
		return;
	}
	size_t len;
	uint8_t *bytes = pd_test_read_file(path, &len);
	ck_assert_msg(bytes != NULL, "cannot read %s", path);
	pd_test_readout out;
	if (strncmp(name, "pipe-", 5) == 0) {
		static const uint8_t hdr[16] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16};
		uint8_t *full = malloc(len + 16);
		memcpy(full, hdr, 16);
		memcpy(full + 16, bytes, len);
		pd_test_read_buffer(full, len + 16, PD_READER_NO_MMAP, &out);
		free(full);
	} else {
		pd_test_read_buffer(bytes, len, 0, &out);
	}
	free(bytes);
	if (out.rc != PD_ITEROVER)
		ck_assert_msg(out.err.message[0] != '\0', "%s: error %d without a message",
			      name, out.rc);
	fprintf(stderr, "%s: rc %d, %llu samples, %zu warnings%s%s\n", name, out.rc,
		(unsigned long long)out.samples, out.warnings,
		out.rc != PD_ITEROVER ? ": " : "", out.rc != PD_ITEROVER ? out.err.message : "");
}

START_TEST(every_regression_input)
{
	size_t n;
	char **names = list_regress(&n);
	ck_assert_msg(n > 0, "no inputs in tests/data/regress");
	for (size_t i = 0; i < n; i++) {
		check_one(names[i]);
		free(names[i]);
	}
	free(names);
}
END_TEST

/* ------------------------------------------------------------ by hand */

#define LIMIT_S 10
#define LIMIT_KB (1L << 20)

static char *g_dir;

/* What one run of the command line did. */
typedef struct cli_run {
	int status;               /* wait status */
	double secs;
	long peak_kb;             /* ru_maxrss */
	char *out, *err;          /* stdout, stderr (owned) */
} cli_run;

/* A child that writes `len` bytes to `path` (a FIFO: its open waits for
 * the reader) or, without a path, to `fd`. */
static pid_t writer(const char *path, int fd, const void *data, size_t len)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		if (path)
			fd = open(path, O_WRONLY);
		ssize_t put = fd < 0 ? -1 : write(fd, data, len);
		_exit(put == (ssize_t)len ? 0 : 1);
	}
	return pid;
}

static char *slurp(const char *path)
{
	size_t n = 0;
	uint8_t *b = pd_test_read_file(path, &n);
	char *t = calloc(1, n + 1);
	if (b)
		memcpy(t, b, n);
	free(b);
	return t;
}

/* `perfdiff ARGV...` (NULL-terminated), killed by SIGALRM after LIMIT_S
 * seconds; standard input the `len` bytes at `in` through a pipe, when
 * given. */
static void run_cli(const char *const *argv, const void *in, size_t len, cli_run *r)
{
	char out[PD_TEST_PATHMAX], err[PD_TEST_PATHMAX];
	snprintf(out, sizeof out, "%s/stdout", g_dir);
	snprintf(err, sizeof err, "%s/stderr", g_dir);
	int p[2] = { -1, -1 };
	ck_assert_int_eq(pipe(p), 0);
	pid_t w = in ? writer(NULL, p[1], in, len) : -1;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600), 1);
		dup2(open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600), 2);
		dup2(in ? p[0] : open("/dev/null", O_RDONLY), 0);
		close(p[0]);
		close(p[1]);
		alarm(LIMIT_S); /* kept across exec: a hang ends here */
		execv(PD_CLI_PATH, (char *const *)argv);
		_exit(127);
	}
	close(p[0]);
	close(p[1]);
	struct rusage ru;
	ck_assert_int_eq(wait4(pid, &r->status, 0, &ru), pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (w > 0)
		waitpid(w, NULL, 0);
	r->secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	r->peak_kb = ru.ru_maxrss;
	r->out = slurp(out);
	r->err = slurp(err);
}

static void run_free(cli_run *r)
{
	free(r->out);
	free(r->err);
}

/* `perfdiff CMD... PATH` ends in time, under the memory limit, with an
 * error (status 2) told in one line that names `shown` (the file at
 * fault: PATH or one inside it) and holds `what`. */
static void expect_one_line(const char *cmd, const char *path, const char *shown,
			    const char *what, const char *what2)
{
	const char *argv[6] = { "perfdiff" };
	size_t n = 1;
	char buf[128];
	snprintf(buf, sizeof buf, "%s", cmd);
	for (char *tok = strtok(buf, " "); tok && n < 4; tok = strtok(NULL, " "))
		argv[n++] = tok;
	argv[n++] = path;
	argv[n] = NULL;
	cli_run r;
	run_cli(argv, NULL, 0, &r);
	fprintf(stderr, "%s %s: %.2f s, peak %ld KB: %s", cmd, path, r.secs, r.peak_kb, r.err);
	ck_assert_msg(!WIFSIGNALED(r.status), "%s %s: killed by signal %d after %.1f s", cmd,
		      path, WTERMSIG(r.status), r.secs);
	ck_assert_msg(r.secs < LIMIT_S, "%s %s: %.1f s", cmd, path, r.secs);
	ck_assert_msg(r.peak_kb < LIMIT_KB, "%s %s: peak %ld KB", cmd, path, r.peak_kb);
	ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "%s %s: status %d",
		      cmd, path, r.status);
	char *nl = strchr(r.err, '\n');
	ck_assert_msg(nl && nl[1] == '\0', "%s %s: not one line:\n%s", cmd, path, r.err);
	ck_assert_msg(strncmp(r.err, "perfdiff: ", 10) == 0 && strstr(r.err, shown) &&
			      strstr(r.err, what) && (!what2 || strstr(r.err, what2)),
		      "%s %s: '%s' should name %s and say '%s'", cmd, path, r.err, shown, what);
	run_free(&r);
}

static void both_commands(const char *path, const char *shown, const char *what,
			  const char *what2)
{
	expect_one_line("report", path, shown, what, what2);
	expect_one_line("dump --stats", path, shown, what, what2);
}

static void by_hand_setup(void)
{
	g_dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(g_dir);
}

static void by_hand_teardown(void)
{
	pd_test_rmrf(g_dir);
	free(g_dir);
}

#if PD_TEST_HAVE_PPROF
/* Each shape at the scale found: 200 to 254 MB of protobuf, at most the
 * 256 MiB that may be inflated, so that only the memory they would take
 * decoded can stop them; the error gives where, in the inflated bytes. */
START_TEST(hostile_pprof)
{
	/* fields Profile has not are not pprof to the detection (its first
	 * bytes are no Profile field), which says so before any decoding */
	static const struct {
		const char *shape, *count, *what, *what2;
	} shapes[] = {
		{ "strings", "100000000", "max_pprof_memory", "of the gunzipped protobuf" },
		{ "samples", "127000000", "max_pprof_memory", "of the gunzipped protobuf" },
		{ "unknown", "85000000", "neither perf.data nor pprof", NULL },
		{ "locids", "127000000", "max_pprof_memory", "of the gunzipped protobuf" },
		{ "period", "60000000", "max_pprof_memory", "of the gunzipped protobuf" },
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		char path[PD_TEST_PATHMAX], cmd[3 * PD_TEST_PATHMAX];
		snprintf(path, sizeof path, "%s/%s.pb.gz", g_dir, shapes[i].shape);
		snprintf(cmd, sizeof cmd, "'%s' %s %s '%s'", PD_HOSTILE_PATH, shapes[i].shape,
			 shapes[i].count, path);
		ck_assert_msg(pd_test_sh_ok(cmd), "%s failed", cmd);
		both_commands(path, path, shapes[i].what, shapes[i].what2);
		unlink(path);
	}
}
END_TEST
#endif

/* A `perf record --threads` directory: the fixture's data and data.1. */
static void threads_dir(const char *dir)
{
	char src[PD_TEST_PATHMAX], cmd[4 * PD_TEST_PATHMAX + 64];
	pd_test_data(src, sizeof src, "threads.data");
	snprintf(cmd, sizeof cmd, "mkdir '%s' && cp '%s/data' '%s/data.1' '%s/'", dir, src, src,
		 dir);
	ck_assert_msg(pd_test_sh_ok(cmd), "%s failed", cmd);
}

START_TEST(hostile_paths)
{
	char dir[PD_TEST_PATHMAX], at[PD_TEST_PATHMAX + 16];
	/* data.0 a FIFO nobody writes: the open blocked forever */
	snprintf(dir, sizeof dir, "%s/fifo", g_dir);
	threads_dir(dir);
	snprintf(at, sizeof at, "%s/data.0", dir);
	ck_assert_int_eq(mkfifo(at, 0600), 0);
	both_commands(dir, at, "a FIFO, not a regular file", NULL);
	/* data.0 endless: the trailing garbage was UINT64_MAX bytes */
	snprintf(dir, sizeof dir, "%s/zero", g_dir);
	threads_dir(dir);
	snprintf(at, sizeof at, "%s/data.0", dir);
	ck_assert_int_eq(symlink("/dev/zero", at), 0);
	both_commands(dir, at, "a character device, not a regular file", NULL);
	/* `data` a link to itself: it was "a directory without a data file" */
	snprintf(dir, sizeof dir, "%s/loop", g_dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(at, sizeof at, "%s/data", dir);
	ck_assert_int_eq(symlink("data", at), 0);
	both_commands(dir, at, "symbolic link loop", NULL);
	/* devices named as the input: read to 256 MiB before the magic */
	both_commands("/dev/zero", "/dev/zero", "a character device is not a perf.data file", NULL);
	both_commands("/dev/urandom", "/dev/urandom", "a character device is not", NULL);
}
END_TEST

/* stdout of `dump --stats` without its first line (the file's name). */
static const char *after_name(const char *out)
{
	const char *nl = strchr(out, '\n');
	return nl ? nl + 1 : out;
}

/* Pipes still read: pipe.data through a named FIFO (its bytes were eaten
 * by the look for pprof) and on standard input give the file's stats;
 * trailing garbage on a pipe is not counted to UINT64_MAX. */
START_TEST(pipes_still_read)
{
	char data[PD_TEST_PATHMAX], fifo[PD_TEST_PATHMAX];
	pd_test_data(data, sizeof data, "pipe.data");
	size_t len;
	uint8_t *bytes = pd_test_read_file(data, &len);
	ck_assert_ptr_nonnull(bytes);
	const char *file_argv[] = { "perfdiff", "dump", "--stats", data, NULL };
	cli_run want, got;
	run_cli(file_argv, NULL, 0, &want);
	ck_assert_msg(WIFEXITED(want.status) && WEXITSTATUS(want.status) == 0, "%s", want.err);

	snprintf(fifo, sizeof fifo, "%s/pipe.fifo", g_dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pid_t w = writer(fifo, -1, bytes, len);
	const char *fifo_argv[] = { "perfdiff", "dump", "--stats", fifo, NULL };
	run_cli(fifo_argv, NULL, 0, &got);
	int ws;
	waitpid(w, &ws, 0);
	ck_assert_msg(WIFEXITED(got.status) && WEXITSTATUS(got.status) == 0, "fifo: %s", got.err);
	ck_assert_str_eq(after_name(got.out), after_name(want.out));
	run_free(&got);

	const char *stdin_argv[] = { "perfdiff", "dump", "--stats", "-", NULL };
	run_cli(stdin_argv, bytes, len, &got);
	ck_assert_msg(WIFEXITED(got.status) && WEXITSTATUS(got.status) == 0, "stdin: %s", got.err);
	ck_assert_str_eq(after_name(got.out), after_name(want.out));
	run_free(&got);

	/* 16 zero bytes after the last record: a header of size 0 */
	uint8_t *tail = calloc(1, len + 16);
	memcpy(tail, bytes, len);
	run_cli(stdin_argv, tail, len + 16, &got);
	char where[64];
	snprintf(where, sizeof where, "offset %zu: trailing garbage", len);
	ck_assert_msg(strstr(got.err, where) && !strstr(got.err, "18446744"), "stdin: %s",
		      got.err);
	run_free(&got);
	free(tail);
	run_free(&want);
	free(bytes);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("regress");
	TCase *tc = tcase_create("regress");
	tcase_add_test(tc, every_regression_input);
	suite_add_tcase(s, tc);
	TCase *hand = tcase_create("by_hand");
	tcase_add_checked_fixture(hand, by_hand_setup, by_hand_teardown);
	tcase_set_timeout(hand, 600);
#if PD_TEST_HAVE_PPROF
	tcase_add_test(hand, hostile_pprof);
#endif
	tcase_add_test(hand, hostile_paths);
	tcase_add_test(hand, pipes_still_read);
	suite_add_tcase(s, hand);
	return pd_test_main(s);
}
