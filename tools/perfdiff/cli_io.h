/*
 * What every command does alike around its work: where its output goes
 * (-o FILE), how much it says on standard error (-q, -v), whether a
 * symbolizer warning fails it (--strict), whether its text is coloured
 * (--color, NO_COLOR), and how the warnings of the files it read are
 * summed up and turned into its exit status (cli_warn.c).  Each command
 * keeps one cli_io in its own options struct:
 *
 *     cli_io io;
 *     cli_io_init(&io, "report", true);
 *     ...in the option loop: m = cli_io_parse(&io, argc, argv, &i)...
 *     if (cli_io_open(&io) < 0) return CLI_EXIT_ERROR;
 *     ...write to io.out, cli_warns_add() every warning...
 *     cli_warns_print(&warns, &io);
 *     st = cli_io_close(&io) < 0 ? CLI_EXIT_ERROR : cli_warns_status(&warns, &io);
 */
#ifndef PERFDIFF_CLI_IO_H
#define PERFDIFF_CLI_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_common.h"

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
} cli_io;

void cli_io_init(cli_io *io, const char *cmd, bool takes_color);

/*
 * argv[*i] as -q/--quiet, -v/--verbose, --strict, --progress,
 * --no-progress, -o/--output FILE or
 * (when the command takes it) --color=WHEN; *i advances past a separate
 * value.  1: taken; 0: not one of these; -1: a usage error, printed.
 */
int cli_io_parse(cli_io *io, int argc, char **argv, int *i);

/* Open the output (-o FILE, or standard output).  0, or -1 after the
 * error is printed. */
int cli_io_open(cli_io *io);

/* Whether output in format `f` is coloured: text only, --color=always,
 * or auto on a terminal without NO_COLOR (any value but empty) and not
 * TERM=dumb. */
bool cli_io_colored(const cli_io *io, pd_format f);

/* Flush the output and close it when it is a file.  0, or -1 after the
 * error is printed (a full disk, a closed pipe). */
int cli_io_close(cli_io *io);

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
 * several files give is one line naming them.  `file` must outlive `w`.
 */
void cli_warns_add(cli_warns *w, const char *file, pd_warning_kind kind, const char *text);

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
