/*
 * The pd_pprof handle (perfdiff/pprof.h) shared by handle.c, which opens
 * it and answers for the Profile's fields, and walk.c, which gives its
 * samples one at a time with their frames.
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

#endif
