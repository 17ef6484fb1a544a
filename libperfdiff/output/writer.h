/*
 * The writer behind every output format (perfdiff/output.h's pd_writer):
 * a buffer that formats go into and that goes out to the caller's FILE or
 * write callback in large blocks.  `perfdiff script` writes one line per
 * frame and millions of frames per large recording: through printf and
 * stdio that took longer than reading and symbolizing the samples, so
 * numbers are converted by hand here and the buffer is written in blocks
 * of about PDO_FLUSH_AT bytes.
 *
 * The functions with `_r` ("reserved") write without checking the room:
 * the caller has called pdo_reserve() for at least their worst case, the
 * PDO_*_MAX sizes below.  A failed allocation or write sets `failed`
 * (sticky): every later write is dropped and pdo_status() reports it.
 */
#ifndef PD_OUTPUT_WRITER_H
#define PD_OUTPUT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "perfdiff/output.h"

/* Output goes out once about this much is buffered. */
#define PDO_FLUSH_AT (256u * 1024u)

#define PDO_DEC_MAX 20 /* digits of UINT64_MAX */
#define PDO_HEX_MAX 16

/* Deepest JSON nesting pd_json_* keeps track of (a bit per level). */
#define PDO_JSON_DEPTH 64

struct pd_writer {
	char *p;
	size_t len, cap;
	int failed;              /* 0, PD_ENOMEM or PD_EIO: sticky */
	int err_no;              /* errno of a failed FILE write */
	pd_write_fn fn;
	void *ctx;
	FILE *file;              /* the FILE of pd_writer_new_file(), else NULL */
	/* JSON structure (json.c): bit d of `nonempty`: level d has an item */
	uint64_t nonempty;
	unsigned depth;
	bool after_key;          /* a key was written, its value comes next */
	bool sep_done;           /* pd_json_newline() wrote the separator */
	bool html;               /* JSON strings also escape '<' (\u003C): inside an
	                            HTML <script> element "</script" must not occur */
};

/* Make room for `n` more bytes; false (and `failed` set) when it fails. */
bool pdo_grow(pd_writer *w, size_t n);

static inline bool pdo_reserve(pd_writer *w, size_t n)
{
	return w->cap - w->len >= n || pdo_grow(w, n);
}

/* Hand everything buffered to the callback; the writer's state after. */
int pdo_drain(pd_writer *w);

/* Drain once PDO_FLUSH_AT bytes are buffered, so that the buffer stays
 * small and writes go out in large blocks; 0 or the sticky error. */
static inline int pdo_flush_some(pd_writer *w)
{
	if (w->failed)
		return w->failed;
	return w->len >= PDO_FLUSH_AT ? pdo_drain(w) : 0;
}

/* 0, or the sticky error as a pd_error ("output: ..."). */
int pdo_status(const pd_writer *w, pd_error *err);

static inline void pdo_putc_r(pd_writer *w, char c)
{
	w->p[w->len++] = c;
}

static inline void pdo_putn_r(pd_writer *w, const char *s, size_t n)
{
	memcpy(w->p + w->len, s, n);
	w->len += n;
}

static inline void pdo_putc(pd_writer *w, char c)
{
	if (pdo_reserve(w, 1))
		pdo_putc_r(w, c);
}

static inline void pdo_putn(pd_writer *w, const char *s, size_t n)
{
	if (pdo_reserve(w, n))
		pdo_putn_r(w, s, n);
}

static inline void pdo_puts(pd_writer *w, const char *s)
{
	pdo_putn(w, s, strlen(s));
}

/* printf() into the buffer (for the few lines that are not hot). */
void pdo_printf(pd_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* `n` copies of `c`. */
void pdo_fill(pd_writer *w, char c, size_t n);

/*
 * printf's "%*" PRIu64 and "%0*" PRIu64 (pad with `pad`, ' ' or '0', to
 * `width` columns; `width` <= 32) and "%-*" PRIu64 (`left`: pad on the
 * right with spaces).  Room needed: max(width, PDO_DEC_MAX).
 */
void pdo_dec_r(pd_writer *w, uint64_t v, unsigned width, char pad, bool left);

/* "%" PRIu64, making its own room. */
void pdo_dec(pd_writer *w, uint64_t v);

/* printf's "%*" PRIx64 (lower case, space padded; `width` <= 32).  Room
 * needed: max(width, PDO_HEX_MAX). */
void pdo_hex_r(pd_writer *w, uint64_t v, unsigned width);

#endif
