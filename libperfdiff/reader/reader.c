/*
 * The public reader API and the delivery loop: raw records are attributed
 * to their event, decoded, counted, and either delivered at once (perf-tool
 * records, records without a timestamp, file order) or queued and released
 * in timestamp order.
 */
#include "reader_impl.h"
#include "options.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

void pd_reader_warn(pd_reader *r, pd_warning_kind kind, const char *file, uint64_t offset,
		    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pd_warnings_vat(&r->warnings, kind, file, offset, fmt, ap);
	va_end(ap);
}

int pd_reader_fail(pd_reader *r, int code, const char *file, uint64_t offset,
		   const char *fmt, ...)
{
	if (r->final_rc == 0) {
		va_list ap;
		va_start(ap, fmt);
		pd_error_vset(&r->final_err, code, file, offset, fmt, ap);
		va_end(ap);
		r->final_rc = code;
	}
	r->input_done = true;
	return code;
}

/* How far each version of pd_reader_options went: version 1 ended at
 * max_decompressed, version 2 at max_branches, version 3 at
 * progress_payload, version 4 at max_pprof_memory, version 5 at warn_ctx. */
static const size_t reader_sizes[] = {
	0, PD_OPTIONS_END(pd_reader_options, max_decompressed),
	PD_OPTIONS_END(pd_reader_options, max_branches),
	PD_OPTIONS_END(pd_reader_options, progress_payload),
	PD_OPTIONS_END(pd_reader_options, max_pprof_memory),
	PD_OPTIONS_END(pd_reader_options, warn_ctx),
};

int pd_reader_options_init(pd_reader_options *opts, unsigned version)
{
	const pd_reader_options d = PD_READER_OPTIONS_INIT;
	return pd_options_init(opts, version, &d, reader_sizes, PD_READER_OPTIONS_VERSION);
}

int pd_reader_options_import(pd_reader_options *dst, const pd_reader_options *src,
			     const char *file, pd_error *err)
{
	*dst = PD_READER_OPTIONS_INIT;
	if (!src)
		return 0;
	return pd_options_import(dst, src, reader_sizes, PD_READER_OPTIONS_VERSION,
				 "pd_reader_options", file, err);
}

static int reader_new(pd_reader **out, const char *path, const pd_reader_options *opts,
		      pd_error *err)
{
	if (!out || !path)
		return pd_error_set(err, PD_EINVAL, path ? path : "<null>", PD_NO_OFFSET,
				    "no output pointer or path given");
	pd_reader_options o;
	int rc = pd_reader_options_import(&o, opts, path, err);
	if (rc < 0)
		return rc;
	pd_reader *r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return pd_error_set(err, PD_ENOMEM, path, PD_NO_OFFSET, "out of memory");
	}
	r->opts = o;
	pd_warnings_init(&r->warnings, PD_MAX_WARNINGS);
	/* the reader runs on its caller's thread: each warning is handed on
	 * as it is kept */
	pd_warnings_set_sink(&r->warnings, o.warn, o.warn_ctx, r->path);
	pd_meta_init(&r->meta);
	pd_queue_init(&r->queue);
	r->id_pos = r->is_pos = -1;
	*out = r;
	return 0;
}

static int open_common(pd_reader **out, const char *path, int fd,
		       const pd_reader_options *opts, pd_error *err)
{
	pd_reader *r = NULL;
	int rc = reader_new(&r, path, opts, err);
	if (rc < 0)
		return rc;
	rc = pd_reader_setup(r, path, fd, err);
	if (rc < 0) {
		pd_reader_free(r);
		return rc;
	}
	pd_progress_init(r);
	for (size_t i = 0; i < r->nstreams; i++)
		pd_window_init(&r->streams[i].src, !(r->opts.flags & PD_READER_FILE_ORDER));
	*out = r;
	return 0;
}

int pd_reader_open(pd_reader **out, const char *path, const pd_reader_options *opts,
		   pd_error *err)
{
	return open_common(out, path, -1, opts, err);
}

int pd_reader_open_fd(pd_reader **out, int fd, const char *name,
		      const pd_reader_options *opts, pd_error *err)
{
	if (fd < 0)
		return pd_error_set(err, PD_EINVAL, name ? name : "<fd>", PD_NO_OFFSET,
				    "invalid file descriptor %d", fd);
	return open_common(out, name ? name : "<fd>", fd, opts, err);
}

void pd_reader_free(pd_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nstreams; i++) {
		pd_stream *st = &r->streams[i];
		pd_source_close(&st->src);
		pd_zstd_free(st->zstd);
		pd_buf_free(&st->zbuf);
		free(st->path);
	}
	free(r->streams);
	pd_queue_free(&r->queue);
	free(r->owned_delivered);
	pd_buf_free(&r->scratch);
	pd_id_table_free(&r->ids);
	free(r->attrs);
	free(r->attr_samples);
	pd_warnings_free(&r->warnings);
	pd_meta_free(&r->meta);
	free(r->path);
	free(r);
}

/* Which event a kernel record belongs to (perf's rule, doc §8). */
static int attribute(pd_reader *r, const pd_raw *raw, bool *unknown_id)
{
	*unknown_id = false;
	if (r->nattrs == 0)
		return -1;
	if (r->nattrs == 1)
		return 0;
	if (raw->type != PD_RECORD_SAMPLE && !r->attrs[0]->sample_id_all)
		return 0;
	uint64_t id;
	size_t tlen = pd_trailer_size(r->attrs[0]->sample_type);
	if (!pd_record_peek_id(raw->data, raw->size, raw->type, r->id_pos, r->is_pos, tlen,
			       r->swap, &id) || id == 0)
		return 0;
	int idx = pd_id_table_find(&r->ids, id);
	if (idx < 0) {
		*unknown_id = true;
		return raw->type == PD_RECORD_SAMPLE ? -1 : 0;
	}
	return idx;
}

static bool record_has_time(const pd_reader *r, uint32_t type, int attr)
{
	if (attr < 0)
		return false;
	const pd_attr *a = r->attrs[attr];
	if (!(a->sample_type & PD_SAMPLE_TIME))
		return false;
	return type == PD_RECORD_SAMPLE || a->sample_id_all;
}

/* Decode `data` (host order unless swap) into r->rec; 1 for a side-band
 * record whose size overstated it (pd_record_decode()). */
static int decode(pd_reader *r, uint8_t *data, uint32_t size, int attr, bool swap,
		  const char *path, uint64_t offset)
{
	pd_record *rec = &r->rec;
	pd_error e; /* written only on failure: nothing to clear per record */
	int rc = 0;
	const pd_attr *a = attr >= 0 ? r->attrs[attr] : NULL;
	if (rec->type == PD_RECORD_SAMPLE) {
		if (!a)
			return 0; /* an unknown event: delivered undecoded */
		rc = pd_sample_decode(&rec->u.sample, data, size, a, swap, &r->opts, &e);
		if (rc == 0) {
			const pd_sample *s = &rec->u.sample;
			rec->sid.present = s->sample_type & (PD_SAMPLE_TID | PD_SAMPLE_TIME |
							     PD_SAMPLE_ID | PD_SAMPLE_STREAM_ID |
							     PD_SAMPLE_CPU | PD_SAMPLE_IDENTIFIER);
			rec->sid.pid = s->pid;
			rec->sid.tid = s->tid;
			rec->sid.time = s->time;
			rec->sid.id = s->id;
			rec->sid.stream_id = s->stream_id;
			rec->sid.cpu = s->cpu;
		}
	} else if (rec->type < 64) {
		rc = pd_record_decode(rec, data, size, a, swap, &r->opts, &e);
	} else {
		rc = pd_tool_record_decode(rec, data, size, swap, &e);
	}
	if (rc < 0)
		return pd_reader_fail(r, rc, path, offset, "%s record of %u bytes: %s",
				      pd_record_type_name(rec->type) ? pd_record_type_name(rec->type)
								      : "unknown",
				      size, e.message);
	return rc;
}

/* The decoders fill the union member of their type; only tool records
 * and samples of unknown events are delivered undecoded and need it zeroed. */
static void rec_init(pd_record *rec, const uint8_t *data, uint32_t size, uint64_t offset,
		     uint32_t stream, bool from_compressed, int attr)
{
	uint32_t type = pd_ld32(data, false);
	if (type >= 64 || attr < 0)
		memset(&rec->u, 0, sizeof rec->u);
	memset(&rec->sid, 0, sizeof rec->sid);
	rec->type = pd_ld32(data, false);
	rec->misc = pd_ld16(data + 4, false);
	rec->size = size;
	rec->data = data;
	rec->offset = offset;
	rec->stream = stream;
	rec->from_compressed = from_compressed;
	rec->attr = attr;
}

static const char *stream_path(const pd_reader *r, uint32_t stream)
{
	for (size_t i = 0; i < r->nstreams; i++)
		if (r->streams[i].index == stream)
			return r->streams[i].path;
	return r->path;
}

static void count(pd_reader *r, const pd_raw *raw)
{
	r->stats.records++;
	if (raw->type < 128)
		r->stats.by_type[raw->type]++;
	else
		r->stats.unknown_types++;
	if (raw->from_compressed)
		r->stats.compressed_inner++;
}

/* The TIME field of a sample, found without decoding the rest of it. */
static bool sample_time(const pd_reader *r, const pd_raw *raw, int attr, uint64_t *time)
{
	uint64_t st = r->attrs[attr]->sample_type;
	size_t at = 8 + 8 * (size_t)(!!(st & PD_SAMPLE_IDENTIFIER) + !!(st & PD_SAMPLE_IP) +
				     !!(st & PD_SAMPLE_TID));
	if (at + 8 > raw->size)
		return false;
	*time = pd_ld64(raw->data + at, r->swap);
	return true;
}

static void enqueue(pd_reader *r, const pd_qentry *q, bool copy, const char *path)
{
	/* the queue caps the bytes it copies; the entries count against the cap too */
	uint64_t overhead = (uint64_t)r->queue.n * (sizeof(pd_qentry) + sizeof(pd_qkey));
	int rc = overhead >= r->opts.max_queue_bytes
			 ? PD_ELIMIT
			 : pd_queue_push(&r->queue, q, copy, r->opts.max_queue_bytes - overhead);
	if (rc == PD_ELIMIT)
		pd_reader_fail(r, rc, path, q->offset,
			       "ordering queue exceeds its cap of %llu bytes "
			       "(pd_reader_options.max_queue_bytes; no FINISHED_ROUND "
			       "records?); read in file order",
			       (unsigned long long)r->opts.max_queue_bytes);
	else if (rc < 0)
		pd_reader_fail(r, rc, path, q->offset, "out of memory");
}

static bool ordering(const pd_reader *r)
{
	return !(r->opts.flags & PD_READER_FILE_ORDER);
}

int pd_reader_next(pd_reader *r, const pd_record **out, pd_error *err)
{
	if (!r || !out)
		return pd_error_set(err, PD_EINVAL, r ? r->path : "<null>", PD_NO_OFFSET,
				    "no reader or output pointer given");
	free(r->owned_delivered);
	r->owned_delivered = NULL;
	for (;;) {
		pd_qentry e;
		if (pd_queue_pop(&r->queue, &e)) {
			rec_init(&r->rec, e.data, e.size, e.offset, e.stream, e.from_compressed,
				 e.attr);
			free(r->owned_delivered); /* a corrupt entry skipped just before */
			r->owned_delivered = e.owned ? e.data : NULL;
			/* samples were only looked at for their time when queued: a
			 * corrupt one stops reading here, the rest still leave */
			if (decode(r, e.data, e.size, e.attr, e.swapped, stream_path(r, e.stream),
				   e.offset) < 0)
				continue;
			if (e.time < r->last_time)
				r->stats.out_of_order++;
			else
				r->last_time = e.time;
			*out = &r->rec;
			return 0;
		}
		if (r->input_done) {
			if (!r->queue.flush_all && r->queue.n > 0) {
				pd_queue_finish(&r->queue);
				continue;
			}
			if (r->final_rc < 0) {
				if (err)
					*err = r->final_err;
				return r->final_rc;
			}
			return PD_ITEROVER;
		}

		pd_raw raw;
		int rc = pd_stream_next_raw(r, &raw);
		if (rc <= 0) {
			r->input_done = true;
			continue;
		}
		count(r, &raw);
		const char *path = stream_path(r, raw.stream);
		if (raw.type >= 64) {
			if (pd_tool_record(r, &raw, path) < 0)
				continue;
			rec_init(&r->rec, raw.data, raw.size, raw.offset, raw.stream,
				 raw.from_compressed, -1);
			if (decode(r, raw.data, raw.size, -1, r->swap, path, raw.offset) < 0)
				continue;
			*out = &r->rec;
			return 0;
		}

		bool unknown_id;
		int attr = attribute(r, &raw, &unknown_id);
		bool queued = ordering(r) && record_has_time(r, raw.type, attr);
		pd_qentry q = {
			.data = raw.data,
			.size = raw.size,
			.stream = raw.stream,
			.offset = raw.offset,
			.attr = attr,
			.from_compressed = raw.from_compressed,
		};
		if (raw.type == PD_RECORD_SAMPLE) {
			if (attr >= 0)
				r->attr_samples[attr]++;
			else
				r->stats.unattributed++;
		}
		if (queued && raw.type == PD_RECORD_SAMPLE) {
			/* samples are most of a file: decode them once, when they leave */
			if (!sample_time(r, &raw, attr, &q.time)) {
				pd_reader_fail(r, PD_ECORRUPT, path, raw.offset,
					       "SAMPLE record of %u bytes ends before its time field",
					       raw.size);
				continue;
			}
			q.swapped = r->swap;
			enqueue(r, &q, !raw.stable, path);
			continue;
		}
		rec_init(&r->rec, raw.data, raw.size, raw.offset, raw.stream,
			 raw.from_compressed, attr);
		rc = decode(r, raw.data, raw.size, attr, r->swap, path, raw.offset);
		if (rc < 0)
			continue;
		r->stats.oversized_sideband += (uint64_t)rc;
		if (raw.type == PD_RECORD_LOST)
			r->stats.lost += r->rec.u.lost.lost;
		else if (raw.type == PD_RECORD_LOST_SAMPLES)
			r->stats.lost_samples += r->rec.u.lost.lost;
		if (queued) {
			q.time = r->rec.sid.time; /* decoded: now in host order */
			enqueue(r, &q, !raw.stable, path);
			continue;
		}
		*out = &r->rec;
		return 0;
	}
}

int pd_reader_foreach(pd_reader *r, pd_record_cb cb, void *payload, pd_error *err)
{
	if (!cb)
		return pd_error_set(err, PD_EINVAL, r ? r->path : "<null>", PD_NO_OFFSET,
				    "no callback given");
	const pd_record *rec;
	int rc;
	while ((rc = pd_reader_next(r, &rec, err)) == 0) {
		int stop = cb(rec, payload);
		if (stop)
			return stop;
	}
	return rc == PD_ITEROVER ? 0 : rc;
}

const pd_header_info *pd_reader_header(const pd_reader *r)
{
	return &r->meta.info;
}

bool pd_reader_clock_data(const pd_reader *r, uint64_t *tod_ns, uint64_t *clock_ns)
{
	if (!r || !r->meta.has_clock_data)
		return false;
	if (tod_ns)
		*tod_ns = r->meta.clock_tod_ns;
	if (clock_ns)
		*clock_ns = r->meta.clock_ref_ns;
	return true;
}

size_t pd_reader_attr_count(const pd_reader *r)
{
	return r->nattrs;
}

const pd_attr *pd_reader_attr(const pd_reader *r, size_t i)
{
	return i < r->nattrs ? r->attrs[i] : NULL;
}

uint64_t pd_reader_attr_samples(const pd_reader *r, size_t i)
{
	return i < r->nattrs ? r->attr_samples[i] : 0;
}

size_t pd_reader_warning_count(const pd_reader *r)
{
	return pd_warnings_count(&r->warnings);
}

const char *pd_reader_warning(const pd_reader *r, size_t i)
{
	return pd_warnings_get(&r->warnings, i);
}

pd_warning_kind pd_reader_warning_kind(const pd_reader *r, size_t i)
{
	return pd_warnings_kind_of(&r->warnings, i);
}

const char *pd_reader_path(const pd_reader *r)
{
	return r->path;
}

const pd_reader_stats *pd_reader_stats_get(const pd_reader *r)
{
	return &r->stats;
}
