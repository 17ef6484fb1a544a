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
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) uint64_t leaf_cost(uint64_t x)
{
	for (int i = 0; i < 400; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)i;
	return x;
}

__attribute__((noinline)) uint64_t a_path(uint64_t x)
{
	for (int i = 0; i < 200; i++)
		x = (x ^ (x >> 31)) * 0x94d049bb133111ebull + (uint64_t)i;
#ifndef PD_NEW
	x = leaf_cost(x);
#endif
	return x;
}

__attribute__((noinline)) uint64_t b_path(uint64_t x)
{
	for (int i = 0; i < 200; i++)
		x = (x ^ (x >> 27)) * 0x9e3779b97f4a7c15ull + (uint64_t)i;
#ifdef PD_NEW
	x = leaf_cost(x);
#endif
	return x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400;
	double end = now_ms() + ms;
	uint64_t acc = 1;
	while (now_ms() < end)
		for (int k = 0; k < 200; k++)
			acc = b_path(a_path(acc));
	sink = acc;
	return 0;
}
