/*
 * `perfdiff report [options] FILE...`: the files are runs of one setup,
 * folded into one profile (children, self and the calling-context tree of
 * every event) and printed as a table like `perf report --children` with
 * call chains under each row, or as JSON, CSV or collapsed stacks.
 * Options map onto pd_profile_options and pd_report_write_options; the
 * library writes every format (perfdiff/output.h).  The exit status tells
 * a clean read (0) from one with warnings (1) and from an error (2).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_profile_opts.h"
#include "report.h"

#define CMD "report"

void report_usage(FILE *f)
{
	fputs(
"Usage: perfdiff report [OPTIONS] FILE...\n"
"\n"
"Fold the samples of one or more perf.data inputs into a profile and print\n"
"it.  Several FILEs are runs of the same setup: their values are summed\n"
"(JSON and CSV also give each run's).  FILE is a perf.data file, '-' for\n"
"standard input (pipe mode) or a 'perf record --threads' directory.\n"
"\n"
"For every event, each symbol (keyed by name, dso and inline-ness) gets\n"
"  Children  the share of the event's period whose call chain contains\n"
"            it, counted once per sample even under recursion;\n"
"  Self      the share of samples whose leaf frame it is.\n"
"Percentages are of the event's total period (of the selected samples\n"
"when filters are given).  Compiler clone suffixes (.isra.N,\n"
".constprop.N, .part.N, .cold, .llvm.N, .lto_priv.N, .localalias) are\n"
"folded into the function's name.  Frames without a symbol are named by\n"
"their address in their dso, one row per address, as perf does.\n"
"\n"
"Text output (default): per event a header, then one row per symbol,\n"
"sorted by Children:\n"
"  CHILDREN%  SELF%  DSO  [k|.] SYMBOL\n"
"([k] kernel, [.] user; inline frames end in ' (inlined)') and under each\n"
"row its call chains as a tree, percentages of the event total:\n"
"  caller order (default): the row's symbol, then what it calls;\n"
"  callee order: the row's symbol, then who calls it.\n"
"\n"
"Options:\n"
"  --format=FMT       text (default), json, csv, folded or lkp\n"
"                     json: see docs/report-json.md (schema\n"
"                     'perfdiff.report/1'): runs, events, rows and the\n"
"                     calling-context tree, with per-run values\n"
"                     csv: one line per row: event,symbol,dso,level,inlined,\n"
"                     children_pct,self_pct,children,self, then\n"
"                     children_N,self_N for each run N\n"
"                     folded: collapsed stacks for flame graphs, one line\n"
"                     per distinct stack: 'COMM;ROOT;...;LEAF WEIGHT'; inline\n"
"                     frames end in '_[i]'; ';' in names becomes ':'\n"
"                     lkp: the kernel test robot's perf-profile keys\n"
"                     ('calltrace|children|self.EVENT.SYMBOL: PCT'), exactly\n"
"                     as its parser prints them from 'perf report --children\n"
"                     -U -g folded,0.5,callee --sort=dso,symbol'; implies\n"
"                     --perf-compat, -U and perf's names; every event adds\n"
"                     to the first event's keys (the robot's way) unless\n"
"                     --event is given; several FILEs: a '# FILE' line\n"
"                     before each file's keys\n"
"  --mean             with lkp: one block of each key's mean over the FILEs\n"
"                     (0 where a FILE lacks the key)\n"
"  --event=NAME       only this event ('cycles' finds 'cycles:pp'); by\n"
"                     default every event with samples (folded: the event\n"
"                     the kernel test robot picks: cycles, else cpu-clock,\n"
"                     else task-clock)\n"
"  --order=ORDER      caller (default) or callee chains under each row\n"
"  --threshold=PCT    leave out chain nodes below PCT % of the event total\n"
"                     (default 0.5)\n"
"  --no-chains        the table without call chains\n"
"  --percent-limit=PCT  leave out rows below PCT % (children, or self with\n"
"                     --sort=self), and JSON tree nodes below it; also the\n"
"                     chain threshold unless --threshold is given\n"
"  --sort=KEY         children (default) or self\n"
"  --weight=W         folded: period (default) or samples\n",
	      f);
	cli_profile_opts_usage(f);
	fputs(
"  -h, --help         show this help and exit\n"
"  --                 end of options\n"
"  Options that take a value accept '--opt=VALUE' and '--opt VALUE'; list\n"
"  options may be repeated.\n"
"\n"
"Exit status:\n"
"  0  every input was read to the end without warnings\n"
"  1  read, with warnings from the reader or the symbolizer\n"
"  2  usage error, an input could not be opened, or it is corrupt (what\n"
"     was read before the error is still reported)\n"
"Warnings go to stderr as 'perfdiff: warning: ...'.\n",
	      f);
}

/* ------------------------------------------------------------- options */

typedef struct cli_report {
	pd_report_write_options ro;
	cli_profile_opts po;       /* filters, naming, lookup, --event */
	const char **paths;
	size_t npaths;
	bool threshold_set;
} cli_report;

static bool parse_pct(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (s[0] == '\0' || *end || errno || !isfinite(v) || v < 0 || v > 100)
		return false;
	*out = v;
	return true;
}

typedef enum opt_kind {
	OPT_FORMAT, OPT_ORDER, OPT_THRESHOLD, OPT_PERCENT_LIMIT, OPT_SORT, OPT_WEIGHT,
} opt_kind;

/* report's own options, in opt_kind order (apply_value finds a name by
 * its kind); the rest are cli_profile_opts' */
static const cli_value_opt value_opts[] = {
	{ "--format", OPT_FORMAT },       { "--order", OPT_ORDER },
	{ "--threshold", OPT_THRESHOLD }, { "--percent-limit", OPT_PERCENT_LIMIT },
	{ "--sort", OPT_SORT },           { "--weight", OPT_WEIGHT },
};

#define NELEMS(a) (sizeof (a) / sizeof (a)[0])

/* Returns -1 to continue, else an exit status. */
static int apply_value(cli_report *c, opt_kind kind, const char *val)
{
	pd_report_write_options *ro = &c->ro;
	switch (kind) {
	case OPT_FORMAT:
		if (cli_format_parse(CMD, val, CLI_FORMAT_BIT(PD_FORMAT_TEXT) |
				     CLI_FORMAT_BIT(PD_FORMAT_JSON) | CLI_FORMAT_BIT(PD_FORMAT_CSV) |
				     CLI_FORMAT_BIT(PD_FORMAT_FOLDED) | CLI_FORMAT_BIT(PD_FORMAT_LKP),
				     "text, json, csv, folded or lkp", &ro->format) < 0)
			return CLI_EXIT_ERROR;
		break;
	case OPT_ORDER:
		if (strcmp(val, "caller") == 0)
			ro->order = PD_CHAIN_CALLER;
		else if (strcmp(val, "callee") == 0)
			ro->order = PD_CHAIN_CALLEE;
		else
			return cli_usage_error(CMD, "--order is caller or callee, not '%s'", val);
		break;
	case OPT_THRESHOLD:
	case OPT_PERCENT_LIMIT: {
		double v;
		if (!parse_pct(val, &v))
			return cli_usage_error(CMD, "%s needs a percentage from 0 to 100, not '%s'",
					       value_opts[kind].name, val);
		if (kind == OPT_THRESHOLD) {
			ro->threshold = v;
			c->threshold_set = true;
		} else {
			ro->percent_limit = v;
		}
		break;
	}
	case OPT_SORT:
		if (strcmp(val, "children") == 0)
			ro->sort_self = false;
		else if (strcmp(val, "self") == 0)
			ro->sort_self = true;
		else
			return cli_usage_error(CMD, "--sort is children or self, not '%s'", val);
		break;
	case OPT_WEIGHT:
		if (strcmp(val, "period") == 0)
			ro->weight_samples = false;
		else if (strcmp(val, "samples") == 0)
			ro->weight_samples = true;
		else
			return cli_usage_error(CMD, "--weight is period or samples, not '%s'", val);
		break;
	}
	return -1;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, cli_report *c)
{
	bool no_more_opts = false;
	c->paths = calloc((size_t)argc, sizeof *c->paths);
	if (!c->paths) {
		cli_error("out of memory");
		return CLI_EXIT_ERROR;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (no_more_opts || a[0] != '-' || strcmp(a, "-") == 0) {
			c->paths[c->npaths++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			no_more_opts = true;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			report_usage(stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(a, "--mean") == 0) {
			c->ro.mean = true;
			continue;
		}
		if (strcmp(a, "--no-chains") == 0) {
			c->ro.chains = false;
			continue;
		}
		int kind;
		const char *val;
		int m = cli_profile_opts_or_value(&c->po, value_opts, NELEMS(value_opts), CMD,
						  argc, argv, &i, &kind, &val);
		if (m < 0)
			return CLI_EXIT_ERROR;
		if (m == 1)
			continue;
		int st = apply_value(c, (opt_kind)kind, val);
		if (st >= 0)
			return st;
	}
	if (c->npaths == 0)
		return cli_usage_error(CMD, "report needs at least one FILE ('-' for standard input)");
	size_t stdin_uses = 0;
	for (size_t i = 0; i < c->npaths; i++)
		stdin_uses += strcmp(c->paths[i], "-") == 0;
	if (stdin_uses > 1)
		return cli_usage_error(CMD, "standard input ('-') can be read only once");
	if (!c->threshold_set && c->ro.percent_limit > 0)
		c->ro.threshold = c->ro.percent_limit;
	if (cli_profile_opts_finish(&c->po) < 0)
		return CLI_EXIT_ERROR;
	if (c->ro.mean && c->ro.format != PD_FORMAT_LKP)
		return cli_usage_error(CMD, "--mean goes with --format=lkp");
	if (c->ro.format == PD_FORMAT_LKP)
		pd_lkp_profile_options(&c->po.popts, &c->po.sopts);
	return -1;
}

/* ------------------------------------------------------------- running */

static void print_warnings(const pd_profile *p, size_t *shown)
{
	for (; *shown < pd_profile_warning_count(p); (*shown)++) {
		const char *w = pd_profile_warning(p, *shown);
		if (w)
			cli_warning("%s", w);
	}
}

/* The profile to standard output in the chosen format; 0, or -1 after
 * printing the error. */
static int write_report(cli_report *c, pd_profile *p)
{
	pd_writer *w;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_writer_new_file(&w, stdout, &err);
	if (rc == 0) {
		c->ro.files = c->paths;
		c->ro.nfiles = c->npaths;
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

static int run(cli_report *c)
{
	pd_profile *p = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	if (pd_profile_new(&p, &c->po.popts, &err) < 0) {
		cli_error("%s", err.message);
		return CLI_EXIT_ERROR;
	}
	size_t shown = 0;
	bool read_error = false;
	for (size_t i = 0; i < c->npaths; i++) {
		size_t runs = pd_profile_run_count(p);
		memset(&err, 0, sizeof err);
		int rc = pd_profile_add_file(p, c->paths[i], &err);
		print_warnings(p, &shown);
		if (rc < 0) {
			cli_print_pd_error(c->paths[i], &err);
			read_error = true;
			if (pd_profile_run_count(p) == runs) {
				/* not opened: nothing of it to report */
				pd_profile_free(p);
				return CLI_EXIT_ERROR;
			}
			break;
		}
	}
	c->ro.event = -1;
	if (c->po.event) {
		c->ro.event = pd_profile_find_event(p, c->po.event);
		if (c->ro.event < 0) {
			cli_error("no event '%s' in the input", c->po.event);
			pd_profile_free(p);
			return CLI_EXIT_ERROR;
		}
	}
	int wrc = write_report(c, p);
	pd_profile_free(p);
	if (wrc < 0 || read_error)
		return CLI_EXIT_ERROR;
	return shown ? CLI_EXIT_WARNINGS : CLI_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	cli_report c;
	memset(&c, 0, sizeof c);
	pd_report_write_options_init(&c.ro);
	c.ro.profile_options = &c.po.popts;
	cli_profile_opts_init(&c.po);
	int st = parse_args(argc, argv, &c);
	if (st < 0) {
		if (c.npaths > 1)
			cli_profile_opts_share_symbols(&c.po);
		st = run(&c);
	}
	cli_profile_opts_free(&c.po);
	free(c.paths);
	return st;
}
