/*
 * The zstd stream of `perf record -z`.  perf compresses every mmap chunk
 * with one long-lived compression context and only flushes (never ends) the
 * frame, so the payloads of all COMPRESSED records of a file are one
 * continuous stream (doc §10): a single decompression context lives across
 * every call and is never reset.  Inner records may straddle payloads; the
 * caller keeps the incomplete tail of `out`.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

struct pd_zstd {
	ZSTD_DCtx *dctx;
};

int pd_zstd_new(pd_zstd **out)
{
	pd_zstd *z = calloc(1, sizeof *z);
	if (!z)
		return PD_ENOMEM;
	z->dctx = ZSTD_createDCtx();
	if (!z->dctx) {
		free(z);
		return PD_ENOMEM;
	}
	*out = z;
	return 0;
}

void pd_zstd_free(pd_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeDCtx(z->dctx);
	free(z);
}

int pd_zstd_feed(pd_zstd *z, const void *in, size_t in_size, pd_buf *out,
		 uint64_t max_out, pd_error *err)
{
	ZSTD_inBuffer ib = { in, in_size, 0 };
	const size_t start = out->len;
	const size_t step = ZSTD_DStreamOutSize();
	uint64_t produced = 0;

	for (;;) {
		int rc = pd_buf_reserve(out, step);
		if (rc) {
			out->len = start;
			return pd_error_reason(err, rc, "out of memory decompressing");
		}
		/*
		 * Offer at most one byte beyond the limit so an oversized chunk
		 * is detected without decompressing (or allocating) all of it.
		 */
		size_t room = out->cap - out->len;
		uint64_t allowed = max_out - produced;
		if (allowed < UINT64_MAX && allowed + 1 < room)
			room = (size_t)(allowed + 1);
		ZSTD_outBuffer ob = { out->data + out->len, room, 0 };
		size_t in_before = ib.pos;

		size_t ret = ZSTD_decompressStream(z->dctx, &ob, &ib);
		if (ZSTD_isError(ret)) {
			out->len = start;
			return pd_error_reason(err, PD_ECORRUPT,
					       "zstd: %s", ZSTD_getErrorName(ret));
		}
		out->len += ob.pos;
		produced += ob.pos;
		if (produced > max_out) {
			out->len = start;
			return pd_error_reason(err, PD_ELIMIT,
					       "compressed record expands to more than %llu bytes",
					       (unsigned long long)max_out);
		}
		/*
		 * A full output buffer may hide more buffered output, so only
		 * stop once the input is consumed and zstd left room unused.
		 */
		if (ib.pos == ib.size && ob.pos < ob.size)
			break;
		if (ib.pos == in_before && ob.pos == 0) {
			/* zstd always progresses when given room; guard the loop */
			out->len = start;
			return pd_error_reason(err, PD_ECORRUPT, "zstd: decoder made no progress");
		}
	}
	return 0;
}
