/*
 * A mail's text as the tables are read from it: lines of the decoded
 * body, each with the line of the file it starts on, so that an error
 * names the line the user sees in the file.
 *
 * Mails come as archives keep them: a header block (or none, when only
 * the body was saved), a body in 7bit, 8bit, quoted-printable or base64,
 * sometimes MIME multipart (the report and a "reproduce" attachment).
 * Quoted-printable is decoded before anything else looks at a line: a
 * soft break ("=" at the end) can fall in the middle of a key, and its
 * continuation line carries no quote markers of its own.  Text parts are
 * kept, other parts skipped; the Subject header is kept (RFC 2047
 * encoded words decoded) for the commit it names.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define MIME_DEPTH 4

typedef struct raw_lines {
	const char **s;
	size_t *len;
	size_t n, cap_s, cap_len;
} raw_lines;

static int split_lines(const char *raw, size_t len, raw_lines *out)
{
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(raw + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - raw) : len, l = end - at;
		if (l && raw[at + l - 1] == '\r')
			l--;
		if (pd_grow(&out->s, &out->cap_s, out->n + 1, sizeof *out->s) < 0 ||
		    pd_grow(&out->len, &out->cap_len, out->n + 1, sizeof *out->len) < 0)
			return PD_ENOMEM;
		out->s[out->n] = raw + at;
		out->len[out->n++] = l;
		at = nl ? end + 1 : len;
	}
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Quoted-printable s[0..n) appended to b; *soft set when the line ends in
 * a soft break (its continuation follows on the next line). */
static int qp_append(pd_buf *b, const char *s, size_t n, bool *soft)
{
	*soft = n && s[n - 1] == '=';
	if (*soft)
		n--;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int hi, lo;
		if (c == '=' && i + 2 < n && (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0) {
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (pd_buf_append(b, &c, 1) < 0)
			return PD_ENOMEM;
	}
	return 0;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Base64 s[0..n) decoded onto b (invalid characters skipped). */
static int b64_append(pd_buf *b, const char *s, size_t n)
{
	unsigned acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);
		if (v < 0)
			continue;
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			char c = (char)((acc >> bits) & 0xff);
			if (pd_buf_append(b, &c, 1) < 0)
				return PD_ENOMEM;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ headers */

typedef struct part_head {
	char ctype[128];     /* lower case, parameters cut */
	char boundary[128];
	char cte[32];        /* lower case */
	bool attachment;
	size_t body;         /* first line of the body */
} part_head;

/* Is line i of `r` a header line ("Name: value", no blank in the name)? */
static bool header_line(const raw_lines *r, size_t i)
{
	const char *s = r->s[i];
	size_t n = r->len[i], k = 0;
	while (k < n && s[k] != ':' && s[k] != ' ' && s[k] != '\t')
		k++;
	return k > 0 && k < n && s[k] == ':';
}

/* A header's unfolded value (lines from `i` on, continuation lines
 * starting with a blank) into buf; the line after it. */
static size_t header_value(const raw_lines *r, size_t i, size_t name_len, char *buf, size_t cap)
{
	size_t at = 0;
	for (size_t k = i; k < r->n; k++) {
		if (k > i && (r->len[k] == 0 || (r->s[k][0] != ' ' && r->s[k][0] != '\t')))
			return k;
		const char *s = r->s[k] + (k == i ? name_len + 1 : 0);
		size_t n = r->len[k] - (k == i ? name_len + 1 : 0);
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		if (at && at + 1 < cap)
			buf[at++] = ' ';
		for (size_t j = 0; j < n && at + 1 < cap; j++)
			buf[at++] = s[j];
		buf[at] = '\0';
	}
	return r->n;
}

/* The value of parameter `name` ("boundary") of a header value. */
static void param(const char *v, const char *name, char *out, size_t cap)
{
	out[0] = '\0';
	size_t nl = strlen(name);
	for (const char *p = v; (p = strcasestr(p, name)); p += nl) {
		if (p > v && p[-1] != ';' && p[-1] != ' ' && p[-1] != '\t')
			continue;
		const char *q = p + nl;
		while (*q == ' ')
			q++;
		if (*q != '=')
			continue;
		q++;
		bool quoted = *q == '"';
		q += quoted;
		size_t k = 0;
		while (*q && k + 1 < cap && (quoted ? *q != '"' : (*q != ';' && *q != ' ')))
			out[k++] = *q++;
		out[k] = '\0';
		return;
	}
}

static void lower_word(const char *v, char *out, size_t cap)
{
	size_t k = 0;
	while (v[k] && v[k] != ';' && v[k] != ' ' && k + 1 < cap) {
		char c = v[k];
		out[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	out[k] = '\0';
}

/* RFC 2047 encoded words of `v` decoded into `out` ("=?utf-8?q?...?="). */
static int decode_words(const char *v, pd_buf *out)
{
	const char *p = v;
	while (*p) {
		const char *ew = strstr(p, "=?");
		const char *q1 = ew ? strchr(ew + 2, '?') : NULL;
		const char *q2 = q1 && q1[1] && q1[2] == '?' ? q1 + 2 : NULL;
		const char *end = q2 ? strstr(q2 + 1, "?=") : NULL;
		if (!end)
			return pd_buf_append(out, p, strlen(p));
		/* blanks between two encoded words are not text */
		const char *lead = p;
		size_t lead_n = (size_t)(ew - p);
		bool blank = true;
		for (size_t i = 0; i < lead_n; i++)
			blank &= lead[i] == ' ' || lead[i] == '\t';
		if (!(blank && p != v && out->len) && pd_buf_append(out, lead, lead_n) < 0)
			return PD_ENOMEM;
		char enc = (char)(q1[1] | 0x20);
		const char *data = q2 + 1;
		size_t dn = (size_t)(end - data);
		int rc = 0;
		if (enc == 'b') {
			rc = b64_append(out, data, dn);
		} else {
			for (size_t i = 0; i < dn && rc == 0; i++) {
				char c = data[i] == '_' ? ' ' : data[i];
				int hi, lo;
				if (c == '=' && i + 2 < dn &&
				    (hi = hexval((unsigned char)data[i + 1])) >= 0 &&
				    (lo = hexval((unsigned char)data[i + 2])) >= 0) {
					c = (char)(hi << 4 | lo);
					i += 2;
				}
				rc = pd_buf_append(out, &c, 1);
			}
		}
		if (rc < 0)
			return rc;
		p = end + 2;
	}
	return 0;
}

/* The headers from line `i`: what the part is; the subject when asked. */
static size_t read_head(const raw_lines *r, size_t i, part_head *h, char **subject)
{
	memset(h, 0, sizeof *h);
	strcpy(h->ctype, "text/plain");
	char v[1024];
	while (i < r->n && r->len[i] > 0) {
		if (!header_line(r, i)) {
			i++;
			continue;
		}
		size_t nl = (size_t)((const char *)memchr(r->s[i], ':', r->len[i]) - r->s[i]);
		const char *name = r->s[i];
		size_t next = header_value(r, i, nl, v, sizeof v);
		if (nl == 12 && strncasecmp(name, "Content-Type", 12) == 0) {
			lower_word(v, h->ctype, sizeof h->ctype);
			param(v, "boundary", h->boundary, sizeof h->boundary);
		} else if (nl == 25 && strncasecmp(name, "Content-Transfer-Encoding", 25) == 0) {
			lower_word(v, h->cte, sizeof h->cte);
		} else if (nl == 19 && strncasecmp(name, "Content-Disposition", 19) == 0) {
			h->attachment = strncasecmp(v, "attachment", 10) == 0;
		} else if (subject && !*subject && nl == 7 && strncasecmp(name, "Subject", 7) == 0) {
			pd_buf b = { 0 };
			if (decode_words(v, &b) == 0 && pd_buf_append(&b, "", 1) == 0)
				*subject = (char *)b.data;
			else
				pd_buf_free(&b);
		}
		i = next;
	}
	h->body = i < r->n ? i + 1 : r->n;
	return h->body;
}

/* ------------------------------------------------------------ decoding */

typedef struct decoder {
	const raw_lines *r;
	lt_text *out;
	size_t *offs;        /* per output line: its offset in out->store */
	size_t cap_offs;
} decoder;

static int emit(decoder *d, size_t start_off, size_t lineno)
{
	lt_text *t = d->out;
	if (pd_grow(&t->v, &t->cap, t->n + 1, sizeof *t->v) < 0 ||
	    pd_grow(&d->offs, &d->cap_offs, t->n + 1, sizeof *d->offs) < 0)
		return PD_ENOMEM;
	d->offs[t->n] = start_off;
	t->v[t->n++] = (lt_line){ NULL, 0, lineno };
	return 0;
}

/* Lines [from, to) of a part whose transfer encoding is `cte`. */
static int decode_body(decoder *d, size_t from, size_t to, const char *cte)
{
	const raw_lines *r = d->r;
	pd_buf *st = &d->out->store;
	if (strcmp(cte, "base64") == 0) {
		pd_buf tmp = { 0 };
		int rc = 0;
		for (size_t i = from; i < to && rc == 0; i++)
			rc = b64_append(&tmp, r->s[i], r->len[i]);
		/* the decoded text's lines all point at the part's first line */
		size_t at = 0;
		while (rc == 0 && at < tmp.len) {
			const char *nl = memchr(tmp.data + at, '\n', tmp.len - at);
			size_t end = nl ? (size_t)((const uint8_t *)nl - tmp.data) : tmp.len;
			size_t off = st->len;
			rc = pd_buf_append(st, tmp.data + at, end - at);
			if (rc == 0)
				rc = emit(d, off, from + 1);
			at = end + 1;
		}
		pd_buf_free(&tmp);
		return rc;
	}
	bool qp = strcmp(cte, "quoted-printable") == 0;
	for (size_t i = from; i < to; i++) {
		size_t off = st->len, first = i;
		bool soft = false;
		int rc = 0;
		do {
			if (qp)
				rc = qp_append(st, r->s[i], r->len[i], &soft);
			else
				rc = pd_buf_append(st, r->s[i], r->len[i]);
		} while (rc == 0 && soft && ++i < to);
		if (rc < 0 || (rc = emit(d, off, first + 1)) < 0)
			return rc;
	}
	return 0;
}

/* The part whose headers start at line `i` and which ends at `end`. */
static int decode_part(decoder *d, size_t i, size_t end, int depth, char **subject)
{
	const raw_lines *r = d->r;
	part_head h;
	size_t body = header_line(r, i) ? read_head(r, i, &h, subject) : i;
	if (body == i)
		memset(&h, 0, sizeof h), strcpy(h.ctype, "text/plain");
	if (body > end)
		body = end;
	if (strncmp(h.ctype, "multipart/", 10) == 0 && h.boundary[0] && depth < MIME_DEPTH) {
		size_t bl = strlen(h.boundary), start = SIZE_MAX;
		for (size_t k = body; k <= end; k++) {
			bool at_end = k == end;
			bool delim = !at_end && r->len[k] >= bl + 2 && r->s[k][0] == '-' &&
				     r->s[k][1] == '-' && memcmp(r->s[k] + 2, h.boundary, bl) == 0;
			if (!delim && !at_end)
				continue;
			if (start != SIZE_MAX) {
				int rc = decode_part(d, start, k, depth + 1, NULL);
				if (rc < 0)
					return rc;
			}
			if (at_end || (r->len[k] >= bl + 4 && r->s[k][bl + 2] == '-'))
				break;
			start = k + 1;
		}
		return 0;
	}
	if ((strncmp(h.ctype, "text/", 5) != 0 && h.ctype[0]) || h.attachment)
		return 0;
	return decode_body(d, body, end, h.cte);
}

/* Does the text start with a mail's headers: "Name: value" lines, one
 * of them a header every mail has?  A body saved alone may start with a
 * line like "commit: ..." too. */
static bool has_headers(const raw_lines *r, size_t from)
{
	static const char *const names[] = { "From:", "Subject:", "Date:", "Message-ID:",
					     "Message-Id:", "Content-Type:", "Received:",
					     "Return-Path:", "To:" };
	for (size_t i = from; i < r->n && r->len[i] > 0; i++) {
		if (!header_line(r, i) && r->s[i][0] != ' ' && r->s[i][0] != '\t')
			return false;
		for (size_t k = 0; k < sizeof names / sizeof *names; k++)
			if (r->len[i] >= strlen(names[k]) &&
			    strncasecmp(r->s[i], names[k], strlen(names[k])) == 0)
				return true;
	}
	return false;
}

/* Lines of quoted-printable text with no header to say so: a reply
 * pasted whole, or a body saved without its headers. */
static bool looks_qp(const raw_lines *r, size_t from)
{
	size_t soft = 0, esc = 0;
	for (size_t i = from; i < r->n; i++) {
		soft += r->len[i] && r->s[i][r->len[i] - 1] == '=';
		const char *e = memmem(r->s[i], r->len[i], "=20", 3);
		esc += e || memmem(r->s[i], r->len[i], "=3D", 3) || memmem(r->s[i], r->len[i], "=C2=B1", 6);
	}
	return soft >= 3 && esc >= 1;
}

int lt_text_decode(lt_text *out, const char *raw, size_t len)
{
	memset(out, 0, sizeof *out);
	raw_lines r = { 0 };
	decoder d = { .r = &r, .out = out };
	int rc = split_lines(raw, len, &r);
	size_t start = 0;
	/* an mbox "From " line before the headers */
	if (rc == 0 && r.n && r.len[0] > 5 && memcmp(r.s[0], "From ", 5) == 0)
		start = 1;
	if (rc == 0 && start < r.n && header_line(&r, start) && has_headers(&r, start)) {
		rc = decode_part(&d, start, r.n, 0, &out->subject);
	} else if (rc == 0) {
		rc = decode_body(&d, start, r.n, looks_qp(&r, start) ? "quoted-printable" : "8bit");
	}
	/* the store may have moved while it grew: point the lines now */
	for (size_t i = 0; rc == 0 && i < out->n; i++) {
		size_t end = i + 1 < out->n ? d.offs[i + 1] : out->store.len;
		/* only empty lines: the store never allocated */
		out->v[i].s = out->store.data ? (const char *)out->store.data + d.offs[i] : "";
		out->v[i].len = end - d.offs[i];
	}
	free(d.offs);
	free(r.s);
	free(r.len);
	if (rc < 0)
		lt_text_free(out);
	return rc;
}

void lt_text_free(lt_text *t)
{
	free(t->v);
	pd_buf_free(&t->store);
	free(t->subject);
	memset(t, 0, sizeof *t);
}
