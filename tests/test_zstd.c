/*
 * The streaming decompressor: one context across all feeds, input cut at
 * arbitrary points of a never-ended zstd frame (as perf writes it), output
 * drained completely, errors and the output cap.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "reader/internal.h"

/* Deterministic, moderately compressible bytes that look like records. */
static uint8_t *make_input(size_t n, uint32_t seed)
{
	uint8_t *d = malloc(n);
	ck_assert_ptr_nonnull(d);
	uint32_t x = seed;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		/* mostly a repeating 64-byte pattern with random bytes mixed in */
		d[i] = (x >> 24) < 40 ? (uint8_t)(x >> 16) : (uint8_t)(i % 64 * 3);
	}
	return d;
}

typedef struct stream {
	uint8_t *data;
	size_t len;
	size_t *flush_at; /* end offsets of each ZSTD_e_flush block */
	size_t nflush;
} stream;

/*
 * Compress `in` in pieces of `piece` bytes, each followed by a flush, the
 * way perf does per mmap chunk; the frame is never ended.
 */
static void compress_flushed(const uint8_t *in, size_t n, size_t piece, int level,
			     stream *s)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ck_assert_ptr_nonnull(c);
	ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)));
	size_t cap = ZSTD_compressBound(n) + 65536 + n / 8;
	s->data = malloc(cap);
	s->flush_at = malloc(sizeof(size_t) * (n / piece + 2));
	ck_assert_ptr_nonnull(s->data);
	ck_assert_ptr_nonnull(s->flush_at);
	s->len = 0;
	s->nflush = 0;
	for (size_t off = 0; off < n; off += piece) {
		size_t len = n - off < piece ? n - off : piece;
		ZSTD_inBuffer ib = { in + off, len, 0 };
		size_t rem;
		do {
			ZSTD_outBuffer ob = { s->data + s->len, cap - s->len, 0 };
			rem = ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_flush);
			ck_assert(!ZSTD_isError(rem));
			s->len += ob.pos;
		} while (rem != 0);
		ck_assert_uint_eq(ib.pos, len);
		s->flush_at[s->nflush++] = s->len;
	}
	ZSTD_freeCCtx(c);
}

static void stream_free(stream *s)
{
	free(s->data);
	free(s->flush_at);
}

/* Feed `s` cut at `cuts` (ascending offsets) and compare with `in`. */
static void feed_and_check(const stream *s, const size_t *cuts, size_t ncuts,
			   const uint8_t *in, size_t n)
{
	pd_zstd *z;
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	pd_buf out = { 0 };
	pd_error perr = { 0 };
	size_t prev = 0;
	for (size_t i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : s->len;
		ck_assert_uint_ge(end, prev);
		size_t before = out.len;
		ck_assert_int_eq(pd_zstd_feed(z, s->data + prev, end - prev, &out,
					      64ull << 20, &perr), 0);
		/* whatever has come out so far is a prefix of the input */
		ck_assert_uint_le(out.len, n);
		ck_assert_uint_ge(out.len, before);
		ck_assert_int_eq(memcmp(out.data, in, out.len), 0);
		prev = end;
	}
	ck_assert_uint_eq(out.len, n);
	ck_assert_int_eq(memcmp(out.data, in, n), 0);
	pd_buf_free(&out);
	pd_zstd_free(z);
}

/* Fed one flushed block at a time, each feed yields exactly that block. */
START_TEST(flush_blocks_exact)
{
	const size_t n = 1 << 20, piece = 64 * 1024 + 17;
	uint8_t *in = make_input(n, 1);
	stream s;
	compress_flushed(in, n, piece, 1, &s);
	ck_assert_uint_lt(s.len, n);

	pd_zstd *z;
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	pd_buf out = { 0 };
	pd_error perr = { 0 };
	size_t prev = 0;
	for (size_t i = 0; i < s.nflush; i++) {
		size_t before = out.len;
		ck_assert_int_eq(pd_zstd_feed(z, s.data + prev, s.flush_at[i] - prev,
					      &out, 64ull << 20, &perr), 0);
		size_t want = (i + 1) * piece < n ? piece : n - i * piece;
		ck_assert_uint_eq(out.len - before, want);
		prev = s.flush_at[i];
	}
	ck_assert_uint_eq(out.len, n);
	ck_assert_int_eq(memcmp(out.data, in, n), 0);
	pd_buf_free(&out);
	pd_zstd_free(z);
	stream_free(&s);
	free(in);
}
END_TEST

/* Cuts one byte before/after each flush point and inside blocks. */
START_TEST(awkward_cuts)
{
	const size_t n = 700 * 1000 + 3, piece = 50 * 1000 + 1;
	uint8_t *in = make_input(n, 2);
	stream s;
	compress_flushed(in, n, piece, 3, &s);
	size_t *cuts = malloc(sizeof(size_t) * s.nflush * 4 + 8);
	size_t nc = 0, last = 0;
	for (size_t i = 0; i < s.nflush; i++) {
		size_t f = s.flush_at[i];
		size_t cand[] = { f > 1 ? f - 1 : 0, f + 1, f + 7, (last + f) / 2 };
		for (int k = 0; k < 4; k++) {
			if (cand[k] > last && cand[k] < s.len) {
				cuts[nc++] = cand[k];
				last = cand[k];
			}
		}
	}
	ck_assert_uint_gt(nc, 20);
	feed_and_check(&s, cuts, nc, in, n);
	free(cuts);
	stream_free(&s);
	free(in);
}
END_TEST

/* A byte at a time: every call may yield nothing or a little. */
START_TEST(byte_at_a_time)
{
	const size_t n = 40000;
	uint8_t *in = make_input(n, 3);
	stream s;
	compress_flushed(in, n, 4096, 1, &s);
	size_t *cuts = malloc(sizeof(size_t) * s.len);
	for (size_t i = 1; i < s.len; i++)
		cuts[i - 1] = i;
	feed_and_check(&s, cuts, s.len - 1, in, n);
	free(cuts);
	stream_free(&s);
	free(in);
}
END_TEST

/* Pseudo-random cut sizes, several seeds. */
START_TEST(random_cuts)
{
	const size_t n = 300000;
	uint8_t *in = make_input(n, 4);
	stream s;
	compress_flushed(in, n, 12345, 5, &s);
	size_t *cuts = malloc(sizeof(size_t) * s.len);
	for (uint32_t seed = 1; seed <= 8; seed++) {
		uint32_t x = seed;
		size_t nc = 0, pos = 0;
		for (;;) {
			x = x * 1664525u + 1013904223u;
			pos += 1 + (x >> 8) % 3000;
			if (pos >= s.len)
				break;
			cuts[nc++] = pos;
		}
		feed_and_check(&s, cuts, nc, in, n);
	}
	free(cuts);
	stream_free(&s);
	free(in);
}
END_TEST

/* A tiny input that expands far beyond zstd's output step: all of it must
 * come out of one call. */
START_TEST(drains_large_output)
{
	const size_t n = 20u << 20;
	uint8_t *in = calloc(1, n);
	ck_assert_ptr_nonnull(in);
	memset(in + 12345, 'x', 1000);
	stream s;
	compress_flushed(in, n, n, 1, &s);
	ck_assert_uint_lt(s.len, 4096);
	ck_assert_uint_eq(s.nflush, 1);
	feed_and_check(&s, NULL, 0, in, n);
	stream_free(&s);
	free(in);
}
END_TEST

/*
 * Blocks that only partly fit in the room left: zstd decodes such a block
 * (consuming its input) and then stops with the output full, so a caller
 * that stops once the input is consumed loses the rest of the block.
 */
START_TEST(partial_block_drained)
{
	const size_t pieces[] = { 30000, 100000, 131072 };
	const size_t prefill[] = { 0, 1000, 60000, 131000 };
	const size_t n = 400000;
	uint8_t *in = make_input(n, 9);
	for (size_t a = 0; a < 3; a++) {
		stream s;
		compress_flushed(in, n, pieces[a], 1, &s);
		for (size_t b = 0; b < 4; b++) {
			pd_zstd *z;
			ck_assert_int_eq(pd_zstd_new(&z), 0);
			pd_buf out = { 0 };
			ck_assert_int_eq(pd_buf_reserve(&out, prefill[b]), 0);
			if (prefill[b])
				memset(out.data, 'p', prefill[b]);
			out.len = prefill[b];
			pd_error perr = { 0 };
			ck_assert_int_eq(pd_zstd_feed(z, s.data, s.len, &out, n, &perr), 0);
			ck_assert_uint_eq(out.len, prefill[b] + n);
			ck_assert_int_eq(memcmp(out.data + prefill[b], in, n), 0);
			pd_buf_free(&out);
			pd_zstd_free(z);
		}
		stream_free(&s);
	}
	free(in);
}
END_TEST

/* Output is appended after what the caller left in the buffer. */
START_TEST(appends_to_carry_over)
{
	const size_t n = 10000;
	uint8_t *in = make_input(n, 5);
	stream s;
	compress_flushed(in, n, n, 1, &s);
	pd_zstd *z;
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	pd_buf out = { 0 };
	ck_assert_int_eq(pd_buf_append(&out, "tail", 4), 0);
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_zstd_feed(z, s.data, s.len, &out, n, &perr), 0);
	ck_assert_uint_eq(out.len, n + 4);
	ck_assert_int_eq(memcmp(out.data, "tail", 4), 0);
	ck_assert_int_eq(memcmp(out.data + 4, in, n), 0);
	/* an empty feed yields nothing */
	ck_assert_int_eq(pd_zstd_feed(z, s.data, 0, &out, n, &perr), 0);
	ck_assert_uint_eq(out.len, n + 4);
	pd_buf_free(&out);
	pd_zstd_free(z);
	stream_free(&s);
	free(in);
}
END_TEST

/* Ended frames followed by new ones also decode (robustness). */
START_TEST(several_frames)
{
	const size_t n = 200000;
	uint8_t *in = make_input(n, 6);
	size_t cap = ZSTD_compressBound(n) * 2;
	stream s = { malloc(cap), 0, NULL, 0 };
	for (size_t off = 0; off < n; off += 50000) {
		size_t r = ZSTD_compress(s.data + s.len, cap - s.len, in + off, 50000, 1);
		ck_assert(!ZSTD_isError(r));
		s.len += r;
	}
	size_t cuts[] = { 5, 1000, 30000, 30001, 60000 };
	size_t nc = 0;
	while (nc < 5 && cuts[nc] < s.len)
		nc++;
	feed_and_check(&s, cuts, nc, in, n);
	free(s.data);
	free(in);
}
END_TEST

START_TEST(corrupt_input)
{
	pd_zstd *z;
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	pd_buf out = { 0 };
	pd_error perr = { 0 };
	const char junk[] = "[ perf record: Woken up 1 times to write data ]";
	ck_assert_int_eq(pd_zstd_feed(z, junk, sizeof junk, &out, 1 << 20, &perr),
			 PD_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(perr.message, "zstd"));
	ck_assert_uint_eq(out.len, 0);
	pd_buf_free(&out);
	pd_zstd_free(z);

	/* a valid stream whose block data is then damaged */
	const size_t n = 100000;
	uint8_t *in = make_input(n, 7);
	stream s;
	compress_flushed(in, n, 20000, 1, &s);
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	size_t first = s.flush_at[0];
	ck_assert_int_eq(pd_zstd_feed(z, s.data, first, &out, 1 << 20, &perr), 0);
	ck_assert_uint_eq(out.len, 20000);
	/* the next block header: type 3 (reserved) is always invalid */
	s.data[first] = (uint8_t)(s.data[first] | 0x06);
	int rc = pd_zstd_feed(z, s.data + first, s.len - first, &out, 1 << 20, &perr);
	ck_assert_int_eq(rc, PD_ECORRUPT);
	ck_assert_uint_eq(out.len, 20000); /* nothing half-appended */
	pd_buf_free(&out);
	pd_zstd_free(z);
	stream_free(&s);
	free(in);
}
END_TEST

START_TEST(output_cap)
{
	const size_t n = 16u << 20;
	uint8_t *in = calloc(1, n);
	ck_assert_ptr_nonnull(in);
	stream s;
	compress_flushed(in, n, n, 1, &s);
	pd_zstd *z;
	pd_buf out = { 0 };
	pd_error perr = { 0 };

	ck_assert_int_eq(pd_zstd_new(&z), 0);
	ck_assert_int_eq(pd_zstd_feed(z, s.data, s.len, &out, n - 1, &perr), PD_ELIMIT);
	ck_assert_ptr_nonnull(strstr(perr.message, "16777215"));
	ck_assert_uint_eq(out.len, 0);
	pd_zstd_free(z);
	pd_buf_free(&out);

	/* a small cap stops early: the buffer does not grow to the expansion */
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	ck_assert_int_eq(pd_zstd_feed(z, s.data, s.len, &out, 1000, &perr), PD_ELIMIT);
	ck_assert_uint_eq(out.len, 0);
	ck_assert_uint_lt(out.cap, 1u << 20);
	pd_zstd_free(z);

	/* exactly at the cap is fine */
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	ck_assert_int_eq(pd_zstd_feed(z, s.data, s.len, &out, n, &perr), 0);
	ck_assert_uint_eq(out.len, n);
	pd_zstd_free(z);

	/* max_out 0: any output is too much */
	out.len = 0;
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	ck_assert_int_eq(pd_zstd_feed(z, s.data, s.len, &out, 0, &perr), PD_ELIMIT);
	pd_zstd_free(z);

	/* the cap is per feed, not cumulative */
	stream s2;
	uint8_t *in2 = make_input(300000, 8);
	compress_flushed(in2, 300000, 100000, 1, &s2);
	out.len = 0;
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	size_t prev = 0;
	for (size_t i = 0; i < s2.nflush; i++) {
		ck_assert_int_eq(pd_zstd_feed(z, s2.data + prev, s2.flush_at[i] - prev,
					      &out, 100000, &perr), 0);
		prev = s2.flush_at[i];
	}
	ck_assert_uint_eq(out.len, 300000);
	ck_assert_int_eq(memcmp(out.data, in2, 300000), 0);
	pd_zstd_free(z);

	pd_buf_free(&out);
	stream_free(&s);
	stream_free(&s2);
	free(in);
	free(in2);
}
END_TEST

/* A real `perf record -z` file: the payloads of all COMPRESSED records,
 * fed one record at a time, decode as one stream into whole records. */
START_TEST(real_perf_z)
{
	if (!pd_test_have_perf())
		PD_SKIP("perf not available");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char cmd[4200];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && perf record -z -N -e cpu-clock -o z.data -- "
		 "sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1"
		 " && echo ok", dir);
	int st;
	char *o = pd_test_run(cmd, &st);
	bool ok = o && strstr(o, "ok");
	free(o);
	if (!ok) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf record -z failed");
	}
	char path[4300];
	snprintf(path, sizeof path, "%s/z.data", dir);
	size_t len;
	uint8_t *d = pd_test_read_file(path, &len);
	ck_assert_ptr_nonnull(d);
	uint64_t off = pd_ld64(d + 40, false), end = off + pd_ld64(d + 48, false);
	ck_assert_uint_le(end, len);

	pd_zstd *z;
	ck_assert_int_eq(pd_zstd_new(&z), 0);
	pd_buf out = { 0 };
	pd_error perr = { 0 };
	unsigned ncomp = 0;
	uint64_t inner = 0;
	size_t consumed = 0;
	while (off + 8 <= end) {
		uint32_t type = pd_ld32(d + off, false);
		uint16_t size = pd_ld16(d + off + 6, false);
		ck_assert_uint_ge(size, 8);
		if (type == PD_RECORD_COMPRESSED) {
			ncomp++;
			ck_assert_int_eq(pd_zstd_feed(z, d + off + 8, size - 8u, &out,
						      64ull << 20, &perr), 0);
			/* walk complete inner records; keep a straddling tail */
			while (out.len - consumed >= 8) {
				uint16_t isz = pd_ld16(out.data + consumed + 6, false);
				uint32_t it = pd_ld32(out.data + consumed, false);
				ck_assert_uint_ge(isz, 8);
				ck_assert_uint_lt(it, 128);
				if (out.len - consumed < isz)
					break;
				consumed += isz;
				inner++;
			}
		}
		off += size;
	}
	ck_assert_uint_gt(ncomp, 0);
	ck_assert_uint_gt(inner, ncomp);
	ck_assert_uint_eq(consumed, out.len);
	pd_buf_free(&out);
	pd_zstd_free(z);
	free(d);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("zstd");
	TCase *t = tcase_create("stream");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, flush_blocks_exact);
	tcase_add_test(t, awkward_cuts);
	tcase_add_test(t, byte_at_a_time);
	tcase_add_test(t, random_cuts);
	tcase_add_test(t, drains_large_output);
	tcase_add_test(t, partial_block_drained);
	tcase_add_test(t, appends_to_carry_over);
	tcase_add_test(t, several_frames);
	tcase_add_test(t, corrupt_input);
	tcase_add_test(t, output_cap);
	tcase_add_test(t, real_perf_z);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
