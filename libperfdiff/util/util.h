/*
 * Small shared helpers: byte order, an arena for strings and tables owned by
 * one object, a growable byte buffer, and pd_error formatting.  Internal to
 * libperfdiff; nothing here is exported.
 */
#ifndef PD_UTIL_H
#define PD_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perfdiff/common.h"

/* ---- byte order: reads from possibly unaligned memory, optional swap ---- */

static inline uint16_t pd_ld16(const void *p, bool swap)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t pd_ld32(const void *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t pd_ld64(const void *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return swap ? __builtin_bswap64(v) : v;
}

/* In-place conversion of a field to host order (no-op unless swap). */
static inline void pd_fix16(void *p, bool swap)
{
	if (swap) { uint16_t v = pd_ld16(p, true); memcpy(p, &v, sizeof v); }
}
static inline void pd_fix32(void *p, bool swap)
{
	if (swap) { uint32_t v = pd_ld32(p, true); memcpy(p, &v, sizeof v); }
}
static inline void pd_fix64(void *p, bool swap)
{
	if (swap) { uint64_t v = pd_ld64(p, true); memcpy(p, &v, sizeof v); }
}

/*
 * Bitfield words (attr flags) written on a host of the other byte order:
 * reversing the bits of each byte of the raw little-endian load gives the
 * host's bit numbering (perf does the same).
 */
uint64_t pd_bitfield_swap(uint64_t raw_le_load);

static inline uint64_t pd_align8(uint64_t v) { return (v + 7) & ~(uint64_t)7; }

/*
 * splitmix64's finaliser: every key bit reaches every slot bit, so keys that
 * differ only in low bits (pids, addresses, ids) spread before masking.
 * The one mixer of every hash table in the library.
 */
static inline uint64_t pd_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* ---- arena: many small allocations freed together ---- */

typedef struct pd_arena_chunk pd_arena_chunk;
typedef struct pd_arena {
	pd_arena_chunk *head;
	size_t used, cap;
} pd_arena;

/*
 * calloc() for a table that is about to be written all over: zeroed by
 * writing.  calloc maps a large block to the shared zero page, so a hash
 * table probed (read) before it is written faults twice per page, the
 * second time copying and flushing the TLBs of every other thread of the
 * process.  NULL when n * size overflows or memory is short.
 */
void *pd_zalloc_touched(size_t n, size_t size);

void pd_arena_init(pd_arena *a);
void pd_arena_free(pd_arena *a);
/* 8-byte aligned, zeroed; NULL on allocation failure. */
void *pd_arena_alloc(pd_arena *a, size_t n);
/* Copy of the first `n` bytes of `s` (stops at a NUL), NUL-terminated. */
char *pd_arena_strndup(pd_arena *a, const char *s, size_t n);
void *pd_arena_memdup(pd_arena *a, const void *p, size_t n);

/* ---- growable buffer ---- */

typedef struct pd_buf {
	uint8_t *data;
	size_t len, cap;
} pd_buf;

/* Make room for `extra` more bytes; 0 or PD_ENOMEM. */
int pd_buf_reserve(pd_buf *b, size_t extra);
int pd_buf_append(pd_buf *b, const void *p, size_t n);
/* Drop the first `n` bytes, moving the rest to the front. */
void pd_buf_consume(pd_buf *b, size_t n);
void pd_buf_free(pd_buf *b);

/* ---- files ---- */

/*
 * Read a whole file to EOF (not trusting st_size: /proc files report 0, a
 * JIT may still be appending).  At most `max` bytes: PD_ELIMIT beyond.
 * On success *data (malloc'd, caller frees) and *len are set; on failure
 * PD_EIO / PD_ENOMEM / PD_ELIMIT with the reason in `why` (may be NULL).
 */
int pd_read_file(const char *path, size_t max, char **data, size_t *len, char *why,
		 size_t why_size);

/* ---- options structs ---- */

/*
 * Copy the options struct `src` (its `unsigned version` first) over the
 * defaults already in `dst`: sizes[v] is how many bytes version v of the
 * struct had, for v = 1 .. current (sizes[0] unused; sizes[v] == 0: a
 * layout of version v that is no longer read); `current` is the library's
 * version, which `dst` then carries.  0, or PD_EINVAL for a version of 0,
 * above `current` or no longer read, the message "<what> version V, this
 * library knows A to B" under `file`.
 */
int pd_options_import(void *dst, const void *src, const size_t *sizes, unsigned current,
		      const char *what, const char *file, pd_error *err);

/* How far a struct went: the end of its field `last`. */
#define PD_OPTIONS_END(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* ---- errors ---- */

/*
 * Fill `err` (if non-NULL) with code, offset and a message of the form
 * "<file>: offset <offset>: <formatted text>" (the offset part is left out
 * for PD_NO_OFFSET).  Returns `code` so callers can `return pd_error_set(...)`.
 */
int pd_error_set(pd_error *err, int code, const char *file, uint64_t offset,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int pd_error_vset(pd_error *err, int code, const char *file, uint64_t offset,
		  const char *fmt, va_list ap);

#endif
