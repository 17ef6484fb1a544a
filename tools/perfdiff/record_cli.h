/*
 * The `record` subcommand: a live recording through the library's BPF
 * sampler (perfdiff/record.h) of a command and its children, of pids, or
 * of the whole machine, written as pprof (or perf.data).  record.c parses
 * the options, starts the command and waits; the library does the rest.
 */
#ifndef PERFDIFF_RECORD_CLI_H
#define PERFDIFF_RECORD_CLI_H

#include <stdio.h>

int cmd_record(int argc, char **argv);
void record_usage(FILE *f);

#endif
