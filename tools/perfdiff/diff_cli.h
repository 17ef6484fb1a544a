/*
 * The `diff` subcommand: two sets of perf.data runs folded into two
 * profiles, compared by libperfdiff's diff engine (perfdiff/diff.h), and
 * written by the library (perfdiff/output.h) as the robot's compare table
 * with explained shifts, that table alone (--format=lkp), JSON
 * (docs/diff-json.md) or CSV; or, without the diff engine, as the
 * two-column collapsed stacks of a differential flame graph
 * (--format=folded).  diff.c parses the options and builds the profiles;
 * the warnings of the files read are summed up by cli_warn.c.
 */
#ifndef PERFDIFF_CLI_DIFF_H
#define PERFDIFF_CLI_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "perfdiff/perfdiff.h"

int cmd_diff(int argc, char **argv);
void diff_usage(FILE *f);

/* `perfdiff tui`: the same options and files (or one FILE), shown in a
 * terminal UI (tui_cli.h). */
int cmd_tui(int argc, char **argv);
void tui_usage(FILE *f);

#endif
