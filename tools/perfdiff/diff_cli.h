/*
 * The `diff` subcommand: two sets of perf.data runs folded into two
 * profiles, compared by libperfdiff's diff engine (perfdiff/diff.h), and
 * printed as the robot's compare table with explained shifts
 * (diff_text.c), as that table alone (--format=lkp, diff_text.c), as JSON
 * (diff_json.c, docs/diff-json.md) or CSV (diff_csv.c); or, without the
 * diff engine, as the two-column collapsed stacks of a differential flame
 * graph (--format=folded, diff_folded.c).  diff.c parses the options and
 * builds the profiles.
 */
#ifndef PERFDIFF_CLI_DIFF_H
#define PERFDIFF_CLI_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "perfdiff/perfdiff.h"

int cmd_diff(int argc, char **argv);
void diff_usage(FILE *f);

enum diff_format {
	DIFF_TEXT,
	DIFF_LKP,
	DIFF_JSON,
	DIFF_CSV,
	DIFF_FOLDED,
};

/* What the writers need beyond the diff itself. */
typedef struct diff_view {
	const pd_diff *d;
	const pd_diff_options *opts;  /* as passed to pd_diff_new() */
	const char *const *files[2];  /* the paths of each side (0 base, 1 new) */
	size_t nfiles[2];
	size_t nruns[2];              /* runs read on each side */
	bool all;                     /* every row, not only significant ones */
	char event[256];              /* the robot's name of the event ("cpu-clock") */
} diff_view;

/* Row and relation i of a diff (perfdiff/diff.h's accessors). */
static inline const pd_diff_row *diff_row(const pd_diff *d, size_t i)
{
	return pd_diff_row_at(d, i);
}

static inline const pd_diff_relation *diff_relation(const pd_diff *d, size_t i)
{
	return pd_diff_relation_at(d, i);
}

/* Whether an explained shift is listed: --all, its net change is
 * significant, or a row it explains changed significantly on its own (a
 * rename's −X and +X rows). */
static inline bool dv_rel_listed(const diff_view *v, const pd_diff_relation *rel)
{
	return v->all || (rel->row && rel->row->significant) || rel->rows_significant;
}

/* Whether a row is printed: significant, explained by a shift that is
 * listed (its halves and its shift row), or --all. */
static inline bool dv_shown(const diff_view *v, const pd_diff_row *r)
{
	return v->all || r->significant || (r->relation && dv_rel_listed(v, r->relation));
}

/* "perf-profile.<metric>.<event>.<key>" (with --absolute "perf-rate.…",
 * whose change the robot's layout prints as relative), malloc'd; NULL when
 * memory runs out. */
char *diff_row_key(const diff_view *v, const pd_diff_row *r);

/* Warnings of the files read, held so that one text that several files
 * give is printed once, naming them (diff_warn.c). */
typedef struct diff_warning diff_warning;
typedef struct diff_warnings {
	diff_warning *v;
	size_t n, cap;
} diff_warnings;

void diff_warnings_init(diff_warnings *w);
/* Hold `warning`, a pd_profile_warning() of `file` ("FILE: text"); `file`
 * must outlive `w`. */
void diff_warnings_add(diff_warnings *w, const char *file, const char *warning);
/* Print the warnings held (as cli_warning()) and forget them. */
void diff_warnings_flush(diff_warnings *w);
/* Forget the warnings held without printing them. */
void diff_warnings_free(diff_warnings *w);

/* Each writer returns 0, or -1 when writing failed or memory ran out. */
int diff_write_text(const diff_view *v, FILE *f);
int diff_write_lkp(const diff_view *v, FILE *f);
int diff_write_json(const diff_view *v, FILE *f);
int diff_write_csv(const diff_view *v, FILE *f);

/*
 * --format=folded (diff_folded.c), for the events pd_diff_events() picks.
 * diff_write_folded() writes one line per distinct stack
 * of either side, "STACK BASE NEW", each value the mean of the side's
 * periods (sample counts with `weight_samples`) over its runs; 0, -1 when
 * writing failed or memory ran out, -2 on another error, already printed.
 */
int diff_write_folded(pd_profile *const p[2], const size_t ev[2], bool weight_samples,
		      FILE *f);

#endif
