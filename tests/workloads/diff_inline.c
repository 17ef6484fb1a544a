/*
 * Workload for test_diff's inlined case: `work` calls `helper`, which
 * calls `scramble`.  In the base build `helper` is a function of its own;
 * with -DPD_NEW it is always_inline, so its cost becomes self of `work`
 * (or an inline frame of it, read with debug info) and `scramble` hangs
 * off `work`.  Compile with -O0 -g -fno-omit-frame-pointer
 * -fno-optimize-sibling-calls (always_inline still inlines at -O0).
 *
 *   diff_inline [MS]      run for about MS milliseconds (default 400)
 *
 * Shares (children): work ~65 %, helper ~45 %, scramble ~15 %, other ~35 %.
 */
#include "workload.h"

#ifdef PD_NEW
#define HELPER static inline __attribute__((always_inline))
#else
#define HELPER __attribute__((noinline))
#endif

__attribute__((noinline)) uint64_t scramble(uint64_t x)
{
	MIX(x, 150, 29, 0xbf58476d1ce4e5b9ull);
	return x;
}

HELPER uint64_t helper(uint64_t x)
{
	MIX(x, 300, 31, 0x94d049bb133111ebull);
	return scramble(x);
}

__attribute__((noinline)) uint64_t work(uint64_t x)
{
	MIX(x, 200, 33, 0xff51afd7ed558ccdull);
	return helper(x);
}

__attribute__((noinline)) uint64_t other(uint64_t x)
{
	MIX(x, 350, 27, 0x9e3779b97f4a7c15ull);
	return x;
}

WORKLOAD_MAIN(other(work(acc)))
