/*
 * Bytes of one input stream.  A regular file is mmap'd and every byte stays
 * addressable for the reader's lifetime (records can be delivered without
 * copying); window.c hands the pages behind the reader back to the kernel,
 * which reads them in again if they are touched.  Anything else (a pipe, a terminal, a socket) is read forward
 * into a buffer: only the bytes from the current offset on are kept, so a
 * pointer from pd_source_get() is valid until the next call.
 */
#ifndef PD_READER_SOURCE_H
#define PD_READER_SOURCE_H

#include "internal.h"

typedef struct pd_source {
	int fd;
	bool own_fd;
	const uint8_t *map;    /* mmap'd file, or NULL for a stream */
	uint64_t map_size;
	bool is_stream;
	pd_buf buf;            /* stream: bytes [base, base + buf.len) */
	uint64_t base;
	bool eof;
	int read_errno;        /* stream: errno of a failed read() */
	/* mapped file: the sliding window (window.c) */
	uint32_t *pins;        /* per chunk: records still pointed at */
	size_t nchunks;
	size_t released;       /* chunks below this were handed back */
} pd_source;

/* Open `path` (a file, or "-" for standard input); `no_mmap` reads even a
 * regular file as a stream. */
int pd_source_open(pd_source *s, const char *path, bool no_mmap, pd_error *err);
/* Use an open descriptor; the source closes it only when `own` is set. */
int pd_source_open_fd(pd_source *s, int fd, bool own, bool no_mmap, const char *name,
		      pd_error *err);
void pd_source_close(pd_source *s);

/*
 * Point `*p` at the bytes from offset `off` on and return how many are
 * available, up to at least `want` when the input has them (fewer only at
 * the end of input or on a read error).  For a stream, `off` must not go
 * backwards past bytes already dropped; everything before `off` may be
 * dropped by this call.
 */
size_t pd_source_get(pd_source *s, uint64_t off, size_t want, const uint8_t **p);

/* ---- window.c: how much of a mapped file stays resident ---- */

/* Set up the window of a mapped source (nothing for a stream). */
int pd_window_init(pd_source *s);
/* Chunks of 4 MB: big enough that madvise() is called rarely (256 times
 * a GB), small enough that the chunk being read is a sliver of the
 * memory budget. */
#define PD_WINDOW_SHIFT 22

/* A record at `off` is still pointed at / no longer is (every queued
 * record comes by here: inline). */
static inline void pd_window_pin(pd_source *s, uint64_t off)
{
	size_t c = (size_t)(off >> PD_WINDOW_SHIFT);
	if (s->pins && c < s->nchunks)
		s->pins[c]++;
}

static inline void pd_window_unpin(pd_source *s, uint64_t off)
{
	size_t c = (size_t)(off >> PD_WINDOW_SHIFT);
	if (s->pins && c < s->nchunks && s->pins[c] > 0)
		s->pins[c]--;
}
/* Reading goes on at `cursor`: hand back the chunks below it that no
 * pinned record lies in.  Cheap when nothing is to be handed back. */
void pd_window_advance(pd_source *s, uint64_t cursor);
/* Hand back the whole pages of [from, to), read once (feature sections). */
void pd_window_drop(pd_source *s, uint64_t from, uint64_t to);

/* Total size when known (mmap'd file), else UINT64_MAX. */
static inline uint64_t pd_source_size(const pd_source *s)
{
	return s->is_stream ? UINT64_MAX : s->map_size;
}

#endif
