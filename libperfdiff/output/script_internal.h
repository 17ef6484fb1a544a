/*
 * The script writer's state (script.c) and its two layouts
 * (script_text.c, script_json.c).
 */
#ifndef PD_OUTPUT_SCRIPT_INTERNAL_H
#define PD_OUTPUT_SCRIPT_INTERNAL_H

#include "internal.h"
#include "namecache.h"

struct pd_script_writer {
	pd_writer *w;
	const pd_reader *reader;     /* the session's: event names */
	pd_script_write_options o;
	name_cache names;            /* valid while the session lives */
};

/*
 * Append one sample: `event` is the event name, `sample_type` (the
 * event's PD_SAMPLE_* bits) says whether CPU, TIME and CALLCHAIN were
 * sampled.
 */
void pdo_script_text(pd_script_writer *sw, const pd_resolved_sample *rs, const char *event,
		     uint64_t sample_type);
void pdo_script_json(pd_script_writer *sw, const pd_resolved_sample *rs, const char *event,
		     uint64_t sample_type);

/* `o` (NULL: the defaults) into `out`, its version and format checked:
 * 0 or PD_EINVAL (script.c; pprof_script.c too). */
int pdo_script_options(pd_script_write_options *out, const pd_script_write_options *o,
		       pd_error *err);

#endif
