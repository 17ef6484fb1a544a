/*
 * `perfdiff diff [options] BASE NEW` and `perfdiff diff [options] BASE...
 * -- NEW...` (also without the word `diff`): the runs of each side folded
 * into one profile per side, compared by the diff engine and written by
 * the library (pd_diff_write(), or with --format=folded
 * pd_diff_write_folded(), a differential flame graph's input).
 * The exit status is that of diff(1) rather than that of `report`, so that
 * scripts can gate on it: 0 compared (warnings only on stderr), 1 a
 * significant change above --fail-on, 2 trouble.
 */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_profile_opts.h"
#include "diff_cli.h"

#define CMD "diff"

void diff_usage(FILE *f)
{
	fputs(
"Usage: perfdiff diff [OPTIONS] BASE NEW\n"
"       perfdiff diff [OPTIONS] BASE... -- NEW...\n"
"       perfdiff [OPTIONS] BASE NEW   (the same, without the word 'diff')\n"
"\n"
"Compare the profile of BASE with that of NEW.  Each side is one or more\n"
"perf.data files (runs of the same setup); with more than one file on a\n"
"side, '--' separates the sides.  For the event compared, every key of\n"
"three metrics, as the kernel test robot (LKP) reports them, is a row:\n"
"  calltrace  a caller path of up to --depth frames (callee first,\n"
"             joined by '.'): the share of samples whose path ends so;\n"
"  children   a symbol: the share of samples whose chain contains it;\n"
"  self       a symbol: the share of samples whose leaf it is;\n"
"and with --tree every node of the aligned calling-context tree.  Each\n"
"side of a row has one value per run, their mean and standard deviation;\n"
"the change is new mean - base mean in percentage points of the event's\n"
"total.\n"
"\n"
"The two trees are aligned rather than matched by name: a function that\n"
"was renamed, inlined, outlined, split (foo -> foo + foo.cold), merged or\n"
"moved under another caller is reported once, as an explained shift with\n"
"the cost carried across and the net change left, instead of as an\n"
"unrelated -X row and +X row.\n"
"\n"
"Evidence: a rename keeps the function's callees (a callee that most of\n"
"its cost reaches from elsewhere, like the system-call entry, counts\n"
"little), its share of its caller's time and, where it is deep, what\n"
"happens far below it; unlike names and two source files raise the bar.\n"
"The builds' symbol tables (ELF, kallsyms) refute a rename whose old name\n"
"the new build still defines; DWARF inline instances confirm or refute\n"
"an inlining that frames without inline information cannot show.\n"
"\n"
"Significance: with at least 2 runs on each side, a moderated t-test over\n"
"the runs (run-to-run variation, each row's shrunk toward what all rows\n"
"show, so 2 or 3 runs suffice), never below the variation within each\n"
"run's time blocks; with 1 run on a side, a moderated t-test over the\n"
"runs' time blocks (bursts of other load count as variation), with every\n"
"variance raised as far as the rows vary more than that as a whole; with\n"
"1 run and no sample times, a two-proportion test on the sample counts,\n"
"which covers only sampling noise.  Record several runs per side to\n"
"judge the variation between runs.  p-values are corrected for the\n"
"number of rows (Benjamini-Hochberg q-values); a row is significant when\n"
"its q-value is at most --fdr and its change at least --min-change.\n"
"\n"
"Text output (default): first the explained shifts, each on one line\n"
"  __fget_light -> __fdget (renamed)  -12.1 -> +14.9  net +2.8\n"
"(the base symbol's and the new symbol's children changes, and the net\n"
"change once the cost is carried across, '(n.s.)' when that is not\n"
"significant), the evidence in words under it, then the rows it explains\n"
"(its symbols' children and self rows; --all: every row through it).  A\n"
"shift is tested on its net change, and the rows it explains take its\n"
"significance: a pure rename is listed, but changes nothing significant.\n"
"Listed are the shifts whose net change or whose rows changed\n"
"significantly.  Then the robot's compare table of the other rows,\n"
"under the sides' names and files:\n"
"       BASE-MEAN [± STDDEV%]  CHANGE  NEW-MEAN [± STDDEV%]  KEY\n"
"with keys 'perf-profile.METRIC.EVENT.KEY' (calltrace, children, self,\n"
"then tree rows; each block by change, most negative first; a\n"
"' [dso]' suffix where two rows of a metric share a key and on every\n"
"'[unknown]' row -- a dso's frames without a symbol, whatever their\n"
"addresses; ± shown above 2 %), then the files, runs, samples and totals\n"
"of each side, the dsos taken for one program under two names\n"
"  dso: ./app-1.2 ~ ./app-1.3 (80 % of symbol names shared)\n"
"and the test used.  Rows that are not significant are left out (their\n"
"number is given) unless --all.\n"
"\n"
"Options:\n"
"  --format=FMT       text (default), lkp, json, csv or folded\n"
"                     lkp: exactly the robot's compare table: the BASE and\n"
"                     NEW names, the dashes, the %stddev header and the\n"
"                     rows, with keys and values as the robot computes them\n"
"                     (implies the robot's reading of the files: see\n"
"                     'perfdiff report --format=lkp')\n"
"                     json: schema 'perfdiff.diff/1', see docs/diff-json.md\n"
"                     csv: a header line, then one line per row: metric,key,\n"
"                     symbol,dso,base_mean,base_stddev,base_present,\n"
"                     new_mean,new_stddev,new_present,change,significant,\n"
"                     p_value,q_value,relation,relation_base,relation_new,\n"
"                     relation_net, then base_N for each base run and new_N\n"
"                     for each new run\n"
"                     folded: the input of a differential flame graph\n"
"                     (FlameGraph's flamegraph.pl, inferno-flamegraph), as\n"
"                     difffolded.pl writes it: one line per distinct stack\n"
"                     of either side, sorted by stack (byte order):\n"
"                       COMM;ROOT;...;LEAF BASE NEW\n"
"                     the stack as 'perfdiff report --format=folded' writes\n"
"                     it, BASE and NEW the stack's period (--weight) on\n"
"                     that side, the mean over its runs (up to 2 decimals,\n"
"                     which flamegraph.pl reads; inferno truncates them),\n"
"                     0 where the side lacks it; no significance test, so\n"
"                     --all, --fail-on, --lkp-keys and the diff engine's\n"
"                     options do not apply\n"
"                       perfdiff diff --format=folded A B | flamegraph.pl > d.svg\n"
"  --weight=W         folded: period (default) or samples\n"
"  --all              every row, significant or not (text: the others end\n"
"                     in '(n.s.)')\n"
"  --lkp-keys         the robot's keys and reading of the files (as\n"
"                     --format=lkp) in any format\n"
"  --fail-on=POINTS   exit 1 when a significant row changed by more than\n"
"                     POINTS percentage points (with --absolute: percent);\n"
"                     an explained shift counts by its net change, not by\n"
"                     the rows it explains\n"
"  --absolute         values are periods per second of each run's recording\n"
"                     (its SAMPLE_TIME span, in pipe mode the first to the\n"
"                     last sample) instead of shares of the event total,\n"
"                     changes are relative (%); text keys then read\n"
"                     'perf-rate.…'\n"
"  --depth=N          frames of a calltrace key (default 5, the robot's;\n"
"                     0: the whole path)\n"
"  --min-change=X     smallest change that can be significant (default 0.1\n"
"                     points; with --absolute 5 %)\n"
"  --fdr=Q            false discovery rate, 0 < Q <= 1 (default 0.05)\n"
"  --rename-score=S   evidence (0..1) a rename needs (default 0.6)\n"
"  --no-align         match rows by exact name only: no explained shifts\n"
"  --tree             also a row per node of the aligned tree (key: the\n"
"                     path from the root, frames joined by ';')\n"
"  --event=NAME       the event to compare ('cycles' finds 'cycles:pp');\n"
"                     by default the one the robot picks in BASE (cycles,\n"
"                     else cpu-clock, else task-clock), found in NEW by name\n",
	      f);
	cli_profile_opts_usage(f);
	fputs(
"  --base-OPT=V, --new-OPT=V\n"
"                     OPT for one side only, so that two kernels, two\n"
"                     machines or two binary names can be compared: OPT is\n"
"                     kallsyms, vmlinux, symfs, buildid-dir, jit-dir, time\n"
"                     (the side's value replaces the common one) or comm,\n"
"                     pid, tid, cpu, dso (added to the common list):\n"
"                       perfdiff --base-kallsyms=k1 --new-kallsyms=k2 a b\n"
"                       perfdiff --base-comm=app-1.2 --new-comm=app-1.3 a b\n"
"  -h, --help         show this help and exit\n"
"  Options that take a value accept '--opt=VALUE' and '--opt VALUE'; list\n"
"  options may be repeated.  '-' reads a side's only file from standard\n"
"  input.\n"
"\n"
"Exit status:\n"
"  0  compared (warnings of the reader and the symbolizer go to stderr as\n"
"     'perfdiff: warning: ...', a text that several files give once with\n"
"     the files: '... (4 files: a.data, ...)', and do not change the\n"
"     status)\n"
"  1  with --fail-on: a significant row changed by more than POINTS\n"
"  2  usage error, an input could not be opened or is corrupt (what was\n"
"     read before the error is still compared), or the event is missing\n"
"     on a side\n",
	      f);
}

/* ------------------------------------------------------------- options */

typedef struct cli_diff {
	cli_profile_opts po;       /* options of both sides */
	cli_profile_opts side[2];  /* each side's: po with its --base-/--new- options */
	char **side_opts[2];       /* those options, "--kallsyms=V" */
	size_t nside_opts[2];
	pd_diff_options dopts;
	pd_format format;
	const char **paths[2];
	size_t npaths[2];
	bool all;
	bool lkp_keys;             /* --lkp-keys, or --format=lkp */
	bool fail_on_set;
	double fail_on;
	bool min_change_set;
	bool weight_set, weight_samples;  /* --weight (folded) */
} cli_diff;

typedef enum opt_kind {
	OPT_FORMAT, OPT_FAIL_ON, OPT_DEPTH, OPT_MIN_CHANGE, OPT_FDR, OPT_RENAME_SCORE,
	OPT_WEIGHT,
} opt_kind;

static const cli_value_opt value_opts[] = {
	{ "--format", OPT_FORMAT },         { "--fail-on", OPT_FAIL_ON },
	{ "--depth", OPT_DEPTH },           { "--min-change", OPT_MIN_CHANGE },
	{ "--fdr", OPT_FDR },               { "--rename-score", OPT_RENAME_SCORE },
	{ "--weight", OPT_WEIGHT },
};

#define NELEMS(a) (sizeof (a) / sizeof (a)[0])

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

/* Returns -1 to continue, else an exit status. */
static int apply_value(cli_diff *c, opt_kind kind, const char *val)
{
	double v;
	switch (kind) {
	case OPT_FORMAT:
		if (cli_format_parse(CMD, val, CLI_FORMAT_BIT(PD_FORMAT_TEXT) |
				     CLI_FORMAT_BIT(PD_FORMAT_LKP) | CLI_FORMAT_BIT(PD_FORMAT_JSON) |
				     CLI_FORMAT_BIT(PD_FORMAT_CSV) | CLI_FORMAT_BIT(PD_FORMAT_FOLDED),
				     "text, lkp, json, csv or folded", &c->format) < 0)
			return CLI_EXIT_ERROR;
		break;
	case OPT_FAIL_ON:
		if (!parse_double(val, 0, HUGE_VAL, &v))
			return cli_usage_error(CMD,
				"--fail-on needs a number of points >= 0, not '%s'", val);
		c->fail_on = v;
		c->fail_on_set = true;
		break;
	case OPT_DEPTH: {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(val, &end, 10);
		if (val[0] < '0' || val[0] > '9' || *end || errno || n > UINT_MAX)
			return cli_usage_error(CMD,
				"--depth needs a number of frames (0: all), not '%s'", val);
		c->dopts.depth = (unsigned)n;
		break;
	}
	case OPT_MIN_CHANGE:
		if (!parse_double(val, 0, HUGE_VAL, &v))
			return cli_usage_error(CMD,
				"--min-change needs a number >= 0, not '%s'", val);
		c->dopts.min_change = v;
		c->min_change_set = true;
		break;
	case OPT_FDR:
		if (!parse_double(val, 0, 1, &v) || v == 0)
			return cli_usage_error(CMD,
				"--fdr needs a rate above 0 and at most 1, not '%s'", val);
		c->dopts.fdr = v;
		break;
	case OPT_RENAME_SCORE:
		if (!parse_double(val, 0, 1, &v))
			return cli_usage_error(CMD,
				"--rename-score needs a score from 0 to 1, not '%s'", val);
		c->dopts.rename_score = v;
		break;
	case OPT_WEIGHT:
		if (strcmp(val, "period") == 0)
			c->weight_samples = false;
		else if (strcmp(val, "samples") == 0)
			c->weight_samples = true;
		else
			return cli_usage_error(CMD, "--weight is period or samples, not '%s'", val);
		c->weight_set = true;
		break;
	}
	return -1;
}

static const struct {
	const char *name;
	unsigned flag;
} flag_opts[] = {
	{ "--absolute", PD_DIFF_ABSOLUTE },
	{ "--no-align", PD_DIFF_NO_ALIGN },
	{ "--tree", PD_DIFF_TREE_ROWS },
};

/* Each side's options: the common ones with its own over them. */
static int split_sides(cli_diff *c)
{
	for (int s = 0; s < 2; s++) {
		if (cli_profile_opts_copy(&c->side[s], &c->po) < 0) {
			cli_error("out of memory");
			return -1;
		}
		for (size_t k = 0; k < c->nside_opts[s]; k++)
			if (cli_profile_opts_apply(&c->side[s], CMD, c->side_opts[s][k]) < 0)
				return -1;
		if (cli_profile_opts_finish(&c->side[s]) < 0)
			return -1;
	}
	return 0;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, cli_diff *c)
{
	const char **files = calloc((size_t)argc, sizeof *files);
	if (!files) {
		cli_error("out of memory");
		return CLI_EXIT_ERROR;
	}
	c->paths[0] = files;
	for (int s = 0; s < 2; s++)
		if (!(c->side_opts[s] = calloc((size_t)argc, sizeof *c->side_opts[s]))) {
			cli_error("out of memory");
			return CLI_EXIT_ERROR;
		}
	size_t nfiles = 0, split = SIZE_MAX;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			files[nfiles++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			if (split != SIZE_MAX)
				return cli_usage_error(CMD, "'--' separates the two sides only once");
			split = nfiles;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			diff_usage(stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(a, "--all") == 0) {
			c->all = true;
			continue;
		}
		if (strcmp(a, "--lkp-keys") == 0) {
			c->lkp_keys = true;
			continue;
		}
		int side;
		char *opt;
		int so = cli_side_opt(CMD, argc, argv, &i, &side, &opt);
		if (so < 0)
			return CLI_EXIT_ERROR;
		if (so > 0) {
			c->side_opts[side][c->nside_opts[side]++] = opt;
			continue;
		}
		bool done = false;
		for (size_t k = 0; k < NELEMS(flag_opts) && !done; k++)
			if (strcmp(a, flag_opts[k].name) == 0) {
				c->dopts.flags |= flag_opts[k].flag;
				done = true;
			}
		if (done)
			continue;
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
	if (split == SIZE_MAX) {
		if (nfiles != 2)
			return cli_usage_error(CMD,
				"diff needs BASE and NEW, or BASE... -- NEW... (got %zu FILE%s)",
				nfiles, nfiles == 1 ? "" : "s");
		split = 1;
	}
	if (split == 0 || split == nfiles)
		return cli_usage_error(CMD, "diff needs at least one FILE on each side of '--'");
	c->npaths[0] = split;
	c->paths[1] = files + split;
	c->npaths[1] = nfiles - split;
	size_t stdin_uses = 0;
	for (size_t i = 0; i < nfiles; i++)
		stdin_uses += strcmp(files[i], "-") == 0;
	if (stdin_uses > 1)
		return cli_usage_error(CMD, "standard input ('-') can be read only once");
	if (cli_profile_opts_finish(&c->po) < 0)
		return CLI_EXIT_ERROR;
	/* folded runs no comparison: options of the comparison would be
	 * silently lost, and --fail-on's exit status with them */
	if (c->format == PD_FORMAT_FOLDED && (c->fail_on_set || c->lkp_keys))
		return cli_usage_error(CMD, "%s does not go with --format=folded",
				       c->fail_on_set ? "--fail-on" : "--lkp-keys");
	if (c->weight_set && c->format != PD_FORMAT_FOLDED)
		return cli_usage_error(CMD, "--weight goes with --format=folded");
	if (c->format == PD_FORMAT_LKP || c->lkp_keys) {
		pd_lkp_profile_options(&c->po.popts, &c->po.sopts);
		c->dopts.flags |= PD_DIFF_LKP_KEYS;
	}
	if (split_sides(c) < 0)
		return CLI_EXIT_ERROR;
	/* the library's default of the mode, spelled out for the footer and
	 * the JSON "options" */
	if (!c->min_change_set)
		c->dopts.min_change = c->dopts.flags & PD_DIFF_ABSOLUTE ? 5 : 0.1;
	c->dopts.event = c->po.event;
	return -1;
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
	size_t *warn_end;    /* per file: the profile's warning count after it */
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
		memset(&j->err, 0, sizeof j->err);
		int rc = pd_profile_add_file(j->p, c->paths[j->side][i], &j->err);
		j->warn_end[i] = pd_profile_warning_count(j->p);
		j->nread = i + 1;
		if (rc < 0) {
			j->rc = pd_profile_run_count(j->p) == runs ? -1 : 1;
			return NULL;
		}
	}
	return NULL;
}

/* Hand a finished side's warnings to `w`, file by file. */
static void hold_warnings(const side_job *j, diff_warnings *w)
{
	size_t k = 0;
	for (size_t i = 0; i < j->nread; i++)
		for (; k < j->warn_end[i]; k++)
			diff_warnings_add(w, j->c->paths[j->side][i], pd_profile_warning(j->p, k));
}

/* Print a side's error after the warnings held so far.  0 when the side
 * can be compared, else -1 (the profile is freed). */
static int report_side(side_job *j, diff_warnings *w)
{
	if (j->rc == 0)
		return 0;
	diff_warnings_flush(w);
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

/* Write to standard output with `write` (pd_diff_write() or
 * pd_diff_write_folded()'s call); 0, or -1 after printing the error. */
typedef int (*diff_writer)(pd_writer *w, const void *what, const pd_diff_write_options *o,
			   pd_error *err);

static int write_out(cli_diff *c, diff_writer write, const void *what, const char *noun)
{
	pd_diff_write_options o;
	pd_diff_write_options_init(&o);
	o.format = c->format;
	o.all = c->all;
	o.event = c->po.event;
	o.weight_samples = c->weight_samples;
	for (int side = 0; side < 2; side++) {
		o.files[side] = c->paths[side];
		o.nfiles[side] = c->npaths[side];
	}
	pd_writer *w;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_writer_new_file(&w, stdout, &err);
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

static int write_folded(pd_writer *w, const void *p, const pd_diff_write_options *o,
			pd_error *err)
{
	pd_profile *const *sides = p;
	return pd_diff_write_folded(w, sides[0], sides[1], o, err);
}

static int run(cli_diff *c)
{
	pd_profile *p[2] = { NULL, NULL };
	int st = CLI_EXIT_OK;
	side_job jobs[2];
	memset(jobs, 0, sizeof jobs);
	for (int side = 0; side < 2; side++) {
		jobs[side].c = c;
		jobs[side].side = side;
		jobs[side].warn_end = calloc(c->npaths[side] ? c->npaths[side] : 1,
					     sizeof *jobs[side].warn_end);
		if (!jobs[side].warn_end) {
			free(jobs[0].warn_end);
			cli_error("out of memory");
			return CLI_EXIT_ERROR;
		}
	}
	pthread_t tid;
	bool threaded = pthread_create(&tid, NULL, build_side, &jobs[1]) == 0;
	build_side(&jobs[0]);
	if (threaded)
		pthread_join(tid, NULL);
	else
		build_side(&jobs[1]);
	diff_warnings w;
	diff_warnings_init(&w);
	int bad = 0;
	for (int side = 0; side < 2 && !bad; side++) {
		hold_warnings(&jobs[side], &w);
		if (jobs[side].rc > 0)
			st = CLI_EXIT_ERROR;
		bad = report_side(&jobs[side], &w);
	}
	p[0] = jobs[0].p;
	p[1] = jobs[1].p;
	free(jobs[0].warn_end);
	free(jobs[1].warn_end);
	if (bad) {
		diff_warnings_free(&w);
		pd_profile_free(p[0]);
		pd_profile_free(p[1]);
		return CLI_EXIT_ERROR;
	}
	diff_warnings_flush(&w);
	diff_warnings_free(&w);
	if (c->format == PD_FORMAT_FOLDED) {
		if (write_out(c, write_folded, p, "stacks") < 0)
			st = CLI_EXIT_ERROR;
		pd_profile_free(p[0]);
		pd_profile_free(p[1]);
		return st;
	}
	pd_diff *d = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	if (pd_diff_new(&d, p[0], p[1], &c->dopts, &err) < 0) {
		cli_error("%s", err.message[0] ? err.message : pd_error_code_str(err.code));
		pd_profile_free(p[0]);
		pd_profile_free(p[1]);
		return CLI_EXIT_ERROR;
	}
	if (write_out(c, write_diff, d, "comparison") < 0)
		st = CLI_EXIT_ERROR;
	if (st == CLI_EXIT_OK && c->fail_on_set && fails(d, c->fail_on))
		st = 1;
	pd_diff_free(d);
	pd_profile_free(p[0]);
	pd_profile_free(p[1]);
	return st;
}

int cmd_diff(int argc, char **argv)
{
	cli_diff c;
	memset(&c, 0, sizeof c);
	c.format = PD_FORMAT_TEXT;
	cli_profile_opts_init(&c.po);
	pd_diff_options_init(&c.dopts);
	int st = parse_args(argc, argv, &c);
	if (st < 0) {
		cli_profile_opts_share_symbols(&c.po);
		for (int s = 0; s < 2; s++)
			c.side[s].sopts.symcache = c.po.sopts.symcache;
		st = run(&c);
	}
	for (int s = 0; s < 2; s++) {
		/* the symbol cache is the common options' */
		c.side[s].sopts.symcache = NULL;
		cli_profile_opts_free(&c.side[s]);
		for (size_t k = 0; k < c.nside_opts[s]; k++)
			free(c.side_opts[s][k]);
		free(c.side_opts[s]);
	}
	cli_profile_opts_free(&c.po);
	free(c.paths[0]);
	return st;
}
