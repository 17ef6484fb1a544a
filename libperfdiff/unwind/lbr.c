/*
 * LBR call stacks joined to the kernel part of the callchain (see lbr.h).
 */
#include "lbr.h"

/* Index of the PERF_CONTEXT_USER marker among the first `max_stack`
 * callchain entries, or -1 when there is none or another kind of context
 * (guest, deferred user) comes first: perf drops such chains from its LBR
 * path and falls back to the plain callchain. */
static int64_t user_marker(const pd_sample *smp, unsigned max_stack)
{
	if (!(smp->sample_type & PD_SAMPLE_CALLCHAIN) || !smp->callchain)
		return -1;
	uint64_t nr = smp->callchain_nr;
	if (max_stack > 0 && nr > max_stack)
		nr = max_stack;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t a = smp->callchain[i];
		if (a == PD_CONTEXT_USER)
			return (int64_t)i;
		if (a >= PD_CONTEXT_MAX && a != PD_CONTEXT_KERNEL && a != PD_CONTEXT_HV)
			return -1;
	}
	return -1;
}

bool pd_lbr_applies(uint64_t branch_sample_type, const pd_sample *smp, unsigned max_stack)
{
	return smp && (branch_sample_type & PD_BRANCH_CALL_STACK) &&
	       user_marker(smp, max_stack) >= 0;
}

size_t pd_lbr_callchain(const pd_sample *smp, unsigned max_stack, pd_lbr_ip *out, size_t cap)
{
	if (!smp)
		return 0;
	int64_t user = user_marker(smp, max_stack);
	if (user < 0)
		return 0;
	size_t n = 0;
	uint8_t mode = PD_CPUMODE_USER;   /* perf's start, before any marker */
	for (int64_t i = 0; i < user && n < cap; i++) {
		uint64_t a = smp->callchain[i];
		if (a == PD_CONTEXT_KERNEL) {
			mode = PD_CPUMODE_KERNEL;
			continue;
		}
		if (a == PD_CONTEXT_HV) {
			mode = PD_CPUMODE_HYPERVISOR;
			continue;
		}
		out[n] = (pd_lbr_ip){ a, mode, n > 0 };
		n++;
	}
	uint64_t nb = (smp->sample_type & PD_SAMPLE_BRANCH_STACK) && smp->branches
			      ? smp->branch_nr : 0;
	if (nb == 0)
		return n;
	if (n < cap)
		out[n++] = (pd_lbr_ip){ smp->branches[0].to, PD_CPUMODE_USER, false };
	for (uint64_t k = 0; k < nb && n < cap; k++)
		out[n++] = (pd_lbr_ip){ smp->branches[k].from, PD_CPUMODE_USER, false };
	return n;
}
