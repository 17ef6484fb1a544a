/*
 * The `dump` subcommand and the pieces it is made of: one text line or one
 * JSON object per record (dump_text.c, dump_json.c), the facts both share
 * (record_info.c), and the --stats report (stats.c).
 */
#ifndef PERFDIFF_CLI_DUMP_H
#define PERFDIFF_CLI_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_common.h"
#include "perfdiff/session.h"

int cmd_dump(int argc, char **argv);
void dump_usage(FILE *f);

/* ---- record_info.c ---- */

/* perf's type name, or "UNKNOWN" for a type this library cannot name. */
const char *rec_type_name(uint32_t type);
/* The record's time: its sample/sample_id_all time, else the time field
 * some record bodies carry (FORK, EXIT, THROTTLE).  False when none. */
bool rec_time(const pd_record *rec, uint64_t *t);
/* pid/tid from the record body when it has them, else the sample_id fields. */
bool rec_pid_tid(const pd_record *rec, int32_t *pid, int32_t *tid);
/* "kernel", "user", "hv", "guest-kernel", "guest-user", "unknown". */
const char *rec_cpumode_name(uint16_t misc);
/* Event name of the record's attr, or NULL when it has none. */
const char *rec_event_name(const pd_reader *r, const pd_record *rec);
/* Stream label for directory input: "data" or "data.N". */
void rec_stream_label(uint32_t stream, char *buf, size_t n);

/* ---- dump_text.c / dump_json.c ---- */

/* One line for `rec`; `show_stream` adds the stream column (directories). */
void dump_record_text(pd_writer *w, const pd_reader *r, const pd_record *rec,
		      bool show_stream);
/* One JSON line for `rec`. */
void dump_record_json(pd_writer *w, const pd_reader *r, const pd_record *rec,
		      bool show_stream);

/* ---- stats.c ---- */

/* Sample time range seen while reading (used when the file has no
 * SAMPLE_TIME feature, e.g. pipe mode). */
typedef struct stats_times {
	bool have;
	uint64_t first, last;
} stats_times;

void stats_times_add(stats_times *t, const pd_record *rec);

/* What symbolizing every sample's leaf found (stats_symbols.c).  A dso and
 * its count of samples (unresolved leaves, or truncated stacks). */
typedef struct stats_unresolved {
	char *dso;
	uint64_t samples;
} stats_unresolved;

typedef struct stats_symbols {
	uint64_t samples;            /* samples the session delivered */
	uint64_t resolved;           /* of those, with the leaf named */
	size_t nunresolved;
	stats_unresolved *unresolved; /* most samples first */
	uint64_t unwound;            /* samples with a user stack to unwind
	                                (--call-graph dwarf, user registers) */
	size_t ntruncated;
	stats_unresolved *truncated; /* of those, stopped before the outermost
	                                frame, by dso of the last frame found;
	                                most samples first */
	size_t ninvalid;
	stats_unresolved *invalid;   /* chains cut at a garbage value at or above
	                                PERF_CONTEXT_MAX, by dso of the last frame
	                                kept; most samples first */
	size_t nwarnings;
	char **warnings;             /* the symbolizer's (missing files, ...) */
	size_t nunverified;          /* of those, files used without a build-id
	                                check: not for --strict (cli_warn.c) */
	char *error;                 /* what stopped symbolizing, or NULL */
} stats_symbols;

/*
 * Read all samples of session `s`, counting resolved leaves, samples with
 * a user stack to unwind and (when `times` is not NULL) sample times, then
 * copy the session's unresolved and truncated-stack counts and warnings
 * into `out`.  Returns 0 when the input was read to the end, 1 when an
 * error stopped reading (in `err`, and its message in out->error), -1 when
 * memory ran out for the copies.
 */
int stats_symbols_run(pd_session *s, stats_symbols *out, stats_times *times,
		      pd_error *err);
void stats_symbols_free(stats_symbols *sym);

/*
 * Write the --stats report for what `r` has read.  `r` is NULL when the
 * input could not be opened (JSON then still gives an object with the
 * error).  `error` is the message of the error that stopped reading, or
 * NULL.  `sym` is NULL when symbols were not resolved (--no-symbols).
 * A write or memory failure stays in `w` until pd_writer_flush().
 */
void stats_print(pd_writer *w, pd_format fmt, const char *path, const pd_reader *r,
		 const stats_times *t, const char *error, const stats_symbols *sym);

#endif
