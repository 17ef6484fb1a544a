/*
 * The `script` subcommand: every sample with its call chain named, in the
 * layout of `perf script` or as JSON lines, written by the library
 * (perfdiff/output.h's pd_script_writer).  script.c parses the options,
 * filters samples and drives the session.
 */
#ifndef PERFDIFF_CLI_SCRIPT_H
#define PERFDIFF_CLI_SCRIPT_H

#include <stdio.h>

#include "cli_common.h"

int cmd_script(int argc, char **argv);
void script_usage(FILE *f);

#endif
