/*
 * Why a profile came out empty or lacks an event, said with what the user
 * typed and what the files hold (cli_explain.c).
 */
#ifndef PERFDIFF_CLI_EXPLAIN_H
#define PERFDIFF_CLI_EXPLAIN_H

#include <stddef.h>

#include "cli_common.h"

/*
 * The filter options of argv (--comm, --pid, --tid, --cpu, --dso, --time;
 * for `side` 0 or 1 also --base-... or --new-...; -1: the common ones) as
 * "--comm=a --time=1,2" into buf (n bytes, cut to fit); its length, 0
 * when none was given.
 */
size_t cli_filters_given(int argc, char **argv, int side, char *buf, size_t n);

/* "cycles:P (1200 samples), instructions (1190 samples)": the events of
 * `p` with samples, into buf; its length, 0 when it has none. */
size_t cli_events_note(const pd_profile *p, char *buf, size_t n);

/* The samples of every event of `p`. */
uint64_t cli_profile_samples(const pd_profile *p);

#endif
