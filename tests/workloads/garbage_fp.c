/*
 * A frame pointer that leads to garbage, for the invalid-chain tests: while
 * it makes system calls, `calls` points %rbp at a fake frame whose return
 * address is -1, as code built without frame pointers can leave it.  The
 * kernel's frame-pointer walk stores that -1 in the user part of the call
 * chain, where it reads as a value at or above PERF_CONTEXT_MAX that is no
 * context marker: perf drops such a chain whole ("invalid callchain
 * context").  x86_64 only.
 *
 *   garbage_fp [N]     N system calls (default 3000000)
 */
#include <stdint.h>
#include <stdlib.h>

static uint64_t fake_frame[2] = { 0, (uint64_t)-1 };  /* next frame, return address */

__attribute__((noinline)) static void calls(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ volatile("push %%rbp\n\t"
				 "mov %0, %%rbp\n\t"
				 "mov $39, %%eax\n\t"  /* getpid */
				 "syscall\n\t"
				 "pop %%rbp"
				 :
				 : "r"(fake_frame)
				 : "rax", "rcx", "r11", "memory");
}

int main(int argc, char **argv)
{
	calls(argc > 1 ? atol(argv[1]) : 3000000);
	return 0;
}
