/*
 * The options that say how perf.data files become a profile — which
 * samples count (filters, --time), how frames are named (--perf-compat,
 * --no-inline, -U, ...), where code is looked up (--symfs, --kallsyms,
 * ...) and which event is meant — shared by every command that builds a
 * pd_profile (`report`, `diff`), so that they accept the same spellings
 * and print the same errors.  Their session part (naming and lookup) is
 * also `script`'s: cli_session_set() below.  The parser (cli_parse.h)
 * hands these setters the values of the option table's rows.
 *
 *     cli_profile_opts po;
 *     if (cli_profile_opts_init(&po) < 0)       // already reported
 *         return CLI_EXIT_ERROR;
 *     cli_parser p = { ..., .po = &po, .so = &po.sopts };
 *     ...cli_parse(&p, argc, argv)...
 *     if (cli_profile_opts_finish(&po) < 0)    // po.popts ready
 *         return CLI_EXIT_ERROR;               // already reported
 *     ...
 *     cli_profile_opts_free(&po);
 */
#ifndef PERFDIFF_CLI_PROFILE_OPTS_H
#define PERFDIFF_CLI_PROFILE_OPTS_H

#include <stdio.h>

#include "cli_common.h"
#include "cli_opttab.h"
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

struct cli_value;

/*
 * The setter of the option table's CLI_PART_PROFILE rows: filters,
 * --event, --time, --perf-compat, --keep-suffixes, -U.  A list adds to
 * what was given before; a side's options (diff's --base-/--new-) go to a
 * copy of the common ones (cli_profile_opts_copy(): 0, or -1 out of
 * memory), so that a side's list adds to the common list and its path
 * replaces the common one.  0, or -1 after printing the error for `cmd`.
 */
int cli_profile_set(cli_profile_opts *po, const cli_optdef *o, const struct cli_value *v,
		    const char *cmd);
int cli_profile_opts_copy(cli_profile_opts *dst, const cli_profile_opts *src);

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

/*
 * The setter of the CLI_PART_SESSION rows, for every command that names
 * frames (`script` too, which builds no profile): --no-inline,
 * --no-demangle, --max-stack, --symfs, --kallsyms, --vmlinux,
 * --buildid-dir, --jit-dir, --unwinder, and script's --perf-compat,
 * which sets PD_SESSION_PERF_COMPAT alone: a profile's --perf-compat
 * (cli_profile_set()) also drops inline frames, as perf report shows none,
 * while perf script's own inline frames are left to --no-inline.
 * --symbols-from adds to so->symbols_from, an array `so` then owns
 * (cli_session_opts_free()).  0, or -1 out of memory (said).
 */
int cli_session_set(pd_session_options *so, const cli_optdef *o, const struct cli_value *v,
		    const char *cmd);
/* Free what cli_session_set() allocated in `so` (the --symbols-from list). */
void cli_session_opts_free(pd_session_options *so);

#endif
