#include "outbuf.h"

#include <stdlib.h>

#include "utf8.h"

void ob_free(outbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

bool ob_grow(outbuf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->cap - b->len >= n)
		return true;
	size_t cap = b->cap ? b->cap : 1u << 16;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

int ob_flush(outbuf *b, FILE *f)
{
	if (b->oom)
		return -1;
	size_t n = b->len;
	b->len = 0;
	if (n && fwrite(b->p, 1, n, f) != n)
		return -1;
	return 0;
}

/* Two digits at a time: half the divisions of a digit-by-digit loop. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of `v`, right-aligned ending at `end`; returns the start. */
static char *dec_digits(char *end, uint64_t v)
{
	char *p = end;
	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;
		v /= 100;
		*--p = digit_pairs[i + 1];
		*--p = digit_pairs[i];
	}
	if (v >= 10) {
		unsigned i = (unsigned)v * 2;
		*--p = digit_pairs[i + 1];
		*--p = digit_pairs[i];
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

static void put_padded(outbuf *b, const char *s, size_t n, unsigned width,
		       char pad, bool left)
{
	size_t fill = width > n ? width - n : 0;
	char *o = b->p + b->len;
	if (left) {
		memcpy(o, s, n);
		memset(o + n, ' ', fill);
	} else {
		memset(o, pad, fill);
		memcpy(o + fill, s, n);
	}
	b->len += n + fill;
}

void ob_dec_r(outbuf *b, uint64_t v, unsigned width, char pad, bool left)
{
	char tmp[OB_DEC_MAX];
	char *s = dec_digits(tmp + sizeof tmp, v);
	put_padded(b, s, (size_t)(tmp + sizeof tmp - s), width, pad, left);
}

/* Hex digits of v: 1 for 0, else 16 - leading zero bits / 4. */
static unsigned hex_len(uint64_t v)
{
	return v ? 16 - (unsigned)__builtin_clzll(v) / 4 : 1;
}

void ob_hex_r(outbuf *b, uint64_t v, unsigned width)
{
	static const char digits[] = "0123456789abcdef";
	unsigned n = hex_len(v);
	char *o = b->p + b->len;
	if (width > n) {
		memset(o, ' ', width - n);
		o += width - n;
	}
	b->len = (size_t)(o + n - b->p);
	/* A byte (two digits) per step. */
	char *p = o + n;
	for (; p - o >= 2; v >>= 8) {
		*--p = digits[v & 15];
		*--p = digits[(v >> 4) & 15];
	}
	if (p > o)
		*--p = digits[v & 15];
}

void ob_put_escaped(outbuf *b, const char *s)
{
	size_t n = strlen(s);
	if (n > SIZE_MAX / 4) {
		b->oom = true;
		return;
	}
	if (ob_reserve(b, 4 * n))
		b->len += utf8_escape_to(b->p + b->len, s, n);
}

/* JSON's escapes as jansson writes them: the short forms where JSON has
 * one, else \u00XX with upper-case hex. */
static size_t json_escape_byte(char *o, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";
	char short_form = c == '"' ? '"' : c == '\\' ? '\\' : c == '\b' ? 'b'
			: c == '\f' ? 'f' : c == '\n' ? 'n' : c == '\r' ? 'r'
			: c == '\t' ? 't' : 0;
	o[0] = '\\';
	if (short_form) {
		o[1] = short_form;
		return 2;
	}
	memcpy(o + 1, "u00", 3);
	o[4] = hex[c >> 4];
	o[5] = hex[c & 15];
	return 6;
}

void ob_put_json_str(outbuf *b, const char *s)
{
	if (!s) {
		ob_putn(b, "null", 4);
		return;
	}
	size_t n = strlen(s);
	/* Worst case per byte: \u00XX (6), or U+FFFD (3) for an ill-formed one. */
	if (n > (SIZE_MAX - 2) / 6) {
		b->oom = true;
		return;
	}
	if (!ob_reserve(b, 6 * n + 2))
		return;
	const unsigned char *p = (const unsigned char *)s;
	char *o = b->p + b->len;
	*o++ = '"';
	size_t i = 0, run = 0;
	while (i < n) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		memcpy(o, p + run, i - run);
		o += i - run;
		if (c < 0x80) {
			o += json_escape_byte(o, c);
			i++;
		} else {
			size_t l = utf8_seq_len(p + i, n - i);
			if (l == 0) {
				memcpy(o, "\xEF\xBF\xBD", 3);
				o += 3;
				i++;
			} else {
				memcpy(o, p + i, l);
				o += l;
				i += l;
			}
		}
		run = i;
	}
	memcpy(o, p + run, i - run);
	o += i - run;
	*o++ = '"';
	b->len = (size_t)(o - b->p);
}

void ob_put_json_u64(outbuf *b, uint64_t v)
{
	if (!ob_reserve(b, OB_DEC_MAX + 2))
		return;
	bool str = v > (uint64_t)INT64_MAX;
	if (str)
		ob_putc_r(b, '"');
	ob_dec_r(b, v, 0, ' ', false);
	if (str)
		ob_putc_r(b, '"');
}

void ob_put_json_hex(outbuf *b, uint64_t v)
{
	if (!ob_reserve(b, OB_HEX_MAX + 4))
		return;
	ob_putn_r(b, "\"0x", 3);
	ob_hex_r(b, v, 0);
	ob_putc_r(b, '"');
}
