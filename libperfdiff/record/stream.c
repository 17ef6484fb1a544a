/*
 * What was gathered, written as a perf.data stream in perf's pipe format
 * (docs: shared perf-data-format.md §9), so that the reader, the session
 * and the profile take a live recording exactly as they take perf's and
 * `perf report` reads it too: the event's attr; the host's facts; the
 * binaries' build-ids (HEADER_BUILD_ID); the kernel's map as perf
 * synthesizes it ("[kernel.kallsyms]_text" from _text); every process's
 * executable maps at time 0; a COMM before a thread's first samples (and
 * when its command changes, an exec); then each drained key's samples,
 * one SAMPLE each, spread evenly over the drain interval they were
 * counted in, with perf's callchain layout (KERNEL marker, kernel frames,
 * USER marker, user frames); and the lost samples as LOST_SAMPLES.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"

#define SAMPLE_TYPE                                                            \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |  \
	 PERF_SAMPLE_CALLCHAIN)

enum { REC_HEADER_ATTR = 64, REC_HEADER_BUILD_ID = 67, REC_HEADER_FEATURE = 80 };
enum { FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_ARCH = 6, FEAT_SAMPLE_TIME = 21,
       FEAT_LAST = 32 };

typedef struct wr {
	FILE *f;
	pd_buf b;      /* the record being built */
	bool nomem;    /* sticky: an append failed, nothing more is written */
} wr;

static void put(wr *w, const void *p, size_t n)
{
	if (!w->nomem && pd_buf_append(&w->b, p, n) < 0)
		w->nomem = true;
}
static void put64(wr *w, uint64_t v)
{
	put(w, &v, 8);
}
static void put32(wr *w, uint32_t v)
{
	put(w, &v, 4);
}
/* A string NUL-terminated and padded to `align` bytes. */
static void put_str(wr *w, const char *s, size_t align)
{
	size_t n = strlen(s) + 1, padded = (n + align - 1) / align * align;
	put(w, s, n);
	for (; n < padded; n++)
		put(w, "", 1);
}

static void begin(wr *w, uint32_t type, uint16_t misc)
{
	w->b.len = 0;
	put32(w, type);
	uint16_t m[2] = { misc, 0 };
	put(w, m, 4);
}

/* Pad to 8, set the size, write out. */
static void end(wr *w)
{
	while (w->b.len % 8)
		put(w, "", 1);
	if (w->nomem)
		return;
	uint16_t size = (uint16_t)w->b.len;
	memcpy(w->b.data + 6, &size, 2);
	fwrite(w->b.data, 1, w->b.len, w->f);
}

/* The trailer sample_id_all adds to side-band records: pid/tid, time. */
static void trailer(wr *w, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32(w, pid);
	put32(w, tid);
	put64(w, time);
}

static void write_attr(wr *w, const struct pd_recorder *r)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof a, .sample_freq = r->o.freq, .sample_type = SAMPLE_TYPE,
		.freq = 1, .sample_id_all = 1, .mmap = 1, .comm = 1, .mmap2 = 1,
		.exclude_callchain_user = r->o.stacks == PD_RECORDER_KERNEL_ONLY,
		.exclude_callchain_kernel = r->o.stacks == PD_RECORDER_USER_ONLY,
	};
	begin(w, REC_HEADER_ATTR, 0);
	put(w, &a, sizeof a);
	end(w);
}

static void write_feature_str(wr *w, uint64_t feat, const char *s)
{
	begin(w, REC_HEADER_FEATURE, 0);
	put64(w, feat);
	size_t n = strlen(s) + 1, padded = (n + 63) / 64 * 64;
	put32(w, (uint32_t)padded);
	put_str(w, s, 64);
	end(w);
}

/* The recording's span, from its start (or clear) to its last drain. */
static void write_sample_time(wr *w, const struct pd_recorder *r)
{
	begin(w, REC_HEADER_FEATURE, 0);
	put64(w, FEAT_SAMPLE_TIME);
	put64(w, r->t_start);
	put64(w, r->t_last);
	end(w);
}

static void write_features(wr *w, const struct pd_recorder *r)
{
	struct utsname u;
	char host[256] = "";
	if (uname(&u) == 0) {
		write_feature_str(w, FEAT_OSRELEASE, u.release);
		write_feature_str(w, FEAT_ARCH, u.machine);
	}
	if (gethostname(host, sizeof host - 1) == 0)
		write_feature_str(w, FEAT_HOSTNAME, host);
	write_sample_time(w, r);
	begin(w, REC_HEADER_FEATURE, 0);   /* the end of the features */
	put64(w, FEAT_LAST);
	end(w);
}

static void write_build_id(wr *w, uint16_t cpumode, const uint8_t *id, uint8_t len,
			   const char *path)
{
	uint8_t idbuf[20] = { 0 }, tail[4] = { len, 0, 0, 0 };
	memcpy(idbuf, id, len);
	begin(w, REC_HEADER_BUILD_ID, (uint16_t)(cpumode | (1u << 15)));
	put32(w, (uint32_t)-1);
	put(w, idbuf, 20);
	put(w, tail, 4);
	put_str(w, path, 64);
	end(w);
}

static int write_build_ids(wr *w, struct pd_recorder *r)
{
	if (r->kbuildid_len)
		write_build_id(w, PERF_RECORD_MISC_KERNEL, r->kbuildid, r->kbuildid_len,
			       "[kernel.kallsyms]");
	for (size_t i = 0; i < r->nprocs; i++)   /* read each binary's id once */
		for (size_t j = 0; j < r->procs[i].nmaps; j++)
			if (!rec_buildid_of(r, r->procs[i].maps[j].path))
				return PD_ENOMEM;
	for (size_t i = 0; i < r->nids; i++)
		if (r->ids[i].len)
			write_build_id(w, PERF_RECORD_MISC_USER, r->ids[i].id, r->ids[i].len,
				       r->ids[i].path);
	return 0;
}

static void write_maps(wr *w, const struct pd_recorder *r)
{
	begin(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put32(w, (uint32_t)-1);
	put32(w, 0);
	put64(w, r->ktext);
	put64(w, ~0ull - r->ktext);
	put64(w, r->ktext);
	put_str(w, "[kernel.kallsyms]_text", 8);
	trailer(w, (uint32_t)-1, 0, 0);
	end(w);
	for (size_t i = 0; i < r->nprocs; i++)
		for (size_t j = 0; j < r->procs[i].nmaps; j++) {
			const rec_map *m = &r->procs[i].maps[j];
			begin(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
			put32(w, r->procs[i].pid);
			put32(w, r->procs[i].pid);
			put64(w, m->start);
			put64(w, m->end - m->start);
			put64(w, m->pgoff);
			uint8_t zero[24] = { 0 };
			put(w, zero, 24);
			put32(w, 5);      /* PROT_READ | PROT_EXEC */
			put32(w, 2);      /* MAP_PRIVATE */
			put_str(w, m->path, 8);
			trailer(w, r->procs[i].pid, r->procs[i].pid, 0);
			end(w);
		}
}

static void write_comm(wr *w, const rec_entry *e)
{
	begin(w, PERF_RECORD_COMM, 0);
	put32(w, e->pid);
	put32(w, e->tid);
	put_str(w, e->comm, 8);
	trailer(w, e->pid, e->tid, e->t0);
	end(w);
}

/* Entry `e`'s samples, one SAMPLE each at times spread over (t0, t1]. */
static void write_samples(wr *w, const struct pd_recorder *r, const rec_entry *e)
{
	uint64_t period = 1000000000ull / r->o.freq, span = e->t1 - e->t0;
	uint16_t mode = e->nk ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;

	for (uint64_t i = 0; i < e->count; i++) {
		begin(w, PERF_RECORD_SAMPLE, mode);
		put64(w, e->ips[0]);
		put32(w, e->pid);
		put32(w, e->tid);
		put64(w, e->t0 + span * (i + 1) / (e->count + 1));
		put64(w, period);
		put64(w, (e->nk ? e->nk + 1 : 0) + (e->nu ? e->nu + 1 : 0));
		if (e->nk)
			put64(w, (uint64_t)PERF_CONTEXT_KERNEL);
		put(w, e->ips, e->nk * sizeof(uint64_t));
		if (e->nu)
			put64(w, (uint64_t)PERF_CONTEXT_USER);
		put(w, e->ips + e->nk, e->nu * sizeof(uint64_t));
		end(w);
	}
}

/* A COMM whenever a thread's command is new or changed (an exec). */
static int write_entries(wr *w, const struct pd_recorder *r)
{
	pd_u64map last;     /* tid -> the entry whose comm it has now */
	pd_u64map_init(&last);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < r->nentries; i++) {
		const rec_entry *e = &r->entries[i];
		const rec_entry *prev = pd_u64map_get(&last, e->tid);
		if (!prev || strcmp(prev->comm, e->comm) != 0) {
			write_comm(w, e);
			rc = pd_u64map_put(&last, e->tid, (void *)e);
		}
		if (e->nk + e->nu)
			write_samples(w, r, e);
	}
	pd_u64map_free(&last);
	return rc;
}

static void write_lost(wr *w, const struct pd_recorder *r)
{
	uint64_t lost = 0;
	for (int i = 0; i < 3; i++)
		lost += r->lost[i] + r->klost[i];
	if (!lost)
		return;
	begin(w, PERF_RECORD_LOST_SAMPLES, 0);
	put64(w, lost);
	trailer(w, 0, 0, r->t_stop ? r->t_stop : r->t_last);
	end(w);
}

int rec_stream_write(struct pd_recorder *r, FILE *f, const char *name, pd_error *err)
{
	wr w = { .f = f };
	uint64_t head[2] = { 0x32454c4946524550ull, 16 };   /* "PERFILE2", pipe mode */

	fwrite(head, 1, sizeof head, f);
	write_attr(&w, r);
	write_features(&w, r);
	int rc = write_build_ids(&w, r);
	if (rc == 0) {
		write_maps(&w, r);
		rc = write_entries(&w, r);
	}
	if (rc == 0)
		write_lost(&w, r);
	if (w.nomem)
		rc = PD_ENOMEM;
	pd_buf_free(&w.b);
	if (rc < 0)
		return pd_error_set(err, rc, name, PD_NO_OFFSET, "out of memory");
	if (fflush(f) != 0 || ferror(f))
		return pd_error_set(err, PD_EIO, name, PD_NO_OFFSET, "cannot write: %s",
				    strerror(errno));
	return 0;
}
