/*
 * Kernel symbols from a vmlinux ELF.  Its text symbols are rendered as
 * kallsyms lines, in the order the kernel's own kallsyms generator emits
 * aliases, and parsed by kallsyms.c: names for one address, __pfx_
 * padding and symbol ends then follow exactly the rules already used for
 * /proc/kallsyms, so --vmlinux and kallsyms name a frame alike.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kallsyms.h"
#include "symb_internal.h"

typedef struct vsym {
	uint64_t addr;
	const char *name;
	size_t idx;
	char type;
} vsym;

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* Names the linker script provides (__start_x, __stop_x, __end_x,
 * __x_start, __x_end): scripts/kallsyms puts them after the others. */
static bool script_provided(const char *s)
{
	size_t n = strlen(s);
	if (n < 8 || s[0] != '_' || s[1] != '_')
		return false;
	return !strncmp(s + 2, "start_", 6) || !strncmp(s + 2, "stop_", 5) ||
	       !strncmp(s + 2, "end_", 4) || !strcmp(s + n - 6, "_start") ||
	       !strcmp(s + n - 4, "_end");
}

/*
 * The order of one address's names in kallsyms: scripts/kallsyms sorts
 * strong before weak, linker-script names last, fewer leading underscores
 * first, and otherwise keeps its input order, which is `nm -n` (ties by
 * name, LC_COLLATE=C).  perf's alias choice on kallsyms depends on it.
 */
static int cmp_vsym(const void *pa, const void *pb)
{
	const vsym *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	int wa = a->type == 'W' || a->type == 'w', wb = b->type == 'W' || b->type == 'w';
	if (wa != wb)
		return wa - wb;
	int la = script_provided(a->name), lb = script_provided(b->name);
	if (la != lb)
		return la - lb;
	size_t ua = underscores(a->name), ub = underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static bool plain_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

/* Collect the text symbols of `elf`; *text gets _text (or _stext). */
static int collect(Elf *elf, vsym **out, size_t *nout, bool *have_text, uint64_t *text,
		   pd_error *err)
{
	size_t shnum;
	if (elf_getshdrnum(elf, &shnum) < 0) {
		return pd_error_reason(err, PD_ECORRUPT, "no section headers");
	}
	Elf_Scn *symscn = NULL;
	GElf_Shdr symsh;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			symsh = sh;
			break;
		}
	}
	if (!symscn) {
		return pd_error_reason(err, PD_EUNSUPPORTED, "no symbol table (stripped)");
	}
	Elf_Data *data = elf_getdata(symscn, NULL);
	size_t esize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!data || !symsh.sh_entsize || !esize) {
		return pd_error_reason(err, PD_ECORRUPT, "unreadable symbol table");
	}
	/* The count comes from bytes libelf actually holds, not sh_size. */
	size_t n = data->d_size / esize;
	vsym *v = n ? malloc(n * sizeof *v) : NULL;
	if (n && !v)
		return PD_ENOMEM;
	bool have_stext = false;
	uint64_t stext = 0;
	*have_text = false;
	size_t k = 0;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			continue;
		const char *name = elf_strptr(elf, symsh.sh_link, s.st_name);
		if (!plain_name(name))
			continue;
		int type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
		if (type != STT_FUNC && type != STT_NOTYPE)
			continue;
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || s.st_shndx >= shnum)
			continue;
		GElf_Shdr sh;
		Elf_Scn *sec = elf_getscn(elf, s.st_shndx);
		if (!sec || !gelf_getshdr(sec, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (!*have_text && strcmp(name, "_text") == 0) {
			*have_text = true;
			*text = s.st_value;
		} else if (!have_stext && strcmp(name, "_stext") == 0) {
			have_stext = true;
			stext = s.st_value;
		}
		char t = bind == STB_WEAK ? 'W' : bind == STB_LOCAL ? 't' : 'T';
		v[k++] = (vsym){ .addr = s.st_value, .name = name, .idx = i, .type = t };
	}
	if (!*have_text && have_stext) {
		*have_text = true;
		*text = stext;
	}
	*out = v;
	*nout = k;
	return 0;
}

static int render_and_parse(vsym *v, size_t n, pd_kallsyms **out, pd_error *err)
{
	qsort(v, n, sizeof *v, cmp_vsym);
	size_t bytes = 1;
	for (size_t i = 0; i < n; i++)
		bytes += 16 + 3 + strlen(v[i].name) + 1;
	char *text = malloc(bytes);
	if (!text)
		return PD_ENOMEM;
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(text + len, bytes - len, "%016llx %c %s\n",
				 (unsigned long long)v[i].addr, v[i].type, v[i].name);
		if (w < 0 || (size_t)w >= bytes - len)
			break;
		len += (size_t)w;
	}
	int rc = pd_kallsyms_parse(out, text, len, err);
	free(text);
	return rc;
}

int pd_vmlinux_load(const char *path, struct pd_kallsyms **out, bool *have_text, uint64_t *text,
		    uint8_t *build_id, size_t *build_id_size, pd_error *err)
{
	*out = NULL;
	*have_text = false;
	*text = 0;
	int bn = pd_elf_file_build_id(path, build_id, *build_id_size);
	*build_id_size = bn > 0 ? (size_t)bn : 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pd_error_reason(err, PD_EIO, "cannot be opened");
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int rc;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = pd_error_reason(err, PD_EUNSUPPORTED, "not an ELF file");
	} else {
		vsym *v = NULL;
		size_t n = 0;
		rc = collect(elf, &v, &n, have_text, text, err);
		if (rc == 0 && n == 0)
			rc = pd_error_reason(err, PD_EUNSUPPORTED, "no text symbols");
		if (rc == 0)
			rc = render_and_parse(v, n, out, err);
		free(v);
	}
	elf_end(elf);
	close(fd);
	return rc;
}
