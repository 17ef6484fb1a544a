/*
 * What the output files share: the format rules (format.c), and the
 * context each family of formats hands to its writers (report_*.c,
 * diff_*.c).  Every writer returns 0 or a negative PD_E* code with `err`
 * filled, the writer's sticky error included.
 */
#ifndef PD_OUTPUT_INTERNAL_H
#define PD_OUTPUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "utf8.h"
#include "writer.h"

/* ---- format.c ---- */

/* 0 when bit `f` is set in `allowed`, else PD_EINVAL naming `what`. */
int pdo_format_check(pd_format f, unsigned allowed, const char *what, pd_error *err);

#define PDO_BIT(f) (1u << (f))

/* PD_ENOMEM with its message. */
int pdo_nomem(pd_error *err);

/* The writer's sticky error as the return value, `err` filled. */
static inline int pdo_done(pd_writer *w, pd_error *err)
{
	return w->failed ? pdo_status(w, err) : 0;
}

/* ---- report_*.c ---- */

typedef struct pdo_report {
	pd_writer *w;
	pd_profile *p;
	pd_report_write_options o;
	const pd_profile_options *popts;  /* never NULL */
	pd_error *err;
} pdo_report;

/* With o.peek: the peek of event `ev`, as text or as the event's JSON
 * key.  0 or an error in r->err. */
int pdo_report_peek(const pdo_report *r, size_t ev);
/* With o.sort_keys or o.nr_samples: event `ev`'s rows as perf's --sort
 * and -n make them, header line included (report_sorted.c).  0 or an
 * error in r->err (PD_EINVAL: bad keys). */
int pdo_report_sorted(const pdo_report *r, size_t ev);

int pdo_report_text(const pdo_report *r);
int pdo_report_json(const pdo_report *r);
int pdo_report_csv(const pdo_report *r);
int pdo_report_folded(const pdo_report *r);
int pdo_report_lkp(const pdo_report *r);
int pdo_report_html(const pdo_report *r);

/* Events to write: the chosen one, or every event with samples.  Fills
 * `evs` (room for pd_profile_event_count() entries) and returns how many. */
size_t pdo_report_events(const pdo_report *r, size_t *evs);

/* 100 * v / total in hundredths, rounded as printf("%.2f") does. */
uint64_t pdo_hundredths(uint64_t v, uint64_t total);

/* "12.34" for 100 * v / total (two decimals, rounded), right-aligned to
 * `width` columns; total 0 prints 0.00. */
void pdo_put_pct(pd_writer *w, uint64_t v, uint64_t total, unsigned width);

/* The last path component of a dso ("libc.so.6"; "[kernel.kallsyms]"). */
const char *pdo_short_dso(const char *dso);

/* ---- folded.c ---- */

/* Room to walk a stack from its leaf up, reused from stack to stack.
 * Zero-initialise; pdo_folded_path_free() when done. */
typedef struct pdo_folded_path {
	const pd_cct_node **v;
	size_t cap;
} pdo_folded_path;

void pdo_folded_path_free(pdo_folded_path *fp);

/*
 * Append the frames of `s`: its comm (unless !comm), then every frame
 * from the root to the leaf, joined by ';' (pdo_folded_name()).  No
 * weight, no newline.  0, or -1 when memory runs out.
 */
int pdo_folded_stack(pd_writer *w, const pd_stack *s, pdo_folded_path *fp, bool comm);

/* The frame written for a stack without frames when no comm precedes it
 * (samples whose chain was empty): a line needs a name. */
#define PDO_FOLDED_NO_FRAME "[unknown]"

/* One frame's name: ';' becomes ':' (C++ templates can hold one), line
 * breaks spaces, and an inline frame ends in "_[i]". */
void pdo_folded_name(pd_writer *w, const char *s, bool inlined);

/* The text of stack `s` of side `side` (0 base, 1 new), appended to `w`
 * without weight or newline: 0, or -1 when memory runs out. */
typedef int (*pdo_stack_text)(pd_writer *w, int side, const pd_stack *s, void *ctx);

/*
 * The two columns of a differential flame graph: every stack of both
 * profiles' `event` (pd_diff_events()) as `text` names it, one line per
 * distinct text, sorted, each side's weights (periods, or sample counts)
 * summed and averaged over its runs.  0 or an error (set in `err`).
 */
int pdo_folded_columns(pd_writer *w, pd_profile *const p[2], const char *event, bool samples,
		       pdo_stack_text text, void *ctx, pd_error *err);

/* ---- folded_aligned.c ---- */

/* pd_diff_write()'s folded stacks: both sides' stacks named by the
 * aligned tree (the base's names), the command frame unless no_comm. */
int pdo_diff_folded(pd_writer *w, const pd_diff *d, const pd_diff_write_options *o,
		    pd_error *err);

/* ---- facts.c: what a side's numbers rest on ---- */

/* Fewer samples than this in a run of the event: its shares are coarse,
 * and a test over them cannot be trusted. */
#define PDO_FEW_SAMPLES 100
/* An unresolved share of the period from which a diff's footer names it. */
#define PDO_UNRESOLVED_SHOWN 10.0

/*
 * The facts that change what a profile's numbers mean, for the footers of
 * a diff and the header of a report: how much of event `ev`'s period has
 * a leaf without a symbol, which runs' inputs are cut (the names of
 * `files`, one per run, or the runs' paths), samples lost while
 * recording, whether a run has too few samples, and which filter values
 * matched nothing.  Pointers into the profile and `files`; `runs`
 * (truncated ones) is malloc'd: pdo_facts_free().
 */
typedef struct pdo_facts {
	double unresolved_pct;       /* of the event's period */
	const char **truncated;      /* files of the runs whose input is cut */
	size_t ntruncated;
	uint64_t lost, read;         /* samples lost while recording; SAMPLE records read */
	uint64_t fewest;             /* samples of the event in its sparsest run */
	bool too_few;                /* fewest < PDO_FEW_SAMPLES */
	const char **unmatched;      /* filter values that matched nothing ("--comm=x") */
	size_t nunmatched;
	const pd_profile *prof;      /* the side, for its stack filters; NULL none */
	bool all_origins;            /* text: every dso's symbol source (pdo_origins_text) */
	size_t ev;                   /* its event; SIZE_MAX none */
} pdo_facts;

/* 0, or PD_ENOMEM.  `ev` SIZE_MAX: no event (no unresolved share, no
 * sample counts). */
int pdo_facts_get(pdo_facts *f, pd_profile *p, size_t ev, const char *const *files,
		  size_t nfiles);
void pdo_facts_free(pdo_facts *f);

/*
 * The filter values of `p` that matched no sample, as the command line
 * spells them ("--comm=foo"), malloc'd array of strings the profile owns
 * in *out; their number.  The profile does not record which values
 * matched yet (the filters' API for it is being added): until then none,
 * and the footers that name them stay silent.
 */
size_t pdo_unmatched_filters(const pd_profile *p, const char ***out);

/* ---- peek.c: a peek as text and JSON ---- */

/* The block of `pk` for `regex`: `two` a diff's (both sides and the
 * change), else a report's (periods, pprof's columns). */
void pdo_peek_text(pd_writer *w, const pd_peek *pk, const char *regex, bool two);
/* The key "peek": null for a NULL `pk`, else {"regex", "functions"}
 * (docs/report-json.md, docs/diff-json.md). */
void pdo_peek_json(pd_writer *w, const pd_peek *pk, const char *regex, bool two);

/* ---- stackfilters.c: what --focus, --ignore, --hide, --prune-from removed ---- */

/* Whether `p` (NULL: none) has a stack filter. */
bool pdo_stack_filtered(const pd_profile *p);
/* One line per stack filter of `p` for event `ev`, each starting with
 * `indent`: what it removed and its share of the period before them.
 * Nothing without stack filters. */
void pdo_stack_filters_text(pd_writer *w, const pd_profile *p, size_t ev, const char *indent);
/* The key "stack_filters": null without stack filters, else an object
 * (docs/report-json.md). */
void pdo_stack_filters_json(pd_writer *w, const pd_profile *p, size_t ev);

/* ---- origins.c: where each dso's symbols came from ---- */

/* Lines starting with `indent`: the sources that named `p`'s dsos, the
 * dsos not found, the kernel's table; `all`: every dso with its path and
 * full build-id (else a few names per source).  Nothing for a profile
 * without origins (a pprof import, a robot's table). */
void pdo_origins_text(pd_writer *w, const pd_profile *p, const char *indent, bool all);
/* The key "symbol_origins": an array of {dso, kernel, build_id, from,
 * vmlinux, searched} (docs/report-json.md). */
void pdo_origins_json(pd_writer *w, const pd_profile *p);

/* The facts of `f` as the diff's text footer lines of one side (each
 * "      ..." and a newline; nothing when all is well). */
void pdo_facts_text(pd_writer *w, const pdo_facts *f);

/* ---- diff_*.c ---- */

typedef struct pdo_diff {
	pd_writer *w;
	const pd_diff *d;
	pd_diff_options opts;          /* as the diff was made (pd_diff_options_get) */
	const char *const *files[2];   /* the names of each side's files */
	size_t nfiles[2];
	size_t nruns[2];               /* runs read on each side */
	bool all;                      /* every row, not only significant ones */
	bool all_origins;              /* text: every dso's symbol source */
	bool color;                    /* text: ANSI colours */
	double percent_limit;          /* rows below it on both sides not written */
	pd_diff_sort opts_sort;        /* the order of the rows */
	const size_t *order;           /* row indices in that order */
	const bool *rel_kept;          /* per relation: a row it explains is kept */
	char event[256];               /* the robot's name of the event ("cpu-clock") */
	pdo_facts facts[2];            /* what each side's numbers rest on */
	size_t col_comm, col_dso;      /* text: widths of the Command and Shared
	                                  Object columns; 0: none */
	const pd_peek *peek;           /* json: the "peek" key (NULL: null) */
	const char *peek_regex;
	bool json_no_tree;             /* json: tree rows not written (the HTML page's
	                                  #pd-flame has their values) */
	bool json_largest;             /* json: "largest", the rows of the largest
	                                  changes when nothing is significant
	                                  (pdo_largest_changes; the HTML page) */
	pd_error *err;
} pdo_diff;

/* The widths of the Command (`comm`) and Shared Object (`dso`) columns of
 * the text's rows, 0 for a column not shown. */
void pdo_diff_columns(pdo_diff *v, bool comm, bool dso);

/* A side's runs in a title, into `buf` (`n` bytes): its one file as
 * given; "3 runs: a.data, b.data, c.data", the directories the files all
 * share left out, cut short as "..., b.data and 9 more" to fit; "base" or
 * "new" without files. */
void pdo_side_name(const pdo_diff *v, int side, char *buf, size_t n);

/* `o` (NULL: the defaults) checked and copied over the defaults. */
int pdo_diff_options(pd_diff_write_options *out, const pd_diff_write_options *o,
		     pd_error *err);

int pdo_diff_text(const pdo_diff *v);
/* A diff of a robot's table (explain.c): the text's footer, what a
 * table's numbers rest on; JSON's "table" object, nothing for profiles. */
void pdo_diff_table_footer(const pdo_diff *v, size_t shown, size_t rels_hidden, pd_writer *w);
void pdo_diff_json_table(pd_writer *w, const pd_diff *d);
int pdo_diff_lkp(const pdo_diff *v);
int pdo_diff_json(const pdo_diff *v);
int pdo_diff_csv(const pdo_diff *v);
/* One self-contained page (diff_html.c); a static flame graph (svg.c). */
int pdo_diff_html(const pdo_diff *v);
int pdo_diff_svg(const pdo_diff *v);

/* Row `k` in the order written (pd_diff_write_options.sort). */
static inline const pd_diff_row *pdo_diff_row(const pdo_diff *v, size_t k)
{
	return pd_diff_row_at(v->d, v->order[k]);
}

/* Whether a row reaches the percent limit on a side (a shift row: whether
 * its shift has such a row). */
bool pdo_row_kept(const pdo_diff *v, const pd_diff_row *r);

/* Whether an explained shift is listed: one of its rows is kept, and all
 * rows are shown, its net change is significant, or a row it explains
 * changed significantly on its own (a rename's -X and +X rows). */
bool pdo_rel_listed(const pdo_diff *v, const pd_diff_relation *rel);

/* How many of the largest changes are shown when nothing is significant. */
#define PDO_LARGEST 10

/*
 * When nothing is significant (no row shown, no shift listed, not
 * `all`): the rows of the largest changes, as perf diff shows its delta
 * column whatever the noise, so that a quiet comparison still says what
 * moved most.  Up to `max` row indices (pd_diff_row_at()) into `out`, by
 * |change| from the largest, in the written order among equals; flat
 * rows only (no shift or tree rows), kept by the percent limit, with a
 * change that shows at the text's 0.1 points.  0 otherwise.
 */
size_t pdo_largest_changes(const pdo_diff *v, size_t *out, size_t max);

/* Whether a row is written: kept, and significant, explained by a shift
 * that is listed (its halves and its shift row), or all rows shown. */
static inline bool pdo_row_shown(const pdo_diff *v, const pd_diff_row *r)
{
	return pdo_row_kept(v, r) &&
	       (v->all || r->significant || (r->relation && pdo_rel_listed(v, r->relation)));
}

#endif
