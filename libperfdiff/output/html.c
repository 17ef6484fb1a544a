/*
 * The frame of every HTML page (html.h): one file that opens from disk
 * with nothing else — the style, the scripts (libperfdiff/output/html/,
 * embedded at build time, assets.h) and the data (JSON in
 * <script type="application/json"> elements, written by the JSON engine
 * with '<' escaped) all inline.  A Content-Security-Policy forbids every
 * load from elsewhere, so a page cannot reach the network even if a name
 * in the data looked like a URL.
 */
#include "html.h"

#include "assets.h"
#include "json.h"
#include "utf8.h"

void pdo_html_text(pd_writer *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		const char *ent = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;"
				: c == '"' ? "&quot;" : NULL;
		size_t l = c < 0x80 ? 1 : pdo_utf8_seq_len(p + i, n - i);
		if (ent)
			pdo_puts(w, ent);
		else if (c < 0x20 || l == 0)
			pdo_puts(w, c < 0x20 ? " " : "\xEF\xBF\xBD");
		else
			pdo_putn(w, (const char *)p + i, l);
		i += l ? l : 1;
	}
}

void pdo_html_begin(pd_writer *w, const char *kind, const char *title)
{
	pdo_puts(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
		    "<meta name=\"generator\" content=\"perfdiff " PD_VERSION_STRING "\">\n<title>");
	pdo_html_text(w, title);
	pdo_puts(w, "</title>\n<style>\n");
	pdo_putn(w, pdo_asset_page_css, pdo_asset_page_css_len);
	pdo_printf(w, "</style>\n</head>\n<body class=\"pd-%s\">\n"
		      "<noscript>This report draws its tables and flame graphs with "
		      "JavaScript.</noscript>\n"
		      "<div id=\"pd-errors\" hidden></div>\n<div id=\"pd-app\"></div>\n", kind);
}

void pdo_html_data_begin(pd_writer *w, const char *id)
{
	pdo_printf(w, "<script type=\"application/json\" id=\"%s\">", id);
	w->html = true;
}

void pdo_html_data_end(pd_writer *w)
{
	w->html = false;
	pdo_puts(w, "</script>\n");
}

void pdo_html_end(pd_writer *w, const char *page_js, size_t len)
{
	pdo_puts(w, "<script>\n");
	pdo_putn(w, pdo_asset_flame_js, pdo_asset_flame_js_len);
	pdo_puts(w, "</script>\n<script>\n");
	pdo_putn(w, page_js, len);
	pdo_puts(w, "</script>\n</body>\n</html>\n");
	pdo_flush_some(w);
}
