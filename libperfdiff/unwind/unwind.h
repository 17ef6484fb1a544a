/*
 * Unwinding of user stacks recorded with `perf record --call-graph dwarf`
 * (sample registers + a copy of the top of the user stack).
 *
 * Two back ends share one interface: libdw (libdw.c, the default) and
 * libunwind (libunwind.c).  A back end knows nothing about the session: it
 * asks the pd_unwind_env for the map that holds an address and for the ELF
 * file behind a dso, and is handed one sample's registers and stack at a
 * time.  unwind.c dispatches between them and counts truncated stacks.
 *
 * Threads: a back end object is used by one thread at a time.
 */
#ifndef PD_UNWIND_UNWIND_H
#define PD_UNWIND_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/unwind.h"
#include "machine/machine.h"

/* Samples counted per dso name, in the order the dsos first came: the
 * statistics the unwinder and the session keep for their footers
 * (stacks that stopped early, unnamed leaves, chains cut at an invalid
 * context).  A handful of dsos, so a linear scan; names are compared by
 * pointer first because the machine interns them (dso_tally.c). */
typedef struct pd_dso_tally {
	pd_unresolved_count *v;
	size_t n, cap;
} pd_dso_tally;

/* Add `samples` to `dso`'s count.  Out of memory drops the count: these
 * are statistics, not worth failing a sample for. */
void pd_dso_tally_add(pd_dso_tally *t, const char *dso, uint64_t samples);
void pd_dso_tally_free(pd_dso_tally *t);

/* What a back end needs from the session.  Both callbacks answer for the
 * state of the address space at the time of the sample being unwound. */
typedef struct pd_unwind_env {
	/* The user map of process `pid` holding `addr`, or NULL. */
	const pd_map *(*find_map)(void *ctx, uint32_t pid, uint64_t addr);
	/* The ELF file backing `dso` (under symfs, build-id checked), or NULL
	 * when there is none; the string stays valid while the env does. */
	const char *(*elf_path)(void *ctx, const pd_dso_id *dso);
	void *ctx;
} pd_unwind_env;

/* Register file size: enough for x86_64 (17), i386 (9), aarch64 (33). */
#define PD_UNWIND_MAX_REGS 64

/* One sample's user state, registers in DWARF numbering. */
typedef struct pd_unwind_regs {
	uint16_t e_machine;             /* EM_X86_64, EM_386, EM_AARCH64 */
	uint64_t regs[PD_UNWIND_MAX_REGS]; /* indexed by DWARF register number */
	uint64_t valid;                 /* bit n: regs[n] present */
	uint64_t pc, sp;
	const uint8_t *stack;           /* copy of [sp, sp + stack_size) */
	size_t stack_size;              /* dyn_size, clamped to the copied size */
} pd_unwind_regs;

/*
 * Translate a sample's REGS_USER (perf's register order, packed by mask)
 * and STACK_USER into `out`.  `e_machine` is the recording's architecture
 * (EM_X86_64 or EM_AARCH64); a 32-bit ABI sample on x86_64 becomes EM_386.
 * Returns 0, or PD_EINVAL when the sample has no user registers (kernel
 * thread), its architecture is not supported, or pc or sp is missing.
 */
int pd_unwind_regs_from_sample(pd_unwind_regs *out, const pd_sample *smp,
			       uint16_t e_machine);

/* One unwound frame. */
typedef struct pd_unwind_frame {
	uint64_t pc;      /* frame 0: the sample's pc; then return addresses */
	bool activation;  /* pc is exact (signal frame or frame 0): do not look up pc − 1 */
} pd_unwind_frame;

/* Where a frame's code is looked up: its pc when exact, else the return
 * address − 1 (the call, which may be the last byte of its function). */
static inline uint64_t pd_unwind_frame_look(const pd_unwind_frame *f)
{
	return f->activation || f->pc == 0 ? f->pc : f->pc - 1;
}

/* Results of a back end's run(). */
enum {
	PD_UNWIND_COMPLETE = 0,   /* reached the outermost frame */
	PD_UNWIND_TRUNCATED = 1,  /* stopped early; frames so far are valid */
};

/*
 * Each back end provides four functions:
 *   _new:  create; `env` is copied (its ctx must outlive the back end).
 *   _run:  unwind process `pid` from `r`, writing at most `max` frames to
 *          `frames` (frames[0].pc == r->pc) and their number to `*n`.
 *          Returns PD_UNWIND_COMPLETE, PD_UNWIND_TRUNCATED (with
 *          `*stopped_in` = the dso of the last frame found, or NULL when
 *          that frame had no map), or PD_ENOMEM.  Never fails on garbage
 *          registers or stack bytes: that is a truncated stack.
 *          Reaching `max` counts as complete.
 *   _maps_changed: the maps of `pid` changed (new map, exec, exit, pid
 *          reuse); cached state of that process must not be trusted.
 *   _free: NULL is allowed.
 */
typedef struct pd_unwind_libdw pd_unwind_libdw;
/* `cached`: unwind through rows decoded once per address (cfi_rows.c)
 * where they suffice, libdw's unwinder elsewhere; same frames, faster. */
int pd_unwind_libdw_new(pd_unwind_libdw **out, const pd_unwind_env *env, bool cached);
int pd_unwind_libdw_run(pd_unwind_libdw *u, uint32_t pid, const pd_unwind_regs *r,
			pd_unwind_frame *frames, size_t max, size_t *n,
			const pd_dso_id **stopped_in);
void pd_unwind_libdw_maps_changed(pd_unwind_libdw *u, uint32_t pid);
void pd_unwind_libdw_free(pd_unwind_libdw *u);

typedef struct pd_unwind_libunwind pd_unwind_libunwind;
int pd_unwind_libunwind_new(pd_unwind_libunwind **out, const pd_unwind_env *env);
int pd_unwind_libunwind_run(pd_unwind_libunwind *u, uint32_t pid, const pd_unwind_regs *r,
			    pd_unwind_frame *frames, size_t max, size_t *n,
			    const pd_dso_id **stopped_in);
void pd_unwind_libunwind_maps_changed(pd_unwind_libunwind *u, uint32_t pid);
void pd_unwind_libunwind_free(pd_unwind_libunwind *u);

/*
 * ELF files behind dsos, opened once per back end (pd_unwind_files), for
 * what the unwinders need besides the stack copy: load biases and file
 * bytes.
 */
typedef struct pd_unwind_load {
	uint64_t offset, filesz, vaddr, memsz;
	uint64_t align;                 /* p_align */
	uint32_t flags;                 /* PF_X, PF_W, PF_R */
} pd_unwind_load;

typedef struct pd_unwind_file {
	const char *path;
	int fd;
	uint16_t e_type;                /* ET_EXEC or ET_DYN */
	uint16_t e_machine;
	bool is64;
	uint64_t e_entry;               /* ELF entry point (vaddr), 0 none */
	uint64_t size;                  /* file size */
	size_t nloads;
	pd_unwind_load *loads;          /* PT_LOADs in file order */
	/* libelf handle on fd (ELF_C_READ_MMAP_PRIVATE), kept open so that
	 * every user shares one mapping and one set of parsed sections:
	 * take a reference with elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, elf)
	 * and drop it with elf_end(); the last one goes with the files. */
	struct Elf *elf;
} pd_unwind_file;

typedef struct pd_unwind_files pd_unwind_files;
int pd_unwind_files_new(pd_unwind_files **out, const pd_unwind_env *env);
void pd_unwind_files_free(pd_unwind_files *f);

/* The opened file of `dso`, or NULL when there is none (remembered). */
const pd_unwind_file *pd_unwind_file_get(pd_unwind_files *f, const pd_dso_id *dso);

/*
 * Load bias of `file` mapped as `map`: runtime address − ELF vaddr, from
 * the PT_LOAD holding map->pgoff (right for any linker, not only when
 * p_vaddr == p_offset).  ET_EXEC gives 0.  False when no PT_LOAD fits.
 */
bool pd_unwind_file_bias(const pd_unwind_file *file, const pd_map *map, uint64_t *bias);

/*
 * Whether an unwind that stopped at `last` (its last frame) reached the
 * outermost frame after all: `last` lies in the first bytes of its file's
 * entry point code.  ld.so's _start is hand-written and has no CFI, so
 * libdw stops there with an error where the stack in fact ends (libunwind
 * does not); the program's own _start says so in its CFI.
 */
bool pd_unwind_at_entry(pd_unwind_files *f, uint32_t pid, const pd_unwind_frame *last);

/* Copy `n` bytes at ELF vaddr `vaddr` (inside one PT_LOAD's file part).
 * 0 or -1. */
int pd_unwind_file_read(const pd_unwind_file *file, uint64_t vaddr, void *buf, size_t n);

/*
 * Read the 8 bytes (4 for EM_386, zero-extended) at `addr` of process
 * `pid`, native byte order: from the stack copy in `r` when they lie inside
 * it, else from the file contents of the map that holds `addr` (never a
 * kernel address).  0 or -1.
 */
int pd_unwind_read_word(pd_unwind_files *f, uint32_t pid, const pd_unwind_regs *r,
			uint64_t addr, uint64_t *value);

/*
 * CFI rows of x86_64 files decoded once per address (cfi_rows.c), for the
 * libdw back end's fast path.  A pd_cfi_rows belongs to one back end (one
 * thread); its files and rows live until pd_cfi_rows_free().
 */
#define PD_CFI_NREGS 17     /* x86_64 DWARF registers 0-15 and 16 (%rip) */

enum {
	PD_CFI_UNSET,       /* undefined: the caller's value is unknown */
	PD_CFI_SAME,        /* the caller's value is this frame's */
	PD_CFI_AT_CFA,      /* saved at CFA + value */
	PD_CFI_VAL_CFA,     /* equal to CFA + value */
	PD_CFI_REG,         /* in register number value */
};

typedef struct pd_cfi_row {
	bool usable;        /* false: leave the address to libdw's unwinder */
	uint8_t cfa_reg;    /* CFA = regs[cfa_reg] + cfa_offset */
	int64_t cfa_offset;
	uint8_t kind[PD_CFI_NREGS];
	int64_t value[PD_CFI_NREGS];
} pd_cfi_row;

typedef struct pd_cfi_rows pd_cfi_rows;
typedef struct pd_cfi_file pd_cfi_file;

int pd_cfi_rows_new(pd_cfi_rows **out);
void pd_cfi_rows_free(pd_cfi_rows *c);
/* The rows of `file` (its .eh_frame opened on first use), or NULL when
 * memory runs out. */
pd_cfi_file *pd_cfi_rows_file(pd_cfi_rows *c, const pd_unwind_file *file);
/* The row for ELF address `addr` of the file (a lookup address: pc, or
 * return address − 1), decoded on first use; an unusable row when the
 * address has none that can be kept; NULL when memory runs out. */
const pd_cfi_row *pd_cfi_file_row(pd_cfi_rows *c, pd_cfi_file *f, uint64_t addr);
/*
 * Unwind one frame by `row`: `regs`/`valid` are this frame's registers,
 * `out`/`out_valid` receive the caller's.  Saved registers are read with
 * `read` (false when the word cannot be read; the register stays unset).
 * Returns true when the caller has a pc (out[16], never 0), false at the
 * outermost frame.
 */
bool pd_cfi_row_step(const pd_cfi_row *row, const uint64_t *regs, uint64_t valid,
		     uint64_t *out, uint64_t *out_valid,
		     bool (*read)(void *ctx, uint64_t addr, uint64_t *value), void *ctx);

/* ---------------------------------------------------------------- dispatch */

typedef struct pd_stack_unwinder pd_stack_unwinder;


/*
 * Create the dispatcher for `kind` (PD_UNWINDER_LIBDW or _LIBUNWIND).
 * Returns 0, PD_ENOMEM, or PD_EUNSUPPORTED when the back end was not built
 * in (libunwind).
 */
int pd_unwinder_new(pd_stack_unwinder **out, pd_unwinder kind, const pd_unwind_env *env);
void pd_unwinder_free(pd_stack_unwinder *u);

/*
 * Unwind one sample: build its registers for `e_machine`, run the back end,
 * count a truncated stack against its dso.  Returns the number of frames
 * (>= 1) in `frames`, 0 when the sample cannot be unwound at all (no user
 * registers), or PD_ENOMEM.
 */
int pd_unwinder_run(pd_stack_unwinder *u, const pd_sample *smp, uint16_t e_machine,
		    pd_unwind_frame *frames, size_t max);

/* The maps of `pid` changed. */
void pd_unwinder_maps_changed(pd_stack_unwinder *u, uint32_t pid);

/* Per-dso counts of stacks that could not be unwound to the end (dso
 * "[unknown]" when the last frame found had no map); valid until the next
 * call. */
size_t pd_unwinder_truncated(const pd_stack_unwinder *u, const pd_unresolved_count **out);

#endif
