/*
 * The options that say how perf.data files become a profile — which
 * samples count (filters, --time), how frames are named (--perf-compat,
 * --no-inline, -U, ...), where code is looked up (--symfs, --kallsyms,
 * ...) and which event is meant — shared by every command that builds a
 * pd_profile (`report`, `diff`), so that they accept the same spellings
 * and print the same errors.  Their session part (naming and lookup) is
 * also `script`'s: cli_session_opts_parse() below.
 *
 *     cli_profile_opts po;
 *     if (cli_profile_opts_init(&po) < 0)       // already reported
 *         return CLI_EXIT_ERROR;
 *     for (int i = 1; i < argc; i++) {
 *         ...the command's own options...
 *         int m = cli_profile_opts_parse(&po, "report", argc, argv, &i);
 *         if (m < 0) return CLI_EXIT_ERROR;   // already reported
 *         if (m > 0) continue;
 *         ...unknown option...
 *     }
 *     if (cli_profile_opts_finish(&po) < 0)    // po.popts ready
 *         return CLI_EXIT_ERROR;               // already reported
 *     ...
 *     cli_profile_opts_free(&po);
 */
#ifndef PERFDIFF_CLI_PROFILE_OPTS_H
#define PERFDIFF_CLI_PROFILE_OPTS_H

#include <stdio.h>

#include "cli_common.h"
#include "perfdiff/profile.h"
#include "perfdiff/session.h"

enum { CPO_COMM, CPO_PID, CPO_TID, CPO_CPU, CPO_DSO, CPO_NLISTS };

typedef struct cli_profile_opts {
	pd_profile_options popts;  /* filled by parse and finish; popts.session is &sopts */
	pd_session_options sopts;
	const char *event;         /* --event NAME, or NULL */
	char *lists[CPO_NLISTS];   /* repeated list options joined with ',' */
	/* the lists parsed by cli_profile_opts_finish(), popts points at them */
	char **names[CPO_NLISTS];  /* CPO_COMM, CPO_DSO: copies of the names */
	uint32_t *ids[CPO_NLISTS]; /* CPO_PID, CPO_TID, CPO_CPU */
	size_t nvalues[CPO_NLISTS];
} cli_profile_opts;

/* pd_profile_options_init() and no event, no lists: 0, or -1 after the
 * error (cli_options_init_rc()); freeing `po` is right either way. */
int cli_profile_opts_init(cli_profile_opts *po);

/*
 * Try argv[*i] as one of the shared options ("--opt=V" or "--opt V", then
 * *i advances past V).  1: taken; 0: not one of them (nothing changed);
 * -1: a usage error or out of memory, already printed for command `cmd`
 * (the command exits with CLI_EXIT_ERROR).
 */
int cli_profile_opts_parse(cli_profile_opts *po, const char *cmd, int argc, char **argv,
			   int *i);

/*
 * The last step of a profile command's option loop (`report`, `diff`):
 * argv[*i] is one of the shared options, else one of the command's own
 * value options `opts`, else unknown.  1: a shared option, taken;
 * 2: one of `opts`, *kind and *value set; -1: a usage error (unknown
 * option included) or out of memory, already printed for `cmd`.
 */
int cli_profile_opts_or_value(cli_profile_opts *po, const cli_value_opt *opts, size_t n,
			      const char *cmd, int argc, char **argv, int *i, int *kind,
			      const char **value);

/*
 * Options per side of a comparison (`diff`): "--base-OPT=V" and
 * "--new-OPT=V" (or with V as the next argument) for OPT one of comm,
 * pid, tid, cpu, dso, time, symfs, kallsyms, vmlinux, buildid-dir and
 * jit-dir.  cli_side_opt() recognises argv[*i] as one: 1 with *side (0
 * base, 1 new) and *opt the option without its prefix ("--kallsyms=V",
 * malloc'd), *i past its value; 0: not one; -1: a usage error or out of
 * memory, already printed.  Each side's options are then a copy of the
 * common ones (cli_profile_opts_copy(): 0, or -1 out of memory) with its
 * own applied over them (cli_profile_opts_apply(), as
 * cli_profile_opts_parse() returns): a list adds to the common list, a
 * path replaces the common one.
 */
int cli_side_opt(const char *cmd, int argc, char **argv, int *i, int *side, char **opt);
int cli_profile_opts_copy(cli_profile_opts *dst, const cli_profile_opts *src);
int cli_profile_opts_apply(cli_profile_opts *po, const char *cmd, char *opt);

/* Parse the joined lists into the filter arrays of popts.  Call once all
 * options are parsed.  0, or -1 after printing the error (a malformed
 * list, out of memory). */
int cli_profile_opts_finish(cli_profile_opts *po);

/* Give every session of the command one pd_symcache (several files of
 * one machine: kallsyms and debug files read once).  Without memory for
 * it the sessions go on alone. */
void cli_profile_opts_share_symbols(cli_profile_opts *po);

/* Also frees the pd_symcache: call after every profile is freed. */
void cli_profile_opts_free(cli_profile_opts *po);

/* The help lines of the shared options except --event, whose meaning each
 * command words itself: from --keep-suffixes to --time. */
void cli_profile_opts_usage(FILE *f);

/*
 * The session part alone, for a command that reads samples without
 * building a profile (`script`): --no-inline, --perf-compat, --no-demangle,
 * --max-stack, --symfs, --kallsyms, --vmlinux, --buildid-dir, --jit-dir,
 * --unwinder, into `so`.  Here --perf-compat sets PD_SESSION_PERF_COMPAT
 * alone: a profile's --perf-compat also drops inline frames, as perf
 * report shows none, while perf script's own inline frames are left to
 * --no-inline.  Returns as cli_profile_opts_parse.
 */
int cli_session_opts_parse(pd_session_options *so, const char *cmd, int argc,
			   char **argv, int *i);

/* The help lines of cli_session_opts_parse's options, from --no-inline to
 * --unwinder, without --perf-compat, whose meaning differs (see there):
 * each command words that one itself. */
void cli_session_opts_usage(FILE *f);

/* The help lines of --comm, --pid, --tid and --cpu, which `script` filters
 * by itself (they mean the same there). */
void cli_filter_opts_usage(FILE *f);

#endif
