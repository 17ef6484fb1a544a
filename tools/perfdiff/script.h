/*
 * The `script` subcommand: every sample with its call chain named, in the
 * layout of `perf script` (script_text.c) or as JSON lines
 * (script_json.c).  script.c parses the options, filters samples and drives
 * the session.
 */
#ifndef PERFDIFF_CLI_SCRIPT_H
#define PERFDIFF_CLI_SCRIPT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_common.h"
#include "namecache.h"
#include "outbuf.h"
#include "perfdiff/session.h"

int cmd_script(int argc, char **argv);
void script_usage(FILE *f);

/* How a sample is laid out as text. */
typedef struct script_text_opts {
	bool srcline;          /* a "  file:line" line under each frame */
	bool full_path;        /* srcline with the file's full path */
	bool ns;               /* times with nanoseconds (perf script --ns) */
} script_text_opts;

/*
 * Append one sample as `perf script` prints it by default: a header line,
 * then one line per frame (or, for an event without call chains, the leaf
 * on the header line).  `event` is the event name; `sample_type` (the
 * event's PD_SAMPLE_* bits) says whether CPU, TIME and CALLCHAIN were
 * sampled.  Names are looked up in `nc`, which must not outlive the
 * session the sample comes from.
 */
void script_text_sample(outbuf *b, name_cache *nc, const script_text_opts *o,
			const pd_resolved_sample *rs, const char *event,
			uint64_t sample_type);

/* Append the sample as one line of JSON. */
void script_json_sample(outbuf *b, name_cache *nc, const pd_resolved_sample *rs,
			const char *event, uint64_t sample_type);

#endif
