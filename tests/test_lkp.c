/*
 * The kernel test robot's perf-profile keys (perfdiff/report.h).
 *
 * Oracle: the robot's own pipeline, rebuilt here independently of the
 * library — `perf report --children --header -U -g folded,0.5,callee
 * --sort=dso,symbol` run on recordings made at test time, and a
 * re-statement of lkp-tests' programs/perf-profile/parse with POSIX
 * regular expressions and floating-point sums, as the Ruby original does
 * (lkp-perf-profile.md §3–4).  The library's keys must equal the
 * oracle's, key for key, for:
 *
 *   fp    a user-space frame-pointer workload compiled here with
 *         recursion and .constprop/.isra clones;
 *   sys   a system-wide recording (kernel chains, several processes);
 *   two   two events (cpu-clock, task-clock): the robot adds the second
 *         event's rows to the first event's keys.
 *
 * Also: the synthetic table of lkp-perf-profile.md §4.6 through both the
 * oracle parser and the library's parser half; perf's chain rule (nearest
 * occurrence, own period, truncated 0.5 % limit) on hand-made trees; the
 * name clean-up; multi-run blocks and means; the CLI when it is wired.
 *
 * Tests that need perf, cc or system-wide recording skip with a message
 * when those are not available.
 */
#include "testutil.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perfdiff/report.h"
#include "report/lkp_internal.h"

#define PATHMAX 4200

/* ------------------------------------------------ the oracle parser */

typedef struct okey {
	char *key;
	double v;
} okey;

typedef struct okeys {
	okey *v;
	size_t n, cap;
} okeys;

static void okeys_free(okeys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].key);
	free(k->v);
	memset(k, 0, sizeof *k);
}

/* results[key] += v (Ruby: Hash.new(0), insertion order kept) */
static void okeys_add(okeys *k, const char *key, double v)
{
	for (size_t i = k->n; i-- > 0;)
		if (strcmp(k->v[i].key, key) == 0) {
			k->v[i].v += v;
			return;
		}
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->v = realloc(k->v, k->cap * sizeof *k->v);
		ck_assert_ptr_nonnull(k->v);
	}
	k->v[k->n].key = strdup(key);
	ck_assert_ptr_nonnull(k->v[k->n].key);
	k->v[k->n].v = v;
	k->n++;
}

static int okey_cmp(const void *a, const void *b)
{
	return strcmp(((const okey *)a)->key, ((const okey *)b)->key);
}

typedef struct robot_re {
	regex_t row, chain, samples, events, clone;
} robot_re;

static void re_compile(regex_t *re, const char *pat)
{
	int rc = regcomp(re, pat, REG_EXTENDED);
	ck_assert_msg(rc == 0, "regcomp %s", pat);
}

#define SP "[[:space:]]"
#define NSP "[^[:space:]]"

static void robot_re_init(robot_re *r)
{
	re_compile(&r->row, "^" SP "*([0-9]+\\.[0-9]+)%" SP "+([0-9]+\\.[0-9]+)%" SP "+"
		   NSP "+" SP "+" NSP "+" SP "+(" NSP "+)(" SP "+" NSP "+" SP "+" NSP
		   "+)?" SP "*$");
	re_compile(&r->chain, "^([0-9]+\\.[0-9]+)%" SP "+(" NSP "+)$");
	re_compile(&r->samples, "^# Samples: [0-9]+[KMG ] of event ");
	re_compile(&r->events, "^# Events: [0-9]+[KMG ]" SP "+");
	re_compile(&r->clone, "\\.(isra|constprop|part)\\.[0-9]+");
}

static void robot_re_free(robot_re *r)
{
	regfree(&r->row);
	regfree(&r->chain);
	regfree(&r->samples);
	regfree(&r->events);
	regfree(&r->clone);
}

/* fixup_symbol_name: symbol.remove(/\.(isra|constprop|part)\.[0-9]+/) */
static void fixup(const robot_re *r, const char *s, size_t n, char *out, size_t cap)
{
	char *tmp = strndup(s, n);
	ck_assert_ptr_nonnull(tmp);
	size_t o = 0;
	const char *p = tmp;
	regmatch_t m[1];
	while (*p && regexec(&r->clone, p, 1, m, p == tmp ? 0 : REG_NOTBOL) == 0) {
		for (regoff_t i = 0; i < m[0].rm_so && o + 1 < cap; i++)
			out[o++] = p[i];
		p += m[0].rm_eo;
	}
	for (; *p && o + 1 < cap; p++)
		out[o++] = *p;
	out[o] = '\0';
	free(tmp);
}

static char *sub(const char *line, const regmatch_t *m)
{
	char *s = strndup(line + m->rm_so, (size_t)(m->rm_eo - m->rm_so));
	ck_assert_ptr_nonnull(s);
	return s;
}

/* $'.tr(':', '-').tr('\'', '').chomp */
static void event_of(const char *rest, char *ev, size_t cap)
{
	size_t o = 0;
	for (const char *p = rest; *p && o + 1 < cap; p++) {
		if (*p == '\'')
			continue;
		ev[o++] = *p == ':' ? '-' : *p;
	}
	ev[o] = '\0';
}

/*
 * The robot's parser on perf report's text: the sorted keys with a sum
 * ≥ 0.05 (values as it would print them are "%.2f" of v).
 */
static void robot_parse(const char *text, okeys *out)
{
	memset(out, 0, sizeof *out);
	robot_re r;
	robot_re_init(&r);
	char *buf = strdup(text);
	ck_assert_ptr_nonnull(buf);
	char *save = NULL;
	char *line = strtok_r(buf, "\n", &save);
	/* exit unless $stdin.gets =~ /^# ========$| --header/ */
	if (!line || (strcmp(line, "# ========") != 0 && !strstr(line, " --header")))
		goto done;
	char ev[512] = "";
	regmatch_t m[5];
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (regexec(&r.events, line, 1, m, 0) == 0 ||
		    regexec(&r.samples, line, 1, m, 0) == 0) {
			event_of(line + m[0].rm_eo, ev, sizeof ev);
			break;
		}
	}
	okeys acc = { 0 };
	char key[8192], sym[4096];
	while (line && (line = strtok_r(NULL, "\n", &save))) {
		size_t len = strlen(line);
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (strncmp(line, "# ", 2) == 0)
			continue;
		if (regexec(&r.row, line, 5, m, 0) == 0) {
			char *c = sub(line, &m[1]), *s = sub(line, &m[2]);
			fixup(&r, line + m[3].rm_so, (size_t)(m[3].rm_eo - m[3].rm_so),
			      sym, sizeof sym);
			snprintf(key, sizeof key, "children.%s.%s", ev, sym);
			okeys_add(&acc, key, strtod(c, NULL));
			snprintf(key, sizeof key, "self.%s.%s", ev, sym);
			okeys_add(&acc, key, strtod(s, NULL));
			free(c);
			free(s);
		} else if (regexec(&r.chain, line, 3, m, 0) == 0) {
			char *pct = sub(line, &m[1]), *chain = sub(line, &m[2]);
			/* split(';') drops trailing empty fields; keep [0, 5] */
			size_t cl = strlen(chain);
			while (cl && chain[cl - 1] == ';')
				chain[--cl] = '\0';
			int o = snprintf(key, sizeof key, "calltrace.%s", ev);
			const char *f = chain;
			for (int i = 0; i < 5 && cl; i++) {
				const char *e = strchr(f, ';');
				size_t fl = e ? (size_t)(e - f) : strlen(f);
				fixup(&r, f, fl, sym, sizeof sym);
				o += snprintf(key + o, sizeof key - (size_t)o, ".%s", sym);
				if (!e)
					break;
				f = e + 1;
			}
			okeys_add(&acc, key, strtod(pct, NULL));
			free(pct);
			free(chain);
		}
	}
	qsort(acc.v, acc.n, sizeof *acc.v, okey_cmp);
	for (size_t i = 0; i < acc.n; i++)
		if (acc.v[i].v >= 0.05)
			okeys_add(out, acc.v[i].key, acc.v[i].v);
	okeys_free(&acc);
done:
	free(buf);
	robot_re_free(&r);
}

/* The compare table's mean of two runs: (a + b) / 2, a missing key as 0. */
static void okeys_mean2(const okeys *a, const okeys *b, okeys *out)
{
	memset(out, 0, sizeof *out);
	for (int pass = 0; pass < 2; pass++) {
		const okeys *x = pass ? b : a;
		for (size_t i = 0; i < x->n; i++)
			okeys_add(out, x->v[i].key, 0);
	}
	qsort(out->v, out->n, sizeof *out->v, okey_cmp);
	for (size_t i = 0; i < out->n; i++) {
		double v[2] = { 0, 0 };
		for (int pass = 0; pass < 2; pass++) {
			const okeys *x = pass ? b : a;
			for (size_t j = 0; j < x->n; j++)
				if (strcmp(x->v[j].key, out->v[i].key) == 0) {
					/* a run's value is stored from the
					 * parser's "%.2f" text */
					char t[64];
					snprintf(t, sizeof t, "%.2f", x->v[j].v);
					v[pass] = strtod(t, NULL);
				}
		}
		out->v[i].v = (v[0] + v[1]) / 2;
	}
}

/* The robot's output lines. */
static char *okeys_text(const okeys *k)
{
	size_t cap = 64;
	for (size_t i = 0; i < k->n; i++)
		cap += strlen(k->v[i].key) + 32;
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	size_t o = 0;
	t[0] = '\0';
	for (size_t i = 0; i < k->n; i++)
		o += (size_t)snprintf(t + o, cap - o, "%s: %.2f\n", k->v[i].key,
				      k->v[i].v);
	return t;
}

/* --------------------------------------------- comparing key lists */

typedef struct match {
	size_t oracle, ours, same_key, exact, within, within_scaled, missing, extra;
	size_t kinds[3];   /* calltrace, children, self keys of the oracle */
} match;

/* Compare and print every difference (for the report and for failures). */
static match compare(const char *what, const okeys *want, const pd_lkp_key *got,
		     size_t ngot)
{
	match mt = { .oracle = want->n, .ours = ngot };
	size_t i = 0, j = 0;
	while (i < want->n || j < ngot) {
		int c = i == want->n ? 1 : j == ngot ? -1 :
			strcmp(want->v[i].key, got[j].key);
		if (c < 0) {
			fprintf(stderr, "%s: missing %s: %.2f\n", what,
				want->v[i].key, want->v[i].v);
			mt.missing++;
			i++;
			continue;
		}
		if (c > 0) {
			fprintf(stderr, "%s: extra   %s: %.2f\n", what, got[j].key,
				got[j].value);
			mt.extra++;
			j++;
			continue;
		}
		char a[64], b[64];
		snprintf(a, sizeof a, "%.2f", want->v[i].v);
		snprintf(b, sizeof b, "%.2f", got[j].value);
		mt.same_key++;
		if (strcmp(a, b) == 0)
			mt.exact++;
		else
			fprintf(stderr, "%s: value   %s: perf %s, ours %s (%.6f vs %.6f)\n", what,
				want->v[i].key, a, b, want->v[i].v, got[j].value);
		double d = fabs(want->v[i].v - got[j].value);
		if (d <= 0.01 + 1e-9)
			mt.within++;
		/* see SYS_SLACK: a denominator that differs scales every share */
		if (d <= 0.01 + 1e-9 || d <= 0.005 * want->v[i].v)
			mt.within_scaled++;
		const char *k = want->v[i].key;
		mt.kinds[strncmp(k, "calltrace.", 10) == 0 ? 0 :
			 strncmp(k, "children.", 9) == 0 ? 1 : 2]++;
		i++;
		j++;
	}
	fprintf(stderr,
		"lkp %s: oracle %zu keys (%zu calltrace, %zu children, %zu self), "
		"ours %zu; same keys %zu, exact %zu, within 0.01 %zu, missing %zu, "
		"extra %zu\n",
		what, mt.oracle, mt.kinds[0], mt.kinds[1], mt.kinds[2], mt.ours,
		mt.same_key, mt.exact, mt.within, mt.missing, mt.extra);
	return mt;
}

static bool oracle_has(const okeys *want, const char *key)
{
	for (size_t i = 0; i < want->n; i++)
		if (strcmp(want->v[i].key, key) == 0)
			return true;
	return false;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const pd_lkp_key *)a)->key, ((const pd_lkp_key *)b)->key);
}

/*
 * perf 6.1 prints some PLT stubs as a bare "@plt" (IRELATIVE slots, and
 * libc's .plt.sec entries, e.g. __tunable_get_val's, hit at every process
 * start); we name them after the slot's target, as objdump does (see
 * test_script's plt_explained).  A key of ours that the oracle lacks, but
 * has with each "X@plt" part as "@plt", is taken under perf's name.
 * Returns our keys so renamed (`*renamed` of them), sorted; free() it.
 */
static pd_lkp_key *plt_as_perf(const okeys *want, const pd_lkp_key *got, size_t ngot,
			       char ***names, size_t *renamed)
{
	pd_lkp_key *v = calloc(ngot ? ngot : 1, sizeof *v);
	*names = calloc(ngot ? ngot : 1, sizeof **names);
	ck_assert(v && *names);
	*renamed = 0;
	for (size_t i = 0; i < ngot; i++) {
		v[i] = got[i];
		if (!strstr(got[i].key, "@plt") || oracle_has(want, got[i].key))
			continue;
		char *n = malloc(strlen(got[i].key) + 1);
		ck_assert_ptr_nonnull(n);
		size_t o = 0;
		for (const char *p = got[i].key; *p;) {
			const char *dot = strchr(p, '.');
			size_t len = dot ? (size_t)(dot - p) : strlen(p);
			bool plt = len > 4 && strncmp(p + len - 4, "@plt", 4) == 0;
			memcpy(n + o, plt ? "@plt" : p, plt ? 4 : len);
			o += plt ? 4 : len;
			p += len;
			if (*p)
				n[o++] = *p++;
		}
		n[o] = '\0';
		if (oracle_has(want, n)) {
			v[i].key = n;
			(*names)[(*renamed)++] = n;
		} else {
			free(n);
		}
	}
	qsort(v, ngot, sizeof *v, by_key);
	return v;
}

/*
 * Every key equal, or — `slack` > 0 — at most that fraction of the
 * oracle's keys missing, extra or different.
 */
static void assert_match_slack(const char *what, const okeys *want,
			       const pd_lkp_key *got_as_is, size_t ngot, double slack)
{
	char **names;
	size_t renamed;
	pd_lkp_key *got = plt_as_perf(want, got_as_is, ngot, &names, &renamed);
	if (renamed)
		fprintf(stderr, "%s: %zu keys with a PLT stub perf calls \"@plt\"\n", what,
			renamed);
	match mt = compare(what, want, got, ngot);
	for (size_t i = 0; i < renamed; i++)
		free(names[i]);
	free(names);
	free(got);
	ck_assert_msg(mt.oracle > 0, "%s: the oracle found no keys", what);
	size_t bad = mt.missing + mt.extra +
		     (slack > 0 ? mt.same_key - mt.within_scaled : mt.same_key - mt.exact);
	size_t allowed = (size_t)(slack * (double)mt.oracle);
	ck_assert_msg(bad <= allowed,
		      "%s: %zu keys missing, %zu extra, %zu values differ (%zu "
		      "differ by > 0.01); %zu allowed (see stderr)",
		      what, mt.missing, mt.extra, mt.same_key - mt.exact,
		      mt.same_key - mt.within, allowed);
}

static void assert_match(const char *what, const okeys *want, const pd_lkp_key *got,
			 size_t ngot)
{
	assert_match_slack(what, want, got, ngot, 0);
}

/* ------------------------------------------------- the recordings */

/* Runs until SIGALRM: a clock read in the loop would put samples into
 * the vdso, which perf cannot name in -N recordings (no copy kept) while
 * libperfdiff names it from the running kernel's. */
static const char workload_src[] =
	"#include <signal.h>\n"
	"#include <stdint.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <sys/time.h>\n"
	"static volatile sig_atomic_t stop;\n"
	"static volatile uint64_t sink;\n"
	"struct big { uint64_t a, b, c, d[16]; };\n"
	"static void on_alarm(int sig) { (void)sig; stop = 1; }\n"
	/* only one field of *b used: IPA-SRA makes scan_field.isra.N */
	"static __attribute__((noinline)) uint64_t scan_field(const struct big *b, int n)\n"
	"{\n"
	"	uint64_t x = b->a;\n"
	"	for (int i = 0; i < n; i++)\n"
	"		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ull + (uint64_t)i;\n"
	"	return x;\n"
	"}\n"
	/* k is always the same constant: IPA-CP makes mix.constprop.N */
	"static __attribute__((noinline)) uint64_t mix(uint64_t x, int k, int n)\n"
	"{\n"
	"	for (int i = 0; i < n; i++)\n"
	"		x = x * 6364136223846793005ull + (uint64_t)k;\n"
	"	return x;\n"
	"}\n"
	"__attribute__((noinline)) uint64_t rec(uint64_t x, int depth)\n"
	"{\n"
	"	if (depth == 0)\n"
	"		return mix(x, 1442695, 3000);\n"
	"	return rec(x + 1, depth - 1) ^ x;\n"
	"}\n"
	"__attribute__((noinline)) uint64_t leaf_a(uint64_t x)\n"
	"{\n"
	"	struct big b;\n"
	"	memset(&b, 0, sizeof b);\n"
	"	b.a = x;\n"
	"	sink = b.d[3];\n"
	"	return scan_field(&b, 8000);\n"
	"}\n"
	"__attribute__((noinline)) uint64_t mid(uint64_t x)\n"
	"{\n"
	"	return leaf_a(x) + mix(x, 1442695, 2000);\n"
	"}\n"
	"__attribute__((noinline)) uint64_t top(uint64_t x)\n"
	"{\n"
	"	uint64_t r = mid(x);\n"
	"	r += rec(x, 6);\n"
	"	r += leaf_a(r);\n"
	"	return r;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long ms = argc > 1 ? atol(argv[1]) : 300;\n"
	"	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };\n"
	"	signal(SIGALRM, on_alarm);\n"
	"	setitimer(ITIMER_REAL, &it, 0);\n"
	"	uint64_t x = 1;\n"
	"	while (!stop)\n"
	"		x = top(x);\n"
	"	sink = x;\n"
	"	return 0;\n"
	"}\n";

/* C++ names as perf prints them: without parameters ("ns::f" for both
 * overloads, summed by the robot), templates with spaces (dropped),
 * "operator new" (a space: dropped) and PLT stubs. */
static const char cxx_src[] =
	"#include <csignal>\n"
	"#include <cstdint>\n"
	"#include <cstdlib>\n"
	"#include <vector>\n"
	"#include <sys/time.h>\n"
	"static volatile std::sig_atomic_t stop;\n"
	"static volatile std::uint64_t sink;\n"
	"namespace ns {\n"
	"template <typename T> struct Box {\n"
	"	T v;\n"
	"	__attribute__((noinline)) T spin(int n)\n"
	"	{\n"
	"		T x = v;\n"
	"		for (int i = 0; i < n; i++) {\n"
	"			x = x * 3 + (T)i;\n"
	"			asm volatile(\"\" : \"+m\"(x));\n"
	"		}\n"
	"		return x;\n"
	"	}\n"
	"};\n"
	/* not tail calls: f must be on the stack under spin */
	"__attribute__((noinline)) int f(int n) { Box<int> b{7}; int r = b.spin(n); sink = r; return r; }\n"
	"__attribute__((noinline)) double f(double d) { Box<double> b{d}; double r = b.spin(100000); sink = 1; return r; }\n"
	"}\n"
	"__attribute__((noinline)) void alloc_loop()\n"
	"{\n"
	"	for (int i = 0; i < 500; i++) {\n"
	"		auto *p = new std::vector<int>(16);\n"
	"		sink += (*p)[3];\n"
	"		delete p;\n"
	"	}\n"
	"}\n"
	"static void on_alarm(int) { stop = 1; }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long ms = argc > 1 ? std::atol(argv[1]) : 300;\n"
	"	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };\n"
	"	std::signal(SIGALRM, on_alarm);\n"
	"	setitimer(ITIMER_REAL, &it, nullptr);\n"
	"	while (!stop) {\n"
	"		sink += (std::uint64_t)ns::f(100000);\n"
	"		sink += (std::uint64_t)ns::f(1.5);\n"
	"		alloc_loop();\n"
	"	}\n"
	"}\n";

enum { FP, SYS, TWO, CXX, GARBAGE, NREC };
static const char *const rec_name[NREC] = { "fp", "sys", "two", "cxx", "garbage" };

static struct lab {
	const char *skip;
	char *dir;
	char bin[PATHMAX], cxx_bin[PATHMAX];
	char cfg[PATHMAX], bid[PATHMAX];  /* perf's config: its build-id cache here */
	char data[NREC][PATHMAX];
	char *report[NREC];    /* perf report's text; NULL: not recorded */
	bool clones;           /* the binary has .constprop/.isra symbols */
} L;

static char *perf_report(const char *data)
{
	char cmd[2 * PATHMAX + 256];
	snprintf(cmd, sizeof cmd,
		 "PERF_CONFIG='%s' perf report --stdio --children --header -U "
		 "-g folded,0.5,callee --sort=dso,symbol -i '%s' 2>/dev/null",
		 L.cfg, data);
	int st;
	char *out = pd_test_run(cmd, &st);
	if (st != 0 || !out || strncmp(out, "# ========\n", 11) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * The system-wide recording keeps perf's build-id cache, as the robot's
 * does (in the lab's own directory, through PERF_CONFIG): other processes
 * read the clock through the vdso, which perf can name only from the
 * cache, while libperfdiff would name it from the running kernel anyway.
 * The others use -N and a workload that stays out of the vdso.
 */
static bool record(int which, const char *args)
{
	char cmd[4 * PATHMAX];
	snprintf(cmd, sizeof cmd, "cd '%s' && PERF_CONFIG='%s' perf record -q %s -g %s "
		 "-o '%s' %s >/dev/null 2>&1", L.dir, L.cfg, which == SYS ? "" : "-N",
		 which == TWO ? "-e cpu-clock,task-clock" : "-e cpu-clock",
		 L.data[which], args);
	struct stat sb;
	if (!pd_test_sh_ok(cmd) || stat(L.data[which], &sb) != 0)
		return false;
	L.report[which] = perf_report(L.data[which]);
	return L.report[which] != NULL;
}

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(true, &L.dir);
	if (L.skip)
		return;
	char src[PATHMAX], cmd[3 * PATHMAX];
	snprintf(L.bid, sizeof L.bid, "%s/buildid", L.dir);
	snprintf(L.cfg, sizeof L.cfg, "%s/perfconfig", L.dir);
	char cfg[PATHMAX + 64];
	int cl = snprintf(cfg, sizeof cfg, "[buildid]\n\tdir = %s\n", L.bid);
	if (mkdir(L.bid, 0700) != 0 || !pd_test_write_file(L.cfg, cfg, (size_t)cl)) {
		L.skip = "cannot set up perf's build-id cache";
		return;
	}
	snprintf(src, sizeof src, "%s/lkpwork.c", L.dir);
	snprintf(L.bin, sizeof L.bin, "%s/lkpwork", L.dir);
	if (!pd_test_write_file(src, workload_src, strlen(workload_src))) {
		L.skip = "cannot write the workload";
		return;
	}
	if (!pd_test_compile("cc", "-O2 -fno-omit-frame-pointer -fno-inline", L.bin, src)) {
		L.skip = "cannot compile the workload";
		return;
	}
	snprintf(cmd, sizeof cmd,
		 "nm '%s' | grep -q 'constprop' && nm '%s' | grep -q 'isra'", L.bin,
		 L.bin);
	L.clones = pd_test_sh_ok(cmd);
	for (int i = 0; i < NREC; i++)
		snprintf(L.data[i], PATHMAX, "%s/%s.data", L.dir, rec_name[i]);

	char w[3 * PATHMAX];
	snprintf(w, sizeof w, "'%s' 400", L.bin);
	if (!record(FP, w) || !record(TWO, w)) {
		L.skip = "perf record / perf report failed";
		return;
	}
	/* system-wide: the workload, kernel-heavy copying, and whatever else
	 * runs; needs privileges, the test that uses it skips without */
	snprintf(w, sizeof w,
		 "-a -- sh -c \"'%s' 150; dd if=/dev/zero of=/dev/null bs=4k "
		 "count=100000 2>/dev/null; ls -R /usr/lib >/dev/null 2>&1; '%s' 100\"",
		 L.bin, L.bin);
	record(SYS, w);

#ifdef __x86_64__
	/* a frame pointer that leads to -1 (tests/workloads/garbage_fp.c):
	 * perf drops those chains whole, the robot's keys with them */
	char gbin[PATHMAX];
	snprintf(gbin, sizeof gbin, "%s/garbage_fp", L.dir);
	if (pd_test_compile("cc", "-O1 -fno-omit-frame-pointer", gbin,
			    PD_TEST_DATA_DIR "/../workloads/garbage_fp.c")) {
		snprintf(w, sizeof w, "'%s' 2000000", gbin);
		record(GARBAGE, w);
	}
#endif

	snprintf(src, sizeof src, "%s/cxxwork.cc", L.dir);
	snprintf(L.cxx_bin, sizeof L.cxx_bin, "%s/cxxwork", L.dir);
	if (pd_test_write_file(src, cxx_src, strlen(cxx_src)) &&
	    pd_test_compile("c++", "-O2 -fno-omit-frame-pointer -fno-inline", L.cxx_bin, src)) {
		snprintf(w, sizeof w, "'%s' 300", L.cxx_bin);
		record(CXX, w);
	}
}

static void lab_teardown(void)
{
	pd_test_lab_close(L.dir);
	for (int i = 0; i < NREC; i++)
		free(L.report[i]);
	memset(&L, 0, sizeof L);
}

#define NEED_LAB() PD_SKIP_IF(L.skip)

static pd_profile *lkp_profile(const char *const *files, size_t n)
{
	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	pd_lkp_profile_options(&o, &so);
	so.buildid_dir = L.bid;
	pd_profile *p;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	for (size_t i = 0; i < n; i++) {
		int rc = pd_profile_add_file(p, files[i], &err);
		ck_assert_msg(rc == 0, "%s: %s", files[i], err.message);
	}
	return p;
}

/*
 * A system-wide recording holds whatever else ran on the machine, and
 * there libperfdiff's session and symbolizer differ from perf 6.1 in a few
 * known ways that reach the keys (every one seen in tests so far was one
 * of these):
 *   - IRELATIVE and libc-internal PLT stubs: perf names them "@plt", ours
 *     after the slot's target;
 *   - frames of processes that start, exec or unmap while perf records;
 *   - samples one tool names and the other drops under -U (a PLT stub of
 *     the workload: perf 6.1 leaves it unresolved, we name it malloc@plt)
 *     change the total, and every share then scales: 32.65 vs 32.62 for
 *     0.08 % of extra period in one CI run.
 * (exec's old frames and __pfx_ padding used to be here: --perf-compat now
 * names both as perf does.)  So here a value counts as equal within 0.01
 * or 0.5 % of itself, missing/extra/other keys may be up to 5 % of the
 * keys, and every difference is printed; the recordings of the test's own
 * workloads must match exactly.
 */
#define SYS_SLACK 0.05

static void check_recording(int which)
{
	NEED_LAB();
	if (!L.report[which])
		PD_SKIP("the %s recording failed (system-wide needs privileges, garbage x86_64, "
			"C++ a compiler)", rec_name[which]);
	okeys want;
	robot_parse(L.report[which], &want);
	const char *f = L.data[which];
	pd_profile *p = lkp_profile(&f, 1);
	pd_lkp_key *k;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_lkp_keys(&k, &n, p, PD_LKP_ALL_EVENTS, 0, &err), 0);
	assert_match_slack(rec_name[which], &want, k, n, which == SYS ? SYS_SLACK : 0);
	pd_lkp_keys_free(k, n);
	pd_profile_free(p);
	okeys_free(&want);
}

/* ------------------------------------------------ against perf */

START_TEST(test_fp_matches_robot)
{
	check_recording(FP);
	if (L.skip)
		return;
	/* the workload's shape shows up as the robot sees it */
	okeys want;
	robot_parse(L.report[FP], &want);
	bool rec_chain = false, clean = true;
	for (size_t i = 0; i < want.n; i++) {
		if (strstr(want.v[i].key, "calltrace.cpu-clock.rec.rec.rec.rec.rec"))
			rec_chain = true;
		if (strstr(want.v[i].key, ".isra.") || strstr(want.v[i].key, ".constprop."))
			clean = false;
	}
	ck_assert_msg(rec_chain, "no recursive calltrace key");
	ck_assert_msg(clean, "clone suffixes left in keys");
	if (L.clones)
		ck_assert_msg(strstr(L.report[FP], "constprop") != NULL,
			      "perf shows no clone symbol");
	okeys_free(&want);
}
END_TEST

START_TEST(test_sys_matches_robot)
{
	check_recording(SYS);
}
END_TEST

START_TEST(test_two_events_match_robot)
{
	check_recording(TWO);
	if (L.skip)
		return;
	/* the robot's bug: task-clock rows summed into cpu-clock keys, so
	 * children of main is about 2 × 100 % */
	okeys want;
	robot_parse(L.report[TWO], &want);
	bool seen = false;
	for (size_t i = 0; i < want.n; i++) {
		ck_assert_msg(strstr(want.v[i].key, "task-clock") == NULL, "%s",
			      want.v[i].key);
		if (strcmp(want.v[i].key, "children.cpu-clock.main") == 0) {
			seen = true;
			ck_assert_msg(want.v[i].v > 150, "main %.2f", want.v[i].v);
		}
	}
	ck_assert(seen);
	okeys_free(&want);
}
END_TEST

/* Chains with garbage in them (a user frame pointer leading to -1): the
 * keys are the robot's exactly, whose perf drops such chains whole. */
START_TEST(test_invalid_chains_match_robot)
{
	check_recording(GARBAGE);
	if (L.skip || !L.report[GARBAGE])
		return;
	okeys want;
	robot_parse(L.report[GARBAGE], &want);
	bool calls = false;
	for (size_t i = 0; i < want.n; i++)
		if (strcmp(want.v[i].key, "children.cpu-clock.calls") == 0) {
			calls = true;
			/* most samples are in the kernel, their chain dropped */
			ck_assert_msg(want.v[i].v < 90, "calls %.2f", want.v[i].v);
		}
	ck_assert_msg(calls, "no children key for calls");
	okeys_free(&want);
}
END_TEST

START_TEST(test_cxx_matches_robot)
{
	check_recording(CXX);
	if (L.skip || !L.report[CXX])
		return;
	/* both overloads of ns::f under one key, as perf names them */
	okeys want;
	robot_parse(L.report[CXX], &want);
	bool f = false;
	for (size_t i = 0; i < want.n; i++)
		f |= strcmp(want.v[i].key, "children.cpu-clock.ns::f") == 0;
	ck_assert_msg(f, "no children.cpu-clock.ns::f key");
	okeys_free(&want);
}
END_TEST

/* One event's section of a perf report, as if the file had only it. */
static char *section(const char *text, int which)
{
	size_t len = strlen(text);
	char *out = malloc(len + 16);
	ck_assert_ptr_nonnull(out);
	strcpy(out, "# ========\n");
	size_t o = strlen(out);
	int sec = -1;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p + 1) : strlen(p);
		if (strncmp(p, "# Samples: ", 11) == 0)
			sec++;
		if (sec == which) {
			memcpy(out + o, p, l);
			o += l;
		}
		p += l;
	}
	out[o] = '\0';
	return out;
}

START_TEST(test_single_event_keys)
{
	NEED_LAB();
	const char *f = L.data[TWO];
	pd_profile *p = lkp_profile(&f, 1);
	ck_assert_uint_ge(pd_profile_event_count(p), 2);
	const char *names[2] = { "cpu-clock", "task-clock" };
	for (int e = 0; e < 2; e++) {
		int ev = pd_profile_find_event(p, names[e]);
		ck_assert_int_ge(ev, 0);
		char *text = section(L.report[TWO], e);
		okeys want;
		robot_parse(text, &want);
		pd_lkp_key *k;
		size_t n;
		pd_error err;
		ck_assert_int_eq(pd_lkp_keys(&k, &n, p, (size_t)ev, 0, &err), 0);
		char what[64];
		snprintf(what, sizeof what, "two/%s", names[e]);
		assert_match(what, &want, k, n);
		for (size_t i = 0; i < n; i++)
			ck_assert_msg(strstr(k[i].key, names[e]) != NULL, "%s", k[i].key);
		pd_lkp_keys_free(k, n);
		okeys_free(&want);
		free(text);
	}
	pd_profile_free(p);
}
END_TEST

START_TEST(test_runs_and_mean)
{
	NEED_LAB();
	const char *files[2] = { L.data[FP], L.data[TWO] };
	pd_profile *p = lkp_profile(files, 2);
	ck_assert_uint_eq(pd_profile_run_count(p), 2);
	okeys want[2];
	pd_error err;
	for (int r = 0; r < 2; r++) {
		robot_parse(L.report[r == 0 ? FP : TWO], &want[r]);
		pd_lkp_key *k;
		size_t n;
		ck_assert_int_eq(pd_lkp_keys(&k, &n, p, PD_LKP_ALL_EVENTS, (size_t)r,
					     &err), 0);
		assert_match(r == 0 ? "runs/fp" : "runs/two", &want[r], k, n);
		pd_lkp_keys_free(k, n);
	}
	/* the mean, zero-filled: (a + b) / 2 with a missing key as 0 */
	okeys mean;
	okeys_mean2(&want[0], &want[1], &mean);
	pd_lkp_key *k;
	size_t n;
	ck_assert_int_eq(pd_lkp_keys_mean(&k, &n, p, PD_LKP_ALL_EVENTS, &err), 0);
	ck_assert_uint_eq(n, mean.n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(k[i].key, mean.v[i].key);
		ck_assert_msg(k[i].value == mean.v[i].v, "%s: %.17g vs %.17g",
			      k[i].key, k[i].value, mean.v[i].v);
	}
	pd_lkp_keys_free(k, n);
	/* bad arguments */
	ck_assert_int_eq(pd_lkp_keys(&k, &n, p, PD_LKP_ALL_EVENTS, 2, &err), PD_EINVAL);
	ck_assert_int_eq(pd_lkp_keys(&k, &n, p, 99, 0, &err), PD_EINVAL);
	okeys_free(&mean);
	okeys_free(&want[0]);
	okeys_free(&want[1]);
	pd_profile_free(p);
}
END_TEST

/*
 * Run `perfdiff ARGS`; its stdout, status in *st.  Status 1 (read with
 * the symbolizer's warnings) still prints the whole report; it must come
 * with a warning, not from a sanitizer.
 */
static char *cli(const char *args, int *st)
{
	char cmd[4 * PATHMAX], errf[PATHMAX];
	snprintf(errf, sizeof errf, "%s/cli.err", L.dir);
	snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", PD_CLI_PATH, args, errf);
	char *out = pd_test_run(cmd, st);
	ck_assert_ptr_nonnull(out);
	size_t elen = 0;
	char *e = (char *)pd_test_read_file(errf, &elen);
	ck_assert_ptr_nonnull(e);
	char *et = strndup(e, elen);
	ck_assert_ptr_nonnull(et);
	ck_assert_msg(!strstr(et, "Sanitizer") && !strstr(et, "runtime error"),
		      "perfdiff %s: %s", args, et);
	ck_assert_msg(*st == 0 || (*st == 1 && strstr(et, "warning:")) || *st == 2,
		      "perfdiff %s: status %d: %s", args, *st, et);
	free(et);
	free(e);
	return out;
}

/* `perfdiff report --format=lkp`: byte for byte the robot's output. */
START_TEST(test_cli)
{
	NEED_LAB();
	char args[3 * PATHMAX];
	int st;
	snprintf(args, sizeof args, "report --format=lkp '%s'", L.data[FP]);
	char *out = cli(args, &st);
	ck_assert_int_ne(st, 2);
	okeys want;
	robot_parse(L.report[FP], &want);
	char *text = okeys_text(&want);
	ck_assert_str_eq(out, text);
	free(text);
	free(out);

	/* two files: a header line per file */
	snprintf(args, sizeof args, "report --format=lkp '%s' '%s'", L.data[FP],
		 L.data[TWO]);
	out = cli(args, &st);
	ck_assert_int_ne(st, 2);
	okeys want2;
	robot_parse(L.report[TWO], &want2);
	char *t2 = okeys_text(&want2);
	text = okeys_text(&want);
	size_t cap = strlen(text) + strlen(t2) + 2 * PATHMAX;
	char *expect = malloc(cap);
	ck_assert_ptr_nonnull(expect);
	snprintf(expect, cap, "# %s\n%s# %s\n%s", L.data[FP], text, L.data[TWO], t2);
	ck_assert_str_eq(out, expect);
	free(expect);
	free(text);
	free(t2);
	free(out);

	/* --mean: zero-filled means of the two files' keys */
	snprintf(args, sizeof args, "report --format=lkp --mean '%s' '%s'", L.data[FP],
		 L.data[TWO]);
	out = cli(args, &st);
	ck_assert_int_ne(st, 2);
	okeys mean;
	okeys_mean2(&want, &want2, &mean);
	text = okeys_text(&mean);
	expect = malloc(strlen(text) + 64);
	ck_assert_ptr_nonnull(expect);
	sprintf(expect, "# mean of 2 runs\n%s", text);
	ck_assert_str_eq(out, expect);
	free(expect);
	free(text);
	free(out);
	okeys_free(&mean);

	/* --event: that event alone */
	snprintf(args, sizeof args, "report --format=lkp --event=task-clock '%s'",
		 L.data[TWO]);
	out = cli(args, &st);
	ck_assert_int_ne(st, 2);
	char *sec = section(L.report[TWO], 1);
	okeys tc;
	robot_parse(sec, &tc);
	text = okeys_text(&tc);
	ck_assert_str_eq(out, text);
	free(text);
	free(out);
	free(sec);
	okeys_free(&tc);

	/* --mean belongs to lkp */
	snprintf(args, sizeof args, "report --mean '%s'", L.data[FP]);
	free(cli(args, &st));
	ck_assert_int_eq(st, 2);
	okeys_free(&want);
	okeys_free(&want2);
}
END_TEST

/* ------------------------------------- the synthetic table (§4.6) */

static const char synthetic_report[] =
	"# ========\n"
	"# captured on    : whenever\n"
	"# ========\n"
	"#\n"
	"# Samples: 1K of event 'cycles:pp'\n"
	"# Event count (approx.): 1000000\n"
	"#\n"
	"    12.00%     1.00%  [kernel.kallsyms]  [k] __fget_light                     -      -\n"
	"     3.00%     0.00%  [kernel.kallsyms]  [k] copy_page.isra.0                 -      -\n"
	"     2.00%     0.00%  [kernel.kallsyms]  [k] copy_page                        -      -\n"
	"2.00% copy_page;do_wp_page.cold;handle_mm_fault\n"
	"0.60% __fget_light;foo (inlined);do_sys_poll\n"
	"     0.70%     0.70%  libstdc++.so.6     [.] operator new(unsigned long)      -      -\n"
	"     0.70%     0.70%  libc.so.6          [.] __memmove_avx_unaligned_erms@plt -      -\n"
	"     0.04%     0.04%  a.so               [.] tiny_func                        -      -\n"
	"     0.03%     0.03%  b.so               [.] tiny_func                        -      -\n"
	"     1.00%     1.00%  x                  [.] memcpy_orig.llvm.123             -      -\n"
	"\n"
	"# Samples: 100  of event 'cache-misses'\n"
	"#\n"
	"    50.00%     0.00%  [kernel.kallsyms]  [k] copy_page                        -      -\n";

static const char synthetic_keys[] =
	"calltrace.cycles-pp.copy_page.do_wp_page.cold.handle_mm_fault: 2.00\n"
	"children.cycles-pp.__fget_light: 12.00\n"
	"children.cycles-pp.__memmove_avx_unaligned_erms@plt: 0.70\n"
	"children.cycles-pp.copy_page: 55.00\n"
	"children.cycles-pp.memcpy_orig.llvm.123: 1.00\n"
	"children.cycles-pp.tiny_func: 0.07\n"
	"self.cycles-pp.__fget_light: 1.00\n"
	"self.cycles-pp.__memmove_avx_unaligned_erms@plt: 0.70\n"
	"self.cycles-pp.memcpy_orig.llvm.123: 1.00\n"
	"self.cycles-pp.tiny_func: 0.07\n";

static char *keys_text(const pd_lkp_key *k, size_t n)
{
	okeys o = { 0 };
	for (size_t i = 0; i < n; i++)
		okeys_add(&o, k[i].key, k[i].value);
	char *t = okeys_text(&o);
	okeys_free(&o);
	return t;
}

START_TEST(test_synthetic_oracle)
{
	/* the oracle parser itself against the documented table */
	okeys got;
	robot_parse(synthetic_report, &got);
	char *t = okeys_text(&got);
	ck_assert_str_eq(t, synthetic_keys);
	free(t);
	okeys_free(&got);
	/* no header line, no keys */
	robot_parse(synthetic_report + strlen("# ========\n"), &got);
	ck_assert_uint_eq(got.n, 0);
	okeys_free(&got);
}
END_TEST

START_TEST(test_synthetic_library)
{
	lkp_acc *a;
	ck_assert_int_eq(lkp_acc_new(&a), 0);
	ck_assert_int_eq(lkp_acc_event(a, "cycles:pp"), 0);
	const char *ch1[] = { "copy_page", "do_wp_page.cold", "handle_mm_fault" };
	const char *ch2[] = { "__fget_light", NULL, "do_sys_poll" };   /* inline */
	const char *ch3[] = { "__fget_light", "foo (inlined)", "do_sys_poll" };
	ck_assert_int_eq(lkp_acc_row(a, "[kernel.kallsyms]", "__fget_light", 12.0, 1.0), 0);
	ck_assert_int_eq(lkp_acc_row(a, "[kernel.kallsyms]", "copy_page.isra.0", 3.0, 0), 0);
	ck_assert_int_eq(lkp_acc_row(a, "[kernel.kallsyms]", "copy_page", 2.0, 0), 0);
	ck_assert_int_eq(lkp_acc_chain(a, 2.0, ch1, 3), 0);
	ck_assert_int_eq(lkp_acc_chain(a, 0.6, ch2, 3), 0);
	ck_assert_int_eq(lkp_acc_chain(a, 0.6, ch3, 3), 0);
	ck_assert_int_eq(lkp_acc_row(a, "libstdc++.so.6", "operator new(unsigned long)",
				     0.7, 0.7), 0);
	ck_assert_int_eq(lkp_acc_row(a, "libc.so.6", "__memmove_avx_unaligned_erms@plt",
				     0.7, 0.7), 0);
	/* perf's own rounding: 0.0449 prints 0.04, 0.0251 prints 0.03 */
	ck_assert_int_eq(lkp_acc_row(a, "a.so", "tiny_func", 0.0449, 0.0449), 0);
	ck_assert_int_eq(lkp_acc_row(a, "b.so", "tiny_func", 0.0251, 0.0251), 0);
	ck_assert_int_eq(lkp_acc_row(a, "x", "memcpy_orig.llvm.123", 1.0, 1.0), 0);
	/* a dso with a space breaks the robot's row pattern too */
	ck_assert_int_eq(lkp_acc_row(a, "memfd:x (deleted)", "jit_fn", 5.0, 5.0), 0);
	/* the second event: only its rows count, under the first name */
	ck_assert_int_eq(lkp_acc_event(a, "cache-misses"), 0);
	ck_assert_int_eq(lkp_acc_row(a, "[kernel.kallsyms]", "copy_page", 50.0, 0), 0);
	pd_lkp_key *k;
	size_t n;
	ck_assert_int_eq(lkp_acc_result(a, 5, 1.0, &k, &n), 0);
	char *t = keys_text(k, n);
	ck_assert_str_eq(t, synthetic_keys);
	free(t);
	pd_lkp_keys_free(k, n);
	lkp_acc_free(a);
}
END_TEST

START_TEST(test_chain_key_rules)
{
	lkp_acc *a;
	ck_assert_int_eq(lkp_acc_new(&a), 0);
	ck_assert_int_eq(lkp_acc_event(a, "cpu-clock:ppp"), 0);
	/* first 5 frames, each cleaned; chains agreeing in them are summed */
	const char *c1[] = { "__fget_light", "do_select.isra.0", "core_sys_select",
			     "kern_select", "__x64_sys_select", "do_syscall_64", "x" };
	const char *c2[] = { "__fget_light", "do_select", "core_sys_select",
			     "kern_select", "__x64_sys_select", "x64_sys_call" };
	/* a space beyond the 5th frame still drops the whole line */
	const char *c3[] = { "__fget_light", "do_select", "core_sys_select",
			     "kern_select", "__x64_sys_select", "a b" };
	ck_assert_int_eq(lkp_acc_chain(a, 6.0, c1, 7), 0);
	ck_assert_int_eq(lkp_acc_chain(a, 4.0, c2, 6), 0);
	ck_assert_int_eq(lkp_acc_chain(a, 9.0, c3, 6), 0);
	/* 0.02 + 0.03: summed before the cut */
	const char *c4[] = { "tiny", "caller" };
	ck_assert_int_eq(lkp_acc_chain(a, 0.02, c4, 2), 0);
	ck_assert_int_eq(lkp_acc_chain(a, 0.03, c4, 2), 0);
	const char *c5[] = { "tinier", "caller" };
	ck_assert_int_eq(lkp_acc_chain(a, 0.04, c5, 2), 0);
	pd_lkp_key *k;
	size_t n;
	ck_assert_int_eq(lkp_acc_result(a, 5, 1.0, &k, &n), 0);
	char *t = keys_text(k, n);
	ck_assert_str_eq(t,
		"calltrace.cpu-clock-ppp.__fget_light.do_select.core_sys_select.kern_select.__x64_sys_select: 10.00\n"
		"calltrace.cpu-clock-ppp.tiny.caller: 0.05\n");
	free(t);
	pd_lkp_keys_free(k, n);
	lkp_acc_free(a);
}
END_TEST

START_TEST(test_names)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "foo.constprop.0.isra.0", "foo" },
		{ "rcu_irq_enter.part.56", "rcu_irq_enter" },
		{ "copy_page.isra.12", "copy_page" },
		{ "do_wp_page.cold", "do_wp_page.cold" },
		{ "memcpy_orig.llvm.123", "memcpy_orig.llvm.123" },
		{ "f.lto_priv.0", "f.lto_priv.0" },
		{ "g.localalias", "g.localalias" },
		{ "poll@plt", "poll@plt" },
		{ "x.isra", "x.isra" },               /* no digits: no match */
		{ "x.isra.", "x.isra." },
		{ "x.isra.12abc", "xabc" },           /* the pattern has no anchor */
		{ "a.part.1.part.2b", "ab" },
		{ "a.isra.0.cold", "a.cold" },
		{ "", "" },
	};
	char buf[128];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t l = pd_lkp_symbol_clean(cases[i].in, buf, sizeof buf);
		ck_assert_str_eq(buf, cases[i].out);
		ck_assert_uint_eq(l, strlen(cases[i].out));
	}
	/* truncation reports the full length */
	ck_assert_uint_eq(pd_lkp_symbol_clean("abcdef.part.3", buf, 4), 6);
	ck_assert_str_eq(buf, "abc");
	ck_assert_uint_eq(pd_lkp_event_name("cycles:pp", buf, sizeof buf), 9);
	ck_assert_str_eq(buf, "cycles-pp");
	pd_lkp_event_name("'sched:sched_switch'", buf, sizeof buf);
	ck_assert_str_eq(buf, "sched-sched_switch");
	pd_lkp_event_name("cpu_core/cycles/", buf, sizeof buf);
	ck_assert_str_eq(buf, "cpu_core/cycles/");
	/* perf's names for user code */
	lkp_names *nm;
	ck_assert_int_eq(lkp_names_new(&nm), 0);
	static const struct {
		const char *raw, *printed;
	} dm[] = {
		{ "_ZN2ns1fEi", "ns::f" },
		{ "_ZN2ns1fEd", "ns::f" },
		{ "_ZN2ns3BoxIiE4spinEi", "ns::Box<int>::spin" },
		{ "_Znwm", "operator new" },
		{ "_Znwm@plt", "operator new@plt" },
		{ "_ZdlPvm@plt", "operator delete@plt" },
		{ "_ZNSt6vectorIiSaIiEEC2Em", "std::vector<int, std::allocator<int> >::vector" },
		{ "main", "main" },
		{ "memcpy@plt", "memcpy@plt" },
		{ "_start", "_start" },
		{ "_Z", "_Z" },
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
	};
	for (size_t i = 0; i < sizeof dm / sizeof dm[0]; i++)
		ck_assert_str_eq(lkp_perf_name(nm, dm[i].raw), dm[i].printed);
	const char *again = lkp_perf_name(nm, dm[0].raw);
	ck_assert_ptr_eq(again, lkp_perf_name(nm, dm[0].raw));
	lkp_names_free(nm);
	/* perf's "%.2f" */
	ck_assert_int_eq(lkp_hundredths(12.345678), 1235);
	ck_assert_int_eq(lkp_hundredths(0.004999), 0);
	ck_assert_int_eq(lkp_hundredths(0.005001), 1);
	ck_assert_int_eq(lkp_hundredths(100.0), 10000);
}
END_TEST

/* ------------------------------------------------ hand-made trees */

typedef struct tnode {
	const char *sym, *dso;
	bool inl;
	uint64_t self;
	struct tnode *kid[64];
	size_t nk;
} tnode;

typedef struct ttree {
	tnode pool[256];
	size_t used;
	tnode *root;
} ttree;

static size_t t_count(const void *n) { return ((const tnode *)n)->nk; }
static const void *t_child(const void *n, size_t i) { return ((const tnode *)n)->kid[i]; }
static const char *t_sym(const void *n) { return ((const tnode *)n)->sym; }
static const char *t_dso(const void *n) { return ((const tnode *)n)->dso; }
static bool t_inl(const void *n) { return ((const tnode *)n)->inl; }
static uint64_t t_self(const void *n, size_t run)
{
	(void)run;
	return ((const tnode *)n)->self;
}

static void tt_init(ttree *t)
{
	memset(t, 0, sizeof *t);
	t->root = &t->pool[t->used++];
}

/* Add `period` on the path "outer;…;leaf"; "dso!sym" names a dso (default
 * "app"), a trailing "~" marks an inline frame. */
static void tt_add(ttree *t, const char *path, uint64_t period)
{
	char *copy = strdup(path), *save = NULL;
	ck_assert_ptr_nonnull(copy);
	tnode *n = t->root;
	for (char *f = strtok_r(copy, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
		const char *dso = "app", *sym = f;
		char *bang = strchr(f, '!');
		if (bang) {
			*bang = '\0';
			dso = f;
			sym = bang + 1;
		}
		bool inl = false;
		size_t sl = strlen(sym);
		if (sl && sym[sl - 1] == '~') {
			inl = true;
			sl--;
		}
		tnode *c = NULL;
		for (size_t i = 0; i < n->nk; i++)
			if (strncmp(n->kid[i]->sym, sym, sl) == 0 &&
			    n->kid[i]->sym[sl] == '\0' && strcmp(n->kid[i]->dso, dso) == 0 &&
			    n->kid[i]->inl == inl)
				c = n->kid[i];
		if (!c) {
			ck_assert_uint_lt(t->used, 256);
			ck_assert_uint_lt(n->nk, 64);
			c = &t->pool[t->used++];
			c->sym = strndup(sym, sl);
			c->dso = strdup(dso);
			c->inl = inl;
			n->kid[n->nk++] = c;
		}
		n = c;
	}
	n->self += period;
	free(copy);
}

static void tt_free(ttree *t)
{
	for (size_t i = 1; i < t->used; i++) {
		free((char *)t->pool[i].sym);
		free((char *)t->pool[i].dso);
	}
}

static char *walk_text(ttree *t, uint64_t *total)
{
	lkp_tree lt = { .root = t->root, .child_count = t_count, .child = t_child,
			.symbol = t_sym, .dso = t_dso, .inlined = t_inl,
			.self = t_self };
	lkp_acc *a;
	ck_assert_int_eq(lkp_acc_new(&a), 0);
	ck_assert_int_eq(lkp_walk(a, &lt, 0, "ev", total), 0);
	pd_lkp_key *k;
	size_t n;
	ck_assert_int_eq(lkp_acc_result(a, 5, 1.0, &k, &n), 0);
	char *text = keys_text(k, n);
	pd_lkp_keys_free(k, n);
	lkp_acc_free(a);
	return text;
}

/* perf-report-semantics.md §2's worked example, with its chains. */
START_TEST(test_walk_worked_example)
{
	ttree t;
	tt_init(&t);
	tt_add(&t, "main;a;b", 1);
	tt_add(&t, "main;a;a;c", 1);
	tt_add(&t, "main;a", 1);
	uint64_t total;
	char *text = walk_text(&t, &total);
	ck_assert_uint_eq(total, 3);
	/* under a: the chain from the innermost a — a;main carries the b and
	 * the a samples (2 of 3), a;a;main the c sample */
	ck_assert_str_eq(text,
		"calltrace.ev.a.a.main: 33.33\n"
		"calltrace.ev.a.main: 66.67\n"
		"calltrace.ev.b.a.main: 33.33\n"
		"calltrace.ev.c.a.a.main: 33.33\n"
		"calltrace.ev.main: 100.00\n"
		"children.ev.a: 100.00\n"
		"children.ev.b: 33.33\n"
		"children.ev.c: 33.33\n"
		"children.ev.main: 100.00\n"
		"self.ev.a: 33.33\n"
		"self.ev.b: 33.33\n"
		"self.ev.c: 33.33\n");
	free(text);
	tt_free(&t);
}
END_TEST

/* A chain needs its own period ≥ trunc(total · 0.005); the rows do not. */
START_TEST(test_walk_threshold)
{
	ttree t;
	tt_init(&t);
	tt_add(&t, "m;a", 5);     /* 0.50 % of 1000: kept */
	tt_add(&t, "m;b", 4);     /* 0.40 %: dropped */
	tt_add(&t, "m;c", 991);
	uint64_t total;
	char *text = walk_text(&t, &total);
	ck_assert_uint_eq(total, 1000);
	ck_assert_ptr_nonnull(strstr(text, "calltrace.ev.a.m: 0.50\n"));
	ck_assert_ptr_null(strstr(text, "calltrace.ev.b.m"));
	ck_assert_ptr_nonnull(strstr(text, "children.ev.b: 0.40\n"));
	/* m's chain is "m" alone and carries every sample */
	ck_assert_ptr_nonnull(strstr(text, "calltrace.ev.m: 100.00\n"));
	free(text);
	tt_free(&t);

	/* total 999: the limit 4.995 truncates to 4, so 0.40 % passes */
	tt_init(&t);
	tt_add(&t, "m;b", 4);
	tt_add(&t, "m;c", 995);
	text = walk_text(&t, &total);
	ck_assert_ptr_nonnull(strstr(text, "calltrace.ev.b.m: 0.40\n"));
	free(text);
	tt_free(&t);

	/* a row far above the limit whose chains are all below it: x is
	 * reached through 50 callers, 0.40 % each */
	tt_init(&t);
	for (int i = 0; i < 50; i++) {
		char path[64];
		snprintf(path, sizeof path, "m;c%d;x", i);
		tt_add(&t, path, 40);
	}
	tt_add(&t, "m;big", 8000);
	text = walk_text(&t, &total);
	ck_assert_uint_eq(total, 10000);
	ck_assert_ptr_nonnull(strstr(text, "children.ev.x: 20.00\n"));
	ck_assert_ptr_nonnull(strstr(text, "self.ev.x: 20.00\n"));
	ck_assert_ptr_null(strstr(text, "calltrace.ev.x"));
	ck_assert_ptr_null(strstr(text, "calltrace.ev.c7"));
	ck_assert_ptr_nonnull(strstr(text, "children.ev.c7: 0.40\n"));
	ck_assert_ptr_nonnull(strstr(text, "calltrace.ev.big.m: 80.00\n"));
	free(text);
	tt_free(&t);
}
END_TEST

START_TEST(test_walk_names_and_dsos)
{
	ttree t;
	tt_init(&t);
	/* deep: the key keeps 5 cleaned frames */
	tt_add(&t, "main;f1;f2.constprop.0;f3;f4;f5;leaf.isra.1", 60);
	/* memcpy in two dsos: separate rows, one key */
	tt_add(&t, "main;libc.so.6!memcpy", 20);
	tt_add(&t, "main;[kernel.kallsyms]!memcpy", 10);
	/* an inline frame: its row and every chain through it vanish */
	tt_add(&t, "main;outer;inl~;deep", 10);
	uint64_t total;
	char *text = walk_text(&t, &total);
	ck_assert_uint_eq(total, 100);
	ck_assert_ptr_nonnull(strstr(text, "calltrace.ev.leaf.f5.f4.f3.f2: 60.00\n"));
	ck_assert_ptr_nonnull(strstr(text, "calltrace.ev.f2.f1.main: 60.00\n"));
	ck_assert_ptr_nonnull(strstr(text, "children.ev.memcpy: 30.00\n"));
	ck_assert_ptr_nonnull(strstr(text, "self.ev.memcpy: 30.00\n"));
	ck_assert_ptr_nonnull(strstr(text, "calltrace.ev.memcpy.main: 30.00\n"));
	ck_assert_ptr_nonnull(strstr(text, "children.ev.outer: 10.00\n"));
	ck_assert_ptr_nonnull(strstr(text, "calltrace.ev.outer.main: 10.00\n"));
	ck_assert_ptr_null(strstr(text, "inl"));
	ck_assert_ptr_null(strstr(text, "calltrace.ev.deep"));
	ck_assert_ptr_nonnull(strstr(text, "children.ev.deep: 10.00\n"));
	ck_assert_ptr_nonnull(strstr(text, "children.ev.main: 100.00\n"));
	ck_assert_ptr_null(strstr(text, "isra"));
	ck_assert_ptr_null(strstr(text, "constprop"));
	free(text);
	tt_free(&t);

	/* nothing sampled: no keys, no event named */
	tt_init(&t);
	text = walk_text(&t, &total);
	ck_assert_uint_eq(total, 0);
	ck_assert_str_eq(text, "");
	free(text);
	tt_free(&t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("lkp");
	TCase *unit = tcase_create("rules");
	tcase_add_test(unit, test_synthetic_oracle);
	tcase_add_test(unit, test_synthetic_library);
	tcase_add_test(unit, test_chain_key_rules);
	tcase_add_test(unit, test_names);
	tcase_add_test(unit, test_walk_worked_example);
	tcase_add_test(unit, test_walk_threshold);
	tcase_add_test(unit, test_walk_names_and_dsos);
	suite_add_tcase(s, unit);

	TCase *tc = tcase_create("perf");
	tcase_add_unchecked_fixture(tc, lab_setup, lab_teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_fp_matches_robot);
	tcase_add_test(tc, test_sys_matches_robot);
	tcase_add_test(tc, test_two_events_match_robot);
	tcase_add_test(tc, test_cxx_matches_robot);
	tcase_add_test(tc, test_invalid_chains_match_robot);
	tcase_add_test(tc, test_single_event_keys);
	tcase_add_test(tc, test_runs_and_mean);
	tcase_add_test(tc, test_cli);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
