/*
 * The flame graphs' data (flame_json.c, report_html.c): the columns of
 * schema "perfdiff.flame/1" that the HTML pages' script draws, and the
 * string tables that keep 200k nodes' names to one copy each.
 */
#ifndef PD_OUTPUT_FLAME_H
#define PD_OUTPUT_FLAME_H

#include "internal.h"
#include "util/u64map.h"

/* Strings by index: a name's index is found by its address (the
 * profile's names are interned: one address per name).  Zero-initialise
 * `index` with pd_u64map_init(); pdo_strtab_free() when done. */
typedef struct pdo_strtab {
	pd_u64map index;       /* address → index + 1 */
	const char **v;
	size_t n, cap;
	bool failed;           /* out of memory: ids are -1 from then on */
} pdo_strtab;

/* The index of `s`, added if new; -1 for NULL (and without memory). */
long pdo_strtab_id(pdo_strtab *t, const char *s);
/* "key":[the strings] */
void pdo_strtab_write(pd_writer *w, const char *key, const pdo_strtab *t);
void pdo_strtab_free(pdo_strtab *t);

/* An integer, or a real of 5 digits (pdo_json_short), as an array item. */
void pdo_flame_long(pd_writer *w, long x);
void pdo_flame_short(pd_writer *w, double x);

/* The diff's aligned tree (pd_diff_node) as one JSON document. */
int pdo_diff_flame_json(const pdo_diff *v);

#endif
