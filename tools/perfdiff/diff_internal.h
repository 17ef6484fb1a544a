/*
 * The diff command's state and steps, shared by `perfdiff diff`
 * (diff.c) and `perfdiff tui` (diff_tui.c), which parses the same options
 * and builds the same profiles but shows them on a screen.
 */
#ifndef PERFDIFF_DIFF_INTERNAL_H
#define PERFDIFF_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cli_io.h"
#include "cli_opttab.h"
#include "cli_profile_opts.h"
#include "tui_cli.h"

/* A --base-OPT or --new-OPT: the row of OPT and the value. */
typedef struct cli_side_value {
	const cli_optdef *opt;
	const char *val;
} cli_side_value;

typedef struct cli_diff {
	const char *cmd;           /* "diff" or "tui" */
	bool tui, report;          /* tui; tui of one side: both sides its files */
	cli_tui *screen;           /* tui: while it runs */
	cli_profile_opts po;       /* options of both sides */
	cli_profile_opts side[2];  /* each side's: po with its --base-/--new- options */
	cli_side_value *side_opts[2];  /* those options, as given */
	size_t nside_opts[2];
	pd_diff_options dopts;
	pd_format format;
	const char **paths[2];
	size_t npaths[2];
	size_t nfiles, split;      /* while parsing: FILEs, and where '--' was */
	bool all;
	bool lkp_keys;             /* --lkp-keys, or --format=lkp */
	bool fail_on_set;
	double fail_on;
	bool min_change_set;
	bool weight_set, weight_samples;  /* --weight (folded) */
	bool no_comm;              /* --no-comm (folded) */
	pd_diff_sort sort;         /* --sort */
	const char *peek;          /* --peek REGEX */
	bool show_comm, show_dso;  /* --sort=comm,dso,sym: columns */
	double percent_limit;      /* --percent-limit */
	cli_io io;                 /* -o, -q, -v, --strict, --color */
	cli_warns warns;           /* of every file of both sides */
	int argc;                  /* the arguments, for what the filters were */
	char **argv;
} cli_diff;

/* Both sides' profiles into p[] (p[1] NULL for tui's one FILE), their
 * warnings held and errors printed: 0; 1 when a file broke off (what was
 * read is compared); -1 when a side has nothing to compare. */
int diff_build_sides(cli_diff *c, pd_profile *p[2]);

/* -1 after the error when the filters left side `side` no sample. */
int diff_empty_side(const cli_diff *c, int side, const pd_profile *p);

/* The writer's options as the command line gives them; 0, or -1. */
int diff_write_options(const cli_diff *c, pd_diff_write_options *o);

/* `perfdiff diff` after parsing: build, compare, write; the exit status. */
int diff_run(cli_diff *c);

/* `perfdiff tui` after parsing (diff_tui.c); the exit status. */
int diff_run_tui(cli_diff *c);

#endif
