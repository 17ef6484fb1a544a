/*
 * The screen of `perfdiff tui` (tui_cli.h), on ncurses: starting and
 * leaving it, and the keys — moving, opening and closing nodes in the
 * model (tui_model.c), search, peek, and the filters that end a show
 * for a re-read.  Drawing is tui_draw.c's.
 */
#include "tui_cli.h"

#include <curses.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui_screen.h"

bool cli_tui_built(void)
{
	return true;
}

bool cli_tui_usable(void)
{
	const char *term = getenv("TERM");
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && term && term[0] &&
	       strcmp(term, "dumb") != 0;
}

cli_tui *cli_tui_open(bool color)
{
	cli_tui *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	setlocale(LC_CTYPE, "");
	if (!initscr()) {
		free(t);
		return NULL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	t->color = color && has_colors();
	if (t->color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_UP, COLOR_RED, -1);
		init_pair(PAIR_DOWN, COLOR_GREEN, -1);
		init_pair(PAIR_HEAD, COLOR_CYAN, -1);
	}
	return t;
}

void cli_tui_suspend(cli_tui *t)
{
	(void)t;
	def_prog_mode();
	endwin();
}

void cli_tui_resume(cli_tui *t)
{
	(void)t;
	reset_prog_mode();
	refresh();
}

const char *cli_tui_filter(const cli_tui *t, int side, int which)
{
	return side >= 0 && side < 2 && which >= 0 && which < 2 ? t->filt[side][which] : NULL;
}

void cli_tui_undo(cli_tui *t, const char *why)
{
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 2; k++) {
			free(t->filt[s][k]);
			t->filt[s][k] = t->prev[s][k];
			t->prev[s][k] = NULL;
		}
	snprintf(t->msg, sizeof t->msg, "%s", why);
}

void cli_tui_close(cli_tui *t)
{
	if (!t)
		return;
	endwin();
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 2; k++) {
			free(t->filt[s][k]);
			free(t->prev[s][k]);
		}
	free(t->peek);
	for (size_t i = 0; i < t->npath; i++)
		free(t->path[i]);
	free(t->path);
	free(t);
}

/* ---------------------------------------------------------------- keys */

/* The node of the selected row: its tree node, or for a shift the node
 * of its relation's base symbol; SIZE_MAX for a heading. */
static size_t selected_node(const cli_tui *t)
{
	size_t tr = tui_row_in_tree(t, t->cur);
	return tr != SIZE_MAX && tr < t->tree.nrows ? t->tree.rows[tr] : SIZE_MAX;
}

/* The names of the selected function on each side (NULL: none). */
static bool selected_names(const cli_tui *t, const char *name[2])
{
	if (t->cur >= 1 && t->cur <= t->nshift) {
		const pd_diff_relation *r = pd_diff_relation_at(t->d, t->cur - 1);
		name[0] = r->base_symbol ? r->base_symbol : r->new_symbol;
		name[1] = r->new_symbol ? r->new_symbol : r->base_symbol;
		return name[0] != NULL;
	}
	size_t node = selected_node(t);
	if (node == SIZE_MAX)
		return false;
	const pd_diff_node *n = pd_diff_node_at(t->d, node);
	name[0] = n->base_symbol ? n->base_symbol : n->new_symbol;
	name[1] = n->new_symbol ? n->new_symbol : n->base_symbol;
	return name[0] != NULL;
}

/* "^name$" with the expression's special characters escaped. */
static char *exact_regex(const char *name)
{
	size_t n = strlen(name);
	char *r = malloc(2 * n + 3), *w = r;
	if (!r)
		return NULL;
	*w++ = '^';
	for (const char *p = name; *p; p++) {
		if (strchr("\\.[]()*+?{}|^$", *p))
			*w++ = '\\';
		*w++ = *p;
	}
	*w++ = '$';
	*w = '\0';
	return r;
}

static void open_peek(cli_tui *t)
{
	const char *name[2];
	if (!selected_names(t, name)) {
		snprintf(t->msg, sizeof t->msg, "no function on this row");
		return;
	}
	char *re = exact_regex(name[0]);
	if (!re)
		return;
	snprintf(t->peek_regex, sizeof t->peek_regex, "%s", re);
	free(t->peek);
	t->peek = t->v->peek(t->v->ctx, re);
	t->peek_top = 0;
	free(re);
}

/* Focus (which 0) on or ignore (1) the selected function: the new
 * filters, the old kept for cli_tui_undo().  false when there is none. */
static bool set_filter(cli_tui *t, int which)
{
	const char *name[2];
	if (!selected_names(t, name)) {
		snprintf(t->msg, sizeof t->msg, "no function on this row");
		return false;
	}
	for (int s = 0; s < 2; s++) {
		for (int k = 0; k < 2; k++) {
			free(t->prev[s][k]);
			t->prev[s][k] = t->filt[s][k] ? strdup(t->filt[s][k]) : NULL;
		}
		char *re = exact_regex(name[s]), *old = t->filt[s][which];
		if (!re)
			return false;
		if (which == 1 && old) { /* ignores add up: either expression */
			char *both = malloc(strlen(old) + strlen(re) + 6);
			if (both)
				sprintf(both, "(%s)|(%s)", old, re);
			free(re);
			re = both;
		}
		free(old);
		t->filt[s][which] = re;
	}
	snprintf(t->msg, sizeof t->msg, "%s %s", which ? "ignored" : "focus on", name[0]);
	return true;
}

static bool clear_filters(cli_tui *t)
{
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 2; k++) {
			free(t->prev[s][k]);
			t->prev[s][k] = t->filt[s][k];
			t->filt[s][k] = NULL;
		}
	snprintf(t->msg, sizeof t->msg, "filters cleared");
	return true;
}

typedef struct search_ctx {
	const pd_diff *d;
	const char *s;
} search_ctx;

static bool matches(void *ctx, size_t node)
{
	const search_ctx *c = ctx;
	const pd_diff_node *n = pd_diff_node_at(c->d, node);
	return (n->base_symbol && strstr(n->base_symbol, c->s)) ||
	       (n->new_symbol && strstr(n->new_symbol, c->s));
}

static void find_next(cli_tui *t)
{
	if (!t->search[0])
		return;
	search_ctx c = { t->d, t->search };
	size_t from = selected_node(t);
	size_t node = tui_tree_find(&t->tree, from == SIZE_MAX ? 0 : from, matches, &c);
	if (node == SIZE_MAX) {
		snprintf(t->msg, sizeof t->msg, "not found: %s", t->search);
		return;
	}
	size_t row = tui_tree_reveal(&t->tree, node);
	if (row != SIZE_MAX)
		t->cur = row + t->nshift + 2;
	snprintf(t->msg, sizeof t->msg, "/%s", t->search);
}

/* The search text, typed on the status line; false when abandoned. */
static bool prompt(cli_tui *t)
{
	char buf[sizeof t->search];
	size_t n = 0;
	buf[0] = '\0';
	for (;;) {
		char line[sizeof buf + 8];
		snprintf(line, sizeof line, "/%s", buf);
		tui_put_line(t, LINES - 1, line, 0, 0);
		refresh();
		int ch = getch();
		if (ch == '\n' || ch == KEY_ENTER || ch == '\r')
			break;
		if (ch == 27)
			return false;
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0)
			buf[--n] = '\0';
		else if (ch >= 32 && ch < 127 && n + 1 < sizeof buf) {
			buf[n++] = (char)ch;
			buf[n] = '\0';
		}
	}
	if (!n)
		return false;
	memcpy(t->search, buf, n + 1);
	return true;
}

/* Enter on a shift: its node in the tree. */
static void goto_shift(cli_tui *t)
{
	const pd_diff_relation *r = pd_diff_relation_at(t->d, t->cur - 1);
	for (size_t k = 0; k < t->tree.n; k++) {
		size_t node = t->tree.pre[k];
		if (node && pd_diff_node_at(t->d, node)->relation == r) {
			size_t row = tui_tree_reveal(&t->tree, node);
			if (row != SIZE_MAX)
				t->cur = row + t->nshift + 2;
			return;
		}
	}
	snprintf(t->msg, sizeof t->msg, "this shift has no node of its own in the tree");
}

static void key_right(cli_tui *t)
{
	size_t tr = tui_row_in_tree(t, t->cur);
	if (tr == SIZE_MAX) {
		if (t->cur >= 1 && t->cur <= t->nshift)
			goto_shift(t);
		return;
	}
	size_t node = t->tree.rows[tr];
	if (!tui_tree_expand(&t->tree, tr) && t->tree.open[node] &&
	    tui_tree_nkids(&t->tree, node))
		t->cur++;
}

static void key_left(cli_tui *t)
{
	size_t tr = tui_row_in_tree(t, t->cur);
	if (tr != SIZE_MAX && !tui_tree_collapse(&t->tree, tr))
		t->cur = tui_tree_parent_row(&t->tree, tr) + t->nshift + 2;
}

static void key_enter(cli_tui *t)
{
	size_t tr = tui_row_in_tree(t, t->cur);
	if (tr == SIZE_MAX)
		key_right(t);
	else if (!tui_tree_collapse(&t->tree, tr))
		tui_tree_expand(&t->tree, tr);
}

/* Moves of the selection; false when `ch` is none. */
static bool move_key(cli_tui *t, int ch)
{
	size_t last = tui_nrows(t) - 1, page = (size_t)(tui_list_height(t) > 1 ? tui_list_height(t) - 1 : 1);
	if (ch == KEY_UP || ch == 'k')
		t->cur = t->cur ? t->cur - 1 : 0;
	else if (ch == KEY_DOWN || ch == 'j')
		t->cur = t->cur < last ? t->cur + 1 : last;
	else if (ch == KEY_PPAGE)
		t->cur = t->cur > page ? t->cur - page : 0;
	else if (ch == KEY_NPAGE)
		t->cur = t->cur + page < last ? t->cur + page : last;
	else if (ch == KEY_HOME || ch == 'g')
		t->cur = 0;
	else if (ch == KEY_END || ch == 'G')
		t->cur = last;
	else
		return false;
	return true;
}

/* The peek pane's keys; false when `ch` is none. */
static bool pane_key(cli_tui *t, int ch)
{
	if (ch == 'p') {
		open_peek(t);
	} else if (ch == 'x' || ch == 27) {
		free(t->peek);
		t->peek = NULL;
	} else if (ch == 'J' && t->peek) {
		t->peek_top++;
	} else if (ch == 'K' && t->peek_top) {
		t->peek_top--;
	} else {
		return ch == 'J' || ch == 'K';
	}
	return true;
}

/* The tree's keys; false when `ch` is none. */
static bool tree_key(cli_tui *t, int ch)
{
	if (ch == KEY_RIGHT || ch == '+' || ch == 'l')
		key_right(t);
	else if (ch == KEY_LEFT || ch == '-' || ch == 'h')
		key_left(t);
	else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		key_enter(t);
	else if (ch == '/' && prompt(t))
		find_next(t);
	else if (ch == 'n')
		find_next(t);
	else
		return ch == '/';
	return true;
}

/* One key; 1 quit, 2 the filters changed, else 0. */
static int key(cli_tui *t, int ch)
{
	if (move_key(t, ch) || tree_key(t, ch) || pane_key(t, ch))
		return 0;
	if (ch == 'f' || ch == 'i')
		return set_filter(t, ch == 'i') ? 2 : 0;
	if (ch == 'c')
		return clear_filters(t) ? 2 : 0;
	if (ch == '?')
		tui_draw_help(t);
	return ch == 'q';
}

/* The selected node's path, kept for the next tree (keep_path). */
static void keep_path(cli_tui *t)
{
	for (size_t i = 0; i < t->npath; i++)
		free(t->path[i]);
	t->npath = 0;
	size_t node = selected_node(t);
	if (node == SIZE_MAX || !(t->path = realloc(t->path, (t->tree.depth[node] + 1) *
						       sizeof *t->path)))
		return;
	size_t n = t->tree.depth[node] + 1;
	for (size_t v = node; v != 0 && n > 0; v = t->tree.parent[v]) {
		const pd_diff_node *x = pd_diff_node_at(t->d, v);
		const char *name = x->base_symbol ? x->base_symbol : x->new_symbol;
		t->path[--n] = strdup(name ? name : "");
	}
	t->npath = t->tree.depth[node] + 1;
}

/* The child of `node` named `name` on either side, or SIZE_MAX. */
static size_t child_named(const cli_tui *t, size_t node, const char *name)
{
	for (size_t k = t->tree.first[node]; k < t->tree.first[node + 1]; k++) {
		const pd_diff_node *x = pd_diff_node_at(t->d, t->tree.kids[k]);
		if ((x->base_symbol && strcmp(x->base_symbol, name) == 0) ||
		    (x->new_symbol && strcmp(x->new_symbol, name) == 0))
			return t->tree.kids[k];
	}
	return SIZE_MAX;
}

/* Select the node of the kept path, or as much of it as the new tree has. */
static void restore_path(cli_tui *t)
{
	size_t node = 0;
	for (size_t i = 0; i < t->npath && t->path[i]; i++) {
		size_t c = child_named(t, node, t->path[i]);
		if (c == SIZE_MAX)
			break;
		node = c;
	}
	size_t row = node ? tui_tree_reveal(&t->tree, node) : SIZE_MAX;
	if (row != SIZE_MAX)
		t->cur = row + t->nshift + 2;
}

/* The tree model of `d`: children hottest first, on either side. */
static int load(cli_tui *t, const pd_diff *d)
{
	size_t n = pd_diff_node_count(d);
	size_t *parent = malloc(n * sizeof *parent);
	double *w = malloc(n * sizeof *w);
	int rc = -1;
	if (parent && w) {
		for (size_t i = 0; i < n; i++) {
			const pd_diff_node *x = pd_diff_node_at(d, i);
			parent[i] = x->parent;
			w[i] = x->base.mean > x->new.mean ? x->base.mean : x->new.mean;
		}
		rc = tui_tree_init(&t->tree, n, parent, w);
	}
	free(parent);
	free(w);
	return rc;
}

cli_tui_action cli_tui_show(cli_tui *t, const pd_diff *d, const cli_tui_view *v)
{
	t->d = d;
	t->v = v;
	pd_diff_options o;
	pd_diff_options_get(d, &o, PD_DIFF_OPTIONS_VERSION);
	t->min_change = o.min_change;
	t->nshift = v->report ? 0 : pd_diff_relation_count(d);
	t->cur = t->nshift ? 1 : t->nshift + 2;
	t->top = 0;
	free(t->peek);
	t->peek = NULL;
	if (load(t, d) < 0) {
		snprintf(t->msg, sizeof t->msg, "out of memory");
		return CLI_TUI_QUIT;
	}
	restore_path(t);
	int r = 0;
	while (r == 0) {
		tui_draw(t);
		int ch = getch();
		t->msg[0] = '\0';
		r = key(t, ch);
	}
	if (r == 2)
		keep_path(t);
	tui_tree_free(&t->tree);
	free(t->peek);
	t->peek = NULL;
	return r == 1 ? CLI_TUI_QUIT : CLI_TUI_RERUN;
}
