/*
 * pd-walk — an independent record walker for the test fixtures.
 *
 *   pd-walk --stats   FILE   counts in the format of `perf report --stats`
 *   pd-walk --samples FILE   one line per SAMPLE, file order:
 *       offset time cpu pid tid misc ip period nr chain...
 *
 * It exists for the inputs perf 6.1 cannot read (a `perf record -z` pipe:
 * "Couldn't decompress data"); record-fixtures.sh checks it against perf on
 * every fixture perf can read before trusting it for those.  Native byte
 * order, file and pipe mode, COMPRESSED/COMPRESSED2 with one zstd stream.
 * Not the library: see pdtool.h.
 */
#include <inttypes.h>
#include <zstd.h>

#include "pdtool.h"

typedef struct walk {
	bool samples_mode;
	pt_attr *attrs;
	size_t nattrs;
	uint64_t by_type[128];
	ZSTD_DStream *zs;
	uint8_t *zbuf; /* decompressed bytes not yet parsed */
	size_t zlen, zcap;
	uint64_t straddles; /* compressed records that ended mid-record */
} walk;

static void add_attr(walk *w, const uint8_t *p, size_t avail,
		     const uint8_t *ids, size_t nids)
{
	w->attrs = realloc(w->attrs, (w->nattrs + 1) * sizeof *w->attrs);
	if (!w->attrs)
		pt_die("out of memory");
	pt_attr *a = &w->attrs[w->nattrs++];
	pt_attr_from(a, p, (uint32_t)avail);
	a->ids = calloc(nids ? nids : 1, sizeof *a->ids);
	if (!a->ids)
		pt_die("out of memory");
	for (size_t i = 0; i < nids; i++)
		a->ids[i] = pt_le64(ids + 8 * i);
	a->nr_ids = nids;
}

static void sample(walk *w, const uint8_t *r, size_t size, uint64_t off)
{
	int o = pt_owner(w->attrs, w->nattrs, r, size, 9);
	if (o < 0)
		pt_die("sample at %#" PRIx64 " has an unknown id", off);
	pt_attr *a = &w->attrs[o];
	a->samples++;
	if (!w->samples_mode)
		return;
	uint64_t st = a->sample_type;
	size_t p = 8;
#define NEED(n)                                                                \
	do {                                                                   \
		if (p + (n) > size)                                            \
			pt_die("sample at %#" PRIx64 " too short", off);       \
	} while (0)
	uint64_t ip = 0, time = 0, period = a->period, nr = 0;
	int32_t pid = -1, tid = -1;
	long long cpu = -1;
	if (st & PT_S_IDENTIFIER) { NEED(8); p += 8; }
	if (st & PT_S_IP) { NEED(8); ip = pt_le64(r + p); p += 8; }
	if (st & PT_S_TID) {
		NEED(8);
		pid = (int32_t)pt_le32(r + p);
		tid = (int32_t)pt_le32(r + p + 4);
		p += 8;
	}
	if (st & PT_S_TIME) { NEED(8); time = pt_le64(r + p); p += 8; }
	if (st & PT_S_ADDR) { NEED(8); p += 8; }
	if (st & PT_S_ID) { NEED(8); p += 8; }
	if (st & PT_S_STREAM_ID) { NEED(8); p += 8; }
	if (st & PT_S_CPU) { NEED(8); cpu = pt_le32(r + p); p += 8; }
	if (st & PT_S_PERIOD) { NEED(8); period = pt_le64(r + p); p += 8; }
	if (st & PT_S_READ)
		pt_die("READ samples are not supported by pd-walk");
	if (st & PT_S_CALLCHAIN) {
		NEED(8);
		nr = pt_le64(r + p);
		p += 8;
		if (nr > (size - p) / 8)
			pt_die("sample at %#" PRIx64 ": callchain too long", off);
	}
#undef NEED
	printf("%#" PRIx64 " %" PRIu64 " %lld %d %d %#x %#" PRIx64 " %" PRIu64
	       " %" PRIu64,
	       off, time, cpu, pid, tid, pt_le16(r + 4), ip, period, nr);
	for (uint64_t i = 0; i < nr; i++)
		printf(" %016" PRIx64, pt_le64(r + p + 8 * i));
	putchar('\n');
}

static void record(walk *w, const uint8_t *r, size_t size, uint64_t off,
		   bool pipe);

/* Feed one compressed payload; parse the complete records it yields. */
static void inflate(walk *w, const uint8_t *src, size_t n, uint64_t off)
{
	if (!w->zs && !(w->zs = ZSTD_createDStream()))
		pt_die("zstd");
	ZSTD_inBuffer in = { src, n, 0 };
	while (in.pos < in.size) {
		if (w->zcap - w->zlen < (1u << 16)) {
			w->zcap = w->zcap ? w->zcap * 2 : 1u << 20;
			w->zbuf = realloc(w->zbuf, w->zcap);
			if (!w->zbuf)
				pt_die("out of memory");
		}
		ZSTD_outBuffer out = { w->zbuf, w->zcap, w->zlen };
		size_t rc = ZSTD_decompressStream(w->zs, &out, &in);
		if (ZSTD_isError(rc))
			pt_die("zstd at %#" PRIx64 ": %s", off,
			       ZSTD_getErrorName(rc));
		w->zlen = out.pos;
	}
	size_t p = 0;
	while (w->zlen - p >= 8) {
		size_t sz = pt_le16(w->zbuf + p + 6);
		if (sz < 8)
			pt_die("inner record of size %zu at %#" PRIx64, sz, off);
		if (sz > w->zlen - p)
			break; /* continues in the next compressed record */
		record(w, w->zbuf + p, sz, off, false);
		p += sz;
	}
	if (p < w->zlen)
		w->straddles++;
	memmove(w->zbuf, w->zbuf + p, w->zlen - p);
	w->zlen -= p;
}

static void record(walk *w, const uint8_t *r, size_t size, uint64_t off,
		   bool pipe)
{
	uint32_t type = pt_le32(r);
	if (type < 128)
		w->by_type[type]++;
	if (type == 9)
		sample(w, r, size, off);
	else if (type == 64 && pipe) {
		if (size < 8 + 64)
			pt_die("short HEADER_ATTR at %#" PRIx64, off);
		uint32_t asz = pt_le32(r + 12) ? pt_le32(r + 12) : 64;
		if (asz > size - 8)
			pt_die("HEADER_ATTR at %#" PRIx64 " overflows", off);
		add_attr(w, r + 8, size - 8, r + 8 + asz,
			 (size - 8 - asz) / 8);
	} else if (type == 80 && pipe && size >= 16 && pt_le64(r + 8) == 12)
		pt_event_desc(w->attrs, w->nattrs, r + 16, size - 16);
	else if (type == 81)
		inflate(w, r + 8, size - 8, off);
	else if (type == 83) {
		if (size < 16 || pt_le64(r + 8) > size - 16)
			pt_die("bad COMPRESSED2 at %#" PRIx64, off);
		inflate(w, r + 16, pt_le64(r + 8), off);
	}
}

/* Walk [start, end) of `d`; returns nothing, dies on corruption. */
static void stream(walk *w, const uint8_t *d, size_t start, size_t end,
		   bool pipe)
{
	size_t p = start;
	while (end - p >= 8) {
		size_t sz = pt_le16(d + p + 6);
		uint32_t type = pt_le32(d + p);
		if (sz < 8 || sz > end - p)
			pt_die("bad record header at %#zx", p);
		record(w, d + p, sz, p, pipe);
		p += sz;
		/* payloads that sit outside the record (doc §6.2) */
		if (type == 66 && sz >= 12)
			p += (pt_le32(d + p - sz + 8) + 7u) & ~7u;
		else if (type == 71 && sz >= 16)
			p += pt_le64(d + p - sz + 8);
		if (p > end)
			pt_die("out-of-record payload runs past the end");
	}
}

static void file_mode(walk *w, const uint8_t *d, size_t len)
{
	if (len < PT_FILE_HEADER || pt_le64(d + 8) != PT_FILE_HEADER)
		pt_die("not a 104-byte file header");
	uint64_t attrs_off = pt_le64(d + 24), attrs_size = pt_le64(d + 32);
	uint64_t data_off = pt_le64(d + 40), data_size = pt_le64(d + 48);
	if (attrs_off > len || attrs_size > len - attrs_off ||
	    data_off > len || data_size > len - data_off)
		pt_die("sections out of range");
	uint64_t p = attrs_off, end = attrs_off + attrs_size;
	while (p < end) {
		uint32_t asz = pt_le32(d + p + 4) ? pt_le32(d + p + 4) : 64;
		if (asz + 16 > end - p)
			pt_die("attr overflows the section");
		uint64_t io = pt_le64(d + p + asz), is = pt_le64(d + p + asz + 8);
		if (io > len || is > len - io)
			pt_die("ids out of range");
		add_attr(w, d + p, asz, d + io, is / 8);
		p += asz + 16;
	}
	/* EVENT_DESC names: feature bit 12 */
	uint64_t fi = data_off + data_size, idx = 0;
	for (unsigned b = 0; b < PT_NFEAT && data_size; b++) {
		if (!(pt_le64(d + 72 + 8 * (b / 64)) >> (b % 64) & 1))
			continue;
		if (fi + 16 * idx + 16 > len)
			break;
		uint64_t fo = pt_le64(d + fi + 16 * idx);
		uint64_t fs = pt_le64(d + fi + 16 * idx + 8);
		idx++;
		if (b == 12 && fo <= len && fs <= len - fo)
			pt_event_desc(w->attrs, w->nattrs, d + fo, fs);
	}
	stream(w, d, data_off, data_size ? data_off + data_size : len, false);
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "--stats") && strcmp(argv[1], "--samples")))
		pt_die("usage: pd-walk --stats|--samples FILE");
	walk w = { .samples_mode = !strcmp(argv[1], "--samples") };
	size_t len;
	uint8_t *d = pt_read_file(argv[2], &len);
	if (len < 16 || pt_le64(d) != PT_MAGIC2)
		pt_die("%s: not a native-order PERFILE2 file", argv[2]);
	if (pt_le64(d + 8) == PT_PIPE_HEADER)
		stream(&w, d, PT_PIPE_HEADER, len, true);
	else
		file_mode(&w, d, len);
	if (w.zlen)
		pt_die("%zu decompressed bytes left over", w.zlen);
	if (w.straddles)
		fprintf(stderr, "pd-walk: %" PRIu64 " compressed records end "
			"inside an inner record\n", w.straddles);
	if (!w.samples_mode)
		pt_print_stats(stdout, w.by_type, w.attrs, w.nattrs);
	for (size_t i = 0; i < w.nattrs; i++)
		free(w.attrs[i].ids);
	free(w.attrs);
	free(w.zbuf);
	ZSTD_freeDStream(w.zs);
	free(d);
	return 0;
}
