/*
 * The pd_lkp_tables object: the tables a mail or a set of result
 * directories holds, built row by row by mail.c and results.c, and the
 * accessors of perfdiff/robot.h.  Strings and cells live in the object's
 * arena; the growing arrays of rows and events are the tables' own until
 * the object is freed.
 *
 * A key is split once, here: the robot writes
 * "perf-profile.<metric>.<event>.<name>" since 2016, and before that
 * chains without a metric ("perf-profile.cycles-pp.a.b.c",
 * "perf-profile.cpu-cycles.a.b.c"), which are calltraces by meaning.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int lt_tables_new(pd_lkp_tables **out, const char *source)
{
	pd_lkp_tables *t = calloc(1, sizeof *t);
	if (!t)
		return PD_ENOMEM;
	pd_arena_init(&t->arena);
	t->source = pd_arena_strndup(&t->arena, source ? source : "", SIZE_MAX);
	if (!t->source) {
		pd_lkp_tables_free(t);
		return PD_ENOMEM;
	}
	*out = t;
	return 0;
}

lt_table *lt_table_add(pd_lkp_tables *t, size_t ncol)
{
	if (ncol < 2 || ncol > LT_MAX_COLUMNS || pd_grow(&t->v, &t->cap, t->n + 1, sizeof *t->v) < 0)
		return NULL;
	lt_table *tab = &t->v[t->n];
	memset(tab, 0, sizeof *tab);
	tab->runs = pd_arena_alloc(&t->arena, ncol * sizeof *tab->runs);
	tab->commits = pd_arena_alloc(&t->arena, ncol * sizeof *tab->commits);
	tab->subjects = pd_arena_alloc(&t->arena, ncol * sizeof *tab->subjects);
	if (!tab->runs || !tab->commits || !tab->subjects)
		return NULL;
	for (size_t c = 0; c < LT_MAX_COLUMNS; c++)
		tab->max_pct[c] = -1;
	tab->pub.ncolumns = ncol;
	tab->pub.commits = tab->commits;
	tab->pub.subjects = tab->subjects;
	tab->pub.runs = tab->runs;
	t->n++;
	return tab;
}

bool lt_key_split(const char *key, size_t len, pd_lkp_metric *m, size_t *ev_at,
		  size_t *ev_len, size_t *name_at)
{
	static const struct {
		const char *word;
		pd_lkp_metric m;
	} metrics[] = { { "calltrace.", PD_LKP_CALLTRACE }, { "children.", PD_LKP_CHILDREN },
			{ "self.", PD_LKP_SELF }, { "func.", PD_LKP_SELF } };
	static const char prefix[] = "perf-profile.";
	size_t pl = sizeof prefix - 1, at = pl;
	if (len <= pl || memcmp(key, prefix, pl) != 0)
		return false;
	*m = PD_LKP_CALLTRACE;  /* an old chain unless a metric follows */
	for (size_t i = 0; i < sizeof metrics / sizeof *metrics; i++) {
		size_t wl = strlen(metrics[i].word);
		if (len - pl > wl && memcmp(key + pl, metrics[i].word, wl) == 0) {
			*m = metrics[i].m;
			at = pl + wl;
			break;
		}
	}
	const char *dot = memchr(key + at, '.', len - at);
	if (!dot || dot == key + at || (size_t)(dot - key) + 1 >= len)
		return false;
	*ev_at = at;
	*ev_len = (size_t)(dot - key) - at;
	*name_at = (size_t)(dot - key) + 1;
	return true;
}

/* The table's copy of event e[0..n), added to its list when new. */
static const char *table_event(pd_lkp_tables *t, lt_table *tab, const char *e, size_t n)
{
	for (size_t i = 0; i < tab->pub.nevents; i++)
		if (strlen(tab->events[i]) == n && memcmp(tab->events[i], e, n) == 0)
			return tab->events[i];
	char *s = pd_arena_strndup(&t->arena, e, n);
	if (!s || pd_grow(&tab->events, &tab->cap_events, tab->pub.nevents + 1,
			  sizeof *tab->events) < 0)
		return NULL;
	tab->events[tab->pub.nevents++] = s;
	tab->pub.events = tab->events;
	return s;
}

int lt_table_add_row(pd_lkp_tables *t, lt_table *tab, const char *key, size_t len,
		     const pd_lkp_cell *cells, size_t line)
{
	pd_lkp_metric m;
	size_t ev_at, ev_len, name_at;
	if (!lt_key_split(key, len, &m, &ev_at, &ev_len, &name_at))
		return PD_EINVAL;
	size_t nc = tab->pub.ncolumns;
	char *k = pd_arena_strndup(&t->arena, key, len);
	pd_lkp_cell *c = pd_arena_memdup(&t->arena, cells, nc * sizeof *c);
	const char *ev = table_event(t, tab, key + ev_at, ev_len);
	if (!k || !c || !ev || pd_grow(&tab->rows, &tab->cap_rows, tab->pub.nrows + 1,
				       sizeof *tab->rows) < 0)
		return PD_ENOMEM;
	tab->rows[tab->pub.nrows++] = (pd_lkp_row){ k, m, ev, k + name_at, c, line };
	tab->pub.rows = tab->rows;
	if (!tab->pub.line)
		tab->pub.line = line;
	for (size_t i = 0; i < nc; i++)
		if (c[i].stddev_pct > tab->max_pct[i])
			tab->max_pct[i] = c[i].stddev_pct;
	return 0;
}

double lt_stddev_estimate(double mean, int pct)
{
	double m = fabs(mean);
	if (pct < 0)
		return m * 0.01;  /* printed only above 2 %: the middle of [0, 2] */
	return m * ((double)pct + 0.5) / 100.0;  /* truncated: [pct, pct + 1) */
}

/* The fewest runs that a relative standard deviation of `pct` % (as
 * printed, truncated) allows: one run of n carrying the whole mean gives
 * 100·√(n − 1) %, the most there is for values that are never negative. */
static size_t runs_bound(int pct)
{
	if (pct <= 100)
		return 2;
	double s = (double)pct / 100.0;
	return (size_t)ceil(1.0 + s * s - 1e-9);
}

void lt_table_finish(lt_table *tab)
{
	size_t nc = tab->pub.ncolumns;
	bool fail = false;
	for (size_t c = 0; c < nc; c++)
		fail |= tab->fail_runs[c] > 0;
	bool from_pct = false;
	for (size_t c = 0; c < nc; c++) {
		if (tab->pub.runs_source == PD_LKP_RUNS_COUNTED)
			continue;
		size_t n = LT_ROBOT_MIN_RUNS;
		if (fail && tab->fail_runs[c]) {
			n = tab->fail_runs[c];
		} else if (tab->max_pct[c] > 100) {
			size_t b = runs_bound(tab->max_pct[c]);
			from_pct |= b > n;
			n = b > n ? b : n;
		}
		tab->runs[c] = n;
	}
	if (tab->pub.runs_source != PD_LKP_RUNS_COUNTED)
		tab->pub.runs_source = fail ? PD_LKP_RUNS_FAIL_RUNS
				       : from_pct ? PD_LKP_RUNS_STDDEV : PD_LKP_RUNS_ASSUMED;
	for (size_t r = 0; r < tab->pub.nrows; r++) {
		pd_lkp_cell *cells = (pd_lkp_cell *)tab->rows[r].cells;
		for (size_t c = 0; c < nc; c++)
			if (!cells[c].runs)
				cells[c].nruns = tab->runs[c];
	}
}

/* ------------------------------------------------------------ public */

size_t pd_lkp_tables_count(const pd_lkp_tables *t)
{
	return t ? t->n : 0;
}

const pd_lkp_table *pd_lkp_tables_at(const pd_lkp_tables *t, size_t i)
{
	return t && i < t->n ? &t->v[i].pub : NULL;
}

size_t pd_lkp_tables_other_rows(const pd_lkp_tables *t)
{
	return t ? t->other_rows : 0;
}

const char *pd_lkp_tables_source(const pd_lkp_tables *t)
{
	return t ? t->source : NULL;
}

const char *pd_lkp_tables_subject(const pd_lkp_tables *t)
{
	return t ? t->subject : NULL;
}

void pd_lkp_tables_free(pd_lkp_tables *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].rows);
		free(t->v[i].events);
	}
	free(t->v);
	pd_arena_free(&t->arena);
	free(t);
}

const char *pd_lkp_metric_name(pd_lkp_metric m)
{
	static const char *const names[] = { "calltrace", "children", "self" };
	return (unsigned)m < 3 ? names[m] : NULL;
}
