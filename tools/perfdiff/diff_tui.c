/*
 * `perfdiff tui` (tui_cli.h) run by the diff command's code: the
 * profiles are built and compared as `perfdiff diff` builds them
 * (diff.c), shown on the screen (tui.c), and built again with the
 * filters the keys set.  Where there is no screen it prints what `perfdiff
 * diff` prints, or for one FILE what `perfdiff report` prints.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "diff_internal.h"
#include "tui_cli.h"

/* A growing buffer, the peek pane's text (a pd_writer callback). */
typedef struct membuf {
	char *p;
	size_t n, cap;
} membuf;

static int membuf_put(void *ctx, const char *buf, size_t n)
{
	membuf *b = ctx;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, buf, n);
	b->n += n;
	b->p[b->n] = '\0';
	return 0;
}

/* What the screen shows: the diff, or for one file its profile. */
typedef struct tui_ctx {
	cli_diff *c;
	const pd_diff *d;
	pd_profile *p;
} tui_ctx;

/* The peek block of `regex` as text: what `perfdiff diff --peek` (or
 * `report --peek`) prints.  The error's text when the writer fails; NULL
 * when out of memory. */
static char *peek_text(const tui_ctx *x, const char *regex)
{
	membuf b = { 0 };
	pd_writer *w;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_writer_new_callback(&w, membuf_put, &b, &err);
	if (rc == 0) {
		if (x->c->report) {
			pd_report_write_options o;
			rc = pd_report_write_options_init(&o, PD_REPORT_WRITE_OPTIONS_VERSION);
			o.peek = regex;
			o.profile_options = &x->c->side[0].popts;
			rc = rc < 0 ? rc : pd_report_write(w, x->p, &o, &err);
		} else {
			pd_diff_write_options o;
			rc = diff_write_options(x->c, &o);
			o.color = false;
			o.peek = regex;
			rc = rc < 0 ? rc : pd_diff_write(w, x->d, &o, &err);
		}
		if (rc == 0)
			rc = pd_writer_flush(w, &err);
		pd_writer_free(w);
	}
	if (rc == 0 && b.p)
		return b.p;
	free(b.p);
	return strdup(rc == 0 ? "" : err.message);
}

static char *tui_peek(void *ctx, const char *regex)
{
	return peek_text(ctx, regex);
}

/* One profile's report on standard output: what the tui of one FILE
 * prints where it cannot draw. */
static int write_report(cli_diff *c, pd_profile *p)
{
	pd_report_write_options o;
	if (cli_options_init_rc(pd_report_write_options_init(&o,
				PD_REPORT_WRITE_OPTIONS_VERSION), "pd_report_write_options") < 0)
		return -1;
	o.color = cli_io_colored(&c->io, PD_FORMAT_TEXT);
	o.profile_options = &c->side[0].popts;
	pd_writer *w;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_writer_new_file(&w, c->io.out, &err);
	if (rc == 0) {
		rc = pd_report_write(w, p, &o, &err);
		if (rc == 0)
			rc = pd_writer_flush(w, &err);
		pd_writer_free(w);
	}
	if (rc < 0)
		cli_error("cannot write the report: %s", err.message);
	return rc < 0 ? -1 : 0;
}

/* The profiles with the current filters and their diff: 0, or -1 after
 * the error (printed; nothing to free). */
static int tui_build(cli_diff *c, pd_profile *p[2], pd_diff **d)
{
	p[0] = p[1] = NULL;
	*d = NULL;
	int rc = diff_build_sides(c, p);
	cli_warns_print(&c->warns, &c->io);
	for (int side = 0; side < 2 && rc >= 0; side++)
		if (p[side] && diff_empty_side(c, side, p[side]) < 0)
			rc = -1;
	pd_error err;
	memset(&err, 0, sizeof err);
	if (rc >= 0 && pd_diff_new(d, p[0], p[1] ? p[1] : p[0], &c->dopts, &err) < 0) {
		cli_error("%s", err.message[0] ? err.message : pd_error_code_str(err.code));
		rc = -1;
	}
	if (rc >= 0)
		return 0;
	pd_profile_free(p[0]);
	pd_profile_free(p[1]);
	p[0] = p[1] = NULL;
	return -1;
}

/* The filters the keys chose over the command line's (`given`). */
static void tui_filters(cli_diff *c, const char *given[2][2])
{
	for (int s = 0; s < 2; s++) {
		const char *f = cli_tui_filter(c->screen, s, 0), *i = cli_tui_filter(c->screen, s, 1);
		c->side[s].popts.focus = f ? f : given[s][0];
		c->side[s].popts.ignore = i ? i : given[s][1];
	}
}

/* Show, and build again as the keys ask, until q. */
static int tui_loop(cli_diff *c, pd_profile *p[2], pd_diff *d)
{
	const char *given[2][2];
	for (int s = 0; s < 2; s++) {
		given[s][0] = c->side[s].popts.focus;
		given[s][1] = c->side[s].popts.ignore;
	}
	char title[1024];
	snprintf(title, sizeof title, "%s%s%s", c->paths[0][0], c->report ? "" : " -> ",
		 c->report ? "" : c->paths[1][0]);
	int rc = 0;
	while (d) {
		tui_ctx x = { c, d, p[0] };
		cli_tui_view v = { .report = c->report, .title = title, .peek = tui_peek,
				   .ctx = &x };
		cli_tui_action a = cli_tui_show(c->screen, d, &v);
		pd_diff_free(d);
		pd_profile_free(p[0]);
		pd_profile_free(p[1]);
		d = NULL;
		if (a == CLI_TUI_QUIT)
			break;
		cli_tui_suspend(c->screen);
		tui_filters(c, given);
		if (tui_build(c, p, &d) < 0) {
			/* what the filter left is nothing: the one before */
			cli_tui_undo(c->screen, "the filter leaves nothing to compare: undone");
			tui_filters(c, given);
			rc = tui_build(c, p, &d);
		}
		cli_tui_resume(c->screen);
	}
	return rc;
}

/* `perfdiff tui FILE` where there is no screen: what `perfdiff report
 * FILE` prints, unnamed frames by address as it names them. */
static int run_report(cli_diff *c)
{
	c->side[0].popts.flags &= ~(unsigned)PD_PROFILE_MERGE_UNRESOLVED;
	pd_profile *p[2] = { NULL, NULL };
	int rc = diff_build_sides(c, p);
	cli_warns_print(&c->warns, &c->io);
	if (rc >= 0 && diff_empty_side(c, 0, p[0]) < 0)
		rc = -1;
	int wrc = rc >= 0 ? write_report(c, p[0]) : -1;
	pd_profile_free(p[0]);
	if (wrc < 0 || rc != 0)
		return CLI_EXIT_ERROR;
	return cli_warns_status(&c->warns, &c->io);
}

/* `perfdiff tui`: the screen, or where it cannot be (or with -o FILE),
 * the text `perfdiff diff` prints (a report's for one FILE). */
int diff_run_tui(cli_diff *c)
{
	if (!cli_tui_usable() || c->io.out_path)
		return c->report ? run_report(c) : diff_run(c);
	pd_profile *p[2];
	pd_diff *d;
	if (tui_build(c, p, &d) < 0)
		return CLI_EXIT_ERROR;
	int rc = 0;
	if (!(c->screen = cli_tui_open(cli_io_colored(&c->io, PD_FORMAT_TEXT)))) {
		cli_error("cannot start the terminal UI (TERM=%s)",
			  getenv("TERM") ? getenv("TERM") : "");
		rc = -1;
		pd_diff_free(d);
		pd_profile_free(p[0]);
		pd_profile_free(p[1]);
	} else {
		rc = tui_loop(c, p, d);
		cli_tui_close(c->screen);
		c->screen = NULL;
	}
	return rc < 0 ? CLI_EXIT_ERROR : cli_warns_status(&c->warns, &c->io);
}
