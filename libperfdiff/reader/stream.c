/*
 * Raw records out of the input streams, in file order: the main stream, then
 * (directory mode) each data.N.  COMPRESSED/COMPRESSED2 records are handed
 * out themselves and their payload is fed to the stream's zstd context; the
 * records inside are handed out next, a record that straddles two compressed
 * records being completed by the next one's output.
 */
#include "reader_impl.h"

#include <errno.h>
#include <stdlib.h>

/* Record types this version knows; an unknown type with an implausible size
 * at the tail is trailing garbage rather than a record. */
static bool known_type(uint32_t type)
{
	return (type >= 1 && type <= 22) || (type >= 64 && type <= 86);
}

/* Bytes after the last record: `room` of them up to the end of a stream
 * whose size is known; a pipe's end is not (UINT64_MAX), so only where
 * they start is said. */
static void warn_garbage(pd_reader *r, const pd_stream *st, uint64_t room)
{
	if (st->end == UINT64_MAX)
		pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, st->pos,
			       "trailing garbage after the last record; the rest of the "
			       "stream is not read");
	else
		pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, st->pos,
			       "%llu bytes of trailing garbage after the last record",
			       (unsigned long long)room);
}

/*
 * Copy a record into scratch: for a byte-swapped file (header converted to
 * host order here, the decoders convert the body), and for a record that
 * is not 8-byte aligned (after a COMPRESSED2 written without padding), since
 * decoded arrays are read as u64s.
 */
static int to_scratch(pd_reader *r, const uint8_t *p, size_t len, pd_raw *raw)
{
	r->scratch.len = 0;
	if (pd_buf_append(&r->scratch, p, len) < 0)
		return PD_ENOMEM;
	uint8_t *d = r->scratch.data;
	pd_fix32(d, r->swap);
	pd_fix16(d + 4, r->swap);
	pd_fix16(d + 6, r->swap);
	raw->data = d;
	raw->stable = false;
	return 0;
}

static bool misaligned(const void *p)
{
	return ((uintptr_t)p & 7) != 0;
}

static void stream_finish(pd_reader *r, pd_stream *st)
{
	size_t left = st->zbuf.len - st->zpos;
	if (left)
		pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, st->zoffset,
			       "compressed data ends with %zu bytes of an incomplete record",
			       left);
	st->done = true;
	pd_progress_stream_done(r, st);
	r->cur++;
}

/* The next complete record from decompressed data, if there is one. */
static int next_inner(pd_reader *r, pd_stream *st, pd_raw *raw)
{
	size_t left = st->zbuf.len - st->zpos;
	if (left < 8)
		return 0;
	const uint8_t *p = st->zbuf.data + st->zpos;
	uint32_t type = pd_ld32(p, r->swap);
	uint16_t size = pd_ld16(p + 6, r->swap);
	if (size < 8)
		return pd_reader_fail(r, PD_ECORRUPT, st->path, st->zoffset,
				      "record inside compressed data has header size %u "
				      "(type %u)", size, type);
	if (size > r->opts.max_record_bytes)
		return pd_reader_fail(r, PD_ELIMIT, st->path, st->zoffset,
				      "record of %u bytes (type %u) inside compressed data exceeds "
				      "the cap of %llu bytes (pd_reader_options.max_record_bytes)",
				      size, type, (unsigned long long)r->opts.max_record_bytes);
	if (size > left)
		return 0; /* completed by the next compressed record */
	raw->type = type;
	raw->misc = pd_ld16(p + 4, r->swap);
	raw->size = size;
	raw->offset = st->zoffset;
	raw->stream = st->index;
	raw->from_compressed = true;
	st->zpos += size;
	if (r->swap || misaligned(p))
		return to_scratch(r, p, size, raw) < 0
			       ? pd_reader_fail(r, PD_ENOMEM, st->path, st->zoffset, "out of memory")
			       : 1;
	raw->data = (uint8_t *)p;
	raw->stable = false;
	return 1;
}

static int feed_compressed(pd_reader *r, pd_stream *st, const uint8_t *payload,
			   uint64_t len, uint64_t offset)
{
	pd_error e;
	if (!st->zstd) {
		if (pd_zstd_new(&st->zstd) < 0)
			return pd_reader_fail(r, PD_ENOMEM, st->path, offset, "out of memory");
	}
	/* keep only the unfinished tail of earlier output */
	pd_buf_consume(&st->zbuf, st->zpos);
	st->zpos = 0;
	size_t before = st->zbuf.len;
	int rc = pd_zstd_feed(st->zstd, payload, (size_t)len, &st->zbuf,
			      r->opts.max_decompressed, &e);
	if (rc < 0)
		return pd_reader_fail(r, rc, st->path, offset, "compressed record: %s%s", e.message,
				      rc == PD_ELIMIT ? " (pd_reader_options.max_decompressed)" : "");
	r->stats.bytes_decompressed += st->zbuf.len - before;
	st->zoffset = offset;
	return 0;
}

int pd_stream_next_raw(pd_reader *r, pd_raw *raw)
{
	for (;;) {
		if (r->cur >= r->nstreams) {
			pd_progress_end(r);
			return 0;
		}
		pd_stream *st = &r->streams[r->cur];
		int rc = next_inner(r, st, raw);
		if (rc != 0)
			return rc;

		if (st->pos >= st->end) {
			stream_finish(r, st);
			continue;
		}
		uint64_t room = st->end - st->pos;
		/* what the caller had before this call is done with */
		pd_window_advance(&st->src, st->pos);
		const uint8_t *p;
		size_t avail = pd_source_get(&st->src, st->pos, 16, &p);
		if (avail > room)
			avail = (size_t)room;
		if (avail < 8) {
			if (st->src.read_errno)
				return pd_reader_fail(r, PD_EIO, st->path, st->pos,
						      "read failed: %s", strerror(st->src.read_errno));
			if (avail > 0)
				pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, st->pos,
					       "input ends with %zu bytes of a record header", avail);
			stream_finish(r, st);
			continue;
		}
		uint32_t type = pd_ld32(p, r->swap);
		uint16_t misc = pd_ld16(p + 4, r->swap);
		uint64_t size = pd_ld16(p + 6, r->swap);
		uint64_t len = size; /* bytes the record occupies */
		if (size < 8) {
			if (st->end_is_eof && !known_type(type)) {
				warn_garbage(r, st, room);
				stream_finish(r, st);
				continue;
			}
			return pd_reader_fail(r, PD_ECORRUPT, st->path, st->pos,
					      "record header size %llu (type %u): corrupt record",
					      (unsigned long long)size, type);
		}
		if (type == PD_RECORD_COMPRESSED2) {
			/* perf 6.16 stores the size in a u16 that wraps for big
			 * records; data_size is the truth then, without padding */
			if (avail < 16) {
				pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, st->pos, "truncated COMPRESSED2 record");
				stream_finish(r, st);
				continue;
			}
			uint64_t ds = pd_ld64(p + 8, r->swap);
			if (ds > UINT32_MAX - 64)
				return pd_reader_fail(r, PD_ECORRUPT, st->path, st->pos,
						      "COMPRESSED2 data size %llu is implausible",
						      (unsigned long long)ds);
			if (pd_align8(16 + ds) > size)
				len = 16 + ds;
		}
		/* before the truncation check: the cap holds whatever the file size */
		if (len > r->opts.max_record_bytes)
			return pd_reader_fail(r, PD_ELIMIT, st->path, st->pos,
					      "record of %llu bytes (type %u) exceeds the cap of %llu "
					      "bytes (pd_reader_options.max_record_bytes)",
					      (unsigned long long)len, type,
					      (unsigned long long)r->opts.max_record_bytes);
		if (len > room || (!known_type(type) && st->end_is_eof && (size & 7))) {
			if (!st->end_is_eof && known_type(type))
				return pd_reader_fail(r, PD_ECORRUPT, st->path, st->pos,
						      "record of %llu bytes (type %u) runs past the "
						      "end of the data section at %llu",
						      (unsigned long long)len, type,
						      (unsigned long long)st->end);
			if (known_type(type))
				pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, st->pos,
					       "input is truncated inside a %s record of %llu bytes",
					       pd_record_type_name(type), (unsigned long long)len);
			else
				warn_garbage(r, st, room);
			stream_finish(r, st);
			continue;
		}
		avail = pd_source_get(&st->src, st->pos, (size_t)len, &p);
		if (avail < len) {
			if (st->src.read_errno)
				return pd_reader_fail(r, PD_EIO, st->path, st->pos,
						      "read failed: %s", strerror(st->src.read_errno));
			pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, st->pos,
				       "input is truncated inside a %s record of %llu bytes",
				       pd_record_type_name(type) ? pd_record_type_name(type) : "?",
				       (unsigned long long)len);
			stream_finish(r, st);
			continue;
		}

		/* payloads that follow the record outside its size */
		uint64_t extra = 0;
		if (type == PD_RECORD_HEADER_TRACING_DATA && len >= 12)
			extra = pd_align8(pd_ld32(p + 8, r->swap));
		else if (type == PD_RECORD_AUXTRACE && len >= 16)
			extra = pd_ld64(p + 8, r->swap);

		raw->type = type;
		raw->misc = misc;
		raw->size = (uint32_t)len;
		raw->offset = st->pos;
		raw->stream = st->index;
		raw->from_compressed = false;
		if (r->swap || misaligned(p)) {
			if (to_scratch(r, p, (size_t)len, raw) < 0)
				return pd_reader_fail(r, PD_ENOMEM, st->path, st->pos, "out of memory");
		} else {
			raw->data = (uint8_t *)p;
			raw->stable = !st->src.is_stream;
		}
		uint64_t offset = st->pos;
		r->stats.bytes_read += len;
		st->pos += len;
		if (extra) {
			if (extra > st->end - st->pos) {
				pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, offset,
					       "input is truncated inside the %llu-byte payload of a %s record",
					       (unsigned long long)extra, pd_record_type_name(type));
				st->pos = st->end;
			} else {
				st->pos += extra;
				r->stats.bytes_read += extra;
			}
		}
		pd_progress_note(r, st);
		if (type == PD_RECORD_COMPRESSED || type == PD_RECORD_COMPRESSED2) {
			uint64_t hdr = type == PD_RECORD_COMPRESSED ? 8 : 16;
			uint64_t plen = type == PD_RECORD_COMPRESSED ? len - 8
								     : pd_ld64(p + 8, r->swap);
			if (hdr > len || plen > len - hdr)
				return pd_reader_fail(r, PD_ECORRUPT, st->path, offset,
						      "compressed record payload of %llu bytes exceeds "
						      "the record", (unsigned long long)plen);
			if (feed_compressed(r, st, p + hdr, plen, offset) < 0)
				return r->final_rc;
		}
		return 1;
	}
}
