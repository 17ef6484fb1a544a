/*
 * pd-repeat — make a big recording out of a real one: its kernel records
 * written again and again, each copy's times shifted past the previous
 * copy's, until the data section reaches a given size.  The reader's
 * memory must not grow with the size of its input; a file of a gigabyte
 * is not something to commit, so tests and bench/bench-reader.sh make one
 * when they need it.
 *
 *   pd-repeat IN OUT MB
 *
 * IN is a native (little-endian) file-mode perf.data without compressed
 * records.  Header, attrs and feature sections are kept (feature offsets
 * moved by the growth of the data section).  Every copy holds every
 * kernel record and every FINISHED_ROUND; other perf-tool records (ID
 * index, maps of threads and CPUs, ...) are written once, with the first
 * copy, as perf writes them once.  Times move by more than the input's
 * time span per copy: a sample's TIME, the sample_id_all trailer's TIME,
 * and the time fields of FORK, EXIT, THROTTLE and UNTHROTTLE bodies.
 */
#include <inttypes.h>

#include "pdtool.h"

typedef struct input {
	uint8_t *d;
	size_t len;
	uint64_t data_off, data_size;
	uint64_t sample_type;
	bool sid_all;
} input;

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Where a record keeps its time(s); 0 = nowhere.  At most two places. */
static size_t time_fields(const input *in, const uint8_t *r, size_t size, size_t at[2])
{
	uint32_t type = pt_le32(r);
	uint64_t st = in->sample_type;
	size_t n = 0;
	if (type == 9) {
		if (st & PT_S_TIME)
			at[n++] = 8 + 8 * (size_t)(!!(st & PT_S_IDENTIFIER) + !!(st & PT_S_IP) +
						   !!(st & PT_S_TID));
		return n;
	}
	if (type >= 64)
		return 0;
	if (type == 4 || type == 7) /* EXIT, FORK: u32 pid, ppid, tid, ptid; u64 time */
		at[n++] = 24;
	else if (type == 5 || type == 6) /* THROTTLE, UNTHROTTLE: u64 time */
		at[n++] = 8;
	if (in->sid_all && (st & PT_S_TIME))
		at[n++] = size - 8 * (size_t)__builtin_popcountll(
					     st & (PT_S_TIME | PT_S_ID | PT_S_STREAM_ID |
						   PT_S_CPU | PT_S_IDENTIFIER));
	return n;
}

/* Calls fn for each record of the data section. */
#define FOR_RECORDS(in, p, size)                                                    \
	for (uint64_t off_ = (in)->data_off, end_ = (in)->data_off + (in)->data_size; \
	     off_ + 8 <= end_ && ((p) = (in)->d + off_, (size) = pt_le16((p) + 6)) >= 8 && \
	     off_ + (size) <= end_;                                                   \
	     off_ += (size))

static void open_input(input *in, const char *path)
{
	in->d = pt_read_file(path, &in->len);
	if (in->len < PT_FILE_HEADER || pt_le64(in->d) != PT_MAGIC2 ||
	    pt_le64(in->d + 8) != PT_FILE_HEADER)
		pt_die("%s: not a native file-mode perf.data", path);
	uint64_t attr_size = pt_le64(in->d + 16), attrs = pt_le64(in->d + 24);
	uint64_t attrs_len = pt_le64(in->d + 32);
	in->data_off = pt_le64(in->d + 40);
	in->data_size = pt_le64(in->d + 48);
	if (attr_size < 64 || attrs_len < attr_size || attrs > in->len ||
	    attrs_len > in->len - attrs || in->data_off > in->len ||
	    in->data_size > in->len - in->data_off)
		pt_die("%s: header does not fit the file", path);
	in->sample_type = pt_le64(in->d + attrs + 24);
	in->sid_all = pt_le64(in->d + attrs + 40) & PT_FLAG_SAMPLE_ID_ALL;
	for (uint64_t a = attrs; a + attr_size <= attrs + attrs_len; a += attr_size)
		if (pt_le64(in->d + a + 24) != in->sample_type)
			pt_die("%s: events with different sample_type", path);
}

/* The smallest and largest time; refuses records it cannot repeat. */
static void time_span(const input *in, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *p;
	size_t size, at[2];
	*lo = UINT64_MAX;
	*hi = 0;
	FOR_RECORDS(in, p, size) {
		uint32_t type = pt_le32(p);
		if (type == 66 || type == 71 || type == 81 || type == 83)
			pt_die("record type %u (tracing data, AUX trace, compressed) is not repeated",
			       type);
		size_t n = time_fields(in, p, size, at);
		for (size_t i = 0; i < n; i++) {
			if (at[i] + 8 > size)
				pt_die("record at %" PRIu64 " too short for its time", off_);
			uint64_t t = pt_le64(p + at[i]);
			*lo = t < *lo ? t : *lo;
			*hi = t > *hi ? t : *hi;
		}
	}
	if (*lo > *hi)
		*lo = *hi = 0;
}

static void write_all(FILE *f, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, f) != n)
		pt_die("write failed");
}

/* One copy of the data section, times moved by `shift`; its size. */
static uint64_t write_copy(const input *in, FILE *f, bool first, uint64_t shift)
{
	const uint8_t *p;
	size_t size, at[2];
	uint8_t rec[65536];
	uint64_t written = 0;
	FOR_RECORDS(in, p, size) {
		uint32_t type = pt_le32(p);
		if (type >= 64 && type != 68 && !first) /* 68: FINISHED_ROUND */
			continue;
		memcpy(rec, p, size);
		size_t n = time_fields(in, p, size, at);
		for (size_t i = 0; i < n; i++)
			put_le64(rec + at[i], pt_le64(rec + at[i]) + shift);
		write_all(f, rec, size);
		written += size;
	}
	return written;
}

/* The feature index and sections, offsets past the data moved by `delta`. */
static void write_features(const input *in, FILE *f, uint64_t delta)
{
	uint64_t old_end = in->data_off + in->data_size;
	size_t nfeat = 0;
	for (unsigned i = 0; i < 4; i++)
		nfeat += (size_t)__builtin_popcountll(pt_le64(in->d + 72 + 8 * i));
	size_t tail = in->len - old_end;
	uint8_t *t = malloc(tail ? tail : 1);
	if (!t)
		pt_die("out of memory");
	memcpy(t, in->d + old_end, tail);
	for (size_t i = 0; i < nfeat && 16 * i + 16 <= tail; i++) {
		uint64_t off = pt_le64(t + 16 * i);
		if (off >= old_end)
			put_le64(t + 16 * i, off + delta);
	}
	write_all(f, t, tail);
	free(t);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		pt_die("usage: pd-repeat IN OUT MB");
	input in = { 0 };
	open_input(&in, argv[1]);
	uint64_t want = strtoull(argv[3], NULL, 10) << 20, lo, hi;
	time_span(&in, &lo, &hi);
	uint64_t shift = hi - lo + 1;
	FILE *f = fopen(argv[2], "wb");
	if (!f)
		pt_die("cannot create %s", argv[2]);
	write_all(f, in.d, in.data_off);
	uint64_t data = 0;
	for (uint64_t k = 0; data < want || k == 0; k++)
		data += write_copy(&in, f, k == 0, k * shift);
	write_features(&in, f, data - in.data_size);
	uint8_t le[8];
	put_le64(le, data);
	if (fseek(f, 48, SEEK_SET) != 0)
		pt_die("seek failed");
	write_all(f, le, 8);
	if (fclose(f) != 0)
		pt_die("write failed");
	free(in.d);
	return 0;
}
