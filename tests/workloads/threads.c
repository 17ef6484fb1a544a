/*
 * Workload for test_stats_truncated: the same shallow stack in the main
 * thread and in two pthreads, so that a DWARF unwinder must end thread
 * stacks in glibc's clone3 (whose CFI marks the return address undefined)
 * and the main thread's in _start:
 *
 *   clone3 → start_thread → worker → mid → mid → mid → mid → leaf
 *   _start → __libc_start_main → ... → main → worker → mid ... → leaf
 *
 * Each frame keeps ~100 bytes of locals: the whole stack fits perf's
 * default 8 KiB stack copy, but not a 128-byte one.
 *
 *   threads [MS]   run for about MS milliseconds (default 300)
 */
#include <pthread.h>

#include "workload.h"

__attribute__((noinline)) static uint64_t leaf(uint64_t x)
{
	volatile char pad[96];
	pad[0] = (char)x;
	for (int i = 0; i < 2000; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ull + (uint64_t)i;
	return x + (uint64_t)pad[0];
}

__attribute__((noinline)) static uint64_t mid(uint64_t x, int depth)
{
	volatile char pad[96];
	pad[0] = (char)depth;
	if (depth > 0)
		return mid(x + 1, depth - 1) + (uint64_t)pad[0];
	return leaf(x);
}

static double run_ms = 300;

static void *worker(void *arg)
{
	uint64_t acc = (uintptr_t)arg;
	double end = now_ms() + run_ms;
	while (now_ms() < end)
		for (int k = 0; k < 50; k++)
			acc = mid(acc, 3);
	sink = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		run_ms = atof(argv[1]);
	pthread_t t[2];
	int started = 0;
	for (int i = 0; i < 2; i++)
		started += pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)) == 0;
	worker((void *)(uintptr_t)7);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return 0;
}
