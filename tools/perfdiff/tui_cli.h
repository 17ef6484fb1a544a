/*
 * `perfdiff tui`: the comparison (or one profile) in a terminal UI —
 * explained shifts, then the aligned tree to open and close, search, a
 * peek pane, focus and ignore.  diff.c parses the options and builds the
 * diff as for `perfdiff diff`; the screen is tui.c's (ncurses), or
 * tui_none.c's in a build without ncurses (PERFDIFF_TUI=OFF), which has
 * none.  The tree's rows, expand state and search are tui_model.c's.
 *
 * A key that changes a filter (f, i, c) ends cli_tui_show() with
 * CLI_TUI_RERUN: the caller reads the filters (cli_tui_filter()), builds
 * the profiles again with them, as --focus/--ignore would, and shows the
 * new diff.  The screen stays open across runs.
 */
#ifndef PERFDIFF_TUI_CLI_H
#define PERFDIFF_TUI_CLI_H

#include <stdbool.h>

#include "perfdiff/perfdiff.h"

typedef struct cli_tui cli_tui;

typedef enum cli_tui_action { CLI_TUI_QUIT, CLI_TUI_RERUN } cli_tui_action;

/* What the caller gives the screen besides the diff. */
typedef struct cli_tui_view {
	bool report;              /* one profile (both sides the same): one column */
	const char *title;        /* the files, for the top line */
	/* The peek block of the functions `regex` matches, as text (the
	 * caller's pd_diff_write() or pd_report_write() with `peek`);
	 * malloc'd, NULL on failure */
	char *(*peek)(void *ctx, const char *regex);
	void *ctx;
} cli_tui_view;

/* Whether this build has the screen (ncurses). */
bool cli_tui_built(void);

/* Whether the screen can be used: a terminal that is not TERM=dumb on
 * both standard input and output.  Else the caller prints plain text. */
bool cli_tui_usable(void);

/* Start the screen; `color` as --color decides for a terminal.  NULL
 * when it could not start (out of memory, no terminal description). */
cli_tui *cli_tui_open(bool color);

/* Show `d` until a key quits or changes the filters. */
cli_tui_action cli_tui_show(cli_tui *t, const pd_diff *d, const cli_tui_view *v);

/* Leave the screen for the terminal while the profiles are read again
 * (progress and warnings go there), and come back. */
void cli_tui_suspend(cli_tui *t);
void cli_tui_resume(cli_tui *t);

/* The filter (focus 0, ignore 1) the keys set for side `side`, or NULL:
 * the command line's holds. */
const char *cli_tui_filter(const cli_tui *t, int side, int which);

/* The last change of the filters left nothing to compare: undo it, and
 * say `why` on the status line. */
void cli_tui_undo(cli_tui *t, const char *why);

void cli_tui_close(cli_tui *t);

#endif
