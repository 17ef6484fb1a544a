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
 * kallsyms text, ~40 ms to read from /proc), and the files of dsos with a
 * separate debug file (libc's DWARF alone is 4 MB of zlib that libdw
 * inflates whole, ~40 ms, on first use) with their symbol tables and
 * DWARF indexes.  Worth it whenever a process reads several recordings of
 * one machine, as the runs of `perfdiff A1 A2 -- B1 B2` are: each session
 * gives the same results with the cache as without it.
 *
 * Sessions on different threads may share one cache at the same time;
 * the cache locks what it shares.  Free it after every session (and
 * profile) that used it.  The cache starts no thread: what it loads is
 * loaded on the thread of the session that asks first, within that
 * session's thread budget (session.h).
 */
typedef struct pd_symcache pd_symcache;

/** A new, empty cache.  @return 0 or PD_ENOMEM. */
PD_EXTERN(int) pd_symcache_new(pd_symcache **out, pd_error *err);

/** Free the cache and all it holds.  NULL is allowed. */
PD_EXTERN(void) pd_symcache_free(pd_symcache *c);

/** What a cache holds: loaded once, used by every session given it. */
typedef struct pd_symcache_stats {
	size_t kernel_tables;  /**< kallsyms tables (one per file and naming mode) */
	size_t dsos;           /**< dsos with a separate debug file, opened */
	size_t failed;         /**< of both, those that could not be read */
} pd_symcache_stats;

/** The layout of pd_symcache_stats this header describes. */
#define PD_SYMCACHE_STATS_VERSION 1

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
