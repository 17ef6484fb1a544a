/*
 * `perfdiff help CMD` through man(1), as `git help` and `perf help` do:
 * the manual page is the full text, formatted for the terminal and paged.
 * The page installed with this binary comes first (PD_MANDIR_REL, the
 * install's man directory relative to its bin directory), so that a
 * perfdiff installed under its own prefix shows its own pages; then any
 * page man finds on its path.
 */
#include "cli_help.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PD_MANDIR_REL
#define PD_MANDIR_REL "../share/man"
#endif

/* Run argv; its exit status, or -1 when it could not run.  `quiet`
 * sends its output to /dev/null. */
static int run(char *const argv[], int quiet)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (quiet && !freopen("/dev/null", "w", stdout))
			_exit(127);
		if (quiet && !freopen("/dev/null", "w", stderr))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 127)
		return -1;
	return WEXITSTATUS(st);
}

/* The man directory beside this program when it holds `page`. */
static int own_mandir(const char *page, char *dir, size_t n)
{
	char exe[PATH_MAX], file[PATH_MAX + 64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0)
		return -1;
	exe[len] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(dir, n, "%s/%s", exe, PD_MANDIR_REL) >= n)
		return -1;
	snprintf(file, sizeof file, "%s/man1/%s.1", dir, page);
	struct stat sb;
	return stat(file, &sb) == 0 ? 0 : -1;
}

int cli_show_man(const char *page)
{
	char dir[PATH_MAX];
	if (own_mandir(page, dir, sizeof dir) == 0) {
		char *argv[] = { "man", "-M", dir, (char *)page, NULL };
		return run(argv, 0) == 0 ? 0 : -1;
	}
	char *where[] = { "man", "-w", (char *)page, NULL };
	if (run(where, 1) != 0)
		return -1;
	char *argv[] = { "man", (char *)page, NULL };
	return run(argv, 0) == 0 ? 0 : -1;
}
