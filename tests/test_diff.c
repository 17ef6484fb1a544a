/*
 * Diffs (diff.h) end to end, on programs built and recorded here with
 * `perf record -N -e cpu-clock -g`, two or three runs a side, read through
 * the public API only (pd_profile_add_file per side, pd_diff_new).  Each
 * case is a tests/workloads/diff_*.c built twice, the new side with
 * -DPD_NEW, at the same path (as a rebuilt program is): a private build-id
 * cache keeps the base runs symbolizable.
 *
 *   renamed   hash_chunk → hash_block, same body, caller and callee;
 *             with PD_DIFF_NO_ALIGN the −X/+X rows, both significant;
 *   inlined   helper noinline → always_inline into work: an inlined
 *             relation without inline frames, and with them nothing
 *             misreported;
 *   moved     leaf_cost called from a_path → from b_path;
 *   split     foo → foo + foo.cold (kept apart only with
 *             PD_PROFILE_KEEP_SUFFIXES; canonical names merge them);
 *   A/A       one binary, 3 runs a side: nothing significant; and the
 *             children/self values of the rows against `perf report
 *             --children` of every run (the independent oracle);
 *   renamed binary
 *             the renamed case built under two names in two folders,
 *             old/app-old (the A/A case's binary and base runs) and
 *             new/app-new: the dsos paired, the rename found inside
 *             them, the unchanged functions not significant, and the
 *             pair in the CLI's text and JSON.
 *
 * On failure (and always, to stderr) every row with |change| > 1 and
 * every relation is printed.  Every test skips with a message where perf,
 * cc or readelf are missing.
 */
#include "testutil.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "perfdiff/diff.h"

#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#define PATHMAX 4200
#define MAXRUNS 3
/* -O0: every function keeps its frame, leaf functions too (gcc 12 at -O1
 * sets up none in a leaf despite -fno-omit-frame-pointer, and the leaf's
 * caller then vanishes from frame-pointer chains); noinline and
 * always_inline still hold at -O0. */
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"
#define RUN_MS "350"

/* ------------------------------------------------------------ the lab */

/* One case: a workload recorded `nruns` times per side. */
struct recorded {
	char bin[PATHMAX];
	char runs[2][MAXRUNS][PATHMAX];  /* [0] base, [1] new */
	size_t nruns;
};
typedef struct recorded recorded;

static struct lab {
	const char *skip;
	char *dir;
	char cache[PATHMAX];  /* private build-id cache */
	char rec_args[128];
	recorded *rename;  /* the renamed case, for two tests */
	const char *rename_skip;
	recorded *aa;      /* the A/A case, old/app-old: also the renamed binary's base */
	const char *aa_skip;
} L;

static const char *record_case(const char *name, const char *bin, size_t nruns, bool aa,
			       recorded *c);

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(true, &L.dir);
	if (L.skip)
		return;
	if (!pd_test_sh_ok("readelf --version >/dev/null 2>&1")) {
		L.skip = "no readelf (binutils)";
		return;
	}
	snprintf(L.cache, PATHMAX, "%s/buildid", L.dir);
	/* a high rate gives ~3500 samples a run; a kernel that lowered
	 * perf_event_max_sample_rate refuses it: perf's default then */
	char probe[PATHMAX];
	snprintf(probe, PATHMAX, "%s/probe.data", L.dir);
	const char *args = "-q -N -e cpu-clock -g -F 10000";
	if (!pd_test_perf_record(probe, args, "true"))
		args = "-q -N -e cpu-clock -g";
	snprintf(L.rec_args, sizeof L.rec_args, "%s", args);
	unlink(probe);
	L.rename = malloc(sizeof *L.rename);
	L.rename_skip = L.rename ? record_case("diff_rename", NULL, 2, false, L.rename)
				 : "out of memory";
	L.aa = malloc(sizeof *L.aa);
	L.aa_skip = L.aa ? record_case("diff_rename", "old/app-old", 3, true, L.aa)
			 : "out of memory";
}

static void lab_teardown(void)
{
	free(L.rename);
	free(L.aa);
	pd_test_lab_close(L.dir);
	memset(&L, 0, sizeof L);
}

#define NEED_LAB() PD_SKIP_IF(L.skip)


static bool build(const char *bin, const char *src, bool variant_new)
{
	return pd_test_compile("cc", variant_new ? WFLAGS " -DPD_NEW" : WFLAGS, bin, src) &&
	       pd_test_buildid_cache_add(L.cache, bin);
}

/* Record `bin` `nruns` times into `dir`/`side`.N.data, run paths into c. */
static const char *record_runs(recorded *c, int side, const char *dir, const char *bin,
			       size_t nruns)
{
	char w[PATHMAX + 16];
	snprintf(w, sizeof w, "'%s' " RUN_MS, bin);
	for (size_t r = 0; r < nruns; r++) {
		snprintf(c->runs[side][r], PATHMAX, "%s/%s.%zu.data", dir, side ? "new" : "base",
			 r);
		if (!pd_test_perf_record(c->runs[side][r], L.rec_args, w))
			return "perf record failed";
	}
	return NULL;
}

/*
 * Build tests/workloads/<name>.c as `bin` (a path under the case's folder;
 * NULL: <name>) and record it `nruns` times, then (unless `aa`: the same
 * binary again) rebuild it with -DPD_NEW at the same path and record that
 * `nruns` times.  NULL, or why the case is skipped.
 */
static const char *record_case(const char *name, const char *bin, size_t nruns, bool aa,
			       recorded *c)
{
	memset(c, 0, sizeof *c);
	c->nruns = nruns;
	char sub[PATHMAX / 2], src[PATHMAX];
	snprintf(sub, sizeof sub, "%s/%s%s", L.dir, name, aa ? "-aa" : "");
	if (mkdir(sub, 0755) != 0)
		return "cannot make a directory for the case";
	snprintf(src, PATHMAX, "%s/%s.c", WORKLOAD_DIR, name);
	snprintf(c->bin, PATHMAX, "%s/%s", sub, bin ? bin : name);
	char *slash = strrchr(c->bin, '/');
	*slash = '\0';
	pd_test_mkdirs(c->bin);
	*slash = '/';
	for (int side = 0; side < 2; side++) {
		if ((side == 0 || !aa) && !build(c->bin, src, side == 1))
			return "cannot build the workload (cc, readelf)";
		const char *why = record_runs(c, side, sub, c->bin, nruns);
		if (why)
			return why;
	}
	return NULL;
}

#define RECORD_OR_SKIP(name, nruns, aa, c)                                   \
	do {                                                                  \
		const char *why_ = record_case(name, NULL, nruns, aa, c);     \
		if (why_)                                                     \
			PD_SKIP("%s: %s", name, why_);                        \
	} while (0)

/* One side's profile: every run of it. */
static pd_profile *side_profile(const recorded *c, int side, unsigned pflags,
				unsigned sflags)
{
	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	o.flags = pflags;
	so.flags = sflags;
	so.buildid_dir = L.cache;
	o.session = &so;
	pd_profile *p = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_profile_new(&p, &o, &err);
	ck_assert_msg(rc == 0, "pd_profile_new: %d %s", rc, err.message);
	for (size_t r = 0; r < c->nruns; r++) {
		rc = pd_profile_add_file(p, c->runs[side][r], &err);
		ck_assert_msg(rc == 0, "pd_profile_add_file(%s): %d %s", c->runs[side][r], rc,
			      err.message);
	}
	ck_assert_uint_eq(pd_profile_run_count(p), c->nruns);
	return p;
}

static pd_diff *diff_of(const pd_profile *b, const pd_profile *n, unsigned flags)
{
	pd_diff_options o;
	pd_diff_options_init(&o, PD_DIFF_OPTIONS_VERSION);
	o.flags = flags;
	pd_diff *d = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_diff_new(&d, b, n, &o, &err);
	ck_assert_msg(rc == 0 && d, "pd_diff_new: %d %s", rc, err.message);
	return d;
}

/* ------------------------------------------------------- diagnostics */

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

static void print_symbols(FILE *f, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "+" : "", str(v[i]));
}

static void print_relation(FILE *f, const pd_diff_relation *r)
{
	fprintf(f, "  %-8s ", str(pd_diff_relation_kind_name(r->kind)));
	print_symbols(f, r->base_symbols, r->nbase_symbols);
	fprintf(f, " -> ");
	print_symbols(f, r->new_symbols, r->nnew_symbols);
	fprintf(f, "  parents %s -> %s  base %+.2f new %+.2f net %+.2f score %.2f  [%s]\n",
		str(r->base_parent), str(r->new_parent), r->base_change, r->new_change,
		r->net, r->score, str(r->evidence));
}

/* Every row with |change| > 1 and every relation; caller frees. */
static char *dump(const pd_diff *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	fprintf(f, "rows (%zu in all) with |change| > 1:\n", pd_diff_row_count(d));
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (r->change <= 1 && r->change >= -1)
			continue;
		fprintf(f, "  %-9s %-50s base %6.2f ±%5.2f new %6.2f ±%5.2f change %+7.2f q %.3g%s%s\n",
			str(pd_diff_metric_name(r->metric)), str(r->key), r->base.mean,
			r->base.stddev, r->new.mean, r->new.stddev, r->change, r->q_value,
			r->significant ? " SIGNIFICANT" : "", r->relation ? " (relation)" : "");
	}
	fprintf(f, "relations (%zu):\n", pd_diff_relation_count(d));
	for (size_t i = 0; i < pd_diff_relation_count(d); i++)
		print_relation(f, pd_diff_relation_at(d, i));
	fclose(f);
	return text;
}

/* ----------------------------------------------------------- queries */

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : (path ? path : "");
}

/* The row of `metric` for `symbol` in the workload's dso (`dso` is a base
 * name), or NULL. */
static const pd_diff_row *find_row(const pd_diff *d, pd_diff_metric metric, const char *symbol,
				   const char *dso)
{
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (r->metric == metric && r->symbol && strcmp(r->symbol, symbol) == 0 &&
		    (!dso || strcmp(base_name(r->dso), dso) == 0))
			return r;
	}
	return NULL;
}

static size_t count_kind(const pd_diff *d, pd_diff_relation_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < pd_diff_relation_count(d); i++)
		n += pd_diff_relation_at(d, i)->kind == k;
	return n;
}

static const pd_diff_relation *first_kind(const pd_diff *d, pd_diff_relation_kind k)
{
	for (size_t i = 0; i < pd_diff_relation_count(d); i++)
		if (pd_diff_relation_at(d, i)->kind == k)
			return pd_diff_relation_at(d, i);
	return NULL;
}

static bool has_symbol(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] && strcmp(v[i], s) == 0)
			return true;
	return false;
}

static bool mentions(const pd_diff_relation *r, const char *s)
{
	return has_symbol(r->base_symbols, r->nbase_symbols, s) ||
	       has_symbol(r->new_symbols, r->nnew_symbols, s);
}

static double absd(double x)
{
	return x < 0 ? -x : x;
}

/* Relations other than `except` whose rows moved by at least `points`
 * (|base| + |new| change). */
static size_t count_large(const pd_diff *d, const pd_diff_relation *except, double points)
{
	size_t n = 0;
	for (size_t i = 0; i < pd_diff_relation_count(d); i++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, i);
		n += r != except && absd(r->base_change) + absd(r->new_change) >= points;
	}
	return n;
}

/* ------------------------------------------------------------- cases */

START_TEST(test_renamed)
{
	NEED_LAB();
	PD_SKIP_IF(L.rename_skip);
	const recorded *c = L.rename;
	pd_profile *b = side_profile(c, 0, 0, 0), *n = side_profile(c, 1, 0, 0);
	pd_diff *d = diff_of(b, n, 0);
	char *why = dump(d);
	fprintf(stderr, "renamed (hash_chunk -> hash_block):\n%s", why);

	ck_assert_msg(pd_diff_test(d) == PD_DIFF_TEST_WELCH, "2 runs a side: Welch\n%s", why);
	ck_assert_msg(count_kind(d, PD_REL_RENAMED) == 1, "one renamed relation\n%s", why);
	const pd_diff_relation *rel = first_kind(d, PD_REL_RENAMED);
	ck_assert_msg(strcmp(str(rel->base_symbol), "hash_chunk") == 0 &&
			      strcmp(str(rel->new_symbol), "hash_block") == 0 &&
			      rel->nbase_symbols == 1 && rel->nnew_symbols == 1,
		      "renamed hash_chunk -> hash_block\n%s", why);
	ck_assert_msg(count_large(d, rel, 1.0) == 0, "no other shift of a point or more\n%s", why);
	for (size_t i = 0; i < pd_diff_relation_count(d); i++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, i);
		ck_assert_msg(r == rel || (!mentions(r, "hash_chunk") && !mentions(r, "hash_block") &&
					   !mentions(r, "mix_step")),
			      "relation %zu names the renamed function or its callee\n%s", i, why);
	}

	const pd_diff_row *gone = find_row(d, PD_DIFF_CHILDREN, "hash_chunk", "diff_rename");
	const pd_diff_row *came = find_row(d, PD_DIFF_CHILDREN, "hash_block", "diff_rename");
	ck_assert_msg(gone && came, "children rows of both names\n%s", why);
	/* the workload gives hash_* about 62 % inclusive */
	ck_assert_msg(gone->base.mean > 40 && gone->new.mean == 0 && gone->new.present == 0 &&
			      gone->change < -40,
		      "hash_chunk: base only\n%s", why);
	ck_assert_msg(came->new.mean > 40 && came->base.mean == 0 && came->base.present == 0 &&
			      came->change > 40,
		      "hash_block: new only\n%s", why);
	ck_assert_msg(gone->relation == rel && came->relation == rel,
		      "both children rows carry the relation\n%s", why);
	ck_assert_msg(absd(rel->base_change - gone->change) < 1e-9 &&
			      absd(rel->new_change - came->change) < 1e-9,
		      "relation changes are the rows' (%.3f %.3f)\n%s", gone->change, came->change,
		      why);
	/* same body: the cost carried across leaves only noise */
	ck_assert_msg(absd(rel->net) < 5 &&
			      absd(rel->net) < 0.2 * absd(rel->base_change) &&
			      absd(rel->net) < 0.2 * absd(rel->new_change),
		      "net %.2f is small against %.2f / %.2f\n%s", rel->net, rel->base_change,
		      rel->new_change, why);
	ck_assert_msg(rel->score >= 0.6 && rel->score <= 1, "score %.2f at least the default "
		      "rename_score\n%s", rel->score, why);
	/* both builds have DWARF: the source file, from the profiles, counted */
	ck_assert_msg(strstr(rel->evidence, "same file diff_rename.c"), "evidence: %s\n%s",
		      rel->evidence, why);
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/* Exact names only, on the renamed case: the −X/+X rows every other tool
 * shows, unexplained -- and, moving by ~60 points in every run, both
 * significant with 2 runs a side. */
START_TEST(test_no_align)
{
	NEED_LAB();
	PD_SKIP_IF(L.rename_skip);
	const recorded *c = L.rename;
	pd_profile *b = side_profile(c, 0, 0, 0), *n = side_profile(c, 1, 0, 0);
	pd_diff *d = diff_of(b, n, PD_DIFF_NO_ALIGN);
	char *why = dump(d);
	fprintf(stderr, "renamed, NO_ALIGN:\n%s", why);
	ck_assert_msg(pd_diff_relation_count(d) == 0, "no relations with NO_ALIGN\n%s", why);
	const pd_diff_row *gone = find_row(d, PD_DIFF_CHILDREN, "hash_chunk", "diff_rename");
	const pd_diff_row *came = find_row(d, PD_DIFF_CHILDREN, "hash_block", "diff_rename");
	ck_assert_msg(gone && came && !gone->relation && !came->relation && gone->change < -40 &&
			      came->change > 40,
		      "NO_ALIGN: -X/+X rows, unexplained\n%s", why);
	ck_assert_msg(gone->significant && came->significant,
		      "NO_ALIGN: rows of -%.1f/+%.1f points in every run are significant "
		      "(q %.3g, %.3g)\n%s",
		      -gone->change, came->change, gone->q_value, came->q_value, why);
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/* True if the profile's default event has a flat entry `symbol` that is an
 * inline frame. */
static bool has_inline_entry(pd_profile *p, const char *symbol)
{
	int ev = pd_profile_default_event(p);
	ck_assert_int_ge(ev, 0);
	const pd_flat_entry *e;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_profile_flat(p, (size_t)ev, &e, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		if (e[i].inlined && strcmp(e[i].symbol, symbol) == 0 && e[i].children > 0)
			return true;
	return false;
}

START_TEST(test_inlined)
{
	NEED_LAB();
	recorded c;
	RECORD_OR_SKIP("diff_inline", 2, false, &c);

	/* without inline frames: helper's cost reappears as self of work */
	pd_profile *b = side_profile(&c, 0, 0, PD_SESSION_NO_INLINE);
	pd_profile *n = side_profile(&c, 1, 0, PD_SESSION_NO_INLINE);
	pd_diff *d = diff_of(b, n, 0);
	char *why = dump(d);
	fprintf(stderr, "inlined (helper into work), no inline frames:\n%s", why);
	ck_assert_msg(count_kind(d, PD_REL_INLINED) == 1, "one inlined relation\n%s", why);
	const pd_diff_relation *rel = first_kind(d, PD_REL_INLINED);
	ck_assert_msg(strcmp(str(rel->base_symbol), "helper") == 0 &&
			      strcmp(str(rel->new_symbol), "work") == 0,
		      "inlined: helper -> work\n%s", why);
	ck_assert_msg(count_large(d, rel, 1.0) == 0, "no other shift of a point or more\n%s", why);
	const pd_diff_row *h = find_row(d, PD_DIFF_CHILDREN, "helper", "diff_inline");
	ck_assert_msg(h && h->base.mean > 30 && h->new.mean == 0 && h->relation == rel,
		      "helper's children row (~45 %% → 0) carries the relation\n%s", why);
	const pd_diff_row *ws = find_row(d, PD_DIFF_SELF, "work", "diff_inline");
	ck_assert_msg(ws && ws->change > 20, "work's self takes helper's (~+30)\n%s", why);
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);

	/* with inline frames (the default): helper stays visible, as an inline
	 * frame of work; no unexplained −X/+X for it */
	b = side_profile(&c, 0, 0, 0);
	n = side_profile(&c, 1, 0, 0);
	ck_assert_msg(has_inline_entry(n, "helper"), "the new build shows helper inlined");
	d = diff_of(b, n, 0);
	why = dump(d);
	fprintf(stderr, "inlined (helper into work), inline frames:\n%s", why);
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (r->metric != PD_DIFF_CHILDREN && r->metric != PD_DIFF_SELF)
			continue;
		if (!r->symbol || strcmp(r->symbol, "helper") != 0)
			continue;
		ck_assert_msg(!r->significant || absd(r->change) < 5 || r->relation,
			      "%s row %s: unexplained significant change %+.2f\n%s",
			      pd_diff_metric_name(r->metric), r->key, r->change, why);
	}
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

static bool perf_pct(const char *data, const char *buildid_dir, const char *dso,
		     const char *symbol, double *children, double *self);

START_TEST(test_moved)
{
	NEED_LAB();
	recorded c;
	RECORD_OR_SKIP("diff_move", 2, false, &c);
	pd_profile *b = side_profile(&c, 0, 0, 0), *n = side_profile(&c, 1, 0, 0);
	pd_diff *d = diff_of(b, n, 0);
	char *why = dump(d);
	fprintf(stderr, "moved (leaf_cost from a_path to b_path):\n%s", why);
	ck_assert_msg(count_kind(d, PD_REL_MOVED) == 1, "one moved relation\n%s", why);
	const pd_diff_relation *rel = first_kind(d, PD_REL_MOVED);
	ck_assert_msg(strcmp(str(rel->base_symbol), "leaf_cost") == 0 &&
			      strcmp(str(rel->new_symbol), "leaf_cost") == 0 &&
			      strcmp(str(rel->base_parent), "a_path") == 0 &&
			      strcmp(str(rel->new_parent), "b_path") == 0,
		      "moved leaf_cost: a_path -> b_path\n%s", why);
	ck_assert_msg(count_large(d, rel, 1.0) == 0, "no other shift of a point or more\n%s", why);
	/* the callee's own inclusive cost did not change: by no more than
	 * perf report sees it change in the same runs.  That is ~0, but one
	 * CI run recorded 53 % against 47 %: the runs themselves drift. */
	const pd_diff_row *leaf = find_row(d, PD_DIFF_CHILDREN, "leaf_cost", "diff_move");
	ck_assert_msg(leaf && leaf->base.mean > 40, "leaf_cost children ~50 %%\n%s", why);
	double perf_mean[2] = { 0, 0 };
	for (int side = 0; side < 2; side++) {
		for (size_t r = 0; r < c.nruns; r++) {
			double pc = 0, ps = 0;
			/* the base build is gone from its path: perf finds it in
			 * the build-id cache, as the sessions do */
			ck_assert_msg(perf_pct(c.runs[side][r], L.cache, "diff_move", "leaf_cost",
					       &pc, &ps),
				      "perf report of %s has no leaf_cost", c.runs[side][r]);
			perf_mean[side] += pc / (double)c.nruns;
		}
	}
	double perf_change = perf_mean[1] - perf_mean[0];
	fprintf(stderr, "leaf_cost children: %.2f -> %.2f, perf report %.2f -> %.2f\n",
		leaf->base.mean, leaf->new.mean, perf_mean[0], perf_mean[1]);
	ck_assert_msg(absd(leaf->change) < 3 + absd(perf_change) &&
			      absd(leaf->change - perf_change) < 0.5,
		      "leaf_cost children change %+.2f, perf report's %+.2f\n%s", leaf->change,
		      perf_change, why);
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

START_TEST(test_split)
{
	NEED_LAB();
	recorded c;
	RECORD_OR_SKIP("diff_split", 2, false, &c);
	pd_profile *b = side_profile(&c, 0, PD_PROFILE_KEEP_SUFFIXES, 0);
	pd_profile *n = side_profile(&c, 1, PD_PROFILE_KEEP_SUFFIXES, 0);
	pd_diff *d = diff_of(b, n, 0);
	char *why = dump(d);
	fprintf(stderr, "split (foo -> foo + foo.cold), suffixes kept:\n%s", why);
	ck_assert_msg(count_kind(d, PD_REL_SPLIT) == 1, "one split relation\n%s", why);
	const pd_diff_relation *rel = first_kind(d, PD_REL_SPLIT);
	ck_assert_msg(strcmp(str(rel->base_symbol), "foo") == 0 && rel->nbase_symbols == 1 &&
			      has_symbol(rel->new_symbols, rel->nnew_symbols, "foo.cold") &&
			      has_symbol(rel->new_symbols, rel->nnew_symbols, "foo"),
		      "split foo -> foo + foo.cold\n%s", why);
	/* foo 60 % → foo 35 % + foo.cold 25 %: nothing left once carried across */
	ck_assert_msg(absd(rel->net) < 5, "net %.2f small\n%s", rel->net, why);
	const pd_diff_row *cold = find_row(d, PD_DIFF_CHILDREN, "foo.cold", "diff_split");
	ck_assert_msg(cold && cold->change > 15 && cold->relation == rel,
		      "foo.cold's children row carries the relation\n%s", why);
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);

	/* canonical names: foo.cold is foo, and foo did not change */
	b = side_profile(&c, 0, 0, 0);
	n = side_profile(&c, 1, 0, 0);
	d = diff_of(b, n, 0);
	why = dump(d);
	fprintf(stderr, "split, canonical names:\n%s", why);
	ck_assert_msg(count_kind(d, PD_REL_SPLIT) == 0, "no split relation\n%s", why);
	const pd_diff_row *foo = find_row(d, PD_DIFF_CHILDREN, "foo", "diff_split");
	/* the new build calls foo.cold as a function of its own: a call more
	 * per step, a few points on a loaded machine (4.4 seen) */
	ck_assert_msg(foo && foo->base.mean > 40 && absd(foo->change) < 6,
		      "foo children ~60 %% on both sides\n%s", why);
	ck_assert_msg(!find_row(d, PD_DIFF_CHILDREN, "foo.cold", NULL), "no foo.cold row\n%s",
		      why);
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		ck_assert_msg(!(r->significant && r->symbol && strcmp(r->symbol, "foo") == 0),
			      "%s row %s significant (%+.2f)\n%s", pd_diff_metric_name(r->metric),
			      r->key, r->change, why);
	}
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/* ---------------------------------------------------------- A/A + oracle */

/* `perf report --children` percentages of `symbol` in dso `dso` (base
 * name): false when the row is absent. */
static bool perf_pct(const char *data, const char *buildid_dir, const char *dso,
		     const char *symbol, double *children, double *self)
{
	char cmd[3 * PATHMAX], bid[PATHMAX + 32] = "";
	if (buildid_dir)
		snprintf(bid, sizeof bid, "--buildid-dir '%s' ", buildid_dir);
	snprintf(cmd, sizeof cmd,
		 "perf %sreport -i '%s' --children --sort dso,sym -g none --stdio -q "
		 "--percent-limit 0 -t '|' 2>/dev/null",
		 bid, data);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_msg(text && st == 0, "perf report failed: %s", cmd);
	bool found = false;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		/* " 62.95% | 0.00%  |w    |[.] process" */
		char *f[4];
		size_t k = 0;
		for (char *p = line; k < 4; k++) {
			f[k] = p;
			char *bar = strchr(p, '|');
			if (!bar) {
				k++;
				break;
			}
			*bar = '\0';
			p = bar + 1;
		}
		if (k != 4)
			continue;
		char d[256], s[512];
		if (sscanf(f[2], " %255s", d) != 1 || sscanf(f[3], " [%*c] %511[^\n]", s) != 1)
			continue;
		size_t sl = strlen(s);
		while (sl && s[sl - 1] == ' ')
			s[--sl] = '\0';
		if (strcmp(d, dso) == 0 && strcmp(s, symbol) == 0) {
			*children = strtod(f[0], NULL);
			*self = strtod(f[1], NULL);
			found = true;
		}
	}
	free(text);
	return found;
}

START_TEST(test_aa)
{
	NEED_LAB();
	PD_SKIP_IF(L.aa_skip);
	const recorded c = *L.aa;
	pd_profile *b = side_profile(&c, 0, 0, 0), *n = side_profile(&c, 1, 0, 0);
	pd_diff *d = diff_of(b, n, 0);
	char *why = dump(d);
	fprintf(stderr, "A/A (app-old: diff_rename's base, 3 runs a side):\n%s", why);
	ck_assert_msg(pd_diff_test(d) == PD_DIFF_TEST_WELCH, "Welch\n%s", why);
	ck_assert_msg(pd_diff_row_count(d) > 0, "rows\n%s", why);
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		ck_assert_msg(!r->significant, "A/A: %s row %s significant (%+.2f, q %.3g)\n%s",
			      pd_diff_metric_name(r->metric), r->key, r->change, r->q_value, why);
		ck_assert_msg(r->base.nruns == 3 && r->new.nruns == 3, "3 runs a side");
	}
	ck_assert_msg(count_large(d, NULL, 1.0) == 0, "A/A: no relation of a point or more\n%s", why);
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);

	/* the values against perf report of every run, with perf's
	 * symbolization (as test_profile does) */
	unsigned compat = PD_SESSION_PERF_COMPAT | PD_SESSION_NO_INLINE;
	b = side_profile(&c, 0, PD_PROFILE_KEEP_SUFFIXES, compat);
	n = side_profile(&c, 1, PD_PROFILE_KEEP_SUFFIXES, compat);
	d = diff_of(b, n, 0);
	why = dump(d);
	static const char *const syms[] = { "main", "process", "hash_chunk", "mix_step",
					    "checksum" };
	size_t checked = 0;
	for (size_t s = 0; s < sizeof syms / sizeof *syms; s++) {
		const pd_diff_row *rc = find_row(d, PD_DIFF_CHILDREN, syms[s], "app-old");
		const pd_diff_row *rs = find_row(d, PD_DIFF_SELF, syms[s], "app-old");
		ck_assert_msg(rc && rs, "rows of %s\n%s", syms[s], why);
		for (int side = 0; side < 2; side++) {
			const pd_diff_side *vc = side ? &rc->new : &rc->base;
			const pd_diff_side *vs = side ? &rs->new : &rs->base;
			ck_assert_uint_eq(vc->nruns, c.nruns);
			double sum_c = 0, sum_s = 0, sq_c = 0;
			for (size_t r = 0; r < c.nruns; r++) {
				double pc = 0, ps = 0;
				ck_assert_msg(perf_pct(c.runs[side][r], NULL, "app-old", syms[s], &pc, &ps),
					      "perf report of %s has no %s", c.runs[side][r], syms[s]);
				ck_assert_msg(absd(vc->runs[r] - pc) <= 0.01 &&
						      absd(vs->runs[r] - ps) <= 0.01,
					      "%s side %d run %zu: children %.4f self %.4f, perf %.2f %.2f",
					      syms[s], side, r, vc->runs[r], vs->runs[r], pc, ps);
				sum_c += pc;
				sum_s += ps;
				sq_c += pc * pc;
				checked++;
			}
			double k = (double)c.nruns, mean_c = sum_c / k;
			double var_c = sq_c / k - mean_c * mean_c;
			ck_assert_msg(absd(vc->mean - mean_c) <= 0.01 && absd(vs->mean - sum_s / k) <= 0.01,
				      "%s side %d: means %.4f %.4f, perf's %.4f %.4f", syms[s], side,
				      vc->mean, vs->mean, mean_c, sum_s / k);
			/* population stddev: compare variances (no sqrt, no libm) */
			ck_assert_msg(absd(vc->stddev * vc->stddev - (var_c > 0 ? var_c : 0)) <=
					      0.02 * (vc->stddev + 0.5),
				      "%s side %d: stddev %.4f, perf's variance %.4f", syms[s], side,
				      vc->stddev, var_c);
			ck_assert_msg(absd(rc->change - (rc->new.mean - rc->base.mean)) < 1e-9,
				      "change is new - base");
		}
	}
	fprintf(stderr, "A/A oracle: %zu run values of children/self matched perf report\n",
		checked);
	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

/* A side read with its binaries hidden (`symfs`, an empty directory):
 * every user frame stays unnamed, one frame per address unless pflags
 * merge them. */
static pd_profile *blind_profile(const recorded *c, int side, unsigned pflags,
				 const char *symfs)
{
	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	o.flags = pflags;
	so.buildid_dir = symfs; /* nor in a build-id cache */
	so.symfs = symfs;
	o.session = &so;
	pd_profile *p = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	for (size_t r = 0; r < c->nruns; r++)
		ck_assert_msg(pd_profile_add_file(p, c->runs[side][r], &err) == 0, "%s",
			      err.message);
	return p;
}

/* The flat entries of `dso` without a name: how many, and their self. */
static size_t unnamed_entries(pd_profile *p, const char *dso, uint64_t *self)
{
	const pd_flat_entry *fl;
	size_t n, k = 0;
	pd_error err;
	ck_assert_int_eq(pd_profile_flat(p, 0, &fl, &n, &err), 0);
	*self = 0;
	for (size_t i = 0; i < n; i++)
		if (fl[i].unresolved && strstr(fl[i].dso, dso)) {
			k++;
			*self += fl[i].self;
		}
	return k;
}

/* Rows of two diffs, matched by (metric, key, dso): the same values,
 * tests and relations. */
static void same_rows(const pd_diff *a, const pd_diff *b)
{
	ck_assert_uint_eq(pd_diff_row_count(a), pd_diff_row_count(b));
	ck_assert_double_eq_tol(pd_diff_noise(a, 0), pd_diff_noise(b, 0), 1e-9);
	ck_assert_double_eq_tol(pd_diff_noise(a, 1), pd_diff_noise(b, 1), 1e-9);
	for (size_t i = 0; i < pd_diff_row_count(a); i++) {
		const pd_diff_row *x = pd_diff_row_at(a, i), *y = NULL;
		for (size_t j = 0; j < pd_diff_row_count(b) && !y; j++) {
			const pd_diff_row *c = pd_diff_row_at(b, j);
			if (c->metric == x->metric && strcmp(c->key, x->key) == 0 &&
			    strcmp(str(c->dso), str(x->dso)) == 0)
				y = c;
		}
		ck_assert_msg(y, "row %s %s missing", pd_diff_metric_name(x->metric), x->key);
		ck_assert_double_eq_tol(x->base.mean, y->base.mean, 1e-9);
		ck_assert_double_eq_tol(x->new.mean, y->new.mean, 1e-9);
		ck_assert_double_eq_tol(x->p_value, y->p_value, 1e-9);
		ck_assert_int_eq(x->significant, y->significant);
		ck_assert_int_eq(!x->relation, !y->relation);
	}
}

/* `perfdiff diff --format=json --all`'s writing of diff `d`. */
static int write_json_all(pd_writer *w, void *d, pd_error *err)
{
	pd_diff_write_options o;
	pd_diff_write_options_init(&o, PD_DIFF_WRITE_OPTIONS_VERSION);
	o.format = PD_FORMAT_JSON;
	o.all = true;
	return pd_diff_write(w, d, &o, err);
}

/* PD_PROFILE_MERGE_UNRESOLVED: one frame per dso where the binaries are
 * hidden, and the very diff of the profiles that keep every address,
 * byte for byte (the diff's tree is walked in name order). */
START_TEST(test_merge_unresolved)
{
	NEED_LAB();
	PD_SKIP_IF(L.aa_skip);
	char symfs[PATHMAX];
	snprintf(symfs, sizeof symfs, "%s/empty-symfs", L.dir);
	ck_assert(mkdir(symfs, 0755) == 0 || errno == EEXIST);
	pd_profile *p[2][2];
	for (int merge = 0; merge < 2; merge++)
		for (int side = 0; side < 2; side++)
			p[merge][side] = blind_profile(L.aa, side, merge ? PD_PROFILE_MERGE_UNRESOLVED : 0,
						       symfs);
	for (int side = 0; side < 2; side++) {
		uint64_t all, one;
		size_t n_all = unnamed_entries(p[0][side], "app-old", &all);
		size_t n_one = unnamed_entries(p[1][side], "app-old", &one);
		fprintf(stderr, "merge: side %d: app-old's %zu unnamed addresses are 1 entry\n", side,
			n_all);
		ck_assert_uint_ge(n_all, 5);
		ck_assert_uint_eq(n_one, 1);
		ck_assert_uint_eq(all, one);
		ck_assert_uint_eq(pd_profile_total(p[0][side], 0, SIZE_MAX),
				  pd_profile_total(p[1][side], 0, SIZE_MAX));
	}
	pd_diff *d[2];
	for (int merge = 0; merge < 2; merge++)
		d[merge] = diff_of(p[merge][0], p[merge][1], 0);
	ck_assert_uint_gt(pd_diff_row_count(d[0]), 10);
	same_rows(d[0], d[1]);
	same_rows(d[1], d[0]);
	char *json[2] = { pd_test_written(write_json_all, d[0]),
			  pd_test_written(write_json_all, d[1]) };
	ck_assert_str_eq(json[0], json[1]);
	free(json[0]);
	free(json[1]);
	for (int merge = 0; merge < 2; merge++) {
		pd_diff_free(d[merge]);
		pd_profile_free(p[merge][0]);
		pd_profile_free(p[merge][1]);
	}
}
END_TEST

/* The renamed workload under another name: new/app-new (PD_NEW) recorded
 * 2 times against the first 2 runs of the A/A case's old/app-old. */
START_TEST(test_renamed_binary)
{
	NEED_LAB();
	PD_SKIP_IF(L.aa_skip);
	recorded c;
	memset(&c, 0, sizeof c);
	c.nruns = 2;
	char dir[PATHMAX / 2], src[PATHMAX];
	snprintf(dir, sizeof dir, "%s/renamed-binary", L.dir);
	snprintf(c.bin, PATHMAX, "%s/new/app-new", dir);
	char newdir[PATHMAX];
	snprintf(newdir, PATHMAX, "%s/new", dir);
	pd_test_mkdirs(newdir);
	snprintf(src, PATHMAX, "%s/diff_rename.c", WORKLOAD_DIR);
	if (!pd_test_compile("cc", WFLAGS " -DPD_NEW", c.bin, src))
		PD_SKIP("renamed binary: cannot build the workload");
	const char *why_rec = record_runs(&c, 1, dir, c.bin, 2);
	PD_SKIP_IF(why_rec);
	for (size_t r = 0; r < 2; r++)
		snprintf(c.runs[0][r], PATHMAX, "%s", L.aa->runs[0][r]);

	pd_profile *b = side_profile(&c, 0, 0, 0), *n = side_profile(&c, 1, 0, 0);
	pd_diff *d = diff_of(b, n, 0);
	char *why = dump(d);
	fprintf(stderr, "renamed binary (old/app-old -> new/app-new):\n%s", why);

	/* the pair: each dso costs on one side only, their names mostly shared
	 * ({main, process, mix_step, checksum} and maybe now_ms; hash_* not:
	 * 4 of 5, 5 of 6, or 4 of 6 when now_ms, seldom sampled, shows on one
	 * side only) */
	ck_assert_msg(pd_diff_dso_pair_count(d) == 1, "one dso pair\n%s", why);
	const char *bd = NULL, *nd = NULL;
	double sim = -1;
	ck_assert(pd_diff_dso_pair_at(d, 0, &bd, &nd, &sim));
	ck_assert_str_eq(base_name(bd), "app-old");
	ck_assert_str_eq(nd, c.bin);
	ck_assert_msg(sim >= 0.66 && sim < 1, "similarity %.3f: 4 of 5, 5 of 6 or 4 of 6", sim);
	ck_assert(!pd_diff_dso_pair_at(d, 1, NULL, NULL, NULL));

	/* the rename inside it, named by the base's dso */
	ck_assert_msg(count_kind(d, PD_REL_RENAMED) == 1, "one renamed relation\n%s", why);
	const pd_diff_relation *rel = first_kind(d, PD_REL_RENAMED);
	ck_assert_msg(strcmp(str(rel->base_symbol), "hash_chunk") == 0 &&
			      strcmp(str(rel->new_symbol), "hash_block") == 0,
		      "renamed hash_chunk -> hash_block\n%s", why);
	ck_assert_str_eq(base_name(rel->dso), "app-old");
	ck_assert_msg(count_large(d, rel, 1.0) == 0, "no other shift of a point or more\n%s", why);

	/* the unchanged functions: one row each, both sides filled, nothing
	 * significant (their own ~35 % / ~30 % / ~100 % in both builds) */
	static const char *const same[] = { "main", "process", "mix_step", "checksum" };
	for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
		const pd_diff_row *r = find_row(d, PD_DIFF_CHILDREN, same[i], "app-old");
		ck_assert_msg(r && r->base.mean > 20 && r->new.mean > 20 && absd(r->change) < 5,
			      "%s: children on both sides of app-old\n%s", same[i], why);
	}
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		ck_assert_msg(!r->dso || strcmp(base_name(r->dso), "app-new") != 0,
			      "row %s named by the new dso", r->key);
		/* a calltrace through the renamed function changes key, rightly */
		if (r->metric == PD_DIFF_CALLTRACE && strstr(r->key, "hash_"))
			continue;
		for (size_t k = 0; k < sizeof same / sizeof *same; k++)
			ck_assert_msg(!(r->significant && r->symbol && strcmp(r->symbol, same[k]) == 0),
				      "%s row %s significant (%+.2f, q %.3g)\n%s",
				      pd_diff_metric_name(r->metric), r->key, r->change, r->q_value,
				      why);
	}

	/* the CLI says which dsos it took for one program */
	char args[4 * PATHMAX + 64];
	snprintf(args, sizeof args, "'%s' '%s' -- '%s' '%s'", c.runs[0][0], c.runs[0][1],
		 c.runs[1][0], c.runs[1][1]);
	int st;
	char *err = NULL, *out = pd_test_cli(L.dir, args, &st, &err);
	char line[2 * PATHMAX + 64];
	snprintf(line, sizeof line, "\ndso: %s ~ %s (%.0f %% of symbol names shared)\n", bd, nd,
		 100 * sim);
	ck_assert_msg(out && strstr(out, line), "text lacks '%s':\n%s\n%s", line, str(out),
		      str(err));
	free(out);
	free(err);
	snprintf(args, sizeof args, "diff --format=json '%s' '%s' -- '%s' '%s'", c.runs[0][0],
		 c.runs[0][1], c.runs[1][0], c.runs[1][1]);
	out = pd_test_cli(L.dir, args, &st, &err);
	json_error_t jerr;
	json_t *j = out ? json_loads(out, 0, &jerr) : NULL;
	ck_assert_msg(j, "JSON: %s", str(err));
	json_t *pairs = json_object_get(j, "dso_pairs");
	ck_assert_msg(json_is_array(pairs) && json_array_size(pairs) == 1, "dso_pairs: %s", out);
	json_t *p0 = json_array_get(pairs, 0);
	ck_assert_str_eq(json_string_value(json_object_get(p0, "base_dso")), bd);
	ck_assert_str_eq(json_string_value(json_object_get(p0, "new_dso")), nd);
	ck_assert(absd(json_number_value(json_object_get(p0, "similarity")) - sim) < 1e-9);
	json_decref(j);
	free(out);
	free(err);

	pd_diff_free(d);
	free(why);
	pd_profile_free(b);
	pd_profile_free(n);
}
END_TEST

START_TEST(test_options_and_names)
{
	pd_diff_options o;
	pd_diff_options_init(&o, PD_DIFF_OPTIONS_VERSION);
	ck_assert_uint_eq(o.version, PD_DIFF_OPTIONS_VERSION);
	ck_assert_uint_eq(o.depth, 5);
	ck_assert(absd(o.fdr - 0.05) < 1e-12);
	ck_assert(absd(o.rename_score - 0.6) < 1e-12 && absd(o.cost_tolerance - 0.25) < 1e-12);
	ck_assert_str_eq(pd_diff_metric_name(PD_DIFF_CALLTRACE), "calltrace");
	ck_assert_str_eq(pd_diff_metric_name(PD_DIFF_TREE), "tree");
	ck_assert_str_eq(pd_diff_metric_name(PD_DIFF_SHIFT), "shift");
	ck_assert_ptr_null(pd_diff_metric_name((pd_diff_metric)5));
	ck_assert_str_eq(pd_diff_relation_kind_name(PD_REL_RENAMED), "renamed");
	ck_assert_str_eq(pd_diff_relation_kind_name(PD_REL_MOVED), "moved");
	ck_assert_ptr_null(pd_diff_relation_kind_name((pd_diff_relation_kind)6));
}
END_TEST

static Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *unit = tcase_create("unit");
	tcase_add_test(unit, test_options_and_names);
	suite_add_tcase(s, unit);
	TCase *lab = tcase_create("recorded");
	tcase_add_unchecked_fixture(lab, lab_setup, lab_teardown);
	tcase_set_timeout(lab, 600);
	tcase_add_test(lab, test_renamed);
	tcase_add_test(lab, test_no_align);
	tcase_add_test(lab, test_inlined);
	tcase_add_test(lab, test_moved);
	tcase_add_test(lab, test_split);
	tcase_add_test(lab, test_aa);
	tcase_add_test(lab, test_renamed_binary);
	tcase_add_test(lab, test_merge_unresolved);
	suite_add_tcase(s, lab);
	return s;
}

int main(void)
{
	return pd_test_main(diff_suite());
}
