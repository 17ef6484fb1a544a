/*
 * Workload for test_diff's renamed case (and its A/A case): the hot
 * function is `hash_chunk`, or with -DPD_NEW `hash_block`; body, caller
 * (`process`) and callee (`mix_step`) are the same, so the two builds
 * differ only in the name.  Compile with -O0 -g -fno-omit-frame-pointer
 * -fno-optimize-sibling-calls: every function keeps its frame, leaves too
 * (gcc 12 at -O1 sets up no frame in a leaf despite -fno-omit-frame-pointer,
 * and the leaf's caller vanishes from frame-pointer chains).
 *
 *   diff_rename [MS]      run for about MS milliseconds (default 400)
 *
 * Shares (children): hash_* ~60 %, mix_step ~30 %, checksum ~35 %.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifdef PD_NEW
#define HASH hash_block
#else
#define HASH hash_chunk
#endif

static volatile uint64_t sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Data-dependent multiply/xor chains: nothing the compiler can fold. */
__attribute__((noinline)) uint64_t mix_step(uint64_t x)
{
	for (int i = 0; i < 300; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)i;
	return x;
}

__attribute__((noinline)) uint64_t HASH(uint64_t x)
{
	for (int i = 0; i < 300; i++)
		x = (x ^ (x >> 31)) * 0x94d049bb133111ebull + (uint64_t)i;
	x = mix_step(x);
	return x;
}

__attribute__((noinline)) uint64_t checksum(uint64_t x)
{
	for (int i = 0; i < 350; i++)
		x = (x ^ (x >> 27)) * 0x9e3779b97f4a7c15ull + (uint64_t)i;
	return x;
}

__attribute__((noinline)) uint64_t process(uint64_t x)
{
	x = HASH(x);
	x = checksum(x);
	return x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400;
	double end = now_ms() + ms;
	uint64_t acc = 1;
	while (now_ms() < end)
		for (int k = 0; k < 200; k++)
			acc = process(acc);
	sink = acc;
	return 0;
}
