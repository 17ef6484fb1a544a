/*
 * The state of `perfdiff tui`'s screen, shared by its keys (tui.c) and
 * its drawing (tui_draw.c).  Rows: 0 the shifts' heading, 1..nshift the
 * shifts, then the tree's heading, then the tree's rows (tui_model.h).
 */
#ifndef PERFDIFF_TUI_SCREEN_H
#define PERFDIFF_TUI_SCREEN_H

#include <curses.h>
#include <stdint.h>
#include <string.h>

#include "tui_cli.h"
#include "tui_model.h"

enum { PAIR_UP = 1, PAIR_DOWN, PAIR_HEAD };

struct cli_tui {
	bool color;
	char *filt[2][2];     /* [side][focus 0, ignore 1]: the keys' filters */
	char *prev[2][2];     /* before the last change, for cli_tui_undo() */
	char msg[256];        /* the status line's message */
	char search[128];
	/* while a diff is shown */
	const pd_diff *d;
	const cli_tui_view *v;
	tui_tree tree;
	size_t nshift;
	size_t cur, top;      /* selected row and the first on screen (rows as above) */
	char *peek;           /* the pane's text, NULL: closed */
	size_t peek_top;
	char peek_regex[300];
	double min_change;
	/* the selected node's path (names from the root) across a re-read,
	 * to select it again in the new tree */
	char **path;
	size_t npath;
};

/* The rows there are. */
static inline size_t tui_nrows(const cli_tui *t)
{
	return t->nshift + 2 + t->tree.nrows;
}

/* The tree row of screen row `r`, or SIZE_MAX for a heading or shift. */
static inline size_t tui_row_in_tree(const cli_tui *t, size_t r)
{
	return r >= t->nshift + 2 ? r - t->nshift - 2 : SIZE_MAX;
}

static inline const char *tui_base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

/* Draw the screen: the header, the rows from t->top (scrolled to show
 * t->cur), the peek pane when open, the status line. */
void tui_draw(cli_tui *t);
void tui_draw_status(const cli_tui *t);

/* The keys' help, until a key. */
void tui_draw_help(const cli_tui *t);

/* Screen line `y`: `s` in colour pair `pair` (0 none) with `extra`. */
void tui_put_line(const cli_tui *t, int y, const char *s, int pair, attr_t extra);

/* Lines the list has on screen (the peek pane takes half). */
int tui_list_height(const cli_tui *t);

#endif
