/*
 * One sorted symbol table per dso.  dwfl_module_addrinfo scans the whole
 * symtab on every call (115 µs for libc in elfutils 0.188); a table built
 * once and binary-searched costs well under a microsecond.
 *
 * Which name wins where several symbols start at one address follows
 * perf (so reports match `perf report`): non-weak over weak, global over
 * local, fewer leading underscores, longer name, then symtab order.
 * Sizeless symbols (assembly labels) are a fallback, as in libdwfl: only
 * inside their own section and past the end of every sized symbol below.
 */
#include <gelf.h>
#include <stdlib.h>

#include "symb_internal.h"

typedef struct cand {
	uint64_t start, end;
	const char *name;
	uint32_t idx;
	uint8_t bind, type;
	bool plt;
} cand;

typedef struct label {
	uint64_t start, sec_end;
	const char *name;
	uint32_t idx;
	uint8_t bind;
} label;

struct pd_symtab {
	pd_esym *syms;
	uint64_t *maxend;  /* maxend[i]: highest end among syms[0..i] (nesting) */
	size_t n;
	label *labels;
	size_t nlabels;
};

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

int pd_symbol_prefer(const char *a, int bind_a, const char *b, int bind_b)
{
	bool wa = bind_a == STB_WEAK, wb = bind_b == STB_WEAK;
	if (wa != wb)
		return wa ? -1 : 1;
	bool ga = bind_a == STB_GLOBAL, gb = bind_b == STB_GLOBAL;
	if (ga != gb)
		return ga ? 1 : -1;
	size_t ua = underscores(a), ub = underscores(b);
	if (ua != ub)
		return ua < ub ? 1 : -1;
	size_t la = strlen(a), lb = strlen(b);
	if (la != lb)
		return la > lb ? 1 : -1;
	return 0;
}

static int cmp_cand(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	int p = pd_symbol_prefer(a->name, a->bind, b->name, b->bind);
	if (p)
		return -p;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int bind_rank(int bind)
{
	return bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_LOCAL ? 1 : 0;
}

static int cmp_label(const void *pa, const void *pb)
{
	const label *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	int ra = bind_rank(a->bind), rb = bind_rank(b->bind);
	if (ra != rb)
		return ra > rb ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

typedef struct builder {
	cand *c;
	size_t n, cap;
	size_t nsorted;   /* c[0..nsorted) sorted: the ELF symbols, before PLT entries */
	uint64_t bias;
	uint32_t next_idx;
} builder;

static int add_cand(builder *b, cand x)
{
	if (b->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;
		cand *nc = realloc(b->c, ncap * sizeof *nc);
		if (!nc)
			return PD_ENOMEM;
		b->c = nc;
		b->cap = ncap;
	}
	b->c[b->n++] = x;
	return 0;
}

static int plt_add(void *ctx, uint64_t vaddr, uint64_t size, const char *name)
{
	builder *b = ctx;
	cand x = { .start = vaddr + b->bias, .end = vaddr + b->bias + size, .name = name,
		   .idx = b->next_idx++, .bind = STB_GLOBAL, .type = STT_FUNC, .plt = true };
	return add_cand(b, x);
}

/* An IRELATIVE slot is filled by the resolver at `vaddr`; the IFUNC
 * symbol there is the name the program called. */
static const char *plt_ifunc(void *ctx, uint64_t vaddr)
{
	builder *b = ctx;
	uint64_t a = vaddr + b->bias;
	size_t lo = 0, hi = b->nsorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->c[mid].start < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	const char *first = NULL;
	for (size_t i = lo; i < b->nsorted && b->c[i].start == a; i++) {
		if (b->c[i].type == STT_GNU_IFUNC)
			return b->c[i].name;
		if (!first)
			first = b->c[i].name;
	}
	return first;
}

static bool exec_section(Elf *elf, GElf_Word shndx, uint64_t bias, uint64_t *lo, uint64_t *hi)
{
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
						       (SHF_ALLOC | SHF_EXECINSTR))
		return false;
	*lo = sh.sh_addr + bias;
	*hi = sh.sh_addr + sh.sh_size + bias;
	return true;
}

static int collect(Dwfl_Module *mod, builder *b, label **labels, size_t *nlabels)
{
	int nsyms = dwfl_module_getsymtab(mod);
	size_t lcap = 0;
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr, sbias = 0;
		GElf_Word shndx = 0;
		Elf *symelf = NULL;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &symelf, &sbias);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    shndx == SHN_UNDEF)
			continue;
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		if ((type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_size > 0) {
			if (addr + sym.st_size < addr)
				continue;
			cand x = { .start = addr, .end = addr + sym.st_size, .name = name,
				   .idx = (uint32_t)i, .bind = (uint8_t)bind, .type = (uint8_t)type };
			if (add_cand(b, x) < 0)
				return PD_ENOMEM;
			continue;
		}
		if (sym.st_size != 0 ||
		    (type != STT_NOTYPE && type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    name[0] == '$' || (name[0] == '.' && name[1] == 'L'))
			continue;
		uint64_t lo, hi;
		if (!exec_section(symelf, shndx, sbias, &lo, &hi) || addr < lo || addr >= hi)
			continue;
		if (*nlabels == lcap) {
			size_t ncap = lcap ? lcap * 2 : 64;
			label *nl = realloc(*labels, ncap * sizeof *nl);
			if (!nl)
				return PD_ENOMEM;
			*labels = nl;
			lcap = ncap;
		}
		(*labels)[(*nlabels)++] = (label){ .start = addr, .sec_end = hi, .name = name,
						   .idx = (uint32_t)i, .bind = (uint8_t)bind };
	}
	b->next_idx = nsyms > 0 ? (uint32_t)nsyms : 1;
	return 0;
}

pd_symtab *pd_symtab_build(Dwfl_Module *mod, pd_arena *arena)
{
	pd_symtab *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	builder b = { 0 };
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	b.bias = bias;
	if (collect(mod, &b, &t->labels, &t->nlabels) < 0)
		goto fail;

	if (b.n)
		qsort(b.c, b.n, sizeof *b.c, cmp_cand);
	b.nsorted = b.n;
	pd_plt_sink sink = { .ctx = &b, .add = plt_add, .ifunc_name = plt_ifunc };
	int nplt = elf ? pd_plt_entries(elf, arena, &sink) : 0;
	if (nplt < 0)
		goto fail;
	if (nplt > 0)
		qsort(b.c, b.n, sizeof *b.c, cmp_cand);

	if (b.n) {
		t->syms = malloc(b.n * sizeof *t->syms);
		t->maxend = malloc(b.n * sizeof *t->maxend);
		if (!t->syms || !t->maxend)
			goto fail;
	}
	uint64_t maxend = 0;
	for (size_t i = 0; i < b.n; i++) {
		/* sorted best-first within one start: the first is perf's pick */
		if (i > 0 && b.c[i].start == b.c[i - 1].start)
			continue;
		/* copied, not pooled: a pool probe per name is a cache miss in a
		 * table of every name, and names of different dsos rarely meet */
		const char *name = pd_arena_strndup(arena, b.c[i].name, SIZE_MAX);
		if (!name)
			goto fail;
		t->syms[t->n] = (pd_esym){ .start = b.c[i].start, .end = b.c[i].end,
					   .name = name, .plt = b.c[i].plt };
		if (b.c[i].end > maxend)
			maxend = b.c[i].end;
		t->maxend[t->n++] = maxend;
	}
	free(b.c);

	if (t->nlabels) {
		qsort(t->labels, t->nlabels, sizeof *t->labels, cmp_label);
		size_t k = 0;
		for (size_t i = 0; i < t->nlabels; i++)
			if (k == 0 || t->labels[i].start != t->labels[k - 1].start)
				t->labels[k++] = t->labels[i];
		t->nlabels = k;
		for (size_t i = 0; i < k; i++)
			if (!(t->labels[i].name = pd_arena_strndup(arena, t->labels[i].name, SIZE_MAX)))
				goto fail_labels;
	}
	return t;
fail:
	free(b.c);
fail_labels:
	pd_symtab_free(t);
	return NULL;
}

size_t pd_symtab_bytes(const pd_symtab *t)
{
	return t ? sizeof *t + t->n * (sizeof *t->syms + sizeof *t->maxend) +
			   t->nlabels * sizeof *t->labels : 0;
}

void pd_symtab_free(pd_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->maxend);
	free(t->labels);
	free(t);
}

size_t pd_symtab_count(const pd_symtab *t)
{
	return t ? t->n : 0;
}

bool pd_symtab_find(const pd_symtab *t, uint64_t addr, pd_esym *out)
{
	if (!t)
		return false;
	/* last symbol starting at or below addr */
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Nested symbols: the closest start that still contains addr.  The
	 * prefix maximum of ends stops the walk as soon as nothing below can
	 * reach addr, so this is one step except inside nested ranges. */
	for (size_t j = lo; j-- > 0 && t->maxend[j] > addr;)
		if (addr < t->syms[j].end) {
			*out = t->syms[j];
			return true;
		}

	uint64_t min_label = lo > 0 ? t->maxend[lo - 1] : 0;
	uint64_t next_sym = lo < t->n ? t->syms[lo].start : UINT64_MAX;
	lo = 0;
	hi = t->nlabels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->labels[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	const label *l = &t->labels[lo - 1];
	if (addr >= l->sec_end || l->start < min_label)
		return false;
	uint64_t end = l->sec_end < next_sym ? l->sec_end : next_sym;
	if (lo < t->nlabels && t->labels[lo].start < end)
		end = t->labels[lo].start;
	*out = (pd_esym){ .start = l->start, .end = end, .name = l->name };
	return true;
}
