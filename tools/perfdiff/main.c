/*
 * perfdiff: command dispatch, top-level help and version.  Each subcommand
 * lives in its own file and parses its own options.
 */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "diff_cli.h"
#include "dump.h"
#include "report.h"
#include "script.h"

typedef struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
} command;

static const command commands[] = {
	{ "dump", "list the records of a perf.data file, or --stats",
	  cmd_dump, dump_usage },
	{ "script", "print every sample with its call chain named, like perf script",
	  cmd_script, script_usage },
	{ "report", "children/self profile with call chains, like perf report --children",
	  cmd_report, report_usage },
	{ "diff", "compare two profiles: aligned trees, explained shifts, significance",
	  cmd_diff, diff_usage },
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
	fputs("Usage: perfdiff COMMAND [OPTIONS] [ARGS]\n"
	      "       perfdiff BASE.data NEW.data [OPTIONS]  (perfdiff diff ...)\n"
	      "       perfdiff BASE1 BASE2... -- NEW1 NEW2... [OPTIONS]\n"
	      "       perfdiff help COMMAND\n"
	      "       perfdiff --help | --version\n"
	      "\n"
	      "Read perf.data files (file mode, pipe mode, 'perf record --threads'\n"
	      "directories, zstd-compressed data) without perf.\n"
	      "\n"
	      "Commands:\n",
	      f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "Options:\n"
	      "  -h, --help     show this help and exit\n"
	      "  -V, --version  show the version of perfdiff and libperfdiff\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  the input was read (possibly only up to a cut), with warnings;\n"
	      "     diff: a significant change above --fail-on (diff's warnings\n"
	      "     do not change its status)\n"
	      "  2  usage error, the input could not be opened, or it is corrupt\n"
	      "\n"
	      "Messages go to standard error, prefixed 'perfdiff: '.\n"
	      "Run 'perfdiff help COMMAND' for the options of a command.\n",
	      f);
}

static int help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error(NULL, "help takes one COMMAND");
	const command *c = find_command(argv[1]);
	if (!c)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	c->usage(stdout);
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

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_ERROR;
	}
	const char *a = argv[1];
	if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
		usage(stdout);
		return finish(CLI_EXIT_OK);
	}
	if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
		printf("perfdiff %s (libperfdiff %s)\n", PD_VERSION_STRING,
		       pd_version());
		return finish(CLI_EXIT_OK);
	}
	if (strcmp(a, "help") == 0)
		return finish(help(argc - 1, argv + 1));
	if (a[0] == '-')
		return cli_usage_error(NULL, "unknown option '%s'", a);
	const command *c = find_command(a);
	if (c)
		return finish(c->run(argc - 1, argv + 1));
	/* "perfdiff BASE NEW ...": a diff; a lone word is a mistyped command */
	if (argc == 2)
		return cli_usage_error(NULL, "unknown command '%s'", a);
	return finish(cmd_diff(argc, argv));
}
