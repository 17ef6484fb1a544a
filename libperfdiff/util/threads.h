/*
 * The worker threads an object of the library may run: a budget, the
 * `threads` of pd_session_options, shared by a session (or a profile and
 * every session it opens) with everything that starts a thread on its
 * behalf (symbols/prefetch.c, symbols/debug_inflate.c, profile/pipeline.c,
 * the profile's release thread, output/report_ahead.c).  A thread takes a
 * slot when it starts and gives it back when it is joined; with no slot
 * free the work is done on the thread that asked, as it always could be,
 * so results never depend on the budget.  0 slots: no thread at all.
 * Part of the util stage's interface (docs/architecture.md).
 */
#ifndef PD_UTIL_THREADS_H
#define PD_UTIL_THREADS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct pd_threads {
	unsigned max;          /* threads that may run at once */
	atomic_uint running;   /* slots taken */
} pd_threads;

void pd_threads_init(pd_threads *t, unsigned max);

/* Take a slot: false when none is free (or `t` is NULL: no budget, no
 * thread). */
bool pd_threads_take(pd_threads *t);
/* Give a slot back (taken and not used). */
void pd_threads_give(pd_threads *t);

/* Run fn(arg) on a new thread in a slot already taken: true when it
 * started (pd_threads_join() gives the slot back), false when no thread
 * could be had (the slot is given back; do the work here). */
bool pd_threads_run(pd_threads *t, pthread_t *th, void *(*fn)(void *), void *arg);

/* pd_threads_take() and pd_threads_run(): true when fn runs on a thread. */
bool pd_threads_start(pd_threads *t, pthread_t *th, void *(*fn)(void *), void *arg);

/* Join a thread of pd_threads_run() and give its slot back. */
void pd_threads_join(pd_threads *t, pthread_t th);

#endif
