/*
 * The `report` subcommand: one or more perf.data files folded into a
 * profile (libperfdiff's profile.h) and written by the library
 * (perfdiff/output.h) as a children/self table with call chains, JSON,
 * CSV, collapsed stacks or the robot's keys.  report.c parses the options
 * and builds the profile.
 */
#ifndef PERFDIFF_CLI_REPORT_H
#define PERFDIFF_CLI_REPORT_H

#include <stdio.h>

#include "cli_common.h"

int cmd_report(int argc, char **argv);
void report_usage(FILE *f);

#endif
