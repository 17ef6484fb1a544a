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
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifdef PD_NEW
#define HELPER static inline __attribute__((always_inline))
#else
#define HELPER __attribute__((noinline))
#endif

static volatile uint64_t sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) uint64_t scramble(uint64_t x)
{
	for (int i = 0; i < 150; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)i;
	return x;
}

HELPER uint64_t helper(uint64_t x)
{
	for (int i = 0; i < 300; i++)
		x = (x ^ (x >> 31)) * 0x94d049bb133111ebull + (uint64_t)i;
	return scramble(x);
}

__attribute__((noinline)) uint64_t work(uint64_t x)
{
	for (int i = 0; i < 200; i++)
		x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdull + (uint64_t)i;
	return helper(x);
}

__attribute__((noinline)) uint64_t other(uint64_t x)
{
	for (int i = 0; i < 350; i++)
		x = (x ^ (x >> 27)) * 0x9e3779b97f4a7c15ull + (uint64_t)i;
	return x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400;
	double end = now_ms() + ms;
	uint64_t acc = 1;
	while (now_ms() < end)
		for (int k = 0; k < 200; k++)
			acc = other(work(acc));
	sink = acc;
	return 0;
}
