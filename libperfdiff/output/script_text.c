/*
 * `perfdiff script` text: the layout of perf 6.1's `perf script` default
 * output, so the two can be compared line by line.
 *
 *   COMM PID/TID [CPU] SECS.USECS:     PERIOD EVENT: 
 *   \t<addr, 16 wide hex> sym+0xoff (dso)
 *   \t<addr> inline_fn+0xoff (inlined)
 *   (blank line)
 *
 * perf pads the command to 16 columns only when no call chain follows, puts
 * the leaf on the header line for events without call chains, prints
 * "[unknown]" for a missing symbol, gives inline frames no dso, and with
 * +srcline writes "  file:line" (file's base name) under each frame,
 * before an inline frame's " (inlined)".  Where no line is known perf
 * writes "  dso[addr]" (base name), and nothing for a frame without a map.
 *
 * Addresses are printed as perf does: user-space ones as the offset in their
 * dso (pd_frame.dso_addr), kernel ones as they are.  Difference from perf,
 * by design: the header shows PID/TID (perf's default is TID alone).
 */
#include <string.h>

#include "script_internal.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

static bool unmapped(const pd_frame *fr)
{
	return !fr->dso || strcmp(fr->dso, "[unknown]") == 0;
}

/* Room for the fixed-width parts of a line around the escaped names. */
#define FIXED_ROOM 128

static void put_srcline(pd_writer *w, name_cache *nc, const pd_script_write_options *o,
			const pd_frame *fr)
{
	if (fr->srcfile && fr->line) {
		pdo_putn(w, "\n  ", 3);
		pdo_put_name(w, nc, o->full_path ? fr->srcfile
						: base_name(fr->srcfile));
		if (pdo_reserve(w, FIXED_ROOM)) {
			pdo_putc_r(w, ':');
			pdo_dec_r(w, fr->line, 0, ' ', false);
		}
	} else if (!unmapped(fr)) {
		pdo_putn(w, "\n  ", 3);
		pdo_put_name(w, nc, base_name(fr->dso));
		if (pdo_reserve(w, FIXED_ROOM)) {
			pdo_putc_r(w, '[');
			pdo_hex_r(w, fr->dso_addr, 0);
			pdo_putc_r(w, ']');
		}
	}
}

/* "sym+0xoff (dso)" [srcline]; inline frames: "sym+0xoff [srcline] (inlined)". */
static void put_frame(pd_writer *w, name_cache *nc, const pd_script_write_options *o,
		      const pd_frame *fr)
{
	if (fr->symbol) {
		pdo_put_name(w, nc, fr->symbol);
		if (pdo_reserve(w, FIXED_ROOM)) {
			pdo_putn_r(w, "+0x", 3);
			pdo_hex_r(w, fr->symbol_offset, 0);
		}
	} else {
		pdo_putn(w, "[unknown]", 9);
	}
	if (!fr->inlined) {
		pdo_putn(w, " (", 2);
		pdo_put_name(w, nc, fr->dso ? fr->dso : "[unknown]");
		pdo_putn(w, ")", 1);
	}
	if (o->srcline)
		put_srcline(w, nc, o, fr);
	if (fr->inlined)
		pdo_putn(w, " (inlined)", 10);
}

static void put_header(pd_writer *w, name_cache *nc, const pd_script_write_options *o,
		       const pd_resolved_sample *rs, const char *event,
		       uint64_t sample_type, bool chain)
{
	const char *comm = rs->comm ? rs->comm : "";
	if (!chain) {
		/* perf's %16s: pad by bytes, as printf does */
		size_t n = strlen(comm);
		if (n < 16 && pdo_reserve(w, 16 - n)) {
			memset(w->p + w->len, ' ', 16 - n);
			w->len += 16 - n;
		}
	}
	pdo_put_escaped(w, comm);
	if (!pdo_reserve(w, FIXED_ROOM))
		return;
	pdo_putc_r(w, ' ');
	pdo_dec_r(w, rs->pid, 5, ' ', false);
	pdo_putc_r(w, '/');
	pdo_dec_r(w, rs->tid, 5, ' ', true);
	pdo_putc_r(w, ' ');
	if (sample_type & PD_SAMPLE_CPU) {
		pdo_putc_r(w, '[');
		pdo_dec_r(w, rs->cpu, 3, '0', false);
		pdo_putn_r(w, "] ", 2);
	}
	if (sample_type & PD_SAMPLE_TIME) {
		uint64_t secs = rs->time / 1000000000u;
		uint64_t nsecs = rs->time % 1000000000u;
		pdo_dec_r(w, secs, 5, ' ', false);
		pdo_putc_r(w, '.');
		if (o->ns)
			pdo_dec_r(w, nsecs, 9, '0', false);
		else
			pdo_dec_r(w, nsecs / 1000u, 6, '0', false);
		pdo_putn_r(w, ": ", 2);
	}
	pdo_dec_r(w, rs->period, 10, ' ', false);
	pdo_putc_r(w, ' ');
	pdo_put_name(w, nc, event ? event : "");
	pdo_putn(w, ": ", 2);
}

void pdo_script_text(pd_script_writer *sw, const pd_resolved_sample *rs, const char *event,
		     uint64_t sample_type)
{
	pd_writer *w = sw->w;
	name_cache *nc = &sw->names;
	const pd_script_write_options *o = &sw->o;
	bool chain = (sample_type & PD_SAMPLE_CALLCHAIN) != 0;
	put_header(w, nc, o, rs, event, sample_type, chain);
	if (!chain) {
		if (rs->nframes > 0 && pdo_reserve(w, FIXED_ROOM)) {
			pdo_putc_r(w, ' ');
			pdo_hex_r(w, rs->frames[0].addr, 16);
			pdo_putc_r(w, ' ');
			put_frame(w, nc, o, &rs->frames[0]);
		}
		pdo_putn(w, "\n", 1);
		return;
	}
	pdo_putn(w, "\n", 1);
	for (size_t i = 0; i < rs->nframes; i++) {
		const pd_frame *fr = &rs->frames[i];
		if (!pdo_reserve(w, FIXED_ROOM))
			return;
		pdo_putc_r(w, '\t');
		pdo_hex_r(w, fr->dso_addr, 16);
		pdo_putc_r(w, ' ');
		put_frame(w, nc, o, fr);
		pdo_putn(w, "\n", 1);
	}
	pdo_putn(w, "\n", 1);
}
