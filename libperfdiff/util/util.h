/*
 * Small shared helpers: byte order, an arena for strings and tables owned by
 * one object, growing arrays, a growable byte buffer, the warnings sink and
 * pd_error formatting.  Internal to libperfdiff; nothing here is exported.
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
/* The memory the arena's chunks hold. */
size_t pd_arena_bytes(const pd_arena *a);
/* 8-byte aligned, zeroed; NULL on allocation failure. */
void *pd_arena_alloc(pd_arena *a, size_t n);
/* Copy of the first `n` bytes of `s` (stops at a NUL), NUL-terminated. */
char *pd_arena_strndup(pd_arena *a, const char *s, size_t n);
void *pd_arena_memdup(pd_arena *a, const void *p, size_t n);

/* ---- growing arrays ---- */

/*
 * Room for `need` elements of `elem` bytes in the array whose pointer is
 * at `arr` (a T **, passed as void * so that any element type goes
 * without a cast) and whose capacity in elements is *cap: the capacity
 * doubles, from 16 at least, until `need` fits, so that n appends cost
 * O(n) copying.  0, or PD_ENOMEM with the array and *cap unchanged (the
 * size would overflow, or realloc failed).
 *
 *     if (pd_grow(&t->v, &t->cap, t->n + 1, sizeof *t->v) < 0)
 *         return PD_ENOMEM;
 *     t->v[t->n++] = x;
 */
int pd_grow_slow(void *arr, size_t *cap, size_t need, size_t elem);
/* Inline so that the common case, room already there, is one compare. */
static inline int pd_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	return need <= *cap ? 0 : pd_grow_slow(arr, cap, need, elem);
}

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
 * PD_EIO / PD_ENOMEM / PD_ELIMIT, the first and last with a reason that
 * starts with the path ("<path>: cannot open: ...") in `err`.
 */
int pd_read_file(const char *path, size_t max, char **data, size_t *len, pd_error *err);
/* The same from an open descriptor, which stays open; `path` names it in
 * the reasons. */
int pd_read_fd(int fd, const char *path, size_t max, char **data, size_t *len, pd_error *err);

/*
 * Open `path` for reading only if it is a regular file: a FIFO without a
 * writer would block the open, a device would read forever or act on the
 * open (the open is O_NONBLOCK, then fstat() decides).  0 with *fd (to
 * close; O_NONBLOCK cleared) and *size (NULL: not wanted), or PD_EIO (the
 * open failed) or PD_EINVAL (what it is instead: "<path>: a FIFO, not a
 * regular file"), the reason starting with the path, *fd -1.
 */
int pd_open_regular(const char *path, int *fd, uint64_t *size, pd_error *err);
/* What a file of st_mode `mode` is, as a noun for an error: "a FIFO",
 * "a character device", ... */
const char *pd_file_kind(unsigned mode);
/* strerror() of a failed open, except that ELOOP says "symbolic link
 * loop": a link that names itself, or links that name each other. */
const char *pd_open_strerror(int errnum);
/* A file no other process can see, open for reading and writing, gone
 * when closed: O_TMPFILE in $TMPDIR (or /tmp), or where the file system
 * lacks it, a mkostemp() file named after `tag` and unlinked at once.
 * The descriptor, or -1 with errno set. */
int pd_tmpfd(const char *tag);

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

/*
 * Fill the caller's options struct `opts` of version `version` with the
 * defaults in `defaults` (a whole struct of the library's version
 * `current`, `sizes` as above): only the sizes[version] bytes that version
 * had are written, since a program built against an older header has a
 * smaller struct, and `version` is what `opts` then carries.  0, or
 * PD_EINVAL without writing anything for a NULL `opts` or a version of 0,
 * above `current` or no longer read.  The pd_*_options_init() of every
 * options struct.
 */
int pd_options_init(void *opts, unsigned version, const void *defaults, const size_t *sizes,
		    unsigned current);

/* How far a struct went: the end of its field `last`. */
#define PD_OPTIONS_END(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* ---- warnings ---- */

/*
 * The one sink of warnings (util/warnings.c): what a stage tells the user
 * and reads on past (a file not found, a header section skipped, a cut
 * input), kept in order with its pd_warning_kind for the public
 * pd_*_warning() and pd_*_warning_kind() accessors.  Internal functions
 * that may warn take a pd_warnings * (NULL: their warnings are dropped);
 * failures stay pd_error.
 *
 * At most `max` warnings are kept (0: no limit), so that a hostile input
 * cannot make us store millions; later ones are only counted in `dropped`,
 * except PD_WARN_DATA_LOST: few (a lost tail ends a stream) and deciding
 * whether the input was read in full, they are never dropped for the cap.
 * A warning that finds no memory is counted in `dropped` too: a warning is
 * never worth failing the caller for, so no function here returns an error.
 */
typedef struct pd_warnings {
	char **v;              /* the messages, malloc'd */
	pd_warning_kind *kind; /* of each message, as long as v */
	size_t n, cap, max;
	uint64_t dropped;
	pd_warn_fn sink;       /* the caller's (public pd_warn_fn), or NULL */
	void *sink_ctx;
	const char *path;      /* handed to the sink: the input, or NULL */
} pd_warnings;

/* Formatted warnings keep at most PD_WARNING_MAX - 1 bytes: a sentence. */
#define PD_WARNING_MAX 1024

void pd_warnings_init(pd_warnings *w, size_t max);
/* Hand each warning kept from now on to `sink` (NULL: none) with `path`,
 * which must outlive `w`, as it is kept: on the thread that adds it, so
 * only for a pd_warnings filled on the caller's thread (see pd_warn_fn). */
void pd_warnings_set_sink(pd_warnings *w, pd_warn_fn sink, void *ctx, const char *path);
/* Frees the messages; `w` is empty (same max) afterwards. */
void pd_warnings_free(pd_warnings *w);
/* A copy of `msg`, whole (NULL: nothing). */
void pd_warnings_add(pd_warnings *w, pd_warning_kind kind, const char *msg);
/* The same, handed to the sink with `path` instead of w->path: for a
 * pd_warnings that gathers the warnings of several inputs. */
void pd_warnings_add_about(pd_warnings *w, pd_warning_kind kind, const char *path,
			   const char *msg);
void pd_warnings_addf(pd_warnings *w, pd_warning_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pd_warnings_vaddf(pd_warnings *w, pd_warning_kind kind, const char *fmt, va_list ap);
/* Formatted as pd_error_vset() formats an error: "file: offset N: text"
 * (no offset part for PD_NO_OFFSET), at most PD_ERROR_MESSAGE_MAX - 1 bytes. */
void pd_warnings_vat(pd_warnings *w, pd_warning_kind kind, const char *file, uint64_t offset,
		     const char *fmt, va_list ap);

static inline size_t pd_warnings_count(const pd_warnings *w)
{
	return w ? w->n : 0;
}
/* Warning i; NULL out of range. */
static inline const char *pd_warnings_get(const pd_warnings *w, size_t i)
{
	return w && i < w->n ? w->v[i] : NULL;
}
/* The kind of warning i; PD_WARN_OTHER out of range. */
static inline pd_warning_kind pd_warnings_kind_of(const pd_warnings *w, size_t i)
{
	return w && i < w->n ? w->kind[i] : PD_WARN_OTHER;
}

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

/*
 * The one convention for internal functions that can fail: return 0 or a
 * negative PD_E* code and, on failure only, fill the `pd_error *err` they
 * take last (NULL: the caller wants the code, not the words).  One that
 * knows the file and offset fills it with pd_error_set().  One that does
 * not (a decoder of a buffer, a parser of text, a loader whose caller
 * names the file in its own sentence) fills it with pd_error_reason(): the
 * code, PD_NO_OFFSET and the bare reason, no place.  The caller that knows
 * the place then either adds it with pd_error_wrap() or quotes
 * err->message in its own error or warning ("%s: %s; ... stay [unknown]").
 * Success writes nothing, so a pd_error on the stack of a hot loop costs
 * nothing until something fails: callers must not read it after a 0.
 * The one exception, PD_ENOMEM, may leave `err` as it was: an allocation
 * deep in a loader is not worth a sentence of its own, and the callers that
 * quote the message word it themselves ("cannot be read") after clearing
 * message[0] before the call.
 */
int pd_error_reason(pd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pd_error_vreason(pd_error *err, int code, const char *fmt, va_list ap);

/*
 * Put a place and a context in front of the reason in `err` (filled by a
 * failed call), as pd_error_set() words it: "<file>: offset <offset>:
 * <context>: <reason>", the offset part left out for PD_NO_OFFSET.  file
 * NULL: no place, for a caller that knows more than its callee but not
 * yet where; fmt NULL: no context.  Sets `code` and `offset` (PD_NO_OFFSET
 * without a file) and returns `code`.
 */
int pd_error_wrap(pd_error *err, int code, const char *file, uint64_t offset,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
