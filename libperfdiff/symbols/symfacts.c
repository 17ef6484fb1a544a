/*
 * Symbol facts, the symbol-table half (see symfacts.h): the set of
 * functions a dso's files define, as keys of their displayed names.  Read
 * only when a caller asks whether a function exists, never while a
 * recording is read: the tables the symbolizer builds hold one name per
 * address, and aliases count here ("poll" and "__poll" both exist).
 *
 * ELF: every defined function, IFUNC and code label of .symtab and
 * .dynsym, of the file and of its debug file, and the PLT stubs the
 * symbolizer names "<name>@plt".  Only a .symtab is a whole table: a
 * stripped file's .dynsym lacks static functions.  Kernel: the kallsyms
 * text symbols of one module or of core text (with the vmlinux's, when
 * one named core text).
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kallsyms.h"
#include "symb_internal.h"
#include "symfacts.h"

typedef struct builder {
	const pd_symkey *k;
	pd_arena arena;   /* demangled names, PLT names */
	pd_keyset keys;
} builder;

int pd_keyset_push(pd_keyset *s, uint64_t key)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		uint64_t *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = key;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void pd_keyset_seal(pd_keyset *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, cmp_u64);
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (k == 0 || s->v[i] != s->v[k - 1])
			s->v[k++] = s->v[i];
	s->n = k;
}

void pd_keyset_free(pd_keyset *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}

bool pd_keyset_has(const pd_keyset *s, uint64_t key)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo] == key;
}

/* The key of `raw` displayed as the session displays it. */
static int push(builder *b, const char *raw, bool demangle)
{
	const char *name = raw;
	if (demangle && b->k->demangle && raw[0] == '_') {
		const char *d = pd_demangle_opts(raw, b->k->params, &b->arena);
		if (d)
			name = d;
	}
	return pd_keyset_push(&b->keys, b->k->key(b->k->ctx, name));
}

/* ------------------------------------------------------------ ELF */

/* A sizeless label the symbolizer would name code by: in a code section. */
static bool code_label(Elf *elf, const GElf_Sym *sym, const char *name)
{
	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE || sym->st_size != 0 || name[0] == '$' ||
	    (name[0] == '.' && name[1] == 'L'))
		return false;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	return scn && gelf_getshdr(scn, &sh) &&
	       (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR);
}

/* The functions of one symbol table section; *funcs counts them. */
static int read_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, builder *b, size_t *funcs)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || sh->sh_entsize == 0)
		return 0;
	size_t count = d->d_size / sh->sh_entsize;
	for (size_t i = 1; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE ||
		    !(name = elf_strptr(elf, sh->sh_link, sym.st_name)) || !name[0])
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !code_label(elf, &sym, name))
			continue;
		int rc = push(b, name, true);
		if (rc < 0)
			return rc;
		++*funcs;
	}
	return 0;
}

static int plt_add(void *ctx, uint64_t vaddr, uint64_t size, const char *name)
{
	(void)vaddr;
	(void)size;
	return push(ctx, name, true);
}

/* The tables of one ELF file (PLT stubs with `plt`); *full when it has a
 * .symtab that defines functions. */
static int read_elf(Elf *elf, builder *b, bool plt, bool *full)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		size_t funcs = 0;
		int rc = read_table(elf, scn, &sh, b, &funcs);
		if (rc < 0)
			return rc;
		if (sh.sh_type == SHT_SYMTAB && funcs)
			*full = true;
	}
	pd_plt_sink sink = { .ctx = b, .add = plt_add, .ifunc_name = NULL };
	return plt && pd_plt_entries(elf, &b->arena, &sink) < 0 ? PD_ENOMEM : 0;
}

static int read_elf_file(const char *path, builder *b, bool plt, bool *full, pd_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pd_error_reason(err, PD_EIO, "%s: cannot be opened", path);
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = pd_error_reason(err, PD_ECORRUPT, "%s: not an ELF file", path);
	} else if ((rc = read_elf(elf, b, plt, full)) < 0) {
		pd_error_reason(err, rc, "%s: out of memory", path);
	}
	elf_end(elf);
	close(fd);
	return rc;
}

/* ------------------------------------------------------------ kernel */

static int read_kallsyms(const pd_kallsyms *ks, const char *module, builder *b)
{
	for (size_t i = 0; i < pd_kallsyms_name_count(ks); i++) {
		const pd_kallsym *s = pd_kallsyms_name_at(ks, i);
		bool mine = module ? s->module && strcmp(s->module, module) == 0 : !s->module;
		int rc = mine ? push(b, s->name, false) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int read_kernel(const pd_symsrc *src, builder *b, pd_error *err)
{
	pd_kallsyms *ks = NULL;
	int rc = 0;
	if (src->kallsyms &&
	    (rc = pd_kallsyms_load_flags(&ks, src->kallsyms, src->kflags, err)) == 0)
		rc = read_kallsyms(ks, src->module, b);
	pd_kallsyms_free(ks);
	if (rc == 0 && src->vmlinux && !src->module) {
		uint8_t bid[PD_BUILD_ID_MAX];
		size_t nbid = sizeof bid;
		bool have_text;
		uint64_t text;
		if ((rc = pd_vmlinux_load(src->vmlinux, &ks, &have_text, &text, bid, &nbid,
					  err)) == 0)
			rc = read_kallsyms(ks, NULL, b);
		pd_kallsyms_free(ks);
	}
	return rc;
}

int pd_symfacts_symbols(const pd_symsrc *src, const pd_symkey *k, pd_keyset *out, bool *full,
			pd_error *err)
{
	builder b = { .k = k };
	pd_arena_init(&b.arena);
	*full = false;
	memset(out, 0, sizeof *out);
	int rc;
	if (src->kind == PD_SYMSRC_KALLSYMS) {
		rc = read_kernel(src, &b, err);
		*full = rc == 0;
	} else {
		rc = read_elf_file(src->elf_path, &b, true, full, err);
		if (rc == 0 && src->debug_path)
			rc = read_elf_file(src->debug_path, &b, false, full, err);
	}
	if (rc == 0) {
		pd_keyset_seal(&b.keys);
		*out = b.keys;
	} else {
		*full = false;
		pd_keyset_free(&b.keys);
	}
	pd_arena_free(&b.arena);
	return rc;
}
