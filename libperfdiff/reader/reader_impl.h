/*
 * The pd_reader object, shared by the files that drive it:
 *   open.c     file header, attrs, feature index, directories
 *   stream.c   raw records out of each stream (compressed ones expanded)
 *   tool.c     perf-tool records that change the reader's metadata
 *   reader.c   the public API and the ordering/delivery loop
 */
#ifndef PD_READER_IMPL_H
#define PD_READER_IMPL_H

#include "internal.h"
#include "source.h"

/* One input stream: the main file, or data.N of a directory. */
typedef struct pd_stream {
	pd_source src;
	char *path;
	uint32_t index;        /* 0 = main; N + 1 = data.N */
	uint64_t pos, end;     /* next record offset; end of records (UINT64_MAX: to EOF) */
	bool end_is_eof;       /* `end` is where the file stops, not a stated size */
	bool done;
	/* compressed records: one zstd stream per input stream */
	pd_zstd *zstd;
	pd_buf zbuf;           /* decompressed bytes not yet handed out */
	size_t zpos;
	uint64_t zoffset;      /* offset of the compressed record being drained */
} pd_stream;

/* A record as read, before attribution and decoding. */
typedef struct pd_raw {
	uint8_t *data;
	uint32_t size;
	uint32_t type;
	uint16_t misc;
	uint64_t offset;
	uint32_t stream;
	bool from_compressed;
	bool stable;           /* bytes live as long as the reader (mmap, no swap) */
} pd_raw;

struct pd_reader {
	char *path;
	pd_reader_options opts;
	pd_meta meta;          /* header info, build-ids, names (owns an arena) */
	bool swap;

	pd_attr **attrs;       /* arena-owned, stable addresses */
	uint64_t *attr_samples;
	size_t nattrs, cap_attrs;
	pd_id_table ids;
	int id_pos, is_pos;

	pd_stream *streams;
	size_t nstreams, cur;

	pd_queue queue;
	bool input_done;
	int final_rc;
	pd_error final_err;
	uint64_t last_time;    /* newest time delivered from the queue */

	pd_buf scratch;        /* swapped records are converted here */
	uint8_t *owned_delivered; /* freed at the next call */
	pd_record rec;

	/* progress.c: bytes of the streams already finished, reported, total */
	uint64_t progress_base, progress_last, progress_total;
	bool progress_ended;

	pd_reader_stats stats;
	pd_warnings warnings;  /* at most PD_MAX_WARNINGS, lost tails aside */
};

/* Warnings are capped so a hostile file cannot make us store millions. */
#define PD_MAX_WARNINGS 100

/* A warning of `kind` about `file` at `offset`.  PD_WARN_DATA_LOST for an
 * input that is incomplete (a cut, a garbage tail): never dropped for the
 * cap, since it decides whether the input was read in full;
 * PD_WARN_METADATA for a header section skipped that is there. */
void pd_reader_warn(pd_reader *r, pd_warning_kind kind, const char *file, uint64_t offset,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Stop reading: remember the error; queued records are still delivered. */
int pd_reader_fail(pd_reader *r, int code, const char *file, uint64_t offset,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* open.c */
int pd_reader_setup(pd_reader *r, const char *path, int fd, pd_error *err);
/* Add an attr decoded from `p` (attr.size bytes); ids added separately. */
int pd_reader_add_attr(pd_reader *r, const uint8_t *p, uint32_t size, pd_attr **out);
int pd_reader_add_ids(pd_reader *r, pd_attr *a, uint32_t idx, const uint8_t *ids,
		      uint64_t n, bool swap);
/* Give attrs their names from EVENT_DESC / PMU_MAPPINGS, else synthesized. */
void pd_reader_name_attrs(pd_reader *r);
/* Recompute id positions after the first attr is known. */
void pd_reader_update_id_pos(pd_reader *r);

/* stream.c: 1 = a record, 0 = every stream ended, < 0 = stopped (final_rc set). */
int pd_stream_next_raw(pd_reader *r, pd_raw *raw);

/* progress.c: the input's size once the streams are open; a record read
 * from `st`; `st` finished; every stream finished. */
void pd_progress_init(pd_reader *r);
void pd_progress_report(pd_reader *r, const pd_stream *st);
static inline void pd_progress_note(pd_reader *r, const pd_stream *st)
{
	if (r->opts.progress)
		pd_progress_report(r, st);
}
void pd_progress_stream_done(pd_reader *r, const pd_stream *st);
void pd_progress_end(pd_reader *r);

/* tool.c: act on a perf-tool record (type >= 64); < 0 = stopped. */
int pd_tool_record(pd_reader *r, pd_raw *raw, const char *path);

#endif
