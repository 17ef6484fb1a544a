/*
 * Samples a session holds back, in order, while it reads ahead of what it
 * has delivered: what PD_SESSION_READ_AHEAD keeps in the session's one
 * hold (pd_session_hold(), session.h; the profile pipeline keeps its own
 * packed records instead).  Private to session/.  Each is a deep
 * copy, in one allocation: the resolved sample, its record and the
 * record's bytes (so the user stack copy of a `--call-graph dwarf` sample
 * too) and its frames (the command name is the session's own string,
 * which lives as long as the session).  The frames are the copy's own,
 * so that pending kernel frames can be replaced in place once named.
 * Copies are cut from blocks of a megabyte, freed once every sample in
 * them has been handed out: tens of megabytes in ~9 KB mallocs moved the
 * heap's top thousands of times (brk, then page faults again).
 */
#ifndef PD_SESSION_HOLDQ_H
#define PD_SESSION_HOLDQ_H

#include <stddef.h>

#include "perfdiff/session.h"

typedef struct pd_held_sample pd_held_sample;
typedef struct pd_hold_block pd_hold_block;

typedef struct pd_holdq {
	pd_hold_block *first, *last;  /* oldest first */
	pd_held_sample **q;      /* a ring: q[(head + i) % cap], i < n */
	size_t head, n, cap;
	size_t bytes;            /* of the samples in the ring */
	size_t total;            /* samples ever held */
	bool given;              /* one is handed out: keep its block until the next call */
} pd_holdq;

/* Append a copy of `rs`: 0 or PD_ENOMEM. */
int pd_holdq_push(pd_holdq *h, const pd_resolved_sample *rs);

/* The sample handed out last is no longer used (its lifetime ended with
 * the caller's next call into the session): free the blocks only it and
 * earlier samples used. */
void pd_holdq_release(pd_holdq *h);

/* The oldest held sample, now handed out (valid until the next release),
 * with frames the caller may rewrite; NULL when none is held. */
pd_resolved_sample *pd_holdq_pop(pd_holdq *h, pd_frame **frames);

void pd_holdq_free(pd_holdq *h);

#endif
