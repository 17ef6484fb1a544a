/*
 * The symbolizer object and user-space lookups.
 *
 * Per dso (keyed by build-id, else path + inode, so the two sides of a
 * diff and copies of one build at several paths share the work) one Dwfl
 * with one module reported at base 0: its symtab is turned into a sorted
 * table once, DWARF is opened only when lines or inline frames are asked
 * for.  A query's file offset becomes an
 * ELF address through the PT_LOAD that holds it, which is right for any
 * linker (p_vaddr - p_offset need not be 0).  Results are cached by
 * (dso state, file offset) and live in the arena until the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symb_internal.h"
#include "symfacts.h"

/* A recorded path of the state's build, in the order seen. */
typedef struct pd_dsopath {
	const char *name;
	struct pd_dsopath *next;
} pd_dsopath;

struct pd_dsostate {
	pd_dsostate *next_hash, *next_all;
	uint64_t key;
	/* identity */
	uint8_t build_id[PD_BUILD_ID_MAX];
	uint8_t build_id_size;
	const char *name;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	pd_dsopath *paths;       /* every name seen with this build-id, `name` first */
	bool retired;            /* replaced: a path with symbols came after loading */

	bool loaded, failed;
	pd_dsoopen o;            /* with `shared`, a copy of the cache entry's */
	const char *elf_path;    /* what was reported (NULL: the vdso memfd) */
	const char *debug_path;  /* DWARF found by build-id, handed to libdwfl */
	const char *symfs;
	pd_debuginfod *dfd;      /* asked for its debug file last, or NULL */
	const char *from;        /* where its files came from (pd_dsofiles.from) */
	pd_threads *threads;     /* the budget inflating its debug file may use */
	bool pinned;             /* never closed (memfd) */
	/* The vdso image for the unwinders: a copy of the memfd libdwfl owns,
	 * reopened through /proc/self/fd (they want a path). */
	bool have_vdso_copy;
	int vdso_copy_fd;
	char vdso_copy_path[40];
	pd_shdso *shared;        /* files, table and DWARF from the pd_symcache */
	pd_symcache_entry *shared_ref;  /* held while this symbolizer lives */
	bool reopen_failed;
	uint64_t last_use;
};

static void close_dwfl(pd_symbolizer *z, pd_dsostate *st);

/* Returned when even an "unknown" result cannot be allocated. */
static const pd_symframe no_frame;
static const pd_symres no_result = { .nframes = 1, .frames = &no_frame };

/* ---- warnings ---- */

void pd_symbolizer_warn(pd_symbolizer *z, pd_warning_kind kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pd_warnings_vaddf(&z->warnings, kind, fmt, ap);
	va_end(ap);
}

size_t pd_symbolizer_warning_count(const pd_symbolizer *z)
{
	return z ? pd_warnings_count(&z->warnings) : 0;
}

const char *pd_symbolizer_warning(const pd_symbolizer *z, size_t i)
{
	return z ? pd_warnings_get(&z->warnings, i) : NULL;
}

pd_warning_kind pd_symbolizer_warning_kind(const pd_symbolizer *z, size_t i)
{
	return z ? pd_warnings_kind_of(&z->warnings, i) : PD_WARN_OTHER;
}

/* ---- results ---- */

pd_symres *pd_symres_new(pd_symbolizer *z, size_t nframes, pd_symframe **frames)
{
	pd_symres *r = pd_arena_alloc(&z->arena, sizeof *r + nframes * sizeof(pd_symframe));
	if (!r)
		return NULL;
	*frames = (pd_symframe *)(r + 1);
	r->nframes = nframes;
	r->frames = *frames;
	return r;
}

const pd_symres *pd_symres_unknown(pd_symbolizer *z, uint64_t addr)
{
	pd_symframe *f;
	pd_symres *r = z ? pd_symres_new(z, 1, &f) : NULL;
	if (!r)
		return &no_result;
	r->addr = addr;
	return r;
}

const char *pd_symbolizer_display(pd_symbolizer *z, const char *raw)
{
	if (!raw || !z->cfg.demangle || raw[0] != '_')
		return raw;
	const char *d = pd_symhash_get(&z->demangled, (uintptr_t)raw, 0);
	if (d)
		return d;
	d = pd_demangle_opts(raw, !z->cfg.demangle_no_params, &z->arena);
	if (!d)
		d = raw;
	pd_symhash_put(&z->demangled, (uintptr_t)raw, 0, (void *)d);
	return d;
}

/* ---- creation ---- */

static char *dup_opt(pd_arena *a, const char *s)
{
	return s ? pd_arena_strndup(a, s, strlen(s)) : NULL;
}

/* A debug file named by .gnu_debuglink: next to the file, in .debug/ there,
 * or under /usr/lib/debug (inside symfs); checked by build-id when the
 * module has one. */
static int find_debuglink(Dwfl_Module *mod, const char *symfs, const char *file_name,
			  const char *link, char **found)
{
	if (!file_name || !link || !link[0] || strchr(link, '/'))
		return -1;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int nbits = dwfl_module_build_id(mod, &bits, &vaddr);
	const char *slash = strrchr(file_name, '/');
	int dirlen = slash ? (int)(slash - file_name) : 1;
	const char *dir = slash ? file_name : ".";
	size_t sl = symfs ? strlen(symfs) : 0;
	const char *inner = dir;
	int innerlen = dirlen;
	/* /usr/lib/debug mirrors the path inside the symfs, not the host's */
	if (sl && strncmp(dir, symfs, sl) == 0 && dirlen >= (int)sl) {
		inner = dir + sl;
		innerlen = dirlen - (int)sl;
	}
	char path[3][4096];
	snprintf(path[0], sizeof path[0], "%.*s/%s", dirlen, dir, link);
	snprintf(path[1], sizeof path[1], "%.*s/.debug/%s", dirlen, dir, link);
	snprintf(path[2], sizeof path[2], "%s/usr/lib/debug%.*s/%s", symfs ? symfs : "", innerlen,
		 inner, link);
	for (int i = 0; i < 3; i++) {
		if (strcmp(path[i], file_name) == 0)
			continue;
		uint8_t id[64];
		int n = pd_elf_file_build_id(path[i], id, sizeof id);
		if (n < 0 || (nbits > 0 && (n != nbits || memcmp(id, bits, (size_t)n) != 0)))
			continue;
		int fd = open(path[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		*found = strdup(path[i]);
		if (*found)
			return fd;
		close(fd);
	}
	return -1;
}

/*
 * Separate debuginfo: the file found by build-id (perf's cache `debug`,
 * /usr/lib/debug/.build-id) first, then build-id directories of the
 * debuginfo path (also how dwz's .gnu_debugaltlink files are found), then
 * .gnu_debuglink, then the debuginfod servers when the symbolizer has a
 * client (DEBUGINFOD_URLS set, not offline).  Not
 * dwfl_standard_find_debuginfo: it loads libdebuginfod (and libcurl) even
 * when DEBUGINFOD_URLS is unset (elfutils 0.188, seen with LD_DEBUG), and
 * its client would go on asking a server that hangs, for every dso.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	pd_dsostate *st = userdata ? *userdata : NULL;
	/* libdwfl asks through this callback for dwz's common file too: then
	 * `file_name` is the file whose .gnu_debugaltlink names `debuglink_file` */
	bool alt = debuglink_file && debuglink_crc == 0 && pd_elf_altlink_is(file_name, debuglink_file);
	if (st && st->debug_path && !alt && strcmp(st->debug_path, file_name ? file_name : "") != 0) {
		/* its compressed sections inflated ahead (libdeflate, two
		 * threads) rather than by libdw's zlib when it opens them */
		int fd = pd_debug_inflate_open(st->debug_path, st->threads, NULL);
		if (fd < 0)
			fd = open(st->debug_path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			*debuginfo_file_name = strdup(st->debug_path);
			if (*debuginfo_file_name)
				return fd;
			close(fd);
		}
	}
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					      debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0 || alt)
		return fd;
	fd = find_debuglink(mod, st ? st->symfs : NULL, file_name, debuglink_file,
			    debuginfo_file_name);
	if (fd >= 0 || !st || !st->dfd)
		return fd;
	const unsigned char *id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr);
	return n > 0 ? pd_debuginfod_debuginfo(st->dfd, id, (size_t)n, debuginfo_file_name) : -1;
}

/* Modules are always reported with a file or descriptor; never search. */
static int no_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)elfp;
	return -1;
}

/* The user's sources opened: a file is a perf archive tarball, an
 * http(s) URL a debuginfod server (none when offline), else a build-id
 * directory.  0 or PD_ENOMEM. */
static int open_sources(pd_symbolizer *z)
{
	size_t n = z->cfg.nsources;
	if (n == 0 || !z->cfg.sources)
		return 0;
	const char **where = pd_arena_alloc(&z->arena, n * sizeof *where);
	z->sources = calloc(n, sizeof *z->sources);
	if (!where || !z->sources)
		return PD_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *w = z->cfg.sources[i];
		if (!w || !w[0] || (pd_symurl_is_url(w) && z->cfg.offline))
			continue;
		pd_usersrc *s = &z->sources[k];
		if (!(s->where = where[k] = dup_opt(&z->arena, w)))
			return PD_ENOMEM;
		k++;
		if (pd_symurl_is_url(w) ? pd_symurl_new(&s->url, w) < 0
		    : pd_symarchive_is_file(w) && pd_symarchive_new(&s->archive, w, 0) < 0)
			return PD_ENOMEM;
		struct stat sb;
		if (!s->url && stat(w, &sb) < 0)
			pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: a symbol source that cannot be read (%s)",
					   w, strerror(errno));
	}
	z->cfg.sources = where;
	z->cfg.nsources = k;
	return 0;
}

static void free_sources(pd_symbolizer *z)
{
	for (size_t i = 0; z->sources && i < z->cfg.nsources; i++) {
		pd_symarchive_free(z->sources[i].archive);
		pd_symurl_free(z->sources[i].url);
	}
	free(z->sources);
}

int pd_symbolizer_new(pd_symbolizer **out, const pd_symbolizer_config *cfg, pd_error *err)
{
	*out = NULL;
	pd_symbolizer *z = calloc(1, sizeof *z);
	if (!z)
		return pd_error_set(err, PD_ENOMEM, "symbolizer", PD_NO_OFFSET, "out of memory");
	pd_arena_init(&z->arena);
	pd_warnings_init(&z->warnings, 0);
	if (cfg)
		z->cfg = *cfg;
	pd_warnings_set_sink(&z->warnings, z->cfg.warn, z->cfg.warn_ctx, z->cfg.warn_path);
	z->cfg.symfs = dup_opt(&z->arena, z->cfg.symfs && z->cfg.symfs[0] ? z->cfg.symfs : NULL);
	z->cfg.kallsyms = dup_opt(&z->arena, z->cfg.kallsyms);
	z->cfg.vmlinux = dup_opt(&z->arena, z->cfg.vmlinux);
	z->cfg.jit_dir = dup_opt(&z->arena, z->cfg.jit_dir ? z->cfg.jit_dir : "/tmp");
	const char *bid = z->cfg.buildid_dir;
	if (!bid)
		bid = getenv("PERF_BUILDID_DIR");
	if (!bid || !bid[0]) {
		const char *home = getenv("HOME");
		if (home && home[0]) {
			size_t n = strlen(home);
			char *s = pd_arena_alloc(&z->arena, n + sizeof "/.debug");
			if (s) {
				memcpy(s, home, n);
				memcpy(s + n, "/.debug", sizeof "/.debug");
			}
			bid = s;
		} else {
			bid = NULL;
		}
	}
	z->buildid_dir = dup_opt(&z->arena, bid);
	z->cfg.buildid_dir = z->buildid_dir;
	/* a file there is a perf archive tarball, read in place */
	if (z->buildid_dir && pd_symarchive_is_file(z->buildid_dir) &&
	    pd_symarchive_new(&z->archive, z->buildid_dir, 0) < 0) {
		pd_symbolizer_free(z);
		return pd_error_set(err, PD_ENOMEM, "symbolizer", PD_NO_OFFSET, "out of memory");
	}
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (urls && urls[0] && !z->cfg.offline && pd_debuginfod_new(&z->debuginfod) < 0) {
		pd_symbolizer_free(z);
		return pd_error_set(err, PD_ENOMEM, "symbolizer", PD_NO_OFFSET, "out of memory");
	}
	if (open_sources(z) < 0) {
		pd_symbolizer_free(z);
		return pd_error_set(err, PD_ENOMEM, "symbolizer", PD_NO_OFFSET, "out of memory");
	}
	if (z->cfg.symfs) {
		/* libdwfl's own debuginfo search must stay inside the symfs too */
		size_t n = strlen(z->cfg.symfs);
		z->debuginfo_path = pd_arena_alloc(&z->arena, n + 32);
		if (z->debuginfo_path)
			snprintf(z->debuginfo_path, n + 32, ":.debug:%s/usr/lib/debug", z->cfg.symfs);
	}
	bool oom = !z->cfg.jit_dir || (z->cfg.symfs && !z->debuginfo_path) ||
		   (cfg && cfg->symfs && cfg->symfs[0] && !z->cfg.symfs) ||
		   (cfg && cfg->kallsyms && !z->cfg.kallsyms) ||
		   (cfg && cfg->vmlinux && !z->cfg.vmlinux) || (bid && !z->buildid_dir);
	if (oom) {
		pd_symbolizer_free(z);
		return pd_error_set(err, PD_ENOMEM, "symbolizer", PD_NO_OFFSET, "out of memory");
	}
	z->callbacks.find_elf = no_find_elf;
	z->callbacks.find_debuginfo = find_debuginfo;
	z->callbacks.section_address = dwfl_offline_section_address;
	z->callbacks.debuginfo_path = z->debuginfo_path ? &z->debuginfo_path : NULL;
	/* libelf refuses every call until a version is set; idempotent. */
	elf_version(EV_CURRENT);
	*out = z;
	return 0;
}

void pd_symbolizer_free(pd_symbolizer *z)
{
	if (!z)
		return;
	pd_prefetch_free(z);
	for (pd_dsostate *st = z->dso_list, *next; st; st = next) {
		next = st->next_all;
		close_dwfl(z, st);
		if (!st->shared) {
			pd_symtab_free(st->o.symtab);
			free(st->o.loads);
		}
		pd_symcache_release(z->cfg.cache, st->shared_ref);
		if (st->have_vdso_copy)
			close(st->vdso_copy_fd);
		free(st);
	}
	pd_symbolizer_free_kernel(z);
	pd_symbolizer_free_bpf(z);
	pd_symhash_free(&z->dsos);
	pd_symhash_free(&z->results);
	pd_symfront_free(&z->front);
	pd_symhash_free(&z->demangled);
	pd_strpool_free(&z->strings);
	pd_warnings_free(&z->warnings);
	pd_symarchive_free(z->archive);
	pd_debuginfod_free(z->debuginfod);
	free_sources(z);
	pd_arena_free(&z->arena);
	free(z);
}

/* ---- dso states ---- */

static uint64_t identity_key(const pd_dso_id *d)
{
	if (d->build_id_size)
		return pd_symhash_bytes(d->build_id, d->build_id_size, 1);
	const char *name = d->name ? d->name : "";
	uint64_t h = pd_symhash_bytes(name, strlen(name), 2);
	uint64_t rest[3] = { ((uint64_t)d->maj << 32) | d->min, d->ino, d->ino_generation };
	return pd_symhash_bytes(rest, sizeof rest, h);
}

static bool same_identity(const pd_dsostate *st, const pd_dso_id *d)
{
	if (st->build_id_size || d->build_id_size)
		return st->build_id_size == d->build_id_size &&
		       memcmp(st->build_id, d->build_id, d->build_id_size) == 0;
	return strcmp(st->name, d->name ? d->name : "") == 0 && st->maj == d->maj &&
	       st->min == d->min && st->ino == d->ino && st->ino_generation == d->ino_generation;
}

/* Remember `name` as a path of `st`'s build; true when it is new. */
static bool add_path(pd_symbolizer *z, pd_dsostate *st, const char *name)
{
	pd_dsopath **tail = &st->paths;
	for (; *tail; tail = &(*tail)->next)
		if (strcmp((*tail)->name, name) == 0)
			return false;
	pd_dsopath *p = pd_arena_alloc(&z->arena, sizeof *p);
	const char *copy = p ? pd_arena_strndup(&z->arena, name, strlen(name)) : NULL;
	if (!copy)
		return false;   /* only a candidate less */
	p->name = copy;
	p->next = NULL;
	*tail = p;
	return true;
}

static pd_dsostate *new_state(pd_symbolizer *z, const pd_dso_id *d, uint64_t key,
			      pd_dsostate *head)
{
	pd_dsostate *st = calloc(1, sizeof *st);
	const char *name = d->name ? d->name : "";
	if (st)
		st->name = pd_arena_strndup(&z->arena, name, strlen(name));
	if (!st || !st->name || pd_symhash_put(&z->dsos, key, 0, st) < 0) {
		free(st);
		return NULL;
	}
	st->key = key;
	st->build_id_size = d->build_id_size <= PD_BUILD_ID_MAX ? d->build_id_size : PD_BUILD_ID_MAX;
	memcpy(st->build_id, d->build_id, st->build_id_size);
	st->maj = d->maj;
	st->min = d->min;
	st->ino = d->ino;
	st->ino_generation = d->ino_generation;
	st->next_hash = head;
	st->next_all = z->dso_list;
	z->dso_list = st;
	return st;
}

/*
 * A build loaded from a file without symbols (a stripped copy seen first)
 * gets a fresh state when another path of it turns up, so that the next
 * load can pick that path; the old state keeps its cached results (they
 * are keyed by state) and is skipped from now on.
 */
static pd_dsostate *replace_state(pd_symbolizer *z, pd_dsostate *old, const pd_dso_id *d)
{
	pd_dsostate *head = pd_symhash_get(&z->dsos, old->key, 0);
	pd_dsostate *st = new_state(z, d, old->key, head);
	if (!st)
		return old;
	st->paths = old->paths;
	old->retired = true;
	z->replaced++;
	for (size_t i = 0; i < PD_DSO_MEMO; i++)
		if (z->dso_memo[i].st == old)
			z->dso_memo[i] = (pd_dso_memo){ 0 };
	return st;
}

/* Loaded from a file that names nothing (its table may still hold the
 * synthesized PLT entries, so it is the file that is asked). */
static bool lacks_symbols(const pd_dsostate *st)
{
	if (!st->loaded || st->pinned)
		return false;
	return st->failed ||
	       (!st->debug_path && st->elf_path && !pd_elf_has_func_symbols(st->elf_path));
}

static pd_dsostate *state_for_slow(pd_symbolizer *z, const pd_dso_id *d)
{
	uint64_t key = identity_key(d);
	pd_dsostate *head = pd_symhash_get(&z->dsos, key, 0);
	const char *name = d->name ? d->name : "";
	for (pd_dsostate *st = head; st; st = st->next_hash) {
		if (st->retired || !same_identity(st, d))
			continue;
		if (add_path(z, st, name) && st->build_id_size && lacks_symbols(st))
			return replace_state(z, st, d);
		return st;
	}
	pd_dsostate *st = new_state(z, d, key, head);
	if (st)
		add_path(z, st, name);
	return st;
}

/*
 * Hashing an identity (a path's every byte) for each frame would cost more
 * than the lookup it leads to; callers pass interned identities, so the
 * pointer finds its state again and one comparison confirms it.
 */
static pd_dsostate *state_for(pd_symbolizer *z, const pd_dso_id *d)
{
	pd_dso_memo *m = &z->dso_memo[((uintptr_t)d >> 4) % PD_DSO_MEMO];
	if (m->id == d && m->st && !m->st->retired && same_identity(m->st, d))
		return m->st;
	pd_dsostate *st = state_for_slow(z, d);
	if (st) {
		m->id = d;
		m->st = st;
	}
	return st;
}

static bool read_loads(pd_load **loads, size_t *nloads, Elf *elf)
{
	GElf_Ehdr eh;
	size_t n;
	*nloads = 0;
	if (!gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(elf, &n) < 0)
		return false;
	*loads = calloc(n ? n : 1, sizeof **loads);
	if (!*loads)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			(*loads)[(*nloads)++] = (pd_load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	return *nloads > 0;
}

/*
 * libdwfl keeps every reported file open (a descriptor and a mapping per
 * ELF and debug file).  A system-wide profile touches hundreds of dsos, so
 * Dwfls are closed when not needed (symbols are copied out when the table
 * is built) and at most this many stay open for DWARF, least recently used
 * closed first.
 */
#define PD_MAX_OPEN_DWFLS 64

static void close_dwfl(pd_symbolizer *z, pd_dsostate *st)
{
	if (!st->o.dwfl)
		return;
	/* the DWARF index holds DIEs of this Dwfl */
	pd_dwarf_cache_free(st->o.dwarf);
	st->o.dwarf = NULL;
	dwfl_end(st->o.dwfl);
	st->o.dwfl = NULL;
	st->o.mod = NULL;
	z->open_dwfls--;
}

static void make_room(pd_symbolizer *z)
{
	while (z->open_dwfls >= PD_MAX_OPEN_DWFLS) {
		pd_dsostate *lru = NULL;
		for (pd_dsostate *st = z->dso_list; st; st = st->next_all)
			if (st->o.dwfl && !st->pinned && (!lru || st->last_use < lru->last_use))
				lru = st;
		if (!lru)
			return;
		close_dwfl(z, lru);
	}
}

/* Report the dso's file to a new Dwfl; `fd` >= 0 is a memfd (vdso). */
static bool open_dwfl(pd_symbolizer *z, pd_dsostate *st, int fd)
{
	make_room(z);
	const char *file = st->elf_path ? st->elf_path : "[vdso]";
	st->o.dwfl = dwfl_begin(&z->callbacks);
	if (!st->o.dwfl) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	z->open_dwfls++;
	dwfl_report_begin(st->o.dwfl);
	/* With an fd, libdwfl owns it from a successful report on. */
	st->o.mod = dwfl_report_elf(st->o.dwfl, st->name, file, fd, 0, false);
	if (!st->o.mod && fd >= 0)
		close(fd);
	if (dwfl_report_end(st->o.dwfl, NULL, NULL) != 0 || !st->o.mod) {
		pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: cannot read %s (%s); frames stay [unknown]", st->name, file,
				   dwfl_errmsg(-1));
		close_dwfl(z, st);
		return false;
	}
	void **userdata;
	dwfl_module_info(st->o.mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = st;
	return true;
}

static void open_with(const Dwfl_Callbacks *callbacks, pd_dsostate *shadow,
		      const char *elf_path, bool dwarf, Dwfl **dwfl, Dwfl_Module **mod);

pd_dsostate *pd_dsostate_shadow(const char *name, const char *debug_path, const char *symfs,
				pd_threads *threads, pd_debuginfod *dfd)
{
	pd_dsostate *st = calloc(1, sizeof *st);
	if (st) {
		st->dfd = dfd;
		st->name = name;
		st->debug_path = debug_path;
		st->symfs = symfs;
		st->threads = threads;
	}
	return st;
}

void pd_dwfl_open_detached(pd_symbolizer *z, pd_dsostate *shadow, const char *elf_path,
			   bool dwarf, Dwfl **dwfl, Dwfl_Module **mod)
{
	open_with(&z->callbacks, shadow, elf_path, dwarf, dwfl, mod);
}

static void open_with(const Dwfl_Callbacks *callbacks, pd_dsostate *shadow,
		      const char *elf_path, bool dwarf, Dwfl **dwfl, Dwfl_Module **mod)
{
	*dwfl = NULL;
	*mod = NULL;
	Dwfl *d = dwfl_begin(callbacks);
	if (!d)
		return;
	dwfl_report_begin(d);
	Dwfl_Module *m = dwfl_report_elf(d, shadow->name, elf_path, -1, 0, false);
	if (dwfl_report_end(d, NULL, NULL) != 0 || !m) {
		dwfl_end(d);
		return;
	}
	void **userdata;
	dwfl_module_info(m, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = shadow;
	Dwarf_Addr bias;
	if (dwarf)
		(void)dwfl_module_getdwarf(m, &bias);  /* the decompression */
	*dwfl = d;
	*mod = m;
}

/* The prefetch thread's Dwfl (and table, into *symtab) for `st`, if it
 * made one of these files. */
static bool take_prefetched(pd_symbolizer *z, pd_dsostate *st, const pd_dso_id *d,
			    pd_symtab **symtab)
{
	Dwfl *dwfl;
	Dwfl_Module *mod;
	*symtab = NULL;
	if (st->pinned ||
	    !pd_prefetch_take(z, d, st->elf_path, st->debug_path, &dwfl, &mod, symtab))
		return false;
	make_room(z);
	st->o.dwfl = dwfl;
	st->o.mod = mod;
	z->open_dwfls++;
	void **userdata;
	dwfl_module_info(st->o.mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = st;
	return true;
}

static bool want_dwarf(const pd_symbolizer *z)
{
	return z->cfg.inline_frames || z->cfg.srcline;
}

/* ---- dsos from the pd_symcache ---- */

/* The bytes of `elf`'s sections as libelf holds them (inflated once libdw
 * has read them), about what keeping the file open costs. */
static size_t elf_bytes(Elf *elf)
{
	size_t n = 0;
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS)
			n += sh.sh_size;
	}
	return n;
}

/* What an opened entry holds, about: its files' sections and its table
 * (the cache adds its arena). */
static size_t shdso_bytes(pd_shdso *e, Elf *elf)
{
	Dwarf_Addr b;
	Dwarf *dw = dwfl_module_getdwarf(e->o.mod, &b);
	Elf *debug = dw ? dwarf_getelf(dw) : NULL;
	return elf_bytes(elf) + (debug && debug != elf ? elf_bytes(debug) : 0) +
	       pd_symtab_bytes(e->o.symtab) + e->o.nloads * sizeof *e->o.loads;
}

/*
 * Open a cache entry as load_state() opens a state of its own, except
 * that what the Dwfl points to (callbacks, the debuginfo path, the state
 * find_debuginfo reads) is the entry's: it outlives this symbolizer.
 */
static void shared_open(void *ctx, pd_shdso *e)
{
	const pd_symbolizer *z = ctx;
	e->callbacks = z->callbacks;
	if (z->debuginfo_path) {
		e->debuginfo_path = pd_arena_strndup(&e->arena, z->debuginfo_path,
						     strlen(z->debuginfo_path));
		if (!e->debuginfo_path)
			goto oom;
	}
	e->callbacks.debuginfo_path = e->debuginfo_path ? &e->debuginfo_path : NULL;
	/* the asking session's threads while it opens the entry: the entry
	 * outlives the session */
	e->shadow = pd_dsostate_shadow(e->elf_path, e->debug_path, e->symfs, z->cfg.threads,
					       z->debuginfod);
	if (!e->shadow)
		goto oom;
	open_with(&e->callbacks, e->shadow, e->elf_path, true, &e->o.dwfl, &e->o.mod);
	e->shadow->threads = NULL;
	if (!e->o.mod) {
		pd_error_reason(&e->err, PD_EIO, "cannot read %s (%s)", e->elf_path,
				dwfl_errmsg(-1));
		return;
	}
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(e->o.mod, &bias);
	if (!elf || !read_loads(&e->o.loads, &e->o.nloads, elf)) {
		pd_error_reason(&e->err, PD_EUNSUPPORTED, "%s is not a loadable ELF file",
				e->elf_path);
		return;
	}
	e->o.bias = bias;
	e->o.symtab = pd_symtab_build(e->o.mod, &e->arena);
	e->o.dwarf = pd_dwarf_cache_new();  /* NULL: slower, still right */
	if (!e->o.symtab)
		goto oom;
	e->bytes = shdso_bytes(e, elf);
	e->failed = false;
	return;
oom:
	pd_error_reason(&e->err, PD_ENOMEM, "out of memory");
}

void pd_shdso_close(pd_shdso *e)
{
	pd_dwarf_cache_free(e->o.dwarf);
	if (e->o.dwfl)
		dwfl_end(e->o.dwfl);
	pd_symtab_free(e->o.symtab);
	free(e->o.loads);
	free(e->shadow);
	pthread_mutex_destroy(&e->lookup_mu);
	pd_arena_free(&e->arena);
}

/* Worth sharing: a dso's files, table and DWARF (inflated once), for
 * every session of the cache while its files stay the same. */
static bool shareable(const pd_symbolizer *z, const pd_dsofiles *f)
{
	/* a tarball's copies are named by descriptor: no key for the cache */
	return z->cfg.cache && want_dwarf(z) && f->elf_path && f->vdso_fd < 0 &&
	       !pd_symarchive_owns(f->elf_path) &&
	       !(f->debug_path && pd_symarchive_owns(f->debug_path));
}

bool pd_symbolizer_open_shared(pd_symbolizer *z, const pd_dsofiles *f)
{
	if (!shareable(z, f))
		return false;
	(void)pd_symcache_dso(z->cfg.cache, f->elf_path, f->debug_path, z->cfg.symfs,
			      shared_open, z, NULL, NULL, NULL);
	return true;
}

/* `st` served by the cache's entry for its files; false when the cache
 * has none for it (memory), true when done (st->failed says how). */
static bool load_shared(pd_symbolizer *z, pd_dsostate *st)
{
	pd_symcache_entry *ref;
	pd_shdso *e = pd_symcache_dso(z->cfg.cache, st->elf_path, st->debug_path, z->cfg.symfs,
				      shared_open, z, pd_prefetch_help, z, &ref);
	if (!e)
		return false;
	if (e->failed) {
		pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: %s; frames stay [unknown]", st->name,
				   e->err.message);
		pd_symcache_release(z->cfg.cache, ref);   /* e may go now */
		return true;
	}
	/* the cache's files, table and DWARF index, never closed or freed
	 * here: no Dwfl of this symbolizer's to close */
	st->o = e->o;
	st->o.dwfl = NULL;
	st->shared = e;
	st->shared_ref = ref;
	st->failed = false;
	return true;
}

static void load_state(pd_symbolizer *z, pd_dsostate *st, const pd_dso_id *d)
{
	st->loaded = true;
	st->failed = true;
	pd_dsofiles f;
	/* the other recorded paths of this build, in the order seen */
	const char *others[16];
	size_t nothers = 0;
	const char *name = d->name ? d->name : "";
	for (const pd_dsopath *p = st->paths; p && nothers < 16; p = p->next)
		if (strcmp(p->name, name) != 0)
			others[nothers++] = p->name;
	pd_symsources src = { z->cfg.symfs, z->buildid_dir,     z->archive,
			      z->debuginfod, z->sources,   z->cfg.nsources, false };
	if (pd_find_dso_files_among(&src, d, others, nothers, &z->arena, &f, &z->warnings) < 0)
		return;
	st->from = f.from;
	if (!f.elf_path && f.vdso_fd < 0)
		return;
	st->elf_path = f.elf_path;
	st->debug_path = f.debug_path;
	st->symfs = z->cfg.symfs;
	st->dfd = z->debuginfod;
	st->threads = z->cfg.threads;
	/* a memfd cannot be reopened: the vdso's Dwfl stays */
	st->pinned = f.vdso_fd >= 0;
	if (f.vdso_fd >= 0) {
		/* kept open so that /proc/self/fd/N names the image for the
		 * unwinders' CFI (without it a sample in the vdso stops there,
		 * or goes on by frame pointers that a leaf function lacks) */
		int copy = fcntl(f.vdso_fd, F_DUPFD_CLOEXEC, 0);
		if (copy >= 0) {
			st->have_vdso_copy = true;
			st->vdso_copy_fd = copy;
			snprintf(st->vdso_copy_path, sizeof st->vdso_copy_path, "/proc/self/fd/%d",
				 copy);
		}
	}
	if (shareable(z, &f) && load_shared(z, st))
		return;
	pd_symtab *ready = NULL;
	if (!take_prefetched(z, st, d, &ready) && !open_dwfl(z, st, f.vdso_fd))
		return;

	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(st->o.mod, &bias);
	if (!elf || !read_loads(&st->o.loads, &st->o.nloads, elf)) {
		pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: %s is not a loadable ELF file; frames stay [unknown]",
				   st->name, st->elf_path ? st->elf_path : "[vdso]");
		close_dwfl(z, st);
		pd_symtab_free(ready);
		return;
	}
	st->o.bias = bias;
	st->o.symtab = ready ? ready : pd_symtab_build(st->o.mod, &z->arena);
	if (!want_dwarf(z))
		close_dwfl(z, st);
	st->failed = st->o.symtab == NULL;
}

/* The module again after its Dwfl was closed; the file must still be the
 * one the symbol table came from. */
static bool reopen(pd_symbolizer *z, pd_dsostate *st)
{
	if (st->o.dwfl || st->shared)
		return true;
	if (st->pinned || !st->elf_path || st->reopen_failed)
		return false;
	uint8_t id[64];
	int n = pd_elf_file_build_id(st->elf_path, id, sizeof id);
	if (st->build_id_size &&
	    (n < st->build_id_size || memcmp(id, st->build_id, st->build_id_size) != 0)) {
		pd_symbolizer_warn(z, PD_WARN_MISMATCH, "%s: %s changed during the run; no more source lines from it",
				   st->name, st->elf_path);
		st->reopen_failed = true;
		return false;
	}
	GElf_Addr bias = 0;
	if (!open_dwfl(z, st, -1) || !dwfl_module_getelf(st->o.mod, &bias) || bias != st->o.bias) {
		close_dwfl(z, st);
		st->reopen_failed = true;
		return false;
	}
	return true;
}

/* File offset → ELF virtual address, through the PT_LOAD holding it. */
static bool off_to_vaddr(const pd_dsostate *st, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < st->o.nloads; i++) {
		const pd_load *l = &st->o.loads[i];
		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = l->vaddr + (off - l->offset);
			return true;
		}
	}
	return false;
}

static const pd_symres *resolve(pd_symbolizer *z, pd_dsostate *st, uint64_t off)
{
	uint64_t vaddr;
	if (st->failed || !off_to_vaddr(st, off, &vaddr))
		return pd_symres_unknown(z, off);
	uint64_t a = vaddr + st->o.bias;

	pd_esym sym;
	bool have = pd_symtab_find(st->o.symtab, a, &sym);
	pd_dwarf_info *di = NULL, dibuf;
	/* When DWARF is wanted anyway it also names code the symtab lacks;
	 * otherwise it is not opened at all (decompressing libc's debug
	 * sections costs ~40 ms and 13 MB).  PLT stubs have no DWARF. */
	if (want_dwarf(z) && !(have && sym.plt) && reopen(z, st)) {
		st->last_use = ++z->tick;
		if (!st->o.dwarf && !st->shared)
			st->o.dwarf = pd_dwarf_cache_new();  /* NULL: slower, still right */
		unsigned flags = (z->cfg.inline_frames ? PD_DWARF_INLINE : 0) |
				 (z->cfg.srcline ? PD_DWARF_FUNC_LINE : 0) |
				 (z->cfg.srcline || !z->cfg.no_inline_lines ? PD_DWARF_INLINE_LINES
									     : 0);
		/* a shared module's DWARF is read by other sessions' threads
		 * too; the strings found stay valid while the cache lives */
		if (st->shared)
			pthread_mutex_lock(&st->shared->lookup_mu);
		if (pd_dwarf_lookup_flags(st->o.mod, st->o.dwarf, a, flags, &dibuf))
			di = &dibuf;
		if (st->shared)
			pthread_mutex_unlock(&st->shared->lookup_mu);
	}

	const char *func_raw = have ? sym.name : di ? di->func_raw : NULL;
	if (!func_raw)
		return pd_symres_unknown(z, vaddr);
	uint64_t start = have ? sym.start : di->func_low && di->func_low <= a ? di->func_low : a;

	size_t ninl = di ? di->ninline : 0;
	pd_symframe *f;
	pd_symres *r = pd_symres_new(z, ninl + 1, &f);
	if (!r)
		return &no_result;
	r->addr = vaddr;
	r->sym_start = start - st->o.bias;
	/* DWARF strings are copied: the Dwfl may be closed later */
	for (size_t i = 0; i < ninl; i++) {
		f[i].raw = pd_strpool_intern(&z->strings, &z->arena, di->inl[i].raw);
		f[i].name = pd_symbolizer_display(z, f[i].raw);
		f[i].srcfile = pd_strpool_intern(&z->strings, &z->arena, di->inl[i].file);
		f[i].line = f[i].srcfile ? di->inl[i].line : 0;
		f[i].inlined = true;
	}
	f[ninl].raw = have ? func_raw : pd_strpool_intern(&z->strings, &z->arena, func_raw);
	f[ninl].name = pd_symbolizer_display(z, f[ninl].raw);
	if (di && di->unit)
		f[ninl].unit = pd_strpool_intern(&z->strings, &z->arena, di->unit);
	if (z->cfg.srcline && di && di->func_file) {
		f[ninl].srcfile = pd_strpool_intern(&z->strings, &z->arena, di->func_file);
		f[ninl].line = f[ninl].srcfile ? di->func_line : 0;
	}
	return r;
}

/*
 * Results are kept tagged: the low bit set when the result names nothing
 * (its function frame has no name), so that a caller asking only for
 * names (pd_symbolizer_lookup_named()) learns that from the table without
 * reading the result -- a cache miss per frame on a recording where half
 * the addresses sit in stripped binaries.  Results are 8-byte aligned.
 */
static uintptr_t tag_result(const pd_symres *r)
{
	bool named = r->nframes && r->frames[r->nframes - 1].name;
	return (uintptr_t)r | !named;
}

static const pd_symres *untag(uintptr_t v)
{
	return (const pd_symres *)(v & ~(uintptr_t)1);
}

/* The tagged result for (st, file_off): the front, the table, or named
 * now.  A state's results never change (a better file gives a new
 * state), so neither needs to forget. */
static uintptr_t lookup_tagged(pd_symbolizer *z, pd_dsostate *st, const pd_dso_id *dso,
			       uint64_t file_off)
{
	uintptr_t v = (uintptr_t)pd_symfront_get(&z->front, (uintptr_t)st, file_off);
	if (v)
		return v;
	v = (uintptr_t)pd_symhash_get(&z->results, (uintptr_t)st, file_off);
	if (!v) {
		if (!st->loaded)
			load_state(z, st, dso);
		const pd_symres *r = resolve(z, st, file_off);
		v = tag_result(r);
		if (r == &no_result)
			return v;   /* out of memory: asked again next time */
		pd_symhash_put(&z->results, (uintptr_t)st, file_off, (void *)v);
	}
	pd_symfront_put(&z->front, (uintptr_t)st, file_off, (void *)v);
	return v;
}

const pd_symres *pd_symbolizer_lookup(pd_symbolizer *z, const pd_dso_id *dso, uint64_t file_off)
{
	pd_dsostate *st = z && dso ? state_for(z, dso) : NULL;
	return st ? untag(lookup_tagged(z, st, dso, file_off)) : &no_result;
}

const pd_symres *pd_symbolizer_lookup_named(pd_symbolizer *z, const pd_dso_id *dso,
					    uint64_t file_off)
{
	pd_dsostate *st = z && dso ? state_for(z, dso) : NULL;
	uintptr_t v = st ? lookup_tagged(z, st, dso, file_off) : 1;
	return v & 1 ? NULL : untag(v);
}

uint64_t pd_symbolizer_generation(const pd_symbolizer *z)
{
	return z ? z->replaced : 0;
}

const char *pd_symbolizer_elf_path(pd_symbolizer *z, const pd_dso_id *dso)
{
	if (!z || !dso)
		return NULL;
	pd_dsostate *st = state_for(z, dso);
	if (!st)
		return NULL;
	if (!st->loaded)
		load_state(z, st, dso);
	/* a debug file standing in for a missing binary has no .eh_frame
	 * contents, but libdw can still use its .debug_frame */
	if (!st->elf_path && st->have_vdso_copy)
		return st->vdso_copy_path;
	return st->elf_path;
}

/* ---- symbol facts: the files a dso was named from ---- */

static bool has_path(const pd_dsostate *st, const char *dso)
{
	for (const pd_dsopath *p = st->paths; p; p = p->next)
		if (strcmp(p->name, dso) == 0)
			return true;
	return false;
}

/* A state that named frames of `dso` from an ELF file; `retired` ones
 * (loaded from a stripped copy before a path with symbols turned up) only
 * when no successor was loaded. */
static bool source_of(const pd_dsostate *st, const char *dso, bool retired)
{
	return st->loaded && st->retired == retired && st->elf_path && has_path(st, dso);
}

static int user_sources(pd_symbolizer *z, const char *dso, bool retired, pd_symsrc_fn fn,
			void *ctx, size_t *n)
{
	for (pd_dsostate *st = z->dso_list; st; st = st->next_all) {
		/* a tarball's copies are named by descriptors closed with the
		 * symbolizer, and the facts read their files later: unknown */
		if (!source_of(st, dso, retired) || pd_symarchive_owns(st->elf_path) ||
		    pd_symarchive_owns(st->debug_path))
			continue;
		pd_symsrc src = { .kind = PD_SYMSRC_ELF, .elf_path = st->elf_path,
				  .debug_path = st->debug_path };
		int rc = fn(ctx, &src);
		if (rc < 0)
			return rc;
		++*n;
	}
	return 0;
}

bool pd_symbolizer_user_origin(pd_symbolizer *z, const char *dso, pd_symorigin *out)
{
	memset(out, 0, sizeof *out);
	const pd_dsostate *found = NULL;
	for (const pd_dsostate *st = z->dso_list; st; st = st->next_all) {
		if (!st->loaded || st->build_id_size == 0 || !has_path(st, dso))
			continue;
		/* the state that named frames beats one that did not */
		if (!found || (found->failed && !st->failed) || (found->retired && !st->retired))
			found = st;
	}
	if (!found)
		return false;
	out->from = found->failed ? NULL : found->from;
	if (!out->from) {
		pd_symsources src = { z->cfg.symfs, z->buildid_dir,     z->archive,
				      z->debuginfod, z->sources,   z->cfg.nsources, false };
		char buf[1024];
		pd_symsources_searched(&src, true, buf, sizeof buf);
		out->searched = pd_strpool_intern(&z->strings, &z->arena, buf);
	}
	out->build_id = found->build_id;
	out->build_id_size = found->build_id_size;
	return true;
}

int pd_symbolizer_user_sources(pd_symbolizer *z, const char *dso, pd_symsrc_fn fn, void *ctx)
{
	size_t n = 0;
	int rc = user_sources(z, dso, false, fn, ctx, &n);
	if (rc == 0 && n == 0)
		rc = user_sources(z, dso, true, fn, ctx, &n);
	return rc;
}
