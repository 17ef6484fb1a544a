/*
 * The progress line of a long command (cli_progress.c): on a terminal,
 * one line on standard error that says how much of the input has been
 * read, how fast samples go by and, in a comparison, which side is where.
 * It is fed by the reader's progress callback (pd_reader_options) and
 * erased before the command prints anything else on standard error.
 *
 *     cli_progress prog;
 *     cli_progress_start(&prog, &io, 2, (const char *[]){ "base", "new" });
 *     side_opts.reader = cli_progress_reader(&prog, 0);  // NULL when off
 *     ...read...
 *     cli_progress_stop(&prog);
 */
#ifndef PERFDIFF_CLI_PROGRESS_H
#define PERFDIFF_CLI_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli_io.h"
#include "perfdiff/reader.h"

#define CLI_PROGRESS_SIDES 2

typedef struct cli_progress cli_progress;

typedef struct cli_progress_side {
	cli_progress *p;
	const char *label;      /* "base", "new"; NULL: the file's name */
	char path[4096];        /* the file being read (the reader's goes with it) */
	const pd_reader *reader; /* reading it; only compared, never followed */
	uint64_t bytes, total;  /* of that file */
	uint64_t samples;       /* of the side's files read before it */
	uint64_t file_samples;  /* of that file so far */
	pd_reader_options ropts;
} cli_progress_side;

struct cli_progress {
	bool started;           /* between start and stop */
	bool on;                /* a terminal, and not --no-progress or -q */
	bool eager;             /* --progress: at once, not after a second */
	pthread_mutex_t lock;   /* the sides are read on two threads */
	double start, last;     /* seconds (CLOCK_MONOTONIC) */
	size_t shown;           /* characters of the line on screen; 0: none */
	int nsides;
	cli_progress_side side[CLI_PROGRESS_SIDES];
};

/* Decide from `io` (--progress, --no-progress, -q) and whether standard
 * error is a terminal; `labels` names each side (NULL: one input). */
void cli_progress_start(cli_progress *p, const cli_io *io, int nsides,
			const char *const *labels);

/* Reader options with the callback for side `s`, or NULL when there is no
 * progress line (the library's defaults then). */
const pd_reader_options *cli_progress_reader(cli_progress *p, int s);

/* Erase the line, if drawn; again later: nothing. */
void cli_progress_clear(cli_progress *p);

/* The command is done reading: erase the line for good.  Again, or
 * after a start that failed: nothing. */
void cli_progress_stop(cli_progress *p);

#endif
