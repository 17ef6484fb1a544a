/*
 * The libdw back end: elfutils' CFI unwinder (.eh_frame, then .debug_frame
 * of the main file) driven through dwfl_attach_state().
 *
 * One Dwfl per process, attached once, kept across samples: creating one per
 * sample costs ~70 µs, reusing it a few µs.  Modules are reported lazily, at
 * the load bias of the map that holds a pc, the first time a pc lands in
 * it.  Every Dwfl's module of a file holds a reference on the one libelf
 * handle pd_unwind_files keeps for it: with exec-heavy workloads (a new
 * Dwfl every few samples) mapping, parsing and unmapping each file per
 * process cost more than the unwinding itself, and its CFI pages were
 * faulted in again each time.  The thread callbacks read the current
 * sample (registers and stack copy), which run() swaps in before each
 * unwind.  The unwinding Dwfl never looks for separate debuginfo: libdw
 * falls back to .debug_frame from it when .eh_frame has no entry (at
 * _start, say), and inflating a distro debug file per process made
 * unwinding 13× slower for identical frames.  That fallback still runs
 * dwarf_begin_elf() once per module and process, but on the shared handle
 * its section headers and data are parsed already.
 *
 * When the process's maps change, the Dwfl is kept if every module it holds
 * is still mapped at the same place (data mmaps and new libraries are the
 * common case), else dropped and rebuilt on the next sample.
 *
 * On x86_64 a sample is first unwound without the Dwfl, through CFI rows
 * decoded once per address and file (cfi_rows.c), by the same steps
 * dwfl_getthread_frames() and frame_cb() take: 2 µs a sample instead of 6
 * on a profile whose pcs recur, the rows being kept across processes.
 * When a frame needs what only libdw's unwinder has (an expression rule,
 * a signal frame, .debug_frame, no CFI at all), the sample starts over
 * with it.  PD_UNWINDER_LIBDW_UNCACHED always takes libdw's way; the tests
 * check that both give the same frames.
 */
#include "unwind.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "util/u64map.h"

/* Dwfls kept at once: each holds its modules' files open. */
#define PD_UNWIND_MAX_DWFLS 32

/* A map whose module was reported (or found to have none). */
typedef struct rep {
	uint64_t start, end, pgoff;
	const pd_dso_id *dso;
	uint64_t bias;
	bool module;       /* reported to the Dwfl */
	/* where libdwfl placed the module, and its file's CFI rows (fast
	 * path); rows is NULL when the fast path cannot use this map */
	uint64_t mod_start, mod_end;
	pd_cfi_file *rows;
} rep;

typedef struct proc {
	uint32_t pid;
	pd_unwind_libdw *u;
	Dwfl *dwfl;
	bool attached;
	bool dirty;        /* maps changed since the modules were checked */
	rep *reps;
	size_t nreps, cap;
	uint64_t last_use;
	struct proc *next;
} proc;

struct pd_unwind_libdw {
	pd_unwind_env env;
	pd_unwind_files *files;
	Dwfl_Callbacks callbacks;          /* must outlive every Dwfl */
	Dwfl_Thread_Callbacks thread_callbacks;
	pd_u64map procs;                   /* pid → proc */
	pd_cfi_rows *rows;                 /* NULL: always libdw's unwinder */
	proc *all;
	size_t live;                       /* procs holding a Dwfl */
	uint64_t tick;
	/* the sample being unwound */
	const pd_unwind_regs *cur;
	pd_unwind_frame *frames;
	size_t n, max;
	bool hit_max;
	bool ended;        /* reached a zero return address */
	bool read_failed;  /* a word outside the stack copy and the files */
	bool oom;
};

/* ---- Dwfl callbacks ---- */

/* The module's file (its userdata, set by report()) as a new reference on
 * the shared handle: libdwfl's elf_end() when the Dwfl goes only drops it.
 * No fd is handed over: libdwfl closes the one it is given when its
 * elf_end() returns 0, and the fd stays with pd_unwind_files. */
static int shared_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      char **file_name, Elf **elfp)
{
	(void)mod, (void)modname, (void)base;
	const pd_unwind_file *file = *userdata;
	*elfp = file && file->elf ? elf_begin(file->fd, ELF_C_READ_MMAP_PRIVATE, file->elf) : NULL;
	/* as dwfl_report_elf() would name it (libdwfl frees the name) */
	if (*elfp && !*file_name)
		*file_name = strdup(file->path);
	return -1;
}

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl, (void)arg, (void)thread_argp;
	return 0;   /* threads are asked for by id only */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	proc *p = arg;
	uint64_t v;
	if (!p->u->cur || pd_unwind_read_word(p->u->files, p->pid, p->u->cur, addr, &v) < 0) {
		p->u->read_failed = true;
		return false;
	}
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	proc *p = arg;
	const pd_unwind_regs *r = p->u->cur;
	if (!r)
		return false;
	unsigned nregs = r->e_machine == EM_X86_64 ? 17 : r->e_machine == EM_386 ? 9 : 32;
	Dwarf_Word regs[PD_UNWIND_MAX_REGS];
	/* contiguous runs of sampled registers; the others stay undefined */
	for (unsigned i = 0; i < nregs;) {
		if (!(r->valid & (1ull << i))) {
			i++;
			continue;
		}
		unsigned j = i;
		while (j < nregs && (r->valid & (1ull << j))) {
			regs[j] = r->regs[j];
			j++;
		}
		if (!dwfl_thread_state_registers(thread, (int)i, j - i, regs + i))
			return false;
		i = j;
	}
	dwfl_thread_state_register_pc(thread, r->pc);
	return true;
}

/* ---- modules ---- */

static const rep *find_rep(const proc *p, uint64_t pc)
{
	for (size_t i = 0; i < p->nreps; i++)
		if (pc >= p->reps[i].start && pc < p->reps[i].end)
			return &p->reps[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

/*
 * Where dwfl_report_elf(.., bias, add_p_vaddr = true) puts `file`, so that
 * modules are placed as before: from the first PT_LOAD's p_vaddr rounded
 * down to its p_align (libdwfl's main.vaddr, then main_bias = start − that
 * = bias) to the end of the last PT_LOAD that ends above 0.  False where
 * libdwfl would refuse the file (no such end).
 */
static bool module_range(const pd_unwind_file *file, uint64_t bias, uint64_t *start,
			 uint64_t *end)
{
	if (file->nloads == 0)
		return false;
	const pd_unwind_load *first = &file->loads[0];
	*start = bias + (first->vaddr & (0 - first->align));
	*end = 0;
	for (size_t i = file->nloads; i-- > 0;) {
		const pd_unwind_load *l = &file->loads[i];
		if (l->vaddr + l->memsz > 0) {
			*end = bias + (l->vaddr + l->memsz);
			break;
		}
	}
	return *end != 0;
}

/* Report the module of the map holding `pc` unless done.  PD_ENOMEM or 0. */
static int report(proc *p, uint64_t pc)
{
	if (find_rep(p, pc))
		return 0;
	pd_unwind_libdw *u = p->u;
	const pd_map *map = u->env.find_map(u->env.ctx, p->pid, pc);
	if (!map || map->dso->kernel)
		return 0;
	if (p->nreps == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		rep *r = realloc(p->reps, cap * sizeof *r);
		if (!r)
			return PD_ENOMEM;
		p->reps = r;
		p->cap = cap;
	}
	rep *r = &p->reps[p->nreps];
	*r = (rep){ .start = map->start, .end = map->end, .pgoff = map->pgoff, .dso = map->dso };
	const pd_unwind_file *file = pd_unwind_file_get(u->files, map->dso);
	if (file && pd_unwind_file_bias(file, map, &r->bias)) {
		/* another map of a dso already reported at this bias: same module */
		for (size_t i = 0; i < p->nreps; i++)
			if (p->reps[i].dso == map->dso && p->reps[i].module &&
			    p->reps[i].bias == r->bias)
				r->module = true;
		uint64_t start, end;
		if (!r->module && module_range(file, r->bias, &start, &end)) {
			dwfl_report_begin_add(p->dwfl);
			Dwfl_Module *mod = dwfl_report_module(p->dwfl, base_name(map->dso->name),
							      start, end);
			void **file_of = NULL;
			if (mod && dwfl_module_info(mod, &file_of, NULL, NULL, NULL, NULL, NULL,
						    NULL) && file_of) {
				/* an older module of that name and place is some
				 * other file's (dwfl_report_elf refuses it too) */
				if (!*file_of)
					*file_of = (void *)(uintptr_t)file;
				else if (*file_of != (const void *)file)
					mod = NULL;
			} else {
				mod = NULL;
			}
			r->module = dwfl_report_end(p->dwfl, NULL, NULL) == 0 && mod;
		}
		/* the fast path reads the module's CFI where libdwfl would:
		 * in the range it gave the module */
		if (r->module && u->rows && module_range(file, r->bias, &r->mod_start, &r->mod_end)) {
			r->rows = pd_cfi_rows_file(u->rows, file);
			if (!r->rows)
				return PD_ENOMEM;
		}
	}
	p->nreps++;
	return 0;
}

static void drop_dwfl(proc *p)
{
	if (p->dwfl) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		p->u->live--;
	}
	p->attached = false;
	p->nreps = 0;
	p->dirty = false;
}

/* Every reported module still mapped where it was? */
static bool still_valid(const proc *p)
{
	const pd_unwind_env *env = &p->u->env;
	for (size_t i = 0; i < p->nreps; i++) {
		const rep *r = &p->reps[i];
		const pd_map *m = env->find_map(env->ctx, p->pid, r->start);
		if (!m || m->dso != r->dso || m->start - m->pgoff != r->start - r->pgoff ||
		    m->end < r->end)
			return false;
	}
	return true;
}

static proc *get_proc(pd_unwind_libdw *u, uint32_t pid)
{
	proc *p = pd_u64map_get(&u->procs, pid);
	if (!p) {
		p = calloc(1, sizeof *p);
		if (!p)
			return NULL;
		if (pd_u64map_put(&u->procs, pid, p) < 0) {
			free(p);
			return NULL;
		}
		p->pid = pid;
		p->u = u;
		p->next = u->all;
		u->all = p;
	}
	p->last_use = ++u->tick;
	if (p->dirty) {
		if (still_valid(p))
			p->dirty = false;
		else
			drop_dwfl(p);
	}
	if (!p->dwfl) {
		while (u->live >= PD_UNWIND_MAX_DWFLS) {
			proc *lru = NULL;
			for (proc *q = u->all; q; q = q->next)
				if (q->dwfl && q != p && (!lru || q->last_use < lru->last_use))
					lru = q;
			if (!lru)
				break;
			drop_dwfl(lru);
		}
		p->dwfl = dwfl_begin(&u->callbacks);
		if (!p->dwfl)
			return NULL;
		u->live++;
	}
	return p;
}

/* ---- unwinding ---- */

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	proc *p = arg;
	pd_unwind_libdw *u = p->u;
	Dwarf_Addr pc;
	bool activation = false;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* a zero return address marks the outermost frame (glibc's clone
	 * child, some hand-written entry points) */
	if (pc == 0 && u->n > 0) {
		u->ended = true;
		return DWARF_CB_ABORT;
	}
	/* The module must be there before asking about activation: that
	 * question may unwind one step further, through this pc's CFI.  A
	 * return address can sit just past its map (a call to a noreturn
	 * function ending the code), so the byte before counts too. */
	if (report(p, pc) < 0 || (u->n > 0 && pc > 0 && report(p, pc - 1) < 0)) {
		u->oom = true;
		return DWARF_CB_ABORT;
	}
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	u->frames[u->n].pc = pc;
	u->frames[u->n].activation = u->n == 0 || activation;
	u->n++;
	if (u->n >= u->max) {
		u->hit_max = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int pd_unwind_libdw_new(pd_unwind_libdw **out, const pd_unwind_env *env, bool cached)
{
	pd_unwind_libdw *u = calloc(1, sizeof *u);
	if (!u)
		return PD_ENOMEM;
	u->env = *env;
	if (pd_unwind_files_new(&u->files, env) < 0 ||
	    (cached && pd_cfi_rows_new(&u->rows) < 0)) {
		pd_unwind_files_free(u->files);
		free(u);
		return PD_ENOMEM;
	}
	u->callbacks.find_elf = shared_elf;
	u->callbacks.find_debuginfo = no_debuginfo;
	u->callbacks.section_address = dwfl_offline_section_address;
	u->thread_callbacks.next_thread = next_thread;
	u->thread_callbacks.get_thread = get_thread;
	u->thread_callbacks.memory_read = memory_read;
	u->thread_callbacks.set_initial_registers = set_initial_registers;
	pd_u64map_init(&u->procs);
	*out = u;
	return 0;
}

void pd_unwind_libdw_free(pd_unwind_libdw *u)
{
	if (!u)
		return;
	for (proc *p = u->all, *next; p; p = next) {
		next = p->next;
		drop_dwfl(p);
		free(p->reps);
		free(p);
	}
	pd_u64map_free(&u->procs);
	pd_cfi_rows_free(u->rows);
	pd_unwind_files_free(u->files);
	free(u);
}

void pd_unwind_libdw_maps_changed(pd_unwind_libdw *u, uint32_t pid)
{
	proc *p = u ? pd_u64map_get(&u->procs, pid) : NULL;
	if (p && p->dwfl)
		p->dirty = true;
}

static const pd_dso_id *dso_of(pd_unwind_libdw *u, uint32_t pid, const pd_unwind_frame *f)
{
	uint64_t look = pd_unwind_frame_look(f);
	const pd_map *m = u->env.find_map(u->env.ctx, pid, look);
	return m ? m->dso : NULL;
}

/* The fast path's reads: as memory_read() does for libdw. */
static bool cached_read(void *arg, uint64_t addr, uint64_t *value)
{
	proc *p = arg;
	if (pd_unwind_read_word(p->u->files, p->pid, p->u->cur, addr, value) < 0) {
		p->u->read_failed = true;
		return false;
	}
	return true;
}

/*
 * The fast path: the same steps as dwfl_getthread_frames() with frame_cb(),
 * but through rows decoded once per address (cfi_rows.c) and without a
 * Dwfl.  Returns 1 with the frames in u->frames and the outcome in u
 * (hit_max, read_failed), 0 when some frame needs what only libdw's
 * unwinder does (the caller starts over with it), or PD_ENOMEM.
 */
static int run_cached(proc *p, const pd_unwind_regs *r)
{
	pd_unwind_libdw *u = p->u;
	if (!u->rows || r->e_machine != EM_X86_64)
		return 0;
	uint64_t regs[2][PD_CFI_NREGS];
	uint64_t valid = r->valid & ((1ull << PD_CFI_NREGS) - 1);
	memcpy(regs[0], r->regs, sizeof regs[0]);
	int cur = 0;
	uint64_t pc = r->pc;
	for (;;) {
		bool initial = u->n == 0;
		/* what frame_cb() does with the frame */
		if (report(p, pc) < 0 || (!initial && report(p, pc - 1) < 0))
			return PD_ENOMEM;
		u->frames[u->n].pc = pc;
		u->frames[u->n].activation = initial;
		if (++u->n >= u->max) {
			u->hit_max = true;
			return 1;
		}
		/* what __libdwfl_frame_unwind() does: the row at the pc of an
		 * activation, else at the return address − 1 */
		uint64_t look = initial ? pc : pc - 1;
		const rep *at = find_rep(p, look);
		if (!at || !at->rows || look < at->mod_start || look >= at->mod_end)
			return 0;
		const pd_cfi_row *row = pd_cfi_file_row(u->rows, at->rows, look - at->bias);
		if (!row)
			return PD_ENOMEM;
		if (!row->usable)
			return 0;
		if (!pd_cfi_row_step(row, regs[cur], valid, regs[!cur], &valid, cached_read, p))
			return 1;   /* the outermost frame */
		cur = !cur;
		pc = regs[cur][16];
	}
}

int pd_unwind_libdw_run(pd_unwind_libdw *u, uint32_t pid, const pd_unwind_regs *r,
			pd_unwind_frame *frames, size_t max, size_t *n,
			const pd_dso_id **stopped_in)
{
	*n = 0;
	*stopped_in = NULL;
	if (max == 0)
		return PD_UNWIND_COMPLETE;
	proc *p = get_proc(u, pid);
	if (!p)
		return PD_ENOMEM;
	if (report(p, r->pc) < 0)
		return PD_ENOMEM;
	u->cur = r;
	u->frames = frames;
	u->n = 0;
	u->max = max;
	u->hit_max = false;
	u->ended = false;
	u->read_failed = false;
	u->oom = false;
	int fast = run_cached(p, r);
	if (fast < 0) {
		u->cur = NULL;
		return fast;
	}
	if (fast > 0) {
		u->cur = NULL;
		*n = u->n;
		if (u->hit_max || !u->read_failed ||
		    pd_unwind_at_entry(u->files, pid, &frames[u->n - 1]))
			return PD_UNWIND_COMPLETE;
		*stopped_in = dso_of(u, pid, &frames[u->n - 1]);
		return PD_UNWIND_TRUNCATED;
	}
	/* start over with libdw's unwinder */
	u->n = 0;
	u->hit_max = false;
	u->read_failed = false;
	int rc = -1;
	/* libdwfl takes the architecture from a reported module: without one
	 * (pc in JIT code, say) nothing can be unwound yet */
	const rep *at_pc = find_rep(p, r->pc);
	if (!p->attached && at_pc && at_pc->module &&
	    dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &u->thread_callbacks, p))
		p->attached = true;
	if (p->attached)
		rc = dwfl_getthread_frames(p->dwfl, (pid_t)pid, frame_cb, p);
	u->cur = NULL;
	if (u->oom)
		return PD_ENOMEM;
	if (u->n == 0) {
		frames[0] = (pd_unwind_frame){ .pc = r->pc, .activation = true };
		u->n = 1;
		rc = -1;
	}
	*n = u->n;
	/* libdw ends quietly when it cannot read a saved return address (the
	 * stack copy is too short for the stack, or empty after a fault on the
	 * stack page): that is no end of the stack */
	if (u->hit_max || u->ended || (rc == 0 && !u->read_failed) ||
	    pd_unwind_at_entry(u->files, pid, &frames[u->n - 1]))
		return PD_UNWIND_COMPLETE;
	*stopped_in = dso_of(u, pid, &frames[u->n - 1]);
	return PD_UNWIND_TRUNCATED;
}
