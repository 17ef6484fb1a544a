/*
 * Workload of the catalogue's poll/epoll case (and of the kernel rename
 * case): a loop of user work (`prepare`) and a wait for ready file
 * descriptors (`wait_ready`) on NFDS pipes that always hold a byte.  The
 * base build waits with poll(), the new one (-DPD_NEW) with epoll_wait():
 * a real change of code path through two different system calls, which a
 * diff must not explain as a rename of glibc's __poll into epoll_wait.
 * Neither wrapper sets up a frame, so in frame-pointer chains the kernel's
 * syscall frames hang off __poll / epoll_wait and then main.
 *
 *   poll_wait [MS]        run for about MS milliseconds (default 400)
 *
 * Built -O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls as the
 * other workloads.
 */
#include "../workloads/workload.h"

#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#define NFDS 32

static struct pollfd pfds[NFDS];
static int epfd = -1;

/* Every read end gets a byte that is never read: always ready. */
static void setup(void)
{
	epfd = epoll_create1(0);
	for (int i = 0; i < NFDS; i++) {
		int p[2];
		if (pipe(p) != 0 || write(p[1], "x", 1) != 1)
			exit(1);
		pfds[i].fd = p[0];
		pfds[i].events = POLLIN;
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = p[0] };
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, p[0], &ev) != 0)
			exit(1);
	}
}

__attribute__((noinline)) uint64_t prepare(uint64_t x)
{
	MIX(x, 150, 29, 0xbf58476d1ce4e5b9ull);
	return x;
}

__attribute__((noinline)) int wait_ready(void)
{
#ifdef PD_NEW
	struct epoll_event ev[NFDS];
	return epoll_wait(epfd, ev, NFDS, 0);
#else
	return poll(pfds, NFDS, 0);
#endif
}

__attribute__((noinline)) uint64_t step(uint64_t x)
{
	x = prepare(x);
	return x + (uint64_t)wait_ready();
}

static int setup_done = (0);

#define STEP (setup_done ? step(acc) : (setup(), setup_done = 1, acc))
WORKLOAD_MAIN(STEP)
