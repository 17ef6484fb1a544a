/*
 * The symbolizer against independent tools: symbol names and inline
 * chains vs eu-addr2line, binutils addr2line and llvm-symbolizer on
 * programs compiled here; PLT names vs objdump's <name@plt> labels; libc
 * names vs `perf script`; demangling vs c++filt; kernel names vs
 * /proc/kallsyms and `perf buildid-list -k`.  Then file lookup (build-id
 * cache, symfs, mismatch, missing, no build-id), corrupt DWARF, vdso, JIT
 * maps, and timings (printed, not asserted).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "symbols/symb_internal.h"
#include "symbols/symbolizer.h"

/* Programs compiled once by the unchecked fixture (shared by the forked
 * test processes). */
static char *g_dir;
static bool g_cc, g_cxx, g_clang, g_rust, g_eu, g_llvm, g_ibt;

static const char inl_src[] =
	"#include <stdio.h>\n"
	"static inline __attribute__((always_inline)) int sq(int x) { return x * x + (x >> 3); }\n"
	"static inline __attribute__((always_inline)) int outer(int x) { return sq(x) ^ sq(x + 1); }\n"
	"__attribute__((noinline, noclone)) int f1(int a) { return outer(a) + 1 + VARIANT; }\n"
	"__attribute__((noinline, noclone)) int f2(int a) { return sq(a) * 3; }\n"
	"int main(int argc, char **argv) { (void)argv; int s = 0;\n"
	"  for (int i = 0; i < argc * 100; i++) s += f1(i) + f2(i);\n"
	"  printf(\"%d\\n\", s); return 0; }\n";

static const char clang_src[] =
	"#include <stdio.h>\n"
	"static inline __attribute__((always_inline)) int sq(int x) { return x * x + (x >> 3); }\n"
	"static inline __attribute__((always_inline)) int outer(int x) { return sq(x) ^ sq(x + 1); }\n"
	"__attribute__((noinline)) int f1(int a) { return outer(a) + 1; }\n"
	"__attribute__((noinline)) int f2(int a) { return sq(a) * 3; }\n"
	"int main(int argc, char **argv) { (void)argv; int s = 0;\n"
	"  for (int i = 0; i < argc * 100; i++) s += f1(i) + f2(i);\n"
	"  printf(\"%d\\n\", s); return 0; }\n";

static const char plt_src[] =
	"#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
	"int main(int argc, char **argv) {\n"
	"  long n = argc > 1 ? atol(argv[1]) : 10, s = 0; char buf[32]; struct timespec ts;\n"
	"  for (long i = 0; i < n; i++) {\n"
	"    s += random(); snprintf(buf, sizeof buf, \"%ld\", i); s += strtol(buf, NULL, 10);\n"
	"    clock_gettime(CLOCK_MONOTONIC, &ts); s += ts.tv_nsec & 1; }\n"
	"  printf(\"%ld\\n\", s); return 0; }\n";

static const char cxx_src[] =
	"#include <vector>\n#include <cstdio>\n"
	"namespace ns { template<class T> struct Box { T v;\n"
	"  __attribute__((noinline)) T spin(int n) { T s = 0; for (int i = 0; i < n; i++) s += twice(v * i % 7); return s; }\n"
	"  __attribute__((always_inline)) inline T twice(T x) { return x + x; } }; }\n"
	"__attribute__((noinline)) long work(std::vector<long> &v, int n) { ns::Box<long> b{3}; long s = 0;\n"
	"  for (int i = 0; i < n; i++) { s += b.spin(100); v.push_back(s); } return s; }\n"
	"__attribute__((noinline)) double work(double d) { return d * 3.5; }\n"
	"int main(int argc, char **) { std::vector<long> v; std::printf(\"%ld %f\\n\", work(v, argc * 10), work(argc * 1.0)); }\n";

static const char rust_src[] =
	"#[inline(never)]\n"
	"fn spin(n: u64) -> u64 { let mut s = 0u64; for i in 0..n { s = s.wrapping_mul(31).wrapping_add(i ^ (s >> 3)); } s }\n"
	"fn main() { println!(\"{}\", spin(std::env::args().count() as u64 * 1000)); }\n";

/* ---- small helpers ---- */

static char *shell(int *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *shell(int *status, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = -1;
	char *out = pd_test_run(cmd, &st);
	if (status)
		*status = st;
	return out;
}

static bool ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool ok(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	return pd_test_sh_ok(cmd);
}

static const char *path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", g_dir, name);
	return buf;
}

static bool have(const char *tool)
{
	return ok("command -v %s >/dev/null 2>&1", tool);
}

/* Build-id from binutils readelf -n. */
static size_t build_id_of(const char *path, uint8_t *out)
{
	char *o = shell(NULL, "readelf -n '%s' 2>/dev/null", path);
	size_t n = 0;
	const char *p = o ? strstr(o, "Build ID: ") : NULL;
	if (p) {
		p += 10;
		unsigned v;
		while (n < 20 && sscanf(p, "%2x", &v) == 1 && p[0] != '\n' && p[1] != '\n') {
			out[n++] = (uint8_t)v;
			p += 2;
		}
	}
	free(o);
	return n;
}

static void hex_of(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

static pd_dso_id dso_of(const char *path, const char *recorded)
{
	pd_dso_id d;
	memset(&d, 0, sizeof d);
	d.name = recorded ? recorded : path;
	d.build_id_size = (uint8_t)build_id_of(path, d.build_id);
	return d;
}

/* ELF vaddr → file offset through binutils' view of the PT_LOADs. */
typedef struct segs {
	uint64_t off[16], vaddr[16], filesz[16];
	int n;
} segs;

static segs load_segs(const char *path)
{
	segs s;
	memset(&s, 0, sizeof s);
	char *o = shell(NULL, "readelf -lW '%s' 2>/dev/null", path);
	for (char *save = NULL, *l = o ? strtok_r(o, "\n", &save) : NULL; l && s.n < 16;
	     l = strtok_r(NULL, "\n", &save)) {
		unsigned long long off, va, pa, fs, ms;
		if (sscanf(l, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va, &pa, &fs, &ms) == 5) {
			s.off[s.n] = off;
			s.vaddr[s.n] = va;
			s.filesz[s.n] = fs;
			s.n++;
		}
	}
	free(o);
	return s;
}

static uint64_t to_off(const segs *s, uint64_t va)
{
	for (int i = 0; i < s->n; i++)
		if (va >= s->vaddr[i] && va < s->vaddr[i] + s->filesz[i])
			return va - s->vaddr[i] + s->off[i];
	ck_abort_msg("vaddr %#llx in no PT_LOAD", (unsigned long long)va);
	return 0;
}

/* Function symbols from nm -S: address, size, name. */
typedef struct nsym {
	uint64_t addr, size;
	char name[256];
	char type;
} nsym;

static size_t nm_syms(const char *path, const char *opts, nsym *out, size_t max)
{
	char *o = shell(NULL, "nm -S %s --defined-only '%s' 2>/dev/null", opts, path);
	size_t n = 0;
	for (char *save = NULL, *l = o ? strtok_r(o, "\n", &save) : NULL; l && n < max;
	     l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, sz;
		char t;
		char name[256];
		/* sizeless symbols have no size column */
		bool parsed = sscanf(l, "%llx %llx %c %255s", &a, &sz, &t, name) == 4;
		if (!parsed && sscanf(l, "%llx %c %255s", &a, &t, name) == 3) {
			sz = 0;
			parsed = true;
		}
		if (parsed) {
			out[n].addr = a;
			out[n].size = sz;
			out[n].type = t;
			snprintf(out[n].name, sizeof out[n].name, "%s", name);
			n++;
		}
	}
	free(o);
	return n;
}

static bool nm_find(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	nsym *s = calloc(4096, sizeof *s);
	size_t n = nm_syms(path, "", s, 4096);
	bool found = false;
	for (size_t i = 0; i < n && !found; i++)
		if (strcmp(s[i].name, name) == 0) {
			*addr = s[i].addr;
			*size = s[i].size;
			found = true;
		}
	free(s);
	return found;
}

/* ---- addr2line-style oracles: "0xADDR" then (name, file:line) pairs ---- */

#define MAXF 40
typedef struct oframe {
	char name[384];
	char file[128];
	unsigned line;
} oframe;

typedef struct oblock {
	uint64_t addr;
	int n;
	oframe f[MAXF];
} oblock;

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* "file:line", "file:line:col" or "file:line (discriminator N)". */
static void parse_fileline(const char *l, oframe *f)
{
	char tmp[1024];
	snprintf(tmp, sizeof tmp, "%s", l);
	char *d = strstr(tmp, " (discriminator");
	if (d)
		*d = '\0';
	char *c1 = strrchr(tmp, ':');
	f->line = 0;
	if (c1) {
		*c1 = '\0';
		unsigned a = (unsigned)strtoul(c1 + 1, NULL, 10);
		char *c2 = strrchr(tmp, ':');
		if (c2 && c2[1] >= '0' && c2[1] <= '9' && strspn(c2 + 1, "0123456789") == strlen(c2 + 1)) {
			*c2 = '\0';
			f->line = (unsigned)strtoul(c2 + 1, NULL, 10);
		} else {
			f->line = a;
		}
	}
	snprintf(f->file, sizeof f->file, "%.*s", (int)sizeof f->file - 1, base(tmp));
}

static size_t parse_oracle(char *out, oblock *b, size_t max)
{
	size_t n = 0;
	oblock *cur = NULL;
	bool want_name = true;
	for (char *save = NULL, *l = out ? strtok_r(out, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '0' && l[1] == 'x' && strspn(l + 2, "0123456789abcdef") == strlen(l + 2)) {
			if (n == max)
				break;
			cur = &b[n++];
			memset(cur, 0, sizeof *cur);
			cur->addr = strtoull(l, NULL, 16);
			want_name = true;
			continue;
		}
		if (!cur)
			continue;
		if (want_name) {
			if (cur->n < MAXF) {
				char *in = strstr(l, " inlined at ");
				if (in)
					*in = '\0';
				snprintf(cur->f[cur->n].name, sizeof cur->f[0].name, "%s", l);
			}
		} else if (cur->n < MAXF) {
			parse_fileline(l, &cur->f[cur->n]);
			cur->n++;
		}
		want_name = !want_name;
	}
	return n;
}

/*
 * Compare every address with an oracle's inline chain: names (innermost
 * first, the last one being the function) and file basename:line of every
 * frame.  Returns the number of addresses that differ (each printed).
 */
static int compare_chains(pd_symbolizer *z, const pd_dso_id *d, const segs *sg,
			  const uint64_t *addrs, size_t n, const char *oracle_fmt, const char *bin,
			  const char *label, bool use_raw)
{
	char list[65536];
	size_t used = 0;
	for (size_t i = 0; i < n && used + 24 < sizeof list; i++)
		used += (size_t)snprintf(list + used, sizeof list - used, " 0x%llx",
					 (unsigned long long)addrs[i]);
	char cmd[70000];
	snprintf(cmd, sizeof cmd, oracle_fmt, bin);
	char *out = shell(NULL, "%s %s 2>/dev/null", cmd, list);
	oblock *b = calloc(n, sizeof *b);
	size_t nb = parse_oracle(out, b, n);
	free(out);
	ck_assert_msg(nb == n, "%s: oracle gave %zu of %zu addresses", label, nb, n);
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		const pd_symres *r = pd_symbolizer_lookup(z, d, to_off(sg, addrs[i]));
		bool same = (int)r->nframes == b[i].n && r->addr == addrs[i];
		for (size_t k = 0; same && k < r->nframes; k++) {
			const pd_symframe *f = &r->frames[k];
			const char *nm = use_raw ? f->raw : f->name;
			same = nm && strcmp(nm, b[i].f[k].name) == 0 && f->srcfile &&
			       strcmp(base(f->srcfile), b[i].f[k].file) == 0 && f->line == b[i].f[k].line &&
			       f->inlined == (k + 1 < r->nframes);
		}
		if (!same && bad++ < 5) {
			fprintf(stderr, "%s %#llx: oracle", label, (unsigned long long)addrs[i]);
			for (int k = 0; k < b[i].n; k++)
				fprintf(stderr, " %s@%s:%u", b[i].f[k].name, b[i].f[k].file, b[i].f[k].line);
			fprintf(stderr, " | ours");
			for (size_t k = 0; k < r->nframes; k++)
				fprintf(stderr, " %s@%s:%u",
					(use_raw ? r->frames[k].raw : r->frames[k].name) ? (use_raw ? r->frames[k].raw : r->frames[k].name) : "?",
					r->frames[k].srcfile ? base(r->frames[k].srcfile) : "?",
					r->frames[k].line);
			fprintf(stderr, "\n");
		}
	}
	free(b);
	return bad;
}

static pd_symbolizer *new_z(bool inl, bool src, bool dem)
{
	pd_symbolizer_config cfg = { .inline_frames = inl, .srcline = src, .demangle = dem };
	pd_symbolizer *z = NULL;
	pd_error err;
	ck_assert_int_eq(pd_symbolizer_new(&z, &cfg, &err), 0);
	return z;
}

static pd_symbolizer *new_zc(const pd_symbolizer_config *cfg)
{
	pd_symbolizer *z = NULL;
	pd_error err;
	ck_assert_int_eq(pd_symbolizer_new(&z, cfg, &err), 0);
	return z;
}

static size_t count_warnings(const pd_symbolizer *z, const char *needle)
{
	size_t c = 0;
	for (size_t i = 0; i < pd_symbolizer_warning_count(z); i++)
		if (strstr(pd_symbolizer_warning(z, i), needle))
			c++;
	return c;
}

static const char *name_at(pd_symbolizer *z, const pd_dso_id *d, uint64_t off)
{
	return pd_symbolizer_lookup(z, d, off)->frames[pd_symbolizer_lookup(z, d, off)->nframes - 1].name;
}

/* ---- fixture ---- */

static void setup(void)
{
	g_dir = pd_test_tmpdir();
	if (!g_dir)
		return;
	char p[4096];
	pd_test_write_file(path_in(p, sizeof p, "inl.c"), inl_src, sizeof inl_src - 1);
	pd_test_write_file(path_in(p, sizeof p, "inlc.c"), clang_src, sizeof clang_src - 1);
	pd_test_write_file(path_in(p, sizeof p, "plt.c"), plt_src, sizeof plt_src - 1);
	pd_test_write_file(path_in(p, sizeof p, "cxx.cc"), cxx_src, sizeof cxx_src - 1);
	pd_test_write_file(path_in(p, sizeof p, "r.rs"), rust_src, sizeof rust_src - 1);
	g_cc = ok("cd %s && cc -O2 -g -DVARIANT=0 -o inl %s/inl.c && "
		  "cc -O2 -g -DVARIANT=0 -no-pie -o inln %s/inl.c && "
		  "cc -O2 -g -o plt %s/plt.c && "
		  "cc -O2 -g -DVARIANT=1 -o inl_v1 %s/inl.c && "
		  "cc -O2 -g -DVARIANT=0 -Wl,--build-id=none -o inl_noid %s/inl.c",
		  g_dir, g_dir, g_dir, g_dir, g_dir, g_dir);
	/* IBT: calls go through .plt.sec, the lazy .plt has no jmp *GOT */
	g_ibt = g_cc && ok("cd %s && cc -O2 -g -fcf-protection=full -Wl,-z,ibtplt -o pltibt %s/plt.c",
			   g_dir, g_dir);
	g_cxx = have("g++") && ok("cd %s && g++ -O2 -g -o cxx %s/cxx.cc", g_dir, g_dir);
	g_clang = have("clang") && have("ld.lld") &&
		  ok("cd %s && clang -O2 -g -fuse-ld=lld -o inll %s/inlc.c", g_dir, g_dir);
	g_rust = have("rustc") &&
		 ok("cd %s && rustc -O -g -o rl r.rs && rustc -O -g -C symbol-mangling-version=v0 -o r0 r.rs",
		    g_dir);
	g_eu = have("eu-addr2line");
	g_llvm = have("llvm-symbolizer");
	fprintf(stderr, "fixture: cc %d ibt-plt %d g++ %d clang+lld %d rustc %d eu-addr2line %d "
		"llvm-symbolizer %d\n", g_cc, g_ibt, g_cxx, g_clang, g_rust, g_eu, g_llvm);
}

static void teardown(void)
{
	pd_test_rmrf(g_dir);
	free(g_dir);
	g_dir = NULL;
}

/* Every byte of f1, f2 and main: the addresses a sampler can hit. */
static size_t function_bytes(const char *bin, uint64_t *addrs, size_t max)
{
	static const char *const fns[] = { "f1", "f2", "main" };
	size_t n = 0;
	for (size_t i = 0; i < 3; i++) {
		uint64_t a, sz;
		ck_assert_msg(nm_find(bin, fns[i], &a, &sz), "%s not in %s", fns[i], bin);
		for (uint64_t k = 0; k < sz && n < max; k++)
			addrs[n++] = a + k;
	}
	return n;
}

/* ---- tests ---- */

START_TEST(test_inline_chains_gcc)
{
	if (!g_cc)
		PD_SKIP("no cc");
	char bin[4096];
	path_in(bin, sizeof bin, "inl");
	pd_dso_id d = dso_of(bin, NULL);
	ck_assert_int_eq(d.build_id_size, 20);
	segs sg = load_segs(bin);
	uint64_t addrs[1024];
	size_t n = function_bytes(bin, addrs, 1024);
	pd_symbolizer *z = new_z(true, true, true);

	/* always_inline sq() shows up under both callers, and nested in outer() */
	bool in_f1 = false, in_f2 = false;
	for (size_t i = 0; i < n; i++) {
		const pd_symres *r = pd_symbolizer_lookup(z, &d, to_off(&sg, addrs[i]));
		if (r->nframes == 3 && !strcmp(r->frames[0].name, "sq") &&
		    !strcmp(r->frames[1].name, "outer") && !strcmp(r->frames[2].name, "f1"))
			in_f1 = true;
		if (r->nframes == 2 && !strcmp(r->frames[0].name, "sq") && !strcmp(r->frames[1].name, "f2"))
			in_f2 = true;
	}
	ck_assert(in_f1 && in_f2);

	if (g_eu)
		ck_assert_int_eq(compare_chains(z, &d, &sg, addrs, n, "eu-addr2line -a -f -i -e '%s'",
						bin, "eu-addr2line", false), 0);
	ck_assert_int_eq(compare_chains(z, &d, &sg, addrs, n, "addr2line -a -f -i -e '%s'", bin,
					"addr2line", false), 0);
	if (g_llvm)
		ck_assert_int_eq(compare_chains(z, &d, &sg, addrs, n,
						"llvm-symbolizer --output-style=GNU -a -f -i --obj='%s'",
						bin, "llvm-symbolizer", false), 0);
	fprintf(stderr, "inline chains: %zu addresses identical to the oracles\n", n);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	pd_symbolizer_free(z);
}
END_TEST

/* clang + lld: no .debug_aranges, and the text segment's p_vaddr differs
 * from its p_offset (the offset → vaddr translation is exercised). */
START_TEST(test_inline_chains_clang_lld)
{
	if (!g_clang || !g_llvm)
		PD_SKIP("no clang/ld.lld/llvm-symbolizer");
	char bin[4096];
	path_in(bin, sizeof bin, "inll");
	pd_dso_id d = dso_of(bin, NULL);
	segs sg = load_segs(bin);
	bool shifted = false;
	for (int i = 0; i < sg.n; i++)
		shifted |= sg.off[i] != sg.vaddr[i];
	ck_assert_msg(shifted, "lld output with p_vaddr == p_offset everywhere");
	uint64_t addrs[1024];
	size_t n = function_bytes(bin, addrs, 1024);
	pd_symbolizer *z = new_z(true, true, true);
	ck_assert_int_eq(compare_chains(z, &d, &sg, addrs, n,
					"llvm-symbolizer --output-style=GNU -a -f -i --obj='%s'", bin,
					"llvm-symbolizer", false), 0);
	pd_symbolizer_free(z);
}
END_TEST

/* Non-PIE executable: every function symbol of nm at its first, middle
 * and last byte. */
START_TEST(test_symbols_vs_nm)
{
	if (!g_cc)
		PD_SKIP("no cc");
	static const char *const bins[] = { "inln", "inl", "plt" };
	for (size_t b = 0; b < 3; b++) {
		char bin[4096];
		path_in(bin, sizeof bin, bins[b]);
		pd_dso_id d = dso_of(bin, NULL);
		segs sg = load_segs(bin);
		nsym *s = calloc(512, sizeof *s);
		size_t n = nm_syms(bin, "", s, 512);
		pd_symbolizer *z = new_z(false, false, true);
		size_t checked = 0, labels = 0;
		for (size_t i = 0; i < n; i++) {
			if (s[i].type != 'T' && s[i].type != 't')
				continue;
			if (s[i].size == 0) {
				/* sizeless (crt assembly, _init): named up to the
				 * next symbol, as libdwfl and perf do */
				uint64_t next = UINT64_MAX;
				for (size_t k = 0; k < n; k++)
					if (s[k].addr > s[i].addr && s[k].addr < next)
						next = s[k].addr;
				if (next < s[i].addr + 2)
					continue;
				const pd_symres *r = pd_symbolizer_lookup(z, &d, to_off(&sg, s[i].addr + 1));
				ck_assert_msg(r->frames[0].name && !strcmp(r->frames[0].name, s[i].name),
					      "%s %#llx: nm %s (sizeless), ours %s", bins[b],
					      (unsigned long long)s[i].addr + 1, s[i].name,
					      r->frames[0].name ? r->frames[0].name : "(null)");
				labels++;
				continue;
			}
			uint64_t probe[3] = { s[i].addr, s[i].addr + s[i].size / 2,
					      s[i].addr + s[i].size - 1 };
			for (int k = 0; k < 3; k++) {
				const pd_symres *r = pd_symbolizer_lookup(z, &d, to_off(&sg, probe[k]));
				ck_assert_uint_eq(r->nframes, 1);
				ck_assert_msg(r->frames[0].name && !strcmp(r->frames[0].name, s[i].name),
					      "%s %#llx: nm %s, ours %s", bins[b],
					      (unsigned long long)probe[k], s[i].name,
					      r->frames[0].name ? r->frames[0].name : "(null)");
				ck_assert_uint_eq(r->sym_start, s[i].addr);
				ck_assert_uint_eq(r->addr, probe[k]);
				checked++;
			}
		}
		ck_assert_uint_ge(checked, 6);
		ck_assert_uint_ge(labels, 4);
		free(s);
		pd_symbolizer_free(z);
	}
}
END_TEST

START_TEST(test_cxx_demangle)
{
	if (!g_cxx)
		PD_SKIP("no g++");
	char bin[4096];
	path_in(bin, sizeof bin, "cxx");
	pd_dso_id d = dso_of(bin, NULL);
	segs sg = load_segs(bin);
	nsym *s = calloc(1024, sizeof *s);
	size_t n = nm_syms(bin, "", s, 1024);
	pd_symbolizer *z = new_z(true, true, true);
	pd_symbolizer *raw = new_z(false, false, false);
	size_t mangled = 0;
	uint64_t addrs[2048];
	size_t na = 0;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(s[i].name, "_Z", 2) != 0 || s[i].size == 0 || (s[i].type != 'T' && s[i].type != 'W'))
			continue;
		uint64_t off = to_off(&sg, s[i].addr);
		const pd_symres *r = pd_symbolizer_lookup(raw, &d, off);
		/* aliases (D1/D2 destructors) share an address: any of them */
		bool alias = false;
		for (size_t k = 0; k < n && !alias; k++)
			alias = s[k].addr == s[i].addr && !strcmp(s[k].name, r->frames[0].name);
		ck_assert_msg(alias, "%s at %#llx", r->frames[0].name, (unsigned long long)s[i].addr);
		ck_assert_str_eq(r->frames[0].raw, r->frames[0].name);
		char *want = shell(NULL, "echo '%s' | c++filt", r->frames[0].raw);
		want[strcspn(want, "\n")] = '\0';
		const char *rawname = r->frames[0].raw;
		r = pd_symbolizer_lookup(z, &d, off);
		ck_assert_str_eq(r->frames[r->nframes - 1].name, want);
		ck_assert_str_eq(r->frames[r->nframes - 1].raw, rawname);
		free(want);
		mangled++;
		if (strstr(s[i].name, "spin") || strstr(s[i].name, "work"))
			for (uint64_t k = 0; k < s[i].size && na < 2048; k++)
				addrs[na++] = s[i].addr + k;
	}
	ck_assert_uint_ge(mangled, 3);
	/* inline frames of C++ members carry demangled linkage names */
	ck_assert_int_eq(compare_chains(z, &d, &sg, addrs, na, "addr2line -C -a -f -i -e '%s'", bin,
					"addr2line -C", false), 0);
	if (g_eu)
		ck_assert_int_eq(compare_chains(z, &d, &sg, addrs, na,
						"eu-addr2line -C -a -f -i -e '%s'", bin, "eu-addr2line -C", false), 0);
	free(s);
	pd_symbolizer_free(z);
	pd_symbolizer_free(raw);
}
END_TEST

START_TEST(test_rust_demangle)
{
	/* Known manglings first (independent of rustc being installed). */
	static const char *const names[] = {
		"_ZN4core3fmt5write17h0123456789abcdefE", "_RNvCs1234_7mycrate3foo",
		"_ZN2ns3BoxIlE4spinEi", "_ZNSt6vectorIiSaIiEE9push_backERKi",
		"_ZN3foo3barEv@plt", "_ZNSt8ios_base4InitC1Ev@@GLIBCXX_3.4",
	};
	pd_arena a;
	pd_arena_init(&a);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char base_name[256];
		snprintf(base_name, sizeof base_name, "%s", names[i]);
		char *at = strchr(base_name, '@');
		const char *tail = at ? strchr(names[i], '@') : "";
		if (at)
			*at = '\0';
		char *want = shell(NULL, "c++filt -i '%s'", base_name);
		want[strcspn(want, "\n")] = '\0';
		char full[1024];
		snprintf(full, sizeof full, "%s%s", want, tail);
		const char *got = pd_demangle(names[i], &a);
		ck_assert_msg(got && !strcmp(got, full), "%s: c++filt %s, ours %s", names[i], full,
			      got ? got : "(null)");
		free(want);
	}
	ck_assert_ptr_null(pd_demangle("main", &a));
	ck_assert_ptr_null(pd_demangle("_Zgarbage", &a));
	ck_assert_ptr_null(pd_demangle("_R", &a));
	pd_arena_free(&a);

	if (!g_rust)
		PD_SKIP("no rustc (known manglings checked)");
	static const char *const bins[] = { "rl", "r0" };
	for (int b = 0; b < 2; b++) {
		char bin[4096];
		path_in(bin, sizeof bin, bins[b]);
		pd_dso_id d = dso_of(bin, NULL);
		segs sg = load_segs(bin);
		nsym *s = calloc(8192, sizeof *s);
		size_t n = nm_syms(bin, "", s, 8192);
		pd_symbolizer *z = new_z(false, false, true);
		bool seen = false;
		for (size_t i = 0; i < n; i++) {
			if (!strstr(s[i].name, "4spin") || s[i].size == 0)
				continue;
			char *want = shell(NULL, "c++filt -i '%s'", s[i].name);
			want[strcspn(want, "\n")] = '\0';
			const pd_symres *r = pd_symbolizer_lookup(z, &d, to_off(&sg, s[i].addr + 1));
			ck_assert_str_eq(r->frames[0].name, want);
			ck_assert_str_eq(r->frames[0].name, "r::spin");
			free(want);
			seen = true;
		}
		ck_assert(seen);

		/* inline chains (std's iterators are inlined into main) against
		 * llvm-symbolizer on linkage names; libdw's own dwarf_getscopes
		 * finds nothing in these CUs (elfutils 0.188) */
		if (g_llvm) {
			pd_symbolizer *zi = new_z(true, true, true);
			uint64_t addrs[4096];
			size_t na = 0;
			for (size_t i = 0; i < n; i++)
				if (s[i].size && (strstr(s[i].name, "4spin") || strstr(s[i].name, "4main")) &&
				    strstr(s[i].name, "1r"))
					for (uint64_t k = 0; k < s[i].size && na < 4096; k += 2)
						addrs[na++] = s[i].addr + k;
			ck_assert_uint_gt(na, 100);
			ck_assert_int_eq(compare_chains(zi, &d, &sg, addrs, na,
							"llvm-symbolizer --no-demangle --output-style=GNU -a -f -i --obj='%s'",
							bin, "llvm-symbolizer rust", true), 0);
			/* every display name is c++filt -i of its raw name */
			size_t deep = 0;
			for (size_t i = 0; i < na; i += 7) {
				const pd_symres *r = pd_symbolizer_lookup(zi, &d, to_off(&sg, addrs[i]));
				deep = r->nframes > deep ? r->nframes : deep;
				for (size_t k = 0; k < r->nframes; k++) {
					char *want = shell(NULL, "c++filt -i '%s'", r->frames[k].raw);
					want[strcspn(want, "\n")] = '\0';
					ck_assert_str_eq(r->frames[k].name, want);
					free(want);
				}
			}
			ck_assert_uint_ge(deep, 3);
			pd_symbolizer_free(zi);
		}
		free(s);
		pd_symbolizer_free(z);
	}
}
END_TEST

/* objdump's synthetic <name@plt> labels for one file; returns count. */
typedef struct pltlab {
	uint64_t addr;
	char name[256];
} pltlab;

static size_t objdump_plt(const char *bin, pltlab *out, size_t max)
{
	char *o = shell(NULL, "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", bin);
	size_t n = 0;
	for (char *save = NULL, *l = o ? strtok_r(o, "\n", &save) : NULL; l && n < max;
	     l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char name[256];
		if (sscanf(l, "%llx <%255[^>]>:", &a, name) == 2 && strstr(name, "@plt") &&
		    !strstr(name, "@plt-") && !strstr(name, "@plt+")) {
			out[n].addr = a;
			snprintf(out[n].name, sizeof out[n].name, "%s", name);
			n++;
		}
	}
	free(o);
	return n;
}

static const char *libc_path(char *buf, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	buf[0] = '\0';
	while (f && fgets(line, sizeof line, f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(buf, n, "%s", p);
			break;
		}
	}
	if (f)
		fclose(f);
	return buf[0] ? buf : NULL;
}

START_TEST(test_plt_vs_objdump)
{
	if (!g_cc)
		PD_SKIP("no cc");
	pltlab labs[512];
	size_t n;
	for (int v = 0; v < 2; v++) {
		if (v == 1 && !g_ibt)
			break;
		char bin[4096];
		path_in(bin, sizeof bin, v ? "pltibt" : "plt");
		n = objdump_plt(bin, labs, 512);
		ck_assert_uint_ge(n, 5);  /* random, snprintf, strtol, clock_gettime, printf... */
		pd_dso_id d = dso_of(bin, NULL);
		segs sg = load_segs(bin);
		pd_symbolizer *z = new_z(true, true, true);
		for (size_t i = 0; i < n; i++)
			for (uint64_t k = 0; k < 8; k += 6) {
				const pd_symres *r = pd_symbolizer_lookup(z, &d, to_off(&sg, labs[i].addr + k));
				ck_assert_uint_eq(r->nframes, 1);
				ck_assert_msg(r->frames[0].name && !strcmp(r->frames[0].name, labs[i].name),
					      "%s %#llx: objdump %s ours %s", bin,
					      (unsigned long long)labs[i].addr, labs[i].name,
					      r->frames[0].name ? r->frames[0].name : "(null)");
				ck_assert_uint_eq(r->sym_start, labs[i].addr);
			}
		pd_symbolizer_free(z);
	}

	/* libc: .plt not in .rela.plt order, and IRELATIVE slots, which
	 * objdump calls *ABS*+0xRESOLVER@plt; ours name the IFUNC there. */
	char libc[4096];
	if (!libc_path(libc, sizeof libc))
		PD_SKIP("no libc in /proc/self/maps");
	n = objdump_plt(libc, labs, 512);
	pd_dso_id d = dso_of(libc, NULL);
	segs sg = load_segs(libc);
	char hex[41];
	hex_of(d.build_id, d.build_id_size, hex);
	char dbg[4096];
	snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	nsym *syms = calloc(65536, sizeof *syms);
	size_t nsyms = nm_syms(libc, "-D", syms, 65536);
	if (access(dbg, R_OK) == 0)
		nsyms += nm_syms(dbg, "", syms + nsyms, 65536 - nsyms);
	pd_symbolizer *z = new_z(false, false, true);
	size_t abs_named = 0;
	for (size_t i = 0; i < n; i++) {
		const char *got = name_at(z, &d, to_off(&sg, labs[i].addr));
		ck_assert_msg(got, "libc %#llx (%s) unnamed", (unsigned long long)labs[i].addr, labs[i].name);
		unsigned long long resolver;
		if (sscanf(labs[i].name, "*ABS*+0x%llx@plt", &resolver) != 1) {
			ck_assert_str_eq(got, labs[i].name);
			continue;
		}
		size_t gl = strlen(got);
		ck_assert(gl > 4 && !strcmp(got + gl - 4, "@plt"));
		if (!strncmp(got, "*ABS*", 5)) {
			ck_assert_str_eq(got, labs[i].name);
			continue;
		}
		bool found = false;
		for (size_t k = 0; k < nsyms && !found; k++) {
			size_t bl = strcspn(syms[k].name, "@");
			found = syms[k].addr == resolver && bl == gl - 4 && !strncmp(syms[k].name, got, bl);
		}
		ck_assert_msg(found, "%s: no symbol %s at %#llx", labs[i].name, got, resolver);
		abs_named++;
	}
	fprintf(stderr, "libc PLT: %zu entries as objdump, %zu IRELATIVE ones named by their IFUNC\n",
		n, abs_named);
	free(syms);
	pd_symbolizer_free(z);
}
END_TEST

/* Names of samples in the program and libc vs `perf script` (which uses
 * perf's own ELF reader and alias rules). */
START_TEST(test_vs_perf_script)
{
	if (!g_cc || !pd_test_have_perf())
		PD_SKIP("no cc or perf");
	char bin[4096], data[4096];
	path_in(bin, sizeof bin, "plt");
	path_in(data, sizeof data, "plt.data");
	if (!ok("perf record -N -q -e cpu-clock -o '%s' '%s' 1500000 >/dev/null 2>&1", data, bin))
		PD_SKIP("perf record failed");
	char *o = shell(NULL, "perf script -i '%s' --show-mmap-events -F ip,sym,dso 2>/dev/null", data);
	ck_assert_ptr_nonnull(o);
	typedef struct { uint64_t start, len, pgoff; char path[512]; } xmap;
	xmap maps[64];
	size_t nmaps = 0, matched = 0, plt = 0, bad = 0;
	pd_symbolizer *z = new_z(false, false, true);
	pd_dso_id ids[64];
	for (char *save = NULL, *l = strtok_r(o, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long st, len, pg;
		char path[512];
		const char *mm = strstr(l, "PERF_RECORD_MMAP2");
		if (mm) {
			const char *br = strchr(mm, '[');
			const char *rx = strstr(mm, "]: r-xp ");
			if (br && rx && nmaps < 64 &&
			    sscanf(br, "[0x%llx(0x%llx) @ 0x%llx", &st, &len, &pg) == 3 &&
			    sscanf(rx + 8, "%511s", path) == 1 && path[0] == '/') {
				maps[nmaps] = (xmap){ st, len, pg, "" };
				snprintf(maps[nmaps].path, sizeof maps[nmaps].path, "%s", path);
				ids[nmaps] = dso_of(maps[nmaps].path, NULL);
				ids[nmaps].name = maps[nmaps].path;
				nmaps++;
			}
			continue;
		}
		unsigned long long ip;
		char sym[1024];
		if (sscanf(l, " %llx %1023[^(]", &ip, sym) != 2)
			continue;
		size_t sl = strlen(sym);
		while (sl && sym[sl - 1] == ' ')
			sym[--sl] = '\0';
		for (size_t m = 0; m < nmaps; m++) {
			if (ip < maps[m].start || ip >= maps[m].start + maps[m].len ||
			    !strstr(l, maps[m].path))
				continue;
			const pd_symres *r = pd_symbolizer_lookup(z, &ids[m], ip - maps[m].start + maps[m].pgoff);
			const char *ours = r->frames[0].name;
			if (ours && strstr(ours, "@plt")) {
				plt++;  /* perf 6.1: "@plt" or the _init that precedes .plt */
				break;
			}
			if (!strcmp(sym, "[unknown]") && !ours)
				break;
			if (!strcmp(sym, "_init") && !ours) {
				/* PLT0, the lazy binder's entry at the head of .plt:
				 * no stub to name, and perf 6.1 stretches _init over
				 * it as over the stubs (ours names _init itself) */
				plt++;
				break;
			}
			if (!ours || strcmp(ours, sym)) {
				bad++;
				fprintf(stderr, "perf %s, ours %s at %s+%#llx\n", sym, ours ? ours : "(null)",
					maps[m].path, ip - maps[m].start + maps[m].pgoff);
			}
			matched++;
			break;
		}
	}
	free(o);
	fprintf(stderr, "perf script: %zu samples compared, %zu differ, %zu in PLT stubs\n", matched,
		bad, plt);
	ck_assert_uint_ge(matched, 20);
	ck_assert_uint_eq(bad, 0);
	pd_symbolizer_free(z);
}
END_TEST

static uint64_t f1_off(const char *bin)
{
	uint64_t a, sz;
	ck_assert(nm_find(bin, "f1", &a, &sz));
	segs sg = load_segs(bin);
	return to_off(&sg, a);
}

START_TEST(test_buildid_cache)
{
	if (!g_cc)
		PD_SKIP("no cc");
	char bin[4096];
	path_in(bin, sizeof bin, "inl");
	pd_dso_id d = dso_of(bin, "/nonexistent/app/prog");
	char hex[41];
	hex_of(d.build_id, d.build_id_size, hex);
	uint64_t off = f1_off(bin);

	/* modern perf: .build-id/xx/rest -> ../../<path>/<bid>/{elf,debug} */
	ck_assert(ok("cd %s && mkdir -p cache/nonexistent/app/prog/%s cache/.build-id/%.2s && "
		     "cp inl cache/nonexistent/app/prog/%s/elf && "
		     "ln -s ../../nonexistent/app/prog/%s cache/.build-id/%.2s/%s",
		     g_dir, hex, hex, hex, hex, hex, hex + 2));
	char cache[4096];
	path_in(cache, sizeof cache, "cache");
	pd_symbolizer_config cfg = { .buildid_dir = cache, .inline_frames = true };
	pd_symbolizer *z = new_zc(&cfg);
	const pd_symres *r = pd_symbolizer_lookup(z, &d, off);
	ck_assert_str_eq(r->frames[r->nframes - 1].name, "f1");
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	pd_symbolizer_free(z);

	/* the same through $PERF_BUILDID_DIR */
	setenv("PERF_BUILDID_DIR", cache, 1);
	pd_symbolizer_config cfg_env = { .inline_frames = true };
	z = new_zc(&cfg_env);
	ck_assert_str_eq(name_at(z, &d, off), "f1");
	pd_symbolizer_free(z);
	unsetenv("PERF_BUILDID_DIR");

	/* old perf: the link is the file itself */
	ck_assert(ok("cd %s && mkdir -p cache2/.build-id/%.2s && cp inl cache2/.build-id/%.2s/%s",
		     g_dir, hex, hex, hex + 2));
	path_in(cache, sizeof cache, "cache2");
	cfg.buildid_dir = cache;
	z = new_zc(&cfg);
	ck_assert_str_eq(name_at(z, &d, off), "f1");
	pd_symbolizer_free(z);

	/* stripped elf + separate debug in the cache: inline chain from `debug` */
	ck_assert(ok("cd %s && mkdir -p cache3/x/%s cache3/.build-id/%.2s && "
		     "objcopy --only-keep-debug inl cache3/x/%s/debug && "
		     "strip -o cache3/x/%s/elf inl && ln -s ../../x/%s cache3/.build-id/%.2s/%s",
		     g_dir, hex, hex, hex, hex, hex, hex, hex + 2));
	path_in(cache, sizeof cache, "cache3");
	cfg.buildid_dir = cache;
	cfg.srcline = true;
	z = new_zc(&cfg);
	uint64_t a, sz;
	ck_assert(nm_find(bin, "f1", &a, &sz));
	segs sg = load_segs(bin);
	size_t deepest = 0;
	for (uint64_t k = 0; k < sz; k++) {
		r = pd_symbolizer_lookup(z, &d, to_off(&sg, a + k));
		ck_assert_str_eq(r->frames[r->nframes - 1].name, "f1");
		ck_assert_ptr_nonnull(r->frames[r->nframes - 1].srcfile);
		if (r->nframes > deepest)
			deepest = r->nframes;
	}
	ck_assert_uint_eq(deepest, 3);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	pd_symbolizer_free(z);
}
END_TEST

START_TEST(test_symfs)
{
	if (!g_cc)
		PD_SKIP("no cc");
	char bin[4096], root[4096];
	path_in(bin, sizeof bin, "inl");
	path_in(root, sizeof root, "root");
	ck_assert(ok("mkdir -p %s/opt/app && cp %s %s/opt/app/prog", root, bin, root));
	pd_dso_id d = dso_of(bin, "/opt/app/prog");
	pd_symbolizer_config cfg = { .symfs = root, .buildid_dir = "/nonexistent" };
	pd_symbolizer *z = new_zc(&cfg);
	ck_assert_str_eq(name_at(z, &d, f1_off(bin)), "f1");
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	/* the kernel's " (deleted)" suffix on a replaced file's mapping */
	pd_dso_id del = d;
	del.name = "/opt/app/prog (deleted)";
	pd_symbolizer *z2 = new_zc(&cfg);  /* d would share its state by build-id */
	ck_assert_str_eq(name_at(z2, &del, f1_off(bin)), "f1");
	ck_assert_uint_eq(pd_symbolizer_warning_count(z2), 0);
	pd_symbolizer_free(z2);
	pd_dso_id del_noid = del;
	del_noid.build_id_size = 0;
	ck_assert_str_eq(name_at(z, &del_noid, f1_off(bin)), "f1");
	ck_assert_uint_eq(count_warnings(z, "unverified"), 1);
	pd_symbolizer_free(z);
	cfg.symfs = NULL;
	z = new_zc(&cfg);
	/* without the symfs the path does not exist */
	ck_assert_ptr_null(name_at(z, &d, f1_off(bin)));
	ck_assert_uint_eq(count_warnings(z, "/opt/app/prog"), 1);
	pd_symbolizer_free(z);
}
END_TEST

START_TEST(test_buildid_mismatch)
{
	if (!g_cc)
		PD_SKIP("no cc");
	/* record the build of VARIANT=0, then "rebuild" the path as VARIANT=1 */
	char bin[4096], v1[4096], moved[4096];
	path_in(bin, sizeof bin, "inl");
	path_in(v1, sizeof v1, "inl_v1");
	path_in(moved, sizeof moved, "rebuilt");
	pd_dso_id d = dso_of(bin, NULL);
	uint8_t id1[20];
	ck_assert_uint_eq(build_id_of(v1, id1), 20);
	ck_assert(memcmp(id1, d.build_id, 20) != 0);
	ck_assert(ok("cp %s %s", v1, moved));
	d.name = moved;
	pd_symbolizer_config cfg = { .buildid_dir = "/nonexistent", .inline_frames = true };
	pd_symbolizer *z = new_zc(&cfg);
	const pd_symres *r = pd_symbolizer_lookup(z, &d, f1_off(bin));
	ck_assert_uint_eq(r->nframes, 1);
	ck_assert_ptr_null(r->frames[0].name);
	ck_assert_ptr_null(pd_symbolizer_lookup(z, &d, f1_off(bin) + 1)->frames[0].name);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 1);
	char h0[41], h1[41];
	hex_of(d.build_id, 20, h0);
	hex_of(id1, 20, h1);
	const char *w = pd_symbolizer_warning(z, 0);
	ck_assert_msg(strstr(w, "build-id mismatch") && strstr(w, h0) && strstr(w, h1) &&
		      strstr(w, moved) && strstr(w, "[unknown]"), "warning: %s", w);
	fprintf(stderr, "mismatch warning: %s\n", w);
	pd_symbolizer_free(z);
}
END_TEST

START_TEST(test_missing_and_special)
{
	pd_dso_id d;
	memset(&d, 0, sizeof d);
	d.name = "/nonexistent/libgone.so";
	d.build_id_size = 20;
	memset(d.build_id, 0xab, 20);
	pd_symbolizer_config cfg = { .buildid_dir = "/nonexistent", .inline_frames = true,
				     .srcline = true };
	pd_symbolizer *z = new_zc(&cfg);
	for (uint64_t off = 0x1000; off < 0x1010; off++) {
		const pd_symres *r = pd_symbolizer_lookup(z, &d, off);
		ck_assert_uint_eq(r->nframes, 1);
		ck_assert_ptr_null(r->frames[0].name);
		ck_assert_uint_eq(r->addr, off);
	}
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 1);
	ck_assert_ptr_nonnull(strstr(pd_symbolizer_warning(z, 0), "libgone.so"));
	ck_assert_ptr_nonnull(strstr(pd_symbolizer_warning(z, 0), "abababab"));
	static const char *const special[] = { "//anon", "[heap]", "[stack]", "[vsyscall]" };
	for (int i = 0; i < 4; i++) {
		pd_dso_id s;
		memset(&s, 0, sizeof s);
		s.name = special[i];
		ck_assert_ptr_null(pd_symbolizer_lookup(z, &s, 0x10)->frames[0].name);
	}
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 1);
	/* not an ELF file at the recorded path, no build-id to check */
	char junk[4096];
	if (g_dir) {
		path_in(junk, sizeof junk, "junk.so");
		ck_assert(pd_test_write_file(junk, "not an elf file\n", 16));
		pd_dso_id j;
		memset(&j, 0, sizeof j);
		j.name = junk;
		ck_assert_ptr_null(pd_symbolizer_lookup(z, &j, 0)->frames[0].name);
		ck_assert_uint_eq(pd_symbolizer_warning_count(z), 3);  /* unverified + unreadable */
	}
	ck_assert_ptr_null(pd_symbolizer_lookup(z, NULL, 0)->frames[0].name);
	ck_assert_ptr_null(pd_symbolizer_lookup(NULL, &d, 0)->frames[0].name);
	pd_symbolizer_free(z);
}
END_TEST

START_TEST(test_no_buildid)
{
	if (!g_cc)
		PD_SKIP("no cc");
	char bin[4096];
	path_in(bin, sizeof bin, "inl_noid");
	pd_dso_id d = dso_of(bin, NULL);
	ck_assert_uint_eq(d.build_id_size, 0);
	pd_symbolizer *z = new_z(true, true, true);
	ck_assert_str_eq(name_at(z, &d, f1_off(bin)), "f1");
	ck_assert_str_eq(name_at(z, &d, f1_off(bin) + 2), "f1");
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 1);
	ck_assert_ptr_nonnull(strstr(pd_symbolizer_warning(z, 0), "unverified"));
	pd_symbolizer_free(z);
}
END_TEST

/* Section file offset and size from binutils readelf -SW. */
static bool section_of(const char *bin, const char *sec, uint64_t *off, uint64_t *size)
{
	char *o = shell(NULL, "readelf -SW '%s'", bin);
	bool found = false;
	for (char *save = NULL, *l = o ? strtok_r(o, "\n", &save) : NULL; l && !found;
	     l = strtok_r(NULL, "\n", &save)) {
		char *b = strchr(l, ']');
		char name[64], type[64];
		unsigned long long addr, of, sz;
		if (b && sscanf(b + 1, "%63s %63s %llx %llx %llx", name, type, &addr, &of, &sz) == 5 &&
		    !strcmp(name, sec)) {
			*off = of;
			*size = sz;
			found = true;
		}
	}
	free(o);
	return found;
}

START_TEST(test_corrupt_dwarf)
{
	if (!g_cc)
		PD_SKIP("no cc");
	char bin[4096];
	path_in(bin, sizeof bin, "inl");
	size_t len;
	uint8_t *img = pd_test_read_file(bin, &len);
	ck_assert_ptr_nonnull(img);
	static const char *const secs[] = { ".debug_info", ".debug_abbrev", ".debug_line",
					    ".debug_info", ".debug_info", ".debug_rnglists" };
	uint64_t a, sz;
	ck_assert(nm_find(bin, "f1", &a, &sz));
	segs sg = load_segs(bin);
	for (int v = 0; v < 6; v++) {
		uint64_t so, ss;
		if (!section_of(bin, secs[v], &so, &ss))
			continue;
		ck_assert(so + ss <= len);
		uint8_t *bad = malloc(len);
		memcpy(bad, img, len);
		uint32_t x = 0x12345678u + (uint32_t)v;
		for (uint64_t i = 0; i < ss; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			if (v == 3)
				bad[so + i] = 0xff;                       /* all ones */
			else if (v == 4)
				bad[so + i] = i < 4 ? 0xf0 : bad[so + i]; /* huge CU length */
			else if (i % 3 == 0)
				bad[so + i] = (uint8_t)x;                 /* scattered garbage */
		}
		char p[4096];
		snprintf(p, sizeof p, "%s/corrupt%d", g_dir, v);
		ck_assert(pd_test_write_file(p, bad, len));
		free(bad);
		pd_dso_id d = dso_of(p, NULL);
		pd_symbolizer *z = new_z(true, true, true);
		for (uint64_t k = 0; k < sz; k++) {
			const pd_symres *r = pd_symbolizer_lookup(z, &d, to_off(&sg, a + k));
			ck_assert_uint_ge(r->nframes, 1);
			ck_assert_str_eq(r->frames[r->nframes - 1].name, "f1");
		}
		pd_symbolizer_free(z);
	}
	free(img);
}
END_TEST

static bool dump_vdso(const char *path)
{
	unsigned long base_addr = getauxval(AT_SYSINFO_EHDR);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long long lo = 0, hi = 0;
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "[vdso]")) {
			sscanf(line, "%llx-%llx", &lo, &hi);
			break;
		}
	if (f)
		fclose(f);
	return base_addr && lo == base_addr && pd_test_write_file(path, (void *)(uintptr_t)lo, hi - lo);
}

START_TEST(test_vdso)
{
	if (!g_dir)
		PD_SKIP("no tmpdir");
	char img[4096];
	path_in(img, sizeof img, "vdso.so");
	if (!dump_vdso(img))
		PD_SKIP("no vdso");
	pd_dso_id d = dso_of(img, "[vdso]");
	if (!d.build_id_size)
		PD_SKIP("vdso without build-id");
	uint64_t a, sz;
	nsym *s = calloc(256, sizeof *s);
	size_t n = nm_syms(img, "-D", s, 256);
	segs sg = load_segs(img);
	pd_symbolizer_config cfg = { .buildid_dir = "/nonexistent" };
	pd_symbolizer *z = new_zc(&cfg);
	size_t checked = 0;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(s[i].name, "__vdso_", 7) || s[i].size == 0)
			continue;
		a = s[i].addr;
		sz = s[i].size;
		char want[256];
		snprintf(want, sizeof want, "%.*s", (int)strcspn(s[i].name, "@"), s[i].name);
		ck_assert_str_eq(name_at(z, &d, to_off(&sg, a + sz / 2)), want);
		checked++;
	}
	ck_assert_uint_ge(checked, 2);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	/* another kernel's vdso: not this one */
	d.build_id[0] ^= 1;
	ck_assert_ptr_null(pd_symbolizer_lookup(z, &d, 0x100)->frames[0].name);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 1);
	free(s);
	pd_symbolizer_free(z);
}
END_TEST

static size_t parse_hex_id(const char *h, uint8_t *out)
{
	size_t n = 0;
	unsigned v;
	while (n < 20 && sscanf(h + 2 * n, "%2x", &v) == 1)
		out[n++] = (uint8_t)v;
	return n;
}

START_TEST(test_kernel_live)
{
	if (!pd_test_have_perf())
		PD_SKIP("no perf (needed for the running kernel's build-id)");
	char *o = shell(NULL, "perf buildid-list -k 2>/dev/null");
	uint8_t bid[20];
	size_t bn = o ? parse_hex_id(o, bid) : 0;
	free(o);
	if (bn != 20)
		PD_SKIP("no kernel build-id from perf");
	size_t len;
	uint8_t *ks = pd_test_read_file("/proc/kallsyms", &len);
	if (!ks)
		PD_SKIP("no /proc/kallsyms");
	/* Independent parse: core-kernel 'T' symbols with a unique address and
	 * a next symbol at least 2 bytes away. */
	typedef struct { uint64_t a; char name[128]; char t; bool mod; } ksym;
	size_t cap = 400000, n = 0;
	ksym *k = calloc(cap, sizeof *k);
	uint64_t text = 0, etext = 0;
	char *save = NULL;
	ks = realloc(ks, len + 1);
	ks[len] = '\0';
	for (char *l = strtok_r((char *)ks, "\n", &save); l && n < cap; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char t, name[128];
		if (sscanf(l, "%llx %c %127s", &a, &t, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = a;
		if (!strcmp(name, "_etext"))
			etext = a;
		k[n].a = a;
		k[n].t = t;
		k[n].mod = strchr(l, '[') != NULL;
		snprintf(k[n].name, sizeof k[n].name, "%s", name);
		n++;
	}
	free(ks);
	if (!text)
		PD_SKIP("kallsyms addresses hidden");
	pd_map kmap = { .start = text, .end = etext ? etext : text + (1u << 26), .pgoff = text };
	pd_symbolizer_config cfg = { .buildid_dir = "/nonexistent" };
	pd_symbolizer *z = new_zc(&cfg);
	size_t checked = 0;
	for (size_t i = 1; i + 1 < n && checked < 2000; i += 7) {
		if (k[i].t != 'T' || k[i].mod || k[i - 1].a == k[i].a || k[i + 1].a <= k[i].a + 1 ||
		    !strncmp(k[i].name, "__pfx_", 6) || !strncmp(k[i].name, "__cfi_", 6))
			continue;
		const pd_symres *r = pd_symbolizer_kernel(z, &kmap, bid, 20, k[i].a + 1);
		ck_assert_msg(r->frames[0].name && !strcmp(r->frames[0].name, k[i].name),
			      "%#llx: kallsyms %s ours %s", (unsigned long long)k[i].a, k[i].name,
			      r->frames[0].name ? r->frames[0].name : "(null)");
		ck_assert_uint_eq(r->sym_start, k[i].a);
		ck_assert_ptr_eq(r, pd_symbolizer_kernel(z, &kmap, bid, 20, k[i].a + 1));
		checked++;
	}
	ck_assert_uint_ge(checked, 100);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	fprintf(stderr, "kernel: %zu kallsyms names identical\n", checked);

	/* a recording of another kernel: refused, one warning */
	uint8_t other[20];
	memcpy(other, bid, 20);
	other[19] ^= 0x55;
	ck_assert_ptr_null(pd_symbolizer_kernel(z, &kmap, other, 20, text + 0x10)->frames[0].name);
	ck_assert_ptr_null(pd_symbolizer_kernel(z, &kmap, other, 20, text + 0x20)->frames[0].name);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 1);
	ck_assert_ptr_nonnull(strstr(pd_symbolizer_warning(z, 0), "no kallsyms for build-id"));
	/* no kernel build-id in the recording: /proc/kallsyms, unverified */
	ck_assert_ptr_nonnull(pd_symbolizer_kernel(z, &kmap, NULL, 0, text + 0x10)->frames[0].name);
	ck_assert_uint_eq(count_warnings(z, "unverified"), 1);
	free(k);
	pd_symbolizer_free(z);
}
END_TEST

START_TEST(test_kernel_files)
{
	if (!g_dir)
		PD_SKIP("no tmpdir");
	/* explicit kallsyms of a boot where _text was at 0xffffffff81000000;
	 * the recording's kernel map says _text is at 0xffffffff9a200000 */
	static const char ks[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff81001000 T do_work\n"
		"ffffffff81001000 T __do_work\n"
		"ffffffff81001100 t helper\n"
		"ffffffff81002000 T _etext\n"
		"ffffffffc0001000 t mod_fn\t[mymod]\n"
		"ffffffffc0002000 t mod_end\t[mymod]\n";
	char p[4096];
	path_in(p, sizeof p, "kallsyms.txt");
	ck_assert(pd_test_write_file(p, ks, sizeof ks - 1));
	uint64_t slide = 0x19200000;
	pd_map kmap = { .start = 0xffffffff81000000 + slide, .end = 0xffffffff81002000 + slide,
			.pgoff = 0xffffffff81000000 + slide };
	pd_symbolizer_config cfg = { .kallsyms = p, .buildid_dir = "/nonexistent" };
	pd_symbolizer *z = new_zc(&cfg);
	uint8_t bid[20] = { 1, 2, 3 };
	/* perf 6.1 names an address by its last kallsyms alias (only that one
	 * gets a size before duplicates are dropped) */
	const pd_symres *r = pd_symbolizer_kernel(z, &kmap, bid, 20, 0xffffffff81001010 + slide);
	ck_assert_str_eq(r->frames[0].name, "__do_work");
	ck_assert_uint_eq(r->sym_start, 0xffffffff81001000 + slide);
	ck_assert_uint_eq(r->addr, 0xffffffff81001010 + slide);
	r = pd_symbolizer_kernel(z, &kmap, bid, 20, 0xffffffff81001180 + slide);
	ck_assert_str_eq(r->frames[0].name, "helper");
	/* modules are not moved by the core kernel's slide */
	r = pd_symbolizer_kernel(z, &kmap, bid, 20, 0xffffffffc0001010);
	ck_assert_str_eq(r->frames[0].name, "mod_fn");
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	pd_symbolizer_free(z);

	/* perf's cached copy, found by build-id */
	char hex[41];
	hex_of(bid, 20, hex);
	ck_assert(ok("mkdir -p '%s/kc/[kernel.kallsyms]/%s' && cp %s '%s/kc/[kernel.kallsyms]/%s/kallsyms'",
		     g_dir, hex, p, g_dir, hex));
	char kc[4096];
	path_in(kc, sizeof kc, "kc");
	pd_symbolizer_config cfg2 = { .buildid_dir = kc };
	z = new_zc(&cfg2);
	r = pd_symbolizer_kernel(z, &kmap, bid, 20, 0xffffffff81001180 + slide);
	ck_assert_str_eq(r->frames[0].name, "helper");
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	pd_symbolizer_free(z);

	/* kptr_restrict: every address 0 → unnamed, one warning */
	static const char zero[] = "0000000000000000 T _text\n0000000000000000 T do_work\n"
				   "0000000000000000 t helper\n";
	ck_assert(pd_test_write_file(p, zero, sizeof zero - 1));
	z = new_zc(&cfg);
	ck_assert_ptr_null(pd_symbolizer_kernel(z, &kmap, bid, 20, kmap.start + 0x10)->frames[0].name);
	ck_assert_ptr_null(pd_symbolizer_kernel(z, &kmap, bid, 20, kmap.start + 0x20)->frames[0].name);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 1);
	ck_assert_ptr_nonnull(strstr(pd_symbolizer_warning(z, 0), "kptr_restrict"));
	pd_symbolizer_free(z);
}
END_TEST

START_TEST(test_jit)
{
	if (!g_dir)
		PD_SKIP("no tmpdir");
	static const char map[] = "7f0000001000 100 LazyCompile:~foo file.js:1\n"
				  "7f0000001100 80 _ZN3jit4stubEv\n"
				  "garbage line\n";
	char p[4096];
	path_in(p, sizeof p, "perf-4242.map");
	ck_assert(pd_test_write_file(p, map, sizeof map - 1));
	pd_symbolizer_config cfg = { .jit_dir = g_dir, .demangle = true };
	pd_symbolizer *z = new_zc(&cfg);
	const pd_symres *r = pd_symbolizer_jit(z, 4242, 0x7f0000001010);
	ck_assert_str_eq(r->frames[0].name, "LazyCompile:~foo file.js:1");
	ck_assert_uint_eq(r->sym_start, 0x7f0000001000);
	ck_assert_ptr_eq(r, pd_symbolizer_jit(z, 4242, 0x7f0000001010));
	r = pd_symbolizer_jit(z, 4242, 0x7f0000001104);
	ck_assert_str_eq(r->frames[0].name, "jit::stub()");
	ck_assert_str_eq(r->frames[0].raw, "_ZN3jit4stubEv");
	ck_assert_ptr_null(pd_symbolizer_jit(z, 4242, 0x7f0000001180)->frames[0].name);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	ck_assert_ptr_null(pd_symbolizer_jit(z, 4243, 0x7f0000001010)->frames[0].name);
	ck_assert_ptr_null(pd_symbolizer_jit(z, 4243, 0x7f0000001020)->frames[0].name);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 1);
	ck_assert_ptr_nonnull(strstr(pd_symbolizer_warning(z, 0), "perf-4243.map"));
	pd_symbolizer_free(z);
}
END_TEST

START_TEST(test_options_and_cache)
{
	if (!g_cc)
		PD_SKIP("no cc");
	char bin[4096];
	path_in(bin, sizeof bin, "inl");
	pd_dso_id d = dso_of(bin, NULL);
	segs sg = load_segs(bin);
	uint64_t addrs[1024];
	size_t n = function_bytes(bin, addrs, 1024);
	pd_symbolizer *full = new_z(true, true, true);
	pd_symbolizer *noinl = new_z(false, true, true);
	pd_symbolizer *plain = new_z(false, false, true);
	pd_symbolizer *inl_only = new_z(true, false, true);
	size_t inlined = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t off = to_off(&sg, addrs[i]);
		const pd_symres *f = pd_symbolizer_lookup(full, &d, off);
		const pd_symres *a = pd_symbolizer_lookup(noinl, &d, off);
		const pd_symres *b = pd_symbolizer_lookup(plain, &d, off);
		const pd_symres *c = pd_symbolizer_lookup(inl_only, &d, off);
		ck_assert_uint_eq(a->nframes, 1);
		ck_assert_uint_eq(b->nframes, 1);
		ck_assert_uint_eq(c->nframes, f->nframes);
		ck_assert_str_eq(a->frames[0].name, f->frames[f->nframes - 1].name);
		/* srcline without inline frames: the address's own line, which
		 * is the innermost frame's line with them */
		ck_assert_str_eq(a->frames[0].srcfile, f->frames[0].srcfile);
		ck_assert_uint_eq(a->frames[0].line, f->frames[0].line);
		ck_assert_ptr_null(b->frames[0].srcfile);
		/* inline frames always carry lines; the function only with srcline */
		ck_assert_ptr_null(c->frames[c->nframes - 1].srcfile);
		for (size_t k = 0; k + 1 < c->nframes; k++) {
			ck_assert_str_eq(c->frames[k].srcfile, f->frames[k].srcfile);
			ck_assert_uint_eq(c->frames[k].line, f->frames[k].line);
		}
		inlined += f->nframes > 1;
		/* cached: same result object; shared across dso ids of one build */
		ck_assert_ptr_eq(f, pd_symbolizer_lookup(full, &d, off));
		pd_dso_id other = d;
		other.name = "/elsewhere/copy-of-inl";
		ck_assert_ptr_eq(f, pd_symbolizer_lookup(full, &other, off));
	}
	ck_assert_uint_gt(inlined, 0);
	/* offsets outside every PT_LOAD */
	ck_assert_ptr_null(pd_symbolizer_lookup(full, &d, 1u << 30)->frames[0].name);
	pd_symbolizer_free(full);
	pd_symbolizer_free(noinl);
	pd_symbolizer_free(plain);
	pd_symbolizer_free(inl_only);
}
END_TEST

/* With DEBUGINFOD_URLS unset the debuginfod client (and libcurl) must
 * not even be loaded: libdw 0.188's standard search would load it. */
START_TEST(test_no_debuginfod)
{
	if (!g_cc)
		PD_SKIP("no cc");
	unsetenv("DEBUGINFOD_URLS");
	char bin[4096];
	path_in(bin, sizeof bin, "stripped");
	char src[4096];
	ck_assert(ok("strip -o %s %s", bin, path_in(src, sizeof src, "plt")));
	pd_dso_id d = dso_of(bin, NULL);
	segs sg = load_segs(bin);
	pd_symbolizer *z = new_z(true, true, true);
	for (uint64_t off = 0; off < sg.filesz[1]; off += 4)
		pd_symbolizer_lookup(z, &d, to_off(&sg, sg.vaddr[1] + off));
	size_t len;
	uint8_t *maps = pd_test_read_file("/proc/self/maps", &len);
	ck_assert_ptr_nonnull(maps);
	maps = realloc(maps, len + 1);
	maps[len] = '\0';
	ck_assert_ptr_null(strstr((char *)maps, "libdebuginfod"));
	ck_assert_ptr_null(strstr((char *)maps, "libcurl"));
	free(maps);
	pd_symbolizer_free(z);
}
END_TEST

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

START_TEST(test_timing)
{
	char libc[4096];
	if (!libc_path(libc, sizeof libc))
		PD_SKIP("no libc");
	pd_dso_id d = dso_of(libc, NULL);
	segs sg = load_segs(libc);
	int text = -1;
	for (int i = 0; i < sg.n; i++)
		if (sg.off[i] != 0 && text < 0)
			text = i;
	ck_assert_int_ge(text, 0);
	enum { N = 20000 };
	static const struct { bool inl, src; const char *what; } modes[] = {
		{ false, false, "symbols" }, { true, true, "symbols+inline+lines" } };
	for (int m = 0; m < 2; m++) {
		pd_symbolizer *z = new_z(modes[m].inl, modes[m].src, true);
		double t0 = now_us();
		pd_symbolizer_lookup(z, &d, sg.off[text]);
		double t1 = now_us();
		size_t named = 0;
		for (int i = 0; i < N; i++)
			named += pd_symbolizer_lookup(z, &d, sg.off[text] + (uint64_t)i * (sg.filesz[text] / N))
					 ->frames[0].name != NULL;
		double t2 = now_us();
		for (int r = 0; r < 5; r++)
			for (int i = 0; i < N; i++)
				pd_symbolizer_lookup(z, &d, sg.off[text] + (uint64_t)i * (sg.filesz[text] / N));
		double t3 = now_us();
		fprintf(stderr,
			"timing libc (%s): first lookup (load) %.1f ms; %d distinct addresses %.2f us each "
			"(%zu named); cached %.3f us each\n",
			modes[m].what, (t1 - t0) / 1e3, N, (t2 - t1) / N, named, (t3 - t2) / (5.0 * N));
		ck_assert_uint_gt(named, N / 2);
		pd_symbolizer_free(z);
	}
}
END_TEST

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The per-CU subprogram index against dwarf_getscopes (the reference) on
 * every 8th byte of libc's text (with libc6-dbg) and of the test programs. */
START_TEST(test_dwarf_index_vs_getscopes)
{
	char libc[4096], p[4][4096];
	const char *files[5];
	size_t nf = 0;
	if (libc_path(libc, sizeof libc))
		files[nf++] = libc;
	if (g_cc)
		files[nf++] = path_in(p[0], sizeof p[0], "inl");
	if (g_cxx)
		files[nf++] = path_in(p[1], sizeof p[1], "cxx");
	if (g_clang)
		files[nf++] = path_in(p[2], sizeof p[2], "inll");
	if (g_rust)
		files[nf++] = path_in(p[3], sizeof p[3], "rl");
	static const Dwfl_Callbacks cb = {
		.find_debuginfo = dwfl_build_id_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	for (size_t f = 0; f < nf; f++) {
		Dwfl *dwfl = dwfl_begin(&cb);
		ck_assert_ptr_nonnull(dwfl);
		dwfl_report_begin(dwfl);
		Dwfl_Module *mod = dwfl_report_elf(dwfl, "m", files[f], -1, 0, false);
		ck_assert_ptr_nonnull(mod);
		ck_assert_int_eq(dwfl_report_end(dwfl, NULL, NULL), 0);
		segs sg = load_segs(files[f]);
		int text = -1;
		for (int i = 0; i < sg.n && text < 0; i++)
			if (sg.off[i] != 0)
				text = i;
		ck_assert_int_ge(text, 0);
		pd_dwarf_cache *c = pd_dwarf_cache_new();
		size_t n = 0, with_inline = 0, bad = 0, ref_blind = 0;
		double t_idx = 0, t_ref = 0;
		/* ~20000 addresses, fewer when the reference is slow (rustc's
		 * CUs: ~1 ms per getscopes) */
		uint64_t step = sg.filesz[text] / 20000 > 8 ? sg.filesz[text] / 20000 : 8;
		for (uint64_t a = sg.vaddr[text]; a < sg.vaddr[text] + sg.filesz[text] && t_ref < 3e6;
		     a += step) {
			pd_dwarf_info x, y;
			double t0 = now_us();
			bool hx = pd_dwarf_lookup(mod, c, a, true, &x);
			double t1 = now_us();
			bool hy = pd_dwarf_lookup(mod, NULL, a, true, &y);
			t_ref += now_us() - t1;
			t_idx += t1 - t0;
			bool same = hx == hy && x.ninline == y.ninline && same_str(x.func_raw, y.func_raw) &&
				    same_str(x.func_file, y.func_file) && x.func_line == y.func_line &&
				    x.func_low == y.func_low;
			for (size_t k = 0; same && k < x.ninline; k++)
				same = same_str(x.inl[k].raw, y.inl[k].raw) &&
				       same_str(x.inl[k].file, y.inl[k].file) && x.inl[k].line == y.inl[k].line;
			/* libdw's dwarf_getscopes finds no scope in rustc's CUs;
			 * the index does (checked against llvm-symbolizer) */
			with_inline += x.ninline > 0;
			n++;
			if (!same && hx && x.func_raw && !y.func_raw && y.ninline == 0) {
				ref_blind++;
				continue;
			}
			if (!same && bad++ < 5)
				fprintf(stderr, "%s %#llx: index %zu frames (%s), getscopes %zu (%s)\n",
					files[f], (unsigned long long)a, x.ninline,
					x.func_raw ? x.func_raw : "-", y.ninline, y.func_raw ? y.func_raw : "-");
		}
		fprintf(stderr,
			"dwarf index %s: %zu addresses (%zu inside inline code), %zu differ, %zu found "
			"only by the index; index %.2f us, getscopes %.2f us per address\n",
			base(files[f]), n, with_inline, bad, ref_blind, t_idx / (double)n,
			t_ref / (double)n);
		ck_assert_uint_eq(bad, 0);
		pd_dwarf_cache_free(c);
		dwfl_end(dwfl);
	}
}
END_TEST

/* dwz: DWARF shared by two programs moves to a common file named by
 * .gnu_debugaltlink (here a path that does not exist, so only a build-id
 * lookup inside the symfs finds it).  libdwfl asks for that file through
 * the same callback as for separate debuginfo, which must not answer with
 * the module's own debug file.  Oracle: eu-addr2line on the binary as it
 * was before dwz. */
START_TEST(test_dwz_altlink)
{
	if (!g_cc || !have("dwz") || !g_eu)
		PD_SKIP("no dwz or eu-addr2line");
	ck_assert(ok("cd %s && mkdir -p dwz && cp inl dwz/a && cp inl dwz/orig && cp inl_v1 dwz/b && "
		     "cd dwz && dwz -m common.debug -M /nonexistent/common.debug a b",
		     g_dir));
	char a[4096], orig[4096], root[4096], common[4096];
	path_in(a, sizeof a, "dwz/a");
	path_in(orig, sizeof orig, "dwz/orig");
	path_in(root, sizeof root, "dwz/root");
	path_in(common, sizeof common, "dwz/common.debug");
	char *sec = shell(NULL, "readelf -SW '%s'", a);
	bool has_alt = sec && strstr(sec, ".gnu_debugaltlink");
	free(sec);
	if (!has_alt)
		PD_SKIP("dwz made no common file");
	pd_dso_id d = dso_of(a, "/opt/a");
	pd_dso_id c = dso_of(common, NULL);
	ck_assert_uint_eq(c.build_id_size, 20);
	char hex[41], chex[41];
	hex_of(d.build_id, d.build_id_size, hex);
	hex_of(c.build_id, c.build_id_size, chex);
	ck_assert(ok("cd %s && D=root/usr/lib/debug/.build-id && mkdir -p root/opt $D/%.2s $D/%.2s && "
		     "cp a root/opt/a && objcopy --only-keep-debug a $D/%.2s/%s.debug && "
		     "cp common.debug $D/%.2s/%s.debug",
		     path_in(common, sizeof common, "dwz"), hex, chex, hex, hex + 2, chex, chex + 2));
	pd_symbolizer_config cfg = { .symfs = root, .buildid_dir = "/nonexistent",
				     .inline_frames = true, .srcline = true, .demangle = true };
	pd_symbolizer *z = new_zc(&cfg);
	segs sg = load_segs(a);
	uint64_t addrs[1024];
	size_t n = function_bytes(a, addrs, 1024);
	ck_assert_int_eq(compare_chains(z, &d, &sg, addrs, n, "eu-addr2line -a -f -i -e '%s'", orig,
					"eu-addr2line dwz", false), 0);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), 0);
	pd_symbolizer_free(z);
}
END_TEST

static size_t open_fds(void)
{
	char *o = shell(NULL, "ls /proc/%d/fd | wc -l", (int)getpid());
	size_t n = o ? strtoul(o, NULL, 10) : 0;
	free(o);
	return n;
}

/* More dsos than Dwfls kept open: the least recently used are closed and
 * reopened on demand; results stay valid and equal, descriptors bounded. */
START_TEST(test_many_dsos)
{
	if (!g_cc)
		PD_SKIP("no cc");
	enum { NCOPIES = 150 };
	ck_assert(ok("cd %s && mkdir -p many && for i in $(seq 1 %d); do cp inl many/c$i; done", g_dir,
		     NCOPIES));
	char bin[4096];
	path_in(bin, sizeof bin, "inl");
	pd_dso_id d = dso_of(bin, NULL);
	segs sg = load_segs(bin);
	uint64_t addrs[1024];
	size_t n = function_bytes(bin, addrs, 1024);
	ck_assert_uint_gt(n, 40);
	pd_symbolizer *ref = new_z(true, true, true);
	pd_symbolizer *z = new_z(true, true, true);
	size_t fds0 = open_fds();
	const pd_symres *first = pd_symbolizer_lookup(z, &d, to_off(&sg, addrs[0]));
	static char paths[NCOPIES][4096];
	pd_dso_id ids[NCOPIES];
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < NCOPIES; i++) {
			snprintf(paths[i], sizeof paths[i], "%s/many/c%d", g_dir, i + 1);
			memset(&ids[i], 0, sizeof ids[i]);
			ids[i].name = paths[i];
			ids[i].ino = (uint64_t)i + 1;
			/* a new address each round: the second round reopens */
			uint64_t a = addrs[(size_t)(i * 2 + round) % n];
			const pd_symres *r = pd_symbolizer_lookup(z, &ids[i], to_off(&sg, a));
			const pd_symres *w = pd_symbolizer_lookup(ref, &d, to_off(&sg, a));
			ck_assert_uint_eq(r->nframes, w->nframes);
			for (size_t k = 0; k < r->nframes; k++) {
				ck_assert_str_eq(r->frames[k].name, w->frames[k].name);
				ck_assert_str_eq(r->frames[k].srcfile, w->frames[k].srcfile);
				ck_assert_uint_eq(r->frames[k].line, w->frames[k].line);
			}
		}
	size_t fds1 = open_fds();
	fprintf(stderr, "many dsos: %d dsos, open descriptors %zu -> %zu\n", NCOPIES + 1, fds0, fds1);
	ck_assert_uint_lt(fds1, fds0 + 2 * 64 + 8);
	/* the first dso was closed long ago: an old result is intact, a new
	 * address reopens it (build-id checked again) */
	ck_assert_str_eq(first->frames[first->nframes - 1].name, "f1");
	ck_assert_ptr_nonnull(first->frames[first->nframes - 1].srcfile);
	for (size_t i = 1; i < n; i += 5) {
		const pd_symres *r = pd_symbolizer_lookup(z, &d, to_off(&sg, addrs[i]));
		const pd_symres *w = pd_symbolizer_lookup(ref, &d, to_off(&sg, addrs[i]));
		ck_assert_uint_eq(r->nframes, w->nframes);
		for (size_t k = 0; k < r->nframes; k++)
			ck_assert_str_eq(r->frames[k].srcfile, w->frames[k].srcfile);
	}
	ck_assert_uint_eq(count_warnings(z, "unverified"), NCOPIES);
	ck_assert_uint_eq(pd_symbolizer_warning_count(z), NCOPIES);
	pd_symbolizer_free(z);
	pd_symbolizer_free(ref);
}
END_TEST

/* pd_symbolizer_lookup_named() against pd_symbolizer_lookup() of a second
 * symbolizer: NULL exactly where the function frame has no name, else the
 * same result pointer as the symbolizer's own lookup.  More offsets than
 * the front keeps (symhash.c), asked in two orders, so that answers come
 * from the front, from the table behind it after an eviction, and new. */
START_TEST(test_lookup_named)
{
	if (!g_cc)
		PD_SKIP("no cc");
	char bin[4096];
	path_in(bin, sizeof bin, "inl");
	pd_dso_id d = dso_of(bin, NULL);
	pd_symbolizer *ref = new_z(true, true, true);
	pd_symbolizer *z = new_z(true, true, true);
	enum { NOFF = 3 * PD_SYMFRONT_SLOTS };
	size_t named = 0, unnamed = 0;
	for (int pass = 0; pass < 3; pass++)
		for (uint64_t i = 0; i < NOFF; i++) {
			/* ascending, then descending, then strided */
			uint64_t off = pass == 0 ? i : pass == 1 ? NOFF - 1 - i : (i * 7919) % NOFF;
			const pd_symres *w = pd_symbolizer_lookup(ref, &d, off);
			const char *want = w->frames[w->nframes - 1].name;
			const pd_symres *r = pd_symbolizer_lookup_named(z, &d, off);
			if (!want) {
				ck_assert_msg(!r, "offset %#llx: unnamed, yet a result",
					      (unsigned long long)off);
				unnamed += pass == 0;
				continue;
			}
			ck_assert_msg(r, "offset %#llx: %s, yet NULL", (unsigned long long)off, want);
			ck_assert_ptr_eq(r, pd_symbolizer_lookup(z, &d, off));
			ck_assert_uint_eq(r->nframes, w->nframes);
			ck_assert_str_eq(r->frames[r->nframes - 1].name, want);
			named += pass == 0;
		}
	fprintf(stderr, "lookup_named: %zu named, %zu unnamed offsets\n", named, unnamed);
	ck_assert_uint_gt(named, 100);
	ck_assert_uint_gt(unnamed, PD_SYMFRONT_SLOTS);
	ck_assert_ptr_null(pd_symbolizer_lookup_named(z, NULL, 0));
	ck_assert_ptr_null(pd_symbolizer_lookup_named(NULL, &d, 0));
	pd_symbolizer_free(z);
	pd_symbolizer_free(ref);
}
END_TEST

/* The ELF note walker behind the running kernel's build-id
 * (/sys/kernel/notes): found after other notes, refused when truncated. */
START_TEST(test_notes_parser)
{
	uint8_t buf[128];
	size_t n = 0;
	/* a "Xen" note of type 1, then the GNU build-id note (type 3) */
	uint32_t h1[3] = { 4, 6, 1 };
	memcpy(buf + n, h1, 12);
	n += 12;
	memcpy(buf + n, "Xen\0", 4);
	n += 4;
	memcpy(buf + n, "abcdef\0\0", 8);
	n += 8;
	uint32_t h2[3] = { 4, 20, 3 };
	memcpy(buf + n, h2, 12);
	n += 12;
	memcpy(buf + n, "GNU\0", 4);
	n += 4;
	for (int i = 0; i < 20; i++)
		buf[n + (size_t)i] = (uint8_t)(0xa0 + i);
	n += 20;
	uint8_t id[20];
	ck_assert_uint_eq(pd_notes_build_id(buf, n, id, sizeof id), 20);
	ck_assert_uint_eq(id[0], 0xa0);
	ck_assert_uint_eq(id[19], 0xb3);
	for (size_t cut = 0; cut < n; cut++)
		ck_assert_uint_eq(pd_notes_build_id(buf, cut, id, sizeof id), 0);
	/* a size field pointing far past the end */
	uint32_t bad[3] = { 0xfffffff0u, 20, 3 };
	memcpy(buf, bad, 12);
	ck_assert_uint_eq(pd_notes_build_id(buf, n, id, sizeof id), 0);
	/* and the live one agrees with perf */
	if (!pd_test_have_perf())
		return;
	char *o = shell(NULL, "perf buildid-list -k 2>/dev/null");
	uint8_t want[20];
	size_t wn = o ? parse_hex_id(o, want) : 0;
	free(o);
	if (wn == 20) {
		ck_assert_uint_eq(pd_running_kernel_build_id(id, sizeof id), 20);
		ck_assert_mem_eq(id, want, 20);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("symbolizer");
	TCase *tc = tcase_create("symbolizer");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_inline_chains_gcc);
	tcase_add_test(tc, test_inline_chains_clang_lld);
	tcase_add_test(tc, test_symbols_vs_nm);
	tcase_add_test(tc, test_cxx_demangle);
	tcase_add_test(tc, test_rust_demangle);
	tcase_add_test(tc, test_plt_vs_objdump);
	tcase_add_test(tc, test_vs_perf_script);
	tcase_add_test(tc, test_buildid_cache);
	tcase_add_test(tc, test_symfs);
	tcase_add_test(tc, test_buildid_mismatch);
	tcase_add_test(tc, test_missing_and_special);
	tcase_add_test(tc, test_no_buildid);
	tcase_add_test(tc, test_corrupt_dwarf);
	tcase_add_test(tc, test_vdso);
	tcase_add_test(tc, test_kernel_live);
	tcase_add_test(tc, test_kernel_files);
	tcase_add_test(tc, test_jit);
	tcase_add_test(tc, test_options_and_cache);
	tcase_add_test(tc, test_no_debuginfod);
	tcase_add_test(tc, test_timing);
	tcase_add_test(tc, test_dwarf_index_vs_getscopes);
	tcase_add_test(tc, test_dwz_altlink);
	tcase_add_test(tc, test_many_dsos);
	tcase_add_test(tc, test_lookup_named);
	tcase_add_test(tc, test_notes_parser);
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
