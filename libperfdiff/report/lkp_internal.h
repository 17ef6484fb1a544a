/*
 * The two halves of the robot's key computation (perfdiff/report.h):
 *
 *   lkp_acc   the robot's parser: takes rows and chains as perf report
 *             would print them and sums them into keys (lkp_acc.c);
 *   lkp_walk  perf report's side: walks a calling-context tree and emits
 *             the rows and the folded chains perf would print (lkp_walk.c).
 *
 * The tree is seen through lkp_tree so that the walk can be checked on
 * hand-made trees as well as on a pd_profile's.
 */
#ifndef PD_REPORT_LKP_INTERNAL_H
#define PD_REPORT_LKP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/report.h"

/* ---------------------------------------------------------------- parser */

typedef struct lkp_acc lkp_acc;

int lkp_acc_new(lkp_acc **out);
void lkp_acc_free(lkp_acc *a);

/* Name every key added from now on after this perf event name; the robot
 * calls this once, for the first event only. */
int lkp_acc_event(lkp_acc *a, const char *perf_name);

/* A row line: Children % and Self % as computed by perf (100·v/total),
 * rounded here as perf prints them.  `dso` is the name perf prints (short
 * name); it only matters for the white-space rule. */
int lkp_acc_row(lkp_acc *a, const char *dso, const char *symbol,
		double children_pct, double self_pct);

/* A folded chain line, callee first.  A frame of NULL stands for a name
 * with white space (an inline frame "f (inlined)"). */
int lkp_acc_chain(lkp_acc *a, double pct, const char *const *frames, size_t n);

/* results[key] += hundredths, for a key built elsewhere (means over runs). */
int lkp_acc_add(lkp_acc *a, const char *key, int64_t hundredths);

/* Every key whose sum is ≥ `min` hundredths (the robot: 5), sorted, with
 * value sum / 100 / `divisor`; the accumulator stays usable. */
int lkp_acc_result(const lkp_acc *a, int64_t min, double divisor,
		   pd_lkp_key **out, size_t *n);

/* The value perf prints for `pct` ("%.2f"), in hundredths. */
int64_t lkp_hundredths(double pct);

/* ------------------------------------------------------------------ tree */

typedef struct lkp_tree {
	const void *root;                     /* no symbol; children are outermost frames */
	size_t (*child_count)(const void *node);
	const void *(*child)(const void *node, size_t i);
	/* The symbol as perf tells entries apart (NULL: unresolved); with
	 * `name`, the name perf prints for it, else the symbol itself.
	 * Overloads are distinct entries in perf even where their printed
	 * names are equal. */
	const char *(*symbol)(const void *node);
	const char *(*name)(void *ctx, const void *node);
	void *ctx;
	const char *(*dso)(const void *node);      /* NULL: unknown */
	bool (*inlined)(const void *node);
	uint64_t (*self)(const void *node, size_t run);
	/* The part of self from samples perf draws no chain for (NULL: none). */
	uint64_t (*chainless)(const void *node, size_t run);
} lkp_tree;

/* ------------------------------------------------------------- names */

/*
 * perf 6.1's names for user-space ELF symbols: demangled by libiberty
 * without parameter lists (cplus_demangle(name, DMGL_NO_OPTS), Rust
 * first), PLT entries as "<demangled>@plt".  Results are cached by the
 * address of the raw string (the profile interns its strings).
 */
typedef struct lkp_names lkp_names;

int lkp_names_new(lkp_names **out);
void lkp_names_free(lkp_names *n);
/* The printed name of `raw`; `raw` itself when it does not demangle (or
 * memory runs out: the mangled name is still a valid, if unfriendly, key). */
const char *lkp_perf_name(lkp_names *n, const char *raw);

/*
 * Emit perf report's rows and folded chains (threshold 0.5 %, callee
 * order, children mode) for `run` of `tree` into `a`, after naming the
 * event `event` (lkp_acc_event) as perf's "# Samples: … of event" line
 * would.  An event without period prints nothing in perf: then nothing
 * happens here either.  *total is set to the event's total period.
 */
int lkp_walk(lkp_acc *a, const lkp_tree *tree, size_t run, const char *event,
	     uint64_t *total);

#endif
