/*
 * One row of the kernel test robot's compare table (lkp-perf-profile.md
 * §6.2), so that a perfdiff comparison can be laid next to a robot e-mail
 * and read column by column.  The robot prints with Ruby's printf; every
 * rule below reproduces one of its quirks:
 *   - "%d" of a Float truncates toward zero; "%.0f" of the truncated value
 *     prints the same digits for any magnitude, where a cast to an integer
 *     type would overflow;
 *   - the relative stddev is only normalised when the mean is not 0, and
 *     shown only above 2 %;
 *   - whether a change is absolute or relative depends on the key's name
 *     alone.
 * No libm: the tool links the library without it.
 *
 * Declared in diff.h, so it lives in diff/: report/ sits below diff/ and
 * must not define what diff.h promises (docs/architecture.md).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "perfdiff/diff.h"

#define ABS_WIDTH 10

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

/* Toward zero.  Doubles of magnitude 2^52 and above are integers already. */
static double dtrunc(double x)
{
	if (!(dabs(x) < 4503599627370496.0))  /* 2^52; NaN falls through too */
		return x;
	return (double)(long long)x;
}

typedef struct line {
	char *buf;
	size_t n, len;   /* room, length of the full line so far */
} line;

static void put(line *l, const char *fmt, double v)
{
	char tmp[512];
	int k = snprintf(tmp, sizeof tmp, fmt, v);
	if (k < 0)
		return;
	/* %.0f of a huge double can exceed tmp: measure, then copy what fits */
	size_t need = (size_t)k;
	if (need >= sizeof tmp)
		need = sizeof tmp - 1;
	if (l->len < l->n) {
		size_t room = l->n - 1 - l->len;
		memcpy(l->buf + l->len, tmp, need < room ? need : room);
	}
	l->len += need;
}

static void put_str(line *l, const char *s)
{
	size_t k = strlen(s);
	if (l->len < l->n) {
		size_t room = l->n - 1 - l->len;
		memcpy(l->buf + l->len, s, k < room ? k : room);
	}
	l->len += k;
}

static void put_avg(line *l, double avg)
{
	double a = dabs(avg);
	if (a < 1000)
		put(l, "%10.2f", avg);
	else if (a > 100000000.0)
		put(l, "%10.4g", avg);
	else
		put(l, "%10.0f", dtrunc(avg));
}

static void put_stddev(line *l, double avg, double stddev)
{
	double s = stddev;
	if (avg != 0)
		s = 100 * stddev / avg;
	if (s > 2) {
		put_str(l, " \xc2\xb1");   /* U+00B1 PLUS-MINUS SIGN */
		put(l, "%3.0f", dtrunc(s));
		put_str(l, "%");
	} else {
		put_str(l, "      ");
	}
}

static bool absolute_key(const char *key)
{
	size_t n = strlen(key);
	return strncmp(key, "perf-profile", 12) == 0 || (n && key[n - 1] == '%');
}

PD_EXTERN(size_t) pd_diff_format_lkp_row(char *buf, size_t n, double base_mean,
					 double base_stddev, double new_mean,
					 double new_stddev, const char *key)
{
	line l = { buf, buf ? n : 0, 0 };
	if (!key)
		key = "";
	bool abs_change = absolute_key(key);
	double change;
	if (abs_change) {
		change = new_mean - base_mean;
	} else {
		double b = base_mean == 0 ? 1e-100 : base_mean;
		change = 100.0 * (new_mean - b) / b;
	}
	put_avg(&l, base_mean);
	put_stddev(&l, base_mean, base_stddev);
	const char *fmt = dabs(change) < 100000 ? "%+10.1f" : "%+10.2g";
	put(&l, fmt, change);
	put_str(&l, abs_change ? "  " : "% ");
	put_avg(&l, new_mean);
	put_stddev(&l, new_mean, new_stddev);
	put_str(&l, "  ");
	put_str(&l, key);
	if (l.n)
		l.buf[l.len < l.n ? l.len : l.n - 1] = '\0';
	return l.len;
}
