/*
 * `perfdiff diff --format=svg`: the differential flame graph of the
 * aligned tree as one static SVG, for e-mail, CI artifacts and issue
 * trackers, where no script runs.  The same picture as the HTML page's
 * (docs/html-report.md): root at the bottom, a node as wide as the larger
 * of its base and new shares, red where it costs more, blue where less,
 * the deeper the larger the change, grey when the change is not
 * significant, hatched when only one side has it; a renamed or inlined
 * node is one box named "old → new".  Every box has its numbers as an
 * SVG <title> (a tooltip in browsers).  Nodes narrower than a tenth of a
 * pixel-column are merged into one box per caller, counted in its title.
 */
#include <math.h>
#include <stdlib.h>

#include "html.h"
#include "internal.h"

#define SVG_W 1200.0       /* drawing width, px */
#define SVG_ROW 16.0       /* a frame's height */
#define SVG_TOP 40.0       /* room for the title line */
#define SVG_MIN_W 0.5      /* narrower boxes are merged */
#define SVG_CHAR_W 6.5     /* of the 11 px font, for clipping labels */

typedef struct svg_layout {
	const pd_diff *d;
	size_t n;
	double *x, *w;         /* px */
	double *cursor;        /* per node: where its next child goes */
	double *scale;         /* per node: px per point for its children */
	size_t *depth;
	double *merged;        /* per node: px of children too narrow to draw */
	size_t *nmerged;
	size_t maxdepth;
	double maxabs;         /* largest |change| drawn, for saturation */
} svg_layout;

static double node_size(const pd_diff_node *n)
{
	return n->base.mean > n->new.mean ? n->base.mean : n->new.mean;
}

/* Children's total size under each node, to squeeze them into it where
 * a moved subtree makes them add up to more. */
static void kid_sums(svg_layout *L, double *sum)
{
	for (size_t i = 1; i < L->n; i++)
		sum[pd_diff_node_at(L->d, i)->parent] += node_size(pd_diff_node_at(L->d, i));
}

static void place(svg_layout *L, const double *sum)
{
	double root = node_size(pd_diff_node_at(L->d, 0));
	L->x[0] = 0;
	L->w[0] = SVG_W;
	for (size_t i = 0; i < L->n; i++) {
		const pd_diff_node *nd = pd_diff_node_at(L->d, i);
		if (i > 0) {
			size_t p = nd->parent;
			L->depth[i] = L->depth[p] + 1;
			L->x[i] = L->cursor[p];
			L->w[i] = node_size(nd) * L->scale[p];
			if (L->w[i] < SVG_MIN_W) {
				L->merged[p] += L->w[i];  /* drawn after the wide ones */
				L->nmerged[p]++;
			} else {
				L->cursor[p] += L->w[i];
			}
		}
		double room = i ? node_size(nd) : root;
		double s = room > 0 ? L->w[i] / room : 0;
		if (sum[i] > room && sum[i] > 0)
			s = L->w[i] / sum[i];
		L->scale[i] = s;
		L->cursor[i] = L->x[i];
		if (L->w[i] >= SVG_MIN_W && L->depth[i] > L->maxdepth)
			L->maxdepth = L->depth[i];
		if (i > 0 && L->w[i] >= SVG_MIN_W && fabs(nd->change) > L->maxabs)
			L->maxabs = fabs(nd->change);
	}
}

/* "#rrggbb": red for a cost that grew, blue for one that fell, white to
 * full by |change| against the largest; grey when not significant. */
static void color_of(const svg_layout *L, const pd_diff_node *n, char out[8])
{
	if (n->row && !n->row->significant) {
		snprintf(out, 8, "#c8c8c8");
		return;
	}
	double t = L->maxabs > 0 ? sqrt(fabs(n->change) / L->maxabs) : 0;
	t = t > 1 ? 1 : t;
	int to[3] = { 0xe0, 0x30, 0x20 };
	if (n->change < 0)
		to[0] = 0x20, to[1] = 0x60, to[2] = 0xe0;
	int c[3];
	for (int k = 0; k < 3; k++)
		c[k] = (int)lround(0xf2 + (to[k] - 0xf2) * t);
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static void node_name(pd_writer *w, const pd_diff_node *n)
{
	if (n->base_symbol && n->new_symbol && strcmp(n->base_symbol, n->new_symbol) != 0) {
		pdo_html_text(w, n->base_symbol);
		pdo_puts(w, " \xE2\x86\x92 ");
		pdo_html_text(w, n->new_symbol);
	} else {
		pdo_html_text(w, n->base_symbol ? n->base_symbol : n->new_symbol ? n->new_symbol
										 : "all");
	}
}

static void node_title(pd_writer *w, const pd_diff_node *n)
{
	pdo_puts(w, "<title>");
	node_name(w, n);
	pdo_printf(w, "\nbase %.2f \xC2\xB1 %.2f, new %.2f \xC2\xB1 %.2f, change %+.2f",
		   n->base.mean, n->base.stddev, n->new.mean, n->new.stddev, n->change);
	if (n->row)
		pdo_printf(w, ", q %.3g%s", n->row->q_value, n->row->significant ? "" : " (n.s.)");
	if (n->relation) {
		pdo_printf(w, "\n%s: ", pd_diff_relation_kind_name(n->relation->kind));
		pdo_html_text(w, n->relation->evidence);
	}
	pdo_puts(w, "</title>");
}

/* The label, cut to the box. */
static void node_label(pd_writer *w, const pd_diff_node *n, double x, double y, double wd)
{
	size_t fit = (size_t)((wd - 6) / SVG_CHAR_W);
	if (fit < 3)
		return;
	char buf[1024];
	const char *a = n->base_symbol ? n->base_symbol : n->new_symbol ? n->new_symbol : "all";
	if (n->base_symbol && n->new_symbol && strcmp(n->base_symbol, n->new_symbol) != 0)
		snprintf(buf, sizeof buf, "%s \xE2\x86\x92 %s", n->base_symbol, n->new_symbol);
	else
		snprintf(buf, sizeof buf, "%s", a);
	if (strlen(buf) > fit)
		memcpy(buf + fit - 2, "..", 3);  /* may cut a UTF-8 sequence: shown as U+FFFD */
	pdo_printf(w, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + SVG_ROW - 4);
	pdo_html_text(w, buf);
	pdo_puts(w, "</text>");
}

static double row_y(const svg_layout *L, size_t depth)
{
	return SVG_TOP + ((double)L->maxdepth - (double)depth) * SVG_ROW;
}

static void draw_node(pd_writer *w, const svg_layout *L, size_t i)
{
	const pd_diff_node *n = pd_diff_node_at(L->d, i);
	double x = L->x[i], wd = L->w[i], y = row_y(L, L->depth[i]);
	char col[8];
	color_of(L, n, col);
	pdo_printf(w, "<g class=\"f\">");
	node_title(w, n);
	pdo_printf(w, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>",
		   x, y, wd, SVG_ROW - 1, col);
	if (i > 0 && (!n->base_symbol || !n->new_symbol))
		pdo_printf(w, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			      "fill=\"url(#hatch)\"/>", x, y, wd, SVG_ROW - 1);
	node_label(w, n, x, y, wd);
	pdo_puts(w, "</g>\n");
	if (L->merged[i] >= SVG_MIN_W)
		pdo_printf(w, "<g class=\"m\"><title>%zu nodes too narrow to draw</title>"
			      "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			      "fill=\"#dddddd\"/></g>\n", L->nmerged[i], L->cursor[i],
			   row_y(L, L->depth[i] + 1), L->merged[i], SVG_ROW - 1);
}

static void svg_head(pd_writer *w, const svg_layout *L, const pdo_diff *v)
{
	double h = SVG_TOP + (double)(L->maxdepth + 1) * SVG_ROW + 24;
	pdo_printf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
		   SVG_W, h, SVG_W, h);
	pdo_puts(w, "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
		    "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		    "<rect width=\"2\" height=\"6\" fill=\"rgba(0,0,0,0.25)\"/></pattern></defs>\n"
		    "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	char side[2][160];
	pdo_side_name(v, 0, side[0], sizeof side[0]);
	pdo_side_name(v, 1, side[1], sizeof side[1]);
	pdo_puts(w, "<text x=\"4\" y=\"16\" font-size=\"14\">");
	pdo_html_text(w, side[0]);
	pdo_puts(w, " \xE2\x86\x92 ");
	pdo_html_text(w, side[1]);
	pdo_printf(w, " (%s): width max(base, new), red slower, blue faster, grey not "
		      "significant, hatched one side only</text>\n", v->event);
}

static int svg_alloc(svg_layout *L, double **sum)
{
	size_t n = L->n ? L->n : 1;
	L->x = calloc(n, sizeof *L->x);
	L->w = calloc(n, sizeof *L->w);
	L->cursor = calloc(n, sizeof *L->cursor);
	L->scale = calloc(n, sizeof *L->scale);
	L->merged = calloc(n, sizeof *L->merged);
	L->depth = calloc(n, sizeof *L->depth);
	L->nmerged = calloc(n, sizeof *L->nmerged);
	*sum = calloc(n, sizeof **sum);
	return L->x && L->w && L->cursor && L->scale && L->merged && L->depth && L->nmerged && *sum
		       ? 0 : PD_ENOMEM;
}

static void svg_free(svg_layout *L, double *sum)
{
	free(L->x), free(L->w), free(L->cursor), free(L->scale);
	free(L->merged), free(L->depth), free(L->nmerged), free(sum);
}

int pdo_diff_svg(const pdo_diff *v)
{
	svg_layout L = { .d = v->d, .n = pd_diff_node_count(v->d) };
	double *sum = NULL;
	if (svg_alloc(&L, &sum) < 0) {
		svg_free(&L, sum);
		return pdo_nomem(v->err);
	}
	kid_sums(&L, sum);
	place(&L, sum);
	for (size_t i = 0; i < L.n; i++)  /* merged boxes take a row of their own */
		if (L.w[i] >= SVG_MIN_W && L.merged[i] >= SVG_MIN_W && L.depth[i] + 1 > L.maxdepth)
			L.maxdepth = L.depth[i] + 1;
	svg_head(v->w, &L, v);
	for (size_t i = 0; i < L.n && !v->w->failed; i++) {
		if (L.w[i] >= SVG_MIN_W)
			draw_node(v->w, &L, i);
		pdo_flush_some(v->w);
	}
	pdo_puts(v->w, "</svg>\n");
	svg_free(&L, sum);
	return 0;
}
