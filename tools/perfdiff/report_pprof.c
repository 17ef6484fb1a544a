/*
 * `perfdiff report --format=pprof`: each FILE folded and written as a
 * gzipped pprof profile (perfdiff/pprof.h), so that a run recorded here
 * can be diffed elsewhere without its binaries, or read by go tool pprof
 * and the profiling servers.  One FILE goes to -o FILE (or standard
 * output when it is not a terminal); several go to -o DIR/, one
 * DIR/N-NAME.pb.gz each, or with --merge into one profile of their sum.
 * As every output (cli_outfile.c), the files are written whole or not at
 * all, and all of them or none: each goes to a temporary file, and they
 * are renamed into place once every export has been written.
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

/* DIR/N-NAME.pb.gz for input `in`, the Nth FILE (from 1), NAME its file
 * name ("stdin" for "-"); DIR/merged.pb.gz for `in` NULL.  The number
 * keeps runs apart whose files have one name (lkp/r1/perf.data,
 * lkp/r2/perf.data): no two FILEs can get one name. */
static char *out_name(const char *dir, size_t n_th, const char *in)
{
	const char *base = !in ? "merged" : strcmp(in, "-") == 0 ? "stdin" : in;
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		n--;
	const char *slash = memrchr(base, '/', n - 1 ? n - 1 : 1);
	if (slash) {
		n -= (size_t)(slash + 1 - base);
		base = slash + 1;
	}
	char *s, num[24] = "";
	if (in)
		snprintf(num, sizeof num, "%zu-", n_th);
	size_t dn = strlen(dir);
	const char *sep = dn && dir[dn - 1] == '/' ? "" : "/";
	return asprintf(&s, "%s%s%s%.*s.pb.gz", dir, sep, num, (int)n, base) < 0 ? NULL : s;
}

/* The inputs folded into one profile: 0, or -1 after the error. */
static int fold(const report_pprof_args *a, const char *const *in, size_t n, pd_profile **out)
{
	pd_error err;
	memset(&err, 0, sizeof err);
	pd_profile_options po = *a->popts;
	po.warn = cli_warns_sink;
	po.warn_ctx = a->warns;
	if (pd_profile_new(out, &po, &err) < 0) {
		cli_error("%s", err.message);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		int rc = pd_profile_add_input(*out, in[i], &err);
		if (rc < 0) {
			cli_print_pd_error(in[i], &err);
			return -1;
		}
	}
	return 0;
}

/* One export: the inputs it folds and where it goes. */
typedef struct export {
	const char *const *in;
	size_t n;
	char *path;        /* NULL: standard output */
	pd_outfile *file;  /* while it is written */
} export;

/* The inputs of `e` folded and written to `f`: 0, or -1 after the error. */
static int write_one(const report_pprof_args *a, const export *e, FILE *f)
{
	pd_profile *p = NULL;
	int rc = fold(a, e->in, e->n, &p);
	if (rc < 0) {
		pd_profile_free(p);
		return -1;
	}
	pd_pprof_write_options o;
	if (cli_options_init_rc(pd_pprof_write_options_init(&o, PD_PPROF_WRITE_OPTIONS_VERSION),
				"pd_pprof_write_options") < 0) {
		pd_profile_free(p);
		return -1;
	}
	o.comments = a->comments;
	o.ncomments = a->ncomments;
	pd_error err;
	memset(&err, 0, sizeof err);
	rc = pd_profile_write_pprof(p, f, &o, &err);
	pd_profile_free(p);
	if (rc < 0)
		cli_error("%s: %s", e->path ? e->path : "standard output", err.message);
	return rc < 0 ? -1 : 0;
}

/* The exports `-o` and --merge ask for, in e[] (room for npaths): how
 * many, or 0 after the error. */
static size_t plan(const report_pprof_args *a, bool dir, export *e)
{
	if (a->npaths > 1 && !a->merge && !dir) {
		cli_usage_error("report", "--format=pprof with several FILEs writes one file each "
			       "into -o DIR/, or one of their sum with --merge");
		return 0;
	}
	size_t n = a->merge || !dir ? 1 : a->npaths;
	for (size_t i = 0; i < n; i++) {
		e[i].in = n == 1 ? a->paths : a->paths + i;
		e[i].n = n == 1 ? a->npaths : 1;
		if (dir)
			e[i].path = out_name(a->out_path, i + 1, n == 1 ? NULL : e[i].in[0]);
		else if (a->out_path)
			e[i].path = strdup(a->out_path);
		if (a->out_path && !e[i].path) {
			cli_error("out of memory");
			return 0;
		}
	}
	return n;
}

/* Where the exports go, checked before anything is opened or made: none
 * is an input, standard output is no terminal, -o DIR/ exists (made
 * when it is not there yet).  0, or -1 after the error. */
static int check_all(const report_pprof_args *a, const export *e, size_t n, bool dir)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].path && cli_out_check(e[i].path, a->paths, a->npaths) < 0)
			return -1;
	if (!e[0].path && isatty(STDOUT_FILENO)) {
		cli_error("pprof is binary: give -o FILE rather than a terminal");
		return -1;
	}
	if (dir && mkdir(a->out_path, 0777) < 0 && errno != EEXIST) {
		cli_error("%s: cannot make the directory: %s", a->out_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Every export's file opened: 0, or -1 after the error (none left open).
 * On a signal the first says "not written" for them all. */
static int open_all(export *e, size_t n, const char *shown)
{
	for (size_t i = 0; i < n; i++) {
		if (e[i].path && !(e[i].file = cli_out_open(e[i].path, i ? NULL : shown))) {
			while (i--)
				cli_out_abort(e[i].file, NULL);
			return -1;
		}
	}
	return 0;
}

/* Each export folded and written; all renamed into place at the end, or
 * none when one fails.  0, or -1 after the errors. */
static int write_all(const report_pprof_args *a, export *e, size_t n, const char *shown)
{
	size_t done = 0;
	while (done < n) {
		FILE *f = e[done].file ? pd_outfile_stream(e[done].file) : stdout;
		if (write_one(a, &e[done], f) < 0)
			break;
		done++;
	}
	int rc = done == n ? 0 : -1;
	bool kept = false;  /* a file that the failure leaves as it was */
	for (size_t i = 0; i < n; i++) {
		kept |= e[i].file && pd_outfile_temp_path(e[i].file);
		if (rc == 0 && e[i].file)
			rc = cli_out_commit(e[i].file);
		else
			cli_out_abort(e[i].file, NULL);
		e[i].file = NULL;
	}
	if (rc < 0 && shown && kept)
		cli_error("%s: output not written", shown);
	return rc;
}

int report_pprof(const report_pprof_args *a)
{
	bool dir = is_dir(a->out_path);
	export *e = calloc(a->npaths, sizeof *e);
	if (!e) {
		cli_error("out of memory");
		return CLI_EXIT_ERROR;
	}
	size_t n = plan(a, dir, e);
	int rc = n ? check_all(a, e, n, dir) : -1;
	if (rc == 0)
		rc = open_all(e, n, a->out_path);
	if (rc == 0)
		rc = write_all(a, e, n, a->out_path);
	for (size_t i = 0; i < a->npaths; i++)
		free(e[i].path);
	free(e);
	return rc < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
