/*
 * Rows that say where they live: perf's --sort keys (comm, dso, sym, any
 * order) and -n on a recording made at test time of two programs that
 * both have `main` (tests/workloads/profile.c and diff_rename.c run at
 * once), against `perf report --stdio --sort=... -n` on the same file:
 * the two programs' rows perf prints at 1 % and above, each with the
 * same command, dso, symbol, Children, Self (within perf's rounding) and
 * sample count.  A diff's rows of the two mains name their dsos, and
 * with perf's keys have Command and Shared Object columns.
 */
#include "testutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATHMAX 4096
#define W1 PD_TEST_DATA_DIR "/../workloads/profile.c"
#define W2 PD_TEST_DATA_DIR "/../workloads/diff_rename.c"
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -no-pie"

static char *dir;

/* `perfdiff ARGS` in the lab, read (exit 0 or 1): its stdout. */
#define cli(...) pd_test_cli_read(dir, __VA_ARGS__)

static void setup(void)
{
	if (pd_test_lab_open(true, &dir))
		return;
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert(pd_test_compile("cc", WFLAGS, "prof", W1));
	ck_assert(pd_test_compile("cc", WFLAGS, "app", W2));
	if (!pd_test_perf_record("two.data", "-q -N -e cpu-clock -g",
				 "sh -c './prof 300 & ./app 300; wait'")) {
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

typedef struct row {
	double children, self;
	unsigned long long samples;
	char cols[3][256];   /* the key columns in the order of the keys */
} row;

/* The rows of a `--sort=KEYS -n` text report (perf's or ours): `nkeys`
 * key columns after Children, Self and Samples; the symbol's "[.] "
 * kept as part of its column. */
static row *parse(const char *text, int nkeys, const int *keys_sym, size_t *n)
{
	row *v = calloc(4096, sizeof *v);
	*n = 0;
	for (const char *line = text; line && *line && *n < 4096;) {
		const char *nl = strchr(line, '\n');
		row *r = &v[*n];
		int used = 0;
		if (line[0] != '#' &&
		    sscanf(line, " %lf%% %lf%% %llu %n", &r->children, &r->self, &r->samples,
			   &used) == 3 && used) {
			const char *p = line + used;
			for (int k = 0; k < nkeys; k++) {
				while (*p == ' ')
					p++;
				/* a symbol column is "[.] name": two words */
				size_t len = strcspn(p, " \n");
				if (keys_sym[k])
					len += 1 + strcspn(p + len + 1, " \n");
				snprintf(r->cols[k], sizeof r->cols[k], "%.*s", (int)len, p);
				p += len;
			}
			++*n;
		}
		line = nl ? nl + 1 : NULL;
	}
	return v;
}

/* perf's rows of `sort` at 1 % and above of the two programs equal
 * ours. */
static void check_sort(const char *sort, int nkeys, const int *keys_sym)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "cd '%s' && perf report -i two.data --stdio --sort=%s -n "
		 "-g none 2>/dev/null", dir, sort);
	int st;
	char *ptext = pd_test_run(cmd, &st);
	ck_assert_int_eq(st, 0);
	char *otext = cli("report --perf-compat --keep-suffixes --sort=%s -n two.data", sort);
	size_t np, no;
	row *pr = parse(ptext, nkeys, keys_sym, &np), *our = parse(otext, nkeys, keys_sym, &no);
	size_t compared = 0;
	for (size_t i = 0; i < np && pr[i].children >= 1.0; i++) {
		/* the two programs' own rows: what other load adds to a busy
		 * machine's recording (kernel paths, perf's own start) may be
		 * named otherwise by perf's and our symbol lookups */
		bool ours = false;
		for (int k = 0; k < nkeys; k++)
			ours |= !strcmp(pr[i].cols[k], "prof") || !strcmp(pr[i].cols[k], "app");
		if (!ours)
			continue;
		const row *m = NULL;
		for (size_t j = 0; j < no && !m; j++) {
			bool same = true;
			for (int k = 0; k < nkeys; k++)
				same &= strcmp(pr[i].cols[k], our[j].cols[k]) == 0;
			m = same ? &our[j] : NULL;
		}
		ck_assert_msg(m, "--sort=%s: perf's row %s %s %s is not ours:\n%.2000s", sort,
			      pr[i].cols[0], pr[i].cols[1], pr[i].cols[2], otext);
		ck_assert_msg(fabs(m->children - pr[i].children) <= 0.011 &&
			      fabs(m->self - pr[i].self) <= 0.011 && m->samples == pr[i].samples,
			      "--sort=%s %s %s %s: ours %.2f %.2f %llu, perf %.2f %.2f %llu", sort,
			      pr[i].cols[0], pr[i].cols[1], pr[i].cols[2], m->children, m->self,
			      m->samples, pr[i].children, pr[i].self, pr[i].samples);
		compared++;
	}
	ck_assert_msg(compared >= 8, "--sort=%s: %zu rows compared", sort, compared);
	free(pr);
	free(our);
	free(ptext);
	free(otext);
}

START_TEST(test_sort_keys_as_perf)
{
	NEED_LAB();
	const int cds[] = { 0, 0, 1 }, sc[] = { 1, 0 }, ds[] = { 0, 1 };
	check_sort("comm,dso,sym", 3, cds);
	check_sort("sym,comm", 2, sc);
	check_sort("dso,sym", 2, ds);
	/* the two mains are two rows, told apart by command and dso */
	char *t = cli("report --perf-compat --sort=comm,dso,sym -n two.data");
	size_t n;
	row *v = parse(t, 3, cds, &n);
	bool prof = false, app = false;
	for (size_t i = 0; i < n; i++) {
		bool main_row = strcmp(v[i].cols[2], "[.] main") == 0;
		prof |= main_row && !strcmp(v[i].cols[0], "prof") && !strcmp(v[i].cols[1], "prof");
		app |= main_row && !strcmp(v[i].cols[0], "app") && !strcmp(v[i].cols[1], "app");
	}
	ck_assert_msg(prof && app, "no two main rows: %s", t);
	free(v);
	free(t);
}
END_TEST

START_TEST(test_two_mains_in_diff)
{
	NEED_LAB();
	char *t = cli("diff --all two.data two.data");
	ck_assert_msg(strstr(t, "children.cpu-clock.main [prof]") &&
		      strstr(t, "children.cpu-clock.main [app]"), "%s", t);
	free(t);
	/* perf's keys: Command and Shared Object columns before the key */
	t = cli("diff --all --sort=comm,dso,sym two.data two.data");
	const char *progs[] = { "prof", "app" };
	for (int i = 0; i < 2; i++) {
		char key[64], *line = t;
		snprintf(key, sizeof key, "perf-profile.children.cpu-clock.main [%s]", progs[i]);
		bool seen = false;
		for (char *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			char comm[64], dso[64], k[256];
			if (sscanf(line, " %*s %*s %*s %63s %63s %255[^\n]", comm, dso, k) == 3 &&
			    strncmp(k, key, strlen(key)) == 0) {
				ck_assert_str_eq(comm, progs[i]);
				ck_assert_str_eq(dso, progs[i]);
				seen = true;
			}
		}
		ck_assert_msg(seen, "no %s row with columns: %s", key, t);
	}
	ck_assert_ptr_nonnull(strstr(t, "Command  Shared Object"));
	free(t);
	t = cli("diff --peek='^main$' two.data two.data");
	ck_assert_msg(strstr(t, "| main [prof]") && strstr(t, "| main [app]"), "%s", t);
	free(t);
	int st;
	char *err = NULL;
	free(pd_test_cli(dir, "report --sort=comm,pid two.data", &st, &err));
	ck_assert_int_eq(st, 2);
	ck_assert_msg(err && strstr(err, "no key 'pid'"), "%s", err);
	free(err);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sortkeys");
	TCase *tc = tcase_create("recorded");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_sort_keys_as_perf);
	tcase_add_test(tc, test_two_mains_in_diff);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
