/*
 * pd_outfile: a file written whole or not at all, as git's lockfile.c
 * writes its files.  The bytes go to a temporary file next to the target
 * (same directory, hence same file system), which is flushed, fsync()ed
 * and renamed over the target only when the caller commits; an error, an
 * abort or a killed process leaves the target as it was.  Before this,
 * `perfdiff -o FILE` opened FILE with fopen("w"): a failed read, a
 * Ctrl-C, or FILE being the input itself left it empty or half written.
 *
 * Also here, pd_outfile_check(): whether writing a path would replace one
 * of the inputs (the same device and inode, so a hard link or a symlink
 * is caught as well as the same name).
 *
 * The choices, documented in output.h: a symlink as the target is
 * followed (the file it names is replaced, the link stays); a file that
 * is not a regular one (/dev/null, a FIFO, /dev/stdout) is written in
 * place, as there is nothing to rename over; a replaced file keeps its
 * permission bits, a new one gets 0666 less the umask, as fopen() gives.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perfdiff/output.h"
#include "util/util.h"

/* Links followed from the target before giving up, as the kernel's
 * MAXSYMLINKS. */
#define LINK_HOPS 40

struct pd_outfile {
	FILE *f;
	char *shown;   /* the path as given, for messages */
	char *target;  /* what is renamed over: `shown`, its links followed */
	char *temp;    /* the temporary file; NULL when written in place */
};

static void outfile_free(pd_outfile *o)
{
	if (!o)
		return;
	free(o->shown);
	free(o->target);
	free(o->temp);
	free(o);
}

/* `link`'s text read relative to the folder of `from`, malloc'd. */
static char *join_link(const char *from, const char *link)
{
	const char *slash = strrchr(from, '/');
	size_t dn = link[0] == '/' || !slash ? 0 : (size_t)(slash + 1 - from);
	size_t ln = strlen(link);
	char *s = malloc(dn + ln + 1);
	if (s) {
		memcpy(s, from, dn);
		memcpy(s + dn, link, ln + 1);
	}
	return s;
}

/*
 * `path` with the symlinks of its last component followed, as git's
 * resolve_symlink(): the file the link names gets the output and the
 * link stays.  A dangling link gives the path it points to (the output
 * is made there, as fopen() would).  NULL without memory.
 */
static char *resolve_links(const char *path)
{
	char *p = strdup(path);
	for (int hop = 0; p && hop < LINK_HOPS; hop++) {
		char link[PATH_MAX];
		ssize_t n = readlink(p, link, sizeof link - 1);
		if (n < 0)
			break; /* not a link (EINVAL), or absent: p is the target */
		link[n] = '\0';
		char *next = join_link(p, link);
		free(p);
		p = next;
	}
	return p;
}

/* "DIR/.NAME.XXXXXX" for target "DIR/NAME": hidden, so that a leftover of
 * a killed process matches no `*.pb.gz` or `*.html` glob; NAME shortened
 * where the suffix would pass NAME_MAX. */
static char *temp_name(const char *target, unsigned attempt)
{
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	size_t dn = (size_t)(base - target), bn = strlen(base);
	if (bn > NAME_MAX - 8)
		bn = NAME_MAX - 8;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t r = pd_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
			      ((uint64_t)getpid() << 40) ^ ((uint64_t)attempt << 20) ^
			      (uint64_t)(uintptr_t)&ts);
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char *s = malloc(dn + bn + 9);
	if (!s)
		return NULL;
	memcpy(s, target, dn);
	s[dn] = '.';
	memcpy(s + dn + 1, base, bn);
	s[dn + 1 + bn] = '.';
	for (int i = 0; i < 6; i++, r /= 36)
		s[dn + 2 + bn + i] = digits[r % 36];
	s[dn + 8 + bn] = '\0';
	return s;
}

/* The temporary file beside o->target, opened for writing; a replaced
 * file's permission bits copied (`keep`: its stat, else NULL).  0 or an
 * errno. */
static int open_temp(pd_outfile *o, const struct stat *keep)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		o->temp = temp_name(o->target, attempt);
		if (!o->temp)
			return ENOMEM;
		/* 0666: the umask applies, as to a file fopen() makes */
		int fd = open(o->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			if (keep)
				(void)fchmod(fd, keep->st_mode & 07777); /* best effort */
			o->f = fdopen(fd, "wb");
			if (o->f)
				return 0;
			int e = errno;
			close(fd);
			unlink(o->temp);
			return e;
		}
		free(o->temp);
		o->temp = NULL;
		if (errno != EEXIST)
			return errno;
	}
	return EEXIST;
}

/* Open o->target: through a temporary file when it is a regular file or
 * absent, in place when it is a device or FIFO.  0 or an errno. */
static int open_target(pd_outfile *o)
{
	struct stat st;
	if (stat(o->target, &st) < 0)
		return errno == ENOENT ? open_temp(o, NULL) : errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode)) {
		o->f = fopen(o->target, "wb");
		return o->f ? 0 : errno;
	}
	/* a file its owner made read-only is not replaced behind their back */
	if (faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS) < 0)
		return errno;
	return open_temp(o, &st);
}

int pd_outfile_open(pd_outfile **out, const char *path, pd_error *err)
{
	if (!out || !path || !path[0])
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no path given");
	*out = NULL;
	pd_outfile *o = calloc(1, sizeof *o);
	if (o) {
		o->shown = strdup(path);
		o->target = resolve_links(path);
	}
	if (!o || !o->shown || !o->target) {
		outfile_free(o);
		return pd_error_set(err, PD_ENOMEM, path, PD_NO_OFFSET, "out of memory");
	}
	int e = open_target(o);
	if (e) {
		outfile_free(o);
		return pd_error_set(err, e == ENOMEM ? PD_ENOMEM : PD_EIO, path, PD_NO_OFFSET,
				    "cannot write: %s", strerror(e));
	}
	*out = o;
	return 0;
}

FILE *pd_outfile_stream(pd_outfile *o)
{
	return o ? o->f : NULL;
}

const char *pd_outfile_temp_path(const pd_outfile *o)
{
	return o ? o->temp : NULL;
}

/* Flush, fsync and close the stream: 0 or an errno. */
static int finish_stream(pd_outfile *o)
{
	int e = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	if (!e && o->temp && fsync(fileno(o->f)) < 0)
		e = errno;
	errno = 0;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	return e;
}

int pd_outfile_commit(pd_outfile *o, pd_error *err)
{
	if (!o)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no output given");
	errno = 0;
	int e = finish_stream(o);
	if (!e && o->temp && rename(o->temp, o->target) < 0)
		e = errno;
	if (e && o->temp)
		unlink(o->temp);
	int rc = e ? pd_error_set(err, PD_EIO, o->shown, PD_NO_OFFSET, "cannot write: %s",
				  strerror(e))
		   : 0;
	outfile_free(o);
	return rc;
}

void pd_outfile_abort(pd_outfile *o)
{
	if (!o)
		return;
	if (o->f)
		fclose(o->f);
	if (o->temp)
		unlink(o->temp);
	outfile_free(o);
}

/* ------------------------------------------------------------ inputs */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Whether `out` is a file of the directory `dir` (a `perf record
 * --threads` recording: its `data` and `data.N`). */
static bool in_directory(const char *dir, const struct stat *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool hit = false;
	struct dirent *e;
	while (!hit && (e = readdir(d))) {
		struct stat st;
		hit = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		      fstatat(dirfd(d), e->d_name, &st, 0) == 0 && same_file(&st, out);
	}
	closedir(d);
	return hit;
}

/* Whether input `in` ("-": standard input) is the file `out`. */
static bool is_input(const char *in, const struct stat *out)
{
	struct stat st;
	if (strcmp(in, "-") == 0)
		return fstat(STDIN_FILENO, &st) == 0 && same_file(&st, out);
	if (stat(in, &st) < 0)
		return false; /* its reader says why it cannot be read */
	return same_file(&st, out) || (S_ISDIR(st.st_mode) && in_directory(in, out));
}

int pd_outfile_check(const char *path, const char *const *inputs, size_t n, pd_error *err)
{
	if (!path || (n && !inputs))
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no path given");
	struct stat out;
	if (stat(path, &out) < 0)
		return 0; /* nothing there yet, so no input */
	for (size_t i = 0; i < n; i++) {
		if (!inputs[i] || !is_input(inputs[i], &out))
			continue;
		if (strcmp(inputs[i], "-") == 0)
			return pd_error_set(err, PD_EINVAL, path, PD_NO_OFFSET,
					    "is the input (standard input); not overwriting it");
		if (strcmp(inputs[i], path) == 0)
			return pd_error_set(err, PD_EINVAL, path, PD_NO_OFFSET,
					    "is an input; not overwriting it");
		return pd_error_set(err, PD_EINVAL, path, PD_NO_OFFSET,
				    "is the input %s (the same file); not overwriting it",
				    inputs[i]);
	}
	return 0;
}
