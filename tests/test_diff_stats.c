/*
 * The diff's statistics on profiles whose every count is known: each run
 * is a pprof message built here (protoc-c's code for profile.proto), with
 * a command and stack per sample group, read through the public API
 * (pd_profile_add_pprof_buffer, pd_diff_new) as any run is.  Known counts
 * make the oracles exact:
 *
 * - which rows are tested (pd_diff_row.tested): those that can reach
 *   min_change, whichever runs are on which side, counted here from the
 *   shares; the set does not depend on which side is which;
 * - with one run a side and no time blocks, a row's p-value is the
 *   two-sided normal tail of the Cochran–Mantel–Haenszel statistic over
 *   its processes, computed here from the counts by its textbook formula;
 *   a process one side lacks informs nothing, and a row whose share within
 *   its process moved against its share of the whole is not significant;
 * - with runs, a row's share within its process decides, whatever share of
 *   the machine other load left the process in each run (and a process's
 *   share alone is no change); a renamed binary's command is the base's.
 *
 * The recorded cases of tests/diffcases measure power and false alarms on
 * real recordings; this suite pins the arithmetic.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdiff/diff.h"
#include "perfdiff/pprof.h"
#include "profile.pb-c.h"

#define MAXF 16
#define PERIOD 1000000  /* ns a sample: cpu-clock at 1 kHz */

/* A group of samples: `n` of them in command `comm` with the stack
 * `stack` (function names leaf first, ' '-separated), all in one block. */
typedef struct group {
	const char *comm, *stack;
	int64_t n;
} group;

typedef struct msg {
	char *str[4 * MAXF + 16];
	size_t nstr;
	const char *dso;
} msg;

static int64_t str_id(msg *m, const char *s)
{
	for (size_t i = 0; i < m->nstr; i++)
		if (strcmp(m->str[i], s) == 0)
			return (int64_t)i;
	ck_assert_uint_lt(m->nstr, sizeof m->str / sizeof *m->str);
	m->str[m->nstr] = (char *)s;
	return (int64_t)m->nstr++;
}

/* The functions (one location each, in the mapping of `dso`) and samples
 * of `groups`: a packed Profile in *len bytes, malloc'd. */
static uint8_t *pack_run(const char *dso, const group *groups, size_t ng, size_t *len)
{
	msg m = { .nstr = 0, .dso = dso };
	str_id(&m, "");
	Perftools__Profiles__ValueType vt[2] = { PERFTOOLS__PROFILES__VALUE_TYPE__INIT,
						 PERFTOOLS__PROFILES__VALUE_TYPE__INIT };
	vt[0].type = str_id(&m, "samples"), vt[0].unit = str_id(&m, "count");
	vt[1].type = str_id(&m, "cpu-clock"), vt[1].unit = str_id(&m, "nanoseconds");
	Perftools__Profiles__ValueType *vts[2] = { &vt[0], &vt[1] };
	Perftools__Profiles__Mapping mp = PERFTOOLS__PROFILES__MAPPING__INIT, *mps[1] = { &mp };
	mp.id = 1, mp.memory_start = 0x400000, mp.memory_limit = 0x500000;
	mp.filename = str_id(&m, dso);
	static Perftools__Profiles__Function fn[MAXF];
	static Perftools__Profiles__Function *fns[MAXF];
	static Perftools__Profiles__Line ln[MAXF];
	static Perftools__Profiles__Line *lns[MAXF];
	static Perftools__Profiles__Location loc[MAXF];
	static Perftools__Profiles__Location *locs[MAXF];
	const char *names[MAXF];
	size_t nf = 0;
	static uint64_t ids[64][MAXF];
	static int64_t vals[64][2];
	static Perftools__Profiles__Label lb[64], *lbs[64][1];
	static Perftools__Profiles__Sample sm[64], *sms[64];
	ck_assert_uint_le(ng, 64);
	for (size_t g = 0; g < ng; g++) {
		char buf[256], *save = NULL;
		snprintf(buf, sizeof buf, "%s", groups[g].stack);
		size_t depth = 0;
		for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			size_t f = 0;
			while (f < nf && strcmp(names[f], w) != 0)
				f++;
			if (f == nf) {
				ck_assert_uint_lt(nf, MAXF);
				names[nf] = strdup(w);
				fn[nf] = (Perftools__Profiles__Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
				fn[nf].id = nf + 1, fn[nf].name = str_id(&m, names[nf]);
				fns[nf] = &fn[nf];
				ln[nf] = (Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
				ln[nf].function_id = nf + 1;
				lns[nf] = &ln[nf];
				loc[nf] = (Perftools__Profiles__Location)PERFTOOLS__PROFILES__LOCATION__INIT;
				loc[nf].id = nf + 1, loc[nf].mapping_id = 1;
				loc[nf].address = 0x401000 + 0x100 * nf;
				loc[nf].n_line = 1, loc[nf].line = &lns[nf];
				locs[nf] = &loc[nf];
				nf++;
			}
			ids[g][depth++] = f + 1;
		}
		vals[g][0] = groups[g].n, vals[g][1] = groups[g].n * PERIOD;
		lb[g] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
		lb[g].key = str_id(&m, "comm"), lb[g].str = str_id(&m, groups[g].comm);
		lbs[g][0] = &lb[g];
		sm[g] = (Perftools__Profiles__Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
		sm[g].n_location_id = depth, sm[g].location_id = ids[g];
		sm[g].n_value = 2, sm[g].value = vals[g];
		sm[g].n_label = 1, sm[g].label = lbs[g];
		sms[g] = &sm[g];
	}
	Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	p.n_sample_type = 2, p.sample_type = vts, p.n_sample = ng, p.sample = sms;
	p.n_mapping = 1, p.mapping = mps, p.n_location = nf, p.location = locs;
	p.n_function = nf, p.function = fns, p.n_string_table = m.nstr, p.string_table = m.str;
	p.period_type = &vt[1], p.period = PERIOD, p.duration_nanos = 1000000000;
	*len = perftools__profiles__profile__get_packed_size(&p);
	uint8_t *buf = malloc(*len);
	ck_assert_ptr_nonnull(buf);
	perftools__profiles__profile__pack(&p, buf);
	for (size_t f = 0; f < nf; f++)
		free((char *)names[f]);
	return buf;
}

/* A profile of `nruns` runs, run r made of groups[r][0..ng[r]). */
static pd_profile *profile_of(const char *dso, const group *const *groups, const size_t *ng,
			      size_t nruns)
{
	pd_profile_options o;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	for (size_t r = 0; r < nruns; r++) {
		size_t len;
		uint8_t *buf = pack_run(dso, groups[r], ng[r], &len);
		char name[32];
		snprintf(name, sizeof name, "run%zu.pb", r);
		int rc = pd_profile_add_pprof_buffer(p, buf, len, name, &err);
		ck_assert_msg(rc == 0, "pprof run %zu: %s", r, err.message);
		free(buf);
	}
	return p;
}

static pd_diff *diff_of(const pd_profile *b, const pd_profile *n)
{
	pd_diff_options o;
	pd_diff_options_init(&o, PD_DIFF_OPTIONS_VERSION);
	pd_diff *d = NULL;
	pd_error err;
	ck_assert_msg(pd_diff_new(&d, b, n, &o, &err) == 0, "pd_diff_new: %s", err.message);
	return d;
}

static const pd_diff_row *row(const pd_diff *d, pd_diff_metric m, const char *key)
{
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (r->metric == m && strcmp(r->key, key) == 0)
			return r;
	}
	ck_abort_msg("no %s row %s", pd_diff_metric_name(m), key);
	return NULL;
}

/* ------------------------------------------------------ the CMH oracle */

/* One 2×2 table: the row's count and its command's total on each side. */
typedef struct table {
	double xb, nb, xn, nn;
} table;

/* The CMH z over tables t[0..k): Σ (x_new − E) / √Σ V with E and V the
 * hypergeometric mean and variance given both margins (Mantel & Haenszel
 * 1959, no continuity correction). */
static double cmh_z(const table *t, size_t k)
{
	double u = 0, v = 0;
	for (size_t i = 0; i < k; i++) {
		double m = t[i].xb + t[i].xn, N = t[i].nb + t[i].nn;
		u += t[i].xn - m * t[i].nn / N;
		v += m * (N - m) * t[i].nb * t[i].nn / (N * N * (N - 1));
	}
	return u / sqrt(v);
}

static double normal_p2(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

/* ------------------------------------------------------------- tests */

/*
 * One run a side.  `prog` runs on both sides with f's share within it up
 * from 30 % to 40 %; `other`, on both sides too, takes three times as much
 * of the new machine; `gone` runs in the base only.
 */
START_TEST(test_one_run_cmh)
{
	const group base[] = { { "prog", "f main", 300 }, { "prog", "g main", 700 },
			       { "other", "h", 1000 }, { "gone", "k", 500 } };
	const group nw[] = { { "prog", "f main", 400 }, { "prog", "g main", 600 },
			     { "other", "h", 3000 } };
	const group *gb[1] = { base }, *gn[1] = { nw };
	size_t nb[1] = { 4 }, nn[1] = { 3 };
	pd_profile *b = profile_of("/bin/app", gb, nb, 1), *n = profile_of("/bin/app", gn, nn, 1);
	pd_diff *d = diff_of(b, n);
	ck_assert_int_eq(pd_diff_test(d), PD_DIFF_TEST_PROPORTION);
	/* f: within prog 300/1000 → 400/1000; of the whole 12 % → 10 %: its
	 * share fell while it grew within prog, so it is not significant */
	const pd_diff_row *f = row(d, PD_DIFF_SELF, "f");
	ck_assert_double_eq_tol(f->change, 100.0 * 400 / 4000 - 100.0 * 300 / 2500, 1e-9);
	ck_assert_double_eq(f->p_value, 1);
	ck_assert(!f->significant);
	ck_assert_str_eq(f->process, "prog");
	/* main's children: all of prog, unchanged within it */
	const pd_diff_row *m = row(d, PD_DIFF_CHILDREN, "main");
	ck_assert_double_gt(m->p_value, 0.5);
	/* k: its process is gone from the new side; nothing to judge */
	const pd_diff_row *k = row(d, PD_DIFF_SELF, "k");
	ck_assert_double_eq(k->p_value, 1);
	ck_assert(!k->significant);
	ck_assert_uint_eq(pd_diff_process_count(d), 3);
	ck_assert_str_eq(pd_diff_process_at(d, 0)->comm, "other");
	ck_assert_uint_eq(pd_diff_process_at(d, 0)->samples, 4000);
	pd_diff_free(d);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/*
 * The same with the shares agreeing: f grows within prog and of the
 * whole.  Its p-value is the CMH test's over the one command it runs in;
 * g (shared by two commands) sums two tables.
 */
START_TEST(test_one_run_cmh_value)
{
	const group base[] = { { "prog", "f main", 300 }, { "prog", "g main", 700 },
			       { "other", "g", 400 }, { "other", "h", 600 } };
	const group nw[] = { { "prog", "f main", 420 }, { "prog", "g main", 580 },
			     { "other", "g", 300 }, { "other", "h", 700 } };
	const group *gb[1] = { base }, *gn[1] = { nw };
	size_t nb[1] = { 4 }, nn[1] = { 4 };
	pd_profile *b = profile_of("/bin/app", gb, nb, 1), *n = profile_of("/bin/app", gn, nn, 1);
	pd_diff *d = diff_of(b, n);
	const pd_diff_row *f = row(d, PD_DIFF_SELF, "f");
	table tf[1] = { { 300, 1000, 420, 1000 } };
	ck_assert_double_eq_tol(f->p_value, normal_p2(cmh_z(tf, 1)), 1e-9 + 1e-6 * f->p_value);
	ck_assert(f->significant);
	const pd_diff_row *g = row(d, PD_DIFF_SELF, "g");
	table tg[2] = { { 700, 1000, 580, 1000 }, { 400, 1000, 300, 1000 } };
	ck_assert_double_eq_tol(g->p_value, normal_p2(cmh_z(tg, 2)), 1e-9 + 1e-6 * g->p_value);
	ck_assert_str_eq(g->process, "prog");
	pd_diff_free(d);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/*
 * Independent filtering: of many rows, those whose share over all runs
 * (mean of base and new, one run each) is below half of min_change can
 * never change by it, and are not tested; the rest are.  The set is the
 * same with the sides swapped, and a tiny row's very small p-value does
 * not make it significant.
 */
START_TEST(test_filter)
{
	/* 100000 samples a side: 1 sample is 0.001 points */
	group base[12], nw[12];
	char stacks[12][16];
	size_t ng = 0;
	const int64_t cb[10] = { 10, 20, 30, 49, 50, 51, 60, 100, 0, 90 };
	const int64_t cn[10] = { 30, 80, 60, 49, 50, 51, 40, 0, 120, 10 };
	int64_t rest_b = 100000, rest_n = 100000;
	for (size_t i = 0; i < 10; i++, ng++) {
		snprintf(stacks[i], sizeof stacks[i], "t%zu", i);
		base[ng] = (group){ "prog", stacks[i], cb[i] };
		nw[ng] = (group){ "prog", stacks[i], cn[i] };
		rest_b -= cb[i];
		rest_n -= cn[i];
	}
	base[ng] = (group){ "prog", "rest", rest_b };
	nw[ng++] = (group){ "prog", "rest", rest_n };
	const group *gb[1] = { base }, *gn[1] = { nw };
	size_t nb[1] = { ng }, nn[1] = { ng };
	pd_profile *b = profile_of("/bin/app", gb, nb, 1), *n = profile_of("/bin/app", gn, nn, 1);
	pd_diff *d = diff_of(b, n), *sw = diff_of(n, b);
	size_t tested = 0;
	for (size_t i = 0; i < 10; i++) {
		/* shares in points; the row can change by at most 2 × its mean */
		double mean = 0.5 * (100.0 * (double)cb[i] / 1e5 + 100.0 * (double)cn[i] / 1e5);
		bool can = 2 * mean >= 0.1 * (1 - 1e-9);
		const pd_diff_row *r = row(d, PD_DIFF_SELF, stacks[i]);
		const pd_diff_row *s = row(sw, PD_DIFF_SELF, stacks[i]);
		ck_assert_msg(r->tested == can, "%s: mean %.4f tested %d", stacks[i], mean,
			      r->tested);
		ck_assert_int_eq(s->tested, r->tested);
		if (!r->tested) {
			ck_assert_double_eq(r->q_value, 1);
			ck_assert(!r->significant);
		}
		tested += can;
	}
	ck_assert_uint_eq(tested, 7);  /* the data: t1 and t4..t9 can */
	size_t fam = 0;
	for (size_t i = 0; i < pd_diff_row_count(d); i++)
		fam += pd_diff_row_at(d, i)->tested;
	ck_assert_uint_eq(pd_diff_tested_count(d), fam);
	pd_diff_free(d);
	pd_diff_free(sw);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/*
 * Three runs a side.  `prog` holds the same composition in every run
 * (f 30 % of it), while `other` takes none, half or a quarter of the
 * machine from run to run; f's share of the whole swings from 30 to 15 %.
 * A/A: nothing is significant.  With f at 36 % of prog on the new side, f
 * is, though its shares of the whole overlap between the sides.
 */
static void other_load(group *g, int64_t f, int64_t total_prog, int64_t other)
{
	g[0] = (group){ "prog", "f main", f };
	g[1] = (group){ "prog", "g main", total_prog - f };
	g[2] = (group){ "other", "h", other };
}

static pd_diff *load_case(int64_t f_new, pd_profile **b, pd_profile **n)
{
	static group runs[2][3][3];
	const int64_t other[3] = { 0, 4000, 1330 };
	const int64_t jitter[2][3] = { { 0, 9, -7 }, { 5, -6, 3 } };
	const group *g[2][3];
	size_t ng[3] = { 3, 3, 3 };
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < 3; r++) {
			other_load(runs[s][r], (s ? f_new : 1200) + jitter[s][r], 4000, other[r]);
			g[s][r] = runs[s][r];
		}
	*b = profile_of("/bin/app", g[0], ng, 3);
	*n = profile_of("/bin/app", g[1], ng, 3);
	return diff_of(*b, *n);
}

START_TEST(test_runs_within_process)
{
	pd_profile *b, *n;
	pd_diff *d = load_case(1200, &b, &n);
	ck_assert_int_eq(pd_diff_test(d), PD_DIFF_TEST_MODERATED_T);
	for (size_t i = 0; i < pd_diff_row_count(d); i++)
		ck_assert_msg(!pd_diff_row_at(d, i)->significant, "A/A: row %s significant",
			      pd_diff_row_at(d, i)->key);
	pd_diff_free(d);
	pd_profile_free(b);
	pd_profile_free(n);

	d = load_case(1440, &b, &n);
	const pd_diff_row *f = row(d, PD_DIFF_SELF, "f");
	ck_assert_double_lt(f->new.runs[1], f->base.runs[0]);  /* the shares overlap */
	ck_assert_msg(f->significant, "f: p %g q %g", f->p_value, f->q_value);
	ck_assert_str_eq(f->process, "prog");
	pd_diff_free(d);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/*
 * Three runs a side.  Within `prog` nothing changes (f 30 %), but prog
 * takes 70 % of the machine instead of 50 % in every new run: its rows'
 * shares of the whole move by 6 points and more, yet within prog nothing
 * changed, and with a few runs a process that got more of the machine
 * cannot be told from another job that got less; not significant.  The
 * other process's own rows do not change within it either.
 */
START_TEST(test_runs_whole_process)
{
	static group runs[2][3][3];
	const int64_t jitter[2][3] = { { 0, 8, -6 }, { 4, -5, 2 } };
	const group *g[2][3];
	size_t ng[3] = { 3, 3, 3 };
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < 3; r++) {
			int64_t prog = (s ? 7000 : 5000) + 10 * jitter[s][r];
			other_load(runs[s][r], prog * 3 / 10 + jitter[s][r], prog, 10000 - prog);
			g[s][r] = runs[s][r];
		}
	pd_profile *b = profile_of("/bin/app", g[0], ng, 3);
	pd_profile *n = profile_of("/bin/app", g[1], ng, 3);
	pd_diff *d = diff_of(b, n);
	const pd_diff_row *f = row(d, PD_DIFF_SELF, "f");
	ck_assert_double_gt(f->change, 5);
	ck_assert_msg(!f->significant && f->tested, "f: p %g q %g", f->p_value, f->q_value);
	const pd_diff_row *h = row(d, PD_DIFF_SELF, "h");
	ck_assert_msg(!h->significant && h->change < -15, "h: p %g", h->p_value);
	pd_diff_free(d);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/*
 * A binary renamed between the builds runs under another command: the
 * new side's `app-new` is the base's `app-old` (the dsos are paired), so
 * f is tested within one process, as with one name.
 */
START_TEST(test_renamed_binary_command)
{
	const group base[] = { { "app-old", "f main", 300 }, { "app-old", "g main", 700 },
			       { "other", "h", 1000 } };
	const group nw[] = { { "app-new", "f main", 420 }, { "app-new", "g main", 580 },
			     { "other", "h", 1000 } };
	const group *gb[1] = { base }, *gn[1] = { nw };
	size_t nb[1] = { 3 }, nn[1] = { 3 };
	pd_profile *b = profile_of("/old/app-old", gb, nb, 1);
	pd_profile *n = profile_of("/new/app-new", gn, nn, 1);
	pd_diff *d = diff_of(b, n);
	ck_assert_uint_eq(pd_diff_dso_pair_count(d), 1);
	char buf[16];
	ck_assert_str_eq(pd_diff_base_comm(d, "app-new", buf), "app-old");
	ck_assert_str_eq(pd_diff_base_comm(d, "other", buf), "other");
	const pd_diff_row *f = row(d, PD_DIFF_SELF, "f");
	table tf[1] = { { 300, 1000, 420, 1000 } };
	ck_assert_double_eq_tol(f->p_value, normal_p2(cmh_z(tf, 1)), 1e-9 + 1e-6 * f->p_value);
	ck_assert(f->significant);
	pd_diff_free(d);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/* ------------------------------------------------------------ recorded */

#define WORKLOAD PD_TEST_DATA_DIR "/../workloads/diff_rename.c"
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

/* Distinct pids of command `comm` in `perf script` of `data`. */
static size_t perf_pids(const char *data, const char *comm)
{
	char cmd[2 * PD_TEST_PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf script -i '%s' -F comm,pid 2>/dev/null | awk '$1 == \"%s\" { print $2 }' "
		 "| sort -u | wc -l",
		 data, comm);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_msg(out && st == 0, "%s", cmd);
	size_t n = strtoul(out, NULL, 10);
	free(out);
	return n;
}

static pd_profile *recorded(const char *data)
{
	pd_profile_options o;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	ck_assert_msg(pd_profile_add_file(p, data, &err) == 0, "%s", err.message);
	return p;
}

/*
 * A command run as three processes at once against one run as one
 * process (pd_profile_comm_processes() against perf script's pids); the
 * diff's process table says how many each ran as.
 */
START_TEST(test_mix_of_jobs)
{
	char *lab = NULL;
	const char *skip = pd_test_lab_open(true, &lab);
	PD_SKIP_IF(skip);
	char bin[PD_TEST_PATHMAX], one[PD_TEST_PATHMAX], three[PD_TEST_PATHMAX];
	char cmd[4 * PD_TEST_PATHMAX];
	snprintf(bin, sizeof bin, "%s/jobs", lab);
	snprintf(one, sizeof one, "%s/one.data", lab);
	snprintf(three, sizeof three, "%s/three.data", lab);
	ck_assert(pd_test_compile("cc", WFLAGS, bin, WORKLOAD));
	snprintf(cmd, sizeof cmd, "'%s' 300", bin);
	ck_assert(pd_test_perf_record(one, "-q -N -e cpu-clock -g", cmd));
	snprintf(cmd, sizeof cmd, "sh -c \"'%1$s' 300 & '%1$s' 300 & '%1$s' 300 & wait\"", bin);
	ck_assert(pd_test_perf_record(three, "-q -N -e cpu-clock -g", cmd));
	pd_profile *b = recorded(one), *n = recorded(three);
	size_t pb = perf_pids(one, "jobs"), pn = perf_pids(three, "jobs");
	ck_assert_uint_eq(pb, 1);
	ck_assert_uint_eq(pd_profile_comm_processes(b, "jobs"), pb);
	ck_assert_uint_eq(pd_profile_comm_processes(n, "jobs"), pn);
	ck_assert_uint_eq(pd_profile_comm_processes(n, "no-such-command"), 0);
	pd_diff *d = diff_of(b, n);
	bool found = false;
	for (size_t i = 0; i < pd_diff_process_count(d); i++) {
		const pd_diff_process *p = pd_diff_process_at(d, i);
		if (strcmp(p->comm, "jobs") == 0) {
			ck_assert_uint_eq(p->pids, pn);
			found = true;
		}
	}
	ck_assert(found);
	pd_diff_free(d);
	pd_profile_free(b);
	pd_profile_free(n);
	pd_test_lab_close(lab);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diff_stats");
	TCase *tc = tcase_create("stats");
	tcase_add_test(tc, test_one_run_cmh);
	tcase_add_test(tc, test_one_run_cmh_value);
	tcase_add_test(tc, test_filter);
	tcase_add_test(tc, test_runs_within_process);
	tcase_add_test(tc, test_runs_whole_process);
	tcase_add_test(tc, test_renamed_binary_command);
	suite_add_tcase(s, tc);
	TCase *rec = tcase_create("recorded");
	tcase_set_timeout(rec, 300);
	tcase_add_test(rec, test_mix_of_jobs);
	suite_add_tcase(s, rec);
	return pd_test_main(s);
}
