/*
 * pd_pprof_write_script(): `perfdiff script` of a pprof file, each
 * Sample as a perf.data sample is written (script_text.c,
 * script_json.c), with what pprof does not have left out rather than
 * made up.  Text:
 *
 *   COMM PID/TID:   VALUE TYPE, VALUE TYPE...:
 *   \t<dso_addr, 16 wide hex> sym (dso)
 *   \t<dso_addr> inline_fn (inlined)
 *   (blank line)
 *
 * No CPU column (unless a "cpu" label gives it), no time (pprof has none
 * per sample) and no "+0xoffset" (pprof keeps no symbol start); a sample
 * aggregates every recorded sample of the same stack and labels, its
 * values say how many.  JSON: script_json.c's object with "time" null,
 * "offset" null, "unit" null, "period" and "event" the default sample
 * type's value and name, and "values" every value in sample-type order.
 */
#include <stdlib.h>
#include <string.h>

#include "script_internal.h"
#include "util/util.h"
#include "perfdiff/pprof.h"
#include "util/util.h"

typedef struct pscript {
	pd_writer *w;
	const pd_pprof *pp;
	name_cache names;            /* the pprof's strings live as long */
	const pd_script_write_options *o;
} pscript;

static void put_values_text(pscript *ps, const pd_pprof_sample *s)
{
	for (size_t k = 0; k < s->nvalues; k++) {
		pdo_putn(ps->w, k ? ", " : " ", k ? 2 : 1);
		if (pdo_reserve(ps->w, 24))
			pdo_dec_r(ps->w, s->values[k], 10, ' ', false);
		pdo_putc(ps->w, ' ');
		pdo_put_name(ps->w, &ps->names, pd_pprof_type_name(ps->pp, k));
	}
	pdo_putn(ps->w, ":\n", 2);
}

static void header_text(pscript *ps, const pd_pprof_sample *s)
{
	pd_writer *w = ps->w;
	pdo_put_escaped(w, s->comm ? s->comm : "");
	if (!pdo_reserve(w, 64))
		return;
	pdo_putc_r(w, ' ');
	pdo_dec_r(w, s->pid, 5, ' ', false);
	pdo_putc_r(w, '/');
	pdo_dec_r(w, s->tid, 5, ' ', true);
	if (s->has_cpu) {
		pdo_putn_r(w, " [", 2);
		pdo_dec_r(w, s->cpu, 3, '0', false);
		pdo_putc_r(w, ']');
	}
	put_values_text(ps, s);
}

static void frame_text(pscript *ps, const pd_frame *fr)
{
	pd_writer *w = ps->w;
	if (pdo_reserve(w, 32)) {
		pdo_putc_r(w, '\t');
		pdo_hex_r(w, fr->dso_addr, 16);
		pdo_putc_r(w, ' ');
	}
	pdo_put_name(w, &ps->names, fr->symbol ? fr->symbol : "[unknown]");
	if (!fr->inlined) {
		pdo_putn(w, " (", 2);
		pdo_put_name(w, &ps->names, fr->dso);
		pdo_putc(w, ')');
	}
	/* as script_text.c: the line under the frame, before " (inlined)" */
	if (ps->o->srcline && fr->srcfile && fr->line) {
		pdo_putn(w, "\n  ", 3);
		const char *base = strrchr(fr->srcfile, '/');
		pdo_put_name(w, &ps->names, ps->o->full_path || !base || !base[1] ? fr->srcfile
										: base + 1);
		pd_writer_printf(w, ":%u", fr->line);
	}
	pdo_puts(w, fr->inlined ? " (inlined)\n" : "\n");
}

static void sample_text(pscript *ps, const pd_pprof_sample *s)
{
	header_text(ps, s);
	for (size_t i = 0; i < s->nframes; i++)
		frame_text(ps, &s->frames[i]);
	pdo_putn(ps->w, "\n", 1);
}

static void frame_json(pscript *ps, const pd_frame *fr)
{
	pd_writer *w = ps->w;
	pdo_puts(w, "{\"addr\":");
	pdo_json_hex(w, fr->addr);
	pdo_puts(w, ",\"dso_addr\":");
	pdo_json_hex(w, fr->dso_addr);
	pdo_puts(w, ",\"symbol\":");
	pdo_json_name(w, &ps->names, fr->symbol);
	pdo_puts(w, ",\"raw_symbol\":");
	pdo_json_name(w, &ps->names, fr->symbol ? fr->raw_symbol : NULL);
	pdo_puts(w, ",\"offset\":null,\"dso\":");
	pdo_json_name(w, &ps->names, fr->dso);
	pdo_puts(w, fr->inlined ? ",\"inlined\":true" : ",\"inlined\":false");
	bool line = fr->srcfile && fr->line;
	pdo_puts(w, ",\"srcfile\":");
	pdo_json_name(w, &ps->names, line ? fr->srcfile : NULL);
	pdo_puts(w, ",\"line\":");
	if (line)
		pdo_json_u64(w, fr->line);
	else
		pdo_puts(w, "null");
	pdo_puts(w, ",\"unit\":null}");
}

/* "pid", "tid" and "cpu": the label's number, or null. */
static void id_json(pd_writer *w, const char *key, bool has, uint32_t v)
{
	pdo_puts(w, key);
	if (has)
		pdo_json_u64(w, v);
	else
		pdo_puts(w, "null");
}

static void sample_json(pscript *ps, const pd_pprof_sample *s)
{
	pd_writer *w = ps->w;
	size_t def = pd_pprof_default_type(ps->pp);
	pdo_puts(w, "{\"comm\":");
	pdo_json_str(w, s->comm);
	id_json(w, ",\"pid\":", s->has_pid, s->pid);
	id_json(w, ",\"tid\":", s->has_tid, s->tid);
	id_json(w, ",\"cpu\":", s->has_cpu, s->cpu);
	pdo_puts(w, ",\"time\":null,\"period\":");
	if (def < s->nvalues)
		pdo_json_u64(w, s->values[def]);
	else
		pdo_puts(w, "null");
	pdo_puts(w, ",\"event\":");
	pdo_json_name(w, &ps->names, pd_pprof_type_name(ps->pp, def));
	pdo_puts(w, ",\"values\":[");
	for (size_t k = 0; k < s->nvalues; k++) {
		if (k)
			pdo_putc(w, ',');
		pdo_json_u64(w, s->values[k]);
	}
	pdo_puts(w, "],\"frames\":[");
	for (size_t i = 0; i < s->nframes; i++) {
		if (i)
			pdo_putc(w, ',');
		frame_json(ps, &s->frames[i]);
	}
	pdo_putn(w, "]}\n", 3);
}

int pd_pprof_write_script(pd_pprof *pp, pd_writer *w, const pd_script_write_options *uo,
			  pd_error *err)
{
	pd_script_write_options o;
	if (!pp || !w)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no pprof or writer given");
	int rc = pdo_script_options(&o, uo, err);
	pscript *ps = rc == 0 ? calloc(1, sizeof *ps) : NULL;
	if (rc == 0 && !ps)
		rc = pdo_nomem(err);
	if (rc < 0)
		return rc;
	*ps = (pscript){ .w = w, .pp = pp, .o = &o };
	size_t n = pd_pprof_count(pp, PD_PPROF_SAMPLES);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const pd_pprof_sample *s = pd_pprof_sample_at(pp, i, err);
		if (!s)
			rc = err ? err->code : PD_ENOMEM;
		else if (o.format == PD_FORMAT_JSON)
			sample_json(ps, s);
		else
			sample_text(ps, s);
		if (rc == 0 && pdo_flush_some(w) < 0)
			rc = pdo_status(w, err);
	}
	free(ps);
	return rc;
}
