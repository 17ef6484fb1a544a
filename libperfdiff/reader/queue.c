/*
 * Timestamp ordering the way perf's ordered-events does it: records wait
 * ordered on (time, arrival); a FINISHED_ROUND releases everything up to
 * the newest time that had been seen when the previous FINISHED_ROUND came,
 * because perf only guarantees that nothing after a round marker is older
 * than what came before the marker before it.
 *
 * Records arrive in batches (a round's worth between two pops) that are
 * nearly sorted already: a round is the per-CPU ring buffers one after the
 * other, each in time order.  So a batch is sorted once, when the first
 * pop after it comes, by a natural merge sort (a few linear passes over
 * its ascending stretches), and becomes a run; pops take the smallest
 * head among the runs, which are few (a round's leftovers and the next
 * round).  A binary heap over all records cost ~100 ns a record in
 * mispredicted compares; this is a few ns.  Input that breaks the pattern
 * (a pop after every record) degrades to a heap of one-record runs.
 *
 * Sort keys are 16 bytes and the entries stay put in slots: a big
 * system-wide file sends millions of records through here, and moving
 * whole entries cost a quarter of the reader's time.
 */
#include "internal.h"

#include <stdlib.h>

void pd_queue_init(pd_queue *q)
{
	memset(q, 0, sizeof *q);
}

static void free_owned(pd_queue *q, const pd_qrun *r)
{
	for (size_t i = r->head; i < r->n; i++) {
		pd_qentry *e = &q->slots[r->keys[i].slot];
		if (e->owned)
			free(e->data);
	}
}

void pd_queue_free(pd_queue *q)
{
	free_owned(q, &q->open);
	free(q->open.keys);
	for (size_t i = 0; i < q->nruns; i++) {
		free_owned(q, &q->runs[i]);
		free(q->runs[i].keys);
	}
	free(q->runs);
	free(q->tmp);
	free(q->spare);
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

/* ---- sorting a batch (keys in arrival order: equal times stay so) ---- */

static size_t ascending_end(const pd_qkey *v, size_t i, size_t n)
{
	while (i + 1 < n && v[i].time <= v[i + 1].time)
		i++;
	return i + 1;
}

static void merge(const pd_qkey *x, size_t nx, const pd_qkey *y, size_t ny, pd_qkey *out)
{
	size_t i = 0, j = 0, k = 0;
	while (i < nx && j < ny)
		out[k++] = y[j].time < x[i].time ? y[j++] : x[i++];
	while (i < nx)
		out[k++] = x[i++];
	while (j < ny)
		out[k++] = y[j++];
}

/* Stable sort of a[0, n) on time, `tmp` room for n keys. */
static void sort_keys(pd_qkey *a, size_t n, pd_qkey *tmp)
{
	if (n < 2 || ascending_end(a, 0, n) == n)
		return;
	pd_qkey *src = a, *dst = tmp;
	for (;;) {
		size_t i = 0, merged = 0;
		while (i < n) {
			size_t m = ascending_end(src, i, n);
			size_t e = m < n ? ascending_end(src, m, n) : m;
			merge(src + i, m - i, src + m, e - m, dst + i);
			merged++;
			i = e;
		}
		pd_qkey *t = src;
		src = dst;
		dst = t;
		if (merged == 1)
			break;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

/* ---- the heap of runs, on their head keys ---- */

static inline const pd_qkey *head_of(const pd_qrun *r)
{
	return &r->keys[r->head];
}

static void runs_sift_up(pd_qrun *h, size_t i)
{
	pd_qrun e = h[i];
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(head_of(&e), head_of(&h[parent])))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = e;
}

static void runs_sift_down(pd_qrun *h, size_t n, size_t i)
{
	pd_qrun e = h[i];
	for (;;) {
		size_t child = 2 * i + 1;
		if (child >= n)
			break;
		if (child + 1 < n && before(head_of(&h[child + 1]), head_of(&h[child])))
			child++;
		if (!before(head_of(&h[child]), head_of(&e)))
			break;
		h[i] = h[child];
		i = child;
	}
	h[i] = e;
}

/* The open batch becomes a sorted run.  Never allocates: push made room. */
static void seal(pd_queue *q)
{
	sort_keys(q->open.keys, q->open.n, q->tmp);
	q->runs[q->nruns] = q->open;
	runs_sift_up(q->runs, q->nruns);
	q->nruns++;
	q->open = (pd_qrun){ q->spare, 0, 0, q->cap_spare };
	q->spare = NULL;
	q->cap_spare = 0;
}

/* ---- push and pop ---- */

static int grow_to(void **p, size_t *cap, size_t want, size_t size)
{
	if (*cap >= want)
		return 0;
	size_t ncap = *cap ? *cap : 1024;
	while (ncap < want)
		ncap *= 2;
	if (ncap > SIZE_MAX / size)
		return PD_ENOMEM;
	void *np = realloc(*p, ncap * size);
	if (!np)
		return PD_ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

/* Room for one more entry: a slot, a key in the open batch, its share of
 * the merge buffer, and a place among the runs for the batch. */
static int grow(pd_queue *q)
{
	if (q->n >= UINT32_MAX)
		return PD_ENOMEM;
	if (q->n >= q->cap) {
		size_t cap = q->cap;
		void *s = q->slots, *f = q->free_slots;
		if (grow_to(&s, &cap, q->n + 1, sizeof(pd_qentry)) < 0)
			return PD_ENOMEM;
		q->slots = s;
		cap = q->cap;
		int rc = grow_to(&f, &cap, q->n + 1, sizeof(uint32_t));
		q->free_slots = f;
		if (rc < 0)
			return PD_ENOMEM;
		q->cap = cap;
	}
	void *k = q->open.keys, *t = q->tmp, *r = q->runs;
	int rc = grow_to(&k, &q->open.cap, q->open.n + 1, sizeof(pd_qkey));
	q->open.keys = k;
	if (rc == 0)
		rc = grow_to(&t, &q->cap_tmp, q->open.cap, sizeof(pd_qkey));
	q->tmp = t;
	if (rc == 0)
		rc = grow_to(&r, &q->cap_runs, q->nruns + 1, sizeof(pd_qrun));
	q->runs = r;
	return rc;
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
	q->open.keys[q->open.n++] = (pd_qkey){ n.time, (uint32_t)n.seq, slot };
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
	if (!q->flush_all && !q->flushing)
		return false;
	if (q->open.n)
		seal(q);
	pd_qrun *top = &q->runs[0];
	const pd_qkey *k = head_of(top);
	if (!q->flush_all && k->time > q->flush_limit) {
		q->flushing = false;
		return false;
	}
	uint32_t slot = k->slot;
	/* the run's order says what comes next: its slot and record bytes
	 * are cold (slots are reused in any order, records are spread over
	 * the file's per-CPU stretches) */
	if (top->head + 2 < top->n)
		__builtin_prefetch(&q->slots[k[2].slot]);
	if (top->head + 1 < top->n)
		__builtin_prefetch(q->slots[k[1].slot].data);
	*e = q->slots[slot];
	q->free_slots[q->nfree++] = slot;
	q->n--;
	if (++top->head == top->n) {
		/* keep the larger buffer for the next batch */
		if (top->cap > q->cap_spare) {
			free(q->spare);
			q->spare = top->keys;
			q->cap_spare = top->cap;
		} else {
			free(top->keys);
		}
		q->runs[0] = q->runs[--q->nruns];
	}
	if (q->nruns > 1)
		runs_sift_down(q->runs, q->nruns, 0);
	if (e->owned)
		q->bytes_owned -= e->size;
	return true;
}
