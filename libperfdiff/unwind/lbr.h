/*
 * LBR call stacks (`perf record --call-graph lbr`): the user part of a call
 * chain taken from the CPU's last-branch records in call-stack mode instead
 * of frame pointers, joined to the kernel part the way perf 6.1 does
 * (tools/perf/util/machine.c, resolve_lbr_callchain_sample).
 *
 * When perf uses it: the event's branch_sample_type has CALL_STACK and the
 * sample's callchain holds a PERF_CONTEXT_USER marker within its first
 * max_stack entries (and no guest or deferred marker before it).  Otherwise
 * perf builds the chain from the callchain as usual, and so should the
 * caller.
 *
 * The chain, leaf first:
 *   1. the callchain up to the PERF_CONTEXT_USER marker (the kernel part:
 *      its markers set the cpumode of the addresses after them; the
 *      kernel's own user frames after the marker are not used);
 *   2. branches[0].to, the entry of the function running in user space;
 *   3. branches[k].from for every entry, innermost first: the call
 *      instructions of the callers.
 * The sample ip itself is not in the user part: for a user-mode sample
 * perf's leaf is the entry of the running function.  A sample with an
 * empty branch stack keeps its kernel part only (perf 6.1 read past the
 * array there; later perf skips step 2, as here).
 *
 * Addresses of steps 2 and 3 are branch targets and call sites, not return
 * addresses: they are looked up as they are, never at address − 1.
 *
 * hw_idx (PERF_SAMPLE_BRANCH_HW_INDEX) only serves perf's optional
 * `--stitch-lbr`, which extends a call stack deeper than the LBR with
 * entries remembered from the thread's previous sample; perf leaves it off
 * by default and so does this module (no per-thread state).
 */
#ifndef PD_UNWIND_LBR_H
#define PD_UNWIND_LBR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/reader.h"

/* branch_sample_type bit: the LBR records the call stack. */
#define PD_BRANCH_CALL_STACK (1ull << 11)

/* One address of the chain. */
typedef struct pd_lbr_ip {
	uint64_t addr;
	uint8_t cpumode;     /* PD_CPUMODE_* to look it up in */
	bool return_addr;    /* a return address of the kernel part: look up at addr − 1
	                        (unless perf-compatible) */
} pd_lbr_ip;

/*
 * Whether perf builds this sample's chain from its LBR call stack.
 * `branch_sample_type` is the sample's event attr's; `max_stack` bounds the
 * search for the user marker as perf's --max-stack does (0: no bound).
 */
bool pd_lbr_applies(uint64_t branch_sample_type, const pd_sample *smp, unsigned max_stack);

/*
 * Write the sample's chain (leaf first) to `out`, at most `cap` entries;
 * returns how many were written.  Call only when pd_lbr_applies() is true
 * (otherwise returns 0).
 */
size_t pd_lbr_callchain(const pd_sample *smp, unsigned max_stack, pd_lbr_ip *out, size_t cap);

#endif
