/*
 * What every command does alike around its work: where its output goes
 * (-o FILE, written whole or not at all: cli_outfile.c), how much it says on standard error (-q, -v), whether a
 * symbolizer warning fails it (--strict), whether its text is coloured
 * (--color, NO_COLOR), and how the warnings of the files it read are
 * summed up and turned into its exit status (cli_warn.c).  Each command
 * keeps one cli_io in its own options struct:
 *
 *     cli_io io;
 *     cli_io_init(&io, "report", true);
 *     ...cli_parse() hands it -o, -q, -v... (cli_io_set())...
 *     if (cli_io_open(&io, paths, npaths) < 0) return CLI_EXIT_ERROR;
 *     ...write to io.out, cli_warns_add() every warning...
 *     cli_warns_print(&warns, &io);
 *     st = cli_io_close(&io, failed ? CLI_EXIT_ERROR : cli_warns_status(&warns, &io));
 */
#ifndef PERFDIFF_CLI_IO_H
#define PERFDIFF_CLI_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_common.h"
#include "cli_opttab.h"

typedef enum cli_color {
	CLI_COLOR_AUTO = 0,   /* on a terminal, unless NO_COLOR or TERM=dumb */
	CLI_COLOR_ALWAYS,
	CLI_COLOR_NEVER,
} cli_color;

/* -q: errors only; -v: every warning; else a summary. */
enum { CLI_QUIET = -1, CLI_NORMAL = 0, CLI_VERBOSE = 1 };

typedef struct cli_io {
	const char *cmd;        /* for messages */
	const char *out_path;   /* -o FILE; NULL: standard output */
	FILE *out;              /* set by cli_io_open() */
	int verbosity;          /* CLI_QUIET, CLI_NORMAL or CLI_VERBOSE */
	bool strict;            /* --strict: any warning makes the status 1 */
	bool takes_color;       /* the command has --color */
	cli_color color;
	int progress;           /* --progress 1, --no-progress -1, else 0 */
	pd_outfile *file;       /* -o FILE while it is written (cli_outfile.c) */
} cli_io;

void cli_io_init(cli_io *io, const char *cmd, bool takes_color);

/*
 * The setter of the option table's CLI_PART_IO rows (cli_opttab.h):
 * -q/--quiet, -v/--verbose, --strict, --progress, --no-progress,
 * -o/--output FILE and --color=WHEN, their value already checked by the
 * parser (cli_parse.c).  Returns 0.
 */
int cli_io_set(cli_io *io, const cli_optdef *o, const char *val);

/*
 * Open the output: standard output, or -o FILE unless FILE is one of the
 * `n` `inputs` (the same file, by device and inode: refused before
 * anything is opened).  FILE is written through a temporary file and
 * changes only in cli_io_close().  0, or -1 after the error is printed.
 */
int cli_io_open(cli_io *io, const char *const *inputs, size_t n);

/* Whether output in format `f` is coloured: text only, --color=always,
 * or auto on a terminal without NO_COLOR (any value but empty) and not
 * TERM=dumb. */
bool cli_io_colored(const cli_io *io, pd_format f);

/*
 * Finish the output of a command that ends with exit status `status`:
 * -o FILE is renamed into place, unless `status` is CLI_EXIT_ERROR, when
 * FILE is left as it was and a line says it was not written.  Returns
 * `status`, or CLI_EXIT_ERROR after printing why the output could not be
 * written (a full disk, a closed pipe).
 */
int cli_io_close(cli_io *io, int status);

/* ---- cli_outfile.c: output files a failure or a signal cannot hurt ---- */

/* 0 when writing `path` replaces none of the `n` `inputs` ("-" is
 * standard input); else -1 after a line naming both. */
int cli_out_check(const char *path, const char *const *inputs, size_t n);

/*
 * Start writing `path` through a temporary file (pd_outfile_open()),
 * removed if SIGINT, SIGTERM or SIGHUP ends the process, when the line
 * "perfdiff: NOTE: output not written (interrupted)" is printed (`note`
 * NULL: none, for the files of one output whose first file says it).
 * The first call sets that up: call it before starting threads.  NULL
 * after printing the error.
 */
pd_outfile *cli_out_open(const char *path, const char *note);

/* Rename `f` into place and free it: 0, or -1 after printing the error
 * (its target is then as it was). */
int cli_out_commit(pd_outfile *f);

/* Remove `f`'s temporary file and free it, its target as it was; with a
 * `note`, "perfdiff: NOTE: output not written".  NULL `f` is allowed. */
void cli_out_abort(pd_outfile *f, const char *note);

/* ---- cli_warn.c: the warnings of the files a command read ---- */

/* Above this share of the samples recorded, samples the kernel lost make
 * the input one that lost data (perf report warns above it, too). */
#define CLI_LOST_SHARE 0.05

typedef struct cli_warn_entry cli_warn_entry;

typedef struct cli_warns {
	cli_warn_entry *v;
	size_t n, cap;
	size_t count;           /* warnings added, each file's counted (not
	                           those of files used unverified) */
	bool data_lost;         /* a PD_WARN_DATA_LOST warning was added */
} cli_warns;

void cli_warns_init(cli_warns *w);

/*
 * Hold warning `text` of `kind` about input `file` (NULL: none).  A text
 * that starts with "FILE: " has that prefix taken off, so that one text
 * several files give is one line naming them.  `file` is copied.
 */
void cli_warns_add(cli_warns *w, const char *file, pd_warning_kind kind, const char *text);

/* The library's warning sink (pd_warn_fn, perfdiff/common.h) for the
 * `warn` of reader, session and profile options: cli_warns_add() into
 * the cli_warns `ctx`, from the thread that reads into it. */
void cli_warns_sink(void *ctx, pd_warning_kind kind, const char *path, const char *msg);

/* Everything `src` holds added to `dst` (counts and data lost too), in
 * its order, and `src` emptied: the warnings a thread held for the main
 * one (diff's side B). */
void cli_warns_merge(cli_warns *dst, cli_warns *src);

/* The warning about samples the kernel lost while recording `file`:
 * `lost` of them, `samples` read; of kind PD_WARN_DATA_LOST above
 * CLI_LOST_SHARE.  Nothing when none was lost. */
void cli_warns_lost(cli_warns *w, const char *file, uint64_t lost, uint64_t samples);

/*
 * Print the warnings held (nothing with -q; all with -v; else the first
 * few of each kind and a line counting them by kind, and of the files
 * used without a build-id check only a line counting them) and forget
 * them.
 */
void cli_warns_print(cli_warns *w, const cli_io *io);

/* The exit status the warnings give: CLI_EXIT_WARNINGS when data was
 * lost, or with --strict when there was any (files used without a
 * build-id check are none); else CLI_EXIT_OK. */
int cli_warns_status(const cli_warns *w, const cli_io *io);

void cli_warns_free(cli_warns *w);

#endif
