/*
 * `perfdiff script` end to end: workloads compiled here (tests/workloads),
 * recorded with perf, symbolized by the CLI and checked against
 * independent oracles:
 *
 *   - `perf script` (perf 6.1) for every sample: leaf and caller symbols,
 *     offsets and dsos must be equal with --perf-compat (samples matched by
 *     tid + time), and the text layout must be perf's;
 *   - `eu-addr2line -f -i` for the inline chains of leaf addresses;
 *   - `nm` for the noreturn layout: the return address of caller_a's call to
 *     a noreturn function is the first byte of callee_b, so perf names that
 *     frame callee_b and we (looking up address - 1) name it caller_a;
 *   - a system-wide recording for kernel frames;
 *   - a deleted binary: [unknown] frames, a warning, exit status 1.
 *
 * Every perf-based test skips (with a message) where perf, cc or
 * eu-addr2line are missing.  The recordings are made once per run in an
 * unchecked fixture and shared by the tests.
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

/* ------------------------------------------------------------ samples */

typedef struct tframe {
	uint64_t addr;
	char *sym;          /* NULL: unknown */
	uint64_t off;
	char *dso;
	bool inlined;
	char *srcfile;      /* NULL: none */
	unsigned line;
} tframe;

typedef struct tsample {
	uint32_t pid, tid, cpu;
	uint64_t time;
	char *comm;
	size_t n;
	tframe *f;
} tsample;

typedef struct tsamples {
	size_t n, cap;
	tsample *v;
} tsamples;

static char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	ck_assert_ptr_nonnull(d);
	return d;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);
	ck_assert_ptr_nonnull(d);
	return d;
}

static tsample *new_sample(tsamples *ss)
{
	if (ss->n == ss->cap) {
		ss->cap = ss->cap ? ss->cap * 2 : 256;
		ss->v = realloc(ss->v, ss->cap * sizeof *ss->v);
		ck_assert_ptr_nonnull(ss->v);
	}
	tsample *s = &ss->v[ss->n++];
	memset(s, 0, sizeof *s);
	return s;
}

static tframe *new_frame(tsample *s)
{
	s->f = realloc(s->f, (s->n + 1) * sizeof *s->f);
	ck_assert_ptr_nonnull(s->f);
	tframe *f = &s->f[s->n++];
	memset(f, 0, sizeof *f);
	return f;
}

static void free_samples(tsamples *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		tsample *s = &ss->v[i];
		for (size_t j = 0; j < s->n; j++) {
			free(s->f[j].sym);
			free(s->f[j].dso);
			free(s->f[j].srcfile);
		}
		free(s->f);
		free(s->comm);
	}
	free(ss->v);
	memset(ss, 0, sizeof *ss);
}

static int cmp_key(const tsample *a, const tsample *b)
{
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	return cmp_key(a, b);
}

/* ------------------------------------------------------------ running */

typedef struct lab {
	const char *skip;       /* why the perf tests skip, or NULL */
	char *dir;
	bool have_eu;
	char inl_bin[PATHMAX], nor_bin[PATHMAX];
	char inl_data[PATHMAX], nor_data[PATHMAX], nocg_data[PATHMAX];
	char sys_data[PATHMAX];
	bool sys_ok;
} lab;

/* Set up once (unchecked fixture, in the runner process) and read by the
 * forked tests. */
static lab L;

static char *run(const char *cmd, int *status)
{
	char *out = pd_test_run(cmd, status);
	ck_assert_msg(out != NULL, "cannot run: %s", cmd);
	return out;
}

/* `perfdiff ARGS`, stderr captured in the lab (see pd_test_cli). */
static char *perfdiff(const char *args, int *status, char **err)
{
	return pd_test_cli(L.dir, args, status, err);
}

static bool compile(const char *src, const char *out, const char *flags)
{
	char f[PATHMAX], path[PATHMAX];
	snprintf(f, sizeof f, "-O2 -g -fno-omit-frame-pointer %s", flags);
	snprintf(path, sizeof path, "%s/%s", WORKLOAD_DIR, src);
	return pd_test_compile("cc", f, out, path);
}

static bool record(const char *data, const char *extra, const char *workload)
{
	char args[PATHMAX];
	snprintf(args, sizeof args, "-N -e cpu-clock %s", extra);
	return pd_test_perf_record(data, args, workload);
}

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(true, &L.dir);
	if (L.skip)
		return;
	L.have_eu = pd_test_sh_ok("eu-addr2line --version >/dev/null 2>&1");
	snprintf(L.inl_bin, PATHMAX, "%s/inline", L.dir);
	snprintf(L.nor_bin, PATHMAX, "%s/noreturn", L.dir);
	/* -no-pie: sampled addresses are ELF addresses, as eu-addr2line and
	 * nm print them.  The noreturn layout needs functions unaligned and
	 * in source order. */
	if (!compile("inline.c", L.inl_bin, "-no-pie") ||
	    !compile("noreturn.c", L.nor_bin,
		     "-no-pie -falign-functions=1 -fno-reorder-functions "
		     "-fno-toplevel-reorder")) {
		L.skip = "cannot compile the workloads";
		return;
	}
	snprintf(L.inl_data, PATHMAX, "%s/inline.data", L.dir);
	snprintf(L.nor_data, PATHMAX, "%s/noreturn.data", L.dir);
	snprintf(L.nocg_data, PATHMAX, "%s/nocg.data", L.dir);
	snprintf(L.sys_data, PATHMAX, "%s/sys.data", L.dir);
	char w[2 * PATHMAX];
	snprintf(w, sizeof w, "'%s' 300", L.inl_bin);
	bool ok = record(L.inl_data, "-g", w);
	snprintf(w, sizeof w, "'%s' 300", L.nor_bin);
	ok = ok && record(L.nor_data, "-g", w);
	snprintf(w, sizeof w, "'%s' 100", L.inl_bin);
	ok = ok && record(L.nocg_data, "", w);
	if (!ok) {
		L.skip = "perf record failed";
		return;
	}
	/* system-wide needs privileges; the tests that use it skip without */
	/* a workload of system calls: kernel frames whatever else the
	 * machine is doing (an idle one gives too few to compare) */
	L.sys_ok = record(L.sys_data, "-a -g", "dd if=/dev/zero of=/dev/null bs=4k count=150000");
}

static void lab_teardown(void)
{
	pd_test_lab_close(L.dir);
	memset(&L, 0, sizeof L);
}

#define NEED_LAB() PD_SKIP_IF(L.skip)

/* ------------------------------------------------- our JSON lines */

static const char *jstr(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static uint64_t juint(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	ck_assert_msg(json_is_integer(v), "'%s' is not an integer", k);
	return (uint64_t)json_integer_value(v);
}

static void parse_ours(const char *text, tsamples *out)
{
	memset(out, 0, sizeof *out);
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		json_error_t jerr;
		json_t *o = json_loadb(p, len, 0, &jerr);
		ck_assert_msg(o != NULL, "bad JSON line (%s): %.*s", jerr.text,
			      (int)(len > 300 ? 300 : len), p);
		tsample *s = new_sample(out);
		s->comm = xstrdup(jstr(o, "comm"));
		s->pid = (uint32_t)juint(o, "pid");
		s->tid = (uint32_t)juint(o, "tid");
		json_t *cpu = json_object_get(o, "cpu");
		s->cpu = json_is_integer(cpu) ? (uint32_t)json_integer_value(cpu) : 0;
		s->time = juint(o, "time");
		json_t *frames = json_object_get(o, "frames");
		ck_assert(json_is_array(frames));
		size_t i;
		json_t *fo;
		json_array_foreach(frames, i, fo) {
			tframe *f = new_frame(s);
			const char *a = jstr(fo, "addr");
			ck_assert_msg(a && strncmp(a, "0x", 2) == 0, "addr not hex");
			f->addr = strtoull(a + 2, NULL, 16);
			f->sym = xstrdup(jstr(fo, "symbol"));
			if (f->sym)
				f->off = juint(fo, "offset");
			else
				ck_assert(json_is_null(json_object_get(fo, "offset")));
			f->dso = xstrdup(jstr(fo, "dso"));
			ck_assert_ptr_nonnull(f->dso);
			f->inlined = json_is_true(json_object_get(fo, "inlined"));
			f->srcfile = xstrdup(jstr(fo, "srcfile"));
			json_t *line = json_object_get(fo, "line");
			f->line = json_is_integer(line) ? (unsigned)json_integer_value(line) : 0;
		}
		json_decref(o);
		p += len + (nl ? 1 : 0);
	}
}

/* perfdiff script --format=json OPTS FILE, parsed; status and stderr
 * optional. */
static void ours(const char *opts, const char *data, tsamples *out,
		 int *status_out, char **err_out)
{
	char args[2 * PATHMAX];
	snprintf(args, sizeof args, "script --format=json %s '%s'", opts, data);
	int st;
	char *err = NULL;
	char *text = perfdiff(args, &st, &err);
	if (status_out)
		*status_out = st;
	else
		ck_assert_msg(st == 0 || st == 1, "perfdiff %s: status %d: %s",
			      args, st, err);
	parse_ours(text, out);
	free(text);
	if (err_out)
		*err_out = err;
	else
		free(err);
}

/* ------------------------------------------------ perf script output */

/*
 * Parse `perf script --ns -F comm,tid,[cpu,]time,ip,sym,symoff,dso`:
 *
 *   COMM TID [CPU] SECS.NSECS: 
 *   \t    ADDR SYM+0xOFF (DSO)     (or "[unknown] (DSO)")
 *
 * The command may contain spaces, so the header is read from the right.
 */
static void parse_perf_header(const char *line, size_t len, tsample *s)
{
	char *h = xstrndup(line, len);
	size_t n = strlen(h);
	while (n && (h[n - 1] == ' ' || h[n - 1] == ':'))
		h[--n] = '\0';
	char *sp = strrchr(h, ' ');
	ck_assert_msg(sp, "bad perf header: %s", h);
	unsigned long long secs, nsecs;
	ck_assert_msg(sscanf(sp + 1, "%llu.%llu", &secs, &nsecs) == 2,
		      "bad time in: %s", h);
	s->time = secs * 1000000000ull + nsecs;
	*sp = '\0';
	while (sp > h && sp[-1] == ' ')
		*--sp = '\0';
	sp = strrchr(h, ' ');
	ck_assert_msg(sp, "bad perf header: %s", line);
	if (sp[1] == '[') {
		s->cpu = (uint32_t)strtoul(sp + 2, NULL, 10);
		*sp = '\0';
		while (sp > h && sp[-1] == ' ')
			*--sp = '\0';
		sp = strrchr(h, ' ');
		ck_assert_msg(sp, "bad perf header: %s", line);
	}
	s->tid = (uint32_t)strtoul(sp + 1, NULL, 10);
	*sp = '\0';
	while (sp > h && sp[-1] == ' ')
		*--sp = '\0';
	s->comm = xstrdup(h);
	free(h);
}

static void parse_perf_frame(const char *line, size_t len, tsample *s)
{
	char *l = xstrndup(line, len);
	tframe *f = new_frame(s);
	char *p = l;
	while (*p == '\t' || *p == ' ')
		p++;
	char *end;
	f->addr = strtoull(p, &end, 16);
	p = end;
	while (*p == ' ')
		p++;
	char *dso = strrchr(p, '(');
	size_t n = strlen(p);
	ck_assert_msg(dso && n && p[n - 1] == ')', "bad perf frame: %s", l);
	p[n - 1] = '\0';
	f->dso = xstrdup(dso + 1);
	if (dso > p)
		dso[-1] = '\0';
	if (strcmp(p, "[unknown]") != 0) {
		char *plus = strrchr(p, '+');
		if (plus && strncmp(plus, "+0x", 3) == 0) {
			f->off = strtoull(plus + 3, NULL, 16);
			*plus = '\0';
		}
		f->sym = xstrdup(p);
	}
	free(l);
}

static void parse_perf(const char *text, tsamples *out)
{
	memset(out, 0, sizeof *out);
	tsample *cur = NULL;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len == 0)
			cur = NULL;
		else if (p[0] == '\t') {
			ck_assert_msg(cur != NULL, "frame line outside a sample");
			parse_perf_frame(p, len, cur);
		} else {
			cur = new_sample(out);
			parse_perf_header(p, len, cur);
		}
		p += len + (nl ? 1 : 0);
	}
}

static void perf_script(const char *data, const char *fields, tsamples *out)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf script --ns -F %s -i '%s' 2>/dev/null", fields, data);
	int st;
	char *text = run(cmd, &st);
	ck_assert_msg(st == 0, "perf script failed on %s", data);
	parse_perf(text, out);
	free(text);
}

/* -------------------------------------------------------- comparing */

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

typedef struct match_stats {
	size_t samples, samples_matched, samples_missing;
	size_t frames, frames_matched;
	size_t kernel_frames, kernel_matched;
	size_t vdso_explained, pfx_explained, plt_explained;
	size_t perf_prefix;    /* all perf's frames equal, but ours go on */
	size_t prefix_whole;   /* of those, ours reach _start: a whole stack */
	size_t shown;
} match_stats;

/* [kernel.kallsyms] and modules ("[nf_tables]"); not the user-space
 * pseudo files. */
static bool is_kernel_dso(const char *dso)
{
	static const char *const user[] = { "[unknown]", "[vdso]", "[vsyscall]",
					    "[stack]", "[heap]", "[uprobes]" };
	if (!dso || dso[0] != '[')
		return false;
	for (size_t i = 0; i < sizeof user / sizeof *user; i++)
		if (strcmp(dso, user[i]) == 0)
			return false;
	return strncmp(dso, "[anon", 5) != 0;
}

static void show_frame(const char *who, const tframe *f)
{
	fprintf(stderr, "      %-5s %16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", who,
		f->addr, f->sym ? f->sym : "[unknown]", f->off,
		f->dso ? f->dso : "?");
}

/*
 * The vdso's symbols, from this process's own [vdso] (the running kernel's
 * image, the one the recordings were made with) through `nm -D -S`.
 */
typedef struct vdso_sym {
	uint64_t start, size;
	char name[128];
} vdso_sym;

static vdso_sym vdso_syms[64];
static size_t n_vdso_syms;
static bool vdso_loaded;

static void load_vdso_syms(void)
{
	if (vdso_loaded)
		return;
	vdso_loaded = true;
	FILE *m = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(m);
	char line[512];
	unsigned long long lo = 0, hi = 0;
	while (fgets(line, sizeof line, m))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2)
			break;
	fclose(m);
	if (hi <= lo)
		return;
	char path[PATHMAX], cmd[2 * PATHMAX];
	snprintf(path, sizeof path, "%s/vdso.%d.so", L.dir, (int)getpid());
	ck_assert(pd_test_write_file(path, (const void *)(uintptr_t)lo, hi - lo));
	snprintf(cmd, sizeof cmd, "nm -D -S '%s' 2>/dev/null", path);
	int st;
	char *out = run(cmd, &st);
	for (char *p = out; *p && n_vdso_syms < 64;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		unsigned long long a, z;
		char type, name[256];
		if (sscanf(p, "%llx %llx %c %255s", &a, &z, &type, name) == 4) {
			vdso_sym *v = &vdso_syms[n_vdso_syms++];
			v->start = a;
			v->size = z;
			name[strcspn(name, "@")] = '\0';
			snprintf(v->name, sizeof v->name, "%.127s", name);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(out);
	unlink(path);
}

/*
 * perf records with -N keep no copy of the vdso, so perf script prints
 * [unknown] there; we name it from the running kernel's vdso.  Explained
 * when perf's address (the offset in the vdso, which is what perf prints
 * for mapped user addresses) falls in a vdso symbol of our name at our
 * offset.
 */
static bool vdso_explained(const tframe *x, const tframe *y)
{
	if (!x || !x->sym || y->sym || !str_eq(x->dso, "[vdso]") ||
	    !str_eq(y->dso, "[vdso]"))
		return false;
	load_vdso_syms();
	for (size_t i = 0; i < n_vdso_syms; i++) {
		const vdso_sym *v = &vdso_syms[i];
		if (y->addr >= v->start && y->addr < v->start + v->size &&
		    strcmp(v->name, x->sym) == 0 && x->off == y->addr - v->start)
			return true;
	}
	return false;
}

/*
 * Kernels with CONFIG_CALL_PADDING (6.2+) put a 16-byte __pfx_<fn> symbol
 * before each function.  A return address right after a call to a noreturn
 * function (x86_64_start_reservations -> start_kernel) is the start of the
 * next __pfx_ symbol: perf 6.1 names it "__pfx_clear_bss+0x0"; libperfdiff
 * names padding only with --perf-compat, so without it the same address is
 * the end of the calling function.
 */
static bool pfx_explained(const tframe *x, const tframe *y)
{
	return x && x->sym && y->sym && x->addr == y->addr &&
	       strncmp(y->sym, "__pfx_", 6) == 0 && y->off == 0 &&
	       strncmp(x->sym, "__pfx_", 6) != 0 && x->off > 0 &&
	       str_eq(x->dso, y->dso);
}

/*
 * PLT stubs whose relocation perf 6.1 cannot name (IRELATIVE slots, and
 * libc's own .plt.sec entries) print as a bare "@plt"; libperfdiff names
 * them after the slot's target, as objdump does ("memcpy@plt").  Explained
 * when perf's frame is exactly "@plt" at the same offset and dso, or
 * "_init" stretched over the stub (below).
 */
static bool plt_explained(const tframe *x, const tframe *y)
{
	if (!x || !x->sym || !y->sym)
		return false;
	size_t n = strlen(x->sym);
	if (n <= 4 || strcmp(x->sym + n - 4, "@plt") != 0 || !str_eq(x->dso, y->dso))
		return false;
	if (strcmp(y->sym, "@plt") == 0)
		return x->off == y->off;
	/* when perf 6.1 synthesizes no PLT symbols for a dso (its .plt has
	 * no .rela.plt it understands), a stub's address falls past `_init`
	 * in .init, the section before .plt, and perf stretches `_init` over
	 * it: "_init+0x50" where we say "clock_gettime@plt+0x0" */
	return strcmp(y->sym, "_init") == 0 && y->off > x->off;
}

/*
 * Compare every sample of `a` (ours, inline frames left out) with the
 * sample of `b` (perf) with the same tid and time.  Frames are equal when
 * symbol, offset (for a known symbol) and dso are.  With `kernel_only`,
 * only frames perf puts in a kernel dso count.  The two explained kinds of
 * difference above are counted apart; anything else is shown.
 */
static void compare(const tsamples *a, tsamples *b, bool kernel_only,
		    match_stats *ms)
{
	memset(ms, 0, sizeof *ms);
	qsort(b->v, b->n, sizeof *b->v, cmp_sample);
	for (size_t i = 0; i < a->n; i++) {
		const tsample *s = &a->v[i];
		ms->samples++;
		const tsample *t = bsearch(s, b->v, b->n, sizeof *b->v, cmp_sample);
		if (!t) {
			ms->samples_missing++;
			if (ms->shown++ < 10)
				fprintf(stderr, "    no perf sample for tid %" PRIu32
					" time %" PRIu64 "\n", s->tid, s->time);
			continue;
		}
		size_t j = 0, k = 0;
		bool all = true;
		for (; k < t->n; k++) {
			while (j < s->n && s->f[j].inlined)
				j++;
			const tframe *x = j < s->n ? &s->f[j] : NULL;
			const tframe *y = &t->f[k];
			bool kern = is_kernel_dso(y->dso);
			/* perf prints user addresses of call chains relative to
			 * their mapping: addresses are compared in the kernel */
			bool eq = x && (!kern || x->addr == y->addr) &&
				  str_eq(x->sym, y->sym) &&
				  (!x->sym || x->off == y->off) && str_eq(x->dso, y->dso);
			bool counted = !kernel_only || kern;
			if (!eq && counted && vdso_explained(x, y)) {
				ms->vdso_explained++;
				eq = true;
			} else if (!eq && counted && pfx_explained(x, y)) {
				ms->pfx_explained++;
				eq = true;
			} else if (!eq && counted && plt_explained(x, y)) {
				ms->plt_explained++;
				eq = true;
			}
			if (counted) {
				ms->frames++;
				ms->frames_matched += eq;
			}
			if (kern) {
				ms->kernel_frames++;
				ms->kernel_matched += eq;
			}
			if (!eq && counted) {
				all = false;
				if (ms->shown++ < 40) {
					fprintf(stderr, "    tid %" PRIu32 " time %" PRIu64
						" frame %zu differs:\n", s->tid, s->time, k);
					if (x)
						show_frame("ours", x);
					show_frame("perf", y);
				}
			}
			if (x)
				j++;
		}
		while (j < s->n && s->f[j].inlined)
			j++;
		if (j < s->n && !kernel_only) {
			ms->perf_prefix += all;
			ms->prefix_whole += all && s->f[s->n - 1].sym &&
					    strcmp(s->f[s->n - 1].sym, "_start") == 0;
			all = false;
			if (ms->shown++ < 40)
				fprintf(stderr, "    tid %" PRIu32 " time %" PRIu64
					": %zu frames, perf %zu\n", s->tid, s->time,
					s->n, t->n);
		}
		ms->samples_matched += all;
	}
}

static double pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

/* ------------------------------------------------------------- tests */

START_TEST(test_usage)
{
	int st;
	char *err;
	char *out = perfdiff("script --help", &st, &err);
	ck_assert_int_eq(st, 0);
	const char *opts[] = { "--format", "--srcline", "--no-inline", "--perf-compat",
			       "--symfs", "--kallsyms", "--buildid-dir", "--max-stack",
			       "--unwinder", "--no-demangle", "--comm", "--pid", "--tid", "--cpu",
			       "EXIT STATUS", "[unknown]" };
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
		ck_assert_msg(strstr(out, opts[i]), "--help does not mention %s", opts[i]);
	free(out);
	free(err);

	out = perfdiff("help script", &st, NULL);
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "perfdiff script"));
	free(out);
	out = perfdiff("--help", &st, NULL);
	ck_assert_ptr_nonnull(strstr(out, "script"));
	free(out);

	const char *bad[] = { "script", "script --bogus x.data", "script a b",
			      "script --pid=1,,2 x.data", "script --cpu=x x.data",
			      "script --max-stack=0 x.data", "script --format=xml x.data",
			      "script --comm", "script --unwinder=libgcc x.data",
			      "script /nonexistent/perf.data" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		out = perfdiff(bad[i], &st, &err);
		ck_assert_msg(st == 2, "'%s' gave status %d", bad[i], st);
		ck_assert_msg(strncmp(err, "perfdiff: ", 10) == 0,
			      "'%s': stderr '%s'", bad[i], err);
		ck_assert_str_eq(out, "");
		free(out);
		free(err);
	}
}
END_TEST

/* Standard input ("-", pipe mode) gives what the same file gives. */
START_TEST(test_stdin)
{
	char data[PATHMAX], args[2 * PATHMAX];
	pd_test_data(data, sizeof data, "pipe.data");
	int st1, st2;
	snprintf(args, sizeof args, "script --format=json '%s'", data);
	char *a = perfdiff(args, &st1, NULL);
	snprintf(args, sizeof args, "script --format=json - < '%s'", data);
	char *b = perfdiff(args, &st2, NULL);
	ck_assert_int_le(st1, 1);
	ck_assert_int_eq(st1, st2);
	ck_assert_uint_gt(strlen(a), 100);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
}
END_TEST

/* Every sample of both workloads, every frame: the names perf gives. */
static void check_vs_perf(const char *data, const char *what)
{
	tsamples a, b;
	ours("--perf-compat --no-inline", data, &a, NULL, NULL);
	perf_script(data, "comm,tid,time,ip,sym,symoff,dso", &b);
	ck_assert_uint_gt(a.n, 100);
	ck_assert_uint_eq(a.n, b.n);
	match_stats ms;
	compare(&a, &b, false, &ms);
	fprintf(stderr,
		"%s vs perf script: %zu/%zu samples equal (%.2f%%), "
		"%zu/%zu frames (%.2f%%), kernel frames %zu/%zu; of the equal "
		"frames, explained differences: %zu vdso frames perf cannot name "
		"(-N), %zu __pfx_ names, %zu PLT stubs perf names \"@plt\"\n",
		what, ms.samples_matched, ms.samples,
		pct(ms.samples_matched, ms.samples), ms.frames_matched, ms.frames,
		pct(ms.frames_matched, ms.frames), ms.kernel_matched,
		ms.kernel_frames, ms.vdso_explained, ms.pfx_explained, ms.plt_explained);
	ck_assert_uint_eq(ms.samples_missing, 0);
	ck_assert_uint_eq(ms.frames_matched, ms.frames);
	ck_assert_uint_eq(ms.samples_matched, ms.samples);
	free_samples(&a);
	free_samples(&b);
}

START_TEST(test_workloads_vs_perf)
{
	NEED_LAB();
	check_vs_perf(L.inl_data, "inline workload");
	check_vs_perf(L.nor_data, "noreturn workload");
}
END_TEST

/*
 * The text layout is perf's: header lines equal `perf script -F +pid`'s,
 * kernel and unmapped frame lines equal, user frame lines equal after the
 * address (perf prints mapping offsets there).  Without call chains the
 * whole line is perf's (perf prints the recorded address then).
 */
static void split_lines(char *text, char ***lines, size_t *n)
{
	size_t cap = 1024;
	*lines = malloc(cap * sizeof **lines);
	ck_assert_ptr_nonnull(*lines);
	*n = 0;
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (*n == cap) {
			cap *= 2;
			*lines = realloc(*lines, cap * sizeof **lines);
			ck_assert_ptr_nonnull(*lines);
		}
		(*lines)[(*n)++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
}

static const char *after_addr(const char *l)
{
	while (*l == '\t' || *l == ' ')
		l++;
	while (*l && *l != ' ')
		l++;
	return l;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* A line where perf has "[unknown] ([vdso])" and we have a name: the rest
 * of the line (header part, or the address of a call chain line aside)
 * must be equal. */
static bool vdso_line(const char *ours, const char *perf)
{
	static const char unk[] = " [unknown] ([vdso])";
	if (!ends_with(perf, unk) || !ends_with(ours, " ([vdso])") ||
	    !strstr(ours, "+0x"))
		return false;
	if (ours[0] == '\t')
		return true;
	return strncmp(ours, perf, strlen(perf) - strlen(unk)) == 0;
}

/* A call chain line where perf prints a PLT stub as a bare "@plt", or as
 * "_init" stretched over it, and we name it (see plt_explained): the rest
 * of the line (the offset for "@plt", the dso for "_init") must be equal. */
static bool plt_line(const char *ours, const char *perf)
{
	if (ours[0] != '\t' || perf[0] != '\t')
		return false;
	const char *a = after_addr(ours), *b = after_addr(perf);
	a += strspn(a, " ");
	b += strspn(b, " ");
	size_t na = strlen(a), nb = strlen(b);
	if (strncmp(b, "@plt+", 5) == 0)
		return na > nb && strcmp(a + na - nb, b) == 0;
	const char *da = strstr(a, "@plt+0x"), *pa = strchr(a, ' '), *pb = strchr(b, ' ');
	return strncmp(b, "_init+0x", 8) == 0 && da && pa && pb && da < pa &&
	       strcmp(pa, pb) == 0;
}

START_TEST(test_text_layout)
{
	NEED_LAB();
	const char *cases[][2] = { { L.nor_data, "-F +pid" },
				   { L.nocg_data, "-F +pid" } };
	for (size_t c = 0; c < 2; c++) {
		char args[2 * PATHMAX], cmd[2 * PATHMAX];
		snprintf(args, sizeof args, "script --perf-compat --no-inline '%s'",
			 cases[c][0]);
		int st;
		char *mine = perfdiff(args, &st, NULL);
		ck_assert_int_le(st, 1);
		snprintf(cmd, sizeof cmd, "perf script %s -i '%s' 2>/dev/null",
			 cases[c][1], cases[c][0]);
		char *theirs = run(cmd, &st);
		ck_assert_int_eq(st, 0);
		char **la, **lb;
		size_t na, nb;
		split_lines(mine, &la, &na);
		split_lines(theirs, &lb, &nb);
		ck_assert_uint_eq(na, nb);
		size_t exact = 0, tail = 0, headers = 0, vdso = 0, plt = 0;
		for (size_t i = 0; i < na; i++) {
			if (strcmp(la[i], lb[i]) == 0) {
				exact++;
				headers += la[i][0] != '\t' && la[i][0] != '\0';
				continue;
			}
			/* perf cannot name the vdso (see vdso_explained) */
			if (vdso_line(la[i], lb[i])) {
				vdso++;
				continue;
			}
			if (plt_line(la[i], lb[i])) {
				plt++;
				continue;
			}
			/* only user-space call chain lines may differ, and only
			 * in the address column */
			ck_assert_msg(c == 0 && la[i][0] == '\t',
				      "line %zu differs:\n  ours: %s\n  perf: %s", i,
				      la[i], lb[i]);
			ck_assert_msg(strcmp(after_addr(la[i]), after_addr(lb[i])) == 0,
				      "line %zu differs:\n  ours: %s\n  perf: %s", i,
				      la[i], lb[i]);
			ck_assert_msg(strstr(la[i], "[kernel.kallsyms]") == NULL,
				      "kernel line %zu differs:\n  ours: %s\n  perf: %s",
				      i, la[i], lb[i]);
			tail++;
		}
		fprintf(stderr, "text layout (%s): %zu lines, %zu identical "
			"(%zu headers), %zu equal after the address, %zu vdso "
			"frames perf cannot name, %zu PLT stubs perf names \"@plt\"\n",
			c == 0 ? "call chains" : "no call chains", na, exact,
			headers, tail, vdso, plt);
		ck_assert_uint_gt(headers, 100);
		free(la);
		free(lb);
		free(mine);
		free(theirs);
	}
}
END_TEST

/* eu-addr2line -a -f -i for a list of addresses, parsed per address. */
typedef struct a2l_level {
	char name[256];
	char file[PATHMAX];
	unsigned line;
} a2l_level;

typedef struct a2l_entry {
	uint64_t addr;
	size_t n;
	a2l_level lv[16];
} a2l_entry;

static size_t addr2line(const char *bin, const uint64_t *addrs, size_t n,
			a2l_entry *out)
{
	size_t cmdcap = 256 + PATHMAX + n * 24;
	char *cmd = malloc(cmdcap);
	ck_assert_ptr_nonnull(cmd);
	int len = snprintf(cmd, cmdcap, "eu-addr2line -a -f -i -e '%s'", bin);
	for (size_t i = 0; i < n; i++)
		len += snprintf(cmd + len, cmdcap - (size_t)len, " 0x%" PRIx64, addrs[i]);
	int st;
	char *text = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	free(cmd);
	size_t ne = 0;
	a2l_entry *cur = NULL;
	bool want_name = true;
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(p, "0x", 2) == 0 && strchr(p, ' ') == NULL) {
			ck_assert_uint_lt(ne, n);
			cur = &out[ne++];
			memset(cur, 0, sizeof *cur);
			cur->addr = strtoull(p + 2, NULL, 16);
			want_name = true;
		} else if (cur && want_name) {
			ck_assert_uint_lt(cur->n, 16);
			size_t l = strcspn(p, " ");
			snprintf(cur->lv[cur->n].name, sizeof cur->lv[0].name, "%.*s",
				 (int)l, p);
			want_name = false;
		} else if (cur) {
			/* FILE:LINE[:COL] */
			a2l_level *lv = &cur->lv[cur->n++];
			char *c1 = strrchr(p, ':');
			char *c2 = NULL;
			if (c1) {
				*c1 = '\0';
				c2 = strrchr(p, ':');
				if (c2) {
					lv->line = (unsigned)strtoul(c2 + 1, NULL, 10);
					*c2 = '\0';
				} else {
					lv->line = (unsigned)strtoul(c1 + 1, NULL, 10);
				}
			}
			snprintf(lv->file, sizeof lv->file, "%s", p);
			want_name = true;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(text);
	return ne;
}

START_TEST(test_inline_frames)
{
	NEED_LAB();
	if (!L.have_eu)
		PD_SKIP("eu-addr2line is not installed");
	tsamples a;
	ours("--srcline", L.inl_data, &a, NULL, NULL);
	/* distinct leaf addresses in the workload binary, with our chain */
	size_t cap = a.n, nu = 0, inl_samples = 0, bin_samples = 0;
	uint64_t *addrs = calloc(cap, sizeof *addrs);
	size_t *first = calloc(cap, sizeof *first);
	ck_assert(addrs && first);
	for (size_t i = 0; i < a.n; i++) {
		const tsample *s = &a.v[i];
		if (s->n == 0 || strcmp(s->f[0].dso, L.inl_bin) != 0)
			continue;
		bin_samples++;
		inl_samples += s->f[0].inlined;
		size_t k = 0;
		while (k < nu && addrs[k] != s->f[0].addr)
			k++;
		if (k == nu) {
			addrs[nu] = s->f[0].addr;
			first[nu++] = i;
		}
	}
	ck_assert_uint_gt(bin_samples, 100);
	/* most of the time is spent in hot_inline (inlined into outer_fn) */
	ck_assert_uint_gt(inl_samples, bin_samples / 4);
	a2l_entry *e = calloc(nu, sizeof *e);
	ck_assert_ptr_nonnull(e);
	size_t ne = addr2line(L.inl_bin, addrs, nu, e);
	ck_assert_uint_eq(ne, nu);
	size_t same = 0;
	for (size_t k = 0; k < nu; k++) {
		const tsample *s = &a.v[first[k]];
		ck_assert_uint_eq(e[k].addr, addrs[k]);
		/* our leaf group: inline frames, then the containing function */
		size_t g = 0;
		while (g < s->n && s->f[g].inlined)
			g++;
		ck_assert_uint_lt(g, s->n);
		g++;
		bool eq = g == e[k].n;
		for (size_t j = 0; eq && j < g; j++) {
			const tframe *f = &s->f[j];
			const a2l_level *lv = &e[k].lv[j];
			/* eu-addr2line's "??:0" is no line information, our NULL */
			bool nofile = !f->srcfile && strcmp(lv->file, "??") == 0 && lv->line == 0;
			eq = f->addr == addrs[k] && f->sym && strcmp(f->sym, lv->name) == 0 &&
			     (nofile || (f->srcfile && strcmp(f->srcfile, lv->file) == 0)) &&
			     f->line == lv->line && f->inlined == (j + 1 < g);
		}
		if (!eq) {
			fprintf(stderr, "    0x%" PRIx64 ": ours", addrs[k]);
			for (size_t j = 0; j < g; j++)
				fprintf(stderr, " %s%s %s:%u", s->f[j].sym ? s->f[j].sym : "?",
					s->f[j].inlined ? " (inlined)" : "",
					s->f[j].srcfile ? s->f[j].srcfile : "?", s->f[j].line);
			fprintf(stderr, "\n      eu-addr2line");
			for (size_t j = 0; j < e[k].n; j++)
				fprintf(stderr, " %s %s:%u", e[k].lv[j].name, e[k].lv[j].file,
					e[k].lv[j].line);
			fputc('\n', stderr);
		}
		same += eq;
	}
	fprintf(stderr, "inline chains vs eu-addr2line: %zu/%zu leaf addresses "
		"identical (%zu samples in the binary, %zu with an inline leaf)\n",
		same, nu, bin_samples, inl_samples);
	ck_assert_uint_eq(same, nu);
	free(e);
	free(addrs);
	free(first);
	size_t na = a.n;
	free_samples(&a);

	/* --no-inline: no inline frame anywhere, the same samples */
	tsamples b;
	ours("--no-inline", L.inl_data, &b, NULL, NULL);
	ck_assert_uint_eq(b.n, na);
	for (size_t i = 0; i < b.n; i++)
		for (size_t j = 0; j < b.v[i].n; j++)
			ck_assert(!b.v[i].f[j].inlined);
	free_samples(&b);

	/* text: the inline frame is "name+0xoff (inlined)", no dso */
	char args[2 * PATHMAX];
	snprintf(args, sizeof args, "script '%s'", L.inl_data);
	int st;
	char *text = perfdiff(args, &st, NULL);
	ck_assert_ptr_nonnull(strstr(text, " hot_inline+0x"));
	const char *p = strstr(text, " hot_inline+0x");
	const char *eol = strchr(p, '\n');
	ck_assert_ptr_nonnull(eol);
	ck_assert_msg(eol - p > 10 && strncmp(eol - 10, " (inlined)", 10) == 0,
		      "inline frame line: %.*s", (int)(eol - p), p);
	free(text);
}
END_TEST

/* nm: address and size of `sym` in `bin`. */
static bool nm_symbol(const char *bin, const char *sym, uint64_t *addr,
		      uint64_t *size)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "nm -S '%s'", bin);
	int st;
	char *out = run(cmd, &st);
	bool found = false;
	for (char *p = out; *p && !found;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		unsigned long long a, s;
		char type, name[256];
		if (sscanf(p, "%llx %llx %c %255s", &a, &s, &type, name) == 4 &&
		    strcmp(name, sym) == 0) {
			*addr = a;
			*size = s;
			found = true;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(out);
	return found;
}

START_TEST(test_noreturn_caller)
{
	NEED_LAB();
	uint64_t a_addr, a_size, b_addr, b_size;
	ck_assert(nm_symbol(L.nor_bin, "caller_a", &a_addr, &a_size));
	ck_assert(nm_symbol(L.nor_bin, "callee_b", &b_addr, &b_size));
	/* the layout this test is about */
	ck_assert_msg(a_addr + a_size == b_addr,
		      "callee_b (0x%" PRIx64 ") does not follow caller_a "
		      "(0x%" PRIx64 "+0x%" PRIx64 ")", b_addr, a_addr, a_size);

	tsamples dflt, compat, perf;
	ours("--no-inline", L.nor_data, &dflt, NULL, NULL);
	ours("--no-inline --perf-compat", L.nor_data, &compat, NULL, NULL);
	perf_script(L.nor_data, "comm,tid,time,ip,sym,symoff,dso", &perf);
	qsort(perf.v, perf.n, sizeof *perf.v, cmp_sample);

	size_t hits = 0, perf_b = 0;
	for (size_t i = 0; i < dflt.n; i++) {
		const tsample *s = &dflt.v[i];
		const tsample *c = &compat.v[i];
		ck_assert_uint_eq(c->time, s->time);
		ck_assert_uint_eq(c->n, s->n);
		const tsample *t = bsearch(s, perf.v, perf.n, sizeof *perf.v, cmp_sample);
		ck_assert_ptr_nonnull(t);
		for (size_t j = 1; j < s->n; j++) {
			if (s->f[j].addr != b_addr)
				continue;
			hits++;
			/* ours: the caller, at the recorded address's offset */
			ck_assert_str_eq(s->f[j].sym, "caller_a");
			ck_assert_uint_eq(s->f[j].off, a_size);
			/* perf-compatible: perf's name */
			ck_assert_str_eq(c->f[j].sym, "callee_b");
			ck_assert_uint_eq(c->f[j].off, 0);
			ck_assert_uint_eq(c->f[j].addr, b_addr);
			/* and what perf itself says for that frame */
			ck_assert_uint_eq(t->n, c->n);
			ck_assert_str_eq(t->f[j].sym, c->f[j].sym);
			ck_assert_uint_eq(t->f[j].off, c->f[j].off);
			perf_b++;
		}
	}
	fprintf(stderr, "noreturn: %zu frames at the return address 0x%" PRIx64
		": caller_a+0x%" PRIx64 " (ours), callee_b+0x0 with --perf-compat "
		"and in perf script (%zu)\n", hits, b_addr, a_size, perf_b);
	ck_assert_uint_gt(hits, 100);
	free_samples(&dflt);
	free_samples(&compat);
	free_samples(&perf);
}
END_TEST

/* A sample's leaf function and the words its name was found from. */
typedef struct chain_words {
	int image;             /* 1: hot_one, 2: hot_two */
	size_t n;
	uint64_t w[130];       /* ip, then the call chain */
} chain_words;

/*
 * One pid execs a second image whose code sits at the first one's
 * addresses (setarch -R): the same call chain, word for word, means
 * hot_one before the exec and hot_two after it.  A session that keeps
 * the frames of chains it has named (session/chain_memo.h) must not hand
 * the first image's names to the second: every frame is compared with
 * perf script, and the recording must really hold such a repeated chain.
 */
START_TEST(test_exec_same_addresses)
{
	NEED_LAB();
	PD_SKIP_IF(!pd_test_sh_ok("setarch -R true 2>/dev/null") ?
		   "setarch -R (no address randomization) is not usable here" : NULL);
	char one[PATHMAX], two[PATHMAX], data[PATHMAX], w[3 * PATHMAX];
	snprintf(one, sizeof one, "%s/exec_one", L.dir);
	snprintf(two, sizeof two, "%s/exec_two", L.dir);
	snprintf(data, sizeof data, "%s/exec.data", L.dir);
	ck_assert(compile("exec_same.c", one, "-no-pie -DHOT=hot_one"));
	ck_assert(compile("exec_same.c", two, "-no-pie -DHOT=hot_two"));
	snprintf(w, sizeof w, "setarch -R '%s' 250 '%s'", one, two);
	ck_assert_msg(record(data, "-g", w), "perf record failed");
	check_vs_perf(data, "exec into the same addresses");

	/* the case this is about: a hot_two chain that hot_one had before */
	pd_session *s;
	pd_error err = { 0 };
	ck_assert_int_eq(pd_session_open(&s, data, NULL, &err), 0);
	size_t cap = 4096, n = 0, same = 0, per[3] = { 0 };
	chain_words *seen = calloc(cap, sizeof *seen);
	ck_assert_ptr_nonnull(seen);
	const pd_resolved_sample *rs;
	while (pd_session_next(s, &rs, &err) == 0) {
		const pd_sample *smp = &rs->record->u.sample;
		int image = 0;
		for (size_t i = 0; i < rs->nframes && !image; i++) {
			const char *sym = rs->frames[i].symbol;
			image = !sym ? 0 : strcmp(sym, "hot_one") == 0 ? 1
					: strcmp(sym, "hot_two") == 0 ? 2 : 0;
		}
		if (!image || smp->callchain_nr + 1 > 130)
			continue;
		per[image]++;
		chain_words c = { .image = image, .n = smp->callchain_nr + 1 };
		c.w[0] = smp->ip;
		memcpy(c.w + 1, smp->callchain, smp->callchain_nr * sizeof *c.w);
		for (size_t i = 0; i < n && image == 2; i++)
			if (seen[i].image == 1 && seen[i].n == c.n &&
			    memcmp(seen[i].w, c.w, c.n * sizeof *c.w) == 0) {
				same++;
				break;
			}
		if (image == 1 && n < cap)
			seen[n++] = c;
	}
	fprintf(stderr, "exec into the same addresses: %zu hot_one samples, %zu hot_two, "
		"%zu of these with a chain a hot_one sample had\n", per[1], per[2], same);
	ck_assert_uint_gt(per[1], 50);
	ck_assert_uint_gt(per[2], 50);
	ck_assert_uint_gt(same, 0);
	free(seen);
	pd_session_free(s);
}
END_TEST

START_TEST(test_kernel_frames_system_wide)
{
	NEED_LAB();
	if (!L.sys_ok)
		PD_SKIP("perf record -a failed (needs privileges)");
	tsamples a, b;
	ours("--perf-compat --no-inline", L.sys_data, &a, NULL, NULL);
	perf_script(L.sys_data, "comm,tid,cpu,time,ip,sym,symoff,dso", &b);
	ck_assert_uint_eq(a.n, b.n);
	match_stats ms;
	compare(&a, &b, true, &ms);
	fprintf(stderr, "system-wide: %zu samples, kernel frames equal to "
		"perf script: %zu/%zu (%.2f%%), of which %zu are the explained "
		"__pfx_ difference\n", ms.samples, ms.kernel_matched,
		ms.kernel_frames, pct(ms.kernel_matched, ms.kernel_frames),
		ms.pfx_explained);
	ck_assert_uint_eq(ms.samples_missing, 0);
	ck_assert_uint_gt(ms.kernel_frames, 100);
	ck_assert_uint_eq(ms.kernel_matched, ms.kernel_frames);
	free_samples(&a);
	free_samples(&b);
}
END_TEST

static bool in_list(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

START_TEST(test_filters)
{
	NEED_LAB();
	const char *data = L.sys_ok ? L.sys_data : L.nor_data;
	tsamples all;
	ours("--no-inline", data, &all, NULL, NULL);
	ck_assert_uint_gt(all.n, 0);
	/* pick values that occur: the last sample's tid, pid, cpu and comm,
	 * and a second tid from the middle */
	const tsample *last = &all.v[all.n - 1];
	const tsample *mid = &all.v[all.n / 2];
	uint32_t tids[2] = { last->tid, mid->tid };
	char opt[512];
	struct {
		const char *fmt;
		int kind; /* 0 tid pair, 1 pid, 2 cpu, 3 comm, 4 tid+cpu */
	} cases[] = { { "--tid=%u,%u", 0 }, { "--pid %u", 1 }, { "--cpu=%u", 2 },
		      { "--comm=%s", 3 }, { "--tid %u --cpu %u", 4 } };
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		switch (cases[c].kind) {
		case 0: snprintf(opt, sizeof opt, cases[c].fmt, tids[0], tids[1]); break;
		case 1: snprintf(opt, sizeof opt, cases[c].fmt, last->pid); break;
		case 2: snprintf(opt, sizeof opt, cases[c].fmt, last->cpu); break;
		case 3: snprintf(opt, sizeof opt, cases[c].fmt, last->comm); break;
		case 4: snprintf(opt, sizeof opt, cases[c].fmt, last->tid, last->cpu); break;
		}
		if (cases[c].kind == 2 && !L.sys_ok)
			continue; /* a per-thread recording has no CPU field */
		if (cases[c].kind == 3 && strpbrk(last->comm, "' ,"))
			continue;
		char o2[600];
		snprintf(o2, sizeof o2, "--no-inline %s", opt);
		tsamples f;
		ours(o2, data, &f, NULL, NULL);
		size_t expect = 0, j = 0;
		for (size_t i = 0; i < all.n; i++) {
			const tsample *s = &all.v[i];
			bool in;
			switch (cases[c].kind) {
			case 0: in = in_list(tids, 2, s->tid); break;
			case 1: in = s->pid == last->pid; break;
			case 2: in = s->cpu == last->cpu; break;
			case 3: in = strcmp(s->comm, last->comm) == 0; break;
			default: in = s->tid == last->tid && s->cpu == last->cpu; break;
			}
			if (!in)
				continue;
			expect++;
			ck_assert_msg(j < f.n, "%s: too few samples", opt);
			ck_assert_uint_eq(f.v[j].time, s->time);
			ck_assert_uint_eq(f.v[j].tid, s->tid);
			ck_assert_uint_eq(f.v[j].n, s->n);
			j++;
		}
		ck_assert_msg(f.n == expect, "%s: %zu samples, expected %zu", opt,
			      f.n, expect);
		ck_assert_uint_gt(expect, 0);
		free_samples(&f);
	}
	free_samples(&all);
}
END_TEST

/* `perfdiff script --perf-compat --no-inline --unwinder=NAME`, parsed;
 * false when the build has no such back end. */
static bool ours_unwound(const char *name, const char *data, tsamples *out)
{
	char opts[64];
	snprintf(opts, sizeof opts, "--perf-compat --no-inline --unwinder=%s", name);
	int st;
	char *err;
	ours(opts, data, out, &st, &err);
	bool missing = st == 2 && strstr(err, "no libunwind support");
	ck_assert_msg(missing || st == 0 || st == 1, "%s: status %d: %s", opts, st, err);
	free(err);
	return !missing;
}

/* Samples of `ss` with more than one frame outside the kernel. */
static size_t deep_stacks(const tsamples *ss)
{
	size_t deep = 0;
	for (size_t i = 0; i < ss->n; i++) {
		size_t user = 0;
		for (size_t j = 0; j < ss->v[i].n; j++)
			user += !is_kernel_dso(ss->v[i].f[j].dso);
		deep += user > 1;
	}
	return deep;
}

/* Unwound with `name`, `a` has perf's frames: perf 6.1 now and then stops
 * early (a strict prefix of ours: notes §8.4).  How often depends on the
 * machine's load (6 % of the samples on a busy CI machine, none on a
 * quiet one), so the bound is loose, and the oracle for those samples is
 * the stack's shape: ours go on to _start, a whole stack, so the early
 * stop is perf's and not a frame we made up. */
static void check_unwound_vs_perf(const char *name, const tsamples *a, tsamples *perf)
{
	match_stats ms;
	compare(a, perf, false, &ms);
	size_t deep = deep_stacks(a);
	fprintf(stderr,
		"--unwinder=%s vs perf script: %zu/%zu samples equal, %zu more where "
		"perf's stack is a strict prefix of ours (%zu of ours reach _start); %zu/%zu "
		"frames; %zu samples with more than one user frame\n",
		name, ms.samples_matched, ms.samples, ms.perf_prefix, ms.prefix_whole,
		ms.frames_matched, ms.frames, deep);
	ck_assert_uint_eq(ms.samples_missing, 0);
	ck_assert_uint_gt(deep, a->n / 2);
	ck_assert_uint_eq(ms.samples_matched + ms.perf_prefix, ms.samples);
	ck_assert_uint_eq(ms.prefix_whole, ms.perf_prefix);
	ck_assert_uint_le(5 * ms.perf_prefix, ms.samples);
}

/*
 * --unwinder picks how --call-graph=dwarf stacks are unwound.  Oracles:
 * perf script on the same recording (libdw and libunwind must give perf's
 * frames, none perf's sample ip and nothing above it in user space), and
 * the two unwinders each other (the same frames but where one stops early,
 * in at most 20 % of the samples, the other going on to _start).
 */
START_TEST(test_unwinder)
{
	NEED_LAB();
	char data[PATHMAX], w[2 * PATHMAX];
	snprintf(data, sizeof data, "%s/dwarf.data", L.dir);
	/* 500 ms of wall time: a machine busy elsewhere left 200 ms with
	 * 45 samples, too few to compare */
	snprintf(w, sizeof w, "'%s' 500", L.nor_bin);
	if (!record(data, "-F 1000 --call-graph dwarf", w))
		PD_SKIP("perf record --call-graph dwarf failed");
	tsamples perf;
	/* perf names some DWARF-unwound frames by their inline function
	 * alone: --no-inline gives the physical frames ours are */
	perf_script(data, "comm,tid,time,ip,sym,symoff,dso --no-inline", &perf);
	ck_assert_uint_gt(perf.n, 50);

	/* libdw is the default */
	char args[2 * PATHMAX];
	snprintf(args, sizeof args, "script '%s'", data);
	int st_def, st_dw;
	char *def = perfdiff(args, &st_def, NULL);
	snprintf(args, sizeof args, "script --unwinder=libdw '%s'", data);
	char *text = perfdiff(args, &st_dw, NULL);
	ck_assert_int_eq(st_def, st_dw);
	ck_assert_str_eq(def, text);
	free(def);
	free(text);

	tsamples dw, unw, none;
	ck_assert(ours_unwound("libdw", data, &dw));
	ck_assert_uint_eq(dw.n, perf.n);
	check_unwound_vs_perf("libdw", &dw, &perf);
	if (ours_unwound("libunwind", data, &unw)) {
		ck_assert_uint_eq(unw.n, perf.n);
		check_unwound_vs_perf("libunwind", &unw, &perf);
		/* where they differ, libunwind stops early (in the vdso, as perf
		 * does): its stack is a prefix of libdw's */
		match_stats ms;
		compare(&dw, &unw, false, &ms);
		fprintf(stderr,
			"--unwinder=libdw vs libunwind: %zu/%zu samples equal, %zu more "
			"where libunwind's stack is a strict prefix\n",
			ms.samples_matched, ms.samples, ms.perf_prefix);
		ck_assert_uint_eq(ms.samples_matched + ms.perf_prefix, ms.samples);
		ck_assert_uint_eq(ms.prefix_whole, ms.perf_prefix);
		ck_assert_uint_le(5 * ms.perf_prefix, ms.samples);
		free_samples(&unw);
	} else {
		fprintf(stderr, "--unwinder=libunwind: not built in\n");
	}

	ck_assert(ours_unwound("none", data, &none));
	ck_assert_uint_eq(none.n, perf.n);
	ck_assert_uint_eq(deep_stacks(&none), 0);
	/* perf's kernel frames, else (a sample in user space) its leaf: the
	 * sample ip is the whole user part, so a sample in the kernel has
	 * none.  A shallow copy cut short. */
	tsamples cut = { .n = perf.n, .v = calloc(perf.n, sizeof *cut.v) };
	ck_assert_ptr_nonnull(cut.v);
	for (size_t i = 0; i < perf.n; i++) {
		cut.v[i] = perf.v[i];
		size_t k = 0;
		while (k < cut.v[i].n && is_kernel_dso(cut.v[i].f[k].dso))
			k++;
		cut.v[i].n = k ? k : cut.v[i].n ? 1 : 0;
	}
	match_stats ms;
	compare(&none, &cut, false, &ms);
	free(cut.v);
	fprintf(stderr,
		"--unwinder=none vs perf script cut after the sample ip: %zu/%zu samples "
		"equal, %zu/%zu frames\n",
		ms.samples_matched, ms.samples, ms.frames_matched, ms.frames);
	ck_assert_uint_eq(ms.samples_missing, 0);
	ck_assert_uint_eq(ms.samples_matched, ms.samples);
	free_samples(&none);
	free_samples(&dw);
	free_samples(&perf);
}
END_TEST

START_TEST(test_missing_binary)
{
	NEED_LAB();
	char bin[PATHMAX], data[PATHMAX], w[2 * PATHMAX];
	snprintf(bin, sizeof bin, "%s/gone_noreturn", L.dir);
	snprintf(data, sizeof data, "%s/gone.data", L.dir);
	char cmd[3 * PATHMAX];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", L.nor_bin, bin);
	ck_assert(pd_test_sh_ok(cmd));
	snprintf(w, sizeof w, "'%s' 150", bin);
	ck_assert(record(data, "-g", w));
	ck_assert_int_eq(unlink(bin), 0);

	tsamples a;
	int st;
	char *err;
	/* a binary not found loses no data: 0, and 1 under --strict */
	tsamples strict;
	ours("--strict", data, &strict, &st, NULL);
	ck_assert_msg(st == 1, "--strict: status %d (want 1: warnings)", st);
	free_samples(&strict);
	ours("-v", data, &a, &st, &err);
	ck_assert_msg(st == 0, "status %d (want 0: nothing lost), stderr: %s", st, err);
	ck_assert_msg(strstr(err, "perfdiff: warning: ") != NULL, "stderr: %s", err);
	ck_assert_msg(strstr(err, "gone_noreturn") != NULL,
		      "the warning does not name the binary: %s", err);
	size_t in_bin = 0, named_elsewhere = 0;
	for (size_t i = 0; i < a.n; i++)
		for (size_t j = 0; j < a.v[i].n; j++) {
			const tframe *f = &a.v[i].f[j];
			if (strcmp(f->dso, bin) == 0) {
				in_bin++;
				ck_assert_msg(f->sym == NULL, "frame named %s in a deleted binary",
					      f->sym);
			} else if (f->sym) {
				named_elsewhere++;
			}
		}
	fprintf(stderr, "deleted binary: %zu frames [unknown] in it, %zu frames "
		"named elsewhere; stderr: %s", in_bin, named_elsewhere, err);
	ck_assert_uint_gt(in_bin, 100);
	ck_assert_uint_gt(named_elsewhere, 0);  /* libc, the kernel */
	free(err);
	free_samples(&a);

	/* text: those frames print as [unknown] with the binary as dso */
	char args[2 * PATHMAX], needle[2 * PATHMAX];
	snprintf(args, sizeof args, "script '%s'", data);
	char *text = perfdiff(args, &st, NULL);
	ck_assert_int_eq(st, 0);
	snprintf(needle, sizeof needle, " [unknown] (%s)\n", bin);
	ck_assert_ptr_nonnull(strstr(text, needle));
	free(text);
}
END_TEST

START_TEST(test_json_shape)
{
	NEED_LAB();
	char args[2 * PATHMAX];
	snprintf(args, sizeof args, "script --format=json --srcline '%s'", L.nor_data);
	int st;
	char *text = perfdiff(args, &st, NULL);
	ck_assert_int_le(st, 1);
	char *nl = strchr(text, '\n');
	ck_assert_ptr_nonnull(nl);
	json_error_t jerr;
	json_t *o = json_loadb(text, (size_t)(nl - text), 0, &jerr);
	ck_assert_ptr_nonnull(o);
	const char *keys[] = { "comm", "pid", "tid", "cpu", "time", "period",
			       "event", "frames" };
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		ck_assert_msg(json_object_get(o, keys[i]), "no key %s", keys[i]);
	ck_assert(json_is_null(json_object_get(o, "cpu"))); /* not sampled */
	ck_assert_str_eq(jstr(o, "event"), "cpu-clock");
	ck_assert_int_eq(juint(o, "period"), 250000);
	json_t *fr = json_array_get(json_object_get(o, "frames"), 0);
	ck_assert_ptr_nonnull(fr);
	const char *fkeys[] = { "addr", "symbol", "offset", "dso", "inlined",
				"srcfile", "line", "unit" };
	for (size_t i = 0; i < sizeof fkeys / sizeof *fkeys; i++)
		ck_assert_msg(json_object_get(fr, fkeys[i]), "no frame key %s", fkeys[i]);
	ck_assert(json_is_boolean(json_object_get(fr, "inlined")));
	json_decref(o);
	/* a spin_step sample has its source line with --srcline */
	ck_assert_ptr_nonnull(strstr(text, "\"symbol\":\"spin_step\""));
	ck_assert_ptr_nonnull(strstr(text, "noreturn.c\",\"line\":"));
	/* and the source file of its function (DWARF's unit, the frame's
	 * last key) */
	ck_assert_ptr_nonnull(strstr(text, "noreturn.c\"}"));
	free(text);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("script");
	TCase *tc = tcase_create("script");
	tcase_add_unchecked_fixture(tc, lab_setup, lab_teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_usage);
	tcase_add_test(tc, test_stdin);
	tcase_add_test(tc, test_workloads_vs_perf);
	tcase_add_test(tc, test_text_layout);
	tcase_add_test(tc, test_inline_frames);
	tcase_add_test(tc, test_noreturn_caller);
	tcase_add_test(tc, test_exec_same_addresses);
	tcase_add_test(tc, test_kernel_frames_system_wide);
	tcase_add_test(tc, test_filters);
	tcase_add_test(tc, test_unwinder);
	tcase_add_test(tc, test_missing_binary);
	tcase_add_test(tc, test_json_shape);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
