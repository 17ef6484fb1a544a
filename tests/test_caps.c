/*
 * The reader's resource caps (pd_reader_options), each through the public
 * API on a hand-built input: a value exactly at the cap is read, one past
 * it stops with PD_ELIMIT and an error naming the record's byte offset and
 * the option (feature caps: a warning naming the section's offset, the
 * feature skipped).  Byte offsets are computed by the builder, not taken
 * from the reader.  The pprof caps (max_pprof_bytes, max_pprof_memory, and
 * the format's entry counts) the same way, through a profile whose session
 * has the reader options, the memory cap against what protobuf-c itself
 * allocates to decode the message.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#if PD_TEST_HAVE_PPROF
#include "profile.pb-c.h"
#endif
#include "reader/internal.h"

/* ------------------------------------------------------------ builder */

/* A record starts here; rec_end pads it and writes its size. */
static size_t rec_begin(pd_test_img *m, uint32_t type, uint16_t misc)
{
	size_t at = m->n;
	pd_test_put32(m, type);
	pd_test_put16(m, misc);
	pd_test_put16(m, 0);
	return at;
}

static void rec_end(pd_test_img *m, size_t at)
{
	pd_test_pad8(m);
	ck_assert_uint_le(m->n - at, 65535);
	pd_test_set16(m, at + 6, (uint16_t)(m->n - at));
}

#define ST_BASE (PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_PERIOD)

/* A perf_event_attr of PD_ATTR_KNOWN_SIZE bytes: cpu-clock, period 1000. */
static void put_attr(pd_test_img *m, uint64_t sample_type)
{
	size_t at = m->n;
	pd_test_put32(m, 1);                  /* PERF_TYPE_SOFTWARE */
	pd_test_put32(m, PD_ATTR_KNOWN_SIZE);
	pd_test_put64(m, 0);                  /* cpu-clock */
	pd_test_put64(m, 1000);
	pd_test_put64(m, sample_type);
	pd_test_put_zero(m, PD_ATTR_KNOWN_SIZE - (m->n - at));
}

/* A HEADER_ATTR with ids 100, 101, ...; returns its offset. */
static size_t put_header_attr(pd_test_img *m, uint64_t sample_type, size_t nids)
{
	size_t r = rec_begin(m, PD_RECORD_HEADER_ATTR, 0);
	put_attr(m, sample_type);
	for (size_t i = 0; i < nids; i++)
		pd_test_put64(m, 100 + i);
	rec_end(m, r);
	return r;
}

/* Pipe-mode header and one HEADER_ATTR with `nids` ids. */
static void pipe_start(pd_test_img *m, uint64_t sample_type, size_t nids)
{
	pd_test_put(m, "PERFILE2", 8);
	pd_test_put64(m, 16);
	put_header_attr(m, sample_type, nids);
}

static size_t put_comm(pd_test_img *m, const char *comm)
{
	size_t r = rec_begin(m, PD_RECORD_COMM, 0);
	pd_test_put32(m, 42);
	pd_test_put32(m, 42);
	pd_test_put(m, comm, strlen(comm) + 1);
	rec_end(m, r);
	return r;
}

static size_t put_mmap2(pd_test_img *m, const char *file)
{
	size_t r = rec_begin(m, PD_RECORD_MMAP2, PD_CPUMODE_USER);
	pd_test_put32(m, 42);
	pd_test_put32(m, 42);
	pd_test_put64(m, 0x400000);
	pd_test_put64(m, 0x1000);
	pd_test_put64(m, 0);
	pd_test_put_zero(m, 24);  /* maj, min, ino, ino_generation */
	pd_test_put32(m, 5);      /* PROT_READ|PROT_EXEC */
	pd_test_put32(m, 2);      /* MAP_PRIVATE */
	pd_test_put(m, file, strlen(file) + 1);
	rec_end(m, r);
	return r;
}

/* A SAMPLE of ST_BASE plus, as the attr says, CALLCHAIN and BRANCH_STACK. */
static size_t put_sample(pd_test_img *m, uint64_t sample_type, uint64_t time, uint64_t chain,
			 uint64_t branches)
{
	size_t r = rec_begin(m, PD_RECORD_SAMPLE, PD_CPUMODE_USER);
	pd_test_put64(m, 0x401000);
	pd_test_put32(m, 42);
	pd_test_put32(m, 42);
	pd_test_put64(m, time);
	pd_test_put64(m, 1000);
	if (sample_type & PD_SAMPLE_CALLCHAIN) {
		pd_test_put64(m, chain);
		for (uint64_t i = 0; i < chain; i++)
			pd_test_put64(m, i == 0 ? PD_CONTEXT_USER : 0x401000 + i);
	}
	if (sample_type & PD_SAMPLE_BRANCH_STACK) {
		pd_test_put64(m, branches);
		for (uint64_t i = 0; i < branches; i++) {
			pd_test_put64(m, 0x401000 + i);
			pd_test_put64(m, 0x402000 + i);
			pd_test_put64(m, 0);
		}
	}
	rec_end(m, r);
	return r;
}

/* --------------------------------------------------------- file mode */

typedef struct file_spec {
	size_t nattrs;
	size_t nids;              /* per attr */
	uint64_t sample_type;
	const pd_test_img *data;          /* records */
	const char *hostname;     /* HOSTNAME feature, or NULL */
	/* filled by build_file */
	size_t ids_off;           /* first attr's id table */
	size_t data_off;
	size_t hostname_off;      /* the HOSTNAME section */
	size_t hostname_len;
} file_spec;

static void build_file(pd_test_img *m, file_spec *s)
{
	const size_t attr_size = PD_ATTR_KNOWN_SIZE + 16;
	pd_test_put(m, "PERFILE2", 8);
	pd_test_put64(m, 104);
	pd_test_put64(m, attr_size);
	pd_test_put64(m, 104);                          /* attrs */
	pd_test_put64(m, s->nattrs * attr_size);
	size_t data_hdr = m->n;
	pd_test_put_zero(m, 32);                        /* data, event_types */
	pd_test_put64(m, s->hostname ? 1ull << PD_FEAT_HOSTNAME : 0);
	pd_test_put_zero(m, 24);
	ck_assert_uint_eq(m->n, 104);
	s->ids_off = 104 + s->nattrs * attr_size;
	for (size_t i = 0; i < s->nattrs; i++) {
		put_attr(m, s->sample_type);
		pd_test_put64(m, s->ids_off + i * s->nids * 8);
		pd_test_put64(m, s->nids * 8);
	}
	for (size_t i = 0; i < s->nattrs; i++)
		for (size_t j = 0; j < s->nids; j++)
			pd_test_put64(m, 1000 * (i + 1) + j);
	s->data_off = m->n;
	if (s->data)
		pd_test_put(m, s->data->b, s->data->n);
	pd_test_set64(m, data_hdr, s->data_off);
	pd_test_set64(m, data_hdr + 8, m->n - s->data_off);
	if (s->hostname) {
		size_t idx = m->n;
		pd_test_put_zero(m, 16);
		s->hostname_off = m->n;
		uint32_t len = (uint32_t)((strlen(s->hostname) + 1 + 7) / 8 * 8);
		pd_test_put32(m, len);
		pd_test_put(m, s->hostname, strlen(s->hostname) + 1);
		pd_test_put_zero(m, len - strlen(s->hostname) - 1);
		s->hostname_len = m->n - s->hostname_off;
		pd_test_set64(m, idx, s->hostname_off);
		pd_test_set64(m, idx + 8, s->hostname_len);
	}
}

/* ------------------------------------------------------------ reading */

typedef struct result {
	int open_rc, rc;
	pd_error err;
	size_t records, samples, comms;
	uint64_t max_chain, max_branches;
	const char *hostname_seen; /* only whether it was set */
	size_t nwarn;
	char warn[8][PD_ERROR_MESSAGE_MAX];
} result;

static void read_img(const pd_test_img *m, const pd_reader_options *o, result *out)
{
	memset(out, 0, sizeof *out);
	int fd = memfd_create("caps.data", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, m->b, m->n), (ssize_t)m->n);
	lseek(fd, 0, SEEK_SET);
	pd_reader *r;
	out->open_rc = pd_reader_open_fd(&r, fd, "caps.data", o, &out->err);
	if (out->open_rc < 0) {
		close(fd);
		return;
	}
	out->hostname_seen = pd_reader_header(r)->hostname ? "set" : NULL;
	const pd_record *rec;
	while ((out->rc = pd_reader_next(r, &rec, &out->err)) == 0) {
		out->records++;
		if (rec->type == PD_RECORD_COMM)
			out->comms++;
		if (rec->type == PD_RECORD_SAMPLE) {
			out->samples++;
			if (rec->u.sample.callchain_nr > out->max_chain)
				out->max_chain = rec->u.sample.callchain_nr;
			if (rec->u.sample.branch_nr > out->max_branches)
				out->max_branches = rec->u.sample.branch_nr;
		}
	}
	out->nwarn = pd_reader_warning_count(r);
	for (size_t i = 0; i < out->nwarn && i < 8; i++)
		snprintf(out->warn[i], sizeof out->warn[i], "%s", pd_reader_warning(r, i));
	pd_reader_free(r);
	close(fd);
}

/* The error is PD_ELIMIT at `offset`, says so in its message, and names `option`. */
static void expect_limit(const result *res, uint64_t offset, const char *option)
{
	char at[64];
	snprintf(at, sizeof at, "offset %llu:", (unsigned long long)offset);
	int rc = res->open_rc < 0 ? res->open_rc : res->rc;
	ck_assert_msg(rc == PD_ELIMIT, "rc %d (%s), want PD_ELIMIT", rc, res->err.message);
	ck_assert_int_eq(res->err.code, PD_ELIMIT);
	ck_assert_uint_eq(res->err.offset, offset);
	ck_assert_msg(strstr(res->err.message, at), "'%s' lacks '%s'", res->err.message, at);
	ck_assert_msg(strstr(res->err.message, option), "'%s' lacks '%s'", res->err.message,
		      option);
}

static void expect_ok(const result *res)
{
	ck_assert_msg(res->open_rc == 0, "open: %s", res->err.message);
	ck_assert_msg(res->rc == PD_ITEROVER, "rc %d: %s", res->rc, res->err.message);
}

static bool has_warning(const result *res, const char *a, const char *b)
{
	for (size_t i = 0; i < res->nwarn && i < 8; i++)
		if (strstr(res->warn[i], a) && strstr(res->warn[i], b))
			return true;
	return false;
}

static pd_reader_options defaults(void)
{
	pd_reader_options o;
	pd_reader_options_init(&o, PD_READER_OPTIONS_VERSION);
	return o;
}

/* -------------------------------------------------------------- tests */

START_TEST(test_defaults)
{
	pd_reader_options o = PD_READER_OPTIONS_INIT, p;
	pd_reader_options_init(&p, PD_READER_OPTIONS_VERSION);
	ck_assert_uint_eq(o.max_record_bytes, p.max_record_bytes);
	ck_assert_uint_eq(o.max_string, p.max_string);
	ck_assert_uint_eq(o.max_callchain, p.max_callchain);
	ck_assert_uint_eq(o.max_branches, p.max_branches);
	ck_assert_uint_eq(o.max_queue_bytes, p.max_queue_bytes);
	ck_assert_uint_eq(o.version, 5);
	ck_assert_uint_eq(o.max_pprof_bytes, p.max_pprof_bytes);
	ck_assert_uint_eq(o.max_pprof_memory, p.max_pprof_memory);
	ck_assert_uint_eq(o.max_pprof_bytes, 256ull << 20);
	ck_assert_uint_eq(o.max_pprof_memory, 1ull << 30);
	ck_assert_ptr_null(o.progress);
	ck_assert_ptr_null(p.progress);
	ck_assert_ptr_null(o.progress_payload);
	ck_assert_ptr_null(o.warn);
	ck_assert_ptr_null(p.warn);
	ck_assert_uint_eq(o.max_record_bytes, 64ull << 20);
	ck_assert_uint_eq(o.max_string, 65536);
	ck_assert_uint_eq(o.max_callchain, 4096);
	ck_assert_uint_eq(o.max_branches, 1024);
	ck_assert_uint_eq(o.max_attrs, 4096);
	ck_assert_uint_eq(o.max_decompressed, 64ull << 20);
}
END_TEST

/* A version-1 caller's struct ends at max_decompressed: the newer caps must
 * take their defaults, not whatever lies after it. */
START_TEST(test_options_v1)
{
	pd_test_img m = {0};
	pipe_start(&m, ST_BASE | PD_SAMPLE_CALLCHAIN, 0);
	put_sample(&m, ST_BASE | PD_SAMPLE_CALLCHAIN, 1, 4096, 0);
	size_t bad = put_sample(&m, ST_BASE | PD_SAMPLE_CALLCHAIN, 2, 4097, 0);
	/* exactly the old size: ASan catches a read past it */
	size_t v1size = offsetof(pd_reader_options, max_record_bytes);
	uint8_t *raw = malloc(v1size);
	pd_reader_options d = defaults();
	d.version = 1;
	memcpy(raw, &d, v1size);
	result res;
	read_img(&m, (const pd_reader_options *)(void *)raw, &res);
	expect_limit(&res, bad, "max_callchain");
	ck_assert_uint_eq(res.samples, 1);
	/* unknown versions are refused */
	d.version = PD_READER_OPTIONS_VERSION + 1;
	read_img(&m, &d, &res);
	ck_assert_int_eq(res.open_rc, PD_EINVAL);
	free(raw);
	pd_test_img_free(&m);
}
END_TEST

START_TEST(test_callchain)
{
	const uint64_t st = ST_BASE | PD_SAMPLE_CALLCHAIN;
	/* the default: 4096 entries is fine, 4097 is not */
	for (int over = 0; over < 2; over++) {
		pd_test_img m = {0};
		pipe_start(&m, st, 0);
		put_sample(&m, st, 1, 3, 0);
		size_t deep = put_sample(&m, st, 2, 4096 + (uint64_t)over, 0);
		pd_reader_options o = defaults();
		result res;
		read_img(&m, &o, &res);
		if (over) {
			expect_limit(&res, deep, "max_callchain");
			ck_assert_uint_eq(res.samples, 1); /* the one before is delivered */
		} else {
			expect_ok(&res);
			ck_assert_uint_eq(res.samples, 2);
			ck_assert_uint_eq(res.max_chain, 4096);
		}
		pd_test_img_free(&m);
	}
	/* a lowered cap, in file mode */
	pd_test_img d = {0};
	put_sample(&d, st, 1, 2, 0);
	size_t rel = put_sample(&d, st, 2, 10, 0);
	file_spec fs = { .nattrs = 1, .sample_type = st, .data = &d };
	pd_test_img f = {0};
	build_file(&f, &fs);
	pd_reader_options o = defaults();
	o.max_callchain = 10;
	result res;
	read_img(&f, &o, &res);
	expect_ok(&res);
	ck_assert_uint_eq(res.max_chain, 10);
	o.max_callchain = 9;
	read_img(&f, &o, &res);
	expect_limit(&res, fs.data_off + rel, "max_callchain");
	ck_assert_msg(strstr(res.err.message, "10 entries"), "%s", res.err.message);
	/* in file order too (decoded when read, not when dequeued) */
	o.flags = PD_READER_FILE_ORDER;
	read_img(&f, &o, &res);
	expect_limit(&res, fs.data_off + rel, "max_callchain");
	pd_test_img_free(&d);
	pd_test_img_free(&f);
}
END_TEST

START_TEST(test_branches)
{
	const uint64_t st = ST_BASE | PD_SAMPLE_BRANCH_STACK;
	for (int over = 0; over < 2; over++) {
		pd_test_img m = {0};
		pipe_start(&m, st, 0);
		size_t s = put_sample(&m, st, 1, 0, 1024 + (uint64_t)over);
		pd_reader_options o = defaults();
		result res;
		read_img(&m, &o, &res);
		if (over) {
			expect_limit(&res, s, "max_branches");
			ck_assert_uint_eq(res.samples, 0);
		} else {
			expect_ok(&res);
			ck_assert_uint_eq(res.max_branches, 1024);
		}
		pd_test_img_free(&m);
	}
	pd_test_img m = {0};
	pipe_start(&m, st, 0);
	size_t s = put_sample(&m, st, 1, 0, 33);
	pd_reader_options o = defaults();
	o.max_branches = 33;
	result res;
	read_img(&m, &o, &res);
	expect_ok(&res);
	o.max_branches = 32;
	read_img(&m, &o, &res);
	expect_limit(&res, s, "max_branches");
	pd_test_img_free(&m);
}
END_TEST

START_TEST(test_record_bytes)
{
	/* longer than the 144-byte HEADER_ATTR before it */
	char longcomm[201];
	memset(longcomm, 'b', 200);
	longcomm[200] = '\0';
	pd_test_img m = {0};
	pipe_start(&m, ST_BASE, 0);
	put_comm(&m, "first");
	size_t at = put_comm(&m, longcomm);
	uint16_t size;
	memcpy(&size, m.b + at + 6, 2);
	pd_reader_options o = defaults();
	o.max_record_bytes = size;
	result res;
	read_img(&m, &o, &res);
	expect_ok(&res);
	ck_assert_uint_eq(res.comms, 2);
	o.max_record_bytes = size - 1u;
	read_img(&m, &o, &res);
	expect_limit(&res, at, "max_record_bytes");
	ck_assert_uint_eq(res.comms, 1);
	pd_test_img_free(&m);

	/*
	 * COMPRESSED2 states a u64 data_size: at the default cap a claim of
	 * 64 MiB (+16 header bytes) stops reading at once, in a file far
	 * smaller than that; 16 bytes less is merely a truncated record.
	 */
	for (int over = 0; over < 2; over++) {
		pd_test_img c = {0};
		pipe_start(&c, ST_BASE, 0);
		put_comm(&c, "x");
		size_t z = rec_begin(&c, PD_RECORD_COMPRESSED2, 0);
		pd_test_put64(&c, (64ull << 20) - 16 + (uint64_t)over);
		pd_test_put_zero(&c, 64);
		pd_test_set16(&c, z + 6, 16); /* the u16 size wrapped, as perf 6.16 writes it */
		o = defaults();
		read_img(&c, &o, &res);
		if (over) {
			expect_limit(&res, z, "max_record_bytes");
		} else {
			expect_ok(&res);
			ck_assert_msg(has_warning(&res, "truncated", "COMPRESSED2"), "%s",
				      res.nwarn ? res.warn[0] : "no warning");
		}
		ck_assert_uint_eq(res.comms, 1);
		pd_test_img_free(&c);
	}
}
END_TEST

/* COMPRESSED record holding `inner`, at the end of `m`; returns its offset. */
static size_t put_compressed(pd_test_img *m, const pd_test_img *inner)
{
	size_t bound = ZSTD_compressBound(inner->n);
	uint8_t *z = malloc(bound);
	size_t zn = ZSTD_compress(z, bound, inner->b, inner->n, 3);
	ck_assert(!ZSTD_isError(zn));
	size_t r = rec_begin(m, PD_RECORD_COMPRESSED, 0);
	pd_test_put(m, z, zn);
	/* no padding: the payload is the record minus its header */
	ck_assert_uint_le(m->n - r, 65535);
	pd_test_set16(m, r + 6, (uint16_t)(m->n - r));
	free(z);
	return r;
}

START_TEST(test_compressed_inner_and_decompressed)
{
	/* the inner record compresses to far less than itself, so the
	 * COMPRESSED record stays under the caps tried on the inner one */
	char longcomm[2001];
	memset(longcomm, 'a', 2000);
	longcomm[2000] = '\0';
	pd_test_img inner = {0};
	put_comm(&inner, "one");
	size_t second = put_comm(&inner, longcomm);
	uint16_t size;
	memcpy(&size, inner.b + second + 6, 2);
	pd_test_img m = {0};
	pipe_start(&m, ST_BASE, 0);
	size_t z = put_compressed(&m, &inner);
	pd_reader_options o = defaults();
	result res;

	/* max_record_bytes holds for records inside compressed data */
	o.max_record_bytes = size;
	read_img(&m, &o, &res);
	expect_ok(&res);
	ck_assert_uint_eq(res.comms, 2);
	o.max_record_bytes = size - 1u;
	read_img(&m, &o, &res);
	expect_limit(&res, z, "max_record_bytes");
	ck_assert_uint_eq(res.comms, 1);

	/* max_decompressed: what one compressed record yields */
	o = defaults();
	o.max_decompressed = inner.n;
	read_img(&m, &o, &res);
	expect_ok(&res);
	ck_assert_uint_eq(res.comms, 2);
	o.max_decompressed = inner.n - 1;
	read_img(&m, &o, &res);
	expect_limit(&res, z, "max_decompressed");
	ck_assert_uint_eq(res.comms, 0);
	pd_test_img_free(&inner);
	pd_test_img_free(&m);
}
END_TEST

START_TEST(test_string_records)
{
	const char *comm = "sixteen-chars-ab"; /* 16 bytes before the NUL */
	const char *file = "/usr/lib/libtwentyfour.so"; /* 25 */
	pd_test_img m = {0};
	pipe_start(&m, ST_BASE, 0);
	size_t c = put_comm(&m, comm);
	size_t f = put_mmap2(&m, file);
	pd_reader_options o = defaults();
	result res;
	o.max_string = 25;
	read_img(&m, &o, &res);
	expect_ok(&res);
	ck_assert_uint_eq(res.records, 3);
	o.max_string = 24;
	read_img(&m, &o, &res);
	expect_limit(&res, f, "max_string");
	ck_assert_msg(strstr(res.err.message, "MMAP2 record: filename"), "%s", res.err.message);
	ck_assert_uint_eq(res.comms, 1);
	o.max_string = 16;
	read_img(&m, &o, &res);
	expect_limit(&res, f, "max_string");
	o.max_string = 15;
	read_img(&m, &o, &res);
	expect_limit(&res, c, "max_string");
	ck_assert_msg(strstr(res.err.message, "COMM record: comm"), "%s", res.err.message);
	ck_assert_uint_eq(res.comms, 0);

	/* EVENT_UPDATE names the event: the same cap */
	pd_test_img e = {0};
	pipe_start(&e, ST_BASE, 1);
	size_t u = rec_begin(&e, PD_RECORD_EVENT_UPDATE, 0);
	pd_test_put64(&e, 2); /* PERF_EVENT_UPDATE__NAME */
	pd_test_put64(&e, 100);
	pd_test_put(&e, "my-event-name", 14);
	rec_end(&e, u);
	o = defaults();
	o.max_string = 13;
	read_img(&e, &o, &res);
	expect_ok(&res);
	o.max_string = 12;
	read_img(&e, &o, &res);
	expect_limit(&res, u, "max_string");
	pd_test_img_free(&e);
	pd_test_img_free(&m);
}
END_TEST

START_TEST(test_string_feature)
{
	const char *host = "host-name-of-24-bytes-xy";
	pd_test_img f = {0};
	file_spec fs = { .nattrs = 1, .sample_type = ST_BASE, .hostname = host };
	pd_test_img d = {0};
	put_comm(&d, "c");
	fs.data = &d;
	build_file(&f, &fs);
	pd_reader_options o = defaults();
	result res;
	o.max_string = 24;
	read_img(&f, &o, &res);
	expect_ok(&res);
	ck_assert_ptr_nonnull(res.hostname_seen);
	ck_assert_uint_eq(res.nwarn, 0);
	/* over the cap: the feature is skipped with a warning at its section */
	o.max_string = 23;
	read_img(&f, &o, &res);
	expect_ok(&res);
	ck_assert_ptr_null(res.hostname_seen);
	ck_assert_uint_eq(res.comms, 1);
	char at[64];
	snprintf(at, sizeof at, "offset %zu:", fs.hostname_off);
	ck_assert_msg(has_warning(&res, at, "max_string"), "%s", res.nwarn ? res.warn[0] : "none");
	ck_assert_msg(has_warning(&res, "HOSTNAME", "max_string"), "%s", res.warn[0]);

	/* max_feature_bytes: the section's size */
	o = defaults();
	o.max_feature_bytes = fs.hostname_len;
	read_img(&f, &o, &res);
	expect_ok(&res);
	ck_assert_ptr_nonnull(res.hostname_seen);
	o.max_feature_bytes = fs.hostname_len - 1;
	read_img(&f, &o, &res);
	expect_ok(&res);
	ck_assert_ptr_null(res.hostname_seen);
	ck_assert_msg(has_warning(&res, at, "max_feature_bytes"), "%s",
		      res.nwarn ? res.warn[0] : "none");

	/* the parser itself reports PD_ELIMIT */
	pd_meta meta;
	pd_meta_init(&meta);
	pd_error perr = { 0 };
	o = defaults();
	o.max_string = 23;
	ck_assert_int_eq(pd_feature_parse(&meta, PD_FEAT_HOSTNAME, f.b + fs.hostname_off,
					  fs.hostname_len, false, &o, &perr), PD_ELIMIT);
	o.max_string = 24;
	ck_assert_int_eq(pd_feature_parse(&meta, PD_FEAT_HOSTNAME, f.b + fs.hostname_off,
					  fs.hostname_len, false, &o, &perr), 0);
	ck_assert_str_eq(meta.info.hostname, host);
	pd_meta_free(&meta);
	pd_test_img_free(&d);
	pd_test_img_free(&f);
}
END_TEST

START_TEST(test_attrs_and_ids)
{
	pd_test_img d = {0};
	put_comm(&d, "c");
	file_spec fs = { .nattrs = 3, .nids = 5, .sample_type = ST_BASE | PD_SAMPLE_ID,
			 .data = &d };
	pd_test_img f = {0};
	build_file(&f, &fs);
	pd_reader_options o = defaults();
	result res;
	o.max_attrs = 3;
	o.max_ids_per_attr = 5;
	read_img(&f, &o, &res);
	expect_ok(&res);
	o.max_attrs = 2;
	read_img(&f, &o, &res);
	expect_limit(&res, 32, "max_attrs"); /* the attrs section's size field */
	o.max_attrs = 3;
	o.max_ids_per_attr = 4;
	read_img(&f, &o, &res);
	expect_limit(&res, fs.ids_off, "max_ids_per_attr");

	/* pipe mode: the HEADER_ATTR that is one too many */
	pd_test_img p = {0};
	pipe_start(&p, ST_BASE | PD_SAMPLE_ID, 2);
	put_header_attr(&p, ST_BASE | PD_SAMPLE_ID, 0);
	size_t third = put_header_attr(&p, ST_BASE | PD_SAMPLE_ID, 0);
	o = defaults();
	o.max_attrs = 3;
	o.max_ids_per_attr = 2;
	read_img(&p, &o, &res);
	expect_ok(&res);
	o.max_attrs = 2;
	read_img(&p, &o, &res);
	expect_limit(&res, third, "max_attrs");
	o.max_attrs = 3;
	o.max_ids_per_attr = 1;
	read_img(&p, &o, &res);
	expect_limit(&res, 16, "max_ids_per_attr");
	pd_test_img_free(&p);
	pd_test_img_free(&d);
	pd_test_img_free(&f);
}
END_TEST

/* max_queue_bytes counts the copied records plus each queued entry's
 * bookkeeping (a heap key and a slot). */
START_TEST(test_queue)
{
	pd_test_img m = {0};
	pipe_start(&m, ST_BASE, 0);
	enum { N = 20 };
	size_t at[N], size = 0;
	for (size_t i = 0; i < N; i++) {
		at[i] = put_sample(&m, ST_BASE, 1000 - i, 0, 0);
		size = m.n - at[i];
	}
	const uint64_t per = sizeof(pd_qentry) + sizeof(pd_qkey);
	pd_reader_options o = defaults();
	o.flags = PD_READER_NO_MMAP; /* records are copied into the queue */
	o.max_queue_bytes = N * size + (N - 1) * per;
	result res;
	read_img(&m, &o, &res);
	expect_ok(&res);
	ck_assert_uint_eq(res.samples, N);
	o.max_queue_bytes--;
	read_img(&m, &o, &res);
	expect_limit(&res, at[N - 1], "max_queue_bytes");
	/* what was queued is still delivered */
	ck_assert_uint_eq(res.samples, N - 1);
	pd_test_img_free(&m);
}
END_TEST

#if PD_TEST_HAVE_PPROF /* the pprof caps: a build with pprof only */
/* ---------------------------------------------------------------- pprof */

/* fp.data exported as pprof, raw protobuf or gzipped (caller frees). */
static uint8_t *fp_export(bool gzip, size_t *len)
{
	char path[PD_TEST_PATHMAX];
	pd_profile *p;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, NULL, &err), 0);
	ck_assert_msg(pd_profile_add_file(p, pd_test_data(path, sizeof path, "fp.data"), &err) == 0,
		      "%s", err.message);
	pd_pprof_write_options wo;
	pd_pprof_write_options_init(&wo, PD_PPROF_WRITE_OPTIONS_VERSION);
	wo.gzip = gzip;
	void *buf;
	ck_assert_int_eq(pd_profile_write_pprof_buffer(p, &buf, len, &wo, &err), 0);
	pd_profile_free(p);
	return buf;
}

/* pd_profile_add_pprof_buffer() of `buf` by a profile whose session's
 * reader options are `o`; the error in *err. */
static int add_pprof(const void *buf, size_t len, const pd_reader_options *o, pd_error *err)
{
	pd_session_options so;
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	so.reader = o;
	pd_profile_options po;
	pd_profile_options_init(&po, PD_PROFILE_OPTIONS_VERSION);
	po.session = &so;
	pd_profile *p;
	memset(err, 0, sizeof *err);
	ck_assert_int_eq(pd_profile_new(&p, &po, err), 0);
	int rc = pd_profile_add_pprof_buffer(p, buf, len, "caps.pb", err);
	ck_assert_uint_eq(pd_profile_run_count(p), rc == 0);
	pd_profile_free(p);
	return rc;
}

static void expect_pprof_limit(int rc, const pd_error *err, const char *what)
{
	ck_assert_msg(rc == PD_ELIMIT, "rc %d (%s), want PD_ELIMIT", rc, err->message);
	ck_assert_msg(strstr(err->message, "caps.pb"), "'%s' names no file", err->message);
	ck_assert_msg(strstr(err->message, what), "'%s' lacks '%s'", err->message, what);
}

/* max_pprof_bytes: the protobuf, raw or inflated, exactly at the cap is
 * read, a byte more is not. */
START_TEST(test_pprof_bytes)
{
	size_t raw_len, gz_len;
	uint8_t *raw = fp_export(false, &raw_len), *gz = fp_export(true, &gz_len);
	pd_reader_options o = defaults();
	pd_error err;
	o.max_pprof_bytes = raw_len;
	ck_assert_msg(add_pprof(raw, raw_len, &o, &err) == 0, "%s", err.message);
	ck_assert_msg(add_pprof(gz, gz_len, &o, &err) == 0, "%s", err.message);
	o.max_pprof_bytes = raw_len - 1;
	expect_pprof_limit(add_pprof(raw, raw_len, &o, &err), &err, "max_pprof_bytes");
	expect_pprof_limit(add_pprof(gz, gz_len, &o, &err), &err, "max_pprof_bytes");
	free(raw);
	free(gz);
}
END_TEST

/* What protobuf-c itself allocates to decode a message, counted by an
 * allocator of the test's: the bytes asked for at the peak, and how many
 * blocks were live then. */
typedef struct oracle {
	size_t bytes, blocks, peak_bytes, peak_blocks;
} oracle;

static void *oracle_alloc(void *data, size_t n)
{
	oracle *o = data;
	size_t *p = malloc(n + 16);
	p[0] = n;
	o->bytes += n;
	o->blocks++;
	if (o->bytes > o->peak_bytes) {
		o->peak_bytes = o->bytes;
		o->peak_blocks = o->blocks;
	}
	return (char *)p + 16;
}

static void oracle_free(void *data, void *ptr)
{
	oracle *o = data;
	if (!ptr)
		return;
	size_t *p = (size_t *)(void *)((char *)ptr - 16);
	o->bytes -= p[0];
	o->blocks--;
	free(p);
}

/* max_pprof_memory: the smallest cap that reads the export lies between
 * what protobuf-c asks for at its peak and that plus malloc's overhead per
 * live block; below it the file is refused before decoding, at the offset
 * of a field (the decoder's own refusal names none). */
START_TEST(test_pprof_memory)
{
	size_t len;
	uint8_t *raw = fp_export(false, &len);
	oracle orc = { 0, 0, 0, 0 };
	ProtobufCAllocator al = { oracle_alloc, oracle_free, &orc };
	Perftools__Profiles__Profile *m = perftools__profiles__profile__unpack(&al, len, raw);
	ck_assert_ptr_nonnull(m);
	perftools__profiles__profile__free_unpacked(m, &al);
	pd_reader_options o = defaults();
	pd_error err;
	size_t lo = 0, hi = (size_t)1 << 30; /* refused at lo, read at hi */
	while (hi - lo > 1) {
		o.max_pprof_memory = lo + (hi - lo) / 2;
		if (add_pprof(raw, len, &o, &err) == 0)
			hi = o.max_pprof_memory;
		else
			lo = o.max_pprof_memory;
	}
	fprintf(stderr, "pprof of %zu bytes: read from a cap of %zu; protobuf-c's peak %zu bytes "
		"in %zu blocks\n", len, hi, orc.peak_bytes, orc.peak_blocks);
	ck_assert_uint_ge(hi, orc.peak_bytes);
	ck_assert_uint_le(hi, orc.peak_bytes + 40 * orc.peak_blocks);
	o.max_pprof_memory = hi - 1;
	expect_pprof_limit(add_pprof(raw, len, &o, &err), &err, "max_pprof_memory");
	ck_assert_msg(err.offset != PD_NO_OFFSET, "'%s': refused while decoding", err.message);
	free(raw);
}
END_TEST

/* An entry count beyond the format's cap stops the prescan at that
 * entry, whatever the memory cap: 2^24 + 1 empty strings, each 2 bytes. */
START_TEST(test_pprof_counts)
{
	const size_t cap = (size_t)1 << 24, n = 2 * (cap + 1);
	uint8_t *raw = malloc(n);
	for (size_t i = 0; i < n; i += 2) {
		raw[i] = 6 << 3 | 2; /* string_table, length-delimited */
		raw[i + 1] = 0;
	}
	pd_reader_options o = defaults();
	o.max_pprof_memory = UINT64_MAX;
	pd_error err;
	expect_pprof_limit(add_pprof(raw, n, &o, &err), &err,
			   "more than 16777216 string_table entries");
	ck_assert_uint_eq(err.offset, 2 * cap);
	/* with the default cap, memory runs out first */
	o = defaults();
	expect_pprof_limit(add_pprof(raw, n, &o, &err), &err, "max_pprof_memory");
	ck_assert_uint_lt(err.offset, 2 * cap);
	free(raw);
}
END_TEST

#endif

static Suite *suite(void)
{
	Suite *s = suite_create("caps");
	TCase *tc = tcase_create("caps");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_options_v1);
	tcase_add_test(tc, test_callchain);
	tcase_add_test(tc, test_branches);
	tcase_add_test(tc, test_record_bytes);
	tcase_add_test(tc, test_compressed_inner_and_decompressed);
	tcase_add_test(tc, test_string_records);
	tcase_add_test(tc, test_string_feature);
	tcase_add_test(tc, test_attrs_and_ids);
	tcase_add_test(tc, test_queue);
#if PD_TEST_HAVE_PPROF
	tcase_add_test(tc, test_pprof_bytes);
	tcase_add_test(tc, test_pprof_memory);
	tcase_add_test(tc, test_pprof_counts);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
