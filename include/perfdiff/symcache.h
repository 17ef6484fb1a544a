/*
 * perfdiff/symcache.h — a symbol cache that sessions share.
 *
 * Part of session.h's API (session.h includes it): the cache belongs to
 * the library's symbols stage (libperfdiff/symbols/symcache.c), which sits
 * below the session and so does not include session.h.
 */
#ifndef PERFDIFF_SYMCACHE_H
#define PERFDIFF_SYMCACHE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A symbol cache several sessions share: what belongs to the machine and
 * its files rather than to one recording is then loaded once per process
 * instead of once per session.  That is the kernel's symbol table (the
 * kallsyms text, ~40 ms to read from /proc), and, when DWARF is wanted
 * (inline frames or source lines: the default), every dso's opened files
 * with their symbol tables and DWARF indexes (libc's separate debug file
 * alone is 4 MB of zlib that libdw inflates whole, ~40 ms, on first use;
 * ld.so's own compressed DWARF as long).  Worth it whenever a process
 * reads several recordings of one machine, as the runs of
 * `perfdiff A1 A2 -- B1 B2` are: each session gives the same results with
 * the cache as without it.
 *
 * What it keeps, and when a change on disk is noticed:
 *
 *  - An entry is keyed by the files it was read from (for a dso recorded
 *    with a build-id, the files of that build-id; else the path found) and
 *    by their identity on disk: device, inode, size and modification time
 *    (ns), checked with stat() each time a session looks the entry up.  A
 *    file replaced or rewritten since (a rebuilt binary, a new kallsyms
 *    copy) is a new entry, read anew; the old one goes once no session
 *    uses it.  A file that could not be read is remembered as such until
 *    its identity changes (it appears, say).
 *  - /proc/kallsyms has no size or time of its own: its table is keyed by
 *    the boot (/proc/sys/kernel/random/boot_id) and the list of loaded
 *    modules (/proc/modules, read on each look-up), and read again when
 *    either changes.  Kernel symbols that come and go without a module
 *    (BPF programs, trampolines) are not noticed; recordings name BPF
 *    programs by their own KSYMBOL records.
 *  - Entries are bounded by memory: `max_bytes` of pd_symcache_options,
 *    an estimate of each entry's size taken when it is loaded (the table's
 *    text and symbols; a dso's ELF sections as libdw holds them, inflated,
 *    and its symbol table).  Beyond it, the entries no session is using
 *    are dropped, least recently used first.  Entries in use are never
 *    dropped, so the cache may stand above its budget while the sessions
 *    that use them run (the bytes stat counts them).
 *
 * Sessions on different threads may share one cache at the same time;
 * the cache locks what it shares, and a table or file set asked for by
 * two sessions at once is loaded once, by the first (the second waits).
 * Free it after every session (and profile) that used it.  The cache
 * starts no thread: what it loads is loaded on the thread of the session
 * that asks first, within that session's thread budget (session.h).
 */
typedef struct pd_symcache pd_symcache;

/** How a pd_symcache is bounded (pd_symcache_new_opts()). */
typedef struct pd_symcache_options {
	unsigned version;     /**< PD_SYMCACHE_OPTIONS_VERSION */
	size_t max_bytes;     /**< memory the unused entries may hold; 0: no limit
	                           (default PD_SYMCACHE_MAX_BYTES_DEFAULT) */
} pd_symcache_options;

#define PD_SYMCACHE_OPTIONS_VERSION 1
/** The default budget: libc's and ld.so's DWARF and a kernel table take
 *  about 40 MB; room for a few such machines' worth. */
#define PD_SYMCACHE_MAX_BYTES_DEFAULT ((size_t)256 << 20)
#define PD_SYMCACHE_OPTIONS_INIT { PD_SYMCACHE_OPTIONS_VERSION, PD_SYMCACHE_MAX_BYTES_DEFAULT }

/**
 * Fill `opts` with the defaults as far as `version` went (pass
 * PD_SYMCACHE_OPTIONS_VERSION).  @return 0, or PD_EINVAL for NULL or a
 * version this library does not know (nothing written)
 */
PD_EXTERN(int) pd_symcache_options_init(pd_symcache_options *opts, unsigned version);

/** A new, empty cache with the default options.  @return 0 or PD_ENOMEM. */
PD_EXTERN(int) pd_symcache_new(pd_symcache **out, pd_error *err);

/**
 * A new, empty cache bounded by `opts` (NULL: the defaults).
 * @return 0, PD_ENOMEM, or PD_EINVAL for a version this library does not
 *         know (the message says which)
 */
PD_EXTERN(int) pd_symcache_new_opts(pd_symcache **out, const pd_symcache_options *opts,
				    pd_error *err);

/** Free the cache and all it holds.  NULL is allowed. */
PD_EXTERN(void) pd_symcache_free(pd_symcache *c);

/** What a cache holds and how it has served: kept once, used by every
 *  session given it. */
typedef struct pd_symcache_stats {
	size_t kernel_tables;  /**< kallsyms tables held (one per file, identity
	                            and naming mode) */
	size_t dsos;           /**< dsos' file sets held, opened */
	size_t failed;         /**< of both, those that could not be read */
	/* version 2 */
	uint64_t hits;         /**< look-ups that found their entry (loaded or
	                            being loaded by another session) */
	uint64_t misses;       /**< look-ups that loaded it */
	uint64_t evictions;    /**< entries dropped: for the budget, or stale
	                            (their file changed on disk) and unused */
	size_t bytes;          /**< the entries' estimated memory now */
	size_t max_bytes;      /**< the budget (0: none) */
} pd_symcache_stats;

/** The layout of pd_symcache_stats this header describes. */
#define PD_SYMCACHE_STATS_VERSION 2

/**
 * Fill `out` with what `c` holds now (zeros for NULL), as far as `version`
 * went (pass PD_SYMCACHE_STATS_VERSION): a field appended to the struct by
 * a later library is never written into a program's older one.
 * @return 0, or PD_EINVAL for a NULL `out` or a version this library does
 *         not know (nothing written)
 */
PD_EXTERN(int) pd_symcache_stats_get(pd_symcache *c, pd_symcache_stats *out, unsigned version);

#ifdef __cplusplus
}
#endif

#endif
