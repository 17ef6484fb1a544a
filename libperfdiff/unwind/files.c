/*
 * ELF files behind dsos, for the unwinders: program headers (to place a
 * module at its load bias) and file bytes (perf reads a word the stack copy
 * lacks from the mapped file).  Each file is opened once per back end and
 * kept open with its libelf handle, which the libdw back end's Dwfls share
 * (one per process: without the shared handle each of them mapped, parsed
 * and unmapped the file again); a dso without a file is remembered as such.
 */
#include "unwind.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/u64map.h"

struct pd_unwind_files {
	pd_unwind_env env;
	pd_u64map by_dso;       /* dso pointer → entry (the machine interns dsos) */
	struct entry *all;
};

typedef struct entry {
	struct entry *next;
	bool none;              /* no usable file */
	pd_unwind_file file;
} entry;

int pd_unwind_files_new(pd_unwind_files **out, const pd_unwind_env *env)
{
	pd_unwind_files *f = calloc(1, sizeof *f);
	if (!f)
		return PD_ENOMEM;
	f->env = *env;
	pd_u64map_init(&f->by_dso);
	*out = f;
	return 0;
}

void pd_unwind_files_free(pd_unwind_files *f)
{
	if (!f)
		return;
	for (entry *e = f->all, *next; e; e = next) {
		next = e->next;
		if (e->file.elf)
			elf_end(e->file.elf);
		if (e->file.fd >= 0)
			close(e->file.fd);
		free(e->file.loads);
		free(e);
	}
	pd_u64map_free(&f->by_dso);
	free(f);
}

static bool load_headers(pd_unwind_file *file)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	/* libdwfl's own choice of mode: sections it might patch in place
	 * (decompressed debug sections) land in private pages */
	Elf *elf = elf_begin(file->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!elf)
		return false;
	bool ok = false;
	GElf_Ehdr eh;
	size_t n;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || elf_getphdrnum(elf, &n) < 0 ||
	    n > 4096)
		goto out;
	file->e_type = eh.e_type;
	file->e_machine = eh.e_machine;
	file->is64 = gelf_getclass(elf) == ELFCLASS64;
	file->e_entry = eh.e_entry;
	file->loads = calloc(n ? n : 1, sizeof *file->loads);
	if (!file->loads)
		goto out;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			file->loads[file->nloads++] = (pd_unwind_load){
				.offset = ph.p_offset, .filesz = ph.p_filesz, .vaddr = ph.p_vaddr,
				.memsz = ph.p_memsz, .align = ph.p_align, .flags = ph.p_flags };
	}
	ok = file->nloads > 0;
out:
	if (ok)
		file->elf = elf;
	else
		elf_end(elf);
	return ok;
}

const pd_unwind_file *pd_unwind_file_get(pd_unwind_files *f, const pd_dso_id *dso)
{
	if (!dso)
		return NULL;
	entry *e = pd_u64map_get(&f->by_dso, (uintptr_t)dso);
	if (e)
		return e->none ? NULL : &e->file;
	e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->file.fd = -1;
	const char *path = f->env.elf_path ? f->env.elf_path(f->env.ctx, dso) : NULL;
	struct stat st;
	if (path && (e->file.fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 &&
	    fstat(e->file.fd, &st) == 0 && S_ISREG(st.st_mode) && load_headers(&e->file)) {
		e->file.path = path;
		e->file.size = (uint64_t)st.st_size;
	} else {
		if (e->file.fd >= 0)
			close(e->file.fd);
		e->file.fd = -1;
		free(e->file.loads);
		e->file.loads = NULL;
		e->file.nloads = 0;
		e->none = true;
	}
	if (pd_u64map_put(&f->by_dso, (uintptr_t)dso, e) < 0) {
		if (e->file.elf)
			elf_end(e->file.elf);
		if (e->file.fd >= 0)
			close(e->file.fd);
		free(e->file.loads);
		free(e);
		return NULL;
	}
	e->next = f->all;
	f->all = e;
	return e->none ? NULL : &e->file;
}

/* How far entry code reaches.  x86_64 ld.so's (glibc 2.36) is 61 bytes:
 * _start, `mov %rsp,%rdi; call _dl_start` (returning to entry + 8), then
 * _dl_start_user, which calls _dl_init (returning to entry + 48) and
 * jumps to the program's entry; the next function starts at entry + 64. */
#define ENTRY_SPAN 64

bool pd_unwind_at_entry(pd_unwind_files *f, uint32_t pid, const pd_unwind_frame *last)
{
	uint64_t look = pd_unwind_frame_look(last);
	const pd_map *map = f->env.find_map(f->env.ctx, pid, look);
	if (!map || map->dso->kernel)
		return false;
	const pd_unwind_file *file = pd_unwind_file_get(f, map->dso);
	uint64_t bias;
	if (!file || !file->e_entry || !pd_unwind_file_bias(file, map, &bias))
		return false;
	uint64_t entry = file->e_entry + bias;
	return look >= entry && look - entry < ENTRY_SPAN;
}

bool pd_unwind_file_bias(const pd_unwind_file *file, const pd_map *map, uint64_t *bias)
{
	if (file->e_type == ET_EXEC) {
		*bias = 0;
		return true;
	}
	/* Segments may share a page (offset 0x2dc8 of data after text ending
	 * at 0x2dc0): the machine keeps code maps only, so executable
	 * segments are tried first. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < file->nloads; i++) {
			const pd_unwind_load *l = &file->loads[i];
			if (((l->flags & PF_X) != 0) != (pass == 0))
				continue;
			/* the kernel maps whole pages: pgoff is the segment's
			 * offset rounded down to a page */
			uint64_t page_start = l->offset & ~(uint64_t)0xfff;
			uint64_t end = l->offset + (l->filesz ? l->filesz : 1);
			if (map->pgoff >= page_start && map->pgoff < end) {
				*bias = map->start - (l->vaddr - l->offset + map->pgoff);
				return true;
			}
		}
	return false;
}

int pd_unwind_file_read(const pd_unwind_file *file, uint64_t vaddr, void *buf, size_t n)
{
	for (size_t i = 0; i < file->nloads; i++) {
		const pd_unwind_load *l = &file->loads[i];
		if (vaddr < l->vaddr || vaddr - l->vaddr > l->filesz || n > l->filesz - (vaddr - l->vaddr))
			continue;
		uint64_t off = l->offset + (vaddr - l->vaddr);
		if (off > file->size || n > file->size - off || off > (uint64_t)INT64_MAX)
			return -1;
		ssize_t got = pread(file->fd, buf, n, (off_t)off);
		return got == (ssize_t)n ? 0 : -1;
	}
	return -1;
}

int pd_unwind_read_word(pd_unwind_files *f, uint32_t pid, const pd_unwind_regs *r,
			uint64_t addr, uint64_t *value)
{
	size_t width = r->e_machine == EM_386 ? 4 : 8;
	if (r->stack && addr >= r->sp && r->stack_size >= width &&
	    addr - r->sp <= r->stack_size - width) {
		uint64_t v = 0;
		memcpy(&v, r->stack + (addr - r->sp), width);
		*value = v;
		return 0;
	}
	if (!f || !f->env.find_map)
		return -1;
	const pd_map *map = f->env.find_map(f->env.ctx, pid, addr);
	if (!map || map->dso->kernel || addr > UINT64_MAX - width || addr + width > map->end)
		return -1;
	const pd_unwind_file *file = pd_unwind_file_get(f, map->dso);
	uint64_t bias;
	if (!file || !pd_unwind_file_bias(file, map, &bias))
		return -1;
	uint64_t v = 0;
	if (pd_unwind_file_read(file, addr - bias, &v, width) < 0)
		return -1;
	*value = v;
	return 0;
}
