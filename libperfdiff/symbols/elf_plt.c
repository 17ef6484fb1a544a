/*
 * Names for x86-64 PLT stubs.  The stubs have no symbols; each one jumps
 * through a GOT slot that a relocation names.  Decoding the jump instead
 * of assuming "entry i belongs to relocation i" matters: libc's .plt is not
 * in .rela.plt order, and with IBT the calls go to .plt.sec, not .plt.
 */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>

#include "symb_internal.h"

#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

typedef struct got_slot {
	uint64_t got;
	const char *sym;   /* NULL: IRELATIVE, named from `addend` */
	uint64_t addend;
} got_slot;

typedef struct slots {
	got_slot *v;
	size_t n, cap;
} slots;

static int cmp_slot(const void *a, const void *b)
{
	const got_slot *x = a, *y = b;
	return x->got < y->got ? -1 : x->got > y->got;
}

static int push(slots *s, got_slot g)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		got_slot *nv = realloc(s->v, ncap * sizeof *nv);
		if (!nv)
			return PD_ENOMEM;
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n++] = g;
	return 0;
}

/* Slots filled by JUMP_SLOT, GLOB_DAT (functions whose address is also
 * taken: .plt.got) and IRELATIVE relocations of one SHT_RELA section. */
static int read_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, slots *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	if (!data || !data->d_buf || !symscn || !gelf_getshdr(symscn, &symsh))
		return 0;
	Elf_Data *symdata = elf_getdata(symscn, NULL);
	if (!symdata || !symdata->d_buf)
		return 0;
	size_t entsize = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	if (!entsize)
		return 0;
	size_t n = data->d_size / entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		if (!gelf_getrela(data, (int)i, &r))
			break;
		unsigned type = (unsigned)GELF_R_TYPE(r.r_info);
		size_t symi = GELF_R_SYM(r.r_info);
		got_slot g = { .got = r.r_offset };
		if (type == R_X86_64_IRELATIVE) {
			g.addend = (uint64_t)r.r_addend;
		} else if ((type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) && symi) {
			GElf_Sym sym;
			if (!gelf_getsym(symdata, (int)symi, &sym))
				continue;
			g.sym = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!g.sym || !g.sym[0])
				continue;
		} else {
			continue;
		}
		if (push(out, g) < 0)
			return PD_ENOMEM;
	}
	return 0;
}

/*
 * The GOT slot an entry jumps through: `jmp *disp32(%rip)` (ff 25), maybe
 * after `bnd` (f2) and/or `endbr64` (f3 0f 1e fa).  Only those positions:
 * scanning for ff 25 anywhere could hit the bytes of an immediate.
 */
static bool decode_jmp(const uint8_t *p, size_t n, uint64_t vaddr, uint64_t *slot)
{
	size_t at = 0;
	if (n >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		at = 4;
	if (at < n && p[at] == 0xf2)
		at++;
	if (n < at + 6 || p[at] != 0xff || p[at + 1] != 0x25)
		return false;
	int32_t disp = (int32_t)pd_ld32(p + at + 2, false);
	*slot = vaddr + at + 6 + (uint64_t)(int64_t)disp;
	return true;
}

static const got_slot *find_slot(const slots *s, uint64_t got)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo].got == got ? &s->v[lo] : NULL;
}

static char *plt_name(pd_arena *a, const pd_plt_sink *sink, const got_slot *g)
{
	char buf[64];
	const char *base = g->sym;
	if (!base && sink->ifunc_name)
		base = sink->ifunc_name(sink->ctx, g->addend);
	if (!base) {
		/* binutils' spelling for an IRELATIVE slot it cannot name */
		snprintf(buf, sizeof buf, "*ABS*+0x%llx", (unsigned long long)g->addend);
		base = buf;
	}
	/* symtab names of versioned symbols carry "@@GLIBC_2.14"; the stub
	 * is named by the bare name, as for JUMP_SLOT relocations */
	size_t n = strcspn(base, "@");
	if (n == 0)
		n = strlen(base);
	char *s = pd_arena_alloc(a, n + 5);
	if (s) {
		memcpy(s, base, n);
		memcpy(s + n, "@plt", 5);
	}
	return s;
}

int pd_plt_entries(Elf *elf, pd_arena *arena, const pd_plt_sink *sink)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;

	slots s = { 0 };
	int rc = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && rc == 0; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			rc = read_relocs(elf, scn, &sh, &s);
	}
	if (rc < 0 || s.n == 0) {
		free(s.v);
		return rc;
	}
	qsort(s.v, s.n, sizeof *s.v, cmp_slot);

	int count = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (strcmp(name, ".plt") && strcmp(name, ".plt.sec") &&
			      strcmp(name, ".plt.got")))
			continue;
		/* A debug file keeps the header but not the bytes (NOBITS). */
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		uint64_t ent = sh.sh_entsize == 8 || sh.sh_entsize == 16 ? sh.sh_entsize
			     : strcmp(name, ".plt.got") == 0 ? 8 : 16;
		size_t len = d->d_size < sh.sh_size ? d->d_size : sh.sh_size;
		for (size_t off = 0; off + ent <= len; off += ent) {
			uint64_t slot;
			if (!decode_jmp((const uint8_t *)d->d_buf + off, ent, sh.sh_addr + off, &slot))
				continue;
			const got_slot *g = find_slot(&s, slot);
			if (!g)
				continue;
			char *pn = plt_name(arena, sink, g);
			if (!pn || sink->add(sink->ctx, sh.sh_addr + off, ent, pn) < 0) {
				free(s.v);
				return PD_ENOMEM;
			}
			count++;
		}
	}
	free(s.v);
	return count;
}
