#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_seq_len(const unsigned char *p, size_t n)
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

bool utf8_is_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t l = utf8_seq_len(p + i, n - i);
		if (l == 0)
			return false;
		i += l;
	}
	return true;
}

char *utf8_sanitize(const char *s, size_t n, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	/* Each bad byte grows to 3 bytes; n is a length of bytes in memory, so
	 * 3n + 1 cannot overflow in practice, but check anyway. */
	if (n > (SIZE_MAX - 1) / 3)
		return NULL;
	char *out = malloc(3 * n + 1);
	if (!out)
		return NULL;
	size_t i = 0, o = 0;
	while (i < n) {
		size_t l = utf8_seq_len(p + i, n - i);
		if (l == 0) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, p + i, l);
			o += l;
			i += l;
		}
	}
	out[o] = '\0';
	if (outlen)
		*outlen = o;
	return out;
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

size_t utf8_escape_to(char *dst, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, o = 0;
	/* Plain runs are copied at once: names are nearly always plain, and
	 * `perfdiff script` escapes several per frame. */
	while (i < n) {
		if (p[i] >= 0x20 && p[i] < 0x7F && p[i] != '\\') {
			i++;
			continue;
		}
		memcpy(dst + o, p + run, i - run);
		o += i - run;
		size_t l = utf8_seq_len(p + i, n - i);
		if (l == 0) {
			o += put_hex_bytes(dst + o, p + i, 1);
			i++;
		} else {
			bool c0 = l == 1 && (p[i] < 0x20 || p[i] == 0x7F);
			/* C1 controls U+0080..U+009F are encoded C2 80..C2 9F. */
			bool c1 = l == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0;
			if (c0 || c1) {
				o += put_hex_bytes(dst + o, p + i, l);
			} else if (p[i] == '\\') {
				dst[o++] = '\\';
				dst[o++] = '\\';
			} else {
				memcpy(dst + o, p + i, l);
				o += l;
			}
			i += l;
		}
		run = i;
	}
	memcpy(dst + o, p + run, i - run);
	return o + (i - run);
}

static bool utf8_continuation(unsigned char c)
{
	return c >= 0x80 && c <= 0xBF;
}

void utf8_fput_escaped(const char *s, FILE *f)
{
	enum { CHUNK = 1024 };
	char out[4 * CHUNK];
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n > 0) {
		size_t k = n;
		if (k > CHUNK) {
			/* Cut before a byte that is not a continuation byte: no
			 * well-formed sequence then spans the cut, and a sequence
			 * cut short was ill-formed in the whole string too.  Four
			 * continuation bytes in a row cannot all belong to one
			 * sequence, so any cut among them is as good. */
			k = CHUNK;
			for (int back = 0; back < 3 && utf8_continuation(p[k]); back++)
				k--;
		}
		fwrite(out, 1, utf8_escape_to(out, (const char *)p, k), f);
		p += k;
		n -= k;
	}
}
