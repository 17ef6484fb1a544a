/*
 * `perfdiff report [options] [FILE...]`: the files are runs of one setup,
 * folded into one profile (children, self and the calling-context tree of
 * every event) and printed as a table like `perf report --children` with
 * call chains under each row, or as JSON, CSV or collapsed stacks.
 * Options map onto pd_profile_options and pd_report_write_options; the
 * library writes every format (perfdiff/output.h).  The exit status tells
 * inputs read in full (0) from one that lost data (1) and from an error
 * (2); a binary that cannot be found or verified is a warning, not a
 * failure, unless --strict.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_explain.h"
#include "cli_help.h"
#include "cli_io.h"
#include "cli_parse.h"
#include "cli_progress.h"
#include "cli_profile_opts.h"
#include "report.h"

#define CMD "report"

void report_usage(FILE *f)
{
	fputs(cli_help_report, f);
}

/* ------------------------------------------------------------- options */

typedef struct cli_report {
	pd_report_write_options ro;
	cli_profile_opts po;       /* filters, naming, lookup, --event */
	const char **paths;
	size_t npaths;
	cli_io io;                 /* -o, -q, -v, --strict, --color */
	cli_progress prog;         /* while the files are read */
	bool pprof;                /* --format=pprof (report_pprof.c) */
	bool merge;                /* --merge: one pprof of every FILE */
	bool label_cpu;            /* --label=cpu: pprof samples get a cpu label */
	bool label_given;          /* any --label */
	cli_warns warns;           /* of every file, summed up at the end */
	int argc;                  /* the arguments, for what the filters were */
	char **argv;
} cli_report;

/* One word of -g: the order, perf's "graph" (what is shown anyway) or
 * the chains' threshold in percent; false when it is none of these. */
static bool call_graph_word(pd_report_write_options *ro, const char *w)
{
	char *end;
	if (strcmp(w, "caller") == 0 || strcmp(w, "callee") == 0) {
		ro->order = strcmp(w, "caller") == 0 ? PD_CHAIN_CALLER : PD_CHAIN_CALLEE;
		return true;
	}
	if (strcmp(w, "graph") == 0)
		return true;
	errno = 0;
	double v = strtod(w, &end);
	if (!w[0] || *end || errno || !isfinite(v) || v < 0 || v > 100)
		return false;
	ro->threshold = v;
	return true;
}

/* -g, --call-graph as perf spells it: "caller", "callee,0.5": --order
 * and --threshold in one. */
static int set_call_graph(cli_report *c, const char *val)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", val);
	char *save = NULL;
	bool ok = strlen(val) < sizeof buf && val[0];
	for (char *w = strtok_r(buf, ",", &save); ok && w; w = strtok_r(NULL, ",", &save))
		ok = call_graph_word(&c->ro, w);
	if (ok)
		return 0;
	cli_usage_error(CMD, "-g is caller or callee and a threshold in percent "
			"(callee,0.5), not '%s'", val);
	return -1;
}

/* report's flags, and --label's word (cpu|none). */
static void set_flag(cli_report *c, int id, const cli_value *v)
{
	if (id == CLI_REPORT_MEAN) {
		c->ro.mean = true;
	} else if (id == CLI_REPORT_NO_CHAINS) {
		c->ro.chains = false;
	} else if (id == CLI_REPORT_MERGE) {
		c->merge = true;
	} else if (id == CLI_REPORT_NR_SAMPLES) {
		c->ro.nr_samples = true;
	} else {
		c->label_cpu = v->word == 0;  /* the last one given counts */
		c->label_given = true;
	}
}

/* The words of --order, --sort, --weight and --label are checked by the
 * parser and come as their index in the table (cli_opttab.c). */
static int set_option(void *own, const cli_optdef *opt, const cli_value *v, const char *cmd)
{
	cli_report *c = own;
	pd_report_write_options *ro = &c->ro;
	(void)cmd;
	switch (opt->id) {
	case CLI_REPORT_FORMAT:
		c->pprof = strcmp(v->str, "pprof") == 0;
		if (!c->pprof)
			ro->format = (pd_format)pd_format_parse(v->str);
		break;
	case CLI_REPORT_ORDER:
		ro->order = v->word == 0 ? PD_CHAIN_CALLER : PD_CHAIN_CALLEE;
		break;
	case CLI_REPORT_THRESHOLD:
		ro->threshold = v->num;
		break;
	case CLI_REPORT_PERCENT_LIMIT:
		ro->percent_limit = v->num;
		break;
	case CLI_REPORT_SORT:  /* children|self, or perf's keys (the library checks them) */
		if (strcmp(v->str, "self") == 0)
			ro->sort_self = true;
		else if (strcmp(v->str, "children") != 0)
			ro->sort_keys = v->str;
		break;
	case CLI_REPORT_WEIGHT:
		ro->weight_samples = v->word == 1;  /* period|samples */
		break;
	case CLI_REPORT_CALL_GRAPH:
		return set_call_graph(c, v->str);
	case CLI_REPORT_PEEK:
		ro->peek = v->str;
		break;
	default:
		set_flag(c, opt->id, v);
		break;
	}
	return 0;
}

/* A FILE, as an operand or -i. */
static int add_path(void *own, const char *path)
{
	cli_report *c = own;
	c->paths[c->npaths++] = path;
	return 0;
}

/* What the options say together. */
static cli_parse_result check_args(cli_report *c)
{
	if (c->npaths == 0 && cli_default_input(CMD, &c->paths[c->npaths++]) < 0)
		return CLI_PARSE_FAILED;
	size_t stdin_uses = 0;
	for (size_t i = 0; i < c->npaths; i++)
		stdin_uses += strcmp(c->paths[i], "-") == 0;
	if (stdin_uses > 1)
		return cli_parse_refuse(CMD, "standard input ('-') can be read only once");
	if (cli_profile_opts_finish(&c->po) < 0)
		return CLI_PARSE_FAILED;
	if (c->ro.mean && c->ro.format != PD_FORMAT_LKP)
		return cli_parse_refuse(CMD, "--mean goes with --format=lkp");
	if (c->merge && !c->pprof)
		return cli_parse_refuse(CMD, "--merge goes with --format=pprof");
	if (c->label_given && !c->pprof)
		return cli_parse_refuse(CMD, "--label goes with --format=pprof");
	/* an export writes Locations per address and pid/tid labels */
	if (c->pprof)
		c->po.popts.flags |= PD_PROFILE_KEEP_SITES |
				     (c->label_cpu ? PD_PROFILE_KEEP_CPU : 0);
	if (c->ro.format == PD_FORMAT_LKP)
		pd_lkp_profile_options(&c->po.popts, &c->po.sopts);
	return CLI_PARSED;
}

static cli_parse_result parse_args(int argc, char **argv, cli_report *c)
{
	c->paths = calloc((size_t)argc + 1, sizeof *c->paths);
	if (!c->paths) {
		cli_error("out of memory");
		return CLI_PARSE_FAILED;
	}
	const cli_parser p = { .cmd = CMD, .io = &c->io, .so = &c->po.sopts, .po = &c->po,
			       .own = c, .set = set_option, .operand = add_path };
	cli_parse_result r = cli_parse(&p, argc, argv);
	return r == CLI_PARSED ? check_args(c) : r;
}

/* ------------------------------------------------------------- running */

/* The samples the file just read lost while recording, to the summary
 * after its warnings (which came through the profile's sink). */
static void hold_lost(cli_report *c, const pd_profile *p, size_t run, const char *path)
{
	if (run < pd_profile_run_count(p))
		cli_warns_lost(&c->warns, path, pd_profile_lost(p, run),
			       pd_profile_run_samples_read(p, run));
}

/* The profile to the output in the chosen format; 0, or -1 after
 * printing the error. */
static int write_report(cli_report *c, pd_profile *p)
{
	pd_writer *w;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_writer_new_file(&w, c->io.out, &err);
	if (rc == 0) {
		c->ro.files = c->paths;
		c->ro.nfiles = c->npaths;
		c->ro.color = cli_io_colored(&c->io, c->ro.format);
		c->ro.all_origins = c->io.verbosity == CLI_VERBOSE;
		rc = pd_report_write(w, p, &c->ro, &err);
		if (rc == 0)
			rc = pd_writer_flush(w, &err);
		pd_writer_free(w);
	}
	if (rc == PD_EIO || rc == PD_ENOMEM)
		cli_error("cannot write the report: %s", err.message);
	else if (rc < 0)
		cli_error("%s", err.message);
	return rc < 0 ? -1 : 0;
}

/* Every file into `p`: 0; 1 when one broke off (what was read stays);
 * -1 when one could not be opened.  Errors printed, warnings held. */
static int read_files(cli_report *c, pd_profile *p)
{
	for (size_t i = 0; i < c->npaths; i++) {
		size_t runs = pd_profile_run_count(p);
		pd_error err;
		memset(&err, 0, sizeof err);
		int rc = pd_profile_add_input(p, c->paths[i], &err);
		hold_lost(c, p, runs, c->paths[i]);
		if (rc < 0) {
			cli_progress_stop(&c->prog);
			cli_warns_print(&c->warns, &c->io);
			cli_print_pd_error(c->paths[i], &err);
			/* not opened: nothing of it to report */
			return pd_profile_run_count(p) == runs ? -1 : 1;
		}
	}
	return 0;
}

/* --event, found in the profile: 0, or -1 after an error that lists the
 * events there are. */
static int choose_event(cli_report *c, const pd_profile *p)
{
	c->ro.event = -1;
	if (!c->po.event)
		return 0;
	c->ro.event = pd_profile_find_event(p, c->po.event);
	if (c->ro.event >= 0)
		return 0;
	char note[512];
	if (cli_events_note(p, note, sizeof note))
		cli_error("no event '%s' in the input; its events: %s", c->po.event, note);
	else
		cli_error("no event '%s' in the input, which has no samples", c->po.event);
	return -1;
}

/* A profile that the filters left empty: said, with the filters as given
 * and the samples they turned away. */
static void explain_empty(cli_report *c, const pd_profile *p)
{
	char given[512];
	if (cli_profile_samples(p) || !cli_filters_given(c->argc, c->argv, -1, given, sizeof given))
		return;
	char text[768];
	snprintf(text, sizeof text, "no sample passes the filters %s (of %llu read)", given,
		 (unsigned long long)pd_profile_run_samples_read(p, SIZE_MAX));
	cli_warns_add(&c->warns, NULL, PD_WARN_OTHER, text);
}

/* --format=pprof: the exports, the command line as their comment. */
static int run_pprof(cli_report *c)
{
	char cmdline[4096];
	size_t at = (size_t)snprintf(cmdline, sizeof cmdline, "perfdiff");
	for (int i = 0; i < c->argc && at < sizeof cmdline; i++)
		at += (size_t)snprintf(cmdline + at, sizeof cmdline - at, " %s", c->argv[i]);
	const char *comments[] = { cmdline };
	report_pprof_args a = { c->paths, c->npaths, &c->po.popts, c->io.out_path, c->merge,
				comments, 1, &c->warns };
	int st = report_pprof(&a);
	cli_warns_print(&c->warns, &c->io);
	return st != CLI_EXIT_OK ? st : cli_warns_status(&c->warns, &c->io);
}

static int run(cli_report *c)
{
	if (c->pprof)
		return run_pprof(c);
	/* the profile hands its warnings to the summary as it reads */
	c->po.popts.warn = cli_warns_sink;
	c->po.popts.warn_ctx = &c->warns;
	pd_profile *p = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	cli_progress_start(&c->prog, &c->io, 1, NULL);
	if (!c->po.sopts.reader) /* copied by pd_profile_new() */
		c->po.sopts.reader = cli_progress_reader(&c->prog, 0);
	int nrc = pd_profile_new(&p, &c->po.popts, &err);
	c->po.sopts.reader = NULL;
	if (nrc < 0) {
		cli_progress_stop(&c->prog);
		cli_error("%s", err.message);
		return CLI_EXIT_ERROR;
	}
	int rrc = read_files(c, p);
	cli_progress_stop(&c->prog);
	if (rrc >= 0)
		explain_empty(c, p);
	if (rrc < 0 || choose_event(c, p) < 0) {
		cli_warns_print(&c->warns, &c->io);
		pd_profile_free(p);
		return CLI_EXIT_ERROR;
	}
	int wrc = write_report(c, p);
	pd_profile_free(p);
	cli_warns_print(&c->warns, &c->io);
	if (wrc < 0 || rrc > 0)
		return CLI_EXIT_ERROR;
	return cli_warns_status(&c->warns, &c->io);
}

int cmd_report(int argc, char **argv)
{
	cli_report c;
	memset(&c, 0, sizeof c);
	c.argc = argc;
	c.argv = argv;
	cli_io_init(&c.io, CMD, true);
	cli_warns_init(&c.warns);
	int st = CLI_EXIT_ERROR;
	bool stop = true;
	if (cli_options_init_rc(pd_report_write_options_init(&c.ro, PD_REPORT_WRITE_OPTIONS_VERSION),
				"pd_report_write_options") == 0 &&
	    cli_profile_opts_init(&c.po) == 0) {
		c.ro.profile_options = &c.po.popts;
		stop = cli_parse_stop(parse_args(argc, argv, &c), report_usage, &st);
	}
	/* pprof opens its own outputs: -o may be a directory */
	if (!stop && !c.pprof && cli_io_open(&c.io, c.paths, c.npaths) < 0) {
		stop = true;
		st = CLI_EXIT_ERROR;
	}
	if (!stop) {
		if (c.npaths > 1)
			cli_profile_opts_share_symbols(&c.po);
		st = cli_io_close(&c.io, run(&c));
	}
	cli_warns_free(&c.warns);
	cli_profile_opts_free(&c.po);
	free(c.paths);
	return st;
}
