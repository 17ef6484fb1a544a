/*
 * A copy of a separate debug file with its compressed sections stored
 * plain, in a memfd, for libdw to open instead of the file.
 *
 * libelf inflates SHF_COMPRESSED sections with zlib when dwarf_begin_elf
 * asks for them: about 40 ms for Debian's libc6-dbg file, on the critical
 * path of every process that shows libc's inline frames.  libdeflate does
 * the same work several times faster, and two threads split it further.
 *
 * The image is written by hand rather than through libelf's ELF_C_WRITE:
 * every byte of the original stays at its offset (ELF header, program
 * headers, notes, symbol tables, the section header table), only the
 * entries of the inflated sections change, and their plain contents go
 * past the original end.  So nothing libdwfl checks (build-id note,
 * PT_LOAD addresses) can move, no layout has to be recomputed, and the
 * compressed payloads, which nothing refers to any more, are left as
 * holes that take no memory in the memfd.  libelf only parses the input.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symb_internal.h"

#ifndef PD_INFLATE_THREADS
#define PD_INFLATE_THREADS 2
#endif

/* ch_size limits: a zlib stream hardly expands beyond ~1000x, but debug
 * data compresses 3-5x; anything claiming more is hostile or broken. */
#define MAX_RATIO 64u
#define MAX_SECTION ((uint64_t)1 << 30)
#define MAX_TOTAL ((uint64_t)4 << 30)
#define MAX_ALIGN ((uint64_t)1 << 16)
/* Below this much compressed input a second thread costs more than it saves. */
#define THREAD_MIN_INPUT ((uint64_t)256 << 10)

typedef struct infl_sec {
	size_t idx;
	uint64_t sh_off, sh_len;  /* the section as stored (header included) */
	uint64_t in_off, in_len;  /* the zlib stream */
	uint64_t out_off, out_len;
	uint64_t align;           /* new sh_addralign; 0: keep */
	bool gnu;                 /* legacy .zdebug_*: renamed, sh_addralign kept */
	const char *name;         /* .zdebug name, in the input's .shstrtab */
	uint64_t new_name;        /* sh_name of the renamed section */
	uint64_t name_fix;        /* file offset of the 'z' that becomes '.' */
} infl_sec;

typedef struct inflater {
	const uint8_t *in;
	size_t in_size;
	bool is64, swap;
	infl_sec *secs;
	size_t nsecs;
	uint8_t *out;             /* mapping of the memfd from tail_start on */
	uint64_t tail_start;      /* page aligned */
	uint64_t page;
	pd_threads *threads;      /* the second worker's slot, if one is free */
} inflater;

/* pd_error_reason() under a short name: this file has forty of them. */
static int fail(pd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(pd_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pd_error_vreason(err, code, fmt, ap);
	va_end(ap);
	return code;
}

static uint32_t get32(const inflater *f, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return f->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const inflater *f, const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return f->swap ? __builtin_bswap64(v) : v;
}

static void put32(const inflater *f, uint8_t *p, uint32_t v)
{
	v = f->swap ? __builtin_bswap32(v) : v;
	memcpy(p, &v, 4);
}

static void put64(const inflater *f, uint8_t *p, uint64_t v)
{
	v = f->swap ? __builtin_bswap64(v) : v;
	memcpy(p, &v, 8);
}

/* A word of an ELF structure: 8 bytes in ELF64, 4 in ELF32. */
static void put_word(const inflater *f, uint8_t *p, uint64_t v)
{
	if (f->is64)
		put64(f, p, v);
	else
		put32(f, p, (uint32_t)v);
}

static bool range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static bool align_up(uint64_t *v, uint64_t align)
{
	if (align > 1) {
		uint64_t r = *v % align;
		if (r && *v > UINT64_MAX - (align - r))
			return false;
		if (r)
			*v += align - r;
	}
	return true;
}

/*
 * Record section `idx` if it is a zlib SHF_COMPRESSED section or a legacy
 * .zdebug_* one.  0: recorded or not a candidate (*took says which);
 * < 0: a candidate that is malformed (err filled).
 */
static int classify(inflater *f, Elf *elf, size_t shstrndx, size_t idx, const GElf_Shdr *sh,
		    infl_sec *out, bool *took, pd_error *err)
{
	*took = false;
	/* no contents; an inactive (SHT_NULL) header's other fields mean
	 * nothing, and libelf refuses a Chdr there too */
	if (sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL)
		return 0;
	const char *name = elf_strptr(elf, shstrndx, sh->sh_name);
	bool gnu = !(sh->sh_flags & SHF_COMPRESSED) && name && strncmp(name, ".zdebug", 7) == 0;
	if (!(sh->sh_flags & SHF_COMPRESSED) && !gnu)
		return 0;
	/* A compressed allocated section has no defined meaning (libelf
	 * refuses it too); moving it would leave its segment. */
	if (sh->sh_flags & SHF_ALLOC)
		return 0;
	if (!range_ok(sh->sh_offset, sh->sh_size, f->in_size))
		return fail(err, PD_ECORRUPT, "section %zu lies outside the file", idx);
	const uint8_t *p = f->in + sh->sh_offset;
	uint64_t hdr, size, align = 0;
	if (gnu) {
		hdr = 12;
		if (sh->sh_size < hdr || memcmp(p, "ZLIB", 4) != 0)
			return 0;  /* not the GNU format: leave it as it is */
		size = 0;
		for (int i = 4; i < 12; i++)
			size = size << 8 | p[i];
	} else {
		hdr = f->is64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
		if (sh->sh_size < hdr)
			return fail(err, PD_ECORRUPT,
				    "section %zu is shorter than its compression header", idx);
		if (get32(f, p) != ELFCOMPRESS_ZLIB)
			return 0;  /* zstd or unknown: libelf's business */
		size = f->is64 ? get64(f, p + 8) : get32(f, p + 4);
		align = f->is64 ? get64(f, p + 16) : get32(f, p + 8);
		if (align == 0)
			align = 1;
		if (align & (align - 1) || align > MAX_ALIGN)
			return fail(err, PD_ECORRUPT, "section %zu: bad alignment %llu", idx,
				    (unsigned long long)align);
	}
	uint64_t in_len = sh->sh_size - hdr;
	if (size > MAX_SECTION || size / MAX_RATIO > in_len)
		return fail(err, PD_ECORRUPT, "section %zu claims %llu bytes from %llu", idx,
			    (unsigned long long)size, (unsigned long long)in_len);
	*out = (infl_sec){ .idx = idx, .sh_off = sh->sh_offset, .sh_len = sh->sh_size,
			   .in_off = sh->sh_offset + hdr, .in_len = in_len, .out_len = size,
			   .align = align, .gnu = gnu, .name = gnu ? name : NULL };
	*took = true;
	return 0;
}

typedef struct worker {
	const inflater *f;
	size_t *which;  /* indices into f->secs */
	size_t n;
	uint64_t lent;   /* worker 0: bytes at the end of its first section's
			  * output that worker 1 allocates */
	uint8_t *pre;    /* worker 1: those bytes */
	bool nomem;
	size_t bad;     /* index into f->secs of a section that failed, else SIZE_MAX */
	pthread_t thread;
} worker;

/*
 * Allocate the memfd pages under [p, p+len) in one call rather than a
 * fault per page: allocation costs about half as much as inflating into
 * the pages, and done here the second thread can share it.  Older kernels (< 5.14) refuse; the
 * inflater then faults the pages in.
 */
static void populate(const inflater *f, uint8_t *p, uint64_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(f->page - 1);
	if (len)
		madvise((void *)a, len + ((uintptr_t)p - a), MADV_POPULATE_WRITE);
#else
	(void)f;
	(void)p;
	(void)len;
#endif
}

static void *inflate_some(void *arg)
{
	worker *w = arg;
	w->nomem = false;
	w->bad = SIZE_MAX;
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d) {
		w->nomem = true;
		return NULL;
	}
	if (w->pre)
		populate(w->f, w->pre, w->lent);
	for (size_t i = 0; i < w->n; i++) {
		const infl_sec *s = &w->f->secs[w->which[i]];
		uint8_t *dst = w->f->out + (s->out_off - w->f->tail_start);
		populate(w->f, dst, s->out_len - (i == 0 && !w->pre ? w->lent : 0));
		size_t got = 0;
		enum libdeflate_result r = libdeflate_zlib_decompress(
			d, w->f->in + s->in_off, s->in_len, dst, s->out_len, &got);
		if (r != LIBDEFLATE_SUCCESS || got != s->out_len) {
			w->bad = w->which[i];
			break;
		}
	}
	libdeflate_free_decompressor(d);
	return NULL;
}

/* Inflate every recorded section into f->out, on up to PD_INFLATE_THREADS
 * threads: the sections go largest first to the least loaded one. */
static int inflate_all(inflater *f, pd_error *err)
{
	size_t *order = malloc(2 * f->nsecs * sizeof *order);
	if (!order)
		return fail(err, PD_ENOMEM, "out of memory");
	uint64_t total_in = 0;
	for (size_t i = 0; i < f->nsecs; i++) {
		order[i] = i;
		total_in += f->secs[i].in_len;
	}
	/* the time goes with the output (page allocation and inflation);
	 * few sections: insertion sort */
	for (size_t i = 1; i < f->nsecs; i++)
		for (size_t j = i; j > 0 && f->secs[order[j]].out_len > f->secs[order[j - 1]].out_len; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	size_t nw = PD_INFLATE_THREADS > 1 && f->nsecs >= 2 && total_in >= THREAD_MIN_INPUT ? 2 : 1;
	/* the second half of `order` holds the shares: worker 0's from the
	 * front, worker 1's from the back */
	size_t *slots = order + f->nsecs;
	uint64_t load[2] = { 0, 0 };
	size_t front = 0, back = f->nsecs;
	for (size_t i = 0; i < f->nsecs; i++) {
		size_t k = nw == 2 && load[1] < load[0] ? 1 : 0;
		load[k] += f->secs[order[i]].out_len;
		if (k == 0)
			slots[front++] = order[i];
		else
			slots[--back] = order[i];
	}
	worker w[2] = { { .f = f, .which = slots, .n = front, .bad = SIZE_MAX },
			{ .f = f, .which = slots + back, .n = f->nsecs - back, .bad = SIZE_MAX } };
	if (nw == 2 && front > 0 && load[0] > load[1]) {
		/* One big section (.debug_info) often outweighs all the others:
		 * the lighter worker allocates the pages of its second part.
		 * Allocation is about 3/10 of a byte's cost (with inflation),
		 * so handing over that of 5/3 of the difference evens them. */
		const infl_sec *big = &f->secs[slots[0]];
		uint64_t lend = (load[0] - load[1]) / 3 * 5;
		if (lend > big->out_len / 4 * 3)
			lend = big->out_len / 4 * 3;
		lend &= ~(f->page - 1);
		w[0].lent = w[1].lent = lend;
		w[1].pre = lend ? f->out + (big->out_off + big->out_len - lend - f->tail_start) : NULL;
	}
	bool threaded = w[1].n > 0 &&
			pd_threads_start(f->threads, &w[1].thread, inflate_some, &w[1]);
	if (!threaded && w[1].n > 0) {
		/* no thread: do its share here */
		memmove(slots + front, slots + back, w[1].n * sizeof *slots);
		w[0].n = f->nsecs;
		w[0].lent = 0;
		w[1].n = 0;
	}
	inflate_some(&w[0]);
	if (threaded)
		pd_threads_join(f->threads, w[1].thread);
	int rc = 0;
	for (int k = 0; k < 2 && rc == 0; k++) {
		if (w[k].nomem)
			rc = fail(err, PD_ENOMEM, "out of memory");
		else if (w[k].bad != SIZE_MAX)
			rc = fail(err, PD_ECORRUPT,
				  "section %zu: bad zlib data", f->secs[w[k].bad].idx);
	}
	free(order);
	return rc;
}

static bool write_all(int fd, const void *buf, uint64_t len, uint64_t off)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = pwrite(fd, p, len > (1u << 30) ? (1u << 30) : (size_t)len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return true;
}

static int cmp_sh_off(const void *a, const void *b)
{
	const infl_sec *x = a, *y = b;
	return x->sh_off < y->sh_off ? -1 : x->sh_off > y->sh_off;
}

/* Copy the input but for the payloads of the inflated sections (f->secs
 * is in file order). */
static bool copy_rest(const inflater *f, int fd)
{
	uint64_t at = 0;
	for (size_t i = 0; i < f->nsecs; i++) {
		const infl_sec *s = &f->secs[i];
		if (s->sh_off > at && !write_all(fd, f->in + at, s->sh_off - at, at))
			return false;
		if (s->sh_off + s->sh_len > at)
			at = s->sh_off + s->sh_len;
	}
	return at >= f->in_size || write_all(fd, f->in + at, f->in_size - at, at);
}

/*
 * Whether [off, off+len) meets the payload of an inflated section.
 * f->secs is in file order and end[k] is the furthest any of the first
 * k+1 payloads reaches.
 */
static bool in_hole(const inflater *f, const uint64_t *end, uint64_t off, uint64_t len)
{
	uint64_t stop = off > UINT64_MAX - len ? UINT64_MAX : off + len;
	/* the payloads that start before `stop`: the first `lo` */
	size_t lo = 0, hi = f->nsecs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->secs[mid].sh_off < stop)
			lo = mid + 1;
		else
			hi = mid;
	}
	return len && lo && end[lo - 1] > off;
}

/*
 * The payloads are left out of the copy, as zeros.  In a well-formed file
 * nothing else lies there; where the ELF header, the program headers or
 * another section does, the copy would not be the file any more: leave
 * such a file to libdw as it is.  0 or a PD_E* code (err filled).
 */
static int check_holes(const inflater *f, Elf *elf, size_t shnum, pd_error *err)
{
	uint64_t *end = malloc(f->nsecs * sizeof *end);
	bool *inflated = calloc(shnum, sizeof *inflated);
	if (!end || !inflated) {
		free(end);
		free(inflated);
		return fail(err, PD_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < f->nsecs; k++) {
		uint64_t e = f->secs[k].sh_off + f->secs[k].sh_len;
		end[k] = k && end[k - 1] > e ? end[k - 1] : e;
		inflated[f->secs[k].idx] = true;
	}
	int rc = 0;
	size_t phnum = 0;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) != 0)
		rc = fail(err, PD_ECORRUPT, "bad ELF header: %s", elf_errmsg(-1));
	else if (in_hole(f, end, 0, f->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)) ||
		 (phnum && eh.e_phentsize && phnum <= f->in_size / eh.e_phentsize &&
		  in_hole(f, end, eh.e_phoff, (uint64_t)phnum * eh.e_phentsize)))
		rc = fail(err, PD_ECORRUPT, "headers overlap a compressed section");
	for (size_t i = 1; i < shnum && rc == 0; i++) {
		GElf_Shdr sh;
		if (!gelf_getshdr(elf_getscn(elf, i), &sh))
			rc = fail(err, PD_ECORRUPT, "section %zu: %s", i, elf_errmsg(-1));
		else if (!inflated[i] && sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
			 in_hole(f, end, sh.sh_offset, sh.sh_size))
			rc = fail(err, PD_ECORRUPT, "section %zu overlaps a compressed section", i);
	}
	free(inflated);
	free(end);
	return rc;
}

/*
 * ".zdebug_x" becomes ".debug_x" where it stands: the 'z' turns into '.'
 * and sh_name moves one byte on, so .shstrtab keeps its size.  Another
 * section whose name holds that 'z' would be renamed too: assemblers
 * merge string tails, so ".rela.zdebug_info" usually holds ".zdebug_info"
 * and would read ".rela..debug_info".  Such a .zdebug section stays as it
 * is, for libdw.
 */
static int rename_in_place(inflater *f, Elf *elf, size_t shnum, const GElf_Shdr *strsh)
{
	const uint8_t *tab = f->in + strsh->sh_offset;  /* range checked by build() */
	size_t kept = 0;
	for (size_t i = 0; i < f->nsecs; i++) {
		infl_sec *s = &f->secs[i];
		bool clash = false;
		if (s->gnu) {
			GElf_Shdr own;
			if (!gelf_getshdr(elf_getscn(elf, s->idx), &own))
				return -1;
			uint64_t z = own.sh_name + 1;
			for (size_t j = 1; j < shnum && !clash; j++) {
				GElf_Shdr o;
				if (!gelf_getshdr(elf_getscn(elf, j), &o))
					return -1;
				/* o's name runs from sh_name to its NUL: does it reach z? */
				clash = j != s->idx && o.sh_name <= z &&
					!memchr(tab + o.sh_name, '\0', z - o.sh_name);
			}
			s->new_name = own.sh_name + 1;
			s->name_fix = strsh->sh_offset + own.sh_name + 1;
		}
		if (!clash)
			f->secs[kept++] = *s;
	}
	f->nsecs = kept;
	return 0;
}

/*
 * The work on an open, mapped input: returns the memfd or a PD_E* code.
 */
static int build(inflater *f, Elf *elf, pd_error *err)
{
	GElf_Ehdr eh;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return fail(err, PD_EUNSUPPORTED, "not an ELF file");
	f->is64 = gelf_getclass(elf) == ELFCLASS64;
	bool little = eh.e_ident[EI_DATA] == ELFDATA2LSB;
	if (!little && eh.e_ident[EI_DATA] != ELFDATA2MSB)
		return fail(err, PD_ECORRUPT, "unknown byte order");
	f->swap = little != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
	size_t shnum, shstrndx;
	if (elf_getshdrnum(elf, &shnum) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return fail(err, PD_ECORRUPT, "bad section header table: %s", elf_errmsg(-1));
	uint64_t entsize = f->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (shnum == 0)
		return fail(err, PD_EUNSUPPORTED, "no compressed section (no sections)");
	if (eh.e_shentsize != entsize || shnum > f->in_size / entsize ||
	    !range_ok(eh.e_shoff, shnum * entsize, f->in_size))
		return fail(err, PD_ECORRUPT, "bad section header table");

	f->secs = calloc(shnum, sizeof *f->secs);
	if (!f->secs)
		return fail(err, PD_ENOMEM, "out of memory");
	GElf_Shdr strsh;
	bool have_strsh = shstrndx < shnum && gelf_getshdr(elf_getscn(elf, shstrndx), &strsh);
	bool gnu = false;
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &sh))
			return fail(err, PD_ECORRUPT, "section %zu: %s", i, elf_errmsg(-1));
		/* In the copy, a section past the end of a truncated file
		 * would read the inflated data appended there instead of
		 * failing: leave such a file to libdw as it is. */
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
		    !range_ok(sh.sh_offset, sh.sh_size, f->in_size))
			return fail(err, PD_ECORRUPT, "section %zu lies outside the file", i);
		bool took;
		int rc = classify(f, elf, shstrndx, i, &sh, &f->secs[f->nsecs], &took, err);
		if (rc)
			return rc;
		if (took && f->secs[f->nsecs].gnu) {
			if (!have_strsh || strsh.sh_type != SHT_STRTAB ||
			    !range_ok(strsh.sh_offset, strsh.sh_size, f->in_size) ||
			    sh.sh_name >= strsh.sh_size - 1)
				return fail(err, PD_ECORRUPT, "bad section name table");
			gnu = true;
		}
		f->nsecs += took;
	}
	if (gnu && rename_in_place(f, elf, shnum, &strsh) != 0)
		return fail(err, PD_ECORRUPT, "bad section header: %s", elf_errmsg(-1));
	if (f->nsecs == 0)
		return fail(err, PD_EUNSUPPORTED, "no compressed section");
	/* The copy rewrites entries of the section header table: a section
	 * whose bytes lie inside the table would change with them (names read
	 * from such a .shstrtab; a compressed header there that turns into
	 * another), though the copy leaves it alone.  Both fuzzer finds. */
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;
		if (!gelf_getshdr(elf_getscn(elf, i), &sh))
			return fail(err, PD_ECORRUPT, "section %zu: %s", i, elf_errmsg(-1));
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL && sh.sh_size &&
		    range_ok(sh.sh_offset, sh.sh_size, f->in_size) &&
		    sh.sh_offset < eh.e_shoff + shnum * entsize &&
		    eh.e_shoff < sh.sh_offset + sh.sh_size)
			return fail(err, PD_ECORRUPT,
				    "section %zu overlaps the section headers", i);
	}
	qsort(f->secs, f->nsecs, sizeof *f->secs, cmp_sh_off);
	int rc = check_holes(f, elf, shnum, err);
	if (rc != 0)
		return rc;

	/* Layout: the input, then (page aligned, so it can be mapped) the
	 * plain sections, then a grown .shstrtab if any .zdebug was renamed. */
	f->tail_start = f->in_size;
	uint64_t total_out = 0;
	if (!align_up(&f->tail_start, f->page))
		return fail(err, PD_ELIMIT, "file too large");
	uint64_t at = f->tail_start;
	for (size_t i = 0; i < f->nsecs; i++) {
		infl_sec *s = &f->secs[i];
		total_out += s->out_len;
		if (total_out > MAX_TOTAL || !align_up(&at, s->align ? s->align : 1))
			return fail(err, PD_ELIMIT, "too much to inflate");
		s->out_off = at;
		at += s->out_len;
	}
	if (at == f->tail_start)
		at++;  /* all empty: still a mapping to point into */
	uint64_t out_size = at;
	if (out_size > MAX_TOTAL + f->in_size + 65536 || (!f->is64 && out_size > UINT32_MAX))
		return fail(err, PD_ELIMIT, "inflated file too large");

	int fd = memfd_create("pd-debug-inflated", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return fail(err, PD_EIO, "memfd_create: %s", strerror(errno));
	rc = PD_EIO; /* each failure below says which */
	uint8_t *shdrs = NULL;
	uint64_t tail_len = out_size - f->tail_start;
	if (ftruncate(fd, (off_t)out_size) != 0) {
		rc = fail(err, PD_EIO, "ftruncate: %s", strerror(errno));
		goto out;
	}
	if (!copy_rest(f, fd)) {
		rc = fail(err, PD_EIO, "writing the memfd: %s", strerror(errno));
		goto out;
	}
	f->out = tail_len ? mmap(NULL, tail_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				 (off_t)f->tail_start)
			  : NULL;
	if (f->out == MAP_FAILED) {
		f->out = NULL;
		rc = fail(err, PD_EIO, "mmap: %s", strerror(errno));
		goto out;
	}
	if ((rc = inflate_all(f, err)) != 0)
		goto out;
	for (size_t i = 0; i < f->nsecs; i++) {
		if (f->secs[i].gnu && !write_all(fd, ".", 1, f->secs[i].name_fix)) {
			rc = fail(err, PD_EIO, "writing the memfd: %s", strerror(errno));
			goto out;
		}
	}

	uint64_t tab_len = shnum * entsize;
	shdrs = malloc(tab_len);
	if (!shdrs) {
		rc = fail(err, PD_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(shdrs, f->in + eh.e_shoff, tab_len);
	/* field offsets in Elf64_Shdr / Elf32_Shdr */
	size_t o_flags = 8, o_offset = f->is64 ? 24 : 16, o_size = f->is64 ? 32 : 20,
	       o_align = f->is64 ? 48 : 32;
	for (size_t i = 0; i < f->nsecs; i++) {
		const infl_sec *s = &f->secs[i];
		uint8_t *e = shdrs + s->idx * entsize;
		if (!s->gnu) {
			uint64_t flags = f->is64 ? get64(f, e + o_flags) : get32(f, e + o_flags);
			put_word(f, e + o_flags, flags & ~(uint64_t)SHF_COMPRESSED);
			put_word(f, e + o_align, s->align);
		} else {
			put32(f, e, (uint32_t)s->new_name);
		}
		put_word(f, e + o_offset, s->out_off);
		put_word(f, e + o_size, s->out_len);
	}
	if (!write_all(fd, shdrs, tab_len, eh.e_shoff)) {
		rc = fail(err, PD_EIO, "writing the memfd: %s", strerror(errno));
		goto out;
	}
	if (f->out) {
		munmap(f->out, tail_len);
		f->out = NULL;
	}
	/* read-only from here on, like the file it stands for */
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	rc = fd;
out:
	free(shdrs);
	if (f->out)
		munmap(f->out, tail_len);
	f->out = NULL;
	if (rc < 0)
		close(fd);
	return rc;
}

int pd_debug_inflate_open(const char *path, pd_threads *threads, pd_error *err)
{
	int in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return fail(err, PD_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < EI_NIDENT) {
		close(in);
		return fail(err, PD_EUNSUPPORTED, "%s: not a regular ELF file", path);
	}
	if ((uint64_t)st.st_size > MAX_TOTAL) {
		close(in);
		return fail(err, PD_ELIMIT, "%s: too large", path);
	}
	size_t size = (size_t)st.st_size;
	/* writable private mapping: libelf may convert in place (never
	 * reaches the file) */
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, in, 0);
	close(in);
	if (map == MAP_FAILED)
		return fail(err, PD_EIO, "%s: mmap: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory(map, size);
	int fd;
	long page = sysconf(_SC_PAGESIZE);
	inflater f = { .in = map, .in_size = size,
		       .page = page > 0 && !(page & (page - 1)) ? (uint64_t)page : 4096,
		       .threads = threads };
	if (!elf)
		fd = fail(err, PD_ECORRUPT, "%s: %s", path, elf_errmsg(-1));
	else
		fd = build(&f, elf, err);
	elf_end(elf);
	free(f.secs);
	munmap(map, size);
	return fd;
}
