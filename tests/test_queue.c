/*
 * The ordering queue: perf's one-round-lag flush rule on a hand-worked
 * example, equality with an independent model of perf's ordered-events list
 * on random input (including input that breaks perf's round guarantee),
 * ties in arrival order, ownership of copied bytes and the byte cap.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"

#define NOLIMIT UINT64_MAX

static void push_t(pd_queue *q, uint64_t time, uint64_t id)
{
	pd_qentry e = { .time = time, .offset = id, .attr = -1 };
	ck_assert_int_eq(pd_queue_push(q, &e, false, NOLIMIT), 0);
}

/* Pop everything allowed; ids (offsets) into `out`, count returned. */
static size_t drain(pd_queue *q, uint64_t *out, size_t cap)
{
	size_t n = 0;
	pd_qentry e;
	while (pd_queue_pop(q, &e)) {
		ck_assert_uint_lt(n, cap);
		out[n++] = e.offset;
		if (e.owned)
			free(e.data);
	}
	return n;
}

static void expect(pd_queue *q, const uint64_t *want, size_t nwant)
{
	uint64_t got[64];
	size_t n = drain(q, got, 64);
	ck_assert_uint_eq(n, nwant);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(got[i] == want[i], "pop %zu: got id %llu, want %llu", i,
			      (unsigned long long)got[i], (unsigned long long)want[i]);
}

/*
 * Worked by hand from perf's rule (flush up to the newest time seen at the
 * previous round marker).  Ids are 100 * round + arrival index.
 *
 *   before #1: t 5 (id 0), 3 (1), 9 (2)      #1: limit 0 -> nothing; next 9
 *   before #2: 7 (100), 12 (101), 8 (102), 9 (103)
 *                                            #2: limit 9 -> 3 5 7 8 9 9'; next 12
 *   before #3: 10 (200), 15 (201), 11 (202)  #3: limit 12 -> 10 11 12; next 15
 *   before #4: nothing                       #4: limit 15 -> 15; next 15
 *   after  #4: 20 (400), 16 (401)            end: 16 20
 */
START_TEST(hand_worked_rounds)
{
	pd_queue q;
	pd_queue_init(&q);
	uint64_t none[1] = {0};

	push_t(&q, 5, 0);
	push_t(&q, 3, 1);
	push_t(&q, 9, 2);
	expect(&q, none, 0); /* nothing leaves before a round marker */
	pd_queue_round(&q);
	expect(&q, none, 0);

	push_t(&q, 7, 100);
	push_t(&q, 12, 101);
	push_t(&q, 8, 102);
	push_t(&q, 9, 103);
	pd_queue_round(&q);
	expect(&q, (uint64_t[]){ 1, 0, 100, 102, 2, 103 }, 6);

	push_t(&q, 10, 200);
	push_t(&q, 15, 201);
	push_t(&q, 11, 202);
	pd_queue_round(&q);
	expect(&q, (uint64_t[]){ 200, 202, 101 }, 3);

	pd_queue_round(&q);
	expect(&q, (uint64_t[]){ 201 }, 1);

	push_t(&q, 20, 400);
	push_t(&q, 16, 401);
	expect(&q, none, 0);
	pd_queue_finish(&q);
	expect(&q, (uint64_t[]){ 401, 400 }, 2);
	ck_assert_uint_eq(q.n, 0);
	pd_queue_free(&q);
}
END_TEST

/* Equal times leave in arrival order, however the heap was shuffled. */
START_TEST(ties_keep_arrival_order)
{
	pd_queue q;
	pd_queue_init(&q);
	uint64_t times[] = { 5, 5, 1, 5, 1, 5, 3, 1, 5, 3 };
	for (uint64_t i = 0; i < 10; i++)
		push_t(&q, times[i], i);
	pd_queue_finish(&q);
	expect(&q, (uint64_t[]){ 2, 4, 7, 6, 9, 0, 1, 3, 5, 8 }, 10);

	/* equal times spread over two rounds */
	for (uint64_t i = 0; i < 40; i++)
		push_t(&q, i % 2 ? 7 : 8, i);
	pd_queue_round(&q);
	for (uint64_t i = 40; i < 60; i++)
		push_t(&q, 7, i);
	pd_queue_round(&q);
	uint64_t got[64];
	size_t n = drain(&q, got, 64);
	ck_assert_uint_eq(n, 60);
	for (size_t i = 0; i < 40; i++) /* the twenty 7s of round 1, then round 2 */
		ck_assert_uint_eq(got[i], i < 20 ? 2 * i + 1 : 40 + (i - 20));
	for (size_t i = 40; i < 60; i++)
		ck_assert_uint_eq(got[i], 2 * (i - 40));
	pd_queue_free(&q);
}
END_TEST

/* ---------------------------------------------------------------- model */

/*
 * perf's ordered-events list, modelled independently: a list kept sorted by
 * insertion after equal times; the newest time is updated when an event is
 * appended at the tail or starts an empty list; a round marker does nothing
 * on an empty list, else delivers from the head while time <= next_flush
 * (nothing when next_flush is 0) and then sets next_flush to the newest
 * time; the end delivers everything.
 */
typedef struct model {
	uint64_t *t, *id;
	size_t n;
	uint64_t max_ts, next_flush;
} model;

static void model_push(model *m, uint64_t t, uint64_t id)
{
	size_t pos = m->n;
	while (pos > 0 && m->t[pos - 1] > t)
		pos--;
	memmove(m->t + pos + 1, m->t + pos, (m->n - pos) * sizeof *m->t);
	memmove(m->id + pos + 1, m->id + pos, (m->n - pos) * sizeof *m->id);
	m->t[pos] = t;
	m->id[pos] = id;
	if (m->n == 0 || pos == m->n)
		m->max_ts = t;
	m->n++;
}

static size_t model_deliver(model *m, uint64_t limit, uint64_t *out)
{
	size_t k = 0;
	while (k < m->n && m->t[k] <= limit)
		out[k] = m->id[k], k++;
	memmove(m->t, m->t + k, (m->n - k) * sizeof *m->t);
	memmove(m->id, m->id + k, (m->n - k) * sizeof *m->id);
	m->n -= k;
	return k;
}

static size_t model_round(model *m, uint64_t *out)
{
	if (m->n == 0)
		return 0;
	size_t k = m->next_flush ? model_deliver(m, m->next_flush, out) : 0;
	m->next_flush = m->max_ts;
	return k;
}

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/*
 * `valid`: times obey perf's guarantee (each event is at least the newest
 * time seen before the marker before the previous one); otherwise any time.
 */
static void random_run(uint32_t seed, bool valid, bool copy)
{
	enum { MAXN = 20000 };
	model m = { malloc(MAXN * 8), malloc(MAXN * 8), 0, 0, 0 };
	uint64_t *want = malloc(MAXN * 8), *got = malloc(MAXN * 8);
	uint64_t *all_t = malloc(MAXN * 8);
	pd_queue q;
	pd_queue_init(&q);
	size_t nin = 0, nwant = 0, ngot = 0;
	uint64_t seen_max = 0, max_at_prev_marker = 0, max_at_marker = 0;
	int rounds = 1 + (int)(rnd(&seed) % 60);
	for (int r = 0; r < rounds; r++) {
		int k = (int)(rnd(&seed) % 300);
		if (rnd(&seed) % 8 == 0)
			k = 0; /* empty rounds happen */
		for (int i = 0; i < k && nin < MAXN; i++) {
			uint64_t t = valid ? max_at_prev_marker + 1 + rnd(&seed) % 5000
					   : 1 + rnd(&seed) % 3000;
			uint8_t payload[24];
			memset(payload, (int)(nin & 0xff), sizeof payload);
			pd_qentry e = { .time = t, .offset = nin, .data = payload,
					.size = (uint32_t)(1 + nin % 24), .attr = (int)(nin % 3),
					.stream = (uint32_t)(nin % 5) };
			ck_assert_int_eq(pd_queue_push(&q, &e, copy, NOLIMIT), 0);
			model_push(&m, t, nin);
			all_t[nin++] = t;
			if (t > seen_max)
				seen_max = t;
		}
		max_at_prev_marker = max_at_marker;
		max_at_marker = seen_max;
		pd_queue_round(&q);
		nwant += model_round(&m, want + nwant);
		pd_qentry e;
		bool fields_ok = true; /* one assertion per round keeps this fast */
		while (pd_queue_pop(&q, &e)) {
			fields_ok &= e.offset < nin && e.owned == copy &&
				     e.size == 1 + e.offset % 24 &&
				     e.attr == (int)(e.offset % 3) &&
				     e.stream == e.offset % 5 && e.time == all_t[e.offset];
			if (copy) {
				fields_ok &= e.data[e.size - 1] == (e.offset & 0xff);
				free(e.data);
			}
			ck_assert_uint_lt(ngot, MAXN);
			got[ngot++] = e.offset;
		}
		ck_assert(fields_ok);
		ck_assert_uint_eq(ngot, nwant);
	}
	pd_queue_finish(&q);
	nwant += model_deliver(&m, UINT64_MAX, want + nwant);
	ngot += drain(&q, got + ngot, MAXN - ngot);
	ck_assert_uint_eq(nwant, nin);
	ck_assert_uint_eq(ngot, nin);
	size_t bad = 0;
	while (bad < nin && got[bad] == want[bad])
		bad++;
	ck_assert_msg(bad == nin, "seed %u pos %zu: %llu vs %llu", seed, bad,
		      (unsigned long long)got[bad], (unsigned long long)want[bad]);
	if (valid) {
		/* perf's guarantee makes the output a stable sort of the input */
		size_t i = 1;
		for (; i < nin; i++) {
			uint64_t a = got[i - 1], b = got[i];
			if (!(all_t[a] < all_t[b] || (all_t[a] == all_t[b] && a < b)))
				break;
		}
		ck_assert_uint_ge(i, nin);
	}
	ck_assert_uint_eq(q.bytes_owned, 0);
	ck_assert_uint_eq(q.n, 0);
	pd_queue_free(&q);
	free(m.t);
	free(m.id);
	free(want);
	free(got);
	free(all_t);
}

START_TEST(random_valid_matches_model)
{
	for (uint32_t seed = 1; seed <= 30; seed++)
		random_run(seed, true, seed % 2);
}
END_TEST

START_TEST(random_invalid_matches_model)
{
	for (uint32_t seed = 100; seed <= 130; seed++)
		random_run(seed, false, seed % 2);
}
END_TEST

/* ------------------------------------------------------------- ownership */

START_TEST(copy_and_byte_cap)
{
	pd_queue q;
	pd_queue_init(&q);
	uint8_t rec[40];
	memset(rec, 0xab, sizeof rec);

	pd_qentry e = { .time = 10, .data = rec, .size = 40, .offset = 1 };
	ck_assert_int_eq(pd_queue_push(&q, &e, true, 100), 0);
	ck_assert_uint_eq(q.bytes_owned, 40);
	memset(rec, 0, sizeof rec); /* the queue kept its own copy */
	e.offset = 2;
	e.time = 5;
	ck_assert_int_eq(pd_queue_push(&q, &e, true, 100), 0);
	ck_assert_uint_eq(q.bytes_owned, 80);
	/* 120 > 100 */
	e.offset = 3;
	ck_assert_int_eq(pd_queue_push(&q, &e, true, 100), PD_ELIMIT);
	ck_assert_uint_eq(q.bytes_owned, 80);
	ck_assert_uint_eq(q.n, 2);
	/* borrowed bytes do not count */
	e.offset = 4;
	e.time = 7;
	ck_assert_int_eq(pd_queue_push(&q, &e, false, 100), 0);
	ck_assert_uint_eq(q.bytes_owned, 80);
	ck_assert_uint_eq(q.max_time, 10);

	pd_queue_finish(&q);
	pd_qentry o;
	ck_assert(pd_queue_pop(&q, &o));
	ck_assert_uint_eq(o.offset, 2);
	ck_assert(o.owned);
	ck_assert_ptr_ne(o.data, rec);
	ck_assert_uint_eq(o.data[0], 0);
	ck_assert_uint_eq(q.bytes_owned, 40);
	free(o.data);
	ck_assert(pd_queue_pop(&q, &o));
	ck_assert_uint_eq(o.offset, 4);
	ck_assert(!o.owned);
	ck_assert_ptr_eq(o.data, rec);
	ck_assert_uint_eq(q.bytes_owned, 40);
	/* entry 1 (copied before the memset) stays queued: freed by free */
	ck_assert_uint_eq(q.n, 1);
	ck_assert_uint_eq(q.nruns, 1);
	ck_assert_uint_eq(q.slots[q.runs[0].keys[q.runs[0].head].slot].data[39], 0xab);
	pd_queue_free(&q);
	ck_assert_uint_eq(q.n, 0);
	ck_assert_uint_eq(q.bytes_owned, 0);

	/* one entry larger than the cap on its own */
	pd_queue_init(&q);
	e.size = 40;
	ck_assert_int_eq(pd_queue_push(&q, &e, true, 39), PD_ELIMIT);
	ck_assert_uint_eq(q.n, 0);
	pd_queue_free(&q);
}
END_TEST

/* As in perf, records are released at round markers only: a late record
 * that is already within the limit waits for the next marker and then
 * leaves first (the reader counts it as out of order). */
START_TEST(late_record_within_limit)
{
	pd_queue q;
	pd_queue_init(&q);
	uint64_t none[1] = {0};
	push_t(&q, 50, 0);
	pd_queue_round(&q);
	push_t(&q, 60, 1);
	pd_queue_round(&q); /* limit 50 */
	expect(&q, (uint64_t[]){ 0 }, 1);
	push_t(&q, 40, 2);
	push_t(&q, 55, 3);
	expect(&q, none, 0);
	ck_assert_uint_eq(q.flush_limit, 50);
	pd_queue_round(&q); /* limit 60 */
	expect(&q, (uint64_t[]){ 2, 3, 1 }, 3);
	expect(&q, none, 0);
	pd_queue_free(&q);
}
END_TEST

START_TEST(empty_queue)
{
	pd_queue q;
	pd_queue_init(&q);
	pd_qentry e;
	ck_assert(!pd_queue_pop(&q, &e));
	pd_queue_round(&q);
	ck_assert(!pd_queue_pop(&q, &e));
	pd_queue_finish(&q);
	ck_assert(!pd_queue_pop(&q, &e));
	pd_queue_free(&q);
	pd_queue_free(&q); /* after free the queue is reusable/empty */
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("queue");
	TCase *t = tcase_create("ordering");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, hand_worked_rounds);
	tcase_add_test(t, ties_keep_arrival_order);
	tcase_add_test(t, random_valid_matches_model);
	tcase_add_test(t, random_invalid_matches_model);
	tcase_add_test(t, copy_and_byte_cap);
	tcase_add_test(t, late_record_within_limit);
	tcase_add_test(t, empty_queue);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
