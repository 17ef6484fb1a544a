/*
 * A small JSON reader for the robot's result files: a top-level object
 * whose members the caller wants when they are numbers or arrays of
 * numbers ("perf-profile.children.cycles-pp.foo": [1.2, 1.3, 1.25]);
 * anything else (strings, nested objects, arrays of other things) is
 * checked and skipped.  Errors name the file and the line, as a user
 * finds them in an editor.  Nesting is capped, so a hostile file cannot
 * exhaust the stack.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define JSON_DEPTH 64

typedef struct jp {
	const char *s, *end;
	const char *name;
	size_t line;
	pd_error *err;
	pd_buf key;
	double *vals;
	size_t nv, capv;
} jp;

static int fail(jp *p, const char *what)
{
	return pd_error_set(p->err, PD_ECORRUPT, p->name, PD_NO_OFFSET, "line %zu: %s", p->line,
			    what);
}

static void ws(jp *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) {
		p->line += *p->s == '\n';
		p->s++;
	}
}

static int put_utf8(pd_buf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	}
	return pd_buf_append(b, u, n);
}

/* A string at p->s (at its '"') into b (when not NULL), NUL-terminated. */
static int string(jp *p, pd_buf *b)
{
	if (b)
		b->len = 0;
	p->s++;
	while (p->s < p->end && *p->s != '"') {
		char c = *p->s++;
		unsigned cp = (unsigned char)c;
		if (c == '\n')
			return fail(p, "line break inside a string");
		if (c == '\\') {
			if (p->s >= p->end)
				break;
			c = *p->s++;
			const char *esc = strchr("\"\\/bfnrt", c);
			if (c == 'u') {
				cp = 0;
				for (int i = 0; i < 4; i++, p->s++) {
					if (p->s >= p->end)
						return fail(p, "a cut \\u escape");
					char h = *p->s;
					int v = h >= '0' && h <= '9' ? h - '0'
						: (h | 0x20) >= 'a' && (h | 0x20) <= 'f' ? (h | 0x20) - 'a' + 10
						: -1;
					if (v < 0)
						return fail(p, "a bad \\u escape");
					cp = cp << 4 | (unsigned)v;
				}
			} else if (esc && c) {
				cp = (unsigned char)"\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
			} else {
				return fail(p, "a bad escape in a string");
			}
		}
		if (b && (cp < 0x80 ? pd_buf_append(b, &(char){ (char)cp }, 1) : put_utf8(b, cp)) < 0)
			return PD_ENOMEM;
	}
	if (p->s >= p->end)
		return fail(p, "a string does not end");
	p->s++;
	return b ? pd_buf_append(b, "", 1) : 0;
}

static bool number_start(char c)
{
	return c == '-' || (c >= '0' && c <= '9');
}

static int number(jp *p, double *v)
{
	char buf[64];
	size_t n = 0;
	while (p->s + n < p->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", p->s[n]))
		n++;
	memcpy(buf, p->s, n);
	buf[n] = '\0';
	char *end;
	*v = strtod(buf, &end);
	if (n == 0 || *end || !isfinite(*v))
		return fail(p, "a bad number");
	p->s += n;
	return 0;
}

static int literal(jp *p)
{
	static const char *const words[] = { "true", "false", "null" };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);
		if ((size_t)(p->end - p->s) >= n && memcmp(p->s, words[i], n) == 0) {
			p->s += n;
			return 0;
		}
	}
	return fail(p, "a value expected");
}

static int value(jp *p, int depth);

/* The items of an array or the members of an object, checked and skipped. */
static int container(jp *p, int depth)
{
	char close = *p->s == '[' ? ']' : '}';
	bool object = close == '}';
	if (depth >= JSON_DEPTH)
		return fail(p, "nested too deep");
	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		int rc;
		ws(p);
		if (object) {
			if (p->s >= p->end || *p->s != '"')
				return fail(p, "a member name expected");
			if ((rc = string(p, NULL)) < 0)
				return rc;
			ws(p);
			if (p->s >= p->end || *p->s++ != ':')
				return fail(p, "':' expected");
		}
		if ((rc = value(p, depth + 1)) < 0)
			return rc;
		ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			return 0;
		}
		return fail(p, object ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static int value(jp *p, int depth)
{
	ws(p);
	if (p->s >= p->end)
		return fail(p, "the text ends where a value was expected");
	if (*p->s == '"')
		return string(p, NULL);
	if (*p->s == '{' || *p->s == '[')
		return container(p, depth);
	if (number_start(*p->s)) {
		double v;
		return number(p, &v);
	}
	return literal(p);
}

/* A member's value: numbers into p->vals (*nv of them, -1 when it is
 * something else, which is skipped). */
static int member_value(jp *p, long *nv)
{
	ws(p);
	*nv = -1;
	if (p->s < p->end && number_start(*p->s)) {
		double v;
		int rc = number(p, &v);
		if (rc == 0 && (rc = pd_grow(&p->vals, &p->capv, 1, sizeof *p->vals)) == 0) {
			p->vals[0] = v;
			*nv = 1;
		}
		return rc;
	}
	if (p->s >= p->end || *p->s != '[')
		return value(p, 1);
	const char *start = p->s;
	size_t line = p->line;
	p->s++;
	size_t n = 0;
	for (;;) {
		ws(p);
		if (n == 0 && p->s < p->end && *p->s == ']') {
			p->s++;
			break;
		}
		if (p->s >= p->end || !number_start(*p->s)) {
			/* not an array of numbers: check it as a value and skip it */
			p->s = start;
			p->line = line;
			return value(p, 1);
		}
		int rc = pd_grow(&p->vals, &p->capv, n + 1, sizeof *p->vals);
		if (rc == 0)
			rc = number(p, &p->vals[n]);
		if (rc < 0)
			return rc;
		n++;
		ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == ']') {
			p->s++;
			break;
		}
		return fail(p, "',' or ']' expected");
	}
	*nv = (long)n;
	return 0;
}

static int members(jp *p, lt_json_member_fn fn, void *ctx)
{
	ws(p);
	if (p->s >= p->end || *p->s != '{')
		return fail(p, "a JSON object expected");
	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == '}')
		return p->s++, 0;
	for (;;) {
		ws(p);
		if (p->s >= p->end || *p->s != '"')
			return fail(p, "a member name expected");
		int rc = string(p, &p->key);
		ws(p);
		if (rc == 0 && (p->s >= p->end || *p->s++ != ':'))
			rc = fail(p, "':' expected");
		long nv = -1;
		if (rc == 0)
			rc = member_value(p, &nv);
		if (rc == 0 && nv >= 0)
			rc = fn(ctx, (const char *)p->key.data, p->vals, (size_t)nv);
		if (rc)
			return rc;
		ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == '}') {
			p->s++;
			return 0;
		}
		return fail(p, "',' or '}' expected");
	}
}

int lt_json_members(const char *s, size_t len, const char *name, lt_json_member_fn fn,
		    void *ctx, pd_error *err)
{
	jp p = { .s = s, .end = s + len, .name = name, .line = 1, .err = err };
	int rc = members(&p, fn, ctx);
	if (rc == 0) {
		ws(&p);
		if (p.s != p.end)
			rc = fail(&p, "text after the JSON object");
	}
	if (rc == PD_ENOMEM)
		pd_error_set(err, rc, name, PD_NO_OFFSET, "out of memory");
	pd_buf_free(&p.key);
	free(p.vals);
	return rc;
}
