/*
 * Time blocks (profile.h: pd_profile_block_count/width/samples,
 * pd_cct_blocks) on recordings made here of tests/workloads/phases.c,
 * which runs phase_a for 300 ms, then phase_b for 300 ms:
 *
 *   - the oracle is `perf script -F time,ip,sym -G`: each sample's time
 *     and leaf symbol, put on the same grid (origin the first sample's
 *     time, width from the API); per block, the samples of phase_a, of
 *     phase_b and of all leaves must equal the profile's exactly;
 *   - invariants on every node: its block counts are nonzero, sorted,
 *     inside the run's blocks, and add up to its leaf samples as
 *     pd_profile_stacks() counts them; block totals add up to
 *     pd_profile_samples();
 *   - a `perf record -o -` stream, a profile of three runs (each run its
 *     own grid), a recording without sample times (--no-timestamp: one
 *     block, width 0), and two events of one run (one grid, per-event
 *     block totals against perf script's `-F time,event`).
 *
 * Every test skips (with a message) where perf or cc are missing.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdiff/profile.h"

#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#define PATHMAX 4200
#define NBLK 32

static struct lab {
	const char *skip;
	char *dir;
	char bin[PATHMAX], file[PATHMAX], pipe[PATHMAX], notime[PATHMAX], two[PATHMAX];
} L;

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(true, &L.dir);
	if (L.skip)
		return;
	snprintf(L.bin, PATHMAX, "%s/phases", L.dir);
	if (!pd_test_compile("cc", "-O0 -g -fno-omit-frame-pointer", L.bin,
			     WORKLOAD_DIR "/phases.c")) {
		L.skip = "cannot compile tests/workloads/phases.c";
		return;
	}
	snprintf(L.file, PATHMAX, "%s/file.data", L.dir);
	snprintf(L.pipe, PATHMAX, "%s/pipe.data", L.dir);
	snprintf(L.notime, PATHMAX, "%s/notime.data", L.dir);
	snprintf(L.two, PATHMAX, "%s/two.data", L.dir);
	char w[PATHMAX + 16], cmd[4 * PATHMAX];
	snprintf(w, sizeof w, "'%s' 300", L.bin);
	snprintf(cmd, sizeof cmd,
		 "perf record -q -N -F 2000 -e cpu-clock -g -o - -- '%s' 200 > '%s' 2>/dev/null",
		 L.bin, L.pipe);
	if (!pd_test_perf_record(L.file, "-q -N -F 2000 -e cpu-clock -g", w) ||
	    !pd_test_sh_ok(cmd) ||
	    !pd_test_perf_record(L.notime, "-q -N -F 2000 -e cpu-clock -g --no-timestamp", w) ||
	    !pd_test_perf_record(L.two, "-q -N -F 1000 -e cpu-clock,task-clock -g", w))
		L.skip = "perf record failed";
}

static void lab_teardown(void)
{
	pd_test_lab_close(L.dir);
}

#define NEED_LAB() PD_SKIP_IF(L.skip)

static pd_profile *profile_of(const char *const *paths, size_t n)
{
	pd_profile_options o;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(pd_profile_add_file(p, paths[i], &err) == 0, "%s", err.message);
	return p;
}

/* ------------------------------------------------------------ the oracle */

/* Per block of one grid: samples of phase_a, phase_b and of any leaf. */
typedef struct counts {
	uint64_t a[NBLK], b[NBLK], all[NBLK];
	uint64_t n;
	size_t blocks;  /* last block used + 1 */
} counts;

/* Time ("SEC.NSEC:") and leaf name of a `perf script -F time,ip,sym -G`
 * line; false for other lines. */
static bool parse_sample(char *line, uint64_t *t, const char **sym)
{
	char *end;
	uint64_t sec = strtoull(line, &end, 10);
	if (*end != '.')
		return false;
	uint64_t ns = strtoull(end + 1, &end, 10);
	if (*end != ':')
		return false;
	*t = sec * 1000000000u + ns;
	char *last = strrchr(end, ' ');
	*sym = last ? last + 1 : "";
	return true;
}

/* The samples of `data` counted on the grid (t0 their first time, `width`
 * ns); with width 0 every sample in block 0. */
static void perf_counts(const char *data, uint64_t width, counts *c)
{
	memset(c, 0, sizeof *c);
	char cmd[2 * PATHMAX];
	/* without sample times perf script refuses the time field */
	snprintf(cmd, sizeof cmd, "perf script -i '%s' --ns -F %s -G 2>/dev/null", data,
		 width ? "time,ip,sym" : "ip,sym");
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	uint64_t t0 = 0;
	bool first = true;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		uint64_t t = 0;
		const char *sym = strrchr(line, ' ');
		if (width ? !parse_sample(line, &t, &sym) : !sym++)
			continue;
		if (first)
			t0 = t;
		first = false;
		uint64_t k = width && t > t0 ? (t - t0) / width : 0;
		ck_assert_msg(k < NBLK, "%s: a sample at block %" PRIu64, data, k);
		c->a[k] += strcmp(sym, "phase_a") == 0;
		c->b[k] += strcmp(sym, "phase_b") == 0;
		c->all[k]++;
		c->n++;
		if (k + 1 > c->blocks)
			c->blocks = (size_t)k + 1;
	}
	free(out);
	ck_assert_msg(c->n > 0, "perf script printed no samples of %s", data);
}

/* ------------------------------------------------------------ the profile */

/* Add node `n`'s blocks in run `run` to `v` when its symbol is `sym`, for
 * it and every node under it. */
static void sum_symbol(const pd_cct_node *n, size_t run, const char *sym, uint64_t *v)
{
	const char *s = pd_cct_symbol(n);
	if (s && strcmp(s, sym) == 0 && !pd_cct_inlined(n)) {
		const pd_block_count *b;
		size_t k = pd_cct_blocks(n, run, &b);
		for (size_t i = 0; i < k; i++)
			v[b[i].block] += b[i].samples;
	}
	for (size_t i = 0; i < pd_cct_child_count(n); i++)
		sum_symbol(pd_cct_child(n, i), run, sym, v);
}

static void assert_blocks_eq(const char *what, size_t run, const uint64_t *got,
			     const uint64_t *want)
{
	for (size_t k = 0; k < NBLK; k++)
		ck_assert_msg(got[k] == want[k],
			      "run %zu, %s: block %zu holds %" PRIu64 " samples, perf script %" PRIu64,
			      run, what, k, got[k], want[k]);
}

/* Run `run` of `p` against perf script's samples of `data`. */
static void check_against_perf(const pd_profile *p, size_t run, const char *data)
{
	size_t ev = (size_t)pd_profile_default_event(p);
	uint64_t width = pd_profile_block_width(p, run);
	counts c;
	perf_counts(data, width, &c);
	ck_assert_uint_eq(pd_profile_block_count(p, run), c.blocks);
	ck_assert_uint_eq(pd_profile_samples(p, ev, run), c.n);
	uint64_t got[NBLK];
	for (size_t k = 0; k < NBLK; k++)
		got[k] = pd_profile_block_samples(p, ev, run, k);
	assert_blocks_eq("all leaves", run, got, c.all);
	uint64_t a[NBLK] = { 0 }, b[NBLK] = { 0 };
	sum_symbol(pd_profile_root(p, ev), run, "phase_a", a);
	sum_symbol(pd_profile_root(p, ev), run, "phase_b", b);
	assert_blocks_eq("phase_a", run, a, c.a);
	assert_blocks_eq("phase_b", run, b, c.b);
}

/* Invariants of run `run` on `n` and the nodes under it; their counts
 * are added to per_block. */
static void check_node(const pd_cct_node *n, size_t run, size_t K, uint64_t *per_block)
{
	const pd_block_count *b;
	size_t k = pd_cct_blocks(n, run, &b);
	for (size_t i = 0; i < k; i++) {
		ck_assert_uint_gt(b[i].samples, 0);
		ck_assert_uint_lt(b[i].block, K);
		if (i)
			ck_assert_uint_gt(b[i].block, b[i - 1].block);
		per_block[b[i].block] += b[i].samples;
	}
	if (k && pd_cct_parent(n) == NULL)
		ck_abort_msg("the root is a leaf");
	for (size_t i = 0; i < pd_cct_child_count(n); i++)
		check_node(pd_cct_child(n, i), run, K, per_block);
}

/* Samples whose leaf is `leaf`, over the stacks view, in all runs. */
static uint64_t stack_samples(const pd_stack *s, size_t n, const pd_cct_node *leaf)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += s[i].leaf == leaf ? s[i].samples : 0;
	return sum;
}

/* Each node's block counts over all runs against the stacks view. */
static void check_leaf_sums(const pd_cct_node *n, size_t runs, const pd_stack *s, size_t ns)
{
	uint64_t sum = 0;
	for (size_t r = 0; r < runs; r++) {
		const pd_block_count *b;
		size_t k = pd_cct_blocks(n, r, &b);
		for (size_t i = 0; i < k; i++)
			sum += b[i].samples;
	}
	ck_assert_msg(sum == stack_samples(s, ns, n), "%s: %" PRIu64 " samples in blocks, %" PRIu64
		      " as leaf of its stacks", pd_cct_symbol(n) ? pd_cct_symbol(n) : "root", sum,
		      stack_samples(s, ns, n));
	for (size_t i = 0; i < pd_cct_child_count(n); i++)
		check_leaf_sums(pd_cct_child(n, i), runs, s, ns);
}

/* The invariants on every event and run of `p`. */
static void check_invariants(pd_profile *p)
{
	for (size_t ev = 0; ev < pd_profile_event_count(p); ev++) {
		for (size_t r = 0; r < pd_profile_run_count(p); r++) {
			size_t K = pd_profile_block_count(p, r);
			ck_assert(K >= 1 && K <= NBLK);
			uint64_t per_block[NBLK] = { 0 }, total = 0;
			check_node(pd_profile_root(p, ev), r, K, per_block);
			for (size_t k = 0; k < NBLK; k++) {
				ck_assert_uint_eq(per_block[k], pd_profile_block_samples(p, ev, r, k));
				total += per_block[k];
			}
			ck_assert_uint_eq(total, pd_profile_samples(p, ev, r));
		}
		const pd_stack *s;
		size_t ns;
		pd_error err;
		ck_assert_int_eq(pd_profile_stacks(p, ev, &s, &ns, &err), 0);
		check_leaf_sums(pd_profile_root(p, ev), pd_profile_run_count(p), s, ns);
	}
}

/* ------------------------------------------------------------ the tests */

START_TEST(test_blocks_match_perf_script)
{
	NEED_LAB();
	const char *paths[] = { L.file };
	pd_profile *p = profile_of(paths, 1);
	uint64_t w = pd_profile_block_width(p, 0);
	size_t K = pd_profile_block_count(p, 0);
	/* 600 ms of samples: 2^20 ns blocks doubled to fit in 32 */
	ck_assert_msg(w >= (1u << 20) && (w & (w - 1)) == 0, "width %" PRIu64, w);
	ck_assert_uint_ge(K * w, pd_profile_run_span(p, 0));
	ck_assert_uint_lt((K - 1) * w, pd_profile_run_span(p, 0) + 1);
	ck_assert_uint_ge(w * NBLK, pd_profile_run_span(p, 0));
	ck_assert_uint_lt(w / 2 * NBLK, pd_profile_run_span(p, 0) + 1);
	check_against_perf(p, 0, L.file);
	/* the phases: phase_a's samples all come before phase_b's */
	uint64_t a[NBLK] = { 0 }, b[NBLK] = { 0 };
	size_t ev = (size_t)pd_profile_default_event(p);
	sum_symbol(pd_profile_root(p, ev), 0, "phase_a", a);
	sum_symbol(pd_profile_root(p, ev), 0, "phase_b", b);
	size_t last_a = 0, first_b = NBLK;
	for (size_t k = 0; k < NBLK; k++) {
		if (a[k])
			last_a = k;
		if (b[k] && first_b == NBLK)
			first_b = k;
	}
	ck_assert_msg(last_a <= first_b, "phase_a until block %zu, phase_b from %zu", last_a,
		      first_b);
	ck_assert_uint_gt(first_b, 2);
	check_invariants(p);
	pd_profile_free(p);
}
END_TEST

START_TEST(test_blocks_pipe)
{
	NEED_LAB();
	const char *paths[] = { L.pipe };
	pd_profile *p = profile_of(paths, 1);
	ck_assert_uint_gt(pd_profile_block_count(p, 0), 4);
	check_against_perf(p, 0, L.pipe);
	check_invariants(p);
	pd_profile_free(p);
}
END_TEST

START_TEST(test_blocks_runs)
{
	NEED_LAB();
	const char *paths[] = { L.file, L.pipe, L.notime };
	pd_profile *p = profile_of(paths, 3);
	ck_assert_uint_eq(pd_profile_run_count(p), 3);
	check_against_perf(p, 0, L.file);
	check_against_perf(p, 1, L.pipe);
	check_against_perf(p, 2, L.notime);
	/* each run its own grid: 600 ms and 400 ms of samples */
	ck_assert_uint_ge(pd_profile_block_width(p, 0), pd_profile_block_width(p, 1));
	ck_assert_uint_eq(pd_profile_block_count(p, 3), 0);
	ck_assert_uint_eq(pd_profile_block_width(p, 3), 0);
	ck_assert_uint_eq(pd_profile_block_samples(p, 0, 0, NBLK), 0);
	ck_assert_uint_eq(pd_profile_block_samples(p, 0, 3, 0), 0);
	ck_assert_uint_eq(pd_profile_block_samples(p, 9, 0, 0), 0);
	const pd_block_count *b;
	ck_assert_uint_eq(pd_cct_blocks(pd_profile_root(p, 0), 5, &b), 0);
	check_invariants(p);
	pd_profile_free(p);
}
END_TEST

START_TEST(test_blocks_no_time)
{
	NEED_LAB();
	const char *paths[] = { L.notime };
	pd_profile *p = profile_of(paths, 1);
	ck_assert_uint_eq(pd_profile_block_count(p, 0), 1);
	ck_assert_uint_eq(pd_profile_block_width(p, 0), 0);
	size_t ev = (size_t)pd_profile_default_event(p);
	ck_assert_uint_eq(pd_profile_block_samples(p, ev, 0, 0), pd_profile_samples(p, ev, 0));
	check_against_perf(p, 0, L.notime);
	check_invariants(p);
	pd_profile_free(p);
}
END_TEST

/* Samples of event `name` per block of the run's grid, from perf script
 * (`-F time,event`: "SEC.NSEC: NAME:"). */
static void perf_event_counts(const char *data, const char *name, uint64_t width, uint64_t *v)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' --ns -F time,event 2>/dev/null", data);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	uint64_t t0 = 0;
	bool first = true;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		uint64_t t;
		const char *ev;
		if (!parse_sample(line, &t, &ev))
			continue;
		/* the grid starts at the run's first sample, of any event */
		if (first)
			t0 = t;
		first = false;
		char *colon = strrchr(line, ':');
		char *start = colon ? colon : line;
		while (start > line && start[-1] != ' ')
			start--;
		if (!colon || strncmp(start, name, (size_t)(colon - start)) != 0 ||
		    strlen(name) != (size_t)(colon - start))
			continue;
		uint64_t k = t > t0 ? (t - t0) / width : 0;
		ck_assert_uint_lt(k, NBLK);
		v[k]++;
	}
	free(out);
}

/* Two events of one run share its grid; each has its own counts. */
START_TEST(test_blocks_two_events)
{
	NEED_LAB();
	const char *paths[] = { L.two };
	pd_profile *p = profile_of(paths, 1);
	ck_assert_uint_eq(pd_profile_event_count(p), 2);
	uint64_t w = pd_profile_block_width(p, 0);
	ck_assert_uint_gt(w, 0);
	for (size_t ev = 0; ev < 2; ev++) {
		uint64_t want[NBLK] = { 0 }, got[NBLK];
		perf_event_counts(L.two, pd_profile_event_name(p, ev), w, want);
		for (size_t k = 0; k < NBLK; k++)
			got[k] = pd_profile_block_samples(p, ev, 0, k);
		assert_blocks_eq(pd_profile_event_name(p, ev), 0, got, want);
	}
	check_invariants(p);
	pd_profile_free(p);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("blocks");
	TCase *lab = tcase_create("lab");
	tcase_add_unchecked_fixture(lab, lab_setup, lab_teardown);
	tcase_set_timeout(lab, 300);
	tcase_add_test(lab, test_blocks_match_perf_script);
	tcase_add_test(lab, test_blocks_pipe);
	tcase_add_test(lab, test_blocks_runs);
	tcase_add_test(lab, test_blocks_no_time);
	tcase_add_test(lab, test_blocks_two_events);
	suite_add_tcase(s, lab);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
