/*
 * `perfdiff report --format=pprof`: each FILE folded and written as a
 * gzipped pprof profile (perfdiff/pprof.h), so that a run recorded here
 * can be diffed elsewhere without its binaries, or read by go tool pprof
 * and the profiling servers.  One FILE goes to -o FILE (or standard
 * output when it is not a terminal); several go to -o DIR/, one
 * DIR/NAME.pb.gz each, or with --merge into one profile of their sum.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

static bool is_dir(const char *path)
{
	struct stat st;
	size_t n = path ? strlen(path) : 0;
	return n && (path[n - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)));
}

/* DIR/NAME.pb.gz for input `in` (its file name; "stdin" for "-"). */
static char *out_name(const char *dir, const char *in)
{
	const char *base = strcmp(in, "-") == 0 ? "stdin" : in;
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		n--;
	const char *slash = memrchr(base, '/', n - 1 ? n - 1 : 1);
	if (slash) {
		n -= (size_t)(slash + 1 - base);
		base = slash + 1;
	}
	char *s;
	size_t dn = strlen(dir);
	const char *sep = dn && dir[dn - 1] == '/' ? "" : "/";
	return asprintf(&s, "%s%s%.*s.pb.gz", dir, sep, (int)n, base) < 0 ? NULL : s;
}

/* The inputs folded into one profile: 0, or -1 after the error. */
static int fold(const report_pprof_args *a, const char *const *in, size_t n, pd_profile **out)
{
	pd_error err;
	memset(&err, 0, sizeof err);
	if (pd_profile_new(out, a->popts, &err) < 0) {
		cli_error("%s", err.message);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t from = pd_profile_warning_count(*out);
		int rc = pd_profile_add_input(*out, in[i], &err);
		for (size_t k = from; k < pd_profile_warning_count(*out); k++)
			cli_warns_add(a->warns, in[i], pd_profile_warning_kind(*out, k),
				      pd_profile_warning(*out, k));
		if (rc < 0) {
			cli_print_pd_error(in[i], &err);
			return -1;
		}
	}
	return 0;
}

/* The profile to `path` (NULL: standard output): 0, or -1 after the error. */
static int write_one(const report_pprof_args *a, pd_profile *p, const char *path)
{
	if (!path && isatty(STDOUT_FILENO)) {
		cli_error("pprof is binary: give -o FILE rather than a terminal");
		return -1;
	}
	FILE *f = path ? fopen(path, "wb") : stdout;
	if (!f) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	pd_pprof_write_options o;
	pd_pprof_write_options_init(&o);
	o.comments = a->comments;
	o.ncomments = a->ncomments;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_profile_write_pprof(p, f, &o, &err);
	if (f != stdout && fclose(f) != 0 && rc == 0) {
		snprintf(err.message, sizeof err.message, "%s", strerror(errno));
		rc = PD_EIO;
	}
	if (rc < 0)
		cli_error("%s: %s", path ? path : "standard output", err.message);
	return rc < 0 ? -1 : 0;
}

/* Inputs in[0..n) to one output. */
static int one_output(const report_pprof_args *a, const char *const *in, size_t n,
		      const char *path)
{
	pd_profile *p = NULL;
	int rc = fold(a, in, n, &p);
	if (rc == 0)
		rc = write_one(a, p, path);
	pd_profile_free(p);
	return rc;
}

int report_pprof(const report_pprof_args *a)
{
	bool dir = is_dir(a->out_path);
	/* -o DIR/ names a directory, made when it is not there yet */
	if (dir && mkdir(a->out_path, 0777) < 0 && errno != EEXIST) {
		cli_error("%s: cannot make the directory: %s", a->out_path, strerror(errno));
		return CLI_EXIT_ERROR;
	}
	if (a->npaths > 1 && !a->merge && !dir) {
		cli_usage_error("report", "--format=pprof with several FILEs writes one file each "
			       "into -o DIR/, or one of their sum with --merge");
		return CLI_EXIT_ERROR;
	}
	if (a->merge || !dir) {
		char *path = dir ? out_name(a->out_path, "merged") : NULL;
		int rc = one_output(a, a->paths, a->npaths, dir ? path : a->out_path);
		free(path);
		return rc < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
	}
	for (size_t i = 0; i < a->npaths; i++) {
		char *path = out_name(a->out_path, a->paths[i]);
		int rc = path ? one_output(a, a->paths + i, 1, path) : -1;
		free(path);
		if (rc < 0)
			return CLI_EXIT_ERROR;
	}
	return CLI_EXIT_OK;
}
