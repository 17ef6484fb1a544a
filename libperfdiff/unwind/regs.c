/*
 * perf's sampled user registers → DWARF register numbers.
 *
 * REGS_USER holds one u64 per bit set in the mask, in bit order, with bit
 * numbers from the kernel's per-architecture enum perf_event_*_regs.  The
 * unwinders index registers by DWARF number, so each architecture needs a
 * table: DWARF number → perf register id.
 */
#include "unwind.h"

#include <elf.h>
#include <string.h>

/* perf_event_x86_regs: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8.. */
enum { X86_AX, X86_BX, X86_CX, X86_DX, X86_SI, X86_DI, X86_BP, X86_SP, X86_IP,
       X86_R8 = 16 };

/* x86_64 DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
static const uint8_t x86_64_map[17] = {
	X86_AX, X86_DX, X86_CX, X86_BX, X86_SI, X86_DI, X86_BP, X86_SP,
	X86_R8 + 0, X86_R8 + 1, X86_R8 + 2, X86_R8 + 3,
	X86_R8 + 4, X86_R8 + 5, X86_R8 + 6, X86_R8 + 7, X86_IP,
};

/* i386 DWARF: eax ecx edx ebx esp ebp esi edi eip */
static const uint8_t i386_map[9] = {
	X86_AX, X86_CX, X86_DX, X86_BX, X86_SP, X86_BP, X86_SI, X86_DI, X86_IP,
};

/* perf_event_arm64_regs: X0..X30 (LR = 30), SP 31, PC 32; DWARF x0..x30 = 0..30,
 * sp = 31; the pc has no DWARF number and is passed apart. */
#define ARM64_SP 31
#define ARM64_PC 32

#define PERF_REGS_ABI_32 1
#define PERF_REGS_ABI_64 2

/* Value of perf register `id`, if sampled. */
static bool perf_reg(const pd_sample *smp, unsigned id, uint64_t *v)
{
	if (id >= 64 || !(smp->regs_user_mask & (1ull << id)))
		return false;
	uint64_t below = smp->regs_user_mask & ((1ull << id) - 1);
	*v = smp->regs_user[__builtin_popcountll(below)];
	return true;
}

static void fill(pd_unwind_regs *out, const pd_sample *smp, const uint8_t *map, unsigned n,
		 bool narrow)
{
	for (unsigned d = 0; d < n; d++) {
		uint64_t v;
		if (perf_reg(smp, map[d], &v)) {
			out->regs[d] = narrow ? (uint32_t)v : v;
			out->valid |= 1ull << d;
		}
	}
}

int pd_unwind_regs_from_sample(pd_unwind_regs *out, const pd_sample *smp, uint16_t e_machine)
{
	memset(out, 0, sizeof *out);
	if (!(smp->sample_type & PD_SAMPLE_REGS_USER) || smp->regs_user_abi == 0 ||
	    !smp->regs_user || smp->regs_user_mask == 0)
		return PD_EINVAL;
	bool ok = false;
	if (e_machine == EM_X86_64 || e_machine == EM_386) {
		if (smp->regs_user_abi == PERF_REGS_ABI_64 && e_machine == EM_X86_64) {
			out->e_machine = EM_X86_64;
			fill(out, smp, x86_64_map, 17, false);
			out->pc = out->regs[16];
			out->sp = out->regs[7];
			ok = (out->valid & (1ull << 16)) && (out->valid & (1ull << 7));
		} else {
			/* a 32-bit task on a 64-bit kernel, or an i386 recording */
			out->e_machine = EM_386;
			fill(out, smp, i386_map, 9, true);
			out->pc = out->regs[8];
			out->sp = out->regs[4];
			ok = (out->valid & (1ull << 8)) && (out->valid & (1ull << 4));
		}
	} else if (e_machine == EM_AARCH64 && smp->regs_user_abi == PERF_REGS_ABI_64) {
		out->e_machine = EM_AARCH64;
		for (unsigned d = 0; d <= ARM64_SP; d++) {
			uint64_t v;
			if (perf_reg(smp, d, &v)) {
				out->regs[d] = v;
				out->valid |= 1ull << d;
			}
		}
		out->sp = out->regs[ARM64_SP];
		ok = perf_reg(smp, ARM64_PC, &out->pc) && (out->valid & (1ull << ARM64_SP));
	}
	if (!ok)
		return PD_EINVAL;
	if ((smp->sample_type & PD_SAMPLE_STACK_USER) && smp->stack_user) {
		uint64_t n = smp->stack_user_dyn_size;
		if (n > smp->stack_user_size)
			n = smp->stack_user_size;
		out->stack = smp->stack_user;
		out->stack_size = (size_t)n;
	}
	return 0;
}
