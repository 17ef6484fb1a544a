/*
 * Workload for test_script: one process, two images whose code sits at the
 * same addresses under different names.  Built twice from this file, with
 * -DHOT=hot_one and -DHOT=hot_two (names of one length: nothing moves, only
 * the symbol table differs).  The first image spins in HOT, then execs the
 * second, which spins as long in its own HOT.  Run without address
 * randomization (setarch -R), a sample of the second image carries, word
 * for word, a call chain that samples of the first carried too: only the
 * process's new maps tell which name it has.
 *
 *   exec_same MS [NEXT]   spin about MS milliseconds, then exec NEXT MS
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef HOT
#define HOT hot_one
#endif

static volatile uint64_t sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void HOT(double end)
{
	uint64_t x = sink;
	while (now_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	HOT(now_ms() + ms);
	if (argc > 2) {
		char *next[] = { argv[2], argv[1], NULL };
		execv(argv[2], next);
		return 1;
	}
	return 0;
}
