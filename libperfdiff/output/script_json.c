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
 * The fixed keys and punctuation are written as literals around json.h's
 * value encoders rather than through the structure layer: building and
 * dumping a jansson object per frame once cost more than symbolizing the
 * sample, and every byte per frame still counts.  The bytes are those of
 * every other JSON format (json.h).
 */
#include "script_internal.h"

/* Keys, punctuation and literals. */
static void key(pd_writer *w, const char *k)
{
	pdo_puts(w, k);
}

static void frame_json(pd_writer *w, name_cache *nc, const pd_frame *fr)
{
	key(w, "{\"addr\":");
	pdo_json_hex(w, fr->addr);
	key(w, ",\"dso_addr\":");
	pdo_json_hex(w, fr->dso_addr);
	key(w, ",\"symbol\":");
	pdo_json_name(w, nc, fr->symbol);
	key(w, ",\"raw_symbol\":");
	pdo_json_name(w, nc, fr->symbol ? fr->raw_symbol : NULL);
	key(w, ",\"offset\":");
	if (fr->symbol)
		pdo_json_u64(w, fr->symbol_offset);
	else
		key(w, "null");
	key(w, ",\"dso\":");
	pdo_json_name(w, nc, fr->dso ? fr->dso : "[unknown]");
	key(w, fr->inlined ? ",\"inlined\":true" : ",\"inlined\":false");
	bool line = fr->srcfile && fr->line;
	key(w, ",\"srcfile\":");
	pdo_json_name(w, nc, line ? fr->srcfile : NULL);
	key(w, ",\"line\":");
	if (line)
		pdo_json_u64(w, fr->line);
	else
		key(w, "null");
	key(w, ",\"unit\":");
	pdo_json_name(w, nc, fr->unit);
	pdo_putn(w, "}", 1);
}

void pdo_script_json(pd_script_writer *sw, const pd_resolved_sample *rs, const char *event,
		     uint64_t sample_type)
{
	pd_writer *w = sw->w;
	name_cache *nc = &sw->names;
	key(w, "{\"comm\":");
	pdo_json_str(w, rs->comm);
	key(w, ",\"pid\":");
	pdo_json_u64(w, rs->pid);
	key(w, ",\"tid\":");
	pdo_json_u64(w, rs->tid);
	key(w, ",\"cpu\":");
	if (sample_type & PD_SAMPLE_CPU)
		pdo_json_u64(w, rs->cpu);
	else
		key(w, "null");
	key(w, ",\"time\":");
	if (sample_type & PD_SAMPLE_TIME)
		pdo_json_u64(w, rs->time);
	else
		key(w, "null");
	key(w, ",\"period\":");
	pdo_json_u64(w, rs->period);
	key(w, ",\"event\":");
	pdo_json_name(w, nc, event);
	key(w, ",\"frames\":[");
	for (size_t i = 0; i < rs->nframes; i++) {
		if (i)
			pdo_putn(w, ",", 1);
		frame_json(w, nc, &rs->frames[i]);
	}
	pdo_putn(w, "]}\n", 3);
}
