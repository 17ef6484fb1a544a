/*
 * CFI rows decoded once per file and address, for the libdw back end's
 * fast path on x86_64.
 *
 * libdw's unwinder redoes everything for every frame of every sample:
 * dwarf_cfi_addrframe() finds the FDE, runs the CIE's and the FDE's
 * programs up to the pc and allocates the resulting row, and each of the
 * 17 registers' rules then goes through a small stack machine that
 * allocates its own stack.  A profile brings the same few thousand
 * addresses back in every sample, so here the row libdw finds for an
 * address is decoded once into a fixed form and kept with the file,
 * shared by every process that maps it.
 *
 * Only rows made of the rules compilers emit for ordinary code are kept in
 * that form: CFA = register + offset, and every register undefined, the
 * same value, saved at CFA + N, equal to CFA + N, or in another register.
 * Anything else (expressions, as in signal trampolines and hand-written
 * assembly; signal frames; an address without an .eh_frame entry) makes
 * the row unusable, and the back end hands that sample to libdw's own
 * unwinder, which also has .debug_frame and the frame-pointer fallback.
 * pd_cfi_row_step() computes what libdw's handle_cfi() computes from the
 * same row (elfutils libdwfl/frame_unwind.c), so a sample's frames do not
 * depend on the path taken; the tests compare both paths frame by frame.
 */
#include "unwind.h"

#include <elfutils/libdw.h>
#include <dwarf.h>
#include <stdlib.h>

#include "util/u64map.h"

/* The register that holds the return address in x86_64 CFI (%rip). */
#define RA_REG 16

/* Rows are allocated in blocks of this many. */
#define ROWS_PER_BLOCK 256

typedef struct row_block {
	struct row_block *next;
	size_t used;
	pd_cfi_row rows[ROWS_PER_BLOCK];
} row_block;

struct pd_cfi_file {
	Dwarf_CFI *cfi;        /* .eh_frame of the file; NULL when it has none */
	pd_u64map rows;        /* file address → pd_cfi_row */
};

struct pd_cfi_rows {
	pd_u64map files;       /* pd_unwind_file pointer → pd_cfi_file */
	row_block *blocks;
	pd_cfi_row unusable;   /* shared by every address left to libdw */
};

int pd_cfi_rows_new(pd_cfi_rows **out)
{
	pd_cfi_rows *c = calloc(1, sizeof *c);
	if (!c)
		return PD_ENOMEM;
	pd_u64map_init(&c->files);
	c->unusable.usable = false;
	*out = c;
	return 0;
}

void pd_cfi_rows_free(pd_cfi_rows *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->files.cap; i++) {
		pd_cfi_file *f = c->files.vals[i];
		if (!f)
			continue;
		if (f->cfi)
			dwarf_cfi_end(f->cfi);
		pd_u64map_free(&f->rows);
		free(f);
	}
	pd_u64map_free(&c->files);
	for (row_block *b = c->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(c);
}

pd_cfi_file *pd_cfi_rows_file(pd_cfi_rows *c, const pd_unwind_file *file)
{
	uint64_t key = (uint64_t)(uintptr_t)file;
	pd_cfi_file *f = pd_u64map_get(&c->files, key);
	if (f)
		return f;
	f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	pd_u64map_init(&f->rows);
	/* the same CFI libdwfl's dwfl_module_eh_cfi() reads for a module of
	 * this file (.eh_frame, found through PT_GNU_EH_FRAME) */
	f->cfi = file->elf && file->e_machine == EM_X86_64 && file->is64
		 ? dwarf_getcfi_elf(file->elf) : NULL;
	if (pd_u64map_put(&c->files, key, f) < 0) {
		if (f->cfi)
			dwarf_cfi_end(f->cfi);
		free(f);
		return NULL;
	}
	return f;
}

/* Decode libdw's description of one register's rule (dwarf_frame_register:
 * its synthesized DW_OP_call_frame_cfa / plus_uconst / stack_value / regx
 * forms).  False when it is some other expression. */
static bool decode_rule(const Dwarf_Op *mem, const Dwarf_Op *ops, size_t nops, uint8_t *kind,
			int64_t *value)
{
	*value = 0;
	if (nops == 0) {
		if (ops == mem) {
			*kind = PD_CFI_UNSET;    /* undefined */
			return true;
		}
		if (ops == NULL) {
			*kind = PD_CFI_SAME;
			return true;
		}
		return false;
	}
	if (ops[0].atom == DW_OP_regx && nops == 1) {
		if (ops[0].number >= PD_CFI_NREGS)
			return false;
		*kind = PD_CFI_REG;
		*value = (int64_t)ops[0].number;
		return true;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	size_t i = 1;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		*value = (int64_t)ops[i++].number;
	bool val = false;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		val = true;
		i++;
	}
	if (i != nops)
		return false;
	*kind = val ? PD_CFI_VAL_CFA : PD_CFI_AT_CFA;
	return true;
}

/* Decode the row libdw finds for `addr`; false when it cannot be kept. */
static bool decode_row(Dwarf_CFI *cfi, uint64_t addr, pd_cfi_row *row)
{
	Dwarf_Frame *frame = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, addr, &frame) != 0)
		return false;
	bool ok = false;
	bool signal = false;
	Dwarf_Addr start, end;
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_frame_info(frame, &start, &end, &signal) != RA_REG || signal)
		goto out;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1 ||
	    ops[0].atom != DW_OP_bregx || ops[0].number >= PD_CFI_NREGS)
		goto out;
	row->cfa_reg = (uint8_t)ops[0].number;
	row->cfa_offset = (int64_t)ops[0].number2;
	for (int reg = 0; reg < PD_CFI_NREGS; reg++) {
		Dwarf_Op mem[3];
		if (dwarf_frame_register(frame, reg, mem, &ops, &nops) != 0 ||
		    !decode_rule(mem, ops, nops, &row->kind[reg], &row->value[reg]))
			goto out;
	}
	ok = true;
out:
	free(frame);
	return ok;
}

const pd_cfi_row *pd_cfi_file_row(pd_cfi_rows *c, pd_cfi_file *f, uint64_t addr)
{
	const pd_cfi_row *row = pd_u64map_get(&f->rows, addr);
	if (row)
		return row;
	if (!c->blocks || c->blocks->used == ROWS_PER_BLOCK) {
		row_block *b = malloc(sizeof *b);
		if (!b)
			return NULL;
		b->next = c->blocks;
		b->used = 0;
		c->blocks = b;
	}
	pd_cfi_row *fresh = &c->blocks->rows[c->blocks->used];
	*fresh = (pd_cfi_row){ .usable = true };
	if (decode_row(f->cfi, addr, fresh))
		c->blocks->used++;   /* kept; otherwise the slot is reused */
	else
		fresh = &c->unusable;
	if (pd_u64map_put(&f->rows, addr, fresh) < 0)
		return NULL;
	return fresh;
}

bool pd_cfi_row_step(const pd_cfi_row *row, const uint64_t *regs, uint64_t valid,
		     uint64_t *out, uint64_t *out_valid,
		     bool (*read)(void *ctx, uint64_t addr, uint64_t *value), void *ctx)
{
	/* The CFA, when its register is known (else every rule built on it
	 * fails and leaves its register unset, as in libdw's expr_eval). */
	bool have_cfa = (valid >> row->cfa_reg) & 1;
	uint64_t cfa = have_cfa ? regs[row->cfa_reg] + (uint64_t)row->cfa_offset : 0;
	uint64_t set = 0;
	for (int reg = 0; reg < PD_CFI_NREGS; reg++) {
		uint64_t v;
		switch (row->kind[reg]) {
		case PD_CFI_SAME:
			if (!((valid >> reg) & 1))
				continue;
			v = regs[reg];
			break;
		case PD_CFI_REG:
			if (!((valid >> row->value[reg]) & 1))
				continue;
			v = regs[row->value[reg]];
			break;
		case PD_CFI_AT_CFA:
			/* every location is read, as libdw does: a failed read
			 * is the caller's to note even when the register is
			 * never used */
			if (!have_cfa || !read(ctx, cfa + (uint64_t)row->value[reg], &v))
				continue;
			break;
		case PD_CFI_VAL_CFA:
			if (!have_cfa)
				continue;
			v = cfa + (uint64_t)row->value[reg];
			break;
		default:
			continue;
		}
		out[reg] = v;
		set |= 1ull << reg;
	}
	*out_valid = set;
	/* the caller's pc: the return address column, when it has a value and
	 * that value is not 0 (libdw: outermost frame) */
	return ((set >> RA_REG) & 1) && out[RA_REG] != 0;
}
