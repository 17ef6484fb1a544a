/*
 * `perfdiff tui` as a person uses it: in tmux (a private server, a
 * 120x40 window), on two builds of tests/workloads/diff_rename.c
 * recorded at test time (hash_chunk renamed hash_block), keys sent with
 * send-keys and the screen read with capture-pane, polled until what is
 * expected shows (the machine may be loaded: no fixed sleeps).  The
 * screen is checked against `perfdiff diff`'s own output: the rename is
 * the first row, the children of `process` have the shares of its JSON
 * tree rows, the peek pane is the block `--peek` prints, `f` gives the
 * samples `--focus` keeps, `q` exits 0.  Where there is no terminal it
 * prints what `perfdiff diff` prints.  The capture is written to
 * BUILD/tests/tui-screen.txt (README's screenshot).
 *
 * The tree model (tools/perfdiff/tui_model.c, compiled in here) is also
 * checked alone: the rows it splices in place are, after every key, the
 * rows a walk of the whole tree with its open nodes gives.
 */
#include "testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tools/perfdiff/tui_model.c"

#define PATHMAX 4096
#define RENAME PD_TEST_DATA_DIR "/../workloads/diff_rename.c"
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"
#define MIN_SAMPLES 400

/* ---------------------------------------------------------- the model */

/* The rows a full walk gives: preorder, under open nodes only. */
static size_t oracle_rows(const tui_tree *t, size_t node, size_t *out, size_t k)
{
	for (size_t c = t->first[node]; c < t->first[node + 1]; c++) {
		out[k++] = t->kids[c];
		if (t->open[t->kids[c]])
			k = oracle_rows(t, t->kids[c], out, k);
	}
	return k;
}

static void same_as_walk(const tui_tree *t, size_t *buf)
{
	size_t k = oracle_rows(t, 0, buf, 0);
	ck_assert_uint_eq(k, t->nrows);
	ck_assert(memcmp(buf, t->rows, k * sizeof *buf) == 0);
}

static bool is_node(void *ctx, size_t node)
{
	return node == *(size_t *)ctx;
}

START_TEST(test_model_keys)
{
	/* a random tree (parents before children, shallow enough for the
	 * oracle's recursion), random keys, checked after each */
	enum { N = 20000 };
	size_t *parent = malloc(N * sizeof *parent), *buf = malloc(N * sizeof *buf);
	double *w = malloc(N * sizeof *w);
	ck_assert(parent && buf && w);
	unsigned seed = 29;
	parent[0] = SIZE_MAX;
	for (size_t i = 1; i < N; i++) {
		parent[i] = i < 8 ? 0 : (size_t)rand_r(&seed) % (i / 2 + 1);
		w[i] = (double)(rand_r(&seed) % 1000);
	}
	size_t top = 0;
	for (size_t i = 1; i < N; i++)
		top += parent[i] == 0;
	tui_tree t;
	ck_assert_int_eq(tui_tree_init(&t, N, parent, w), 0);
	ck_assert_uint_eq(t.nrows, top);
	for (size_t k = t.first[0]; k + 1 < t.first[1]; k++)  /* hottest first */
		ck_assert(w[t.kids[k]] >= w[t.kids[k + 1]]);
	for (int step = 0; step < 3000; step++) {
		size_t row = (size_t)rand_r(&seed) % t.nrows;
		int op = rand_r(&seed) % 4;
		if (op < 2)
			tui_tree_expand(&t, row);
		else if (op == 2)
			tui_tree_collapse(&t, row);
		else {
			size_t node = (size_t)rand_r(&seed) % (N - 1) + 1;
			size_t r = tui_tree_reveal(&t, node);
			ck_assert_uint_lt(r, t.nrows);
			ck_assert_uint_eq(t.rows[r], node);
			ck_assert_uint_eq(tui_tree_find(&t, 0, is_node, &node), node);
		}
		same_as_walk(&t, buf);
	}
	/* a parent's row is above its children's */
	for (size_t r = 0; r < t.nrows; r++) {
		size_t p = tui_tree_parent_row(&t, r);
		ck_assert(t.depth[t.rows[r]] == 0 ? p == r : t.rows[p] == t.parent[t.rows[r]]);
	}
	tui_tree_free(&t);
	/* parents after their children are refused */
	parent[1] = 5;
	ck_assert_int_eq(tui_tree_init(&t, N, parent, w), -1);
	free(parent);
	free(buf);
	free(w);
}
END_TEST

/* ---------------------------------------------------------- the screen */

static char *dir;
static char sock[64];

#define cli(...) pd_test_cli_read(dir, __VA_ARGS__)

static json_t *parse(char *out)
{
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	ck_assert_msg(j, "not JSON (%s): %.300s", je.text, out);
	free(out);
	return j;
}

static uint64_t samples_of(const char *data)
{
	json_t *j = parse(cli("report --format=json '%s'", data));
	json_t *ev = json_array_get(json_object_get(j, "events"), 0);
	uint64_t n = ev ? (uint64_t)json_integer_value(json_object_get(ev, "samples")) : 0;
	json_decref(j);
	return n;
}

static bool record(const char *flags, const char *name)
{
	char bin[PATHMAX], data[PATHMAX + 8], w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/%s", dir, name);
	ck_assert(pd_test_compile("cc", flags, bin, RENAME));
	snprintf(w, sizeof w, "'%s' 400", bin);
	snprintf(data, sizeof data, "%s.data", bin);
	for (int tries = 0; tries < 3; tries++) {
		if (!pd_test_perf_record(data, "-q -N -e cpu-clock -g", w))
			return false;
		if (samples_of(data) >= MIN_SAMPLES)
			break;
	}
	return true;
}

static void setup(void)
{
	if (pd_test_lab_open(true, &dir))
		return;
	ck_assert_int_eq(chdir(dir), 0);
	if (!record(WFLAGS, "old") || !record(WFLAGS " -DPD_NEW", "new")) {
		pd_test_lab_close(dir);
		dir = NULL;
	}
	snprintf(sock, sizeof sock, "pdtui%ld", (long)getpid());
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "tmux -L %s kill-server >/dev/null 2>&1", sock);
	pd_test_sh_ok(cmd);
	if (chdir("/") != 0)
		perror("chdir");
	pd_test_lab_close(dir);
	dir = NULL;
}

static void tmux(const char *fmt, const char *arg)
{
	char cmd[4 * PATHMAX], sub[3 * PATHMAX];
	snprintf(sub, sizeof sub, fmt, arg);
	snprintf(cmd, sizeof cmd, "tmux -L %s -f /dev/null %s", sock, sub);
	ck_assert_msg(pd_test_sh_ok(cmd), "%s", cmd);
}

/* The screen of session `name`; with `esc`, its attributes as escapes. */
static char *capture_of(const char *name, bool esc)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "tmux -L %s capture-pane -p %s-t %s", sock, esc ? "-e " : "",
		 name);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_msg(st == 0, "capture-pane: status %d", st);
	return out;
}

static char *capture(void)
{
	return capture_of("pd", false);
}

/* The screen once it shows `want` (20 s at most, for a loaded machine). */
static char *wait_for(const char *want)
{
	char *s = NULL;
	for (int i = 0; i < 200; i++) {
		free(s);
		s = capture();
		if (strstr(s, want))
			return s;
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	ck_abort_msg("the screen never showed '%s':\n%s", want, s);
	return NULL;
}

/* The line of `screen` that holds `what`; NULL if none. */
static const char *line_with(const char *screen, const char *what)
{
	const char *p = strstr(screen, what);
	if (!p)
		return NULL;
	while (p > screen && p[-1] != '\n')
		p--;
	return p;
}

/* A diff JSON's tree row whose key ends in `suffix`, the largest. */
static json_t *tree_row(json_t *d, const char *suffix)
{
	size_t i, sl = strlen(suffix);
	json_t *r, *best = NULL;
	json_array_foreach(json_object_get(d, "rows"), i, r) {
		const char *m = json_string_value(json_object_get(r, "metric"));
		const char *k = json_string_value(json_object_get(r, "key"));
		size_t kl = strlen(k);
		if (strcmp(m, "tree") || kl < sl || strcmp(k + kl - sl, suffix))
			continue;
		double mean = json_real_value(json_object_get(json_object_get(r, "base"), "mean"));
		if (!best || mean > json_real_value(json_object_get(json_object_get(best, "base"),
								    "mean")))
			best = r;
	}
	ck_assert_msg(best, "no tree row ...%s", suffix);
	return best;
}

static double side_mean(json_t *row, const char *side)
{
	return json_number_value(json_object_get(json_object_get(row, side), "mean"));
}

/* The screen's row of `name` has the JSON's base and new shares. */
static void same_shares(const char *screen, const char *name, json_t *row)
{
	const char *tree = strstr(screen, "Aligned tree");
	ck_assert_ptr_nonnull(tree);
	const char *l = line_with(tree, name);
	ck_assert_msg(l, "no row %s:\n%s", name, screen);
	double b, n, c;
	ck_assert_int_eq(sscanf(l, "%lf %lf %lf", &b, &n, &c), 3);
	ck_assert_msg(fabs(b - side_mean(row, "base")) < 0.006 &&
		      fabs(n - side_mean(row, "new")) < 0.006,
		      "%s: screen %.2f %.2f, diff %.4f %.4f", name, b, n, side_mean(row, "base"),
		      side_mean(row, "new"));
}

/* Each line `perfdiff diff --peek` prints is on the screen (cut to its
 * width, trailing blanks dropped), as many as the pane has lines. */
static void peek_shown(const char *screen, char *text)
{
	const char *pane = strstr(screen, "Peek ^"), *end = strstr(screen, "\nfilters:");
	ck_assert_msg(pane && end, "%s", screen);
	size_t room = 0;
	for (const char *p = strchr(pane, '\n'); p && p < end; p = strchr(p + 1, '\n'))
		room++;
	size_t n = 0;
	for (char *l = strtok(text, "\n"); l && n < room; l = strtok(NULL, "\n"), n++) {
		char want[121];
		snprintf(want, sizeof want, "%s", l);
		size_t len = strlen(want);
		while (len && want[len - 1] == ' ')
			want[--len] = '\0';
		ck_assert_msg(strstr(pane, want), "peek line '%s' not shown:\n%s", want, screen);
	}
	free(text);
}

static void save_screen(const char *s)
{
	char path[PATHMAX];
	snprintf(path, sizeof path, "%s/tui-screen.txt", PD_TEST_BUILD_DIR);
	pd_test_write_file(path, s, strlen(s));
}

START_TEST(test_screen)
{
	PD_SKIP_IF(dir ? NULL : "perf record -e cpu-clock -g or cc unavailable");
	PD_SKIP_IF(pd_test_sh_ok("command -v tmux >/dev/null") ? NULL : "tmux is not installed");
	json_t *d = parse(cli("diff --tree --all --format=json old.data new.data"));
	char run[PATHMAX * 2];
	snprintf(run, sizeof run, "new-session -d -s pd -x 120 -y 40 \"cd '%s' && '%s' tui "
		 "old.data new.data 2>/dev/null; echo EXIT=\\$? > status; sleep 600\"",
		 dir, PD_CLI_PATH);
	tmux("%s", run);
	/* the rename first, right under its heading */
	char *s = wait_for("Aligned tree");
	const char *h = line_with(s, "Explained shifts (1)");
	ck_assert_msg(h, "%s", s);
	const char *first = strchr(h, '\n') + 1;
	ck_assert_msg(strncmp(first, "  renamed", 9) == 0 &&
		      strstr(first, "hash_chunk -> hash_block") < strchr(first, '\n'), "%s", s);
	free(s);
	/* search process, open it: its children's shares are the diff's */
	tmux("send-keys -t pd / %s Enter", "process");
	free(wait_for("/process"));
	tmux("send-keys -t pd %s", "Right");
	s = wait_for("- process");
	same_shares(s, "hash_chunk -> hash_block", tree_row(d, ";main;process;hash_block"));
	same_shares(s, "checksum [", tree_row(d, ";main;process;checksum"));
	free(s);
	/* peek checksum: the block --peek prints */
	tmux("send-keys -t pd / %s Enter p", "checksum");
	s = wait_for("Peek ^checksum$");
	peek_shown(s, cli("diff --peek='^checksum$' old.data new.data"));
	save_screen(s);
	free(s);
	/* focus on it: the samples --focus keeps */
	json_t *f = parse(cli("diff --focus='^checksum$' --format=json old.data new.data"));
	char want[128];
	snprintf(want, sizeof want, "samples %lld -> %lld",
		 json_integer_value(json_object_get(json_object_get(f, "base"), "samples")),
		 json_integer_value(json_object_get(json_object_get(f, "new"), "samples")));
	tmux("send-keys -t pd x %s", "f");
	s = wait_for(want);
	ck_assert_msg(strstr(s, "focus ^checksum$"), "%s", s);
	free(s);
	json_decref(f);
	tmux("send-keys -t pd %s", "q");
	for (int i = 0; i < 200 && access("status", R_OK) != 0; i++)
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	size_t len;
	char *st = (char *)pd_test_read_file("status", &len);
	ck_assert_msg(st && strncmp(st, "EXIT=0", 6) == 0, "exit: %s", st ? st : "(none)");
	free(st);
	json_decref(d);
}
END_TEST

/* The line of `screen` from `at`, as a string of its own. */
static char *line_at(const char *at)
{
	size_t n = strcspn(at, "\n");
	char *l = malloc(n + 1);
	ck_assert_ptr_nonnull(l);
	memcpy(l, at, n);
	l[n] = '\0';
	return l;
}

/* --color=always: headings cyan, the rename red or green by its net
 * change as the text output colours it; --color=never: no colour. */
START_TEST(test_color)
{
	PD_SKIP_IF(dir ? NULL : "perf record -e cpu-clock -g or cc unavailable");
	PD_SKIP_IF(pd_test_sh_ok("command -v tmux >/dev/null") ? NULL : "tmux is not installed");
	static const char *const whens[] = { "always", "never" };
	for (int k = 0; k < 2; k++) {
		char run[PATHMAX * 2], name[16];
		snprintf(name, sizeof name, "c%d", k);
		snprintf(run, sizeof run, "new-session -d -s %s -x 120 -y 20 \"cd '%s' && '%s' tui "
			 "--color=%s old.data new.data 2>/dev/null; sleep 600\"", name, dir,
			 PD_CLI_PATH, whens[k]);
		tmux("%s", run);
		char *plain = NULL, *esc = NULL;
		for (int i = 0; i < 200 && !(plain && strstr(plain, "Aligned tree")); i++) {
			free(plain);
			nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
			plain = capture_of(name, false);
		}
		ck_assert_msg(strstr(plain, "Aligned tree"), "%s", plain);
		esc = capture_of(name, true);
		const char *r = line_with(plain, "  renamed");
		ck_assert_ptr_nonnull(r);
		double net = strtod(strstr(r, "net ") + 4, NULL);
		char *head = line_at(line_with(esc, "Aligned tree"));
		char *rename = line_at(line_with(esc, "  renamed"));
		if (k == 0) {
			ck_assert_msg(strstr(head, "\033[36m"), "heading not cyan: %s", head);
			const char *want = net >= 0.1 ? "\033[31m" : net <= -0.1 ? "\033[32m" : NULL;
			ck_assert_msg(!want || strstr(rename, want), "net %.2f: %s", net, rename);
		} else {
			ck_assert_msg(!strstr(esc, "\033[31m") && !strstr(esc, "\033[32m") &&
				      !strstr(esc, "\033[36m"), "colour with --color=never: %s", esc);
		}
		free(head);
		free(rename);
		free(plain);
		free(esc);
		tmux("kill-session -t %s", name);
	}
}
END_TEST

/* No terminal: what `perfdiff diff` prints. */
START_TEST(test_plain)
{
	PD_SKIP_IF(dir ? NULL : "perf record -e cpu-clock -g or cc unavailable");
	char *a = cli("tui old.data new.data");
	char *b = cli("diff old.data new.data");
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tui");
	TCase *m = tcase_create("model");
	tcase_add_test(m, test_model_keys);
	suite_add_tcase(s, m);
	TCase *tc = tcase_create("tmux");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_screen);
	tcase_add_test(tc, test_color);
	tcase_add_test(tc, test_plain);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
