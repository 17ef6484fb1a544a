/*
 * A report's rows keyed as perf's --sort keys them (pd_report_write_options
 * `sort_keys`: any of comm, dso, sym, in any order), with perf's -n
 * Samples column: one row per distinct (command, dso, symbol) tuple of
 * the keys given, its Children (samples through it, once per stack even
 * under recursion), Self and self samples, the key columns in the order
 * given, as `perf report --stdio --sort=... -n` prints them.  Built from
 * the profile's (command, stack) pairs, which hold the command that the
 * flat view does not.  No call chains under these rows.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/u64map.h"
#include "util/util.h"

enum { KEY_COMM, KEY_DSO, KEY_SYM, NKEYS };

typedef struct srow {
	const char *comm, *dso, *sym;  /* NULL where the key is not used */
	bool inlined, kernel;
	uint64_t children, self, samples;
	size_t stamp;                  /* the last stack that counted its children, + 1 */
	uint64_t order;                /* what the rows are sorted by */
	size_t next;                   /* the next row of the same hash, + 1 */
} srow;

typedef struct sorted {
	int keys[NKEYS];
	size_t nkeys;
	bool use[NKEYS];
	srow *v;
	size_t n, cap;
	pd_u64map first;               /* hash → first row + 1 */
} sorted;

/* "comm,dso,sym" (any of the three, in any order, each once). */
static int parse_keys(sorted *s, const char *text, pd_error *err)
{
	static const char *const names[NKEYS] = { "comm", "dso", "sym" };
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ",");
		int k = -1;
		for (int i = 0; i < NKEYS; i++)
			if (strlen(names[i]) == len && strncmp(p, names[i], len) == 0)
				k = i;
		if (k < 0 || s->use[k])
			return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
					    "sort keys '%s': %s '%.*s' (comm, dso, sym, each once)",
					    text, k < 0 ? "no key" : "twice", (int)len, p);
		s->use[k] = true;
		s->keys[s->nkeys++] = k;
		p += len + (p[len] == ',');
	}
	if (s->nkeys == 0)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no sort keys");
	return 0;
}

static uint64_t row_hash(const srow *r)
{
	uint64_t h = pd_hash_str(PD_HASH_INIT, r->comm ? r->comm : "");
	const void *w[2] = { r->dso, r->sym };
	h = pd_hash_bytes(h, w, sizeof w);
	return pd_hash_bytes(h, &r->inlined, 1) | 1;  /* never 0 */
}

static bool same_row(const srow *a, const srow *b)
{
	return a->dso == b->dso && a->sym == b->sym && a->inlined == b->inlined &&
	       (a->comm == b->comm || (a->comm && b->comm && strcmp(a->comm, b->comm) == 0));
}

/* The row of `key` (made when new): its index, or SIZE_MAX out of memory. */
static size_t row_of(sorted *s, const srow *key)
{
	uint64_t h = row_hash(key);
	size_t i = (size_t)(uintptr_t)pd_u64map_get(&s->first, h);
	for (size_t j = i; j; j = s->v[j - 1].next)
		if (same_row(&s->v[j - 1], key))
			return j - 1;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		srow *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return SIZE_MAX;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = *key;
	s->v[s->n].next = i;
	if (pd_u64map_put(&s->first, h, (void *)(uintptr_t)(s->n + 1)) < 0)
		return SIZE_MAX;
	return s->n++;
}

static srow key_of(const sorted *s, const char *comm, const pd_cct_node *n)
{
	srow k = { 0 };
	k.comm = s->use[KEY_COMM] ? comm : NULL;
	k.dso = s->use[KEY_DSO] ? pd_cct_dso(n) : NULL;
	k.sym = s->use[KEY_SYM] ? pd_cct_symbol(n) : NULL;
	k.inlined = s->use[KEY_SYM] && pd_cct_inlined(n);
	k.kernel = pd_cct_kernel(n);
	return k;
}

/* Stack `i` into the rows: children once per row it passes, self and
 * samples on its leaf's. */
static int add_stack(sorted *s, const pd_stack *st, size_t i)
{
	for (const pd_cct_node *n = st->leaf; n && pd_cct_parent(n); n = pd_cct_parent(n)) {
		srow k = key_of(s, st->comm, n);
		size_t r = row_of(s, &k);
		if (r == SIZE_MAX)
			return PD_ENOMEM;
		if (n == st->leaf) {
			s->v[r].self += st->period;
			s->v[r].samples += st->samples;
		}
		if (s->v[r].stamp != i + 1) {
			s->v[r].stamp = i + 1;
			s->v[r].children += st->period;
		}
	}
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const srow *x = a, *y = b;
	if (x->order != y->order)
		return x->order < y->order ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	int c = strcmp(x->sym ? x->sym : "", y->sym ? y->sym : "");
	return c ? c : strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
}

static size_t col_width(const sorted *s, int key, size_t min)
{
	size_t w = min;
	for (size_t i = 0; i < s->n; i++) {
		const srow *r = &s->v[i];
		const char *t = key == KEY_COMM ? r->comm : pdo_short_dso(r->dso);
		if (t && strlen(t) > w)
			w = strlen(t);
	}
	return w;
}

/* Column `i` of the keys: two spaces before all but the first, padded
 * to `width` unless it is the last. */
static void put_col(pd_writer *w, const sorted *s, size_t i, const char *t, size_t width)
{
	if (i)
		pdo_puts(w, "  ");
	pdo_put_escaped(w, t);
	for (size_t k = strlen(t); i + 1 < s->nkeys && k < width; k++)
		pdo_putc(w, ' ');
}

static void put_header(pd_writer *w, const sorted *s, bool nr, const size_t *width)
{
	static const char *const titles[NKEYS] = { "Command", "Shared Object", "Symbol" };
	pdo_puts(w, "# Children      Self  ");
	if (nr)
		pdo_puts(w, "     Samples  ");
	for (size_t i = 0; i < s->nkeys; i++)
		put_col(w, s, i, titles[s->keys[i]], s->keys[i] == KEY_SYM ? 0 : width[s->keys[i]]);
	pdo_puts(w, "\n#\n");
}

static void put_srow(pd_writer *w, const sorted *s, const srow *r, uint64_t total, bool nr,
		     const size_t *width)
{
	double t = total ? (double)total : 1;
	pdo_printf(w, "%9.2f%% %8.2f%%  ", 100.0 * (double)r->children / t,
		   100.0 * (double)r->self / t);
	if (nr)
		pdo_printf(w, "%12" PRIu64 "  ", r->samples);
	for (size_t i = 0; i < s->nkeys; i++) {
		int k = s->keys[i];
		if (k == KEY_COMM) {
			put_col(w, s, i, r->comm, width[k]);
		} else if (k == KEY_DSO) {
			put_col(w, s, i, pdo_short_dso(r->dso), width[k]);
		} else {
			pdo_puts(w, i ? "  " : "");
			pdo_puts(w, r->kernel ? "[k] " : "[.] ");
			pdo_put_escaped(w, r->sym);
			if (r->inlined)
				pdo_puts(w, " (inlined)");
			if (i + 1 < s->nkeys)  /* perf pads the symbol too, to its width */
				pdo_puts(w, "  ");
		}
	}
	pdo_putc(w, '\n');
}

int pdo_report_sorted(const pdo_report *r, size_t ev)
{
	sorted s = { 0 };
	pd_u64map_init(&s.first);
	int rc = parse_keys(&s, r->o.sort_keys ? r->o.sort_keys : "dso,sym", r->err);
	const pd_stack *st = NULL;
	size_t n = 0;
	if (rc == 0)
		rc = pd_profile_stacks(r->p, ev, &st, &n, r->err);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = add_stack(&s, &st[i], i);
	if (rc == 0) {
		for (size_t i = 0; i < s.n; i++)
			s.v[i].order = r->o.sort_self ? s.v[i].self : s.v[i].children;
		qsort(s.v, s.n, sizeof *s.v, cmp_rows);
		uint64_t total = pd_profile_total(r->p, ev, SIZE_MAX);
		uint64_t min = (uint64_t)((double)total * r->o.percent_limit / 100.0);
		size_t width[NKEYS] = { col_width(&s, KEY_COMM, 7), col_width(&s, KEY_DSO, 13), 0 };
		put_header(r->w, &s, r->o.nr_samples, width);
		for (size_t i = 0; i < s.n && !r->w->failed; i++)
			if ((r->o.sort_self ? s.v[i].self : s.v[i].children) >= min)
				put_srow(r->w, &s, &s.v[i], total, r->o.nr_samples, width);
	} else if (rc != PD_EINVAL) {
		rc = pdo_nomem(r->err);
	}
	free(s.v);
	pd_u64map_free(&s.first);
	return rc;
}
