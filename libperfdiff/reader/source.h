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
	bool window;
	uint64_t released;     /* bytes before this were handed back */
	uint64_t checked;      /* the cursor's chunk when last looked at */
	uint64_t keep_from;    /* queued records may point from here on */
	uint64_t last_round;   /* offset of the last FINISHED_ROUND */
} pd_source;

/* Open `path` (a file, or "-" for standard input); `no_mmap` reads even a
 * regular file as a stream.  A FIFO or socket is read as a stream (a FIFO
 * waits for its writer) unless `regular_only`; a device is refused
 * (PD_ENOTPERF), and nothing blocks in the open of a file refused. */
int pd_source_open(pd_source *s, const char *path, bool no_mmap, bool regular_only,
		   pd_error *err);
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

/* Chunks of 4 MB: big enough that madvise() is called rarely (256 times
 * a GB), small enough that the chunk being read is a sliver of the
 * memory budget. */
#define PD_WINDOW_SHIFT 22

/* Set up the window of a mapped source (nothing for a stream).
 * `ordered`: records are queued for timestamp order and point into the
 * map until their round has been delivered (pd_window_round()). */
void pd_window_init(pd_source *s, bool ordered);

/* A FINISHED_ROUND at `off`: once its flush is over, no queued record
 * lies before the previous round marker. */
static inline void pd_window_round(pd_source *s, uint64_t off)
{
	s->keep_from = s->last_round;
	s->last_round = off;
}

/* Reading goes on at `cursor`: hand back the chunks below both it and
 * keep_from.  Called for every record read, so it looks only when the
 * cursor enters another chunk, and that test is inline. */
void pd_window_release(pd_source *s, uint64_t cursor);
static inline void pd_window_advance(pd_source *s, uint64_t cursor)
{
	uint64_t cur = cursor >> PD_WINDOW_SHIFT;
	if (s->window && cur > s->checked) {
		s->checked = cur;
		pd_window_release(s, cursor);
	}
}

/* Hand back the whole pages of [from, to), read once (feature sections). */
void pd_window_drop(pd_source *s, uint64_t from, uint64_t to);

/* Total size when known (mmap'd file), else UINT64_MAX. */
static inline uint64_t pd_source_size(const pd_source *s)
{
	return s->is_stream ? UINT64_MAX : s->map_size;
}

#endif
