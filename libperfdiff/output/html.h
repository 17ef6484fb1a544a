/*
 * The HTML pages' frame (html.c), shared by the diff page (diff_html.c)
 * and the report page (report_html.c): head with the embedded style,
 * data elements, the embedded scripts.  Names in the page go through
 * pdo_html_text(); data through the JSON engine with the writer's `html`
 * flag set, which escapes '<' so that no name can end the element.
 */
#ifndef PD_OUTPUT_HTML_H
#define PD_OUTPUT_HTML_H

#include "writer.h"

/* `s` as HTML text or attribute value: & < > " as entities, control
 * characters as spaces, ill-formed UTF-8 as U+FFFD. */
void pdo_html_text(pd_writer *w, const char *s);

/* Doctype, head (title, the style, a policy that allows no load from
 * elsewhere), <body class="pd-KIND"> and the elements the scripts fill. */
void pdo_html_begin(pd_writer *w, const char *kind, const char *title);

/* A <script type="application/json" id="ID"> element around JSON. */
void pdo_html_data_begin(pd_writer *w, const char *id);
void pdo_html_data_end(pd_writer *w);

/* The flame graph's script, then the page's own (`page_js`), and the end. */
void pdo_html_end(pd_writer *w, const char *page_js, size_t len);

#endif
