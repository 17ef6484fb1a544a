/*
 * Outputs that cannot hurt: every command that takes -o FILE (dump,
 * script, report in every format, diff in every format), run as the user
 * runs it on recordings made here with `perf record -N -e cpu-clock`.
 *
 *   - -o naming an input (by its name, a hard link, a symlink, or the
 *     file on standard input) is refused before anything is read: status
 *     2, one line naming the path, the input byte for byte as it was, no
 *     file made;
 *   - an error after the output was opened (an input that is missing, or
 *     corrupt halfway so that part of the output was written) leaves the
 *     old -o file byte for byte and mode for mode, no temporary file
 *     behind, and a line saying it was not written; so does a write that
 *     fails (a file past `ulimit -f`, as a full disk); without an error the
 *     file is replaced by exactly what standard output would get, its
 *     mode kept; a symlink is followed, /dev/null stays a device;
 *   - SIGINT (and SIGTERM, SIGHUP) while the command writes: its input is
 *     a pipe fed the whole recording and left open, so the command is
 *     stopped where it stands, for script and dump with part of the
 *     output already in the temporary file; the command dies of the
 *     signal, the old file is intact, the temporary file is gone and one
 *     line says so; a SIGINT ignored from the start stays ignored;
 *   - report --format=pprof -o DIR/ gives every run its own file,
 *     N-NAME.pb.gz, also for runs of one file name (lkp/r1/perf.data,
 *     lkp/r2/perf.data), each holding that run (its CSV report is the
 *     run's); all or none are written;
 *   - a closed standard error does not kill the command between its
 *     temporary file and the rename (SIGPIPE).
 * Skipped, with the reason, without perf or a C compiler.
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PATHMAX PD_TEST_PATHMAX
#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"

/* Every command and format that writes -o FILE.  `diff` takes two
 * inputs; `streams`: output is written while the input is read, so a
 * signal can come with part of it in the temporary file. */
typedef struct form {
	const char *args;
	bool diff;
	bool streams;
} form;

static const form forms[] = {
	{ "dump", false, true },
	{ "dump --format=json", false, true },
	{ "dump --stats", false, false },
	{ "script", false, true },
	{ "script --format=json", false, true },
	{ "report", false, false },
	{ "report --format=json", false, false },
	{ "report --format=csv", false, false },
	{ "report --format=folded", false, false },
	{ "report --format=lkp", false, false },
	{ "report --format=html", false, false },
#if PD_TEST_HAVE_PPROF /* else refused: test_optional */
	{ "report --format=pprof", false, false },
#endif
	{ "diff", true, false },
	{ "diff --format=json", true, false },
	{ "diff --format=csv", true, false },
	{ "diff --format=folded", true, false },
	{ "diff --format=lkp", true, false },
	{ "diff --format=html", true, false },
	{ "diff --format=svg", true, false },
};

#define NFORMS (sizeof forms / sizeof forms[0])

/* snprintf() into `buf` of `cap` bytes; false when it did not fit. */
__attribute__((format(printf, 3, 4)))
static bool fmt(char *buf, size_t cap, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(buf, cap, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < cap;
}

/* fmt() in a test: a path that does not fit fails it. */
#define FMT(buf, cap, ...) ck_assert_msg(fmt(buf, cap, __VA_ARGS__), "too long: %s", buf)

/* The recordings, made once for the suite. */
static struct lab {
	const char *skip;
	char *dir;
	char file[PATHMAX];     /* in/file.data: file mode */
	char file2[PATHMAX];    /* in/file2.data: another run, diff's other side */
	char pipe[PATHMAX];     /* in/pipe.data: pipe mode, fed through a pipe */
	char corrupt[PATHMAX];  /* in/corrupt.data: pipe.data with a SAMPLE of size 0 halfway */
	char in[PATHMAX];       /* in/ */
	char log[PATHMAX];      /* log/: the commands' standard error */
} L;

/* pipe.data with the size of the first SAMPLE record past its middle set
 * to 0: read up to there (output written), then a corrupt record. */
static bool make_corrupt(const char *from, const char *to)
{
	size_t n;
	uint8_t *d = pd_test_read_file(from, &n);
	bool done = false;
	for (size_t off = 16; d && off + 8 <= n && !done;) {
		uint32_t type;
		uint16_t size;
		memcpy(&type, d + off, 4);
		memcpy(&size, d + off + 6, 2);
		if (size == 0)
			break;
		if (off > n / 2 && type == 9 /* PERF_RECORD_SAMPLE */) {
			memset(d + off + 6, 0, 2);
			done = true;
		}
		off += size;
	}
	done = done && pd_test_write_file(to, d, n);
	free(d);
	return done;
}

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(true, &L.dir);
	if (L.skip)
		return;
	char bin[PATHMAX], w[PATHMAX + 16], cmd[4 * PATHMAX];
	const char *in = L.in;
	bool ok = true;
	ok &= fmt(bin, sizeof bin, "%s/phases", L.dir);
	ok &= fmt(L.in, sizeof L.in, "%s/in", L.dir);
	ok &= fmt(L.log, sizeof L.log, "%s/log", L.dir);
	if (!ok) {
		L.skip = "the temporary directory's name is too long";
		return;
	}
	pd_test_mkdirs(L.in);
	pd_test_mkdirs(L.log);
	if (!pd_test_compile("cc", "-O0 -g -fno-omit-frame-pointer", bin,
			     WORKLOAD_DIR "/phases.c")) {
		L.skip = "cannot compile tests/workloads/phases.c";
		return;
	}
	ok &= fmt(L.file, PATHMAX, "%s/file.data", in);
	ok &= fmt(L.file2, PATHMAX, "%s/file2.data", in);
	ok &= fmt(L.pipe, PATHMAX, "%s/pipe.data", in);
	ok &= fmt(L.corrupt, PATHMAX, "%s/corrupt.data", in);
	ok &= fmt(w, sizeof w, "'%s' 150", bin);
	/* a fixed amount of work (about 3 s of CPU, however busy the
	 * machine) at 4 kHz with call chains: script and dump print about
	 * 1 MB, more than the 256 KB the writer holds back; a small ring
	 * buffer (-m 8 pages) makes perf write a FINISHED_ROUND every few
	 * KB, so that script, which orders samples by round, prints them
	 * while it reads rather than at the end */
	ok &= fmt(cmd, sizeof cmd,
		  "perf record -q -N -F 4000 -m 8 -e cpu-clock -g -o - -- sh -c "
		  "'i=0; while [ $i -lt 1500000 ]; do i=$((i+1)); done' > '%s' 2>/dev/null",
		  L.pipe);
	if (!ok)
		L.skip = "the temporary directory's name is too long";
	else if (!pd_test_perf_record(L.file, "-q -N -e cpu-clock -g", w) ||
	    !pd_test_perf_record(L.file2, "-q -N -e cpu-clock -g", w) || !pd_test_sh_ok(cmd))
		L.skip = "perf record -N -e cpu-clock failed";
	else if (!make_corrupt(L.pipe, L.corrupt))
		L.skip = "no SAMPLE record in the second half of the pipe recording";
}

static void lab_teardown(void)
{
	pd_test_lab_close(L.dir);
}

#define NEED_LAB() PD_SKIP_IF(L.skip)

/* ------------------------------------------------------------ helpers */

/* A fresh directory for one test: DIR/NAME. */
static void workdir(char *out, const char *name)
{
	FMT(out, PATHMAX, "%s/%s", L.dir, name);
	pd_test_rmrf(out);
	pd_test_mkdirs(out);
}

/* The names in `dir`, hidden ones too, sorted and joined by spaces. */
static char *listing(const char *dir)
{
	char cmd[PATHMAX + 32];
	FMT(cmd, sizeof cmd, "ls -A '%s' | tr '\\n' ' '", dir);
	int st;
	char *s = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(s);
	return s;
}

static void assert_listing(const char *dir, const char *want, const char *what)
{
	char *got = listing(dir);
	ck_assert_msg(strcmp(got, want) == 0, "%s: %s holds '%s', not '%s'", what, dir, got, want);
	free(got);
}

/* The file at `path` holds exactly `want` (`n` bytes). */
static void assert_bytes(const char *path, const void *want, size_t n, const char *what)
{
	size_t len = 0;
	uint8_t *got = pd_test_read_file(path, &len);
	ck_assert_msg(got, "%s: %s cannot be read", what, path);
	ck_assert_msg(len == n && memcmp(got, want, n) == 0,
		      "%s: %s changed (%zu bytes, was %zu)", what, path, len, n);
	free(got);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* How many lines of `text` hold `needle`. */
static size_t lines_with(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* `form` with -o 'OUT' and its inputs: IN (and for diff IN2). */
static void command(char *cmd, size_t cap, const form *f, const char *out, const char *in,
		    const char *in2)
{
	FMT(cmd, cap, "%s -o '%s' %s %s", f->args, out, in, f->diff ? in2 : "");
}

/* ------------------------------------------------------------ -o is an input */

/* The bytes of the inputs test_output_is_input() guards. */
typedef struct guarded {
	char a[PATHMAX], b[PATHMAX];  /* copies of file.data and file2.data */
	uint8_t *abytes, *bbytes;
	size_t an, bn;
} guarded;

/* `args` (-o TARGET ...) refused: status 2, one line naming TARGET,
 * both inputs byte for byte as they were, nothing made in `work`. */
static void assert_refused(const char *args, const char *target, const guarded *g,
			   const char *work)
{
	char *before = listing(work);
	int st;
	char *err = NULL;
	free(pd_test_cli(L.log, args, &st, &err));
	ck_assert_msg(st == 2, "%s: status %d, not 2", args, st);
	ck_assert_msg(count_lines(err) == 1 && strstr(err, target) &&
		      strstr(err, "not overwriting"),
		      "%s: not one line naming %s: '%s'", args, target, err);
	assert_bytes(g->a, g->abytes, g->an, args);
	assert_bytes(g->b, g->bbytes, g->bn, args);
	assert_listing(work, before, args);
	free(err);
	free(before);
}

/* A copy of `from` at `to`, its bytes in *bytes. */
static void copy_file(const char *from, const char *to, uint8_t **bytes, size_t *n)
{
	*bytes = pd_test_read_file(from, n);
	ck_assert(*bytes && pd_test_write_file(to, *bytes, *n));
}

START_TEST(test_output_is_input)
{
	NEED_LAB();
	char work[PATHMAX], hard[PATHMAX], soft[PATHMAX], cmd[4 * PATHMAX], in[PATHMAX + 8];
	guarded g;
	workdir(work, "same");
	/* copies: a command that destroys its input destroys no other test's */
	FMT(g.a, sizeof g.a, "%s/a.data", work);
	FMT(g.b, sizeof g.b, "%s/b.data", work);
	copy_file(L.file, g.a, &g.abytes, &g.an);
	copy_file(L.file2, g.b, &g.bbytes, &g.bn);
	FMT(hard, sizeof hard, "%s/hard.data", work);
	FMT(soft, sizeof soft, "%s/soft.data", work);
	ck_assert_int_eq(link(g.a, hard), 0);
	ck_assert_int_eq(symlink(g.a, soft), 0);
	FMT(in, sizeof in, "'%s'", g.a);
	const char *targets[] = { g.a, hard, soft };
	for (size_t i = 0; i < NFORMS; i++) {
		const form *f = &forms[i];
		for (size_t t = 0; t < 3; t++) {
			command(cmd, sizeof cmd, f, targets[t], in, g.b);
			assert_refused(cmd, targets[t], &g, work);
		}
		/* the input on standard input: "-" */
		command(cmd, sizeof cmd, f, soft, "-", g.b);
		strcat(cmd, " < '");
		strcat(cmd, g.a);
		strcat(cmd, "'");
		assert_refused(cmd, soft, &g, work);
		if (f->diff) { /* the new side */
			command(cmd, sizeof cmd, f, g.b, in, g.b);
			assert_refused(cmd, g.b, &g, work);
		}
	}
	free(g.abytes);
	free(g.bbytes);
}
END_TEST

/* ------------------------------------------------------------ errors */

static const char old_text[] = "old content, byte for byte\n";

/* `path` made anew with old_text, mode 0640. */
static void put_old(const char *path)
{
	unlink(path);
	ck_assert(pd_test_write_file(path, old_text, sizeof old_text - 1));
	ck_assert_int_eq(chmod(path, 0640), 0);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* `cmd` fails (status 2): `keep` as it was, alone in `work`, and a line
 * says it was not written. */
static void assert_kept(const char *cmd, const char *work, const char *keep,
			const char *listing_want)
{
	int st;
	char *err = NULL;
	free(pd_test_cli(L.log, cmd, &st, &err));
	ck_assert_msg(st == 2, "%s: status %d, not 2: %s", cmd, st, err);
	char note[PATHMAX + 32];
	FMT(note, sizeof note, "%s: output not written\n", keep);
	ck_assert_msg(lines_with(err, note) == 1, "%s: no line '%s' in '%s'", cmd, note, err);
	assert_bytes(keep, old_text, sizeof old_text - 1, cmd);
	ck_assert_msg(mode_of(keep) == 0640, "%s: mode %o", cmd, (unsigned)mode_of(keep));
	assert_listing(work, listing_want, cmd);
	free(err);
}

START_TEST(test_error_keeps_old_file)
{
	NEED_LAB();
	char work[PATHMAX], keep[PATHMAX], cmd[4 * PATHMAX], in[PATHMAX + 8],
		corrupt[PATHMAX + 8], file[PATHMAX + 8];
	workdir(work, "errors");
	FMT(keep, sizeof keep, "%s/keep.out", work);
	FMT(in, sizeof in, "'%s/nope.data'", work);
	FMT(corrupt, sizeof corrupt, "'%s'", L.corrupt);
	FMT(file, sizeof file, "'%s'", L.file);
	for (size_t i = 0; i < NFORMS; i++) {
		const form *f = &forms[i];
		put_old(keep);
		/* missing: the error comes after the output was opened */
		command(cmd, sizeof cmd, f, keep, f->diff ? file : in, in);
		assert_kept(cmd, work, keep, "keep.out ");
		/* corrupt halfway: output written, then the error */
		command(cmd, sizeof cmd, f, keep, corrupt, file);
		assert_kept(cmd, work, keep, "keep.out ");
	}
}
END_TEST

/* Bytes `perfdiff ARGS` prints on standard output. */
static size_t output_size(const char *args)
{
	char cmd[4 * PATHMAX + 64];
	FMT(cmd, sizeof cmd, "'%s' %s 2>/dev/null | wc -c", PD_CLI_PATH, args);
	int st;
	char *s = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(s);
	size_t n = strtoul(s, NULL, 10);
	free(s);
	return n;
}

/* A write that fails, as on a full disk: the file grows past `ulimit -f
 * 4` (2 KB in dash's 512-byte blocks).  Every form whose output is
 * larger: status 2, the old file as it was, no temporary file left. */
START_TEST(test_write_error_keeps_old_file)
{
	NEED_LAB();
	char work[PATHMAX], keep[PATHMAX], args[4 * PATHMAX], cmd[5 * PATHMAX], errpath[PATHMAX];
	workdir(work, "write-error");
	FMT(keep, sizeof keep, "%s/keep.out", work);
	FMT(errpath, sizeof errpath, "%s/limited.txt", L.log);
	size_t tried = 0;
	for (size_t i = 0; i < NFORMS; i++) {
		const form *f = &forms[i];
		FMT(args, sizeof args, "%s '%s' %s", f->args, L.file, f->diff ? L.file2 : "");
		if (output_size(args) < 16384)
			continue; /* fits under the limit: nothing would fail */
		tried++;
		put_old(keep);
		command(args, sizeof args, f, keep, L.file, L.file2);
		FMT(cmd, sizeof cmd, "ulimit -f 4; exec '%s' %s 2>'%s'", PD_CLI_PATH, args, errpath);
		int st;
		free(pd_test_run(cmd, &st));
		char *err = (char *)pd_test_read_file(errpath, &(size_t){ 0 });
		ck_assert_msg(st == 2, "%s: status %d: %s", args, st, err);
		ck_assert_msg(err && strstr(err, "File too large") &&
			      strstr(err, "keep.out: output not written"), "%s: %s", args, err);
		assert_bytes(keep, old_text, sizeof old_text - 1, args);
		assert_listing(work, "keep.out ", args);
		free(err);
	}
	ck_assert_msg(tried >= 6, "only %zu forms print more than 16 KB", tried);
}
END_TEST

/* Without an error the file is what standard output gets, its mode kept. */
START_TEST(test_success_replaces)
{
	NEED_LAB();
	char work[PATHMAX], keep[PATHMAX], cmd[4 * PATHMAX], file[PATHMAX + 8];
	workdir(work, "success");
	FMT(keep, sizeof keep, "%s/keep.out", work);
	FMT(file, sizeof file, "'%s'", L.file);
	for (size_t i = 0; i < NFORMS; i++) {
		const form *f = &forms[i];
		put_old(keep);
		command(cmd, sizeof cmd, f, keep, file, L.file2);
		int st;
		free(pd_test_cli(L.log, cmd, &st, NULL));
		ck_assert_msg(st == 0 || st == 1, "%s: status %d", cmd, st);
		ck_assert_msg(mode_of(keep) == 0640, "%s: mode %o", cmd, (unsigned)mode_of(keep));
		assert_listing(work, "keep.out ", cmd);
		size_t n;
		uint8_t *got = pd_test_read_file(keep, &n);
		ck_assert_ptr_nonnull(got);
		if (strstr(f->args, "pprof")) { /* binary: gzip, not the old text */
			ck_assert_msg(n > 2 && got[0] == 0x1f && got[1] == 0x8b, "%s: no gzip", cmd);
		} else {
			FMT(cmd, sizeof cmd, "%s %s %s", f->args, file, f->diff ? L.file2 : "");
			char *want = pd_test_cli(L.log, cmd, &st, NULL);
			ck_assert_msg(n == strlen(want) && memcmp(got, want, n) == 0,
				      "%s: the file is not what standard output gets", cmd);
			free(want);
		}
		free(got);
	}
}
END_TEST

/* A symlink is followed (the link stays, its file is replaced); a device
 * is written in place and stays one. */
START_TEST(test_links_and_devices)
{
	NEED_LAB();
	char work[PATHMAX], real[PATHMAX], soft[PATHMAX], cmd[4 * PATHMAX];
	workdir(work, "links");
	FMT(real, sizeof real, "%s/real.out", work);
	FMT(soft, sizeof soft, "%s/link.out", work);
	put_old(real);
	ck_assert_int_eq(symlink("real.out", soft), 0);
	FMT(cmd, sizeof cmd, "report --format=csv -o '%s' '%s'", soft, L.file);
	int st;
	free(pd_test_cli(L.log, cmd, &st, NULL));
	ck_assert_int_eq(st, 0);
	struct stat sb;
	ck_assert(lstat(soft, &sb) == 0 && S_ISLNK(sb.st_mode));
	FMT(cmd, sizeof cmd, "report --format=csv '%s'", L.file);
	char *want = pd_test_cli(L.log, cmd, &st, NULL);
	assert_bytes(real, want, strlen(want), "through a symlink");
	ck_assert_int_eq(mode_of(real), 0640);
	assert_listing(work, "link.out real.out ", "through a symlink");
	free(want);
	FMT(cmd, sizeof cmd, "report -o /dev/null '%s'", L.file);
	free(pd_test_cli(L.log, cmd, &st, NULL));
	ck_assert_int_eq(st, 0);
	ck_assert(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode));
}
END_TEST

/* ------------------------------------------------------------ signals */

/* A running `perfdiff ARGS` (argv split at spaces: no quoting needed
 * for the lab's paths) reading the write end of *feed as standard input,
 * standard error to `errpath`.  `ignore_int`: SIGINT ignored from the
 * start, as in a background job. */
static pid_t spawn(const char *args, const char *errpath, int *feed, bool ignore_int)
{
	char *copy = strdup(args), *argv[32];
	int argc = 0;
	argv[argc++] = (char *)PD_CLI_PATH;
	for (char *tok = strtok(copy, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(p[0], STDIN_FILENO);
		dup2(e, STDERR_FILENO);
		close(p[0]);
		close(p[1]);
		/* the signals as a terminal's foreground job has them */
		signal(SIGINT, ignore_int ? SIG_IGN : SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(PD_CLI_PATH, argv);
		_exit(127);
	}
	close(p[0]);
	*feed = p[1];
	free(copy);
	return pid;
}

/* Feed the whole pipe recording to `fd`, left open: the command reads it
 * all and then waits for more. */
static void feed_all(int fd)
{
	size_t n;
	uint8_t *d = pd_test_read_file(L.pipe, &n);
	ck_assert_ptr_nonnull(d);
	for (size_t at = 0; at < n;) {
		ssize_t w = write(fd, d + at, n - at);
		if (w < 0 && errno == EINTR)
			continue;
		ck_assert_msg(w > 0, "the command stopped reading: %s", strerror(errno));
		at += (size_t)w;
	}
	free(d);
}

/* The size of the first hidden file in `dir` (a temporary output), or -1
 * when there is none. */
static long temp_size(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	long size = -1;
	struct dirent *e;
	while (size < 0 && (e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    fstatat(dirfd(d), e->d_name, &st, 0) == 0)
			size = (long)st.st_size;
	}
	closedir(d);
	return size;
}

/* Wait until `dir` holds a temporary file (`min` bytes or more); false
 * after 60 s. */
static bool wait_for_temp(const char *dir, long min)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	for (int i = 0; i < 3000; i++) {
		if (temp_size(dir) >= min)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* Wait up to 60 s for `pid` to end: true with its status in *st. */
static bool wait_exit(pid_t pid, int *st)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	for (int i = 0; i < 3000; i++) {
		pid_t w = waitpid(pid, st, WNOHANG);
		ck_assert_int_ge(w, 0);
		if (w == pid)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* `perfdiff ARGS` with the pipe recording on standard input, sent `sig`
 * once its temporary file in `dir` is there (with output in it when
 * `streams`): it dies of `sig`, `shown` is said not written, and `dir`
 * holds `want` alone, `keep` as it was. */
static void interrupt(const char *args, const char *dir, const char *keep, const char *shown,
		      const char *want, bool streams, int sig)
{
	char errpath[PATHMAX];
	FMT(errpath, sizeof errpath, "%s/stderr.txt", L.log);
	int feed;
	pid_t pid = spawn(args, errpath, &feed, false);
	feed_all(feed);
	bool there = wait_for_temp(dir, streams ? 1 : 0);
	kill(pid, sig);
	/* the input stays open until the command is gone: at its end it
	 * would finish, rename, and only then die of the signal */
	int st;
	bool died = wait_exit(pid, &st);
	close(feed);
	if (!died)
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	char *err = (char *)pd_test_read_file(errpath, &(size_t){ 0 });
	ck_assert_msg(there, "%s: no temporary file%s in %s", args,
		      streams ? " with output" : "", dir);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == sig,
		      "%s: did not die of signal %d (status %#x): %s", args, sig, st, err);
	char note[PATHMAX + 64];
	FMT(note, sizeof note, "%s: output not written (interrupted)\n", shown);
	ck_assert_msg(err && lines_with(err, "output not written") == 1 &&
		      lines_with(err, note) == 1, "%s: no one line '%s' in '%s'", args, note, err);
	assert_bytes(keep, old_text, sizeof old_text - 1, args);
	assert_listing(dir, want, args);
	free(err);
}

START_TEST(test_signal_keeps_old_file)
{
	NEED_LAB();
	signal(SIGPIPE, SIG_IGN); /* a command that dies is seen in waitpid */
	char work[PATHMAX], keep[PATHMAX], cmd[4 * PATHMAX];
	workdir(work, "signals");
	FMT(keep, sizeof keep, "%s/page.out", work);
	for (size_t i = 0; i < NFORMS; i++) {
		const form *f = &forms[i];
		put_old(keep);
		command(cmd, sizeof cmd, f, keep, f->diff ? L.file : "-", "-");
		/* no quotes for spawn()'s split */
		for (char *q; (q = strchr(cmd, '\''));)
			memmove(q, q + 1, strlen(q));
		interrupt(cmd, work, keep, keep, "page.out ", f->streams, SIGINT);
	}
	FMT(cmd, sizeof cmd, "report --format=html -o %s -", keep);
	interrupt(cmd, work, keep, keep, "page.out ", false, SIGTERM);
	interrupt(cmd, work, keep, keep, "page.out ", false, SIGHUP);
	if (!PD_TEST_HAVE_PPROF)
		return;
	/* pprof into a directory: every run's temporary file goes, one line */
	char out[PATHMAX], old[PATHMAX + 32];
	FMT(out, sizeof out, "%s/out/", work);
	pd_test_mkdirs(out);
	FMT(old, sizeof old, "%s1-file.data.pb.gz", out);
	put_old(old);
	FMT(cmd, sizeof cmd, "report --format=pprof -o %s %s -", out, L.file);
	interrupt(cmd, out, old, out, "1-file.data.pb.gz ", false, SIGINT);
}
END_TEST

/* The `report --format=csv -o OUT` run as `pid` ends as usual (status
 * 0 or 1) with OUT what `report --format=csv IN` prints (IN shell text),
 * alone in `work` with the names `names`. */
static void assert_csv_written(pid_t pid, const char *out, const char *in, const char *work,
			       const char *names)
{
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) <= 1, "%s: status %#x", out, st);
	char cmd[PATHMAX + 64];
	FMT(cmd, sizeof cmd, "report --format=csv %s", in);
	char *want = pd_test_cli(L.log, cmd, &st, NULL);
	assert_bytes(out, want, strlen(want), cmd);
	assert_listing(work, names, cmd);
	free(want);
}

/* A SIGINT ignored when the command starts (a background job of a
 * script) stays ignored: the command ends as usual, its output written. */
START_TEST(test_ignored_signal_stays_ignored)
{
	NEED_LAB();
	signal(SIGPIPE, SIG_IGN);
	char work[PATHMAX], keep[PATHMAX], cmd[4 * PATHMAX], errpath[PATHMAX];
	workdir(work, "ignored");
	FMT(keep, sizeof keep, "%s/page.out", work);
	FMT(errpath, sizeof errpath, "%s/stderr.txt", L.log);
	put_old(keep);
	FMT(cmd, sizeof cmd, "report --format=csv -o %s -", keep);
	int feed;
	pid_t pid = spawn(cmd, errpath, &feed, true);
	feed_all(feed);
	ck_assert(wait_for_temp(work, 0));
	kill(pid, SIGINT);
	/* time to die of it, were it not ignored */
	nanosleep(&(struct timespec){ 0, 300 * 1000 * 1000 }, NULL);
	close(feed);
	FMT(cmd, sizeof cmd, "- < '%s'", L.pipe);
	assert_csv_written(pid, keep, cmd, work, "page.out ");
}
END_TEST

/* Standard error a pipe nobody reads: the warnings at the end meet
 * EPIPE, not SIGPIPE, and the output is written. */
START_TEST(test_closed_stderr)
{
	NEED_LAB();
	char work[PATHMAX], out[PATHMAX];
	workdir(work, "stderr");
	FMT(out, sizeof out, "%s/r.out", work);
	put_old(out);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], STDERR_FILENO);
		signal(SIGPIPE, SIG_DFL);
		execl(PD_CLI_PATH, PD_CLI_PATH, "report", "-v", "--format=csv", "-o", out, L.file,
		      (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char in[PATHMAX + 8];
	FMT(in, sizeof in, "'%s'", L.file);
	assert_csv_written(pid, out, in, work, "r.out ");
}
END_TEST

#if PD_TEST_HAVE_PPROF
/* ------------------------------------------------------------ pprof DIR/ */

/* `path`'s CSV report. */
static char *csv_of(const char *path)
{
	char cmd[PATHMAX + 64];
	FMT(cmd, sizeof cmd, "report --format=csv '%s'", path);
	int st;
	char *s = pd_test_cli(L.log, cmd, &st, NULL);
	ck_assert_msg(st <= 1, "%s: status %d", cmd, st);
	return s;
}

START_TEST(test_pprof_dir_names)
{
	NEED_LAB();
	char work[PATHMAX], in[4][PATHMAX], cmd[8 * PATHMAX], path[PATHMAX + 32];
	workdir(work, "pprof");
	const char *rel[4] = { "lkp/r1/perf.data", "lkp/r2/perf.data", "base/r01.data",
			       "new/r01.data" };
	const char *src[4] = { L.file, L.file2, L.pipe, L.file };
	for (int i = 0; i < 4; i++) {
		FMT(in[i], PATHMAX, "%s/%s", work, rel[i]);
		char *slash = strrchr(in[i], '/');
		*slash = '\0';
		pd_test_mkdirs(in[i]);
		*slash = '/';
		size_t n;
		uint8_t *d = pd_test_read_file(src[i], &n);
		ck_assert(d && pd_test_write_file(in[i], d, n));
		free(d);
	}
	FMT(cmd, sizeof cmd, "report --format=pprof -o '%s/out/' '%s' '%s' '%s' '%s'", work,
		 in[0], in[1], in[2], in[3]);
	int st;
	free(pd_test_cli(L.log, cmd, &st, NULL));
	ck_assert_msg(st <= 1, "%s: status %d", cmd, st);
	FMT(path, sizeof path, "%s/out", work);
	assert_listing(path, "1-perf.data.pb.gz 2-perf.data.pb.gz 3-r01.data.pb.gz "
		       "4-r01.data.pb.gz ", cmd);
	const char *names[4] = { "1-perf.data.pb.gz", "2-perf.data.pb.gz", "3-r01.data.pb.gz",
				 "4-r01.data.pb.gz" };
	for (int i = 0; i < 4; i++) {
		FMT(path, sizeof path, "%s/out/%s", work, names[i]);
		char *a = csv_of(in[i]), *b = csv_of(path);
		ck_assert_msg(strcmp(a, b) == 0, "%s does not hold %s", path, in[i]);
		free(a);
		free(b);
	}
	/* a run that fails: none written, the old files as they were */
	FMT(path, sizeof path, "%s/out/1-perf.data.pb.gz", work);
	put_old(path);
	FMT(cmd, sizeof cmd, "report --format=pprof -o '%s/out/' '%s' '%s/nope.data'", work,
		 in[0], work);
	char *err = NULL;
	free(pd_test_cli(L.log, cmd, &st, &err));
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(err, "out/: output not written"), "%s", err);
	assert_bytes(path, old_text, sizeof old_text - 1, cmd);
	FMT(path, sizeof path, "%s/out", work);
	assert_listing(path, "1-perf.data.pb.gz 2-perf.data.pb.gz 3-r01.data.pb.gz "
		       "4-r01.data.pb.gz ", cmd);
	free(err);
	/* a run's file that is another run's input: refused, nothing written */
	FMT(cmd, sizeof cmd, "report --format=pprof -o '%s/out/' '%s' '%s/out/1-perf.data.pb.gz'",
		 work, in[0], work);
	FMT(path, sizeof path, "%s/out/1-perf.data.pb.gz", work);
	free(pd_test_cli(L.log, cmd, &st, &err));
	ck_assert_int_eq(st, 2);
	ck_assert_msg(count_lines(err) == 1 && strstr(err, path) && strstr(err, "not overwriting"),
		      "%s", err);
	assert_bytes(path, old_text, sizeof old_text - 1, cmd);
	free(err);
}
END_TEST
#endif

static Suite *suite(void)
{
	Suite *s = suite_create("outputs");
	TCase *lab = tcase_create("lab");
	tcase_add_unchecked_fixture(lab, lab_setup, lab_teardown);
	tcase_set_timeout(lab, 600);
	tcase_add_test(lab, test_output_is_input);
	tcase_add_test(lab, test_error_keeps_old_file);
	tcase_add_test(lab, test_write_error_keeps_old_file);
	tcase_add_test(lab, test_success_replaces);
	tcase_add_test(lab, test_links_and_devices);
	tcase_add_test(lab, test_signal_keeps_old_file);
	tcase_add_test(lab, test_ignored_signal_stays_ignored);
	tcase_add_test(lab, test_closed_stderr);
#if PD_TEST_HAVE_PPROF /* else refused: test_optional */
	tcase_add_test(lab, test_pprof_dir_names);
#endif
	suite_add_tcase(s, lab);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
