/*
 * The robot's result directories as one table with real per-run values.
 *
 * For each commit the robot keeps a directory of runs; `matrix.json` in it
 * maps every key to the list of its per-run values (a key a run lacked is
 * a 0 there), and each run's own directory (0/, 1/, ...) has the run's
 * values in `stats.json` (and `perf-profile.json` for the profile's keys),
 * one number per key.  A column is read from `matrix.json` when there is
 * one, else from the runs' files in the order of their numbers; a path
 * that is a file is read as a matrix.  A key a column lacks is 0 in each
 * of its runs, as the robot fills it.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "util/u64map.h"

#define MAX_RUNS 4096

typedef struct rkey {
	char *key;
	bool perf;
	double *vals[LT_MAX_COLUMNS];   /* per column: its values, nv[col] of them */
	size_t nv[LT_MAX_COLUMNS];
} rkey;

typedef struct reader {
	pd_lkp_tables *t;
	rkey *keys;
	size_t nkeys, cap;
	pd_u64map index;                /* hash of key -> index + 1 (chained by probing) */
	size_t col, run;                /* where values go now */
	size_t runs[LT_MAX_COLUMNS];
	bool matrix;                    /* values are whole lists */
	pd_error *err;
} reader;

static uint64_t key_hash(const char *k, uint64_t salt)
{
	return pd_mix64(pd_hash_str(PD_HASH_INIT, k) + salt);
}

/* The entry of `key`, added when new; NULL on ENOMEM. */
static rkey *entry(reader *r, const char *key)
{
	for (uint64_t salt = 0;; salt++) {
		uintptr_t v = (uintptr_t)pd_u64map_get(&r->index, key_hash(key, salt));
		if (!v)
			break;
		if (strcmp(r->keys[v - 1].key, key) == 0)
			return &r->keys[v - 1];
	}
	if (pd_grow(&r->keys, &r->cap, r->nkeys + 1, sizeof *r->keys) < 0)
		return NULL;
	rkey *e = &r->keys[r->nkeys];
	memset(e, 0, sizeof *e);
	pd_lkp_metric m;
	size_t a, b, c;
	e->perf = lt_key_split(key, strlen(key), &m, &a, &b, &c);
	if (!(e->key = strdup(key)))
		return NULL;
	uint64_t salt = 0;
	while (pd_u64map_get(&r->index, key_hash(key, salt)))
		salt++;
	if (pd_u64map_put(&r->index, key_hash(key, salt), (void *)(uintptr_t)(r->nkeys + 1)) < 0) {
		free(e->key);
		return NULL;
	}
	r->nkeys++;
	return e;
}

/* Room for `n` runs of column `col` in e, the new ones 0. */
static int room(rkey *e, size_t col, size_t n)
{
	if (n <= e->nv[col] && e->vals[col])
		return 0;
	double *v = realloc(e->vals[col], (n ? n : 1) * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (size_t i = e->nv[col]; i < n; i++)
		v[i] = 0;
	e->vals[col] = v;
	e->nv[col] = n;
	return 0;
}

/* A member of a file being read (lt_json_member_fn). */
static int member(void *ctx, const char *key, const double *v, size_t n)
{
	reader *r = ctx;
	rkey *e = entry(r, key);
	if (!e)
		return PD_ENOMEM;
	size_t c = r->col;
	if (r->matrix) {
		if (n > MAX_RUNS)
			return pd_error_set(r->err, PD_ELIMIT, key, PD_NO_OFFSET,
					    "more than %d runs", MAX_RUNS);
		if (e->vals[c])
			return 0;  /* a key twice: the first stays */
		if (room(e, c, n) < 0)
			return PD_ENOMEM;
		memcpy(e->vals[c], v, n * sizeof *v);
		if (n > r->runs[c])
			r->runs[c] = n;
		return 0;
	}
	/* one run's file: a list there is a monitor's samples, taken by its mean */
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	if (room(e, c, r->run + 1) < 0)
		return PD_ENOMEM;
	e->vals[c][r->run] = n ? sum / (double)n : 0;
	return 0;
}

static int read_json(reader *r, const char *path)
{
	char *data;
	size_t len;
	int rc = pd_read_file(path, LT_MAIL_MAX, &data, &len, r->err);
	if (rc == 0) {
		rc = lt_json_members(data, len, path, member, r, r->err);
		if (rc == PD_ENOMEM)
			pd_error_set(r->err, rc, path, PD_NO_OFFSET, "out of memory");
		free(data);
	}
	return rc;
}

static bool is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int by_number(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a, NULL, 10), y = strtoul(*(char *const *)b, NULL, 10);
	return (x > y) - (x < y);
}

/* The numbered run directories of `dir`, sorted; *n of them (malloc'd). */
static int run_dirs(const char *dir, char ***out, size_t *n, pd_error *err)
{
	DIR *d = opendir(dir);
	*out = NULL;
	*n = 0;
	if (!d)
		return pd_error_set(err, PD_EIO, dir, PD_NO_OFFSET, "cannot open: %s",
				    strerror(errno));
	size_t cap = 0;
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		const char *s = de->d_name;
		size_t k = strspn(s, "0123456789");
		if (k == 0 || s[k] || k > 9)
			continue;
		if (*n == MAX_RUNS || pd_grow(out, &cap, *n + 1, sizeof **out) < 0 ||
		    !((*out)[*n] = strdup(s)))
			rc = *n == MAX_RUNS ? pd_error_set(err, PD_ELIMIT, dir, PD_NO_OFFSET,
							    "more than %d runs", MAX_RUNS)
					    : pd_error_set(err, PD_ENOMEM, dir, PD_NO_OFFSET,
							   "out of memory");
		else
			(*n)++;
	}
	closedir(d);
	if (rc == 0)
		qsort(*out, *n, sizeof **out, by_number);
	return rc;
}

/* Column r->col from the runs of `dir` (no matrix.json there). */
static int read_runs(reader *r, const char *dir)
{
	char **runs;
	size_t n;
	int rc = run_dirs(dir, &runs, &n, r->err);
	char path[4096];
	r->matrix = false;
	for (size_t i = 0; i < n && rc == 0; i++) {
		r->run = r->runs[r->col];
		bool any = false;
		static const char *const files[] = { "perf-profile.json", "stats.json" };
		for (size_t f = 0; f < 2 && rc == 0; f++) {
			snprintf(path, sizeof path, "%s/%s/%s", dir, runs[i], files[f]);
			if (is_file(path)) {
				rc = read_json(r, path);
				any = true;
			}
		}
		r->runs[r->col] += any;
	}
	for (size_t i = 0; i < n; i++)
		free(runs[i]);
	free(runs);
	if (rc == 0 && r->runs[r->col] == 0)
		rc = pd_error_set(r->err, PD_EINVAL, dir, PD_NO_OFFSET,
				  "no matrix.json, and no run directory with perf-profile.json "
				  "or stats.json");
	return rc;
}

static int read_column(reader *r, const char *path)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return pd_error_set(r->err, PD_EIO, path, PD_NO_OFFSET, "cannot open: %s",
				    strerror(errno));
	char m[4096];
	snprintf(m, sizeof m, "%s/matrix.json", path);
	if (S_ISREG(sb.st_mode) || is_file(m)) {
		r->matrix = true;
		int rc = read_json(r, S_ISREG(sb.st_mode) ? path : m);
		if (rc == 0 && r->runs[r->col] == 0)
			r->runs[r->col] = 1;
		return rc;
	}
	return read_runs(r, path);
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const rkey *)a)->key, ((const rkey *)b)->key);
}

/* Cell `c` of key e: its runs (zero-filled), mean and stddev. */
static int make_cell(pd_lkp_tables *t, const rkey *e, size_t c, size_t runs, pd_lkp_cell *out)
{
	double *v = pd_arena_alloc(&t->arena, (runs ? runs : 1) * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	double sum = 0, ss = 0;
	for (size_t i = 0; i < runs; i++) {
		v[i] = i < e->nv[c] ? e->vals[c][i] : 0;
		sum += v[i];
	}
	double mean = runs ? sum / (double)runs : 0;
	for (size_t i = 0; i < runs; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	double sd = runs ? sqrt(ss / (double)runs) : 0;
	double rel = mean != 0 ? 100 * sd / fabs(mean) : 0;
	*out = (pd_lkp_cell){ mean, sd, rel > 2 ? (int)rel : -1, NAN, false, v, runs };
	return 0;
}

static int build_table(reader *r, const char *const *paths, size_t np)
{
	pd_lkp_tables *t = r->t;
	lt_table *tab = lt_table_add(t, np);
	if (!tab)
		return PD_ENOMEM;
	tab->pub.runs_source = PD_LKP_RUNS_COUNTED;
	for (size_t c = 0; c < np; c++) {
		const char *b = strrchr(paths[c], '/');
		b = b && b[1] ? b + 1 : paths[c];
		if (!(tab->commits[c] = pd_arena_strndup(&t->arena, b, strlen(b))))
			return PD_ENOMEM;
		tab->runs[c] = r->runs[c];
	}
	qsort(r->keys, r->nkeys, sizeof *r->keys, by_key);
	for (size_t i = 0; i < r->nkeys; i++) {
		const rkey *e = &r->keys[i];
		if (!e->perf) {
			tab->pub.other_rows++;
			t->other_rows++;
			continue;
		}
		pd_lkp_cell cells[LT_MAX_COLUMNS];
		for (size_t c = 0; c < np; c++)
			if (make_cell(t, e, c, r->runs[c], &cells[c]) < 0)
				return PD_ENOMEM;
		int rc = lt_table_add_row(t, tab, e->key, strlen(e->key), cells, 0);
		if (rc < 0)
			return rc;
	}
	lt_table_finish(tab);
	if (tab->pub.nrows == 0) {  /* no perf-profile key: no table */
		free(tab->rows);
		free(tab->events);
		t->n--;
	}
	return 0;
}

static void reader_free(reader *r)
{
	for (size_t i = 0; i < r->nkeys; i++) {
		free(r->keys[i].key);
		for (size_t c = 0; c < LT_MAX_COLUMNS; c++)
			free(r->keys[i].vals[c]);
	}
	free(r->keys);
	pd_u64map_free(&r->index);
}

int pd_lkp_tables_read_results(pd_lkp_tables **out, const char *const *paths, size_t npaths,
			       pd_error *err)
{
	if (!out || !paths || npaths < 2 || npaths > LT_MAX_COLUMNS)
		return pd_error_set(err, PD_EINVAL, "results", PD_NO_OFFSET,
				    "two to %d result directories needed", LT_MAX_COLUMNS);
	*out = NULL;
	reader r = { .err = err };
	pd_u64map_init(&r.index);
	int rc = lt_tables_new(&r.t, paths[0]);
	if (rc < 0) {
		pd_u64map_free(&r.index);
		return pd_error_set(err, rc, paths[0], PD_NO_OFFSET, "out of memory");
	}
	for (size_t c = 0; c < npaths && rc == 0; c++) {
		r.col = c;
		rc = paths[c] ? read_column(&r, paths[c])
			      : pd_error_set(err, PD_EINVAL, "results", PD_NO_OFFSET, "no path");
	}
	if (rc == 0 && (rc = build_table(&r, paths, npaths)) < 0)
		pd_error_set(err, rc, paths[0], PD_NO_OFFSET, "out of memory");
	reader_free(&r);
	if (rc < 0) {
		pd_lkp_tables_free(r.t);
		return rc;
	}
	*out = r.t;
	return 0;
}
