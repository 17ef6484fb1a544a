/*
 * JSON values and structure (json.h): escaping as jansson escapes, the
 * number forms of jansson's compact dump, and the commas of nested
 * objects and arrays kept as one bit per level in the writer.
 */
#include "json.h"

#include <math.h>
#include <stdio.h>

#include "utf8.h"

/* JSON's escapes as jansson writes them: the short forms where JSON has
 * one, else \u00XX with upper-case hex. */
static size_t escape_byte(char *o, unsigned char c)
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

/* The byte(s) at p[0..n) that are not plain ASCII, escaped or copied to
 * `o`; *used gets how many were taken. */
static size_t put_special(char *o, const unsigned char *p, size_t n, size_t *used)
{
	if (p[0] < 0x80) {
		*used = 1;
		return escape_byte(o, p[0]);
	}
	size_t l = pdo_utf8_seq_len(p, n);
	if (l == 0) {
		*used = 1;
		memcpy(o, "\xEF\xBF\xBD", 3);  /* U+FFFD */
		return 3;
	}
	*used = l;
	memcpy(o, p, l);
	return l;
}

void pdo_json_str(pd_writer *w, const char *s)
{
	if (!s) {
		pdo_putn(w, "null", 4);
		return;
	}
	size_t n = strlen(s);
	/* Worst case per byte: \u00XX (6), or U+FFFD (3) for an ill-formed one. */
	if (n > (SIZE_MAX - 2) / 6) {
		w->failed = PD_ENOMEM;
		return;
	}
	if (!pdo_reserve(w, 6 * n + 2))
		return;
	const unsigned char *p = (const unsigned char *)s;
	char *o = w->p + w->len;
	*o++ = '"';
	size_t i = 0, run = 0;
	while (i < n) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && (c != '<' || !w->html)) {
			i++;
			continue;
		}
		memcpy(o, p + run, i - run);
		o += i - run;
		size_t used;
		o += put_special(o, p + i, n - i, &used);
		i += used;
		run = i;
	}
	memcpy(o, p + run, i - run);
	o += i - run;
	*o++ = '"';
	w->len = (size_t)(o - w->p);
}

void pdo_json_u64(pd_writer *w, uint64_t v)
{
	if (!pdo_reserve(w, PDO_DEC_MAX + 2))
		return;
	bool str = v > (uint64_t)INT64_MAX;
	if (str)
		pdo_putc_r(w, '"');
	pdo_dec_r(w, v, 0, ' ', false);
	if (str)
		pdo_putc_r(w, '"');
}

void pdo_json_hex(pd_writer *w, uint64_t v)
{
	if (!pdo_reserve(w, PDO_HEX_MAX + 4))
		return;
	pdo_putn_r(w, "\"0x", 3);
	pdo_hex_r(w, v, 0);
	pdo_putc_r(w, '"');
}

/* jansson's jsonp_dtostr(): a '.' or an 'e' always (so that the value
 * reads back as a real), and no '+' or leading zeros in the exponent. */
static size_t real_text(char *buf, size_t size, double x)
{
	int r = snprintf(buf, size, "%.17g", x);
	size_t len = r > 0 && (size_t)r < size - 3 ? (size_t)r : 0;
	buf[len] = '\0';
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		memcpy(buf + len, ".0", 3);
		len += 2;
	}
	char *start = strchr(buf, 'e');
	if (start) {
		start++;
		char *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len + 1 - (size_t)(end - buf));
			len -= (size_t)(end - start);
		}
	}
	return len;
}

void pdo_json_real(pd_writer *w, double x)
{
	if (!isfinite(x)) {
		pdo_putn(w, "null", 4);
		return;
	}
	char buf[48];
	pdo_putn(w, buf, real_text(buf, sizeof buf, x));
}

void pdo_json_short(pd_writer *w, double x)
{
	if (!isfinite(x)) {
		pdo_putn(w, "null", 4);
		return;
	}
	char buf[32];
	int r = snprintf(buf, sizeof buf, "%.5g", x);
	pdo_putn(w, buf, r > 0 && (size_t)r < sizeof buf ? (size_t)r : 0);
}

/* ---- structure ---- */

static bool level_nonempty(const pd_writer *w)
{
	return w->depth < PDO_JSON_DEPTH && (w->nonempty >> w->depth & 1);
}

static void level_mark(pd_writer *w)
{
	if (w->depth < PDO_JSON_DEPTH)
		w->nonempty |= (uint64_t)1 << w->depth;
}

void pdo_json_item(pd_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->sep_done) {
		w->sep_done = false;
		return;
	}
	if (level_nonempty(w))
		pdo_putc(w, ',');
	level_mark(w);
}

void pdo_json_key(pd_writer *w, const char *key)
{
	pdo_json_item(w);
	size_t n = strlen(key);
	if (pdo_reserve(w, n + 3)) {
		pdo_putc_r(w, '"');
		pdo_putn_r(w, key, n);
		pdo_putn_r(w, "\":", 2);
	}
	w->after_key = true;
}

void pdo_json_raw(pd_writer *w, const char *text)
{
	pdo_json_item(w);
	pdo_puts(w, text);
}

void pdo_json_open(pd_writer *w, char c)
{
	pdo_json_item(w);
	pdo_putc(w, c);
	w->depth++;
	if (w->depth < PDO_JSON_DEPTH)
		w->nonempty &= ~((uint64_t)1 << w->depth);
}

void pdo_json_close(pd_writer *w, char c)
{
	w->depth--;
	w->sep_done = w->after_key = false;
	pdo_putc(w, c);
	pdo_flush_some(w);
}

static int open_level(pd_writer *w, char c)
{
	pdo_json_open(w, c);
	return w->failed;
}

static int close_level(pd_writer *w, char c)
{
	if (w->depth == 0)
		return PD_EINVAL;
	pdo_json_close(w, c);
	return w->failed;
}

int pd_json_begin_object(pd_writer *w)
{
	return w ? open_level(w, '{') : PD_EINVAL;
}

int pd_json_end_object(pd_writer *w)
{
	return w ? close_level(w, '}') : PD_EINVAL;
}

int pd_json_begin_array(pd_writer *w)
{
	return w ? open_level(w, '[') : PD_EINVAL;
}

int pd_json_end_array(pd_writer *w)
{
	return w ? close_level(w, ']') : PD_EINVAL;
}

int pd_json_key(pd_writer *w, const char *key)
{
	if (!w || !key)
		return PD_EINVAL;
	pdo_json_item(w);
	pdo_json_str(w, key);
	pdo_putc(w, ':');
	w->after_key = true;
	return w->failed;
}

int pd_json_string(pd_writer *w, const char *s)
{
	if (!w)
		return PD_EINVAL;
	pdo_json_item(w);
	pdo_json_str(w, s);
	return w->failed;
}

int pd_json_u64(pd_writer *w, uint64_t v)
{
	if (!w)
		return PD_EINVAL;
	pdo_json_item(w);
	pdo_json_u64(w, v);
	return w->failed;
}

int pd_json_i64(pd_writer *w, int64_t v)
{
	if (!w)
		return PD_EINVAL;
	pdo_json_item(w);
	pdo_printf(w, "%lld", (long long)v);
	return w->failed;
}

int pd_json_real(pd_writer *w, double x)
{
	if (!w)
		return PD_EINVAL;
	pdo_json_item(w);
	pdo_json_real(w, x);
	return w->failed;
}

int pd_json_bool(pd_writer *w, bool v)
{
	if (!w)
		return PD_EINVAL;
	pdo_json_raw(w, v ? "true" : "false");
	return w->failed;
}

int pd_json_null(pd_writer *w)
{
	if (!w)
		return PD_EINVAL;
	pdo_json_raw(w, "null");
	return w->failed;
}

int pd_json_hex(pd_writer *w, uint64_t v)
{
	if (!w)
		return PD_EINVAL;
	pdo_json_item(w);
	pdo_json_hex(w, v);
	return w->failed;
}

int pd_json_hex_bytes(pd_writer *w, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	if (!w || (!p && n))
		return PD_EINVAL;
	pdo_json_item(w);
	if (!pdo_reserve(w, 2 * n + 2))
		return w->failed;
	pdo_putc_r(w, '"');
	for (size_t i = 0; i < n; i++) {
		pdo_putc_r(w, digits[p[i] >> 4]);
		pdo_putc_r(w, digits[p[i] & 15]);
	}
	pdo_putc_r(w, '"');
	return w->failed;
}

void pdo_json_newline(pd_writer *w)
{
	if (level_nonempty(w) && !w->sep_done)
		pdo_putc(w, ',');
	pdo_putc(w, '\n');
	level_mark(w);
	w->sep_done = true;
}

int pd_json_newline(pd_writer *w)
{
	if (!w || w->after_key)
		return PD_EINVAL;
	pdo_json_newline(w);
	return w->failed;
}

void pdo_json_end(pd_writer *w)
{
	pdo_putc(w, '\n');
	w->depth = 0;
	w->nonempty = 0;
	w->sep_done = w->after_key = false;
	pdo_flush_some(w);
}

int pd_json_end(pd_writer *w)
{
	if (!w)
		return PD_EINVAL;
	pdo_json_end(w);
	return w->failed;
}

void pdo_json_key_str(pd_writer *w, const char *k, const char *v)
{
	pdo_json_key(w, k);
	pdo_json_item(w);
	pdo_json_str(w, v);
}

void pdo_json_key_u64(pd_writer *w, const char *k, uint64_t v)
{
	pdo_json_key(w, k);
	pdo_json_item(w);
	pdo_json_u64(w, v);
}

void pdo_json_key_real(pd_writer *w, const char *k, double x)
{
	pdo_json_key(w, k);
	pdo_json_item(w);
	pdo_json_real(w, x);
}

void pdo_json_key_bool(pd_writer *w, const char *k, bool v)
{
	pdo_json_key(w, k);
	pdo_json_raw(w, v ? "true" : "false");
}

void pdo_json_key_null(pd_writer *w, const char *k)
{
	pdo_json_key(w, k);
	pdo_json_raw(w, "null");
}
