/*
 * perf-PID.map files written by JITs (`START SIZE NAME` per line, hex START
 * and SIZE, NAME to the end of the line): the names of JIT-compiled code in
 * anonymous memory.
 */
#ifndef PD_SYMBOLS_JITMAP_H
#define PD_SYMBOLS_JITMAP_H

#include "perfdiff/common.h"
#include <stdbool.h>
#include <stddef.h>

typedef struct pd_jitsym {
	uint64_t start, end;
	const char *name;
} pd_jitsym;

typedef struct pd_jitmap pd_jitmap;

/* Parse map text; later lines win where ranges overlap (code is reused).
 * START and SIZE are hex with or without 0x; blanks around NAME are dropped;
 * a zero SIZE names just START (as perf).  Malformed lines are skipped and
 * counted.  0 or PD_ENOMEM. */
int pd_jitmap_parse(pd_jitmap **out, const char *text, size_t len);

/* Read `path`; PD_EIO when it cannot be read, PD_ELIMIT beyond 1 GiB (the
 * reason in `err` as pd_read_file() words it). */
int pd_jitmap_load(pd_jitmap **out, const char *path, pd_error *err);

void pd_jitmap_free(pd_jitmap *j);

/* The entry holding `addr`, or NULL. */
const pd_jitsym *pd_jitmap_find(const pd_jitmap *j, uint64_t addr);

size_t pd_jitmap_skipped_lines(const pd_jitmap *j);

#endif
