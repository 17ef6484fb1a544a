/*
 * What the stages after the session (profile/) use of a pd_session beyond
 * perfdiff/session.h: a copy of its options, the files its frames were
 * named from, and kernel frames named late.  The session stage's interface (docs/architecture.md);
 * the rest of session/ (chain_memo.h, kcache.h, holdq.h) is its own.
 *
 * Kernel frames named late, and the samples held meanwhile.
 *
 * The kernel's symbol table is read ahead on the prefetch thread (see
 * symbols/prefetch.c): /proc/kallsyms costs the kernel ~50 ms of
 * formatting, and a system-wide recording reaches its first kernel frame
 * within the first few records, so the session would sit idle for most of
 * that.  With deferral on, a kernel address met while the table is still
 * loading becomes a pending frame instead (no symbol; everything else
 * already known), and the session reads on.  Its name depends only on the
 * table and on the kernel map of that moment, which the pending frame
 * keeps, so naming it later gives what naming it then would have.
 *
 * The samples that come out meanwhile must be held (their frames are only
 * valid until the next pd_session_next()).  One mechanism does that,
 * pd_session_hold(): it reads on, hands each sample to a keeper, looks now
 * and then whether the table is there, stops at the keeper's cap or the
 * end, and names the pending frames.  What is kept differs by user, so the
 * keeper is theirs: PD_SESSION_READ_AHEAD (`perfdiff script`) keeps deep
 * copies of whole samples (holdq.h) and hands them out in order; the
 * profile's pipeline keeps its packed records, what folding needs (32
 * bytes a frame against a deep copy's 88, and none of the 424-byte
 * pd_record: about a third of the memory, for samples that can number
 * tens of thousands).  Either then replaces each pending frame by
 * pd_session_named_kernel().  Off by default: every other user of
 * pd_session_next() sees named frames only.
 */
#ifndef PD_SESSION_SESSION_H
#define PD_SESSION_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "perfdiff/session.h"
#include "symbols/symfacts.h"
#include "util/threads.h"

/*
 * Session options as a later stage keeps them (the profile, for every
 * run): `src` (NULL: the defaults) imported over the defaults into `dst`
 * (util/'s version rule), max_stack 0 read as the default; with `reader`,
 * src's reader options are imported into it too and dst->reader points
 * there, so nothing of the caller's struct is needed after the call.
 * Strings and the symbol cache are still the caller's.  0 or PD_EINVAL
 * (a version the library does not read), the message under `file`.
 */
int pd_session_options_import(pd_session_options *dst, pd_reader_options *reader,
			      const pd_session_options *src, const char *file, pd_error *err);

/*
 * pd_session_open() with the thread budget of what opens the session (a
 * profile, whose producer and release threads take their slots from the
 * same budget), instead of one of its own made from opts->threads; NULL:
 * its own.  `threads` must outlive the session.
 */
int pd_session_open_in(pd_session **out, const char *path, const pd_session_options *opts,
		       pd_threads *threads, pd_error *err);

/*
 * The files session `s` named frames of `dso` (a pd_frame.dso string) from,
 * to `fn`: user dsos as the symbolizer found them (build-id cache, symfs,
 * recorded path; a build at several paths once per file set); kernel
 * dsos (`kernel`: frames in kernel mode) from the kallsyms file of each
 * kernel build named.  Nothing for a dso never looked up, whose files
 * were not found, or that is JIT, BPF or the vdso.  0 or fn's error.
 */
int pd_session_symbol_sources(pd_session *s, const char *dso, bool kernel, pd_symsrc_fn fn,
			      void *ctx);

/* Where session `s` found the symbols of `dso` (a pd_frame.dso string;
 * `kernel`: the kernel's table), for the footer; false when it never
 * looked (symbols/symfacts.h).  Strings valid until pd_session_free(). */
bool pd_session_symbol_origin(pd_session *s, const char *dso, bool kernel, pd_symorigin *out);

/*
 * The map frame `f` of process `pid`'s sample lies in, as the recording's
 * MMAP records (or the kernel's) laid it out now: its start, end and file
 * offset.  For the sample just delivered (or held), before the session
 * reads on: later records may move the maps.  False when no map holds the
 * frame (a user frame's map must also give its dso_addr).
 */
bool pd_session_frame_map(pd_session *s, uint32_t pid, const pd_frame *f, uint64_t *start,
			  uint64_t *end, uint64_t *pgoff);

/* From now on, kernel addresses met while the table loads are pending,
 * and the caller holds the samples with pd_session_hold() (the session's
 * own read-ahead is off). */
void pd_session_defer_kernel(pd_session *s);

/* Whether some pending frame is still unnamed. */
bool pd_session_kernel_deferred(const pd_session *s);

/*
 * Name every pending frame: 1 done (or nothing pending), 0 when the table
 * is still loading and `wait` is false, PD_ENOMEM.  After 1 no new pending
 * frame is made.
 */
int pd_session_name_kernel(pd_session *s, bool wait);

/* Whether `f` is a pending frame, and its id. */
bool pd_session_frame_pending(const pd_frame *f, uint32_t *id);

/* The named frame of pending frame `id`, once pd_session_name_kernel() has
 * returned 1; NULL for an id never given out. */
const pd_frame *pd_session_named_kernel(const pd_session *s, uint32_t id);

/* What a holder keeps of the samples read while the table loads. */
typedef struct pd_keeper pd_keeper;
struct pd_keeper {
	/* Keep what the holder needs of `rs` (valid during the call only; its
	 * kernel frames may be pending) and set `held` to the bytes kept in
	 * all.  0, or a negative code with `err` filled. */
	int (*keep)(pd_keeper *k, const pd_resolved_sample *rs, pd_error *err);
	void *ctx;       /* the holder's */
	size_t held;     /* bytes kept so far */
	size_t max;      /* at this many, read no further: wait for the table */
};

/*
 * `first`, just delivered, has a pending kernel frame
 * (pd_session_kernel_deferred() turned true with it): give it and every
 * sample after it to `k` until the kernel's table is there, k->held
 * reaches k->max or the input ends; then name the pending frames, waiting
 * for the table if need be.  The reader's end or error, if met, is kept:
 * the next pd_session_next() returns it.  0 (and nothing is pending any
 * more), k's error, or PD_ENOMEM.
 */
int pd_session_hold(pd_session *s, const pd_resolved_sample *first, pd_keeper *k,
		    pd_error *err);

/*
 * PD_SESSION_READ_AHEAD is the same, done by the session for any caller of
 * pd_session_next(): the samples are held as deep copies (the record's
 * bytes, stack copies included), at most this many bytes, then it waits
 * for the table.  /proc/kallsyms takes ~50 ms; a `--call-graph dwarf`
 * recording reads ~9 KB a sample at ~10 us a sample, ~45 MB in that time.
 */
#define PD_SESSION_AHEAD_MAX ((size_t)64 << 20)

/* For tests: hold at most `bytes` (a small cap makes the session wait in
 * mid-file and go on). */
void pd_session_set_read_ahead_max(pd_session *s, size_t bytes);

/* Samples the read-ahead has held so far. */
size_t pd_session_held(const pd_session *s);

#endif
