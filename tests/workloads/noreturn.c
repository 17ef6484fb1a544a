/*
 * Workload for test_script: caller_a() ends with a call to the noreturn
 * stop_forever(), and callee_b() is laid out right after it, so the return
 * address saved by that call is the first byte of callee_b.  A symbolizer
 * that looks the return address up as is (perf) names that frame
 * callee_b; one that looks up address - 1 names it caller_a.
 *
 * Build with -O2 -g -fno-omit-frame-pointer -falign-functions=1
 * -fno-reorder-functions -fno-toplevel-reorder so the layout holds; the test
 * checks it with nm before relying on it.
 *
 *   noreturn [MS]      burn CPU for about MS milliseconds (default 300)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static double budget_ms = 300;

/* CPU time, not wall time: a loaded machine stretches the run but keeps
 * its samples (cpu-clock counts CPU time), which the tests count. */
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Not a leaf: keeps stop_forever's own frame (and so the saved return
 * address into caller_a) on every sampled stack. */
__attribute__((noinline)) void spin_step(void)
{
	uint64_t x = sink;
	for (int i = 0; i < 5000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

__attribute__((noinline, noreturn)) void stop_forever(void)
{
	double end = now_ms() + budget_ms;
	while (now_ms() < end)
		spin_step();
	_exit(0);
}

__attribute__((noinline)) void caller_a(void)
{
	sink++;
	stop_forever();
}

__attribute__((noinline)) void callee_b(void)
{
	sink += 2;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		budget_ms = atof(argv[1]);
	if (argc > 2)  /* never true in the test: keeps callee_b referenced */
		callee_b();
	caller_a();
}
