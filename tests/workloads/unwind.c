/*
 * Workload for test_unwind: stacks a DWARF unwinder must rebuild without
 * frame pointers (build with -O2 -g -fomit-frame-pointer):
 *
 *   main → run → walk → walk → ... → leaf_sum       recursion, frameless leaf
 *   main → run → sort_some → qsort (libc) → by_value   a callback through libc
 *   main → run → through_ptr → (*fn) → mix          an indirect call
 *   SIGALRM handler → __restore_rt → interrupted code  a signal frame
 *
 *   unwind [MS]   run for about MS milliseconds (default 400)
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile uint64_t sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static uint64_t leaf_sum(uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static uint64_t walk(int depth, uint64_t n)
{
	if (depth == 0)
		return leaf_sum(n);
	uint64_t r = walk(depth - 1, n) + (uint64_t)depth;
	sink += r;   /* not a tail call */
	return r;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_some(uint64_t seed)
{
	uint64_t v[4096];
	for (size_t i = 0; i < 4096; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = seed >> 17;
	}
	qsort(v, 4096, sizeof v[0], by_value);
	sink += v[0];
}

__attribute__((noinline)) static uint64_t mix(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ull;
	return x;
}

__attribute__((noinline)) static uint64_t through_ptr(uint64_t (*fn)(uint64_t), uint64_t x)
{
	uint64_t r = fn(x);
	sink += r;
	return r + 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	sink += mix(sink);   /* samples here unwind through the signal frame */
}

__attribute__((noinline)) static void run(double until)
{
	uint64_t (*volatile fn)(uint64_t) = mix;
	uint64_t k = 1;
	while (now_ms() < until) {
		sink += walk(8 + (int)(k % 5), 20000);
		sort_some(k);
		sink += through_ptr(fn, k);
		k++;
	}
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	run(now_ms() + ms);
	/* 0 always: perf record passes the status on, and the tests skip
	 * when it is not 0 (sink & 1 made them skip half the time) */
	return 0;
}
