/*
 * perfdiff/session.h — samples with their address spaces rebuilt and every
 * frame named.
 *
 * A session reads a perf.data file (see reader.h), replays COMM, FORK, EXIT,
 * MMAP, MMAP2 and KSYMBOL records in timestamp order to rebuild each
 * process's maps and the kernel's, and hands out every sample with its call
 * chain resolved to (symbol, dso, source line, inline frames):
 *
 *     pd_session *s;
 *     pd_error err;
 *     if (pd_session_open(&s, "perf.data", NULL, &err) < 0) { ... }
 *     const pd_resolved_sample *rs;
 *     int rc;
 *     while ((rc = pd_session_next(s, &rs, &err)) == 0)
 *         for (size_t i = 0; i < rs->nframes; i++)
 *             printf("%s (%s)\n", rs->frames[i].symbol ? rs->frames[i].symbol
 *                                                      : "[unknown]",
 *                    rs->frames[i].dso);
 *     pd_session_free(s);
 *
 * Where code comes from:
 *   user ELF    by build-id: first the caller's `symbols_from`, in their
 *               order (build-id directories, perf archive tarballs,
 *               debuginfod servers by URL); then perf's build-id cache ($PERF_BUILDID_DIR or
 *               ~/.debug), /usr/lib/debug/.build-id, then the path in the
 *               MMAP record if its build-id matches; each under `symfs`.
 *               Separate debuginfo through libdwfl.  Last, the debuginfod
 *               servers of DEBUGINFOD_URLS, for the executable and the
 *               debug file (not with PD_SESSION_OFFLINE; one request at a
 *               time, none after a server failed: a hung one costs one
 *               DEBUGINFOD_TIMEOUT per try of DEBUGINFOD_RETRY_LIMIT).  A build-id mismatch is a warning and
 *               the dso's frames stay [unknown].  A `buildid_dir` that is a
 *               file is a `perf archive` tarball (.tar.bz2, .tar.xz,
 *               .tar.zst, .tar.gz), read in place in its stead: its symbol
 *               members are copied into unlinked temporary files ($TMPDIR)
 *               at the first lookup, checked by build-id like any file.
 *   kernel      `kallsyms` option, else the kallsyms of the recording's
 *               kernel build-id in the first of `symbols_from` that has
 *               it, else perf's cached kallsyms (or the
 *               tarball's) for the recording's kernel build-id, else
 *               /proc/kallsyms when the running kernel's build-id equals
 *               the recording's.  With a
 *               `vmlinux` of the recorded build-id, core kernel text is
 *               named from its symbol table instead (modules from kallsyms).
 *               Without `vmlinux` (and not PD_SESSION_OFFLINE), the
 *               recorded kernel's vmlinux is asked of the debuginfod
 *               servers (`symbols_from` URLs in order, then
 *               DEBUGINFOD_URLS) once per kernel build-id, its debug file
 *               then its executable, and used the same way when its
 *               build-id matches (a warning otherwise).  No kernel inline
 *               frames: its symbol table is read, not its DWARF.
 *   JIT         perf-PID.map files (`jit_dir`, default /tmp).
 *   BPF         names from KSYMBOL records.
 *
 * Frame addresses: every callchain entry after the first is a return
 * address; it is looked up at address − 1 so that a call to a noreturn
 * function is not credited to the next function.  PD_SESSION_PERF_COMPAT
 * turns that off, and drops C++ parameter lists from demangled names
 * ("ns::Box<long>::spin", not "ns::Box<long>::spin(int)"), to reproduce
 * perf's names exactly.
 *
 * Lifetime: a delivered sample and everything it points to stay valid
 * until the next pd_session_next() or pd_session_free(); symbol, dso and
 * file-name strings stay valid until pd_session_free().
 *
 * Threads: a session is used by one thread at a time.  It may run worker
 * threads of its own, as many at once as its options' `threads` allow
 * (PD_THREADS_DEFAULT: all of them; 0: none):
 *   prefetch  one per session, started by pd_session_open() when the
 *             recording lists its sampled dsos: it reads the kernel's
 *             symbol table and opens those dsos ahead of need; joined by
 *             pd_session_free();
 *   inflate   one while a separate debug file's compressed sections are
 *             inflated, started by the thread that opens the file (the
 *             prefetch thread, or the caller's in pd_session_next());
 *             joined before the file is used.
 * A thread that finds no room in the budget is not started and its work
 * is done on the thread that wanted it (without the prefetch thread, each
 * file is read when the first sample needs it): the samples delivered are
 * the same, only slower.
 */
#ifndef PERFDIFF_SESSION_H
#define PERFDIFF_SESSION_H

#include "reader.h"
/* Parts of the session's API that the stages below it use too, each in
 * the header of its stage (the library's folders, docs/architecture.md). */
#include "symcache.h"
#include "unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Session flags. */
enum pd_session_flag {
	PD_SESSION_NO_INLINE = 1u << 0,   /**< no inline frames */
	PD_SESSION_PERF_COMPAT = 1u << 1, /**< look up return addresses as perf does (no −1) and
	                                       demangle C++ without parameter lists, as perf */
	PD_SESSION_SRCLINE = 1u << 2,     /**< fill file:line of every frame */
	PD_SESSION_NO_DEMANGLE = 1u << 3, /**< keep C++/Rust names mangled */
	PD_SESSION_NO_INLINE_LINES = 1u << 4, /**< inline frames without file:line (srcfile
	                                       NULL, line 0) unless PD_SESSION_SRCLINE: a
	                                       line costs its CU's whole line table, so a
	                                       caller that shows no lines should set this */
	PD_SESSION_READ_AHEAD = 1u << 5,  /**< while the kernel's symbol table loads (reading
	                                       /proc/kallsyms costs the kernel ~50 ms), read on
	                                       and hold the samples (deep copies, up to 64 MB)
	                                       rather than wait at the first kernel frame: the
	                                       same samples in the same order, sooner.  The
	                                       warning, unresolved and truncated counts then
	                                       run ahead of the samples delivered. */
	PD_SESSION_OFFLINE = 1u << 6,     /**< ask no debuginfod server, whatever
	                                       DEBUGINFOD_URLS says */
};

/**
 * Options.  Initialise with PD_SESSION_OPTIONS_INIT or
 * pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION), then change
 * what you need.  pd_session_open() copies them; the strings and the symbol
 * cache they point to must outlive the session.
 *
 * Versions: a struct of an older version than PD_SESSION_OPTIONS_VERSION
 * (a program built against an older header) is accepted, the fields it
 * lacks taking their defaults; 0 or a newer version is PD_EINVAL.
 * Version 3 holds the reader's options by pointer and has `threads`:
 * versions 1 and 2, which held the reader's options by value, are refused
 * (PD_EINVAL).  Version 4 added the warning sink, version 5 the symbol
 * sources (`symbols_from`).
 */
typedef struct pd_session_options {
	unsigned int version;
	unsigned int flags;          /**< pd_session_flag bits */
	const pd_reader_options *reader; /**< how the file is read (copied when the
	                                  session opens); NULL: the defaults of
	                                  PD_READER_OPTIONS_INIT */
	const char *symfs;           /**< root prefixed to every file looked up, or NULL */
	const char *kallsyms;        /**< kallsyms file to use, or NULL */
	const char *buildid_dir;     /**< perf's build-id cache, or a perf archive tarball;
	                                  NULL: $PERF_BUILDID_DIR or ~/.debug */
	const char *jit_dir;         /**< where perf-PID.map files are; NULL: /tmp */
	unsigned max_stack;          /**< frames kept per sample (default 127, as perf) */
	const char *vmlinux;         /**< vmlinux ELF naming core kernel text, or NULL; used
	                                  only when its build-id is the recorded kernel's
	                                  (else a warning and kallsyms), relocated to the
	                                  recorded _text; modules still come from kallsyms */
	pd_unwinder unwinder;        /**< DWARF stack unwinder (default PD_UNWINDER_LIBDW) */
	pd_symcache *symcache;       /**< shared with other sessions, or NULL (default):
	                                  see pd_symcache_new() */
	unsigned threads;            /**< worker threads that may run at once beside the
	                                  caller's (see "Threads" above; a profile's:
	                                  profile.h); 0: none, all work on the caller's
	                                  thread, same results.  Default
	                                  PD_THREADS_DEFAULT */
	/* version 4 */
	pd_warn_fn warn;             /**< each of the session's warnings (those of
	                                  pd_session_warning()) as it is kept
	                                  (common.h), with the file's path; the
	                                  reader's go to `reader`'s own sink.
	                                  NULL (default): poll */
	void *warn_ctx;              /**< handed to `warn` */
	/* version 5 */
	const char *const *symbols_from; /**< the caller's symbol sources, searched in
	                                  this order before all others ("Where code
	                                  comes from" above): a directory is a build-id
	                                  cache laid out as perf's, a file a perf
	                                  archive tarball, an http:// or https:// URL
	                                  a debuginfod server (asked for
	                                  /buildid/ID/executable and /debuginfo
	                                  through libcurl, loaded at the first
	                                  request; DEBUGINFOD_TIMEOUT bounds each;
	                                  not asked with PD_SESSION_OFFLINE).  The
	                                  strings are copied when the session opens.
	                                  NULL (default): none */
	size_t nsymbols_from;        /**< entries in `symbols_from` */
} pd_session_options;

#define PD_SESSION_OPTIONS_VERSION 5

/** pd_session_options.threads by default: no limit, every thread the
 *  headers list starts where it helps (the fastest). */
#define PD_THREADS_DEFAULT (~0u)

/** The defaults, for C callers: `pd_session_options o = PD_SESSION_OPTIONS_INIT;`
 * (a compound literal; the fields not named are 0 or NULL). */
#define PD_SESSION_OPTIONS_INIT                                                \
	((pd_session_options){ .version = PD_SESSION_OPTIONS_VERSION,          \
			       .max_stack = 127,                               \
			       .unwinder = PD_UNWINDER_LIBDW,                  \
			       .threads = PD_THREADS_DEFAULT })

/**
 * Fill `opts` with the defaults of PD_SESSION_OPTIONS_INIT as far as
 * `version` went, and set `opts->version` to `version`; pass
 * PD_SESSION_OPTIONS_VERSION.  Only the fields of that version are written,
 * so that a program built against an older header, whose struct is smaller,
 * may run against a newer library.
 * @return 0, or PD_EINVAL for a NULL `opts` or a version this library does
 *         not know (nothing written)
 */
PD_EXTERN(int) pd_session_options_init(pd_session_options *opts, unsigned version);

/** One frame of a resolved sample, leaf first. */
typedef struct pd_frame {
	uint64_t addr;            /**< address as recorded */
	uint8_t cpumode;          /**< PD_CPUMODE_* the address was taken in */
	bool inlined;             /**< an inline frame: its caller follows with the same addr */
	const char *symbol;       /**< demangled function name, NULL when unknown */
	const char *raw_symbol;   /**< the name as in the ELF/kallsyms (mangled) */
	uint64_t symbol_offset;   /**< addr − symbol start (as perf prints it) */
	const char *dso;          /**< "/usr/lib/…/libc.so.6", "[kernel.kallsyms]", "[unknown]" */
	const char *srcfile;      /**< with PD_SESSION_SRCLINE (or for inline frames, unless
	                               PD_SESSION_NO_INLINE_LINES): file, else NULL */
	unsigned line;
	uint64_t dso_addr;        /**< the address within its dso as perf prints it: for a
	                               user map addr − start + pgoff; kernel: addr */
	const char *unit;         /**< for a function (not an inline frame) read with DWARF:
	                               the source file of its compilation unit (its
	                               DW_AT_name, e.g. "src/fs/select.c"), else NULL */
} pd_frame;

/** A sample with its process, thread and resolved call chain. */
typedef struct pd_resolved_sample {
	const pd_record *record;  /**< the SAMPLE record (record->u.sample) */
	int attr;                 /**< event index (pd_session_reader() + pd_reader_attr()) */
	uint32_t pid, tid, cpu;
	uint64_t time, period;
	const char *comm;         /**< thread name at the sample's time, or ":PID"; unlike
	                               the rest, valid until pd_session_free() */
	size_t nframes;
	const pd_frame *frames;   /**< leaf first; markers dropped; inline frames included */
} pd_resolved_sample;

typedef struct pd_session pd_session;

/**
 * Open `path` (anything pd_reader_open() takes) for symbolized reading.
 * `opts` (NULL: the defaults) and the reader options it points to are
 * copied.
 * @return 0, or a reader error code; `err` says which file and offset;
 *         PD_EINVAL for options of a version this library does not read.
 */
PD_EXTERN(int) pd_session_open(pd_session **out, const char *path,
			       const pd_session_options *opts, pd_error *err);

/** Free the session and everything it owns.  NULL is allowed. */
PD_EXTERN(void) pd_session_free(pd_session *s);

/**
 * The next sample, in timestamp order.
 * @return 0 with `*out` set; PD_ITEROVER at the end; a negative error code
 *         when the input is corrupt (samples before it were delivered).
 */
PD_EXTERN(int) pd_session_next(pd_session *s, const pd_resolved_sample **out,
			       pd_error *err);

/** The session's reader: header, events, warnings and counters. */
PD_EXTERN(const pd_reader *) pd_session_reader(const pd_session *s);

/** Warnings of the symbolizer (missing files, build-id mismatches, ...). */
PD_EXTERN(size_t) pd_session_warning_count(const pd_session *s);
PD_EXTERN(const char *) pd_session_warning(const pd_session *s, size_t i);
/** What warning `i` means (common.h): PD_WARN_UNVERIFIED, PD_WARN_NOT_FOUND,
 *  PD_WARN_MISMATCH or PD_WARN_OTHER; PD_WARN_OTHER when out of range. */
PD_EXTERN(pd_warning_kind) pd_session_warning_kind(const pd_session *s, size_t i);

/* Per-dso counts of sample leaf addresses that could not be named:
 * pd_unresolved_count, in unwind.h. */

/**
 * Unresolved leaf counts so far, one entry per dso with at least one
 * unresolved sample.  Valid until the next call into the session.
 */
PD_EXTERN(size_t) pd_session_unresolved(const pd_session *s,
					const pd_unresolved_count **out);

/**
 * Per-dso counts of DWARF-unwound user stacks (`perf record --call-graph
 * dwarf`) that stopped before their outermost frame: no unwind information
 * for a pc (JIT code, a missing binary), a stack copy too short for the
 * stack, or garbage registers.  Such a sample keeps the frames found so
 * far.  `dso` is the dso of the last frame found ("[unknown]" when it had
 * no map).  Valid until the next call into the session.
 */
PD_EXTERN(size_t) pd_session_truncated(const pd_session *s,
				       const pd_unresolved_count **out);

/**
 * Per-dso counts of samples whose call chain holds a value at or above
 * PD_CONTEXT_MAX that is no context marker: garbage a frame-pointer walk
 * picked up in code built without frame pointers (-1, say).  perf drops
 * such a chain whole ("invalid callchain context"), the sample keeping
 * its ip; so does PD_SESSION_PERF_COMPAT.  Otherwise the frames before
 * the garbage value are kept.  `dso` is that of the last frame kept.
 * Valid until the next call into the session.
 */
PD_EXTERN(size_t) pd_session_invalid_chains(const pd_session *s,
					    const pd_unresolved_count **out);

/**
 * Whether the sample pd_session_next() handed out last had its call chain
 * dropped, as perf drops a chain with garbage in it: under
 * PD_SESSION_PERF_COMPAT only the sample's own address is left, and perf
 * draws no call chain for the sample (see pd_cct_chainless()).
 */
PD_EXTERN(bool) pd_session_chain_dropped(const pd_session *s);

#ifdef __cplusplus
}
#endif

#endif
