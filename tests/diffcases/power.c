/*
 * Workload of the catalogue's power cases: one function, `target`, costs
 * PD_TARGET_ROUNDS rounds of the mixing loop per step and its sibling
 * `steady` a fixed 300, both called from `work`.  The two sides of a case
 * differ only in PD_TARGET_ROUNDS, so the new build moves a known share
 * from steady to target: a real regression of a chosen size, which the
 * diff must flag however the background load moves every other row.
 *
 *   power [MS]            run for about MS milliseconds (default 400)
 *
 * Built -O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls as the
 * other workloads.
 */
#include "../workloads/workload.h"

#ifndef PD_TARGET_ROUNDS
#define PD_TARGET_ROUNDS 300
#endif

__attribute__((noinline)) uint64_t target(uint64_t x)
{
	MIX(x, PD_TARGET_ROUNDS, 29, 0xbf58476d1ce4e5b9ull);
	return x;
}

__attribute__((noinline)) uint64_t steady(uint64_t x)
{
	MIX(x, 300, 31, 0x94d049bb133111ebull);
	return x;
}

__attribute__((noinline)) uint64_t work(uint64_t x)
{
	x = target(x);
	x = steady(x);
	return x;
}

WORKLOAD_MAIN(work(acc))
