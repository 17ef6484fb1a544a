/*
 * Symbol facts, the DWARF half (see symfacts.h): which functions a build
 * inlined into which.  A DW_TAG_inlined_subroutine inside the concrete
 * DW_TAG_subprogram of `caller`, whose abstract origin is named `callee`,
 * is the compiler's own record that callee's code lives in caller now —
 * evidence that a function which vanished from the profile was inlined
 * rather than removed.
 *
 * Read in two steps, both only when asked: opening the index walks the
 * compilation units' top level (and namespaces) once for the concrete
 * subprograms, by name key; the inline instances under one caller are
 * then collected by walking only that caller's DIEs.  A whole-file walk
 * per question would cost tens of milliseconds in a libc-sized DWARF.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symb_internal.h"
#include "symfacts.h"

/* Nesting followed at most (namespaces; blocks and inline chains). */
#define MAX_SCOPE 32
#define MAX_DEPTH 256

typedef struct subprog {
	uint64_t key;
	Dwarf_Off off;
} subprog;

struct pd_inline_index {
	const pd_symkey *k;
	int fd;
	Dwarf *dw;
	pd_arena arena;      /* demangled names */
	subprog *v;          /* concrete subprograms, sorted by key */
	size_t n, cap;
};

/* The key of a DIE's name as the session displays it; false unnamed. */
static bool die_key(pd_inline_index *x, Dwarf_Die *die, uint64_t *key)
{
	const char *name = pd_dwarf_die_name(die);
	if (!name)
		return false;
	if (x->k->demangle && name[0] == '_') {
		const char *d = pd_demangle_opts(name, x->k->params, &x->arena);
		if (d)
			name = d;
	}
	*key = x->k->key(x->k->ctx, name);
	return true;
}

static int add_subprog(pd_inline_index *x, uint64_t key, Dwarf_Off off)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 1024;
		subprog *v = realloc(x->v, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = (subprog){ key, off };
	return 0;
}

/* A function with code of its own (not only an abstract instance). */
static bool concrete(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* The concrete subprograms among the children of `parent`, into namespaces. */
static int scan_scope(pd_inline_index *x, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;
	if (depth > MAX_SCOPE || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c), rc = 0;
		uint64_t key;
		if (tag == DW_TAG_subprogram && concrete(&c) && die_key(x, &c, &key))
			rc = add_subprog(x, key, dwarf_dieoffset(&c));
		else if (tag == DW_TAG_namespace)
			rc = scan_scope(x, &c, depth + 1);
		if (rc < 0)
			return rc;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int cmp_subprog(const void *a, const void *b)
{
	const subprog *p = a, *q = b;
	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return p->off < q->off ? -1 : p->off > q->off;
}

static int build(pd_inline_index *x)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(x->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(x->dw, off + hsize, &cu)) {
			int rc = scan_scope(x, &cu, 0);
			if (rc < 0)
				return rc;
		}
		off = next;
	}
	if (x->n)
		qsort(x->v, x->n, sizeof *x->v, cmp_subprog);
	return 0;
}

/* The DWARF of `path` (its compressed sections inflated up front when it
 * has any, as the symbolizer reads it); NULL when it has none. */
static Dwarf *open_dwarf(const char *path, pd_threads *threads, int *fd)
{
	*fd = pd_debug_inflate_open(path, threads, NULL);
	if (*fd < 0)
		*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	Dwarf *dw = dwarf_begin(*fd, DWARF_C_READ);
	if (!dw) {
		close(*fd);
		*fd = -1;
	}
	return dw;
}

int pd_inline_index_open(pd_inline_index **out, const pd_symsrc *src, const pd_symkey *k,
			 pd_threads *threads, pd_error *err)
{
	*out = NULL;
	const char *path = src->kind != PD_SYMSRC_ELF ? NULL
			   : src->debug_path ? src->debug_path : src->elf_path;
	if (!path)
		return pd_error_reason(err, PD_EUNSUPPORTED,
				       "kernel symbols from kallsyms: no DWARF");
	pd_inline_index *x = calloc(1, sizeof *x);
	if (!x)
		return PD_ENOMEM;
	x->k = k;
	pd_arena_init(&x->arena);
	x->dw = open_dwarf(path, threads, &x->fd);
	int rc = x->dw ? build(x) : PD_EUNSUPPORTED;
	if (rc < 0) {
		pd_error_reason(err, rc, "%s: %s", path, x->dw ? "out of memory" : "no DWARF");
		pd_inline_index_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

/* The keys of the inline instances under `die`, at any depth. */
static int collect(pd_inline_index *x, Dwarf_Die *die, pd_keyset *out, int depth)
{
	Dwarf_Die c;
	if (depth > MAX_DEPTH || dwarf_child(die, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c), rc = 0;
		uint64_t key;
		if (tag == DW_TAG_inlined_subroutine && die_key(x, &c, &key))
			rc = pd_keyset_push(out, key);
		/* nested functions are callers of their own */
		if (rc == 0 && tag != DW_TAG_subprogram)
			rc = collect(x, &c, out, depth + 1);
		if (rc < 0)
			return rc;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

int pd_inline_index_callees(pd_inline_index *x, uint64_t caller, pd_keyset *out, bool *found)
{
	memset(out, 0, sizeof *out);
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->v[mid].key < caller)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	for (size_t i = lo; i < x->n && x->v[i].key == caller; i++) {
		Dwarf_Die die;
		if (!dwarf_offdie(x->dw, x->v[i].off, &die))
			continue;
		*found = true;
		int rc = collect(x, &die, out, 0);
		if (rc < 0) {
			pd_keyset_free(out);
			return rc;
		}
	}
	pd_keyset_seal(out);
	return 0;
}

void pd_inline_index_free(pd_inline_index *x)
{
	if (!x)
		return;
	if (x->dw)
		dwarf_end(x->dw);
	if (x->fd >= 0)
		close(x->fd);
	free(x->v);
	pd_arena_free(&x->arena);
	free(x);
}
