/*
 * One parser for every command, driven by the option table
 * (cli_opttab.h).  A command describes where values go — its cli_io,
 * its session or profile options, its own struct and setter — and what
 * an operand and "--" mean to it; cli_parse() does the rest: spellings
 * ("--opt=V", "--opt V"), checking a value against its kind, words and
 * range, the errors, "did you mean", --help and diff's --base-/--new-.
 *
 *     cli_parser p = { .cmd = "dump", .io = &o.io, .own = &o,
 *                      .set = dump_set, .operand = add_path };
 *     int st;
 *     if (cli_parse_stop(cli_parse(&p, argc, argv), dump_usage, &st))
 *         return st;   // --help printed, or a usage error said
 */
#ifndef PERFDIFF_CLI_PARSE_H
#define PERFDIFF_CLI_PARSE_H

#include "cli_io.h"
#include "cli_opttab.h"
#include "cli_profile_opts.h"

/* A value as its kind makes it: the text always, and the parsed number
 * or the index of the word. */
typedef struct cli_value {
	const char *str;
	double num;               /* CLI_DOUBLE */
	unsigned long long count; /* CLI_UINT */
	int word;                 /* CLI_WORD: index in the row's words */
} cli_value;

/* A setter: 0, or -1 after printing a usage error for command `cmd`. */
typedef int (*cli_setter)(void *target, const cli_optdef *o, const cli_value *v,
			  const char *cmd);

typedef struct cli_parser {
	const char *cmd;          /* "dump", ... */
	cli_io *io;               /* CLI_PART_IO */
	pd_session_options *so;   /* CLI_PART_SESSION */
	cli_profile_opts *po;     /* CLI_PART_PROFILE */
	void *own;                /* CLI_PART_OWN, and the callbacks' */
	cli_setter set;           /* the command's setter of CLI_PART_OWN */
	/* a FILE (an operand or -i): 0, or -1 after a usage error */
	int (*operand)(void *own, const char *arg);
	/* "--": NULL ends the options; else 0, or -1 after a usage error */
	int (*dashdash)(void *own);
	/* diff's --base-OPT / --new-OPT: kept for cli_apply() later; 0, or
	 * -1 (out of memory, said) */
	int (*side)(void *own, int side, const cli_optdef *o, const char *val);
} cli_parser;

typedef enum cli_parse_result {
	CLI_PARSED,        /* go on with the work */
	CLI_PARSED_HELP,   /* --help reached: print the help, exit 0 */
	CLI_PARSE_FAILED,  /* a usage error, already printed: exit 2 */
} cli_parse_result;

cli_parse_result cli_parse(const cli_parser *p, int argc, char **argv);

/* A usage error of options that do not go together, found after
 * cli_parse(): printed for command `cmd`; CLI_PARSE_FAILED. */
cli_parse_result cli_parse_refuse(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Whether the command stops after parsing: for --help (printed here with
 * `usage`, *status CLI_EXIT_OK) and a usage error (*status
 * CLI_EXIT_ERROR); false to go on with the work. */
bool cli_parse_stop(cli_parse_result r, void (*usage)(FILE *f), int *status);

/* Check `val` as option `o` takes it and hand it to its setter (a side's
 * option after the sides are split): 0, or -1 after the error. */
int cli_apply(const cli_parser *p, const cli_optdef *o, const char *val);

#endif
