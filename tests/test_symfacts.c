/*
 * Symbol facts (profile.h: pd_profile_symbol_defined(),
 * pd_profile_inlined_into()) on recordings made here, against independent
 * oracles:
 *
 *   - readelf -s: every function (FUNC, IFUNC) readelf lists for a sampled program
 *     is YES, sampled or not; the name a rebuild renamed away is NO
 *     (tests/workloads/diff_rename.c built with -DPD_NEW); a stripped
 *     copy's functions that `readelf --dyn-syms` does not list are UNKNOWN (only
 *     .dynsym is left); libc's __poll and epoll_wait are YES as its .dynsym
 *     lists them, a made-up name NO or UNKNOWN as readelf finds a .symtab
 *     (in libc or its debug file) or not;
 *   - kallsyms: a sampled kernel function is YES, a made-up one NO; with
 *     an explicit kallsyms file in which that function is renamed, the new
 *     name is YES and the old NO;
 *   - eu-readelf --debug-dump=info: every (inlined subroutine's origin,
 *     enclosing subprogram) pair is YES (diff_inline.c's -DPD_NEW build,
 *     where helper is always_inline into work); scramble into work, and
 *     helper into work in the base build, are NO; the kernel and the
 *     stripped copy are UNKNOWN;
 *   - C++ (g++): names compare as nodes are named, demangled with
 *     parameter lists as `readelf -sC` prints them, or without them under
 *     PD_SESSION_PERF_COMPAT;
 *   - runs: NO only when every run's files were read (a run whose file
 *     is gone makes it UNKNOWN); nothing is read before the first
 *     question (pd_facts_loaded()); two threads may ask at once.
 *
 * Every test skips (with a message) where perf, cc, readelf or eu-readelf are
 * missing; the kernel ones where the recording has no named kernel frame.
 */
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdiff/profile.h"
#include "profile/internal.h"  /* pd_facts_loaded() */

#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#define PATHMAX 4200
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

static struct lab {
	const char *skip;
	char *dir;
	char ren[PATHMAX], inl[PATHMAX], inl_old[PATHMAX], strip[PATHMAX], cxx[PATHMAX];
	char data[PATHMAX], strip_data[PATHMAX], cxx_data[PATHMAX], nocache[PATHMAX];
	bool cxx_ok;
} L;

static const char cxx_src[] =
	"namespace ns {\n"
	"template <typename T> struct Box {\n"
	"\tT v;\n"
	"\t__attribute__((noinline)) T spin(int n)\n"
	"\t{\n"
	"\t\tfor (int i = 0; i < n; i++)\n"
	"\t\t\tv = v * 6364136223846793005l + i;\n"
	"\t\treturn v;\n"
	"\t}\n"
	"};\n"
	"}\n"
	"static __attribute__((noinline)) long unused_helper(long x) { return x * 3; }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tns::Box<long> b{argc};\n"
	"\tlong s = 0;\n"
	"\tfor (long i = 0; i < 3000000; i++)\n"
	"\t\ts += b.spin(20);\n"
	"\treturn (int)(s & 1) + (argc > 5 ? (int)unused_helper(s) : 0) + (argv[0] == 0);\n"
	"}\n";

static bool build(const char *name, const char *flags, char *bin, const char *base)
{
	char src[PATHMAX];
	snprintf(bin, PATHMAX, "%s/%s", L.dir, base);
	snprintf(src, PATHMAX, "%s/%s.c", WORKLOAD_DIR, name);
	return pd_test_compile("cc", flags, bin, src);
}

static bool build_cxx(void)
{
	char src[PATHMAX];
	snprintf(src, PATHMAX, "%s/box.cc", L.dir);
	snprintf(L.cxx, PATHMAX, "%s/box", L.dir);
	snprintf(L.cxx_data, PATHMAX, "%s/cxx.data", L.dir);
	char w[PATHMAX + 8];
	snprintf(w, sizeof w, "'%s'", L.cxx);
	return pd_test_sh_ok("command -v g++") &&
	       pd_test_write_file(src, cxx_src, sizeof cxx_src - 1) &&
	       pd_test_compile("g++", "-O1 -g -fno-omit-frame-pointer", L.cxx, src) &&
	       pd_test_perf_record(L.cxx_data, "-q -N -e cpu-clock -g", w);
}

static void lab_setup(void)
{
	memset(&L, 0, sizeof L);
	L.skip = pd_test_lab_open(true, &L.dir);
	if (L.skip)
		return;
	if (!pd_test_sh_ok("command -v readelf && command -v eu-readelf && command -v strip")) {
		L.skip = "readelf, eu-readelf or strip missing";
		return;
	}
	if (!build("diff_rename", WFLAGS " -DPD_NEW", L.ren, "ren_new") ||
	    !build("diff_inline", WFLAGS " -DPD_NEW", L.inl, "inl_new") ||
	    !build("diff_inline", WFLAGS, L.inl_old, "inl_old")) {
		L.skip = "cannot compile the diff_rename/diff_inline workloads";
		return;
	}
	snprintf(L.strip, PATHMAX, "%s/inl_strip", L.dir);
	snprintf(L.data, PATHMAX, "%s/both.data", L.dir);
	snprintf(L.strip_data, PATHMAX, "%s/strip.data", L.dir);
	snprintf(L.nocache, PATHMAX, "%s/no-buildid-cache", L.dir);
	pd_test_mkdirs(L.nocache);
	char cmd[4 * PATHMAX], w[4 * PATHMAX];
	snprintf(cmd, sizeof cmd, "strip -o '%s' '%s'", L.strip, L.inl);
	/* dd: kernel frames and libc; the stripped copy alone in its own
	 * recording (with inl_new beside it, its build would be named from
	 * inl_new's file) */
	snprintf(w, sizeof w,
		 "sh -c \"'%s' 150; '%s' 150; '%s' 150; dd if=/dev/zero of=/dev/null bs=1 count=200000\"",
		 L.ren, L.inl, L.inl_old);
	char ws[PATHMAX + 8];
	snprintf(ws, sizeof ws, "'%s' 150", L.strip);
	if (!pd_test_sh_ok(cmd) || !pd_test_perf_record(L.data, "-q -N -e cpu-clock -g", w) ||
	    !pd_test_perf_record(L.strip_data, "-q -N -e cpu-clock -g", ws)) {
		L.skip = "perf record failed";
		return;
	}
	L.cxx_ok = build_cxx();
}

static void lab_teardown(void)
{
	pd_test_lab_close(L.dir);
}

#define NEED_LAB() PD_SKIP_IF(L.skip)

/* A profile of `data` read by the flags given, with no build-id cache
 * (the files are where they were recorded) and `kallsyms` when not NULL. */
static pd_profile *profile_of(const char *data, unsigned session_flags, const char *kallsyms)
{
	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	so.flags = session_flags;
	so.buildid_dir = L.nocache;
	so.kallsyms = kallsyms;
	o.session = &so;
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	ck_assert_msg(pd_profile_add_file(p, data, &err) == 0, "%s", err.message);
	return p;
}

static const char *fact_str(pd_symbol_fact f)
{
	return f == PD_FACT_YES ? "YES" : f == PD_FACT_NO ? "NO" : "UNKNOWN";
}

#define ASSERT_DEFINED(p, dso, name, want)                                            \
	do {                                                                          \
		pd_symbol_fact got_ = pd_profile_symbol_defined((p), (dso), (name));    \
		ck_assert_msg(got_ == (want), "defined(%s, %s): %s, expected %s", (dso), \
			      (name), fact_str(got_), fact_str(want));                  \
	} while (0)

#define ASSERT_INLINED(p, dso, callee, caller, want)                                  \
	do {                                                                          \
		pd_symbol_fact got_ = pd_profile_inlined_into((p), (dso), (callee), (caller)); \
		ck_assert_msg(got_ == (want), "inlined_into(%s, %s, %s): %s, expected %s",   \
			      (dso), (callee), (caller), fact_str(got_), fact_str(want)); \
	} while (0)

/* ------------------------------------------------------------ oracles */

typedef struct names {
	char **v;
	size_t n, cap;
} names;

static void names_add(names *s, const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		ck_assert_ptr_nonnull(s->v);
	}
	s->v[s->n] = strdup(name);
	ck_assert_ptr_nonnull(s->v[s->n]);
	s->n++;
}

static bool names_has(const names *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return true;
	return false;
}

static void names_free(names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* The defined functions (FUNC, IFUNC) `readelf -sW ARGS FILE` lists,
 * names as printed without their version ("epoll_wait@@GLIBC_2.3.2"). */
static void elf_functions(const char *args, const char *file, names *out)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "readelf -sW %s '%s' 2>/dev/null", args, file);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(text);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		/* "Num: Value Size Type Bind Vis Ndx Name": the name may hold
		 * spaces (-C) */
		char type[16], ndx[16];
		int name = 0;
		if (sscanf(line, " %*[0-9]: %*x %*s %15s %*s %*s %15s %n", type, ndx, &name) != 2 ||
		    !name || (strcmp(type, "FUNC") != 0 && strcmp(type, "IFUNC") != 0) ||
		    strcmp(ndx, "UND") == 0)
			continue;
		char *at = strchr(line + name, '@');
		if (at)
			*at = '\0';
		if (line[name] && !names_has(out, line + name))
			names_add(out, line + name);
	}
	free(text);
}

/* The dso of the first node whose dso's file name starts with `prefix`. */
static const char *find_dso(const pd_cct_node *n, const char *prefix)
{
	const char *d = pd_cct_dso(n);
	const char *base = d ? strrchr(d, '/') : NULL;
	if (base && strncmp(base + 1, prefix, strlen(prefix)) == 0)
		return d;
	for (size_t i = 0; i < pd_cct_child_count(n); i++)
		if ((d = find_dso(pd_cct_child(n, i), prefix)))
			return d;
	return NULL;
}

/* Up to `max` distinct names of named, not inlined nodes of `dso`. */
static void node_names(const pd_cct_node *n, const char *dso, names *out, size_t max)
{
	const char *d = pd_cct_dso(n);
	if (out->n < max && d && strcmp(d, dso) == 0 && !pd_cct_unresolved(n) &&
	    !pd_cct_inlined(n) && !names_has(out, pd_cct_symbol(n)))
		names_add(out, pd_cct_symbol(n));
	for (size_t i = 0; i < pd_cct_child_count(n); i++)
		node_names(pd_cct_child(n, i), dso, out, max);
}

/* ------------------------------------------------------------ symbols */

START_TEST(test_defined_matches_readelf)
{
	NEED_LAB();
	pd_profile *p = profile_of(L.data, 0, NULL);
	ck_assert_uint_eq(pd_facts_loaded(p), 0);
	const char *progs[] = { L.ren, L.inl, L.inl_old };
	for (size_t k = 0; k < 3; k++) {
		names fn = { 0 };
		elf_functions("", progs[k], &fn);
		ck_assert_uint_gt(fn.n, 5);
		for (size_t i = 0; i < fn.n; i++)
			ASSERT_DEFINED(p, progs[k], fn.v[i], PD_FACT_YES);
		names_free(&fn);
	}
	ck_assert_uint_gt(pd_facts_loaded(p), 0);
	/* renamed away: hash_chunk is in neither table of the new build */
	names fn = { 0 };
	elf_functions("", L.ren, &fn);
	ck_assert(!names_has(&fn, "hash_chunk") && names_has(&fn, "hash_block"));
	names_free(&fn);
	ASSERT_DEFINED(p, L.ren, "hash_chunk", PD_FACT_NO);
	/* always_inline: helper has no symbol of its own in the new build */
	ASSERT_DEFINED(p, L.inl, "helper", PD_FACT_NO);
	ASSERT_DEFINED(p, L.inl_old, "helper", PD_FACT_YES);
	/* a clone suffix folds as node names do */
	ASSERT_DEFINED(p, L.inl, "work.constprop.0", PD_FACT_YES);
	/* dsos with no sampled frame, or none at all */
	ASSERT_DEFINED(p, "/no/such/dso", "main", PD_FACT_UNKNOWN);
	ASSERT_DEFINED(p, "[unknown]", "main", PD_FACT_UNKNOWN);
	ASSERT_DEFINED(NULL, L.ren, "main", PD_FACT_UNKNOWN);
	pd_profile_free(p);
}
END_TEST

START_TEST(test_defined_stripped)
{
	NEED_LAB();
	pd_profile *p = profile_of(L.strip_data, 0, NULL);
	names all = { 0 }, dyn = { 0 };
	elf_functions("", L.inl, &all);
	elf_functions("--dyn-syms", L.strip, &dyn);
	size_t checked = 0;
	for (size_t i = 0; i < all.n; i++) {
		if (names_has(&dyn, all.v[i]))
			continue;
		ASSERT_DEFINED(p, L.strip, all.v[i], PD_FACT_UNKNOWN);
		checked++;
	}
	ck_assert_uint_gt(checked, 5);
	for (size_t i = 0; i < dyn.n; i++)
		ASSERT_DEFINED(p, L.strip, dyn.v[i], PD_FACT_YES);
	names_free(&all);
	names_free(&dyn);
	ASSERT_INLINED(p, L.strip, "helper", "work", PD_FACT_UNKNOWN);
	pd_profile_free(p);
}
END_TEST

/* Whether `libc` or its debug file found by build-id has a .symtab. */
static bool libc_has_symtab(const char *libc)
{
	char cmd[4 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "f='%s'; id=$(readelf -n \"$f\" 2>/dev/null | sed -n 's/.*Build ID: //p'); "
		 "d=/usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug; "
		 "{ readelf -S \"$f\"; [ -f \"$d\" ] && readelf -S \"$d\"; } 2>/dev/null | grep -q '\\.symtab'",
		 libc);
	return pd_test_sh_ok(cmd);
}

START_TEST(test_defined_libc)
{
	NEED_LAB();
	pd_profile *p = profile_of(L.data, 0, NULL);
	size_t ev = (size_t)pd_profile_default_event(p);
	const char *libc = find_dso(pd_profile_root(p, ev), "libc.so");
	if (!libc) {
		pd_profile_free(p);
		PD_SKIP("no frame in libc in %s", L.data);
	}
	names dyn = { 0 };
	elf_functions("--dyn-syms", libc, &dyn);
	const char *want[] = { "__poll", "epoll_wait" };
	for (size_t i = 0; i < 2; i++)
		if (names_has(&dyn, want[i]))
			ASSERT_DEFINED(p, libc, want[i], PD_FACT_YES);
	for (size_t i = 0; i < dyn.n; i += 97)
		ASSERT_DEFINED(p, libc, dyn.v[i], PD_FACT_YES);
	ck_assert(names_has(&dyn, "epoll_wait"));
	names_free(&dyn);
	ASSERT_DEFINED(p, libc, "pd_no_such_function",
		       libc_has_symtab(libc) ? PD_FACT_NO : PD_FACT_UNKNOWN);
	pd_profile_free(p);
}
END_TEST

/* ------------------------------------------------------------ kernel */

/* `src` with every core-kernel line naming `name` renamed to `to`. */
static bool rename_ksym(const char *src, const char *out, const char *name, const char *to)
{
	char cmd[3 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "awk '$3 == \"%s\" && NF == 3 { print $1 \" \" $2 \" %s\"; next } { print }' "
		 "'%s' > '%s'",
		 name, to, src, out);
	return pd_test_sh_ok(cmd);
}

/* Whether `file` has a line naming `name`. */
static bool kallsyms_has(const char *file, const char *name)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "awk '$3 == \"%s\" { f = 1 } END { exit !f }' '%s'", name, file);
	return pd_test_sh_ok(cmd);
}

START_TEST(test_defined_kernel)
{
	NEED_LAB();
	const char *K = "[kernel.kallsyms]";
	pd_profile *p = profile_of(L.data, 0, NULL);
	size_t ev = (size_t)pd_profile_default_event(p);
	names kn = { 0 };
	node_names(pd_profile_root(p, ev), K, &kn, 20);
	/* a name kallsyms spells as the node (no clone suffix folded away) */
	char fn[512] = "";
	for (size_t i = 0; i < kn.n && !fn[0]; i++)
		if (kallsyms_has("/proc/kallsyms", kn.v[i]))
			snprintf(fn, sizeof fn, "%s", kn.v[i]);
	names_free(&kn);
	if (!fn[0]) {
		pd_profile_free(p);
		PD_SKIP("no named kernel frame in %s", L.data);
	}
	ASSERT_DEFINED(p, K, fn, PD_FACT_YES);
	ASSERT_DEFINED(p, K, "pd_no_such_kernel_function", PD_FACT_NO);
	ASSERT_INLINED(p, K, fn, "do_syscall_64", PD_FACT_UNKNOWN);
	pd_profile_free(p);

	/* the kallsyms file the session used, not the machine's */
	char ks[PATHMAX + 16], renamed[600];
	snprintf(ks, sizeof ks, "%s/kallsyms", L.dir);
	snprintf(renamed, sizeof renamed, "%s_pd_renamed", fn);
	ck_assert(rename_ksym("/proc/kallsyms", ks, fn, renamed));
	ck_assert(!kallsyms_has(ks, fn) && kallsyms_has(ks, renamed));
	p = profile_of(L.data, 0, ks);
	ASSERT_DEFINED(p, K, renamed, PD_FACT_YES);
	ASSERT_DEFINED(p, K, fn, PD_FACT_NO);
	pd_profile_free(p);
}
END_TEST

/* ------------------------------------------------------------ DWARF */

/* One DIE of eu-readelf's dump: the parts the oracle needs. */
typedef struct die {
	unsigned long off, origin;  /* origin: abstract_origin or specification, 0 none */
	int indent;
	char tag[32];
	char *name;
	long parent;                /* index, -1 at the top */
} die;

typedef struct dies {
	die *v;
	size_t n, cap;
} dies;

static void parse_die_line(dies *d, const char *line, long *stack, int *depth)
{
	unsigned long off;
	int pos = 0, tagpos = 0;
	char tag[32];
	if (sscanf(line, " [ %lx]%n %31s", &off, &pos, tag) != 2)
		return;
	tagpos = pos;
	while (line[tagpos] == ' ')
		tagpos++;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 256;
		d->v = realloc(d->v, d->cap * sizeof *d->v);
		ck_assert_ptr_nonnull(d->v);
	}
	die *x = &d->v[d->n];
	memset(x, 0, sizeof *x);
	x->off = off;
	x->indent = tagpos - pos;
	snprintf(x->tag, sizeof x->tag, "%s", tag);
	while (*depth > 0 && d->v[stack[*depth - 1]].indent >= x->indent)
		(*depth)--;
	x->parent = *depth ? stack[*depth - 1] : -1;
	if (*depth < 255)
		stack[(*depth)++] = (long)d->n;
	d->n++;
}

static void parse_attr_line(dies *d, const char *line)
{
	if (d->n == 0)
		return;
	die *x = &d->v[d->n - 1];
	char attr[64];
	if (sscanf(line, " %63s", attr) != 1)
		return;
	const char *q = strchr(line, '"'), *b = strchr(line, '[');
	if (strcmp(attr, "name") == 0 && q && !x->name) {
		x->name = strdup(q + 1);
		char *end = strrchr(x->name, '"');
		if (end)
			*end = '\0';
	} else if ((strcmp(attr, "abstract_origin") == 0 || strcmp(attr, "specification") == 0) && b) {
		x->origin = strtoul(b + 1, NULL, 16);
	}
}

static void eu_dies(const char *file, dies *out)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "eu-readelf --debug-dump=info '%s' 2>/dev/null", file);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(text);
	long stack[256];
	int depth = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == ' ' && line[1] == '[')
			parse_die_line(out, line, stack, &depth);
		else
			parse_attr_line(out, line);
	}
	free(text);
}

/* A DIE's name, through its origin chain. */
static const char *die_name(const dies *d, const die *x)
{
	for (int hop = 0; x && hop < 8; hop++) {
		if (x->name)
			return x->name;
		const die *o = NULL;
		for (size_t i = 0; i < d->n && x->origin; i++)
			if (d->v[i].off == x->origin)
				o = &d->v[i];
		x = o;
	}
	return NULL;
}

/* Every (callee, caller) pair: an inlined_subroutine's origin and its
 * enclosing subprogram, as "callee\ncaller". */
static void inline_pairs(const char *file, names *out)
{
	dies d = { 0 };
	eu_dies(file, &d);
	for (size_t i = 0; i < d.n; i++) {
		if (strcmp(d.v[i].tag, "inlined_subroutine") != 0)
			continue;
		long up = d.v[i].parent;
		while (up >= 0 && strcmp(d.v[up].tag, "subprogram") != 0)
			up = d.v[up].parent;
		const char *callee = die_name(&d, &d.v[i]);
		const char *caller = up >= 0 ? die_name(&d, &d.v[up]) : NULL;
		if (!callee || !caller)
			continue;
		char pair[1024];
		snprintf(pair, sizeof pair, "%s\n%s", callee, caller);
		names_add(out, pair);
	}
	for (size_t i = 0; i < d.n; i++)
		free(d.v[i].name);
	free(d.v);
}

START_TEST(test_inlined_matches_dwarf)
{
	NEED_LAB();
	pd_profile *p = profile_of(L.data, 0, NULL);
	names pairs = { 0 };
	inline_pairs(L.inl, &pairs);
	ck_assert_msg(names_has(&pairs, "helper\nwork"), "eu-readelf shows no helper in work");
	for (size_t i = 0; i < pairs.n; i++) {
		char *nl = strchr(pairs.v[i], '\n');
		*nl = '\0';
		ASSERT_INLINED(p, L.inl, pairs.v[i], nl + 1, PD_FACT_YES);
	}
	names_free(&pairs);
	inline_pairs(L.inl_old, &pairs);
	ck_assert(!names_has(&pairs, "helper\nwork") && !names_has(&pairs, "scramble\nwork"));
	names_free(&pairs);
	ASSERT_INLINED(p, L.inl, "scramble", "work", PD_FACT_NO);
	ASSERT_INLINED(p, L.inl_old, "helper", "work", PD_FACT_NO);
	/* helper has no code of its own in the new build: nothing to say */
	ASSERT_INLINED(p, L.inl, "scramble", "helper", PD_FACT_UNKNOWN);
	ASSERT_INLINED(p, "/no/such/dso", "helper", "work", PD_FACT_UNKNOWN);
	pd_profile_free(p);
}
END_TEST

/* ------------------------------------------------------------ C++ */

START_TEST(test_defined_cxx)
{
	NEED_LAB();
	if (!L.cxx_ok)
		PD_SKIP("no g++, or its recording failed");
	pd_profile *p = profile_of(L.cxx_data, 0, NULL);
	names fn = { 0 };
	elf_functions("-C", L.cxx, &fn);
	const char *spin = "ns::Box<long>::spin(int)";
	ck_assert(names_has(&fn, spin) && !names_has(&fn, "ns::Box<long>::spin"));
	for (size_t i = 0; i < fn.n; i++)
		ASSERT_DEFINED(p, L.cxx, fn.v[i], PD_FACT_YES);
	names_free(&fn);
	/* named as the nodes are: with parameter lists by default */
	size_t ev = (size_t)pd_profile_default_event(p);
	names nodes = { 0 };
	node_names(pd_profile_root(p, ev), L.cxx, &nodes, 100);
	ck_assert_msg(names_has(&nodes, spin), "no node named %s", spin);
	names_free(&nodes);
	ASSERT_DEFINED(p, L.cxx, "ns::Box<long>::spin", PD_FACT_NO);
	ASSERT_DEFINED(p, L.cxx, "unused_helper(long)", PD_FACT_YES);
	pd_profile_free(p);
	/* perf's names: no parameter lists */
	p = profile_of(L.cxx_data, PD_SESSION_PERF_COMPAT | PD_SESSION_NO_INLINE, NULL);
	ASSERT_DEFINED(p, L.cxx, "ns::Box<long>::spin", PD_FACT_YES);
	ASSERT_DEFINED(p, L.cxx, spin, PD_FACT_NO);
	pd_profile_free(p);
	/* mangled, as in the symbol table */
	p = profile_of(L.cxx_data, PD_SESSION_NO_DEMANGLE, NULL);
	ASSERT_DEFINED(p, L.cxx, "_ZN2ns3BoxIlE4spinEi", PD_FACT_YES);
	ASSERT_DEFINED(p, L.cxx, spin, PD_FACT_NO);
	pd_profile_free(p);
}
END_TEST

/* ------------------------------------------------------------ runs */

/*
 * Runs of one dso path: the first of the renamed build (found in a
 * build-id cache), the second of the base build, whose file is gone when
 * the profile is read.  One run's table says hash_chunk is not there, the
 * other run cannot tell: NO for the first run alone, UNKNOWN for both.
 */
START_TEST(test_facts_runs)
{
	NEED_LAB();
	char app[PATHMAX], cache[PATHMAX], d1[PATHMAX], d2[PATHMAX], cmd[4 * PATHMAX], w[PATHMAX + 8];
	snprintf(app, sizeof app, "%s/app", L.dir);
	snprintf(cache, sizeof cache, "%s/cache", L.dir);
	snprintf(d1, sizeof d1, "%s/run1.data", L.dir);
	snprintf(d2, sizeof d2, "%s/run2.data", L.dir);
	snprintf(w, sizeof w, "'%s' 100", app);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", L.ren, app);
	ck_assert(pd_test_sh_ok(cmd));
	ck_assert(pd_test_perf_record(d1, "-q -N -e cpu-clock -g", w));
	ck_assert(pd_test_buildid_cache_add(cache, app));
	/* the base build at the same path */
	snprintf(cmd, sizeof cmd, "rm -f '%s' && cc " WFLAGS " -o '%s' '%s/diff_rename.c'", app, app,
		 WORKLOAD_DIR);
	ck_assert(pd_test_sh_ok(cmd));
	ck_assert(pd_test_perf_record(d2, "-q -N -e cpu-clock -g", w));
	snprintf(cmd, sizeof cmd, "rm -f '%s'", app);
	ck_assert(pd_test_sh_ok(cmd));

	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	so.buildid_dir = cache;
	o.session = &so;
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(p, d1, &err), 0);
	ASSERT_DEFINED(p, app, "hash_block", PD_FACT_YES);
	ASSERT_DEFINED(p, app, "hash_chunk", PD_FACT_NO);
	ck_assert_int_eq(pd_profile_add_file(p, d2, &err), 0);
	ck_assert_uint_eq(pd_profile_run_count(p), 2);
	ASSERT_DEFINED(p, app, "hash_block", PD_FACT_YES);
	ASSERT_DEFINED(p, app, "hash_chunk", PD_FACT_UNKNOWN);
	pd_profile_free(p);
}
END_TEST

/* ------------------------------------------------------------ threads */

typedef struct asker {
	const pd_profile *p;
	const char *inl;
	int bad;
} asker;

static void *ask(void *arg)
{
	asker *a = arg;
	for (int i = 0; i < 200; i++) {
		a->bad += pd_profile_symbol_defined(a->p, a->inl, "work") != PD_FACT_YES;
		a->bad += pd_profile_inlined_into(a->p, a->inl, "helper", "work") != PD_FACT_YES;
		a->bad += pd_profile_symbol_defined(a->p, "[kernel.kallsyms]", "pd_nope") == PD_FACT_YES;
	}
	return NULL;
}

START_TEST(test_facts_two_threads)
{
	NEED_LAB();
	pd_profile *p = profile_of(L.data, 0, NULL);
	ck_assert_uint_eq(pd_facts_loaded(p), 0);
	asker a[2] = { { p, L.inl, 0 }, { p, L.inl, 0 } };
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, ask, &a[0]), 0);
	ask(&a[1]);
	pthread_join(t, NULL);
	ck_assert_int_eq(a[0].bad + a[1].bad, 0);
	pd_profile_free(p);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("symfacts");
	TCase *lab = tcase_create("lab");
	tcase_add_unchecked_fixture(lab, lab_setup, lab_teardown);
	tcase_set_timeout(lab, 300);
	tcase_add_test(lab, test_defined_matches_readelf);
	tcase_add_test(lab, test_defined_stripped);
	tcase_add_test(lab, test_defined_libc);
	tcase_add_test(lab, test_defined_kernel);
	tcase_add_test(lab, test_inlined_matches_dwarf);
	tcase_add_test(lab, test_defined_cxx);
	tcase_add_test(lab, test_facts_runs);
	tcase_add_test(lab, test_facts_two_threads);
	suite_add_tcase(s, lab);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
