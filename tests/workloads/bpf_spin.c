/*
 * A BPF program for test_bpf: built at test time with
 * `clang -O2 -g -target bpf -c`, loaded as a socket filter and run through
 * BPF_PROG_TEST_RUN while perf records, so that samples land in its jited
 * code.  Two sub-programs (pd_spin calls pd_mix), each a loop long enough
 * to be sampled; the line numbers are what the test checks against the
 * kernel's own line info, so any edit here is fine.
 */

/* Only the first field of the kernel's struct __sk_buff is read: no
 * kernel headers are needed for the BPF target. */
struct __sk_buff {
	unsigned int len;
};

#define SEC(name) __attribute__((section(name), used))

static __attribute__((noinline)) int pd_mix(int x)
{
	int acc = x;
	for (int i = 0; i < 2000; i++) {
		acc = acc * 1103515245 + 12345;
		acc ^= acc >> 7;
	}
	return acc;
}

SEC("socket")
int pd_spin(struct __sk_buff *skb)
{
	int acc = skb->len;
	for (int i = 0; i < 3000; i++)
		acc = (acc << 3) + i + (acc >> 5);
	return pd_mix(acc) & 1;
}

char _license[] SEC("license") = "GPL";
