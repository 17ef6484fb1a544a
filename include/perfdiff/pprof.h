/*
 * perfdiff/pprof.h — profiles that travel: pprof's profile.proto out and in.
 *
 * A perf.data file is only understood where its binaries, kallsyms and
 * debug files still are.  A profile written as pprof (docs/pprof.md) is
 * folded and named once, is small, and is read by the profiling world's
 * tools (go tool pprof, Pyroscope, Parca, speedscope...) and again by
 * libperfdiff, which folds it into a run like any other: a diff of two
 * exports gives the rows and relations of the diff of the perf.data files.
 *
 *     pd_pprof_write_options wo;
 *     pd_pprof_write_options_init(&wo);
 *     pd_profile_write_pprof(p, f, &wo, &err);          // p: built as usual
 *     ...
 *     pd_profile_add_input(q, "run.pb.gz", &err);        // or perf.data
 *
 * What an export keeps, per event: the calling-context tree's stacks with
 * their sample counts and periods, split by command (label "comm") and by
 * time block (numeric label "block", the batch-means grid of profile.h),
 * the frames' names, dsos, kernel/inline/unresolved flags and source
 * units, the dsos' build-ids (Mapping.build_id), perf's header facts
 * (pd_profile_run_info(), as comments), and the run's start (time_nanos,
 * pd_profile_run_start()), span, lost and read samples.  A profile made
 * with PD_PROFILE_KEEP_SITES (as `perfdiff report --format=pprof` makes
 * it) also gives one Location per (mapping, instruction address) with its
 * inline chain as Lines, one Mapping per recorded map (start, end, file
 * offset), the raw (mangled) names as Function.system_name and "pid",
 * "tid" (and with PD_PROFILE_KEEP_CPU "cpu") labels; without it each
 * Location's address is synthesized, one per distinct inline chain of
 * frames.  Not kept: the symbol facts of profile.h (a profile read from
 * pprof answers UNKNOWN).
 *
 * Input is untrusted: inflated size, string table, entries and ids are
 * capped, and a dangling id or a string index out of range is an error
 * naming the message ("pprof: Sample 3: location_id 9 is no Location").
 * Foreign profiles (Go's runtime/pprof and others) are read with the
 * defaults docs/pprof.md lists.
 */
#ifndef PERFDIFF_PPROF_H
#define PERFDIFF_PPROF_H

#include <stdio.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of pd_profile_write_pprof().  Initialise with
 * pd_pprof_write_options_init(); versions as in output.h. */
typedef struct pd_pprof_write_options {
	unsigned int version;
	size_t run;              /**< the run to write; SIZE_MAX (default): every run
	                              summed into one profile */
	bool gzip;               /**< gzip the protobuf, as .pb.gz (default true) */
	const char *const *comments; /**< more comments (a command line...), copied */
	size_t ncomments;
} pd_pprof_write_options;

#define PD_PPROF_WRITE_OPTIONS_VERSION 1

/** Fill `o` with the defaults. */
PD_EXTERN(void) pd_pprof_write_options_init(pd_pprof_write_options *o);

/**
 * Write profile `p` (NULL `o`: the defaults) as pprof to `f`: per event a
 * sample type "samples"/"count" and one of the event's name and unit
 * ("cpu-clock"/"nanoseconds", "cycles"/"count"), the default sample type
 * the event pd_profile_default_event() picks; see docs/pprof.md.  Builds
 * the profile's views, hence not const.
 * @return 0, PD_EINVAL (bad options or run), PD_ENOMEM, PD_ELIMIT (more
 *         than the format holds) or PD_EIO (writing `f`)
 */
PD_EXTERN(int) pd_profile_write_pprof(pd_profile *p, FILE *f, const pd_pprof_write_options *o,
				      pd_error *err);

/**
 * As pd_profile_write_pprof(), into memory: `*out` (free() it) of `*len`
 * bytes.
 */
PD_EXTERN(int) pd_profile_write_pprof_buffer(pd_profile *p, void **out, size_t *len,
					     const pd_pprof_write_options *o, pd_error *err);

/**
 * Read the pprof file `path` (gzipped or not) as one more run of `p`.
 * Its events are matched to the profile's as perf.data events are (an
 * export keeps their perf identity; foreign sample types get one of their
 * own, docs/pprof.md).  0, or PD_EIO, PD_ENOTPERF (not pprof),
 * PD_ECORRUPT (malformed: the message names the message and field),
 * PD_ELIMIT (a cap), PD_ENOMEM.  A file that fails adds no run.
 */
PD_EXTERN(int) pd_profile_add_pprof(pd_profile *p, const char *path, pd_error *err);

/**
 * As pd_profile_add_pprof(), from `len` bytes at `buf`; `name` is the
 * run's path (pd_profile_run_path()) and what errors name.
 */
PD_EXTERN(int) pd_profile_add_pprof_buffer(pd_profile *p, const void *buf, size_t len,
					   const char *name, pd_error *err);

/**
 * Whether the first `n` bytes of a file look like pprof: gzip's magic, or
 * a protobuf field of Profile that is not perf.data's "PERFILE" magic.
 */
PD_EXTERN(bool) pd_pprof_detect(const void *head, size_t n);

/**
 * Read `path` as one more run of `p`, by its content: pprof
 * (pd_pprof_detect()) with pd_profile_add_pprof(), anything else, and
 * standard input ("-"), with pd_profile_add_file().
 */
PD_EXTERN(int) pd_profile_add_input(pd_profile *p, const char *path, pd_error *err);

#ifdef __cplusplus
}
#endif

#endif
