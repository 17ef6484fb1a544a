/*
 * Stack filters (--focus, --ignore, --hide, --prune-from; the profile
 * options' focus, ignore, hide and prune_from) against go tool pprof's
 * -focus, -ignore, -hide and -prune_from on the pprof export of the same
 * recording, made at test time: every function's self and children
 * (pprof's flat and cum, -relative_percentages, in ns) and the total,
 * exactly, since both read one file.  Also what the footers say was
 * removed, per-side filters in a diff, and bad expressions refused.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATHMAX 4096
#define WORKLOAD PD_TEST_DATA_DIR "/../workloads/profile.c"
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -no-pie"
/* go runs with no network and no toolchain download */
#define GOENV "GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-buildvcs=false GO111MODULE=off "
/* a recording with fewer samples is made again (a loaded machine) */
#define MIN_SAMPLES 400

static char *dir;
static char data[PATHMAX], export[PATHMAX];

/* `perfdiff ARGS` (printf-style): its stdout; fails unless it exits 0 or 1. */
/* `perfdiff ARGS` in the lab, read (exit 0 or 1): its stdout. */
#define cli(...) pd_test_cli_read(dir, __VA_ARGS__)

static json_t *cli_json(const char *args)
{
	char *out = cli("%s", args);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	ck_assert_msg(j, "perfdiff %s: not JSON (%s): %.300s", args, je.text, out);
	free(out);
	return j;
}

/* The default event of a report document. */
static json_t *default_event(json_t *report)
{
	size_t i;
	json_t *ev;
	json_array_foreach(json_object_get(report, "events"), i, ev)
		if (json_is_true(json_object_get(ev, "default")))
			return ev;
	ck_abort_msg("no default event");
	return NULL;
}

static uint64_t u64(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	ck_assert_msg(json_is_integer(v), "no integer %s", k);
	return (uint64_t)json_integer_value(v);
}

/* Record the workload until a recording has MIN_SAMPLES; export it. */
static bool record(void)
{
	/* the commands name the recording and the export relative to it */
	ck_assert_int_eq(chdir(dir), 0);
	char bin[PATHMAX], w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/profile", dir);
	ck_assert(pd_test_compile("cc", WFLAGS, bin, WORKLOAD));
	snprintf(w, sizeof w, "'%s' 400", bin);
	snprintf(data, sizeof data, "%s/p.data", dir);
	for (int tries = 0; tries < 3; tries++) {
		if (!pd_test_perf_record(data, "-q -N -e cpu-clock -g", w))
			return false;
		json_t *j = cli_json("report --format=json p.data");
		uint64_t n = u64(default_event(j), "samples");
		json_decref(j);
		if (n >= MIN_SAMPLES)
			break;
	}
	snprintf(export, sizeof export, "%s/p.pb.gz", dir);
	free(cli("report --format=pprof -o p.pb.gz p.data"));
	return true;
}

static void setup(void)
{
	const char *skip = pd_test_lab_open(true, &dir);
	if (skip || !record()) {
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

/* One function of pprof's -top: flat and cum in ns. */
typedef struct top_row {
	char name[256];
	unsigned long long flat, cum;
} top_row;

/* `go tool pprof -top` of the export with `opts`, in ns, every node:
 * its rows (*n) and the total (relative to what the filters keep). */
static top_row *go_top(const char *opts, size_t *n, unsigned long long *total)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "cd '%s' && " GOENV "go tool pprof -top -relative_percentages "
		 "-nodecount=1000000 -nodefraction=0 -edgefraction=0 -sample_index=1 -unit=ns "
		 "%s p.pb.gz 2>/dev/null", dir, opts);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_msg(st == 0, "%s: status %d", cmd, st);
	const char *t = strstr(out, "% of ");
	ck_assert_msg(t && sscanf(t, "%% of %lluns total", total) == 1, "no total: %s", out);
	top_row *v = calloc(4096, sizeof *v);
	*n = 0;
	const char *line = strstr(t, "cum%\n");
	ck_assert_ptr_nonnull(line);
	for (line = strchr(line, '\n') + 1; *line && *n < 4096;) {
		top_row *r = &v[*n];
		/* "flat flat% sum% cum cum% name", a zero printed without its
		 * unit */
		char flat[64], cum[64];
		int used = 0;
		if (sscanf(line, " %63s %*s %*s %63s %*s %n", flat, cum, &used) == 2 && used) {
			r->flat = strtoull(flat, NULL, 10);
			r->cum = strtoull(cum, NULL, 10);
			size_t len = strcspn(line + used, "\n");
			snprintf(r->name, sizeof r->name, "%.*s", (int)len, line + used);
			++*n;
		}
		const char *nl = strchr(line, '\n');
		if (!nl)
			break;
		line = nl + 1;
	}
	free(out);
	return v;
}

/* The entry of `ev` named `name`, when exactly one entry has that name
 * and it has a symbol; else NULL. */
static json_t *only_entry(json_t *ev, const char *name)
{
	json_t *found = NULL, *e;
	size_t i;
	json_array_foreach(json_object_get(ev, "entries"), i, e) {
		if (strcmp(json_string_value(json_object_get(e, "symbol")), name) != 0)
			continue;
		if (found || json_is_true(json_object_get(e, "unresolved")))
			return NULL;
		found = e;
	}
	return found;
}

/*
 * `perfdiff report OPTS` against `go tool pprof -top GO_OPTS` on the
 * export: the same total, and for every function both name once, the same
 * self (flat) and children (cum).  The workload's functions in `must`
 * (NULL-terminated) are among those compared; those in `gone` are in
 * neither.  Returns the report's event (caller frees the document in
 * *doc).
 */
static json_t *check_same(const char *opts, const char *go_opts, const char *const *must,
			  const char *const *gone, json_t **doc)
{
	char args[PATHMAX];
	snprintf(args, sizeof args, "report --format=json %s p.data", opts);
	*doc = cli_json(args);
	json_t *ev = default_event(*doc);
	size_t n;
	unsigned long long total;
	top_row *top = go_top(go_opts, &n, &total);
	ck_assert_msg(u64(ev, "period") == total, "%s: total %llu, pprof's %llu", opts,
		      (unsigned long long)u64(ev, "period"), total);
	size_t compared = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *e = only_entry(ev, top[i].name);
		if (!e)
			continue;
		ck_assert_msg(u64(e, "self") == top[i].flat && u64(e, "children") == top[i].cum,
			      "%s: %s self %llu children %llu, pprof flat %llu cum %llu", opts,
			      top[i].name, (unsigned long long)u64(e, "self"),
			      (unsigned long long)u64(e, "children"), top[i].flat, top[i].cum);
		compared++;
	}
	for (; must && *must; must++) {
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen |= strcmp(top[i].name, *must) == 0 && only_entry(ev, *must);
		ck_assert_msg(seen, "%s: %s not compared", opts, *must);
	}
	for (; gone && *gone; gone++) {
		ck_assert_msg(!only_entry(ev, *gone), "%s: %s is left", opts, *gone);
		for (size_t i = 0; i < n; i++)
			ck_assert_msg(strcmp(top[i].name, *gone) != 0, "pprof %s: %s is left",
				      go_opts, *gone);
	}
	ck_assert_msg(compared >= 3, "%s: only %zu functions compared", opts, compared);
	free(top);
	return ev;
}

/* The stack filter fact of `ev`: kind `kind`'s samples and period. */
static void fact(json_t *ev, const char *kind, uint64_t *samples, uint64_t *period)
{
	json_t *sf = json_object_get(ev, "stack_filters");
	ck_assert_msg(json_is_object(sf), "no stack_filters");
	json_t *k = json_object_get(sf, kind);
	ck_assert_msg(json_is_object(k), "no stack_filters.%s", kind);
	*samples = u64(k, "samples");
	*period = u64(k, "period");
}

/* The most frames named `name` in one stack of `go tool pprof -traces
 * GO_OPTS` on the export. */
static int go_most_in_trace(const char *go_opts, const char *name)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "cd '%s' && " GOENV "go tool pprof -traces %s p.pb.gz "
		 "2>/dev/null", dir, go_opts);
	int st, most = 0, here = 0;
	char *out = pd_test_run(cmd, &st);
	ck_assert_int_eq(st, 0);
	for (char *save = NULL, *line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "-----------+", 12) == 0) {
			here = 0;
			continue;
		}
		const char *last = strrchr(line, ' ');
		if (last && strcmp(last + 1, name) == 0 && ++here > most)
			most = here;
	}
	free(out);
	return most;
}

/* The most nodes named `name` on one path of the report's tree. */
static int most_in_path(json_t *ev, const char *name)
{
	json_t *tree = json_object_get(ev, "tree"), *node;
	size_t n = json_array_size(tree), i;
	int *depth = calloc(n ? n : 1, sizeof *depth), most = 0;
	json_array_foreach(tree, i, node) {
		json_t *parent = json_object_get(node, "parent");
		const char *sym = json_string_value(json_object_get(node, "symbol"));
		int up = json_is_integer(parent) ? depth[json_integer_value(parent)] : 0;
		depth[i] = up + (sym && strcmp(sym, name) == 0);
		most = depth[i] > most ? depth[i] : most;
	}
	free(depth);
	return most;
}

static bool have_go(void)
{
	return pd_test_sh_ok(GOENV "go version >/dev/null 2>&1");
}

static uint64_t full_period(void)
{
	json_t *j = cli_json("report --format=json p.data");
	uint64_t p = u64(default_event(j), "period");
	json_decref(j);
	return p;
}

START_TEST(test_focus_ignore)
{
	NEED_LAB();
	if (!have_go())
		PD_SKIP("go (golang-go) is not installed");
	uint64_t all = full_period(), n, period;
	json_t *doc;
	const char *must_b[] = { "path_b", "leaf_a", "leaf_b", "top", NULL };
	const char *gone_b[] = { "path_a", "rec", "clone_work", NULL };
	json_t *ev = check_same("--focus='^path_b$'", "-focus='^path_b$'", must_b, gone_b, &doc);
	/* what was dropped is what the total lost */
	fact(ev, "focus", &n, &period);
	ck_assert_uint_eq(period + u64(ev, "period"), all);
	ck_assert_uint_eq(u64(json_object_get(ev, "stack_filters"), "period_before"), all);
	ck_assert_uint_gt(n, 0);
	json_decref(doc);

	const char *must_i[] = { "path_b", "leaf_a", "rec", NULL };
	const char *gone_i[] = { "path_a", NULL };
	ev = check_same("--ignore='^path_a$'", "-ignore='^path_a$'", must_i, gone_i, &doc);
	fact(ev, "ignore", &n, &period);
	ck_assert_uint_eq(period + u64(ev, "period"), all);
	json_decref(doc);

	/* both: ignore wins over focus on a stack that has both */
	const char *must_c[] = { "top", "path_a", NULL };
	const char *gone_c[] = { "path_b", "rec", NULL };
	ev = check_same("--focus='^top$' --ignore='^path_b$'", "-focus='^top$' -ignore='^path_b$'",
			must_c, gone_c, &doc);
	json_decref(doc);
}
END_TEST

START_TEST(test_hide_prune)
{
	NEED_LAB();
	if (!have_go())
		PD_SKIP("go (golang-go) is not installed");
	uint64_t all = full_period(), n, period;
	json_t *doc;
	/* leaf_a's self goes to path_a and path_b; no sample is dropped */
	const char *must_h[] = { "path_a", "path_b", "leaf_b", NULL };
	const char *gone_h[] = { "leaf_a", NULL };
	json_t *ev = check_same("--hide='^leaf_a$'", "-hide='^leaf_a$'", must_h, gone_h, &doc);
	ck_assert_uint_eq(u64(ev, "period"), all);
	fact(ev, "hide", &n, &period);
	ck_assert_uint_gt(n, 0);
	json_decref(doc);

	/* the recursion is cut below its innermost rec: leaf_b keeps only
	 * path_b's part, and rec's children are all its own self */
	const char *must_p[] = { "rec", "leaf_b", "main", NULL };
	ev = check_same("--prune-from='^rec$'", "-prune_from='^rec$'", must_p, NULL, &doc);
	ck_assert_uint_eq(u64(ev, "period"), all);
	json_t *rec = only_entry(ev, "rec");
	ck_assert_uint_eq(u64(rec, "self"), u64(rec, "children"));
	/* kept from the innermost rec: the recursion stays, as deep as pprof's */
	int deepest = most_in_path(ev, "rec");
	ck_assert_int_gt(deepest, 1);
	ck_assert_int_eq(deepest, go_most_in_trace("-prune_from='^rec$'", "rec"));
	fact(ev, "prune_from", &n, &period);
	ck_assert_uint_gt(n, 0);
	json_decref(doc);

	/* all four at once, in pprof's order */
	const char *must_a[] = { "top", "path_b", NULL };
	const char *gone_a[] = { "leaf_b", "path_a", "leaf_a", NULL };
	ev = check_same("--focus='^top$' --ignore='^path_a$' --hide='^leaf_b$' "
			"--prune-from='^path_b$'",
			"-focus='^top$' -ignore='^path_a$' -hide='^leaf_b$' -prune_from='^path_b$'",
			must_a, gone_a, &doc);
	json_decref(doc);
}
END_TEST

/* A diff's sides filtered apart: each side's total is its report's, and
 * the footer says what each dropped. */
START_TEST(test_sides)
{
	NEED_LAB();
	json_t *a = cli_json("report --format=json --focus='^path_a$' p.data");
	json_t *b = cli_json("report --format=json --focus='^path_b$' p.data");
	json_t *d = cli_json("diff --format=json --base-focus='^path_a$' --new-focus='^path_b$' "
			     "p.data p.data");
	json_t *base = json_object_get(d, "base"), *nw = json_object_get(d, "new");
	ck_assert_uint_eq(u64(base, "total"), u64(default_event(a), "period"));
	ck_assert_uint_eq(u64(nw, "total"), u64(default_event(b), "period"));
	uint64_t n, period;
	fact(base, "focus", &n, &period);
	ck_assert_uint_eq(period + u64(base, "total"), full_period());
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(json_object_get(nw, "stack_filters"), "focus"),
				 "regex")), "^path_b$");
	char *txt = cli("diff --base-focus='^path_a$' --new-focus='^path_b$' p.data p.data");
	ck_assert_msg(strstr(txt, "stack filter --focus=^path_a$ dropped") &&
		      strstr(txt, "stack filter --focus=^path_b$ dropped"),
		      "no footer lines: %s", txt);
	free(txt);
	json_decref(a);
	json_decref(b);
	json_decref(d);
}
END_TEST

/* A bad expression, and hide with an export, are refused with a message. */
START_TEST(test_refused)
{
	NEED_LAB();
	int st;
	char *err = NULL;
	free(pd_test_cli(dir, "report --focus='(' p.data", &st, &err));
	ck_assert_int_eq(st, 2);
	ck_assert_msg(err && strstr(err, "focus: bad regular expression '('"), "%s", err);
	free(err);
	err = NULL;
	free(pd_test_cli(dir, "report --format=pprof -o x.pb.gz --prune-from=rec p.data", &st,
			 &err));
	ck_assert_int_eq(st, 2);
	ck_assert_msg(err && strstr(err, "prune_from changes stacks"), "%s", err);
	free(err);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stackfilter");
	TCase *tc = tcase_create("pprof");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_focus_ignore);
	tcase_add_test(tc, test_hide_prune);
	tcase_add_test(tc, test_sides);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
