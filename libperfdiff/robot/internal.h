/*
 * The parts of the robot stage (perfdiff/robot.h):
 *
 *   tables.c   the pd_lkp_tables object: tables under construction, their
 *              rows and cells, the keys split into metric, event and name
 *   text.c     a mail's text as decoded lines: headers and MIME parts,
 *              quoted-printable and base64, each line with the line of
 *              the file it came from
 *   row.c      one line of a table: the robot's columns of numbers and
 *              its key, whatever the mail did to the "±" and the spaces
 *   mail.c     the tables of a mail: titles, fail:runs sections, rows,
 *              wrapped and quoted lines, commit subjects, parameters
 *   json.c     a small JSON reader for the robot's result files
 *   results.c  result directories (matrix.json, or one stats file per
 *              run) as one table with per-run values
 */
#ifndef PD_ROBOT_INTERNAL_H
#define PD_ROBOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "perfdiff/robot.h"
#include "util/util.h"

#define LT_MAX_COLUMNS 16           /* commit columns a table may have */
#define LT_MAIL_MAX (256u << 20)    /* bytes of a mail or result file read at most */
#define LT_ROBOT_MIN_RUNS 3         /* the robot compares nothing with fewer */

/* ------------------------------------------------------------ tables.c */

/* A table under construction: the public one and its growing arrays. */
typedef struct lt_table {
	pd_lkp_table pub;
	pd_lkp_row *rows;
	size_t cap_rows;
	const char **events;
	size_t cap_events;
	size_t *runs;                  /* [ncolumns] */
	const char **commits, **subjects;
	int max_pct[LT_MAX_COLUMNS];   /* largest "±" printed per column */
	size_t fail_runs[LT_MAX_COLUMNS];
	bool explicit_title;           /* a dashes line opened it */
} lt_table;

struct pd_lkp_tables {
	pd_arena arena;
	const char *source;
	const char *subject;
	lt_table *v;
	size_t n, cap;
	size_t other_rows;
};

int lt_tables_new(pd_lkp_tables **out, const char *source);
/* A new table of `ncol` columns (2..LT_MAX_COLUMNS); NULL on ENOMEM. */
lt_table *lt_table_add(pd_lkp_tables *t, size_t ncol);
/* The last table, NULL when none. */
static inline lt_table *lt_table_last(pd_lkp_tables *t)
{
	return t->n ? &t->v[t->n - 1] : NULL;
}
/* Split "perf-profile.<metric>.<event>.<name>" (or an old chain,
 * "perf-profile.<event>.<frames>"): true for a perf-profile key. */
bool lt_key_split(const char *key, size_t len, pd_lkp_metric *m, size_t *ev_at,
		  size_t *ev_len, size_t *name_at);
/* Append a row for `key` (a perf-profile key) with `cells` (copied,
 * ncolumns of them) to table `tab`.  0 or PD_ENOMEM. */
int lt_table_add_row(pd_lkp_tables *t, lt_table *tab, const char *key, size_t len,
		     const pd_lkp_cell *cells, size_t line);
/* Settle each column's runs (fail:runs, else the "±" bound) and point
 * every cell at them.  Called once per table when it is complete. */
void lt_table_finish(lt_table *tab);
/* The middle of what a printed "±pct%" of `mean` allows, in points; 1 %
 * of the mean when none was printed, 0 for a zero mean. */
double lt_stddev_estimate(double mean, int pct);

/* ------------------------------------------------------------ text.c */

typedef struct lt_line {
	const char *s;   /* not NUL-terminated */
	size_t len;
	size_t lineno;   /* 1-based line of the file where it starts */
} lt_line;

typedef struct lt_text {
	lt_line *v;
	size_t n, cap;
	pd_buf store;        /* decoded bytes the lines point into (stable once done) */
	char *subject;       /* malloc'd, NULL when none */
} lt_text;

/* The body of mail `raw` as lines, decoded (MIME parts, quoted-printable,
 * base64); a text without headers is taken as a body.  0 or PD_ENOMEM. */
int lt_text_decode(lt_text *out, const char *raw, size_t len);
void lt_text_free(lt_text *t);

/* ------------------------------------------------------------ row.c */

/* One line as the robot prints a row: per column the mean, the printed
 * "±" (-1 none) and the change against column 0 (NAN for the first). */
typedef struct lt_rowparse {
	size_t ncol;
	double mean[LT_MAX_COLUMNS];
	int pct[LT_MAX_COLUMNS];
	double change[LT_MAX_COLUMNS];
	bool change_pct[LT_MAX_COLUMNS];
	const char *key;     /* into the line; NULL when the line has numbers only */
	size_t key_len;
} lt_rowparse;

/* The line's quote markers ("> > ") and leading blanks skipped. */
const char *lt_unquote(const char *s, size_t len, size_t *rest);
/* Parse s[0..len) (unquoted) as a row: true when it is one, numbers
 * first and a key last, or numbers only (key NULL: a row whose key a
 * mail client moved to the next line). */
bool lt_row_parse(const char *s, size_t len, lt_rowparse *out);
/* Is s[0..len) (unquoted) a lone key, the end of such a wrapped row? */
bool lt_lone_key(const char *s, size_t len);

/* ------------------------------------------------------------ mail.c */

int lt_mail_parse(pd_lkp_tables *t, const lt_text *text, const char *name, pd_error *err);

/* ------------------------------------------------------------ json.c */

/* Called for each member of the top-level object whose value is a number
 * or an array of numbers (other values are skipped): `key` (NUL-terminated,
 * valid during the call), the values, how many.  Non-zero stops. */
typedef int (*lt_json_member_fn)(void *ctx, const char *key, const double *v, size_t n);
/* Read JSON text s[0..len) named `name`: a top-level object.  0,
 * PD_ECORRUPT (the message names the file and line) or PD_ENOMEM, or what
 * `fn` returned. */
int lt_json_members(const char *s, size_t len, const char *name, lt_json_member_fn fn,
		    void *ctx, pd_error *err);

#endif
