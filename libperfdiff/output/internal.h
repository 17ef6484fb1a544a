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

int pdo_report_text(const pdo_report *r);
int pdo_report_json(const pdo_report *r);
int pdo_report_csv(const pdo_report *r);
int pdo_report_folded(const pdo_report *r);
int pdo_report_lkp(const pdo_report *r);

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
 * Append the frames of `s`: its comm, then every frame from the root to
 * the leaf, joined by ';' (';' in a name becomes ':', line breaks spaces;
 * inline frames end in "_[i]").  No weight, no newline.  0, or -1 when
 * memory runs out.
 */
int pdo_folded_stack(pd_writer *w, const pd_stack *s, pdo_folded_path *fp);

/* ---- diff_*.c ---- */

typedef struct pdo_diff {
	pd_writer *w;
	const pd_diff *d;
	pd_diff_options opts;          /* as the diff was made (pd_diff_options_get) */
	const char *const *files[2];   /* the names of each side's files */
	size_t nfiles[2];
	size_t nruns[2];               /* runs read on each side */
	bool all;                      /* every row, not only significant ones */
	char event[256];               /* the robot's name of the event ("cpu-clock") */
	pd_error *err;
} pdo_diff;

/* `o` (NULL: the defaults) checked and copied over the defaults. */
int pdo_diff_options(pd_diff_write_options *out, const pd_diff_write_options *o,
		     pd_error *err);

int pdo_diff_text(const pdo_diff *v);
int pdo_diff_lkp(const pdo_diff *v);
int pdo_diff_json(const pdo_diff *v);
int pdo_diff_csv(const pdo_diff *v);

/* Whether an explained shift is listed: all rows, its net change is
 * significant, or a row it explains changed significantly on its own (a
 * rename's -X and +X rows). */
static inline bool pdo_rel_listed(const pdo_diff *v, const pd_diff_relation *rel)
{
	return v->all || (rel->row && rel->row->significant) || rel->rows_significant;
}

/* Whether a row is written: significant, explained by a shift that is
 * listed (its halves and its shift row), or all rows. */
static inline bool pdo_row_shown(const pdo_diff *v, const pd_diff_row *r)
{
	return v->all || r->significant || (r->relation && pdo_rel_listed(v, r->relation));
}

#endif
