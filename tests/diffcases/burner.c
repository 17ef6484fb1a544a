/*
 * Background load of the catalogue's system-wide cases: an unrelated
 * program that burns a CPU while the measured one runs, as other jobs do
 * on the kernel test robot's machines.  Its hot function is named
 * `hash_block`, like the new name of diff_rename's hash_chunk: a namesake
 * in another dso, sampled, that a diff must not pair with hash_chunk.
 *
 *   burner [MS]           run for about MS milliseconds (default 400)
 *
 * Built -O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls as the
 * other workloads; the recipes start it on the other CPU and kill it when
 * the measured program ends.
 */
#include "../workloads/workload.h"

__attribute__((noinline)) uint64_t hash_block(uint64_t x)
{
	MIX(x, 500, 23, 0xd6e8feb86659fd93ull);
	return x;
}

__attribute__((noinline)) uint64_t churn(uint64_t x)
{
	MIX(x, 250, 37, 0xa0761d6478bd642full);
	return hash_block(x);
}

WORKLOAD_MAIN(churn(acc))
