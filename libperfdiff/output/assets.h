/*
 * The HTML report's script and style (libperfdiff/output/html/: .js and
 * .css files), embedded at build time by cmake/embed.cmake into the generated
 * pd_assets.c: a page is one file that needs nothing else to open, and
 * the code stays in real files.  Each array ends in a NUL not counted in
 * its length.
 */
#ifndef PD_OUTPUT_ASSETS_H
#define PD_OUTPUT_ASSETS_H

#include <stddef.h>

extern const char pdo_asset_flame_js[], pdo_asset_diff_js[], pdo_asset_report_js[],
	pdo_asset_page_css[];
extern const size_t pdo_asset_flame_js_len, pdo_asset_diff_js_len, pdo_asset_report_js_len,
	pdo_asset_page_css_len;

#endif
