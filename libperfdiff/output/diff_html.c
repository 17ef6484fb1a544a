/*
 * `perfdiff diff --format=html`: one page that shows what the text shows
 * (sides, the explained shifts first, the robot's compare table, what
 * the numbers rest on) and a differential flame graph of the aligned
 * tree.  The page carries two JSON documents: the diff as --format=json
 * writes it ("perfdiff.diff/1", docs/diff-json.md), so the page shows the
 * same rows and relations as every other format, and the aligned tree's
 * nodes ("perfdiff.flame/1", flame_json.c).  The tree rows are left out of
 * the first: a row per node, each keyed by its whole path, they would be
 * most of a large page (and of the time it takes to open), and the second
 * has their values; the script builds the table's tree rows from it.  The
 * script (html/diff.js on html/flame.js) draws both.
 */
#include "assets.h"
#include "flame.h"
#include "html.h"

int pdo_diff_html(const pdo_diff *v)
{
	pd_writer *w = v->w;
	char title[512], side[2][160];
	pdo_side_name(v, 0, side[0], sizeof side[0]);
	pdo_side_name(v, 1, side[1], sizeof side[1]);
	snprintf(title, sizeof title, "perfdiff: %s vs %s", side[0], side[1]);
	pdo_html_begin(w, "diff", title);
	pdo_html_data_begin(w, "pd-diff");
	pdo_diff doc = *v;
	doc.json_no_tree = true;
	doc.json_largest = true;
	int rc = pdo_diff_json(&doc);
	pdo_html_data_end(w);
	if (rc == 0) {
		pdo_html_data_begin(w, "pd-flame");
		rc = pdo_diff_flame_json(v);
		pdo_html_data_end(w);
	}
	pdo_html_end(w, pdo_asset_diff_js, pdo_asset_diff_js_len);
	return rc;
}
