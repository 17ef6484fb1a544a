/*
 * The option table itself (cli_opttab.h): one row per option and the set
 * of commands that take it.  An option spelled alike whose value or
 * meaning differs between commands (--format's words, --perf-compat, the
 * filters of `script`) has one row per meaning, each with its commands.
 * Adding an option here adds it to the parser, the completion, "did you
 * mean" and the manual check at once; only its setter is written by hand.
 */
#include "cli_opttab.h"

#include <float.h>
#include <limits.h>
#include <string.h>

#define DUMP CLI_CMD_DUMP
#define SCRIPT CLI_CMD_SCRIPT
#define REPORT CLI_CMD_REPORT
#define DIFF CLI_CMD_DIFF
#define EXPLAIN CLI_CMD_EXPLAIN
#define RECORD CLI_CMD_RECORD
#define TUI CLI_CMD_TUI
#define READERS (DUMP | SCRIPT | REPORT)
#define PROFILES (REPORT | DIFF)
#define SAMPLES (REPORT | DIFF | TUI)  /* which samples a profile takes */
#define NAMING (SCRIPT | REPORT | DIFF | TUI)
#define ALL (DUMP | SCRIPT | REPORT | DIFF | EXPLAIN | RECORD | TUI)

#define OUT "include/output-options.scd"
#define NAMES "include/naming-options.scd"
#define FILTERS "include/filter-options.scd"
#define PROFILE "include/profile-options.scd"

/* Row builders: a flag, a value, a word, a number. */
#define FLAG(n, a, c, p, i, doc) { n, a, CLI_FLAG, NULL, c, p, i, 0, 0, 0, NULL, NULL, doc }
#define VAL(n, a, k, arg, c, p, i, f, doc) { n, a, k, arg, c, p, i, f, 0, 0, NULL, NULL, doc }
#define WORD(n, w, c, p, i, f, doc) { n, NULL, CLI_WORD, w, c, p, i, f, 0, 0, NULL, NULL, doc }
#define NUM(n, k, arg, c, p, i, f, lo, hi, need, doc) \
	{ n, NULL, k, arg, c, p, i, f, lo, hi, need, NULL, doc }
#define HINT(n, c, to) \
	{ n, NULL, CLI_HINT, NULL, c, CLI_PART_NONE, 0, 0, 0, 0, NULL, to, "include/perf-habits.scd" }

#define IO CLI_PART_IO
#define SO CLI_PART_SESSION
#define PO CLI_PART_PROFILE
#define OWN CLI_PART_OWN
#define PCT "a percentage from 0 to 100"

static const cli_optdef table[] = {
	/* the top level's own (main.c) */
	{ "--help", "-h", CLI_HELP, NULL, CLI_CMD_TOP | ALL, CLI_PART_NONE, 0, 0, 0, 0, NULL,
	  NULL, OUT },
	FLAG("--version", "-V", CLI_CMD_TOP, CLI_PART_NONE, 0, "perfdiff.1.scd"),

	/* every command's output and messages (cli_io.c) */
	FLAG("--quiet", "-q", ALL, IO, CLI_IO_QUIET, OUT),
	FLAG("--verbose", "-v", ALL, IO, CLI_IO_VERBOSE, OUT),
	VAL("--output", "-o", CLI_STRING, "FILE", ALL, IO, CLI_IO_OUTPUT, 0, OUT),
	FLAG("--strict", NULL, ALL, IO, CLI_IO_STRICT, OUT),
	FLAG("--progress", NULL, ALL, IO, CLI_IO_PROGRESS, OUT),
	FLAG("--no-progress", NULL, ALL, IO, CLI_IO_NO_PROGRESS, OUT),
	WORD("--color", "auto|always|never", PROFILES | EXPLAIN | TUI, IO, CLI_IO_COLOR, 0,
	     "include/color-option.scd"),
	VAL("--input", "-i", CLI_INPUT, "FILE", READERS, CLI_PART_NONE, 0, 0,
	    "perfdiff-report.1.scd"),

	/* how frames are named and where code is found (pd_session_options) */
	FLAG("--no-inline", NULL, NAMING, SO, CLI_SO_NO_INLINE, NAMES),
	FLAG("--no-demangle", NULL, NAMING, SO, CLI_SO_NO_DEMANGLE, NAMES),
	FLAG("--perf-compat", NULL, SCRIPT, SO, CLI_SO_PERF_COMPAT, "perfdiff-script.1.scd"),
	NUM("--max-stack", CLI_UINT, "N", NAMING, SO, CLI_SO_MAX_STACK, 0, 1, UINT_MAX,
	    "a positive number", NAMES),
	VAL("--symfs", NULL, CLI_STRING, "DIR", NAMING, SO, CLI_SO_SYMFS, CLI_SIDED, NAMES),
	VAL("--kallsyms", NULL, CLI_STRING, "FILE", NAMING, SO, CLI_SO_KALLSYMS, CLI_SIDED,
	    NAMES),
	VAL("--vmlinux", NULL, CLI_STRING, "FILE", NAMING, SO, CLI_SO_VMLINUX, CLI_SIDED,
	    NAMES),
	VAL("--buildid-dir", NULL, CLI_STRING, "DIR", NAMING, SO, CLI_SO_BUILDID_DIR,
	    CLI_SIDED, NAMES),
	VAL("--jit-dir", NULL, CLI_STRING, "DIR", NAMING, SO, CLI_SO_JIT_DIR, CLI_SIDED,
	    NAMES),
	/* FILE: the completion offers paths (a directory, a tarball); a URL is typed */
	VAL("--symbols-from", NULL, CLI_STRING, "FILE", NAMING, SO, CLI_SO_SYMBOLS_FROM,
	    CLI_SIDED, NAMES),
	FLAG("--offline", NULL, NAMING, SO, CLI_SO_OFFLINE, NAMES),
	WORD("--unwinder", "libdw|libunwind|none|libdw-uncached", NAMING, SO, CLI_SO_UNWINDER,
	     0, NAMES),

	/* which samples count (cli_profile_opts) */
	VAL("--comm", NULL, CLI_LIST, "NAME", SAMPLES, PO, CLI_PO_COMM, CLI_SIDED, FILTERS),
	VAL("--pid", NULL, CLI_LIST, "N", SAMPLES, PO, CLI_PO_PID, CLI_SIDED, FILTERS),
	VAL("--tid", NULL, CLI_LIST, "N", SAMPLES, PO, CLI_PO_TID, CLI_SIDED, FILTERS),
	VAL("--cpu", NULL, CLI_LIST, "N", SAMPLES, PO, CLI_PO_CPU, CLI_SIDED, FILTERS),
	VAL("--dso", NULL, CLI_LIST, "NAME", SAMPLES, PO, CLI_PO_DSO, CLI_SIDED, PROFILE),
	VAL("--time", NULL, CLI_STRING, "START,END", SAMPLES, PO, CLI_PO_TIME, CLI_SIDED,
	    PROFILE),
	VAL("--event", NULL, CLI_STRING, "NAME", SAMPLES, PO, CLI_PO_EVENT, 0,
	    "perfdiff-report.1.scd"),
	FLAG("--perf-compat", NULL, SAMPLES, PO, CLI_PO_PERF_COMPAT, PROFILE),
	FLAG("--keep-suffixes", NULL, SAMPLES, PO, CLI_PO_KEEP_SUFFIXES, PROFILE),
	FLAG("--hide-unresolved", "-U", SAMPLES, PO, CLI_PO_HIDE_UNRESOLVED, PROFILE),
	VAL("--focus", NULL, CLI_STRING, "REGEX", SAMPLES, PO, CLI_PO_FOCUS, CLI_SIDED,
	    PROFILE),
	VAL("--ignore", NULL, CLI_STRING, "REGEX", SAMPLES, PO, CLI_PO_IGNORE, CLI_SIDED,
	    PROFILE),
	VAL("--hide", NULL, CLI_STRING, "REGEX", SAMPLES, PO, CLI_PO_HIDE, CLI_SIDED, PROFILE),
	VAL("--prune-from", NULL, CLI_STRING, "REGEX", SAMPLES, PO, CLI_PO_PRUNE_FROM,
	    CLI_SIDED, PROFILE),

	/* perf's habits: --stdio is all there is; the rest name the option
	 * that does the job (perf report -s, -c, -T; a diff's chains) */
	FLAG("--stdio", NULL, PROFILES, CLI_PART_NONE, 0, "include/perf-habits.scd"),
	HINT("-s", PROFILES, "--sort"),
	HINT("-c", NAMING, "--comm"),
	HINT("-T", NAMING, "--tid"),
	HINT("-g", DIFF, "--tree"),

	/* dump */
	FLAG("--stats", NULL, DUMP, OWN, CLI_DUMP_STATS, "perfdiff-dump.1.scd"),
	FLAG("--no-symbols", NULL, DUMP, OWN, CLI_DUMP_NO_SYMBOLS, "perfdiff-dump.1.scd"),
	FLAG("--ordered", NULL, DUMP, OWN, CLI_DUMP_ORDERED, "perfdiff-dump.1.scd"),
	WORD("--format", "text|json", DUMP, OWN, CLI_DUMP_FORMAT, CLI_FORMAT,
	     "perfdiff-dump.1.scd"),

	/* script */
	WORD("--format", "text|json", SCRIPT, OWN, CLI_SCRIPT_FORMAT, CLI_FORMAT,
	     "perfdiff-script.1.scd"),
	FLAG("--srcline", NULL, SCRIPT, OWN, CLI_SCRIPT_SRCLINE, "perfdiff-script.1.scd"),
	FLAG("--full-source-path", NULL, SCRIPT, OWN, CLI_SCRIPT_FULL_PATH,
	     "perfdiff-script.1.scd"),
	FLAG("--ns", NULL, SCRIPT, OWN, CLI_SCRIPT_NS, "perfdiff-script.1.scd"),
	VAL("--comm", NULL, CLI_LIST, "NAME", SCRIPT, OWN, CLI_SCRIPT_COMM, 0, FILTERS),
	VAL("--pid", NULL, CLI_LIST, "N", SCRIPT, OWN, CLI_SCRIPT_PID, 0, FILTERS),
	VAL("--tid", NULL, CLI_LIST, "N", SCRIPT, OWN, CLI_SCRIPT_TID, 0, FILTERS),
	VAL("--cpu", NULL, CLI_LIST, "N", SCRIPT, OWN, CLI_SCRIPT_CPU, 0, FILTERS),

	/* report */
	WORD("--format", "text|json|csv|folded|lkp|pprof|html", REPORT, OWN,
	     CLI_REPORT_FORMAT, CLI_FORMAT, "perfdiff-report.1.scd"),
	FLAG("--mean", NULL, REPORT, OWN, CLI_REPORT_MEAN, "perfdiff-report.1.scd"),
	FLAG("--merge", NULL, REPORT, OWN, CLI_REPORT_MERGE, "perfdiff-report.1.scd"),
	WORD("--label", "cpu|none", REPORT, OWN, CLI_REPORT_LABEL, 0, "perfdiff-report.1.scd"),
	WORD("--order", "caller|callee", REPORT, OWN, CLI_REPORT_ORDER, 0,
	     "perfdiff-report.1.scd"),
	NUM("--threshold", CLI_DOUBLE, "PCT", REPORT, OWN, CLI_REPORT_THRESHOLD, 0, 0, 100,
	    PCT, "perfdiff-report.1.scd"),
	VAL("--call-graph", "-g", CLI_STRING, "caller|callee", REPORT, OWN,
	    CLI_REPORT_CALL_GRAPH, 0, "perfdiff-report.1.scd"),
	FLAG("--no-chains", NULL, REPORT, OWN, CLI_REPORT_NO_CHAINS, "perfdiff-report.1.scd"),
	NUM("--percent-limit", CLI_DOUBLE, "PCT", REPORT, OWN, CLI_REPORT_PERCENT_LIMIT, 0, 0,
	    100, PCT, "perfdiff-report.1.scd"),
	VAL("--sort", NULL, CLI_STRING, "children|self|KEYS", REPORT, OWN, CLI_REPORT_SORT, 0,
	    "perfdiff-report.1.scd"),
	FLAG("--show-nr-samples", "-n", REPORT, OWN, CLI_REPORT_NR_SAMPLES,
	     "perfdiff-report.1.scd"),
	WORD("--weight", "period|samples", REPORT, OWN, CLI_REPORT_WEIGHT, 0,
	     "perfdiff-report.1.scd"),
	VAL("--peek", NULL, CLI_STRING, "REGEX", REPORT, OWN, CLI_REPORT_PEEK, 0,
	    "perfdiff-report.1.scd"),

	/* diff */
	WORD("--format", "text|lkp|json|csv|folded|html|svg", DIFF, OWN, CLI_DIFF_FORMAT,
	     CLI_FORMAT, "perfdiff-diff.1.scd"),
	WORD("--weight", "period|samples", DIFF, OWN, CLI_DIFF_WEIGHT, 0, "perfdiff-diff.1.scd"),
	FLAG("--no-comm", NULL, DIFF, OWN, CLI_DIFF_NO_COMM, "perfdiff-diff.1.scd"),
	FLAG("--all", NULL, DIFF, OWN, CLI_DIFF_ALL, "perfdiff-diff.1.scd"),
	FLAG("--lkp-keys", NULL, DIFF, OWN, CLI_DIFF_LKP_KEYS, "perfdiff-diff.1.scd"),
	NUM("--fail-on", CLI_DOUBLE, "POINTS", DIFF, OWN, CLI_DIFF_FAIL_ON, 0, 0, DBL_MAX,
	    "a number of points >= 0", "perfdiff-diff.1.scd"),
	FLAG("--absolute", NULL, DIFF, OWN, CLI_DIFF_ABSOLUTE, "perfdiff-diff.1.scd"),
	NUM("--depth", CLI_UINT, "N", DIFF, OWN, CLI_DIFF_DEPTH, 0, 0, UINT_MAX,
	    "a number of frames (0: all)", "perfdiff-diff.1.scd"),
	NUM("--min-change", CLI_DOUBLE, "X", DIFF | TUI, OWN, CLI_DIFF_MIN_CHANGE, 0, 0, DBL_MAX,
	    "a number >= 0", "perfdiff-diff.1.scd"),
	NUM("--fdr", CLI_DOUBLE, "Q", DIFF | TUI, OWN, CLI_DIFF_FDR, CLI_LO_OPEN, 0, 1,
	    "a rate above 0 and at most 1", "perfdiff-diff.1.scd"),
	NUM("--rename-score", CLI_DOUBLE, "S", DIFF | TUI, OWN, CLI_DIFF_RENAME_SCORE, 0, 0, 1,
	    "a score from 0 to 1", "perfdiff-diff.1.scd"),
	FLAG("--no-align", NULL, DIFF | TUI, OWN, CLI_DIFF_NO_ALIGN, "perfdiff-diff.1.scd"),
	FLAG("--tree", NULL, DIFF, OWN, CLI_DIFF_TREE, "perfdiff-diff.1.scd"),
	VAL("--sort", NULL, CLI_STRING, "change|abs-change|name|KEYS", DIFF, OWN, CLI_DIFF_SORT,
	    0, "perfdiff-diff.1.scd"),
	NUM("--percent-limit", CLI_DOUBLE, "PCT", DIFF, OWN, CLI_DIFF_PERCENT_LIMIT, 0, 0, 100,
	    PCT, "perfdiff-diff.1.scd"),
	VAL("--peek", NULL, CLI_STRING, "REGEX", DIFF, OWN, CLI_DIFF_PEEK, 0,
	    "perfdiff-diff.1.scd"),

	/* explain */
	WORD("--format", "text|json|html|lkp|csv", EXPLAIN, OWN, CLI_EXPLAIN_FORMAT,
	     CLI_FORMAT, "perfdiff-explain.1.scd"),
	FLAG("--all", NULL, EXPLAIN, OWN, CLI_EXPLAIN_ALL, "perfdiff-explain.1.scd"),
	NUM("--table", CLI_UINT, "N", EXPLAIN, OWN, CLI_EXPLAIN_TABLE, 0, 1, 1000000,
	    "a number from 1", "perfdiff-explain.1.scd"),
	NUM("--column", CLI_UINT, "N", EXPLAIN, OWN, CLI_EXPLAIN_COLUMN, 0, 1, 1000000,
	    "a number from 1", "perfdiff-explain.1.scd"),
	NUM("--base-column", CLI_UINT, "N", EXPLAIN, OWN, CLI_EXPLAIN_BASE_COLUMN, 0, 0,
	    1000000, "a number from 0", "perfdiff-explain.1.scd"),
	VAL("--event", NULL, CLI_STRING, "NAME", EXPLAIN, OWN, CLI_EXPLAIN_EVENT, 0,
	    "perfdiff-explain.1.scd"),
	NUM("--min-change", CLI_DOUBLE, "POINTS", EXPLAIN, OWN, CLI_EXPLAIN_MIN_CHANGE, 0, 0,
	    DBL_MAX, "points >= 0", "perfdiff-explain.1.scd"),
	NUM("--fdr", CLI_DOUBLE, "Q", EXPLAIN, OWN, CLI_EXPLAIN_FDR, CLI_LO_OPEN, 0, 1,
	    "a rate in (0, 1]", "perfdiff-explain.1.scd"),
	NUM("--rename-score", CLI_DOUBLE, "S", EXPLAIN, OWN, CLI_EXPLAIN_RENAME_SCORE, 0, 0, 1,
	    "a score in [0, 1]", "perfdiff-explain.1.scd"),
	FLAG("--no-align", NULL, EXPLAIN, OWN, CLI_EXPLAIN_NO_ALIGN, "perfdiff-explain.1.scd"),

	/* record */
	FLAG("--all-cpus", "-a", RECORD, OWN, CLI_RECORD_ALL_CPUS, "perfdiff-record.1.scd"),
	VAL("--pid", "-p", CLI_STRING, "PID[,PID...]", RECORD, OWN, CLI_RECORD_PID, 0,
	    "perfdiff-record.1.scd"),
	{ "--freq", "-F", CLI_UINT, "HZ", RECORD, OWN, CLI_RECORD_FREQ, 0, 1, 100000,
	  "a frequency from 1 to 100000 Hz", NULL, "perfdiff-record.1.scd" },
	{ "--duration", "-d", CLI_DOUBLE, "SECONDS", RECORD, OWN, CLI_RECORD_DURATION,
	  CLI_LO_OPEN, 0, 1e9, "a number of seconds above 0", NULL, "perfdiff-record.1.scd" },
	NUM("--interval", CLI_DOUBLE, "SECONDS", RECORD, OWN, CLI_RECORD_INTERVAL, CLI_LO_OPEN,
	    0, 1e9, "a number of seconds above 0", "perfdiff-record.1.scd"),
	FLAG("--kernel-only", NULL, RECORD, OWN, CLI_RECORD_KERNEL_ONLY, "perfdiff-record.1.scd"),
	FLAG("--user-only", NULL, RECORD, OWN, CLI_RECORD_USER_ONLY, "perfdiff-record.1.scd"),
	WORD("--format", "pprof|perf", RECORD, OWN, CLI_RECORD_FORMAT, CLI_FORMAT,
	     "perfdiff-record.1.scd"),
};

#define NROWS (sizeof table / sizeof table[0])

const cli_optdef *cli_opttab(size_t *n)
{
	*n = NROWS;
	return table;
}

unsigned cli_command_bit(const char *cmd)
{
	static const struct {
		const char *name;
		unsigned bit;
	} cmds[] = {
		{ "dump", CLI_CMD_DUMP }, { "script", CLI_CMD_SCRIPT },
		{ "report", CLI_CMD_REPORT }, { "diff", CLI_CMD_DIFF },
		{ "explain", CLI_CMD_EXPLAIN }, { "record", CLI_CMD_RECORD },
		{ "tui", CLI_CMD_TUI },
	};
	if (!cmd)
		return CLI_CMD_TOP;
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (strcmp(cmds[i].name, cmd) == 0)
			return cmds[i].bit;
	return 0;
}

static bool is(const char *s, const char *name, size_t len)
{
	return s && strlen(s) == len && strncmp(s, name, len) == 0;
}

const cli_optdef *cli_opt_find(unsigned cmd, const char *name, size_t len)
{
	for (size_t i = 0; i < NROWS; i++)
		if ((table[i].cmds & cmd) &&
		    (is(table[i].name, name, len) || is(table[i].alias, name, len)))
			return &table[i];
	return NULL;
}
