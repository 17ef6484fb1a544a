/*
 * `perfdiff record [-a] [-p PID[,PID]] [-F HZ] [-d SECONDS]
 * [--kernel-only|--user-only] [--format=pprof|perf] [--interval=SECONDS]
 * [-o FILE] [-- CMD ARGS]`: option parsing, the command started and held
 * until the sampler follows it, a wait for its end (or -d, or SIGINT,
 * which ends the recording cleanly), and the library's calls:
 * pd_recorder_* to record, the profile and its pprof export (or the
 * perf.data stream) to write, once, or with --interval once an interval
 * into files named by the interval's start.
 * perf record's meanings: a command alone is recorded with its children;
 * -a with a command records the whole machine while it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_help.h"
#include "cli_io.h"
#include "cli_parse.h"
#include "record_cli.h"

#define CMD "record"

void record_usage(FILE *f)
{
	fputs(cli_help_record, f);
}

#ifndef PD_HAVE_RECORD
int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("record: this perfdiff was built without it (PERFDIFF_RECORD: needs clang, "
		  "bpftool and the kernel's BTF at build time)");
	return CLI_EXIT_ERROR;
}
#else
#include <perfdiff/record.h>

typedef struct cli_record {
	pd_recorder_options ro;
	double duration;           /* 0: until the command ends or SIGINT */
	double interval;           /* --interval: one file each; 0: one file */
	char prefix[4096];         /* --interval: -o as a directory or a prefix */
	struct timespec cut_wall;  /* the wall-clock start of the interval */
	const char *pids;          /* -p's list */
	pid_t *pidv;               /* ... parsed: the recording ends when all are gone */
	size_t npids;
	bool perf_format;
	char **argv;               /* the command, NULL-terminated */
	int argc;
	bool after_dashdash;
	cli_io io;
} cli_record;

static int set_option(void *own, const cli_optdef *opt, const cli_value *v, const char *cmd)
{
	cli_record *c = own;
	(void)cmd;
	switch (opt->id) {
	case CLI_RECORD_ALL_CPUS: c->ro.system_wide = true; break;
	case CLI_RECORD_PID: c->pids = v->str; break;
	case CLI_RECORD_FREQ: c->ro.freq = (unsigned)v->count; break;
	case CLI_RECORD_DURATION: c->duration = v->num; break;
	case CLI_RECORD_INTERVAL: c->interval = v->num; break;
	case CLI_RECORD_KERNEL_ONLY: c->ro.stacks = PD_RECORDER_KERNEL_ONLY; break;
	case CLI_RECORD_USER_ONLY: c->ro.stacks = PD_RECORDER_USER_ONLY; break;
	default: c->perf_format = v->word == 1; break;
	}
	return 0;
}

/* An operand: the command's words (after "--", or from its first). */
static int add_word(void *own, const char *arg)
{
	cli_record *c = own;
	c->argv[c->argc++] = (char *)arg;
	return 0;
}

static cli_parse_result parse(cli_record *c, int argc, char **argv)
{
	c->argv = calloc((size_t)argc + 1, sizeof *c->argv);
	if (!c->argv) {
		cli_error("out of memory");
		return CLI_PARSE_FAILED;
	}
	const cli_parser p = { .cmd = CMD, .io = &c->io, .own = c, .set = set_option,
			       .operand = add_word };
	cli_parse_result r = cli_parse(&p, argc, argv);
	if (r != CLI_PARSED)
		return r;
	if (c->pids && c->argc)
		return cli_parse_refuse(CMD, "-p and a command do not go together");
	if (c->pids && c->ro.system_wide)
		return cli_parse_refuse(CMD, "-p and -a do not go together");
	if (!c->pids && !c->argc && !c->ro.system_wide)
		return cli_parse_refuse(CMD, "record what? give -a, -p PID or -- COMMAND");
	if (c->interval > 0 && (!c->io.out_path || !strcmp(c->io.out_path, "-")))
		return cli_parse_refuse(CMD, "--interval needs -o DIR/ (or -o DIR/PREFIX)");
	return CLI_PARSED;
}

/* ---------------------------------------------------------- recording */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void catch_signals(bool on)
{
	struct sigaction sa = { .sa_handler = on ? on_signal : SIG_DFL };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Fork the command, held on a pipe until the sampler follows it.  -1
 * when it cannot be forked. */
static pid_t start_command(const cli_record *c, int *go, int *failed)
{
	int fds[2], efds[2];
	if (pipe(fds) < 0)
		return -1;
	if (pipe2(efds, O_CLOEXEC) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char byte;
		close(fds[1]);
		close(efds[0]);
		if (read(fds[0], &byte, 1) != 1)
			_exit(127);    /* the recorder gave up */
		close(fds[0]);
		execvp(c->argv[0], c->argv);
		int e = errno;    /* the exec failed: tell the recorder why */
		if (write(efds[1], &e, sizeof e) != sizeof e)
			_exit(126);
		_exit(127);
	}
	close(fds[0]);
	close(efds[1]);
	*go = fds[1];
	*failed = efds[0];
	return pid;
}

/* Release the held command; 0 once it runs, or -1 after saying why
 * it could not (its exec's errno comes back on `failed`, which the
 * exec closes when it succeeds). */
static int release_command(const cli_record *c, int go, int failed)
{
	int e = 0;
	bool sent = write(go, "g", 1) == 1;
	close(go);
	if (sent && read(failed, &e, sizeof e) != (ssize_t)sizeof e)
		e = 0;
	close(failed);
	if (sent && e == 0)
		return 0;
	cli_error("record: cannot run '%s': %s", c->argv[0], strerror(sent ? e : errno));
	return -1;
}

static int add_pids(cli_record *c, pd_recorder *r, pd_error *err)
{
	c->pidv = calloc(strlen(c->pids) / 2 + 1, sizeof *c->pidv);
	if (!c->pidv) {
		cli_error("out of memory");
		return -1;
	}
	for (const char *s = c->pids; *s;) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || errno || v == 0 || v > 0x7fffffff || (*end && *end != ',')) {
			cli_usage_error(CMD, "-p %s: not a list of pids", c->pids);
			return -1;
		}
		if (kill((pid_t)v, 0) < 0 && errno == ESRCH) {
			cli_usage_error(CMD, "-p %lu: no such process", v);
			return -1;
		}
		int rc = pd_recorder_add_pid(r, (uint32_t)v, err);
		if (rc < 0)
			return rc;
		c->pidv[c->npids++] = (pid_t)v;
		s = *end ? end + 1 : end;
	}
	return 0;
}

/* Whether every process of -p has exited (as perf record -p ends). */
static bool pids_gone(const cli_record *c)
{
	for (size_t i = 0; i < c->npids; i++)
		if (kill(c->pidv[i], 0) == 0 || errno != ESRCH)
			return false;
	return c->npids > 0;
}

static int write_pprof(pd_recorder *r, FILE *f, pd_error *err);

/* -o DIR/, an existing DIR, or DIR/PREFIX: what the files' names start
 * with.  0, or -1 after the error. */
static int interval_prefix(cli_record *c)
{
	const char *o = c->io.out_path;
	struct stat sb;
	size_t n = strlen(o);
	bool dir = (n && o[n - 1] == '/') || (stat(o, &sb) == 0 && S_ISDIR(sb.st_mode));
	if (dir && mkdir(o, 0777) < 0 && errno != EEXIST) {
		cli_error("record: %s: cannot make the directory: %s", o, strerror(errno));
		return -1;
	}
	snprintf(c->prefix, sizeof c->prefix, "%s%s", o, dir && o[n - 1] != '/' ? "/" : "");
	clock_gettime(CLOCK_REALTIME, &c->cut_wall);
	return 0;
}

/* The interval's file, named by its start (UTC, to the millisecond),
 * written whole or not at all; then the recording forgets it. */
static int write_interval(cli_record *c, pd_recorder *r, pd_error *err)
{
	char stamp[64], path[sizeof c->prefix + 96];
	struct tm tm;
	gmtime_r(&c->cut_wall.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(path, sizeof path, "%s%s.%03ld.%s", c->prefix, stamp,
		 c->cut_wall.tv_nsec / 1000000, c->perf_format ? "data" : "pb.gz");
	clock_gettime(CLOCK_REALTIME, &c->cut_wall);
	pd_outfile *of;
	int rc = pd_outfile_open(&of, path, err);
	if (rc < 0)
		return rc;
	FILE *f = pd_outfile_stream(of);
	rc = c->perf_format ? pd_recorder_write_perf(r, f, path, err) : write_pprof(r, f, err);
	if (rc < 0)
		pd_outfile_abort(of);
	else
		rc = pd_outfile_commit(of, err);
	if (rc == 0 && c->io.verbosity != CLI_QUIET)
		fprintf(stderr, "perfdiff record: %s\n", path);
	pd_recorder_clear(r);
	return rc;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Drain every 250 ms, reading new processes' maps as they come, until
 * the command ends, -d passes or a signal. */
static int wait_loop(cli_record *c, pd_recorder *r, pid_t child, int *status,
		     pd_error *err)
{
	double end = c->duration > 0 ? now_s() + c->duration : 0;
	double cut = c->interval > 0 ? now_s() + c->interval : 0;
	for (;;) {
		int rc = 0;
		for (int i = 0; rc == 0 && i < 5 && !interrupted; i++)
			rc = pd_recorder_wait(r, 50, err);
		if (rc == 0)
			rc = pd_recorder_poll(r, err);
		if (rc == 0 && cut && now_s() >= cut) {
			rc = write_interval(c, r, err);
			cut += c->interval;
		}
		if (rc < 0)
			return rc;
		if ((child > 0 && waitpid(child, status, WNOHANG) == child) || pids_gone(c))
			return 0;
		if (interrupted || (end && now_s() >= end)) {
			if (child > 0) {
				kill(child, SIGINT);
				waitpid(child, status, 0);
			}
			return 0;
		}
	}
}

static int record(cli_record *c, pd_recorder *r, pd_error *err)
{
	int go = -1, failed = -1, status = 0, rc = 0;
	pid_t child = c->argc ? start_command(c, &go, &failed) : 0;
	if (child < 0) {
		cli_error("record: cannot start '%s': %s", c->argv[0], strerror(errno));
		return -1;
	}
	if (child > 0 && !c->ro.system_wide)
		rc = pd_recorder_add_pid(r, (uint32_t)child, err);
	if (rc == 0 && c->pids)
		rc = add_pids(c, r, err);
	if (rc == 0)
		rc = pd_recorder_start(r, err);
	catch_signals(true);
	if (go >= 0 && rc == 0) {
		rc = release_command(c, go, failed);
	} else if (go >= 0) {
		close(go);    /* the command exits unrun */
		close(failed);
	}
	if (rc == 0)
		rc = wait_loop(c, r, child, &status, err);
	else if (child > 0)
		waitpid(child, &status, 0);
	int src = pd_recorder_stop(r, rc < 0 ? NULL : err);
	catch_signals(false);
	return rc < 0 ? rc : src;
}

/* ------------------------------------------------------------ output */

static int write_pprof(pd_recorder *r, FILE *f, pd_error *err)
{
	pd_profile_options po;
	pd_pprof_write_options wo;
	pd_profile *p = NULL;
	if (cli_options_init_rc(pd_profile_options_init(&po, PD_PROFILE_OPTIONS_VERSION),
				"pd_profile_options") < 0 ||
	    cli_options_init_rc(pd_pprof_write_options_init(&wo, PD_PPROF_WRITE_OPTIONS_VERSION),
				"pd_pprof_write_options") < 0)
		return PD_EINVAL;
	po.flags |= PD_PROFILE_KEEP_SITES;
	int rc = pd_profile_new(&p, &po, err);
	if (rc == 0)
		rc = pd_recorder_add_to_profile(r, p, err);
	if (rc == 0)
		rc = pd_profile_write_pprof(p, f, &wo, err);
	pd_profile_free(p);
	return rc;
}

static void summary(const cli_record *c, const pd_recorder *r)
{
	pd_recorder_stats s;
	if (c->io.verbosity == CLI_QUIET || pd_recorder_stats_get(r, &s, PD_RECORDER_STATS_VERSION))
		return;
	uint64_t lost = s.lost_full + s.lost_collision + s.lost_stack;
	fprintf(stderr,
		"[ perfdiff record: %llu samples, %llu stacks (%llu with build-ids), "
		"%llu processes, %.3f s ]\n",
		(unsigned long long)s.samples, (unsigned long long)s.stacks,
		(unsigned long long)s.bid_stacks, (unsigned long long)s.processes,
		(double)s.duration_ns / 1e9);
	if (lost)
		cli_warning("Lost %llu samples (count map full %llu, stack id collisions %llu, "
			    "stacks not taken %llu)", (unsigned long long)lost,
			    (unsigned long long)s.lost_full, (unsigned long long)s.lost_collision,
			    (unsigned long long)s.lost_stack);
}

static int run(cli_record *c)
{
	pd_error err = { 0 };
	pd_recorder *r = NULL;
	if (pd_recorder_new(&r, &c->ro, &err) < 0) {
		cli_error("record: %s", err.message);
		return CLI_EXIT_ERROR;
	}
	if (c->interval > 0 && interval_prefix(c) < 0) {
		pd_recorder_free(r);
		return CLI_EXIT_ERROR;
	}
	int rc = record(c, r, &err);
	if (rc == -1) {    /* said already */
		pd_recorder_free(r);
		return CLI_EXIT_ERROR;
	}
	if (rc == 0 && c->interval > 0)
		rc = write_interval(c, r, &err);   /* the last, cut short */
	if (rc < -1)
		cli_error("record: %s", err.message);
	summary(c, r);
	if (c->interval > 0) {
		pd_recorder_free(r);
		return rc < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
	}
	if (!c->io.out_path)
		c->io.out_path = c->perf_format ? "perf.data" : "perfdiff.pb.gz";
	if (rc < -1 || cli_io_open(&c->io, NULL, 0) < 0) {
		pd_recorder_free(r);
		return CLI_EXIT_ERROR;
	}
	rc = c->perf_format ? pd_recorder_write_perf(r, c->io.out, c->io.out_path, &err)
			    : write_pprof(r, c->io.out, &err);
	if (rc < 0)
		cli_error("record: %s", err.message);
	pd_recorder_free(r);
	return cli_io_close(&c->io, rc < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK);
}

int cmd_record(int argc, char **argv)
{
	cli_record c = { 0 };
	int st = CLI_EXIT_ERROR;
	cli_io_init(&c.io, CMD, false);
	if (cli_options_init_rc(pd_recorder_options_init(&c.ro, PD_RECORDER_OPTIONS_VERSION),
				"pd_recorder_options") == 0 &&
	    !cli_parse_stop(parse(&c, argc, argv), record_usage, &st))
		st = run(&c);
	free(c.argv);
	free(c.pidv);
	return st;
}
#endif
