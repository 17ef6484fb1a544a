/*
 * The two DWARF unwinders (session option `unwinder`: libdw, libunwind)
 * against each other: each is the other's oracle.  Both read the same
 * stack copies and the same ELF files, so their frames must agree sample
 * by sample; at least 99 % of the samples must be identical, and every
 * difference is printed with its kind:
 *   - "prefix": one back end stopped earlier (the dso it stopped in says
 *     why: code without CFI, a file it cannot read);
 *   - "differs": the two chains part somewhere (an address, or the name
 *     of one, when only one back end sees a signal frame).
 *
 * Inputs:
 *   - perfparser's `--call-graph dwarf` recordings (corpus), with the
 *     static binaries that made them laid out under a --symfs root;
 *   - a workload recorded here (tests/workloads/unwind_mix.c: callbacks
 *     through libc's qsort, recursion, libm, a SIGPROF handler);
 *   - the same workload built without .eh_frame (its CFI in .debug_frame
 *     only): libunwind 1.6.2 cannot read .debug_frame, libdw can, so libdw
 *     must find more frames there.  This one is not an agreement test but
 *     the measure of where libdw is better.
 *
 * Timings (µs per sample, over a run without unwinding) are printed for
 * the README.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "perfdiff/session.h"

#define PATHMAX 4200
#define PP_DIR "perfparser/tests/auto/perfdata"

#ifndef WORKLOAD_DIR
#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#endif

/* ------------------------------------------------------ collected frames */

typedef struct chain {
	uint64_t time;
	uint32_t tid;
	size_t n;
	uint64_t *addr;       /* frame addresses, leaf first (inline frames left out) */
	uint8_t *mode;
	const char **sym;     /* names, for printing differences */
	const char **dso;
} chain;

typedef struct run {
	size_t n, cap;
	chain *v;
	double seconds;
	size_t user_frames;   /* frames in user mode */
	pd_unresolved_count *trunc;  /* truncated stacks per dso (copied) */
	size_t ntrunc;
} run;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A session over `data` with `unwinder` and no inline frames (the
 * suites compare call frames); pd_session_open()'s code. */
static int open_session(const char *data, const pd_session_options *base, pd_unwinder unwinder,
			pd_session **s, pd_error *err)
{
	pd_session_options o = *base;
	o.unwinder = unwinder;
	o.flags |= PD_SESSION_NO_INLINE;
	return pd_session_open(s, data, &o, err);
}

/* Read every sample of `data` with `unwinder`; names point into the
 * session, which stays open in *keep (NULL when not wanted). */
static void collect(const char *data, const pd_session_options *base, pd_unwinder unwinder,
		    run *out, pd_session **keep)
{
	memset(out, 0, sizeof *out);
	pd_session *s;
	pd_error err;
	double t0 = now_s();
	int rc = open_session(data, base, unwinder, &s, &err);
	if (rc == PD_EUNSUPPORTED && unwinder == PD_UNWINDER_LIBUNWIND) {
		out->n = SIZE_MAX; /* marks "not built in" */
		return;
	}
	ck_assert_msg(rc == 0, "%s: %s", data, err.message);
	const pd_resolved_sample *rs;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		if (!keep) {
			out->n++;
			continue;
		}
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 1024;
			out->v = realloc(out->v, out->cap * sizeof *out->v);
			ck_assert_ptr_nonnull(out->v);
		}
		chain *c = &out->v[out->n++];
		memset(c, 0, sizeof *c);
		c->time = rs->time;
		c->tid = rs->tid;
		c->addr = malloc((rs->nframes + 1) * sizeof *c->addr);
		c->mode = malloc(rs->nframes + 1);
		c->sym = malloc((rs->nframes + 1) * sizeof *c->sym);
		c->dso = malloc((rs->nframes + 1) * sizeof *c->dso);
		ck_assert(c->addr && c->mode && c->sym && c->dso);
		for (size_t i = 0; i < rs->nframes; i++) {
			const pd_frame *f = &rs->frames[i];
			if (f->inlined)
				continue;
			c->addr[c->n] = f->addr;
			c->mode[c->n] = f->cpumode;
			c->sym[c->n] = f->symbol ? f->symbol : "[unknown]";
			c->dso[c->n] = f->dso;
			out->user_frames += f->cpumode == PD_CPUMODE_USER;
			c->n++;
		}
	}
	ck_assert_msg(rc == PD_ITEROVER, "%s: %s", data, err.message);
	out->seconds = now_s() - t0;
	const pd_unresolved_count *t;
	out->ntrunc = pd_session_truncated(s, &t);
	if (out->ntrunc) {
		out->trunc = malloc(out->ntrunc * sizeof *out->trunc);
		ck_assert_ptr_nonnull(out->trunc);
		memcpy(out->trunc, t, out->ntrunc * sizeof *t);
		for (size_t i = 0; i < out->ntrunc; i++) {
			out->trunc[i].dso = strdup(t[i].dso);
			ck_assert_ptr_nonnull(out->trunc[i].dso);
		}
	}
	if (keep)
		*keep = s;
	else
		pd_session_free(s);
}

static void free_run(run *r)
{
	if (r->n == SIZE_MAX)
		return;
	for (size_t i = 0; i < r->ntrunc; i++)
		free((char *)r->trunc[i].dso);
	free(r->trunc);
	for (size_t i = 0; i < r->n && r->v; i++) {
		free(r->v[i].addr);
		free(r->v[i].mode);
		free(r->v[i].sym);
		free(r->v[i].dso);
	}
	free(r->v);
}

static void print_chain(const char *who, const chain *c)
{
	fprintf(stderr, "      %-9s", who);
	for (size_t i = 0; i < c->n; i++)
		fprintf(stderr, " %s%s", c->sym[i], i + 1 < c->n ? " <-" : "");
	fprintf(stderr, "\n");
}

typedef struct agreement {
	size_t samples, same, prefix_dw, prefix_unw, differ;
	size_t frames_dw, frames_unw;
	double us_dw, us_unw;   /* per sample, over the run without unwinding */
	double us_plain;        /* the same for libdw's unwinder on every frame */
	bool unsupported;
} agreement;

/*
 * libdw's back end with its cached CFI rows against libdw's unwinder for
 * every frame: the rows are a shortcut, so everything must be identical,
 * down to which stacks count as truncated where.
 */
static void assert_same_runs(const char *label, const run *cached, const run *plain)
{
	ck_assert_uint_eq(cached->n, plain->n);
	for (size_t i = 0; i < cached->n; i++) {
		const chain *x = &cached->v[i], *y = &plain->v[i];
		bool same = x->n == y->n && x->time == y->time;
		for (size_t k = 0; same && k < x->n; k++)
			same = x->addr[k] == y->addr[k] && x->mode[k] == y->mode[k] &&
			       strcmp(x->sym[k], y->sym[k]) == 0;
		if (!same) {
			print_chain("cached", x);
			print_chain("uncached", y);
		}
		ck_assert_msg(same, "%s: sample %zu (tid %u time %" PRIu64 ") differs between "
			      "libdw with cached CFI rows and without", label, i, x->tid, x->time);
	}
	ck_assert_uint_eq(cached->ntrunc, plain->ntrunc);
	for (size_t i = 0; i < cached->ntrunc; i++) {
		ck_assert_str_eq(cached->trunc[i].dso, plain->trunc[i].dso);
		ck_assert_uint_eq(cached->trunc[i].samples, plain->trunc[i].samples);
	}
}

/*
 * Run `data` with both back ends (and without unwinding, for timings) and
 * compare the chains sample by sample.  Prints up to `show` differences.
 * libdw's unwinder alone (PD_UNWINDER_LIBDW_UNCACHED) must give exactly
 * the libdw back end's frames.
 */
static void compare(const char *label, const char *data, const pd_session_options *o,
		    agreement *a, size_t show)
{
	memset(a, 0, sizeof *a);
	run dw, unw, none, plain;
	pd_session *sdw = NULL, *sunw = NULL, *splain = NULL;
	collect(data, o, PD_UNWINDER_NONE, &none, NULL);
	collect(data, o, PD_UNWINDER_LIBDW, &dw, &sdw);
	collect(data, o, PD_UNWINDER_LIBDW_UNCACHED, &plain, &splain);
	assert_same_runs(label, &dw, &plain);
	if (dw.n)
		a->us_plain = (plain.seconds - none.seconds) * 1e6 / (double)dw.n;
	free_run(&plain);
	pd_session_free(splain);
	collect(data, o, PD_UNWINDER_LIBUNWIND, &unw, &sunw);
	if (unw.n == SIZE_MAX) {
		a->unsupported = true;
		free_run(&dw);
		pd_session_free(sdw);
		return;
	}
	ck_assert_uint_eq(dw.n, unw.n);
	ck_assert_uint_eq(dw.n, none.n);
	a->samples = dw.n;
	a->frames_dw = dw.user_frames;
	a->frames_unw = unw.user_frames;
	if (dw.n) {
		a->us_dw = (dw.seconds - none.seconds) * 1e6 / (double)dw.n;
		a->us_unw = (unw.seconds - none.seconds) * 1e6 / (double)dw.n;
	}
	size_t shown = 0;
	for (size_t i = 0; i < dw.n; i++) {
		const chain *x = &dw.v[i], *y = &unw.v[i];
		ck_assert_uint_eq(x->time, y->time);
		size_t k = 0;
		/* the names too: they differ when one back end takes a frame for
		 * an activation (looked up at pc) and the other not (pc − 1) */
		while (k < x->n && k < y->n && x->addr[k] == y->addr[k] &&
		       x->mode[k] == y->mode[k] && strcmp(x->sym[k], y->sym[k]) == 0)
			k++;
		const char *kind;
		if (k == x->n && k == y->n) {
			a->same++;
			continue;
		} else if (k == x->n) {
			a->prefix_dw++;
			kind = "prefix: libdw stopped earlier";
		} else if (k == y->n) {
			a->prefix_unw++;
			kind = "prefix: libunwind stopped earlier";
		} else {
			a->differ++;
			kind = "differs";
		}
		if (shown++ < show) {
			const chain *s = k == x->n ? x : y;
			fprintf(stderr, "    %s: tid %u time %" PRIu64 ": %s (after %zu common "
				"frames; the shorter one ends in %s)\n", label, x->tid, x->time,
				kind, k, s->n ? s->dso[s->n - 1] : "-");
			print_chain("libdw", x);
			print_chain("libunwind", y);
		}
	}
	fprintf(stderr,
		"%s: %zu samples, identical %zu (%.2f%%), libdw a prefix %zu, libunwind a "
		"prefix %zu, different %zu; user frames libdw %zu, libunwind %zu; "
		"unwinding cost libdw %.1f us/sample (%.1f without cached CFI rows, same "
		"frames), libunwind %.1f us/sample\n",
		label, a->samples, a->same,
		a->samples ? 100.0 * (double)a->same / (double)a->samples : 100.0,
		a->prefix_dw, a->prefix_unw, a->differ, a->frames_dw, a->frames_unw,
		a->us_dw, a->us_plain, a->us_unw);
	free_run(&dw);
	free_run(&unw);
	pd_session_free(sdw);
	pd_session_free(sunw);
}

/* -------------------------------------------------- perfparser fixtures */

typedef struct pp_case {
	const char *dir, *data, *binary;
} pp_case;

static const pp_case cases[] = {
	{ "vector_static_gcc", "perf.data", "vector_static_gcc_v9.1.0" },
	{ "vector_static_clang", "perf.data", "vector_static_clang_v8.0.1" },
	{ "fork_static_gcc", "perf.data.zstd", "fork" },
	{ "parallel_static_gcc", "perf.data.zstd", "parallel_static_gcc" },
};
#define NCASES (sizeof cases / sizeof cases[0])

START_TEST(test_backends_perfparser)
{
	if (!pd_test_corpus_present())
		PD_SKIP("corpus absent (%s)", PD_CORPUS_DIR);
	const pp_case *c = &cases[_i];
	char rel[PATHMAX], data[PATHMAX], binpath[PATHMAX];
	snprintf(rel, sizeof rel, PP_DIR "/%s/%s", c->dir, c->data);
	pd_test_corpus(data, sizeof data, rel);
	struct stat st;
	if (stat(data, &st) != 0)
		PD_SKIP("no %s", data);
	snprintf(rel, sizeof rel, PP_DIR "/%s/%s", c->dir, c->binary);
	pd_test_corpus(binpath, sizeof binpath, rel);
	size_t blen;
	uint8_t *bin = pd_test_load_maybe_zlib(binpath, &blen);
	ck_assert_msg(bin != NULL, "no binary %s(.zlib)", binpath);
	char *tmp = pd_test_tmpdir();
	ck_assert_ptr_nonnull(tmp);
	pd_test_symfs fs;
	pd_session_options o;
	pd_test_symfs_init(&fs, tmp, &o);
	ck_assert_uint_gt(pd_test_symfs_add(&fs, data, c->binary, bin, blen), 0);
	free(bin);

	agreement a;
	char label[256];
	snprintf(label, sizeof label, "perfparser %s/%s", c->dir, c->data);
	compare(label, data, &o, &a, 10);
	pd_test_rmrf(tmp);
	free(tmp);
	if (a.unsupported)
		PD_SKIP("libunwind back end not built in");
	ck_assert_uint_gt(a.samples, 10);
	ck_assert_uint_gt(a.frames_dw, a.samples);
	ck_assert_msg(a.same * 100 >= a.samples * 99, "%s: only %zu of %zu samples identical",
		      label, a.same, a.samples);
}
END_TEST

/* ------------------------------------------------ recorded at test time */

/* Build tests/workloads/unwind_mix.c with `flags` and record it with
 * --call-graph dwarf; NULL on success, else why to skip. */
static const char *record_mix(const char *dir, const char *flags, const char *name,
			      char *data, size_t n)
{
	char bin[PATHMAX], src[PATHMAX], cflags[PATHMAX];
	snprintf(bin, sizeof bin, "%s/%s", dir, name);
	snprintf(src, sizeof src, "%s/unwind_mix.c", WORKLOAD_DIR);
	snprintf(cflags, sizeof cflags, "-O2 -g %s -Wl,--no-as-needed -lm", flags);
	if (!pd_test_compile("cc", cflags, bin, src))
		return "cannot compile tests/workloads/unwind_mix.c";
	snprintf(data, n, "%s/%s.data", dir, name);
	char w[2 * PATHMAX];
	snprintf(w, sizeof w, "'%s' 400", bin);
	if (!pd_test_perf_record(data, "-N -e cpu-clock -F 2000 --call-graph dwarf", w))
		return "perf record --call-graph dwarf failed";
	return NULL;
}

/* Record unwind_mix built with `flags` and compare the back ends on it;
 * NULL, or why to skip. */
static const char *compare_recorded(const char *flags, const char *name, const char *label,
				    size_t show, agreement *a)
{
	char *dir;
	const char *why = pd_test_lab_open(true, &dir);
	if (why)
		return why;
	char data[PATHMAX];
	why = record_mix(dir, flags, name, data, sizeof data);
	if (!why) {
		/* an empty build-id cache: the binary is found at its path */
		char cache[PATHMAX];
		snprintf(cache, sizeof cache, "%s/no-buildid-cache", dir);
		pd_test_mkdirs(cache);
		pd_session_options o;
		pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
		o.buildid_dir = cache;
		o.jit_dir = dir;
		compare(label, data, &o, a, show);
		if (a->unsupported)
			why = "libunwind back end not built in";
	}
	pd_test_lab_close(dir);
	return why;
}

START_TEST(test_backends_recorded)
{
	agreement a;
	PD_SKIP_IF(compare_recorded("", "unwind_mix", "recorded unwind_mix", 10, &a));
	ck_assert_uint_gt(a.samples, 100);
	/* the stacks are deep: main → sort_round → qsort → ... → cmp */
	ck_assert_uint_gt(a.frames_dw, 3 * a.samples);
	ck_assert_msg(a.same * 100 >= a.samples * 99, "only %zu of %zu samples identical",
		      a.same, a.samples);
}
END_TEST

START_TEST(test_backends_debug_frame_only)
{
	agreement a;
	PD_SKIP_IF(compare_recorded("-fno-asynchronous-unwind-tables -fno-unwind-tables",
				    "unwind_mix_df", "unwind_mix, CFI in .debug_frame only", 3,
				    &a));
	ck_assert_uint_gt(a.samples, 100);
	/* libdw reads .debug_frame; libunwind 1.6.2 stops at the first frame
	 * of the binary's own code, which is a prefix of libdw's chain */
	ck_assert_uint_gt(a.frames_dw, a.frames_unw + a.samples / 2);
	ck_assert_uint_eq(a.differ + a.prefix_dw, 0);
}
END_TEST

/*
 * Samples in the vdso: it is no file on disk, so the back ends unwind
 * through the image the symbolizer took from this process (the running
 * kernel's).  tests/workloads/vdso_loop.c calls clock_gettime() from
 * vdso_spin() from vdso_outer() from main() (and, once per round, from
 * main itself): every sample whose leaf is in the vdso must reach main,
 * nearly all through vdso_spin and vdso_outer, and none may count as
 * truncated in the vdso.  perf 6.1 with -N stops at the vdso frame, so the oracle
 * is the workload's own call structure.
 */
typedef struct vdso_tally {
	size_t samples, in_vdso, to_main, through;
	uint64_t truncated_in_vdso;
} vdso_tally;

/* False when the back end is not built in. */
static bool vdso_walk(const char *data, const pd_session_options *base, pd_unwinder unwinder,
		      vdso_tally *t)
{
	memset(t, 0, sizeof *t);
	pd_session *s;
	pd_error err;
	int orc = open_session(data, base, unwinder, &s, &err);
	if (orc == PD_EUNSUPPORTED)
		return false;
	ck_assert_msg(orc == 0, "%s", err.message);
	const pd_resolved_sample *rs;
	int rc;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		t->samples++;
		size_t k = 0;
		while (k < rs->nframes && rs->frames[k].cpumode != PD_CPUMODE_USER)
			k++;
		if (k == rs->nframes || strcmp(rs->frames[k].dso, "[vdso]") != 0)
			continue;
		t->in_vdso++;
		/* vdso → libc's clock_gettime → vdso_spin → vdso_outer → main */
		const char *want[] = { "vdso_spin", "vdso_outer", "main" };
		size_t w = 0;
		for (size_t i = k + 1; i < rs->nframes && w < 3; i++)
			if (rs->frames[i].symbol && strcmp(rs->frames[i].symbol, want[w]) == 0)
				w++;
		t->through += w == 3;
		for (size_t i = k + 1; i < rs->nframes; i++)
			if (rs->frames[i].symbol && strcmp(rs->frames[i].symbol, "main") == 0) {
				t->to_main++;
				break;
			}
	}
	ck_assert_msg(rc == PD_ITEROVER, "%s", err.message);
	const pd_unresolved_count *c;
	size_t n = pd_session_truncated(s, &c);
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].dso, "[vdso]") == 0)
			t->truncated_in_vdso += c[i].samples;
	pd_session_free(s);
	return true;
}

START_TEST(test_backends_vdso)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	char bin[PATHMAX], src[PATHMAX], data[PATHMAX], w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/vdso_loop", dir);
	snprintf(src, sizeof src, "%s/vdso_loop.c", WORKLOAD_DIR);
	snprintf(data, sizeof data, "%s/vdso.data", dir);
	snprintf(w, sizeof w, "'%s' 300", bin);
	const char *why = NULL;
	if (!pd_test_compile("cc", "-O2 -g", bin, src))
		why = "cannot compile tests/workloads/vdso_loop.c";
	else if (!pd_test_perf_record(data, "-N -e cpu-clock -F 2000 --call-graph dwarf", w))
		why = "perf record --call-graph dwarf failed";
	if (why) {
		pd_test_lab_close(dir);
		PD_SKIP("%s", why);
	}
	char cache[PATHMAX + 32];
	snprintf(cache, sizeof cache, "%s/no-buildid-cache", dir);
	pd_test_mkdirs(cache);
	pd_session_options o;
	pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
	o.buildid_dir = cache;
	o.jit_dir = dir;
	const pd_unwinder kinds[] = { PD_UNWINDER_LIBDW, PD_UNWINDER_LIBDW_UNCACHED,
				      PD_UNWINDER_LIBUNWIND };
	const char *names[] = { "libdw", "libdw-uncached", "libunwind" };
	for (size_t k = 0; k < 3; k++) {
		vdso_tally t;
		if (!vdso_walk(data, &o, kinds[k], &t)) {
			fprintf(stderr, "    %s back end not built: skipped\n", names[k]);
			continue;
		}
		fprintf(stderr, "vdso_loop, %s: %zu samples, %zu in the vdso, %zu of them "
			"reaching main, %zu through vdso_spin/vdso_outer/main, %" PRIu64
			" truncated in the vdso\n",
			names[k], t.samples, t.in_vdso, t.to_main, t.through, t.truncated_in_vdso);
		if (t.in_vdso * 2 < t.samples) {
			/* a clock source the vdso cannot read: system calls instead */
			pd_test_lab_close(dir);
			PD_SKIP("only %zu of %zu samples in the vdso", t.in_vdso, t.samples);
		}
		ck_assert_uint_eq(t.to_main, t.in_vdso);
		ck_assert_uint_ge(t.through * 10, t.in_vdso * 9);
		ck_assert_uint_eq(t.truncated_in_vdso, 0);
	}
	pd_test_lab_close(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("unwind_backends");
	TCase *tc = tcase_create("backends");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_backends_perfparser, 0, (int)NCASES);
	tcase_add_test(tc, test_backends_recorded);
	tcase_add_test(tc, test_backends_debug_frame_only);
	tcase_add_test(tc, test_backends_vdso);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
