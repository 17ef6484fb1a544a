/*
 * gzip around pprof's protobuf, with zlib: pprof files are usually
 * .pb.gz.  Inflating is capped as it goes, so a zip bomb (a few KB that
 * inflate to gigabytes) stops at the cap instead of at the end of
 * memory, and a stream that ends early is an error at its offset rather
 * than a profile with its tail missing.
 */
#include <stdlib.h>
#include <zlib.h>

#include "internal.h"

/* Room for more output in `b`, never beyond `cap` + 1 bytes (one byte
 * more than the cap tells "too large" from "exactly the cap"). */
static int grow_out(pd_buf *b, size_t cap)
{
	if (b->len < b->cap)
		return 0;
	size_t want = b->cap ? b->cap * 2 : (size_t)1 << 16;
	if (want > cap + 1)
		want = cap + 1;
	if (want <= b->cap)
		return PD_ELIMIT;
	uint8_t *d = realloc(b->data, want);
	if (!d)
		return PD_ENOMEM;
	b->data = d;
	b->cap = want;
	return 0;
}

/* One step of inflate into `b`: Z_OK, Z_STREAM_END or an error. */
static int step(z_stream *z, pd_buf *b)
{
	z->next_out = b->data + b->len;
	z->avail_out = (uInt)(b->cap - b->len > UINT32_MAX ? UINT32_MAX : b->cap - b->len);
	uInt before = z->avail_out;
	int zrc = inflate(z, Z_NO_FLUSH);
	b->len += before - z->avail_out;
	return zrc;
}

static int gunzip_loop(z_stream *z, size_t cap, pd_buf *b, size_t n, const char *name,
		       pd_error *err)
{
	for (;;) {
		int rc = grow_out(b, cap);
		if (rc < 0 && rc != PD_ELIMIT)
			return pd_error_set(err, rc, name, PD_NO_OFFSET, "out of memory");
		int zrc = rc == 0 ? step(z, b) : Z_OK;
		/* the byte past the cap, which the buffer has room for */
		if (rc == PD_ELIMIT || b->len > cap)
			return pd_error_set(err, PD_ELIMIT, name, PD_NO_OFFSET,
					    "pprof: inflates to more than %zu bytes "
					    "(pd_reader_options.max_pprof_bytes)", cap);
		if (zrc == Z_STREAM_END && z->avail_in == 0)
			return 0;
		/* gzip members may follow one another (concatenated files) */
		if (zrc == Z_STREAM_END && (zrc = inflateReset(z)) == Z_OK)
			continue;
		if (zrc == Z_BUF_ERROR && z->avail_in == 0)
			return pd_error_set(err, PD_ECORRUPT, name, n,
					    "pprof: gzip stream ends early (truncated file)");
		if (zrc != Z_OK && zrc != Z_BUF_ERROR)
			return pd_error_set(err, zrc == Z_MEM_ERROR ? PD_ENOMEM : PD_ECORRUPT,
					    name, n - z->avail_in, "pprof: bad gzip data: %s",
					    z->msg ? z->msg : "inflate failed");
	}
}

int pp_gunzip(const uint8_t *in, size_t n, size_t cap, uint8_t **out, size_t *outn,
	      const char *name, pd_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (n > UINT32_MAX)
		return pd_error_set(err, PD_ELIMIT, name, PD_NO_OFFSET,
				    "pprof: compressed input above 4 GiB");
	/* 16 + 15: a gzip header, the largest window */
	if (inflateInit2(&z, 16 + 15) != Z_OK)
		return pd_error_set(err, PD_ENOMEM, name, PD_NO_OFFSET, "out of memory");
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	pd_buf b = { NULL, 0, 0 };
	int rc = gunzip_loop(&z, cap, &b, n, name, err);
	inflateEnd(&z);
	if (rc < 0) {
		pd_buf_free(&b);
		return rc;
	}
	*out = b.data;
	*outn = b.len;
	return 0;
}

size_t pp_gunzip_head(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (n > UINT32_MAX || cap > UINT32_MAX || inflateInit2(&z, 16 + 15) != Z_OK)
		return SIZE_MAX;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	int zrc = inflate(&z, Z_SYNC_FLUSH);
	size_t got = cap - z.avail_out;
	inflateEnd(&z);
	return zrc == Z_OK || zrc == Z_STREAM_END || zrc == Z_BUF_ERROR ? got : SIZE_MAX;
}

int pp_gzip(const uint8_t *in, size_t n, pd_buf *b)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (n > UINT32_MAX ||
	    deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return PD_ENOMEM;
	uLong bound = deflateBound(&z, (uLong)n);
	int rc = pd_buf_reserve(b, bound);
	if (rc == 0) {
		z.next_in = (Bytef *)(uintptr_t)in;
		z.avail_in = (uInt)n;
		z.next_out = b->data + b->len;
		z.avail_out = (uInt)bound;
		rc = deflate(&z, Z_FINISH) == Z_STREAM_END ? 0 : PD_ENOMEM;
		b->len += bound - z.avail_out;
	}
	deflateEnd(&z);
	return rc;
}
