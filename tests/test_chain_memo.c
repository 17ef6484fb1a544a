/*
 * The session's memo of named call chains (session/chain_memo.h): a chain
 * is found again only under the very key it was kept with (every word of
 * the chain, the sample's ip, pid, cpumode and fields, and the three
 * generations), its frames come back as kept, the memory it holds stays
 * within its budget, and it rests after a window of too few hits.  That
 * its use in the session names every frame as perf does is checked against
 * perf script in test_script (test_exec_same_addresses) and everywhere the
 * sessions are compared with perf.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "session/chain_memo.h"

#define FIELDS (PD_SAMPLE_IP | PD_SAMPLE_CALLCHAIN)

static void frames_for(pd_frame *f, size_t n, uint64_t seed)
{
	memset(f, 0, n * sizeof *f);
	for (size_t i = 0; i < n; i++) {
		f[i].addr = seed * 1000 + i;
		f[i].symbol = i % 2 ? "even" : "odd";
		f[i].dso = "/bin/x";
		f[i].line = (unsigned)i;
	}
}

static pd_chain_key key(const uint64_t *chain, size_t n, uint32_t pid, uint64_t ip, uint64_t mg,
			uint64_t kg, uint64_t sg)
{
	pd_chain_key k;
	pd_chain_key_make(&k, pid, PD_CPUMODE_USER, FIELDS, ip, chain, n, mg, kg, sg);
	return k;
}

START_TEST(found_under_its_key_only)
{
	pd_chain_memo m = { 0 };
	uint64_t chain[6] = { PD_CONTEXT_USER, 0x401000, 0x401100, 0x7f0000001000, 7, 8 };
	pd_frame f[5];
	frames_for(f, 5, 1);
	pd_chain_key k = key(chain, 6, 100, 0x401000, 3, 4, 5);
	size_t n = 99;
	ck_assert_ptr_null(pd_chain_memo_get(&m, &k, &n));
	pd_chain_memo_put(&m, &k, f, 5);
	const pd_frame *got = pd_chain_memo_get(&m, &k, &n);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(n, 5);
	ck_assert_mem_eq(got, f, sizeof f);

	/* the memo keeps its own copy */
	uint64_t copy[6];
	memcpy(copy, chain, sizeof copy);
	pd_chain_key same = key(copy, 6, 100, 0x401000, 3, 4, 5);
	ck_assert_uint_eq(same.hash, k.hash);
	chain[2] = 0;
	ck_assert_ptr_nonnull(pd_chain_memo_get(&m, &same, &n));

	/* any other word of the key: not found */
	for (size_t w = 0; w < 6; w++) {
		uint64_t c[6];
		memcpy(c, copy, sizeof c);
		c[w] ^= 1;
		pd_chain_key o = key(c, 6, 100, 0x401000, 3, 4, 5);
		ck_assert_msg(!pd_chain_memo_get(&m, &o, &n), "chain word %zu ignored", w);
	}
	pd_chain_key others[] = {
		key(copy, 5, 100, 0x401000, 3, 4, 5),   /* a prefix */
		key(copy, 6, 101, 0x401000, 3, 4, 5),   /* another process */
		key(copy, 6, 100, 0x401001, 3, 4, 5),   /* another ip */
		key(copy, 6, 100, 0x401000, 2, 4, 5),   /* its maps changed */
		key(copy, 6, 100, 0x401000, 3, 5, 5),   /* the kernel's changed */
		key(copy, 6, 100, 0x401000, 3, 4, 6),   /* a build was loaded again */
	};
	for (size_t i = 0; i < sizeof others / sizeof *others; i++)
		ck_assert_msg(!pd_chain_memo_get(&m, &others[i], &n), "key %zu found", i);
	pd_chain_key kmode, nocc, noip;
	pd_chain_key_make(&kmode, 100, PD_CPUMODE_KERNEL, FIELDS, 0x401000, copy, 6, 3, 4, 5);
	pd_chain_key_make(&nocc, 100, PD_CPUMODE_USER, PD_SAMPLE_IP, 0x401000, copy, 6, 3, 4, 5);
	pd_chain_key_make(&noip, 100, PD_CPUMODE_USER, PD_SAMPLE_CALLCHAIN, 0x401000, copy, 6, 3,
			  4, 5);
	ck_assert_ptr_null(pd_chain_memo_get(&m, &kmode, &n));
	ck_assert_ptr_null(pd_chain_memo_get(&m, &nocc, &n));
	ck_assert_ptr_null(pd_chain_memo_get(&m, &noip, &n));

	/* a field the sample does not have does not count */
	pd_chain_key nocc2;
	pd_chain_key_make(&nocc2, 100, PD_CPUMODE_USER, PD_SAMPLE_IP, 0x401000, NULL, 0, 3, 4, 5);
	ck_assert_uint_eq(nocc2.hash, nocc.hash);
	pd_chain_memo_put(&m, &nocc, f, 1);
	got = pd_chain_memo_get(&m, &nocc2, &n);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(n, 1);
	pd_chain_memo_free(&m);
}
END_TEST

/* A key kept again replaces its frames, longer or shorter. */
START_TEST(kept_again)
{
	pd_chain_memo m = { 0 };
	uint64_t chain[3] = { PD_CONTEXT_KERNEL, 0xffffffff81000000, 0xffffffff81000100 };
	pd_chain_key k = key(chain, 3, 0, 0xffffffff81000000, 1, 1, 0);
	pd_frame a[2], b[40];
	frames_for(a, 2, 1);
	frames_for(b, 40, 2);
	size_t n;
	pd_chain_memo_put(&m, &k, a, 2);
	pd_chain_memo_put(&m, &k, b, 40);
	const pd_frame *got = pd_chain_memo_get(&m, &k, &n);
	ck_assert_uint_eq(n, 40);
	ck_assert_mem_eq(got, b, sizeof b);
	pd_chain_memo_put(&m, &k, a, 2);
	got = pd_chain_memo_get(&m, &k, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_mem_eq(got, a, sizeof a);
	pd_chain_memo_put(&m, &k, a, 0);
	ck_assert_ptr_nonnull(pd_chain_memo_get(&m, &k, &n));
	ck_assert_uint_eq(n, 0);
	pd_chain_memo_free(&m);
}
END_TEST

/* Huge chains are not kept, and all entries together stay within the
 * budget however many distinct chains come. */
START_TEST(memory_bounded)
{
	pd_chain_memo m = { 0 };
	size_t nf = 500, nc = 500;
	pd_frame *f = calloc(nf, sizeof *f);
	uint64_t *chain = calloc(nc + 1, sizeof *chain);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(chain);
	frames_for(f, nf, 3);
	size_t n;
	uint64_t big[600] = { 0 };
	pd_chain_key k = key(big, 600, 1, 0, 1, 1, 1);
	pd_chain_memo_put(&m, &k, f, 1);
	ck_assert_ptr_null(pd_chain_memo_get(&m, &k, &n));
	k = key(big, 1, 1, 0, 1, 1, 1);
	pd_frame *many = calloc(600, sizeof *many);
	ck_assert_ptr_nonnull(many);
	pd_chain_memo_put(&m, &k, many, 600);
	ck_assert_ptr_null(pd_chain_memo_get(&m, &k, &n));
	free(many);

	/* ~44 KB an entry: the budget (16 MB) holds a few hundred */
	size_t kept = 0;
	for (uint64_t i = 0; i < 3000; i++) {
		chain[0] = i;
		k = key(chain, nc, 1, 0, 1, 1, 1);
		pd_chain_memo_put(&m, &k, f, nf);
		ck_assert_uint_le(m.bytes, (size_t)16 << 20);
	}
	for (uint64_t i = 0; i < 3000; i++) {
		chain[0] = i;
		k = key(chain, nc, 1, 0, 1, 1, 1);
		const pd_frame *got = pd_chain_memo_get(&m, &k, &n);
		if (got) {
			ck_assert_uint_eq(n, nf);
			ck_assert_mem_eq(got, f, nf * sizeof *f);
			kept++;
		}
	}
	ck_assert_uint_gt(kept, 200);
	ck_assert_uint_lt(kept, 400);
	free(f);
	free(chain);
	pd_chain_memo_free(&m);
}
END_TEST

/* Count the samples for which the memo says "on", over `samples`, each
 * looked up when on: found when `hit`. */
static size_t run(pd_chain_memo *m, size_t samples, bool hit)
{
	uint64_t chain[2] = { 1, 2 };
	pd_frame f[1];
	frames_for(f, 1, 4);
	size_t on = 0, n;
	for (size_t i = 0; i < samples; i++) {
		if (!pd_chain_memo_on(m))
			continue;
		on++;
		chain[1] = hit ? 2 : 1000 + i;
		pd_chain_key k = key(chain, 2, 1, 0, 1, 1, 1);
		if (!pd_chain_memo_get(m, &k, &n))
			pd_chain_memo_put(m, &k, f, 1);
	}
	return on;
}

START_TEST(rests_when_it_hits_too_rarely)
{
	const size_t w = PD_CHAIN_MEMO_WINDOW, rest = PD_CHAIN_MEMO_REST * w;
	pd_chain_memo m = { 0 };
	/* chains that repeat: always on */
	ck_assert_uint_eq(run(&m, 10 * w, true), 10 * w);
	/* chains that never repeat: one window, then a rest, then a try */
	ck_assert_uint_eq(run(&m, w, false), w);
	ck_assert_uint_eq(run(&m, rest, false), 0);
	ck_assert_uint_eq(run(&m, w, false), w);
	ck_assert_uint_eq(run(&m, rest + w, true), w);
	/* repeating again after the rest: on for good */
	ck_assert_uint_eq(run(&m, 5 * w, true), 5 * w);
	pd_chain_memo_free(&m);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("chain_memo");
	TCase *t = tcase_create("memo");
	tcase_add_test(t, found_under_its_key_only);
	tcase_add_test(t, kept_again);
	tcase_add_test(t, memory_bounded);
	tcase_add_test(t, rests_when_it_hits_too_rarely);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
