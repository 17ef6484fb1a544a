/*
 * pd_session: the reader, the address-space model (machine/), the
 * symbolizer (symbols/) and the unwinder (unwind/) put together.  The
 * session stage is the library's composition layer: the stages before it
 * know nothing of it, and of one another only their interface headers
 * (docs/architecture.md).  Side-band records update the model;
 * each sample's call chain is walked leaf first, every address placed in
 * its map and named, inline frames expanded.  Samples recorded with
 * `--call-graph dwarf` get their user part from the unwinder, joined to
 * the kernel part of the call chain.  The caches of named frames
 * (kcache.h, chain_memo.h) and the read-ahead's hold (holdq.h) are the
 * session's own.
 */
#include "perfdiff/session.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>

#include "machine/machine.h"
#include "reader/options.h"
#include "symbols/symbolizer.h"
#include "symbols/symfacts.h"
#include "unwind/lbr.h"
#include "unwind/unwind.h"
#include "chain_memo.h"
#include "holdq.h"
#include "kcache.h"
#include "session.h"

#define PD_DEFAULT_MAX_STACK 127
/* Unwound frames per sample, whatever max_stack asks for. */
#define PD_MAX_UNWIND_FRAMES 4096

#define PD_SESSION_UMAPS 4

/* A kernel address whose naming waits for the kernel's symbol table:
 * what add_address() knew of it then (naming depends on nothing else). */
typedef struct pending_kframe {
	pd_map kmap;         /* the kernel map of the time (only its range and pgoff count) */
	uint64_t look;       /* the address looked up */
	uint32_t leaves;     /* samples whose leaf it is, for the unresolved counts */
	pd_frame frame;      /* unnamed until pd_session_name_kernel(), then named */
} pending_kframe;

/* What marks a pending frame: its raw_symbol (symbol is NULL); its line
 * holds the index into pend. */
static const char pending_mark[] = "[kernel symbol pending]";

struct pd_session {
	pd_reader *reader;
	pd_machine *machine;
	pd_symbolizer *symz;
	pd_session_options opts;
	pd_threads own_threads;        /* opened alone: its budget, opts.threads */
	pd_threads *threads;           /* &own_threads, or the profile's */
	uint8_t kernel_build_id[20];
	size_t kernel_build_id_size;
	pd_resolved_sample out;
	pd_frame *frames;
	size_t cap_frames;
	pd_dso_tally unresolved;        /* unnamed leaves per dso */
	pd_dso_tally bad_chains;        /* chains cut at an invalid context value */
	bool chain_cut;                 /* the sample being named: its chain was */
	bool chain_dropped;             /* and dropped whole (pd_session_chain_dropped()) */
	pd_stack_unwinder *unwinder;   /* NULL: PD_UNWINDER_NONE */
	pd_unwind_frame *uframes;
	size_t max_uframes;
	uint16_t e_machine;            /* the recording's, for the register layout */
	pd_kcache kcache;              /* kernel addresses already named */
	pd_chain_memo chains;          /* call chains already named */
	uint64_t maps_gen;             /* the sample's process's (pd_machine_note_sample()) */
	/* User maps of one process found while its maps stayed the same:
	 * a thread's frames, and its next samples, sit in a few maps, and a
	 * search costs a hash probe and a binary search per frame. */
	uint32_t umap_pid;
	uint64_t umap_gen;
	const pd_map *umaps[PD_SESSION_UMAPS];
	unsigned numaps, umap_next;
	/* pd_session_defer_kernel(): kernel frames met while the kernel's
	 * symbol table was still loading, named by pd_session_name_kernel() */
	bool defer_kernel;
	bool kernel_ready;             /* naming a kernel address waits no more */
	pending_kframe *pend;
	uint32_t npend, cap_pend;
	uint32_t nnamed;               /* pend[0, nnamed) are named */
	/* PD_SESSION_READ_AHEAD: samples read while the table loads, held */
	bool read_ahead;
	size_t ahead_max;              /* bytes held at most, then wait */
	pd_holdq held;
	/* pd_session_hold(), for either keeper: the reader has ended
	 * (ahead_rc, ahead_err), to be told after what was held */
	bool ahead_ended;
	int ahead_rc;
	pd_error ahead_err;
};

/* How far each version of pd_session_options went; versions 1 and 2 held
 * the reader's options by value, a layout no longer read; version 3 ended
 * at threads, version 4 at warn_ctx, version 5 at nsymbols_from. */
static const size_t session_sizes[] = {
	0, 0, 0, PD_OPTIONS_END(pd_session_options, threads),
	PD_OPTIONS_END(pd_session_options, warn_ctx),
	PD_OPTIONS_END(pd_session_options, nsymbols_from),
};

int pd_session_options_init(pd_session_options *opts, unsigned version)
{
	const pd_session_options d = PD_SESSION_OPTIONS_INIT;
	return pd_options_init(opts, version, &d, session_sizes, PD_SESSION_OPTIONS_VERSION);
}

int pd_session_options_import(pd_session_options *dst, pd_reader_options *reader,
			      const pd_session_options *src, const char *file, pd_error *err)
{
	*dst = PD_SESSION_OPTIONS_INIT;
	int rc = src ? pd_options_import(dst, src, session_sizes, PD_SESSION_OPTIONS_VERSION,
					 "pd_session_options", file, err) : 0;
	if (rc == 0 && dst->max_stack == 0)
		dst->max_stack = PD_DEFAULT_MAX_STACK;
	if (rc == 0 && reader) {
		rc = pd_reader_options_import(reader, dst->reader, file, err);
		dst->reader = reader;
	}
	return rc;
}

/* The recording's architecture (HEADER ARCH is `uname -m`); the host's
 * when the file does not say. */
static uint16_t machine_of(const pd_header_info *h)
{
	const char *a = h ? h->arch : NULL;
	if (a) {
		if (strcmp(a, "x86_64") == 0 || strcmp(a, "amd64") == 0)
			return EM_X86_64;
		if (strcmp(a, "aarch64") == 0 || strcmp(a, "arm64") == 0)
			return EM_AARCH64;
		if (a[0] == 'i' && strcmp(a + 2, "86") == 0)
			return EM_386;
		return EM_NONE;
	}
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#elif defined(__i386__)
	return EM_386;
#else
	return EM_NONE;
#endif
}

static const pd_map *find_map(pd_session *s, uint32_t pid, uint8_t cpumode, uint64_t addr);

/* The unwinders see user maps only, and the ELF files behind them. */
static const pd_map *env_find_map(void *ctx, uint32_t pid, uint64_t addr)
{
	pd_session *s = ctx;
	const pd_map *m = find_map(s, pid, PD_CPUMODE_USER, addr);
	return m && !m->dso->kernel ? m : NULL;
}

static const char *env_elf_path(void *ctx, const pd_dso_id *dso)
{
	pd_session *s = ctx;
	return pd_symbolizer_elf_path(s->symz, dso);
}

static int open_unwinder(pd_session *s, const char *path, pd_error *err)
{
	if (s->opts.unwinder == PD_UNWINDER_NONE)
		return 0;
	s->e_machine = machine_of(pd_reader_header(s->reader));
	s->max_uframes = s->opts.max_stack < PD_MAX_UNWIND_FRAMES ? s->opts.max_stack
								   : PD_MAX_UNWIND_FRAMES;
	s->uframes = calloc(s->max_uframes, sizeof *s->uframes);
	if (!s->uframes)
		return pd_error_set(err, PD_ENOMEM, path, PD_NO_OFFSET, "out of memory");
	pd_unwind_env env = { .find_map = env_find_map, .elf_path = env_elf_path, .ctx = s };
	int rc = pd_unwinder_new(&s->unwinder, s->opts.unwinder, &env);
	if (rc == PD_EUNSUPPORTED)
		return pd_error_set(err, rc, path, PD_NO_OFFSET,
				    "this build has no libunwind support; use the libdw unwinder");
	if (rc < 0)
		return pd_error_set(err, rc, path, PD_NO_OFFSET, "cannot set up the unwinder");
	return 0;
}

static void find_kernel_build_id(pd_session *s)
{
	const pd_header_info *h = pd_reader_header(s->reader);
	for (size_t i = 0; i < h->nr_build_ids; i++) {
		const pd_build_id *b = &h->build_ids[i];
		if (b->path && strcmp(b->path, "[kernel.kallsyms]") == 0) {
			s->kernel_build_id_size = b->size <= 20 ? b->size : 20;
			memcpy(s->kernel_build_id, b->id, s->kernel_build_id_size);
			return;
		}
	}
}

int pd_session_open(pd_session **out, const char *path, const pd_session_options *opts,
		    pd_error *err)
{
	return pd_session_open_in(out, path, opts, NULL, err);
}

int pd_session_open_in(pd_session **out, const char *path, const pd_session_options *opts,
		       pd_threads *threads, pd_error *err)
{
	if (!out || !path)
		return pd_error_set(err, PD_EINVAL, path ? path : "<null>", PD_NO_OFFSET,
				    "no output pointer or path given");
	/* the reader options stay the caller's until the reader copies them */
	pd_session_options o;
	int rc = pd_session_options_import(&o, NULL, opts, path, err);
	if (rc < 0)
		return rc;
	pd_session *s = calloc(1, sizeof *s);
	if (!s)
		return pd_error_set(err, PD_ENOMEM, path, PD_NO_OFFSET, "out of memory");
	s->opts = o;
	pd_threads_init(&s->own_threads, o.threads);
	s->threads = threads ? threads : &s->own_threads;
	if (s->opts.flags & PD_SESSION_READ_AHEAD) {
		s->read_ahead = s->defer_kernel = true;
		s->ahead_max = PD_SESSION_AHEAD_MAX;
	}
	rc = pd_reader_open(&s->reader, path, s->opts.reader, err);
	s->opts.reader = NULL;   /* the reader has its copy; the caller's may go */
	if (rc < 0)
		goto fail;
	rc = pd_machine_new(&s->machine, pd_reader_header(s->reader));
	if (rc < 0) {
		pd_error_set(err, rc, path, PD_NO_OFFSET, "out of memory");
		goto fail;
	}
	pd_symbolizer_config cfg = {
		.symfs = s->opts.symfs,
		.buildid_dir = s->opts.buildid_dir,
		.kallsyms = s->opts.kallsyms,
		.jit_dir = s->opts.jit_dir,
		.inline_frames = !(s->opts.flags & PD_SESSION_NO_INLINE),
		.srcline = (s->opts.flags & PD_SESSION_SRCLINE) != 0,
		.no_inline_lines = (s->opts.flags & PD_SESSION_NO_INLINE_LINES) != 0,
		.demangle = !(s->opts.flags & PD_SESSION_NO_DEMANGLE),
		.demangle_no_params = (s->opts.flags & PD_SESSION_PERF_COMPAT) != 0,
		.kernel_padding_names = (s->opts.flags & PD_SESSION_PERF_COMPAT) != 0,
		.offline = (s->opts.flags & PD_SESSION_OFFLINE) != 0,
		.sources = s->opts.symbols_from,
		.nsources = s->opts.symbols_from ? s->opts.nsymbols_from : 0,
		.vmlinux = s->opts.vmlinux,
		.cache = s->opts.symcache,
		.threads = s->threads,
		/* the session names samples on its caller's thread */
		.warn = s->opts.warn,
		.warn_ctx = s->opts.warn_ctx,
		.warn_path = pd_reader_path(s->reader),
	};
	rc = pd_symbolizer_new(&s->symz, &cfg, err);
	if (rc < 0)
		goto fail;
	find_kernel_build_id(s);
	/* the sampled dsos open on a thread of their own meanwhile (prefetch.c) */
	const pd_header_info *hi = pd_reader_header(s->reader);
	pd_symbolizer_prefetch(s->symz, hi->build_ids, hi->nr_build_ids);
	if ((rc = open_unwinder(s, path, err)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	pd_session_free(s);
	return rc;
}

void pd_session_free(pd_session *s)
{
	if (!s)
		return;
	pd_unwinder_free(s->unwinder);
	free(s->uframes);
	pd_symbolizer_free(s->symz);
	pd_machine_free(s->machine);
	pd_reader_free(s->reader);
	free(s->frames);
	pd_dso_tally_free(&s->unresolved);
	pd_dso_tally_free(&s->bad_chains);
	pd_kcache_free(&s->kcache);
	pd_chain_memo_free(&s->chains);
	free(s->pend);
	pd_holdq_free(&s->held);
	free(s);
}

const pd_reader *pd_session_reader(const pd_session *s)
{
	return s->reader;
}

size_t pd_session_warning_count(const pd_session *s)
{
	return pd_symbolizer_warning_count(s->symz);
}

const char *pd_session_warning(const pd_session *s, size_t i)
{
	return pd_symbolizer_warning(s->symz, i);
}

pd_warning_kind pd_session_warning_kind(const pd_session *s, size_t i)
{
	return pd_symbolizer_warning_kind(s->symz, i);
}

size_t pd_session_unresolved(const pd_session *s, const pd_unresolved_count **out)
{
	*out = s->unresolved.v;
	return s->unresolved.n;
}

bool pd_session_chain_dropped(const pd_session *s)
{
	return s->chain_dropped;
}

size_t pd_session_invalid_chains(const pd_session *s, const pd_unresolved_count **out)
{
	*out = s->bad_chains.v;
	return s->bad_chains.n;
}

size_t pd_session_truncated(const pd_session *s, const pd_unresolved_count **out)
{
	return pd_unwinder_truncated(s->unwinder, out);
}

static bool is_pending(const pd_frame *f)
{
	return !f->symbol && f->raw_symbol == pending_mark;
}

/* The sample's leaf has no name: counted per dso (a pending one once it
 * is named). */
static void count_leaf(pd_session *s, const pd_frame *frames)
{
	if (s->out.nframes == 0 || frames[0].symbol)
		return;
	if (is_pending(&frames[0]))
		s->pend[frames[0].line].leaves++;
	else
		pd_dso_tally_add(&s->unresolved, frames[0].dso, 1);
}

static pd_frame *new_frame(pd_session *s)
{
	if (s->out.nframes == s->cap_frames) {
		size_t cap = s->cap_frames ? s->cap_frames * 2 : 64;
		pd_frame *f = realloc(s->frames, cap * sizeof *f);
		if (!f)
			return NULL;
		s->frames = f;
		s->cap_frames = cap;
	}
	pd_frame *f = &s->frames[s->out.nframes++];
	memset(f, 0, sizeof *f);
	return f;
}

/* Append a copy of `f`. */
static int push_frame(pd_session *s, const pd_frame *f)
{
	pd_frame *d = new_frame(s);
	if (!d)
		return PD_ENOMEM;
	*d = *f;
	return 0;
}

static bool is_kernel_mode(uint8_t cpumode)
{
	return cpumode == PD_CPUMODE_KERNEL || cpumode == PD_CPUMODE_GUEST_KERNEL ||
	       cpumode == PD_CPUMODE_HYPERVISOR;
}

static bool is_jit_dso(const char *name)
{
	/* asked for every user frame: the first bytes rule out most paths */
	if (name[0] == '[')
		return strncmp(name, "[anon", 5) == 0;
	if (name[0] != '/')
		return false;
	return (name[1] == '/' && strncmp(name, "//anon", 6) == 0) ||
	       (name[1] == 'm' && strncmp(name, "/memfd:", 7) == 0) ||
	       (name[1] == 't' && strncmp(name, "/tmp/perf-", 10) == 0);
}

/* pd_machine_find_map(), through the session's user-map cache. */
static const pd_map *find_map(pd_session *s, uint32_t pid, uint8_t cpumode, uint64_t addr)
{
	if ((cpumode != PD_CPUMODE_USER && cpumode != PD_CPUMODE_GUEST_USER) ||
	    addr >= pd_machine_kernel_start(s->machine))
		return pd_machine_find_map(s->machine, pid, cpumode, addr);
	uint64_t gen = pd_machine_generation(s->machine);
	if (pid != s->umap_pid || gen != s->umap_gen) {
		s->umap_pid = pid;
		s->umap_gen = gen;
		s->numaps = 0;
	}
	for (unsigned i = 0; i < s->numaps; i++) {
		const pd_map *m = s->umaps[i];
		if (addr >= m->start && addr < m->end)
			return m;
	}
	bool current;
	const pd_map *m = pd_machine_find_user_map(s->machine, pid, addr, &current);
	if (m && current) {
		if (s->numaps < PD_SESSION_UMAPS)
			s->umaps[s->numaps++] = m;
		else
			s->umaps[s->umap_next++ % PD_SESSION_UMAPS] = m;
	}
	return m;
}

bool pd_session_frame_map(pd_session *s, uint32_t pid, const pd_frame *f, uint64_t *start,
			  uint64_t *end, uint64_t *pgoff)
{
	/* most kernel frames lie in the kernel's own map: no look-up */
	const pd_map *km = pd_machine_kernel_map(s->machine);
	if (km && is_kernel_mode(f->cpumode) && f->addr >= km->start && f->addr < km->end) {
		*start = km->start;
		*end = km->end;
		*pgoff = km->pgoff;
		return true;
	}
	/* a return address was looked up one byte earlier: try both, and
	 * take the map the frame's dso address was computed from */
	for (uint64_t back = 0; back < 2 && back <= f->addr; back++) {
		const pd_map *m = find_map(s, pid, f->cpumode, f->addr - back);
		bool kernel = m && m->dso->kernel;
		if (!m || (!kernel && f->addr - m->start + m->pgoff != f->dso_addr))
			continue;
		*start = m->start;
		*end = m->end;
		*pgoff = m->pgoff;
		return true;
	}
	return false;
}

/* `f` as the named frame `sf` of `res` (or unnamed when `sf` is NULL),
 * for the address `addr` looked up at `look`. */
static void fill_frame(pd_frame *f, const pd_symres *res, const pd_symframe *sf, uint64_t addr,
		       uint64_t look, uint8_t mode, const char *dso, uint64_t dso_addr)
{
	memset(f, 0, sizeof *f);
	f->addr = addr;
	f->cpumode = mode;
	f->dso = dso;
	f->dso_addr = dso_addr;
	if (!sf)
		return;
	f->inlined = sf->inlined;
	f->symbol = sf->name;
	f->raw_symbol = sf->raw;
	/* the offset perf prints is that of the recorded address */
	f->symbol_offset = res->addr + (addr - look) - res->sym_start;
	f->srcfile = sf->srcfile;
	f->line = sf->line;
	f->unit = sf->unit;
}

/* The function frame of `res` (its last), or NULL when nothing was named. */
static const pd_symframe *named_frame(const pd_symres *res)
{
	return res && res->nframes && res->frames[res->nframes - 1].name
		       ? &res->frames[res->nframes - 1]
		       : NULL;
}

/* A kernel frame for pd_session_name_kernel() to name (see
 * pd_session_defer_kernel()); kept in the kcache like a named one. */
static int add_pending(pd_session *s, const pd_map *kmap, uint64_t addr, uint64_t look,
		       uint8_t mode, const char *dso, uint64_t ktag)
{
	if (s->npend == s->cap_pend) {
		uint32_t cap = s->cap_pend ? s->cap_pend * 2 : 256;
		pending_kframe *v = cap > s->cap_pend ? realloc(s->pend, (size_t)cap * sizeof *v) : NULL;
		if (!v)
			return PD_ENOMEM;
		s->pend = v;
		s->cap_pend = cap;
	}
	pd_frame *f = new_frame(s);
	if (!f)
		return PD_ENOMEM;
	fill_frame(f, NULL, NULL, addr, look, mode, dso, addr);
	f->raw_symbol = pending_mark;
	f->line = s->npend;
	s->pend[s->npend++] = (pending_kframe){ .kmap = *kmap, .look = look, .frame = *f };
	if (ktag)
		pd_kcache_put(&s->kcache, addr, ktag, f);
	return 0;
}

/*
 * Name `addr` and append its frames (inline ones first).  `caller` marks a
 * return address, looked up one byte earlier unless perf-compatible.
 */
static int add_address(pd_session *s, uint32_t pid, uint8_t cpumode, uint64_t addr,
		       bool caller)
{
	uint64_t look = addr;
	if (caller && !(s->opts.flags & PD_SESSION_PERF_COMPAT) && addr > 0)
		look = addr - 1;
	/* a kernel address is named once per kernel generation (kcache.h) */
	uint64_t ktag = 0;
	size_t first = s->out.nframes;
	if (look >= pd_machine_kernel_start(s->machine)) {
		ktag = pd_kcache_tag(pd_machine_kernel_generation(s->machine), caller, cpumode);
		const pd_frame *hit = pd_kcache_get(&s->kcache, addr, ktag);
		if (hit)
			return push_frame(s, hit);
	}
	const pd_symres *res = NULL;
	const char *dso = "[unknown]";
	const pd_map *map = find_map(s, pid, cpumode, look);
	const pd_map *kmap = pd_machine_kernel_map(s->machine);
	bool kernel = map ? map->dso->kernel : is_kernel_mode(cpumode);
	uint8_t mode = kernel ? PD_CPUMODE_KERNEL : PD_CPUMODE_USER;
	uint64_t dso_addr = map && !kernel ? addr - map->start + map->pgoff : addr;
	if (kernel) {
		const pd_ksym *ks = pd_machine_find_ksym(s->machine, look);
		if (ks) {
			pd_frame *f = new_frame(s);
			if (!f)
				return PD_ENOMEM;
			f->addr = addr;
			f->cpumode = mode;
			f->symbol = f->raw_symbol = ks->name;
			f->symbol_offset = addr - ks->start;
			f->dso = ks->ksym_type == 1 ? "[bpf_prog]" : "[kernel.kallsyms]";
			f->dso_addr = addr;
			/* BPF: function name and line from BPF_PROG_INFO / BPF_BTF */
			const pd_symres *b = pd_symbolizer_bpf(s->symz, s->reader, ks, look);
			if (b) {
				f->symbol = f->raw_symbol = b->frames[0].name;
				f->srcfile = b->frames[0].srcfile;
				f->line = b->frames[0].line;
			}
			return 0;
		}
		dso = map ? map->dso->name : "[kernel.kallsyms]";
		if (map == kmap || !map)
			dso = "[kernel.kallsyms]";
		if (kmap && (!map || map == kmap || map->dso->kernel)) {
			if (s->defer_kernel && !s->kernel_ready) {
				if (pd_symbolizer_kernel_loading(s->symz))
					return add_pending(s, kmap, addr, look, mode, dso, ktag);
				s->kernel_ready = true;
			}
			res = pd_symbolizer_kernel(s->symz, kmap, s->kernel_build_id,
						   s->kernel_build_id_size, look);
		}
	} else if (map) {
		dso = map->dso->name;
		if (is_jit_dso(dso))
			res = pd_symbolizer_jit(s->symz, pid, look);
		else
			res = pd_symbolizer_lookup_named(s->symz, map->dso,
							 look - map->start + map->pgoff);
	}
	if (!named_frame(res)) {
		pd_frame *f = new_frame(s);
		if (!f)
			return PD_ENOMEM;
		fill_frame(f, NULL, NULL, addr, look, mode, dso, dso_addr);
		if (ktag)
			pd_kcache_put(&s->kcache, addr, ktag, f);
		return 0;
	}
	bool inl = !(s->opts.flags & PD_SESSION_NO_INLINE);
	for (size_t i = inl ? 0 : res->nframes - 1; i < res->nframes; i++) {
		pd_frame *f = new_frame(s);
		if (!f)
			return PD_ENOMEM;
		fill_frame(f, res, &res->frames[i], addr, look, mode, dso, dso_addr);
	}
	if (ktag && s->out.nframes == first + 1)
		pd_kcache_put(&s->kcache, addr, ktag, &s->frames[first]);
	return 0;
}

static bool is_user_mode(uint8_t mode)
{
	return mode == PD_CPUMODE_USER || mode == PD_CPUMODE_GUEST_USER;
}

/*
 * A `--call-graph dwarf` sample: the call chain's kernel part (the kernel
 * records no user part then, and one that is there is replaced, as perf
 * does), then the unwound user stack.  Returns 1 when done, 0 when the
 * sample cannot be unwound (no user registers: a kernel thread), or
 * PD_ENOMEM.
 */
static int resolve_unwound(pd_session *s, const pd_record *rec)
{
	const pd_sample *smp = &rec->u.sample;
	uint8_t cpumode = rec->misc & PD_MISC_CPUMODE_MASK;
	uint32_t pid = smp->pid;
	size_t left = s->opts.max_stack;
	int rc;
	bool first = true;
	if ((smp->sample_type & PD_SAMPLE_CALLCHAIN) && !is_user_mode(cpumode)) {
		uint8_t mode = cpumode;
		for (uint64_t i = 0; i < smp->callchain_nr && left > 0; i++) {
			uint64_t a = smp->callchain[i];
			if (a >= PD_CONTEXT_MAX) {
				if (a == PD_CONTEXT_KERNEL)
					mode = PD_CPUMODE_KERNEL;
				else if (a == PD_CONTEXT_HV)
					mode = PD_CPUMODE_HYPERVISOR;
				else if (a == PD_CONTEXT_GUEST_KERNEL)
					mode = PD_CPUMODE_GUEST_KERNEL;
				else
					break; /* a user part: the unwinder's */
				continue;
			}
			if ((rc = add_address(s, pid, mode, a, !first)) < 0)
				return rc;
			first = false;
			left--;
		}
	}
	if (first && !is_user_mode(cpumode) && (smp->sample_type & PD_SAMPLE_IP) && left > 0) {
		if ((rc = add_address(s, pid, cpumode, smp->ip, false)) < 0)
			return rc;
		left--;
	}
	if (left == 0)
		return 1;
	int n = pd_unwinder_run(s->unwinder, smp, s->e_machine, s->uframes,
				left < s->max_uframes ? left : s->max_uframes);
	if (n < 0)
		return n;
	if (n == 0) {
		s->out.nframes = 0;
		return 0;
	}
	bool compat = (s->opts.flags & PD_SESSION_PERF_COMPAT) != 0;
	for (int i = 0; i < n; i++) {
		const pd_unwind_frame *f = &s->uframes[i];
		bool exact = i == 0 || f->activation || f->pc == 0;
		/* perf's DWARF unwinders keep pc − 1 for a return address, and
		 * show that; otherwise the return address is shown and
		 * looked up one byte earlier */
		if (compat && !exact)
			rc = add_address(s, pid, PD_CPUMODE_USER, f->pc - 1, false);
		else
			rc = add_address(s, pid, PD_CPUMODE_USER, f->pc, !exact);
		if (rc < 0)
			return rc;
	}
	return 1;
}

/*
 * A sample of an event recorded with `--call-graph lbr`: the chain perf
 * builds from the call-stack LBR (unwind/lbr.h).  Its user addresses are
 * branch targets and call sites, not return addresses: looked up as they
 * are.
 */
static int resolve_lbr(pd_session *s, const pd_record *rec)
{
	const pd_sample *smp = &rec->u.sample;
	pd_lbr_ip ips[256];
	size_t n = pd_lbr_callchain(smp, s->opts.max_stack, ips, 256);
	if (n > s->opts.max_stack)
		n = s->opts.max_stack;
	for (size_t i = 0; i < n; i++) {
		int rc = add_address(s, smp->pid, ips[i].cpumode, ips[i].addr, ips[i].return_addr);
		if (rc < 0)
			return rc;
	}
	count_leaf(s, s->frames);
	return 0;
}

static int name_chain(pd_session *s, const pd_sample *smp, uint8_t cpumode);

static int resolve(pd_session *s, const pd_record *rec)
{
	const pd_sample *smp = &rec->u.sample;
	s->out.nframes = 0;
	s->out.frames = NULL;   /* s->frames, unless a memo's */
	s->chain_dropped = false;
	const uint64_t dwarf = PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER;
	if (s->unwinder && (smp->sample_type & dwarf) == dwarf && smp->regs_user_abi != 0) {
		int rc = resolve_unwound(s, rec);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			count_leaf(s, s->frames);
			return 0;
		}
	}
	const pd_attr *attr = pd_reader_attr(s->reader, (size_t)rec->attr);
	if (attr && pd_lbr_applies(attr->branch_sample_type, smp, s->opts.max_stack))
		return resolve_lbr(s, rec);
	uint8_t cpumode = rec->misc & PD_MISC_CPUMODE_MASK;
	/* named before, while its maps and symbols stay (chain_memo.h) */
	bool memo = pd_chain_memo_on(&s->chains);
	pd_chain_key key;
	if (memo) {
		pd_chain_key_make(&key, smp->pid, cpumode, smp->sample_type, smp->ip,
				  smp->callchain, smp->callchain_nr, s->maps_gen,
				  pd_machine_kernel_generation(s->machine),
				  pd_symbolizer_generation(s->symz));
		size_t nknown;
		const pd_frame *known = pd_chain_memo_get(&s->chains, &key, &nknown);
		if (known) {
			/* handed out as they are: valid until the next sample's look-up */
			s->out.frames = known;
			s->out.nframes = nknown;
			count_leaf(s, known);
			return 0;
		}
	}
	int rc = name_chain(s, smp, cpumode);
	if (rc < 0)
		return rc;
	count_leaf(s, s->frames);
	if (s->chain_cut) {
		/* under the dso of the last frame kept: where the walk went wrong */
		size_t n = s->out.nframes;
		pd_dso_tally_add(&s->bad_chains, n ? s->frames[n - 1].dso : "[unknown]", 1);
		return 0;
	}
	if (!memo)
		return 0;
	for (size_t i = 0; i < s->out.nframes; i++)
		if (is_pending(&s->frames[i]))
			return 0;   /* named for good later: not kept */
	pd_chain_memo_put(&s->chains, &key, s->frames, s->out.nframes);
	return 0;
}

/* Whether `a`, at or above PD_CONTEXT_MAX, is a context marker.  Anything
 * else up there is garbage: a frame-pointer walk through code built
 * without frame pointers picks up -1 and the like. */
static bool is_marker(uint64_t a)
{
	switch (a) {
	case PD_CONTEXT_HV:
	case PD_CONTEXT_KERNEL:
	case PD_CONTEXT_USER:
	case PD_CONTEXT_USER_DEFERRED:
	case PD_CONTEXT_GUEST:
	case PD_CONTEXT_GUEST_KERNEL:
	case PD_CONTEXT_GUEST_USER:
		return true;
	default:
		return false;
	}
}

/* The entries of a chain before its first garbage value (all when it has
 * none). */
static uint64_t chain_before_garbage(const pd_sample *smp)
{
	for (uint64_t i = 0; i < smp->callchain_nr; i++) {
		uint64_t a = smp->callchain[i];
		if (a < PD_CONTEXT_MAX)
			continue;
		if (a == PD_CONTEXT_USER_DEFERRED)
			i++;  /* its cookie */
		else if (!is_marker(a))
			return i;
	}
	return smp->callchain_nr;
}

/*
 * How many entries of the chain to name.  perf drops the whole chain of a
 * sample at a garbage value ("invalid callchain context"), the sample
 * keeping its ip: so does perf-compatible naming, and with it the robot's
 * keys.  Otherwise the frames before it are kept.  Either way the sample
 * is counted (pd_session_invalid_chains()) and its chain not memoized.
 */
static uint64_t usable_chain(pd_session *s, const pd_sample *smp)
{
	uint64_t n = chain_before_garbage(smp);
	s->chain_cut = n < smp->callchain_nr;
	if (s->chain_cut && (s->opts.flags & PD_SESSION_PERF_COMPAT)) {
		s->chain_dropped = true;
		return 0;
	}
	return n;
}

/* The frames of a sample's ip and call chain (no unwinding, no LBR). */
static int name_chain(pd_session *s, const pd_sample *smp, uint8_t cpumode)
{
	uint32_t pid = smp->pid;
	unsigned left = s->opts.max_stack;
	bool first = true;
	int rc;
	uint64_t nchain = usable_chain(s, smp);
	if ((smp->sample_type & PD_SAMPLE_CALLCHAIN) && nchain > 0) {
		uint8_t mode = cpumode;
		bool have_ip = false;
		for (uint64_t i = 0; i < nchain && left > 0; i++) {
			uint64_t a = smp->callchain[i];
			if (a >= PD_CONTEXT_MAX) {
				switch (a) {
				case PD_CONTEXT_HV: mode = PD_CPUMODE_HYPERVISOR; break;
				case PD_CONTEXT_KERNEL: mode = PD_CPUMODE_KERNEL; break;
				case PD_CONTEXT_USER: mode = PD_CPUMODE_USER; break;
				case PD_CONTEXT_GUEST_KERNEL: mode = PD_CPUMODE_GUEST_KERNEL; break;
				case PD_CONTEXT_GUEST_USER: mode = PD_CPUMODE_GUEST_USER; break;
				case PD_CONTEXT_USER_DEFERRED:
					i++; /* the cookie of a deferred user chain */
					mode = PD_CPUMODE_USER;
					break;
				default:
					break;
				}
				continue;
			}
			if (first && a != smp->ip && (smp->sample_type & PD_SAMPLE_IP)) {
				/* a chain that starts elsewhere (user-only chain of a
				 * kernel sample): the sample's own ip leads */
				if ((rc = add_address(s, pid, cpumode, smp->ip, false)) < 0)
					return rc;
				left--;
				have_ip = true;
				first = false;
				if (left == 0)
					break;
			}
			if ((rc = add_address(s, pid, mode, a, !first)) < 0)
				return rc;
			first = false;
			left--;
		}
		(void)have_ip;
	}
	if (first && (smp->sample_type & PD_SAMPLE_IP)) {
		if ((rc = add_address(s, pid, cpumode, smp->ip, false)) < 0)
			return rc;
	}
	return 0;
}

/* Tell the unwinder which process's maps a side-band record changed. */
static void note_maps_change(pd_session *s, const pd_record *rec)
{
	switch (rec->type) {
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		if (rec->u.mmap.pid != UINT32_MAX)
			pd_unwinder_maps_changed(s->unwinder, rec->u.mmap.pid);
		break;
	case PD_RECORD_COMM:
		if (rec->u.comm.exec || (rec->misc & PD_MISC_COMM_EXEC))
			pd_unwinder_maps_changed(s->unwinder, rec->u.comm.pid);
		break;
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT:
		if (rec->u.task.pid != rec->u.task.ppid || rec->type == PD_RECORD_EXIT)
			pd_unwinder_maps_changed(s->unwinder, rec->u.task.pid);
		break;
	default:
		break;
	}
}

/* The next sample as read, kernel frames possibly pending. */
static int next_sample(pd_session *s, const pd_resolved_sample **out, pd_error *err)
{
	for (;;) {
		const pd_record *rec;
		int rc = pd_reader_next(s->reader, &rec, err);
		if (rc < 0)
			return rc;
		if (rec->type != PD_RECORD_SAMPLE) {
			if (rec->type < 64 && pd_machine_apply(s->machine, rec) < 0)
				return pd_error_set(err, PD_ENOMEM, pd_reader_path(s->reader),
						    rec->offset, "out of memory");
			if (s->unwinder)
				note_maps_change(s, rec);
			continue;
		}
		if (rec->attr < 0)
			continue; /* an event the file does not describe */
		const pd_sample *smp = &rec->u.sample;
		s->maps_gen = pd_machine_note_sample(s->machine, smp->pid,
						     rec->misc & PD_MISC_CPUMODE_MASK);
		if (resolve(s, rec) < 0)
			return pd_error_set(err, PD_ENOMEM, pd_reader_path(s->reader), rec->offset,
					    "out of memory");
		pd_resolved_sample *o = &s->out;
		o->record = rec;
		o->attr = rec->attr;
		o->pid = smp->pid;
		o->tid = smp->tid;
		o->cpu = smp->cpu;
		o->time = smp->time;
		o->period = smp->period;
		if (!o->frames)
			o->frames = s->frames;
		o->comm = pd_machine_comm(s->machine, smp->pid, smp->tid);
		if (!o->comm && !(o->comm = pd_machine_pid_name(s->machine, smp->pid)))
			return pd_error_set(err, PD_ENOMEM, pd_reader_path(s->reader),
					    rec->offset, "out of memory");
		*out = o;
		return 0;
	}
}

/* ---------------------------------------------------------- read-ahead */

/* Samples read between two looks at whether the table is there: a look
 * is cheap, a sample a few microseconds. */
#define AHEAD_POLL 64

/* The reader's end (or error) that the hold met, for after what it held. */
static int ended(const pd_session *s, pd_error *err)
{
	if (err)
		*err = s->ahead_err;
	return s->ahead_rc;
}

/* The one hold while the kernel's table loads (session.h): for the
 * read-ahead below and for the profile pipeline, each with its keeper. */
int pd_session_hold(pd_session *s, const pd_resolved_sample *first, pd_keeper *k,
		    pd_error *err)
{
	int rc = k->keep(k, first, err);
	for (unsigned n = 1; rc == 0 && k->held < k->max; n++) {
		if (n % AHEAD_POLL == 0 && pd_session_name_kernel(s, false) != 0)
			break;
		const pd_resolved_sample *rs;
		int got = next_sample(s, &rs, &s->ahead_err);
		if (got < 0) {
			s->ahead_ended = true;
			s->ahead_rc = got;
			break;
		}
		rc = k->keep(k, rs, err);
	}
	if (rc == 0 && pd_session_name_kernel(s, true) < 0)
		rc = pd_error_set(err, PD_ENOMEM, pd_reader_path(s->reader), PD_NO_OFFSET,
				  "out of memory naming kernel frames");
	return rc;
}

/* PD_SESSION_READ_AHEAD's keeper: deep copies in the session's holdq. */
static int keep_copy(pd_keeper *k, const pd_resolved_sample *rs, pd_error *err)
{
	pd_session *s = k->ctx;
	if (pd_holdq_push(&s->held, rs) < 0)
		return pd_error_set(err, PD_ENOMEM, pd_reader_path(s->reader),
				    rs->record->offset, "out of memory holding samples");
	k->held = s->held.bytes;
	return 0;
}

/* The oldest held sample, its pending frames replaced by their names. */
static int pop_held(pd_session *s, const pd_resolved_sample **out, pd_error *err)
{
	pd_frame *frames;
	pd_resolved_sample *rs = pd_holdq_pop(&s->held, &frames);
	if (!rs)
		return ended(s, err);
	for (size_t i = 0; i < rs->nframes; i++) {
		uint32_t id;
		if (pd_session_frame_pending(&frames[i], &id))
			frames[i] = *pd_session_named_kernel(s, id);
	}
	*out = rs;
	return 0;
}

static int next_ahead(pd_session *s, const pd_resolved_sample **out, pd_error *err)
{
	pd_holdq_release(&s->held);
	if (s->held.n == 0 && !s->ahead_ended) {
		int rc = next_sample(s, out, err);
		if (rc < 0 || !pd_session_kernel_deferred(s))
			return rc;
		/* the table is still loading: nothing pending was handed out
		 * yet, so this sample has a pending frame */
		pd_keeper k = { .keep = keep_copy, .ctx = s, .max = s->ahead_max };
		if ((rc = pd_session_hold(s, *out, &k, err)) < 0)
			return rc;
	}
	return pop_held(s, out, err);
}

int pd_session_next(pd_session *s, const pd_resolved_sample **out, pd_error *err)
{
	if (!s || !out)
		return pd_error_set(err, PD_EINVAL, "<session>", PD_NO_OFFSET,
				    "no session or output pointer given");
	if (s->read_ahead)
		return next_ahead(s, out, err);
	/* a caller's own hold (pd_session_hold()) may have met the end */
	return s->ahead_ended ? ended(s, err) : next_sample(s, out, err);
}

void pd_session_set_read_ahead_max(pd_session *s, size_t bytes)
{
	s->ahead_max = bytes;
}

size_t pd_session_held(const pd_session *s)
{
	return s->held.total;
}

/* ------------------------------------------------------------ deferral */

void pd_session_defer_kernel(pd_session *s)
{
	s->defer_kernel = true;
	s->read_ahead = false; /* the caller holds */
}

bool pd_session_kernel_deferred(const pd_session *s)
{
	return s->nnamed < s->npend;
}

int pd_session_name_kernel(pd_session *s, bool wait)
{
	if (s->nnamed == s->npend)
		return 1;
	if (!wait && pd_symbolizer_kernel_loading(s->symz))
		return 0;
	for (; s->nnamed < s->npend; s->nnamed++) {
		pending_kframe *p = &s->pend[s->nnamed];
		const pd_symres *res = pd_symbolizer_kernel(s->symz, &p->kmap, s->kernel_build_id,
							    s->kernel_build_id_size, p->look);
		pd_frame *f = &p->frame;
		/* a kernel address has one frame (no inline ones) */
		const pd_symframe *sf = named_frame(res);
		fill_frame(f, res, sf, f->addr, p->look, f->cpumode, f->dso, f->dso_addr);
		if (!sf && p->leaves)
			pd_dso_tally_add(&s->unresolved, f->dso, p->leaves);
	}
	/* the kcache holds pending frames: they must not come back */
	pd_kcache_free(&s->kcache);
	s->kernel_ready = true;
	return 1;
}

bool pd_session_frame_pending(const pd_frame *f, uint32_t *id)
{
	if (!is_pending(f))
		return false;
	*id = f->line;
	return true;
}

const pd_frame *pd_session_named_kernel(const pd_session *s, uint32_t id)
{
	return id < s->nnamed ? &s->pend[id].frame : NULL;
}

int pd_session_symbol_sources(pd_session *s, const char *dso, bool kernel, pd_symsrc_fn fn,
			      void *ctx)
{
	if (!s || !dso)
		return 0;
	return kernel ? pd_symbolizer_kernel_sources(s->symz, dso, fn, ctx)
		      : pd_symbolizer_user_sources(s->symz, dso, fn, ctx);
}

bool pd_session_symbol_origin(pd_session *s, const char *dso, bool kernel, pd_symorigin *out)
{
	if (!s || !dso)
		return false;
	return kernel ? pd_symbolizer_kernel_origin(s->symz, out)
		      : pd_symbolizer_user_origin(s->symz, dso, out);
}
