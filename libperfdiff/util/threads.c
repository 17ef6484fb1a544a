/*
 * The thread budget (threads.h): a count of slots taken, compared and
 * swapped, so that threads started from several threads at once (the
 * prefetch thread and the session both open debug files) stay within it.
 */
#include "threads.h"

void pd_threads_init(pd_threads *t, unsigned max)
{
	t->max = max;
	atomic_init(&t->running, 0);
}

bool pd_threads_take(pd_threads *t)
{
	if (!t)
		return false;
	unsigned n = atomic_load(&t->running);
	while (n < t->max)
		if (atomic_compare_exchange_weak(&t->running, &n, n + 1))
			return true;
	return false;
}

void pd_threads_give(pd_threads *t)
{
	if (t)
		atomic_fetch_sub(&t->running, 1);
}

bool pd_threads_run(pd_threads *t, pthread_t *th, void *(*fn)(void *), void *arg)
{
	if (pthread_create(th, NULL, fn, arg) == 0)
		return true;
	pd_threads_give(t);
	return false;
}

bool pd_threads_start(pd_threads *t, pthread_t *th, void *(*fn)(void *), void *arg)
{
	return pd_threads_take(t) && pd_threads_run(t, th, fn, arg);
}

void pd_threads_join(pd_threads *t, pthread_t th)
{
	pthread_join(th, NULL);
	pd_threads_give(t);
}
