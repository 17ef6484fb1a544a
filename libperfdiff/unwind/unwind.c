/*
 * Dispatch between the unwinding back ends, and the count of stacks that
 * stopped early, per dso, so that a report can say how much of a profile
 * has cut stacks and where (JIT code without CFI, a missing binary, an
 * 8 KiB stack copy too short for a deep stack).
 */
#include "unwind.h"

#include <stdlib.h>
#include <string.h>


/* The libunwind back end is built when its source is there (another part
 * of the project provides it and links libunwind). */
#if defined(PD_HAVE_LIBUNWIND) || (defined(__has_include) && __has_include("libunwind.c"))
#define PD_WITH_LIBUNWIND 1
#else
#define PD_WITH_LIBUNWIND 0
#endif

struct pd_stack_unwinder {
	pd_unwinder kind;
	pd_unwind_libdw *dw;
	pd_unwind_libunwind *lu;
	pd_dso_tally truncated;         /* stacks that stopped early, per dso */
};

int pd_unwinder_new(pd_stack_unwinder **out, pd_unwinder kind, const pd_unwind_env *env)
{
	*out = NULL;
	if (kind != PD_UNWINDER_LIBDW && kind != PD_UNWINDER_LIBDW_UNCACHED &&
	    kind != PD_UNWINDER_LIBUNWIND)
		return PD_EINVAL;
#if !PD_WITH_LIBUNWIND
	if (kind == PD_UNWINDER_LIBUNWIND)
		return PD_EUNSUPPORTED;
#endif
	pd_stack_unwinder *u = calloc(1, sizeof *u);
	if (!u)
		return PD_ENOMEM;
	u->kind = kind;
	int rc = 0;
	if (kind != PD_UNWINDER_LIBUNWIND)
		rc = pd_unwind_libdw_new(&u->dw, env, kind == PD_UNWINDER_LIBDW);
#if PD_WITH_LIBUNWIND
	else
		rc = pd_unwind_libunwind_new(&u->lu, env);
#endif
	if (rc < 0) {
		free(u);
		return rc;
	}
	*out = u;
	return 0;
}

void pd_unwinder_free(pd_stack_unwinder *u)
{
	if (!u)
		return;
	pd_unwind_libdw_free(u->dw);
#if PD_WITH_LIBUNWIND
	pd_unwind_libunwind_free(u->lu);
#endif
	pd_dso_tally_free(&u->truncated);
	free(u);
}

void pd_unwinder_maps_changed(pd_stack_unwinder *u, uint32_t pid)
{
	if (!u)
		return;
	if (u->dw)
		pd_unwind_libdw_maps_changed(u->dw, pid);
#if PD_WITH_LIBUNWIND
	if (u->lu)
		pd_unwind_libunwind_maps_changed(u->lu, pid);
#endif
}

int pd_unwinder_run(pd_stack_unwinder *u, const pd_sample *smp, uint16_t e_machine,
		    pd_unwind_frame *frames, size_t max)
{
	pd_unwind_regs r;
	if (max == 0 || pd_unwind_regs_from_sample(&r, smp, e_machine) < 0)
		return 0;
	size_t n = 0;
	const pd_dso_id *stopped = NULL;
	int rc;
	if (u->dw)
		rc = pd_unwind_libdw_run(u->dw, smp->pid, &r, frames, max, &n, &stopped);
#if PD_WITH_LIBUNWIND
	else
		rc = pd_unwind_libunwind_run(u->lu, smp->pid, &r, frames, max, &n, &stopped);
#else
	else
		rc = PD_EUNSUPPORTED;
#endif
	if (rc < 0 && rc != PD_ENOMEM) {
		/* a back end that gave up entirely: the pc alone, truncated */
		frames[0] = (pd_unwind_frame){ .pc = r.pc, .activation = true };
		n = 1;
		rc = PD_UNWIND_TRUNCATED;
	}
	if (rc < 0)
		return rc;
	if (n == 0) {
		frames[0] = (pd_unwind_frame){ .pc = r.pc, .activation = true };
		n = 1;
	}
	if (n > max)
		n = max;
	if (rc == PD_UNWIND_TRUNCATED)
		pd_dso_tally_add(&u->truncated,
				 stopped && stopped->name ? stopped->name : "[unknown]", 1);
	return (int)n;
}

size_t pd_unwinder_truncated(const pd_stack_unwinder *u, const pd_unresolved_count **out)
{
	*out = u ? u->truncated.v : NULL;
	return u ? u->truncated.n : 0;
}
