/*
 * Workload of the catalogue's sortish cases, the regression of issue 26:
 * one function, `sortish`, does twice the work in the new build while its
 * sibling `mix` does not change, and how much work a run does differs
 * from run to run (20, 24 and 28 passes in runs 0, 1 and 2 of each side),
 * so the share of sortish moves by about four points between runs of one
 * build, as in the recordings.  The sizes are set, not drawn: a
 * draw that put the extremes on one side made the case's outcome chance.  malloc/memset of 1 to 32 KiB add the kernel's
 * page-fault paths: small rows beside the two that matter.
 *
 *   sortish [MS [RUN]]    run for about MS milliseconds (default 400), as
 *                         run RUN of its side (default 1)
 *
 * Built -O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls as the
 * other workloads; -DPD_NEW doubles sortish's work.
 */
#include <string.h>

#include "../workloads/workload.h"

#ifdef PD_NEW
#define WORK 2
#else
#define WORK 1
#endif

static uint32_t a[1024];
static int reps;

__attribute__((noinline)) void sortish(uint64_t seed)
{
	for (int w = 0; w < WORK * reps; w++) {
		for (int i = 0; i < 1024; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			a[i] = (uint32_t)(seed >> 33);
		}
		for (int i = 1; i < 1024; i += 2) {
			uint32_t v = a[i];
			int j = i - 1;
			while (j >= 0 && j > i - 40 && a[j] > v) {
				a[j + 1] = a[j];
				j--;
			}
			a[j + 1] = v;
		}
	}
	sink += a[17];
}

__attribute__((noinline)) uint64_t mix(uint64_t x)
{
	MIX(x, 200000, 29, 0xbf58476d1ce4e5b9ull);
	return x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400, end = now_ms() + ms;
	uint64_t acc = 1;
	void *p[64] = { 0 };
	reps = 20 + 4 * ((argc > 2 ? atoi(argv[2]) : 1) % 3);
	while (now_ms() < end) {
		sortish(acc);
		acc = mix(acc);
		size_t k = acc % 64, n = (size_t)1 << (10 + acc % 6);
		free(p[k]);
		p[k] = malloc(n);
		if (p[k])
			memset(p[k], 1, n);
	}
	sink += acc;
	return 0;
}
