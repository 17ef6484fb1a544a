/*
 * Every option of every command by name, with what its value is: the
 * list behind "did you mean" (cli_suggest.c) and behind the shell
 * completion (`perfdiff --list-options CMD`, which
 * tools/perfdiff/perfdiff.bash asks at completion time, so that the
 * completion never lists an option the binary lacks).  The parsers stay
 * where they are; test_cli checks that every name here is accepted by its
 * command and that every option its --help names is here.
 */
#include <string.h>

#include "cli_common.h"

#define NELEMS(a) (sizeof (a) / sizeof (a)[0])
#define GROUP(a) { a, NELEMS(a) }

/* -q, -v, -o, --strict, --[no-]progress and --help: every command's */
static const cli_optname io_opts[] = {
	{ "-q", NULL }, { "--quiet", NULL }, { "-v", NULL }, { "--verbose", NULL },
	{ "-o", "FILE" }, { "--output", "FILE" }, { "--strict", NULL },
	{ "--progress", NULL }, { "--no-progress", NULL },
	{ "-h", NULL }, { "--help", NULL },
};

/* the commands that read one or more FILEs as perf does */
static const cli_optname input_opts[] = {
	{ "-i", "FILE" }, { "--input", "FILE" },
};

static const cli_optname color_opts[] = {
	{ "--color", "auto|always|never" },
};

/* cli_profile_opts.c's session part, script's too */
static const cli_optname session_opts[] = {
	{ "--no-inline", NULL }, { "--no-demangle", NULL }, { "--max-stack", "N" },
	{ "--symfs", "DIR" }, { "--kallsyms", "FILE" }, { "--vmlinux", "FILE" },
	{ "--buildid-dir", "DIR" }, { "--jit-dir", "DIR" },
	{ "--unwinder", "libdw|libunwind|none|libdw-uncached" },
	{ "--perf-compat", NULL },
};

static const cli_optname filter_opts[] = {
	{ "--comm", "NAME" }, { "--pid", "N" }, { "--tid", "N" }, { "--cpu", "N" },
};

/* cli_profile_opts.c's profile part */
static const cli_optname profile_opts[] = {
	{ "--keep-suffixes", NULL }, { "-U", NULL }, { "--hide-unresolved", NULL },
	{ "--event", "NAME" }, { "--dso", "NAME" }, { "--time", "START,END" },
};

static const cli_optname dump_opts[] = {
	{ "--stats", NULL }, { "--no-symbols", NULL }, { "--ordered", NULL },
	{ "--format", "text|json" },
};

static const cli_optname script_opts[] = {
	{ "--format", "text|json" }, { "--srcline", NULL }, { "--full-source-path", NULL },
	{ "--ns", NULL },
};

static const cli_optname report_opts[] = {
	{ "--format", "text|json|csv|folded|lkp|pprof|html" }, { "--mean", NULL },
	{ "--merge", NULL }, { "--label", "cpu|none" },
	{ "--order", "caller|callee" }, { "--threshold", "PCT" }, { "--no-chains", NULL },
	{ "--percent-limit", "PCT" }, { "--sort", "children|self" },
	{ "--weight", "period|samples" },
};

static const cli_optname diff_opts[] = {
	{ "--format", "text|lkp|json|csv|folded|html|svg" }, { "--weight", "period|samples" },
	{ "--no-comm", NULL },
	{ "--all", NULL }, { "--lkp-keys", NULL }, { "--fail-on", "POINTS" },
	{ "--absolute", NULL }, { "--depth", "N" }, { "--min-change", "X" },
	{ "--fdr", "Q" }, { "--rename-score", "S" }, { "--no-align", NULL },
	{ "--tree", NULL }, { "--sort", "change|abs-change|name" },
	{ "--percent-limit", "PCT" },
};

/* --base-OPT and --new-OPT (cli_side_opt()) */
static const cli_optname side_opts[] = {
	{ "--base-comm", "NAME" }, { "--base-pid", "N" }, { "--base-tid", "N" },
	{ "--base-cpu", "N" }, { "--base-dso", "NAME" }, { "--base-time", "START,END" },
	{ "--base-symfs", "DIR" }, { "--base-kallsyms", "FILE" },
	{ "--base-vmlinux", "FILE" }, { "--base-buildid-dir", "DIR" },
	{ "--base-jit-dir", "DIR" },
	{ "--new-comm", "NAME" }, { "--new-pid", "N" }, { "--new-tid", "N" },
	{ "--new-cpu", "N" }, { "--new-dso", "NAME" }, { "--new-time", "START,END" },
	{ "--new-symfs", "DIR" }, { "--new-kallsyms", "FILE" },
	{ "--new-vmlinux", "FILE" }, { "--new-buildid-dir", "DIR" },
	{ "--new-jit-dir", "DIR" },
};

/* the top level's own (perfdiff --help | --version | help CMD) */
static const cli_optname top_opts[] = {
	{ "-h", NULL }, { "--help", NULL }, { "-V", NULL }, { "--version", NULL },
};

static const cli_optgroup dump_groups[] = {
	GROUP(dump_opts), GROUP(input_opts), GROUP(io_opts),
};

static const cli_optgroup script_groups[] = {
	GROUP(script_opts), GROUP(session_opts), GROUP(filter_opts), GROUP(input_opts),
	GROUP(io_opts),
};

static const cli_optgroup report_groups[] = {
	GROUP(report_opts), GROUP(profile_opts), GROUP(session_opts), GROUP(filter_opts),
	GROUP(input_opts), GROUP(color_opts), GROUP(io_opts),
};

static const cli_optgroup diff_groups[] = {
	GROUP(diff_opts), GROUP(profile_opts), GROUP(session_opts), GROUP(filter_opts),
	GROUP(side_opts), GROUP(color_opts), GROUP(io_opts),
};

static const cli_optname explain_opts[] = {
	{ "--format", "text|json|html|lkp|csv" }, { "--all", NULL }, { "--table", "N" },
	{ "--column", "N" }, { "--base-column", "N" }, { "--event", "NAME" },
	{ "--min-change", "POINTS" }, { "--fdr", "Q" }, { "--rename-score", "S" },
	{ "--no-align", NULL },
};

static const cli_optgroup explain_groups[] = {
	GROUP(explain_opts), GROUP(color_opts), GROUP(io_opts),
};

static const cli_optgroup top_groups[] = {
	GROUP(top_opts),
};

static const struct {
	const char *cmd;
	const cli_optgroup *groups;
	size_t ngroups;
} commands[] = {
	{ "dump", dump_groups, NELEMS(dump_groups) },
	{ "script", script_groups, NELEMS(script_groups) },
	{ "report", report_groups, NELEMS(report_groups) },
	{ "diff", diff_groups, NELEMS(diff_groups) },
	{ "explain", explain_groups, NELEMS(explain_groups) },
};

size_t cli_command_options(const char *cmd, const cli_optgroup **out)
{
	for (size_t i = 0; cmd && i < NELEMS(commands); i++)
		if (strcmp(commands[i].cmd, cmd) == 0) {
			*out = commands[i].groups;
			return commands[i].ngroups;
		}
	*out = top_groups;
	return NELEMS(top_groups);
}

const cli_optname *cli_find_option(const char *cmd, const char *name, size_t len)
{
	const cli_optgroup *g;
	size_t ng = cli_command_options(cmd, &g);
	for (size_t k = 0; k < ng; k++)
		for (size_t i = 0; i < g[k].n; i++)
			if (strlen(g[k].v[i].name) == len && strncmp(g[k].v[i].name, name, len) == 0)
				return &g[k].v[i];
	return NULL;
}

int cli_list_options(const char *cmd, FILE *f)
{
	const cli_optgroup *g;
	size_t ng = cli_command_options(cmd, &g);
	if (cmd && g == top_groups)
		return cli_usage_error(NULL, "unknown command '%s'", cmd);
	for (size_t k = 0; k < ng; k++)
		for (size_t i = 0; i < g[k].n; i++)
			fprintf(f, "%s\t%s\n", g[k].v[i].name, g[k].v[i].arg ? g[k].v[i].arg : "");
	return CLI_EXIT_OK;
}
