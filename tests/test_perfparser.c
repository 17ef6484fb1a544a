/*
 * Leaf symbols of perfparser's test recordings
 * (corpus: perfparser/tests/auto/perfdata) against the names perfparser
 * printed for them (*.expected.txt).
 *
 * The recordings are `--call-graph dwarf` runs of static binaries that ship
 * next to them (raw, or as *.zlib: a 4-byte big-endian length and a zlib
 * stream).  Unwinding is not implemented yet, so only the leaf (the sample
 * ip) is compared: the function that contains it, and the innermost inline
 * frame there.  The binaries are laid out under a temporary --symfs root at
 * the paths the MMAP records name; kallsyms is /dev/null, as perfparser's
 * test had it, so kernel leaves are unnamed on both sides.
 *
 * perfparser's text, per sample:
 *
 *   COMM\tPID\tTID\tSECS.NSECS
 *   \tEVENT: COST                 (and tracepoint fields)
 *   (blank)
 *   \tADDR RELADDR[\tFILE:LINE:COL]\tSYMSTART SYMSIZE[\tNAME BINARY PATH SUFFIX]
 *   ...
 *   (blank)
 *
 * A frame is its address line followed by the "parent" lines perfparser
 * links to it; the line that carries a symbol name gives the function's
 * start and size (checked to contain the leaf address) and SUFFIX
 * "(inlined)" marks an inline function, "[kernel]" the kernel.
 */
#include "testutil.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perfdiff/session.h"

#define PP_DIR "perfparser/tests/auto/perfdata"
#define PATHMAX 4200
#define MAX_UNZLIB (512u << 20)

/* --------------------------------------------------------------- zlib */

/*
 * zlib is loaded at run time: the test build does not link it, and every
 * system with libelf has it (libelf inflates compressed sections).
 */
typedef int (*uncompress_fn)(unsigned char *dest, unsigned long *dest_len,
			     const unsigned char *src, unsigned long src_len);

static uncompress_fn zlib_uncompress(void)
{
	void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	uncompress_fn fn;
	void *sym = dlsym(h, "uncompress");
	memcpy(&fn, &sym, sizeof fn);
	return sym ? fn : NULL;
}

/* The contents of `path`, or of `path`.zlib decompressed; NULL if neither
 * can be read. */
static uint8_t *load_maybe_zlib(const char *path, size_t *len)
{
	uint8_t *d = pd_test_read_file(path, len);
	if (d)
		return d;
	char zpath[PATHMAX];
	snprintf(zpath, sizeof zpath, "%s.zlib", path);
	size_t zn;
	uint8_t *z = pd_test_read_file(zpath, &zn);
	if (!z)
		return NULL;
	ck_assert_msg(zn > 4, "%s: too short", zpath);
	uint32_t want = (uint32_t)z[0] << 24 | (uint32_t)z[1] << 16 |
			(uint32_t)z[2] << 8 | z[3];
	ck_assert_msg(want > 0 && want <= MAX_UNZLIB, "%s: length %u", zpath, want);
	uncompress_fn un = zlib_uncompress();
	ck_assert_msg(un != NULL, "cannot load zlib (libz.so.1)");
	unsigned long out_len = want;
	d = malloc(want + 1);
	ck_assert_ptr_nonnull(d);
	int rc = un(d, &out_len, z + 4, zn - 4);
	ck_assert_msg(rc == 0 && out_len == want, "%s: inflate rc %d, %lu of %u bytes",
		      zpath, rc, out_len, want);
	d[want] = '\0';
	free(z);
	*len = want;
	return d;
}

/* ------------------------------------------------- perfparser's text */

typedef struct pp_sample {
	uint32_t tid;
	uint64_t time;
	uint64_t leaf_addr;
	bool named;          /* a symbol was found for the leaf */
	bool kernel;
	char *func;          /* the function that contains the leaf */
	char *inl;           /* the innermost inline function, or NULL */
} pp_sample;

typedef struct pp_file {
	size_t n, cap;
	pp_sample *v;
} pp_file;

/* A symbol line's parts; false when the line has no symbol text. */
typedef struct pp_sym {
	uint64_t start, size;
	char *name;          /* malloc'd */
	bool inlined, kernel;
} pp_sym;

static bool parse_sym_line(const char *line, pp_sym *out)
{
	/* fields: "", "ADDR REL", ["FILE:L:C"], "START SIZE", ["NAME BIN PATH SFX"] */
	char *copy = strdup(line);
	ck_assert_ptr_nonnull(copy);
	char *f[6];
	size_t nf = 0;
	for (char *p = copy; nf < 6;) {
		f[nf++] = p;
		char *t = strchr(p, '\t');
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	size_t i = 2;
	if (i < nf && strchr(f[i], ':'))
		i++;
	bool ok = i + 1 < nf;
	if (ok) {
		ok = sscanf(f[i], "%" SCNx64 " %" SCNx64, &out->start, &out->size) == 2;
		/* NAME BINARY PATH SUFFIX: the name may contain spaces */
		char *text = f[i + 1];
		char *parts[3];
		for (int k = 0; k < 3 && ok; k++) {
			char *sp = strrchr(text, ' ');
			if (!sp)
				ok = false;
			else {
				parts[k] = sp + 1;
				*sp = '\0';
			}
		}
		if (ok) {
			out->inlined = strcmp(parts[0], "(inlined)") == 0;
			out->kernel = strcmp(parts[0], "[kernel]") == 0;
			out->name = strdup(text);
			ck_assert_ptr_nonnull(out->name);
		}
	}
	free(copy);
	return ok;
}

/* Fill the leaf facts of `s` from its frame lines. */
static void leaf_of(pp_sample *s, char **lines, size_t n)
{
	if (n == 0)
		return;
	s->leaf_addr = strtoull(lines[0] + 1, NULL, 16);
	for (size_t i = 0; i < n; i++) {
		pp_sym sym = { 0 };
		if (!parse_sym_line(lines[i], &sym))
			continue;
		if (sym.kernel) {
			if (i <= 1 && !s->func && !s->inl)
				s->kernel = true;
			free(sym.name);
			break;
		}
		bool inside = sym.name[0] && s->leaf_addr >= sym.start &&
			      s->leaf_addr < sym.start + sym.size;
		if (!inside) {
			free(sym.name);
			break;
		}
		s->named = true;
		if (sym.inlined && !s->inl && !s->func) {
			s->inl = sym.name;
		} else if (!sym.inlined) {
			s->func = sym.name;
			break;
		} else {
			free(sym.name);
		}
	}
}

static void parse_expected(char *text, pp_file *out)
{
	memset(out, 0, sizeof *out);
	size_t cap = 256, nl_ = 0;
	char **lines = malloc(cap * sizeof *lines);
	ck_assert_ptr_nonnull(lines);
	enum { HEADER, EVENT, FRAMES } st = HEADER;
	pp_sample *cur = NULL;
	for (char *p = text;;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		bool end = !nl && !*p;
		if (st == HEADER && *p && *p != '\t') {
			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 128;
				out->v = realloc(out->v, out->cap * sizeof *out->v);
				ck_assert_ptr_nonnull(out->v);
			}
			cur = &out->v[out->n++];
			memset(cur, 0, sizeof *cur);
			char *f = strchr(p, '\t');        /* after COMM */
			ck_assert_ptr_nonnull(f);
			f = strchr(f + 1, '\t');          /* after PID */
			ck_assert_ptr_nonnull(f);
			cur->tid = (uint32_t)strtoul(f + 1, &f, 10);
			unsigned long long secs, nsecs;
			ck_assert(sscanf(f, "\t%llu.%llu", &secs, &nsecs) == 2);
			cur->time = secs * 1000000000ull + nsecs;
			st = EVENT;
		} else if (st == EVENT && !*p) {
			st = FRAMES;
			nl_ = 0;
		} else if (st == FRAMES && (*p == '\t')) {
			if (nl_ == cap) {
				cap *= 2;
				lines = realloc(lines, cap * sizeof *lines);
				ck_assert_ptr_nonnull(lines);
			}
			lines[nl_++] = p;
		} else if (st == FRAMES && (!*p || end)) {
			leaf_of(cur, lines, nl_);
			st = HEADER;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (st == FRAMES)
		leaf_of(cur, lines, nl_);
	free(lines);
}

static void free_expected(pp_file *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].func);
		free(f->v[i].inl);
	}
	free(f->v);
}

static pp_sample *find_expected(pp_file *f, uint32_t tid, uint64_t time)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].tid == tid && f->v[i].time == time)
			return &f->v[i];
	return NULL;
}

/* ----------------------------------------------------------- layout */

static void mkdirs(const char *path)
{
	char buf[PATHMAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/*
 * Write `bin` (the binary's bytes) under `symfs` at every path an MMAP
 * record of `data` gives for a file named `name`.  Returns how many.
 */
static size_t lay_out(const char *data, const char *name, const uint8_t *bin,
		      size_t len, const char *symfs)
{
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, data, NULL, &err) == 0, "%s", err.message);
	const pd_record *rec;
	size_t placed = 0;
	char done[8][PATHMAX];
	while (pd_reader_next(r, &rec, &err) == 0) {
		if (rec->type != PD_RECORD_MMAP && rec->type != PD_RECORD_MMAP2)
			continue;
		const char *fn = rec->u.mmap.filename;
		if (!fn || fn[0] != '/' || strcmp(base_name(fn), name) != 0)
			continue;
		bool seen = false;
		for (size_t i = 0; i < placed; i++)
			seen |= strcmp(done[i], fn) == 0;
		if (seen || placed == 8)
			continue;
		snprintf(done[placed++], PATHMAX, "%s", fn);
		char path[2 * PATHMAX], dir[2 * PATHMAX];
		snprintf(path, sizeof path, "%s%s", symfs, fn);
		snprintf(dir, sizeof dir, "%s", path);
		*strrchr(dir, '/') = '\0';
		mkdirs(dir);
		ck_assert_msg(pd_test_write_file(path, bin, len), "cannot write %s", path);
	}
	pd_reader_free(r);
	return placed;
}

/* ---------------------------------------------------------- aliases */

/*
 * The binary's symbols as `nm -S -C` lists them.  A static glibc has many
 * aliases (__hypot / hypot / hypotf32x at one address): perfparser takes
 * libdwfl's pick, libperfdiff perf's rules (global over weak, then names),
 * so an alias of the same symbol is a different, equally right name.
 */
typedef struct nm_sym {
	uint64_t addr, size;
	char *name;
} nm_sym;

typedef struct nm_table {
	size_t n, cap;
	nm_sym *v;
} nm_table;

static void nm_load(const char *bin, nm_table *t)
{
	memset(t, 0, sizeof *t);
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "nm -S -C '%s' 2>/dev/null", bin);
	int st;
	char *out = pd_test_run(cmd, &st);
	if (!out)
		return;
	for (char *p = out; *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		unsigned long long a, z;
		char type;
		int used = 0;
		if (sscanf(p, "%llx %llx %c %n", &a, &z, &type, &used) == 3 && used > 0) {
			if (t->n == t->cap) {
				t->cap = t->cap ? t->cap * 2 : 1024;
				t->v = realloc(t->v, t->cap * sizeof *t->v);
				ck_assert_ptr_nonnull(t->v);
			}
			t->v[t->n].addr = a;
			t->v[t->n].size = z;
			t->v[t->n].name = strdup(p + used);
			ck_assert_ptr_nonnull(t->v[t->n].name);
			t->n++;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(out);
}

static void nm_free(nm_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
}

static const nm_sym *nm_find(const nm_table *t, const char *name, uint64_t addr)
{
	for (size_t i = 0; i < t->n; i++)
		if (addr >= t->v[i].addr && addr < t->v[i].addr + t->v[i].size &&
		    strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	return NULL;
}

/* Both names are symbols that start at the same address, are as long, and
 * hold `addr`. */
static bool aliases(const nm_table *t, const char *a, const char *b, uint64_t addr)
{
	const nm_sym *x = a ? nm_find(t, a, addr) : NULL;
	const nm_sym *y = b ? nm_find(t, b, addr) : NULL;
	return x && y && x->addr == y->addr && x->size == y->size;
}

/* ------------------------------------------------------------ the test */

typedef struct pp_case {
	const char *dir, *data, *expected, *binary;
} pp_case;

static const pp_case cases[] = {
	{ "vector_static_gcc", "perf.data", "perf.data.expected.txt",
	  "vector_static_gcc_v9.1.0" },
	{ "vector_static_gcc", "perf.data.zstd", "perf.data.zstd.expected.txt",
	  "vector_static_gcc_v9.1.0" },
	{ "vector_static_clang", "perf.data", "perf.data.expected.txt",
	  "vector_static_clang_v8.0.1" },
	{ "fork_static_gcc", "perf.data.zstd", "perf.data.zstd.expected.txt", "fork" },
	{ "parallel_static_gcc", "perf.data.zstd", "perf.data.zstd.expected.txt",
	  "parallel_static_gcc" },
};

#define NCASES (sizeof cases / sizeof cases[0])

typedef struct pp_counts {
	size_t samples, unmatched, user, func_eq, func_alias, inl_leaves, inl_eq;
	size_t kernel, kernel_unnamed, unnamed_both, shown;
} pp_counts;

static void run_case(const pp_case *c, const char *tmp, pp_counts *k)
{
	char data[PATHMAX], rel[PATHMAX], path[PATHMAX];
	snprintf(rel, sizeof rel, PP_DIR "/%s/%s", c->dir, c->data);
	ck_assert_ptr_nonnull(pd_test_corpus(data, sizeof data, rel));

	size_t blen, elen;
	snprintf(rel, sizeof rel, PP_DIR "/%s/%s", c->dir, c->binary);
	pd_test_corpus(path, sizeof path, rel);
	uint8_t *bin = load_maybe_zlib(path, &blen);
	ck_assert_msg(bin != NULL, "no binary %s(.zlib)", path);
	snprintf(rel, sizeof rel, PP_DIR "/%s/%s", c->dir, c->expected);
	pd_test_corpus(path, sizeof path, rel);
	char *exp_text = (char *)load_maybe_zlib(path, &elen);
	ck_assert_msg(exp_text != NULL, "no expected output %s(.zlib)", path);
	char *t = realloc(exp_text, elen + 1);
	ck_assert_ptr_nonnull(t);
	exp_text = t;
	exp_text[elen] = '\0';

	char symfs[PATHMAX], nocache[PATHMAX];
	snprintf(symfs, sizeof symfs, "%s/symfs", tmp);
	snprintf(nocache, sizeof nocache, "%s/no-buildid-cache", tmp);
	mkdirs(symfs);
	mkdirs(nocache);
	ck_assert_msg(lay_out(data, c->binary, bin, blen, symfs) > 0,
		      "%s: no MMAP of %s", data, c->binary);
	char binpath[PATHMAX];
	snprintf(binpath, sizeof binpath, "%s/%s", tmp, c->binary);
	ck_assert(pd_test_write_file(binpath, bin, blen));
	free(bin);
	nm_table syms;
	nm_load(binpath, &syms);

	pp_file exp;
	parse_expected(exp_text, &exp);
	ck_assert_uint_gt(exp.n, 10);

	pd_session_options o;
	pd_session_options_init(&o);
	o.symfs = symfs;
	o.kallsyms = "/dev/null";
	o.buildid_dir = nocache;
	o.jit_dir = tmp;
	pd_session *s;
	pd_error err;
	ck_assert_msg(pd_session_open(&s, data, &o, &err) == 0, "%s", err.message);
	const pd_resolved_sample *rs;
	int rc;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		k->samples++;
		pp_sample *e = find_expected(&exp, rs->tid, rs->time);
		if (!e || rs->nframes == 0) {
			k->unmatched++;
			continue;
		}
		const pd_frame *f = rs->frames;
		ck_assert_msg(f[0].addr == e->leaf_addr,
			      "%s: tid %u time %" PRIu64 ": leaf 0x%" PRIx64
			      ", perfparser 0x%" PRIx64, data, rs->tid, rs->time,
			      f[0].addr, e->leaf_addr);
		if (e->kernel || f[0].cpumode == PD_CPUMODE_KERNEL) {
			k->kernel++;
			k->kernel_unnamed += e->kernel && !f[0].symbol;
			continue;
		}
		/* our leaf group: inline frames, then the containing function */
		size_t g = 0;
		while (g + 1 < rs->nframes && f[g].inlined)
			g++;
		const char *func = f[g].symbol;
		const char *inl = f[0].inlined ? f[0].symbol : NULL;
		if (!e->named && !func) {
			k->unnamed_both++;
			continue;
		}
		k->user++;
		bool feq = func && e->func && strcmp(func, e->func) == 0;
		if (!feq && aliases(&syms, func, e->func, f[0].addr)) {
			k->func_alias++;
			feq = true;
		}
		k->func_eq += feq;
		if (e->inl || inl) {
			k->inl_leaves++;
			k->inl_eq += e->inl && inl && strcmp(e->inl, inl) == 0;
		}
		if (!feq && k->shown++ < 20)
			fprintf(stderr, "    %s/%s 0x%" PRIx64 ": ours %s, perfparser %s\n",
				c->dir, c->data, f[0].addr, func ? func : "[unknown]",
				e->func ? e->func : "[unknown]");
	}
	ck_assert_msg(rc == PD_ITEROVER, "%s: %s", data, err.message);
	for (size_t i = 0; i < pd_session_warning_count(s); i++)
		fprintf(stderr, "    %s/%s: warning: %s\n", c->dir, c->data,
			pd_session_warning(s, i));
	pd_session_free(s);
	nm_free(&syms);
	free_expected(&exp);
	free(exp_text);
}

START_TEST(test_perfparser_leaves)
{
	if (!pd_test_corpus_present())
		PD_SKIP("corpus absent (%s)", PD_CORPUS_DIR);
	char probe[PATHMAX];
	struct stat sb;
	pd_test_corpus(probe, sizeof probe, PP_DIR);
	if (stat(probe, &sb) != 0)
		PD_SKIP("no %s in the corpus", PP_DIR);
	const pp_case *c = &cases[_i];
	char *tmp = pd_test_tmpdir();
	ck_assert_ptr_nonnull(tmp);
	pp_counts k = { 0 };
	run_case(c, tmp, &k);
	pd_test_rmrf(tmp);
	free(tmp);
	fprintf(stderr,
		"perfparser %s/%s: %zu samples (%zu not in the expected output); "
		"user leaves: function equal %zu/%zu (%.1f%%; %zu of them an "
		"alias at the same address), inline leaf equal "
		"%zu/%zu; kernel leaves %zu (unnamed on both sides %zu); "
		"unnamed on both sides %zu\n",
		c->dir, c->data, k.samples, k.unmatched, k.func_eq, k.user,
		k.user ? 100.0 * (double)k.func_eq / (double)k.user : 100.0,
		k.func_alias,
		k.inl_eq, k.inl_leaves, k.kernel, k.kernel_unnamed, k.unnamed_both);
	ck_assert_uint_gt(k.samples, 10);
	ck_assert_uint_eq(k.unmatched, 0);
	ck_assert_uint_gt(k.user, 0);
	ck_assert_uint_eq(k.func_eq, k.user);
	ck_assert_uint_eq(k.kernel_unnamed, k.kernel);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("perfparser");
	TCase *tc = tcase_create("leaves");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_perfparser_leaves, 0, (int)NCASES);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
