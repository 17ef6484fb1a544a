/*
 * The read-ahead hold of a session: deep copies of resolved samples in a
 * ring.  See holdq.h.
 */
#include "holdq.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader/record_move.h"

#define BLOCK_BYTES ((size_t)1 << 20)

struct pd_hold_block {
	pd_hold_block *next;
	size_t cap, used;
	max_align_t data[];
};

struct pd_held_sample {
	pd_hold_block *block;
	size_t bytes;
	pd_resolved_sample rs;
	pd_record rec;
	/* then: nframes pd_frames, the record's bytes (8-aligned, for its
	 * u64 arrays); the command name is the session's, which stays */
	pd_frame frames[];
};

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int grow_ring(pd_holdq *h)
{
	if (h->n < h->cap)
		return 0;
	size_t cap = h->cap ? h->cap * 2 : 256;
	if (cap > SIZE_MAX / sizeof *h->q)
		return PD_ENOMEM;
	pd_held_sample **q = malloc(cap * sizeof *q);
	if (!q)
		return PD_ENOMEM;
	/* unwrap the ring into the new array */
	for (size_t i = 0; i < h->n; i++)
		q[i] = h->q[(h->head + i) % h->cap];
	free(h->q);
	h->q = q;
	h->head = 0;
	h->cap = cap;
	return 0;
}

int pd_holdq_push(pd_holdq *h, const pd_resolved_sample *rs)
{
	const pd_record *rec = rs->record;
	/* nframes is bounded by the session's frame cap, size by 32 bits */
	size_t frames_bytes = rs->nframes * sizeof(pd_frame);
	size_t data_at = align8(sizeof(pd_held_sample) + frames_bytes);
	size_t bytes = data_at + align8(rec->size);
	if (grow_ring(h) < 0)
		return PD_ENOMEM;
	pd_hold_block *blk = h->last;
	if (!blk || blk->cap - blk->used < bytes) {
		size_t cap = bytes > BLOCK_BYTES ? bytes : BLOCK_BYTES;
		if (!(blk = malloc(sizeof *blk + cap)))
			return PD_ENOMEM;
		blk->next = NULL;
		blk->cap = cap;
		blk->used = 0;
		if (h->last)
			h->last->next = blk;
		else
			h->first = blk;
		h->last = blk;
	}
	uint8_t *base = (uint8_t *)blk->data + blk->used;
	blk->used += bytes;
	pd_held_sample *hs = (pd_held_sample *)(void *)base;
	hs->block = blk;
	uint8_t *data = base + data_at;
	hs->bytes = bytes;
	hs->rec = *rec;
	if (rec->size)
		memcpy(data, rec->data, rec->size);
	pd_record_move_sample(&hs->rec, data);
	if (frames_bytes)
		memcpy(hs->frames, rs->frames, frames_bytes);
	hs->rs = *rs;
	hs->rs.record = &hs->rec;
	hs->rs.frames = hs->frames;
	h->q[(h->head + h->n) % h->cap] = hs;
	h->n++;
	h->bytes += bytes;
	h->total++;
	return 0;
}

void pd_holdq_release(pd_holdq *h)
{
	if (!h->given)
		return;
	h->given = false;
	/* every block before the next sample's is used up */
	const pd_hold_block *keep = h->n ? h->q[h->head]->block : NULL;
	while (h->first && h->first != keep) {
		pd_hold_block *b = h->first;
		h->first = b->next;
		free(b);
	}
	if (!h->first)
		h->last = NULL;
}

pd_resolved_sample *pd_holdq_pop(pd_holdq *h, pd_frame **frames)
{
	pd_holdq_release(h);
	if (h->n == 0)
		return NULL;
	pd_held_sample *hs = h->q[h->head];
	h->head = (h->head + 1) % h->cap;
	h->n--;
	h->bytes -= hs->bytes;
	h->given = true;
	*frames = hs->frames;
	return &hs->rs;
}

void pd_holdq_free(pd_holdq *h)
{
	while (h->first) {
		pd_hold_block *b = h->first;
		h->first = b->next;
		free(b);
	}
	free(h->q);
	memset(h, 0, sizeof *h);
}
