/*
 * Profiles (profile.h) against independent oracles, on recordings made
 * here of tests/workloads/profile.c (known call paths, recursion, three
 * functions whose names fold into one):
 *
 *   - `perf report --children --sort dso,sym` (perf 6.1): children and
 *     self of every named row within 0.01 percentage points, with the
 *     perf-compatible symbolization (PD_SESSION_PERF_COMPAT | NO_INLINE,
 *     clone suffixes kept); the same with -U; for two events; system-wide
 *     with kernel frames;
 *   - `perf report -g folded,0,callee|caller`: the chains under entries;
 *   - `perf script`: exact periods for recursion (counted once), clone
 *     folding, filters, calltrace paths and collapsed stacks.
 *
 * Every perf-based test skips (with a message) where perf or cc are
 * missing; the system-wide one where `perf record -a` is not allowed.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perfdiff/profile.h"
#include "profile/pipeline.h"  /* internal: the producer/consumer split */

#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#define PATHMAX 4200

/* ------------------------------------------------------------ helpers */

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	ck_assert_ptr_nonnull(d);
	return d;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);
	ck_assert_ptr_nonnull(d);
	return d;
}

static const char *base_name(const char *path)
{
	if (!path || path[0] == '[')
		return path ? path : "";
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* perf prints symbol-less rows as addresses: not comparable by name */
static bool is_address(const char *sym)
{
	if (strncmp(sym, "0x", 2) == 0)
		sym += 2;
	size_t n = strspn(sym, "0123456789abcdef");
	return n >= 8 && sym[n] == '\0';
}

/* ------------------------------------------------------------ the lab */

static struct lab {
	const char *skip;
	char *dir;
	char bin[PATHMAX], inl_bin[PATHMAX];
	char fp[PATHMAX], two[PATHMAX], sys[PATHMAX], inl[PATHMAX];
	bool sys_ok, inl_ok;
	/* A window that starts 50 ms into fp.data: the workload has exec'd
	 * by then.  A sample taken inside execve has the old image's user
	 * frames, which perf still names from the old maps and the session
	 * does not (it drops a process's maps at COMM exec); the strict
	 * comparisons use the window. */
	uint64_t win_ns;
	char win_arg[64];
} L;

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(true, &L.dir);
	if (L.skip)
		return;
	snprintf(L.bin, PATHMAX, "%s/profile", L.dir);
	snprintf(L.inl_bin, PATHMAX, "%s/inline", L.dir);
	/* -O0: every function keeps its frame and no call becomes a jump, so
	 * frame-pointer chains have exactly the source's shape */
	if (!pd_test_compile("cc", "-O0 -g -fno-omit-frame-pointer -no-pie", L.bin,
			     WORKLOAD_DIR "/profile.c")) {
		L.skip = "cannot compile tests/workloads/profile.c";
		return;
	}
	snprintf(L.fp, PATHMAX, "%s/fp.data", L.dir);
	snprintf(L.two, PATHMAX, "%s/two.data", L.dir);
	snprintf(L.sys, PATHMAX, "%s/sys.data", L.dir);
	snprintf(L.inl, PATHMAX, "%s/inl.data", L.dir);
	char w[3 * PATHMAX];
	/* two processes of the workload and the shell: several pids, tids
	 * and commands for the filters */
	snprintf(w, sizeof w, "sh -c \"'%s' 300 & '%s' 300; wait\"", L.bin, L.bin);
	bool ok = pd_test_perf_record(L.fp, "-q -N -e cpu-clock -g --sample-cpu", w);
	snprintf(w, sizeof w, "'%s' 250", L.bin);
	ok = ok && pd_test_perf_record(L.two, "-q -N -e cpu-clock,task-clock -g", w);
	if (!ok) {
		L.skip = "perf record failed";
		return;
	}
	uint64_t t0;
	if (!pd_test_perf_first_time(L.fp, &t0)) {
		L.skip = "perf script printed no sample time";
		return;
	}
	L.win_ns = (t0 + 50000000u) / 1000u * 1000u;
	snprintf(L.win_arg, sizeof L.win_arg, "--time %" PRIu64 ".%06" PRIu64 ",",
		 L.win_ns / 1000000000u, L.win_ns % 1000000000u / 1000u);
	/* system-wide needs privileges; the test that uses it skips without */
	L.sys_ok = pd_test_perf_record(L.sys, "-q -N -a -g -e cpu-clock", w);
	snprintf(w, sizeof w, "'%s' 250", L.inl_bin);
	L.inl_ok = pd_test_compile("cc", "-O2 -g -fno-omit-frame-pointer -no-pie", L.inl_bin,
				   WORKLOAD_DIR "/inline.c") &&
		   pd_test_perf_record(L.inl, "-q -N -e cpu-clock -g", w);
}

static void lab_teardown(void)
{
	pd_test_lab_close(L.dir);
	memset(&L, 0, sizeof L);
}

#define NEED_LAB() PD_SKIP_IF(L.skip)

/* ------------------------------------------------- profiles under test */

#define COMPAT (PD_SESSION_PERF_COMPAT | PD_SESSION_NO_INLINE)

static pd_profile *profile_win(const char *path, unsigned flags, unsigned session_flags,
			       uint64_t time_start)
{
	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	o.flags = flags;
	so.flags = session_flags;
	o.session = &so;
	o.time_start = time_start;
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	int rc = pd_profile_add_file(p, path, &err);
	ck_assert_msg(rc == 0, "%s: %s", path, err.message);
	return p;
}

static pd_profile *profile_of(const char *path, unsigned flags, unsigned session_flags)
{
	return profile_win(path, flags, session_flags, 0);
}

static const pd_flat_entry *find_entry(pd_profile *p, size_t ev, const char *dso,
				       const char *sym, size_t *index)
{
	const pd_flat_entry *fl;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_profile_flat(p, ev, &fl, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		if (strcmp(fl[i].symbol, sym) == 0 && !fl[i].inlined &&
		    (!dso || strcmp(base_name(fl[i].dso), dso) == 0)) {
			if (index)
				*index = i;
			return &fl[i];
		}
	return NULL;
}

/*
 * perf 6.1 demangles C++ without parameter lists unless verbose; the
 * session keeps them.  `perf_name` of our name: the last balanced "(...)"
 * and a " const" after it removed ("ns::f(int) const" -> "ns::f").
 */
static void perf_name(const char *sym, char *buf, size_t n)
{
	snprintf(buf, n, "%s", sym);
	size_t len = strlen(buf);
	if (len > 6 && strcmp(buf + len - 6, " const") == 0)
		buf[len -= 6] = '\0';
	if (len == 0 || buf[len - 1] != ')' || strstr(buf, " (inlined)"))
		return;
	int depth = 0;
	for (size_t i = len; i-- > 0;) {
		if (buf[i] == ')')
			depth++;
		else if (buf[i] == '(' && --depth == 0) {
			if (i > 0)
				buf[i] = '\0';
			return;
		}
	}
}

/* Our entry for perf's row (dso, sym): by name, else by perf's C++ name. */
static const pd_flat_entry *find_perf_row(pd_profile *p, size_t ev, const char *dso,
					  const char *sym)
{
	const pd_flat_entry *e = find_entry(p, ev, dso, sym, NULL);
	if (e)
		return e;
	const pd_flat_entry *fl;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_profile_flat(p, ev, &fl, &n, &err), 0);
	char buf[4096];
	const pd_flat_entry *found = NULL;
	for (size_t i = 0; i < n; i++) {
		if (fl[i].inlined || strcmp(base_name(fl[i].dso), dso) != 0)
			continue;
		perf_name(fl[i].symbol, buf, sizeof buf);
		if (strcmp(buf, sym) == 0) {
			if (found)
				return NULL; /* overloads: ambiguous for perf's name */
			found = &fl[i];
		}
	}
	return found;
}

typedef struct known {
	uint64_t period;
	char **keys;
	size_t n;
} known;

static void known_add(known *k, const char *dso, const char *sym)
{
	char key[2048];
	snprintf(key, sizeof key, "%s|%s", base_name(dso), sym);
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(k->keys[i], key) == 0)
			return;
	k->keys = realloc(k->keys, (k->n + 1) * sizeof *k->keys);
	ck_assert_ptr_nonnull(k->keys);
	k->keys[k->n++] = xstrdup(key);
}

static bool known_has(const known *k, const char *dso, const char *sym)
{
	char key[2048];
	snprintf(key, sizeof key, "%s|%s", base_name(dso), sym);
	for (size_t i = 0; k && i < k->n; i++)
		if (strcmp(k->keys[i], key) == 0)
			return true;
	return false;
}

static void known_free(known *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->keys[i]);
	free(k->keys);
	memset(k, 0, sizeof *k);
}

/* ------------------------------------------------- perf report oracle */

typedef struct prow {
	char *dso, *sym;
	double children, self;
	bool dup;
} prow;

typedef struct pevent {
	char *name;
	uint64_t count;
	prow *rows;
	size_t n;
} pevent;

typedef struct preport {
	pevent *ev;
	size_t n;
} preport;

static void free_report(preport *r)
{
	for (size_t i = 0; i < r->n; i++) {
		for (size_t j = 0; j < r->ev[i].n; j++) {
			free(r->ev[i].rows[j].dso);
			free(r->ev[i].rows[j].sym);
		}
		free(r->ev[i].rows);
		free(r->ev[i].name);
	}
	free(r->ev);
	memset(r, 0, sizeof *r);
}

static char *trim(char *s)
{
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

/* `perf report --children --sort dso,sym -g none -t '|'`, per event. */
static void perf_flat(const char *data, const char *extra, preport *out)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf report -i '%s' --children --sort dso,sym -g none --stdio -t '|' %s "
		 "2>/dev/null",
		 data, extra);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_msg(text && st == 0, "perf report failed: %s", cmd);
	memset(out, 0, sizeof *out);
	pevent *cur = NULL;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		const char *q;
		if ((q = strstr(line, "# Samples: ")) && (q = strstr(q, " of event '"))) {
			out->ev = realloc(out->ev, (out->n + 1) * sizeof *out->ev);
			ck_assert_ptr_nonnull(out->ev);
			cur = &out->ev[out->n++];
			memset(cur, 0, sizeof *cur);
			q += strlen(" of event '");
			cur->name = xstrndup(q, strcspn(q, "'"));
			continue;
		}
		if (cur && (q = strstr(line, "# Event count (approx.): "))) {
			cur->count = strtoull(q + strlen("# Event count (approx.): "), NULL, 10);
			continue;
		}
		if (!cur || line[0] == '#')
			continue;
		char *f[4];
		size_t nf = 0;
		for (char *s = line; nf < 4; nf++) {
			f[nf] = s;
			char *bar = strchr(s, '|');
			if (!bar) {
				nf++;
				break;
			}
			*bar = '\0';
			s = bar + 1;
		}
		if (nf < 4)
			continue;
		char *sym = trim(f[3]);
		if (sym[0] == '[' && sym[2] == ']' && sym[3] == ' ')
			sym += 4;
		cur->rows = realloc(cur->rows, (cur->n + 1) * sizeof *cur->rows);
		ck_assert_ptr_nonnull(cur->rows);
		prow *r = &cur->rows[cur->n++];
		r->children = strtod(trim(f[0]), NULL);
		r->self = strtod(trim(f[1]), NULL);
		r->dso = xstrdup(trim(f[2]));
		r->sym = xstrdup(sym);
		r->dup = false;
		for (size_t i = 0; i + 1 < cur->n; i++)
			if (strcmp(cur->rows[i].dso, r->dso) == 0 &&
			    strcmp(cur->rows[i].sym, r->sym) == 0)
				cur->rows[i].dup = r->dup = true;
	}
	free(text);
}

static const pevent *perf_event(const preport *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->ev[i].name, name) == 0)
			return &r->ev[i];
	return NULL;
}

typedef struct match {
	size_t named, matched, kernel_matched, cplusplus, workload, workload_matched;
	char why[4096];
} match;

/* Every named perf row against our entry of the same (dso, symbol),
 * within 0.01 percentage points plus `slack` (for the rows in `kn` only,
 * when given). */
static void compare_flat_slack(pd_profile *p, size_t ev, const pevent *pe, double slack,
			       const known *kn, match *m)
{
	memset(m, 0, sizeof *m);
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	size_t at = 0;
	for (size_t i = 0; i < pe->n; i++) {
		const prow *r = &pe->rows[i];
		if (r->dup || is_address(r->sym))
			continue;
		/* perf 6.1 demangles C++ without parameters and return types
		 * (DMGL_NO_OPTS); the symbolizer keeps them, so C++ names are
		 * not comparable one to one (perf_name() handles the simple
		 * cases); nor are perf's names of PLT stubs and versioned
		 * dynamic symbols ("@plt", "f@@GLIBC_2.17") */
		if (strstr(r->sym, "::") || strchr(r->sym, '<') || strchr(r->sym, '@')) {
			m->cplusplus++;
			continue;
		}
		m->named++;
		bool wl = strcmp(r->dso, "profile") == 0;
		m->workload += wl;
		const pd_flat_entry *e = find_perf_row(p, ev, r->dso, r->sym);
		/* a row perf has and we do not is a row of ours at 0 */
		double c = e ? pct(e->children, total) : 0, s = e ? pct(e->self, total) : 0;
		double tol = 0.01 + 1e-6 + (!kn || known_has(kn, r->dso, r->sym) ? slack : 0);
		if (c - r->children <= tol && r->children - c <= tol && s - r->self <= tol &&
		    r->self - s <= tol) {
			m->matched++;
			m->kernel_matched += e && e->kernel;
			m->workload_matched += wl;
		} else if (at < sizeof m->why - 200) {
			at += (size_t)snprintf(m->why + at, sizeof m->why - at,
					       "  %s %s: perf %.2f/%.2f, ours %.4f/%.4f\n",
					       r->dso, r->sym, r->children, r->self, c, s);
		}
	}
}

static void compare_flat(pd_profile *p, size_t ev, const pevent *pe, match *m)
{
	compare_flat_slack(p, ev, pe, 0, NULL, m);
}

/* ------------------------------------------------- perf script oracle */

typedef struct sframe {
	char *sym, *dso;
} sframe;

typedef struct ssample {
	char *comm;
	uint32_t pid, tid, cpu;
	uint64_t time, period;
	size_t n;
	sframe *f;
} ssample;

typedef struct sscript {
	ssample *v;
	size_t n;
} sscript;

static void free_script(sscript *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = 0; j < s->v[i].n; j++) {
			free(s->v[i].f[j].sym);
			free(s->v[i].f[j].dso);
		}
		free(s->v[i].f);
		free(s->v[i].comm);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* `perf script` with comm, pid/tid, [cpu], time (ns), period and the
 * chain (leaf first) of every sample; `extra`: more perf script options. */
static void perf_script(const char *data, bool cpu, const char *extra, sscript *out)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf script -i '%s' --ns -F comm,pid,tid,%stime,period,ip,sym,dso %s "
		 "2>/dev/null",
		 data, cpu ? "cpu," : "", extra ? extra : "");
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_msg(text && st == 0, "perf script failed: %s", cmd);
	memset(out, 0, sizeof *out);
	size_t cap = 0;
	ssample *cur = NULL;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '\t' || line[0] == ' ') {
			if (!cur)
				continue;
			char *s = line + strspn(line, "\t ");
			s += strcspn(s, " ");       /* address */
			s += strspn(s, " ");
			char *open = strrchr(s, '(');
			size_t n = strlen(s);
			ck_assert_msg(open && n && s[n - 1] == ')', "frame line: %s", line);
			cur->f = realloc(cur->f, (cur->n + 1) * sizeof *cur->f);
			ck_assert_ptr_nonnull(cur->f);
			sframe *f = &cur->f[cur->n++];
			f->dso = xstrndup(open + 1, (size_t)(s + n - 1 - (open + 1)));
			size_t sl = (size_t)(open - s);
			while (sl && s[sl - 1] == ' ')
				sl--;
			f->sym = xstrndup(s, sl);
			continue;
		}
		if (out->n == cap) {
			cap = cap ? 2 * cap : 1024;
			out->v = realloc(out->v, cap * sizeof *out->v);
			ck_assert_ptr_nonnull(out->v);
		}
		cur = &out->v[out->n++];
		memset(cur, 0, sizeof *cur);
		/* "comm pid/tid [cpu] secs.nsecs: period" (comm may hold spaces) */
		char *slash = NULL;
		/* pid/tid, either possibly -1 (samples of no known task) */
		for (char *t = line; (t = strchr(t, '/')); t++) {
			const char *n = t + 1 + (t[1] == '-');
			if (t > line && t[-1] >= '0' && t[-1] <= '9' && *n >= '0' && *n <= '9') {
				slash = t;
				break;
			}
		}
		ck_assert_msg(slash, "sample line: %s", line);
		char *pidp = slash;
		while (pidp > line && pidp[-1] >= '0' && pidp[-1] <= '9')
			pidp--;
		if (pidp > line && pidp[-1] == '-')
			pidp--;
		size_t cl = (size_t)(pidp - line);
		while (cl && line[cl - 1] == ' ')
			cl--;
		cur->comm = xstrndup(line, cl);
		cur->pid = (uint32_t)strtol(pidp, NULL, 10);
		char *p = slash + 1;
		cur->tid = (uint32_t)strtol(p, &p, 10);
		p += strspn(p, " ");
		if (*p == '[') {
			cur->cpu = (uint32_t)strtoul(p + 1, &p, 10);
			p += strcspn(p, " ");
			p += strspn(p, " ");
		}
		uint64_t secs = strtoull(p, &p, 10);
		ck_assert_int_eq(*p, '.');
		uint64_t ns = strtoull(p + 1, &p, 10);
		cur->time = secs * 1000000000u + ns;
		ck_assert_int_eq(*p, ':');
		cur->period = strtoull(p + 1, NULL, 10);
	}
	free(text);
}

static bool sample_has(const ssample *s, const char *dso, const char *sym)
{
	for (size_t j = 0; j < s->n; j++)
		if (strcmp(s->f[j].sym, sym) == 0 && strcmp(base_name(s->f[j].dso), dso) == 0)
			return true;
	return false;
}

/*
 * The samples the symbolizer names differently from perf, by design or by
 * known gaps (see the report of the profile stage):
 *   - samples inside execve: perf names their user frames from the old
 *     image's maps, the session has dropped them at COMM exec;
 *   - return addresses at a function's first byte: perf names them by
 *     the kernel's "__pfx_" padding symbol before it.
 * Only rows of symbols in such samples can move, and by at most
 * 100 * period / total; `known` collects their period and their
 * "dso|symbol" keys.
 */
static void known_differences(const char *data, const char *extra, known *out)
{
	memset(out, 0, sizeof *out);
	sscript s;
	perf_script(data, true, extra, &s);
	for (size_t i = 0; i < s.n; i++) {
		bool k = false;
		for (size_t j = 0; j < s.v[i].n && !k; j++)
			k = strncmp(s.v[i].f[j].sym, "__pfx_", 6) == 0 ||
			    strstr(s.v[i].f[j].sym, "sys_execve") != NULL;
		if (!k)
			continue;
		out->period += s.v[i].period;
		for (size_t j = 0; j < s.v[i].n; j++)
			known_add(out, s.v[i].f[j].dso, s.v[i].f[j].sym);
	}
	free_script(&s);
}

/* ================================================================ tests */

START_TEST(test_canonical)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "foo.isra.0", "foo" },
		{ "foo.constprop.0.isra.0", "foo" },
		{ "foo.part.12", "foo" },
		{ "foo.cold", "foo" },
		{ "foo.cold.3", "foo" },
		{ "foo.part.0.cold", "foo" },
		{ "foo.llvm.8473629182736451", "foo" },
		{ "foo.lto_priv.0", "foo" },
		{ "foo.localalias", "foo" },
		{ "finish_task_switch.isra.0", "finish_task_switch" },
		{ "x.isra.0.y", "x.y" },
		{ "memcpy@plt", "memcpy@plt" },
		{ "foo.isra.0@plt", "foo@plt" },
		{ "foo(int) [clone .isra.0]", "foo(int)" },
		{ "foo(int) [clone .constprop.0] [clone .cold]", "foo(int)" },
		{ "foo(int) [clone .other]", "foo(int) [clone .other]" },
		{ "operator new(unsigned long)", "operator new(unsigned long)" },
		{ "foo (inlined)", "foo (inlined)" },
		{ ".cold", ".cold" },
		{ "foo.isra", "foo.isra" },
		{ "foo.constprop", "foo.constprop" },
		{ "foo.part.x", "foo.part.x" },
		{ "foo.coldx", "foo.coldx" },
		{ "foo.isra.0x", "foo.isra.0x" },
		{ "__x64_sys_read", "__x64_sys_read" },
		{ "", "" },
	};
	char buf[128];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = pd_symbol_canonical(cases[i].in, buf, sizeof buf);
		ck_assert_msg(strcmp(buf, cases[i].out) == 0, "'%s' -> '%s', want '%s'",
			      cases[i].in, buf, cases[i].out);
		ck_assert_uint_eq(n, strlen(cases[i].out));
	}
	/* truncation: snprintf-like length, NUL always written */
	ck_assert_uint_eq(pd_symbol_canonical("foo_bar.isra.0", buf, 4), 7);
	ck_assert_str_eq(buf, "foo");
	ck_assert_uint_eq(pd_symbol_canonical("foo_bar.isra.0", NULL, 0), 7);
}
END_TEST

START_TEST(test_options_errors)
{
	pd_profile_options o;
	pd_profile *p = NULL;
	pd_error err;
	/* lists with values but no array, NULL or empty names */
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	o.npids = 2;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), PD_EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err.message, "profile: pid filter: 2 values and no array");
	const char *const names[] = { "a", "", "b" };
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	o.comms = names;
	o.ncomms = 3;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), PD_EINVAL);
	ck_assert_str_eq(err.message, "profile: comm filter: value 1 is empty");
	const char *const nulls[] = { "x", NULL };
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	o.dsos = nulls;
	o.ndsos = 2;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), PD_EINVAL);
	ck_assert_str_eq(err.message, "profile: dso filter: value 1 is NULL");
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	o.time_start = 10;
	o.time_end = 5;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), PD_EINVAL);
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	o.version = 99;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), PD_EINVAL);
	ck_assert_int_eq(pd_profile_new(NULL, NULL, &err), PD_EINVAL);

	/* a missing file adds no run; an empty profile answers sensibly */
	ck_assert_int_eq(pd_profile_new(&p, NULL, &err), 0);
	ck_assert_int_lt(pd_profile_add_file(p, "/nonexistent/perf.data", &err), 0);
	ck_assert_uint_eq(pd_profile_run_count(p), 0);
	ck_assert_uint_eq(pd_profile_event_count(p), 0);
	ck_assert_int_eq(pd_profile_default_event(p), -1);
	ck_assert_int_eq(pd_profile_find_event(p, "cycles"), -1);
	ck_assert_ptr_null(pd_profile_root(p, 0));
	const pd_flat_entry *fl;
	size_t n;
	ck_assert_int_eq(pd_profile_flat(p, 0, &fl, &n, &err), PD_EINVAL);
	pd_chain_tree *t;
	ck_assert_int_eq(pd_profile_chains(p, 0, 0, PD_CHAIN_CALLER, SIZE_MAX, 0, &t, &err),
			 PD_EINVAL);
	pd_profile_free(p);
	pd_profile_free(NULL);
	pd_chain_tree_free(NULL);
}
END_TEST

/* The user-space frame-pointer recording: every named row as perf. */
START_TEST(test_fp_matches_perf)
{
	NEED_LAB();
	pd_profile *p = profile_win(L.fp, PD_PROFILE_KEEP_SUFFIXES, COMPAT, L.win_ns);
	int ev = pd_profile_default_event(p);
	ck_assert_int_ge(ev, 0);
	ck_assert_str_eq(pd_profile_event_name(p, (size_t)ev), "cpu-clock");
	ck_assert_int_eq(pd_profile_find_event(p, "cpu-clock"), ev);
	preport r;
	perf_flat(L.fp, L.win_arg, &r);
	const pevent *pe = perf_event(&r, "cpu-clock");
	ck_assert_ptr_nonnull(pe);
	ck_assert_uint_eq(pd_profile_total(p, (size_t)ev, SIZE_MAX), pe->count);
	match m;
	compare_flat(p, (size_t)ev, pe, &m);
	fprintf(stderr, "fp (after exec): %zu of %zu named perf rows match\n", m.matched,
		m.named);
	ck_assert_uint_ge(m.named, 8);
	ck_assert_msg(m.matched == m.named, "rows differing from perf report:\n%s", m.why);
	/* the workload's own functions are there with their known shape */
	const pd_flat_entry *top = find_entry(p, (size_t)ev, "profile", "top", NULL);
	const pd_flat_entry *leaf_a = find_entry(p, (size_t)ev, "profile", "leaf_a", NULL);
	ck_assert_ptr_nonnull(top);
	ck_assert_ptr_nonnull(leaf_a);
	/* top only calls: a timer tick on one of its call or loop
	 * instructions is rare but happens */
	ck_assert_uint_gt(leaf_a->self, 0);
	ck_assert_uint_le(top->self * 20, leaf_a->self);
	free_report(&r);
	pd_profile_free(p);

	/* the whole file: the same, but for the rows of samples taken inside
	 * execve (see L.win_ns) */
	p = profile_of(L.fp, PD_PROFILE_KEEP_SUFFIXES, COMPAT);
	perf_flat(L.fp, "", &r);
	pe = perf_event(&r, "cpu-clock");
	ck_assert_ptr_nonnull(pe);
	ck_assert_uint_eq(pd_profile_total(p, (size_t)ev, SIZE_MAX), pe->count);
	compare_flat(p, (size_t)ev, pe, &m);
	fprintf(stderr, "fp (whole file): %zu of %zu named perf rows match\n", m.matched,
		m.named);
	ck_assert_msg(m.matched + 2 >= m.named, "rows differing from perf report:\n%s", m.why);
	free_report(&r);
	pd_profile_free(p);
}
END_TEST

/* -U: samples with an unnamed leaf leave the total, unnamed frames the chains. */
START_TEST(test_hide_unresolved_matches_perf)
{
	NEED_LAB();
	const char *data = L.sys_ok ? L.sys : L.fp;
	uint64_t win = L.sys_ok ? 0 : L.win_ns;
	pd_profile *p = profile_win(data, PD_PROFILE_KEEP_SUFFIXES | PD_PROFILE_HIDE_UNRESOLVED,
				    COMPAT, win);
	pd_profile *all = profile_win(data, PD_PROFILE_KEEP_SUFFIXES, COMPAT, win);
	int ev = pd_profile_find_event(p, "cpu-clock");
	ck_assert_int_ge(ev, 0);
	char args[128];
	snprintf(args, sizeof args, "-U %s", L.sys_ok ? "" : L.win_arg);
	preport r;
	perf_flat(data, args, &r);
	const pevent *pe = perf_event(&r, "cpu-clock");
	ck_assert_ptr_nonnull(pe);
	/* perf -N keeps no copy of the vdso, so perf leaves vdso leaves
	 * unnamed (and -U drops them) where the symbolizer names them; the
	 * known differences (known_differences()) can name a leaf on one
	 * side only too */
	sscript s;
	perf_script(data, true, L.sys_ok ? "" : L.win_arg, &s);
	uint64_t vdso = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].n && strcmp(s.v[i].f[0].dso, "[vdso]") == 0 &&
		    strcmp(s.v[i].f[0].sym, "[unknown]") == 0)
			vdso += s.v[i].period;
	free_script(&s);
	known kn;
	known_differences(data, L.sys_ok ? "" : L.win_arg, &kn);
	uint64_t ours = pd_profile_total(p, (size_t)ev, SIZE_MAX);
	uint64_t diff = ours > pe->count ? ours - pe->count : pe->count - ours;
	ck_assert_msg(diff <= vdso + kn.period,
		      "-U total %" PRIu64 ", perf %" PRIu64 " (%" PRIu64 " in the vdso, %" PRIu64
		      " known differences)",
		      ours, pe->count, vdso, kn.period);
	/* with equal totals only the known rows can move; else every share
	 * moves by at most the difference */
	double slack = 100.0 * (double)kn.period / (double)pe->count;
	match m;
	if (diff == 0)
		compare_flat_slack(p, (size_t)ev, pe, slack, &kn, &m);
	else
		compare_flat_slack(p, (size_t)ev, pe, slack + 100.0 * (double)vdso / (double)pe->count,
				   NULL, &m);
	known_free(&kn);
	fprintf(stderr, "-U: %zu of %zu named perf rows match (%zu C++/@ rows not compared)\n",
		m.matched, m.named, m.cplusplus);
	ck_assert_uint_ge(m.named, 10);
	ck_assert_uint_eq(m.workload_matched, m.workload);
	ck_assert_msg(m.matched == m.named, "rows differing from perf -U:\n%s", m.why);
	/* no entry is an address */
	const pd_flat_entry *fl;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_profile_flat(p, (size_t)ev, &fl, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(!fl[i].unresolved, "unresolved entry %s with -U", fl[i].symbol);
	free_report(&r);
	pd_profile_free(p);
	pd_profile_free(all);
}
END_TEST

START_TEST(test_system_wide_matches_perf)
{
	NEED_LAB();
	if (!L.sys_ok)
		PD_SKIP("perf record -a failed (needs privileges)");
	pd_profile *p = profile_of(L.sys, PD_PROFILE_KEEP_SUFFIXES, COMPAT);
	int ev = pd_profile_default_event(p);
	ck_assert_int_ge(ev, 0);
	preport r;
	perf_flat(L.sys, "", &r);
	const pevent *pe = perf_event(&r, "cpu-clock");
	ck_assert_ptr_nonnull(pe);
	ck_assert_uint_eq(pd_profile_total(p, (size_t)ev, SIZE_MAX), pe->count);
	known kn;
	known_differences(L.sys, "", &kn);
	double slack = 100.0 * (double)kn.period / (double)pe->count;
	fprintf(stderr,
		"system-wide: known symbolizer differences move %zu rows by <= %.3f points\n",
		kn.n, slack);
	match m;
	compare_flat_slack(p, (size_t)ev, pe, slack, &kn, &m);
	known_free(&kn);
	fprintf(stderr,
		"system-wide: %zu of %zu named perf rows match (%zu kernel; %zu of %zu of the "
		"workload; %zu C++/@ rows not compared)\n",
		m.matched, m.named, m.kernel_matched, m.workload_matched, m.workload,
		m.cplusplus);
	ck_assert_uint_ge(m.named, 20);
	ck_assert_uint_ge(m.workload, 5);
	ck_assert_uint_eq(m.workload_matched, m.workload);
	ck_assert_uint_ge(m.kernel_matched, 10);
	ck_assert_msg(m.matched == m.named, "rows differing from perf:\n%s", m.why);
	const pd_flat_entry *leaf_a = find_entry(p, (size_t)ev, "profile", "leaf_a", NULL);
	ck_assert_ptr_nonnull(leaf_a);
	free_report(&r);
	pd_profile_free(p);
}
END_TEST

START_TEST(test_two_events)
{
	NEED_LAB();
	pd_profile *p = profile_of(L.two, PD_PROFILE_KEEP_SUFFIXES, COMPAT);
	ck_assert_uint_eq(pd_profile_event_count(p), 2);
	int cc = pd_profile_find_event(p, "cpu-clock");
	int tc = pd_profile_find_event(p, "task-clock");
	ck_assert_int_ge(cc, 0);
	ck_assert_int_ge(tc, 0);
	ck_assert_int_ne(cc, tc);
	ck_assert_int_eq(pd_profile_default_event(p), cc);
	ck_assert_int_eq(pd_profile_find_event(p, "task-clock:u"), tc);
	ck_assert_int_eq(pd_profile_find_event(p, "cycles"), -1);
	preport r;
	perf_flat(L.two, "", &r);
	const char *names[2] = { "cpu-clock", "task-clock" };
	int evs[2] = { cc, tc };
	for (int k = 0; k < 2; k++) {
		const pevent *pe = perf_event(&r, names[k]);
		ck_assert_ptr_nonnull(pe);
		ck_assert_uint_eq(pd_profile_total(p, (size_t)evs[k], SIZE_MAX), pe->count);
		match m;
		compare_flat(p, (size_t)evs[k], pe, &m);
		fprintf(stderr, "%s: %zu of %zu named perf rows match\n", names[k], m.matched,
			m.named);
		ck_assert_uint_ge(m.named, 8);
		ck_assert_msg(m.matched == m.named, "%s rows differing from perf:\n%s", names[k],
			      m.why);
	}
	free_report(&r);
	pd_profile_free(p);
}
END_TEST

/* rec → rec → ... → leaf_b: children of rec counts each sample once. */
START_TEST(test_recursion_counts_once)
{
	NEED_LAB();
	pd_profile *p = profile_of(L.fp, PD_PROFILE_KEEP_SUFFIXES, COMPAT);
	int ev = pd_profile_default_event(p);
	sscript s;
	perf_script(L.fp, true, NULL, &s);
	uint64_t once = 0, every = 0, self = 0;
	for (size_t i = 0; i < s.n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < s.v[i].n; j++)
			k += strcmp(s.v[i].f[j].sym, "rec") == 0 &&
			     strcmp(base_name(s.v[i].f[j].dso), "profile") == 0;
		once += k ? s.v[i].period : 0;
		every += k * s.v[i].period;
		if (s.v[i].n && strcmp(s.v[i].f[0].sym, "rec") == 0)
			self += s.v[i].period;
	}
	const pd_flat_entry *e = find_entry(p, (size_t)ev, "profile", "rec", NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_gt(once, 0);
	ck_assert_uint_gt(every, 2 * once); /* the recursion is really there */
	ck_assert_uint_eq(e->children, once);
	ck_assert_uint_eq(e->self, self);
	free_script(&s);
	pd_profile_free(p);
}
END_TEST

/* clone_work, clone_work.isra.0 and clone_work.constprop.0 are one name. */
START_TEST(test_clone_suffixes_merge)
{
	NEED_LAB();
	static const char *names[] = { "clone_work", "clone_work.isra.0",
				       "clone_work.constprop.0" };
	pd_profile *kept = profile_of(L.fp, PD_PROFILE_KEEP_SUFFIXES, COMPAT);
	pd_profile *folded = profile_of(L.fp, 0, COMPAT);
	int ev = pd_profile_default_event(folded);
	sscript s;
	perf_script(L.fp, true, NULL, &s);
	uint64_t children = 0, self = 0, part_self[3] = { 0 };
	for (size_t i = 0; i < s.n; i++) {
		bool any = false;
		for (int k = 0; k < 3; k++)
			any |= sample_has(&s.v[i], "profile", names[k]);
		children += any ? s.v[i].period : 0;
		for (int k = 0; k < 3; k++)
			if (s.v[i].n && strcmp(s.v[i].f[0].sym, names[k]) == 0) {
				self += s.v[i].period;
				part_self[k] += s.v[i].period;
			}
	}
	const pd_flat_entry *e = find_entry(folded, (size_t)ev, "profile", "clone_work", NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->children, children);
	ck_assert_uint_eq(e->self, self);
	for (int k = 1; k < 3; k++)
		ck_assert_ptr_null(find_entry(folded, (size_t)ev, "profile", names[k], NULL));
	/* kept apart, each is its own entry */
	int kev = pd_profile_default_event(kept);
	for (int k = 0; k < 3; k++) {
		const pd_flat_entry *x = find_entry(kept, (size_t)kev, "profile", names[k], NULL);
		ck_assert_msg(x != NULL, "%s missing with KEEP_SUFFIXES", names[k]);
		ck_assert_uint_eq(x->self, part_self[k]);
		ck_assert_uint_gt(x->self, 0);
	}
	/* every suffixed name is gone from the folded profile */
	const pd_flat_entry *fl;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_profile_flat(folded, (size_t)ev, &fl, &n, &err), 0);
	char buf[512];
	for (size_t i = 0; i < n; i++) {
		pd_symbol_canonical(fl[i].symbol, buf, sizeof buf);
		ck_assert_msg(fl[i].unresolved || strcmp(buf, fl[i].symbol) == 0,
			      "'%s' was not folded", fl[i].symbol);
	}
	free_script(&s);
	pd_profile_free(kept);
	pd_profile_free(folded);
}
END_TEST

typedef struct fsum {
	uint64_t period, samples;
	char unmatched[256];      /* "what=value " for each value that matched nothing */
	uint64_t matches[2];      /* samples the first two values of `count_kind` matched */
} fsum;

/* The profile of `path` under the filters of `o`: the selected samples,
 * the filter values that matched nothing and the matches of two values. */
static fsum filtered(pd_profile_options *o, const char *path, pd_filter_kind count_kind)
{
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, o, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(p, path, &err), 0);
	int ev = pd_profile_find_event(p, "cpu-clock");
	fsum r = { 0, 0, "", { 0, 0 } };
	if (ev >= 0) {
		r.period = pd_profile_total(p, (size_t)ev, SIZE_MAX);
		r.samples = pd_profile_samples(p, (size_t)ev, SIZE_MAX);
		/* the tree and the views only hold the selected samples */
		ck_assert_uint_eq(pd_cct_total(pd_profile_root(p, (size_t)ev), SIZE_MAX), r.period);
	}
	const char *what, *value;
	size_t len = 0;
	for (size_t i = 0; i < pd_profile_filter_unmatched(p, &what, &value, i); i++)
		len += (size_t)snprintf(r.unmatched + len, sizeof r.unmatched - len, "%s=%s ",
					what, value);
	for (size_t i = 0; i < 2; i++)
		r.matches[i] = pd_profile_filter_matches(p, count_kind, i);
	pd_profile_free(p);
	return r;
}

START_TEST(test_filters)
{
	NEED_LAB();
	sscript s;
	perf_script(L.fp, true, NULL, &s);
	ck_assert_uint_gt(s.n, 100);
	/* pick values from the samples: the pid of the last sample (a workload
	 * process), the cpu of the first, a time window in the middle */
	const ssample *last = &s.v[s.n - 1];
	uint32_t pid = last->pid, tid = last->tid, cpu = s.v[0].cpu;
	uint64_t t0 = s.v[s.n / 4].time, t1 = s.v[s.n / 2].time;
	/* for the combined filters: a sample after t0 with its leaf in the
	 * workload, whose cpu is used */
	uint32_t and_cpu = UINT32_MAX;
	for (size_t i = s.n / 4; i < s.n && and_cpu == UINT32_MAX; i++)
		if (s.v[i].n && strcmp(base_name(s.v[i].f[0].dso), "profile") == 0)
			and_cpu = s.v[i].cpu;
	ck_assert_uint_ne(and_cpu, UINT32_MAX);
	fsum want_pid = { 0 }, want_cpu = { 0 }, want_comm = { 0 }, want_time = { 0 },
	     want_dso = { 0 }, want_and = { 0 }, all = { 0 };
	uint64_t and_cpu_samples = 0;
	for (size_t i = 0; i < s.n; i++) {
		const ssample *x = &s.v[i];
		uint64_t pd = x->period;
		bool dso = x->n && strcmp(base_name(x->f[0].dso), "profile") == 0;
		all.period += pd, all.samples++;
		and_cpu_samples += x->cpu == and_cpu;
		if (x->pid == pid)
			want_pid.period += pd, want_pid.samples++;
		if (x->cpu == cpu)
			want_cpu.period += pd, want_cpu.samples++;
		if (strcmp(x->comm, s.v[0].comm) == 0)
			want_comm.period += pd, want_comm.samples++;
		if (x->time >= t0 && x->time <= t1)
			want_time.period += pd, want_time.samples++;
		if (dso)
			want_dso.period += pd, want_dso.samples++;
		if (dso && x->cpu == and_cpu && x->time >= t0)
			want_and.period += pd, want_and.samples++;
	}
	const char *comms[] = { "nosuchcomm", s.v[0].comm };
	const char *profile_dso[] = { "profile" }, *bin_dso[] = { L.bin };
	const uint32_t pids[] = { pid }, tids[] = { 999999999, tid }, cpus[] = { cpu },
		       and_cpus[] = { and_cpu };
	pd_profile_options o;
	fsum got;
#define CHECK(setup, want, kind, miss)                                   \
	do {                                                                  \
		pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);                                  \
		setup;                                                        \
		got = filtered(&o, L.fp, kind);                               \
		ck_assert_msg(got.period == (want).period && got.samples == (want).samples, \
			      #setup ": %" PRIu64 "/%" PRIu64 ", want %" PRIu64 "/%" PRIu64, \
			      got.period, got.samples, (want).period, (want).samples); \
		ck_assert_uint_gt(got.samples, 0);                            \
		ck_assert_str_eq(got.unmatched, miss);                        \
	} while (0)
	CHECK((o.pids = pids, o.npids = 1), want_pid, PD_FILTER_PID, "");
	ck_assert_uint_eq(got.matches[0], want_pid.samples);
	/* single-threaded: tid == pid */
	CHECK((o.tids = tids, o.ntids = 2), want_pid, PD_FILTER_TID, "tid=999999999 ");
	ck_assert_uint_eq(got.matches[0], 0);
	ck_assert_uint_eq(got.matches[1], want_pid.samples);
	CHECK((o.cpus = cpus, o.ncpus = 1), want_cpu, PD_FILTER_CPU, "");
	/* one comm of the recording and one that is not */
	CHECK((o.comms = comms, o.ncomms = 2), want_comm, PD_FILTER_COMM, "comm=nosuchcomm ");
	ck_assert_uint_eq(got.matches[0], 0);
	ck_assert_uint_eq(got.matches[1], want_comm.samples);
	CHECK((o.time_start = t0, o.time_end = t1), want_time, PD_FILTER_COMM, "");
	CHECK((o.dsos = profile_dso, o.ndsos = 1), want_dso, PD_FILTER_DSO, "");
	ck_assert_uint_eq(got.matches[0], want_dso.samples);
	CHECK((o.dsos = bin_dso, o.ndsos = 1), want_dso, PD_FILTER_DSO, ""); /* by full path too */
	ck_assert_uint_eq(got.matches[0], want_dso.samples);
	/* each value counts whatever the other filters say */
	CHECK((o.dsos = profile_dso, o.ndsos = 1, o.cpus = and_cpus, o.ncpus = 1,
	       o.time_start = t0), want_and, PD_FILTER_CPU, "");
	ck_assert_uint_eq(got.matches[0], and_cpu_samples);
#undef CHECK
	/* nothing selected: an event without samples; the comm is unmatched,
	 * the pid that exists is not */
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	o.comms = comms;
	o.ncomms = 1;
	o.pids = pids;
	o.npids = 1;
	got = filtered(&o, L.fp, PD_FILTER_PID);
	ck_assert_uint_eq(got.period, 0);
	ck_assert_str_eq(got.unmatched, "comm=nosuchcomm ");
	ck_assert_uint_eq(got.matches[0], want_pid.samples);
	/* no filter: everything */
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	got = filtered(&o, L.fp, PD_FILTER_COMM);
	ck_assert_uint_eq(got.period, all.period);
	ck_assert_uint_eq(got.samples, all.samples);
	ck_assert_str_eq(got.unmatched, "");
	free_script(&s);
}
END_TEST

START_TEST(test_runs)
{
	NEED_LAB();
	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	so.flags = COMPAT;
	o.session = &so;
	pd_profile *one = profile_of(L.fp, 0, COMPAT);
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(p, L.fp, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(p, L.two, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(p, L.fp, &err), 0);
	ck_assert_uint_eq(pd_profile_run_count(p), 3);
	ck_assert_str_eq(pd_profile_run_path(p, 1), L.two);
	ck_assert_ptr_null(pd_profile_run_path(p, 3));
	/* cpu-clock of all three runs is one event, task-clock a second */
	ck_assert_uint_eq(pd_profile_event_count(p), 2);
	size_t cc = (size_t)pd_profile_find_event(p, "cpu-clock");
	size_t tc = (size_t)pd_profile_find_event(p, "task-clock");
	pd_profile *two = profile_of(L.two, 0, COMPAT);
	size_t two_cc = (size_t)pd_profile_find_event(two, "cpu-clock");
	size_t one_cc = (size_t)pd_profile_find_event(one, "cpu-clock");
	uint64_t t_fp = pd_profile_total(one, one_cc, SIZE_MAX);
	uint64_t t_two = pd_profile_total(two, two_cc, SIZE_MAX);
	ck_assert_uint_eq(pd_profile_total(p, cc, 0), t_fp);
	ck_assert_uint_eq(pd_profile_total(p, cc, 1), t_two);
	ck_assert_uint_eq(pd_profile_total(p, cc, 2), t_fp);
	ck_assert_uint_eq(pd_profile_total(p, cc, SIZE_MAX), 2 * t_fp + t_two);
	ck_assert_uint_eq(pd_profile_total(p, tc, 0), 0);
	ck_assert_uint_gt(pd_profile_total(p, tc, 1), 0);
	ck_assert_uint_eq(pd_profile_samples(p, cc, SIZE_MAX),
			  2 * pd_profile_samples(one, one_cc, SIZE_MAX) +
				  pd_profile_samples(two, two_cc, SIZE_MAX));
	/* per-run views: runs 0 and 2 are the same file */
	size_t idx;
	const pd_flat_entry *e = find_entry(p, cc, "profile", "leaf_a", &idx);
	const pd_flat_entry *e1 = find_entry(one, one_cc, "profile", "leaf_a", NULL);
	const pd_flat_entry *e2 = find_entry(two, two_cc, "profile", "leaf_a", NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->children_runs[0], e1->children);
	ck_assert_uint_eq(e->children_runs[2], e1->children);
	ck_assert_uint_eq(e->children_runs[1], e2->children);
	ck_assert_uint_eq(e->self_runs[1], e2->self);
	ck_assert_uint_eq(e->children, 2 * e1->children + e2->children);
	/* the tree: every node's runs add up to its sum, the root to the total */
	const pd_cct_node *root = pd_profile_root(p, cc);
	for (size_t r = 0; r < 3; r++)
		ck_assert_uint_eq(pd_cct_total(root, r), pd_profile_total(p, cc, r));
	pd_chain_tree *t;
	ck_assert_int_eq(pd_profile_chains(p, cc, idx, PD_CHAIN_CALLEE, 1, 0, &t, &err), 0);
	ck_assert_uint_eq(pd_chain_tree_node(t, 0)->total, e2->children);
	pd_chain_tree_free(t);
	ck_assert_int_eq(pd_profile_chains(p, cc, idx, PD_CHAIN_CALLEE, 7, 0, &t, &err),
			 PD_EINVAL);
	pd_profile_free(two);
	pd_profile_free(one);
	pd_profile_free(p);
}
END_TEST

/* The earliest and latest sample time perf script prints for `data`. */
static bool perf_time_range(const char *data, uint64_t *first, uint64_t *last)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' --ns -F time -G 2>/dev/null", data);
	int st;
	char *out = pd_test_run(cmd, &st);
	bool any = false;
	for (char *line = out ? strtok(out, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		char *end;
		uint64_t sec = strtoull(line, &end, 10);
		if (*end != '.')
			continue;
		uint64_t t = sec * 1000000000u + strtoull(end + 1, NULL, 10);
		if (!any || t < *first)
			*first = t;
		if (!any || t > *last)
			*last = t;
		any = true;
	}
	free(out);
	return any;
}

/*
 * The span per-second rates (diff --absolute) are taken over: the
 * SAMPLE_TIME feature of a file; in a `perf record -o -` stream, which has
 * none, the samples' own earliest and latest times.  Both as perf script
 * prints the samples.
 */
START_TEST(test_run_span)
{
	NEED_LAB();
	uint64_t first, last;
	ck_assert(perf_time_range(L.fp, &first, &last));
	pd_profile *file = profile_of(L.fp, 0, COMPAT);
	ck_assert_uint_gt(last, first);
	ck_assert_uint_eq(pd_profile_run_span(file, 0), last - first);
	pd_profile_free(file);

	char pipe[PATHMAX + 16], cmd[4 * PATHMAX];
	snprintf(pipe, sizeof pipe, "%s/pipe.data", L.dir);
	snprintf(cmd, sizeof cmd, "perf record -q -N -e cpu-clock -g -o - -- '%s' 150 > '%s' 2>/dev/null",
		 L.bin, pipe);
	ck_assert_msg(pd_test_sh_ok(cmd), "%s failed", cmd);
	ck_assert(perf_time_range(pipe, &first, &last));
	pd_profile *p = profile_of(pipe, 0, COMPAT);
	ck_assert_uint_gt(last, first);
	ck_assert_uint_eq(pd_profile_run_span(p, 0), last - first);
	ck_assert_uint_eq(pd_profile_run_span(p, SIZE_MAX), last - first);
	pd_profile_free(p);
}
END_TEST

/*
 * Events come in the file's attr order, perf report's, whichever event's
 * first sample came first: here the second event (task-clock every 0.1 ms)
 * samples long before the first (cpu-clock every 20 ms).
 */
START_TEST(test_event_order)
{
	NEED_LAB();
	char data[PATHMAX + 16], w[PATHMAX + 16];
	snprintf(data, sizeof data, "%s/order.data", L.dir);
	snprintf(w, sizeof w, "'%s' 150", L.bin);
	if (!pd_test_perf_record(data, "-q -N -e cpu-clock/period=20000000/ "
				 "-e task-clock/period=100000/ -g", w))
		PD_SKIP("perf record with two periods failed");
	pd_profile *p = profile_of(data, 0, COMPAT);
	ck_assert_uint_eq(pd_profile_event_count(p), 2);
	ck_assert_msg(strncmp(pd_profile_event_name(p, 0), "cpu-clock", 9) == 0, "%s",
		      pd_profile_event_name(p, 0));
	ck_assert_msg(strncmp(pd_profile_event_name(p, 1), "task-clock", 10) == 0, "%s",
		      pd_profile_event_name(p, 1));
	pd_profile_free(p);
}
END_TEST

/* Find the node for `path` (root → leaf names) under `root`. */
static const pd_cct_node *walk_path(const pd_cct_node *root, const char *const *path, size_t n)
{
	const pd_cct_node *c = root;
	for (size_t d = 0; d < n && c; d++) {
		const pd_cct_node *next = NULL;
		for (size_t i = 0; i < pd_cct_child_count(c) && !next; i++)
			if (strcmp(pd_cct_symbol(pd_cct_child(c, i)), path[d]) == 0)
				next = pd_cct_child(c, i);
		c = next;
	}
	return c;
}

START_TEST(test_tree_calltrace)
{
	NEED_LAB();
	pd_profile *p = profile_of(L.fp, 0, COMPAT);
	size_t ev = (size_t)pd_profile_default_event(p);
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	const pd_cct_node *root = pd_profile_root(p, ev);
	ck_assert_ptr_null(pd_cct_symbol(root));
	ck_assert_ptr_null(pd_cct_parent(root));
	ck_assert_uint_eq(pd_cct_total(root, SIZE_MAX), total);
	/* every node: total = self + children's totals; self adds up to the total */
	uint64_t self_sum = 0;
	size_t nodes = 0;
	const pd_cct_node **stack = malloc(pd_profile_node_count(p, ev) * sizeof *stack);
	ck_assert_ptr_nonnull(stack);
	size_t depth = 0;
	stack[depth++] = root;
	while (depth) {
		const pd_cct_node *c = stack[--depth];
		nodes++;
		self_sum += pd_cct_self(c, SIZE_MAX);
		uint64_t kids = 0;
		for (size_t i = 0; i < pd_cct_child_count(c); i++) {
			const pd_cct_node *k = pd_cct_child(c, i);
			ck_assert_ptr_eq(pd_cct_parent(k), c);
			ck_assert_uint_eq(pd_cct_depth(k), pd_cct_depth(c) + 1);
			kids += pd_cct_total(k, SIZE_MAX);
			stack[depth++] = k;
		}
		ck_assert_uint_eq(pd_cct_total(c, SIZE_MAX), pd_cct_self(c, SIZE_MAX) + kids);
		ck_assert_uint_eq(pd_cct_total(c, 0), pd_cct_total(c, SIZE_MAX));
	}
	free(stack);
	ck_assert_uint_eq(nodes, pd_profile_node_count(p, ev));
	ck_assert_uint_eq(self_sum, total);

	/* calltrace: the inclusive period of a path prefix, against perf script */
	sscript s;
	perf_script(L.fp, true, NULL, &s);
	static const char *const path[] = { "__libc_start_call_main", "main", "top", "path_b",
					    "leaf_a" };
	for (size_t len = 2; len <= 5; len++) {
		uint64_t want = 0;
		for (size_t i = 0; i < s.n; i++) {
			const ssample *x = &s.v[i];
			if (x->n < len)
				continue;
			bool ok = true;
			for (size_t d = 0; d < len && ok; d++)
				ok = strcmp(x->f[x->n - 1 - d].sym, path[d]) == 0;
			want += ok ? x->period : 0;
		}
		const pd_cct_node *n = walk_path(root, path, len);
		ck_assert_msg(n != NULL, "no node for a path of %zu frames", len);
		ck_assert_uint_eq(pd_cct_total(n, SIZE_MAX), want);
		ck_assert_uint_gt(want, 0);
		ck_assert_str_eq(pd_cct_dso(n) ? base_name(pd_cct_dso(n)) : "",
				 len == 1 ? "libc.so.6" : len >= 2 ? "profile" : "");
		ck_assert(!pd_cct_kernel(n) && !pd_cct_inlined(n) && !pd_cct_unresolved(n));
	}
	free_script(&s);
	pd_profile_free(p);
}
END_TEST

/* ------------------------------------------------------------ chains */

typedef struct pchains {
	char **chain;
	double *pct;
	size_t n;
} pchains;

static void free_chains(pchains *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->chain[i]);
	free(c->chain);
	free(c->pct);
	memset(c, 0, sizeof *c);
}

/* perf's folded chains under the row of `sym` in `dso`. */
static void perf_chains(const char *data, const char *order, const char *dso, const char *sym,
			pchains *out)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf report -i '%s' --children --sort dso,sym -g folded,0,%s --stdio %s "
		 "2>/dev/null",
		 data, order, L.win_arg);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_msg(text && st == 0, "%s", cmd);
	memset(out, 0, sizeof *out);
	bool in = false;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		if (line[0] == ' ') {
			char want[512];
			snprintf(want, sizeof want, "] %s", sym);
			char *at = strstr(line, want);
			in = at && strstr(line, dso) &&
			     (at[strlen(want)] == ' ' || at[strlen(want)] == '\0');
			continue;
		}
		if (!in)
			continue;
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		out->chain = realloc(out->chain, (out->n + 1) * sizeof *out->chain);
		out->pct = realloc(out->pct, (out->n + 1) * sizeof *out->pct);
		ck_assert(out->chain && out->pct);
		out->pct[out->n] = strtod(line, NULL);
		out->chain[out->n++] = xstrdup(sp + 1);
	}
	free(text);
}

/* perf names some dynamic symbols with their version ("f@@GLIBC_2.17")
 * and unnamed frames by raw address; such chains are not compared. */
static bool plain_chain(const char *c)
{
	if (strstr(c, "@@") || strstr(c, "[unknown]"))
		return false;
	for (const char *f = c; f; f = strchr(f, ';')) {
		f += *f == ';';
		size_t n = strcspn(f, ";");
		if ((n > 2 && strncmp(f, "0x", 2) == 0) || (n == 1 && f[0] == '0'))
			return false;
	}
	return true;
}

/* "name@@VERSION" → "name" in place. */
static char *unversioned(char *s)
{
	char *at = strstr(s, "@@");
	if (at)
		*at = '\0';
	return s;
}

/* Our chain ending at node k as "a;b;c". */
static void chain_text(const pd_chain_tree *t, size_t k, char *buf, size_t n)
{
	const char *names[256];
	size_t m = 0;
	for (size_t u = k; u != SIZE_MAX && m < 256; u = pd_chain_tree_node(t, u)->parent)
		names[m++] = pd_chain_tree_node(t, u)->symbol;
	size_t at = 0;
	buf[0] = '\0';
	for (size_t j = m; j-- > 0 && at < n;)
		at += (size_t)snprintf(buf + at, n - at, "%s%s", names[j], j ? ";" : "");
}

static void check_chains(pd_profile *p, size_t ev, const char *sym, pd_chain_order order)
{
	size_t idx;
	const pd_flat_entry *e = find_entry(p, ev, "profile", sym, &idx);
	ck_assert_ptr_nonnull(e);
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	pd_chain_tree *t;
	pd_error err;
	ck_assert_int_eq(pd_profile_chains(p, ev, idx, order, SIZE_MAX, 0, &t, &err), 0);
	const pd_chain_node *n0 = pd_chain_tree_node(t, 0);
	ck_assert_str_eq(n0->symbol, sym);
	ck_assert_uint_eq(n0->parent, SIZE_MAX);
	/* node 0 and, in caller order, the whole chains of the row's leaf
	 * samples (further roots) share the row's period */
	uint64_t roots = n0->total;
	for (size_t k = 1; k < pd_chain_tree_size(t); k++)
		if (pd_chain_tree_node(t, k)->parent == SIZE_MAX)
			roots += pd_chain_tree_node(t, k)->total;
	ck_assert_uint_eq(roots, e->children);
	if (order == PD_CHAIN_CALLER)
		ck_assert_uint_eq(n0->total, e->children - e->self);
	pchains pc;
	perf_chains(L.fp, order == PD_CHAIN_CALLEE ? "callee" : "caller", "profile", sym, &pc);
	ck_assert_uint_gt(pc.n, 0);
	size_t compared = 0, skipped = 0;
	char buf[4096];
	for (size_t i = 0; i < pc.n; i++) {
		if (!plain_chain(pc.chain[i])) {
			skipped++;
			continue;
		}
		bool found = false;
		for (size_t k = 0; k < pd_chain_tree_size(t) && !found; k++) {
			const pd_chain_node *c = pd_chain_tree_node(t, k);
			if (!c->self)
				continue;
			chain_text(t, k, buf, sizeof buf);
			if (strcmp(buf, pc.chain[i]) == 0) {
				found = true;
				double ours = pct(c->self, total);
				ck_assert_msg(ours - pc.pct[i] <= 0.01 + 1e-6 && pc.pct[i] - ours <= 0.01 + 1e-6,
					      "%s: chain %s: perf %.2f%%, ours %.4f%%", sym,
					      pc.chain[i], pc.pct[i], ours);
			}
		}
		ck_assert_msg(found || pc.pct[i] < 0.01, "%s: perf chain %s (%.2f%%) missing", sym,
			      pc.chain[i], pc.pct[i]);
		compared++;
	}
	/* and the other way round: each of ours with weight is perf's */
	size_t ours_n = 0;
	for (size_t k = 0; k < pd_chain_tree_size(t); k++) {
		const pd_chain_node *c = pd_chain_tree_node(t, k);
		bool named = true;
		for (size_t u = k; u != SIZE_MAX; u = pd_chain_tree_node(t, u)->parent)
			named &= !pd_chain_tree_node(t, u)->unresolved;
		ours_n += c->self && pct(c->self, total) >= 0.01 && named;
		if (k && c->parent == SIZE_MAX) {
			ck_assert_int_eq(order, PD_CHAIN_CALLER);
			ck_assert_uint_eq(c->depth, 0);
		} else if (k) {
			const pd_chain_node *par = pd_chain_tree_node(t, c->parent);
			ck_assert_uint_lt(c->parent, k);
			ck_assert_uint_le(c->total, par->total);
			ck_assert_uint_eq(c->depth, par->depth + 1);
		}
	}
	ck_assert_uint_le(ours_n, compared + skipped);
	free_chains(&pc);
	pd_chain_tree_free(t);
}

START_TEST(test_chains_match_perf)
{
	NEED_LAB();
	pd_profile *p = profile_win(L.fp, PD_PROFILE_KEEP_SUFFIXES, COMPAT, L.win_ns);
	size_t ev = (size_t)pd_profile_default_event(p);
	static const char *const syms[] = { "leaf_a", "leaf_b", "rec", "path_b", "top", "main" };
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		check_chains(p, ev, syms[i], PD_CHAIN_CALLEE);
		check_chains(p, ev, syms[i], PD_CHAIN_CALLER);
	}
	/* a threshold leaves light nodes out but keeps their weight above */
	size_t idx;
	find_entry(p, ev, "profile", "main", &idx);
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	pd_chain_tree *t;
	pd_error err;
	ck_assert_int_eq(pd_profile_chains(p, ev, idx, PD_CHAIN_CALLER, SIZE_MAX, total / 10, &t,
					   &err),
			 0);
	for (size_t k = 1; k < pd_chain_tree_size(t); k++)
		ck_assert_uint_ge(pd_chain_tree_node(t, k)->total, total / 10);
	ck_assert_ptr_null(pd_chain_tree_node(t, pd_chain_tree_size(t)));
	pd_chain_tree_free(t);
	pd_profile_free(p);
}
END_TEST

/* Collapsed stacks: per command and stack, the period perf script gives. */
START_TEST(test_stacks)
{
	NEED_LAB();
	pd_profile *p = profile_win(L.fp, PD_PROFILE_KEEP_SUFFIXES, COMPAT, L.win_ns);
	size_t ev = (size_t)pd_profile_default_event(p);
	const pd_stack *st;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_profile_stacks(p, ev, &st, &n, &err), 0);
	ck_assert_uint_gt(n, 5);
	/* ours and perf script's, both as "comm;root;...;leaf" with every
	 * unnamed frame written [unknown] */
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	char **keys = calloc(n, sizeof *keys);
	uint64_t *got = calloc(n, sizeof *got), *want = calloc(n, sizeof *want);
	ck_assert(keys && got && want);
	size_t nk = 0;
	uint64_t sum = 0, samples = 0;
	for (size_t i = 0; i < n; i++) {
		const pd_cct_node *path[512];
		size_t d = 0;
		for (const pd_cct_node *c = st[i].leaf; pd_cct_parent(c) && d < 512;
		     c = pd_cct_parent(c))
			path[d++] = c;
		size_t at = (size_t)snprintf(buf, cap, "%s", st[i].comm);
		while (d-- > 0) {
			char name[1024];
			/* perf -N has no copy of the vdso to name its frames */
			bool unnamed = pd_cct_unresolved(path[d]) ||
				       strcmp(pd_cct_dso(path[d]), "[vdso]") == 0;
			snprintf(name, sizeof name, "%s",
				 unnamed ? "[unknown]" : pd_cct_symbol(path[d]));
			at += (size_t)snprintf(buf + at, cap - at, ";%s", unversioned(name));
		}
		size_t k = 0;
		while (k < nk && strcmp(keys[k], buf) != 0)
			k++;
		if (k == nk)
			keys[nk++] = xstrdup(buf);
		got[k] += st[i].period;
		sum += st[i].period;
		samples += st[i].samples;
	}
	ck_assert_uint_eq(sum, pd_profile_total(p, ev, SIZE_MAX));
	ck_assert_uint_eq(samples, pd_profile_samples(p, ev, SIZE_MAX));
	sscript s;
	perf_script(L.fp, true, L.win_arg, &s);
	for (size_t i = 0; i < s.n; i++) {
		const ssample *x = &s.v[i];
		size_t at = (size_t)snprintf(buf, cap, "%s", x->comm);
		for (size_t j = x->n; j-- > 0;)
			at += (size_t)snprintf(buf + at, cap - at, ";%s", unversioned(x->f[j].sym));
		size_t k = 0;
		while (k < nk && strcmp(keys[k], buf) != 0)
			k++;
		ck_assert_msg(k < nk, "perf script stack not in ours: %s", buf);
		want[k] += x->period;
	}
	for (size_t k = 0; k < nk; k++) {
		ck_assert_msg(got[k] == want[k], "%s: ours %" PRIu64 ", perf script %" PRIu64,
			      keys[k], got[k], want[k]);
		free(keys[k]);
	}
	free_script(&s);
	free(keys);
	free(got);
	free(want);
	free(buf);
	pd_profile_free(p);
}
END_TEST

/* Inline frames (default symbolization): own nodes, flagged, the leaf. */
START_TEST(test_inline_frames)
{
	NEED_LAB();
	if (!L.inl_ok)
		PD_SKIP("cannot build or record tests/workloads/inline.c");
	pd_profile *with = profile_of(L.inl, 0, 0);
	pd_profile *without = profile_of(L.inl, 0, PD_SESSION_NO_INLINE);
	size_t ev = (size_t)pd_profile_default_event(with);
	size_t ev2 = (size_t)pd_profile_default_event(without);
	ck_assert_uint_eq(pd_profile_total(with, ev, SIZE_MAX),
			  pd_profile_total(without, ev2, SIZE_MAX));
	const pd_flat_entry *fl;
	size_t n;
	pd_error err;
	ck_assert_int_eq(pd_profile_flat(with, ev, &fl, &n, &err), 0);
	const pd_flat_entry *inl = NULL;
	for (size_t i = 0; i < n && !inl; i++)
		if (fl[i].inlined && strcmp(fl[i].symbol, "hot_inline") == 0)
			inl = &fl[i];
	ck_assert_msg(inl != NULL, "no inline entry for hot_inline");
	ck_assert_uint_gt(inl->self, 0);
	const pd_flat_entry *outer = find_entry(with, ev, "inline", "outer_fn", NULL);
	const pd_flat_entry *outer2 = find_entry(without, ev2, "inline", "outer_fn", NULL);
	ck_assert(outer && outer2);
	/* without inline frames the inlined code's self is the caller's */
	ck_assert_uint_eq(outer2->self, outer->self + inl->self);
	ck_assert_uint_eq(outer2->children, outer->children);
	ck_assert_uint_ge(outer->children, inl->children);
	/* in the tree, hot_inline (inlined) hangs under outer_fn */
	const pd_stack *st;
	ck_assert_int_eq(pd_profile_stacks(with, ev, &st, &n, &err), 0);
	bool seen = false;
	for (size_t i = 0; i < n; i++) {
		const pd_cct_node *leaf = st[i].leaf;
		if (!pd_cct_inlined(leaf) || strcmp(pd_cct_symbol(leaf), "hot_inline") != 0)
			continue;
		const pd_cct_node *par = pd_cct_parent(leaf);
		ck_assert_str_eq(pd_cct_symbol(par), "outer_fn");
		ck_assert(!pd_cct_inlined(par));
		seen = true;
	}
	ck_assert(seen);
	pd_profile_free(with);
	pd_profile_free(without);
}
END_TEST


/* The producer on its own thread and in turn on the caller's deliver the
 * same records. */
typedef struct recs {
	uint8_t *bytes;
	size_t len;
} recs;

static size_t collect_defer(const char *path, unsigned flags, bool thread, size_t hold_max,
			    recs *out, pd_session **keep);

static void collect(const char *path, unsigned flags, bool thread, recs *out,
		    pd_session **keep)
{
	collect_defer(path, flags, thread, 0, out, keep);
}

/* Returns the number of samples held for their kernel frames' names
 * (`hold_max` bytes of them at most; 0: none). */
static size_t collect_defer(const char *path, unsigned flags, bool thread, size_t hold_max,
			    recs *out, pd_session **keep)
{
	pd_profile_options o;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	o.flags = flags;
	static const uint32_t cpus[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	o.cpus = cpus;
	o.ncpus = 8;
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	pd_session *s;
	ck_assert_int_eq(pd_session_open(&s, path, NULL, &err), 0);
	pd_pipeline *pl;
	/* the producer's slot is taken first, as pd_profile_add_file() does */
	ck_assert(!thread || pd_threads_take(pd_profile_threads(p)));
	ck_assert_int_eq(pd_pipeline_start(&pl, s, p, thread, hold_max), 0);
	memset(out, 0, sizeof *out);
	const uint8_t *data;
	size_t len;
	int rc;
	while ((rc = pd_pipeline_next(pl, &data, &len, &err)) > 0) {
		out->bytes = realloc(out->bytes, out->len + len);
		ck_assert_ptr_nonnull(out->bytes);
		memcpy(out->bytes + out->len, data, len);
		out->len += len;
	}
	ck_assert_int_eq(rc, 0);
	size_t held = pd_pipeline_held(pl);
	pd_pipeline_free(pl);
	pd_profile_free(p);
	*keep = s; /* the records point at its names */
	return held;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Two runs of the producer gave the same records: returns how many, and
 * adds their frames to *frames. */
static size_t same_records(const recs *a, const recs *b, unsigned flags, size_t *frames)
{
	size_t n = 0;
	size_t oa = 0, ob = 0;
	while (oa < a->len && ob < b->len) {
		const pd_srec *x = (const pd_srec *)(a->bytes + oa);
		const pd_srec *y = (const pd_srec *)(b->bytes + ob);
		ck_assert_int_eq(x->attr_index, y->attr_index);
		ck_assert_uint_eq(x->tid, y->tid);
		ck_assert_uint_eq(x->period, y->period);
		ck_assert_msg(x->nframes == y->nframes, "record %zu: %u frames, %u", n, x->nframes,
			      y->nframes);
		ck_assert_int_eq(x->leaf_unresolved, y->leaf_unresolved);
		ck_assert_int_eq(x->hidden, y->hidden);
		ck_assert_str_eq(x->comm, y->comm);
		for (uint32_t i = 0; i < x->nframes; i++) {
			const pd_fkey *fx = &pd_srec_frames(x)[i], *fy = &pd_srec_frames(y)[i];
			ck_assert_msg(same_str(fx->sym, fy->sym) && same_str(fx->dso, fy->dso),
				      "record %zu frame %u: %s %s, %s %s", n, i,
				      fx->sym ? fx->sym : "-", fx->dso, fy->sym ? fy->sym : "-",
				      fy->dso);
			/* a named frame's source file, else its address */
			if (fx->sym)
				ck_assert(same_str(fx->unit, fy->unit));
			else
				ck_assert_uint_eq(fx->addr, fy->addr);
			ck_assert_uint_eq(fx->flags, fy->flags);
			/* -U: no unnamed frame is kept */
			ck_assert(!(flags & PD_PROFILE_HIDE_UNRESOLVED) || fx->sym);
		}
		*frames += x->nframes;
		oa += pd_srec_size(x->nframes);
		ob += pd_srec_size(y->nframes);
		n++;
	}
	ck_assert_uint_eq(oa, a->len);
	ck_assert_uint_eq(ob, b->len);
	return n;
}

/* Kernel frames named once the table is there (the producer held the
 * samples meanwhile) are the frames named right away, in the same order,
 * with -U too, and the session's unresolved counts agree.  Held to the
 * end (the table comes after this small file is read), and held a few
 * KB at a time: then the producer waits for the table in mid-file and
 * goes on with the samples after the held ones. */
START_TEST(test_pipeline_defer_kernel)
{
	NEED_LAB();
	if (!L.sys_ok)
		PD_SKIP("perf record -a failed (needs privileges)");
	static const size_t caps[] = { PD_PIPELINE_HOLD_MAX, 16 << 10 };
	for (unsigned flags = 0; flags <= PD_PROFILE_HIDE_UNRESOLVED; flags += PD_PROFILE_HIDE_UNRESOLVED)
		for (size_t ci = 0; ci < 2; ci++) {
			recs a, b;
			pd_session *sa = NULL, *sb;
			/* the table takes tens of ms to read: the first kernel frames
			 * come long before, unless the machine stalls the session's
			 * thread that long (two busy CPUs did, five times running) */
			size_t held = 0;
			for (int tries = 0; tries < 20 && held == 0; tries++) {
				if (tries) {
					free(a.bytes);
					pd_session_free(sa);
				}
				held = collect_defer(L.sys, flags, true, caps[ci], &a, &sa);
			}
			ck_assert_uint_gt(held, 0);
			collect_defer(L.sys, flags, true, 0, &b, &sb);
			size_t frames = 0, n = same_records(&a, &b, flags, &frames);
			fprintf(stderr, "defer (flags %u, hold at most %zu bytes): %zu of %zu samples held, same records\n",
				flags, caps[ci], held, n);
			ck_assert_uint_le(held, n);
			ck_assert_uint_gt(n, 100);
			const pd_unresolved_count *ua, *ub;
			size_t na = pd_session_unresolved(sa, &ua), nb = pd_session_unresolved(sb, &ub);
			pd_test_assert_same_counts(ua, na, ub, nb);
			/* without a thread too */
			recs c;
			pd_session *sc;
			collect_defer(L.sys, flags, false, caps[ci], &c, &sc);
			frames = 0;
			ck_assert_uint_eq(same_records(&c, &b, flags, &frames), n);
			free(a.bytes);
			free(b.bytes);
			free(c.bytes);
			pd_session_free(sa);
			pd_session_free(sb);
			pd_session_free(sc);
		}
}
END_TEST

START_TEST(test_pipeline_threads)
{
	NEED_LAB();
	for (unsigned flags = 0; flags <= PD_PROFILE_HIDE_UNRESOLVED; flags += PD_PROFILE_HIDE_UNRESOLVED) {
		recs a, b;
		pd_session *sa, *sb;
		collect(L.fp, flags, true, &a, &sa);
		collect(L.fp, flags, false, &b, &sb);
		size_t frames = 0, n = same_records(&a, &b, flags, &frames);
		ck_assert_uint_gt(n, 100);
		ck_assert_uint_gt(frames, n);
		free(a.bytes);
		free(b.bytes);
		pd_session_free(sa);
		pd_session_free(sb);
	}
}
END_TEST


static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *unit = tcase_create("unit");
	tcase_add_test(unit, test_canonical);
	tcase_add_test(unit, test_options_errors);
	suite_add_tcase(s, unit);
	TCase *lab = tcase_create("recorded");
	tcase_add_unchecked_fixture(lab, lab_setup, lab_teardown);
	tcase_set_timeout(lab, 600);
	tcase_add_test(lab, test_fp_matches_perf);
	tcase_add_test(lab, test_hide_unresolved_matches_perf);
	tcase_add_test(lab, test_system_wide_matches_perf);
	tcase_add_test(lab, test_two_events);
	tcase_add_test(lab, test_recursion_counts_once);
	tcase_add_test(lab, test_clone_suffixes_merge);
	tcase_add_test(lab, test_filters);
	tcase_add_test(lab, test_runs);
	tcase_add_test(lab, test_run_span);
	tcase_add_test(lab, test_event_order);
	tcase_add_test(lab, test_tree_calltrace);
	tcase_add_test(lab, test_chains_match_perf);
	tcase_add_test(lab, test_stacks);
	tcase_add_test(lab, test_inline_frames);
	tcase_add_test(lab, test_pipeline_threads);
	tcase_add_test(lab, test_pipeline_defer_kernel);
	suite_add_tcase(s, lab);
	return s;
}

int main(void)
{
	return pd_test_main(profile_suite());
}
