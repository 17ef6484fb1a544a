/*
 * out.c — a pd_writer whose bytes land in memory, for the methods that
 * return what the command line prints (Profile.report(), Diff.write()).
 *
 * The library writes every format through a pd_writer (output.h); a
 * callback writer appending to a growing buffer gives the same bytes as
 * `perfdiff report`/`perfdiff diff` write to a file, which the tests
 * compare.  The writing runs with the GIL released, so the callback
 * touches no Python object.
 */
#include "pdpy.h"

#include <stdlib.h>
#include <string.h>

static int append(void *ctx, const char *buf, size_t n)
{
	pdpy_out *o = ctx;
	if (n > SIZE_MAX / 2 - o->len)
		return PD_ENOMEM;
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->len + n)
			cap *= 2;
		char *b = realloc(o->buf, cap);
		if (!b)
			return PD_ENOMEM;
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, buf, n);
	o->len += n;
	return 0;
}

int pdpy_out_open(pdpy_out *o, pd_error *err)
{
	memset(o, 0, sizeof *o);
	return pd_writer_new_callback(&o->w, append, o, err);
}

PyObject *pdpy_out_finish(const pdpy_state *st, pdpy_out *o, int rc, pd_error *err)
{
	if (rc == 0)
		rc = pd_writer_flush(o->w, err);
	pd_writer_free(o->w);
	PyObject *s = rc < 0 ? pdpy_raise(st, err, NULL)
			     : pdpy_strn(o->buf ? o->buf : "", o->len);
	free(o->buf);
	memset(o, 0, sizeof *o);
	return s;
}
