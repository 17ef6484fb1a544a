/*
 * pd_explain_write(): the explanation of a robot's mail (or result
 * directories), one comparison per table and column.  Each comparison is
 * a pd_diff (pd_diff_new_lkp()) written as pd_diff_write() writes any
 * diff -- the explained shifts first, each with its two raw rows under
 * it, then the robot's table of the other significant rows -- under a
 * header that says which table and commits it is, and with a footer of
 * what a table's numbers rest on (its runs and where their number comes
 * from, the test on means and standard deviations) in place of a
 * profile's.  JSON is one "perfdiff.diff/1" document a line per
 * comparison, each with a "table" object (pdo_diff_json_table()).
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "util/util.h"

static const char *runs_source(pd_lkp_runs_source s)
{
	switch (s) {
	case PD_LKP_RUNS_FAIL_RUNS:
		return "from the mail's fail:runs section";
	case PD_LKP_RUNS_STDDEV:
		return "the fewest the columns' largest \"±\" allow, at least the robot's 3";
	case PD_LKP_RUNS_COUNTED:
		return "the runs read";
	default:
		return "not given: the robot's least, 3";
	}
}

/* "7cb537b6f6d7d652 ("file: massage ...")" of column c. */
static void put_commit(pd_writer *w, const pd_lkp_table *t, size_t c)
{
	pdo_put_escaped(w, t->commits[c]);
	if (t->subjects[c]) {
		pdo_puts(w, " (\"");
		pdo_put_escaped(w, t->subjects[c]);
		pdo_puts(w, "\")");
	}
	pdo_printf(w, ", %zu run%s\n", t->runs[c], t->runs[c] == 1 ? "" : "s");
}

/* The table and columns of comparison `d`, before its shifts. */
static void put_header(pd_writer *w, const pd_lkp_tables *t, const pd_diff *d)
{
	size_t bc, nc, ti = 0;
	const pd_lkp_table *tab = pd_diff_lkp_table(d, &bc, &nc);
	while (ti < pd_lkp_tables_count(t) && pd_lkp_tables_at(t, ti) != tab)
		ti++;
	pdo_printf(w, "\ntable %zu of %zu", ti + 1, pd_lkp_tables_count(t));
	if (tab->line)
		pdo_printf(w, " (line %zu)", tab->line);
	pdo_printf(w, ", column %zu against column %zu, event ", nc, bc);
	pdo_put_escaped(w, pd_diff_event(d));
	pdo_putc(w, '\n');
	if (tab->machine) {
		pdo_puts(w, "  test machine: ");
		pdo_put_escaped(w, tab->machine);
		pdo_putc(w, '\n');
	}
	if (tab->parameters) {
		pdo_puts(w, "  ");
		for (const char *p = tab->parameters; *p; p++) {
			pdo_putc(w, *p);
			if (*p == '\n')
				pdo_puts(w, "  ");
		}
		pdo_putc(w, '\n');
	}
	pdo_puts(w, "  base: ");
	put_commit(w, tab, bc);
	pdo_puts(w, "  new:  ");
	put_commit(w, tab, nc);
	pdo_putc(w, '\n');
}

void pdo_diff_table_footer(const pdo_diff *v, size_t shown, size_t rels_hidden, pd_writer *w)
{
	size_t bc, nc;
	const pd_lkp_table *t = pd_diff_lkp_table(v->d, &bc, &nc);
	pdo_printf(w, "runs: %zu (base) and %zu (new), %s\n", t->runs[bc], t->runs[nc],
		   runs_source(t->runs_source));
	pdo_puts(w, "test: Welch's t on each column's mean, standard deviation and runs (a\n"
		    "      shift on its rows' means summed, their variances summed");
	pdo_puts(w, t->runs_source == PD_LKP_RUNS_COUNTED ? "; with the runs' values, their\n"
							   "      sums)\n" : ")\n");
	pdo_puts(w, "trees: rebuilt from the keys (calltrace paths joined, each function on\n"
		    "      its own); a value the table does not list is an estimate, no evidence\n");
	pdo_printf(w, "significant: |change| >= %g points and Benjamini-Hochberg q-value <= %g\n"
		      "      over the %zu rows that could reach both\n",
		   v->opts.min_change, v->opts.fdr, pd_diff_tested_count(v->d));
	size_t n = pd_diff_row_count(v->d);
	if (shown < n)
		pdo_printf(w, "%zu of %zu rows not shown: not significant, or through a shift "
			      "(--all shows them)\n", n - shown, n);
	if (rels_hidden)
		pdo_printf(w, "%zu explained shift%s of rows that did not change significantly, "
			      "not shown\n", rels_hidden, rels_hidden == 1 ? "" : "s");
	pdo_printf(w, "other rows: %zu of other metrics in this table, not explained\n",
		   t->other_rows);
}

void pdo_diff_json_table(pd_writer *w, const pd_diff *d)
{
	size_t bc, nc;
	const pd_lkp_table *t = pd_diff_lkp_table(d, &bc, &nc);
	if (!t)
		return;
	static const char *const src[] = { "assumed", "stddev", "fail-runs", "counted" };
	pdo_json_key(w, "table");
	pdo_json_open(w, '{');
	size_t col[2] = { bc, nc };
	static const char *const side[] = { "base", "new" };
	for (int s = 0; s < 2; s++) {
		pdo_json_key(w, side[s]);
		pdo_json_open(w, '{');
		pdo_json_key(w, "column");
		pdo_json_item(w);
		pdo_json_u64(w, col[s]);
		pdo_json_key(w, "commit");
		pdo_json_item(w);
		pdo_json_str(w, t->commits[col[s]]);
		pdo_json_key(w, "subject");
		pdo_json_item(w);
		pdo_json_str(w, t->subjects[col[s]]);
		pdo_json_key(w, "runs");
		pdo_json_item(w);
		pdo_json_u64(w, t->runs[col[s]]);
		pdo_json_close(w, '}');
	}
	pdo_json_key(w, "runs_source");
	pdo_json_item(w);
	pdo_json_str(w, src[(unsigned)t->runs_source < 4 ? t->runs_source : 0]);
	pdo_json_key(w, "line");
	pdo_json_item(w);
	pdo_json_u64(w, t->line);
	pdo_json_key(w, "machine");
	pdo_json_item(w);
	pdo_json_str(w, t->machine);
	pdo_json_key(w, "parameters");
	pdo_json_item(w);
	pdo_json_str(w, t->parameters);
	pdo_json_key(w, "other_rows");
	pdo_json_item(w);
	pdo_json_u64(w, t->other_rows);
	pdo_json_close(w, '}');
}

/* One comparison in `o`'s format, its commits as the sides' names. */
static int write_one(pd_writer *w, const pd_lkp_tables *t, const pd_diff *d,
		     const pd_diff_write_options *o, pd_error *err)
{
	size_t bc, nc;
	const pd_lkp_table *tab = pd_diff_lkp_table(d, &bc, &nc);
	if (!tab)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "a diff of profiles is no explanation of a table");
	pd_diff_write_options wo = *o;
	const char *names[2] = { tab->commits[bc], tab->commits[nc] };
	wo.files[0] = &names[0];
	wo.files[1] = &names[1];
	wo.nfiles[0] = wo.nfiles[1] = 1;
	if (o->format == PD_FORMAT_TEXT)
		put_header(w, t, d);
	return pd_diff_write(w, d, &wo, err);
}

int pd_explain_write(pd_writer *w, const pd_lkp_tables *t, const pd_diff *const *diffs,
		     size_t n, const pd_diff_write_options *o, pd_error *err)
{
	if (!w || !t || (n && !diffs))
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no writer, tables or diffs given");
	pd_diff_write_options opts;
	int rc = pdo_diff_options(&opts, o, err);
	if (rc == 0)
		rc = pdo_format_check(opts.format, PDO_BIT(PD_FORMAT_TEXT) | PDO_BIT(PD_FORMAT_JSON) |
				      PDO_BIT(PD_FORMAT_HTML) | PDO_BIT(PD_FORMAT_LKP) |
				      PDO_BIT(PD_FORMAT_CSV), "an explanation", err);
	if (rc == 0 && opts.format == PD_FORMAT_HTML && n != 1)
		rc = pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				  "an HTML page shows one comparison, and there are %zu: "
				  "choose one table and column (--table, --column)", n);
	if (rc < 0)
		return rc;
	const char *subject = pd_lkp_tables_subject(t);
	if (opts.format == PD_FORMAT_TEXT) {
		pdo_put_escaped(w, pd_lkp_tables_source(t));
		if (subject) {
			pdo_puts(w, ": ");
			pdo_put_escaped(w, subject);
		}
		pdo_putc(w, '\n');
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = write_one(w, t, diffs[i], &opts, err);
	if (rc == 0 && opts.format == PD_FORMAT_TEXT) {
		size_t rows = 0;
		for (size_t i = 0; i < pd_lkp_tables_count(t); i++)
			rows += pd_lkp_tables_at(t, i)->nrows;
		if (n == 0)
			pdo_puts(w, "no perf-profile rows");
		else
			pdo_printf(w, "\n%zu comparison%s of %zu perf-profile rows in %zu table%s",
				   n, n == 1 ? "" : "s", rows, pd_lkp_tables_count(t),
				   pd_lkp_tables_count(t) == 1 ? "" : "s");
		pdo_printf(w, "; %zu rows of other metrics ignored\n", pd_lkp_tables_other_rows(t));
	}
	return rc < 0 ? rc : pdo_done(w, err);
}
