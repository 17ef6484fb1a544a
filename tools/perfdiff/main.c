/*
 * perfdiff: command dispatch, top-level help and version.  Each subcommand
 * lives in its own file and parses its own options.  Without a command
 * word the arguments are a comparison (`perfdiff [OPTIONS] BASE NEW`), so
 * a first argument that is neither a command nor an existing file is
 * checked against the commands before it is read as a file: `perfdiff
 * reprot x.data` is a typo, answered with the command it resembles.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"
#include "cli_help.h"
#include "cli_opttab.h"
#include "diff_cli.h"
#include "dump.h"
#include "explain_cli.h"
#include "record_cli.h"
#include "report.h"
#include "script.h"

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
} command;

static const command commands[] = {
	{ "dump", cmd_dump, dump_usage },
	{ "script", cmd_script, script_usage },
	{ "report", cmd_report, report_usage },
	{ "diff", cmd_diff, diff_usage },
	{ "explain", cmd_explain, explain_usage },
	{ "record", cmd_record, record_usage },
	{ "tui", cmd_tui, tui_usage },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fputs(cli_help_perfdiff, f);
}

/* What a bare `perfdiff` prints: the forms and the commands, not the
 * whole manual. */
static void short_usage(FILE *f)
{
	fputs("Usage: perfdiff [OPTIONS] BASE NEW\n"
	      "       perfdiff [OPTIONS] BASE... -- NEW...\n"
	      "       perfdiff COMMAND [OPTIONS] [FILE...]\n"
	      "Commands:", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, " %s,", commands[i].name);
	fputs(" help\nRun 'perfdiff --help' or 'perfdiff help COMMAND' for more.\n", f);
}

/* The command (or "help") that `word` is a typo of, or NULL. */
static const char *near_command(const char *word)
{
	const char *names[NCOMMANDS + 1];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	names[NCOMMANDS] = "help";
	return cli_closest(word, strlen(word), names, NCOMMANDS + 1);
}

/* "unknown command 'reprot', did you mean 'report'?"; CLI_EXIT_ERROR. */
static int unknown_command(const char *word)
{
	const char *near = near_command(word);
	if (near)
		return cli_usage_error(NULL, "unknown command '%s', did you mean '%s'?", word, near);
	return cli_usage_error(NULL, "unknown command '%s'", word);
}

/* `perfdiff help [COMMAND]`: the manual page when man can show it, else
 * the built-in text (the same text, cli_help.h). */
static int help(int argc, char **argv)
{
	if (argc > 2)
		return cli_usage_error(NULL, "help takes one COMMAND");
	const command *c = argc == 2 ? find_command(argv[1]) : NULL;
	if (argc == 2 && !c)
		return unknown_command(argv[1]);
	char page[64];
	snprintf(page, sizeof page, "perfdiff%s%s", c ? "-" : "", c ? c->name : "");
	fflush(stdout);
	if (cli_show_man(page) == 0)
		return CLI_EXIT_OK;
	if (c)
		c->usage(stdout);
	else
		usage(stdout);
	return CLI_EXIT_OK;
}

static int finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("error writing output");
		return CLI_EXIT_ERROR;
	}
	return status;
}

static bool exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* "perfdiff -q report x.data": a command word after options, which no
 * file is named like; NULL when there is none. */
static const char *late_command(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		return find_command(argv[i]) && !exists(argv[i]) ? argv[i] : NULL;
	}
	return NULL;
}

/* The top level's own words: help, version, the completion's list.  -1
 * when `a` is none of them (a command or a comparison follows), else an
 * exit status. */
static int top_level(int argc, char **argv)
{
	const char *a = argv[1];
	/* the option table's top-level rows: --help and --version */
	const cli_optdef *o = cli_opt_find(CLI_CMD_TOP, a, strlen(a));
	if (o && o->kind == CLI_HELP) {
		usage(stdout);
		return finish(CLI_EXIT_OK);
	}
	if (o) {
		printf("perfdiff %s (libperfdiff %s)\n", PD_VERSION_STRING, pd_version());
		return finish(CLI_EXIT_OK);
	}
	if (strcmp(a, "help") == 0)
		return finish(help(argc - 1, argv + 1));
	/* for tools/perfdiff/perfdiff.bash, not for people */
	if (strcmp(a, "--list-options") == 0)
		return finish(cli_list_options(argc > 2 ? argv[2] : NULL, stdout));
	return -1;
}

int main(int argc, char **argv)
{
	/* a bare perfdiff beside perf.data.old and perf.data compares them,
	 * as a bare perf diff does */
	if (argc < 2 && cli_default_pair())
		return finish(cmd_diff(argc, argv));
	if (argc < 2) {
		short_usage(stderr);
		return CLI_EXIT_ERROR;
	}
	int st = top_level(argc, argv);
	if (st >= 0)
		return st;
	const char *a = argv[1];
	const command *c = find_command(a);
	if (c)
		return finish(c->run(argc - 1, argv + 1));
	/* "perfdiff [OPTIONS] BASE NEW ...": a diff, options and '-' first
	 * included; a word that is no file may be a mistyped command */
	if (a[0] != '-' && !exists(a) && (argc == 2 || near_command(a)))
		return unknown_command(a);
	const char *word = late_command(argc, argv);
	if (word)
		return cli_usage_error(NULL, "'%s' is a command: put it first "
				       "(perfdiff %s [OPTIONS] ...)", word, word);
	return finish(cmd_diff(argc, argv));
}
