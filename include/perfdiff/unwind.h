/*
 * perfdiff/unwind.h — how DWARF user stacks are unwound, and per-dso
 * sample counts.
 *
 * Part of session.h's API (session.h includes it): both belong to the
 * library's unwind stage (libperfdiff/unwind/), which sits below the
 * session and so does not include session.h.
 */
#ifndef PERFDIFF_UNWIND_H
#define PERFDIFF_UNWIND_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * How user stacks recorded with `perf record --call-graph dwarf` (sample
 * registers + a copy of the user stack) are unwound into frames.
 */
typedef enum pd_unwinder {
	PD_UNWINDER_LIBDW = 0,      /**< elfutils libdw (the default) */
	PD_UNWINDER_LIBUNWIND = 1,  /**< libunwind's remote unwinder */
	PD_UNWINDER_NONE = 2,       /**< no unwinding: the user part is the sample ip only */
	/** libdw's unwinder for every frame.  PD_UNWINDER_LIBDW gives the same
	 *  frames 2-4x faster by decoding the CFI row of an address once and
	 *  applying it directly where its rules are simple (almost all code);
	 *  this one is there to check that, and to measure it. */
	PD_UNWINDER_LIBDW_UNCACHED = 3,
} pd_unwinder;

/**
 * A per-dso count of samples: leaf addresses that could not be named
 * (pd_session_unresolved()), DWARF-unwound stacks that stopped early
 * (pd_session_truncated()).
 */
typedef struct pd_unresolved_count {
	const char *dso;
	uint64_t samples;
} pd_unresolved_count;

#ifdef __cplusplus
}
#endif

#endif
