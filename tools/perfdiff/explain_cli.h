/*
 * The `explain` subcommand: a kernel test robot's mail (or its result
 * directories) read by the library (perfdiff/robot.h), each column of
 * each table compared with its base by the diff engine on the trees its
 * keys imply (pd_diff_new_lkp()), and the explanations written by the
 * library (pd_explain_write()).  explain.c parses the options.
 */
#ifndef PERFDIFF_EXPLAIN_CLI_H
#define PERFDIFF_EXPLAIN_CLI_H

#include <stdio.h>

int cmd_explain(int argc, char **argv);
void explain_usage(FILE *f);

#endif
