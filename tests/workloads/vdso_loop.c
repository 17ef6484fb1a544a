/*
 * A loop around clock_gettime(), which the vdso serves without a system
 * call: most samples land in the vdso, called from libc's clock_gettime,
 * from vdso_spin, from vdso_outer, from main.  For the unwinding tests:
 * the vdso is no file on disk, so unwinding through it needs its image.
 *
 *   vdso_loop [MS]   run for about MS milliseconds (default 300)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t vdso_spin(long calls)
{
	struct timespec ts;
	uint64_t s = 0;
	for (long i = 0; i < calls; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += (uint64_t)ts.tv_nsec;
	}
	return s;
}

__attribute__((noinline)) static uint64_t vdso_outer(long calls)
{
	return vdso_spin(calls) + 1;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink += vdso_outer(argc > 2 ? atol(argv[2]) : 10000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}
