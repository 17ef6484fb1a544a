/*
 * Workload for test_diff's moved case: `leaf_cost` is called from `a_path`
 * in the base build and from `b_path` with -DPD_NEW; same body, both paths
 * exist in both builds.  Compile with -O0 -g -fno-omit-frame-pointer
 * -fno-optimize-sibling-calls.
 *
 *   diff_move [MS]        run for about MS milliseconds (default 400)
 *
 * Shares (children): leaf_cost ~50 %; a_path ~75 % → ~25 %, b_path the
 * reverse.
 */
#include "workload.h"

__attribute__((noinline)) uint64_t leaf_cost(uint64_t x)
{
	MIX(x, 400, 29, 0xbf58476d1ce4e5b9ull);
	return x;
}

__attribute__((noinline)) uint64_t a_path(uint64_t x)
{
	MIX(x, 200, 31, 0x94d049bb133111ebull);
#ifndef PD_NEW
	x = leaf_cost(x);
#endif
	return x;
}

__attribute__((noinline)) uint64_t b_path(uint64_t x)
{
	MIX(x, 200, 27, 0x9e3779b97f4a7c15ull);
#ifdef PD_NEW
	x = leaf_cost(x);
#endif
	return x;
}

WORKLOAD_MAIN(b_path(a_path(acc)))
