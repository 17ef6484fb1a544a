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

#define HOT_PART(x)                                                          \
	for (int i = 0; i < 350; i++)                                         \
		x = (x ^ (x >> 31)) * 0x94d049bb133111ebull + (uint64_t)i
#define COLD_PART(x)                                                         \
	for (int i = 0; i < 250; i++)                                         \
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)i

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
	for (int i = 0; i < 400; i++)
		x = (x ^ (x >> 27)) * 0x9e3779b97f4a7c15ull + (uint64_t)i;
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

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400;
	double end = now_ms() + ms;
	uint64_t acc = 1;
	while (now_ms() < end)
		for (int k = 0; k < 200; k++)
			acc = run(acc);
	sink = acc;
	return 0;
}
