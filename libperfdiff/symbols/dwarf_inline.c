/*
 * Source lines and inline chains from DWARF (libdw).
 *
 * An inline chain is the physical nesting of DW_TAG_inlined_subroutine
 * DIEs around the address inside its subprogram.  The line of a frame is
 * the address's line for the innermost one and the call site
 * (DW_AT_call_file/line) of the frame inside it for the others — what
 * eu-addr2line -i prints.
 *
 * Finding the nesting: dwarf_getscopes() walks the whole CU from its root
 * for every address (28 µs in libc, 316 µs in libpython per the reference
 * doc), and it follows the abstract origin at the first inlined
 * subroutine, so the concrete callers need a second dwarf_getscopes_die().
 * With a cache, each CU gets a sorted index of its subprograms' ranges
 * once; an address then costs a binary search and a descent through the
 * blocks of one function.  Addresses the index does not cover take the
 * dwarf_getscopes() path, which is also the reference the tests compare
 * the index with.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

#include "symb_internal.h"

#define PD_MAX_DEPTH 256

typedef struct subrange {
	Dwarf_Addr lo, hi;   /* CU-relative (DWARF) addresses */
	size_t seq;          /* DIE order: the first of equal ranges wins */
	Dwarf_Die die;
} subrange;

typedef struct cu_index {
	subrange *v;
	Dwarf_Addr *maxhi;   /* prefix maximum of hi, for nested ranges */
	size_t n, cap;
} cu_index;

struct pd_dwarf_cache {
	pd_symhash cus;      /* (CU DIE offset, 0) → cu_index */
};

pd_dwarf_cache *pd_dwarf_cache_new(void)
{
	return calloc(1, sizeof(pd_dwarf_cache));
}

void pd_dwarf_cache_free(pd_dwarf_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cus.cap; i++) {
		cu_index *x = c->cus.slots[i].v;
		if (x) {
			free(x->v);
			free(x->maxhi);
			free(x);
		}
	}
	pd_symhash_free(&c->cus);
	free(c);
}

const char *pd_dwarf_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return s;
}

static void call_site(Dwarf_Die *die, const char **file, unsigned *line)
{
	Dwarf_Attribute a;
	Dwarf_Word idx, ln;
	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &ln) == 0 && ln <= UINT32_MAX)
		*line = (unsigned)ln;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &idx) != 0)
		return;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_diecu(die, &cu, NULL, NULL) && dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 &&
	    idx < nfiles)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
}

/*
 * The CU holding `addr`.  dwfl_module_addrdie relies on .debug_aranges,
 * which clang does not emit by default; then the CUs' own ranges are
 * searched.
 */
static Dwarf_Die *find_cu(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
	if (cu)
		return cu;
	Dwarf_Addr b;
	for (Dwarf_Die *c = dwfl_module_nextcu(mod, NULL, &b); c; c = dwfl_module_nextcu(mod, c, &b))
		if (dwarf_haspc(c, addr - b) > 0) {
			*bias = b;
			return c;
		}
	return NULL;
}

static void addr_line(Dwfl_Module *mod, Dwarf_Die *cu, uint64_t addr, Dwarf_Addr bias,
		      const char **file, unsigned *line)
{
	*file = NULL;
	*line = 0;
	int ln = 0;
	Dwfl_Line *dl = dwfl_module_getsrc(mod, addr);
	if (dl) {
		*file = dwfl_lineinfo(dl, NULL, &ln, NULL, NULL, NULL);
	} else if (cu) {
		Dwarf_Line *l = dwarf_getsrc_die(cu, addr - bias);
		if (l) {
			*file = dwarf_linesrc(l, NULL, NULL);
			dwarf_lineno(l, &ln);
		}
	}
	if (*file && ln > 0)
		*line = (unsigned)ln;
}

/* ---- the per-CU subprogram index ---- */

static int push_range(cu_index *x, Dwarf_Addr lo, Dwarf_Addr hi, const Dwarf_Die *die)
{
	if (x->n == x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 64;
		subrange *nv = realloc(x->v, ncap * sizeof *nv);
		if (!nv)
			return PD_ENOMEM;
		x->v = nv;
		x->cap = ncap;
	}
	x->v[x->n] = (subrange){ lo, hi, x->n, *die };
	x->n++;
	return 0;
}

/* Subprograms with code, also inside namespaces, classes and (dwz)
 * imported units; `depth` bounds recursion on malformed input. */
static int index_children(Dwarf_Die *parent, cu_index *x, int depth)
{
	Dwarf_Die child;
	if (depth > 32 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0)
				if (hi > lo && push_range(x, lo, hi, &child) < 0)
					return PD_ENOMEM;
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_module) {
			if (index_children(&child, x, depth + 1) < 0)
				return PD_ENOMEM;
		} else if (tag == DW_TAG_imported_unit) {
			Dwarf_Attribute a;
			Dwarf_Die unit;
			if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a), &unit) &&
			    index_children(&unit, x, depth + 1) < 0)
				return PD_ENOMEM;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int cmp_range(const void *pa, const void *pb)
{
	const subrange *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	/* the lookup walks backwards from the last start <= pc, so among
	 * equal starts the earliest DIE comes last, as dwarf_getscopes
	 * would find it first (asm aliases: __finitel, __GI___finitel) */
	return a->seq < b->seq ? 1 : a->seq > b->seq ? -1 : 0;
}

static cu_index *index_for(pd_dwarf_cache *c, Dwarf_Die *cu)
{
	Dwarf_Off key = dwarf_dieoffset(cu);
	cu_index *x = pd_symhash_get(&c->cus, key, 0);
	if (x)
		return x;
	x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	if (index_children(cu, x, 0) < 0 ||
	    (x->n && !(x->maxhi = malloc(x->n * sizeof *x->maxhi))) ||
	    pd_symhash_put(&c->cus, key, 0, x) < 0) {
		free(x->v);
		free(x->maxhi);
		free(x);
		return NULL;
	}
	if (x->n)
		qsort(x->v, x->n, sizeof *x->v, cmp_range);
	Dwarf_Addr m = 0;
	for (size_t i = 0; i < x->n; i++) {
		if (x->v[i].hi > m)
			m = x->v[i].hi;
		x->maxhi[i] = m;
	}
	return x;
}

static bool block_tag(int tag)
{
	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_try_block || tag == DW_TAG_catch_block ||
	       tag == DW_TAG_with_stmt || tag == DW_TAG_entry_point;
}

/* The child of `parent` whose ranges hold `pc`; blocks without any
 * ranges (kept by gcc for scoping) are looked through. */
static bool child_with_pc(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die child;
	if (depth > 16 || dwarf_child(parent, &child) != 0)
		return false;
	do {
		if (!block_tag(dwarf_tag(&child)))
			continue;
		if (dwarf_haspc(&child, pc) > 0) {
			*out = child;
			return true;
		}
		if (!dwarf_hasattr(&child, DW_AT_low_pc) && !dwarf_hasattr(&child, DW_AT_ranges) &&
		    child_with_pc(&child, pc, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Physical nesting at `pc`, innermost first, into `out` (room for
 * PD_MAX_DEPTH); 0 when the index has no function there. */
static int nesting_indexed(pd_dwarf_cache *c, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
	cu_index *x = index_for(c, cu);
	if (!x)
		return 0;
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	const subrange *hit = NULL;
	for (size_t j = lo; j-- > 0 && x->maxhi[j] > pc;)
		if (pc < x->v[j].hi) {
			hit = &x->v[j];
			break;
		}
	if (!hit)
		return 0;
	Dwarf_Die path[PD_MAX_DEPTH];
	int n = 0;
	path[n++] = hit->die;
	while (n < PD_MAX_DEPTH && child_with_pc(&path[n - 1], pc, &path[n], 0))
		n++;
	for (int i = 0; i < n; i++)
		out[i] = path[n - 1 - i];
	return n;
}

/* The same through dwarf_getscopes (reference and fallback); `*own`
 * receives what to free. */
static int nesting_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes_out, Dwarf_Die **own)
{
	Dwarf_Die *scopes = NULL;
	*own = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes);
	if (n <= 0) {
		free(scopes);
		return 0;
	}
	int inl = -1;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_inlined_subroutine) {
			inl = i;
			break;
		}
		if (tag == DW_TAG_subprogram)
			break;
	}
	if (inl < 0) {
		*scopes_out = scopes;
		*own = scopes;
		return n;
	}
	Dwarf_Die *phys = NULL;
	int m = dwarf_getscopes_die(&scopes[inl], &phys);
	free(scopes);
	if (m <= 0) {
		free(phys);
		return 0;
	}
	*scopes_out = phys;
	*own = phys;
	return m;
}

bool pd_dwarf_lookup_flags(Dwfl_Module *mod, pd_dwarf_cache *cache, uint64_t addr,
			   unsigned flags, pd_dwarf_info *out)
{
	memset(out, 0, sizeof *out);
	bool want_inline = (flags & PD_DWARF_INLINE) != 0;
	bool lines = (flags & (PD_DWARF_FUNC_LINE | PD_DWARF_INLINE_LINES)) != 0;
	/* The address's own line costs the CU's whole line table (read and
	 * sorted by libdw): fetched only when a frame shows it. */
	bool have_leaf = (flags & PD_DWARF_FUNC_LINE) != 0;
	const char *file = NULL;
	unsigned line = 0;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = find_cu(mod, addr, &bias);
	if (have_leaf)
		addr_line(mod, cu, addr, bias, &file, &line);
	out->func_file = file;
	out->func_line = line;
	if (!cu)
		return file != NULL;
	out->unit = dwarf_diename(cu);

	Dwarf_Die buf[PD_MAX_DEPTH];
	Dwarf_Die *phys = buf, *own = NULL;
	int nphys = cache ? nesting_indexed(cache, cu, addr - bias, buf) : 0;
	if (nphys == 0)
		nphys = nesting_scopes(cu, addr - bias, &phys, &own);

	for (int i = 0; i < nphys; i++) {
		int tag = dwarf_tag(&phys[i]);
		if (tag == DW_TAG_inlined_subroutine && want_inline) {
			if (lines && !have_leaf) {
				addr_line(mod, cu, addr, bias, &file, &line);
				have_leaf = true;
			}
			if (out->ninline < PD_MAX_INLINE) {
				pd_inline_frame *f = &out->inl[out->ninline++];
				f->raw = pd_dwarf_die_name(&phys[i]);
				f->file = file;
				f->line = line;
			}
			/* the call site's file also needs the line table */
			if (lines)
				call_site(&phys[i], &file, &line);
		} else if (tag == DW_TAG_subprogram) {
			out->func_raw = pd_dwarf_die_name(&phys[i]);
			Dwarf_Addr low;
			if (dwarf_entrypc(&phys[i], &low) == 0)
				out->func_low = low + bias;
			break;
		}
	}
	out->func_file = file;
	out->func_line = line;
	free(own);
	return true;
}

bool pd_dwarf_lookup(Dwfl_Module *mod, pd_dwarf_cache *cache, uint64_t addr, bool want_inline,
		     pd_dwarf_info *out)
{
	unsigned flags = PD_DWARF_FUNC_LINE | PD_DWARF_INLINE_LINES |
			 (want_inline ? PD_DWARF_INLINE : 0);
	return pd_dwarf_lookup_flags(mod, cache, addr, flags, out);
}
