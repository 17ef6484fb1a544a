/*
 * perfdiff/robot.h — the kernel test robot's comparison tables, read back.
 *
 * What reaches a kernel developer is rarely a perf.data file: it is the
 * robot's e-mail, whose `%stddev %change %stddev` table lists the keys that
 * changed between two (or more) commits.  report.h computes those keys
 * from a profile; this header reads them back from where they are found:
 *
 *   - a mail, as archived (headers or none, quoted-printable or 8bit,
 *     quoted "> > " in a reply, lines wrapped or with their white space
 *     collapsed by a mail client), holding one table or several (one per
 *     test machine or test case), each with two or more commit columns:
 *
 *         93faf426e3cc000c 0ede61d8589cc2d93aa78230d74
 *         ---------------- ---------------------------
 *                %stddev     %change         %stddev
 *                    \          |                \
 *           19.99 ±  4%      -2.2       17.74        perf-profile.calltrace.cycles-pp.fput...
 *            1.48 ±  5%      +0.5        1.98 ±  3%  perf-profile.children.cycles-pp.__fdget
 *
 *     The change column is points for perf-profile keys in recent mails
 *     and percent ("-13.8%") in older ones; the "±" may come as "?",
 *     "ą", "+-", "A+-", "~", "Â±" or nothing at all; a `fail:runs
 *     %reproduction fail:runs` section before the `%stddev` header gives
 *     each commit's number of runs.  Only perf-profile rows are kept
 *     (calltrace, children, self, and the chains of old mails,
 *     "perf-profile.cycles-pp.a.b.c" or "perf-profile.cpu-cycles.a.b.c",
 *     taken as calltrace); every other row is counted.
 *   - result directories, one per commit, as the robot keeps them: a
 *     directory's `matrix.json` maps each key to its list of per-run
 *     values; without it, each numbered subdirectory is a run whose
 *     `perf-profile.json` or `stats.json` maps keys to values.  Such
 *     tables have real per-run values, so a comparison of two directories
 *     is tested on their real run-to-run variation.
 *
 * The values are the robot's: a cell's `mean` is the mean over the runs
 * (a run lacking the key counted as 0), its standard deviation the
 * population one.  A mail prints the standard deviation relative to the
 * mean, truncated to an integer, and only when it exceeds 2 %: a cell
 * keeps what was printed (`stddev_pct`) and an estimate in points
 * (`stddev`: the middle of what the printed value allows, 1 % of the mean
 * when it was not printed, 0 for a mean printed as 0.00 without one, which
 * the robot prints when every run lacks the key).  The number of runs of
 * a mail's column is its fail:runs count when the mail has one; else the
 * fewest runs its largest "±" allows (a relative standard deviation of
 * s % needs at least 1 + (s/100)² runs: "±299%" is ten), and never fewer
 * than 3, the fewest the robot compares.
 *
 *     pd_lkp_tables *t;
 *     pd_error err;
 *     if (pd_lkp_tables_read_mail(&t, "report.eml", &err) < 0)
 *         return fprintf(stderr, "%s\n", err.message), 2;
 *     for (size_t i = 0; i < pd_lkp_tables_count(t); i++) {
 *         const pd_lkp_table *tab = pd_lkp_tables_at(t, i);
 *         for (size_t r = 0; r < tab->nrows; r++)
 *             printf("%s %.2f -> %.2f\n", tab->rows[r].key,
 *                    tab->rows[r].cells[0].mean, tab->rows[r].cells[1].mean);
 *     }
 *     pd_lkp_tables_free(t);
 *
 * Errors: a file that cannot be read, a perf-profile row whose numbers do
 * not fit its table, or a JSON file that is not JSON, fail with one line
 * naming the file and the line.  A mail without perf-profile rows is no
 * error: its tables have no rows (pd_lkp_tables_other_rows() counts the
 * rows of other metrics it had).
 *
 * Lifetime: everything a pd_lkp_tables hands out lives until
 * pd_lkp_tables_free().  The object is read-only once made: several
 * threads may read it at once.  Nothing here starts a thread.
 */
#ifndef PERFDIFF_ROBOT_H
#define PERFDIFF_ROBOT_H

#include <stdbool.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The robot's three perf-profile metrics (report.h, diff.h's rows). */
typedef enum pd_lkp_metric {
	PD_LKP_CALLTRACE = 0, /**< a caller path, callee first, cut to five frames */
	PD_LKP_CHILDREN = 1,  /**< a function's inclusive share */
	PD_LKP_SELF = 2,      /**< a function's exclusive share */
} pd_lkp_metric;

/** Where a column's number of runs comes from. */
typedef enum pd_lkp_runs_source {
	PD_LKP_RUNS_ASSUMED = 0,   /**< nothing in the mail says: the robot's least, 3 */
	PD_LKP_RUNS_STDDEV = 1,    /**< the fewest its largest printed "±" allows (≥ 3) */
	PD_LKP_RUNS_FAIL_RUNS = 2, /**< the mail's fail:runs section */
	PD_LKP_RUNS_COUNTED = 3,   /**< result directories: the runs read */
} pd_lkp_runs_source;

/** One key's value in one column. */
typedef struct pd_lkp_cell {
	double mean;         /**< mean over the runs, in points of the event's total */
	double stddev;       /**< population standard deviation, points (an estimate
	                          from the printed "±" for a mail; see above) */
	int stddev_pct;      /**< the "±N%" as printed; -1 when none was */
	double change;       /**< the change printed against column 0 (points, or %
	                          when `change_pct`); NAN for column 0 and results */
	bool change_pct;     /**< the change was printed relative, with '%' */
	const double *runs;  /**< each run's value (result directories); NULL for a mail */
	size_t nruns;        /**< the column's runs (as the table's `runs`) */
} pd_lkp_cell;

/** One perf-profile row. */
typedef struct pd_lkp_row {
	const char *key;     /**< the whole key ("perf-profile.children.cycles-pp.__fdget") */
	pd_lkp_metric metric;
	const char *event;   /**< the robot's event name ("cycles-pp") */
	const char *name;    /**< what follows the event: a symbol, or a calltrace's
	                          frames callee first joined by '.' */
	const pd_lkp_cell *cells; /**< one per column of its table */
	size_t line;         /**< 1-based line of the mail it was read from (0: results) */
} pd_lkp_row;

/** One comparison table: a base column (0) and one or more others. */
typedef struct pd_lkp_table {
	size_t ncolumns;
	const char *const *commits;  /**< per column: the commit as the table's title
	                                  line names it, or the result directory */
	const char *const *subjects; /**< per column: the commit's subject when the
	                                  mail gives it, else NULL */
	const size_t *runs;          /**< per column: its number of runs */
	pd_lkp_runs_source runs_source;
	const char *parameters;      /**< the parameter lines above the table
	                                  ("compiler/...:\n  gcc-12/..."), or NULL */
	const char *machine;         /**< the test machine, when the mail names it */
	const pd_lkp_row *rows;      /**< its perf-profile rows, in the mail's order */
	size_t nrows;
	const char *const *events;   /**< the events its rows have, first seen first */
	size_t nevents;
	size_t other_rows;           /**< rows of other metrics (counted, not kept) */
	size_t fail_rows;            /**< rows of its fail:runs section */
	size_t line;                 /**< 1-based line of its first row (0: results) */
} pd_lkp_table;

typedef struct pd_lkp_tables pd_lkp_tables;

/**
 * Read the tables of a mail (a file of one message, as archived).
 * @return 0, PD_EIO (cannot read), PD_ECORRUPT (a perf-profile row that
 *         does not fit its table: the message names the file and line),
 *         PD_ELIMIT (above 256 MB) or PD_ENOMEM.
 */
PD_EXTERN(int) pd_lkp_tables_read_mail(pd_lkp_tables **out, const char *path, pd_error *err);

/**
 * The same from memory: `text` (`len` bytes, not NUL-terminated, copied)
 * named `name` in messages.
 */
PD_EXTERN(int) pd_lkp_tables_read_mail_mem(pd_lkp_tables **out, const char *name,
					   const char *text, size_t len, pd_error *err);

/**
 * One table from result directories (or matrix-style JSON files), one per
 * column, the base first: `paths[0]` against each of the others.  Keys
 * that are not perf-profile keys are counted in `other_rows`; a key a
 * column lacks counts 0 in each of its runs.
 * @return 0, PD_EINVAL (fewer than two paths), PD_EIO, PD_ECORRUPT (not
 *         JSON: file and line named), PD_ELIMIT or PD_ENOMEM.
 */
PD_EXTERN(int) pd_lkp_tables_read_results(pd_lkp_tables **out, const char *const *paths,
					  size_t npaths, pd_error *err);

/** The tables found, in the mail's order (0 for a mail without any). */
PD_EXTERN(size_t) pd_lkp_tables_count(const pd_lkp_tables *t);
/** Table `i`, or NULL when out of range. */
PD_EXTERN(const pd_lkp_table *) pd_lkp_tables_at(const pd_lkp_tables *t, size_t i);
/** Rows of other metrics in the whole input (tables and loose rows alike). */
PD_EXTERN(size_t) pd_lkp_tables_other_rows(const pd_lkp_tables *t);
/** The file read ("-" style names are the caller's). */
PD_EXTERN(const char *) pd_lkp_tables_source(const pd_lkp_tables *t);
/** The mail's subject line, decoded and unfolded; NULL when it has none. */
PD_EXTERN(const char *) pd_lkp_tables_subject(const pd_lkp_tables *t);

/** Free.  NULL is allowed. */
PD_EXTERN(void) pd_lkp_tables_free(pd_lkp_tables *t);

/** "calltrace", "children", "self"; NULL when out of range. */
PD_EXTERN(const char *) pd_lkp_metric_name(pd_lkp_metric m);

#ifdef __cplusplus
}
#endif

#endif
