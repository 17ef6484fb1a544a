/*
 * Interfaces between the reader's parts.  Each part is one file:
 *
 *   source.c    bytes from an mmap'd file or a stream (pipe, stdin)
 *   window.c    how much of an mmap'd file stays resident
 *   attr.c      perf_event_attr of any size; id positions; id → attr lookup
 *   features.c  feature payloads (file sections and pipe HEADER_FEATURE)
 *   sample.c    SAMPLE decoding, every sample_type field
 *   record.c    other kernel records and the sample_id_all trailer
 *   zstd.c      one streaming zstd context for all compressed records
 *   queue.c     timestamp ordering (FINISHED_ROUND rounds)
 *   reader.c    the state machine that drives them; the public API
 *   progress.c  bytes read of the input, for the progress callback
 *   names.c     record-type and feature names
 *
 * Decoders take the record bytes as `uint8_t *`: when `swap` is true they
 * convert each field to host order in place as they read it (the caller
 * hands them a private copy), so after one decode the bytes are native and
 * any later decode runs with swap = false.  When `swap` is false they never
 * write.  On failure they return PD_ECORRUPT (or PD_ELIMIT) and fill `err`
 * with pd_error_reason(): they see bytes, not where those lie, so the
 * caller adds file name and offset.  On success `err` is not touched: the
 * caller's pd_error is never cleared per record.  Decoders that
 * take `opts` enforce its caps (max_string, max_callchain, max_branches);
 * NULL means no caps.
 */
#ifndef PD_READER_INTERNAL_H
#define PD_READER_INTERNAL_H

#include "perfdiff/reader.h"
#include "util/util.h"
#include "bpf_info.h"

/* ------------------------------------------------------------------ attr.c */

/* Bytes of perf_event_attr this version understands (VER8 + padding). */
#define PD_ATTR_KNOWN_SIZE 136

/*
 * Decode one perf_event_attr of `size` bytes (attr.size as stored, already
 * validated by the caller to fit) into `out` (name/ids left alone).
 */
void pd_attr_decode(pd_attr *out, const uint8_t *p, uint32_t size, bool swap);

/*
 * Positions of the event id, computed from the first attr's sample_type
 * (perf: all attrs of a file share them):
 *   id_pos: u64 index of the id in a SAMPLE body, or -1;
 *   is_pos: u64 index counted from the END of a non-sample record, or -1.
 */
void pd_id_positions(uint64_t sample_type, int *id_pos, int *is_pos);

/* Sorted id → attr index table. */
typedef struct pd_id_entry {
	uint64_t id;
	uint32_t attr;
} pd_id_entry;

typedef struct pd_id_table {
	pd_id_entry *v;
	size_t n, cap;
	bool sorted;
} pd_id_table;

int pd_id_table_add(pd_id_table *t, uint64_t id, uint32_t attr);
/* attr index for `id`, or -1. Sorts lazily. */
int pd_id_table_find(pd_id_table *t, uint64_t id);
void pd_id_table_free(pd_id_table *t);

/* --------------------------------------------------------------- sample.c */

/*
 * Decode a SAMPLE record (`size` bytes including the 8-byte header) owned by
 * `attr` into `out`.  Pointers in `out` point into `p`.  Consumes exactly
 * the fields sample_type announces; bytes left over are tolerated.
 */
int pd_sample_decode(pd_sample *out, uint8_t *p, size_t size,
		     const pd_attr *attr, bool swap, const pd_reader_options *opts,
		     pd_error *err);

/* --------------------------------------------------------------- record.c */

/* Bytes of the sample_id_all trailer that `sample_type` gives. */
size_t pd_trailer_size(uint64_t sample_type);

/*
 * Where the sample_id_all trailer (`tlen` bytes) of a kernel record of
 * `type` and `size` bytes at `p` ends: `size`, except for a KSYMBOL or
 * BPF_EVENT whose size exceeds its body plus trailer (a kernel bug; see
 * record.c), where it ends right after them.  Does not modify `p`.
 */
size_t pd_record_id_end(const uint8_t *p, size_t size, uint32_t type, size_t tlen);

/*
 * Decode the kernel record (type 1..63, not SAMPLE) at `p` (`size` bytes
 * incl. header) into rec->u and its sample_id_all trailer into rec->sid
 * (when `attr` has sample_id_all).  rec->type/misc/size are set by the
 * caller.  Unknown kernel types are left undecoded but their trailer is
 * still read.  Returns 0, or 1 when the trailer was not at the end of an
 * oversized record (pd_record_id_end()), or an error.
 */
int pd_record_decode(pd_record *rec, uint8_t *p, size_t size,
		     const pd_attr *attr, bool swap, const pd_reader_options *opts,
		     pd_error *err);

/*
 * Decode the body of a perf-tool record that has a fixed layout and that
 * delivery exposes in rec->u (AUXTRACE, HEADER_FEATURE id, COMPRESSED2 size)
 * and swap its header-independent fields for a swapped file.  Other tool
 * records are handled by reader.c.
 */
int pd_tool_record_decode(pd_record *rec, uint8_t *p, size_t size, bool swap,
			  pd_error *err);

/*
 * The event id of a record, for attribution before decoding: SAMPLE uses
 * id_pos, others is_pos (only when sample_id_all), counted back from the
 * end of their `tlen`-byte trailer.  Returns false when the record has no
 * id there or is too short.  Does not modify `p`.
 */
bool pd_record_peek_id(const uint8_t *p, size_t size, uint32_t type,
		       int id_pos, int is_pos, size_t tlen, bool swap, uint64_t *id);

/* ------------------------------------------------------------- features.c */

/*
 * Everything the feature sections (or pipe HEADER_* records) establish.
 * Strings and tables live in `arena`.
 */
typedef struct pd_meta {
	pd_arena arena;
	pd_header_info info;
	/* BUILD_ID entries (grown as pipe records arrive) */
	pd_build_id *build_ids;
	size_t nr_build_ids, cap_build_ids;
	/* EVENT_DESC: names by id, and by position when no ids are given */
	struct pd_event_name {
		const char *name;
		uint64_t first_id;
		bool has_id;
		uint32_t attr_type;
		uint64_t attr_config;
	} *event_names;
	size_t nr_event_names;
	/* PMU_MAPPINGS */
	struct pd_pmu_map {
		uint32_t type;
		const char *name;
	} *pmus;
	size_t nr_pmus;
	pd_bpf_meta bpf;
	/* CLOCK_DATA: a wall-clock (TOD) time and the sample clock's time
	 * taken together */
	bool has_clock_data;
	uint64_t clock_tod_ns, clock_ref_ns;
} pd_meta;

void pd_meta_init(pd_meta *m);
void pd_meta_free(pd_meta *m);

/*
 * Parse the payload of feature `feat` (`size` bytes at `p`, not modified)
 * into `m`.  Unknown or skipped features return 0.  Limits come from
 * `opts`.
 */
int pd_feature_parse(pd_meta *m, unsigned feat, const uint8_t *p, size_t size,
		     bool swap, const pd_reader_options *opts, pd_error *err);

/* Add one BUILD_ID entry (feature section entry or HEADER_BUILD_ID record
 * body starting at the 8-byte header); its path is held to opts->max_string. */
int pd_build_id_parse(pd_meta *m, const uint8_t *p, size_t size, bool swap,
		      const pd_reader_options *opts, pd_error *err);

/*
 * PD_ELIMIT (with `err`) when the string at `s`, which has `room` bytes,
 * is longer than opts->max_string; `field` names it.  Only the first
 * max_string + 1 bytes are looked at.
 */
int pd_string_cap(const char *s, size_t room, const pd_reader_options *opts,
		  const char *field, pd_error *err);

/* ------------------------------------------------------------- bpf_info.c */

/*
 * Parse feature 25 or 26 (`size` bytes at `p`) into m->bpf, copying what is
 * kept into m->arena.  On a cross-endian file (`swap`) they are refused
 * with PD_EUNSUPPORTED, as perf does: the kernel structs are not swapped.
 * A count, length or array that does not fit its payload gives
 * PD_ECORRUPT; nothing is kept then.  `err` says what was wrong.
 */
int pd_bpf_feature_parse(pd_meta *m, unsigned feat, const uint8_t *p, size_t size,
			 bool swap, pd_error *err);

/* ----------------------------------------------------------------- zstd.c */

typedef struct pd_zstd pd_zstd;

int pd_zstd_new(pd_zstd **out);
void pd_zstd_free(pd_zstd *z);

/*
 * Decompress one COMPRESSED payload, continuing the stream of the previous
 * calls, appending everything it yields to `out`.  Fails with PD_ELIMIT when
 * it would yield more than `max_out` bytes, PD_ECORRUPT on a zstd error.
 */
int pd_zstd_feed(pd_zstd *z, const void *in, size_t in_size, pd_buf *out,
		 uint64_t max_out, pd_error *err);

/* ---------------------------------------------------------------- queue.c */

/* One queued kernel record.  `data` is owned by the queue iff `owned`. */
typedef struct pd_qentry {
	uint64_t time;
	uint64_t seq;          /* arrival order: ties keep file order */
	uint8_t *data;
	uint32_t size;
	uint32_t stream;
	uint64_t offset;
	int attr;
	bool from_compressed;
	bool owned;
	bool swapped;          /* bytes still in the file's foreign byte order */
} pd_qentry;

/* Sort key: small, so that sorting moves 16 bytes, not whole entries. */
typedef struct pd_qkey {
	uint64_t time;
	uint32_t seq;          /* arrival order, compared modulo 2^32 */
	uint32_t slot;         /* index into `slots` */
} pd_qkey;

/* Keys sorted on (time, seq); [head, n) still queued. */
typedef struct pd_qrun {
	pd_qkey *keys;
	size_t head, n, cap;
} pd_qrun;

typedef struct pd_queue {
	pd_qrun open;          /* keys queued since the last pop, arrival order */
	pd_qrun *runs;         /* sorted runs, a min-heap on their head keys */
	size_t nruns, cap_runs;
	pd_qkey *tmp;          /* merge buffer, open.cap keys */
	size_t cap_tmp;
	pd_qkey *spare;        /* an emptied run's keys, for the next open run */
	size_t cap_spare;
	size_t n, cap;         /* entries queued; room in slots and free_slots */
	pd_qentry *slots;      /* entries; free ones listed in `free_slots` */
	uint32_t *free_slots;
	size_t nfree, nslots;
	uint64_t seq;
	uint64_t bytes_owned;
	uint64_t max_time;     /* newest time queued so far */
	uint64_t next_flush;   /* limit for the next round flush */
	uint64_t flush_limit;  /* current limit: entries <= it may leave */
	bool flushing;         /* a round flush is under way */
	bool flush_all;
} pd_queue;

void pd_queue_init(pd_queue *q);
/* Frees owned data of entries still queued. */
void pd_queue_free(pd_queue *q);

/*
 * Queue `e`; when `copy` is set the bytes are copied (e->owned becomes
 * true).  PD_ENOMEM, or PD_ELIMIT if owned bytes would exceed `max_bytes`.
 */
int pd_queue_push(pd_queue *q, const pd_qentry *e, bool copy, uint64_t max_bytes);

/*
 * A FINISHED_ROUND: release entries up to the previous round's newest time.
 * As in perf, the release happens at the marker only: an entry that arrives
 * later with an old time waits for the next marker (or the end).
 */
void pd_queue_round(pd_queue *q);

/* End of input: allow every entry. */
void pd_queue_finish(pd_queue *q);

/* Take the oldest entry that may leave; false when none may.  The caller
 * frees e->data when e->owned (after the delivered record is done with). */
bool pd_queue_pop(pd_queue *q, pd_qentry *e);

#endif
