/*
 * perfdiff/record.h — live capture: sampling stacks with BPF.
 *
 * A recording samples the running system (every process, or a set of
 * processes with the processes they fork) on a clock event at a set
 * frequency on every CPU.  A BPF program takes each sample's kernel and
 * user stacks and counts identical (pid, tid, command, kernel stack, user
 * stack) keys in the kernel; the recording drains that aggregate now and
 * then (pd_recorder_poll()) and at the end (pd_recorder_stop()), so user space
 * handles one entry per distinct stack instead of one record per sample.
 * Each process's executable maps are read from /proc/PID/maps as soon as
 * it is first sampled (the sampler tells of it on a ring buffer) and again
 * after an exec, the kernel's symbols from /proc/kallsyms, and the
 * binaries' build-ids from their ELF notes.
 *
 *     pd_recorder_options o;
 *     pd_recorder_options_init(&o, PD_RECORDER_OPTIONS_VERSION);
 *     o.freq = 2999;
 *     pd_recorder *r;
 *     if (pd_recorder_new(&r, &o, &err) < 0) ...      // loaded, not started
 *     pd_recorder_add_pid(r, child, &err);            // or o.system_wide
 *     pd_recorder_start(r, &err);
 *     while (...) { pd_recorder_wait(r, 250, &err); pd_recorder_poll(r, &err); }
 *     pd_recorder_stop(r, &err);
 *     pd_recorder_add_to_profile(r, profile, &err);   // then pd_profile_write_pprof()
 *     pd_recorder_free(r);
 *
 * What the recording gathered becomes a run of a profile exactly as a
 * perf.data recording of the same samples would (pd_recorder_write_perf()
 * writes that perf.data, in perf's pipe format, which is also what
 * pd_recorder_add_to_profile() reads), so every reader, report and the
 * pprof export treat it alike.
 *
 * Needs CAP_BPF and CAP_PERFMON (or root): pd_recorder_new() fails with
 * PD_EPERM and one sentence naming the capability that is missing.
 * A recording is used by one thread at a time.
 */
#ifndef PERFDIFF_RECORD_H
#define PERFDIFF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which stacks a sample takes (pd_recorder_options.stacks). */
typedef enum pd_recorder_stacks {
	PD_RECORDER_BOTH = 0,        /**< kernel and user (default) */
	PD_RECORDER_KERNEL_ONLY = 1, /**< the kernel stack only */
	PD_RECORDER_USER_ONLY = 2,   /**< the user stack only */
} pd_recorder_stacks;

/** Options of pd_recorder_new().  Initialise with PD_RECORDER_OPTIONS_INIT or
 * pd_recorder_options_init(&o, PD_RECORDER_OPTIONS_VERSION). */
typedef struct pd_recorder_options {
	unsigned int version;
	unsigned freq;             /**< samples a second on each CPU (default
	                                4000, perf's); 1 to 100000 */
	bool system_wide;          /**< every process; else only the pids
	                                added (pd_recorder_add_pid()) and the
	                                processes they fork */
	pd_recorder_stacks stacks;   /**< PD_RECORDER_BOTH */
} pd_recorder_options;

#define PD_RECORDER_OPTIONS_VERSION 1

/** The defaults: `pd_recorder_options o = PD_RECORDER_OPTIONS_INIT;`. */
#define PD_RECORDER_OPTIONS_INIT                                                 \
	((pd_recorder_options){ .version = PD_RECORDER_OPTIONS_VERSION, .freq = 4000 })

/**
 * Fill `o` with the defaults as far as `version` went (pass
 * PD_RECORDER_OPTIONS_VERSION).  0, or PD_EINVAL (NULL `o`, unknown
 * version; nothing written).
 */
PD_EXTERN(int) pd_recorder_options_init(pd_recorder_options *o, unsigned version);

typedef struct pd_recorder pd_recorder;

/**
 * Load the sampler into the kernel and open its perf events on every
 * online CPU, not yet enabled.  0, or PD_EPERM (a capability missing:
 * "sampling with BPF needs CAP_BPF (run as root, or with CAP_BPF and
 * CAP_PERFMON)"), PD_EUNSUPPORTED (the kernel refuses the program or the
 * event), PD_EINVAL (bad options) or PD_ENOMEM; `*out` is then NULL.
 */
PD_EXTERN(int) pd_recorder_new(pd_recorder **out, const pd_recorder_options *o, pd_error *err);

/**
 * Sample process `pid` (all its threads) and every process it forks from
 * now on.  Without system_wide, a recording samples nothing else.  0,
 * PD_ELIMIT (65536 processes) or PD_EIO.
 */
PD_EXTERN(int) pd_recorder_add_pid(pd_recorder *r, uint32_t pid, pd_error *err);

/** Enable the sampling (the recording's time starts here).  0 or PD_EIO. */
PD_EXTERN(int) pd_recorder_start(pd_recorder *r, pd_error *err);

/**
 * Wait up to `ms` milliseconds for processes sampled for the first time
 * (and for execs of those sampled before), reading their maps as each is
 * told of, so that a process that lives a few milliseconds is still there
 * to be read.  Returns early on a signal.  What to call between drains:
 *
 *     while (running) {
 *         for (int i = 0; i < 5; i++) pd_recorder_wait(r, 50, &err);
 *         pd_recorder_poll(r, &err);
 *     }
 *
 * 0 or PD_ENOMEM.
 */
PD_EXTERN(int) pd_recorder_wait(pd_recorder *r, int ms, pd_error *err);

/**
 * Move what the kernel has counted so far into the recording, reading the
 * maps of the processes seen for the first time that pd_recorder_wait()
 * has not read (call it every 100 to 500 ms: the kernel's maps are
 * finite).  0, PD_EIO or PD_ENOMEM.
 */
PD_EXTERN(int) pd_recorder_poll(pd_recorder *r, pd_error *err);

/** Stop sampling and drain the rest (pd_recorder_poll()).  Idempotent. */
PD_EXTERN(int) pd_recorder_stop(pd_recorder *r, pd_error *err);

/** What a recording has gathered (pd_recorder_stats_get()). */
typedef struct pd_recorder_stats {
	unsigned int version;
	uint64_t samples;          /**< samples counted and drained */
	uint64_t stacks;           /**< distinct keys drained (over every drain) */
	uint64_t lost_full;        /**< lost: the kernel's count map was full */
	uint64_t lost_collision;   /**< lost: another stack held the stack id */
	uint64_t lost_stack;       /**< lost: a stack could not be taken or read */
	uint64_t processes;        /**< processes whose maps were read */
	uint64_t duration_ns;      /**< from pd_recorder_start() to the stop (or now) */
	/** version 2: keys drained whose user stack came as (build-id, file
	 * offset) frames, taken while the process's maps were not read yet
	 * (a process gone before they were is named from these) */
	uint64_t bid_stacks;
} pd_recorder_stats;

#define PD_RECORDER_STATS_VERSION 2

/** Fill `out` as far as `version` went.  0 or PD_EINVAL. */
PD_EXTERN(int) pd_recorder_stats_get(const pd_recorder *r, pd_recorder_stats *out, unsigned version);

/**
 * Write what was gathered as a perf.data stream in perf's pipe format
 * (`perf report -i FILE` reads it): a cpu-clock or cycles event with
 * callchains, one SAMPLE per sample, COMM and MMAP2 records from the maps
 * read, the binaries' build-ids and lost samples as LOST_SAMPLES.  `name`
 * is what errors name.  0, PD_EIO or PD_ENOMEM.
 */
PD_EXTERN(int) pd_recorder_write_perf(pd_recorder *r, FILE *f, const char *name, pd_error *err);

/**
 * Add what was gathered as one more run of `p`, as pd_profile_add_file()
 * adds the perf.data pd_recorder_write_perf() writes (through a memory file
 * whose path, the run's, is `/proc/self/fd/N`): a profile made with
 * PD_PROFILE_KEEP_SITES then exports pids, tids, maps and build-ids to
 * pprof.  Errors as pd_profile_add_file()'s.
 */
PD_EXTERN(int) pd_recorder_add_to_profile(pd_recorder *r, pd_profile *p, pd_error *err);

/**
 * Forget the samples gathered so far (and the lost ones), keeping the
 * processes' maps and the binaries' build-ids, so that the next
 * pd_recorder_write_perf() or pd_recorder_add_to_profile() holds only
 * what is drained after this call: one profile per interval of a
 * continuous recording.  The stats count from here too, except
 * `processes`.
 */
PD_EXTERN(void) pd_recorder_clear(pd_recorder *r);

/** Detach and unload the sampler and free the recording.  NULL is allowed. */
PD_EXTERN(void) pd_recorder_free(pd_recorder *r);

#ifdef __cplusplus
}
#endif

#endif
