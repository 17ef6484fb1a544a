/*
 * `perfdiff report` end to end, on recordings of tests/workloads/profile.c
 * made here, against `perf report` and `perf script` (perf 6.1):
 *
 *   - text: the children/self rows of every named symbol within 0.01
 *     points of perf's, the chains under a row (caller and callee order)
 *     with perf's percentages, thresholds and --no-chains;
 *   - JSON (docs/report-json.md): schema, totals, rows against perf, the
 *     tree's structure;
 *   - CSV: rows and per-run columns;
 *   - folded: every collapsed stack with perf script's period;
 *   - options, several runs, filters, errors and exit statuses.
 *
 * Comparisons use --perf-compat --keep-suffixes and a time window that
 * starts after the workload's exec (see test_profile.c).  Every test
 * skips where perf or cc are missing.
 */
#include "testutil.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#define PATHMAX 4200

static struct lab {
	const char *skip;
	char *dir;
	char bin[PATHMAX], fp[PATHMAX], two[PATHMAX];
	uint64_t win_ns;
	char win[64];          /* "SECS.USECS," for --time */
} L;

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	ck_assert_ptr_nonnull(d);
	return d;
}

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(false, &L.dir);
	if (L.skip)
		return;
	snprintf(L.bin, PATHMAX, "%s/profile", L.dir);
	snprintf(L.fp, PATHMAX, "%s/fp.data", L.dir);
	snprintf(L.two, PATHMAX, "%s/two.data", L.dir);
	char cmd[5 * PATHMAX];
	if (!pd_test_compile("cc", "-O0 -g -fno-omit-frame-pointer -no-pie", L.bin,
			     WORKLOAD_DIR "/profile.c")) {
		L.skip = "cannot compile tests/workloads/profile.c";
		return;
	}
	snprintf(cmd, sizeof cmd,
		 "perf record -q -N -e cpu-clock -g -o '%s' -- '%s' 300 >/dev/null 2>&1 && "
		 "perf record -q -N -e cpu-clock,task-clock -g -o '%s' -- '%s' 200 "
		 ">/dev/null 2>&1",
		 L.fp, L.bin, L.two, L.bin);
	if (!pd_test_sh_ok(cmd)) {
		L.skip = "perf record failed";
		return;
	}
	uint64_t t0;
	if (!pd_test_perf_first_time(L.fp, &t0)) {
		L.skip = "perf script printed no sample time";
		return;
	}
	/* after the workload's exec: samples inside execve are named from
	 * the old image's maps by perf only (see test_profile.c) */
	L.win_ns = (t0 + 50000000u) / 1000u * 1000u;
	snprintf(L.win, sizeof L.win, "%" PRIu64 ".%06" PRIu64 ",", L.win_ns / 1000000000u,
		 L.win_ns % 1000000000u / 1000u);
}

static void lab_teardown(void)
{
	pd_test_lab_close(L.dir);
	memset(&L, 0, sizeof L);
}

#define NEED_LAB() PD_SKIP_IF(L.skip)

/* `perfdiff report ARGS`, stderr captured in the lab (see pd_test_cli). */
static char *report(const char *args, int *status, char **err)
{
	size_t n = strlen(args) + 8;
	char *full = malloc(n);
	ck_assert_ptr_nonnull(full);
	snprintf(full, n, "report %s", args);
	char *out = pd_test_cli(L.dir, full, status, err);
	free(full);
	return out;
}

/* A clean or warned-about read: 0 or 1. */
static char *report_ok(const char *args)
{
	int st;
	char *err;
	char *out = report(args, &st, &err);
	ck_assert_msg(st == 0 || st == 1, "perfdiff report %s: exit %d\n%s", args, st, err);
	free(err);
	return out;
}

/* ------------------------------------------------------------ perf's rows */

typedef struct row {
	char *dso, *sym;
	double children, self;
	char level;
} row;

typedef struct rows {
	row *v;
	size_t n;
	uint64_t count;   /* perf: event count; ours: from the header */
} rows;

static void free_rows(rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].dso);
		free(r->v[i].sym);
	}
	free(r->v);
	memset(r, 0, sizeof *r);
}

static void add_row(rows *r, const char *dso, const char *sym, double c, double s, char level)
{
	r->v = realloc(r->v, (r->n + 1) * sizeof *r->v);
	ck_assert_ptr_nonnull(r->v);
	r->v[r->n++] = (row){ xstrdup(dso), xstrdup(sym), c, s, level };
}

/* Rows of the text table ("  12.34%   1.00%  dso  [k] sym"), first event
 * only when `event` is NULL, else the section of that event. */
static void parse_rows(const char *text, const char *event, bool perf, rows *out)
{
	memset(out, 0, sizeof *out);
	char *copy = xstrdup(text);
	bool in = event == NULL;
	int sections = 0;
	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		const char *q;
		if ((q = perf ? strstr(line, " of event '") : strstr(line, "# Event '"))) {
			q = strchr(q, '\'') + 1;
			sections++;
			in = event ? strncmp(q, event, strlen(event)) == 0 &&
					     q[strlen(event)] == '\''
				   : sections == 1;
			continue;
		}
		if (!in)
			continue;
		if ((q = strstr(line, perf ? "# Event count (approx.): " : "Event count: ")))
			out->count = strtoull(strchr(q, ':') + 2, NULL, 10);
		if (line[0] != ' ')
			continue;
		double c, s;
		char dso[1024], lvl;
		int off = 0;
		if (sscanf(line, " %lf%% %lf%% %1023s [%c] %n", &c, &s, dso, &lvl, &off) != 4 ||
		    off == 0)
			continue;
		char *sym = line + off;
		size_t n = strlen(sym);
		while (n && sym[n - 1] == ' ')
			sym[--n] = '\0';
		/* perf >= 5 adds "-  -" IPC columns */
		if (perf && n > 3 && strcmp(sym + n - 3, "-  ") == 0)
			sym[n - 3] = '\0';
		n = strlen(sym);
		while (n && (sym[n - 1] == ' ' || sym[n - 1] == '-'))
			sym[--n] = '\0';
		add_row(out, dso, sym, c, s, lvl);
	}
	free(copy);
}

static const row *find_row(const rows *r, const char *dso, const char *sym)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].dso, dso) == 0 && strcmp(r->v[i].sym, sym) == 0)
			return &r->v[i];
	return NULL;
}

static bool is_address(const char *sym)
{
	if (strncmp(sym, "0x", 2) == 0)
		sym += 2;
	size_t n = strspn(sym, "0123456789abcdef");
	return n >= 8 && sym[n] == '\0';
}

static void perf_rows(const char *data, const char *extra, const char *event, rows *out)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf report -i '%s' --children --sort dso,sym -g none --stdio %s 2>/dev/null",
		 data, extra);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_msg(text && st == 0, "%s", cmd);
	parse_rows(text, event, true, out);
	free(text);
}

/* Every named perf row has ours within 0.01; returns how many. */
static size_t compare_rows(const rows *perf, const rows *ours)
{
	size_t n = 0;
	for (size_t i = 0; i < perf->n; i++) {
		const row *p = &perf->v[i];
		/* PLT stubs and versioned dynamic symbols are named by rules of
		 * perf's own that the symbolizer does not copy ("@plt" alone,
		 * "f@@GLIBC_2.17") */
		if (is_address(p->sym) || strchr(p->sym, '@'))
			continue;
		const row *o = find_row(ours, p->dso, p->sym);
		ck_assert_msg(o != NULL, "perf row %s %s missing", p->dso, p->sym);
		ck_assert_msg(o->children - p->children <= 0.01 + 1e-6 &&
				      p->children - o->children <= 0.01 + 1e-6 &&
				      o->self - p->self <= 0.01 + 1e-6 && p->self - o->self <= 0.01 + 1e-6,
			      "%s %s: perf %.2f/%.2f, ours %.2f/%.2f", p->dso, p->sym, p->children,
			      p->self, o->children, o->self);
		ck_assert_int_eq(o->level, p->level);
		n++;
	}
	return n;
}

#define COMPAT "--perf-compat --keep-suffixes"

/* ================================================================ tests */

START_TEST(test_text_rows_match_perf)
{
	NEED_LAB();
	char args[2 * PATHMAX];
	snprintf(args, sizeof args, COMPAT " --no-chains --time %s '%s'", L.win, L.fp);
	char *out = report_ok(args);
	ck_assert_ptr_nonnull(strstr(out, "# Event 'cpu-clock'"));
	ck_assert_ptr_nonnull(strstr(out, "# Children      Self  Shared Object"));
	ck_assert_ptr_null(strstr(out, "---"));  /* --no-chains */
	rows ours, perf;
	parse_rows(out, NULL, false, &ours);
	char extra[128];
	snprintf(extra, sizeof extra, "--time %s", L.win);
	perf_rows(L.fp, extra, NULL, &perf);
	ck_assert_uint_eq(ours.count, perf.count);
	size_t n = compare_rows(&perf, &ours);
	fprintf(stderr, "text: %zu named rows as perf\n", n);
	ck_assert_uint_ge(n, 8);
	/* sorted by children */
	for (size_t i = 1; i < ours.n; i++)
		ck_assert(ours.v[i - 1].children >= ours.v[i].children);
	free_rows(&ours);
	free_rows(&perf);
	free(out);
}
END_TEST

/* The percentage on the branch line "|--12.34%--name" under row `sym`. */
static double branch_pct(const char *text, const char *sym, const char *child)
{
	const char *at = text;
	char head[256], want[256];
	snprintf(head, sizeof head, "] %s\n", sym);
	snprintf(want, sizeof want, "%%--%s\n", child);
	at = strstr(at, head);
	ck_assert_msg(at != NULL, "no row for %s", sym);
	at += strlen(head);
	/* the row's chains end at the next row (a line starting with blanks
	 * and a percentage) or the blank line after them */
	const char *end = strstr(at, "\n\n");
	const char *hit = strstr(at, want);
	if (!hit || (end && hit > end))
		return -1;
	const char *dash = hit;
	while (dash > at && dash[-1] != '-')
		dash--;
	return strtod(dash, NULL);
}

/* The chain lines under the row of `sym` (dso `dso`) as "name" or
 * "P%--name" tokens, the drawing's bars and indentation dropped. */
typedef struct ctoks {
	char **name;
	double *pct;      /* -1 on a line that continues straight down */
	size_t *col;      /* where the line's "--" or name starts */
	size_t n;
} ctoks;

static void chain_tokens(const char *text, const char *dso, const char *sym, ctoks *out)
{
	memset(out, 0, sizeof *out);
	char *copy = xstrdup(text);
	char want[256];
	snprintf(want, sizeof want, "] %s", sym);
	bool in = false, seen = false;
	for (char *line = copy, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		size_t len = strlen(line);
		while (len && line[len - 1] == ' ')
			line[--len] = '\0';
		if (!in) {
			size_t wl = strlen(want);
			in = !seen && line[0] == ' ' && len > wl && strcmp(line + len - wl, want) == 0 &&
			     strstr(line, dso);
			seen |= in;
			continue;
		}
		if (len == 0)
			break;   /* the blank line that ends the row's chains */
		const char *t = line + strspn(line, " |");
		if (*t == '\0')
			continue;
		double pct = -1;
		size_t col = (size_t)(t - line);
		if (strncmp(t, "---", 3) == 0) {
			t += 3;
		} else if (strncmp(t, "--", 2) == 0) {
			char *end;
			pct = strtod(t + 2, &end);
			ck_assert_msg(strncmp(end, "%--", 3) == 0, "bad chain line '%s'", line);
			t = end + 3;
		}
		out->name = realloc(out->name, (out->n + 1) * sizeof *out->name);
		out->pct = realloc(out->pct, (out->n + 1) * sizeof *out->pct);
		out->col = realloc(out->col, (out->n + 1) * sizeof *out->col);
		ck_assert(out->name && out->pct && out->col);
		out->name[out->n] = xstrdup(t);
		out->col[out->n] = col;
		out->pct[out->n++] = pct;
	}
	free(copy);
}

static void free_tokens(ctoks *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->name[i]);
	free(c->name);
	free(c->pct);
	free(c->col);
}

/*
 * The drawing as a tree: a branch is a line starting "--P%--" (or "---")
 * and the lines that continue straight down below it; a branch's children
 * are the branches whose "--" stands one column right of its bar.  Siblings
 * with the same percentage are a tie, which perf breaks by dso and symbol
 * address (of its own memory layout), so the tokens are put back in one
 * order that is the same for both drawings: each level sorted by
 * percentage, ties by name.  The order by percentage itself is checked
 * before (siblings_sorted).
 */
typedef struct cbranch {
	size_t first, n;            /* its lines in the tokens */
	size_t *kids, nkids;
} cbranch;

/* Parse the branch starting at token `i` (and its subtree) into `b`;
 * returns the token after it. */
static size_t parse_branch(const ctoks *c, size_t i, cbranch *br, size_t *nbr, size_t self)
{
	cbranch *b = &br[self];
	b->first = i;
	/* a branch's own lines: its marker line, then the lines below it
	 * that are no child branch's marker */
	size_t j = i + 1;
	while (j < c->n && c->pct[j] < 0 && c->col[j] > c->col[i] + 1)
		j++;
	b->n = j - i;
	b->kids = NULL;
	b->nkids = 0;
	/* children: markers further right than this branch's marker */
	while (j < c->n && c->col[j] > c->col[i]) {
		size_t k = (*nbr)++;
		b = &br[self];
		b->kids = realloc(b->kids, (b->nkids + 1) * sizeof *b->kids);
		ck_assert_ptr_nonnull(b->kids);
		b->kids[b->nkids++] = k;
		j = parse_branch(c, j, br, nbr, k);
	}
	return j;
}

static const ctoks *g_sort_toks;
static const cbranch *g_sort_br;

static int cmp_branch(const void *a, const void *b)
{
	const cbranch *x = &g_sort_br[*(const size_t *)a], *y = &g_sort_br[*(const size_t *)b];
	double px = g_sort_toks->pct[x->first], py = g_sort_toks->pct[y->first];
	if (px - py > 0.005)
		return -1;
	if (py - px > 0.005)
		return 1;
	return strcmp(g_sort_toks->name[x->first], g_sort_toks->name[y->first]);
}

/* Siblings are drawn heaviest first (ties in any order). */
static void siblings_sorted(const ctoks *c, const cbranch *br, const cbranch *b, const char *who)
{
	for (size_t k = 1; k < b->nkids; k++)
		ck_assert_msg(c->pct[br[b->kids[k - 1]].first] + 0.005 >= c->pct[br[b->kids[k]].first],
			      "%s: %s (%.2f%%) drawn before %s (%.2f%%)", who,
			      c->name[br[b->kids[k - 1]].first], c->pct[br[b->kids[k - 1]].first],
			      c->name[br[b->kids[k]].first], c->pct[br[b->kids[k]].first]);
	for (size_t k = 0; k < b->nkids; k++)
		siblings_sorted(c, br, &br[b->kids[k]], who);
}

static void emit(const ctoks *c, cbranch *br, size_t self, size_t depth, ctoks *out)
{
	cbranch *b = &br[self];
	for (size_t i = 0; i < b->n; i++) {
		out->name = realloc(out->name, (out->n + 1) * sizeof *out->name);
		out->pct = realloc(out->pct, (out->n + 1) * sizeof *out->pct);
		out->col = realloc(out->col, (out->n + 1) * sizeof *out->col);
		ck_assert(out->name && out->pct && out->col);
		out->name[out->n] = xstrdup(c->name[b->first + i]);
		out->pct[out->n] = c->pct[b->first + i];
		out->col[out->n++] = depth;
	}
	g_sort_toks = c;
	g_sort_br = br;
	if (b->nkids > 1)
		qsort(b->kids, b->nkids, sizeof *b->kids, cmp_branch);
	for (size_t k = 0; k < b->nkids; k++)
		emit(c, br, b->kids[k], depth + 1, out);
}

/* `c` with tied siblings in one order (see cbranch); checks on the way
 * that siblings are drawn heaviest first. */
static void canonical(const ctoks *c, ctoks *out, const char *who)
{
	memset(out, 0, sizeof *out);
	cbranch *br = calloc(c->n + 1, sizeof *br);
	ck_assert_ptr_nonnull(br);
	size_t nbr = 0;
	/* the roots: branches at the leftmost marker column */
	size_t i = 0;
	size_t root = nbr++;
	br[root].first = 0;
	br[root].n = 0;
	while (i < c->n) {
		size_t k = nbr++;
		br[root].kids = realloc(br[root].kids, (br[root].nkids + 1) * sizeof *br[root].kids);
		ck_assert_ptr_nonnull(br[root].kids);
		br[root].kids[br[root].nkids++] = k;
		i = parse_branch(c, i, br, &nbr, k);
	}
	siblings_sorted(c, br, &br[root], who);
	emit(c, br, root, 0, out);
	for (size_t k = 0; k < nbr; k++)
		free(br[k].kids);
	free(br);
}

/*
 * A vdso frame we name where perf 6.1 names it by its address: with -N
 * perf has no copy of the recorded vdso, and in about one run in three
 * here it leaves such a frame unnamed; we name it from this process's
 * vdso image, which is the recorded one when the kernel is (session.h).
 * Said on stderr.
 */
static bool vdso_by_address(const char *ours, const char *perf)
{
	if (strncmp(ours, "__vdso_", 7) != 0 || strncmp(perf, "0x", 2) != 0 ||
	    strspn(perf + 2, "0123456789abcdef") != strlen(perf + 2))
		return false;
	fprintf(stderr, "vdso frame: %s here, %s by perf\n", ours, perf);
	return true;
}

/* Our caller-order chains under `sym` line for line as perf draws them
 * (--sort dso,sym prints each chain's first frame); returns the number of
 * lines. */
static size_t compare_caller_graph(const char *ours, const char *perf, const char *sym)
{
	ctoks o0, p0, o, p;
	chain_tokens(ours, "profile", sym, &o0);
	chain_tokens(perf, "profile", sym, &p0);
	canonical(&o0, &o, "ours");
	canonical(&p0, &p, "perf");
	free_tokens(&o0);
	free_tokens(&p0);
	ck_assert_msg(o.n == p.n, "%s: %zu chain lines, perf %zu", sym, o.n, p.n);
	for (size_t i = 0; i < o.n; i++) {
		ck_assert_msg(strcmp(o.name[i], p.name[i]) == 0 || vdso_by_address(o.name[i], p.name[i]),
			      "%s: line %zu: %s, perf %s", sym, i, o.name[i], p.name[i]);
		ck_assert_msg((o.pct[i] < 0) == (p.pct[i] < 0) &&
				      o.pct[i] - p.pct[i] <= 0.01 + 1e-6 &&
				      p.pct[i] - o.pct[i] <= 0.01 + 1e-6,
			      "%s: line %zu (%s): %.2f%%, perf %.2f%%", sym, i, o.name[i], o.pct[i],
			      p.pct[i]);
	}
	size_t n = o.n;
	free_tokens(&o);
	free_tokens(&p);
	return n;
}

START_TEST(test_text_chains)
{
	NEED_LAB();
	char args[2 * PATHMAX], extra[128];
	snprintf(extra, sizeof extra, "--time %s", L.win);
	rows perf;
	perf_rows(L.fp, extra, NULL, &perf);
	const row *pa = find_row(&perf, "profile", "path_a");
	const row *pb = find_row(&perf, "profile", "path_b");
	ck_assert(pa && pb);

	/* caller order: under top, its callees path_a and path_b with their
	 * children (each is called from top only) */
	snprintf(args, sizeof args, COMPAT " --time %s --threshold=0 '%s'", L.win, L.fp);
	char *out = report_ok(args);
	/* rows with samples whose leaf they are: perf hangs those by their
	 * whole outermost → leaf chain, beside the chains from the row's
	 * symbol down (leaf_a: leaf only; path_a, rec: both, rec under
	 * recursion); the rest as a check that nothing else moved */
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf report -i '%s' --children --sort dso,sym -g graph,0,caller --stdio "
		 "--percent-limit 0 --time %s 2>/dev/null",
		 L.fp, L.win);
	int st;
	char *pg = pd_test_run(cmd, &st);
	ck_assert_msg(pg && st == 0, "%s", cmd);
	ck_assert_ptr_nonnull(strstr(pg, "--__libc_start_call_main\n"));
	/* under top one root, its callees, as perf draws it: a tick in top
	 * itself (its loop or calls) makes a second root there as here */
	ck_assert_int_eq(strstr(out, "---top\n") != NULL, strstr(pg, "---top\n") != NULL);
	/* top -> path_a/path_b as perf draws them. Not perf's children of
	 * path_a/path_b: a sample on a callee's first instruction (before it
	 * pushes its frame pointer) has no `top` in its chain. */
	double a = branch_pct(out, "top", "path_a"), b = branch_pct(out, "top", "path_b");
	double want_a = branch_pct(pg, "top", "path_a"), want_b = branch_pct(pg, "top", "path_b");
	ck_assert_msg(want_a > 0 && want_a <= pa->children + 1e-6 && want_b > 0 &&
			      want_b <= pb->children + 1e-6,
		      "perf: top -> path_a %.2f (children %.2f), top -> path_b %.2f (children %.2f)",
		      want_a, pa->children, want_b, pb->children);
	ck_assert_msg(a - want_a <= 0.01 + 1e-6 && want_a - a <= 0.01 + 1e-6,
		      "top -> path_a %.2f, perf %.2f", a, want_a);
	ck_assert_msg(b - want_b <= 0.01 + 1e-6 && want_b - b <= 0.01 + 1e-6,
		      "top -> path_b %.2f, perf %.2f", b, want_b);
	static const char *const graph_rows[] = { "leaf_a", "path_a", "rec",  "leaf_b",
						  "top",    "path_b", "main" };
	size_t lines = 0;
	for (size_t i = 0; i < sizeof graph_rows / sizeof graph_rows[0]; i++)
		lines += compare_caller_graph(out, pg, graph_rows[i]);
	fprintf(stderr, "caller chains: %zu lines under %zu rows as perf\n", lines,
		sizeof graph_rows / sizeof graph_rows[0]);
	free(pg);
	free(out);

	/* callee order: under leaf_a, its two callers with perf's chains */
	snprintf(args, sizeof args, COMPAT " --time %s --threshold=0 --order=callee '%s'", L.win,
		 L.fp);
	out = report_ok(args);
	ck_assert_ptr_nonnull(strstr(out, "# Chains: callee order"));
	snprintf(cmd, sizeof cmd,
		 "perf report -i '%s' --children --sort dso,sym -g folded,0,callee --stdio "
		 "--time %s 2>/dev/null | grep '^[0-9.]*%% leaf_a;path_'",
		 L.fp, L.win);
	char *pc = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(pc);
	want_a = -1;
	want_b = -1;
	for (char *line = strtok(pc, "\n"); line; line = strtok(NULL, "\n")) {
		double v = strtod(line, NULL);
		if (strstr(line, "leaf_a;path_a;"))
			want_a = v;
		else if (strstr(line, "leaf_a;path_b;"))
			want_b = v;
	}
	free(pc);
	a = branch_pct(out, "leaf_a", "path_a");
	b = branch_pct(out, "leaf_a", "path_b");
	ck_assert_msg(want_a > 0 && a - want_a <= 0.01 + 1e-6 && want_a - a <= 0.01 + 1e-6,
		      "leaf_a <- path_a %.2f, perf %.2f", a, want_a);
	ck_assert_msg(want_b > 0 && b - want_b <= 0.01 + 1e-6 && want_b - b <= 0.01 + 1e-6,
		      "leaf_a <- path_b %.2f, perf %.2f", b, want_b);
	free(out);

	/* a threshold above every branch leaves the rows bare */
	snprintf(args, sizeof args, COMPAT " --time %s --threshold=100 '%s'", L.win, L.fp);
	out = report_ok(args);
	ck_assert_ptr_null(strstr(out, "|--"));
	free(out);
	free_rows(&perf);
}
END_TEST

static json_t *load_json(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);
	ck_assert_msg(j != NULL, "bad JSON: %s (line %d)", jerr.text, jerr.line);
	return j;
}

static uint64_t ju(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	ck_assert_msg(json_is_integer(v), "'%s' is not an integer", k);
	return (uint64_t)json_integer_value(v);
}

START_TEST(test_json)
{
	NEED_LAB();
	char args[2 * PATHMAX], extra[128];
	snprintf(args, sizeof args, COMPAT " --format=json --time %s '%s'", L.win, L.fp);
	char *out = report_ok(args);
	json_t *j = load_json(out);
	ck_assert_str_eq(json_string_value(json_object_get(j, "schema")), "perfdiff.report/1");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "version")), 1);
	json_t *settings = json_object_get(j, "settings");
	ck_assert(json_is_true(json_object_get(settings, "perf_compat")));
	ck_assert(json_is_true(json_object_get(settings, "keep_suffixes")));
	ck_assert(json_is_false(json_object_get(settings, "inline")));
	json_t *filters = json_object_get(settings, "filters");
	ck_assert_uint_eq(ju(filters, "time_start_ns"), L.win_ns);
	ck_assert(json_is_null(json_object_get(filters, "comm")));
	json_t *runs = json_object_get(j, "runs");
	ck_assert_uint_eq(json_array_size(runs), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(runs, 0), "path")), L.fp);
	json_t *events = json_object_get(j, "events");
	ck_assert_uint_eq(json_array_size(events), 1);
	json_t *ev = json_array_get(events, 0);
	ck_assert_str_eq(json_string_value(json_object_get(ev, "name")), "cpu-clock");
	ck_assert(json_is_true(json_object_get(ev, "default")));
	uint64_t period = ju(ev, "period");
	ck_assert_uint_eq(json_integer_value(json_array_get(json_object_get(ev, "period_runs"), 0)),
			  period);
	rows perf;
	snprintf(extra, sizeof extra, "--time %s", L.win);
	perf_rows(L.fp, extra, NULL, &perf);
	ck_assert_uint_eq(period, perf.count);

	/* the rows, as perf's */
	rows ours = { 0 };
	json_t *entries = json_object_get(ev, "entries");
	ck_assert_uint_gt(json_array_size(entries), 8);
	uint64_t prev = UINT64_MAX;
	for (size_t i = 0; i < json_array_size(entries); i++) {
		json_t *e = json_array_get(entries, i);
		const char *dso = json_string_value(json_object_get(e, "dso"));
		const char *base = strrchr(dso, '/');
		uint64_t c = ju(e, "children"), sf = ju(e, "self");
		ck_assert_uint_le(c, prev);
		prev = c;
		ck_assert_uint_le(sf, c);
		double cp = json_real_value(json_object_get(e, "children_pct"));
		ck_assert(cp - 100.0 * (double)c / (double)period < 1e-3 &&
			  100.0 * (double)c / (double)period - cp < 1e-3);
		ck_assert_uint_eq(json_integer_value(
					  json_array_get(json_object_get(e, "children_runs"), 0)),
				  c);
		add_row(&ours, base ? base + 1 : dso, json_string_value(json_object_get(e, "symbol")),
			cp, json_real_value(json_object_get(e, "self_pct")),
			json_is_true(json_object_get(e, "kernel")) ? 'k' : '.');
	}
	ck_assert_uint_ge(compare_rows(&perf, &ours), 8);
	free_rows(&ours);
	free_rows(&perf);

	/* the tree: preorder, parents first, totals add up */
	json_t *tree = json_object_get(ev, "tree");
	size_t n = json_array_size(tree);
	ck_assert_uint_eq(n, ju(ev, "nodes"));  /* no percent limit: every node */
	uint64_t *kids = calloc(n, sizeof *kids);
	ck_assert_ptr_nonnull(kids);
	uint64_t self = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *node = json_array_get(tree, i);
		ck_assert_uint_eq(ju(node, "id"), i);
		json_t *par = json_object_get(node, "parent");
		if (i == 0) {
			ck_assert(json_is_null(par));
			ck_assert(json_is_null(json_object_get(node, "symbol")));
			ck_assert_uint_eq(ju(node, "total"), period);
		} else {
			ck_assert_uint_lt((uint64_t)json_integer_value(par), i);
			kids[json_integer_value(par)] += ju(node, "total");
		}
		self += ju(node, "self");
	}
	ck_assert_uint_eq(self, period);
	for (size_t i = 0; i < n; i++) {
		json_t *node = json_array_get(tree, i);
		ck_assert_uint_eq(ju(node, "total"), ju(node, "self") + kids[i]);
	}
	free(kids);
	json_decref(j);
	free(out);

	/* with DWARF read (inline frames on, not --perf-compat), tree nodes
	 * name their function's source file: the workload's for leaf_a, none
	 * for the root */
	snprintf(args, sizeof args, "--format=json '%s'", L.fp);
	out = report_ok(args);
	j = load_json(out);
	tree = json_object_get(json_array_get(json_object_get(j, "events"), 0), "tree");
	ck_assert(json_is_null(json_object_get(json_array_get(tree, 0), "unit")));
	size_t with_unit = 0;
	for (size_t i = 0; i < json_array_size(tree); i++) {
		json_t *node = json_array_get(tree, i);
		const char *sym = json_string_value(json_object_get(node, "symbol"));
		const char *unit = json_string_value(json_object_get(node, "unit"));
		if (sym && strcmp(sym, "leaf_a") == 0 && !json_is_true(json_object_get(node, "inlined"))) {
			ck_assert_msg(unit && strlen(unit) >= 9 &&
					      strcmp(unit + strlen(unit) - 9, "profile.c") == 0,
				      "leaf_a unit %s", unit ? unit : "null");
			with_unit++;
		}
	}
	ck_assert_uint_gt(with_unit, 0);
	json_decref(j);
	free(out);

	/* --percent-limit prunes rows and tree nodes */
	snprintf(args, sizeof args, COMPAT " --format=json --percent-limit=5 '%s'", L.fp);
	out = report_ok(args);
	j = load_json(out);
	ev = json_array_get(json_object_get(j, "events"), 0);
	period = ju(ev, "period");
	entries = json_object_get(ev, "entries");
	ck_assert_uint_gt(json_array_size(entries), 0);
	for (size_t i = 0; i < json_array_size(entries); i++)
		ck_assert(ju(json_array_get(entries, i), "children") * 20 >= period);
	tree = json_object_get(ev, "tree");
	for (size_t i = 1; i < json_array_size(tree); i++)
		ck_assert(ju(json_array_get(tree, i), "total") * 20 >= period);
	ck_assert_uint_lt(json_array_size(tree), ju(ev, "nodes"));
	json_decref(j);
	free(out);
}
END_TEST

/* Split one CSV line (no quoted line breaks here) into fields. */
static size_t csv_fields(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *w = line;
	for (char *r = line; n < max;) {
		f[n++] = w;
		if (*r == '"') {
			for (r++; *r; r++) {
				if (*r == '"' && r[1] == '"')
					*w++ = *r++;
				else if (*r == '"')
					break;
				else
					*w++ = *r;
			}
			r += *r == '"';
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		bool more = *r == ',';
		*w++ = '\0';
		if (!more)
			break;
		r++;
	}
	return n;
}

START_TEST(test_csv)
{
	NEED_LAB();
	char args[3 * PATHMAX];
	snprintf(args, sizeof args, COMPAT " --format=csv '%s' '%s'", L.fp, L.fp);
	char *out = report_ok(args);
	char *save;
	char *line = strtok_r(out, "\n", &save);
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(line, "event,symbol,dso,level,inlined,children_pct,self_pct,children,self,"
			       "children_0,self_0,children_1,self_1\r");
	size_t n = 0;
	bool seen_leaf = false;
	while ((line = strtok_r(NULL, "\n", &save))) {
		size_t len = strlen(line);
		ck_assert(len && line[len - 1] == '\r');
		line[len - 1] = '\0';
		char *f[16];
		ck_assert_uint_eq(csv_fields(line, f, 16), 13);
		ck_assert_str_eq(f[0], "cpu-clock");
		uint64_t c = strtoull(f[7], NULL, 10), c0 = strtoull(f[9], NULL, 10),
			 c1 = strtoull(f[11], NULL, 10);
		uint64_t s = strtoull(f[8], NULL, 10), s0 = strtoull(f[10], NULL, 10);
		/* the same file twice: equal runs, summed */
		ck_assert_uint_eq(c0, c1);
		ck_assert_uint_eq(c, c0 + c1);
		ck_assert_uint_eq(s, 2 * s0);
		ck_assert(strcmp(f[3], "k") == 0 || strcmp(f[3], ".") == 0);
		ck_assert_str_eq(f[4], "0");
		if (strcmp(f[1], "leaf_a") == 0) {
			seen_leaf = true;
			ck_assert_str_eq(f[2], L.bin);
			ck_assert_str_eq(f[3], ".");
		}
		n++;
	}
	ck_assert(seen_leaf);
	ck_assert_uint_gt(n, 8);
	free(out);
}
END_TEST

/* A frame as both sides can name it: no symbol version, and "[unknown]"
 * for what perf -N cannot name (unresolved addresses, the vdso). */
static void norm_frame(const char *f, size_t n, char *out, size_t cap)
{
	snprintf(out, cap, "%.*s", (int)n, f);
	char *at = strstr(out, "@@");
	if (at)
		*at = '\0';
	if (is_address(out) || strncmp(out, "__vdso_", 7) == 0 ||
	    (strlen(out) > 2 && strncmp(out, "0x", 2) == 0))
		snprintf(out, cap, "[unknown]");
}

typedef struct stacks {
	char **key;
	uint64_t *w;
	size_t n;
} stacks;

static void stacks_add(stacks *s, const char *key, uint64_t w)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->key[i], key) == 0) {
			s->w[i] += w;
			return;
		}
	s->key = realloc(s->key, (s->n + 1) * sizeof *s->key);
	s->w = realloc(s->w, (s->n + 1) * sizeof *s->w);
	ck_assert(s->key && s->w);
	s->key[s->n] = xstrdup(key);
	s->w[s->n++] = w;
}

static void stacks_free(stacks *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->key[i]);
	free(s->key);
	free(s->w);
	memset(s, 0, sizeof *s);
}

/* Collapsed stacks against perf script's samples. */
START_TEST(test_folded)
{
	NEED_LAB();
	char args[2 * PATHMAX], cmd[2 * PATHMAX], buf[1024];
	static char key[1 << 16];
	snprintf(args, sizeof args, COMPAT " --format=folded --time %s '%s'", L.win, L.fp);
	char *out = report_ok(args);
	stacks ours = { 0 }, want = { 0 };
	char *save;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		ck_assert_ptr_nonnull(sp);
		uint64_t w = strtoull(sp + 1, NULL, 10);
		*sp = '\0';
		/* "comm;root;...;leaf" */
		size_t at = 0;
		const char *f = line;
		size_t n = strcspn(f, ";");
		at += (size_t)snprintf(key + at, sizeof key - at, "%.*s", (int)n, f);
		for (f += n; *f == ';';) {
			f++;
			n = strcspn(f, ";");
			norm_frame(f, n, buf, sizeof buf);
			at += (size_t)snprintf(key + at, sizeof key - at, ";%s", buf);
			f += n;
		}
		stacks_add(&ours, key, w);
	}
	/* perf script: "comm period" then "\taddr sym" lines, leaf first */
	snprintf(cmd, sizeof cmd, "perf script -i '%s' --time %s -F comm,period,ip,sym 2>/dev/null",
		 L.fp, L.win);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_msg(text && st == 0, "%s", cmd);
	char *frames[512];
	size_t nf = 0;
	char comm[256] = "";
	uint64_t period = 0;
	bool have = false;
	char *line = strtok_r(text, "\n", &save);
	for (;; line = strtok_r(NULL, "\n", &save)) {
		if (!line || (line[0] != '\t' && line[0] != ' ')) {
			if (have) {
				size_t at = (size_t)snprintf(key, sizeof key, "%s", comm);
				for (size_t i = nf; i-- > 0;)
					at += (size_t)snprintf(key + at, sizeof key - at, ";%s",
							       frames[i]);
				stacks_add(&want, key, period);
				for (size_t i = 0; i < nf; i++)
					free(frames[i]);
			}
			if (!line)
				break;
			/* comm may hold blanks: the period is the last token */
			char *end = line + strlen(line);
			while (end > line && end[-1] == ' ')
				*--end = '\0';
			char *sp = strrchr(line, ' ');
			ck_assert_ptr_nonnull(sp);
			period = strtoull(sp + 1, NULL, 10);
			while (sp > line && sp[-1] == ' ')
				sp--;
			snprintf(comm, sizeof comm, "%.*s", (int)(sp - line), line);
			nf = 0;
			have = true;
			continue;
		}
		char *f = line + strspn(line, "\t ");
		f += strcspn(f, " ");
		f += strspn(f, " ");
		norm_frame(f, strlen(f), buf, sizeof buf);
		ck_assert_uint_lt(nf, 512);
		frames[nf++] = xstrdup(buf);
	}
	free(text);
	ck_assert_uint_gt(want.n, 5);
	ck_assert_uint_eq(ours.n, want.n);
	for (size_t i = 0; i < want.n; i++) {
		size_t k = 0;
		while (k < ours.n && strcmp(ours.key[k], want.key[i]) != 0)
			k++;
		ck_assert_msg(k < ours.n, "perf script stack missing: %s", want.key[i]);
		ck_assert_msg(ours.w[k] == want.w[i], "%s: ours %" PRIu64 ", perf %" PRIu64,
			      want.key[i], ours.w[k], want.w[i]);
	}
	stacks_free(&ours);
	stacks_free(&want);
	free(out);

	/* --weight=samples counts samples */
	snprintf(args, sizeof args, COMPAT " --format=folded --weight=samples '%s'", L.fp);
	out = report_ok(args);
	uint64_t samples = 0;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		samples += strtoull(strrchr(l, ' ') + 1, NULL, 10);
	free(out);
	snprintf(cmd, sizeof cmd, "perf script -i '%s' -F period 2>/dev/null | wc -l", L.fp);
	text = pd_test_run(cmd, &st);
	ck_assert_uint_eq(samples, strtoull(text, NULL, 10));
	free(text);
}
END_TEST

START_TEST(test_events_and_runs)
{
	NEED_LAB();
	char args[3 * PATHMAX];
	/* every event with samples, each with perf's rows */
	snprintf(args, sizeof args, COMPAT " --no-chains '%s'", L.two);
	char *out = report_ok(args);
	const char *names[] = { "cpu-clock", "task-clock" };
	for (int k = 0; k < 2; k++) {
		rows ours, perf;
		parse_rows(out, names[k], false, &ours);
		perf_rows(L.two, "", names[k], &perf);
		ck_assert_uint_eq(ours.count, perf.count);
		ck_assert_uint_ge(compare_rows(&perf, &ours), 5);
		free_rows(&ours);
		free_rows(&perf);
	}
	free(out);
	/* --event picks one */
	snprintf(args, sizeof args, COMPAT " --no-chains --event task-clock '%s'", L.two);
	out = report_ok(args);
	ck_assert_ptr_nonnull(strstr(out, "# Event 'task-clock'"));
	ck_assert_ptr_null(strstr(out, "# Event 'cpu-clock'"));
	free(out);
	/* folded: the robot's event (cpu-clock, not task-clock) */
	snprintf(args, sizeof args, COMPAT " --format=folded '%s'", L.two);
	out = report_ok(args);
	uint64_t sum = 0;
	char *save;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		sum += strtoull(strrchr(l, ' ') + 1, NULL, 10);
	free(out);
	rows perf;
	perf_rows(L.two, "", "cpu-clock", &perf);
	ck_assert_uint_eq(sum, perf.count);
	free_rows(&perf);

	/* two runs: summed, the header lists both */
	snprintf(args, sizeof args, COMPAT " --no-chains '%s' '%s'", L.fp, L.two);
	out = report_ok(args);
	ck_assert_ptr_nonnull(strstr(out, "# perfdiff report: 2 runs"));
	rows ours, a, b;
	parse_rows(out, "cpu-clock", false, &ours);
	perf_rows(L.fp, "", "cpu-clock", &a);
	perf_rows(L.two, "", "cpu-clock", &b);
	ck_assert_uint_eq(ours.count, a.count + b.count);
	const row *ra = find_row(&a, "profile", "leaf_a"), *rb = find_row(&b, "profile", "leaf_a");
	const row *ro = find_row(&ours, "profile", "leaf_a");
	ck_assert(ra && rb && ro);
	double want = (ra->children * (double)a.count + rb->children * (double)b.count) /
		      (double)(a.count + b.count);
	ck_assert_msg(ro->children - want <= 0.02 && want - ro->children <= 0.02,
		      "leaf_a over two runs %.2f, want %.2f", ro->children, want);
	free_rows(&ours);
	free_rows(&a);
	free_rows(&b);
	free(out);
}
END_TEST

START_TEST(test_filters_and_sorting)
{
	NEED_LAB();
	char args[3 * PATHMAX];
	/* --comm: only the workload's samples (perf's own, before exec, are
	 * "perf-exec") */
	snprintf(args, sizeof args, COMPAT " --no-chains --comm=profile '%s'", L.fp);
	char *out = report_ok(args);
	rows ours, perf;
	parse_rows(out, NULL, false, &ours);
	perf_rows(L.fp, "--comms profile --percentage relative", NULL, &perf);
	ck_assert_uint_ge(compare_rows(&perf, &ours), 5);
	free_rows(&ours);
	free_rows(&perf);
	free(out);
	/* --percent-limit */
	snprintf(args, sizeof args, COMPAT " --no-chains --percent-limit=10 '%s'", L.fp);
	out = report_ok(args);
	parse_rows(out, NULL, false, &ours);
	ck_assert_uint_gt(ours.n, 2);
	for (size_t i = 0; i < ours.n; i++)
		ck_assert(ours.v[i].children >= 9.995);
	free_rows(&ours);
	free(out);
	/* --sort=self */
	snprintf(args, sizeof args, COMPAT " --no-chains --sort=self '%s'", L.fp);
	out = report_ok(args);
	parse_rows(out, NULL, false, &ours);
	ck_assert_uint_gt(ours.n, 5);
	for (size_t i = 1; i < ours.n; i++)
		ck_assert(ours.v[i - 1].self >= ours.v[i].self);
	ck_assert_str_eq(ours.v[0].sym, "leaf_a");
	free_rows(&ours);
	free(out);
	/* clone suffixes fold by default: one clone_work row */
	snprintf(args, sizeof args, "--perf-compat --no-chains '%s'", L.fp);
	out = report_ok(args);
	ck_assert_ptr_nonnull(strstr(out, "] clone_work\n"));
	ck_assert_ptr_null(strstr(out, "clone_work.isra.0"));
	ck_assert_ptr_null(strstr(out, "clone_work.constprop.0"));
	free(out);
	/* -U: no address rows */
	snprintf(args, sizeof args, COMPAT " --no-chains -U '%s'", L.fp);
	out = report_ok(args);
	parse_rows(out, NULL, false, &ours);
	for (size_t i = 0; i < ours.n; i++)
		ck_assert_msg(!is_address(ours.v[i].sym), "address row %s with -U", ours.v[i].sym);
	free_rows(&ours);
	free(out);
}
END_TEST

/* Samples whose call chain perf shows with the value -1 in it (perf
 * report -D lists each chain entry as ".....  N: HEX"). */
static long perf_garbage_chains(const char *data)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "perf report -D -i '%s' 2>/dev/null | awk '/FP chain: nr:/ "
		 "{ n += bad; bad = 0 } / ffffffffffffffff$/ { bad = 1 } END { print n + bad }'",
		 data);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	long n = atol(out);
	free(out);
	return n;
}

/* A chain with garbage in it (tests/workloads/garbage_fp.c): dropped
 * whole under --perf-compat, as perf drops it (every row as perf's),
 * cut before the garbage otherwise (the program's function then holds
 * its system calls), and counted by dump --stats under its binary. */
/* A profile's text, rows sorted by self, above a row limit. */
typedef struct limited {
	pd_profile *p;
	double limit;
} limited;

/* pd_test_written()'s writer: the chain threshold left to its default. */
static int write_limited(pd_writer *w, void *ctx, pd_error *err)
{
	const limited *l = ctx;
	pd_report_write_options o;
	pd_report_write_options_init(&o, PD_REPORT_WRITE_OPTIONS_VERSION);
	ck_assert(o.threshold == PD_REPORT_THRESHOLD_AUTO);
	o.percent_limit = l->limit;
	o.sort_self = true;
	return pd_report_write(w, l->p, &o, err);
}

/* The library's text of `path` with a row limit of `limit`. */
static char *lib_text(const char *path, double limit)
{
	limited l = { NULL, limit };
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&l.p, NULL, &err), 0);
	ck_assert_msg(pd_profile_add_file(l.p, path, &err) == 0, "%s", err.message);
	char *text = pd_test_written(write_limited, &l);
	pd_profile_free(l.p);
	return text;
}

/* A row limit hides the chains below it too, as perf's --percent-limit,
 * in the library as in the command (whose output it must equal). */
START_TEST(test_percent_limit_chains)
{
	NEED_LAB();
	char args[PATHMAX + 64];
	snprintf(args, sizeof args, "--percent-limit=5 --sort=self '%s'", L.fp);
	char *cli = report_ok(args), *lib = lib_text(L.fp, 5);
	ck_assert_str_eq(lib, cli);
	size_t nodes = 0;
	for (size_t i = 0; lib[i]; i++) {
		double v;
		if (lib[i] != '-' || lib[i + 1] != '-' || sscanf(lib + i, "--%lf%%--", &v) != 1)
			continue;
		ck_assert_msg(v >= 4.995, "a chain node of %.2f%% under a 5%% limit:\n%s", v, lib);
		nodes++;
	}
	ck_assert_uint_gt(nodes, 0);
	free(cli);
	free(lib);
}
END_TEST

START_TEST(test_invalid_chains)
{
	NEED_LAB();
#ifndef __x86_64__
	PD_SKIP_IF("the workload is x86_64 assembly");
#endif
	char bin[PATHMAX], data[PATHMAX], args[3 * PATHMAX];
	snprintf(bin, sizeof bin, "%s/garbage_fp", L.dir);
	snprintf(data, sizeof data, "%s/garbage.data", L.dir);
	ck_assert(pd_test_compile("cc", "-O1 -fno-omit-frame-pointer", bin,
				  WORKLOAD_DIR "/garbage_fp.c"));
	snprintf(args, sizeof args, "'%s' 2000000", bin);
	ck_assert(pd_test_perf_record(data, "-q -N -e cpu-clock -g", args));
	long bad = perf_garbage_chains(data);
	int st;
	ck_assert_msg(bad > 50, "only %ld chains with -1 in them", bad);

	snprintf(args, sizeof args, COMPAT " --no-chains '%s'", data);
	char *out = report_ok(args);
	rows ours, perf;
	parse_rows(out, NULL, false, &ours);
	perf_rows(data, "", NULL, &perf);
	size_t n = compare_rows(&perf, &ours);
	ck_assert_uint_ge(n, 4);
	const row *pc = find_row(&perf, "garbage_fp", "calls");
	ck_assert_ptr_nonnull(pc);
	ck_assert_msg(pc->children < 90, "perf kept the garbage chains: calls %.2f", pc->children);
	free(out);
	free_rows(&ours);

	/* by default the frames before the garbage stay: calls is under all */
	snprintf(args, sizeof args, "--no-chains '%s'", data);
	out = report_ok(args);
	parse_rows(out, NULL, false, &ours);
	const row *oc = find_row(&ours, "garbage_fp", "calls");
	ck_assert_ptr_nonnull(oc);
	/* what perf dropped comes back, at most the share of the cut chains
	 * (fewer where perf had calls anyway: a sample taken in it) */
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "perf script -F period -i '%s' 2>/dev/null | grep -c .", data);
	char *lines = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(lines);
	double cut = 100.0 * (double)bad / (double)atol(lines);
	free(lines);
	ck_assert_msg(oc->children > pc->children + cut / 2 &&
			      oc->children <= pc->children + cut + 0.01,
		      "calls %.2f, perf %.2f, cut chains %.2f %%", oc->children, pc->children, cut);
	fprintf(stderr, "invalid chains: %ld (%.1f %%); calls %.2f %% as perf with --perf-compat, "
		"%.2f %% by default\n", bad, cut, pc->children, oc->children);
	ck_assert_double_eq_tol(oc->self, pc->self, 0.01 + 1e-6);
	free(out);
	free_rows(&ours);
	free_rows(&perf);

	snprintf(args, sizeof args, "dump --stats --format=json '%s'", data);
	char *err;
	out = pd_test_cli(L.dir, args, &st, &err);
	ck_assert_int_eq(st, 0);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	ck_assert_ptr_nonnull(j);
	json_t *v = json_object_get(j, "invalid_chains");
	ck_assert_uint_eq(json_array_size(v), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(v, 0), "dso")), bin);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(v, 0), "samples")), bad);
	json_decref(j);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_errors)
{
	NEED_LAB();
	int st;
	char *err;
	char args[3 * PATHMAX];
	static const char *const bad[] = {
		"",                       /* no FILE */
		"--format=xml FILE",
		"--order=sideways FILE",
		"--threshold=200 FILE",
		"--percent-limit=x FILE",
		"--time 5 FILE",
		"--time 9,5 FILE",
		"--sort=name FILE",
		"--weight=bytes FILE",
		"--pid=1,x FILE",
		"--bogus FILE",
		"--event nosuch FILE",
		"- -",
		"/nonexistent/perf.data",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *at = strstr(bad[i], "FILE");
		if (at)
			snprintf(args, sizeof args, "%.*s'%s'", (int)(at - bad[i]), bad[i], L.fp);
		else
			snprintf(args, sizeof args, "%s", bad[i]);
		char *out = report(args, &st, &err);
		ck_assert_msg(st == 2, "'%s': exit %d", args, st);
		ck_assert_msg(strncmp(err, "perfdiff: ", 10) == 0, "'%s': stderr %s", args, err);
		free(out);
		free(err);
	}
	/* help */
	char *out = report("--help", &st, NULL);
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "--format=FMT"));
	free(out);
	/* a corrupt record after some samples: what was read is reported,
	 * the error goes to stderr, exit 2 */
	size_t len;
	uint8_t *data = pd_test_read_file(L.fp, &len);
	ck_assert_ptr_nonnull(data);
	char bad_path[PATHMAX];
	snprintf(bad_path, sizeof bad_path, "%s/bad.data", L.dir);
	uint64_t off, size;
	memcpy(&off, data + 40, 8);   /* perf_file_header.data.offset */
	memcpy(&size, data + 48, 8);
	ck_assert(off + size <= len && size > 4096);
	/* a record header of size 0 in the second half of the data, after
	 * the workload's last MMAP: the samples before the cut are named
	 * (perf flushes each CPU's buffer on its own, so an MMAP may be
	 * written after samples of its process) */
	uint64_t at = off, target = off + size / 2;
	while (at < off + size) {
		uint32_t type;
		uint16_t rs;
		memcpy(&type, data + at, 4);
		memcpy(&rs, data + at + 6, 2);
		ck_assert_uint_gt(rs, 0);
		if ((type == 1 || type == 10) && memmem(data + at, rs, "/profile", 8) &&
		    at + rs > target)
			target = at + rs;
		at += rs;
	}
	ck_assert_msg(target < off + size, "the workload's last MMAP ends the data");
	at = off;
	while (at < target) {
		uint16_t rs;
		memcpy(&rs, data + at + 6, 2);
		at += rs;
	}
	ck_assert_uint_lt(at, off + size);
	memset(data + at + 6, 0, 2);
	ck_assert(pd_test_write_file(bad_path, data, len));
	free(data);
	snprintf(args, sizeof args, COMPAT " --no-chains '%s'", bad_path);
	out = report(args, &st, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_ptr_nonnull(strstr(err, "bad.data"));
	ck_assert_ptr_nonnull(strstr(out, "# Event 'cpu-clock'"));
	ck_assert_ptr_nonnull(strstr(out, "leaf_a"));
	free(out);
	free(err);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *lab = tcase_create("recorded");
	tcase_add_unchecked_fixture(lab, lab_setup, lab_teardown);
	tcase_set_timeout(lab, 600);
	tcase_add_test(lab, test_text_rows_match_perf);
	tcase_add_test(lab, test_text_chains);
	tcase_add_test(lab, test_json);
	tcase_add_test(lab, test_csv);
	tcase_add_test(lab, test_folded);
	tcase_add_test(lab, test_events_and_runs);
	tcase_add_test(lab, test_filters_and_sorting);
	tcase_add_test(lab, test_errors);
	tcase_add_test(lab, test_invalid_chains);
	tcase_add_test(lab, test_percent_limit_chains);
	suite_add_tcase(s, lab);
	return s;
}

int main(void)
{
	return pd_test_main(report_suite());
}
