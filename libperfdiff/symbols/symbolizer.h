/*
 * The symbolizer: names for addresses in user dsos (by build-id, through
 * elfutils libdwfl, one sorted symbol table and one inline cache per dso),
 * kernel addresses (kallsyms), and JIT code (perf-PID.map).  Results are
 * cached by (dso, ELF address), so each distinct address costs one lookup
 * however many samples and processes share it.  One symbolizer may serve
 * several sessions (the two sides of a diff); it is not thread-safe.
 */
#ifndef PD_SYMBOLS_SYMBOLIZER_H
#define PD_SYMBOLS_SYMBOLIZER_H

#include "perfdiff/common.h"
#include "perfdiff/symcache.h"
#include "machine/machine.h"
#include "util/threads.h"

typedef struct pd_symbolizer_config {
	const char *symfs;        /* prefix for every path looked up, or NULL */
	const char *buildid_dir;  /* NULL: $PERF_BUILDID_DIR, else $HOME/.debug */
	const char *kallsyms;     /* explicit kallsyms file, or NULL */
	const char *jit_dir;      /* NULL: /tmp */
	bool inline_frames;       /* find inline chains */
	bool srcline;             /* file:line for every frame, not only inline ones */
	bool no_inline_lines;     /* inline frames without file:line (unless srcline) */
	bool demangle;
	/* perf's default: C++ names without their parameter lists */
	bool demangle_no_params;
	bool kernel_padding_names; /* name __pfx_/__cfi_ padding as perf 6.1 does */
	bool offline;             /* ask no debuginfod server, whatever DEBUGINFOD_URLS says */
	/* the user's symbol sources, searched first, in order: build-id
	 * directories, perf archive tarballs, http(s) URLs of debuginfod
	 * servers (not asked when offline) */
	const char *const *sources;
	size_t nsources;
	/* vmlinux ELF naming core kernel text (relocated to the recorded
	 * _text; used only when its build-id is the recording's), or NULL */
	const char *vmlinux;
	/* shared with other symbolizers (kallsyms, dsos with debug files),
	 * or NULL; must outlive the symbolizer */
	pd_symcache *cache;
	/* the thread budget of the session (or profile) served: the prefetch
	 * thread and the inflate workers take their slots from it; NULL: no
	 * thread; must outlive the symbolizer */
	pd_threads *threads;
	/* the caller's warning sink (perfdiff/common.h), handed each warning
	 * as it is kept with `warn_path` (which must outlive the symbolizer),
	 * or NULL.  The symbolizer warns only on the thread that drives it:
	 * its prefetch thread keeps none. */
	pd_warn_fn warn;
	void *warn_ctx;
	const char *warn_path;
} pd_symbolizer_config;

typedef struct pd_symbolizer pd_symbolizer;

int pd_symbolizer_new(pd_symbolizer **out, const pd_symbolizer_config *cfg, pd_error *err);
void pd_symbolizer_free(pd_symbolizer *z);

/* One frame of a lookup result. */
typedef struct pd_symframe {
	const char *name;     /* demangled when configured; NULL: not found */
	const char *raw;      /* as in the symbol table */
	const char *srcfile;  /* NULL when unknown or not asked for */
	unsigned line;
	bool inlined;
	const char *unit;     /* the function's compilation unit (not inline frames'):
	                       * the source file it was compiled from, when DWARF was read */
} pd_symframe;

/*
 * A lookup result: `nframes` frames, innermost first: the inline frames
 * (inlined = true), then the function that contains the address.  When
 * nothing was found, nframes is 1 and frames[0].name is NULL.
 * `sym_start` is the containing symbol's start in the address space of the
 * query (ELF virtual address for user dsos, kernel address for the kernel),
 * `addr` the query translated to that space.
 */
typedef struct pd_symres {
	uint64_t addr;
	uint64_t sym_start;
	size_t nframes;
	const pd_symframe *frames;
} pd_symres;

/*
 * Name the byte at file offset `file_off` of user dso `dso` (file_off =
 * address − map.start + map.pgoff).  The result stays valid until
 * pd_symbolizer_free().  Never fails: what cannot be found gives an
 * unnamed frame (and, once per dso, a warning).
 */
const pd_symres *pd_symbolizer_lookup(pd_symbolizer *z, const pd_dso_id *dso,
				      uint64_t file_off);

/*
 * pd_symbolizer_lookup(), or NULL when its result names nothing (its
 * function frame has no name), without reading that result: for callers
 * that only want names, on recordings where many addresses are unnamed.
 */
const pd_symres *pd_symbolizer_lookup_named(pd_symbolizer *z, const pd_dso_id *dso,
					    uint64_t file_off);

/*
 * A number that changes whenever pd_symbolizer_lookup() may answer a
 * question it has answered before differently: a build first loaded from
 * a copy without symbols (a stripped file) is loaded again from a path of
 * it that turned up later.  What a cache of named user frames checks,
 * besides the maps it looked the frames up in.
 */
uint64_t pd_symbolizer_generation(const pd_symbolizer *z);

/*
 * True while the kernel's symbol table is still being read ahead on the
 * prefetch thread (pd_symbolizer_prefetch()) and no kernel address has
 * been named yet: pd_symbolizer_kernel() would wait for it now.  A caller
 * with other work may name its kernel addresses later instead.
 */
bool pd_symbolizer_kernel_loading(pd_symbolizer *z);

/*
 * Name a kernel address.  `kernel_map` is the kernel text map (its pgoff is
 * the runtime address of _text, used to relocate kallsyms); `build_id` the
 * recording's [kernel.kallsyms] build-id (may be empty).  With a configured
 * vmlinux whose build-id matches, core kernel text is named from it;
 * modules always come from kallsyms' [module] entries.
 */
const pd_symres *pd_symbolizer_kernel(pd_symbolizer *z, const pd_map *kernel_map,
				      const uint8_t *build_id, size_t build_id_size,
				      uint64_t addr);

/* Name an address in JIT code of process `pid` from perf-PID.map. */
const pd_symres *pd_symbolizer_jit(pd_symbolizer *z, uint32_t pid, uint64_t addr);

/*
 * Complete the KSYMBOL name of a BPF program frame (`ks`, ksym_type 1,
 * holding `addr`) from the recording's BPF_PROG_INFO / BPF_BTF features
 * (those `reader` parsed): the sub-program's BTF function name when the
 * KSYMBOL name is a bare "bpf_prog_<tag>", and with cfg.srcline the source
 * line of `addr` from the program's jited line info.  One frame; NULL when
 * there is nothing to add (no such program recorded, or nothing asked).
 * Valid until pd_symbolizer_free(); `reader` must outlive the symbolizer's
 * use of it.
 */
const pd_symres *pd_symbolizer_bpf(pd_symbolizer *z, const pd_reader *reader,
				   const pd_ksym *ks, uint64_t addr);

/*
 * The ELF file holding `dso`'s code (found as for lookups: build-id cache,
 * symfs + recorded path with a matching build-id, ...), or NULL when there
 * is none.  For the vdso taken from this process, a /proc/self/fd path to
 * a copy of its image that stays open.  For the unwinders, which open it
 * themselves.  Valid until pd_symbolizer_free().
 */
const char *pd_symbolizer_elf_path(pd_symbolizer *z, const pd_dso_id *dso);

/* Warnings so far ("libfoo.so: build-id mismatch ...", one per dso). */
/*
 * The recording's BUILD_ID entries (the dsos with samples): they are
 * opened on a thread of their own from now on, those with separate debug
 * files first (their DWARF is decompressed when inline frames or source
 * lines are wanted), and their symbol tables built, so that the first
 * lookup in each need not wait for that.  Only a hint: results and
 * warnings are the same without it.  `ids` need not outlive the call.
 */
void pd_symbolizer_prefetch(pd_symbolizer *z, const pd_build_id *ids, size_t n);

size_t pd_symbolizer_warning_count(const pd_symbolizer *z);
const char *pd_symbolizer_warning(const pd_symbolizer *z, size_t i);
pd_warning_kind pd_symbolizer_warning_kind(const pd_symbolizer *z, size_t i);

#endif
