/*
 * libFuzzer harness for pd_debug_inflate_open(): the input is an ELF debug
 * file, handed over as the /proc/self/fd path of a memfd.  A failure must
 * say why and leave no descriptor open.  A memfd that comes back is
 * checked against the input with libelf alone (libdw's own troubles with
 * hostile DWARF are not this code's):
 *   - libelf opens it and sees the same ELF header and section count;
 *   - every byte of the input stays at its offset but for the payloads of
 *     the inflated sections, the section header table and the 'z' of a
 *     renamed .zdebug name;
 *   - a zlib SHF_COMPRESSED section (not allocated, not NOBITS) is stored
 *     plain: flag cleared, size and alignment from its Chdr, past the
 *     input's end, inside the file, its bytes those libelf's elf_compress()
 *     inflates where libelf manages to;
 *   - a .zdebug section is renamed .debug and sized by its header (checked
 *     against elf_compress_gnu()), or left untouched;
 *   - every other section header is unchanged, and so is its name;
 *     inflated sections do not overlap;
 *   - every section with contents lies inside the file (one past the end
 *     of the input would read the appended data: the input is refused).
 */
#include <elf.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symb_internal.h"

#define CHECK(c)                  \
	do {                      \
		if (!(c))         \
			abort();  \
	} while (0)

typedef struct rewrite {
	size_t idx;
	uint64_t off, len; /* in the output */
} rewrite;

static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static void mask_range(uint8_t *mask, size_t size, uint64_t off, uint64_t len)
{
	if (off >= size)
		return;
	if (len > size - off)
		len = size - off;
	memset(mask + off, 1, (size_t)len);
}

/* The plain bytes libelf gives for an original section, compared with the
 * output's when both libelf and the inflater got there. */
static void compare_contents(Elf_Scn *orig, Elf_Scn *out, bool gnu)
{
	int r = gnu ? elf_compress_gnu(orig, 0, 0) : elf_compress(orig, 0, 0);
	if (r != 1)
		return; /* libelf refuses what libdeflate took: no oracle */
	Elf_Data *a = elf_getdata(orig, NULL), *b = elf_getdata(out, NULL);
	if (!a || !b)
		return;
	CHECK(a->d_size == b->d_size);
	CHECK(a->d_size == 0 || memcmp(a->d_buf, b->d_buf, a->d_size) == 0);
}

static void check_output(const uint8_t *data, size_t size, int fd)
{
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && (uint64_t)st.st_size >= size);
	uint64_t out_size = (uint64_t)st.st_size;
	uint8_t *out = mmap(NULL, (size_t)out_size, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(out != MAP_FAILED);
	Elf *eo = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	CHECK(eo);
	/* elf_memory may convert in place: a private copy */
	uint8_t *copy = malloc(size);
	CHECK(copy);
	memcpy(copy, data, size);
	Elf *ei = elf_memory((char *)copy, size);
	CHECK(ei);

	GElf_Ehdr hi, ho;
	CHECK(gelf_getehdr(ei, &hi) && gelf_getehdr(eo, &ho));
	CHECK(memcmp(&hi, &ho, sizeof hi) == 0);
	size_t ni, no, stri;
	CHECK(elf_getshdrnum(ei, &ni) == 0 && elf_getshdrnum(eo, &no) == 0 && ni == no);
	bool have_stri = elf_getshdrstrndx(ei, &stri) == 0;
	GElf_Shdr strsh;
	have_stri = have_stri && gelf_getshdr(elf_getscn(ei, stri), &strsh);
	size_t entsize = gelf_getclass(ei) == ELFCLASS64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

	uint8_t *mask = calloc(size ? size : 1, 1); /* 1: may differ */
	rewrite *rw = calloc(ni ? ni : 1, sizeof *rw);
	CHECK(mask && rw);
	size_t nrw = 0;
	mask_range(mask, size, hi.e_shoff, (uint64_t)ni * entsize);

	for (size_t i = 1; i < ni; i++) {
		Elf_Scn *si = elf_getscn(ei, i), *so = elf_getscn(eo, i);
		GElf_Shdr a, b;
		CHECK(si && so && gelf_getshdr(si, &a) && gelf_getshdr(so, &b));
		if (memcmp(&a, &b, sizeof a) == 0) {
			/* untouched, and so is its name (a renamed .zdebug
			 * must not rename another that shares its bytes) */
			const char *na = have_stri ? elf_strptr(ei, stri, a.sh_name) : NULL;
			const char *nb = have_stri ? elf_strptr(eo, stri, b.sh_name) : NULL;
			CHECK(!na == !nb && (!na || strcmp(na, nb) == 0));
			CHECK(a.sh_type == SHT_NOBITS || a.sh_type == SHT_NULL ||
			      in_file(a.sh_offset, a.sh_size, size));
			continue;
		}
		/* only an inflatable section may change */
		CHECK(a.sh_type != SHT_NOBITS && a.sh_type != SHT_NULL && !(a.sh_flags & SHF_ALLOC));
		CHECK(b.sh_type == a.sh_type && b.sh_addr == a.sh_addr && b.sh_link == a.sh_link &&
		      b.sh_info == a.sh_info && b.sh_entsize == a.sh_entsize);
		CHECK(in_file(a.sh_offset, a.sh_size, size));
		CHECK(b.sh_offset >= size && in_file(b.sh_offset, b.sh_size, out_size));
		const uint8_t *p = data + a.sh_offset;
		if (a.sh_flags & SHF_COMPRESSED) {
			GElf_Chdr ch;
			CHECK(gelf_getchdr(si, &ch) && ch.ch_type == ELFCOMPRESS_ZLIB);
			uint64_t align = ch.ch_addralign ? ch.ch_addralign : 1;
			CHECK(b.sh_flags == (a.sh_flags & ~(uint64_t)SHF_COMPRESSED));
			CHECK(b.sh_name == a.sh_name && b.sh_size == ch.ch_size);
			CHECK(b.sh_addralign == align && b.sh_offset % align == 0);
			compare_contents(si, so, false);
		} else {
			/* .zdebug_x renamed .debug_x where it stands */
			CHECK(a.sh_size >= 12 && memcmp(p, "ZLIB", 4) == 0);
			uint64_t n = 0;
			for (int k = 4; k < 12; k++)
				n = n << 8 | p[k];
			CHECK(b.sh_flags == a.sh_flags && b.sh_addralign == a.sh_addralign);
			CHECK(b.sh_size == n && b.sh_name == a.sh_name + 1);
			const char *na = elf_strptr(ei, stri, a.sh_name);
			const char *nb = elf_strptr(eo, stri, b.sh_name);
			CHECK(have_stri && na && nb && strncmp(na, ".zdebug", 7) == 0);
			CHECK(nb[0] == '.' && strcmp(nb + 1, na + 2) == 0);
			mask_range(mask, size, strsh.sh_offset + a.sh_name + 1, 1);
			compare_contents(si, so, true);
		}
		mask_range(mask, size, a.sh_offset, a.sh_size);
		rw[nrw++] = (rewrite){ .idx = i, .off = b.sh_offset, .len = b.sh_size };
	}
	/* a zlib SHF_COMPRESSED section that could be inflated was: the
	 * function fails rather than skip one */
	for (size_t i = 1; i < ni; i++) {
		GElf_Shdr b;
		GElf_Chdr ch;
		Elf_Scn *so = elf_getscn(eo, i);
		CHECK(gelf_getshdr(so, &b));
		if ((b.sh_flags & SHF_COMPRESSED) && !(b.sh_flags & SHF_ALLOC) &&
		    b.sh_type != SHT_NOBITS && gelf_getchdr(so, &ch))
			CHECK(ch.ch_type != ELFCOMPRESS_ZLIB);
	}
	for (size_t i = 0; i < nrw; i++)
		for (size_t j = i + 1; j < nrw; j++)
			CHECK(rw[i].len == 0 || rw[j].len == 0 || rw[i].off + rw[i].len <= rw[j].off ||
			      rw[j].off + rw[j].len <= rw[i].off);
	for (size_t k = 0; k < size; k++)
		CHECK(mask[k] || out[k] == data[k]);

	free(rw);
	free(mask);
	elf_end(ei);
	free(copy);
	elf_end(eo);
	munmap(out, (size_t)out_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		elf_version(EV_CURRENT);
		ready = true;
	}
	int in = memfd_create("fuzz.debug", MFD_CLOEXEC);
	if (in < 0)
		return 0;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(in, data + done, size - done);
		if (n <= 0) {
			close(in);
			return 0;
		}
		done += (size_t)n;
	}
	char path[64];
	pd_error e = { 0 };
	snprintf(path, sizeof path, "/proc/self/fd/%d", in);
	/* the lowest free descriptor, to catch one left open */
	int probe = dup(in);
	CHECK(probe >= 0);
	close(probe);

	pd_threads all;  /* the second worker too */
	pd_threads_init(&all, ~0u);
	int fd = pd_debug_inflate_open(path, &all, &e);
	if (fd < 0) {
		CHECK(e.message[0] != '\0');
	} else {
		check_output(data, size, fd);
		close(fd);
	}
	int again = dup(in);
	CHECK(again == probe); /* nothing leaked */
	close(again);
	close(in);
	return 0;
}
