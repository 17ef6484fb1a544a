/*
 * Workload for test_unwind_backends: user stacks that make a DWARF
 * unwinder work (compile with -O2 -g, frame pointers omitted):
 *
 *   main → sort_round → qsort (libc) → ... → cmp     callbacks through libc
 *   main → deep → deep → ... → deep_leaf             recursion
 *   main → trig → sin/cos (libm)                     a second library
 *   SIGPROF handler → __restore_rt → interrupted code   signal frames
 *
 *   unwind_mix [MS]     run for about MS milliseconds (default 300)
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile uint64_t sink;
static volatile double dsink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void spin(int n)
{
	uint64_t x = sink;
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	spin(40);
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_round(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (double)((i * 7919u) % 1009u);
	qsort(v, n, sizeof *v, cmp);
}

__attribute__((noinline)) static void deep_leaf(void)
{
	spin(200000);
}

__attribute__((noinline)) static int deep(int d)
{
	if (d == 0) {
		deep_leaf();
		return 0;
	}
	int r = deep(d - 1);
	sink += (uint64_t)d; /* not a tail call */
	return r + 1;
}

__attribute__((noinline)) static void trig(int n)
{
	double acc = dsink;
	for (int i = 0; i < n; i++)
		acc += sin(acc + i) * cos(acc - i);
	dsink = acc;
}

static void on_prof(int sig)
{
	(void)sig;
	spin(100000);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sigaction(SIGPROF, &sa, NULL);
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	setitimer(ITIMER_PROF, &it, NULL);
	static double v[4096];
	double end = now_ms() + ms;
	while (now_ms() < end) {
		sort_round(v, 4096);
		deep(24);
		trig(20000);
	}
	return 0;
}
