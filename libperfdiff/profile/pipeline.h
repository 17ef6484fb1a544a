/*
 * Reading and folding run side by side: a producer thread drives the
 * session (read, order, symbolize), applies the sample filters and packs
 * each sample into a block of compact records; the caller's thread folds
 * the blocks into the tree.  Folding is about a third of the work and
 * mostly waits on memory, so it hides behind the session on a second CPU.
 *
 * A record holds what folding needs and nothing that the session will
 * reuse: names are the session's pointers (valid until it is freed, which
 * happens after both threads are done), the command name too.
 * Without a second thread (none in the profile's thread budget, or
 * pthread_create failing) the same code runs in turn on one thread.
 */
#ifndef PD_PROFILE_PIPELINE_H
#define PD_PROFILE_PIPELINE_H

#include "internal.h"

/* A frame as folding keys it: the session's name pointers, the address
 * in its dso when it has no symbol, pd_frame_flag bits. */
typedef struct pd_fkey {
	const char *sym;     /* NULL: unresolved, keyed by address */
	const char *dso;
	union {
		uint64_t addr;      /* unresolved: the address in its dso */
		const char *unit;   /* resolved: pd_frame.unit (NULL unknown) */
	};
	uint32_t flags;
} pd_fkey;

/* Where a frame lies, for a profile that keeps sites (PD_PROFILE_KEEP_SITES,
 * profile/sites.h): its address and the map holding it then (end 0: none),
 * and its raw name (the session's, NULL: none). */
typedef struct pd_fsite {
	uint64_t addr, start, end, pgoff;
	const char *raw;
} pd_fsite;

/* One sample, followed by `nframes` pd_fkeys, leaf first, then with
 * `sites` as many pd_fsites. */
typedef struct pd_srec {
	const pd_attr *attr;
	int attr_index;
	uint32_t tid;
	uint32_t nframes;         /* frames kept (unnamed ones skipped with -U) */
	uint32_t pid, cpu;
	bool sites;               /* pd_fsites follow the frames */
	bool leaf_unresolved;     /* the leaf has no symbol */
	bool hidden;              /* dropped by -U: only counted as unresolved */
	bool has_time;            /* the sample carries PERF_SAMPLE_TIME */
	bool chain_dropped;       /* pd_session_chain_dropped() */
	uint64_t period;
	uint64_t time;            /* ns, with has_time: places it in a time block */
	const char *comm;         /* the session's (pd_resolved_sample.comm) */
} pd_srec;

/* sites.c: a record's sites into its event's table (profile/sites.h).
 * A run's caches of the session's map values and raw-name pointers. */
#define PD_SITEFOLD_MAPS 1024
#define PD_SITEFOLD_RAWS 4096
typedef struct pd_sitefold_map {
	const char *dso;
	uint64_t start, end, pgoff;
	bool kernel;
	uint32_t id;              /* map id + 1; 0: empty */
} pd_sitefold_map;
typedef struct pd_sitefold_raw {
	const char *raw;
	uint32_t id;
} pd_sitefold_raw;
typedef struct pd_sitefold {
	pd_sitefold_map *maps;
	pd_sitefold_raw *raws;
	struct pd_site *scratch;  /* one record's sites */
	size_t cap_scratch;
} pd_sitefold;

/* What folding found of a record: its run, leaf node, command, block. */
typedef struct pd_sitekey {
	size_t run;
	uint32_t leaf, comm, block;
} pd_sitekey;

void pd_sitefold_init(pd_sitefold *f);
void pd_sitefold_free(pd_sitefold *f);
/* Run `run` keeps sites: caches made.  0 or PD_ENOMEM. */
int pd_sites_begin_run(pd_profile *p, pd_sitefold *f, size_t run);
/* The run's entries' blocks (block | grid shift << 16 while folding) on
 * the run's final grid of 2^shift ns blocks. */
void pd_sites_end_run(pd_profile *p, size_t run, unsigned shift);
/* Count `r` (nothing without r->sites) under its entry in `t`; *last is
 * the entry its thread hit last, tried first, and set to this one. */
int pd_sites_add(pd_profile *p, pd_sitefold *f, pd_sitetab *t, const pd_sitekey *key,
		 const pd_srec *r, uint32_t *last);

typedef struct pd_pipeline pd_pipeline;

/* Samples held for their kernel frames' names at most (bytes of records):
 * memory that grows with samples, not stacks, so kept small (a 54 MB
 * recording held ~13 MB while /proc/kallsyms was read). */
#define PD_PIPELINE_HOLD_MAX ((size_t)32 << 20)

/* Start reading `s` (filters and flags from `p`, read-only from now on),
 * on a thread of its own when `thread`: a slot of p's thread budget is
 * held for it (given back when the thread is joined, or at once when none
 * can be started; pd_pipeline_start() gives it back on failure too).  With
 * `hold_max` > 0, samples read while the kernel's symbol table is still
 * loading are held (up to that many bytes of records, then it waits for
 * the table) and their kernel frames named once it is there, rather than
 * waiting at the first one: the same records, sooner.  The session's hold
 * does that (pd_session_hold(), session/session.h), with the pipeline's
 * packed records as what it keeps.  0: no deferral. */
int pd_pipeline_start(pd_pipeline **out, pd_session *s, const pd_profile *p, bool thread,
		      size_t hold_max);

/*
 * The next block of records: *data and *len describe it (records are
 * 8-byte aligned, each followed by its frames).  Returns 1 with a block,
 * 0 at the end, a negative code on error (`err` filled).  The block stays
 * valid until the next call.
 */
int pd_pipeline_next(pd_pipeline *pl, const uint8_t **data, size_t *len, pd_error *err);

/* The earliest and latest time of the samples read (filters aside); false
 * when none had a time.  Only once pd_pipeline_next() has returned 0: the
 * producer is done then. */
bool pd_pipeline_time_range(const pd_pipeline *pl, uint64_t *first, uint64_t *last);

/* Add the samples each filter value matched in this run (the profile's
 * filters, pd_filters_sample()) to sum[] (one counter per value).  Stops
 * the producer first: the end of the run, for pd_pipeline_next() too. */
void pd_pipeline_filter_hits(pd_pipeline *pl, uint64_t *sum);

/* Samples held for their kernel frames' names, so far. */
size_t pd_pipeline_held(const pd_pipeline *pl);

/* Stop early (an error while folding). */
void pd_pipeline_cancel(pd_pipeline *pl);

/* Wait for the producer and free everything; the session is the
 * caller's again.  NULL is allowed. */
void pd_pipeline_free(pd_pipeline *pl);

/* Size of a record with n frames, and its frames. */
static inline size_t pd_srec_size(uint32_t nframes)
{
	return (sizeof(pd_srec) + (size_t)nframes * sizeof(pd_fkey) + 7) & ~(size_t)7;
}

static inline const pd_fkey *pd_srec_frames(const pd_srec *r)
{
	return (const pd_fkey *)(r + 1);
}

/* The bytes of a record of `nframes` frames, with sites or not. */
static inline size_t pd_srec_size_sites(uint32_t nframes, bool sites)
{
	return pd_srec_size(nframes) + (sites ? (size_t)nframes * sizeof(pd_fsite) : 0);
}

static inline size_t pd_srec_bytes(const pd_srec *r)
{
	return pd_srec_size_sites(r->nframes, r->sites);
}

/* The sites of `r` (r->sites), leaf first. */
static inline const pd_fsite *pd_srec_sites(const pd_srec *r)
{
	return (const pd_fsite *)((const uint8_t *)r + pd_srec_size(r->nframes));
}

#endif
