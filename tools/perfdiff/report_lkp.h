/*
 * `perfdiff report --format=lkp`: the kernel test robot's perf-profile
 * keys (perfdiff/report.h), one "key: value" line each, exactly as the
 * robot's parser prints them for the same perf.data.
 *
 * For report.c (the report subcommand), how to call this:
 *   - build the profile with the robot's reading of the file:
 *         pd_profile_options_init(&o);
 *         ... the user's filters, symfs, kallsyms ...
 *         pd_lkp_profile_options(&o);   // perf-compat lookup, no inline,
 *                                       // suffixes kept, -U
 *     and add the files in command-line order (run i = file i);
 *   - fill report_lkp_options: `event` = PD_LKP_ALL_EVENTS unless the user
 *     chose one (--event NAME → pd_profile_find_event()), since the robot
 *     adds every event's rows under the first event's name; `mean` for
 *     --mean; `files` = the paths, for the per-file headers;
 *   - call report_lkp(stdout, p, &lo, &err); on a negative return print
 *     err (cli_print_pd_error) and exit CLI_EXIT_ERROR.
 *
 * Layout: one file → only the key lines (the robot's output verbatim);
 * several files → a "# <path>" line before each file's keys; --mean → a
 * "# mean of N runs" line, then the means (a key missing in a run counts
 * as 0 there, as in the robot's compare table).
 */
#ifndef PERFDIFF_CLI_REPORT_LKP_H
#define PERFDIFF_CLI_REPORT_LKP_H

#include <stdbool.h>
#include <stdio.h>

#include "perfdiff/report.h"

typedef struct report_lkp_options {
	size_t event;             /* event index, or PD_LKP_ALL_EVENTS (the robot) */
	bool mean;                /* one block of means over the runs */
	const char *const *files; /* name of run i, for the headers; may be NULL */
	size_t nfiles;
} report_lkp_options;

/* Print the keys of `p` to `out`.  0, or a library error (in `err`). */
int report_lkp(FILE *out, const pd_profile *p, const report_lkp_options *o,
	       pd_error *err);

#endif
