/*
 * Adding a run to a profile from something other than a perf.data file:
 * stacks of named frames with their sample counts, periods, commands and
 * time blocks, as an imported profile (pprof/) holds them.  The stage
 * after the profile decodes its format and calls these; the profile keeps
 * its tree, totals, stacks and blocks exactly as pd_profile_add_file()
 * would have folded the same samples.  Also what an exporter needs of an
 * event beyond the public API: its perf identity (type, config, PMU).
 * Part of the profile stage's interface (docs/architecture.md).
 */
#ifndef PD_PROFILE_BUILDER_H
#define PD_PROFILE_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/profile.h"

/* Frame flags as pd_pbuild_frame() takes them. */
enum pd_pbuild_flag {
	PD_PBUILD_INLINED = 1u << 0,
	PD_PBUILD_KERNEL = 1u << 1,
	PD_PBUILD_UNRESOLVED = 1u << 2,
};

/* What a run says of itself besides its samples (profile.h's run facts). */
typedef struct pd_pbuild_run {
	uint64_t span;         /* ns, pd_profile_run_span() */
	uint64_t start;        /* ns since the epoch, pd_profile_run_start(); 0 unknown */
	uint64_t lost, read;   /* pd_profile_lost(), pd_profile_run_samples_read() */
	bool truncated;        /* pd_profile_run_truncated() */
	uint64_t block_width;  /* a power of two >= 2^20, or 0: untimed */
	pd_run_info info;      /* pd_profile_run_info(): perf's header facts, NULL
	                        * unknown; copied by pd_pbuild_finish() */
} pd_pbuild_run;

typedef struct pd_pbuild pd_pbuild;

/* Start run `path` of `p`.  0 or PD_ENOMEM (in `err`, under `path`). */
int pd_pbuild_begin(pd_pbuild **out, pd_profile *p, const char *path, pd_error *err);

/* The profile's event for (type, config, pmu) in this run, made (named
 * `name`) when the profile has none this run has not claimed.  0, with
 * *ev -1 for an event a profile ignores (dummy), or PD_ENOMEM/PD_ELIMIT. */
int pd_pbuild_event(pd_pbuild *b, uint32_t type, uint64_t config, const char *pmu,
		    const char *name, int *ev);

/* The frame (symbol canonicalised as the profile's options say, dso,
 * pd_pbuild_flag bits, source unit or NULL) as an id for
 * pd_pbuild_stack().  0 or PD_ENOMEM/PD_ELIMIT. */
int pd_pbuild_frame(pd_pbuild *b, const char *sym, const char *dso, const char *unit,
		    unsigned flags, uint32_t *id);

/* The build-id (`len` bytes, 1 to 20) of `dso` in this run, as
 * pd_profile_dso_build_id() gives it.  0, PD_EINVAL or PD_ENOMEM. */
int pd_pbuild_build_id(pd_pbuild *b, const char *dso, const uint8_t *id, size_t len);

/* One stack of event `ev`: frames[0] the leaf, frames[n - 1] the
 * outermost, `samples` samples of `period` in all, of command `comm`, in
 * time block `block` (< 32).  n = 0 counts in the event's totals only, as
 * a sample without frames would not: callers skip those.  0, PD_EINVAL
 * (a bad id or block) or PD_ENOMEM/PD_ELIMIT. */
int pd_pbuild_stack(pd_pbuild *b, int ev, const uint32_t *frames, size_t n, const char *comm,
		    uint32_t block, uint64_t samples, uint64_t period);

/* End the run with its facts, then free `b`: the profile's views are
 * rebuilt.  0 or PD_ENOMEM in `err`. */
int pd_pbuild_finish(pd_pbuild *b, const pd_pbuild_run *r, pd_error *err);

/* Free `b` without finishing: the run stays, with what was added, as a
 * file that broke off does; the views are rebuilt.  NULL is allowed. */
void pd_pbuild_abort(pd_pbuild *b);

/* Event `ev`'s perf identity: 0, or PD_EINVAL out of range.  `pmu` may
 * be NULL (no PMU name known). */
int pd_profile_event_ident(const pd_profile *p, size_t ev, uint32_t *type, uint64_t *config,
			   const char **pmu);

#endif
