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
/* Held samples between two looks at whether the table is there. */
#define HOLD_POLL 256

typedef struct block {
	uint8_t *data;
	size_t len, cap;
} block;

struct pd_pipeline {
	pd_session *s;
	const pd_profile *p;
	bool hide;
	pd_idmap dso_ok;            /* producer only: dso pointer → 1 pass / 0 not */
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
	const pd_resolved_sample *pending; /* producer: a sample that did not fit */
	/* producer: earliest and latest sample time seen (before filters) */
	uint64_t time_first, time_last;
	bool have_time;
	/* producer: samples read while their kernel frames wait for names
	 * (session/session.h), in order; `held_ready` once named */
	block hold;
	size_t hold_max;            /* beyond it, wait for the table */
	bool held_ready;
	size_t nheld;               /* samples held so far, a statistic */
	bool ended;                 /* the session is at its end, or failed: */
	int end_rc;                 /* PD_ITEROVER or the error (pl->err) */
};

/* ------------------------------------------------------------ packing */

static bool dso_wanted(pd_pipeline *pl, const char *dso)
{
	uint64_t key = (uint64_t)(uintptr_t)dso;
	uint32_t v = pd_idmap_get(&pl->dso_ok, key);
	if (v != PD_NO_ID)
		return v != 0;
	bool ok = pd_filters_dso(&pl->p->filters, dso);
	(void)pd_idmap_put(&pl->dso_ok, key, ok); /* only a cache */
	return ok;
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

static inline pd_fkey pack_key(const pd_frame *f)
{
	pd_fkey k = key_of(f);
	uint32_t id;
	if (!f->symbol && pd_session_frame_pending(f, &id)) {
		k.addr = id;
		k.flags |= PD_PF_PENDING;
	}
	return k;
}

/* Whether the sample is folded at all (filters). */
static bool wanted(pd_pipeline *pl, const pd_resolved_sample *rs)
{
	if (rs->attr < 0 || rs->nframes == 0 || !pd_filters_sample(&pl->p->filters, rs))
		return false;
	return pl->p->filters.ndsos == 0 || dso_wanted(pl, rs->frames[0].dso);
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
	size_t size = pd_srec_size(n);
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
	r->nframes = n;
	r->leaf_unresolved = unres;
	r->hidden = hidden;
	r->period = rs->period;
	r->has_time = rs->record && (rs->record->u.sample.sample_type & PD_SAMPLE_TIME);
	r->time = rs->time;
	r->comm = rs->comm ? rs->comm : "";
	pd_fkey *k = (pd_fkey *)(r + 1);
	if (!hidden)
		for (size_t i = 0; i < rs->nframes; i++)
			if (!pl->hide || keep_frame(&fr[i]))  /* perf -U splices unnamed frames out */
				*k++ = pack_key(&fr[i]);
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
		size_t size = pd_srec_size(r->nframes);
		if (out != in)
			memmove(h->data + out, r, size);
		r = (pd_srec *)(h->data + out);
		pd_fkey *k = (pd_fkey *)(r + 1);
		uint32_t kept = 0;
		for (uint32_t i = 0; i < r->nframes; i++) {
			pd_fkey key = k[i];
			if (key.flags & PD_PF_PENDING)
				key = key_of(pd_session_named_kernel(pl->s, (uint32_t)key.addr));
			if (i == 0)
				r->leaf_unresolved = !key.sym;
			if (pl->hide && !key.sym) {
				if (i == 0) {
					r->hidden = true;
					break;
				}
				continue;
			}
			k[kept++] = key;
		}
		r->nframes = kept;
		in += size;
		out += pd_srec_size(kept);
	}
	h->len = out;
}

/* Name the held samples' kernel frames if the table is there (or once it
 * is, with `wait`): true when they are ready to go. */
static bool try_release(pd_pipeline *pl, bool wait)
{
	int rc = pd_session_name_kernel(pl->s, wait);
	if (rc <= 0)
		return false;
	settle(pl, &pl->hold);
	pl->held_ready = true;
	return true;
}

/* Hand the held samples over as block `b` (empty): the buffers trade places. */
static void release(pd_pipeline *pl, block *b)
{
	block t = *b;
	*b = pl->hold;
	pl->hold = t;
	pl->hold.len = 0;
	pl->held_ready = false;
}

/*
 * Fill `b` from the session: 1 when it is full (more to come), 0 at the
 * end, a negative code on error (pl->err filled).  A sample that does not
 * fit waits in pl->pending for the next block.
 *
 * Samples whose kernel frames wait for the kernel's symbol table, and all
 * after them, go to pl->hold instead; named, they follow as one block.
 */
static int fill(pd_pipeline *pl, block *b)
{
	b->len = 0;
	if (b->cap > BLOCK_BYTES && !pl->held_ready) {
		/* the hold buffer came back: give its memory back */
		uint8_t *d = realloc(b->data, BLOCK_BYTES);
		if (d) {
			b->data = d;
			b->cap = BLOCK_BYTES;
		}
	}
	if (pl->held_ready) {
		release(pl, b);
		if (b->len)
			return 1;
	}
	for (;;) {
		const pd_resolved_sample *rs = pl->pending;
		pl->pending = NULL;
		if (!rs) {
			int rc = pl->ended ? pl->end_rc : pd_session_next(pl->s, &rs, &pl->err);
			if (rc < 0) {
				/* the end, or an error: what was read still goes out first */
				pl->ended = true;
				pl->end_rc = rc;
				if (pl->hold.len && try_release(pl, true) && b->len == 0)
					release(pl, b);
				if (b->len)
					return 1;
				return rc == PD_ITEROVER ? 0 : rc;
			}
		}
		if (rs->record && (rs->record->u.sample.sample_type & PD_SAMPLE_TIME)) {
			if (!pl->have_time || rs->time < pl->time_first)
				pl->time_first = rs->time;
			if (!pl->have_time || rs->time > pl->time_last)
				pl->time_last = rs->time;
			pl->have_time = true;
		}
		if (!wanted(pl, rs))
			continue;
		bool hold = pl->hold.len || pd_session_kernel_deferred(pl->s);
		int rc = pack(pl, hold ? &pl->hold : b, rs, hold);
		if (rc < 0)
			return pd_error_set(&pl->err, rc, pd_reader_path(pd_session_reader(pl->s)),
					    PD_NO_OFFSET, "out of memory");
		if (rc == 0) {
			pl->pending = rs;
			return 1;
		}
		if (hold && (++pl->nheld % HOLD_POLL == 0 || pl->hold.len > pl->hold_max) &&
		    try_release(pl, pl->hold.len > pl->hold_max)) {
			/* the block's samples came first */
			if (b->len == 0)
				release(pl, b);
			return 1;
		}
		if (hold && b->len)
			return 1;  /* what came before the first held sample: fold it meanwhile */
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

int pd_pipeline_start(pd_pipeline **out, pd_session *s, const pd_profile *p, bool thread,
		      size_t hold_max)
{
	pd_pipeline *pl = calloc(1, sizeof *pl);
	if (!pl)
		return PD_ENOMEM;
	pl->s = s;
	pl->p = p;
	pl->hide = (p->opts.flags & PD_PROFILE_HIDE_UNRESOLVED) != 0;
	pl->consumer_block = -1;
	pl->hold_max = hold_max;
	if (hold_max)
		pd_session_defer_kernel(s);
	pd_idmap_init(&pl->dso_ok);
	for (int i = 0; i < NBLOCKS; i++) {
		pl->blocks[i].data = malloc(BLOCK_BYTES);
		if (!pl->blocks[i].data) {
			for (int j = 0; j < i; j++)
				free(pl->blocks[j].data);
			free(pl);
			return PD_ENOMEM;
		}
		pl->blocks[i].cap = BLOCK_BYTES;
		pl->free_block[i] = true;
	}
	if (pthread_mutex_init(&pl->mu, NULL) != 0) {
		for (int i = 0; i < NBLOCKS; i++)
			free(pl->blocks[i].data);
		free(pl);
		return PD_ENOMEM;
	}
	if (pthread_cond_init(&pl->cv, NULL) != 0) {
		pthread_mutex_destroy(&pl->mu);
		for (int i = 0; i < NBLOCKS; i++)
			free(pl->blocks[i].data);
		free(pl);
		return PD_ENOMEM;
	}
	/* no thread: pd_pipeline_next() fills blocks itself */
	pl->threaded = thread && pthread_create(&pl->thread, NULL, producer, pl) == 0;
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

void pd_pipeline_free(pd_pipeline *pl)
{
	if (!pl)
		return;
	if (pl->threaded) {
		pd_pipeline_cancel(pl);
		pthread_join(pl->thread, NULL);
	}
	pthread_cond_destroy(&pl->cv);
	pthread_mutex_destroy(&pl->mu);
	for (int i = 0; i < NBLOCKS; i++)
		free(pl->blocks[i].data);
	free(pl->hold.data);
	pd_idmap_free(&pl->dso_ok);
	free(pl);
}

size_t pd_pipeline_held(const pd_pipeline *pl)
{
	return pl->nheld;
}
