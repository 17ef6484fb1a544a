/*
 * Peek (pd_profile_peek(), pd_diff_peek(); `report --peek`, `diff
 * --peek`) on two builds of tests/workloads/diff_rename.c recorded at
 * test time, hash_chunk renamed hash_block: the diff's peek of the old
 * name is one block naming both, with the rename among its relations,
 * and each side's callers, callees, self and cum are, period for period,
 * what `go tool pprof -peek` prints of that side's pprof export (in ns).
 * The report's peek of a recursive function (tests/workloads/profile.c's
 * rec) against pprof's too: self-calls are no edge, an edge counts once
 * per sample.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATHMAX 4096
#define RENAME PD_TEST_DATA_DIR "/../workloads/diff_rename.c"
#define PROFILE PD_TEST_DATA_DIR "/../workloads/profile.c"
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"
#define GOENV "GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-buildvcs=false GO111MODULE=off "
#define MIN_SAMPLES 400

static char *dir;

/* `perfdiff ARGS` in the lab, read (exit 0 or 1): its stdout. */
#define cli(...) pd_test_cli_read(dir, __VA_ARGS__)

static json_t *parse(char *out)
{
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	ck_assert_msg(j, "not JSON (%s): %.300s", je.text, out);
	free(out);
	return j;
}

static uint64_t u64(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	ck_assert_msg(json_is_integer(v), "no integer %s", k);
	return (uint64_t)json_integer_value(v);
}

static uint64_t samples_of(const char *data)
{
	json_t *j = parse(cli("report --format=json '%s'", data));
	json_t *ev = json_array_get(json_object_get(j, "events"), 0);
	uint64_t n = ev ? u64(ev, "samples") : 0;
	json_decref(j);
	return n;
}

/* `src` built with `flags` as `name`, recorded as `name`.data (again
 * while too small), exported as `name`.pb.gz. */
static bool record(const char *src, const char *flags, const char *name, const char *ms)
{
	char bin[PATHMAX], data[PATHMAX + 8], w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/%s", dir, name);
	ck_assert(pd_test_compile("cc", flags, bin, src));
	snprintf(w, sizeof w, "'%s' %s", bin, ms);
	snprintf(data, sizeof data, "%s.data", bin);
	for (int tries = 0; tries < 3; tries++) {
		if (!pd_test_perf_record(data, "-q -N -e cpu-clock -g", w))
			return false;
		if (samples_of(data) >= MIN_SAMPLES)
			break;
	}
	free(cli("report --format=pprof -o '%s.pb.gz' '%s'", bin, data));
	return true;
}

static void setup(void)
{
	if (pd_test_lab_open(true, &dir))
		return;
	ck_assert_int_eq(chdir(dir), 0);
	if (!record(RENAME, WFLAGS, "old", "400") ||
	    !record(RENAME, WFLAGS " -DPD_NEW", "new", "400") ||
	    !record(PROFILE, WFLAGS " -no-pie", "prof", "400")) {
		pd_test_lab_close(dir);
		dir = NULL;
	}
}

static void teardown(void)
{
	if (chdir("/") != 0)
		perror("chdir");
	pd_test_lab_close(dir);
	dir = NULL;
}

#define NEED_LAB()                                                             \
	do {                                                                   \
		if (!dir)                                                      \
			PD_SKIP("perf record -e cpu-clock -g or cc unavailable"); \
	} while (0)

static bool have_go(void)
{
	return pd_test_sh_ok(GOENV "go version >/dev/null 2>&1");
}

/* What pprof's -peek says of one function. */
typedef struct edge {
	char name[256];
	unsigned long long period;
} edge;

typedef struct gopeek {
	unsigned long long self, cum;
	edge callers[64], callees[64];
	size_t ncallers, ncallees;
} gopeek;

/* `go tool pprof -peek='^FN$'` of `export` in ns: the block of FN. */
static void go_peek(const char *export, const char *fn, gopeek *g)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, GOENV "go tool pprof -peek='^%s$' -sample_index=1 -unit=ns "
		 "-nodefraction=0 -edgefraction=0 '%s' 2>/dev/null", fn, export);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_msg(st == 0, "%s: status %d", cmd, st);
	memset(g, 0, sizeof *g);
	bool found = false, after = false;
	const char *line = strstr(out, "calls% + context");
	ck_assert_msg(line, "no peek: %s", out);
	for (line = strchr(line, '\n'); line && *++line;) {
		const char *bar = strchr(line, '|'), *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (bar && (!nl || bar < nl) && strncmp(line, "------", 6) != 0) {
			const char *name = bar + 1;
			bool is_edge = strncmp(name, "   ", 3) == 0;
			while (*name == ' ')
				name++;
			int nlen = (int)(line + len - name);
			if (!is_edge) {
				found = true;
				after = true;
				char flat[64], flatp[32], sum[32], cum[64];
				ck_assert(sscanf(line, "%63s %31s %31s %63s", flat, flatp, sum, cum) == 4);
				g->self = strtoull(flat, NULL, 10);
				g->cum = strtoull(cum, NULL, 10);
			} else {
				edge *e = after ? &g->callees[g->ncallees++] : &g->callers[g->ncallers++];
				snprintf(e->name, sizeof e->name, "%.*s", nlen, name);
				e->period = strtoull(line, NULL, 10);
				ck_assert(g->ncallers < 64 && g->ncallees < 64);
			}
		}
		line = nl;
	}
	ck_assert_msg(found, "%s not in pprof's peek: %s", fn, out);
	free(out);
}

/* Our lines `lines` (side `key` "base_symbol"/"symbol", period key `pk`)
 * against pprof's edges: the same names, each the same period. */
static void same_edges(json_t *lines, const char *key, const char *pk, const edge *v, size_t n,
		       const char *what)
{
	size_t ours = 0, i;
	json_t *l;
	json_array_foreach(lines, i, l) {
		const char *name = json_string_value(json_object_get(l, key));
		if (!name)
			continue;
		ours++;
		bool seen = false;
		for (size_t k = 0; k < n && !seen; k++)
			if (strcmp(v[k].name, name) == 0) {
				seen = true;
				ck_assert_msg(u64(l, pk) == v[k].period, "%s %s: %llu, pprof %llu",
					      what, name, (unsigned long long)u64(l, pk), v[k].period);
			}
		ck_assert_msg(seen, "%s %s: not in pprof's peek", what, name);
	}
	ck_assert_msg(ours == n, "%s: %zu lines, pprof %zu", what, ours, n);
}

START_TEST(test_diff_peek_renamed)
{
	NEED_LAB();
	json_t *d = parse(cli("diff --format=json --peek='^hash_chunk$' old.data new.data"));
	json_t *fns = json_object_get(json_object_get(d, "peek"), "functions");
	ck_assert_msg(json_array_size(fns) == 1, "%zu blocks for hash_chunk",
		      json_array_size(fns));
	json_t *e = json_array_get(fns, 0), *fn = json_object_get(e, "function");
	ck_assert_str_eq(json_string_value(json_object_get(fn, "base_symbol")), "hash_chunk");
	ck_assert_str_eq(json_string_value(json_object_get(fn, "new_symbol")), "hash_block");
	bool renamed = false;
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(e, "relations"), i, r)
		renamed |= strcmp(json_string_value(json_object_get(r, "kind")), "renamed") == 0;
	ck_assert_msg(renamed, "no rename among the relations");
	/* callers and callees aligned: process and mix_step on both sides */
	const char *lists[] = { "callers", "callees" }, *want[] = { "process", "mix_step" };
	for (int k = 0; k < 2; k++) {
		bool both = false;
		json_array_foreach(json_object_get(e, lists[k]), i, r) {
			const char *b = json_string_value(json_object_get(r, "base_symbol"));
			const char *n = json_string_value(json_object_get(r, "new_symbol"));
			both |= b && n && strcmp(b, want[k]) == 0 && strcmp(n, want[k]) == 0;
		}
		ck_assert_msg(both, "%s is not one line of both sides' %s", want[k], lists[k]);
	}
	char *txt = cli("diff --peek='^hash_chunk$' old.data new.data");
	ck_assert_msg(strstr(txt, "| hash_chunk -> hash_block [old]"), "%s", txt);
	free(txt);
	if (!have_go()) {
		json_decref(d);
		PD_SKIP("go (golang-go) is not installed");
	}
	/* each side as go tool pprof -peek shows its own export */
	const char *sides[] = { "base", "new" }, *names[] = { "hash_chunk", "hash_block" };
	const char *exports[] = { "old.pb.gz", "new.pb.gz" };
	for (int s = 0; s < 2; s++) {
		gopeek g;
		go_peek(exports[s], names[s], &g);
		char key[32], pk[32], self[32];
		snprintf(key, sizeof key, "%s_symbol", sides[s]);
		snprintf(pk, sizeof pk, "%s_period", sides[s]);
		snprintf(self, sizeof self, "%s_self", sides[s]);
		ck_assert_uint_eq(u64(fn, pk), g.cum);
		ck_assert_uint_eq(u64(e, self), g.self);
		same_edges(json_object_get(e, "callers"), key, pk, g.callers, g.ncallers, "callers");
		same_edges(json_object_get(e, "callees"), key, pk, g.callees, g.ncallees, "callees");
	}
	json_decref(d);
}
END_TEST

/* A report's peek of recursive and two-caller functions, against pprof. */
START_TEST(test_report_peek)
{
	NEED_LAB();
	if (!have_go())
		PD_SKIP("go (golang-go) is not installed");
	json_t *j = parse(cli("report --format=json --peek='^(rec|leaf_a|leaf_b)$' prof.data"));
	json_t *ev = json_array_get(json_object_get(j, "events"), 0);
	json_t *fns = json_object_get(json_object_get(ev, "peek"), "functions");
	ck_assert_uint_eq(json_array_size(fns), 3);
	size_t i;
	json_t *e;
	json_array_foreach(fns, i, e) {
		json_t *fn = json_object_get(e, "function");
		const char *name = json_string_value(json_object_get(fn, "symbol"));
		gopeek g;
		go_peek("prof.pb.gz", name, &g);
		ck_assert_uint_eq(u64(fn, "period"), g.cum);
		ck_assert_uint_eq(u64(e, "self"), g.self);
		same_edges(json_object_get(e, "callers"), "symbol", "period", g.callers, g.ncallers,
			   name);
		same_edges(json_object_get(e, "callees"), "symbol", "period", g.callees, g.ncallees,
			   name);
		if (strcmp(name, "rec") == 0) {  /* no rec -> rec edge */
			size_t k;
			json_t *l;
			json_array_foreach(json_object_get(e, "callers"), k, l)
				ck_assert_str_ne(json_string_value(json_object_get(l, "symbol")), "rec");
		}
	}
	json_decref(j);
	char *txt = cli("report --peek='^leaf_a$' prof.data");
	ck_assert_msg(strstr(txt, "| leaf_a [prof]") && strstr(txt, "|   path_a"), "%s", txt);
	free(txt);
}
END_TEST

START_TEST(test_peek_refused)
{
	NEED_LAB();
	int st;
	char *err = NULL;
	free(pd_test_cli(dir, "report --peek='(' prof.data", &st, &err));
	ck_assert_int_eq(st, 2);
	ck_assert_msg(err && strstr(err, "bad regular expression"), "%s", err);
	free(err);
	err = NULL;
	free(pd_test_cli(dir, "diff --format=csv --peek=x old.data new.data", &st, &err));
	ck_assert_int_eq(st, 2);
	ck_assert_msg(err && strstr(err, "peek is written as text or JSON"), "%s", err);
	free(err);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("peek");
	TCase *tc = tcase_create("recorded");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_diff_peek_renamed);
	tcase_add_test(tc, test_report_peek);
	tcase_add_test(tc, test_peek_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
