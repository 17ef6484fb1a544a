/*
 * `perfdiff tui` in a build without ncurses (PERFDIFF_TUI=OFF, or AUTO
 * without libncurses-dev): no screen, and the command says so
 * (diff.c, cmd_tui()).  The rest of the CLI does not change.
 */
#include "tui_cli.h"

#include <stddef.h>

bool cli_tui_built(void)
{
	return false;
}

bool cli_tui_usable(void)
{
	return false;
}

cli_tui *cli_tui_open(bool color)
{
	(void)color;
	return NULL;
}

cli_tui_action cli_tui_show(cli_tui *t, const pd_diff *d, const cli_tui_view *v)
{
	(void)t;
	(void)d;
	(void)v;
	return CLI_TUI_QUIT;
}

void cli_tui_suspend(cli_tui *t)
{
	(void)t;
}

void cli_tui_resume(cli_tui *t)
{
	(void)t;
}

const char *cli_tui_filter(const cli_tui *t, int side, int which)
{
	(void)t;
	(void)side;
	(void)which;
	return NULL;
}

void cli_tui_undo(cli_tui *t, const char *why)
{
	(void)t;
	(void)why;
}

void cli_tui_close(cli_tui *t)
{
	(void)t;
}
