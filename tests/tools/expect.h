/*
 * expect.h — reading the expected values that tests/data/record-fixtures.sh
 * stores next to each fixture, for test_fixtures.c and test_truncate.c:
 *
 *   X.stats    `perf report --stats` (or pd-walk in the same format)
 *   X.samples  one line per SAMPLE: offset time cpu pid tid misc ip period
 *              nr chain...
 *
 * plus a minimal record walker (offset, type, size of each top-level
 * record) that is independent of the library, to place truncation points
 * and to count what a cut keeps.  Header-only; everything is static.
 */
#ifndef PD_TEST_EXPECT_H
#define PD_TEST_EXPECT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- .stats */

#define PDX_MAX_EVENTS 16

typedef struct pdx_stats {
	bool ok;
	uint64_t total;
	uint64_t by_type[128];
	size_t nevents;
	struct {
		char name[128];
		uint64_t samples;
	} ev[PDX_MAX_EVENTS];
} pdx_stats;

/* perf's spelling of record types in `perf report --stats` */
static inline int pdx_type_of(const char *name)
{
	static const char *const k[] = {
		"", "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE",
		"FORK", "READ", "SAMPLE", "MMAP2", "AUX", "ITRACE_START",
		"LOST_SAMPLES", "SWITCH", "SWITCH_CPU_WIDE", "NAMESPACES",
		"KSYMBOL", "BPF_EVENT", "CGROUP", "TEXT_POKE",
		"AUX_OUTPUT_HW_ID",
	};
	static const char *const u[] = {
		"ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE",
		"AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
		"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "FEATURE",
		"COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
	};
	for (size_t i = 1; i < sizeof k / sizeof k[0]; i++)
		if (!strcmp(name, k[i]))
			return (int)i;
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (!strcmp(name, u[i]))
			return 64 + (int)i;
	return -1;
}

/* Parse X.stats; ok = false (and a message on stderr) if it is unusable. */
static inline void pdx_stats_load(const char *path, pdx_stats *st)
{
	memset(st, 0, sizeof *st);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return;
	}
	char line[512];
	int cur = -1; /* -1: aggregated section; else event index */
	while (fgets(line, sizeof line, f)) {
		char name[128];
		unsigned long long n;
		size_t l = strlen(line);
		while (l && (line[l - 1] == '\n' || line[l - 1] == ' '))
			line[--l] = 0;
		if (l > 7 && !strcmp(line + l - 7, " stats:") &&
		    strncmp(line, "Aggregated", 10)) {
			if (st->nevents == PDX_MAX_EVENTS)
				break;
			cur = (int)st->nevents++;
			snprintf(st->ev[cur].name, sizeof st->ev[cur].name,
				 "%.*s", (int)(l - 7), line);
			continue;
		}
		if (sscanf(line, " %127s events: %llu", name, &n) != 2)
			continue;
		if (cur >= 0) {
			if (!strcmp(name, "SAMPLE"))
				st->ev[cur].samples = n;
			continue;
		}
		if (!strcmp(name, "TOTAL")) {
			st->total = n;
			st->ok = true;
			continue;
		}
		int t = pdx_type_of(name);
		if (t < 0) {
			fprintf(stderr, "%s: unknown record name %s\n", path, name);
			st->ok = false;
			break;
		}
		st->by_type[t] = n;
	}
	fclose(f);
}

/* ----------------------------------------------------------- .samples */

typedef struct pdx_sample {
	uint64_t off, time;
	int64_t cpu; /* -1: no CPU field */
	int32_t pid, tid;
	uint32_t misc;
	uint64_t ip, period, nr;
	uint64_t *chain;
} pdx_sample;

typedef struct pdx_samples {
	pdx_sample *v;
	size_t n, cap;
} pdx_samples;

static inline void pdx_samples_free(pdx_samples *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].chain);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static inline pdx_sample *pdx_samples_add(pdx_samples *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		if (!s->v)
			abort();
	}
	pdx_sample *x = &s->v[s->n++];
	memset(x, 0, sizeof *x);
	return x;
}

/* Load X.samples; false on a malformed line (reported on stderr). */
static inline bool pdx_samples_load(const char *path, pdx_samples *s)
{
	memset(s, 0, sizeof *s);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return false;
	}
	char *line = NULL;
	size_t cap = 0;
	bool ok = true;
	while (getline(&line, &cap, f) > 0) {
		char *p = line, *e;
		pdx_sample *x = pdx_samples_add(s);
		uint64_t v[9];
		for (int k = 0; k < 9; k++) {
			/* cpu, pid and tid may be -1 */
			if (k >= 2 && k <= 4)
				v[k] = (uint64_t)strtoll(p, &e, 0);
			else
				v[k] = strtoull(p, &e, 0);
			if (e == p) {
				ok = false;
				break;
			}
			p = e;
		}
		if (!ok)
			break;
		x->off = v[0];
		x->time = v[1];
		x->cpu = (int64_t)v[2];
		x->pid = (int32_t)v[3];
		x->tid = (int32_t)v[4];
		x->misc = (uint32_t)v[5];
		x->ip = v[6];
		x->period = v[7];
		x->nr = v[8];
		if (x->nr > 4096) {
			ok = false;
			break;
		}
		x->chain = calloc(x->nr + 1, sizeof *x->chain);
		for (uint64_t k = 0; k < x->nr; k++) {
			x->chain[k] = strtoull(p, &e, 16);
			if (e == p) {
				ok = false;
				break;
			}
			p = e;
		}
	}
	if (!ok)
		fprintf(stderr, "%s: malformed line %zu\n", path, s->n);
	free(line);
	fclose(f);
	return ok;
}

static inline int pdx_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Total order on everything but the offset. */
static inline int pdx_sample_cmp_values(const pdx_sample *a, const pdx_sample *b)
{
	int c;
	if ((c = pdx_cmp_u64(a->time, b->time)) ||
	    (c = pdx_cmp_u64((uint64_t)a->cpu, (uint64_t)b->cpu)) ||
	    (c = pdx_cmp_u64((uint32_t)a->pid, (uint32_t)b->pid)) ||
	    (c = pdx_cmp_u64((uint32_t)a->tid, (uint32_t)b->tid)) ||
	    (c = pdx_cmp_u64(a->misc, b->misc)) ||
	    (c = pdx_cmp_u64(a->ip, b->ip)) ||
	    (c = pdx_cmp_u64(a->period, b->period)) ||
	    (c = pdx_cmp_u64(a->nr, b->nr)))
		return c;
	for (uint64_t k = 0; k < a->nr; k++)
		if ((c = pdx_cmp_u64(a->chain[k], b->chain[k])))
			return c;
	return 0;
}

static inline int pdx_sample_qsort(const void *a, const void *b)
{
	const pdx_sample *x = a, *y = b;
	int c = pdx_sample_cmp_values(x, y);
	return c ? c : pdx_cmp_u64(x->off, y->off);
}

static inline void pdx_sample_print(FILE *f, const char *tag, const pdx_sample *x)
{
	fprintf(f, "%s: off %#" PRIx64 " time %" PRIu64 " cpu %" PRId64
		   " pid %d tid %d misc %#x ip %#" PRIx64 " period %" PRIu64
		   " nr %" PRIu64,
		tag, x->off, x->time, x->cpu, x->pid, x->tid, x->misc, x->ip,
		x->period, x->nr);
	for (uint64_t k = 0; k < x->nr && k < 4; k++)
		fprintf(f, " %#" PRIx64, x->chain[k]);
	fprintf(f, "%s\n", x->nr > 4 ? " ..." : "");
}

/*
 * Compare two sample lists as multisets (sorts both).  Offsets are compared
 * unless `ignore_off`.  Returns the number of differences found and prints
 * the first few.
 */
static inline size_t pdx_samples_diff(const char *what, pdx_samples *want,
				      pdx_samples *got, bool ignore_off)
{
	if (ignore_off) {
		for (size_t i = 0; i < want->n; i++)
			want->v[i].off = 0;
		for (size_t i = 0; i < got->n; i++)
			got->v[i].off = 0;
	}
	qsort(want->v, want->n, sizeof *want->v, pdx_sample_qsort);
	qsort(got->v, got->n, sizeof *got->v, pdx_sample_qsort);
	size_t bad = 0, i = 0, j = 0;
	while (i < want->n || j < got->n) {
		int c = i == want->n ? 1
			: j == got->n ? -1
			: pdx_sample_qsort(&want->v[i], &got->v[j]);
		if (c == 0) {
			i++;
			j++;
			continue;
		}
		if (bad++ < 4) {
			fprintf(stderr, "%s: sample mismatch #%zu\n", what, bad);
			if (i < want->n)
				pdx_sample_print(stderr, "  expected", &want->v[i]);
			if (j < got->n)
				pdx_sample_print(stderr, "  got     ", &got->v[j]);
		}
		if (c < 0)
			i++;
		else
			j++;
	}
	if (want->n != got->n)
		fprintf(stderr, "%s: %zu samples expected, %zu delivered\n",
			what, want->n, got->n);
	return bad;
}

/* ------------------------------------------------------------ walker */

typedef struct pdx_rec {
	uint64_t off;
	uint32_t type;
	uint32_t size; /* header.size; out-of-record payloads not included */
	uint64_t extra; /* bytes of payload after the record (66, 71) */
} pdx_rec;

typedef struct pdx_layout {
	bool pipe;
	uint64_t attrs_off, attrs_size, attr_size;
	uint64_t data_off, data_end; /* data_end = where the walk stopped */
	pdx_rec *recs;
	size_t nrecs;
	bool clean; /* the walk reached the end of the data exactly */
	bool be;
} pdx_layout;

static inline uint64_t pdx_ld(const uint8_t *p, int n, bool be)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[be ? i : n - 1 - i];
	return v;
}

/*
 * Top-level records of a file or pipe image in either byte order (`be` is
 * set for "2ELIFREP"); `stream` = true walks a headerless data.N stream of
 * native order.  false if it is no PERFILE2 image.
 */
static inline bool pdx_walk(const uint8_t *d, size_t len, bool stream,
			    pdx_layout *L)
{
	memset(L, 0, sizeof *L);
	uint64_t p, end = len;
	bool be = false;
	if (stream) {
		p = 0;
	} else {
		if (len < 16)
			return false;
		if (!memcmp(d, "2ELIFREP", 8))
			be = true;
		else if (memcmp(d, "PERFILE2", 8))
			return false;
		uint64_t hs = pdx_ld(d + 8, 8, be);
		if (hs == 16) {
			L->pipe = true;
			p = 16;
		} else {
			if (len < 104)
				return false;
			L->attr_size = pdx_ld(d + 16, 8, be);
			L->attrs_off = pdx_ld(d + 24, 8, be);
			L->attrs_size = pdx_ld(d + 32, 8, be);
			p = pdx_ld(d + 40, 8, be);
			uint64_t ds = pdx_ld(d + 48, 8, be);
			if (p > len)
				return false;
			if (ds && ds <= len - p)
				end = p + ds;
		}
	}
	L->be = be;
	L->data_off = p;
	size_t cap = 0;
	while (end - p >= 8) {
		uint32_t type = (uint32_t)pdx_ld(d + p, 4, be);
		uint32_t size = (uint32_t)pdx_ld(d + p + 6, 2, be);
		/* COMPRESSED2: perf >= 6.16 wraps the u16 size (doc §10) */
		if (type == 83 && end - p >= 16) {
			uint64_t ds = pdx_ld(d + p + 8, 8, be);
			if (ds <= end - p - 16 && ((16 + ds + 7) & ~7ull) > size)
				size = (uint32_t)(16 + ds);
		}
		if (size < 8 || size > end - p)
			break;
		uint64_t extra = 0;
		if (type == 66 && size >= 12)
			extra = (pdx_ld(d + p + 8, 4, be) + 7u) & ~7u;
		else if (type == 71 && size >= 16)
			extra = pdx_ld(d + p + 8, 8, be);
		if (extra > end - p - size)
			break;
		if (L->nrecs == cap) {
			cap = cap ? 2 * cap : 1024;
			L->recs = realloc(L->recs, cap * sizeof *L->recs);
			if (!L->recs)
				abort();
		}
		L->recs[L->nrecs++] = (pdx_rec){ p, type, size, extra };
		p += size + extra;
	}
	L->data_end = p;
	L->clean = p == end;
	return true;
}

#endif
