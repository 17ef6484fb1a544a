/*
 * The labelled catalogue of diff cases (tests/diffcases/, README.md
 * there): every case is a declarative .case file naming a workload, how
 * to build and record it (one program with `perf record -g`, or the whole
 * machine with `perf record -a -g` beside background load), how each side
 * is read, and what a right diff says: the relations it must report, the
 * traps it must not, how many rows may be significant.  This suite records
 * every case at test time, checks with `perf script` (the independent
 * oracle) that the recordings really have the shape the case claims,
 * diffs them through the public API (pd_profile_new / pd_profile_add_file
 * per side, each side with its own options, then pd_diff_new) and scores
 * the relations strictly: a reported relation that is no `must` of its
 * case (nor an `allow`) is a false positive.
 *
 * One check test per case, each in a TCase named after it (so
 * `CK_RUN_CASE=rename build/tests/test_diffcases` runs one case), then a
 * summary that prints every case's result and the precision and recall
 * of relations over the whole catalogue, and fails below 100 % / 100 %.
 * Results pass from the case tests to the summary through files, since
 * check runs each test in a child process.  Recordings are made lazily,
 * once per case, in a temporary folder (PD_DIFFCASES_LAB=DIR: that folder,
 * kept, its recordings reused on the next run; PD_DIFFCASES_KEEP=1 keeps
 * the temporary one).
 *
 * A Go case (`build: go`) is built with the Go toolchain, its compiler's
 * inlining decisions (-m) kept beside the build: they are the oracle that
 * an inlined relation's callee really was inlined, and perf script's
 * samples the one for which functions vanished (`inlined-share`).
 *
 * Skips: the whole suite without perf or cc; system-wide cases where
 * `perf record -a` is refused (perf_event_paranoid, not root), taskset is
 * missing or there is a single CPU; a case whose own requirement is
 * missing says why.
 */
#include "testutil.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perfdiff/diff.h"

#define CASE_DIR PD_TEST_DATA_DIR "/../diffcases"
#define PATHMAX 4200
#define LINEMAX 512
#define NAMEMAX 128
#define MAXRUNS 3
#define MAXLABELS 8
#define MAXSYMS 4
#define MAXSHAPES 6
#define MAXCASES 64
/* as test_diff: -O0 keeps every frame, noinline/always_inline still hold */
#define DEFAULT_CFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"
#define DEFAULT_MS 350
#define SYS_CPU "1"       /* the measured program's CPU in system-wide recipes */
#define LOAD_MS "100000"  /* background load runs until killed */

/* ------------------------------------------------------------ a case */

/* One relation as a label: kind, symbols of each side, optionally the
 * parents and the dso's basename. */
typedef struct rel_label {
	pd_diff_relation_kind kind;
	char sym[2][MAXSYMS][NAMEMAX];  /* [0] base side, [1] new side */
	size_t nsym[2];
	char parent[2][NAMEMAX];        /* "" = any */
	char dso[NAMEMAX];              /* "" = any */
	char text[LINEMAX];             /* as written */
	char why[LINEMAX];              /* allow: the comment */
} rel_label;

enum shape_kind { SHAPE_CALLS, SHAPE_SHARE, SHAPE_SAMPLED, SHAPE_RATIO, SHAPE_GAIN };

/* A labelled change: the row (metric, symbol) the new build really moved,
 * which the diff must flag significant (`must`) or which counts only in
 * the catalogue's power (`may`: a change too small to require). */
typedef struct change_label {
	pd_diff_metric metric;
	char sym[NAMEMAX];
	bool must;
	char text[LINEMAX];
} change_label;

/* A claim about the recordings, checked on `perf script` output. */
typedef struct shape {
	enum shape_kind kind;
	int side;            /* 0 base, 1 new, 2 both */
	char a[NAMEMAX], b[NAMEMAX];
	double min, max;     /* percent */
	char text[LINEMAX];
} shape;

typedef struct side_spec {
	char cflags[LINEMAX];       /* appended to the case's cflags */
	char binary[NAMEMAX];       /* path under the case's folder */
	char load[MAXRUNS][NAMEMAX];
	unsigned pflags, sflags;
} side_spec;

typedef struct dcase {
	char name[NAMEMAX];
	char error[LINEMAX];        /* parse error, or "" */
	char about[LINEMAX];
	bool syswide;
	char source[NAMEMAX];
	size_t runs;
	unsigned ms;
	char cflags[LINEMAX];
	side_spec side[2];
	bool same_build;
	bool fifo;                       /* syswide: the program runs SCHED_FIFO on its CPU */
	char kernel_rename[2][NAMEMAX];  /* kallsyms edit: the names per side */
	char reuse[NAMEMAX];             /* recording: another case's */
	bool swapped;
	rel_label must[MAXLABELS], mustnot[MAXLABELS], allow[MAXLABELS];
	size_t nmust, nmustnot, nallow;
	change_label change[MAXLABELS];
	size_t nchange;
	shape shapes[MAXSHAPES];
	size_t nshapes;
	bool sig_set, sig_pct;
	double sig_max;
	size_t nfail_on;                 /* fail-on: gates and the status each gives */
	double fail_on[MAXLABELS];
	int fail_on_status[MAXLABELS];
	bool has_source, has_runs, has_recorder;
	bool go;                         /* build: go (cflags are the Go compiler's) */
	double inl_min, inl_pct;         /* inlined-share: vanished above MIN, PCT explained */
	bool has_inl;
} dcase;

static struct lab {
	const char *skip;       /* the whole suite */
	const char *sys_skip;   /* system-wide cases */
	char dir[PATHMAX];
	char *tmp;              /* the temporary folder we remove */
	char user_args[128], sys_args[128];
	dcase *cases;
	size_t ncases;
} L;

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : (path ? path : "");
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static bool copy(char *dst, size_t n, const char *src)
{
	return (size_t)snprintf(dst, n, "%s", src) < n;
}

/* snprintf that stops the program where it would cut (paths, commands):
 * a crash fails the test, and main() may call it too, where check's
 * asserts cannot be used. */
__attribute__((format(printf, 3, 4))) static void fmt(char *out, size_t n, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int len = vsnprintf(out, n, f, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= n) {
		fprintf(stderr, "test_diffcases: text too long: %s\n", out);
		abort();
	}
}

/* mkdir -p of the folder `path` is in. */
static void make_parent(const char *path)
{
	char dir[PATHMAX];
	copy(dir, sizeof dir, path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		pd_test_mkdirs(dir);
	}
}

/* ------------------------------------------------------- parsing labels */

static bool kind_of(const char *word, pd_diff_relation_kind *k)
{
	for (int i = 0; pd_diff_relation_kind_name((pd_diff_relation_kind)i); i++)
		if (strcmp(word, pd_diff_relation_kind_name((pd_diff_relation_kind)i)) == 0) {
			*k = (pd_diff_relation_kind)i;
			return true;
		}
	return false;
}

/* "a + b + c" up to the word `stop` (or the end): the symbols of a side. */
static const char *parse_syms(char **save, const char *stop, char out[][NAMEMAX], size_t *n,
			      char **next)
{
	*n = 0;
	bool want_sym = true;
	char *w;
	while ((w = strtok_r(NULL, " \t", save)) && !(stop && strcmp(w, stop) == 0) &&
	       strcmp(w, "parents") != 0 && strcmp(w, "in") != 0) {
		if (!want_sym && strcmp(w, "+") == 0) {
			want_sym = true;
			continue;
		}
		if (!want_sym || *n == MAXSYMS || !copy(out[*n], NAMEMAX, w))
			return "symbols are joined by ' + ' (at most 4)";
		(*n)++;
		want_sym = false;
	}
	*next = w;
	return *n && !want_sym ? NULL : "a side names no symbol";
}

/* "parents P -> Q" and "in DSO", in any order, after the symbols. */
static const char *parse_tail(rel_label *l, char **save, char *w)
{
	for (; w; w = strtok_r(NULL, " \t", save)) {
		if (strcmp(w, "in") == 0) {
			char *d = strtok_r(NULL, " \t", save);
			if (!d || !copy(l->dso, NAMEMAX, d))
				return "'in' wants a dso";
		} else if (strcmp(w, "parents") == 0) {
			char *p = strtok_r(NULL, " \t", save), *arrow = strtok_r(NULL, " \t", save);
			char *q = strtok_r(NULL, " \t", save);
			if (!p || !q || !arrow || strcmp(arrow, "->") != 0 ||
			    !copy(l->parent[0], NAMEMAX, p) || !copy(l->parent[1], NAMEMAX, q))
				return "'parents' wants 'BASE_PARENT -> NEW_PARENT'";
		} else {
			return "after the symbols only 'parents P -> Q' and 'in DSO'";
		}
	}
	return NULL;
}

/* KIND SYMS -> SYMS [parents P -> Q] [in DSO] */
static const char *parse_label(rel_label *l, const char *value)
{
	memset(l, 0, sizeof *l);
	copy(l->text, LINEMAX, value);
	char buf[LINEMAX], *save = NULL, *next = NULL;
	copy(buf, sizeof buf, value);
	char *w = strtok_r(buf, " \t", &save);
	if (!w || !kind_of(w, &l->kind))
		return "a relation starts with its kind (renamed, inlined, outlined, split, "
		       "merged, moved)";
	const char *why = parse_syms(&save, "->", l->sym[0], &l->nsym[0], &next);
	if (why)
		return why;
	if (!next || strcmp(next, "->") != 0)
		return "a relation reads 'KIND BASE... -> NEW...'";
	why = parse_syms(&save, NULL, l->sym[1], &l->nsym[1], &next);
	return why ? why : parse_tail(l, &save, next);
}

/* ------------------------------------------------------- parsing shapes */

static const char *parse_side(const char *w, int *side)
{
	*side = !w ? -1 : strcmp(w, "base") == 0 ? 0 : strcmp(w, "new") == 0 ? 1
						     : strcmp(w, "both") == 0 ? 2 : -1;
	return *side < 0 ? "a shape starts with base, new or both" : NULL;
}

/*
 * SIDE calls CALLEE CALLER [PCT]   of the program's samples with CALLEE
 *                                  (not outermost), >= PCT % (90) have
 *                                  CALLER as the next outer frame
 * SIDE share COMM MIN MAX          every run: COMM's share of all samples
 *                                  ("program": the measured program's)
 * SIDE ratio COMM MIN MAX          COMM's mean share on SIDE over its mean
 *                                  share on the other side
 * SIDE sampled SYMBOL DSO MIN      every run: >= MIN % of all samples pass
 *                                  through SYMBOL of dso DSO (basename)
 * new gain SYMBOL MIN MAX          SYMBOL's mean self share (leaf frame) of
 *                                  the program's samples on the new side
 *                                  minus the base's, in points: what the
 *                                  build changed, whatever else ran
 */
static const char *parse_shape(shape *s, const char *value)
{
	static const char usage[] = "shape: SIDE calls CALLEE CALLER [PCT] | SIDE share COMM "
				    "MIN MAX | SIDE ratio COMM MIN MAX | SIDE sampled SYMBOL DSO MIN "
				    "| new gain SYMBOL MIN MAX";
	memset(s, 0, sizeof *s);
	copy(s->text, LINEMAX, value);
	char side[16] = "", kind[16] = "", w3[NAMEMAX] = "", w4[32] = "";
	int n = sscanf(value, "%15s %15s %127s %127s %31s", side, kind, s->a, w3, w4);
	if (parse_side(side, &s->side))
		return usage;
	char *end = NULL;
	if (strcmp(kind, "calls") == 0 && (n == 4 || n == 5)) {
		s->kind = SHAPE_CALLS;
		copy(s->b, NAMEMAX, w3);
		s->min = n == 5 ? strtod(w4, &end) : 90;
		return n == 4 || *end == '\0' ? NULL : usage;
	}
	if (strcmp(kind, "sampled") == 0 && n == 5) {
		s->kind = SHAPE_SAMPLED;
		copy(s->b, NAMEMAX, w3);
		s->min = strtod(w4, &end);
		return *end == '\0' ? NULL : usage;
	}
	char extra;
	bool ratio = strcmp(kind, "ratio") == 0, gain = strcmp(kind, "gain") == 0;
	if ((ratio || gain || strcmp(kind, "share") == 0) && n == 5 &&
	    sscanf(value, "%*s %*s %*s %lf %lf %c", &s->min, &s->max, &extra) == 2) {
		s->kind = ratio ? SHAPE_RATIO : gain ? SHAPE_GAIN : SHAPE_SHARE;
		if (gain && s->side != 1)
			return "a gain shape reads 'new gain SYMBOL MIN MAX'";
		return ratio && s->side == 2 ? "a ratio shape names one side" : NULL;
	}
	return usage;
}

/* ------------------------------------------------------ parsing a case */

typedef const char *(*key_fn)(dcase *c, int side, char *val, const char *comment);

static const char *k_about(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	return copy(c->about, LINEMAX, val) ? NULL : "too long";
}

static const char *k_source(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	c->has_source = true;
	return copy(c->source, NAMEMAX, val) ? NULL : "too long";
}

static const char *k_recorder(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	c->has_recorder = true;
	c->syswide = strcmp(val, "syswide") == 0;
	return c->syswide || strcmp(val, "user") == 0 ? NULL : "recorder: user or syswide";
}

static const char *k_runs(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	char *end;
	long n = strtol(val, &end, 10);
	c->runs = (size_t)n;
	c->has_runs = true;
	return *end == '\0' && n >= 1 && n <= MAXRUNS ? NULL : "runs: 1 to 3";
}

static const char *k_ms(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	char *end;
	long n = strtol(val, &end, 10);
	c->ms = (unsigned)n;
	return *end == '\0' && n >= 100 && n <= 2000 ? NULL : "ms: 100 to 2000";
}

static const char *k_cflags(dcase *c, int side, char *val, const char *comment)
{
	(void)comment;
	/* cflags: both builds; base-/new-cflags: what one side adds to them */
	char *dst = side >= 0 ? c->side[side].cflags : c->cflags;
	return copy(dst, LINEMAX, val) ? NULL : "too long";
}

static const char *k_binary(dcase *c, int side, char *val, const char *comment)
{
	(void)comment;
	if (val[0] == '/' || strstr(val, ".."))
		return "binary: a path under the case's folder";
	for (int s = 0; s < 2; s++)
		if ((side < 0 || side == s) && !copy(c->side[s].binary, NAMEMAX, val))
			return "too long";
	return NULL;
}

/* One run's load: "none", or items KIND@CPU joined by '+'. */
static bool load_ok(const char *l)
{
	if (strcmp(l, "none") == 0)
		return true;
	char buf[NAMEMAX], *save = NULL;
	copy(buf, sizeof buf, l);
	for (char *w = strtok_r(buf, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
		unsigned cpu;
		char kind[16], extra;
		if (sscanf(w, "%15[a-z]@%u%c", kind, &cpu, &extra) != 2 || cpu > 1 ||
		    (strcmp(kind, "burn") != 0 && strcmp(kind, "dd") != 0))
			return false;
	}
	return true;
}

/* Comma-separated, one per run, cycled when shorter than the runs. */
static const char *k_load(dcase *c, int side, char *val, const char *comment)
{
	(void)comment;
	char *save = NULL, *items[MAXRUNS];
	size_t n = 0;
	for (char *w = strtok_r(val, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (n == MAXRUNS || !load_ok(trim(w)))
			return "load: up to 3 of none | burn@CPU | dd@CPU (CPU 0 or 1, items "
			       "joined by '+'), comma-separated";
		items[n++] = trim(w);
	}
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; n && r < MAXRUNS && (side < 0 || side == s); r++)
			copy(c->side[s].load[r], NAMEMAX, items[r % n]);
	return n ? NULL : "load: empty";
}

static const char *k_options(dcase *c, int side, char *val, const char *comment)
{
	(void)comment;
	char *save = NULL;
	for (char *w = strtok_r(val, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		unsigned pf = 0, sf = 0;
		if (strcmp(w, "no-inline") == 0)
			sf = PD_SESSION_NO_INLINE;
		else if (strcmp(w, "perf-compat") == 0)
			sf = PD_SESSION_PERF_COMPAT;
		else if (strcmp(w, "keep-suffixes") == 0)
			pf = PD_PROFILE_KEEP_SUFFIXES;
		else if (strcmp(w, "hide-unresolved") == 0)
			pf = PD_PROFILE_HIDE_UNRESOLVED;
		else
			return "options: no-inline perf-compat keep-suffixes hide-unresolved";
		for (int s = 0; s < 2; s++)
			if (side < 0 || side == s) {
				c->side[s].pflags |= pf;
				c->side[s].sflags |= sf;
			}
	}
	return NULL;
}

static const char *k_same_build(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	c->same_build = strcmp(val, "yes") == 0;
	return c->same_build || strcmp(val, "no") == 0 ? NULL : "same-build: yes or no";
}

static const char *k_priority(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	c->fifo = strcmp(val, "fifo") == 0;
	return c->fifo || strcmp(val, "normal") == 0 ? NULL : "priority: normal or fifo";
}

static const char *k_kernel_rename(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	char extra[8];
	int n = sscanf(val, "%127s %127s %7s", c->kernel_rename[0], c->kernel_rename[1], extra);
	return n == 2 ? NULL : "kernel-rename: BASE_NAME NEW_NAME";
}

static const char *k_recording(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	char how[16] = "";
	int n = sscanf(val, "%127s %15s", c->reuse, how);
	c->swapped = n == 2 && strcmp(how, "swapped") == 0;
	return n == 1 || c->swapped ? NULL : "recording: CASE [swapped]";
}

static const char *k_shape(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	if (c->nshapes == MAXSHAPES)
		return "too many shapes";
	return parse_shape(&c->shapes[c->nshapes++], val);
}

static const char *k_must(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	return c->nmust == MAXLABELS ? "too many" : parse_label(&c->must[c->nmust++], val);
}

static const char *k_mustnot(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	return c->nmustnot == MAXLABELS ? "too many"
					: parse_label(&c->mustnot[c->nmustnot++], val);
}

static const char *k_allow(dcase *c, int side, char *val, const char *comment)
{
	(void)side;
	if (c->nallow == MAXLABELS)
		return "too many";
	rel_label *l = &c->allow[c->nallow++];
	const char *why = parse_label(l, val);
	if (!why && (!comment || !*comment))
		return "allow: needs a comment saying why (# ...)";
	copy(l->why, LINEMAX, comment ? comment : "");
	return why;
}

/* change: METRIC SYMBOL [must|may] */
static const char *k_change(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	static const char usage[] = "change: METRIC SYMBOL [must | may] (METRIC self, children or "
				    "calltrace)";
	if (c->nchange == MAXLABELS)
		return "too many";
	change_label *l = &c->change[c->nchange++];
	char metric[16] = "", how[8] = "must", extra;
	int n = sscanf(val, "%15s %127s %7s %c", metric, l->sym, how, &extra);
	copy(l->text, LINEMAX, val);
	l->must = strcmp(how, "must") == 0;
	for (int m = 0; m <= PD_DIFF_SELF; m++)
		if (strcmp(metric, str(pd_diff_metric_name((pd_diff_metric)m))) == 0) {
			l->metric = (pd_diff_metric)m;
			return (n == 2 || n == 3) && (l->must || strcmp(how, "may") == 0) ? NULL
											 : usage;
		}
	return usage;
}

static const char *k_build(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	c->go = strcmp(val, "go") == 0;
	return c->go || strcmp(val, "cc") == 0 ? NULL : "build: cc or go";
}

/* inlined-share: MIN PCT */
static const char *k_inlined_share(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	char extra;
	c->has_inl = true;
	return sscanf(val, "%lf %lf %c", &c->inl_min, &c->inl_pct, &extra) == 2 &&
			       c->inl_min > 0 && c->inl_pct >= 0 && c->inl_pct <= 100
		       ? NULL
		       : "inlined-share: MIN_PERCENT SHARE_PERCENT";
}

static const char *k_sigmax(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	char *end;
	c->sig_max = strtod(val, &end);
	c->sig_pct = *end == '%';
	c->sig_set = true;
	end += c->sig_pct;
	return *end == '\0' && c->sig_max >= 0 ? NULL : "significant-max: N or N%";
}

static const char *k_fail_on(dcase *c, int side, char *val, const char *comment)
{
	(void)side, (void)comment;
	char extra;
	if (c->nfail_on == MAXLABELS)
		return "fail-on: too many";
	size_t i = c->nfail_on++;
	return sscanf(val, "%lf -> %d %c", &c->fail_on[i], &c->fail_on_status[i], &extra) == 2
		       ? NULL
		       : "fail-on: POINTS -> EXIT_STATUS";
}

static const struct {
	const char *key;
	key_fn fn;
	bool per_side;
} KEYS[] = {
	{ "about", k_about, false },         { "source", k_source, false },
	{ "recorder", k_recorder, false },   { "runs", k_runs, false },
	{ "ms", k_ms, false },               { "cflags", k_cflags, true },
	{ "binary", k_binary, true },        { "load", k_load, true },
	{ "options", k_options, true },      { "same-build", k_same_build, false },
	{ "kernel-rename", k_kernel_rename, false },
	{ "priority", k_priority, false },
	{ "recording", k_recording, false }, { "shape", k_shape, false },
	{ "must", k_must, false },           { "mustnot", k_mustnot, false },
	{ "allow", k_allow, false },         { "significant-max", k_sigmax, false },
	{ "change", k_change, false },
	{ "fail-on", k_fail_on, false },
	{ "build", k_build, false },         { "inlined-share", k_inlined_share, false },
};

/* "base-KEY" / "new-KEY": the side, and the key without its prefix. */
static const char *side_key(const char *key, int *side)
{
	*side = -1;
	if (strncmp(key, "base-", 5) == 0) {
		*side = 0;
		return key + 5;
	}
	if (strncmp(key, "new-", 4) == 0) {
		*side = 1;
		return key + 4;
	}
	return key;
}

static const char *parse_line(dcase *c, char *line)
{
	/* '#' after a blank (or at the start) begins a comment */
	char *comment = NULL;
	for (char *p = line; *p && !comment; p++)
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			comment = trim(p + 1);
		}
	char *colon = strchr(line, ':');
	if (!*trim(line))
		return NULL;
	if (!colon)
		return "a line reads 'key: value'";
	*colon = '\0';
	int side;
	const char *key = side_key(trim(line), &side);
	for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++)
		if (strcmp(key, KEYS[i].key) == 0 && (side < 0 || KEYS[i].per_side))
			return KEYS[i].fn(c, side, trim(colon + 1), comment);
	return "unknown key";
}

static void case_defaults(dcase *c, const char *name)
{
	memset(c, 0, sizeof *c);
	copy(c->name, NAMEMAX, name);
	c->runs = 2;
	c->ms = DEFAULT_MS;
	copy(c->cflags, LINEMAX, DEFAULT_CFLAGS);
	copy(c->side[1].cflags, LINEMAX, "-DPD_NEW");
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < MAXRUNS; r++)
			copy(c->side[s].load[r], NAMEMAX, "none");
}

/* What one case cannot mean, whatever its lines say. */
static const char *case_check(dcase *c)
{
	bool loads = false;
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < MAXRUNS; r++)
			loads |= strcmp(c->side[s].load[r], "none") != 0;
	if (c->reuse[0] && (c->has_source || c->has_runs || c->has_recorder || c->nshapes ||
			    c->kernel_rename[0][0]))
		return "recording: takes the other case's recipe, shapes and kernel edit";
	if (!c->reuse[0] && !c->has_source)
		return "source: missing";
	if (loads && !c->syswide)
		return "load: only with recorder syswide (a user recording would record it)";
	if (c->fifo && !c->syswide)
		return "priority: only with recorder syswide";
	if (c->go && c->syswide)
		return "build: go only with recorder user";
	if (c->go && strcmp(c->cflags, DEFAULT_CFLAGS) == 0)
		c->cflags[0] = '\0';  /* cc's defaults mean nothing to the Go compiler */
	if (c->go && strcmp(c->side[1].cflags, "-DPD_NEW") == 0)
		c->side[1].cflags[0] = '\0';
	if (c->nfail_on && (c->side[0].pflags != c->side[1].pflags ||
			    c->side[0].sflags != c->side[1].sflags))
		return "fail-on: the CLI names frames alike on both sides";
	for (int s = 0; s < 2; s++)
		if (!c->side[s].binary[0]) {
			char stem[NAMEMAX];
			copy(stem, sizeof stem, base_name(c->source));
			char *dot = strrchr(stem, '.');
			if (dot)
				*dot = '\0';
			copy(c->side[s].binary, NAMEMAX, stem);
		}
	return NULL;
}

/* Parse tests/diffcases/<name>.case into c; c->error says what is wrong. */
static void case_parse(dcase *c, const char *name)
{
	case_defaults(c, name);
	char path[PATHMAX];
	snprintf(path, sizeof path, "%s/%s.case", CASE_DIR, name);
	FILE *f = fopen(path, "r");
	if (!f) {
		fmt(c->error, LINEMAX, "cannot read %s", path);
		return;
	}
	char line[LINEMAX * 2];
	for (unsigned no = 1; fgets(line, sizeof line, f) && !c->error[0]; no++) {
		const char *why = parse_line(c, line);
		if (why)
			snprintf(c->error, LINEMAX, "%s.case:%u: %s", name, no, why);
	}
	fclose(f);
	const char *why = c->error[0] ? NULL : case_check(c);
	if (why)
		snprintf(c->error, LINEMAX, "%s.case: %s", name, why);
}

static const dcase *find_case(const char *name)
{
	for (size_t i = 0; i < L.ncases; i++)
		if (strcmp(L.cases[i].name, name) == 0)
			return &L.cases[i];
	return NULL;
}

/* ------------------------------------------------------------ the lab */

/* The case whose recordings `c` reads: itself, or the one it names. */
static const dcase *owner_of(const dcase *c)
{
	return c->reuse[0] ? find_case(c->reuse) : c;
}

/* The owner's side that `c` reads as `side`. */
static int rec_side(const dcase *c, int side)
{
	return c->swapped ? 1 - side : side;
}

static void case_file(const dcase *c, const char *rel, char *out)
{
	fmt(out, PATHMAX, "%s/%s/%s", L.dir, c->name, rel);
}

static void data_path(const dcase *owner, int side, size_t run, char *out)
{
	char rel[64];
	snprintf(rel, sizeof rel, "%s.%zu.data", side ? "new" : "base", run);
	case_file(owner, rel, out);
}

/* The measured program's command name: its file name, as the kernel cuts it. */
static void program_comm(const dcase *owner, int side, char out[16])
{
	snprintf(out, 16, "%.15s", base_name(owner->side[side].binary));
}

static bool uses_burner(const dcase *c)
{
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < c->runs; r++)
			if (strstr(c->side[s].load[r], "burn"))
				return true;
	return false;
}

/* The background program, built once for all cases. */
static bool ensure_burner(char *path)
{
	fmt(path, PATHMAX, "%s/burner/burner", L.dir);
	if (access(path, X_OK) == 0)
		return true;
	make_parent(path);
	return pd_test_compile("cc", DEFAULT_CFLAGS, path, CASE_DIR "/burner.c");
}

/* One background job on `cpu`, its pid in $l<i>. */
static int load_item(char *out, size_t n, const char *kind, unsigned cpu, int i,
		     const char *burner)
{
	if (strcmp(kind, "burn") == 0)
		return snprintf(out, n, "taskset -c %u '%s' " LOAD_MS " & l%d=\\$!; ", cpu, burner, i);
	/* small blocks: the cost is the read/write system calls, in the kernel */
	return snprintf(out, n,
			"taskset -c %u dd if=/dev/zero of=/dev/null bs=512 count=2000000000 "
			"2>/dev/null & l%d=\\$!; ",
			cpu, i);
}

/* Shell text starting run `run`'s background load of `side` (killed when
 * the program ends). */
static bool load_cmd(const dcase *c, int side, size_t run, char *out, size_t n)
{
	char buf[NAMEMAX], *save = NULL, burner[PATHMAX] = "";
	copy(buf, sizeof buf, c->side[side].load[run]);
	size_t len = 0;
	out[0] = '\0';
	int i = 0;
	for (char *w = strtok_r(buf, "+", &save); w; w = strtok_r(NULL, "+", &save), i++) {
		char kind[16];
		unsigned cpu;
		if (sscanf(w, "%15[a-z]@%u", kind, &cpu) != 2)
			continue;  /* "none" */
		if (strcmp(kind, "burn") == 0 && !ensure_burner(burner))
			return false;
		len += (size_t)load_item(out + len, n - len, kind, cpu, i, burner);
		if (len >= n)
			return false;
	}
	return true;
}

/*
 * A Go build of `src` into `out`: `flags` go to the compiler of every
 * package (-gcflags=all=...), with -m, whose inlining decisions are kept
 * in out.log (the oracle of compiler_inlined).  Go writes no GNU build-id
 * of its own: one unique to this build is given to the linker (-B), as
 * the build-id cache needs.  The standard library only, offline
 * (GO111MODULE=off, GOPROXY=off), its cache in the lab.
 */
static bool go_build(int side, const char *flags, const char *out, const char *src)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char cmd[4 * PATHMAX];
	fmt(cmd, sizeof cmd,
	    "GOCACHE='%s/gocache' GO111MODULE=off GOPROXY=off GOFLAGS= go build "
	    "-gcflags='all=-m %s' -ldflags='-B 0x%016llx%08x' -o '%s' '%s' >'%s.log' 2>&1",
	    L.dir, flags, (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec,
	    (unsigned)side + 1, out, src, out);
	return pd_test_sh_ok(cmd);
}

/* build.0 and build.1 in the owner's folder, both in its build-id cache:
 * each side's build is copied to the binary's path before its runs, so a
 * program rebuilt at the same path is read through the cache, as
 * test_diff does. */
static bool build_sides(const dcase *c)
{
	char src[PATHMAX], out[PATHMAX], cache[PATHMAX], flags[2 * LINEMAX + 2];
	snprintf(src, sizeof src, "%s/%s", CASE_DIR, c->source);
	case_file(c, "buildid", cache);
	for (int s = 0; s < (c->same_build ? 1 : 2); s++) {
		snprintf(flags, sizeof flags, "%s %s", c->cflags, c->side[s].cflags);
		case_file(c, s ? "build.1" : "build.0", out);
		if (!(c->go ? go_build(s, flags, out, src) : pd_test_compile("cc", flags, out, src)) ||
		    !pd_test_buildid_cache_add(cache, out))
			return false;
	}
	return true;
}

/* Put `side`'s build at the side's binary path. */
static bool install(const dcase *c, int side)
{
	char build[PATHMAX], bin[PATHMAX], cmd[3 * PATHMAX];
	case_file(c, side && !c->same_build ? "build.1" : "build.0", build);
	case_file(c, c->side[side].binary, bin);
	make_parent(bin);
	fmt(cmd, sizeof cmd, "rm -f '%s' && cp '%s' '%s'", bin, build, bin);
	return pd_test_sh_ok(cmd);
}

static bool record_run(const dcase *c, int side, size_t run)
{
	char data[PATHMAX], bin[PATHMAX], load[4 * PATHMAX], w[6 * PATHMAX];
	data_path(c, side, run, data);
	case_file(c, c->side[side].binary, bin);
	if (!install(c, side))
		return false;
	if (!c->syswide) {
		snprintf(w, sizeof w, "'%s' %u %zu", bin, c->ms, run);
		return pd_test_perf_record(data, L.user_args, w);
	}
	if (!load_cmd(c, side, run, load, sizeof load))
		return false;
	snprintf(w, sizeof w,
		 "sh -c \"%s%staskset -c " SYS_CPU
		 " '%s' %u; kill \\$l0 \\$l1 \\$l2 2>/dev/null; wait\"",
		 load, c->fifo ? "chrt -f 1 " : "", bin, c->ms);
	return pd_test_perf_record(data, L.sys_args, w);
}

/* The runs of both sides interleaved (base 0, new 0, base 1, ...), so
 * that whatever else the machine does drifts over both sides alike. */
static bool record_all(const dcase *c)
{
	for (size_t r = 0; r < c->runs; r++)
		for (int s = 0; s < 2; s++)
			if (!record_run(c, s, r))
				return false;
	if (c->kernel_rename[0][0]) {
		char real[PATHMAX], cmd[PATHMAX + 64];
		case_file(c, "kallsyms.real", real);
		snprintf(cmd, sizeof cmd, "cat /proc/kallsyms > '%s'", real);
		return pd_test_sh_ok(cmd);
	}
	return true;
}

/* ---------------------------------------------- the oracle: perf script */

/* One frame and one sample of `perf script -F comm,tid,ip,sym,dso`,
 * pointing into its text. */
typedef struct oframe {
	const char *sym, *dso;  /* dso: the file name only */
} oframe;

typedef struct osample {
	const char *comm;
	size_t first, n;        /* frames, leaf first */
} osample;

typedef struct orec {
	char *text;
	oframe *f;
	size_t nf, capf;
	osample *s;
	size_t ns, caps;
} orec;

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 1024;
	v = realloc(v, *cap * size);
	ck_assert_ptr_nonnull(v);
	return v;
}

/* "\t    ffffffff81706440 fdget ([kernel.kallsyms])" */
static void orec_frame(orec *o, char *line)
{
	char *p = line;
	strtoull(p, &p, 16);
	while (*p == ' ')
		p++;
	char *open = strrchr(p, '(');
	const char *dso = "";
	if (open && open > p) {
		open[-1] = '\0';
		char *close = strrchr(open, ')');
		if (close)
			*close = '\0';
		dso = base_name(open + 1);
	}
	o->f = grow(o->f, &o->capf, o->nf, sizeof *o->f);
	o->f[o->nf++] = (oframe){ p, dso };
	o->s[o->ns - 1].n++;
}

/* "    diff_rename  1234": the command is all but the last word. */
static void orec_sample(orec *o, char *line)
{
	char *end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	while (end > line && !isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	o->s = grow(o->s, &o->caps, o->ns, sizeof *o->s);
	o->s[o->ns++] = (osample){ trim(line), o->nf, 0 };
}

/* perf script of `data`, binaries found in the build-id cache `cache`. */
static bool orec_load(orec *o, const char *data, const char *cache)
{
	memset(o, 0, sizeof *o);
	char cmd[3 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf --buildid-dir '%s' script -i '%s' -F comm,tid,ip,sym,dso 2>/dev/null", cache,
		 data);
	int st;
	o->text = pd_test_run(cmd, &st);
	if (!o->text || st != 0)
		return false;
	for (char *p = o->text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (*p == '\t' && o->ns)
			orec_frame(o, p + 1);
		else if (*p && *p != '\t')
			orec_sample(o, p);
	}
	return o->ns > 0;
}

static void orec_free(orec *o)
{
	free(o->text);
	free(o->f);
	free(o->s);
	memset(o, 0, sizeof *o);
}

static const oframe *frame_at(const orec *o, const osample *s, size_t i)
{
	return &o->f[s->first + i];
}

/* Of `comm`'s samples whose chain has `callee` below its outermost frame,
 * how many have `caller` right after it (callee order). */
static void count_calls(const orec *o, const char *comm, const shape *sh, size_t *hit,
			size_t *total)
{
	for (size_t i = 0; i < o->ns; i++) {
		const osample *s = &o->s[i];
		if (strcmp(s->comm, comm) != 0)
			continue;
		for (size_t k = 0; k + 1 < s->n; k++)
			if (strcmp(frame_at(o, s, k)->sym, sh->a) == 0) {
				(*total)++;
				*hit += strcmp(frame_at(o, s, k + 1)->sym, sh->b) == 0;
				break;
			}
	}
}

/* Percent of all samples of command `comm`. */
static double comm_share(const orec *o, const char *comm)
{
	size_t n = 0;
	for (size_t i = 0; i < o->ns; i++)
		n += strcmp(o->s[i].comm, comm) == 0;
	return o->ns ? 100.0 * (double)n / (double)o->ns : 0;
}

/* Percent of all samples whose chain passes through `sym` of `dso`. */
static double sym_share(const orec *o, const char *sym, const char *dso)
{
	size_t n = 0;
	for (size_t i = 0; i < o->ns; i++) {
		const osample *s = &o->s[i];
		for (size_t k = 0; k < s->n; k++)
			if (strcmp(frame_at(o, s, k)->sym, sym) == 0 &&
			    strcmp(frame_at(o, s, k)->dso, dso) == 0) {
				n++;
				break;
			}
	}
	return o->ns ? 100.0 * (double)n / (double)o->ns : 0;
}

/* Every run's perf script of a case's recordings, read when first used. */
typedef struct oracle {
	const dcase *c;
	orec run[2][MAXRUNS];
	bool tried[2][MAXRUNS], ok[2][MAXRUNS];
} oracle;

static const orec *oracle_run(oracle *o, int side, size_t run)
{
	if (!o->tried[side][run]) {
		char data[PATHMAX], cache[PATHMAX];
		data_path(o->c, side, run, data);
		case_file(o->c, "buildid", cache);
		o->tried[side][run] = true;
		o->ok[side][run] = orec_load(&o->run[side][run], data, cache);
	}
	return o->ok[side][run] ? &o->run[side][run] : NULL;
}

static void oracle_free(oracle *o)
{
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < MAXRUNS; r++)
			orec_free(&o->run[s][r]);
}

static const char *side_name(int side)
{
	return side ? "new" : "base";
}

/* A `calls` shape over all runs of `side`. */
static bool shape_calls(oracle *o, const shape *sh, int side, FILE *msg)
{
	char comm[16];
	program_comm(o->c, side, comm);
	size_t hit = 0, total = 0;
	for (size_t r = 0; r < o->c->runs; r++) {
		const orec *rec = oracle_run(o, side, r);
		if (!rec)
			return false;
		count_calls(rec, comm, sh, &hit, &total);
	}
	double pct = total ? 100.0 * (double)hit / (double)total : 0;
	bool ok = total >= 20 && pct >= sh->min;
	fprintf(msg, "  shape '%s': %s: %zu of %zu %s samples with %s have %s next (%.1f %%)%s\n",
		sh->text, side_name(side), hit, total, comm, sh->a, sh->b, pct,
		ok ? "" : "  NOT MET");
	return ok;
}

/* A `share` or `sampled` shape, run by run. */
static bool shape_runs(oracle *o, const shape *sh, int side, FILE *msg)
{
	char comm[16];
	program_comm(o->c, side, comm);
	const char *who = strcmp(sh->a, "program") == 0 ? comm : sh->a;
	bool ok = true;
	for (size_t r = 0; r < o->c->runs; r++) {
		const orec *rec = oracle_run(o, side, r);
		if (!rec)
			return false;
		double v = sh->kind == SHAPE_SHARE ? comm_share(rec, who) : sym_share(rec, sh->a, sh->b);
		bool in = v >= sh->min && (sh->kind != SHAPE_SHARE || v <= sh->max);
		fprintf(msg, "  shape '%s': %s run %zu: %.1f %% of %zu samples%s\n", sh->text,
			side_name(side), r, v, rec->ns, in ? "" : "  NOT MET");
		ok &= in;
	}
	return ok;
}

/* The mean share of the comm a shape names over the runs of `side`; -1
 * when a run cannot be read. */
static double mean_share(oracle *o, const shape *sh, int side)
{
	char comm[16];
	program_comm(o->c, side, comm);
	double sum = 0;
	for (size_t r = 0; r < o->c->runs; r++) {
		const orec *rec = oracle_run(o, side, r);
		if (!rec)
			return -1;
		sum += comm_share(rec, strcmp(sh->a, "program") == 0 ? comm : sh->a);
	}
	return sum / (double)o->c->runs;
}

/* A `ratio` shape: the mean share on `side` over the other side's. */
static bool shape_ratio(oracle *o, const shape *sh, int side, FILE *msg)
{
	double mine = mean_share(o, sh, side), other = mean_share(o, sh, 1 - side);
	if (mine < 0 || other < 0)
		return false;
	double ratio = other > 0 ? mine / other : 1e9;
	bool ok = ratio >= sh->min && ratio <= sh->max;
	fprintf(msg, "  shape '%s': %s %.1f %% / %s %.1f %% = %.2f%s\n", sh->text, side_name(side),
		mine, side_name(1 - side), other, ratio, ok ? "" : "  NOT MET");
	return ok;
}

/* Percent of command `comm`'s samples whose leaf frame is `sym`. */
static double self_share(const orec *o, const char *comm, const char *sym)
{
	size_t n = 0, all = 0;
	for (size_t i = 0; i < o->ns; i++)
		if (strcmp(o->s[i].comm, comm) == 0) {
			all++;
			n += o->s[i].n && strcmp(frame_at(o, &o->s[i], 0)->sym, sym) == 0;
		}
	return all ? 100.0 * (double)n / (double)all : 0;
}

/* A `gain` shape: the symbol's mean self share of the program on the new
 * side minus the base's, the change the case labels, measured by perf
 * within the program, where other load does not move it. */
static bool shape_gain(oracle *o, const shape *sh, FILE *msg)
{
	double mean[2] = { 0, 0 };
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < o->c->runs; r++) {
			const orec *rec = oracle_run(o, s, r);
			char comm[16];
			program_comm(o->c, s, comm);
			if (!rec)
				return false;
			mean[s] += self_share(rec, comm, sh->a) / (double)o->c->runs;
		}
	double gain = mean[1] - mean[0];
	bool ok = gain >= sh->min && gain <= sh->max;
	fprintf(msg, "  shape '%s': self %.1f %% -> %.1f %% of the program, %+.1f points%s\n",
		sh->text, mean[0],
		mean[1], gain, ok ? "" : "  NOT MET");
	return ok;
}

/* Shape `sh` on `side`: says how it came out on `msg`; true if it holds. */
static bool shape_side(oracle *o, const shape *sh, int side, FILE *msg)
{
	bool ok = sh->kind == SHAPE_CALLS   ? shape_calls(o, sh, side, msg)
		  : sh->kind == SHAPE_RATIO ? shape_ratio(o, sh, side, msg)
		  : sh->kind == SHAPE_GAIN  ? shape_gain(o, sh, msg)
					    : shape_runs(o, sh, side, msg);
	for (size_t r = 0; r < o->c->runs; r++)
		if (o->tried[side][r] && !o->ok[side][r])
			fprintf(msg, "  shape '%s': perf script of %s run %zu failed\n", sh->text,
				side_name(side), r);
	return ok;
}

static bool shapes_hold(oracle *o, FILE *msg)
{
	bool ok = true;
	for (size_t i = 0; i < o->c->nshapes; i++) {
		const shape *sh = &o->c->shapes[i];
		for (int s = 0; s < 2; s++)
			if (sh->side == s || sh->side == 2)
				ok &= shape_side(o, sh, s, msg);
	}
	return ok;
}

/* ------------------------------------------- the kernel rename's kallsyms */

typedef struct kcount {
	const char *name;
	size_t self, children, called;  /* called: leaf samples with a kernel caller */
} kcount;

#define MAXK 512

static kcount *kc_get(kcount *v, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	if (*n == MAXK)
		return NULL;
	v[*n] = (kcount){ name, 0, 0, 0 };
	return &v[(*n)++];
}

static bool is_kernel(const oframe *f)
{
	return strcmp(f->dso, "[kernel.kallsyms]") == 0;
}

/* One sample's kernel frames: self of the leaf, children once each. */
static void kernel_sample(const orec *o, const osample *s, kcount *v, size_t *n)
{
	for (size_t k = 0; k < s->n; k++) {
		const oframe *f = frame_at(o, s, k);
		bool again = false;
		for (size_t j = 0; j < k; j++)
			again |= strcmp(frame_at(o, s, j)->sym, f->sym) == 0;
		kcount *e = is_kernel(f) && !again ? kc_get(v, n, f->sym) : NULL;
		if (!e)
			continue;
		e->children++;
		e->self += k == 0;
		e->called += k == 0 && s->n > 1 && is_kernel(frame_at(o, s, 1));
	}
}

/* Lines of the kallsyms text naming `name` (the third field). */
static size_t kallsyms_count(const char *text, const char *name)
{
	size_t n = 0, len = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *f3 = strchr(p, ' ');
		f3 = f3 ? strchr(f3 + 1, ' ') : NULL;
		if (f3 && strncmp(f3 + 1, name, len) == 0 &&
		    (f3[1 + len] == '\n' || f3[1 + len] == '\t' || f3[1 + len] == '\0'))
			n++;
	}
	return n;
}

/* A candidate the rename may take: mostly self (a leaf, as __fget_light
 * was), at least 2 % of the program's samples, called from the kernel,
 * plainly named and the only symbol of its name. */
static bool kernel_candidate(const kcount *e, size_t samples, const char *ksyms)
{
	return e->self * 50 >= samples && e->self * 10 >= e->children * 8 &&
	       e->called * 2 >= e->self && !strchr(e->name, '.') && e->name[0] != '[' &&
	       strncmp(e->name, "__pfx_", 6) != 0 && kallsyms_count(ksyms, e->name) == 1;
}

/* The most sampled candidate among the program's base samples, by perf
 * script; false when there is none. */
static bool kernel_pick(const orec *o, const char *comm, const char *ksyms, char *out,
			FILE *msg)
{
	kcount *v = calloc(MAXK, sizeof *v);
	ck_assert_ptr_nonnull(v);
	size_t n = 0, samples = 0;
	for (size_t i = 0; i < o->ns; i++)
		if (strcmp(o->s[i].comm, comm) == 0) {
			samples++;
			kernel_sample(o, &o->s[i], v, &n);
		}
	const kcount *best = NULL;
	for (size_t i = 0; i < n; i++)
		if ((!best || v[i].self > best->self ||
		     (v[i].self == best->self && strcmp(v[i].name, best->name) < 0)) &&
		    kernel_candidate(&v[i], samples, ksyms))
			best = &v[i];
	if (best)
		fprintf(msg, "  kernel function picked: %s, self %zu / children %zu of %zu %s samples\n",
			best->name, best->self, best->children, samples, comm);
	bool ok = best && copy(out, NAMEMAX, best->name);
	free(v);
	return ok;
}

/* kallsyms text with `old` (and its __pfx_ twin) named `new_`, the rest
 * byte for byte. */
static bool kallsyms_write(const char *text, const char *path, const char *old,
			   const char *new_)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	char pfx_old[NAMEMAX + 8];
	snprintf(pfx_old, sizeof pfx_old, "__pfx_%s", old);
	size_t lo = strlen(old), lp = strlen(pfx_old);
	for (const char *p = text, *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		const char *f3 = strchr(p, ' ');
		f3 = f3 && f3 < p + len ? strchr(f3 + 1, ' ') : NULL;
		const char *name = f3 && f3 < p + len ? f3 + 1 : NULL;
		size_t skip = !name ? 0
			      : strncmp(name, old, lo) == 0 && strchr("\t\n", name[lo]) ? lo
			      : strncmp(name, pfx_old, lp) == 0 && strchr("\t\n", name[lp]) ? lp : 0;
		if (!skip) {
			fwrite(p, 1, len, f);
			continue;
		}
		fprintf(f, "%.*s%s%s", (int)(name - p), p, skip == lp ? "__pfx_" : "", new_);
		fwrite(name + skip, 1, len - (size_t)(name + skip - p), f);
	}
	return fclose(f) == 0;
}

/* Pick the function from base run 0 and write kallsyms.base / .new. */
static bool kernel_files(oracle *o, FILE *msg)
{
	const dcase *c = o->c;
	char real[PATHMAX], comm[16], pick[NAMEMAX], path[PATHMAX];
	case_file(c, "kallsyms.real", real);
	program_comm(c, 0, comm);
	size_t len;
	char *text = (char *)pd_test_read_file(real, &len);
	const orec *run0 = oracle_run(o, 0, 0);
	bool ok = text && run0 && len && text[len - 1] == '\n';
	if (ok)
		text[len - 1] = '\0';  /* the last newline is written back below */
	ok = ok && kernel_pick(run0, comm, text, pick, msg);
	for (int s = 0; ok && s < 2; s++) {
		case_file(c, s ? "kallsyms.new" : "kallsyms.base", path);
		ok = kallsyms_write(text, path, pick, c->kernel_rename[s]);
		FILE *f = ok ? fopen(path, "a") : NULL;
		ok = f && fputc('\n', f) == '\n' && fclose(f) == 0;
	}
	if (!ok)
		fprintf(msg, "  kernel-rename: no kernel function fits (see the README), or "
			     "kallsyms unreadable\n");
	free(text);
	return ok;
}

/* ------------------------------------------------------- recording a case */

enum { REC_OK, REC_SKIP, REC_FAIL };

/* How a case's recording went, kept in its folder as "status" for the
 * cases that read the same recordings. */
typedef struct rstatus {
	int kind;
	double seconds;        /* recording time, 0 when reused */
	char msg[8 * LINEMAX];  /* shape results, or why it failed or skipped */
} rstatus;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void status_write(const dcase *c, const rstatus *st)
{
	char path[PATHMAX];
	case_file(c, "status", path);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%d %.3f\n%s", st->kind, st->seconds, st->msg);
	fclose(f);
}

static bool status_read(const dcase *c, rstatus *st)
{
	char path[PATHMAX];
	case_file(c, "status", path);
	size_t len;
	char *text = (char *)pd_test_read_file(path, &len);
	char *nl = text ? memchr(text, '\n', len) : NULL;
	bool ok = nl && sscanf(text, "%d", &st->kind) == 1;
	if (ok) {
		st->seconds = 0;
		snprintf(st->msg, sizeof st->msg, "%.*s", (int)(len - (size_t)(nl + 1 - text)), nl + 1);
	}
	free(text);
	return ok;
}

/* Why `c` cannot be recorded here, or NULL. */
static const char *record_skip(const dcase *c)
{
	if (c->syswide && L.sys_skip)
		return L.sys_skip;
	if (c->fifo && !pd_test_sh_ok("chrt -f 1 true"))
		return "chrt -f refused (no util-linux chrt, or no CAP_SYS_NICE)";
	if (c->go && !pd_test_sh_ok("command -v go >/dev/null"))
		return "go is not installed (golang-go)";
	char burner[PATHMAX];
	if (uses_burner(c) && !ensure_burner(burner))
		return "cannot build the background load (burner.c)";
	char dir[PATHMAX];
	case_file(c, "status", dir);
	make_parent(dir);
	return build_sides(c) ? NULL : "cannot build the workload (cc, readelf)";
}

/* The shapes of a case's recordings (and the kernel function picked):
 * st->kind and st->msg say how they came out. */
static void record_check(const dcase *c, rstatus *st)
{
	FILE *msg = fmemopen(st->msg, sizeof st->msg - 1, "w");
	ck_assert_ptr_nonnull(msg);
	oracle o = { .c = c };
	bool ok = shapes_hold(&o, msg) && (!c->kernel_rename[0][0] || kernel_files(&o, msg));
	oracle_free(&o);
	fclose(msg);
	st->kind = ok ? REC_OK : REC_FAIL;
}

/* Record, then check the shapes; a recording that misses its shape, as a
 * busy machine may make it, is recorded once more (and says so) before
 * the case fails. */
static void record_case(const dcase *c, rstatus *st)
{
	double t0 = now_s();
	memset(st, 0, sizeof *st);
	static char first[sizeof st->msg];
	first[0] = '\0';
	const char *skip = record_skip(c);
	for (int attempt = 0; !skip && attempt < 2; attempt++) {
		if (!record_all(c))
			skip = "perf record failed";
		else if (record_check(c, st), st->kind == REC_OK)
			break;
		else
			copy(first, sizeof first, st->msg);
	}
	if (skip) {
		st->kind = REC_SKIP;
		snprintf(st->msg, sizeof st->msg, "%s", skip);
	} else if (st->kind == REC_OK && first[0]) {
		char now[sizeof st->msg];
		copy(now, sizeof now, st->msg);
		/* the shapes that hold first: a note cut short loses the old ones */
		size_t len = (size_t)snprintf(st->msg, sizeof st->msg,
					      "%s  recorded twice; the first time:\n", now);
		if (len < sizeof st->msg)
			copy(st->msg + len, sizeof st->msg - len, first);
	}
	st->seconds = now_s() - t0;
	status_write(c, st);
}

/* The recordings `c` reads, made now unless an earlier case made them. */
static void ensure_recorded(const dcase *c, rstatus *st)
{
	const dcase *owner = owner_of(c);
	if (!status_read(owner, st))
		record_case(owner, st);
}

/* ------------------------------------------------------------ the diff */

/* Side `side` of case `c`: every run of it, read with the side's options. */
static pd_profile *side_profile(const dcase *c, int side)
{
	const dcase *owner = owner_of(c);
	int rs = rec_side(c, side);
	char cache[PATHMAX], ksyms[PATHMAX], data[PATHMAX];
	case_file(owner, "buildid", cache);
	case_file(owner, side ? "kallsyms.new" : "kallsyms.base", ksyms);
	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	o.flags = c->side[side].pflags;
	so.flags = c->side[side].sflags;
	so.buildid_dir = cache;
	so.kallsyms = c->kernel_rename[0][0] ? ksyms : NULL;
	o.session = &so;
	pd_profile *p = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_profile_new(&p, &o, &err);
	ck_assert_msg(rc == 0, "pd_profile_new: %d %s", rc, err.message);
	for (size_t r = 0; r < owner->runs; r++) {
		data_path(owner, rs, r, data);
		rc = pd_profile_add_file(p, data, &err);
		ck_assert_msg(rc == 0, "pd_profile_add_file(%s): %d %s", data, rc, err.message);
	}
	return p;
}

/* Does the relation's list of symbols name exactly the label's (any order)? */
static bool same_syms(const char (*want)[NAMEMAX], size_t nwant, const char *const *have,
		      size_t nhave)
{
	if (nwant == 1 && strcmp(want[0], "*") == 0)  /* any symbols */
		return true;
	if (nwant != nhave)
		return false;
	for (size_t i = 0; i < nwant; i++) {
		bool found = false;
		for (size_t k = 0; k < nhave && !found; k++)
			found = have[k] && strcmp(want[i], have[k]) == 0;
		if (!found)
			return false;
	}
	return true;
}

static bool same_parent(const char *want, const char *have)
{
	return !want[0] || (have ? strcmp(want, have) == 0 : strcmp(want, "(root)") == 0);
}

static bool label_matches(const rel_label *l, const pd_diff_relation *r)
{
	return l->kind == r->kind &&
	       same_syms((const char(*)[NAMEMAX])l->sym[0], l->nsym[0], r->base_symbols,
			 r->nbase_symbols) &&
	       same_syms((const char(*)[NAMEMAX])l->sym[1], l->nsym[1], r->new_symbols,
			 r->nnew_symbols) &&
	       same_parent(l->parent[0], r->base_parent) &&
	       same_parent(l->parent[1], r->new_parent) &&
	       (!l->dso[0] || strcmp(l->dso, base_name(r->dso)) == 0);
}

static void print_symbols(FILE *f, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " + " : "", str(v[i]));
}

/* kind, both sides, parents, dso, changes, score and evidence */
static void print_relation(FILE *f, const pd_diff_relation *r)
{
	fprintf(f, "%s ", str(pd_diff_relation_kind_name(r->kind)));
	print_symbols(f, r->base_symbols, r->nbase_symbols);
	fprintf(f, " -> ");
	print_symbols(f, r->new_symbols, r->nnew_symbols);
	fprintf(f, "  parents %s -> %s  in %s  base %+.2f new %+.2f net %+.2f  score %.2f  [%s]",
		r->base_parent ? r->base_parent : "(root)",
		r->new_parent ? r->new_parent : "(root)", base_name(r->dso), r->base_change,
		r->new_change, r->net, r->score, str(r->evidence));
}

static void print_runs(FILE *f, const pd_diff_side *s)
{
	fprintf(f, "%6.2f ±%5.2f (", s->mean, s->stddev);
	for (size_t i = 0; i < s->nruns; i++)
		fprintf(f, "%s%.2f", i ? " " : "", s->runs[i]);
	fprintf(f, ")");
}

static void print_row(FILE *f, const pd_diff_row *r)
{
	fprintf(f, "    %-9s %s [%s]  base ", str(pd_diff_metric_name(r->metric)), str(r->key),
		r->dso ? base_name(r->dso) : "-");
	print_runs(f, &r->base);
	fprintf(f, "  new ");
	print_runs(f, &r->new);
	fprintf(f, "  change %+.2f q %.3g\n", r->change, r->q_value);
}

/* ------------------------------------------------------------- scoring */

enum { V_PASS, V_FAIL, V_SKIP };

typedef struct result {
	int verdict;
	int measured;   /* the case was diffed (recorded with its shape, parsed) */
	size_t musts, found, reported, tp, fp, allowed, sig, rows;
	size_t changes, flagged, missed_must;  /* labelled changes, flagged, `must`s missed */
	int aa;         /* an A/A case: both sides one build */
	double rec_s, diff_s;
} result;

/* Is `dso` one the case's own processes map (its programs, their load,
 * libc, the loader, the kernel, the vdso)?  A false relation elsewhere
 * comes from what else ran on the machine: said so, still false. */
static bool own_dso(const dcase *c, const char *dso)
{
	static const char *const shared[] = { "libc.so.6", "ld-linux-x86-64.so.2",
					      "[kernel.kallsyms]", "[vdso]", "burner", "dd",
					      "taskset", "dash" };
	const dcase *owner = owner_of(c);
	const char *name = base_name(dso);
	for (size_t i = 0; i < sizeof shared / sizeof *shared; i++)
		if (strcmp(name, shared[i]) == 0)
			return true;
	return strcmp(name, base_name(owner->side[0].binary)) == 0 ||
	       strcmp(name, base_name(owner->side[1].binary)) == 0;
}

/* The index of the must `r` matches, -1 for none. */
static int match_must(const dcase *c, const pd_diff_relation *r)
{
	for (size_t i = 0; i < c->nmust; i++)
		if (label_matches(&c->must[i], r))
			return (int)i;
	return -1;
}

/* Go's -m log: does a line say "inlining call to NAME" for perf's `sym`
 * ("compress/flate.(*compressor).deflate")?  -m names a callee of the
 * same package without it ("(*compressor).deflate", "heapBits.next") and
 * one of another package by its package name ("flate.NewWriter"): either
 * matches, the import path dropped. */
static bool compiler_inlined(const char *log, const char *sym)
{
	static const char said[] = "inlining call to ";
	const char *slash = strrchr(sym, '/'), *qual = slash ? slash + 1 : sym;
	const char *dot = strchr(qual, '.'), *local = dot ? dot + 1 : qual;
	for (const char *p = log; p && (p = strstr(p, said)); p++) {
		const char *name = p + sizeof said - 1, *end = strchr(name, '\n');
		size_t len = end ? (size_t)(end - name) : strlen(name);
		if ((strlen(qual) == len && strncmp(name, qual, len) == 0) ||
		    (strlen(local) == len && strncmp(name, local, len) == 0))
			return true;
	}
	return false;
}

/* A Go case's inlined (outlined) relation whose callee the compiler of
 * the build it went into (out of) never inlined: false, whatever the
 * labels allow.  `logs` per side of the case, NULL when not Go. */
static bool against_compiler(char *const logs[2], const pd_diff_relation *r, char *tag,
			     size_t n)
{
	bool in = r->kind == PD_REL_INLINED, out = r->kind == PD_REL_OUTLINED;
	const char *callee = in ? r->base_symbol : r->new_symbol;
	const char *log = logs[in ? 1 : 0];
	if (!(in || out) || !log || !callee || compiler_inlined(log, callee))
		return false;
	snprintf(tag, n, "FALSE (the %s build's compiler never inlined %s)", in ? "new" : "base",
		 callee);
	return true;
}

/* How relation `r` counts; `hit` marks the musts already matched (a
 * second report of one is false). */
static bool classify(const dcase *c, const pd_diff_relation *r, bool *hit, result *res,
		     char *const logs[2], char *tag, size_t n)
{
	if (against_compiler(logs, r, tag, n)) {
		res->fp++;
		return false;
	}
	int m = match_must(c, r);
	if (m >= 0) {
		bool again = hit[m];
		hit[m] = true;
		res->tp += !again;
		res->fp += again;
		if (again)
			snprintf(tag, n, "FALSE (reported again: must %s)", c->must[m].text);
		else
			snprintf(tag, n, "TRUE");
		return !again;
	}
	for (size_t i = 0; i < c->nallow; i++)
		if (label_matches(&c->allow[i], r)) {
			snprintf(tag, n, "allowed (%s)", c->allow[i].why);
			res->allowed++;
			return true;
		}
	res->fp++;
	for (size_t i = 0; i < c->nmustnot; i++)
		if (label_matches(&c->mustnot[i], r)) {
			snprintf(tag, n, "FALSE (the trap 'mustnot: %s')", c->mustnot[i].text);
			return false;
		}
	snprintf(tag, n, "FALSE (no label%s)",
		 own_dso(c, r->dso) ? "" : "; in a dso of no process the case started");
	return false;
}

/* The children and self rows of a label's symbols (in its dso, if it
 * names one): what the engine had to go on for a missed relation. */
static void print_label_rows(const pd_diff *d, const rel_label *l, FILE *f)
{
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		bool named = false;
		for (int s = 0; s < 2; s++)
			for (size_t k = 0; k < l->nsym[s]; k++)
				named |= r->symbol && strcmp(r->symbol, l->sym[s][k]) == 0;
		if (named && (r->metric == PD_DIFF_CHILDREN || r->metric == PD_DIFF_SELF) &&
		    (!l->dso[0] || strcmp(l->dso, base_name(r->dso)) == 0))
			print_row(f, r);
	}
}

/* Every relation with how it counts (on `out`), the false ones and the
 * missed musts also on `detail` (the summary's lines). */
static void score_relations(const dcase *c, const pd_diff *d, result *res, char *const logs[2],
			    FILE *out, FILE *detail)
{
	bool hit[MAXLABELS] = { false };
	res->reported = pd_diff_relation_count(d);
	res->musts = c->nmust;
	fprintf(out, "  relations reported: %zu\n", res->reported);
	for (size_t i = 0; i < res->reported; i++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, i);
		char tag[LINEMAX + 64];
		bool good = classify(c, r, hit, res, logs, tag, sizeof tag);
		fprintf(out, "    %s: ", tag);
		print_relation(out, r);
		fprintf(out, "\n");
		if (good)
			continue;
		fprintf(detail, "    reported, %s: ", tag);
		print_relation(detail, r);
		fprintf(detail, "\n");
	}
	for (size_t i = 0; i < c->nmust; i++) {
		res->found += hit[i];
		if (!hit[i]) {
			fprintf(out, "    MISSED: must %s\n", c->must[i].text);
			fprintf(detail, "    MISSED: must %s; its symbols' rows:\n", c->must[i].text);
			print_label_rows(d, &c->must[i], out);
			print_label_rows(d, &c->must[i], detail);
		}
	}
}

/* The significant rows: counted, and listed where the case limits them. */
static bool score_rows(const dcase *c, const pd_diff *d, result *res, FILE *out,
		       FILE *detail)
{
	res->rows = pd_diff_row_count(d);
	for (size_t i = 0; i < res->rows; i++)
		res->sig += pd_diff_row_at(d, i)->significant;
	double limit = c->sig_pct ? c->sig_max * (double)res->rows / 100 : c->sig_max;
	bool ok = !c->sig_set || (double)res->sig <= limit;
	fprintf(out, "  significant rows: %zu of %zu", res->sig, res->rows);
	if (c->sig_set)
		fprintf(out, " (at most %g%s: %.1f)%s", c->sig_max, c->sig_pct ? " %" : "", limit,
			ok ? "" : "  TOO MANY");
	fprintf(out, "\n");
	if (!ok)
		fprintf(detail, "    significant rows: %zu of %zu, at most %.1f allowed:\n", res->sig,
			res->rows, limit);
	for (size_t i = 0, shown = 0; c->sig_set && i < res->rows && shown < 60; i++)
		if (pd_diff_row_at(d, i)->significant) {
			print_row(out, pd_diff_row_at(d, i));
			if (!ok && shown < 20)
				print_row(detail, pd_diff_row_at(d, i));
			shown++;
		}
	if (!ok && res->sig > 20)
		fprintf(detail, "      ... and %zu more\n", res->sig - 20);
	return ok;
}

/* The row of metric `m` whose key is `sym` (self and children rows are
 * keyed by their symbol), or NULL. */
static const pd_diff_row *row_of(const pd_diff *d, pd_diff_metric m, const char *sym)
{
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (r->metric == m && r->key && strcmp(r->key, sym) == 0)
			return r;
	}
	return NULL;
}

/* The labelled changes: each must be a significant row (power). */
static bool score_changes(const dcase *c, const pd_diff *d, result *res, FILE *out,
			  FILE *detail)
{
	for (size_t i = 0; i < c->nchange; i++) {
		const change_label *l = &c->change[i];
		const pd_diff_row *r = row_of(d, l->metric, l->sym);
		bool hit = r && r->significant;
		res->changes++;
		res->flagged += hit;
		res->missed_must += !hit && l->must;
		fprintf(out, "  change %s: %s\n", l->text, hit ? "flagged" : "NOT FLAGGED");
		if (r)
			print_row(out, r);
		if (!hit && l->must) {
			fprintf(detail, "    MISSED: change %s%s\n", l->text, r ? "; its row:" : ", no row");
			if (r)
				print_row(detail, r);
		}
	}
	return res->missed_must == 0;
}

/* One function of the program in one sample of one run (inlined_share). */
typedef struct seen {
	const char *sym;
	int side;
	size_t run;
} seen;

static int seen_cmp(const void *a, const void *b)
{
	return strcmp(((const seen *)a)->sym, ((const seen *)b)->sym);
}

/* Every (function of `dso`, sample) of both sides' runs, each function
 * once per sample: what perf script says the recordings hold. */
static seen *seen_all(oracle *o, const dcase *c, const char *dso, size_t ns[2][MAXRUNS],
		      size_t *n)
{
	seen *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (int side = 0; side < 2; side++)
		for (size_t r = 0; r < o->c->runs; r++) {
			const orec *rec = oracle_run(o, rec_side(c, side), r);
			ck_assert_msg(rec != NULL, "perf script of %s run %zu", side_name(side), r);
			ns[side][r] = rec->ns;
			for (size_t i = 0; i < rec->ns; i++)
				for (size_t k = 0; k < rec->s[i].n; k++) {
					const oframe *f = frame_at(rec, &rec->s[i], k);
					bool again = false;
					for (size_t j = 0; j < k && !again; j++)
						again = strcmp(frame_at(rec, &rec->s[i], j)->sym, f->sym) == 0;
					if (again || strcmp(f->dso, dso) != 0 || !strcmp(f->sym, "[unknown]"))
						continue;
					v = grow(v, &cap, *n, sizeof *v);
					v[(*n)++] = (seen){ f->sym, side, r };
				}
		}
	qsort(v, *n, sizeof *v, seen_cmp);
	return v;
}

/* Whether some inlined relation of `d` has `sym` as its callee. */
static bool explained_inlined(const pd_diff *d, const char *sym)
{
	for (size_t i = 0; i < pd_diff_relation_count(d); i++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, i);
		for (size_t k = 0; r->kind == PD_REL_INLINED && k < r->nbase_symbols; k++)
			if (strcmp(r->base_symbols[k], sym) == 0)
				return true;
	}
	return false;
}

/*
 * inlined-share: the functions of the program that vanished -- in at
 * least MIN % of the base's samples (mean over its runs, perf script) and
 * in none of the new's -- and how many of them the diff explains as
 * inlined; at least PCT % must be.
 */
static bool score_inlined_share(const dcase *c, const pd_diff *d, FILE *out, FILE *detail)
{
	const dcase *owner = owner_of(c);
	oracle o = { .c = owner };
	size_t ns[2][MAXRUNS] = { { 0 } }, n, vanished = 0, explained = 0;
	seen *v = seen_all(&o, c, base_name(owner->side[rec_side(c, 0)].binary), ns, &n);
	char missed[LINEMAX] = "";
	for (size_t i = 0, j; i < n; i = j) {
		size_t cnt[2][MAXRUNS] = { { 0 } };
		for (j = i; j < n && strcmp(v[j].sym, v[i].sym) == 0; j++)
			cnt[v[j].side][v[j].run]++;
		double base = 0;
		size_t now = 0;
		for (size_t r = 0; r < owner->runs; r++) {
			base += ns[0][r] ? 100.0 * (double)cnt[0][r] / (double)ns[0][r] : 0;
			now += cnt[1][r];
		}
		if (base / (double)owner->runs < c->inl_min || now)
			continue;
		vanished++;
		if (explained_inlined(d, v[i].sym))
			explained++;
		else if (strlen(missed) + strlen(v[i].sym) + 4 < sizeof missed)
			snprintf(missed + strlen(missed), sizeof missed - strlen(missed), "%s%s",
				 missed[0] ? ", " : "", v[i].sym);
	}
	free(v);
	oracle_free(&o);
	double share = vanished ? 100.0 * (double)explained / (double)vanished : 0;
	bool ok = vanished && share >= c->inl_pct;
	char line[2 * LINEMAX];
	snprintf(line, sizeof line,
		 "inlined-share: %zu of the %zu functions that vanished (>= %g %% of the base's "
		 "samples, in none of the new's) explained as inlined: %.1f %% (at least %g %%)%s%s"
		 "%s\n",
		 explained, vanished, c->inl_min, share, c->inl_pct, ok ? "" : "  TOO FEW",
		 missed[0] ? "; not: " : "", missed);
	fprintf(out, "  %s", line);
	fprintf(detail, "    %s", line);
	return ok;
}

/* The CLI options that read a side as the case's options do. */
static void cli_options(const side_spec *s, char *out, size_t n)
{
	snprintf(out, n, "%s%s%s%s", s->pflags & PD_PROFILE_KEEP_SUFFIXES ? " --keep-suffixes" : "",
		 s->pflags & PD_PROFILE_HIDE_UNRESOLVED ? " -U" : "",
		 s->sflags & PD_SESSION_NO_INLINE ? " --no-inline" : "",
		 s->sflags & PD_SESSION_PERF_COMPAT ? " --perf-compat" : "");
}

/* `perfdiff --fail-on=POINTS BASE... -- NEW...` (each side's kallsyms
 * with --base-kallsyms and --new-kallsyms): the exit status the case's
 * gate `g` expects. */
static bool check_fail_on(const dcase *c, size_t g, FILE *out, FILE *detail)
{
	const dcase *owner = owner_of(c);
	char args[16 * PATHMAX], opts[128], cache[PATHMAX], data[PATHMAX], ks[2][PATHMAX];
	cli_options(&c->side[0], opts, sizeof opts);
	case_file(owner, "buildid", cache);
	size_t len = (size_t)snprintf(args, sizeof args, "diff --fail-on=%g%s --buildid-dir='%s'",
				      c->fail_on[g], opts, cache);
	for (int s = 0; s < 2 && owner->kernel_rename[0][0]; s++) {
		case_file(owner, rec_side(c, s) ? "kallsyms.new" : "kallsyms.base", ks[s]);
		len += (size_t)snprintf(args + len, sizeof args - len, " --%s-kallsyms='%s'",
					s ? "new" : "base", ks[s]);
	}
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < owner->runs; r++) {
			data_path(owner, rec_side(c, s), r, data);
			len += (size_t)snprintf(args + len, sizeof args - len, "%s '%s'",
						s && !r ? " --" : "", data);
		}
	int st = -1;
	char *err = NULL, *text = pd_test_cli(L.dir, args, &st, &err);
	bool ok = st == c->fail_on_status[g];
	fprintf(out, "  perfdiff --fail-on=%g: exit %d (expected %d)%s\n", c->fail_on[g], st,
		c->fail_on_status[g], ok ? "" : "  WRONG");
	if (!ok)
		fprintf(detail, "    perfdiff --fail-on=%g: exit %d, expected %d\n", c->fail_on[g],
			st, c->fail_on_status[g]);
	free(text);
	free(err);
	return ok;
}

/* The diff of a recorded case, scored; its report on `out`. */
static bool diff_case(const dcase *c, result *res, FILE *out, FILE *detail)
{
	double t0 = now_s();
	pd_profile *p[2] = { side_profile(c, 0), side_profile(c, 1) };
	pd_diff_options o;
	pd_diff_options_init(&o, PD_DIFF_OPTIONS_VERSION);
	pd_diff *d = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_diff_new(&d, p[0], p[1], &o, &err);
	ck_assert_msg(rc == 0 && d, "pd_diff_new: %d %s", rc, err.message);
	res->diff_s = now_s() - t0;
	for (int s = 0; s < 2; s++)
		fprintf(out, "  %s: %zu runs, %" PRIu64 " samples\n", side_name(s),
			pd_profile_run_count(p[s]), pd_diff_samples(d, s, SIZE_MAX));
	char *logs[2] = { NULL, NULL };
	for (int s = 0; s < 2 && owner_of(c)->go; s++) {
		char log[PATHMAX];
		case_file(owner_of(c), rec_side(c, s) && !owner_of(c)->same_build ? "build.1.log"
										   : "build.0.log",
			  log);
		size_t len;
		logs[s] = (char *)pd_test_read_file(log, &len);
		ck_assert_msg(logs[s] != NULL, "cannot read %s", log);
		logs[s][len] = '\0';  /* the buffer always has a byte past the text */
	}
	score_relations(c, d, res, logs, out, detail);
	free(logs[0]);
	free(logs[1]);
	bool ok = score_rows(c, d, res, out, detail);
	ok &= score_changes(c, d, res, out, detail);
	if (c->has_inl)
		ok &= score_inlined_share(c, d, out, detail);
	res->aa = owner_of(c)->same_build;
	pd_diff_free(d);
	pd_profile_free(p[0]);
	pd_profile_free(p[1]);
	for (size_t g = 0; g < c->nfail_on; g++)
		ok &= check_fail_on(c, g, out, detail);
	return ok && res->fp == 0 && res->found == res->musts;
}

static void result_write(const dcase *c, const result *res, const char *detail)
{
	char path[PATHMAX];
	fmt(path, sizeof path, "%s/results/%s", L.dir, c->name);
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	fprintf(f, "%d %d %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %d %.2f %.3f\n%s",
		res->verdict, res->measured, res->musts, res->found, res->reported, res->tp,
		res->fp, res->allowed, res->sig, res->rows, res->changes, res->flagged,
		res->missed_must, res->aa, res->rec_s, res->diff_s, detail);
	fclose(f);
}

/* Record (or find the recordings of) case `c`, diff and score it: its
 * verdict in res, its report on `out`, what made it fail on `detail`. */
static void run_case(const dcase *c, result *res, FILE *out, FILE *detail)
{
	memset(res, 0, sizeof *res);
	fprintf(out, "case %s: %s\n", c->name, c->about);
	rstatus st;
	if (c->error[0] || !owner_of(c) || owner_of(c)->error[0]) {
		res->verdict = V_FAIL;
		fprintf(detail, "    %s\n", c->error[0] ? c->error : "recording: no such case, or "
								   "it does not parse");
		return;
	}
	ensure_recorded(c, &st);
	res->rec_s = st.seconds;
	if (c->reuse[0])
		fprintf(out, "  the recordings of case %s%s:\n", c->reuse,
			c->swapped ? ", its base and new sides swapped" : "");
	fprintf(out, "%s%s", st.msg, st.msg[0] && st.msg[strlen(st.msg) - 1] != '\n' ? "\n" : "");
	if (st.kind != REC_OK) {
		res->verdict = st.kind == REC_SKIP ? V_SKIP : V_FAIL;
		fprintf(detail, "    %s: %s\n", st.kind == REC_SKIP ? "skipped" : "recording",
			st.kind == REC_SKIP ? st.msg : "its shape is not what the case claims");
		return;
	}
	res->measured = 1;
	res->verdict = diff_case(c, res, out, detail) ? V_PASS : V_FAIL;
}

/* ------------------------------------------------------------- the tests */

START_TEST(test_case)
{
	PD_SKIP_IF(L.skip);
	const dcase *c = &L.cases[_i];
	result res;
	char *report = NULL, *detail = NULL;
	size_t rlen = 0, dlen = 0;
	FILE *out = open_memstream(&report, &rlen), *det = open_memstream(&detail, &dlen);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(det);
	run_case(c, &res, out, det);
	fprintf(out, "  verdict: %s\n", res.verdict == V_PASS ? "pass"
					: res.verdict == V_SKIP ? "skip" : "FAIL");
	fclose(out);
	fclose(det);
	fputs(report, stderr);
	result_write(c, &res, detail);
	if (res.verdict == V_SKIP)
		fprintf(stderr, "SKIP %s: %s", c->name, detail);
	/* check refuses a message over 4 KiB (and the case then counts as not
	 * run): the whole detail is on stderr above */
	static char why[3500];
	if ((size_t)snprintf(why, sizeof why, "%s", detail) >= sizeof why)
		memcpy(why + sizeof why - 24, "\n    ... (see above)\n", 22);
	free(report);
	free(detail);
	ck_assert_msg(res.verdict != V_FAIL, "case %s fails:\n%s", c->name, why);
}
END_TEST

/* A case's result file: the counts in `r`, the details (caller frees) or
 * NULL when there is none (its test did not run, or died). */
static char *result_read(const dcase *c, result *r)
{
	char path[PATHMAX];
	fmt(path, sizeof path, "%s/results/%s", L.dir, c->name);
	size_t len;
	char *text = (char *)pd_test_read_file(path, &len);
	char *nl = text ? memchr(text, '\n', len) : NULL;
	memset(r, 0, sizeof *r);
	if (!nl || sscanf(text, "%d %d %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %d %lf %lf",
			  &r->verdict, &r->measured, &r->musts, &r->found, &r->reported, &r->tp,
			  &r->fp, &r->allowed, &r->sig, &r->rows, &r->changes, &r->flagged,
			  &r->missed_must, &r->aa, &r->rec_s, &r->diff_s) != 16) {
		free(text);
		return NULL;
	}
	size_t rest = len - (size_t)(nl + 1 - text);
	memmove(text, nl + 1, rest);
	text[rest] = '\0';  /* the newline's byte, at least, is free */
	return text;
}

/* The catalogue's counts. */
typedef struct totals {
	size_t musts, found, reported, tp;
	size_t changes, flagged;
	size_t aa_sig, aa_rows;            /* significant rows of the A/A cases, and rows */
	size_t run, measured, skipped;  /* cases */
	double rec_s, diff_s;
} totals;

/* One case's line of the summary and its details, its counts added to
 * `sum`. */
static void summary_case(const dcase *c, totals *sum, FILE *out)
{
	static const char *const verdicts[] = { "pass", "FAIL", "skip" };
	result r;
	char *detail = result_read(c, &r);
	if (!detail) {
		fprintf(out, "  %-30s not run\n", c->name);
		return;
	}
	char changes[48] = "-";
	if (r.changes)
		snprintf(changes, sizeof changes, "%zu/%zu", r.flagged, r.changes);
	fprintf(out, "  %-30s %-4s  %zu/%zu  %4zu %4zu %4zu %4zu  %5zu/%-6zu %-5s %6.1f %6.2f\n%s",
		c->name, verdicts[r.verdict], r.found, r.musts, r.reported, r.tp, r.fp,
		r.allowed, r.sig, r.rows, changes, r.rec_s, r.diff_s, detail);
	free(detail);
	sum->musts += r.musts;
	sum->found += r.found;
	sum->changes += r.changes;
	sum->flagged += r.flagged;
	if (r.aa) {
		sum->aa_sig += r.sig;
		sum->aa_rows += r.rows;
	}
	sum->reported += r.tp + r.fp;
	sum->tp += r.tp;
	sum->rec_s += r.rec_s;
	sum->diff_s += r.diff_s;
	sum->run++;
	sum->measured += r.measured != 0;
	sum->skipped += r.verdict == V_SKIP;
}

static double pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

START_TEST(test_summary)
{
	PD_SKIP_IF(L.skip);
	totals sum;
	memset(&sum, 0, sizeof sum);
	fprintf(stderr, "\ndiff catalogue (tests/diffcases), %zu cases:\n"
			"  %-30s %-4s  must  rep true fals allw  significant  chg    rec s diff s\n",
		L.ncases, "case", "");
	fprintf(stderr, "  (must: found/labelled; rep: relations reported, true, false, allowed; "
			"significant: rows; chg: labelled changes flagged; rec s: recording, 0 "
			"when reused)\n");
	for (size_t i = 0; i < L.ncases; i++)
		summary_case(&L.cases[i], &sum, stderr);
	if (!sum.run)
		PD_SKIP("no case ran (CK_RUN_CASE?)");
	size_t unmeasured = L.ncases - sum.skipped - sum.measured;
	double precision = pct(sum.tp, sum.reported), recall = pct(sum.found, sum.musts);
	fprintf(stderr,
		"precision %zu/%zu = %.1f %%, recall %zu/%zu = %.1f %% over %zu cases diffed; "
		"%zu skipped, %zu not measured (recording %.1f s, diffs %.2f s)\n",
		sum.tp, sum.reported, precision, sum.found, sum.musts, recall, sum.measured,
		sum.skipped, unmeasured, sum.rec_s, sum.diff_s);
	fprintf(stderr,
		"power: %zu of %zu labelled changes flagged significant (%.1f %%); "
		"false positives: %zu of %zu rows of the A/A cases significant (%.2f %%)\n",
		sum.flagged, sum.changes, pct(sum.flagged, sum.changes), sum.aa_sig, sum.aa_rows,
		sum.aa_rows ? pct(sum.aa_sig, sum.aa_rows) : 0.0);
	ck_assert_msg(sum.tp == sum.reported && sum.found == sum.musts && !unmeasured,
		      "precision %.1f %% and recall %.1f %% of relations over the catalogue: "
		      "both must be 100 %%, every case measured (%zu not: cases above)",
		      precision, recall, unmeasured);
}
END_TEST

/* ------------------------------------------------------------------ main */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const dcase *)a)->name, ((const dcase *)b)->name);
}

/* Whether `name` is a word of the space-separated `list`. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * PD_DIFFCASES_ONLY="a b c": keep those cases and the ones whose
 * recordings they read.  The sanitizer build scores a subset that covers
 * every kind of relation and recipe: the release build scores them all,
 * and the sanitizers look for memory errors, which the same code paths
 * find on fewer recordings.
 */
static void cases_subset(const char *only)
{
	if (!only || !*only)
		return;
	bool keep[MAXCASES] = {false};
	for (size_t i = 0; i < L.ncases; i++)
		if (listed(only, L.cases[i].name)) {
			keep[i] = true;
			const dcase *o = owner_of(&L.cases[i]);
			if (o)
				keep[o - L.cases] = true;
		}
	size_t n = 0;
	for (size_t i = 0; i < L.ncases; i++)
		if (keep[i])
			L.cases[n++] = L.cases[i];
	fprintf(stderr, "diffcases: PD_DIFFCASES_ONLY keeps %zu of %zu cases\n", n, L.ncases);
	L.ncases = n;
}

/* Every tests/diffcases/<name>.case, parsed, by name. */
static void cases_load(void)
{
	L.cases = calloc(MAXCASES, sizeof *L.cases);
	DIR *dir = opendir(CASE_DIR);
	if (!L.cases)
		abort();
	struct dirent *e;
	char names[MAXCASES][NAMEMAX];
	while (dir && (e = readdir(dir)) && L.ncases < MAXCASES) {
		size_t n = strlen(e->d_name);
		if (n > 5 && n < NAMEMAX && strcmp(e->d_name + n - 5, ".case") == 0)
			snprintf(names[L.ncases++], NAMEMAX, "%.*s", (int)(n - 5), e->d_name);
	}
	if (dir)
		closedir(dir);
	for (size_t i = 0; i < L.ncases; i++)
		copy(L.cases[i].name, NAMEMAX, names[i]);
	qsort(L.cases, L.ncases, sizeof *L.cases, name_cmp);
	for (size_t i = 0; i < L.ncases; i++) {
		copy(names[0], NAMEMAX, L.cases[i].name);
		case_parse(&L.cases[i], names[0]);
	}
	cases_subset(getenv("PD_DIFFCASES_ONLY"));
}

/* The first of `tries` that records here, in `out`; false (the last in
 * `out`) when none does. */
static bool probe_args(const char *probe, const char *const *tries, size_t n, char *out,
		       size_t size)
{
	for (size_t i = 0; i < n; i++)
		if (pd_test_perf_record(probe, tries[i], "true"))
			return copy(out, size, tries[i]);
	copy(out, size, tries[n - 1]);
	return false;
}

/*
 * The recorders' perf arguments, and why system-wide cases cannot run.
 * --no-bpf-event: perf 6.1's side-band thread polls with a 1 s timeout
 * that every `perf record` then waits out at exit (1.1 s for `true`,
 * 0.1 s without); the workloads load no BPF.  A kernel that lowered
 * perf_event_max_sample_rate refuses the rate: perf's default then.
 */
static void lab_probe(void)
{
	static const char *const user[] = {
		"-q -N --no-bpf-event -e cpu-clock -g -F 10000",
		"-q -N -e cpu-clock -g -F 10000",
		"-q -N -e cpu-clock -g",
	};
	static const char *const sys[] = {
		"-q -N --no-bpf-event -a -g -e cpu-clock -F 5000",
		"-q -N -a -g -e cpu-clock -F 5000",
		"-q -N -a -g -e cpu-clock",
	};
	char probe[PATHMAX];
	fmt(probe, sizeof probe, "%s/probe.data", L.dir);
	probe_args(probe, user, 3, L.user_args, sizeof L.user_args);
	if (!probe_args(probe, sys, 3, L.sys_args, sizeof L.sys_args))
		L.sys_skip = "system-wide recording refused (perf_event_paranoid, not root)";
	else if (!pd_test_sh_ok("taskset -c " SYS_CPU " true"))
		L.sys_skip = "no taskset, or no CPU " SYS_CPU " (the system-wide recipes pin the "
			     "program to it, its load to the other CPU)";
	unlink(probe);
}

static void lab_open(void)
{
	const char *dir = getenv("PD_DIFFCASES_LAB");
	if (dir && *dir) {
		L.skip = !pd_test_have_perf()				       ? "perf is not usable here"
			 : !pd_test_sh_ok("cc --version >/dev/null 2>&1") ? "no C compiler (cc)"
									   : NULL;
		copy(L.dir, sizeof L.dir, dir);
		pd_test_mkdirs(L.dir);
	} else {
		L.skip = pd_test_lab_open(true, &L.tmp);
		copy(L.dir, sizeof L.dir, L.tmp ? L.tmp : "");
	}
	if (!L.skip && !pd_test_sh_ok("readelf --version >/dev/null 2>&1"))
		L.skip = "no readelf (binutils)";
	if (L.skip)
		return;
	char cmd[PATHMAX + 64];
	fmt(cmd, sizeof cmd, "rm -rf '%s/results' && mkdir '%s/results'", L.dir, L.dir);
	if (!pd_test_sh_ok(cmd))
		L.skip = "cannot make the results folder";
	lab_probe();
}

static void lab_close(void)
{
	if (L.tmp && getenv("PD_DIFFCASES_KEEP"))
		fprintf(stderr, "diffcases: recordings kept in %s\n", L.tmp);
	else
		pd_test_lab_close(L.tmp);
	free(L.cases);
}

int main(void)
{
	lab_open();
	cases_load();
	Suite *s = suite_create("diffcases");
	for (size_t i = 0; i < L.ncases; i++) {
		TCase *tc = tcase_create(L.cases[i].name);
		tcase_set_timeout(tc, 900);
		tcase_add_loop_test(tc, test_case, (int)i, (int)i + 1);
		suite_add_tcase(s, tc);
	}
	TCase *sum = tcase_create("summary");
	tcase_add_test(sum, test_summary);
	suite_add_tcase(s, sum);
	int rc = pd_test_main(s);
	lab_close();
	return rc;
}
