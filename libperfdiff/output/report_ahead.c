/*
 * The builder thread of report_ahead.h, in a slot of the profile's thread
 * budget (none: the writer builds every tree).  Work is handed out in entry order
 * from one counter, so the writer, when the tree it needs next is not
 * claimed yet, builds that one itself, and while it waits for one it
 * builds later ones.
 */
#include "report_ahead.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/options.h"

typedef struct slot {
	pd_chain_tree *tree;
	int rc;                /* 0, or the error of a failed build */
	pd_error err;
	bool done;
} slot;

struct report_ahead {
	pd_profile *p;
	size_t ev;
	const size_t *entries;
	size_t n;
	pd_chain_order order;
	uint64_t min_total;
	slot *slots;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next;           /* first entry nobody has claimed */
	bool stop;
	bool threaded;
	pthread_t thread;
};

static void build(report_ahead *a, size_t i, slot *s)
{
	memset(&s->err, 0, sizeof s->err);
	s->tree = NULL;
	s->rc = pd_profile_chains(a->p, a->ev, a->entries[i], a->order, SIZE_MAX, a->min_total,
				  &s->tree, &s->err);
}

static void *builder_main(void *arg)
{
	report_ahead *a = arg;
	pthread_mutex_lock(&a->mu);
	while (!a->stop && a->next < a->n) {
		size_t i = a->next++;
		pthread_mutex_unlock(&a->mu);
		slot s;
		build(a, i, &s);
		pthread_mutex_lock(&a->mu);
		s.done = true;
		a->slots[i] = s;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

report_ahead *report_ahead_start(pd_profile *p, size_t ev, const size_t *entries, size_t n,
				 pd_chain_order order, uint64_t min_total)
{
	report_ahead *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->slots = calloc(n ? n : 1, sizeof *a->slots);
	if (!a->slots) {
		free(a);
		return NULL;
	}
	*a = (report_ahead){ p, ev, entries, n, order, min_total, a->slots,
			     .next = 0, .stop = false, .threaded = false };
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		free(a->slots);
		free(a);
		return NULL;
	}
	if (pthread_cond_init(&a->cv, NULL) != 0) {
		pthread_mutex_destroy(&a->mu);
		free(a->slots);
		free(a);
		return NULL;
	}
	/* one tree is not worth a thread; the profile's budget may have none */
	a->threaded = n > 1 && pd_threads_start(pd_profile_threads(p), &a->thread, builder_main, a);
	return a;
}

int report_ahead_take(report_ahead *a, size_t i, pd_chain_tree **out, pd_error *err)
{
	*out = NULL;
	if (i >= a->n) {
		if (err)
			*err = (pd_error){ .code = PD_EINVAL, .offset = PD_NO_OFFSET,
					   .message = "report: no such chain tree" };
		return PD_EINVAL;
	}
	pthread_mutex_lock(&a->mu);
	if (i >= a->next) {
		/* not claimed: build it here rather than wait for it */
		a->next = i + 1;
		pthread_mutex_unlock(&a->mu);
		build(a, i, &a->slots[i]);
		pthread_mutex_lock(&a->mu);
		a->slots[i].done = true;
	}
	/* a few rows near the root cost most: while the other thread builds
	 * one, build the trees after it instead of idling */
	while (!a->slots[i].done) {
		if (a->next < a->n) {
			size_t j = a->next++;
			pthread_mutex_unlock(&a->mu);
			slot s;
			build(a, j, &s);
			pthread_mutex_lock(&a->mu);
			s.done = true;
			a->slots[j] = s;
			continue;
		}
		pthread_cond_wait(&a->cv, &a->mu);
	}
	slot *s = &a->slots[i];
	*out = s->tree;
	s->tree = NULL;
	int rc = s->rc;
	if (rc < 0 && err)
		*err = s->err;
	pthread_mutex_unlock(&a->mu);
	return rc;
}

void report_ahead_free(report_ahead *a)
{
	if (!a)
		return;
	if (a->threaded) {
		pthread_mutex_lock(&a->mu);
		a->stop = true;
		pthread_mutex_unlock(&a->mu);
		pd_threads_join(pd_profile_threads(a->p), a->thread);
	}
	for (size_t i = 0; i < a->n; i++)
		pd_chain_tree_free(a->slots[i].tree);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a->slots);
	free(a);
}
