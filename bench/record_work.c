/*
 * bench-record.sh's workload: a fixed amount of work, a compute loop
 * and 64 KB reads of /dev/zero (so that kernel stacks are sampled too),
 * timed from inside: its wall time (CLOCK_MONOTONIC) and its own CPU time
 * (CLOCK_PROCESS_CPUTIME_ID, which takes the sampling interrupts' time
 * too, and which other load on the machine does not stretch), printed in
 * milliseconds.  What a recorder costs the program it records is the
 * difference of these with and without it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

__attribute__((noinline)) static unsigned long compute(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i * i;
	return x;
}

int main(void)
{
	struct timespec a, b, ca, cb;
	int fd = open("/dev/zero", O_RDONLY);
	unsigned long s = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	for (int r = 0; r < 400; r++) {
		s += compute(2000000);
		for (int i = 0; i < 40; i++)
			if (read(fd, buf, sizeof buf) < 0)
				return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	printf("%.0f %.0f\n",
	       (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6,
	       (double)(cb.tv_sec - ca.tv_sec) * 1e3 + (double)(cb.tv_nsec - ca.tv_nsec) / 1e6 +
		       (double)(s & 0));
	return 0;
}
