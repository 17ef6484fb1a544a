/*
 * Parts of the address-space model shared between the files of machine/:
 * the per-address-space interval set (maps.c), the string and dso-identity
 * interning with the header's build-id index (dsos.c) and the KSYMBOL table
 * (ksyms.c).  machine.c ties them to processes and threads.
 */
#ifndef PD_MACHINE_INTERNAL_H
#define PD_MACHINE_INTERNAL_H

#include "machine.h"
#include "util/u64map.h"

/* ---- maps.c: sorted, non-overlapping maps, shared copy-on-write ---- */

/*
 * A fork shares the parent's set (refs++) and the first change on either
 * side copies it: most forks exec at once, so the copy is usually never
 * made.  A NULL set is an empty one.
 */
typedef struct pd_mapset {
	size_t refs;
	size_t n, cap;
	pd_map *maps;   /* sorted by start; ends are sorted too */
} pd_mapset;

pd_mapset *pd_mapset_share(pd_mapset *s);
void pd_mapset_release(pd_mapset *s);
/*
 * Put `m` in, cutting every older map it overlaps: a map wholly inside is
 * dropped, one that sticks out keeps the part(s) outside (a right-hand part
 * gets its pgoff moved so that address -> file offset is unchanged).
 * 0 or PD_ENOMEM.
 */
int pd_mapset_insert(pd_mapset **sp, const pd_map *m);
/* Cut [start, end) out of every map, as an insert of a map not kept would. */
int pd_mapset_punch(pd_mapset **sp, uint64_t start, uint64_t end);
const pd_map *pd_mapset_find(const pd_mapset *s, uint64_t addr);

/* ---- dsos.c: interned strings and dso identities ---- */

typedef struct pd_intern {
	pd_arena arena;      /* strings and dso identities */
	pd_u64map strings;   /* hash -> chain of pd_istr */
	pd_u64map dsos;      /* hash -> chain of dso nodes */
	/* The header's BUILD_ID entries by path, rebuilt when the header's
	 * array changes (pipe mode fills it in as records arrive). */
	const pd_header_info *info;
	const pd_build_id *indexed;
	size_t indexed_nr;
	pd_u64map bid_index; /* hash(path) -> first entry index + 1 */
	size_t *bid_next;    /* entry index -> next index + 1 with that hash */
} pd_intern;

void pd_intern_init(pd_intern *in, const pd_header_info *info);
void pd_intern_free(pd_intern *in);
/* One copy per distinct string, alive until pd_intern_free(); NULL: no memory. */
const char *pd_intern_str(pd_intern *in, const char *s, size_t len);
/*
 * The interned identity of `want` (name, build-id or maj/min/ino, kernel),
 * name copied.  With no build-id in `want`, one is taken from the header's
 * entries for `want->name` (the entry for `pid`, else the host's, pid -1).
 * NULL: no memory.
 */
const pd_dso_id *pd_intern_dso(pd_intern *in, const pd_dso_id *want, int32_t pid);

/* ---- ksyms.c: KSYMBOL ranges ---- */

typedef struct pd_ksymset {
	size_t n, cap;
	pd_ksym *syms;   /* sorted, non-overlapping */
} pd_ksymset;

/* Add [start, end), dropping every older range it overlaps. */
int pd_ksymset_add(pd_ksymset *s, const pd_ksym *k);
/* Drop every range that overlaps [start, end). */
void pd_ksymset_remove(pd_ksymset *s, uint64_t start, uint64_t end);
const pd_ksym *pd_ksymset_find(const pd_ksymset *s, uint64_t addr);
void pd_ksymset_free(pd_ksymset *s);

#endif
