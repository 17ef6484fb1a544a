/*
 * The libunwind back end (--unwinder=libunwind): libunwind's remote
 * unwinder run over a sample's register and stack copy.
 *
 * libunwind asks for everything through accessors: memory (the stack copy,
 * else the bytes of the ELF file mapped at that address: it parses
 * .eh_frame_hdr, .eh_frame and instruction bytes through that), registers
 * (the sample's, by DWARF number, which libunwind's x86_64 numbering
 * follows) and unwind info for an ip (find_proc_info: we locate the
 * file's .eh_frame_hdr through PT_GNU_EH_FRAME and let libunwind's
 * exported but undeclared dwarf_search_unwind_table binary-search it; a
 * file without .eh_frame_hdr, such as an old static binary, gets the same
 * table built from its .eh_frame once).
 *
 * Limits, and why libdw is the default:
 *   - x86_64 only (libunwind-x86_64 is what libunwind-generic is here);
 *     other samples yield their first frame, as truncated;
 *   - no .debug_frame: libunwind 1.6.2 keeps its .debug_frame reader
 *     internal (Debian's x86_64 build has none), and feeding it a converted
 *     copy from outside would be fragile, so code whose CFI is only in
 *     .debug_frame stops the unwind (libdw reads it);
 *   - when no CFI covers an ip, libunwind's x86_64 stepper guesses from
 *     %rbp; such guessed frames are dropped (the stack counts as truncated)
 *     so that both back ends report only CFI-proven frames.
 *
 * State.  One address space per process (a small, recycled set), each with
 * libunwind's per-address-space cache (UNW_CACHE_GLOBAL, which despite its
 * name belongs to the address space; UNW_CACHE_PER_THREAD would share one
 * thread-local cache between processes, wrong for remote unwinding).
 * libunwind keeps process-wide memory pools of its own behind locks; this
 * file keeps no global state.  Files are mapped read-only once per dso.
 */
#include "unwind.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#ifdef PD_HAVE_LIBUNWIND

#include <libunwind.h>
#include <sys/mman.h>

#include "util/u64map.h"

/* Exported by libunwind-x86_64 but not declared in its headers. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					       unw_dyn_info_t *di, unw_proc_info_t *pi,
					       int need_unwind_info, void *arg);

/*
 * Tables built for files without .eh_frame_hdr live at addresses no x86_64
 * process can use (non-canonical), 4 GiB apart, so that libunwind's
 * remote table search can read them through access_mem like any other.
 */
#define SYNTH_BASE 0x4000000000000000ull
#define SYNTH_SPAN (1ull << 32)
#define SYNTH_MAX 0x100000ull   /* images with a built table */

/* One binary-search table row as libunwind reads it: offsets from segbase. */
typedef struct synth_entry {
	int32_t start;
	int32_t fde;
} synth_entry;

/* Address spaces kept at once; the least recently used one is recycled. */
#define MAX_SPACES 64
/* Images (dso + bias) a process remembers for memory reads. */
#define MAX_SEEN 32

/* A dso's file as libunwind needs it. */
typedef struct image {
	struct image *next;
	const pd_unwind_file *file;   /* NULL: no usable file */
	const uint8_t *data;          /* the whole file, mapped read-only */
	size_t size;
	bool has_table;               /* a usable .eh_frame_hdr search table */
	uint64_t hdr_vaddr;           /* .eh_frame_hdr */
	uint64_t table_vaddr;         /* its binary-search table */
	uint64_t fde_count;
	/* without .eh_frame_hdr: a table built from .eh_frame, served at a
	 * made-up address (see SYNTH_BASE) */
	struct synth_entry *synth;
	uint64_t nsynth;
	uint64_t eh_vaddr;            /* .eh_frame, the table's segbase */
	uint64_t synth_addr;          /* where the accessors serve the table */
} image;

typedef struct seen {
	const image *img;
	uint64_t bias;
} seen;

typedef struct space {
	bool used;
	uint32_t pid;
	uint64_t last_use;
	unw_addr_space_t as;
	size_t nseen;
	seen seen[MAX_SEEN];
} space;

struct pd_unwind_libunwind {
	pd_unwind_env env;
	pd_unwind_files *files;
	unw_accessors_t acc;
	pd_u64map images;             /* dso pointer → image */
	image *all;
	image **synth;                /* images with a built table, by number */
	size_t nsynth, cap_synth;
	uint64_t tick;
	space spaces[MAX_SPACES];
};

/* One run(): what the accessors see through their `arg`. */
typedef struct run_ctx {
	pd_unwind_libunwind *u;
	space *sp;
	const pd_unwind_regs *r;
	bool no_info;                 /* find_proc_info found no CFI since the last reset */
} run_ctx;

/* ------------------------------------------------------------ ELF images */

static bool in_file(size_t size, uint64_t off, uint64_t n)
{
	return off <= size && n <= size - off;
}

static uint64_t ld(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	memcpy(&v, p, n); /* x86_64: the file and the host are little-endian */
	return v;
}

/* Byte size of a DW_EH_PE-encoded value we accept in .eh_frame_hdr, or 0. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x03: case 0x0b: return 4;   /* udata4, sdata4 */
	case 0x04: case 0x0c: return 8;   /* udata8, sdata8 */
	default: return 0;
	}
}

/*
 * Find .eh_frame_hdr through PT_GNU_EH_FRAME and check that its table is
 * the one libunwind can search: datarel sdata4 pairs, inside the file.
 */
static void find_table(image *im)
{
	const uint8_t *d = im->data;
	if (im->size < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) != 0 ||
	    d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
		return;
	Elf64_Ehdr eh;
	memcpy(&eh, d, sizeof eh);
	if (eh.e_machine != EM_X86_64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_file(im->size, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr)))
		return;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, d + eh.e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
		if (ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_filesz < 4 || !in_file(im->size, ph.p_offset, ph.p_filesz))
			return;
		const uint8_t *h = d + ph.p_offset;
		size_t ptr_size = enc_size(h[1]), count_size = enc_size(h[2]);
		if (h[0] != 1 || h[2] == 0xff || h[3] != 0x3b || !ptr_size || !count_size ||
		    4 + ptr_size + count_size > ph.p_filesz)
			return;
		uint64_t count = ld(h + 4 + ptr_size, count_size);
		uint64_t head = 4 + ptr_size + count_size;
		if (count == 0 || count > (ph.p_filesz - head) / 8)
			return;
		im->hdr_vaddr = ph.p_vaddr;
		im->table_vaddr = ph.p_vaddr + head;
		im->fde_count = count;
		im->has_table = true;
		return;
	}
}

/* ------------------------------------------- .eh_frame without its header */

/* A bounded cursor over file bytes. */
typedef struct cur {
	const uint8_t *p, *end;
	bool bad;
} cur;

static uint64_t take(cur *c, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	uint64_t v = ld(c->p, n);
	c->p += n;
	return v;
}

static uint64_t uleb(cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; !c->bad; shift += 7) {
		uint8_t b = (uint8_t)take(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* Size of a DW_EH_PE value format (absptr is 8 bytes here), or 0. */
static size_t value_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: return 8;
	case 0x02: case 0x0a: return 2;
	default: return enc_size(enc);
	}
}

/* The FDE pointer encoding of the CIE at `c` (after its id), or -1. */
static int cie_fde_encoding(cur c)
{
	uint8_t version = (uint8_t)take(&c, 1);
	const uint8_t *aug = c.p;
	while (!c.bad && take(&c, 1) != 0)
		;
	if (c.bad || (version != 1 && version != 3) || aug[0] == 'e')
		return -1;   /* old "eh" augmentations are not handled */
	uleb(&c);          /* code alignment */
	uleb(&c);          /* data alignment (the sign does not matter here) */
	if (version == 1)
		take(&c, 1);
	else
		uleb(&c);  /* return address column */
	if (aug[0] != 'z')
		return 0x00;  /* absptr */
	uleb(&c);          /* augmentation data length */
	for (const uint8_t *a = aug + 1; *a && !c.bad; a++) {
		if (*a == 'R')
			return (int)take(&c, 1);
		if (*a == 'L')
			take(&c, 1);
		else if (*a == 'P') {
			size_t n = value_size((uint8_t)take(&c, 1));
			if (!n)
				return -1;
			take(&c, n);
		} else if (*a != 'S' && *a != 'B')
			return -1;
	}
	return c.bad ? -1 : 0x00;
}

static int cmp_synth(const void *a, const void *b)
{
	const synth_entry *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/*
 * Build the search table .eh_frame_hdr would hold from .eh_frame itself
 * (old static binaries have no header; libdw scans .eh_frame then too).
 */
static int build_synth(pd_unwind_libunwind *u, image *im)
{
	const uint8_t *d = im->data;
	Elf64_Ehdr eh;
	if (im->size < sizeof eh || memcmp(d, ELFMAG, SELFMAG) != 0 ||
	    d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
		return 0;
	memcpy(&eh, d, sizeof eh);
	if (eh.e_machine != EM_X86_64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shstrndx >= eh.e_shnum ||
	    !in_file(im->size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
		return 0;
	Elf64_Shdr strtab, sec;
	memcpy(&strtab, d + eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof strtab, sizeof strtab);
	if (!in_file(im->size, strtab.sh_offset, strtab.sh_size))
		return 0;
	bool found = false;
	for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
		memcpy(&sec, d + eh.e_shoff + (uint64_t)i * sizeof sec, sizeof sec);
		const char *name = (const char *)d + strtab.sh_offset + sec.sh_name;
		found = sec.sh_name < strtab.sh_size &&
			strnlen(name, strtab.sh_size - sec.sh_name) == 9 &&
			memcmp(name, ".eh_frame", 9) == 0 && sec.sh_type != SHT_NOBITS &&
			in_file(im->size, sec.sh_offset, sec.sh_size);
	}
	if (!found || u->nsynth >= SYNTH_MAX)
		return 0;
	const uint8_t *base = d + sec.sh_offset;
	uint64_t size = sec.sh_size, off = 0, n = 0, cap = 0;
	synth_entry *t = NULL;
	while (size - off >= 4) {
		uint64_t len = ld(base + off, 4), head = 4;
		if (len == 0)
			break;
		if (len == 0xffffffffu) {
			if (size - off < 12)
				break;
			len = ld(base + off + 4, 8);
			head = 12;
		}
		if (len < 4 || len > size - off - head)
			break;
		uint64_t id_off = off + head;
		uint32_t id = (uint32_t)ld(base + id_off, 4);
		uint64_t next = off + head + len;
		if (id != 0 && id <= id_off) {
			/* an FDE: its CIE is `id` bytes before the id field */
			uint64_t cie = id_off - id, cie_len = ld(base + cie, 4);
			int enc = -1;
			if (cie_len != 0xffffffffu && cie_len >= 4 && cie_len <= size - cie - 4 &&
			    ld(base + cie + 4, 4) == 0)
				enc = cie_fde_encoding((cur){ base + cie + 8, base + cie + 4 + cie_len,
							      false });
			cur c = { base + id_off + 4, base + next, false };
			size_t vs = enc >= 0 ? value_size((uint8_t)enc) : 0;
			uint64_t raw = vs ? take(&c, vs) : 0;
			if (vs && !c.bad && ((enc & 0x70) == 0x00 || (enc & 0x70) == 0x10)) {
				if ((enc & 0x08) && vs < 8)   /* signed: extend */
					raw = (uint64_t)((int64_t)(raw << (64 - 8 * vs)) >> (64 - 8 * vs));
				uint64_t field = sec.sh_addr + id_off + 4;
				uint64_t start = (enc & 0x70) == 0x10 ? field + raw : raw;
				int64_t rel = (int64_t)(start - sec.sh_addr);
				if (rel >= INT32_MIN && rel <= INT32_MAX && off <= INT32_MAX) {
					if (n == cap) {
						cap = cap ? 2 * cap : 256;
						synth_entry *nt = realloc(t, cap * sizeof *t);
						if (!nt) {
							free(t);
							return PD_ENOMEM;
						}
						t = nt;
					}
					t[n++] = (synth_entry){ (int32_t)rel, (int32_t)off };
				}
			}
		}
		off = next;
	}
	if (n == 0 || n > SYNTH_SPAN / sizeof *t) {
		free(t);
		return 0;
	}
	if (u->nsynth == u->cap_synth) {
		size_t c = u->cap_synth ? 2 * u->cap_synth : 16;
		image **ns = realloc(u->synth, c * sizeof *ns);
		if (!ns) {
			free(t);
			return PD_ENOMEM;
		}
		u->synth = ns;
		u->cap_synth = c;
	}
	qsort(t, n, sizeof *t, cmp_synth);
	im->synth = t;
	im->nsynth = n;
	im->eh_vaddr = sec.sh_addr;
	im->synth_addr = SYNTH_BASE + (uint64_t)u->nsynth * SYNTH_SPAN;
	u->synth[u->nsynth++] = im;
	return 0;
}

/* The word at a made-up table address, if it is one. */
static bool synth_word(const pd_unwind_libunwind *u, uint64_t addr, uint64_t *out)
{
	if (addr < SYNTH_BASE || (addr - SYNTH_BASE) / SYNTH_SPAN >= u->nsynth)
		return false;
	const image *im = u->synth[(addr - SYNTH_BASE) / SYNTH_SPAN];
	uint64_t off = (addr - SYNTH_BASE) % SYNTH_SPAN, bytes = im->nsynth * sizeof *im->synth;
	if (off >= bytes)
		return false;
	uint64_t v = 0;
	memcpy(&v, (const uint8_t *)im->synth + off, bytes - off < 8 ? bytes - off : 8);
	*out = v;
	return true;
}

static image *get_image(pd_unwind_libunwind *u, const pd_dso_id *dso)
{
	image *im = pd_u64map_get(&u->images, (uintptr_t)dso);
	if (im)
		return im;
	im = calloc(1, sizeof *im);
	if (!im)
		return NULL;
	const pd_unwind_file *f = pd_unwind_file_get(u->files, dso);
	if (f && f->fd >= 0 && f->size > 0 && f->size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
		if (m != MAP_FAILED) {
			im->file = f;
			im->data = m;
			im->size = (size_t)f->size;
			find_table(im);
			if (!im->has_table && build_synth(u, im) < 0) {
				munmap(m, (size_t)f->size);
				free(im);
				return NULL;
			}
		}
	}
	if (pd_u64map_put(&u->images, (uintptr_t)dso, im) < 0) {
		if (im->data)
			munmap((void *)im->data, im->size);
		free(im);
		return NULL;
	}
	im->next = u->all;
	u->all = im;
	return im;
}

/* Copy the word at ELF vaddr `va` of `im` from its file bytes; bytes past
 * the file's end read as zero.  False when no PT_LOAD's file part holds va. */
static bool image_word(const image *im, uint64_t va, uint64_t *out)
{
	const pd_unwind_file *f = im->file;
	for (size_t i = 0; i < f->nloads; i++) {
		const pd_unwind_load *l = &f->loads[i];
		if (va < l->vaddr || va - l->vaddr >= l->filesz)
			continue;
		uint64_t off = l->offset + (va - l->vaddr);
		if (off >= im->size)
			return false;
		size_t n = im->size - off < 8 ? (size_t)(im->size - off) : 8;
		uint64_t v = 0;
		memcpy(&v, im->data + off, n);
		*out = v;
		return true;
	}
	return false;
}

/* Remember that `img` is mapped at `bias` in this process. */
static void note_seen(space *sp, const image *img, uint64_t bias)
{
	for (size_t i = 0; i < sp->nseen; i++)
		if (sp->seen[i].img == img && sp->seen[i].bias == bias)
			return;
	if (sp->nseen == MAX_SEEN)
		sp->nseen--; /* drop the oldest; it is found again through the maps */
	memmove(sp->seen + 1, sp->seen, sp->nseen * sizeof *sp->seen);
	sp->seen[0] = (seen){ img, bias };
	sp->nseen++;
}

/* The image and bias of the user map holding `addr`, or NULL. */
static const image *image_at(run_ctx *rc, uint64_t addr, const pd_map **map_out,
			     uint64_t *bias)
{
	pd_unwind_libunwind *u = rc->u;
	const pd_map *map = u->env.find_map(u->env.ctx, rc->sp->pid, addr);
	if (map_out)
		*map_out = map;
	if (!map || !map->dso || map->dso->kernel)
		return NULL;
	const image *im = get_image(u, map->dso);
	if (!im || !im->file || !pd_unwind_file_bias(im->file, map, bias))
		return NULL;
	note_seen(rc->sp, im, *bias);
	return im;
}

/* ------------------------------------------------------------- accessors */

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	run_ctx *rc = arg;
	uint64_t bias;
	const image *im = image_at(rc, ip, NULL, &bias);
	if (!im || (!im->has_table && !im->synth)) {
		rc->no_info = true;
		return -UNW_ENOINFO;
	}
	/* the segment holding ip bounds the table's validity */
	uint64_t va = ip - bias;
	const pd_unwind_load *seg = NULL;
	for (size_t i = 0; i < im->file->nloads; i++) {
		const pd_unwind_load *l = &im->file->loads[i];
		if (va >= l->vaddr && va - l->vaddr < l->memsz) {
			seg = l;
			break;
		}
	}
	if (!seg) {
		rc->no_info = true;
		return -UNW_ENOINFO;
	}
	unw_dyn_info_t di;
	memset(&di, 0, sizeof di);
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = bias + seg->vaddr;
	di.end_ip = bias + seg->vaddr + seg->memsz;
	if (im->has_table) {
		di.u.rti.segbase = bias + im->hdr_vaddr;
		di.u.rti.table_data = bias + im->table_vaddr;
		/* in words; each entry is two 4-byte values */
		di.u.rti.table_len = im->fde_count * 8 / sizeof(unw_word_t);
	} else {
		di.u.rti.segbase = bias + im->eh_vaddr;
		di.u.rti.table_data = im->synth_addr;
		di.u.rti.table_len = im->nsynth * sizeof(synth_entry) / sizeof(unw_word_t);
	}
	int ret = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
	if (ret < 0)
		rc->no_info = true;
	return ret;
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees what dwarf_search_unwind_table allocated itself */
	(void)as, (void)pi, (void)arg;
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap, void *arg)
{
	(void)as, (void)dilap, (void)arg;
	return -UNW_ENOINFO;
}

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp,
			  int write, void *arg)
{
	(void)as;
	run_ctx *rc = arg;
	if (write)
		return -UNW_EINVAL;
	const pd_unwind_regs *r = rc->r;
	if (r->stack && addr >= r->sp && r->stack_size >= 8 &&
	    addr - r->sp <= r->stack_size - 8) {
		memcpy(valp, r->stack + (addr - r->sp), 8);
		return 0;
	}
	if (synth_word(rc->u, addr, valp))
		return 0;
	/* libunwind reads .eh_frame_hdr, .eh_frame and code this way, at
	 * addresses of images find_proc_info has just placed */
	space *sp = rc->sp;
	for (size_t i = 0; i < sp->nseen; i++) {
		uint64_t v;
		if (image_word(sp->seen[i].img, addr - sp->seen[i].bias, &v)) {
			*valp = v;
			return 0;
		}
	}
	uint64_t bias, v;
	const image *im = image_at(rc, addr, NULL, &bias);
	if (im && image_word(im, addr - bias, &v)) {
		*valp = v;
		return 0;
	}
	return -UNW_EINVAL;
}

static int acc_access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp,
			  int write, void *arg)
{
	(void)as;
	run_ctx *rc = arg;
	if (write)
		return -UNW_EREADONLYREG;
	if (regnum < 0 || regnum > UNW_X86_64_RIP || !(rc->r->valid & (1ull << regnum)))
		return -UNW_EBADREG;
	*valp = rc->r->regs[regnum];
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t as, unw_regnum_t regnum, unw_fpreg_t *fpvalp,
			    int write, void *arg)
{
	(void)as, (void)regnum, (void)fpvalp, (void)write, (void)arg;
	return -UNW_EINVAL;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as, (void)cu, (void)arg;
	return -UNW_EINVAL;
}

static int acc_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			     unw_word_t *offp, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)offp, (void)arg;
	return -UNW_EINVAL;
}

/* -------------------------------------------------------------- back end */

int pd_unwind_libunwind_new(pd_unwind_libunwind **out, const pd_unwind_env *env)
{
	*out = NULL;
	if (!env || !env->find_map)
		return PD_EINVAL;
	pd_unwind_libunwind *u = calloc(1, sizeof *u);
	if (!u)
		return PD_ENOMEM;
	u->env = *env;
	if (pd_unwind_files_new(&u->files, env) < 0) {
		free(u);
		return PD_ENOMEM;
	}
	pd_u64map_init(&u->images);
	u->acc = (unw_accessors_t){
		.find_proc_info = acc_find_proc_info,
		.put_unwind_info = acc_put_unwind_info,
		.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
		.access_mem = acc_access_mem,
		.access_reg = acc_access_reg,
		.access_fpreg = acc_access_fpreg,
		.resume = acc_resume,
		.get_proc_name = acc_get_proc_name,
	};
	*out = u;
	return 0;
}

static void drop_space(space *sp)
{
	if (sp->as)
		unw_destroy_addr_space(sp->as);
	memset(sp, 0, sizeof *sp);
}

void pd_unwind_libunwind_free(pd_unwind_libunwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < MAX_SPACES; i++)
		drop_space(&u->spaces[i]);
	for (image *im = u->all, *next; im; im = next) {
		next = im->next;
		if (im->data)
			munmap((void *)im->data, im->size);
		free(im->synth);
		free(im);
	}
	free(u->synth);
	pd_u64map_free(&u->images);
	pd_unwind_files_free(u->files);
	free(u);
}

static space *find_space(pd_unwind_libunwind *u, uint32_t pid)
{
	for (size_t i = 0; i < MAX_SPACES; i++)
		if (u->spaces[i].used && u->spaces[i].pid == pid)
			return &u->spaces[i];
	return NULL;
}

/* The address space of `pid`, created (recycling the least recently used
 * one) when it has none; NULL when libunwind cannot make one. */
static space *get_space(pd_unwind_libunwind *u, uint32_t pid)
{
	space *sp = find_space(u, pid);
	if (!sp) {
		sp = &u->spaces[0];
		for (size_t i = 0; i < MAX_SPACES; i++) {
			if (!u->spaces[i].used) {
				sp = &u->spaces[i];
				break;
			}
			if (u->spaces[i].last_use < sp->last_use)
				sp = &u->spaces[i];
		}
		drop_space(sp);
		sp->as = unw_create_addr_space(&u->acc, 0);
		if (!sp->as)
			return NULL;
		unw_set_caching_policy(sp->as, UNW_CACHE_GLOBAL);
		sp->used = true;
		sp->pid = pid;
	}
	sp->last_use = ++u->tick;
	return sp;
}

void pd_unwind_libunwind_maps_changed(pd_unwind_libunwind *u, uint32_t pid)
{
	if (!u)
		return;
	space *sp = find_space(u, pid);
	if (!sp)
		return;
	/* cached unwind info and image placements may describe old maps */
	unw_flush_cache(sp->as, 0, 0);
	sp->nseen = 0;
}

static const pd_dso_id *dso_of(pd_unwind_libunwind *u, uint32_t pid, uint64_t pc)
{
	const pd_map *map = u->env.find_map(u->env.ctx, pid, pc);
	return map ? map->dso : NULL;
}

/*
 * Whether `pc` is the x86_64 Linux signal trampoline (__restore_rt:
 * mov $15,%rax; syscall).  libunwind's unw_is_signal_frame() only knows
 * once it has stepped past the frame, too late to decide how the frame's
 * own pc is looked up; libdw treats the trampoline and the frame it
 * interrupted as activations, and so does this back end.
 */
static bool is_sigreturn(run_ctx *rc, uint64_t pc)
{
	static const uint8_t code[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	uint64_t w[2], bias;
	const image *im = image_at(rc, pc, NULL, &bias);
	if (!im || !image_word(im, pc - bias, &w[0]) || !image_word(im, pc - bias + 8, &w[1]))
		return false;
	return memcmp(w, code, sizeof code) == 0;
}

int pd_unwind_libunwind_run(pd_unwind_libunwind *u, uint32_t pid, const pd_unwind_regs *r,
			    pd_unwind_frame *frames, size_t max, size_t *n,
			    const pd_dso_id **stopped_in)
{
	*n = 0;
	*stopped_in = NULL;
	if (max == 0)
		return PD_UNWIND_COMPLETE;
	frames[0] = (pd_unwind_frame){ r->pc, true };
	*n = 1;
	if (r->e_machine != EM_X86_64) {
		*stopped_in = dso_of(u, pid, r->pc);
		return PD_UNWIND_TRUNCATED;
	}
	space *sp = get_space(u, pid);
	if (!sp)
		return PD_ENOMEM;
	run_ctx rc = { u, sp, r, false };
	unw_cursor_t c;
	int ret = unw_init_remote(&c, sp->as, &rc);
	bool complete = false;
	/* libdw's notion of an activation: the signal trampoline and the
	 * frame it interrupted have exact pcs */
	bool prev_signal = ret >= 0 && is_sigreturn(&rc, r->pc);
	while (ret >= 0 && *n < max) {
		rc.no_info = false;
		int step = unw_step(&c);
		if (step == 0) {
			complete = true;
			break;
		}
		/* a step without CFI is libunwind's %rbp guess: not a proven frame */
		if (step < 0 || rc.no_info)
			break;
		unw_word_t pc;
		if (unw_get_reg(&c, UNW_REG_IP, &pc) < 0)
			break;
		if (pc == 0) {
			complete = true;
			break;
		}
		bool sig = is_sigreturn(&rc, pc);
		frames[(*n)++] = (pd_unwind_frame){ pc, sig || prev_signal };
		prev_signal = sig;
	}
	if (*n == max || pd_unwind_at_entry(u->files, pid, &frames[*n - 1]))
		complete = true;
	if (complete)
		return PD_UNWIND_COMPLETE;
	*stopped_in = dso_of(u, pid, frames[*n - 1].pc);
	return PD_UNWIND_TRUNCATED;
}

#else /* !PD_HAVE_LIBUNWIND */

struct pd_unwind_libunwind {
	int unused;
};

int pd_unwind_libunwind_new(pd_unwind_libunwind **out, const pd_unwind_env *env)
{
	(void)env;
	*out = NULL;
	return PD_EUNSUPPORTED;
}

int pd_unwind_libunwind_run(pd_unwind_libunwind *u, uint32_t pid, const pd_unwind_regs *r,
			    pd_unwind_frame *frames, size_t max, size_t *n,
			    const pd_dso_id **stopped_in)
{
	(void)u, (void)pid, (void)r, (void)frames, (void)max;
	*n = 0;
	*stopped_in = NULL;
	return PD_EUNSUPPORTED;
}

void pd_unwind_libunwind_maps_changed(pd_unwind_libunwind *u, uint32_t pid)
{
	(void)u, (void)pid;
}

void pd_unwind_libunwind_free(pd_unwind_libunwind *u)
{
	(void)u;
}

#endif
