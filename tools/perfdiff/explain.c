/*
 * `perfdiff explain [options] MAIL` and `perfdiff explain [options]
 * BASE_DIR NEW_DIR...`: option parsing around the library's reading of
 * the robot's tables (pd_lkp_tables_read_mail(), _read_results()), one
 * comparison per column and table (pd_diff_new_lkp()) and its writer
 * (pd_explain_write()).  A mail without perf-profile rows is no error:
 * it says so and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"
#include "cli_help.h"
#include "cli_io.h"
#include "cli_parse.h"
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

/* The numbers, checked by the parser against the table's ranges. */
static void set_number(cli_explain *c, int id, const cli_value *v)
{
	if (id == CLI_EXPLAIN_TABLE) {
		c->table = (size_t)v->count;
	} else if (id == CLI_EXPLAIN_COLUMN) {
		c->column = (size_t)v->count;
	} else if (id == CLI_EXPLAIN_BASE_COLUMN) {
		c->base_column = (size_t)v->count;
		c->base_set = true;
	} else if (id == CLI_EXPLAIN_MIN_CHANGE) {
		c->dopts.min_change = v->num;
	} else if (id == CLI_EXPLAIN_FDR) {
		c->dopts.fdr = v->num;
	} else {
		c->dopts.rename_score = v->num;
	}
}

/* The setter of explain's own rows of the option table. */
static int set_option(void *own, const cli_optdef *opt, const cli_value *v, const char *cmd)
{
	cli_explain *c = own;
	(void)cmd;
	if (opt->id == CLI_EXPLAIN_ALL)
		c->all = true;
	else if (opt->id == CLI_EXPLAIN_NO_ALIGN)
		c->dopts.flags |= PD_DIFF_NO_ALIGN;
	else if (opt->id == CLI_EXPLAIN_EVENT)
		c->event = v->str;
	else if (opt->id == CLI_EXPLAIN_FORMAT)
		c->format = (pd_format)pd_format_parse(v->str);
	else
		set_number(c, opt->id, v);
	return 0;
}

/* A MAIL or result directory. */
static int add_path(void *own, const char *path)
{
	cli_explain *c = own;
	c->paths[c->npaths++] = path;
	return 0;
}

static cli_parse_result parse(cli_explain *c, int argc, char **argv)
{
	c->paths = calloc((size_t)argc, sizeof *c->paths);
	if (!c->paths) {
		cli_error("out of memory");
		return CLI_PARSE_FAILED;
	}
	const cli_parser p = { .cmd = CMD, .io = &c->io, .own = c, .set = set_option,
			       .operand = add_path };
	cli_parse_result r = cli_parse(&p, argc, argv);
	if (r == CLI_PARSED && c->npaths == 0)
		return cli_parse_refuse(CMD, "explain needs a MAIL, or BASE_DIR NEW_DIR...");
	return r;
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
	bool stop = true;
	if (cli_options_init_rc(pd_diff_options_init(&c.dopts, PD_DIFF_OPTIONS_VERSION),
				"pd_diff_options") == 0)
		stop = cli_parse_stop(parse(&c, argc, argv), explain_usage, &st);
	pd_lkp_tables *t = NULL;
	pd_diff **d = NULL;
	size_t n = 0;
	pd_error err = { 0 };
	if (!stop) {
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
