/*
 * The drawing of `perfdiff tui` (tui_screen.h): each row's text as the
 * text output writes it (shares with two decimals, a pair "old -> new
 * [dso]"), the header, the status line with the filters, the peek pane
 * and the help.  Only the screen's lines are drawn.  Colours, when
 * --color gives them, are those of the text output: a cost that grew
 * red, one that fell green, as git diff colours lines.
 */
#include <stdio.h>

#include "tui_screen.h"

/* The name of a node as the text output names it: "a -> b" for a
 * pair of two names, the dso's basename after it. */
static void node_name(const pd_diff_node *n, bool report, char *buf, size_t len)
{
	const char *b = n->base_symbol, *w = n->new_symbol;
	const char *dso = tui_base_name(n->dso);
	const char *tag = report ? "" : !b ? " (new only)" : !w ? " (base only)" : "";
	if (b && w && strcmp(b, w) != 0)
		snprintf(buf, len, "%s -> %s [%s]", b, w, dso);
	else
		snprintf(buf, len, "%s [%s]%s", b ? b : w ? w : "?", dso, tag);
}

/* A relation's symbols: "a", or "a+b" for a split or merge. */
static void join_symbols(const char *const *v, size_t n, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "+" : "", v[i]);
}

static void shift_text(const pd_diff_relation *r, char *buf, size_t len)
{
	char b[256], n[256], what[600];
	if (r->kind == PD_REL_MOVED) {
		snprintf(what, sizeof what, "%s: under %s -> under %s", r->base_symbol,
			 r->base_parent ? r->base_parent : "(root)",
			 r->new_parent ? r->new_parent : "(root)");
	} else {
		join_symbols(r->base_symbols, r->nbase_symbols, b, sizeof b);
		join_symbols(r->new_symbols, r->nnew_symbols, n, sizeof n);
		snprintf(what, sizeof what, "%s -> %s", b, n);
	}
	snprintf(buf, len, "  %-9s %+8.2f %+8.2f  net %+7.2f%s  %s [%s]",
		 pd_diff_relation_kind_name(r->kind), r->base_change, r->new_change, r->net,
		 r->row && r->row->significant ? " *" : "  ", what, tui_base_name(r->dso));
}

/* Row `r`'s text and the colour of its change (0 none). */
static int row_text(const cli_tui *t, size_t r, char *buf, size_t len)
{
	if (r == 0) {
		snprintf(buf, len, "Explained shifts (%zu)%s", t->nshift,
			 t->nshift ? "   kind        base      new   net change" : "");
		return PAIR_HEAD;
	}
	if (r <= t->nshift) {
		const pd_diff_relation *rel = pd_diff_relation_at(t->d, r - 1);
		shift_text(rel, buf, len);
		return rel->net >= t->min_change ? PAIR_UP : rel->net <= -t->min_change ? PAIR_DOWN : 0;
	}
	if (r == t->nshift + 1) {
		snprintf(buf, len, t->v->report ? "Call tree      cum%%    self%%" :
			 "Aligned tree   base%%     new%%   change");
		return PAIR_HEAD;
	}
	size_t node = t->tree.rows[tui_row_in_tree(t, r)];
	const pd_diff_node *n = pd_diff_node_at(t->d, node);
	char name[1024];
	node_name(n, t->v->report, name, sizeof name);
	const char *mark = tui_tree_nkids(&t->tree, node) == 0 ? "  " :
			   t->tree.open[node] ? "- " : "+ ";
	int ind = (int)(t->tree.depth[node] < 60 ? t->tree.depth[node] : 60) * 2;
	if (t->v->report)
		snprintf(buf, len, "  %12.2f %8.2f    %*s%s%s", n->base.mean, n->base_self, ind,
			 "", mark, name);
	else
		snprintf(buf, len, "  %12.2f %8.2f %+8.2f    %*s%s%s", n->base.mean, n->new.mean,
			 n->change, ind, "", mark, name);
	if (t->v->report)
		return 0;
	return n->change >= t->min_change ? PAIR_UP : n->change <= -t->min_change ? PAIR_DOWN : 0;
}

void tui_put_line(const cli_tui *t, int y, const char *s, int pair, attr_t extra)
{
	attr_t a = extra | (t->color && pair ? COLOR_PAIR(pair) : 0);
	if (pair == PAIR_HEAD)
		a |= A_BOLD;
	attron(a);
	mvaddnstr(y, 0, s, COLS);
	attroff(a);
	clrtoeol();
}

static void draw_header(const cli_tui *t)
{
	char buf[1400];
	if (t->v->report)
		snprintf(buf, sizeof buf, "perfdiff tui  %s  %s  %llu samples", t->v->title,
			 pd_diff_event(t->d), (unsigned long long)pd_diff_samples(t->d, 0, SIZE_MAX));
	else
		snprintf(buf, sizeof buf, "perfdiff tui  %s  %s  samples %llu -> %llu",
			 t->v->title, pd_diff_event(t->d),
			 (unsigned long long)pd_diff_samples(t->d, 0, SIZE_MAX),
			 (unsigned long long)pd_diff_samples(t->d, 1, SIZE_MAX));
	tui_put_line(t, 0, buf, 0, A_REVERSE);
}

/* "focus ^a$ | ignore -", sides apart when they differ. */
static void filters_text(const cli_tui *t, char *buf, size_t len)
{
	static const char *const what[2] = { "focus", "ignore" };
	size_t at = 0;
	for (int k = 0; k < 2 && at < len; k++) {
		const char *b = t->filt[0][k], *n = t->filt[1][k];
		if (!b && !n)
			at += (size_t)snprintf(buf + at, len - at, "%s -  ", what[k]);
		else if (b && n && strcmp(b, n) == 0)
			at += (size_t)snprintf(buf + at, len - at, "%s %s  ", what[k], b);
		else
			at += (size_t)snprintf(buf + at, len - at, "%s base %s new %s  ", what[k],
					       b ? b : "-", n ? n : "-");
	}
}

void tui_draw_status(const cli_tui *t)
{
	char f[700], buf[1100];
	filters_text(t, f, sizeof f);
	snprintf(buf, sizeof buf, "filters: %s| %s", f,
		 t->msg[0] ? t->msg : "? help  / search  p peek  f focus  i ignore  c clear  q quit");
	tui_put_line(t, LINES - 1, buf, 0, A_REVERSE);
}

/* The peek pane from screen line `y0` to the status line. */
static void draw_peek(const cli_tui *t, int y0)
{
	char title[400];
	snprintf(title, sizeof title, "Peek %s   (J/K scroll, x close)", t->peek_regex);
	tui_put_line(t, y0, title, 0, A_REVERSE);
	const char *l = t->peek;
	for (size_t skip = t->peek_top; skip && l; skip--)
		l = (l = strchr(l, '\n')) ? l + 1 : NULL;
	for (int y = y0 + 1; y < LINES - 1; y++) {
		move(y, 0);
		clrtoeol();
		if (!l || !*l)
			continue;
		const char *nl = strchr(l, '\n');
		int n = nl ? (int)(nl - l) : (int)strlen(l);
		mvaddnstr(y, 0, l, n < COLS ? n : COLS);
		l = nl ? nl + 1 : NULL;
	}
}

/* Lines the list has on screen. */
int tui_list_height(const cli_tui *t)
{
	int h = LINES - 2;
	return t->peek ? h / 2 : h;
}

void tui_draw(cli_tui *t)
{
	int h = tui_list_height(t);
	if (t->cur < t->top)
		t->top = t->cur;
	if (h > 0 && t->cur >= t->top + (size_t)h)
		t->top = t->cur - (size_t)h + 1;
	draw_header(t);
	char buf[2048];
	for (int y = 0; y < h; y++) {
		size_t r = t->top + (size_t)y;
		if (r >= tui_nrows(t)) {
			move(y + 1, 0);
			clrtoeol();
			continue;
		}
		int pair = row_text(t, r, buf, sizeof buf);
		tui_put_line(t, y + 1, buf, pair, r == t->cur ? A_REVERSE : 0);
	}
	if (t->peek)
		draw_peek(t, h + 1);
	tui_draw_status(t);
	refresh();
}

static const char *const help_lines[] = {
	"perfdiff tui: keys",
	"",
	"  Up/Down k/j     select      PgUp/PgDn  page      Home/End g/G  first/last",
	"  Right + l       open the node, or go to its first child",
	"  Left - h        close the node, or go to its parent",
	"  Enter           open/close; on a shift: go to its node in the tree",
	"  /               search a function (substring of either side's name)",
	"  n               next match",
	"  p               peek the selected function: callers and callees (--peek)",
	"  J/K x           scroll the peek pane, close it",
	"  f               focus on the selected function (--focus), reading again",
	"  i               ignore the selected function (--ignore), reading again",
	"  c               clear the filters these keys set",
	"  q               quit",
	"",
	"  any key closes this help",
};

void tui_draw_help(const cli_tui *t)
{
	erase();
	for (size_t i = 0; i < sizeof help_lines / sizeof help_lines[0]; i++)
		tui_put_line(t, (int)i + 1, help_lines[i], i == 0 ? PAIR_HEAD : 0, 0);
	refresh();
	getch();
}
