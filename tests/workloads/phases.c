/*
 * Workload for test_blocks: a program whose profile changes over time.
 * `phase_a` runs alone for the first MS milliseconds, then `phase_b` for
 * the next MS, so per time block the samples of each leaf are known in
 * shape (all A, then all B) and can be counted from perf script's
 * timestamps.  Compile with -O0 -g -fno-omit-frame-pointer.
 *
 *   phases [MS]      each phase lasts about MS milliseconds (default 300)
 */
#include "workload.h"

__attribute__((noinline)) uint64_t phase_a(uint64_t x)
{
	MIX(x, 300, 29, 0xbf58476d1ce4e5b9ull);
	return x;
}

__attribute__((noinline)) uint64_t phase_b(uint64_t x)
{
	MIX(x, 300, 31, 0x94d049bb133111ebull);
	return x;
}

/* Run `fn` for about `ms` milliseconds. */
static uint64_t spin(uint64_t (*fn)(uint64_t), uint64_t acc, double ms)
{
	double end = now_ms() + ms;
	while (now_ms() < end)
		for (int k = 0; k < 200; k++)
			acc = fn(acc);
	return acc;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	uint64_t acc = spin(phase_a, 1, ms);
	sink = spin(phase_b, acc, ms);
	return 0;
}
