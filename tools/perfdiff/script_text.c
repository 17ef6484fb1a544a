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

#include "script.h"

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

static void put_srcline(outbuf *b, name_cache *nc, const script_text_opts *o,
			const pd_frame *fr)
{
	if (fr->srcfile && fr->line) {
		ob_putn(b, "\n  ", 3);
		ob_put_name(b, nc, o->full_path ? fr->srcfile
						: base_name(fr->srcfile));
		if (ob_reserve(b, FIXED_ROOM)) {
			ob_putc_r(b, ':');
			ob_dec_r(b, fr->line, 0, ' ', false);
		}
	} else if (!unmapped(fr)) {
		ob_putn(b, "\n  ", 3);
		ob_put_name(b, nc, base_name(fr->dso));
		if (ob_reserve(b, FIXED_ROOM)) {
			ob_putc_r(b, '[');
			ob_hex_r(b, fr->dso_addr, 0);
			ob_putc_r(b, ']');
		}
	}
}

/* "sym+0xoff (dso)" [srcline]; inline frames: "sym+0xoff [srcline] (inlined)". */
static void put_frame(outbuf *b, name_cache *nc, const script_text_opts *o,
		      const pd_frame *fr)
{
	if (fr->symbol) {
		ob_put_name(b, nc, fr->symbol);
		if (ob_reserve(b, FIXED_ROOM)) {
			ob_putn_r(b, "+0x", 3);
			ob_hex_r(b, fr->symbol_offset, 0);
		}
	} else {
		ob_putn(b, "[unknown]", 9);
	}
	if (!fr->inlined) {
		ob_putn(b, " (", 2);
		ob_put_name(b, nc, fr->dso ? fr->dso : "[unknown]");
		ob_putn(b, ")", 1);
	}
	if (o->srcline)
		put_srcline(b, nc, o, fr);
	if (fr->inlined)
		ob_putn(b, " (inlined)", 10);
}

static void put_header(outbuf *b, name_cache *nc, const script_text_opts *o,
		       const pd_resolved_sample *rs, const char *event,
		       uint64_t sample_type, bool chain)
{
	const char *comm = rs->comm ? rs->comm : "";
	if (!chain) {
		/* perf's %16s: pad by bytes, as printf does */
		size_t n = strlen(comm);
		if (n < 16 && ob_reserve(b, 16 - n)) {
			memset(b->p + b->len, ' ', 16 - n);
			b->len += 16 - n;
		}
	}
	ob_put_escaped(b, comm);
	if (!ob_reserve(b, FIXED_ROOM))
		return;
	ob_putc_r(b, ' ');
	ob_dec_r(b, rs->pid, 5, ' ', false);
	ob_putc_r(b, '/');
	ob_dec_r(b, rs->tid, 5, ' ', true);
	ob_putc_r(b, ' ');
	if (sample_type & PD_SAMPLE_CPU) {
		ob_putc_r(b, '[');
		ob_dec_r(b, rs->cpu, 3, '0', false);
		ob_putn_r(b, "] ", 2);
	}
	if (sample_type & PD_SAMPLE_TIME) {
		uint64_t secs = rs->time / 1000000000u;
		uint64_t nsecs = rs->time % 1000000000u;
		ob_dec_r(b, secs, 5, ' ', false);
		ob_putc_r(b, '.');
		if (o->ns)
			ob_dec_r(b, nsecs, 9, '0', false);
		else
			ob_dec_r(b, nsecs / 1000u, 6, '0', false);
		ob_putn_r(b, ": ", 2);
	}
	ob_dec_r(b, rs->period, 10, ' ', false);
	ob_putc_r(b, ' ');
	ob_put_name(b, nc, event ? event : "");
	ob_putn(b, ": ", 2);
}

void script_text_sample(outbuf *b, name_cache *nc, const script_text_opts *o,
			const pd_resolved_sample *rs, const char *event,
			uint64_t sample_type)
{
	bool chain = (sample_type & PD_SAMPLE_CALLCHAIN) != 0;
	put_header(b, nc, o, rs, event, sample_type, chain);
	if (!chain) {
		if (rs->nframes > 0 && ob_reserve(b, FIXED_ROOM)) {
			ob_putc_r(b, ' ');
			ob_hex_r(b, rs->frames[0].addr, 16);
			ob_putc_r(b, ' ');
			put_frame(b, nc, o, &rs->frames[0]);
		}
		ob_putn(b, "\n", 1);
		return;
	}
	ob_putn(b, "\n", 1);
	for (size_t i = 0; i < rs->nframes; i++) {
		const pd_frame *fr = &rs->frames[i];
		if (!ob_reserve(b, FIXED_ROOM))
			return;
		ob_putc_r(b, '\t');
		ob_hex_r(b, fr->dso_addr, 16);
		ob_putc_r(b, ' ');
		put_frame(b, nc, o, fr);
		ob_putn(b, "\n", 1);
	}
	ob_putn(b, "\n", 1);
}
