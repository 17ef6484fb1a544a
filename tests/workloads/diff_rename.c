/*
 * Workload for test_diff's renamed case (and its A/A case): the hot
 * function is `hash_chunk`, or with -DPD_NEW `hash_block`; body, caller
 * (`process`) and callee (`mix_step`) are the same, so the two builds
 * differ only in the name.  Compile with -O0 -g -fno-omit-frame-pointer
 * -fno-optimize-sibling-calls: every function keeps its frame, leaves too
 * (gcc 12 at -O1 sets up no frame in a leaf despite -fno-omit-frame-pointer,
 * and the leaf's caller vanishes from frame-pointer chains).
 *
 *   diff_rename [MS]      run for about MS milliseconds (default 400)
 *
 * Shares (children): hash_* ~60 %, mix_step ~30 %, checksum ~35 %.
 */
#include "workload.h"

#ifdef PD_NEW
#define HASH hash_block
#else
#define HASH hash_chunk
#endif

__attribute__((noinline)) uint64_t mix_step(uint64_t x)
{
	MIX(x, 300, 29, 0xbf58476d1ce4e5b9ull);
	return x;
}

/* rounds of the hash's own loop: a build may make the renamed function
 * slower too (-DPD_HASH_ROUNDS=900) */
#ifndef PD_HASH_ROUNDS
#define PD_HASH_ROUNDS 300
#endif

__attribute__((noinline)) uint64_t HASH(uint64_t x)
{
	MIX(x, PD_HASH_ROUNDS, 31, 0x94d049bb133111ebull);
	x = mix_step(x);
	return x;
}

__attribute__((noinline)) uint64_t checksum(uint64_t x)
{
	MIX(x, 350, 27, 0x9e3779b97f4a7c15ull);
	return x;
}

__attribute__((noinline)) uint64_t process(uint64_t x)
{
	x = HASH(x);
	x = checksum(x);
	return x;
}

WORKLOAD_MAIN(process(acc))
