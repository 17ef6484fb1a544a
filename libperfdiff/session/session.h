/*
 * What the stages after the session (profile/) use of a pd_session beyond
 * perfdiff/session.h: the files its frames were named from, and kernel
 * frames named late.  The session stage's interface (docs/architecture.md);
 * the rest of session/ (chain_memo.h, kcache.h, holdq.h) is its own.
 *
 * Kernel frames named late, for a reader that can hold samples.
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
 * The caller holds the samples that came out meanwhile (their frames are
 * only valid until the next pd_session_next()), asks
 * pd_session_name_kernel() now and then, and, once it has answered 1,
 * replaces each pending frame by pd_session_named_kernel().  Off by
 * default: every other user of pd_session_next() sees named frames only.
 */
#ifndef PD_SESSION_SESSION_H
#define PD_SESSION_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "perfdiff/session.h"
#include "../symbols/symfacts.h"

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

/* From now on, kernel addresses met while the table loads are pending,
 * and the caller holds the samples (the session's own read-ahead, below,
 * is off). */
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
