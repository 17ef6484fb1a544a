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
 *     pd_pprof_write_options_init(&wo, PD_PPROF_WRITE_OPTIONS_VERSION);
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
 * PD_PPROF_WRITE_OPTIONS_INIT or
 * pd_pprof_write_options_init(&o, PD_PPROF_WRITE_OPTIONS_VERSION);
 * versions as in output.h. */
typedef struct pd_pprof_write_options {
	unsigned int version;
	size_t run;              /**< the run to write; SIZE_MAX (default): every run
	                              summed into one profile */
	bool gzip;               /**< gzip the protobuf, as .pb.gz (default true) */
	const char *const *comments; /**< more comments (a command line...), copied */
	size_t ncomments;
} pd_pprof_write_options;

#define PD_PPROF_WRITE_OPTIONS_VERSION 1

/** The defaults, for C callers:
 * `pd_pprof_write_options o = PD_PPROF_WRITE_OPTIONS_INIT;` (a compound
 * literal; the fields not named are 0 or NULL). */
#define PD_PPROF_WRITE_OPTIONS_INIT                                            \
	((pd_pprof_write_options){ .version = PD_PPROF_WRITE_OPTIONS_VERSION,  \
				   .run = SIZE_MAX,                            \
				   .gzip = true })

/**
 * Fill `o` with the defaults of PD_PPROF_WRITE_OPTIONS_INIT as far as
 * `version` went, and set `o->version` to `version`; pass
 * PD_PPROF_WRITE_OPTIONS_VERSION.  Only the fields of that version are
 * written, so that a program built against an older header, whose struct is
 * smaller, may run against a newer library.
 * @return 0, or PD_EINVAL for a NULL `o` or a version this library does not
 *         know (nothing written)
 */
PD_EXTERN(int) pd_pprof_write_options_init(pd_pprof_write_options *o, unsigned version);

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
 * protobuf fields of Profile (each field complete within the first 4096
 * bytes has a Profile field's number and wire type), and no perf.data
 * magic (or its start).  Text and other binaries fail within a few bytes.
 */
PD_EXTERN(bool) pd_pprof_detect(const void *head, size_t n);

/** What an input holds, as pd_input_detect() tells by its first bytes. */
typedef enum pd_input_kind {
	PD_INPUT_PERF = 0,   /**< perf.data, or for the perf.data reader to judge */
	PD_INPUT_PPROF = 1,  /**< pprof (pd_pprof_detect()) */
} pd_input_kind;

/**
 * Which reader `path` needs, by its first 4096 bytes: PD_INPUT_PPROF for
 * pprof (pd_pprof_detect(); a file that ends inside a field is not, nor
 * is gzip that does not inflate to a Profile's fields); PD_INPUT_PERF for a perf.data magic (version
 * 2 "PERFILE2" in either byte order, or version 1 "PERFFILE"), and,
 * unread, for standard input ("-"), a directory (`perf record
 * --threads`), any other file that is not a regular one (a FIFO would
 * lose the bytes read ahead) and a file that cannot be opened: the
 * perf.data reader then says what it is.  Anything else, an empty file
 * included, is an error: PD_ENOTPERF, "PATH: offset 0: neither perf.data
 * nor pprof (...)"; PD_EIO when the file cannot be read.  Thread-safe.
 */
PD_EXTERN(int) pd_input_detect(const char *path, pd_input_kind *kind, pd_error *err);

/**
 * Read `path` as one more run of `p`, by its content (pd_input_detect()):
 * pprof with pd_profile_add_pprof(); perf.data, a directory and standard
 * input ("-") with pd_profile_add_file(); anything else is PD_ENOTPERF,
 * "neither perf.data nor pprof".
 */
PD_EXTERN(int) pd_profile_add_input(pd_profile *p, const char *path, pd_error *err);

/* ============================================================ reading as is */

/*
 * A pprof file held open as it is, rather than folded into a run of a
 * profile: what `perfdiff dump` and `perfdiff script` show of it.  The
 * file is decoded and checked as pd_profile_add_pprof() does it (same
 * caps, same errors), so every accessor below answers from a message
 * whose ids and string indexes are known good.  A string the file leaves
 * empty is "" (pprof's "none"), never NULL, for an index in range.
 *
 *     pd_pprof *pp;
 *     if (pd_pprof_open(&pp, "run.pb.gz", &err) < 0) ...
 *     for (size_t i = 0; i < pd_pprof_count(pp, PD_PPROF_SAMPLES); i++) {
 *         const pd_pprof_sample *s = pd_pprof_sample_at(pp, i, &err);
 *         ...  s->values[pd_pprof_default_type(pp)], s->frames[0].symbol
 *     }
 *     pd_pprof_free(pp);
 */
typedef struct pd_pprof pd_pprof;

/**
 * Open the pprof file `path` (gzipped or not).  0, or PD_EINVAL, PD_EIO,
 * PD_ENOTPERF (not pprof), PD_ECORRUPT (malformed: the message names the
 * message and field), PD_ELIMIT (a cap), PD_ENOMEM; `*out` is then NULL.
 */
PD_EXTERN(int) pd_pprof_open(pd_pprof **out, const char *path, pd_error *err);

/** As pd_pprof_open(), from `len` bytes at `buf` (copied as decoded);
 * `name` is what errors name. */
PD_EXTERN(int) pd_pprof_open_buffer(pd_pprof **out, const void *buf, size_t len,
				    const char *name, pd_error *err);

/** Free the handle and everything it gave out.  NULL is allowed. */
PD_EXTERN(void) pd_pprof_free(pd_pprof *pp);

/** Number of sample types (Profile.sample_type): values per sample. */
PD_EXTERN(size_t) pd_pprof_type_count(const pd_pprof *pp);
/** Type `i`'s name ("samples", "cpu-clock") and unit ("count",
 * "nanoseconds"); NULL for `i` out of range. */
PD_EXTERN(const char *) pd_pprof_type_name(const pd_pprof *pp, size_t i);
PD_EXTERN(const char *) pd_pprof_type_unit(const pd_pprof *pp, size_t i);
/** The type a viewer shows first, as go tool pprof picks it: the one
 * default_sample_type names, else the last; 0 when there is none. */
PD_EXTERN(size_t) pd_pprof_default_type(const pd_pprof *pp);
/** The sum of every sample's value of type `type` (0 out of range).  The
 * checks on open keep it within INT64_MAX. */
PD_EXTERN(uint64_t) pd_pprof_total(const pd_pprof *pp, size_t type);

/** The tables pd_pprof_count() counts. */
typedef enum pd_pprof_table {
	PD_PPROF_SAMPLES,
	PD_PPROF_LOCATIONS,
	PD_PPROF_FUNCTIONS,
	PD_PPROF_MAPPINGS,
	PD_PPROF_STRINGS,
} pd_pprof_table;

/** Number of entries of table `t` (0 for an unknown table). */
PD_EXTERN(size_t) pd_pprof_count(const pd_pprof *pp, pd_pprof_table t);

/** Profile.period_type (its type and unit, "" when absent) and .period;
 * any pointer may be NULL. */
PD_EXTERN(void) pd_pprof_period(const pd_pprof *pp, const char **type, const char **unit,
				int64_t *period);
/** Profile.time_nanos (the run's start, ns since the epoch; 0: unknown)
 * and .duration_nanos. */
PD_EXTERN(int64_t) pd_pprof_time_nanos(const pd_pprof *pp);
PD_EXTERN(int64_t) pd_pprof_duration_nanos(const pd_pprof *pp);
/** Number of comments, and comment `i` (NULL out of range). */
PD_EXTERN(size_t) pd_pprof_comment_count(const pd_pprof *pp);
PD_EXTERN(const char *) pd_pprof_comment(const pd_pprof *pp, size_t i);

/** One sample of a pd_pprof, as pd_pprof_sample_at() gives it.  Only the
 * library fills it: fields may be added at its end. */
typedef struct pd_pprof_sample {
	size_t nvalues;
	const uint64_t *values;   /**< one per sample type, in their order */
	const char *comm;         /**< label "comm", NULL without one */
	bool has_pid, has_tid, has_cpu; /**< whether labels "pid", "tid", "cpu" gave */
	uint32_t pid, tid, cpu;   /**< ... these (0 otherwise) */
	size_t nframes;
	const pd_frame *frames;   /**< leaf first: each Location's Lines innermost
	                               first, all but its last `inlined`; a
	                               Location without Lines is one frame with a
	                               NULL symbol.  symbol is Function.name (or
	                               system_name), raw_symbol system_name (or
	                               name), srcfile Function.filename, line
	                               Line.line; dso the Mapping's file or
	                               "[unknown]"; addr Location.address and
	                               dso_addr its offset in the mapped file for
	                               user mappings.  pprof has no symbol
	                               offset (symbol_offset 0), unit or time. */
} pd_pprof_sample;

/**
 * Sample `i` (0 .. pd_pprof_count(pp, PD_PPROF_SAMPLES) - 1), valid until
 * the next call or pd_pprof_free(); NULL with `err` for `i` out of range
 * (PD_EINVAL) or without memory (PD_ENOMEM).
 */
PD_EXTERN(const pd_pprof_sample *) pd_pprof_sample_at(pd_pprof *pp, size_t i, pd_error *err);

#ifdef __cplusplus
}
#endif

#endif
