/*
 * Progress through the input for pd_reader_options.progress: bytes read
 * of all streams so far, reported each time another MiB has gone by and
 * once at the end.  The reader only counts and calls; showing it (and
 * deciding whether to) is the caller's.
 */
#include "reader_impl.h"

/* A call per MiB: a few thousand for a big file, none in a tight loop. */
#define PD_PROGRESS_STEP (1u << 20)

void pd_progress_init(pd_reader *r)
{
	uint64_t total = 0;
	for (size_t i = 0; i < r->nstreams; i++) {
		uint64_t size = pd_source_size(&r->streams[i].src);
		if (size == UINT64_MAX)
			return; /* a pipe: unknown */
		total += size;
	}
	r->progress_total = total;
}

void pd_progress_report(pd_reader *r, const pd_stream *st)
{
	uint64_t bytes = r->progress_base + st->pos;
	if (bytes - r->progress_last < PD_PROGRESS_STEP)
		return;
	if (r->progress_total && bytes > r->progress_total)
		bytes = r->progress_total;
	r->progress_last = bytes;
	r->opts.progress(r, bytes, r->progress_total, r->opts.progress_payload);
}

void pd_progress_stream_done(pd_reader *r, const pd_stream *st)
{
	uint64_t size = pd_source_size(&st->src);
	r->progress_base += size != UINT64_MAX ? size : st->pos;
}

void pd_progress_end(pd_reader *r)
{
	if (!r->opts.progress || r->progress_ended)
		return;
	r->progress_ended = true;
	uint64_t bytes = r->progress_total ? r->progress_total : r->progress_base;
	if (bytes < r->progress_last) /* never backwards */
		bytes = r->progress_last;
	r->opts.progress(r, bytes, r->progress_total, r->opts.progress_payload);
}
