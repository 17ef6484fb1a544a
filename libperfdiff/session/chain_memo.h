/*
 * The frames of call chains a session has already named.  A profile
 * repeats its chains: on a system-wide recording 97 % of the samples carry
 * a (process, call chain) that an earlier sample carried too, because the
 * sampled code sits in a few loops.  Naming a chain again costs a map
 * search, a dso look-up and a hash probe into the symbolizer's results per
 * frame; a hit here costs one hash of the chain and one probe, and its
 * frames are handed out where they are kept.
 *
 * A chain's frames depend on nothing but its addresses, its process's
 * user maps, the kernel's maps and symbols, and which file the symbolizer
 * reads for a build (a stripped copy seen first gives way to a path with
 * symbols seen later).  So the key is the chain (sample ip, call chain
 * words, cpumode, pid) together with the process's map generation, the
 * machine's kernel generation (machine/machine.h) and the symbolizer's
 * (symbols/symbolizer.h): once one changes, the old entries are never found again
 * and are replaced as new ones land on their slots.  Only chains without pending
 * kernel frames are kept (those change once the kernel's table is read).
 *
 * Direct-mapped (a collision replaces); entries are allocated one by one
 * and reused in place when the new chain fits, within a byte budget past
 * which new chains are simply not kept.
 *
 * It pays only when most chains repeat: keeping a chain costs a copy of
 * its frames, and deep kernel stacks are named cheaply anyway (kcache.h).
 * On bench-diff's recordings 93 % of the look-ups hit and the sessions
 * took 15 % less CPU; on a system-wide recording of a dd and a shell loop
 * (deep kernel stacks, 61 % hits) the memo cost 10 % more.  So the memo
 * counts its hits: after a window of look-ups with fewer than
 * PD_CHAIN_MEMO_MIN_HITS per mille, it rests for PD_CHAIN_MEMO_REST
 * windows (pd_chain_memo_on() says no), then tries again.
 */
#ifndef PD_SESSION_CHAIN_MEMO_H
#define PD_SESSION_CHAIN_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/session.h"

/* What, besides the call chain words, names a chain: see chain_memo.c. */
typedef struct pd_chain_key {
	uint64_t head[5];        /* pid/cpumode/fields, ip, and the generations of the
	                            process's maps, the kernel's and the symbolizer's */
	const uint64_t *chain;   /* the call chain as recorded (context markers included) */
	size_t nchain;
	uint64_t hash;
} pd_chain_key;

typedef struct pd_chain_entry pd_chain_entry;

typedef struct pd_chain_memo {
	pd_chain_entry **slots;  /* 1 << PD_CHAIN_MEMO_BITS, allocated at the first put */
	size_t bytes;            /* held by entries */
	bool failed;             /* no memory for the slots: stay uncached */
	uint32_t tried, hits;    /* look-ups and hits in the current window */
	uint32_t resting;        /* samples left to go without the memo */
} pd_chain_memo;

#define PD_CHAIN_MEMO_WINDOW 4096
#define PD_CHAIN_MEMO_MIN_HITS 800   /* per mille */
#define PD_CHAIN_MEMO_REST 15        /* windows */

/* Whether to look the next sample's chain up (and keep it): not while the
 * memo rests after a window of too few hits. */
static inline bool pd_chain_memo_on(pd_chain_memo *m)
{
	if (m->resting == 0)
		return true;
	m->resting--;
	return false;
}

/* The key of a sample's chain.  `fields` is the sample type's IP and
 * CALLCHAIN bits; `ip` counts only with IP, `chain` only with CALLCHAIN. */
void pd_chain_key_make(pd_chain_key *k, uint32_t pid, uint8_t cpumode, uint64_t fields,
		       uint64_t ip, const uint64_t *chain, size_t nchain, uint64_t maps_gen,
		       uint64_t kernel_gen, uint64_t symbolizer_gen);

/* The frames kept for `k` (their count in *nframes), or NULL.  Counted
 * for the hit rate (see above). */
const pd_frame *pd_chain_memo_get(pd_chain_memo *m, const pd_chain_key *k, size_t *nframes);

/* Keep `frames` for `k` (their strings must outlive the memo's user).
 * Only a cache: out of memory or budget, nothing is kept. */
void pd_chain_memo_put(pd_chain_memo *m, const pd_chain_key *k, const pd_frame *frames,
		       size_t nframes);

void pd_chain_memo_free(pd_chain_memo *m);

#endif
