/*
 * libFuzzer harness for the robot's mails (perfdiff/robot.h): the input is
 * a mail.  What is read is explained as `perfdiff explain` does, every
 * column of every table against its base, and written as text and JSON
 * through a callback writer that keeps nothing: a hostile mail must end in
 * an explanation or an error with a message, never in a crash, a leak or
 * unbounded memory.
 */
#include <stdint.h>
#include <stdlib.h>

#include "perfdiff/perfdiff.h"

static int sink(void *ctx, const char *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

static void explain(const pd_lkp_tables *t)
{
	pd_diff *d[32];
	size_t n = 0;
	for (size_t i = 0; i < pd_lkp_tables_count(t); i++) {
		const pd_lkp_table *tab = pd_lkp_tables_at(t, i);
		for (size_t c = 1; c < tab->ncolumns && n < 32; c++) {
			pd_error e = { 0 };
			if (pd_diff_new_lkp(&d[n], tab, 0, c, NULL, NULL, &e) == 0)
				n++;
			else if (!e.message[0])
				abort();  /* an error without its words */
		}
	}
	static const pd_format formats[] = { PD_FORMAT_TEXT, PD_FORMAT_JSON };
	for (size_t f = 0; f < 2; f++) {
		pd_writer *w;
		pd_error e = { 0 };
		if (pd_writer_new_callback(&w, sink, NULL, &e) < 0)
			abort();
		pd_diff_write_options o;
		pd_diff_write_options_init(&o, PD_DIFF_WRITE_OPTIONS_VERSION);
		o.format = formats[f];
		o.all = true;
		pd_explain_write(w, t, (const pd_diff *const *)d, n, &o, &e);
		pd_writer_free(w);
	}
	for (size_t i = 0; i < n; i++)
		pd_diff_free(d[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pd_lkp_tables *t = NULL;
	pd_error e = { 0 };
	if (pd_lkp_tables_read_mail_mem(&t, "fuzz.eml", (const char *)data, size, &e) < 0) {
		if (!e.message[0] || t)
			abort();
		return 0;
	}
	explain(t);
	pd_lkp_tables_free(t);
	return 0;
}
