/*
 * Workload of the catalogue's "inlined, caller skipped" cases: `pipeline`
 * (G) calls `stage` (P), which calls the leaf `crunch` (C).  Built -O2
 * -fno-omit-frame-pointer as much distribution code is, gcc sets up no
 * frame in the leaf, so a sample in crunch unwinds through the frame
 * record of stage: its return address into pipeline.  Frame-pointer
 * chains of the base build therefore read crunch <- pipeline, stage
 * missing.  With -DPD_NEW crunch is always_inline into stage, and its cost
 * is self of stage under pipeline: the caller that the base chains never
 * showed.
 *
 *   frameless [MS]        run for about MS milliseconds (default 400)
 */
#include "../workloads/workload.h"

#ifdef PD_NEW
#define LEAF static inline __attribute__((always_inline))
#else
#define LEAF __attribute__((noinline))
#endif

LEAF uint64_t crunch(uint64_t x)
{
	MIX(x, 1200, 29, 0xbf58476d1ce4e5b9ull);
	return x;
}

/* A call that keeps stage a non-leaf in both builds, so that stage has a
 * frame (and a place in the chains) also once crunch is inlined. */
__attribute__((noinline)) uint64_t tally(uint64_t x)
{
	sink += x;
	return x;
}

/* Its own loop is a third of crunch's. */
__attribute__((noinline)) uint64_t stage(uint64_t x)
{
	MIX(x, 400, 31, 0x94d049bb133111ebull);
	x = crunch(x);
	return tally(x) + 1;
}

__attribute__((noinline)) uint64_t settle(uint64_t x)
{
	MIX(x, 800, 27, 0x9e3779b97f4a7c15ull);
	return x;
}

__attribute__((noinline)) uint64_t pipeline(uint64_t x)
{
	x = stage(x);
	return settle(x) + 1;
}

WORKLOAD_MAIN(pipeline(acc))
