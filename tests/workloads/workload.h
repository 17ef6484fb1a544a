/*
 * What the diff_*.c workloads share: a clock, a sink the compiler cannot
 * see through, the multiply/xor round every hot loop is made of, and the
 * timed main loop.  Each workload is one translation unit built with
 * `cc -O0 ... -o BIN tests/workloads/diff_X.c`, so this header is found
 * beside its source and everything here is static.
 *
 * MIX and WORKLOAD_MAIN are macros, not functions: at -O0 nothing is
 * inlined, and a helper function would be a frame of its own in every
 * recorded call chain, so the symbols the diff tests look for would move.
 */
#ifndef PD_WORKLOAD_H
#define PD_WORKLOAD_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static inline double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ROUNDS data-dependent multiply/xor steps on x: nothing the compiler can
 * fold, so the cost stays in the function that expands it. */
#define MIX(x, rounds, shift, mul)                                           \
	for (int i = 0; i < (rounds); i++)                                    \
		x = (x ^ (x >> (shift))) * (mul) + (uint64_t)i

/*
 * main(): `acc = STEP`, 200 times per clock check, for about argv[1]
 * milliseconds (default 400).  STEP is an expression of the uint64_t acc.
 */
#define WORKLOAD_MAIN(step)                                                  \
	int main(int argc, char **argv)                                       \
	{                                                                     \
		double ms = argc > 1 ? atof(argv[1]) : 400;                   \
		double end = now_ms() + ms;                                   \
		uint64_t acc = 1;                                             \
		while (now_ms() < end)                                        \
			for (int k = 0; k < 200; k++)                         \
				acc = (step);                                 \
		sink = acc;                                                   \
		return 0;                                                     \
	}

#endif
