/*
 * The `report` subcommand: one or more perf.data files folded into a
 * profile (libperfdiff's profile.h) and written by the library
 * (perfdiff/output.h) as a children/self table with call chains, JSON,
 * CSV, collapsed stacks or the robot's keys, or as pprof (report_pprof.c).
 * report.c parses the options and builds the profile.
 */
#ifndef PERFDIFF_CLI_REPORT_H
#define PERFDIFF_CLI_REPORT_H

#include <stdio.h>

#include "cli_common.h"
#include "cli_io.h"

int cmd_report(int argc, char **argv);
void report_usage(FILE *f);

/* report_pprof.c: --format=pprof. */
typedef struct report_pprof_args {
	const char *const *paths;
	size_t npaths;
	const pd_profile_options *popts;
	const char *out_path;        /* -o: a file, DIR/ or NULL (standard output) */
	bool merge;                  /* --merge: one profile of every FILE */
	const char *const *comments; /* the command line, for the export */
	size_t ncomments;
	cli_warns *warns;
} report_pprof_args;

/* Write the pprof export(s); the exit status. */
int report_pprof(const report_pprof_args *a);

#endif
