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

static void put_hex_bytes(const unsigned char *p, size_t n, FILE *f)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "\\x%02x", p[i]);
}

void utf8_fput_escaped(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;
	while (i < n) {
		size_t l = utf8_seq_len(p + i, n - i);
		if (l == 0) {
			put_hex_bytes(p + i, 1, f);
			i++;
			continue;
		}
		bool c0 = l == 1 && (p[i] < 0x20 || p[i] == 0x7F);
		/* C1 controls U+0080..U+009F are encoded C2 80..C2 9F. */
		bool c1 = l == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0;
		if (c0 || c1)
			put_hex_bytes(p + i, l, f);
		else if (p[i] == '\\')
			fputs("\\\\", f);
		else
			fwrite(p + i, 1, l, f);
		i += l;
	}
}
