/*
 * Truncated DWARF-unwound stacks: the library's per-dso count
 * (pd_session_truncated()) and how `perfdiff dump --stats` reports it
 * (unwound_samples, truncated: [{dso, samples}], and the text section).
 *
 * tests/workloads/threads.c runs the same shallow stack in the main thread
 * and in two pthreads; it is recorded here with
 * `perf record -N -e cpu-clock --call-graph dwarf`:
 *
 *   - with perf's default 8 KiB stack copy every stack fits.  A thread's
 *     stack ends in glibc's clone3, whose CFI marks the return address
 *     undefined: libdw then stops without an error, and that is the end of
 *     the stack, not a truncation.  Oracle: `perf script`, whose chain for
 *     the same sample (tid, time) ends in clone3 or _start.  A sample we
 *     count as truncated where perf's chain reaches one of those is a
 *     false truncation, and there must be none.  (The dynamic loader's
 *     _start has no CFI at all, so the few samples taken while ld.so
 *     relocates the program stop there for both; libdw reports an error
 *     there, and the library counts a stop in a file's entry code as the
 *     end of the stack.)
 *   - with `--call-graph dwarf,128` no stack fits: most samples must be
 *     counted, against the workload's binary or libc, and perf's chains
 *     must be cut for the samples we count.
 *   - without --call-graph nothing is unwound: zero and an empty list.
 *   - a loop starting /bin/true: most user samples are taken while ld.so
 *     loads the program, and perf's chain for them ends in ld.so's _start
 *     (its entry code, which has no CFI).  None of those may count as
 *     truncated (libdw stops there with an error; before the library
 *     knew entry code, 2112 of 2854 such stacks were counted).
 *
 * The per-sample truncated flag is the growth of the session's total
 * across one pd_session_next() (the count is kept as samples are
 * resolved).  The CLI's figures must equal the library's totals.
 */
#include "testutil.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdiff/session.h"

#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#define PATHMAX 4096

static char *lab;
static const char *skip_why;
static char bin[PATHMAX], full[PATHMAX], cut128[PATHMAX], plain[PATHMAX], startup[PATHMAX];

static void setup(void)
{
	skip_why = pd_test_lab_open(true, &lab);
	if (skip_why)
		return;
	char w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/threads", lab);
	if (!pd_test_compile("cc", "-O1 -g -pthread", bin, WORKLOAD_DIR "/threads.c")) {
		skip_why = "cannot compile tests/workloads/threads.c";
		return;
	}
	snprintf(w, sizeof w, "'%s' 300", bin);
	snprintf(full, sizeof full, "%s/full.data", lab);
	snprintf(cut128, sizeof cut128, "%s/cut128.data", lab);
	snprintf(plain, sizeof plain, "%s/plain.data", lab);
	if (!pd_test_perf_record(full, "-N -e cpu-clock --call-graph dwarf", w) ||
	    !pd_test_perf_record(cut128, "-N -e cpu-clock --call-graph dwarf,128", w))
		skip_why = "perf record --call-graph dwarf failed";
	else if (!pd_test_perf_record(plain, "-N -e cpu-clock", w))
		skip_why = "perf record failed";
	/* processes that do little but start: most user samples are in the
	 * dynamic loader, their stacks ending in its _start */
	snprintf(startup, sizeof startup, "%s/startup.data", lab);
	if (!skip_why &&
	    !pd_test_perf_record(startup, "-N -e cpu-clock -F 10000 --call-graph dwarf",
				 "sh -c 'i=0; while [ $i -lt 150 ]; do /bin/true; i=$((i+1)); done'"))
		skip_why = "perf record --call-graph dwarf failed";
}

static void teardown(void)
{
	pd_test_lab_close(lab);
	lab = NULL;
}

/* ------------------------------------------------------- perf's chains */

typedef struct perf_chain {
	uint32_t tid;
	uint64_t time;
	bool outer;      /* the last frame is an outermost one */
	char last[64];   /* its name */
} perf_chain;

typedef struct perf_chains {
	size_t n, cap;
	perf_chain *v;
} perf_chains;

/* Where glibc's stacks end: CFI that marks the return address undefined. */
static bool outermost(const char *sym)
{
	static const char *const names[] = { "_start", "clone3", "__clone3", "clone",
					     "__clone" };
	for (size_t i = 0; sym && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(sym, names[i]) == 0)
			return true;
	return false;
}

static int by_tid_time(const void *a, const void *b)
{
	const perf_chain *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* perf's chains of `data`, by (tid, time); only the last frame is kept. */
static void perf_chains_of(const char *data, perf_chains *out)
{
	pd_test_pstacks st;
	ck_assert_msg(pd_test_perf_stacks(data, &st), "perf script failed on %s", data);
	memset(out, 0, sizeof *out);
	out->v = calloc(st.n ? st.n : 1, sizeof *out->v);
	ck_assert_ptr_nonnull(out->v);
	for (size_t i = 0; i < st.n; i++) {
		perf_chain *c = &out->v[out->n++];
		c->tid = st.v[i].tid;
		c->time = st.v[i].time;
		if (st.v[i].n) {
			snprintf(c->last, sizeof c->last, "%s", st.v[i].f[st.v[i].n - 1].name);
			c->outer = outermost(c->last);
		}
	}
	out->cap = out->n;
	pd_test_pstacks_free(&st);
	qsort(out->v, out->n, sizeof *out->v, by_tid_time);
}

static const perf_chain *find_chain(const perf_chains *c, uint32_t tid, uint64_t time)
{
	perf_chain key = { .tid = tid, .time = time };
	return bsearch(&key, c->v, c->n, sizeof *c->v, by_tid_time);
}

/* ---------------------------------------------------- the library's view */

typedef struct tally {
	size_t samples, unmatched;
	size_t unwound;          /* samples with user registers and a stack copy */
	size_t cut;              /* counted truncated */
	size_t cut_perf_outer;   /* ... where perf's chain reaches the end */
	size_t perf_cut_ours;    /* perf's chain ends early, ours counted */
	size_t perf_outer;       /* perf's chain reaches the end */
	size_t thread, thread_perf_outer, thread_cut;
	size_t thread_same_end;  /* ... ending in clone3 (or an alias) here too */
	uint64_t truncated;      /* the session's final total */
	uint64_t in_bin_or_libc; /* of it, against the workload or libc */
} tally;

static uint64_t truncated_total(const pd_session *s)
{
	const pd_unresolved_count *t;
	size_t n = pd_session_truncated(s, &t);
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += t[i].samples;
	return sum;
}

static const char *last_user_symbol(const pd_resolved_sample *rs)
{
	for (size_t i = rs->nframes; i-- > 0;)
		if (rs->frames[i].cpumode == PD_CPUMODE_USER)
			return rs->frames[i].symbol;
	return NULL;
}

static bool is_libc(const char *dso)
{
	const char *base = strrchr(dso, '/');
	return strncmp(base ? base + 1 : dso, "libc.so", 7) == 0 ||
	       strncmp(base ? base + 1 : dso, "libc-", 5) == 0;
}

/* Walk `data` with `unwinder`; false when that back end is not built in. */
static bool walk(const char *data, pd_unwinder unwinder, const perf_chains *perf, tally *t)
{
	memset(t, 0, sizeof *t);
	pd_session_options o;
	pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
	o.unwinder = unwinder;
	pd_session *s;
	pd_error err;
	int rc = pd_session_open(&s, data, &o, &err);
	if (rc == PD_EUNSUPPORTED)
		return false;
	ck_assert_msg(rc == 0, "%s", err.message);
	const pd_resolved_sample *rs;
	uint64_t before = 0;
	const uint64_t both = PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		t->samples++;
		uint64_t now = truncated_total(s);
		bool cut = now > before;
		ck_assert_uint_le(now - before, 1);
		before = now;
		const pd_sample *smp = &rs->record->u.sample;
		bool unwound = (smp->sample_type & both) == both && smp->regs_user_abi != 0;
		t->unwound += unwound;
		ck_assert_msg(unwound || !cut, "a sample without a user stack counted truncated");
		t->cut += cut;
		const perf_chain *p = find_chain(perf, rs->tid, rs->time);
		if (!p) {
			t->unmatched++;
			continue;
		}
		bool thread = rs->tid != rs->pid;
		t->perf_outer += p->outer;
		t->cut_perf_outer += cut && p->outer;
		if (cut && p->outer && t->cut_perf_outer <= 3) {
			/* what the assertions below will be about */
			fprintf(stderr, "    tid %" PRIu32 " time %" PRIu64 ": perf ends in %s, "
				"ours (%zu frames) in:\n", rs->tid, rs->time, p->last, rs->nframes);
			for (size_t i = rs->nframes > 4 ? rs->nframes - 4 : 0; i < rs->nframes; i++)
				fprintf(stderr, "      %#" PRIx64 " %s (%s)\n", rs->frames[i].addr,
					rs->frames[i].symbol ? rs->frames[i].symbol : "?",
					rs->frames[i].dso);
		}
		t->perf_cut_ours += cut && !p->outer;
		t->thread += thread;
		if (thread && p->outer) {
			t->thread_perf_outer++;
			t->thread_cut += cut;
			const char *last = last_user_symbol(rs);
			t->thread_same_end += outermost(last);
		}
	}
	ck_assert_int_eq(rc, PD_ITEROVER);
	t->truncated = truncated_total(s);
	const pd_unresolved_count *c;
	size_t nc = pd_session_truncated(s, &c);
	for (size_t i = 0; i < nc; i++) {
		fprintf(stderr, "    truncated in %s: %" PRIu64 "\n", c[i].dso, c[i].samples);
		if (strcmp(c[i].dso, bin) == 0 || is_libc(c[i].dso))
			t->in_bin_or_libc += c[i].samples;
	}
	pd_session_free(s);
	fprintf(stderr,
		"%s, %s: %zu samples (%zu not in perf script), %zu unwound, %zu truncated "
		"(%zu where perf reaches clone3/_start, %zu where perf's chain ends early "
		"too); perf reaches clone3/_start in %zu; threads: %zu samples, %zu "
		"reaching clone3 in perf, of those %zu truncated here, %zu ending in the "
		"same frame here\n",
		data, unwinder == PD_UNWINDER_LIBDW ? "libdw" : "libunwind", t->samples,
		t->unmatched, t->unwound, t->cut, t->cut_perf_outer, t->perf_cut_ours,
		t->perf_outer, t->thread, t->thread_perf_outer, t->thread_cut,
		t->thread_same_end);
	ck_assert_uint_eq(t->truncated, t->cut);
	return true;
}

/* ------------------------------------------------------------ the CLI */

static json_t *stats_json(const char *data)
{
	char args[PATHMAX + 64];
	snprintf(args, sizeof args, "dump --stats --format=json '%s'", data);
	int st;
	char *err = NULL;
	char *out = pd_test_cli(lab, args, &st, &err);
	ck_assert_msg(st == 0, "%s: status %d: %s", args, st, err);
	json_error_t jerr;
	json_t *j = json_loads(out, 0, &jerr);
	ck_assert_msg(j != NULL, "invalid JSON (%s): %.200s", jerr.text, out);
	free(out);
	free(err);
	return j;
}

static char *stats_text(const char *data)
{
	char args[PATHMAX + 64];
	snprintf(args, sizeof args, "dump --stats '%s'", data);
	int st;
	char *out = pd_test_cli(lab, args, &st, NULL);
	ck_assert_msg(st == 0, "%s: status %d", args, st);
	return out;
}

static uint64_t jint(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	ck_assert_msg(json_is_integer(v), "key %s is not an integer", key);
	return (uint64_t)json_integer_value(v);
}

/* The CLI's unwound_samples and truncated list are the library's, most
 * samples first; returns the top dso (caller frees) or NULL. */
static char *check_cli(const char *data, const tally *t)
{
	json_t *j = stats_json(data);
	ck_assert_uint_eq(jint(j, "unwound_samples"), t->unwound);
	json_t *a = json_object_get(j, "truncated");
	ck_assert(json_is_array(a));
	uint64_t sum = 0, first = 0;
	char *top = NULL;
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *e = json_array_get(a, i);
		const char *dso = json_string_value(json_object_get(e, "dso"));
		ck_assert_ptr_nonnull(dso);
		uint64_t n = jint(e, "samples");
		ck_assert_uint_gt(n, 0);
		if (i > 0) {
			ck_assert_uint_le(n, jint(json_array_get(a, i - 1), "samples"));
		} else {
			top = strdup(dso);
			first = n;
		}
		sum += n;
	}
	ck_assert_uint_eq(sum, t->truncated);
	json_decref(j);

	char *text = stats_text(data);
	char want[160];
	snprintf(want, sizeof want, "\nuser stacks unwound:  %zu samples, %" PRIu64 " truncated",
		 t->unwound, t->truncated);
	ck_assert_msg(strstr(text, want), "no '%s' in:\n%s", want + 1, text);
	char *sec = strstr(text, "\ntruncated stacks per dso:\n");
	ck_assert_msg(sec, "no truncated section in:\n%s", text);
	if (top) {
		char line[PATHMAX + 32];
		snprintf(line, sizeof line, "\n%12" PRIu64 "  %s\n", first, top);
		ck_assert_msg(strstr(sec, line), "no line '%s' in:\n%s", line + 1, sec);
	} else {
		ck_assert_msg(strncmp(sec, "\ntruncated stacks per dso:\n  (none)\n", 36) == 0,
			      "%s", sec);
	}
	free(text);
	return top;
}

/* ------------------------------------------------------------- tests */

/* `data` walked with each back end built in, against perf's chains of the
 * same samples: t[0] libdw, t[1] libunwind.  Returns how many were walked
 * (libunwind's back end may be left out of the build). */
static int walk_backends(const char *data, tally t[2])
{
	perf_chains perf;
	perf_chains_of(data, &perf);
	ck_assert_uint_gt(perf.n, 100);
	int n = 0;
	for (; n < 2; n++) {
		if (!walk(data, n ? PD_UNWINDER_LIBUNWIND : PD_UNWINDER_LIBDW, &perf, &t[n])) {
			fprintf(stderr, "    libunwind back end not built: skipped\n");
			break;
		}
		ck_assert_uint_eq(t[n].unmatched, 0);
	}
	free(perf.v);
	return n;
}

START_TEST(test_thread_stacks_not_truncated)
{
	PD_SKIP_IF(skip_why);
	tally tt[2];
	int n = walk_backends(full, tt);
	for (int k = 0; k < n; k++) {
		const tally t = tt[k];
		ck_assert_uint_gt(t.samples, 100);
		ck_assert_uint_eq(t.unwound, t.samples);
		/* two of the three threads are pthreads; perf ends their
		 * chains in clone3 (the oracle itself works) */
		ck_assert_uint_ge(t.thread * 2, t.samples);
		ck_assert_uint_ge(t.thread_perf_outer * 20, t.thread * 19);
		/* not counted truncated, and unwound as far as perf */
		ck_assert_msg(t.thread_cut * 20 < t.thread_perf_outer,
			      "%zu of %zu thread stacks counted truncated", t.thread_cut,
			      t.thread_perf_outer);
		ck_assert_uint_ge(t.thread_same_end * 20, t.thread_perf_outer * 19);
		ck_assert_msg(t.cut_perf_outer * 100 <= t.perf_outer,
			      "%zu of %zu stacks counted truncated where perf's ends in "
			      "clone3/_start", t.cut_perf_outer, t.perf_outer);
		if (k == 0)
			free(check_cli(full, &t));
	}
}
END_TEST

START_TEST(test_startup_stacks_not_truncated)
{
	PD_SKIP_IF(skip_why);
	tally t[2];
	int n = walk_backends(startup, t);
	for (int k = 0; k < n; k++) {
		/* the oracle: perf reaches ld.so's _start in a third or more */
		ck_assert_uint_gt(t[k].perf_outer, 100);
		/* Not none: about one in a thousand of these stacks, seen when
		 * the machine is busy, stops in ld.so's startup code where perf
		 * goes on (the stacks are printed above): on _dl_fixup's first
		 * instructions under _dl_runtime_resolve_xsavec (CFA = rbx +
		 * 32; libdw stops, libunwind goes on), and once after
		 * _dl_relocate_object's inline frames (both stop, in no map).
		 * Before the entry-code check it was a third. */
		ck_assert_msg(t[k].cut_perf_outer * 100 <= t[k].perf_outer,
			      "%zu of %zu stacks counted truncated where perf's ends in _start",
			      t[k].cut_perf_outer, t[k].perf_outer);
	}
}
END_TEST

START_TEST(test_short_stack_copy_truncated)
{
	PD_SKIP_IF(skip_why);
	tally tt[2];
	int n = walk_backends(cut128, tt);
	for (int k = 0; k < n; k++) {
		const tally t = tt[k];
		ck_assert_uint_gt(t.samples, 100);
		ck_assert_uint_eq(t.unwound, t.samples);
		/* most stacks are cut, where the workload (or libc) was running */
		ck_assert_msg(t.cut * 10 >= t.unwound * 9, "only %zu of %zu truncated", t.cut,
			      t.unwound);
		ck_assert_uint_ge(t.in_bin_or_libc * 10, t.truncated * 9);
		/* perf could not finish those either */
		ck_assert_msg(t.cut_perf_outer * 20 < t.cut, "%zu truncated here, perf "
			      "reaches clone3/_start in %zu of them", t.cut, t.cut_perf_outer);
		if (k != 0)
			continue;
		char *top = check_cli(cut128, &t);
		ck_assert_ptr_nonnull(top);
		ck_assert_msg(strcmp(top, bin) == 0 || is_libc(top), "top truncated dso %s",
			      top);
		free(top);
	}
}
END_TEST

START_TEST(test_no_call_graph_nothing_unwound)
{
	PD_SKIP_IF(skip_why);
	json_t *j = stats_json(plain);
	ck_assert_uint_gt(jint(j, "samples_symbolized"), 100);
	ck_assert_uint_eq(jint(j, "unwound_samples"), 0);
	json_t *a = json_object_get(j, "truncated");
	ck_assert(json_is_array(a));
	ck_assert_uint_eq(json_array_size(a), 0);
	json_decref(j);
	char *text = stats_text(plain);
	ck_assert_ptr_nonnull(strstr(text, "\nuser stacks unwound:  0 samples, 0 truncated\n"
					   "truncated stacks per dso:\n  (none)\n"));
	free(text);
	/* --no-symbols: no symbolizing pass, so neither key */
	char args[PATHMAX + 64];
	snprintf(args, sizeof args, "dump --stats --no-symbols --format=json '%s'", full);
	int st;
	char *out = pd_test_cli(lab, args, &st, NULL);
	ck_assert_int_eq(st, 0);
	j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_ptr_null(json_object_get(j, "unwound_samples"));
	ck_assert_ptr_null(json_object_get(j, "truncated"));
	json_decref(j);
	free(out);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stats_truncated");
	TCase *tc = tcase_create("stats_truncated");
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_thread_stacks_not_truncated);
	tcase_add_test(tc, test_short_stack_copy_truncated);
	tcase_add_test(tc, test_startup_stacks_not_truncated);
	tcase_add_test(tc, test_no_call_graph_nothing_unwound);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
