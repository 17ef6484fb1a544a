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

/* Read a pprof file whole, refusing one larger than a message may inflate
 * to; the error names the path.  Shared by import and the handle. */
int pp_read_file(const char *path, char **data, size_t *len, pd_error *err);

#endif
