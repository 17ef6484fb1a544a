/*
 * Interfaces between the parts of the profile stage:
 *
 *   idmap.c     u64 → u32 hash map (frames, stacks, threads)
 *   intern.c    string interning: symbols, dsos, commands
 *   frames.c    frame keys (symbol, dso, flags) → frame ids
 *   cct.c       the calling-context tree of one event and its accessors
 *   stacks.c    (command, leaf node) → period, for collapsed stacks
 *   events.c    matching a file's attrs to the profile's events
 *   filters.c   copying and applying the sample filters, counting matches
 *   stackfilter.c  focus, ignore, hide, prune-from: a stack's frames filtered
 *   pipeline.c  a thread reading the session into records (pipeline.h)
 *   fold.c      pd_profile_add_file(): records → frame ids → tree
 *   blocks.c    time blocks: a run's grid, leaf samples per (node, block)
 *   builder.c   a run from imported stacks (builder.h, for pprof/)
 *   facts.c     symbol facts: which files named a dso, read on demand
 *   runinfo.c   perf's header facts per run, build-ids per (run, dso)
 *   origins.c   where each dso's symbols came from, for the footers
 *   flat.c      the children/self view
 *   chains.c    perf-style chains under one entry
 *   canonical.c clone-suffix folding
 *   profile.c   the pd_profile object, options, totals, warnings
 *
 * Ids are 32-bit: nodes, frames and strings index arrays, and a tree edge
 * is the 64-bit key (parent << 32 | frame).
 */
#ifndef PD_PROFILE_INTERNAL_H
#define PD_PROFILE_INTERNAL_H

#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "perfdiff/profile.h"
#include "util/threads.h"
#include "util/u64map.h"
#include "util/util.h"

#define PD_NO_ID UINT32_MAX
/* Ids stay below this so that (id << 32 | id) never equals the empty key. */
#define PD_ID_LIMIT (UINT32_MAX - 1)

/* ---------------------------------------------------------------- idmap */

typedef struct pd_idslot {
	uint64_t key;     /* PD_IDMAP_EMPTY marks a free slot */
	uint32_t val;
} pd_idslot;

typedef struct pd_idmap {
	pd_idslot *slots; /* key and value side by side: one cache miss per probe */
	size_t cap, n;    /* cap: 0 or a power of two */
} pd_idmap;

#define PD_IDMAP_EMPTY UINT64_MAX

void pd_idmap_init(pd_idmap *m);
void pd_idmap_free(pd_idmap *m);

/* The value of `key` (never PD_IDMAP_EMPTY), or PD_NO_ID. */
static inline uint32_t pd_idmap_get(const pd_idmap *m, uint64_t key)
{
	if (m->cap == 0)
		return PD_NO_ID;
	size_t mask = m->cap - 1;
	for (size_t i = pd_mix64(key) & mask;; i = (i + 1) & mask) {
		if (m->slots[i].key == key)
			return m->slots[i].val;
		if (m->slots[i].key == PD_IDMAP_EMPTY)
			return PD_NO_ID;
	}
}

/* Insert a key known to be absent.  0 or PD_ENOMEM (map unchanged). */
int pd_idmap_put(pd_idmap *m, uint64_t key, uint32_t val);

/* ---------------------------------------------------------------- strings */

typedef struct pd_strtab {
	pd_arena arena;
	const char **strs;
	uint32_t *lens;
	uint32_t n, cap;
	uint32_t *slots;  /* string ids, PD_NO_ID = free */
	uint32_t *hashes; /* low bits of each string's hash, by id */
	size_t nslots;
} pd_strtab;

void pd_strtab_init(pd_strtab *t);
void pd_strtab_free(pd_strtab *t);
/* The id of s[0..len), added if new; PD_NO_ID when memory runs out or
 * the table is full. */
uint32_t pd_strtab_intern(pd_strtab *t, const char *s, size_t len);
/* The id of s[0..len) when it is in the table, else PD_NO_ID. */
uint32_t pd_strtab_find(const pd_strtab *t, const char *s, size_t len);
static inline const char *pd_strtab_get(const pd_strtab *t, uint32_t id)
{
	return t->strs[id];
}

/* ---------------------------------------------------------------- frames */

enum pd_frame_flag {
	PD_PF_INLINED = 1u << 0,
	PD_PF_KERNEL = 1u << 1,
	PD_PF_UNRESOLVED = 1u << 2,
};

typedef struct pd_pframe {
	uint32_t sym, dso;   /* string ids */
	uint32_t flags;      /* pd_frame_flag */
	uint32_t unit;       /* string id of the function's source file (pd_frame.unit),
	                      * the first one seen; PD_NO_ID unknown */
} pd_pframe;

typedef struct pd_frametab {
	pd_pframe *v;
	uint32_t n, cap;
	pd_idmap index;      /* sym << 32 | dso << 3 | flags → id */
} pd_frametab;

void pd_frametab_init(pd_frametab *t);
void pd_frametab_free(pd_frametab *t);
/* The id of the frame (added if new), PD_NO_ID when memory runs out or a
 * limit is reached. */
uint32_t pd_frametab_get(pd_frametab *t, uint32_t sym, uint32_t dso, uint32_t flags);

/* ---------------------------------------------------------------- tree */

typedef struct pd_cct pd_cct;

/* A node as handed out: a handle into its tree. */
struct pd_cct_node {
	const pd_cct *tree;
	uint32_t id, parent, frame;
	uint32_t depth;
	uint32_t child0, nchild;  /* range in tree->child_ids (after finalise) */
};

/*
 * Tree edges: exact keys (parent << 32 | frame), placed by a hash of the
 * whole root → node path instead of the key.  The path hashes of a sample
 * can be computed from its frame ids before any node is known, so every
 * slot the sample needs is prefetched at once and the cache misses of a
 * deep chain overlap instead of following one another.
 */
typedef struct pd_edge {
	uint64_t key;     /* PD_IDMAP_EMPTY: free */
	uint32_t node;
	uint32_t hash;    /* low bits of the path hash, for growing */
} pd_edge;

/* Path hash of a child from its parent's path hash. */
static inline uint64_t pd_path_hash(uint64_t parent_hash, uint32_t frame)
{
	return pd_mix64(parent_hash + 0x9e3779b97f4a7c15ull * ((uint64_t)frame + 1));
}
#define PD_ROOT_PATH_HASH 0x243f6a8885a308d3ull

/* One run's values: self period by node id (nodes created later are 0),
 * and the samples whose leaf is a node per time block (blocks.c): CSR by
 * node id, blk[blk_at[id], blk_at[id + 1]) sorted by block. */
typedef struct pd_runvals {
	uint64_t *self;
	uint32_t len, cap;
	uint32_t blk_nodes;        /* nodes covered by blk_at (blk_at has one more) */
	uint32_t *blk_at;
	pd_block_count *blk;
} pd_runvals;

struct pd_cct {
	const struct pd_profile *prof;  /* names of frames */
	pd_cct_node *nodes;
	uint32_t n, cap;
	pd_edge *edges;                 /* parent << 32 | frame → child id; released
	                                 * by pd_cct_finalise(), rebuilt by the next
	                                 * new child (cct.c) */
	size_t nedges, cap_edges;
	size_t nruns;
	pd_runvals *runs;               /* [nruns] */
	/* after pd_cct_finalise(): */
	uint64_t *self_sum, *total_sum; /* [n] */
	uint64_t **total_runs;          /* [nruns][n] */
	uint32_t *child_ids;            /* children of every node, by parent, in id order */
	bool final;
	/* self of samples perf draws no chain for (cct_chainless.c) */
	pd_u64map chainless;            /* run << 32 | node → index + 1 in chainless_v */
	uint64_t *chainless_v;
	size_t nchainless, cap_chainless;
};

int pd_cct_init(pd_cct *t, const struct pd_profile *prof);
void pd_cct_free(pd_cct *t);
/* Start run `run` (runs are added in order). */
int pd_cct_begin_run(pd_cct *t, size_t run);

/* The child of `parent` for `frame` whose path hash is `h`, created when
 * new; PD_NO_ID on ENOMEM or when the node limit is reached. */
uint32_t pd_cct_child_slow(pd_cct *t, uint32_t parent, uint32_t frame, uint64_t h);
static inline void pd_cct_prefetch(const pd_cct *t, uint64_t h)
{
	if (t->cap_edges)
		__builtin_prefetch(&t->edges[h & (t->cap_edges - 1)]);
}
static inline uint32_t pd_cct_child_id(pd_cct *t, uint32_t parent, uint32_t frame, uint64_t h)
{
	if (t->cap_edges) {
		uint64_t key = (uint64_t)parent << 32 | frame;
		size_t mask = t->cap_edges - 1;
		for (size_t i = h & mask; t->edges[i].key != PD_IDMAP_EMPTY; i = (i + 1) & mask)
			if (t->edges[i].key == key)
				return t->edges[i].node;
	}
	return pd_cct_child_slow(t, parent, frame, h);
}
/* The leaf node of the path `frames` (frame ids, leaf first, n of
 * them) in `t`, made as needed; PD_NO_ID on ENOMEM or at the limit. */
uint32_t pd_cct_leaf_of(pd_cct *t, const uint32_t *frames, size_t n);
/* Add `period` to the current run's self of `node`. */
int pd_cct_add_self(pd_cct *t, uint32_t node, uint64_t period);
/* Totals, sums and child lists; call after every run. */
int pd_cct_finalise(pd_cct *t);
/* Add `period` to the current run's self of `node` from samples whose
 * chain was dropped (pd_cct_chainless()). */
int pd_cct_add_chainless(pd_cct *t, uint32_t node, uint64_t period);
void pd_cct_chainless_free(pd_cct *t);

static inline uint64_t pd_cct_self_of(const pd_cct *t, uint32_t id, size_t run)
{
	if (run == SIZE_MAX)
		return t->self_sum[id];
	if (run >= t->nruns || id >= t->runs[run].len)
		return 0;
	return t->runs[run].self[id];
}

static inline uint64_t pd_cct_total_of(const pd_cct *t, uint32_t id, size_t run)
{
	if (run == SIZE_MAX)
		return t->total_sum[id];
	return run < t->nruns ? t->total_runs[run][id] : 0;
}

/* ---------------------------------------------------------------- blocks */

/*
 * A run's time grid and, per event, the samples whose leaf is a node per
 * block, counted while folding (blocks.c).  Blocks are 2^shift ns from
 * t0, the first timed sample folded; when a sample falls beyond
 * PD_BLOCK_MAX blocks the width doubles (pairs merge) until it fits.
 */
#define PD_BLOCK_MAX 32
#define PD_BLOCK_SHIFT0 20          /* 2^20 ns, about 1 ms */

/* A node's samples in one block of the run being folded. */
typedef struct pd_blockcell {
	uint32_t node, block, count;
} pd_blockcell;

/* The block a node's latest samples fell in, still being counted. */
typedef struct pd_blockopen {
	uint32_t block1;                /* block + 1; 0: none yet */
	uint32_t count;
} pd_blockopen;

/*
 * One event's counts in the run being folded.  Samples come in time
 * order, so a node's blocks only grow: each node keeps one open cell, and
 * a sample in a later block closes it into `cells`, a log written in
 * sequence.  No lookup but the node's own slot; a sample out of order
 * (earlier than the node's open block) is logged as a cell of its own,
 * merged with its equals when the run ends.
 */
typedef struct pd_blockacc {
	pd_blockopen *open;             /* [nopen], by node id */
	uint32_t nopen;
	pd_blockcell *cells;
	uint32_t n, cap;
	uint64_t total[PD_BLOCK_MAX];   /* samples of the event per block */
} pd_blockacc;

typedef struct pd_blockrun {
	uint64_t t0;
	unsigned shift;
	bool timed;                     /* t0 is set: some sample had a time */
	uint32_t last;                  /* highest block used */
	pd_blockacc *acc;               /* [nacc], by event */
	size_t nacc;
} pd_blockrun;

void pd_blockrun_init(pd_blockrun *b);
void pd_blockrun_free(pd_blockrun *b);
/* Merge blocks until `t` fits. */
void pd_blockrun_widen(pd_blockrun *b, uint64_t t);

/* The block of a sample at `t` (has_time false: block 0), widening the
 * grid when it lies beyond the last block. */
static inline uint32_t pd_blockrun_index(pd_blockrun *b, bool has_time, uint64_t t)
{
	if (!has_time)
		return 0;
	if (!b->timed) {
		b->t0 = t;
		b->timed = true;
	}
	uint64_t i = t > b->t0 ? (t - b->t0) >> b->shift : 0;
	if (i >= PD_BLOCK_MAX) {
		pd_blockrun_widen(b, t);
		i = (t - b->t0) >> b->shift;
	}
	if (i > b->last)
		b->last = (uint32_t)i;
	return (uint32_t)i;
}

/* The slow paths of pd_blockrun_count(): room for the event and the
 * node, a block other than the node's open one.  0 or PD_ENOMEM. */
int pd_blockrun_count_new(pd_blockrun *b, uint32_t ev, uint32_t node, uint32_t block);
int pd_blockrun_switch(pd_blockacc *a, uint32_t node, uint32_t block);

/* Count a sample of event `ev` whose leaf is `node`, in `block`.  0 or
 * PD_ENOMEM. */
static inline int pd_blockrun_count(pd_blockrun *b, uint32_t ev, uint32_t node, uint32_t block)
{
	if (ev >= b->nacc || node >= b->acc[ev].nopen)
		return pd_blockrun_count_new(b, ev, node, block);
	pd_blockacc *a = &b->acc[ev];
	pd_blockopen *o = &a->open[node];
	a->total[block]++;
	if (o->block1 != block + 1)
		return pd_blockrun_switch(a, node, block);
	o->count += o->count != UINT32_MAX;
	return 0;
}

/* Count `n` samples at once (an imported stack's), as many calls of
 * pd_blockrun_count() would.  0 or PD_ENOMEM. */
int pd_blockrun_count_n(pd_blockrun *b, uint32_t ev, uint32_t node, uint32_t block,
			uint64_t n);

/* Store the run's grid and counts in the profile (run `run`). */
int pd_blockrun_finish(pd_blockrun *b, struct pd_profile *p, size_t run);

/* ---------------------------------------------------------------- stacks */

typedef struct pd_stacktab {
	pd_idmap index;      /* comm << 32 | leaf → entry */
	uint32_t *comm, *leaf;
	uint64_t *period, *samples;
	uint32_t n, cap;
	pd_stack *out;       /* built by pd_profile_stacks() */
	bool out_valid;
} pd_stacktab;

void pd_stacktab_init(pd_stacktab *s);
void pd_stacktab_free(pd_stacktab *s);
int pd_stacktab_add(pd_stacktab *s, uint32_t comm, uint32_t leaf, uint64_t period);
/* `samples` samples of `period` in all at once (an imported stack). */
int pd_stacktab_add_n(pd_stacktab *s, uint32_t comm, uint32_t leaf, uint64_t samples,
		      uint64_t period);

/* ---------------------------------------------------------------- sites */

/* An event's sites (sites.c, profile/sites.h): entries in the order first
 * met, their sites in one array. */
typedef struct pd_sitent {
	uint32_t run, leaf, pid, tid, cpu, comm, block, nsites;
	size_t at;                /* first site in pd_sitetab.sites */
	uint64_t samples, period;
} pd_sitent;

typedef struct pd_sitetab {
	pd_sitent *v;
	size_t n, cap;
	struct pd_site *sites;
	size_t nsites, cap_sites;
	pd_idmap index;           /* content hash (probing on) → entry index */
} pd_sitetab;

void pd_sitetab_init(pd_sitetab *t);
void pd_sitetab_free(pd_sitetab *t);

/* The profile's maps of its sites, and which runs kept sites. */
typedef struct pd_sitemap {
	uint32_t dso;             /* string id */
	bool kernel;
	uint64_t start, end, pgoff;
} pd_sitemap;

typedef struct pd_sitemaps {
	pd_sitemap *v;
	size_t n, cap;
	pd_u64map index;          /* content hash (probing on) → index + 1 */
	bool *run;                /* run → folded keeping sites */
	size_t cap_run;
} pd_sitemaps;

void pd_sitemaps_free(pd_sitemaps *m);

/* ---------------------------------------------------------------- events */

typedef struct pd_pevent {
	char *name;
	uint32_t type;
	uint64_t config;
	char *pmu;           /* PMU name when known, else NULL */
	bool dummy;
	pd_cct tree;
	pd_stacktab stacks;
	pd_sitetab sites;    /* PD_PROFILE_KEEP_SITES */
	uint64_t *total, *samples, *unresolved;  /* [nruns] */
	uint64_t *block_samples;  /* [nruns * PD_BLOCK_MAX]: samples per time block */
	uint64_t total_sum, samples_sum, unresolved_sum;
	/* what the stack filters did (stackfilter.c): per run, per
	 * pd_stack_filter, samples then period; runs [0, sf_runs) */
	uint64_t *sf;
	size_t sf_runs;
	/* flat view cache */
	pd_flat_entry *flat;
	uint32_t *flat_frame;    /* entry index → frame id */
	uint64_t *flat_vals;     /* backing store of the per-run arrays */
	uint32_t *flat_of_frame; /* frame id → entry index, PD_NO_ID */
	uint32_t *same_anc;      /* node id → nearest ancestor of the same frame */
	uint32_t *frame_nodes, *frame_nodes_at; /* nodes by frame (CSR) */
	size_t nflat;
	bool flat_valid;
} pd_pevent;

/* ---------------------------------------------------------------- filters */

typedef struct pd_idset {
	uint32_t *v;
	size_t n;
} pd_idset;

/* The kinds of list filter (pd_filter_kind), comm to dso. */
#define PD_FILTER_NKINDS 5

typedef struct pd_filters {
	char **comms;
	size_t ncomms;
	pd_idset pids, tids, cpus;
	char **dsos;
	size_t ndsos;
	uint64_t time_start, time_end;
	bool any;            /* some sample-level filter is set (all but dsos) */
	/* per-value counters of a run (`hits`): kind k's values at
	 * [at[k], at[k + 1]); at[PD_FILTER_NKINDS] values in all */
	size_t at[PD_FILTER_NKINDS + 1];
	char **text;         /* each value as text, by counter index */
} pd_filters;

/* Check and copy the filters of `o`.  0, PD_EINVAL (a list with values
 * but no array, a NULL or empty name, a time range that ends before it
 * starts: the message says which) or PD_ENOMEM. */
int pd_filters_copy(pd_filters *f, const pd_profile_options *o, pd_error *err);
void pd_filters_free(pd_filters *f);
/* "comm", "pid", "tid", "cpu" or "dso"; NULL out of range. */
const char *pd_filters_kind_name(pd_filter_kind k);
/* True when the sample passes the pid/tid/cpu/comm/time filters; every
 * comm, pid, tid and cpu value equal to the sample's adds 1 to its
 * counter in `hits` (pass or not). */
bool pd_filters_sample(const pd_filters *f, const pd_resolved_sample *rs, uint64_t *hits);
/* True when `dso` (a path or bracketed name) is one of the --dso names. */
bool pd_filters_dso(const pd_filters *f, const char *dso);
/* Add `n` (samples whose leaf is in `dso`) to the counter of every dso
 * value that names it. */
void pd_filters_dso_hits(const pd_filters *f, const char *dso, uint64_t n, uint64_t *hits);

/* ---------------------------------------------------------------- stack filters */

/* The expressions' slots: the options' fields in order. */
enum { PD_SF_FOCUS, PD_SF_IGNORE, PD_SF_HIDE, PD_SF_PRUNE, PD_SF_NRE };

typedef struct pd_stackfilter {
	char *text[PD_SF_NRE];    /* copies of the options' expressions; NULL unset */
	regex_t re[PD_SF_NRE];    /* compiled where text is set */
	bool any;
	uint8_t *verdict;         /* by frame id: 0 not matched yet, else
	                           * 1 | 2 << slot for each slot that matches */
	size_t cap;
	uint32_t *kept;           /* the stack being filtered, leaf first */
	size_t cap_kept;
} pd_stackfilter;

/* Copy and compile the expressions of `o`; the options' fields then point
 * at the copies.  0, PD_EINVAL (an expression regcomp refuses, or hide or
 * prune_from with PD_PROFILE_KEEP_SITES: the message says which) or
 * PD_ENOMEM. */
int pd_stackfilter_init(pd_stackfilter *f, pd_profile_options *o, pd_error *err);
void pd_stackfilter_free(pd_stackfilter *f);

/*
 * Filter the stack `frames` (frame ids of `p`, leaf first, n > 0) of
 * `samples` samples of `period` in all in event `e`, run `run`, counting
 * what was done.
 * *out is the stack to fold (`frames` itself or the filter's buffer, valid
 * until the next call) and *nout its length: 0 when the sample is
 * dropped.  0 or PD_ENOMEM.
 */
int pd_stackfilter_apply(pd_profile *p, pd_pevent *e, size_t run, const uint32_t *frames,
			 size_t n, uint64_t samples, uint64_t period, const uint32_t **out,
			 size_t *nout);

/* ---------------------------------------------------------------- profile */

/* ---------------------------------------------------------------- procs */

/*
 * How many processes ran under each command (procs.c): a command that
 * ran as several at once in a run (a parallel build's compilers, several
 * perf tools) is a mix of jobs, one that ran as one process a program.
 */
typedef struct pd_procs {
	pd_idmap of;        /* command string id → index */
	pd_idmap seen;      /* command id << 32 | pid → 1, this run's */
	uint32_t *most;     /* per index: the most pids in one run */
	uint32_t *now;      /* per index: pids in run `run_of` */
	uint32_t *run_of;
	uint32_t n, cap;
	size_t run;         /* the run `seen` holds */
} pd_procs;

void pd_procs_init(pd_procs *t);
void pd_procs_free(pd_procs *t);
/* Process `pid` ran under command `comm` (a string id) in run `run`.
 * 0 or PD_ENOMEM. */
int pd_procs_note(pd_procs *t, size_t run, uint32_t comm, uint32_t pid);

struct pd_profile {
	pd_profile_opts options;     /* the caller's, imported: options.o, its
	                              * filter lists pointing at `filters` */
	pd_filters filters;
	pd_stackfilter stackfilter;  /* focus, ignore, hide, prune-from */
	uint64_t *filter_hits;       /* samples each filter value matched, all runs */
	pd_strtab strings;
	pd_frametab frames;
	pd_pevent **events;          /* individually allocated: trees are pointed to */
	size_t nevents, cap_events;
	size_t nruns, cap_runs;
	char **run_paths;
	uint64_t *run_lost;
	uint64_t *run_read;           /* SAMPLE records read, before filters */
	bool *run_data_lost;          /* the reader warned of missing records */
	uint64_t *run_span;           /* SAMPLE_TIME last - first, ns; 0 unknown */
	uint64_t *run_start;          /* wall-clock ns of the first sample; 0 unknown
	                               * (runstart.c) */
	uint64_t *run_block_width;    /* ns; 0: no sample had a time */
	uint32_t *run_blocks;         /* blocks used (at least 1) */
	struct pd_facts *facts;       /* symbol facts (facts.c) */
	pd_run_info *run_info;        /* [cap_info] perf's header facts, strings
	                               * interned in `strings` (runinfo.c) */
	size_t cap_info;
	struct pd_dsobid *bids;       /* build-ids by (run, dso), runinfo.c */
	uint32_t nbids, cap_bids;
	pd_idmap bid_of;              /* run << 32 | dso string id → index */
	pd_symbol_origin *origins;    /* where symbols came from (origins.c) */
	size_t norigins, cap_origins;
	pd_sitemaps sitemaps;         /* PD_PROFILE_KEEP_SITES (sites.c) */
	pd_procs procs;               /* processes per command (procs.c) */
	pd_warnings warnings;         /* no cap: a reader's are capped */
	/* its worker threads: the producer, the release thread, and its
	 * sessions' (session options' `threads`) */
	pd_threads threads;
	/* the last run's session, being freed off the caller's path */
	pthread_t releaser;
	bool releasing;
};

/* ---------------------------------------------------------------- facts */

typedef struct pd_facts pd_facts;
/* Symbol facts of a profile (facts.c): the files each run named each dso
 * from, their symbol tables and DWARF read on the first question.  Names
 * are compared as `o` names nodes. */
int pd_facts_new(pd_facts **out, const pd_profile_options *o, pd_threads *threads);
void pd_facts_free(pd_facts *f);
/* Remember the files session `s` named `dso` from (`kernel`: frames in
 * kernel mode); reads none of them.  0 or PD_ENOMEM. */
int pd_facts_record(pd_facts *f, pd_session *s, const char *dso, bool kernel);
/* Symbol tables and DWARF indexes read so far (for the tests: none until
 * a question is asked). */
size_t pd_facts_loaded(const pd_profile *p);

/* ---------------------------------------------------------------- run info */

/* Run `run`'s wall-clock start (runstart.c): from reader `r`'s CLOCK_DATA
 * and the first sample's time (`first`, when `have_first`), else the
 * modification time of the regular file `path` less the run's span. */
void pd_profile_keep_start(pd_profile *p, size_t run, const pd_reader *r, const char *path,
			   bool have_first, uint64_t first);

/* Keep `ri`'s strings (NULL: unknown) as run `run`'s facts.  0 or
 * PD_ENOMEM. */
int pd_profile_keep_run_info(pd_profile *p, size_t run, const pd_run_info *ri);
/* Keep `len` (1..20) bytes of build-id for `dso` in run `run`; a second
 * one for the same pair is ignored.  0, PD_EINVAL (a bad length) or
 * PD_ENOMEM. */
int pd_profile_keep_build_id(pd_profile *p, size_t run, const char *dso, const uint8_t *id,
			     size_t len);
/* What header `hi` says of run `run`: its facts, and the build-ids of the
 * `n` dsos (the run's frames' dsos) that it lists.  0 or PD_ENOMEM. */
int pd_profile_keep_header(pd_profile *p, size_t run, const pd_header_info *hi,
			   const char *const *dsos, size_t n);
void pd_profile_runinfo_free(pd_profile *p);
/* `s` interned in the profile's strings into *out, NULL staying NULL
 * (runinfo.c); false when memory runs out. */
bool pd_profile_keep_str(pd_profile *p, const char *s, const char **out);

/* Where session `s` found the symbols of the `n` dsos of a run's frames
 * (`kernel[i]`: in kernel mode), for those not kept yet.  0 or
 * PD_ENOMEM. */
int pd_profile_keep_origins(pd_profile *p, pd_session *s, const char *const *dsos,
			    const bool *kernel, size_t n);
void pd_profile_origins_free(pd_profile *p);

/* Sums over runs and the trees' derived values, after a run: 0 or
 * PD_ENOMEM. */
int pd_profile_end_run(pd_profile *p);
/* Grow per-run arrays of every event for run `run`. */
int pd_profile_begin_run(pd_profile *p, const char *path);
/* Keep warning `msg` of kind `kind` about the run being read from `path`
 * (prefixed with the path unless it names it); a warning of data lost
 * marks the run (pd_profile_run_truncated()).  It reaches the caller's
 * sink at once: call it on the caller's thread only. */
void pd_profile_warn(pd_profile *p, const char *path, pd_warning_kind kind, const char *msg);
/* Events: a new event for `attr`, or the existing one it matches that this
 * run has not claimed yet (`claimed` has one flag per event). */
int pd_events_match(pd_profile *p, const pd_attr *attr, const bool *claimed,
		    size_t nclaimed, int *out);
/* Free `s` on a thread of its own (joined by pd_profile_wait_release()),
 * or here when the budget or the system has none: unmapping a large input
 * takes milliseconds that the views can use. */
void pd_profile_release_session(pd_profile *p, pd_session *s);
/* Wait for the session handed to pd_profile_release_session(). */
void pd_profile_wait_release(pd_profile *p);
/* Invalidate cached views (after a run). */
void pd_events_invalidate(pd_profile *p);
void pd_event_free(pd_pevent *e);
/* Build event `ev`'s flat view and node links if the profile changed. */
int pd_profile_prepare_flat(pd_profile *p, size_t ev, pd_error *err);

#endif
