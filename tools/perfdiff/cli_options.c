/*
 * `perfdiff --list-options CMD`: every option of a command, read off the
 * option table (cli_opttab.c), one "NAME<tab>ARG" line each — ARG empty
 * for a flag, "a|b" for one of these words, else what the value is
 * (FILE, DIR, N...).  The shell completion (tools/perfdiff/perfdiff.bash)
 * asks the binary it completes for this list, so that it never offers an
 * option the binary lacks; test_cli checks the list against the manual.
 */
#include <string.h>

#include "cli_common.h"
#include "cli_opttab.h"

/* A row's lines: its short name, its name, and for a side option of
 * `diff` the --base- and --new- forms. */
static void list_row(const cli_optdef *o, unsigned bit, FILE *f)
{
	const char *arg = o->arg ? o->arg : "";
	if (o->alias)
		fprintf(f, "%s\t%s\n", o->alias, arg);
	fprintf(f, "%s\t%s\n", o->name, arg);
	if ((o->flags & CLI_SIDED) && (bit & (CLI_CMD_DIFF | CLI_CMD_TUI)))
		fprintf(f, "--base-%s\t%s\n--new-%s\t%s\n", o->name + 2, arg, o->name + 2, arg);
}

int cli_list_options(const char *cmd, FILE *f)
{
	unsigned bit = cli_command_bit(cmd);
	if (!bit)
		return cli_usage_error(NULL, "unknown command '%s'", cmd);
	size_t n;
	const cli_optdef *t = cli_opttab(&n);
	for (size_t i = 0; i < n; i++)
		if ((t[i].cmds & bit) && t[i].kind != CLI_HINT)
			list_row(&t[i], bit, f);
	return CLI_EXIT_OK;
}
