/*
 * Workload for test_profile and test_report: call paths with known shape
 * (compile with -O2 -g -fno-omit-frame-pointer -no-pie):
 *
 *   main → top → path_a → leaf_a           two callers of one leaf
 *   main → top → path_b → leaf_a
 *   main → top → path_b → leaf_b
 *   main → rec → rec → ... → rec → leaf_b  recursion (counts once)
 *   main → clone_work, clone_work.isra.0, clone_work.constprop.0
 *                                          three functions whose names
 *                                          fold into one (asm labels give
 *                                          the clone-suffixed names)
 *
 *   profile [MS]     run for about MS milliseconds (default 300)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define SPIN(n)                                                               \
	do {                                                                  \
		uint64_t x_ = sink;                                           \
		for (int i_ = 0; i_ < (n); i_++)                              \
			x_ = x_ * 6364136223846793005ull + 1442695040888963407ull; \
		sink = x_;                                                    \
	} while (0)

__attribute__((noinline)) void leaf_a(void) { SPIN(20000); }
__attribute__((noinline)) void leaf_b(void) { SPIN(10000); }

__attribute__((noinline)) void path_a(void)
{
	leaf_a();
	SPIN(2000);
}

__attribute__((noinline)) void path_b(void)
{
	leaf_a();
	leaf_b();
}

__attribute__((noinline)) void top(void)
{
	path_a();
	path_b();
}

__attribute__((noinline)) void rec(int depth)
{
	if (depth > 0)
		rec(depth - 1);
	else
		leaf_b();
	SPIN(500);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep every frame */
}

/* Three distinct functions named like one function and two of its clones. */
__attribute__((noinline)) void clone_plain(void) __asm__("clone_work");
__attribute__((noinline)) void clone_isra(void) __asm__("clone_work.isra.0");
__attribute__((noinline)) void clone_cp(void) __asm__("clone_work.constprop.0");
void clone_plain(void) { SPIN(6000); }
void clone_isra(void) { SPIN(4000); }
void clone_cp(void) { SPIN(2000); }

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	double end = now_ms() + ms;
	/* the clock (vdso code perf -N cannot name) is read rarely */
	for (unsigned n = 0; (n & 15) || now_ms() < end; n++) {
		top();
		rec(4);
		clone_plain();
		clone_isra();
		clone_cp();
	}
	return 0;
}
