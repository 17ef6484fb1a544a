/*
 * An output buffer for `perfdiff script`, which writes one line per frame
 * and millions of frames per large recording: through printf and stdio that
 * took longer than reading and symbolizing the samples.  Samples are
 * formatted here with hand-written number formatting and go out to the
 * FILE in large blocks.
 *
 * The functions with `_r` ("reserved") write without checking the room:
 * the caller has called ob_reserve() for at least their worst case, the
 * OB_*_MAX sizes below.  A failed allocation sets `oom`, after which every
 * write is dropped and ob_flush() reports the failure.
 */
#ifndef PERFDIFF_CLI_OUTBUF_H
#define PERFDIFF_CLI_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct outbuf {
	char *p;
	size_t len, cap;
	bool oom;
} outbuf;

#define OB_DEC_MAX 20 /* digits of UINT64_MAX */
#define OB_HEX_MAX 16

void ob_free(outbuf *b);

/* Make room for `n` more bytes; false (and `oom` set) when memory runs out. */
bool ob_grow(outbuf *b, size_t n);

static inline bool ob_reserve(outbuf *b, size_t n)
{
	return b->cap - b->len >= n || ob_grow(b, n);
}

/* Write everything buffered to `f`; -1 when that fails or memory ran out. */
int ob_flush(outbuf *b, FILE *f);

/* Flush once `threshold` bytes are buffered, so that the buffer stays small
 * and writes go out in large blocks. */
static inline int ob_flush_if(outbuf *b, FILE *f, size_t threshold)
{
	return b->len >= threshold ? ob_flush(b, f) : 0;
}

static inline void ob_putc_r(outbuf *b, char c)
{
	b->p[b->len++] = c;
}

static inline void ob_putn_r(outbuf *b, const char *s, size_t n)
{
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void ob_putn(outbuf *b, const char *s, size_t n)
{
	if (ob_reserve(b, n))
		ob_putn_r(b, s, n);
}

static inline void ob_puts(outbuf *b, const char *s)
{
	ob_putn(b, s, strlen(s));
}

/*
 * printf's "%*" PRIu64 and "%0*" PRIu64 (pad with `pad`, ' ' or '0', to
 * `width` columns; `width` ≤ 32) and "%-*" PRIu64 (`left`: pad on the
 * right with spaces).  Room needed: max(width, OB_DEC_MAX).
 */
void ob_dec_r(outbuf *b, uint64_t v, unsigned width, char pad, bool left);

/* printf's "%*" PRIx64 (lower case, space padded; `width` ≤ 32).  Room
 * needed: max(width, OB_HEX_MAX). */
void ob_hex_r(outbuf *b, uint64_t v, unsigned width);

/* `s` escaped as utf8_fput_escaped() does (printable UTF-8 as is, \xNN,
 * \\).  Makes its own room. */
void ob_put_escaped(outbuf *b, const char *s);

/* `s` as a JSON string with quotes, as jansson's compact dump of jo_str(s)
 * writes it: ill-formed UTF-8 bytes become U+FFFD, '"' '\\' and control
 * characters are escaped; NULL gives null.  Makes its own room. */
void ob_put_json_str(outbuf *b, const char *s);

/* jo_u64()'s value as jansson prints it: a number up to INT64_MAX, else a
 * string of the decimal digits.  Makes its own room. */
void ob_put_json_u64(outbuf *b, uint64_t v);

/* jo_hex(): "0x…" as a JSON string.  Makes its own room. */
void ob_put_json_hex(outbuf *b, uint64_t v);

#endif
