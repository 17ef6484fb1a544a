/*
 * The producer side of folding (see pipeline.h): a thread that reads the
 * session into blocks of records, and the hand-over of blocks to the
 * folding thread through a small queue.
 */
#include "pipeline.h"

#include <pthread.h>
#include <stdlib.h>

#include "session/session.h"

#define BLOCK_BYTES (1u << 20)
#define NBLOCKS 4

typedef struct block {
	uint8_t *data;
	size_t len, cap;
} block;

/* A leaf dso met with a dso filter set: whether it passes, and the
 * samples of it, for the filter values' counts. */
typedef struct leaf_dso {
	const char *dso;
	uint64_t samples;
	bool ok;
} leaf_dso;

struct pd_pipeline {
	pd_session *s;
	const pd_profile *p;
	bool hide;
	bool merge;                 /* PD_PROFILE_MERGE_UNRESOLVED */
	bool sites;                 /* PD_PROFILE_KEEP_SITES: records carry pd_fsites */
	/* producer only: the filters' counts of this run (pd_filters_sample()),
	 * and the leaf dsos met (dso pointer → index in `dsos`) */
	uint64_t *hits;
	pd_idmap dso_index;
	leaf_dso *dsos;
	uint32_t ndsos, cap_dsos;
	block blocks[NBLOCKS];
	/* hand-over, under mu: blocks filled and not yet folded, in order */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int filled[NBLOCKS];
	size_t head, nfilled;
	bool free_block[NBLOCKS];
	int consumer_block;         /* the block the folder holds, or -1 */
	bool done, cancel;
	int rc;                     /* the producer's end: 0 or an error */
	pd_error err;
	bool threaded;
	pthread_t thread;
	/* producer: the next sample to pack, left over from the last block (it
	 * did not fit, or starts a hold after the block's samples) */
	const pd_resolved_sample *pending;
	bool pending_wanted;        /* it passed the filters before it did not fit */
	/* producer: earliest and latest sample time seen (before filters) */
	uint64_t time_first, time_last;
	bool have_time;
	/* producer: samples read while their kernel frames wait for names,
	 * in order: this pipeline's keeper for pd_session_hold() */
	block hold;
	size_t hold_max;            /* beyond it, wait for the table */
	size_t nheld;               /* samples held so far, a statistic */
	bool ended;                 /* the session is at its end, or failed: */
	int end_rc;                 /* PD_ITEROVER or the error (pl->err) */
};

/* ------------------------------------------------------------ packing */

/* A leaf dso not met before, or NULL without memory. */
static leaf_dso *new_leaf_dso(pd_pipeline *pl, const char *dso)
{
	if (pl->ndsos == pl->cap_dsos) {
		uint32_t cap = pl->cap_dsos ? pl->cap_dsos * 2 : 64;
		leaf_dso *v = realloc(pl->dsos, cap * sizeof *v);
		if (!v)
			return NULL;
		pl->dsos = v;
		pl->cap_dsos = cap;
	}
	if (pd_idmap_put(&pl->dso_index, (uint64_t)(uintptr_t)dso, pl->ndsos) < 0)
		return NULL;
	leaf_dso *d = &pl->dsos[pl->ndsos++];
	*d = (leaf_dso){ dso, 0, pd_filters_dso(&pl->p->filters, dso) };
	return d;
}

/* Whether a sample with its leaf in `dso` passes the dso filter; counted.
 * PD_ENOMEM: no memory to note a new dso. */
static int dso_wanted(pd_pipeline *pl, const char *dso)
{
	uint32_t i = pd_idmap_get(&pl->dso_index, (uint64_t)(uintptr_t)dso);
	leaf_dso *d = i != PD_NO_ID ? &pl->dsos[i] : new_leaf_dso(pl, dso);
	if (!d)
		return PD_ENOMEM;
	d->samples++;
	return d->ok;
}

/* A frame that will have a name or not once the kernel's table is there:
 * kept under -U until then; its key holds the pending id as address. */
#define PD_PF_PENDING (1u << 31)

static inline pd_fkey key_of(const pd_frame *f)
{
	pd_fkey k;
	k.sym = f->symbol;
	k.dso = f->dso;
	k.flags = (f->inlined ? PD_PF_INLINED : 0) |
		  (f->cpumode == PD_CPUMODE_KERNEL || f->cpumode == PD_CPUMODE_GUEST_KERNEL
			   ? PD_PF_KERNEL
			   : 0);
	if (f->symbol) {
		k.unit = f->unit;
	} else {
		k.addr = f->dso_addr;
		k.flags |= PD_PF_UNRESOLVED;
	}
	return k;
}

/* Named, or maybe named later: what -U keeps for now. */
static inline bool keep_frame(const pd_frame *f)
{
	uint32_t id;
	return f->symbol || pd_session_frame_pending(f, &id);
}

/* key_of(), with an unnamed frame's address dropped when the profile
 * merges a dso's unnamed frames into one. */
static inline pd_fkey merged_key(const pd_pipeline *pl, const pd_frame *f)
{
	pd_fkey k = key_of(f);
	if (pl->merge && !k.sym)
		k.addr = 0;
	return k;
}

static inline pd_fkey pack_key(const pd_pipeline *pl, const pd_frame *f)
{
	pd_fkey k = merged_key(pl, f);
	uint32_t id;
	if (!f->symbol && pd_session_frame_pending(f, &id)) {
		k.addr = id;
		k.flags |= PD_PF_PENDING;
	}
	return k;
}

/* Where frame `f` of process `pid` lies (pipeline.h). */
static void pack_site(pd_pipeline *pl, uint32_t pid, const pd_frame *f, pd_fsite *out)
{
	out->addr = f->addr;
	out->raw = f->symbol ? f->raw_symbol : NULL;
	if (!pd_session_frame_map(pl->s, pid, f, &out->start, &out->end, &out->pgoff))
		out->start = out->end = out->pgoff = 0;
}

/* Whether the sample is folded at all (filters): 1 or 0, or PD_ENOMEM.
 * Every filter sees it, for the counts of its values. */
static inline int wanted(pd_pipeline *pl, const pd_resolved_sample *rs)
{
	if (rs->attr < 0 || rs->nframes == 0)
		return 0;
	bool ok = pd_filters_sample(&pl->p->filters, rs, pl->hits);
	if (pl->p->filters.ndsos == 0)
		return ok;
	int dso = dso_wanted(pl, rs->frames[0].dso);
	return dso < 0 ? dso : ok && dso;
}

/* Pack `rs` into `b`: 1 done, 0 no room (b not empty), PD_ENOMEM.  A block
 * takes BLOCK_BYTES, or one bigger record; the hold buffer (`grow`) all. */
static int pack(pd_pipeline *pl, block *b, const pd_resolved_sample *rs, bool grow)
{
	const pd_frame *fr = rs->frames;
	bool unres = !keep_frame(&fr[0]), hidden = pl->hide && unres;
	uint32_t n = 0;
	if (!hidden)
		for (size_t i = 0; i < rs->nframes; i++)
			n += !pl->hide || keep_frame(&fr[i]);
	size_t size = pd_srec_size_sites(n, pl->sites);
	if (!grow && b->len && b->len + size > BLOCK_BYTES)
		return 0;
	if (b->cap - b->len < size) {
		size_t cap = grow && b->cap * 2 > b->len + size ? b->cap * 2 : b->len + size;
		uint8_t *d = realloc(b->data, cap);
		if (!d)
			return PD_ENOMEM;
		b->data = d;
		b->cap = cap;
	}
	pd_srec *r = (pd_srec *)(b->data + b->len);
	memset(r, 0, sizeof *r);
	r->attr = pd_reader_attr(pd_session_reader(pl->s), (size_t)rs->attr);
	r->attr_index = rs->attr;
	r->tid = rs->tid;
	r->pid = rs->pid;
	r->cpu = rs->cpu;
	r->nframes = n;
	r->sites = pl->sites;
	r->leaf_unresolved = unres;
	r->hidden = hidden;
	r->chain_dropped = pd_session_chain_dropped(pl->s);
	r->period = rs->period;
	r->has_time = rs->record && (rs->record->u.sample.sample_type & PD_SAMPLE_TIME);
	r->time = rs->time;
	r->comm = rs->comm ? rs->comm : "";
	pd_fkey *k = (pd_fkey *)(r + 1);
	pd_fsite *at = (pd_fsite *)pd_srec_sites(r);
	if (!hidden)
		for (size_t i = 0; i < rs->nframes; i++)
			if (!pl->hide || keep_frame(&fr[i])) {  /* perf -U splices unnamed frames out */
				*k++ = pack_key(pl, &fr[i]);
				if (pl->sites)
					pack_site(pl, rs->pid, &fr[i], at++);
			}
	b->len += size;
	return 1;
}

/*
 * The held samples with their kernel frames named: each pending key
 * replaced, and under -U the frames that stayed unnamed spliced out (a
 * sample whose leaf did is hidden).  Records only shrink, so they are
 * rewritten in place, front to back.
 */
static void settle(pd_pipeline *pl, block *h)
{
	size_t in = 0, out = 0;
	while (in < h->len) {
		pd_srec *r = (pd_srec *)(h->data + in);
		size_t size = pd_srec_bytes(r);
		if (out != in)
			memmove(h->data + out, r, size);
		r = (pd_srec *)(h->data + out);
		pd_fkey *k = (pd_fkey *)(r + 1);
		/* the sites move down as frames are spliced out (-U) */
		pd_fsite *site = (pd_fsite *)pd_srec_sites(r);
		uint32_t kept = 0;
		for (uint32_t i = 0; i < r->nframes; i++) {
			pd_fkey key = k[i];
			pd_fsite fs = r->sites ? site[i] : (pd_fsite){ 0 };
			if (key.flags & PD_PF_PENDING) {
				const pd_frame *nf = pd_session_named_kernel(pl->s, (uint32_t)key.addr);
				key = merged_key(pl, nf);
				fs.raw = nf->symbol ? nf->raw_symbol : NULL;
			}
			if (i == 0)
				r->leaf_unresolved = !key.sym;
			if (pl->hide && !key.sym) {
				if (i == 0) {
					r->hidden = true;
					break;
				}
				continue;
			}
			if (r->sites)
				site[kept] = fs;
			k[kept++] = key;
		}
		/* the sites were read in place ahead of where they are written:
		 * they now start at the new end of the frames */
		if (r->sites && kept != r->nframes)
			memmove((uint8_t *)r + pd_srec_size(kept), site, kept * sizeof *site);
		r->nframes = kept;
		in += size;
		out += pd_srec_bytes(r);
	}
	h->len = out;
}

/* Hand the held samples over as block `b` (empty): the buffers trade places. */
static void release(pd_pipeline *pl, block *b)
{
	block t = *b;
	*b = pl->hold;
	pl->hold = t;
	pl->hold.len = 0;
}

/* The earliest and latest sample time, before filters.  (Min and max: a
 * sample noted twice changes nothing.) */
static inline void note_time(pd_pipeline *pl, const pd_resolved_sample *rs)
{
	if (!rs->record || !(rs->record->u.sample.sample_type & PD_SAMPLE_TIME))
		return;
	if (!pl->have_time || rs->time < pl->time_first)
		pl->time_first = rs->time;
	if (!pl->have_time || rs->time > pl->time_last)
		pl->time_last = rs->time;
	pl->have_time = true;
}

/*
 * Pack `rs` into `b` unless the filters drop it: 0 go on, 1 `b` is full
 * (`rs` waits for the next block), or an error.  The hold buffer grows
 * instead (`grow`).  Samples read in a hold (keep_packed()) go through
 * here too: the same time range, filters and records.
 */
static inline int put(pd_pipeline *pl, const pd_resolved_sample *rs, block *b, bool grow,
		      pd_error *err)
{
	note_time(pl, rs);
	/* a sample that did not fit the last block was filtered (and
	 * counted) then */
	int rc = pl->pending_wanted ? 1 : wanted(pl, rs);
	pl->pending_wanted = false;
	if (rc > 0)
		rc = pack(pl, b, rs, grow);
	else if (rc == 0)
		return 0;
	if (rc < 0)
		return pd_error_set(err, rc, pd_reader_path(pd_session_reader(pl->s)),
				    PD_NO_OFFSET, "out of memory");
	if (rc == 0) {
		pl->pending = rs;
		pl->pending_wanted = true;
	}
	return rc == 0;
}

/* The pipeline's keeper (session/session.h): the wanted samples, packed
 * into the hold buffer as they will be folded. */
static int keep_packed(pd_keeper *k, const pd_resolved_sample *rs, pd_error *err)
{
	pd_pipeline *pl = k->ctx;
	size_t len = pl->hold.len;
	int rc = put(pl, rs, &pl->hold, true, err);
	if (rc < 0)
		return rc;
	pl->nheld += pl->hold.len > len;
	k->held = pl->hold.len;
	return 0;
}

/*
 * `rs` has a pending kernel frame: hold it and what follows until the
 * kernel's table is there (pd_session_hold()), then hand the held samples
 * over as `b` -- after `b`'s own samples, if it has some: then `rs` waits
 * and they are folded meanwhile.  1 when `b` goes out, 0 when the hold
 * kept nothing (all filtered out), or an error.
 */
static int hold(pd_pipeline *pl, const pd_resolved_sample *rs, block *b)
{
	if (b->len) {
		pl->pending = rs;
		return 1;
	}
	pd_keeper k = { .keep = keep_packed, .ctx = pl, .max = pl->hold_max };
	int rc = pd_session_hold(pl->s, rs, &k, &pl->err);
	if (rc < 0)
		return rc;
	settle(pl, &pl->hold);
	release(pl, b);
	return b->len > 0;
}

/* The next sample to pack: the one left over from the last block, or the
 * session's next.  0, or the session's end or error (kept: it is the end
 * of every later call too). */
static int next(pd_pipeline *pl, const pd_resolved_sample **rs)
{
	if ((*rs = pl->pending)) {
		pl->pending = NULL;
		return 0;
	}
	int rc = pl->ended ? pl->end_rc : pd_session_next(pl->s, rs, &pl->err);
	if (rc < 0) {
		pl->ended = true;
		pl->end_rc = rc;
	}
	return rc;
}

/* An empty block; the hold buffer, once it has come back, shrunk to a
 * block's size again. */
static void reset(block *b)
{
	b->len = 0;
	if (b->cap <= BLOCK_BYTES)
		return;
	uint8_t *d = realloc(b->data, BLOCK_BYTES);
	if (d) {
		b->data = d;
		b->cap = BLOCK_BYTES;
	}
}

/*
 * Fill `b` from the session: 1 when it is full (more to come), 0 at the
 * end, a negative code on error (pl->err filled).  A sample whose kernel
 * frames wait for the kernel's symbol table starts a hold (see hold()):
 * the held samples go out as one block once named.
 */
static int fill(pd_pipeline *pl, block *b)
{
	reset(b);
	for (;;) {
		const pd_resolved_sample *rs;
		int rc = next(pl, &rs);
		if (rc < 0)
			return b->len ? 1 : rc == PD_ITEROVER ? 0 : rc;
		rc = pd_session_kernel_deferred(pl->s) ? hold(pl, rs, b)
						       : put(pl, rs, b, false, &pl->err);
		if (rc != 0)
			return rc;
	}
}

/* ------------------------------------------------------------ hand-over */

static void *producer(void *arg)
{
	pd_pipeline *pl = arg;
	int rc;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		int bi = -1;
		while (!pl->cancel) {
			for (int i = 0; i < NBLOCKS && bi < 0; i++)
				if (pl->free_block[i])
					bi = i;
			if (bi >= 0)
				break;
			pthread_cond_wait(&pl->cv, &pl->mu);
		}
		if (pl->cancel) {
			pl->done = true;
			pthread_cond_broadcast(&pl->cv);
			pthread_mutex_unlock(&pl->mu);
			return NULL;
		}
		pl->free_block[bi] = false;
		pthread_mutex_unlock(&pl->mu);

		rc = fill(pl, &pl->blocks[bi]);

		pthread_mutex_lock(&pl->mu);
		if (pl->blocks[bi].len) {
			pl->filled[(pl->head + pl->nfilled) % NBLOCKS] = bi;
			pl->nfilled++;
		} else {
			pl->free_block[bi] = true;
		}
		if (rc <= 0) {
			pl->rc = rc;
			pl->done = true;
		}
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
		if (rc <= 0)
			return NULL;
	}
}

/* The blocks and the filters' counters (at least one: hits + 0 is
 * then defined). */
static int alloc_buffers(pd_pipeline *pl)
{
	size_t nhits = pl->p->filters.at[PD_FILTER_NKINDS];
	if (!(pl->hits = calloc(nhits ? nhits : 1, sizeof *pl->hits)))
		return PD_ENOMEM;
	for (int i = 0; i < NBLOCKS; i++) {
		if (!(pl->blocks[i].data = malloc(BLOCK_BYTES)))
			return PD_ENOMEM;
		pl->blocks[i].cap = BLOCK_BYTES;
		pl->free_block[i] = true;
	}
	return 0;
}

/* What alloc_buffers() and the producer allocated, and `pl`. */
static void free_buffers(pd_pipeline *pl)
{
	for (int i = 0; i < NBLOCKS; i++)
		free(pl->blocks[i].data);
	free(pl->hold.data);
	free(pl->hits);
	pd_idmap_free(&pl->dso_index);
	free(pl->dsos);
	free(pl);
}

/* Everything but the thread; 0, or PD_ENOMEM with `pl` freed. */
static int setup(pd_pipeline *pl, pd_session *s, const pd_profile *p, size_t hold_max)
{
	pl->s = s;
	pl->p = p;
	pl->hide = (p->options.o.flags & PD_PROFILE_HIDE_UNRESOLVED) != 0;
	pl->merge = (p->options.o.flags & PD_PROFILE_MERGE_UNRESOLVED) != 0;
	pl->sites = (p->options.o.flags & PD_PROFILE_KEEP_SITES) != 0;
	pl->consumer_block = -1;
	pl->hold_max = hold_max;
	pd_idmap_init(&pl->dso_index);
	if (alloc_buffers(pl) < 0) {
		free_buffers(pl);
		return PD_ENOMEM;
	}
	if (pthread_mutex_init(&pl->mu, NULL) != 0) {
		free_buffers(pl);
		return PD_ENOMEM;
	}
	if (pthread_cond_init(&pl->cv, NULL) != 0) {
		pthread_mutex_destroy(&pl->mu);
		free_buffers(pl);
		return PD_ENOMEM;
	}
	if (hold_max)
		pd_session_defer_kernel(s);
	return 0;
}

int pd_pipeline_start(pd_pipeline **out, pd_session *s, const pd_profile *p, bool thread,
		      size_t hold_max)
{
	pd_pipeline *pl = calloc(1, sizeof *pl);
	int rc = pl ? setup(pl, s, p, hold_max) : PD_ENOMEM;
	if (rc < 0) {
		if (thread)
			pd_threads_give(pd_profile_threads(p));
		return rc;
	}
	/* no thread: pd_pipeline_next() fills blocks itself */
	pl->threaded = thread && pd_threads_run(pd_profile_threads(p), &pl->thread, producer, pl);
	*out = pl;
	return 0;
}

int pd_pipeline_next(pd_pipeline *pl, const uint8_t **data, size_t *len, pd_error *err)
{
	if (!pl->threaded) {
		if (pl->done) {
			if (pl->rc < 0 && err)
				*err = pl->err;
			return pl->rc;
		}
		block *b = &pl->blocks[0];
		int rc = fill(pl, b);
		if (rc <= 0) {
			pl->done = true;
			pl->rc = rc;
		}
		if (b->len) {
			*data = b->data;
			*len = b->len;
			return 1;
		}
		if (rc < 0 && err)
			*err = pl->err;
		return rc;
	}
	pthread_mutex_lock(&pl->mu);
	if (pl->consumer_block >= 0) {
		pl->free_block[pl->consumer_block] = true;
		pl->consumer_block = -1;
		pthread_cond_broadcast(&pl->cv);
	}
	while (pl->nfilled == 0 && !pl->done)
		pthread_cond_wait(&pl->cv, &pl->mu);
	int rc;
	if (pl->nfilled) {
		int bi = pl->filled[pl->head];
		pl->head = (pl->head + 1) % NBLOCKS;
		pl->nfilled--;
		pl->consumer_block = bi;
		*data = pl->blocks[bi].data;
		*len = pl->blocks[bi].len;
		rc = 1;
	} else {
		rc = pl->rc;
		if (rc < 0 && err)
			*err = pl->err;
	}
	pthread_mutex_unlock(&pl->mu);
	return rc;
}

void pd_pipeline_cancel(pd_pipeline *pl)
{
	if (!pl->threaded) {
		pl->done = true;
		return;
	}
	pthread_mutex_lock(&pl->mu);
	pl->cancel = true;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
}

bool pd_pipeline_time_range(const pd_pipeline *pl, uint64_t *first, uint64_t *last)
{
	*first = pl->time_first;
	*last = pl->time_last;
	return pl->have_time;
}

/* The producer stopped and joined: the run state is the caller's. */
static void stop_producer(pd_pipeline *pl)
{
	if (!pl->threaded)
		return;
	pd_pipeline_cancel(pl);
	pd_threads_join(pd_profile_threads(pl->p), pl->thread);
	pl->threaded = false;
	pl->done = true;
}

void pd_pipeline_free(pd_pipeline *pl)
{
	if (!pl)
		return;
	stop_producer(pl);
	pthread_cond_destroy(&pl->cv);
	pthread_mutex_destroy(&pl->mu);
	free_buffers(pl);
}

size_t pd_pipeline_held(const pd_pipeline *pl)
{
	return pl->nheld;
}

void pd_pipeline_filter_hits(pd_pipeline *pl, uint64_t *sum)
{
	stop_producer(pl);
	const pd_filters *f = &pl->p->filters;
	for (size_t i = 0; i < f->at[PD_FILTER_NKINDS]; i++)
		sum[i] += pl->hits[i];
	for (uint32_t i = 0; i < pl->ndsos; i++)
		pd_filters_dso_hits(f, pl->dsos[i].dso, pl->dsos[i].samples, sum);
}
