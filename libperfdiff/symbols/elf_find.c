/*
 * Finding the file that holds a dso's code and symbols, by build-id.
 * A file is used only when its build-id equals the recording's: a binary
 * rebuilt at the same path after recording would otherwise give wrong
 * names without any sign of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symb_internal.h"

void pd_hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Only regular files: opening a FIFO or a device named in a recording
 * would block or have side effects.  -1 otherwise. */
static int open_regular(const char *path)
{
	int fd;
	return pd_open_regular(path, &fd, NULL, NULL) < 0 ? -1 : fd;
}

int pd_elf_file_build_id(const char *path, uint8_t *out, size_t out_size)
{
	int fd = open_regular(path);
	if (fd < 0)
		return -1;
	/* ELF_C_READ, not an mmap: a file truncated under us must give an
	 * error, not SIGBUS. */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int rc = -1;
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		const void *id = NULL;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
		if (n > 0 && id) {
			size_t len = (size_t)n < out_size ? (size_t)n : out_size;
			memcpy(out, id, len);
			rc = (int)len;
		} else {
			rc = 0;
		}
	}
	elf_end(elf);
	close(fd);
	return rc;
}

bool pd_elf_altlink_is(const char *path, const char *name)
{
	int fd = path && name ? open_regular(path) : -1;
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	bool same = false;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
			GElf_Shdr sh;
			const char *sn;
			if (!gelf_getshdr(scn, &sh) || !(sn = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    strcmp(sn, ".gnu_debugaltlink") != 0)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = strlen(name);
			same = d && d->d_buf && d->d_size > n && memcmp(d->d_buf, name, n) == 0 &&
			       ((const char *)d->d_buf)[n] == '\0';
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return same;
}

size_t pd_notes_build_id(const uint8_t *notes, size_t len, uint8_t *out, size_t out_size)
{
	size_t off = 0;
	while (len - off >= 12) {
		uint32_t namesz = pd_ld32(notes + off, false);
		uint32_t descsz = pd_ld32(notes + off + 4, false);
		uint32_t type = pd_ld32(notes + off + 8, false);
		off += 12;
		uint64_t nameal = ((uint64_t)namesz + 3) & ~(uint64_t)3;
		uint64_t descal = ((uint64_t)descsz + 3) & ~(uint64_t)3;
		if (nameal > len - off || descsz > len - off - nameal)
			return 0;
		const uint8_t *name = notes + off;
		const uint8_t *desc = notes + off + nameal;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
		    descsz > 0) {
			size_t n = descsz < out_size ? descsz : out_size;
			memcpy(out, desc, n);
			return n;
		}
		if (descal > len - off - nameal)
			return 0;
		off += nameal + descal;
	}
	return 0;
}

size_t pd_running_kernel_build_id(uint8_t *out, size_t out_size)
{
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* The file is a few hundred bytes; sysfs reports size 4096. */
	uint8_t buf[8192];
	size_t len = 0;
	while (len < sizeof buf) {
		ssize_t n = read(fd, buf + len, sizeof buf - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	return pd_notes_build_id(buf, len, out, out_size);
}

static char *join(pd_arena *a, const char *prefix, const char *path)
{
	size_t pl = prefix ? strlen(prefix) : 0;
	while (pl > 1 && prefix[pl - 1] == '/' && path[0] == '/')
		pl--;
	size_t n = pl + strlen(path);
	char *s = pd_arena_alloc(a, n + 1);
	if (!s)
		return NULL;
	if (pl)
		memcpy(s, prefix, pl);
	strcpy(s + pl, path);
	return s;
}

/* perf keeps at most 20 bytes of a build-id: a longer one (--build-id=
 * sha256 is not in GNU ld, but other linkers differ) matches on them. */
static bool same_id(const uint8_t *id, int n, const pd_dso_id *dso)
{
	if (n <= 0 || dso->build_id_size == 0)
		return false;
	if (n > PD_BUILD_ID_MAX && dso->build_id_size == PD_BUILD_ID_MAX)
		n = PD_BUILD_ID_MAX;
	return n == dso->build_id_size && memcmp(id, dso->build_id, (size_t)n) == 0;
}

static bool id_is(const char *path, const pd_dso_id *dso)
{
	uint8_t id[64];
	return same_id(id, pd_elf_file_build_id(path, id, sizeof id), dso);
}

/* The [vdso] range of this process, from /proc/self/maps. */
static bool own_vdso(uint64_t *start, uint64_t *len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	char line[512];
	bool ok = false;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi;
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2 && hi > lo) {
			*start = lo;
			*len = hi - lo;
			ok = true;
			break;
		}
	}
	fclose(f);
	return ok;
}

/*
 * perf -N (and pipe mode) leaves no copy of the vdso; when the recording
 * was made on the running kernel, this process's vdso is the same image.
 * libdwfl takes a file descriptor, so the image goes through a memfd.
 */
static int running_vdso(const pd_dso_id *dso, bool require_id)
{
	uint64_t start, len;
	unsigned long auxv = getauxval(AT_SYSINFO_EHDR);
	if (!auxv || !own_vdso(&start, &len) || start != auxv || len > (1u << 20))
		return -1;
	const uint8_t *img = (const uint8_t *)(uintptr_t)start;
	if (require_id) {
		Elf *elf = elf_memory((char *)(uintptr_t)img, len);
		const void *id = NULL;
		ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
		bool same = id && n > 0 && n <= 64 && same_id(id, (int)n, dso);
		elf_end(elf);
		if (!same)
			return -1;
	}
	int fd = memfd_create("pd-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, img + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static bool special_name(const char *name)
{
	/* Anonymous and kernel-made mappings have no file to look for; a
	 * warning for each would only be noise. */
	return name[0] != '/' || strncmp(name, "//anon", 6) == 0;
}

static bool is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A stripped copy and its original differ only here. */
bool pd_elf_has_func_symbols(const char *path)
{
	int fd = open_regular(path);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	bool found = false;
	for (Elf_Scn *scn = elf && elf_kind(elf) == ELF_K_ELF ? elf_nextscn(elf, NULL) : NULL;
	     scn && !found; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t esz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		size_t n = d && esz ? d->d_size / esz : 0;
		for (size_t i = 1; i < n && !found; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym))
				break;
			int t = GELF_ST_TYPE(sym.st_info);
			found = (t == STT_FUNC || t == STT_GNU_IFUNC) && sym.st_shndx != SHN_UNDEF;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* A recorded name as a file to open: without the " (deleted)" the kernel
 * appends, inside the symfs; NULL in *out for names that are no path. */
static int recorded_path(pd_arena *arena, const char *symfs, const char *name, char **out)
{
	*out = NULL;
	if (name[0] != '/' || strncmp(name, "//anon", 6) == 0)
		return 0;
	size_t n = strlen(name);
	static const char del[] = " (deleted)";
	if (n > sizeof del - 1 && strcmp(name + n - (sizeof del - 1), del) == 0)
		n -= sizeof del - 1;
	char *bare = pd_arena_strndup(arena, name, n);
	if (!bare || !(*out = join(arena, symfs, bare)))
		return PD_ENOMEM;
	return 0;
}

int pd_find_dso_files(const pd_symsources *src, const pd_dso_id *dso, pd_arena *arena,
		      pd_dsofiles *out, pd_warnings *warn)
{
	return pd_find_dso_files_among(src, dso, NULL, 0, arena, out, warn);
}

/* `p`, a file of source `where` said to be dso's `kind`, when it holds
 * that build; one that holds another is refused aloud. */
static char *checked(const char *p, const char *where, const pd_dso_id *dso, const char *kind,
		     pd_warnings *warn)
{
	if (!p)
		return NULL;
	uint8_t id[64];
	int n = pd_elf_file_build_id(p, id, sizeof id);
	if (same_id(id, n, dso))
		return (char *)p;
	char want[2 * PD_BUILD_ID_MAX + 1], got[2 * 64 + 1] = "none";
	pd_hex(want, dso->build_id, dso->build_id_size);
	if (n > 0)
		pd_hex(got, id, (size_t)n);
	pd_warnings_addf(warn, PD_WARN_MISMATCH,
			 "%s: the %s for build-id %s holds build-id %s; refused, frames stay [unknown]",
			 where, kind, want, n < 0 ? "(not an ELF file)" : got);
	return NULL;
}

/* The tarball's member `kind` of dso's build-id, checked. */
static char *archive_member(pd_symarchive *a, const pd_dso_id *dso, const char *kind,
			    pd_warnings *warn)
{
	const char *p = pd_symarchive_member(a, dso->build_id, dso->build_id_size, kind, warn);
	return checked(p, pd_symarchive_file(a), dso, kind, warn);
}

/* The files of dso's build-id in a perf build-id cache `dir` (modern
 * perf: a directory of elf/vdso/debug; old perf: the link is the file).
 * 0 or PD_ENOMEM. */
static int cache_dir(const char *dir, const char *hex, const pd_dso_id *dso, pd_arena *arena,
		     char **elf, char **debug)
{
	char rel[64 + 2 * PD_BUILD_ID_MAX];
	snprintf(rel, sizeof rel, "/.build-id/%.2s/%s", hex, hex + 2);
	char *link = join(arena, dir, rel);
	if (!link)
		return PD_ENOMEM;
	struct stat st;
	if (stat(link, &st) == 0 && S_ISDIR(st.st_mode)) {
		static const char *const mains[] = { "/elf", "/vdso" };
		for (size_t i = 0; i < 2 && !*elf; i++) {
			char *p = join(arena, link, mains[i]);
			if (!p)
				return PD_ENOMEM;
			if (id_is(p, dso))
				*elf = p;
		}
		char *d = join(arena, link, "/debug");
		if (!d)
			return PD_ENOMEM;
		if (!*debug && id_is(d, dso))
			*debug = d;
	} else if (!*elf && id_is(link, dso)) {
		*elf = link;
	}
	return 0;
}

/* One of the user's sources: its files of dso's build-id, checked. */
static int list_source(const pd_usersrc *s, const char *hex, const pd_dso_id *dso,
		       pd_arena *arena, char **elf, char **debug, pd_warnings *warn)
{
	if (s->archive) {
		*elf = archive_member(s->archive, dso, "elf", warn);
		if (!*elf)
			*elf = archive_member(s->archive, dso, "vdso", warn);
		*debug = archive_member(s->archive, dso, "debug", warn);
		return 0;
	}
	if (s->url) {
		const uint8_t *id = dso->build_id;
		size_t n = dso->build_id_size;
		*elf = checked(pd_symurl_file(s->url, id, n, "executable", warn), s->where, dso,
			       "executable", warn);
		*debug = checked(pd_symurl_file(s->url, id, n, "debuginfo", warn), s->where, dso,
				 "debuginfo", warn);
		return 0;
	}
	return cache_dir(s->where, hex, dso, arena, elf, debug);
}

/* The user's sources, in their order: the first that holds the build's
 * file gives it, and the first that holds a debug file gives that. */
static int from_list(const pd_symsources *src, const char *hex, const pd_dso_id *dso,
		     pd_arena *arena, pd_dsofiles *out, pd_warnings *warn)
{
	const char *debug_from = NULL;
	for (size_t i = 0; i < src->nlist && !out->elf_path; i++) {
		const pd_usersrc *s = &src->list[i];
		if (s->url && src->no_servers)
			continue;
		char *elf = NULL, *debug = NULL;
		if (list_source(s, hex, dso, arena, &elf, &debug, warn) < 0)
			return PD_ENOMEM;
		if (debug && !out->debug_path) {
			out->debug_path = debug;
			debug_from = s->where;
		}
		if (elf) {
			out->elf_path = elf;
			out->from = s->where;
		}
	}
	if (!out->from)
		out->from = debug_from;
	return 0;
}

void pd_symsources_searched(const pd_symsources *src, bool path, char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < src->nlist && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s, ", src->list[i].where);
	if (o < cap)
		snprintf(buf + o, cap - o, "%s%s, /usr/lib/debug%s%s",
			 src->archive || src->buildid_dir ? "" : "the build-id cache",
			 src->archive ? pd_symarchive_file(src->archive)
			 : src->buildid_dir ? src->buildid_dir : "",
			 path ? ", the path" : "", src->debuginfod ? ", debuginfod" : "");
}

int pd_find_dso_files_among(const pd_symsources *src, const pd_dso_id *dso,
			    const char *const *others, size_t nothers, pd_arena *arena,
			    pd_dsofiles *out, pd_warnings *warn)
{
	const char *symfs = src->symfs, *buildid_dir = src->buildid_dir;
	pd_symarchive *archive = src->archive;
	memset(out, 0, sizeof *out);
	out->vdso_fd = -1;
	const char *name = dso->name ? dso->name : "";
	bool vdso = strcmp(name, "[vdso]") == 0;

	char *path;
	if (recorded_path(arena, symfs, name, &path) < 0)
		return PD_ENOMEM;

	if (dso->build_id_size == 0) {
		if (path && is_regular(path)) {
			out->elf_path = path;
			out->unverified = true;
			pd_warnings_addf(warn, PD_WARN_UNVERIFIED,
					 "%s: no build-id in the recording; using %s unverified", name,
					 path);
		} else if (vdso && (out->vdso_fd = running_vdso(dso, false)) >= 0) {
			out->unverified = true;
			pd_warnings_addf(warn, PD_WARN_UNVERIFIED,
					 "%s: no build-id in the recording; using the running kernel's vdso unverified",
					 name);
		} else if (!special_name(name)) {
			pd_warnings_addf(warn, PD_WARN_NOT_FOUND,
					 "%s: cannot open %s; frames stay [unknown]", name,
					 path ? path : name);
		}
		return 0;
	}

	char hex[2 * PD_BUILD_ID_MAX + 1];
	pd_hex(hex, dso->build_id, dso->build_id_size);

	/* 0. The user's sources, in the order given. */
	if (from_list(src, hex, dso, arena, out, warn) < 0)
		return PD_ENOMEM;
	const char *debug_from = out->debug_path ? out->from : NULL;

	/* 1. perf's build-id cache: a directory (modern perf) or the file;
	 * or the same packed by perf archive. */
	if (out->elf_path || out->debug_path) {
		/* found in the user's sources: they come first */
	} else if (archive) {
		out->elf_path = archive_member(archive, dso, "elf", warn);
		if (!out->elf_path)
			out->elf_path = archive_member(archive, dso, "vdso", warn);
		out->debug_path = archive_member(archive, dso, "debug", warn);
		out->from = debug_from = pd_symarchive_file(archive);
	} else if (buildid_dir && hex[0] && hex[1]) {
		if (cache_dir(buildid_dir, hex, dso, arena, &out->elf_path, &out->debug_path) < 0)
			return PD_ENOMEM;
		out->from = debug_from = buildid_dir;
	}
	if (!out->elf_path && !out->debug_path)
		out->from = debug_from = NULL;

	/* 2. Distribution debuginfo by build-id (DWARF, usually a symtab). */
	if (!out->debug_path) {
		char rel[64 + 2 * PD_BUILD_ID_MAX];
		snprintf(rel, sizeof rel, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		char *d = join(arena, symfs, rel);
		if (!d)
			return PD_ENOMEM;
		if (id_is(d, dso)) {
			out->debug_path = d;
			debug_from = "/usr/lib/debug";
		}
	}

	/*
	 * 3. The recorded paths, only where they still hold the recorded
	 * build: this dso's own, then the other paths the same build was
	 * mapped from.  Without a debug file to name the code, the first
	 * with function symbols wins (a stripped copy loses to the
	 * original, as does a stripped file in the build-id cache).
	 */
	char file_hex[2 * 64 + 1] = "";
	/* a symbol check reads a whole symbol table: only where another
	 * candidate could replace the file */
	bool more = path || nothers;
	bool searching = !out->debug_path &&
			 (!out->elf_path || (more && !pd_elf_has_func_symbols(out->elf_path)));
	char *first = out->elf_path;
	for (size_t i = 0; i <= nothers && searching; i++) {
		char *p = path;
		if (i > 0 && recorded_path(arena, symfs, others[i - 1] ? others[i - 1] : "", &p) < 0)
			return PD_ENOMEM;
		if (!p)
			continue;
		uint8_t id[64];
		int n = pd_elf_file_build_id(p, id, sizeof id);
		if (same_id(id, n, dso)) {
			bool last = i == nothers;
			if (!first) {
				first = p;
				searching = !last && !pd_elf_has_func_symbols(p);
			} else {
				searching = !pd_elf_has_func_symbols(p);
			}
			if (!searching)
				out->elf_path = p;
		} else if (n >= 0 && i == 0 && !first) {
			out->mismatch = true;
			if (n > 0)
				pd_hex(file_hex, id, (size_t)n);
			else
				strcpy(file_hex, "none");
		}
	}
	char *listed = out->elf_path;
	if (!out->elf_path && first) {
		out->elf_path = first;
		out->mismatch = false;
	}
	if (!out->elf_path && out->debug_path && path && id_is(path, dso))
		out->elf_path = path;
	if (out->elf_path && out->elf_path != listed)
		out->from = "the recorded path";

	if (!out->elf_path && vdso && (out->vdso_fd = running_vdso(dso, true)) >= 0)
		out->from = "the running kernel";

	/* 4. The servers, last: the network is the slowest source. */
	if (!out->elf_path && out->vdso_fd < 0 && src->debuginfod && !special_name(name) &&
	    (out->elf_path = pd_debuginfod_executable(src->debuginfod, dso, arena, warn)))
		out->from = "debuginfod";
	if (out->elf_path && !out->debug_path && out->elf_path != first && out->mismatch)
		out->mismatch = false;

	/* A debug file alone still has the symtab, the program headers and the
	 * DWARF: enough to name code, so it stands in for a missing binary. */
	if (!out->elf_path && out->vdso_fd < 0 && out->debug_path) {
		out->elf_path = out->debug_path;
		out->debug_path = NULL;
		out->from = debug_from;
	}

	if (out->elf_path || out->vdso_fd >= 0)
		return 0;
	if (out->mismatch)
		pd_warnings_addf(warn, PD_WARN_MISMATCH,
				 "%s: build-id mismatch (file %s, recording %s); frames stay [unknown]",
				 path ? path : name, file_hex, hex);
	else if (!special_name(name) || vdso) {
		char where[1024];
		pd_symsources_searched(src, path != NULL, where, sizeof where);
		pd_warnings_addf(warn, PD_WARN_NOT_FOUND,
				 "%s: no file with build-id %s (searched %s); frames stay [unknown]",
				 name, hex, where);
	}
	return 0;
}
