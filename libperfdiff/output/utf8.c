/*
 * UTF-8 checking and the escaping of text lines (utf8.h).  Plain runs are
 * copied at once: names are nearly always plain, and `perfdiff script`
 * escapes several per frame.
 */
#include "utf8.h"

#include <stdint.h>
#include <string.h>

size_t pdo_utf8_seq_len(const unsigned char *p, size_t n)
{
	if (n == 0)
		return 0;
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	size_t len;
	/* The allowed range of the second byte is what excludes overlong
	 * forms, surrogates and values above U+10FFFF (Unicode table 3-7). */
	unsigned char lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

static size_t put_hex_bytes(char *dst, const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		dst[4 * i] = '\\';
		dst[4 * i + 1] = 'x';
		dst[4 * i + 2] = digits[p[i] >> 4];
		dst[4 * i + 3] = digits[p[i] & 15];
	}
	return 4 * n;
}

/* One sequence that is not plain ASCII at p[0..n); its escaped form at
 * `dst`.  *used gets the bytes it took. */
static size_t escape_one(char *dst, const unsigned char *p, size_t n, size_t *used)
{
	size_t l = pdo_utf8_seq_len(p, n);
	if (l == 0) {
		*used = 1;
		return put_hex_bytes(dst, p, 1);
	}
	*used = l;
	bool c0 = l == 1 && (p[0] < 0x20 || p[0] == 0x7F);
	/* C1 controls U+0080..U+009F are encoded C2 80..C2 9F. */
	bool c1 = l == 2 && p[0] == 0xC2 && p[1] < 0xA0;
	if (c0 || c1)
		return put_hex_bytes(dst, p, l);
	if (p[0] == '\\') {
		dst[0] = dst[1] = '\\';
		return 2;
	}
	memcpy(dst, p, l);
	return l;
}

size_t pdo_escape_to(char *dst, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, o = 0;
	while (i < n) {
		if (p[i] >= 0x20 && p[i] < 0x7F && p[i] != '\\') {
			i++;
			continue;
		}
		memcpy(dst + o, p + run, i - run);
		o += i - run;
		size_t used;
		o += escape_one(dst + o, p + i, n - i, &used);
		i += used;
		run = i;
	}
	memcpy(dst + o, p + run, i - run);
	return o + (i - run);
}

void pdo_put_escaped(pd_writer *w, const char *s)
{
	size_t n = strlen(s);
	if (n > SIZE_MAX / 4) {
		w->failed = PD_ENOMEM;
		return;
	}
	/* nothing to write: a fresh writer may have no buffer to offset yet */
	if (n && pdo_reserve(w, 4 * n))
		w->len += pdo_escape_to(w->p + w->len, s, n);
}

int pd_writer_text(pd_writer *w, const char *s)
{
	if (!w || !s)
		return PD_EINVAL;
	pdo_put_escaped(w, s);
	return pdo_flush_some(w);
}
