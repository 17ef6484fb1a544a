/*
 * The warnings sink (declared in util.h): one way for the reader, the
 * symbolizer and the profile to keep what they tell the user, with its
 * kind, instead of one hand-grown pair of arrays each.  Adding never
 * fails the caller: a warning that finds no memory, or comes beyond the
 * cap, is only counted, since losing a remark is better than losing the
 * result it remarks on.  A caller's sink (pd_warn_fn) is handed each
 * warning as it is kept, so that it sees exactly what the getters hold.
 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pd_warnings_init(pd_warnings *w, size_t max)
{
	memset(w, 0, sizeof *w);
	w->max = max;
}

void pd_warnings_set_sink(pd_warnings *w, pd_warn_fn sink, void *ctx, const char *path)
{
	w->sink = sink;
	w->sink_ctx = ctx;
	w->path = path;
}

void pd_warnings_free(pd_warnings *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	free(w->kind);
	pd_warn_fn sink = w->sink;
	void *ctx = w->sink_ctx;
	const char *path = w->path;
	pd_warnings_init(w, w->max);
	pd_warnings_set_sink(w, sink, ctx, path);
}

/* Room for one more message and its kind.  Both arrays start from the
 * same capacity and grow by the same rule, so they stay as long. */
static bool room(pd_warnings *w)
{
	size_t vcap = w->cap, kcap = w->cap;
	if (pd_grow(&w->v, &vcap, w->n + 1, sizeof *w->v) < 0 ||
	    pd_grow(&w->kind, &kcap, w->n + 1, sizeof *w->kind) < 0)
		return false;
	w->cap = vcap;
	return true;
}

/* Whether the cap leaves room for a warning of `kind` (see util.h). */
static bool under_cap(const pd_warnings *w, pd_warning_kind kind)
{
	return !w->max || w->n < w->max || kind == PD_WARN_DATA_LOST;
}

void pd_warnings_add_about(pd_warnings *w, pd_warning_kind kind, const char *path,
			   const char *msg)
{
	if (!w || !msg)
		return;
	char *m = NULL;
	if (!under_cap(w, kind) || !room(w) || !(m = strdup(msg))) {
		w->dropped++;
		return;
	}
	w->kind[w->n] = kind;
	w->v[w->n++] = m;
	if (w->sink)
		w->sink(w->sink_ctx, kind, path, m);
}

void pd_warnings_add(pd_warnings *w, pd_warning_kind kind, const char *msg)
{
	if (w)
		pd_warnings_add_about(w, kind, w->path, msg);
}

void pd_warnings_vaddf(pd_warnings *w, pd_warning_kind kind, const char *fmt, va_list ap)
{
	if (!w)
		return;
	char buf[PD_WARNING_MAX];
	vsnprintf(buf, sizeof buf, fmt, ap);
	pd_warnings_add(w, kind, buf);
}

void pd_warnings_addf(pd_warnings *w, pd_warning_kind kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pd_warnings_vaddf(w, kind, fmt, ap);
	va_end(ap);
}

void pd_warnings_vat(pd_warnings *w, pd_warning_kind kind, const char *file, uint64_t offset,
		     const char *fmt, va_list ap)
{
	if (!w)
		return;
	/* the same words as an error about the same place would have */
	pd_error e;
	pd_error_vset(&e, 0, file, offset, fmt, ap);
	pd_warnings_add(w, kind, e.message);
}
