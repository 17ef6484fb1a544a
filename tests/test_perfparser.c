/*
 * Symbols and unwound stacks of perfparser's test recordings
 * (corpus: perfparser/tests/auto/perfdata) against what perfparser
 * printed for them (*.expected.txt).
 *
 * The recordings are `--call-graph dwarf` runs of static binaries that ship
 * next to them (raw, or as *.zlib: a 4-byte big-endian length and a zlib
 * stream).  Two checks: the leaf (the sample ip: the function that contains
 * it, and the innermost inline frame there), and the whole unwound user
 * stack (every frame's address and the function it lands in).  The
 * binaries are laid out under a temporary --symfs root at the paths the
 * MMAP records name; kallsyms is /dev/null, as perfparser's test had it, so
 * kernel frames are unnamed on both sides.
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

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perfdiff/session.h"

#define PP_DIR "perfparser/tests/auto/perfdata"
#define PATHMAX 4200

/* ------------------------------------------------- perfparser's text */

/* One physical user frame as perfparser printed it. */
typedef struct pp_frame {
	uint64_t addr;       /* return addresses are printed minus one */
	uint64_t start;      /* the function's start; 0 when unnamed or when the
				symbol perfparser took does not hold addr (it
				falls back to a sizeless one such as _init) */
} pp_frame;

typedef struct pp_sample {
	size_t nframes;
	pp_frame *frames;    /* user frames, leaf first, inline frames left out */
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

/*
 * The physical user frames of a sample: each starts with a location line
 * ("ADDR ADDR" and symbol "0 0"); the next line with a non-inline,
 * non-kernel name gives its function.  A location followed by another
 * location is an unnamed frame, and so is a line "ADDR 0  0 0  <.plt+ADDR>"
 * (an address perfparser found no symbol for).
 */
static void frames_of(pp_sample *s, char **lines, size_t n)
{
	s->frames = calloc(n ? n : 1, sizeof *s->frames);
	ck_assert_ptr_nonnull(s->frames);
	bool pending = false;
	uint64_t at = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = 0, rel = 0;
		bool have_addr = sscanf(lines[i], "\t%" SCNx64 " %" SCNx64, &addr, &rel) == 2;
		pp_sym sym = { 0 };
		if (parse_sym_line(lines[i], &sym)) {
			bool unnamed_here = !sym.kernel && !sym.inlined && sym.start == 0 &&
					    sym.size == 0 && have_addr && addr != 0;
			if (unnamed_here) {
				if (pending)
					s->frames[s->nframes++] = (pp_frame){ at, 0 };
				s->frames[s->nframes++] = (pp_frame){ addr, 0 };
			} else if (!sym.kernel && !sym.inlined && pending) {
				bool holds = at >= sym.start && at - sym.start < sym.size;
				s->frames[s->nframes++] = (pp_frame){ at, holds ? sym.start : 0 };
			}
			if (!sym.inlined)
				pending = false;
			free(sym.name);
			continue;
		}
		uint64_t st, sz;
		const char *last = strrchr(lines[i], '\t');
		bool loc = have_addr && last &&
			   sscanf(last, "\t%" SCNx64 " %" SCNx64, &st, &sz) == 2 && st == 0 &&
			   sz == 0 && addr != 0 && addr == rel;
		if (!loc)
			continue;
		if (pending)
			s->frames[s->nframes++] = (pp_frame){ at, 0 };
		pending = true;
		at = addr;
	}
	if (pending)
		s->frames[s->nframes++] = (pp_frame){ at, 0 };
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
			frames_of(cur, lines, nl_);
			st = HEADER;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (st == FRAMES) {
		leaf_of(cur, lines, nl_);
		frames_of(cur, lines, nl_);
	}
	free(lines);
}

static void free_expected(pp_file *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].func);
		free(f->v[i].inl);
		free(f->v[i].frames);
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
	/* whole user stacks */
	size_t stacks, stack_eq, frames, frame_eq, no_copy, stack_shown;
} pp_counts;

/*
 * Compare the user frames of `rs` with perfparser's: same number, same
 * addresses (perfparser prints a return address minus one, we print the
 * return address), and each frame in the same function (by its start: the
 * names differ by alias choice and demangler, which the leaf test covers).
 */
static void compare_stack(const pp_case *c, const pd_resolved_sample *rs, const pp_sample *e,
			  pp_counts *k)
{
	const pd_sample *smp = &rs->record->u.sample;
	if (!(smp->sample_type & PD_SAMPLE_REGS_USER) || smp->regs_user_abi == 0)
		return;
	pp_frame ours[256];
	size_t n = 0;
	for (size_t i = 0; i < rs->nframes && n < 256; i++) {
		const pd_frame *f = &rs->frames[i];
		if (f->inlined || f->cpumode != PD_CPUMODE_USER)
			continue;
		ours[n].addr = n == 0 ? f->addr : f->addr - 1;
		ours[n].start = f->symbol ? f->addr - f->symbol_offset : 0;
		n++;
	}
	k->stacks++;
	/* With no stack copy (a fault on the stack page, the old image of an
	 * exec) perfparser prints no user frame at all; the sample's user pc
	 * is still a fact, and we keep it. */
	if (e->nframes == 0 && n == 1 && smp->stack_user_dyn_size == 0) {
		k->no_copy++;
		return;
	}
	size_t same = 0;
	for (size_t i = 0; i < n && i < e->nframes; i++)
		same += ours[i].addr == e->frames[i].addr && ours[i].start == e->frames[i].start;
	k->frames += e->nframes;
	k->frame_eq += same;
	if (same == n && n == e->nframes) {
		k->stack_eq++;
		return;
	}
	if (k->stack_shown++ < 10) {
		fprintf(stderr, "    %s/%s tid %u time %" PRIu64 ": %zu frames, perfparser %zu:",
			c->dir, c->data, rs->tid, rs->time, n, e->nframes);
		for (size_t i = 0; i < n || i < e->nframes; i++)
			fprintf(stderr, " [0x%" PRIx64 "@0x%" PRIx64 " | 0x%" PRIx64 "@0x%" PRIx64 "]",
				i < n ? ours[i].addr : 0, i < n ? ours[i].start : 0,
				i < e->nframes ? e->frames[i].addr : 0,
				i < e->nframes ? e->frames[i].start : 0);
		fprintf(stderr, "\n");
	}
}

static void run_case(const pp_case *c, const char *tmp, pp_counts *k)
{
	char data[PATHMAX], rel[PATHMAX], path[PATHMAX];
	snprintf(rel, sizeof rel, PP_DIR "/%s/%s", c->dir, c->data);
	ck_assert_ptr_nonnull(pd_test_corpus(data, sizeof data, rel));

	size_t blen, elen;
	snprintf(rel, sizeof rel, PP_DIR "/%s/%s", c->dir, c->binary);
	pd_test_corpus(path, sizeof path, rel);
	uint8_t *bin = pd_test_load_maybe_zlib(path, &blen);
	ck_assert_msg(bin != NULL, "no binary %s(.zlib)", path);
	snprintf(rel, sizeof rel, PP_DIR "/%s/%s", c->dir, c->expected);
	pd_test_corpus(path, sizeof path, rel);
	char *exp_text = (char *)pd_test_load_maybe_zlib(path, &elen);
	ck_assert_msg(exp_text != NULL, "no expected output %s(.zlib)", path);

	pd_test_symfs fs;
	pd_session_options o;
	pd_test_symfs_init(&fs, tmp, &o);
	ck_assert_msg(pd_test_symfs_add(&fs, data, c->binary, bin, blen) > 0,
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
		compare_stack(c, rs, e, k);
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
	fprintf(stderr,
		"perfparser %s/%s: unwound user stacks equal %zu/%zu (%.1f%%), frames equal "
		"%zu/%zu; %zu samples without a stack copy (perfparser: no user frame, "
		"we: the user pc)\n",
		c->dir, c->data, k.stack_eq, k.stacks - k.no_copy,
		k.stacks > k.no_copy ? 100.0 * (double)k.stack_eq / (double)(k.stacks - k.no_copy)
				     : 100.0,
		k.frame_eq, k.frames, k.no_copy);
	ck_assert_uint_gt(k.samples, 10);
	ck_assert_uint_eq(k.unmatched, 0);
	ck_assert_uint_gt(k.stacks, 10);
	ck_assert_uint_ge(100 * k.stack_eq, 99 * (k.stacks - k.no_copy));
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
