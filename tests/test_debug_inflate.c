/*
 * pd_debug_inflate_open: the inflated copy against libelf's own
 * decompression of the original (every section, headers, names), DWARF
 * and libdwfl lookups through it against the original file and the test
 * program's source, files without compressed sections, and truncated or
 * garbled inputs.
 */
#include "testutil.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symb_internal.h"

#define LIBC_DEBUG "/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug"

/* The program whose debug data is inflated: an inline function, a loop,
 * a struct, calls to libc. */
static const char PROGRAM[] =
	"int printf(const char *, ...);\n"                              /* 1 */
	"static inline int sq(int x)\n"                                 /* 2 */
	"{\n"                                                           /* 3 */
	"\treturn x * x;\n"                                             /* 4 */
	"}\n"                                                           /* 5 */
	"__attribute__((noinline)) int compute_sum(int n)\n"            /* 6 */
	"{\n"                                                           /* 7 */
	"\tint s = 0;\n"                                                /* 8 */
	"\tfor (int i = 0; i < n; i++)\n"                               /* 9 */
	"\t\ts += sq(i);\n"                                             /* 10 */
	"\treturn s;\n"                                                 /* 11 */
	"}\n"                                                           /* 12 */
	"struct point { long x, y; };\n"                                /* 13 */
	"__attribute__((noinline)) long manhattan(struct point *p)\n"   /* 14 */
	"{\n"                                                           /* 15 */
	"\treturn (p->x < 0 ? -p->x : p->x) + (p->y < 0 ? -p->y : p->y);\n"
	"}\n"                                                           /* 17 */
	"int main(int argc, char **argv)\n"                             /* 18 */
	"{\n"                                                           /* 19 */
	"\tstruct point p = { argc, -argc };\n"                         /* 20 */
	"\tprintf(\"%d %ld %s\\n\", compute_sum(argc * 100), manhattan(&p), argv[0]);\n"
	"\treturn 0;\n"                                                 /* 22 */
	"}\n";

/* Files made once for all tests (inherited by the forked tests). */
static char *lab;
static char src[PD_TEST_PATHMAX], zprog[PD_TEST_PATHMAX], plain[PD_TEST_PATHMAX],
	gnuprog[PD_TEST_PATHMAX], stripped[PD_TEST_PATHMAX], debugz[PD_TEST_PATHMAX],
	obj32[PD_TEST_PATHMAX], objbe[PD_TEST_PATHMAX];
static bool have_gnu, have_32, have_be;
static const char *lab_skip;

static void path_in(char *buf, const char *name)
{
	snprintf(buf, PD_TEST_PATHMAX, "%s/%s", lab, name);
}

/* `in`, a relocatable object, rewritten by libelf in big-endian byte order
 * (section contents as libelf converts them; DWARF bytes stay as they
 * were, so only the ELF structures are meaningful). */
static bool to_big_endian(const char *in, const char *out)
{
	bool ok = false;
	int ifd = open(in, O_RDONLY), ofd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	Elf *a = ifd >= 0 ? elf_begin(ifd, ELF_C_READ, NULL) : NULL;
	Elf *b = ofd >= 0 ? elf_begin(ofd, ELF_C_WRITE, NULL) : NULL;
	GElf_Ehdr eh;
	if (!a || !b || !gelf_getehdr(a, &eh) || eh.e_type != ET_REL ||
	    !gelf_newehdr(b, gelf_getclass(a)))
		goto out;
	eh.e_ident[EI_DATA] = ELFDATA2MSB;
	if (!gelf_update_ehdr(b, &eh))
		goto out;
	for (Elf_Scn *scn = elf_nextscn(a, NULL); scn; scn = elf_nextscn(a, scn)) {
		GElf_Shdr sh;
		Elf_Scn *ns = elf_newscn(b);
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!ns || !gelf_getshdr(scn, &sh) || !gelf_update_shdr(ns, &sh))
			goto out;
		if (d) {
			Elf_Data *nd = elf_newdata(ns);
			if (!nd)
				goto out;
			*nd = *d;
		}
	}
	ok = elf_update(b, ELF_C_WRITE) > 0;
out:
	elf_end(b);
	elf_end(a);
	if (ifd >= 0)
		close(ifd);
	if (ofd >= 0)
		close(ofd);
	return ok;
}

static void lab_setup(void)
{
	elf_version(EV_CURRENT);
	lab_skip = pd_test_lab_open(true, &lab);
	if (lab_skip)
		return;
	path_in(src, "prog.c");
	path_in(zprog, "prog-z");
	path_in(plain, "prog-plain");
	path_in(gnuprog, "prog-gnu");
	path_in(stripped, "prog-stripped");
	path_in(debugz, "prog.debug");
	path_in(obj32, "prog32.o");
	path_in(objbe, "progbe.o");
	char cmd[6 * PD_TEST_PATHMAX], tmp[PD_TEST_PATHMAX];
	if (!pd_test_write_file(src, PROGRAM, sizeof PROGRAM - 1) ||
	    !pd_test_compile("cc", "-g -O1 -gz=zlib", zprog, src) ||
	    !pd_test_compile("cc", "-g -O1", plain, src)) {
		lab_skip = "cc -g -gz=zlib failed";
		return;
	}
	/* a stripped program and its separate, compressed debug file, as
	 * Debian's -dbg packages ship them */
	snprintf(cmd, sizeof cmd,
		 "objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s' && "
		 "strip -g -o '%s' '%s'", plain, debugz, stripped, plain);
	if (!pd_test_sh_ok(cmd)) {
		lab_skip = "objcopy/strip failed";
		return;
	}
	have_gnu = pd_test_compile("cc", "-g -O1 -gz=zlib-gnu", gnuprog, src);
	have_32 = pd_test_compile("cc", "-m32 -c -g -O1 -gz=zlib", obj32, src);
	path_in(tmp, "plain.o");
	char be_plain[PD_TEST_PATHMAX];
	path_in(be_plain, "be-plain.o");
	snprintf(cmd, sizeof cmd, "eu-elfcompress -q -t zlib -o '%s' '%s'", objbe, be_plain);
	have_be = pd_test_compile("cc", "-c -g -O1", tmp, src) && to_big_endian(tmp, be_plain) &&
		  pd_test_sh_ok(cmd);
}

static void lab_teardown(void)
{
	pd_test_lab_close(lab);
	lab = NULL;
}

/* ---- comparison with libelf's decompression of the original ---- */

static void pread_all(int fd, void *buf, size_t len, off_t off)
{
	ck_assert_int_eq(pread(fd, buf, len, off), (ssize_t)len);
}

/* Compare the raw bytes [off, off+len) of both files. */
static void same_bytes(int a, int b, uint64_t off, uint64_t len, const char *what)
{
	uint8_t *x = malloc(len + 1), *y = malloc(len + 1);
	ck_assert(x && y);
	pread_all(a, x, len, (off_t)off);
	pread_all(b, y, len, (off_t)off);
	ck_assert_msg(memcmp(x, y, len) == 0, "%s differs", what);
	free(x);
	free(y);
}

/*
 * Check the inflated `fd` against `orig`: same ELF header and program
 * headers byte for byte, the same sections in the same order, each equal
 * (header fields and contents) to what libelf makes of the original's
 * after elf_compress(scn, 0, 0) or elf_compress_gnu.  Returns how many
 * sections were compressed in the original.
 */
static size_t compare_elf(const char *orig, int fd)
{
	int ofd = open(orig, O_RDONLY);
	ck_assert_int_ge(ofd, 0);
	Elf *a = elf_begin(ofd, ELF_C_READ, NULL), *b = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	GElf_Ehdr ea, eb;
	ck_assert_ptr_nonnull(gelf_getehdr(a, &ea));
	ck_assert_ptr_nonnull(gelf_getehdr(b, &eb));
	same_bytes(ofd, fd, 0, ea.e_ehsize, "ELF header");
	size_t pa, pb;
	ck_assert_int_eq(elf_getphdrnum(a, &pa), 0);
	ck_assert_int_eq(elf_getphdrnum(b, &pb), 0);
	ck_assert_uint_eq(pa, pb);
	if (pa)
		same_bytes(ofd, fd, ea.e_phoff, pa * ea.e_phentsize, "program headers");
	size_t na, nb, stra, strb;
	ck_assert_int_eq(elf_getshdrnum(a, &na), 0);
	ck_assert_int_eq(elf_getshdrnum(b, &nb), 0);
	ck_assert_uint_eq(na, nb);
	ck_assert_int_eq(elf_getshdrstrndx(a, &stra), 0);
	ck_assert_int_eq(elf_getshdrstrndx(b, &strb), 0);
	ck_assert_uint_eq(stra, strb);

	size_t ncompressed = 0;
	bool renamed = false;  /* .shstrtab then differs in those names */
	for (size_t i = 1; i < na; i++) {
		bool inflated = false;
		Elf_Scn *sa = elf_getscn(a, i), *sb = elf_getscn(b, i);
		GElf_Shdr ha, hb;
		ck_assert_ptr_nonnull(gelf_getshdr(sa, &ha));
		const char *name = elf_strptr(a, stra, ha.sh_name);
		ck_assert_ptr_nonnull(name);
		char want[512];
		snprintf(want, sizeof want, "%s", name);
		if ((ha.sh_flags & SHF_COMPRESSED) && ha.sh_type != SHT_NOBITS) {
			GElf_Chdr ch;
			ck_assert_ptr_nonnull(gelf_getchdr(sa, &ch));
			if (ch.ch_type == ELFCOMPRESS_ZLIB) {
				ck_assert_int_eq(elf_compress(sa, 0, 0), 1);
				ncompressed++;
				inflated = true;
			}
		} else if (strncmp(name, ".zdebug", 7) == 0) {
			ck_assert_int_eq(elf_compress_gnu(sa, 0, 0), 1);
			snprintf(want, sizeof want, ".debug%s", name + 7);
			ncompressed++;
			inflated = renamed = true;
		}
		ck_assert_ptr_nonnull(gelf_getshdr(sa, &ha));
		ck_assert_ptr_nonnull(gelf_getshdr(sb, &hb));
		const char *nameb = elf_strptr(b, strb, hb.sh_name);
		ck_assert_ptr_nonnull(nameb);
		ck_assert_str_eq(nameb, want);
		ck_assert_uint_eq(ha.sh_type, hb.sh_type);
		ck_assert_uint_eq(ha.sh_flags, hb.sh_flags);
		ck_assert_uint_eq(ha.sh_addr, hb.sh_addr);
		ck_assert_uint_eq(ha.sh_size, hb.sh_size);
		ck_assert_uint_eq(ha.sh_link, hb.sh_link);
		ck_assert_uint_eq(ha.sh_info, hb.sh_info);
		ck_assert_uint_eq(ha.sh_addralign, hb.sh_addralign);
		ck_assert_uint_eq(ha.sh_entsize, hb.sh_entsize);
		if (ha.sh_type == SHT_NOBITS)
			continue;
		/* the ones not inflated stay where they were */
		if (!inflated)
			ck_assert_uint_eq(ha.sh_offset, hb.sh_offset);
		if (i == stra && renamed)
			continue;
		Elf_Data *da = elf_getdata(sa, NULL), *db = elf_getdata(sb, NULL);
		ck_assert_msg(da && db, "section %zu (%s) has no data", i, name);
		ck_assert_uint_eq(da->d_size, db->d_size);
		ck_assert_int_eq(da->d_type, db->d_type);
		ck_assert_msg(da->d_size == 0 || memcmp(da->d_buf, db->d_buf, da->d_size) == 0,
			      "section %zu (%s) differs", i, name);
	}
	elf_end(a);
	elf_end(b);
	close(ofd);
	return ncompressed;
}

/* Each CU's name, then "  function@lowpc" for each of its functions, a
 * line each. */
typedef struct listing {
	pd_buf text;
	size_t ncu, nfunc;
} listing;

static int add_func(Dwarf_Die *f, void *arg)
{
	listing *l = arg;
	Dwarf_Addr lo = 0;
	dwarf_lowpc(f, &lo);
	const char *n = dwarf_diename(f);
	char line[600];
	int len = snprintf(line, sizeof line, "  %s@%llx\n", n ? n : "?", (unsigned long long)lo);
	ck_assert_int_eq(pd_buf_append(&l->text, line, (size_t)len), 0);
	l->nfunc++;
	return DWARF_CB_OK;
}

static void list_dwarf(int fd, listing *l)
{
	memset(l, 0, sizeof *l);
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	ck_assert_msg(dw != NULL, "dwarf_begin: %s", dwarf_errmsg(-1));
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		ck_assert_ptr_nonnull(dwarf_offdie(dw, off + hsize, &cu));
		const char *n = dwarf_diename(&cu);
		ck_assert_int_eq(pd_buf_append(&l->text, n ? n : "?", strlen(n ? n : "?")), 0);
		ck_assert_int_eq(pd_buf_append(&l->text, "\n", 1), 0);
		l->ncu++;
		ck_assert_int_eq(dwarf_getfuncs(&cu, add_func, l, 0), 0);
		off = next;
	}
	dwarf_end(dw);
	ck_assert_int_eq(pd_buf_append(&l->text, "", 1), 0);  /* NUL */
}

/* pd_debug_inflate_open() with every thread it wants (a budget without a
 * limit): the tests' default. */
static int inflate_open(const char *path, pd_error *err)
{
	pd_threads all;
	pd_threads_init(&all, ~0u);
	return pd_debug_inflate_open(path, &all, err);
}

/* The bytes of an open file, from its start. */
static uint8_t *fd_bytes(int fd, size_t *len)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	uint8_t *b = pd_test_read_file(p, len);
	ck_assert_ptr_nonnull(b);
	return b;
}

/* The inflated copy, checked to be the same bytes without a second
 * thread (no thread budget) as with one. */
static int open_inflated(const char *path)
{
	pd_error e = { 0 };
	int fd = inflate_open(path, &e);
	ck_assert_msg(fd >= 0, "%s: %s", path, e.message);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 0);
	int one = pd_debug_inflate_open(path, NULL, &e);
	ck_assert_msg(one >= 0, "%s: %s", path, e.message);
	size_t n1, n2;
	uint8_t *a = fd_bytes(fd, &n1), *b = fd_bytes(one, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert(memcmp(a, b, n1) == 0);
	free(a);
	free(b);
	close(one);
	return fd;
}

static void check_same_dwarf(const char *path, int fd, size_t *nfunc)
{
	int ofd = open(path, O_RDONLY);
	ck_assert_int_ge(ofd, 0);
	listing x, y;
	list_dwarf(ofd, &x);
	list_dwarf(fd, &y);
	ck_assert_uint_gt(x.ncu, 0);
	ck_assert_uint_eq(x.ncu, y.ncu);
	ck_assert_uint_eq(x.nfunc, y.nfunc);
	ck_assert_str_eq((const char *)y.text.data, (const char *)x.text.data);
	if (nfunc)
		*nfunc = y.nfunc;
	/* the functions of the test program, named independently of libdw */
	if (strstr((const char *)x.text.data, "prog.c")) {
		ck_assert_ptr_nonnull(strstr((const char *)y.text.data, "  compute_sum@"));
		ck_assert_ptr_nonnull(strstr((const char *)y.text.data, "  manhattan@"));
		ck_assert_ptr_nonnull(strstr((const char *)y.text.data, "  main@"));
	}
	pd_buf_free(&x.text);
	pd_buf_free(&y.text);
	close(ofd);
}

START_TEST(same_sections_and_dwarf)
{
	PD_SKIP_IF(lab_skip);
	int fd = open_inflated(zprog);
	ck_assert_uint_ge(compare_elf(zprog, fd), 3);  /* info, abbrev, line at least */
	size_t nfunc;
	check_same_dwarf(zprog, fd, &nfunc);
	ck_assert_uint_ge(nfunc, 3);
	/* sealed: nobody can change what libdw reads */
	ck_assert_int_lt(pwrite(fd, "x", 1, 0), 0);
	close(fd);
}
END_TEST

START_TEST(separate_debug_file)
{
	PD_SKIP_IF(lab_skip);
	int fd = open_inflated(debugz);
	ck_assert_uint_ge(compare_elf(debugz, fd), 3);
	check_same_dwarf(debugz, fd, NULL);
	close(fd);
}
END_TEST

START_TEST(legacy_zdebug)
{
	PD_SKIP_IF(lab_skip);
	if (!have_gnu)
		PD_SKIP("cc -gz=zlib-gnu not supported here");
	int fd = open_inflated(gnuprog);
	ck_assert_uint_ge(compare_elf(gnuprog, fd), 3);
	check_same_dwarf(gnuprog, fd, NULL);
	close(fd);
}
END_TEST

START_TEST(elf32)
{
	PD_SKIP_IF(lab_skip);
	if (!have_32)
		PD_SKIP("cc -m32 not supported here");
	int fd = open_inflated(obj32);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ck_assert_int_eq(gelf_getclass(e), ELFCLASS32);
	elf_end(e);
	ck_assert_uint_ge(compare_elf(obj32, fd), 3);
	close(fd);
}
END_TEST

START_TEST(big_endian)
{
	PD_SKIP_IF(lab_skip);
	if (!have_be)
		PD_SKIP("could not make a big-endian object (libelf or eu-elfcompress)");
	int fd = open_inflated(objbe);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	ck_assert_ptr_nonnull(gelf_getehdr(e, &eh));
	ck_assert_int_eq(eh.e_ident[EI_DATA], ELFDATA2MSB);
	elf_end(e);
	ck_assert_uint_ge(compare_elf(objbe, fd), 1);
	close(fd);
}
END_TEST

START_TEST(nothing_compressed)
{
	PD_SKIP_IF(lab_skip);
	pd_error e = { 0 };
	ck_assert_int_eq(inflate_open(plain, &e), PD_EUNSUPPORTED);
	ck_assert_msg(strstr(e.message, "no compressed section"), "why: %s", e.message);
	ck_assert_int_eq(inflate_open(src, &e), PD_EUNSUPPORTED);  /* not ELF */
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(inflate_open("/nonexistent/x.debug", NULL), PD_EIO);
	ck_assert_int_eq(inflate_open(lab, NULL), PD_EUNSUPPORTED);  /* a directory; no words wanted */
}
END_TEST

/* libdwfl through a find_debuginfo callback returning the memfd, as the
 * symbolizer will: the same module, source line and function name as with
 * the original debug file, and the line the source says. */
typedef struct finder {
	const char *debug;
	bool inflate;
	int calls;
} finder;

static const finder *current;

static int find_debug_current(Dwfl_Module *mod, void **userdata, const char *modname,
			      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)crc;
	finder *f = (finder *)current;
	f->calls++;
	int fd = f->inflate ? inflate_open(f->debug, NULL) : open(f->debug, O_RDONLY);
	if (fd >= 0)
		*debuginfo_file_name = strdup(f->debug);
	return fd;
}

typedef struct lookup {
	int line;
	char file[256], func[128], debugfile[PD_TEST_PATHMAX];
	Dwarf_Addr bias;
	uint64_t file_addr;  /* the symbol's address in the file */
} lookup;

static void look_up(finder *f, const char *sym, lookup *out)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = find_debug_current,
		.section_address = dwfl_offline_section_address,
	};
	memset(out, 0, sizeof *out);
	current = f;
	f->calls = 0;
	Dwfl *dwfl = dwfl_begin(&cb);
	ck_assert_ptr_nonnull(dwfl);
	Dwfl_Module *mod = dwfl_report_offline(dwfl, "prog", stripped, -1);
	ck_assert_ptr_nonnull(mod);
	ck_assert_int_eq(dwfl_report_end(dwfl, NULL, NULL), 0);
	ck_assert_ptr_nonnull(dwfl_module_getdwarf(mod, &out->bias));
	ck_assert_int_eq(f->calls, 1);
	const char *dbg = NULL;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &dbg);
	snprintf(out->debugfile, sizeof out->debugfile, "%s", dbg ? dbg : "");
	/* the stripped file's .symtab gives the address */
	int n = dwfl_module_getsymtab(mod);
	ck_assert_int_gt(n, 0);
	GElf_Addr addr = 0;
	for (int i = 0; i < n; i++) {
		GElf_Sym s;
		GElf_Addr a;
		const char *name = dwfl_module_getsym_info(mod, i, &s, &a, NULL, NULL, NULL);
		if (name && strcmp(name, sym) == 0)
			addr = a;
	}
	ck_assert_uint_ne(addr, 0);
	out->file_addr = addr - out->bias;
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	ck_assert_ptr_nonnull(line);
	const char *file = dwfl_lineinfo(line, NULL, &out->line, NULL, NULL, NULL);
	snprintf(out->file, sizeof out->file, "%s", file ? file : "");
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	ck_assert_ptr_nonnull(cu);
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(cu, addr - bias, &scopes);
	ck_assert_int_gt(ns, 0);
	const char *fn = NULL;
	for (int i = 0; i < ns && !fn; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			fn = dwarf_diename(&scopes[i]);
	snprintf(out->func, sizeof out->func, "%s", fn ? fn : "");
	free(scopes);
	dwfl_end(dwfl);
}

/* binutils' answer, independent of libdw */
static int addr2line_line(const char *elf, uint64_t addr)
{
	char cmd[PD_TEST_PATHMAX + 100];
	snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%llx", elf, (unsigned long long)addr);
	int status;
	char *out = pd_test_run(cmd, &status);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(status, 0);
	const char *colon = strrchr(out, ':');
	ck_assert_ptr_nonnull(colon);
	int line = atoi(colon + 1);
	ck_assert_msg(line > 0 && strstr(out, "prog.c"), "addr2line: %s", out);
	free(out);
	return line;
}

START_TEST(through_dwfl)
{
	PD_SKIP_IF(lab_skip);
	finder inflated = { .debug = debugz, .inflate = true };
	finder original = { .debug = debugz, .inflate = false };
	lookup x, y;
	look_up(&original, "compute_sum", &x);
	look_up(&inflated, "compute_sum", &y);
	ck_assert_str_eq(y.debugfile, debugz);
	ck_assert_int_eq(y.line, x.line);
	ck_assert_int_eq(y.line, addr2line_line(plain, y.file_addr));
	ck_assert_str_eq(y.file, x.file);
	ck_assert_str_eq(y.func, "compute_sum");
	ck_assert_str_eq(y.func, x.func);
	ck_assert_uint_eq(y.bias, x.bias);
	look_up(&original, "manhattan", &x);
	look_up(&inflated, "manhattan", &y);
	ck_assert_int_eq(y.line, x.line);
	ck_assert_int_eq(y.line, addr2line_line(plain, y.file_addr));
	ck_assert_str_eq(y.func, "manhattan");
}
END_TEST

/* ---- hostile inputs ---- */

/* Inflate `data` written to a file: -1, or an fd libdw can walk without
 * a memory error.  Returns the fd's verdict (true: an fd came back). */
static bool try_garbled(const uint8_t *data, size_t len)
{
	char path[PD_TEST_PATHMAX];
	path_in(path, "garbled");
	ck_assert(pd_test_write_file(path, data, len));
	pd_error e = { 0 };
	int fd = inflate_open(path, &e);
	if (fd < 0) {
		ck_assert_str_ne(e.message, "");
		return false;
	}
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	if (dw) {
		Dwarf_Off off = 0, next;
		size_t hsize;
		int guard = 0;
		while (guard++ < 10000 && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die cu;
			if (dwarf_offdie(dw, off + hsize, &cu))
				dwarf_diename(&cu);
			off = next;
		}
		dwarf_end(dw);
	}
	close(fd);
	return true;
}

typedef struct csec {
	uint64_t off, size, shdr;  /* section bytes; its section header's offset */
} csec;

/* The zlib SHF_COMPRESSED sections of an ELF64 little-endian image. */
static size_t compressed_sections(const uint8_t *d, size_t len, csec *out, size_t cap)
{
	Elf *e = elf_memory((char *)d, len);
	ck_assert_ptr_nonnull(e);
	GElf_Ehdr eh;
	ck_assert_ptr_nonnull(gelf_getehdr(e, &eh));
	ck_assert_int_eq(eh.e_ident[EI_CLASS], ELFCLASS64);
	size_t n = 0;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s && n < cap; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		ck_assert_ptr_nonnull(gelf_getshdr(s, &sh));
		if (sh.sh_flags & SHF_COMPRESSED)
			out[n++] = (csec){ sh.sh_offset, sh.sh_size,
					   eh.e_shoff + elf_ndxscn(s) * eh.e_shentsize };
	}
	elf_end(e);
	return n;
}

START_TEST(truncated)
{
	PD_SKIP_IF(lab_skip);
	size_t len;
	uint8_t *d = pd_test_read_file(zprog, &len);
	ck_assert_ptr_nonnull(d);
	size_t step = len / 97 + 1, tried = 0;
	for (size_t cut = 0; cut < len; cut += step, tried++)
		/* the section header table is last: every cut loses it */
		ck_assert_msg(!try_garbled(d, cut), "truncated to %zu bytes accepted", cut);
	csec cs[64];
	size_t n = compressed_sections(d, len, cs, 64);
	ck_assert_uint_ge(n, 3);
	for (size_t i = 0; i < n; i++)
		for (uint64_t k = 0; k < 30 && k < cs[i].size; k += 3, tried++)
			ck_assert(!try_garbled(d, cs[i].off + k));
	ck_assert(try_garbled(d, len));
	ck_assert_uint_gt(tried, 100);
	free(d);
}
END_TEST

static void put64le(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

START_TEST(garbled_headers)
{
	PD_SKIP_IF(lab_skip);
	size_t len;
	uint8_t *d = pd_test_read_file(zprog, &len);
	ck_assert_ptr_nonnull(d);
	uint8_t *g = malloc(len);
	ck_assert_ptr_nonnull(g);
	csec cs[64];
	size_t n = compressed_sections(d, len, cs, 64);
	ck_assert_uint_ge(n, 3);
	size_t accepted = 0, tried = 0;
	for (size_t i = 0; i < n; i++) {
		const csec *c = &cs[i];
		ck_assert_uint_ge(c->size, sizeof(Elf64_Chdr) + 8);
		/* every byte of the compression header, and of the zlib
		 * stream's two ends (header and adler-32) */
		uint64_t spots[64];
		size_t ns = 0;
		for (uint64_t k = 0; k < sizeof(Elf64_Chdr) + 4; k++)
			spots[ns++] = c->off + k;
		for (uint64_t k = 1; k <= 4; k++)
			spots[ns++] = c->off + c->size - k;
		spots[ns++] = c->off + c->size / 2;
		for (size_t s = 0; s < ns; s++)
			for (unsigned x = 0x01; x <= 0x80; x <<= 7) {
				memcpy(g, d, len);
				g[spots[s]] ^= (uint8_t)(x | 0x10);
				accepted += try_garbled(g, len);
				tried++;
			}
		/* sizes beyond any bound, or off by one */
		static const uint64_t sizes[] = { UINT64_MAX, (uint64_t)1 << 40, (uint64_t)2 << 30 };
		for (size_t s = 0; s < 3; s++) {
			memcpy(g, d, len);
			put64le(g + c->off + 8, sizes[s]);
			ck_assert(!try_garbled(g, len));
		}
		uint64_t real;
		memcpy(&real, d + c->off + 8, 8);
		for (int delta = -1; delta <= 1; delta += 2) {
			memcpy(g, d, len);
			put64le(g + c->off + 8, real + (uint64_t)(int64_t)delta);
			ck_assert_msg(!try_garbled(g, len), "section at %llx: ch_size %+d accepted",
				      (unsigned long long)c->off, delta);
		}
		/* the section header: offset and size out of the file */
		uint64_t fields[] = { 24, 32 };
		for (size_t f = 0; f < 2; f++) {
			memcpy(g, d, len);
			put64le(g + c->shdr + fields[f], (uint64_t)len - 4);
			ck_assert(!try_garbled(g, len));
			memcpy(g, d, len);
			put64le(g + c->shdr + fields[f], UINT64_MAX - 7);
			ck_assert(!try_garbled(g, len));
		}
	}
	/* some flips leave a valid file (e.g. the adler-32 is checked, but a
	 * flipped alignment byte may still be a power of two): at least the
	 * checks must reject most */
	ck_assert_uint_lt(accepted, tried / 2);
	free(g);
	free(d);
}
END_TEST

/* A .shstrtab that lies inside the section header table: the copy's
 * rewritten entries would rename sections it leaves alone (a fuzzer
 * find), so the file is left to libdw.  So is one with any other section
 * there (another find: a compressed header inside the table turned into
 * one that claims 2^56 bytes once the entries around it were rewritten). */
START_TEST(names_inside_section_headers)
{
	PD_SKIP_IF(lab_skip);
	size_t len;
	uint8_t *d = pd_test_read_file(zprog, &len);
	ck_assert_ptr_nonnull(d);
	Elf *e = elf_memory((char *)d, len);
	ck_assert_ptr_nonnull(e);
	GElf_Ehdr eh;
	size_t strndx;
	ck_assert_ptr_nonnull(gelf_getehdr(e, &eh));
	ck_assert_int_eq(elf_getshdrstrndx(e, &strndx), 0);
	elf_end(e);
	ck_assert_uint_ge(len - eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr));
	/* the table's first bytes (the null entry) read as an empty name */
	put64le(d + eh.e_shoff + strndx * sizeof(Elf64_Shdr) + 24, eh.e_shoff);
	char path[PD_TEST_PATHMAX];
	pd_error err = { 0 };
	path_in(path, "names-in-shdrs");
	ck_assert(pd_test_write_file(path, d, len));
	int fd = inflate_open(path, &err);
	ck_assert_int_lt(fd, 0);
	ck_assert_msg(strstr(err.message, "overlaps the section headers"), "%s", err.message);
	free(d);
	/* the first section other than .shstrtab, moved into the table */
	d = pd_test_read_file(zprog, &len);
	ck_assert_ptr_nonnull(d);
	size_t moved = strndx == 1 ? 2 : 1;
	put64le(d + eh.e_shoff + moved * sizeof(Elf64_Shdr) + 24, eh.e_shoff + 8);
	path_in(path, "section-in-shdrs");
	ck_assert(pd_test_write_file(path, d, len));
	fd = inflate_open(path, &err);
	ck_assert_int_lt(fd, 0);
	ck_assert_msg(strstr(err.message, "overlaps the section headers"), "%s", err.message);
	free(d);
	/* the same file with its table where it was is inflated */
	d = pd_test_read_file(zprog, &len);
	ck_assert(try_garbled(d, len));
	free(d);
}
END_TEST

START_TEST(libc_debug_file)
{
	struct stat sb;
	if (stat(LIBC_DEBUG, &sb) != 0)
		PD_SKIP("%s absent (libc6-dbg not installed)", LIBC_DEBUG);
	int fd = open_inflated(LIBC_DEBUG);
	ck_assert_uint_ge(compare_elf(LIBC_DEBUG, fd), 5);
	check_same_dwarf(LIBC_DEBUG, fd, NULL);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("debug_inflate");
	TCase *t = tcase_create("inflate");
	tcase_add_unchecked_fixture(t, lab_setup, lab_teardown);
	tcase_set_timeout(t, 300);
	tcase_add_test(t, same_sections_and_dwarf);
	tcase_add_test(t, separate_debug_file);
	tcase_add_test(t, legacy_zdebug);
	tcase_add_test(t, elf32);
	tcase_add_test(t, big_endian);
	tcase_add_test(t, nothing_compressed);
	tcase_add_test(t, through_dwfl);
	tcase_add_test(t, truncated);
	tcase_add_test(t, garbled_headers);
	tcase_add_test(t, names_inside_section_headers);
	tcase_add_test(t, libc_debug_file);
	suite_add_tcase(s, t);
	return pd_test_main(s);
}
