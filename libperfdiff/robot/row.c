/*
 * One row of the robot's table, however it reached us.
 *
 * The robot prints, per row, the base column's mean and "±N%" (the
 * relative standard deviation, left out when it is 2 % or less), then for
 * each further commit the change against the base and that commit's mean
 * and "±", then the key:
 *
 *       12.09 ± 36%     -12.1        0.00        perf-profile.children...
 *
 * Mail transports mangle it.  The "±" arrives as "?", "ą", "+-", "A+-",
 * "Â±", "~" (2014), "__", or vanishes ("  48%"); clients collapse the
 * blanks to one ("41.55 -41.6 0.00"), glue the sign to the number
 * ("±100%"), or move the key to the next line.  So a row is read by the
 * shape of its tokens, not by columns: a change always carries its sign,
 * a standard deviation always ends in '%' and never has a sign of its
 * own ("-1%" after a marker, which old mails printed for none, reads as
 * none), and whatever has no digit between a mean and its '%' is the
 * mangled "±".  2014 mails put "TOTAL" before the key.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_TOKENS (4 * LT_MAX_COLUMNS + 4)

typedef struct tok {
	const char *s;
	size_t n;
} tok;

const char *lt_unquote(const char *s, size_t len, size_t *rest)
{
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '>'))
		i++;
	*rest = len - i;
	return s + i;
}

static bool blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The tokens of s[0..len); false when there are more than `max`. */
static bool tokenize(const char *s, size_t len, tok *t, size_t max, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < len;) {
		while (i < len && blank((unsigned char)s[i]))
			i++;
		if (i == len)
			break;
		size_t j = i;
		while (j < len && !blank((unsigned char)s[j]))
			j++;
		/* UTF-8 no-break space between words: a blank all the same */
		if (*n == max)
			return false;
		t[(*n)++] = (tok){ s + i, j - i };
		i = j;
	}
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool has_digit(const tok *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (is_digit(t->s[i]))
			return true;
	return false;
}

/* t as a whole number (strtod's syntax, no "inf"/"nan" words); `sign`:
 * it must start with '+' or '-' (a change), else with a digit, '.' or a
 * '-' before one (a mean). */
static bool number(const tok *t, bool sign, double *v)
{
	char buf[64];
	if (t->n == 0 || t->n >= sizeof buf)
		return false;
	memcpy(buf, t->s, t->n);
	buf[t->n] = '\0';
	const char *p = buf;
	if (sign) {
		if (*p != '+' && *p != '-')
			return false;
		if (strcmp(p + 1, "Inf") == 0 || strcmp(p + 1, "inf") == 0) {
			*v = *p == '-' ? -INFINITY : INFINITY;
			return true;
		}
		if (!is_digit(p[1]) && p[1] != '.')
			return false;
	} else if (!is_digit(*p) && *p != '.' && !(*p == '-' && (is_digit(p[1]) || p[1] == '.'))) {
		return false;
	}
	char *end;
	*v = strtod(p, &end);
	return *end == '\0' && isfinite(*v);
}

/* A change: a signed number, '%' after it when relative. */
static bool change(const tok *t, double *v, bool *pct)
{
	tok u = *t;
	*pct = u.n > 1 && u.s[u.n - 1] == '%';
	if (*pct)
		u.n--;
	return number(&u, true, v);
}

/* "N%" (N digits, or "-1" as old mails print for none): *pct, -1 for none. */
static bool bare_pct(const tok *t, int *pct)
{
	if (t->n < 2 || t->s[t->n - 1] != '%')
		return false;
	size_t i = t->s[0] == '-' ? 1 : 0;
	if (i == t->n - 1)
		return false;
	int v = 0;
	for (size_t k = i; k < t->n - 1; k++) {
		if (!is_digit(t->s[k]) || v > 100000)
			return false;
		v = v * 10 + (t->s[k] - '0');
	}
	*pct = i ? -1 : v;
	return true;
}

/* "±12%", "?100%", "~ 3%" glued: a prefix without digits, then N%. */
static bool glued_pct(const tok *t, int *pct)
{
	size_t i = 0;
	while (i < t->n && !is_digit(t->s[i]))
		i++;
	if (i == 0 || i == t->n)
		return false;
	/* a sign alone before the digits is a change, not a mangled "±" */
	if (i == 1 && (t->s[0] == '+' || t->s[0] == '-'))
		return false;
	tok rest = { t->s + i, t->n - i };
	return bare_pct(&rest, pct);
}

/* The standard deviation at t[*i], if there is one: *i moves past it. */
static void stddev(const tok *t, size_t n, size_t *i, int *pct)
{
	*pct = -1;
	if (*i >= n)
		return;
	int v;
	if (bare_pct(&t[*i], &v) || glued_pct(&t[*i], &v)) {
		*pct = v;
		(*i)++;
		return;
	}
	/* a marker without digits ("±", "+-", "A+-", "?", "ą", "~"), then N% */
	if (!has_digit(&t[*i]) && *i + 1 < n && bare_pct(&t[*i + 1], &v)) {
		*pct = v;
		*i += 2;
	}
}

/* A key: the robot's dotted name, starting with a letter or '_'. */
static bool key_like(const tok *t)
{
	if (t->n < 3)
		return false;
	char c = t->s[0];
	bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
	return start && memchr(t->s, '.', t->n);
}

bool lt_lone_key(const char *s, size_t len)
{
	tok t[2];
	size_t n;
	return tokenize(s, len, t, 2, &n) && n == 1 && key_like(&t[0]);
}

/* The columns t[0..n): mean [±], then (change mean [±])*. */
static bool columns(const tok *t, size_t n, lt_rowparse *out)
{
	size_t i = 0;
	out->ncol = 0;
	while (i < n) {
		size_t c = out->ncol;
		if (c == LT_MAX_COLUMNS)
			return false;
		out->change[c] = NAN;
		out->change_pct[c] = false;
		if (c > 0 && !change(&t[i++], &out->change[c], &out->change_pct[c]))
			return false;
		if (i >= n || !number(&t[i++], false, &out->mean[c]))
			return false;
		stddev(t, n, &i, &out->pct[c]);
		out->ncol++;
	}
	return out->ncol > 0;
}

bool lt_row_parse(const char *s, size_t len, lt_rowparse *out)
{
	tok t[MAX_TOKENS];
	size_t n;
	memset(out, 0, sizeof *out);
	if (!tokenize(s, len, t, MAX_TOKENS, &n) || n == 0)
		return false;
	size_t nv = n;
	if (key_like(&t[n - 1])) {
		out->key = t[n - 1].s;
		out->key_len = t[n - 1].n;
		nv = n - 1;
		if (nv && t[nv - 1].n == 5 && memcmp(t[nv - 1].s, "TOTAL", 5) == 0)
			nv--;
	}
	return nv > 0 && columns(t, nv, out);
}
