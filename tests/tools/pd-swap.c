/*
 * pd-swap — turn a native (little-endian) file-mode perf.data into the
 * same recording as a big-endian machine would have written it, so the
 * reader's byte-swapped path can be tested without a big-endian machine.
 *
 *   pd-swap IN OUT [STATS]
 *
 * Every field is written at its own width in big-endian order (two-u32
 * slots such as pid/tid stay two u32s in place).  The attr flag word at
 * offset 40 is a C bitfield: a big-endian compiler allocates it from the
 * most significant bit, so perf reads it raw and reverses the bits of each
 * byte (its swap_bitfield); we store the exact inverse, i.e. each byte of
 * the little-endian word bit-reversed, in place.
 *
 * Kept: SAMPLE, MMAP, MMAP2, COMM, FORK, EXIT, LOST (with their
 * sample_id_all trailers), FINISHED_ROUND, FINISHED_INIT, ID_INDEX, and the
 * feature sections with a simple layout (BUILD_ID, strings, NRCPUS,
 * TOTAL_MEM, CMDLINE, EVENT_DESC, PMU_MAPPINGS, SAMPLE_TIME, CLOCKID).
 * Other records and features are dropped: their bits are cleared and
 * offsets and data.size describe the new file.  STATS receives the counts
 * of what was kept, in `perf report --stats` format.
 *
 * Refuses inputs it cannot convert faithfully (compressed data, branch
 * stacks, AUX samples) rather than writing a file that lies.
 */
#include <inttypes.h>

#include "pdtool.h"

typedef struct buf {
	uint8_t *d;
	size_t len, cap;
} buf;

static size_t put(buf *b, const void *p, size_t n)
{
	if (b->cap - b->len < n) {
		while (b->cap - b->len < n)
			b->cap = b->cap ? b->cap * 2 : 1 << 16;
		b->d = realloc(b->d, b->cap);
		if (!b->d)
			pt_die("out of memory");
	}
	size_t at = b->len;
	if (p)
		memcpy(b->d + at, p, n);
	else
		memset(b->d + at, 0, n);
	b->len += n;
	return at;
}

/*
 * Field converters: the little-endian value at in[off] is stored big-endian
 * at out[off].  Callers have checked that off + width fits.
 */
static void s16(uint8_t *o, const uint8_t *i, size_t off)
{
	pt_put_be16(o + off, pt_le16(i + off));
}
static void s32(uint8_t *o, const uint8_t *i, size_t off)
{
	pt_put_be32(o + off, pt_le32(i + off));
}
static void s64(uint8_t *o, const uint8_t *i, size_t off)
{
	pt_put_be64(o + off, pt_le64(i + off));
}

static uint8_t revbits(uint8_t b)
{
	uint8_t r = 0;
	for (int k = 0; k < 8; k++)
		if (b & (1u << k))
			r |= (uint8_t)(0x80u >> k);
	return r;
}

/* perf_event_attr of `size` bytes, every field at its width (doc §4). */
static void swap_attr(uint8_t *o, const uint8_t *i, size_t size)
{
	static const struct {
		uint8_t off, width;
	} f[] = {
		{ 0, 4 },   { 4, 4 },   { 8, 8 },   { 16, 8 },  { 24, 8 },
		{ 32, 8 },  { 48, 4 },  { 52, 4 },  { 56, 8 },  { 64, 8 },
		{ 72, 8 },  { 80, 8 },  { 88, 4 },  { 92, 4 },  { 96, 8 },
		{ 104, 4 }, { 108, 2 }, { 110, 2 }, { 112, 4 }, { 116, 4 },
		{ 120, 8 }, { 128, 8 },
	};
	memcpy(o, i, size);
	for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
		if (f[k].off + f[k].width > size)
			break;
		if (f[k].width == 2)
			s16(o, i, f[k].off);
		else if (f[k].width == 4)
			s32(o, i, f[k].off);
		else
			s64(o, i, f[k].off);
	}
	for (size_t k = 0; k < 8 && 40 + k < size; k++)
		o[40 + k] = revbits(i[40 + k]);
	for (size_t off = 136; off + 8 <= size; off += 8)
		s64(o, i, off);
}

typedef struct conv {
	const uint8_t *in;
	size_t len;
	pt_attr *attrs;
	size_t nattrs;
	uint64_t by_type[128];
	uint64_t dropped[128];
} conv;

/* Cursor over a record being converted; dies if a field overruns `end`. */
typedef struct cur {
	uint8_t *o;
	const uint8_t *i;
	size_t p, end;
	uint64_t at;
} cur;

static void need(cur *c, size_t n)
{
	if (n > c->end - c->p)
		pt_die("record at %#" PRIx64 ": field at +%zu overruns %zu bytes",
		       c->at, c->p, c->end);
}
static uint64_t c64(cur *c)
{
	need(c, 8);
	uint64_t v = pt_le64(c->i + c->p);
	s64(c->o, c->i, c->p);
	c->p += 8;
	return v;
}
static void c2x32(cur *c)
{
	need(c, 8);
	s32(c->o, c->i, c->p);
	s32(c->o, c->i, c->p + 4);
	c->p += 8;
}
static void cskip(cur *c, uint64_t n)
{
	need(c, n);
	c->p += n;
}

static void swap_regs(cur *c, uint64_t mask)
{
	if (c64(c))
		for (int k = __builtin_popcountll(mask); k > 0; k--)
			c64(c);
}

static void swap_sample(cur *c, const pt_attr *a)
{
	uint64_t st = a->sample_type;
	if (st & (PT_S_BRANCH_STACK | PT_S_AUX | PT_S_WEIGHT_STRUCT))
		pt_die("sample_type %#" PRIx64 " not supported", st);
	if (st & PT_S_IDENTIFIER) c64(c);
	if (st & PT_S_IP) c64(c);
	if (st & PT_S_TID) c2x32(c);
	if (st & PT_S_TIME) c64(c);
	if (st & PT_S_ADDR) c64(c);
	if (st & PT_S_ID) c64(c);
	if (st & PT_S_STREAM_ID) c64(c);
	if (st & PT_S_CPU) c2x32(c);
	if (st & PT_S_PERIOD) c64(c);
	if (st & PT_S_READ) {
		/* every READ value is a u64; only their number varies */
		uint64_t rf = a->read_format;
		uint64_t per = 1 + !!(rf & 4) + !!(rf & 16);
		uint64_t n = per + !!(rf & 1) + !!(rf & 2);
		if (rf & 8) {
			uint64_t nr = c64(c);
			if (nr > (c->end - c->p) / 8 / per)
				pt_die("READ nr %" PRIu64 " too big", nr);
			n = nr * per + !!(rf & 1) + !!(rf & 2);
		}
		for (uint64_t k = 0; k < n; k++)
			c64(c);
	}
	if (st & PT_S_CALLCHAIN) {
		uint64_t nr = c64(c);
		if (nr > (c->end - c->p) / 8)
			pt_die("callchain nr %" PRIu64 " too big", nr);
		for (uint64_t k = 0; k < nr; k++)
			c64(c);
	}
	if (st & PT_S_RAW) {
		need(c, 4);
		uint32_t n = pt_le32(c->i + c->p);
		s32(c->o, c->i, c->p);
		c->p += 4;
		cskip(c, n);
	}
	if (st & PT_S_REGS_USER) swap_regs(c, a->regs_user);
	if (st & PT_S_STACK_USER) {
		uint64_t n = c64(c);
		cskip(c, n); /* stack bytes are memory, not fields */
		if (n)
			c64(c);
	}
	if (st & PT_S_WEIGHT) c64(c);
	if (st & PT_S_DATA_SRC) c64(c);
	if (st & PT_S_TRANSACTION) c64(c);
	if (st & PT_S_REGS_INTR) swap_regs(c, a->regs_intr);
	if (st & PT_S_PHYS_ADDR) c64(c);
	if (st & PT_S_CGROUP) c64(c);
	if (st & PT_S_DATA_PAGE_SIZE) c64(c);
	if (st & PT_S_CODE_PAGE_SIZE) c64(c);
}

/* sample_id_all trailer: same fields, same widths as in a SAMPLE. */
static void swap_trailer(cur *c, uint64_t st)
{
	if (st & PT_S_TID) c2x32(c);
	if (st & PT_S_TIME) c64(c);
	if (st & PT_S_ID) c64(c);
	if (st & PT_S_STREAM_ID) c64(c);
	if (st & PT_S_CPU) c2x32(c);
	if (st & PT_S_IDENTIFIER) c64(c);
}

/* Convert one record into `out`; false if its type is dropped. */
static bool swap_record(conv *v, const uint8_t *r, size_t size, uint64_t at,
			buf *out)
{
	uint32_t type = pt_le32(r);
	uint16_t misc = pt_le16(r + 4);
	bool kernel = type < 64;
	switch (type) {
	case 1: case 2: case 3: case 4: case 7: case 9: case 10:
	case 68: case 69: case 82:
		break;
	default:
		return false;
	}
	int owner = pt_owner(v->attrs, v->nattrs, r, size, type);
	if (owner < 0)
		pt_die("record at %#" PRIx64 " has an unknown id", at);
	const pt_attr *a = &v->attrs[owner];
	size_t o0 = put(out, r, size);
	cur c = { out->d + o0, r, 8, size, at };
	s32(c.o, r, 0);
	s16(c.o, r, 4);
	s16(c.o, r, 6);

	if (type == 9) {
		swap_sample(&c, a);
		v->attrs[owner].samples++;
		return true;
	}
	if (kernel && (a->flags & PT_FLAG_SAMPLE_ID_ALL)) {
		size_t t = pt_trailer_size(a->sample_type);
		if (t > size - 8)
			pt_die("record at %#" PRIx64 " too short for its trailer", at);
		cur tc = { c.o, r, size - t, size, at };
		swap_trailer(&tc, a->sample_type);
		c.end = size - t;
	}
	switch (type) {
	case 1: /* MMAP */
		c2x32(&c); c64(&c); c64(&c); c64(&c);
		break;
	case 2: /* LOST */
		c64(&c); c64(&c);
		break;
	case 3: /* COMM */
		c2x32(&c);
		break;
	case 4: case 7: /* EXIT, FORK */
		c2x32(&c); c2x32(&c); c64(&c);
		break;
	case 10: /* MMAP2 */
		c2x32(&c); c64(&c); c64(&c); c64(&c);
		if (misc & (1u << 14))
			cskip(&c, 24); /* build-id form: u8 size, bytes */
		else {
			c2x32(&c); c64(&c); c64(&c);
		}
		c2x32(&c);
		break;
	case 69: /* ID_INDEX: all u64 */
		while (c.end - c.p >= 8)
			c64(&c);
		break;
	default: /* FINISHED_ROUND, FINISHED_INIT: header only */
		break;
	}
	return true;
}

/* ------------------------------------------------------------- features */

static bool is_string_feat(unsigned f)
{
	return f == 3 || f == 4 || f == 5 || f == 6 || f == 8 || f == 9;
}

static bool kept_feat(unsigned f)
{
	return f == 2 || is_string_feat(f) || f == 7 || f == 10 || f == 11 ||
	       f == 12 || f == 16 || f == 21 || f == 23;
}

/* {u32 len; char s[len]} at p; returns bytes consumed. */
static size_t swap_string(uint8_t *o, const uint8_t *i, size_t p, size_t end)
{
	if (end - p < 4 || pt_le32(i + p) > end - p - 4)
		pt_die("feature string overruns its section");
	s32(o, i, p);
	return 4 + pt_le32(i + p);
}

static void swap_feature(unsigned f, uint8_t *o, const uint8_t *i, size_t n)
{
	size_t p = 0;
	if (is_string_feat(f)) {
		swap_string(o, i, 0, n);
		return;
	}
	switch (f) {
	case 7:
		if (n < 8) pt_die("short NRCPUS");
		s32(o, i, 0);
		s32(o, i, 4);
		break;
	case 10: case 23:
		if (n < 8) pt_die("short feature %u", f);
		s64(o, i, 0);
		break;
	case 21:
		if (n < 16) pt_die("short SAMPLE_TIME");
		s64(o, i, 0);
		s64(o, i, 8);
		break;
	case 11: { /* CMDLINE: u32 nr; string[nr] */
		if (n < 4) pt_die("short CMDLINE");
		uint32_t nr = pt_le32(i);
		s32(o, i, 0);
		p = 4;
		for (uint32_t k = 0; k < nr; k++)
			p += swap_string(o, i, p, n);
		break;
	}
	case 16: { /* PMU_MAPPINGS: u32 nr; {u32 type; string}[nr] */
		if (n < 4) pt_die("short PMU_MAPPINGS");
		uint32_t nr = pt_le32(i);
		s32(o, i, 0);
		p = 4;
		for (uint32_t k = 0; k < nr; k++) {
			if (n - p < 4) pt_die("short PMU_MAPPINGS");
			s32(o, i, p);
			p += 4;
			p += swap_string(o, i, p, n);
		}
		break;
	}
	case 2: /* BUILD_ID entries until the section ends */
		while (n - p >= 36) {
			uint16_t sz = pt_le16(i + p + 6);
			if (sz < 36 || sz > n - p)
				pt_die("bad BUILD_ID entry");
			s32(o, i, p);
			s16(o, i, p + 4);
			s16(o, i, p + 6);
			s32(o, i, p + 8);
			p += sz;
		}
		break;
	case 12: { /* EVENT_DESC */
		if (n < 8) pt_die("short EVENT_DESC");
		uint32_t nr = pt_le32(i), asz = pt_le32(i + 4);
		s32(o, i, 0);
		s32(o, i, 4);
		p = 8;
		for (uint32_t k = 0; k < nr; k++) {
			if (asz < 64 || n - p < (size_t)asz + 4)
				pt_die("short EVENT_DESC");
			swap_attr(o + p, i + p, asz);
			p += asz;
			uint32_t nids = pt_le32(i + p);
			s32(o, i, p);
			p += 4;
			p += swap_string(o, i, p, n);
			if (nids > (n - p) / 8)
				pt_die("short EVENT_DESC ids");
			for (uint32_t j = 0; j < nids; j++, p += 8)
				s64(o, i, p);
		}
		break;
	}
	}
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		pt_die("usage: pd-swap IN OUT [STATS]");
	conv v = { 0 };
	const uint8_t *d = v.in = pt_read_file(argv[1], &v.len);
	size_t len = v.len;
	if (len < PT_FILE_HEADER || pt_le64(d) != PT_MAGIC2 ||
	    pt_le64(d + 8) != PT_FILE_HEADER)
		pt_die("%s: not a native file-mode perf.data", argv[1]);
	uint64_t attr_size = pt_le64(d + 16);
	uint64_t attrs_off = pt_le64(d + 24), attrs_size = pt_le64(d + 32);
	uint64_t data_off = pt_le64(d + 40), data_size = pt_le64(d + 48);
	if (attrs_off > len || attrs_size > len - attrs_off || data_off > len ||
	    data_size > len - data_off || data_size == 0)
		pt_die("sections out of range (or data.size 0)");

	/* attrs and their id arrays */
	buf out = { 0 };
	put(&out, NULL, PT_FILE_HEADER);
	size_t nmax = attrs_size / 80 + 1;
	v.attrs = calloc(nmax, sizeof *v.attrs);
	size_t *ids_at = calloc(nmax, sizeof *ids_at);
	const uint8_t **attr_in = calloc(nmax, sizeof *attr_in);
	if (!v.attrs || !ids_at || !attr_in)
		pt_die("out of memory");
	for (uint64_t p = attrs_off; p < attrs_off + attrs_size;) {
		uint32_t asz = pt_le32(d + p + 4) ? pt_le32(d + p + 4) : 64;
		if (asz + 16 > attrs_off + attrs_size - p || v.nattrs == nmax)
			pt_die("attr overflows the section");
		uint64_t io = pt_le64(d + p + asz), is = pt_le64(d + p + asz + 8);
		if (io > len || is > len - io || is % 8)
			pt_die("ids out of range");
		pt_attr *a = &v.attrs[v.nattrs];
		pt_attr_from(a, d + p, asz);
		a->nr_ids = is / 8;
		a->ids = calloc(a->nr_ids + 1, 8);
		if (!a->ids)
			pt_die("out of memory");
		ids_at[v.nattrs] = put(&out, NULL, is);
		for (size_t k = 0; k < a->nr_ids; k++) {
			a->ids[k] = pt_le64(d + io + 8 * k);
			pt_put_be64(out.d + ids_at[v.nattrs] + 8 * k, a->ids[k]);
		}
		attr_in[v.nattrs++] = d + p;
		p += asz + 16;
	}
	uint64_t new_attrs = out.len;
	for (size_t k = 0; k < v.nattrs; k++) {
		size_t asz = v.attrs[k].size;
		size_t at = put(&out, NULL, asz + 16);
		swap_attr(out.d + at, attr_in[k], asz);
		pt_put_be64(out.d + at + asz, ids_at[k]);
		pt_put_be64(out.d + at + asz + 8, v.attrs[k].nr_ids * 8);
	}
	uint64_t new_attrs_size = out.len - new_attrs;

	/* records */
	uint64_t new_data = out.len;
	for (uint64_t p = data_off; p < data_off + data_size;) {
		if (data_off + data_size - p < 8)
			pt_die("partial record header at %#" PRIx64, p);
		uint32_t type = pt_le32(d + p);
		uint16_t sz = pt_le16(d + p + 6);
		if (sz < 8 || sz > data_off + data_size - p)
			pt_die("bad record size at %#" PRIx64, p);
		if (type == 81 || type == 83 || type == 66 || type == 71)
			pt_die("record type %u at %#" PRIx64 " cannot be converted",
			       type, p);
		bool kept = swap_record(&v, d + p, sz, p, &out);
		if (type < 128)
			(kept ? v.by_type : v.dropped)[type]++;
		p += sz;
	}
	uint64_t new_data_size = out.len - new_data;

	/* features: index right after the data, then the kept payloads */
	uint64_t bits[4] = { 0 };
	unsigned kept[PT_NFEAT];
	uint64_t fo[PT_NFEAT], fs[PT_NFEAT];
	size_t nk = 0, idx = 0;
	uint64_t fi = data_off + data_size;
	for (unsigned b = 0; b < PT_NFEAT; b++) {
		if (!(pt_le64(d + 72 + 8 * (b / 64)) >> (b % 64) & 1))
			continue;
		if (fi + 16 * idx + 16 > len)
			pt_die("feature index out of range");
		uint64_t o = pt_le64(d + fi + 16 * idx);
		uint64_t s = pt_le64(d + fi + 16 * idx + 8);
		idx++;
		if (o > len || s > len - o)
			pt_die("feature %u out of range", b);
		if (!kept_feat(b))
			continue;
		if (b == 12)
			pt_event_desc(v.attrs, v.nattrs, d + o, s);
		kept[nk] = b;
		fo[nk] = o;
		fs[nk++] = s;
		bits[b / 64] |= 1ull << (b % 64);
	}
	size_t index_at = put(&out, NULL, 16 * nk);
	for (size_t k = 0; k < nk; k++) {
		size_t at = put(&out, d + fo[k], fs[k]);
		swap_feature(kept[k], out.d + at, d + fo[k], fs[k]);
		pt_put_be64(out.d + index_at + 16 * k, at);
		pt_put_be64(out.d + index_at + 16 * k + 8, fs[k]);
	}

	/* header */
	uint8_t *h = out.d;
	pt_put_be64(h, PT_MAGIC2);
	pt_put_be64(h + 8, PT_FILE_HEADER);
	pt_put_be64(h + 16, attr_size);
	pt_put_be64(h + 24, new_attrs);
	pt_put_be64(h + 32, new_attrs_size);
	pt_put_be64(h + 40, new_data);
	pt_put_be64(h + 48, new_data_size);
	for (int k = 0; k < 4; k++)
		pt_put_be64(h + 72 + 8 * k, bits[k]);

	FILE *f = fopen(argv[2], "wb");
	if (!f || fwrite(out.d, 1, out.len, f) != out.len || fclose(f))
		pt_die("cannot write %s", argv[2]);
	if (argc == 4) {
		FILE *s = fopen(argv[3], "w");
		if (!s)
			pt_die("cannot write %s", argv[3]);
		pt_print_stats(s, v.by_type, v.attrs, v.nattrs);
		if (fclose(s))
			pt_die("cannot write %s", argv[3]);
	}
	for (uint32_t t = 0; t < 128; t++)
		if (v.dropped[t])
			fprintf(stderr, "pd-swap: dropped %" PRIu64 " %s records\n",
				v.dropped[t], pt_type_name(t) ? pt_type_name(t) : "?");
	for (size_t k = 0; k < v.nattrs; k++)
		free(v.attrs[k].ids);
	free(v.attrs);
	free(ids_at);
	free(attr_in);
	free(out.d);
	free((void *)d);
	return 0;
}
