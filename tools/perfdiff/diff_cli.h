/*
 * The `diff` subcommand: two sets of perf.data runs folded into two
 * profiles, compared by libperfdiff's diff engine (perfdiff/diff.h), and
 * written by the library (perfdiff/output.h) as the robot's compare table
 * with explained shifts, that table alone (--format=lkp), JSON
 * (docs/diff-json.md) or CSV; or, without the diff engine, as the
 * two-column collapsed stacks of a differential flame graph
 * (--format=folded).  diff.c parses the options and builds the profiles;
 * diff_warn.c holds the warnings of the files read.
 */
#ifndef PERFDIFF_CLI_DIFF_H
#define PERFDIFF_CLI_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "perfdiff/perfdiff.h"

int cmd_diff(int argc, char **argv);
void diff_usage(FILE *f);

/* Warnings of the files read, held so that one text that several files
 * give is printed once, naming them (diff_warn.c). */
typedef struct diff_warning diff_warning;
typedef struct diff_warnings {
	diff_warning *v;
	size_t n, cap;
} diff_warnings;

void diff_warnings_init(diff_warnings *w);
/* Hold `warning`, a pd_profile_warning() of `file` ("FILE: text"); `file`
 * must outlive `w`. */
void diff_warnings_add(diff_warnings *w, const char *file, const char *warning);
/* Print the warnings held (as cli_warning()) and forget them. */
void diff_warnings_flush(diff_warnings *w);
/* Forget the warnings held without printing them. */
void diff_warnings_free(diff_warnings *w);

#endif
