/*
 * `perfdiff script --format=json`: one object per sample,
 *
 *   {"comm", "pid", "tid", "cpu", "time", "period", "event",
 *    "frames": [{"addr", "dso_addr", "symbol", "raw_symbol", "offset", "dso", "inlined",
 *                "srcfile", "line", "unit"}]}
 *
 * Absent facts are null (cpu and time when the event does not sample them,
 * symbol/offset for an unknown symbol, srcfile/line when no line is known,
 * unit when no DWARF named the function's source file)
 * rather than missing keys, so every object has the same shape.
 *
 * Written by hand into the output buffer rather than built with jansson:
 * building and dumping a jansson object per frame cost more than
 * symbolizing the sample.  The bytes are those jansson's compact dump
 * writes (keys in this order, its string escapes, integers above INT64_MAX
 * as strings as jo_u64() makes them).
 */
#include "script.h"

/* Keys, punctuation and literals. */
static void key(outbuf *b, const char *k)
{
	ob_puts(b, k);
}

static void frame_json(outbuf *b, name_cache *nc, const pd_frame *fr)
{
	key(b, "{\"addr\":");
	ob_put_json_hex(b, fr->addr);
	key(b, ",\"dso_addr\":");
	ob_put_json_hex(b, fr->dso_addr);
	key(b, ",\"symbol\":");
	ob_put_json_name(b, nc, fr->symbol);
	key(b, ",\"raw_symbol\":");
	ob_put_json_name(b, nc, fr->symbol ? fr->raw_symbol : NULL);
	key(b, ",\"offset\":");
	if (fr->symbol)
		ob_put_json_u64(b, fr->symbol_offset);
	else
		key(b, "null");
	key(b, ",\"dso\":");
	ob_put_json_name(b, nc, fr->dso ? fr->dso : "[unknown]");
	key(b, fr->inlined ? ",\"inlined\":true" : ",\"inlined\":false");
	bool line = fr->srcfile && fr->line;
	key(b, ",\"srcfile\":");
	ob_put_json_name(b, nc, line ? fr->srcfile : NULL);
	key(b, ",\"line\":");
	if (line)
		ob_put_json_u64(b, fr->line);
	else
		key(b, "null");
	key(b, ",\"unit\":");
	ob_put_json_name(b, nc, fr->unit);
	ob_putn(b, "}", 1);
}

void script_json_sample(outbuf *b, name_cache *nc, const pd_resolved_sample *rs,
			const char *event, uint64_t sample_type)
{
	key(b, "{\"comm\":");
	ob_put_json_str(b, rs->comm);
	key(b, ",\"pid\":");
	ob_put_json_u64(b, rs->pid);
	key(b, ",\"tid\":");
	ob_put_json_u64(b, rs->tid);
	key(b, ",\"cpu\":");
	if (sample_type & PD_SAMPLE_CPU)
		ob_put_json_u64(b, rs->cpu);
	else
		key(b, "null");
	key(b, ",\"time\":");
	if (sample_type & PD_SAMPLE_TIME)
		ob_put_json_u64(b, rs->time);
	else
		key(b, "null");
	key(b, ",\"period\":");
	ob_put_json_u64(b, rs->period);
	key(b, ",\"event\":");
	ob_put_json_name(b, nc, event);
	key(b, ",\"frames\":[");
	for (size_t i = 0; i < rs->nframes; i++) {
		if (i)
			ob_putn(b, ",", 1);
		frame_json(b, nc, &rs->frames[i]);
	}
	ob_putn(b, "]}\n", 3);
}
