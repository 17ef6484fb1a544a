#include "jitmap.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Long enough for any JIT's signature-style names, short enough to bound a line. */
#define JM_NAME_MAX 16384
/* A map of a long-running JIT is tens of MB; far beyond that is not a map. */
#define JM_FILE_MAX ((size_t)1 << 30)

/* `line` (file order) decides overlaps: the later definition wins. */
typedef struct jm_ent {
	pd_jitsym s;
	size_t line;
} jm_ent;

/* A piece of the address space owned by one entry; segments are disjoint. */
typedef struct jm_seg {
	uint64_t start, end;
	size_t ent;
} jm_seg;

struct pd_jitmap {
	jm_ent *ents;
	size_t n;
	jm_seg *segs;
	size_t nsegs;
	char *names;
	size_t skipped;
};

static bool is_sep(unsigned char c) { return c == ' ' || c == '\t'; }
static bool is_trail(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* [0x]hex, 1..16 digits; advances *pp.  perf reads these with strtoull(, 16). */
static bool parse_hex(const unsigned char **pp, const unsigned char *e, uint64_t *out)
{
	const unsigned char *s = *pp;
	if (e - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t v = 0;
	int digits = 0;
	while (s < e) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)d;
		s++;
	}
	if (digits == 0)
		return false;
	*pp = s;
	*out = v;
	return true;
}

typedef struct jm_line {
	uint64_t start, end;
	const char *name;
	size_t name_len;
} jm_line;

static bool parse_line(const char *p, const char *end, jm_line *out)
{
	const unsigned char *s = (const unsigned char *)p, *e = (const unsigned char *)end;
	while (e > s && is_trail(e[-1]))
		e--;
	while (s < e && is_sep(*s))
		s++;
	uint64_t start, size;
	if (!parse_hex(&s, e, &start) || s == e || !is_sep(*s))
		return false;
	while (s < e && is_sep(*s))
		s++;
	if (!parse_hex(&s, e, &size) || s == e || !is_sep(*s))
		return false;
	while (s < e && is_sep(*s))
		s++;
	if (s == e || (size_t)(e - s) > JM_NAME_MAX || memchr(s, '\0', (size_t)(e - s)))
		return false;
	/* a zero size still names its first byte, as in perf */
	if (size == 0)
		size = 1;
	if (size > UINT64_MAX - start)
		return false;
	out->start = start;
	out->end = start + size;
	out->name = (const char *)s;
	out->name_len = (size_t)(e - s);
	return true;
}

/* Counting pass (out == NULL) and filling pass, so allocations are exact. */
static void scan(const char *text, size_t len, size_t *count, size_t *bytes, size_t *skipped,
		 jm_ent *out, char *names)
{
	*count = *bytes = *skipped = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		jm_line l;
		bool blank = true;
		for (const char *c = p; c < eol && blank; c++)
			blank = is_trail((unsigned char)*c);
		if (blank) {
			/* nothing to count */
		} else if (!parse_line(p, eol, &l)) {
			(*skipped)++;
		} else {
			if (out) {
				jm_ent *j = &out[*count];
				j->s.start = l.start;
				j->s.end = l.end;
				memcpy(names + *bytes, l.name, l.name_len);
				names[*bytes + l.name_len] = '\0';
				j->s.name = names + *bytes;
				j->line = *count;
			}
			*bytes += l.name_len + 1;
			(*count)++;
		}
		p = nl ? nl + 1 : end;
	}
}

static int cmp_ent(const void *a, const void *b)
{
	const jm_ent *x = a, *y = b;
	if (x->s.start != y->s.start)
		return x->s.start < y->s.start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Max-heap of entry indices keyed by line. */
static void heap_push(size_t *h, size_t *hn, const jm_ent *e, size_t v)
{
	size_t i = (*hn)++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (e[h[parent]].line >= e[v].line)
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = v;
}

static void heap_pop(size_t *h, size_t *hn, const jm_ent *e)
{
	size_t n = --(*hn), v = h[n], i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && e[h[c + 1]].line > e[h[c]].line)
			c++;
		if (e[v].line >= e[h[c]].line)
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = v;
}

/*
 * Cut the address space into disjoint segments, each owned by the latest
 * entry that covers it: sweep the sorted boundaries, keeping the covering
 * entries in a heap by line and dropping those that ended.  Lookups are
 * then one binary search however the entries overlap.
 */
static int build_segments(pd_jitmap *j)
{
	size_t n = j->n, nc = 0;
	if (n > SIZE_MAX / (2 * sizeof(uint64_t)))
		return PD_ENOMEM;
	uint64_t *coords = malloc(2 * n * sizeof *coords);
	size_t *heap = malloc(n * sizeof *heap);
	if (!coords || !heap) {
		free(coords);
		free(heap);
		return PD_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		coords[nc++] = j->ents[i].s.start;
		coords[nc++] = j->ents[i].s.end;
	}
	qsort(coords, nc, sizeof *coords, cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < nc; i++)
		if (u == 0 || coords[u - 1] != coords[i])
			coords[u++] = coords[i];
	nc = u;
	j->segs = malloc(nc * sizeof *j->segs);
	if (!j->segs) {
		free(coords);
		free(heap);
		return PD_ENOMEM;
	}
	size_t hn = 0, next = 0, ns = 0;
	for (size_t c = 0; c + 1 < nc; c++) {
		uint64_t x = coords[c];
		while (next < n && j->ents[next].s.start <= x)
			heap_push(heap, &hn, j->ents, next++);
		while (hn && j->ents[heap[0]].s.end <= x)
			heap_pop(heap, &hn, j->ents);
		if (!hn)
			continue;
		size_t owner = heap[0];
		if (ns && j->segs[ns - 1].ent == owner && j->segs[ns - 1].end == x)
			j->segs[ns - 1].end = coords[c + 1];
		else
			j->segs[ns++] = (jm_seg){ .start = x, .end = coords[c + 1], .ent = owner };
	}
	j->nsegs = ns;
	free(coords);
	free(heap);
	return 0;
}

int pd_jitmap_parse(pd_jitmap **out, const char *text, size_t len)
{
	*out = NULL;
	if (!text) {
		text = "";
		len = 0;
	}
	pd_jitmap *j = calloc(1, sizeof *j);
	if (!j)
		return PD_ENOMEM;
	size_t count, bytes;
	scan(text, len, &count, &bytes, &j->skipped, NULL, NULL);
	if (count) {
		if (count > SIZE_MAX / sizeof *j->ents)
			goto nomem;
		j->ents = malloc(count * sizeof *j->ents);
		j->names = malloc(bytes);
		if (!j->ents || !j->names)
			goto nomem;
		scan(text, len, &j->n, &bytes, &j->skipped, j->ents, j->names);
		bool sorted = true;
		for (size_t i = 1; i < j->n && sorted; i++)
			sorted = j->ents[i - 1].s.start <= j->ents[i].s.start;
		if (!sorted)
			qsort(j->ents, j->n, sizeof *j->ents, cmp_ent);
		if (build_segments(j) < 0)
			goto nomem;
	}
	*out = j;
	return 0;
nomem:
	pd_jitmap_free(j);
	return PD_ENOMEM;
}

int pd_jitmap_load(pd_jitmap **out, const char *path, pd_error *err)
{
	*out = NULL;
	char *buf;
	size_t n;
	int rc = pd_read_file(path, JM_FILE_MAX, &buf, &n, err);
	if (rc == 0)
		rc = pd_jitmap_parse(out, buf, n);
	free(buf);
	return rc;
}

void pd_jitmap_free(pd_jitmap *j)
{
	if (!j)
		return;
	free(j->ents);
	free(j->segs);
	free(j->names);
	free(j);
}

const pd_jitsym *pd_jitmap_find(const pd_jitmap *j, uint64_t addr)
{
	if (!j || j->nsegs == 0)
		return NULL;
	size_t lo = 0, hi = j->nsegs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->segs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= j->segs[lo - 1].end)
		return NULL;
	return &j->ents[j->segs[lo - 1].ent].s;
}

size_t pd_jitmap_skipped_lines(const pd_jitmap *j) { return j ? j->skipped : 0; }
