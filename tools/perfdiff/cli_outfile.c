/*
 * Output files that a failure or a signal cannot hurt (cli_io.h): every
 * -o FILE is refused when it is one of the inputs, written to a
 * temporary file beside it by the library's pd_outfile (output.h) and
 * renamed into place only when the command succeeds.  The library keeps
 * no global state, so what must happen when the process is killed lives
 * here: the temporary files held open are removed and one line says
 * which output was not written, then the process dies of the same
 * signal (its status tells the shell so).
 *
 * SIGINT, SIGTERM and SIGHUP are taken by one thread in sigwait() rather
 * than by a handler: blocked in the main thread before the first output
 * opens, they stay blocked in every thread started later (the diff's
 * second side, the library's workers), so that thread alone sees them.
 * It may then take a mutex, which a handler may not, and the mutex
 * orders it with the commit: a signal during the rename waits for it and
 * finds nothing left to remove.  A signal ignored when perfdiff started
 * (nohup, a background job of a non-interactive shell) stays ignored.
 * SIGPIPE is ignored once a file is the output: the output does not go
 * to a pipe then, and a closed standard error must not kill the process
 * between its temporary file and the rename.  SIGXFSZ too: a file grown
 * past `ulimit -f` then fails its write (EFBIG), and the output is not
 * written, as on a full disk, instead of a process killed mid-file.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_io.h"

/* A temporary file to remove when a signal ends the process, and the
 * name to say was not written (NULL: say nothing, another entry does). */
typedef struct held {
	pd_outfile *f;
	char *note;
} held;

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static held *held_v;
static size_t held_n, held_cap;
static bool watching;

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };

/* "perfdiff: NOTE: output not written (interrupted)" by write(): no
 * stdio, whose lock the main thread may hold while it blocks. */
static void say_interrupted(const char *note)
{
	char line[4200];
	int n = snprintf(line, sizeof line, "%s: %s: output not written (interrupted)\n",
			 CLI_PROG, note);
	if (n > 0 && (size_t)n < sizeof line && write(STDERR_FILENO, line, (size_t)n) < 0)
		return; /* nowhere to say it */
}

/* Remove every temporary file held, say so, and die of `sig`. */
static void die_of(int sig)
{
	pthread_mutex_lock(&held_lock); /* kept: nothing may commit now */
	for (size_t i = 0; i < held_n; i++)
		unlink(pd_outfile_temp_path(held_v[i].f));
	for (size_t i = 0; i < held_n; i++)
		if (held_v[i].note)
			say_interrupted(held_v[i].note);
	signal(sig, SIG_DFL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig); /* not reached: the default action of `sig` ends us */
}

static void *watch(void *arg)
{
	const sigset_t *set = arg;
	int sig;
	if (sigwait(set, &sig) == 0) /* fails only for a bad set */
		die_of(sig);
	return NULL;
}

/* The signals to watch in *set: those not ignored when we started (a
 * background job of a script ignores SIGINT, nohup SIGHUP).  False when
 * there is none. */
static bool watched(sigset_t *set)
{
	bool any = false;
	sigemptyset(set);
	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
		struct sigaction old;
		if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) {
			sigaddset(set, caught[i]);
			any = true;
		}
	}
	return any;
}

/* The watching thread, started once, before the first output file opens
 * (and so before the command starts threads of its own). */
static void start_watching(void)
{
	static sigset_t set;
	if (watching)
		return;
	watching = true;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN); /* past `ulimit -f`: EFBIG, an error like a full disk */
	if (!watched(&set))
		return; /* every one ignored: nothing can end us mid-file */
	sigset_t was;
	pthread_sigmask(SIG_BLOCK, &set, &was);
	pthread_t tid;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&tid, &attr, watch, &set) != 0)
		pthread_sigmask(SIG_SETMASK, &was, NULL); /* no watcher: as before */
	pthread_attr_destroy(&attr);
}

/* Hold `f` for the watcher; false without memory.  Under held_lock. */
static bool hold(pd_outfile *f, const char *note)
{
	if (held_n == held_cap) {
		size_t cap = held_cap ? 2 * held_cap : 8;
		held *v = realloc(held_v, cap * sizeof *v);
		if (!v)
			return false;
		held_v = v;
		held_cap = cap;
	}
	char *copy = note ? strdup(note) : NULL;
	if (note && !copy)
		return false;
	held_v[held_n++] = (held){ f, copy };
	return true;
}

/* Forget `f`.  Under held_lock. */
static void release(pd_outfile *f)
{
	for (size_t i = 0; i < held_n; i++)
		if (held_v[i].f == f) {
			free(held_v[i].note);
			held_v[i] = held_v[--held_n];
			return;
		}
}

int cli_out_check(const char *path, const char *const *inputs, size_t n)
{
	pd_error err;
	if (pd_outfile_check(path, inputs, n, &err) == 0)
		return 0;
	cli_error("%s", err.message);
	return -1;
}

pd_outfile *cli_out_open(const char *path, const char *note)
{
	pd_error err;
	pd_outfile *f = NULL;
	start_watching();
	pthread_mutex_lock(&held_lock);
	int rc = pd_outfile_open(&f, path, &err);
	if (rc == 0 && pd_outfile_temp_path(f) && !hold(f, note)) {
		pd_outfile_abort(f);
		f = NULL;
		rc = PD_ENOMEM;
		snprintf(err.message, sizeof err.message, "%s: out of memory", path);
	}
	pthread_mutex_unlock(&held_lock);
	if (rc < 0)
		cli_error("%s", err.message);
	return f;
}

int cli_out_commit(pd_outfile *f)
{
	pd_error err;
	pthread_mutex_lock(&held_lock);
	release(f);
	int rc = pd_outfile_commit(f, &err);
	pthread_mutex_unlock(&held_lock);
	if (rc < 0)
		cli_error("%s", err.message);
	return rc < 0 ? -1 : 0;
}

void cli_out_abort(pd_outfile *f, const char *note)
{
	if (!f)
		return;
	/* a target written in place (/dev/null, a FIFO) had nothing to keep */
	bool kept = pd_outfile_temp_path(f) != NULL;
	pthread_mutex_lock(&held_lock);
	release(f);
	pd_outfile_abort(f);
	pthread_mutex_unlock(&held_lock);
	if (note && kept)
		cli_error("%s: output not written", note);
}
