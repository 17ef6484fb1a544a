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

/*
 * Match a long option that takes a value, as "--name=value" or "--name
 * value" (then *i advances past the value).  Returns 1 on a match with
 * *value set, 0 when argv[*i] is not this option, -1 when the value is
 * missing (nothing printed).
 */
int cli_opt_value(int argc, char **argv, int *i, const char *name,
		  const char **value);

/* One entry of a table of options that take a value; `kind` is the
 * command's own enum. */
typedef struct cli_value_opt {
	const char *name;
	int kind;
} cli_value_opt;

/*
 * Match argv[*i] against the `n` options of `opts` (as cli_opt_value).
 * 1: matched, *kind and *value set; 0: none of them; -1: the value is
 * missing, a usage error already printed for command `cmd`.
 */
int cli_value_opt_match(const cli_value_opt *opts, size_t n, const char *cmd,
			int argc, char **argv, int *i, int *kind, const char **value);

/*
 * cli_value_opt_match as a command's last try for argv[*i]: no match is a
 * usage error too ("unknown option").  1: matched, *kind and *value set;
 * -1: a usage error, already printed for command `cmd`.
 */
int cli_value_opt_last(const cli_value_opt *opts, size_t n, const char *cmd,
		       int argc, char **argv, int *i, int *kind, const char **value);

/* ---- cli_options.c: every command's options by name ---- */

/* An option and its value: NULL for a flag, "a|b|c" for one of these
 * words, "FILE" or "DIR" for a path, else what the value is ("N"). */
typedef struct cli_optname {
	const char *name;
	const char *arg;
} cli_optname;

typedef struct cli_optgroup {
	const cli_optname *v;
	size_t n;
} cli_optgroup;

/* The option groups of command `cmd` ("dump", ...; NULL or an unknown
 * name: the top level's -h, -V) in *out; returns their number. */
size_t cli_command_options(const char *cmd, const cli_optgroup **out);

/* The option of `cmd` named name[0..len), or NULL. */
const cli_optname *cli_find_option(const char *cmd, const char *name, size_t len);

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

/* A bit per pd_format, for the formats a command takes. */
#define CLI_FORMAT_BIT(f) (1u << (f))

/*
 * The value of --format, parsed once into the library's pd_format
 * (output.h) for every command: 0 with *out set when it names one of the
 * formats in `allowed`, else -1 after a usage error for command `cmd`
 * that lists `names` ("text or json").
 */
int cli_format_parse(const char *cmd, const char *val, unsigned allowed, const char *names,
		     pd_format *out);

/*
 * --format=text|json, for the commands that have just these two (`dump`,
 * `script`).  1: taken, *out set; 0: argv[*i] is not --format; -1: a
 * usage error, already printed for command `cmd`.
 */
int cli_format_opt(const char *cmd, int argc, char **argv, int *i, pd_format *out);

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

/*
 * -i FILE, --input=FILE (perf's spelling of an input) as argv[*i]: 1 with
 * *path set and *i past a separate value; 0: not it; -1: the value is
 * missing, a usage error printed for `cmd`.
 */
int cli_input_opt(const char *cmd, int argc, char **argv, int *i, const char **path);

/* No FILE given: ./perf.data, as perf reads it; 0 with *path set, or -1
 * after a usage error that names it when it is not there. */
int cli_default_input(const char *cmd, const char **path);

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
