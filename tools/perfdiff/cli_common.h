/*
 * What every subcommand shares: exit codes, messages on stderr, option
 * matching, output formats and opening a reader.
 */
#ifndef PERFDIFF_CLI_COMMON_H
#define PERFDIFF_CLI_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "perfdiff/perfdiff.h"

#define CLI_PROG "perfdiff"

/* Exit statuses, as documented in `perfdiff --help`. */
enum cli_exit {
	CLI_EXIT_OK = 0,       /* read to the end, no warnings */
	CLI_EXIT_WARNINGS = 1, /* read to the end (or a cut), with warnings */
	CLI_EXIT_ERROR = 2,    /* usage error, open failure, corrupt input */
};

/* "perfdiff: <message>\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "perfdiff: warning: <message>\n" on stderr. */
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "perfdiff: <message>\n" on stderr: a fact that is neither an error nor
 * a warning (what -v would list). */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `rc` of a pd_*_options_init() of the struct `what`: 0, or -1 after
 * saying that the libperfdiff perfdiff runs with refuses the options
 * version perfdiff was built with (another build of the library under the
 * same SONAME), which nothing then can be asked of. */
int cli_options_init_rc(int rc, const char *what);

/* Print a usage error and the hint "Try 'perfdiff <cmd> --help'."; returns
 * CLI_EXIT_ERROR.  `cmd` may be NULL for the top level. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- cli_options.c: every command's options, from the table ---- */

/* `perfdiff --list-options CMD`: one "NAME<tab>ARG" line per option of
 * `cmd`, for the shell completion; an exit status. */
int cli_list_options(const char *cmd, FILE *f);

/* ---- cli_suggest.c: did you mean ---- */

/* The one of `names` nearest to word[0..len) when it is near enough to be
 * what was meant (or `word` abbreviates it alone), else NULL. */
const char *cli_closest(const char *word, size_t len, const char *const *names, size_t n);

/* "unknown option 'ARG'" for command `cmd`, with the nearest option of
 * the command when there is one; returns CLI_EXIT_ERROR. */
int cli_unknown_option(const char *cmd, const char *arg);

/* Text through the library's writer (perfdiff/output.h), for `dump`'s
 * lines; errors stay in the writer until pd_writer_flush(). */
static inline void cli_puts(pd_writer *w, const char *s)
{
	pd_writer_write(w, s, strlen(s));
}

static inline void cli_putc(pd_writer *w, char c)
{
	pd_writer_write(w, &c, 1);
}

/* A key and its value, through the library's one JSON writer. */
static inline void cli_json_u64(pd_writer *w, const char *k, uint64_t v)
{
	pd_json_key(w, k);
	pd_json_u64(w, v);
}

static inline void cli_json_i64(pd_writer *w, const char *k, int64_t v)
{
	pd_json_key(w, k);
	pd_json_i64(w, v);
}

static inline void cli_json_str(pd_writer *w, const char *k, const char *v)
{
	pd_json_key(w, k);
	pd_json_string(w, v);
}

static inline void cli_json_hex(pd_writer *w, const char *k, uint64_t v)
{
	pd_json_key(w, k);
	pd_json_hex(w, v);
}

static inline void cli_json_bool(pd_writer *w, const char *k, bool v)
{
	pd_json_key(w, k);
	pd_json_bool(w, v);
}

static inline void cli_json_null(pd_writer *w, const char *k)
{
	pd_json_key(w, k);
	pd_json_null(w);
}

/* ---- inputs ---- */

/* The input when none is given, as perf has it. */
#define CLI_DEFAULT_INPUT "perf.data"

/* No FILE given: ./perf.data, as perf reads it; 0 with *path set, or -1
 * after a usage error that names it when it is not there. */
int cli_default_input(const char *cmd, const char **path);

/* The comparison when none is given, as perf diff has it: the recording
 * before the last one (perf record renames it) and the last one. */
#define CLI_DEFAULT_BASE "perf.data.old"

/* Whether ./perf.data.old and ./perf.data are both there: a comparison
 * without FILEs compares them, as `perf diff` does. */
bool cli_default_pair(void);

/* "file", "pipe", "directory". */
const char *cli_mode_name(pd_input_mode m);

/*
 * Print a library error as "perfdiff: <message>", adding the path in front
 * when the message does not already name it, so the user always learns
 * which input failed.
 */
void cli_print_pd_error(const char *path, const pd_error *err);

/* Whether the file at `path` (not standard input) starts as a pprof
 * profile does (pd_pprof_detect()). */
bool cli_is_pprof(const char *path);

/*
 * Open `path` ("-" = standard input) with reader `flags`.  On failure the
 * error is in `err` (and not printed) and *out is NULL.
 */
int cli_open_reader(const char *path, unsigned flags, const pd_reader_options *base,
		    pd_reader **out, pd_error *err);

#endif
