/*
 * `perfdiff explain [options] MAIL` and `perfdiff explain [options]
 * BASE_DIR NEW_DIR...`: option parsing around the library's reading of
 * the robot's tables (pd_lkp_tables_read_mail(), _read_results()), one
 * comparison per column and table (pd_diff_new_lkp()) and its writer
 * (pd_explain_write()).  A mail without perf-profile rows is no error:
 * it says so and exits 0.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"
#include "cli_help.h"
#include "cli_io.h"
#include "explain_cli.h"

#define CMD "explain"
#define NELEMS(a) (sizeof (a) / sizeof (a)[0])

void explain_usage(FILE *f)
{
	fputs(cli_help_explain, f);
}

typedef struct cli_explain {
	pd_diff_options dopts;
	pd_format format;
	bool all;
	size_t table, column, base_column;  /* 1-based table and column; 0: all */
	bool base_set;
	const char *event;
	const char **paths;
	size_t npaths;
	cli_io io;
} cli_explain;

typedef enum opt_kind {
	OPT_FORMAT, OPT_TABLE, OPT_COLUMN, OPT_BASE_COLUMN, OPT_EVENT, OPT_MIN_CHANGE, OPT_FDR,
	OPT_RENAME_SCORE,
} opt_kind;

static const cli_value_opt value_opts[] = {
	{ "--format", OPT_FORMAT },       { "--table", OPT_TABLE },
	{ "--column", OPT_COLUMN },       { "--base-column", OPT_BASE_COLUMN },
	{ "--event", OPT_EVENT },         { "--min-change", OPT_MIN_CHANGE },
	{ "--fdr", OPT_FDR },             { "--rename-score", OPT_RENAME_SCORE },
};

static bool parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (s[0] == '\0' || *end || errno || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool parse_count(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || v > 1000000)
		return false;
	*out = (size_t)v;
	return true;
}

/* The numbers: -1 to go on, else an exit status. */
static int apply_number(cli_explain *c, opt_kind kind, const char *val)
{
	double v;
	size_t n;
	switch (kind) {
	case OPT_TABLE:
	case OPT_COLUMN:
		if (!parse_count(val, &n) || n == 0)
			return cli_usage_error(CMD, "%s needs a number from 1, not '%s'",
					       kind == OPT_TABLE ? "--table" : "--column", val);
		*(kind == OPT_TABLE ? &c->table : &c->column) = n;
		return -1;
	case OPT_BASE_COLUMN:
		if (!parse_count(val, &c->base_column))
			return cli_usage_error(CMD, "--base-column needs a number from 0, not '%s'",
					       val);
		c->base_set = true;
		return -1;
	case OPT_MIN_CHANGE:
		if (!parse_double(val, 0, HUGE_VAL, &c->dopts.min_change))
			return cli_usage_error(CMD, "--min-change needs points >= 0, not '%s'", val);
		return -1;
	case OPT_FDR:
		if (!parse_double(val, 0, 1, &v) || v == 0)
			return cli_usage_error(CMD, "--fdr needs a rate in (0, 1], not '%s'", val);
		c->dopts.fdr = v;
		return -1;
	default:
		if (!parse_double(val, 0, 1, &c->dopts.rename_score))
			return cli_usage_error(CMD, "--rename-score needs a score in [0, 1], not '%s'",
					       val);
		return -1;
	}
}

static int apply_value(cli_explain *c, opt_kind kind, const char *val)
{
	if (kind == OPT_EVENT) {
		c->event = val;
		return -1;
	}
	if (kind != OPT_FORMAT)
		return apply_number(c, kind, val);
	if (cli_format_parse(CMD, val, CLI_FORMAT_BIT(PD_FORMAT_TEXT) |
			     CLI_FORMAT_BIT(PD_FORMAT_JSON) | CLI_FORMAT_BIT(PD_FORMAT_HTML) |
			     CLI_FORMAT_BIT(PD_FORMAT_LKP) | CLI_FORMAT_BIT(PD_FORMAT_CSV),
			     "text, json, html, lkp or csv", &c->format) < 0)
		return CLI_EXIT_ERROR;
	return -1;
}

/* argv[*i], an option: -1 to go on, else an exit status. */
static int option(cli_explain *c, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
		explain_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(a, "--all") == 0) {
		c->all = true;
		return -1;
	}
	if (strcmp(a, "--no-align") == 0) {
		c->dopts.flags |= PD_DIFF_NO_ALIGN;
		return -1;
	}
	int m = cli_io_parse(&c->io, argc, argv, i);
	if (m != 0)
		return m < 0 ? CLI_EXIT_ERROR : -1;
	int kind;
	const char *val;
	if (cli_value_opt_last(value_opts, NELEMS(value_opts), CMD, argc, argv, i, &kind, &val) < 0)
		return CLI_EXIT_ERROR;
	return apply_value(c, (opt_kind)kind, val);
}

static int parse(cli_explain *c, int argc, char **argv)
{
	c->paths = calloc((size_t)argc, sizeof *c->paths);
	if (!c->paths) {
		cli_error("out of memory");
		return CLI_EXIT_ERROR;
	}
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1]) {
			int st = option(c, argc, argv, &i);
			if (st >= 0)
				return st;
			continue;
		}
		c->paths[c->npaths++] = argv[i];
	}
	if (c->npaths == 0)
		return cli_usage_error(CMD, "explain needs a MAIL, or BASE_DIR NEW_DIR...");
	return -1;
}

/* ------------------------------------------------------------- work */

/* An error of the command's own, as the library words its. */
static int own_error(pd_error *err, int code, const char *msg)
{
	err->code = code;
	err->offset = PD_NO_OFFSET;
	snprintf(err->message, sizeof err->message, "%s", msg);
	return code;
}

static bool is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The mail or the result directories. */
static int read_input(const cli_explain *c, pd_lkp_tables **t, pd_error *err)
{
	if (c->npaths == 1 && is_dir(c->paths[0]))
		return cli_usage_error(CMD, "'%s' is a directory: give BASE_DIR NEW_DIR...",
				       c->paths[0]);
	if (c->npaths > 1)
		return pd_lkp_tables_read_results(t, c->paths, c->npaths, err);
	if (strcmp(c->paths[0], "-") != 0)
		return pd_lkp_tables_read_mail(t, c->paths[0], err);
	size_t len = 0, cap = 0;
	char *buf = NULL;
	for (;;) {
		if (len == cap) {
			char *nb = cap < (256u << 20) ? realloc(buf, cap = cap ? cap * 2 : 65536) : NULL;
			if (!nb) {
				free(buf);
				return own_error(err, PD_ENOMEM, "standard input: too large or out of memory");
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, stdin);
		len += got;
		if (got == 0)
			break;
	}
	int rc = pd_lkp_tables_read_mail_mem(t, "standard input", buf, len, err);
	free(buf);
	return rc;
}

/* The comparisons asked for: diffs (malloc'd) and their number. */
static int compare(const cli_explain *c, const pd_lkp_tables *t, pd_diff ***out, size_t *n,
		   pd_error *err)
{
	size_t nt = pd_lkp_tables_count(t), cap = 0;
	*out = NULL;
	*n = 0;
	if (c->table > nt && nt)
		return cli_usage_error(CMD, "--table=%zu, and the input has %zu table%s", c->table,
				       nt, nt == 1 ? "" : "s");
	for (size_t i = 0; i < nt; i++) {
		const pd_lkp_table *tab = pd_lkp_tables_at(t, i);
		if (c->table && c->table != i + 1)
			continue;
		if (c->base_column >= tab->ncolumns || (c->column && c->column >= tab->ncolumns))
			return cli_usage_error(CMD, "table %zu has columns 0 to %zu", i + 1,
					       tab->ncolumns - 1);
		for (size_t col = 0; col < tab->ncolumns; col++) {
			if (col == c->base_column || (c->column && col != c->column))
				continue;
			if (*n == cap) {
				pd_diff **v = realloc(*out, (cap = cap ? cap * 2 : 8) * sizeof *v);
				if (!v)
					return own_error(err, PD_ENOMEM, "out of memory");
				*out = v;
			}
			int rc = pd_diff_new_lkp(&(*out)[*n], tab, c->base_column, col, c->event,
						 &c->dopts, err);
			if (rc < 0)
				return rc;
			(*n)++;
		}
	}
	return 0;
}

static int write_out(cli_explain *c, const pd_lkp_tables *t, pd_diff **d, size_t n,
		     pd_error *err)
{
	if (cli_io_open(&c->io, c->paths, c->npaths) < 0)
		return CLI_EXIT_ERROR;
	pd_diff_write_options wo;
	if (cli_options_init_rc(pd_diff_write_options_init(&wo, PD_DIFF_WRITE_OPTIONS_VERSION),
				"pd_diff_write_options") < 0)
		return cli_io_close(&c->io, CLI_EXIT_ERROR);
	wo.format = c->format;
	wo.all = c->all;
	wo.color = cli_io_colored(&c->io, c->format);
	pd_writer *w;
	int rc = pd_writer_new_file(&w, c->io.out, err);
	if (rc == 0) {
		rc = pd_explain_write(w, t, (const pd_diff *const *)d, n, &wo, err);
		int fl = pd_writer_flush(w, rc < 0 ? NULL : err);
		rc = rc < 0 ? rc : fl;
		pd_writer_free(w);
	}
	if (rc < 0)
		cli_error("%s", err->message);
	if (n == 0 && c->io.verbosity >= CLI_NORMAL)
		cli_warning("%s: no perf-profile rows (%zu rows of other metrics)",
			    pd_lkp_tables_source(t), pd_lkp_tables_other_rows(t));
	return cli_io_close(&c->io, rc < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK);
}

int cmd_explain(int argc, char **argv)
{
	cli_explain c = { .format = PD_FORMAT_TEXT };
	cli_io_init(&c.io, CMD, true);
	int st = CLI_EXIT_ERROR;
	if (cli_options_init_rc(pd_diff_options_init(&c.dopts, PD_DIFF_OPTIONS_VERSION),
				"pd_diff_options") == 0)
		st = parse(&c, argc, argv);
	pd_lkp_tables *t = NULL;
	pd_diff **d = NULL;
	size_t n = 0;
	pd_error err = { 0 };
	if (st < 0) {
		int rc = read_input(&c, &t, &err);
		if (rc > 0)
			st = rc;  /* a usage error, printed */
		else if (rc < 0 || (rc = compare(&c, t, &d, &n, &err)) < 0)
			st = (cli_error("%s", err.message), CLI_EXIT_ERROR);
		else if (rc > 0)
			st = rc;
		else
			st = write_out(&c, t, d, n, &err);
	}
	for (size_t i = 0; i < n; i++)
		pd_diff_free(d[i]);
	free(d);
	pd_lkp_tables_free(t);
	free(c.paths);
	return st;
}
