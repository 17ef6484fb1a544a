/*
 * `perfdiff diff [options] BASE NEW` and `perfdiff diff [options] BASE...
 * -- NEW...` (also without the word `diff`): the runs of each side folded
 * into one profile per side, compared by the diff engine and written by
 * the library (pd_diff_write(); --format=folded, a differential flame
 * graph's input, is named by the aligned tree the comparison makes).
 * The exit status is that of diff(1), so that scripts can gate on it: 0
 * compared, 1 a significant change above --fail-on or an input that lost
 * data (cut short, samples lost while recording), 2 trouble.
 */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_explain.h"
#include "cli_help.h"
#include "cli_io.h"
#include "cli_parse.h"
#include "cli_progress.h"
#include "cli_profile_opts.h"
#include "diff_cli.h"
#include "diff_internal.h"
#include "tui_cli.h"


void diff_usage(FILE *f)
{
	fputs(cli_help_diff, f);
}

/* ------------------------------------------------------------- options */


/* --sort's words, in the table's order (cli_opttab.c). */
static const pd_diff_sort sorts[] = { PD_DIFF_SORT_CHANGE, PD_DIFF_SORT_ABS_CHANGE,
				      PD_DIFF_SORT_NAME };

/* The numbers, checked by the parser against the table's ranges. */
static void set_number(cli_diff *c, int id, const cli_value *v)
{
	if (id == CLI_DIFF_FAIL_ON) {
		c->fail_on = v->num;
		c->fail_on_set = true;
	} else if (id == CLI_DIFF_DEPTH) {
		c->dopts.depth = (unsigned)v->count;
	} else if (id == CLI_DIFF_MIN_CHANGE) {
		c->dopts.min_change = v->num;
		c->min_change_set = true;
	} else if (id == CLI_DIFF_FDR) {
		c->dopts.fdr = v->num;
	} else if (id == CLI_DIFF_RENAME_SCORE) {
		c->dopts.rename_score = v->num;
	} else {
		c->percent_limit = v->num;
	}
}

/* The flags; false when `id` is none. */
static bool set_flag(cli_diff *c, int id)
{
	static const struct {
		int id;
		unsigned flag;
	} engine_flags[] = {
		{ CLI_DIFF_ABSOLUTE, PD_DIFF_ABSOLUTE }, { CLI_DIFF_NO_ALIGN, PD_DIFF_NO_ALIGN },
		{ CLI_DIFF_TREE, PD_DIFF_TREE_ROWS },
	};
	for (size_t k = 0; k < sizeof engine_flags / sizeof engine_flags[0]; k++)
		if (engine_flags[k].id == id) {
			c->dopts.flags |= engine_flags[k].flag;
			return true;
		}
	bool *b = id == CLI_DIFF_ALL ? &c->all : id == CLI_DIFF_LKP_KEYS ? &c->lkp_keys
		: id == CLI_DIFF_NO_COMM ? &c->no_comm : NULL;
	if (b)
		*b = true;
	return b != NULL;
}

/* --sort: the rows' order (change, abs-change, name), or perf's keys
 * (comm, dso, sym, comma-separated), whose comm and dso are columns.
 * 0, or -1 after the error. */
static int set_sort(cli_diff *c, const char *val, const char *cmd)
{
	static const char *const words[] = { "change", "abs-change", "name" };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(val, words[i]) == 0) {
			c->sort = sorts[i];
			return 0;
		}
	c->show_comm = c->show_dso = false;
	for (const char *p = val; *p;) {
		size_t len = strcspn(p, ",");
		if (len == 4 && strncmp(p, "comm", 4) == 0)
			c->show_comm = true;
		else if (len == 3 && strncmp(p, "dso", 3) == 0)
			c->show_dso = true;
		else if (!(len == 3 && strncmp(p, "sym", 3) == 0)) {
			cli_usage_error(cmd, "bad --sort '%s' (change, abs-change, name, or "
					"perf's keys comm,dso,sym)", val);
			return -1;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

/* The setter of diff's own rows of the option table. */
static int set_option(void *own, const cli_optdef *opt, const cli_value *v, const char *cmd)
{
	cli_diff *c = own;
	if (set_flag(c, opt->id))
		return 0;
	if (opt->id == CLI_DIFF_FORMAT) {
		c->format = (pd_format)pd_format_parse(v->str);
	} else if (opt->id == CLI_DIFF_WEIGHT) {
		c->weight_samples = v->word == 1;  /* period|samples */
		c->weight_set = true;
	} else if (opt->id == CLI_DIFF_SORT) {
		return set_sort(c, v->str, cmd);
	} else if (opt->id == CLI_DIFF_PEEK) {
		c->peek = v->str;
	} else {
		set_number(c, opt->id, v);
	}
	return 0;
}

/* A side's option, applied once the common ones are all known. */
static int keep_side(void *own, int side, const cli_optdef *opt, const char *val)
{
	cli_diff *c = own;
	c->side_opts[side][c->nside_opts[side]++] = (cli_side_value){ opt, val };
	return 0;
}

static int add_file(void *own, const char *path)
{
	cli_diff *c = own;
	c->paths[0][c->nfiles++] = path;
	return 0;
}

/* '--' splits the sides, once. */
static int dashdash(void *own)
{
	cli_diff *c = own;
	if (c->split != SIZE_MAX) {
		cli_usage_error(c->cmd, "'--' separates the two sides only once");
		return -1;
	}
	c->split = c->nfiles;
	return 0;
}

/* Each side's options: the common ones with its own over them. */
static int split_sides(cli_diff *c)
{
	for (int s = 0; s < 2; s++) {
		if (cli_profile_opts_copy(&c->side[s], &c->po) < 0) {
			cli_error("out of memory");
			return -1;
		}
		const cli_parser p = { .cmd = c->cmd, .so = &c->side[s].sopts, .po = &c->side[s] };
		for (size_t k = 0; k < c->nside_opts[s]; k++)
			if (cli_apply(&p, c->side_opts[s][k].opt, c->side_opts[s][k].val) < 0)
				return -1;
		if (cli_profile_opts_finish(&c->side[s]) < 0)
			return -1;
	}
	return 0;
}

/* The files split into the sides at c->split (SIZE_MAX: no '--');
 * none at all: ./perf.data.old and ./perf.data, as perf diff has it. */
static cli_parse_result split_files(cli_diff *c)
{
	const char **files = c->paths[0];
	if (c->nfiles == 0 && c->split == SIZE_MAX && cli_default_pair()) {
		files[c->nfiles++] = CLI_DEFAULT_BASE;
		files[c->nfiles++] = CLI_DEFAULT_INPUT;
	}
	size_t nfiles = c->nfiles, split = c->split;
	if (split == SIZE_MAX && c->tui && nfiles == 1) {
		/* one profile: both sides are its file, read once (build_sides) */
		c->report = true;
		c->npaths[0] = c->npaths[1] = 1;
		c->paths[1] = files;
		return CLI_PARSED;
	}
	if (split == SIZE_MAX) {
		if (nfiles != 2)
			return cli_parse_refuse(c->cmd,
				"%s needs BASE and NEW, or BASE... -- NEW...%s (got %zu FILE%s)",
				c->cmd, c->tui ? ", or one FILE" : "", nfiles,
				nfiles == 1 ? "" : "s");
		split = 1;
	}
	if (split == 0 || split == nfiles)
		return cli_parse_refuse(c->cmd, "%s needs at least one FILE on each side of '--'",
					c->cmd);
	c->npaths[0] = split;
	c->paths[1] = files + split;
	c->npaths[1] = nfiles - split;
	size_t stdin_uses = 0;
	for (size_t i = 0; i < nfiles; i++)
		stdin_uses += strcmp(files[i], "-") == 0;
	if (stdin_uses > 1)
		return cli_parse_refuse(c->cmd, "standard input ('-') can be read only once");
	return CLI_PARSED;
}

/* Options that do not go together. */
static cli_parse_result check_conflicts(const cli_diff *c)
{
	/* folded tests nothing: --fail-on's exit status would be lost, and
	 * the robot's keys name no stacks */
	if (c->format == PD_FORMAT_FOLDED && (c->fail_on_set || c->lkp_keys))
		return cli_parse_refuse(c->cmd, "%s does not go with --format=folded",
					c->fail_on_set ? "--fail-on" : "--lkp-keys");
	if ((c->weight_set || c->no_comm) && c->format != PD_FORMAT_FOLDED)
		return cli_parse_refuse(c->cmd, "%s goes with --format=folded",
					c->weight_set ? "--weight" : "--no-comm");
	if (c->percent_limit > 0 && (c->dopts.flags & PD_DIFF_ABSOLUTE))
		return cli_parse_refuse(c->cmd, "--percent-limit does not go with --absolute "
					"(its values are rates, not shares)");
	return CLI_PARSED;
}

/* What the options say together. */
static cli_parse_result check_args(cli_diff *c)
{
	if (cli_profile_opts_finish(&c->po) < 0)
		return CLI_PARSE_FAILED;
	if (check_conflicts(c) != CLI_PARSED)
		return CLI_PARSE_FAILED;
	if (c->format == PD_FORMAT_LKP || c->lkp_keys) {
		pd_lkp_profile_options(&c->po.popts, &c->po.sopts);
		c->dopts.flags |= PD_DIFF_LKP_KEYS;
	}
	/* the comparison keys a dso's unnamed frames as one: so do the
	 * profiles, and a stripped binary is one node, not one per address */
	c->po.popts.flags |= PD_PROFILE_MERGE_UNRESOLVED;
	/* the flame graphs colour a node by its own test: the tree rows */
	if (c->format == PD_FORMAT_HTML || c->format == PD_FORMAT_SVG)
		c->dopts.flags |= PD_DIFF_TREE_ROWS;
	if (split_sides(c) < 0)
		return CLI_PARSE_FAILED;
	/* the library's default of the mode, spelled out for the footer and
	 * the JSON "options" */
	if (!c->min_change_set)
		c->dopts.min_change = c->dopts.flags & PD_DIFF_ABSOLUTE ? 5 : 0.1;
	c->dopts.event = c->po.event;
	return CLI_PARSED;
}

/* Room for the files and each side's own options. */
static int alloc_args(cli_diff *c, int argc)
{
	/* two more: the default pair (split_files) */
	if (!(c->paths[0] = calloc((size_t)argc + 2, sizeof *c->paths[0])))
		return -1;
	for (int s = 0; s < 2; s++)
		if (!(c->side_opts[s] = calloc((size_t)argc, sizeof *c->side_opts[s])))
			return -1;
	return 0;
}

static cli_parse_result parse_args(int argc, char **argv, cli_diff *c)
{
	if (alloc_args(c, argc) < 0) {
		cli_error("out of memory");
		return CLI_PARSE_FAILED;
	}
	c->split = SIZE_MAX;
	const cli_parser p = { .cmd = c->cmd, .io = &c->io, .so = &c->po.sopts, .po = &c->po,
			       .own = c, .set = set_option, .operand = add_file,
			       .dashdash = dashdash, .side = keep_side };
	cli_parse_result r = cli_parse(&p, argc, argv);
	if (r == CLI_PARSED)
		r = split_files(c);
	return r == CLI_PARSED ? check_args(c) : r;
}

/* ------------------------------------------------------------- running */

/*
 * One side's profile, built on its own thread: the two sides are
 * independent (each profile has its own reader, address spaces and
 * symbolizer; the library keeps no global state), and reading and
 * symbolizing dominate a comparison, so on two cores both sides take
 * little more than one.  Nothing is printed on the thread: the warnings
 * of each file and the error, if any, are kept for the main thread, which
 * prints them in command-line order.
 */
typedef struct side_job {
	cli_diff *c;
	int side;
	pd_profile *p;
	int rc;              /* 0; 1 a file broke off (kept as read); -1 nothing to compare */
	bool new_failed;     /* pd_profile_new() failed: `err` says why */
	size_t nread;        /* files whose reading was attempted */
	cli_warns warns;     /* the side's, from its profile's sink, for the main thread */
	pd_error err;
} side_job;

static void *build_side(void *arg)
{
	side_job *j = arg;
	cli_diff *c = j->c;
	memset(&j->err, 0, sizeof j->err);
	if (pd_profile_new(&j->p, &c->side[j->side].popts, &j->err) < 0) {
		j->p = NULL;
		j->new_failed = true;
		j->rc = -1;
		return NULL;
	}
	for (size_t i = 0; i < c->npaths[j->side]; i++) {
		size_t runs = pd_profile_run_count(j->p);
		const char *path = c->paths[j->side][i];
		memset(&j->err, 0, sizeof j->err);
		/* the profile's warnings reach j->warns through its sink */
		int rc = pd_profile_add_input(j->p, path, &j->err);
		j->nread = i + 1;
		if (runs < pd_profile_run_count(j->p))
			cli_warns_lost(&j->warns, path, pd_profile_lost(j->p, runs),
				       pd_profile_run_samples_read(j->p, runs));
		if (rc < 0) {
			j->rc = pd_profile_run_count(j->p) == runs ? -1 : 1;
			return NULL;
		}
	}
	return NULL;
}

/* Print a side's error after the warnings held so far.  0 when the side
 * can be compared, else -1 (the profile is freed). */
static int report_side(side_job *j, cli_warns *w)
{
	if (j->rc == 0)
		return 0;
	cli_warns_print(w, &j->c->io);
	if (j->new_failed)
		cli_error("%s", j->err.message);
	else
		cli_print_pd_error(j->c->paths[j->side][j->nread - 1], &j->err);
	if (j->rc < 0) {
		pd_profile_free(j->p);
		j->p = NULL;
		return -1;
	}
	return 0;
}

/* A side the filters left without a sample has nothing to compare: said
 * with the filters as typed and what they turned away.  -1 then. */
int diff_empty_side(const cli_diff *c, int side, const pd_profile *p)
{
	char given[512];
	if (cli_profile_samples(p) ||
	    !cli_filters_given(c->argc, c->argv, side, given, sizeof given))
		return 0;
	cli_error("%s side: no sample passes the filters %s (of %llu read)",
		  side ? "new" : "base", given,
		  (unsigned long long)pd_profile_run_samples_read(p, SIZE_MAX));
	return -1;
}

/* A significant change above `points`: of a row no shift explains, or
 * the net change of a shift (its shift row) — never the halves of a
 * rename or an inlining, whose size is only the cost carried across. */
static bool fails(const pd_diff *d, double points)
{
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (r->relation && r->metric != PD_DIFF_SHIFT)
			continue;
		if (r->significant && (r->change > points || -r->change > points))
			return true;
	}
	return false;
}

/* Write to standard output with `write` (pd_diff_write()'s call); 0,
 * or -1 after printing the error. */
typedef int (*diff_writer)(pd_writer *w, const void *what, const pd_diff_write_options *o,
			   pd_error *err);

/* The writer's options as the command line gives them; 0, or -1 after
 * the error. */
int diff_write_options(const cli_diff *c, pd_diff_write_options *o)
{
	if (cli_options_init_rc(pd_diff_write_options_init(o, PD_DIFF_WRITE_OPTIONS_VERSION),
				"pd_diff_write_options") < 0)
		return -1;
	o->format = c->format;
	o->all = c->all;
	o->event = c->po.event;
	o->weight_samples = c->weight_samples;
	o->no_comm = c->no_comm;
	o->color = cli_io_colored(&c->io, c->format);
	o->sort = c->sort;
	o->percent_limit = c->percent_limit;
	o->peek = c->peek;
	o->show_comm = c->show_comm;
	o->show_dso = c->show_dso;
	o->all_origins = c->io.verbosity == CLI_VERBOSE;
	for (int side = 0; side < 2; side++) {
		o->files[side] = c->paths[side];
		o->nfiles[side] = c->npaths[side];
	}
	return 0;
}

static int write_out(cli_diff *c, diff_writer write, const void *what, const char *noun)
{
	pd_diff_write_options o;
	if (diff_write_options(c, &o) < 0)
		return -1;
	pd_writer *w;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_writer_new_file(&w, c->io.out, &err);
	if (rc == 0) {
		rc = write(w, what, &o, &err);
		if (rc == 0)
			rc = pd_writer_flush(w, &err);
		pd_writer_free(w);
	}
	if (rc == PD_EIO || rc == PD_ENOMEM)
		cli_error("cannot write the %s: %s", noun, err.message);
	else if (rc < 0)
		cli_error("%s", err.message);
	return rc < 0 ? -1 : 0;
}

static int write_diff(pd_writer *w, const void *d, const pd_diff_write_options *o,
		      pd_error *err)
{
	return pd_diff_write(w, d, o, err);
}

/* Both sides' profiles into p[], side B on a second thread; their
 * warnings held, their errors printed.  0; 1 when a file broke off (what
 * was read is compared); -1 when a side has nothing to compare (both
 * profiles freed). */
int diff_build_sides(cli_diff *c, pd_profile *p[2])
{
	side_job jobs[2];
	memset(jobs, 0, sizeof jobs);
	int rc = 0;
	for (int side = 0; side < 2; side++) {
		jobs[side] = (side_job){ .c = c, .side = side };
		cli_warns_init(&jobs[side].warns);
		/* each side's sink is called on the thread that builds it */
		c->side[side].popts.warn = cli_warns_sink;
		c->side[side].popts.warn_ctx = &jobs[side].warns;
	}
	cli_progress prog;
	static const char *const labels[2] = { "base", "new" };
	int nsides = c->report ? 1 : 2;
	cli_progress_start(&prog, &c->io, (size_t)nsides, labels);
	bool shown[2] = { false, false };
	for (int side = 0; side < 2; side++) /* copied when the profile is made */
		if (!c->side[side].sopts.reader) {
			c->side[side].sopts.reader = cli_progress_reader(&prog, side);
			shown[side] = true;
		}
	pthread_t tid;
	bool threaded = nsides == 2 && pthread_create(&tid, NULL, build_side, &jobs[1]) == 0;
	build_side(&jobs[0]);
	if (threaded)
		pthread_join(tid, NULL);
	else if (nsides == 2)
		build_side(&jobs[1]);
	cli_progress_stop(&prog);
	for (int side = 0; side < 2; side++)
		if (shown[side])
			c->side[side].sopts.reader = NULL;
	for (int side = 0; side < 2 && rc >= 0; side++) {
		cli_warns_merge(&c->warns, &jobs[side].warns);
		if (jobs[side].rc > 0)
			rc = 1;
		if (report_side(&jobs[side], &c->warns) < 0)
			rc = -1;
	}
	for (int side = 0; side < 2; side++) {
		p[side] = jobs[side].p;
		cli_warns_free(&jobs[side].warns);
		c->side[side].popts.warn = NULL;
		c->side[side].popts.warn_ctx = NULL;
	}
	return rc;
}

/* The comparison written; 1 when --fail-on fails it, 0, or -1 after an
 * error. */
static int compare(cli_diff *c, pd_profile *p[2])
{
	pd_diff *d = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	if (pd_diff_new(&d, p[0], p[1], &c->dopts, &err) < 0) {
		cli_error("%s", err.message[0] ? err.message : pd_error_code_str(err.code));
		return -1;
	}
	int rc = write_out(c, write_diff, d,
			   c->format == PD_FORMAT_FOLDED ? "stacks" : "comparison");
	if (rc == 0 && c->fail_on_set && fails(d, c->fail_on))
		rc = 1;
	pd_diff_free(d);
	return rc;
}

int diff_run(cli_diff *c)
{
	pd_profile *p[2] = { NULL, NULL };
	int rc = diff_build_sides(c, p);
	cli_warns_print(&c->warns, &c->io);
	for (int side = 0; side < 2 && rc >= 0; side++)
		if (p[side] && diff_empty_side(c, side, p[side]) < 0)
			rc = -1;
	int crc = rc >= 0 ? compare(c, p) : -1;
	pd_profile_free(p[0]);
	pd_profile_free(p[1]);
	/* a file that broke off is an error even when what was read compared */
	if (crc < 0 || rc != 0)
		return CLI_EXIT_ERROR;
	return crc == 1 ? 1 : cli_warns_status(&c->warns, &c->io);
}

/* `perfdiff CMD`, CMD diff or tui. */
static int diff_main(int argc, char **argv, const char *cmd, void (*usage)(FILE *f))
{
	cli_diff c;
	memset(&c, 0, sizeof c);
	c.cmd = cmd;
	c.tui = strcmp(cmd, "tui") == 0;
	c.format = PD_FORMAT_TEXT;
	c.argc = argc;
	c.argv = argv;
	cli_io_init(&c.io, c.cmd, true);
	cli_warns_init(&c.warns);
	int st = CLI_EXIT_ERROR;
	bool stop = true;
	if (cli_profile_opts_init(&c.po) == 0 &&
	    cli_options_init_rc(pd_diff_options_init(&c.dopts, PD_DIFF_OPTIONS_VERSION),
				"pd_diff_options") == 0)
		stop = cli_parse_stop(parse_args(argc, argv, &c), usage, &st);
	/* the sides' files follow each other in paths[0] (split_files) */
	if (!stop && cli_io_open(&c.io, c.paths[0],
				 c.report ? c.npaths[0] : c.npaths[0] + c.npaths[1]) < 0) {
		stop = true;
		st = CLI_EXIT_ERROR;
	}
	if (!stop) {
		cli_profile_opts_share_symbols(&c.po);
		for (int s = 0; s < 2; s++)
			c.side[s].sopts.symcache = c.po.sopts.symcache;
		st = cli_io_close(&c.io, c.tui ? diff_run_tui(&c) : diff_run(&c));
	}
	cli_warns_free(&c.warns);
	for (int s = 0; s < 2; s++) {
		/* the symbol cache is the common options' */
		c.side[s].sopts.symcache = NULL;
		cli_profile_opts_free(&c.side[s]);
		free(c.side_opts[s]);
	}
	cli_profile_opts_free(&c.po);
	free(c.paths[0]);
	return st;
}

int cmd_diff(int argc, char **argv)
{
	return diff_main(argc, argv, "diff", diff_usage);
}

void tui_usage(FILE *f)
{
	fputs(cli_help_tui, f);
}

int cmd_tui(int argc, char **argv)
{
	if (!cli_tui_built()) {
		cli_error("tui: this perfdiff was built without it (PERFDIFF_TUI: needs ncurses, "
			  "libncurses-dev)");
		return CLI_EXIT_ERROR;
	}
	return diff_main(argc, argv, "tui", tui_usage);
}
