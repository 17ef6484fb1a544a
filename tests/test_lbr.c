/*
 * LBR call stacks (unwind/lbr.h): the chain perf builds from a sample's
 * callchain and branch stack.
 *
 * Oracles:
 *   - hand-built samples for each rule (when the LBR applies, the order,
 *     the cpumodes, the return-address flag, caps);
 *   - perfparser's expected output for the corpus' perf.lbr.data
 *     (vector_static_gcc).  perfparser builds the chain as perf does and
 *     then inserts the sample ip as an extra user frame (perfparser PR #18:
 *     "one additional frame" for disassembly costs), so for every sample
 *     with branches, perfparser = kernel part + [ip] + our user part; for
 *     the samples without branches perfparser keeps the kernel's user
 *     frames where perf keeps none, and only the kernel part is compared;
 *   - `perf script` on the same file, when perf is installed: its
 *     addresses (user ones printed relative to their map) equal ours for
 *     every sample with branches.  Samples without branches are skipped:
 *     perf 6.1 reads branches[0] past the end of the record there (fixed
 *     later by skipping it, which is what lbr.c does).
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perfdiff/session.h"
#include "unwind/lbr.h"

#define LBR_FILE "perfparser/tests/auto/perfdata/vector_static_gcc/perf.lbr.data"
#define MAXF 512

/* ------------------------------------------------------- hand-made samples */

static pd_sample make(uint64_t *chain, size_t nchain, pd_branch_entry *br, size_t nbr)
{
	pd_sample s;
	memset(&s, 0, sizeof s);
	s.sample_type = PD_SAMPLE_IP | PD_SAMPLE_CALLCHAIN | PD_SAMPLE_BRANCH_STACK;
	s.callchain = chain;
	s.callchain_nr = nchain;
	s.branches = br;
	s.branch_nr = nbr;
	return s;
}

START_TEST(test_lbr_order)
{
	uint64_t chain[] = { PD_CONTEXT_KERNEL, 0xffffffff81000010, 0xffffffff81000020,
			     PD_CONTEXT_USER, 0x401000, 0x402000 };
	pd_branch_entry br[] = { { 0x401500, 0x401a00, 0 }, { 0x400800, 0x401400, 0 },
				 { 0x400100, 0x400700, 0 } };
	pd_sample s = make(chain, 6, br, 3);
	ck_assert(pd_lbr_applies(PD_BRANCH_CALL_STACK | 1, &s, 127));
	pd_lbr_ip out[16];
	size_t n = pd_lbr_callchain(&s, 127, out, 16);
	ck_assert_uint_eq(n, 6);
	/* kernel part: the leaf as is, then return addresses */
	ck_assert_uint_eq(out[0].addr, 0xffffffff81000010);
	ck_assert_uint_eq(out[0].cpumode, PD_CPUMODE_KERNEL);
	ck_assert(!out[0].return_addr);
	ck_assert_uint_eq(out[1].addr, 0xffffffff81000020);
	ck_assert(out[1].return_addr);
	/* user part: the innermost call's target, then every call site;
	 * the kernel's user frames (0x401000, 0x402000) are not used */
	const uint64_t want[] = { 0x401a00, 0x401500, 0x400800, 0x400100 };
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(out[2 + i].addr, want[i]);
		ck_assert_uint_eq(out[2 + i].cpumode, PD_CPUMODE_USER);
		ck_assert(!out[2 + i].return_addr);
	}
	/* the cap is respected */
	ck_assert_uint_eq(pd_lbr_callchain(&s, 127, out, 3), 3);
	ck_assert_uint_eq(out[2].addr, 0x401a00);
}
END_TEST

START_TEST(test_lbr_when)
{
	uint64_t chain[] = { PD_CONTEXT_KERNEL, 0xffffffff81000010, PD_CONTEXT_USER, 0x401000 };
	pd_branch_entry br[] = { { 0x401500, 0x401a00, 0 } };
	pd_sample s = make(chain, 4, br, 1);
	pd_lbr_ip out[8];
	/* not a call-stack LBR: the plain callchain */
	ck_assert(!pd_lbr_applies(1, &s, 127));
	/* the user marker beyond max_stack entries */
	ck_assert(!pd_lbr_applies(PD_BRANCH_CALL_STACK, &s, 2));
	ck_assert(pd_lbr_applies(PD_BRANCH_CALL_STACK, &s, 3));
	ck_assert(pd_lbr_applies(PD_BRANCH_CALL_STACK, &s, 0));
	/* a kernel-only chain (no user marker) */
	pd_sample k = make(chain, 2, br, 1);
	ck_assert(!pd_lbr_applies(PD_BRANCH_CALL_STACK, &k, 127));
	ck_assert_uint_eq(pd_lbr_callchain(&k, 127, out, 8), 0);
	/* a guest context before the user marker: perf's LBR path gives up */
	uint64_t guest[] = { PD_CONTEXT_GUEST_KERNEL, 0xffffffff81000010, PD_CONTEXT_USER,
			     0x401000 };
	pd_sample g = make(guest, 4, br, 1);
	ck_assert(!pd_lbr_applies(PD_BRANCH_CALL_STACK, &g, 127));
	/* a user-mode sample: no kernel part */
	uint64_t user[] = { PD_CONTEXT_USER, 0x401000 };
	pd_sample u = make(user, 2, br, 1);
	ck_assert(pd_lbr_applies(PD_BRANCH_CALL_STACK, &u, 127));
	ck_assert_uint_eq(pd_lbr_callchain(&u, 127, out, 8), 2);
	ck_assert_uint_eq(out[0].addr, 0x401a00);
	ck_assert_uint_eq(out[1].addr, 0x401500);
	/* an empty branch stack: the kernel part only */
	pd_sample e = make(chain, 4, NULL, 0);
	ck_assert(pd_lbr_applies(PD_BRANCH_CALL_STACK, &e, 127));
	ck_assert_uint_eq(pd_lbr_callchain(&e, 127, out, 8), 1);
	ck_assert_uint_eq(out[0].addr, 0xffffffff81000010);
	/* no callchain at all */
	pd_sample none = make(NULL, 0, br, 1);
	none.sample_type &= ~(uint64_t)PD_SAMPLE_CALLCHAIN;
	ck_assert(!pd_lbr_applies(PD_BRANCH_CALL_STACK, &none, 127));
}
END_TEST

/* --------------------------------------------------- perfparser's output */

typedef struct pp_frames {
	uint64_t time;
	size_t n;
	uint64_t addr[MAXF];
} pp_frames;

typedef struct pp_list {
	size_t n, cap;
	pp_frames *v;
} pp_list;

/*
 * The frame addresses of each sample in perfparser's text.  A frame line
 * is "\tADDR REL[\tFILE:L:C]\t0 0": no symbol of its own (the lines that
 * follow name it), REL equal to ADDR, or 0 without a file for kernel
 * frames.  Symbol and inline-location lines carry a symbol or a file.
 */
static void parse_pp(char *text, pp_list *out)
{
	memset(out, 0, sizeof *out);
	pp_frames *cur = NULL;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] != '\t') {
			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 64;
				out->v = realloc(out->v, out->cap * sizeof *out->v);
				ck_assert_ptr_nonnull(out->v);
			}
			cur = &out->v[out->n++];
			memset(cur, 0, sizeof *cur);
			const char *t = line;
			for (int tabs = 0; tabs < 3 && t; tabs++) {
				t = strchr(t, '\t');
				if (t)
					t++;
			}
			ck_assert_ptr_nonnull(t);
			unsigned long long secs, nsecs;
			ck_assert(sscanf(t, "%llu.%llu", &secs, &nsecs) == 2);
			cur->time = secs * 1000000000ull + nsecs;
			continue;
		}
		if (!cur)
			continue;
		char *f[4] = { 0 };
		size_t nf = 0;
		for (char *p = line + 1; p && nf < 4;) {
			f[nf++] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = '\0';
		}
		uint64_t a, rel;
		if (sscanf(f[0], "%" SCNx64 " %" SCNx64, &a, &rel) != 2)
			continue; /* the event line */
		bool has_file = nf > 1 && strchr(f[1], ':');
		const char *sym = has_file ? (nf > 2 ? f[2] : "") : (nf > 1 ? f[1] : "");
		if (a != 0 && strcmp(sym, "0 0") == 0 && (rel == a || (rel == 0 && !has_file))) {
			ck_assert_uint_lt(cur->n, MAXF);
			cur->addr[cur->n++] = a;
		}
	}
}

static const pp_frames *pp_find(const pp_list *l, uint64_t time)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].time == time)
			return &l->v[i];
	return NULL;
}

/* --------------------------------------------------------- perf script */

/* `perf script --ns -F time,ip` of `data`: per sample its time and the
 * addresses printed. */
static void parse_perf(char *text, pp_list *out)
{
	memset(out, 0, sizeof *out);
	pp_frames *cur = NULL;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long secs, nsecs;
		uint64_t a;
		if (line[0] != '\t' && line[0] != ' ' &&
		    sscanf(line, " %llu.%llu:", &secs, &nsecs) == 2) {
			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 64;
				out->v = realloc(out->v, out->cap * sizeof *out->v);
				ck_assert_ptr_nonnull(out->v);
			}
			cur = &out->v[out->n++];
			memset(cur, 0, sizeof *cur);
			cur->time = secs * 1000000000ull + nsecs;
		} else if (cur && sscanf(line, " %" SCNx64, &a) == 1) {
			ck_assert_uint_lt(cur->n, MAXF);
			cur->addr[cur->n++] = a;
		}
	}
}

typedef struct umap {
	uint32_t pid;
	uint64_t start, end, pgoff;
} umap;

/* How perf script prints a user address: relative to its map. */
static uint64_t perf_shown(const umap *maps, size_t n, uint32_t pid, const pd_lbr_ip *ip)
{
	if (ip->cpumode == PD_CPUMODE_USER)
		for (size_t i = n; i-- > 0;)
			if (maps[i].pid == pid && ip->addr >= maps[i].start && ip->addr < maps[i].end)
				return ip->addr - maps[i].start + maps[i].pgoff;
	return ip->addr;
}

START_TEST(test_lbr_perfparser)
{
	char data[4200], exp_path[4300];
	if (!pd_test_corpus(data, sizeof data, LBR_FILE))
		PD_SKIP("corpus absent (%s)", PD_CORPUS_DIR);
	snprintf(exp_path, sizeof exp_path, "%s.expected.txt", data);
	size_t len;
	char *text = (char *)pd_test_read_file(exp_path, &len);
	if (!text)
		PD_SKIP("no %s", exp_path);
	text = realloc(text, len + 1);
	ck_assert_ptr_nonnull(text);
	text[len] = '\0';
	pp_list pp;
	parse_pp(text, &pp);
	ck_assert_uint_gt(pp.n, 20);

	pp_list perf = { 0 };
	char *perf_text = NULL;
	if (pd_test_have_perf()) {
		char cmd[4400];
		int st;
		snprintf(cmd, sizeof cmd, "perf script --ns -F time,ip -i '%s' 2>/dev/null", data);
		perf_text = pd_test_run(cmd, &st);
		if (perf_text && st == 0)
			parse_perf(perf_text, &perf);
	}

	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, data, NULL, &err) == 0, "%s", err.message);
	umap maps[64];
	size_t nmaps = 0;
	size_t samples = 0, with_lbr = 0, pp_equal = 0, pp_prefix = 0, perf_cmp = 0,
	       perf_equal = 0, frames = 0;
	const pd_record *rec;
	int rc;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
		if ((rec->type == PD_RECORD_MMAP || rec->type == PD_RECORD_MMAP2) && nmaps < 64 &&
		    rec->u.mmap.pid != UINT32_MAX) {
			const pd_mmap *m = &rec->u.mmap;
			maps[nmaps++] = (umap){ m->pid, m->addr, m->addr + m->len, m->pgoff };
		}
		if (rec->type != PD_RECORD_SAMPLE || rec->attr < 0)
			continue;
		const pd_sample *smp = &rec->u.sample;
		const pd_attr *attr = pd_reader_attr(r, (size_t)rec->attr);
		samples++;
		ck_assert_msg(pd_lbr_applies(attr->branch_sample_type, smp, 127),
			      "sample at %" PRIu64 ": LBR does not apply", smp->time);
		pd_lbr_ip ips[MAXF];
		size_t n = pd_lbr_callchain(smp, 127, ips, MAXF);
		frames += n;
		const pp_frames *e = pp_find(&pp, smp->time);
		ck_assert_msg(e != NULL, "sample at %" PRIu64 " not in perfparser's output",
			      smp->time);
		/* the kernel part: entries before the first user one */
		size_t k = 0;
		while (k < n && ips[k].cpumode != PD_CPUMODE_USER)
			k++;
		if (smp->branch_nr == 0) {
			ck_assert_uint_eq(n, k);
			bool same = e->n >= k;
			for (size_t i = 0; same && i < k; i++)
				same = e->addr[i] == ips[i].addr;
			ck_assert_msg(same, "sample at %" PRIu64 ": kernel part differs", smp->time);
			pp_prefix++;
			continue;
		}
		with_lbr++;
		/* perfparser = kernel part + [sample ip] + our user part */
		bool same = e->n == n + 1;
		for (size_t i = 0; same && i < n; i++)
			same = e->addr[i < k ? i : i + 1] == ips[i].addr;
		same = same && e->addr[k] == smp->ip;
		if (!same) {
			fprintf(stderr, "  sample at %" PRIu64 ": perfparser", smp->time);
			for (size_t i = 0; i < e->n; i++)
				fprintf(stderr, " %" PRIx64, e->addr[i]);
			fprintf(stderr, "\n  ours (ip %" PRIx64 "):", smp->ip);
			for (size_t i = 0; i < n; i++)
				fprintf(stderr, " %" PRIx64, ips[i].addr);
			fprintf(stderr, "\n");
		}
		ck_assert_msg(same, "sample at %" PRIu64 ": frames differ from perfparser's",
			      smp->time);
		pp_equal++;
		const pp_frames *p = perf.n ? pp_find(&perf, smp->time) : NULL;
		if (p) {
			perf_cmp++;
			bool eq = p->n == n;
			for (size_t i = 0; eq && i < n; i++)
				eq = p->addr[i] == perf_shown(maps, nmaps, smp->pid, &ips[i]);
			ck_assert_msg(eq, "sample at %" PRIu64 ": frames differ from perf script's",
				      smp->time);
			perf_equal++;
		}
	}
	ck_assert_msg(rc == PD_ITEROVER, "%s", err.message);
	pd_reader_free(r);
	fprintf(stderr,
		"perf.lbr.data: %zu samples, %zu frames; %zu with branches: %zu equal to "
		"perfparser's (its extra leaf ip aside), %zu of %zu compared equal to perf "
		"script's; %zu without branches: kernel part equal to perfparser's\n",
		samples, frames, with_lbr, pp_equal, perf_equal, perf_cmp, pp_prefix);
	ck_assert_uint_eq(samples, pp.n);
	ck_assert_uint_gt(with_lbr, 15);
	ck_assert_uint_eq(pp_equal, with_lbr);
	if (perf.n)
		ck_assert_uint_eq(perf_cmp, with_lbr);
	free(perf.v);
	free(perf_text);
	free(pp.v);
	free(text);
}
END_TEST

/* The session builds the same chains (unwind/lbr.c wired into
 * session/session.c). */
START_TEST(test_lbr_session)
{
	char data[4200];
	if (!pd_test_corpus(data, sizeof data, LBR_FILE))
		PD_SKIP("corpus absent (%s)", PD_CORPUS_DIR);
	char *tmp = pd_test_tmpdir();
	ck_assert_ptr_nonnull(tmp);
	pd_session_options o;
	pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
	o.flags |= PD_SESSION_NO_INLINE;
	o.kallsyms = "/dev/null";
	o.buildid_dir = tmp;
	o.jit_dir = tmp;
	pd_session *s;
	pd_error err;
	ck_assert_msg(pd_session_open(&s, data, &o, &err) == 0, "%s", err.message);
	const pd_resolved_sample *rs;
	int rc;
	size_t samples = 0;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		const pd_sample *smp = &rs->record->u.sample;
		pd_lbr_ip ips[MAXF];
		size_t n = pd_lbr_callchain(smp, o.max_stack, ips, MAXF);
		ck_assert_uint_eq(rs->nframes, n);
		for (size_t i = 0; i < n; i++) {
			ck_assert_uint_eq(rs->frames[i].addr, ips[i].addr);
			ck_assert_uint_eq(rs->frames[i].cpumode == PD_CPUMODE_USER,
					  ips[i].cpumode == PD_CPUMODE_USER);
		}
		samples++;
	}
	ck_assert_msg(rc == PD_ITEROVER, "%s", err.message);
	ck_assert_uint_eq(samples, 29);
	pd_session_free(s);
	pd_test_rmrf(tmp);
	free(tmp);
}
END_TEST

/* Two cases, two CTest tests (tests/CMakeLists.txt): "lbr" on samples
 * built here, "corpus" on the corpus' recording, which without the
 * corpus skips whole and so shows as not run. */
static Suite *suite(void)
{
	Suite *s = suite_create("lbr");
	TCase *tc = tcase_create("lbr");
	tcase_add_test(tc, test_lbr_order);
	tcase_add_test(tc, test_lbr_when);
	suite_add_tcase(s, tc);
	TCase *corpus = tcase_create("corpus");
	tcase_add_test(corpus, test_lbr_perfparser);
	tcase_add_test(corpus, test_lbr_session);
	suite_add_tcase(s, corpus);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
