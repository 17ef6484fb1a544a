/*
 * The pd_pprof handle (perfdiff/pprof.h) shared by handle.c, which opens
 * it and answers for the Profile's fields, and walk.c, which gives its
 * samples one at a time with their frames; api.c imports into a profile
 * from a handle, so both read a message through the same checks.
 */
#ifndef PD_PPROF_HANDLE_H
#define PD_PPROF_HANDLE_H

#include "internal.h"

struct pd_pprof {
	pp_profile *m;               /* decoded and checked */
	pp_index ix;
	bool indexed;
	pd_pprof_sample cur;         /* the last pd_pprof_sample_at() */
	pd_frame *frames;            /* its frames, scratch */
	size_t cap_frames;
	uint64_t *values;            /* its values, one per sample type */
};

/* Read the pprof file `path` whole: a regular file of at most `cap`
 * bytes (what a message may inflate to) that starts as pprof does, else
 * an error naming the path before more than its first bytes are read.
 * Shared by import and the handle. */
int pp_read_file(const char *path, size_t cap, char **data, size_t *len, pd_error *err);
/* pd_pprof_open_buffer() within `caps`. */
int pp_open(pd_pprof **out, const void *buf, size_t len, const char *name,
	    const pp_caps *caps, pd_error *err);

#endif
