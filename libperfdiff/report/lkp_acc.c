/*
 * The robot's parser (lkp-tests programs/perf-profile/parse), restated:
 * it reads perf report's text, so everything here works on what perf
 * prints, not on what perf computed.
 *
 * Sums are kept in integer hundredths: every addend is a number perf
 * printed with two decimals, and the robot's floating-point sum of such
 * numbers rounds back to the exact sum for every total (its ≥ 0.05 test
 * included: all ways of making 0.05 from 0.01 steps compare ≥ 0.05 in
 * double, in any order), so integers give its result independent of the
 * order in which perf would have printed the lines.
 */
#include "lkp_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/u64map.h"
#include "util/util.h"

/* perf formats each chain frame into a 1024-byte buffer. */
#define PERF_FRAME_MAX 1023
/* The robot keeps the first 5 frames of a chain. */
#define CHAIN_DEPTH 5

typedef struct acc_entry {
	struct acc_entry *next;   /* same hash */
	int64_t sum;              /* hundredths */
	size_t len;
	char key[];
} acc_entry;

struct lkp_acc {
	pd_u64map map;            /* hash → acc_entry chain */
	acc_entry **all;
	size_t n, cap;
	char *event;              /* NULL until the first event is named */
	pd_buf line, key;         /* scratch */
};

int lkp_acc_new(lkp_acc **out)
{
	lkp_acc *a = calloc(1, sizeof *a);
	if (!a)
		return PD_ENOMEM;
	pd_u64map_init(&a->map);
	*out = a;
	return 0;
}

void lkp_acc_free(lkp_acc *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->all[i]);
	free(a->all);
	pd_u64map_free(&a->map);
	free(a->event);
	pd_buf_free(&a->line);
	pd_buf_free(&a->key);
	free(a);
}

/* Ruby's \s: the robot's \S+ tokens end at these. */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

static bool has_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_space(s[i]))
			return true;
	return false;
}

/* Length of a /\.(isra|constprop|part)\.[0-9]+/ match at s, else 0. */
static size_t clone_suffix_at(const char *s, size_t n)
{
	static const char *const words[] = { "isra", "constprop", "part" };
	if (n == 0 || s[0] != '.')
		return 0;
	for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
		size_t wl = strlen(words[w]);
		if (n < 1 + wl + 2 || memcmp(s + 1, words[w], wl) != 0 ||
		    s[1 + wl] != '.')
			continue;
		size_t i = 1 + wl + 1, d = i;
		while (d < n && s[d] >= '0' && s[d] <= '9')
			d++;
		if (d > i)
			return d;
	}
	return 0;
}

/* Append the cleaned form of s[0..n) (String#remove = gsub with ""). */
static int append_clean(pd_buf *b, const char *s, size_t n)
{
	size_t i = 0, run = 0;
	while (i < n) {
		size_t m = clone_suffix_at(s + i, n - i);
		if (m) {
			if (pd_buf_append(b, s + run, i - run) < 0)
				return PD_ENOMEM;
			i += m;
			run = i;
		} else {
			i++;
		}
	}
	return pd_buf_append(b, s + run, n - run);
}

static size_t to_user_buf(const pd_buf *b, char *buf, size_t n)
{
	if (n) {
		size_t c = b->len < n - 1 ? b->len : n - 1;
		if (c)
			memcpy(buf, b->data, c);
		buf[c] = '\0';
	}
	return b->len;
}

PD_EXTERN(size_t) pd_lkp_symbol_clean(const char *name, char *buf, size_t n)
{
	pd_buf b = { 0 };
	size_t len = 0;
	if (name && append_clean(&b, name, strlen(name)) == 0)
		len = to_user_buf(&b, buf, n);
	else if (n)
		buf[0] = '\0';
	pd_buf_free(&b);
	return len;
}

/* `$'.tr(':', '-').tr('\'', '')` of "of event '<name>'". */
static int append_event_name(pd_buf *b, const char *name)
{
	for (const char *p = name; *p; p++) {
		if (*p == '\'')
			continue;
		char c = *p == ':' ? '-' : *p;
		if (pd_buf_append(b, &c, 1) < 0)
			return PD_ENOMEM;
	}
	return 0;
}

PD_EXTERN(size_t) pd_lkp_event_name(const char *perf_name, char *buf, size_t n)
{
	pd_buf b = { 0 };
	size_t len = 0;
	if (perf_name && append_event_name(&b, perf_name) == 0)
		len = to_user_buf(&b, buf, n);
	else if (n)
		buf[0] = '\0';
	pd_buf_free(&b);
	return len;
}

int lkp_acc_event(lkp_acc *a, const char *perf_name)
{
	if (a->event)
		return 0;
	pd_buf b = { 0 };
	if (append_event_name(&b, perf_name ? perf_name : "") < 0 ||
	    pd_buf_append(&b, "", 1) < 0) {
		pd_buf_free(&b);
		return PD_ENOMEM;
	}
	a->event = (char *)b.data;
	return 0;
}

int64_t lkp_hundredths(double pct)
{
	if (!isfinite(pct))
		return 0;
	char s[64];
	int len = snprintf(s, sizeof s, "%.2f", pct);
	if (len < 4 || (size_t)len >= sizeof s)
		return 0;
	bool neg = s[0] == '-';
	int64_t v = 0;
	for (const char *p = s + neg; *p; p++)
		if (*p >= '0' && *p <= '9')
			v = v * 10 + (*p - '0');
	return neg ? -v : v;
}

/* Start a key "<kind>.<event>." in a->key. */
static int key_begin(lkp_acc *a, const char *kind)
{
	a->key.len = 0;
	const char *ev = a->event ? a->event : "";
	if (pd_buf_append(&a->key, kind, strlen(kind)) < 0 ||
	    pd_buf_append(&a->key, ".", 1) < 0 ||
	    pd_buf_append(&a->key, ev, strlen(ev)) < 0 ||
	    pd_buf_append(&a->key, ".", 1) < 0)
		return PD_ENOMEM;
	return 0;
}

/* results[a->key] += v */
static int add(lkp_acc *a, int64_t v)
{
	const char *k = (const char *)a->key.data;
	size_t len = a->key.len;
	uint64_t h = pd_hash_bytes(PD_HASH_INIT, k, len);
	acc_entry *head = pd_u64map_get(&a->map, h);
	for (acc_entry *e = head; e; e = e->next)
		if (e->len == len && memcmp(e->key, k, len) == 0) {
			e->sum += v;
			return 0;
		}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		acc_entry **all = realloc(a->all, cap * sizeof *all);
		if (!all)
			return PD_ENOMEM;
		a->all = all;
		a->cap = cap;
	}
	acc_entry *e = malloc(sizeof *e + len + 1);
	if (!e)
		return PD_ENOMEM;
	memcpy(e->key, k, len);
	e->key[len] = '\0';
	e->len = len;
	e->sum = v;
	e->next = head;
	if (pd_u64map_put(&a->map, h, e) < 0) {
		free(e);
		return PD_ENOMEM;
	}
	a->all[a->n++] = e;
	return 0;
}

int lkp_acc_row(lkp_acc *a, const char *dso, const char *symbol,
		double children_pct, double self_pct)
{
	/* The row pattern wants exactly one token each for dso and symbol
	 * (plus perf's two IPC columns): white space breaks the match. */
	if (!dso || !*dso || has_space(dso, strlen(dso)) || !symbol || !*symbol ||
	    has_space(symbol, strlen(symbol)))
		return 0;
	int rc;
	if ((rc = key_begin(a, "children")) < 0 ||
	    (rc = append_clean(&a->key, symbol, strlen(symbol))) < 0 ||
	    (rc = add(a, lkp_hundredths(children_pct))) < 0)
		return rc;
	a->key.len = 0;
	if ((rc = key_begin(a, "self")) < 0 ||
	    (rc = append_clean(&a->key, symbol, strlen(symbol))) < 0 ||
	    (rc = add(a, lkp_hundredths(self_pct))) < 0)
		return rc;
	return 0;
}

int lkp_acc_chain(lkp_acc *a, double pct, const char *const *frames, size_t n)
{
	/* The line as perf prints it: frames cut to perf's buffer, ';'-joined. */
	a->line.len = 0;
	for (size_t i = 0; i < n; i++) {
		if (!frames[i])
			return 0;
		size_t fl = strnlen(frames[i], PERF_FRAME_MAX);
		if (has_space(frames[i], fl))
			return 0;
		if ((i && pd_buf_append(&a->line, ";", 1) < 0) ||
		    pd_buf_append(&a->line, frames[i], fl) < 0)
			return PD_ENOMEM;
	}
	if (a->line.len == 0)
		return 0;

	/* split(';')[0, 5]: Ruby drops trailing empty fields before slicing. */
	const char *s = (const char *)a->line.data;
	size_t len = a->line.len;
	while (len && s[len - 1] == ';')
		len--;
	int rc = key_begin(a, "calltrace");
	if (rc < 0)
		return rc;
	size_t start = 0, fields = 0;
	while (len && fields < CHAIN_DEPTH) {
		size_t end = start;
		while (end < len && s[end] != ';')
			end++;
		if ((fields && pd_buf_append(&a->key, ".", 1) < 0) ||
		    append_clean(&a->key, s + start, end - start) < 0)
			return PD_ENOMEM;
		fields++;
		if (end >= len)
			break;
		start = end + 1;
	}
	return add(a, lkp_hundredths(pct));
}

static int by_key(const void *x, const void *y)
{
	const pd_lkp_key *a = x, *b = y;
	return strcmp(a->key, b->key);
}

int lkp_acc_add(lkp_acc *a, const char *key, int64_t hundredths)
{
	a->key.len = 0;
	if (pd_buf_append(&a->key, key, strlen(key)) < 0)
		return PD_ENOMEM;
	return add(a, hundredths);
}

int lkp_acc_result(const lkp_acc *a, int64_t min, double divisor,
		   pd_lkp_key **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++)
		k += a->all[i]->sum >= min;
	if (!k)
		return 0;
	pd_lkp_key *keys = calloc(k, sizeof *keys);
	if (!keys)
		return PD_ENOMEM;
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		const acc_entry *e = a->all[i];
		if (e->sum < min)
			continue;
		keys[j].key = malloc(e->len + 1);
		if (!keys[j].key) {
			pd_lkp_keys_free(keys, j);
			return PD_ENOMEM;
		}
		memcpy(keys[j].key, e->key, e->len + 1);
		keys[j].value = (double)e->sum / 100.0 / divisor;
		j++;
	}
	qsort(keys, k, sizeof *keys, by_key);
	*out = keys;
	*n = k;
	return 0;
}

PD_EXTERN(void) pd_lkp_keys_free(pd_lkp_key *keys, size_t n)
{
	if (!keys)
		return;
	for (size_t i = 0; i < n; i++)
		free(keys[i].key);
	free(keys);
}
