/*
 * Processes, threads and the kernel's address space, rebuilt record by
 * record.  Each record costs a hash lookup plus, for a mapping, a binary
 * search and a move of the set's tail; a fork shares the parent's map set
 * instead of copying it.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Linux's PROT_EXEC on every architecture; the host's header may differ. */
#define PD_PROT_EXEC 4u
/* The lowest kernel address of a 64-bit kernel on any architecture. */
#define PD_KERNEL_HALF (1ull << 63)

typedef struct pd_thread {
	uint32_t pid, tid;
	const char *comm;
	bool exited;
} pd_thread;

typedef struct pd_process {
	uint32_t pid;
	bool exited;
	pd_mapset *maps;
	/* The maps before the last exec, until the new image is entered: a
	 * sample inside execve still has the old image's return addresses
	 * in its call chain. */
	pd_mapset *prev;
	/* The machine's generation when maps or prev last changed: what a
	 * cache of this process's user lookups checks (never 0). */
	uint64_t maps_gen;
	struct pd_process *next_all;   /* every process, for pd_machine_free() */
} pd_process;

struct pd_machine {
	pd_intern in;         /* strings, dso identities, processes, threads */
	pd_u64map procs;      /* pid -> pd_process */
	pd_u64map threads;    /* tid -> pd_thread */
	pd_process *all;
	pd_map ktext;         /* valid when have_ktext */
	bool have_ktext;
	pd_mapset *kmaps;     /* modules and other kernel maps */
	pd_ksymset ksyms;
	/* Bumped whenever a kernel address could change its map or KSYMBOL:
	 * what a cache of kernel lookups is validated by. */
	uint64_t kgen;
	uint64_t gen;            /* any change to any process's maps */
	pd_machine_stats stats;
};

int pd_machine_new(pd_machine **out, const pd_header_info *info)
{
	pd_machine *m = calloc(1, sizeof *m);
	if (!m)
		return PD_ENOMEM;
	pd_intern_init(&m->in, info);
	pd_u64map_init(&m->procs);
	pd_u64map_init(&m->threads);
	*out = m;
	return 0;
}

void pd_machine_free(pd_machine *m)
{
	if (!m)
		return;
	for (pd_process *p = m->all; p; p = p->next_all) {
		pd_mapset_release(p->maps);
		pd_mapset_release(p->prev);
	}
	pd_mapset_release(m->kmaps);
	pd_ksymset_free(&m->ksyms);
	pd_u64map_free(&m->procs);
	pd_u64map_free(&m->threads);
	pd_intern_free(&m->in);
	free(m);
}

static bool is_kernel_mode(uint8_t cpumode)
{
	return cpumode == PD_CPUMODE_KERNEL || cpumode == PD_CPUMODE_GUEST_KERNEL;
}

static uint64_t end_of(uint64_t start, uint64_t len)
{
	return len > UINT64_MAX - start ? UINT64_MAX : start + len;
}

static pd_process *find_process(const pd_machine *m, uint32_t pid)
{
	return pd_u64map_get(&m->procs, pid);
}

static pd_process *findnew_process(pd_machine *m, uint32_t pid)
{
	pd_process *p = find_process(m, pid);
	if (p)
		return p;
	p = pd_arena_alloc(&m->in.arena, sizeof *p);
	if (!p || pd_u64map_put(&m->procs, pid, p) < 0)
		return NULL;
	p->pid = pid;
	p->maps_gen = m->gen;
	p->next_all = m->all;
	m->all = p;
	m->stats.processes++;
	return p;
}

/* A thread starting now as `tid` of `pid`, taking over a stale entry. */
static pd_thread *new_thread(pd_machine *m, uint32_t pid, uint32_t tid)
{
	pd_thread *t = pd_u64map_get(&m->threads, tid);
	if (!t) {
		t = pd_arena_alloc(&m->in.arena, sizeof *t);
		if (!t || pd_u64map_put(&m->threads, tid, t) < 0)
			return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	t->comm = NULL;
	t->exited = false;
	m->stats.threads++;
	return t;
}

/* Thread `tid` of process `pid`; a tid last used by another process is a
 * reused one (its old thread is gone). */
static pd_thread *findnew_thread(pd_machine *m, uint32_t pid, uint32_t tid)
{
	pd_thread *t = pd_u64map_get(&m->threads, tid);
	return t && t->pid == pid ? t : new_thread(m, pid, tid);
}

/*
 * The kernel text map is named "[kernel.kallsyms]_text" (older perf:
 * "_stext"; guests "[guest.kernel.kallsyms...]"); its dso is the part up
 * to the "]".  Anything else starting with "/" or "[" is a module or
 * another kernel range; other names are ignored, as perf does.
 */
static int kernel_mmap(pd_machine *m, const pd_record *rec, const char *name,
		       uint64_t start, uint64_t end)
{
	const pd_mmap *mm = &rec->u.mmap;
	pd_dso_id want = { .name = name, .kernel = true,
			   .build_id_size = mm->build_id_size };
	memcpy(want.build_id, mm->build_id, sizeof want.build_id);
	bool text = strncmp(name, "[kernel.kallsyms", 16) == 0 ||
		    strncmp(name, "[guest.kernel.kallsyms", 22) == 0;
	char dsoname[64];
	if (text) {
		const char *close = strchr(name, ']');
		size_t len = close ? (size_t)(close - name) + 1 : strlen(name);
		if (len < sizeof dsoname) {
			memcpy(dsoname, name, len);
			dsoname[len] = '\0';
			want.name = dsoname;
		}
	} else if (name[0] != '/' && name[0] != '[') {
		return 0;
	}
	const pd_dso_id *dso = pd_intern_dso(&m->in, &want, -1);
	if (!dso)
		return PD_ENOMEM;
	pd_map map = { .start = start, .end = end, .pgoff = mm->pgoff,
		       .prot = mm->prot, .flags = mm->flags, .dso = dso };
	m->stats.maps++;
	m->kgen++;
	if (text) {
		m->ktext = map;
		m->have_ktext = true;
		return 0;
	}
	return pd_mapset_insert(&m->kmaps, &map);
}

static int apply_mmap(pd_machine *m, const pd_record *rec)
{
	const pd_mmap *mm = &rec->u.mmap;
	const char *name = mm->filename ? mm->filename : "";
	if (mm->len == 0)
		return 0;
	uint64_t end = end_of(mm->addr, mm->len);
	if (is_kernel_mode(rec->misc & PD_MISC_CPUMODE_MASK))
		return kernel_mmap(m, rec, name, mm->addr, end);
	if (mm->pid == UINT32_MAX)
		return 0;
	pd_process *p = findnew_process(m, mm->pid);
	if (!p)
		return PD_ENOMEM;
	bool exec = rec->type == PD_RECORD_MMAP2 ? (mm->prot & PD_PROT_EXEC) != 0
						 : !(rec->misc & PD_MISC_MMAP_DATA);
	/* A data mapping is not kept (no IP lands in it) but it still
	 * replaces whatever code was mapped there before. */
	p->maps_gen = m->gen;
	if (!exec) {
		int rc = pd_mapset_punch(&p->maps, mm->addr, end);
		/* the old image must not show through the hole either */
		return rc ? rc : pd_mapset_punch(&p->prev, mm->addr, end);
	}
	pd_dso_id want = { .name = name, .maj = mm->maj, .min = mm->min,
			   .ino = mm->ino, .ino_generation = mm->ino_generation,
			   .build_id_size = mm->build_id_size };
	memcpy(want.build_id, mm->build_id, sizeof want.build_id);
	const pd_dso_id *dso = pd_intern_dso(&m->in, &want, (int32_t)mm->pid);
	if (!dso)
		return PD_ENOMEM;
	pd_map map = { .start = mm->addr, .end = end, .pgoff = mm->pgoff,
		       .prot = mm->prot, .flags = mm->flags, .dso = dso };
	m->stats.maps++;
	return pd_mapset_insert(&p->maps, &map);
}

/*
 * pid != ppid: a new process (or a reused pid: whatever was there is gone)
 * with the parent's maps, except when perf synthesized the record for a
 * task that already ran (FORK_EXEC): its MMAPs follow.  pid == ppid: a new
 * thread of the process.  Either way the thread starts with the parent
 * thread's name, as after clone().
 */
static int apply_fork(pd_machine *m, const pd_record *rec)
{
	const pd_task *t = &rec->u.task;
	const pd_thread *parent = pd_u64map_get(&m->threads, t->ptid);
	const char *comm = parent && parent->pid == t->ppid ? parent->comm : NULL;
	pd_process *p;
	if (t->pid != t->ppid) {
		p = find_process(m, t->pid);
		if (p) {
			pd_mapset_release(p->maps);
			pd_mapset_release(p->prev);
			p->maps = p->prev = NULL;
			p->exited = false;
			m->stats.processes++;
		} else if (!(p = findnew_process(m, t->pid))) {
			return PD_ENOMEM;
		}
		const pd_process *pp = find_process(m, t->ppid);
		if (pp && !(rec->misc & PD_MISC_FORK_EXEC))
			p->maps = pd_mapset_share(pp->maps);
		p->maps_gen = m->gen;
	} else if (!(p = findnew_process(m, t->pid))) {
		return PD_ENOMEM;
	}
	pd_thread *th = new_thread(m, t->pid, t->tid);
	if (!th)
		return PD_ENOMEM;
	th->comm = comm;
	return 0;
}

static int apply_comm(pd_machine *m, const pd_record *rec)
{
	const pd_comm *c = &rec->u.comm;
	pd_process *p = findnew_process(m, c->pid);
	pd_thread *t = p ? findnew_thread(m, c->pid, c->tid) : NULL;
	const char *name = c->comm ? c->comm : "";
	name = t ? pd_intern_str(&m->in, name, strlen(name)) : NULL;
	if (!name)
		return PD_ENOMEM;
	t->comm = name;
	/* A new image: the old maps stop being current but stay behind it
	 * until the new image runs (see pd_machine_note_sample()).  perf keeps
	 * them for good and lets the new MMAPs overwrite them, which leaves
	 * stale code mapped; looking in the current maps first and then in
	 * the previous ones answers as perf's overlay does meanwhile. */
	if (c->exec || (rec->misc & PD_MISC_COMM_EXEC)) {
		pd_mapset_release(p->prev);
		p->prev = p->maps;
		p->maps = NULL;
		p->maps_gen = m->gen;
		m->stats.exec_resets++;
	}
	return 0;
}

static int apply_exit(pd_machine *m, const pd_record *rec)
{
	const pd_task *t = &rec->u.task;
	pd_thread *th = pd_u64map_get(&m->threads, t->tid);
	if (th && th->pid == t->pid)
		th->exited = true;
	/* Keep everything: samples taken before the exit may still follow. */
	pd_process *p = find_process(m, t->pid);
	if (p && t->tid == t->pid)
		p->exited = true;
	return 0;
}

static int apply_ksymbol(pd_machine *m, const pd_record *rec)
{
	const pd_ksymbol *k = &rec->u.ksymbol;
	uint64_t end = end_of(k->addr, k->len ? k->len : 1);
	m->kgen++;
	if (k->flags & 1) {
		pd_ksymset_remove(&m->ksyms, k->addr, end);
		return 0;
	}
	const char *name = k->name ? k->name : "";
	pd_ksym sym = { .start = k->addr, .end = end, .ksym_type = k->ksym_type,
			.name = pd_intern_str(&m->in, name, strlen(name)) };
	if (!sym.name)
		return PD_ENOMEM;
	return pd_ksymset_add(&m->ksyms, &sym);
}

int pd_machine_apply(pd_machine *m, const pd_record *rec)
{
	m->gen++;   /* from 1: a process's maps_gen is never 0 */
	switch (rec->type) {
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		return apply_mmap(m, rec);
	case PD_RECORD_FORK:
		return apply_fork(m, rec);
	case PD_RECORD_COMM:
		return apply_comm(m, rec);
	case PD_RECORD_EXIT:
		return apply_exit(m, rec);
	case PD_RECORD_KSYMBOL:
		return apply_ksymbol(m, rec);
	default:
		return 0;
	}
}

const char *pd_machine_comm(const pd_machine *m, uint32_t pid, uint32_t tid)
{
	const pd_thread *t = pd_u64map_get(&m->threads, tid);
	if (t && t->pid == pid)
		return t->comm;
	/* perf names the idle task without any record saying so */
	if (pid == 0 && tid == 0)
		return "swapper";
	return NULL;
}

const char *pd_machine_pid_name(pd_machine *m, uint32_t pid)
{
	char name[16];
	int n = snprintf(name, sizeof name, ":%" PRIu32, pid);
	return pd_intern_str(&m->in, name, (size_t)n);
}

/*
 * perf's own threshold on x86_64 is 2^63 rather than _text, so that the
 * entry trampolines and cpu_entry_area below _text count as kernel; any
 * 64-bit kernel lives above 2^63, so use that whenever the text map is up
 * there (its pgoff, the runtime _text, says so even when old perf wrote a
 * bogus low start, e.g. 3.8's [0x15600000, 0xffffffffc0000000)).  A 32-bit
 * kernel's _text is the threshold (its map may end at 2^64 - 1: perf's
 * "end unknown"), so ARM's kuser helpers at 0xffff0fa0 count as kernel
 * where perf, which uses no fallback for sample IPs, says [unknown].  A
 * text map at 0 means kptr_restrict hid the addresses: it tells nothing.
 */
static uint64_t kernel_start(const pd_machine *m)
{
	const pd_map *k = &m->ktext;
	if (!m->have_ktext || k->start == 0 || k->start >= PD_KERNEL_HALF ||
	    k->pgoff >= PD_KERNEL_HALF)
		return PD_KERNEL_HALF;
	return k->start;
}

static const pd_map *find_kernel(const pd_machine *m, uint64_t addr)
{
	if (m->have_ktext && addr >= m->ktext.start && addr < m->ktext.end)
		return &m->ktext;
	return pd_mapset_find(m->kmaps, addr);
}

const pd_map *pd_machine_find_map(const pd_machine *m, uint32_t pid, uint8_t cpumode,
				  uint64_t addr)
{
	bool kaddr = addr >= kernel_start(m);
	if (kaddr || is_kernel_mode(cpumode)) {
		const pd_map *map = find_kernel(m, addr);
		/* A kernel-mode address below the kernel may be a user one
		 * (perf's fallback for branch records); never the reverse. */
		if (map || kaddr)
			return map;
	}
	if (cpumode == PD_CPUMODE_HYPERVISOR)
		return NULL;
	bool current;
	return pd_machine_find_user_map(m, pid, addr, &current);
}

/*
 * Only user mode counts: a sample taken in user mode after the exec is in
 * the new image (execve has returned), so no call chain from then on can
 * hold an old return address.  Kernel-mode samples may still be inside
 * execve itself.
 */
uint64_t pd_machine_note_sample(pd_machine *m, uint32_t pid, uint8_t cpumode)
{
	pd_process *p = find_process(m, pid);
	if (!p)
		return 0;
	if (cpumode == PD_CPUMODE_USER && p->prev) {
		pd_mapset_release(p->prev);
		p->prev = NULL;
		p->maps_gen = ++m->gen;
	}
	return p->maps_gen;
}

const pd_ksym *pd_machine_find_ksym(const pd_machine *m, uint64_t addr)
{
	return pd_ksymset_find(&m->ksyms, addr);
}

uint64_t pd_machine_kernel_start(const pd_machine *m)
{
	return kernel_start(m);
}

uint64_t pd_machine_kernel_generation(const pd_machine *m)
{
	return m->kgen;
}

uint64_t pd_machine_generation(const pd_machine *m)
{
	return m->gen;
}

const pd_map *pd_machine_find_user_map(const pd_machine *m, uint32_t pid, uint64_t addr,
				       bool *current)
{
	*current = false;
	const pd_process *p = find_process(m, pid);
	if (!p)
		return NULL;
	const pd_map *map = pd_mapset_find(p->maps, addr);
	if (map) {
		*current = true;
		return map;
	}
	return pd_mapset_find(p->prev, addr);
}

const pd_map *pd_machine_kernel_map(const pd_machine *m)
{
	return m->have_ktext ? &m->ktext : NULL;
}

void pd_machine_get_stats(const pd_machine *m, pd_machine_stats *out)
{
	*out = m->stats;
}
