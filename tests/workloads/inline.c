/*
 * Workload for test_script: a hot always-inline function inside a
 * noinline caller, so most samples land on addresses whose DWARF scope is
 * an inlined subroutine (compile with -O2 -g -fno-omit-frame-pointer).
 *
 *   inline [MS]      run for about MS milliseconds (default 300)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

/* CPU time, not wall time: a loaded machine stretches the run but keeps
 * its samples (cpu-clock counts CPU time), which the tests count. */
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The body is a data-dependent loop the compiler cannot fold away; the
 * volatile store keeps it from being hoisted out of the caller's loop. */
static inline __attribute__((always_inline)) uint64_t hot_inline(uint64_t x)
{
	for (int i = 0; i < 4000; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ull + (uint64_t)i;
	sink = x;
	return x;
}

__attribute__((noinline)) uint64_t outer_fn(uint64_t seed)
{
	uint64_t acc = 0;
	for (int k = 0; k < 64; k++)
		acc += hot_inline(seed + (uint64_t)k);
	return acc;
}

__attribute__((noinline)) uint64_t plain_fn(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
	return x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	double end = now_ms() + ms;
	uint64_t acc = 0;
	while (now_ms() < end) {
		acc += outer_fn(acc);
		acc += plain_fn(acc);
	}
	sink = acc;
	return 0;
}
