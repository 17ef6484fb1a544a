/*
 * kallsyms: the kernel's symbol list (`/proc/kallsyms` or perf's cached
 * copy), parsed into a table sorted by address with perf's alias rules.
 */
#ifndef PD_SYMBOLS_KALLSYMS_H
#define PD_SYMBOLS_KALLSYMS_H

#include "perfdiff/common.h"
#include <stdbool.h>
#include <stddef.h>

typedef struct pd_kallsym {
	uint64_t start, end;  /* end = next strictly higher address (last: next page) */
	const char *name;
	const char *module;   /* "ext4" for "[ext4]" entries, NULL for the core kernel */
	char type;            /* 'T', 't', 'W', 'w' */
} pd_kallsym;

typedef struct pd_kallsyms pd_kallsyms;

/*
 * Parse kallsyms text (`len` bytes, need not be NUL-terminated).  Keeps text
 * symbols (types T t W w), skips __pfx_/__cfi_ padding symbols (their bytes
 * go to the function before them), and picks one name per address as perf
 * 6.1 does: perf sizes symbols before dropping aliases, so only the LAST
 * alias in file order has a size and wins ("memset, __memset, __pi_memset"
 * → __pi_memset); the other rules of perf's choice (not weak > global >
 * fewer leading underscores > longer name) only decide when that last alias
 * is a SyS_/compat_SyS_ wrapper, which is never chosen when another name
 * exists.  End = next strictly higher address; the last symbol, and the
 * last one before a core-kernel/module crossing, end at
 * roundup(start, 4096) + 4096 as in perf.  Malformed lines are skipped and
 * counted (blank lines are neither).  Returns 0, PD_ENOMEM, or PD_ECORRUPT
 * when no line at all parses (the reason in `err`, without a place).
 */
int pd_kallsyms_parse(pd_kallsyms **out, const char *text, size_t len, pd_error *err);

/* Read (to EOF: /proc reports size 0) and parse a file; PD_EIO when it
 * cannot be read, PD_ELIMIT beyond 256 MiB.  The reason in `err` starts
 * with the path, as pd_read_file() words it. */
int pd_kallsyms_load(pd_kallsyms **out, const char *path, pd_error *err);

/*
 * Parse flags.  PD_KALLSYMS_KEEP_PADDING keeps __pfx_/__cfi_ padding symbols
 * as names, as perf 6.1 does (for --perf-compat): a return address that ends
 * a function calling a noreturn one is then named after the next function's
 * padding, e.g. __pfx_clear_bss.
 */
enum { PD_KALLSYMS_KEEP_PADDING = 1u << 0 };

/* pd_kallsyms_parse / pd_kallsyms_load with flags. */
int pd_kallsyms_parse_flags(pd_kallsyms **out, const char *text, size_t len, unsigned flags,
			    pd_error *err);
int pd_kallsyms_load_flags(pd_kallsyms **out, const char *path, unsigned flags, pd_error *err);

void pd_kallsyms_free(pd_kallsyms *k);
/* The memory `k` holds, about (its text and its sorted symbols). */
size_t pd_kallsyms_bytes(const pd_kallsyms *k);

/* The symbol containing `addr`, or NULL. */
const pd_kallsym *pd_kallsyms_find(const pd_kallsyms *k, uint64_t addr);

/* Address of a symbol by exact name (e.g. "_text", "_stext"; aliases that
 * lost the choice above count), the lowest if several; or false. */
bool pd_kallsyms_addr(const pd_kallsyms *k, const char *name, uint64_t *addr);

/* True when every address is 0 (kptr_restrict hid them). */
bool pd_kallsyms_all_zero(const pd_kallsyms *k);

/* Symbols find() can return: one per address. */
size_t pd_kallsyms_count(const pd_kallsyms *k);
size_t pd_kallsyms_skipped_lines(const pd_kallsyms *k);

/* Every name kept, aliases that lost the choice above included (for
 * "is this function in the table"): name_at(i) for i < name_count(),
 * in no particular order; NULL out of range. */
size_t pd_kallsyms_name_count(const pd_kallsyms *k);
const pd_kallsym *pd_kallsyms_name_at(const pd_kallsyms *k, size_t i);

#endif
