/*
 * Timestamp ordering the way perf's ordered-events does it: records wait in
 * a min-heap on (time, arrival); a FINISHED_ROUND releases everything up to
 * the newest time that had been seen when the previous FINISHED_ROUND came,
 * because perf only guarantees that nothing after a round marker is older
 * than what came before the marker before it.
 *
 * The heap holds 16-byte keys and the entries stay put in slots: a big
 * system-wide file sends millions of records through here, and sifting
 * whole entries cost a quarter of the reader's time.
 */
#include "internal.h"

#include <stdlib.h>

void pd_queue_init(pd_queue *q)
{
	memset(q, 0, sizeof *q);
}

void pd_queue_free(pd_queue *q)
{
	for (size_t i = 0; i < q->n; i++) {
		pd_qentry *e = &q->slots[q->heap[i].slot];
		if (e->owned)
			free(e->data);
	}
	free(q->heap);
	free(q->slots);
	free(q->free_slots);
	pd_queue_init(q);
}

static inline bool before(const pd_qkey *a, const pd_qkey *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	return (int32_t)(a->seq - b->seq) < 0;
}

static void sift_up(pd_qkey *h, size_t i)
{
	pd_qkey e = h[i];
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(&e, &h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = e;
}

static void sift_down(pd_qkey *h, size_t n, size_t i)
{
	pd_qkey e = h[i];
	for (;;) {
		size_t child = 2 * i + 1;
		if (child >= n)
			break;
		if (child + 1 < n && before(&h[child + 1], &h[child]))
			child++;
		if (!before(&h[child], &e))
			break;
		h[i] = h[child];
		i = child;
	}
	h[i] = e;
}

/* Room for one more entry: a heap key and a slot. */
static int grow(pd_queue *q)
{
	if (q->n < q->cap)
		return 0;
	size_t cap = q->cap ? q->cap * 2 : 1024;
	if (cap > UINT32_MAX || cap > SIZE_MAX / sizeof(pd_qentry))
		return PD_ENOMEM;
	pd_qkey *h = realloc(q->heap, cap * sizeof *h);
	if (!h)
		return PD_ENOMEM;
	q->heap = h;
	pd_qentry *s = realloc(q->slots, cap * sizeof *s);
	if (!s)
		return PD_ENOMEM;
	q->slots = s;
	uint32_t *f = realloc(q->free_slots, cap * sizeof *f);
	if (!f)
		return PD_ENOMEM;
	q->free_slots = f;
	q->cap = cap;
	return 0;
}

int pd_queue_push(pd_queue *q, const pd_qentry *e, bool copy, uint64_t max_bytes)
{
	bool owned = copy || e->owned;
	if (owned && (e->size > max_bytes || q->bytes_owned > max_bytes - e->size))
		return PD_ELIMIT;
	if (grow(q) < 0)
		return PD_ENOMEM;
	pd_qentry n = *e;
	if (copy) {
		n.data = malloc(e->size ? e->size : 1);
		if (!n.data)
			return PD_ENOMEM;
		if (e->size)
			memcpy(n.data, e->data, e->size);
	}
	n.owned = owned;
	n.seq = q->seq++;
	if (owned)
		q->bytes_owned += n.size;
	/*
	 * perf's newest time is the tail of its sorted list, and an emptied
	 * list starts over from the next record's time.  With input that keeps
	 * perf's round guarantee this is just the maximum; on input that breaks
	 * it, doing the same keeps the release points identical to perf's.
	 */
	if (q->n == 0 || n.time > q->max_time)
		q->max_time = n.time;
	uint32_t slot = q->nfree ? q->free_slots[--q->nfree] : (uint32_t)q->nslots++;
	q->slots[slot] = n;
	q->heap[q->n] = (pd_qkey){ n.time, (uint32_t)n.seq, slot };
	sift_up(q->heap, q->n);
	q->n++;
	return 0;
}

void pd_queue_round(pd_queue *q)
{
	q->flush_limit = q->next_flush;
	q->next_flush = q->max_time;
	/* perf delivers nothing on a round whose limit is still 0 */
	q->flushing = q->flush_limit != 0;
}

void pd_queue_finish(pd_queue *q)
{
	q->flush_all = true;
}

bool pd_queue_pop(pd_queue *q, pd_qentry *e)
{
	if (q->n == 0) {
		q->flushing = false;
		return false;
	}
	if (!q->flush_all) {
		if (!q->flushing)
			return false;
		if (q->heap[0].time > q->flush_limit) {
			q->flushing = false;
			return false;
		}
	}
	uint32_t slot = q->heap[0].slot;
	*e = q->slots[slot];
	q->free_slots[q->nfree++] = slot;
	q->n--;
	if (q->n > 0) {
		q->heap[0] = q->heap[q->n];
		sift_down(q->heap, q->n, 0);
	}
	if (e->owned)
		q->bytes_owned -= e->size;
	return true;
}
