/*
 * Workload for test_diff's split case: `foo` does a hot and a cold part.
 * With -DPD_NEW the cold part is a function of its own named "foo.cold"
 * (an asm label: gcc's own hot/cold splitting is not reliable enough for
 * a test).  As after gcc's splitting, where foo.cold runs in foo's frame,
 * foo.cold is a sibling of foo in the call chains: their caller `run`
 * calls both.  Compile with -O0 -g -fno-omit-frame-pointer
 * -fno-optimize-sibling-calls.
 *
 *   diff_split [MS]       run for about MS milliseconds (default 400)
 *
 * Shares (children): foo ~60 % (new: foo ~35 % + foo.cold ~25 %), bar ~40 %.
 */
#include "workload.h"

#define HOT_PART(x) MIX(x, 350, 31, 0x94d049bb133111ebull)
#define COLD_PART(x) MIX(x, 250, 29, 0xbf58476d1ce4e5b9ull)

#ifdef PD_NEW
__attribute__((noinline)) uint64_t foo_cold(uint64_t x) __asm__("foo.cold");
uint64_t foo_cold(uint64_t x)
{
	COLD_PART(x);
	return x;
}
#endif

__attribute__((noinline)) uint64_t foo(uint64_t x)
{
	HOT_PART(x);
#ifndef PD_NEW
	COLD_PART(x);
#endif
	return x;
}

__attribute__((noinline)) uint64_t bar(uint64_t x)
{
	MIX(x, 400, 27, 0x9e3779b97f4a7c15ull);
	return x;
}

__attribute__((noinline)) uint64_t run(uint64_t x)
{
	x = foo(x);
#ifdef PD_NEW
	x = foo_cold(x);
#endif
	return bar(x);
}

WORKLOAD_MAIN(run(acc))
