/*
 * Timestamp ordering the way perf's ordered-events does it: records wait in
 * a min-heap on (time, arrival); a FINISHED_ROUND releases everything up to
 * the newest time that had been seen when the previous FINISHED_ROUND came,
 * because perf only guarantees that nothing after a round marker is older
 * than what came before the marker before it.
 */
#include "internal.h"

#include <stdlib.h>

void pd_queue_init(pd_queue *q)
{
	memset(q, 0, sizeof *q);
}

void pd_queue_free(pd_queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->heap[i].owned)
			free(q->heap[i].data);
	free(q->heap);
	pd_queue_init(q);
}

static bool before(const pd_qentry *a, const pd_qentry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void sift_up(pd_qentry *h, size_t i)
{
	pd_qentry e = h[i];
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(&e, &h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = e;
}

static void sift_down(pd_qentry *h, size_t n, size_t i)
{
	pd_qentry e = h[i];
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

int pd_queue_push(pd_queue *q, const pd_qentry *e, bool copy, uint64_t max_bytes)
{
	bool owned = copy || e->owned;
	if (owned && (e->size > max_bytes || q->bytes_owned > max_bytes - e->size))
		return PD_ELIMIT;
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 1024;
		if (cap > SIZE_MAX / sizeof *q->heap)
			return PD_ENOMEM;
		pd_qentry *h = realloc(q->heap, cap * sizeof *h);
		if (!h)
			return PD_ENOMEM;
		q->heap = h;
		q->cap = cap;
	}
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
	q->heap[q->n] = n;
	sift_up(q->heap, q->n);
	q->n++;
	return 0;
}

void pd_queue_round(pd_queue *q)
{
	q->flush_limit = q->next_flush;
	q->next_flush = q->max_time;
}

void pd_queue_finish(pd_queue *q)
{
	q->flush_all = true;
}

bool pd_queue_pop(pd_queue *q, pd_qentry *e)
{
	if (q->n == 0)
		return false;
	if (!q->flush_all && q->heap[0].time > q->flush_limit)
		return false;
	*e = q->heap[0];
	q->n--;
	if (q->n > 0) {
		q->heap[0] = q->heap[q->n];
		sift_down(q->heap, q->n, 0);
	}
	if (e->owned)
		q->bytes_owned -= e->size;
	return true;
}
