/*
 * CPU-bound workload for the recorded fixtures: a few distinct functions
 * (one recursive) so call graphs have depth and more than one leaf.
 *
 *   workload [MS [THREADS]]
 *
 * MS (default 200) bounds the run time so the fixtures stay small; with
 * THREADS > 1 the extra threads run on other CPUs, so the recording gets
 * FORK/EXIT records and samples from several per-CPU buffers whose times
 * interleave (what the reader's ordering has to undo).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static uint64_t fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static uint64_t mix(uint64_t x, unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static uint64_t stage_b(unsigned n)
{
	return mix(n, 20000) ^ fib(18);
}

__attribute__((noinline)) static uint64_t stage_a(unsigned n)
{
	return stage_b(n) + fib(20);
}

static void *burn(void *arg)
{
	double end = now_ms() + *(const double *)arg;
	unsigned n = 0;
	while (now_ms() < end)
		sink += stage_a(n++);
	return NULL;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 200;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t tid[8];
	if (threads > 8)
		threads = 8;
	int started = 0;
	for (int i = 1; i < threads; i++)
		if (pthread_create(&tid[started], NULL, burn, &ms) == 0)
			started++;
	burn(&ms);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
