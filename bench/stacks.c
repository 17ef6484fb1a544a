/*
 * stacks.c — a workload of very many distinct call stacks, for
 * bench/bench-html.sh: the HTML page's budget is about the size of the
 * aligned tree (issue 20: ~200k nodes, ~60k rows), which real programs
 * reach only in long system-wide recordings of big machines.  Here 256
 * functions call each other along pseudo-random paths 6 to 21 deep, each
 * path picked by a counter run through a hash, and burn a little at the
 * leaf only, so each sample is most likely a path never seen before and
 * adds ~12 nodes to the calling-context tree.  Two runs with different
 * seeds share the first levels and little else: their aligned tree is
 * nearly the union of both.
 *
 *   cc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
 *      -o stacks bench/stacks.c
 *   ./stacks SECONDS SEED
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NF 256

typedef void fn(unsigned depth, uint64_t s);

static fn *const tab[NF];
static volatile uint64_t sink;

static uint64_t next(uint64_t s)
{
	s ^= s >> 33;
	s *= 0xff51afd7ed558ccdull;
	s ^= s >> 29;
	return s;
}

/* About a sample period's worth of work (250 us at 4 kHz) on a leaf. */
static __attribute__((noinline)) void burn(uint64_t s)
{
	for (unsigned i = 0; i < 60000; i++)
		sink += s ^ i;
}

/* f00 .. fff: on to a callee picked by the path's hash, or burn at the
 * end; the store after the call keeps it a call, not a jump. */
#define DEF(x)                                                                 \
	static __attribute__((noinline)) void f##x(unsigned d, uint64_t s)    \
	{                                                                      \
		if (d == 0) {                                                  \
			burn(s);                                               \
			return;                                                \
		}                                                              \
		tab[s % NF](d - 1, next(s));                                   \
		sink++;                                                        \
	}
#define D16(x) DEF(x##0) DEF(x##1) DEF(x##2) DEF(x##3) DEF(x##4) DEF(x##5) DEF(x##6) \
	DEF(x##7) DEF(x##8) DEF(x##9) DEF(x##a) DEF(x##b) DEF(x##c) DEF(x##d) DEF(x##e) DEF(x##f)
D16(0) D16(1) D16(2) D16(3) D16(4) D16(5) D16(6) D16(7)
D16(8) D16(9) D16(a) D16(b) D16(c) D16(d) D16(e) D16(f)

#define T16(x) f##x##0, f##x##1, f##x##2, f##x##3, f##x##4, f##x##5, f##x##6, f##x##7, \
	f##x##8, f##x##9, f##x##a, f##x##b, f##x##c, f##x##d, f##x##e, f##x##f,
static fn *const tab[NF] = {
	T16(0) T16(1) T16(2) T16(3) T16(4) T16(5) T16(6) T16(7)
	T16(8) T16(9) T16(a) T16(b) T16(c) T16(d) T16(e) T16(f)
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: stacks SECONDS SEED\n");
		return 2;
	}
	double end = now() + atof(argv[1]);
	uint64_t seed = strtoull(argv[2], NULL, 0) << 32;
	for (uint64_t i = 0; now() < end; i++) {
		uint64_t s = next(seed + i);
		tab[s % NF](6 + (unsigned)(s >> 40) % 16, next(s));
	}
	return 0;
}
