/*
 * The tables of a mail.  A table opens with the robot's title and dashes
 *
 *     93faf426e3cc000c 0ede61d8589cc2d93aa78230d74 c712b4365b5b4dbe1d1380edd37
 *     ---------------- --------------------------- ---------------------------
 *            fail:runs  %reproduction    fail:runs  ...     (optional)
 *              1:4          -25%            :4     dmesg.WARNING:...
 *              %stddev     %change         %stddev  ...
 *
 * (one dash group per commit), then its rows until a blank line or text.
 * A mail may hold several: one per test machine or test case, each with
 * its own commits and parameter lines above it ("compiler/...:" and the
 * values), and the commits' subjects listed ("  93faf426e3 (\"vfs: ...\")")
 * or named on the "commit:" line of a single-commit report.  A reply
 * often quotes rows without their title: such rows, wherever they are in
 * the mail, make up an implicit table of their own (one per column count),
 * its rows read through the quotes and the comments between them.  A row
 * whose key a client moved to the next line is put back together.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct commit_subject {
	const char *id;
	size_t id_len;
	const char *subject;
} commit_subject;

enum state { NONE, HEADER, FAIL, ROWS };

typedef struct parser {
	pd_lkp_tables *t;
	const lt_text *text;
	const char *name;
	pd_error *err;
	lt_table *cur;
	bool implicit;
	enum state st;
	size_t ctx_from;          /* first line after the last table: its context */
	commit_subject *subj;
	size_t nsubj, cap_subj;
	lt_rowparse pending;      /* a row of numbers whose key is on the next line */
	size_t pending_line;
	bool have_pending;
} parser;

static bool is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Words of s[0..n), at most `max`, into w/wl; their number (max + 1: more). */
static size_t words(const char *s, size_t n, const char **w, size_t *wl, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			break;
		size_t j = i;
		while (j < n && s[j] != ' ' && s[j] != '\t')
			j++;
		if (k == max)
			return max + 1;
		w[k] = s + i;
		wl[k++] = j - i;
		i = j;
	}
	return k;
}

/* The robot's dashes line: its number of groups (0: not one). */
static size_t dash_groups(const char *s, size_t n)
{
	const char *w[LT_MAX_COLUMNS + 1];
	size_t wl[LT_MAX_COLUMNS + 1];
	size_t k = words(s, n, w, wl, LT_MAX_COLUMNS);
	if (k < 2 || k > LT_MAX_COLUMNS)
		return 0;
	for (size_t i = 0; i < k; i++) {
		if (wl[i] < 10)
			return 0;
		for (size_t j = 0; j < wl[i]; j++)
			if (w[i][j] != '-')
				return 0;
	}
	return k;
}

/* A subject line: "commit: ID (\"S\")" or "  ID (\"S\")", ID hex. */
static int note_subject(parser *p, const char *s, size_t n)
{
	if (n > 7 && memcmp(s, "commit:", 7) == 0) {
		s += 7, n -= 7;
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
	}
	size_t id = 0;
	while (id < n && is_hex(s[id]))
		id++;
	if (id < 7 || id + 4 > n || s[id] != ' ' || s[id + 1] != '(' || s[id + 2] != '"')
		return 0;
	const char *q = s + id + 3, *end = s + n;
	while (end > q && end[-1] == ' ')
		end--;
	if (end - q < 2 || end[-1] != ')' || end[-2] != '"')
		return 0;
	const char *sid = pd_arena_strndup(&p->t->arena, s, id);
	const char *sub = pd_arena_strndup(&p->t->arena, q, (size_t)(end - 2 - q));
	if (!sid || !sub || pd_grow(&p->subj, &p->cap_subj, p->nsubj + 1, sizeof *p->subj) < 0)
		return PD_ENOMEM;
	p->subj[p->nsubj++] = (commit_subject){ sid, id, sub };
	return 0;
}

/* The subject of commit w[0..n) (an id or a prefix of one), or NULL. */
static const char *subject_of(const parser *p, const char *w, size_t n)
{
	for (size_t i = p->nsubj; i-- > 0;) {
		size_t m = n < p->subj[i].id_len ? n : p->subj[i].id_len;
		if (m >= 7 && strncmp(w, p->subj[i].id, m) == 0)
			return p->subj[i].subject;
	}
	return NULL;
}

/* The parameter lines and test machine above a table (lines [from, to)). */
static int table_context(parser *p, lt_table *tab, size_t from, size_t to)
{
	const lt_text *x = p->text;
	for (size_t i = from; i < to; i++) {
		size_t n;
		const char *s = lt_unquote(x->v[i].s, x->v[i].len, &n);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		const char *tm = n > 14 ? memmem(s, n, "test machine:", 13) : NULL;
		const char *m = NULL;
		size_t mn = 0;
		if (tm) {
			m = tm + 13;
			while (m < s + n && *m == ' ')
				m++;
			mn = (size_t)(s + n - m);
		} else if (n > 10 && memmem(s, n, ": ", 2) && memmem(s, n, " threads ", 9)) {
			m = s;  /* "lkp-icl-2sp7: 64 threads 2 sockets ..." */
			mn = n;
		}
		if (m && !(tab->pub.machine = pd_arena_strndup(&p->t->arena, m, mn)))
			return PD_ENOMEM;
		if (!(n > 2 && s[n - 1] == ':' && memchr(s, '/', n) && !memchr(s, ' ', n)))
			continue;
		const char *v = NULL;
		size_t vn = 0;
		for (size_t k = i + 1; k < to && !v; k++) {
			v = lt_unquote(x->v[k].s, x->v[k].len, &vn);
			if (is_blank(v, vn))
				v = NULL;
		}
		char buf[1024];
		int w = snprintf(buf, sizeof buf, "%.*s\n  %.*s", (int)n, s, v ? (int)vn : 0,
				 v ? v : "");
		tab->pub.parameters = pd_arena_strndup(&p->t->arena, buf, w > 0 ? (size_t)w : 0);
		if (!tab->pub.parameters)
			return PD_ENOMEM;
	}
	return 0;
}

static void finish_table(parser *p)
{
	if (p->cur)
		lt_table_finish(p->cur);
	p->cur = NULL;
	p->implicit = false;
	p->st = NONE;
	p->have_pending = false;
}

/* A title and dashes at line i (title at line i - 1 when it fits). */
static int open_table(parser *p, size_t i, size_t ncol)
{
	finish_table(p);
	lt_table *tab = lt_table_add(p->t, ncol);
	if (!tab)
		return PD_ENOMEM;
	tab->explicit_title = true;
	const char *w[LT_MAX_COLUMNS + 1];
	size_t wl[LT_MAX_COLUMNS + 1], k = 0;
	if (i > 0) {
		size_t n;
		const char *s = lt_unquote(p->text->v[i - 1].s, p->text->v[i - 1].len, &n);
		k = words(s, n, w, wl, LT_MAX_COLUMNS);
	}
	for (size_t c = 0; c < ncol; c++) {
		char def[32];
		snprintf(def, sizeof def, "%s%zu", c ? "new" : "base", c);
		const char *id = k == ncol ? w[c] : def;
		size_t idl = k == ncol ? wl[c] : strlen(def);
		tab->commits[c] = pd_arena_strndup(&p->t->arena, id, idl);
		tab->subjects[c] = k == ncol ? subject_of(p, w[c], wl[c]) : NULL;
		if (!tab->commits[c])
			return PD_ENOMEM;
	}
	int rc = table_context(p, tab, p->ctx_from, i);
	p->cur = tab;
	p->st = HEADER;
	return rc;
}

/* An implicit table of `ncol` columns for rows outside any title. */
static int implicit_table(parser *p, size_t ncol)
{
	if (p->cur && p->implicit && p->cur->pub.ncolumns == ncol)
		return 0;
	finish_table(p);
	if (ncol < 2)
		return 0;
	/* the same shape as an implicit table met before: one table still */
	for (size_t i = 0; i < p->t->n; i++) {
		lt_table *t = &p->t->v[i];
		if (!t->explicit_title && t->pub.ncolumns == ncol && i + 1 == p->t->n) {
			p->cur = t;
			p->implicit = true;
			p->st = ROWS;
			return 0;
		}
	}
	lt_table *tab = lt_table_add(p->t, ncol);
	if (!tab)
		return PD_ENOMEM;
	for (size_t c = 0; c < ncol; c++) {
		char def[32];
		snprintf(def, sizeof def, "%s%zu", c ? "new" : "base", c);
		if (!(tab->commits[c] = pd_arena_strndup(&p->t->arena, def, strlen(def))))
			return PD_ENOMEM;
	}
	p->cur = tab;
	p->implicit = true;
	p->st = ROWS;
	return 0;
}

/* A fail:runs row: "1:4  -25%  :4  dmesg.KEY"; each column's runs. */
static bool fail_row(parser *p, const char *s, size_t n)
{
	const char *w[3 * LT_MAX_COLUMNS + 2];
	size_t wl[3 * LT_MAX_COLUMNS + 2];
	size_t k = words(s, n, w, wl, 3 * LT_MAX_COLUMNS + 1), c = 0;
	if (k < 3 || k > 3 * LT_MAX_COLUMNS + 1)
		return false;
	for (size_t i = 0; i + 1 < k && c < p->cur->pub.ncolumns; i++) {
		const char *colon = memchr(w[i], ':', wl[i]);
		if (!colon || colon == w[i] + wl[i] - 1)
			continue;
		size_t runs = 0;
		for (const char *d = colon + 1; d < w[i] + wl[i] && *d >= '0' && *d <= '9'; d++)
			runs = runs * 10 + (size_t)(*d - '0');
		if (runs > p->cur->fail_runs[c])
			p->cur->fail_runs[c] = runs;
		c++;
	}
	return c > 0;
}

static int add_row(parser *p, const lt_rowparse *r, size_t line)
{
	int rc = 0;
	if (!p->cur || p->implicit)
		rc = implicit_table(p, r->ncol);
	if (rc < 0)
		return rc;
	pd_lkp_metric m;
	size_t a, b, c;
	bool perf = r->key && lt_key_split(r->key, r->key_len, &m, &a, &b, &c);
	if (!p->cur) {  /* a single column: no comparison */
		p->t->other_rows += r->key != NULL && !perf;
		return 0;
	}
	if (r->ncol != p->cur->pub.ncolumns) {
		if (perf)
			return pd_error_set(p->err, PD_ECORRUPT, p->name, PD_NO_OFFSET,
					    "line %zu: %zu columns of numbers in a table of %zu commits",
					    line, r->ncol, p->cur->pub.ncolumns);
		p->t->other_rows++;
		return 0;
	}
	p->st = ROWS;
	if (!perf) {
		p->cur->pub.other_rows++;
		p->t->other_rows++;
		return 0;
	}
	pd_lkp_cell cells[LT_MAX_COLUMNS];
	for (size_t k = 0; k < r->ncol; k++)
		cells[k] = (pd_lkp_cell){ r->mean[k], lt_stddev_estimate(r->mean[k], r->pct[k]),
					  r->pct[k], r->change[k], r->change_pct[k], NULL, 0 };
	return lt_table_add_row(p->t, p->cur, r->key, r->key_len, cells, line);
}

/* The robot's header lines between the dashes and the rows. */
static bool header_line(parser *p, const char *s, size_t n)
{
	if (memmem(s, n, "fail:runs", 9)) {
		p->st = FAIL;
		return true;
	}
	if (memmem(s, n, "%stddev", 7) || memmem(s, n, "%change", 7)) {
		p->st = HEADER;
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i] != '\\' && s[i] != '|' && s[i] != ' ' && s[i] != '\t')
			return false;
	return true;  /* "    \          |                \" */
}

/* A line that is no row: it ends an explicit table once rows came. */
static void other_line(parser *p, size_t i, bool blank)
{
	p->have_pending = false;
	if (p->cur && !p->implicit && (p->st == ROWS || !blank)) {
		finish_table(p);
		p->ctx_from = i + 1;
	}
}

static int line(parser *p, size_t i)
{
	const lt_line *l = &p->text->v[i];
	size_t n;
	const char *s = lt_unquote(l->s, l->len, &n);
	int rc = note_subject(p, s, n);
	size_t groups = rc == 0 ? dash_groups(s, n) : 0;
	if (rc < 0 || groups)
		return rc < 0 ? rc : open_table(p, i, groups);
	if (p->cur && !p->implicit && (p->st == HEADER || p->st == FAIL)) {
		if (header_line(p, s, n))
			return 0;
		if (p->st == FAIL && fail_row(p, s, n)) {
			p->cur->pub.fail_rows++;
			return 0;
		}
	}
	lt_rowparse r;
	if (lt_row_parse(s, n, &r)) {
		if (r.key)
			return add_row(p, &r, l->lineno);
		p->pending = r;
		p->pending_line = l->lineno;
		p->have_pending = true;
		return 0;
	}
	if (p->have_pending && lt_lone_key(s, n)) {
		size_t k;
		p->pending.key = lt_unquote(s, n, &k);
		p->pending.key_len = k;
		while (p->pending.key_len && (p->pending.key[p->pending.key_len - 1] == ' ' ||
					      p->pending.key[p->pending.key_len - 1] == '\t'))
			p->pending.key_len--;
		p->have_pending = false;
		return add_row(p, &p->pending, p->pending_line);
	}
	if (p->cur && p->st == ROWS && memmem(s, n, "perf-profile.", 13) &&
	    !lt_lone_key(s, n))
		return pd_error_set(p->err, PD_ECORRUPT, p->name, PD_NO_OFFSET,
				    "line %zu: a perf-profile row whose numbers cannot be read",
				    l->lineno);
	other_line(p, i, is_blank(s, n));
	return 0;
}

int lt_mail_parse(pd_lkp_tables *t, const lt_text *text, const char *name, pd_error *err)
{
	parser p = { .t = t, .text = text, .name = name, .err = err };
	int rc = 0;
	for (size_t i = 0; i < text->n && rc == 0; i++)
		rc = line(&p, i);
	finish_table(&p);
	free(p.subj);
	if (rc < 0)
		return rc == PD_ENOMEM ? pd_error_set(err, rc, name, PD_NO_OFFSET, "out of memory")
				       : rc;
	/* keep the tables that have perf-profile rows, in their order */
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].pub.nrows) {
			t->v[k++] = t->v[i];
			continue;
		}
		free(t->v[i].rows);
		free(t->v[i].events);
	}
	t->n = k;
	return 0;
}

int pd_lkp_tables_read_mail_mem(pd_lkp_tables **out, const char *name, const char *text,
				size_t len, pd_error *err)
{
	if (!out || (!text && len))
		return pd_error_set(err, PD_EINVAL, name ? name : "mail", PD_NO_OFFSET,
				    "no output pointer or text given");
	*out = NULL;
	pd_lkp_tables *t;
	lt_text x;
	if (lt_tables_new(&t, name) < 0)
		return pd_error_set(err, PD_ENOMEM, name ? name : "mail", PD_NO_OFFSET,
				    "out of memory");
	int rc = lt_text_decode(&x, text ? text : "", len);
	if (rc == 0 && x.subject &&
	    !(t->subject = pd_arena_strndup(&t->arena, x.subject, strlen(x.subject))))
		rc = PD_ENOMEM;
	if (rc < 0)
		pd_error_set(err, rc, t->source, PD_NO_OFFSET, "out of memory");
	else
		rc = lt_mail_parse(t, &x, t->source, err);
	lt_text_free(&x);
	if (rc < 0) {
		pd_lkp_tables_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int pd_lkp_tables_read_mail(pd_lkp_tables **out, const char *path, pd_error *err)
{
	if (!out || !path)
		return pd_error_set(err, PD_EINVAL, "mail", PD_NO_OFFSET, "no path given");
	*out = NULL;
	char *data;
	size_t len;
	int rc = pd_read_file(path, LT_MAIL_MAX, &data, &len, err);
	if (rc < 0)
		return rc;
	rc = pd_lkp_tables_read_mail_mem(out, path, data, len, err);
	free(data);
	return rc;
}
