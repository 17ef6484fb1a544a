/*
 * The session's memo of named call chains (chain_memo.h).
 */
#include "chain_memo.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define PD_CHAIN_MEMO_BITS 13
/* Entries beyond this many bytes in all are not kept: a recording whose
 * chains hardly repeat would otherwise fill memory with copies. */
#define PD_CHAIN_MEMO_BUDGET ((size_t)16 << 20)
/* Longer chains are rare and cost their naming anyway; not kept. */
#define PD_CHAIN_MEMO_MAX_WORDS 512
#define PD_CHAIN_MEMO_MAX_FRAMES 512

struct pd_chain_entry {
	uint64_t hash;
	uint64_t head[5];
	uint32_t nchain, nframes;
	size_t cap;              /* bytes allocated for the entry */
	pd_frame *frames;        /* after the chain words, in the same allocation */
	uint64_t chain[];
};

/* Two lanes of rotate, xor and multiply, so that the multiplies of
 * consecutive words overlap: a chain is hashed for every sample, and one
 * lane's dependency chain cost as much as the look-up it serves. */
static uint64_t hash_key(const uint64_t *head, const uint64_t *chain, size_t n)
{
	const uint64_t k0 = 0x9e3779b97f4a7c15ull, k1 = 0xc2b2ae3d27d4eb4full;
	uint64_t a = (head[0] ^ head[2] ^ head[4] << 40) * k0, b = (head[1] ^ head[3]) * k1;
	size_t i = 0;
	for (; i + 2 <= n; i += 2) {
		a = ((a << 5 | a >> 59) ^ chain[i]) * k0;
		b = ((b << 5 | b >> 59) ^ chain[i + 1]) * k1;
	}
	if (i < n)
		a = ((a << 5 | a >> 59) ^ chain[i]) * k0;
	return pd_mix64(a ^ (b << 32 | b >> 32) ^ n);
}

void pd_chain_key_make(pd_chain_key *k, uint32_t pid, uint8_t cpumode, uint64_t fields,
		       uint64_t ip, const uint64_t *chain, size_t nchain, uint64_t maps_gen,
		       uint64_t kernel_gen, uint64_t symbolizer_gen)
{
	bool has_ip = (fields & PD_SAMPLE_IP) != 0;
	bool has_chain = (fields & PD_SAMPLE_CALLCHAIN) != 0;
	k->head[0] = (uint64_t)pid | (uint64_t)cpumode << 32 | (uint64_t)has_ip << 40 |
		     (uint64_t)has_chain << 41;
	k->head[1] = has_ip ? ip : 0;
	k->head[2] = maps_gen;
	k->head[3] = kernel_gen;
	k->head[4] = symbolizer_gen;
	k->chain = has_chain ? chain : NULL;
	k->nchain = has_chain ? nchain : 0;
	k->hash = hash_key(k->head, k->chain, k->nchain);
}

static pd_chain_entry **slot_of(const pd_chain_memo *m, uint64_t hash)
{
	return &m->slots[hash >> (64 - PD_CHAIN_MEMO_BITS)];
}

/* One look-up more in the window; at its end, rest if it hit too rarely. */
static void count(pd_chain_memo *m, bool hit)
{
	m->hits += hit;
	if (++m->tried < PD_CHAIN_MEMO_WINDOW)
		return;
	if ((uint64_t)m->hits * 1000 < (uint64_t)PD_CHAIN_MEMO_MIN_HITS * PD_CHAIN_MEMO_WINDOW)
		m->resting = PD_CHAIN_MEMO_REST * PD_CHAIN_MEMO_WINDOW;
	m->tried = m->hits = 0;
}

const pd_frame *pd_chain_memo_get(pd_chain_memo *m, const pd_chain_key *k, size_t *nframes)
{
	const pd_chain_entry *e = m->slots ? *slot_of(m, k->hash) : NULL;
	if (!e || e->hash != k->hash || e->nchain != k->nchain ||
	    memcmp(e->head, k->head, sizeof e->head) != 0 ||
	    (k->nchain && memcmp(e->chain, k->chain, k->nchain * sizeof *k->chain) != 0)) {
		count(m, false);
		return NULL;
	}
	count(m, true);
	*nframes = e->nframes;
	return e->frames;
}

void pd_chain_memo_put(pd_chain_memo *m, const pd_chain_key *k, const pd_frame *frames,
		       size_t nframes)
{
	if (k->nchain > PD_CHAIN_MEMO_MAX_WORDS || nframes > PD_CHAIN_MEMO_MAX_FRAMES)
		return;
	if (!m->slots) {
		if (m->failed)
			return;
		m->slots = calloc((size_t)1 << PD_CHAIN_MEMO_BITS, sizeof *m->slots);
		if (!m->slots) {
			m->failed = true;   /* only a cache */
			return;
		}
	}
	/* frames are 8-byte aligned after the words */
	size_t need = sizeof(pd_chain_entry) + k->nchain * sizeof(uint64_t) +
		      nframes * sizeof(pd_frame);
	pd_chain_entry **slot = slot_of(m, k->hash);
	pd_chain_entry *e = *slot;
	if (!e || e->cap < need) {
		size_t old = e ? e->cap : 0;
		if (m->bytes - old + need > PD_CHAIN_MEMO_BUDGET)
			return;
		pd_chain_entry *n = realloc(e, need);
		if (!n)
			return;   /* the old entry stays as it was */
		m->bytes = m->bytes - old + need;
		e = *slot = n;
		e->cap = need;
	}
	e->hash = k->hash;
	memcpy(e->head, k->head, sizeof e->head);
	e->nchain = (uint32_t)k->nchain;
	e->nframes = (uint32_t)nframes;
	if (k->nchain)
		memcpy(e->chain, k->chain, k->nchain * sizeof *k->chain);
	e->frames = (pd_frame *)(void *)(e->chain + k->nchain);
	if (nframes)
		memcpy(e->frames, frames, nframes * sizeof *frames);
}

void pd_chain_memo_free(pd_chain_memo *m)
{
	if (m->slots)
		for (size_t i = 0; i < (size_t)1 << PD_CHAIN_MEMO_BITS; i++)
			free(m->slots[i]);
	free(m->slots);
	memset(m, 0, sizeof *m);
}
