/*
 * The address-space model: processes, threads and their maps, the kernel's
 * maps and KSYMBOL ranges, rebuilt by replaying side-band records in
 * timestamp order.  Knows nothing about symbols: it says which map (and so
 * which dso and file offset) an address falls in; symbols/ names it.
 * This header is the machine stage's interface (docs/architecture.md):
 * symbols/, unwind/ and session/ build on it; internal.h stays inside.
 */
#ifndef PD_MACHINE_MACHINE_H
#define PD_MACHINE_MACHINE_H

#include "perfdiff/reader.h"
#include "util/util.h"

/*
 * A dso's identity, interned by the machine (equal identities share one
 * pointer for the machine's lifetime): path + build-id when the build-id
 * is known, else path + device/inode.  Copies of one build at two paths
 * (a program and its stripped copy) are two dsos, as in perf; the
 * symbolizer shares their symbols.  `name` is the path as recorded ("/usr/lib/x/libc.so.6",
 * "[kernel.kallsyms]", "[vdso]", "//anon", "/tmp/perf-123.map"...).
 */
typedef struct pd_dso_id {
	const char *name;
	uint8_t build_id[20];
	uint8_t build_id_size;   /* 0: unknown */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	bool kernel;             /* the kernel or a kernel module */
} pd_dso_id;

/* One mapping.  `pgoff` is a file offset, except for the kernel text map,
 * where it is the runtime address of _text (KASLR reference). */
typedef struct pd_map {
	uint64_t start, end, pgoff;
	uint32_t prot, flags;
	const pd_dso_id *dso;
} pd_map;

/* A KSYMBOL range: a BPF program, a trampoline, out-of-line kernel code. */
typedef struct pd_ksym {
	uint64_t start, end;
	uint16_t ksym_type;
	const char *name;
} pd_ksym;

typedef struct pd_machine pd_machine;

/*
 * `info` gives the BUILD_ID feature entries (matched to maps by path, and
 * pid for user dsos); it may be NULL.  The machine keeps the pointer: the
 * header info must outlive it (it is the reader's).
 */
int pd_machine_new(pd_machine **out, const pd_header_info *info);
void pd_machine_free(pd_machine *m);

/*
 * Apply a side-band record: COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL (others
 * are ignored).  Records must come in timestamp order.  Returns 0 or
 * PD_ENOMEM.
 */
int pd_machine_apply(pd_machine *m, const pd_record *rec);

/* The thread's current name, or NULL if it never had one. */
const char *pd_machine_comm(const pd_machine *m, uint32_t pid, uint32_t tid);

/* ":PID", what perf calls a thread it has no name for, kept as long as the
 * machine like the names above; NULL when out of memory. */
const char *pd_machine_pid_name(pd_machine *m, uint32_t pid);

/*
 * The map that holds `addr` for process `pid`, looked up in the kernel's
 * maps when `cpumode` is kernel (or guest kernel) and in the process's maps
 * when it is user; an address at or above the kernel text start is taken as
 * kernel whatever the cpumode says (perf's fallback).  A user address no
 * current map holds is looked up in the process's previous image (its maps
 * before the last COMM exec) while that is kept: see
 * pd_machine_note_sample().  NULL when none.  Valid until the next
 * pd_machine_apply() or pd_machine_note_sample().
 */
const pd_map *pd_machine_find_map(const pd_machine *m, uint32_t pid, uint8_t cpumode,
				  uint64_t addr);

/*
 * Tell the machine a sample of process `pid` was taken in `cpumode` (the
 * record's misc & PD_MISC_CPUMODE_MASK).  Call it for every sample, in
 * record order, before looking up the sample's addresses.  The first
 * user-mode sample after an exec means the new image is running: the
 * previous image is dropped then (or at the next exec, or when the pid is
 * reused), so that kernel samples taken inside execve, whose call chains
 * still hold the old image's return addresses, get them named as perf
 * does.
 *
 * Returns the process's map generation: a number, never 0, that changes
 * whenever pd_machine_find_map() for `pid` and an address below
 * pd_machine_kernel_start() may answer differently (the process's maps
 * changed, or it was replaced by a new one of the same pid); 0 while no
 * process `pid` is known.  What a cache of one process's user look-ups
 * checks, where pd_machine_generation() would change with every process.
 */
uint64_t pd_machine_note_sample(pd_machine *m, uint32_t pid, uint8_t cpumode);

/* The KSYMBOL range holding `addr`, or NULL. */
const pd_ksym *pd_machine_find_ksym(const pd_machine *m, uint64_t addr);

/*
 * The lowest address taken as kernel whatever the cpumode says: from it
 * up, pd_machine_find_map() answers the same for every pid and cpumode.
 */
uint64_t pd_machine_kernel_start(const pd_machine *m);

/*
 * A number that changes whenever the answer of pd_machine_find_map() or
 * pd_machine_find_ksym() for an address at or above
 * pd_machine_kernel_start() may change (kernel MMAP, KSYMBOL): what
 * caches of kernel lookups check.
 */
uint64_t pd_machine_kernel_generation(const pd_machine *m);

/*
 * A number that changes whenever any answer of pd_machine_find_map() may
 * change (every pd_machine_apply(), and pd_machine_note_sample() when it
 * drops a pre-exec map set): what caches of user lookups check.
 */
uint64_t pd_machine_generation(const pd_machine *m);

/*
 * pd_machine_find_map() for a user-mode address below
 * pd_machine_kernel_start(), with `*current` true when the map is one of
 * the process's present maps (not one kept from before its exec): then,
 * until pd_machine_generation() changes, it is the answer for every
 * address of [start, end) in that process.
 */
const pd_map *pd_machine_find_user_map(const pd_machine *m, uint32_t pid, uint64_t addr,
				       bool *current);

/* The kernel text map ([kernel.kallsyms]_text / _stext), or NULL if none was seen. */
const pd_map *pd_machine_kernel_map(const pd_machine *m);

/* Counters for statistics and tests, all cumulative: processes and threads
 * started (a reused pid or tid counts again), executable maps added (user
 * and kernel), COMM exec records applied. */
typedef struct pd_machine_stats {
	uint64_t processes, threads, maps, exec_resets;
} pd_machine_stats;
void pd_machine_get_stats(const pd_machine *m, pd_machine_stats *out);

#endif
