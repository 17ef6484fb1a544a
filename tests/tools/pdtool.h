/*
 * pdtool.h — a small, deliberately separate reading of the perf.data layout
 * for the test tools (pd-swap, pd-walk).  It shares no code with the
 * library so that the tools can serve as an independent oracle; it is
 * written from shared/docs/perf-data-format.md and only covers what the
 * project's own fixtures use.  Header-only: each tool is one translation
 * unit.
 */
#ifndef PD_TOOL_H
#define PD_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT_MAGIC2 0x32454c4946524550ull /* "PERFILE2" read little-endian */
#define PT_FILE_HEADER 104u
#define PT_PIPE_HEADER 16u
#define PT_NFEAT 256u

/* sample_type bits used here */
enum {
	PT_S_IP = 1 << 0, PT_S_TID = 1 << 1, PT_S_TIME = 1 << 2,
	PT_S_ADDR = 1 << 3, PT_S_READ = 1 << 4, PT_S_CALLCHAIN = 1 << 5,
	PT_S_ID = 1 << 6, PT_S_CPU = 1 << 7, PT_S_PERIOD = 1 << 8,
	PT_S_STREAM_ID = 1 << 9, PT_S_RAW = 1 << 10,
	PT_S_BRANCH_STACK = 1 << 11, PT_S_REGS_USER = 1 << 12,
	PT_S_STACK_USER = 1 << 13, PT_S_WEIGHT = 1 << 14,
	PT_S_DATA_SRC = 1 << 15, PT_S_IDENTIFIER = 1 << 16,
	PT_S_TRANSACTION = 1 << 17, PT_S_REGS_INTR = 1 << 18,
	PT_S_PHYS_ADDR = 1 << 19, PT_S_AUX = 1 << 20, PT_S_CGROUP = 1 << 21,
	PT_S_DATA_PAGE_SIZE = 1 << 22, PT_S_CODE_PAGE_SIZE = 1 << 23,
	PT_S_WEIGHT_STRUCT = 1 << 24,
};

/* the sample_id_all trailer is made of these */
#define PT_S_TRAILER                                                           \
	(PT_S_TID | PT_S_TIME | PT_S_ID | PT_S_STREAM_ID | PT_S_CPU |          \
	 PT_S_IDENTIFIER)

#define PT_FLAG_FREQ (1ull << 10)
#define PT_FLAG_SAMPLE_ID_ALL (1ull << 18)

static inline void pt_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("pdtool: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static inline uint16_t pt_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t pt_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
static inline uint64_t pt_le64(const uint8_t *p)
{
	return (uint64_t)pt_le32(p) | (uint64_t)pt_le32(p + 4) << 32;
}
static inline void pt_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void pt_put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static inline void pt_put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static inline uint8_t *pt_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		pt_die("cannot open %s", path);
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *d = malloc(cap);
	while (d && (got = fread(d + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			d = realloc(d, cap);
		}
	}
	fclose(f);
	if (!d)
		pt_die("out of memory reading %s", path);
	*len = n;
	return d;
}

/* One event as the tools need it. */
typedef struct pt_attr {
	uint32_t type, size;
	uint64_t config, period, sample_type, read_format, flags;
	uint64_t branch_sample_type, regs_user, regs_intr;
	uint64_t *ids;
	size_t nr_ids;
	char name[128];
	uint64_t samples;
} pt_attr;

static inline void pt_attr_from(pt_attr *a, const uint8_t *p, uint32_t avail)
{
	memset(a, 0, sizeof *a);
	if (avail < 64)
		pt_die("attr shorter than 64 bytes");
	a->type = pt_le32(p);
	a->size = pt_le32(p + 4) ? pt_le32(p + 4) : 64;
	if (a->size > avail || a->size < 64)
		pt_die("attr size %u does not fit (%u)", a->size, avail);
	a->config = pt_le64(p + 8);
	a->period = pt_le64(p + 16);
	a->sample_type = pt_le64(p + 24);
	a->read_format = pt_le64(p + 32);
	a->flags = pt_le64(p + 40);
	if (a->size >= 80)
		a->branch_sample_type = pt_le64(p + 72);
	if (a->size >= 96)
		a->regs_user = pt_le64(p + 80);
	if (a->size >= 104)
		a->regs_intr = pt_le64(p + 96);
	snprintf(a->name, sizeof a->name, "%u:%llu", a->type,
		 (unsigned long long)a->config);
}

/* u64 index of the id in a SAMPLE body, or -1 */
static inline int pt_id_pos(uint64_t st)
{
	if (st & PT_S_IDENTIFIER)
		return 0;
	if (!(st & PT_S_ID))
		return -1;
	int n = 0;
	if (st & PT_S_IP) n++;
	if (st & PT_S_TID) n++;
	if (st & PT_S_TIME) n++;
	if (st & PT_S_ADDR) n++;
	return n;
}

/* u64 index of the id counted from the end of a non-sample record, or -1 */
static inline int pt_is_pos(uint64_t st)
{
	if (st & PT_S_IDENTIFIER)
		return 1;
	if (!(st & PT_S_ID))
		return -1;
	int n = 1;
	if (st & PT_S_CPU) n++;
	if (st & PT_S_STREAM_ID) n++;
	return n;
}

static inline size_t pt_trailer_size(uint64_t st)
{
	return 8u * (size_t)__builtin_popcountll(st & PT_S_TRAILER);
}

/* Which attr owns a record, perf's rule (doc §8). */
static inline int pt_owner(pt_attr *attrs, size_t n, const uint8_t *rec,
			   size_t size, uint32_t type)
{
	if (n <= 1)
		return 0;
	int pos;
	uint64_t id;
	if (type == 9) {
		pos = pt_id_pos(attrs[0].sample_type);
		if (pos < 0 || 8 + 8 * (size_t)pos + 8 > size)
			return 0;
		id = pt_le64(rec + 8 + 8 * pos);
	} else {
		if (!(attrs[0].flags & PT_FLAG_SAMPLE_ID_ALL) || type >= 64)
			return 0;
		pos = pt_is_pos(attrs[0].sample_type);
		if (pos < 0 || 8 + 8 * (size_t)pos > size)
			return 0;
		id = pt_le64(rec + size - 8 * (size_t)pos);
	}
	if (id == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < attrs[i].nr_ids; j++)
			if (attrs[i].ids[j] == id)
				return (int)i;
	return -1;
}

/* perf's names as `perf report --stats` prints them. */
static inline const char *pt_type_name(uint32_t t)
{
	static const char *const k[] = {
		NULL, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE",
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
		"COMPRESSED", "FINISHED_INIT",
	};
	if (t < sizeof k / sizeof k[0])
		return k[t];
	if (t >= 64 && t - 64 < sizeof u / sizeof u[0])
		return u[t - 64];
	return NULL;
}

/*
 * Print counts the way `perf report --stats` does (without the percent
 * column, which tests ignore): types in numeric order, then one section
 * per event that has samples.
 */
static inline void pt_print_stats(FILE *f, const uint64_t by_type[128],
				  const pt_attr *attrs, size_t nattrs)
{
	uint64_t total = 0;
	for (int t = 0; t < 128; t++)
		total += by_type[t];
	fprintf(f, "\nAggregated stats:\n%16s events: %10llu\n", "TOTAL",
		(unsigned long long)total);
	for (uint32_t t = 0; t < 128; t++) {
		if (!by_type[t])
			continue;
		const char *nm = pt_type_name(t);
		char buf[32];
		if (!nm) {
			snprintf(buf, sizeof buf, "UNKNOWN_%u", t);
			nm = buf;
		}
		fprintf(f, "%16s events: %10llu\n", nm,
			(unsigned long long)by_type[t]);
	}
	for (size_t i = 0; i < nattrs; i++)
		if (attrs[i].samples)
			fprintf(f, "%s stats:\n%16s events: %10llu\n",
				attrs[i].name, "SAMPLE",
				(unsigned long long)attrs[i].samples);
}

/*
 * EVENT_DESC payload (doc §5): name the attrs whose ids it lists.  Used on
 * native-order payloads only.
 */
static inline void pt_event_desc(pt_attr *attrs, size_t nattrs,
				 const uint8_t *p, size_t size)
{
	if (size < 8)
		return;
	uint32_t nr = pt_le32(p), asz = pt_le32(p + 4);
	size_t o = 8;
	for (uint32_t e = 0; e < nr; e++) {
		if (o + asz + 8 > size)
			return;
		o += asz;
		uint32_t nids = pt_le32(p + o);
		uint32_t slen = pt_le32(p + o + 4);
		o += 8;
		if (o + slen > size)
			return;
		char name[128];
		size_t l = strnlen((const char *)p + o, slen);
		if (l >= sizeof name)
			l = sizeof name - 1;
		memcpy(name, p + o, l);
		name[l] = 0;
		o += slen;
		if (nids > (size - o) / 8)
			return;
		for (uint32_t k = 0; k < nids; k++) {
			uint64_t id = pt_le64(p + o + 8 * k);
			for (size_t i = 0; i < nattrs; i++)
				for (size_t j = 0; j < attrs[i].nr_ids; j++)
					if (attrs[i].ids[j] == id)
						memcpy(attrs[i].name, name, l + 1);
		}
		/* a single event may come without ids */
		if (nids == 0 && nr == 1 && nattrs == 1)
			memcpy(attrs[0].name, name, l + 1);
		o += 8 * (size_t)nids;
	}
}

#endif
