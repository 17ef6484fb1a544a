/*
 * Chain trees of a text report built ahead of the writer: a second thread
 * builds the trees of the rows to come while the first formats, so the
 * chains of a large report cost about half their time on two cores.
 * pd_profile_chains() only reads the profile once the event's flat view
 * exists, so both threads may call it for different rows.
 */
#ifndef PERFDIFF_CLI_REPORT_AHEAD_H
#define PERFDIFF_CLI_REPORT_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "perfdiff/profile.h"

typedef struct report_ahead report_ahead;

/*
 * Start building the chain trees of flat entries `entries[0..n)` of event
 * `ev` (whose flat view must have been built) in `order` with `min_total`.
 * The array is borrowed until report_ahead_free().  Without a thread the
 * trees are built by report_ahead_take().  NULL when memory runs out.
 */
report_ahead *report_ahead_start(pd_profile *p, size_t ev, const size_t *entries, size_t n,
				 pd_chain_order order, uint64_t min_total);

/* The tree of entries[i], taken in increasing i; the caller frees it.
 * 0 or a negative code with `err` filled. */
int report_ahead_take(report_ahead *a, size_t i, pd_chain_tree **out, pd_error *err);

/* Stop the thread and free the trees not taken.  NULL is allowed. */
void report_ahead_free(report_ahead *a);

#endif
