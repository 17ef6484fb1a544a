/*
 * Interfaces between the parts of the user-space symbolizer: a small hash
 * map, file location by build-id, the sorted symbol table (with PLT
 * entries), DWARF inline chains and demangling.  Internal to symbols/.
 */
#ifndef PD_SYMBOLS_SYMB_INTERNAL_H
#define PD_SYMBOLS_SYMB_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolizer.h"
#include "util/util.h"

/* ---- hash map: two 64-bit words → non-NULL pointer ---- */

typedef struct pd_symhash_slot {
	uint64_t k1, k2;
	void *v;
} pd_symhash_slot;

typedef struct pd_symhash {
	pd_symhash_slot *slots;
	size_t cap, n;
} pd_symhash;

void *pd_symhash_get(const pd_symhash *h, uint64_t k1, uint64_t k2);
/* Insert or replace; `v` must not be NULL.  0 or PD_ENOMEM. */
int pd_symhash_put(pd_symhash *h, uint64_t k1, uint64_t k2, void *v);
void pd_symhash_free(pd_symhash *h);

uint64_t pd_symhash_bytes(const void *p, size_t n, uint64_t seed);

/*
 * A direct-mapped front for a pd_symhash: the keys looked up lately, in
 * PD_SYMFRONT_SLOTS slots (a quarter of a megabyte) that stay in the
 * CPU's caches while the hash behind them spreads over megabytes.  On a
 * busy machine's recording a session asks about 150,000 distinct user
 * addresses, each ten times on average; a probe of the big table then
 * misses the caches, one here mostly does not.  A collision replaces.
 */
#define PD_SYMFRONT_BITS 13
#define PD_SYMFRONT_SLOTS ((size_t)1 << PD_SYMFRONT_BITS)

typedef struct pd_symfront {
	pd_symhash_slot *slots;    /* allocated at the first put; NULL: none */
	bool failed;               /* no memory for them: look behind */
} pd_symfront;

/* The value kept for (k1, k2), or NULL. */
void *pd_symfront_get(const pd_symfront *f, uint64_t k1, uint64_t k2);
/* Keep `v` (not NULL) for (k1, k2); only a cache: nothing on no memory. */
void pd_symfront_put(pd_symfront *f, uint64_t k1, uint64_t k2, void *v);
void pd_symfront_free(pd_symfront *f);

/*
 * Interned strings: one arena copy per distinct content.  Results hold
 * only such copies, never pointers into a Dwfl's ELF or DWARF data, so a
 * Dwfl can be closed (file descriptors and mappings released) while its
 * results stay valid.
 */
typedef struct pd_strpool_slot {
	const char *s;
	uint64_t hash;
} pd_strpool_slot;

typedef struct pd_strpool {
	pd_strpool_slot *slots;
	size_t cap, n;
} pd_strpool;

/* The pooled copy of `s` (NULL for NULL or on allocation failure). */
const char *pd_strpool_intern(pd_strpool *p, pd_arena *a, const char *s);
void pd_strpool_free(pd_strpool *p);

/* ---- build-ids and files ---- */

#define PD_BUILD_ID_MAX 20

/* Lowercase hex of `n` bytes into `out` (room for 2n + 1). */
void pd_hex(char *out, const uint8_t *p, size_t n);

/*
 * The GNU build-id note of an ELF file, at most `out_size` bytes of it
 * copied to `out`.  Returns the number copied, 0 when the file has none,
 * -1 when it cannot be opened or is not ELF.
 */
int pd_elf_file_build_id(const char *path, uint8_t *out, size_t out_size);

/*
 * Whether `path` has a defined function symbol in .symtab or .dynsym: a
 * stripped executable keeps only undefined imports in .dynsym.  Reads the
 * symbol tables: for choosing between files, not for every lookup.
 */
bool pd_elf_has_func_symbols(const char *path);

/* True when `path` has a .gnu_debugaltlink naming `name` (a dwz common
 * file), i.e. a debuginfo request for `name` asks for that, not for the
 * module's own debug file. */
bool pd_elf_altlink_is(const char *path, const char *name);

/*
 * Scan ELF notes (`len` bytes, host byte order, 4-byte aligned records as
 * in /sys/kernel/notes or a PT_NOTE segment) for NT_GNU_BUILD_ID.  Length
 * copied into `out` or 0 when absent/malformed.
 */
size_t pd_notes_build_id(const uint8_t *notes, size_t len, uint8_t *out, size_t out_size);

/* The running kernel's build-id from /sys/kernel/notes; 0 when unknown. */
size_t pd_running_kernel_build_id(uint8_t *out, size_t out_size);

/* ---- a perf archive tarball as a build-id cache (tarball.c) ---- */

/* The cap on one member copied out of a tarball (a kernel's debug file
 * is ~1 GB). */
#define PD_TAR_MEMBER_CAP ((uint64_t)4 << 30)

typedef struct pd_symarchive pd_symarchive;

/* True when `path` is a regular file: a --buildid-dir that names a file is
 * taken for a tarball. */
bool pd_symarchive_is_file(const char *path);
/* A handle on the tarball at `path`, read at the first lookup; members
 * larger than `member_cap` (0: PD_TAR_MEMBER_CAP) are refused.  0 or
 * PD_ENOMEM. */
int pd_symarchive_new(pd_symarchive **out, const char *path, uint64_t member_cap);
/* Closes the copies: paths handed out stop opening. */
void pd_symarchive_free(pd_symarchive *a);
const char *pd_symarchive_file(const pd_symarchive *a);
/*
 * The member `kind` ("elf", "debug", "kallsyms", "vdso") of build-id `id`
 * as a path that opens its copy ("/proc/self/fd/N", valid until
 * pd_symarchive_free()), or NULL.  Reads the tarball at the first call.
 * What went wrong (a corrupt tarball, once; a loop of links) goes to
 * `warn` (NULL: kept for a later caller with a sink).  The caller checks
 * the member's build-id.  Safe from several threads.
 */
const char *pd_symarchive_member(pd_symarchive *a, const uint8_t *id, size_t idlen,
				 const char *kind, pd_warnings *warn);
/* True for a path handed out by pd_symarchive_member() (or another
 * /proc/self/fd name): one that names another file once closed, so never
 * a key of the pd_symcache. */
bool pd_symarchive_owns(const char *path);

/* Where a dso's code, symbols and DWARF are, and how much we trust them. */
typedef struct pd_dsofiles {
	char *elf_path;    /* file to report to libdwfl (code, symtab); NULL: none */
	char *debug_path;  /* separate DWARF found by build-id, or NULL */
	int vdso_fd;       /* >= 0: memfd holding the running kernel's vdso image */
	bool unverified;   /* no build-id to check the file against */
	bool mismatch;     /* the recorded path holds another build */
	/* where the files came from, for the footer: a symbol source as the
	 * user gave it, "the build-id cache DIR", "/usr/lib/debug", "the
	 * recorded path", "debuginfod", "the running kernel"; NULL: none */
	const char *from;
} pd_dsofiles;

/* ---- executables from debuginfod servers (debuginfod.c) ---- */

typedef struct pd_debuginfod pd_debuginfod;

/* A client of the servers in $DEBUGINFOD_URLS; libdebuginfod is loaded at
 * the first request.  0 or PD_ENOMEM. */
int pd_debuginfod_new(pd_debuginfod **out);
void pd_debuginfod_free(pd_debuginfod *d);
/*
 * The executable of build-id `dso` from the servers (their files land in
 * libdebuginfod's cache, $DEBUGINFOD_CACHE_PATH), as a path in `arena`, or
 * NULL.  One of another build is refused; a server that fails (timeout,
 * refused connection) is asked nothing more.  What the user should know
 * goes to `warn`.  One thread at a time.
 */
char *pd_debuginfod_executable(pd_debuginfod *d, const pd_dso_id *dso, pd_arena *arena,
			       pd_warnings *warn);
/* The separate debug file of build-id `id` (`n` bytes) from the servers:
 * an open descriptor and its path in *path (malloc'd), or -1.  Safe from
 * several threads (requests are made one at a time); problems are told to
 * the next pd_debuginfod_executable() caller. */
int pd_debuginfod_debuginfo(pd_debuginfod *d, const uint8_t *id, size_t n, char **path);

/* ---- a debuginfod server named by the user (symurl.c) ---- */

typedef struct pd_symurl pd_symurl;

/* True for an http:// or https:// URL: a symbol source that is a server. */
bool pd_symurl_is_url(const char *s);
/* A client of the server at `url`; libcurl is loaded at the first
 * request.  0 or PD_ENOMEM. */
int pd_symurl_new(pd_symurl **out, const char *url);
/* Closes the files fetched: paths handed out stop opening. */
void pd_symurl_free(pd_symurl *u);
const char *pd_symurl_url(const pd_symurl *u);
/*
 * The server's file `kind` ("executable", "debuginfo") of build-id `id`
 * as a path that opens its copy ("/proc/self/fd/N", valid until
 * pd_symurl_free()), or NULL.  The caller checks its build-id.  A server
 * that failed (not a 404) is asked nothing more; why goes once to `warn`
 * (NULL: kept for a later caller).  Safe from several threads.
 */
const char *pd_symurl_file(pd_symurl *u, const uint8_t *id, size_t n, const char *kind,
			   pd_warnings *warn);

/* One of the user's symbol sources (--symbols-from), in their order. */
typedef struct pd_usersrc {
	const char *where;           /* as the user gave it */
	pd_symarchive *archive;      /* a perf archive tarball, or NULL */
	pd_symurl *url;              /* a debuginfod server, or NULL */
	/* neither: a build-id directory */
} pd_usersrc;

/* Where pd_find_dso_files() looks. */
typedef struct pd_symsources {
	const char *symfs;           /* prefixed to system paths, or NULL */
	const char *buildid_dir;     /* perf's build-id cache, or NULL */
	pd_symarchive *archive;      /* buildid_dir is a perf archive tarball, or NULL */
	pd_debuginfod *debuginfod;   /* asked last, or NULL */
	const pd_usersrc *list;       /* the user's sources, asked first, in order */
	size_t nlist;
	bool no_servers;             /* skip the list's URLs (a guess ahead) */
} pd_symsources;

/* What was searched, as the not-found warning says it ("SRC, ..., the
 * build-id cache, /usr/lib/debug, the path, debuginfod"), into `buf`. */
void pd_symsources_searched(const pd_symsources *src, bool path, char *buf, size_t cap);

/*
 * Locate the files of `dso` (lookup order: perf's build-id cache under
 * `buildid_dir` or the tarball, /usr/lib/debug/.build-id, the recorded
 * path if its build-id matches, then debuginfod; symfs prefixes the system
 * paths).  Strings go to `arena`.  What should be told to the user, one
 * sentence at most, goes to `warn` (NULL: dropped) with its kind:
 * PD_WARN_UNVERIFIED for a file used without a build-id check,
 * PD_WARN_MISMATCH for another build at the path, PD_WARN_NOT_FOUND for
 * none found.  Returns 0, or PD_ENOMEM.
 */
int pd_find_dso_files(const pd_symsources *src, const pd_dso_id *dso, pd_arena *arena,
		      pd_dsofiles *out, pd_warnings *warn);
/*
 * The same, with `others`: further recorded paths of the same build-id (a
 * program and its stripped copy).  Without a debug file, the first of the
 * build-id cache's file, the dso's path and `others` that has function
 * symbols is used, else the first that holds the build at all.
 */
int pd_find_dso_files_among(const pd_symsources *src, const pd_dso_id *dso,
			    const char *const *others, size_t nothers, pd_arena *arena,
			    pd_dsofiles *out, pd_warnings *warn);

/* ---- sorted symbol table of one Dwfl module ---- */

typedef struct pd_esym {
	uint64_t start, end;  /* module addresses (ELF vaddr + bias) */
	const char *name;     /* raw, pooled (outlives the Dwfl) */
	bool plt;             /* synthesized "<name>@plt" */
} pd_esym;

typedef struct pd_symtab pd_symtab;

/* Build the table of `mod` (symbols, labels, x86-64 PLT entries).  Every
 * name is copied into `arena`: the table outlives the Dwfl.  NULL on
 * allocation failure; a module without symbols gives an empty table. */
pd_symtab *pd_symtab_build(Dwfl_Module *mod, pd_arena *arena);
void pd_symtab_free(pd_symtab *t);
/* The memory `t` holds, its names (in the arena) left out. */
size_t pd_symtab_bytes(const pd_symtab *t);

/* The symbol holding module address `addr` (a label's end is where the
 * next symbol or its section begins); false when none. */
bool pd_symtab_find(const pd_symtab *t, uint64_t addr, pd_esym *out);
size_t pd_symtab_count(const pd_symtab *t);

/* perf's choice among aliases at one address: > 0 when `a` is better. */
int pd_symbol_prefer(const char *a, int bind_a, const char *b, int bind_b);

/*
 * x86-64 PLT entries of `elf` (.plt, .plt.sec, .plt.got): each entry's
 * `jmp *slot(%rip)` is decoded and the GOT slot matched to the relocation
 * that fills it, as binutils does for its <name@plt> labels.  IRELATIVE
 * slots are named by `ifunc_name(ctx, resolver ELF vaddr)` when it knows
 * the address, else "*ABS*+0x<addend>".  `add` gets ELF vaddrs and names
 * ending in "@plt" (allocated in `arena`) and returns 0 or PD_ENOMEM.
 * Returns the number of entries, or PD_ENOMEM.
 */
typedef struct pd_plt_sink {
	void *ctx;
	int (*add)(void *ctx, uint64_t vaddr, uint64_t size, const char *name);
	const char *(*ifunc_name)(void *ctx, uint64_t vaddr);
} pd_plt_sink;

int pd_plt_entries(Elf *elf, pd_arena *arena, const pd_plt_sink *sink);

/* ---- DWARF: inline chains and source lines ---- */

#define PD_MAX_INLINE 64

typedef struct pd_inline_frame {
	const char *raw;   /* linkage name or DWARF name */
	const char *file;
	unsigned line;
} pd_inline_frame;

typedef struct pd_dwarf_info {
	size_t ninline;                          /* innermost first */
	pd_inline_frame inl[PD_MAX_INLINE];
	const char *func_file;                   /* line in the containing function */
	unsigned func_line;
	const char *func_raw;                    /* DWARF name of the containing subprogram */
	const char *unit;                        /* its compilation unit's name (DW_AT_name) */
	uint64_t func_low;                       /* its entry (module address), 0 unknown */
} pd_dwarf_info;

/* Per-module memory of the DWARF side: a subprogram index per CU. */
typedef struct pd_dwarf_cache pd_dwarf_cache;
pd_dwarf_cache *pd_dwarf_cache_new(void);
void pd_dwarf_cache_free(pd_dwarf_cache *c);

/*
 * Source line and (if `want_inline`) inline chain of module address
 * `addr`.  `cache` (of this module) makes repeated lookups cheap; NULL
 * takes the dwarf_getscopes path for every address.  Returns false when
 * the module has no usable DWARF there; fields left unknown are NULL/0.
 */
bool pd_dwarf_lookup(Dwfl_Module *mod, pd_dwarf_cache *cache, uint64_t addr, bool want_inline,
		     pd_dwarf_info *out);

/* The name a DIE's function is known by: its linkage name, else its
 * DW_AT_name, through abstract origins and specifications; NULL. */
const char *pd_dwarf_die_name(Dwarf_Die *die);

/* What pd_dwarf_lookup_flags() fills in: the inline chain, the file:line
 * of its frames, and the line of the address in its containing function
 * (func_file/func_line). */
#define PD_DWARF_INLINE 1u
#define PD_DWARF_FUNC_LINE 2u
#define PD_DWARF_INLINE_LINES 4u
/* pd_dwarf_lookup() with the parts asked for.  A line costs its CU's
 * whole line table: without PD_DWARF_FUNC_LINE an address with no inline
 * frame reads none, without either line flag no address does.  Lines not
 * asked for are NULL/0 (and the result is false when the module has no CU
 * at the address). */
bool pd_dwarf_lookup_flags(Dwfl_Module *mod, pd_dwarf_cache *cache, uint64_t addr,
			   unsigned flags, pd_dwarf_info *out);

/* ---- demangling ---- */

/*
 * Demangled form of `raw` (C++ _Z..., Rust _R... and legacy _ZN...h<hash>E;
 * a trailing "@..." version or "@plt" suffix is kept), allocated in
 * `arena`; NULL when `raw` is not mangled or cannot be demangled.
 */
char *pd_demangle(const char *raw, pd_arena *arena);
/* The same; `params` false leaves C++ parameter lists out, as perf does
 * by default ("ns::Box<long>::spin" for "ns::Box<long>::spin(int)"). */
char *pd_demangle_opts(const char *raw, bool params, pd_arena *arena);

/* ---- vmlinux (elf_vmlinux.c) ---- */

struct pd_kallsyms;

/*
 * Text symbols of a vmlinux ELF as a kallsyms table (same alias choice and
 * symbol ends as /proc/kallsyms), its _text (else _stext) address, and its
 * build-id (in/out: room in `build_id`, then bytes copied; 0 when none).
 * Returns 0, PD_EIO, PD_EUNSUPPORTED (not ELF, no symbols), PD_ECORRUPT or
 * PD_ENOMEM, the reason in `err` without the path (the caller names it).
 */
int pd_vmlinux_load(const char *path, struct pd_kallsyms **out, bool *have_text,
		    uint64_t *text, uint8_t *build_id, size_t *build_id_size, pd_error *err);

/* ---- the symbolizer object (symbolizer.c; kernel and JIT parts in
 * symb_kernel.c) ---- */

typedef struct pd_dsostate pd_dsostate;
typedef struct pd_kstate pd_kstate;

/* The state last found for an identity pointer (symbolizer.c state_for). */
#define PD_DSO_MEMO 64
typedef struct pd_dso_memo {
	const pd_dso_id *id;
	pd_dsostate *st;
} pd_dso_memo;

struct pd_symbolizer {
	pd_symbolizer_config cfg;  /* strings copied into `arena` */
	char *buildid_dir;         /* resolved: cfg, $PERF_BUILDID_DIR or ~/.debug */
	pd_symarchive *archive;    /* buildid_dir is a perf archive tarball, or NULL */
	pd_debuginfod *debuginfod; /* $DEBUGINFOD_URLS set and not offline, or NULL */
	pd_usersrc *sources;       /* cfg.sources opened (cfg.sources points at their
	                              `where`s), searched first */
	char *debuginfo_path;      /* for dwfl_standard_find_debuginfo, NULL: default */
	Dwfl_Callbacks callbacks;  /* outlives every Dwfl: they keep a pointer to it */
	pd_arena arena;            /* results, names, paths */

	pd_symhash dsos;           /* identity hash → pd_dsostate (chained) */
	uint64_t replaced;         /* states replaced so far (pd_symbolizer_generation()) */
	pd_dso_memo dso_memo[PD_DSO_MEMO];
	pd_dsostate *dso_list;
	pd_symhash results;        /* (pd_dsostate *, file offset) → pd_symres, tagged
	                              (symbolizer.c: tag_result()) */
	pd_symfront front;         /* the results asked for lately */
	pd_symhash demangled;      /* (raw name pointer, 0) → demangled name */
	pd_strpool strings;        /* every string a result points to */
	size_t open_dwfls;         /* Dwfls holding files open now */
	uint64_t tick;             /* use counter for closing the least recent */

	pd_kstate *kernels;        /* one per kernel build-id */
	pd_symhash kresults;       /* (kernel view, address) → pd_symres */
	pd_symhash jits;           /* (pid, 0) → JIT map state */
	pd_symhash jresults;       /* (JIT map state, address) → pd_symres */
	struct pd_bpf_lines *bpf;  /* BPF programs of bpf_reader (bpf_symbolize.c) */
	const void *bpf_reader, *bpf_progs, *bpf_btfs;
	pd_symhash bresults;       /* (BPF program, address) → pd_symres */
	bool bpf_unsupported_said; /* built without libbpf: warned of it */

	pd_warnings warnings;      /* no cap: one or two per file at most */
	struct pd_prefetch *prefetch;  /* NULL: none running (prefetch.c) */
};

/* ---- DWARF opened ahead (prefetch.c) ---- */

/* The Dwfl (and symbol table, NULL if none was built) the prefetch thread
 * made of `d`, when it found the same `elf_path` and `debug_path`; waits
 * if the thread is at it.  False when there is none: not prefetched,
 * other files, or not started yet (then the thread leaves it alone). */
bool pd_prefetch_take(pd_symbolizer *z, const pd_dso_id *d, const char *elf_path,
		      const char *debug_path, Dwfl **dwfl, Dwfl_Module **mod,
		      pd_symtab **symtab);
/* Stop the thread and free what was not taken. */
void pd_prefetch_free(pd_symbolizer *z);
/* Open one dso the thread has not started (`symbolizer` a pd_symbolizer),
 * for a session that would otherwise wait; false when none is left. */
bool pd_prefetch_help(void *symbolizer);
/* The kallsyms table the prefetch thread loaded from `path` (same flags
 * as the symbolizer's); waits if the thread is at it.  False when there is
 * none: not prefetched, another path, failed, or not started yet (then the
 * thread leaves it alone and the caller loads it). */
bool pd_prefetch_take_kallsyms(pd_symbolizer *z, const char *path,
			       struct pd_kallsyms **out);
/* Whether the thread has a kallsyms table still to read or being read. */
bool pd_prefetch_kallsyms_loading(pd_symbolizer *z);

/* Which kallsyms belongs to kernel build-id `bid` (`n` bytes, 0: none
 * recorded): the configured file, perf's cached copy (written into
 * `cached`), or /proc/kallsyms when the running kernel is the recorded one;
 * NULL when none is.  No warnings: callable from the prefetch thread. */
typedef enum {
	PD_KALLSYMS_VERIFIED,    /* configured, or matches the build-id */
	PD_KALLSYMS_UNVERIFIED,  /* no build-id recorded: /proc/kallsyms */
	PD_KALLSYMS_NONE,        /* none belongs to the recorded kernel */
} pd_kallsyms_choice;
const char *pd_kallsyms_choose(const pd_symbolizer *z, const uint8_t *bid, size_t n,
			       char *cached, size_t cap, pd_kallsyms_choice *why);
/* The same, and in *from where the table is, for the footer: the
 * configured file, a symbol source or build-id cache as the user named it,
 * "/proc/kallsyms" (a static string or one in z's arena). */
const char *pd_kallsyms_choose_from(pd_symbolizer *z, const uint8_t *bid, size_t n,
				    char *cached, size_t cap, pd_kallsyms_choice *why,
				    const char **from);

/* ---- the cache sessions share (symcache.c) ---- */

/* A file offset range of a PT_LOAD and the ELF address it is loaded at. */
typedef struct pd_load {
	uint64_t offset, filesz, vaddr;
} pd_load;

/*
 * A dso's files opened once for every session of a pd_symcache: its Dwfl
 * (kept open while the cache lives), symbol table and DWARF index.  Read
 * only once the cache hands it out, except DWARF lookups, which take
 * `lookup_mu` (libdw is not thread-safe).  `failed`: nothing usable.
 */
/* A dso's opened files: what a symbolizer state and a cache entry hold. */
typedef struct pd_dsoopen {
	Dwfl *dwfl;              /* NULL: closed (or the cache's) */
	Dwfl_Module *mod;
	uint64_t bias;
	pd_load *loads;          /* the PT_LOADs, to turn file offsets into addresses */
	size_t nloads;
	pd_symtab *symtab;
	pd_dwarf_cache *dwarf;   /* NULL until DWARF is first asked for */
} pd_dsoopen;

typedef struct pd_shdso {
	const char *elf_path, *debug_path, *symfs;   /* the key */
	size_t bytes;                 /* memory held, about (shared_open) */
	bool failed;
	pd_error err;                 /* with failed: the reason, for a warning */
	pd_dsoopen o;
	pthread_mutex_t lookup_mu;
	/* what the Dwfl points to: its callbacks, find_debuginfo's view, names */
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	pd_dsostate *shadow;
	pd_arena arena;
} pd_shdso;

/* Opens `e` (symbolizer.c: shared_open); called once, without the lock. */
typedef void (*pd_shdso_open_fn)(void *ctx, pd_shdso *e);

/* What a caller does instead of idling while another thread loads the
 * entry it waits for: one piece of other work, true when there was one
 * (pd_prefetch_help).  Called without the cache's lock. */
typedef bool (*pd_symcache_help_fn)(void *ctx);

/* An entry of the cache a session uses: kept (never dropped for the
 * budget) until pd_symcache_release(). */
typedef struct pd_symcache_entry pd_symcache_entry;

/* The cache's entry for these files as they are on disk now: opened by
 * `open` for the first caller, waited for by the others (running `help`
 * meanwhile, if given).  NULL when memory is short.  With `hold`, the
 * entry is the caller's until it releases *hold; without, NULL: the entry
 * may be dropped at once and was only worth its loading (prefetch). */
pd_shdso *pd_symcache_dso(pd_symcache *c, const char *elf_path, const char *debug_path,
			  const char *symfs, pd_shdso_open_fn open, void *ctx,
			  pd_symcache_help_fn help, void *help_ctx, pd_symcache_entry **hold);
/* Give back an entry held (NULL: nothing); unused entries past the budget
 * are dropped then. */
void pd_symcache_release(pd_symcache *c, pd_symcache_entry *e);
/* For the prefetch thread: open the cache's entry for the files `f` when
 * `z` shares them (a debug file, DWARF wanted, a cache); false when not. */
bool pd_symbolizer_open_shared(pd_symbolizer *z, const pd_dsofiles *f);
/* Release what an opened entry holds (symbolizer.c). */
void pd_shdso_close(pd_shdso *e);

/* The kallsyms table of `path` (as it is now) read with `flags`, loaded
 * by the first caller; NULL when it cannot be read, `err` (may be NULL)
 * filled then, always with a message.  The cache's: with `hold`, kept
 * until *hold is released, as for pd_symcache_dso(). */
const struct pd_kallsyms *pd_symcache_kallsyms(pd_symcache *c, const char *path,
					       unsigned flags, pd_error *err,
					       pd_symcache_help_fn help, void *help_ctx,
					       pd_symcache_entry **hold);

/* For the prefetch thread (symbolizer.c): a state find_debuginfo can read
 * (name, debug_path, symfs, the thread budget for inflating, the servers
 * to ask last or NULL; free() it),
 * and a Dwfl of `elf_path` (with its DWARF loaded if `dwarf`), made
 * without touching `z` but for its callbacks (*dwfl NULL on failure). */
pd_dsostate *pd_dsostate_shadow(const char *name, const char *debug_path, const char *symfs,
				pd_threads *threads, struct pd_debuginfod *dfd);
void pd_dwfl_open_detached(pd_symbolizer *z, pd_dsostate *shadow, const char *elf_path,
			   bool dwarf, Dwfl **dwfl, Dwfl_Module **mod);

/* A warning of `kind` (common.h): what it means for the frames. */
void pd_symbolizer_warn(pd_symbolizer *z, pd_warning_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Display name for `raw`: demangled when configured and possible. */
const char *pd_symbolizer_display(pd_symbolizer *z, const char *raw);
/* A result with `nframes` zeroed frames, or NULL on allocation failure. */
pd_symres *pd_symres_new(pd_symbolizer *z, size_t nframes, pd_symframe **frames);
/* The "nothing found" result for `addr` (never NULL). */
const pd_symres *pd_symres_unknown(pd_symbolizer *z, uint64_t addr);
void pd_symbolizer_free_kernel(pd_symbolizer *z);
void pd_symbolizer_free_bpf(pd_symbolizer *z);

/* ---- separate debug files with compressed sections (debug_inflate.c) ---- */

/* A memfd (close-on-exec, sealed read-only, offset 0) holding the ELF file
 * `path` with every zlib SHF_COMPRESSED section, and legacy .zdebug_*
 * section, stored plain (flag cleared, .zdebug renamed .debug, size and
 * alignment those of the contents), inflated with libdeflate on up to two
 * threads (the second from `threads`, the caller's budget; NULL: none);
 * all else, program headers and notes included, stays as it is.
 * For libdw, whose own zlib inflation is several times slower.  A
 * negative PD_E* code with the reason in `err` (may be NULL) when the file
 * has no such section (PD_EUNSUPPORTED: open it as usual then) or on any
 * error, hostile input included.  Touches no symbolizer state: callable
 * from any thread. */
int pd_debug_inflate_open(const char *path, pd_threads *threads, pd_error *err);

#endif
