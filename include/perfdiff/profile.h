/*
 * perfdiff/profile.h — folding samples into calling-context trees.
 *
 * A profile holds, for every event of the input, one calling-context tree
 * (CCT): nodes are (canonical symbol, dso) reached along a caller path from
 * the root, weighted by sample period, full depth.  Several runs of the same
 * setup can be added; every node keeps its per-run values (for statistics
 * later) and their sum.  From the tree come the three views the kernel
 * test robot's perf-profile metrics use:
 *
 *   self      period of samples whose leaf frame is the symbol;
 *   children  period of samples whose chain contains the symbol, counted
 *             once per sample even under recursion (inclusive cost);
 *   calltrace inclusive period of a symbol reached through a given caller
 *             path (a node of the tree, or a path prefix of it).
 *
 * All values are available as absolute period and as a share of the
 * event's total period (per run, and for the sum of runs).
 *
 *     pd_profile *p;
 *     pd_profile_options o;
 *     pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
 *     pd_profile_new(&p, &o, &err);
 *     pd_profile_add_file(p, "run1.data", &err);
 *     pd_profile_add_file(p, "run2.data", &err);
 *     int ev = pd_profile_default_event(p);
 *     ...
 *     pd_profile_free(p);
 *
 * Memory grows with the number of distinct stacks, not with samples:
 * strings and nodes are interned.
 *
 * Frames.  Each frame of a sample (pd_session, leaf first) becomes one
 * node key: (canonical name, dso, inlined, kernel).  Inline frames (absent
 * with PD_SESSION_NO_INLINE) are nodes of their own, flagged inlined, and
 * the innermost frame is the leaf: a sample in code inlined into `f` from
 * `g` has self on `g (inlined)`, children on both.  (perf 6.1 expands
 * inline frames only for DWARF-unwound chains; to compare with `perf
 * report` use PD_SESSION_PERF_COMPAT | PD_SESSION_NO_INLINE.)  A frame
 * without a symbol is named by its address in its dso, as perf names it:
 * "0x" and 16 hex digits; each such address is a key of its own.
 *
 * Samples.  Every sample that passes the filters (and, with
 * PD_PROFILE_HIDE_UNRESOLVED, has a named leaf) enters its event's total;
 * percentages are of that total, so with filters they are relative to
 * the selected samples (perf's --percentage relative).  Samples of the
 * `dummy` event and samples without any frame are ignored.
 *
 * Lifetime.  Every string and node handed out stays valid until
 * pd_profile_free(); arrays returned by pd_profile_flat() and
 * pd_profile_stacks(), and node handles' child lists, until the profile
 * is changed (pd_profile_add_file()) or freed.  A profile is used by one
 * thread at a time, with two exceptions: once an event's flat view exists
 * (pd_profile_flat() returned), pd_profile_chains() only reads the
 * profile and may build that event's chain trees on several threads at
 * once; and the symbol facts (pd_profile_symbol_defined(),
 * pd_profile_inlined_into()) lock what they load, so several threads may
 * ask them at once.
 *
 * Worker threads.  A profile and the sessions it opens share one budget,
 * the `threads` of its session options (PD_THREADS_DEFAULT: no limit;
 * 0: none, all work on the caller's thread, the same profile):
 *   producer  one per pd_profile_add_file(), reading the session (read,
 *             name, unwind, filter) while the caller's thread folds; it
 *             has the first slot; joined before the call returns;
 *   release   one freeing a finished run's session (its tables, DWARF and
 *             mappings) while the caller goes on; joined by the next
 *             pd_profile_add_file() and by pd_profile_free();
 *   the session's (session.h): prefetch, and an inflate worker while a
 *             debug file is opened, by pd_profile_add_file(), and by
 *             pd_profile_symbol_defined() / pd_profile_inlined_into()
 *             when they read a file;
 *   chains    pd_report_write() in text format (output.h): one building
 *             call chains ahead of the writer.
 * With no slot free a thread is not started and its work is done on the
 * thread that wanted it.
 */
#ifndef PERFDIFF_PROFILE_H
#define PERFDIFF_PROFILE_H

#include "session.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Profile flags. */
enum pd_profile_flag {
	PD_PROFILE_KEEP_SUFFIXES = 1u << 0,   /**< keep .isra/.constprop/.part/.cold/... */
	PD_PROFILE_HIDE_UNRESOLVED = 1u << 1, /**< perf's -U: drop samples with an unnamed leaf,
	                                           splice unnamed frames out of chains */
	PD_PROFILE_KEEP_SITES = 1u << 2,      /**< keep, per distinct (stack of instruction
	                                           addresses, command, pid, tid, time block),
	                                           the samples and period, with the maps
	                                           (start, end, file offset) and raw names of
	                                           its frames: what pd_profile_write_pprof()
	                                           writes as Locations per address, Mappings
	                                           and pid/tid labels (docs/pprof.md); memory
	                                           grows with distinct stacks */
	PD_PROFILE_KEEP_CPU = 1u << 3,        /**< with KEEP_SITES: the CPU too (a "cpu"
	                                           label), splitting stacks by CPU */
	PD_PROFILE_MERGE_UNRESOLVED = 1u << 4, /**< a dso's unnamed frames are one frame,
	                                           "[unknown]" of that dso, not one per
	                                           address: how perf diff and pd_diff_new()
	                                           key them anyway, so a profile built to be
	                                           compared gives the same diff with far
	                                           fewer nodes (a stripped binary's
	                                           thousands of addresses) */
};

/**
 * Options.  Initialise with PD_PROFILE_OPTIONS_INIT or
 * pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION), then change
 * what you need.  pd_profile_new() copies them, and the session options they
 * point to, and the filters; strings of the session options and its
 * symbol cache must outlive the profile.
 *
 * Versions: a struct of an older version than PD_PROFILE_OPTIONS_VERSION
 * (a program built against an older header) is accepted, the fields it
 * lacks taking their defaults; 0 or a newer version is PD_EINVAL.
 * Version 2 holds the session's options by pointer and the filters as
 * typed lists: version 1, which held the session's options by value and
 * the filters as comma-separated text, is refused (PD_EINVAL).  Version 3
 * added the warning sink.
 */
typedef struct pd_profile_options {
	unsigned int version;
	unsigned int flags;               /**< pd_profile_flag bits */
	const pd_session_options *session; /**< how files are read and symbolized;
	                                       NULL: PD_SESSION_OPTIONS_INIT */
	/*
	 * Filters: which samples enter the profile; all must pass.  A list
	 * of n values (an array of n, which pd_profile_new() copies); n = 0
	 * is no filter.  A sample passes a list when it has one of its
	 * values: comms, the thread's name at the sample's time; pids, tids,
	 * cpus, its process, thread and CPU (a cpu filter drops samples that
	 * carry no CPU); dsos, the dso of its leaf frame, by full path or by
	 * file name ("libc.so.6", "[kernel.kallsyms]").  time_start/time_end
	 * keep samples with start <= time <= end.  Which values matched no
	 * sample: pd_profile_filter_unmatched().
	 */
	const char *const *comms;         /**< names, none NULL or empty */
	size_t ncomms;
	const uint32_t *pids;
	size_t npids;
	const uint32_t *tids;
	size_t ntids;
	const uint32_t *cpus;
	size_t ncpus;
	const char *const *dsos;          /**< paths or file names, none NULL or empty */
	size_t ndsos;
	uint64_t time_start, time_end;    /**< ns; 0 = open */
	/*
	 * Stack filters (version 3), pprof's -focus, -ignore, -hide and
	 * -prune_from: each a POSIX extended regular expression (regcomp(3),
	 * REG_EXTENDED, unanchored: "^foo$" for the name alone) matched
	 * against the name of every frame of a sample's stack, the name the
	 * profile gives it (canonical unless PD_PROFILE_KEEP_SUFFIXES; an
	 * unnamed frame's is its address, "0x..." or "[unknown]").  NULL or
	 * "" is no filter.  They act while folding, in this order, so that
	 * totals, shares, every view and a diff are of what remains:
	 *   ignore      drop a sample when any frame matches;
	 *   focus       drop a sample unless some frame matches;
	 *   hide        remove the matching frames from a stack, keeping
	 *               the sample (its self goes to the nearest caller
	 *               left); a sample whose every frame matches is
	 *               dropped, as pprof drops it;
	 *   prune_from  cut a stack below the matching frame nearest the
	 *               leaf, keeping that frame, which becomes the leaf
	 *               (pprof's PruneFrom: with recursion the innermost
	 *               call is kept).
	 * What they removed: pd_profile_stack_filtered().  hide and
	 * prune_from change stacks, which a profile that keeps sites
	 * (PD_PROFILE_KEEP_SITES: per-address stacks for a pprof export)
	 * cannot follow: pd_profile_new() refuses the two together.
	 */
	const char *focus;
	const char *ignore;
	const char *hide;
	const char *prune_from;
	/* version 4 */
	pd_warn_fn warn;                  /**< each warning of the profile (those of
	                                       pd_profile_warning(): its inputs'
	                                       readers' and sessions', prefixed with
	                                       the input) as it is kept, with the
	                                       input's path (common.h); NULL
	                                       (default): poll.  The sinks of
	                                       `session` and of its reader options
	                                       are not called: the inputs are read
	                                       on a thread of the profile's, and
	                                       their warnings reach this sink from
	                                       the call that added the input, in
	                                       the getters' order, once it has
	                                       read the input */
	void *warn_ctx;                   /**< handed to `warn` */
} pd_profile_options;

#define PD_PROFILE_OPTIONS_VERSION 4

/** The defaults, for C callers: `pd_profile_options o = PD_PROFILE_OPTIONS_INIT;`
 * (a compound literal; the fields not named are 0 or NULL: no flags, the
 * session's defaults, no filters). */
#define PD_PROFILE_OPTIONS_INIT                                                \
	((pd_profile_options){ .version = PD_PROFILE_OPTIONS_VERSION })

/**
 * Fill `opts` with the defaults of PD_PROFILE_OPTIONS_INIT as far as
 * `version` went, and set `opts->version` to `version`; pass
 * PD_PROFILE_OPTIONS_VERSION.  Only the fields of that version are written,
 * so that a program built against an older header, whose struct is smaller,
 * may run against a newer library.
 * @return 0, or PD_EINVAL for a NULL `opts` or a version this library does
 *         not know (nothing written)
 */
PD_EXTERN(int) pd_profile_options_init(pd_profile_options *opts, unsigned version);

typedef struct pd_profile pd_profile;

/**
 * A new, empty profile.  The options (filter lists and session options
 * included) are copied.  0, or PD_EINVAL (a version this library does not
 * read, a filter list with values but no array or a NULL or empty name, a
 * time range ending before it starts; the message says which) /
 * PD_ENOMEM.
 */
PD_EXTERN(int) pd_profile_new(pd_profile **out, const pd_profile_options *opts,
			      pd_error *err);

/** Free a profile.  NULL is allowed. */
PD_EXTERN(void) pd_profile_free(pd_profile *p);

/**
 * Read `path` as one more run and fold its samples.  Events are matched to
 * the profile's events by (type, config & 0xffffffff, PMU); new events are
 * added.  Returns 0, or the reader's error (samples before a corrupt record
 * are kept; warnings are available from pd_profile_warning()).  A file that
 * cannot be opened adds no run; one that fails later is a run with the
 * samples read before the failure.
 *
 * `path` is a perf.data file, pipe stream or `--threads` directory.  To
 * take whatever a user names, a pprof profile too, use
 * pd_profile_add_input() (perfdiff/pprof.h), which tells them apart by
 * content (pd_input_detect()) and calls this or pd_profile_add_pprof().
 */
PD_EXTERN(int) pd_profile_add_file(pd_profile *p, const char *path, pd_error *err);

/** Number of runs added. */
PD_EXTERN(size_t) pd_profile_run_count(const pd_profile *p);

/** The path run `run` was read from, or NULL when out of range. */
PD_EXTERN(const char *) pd_profile_run_path(const pd_profile *p, size_t run);

/** Samples the kernel reported lost in run `run` (SIZE_MAX: all runs): the
 *  sum of its LOST records or of its LOST_SAMPLES records, whichever is
 *  larger, since perf 6.x writes each loss as both. */
PD_EXTERN(uint64_t) pd_profile_lost(const pd_profile *p, size_t run);

/** SAMPLE records read from run `run`'s file (SIZE_MAX: all runs), every
 *  event's and before filters: what pd_profile_lost() is a share of. */
PD_EXTERN(uint64_t) pd_profile_run_samples_read(const pd_profile *p, size_t run);

/** Whether run `run`'s input lost records: the reader warned of a cut, a
 *  garbage tail or a recording perf did not finish (a PD_WARN_DATA_LOST
 *  warning); its samples are those before the loss. */
PD_EXTERN(bool) pd_profile_run_truncated(const pd_profile *p, size_t run);

/**
 * Recording span of run `run` in ns, the duration per-second rates are
 * taken over: the file's SAMPLE_TIME feature (last minus first sample
 * time), else, where the file has no such feature (pipe mode, perf before
 * 4.x), the latest minus the earliest time of its samples; 0 when its
 * samples carry no time.  SIZE_MAX: the sum over all runs.
 */
PD_EXTERN(uint64_t) pd_profile_run_span(const pd_profile *p, size_t run);

/**
 * Wall-clock time of run `run`'s first sample, in ns since the epoch
 * (UTC); 0 unknown.  From the recording's CLOCK_DATA feature (perf record
 * -k) when it has one: what `perf script -F tod` prints for that sample.
 * Else an estimate: the file's modification time less the run's span
 * (perf writes the file's header when the recording ends, so this holds
 * while the file is not copied or touched since); 0 for a pipe.  A run
 * read from pprof: its time_nanos.  SIZE_MAX: the earliest known start.
 */
PD_EXTERN(uint64_t) pd_profile_run_start(const pd_profile *p, size_t run);

/**
 * What perf's header said of a run (`perf report --header-only`): each
 * field NULL when the file has no such feature, or when the run was read
 * from a pprof file without the comments an export writes (docs/pprof.md).
 * Owned by the profile, valid until pd_profile_free().  Fields are only
 * ever appended: a caller built against this header reads these.
 */
typedef struct pd_run_info {
	const char *perf_version; /**< HEADER_VERSION: "6.1.187" */
	const char *hostname;     /**< HEADER_HOSTNAME */
	const char *osrelease;    /**< HEADER_OSRELEASE: the kernel's release, `uname -r` */
	const char *arch;         /**< HEADER_ARCH: "x86_64" */
	const char *cmdline;      /**< HEADER_CMDLINE: perf's arguments joined by spaces */
} pd_run_info;

/** The header facts of run `run`, or NULL when out of range (a run read
 *  from a file without them has every field NULL). */
PD_EXTERN(const pd_run_info *) pd_profile_run_info(const pd_profile *p, size_t run);

/**
 * The build-id run `run` knew for `dso` (a dso as pd_cct_dso() names it):
 * for a perf.data run the BUILD_ID header feature's entry of that path
 * (what `perf buildid-list` prints), for a pprof run its Mapping's
 * build_id.  Sets `*id` (unless NULL) to its bytes, valid until
 * pd_profile_free(), and returns their number, 1 to 20; 0 when none is
 * known.  SIZE_MAX: the build-id of every run that knows one for `dso`,
 * 0 when two runs know different ones (two builds at one path).
 */
PD_EXTERN(size_t) pd_profile_dso_build_id(const pd_profile *p, size_t run, const char *dso,
					  const uint8_t **id);

/**
 * Where the symbols of one dso came from (pd_profile_symbol_origin()).
 * Fields are only ever appended.
 */
typedef struct pd_symbol_origin {
	const char *dso;          /**< as pd_cct_dso() names it; "[kernel.kallsyms]"
	                               (`kernel`) for the kernel's table, which names
	                               its modules too */
	bool kernel;              /**< the kernel's table */
	const char *from;         /**< the source that gave the symbols: a
	                               symbols_from entry or the build-id cache as
	                               given (a directory, a tarball, a URL),
	                               "/usr/lib/debug", "the recorded path",
	                               "debuginfod", "the running kernel" (the vdso);
	                               kernel: the kallsyms option's file, a source
	                               or build-id cache holding the recorded
	                               kernel's kallsyms, or "/proc/kallsyms" (this
	                               machine's kernel, used only when its build-id
	                               is the recorded one).  NULL: nothing found,
	                               the dso's frames are [unknown] */
	const char *vmlinux;      /**< kernel: the vmlinux that named core kernel
	                               text, or NULL */
	const char *searched;     /**< user dso not found: the sources searched, as
	                               the warning says them; else NULL */
	uint8_t build_id[20];     /**< the recorded build-id */
	size_t build_id_size;     /**< its bytes; 0: none recorded */
} pd_symbol_origin;

/** Dsos whose origin is known: every file-backed user dso and the kernel
 *  of the frames of the profile's runs (not JIT, BPF, anonymous memory),
 *  as the first run that named it found them; in the order met. */
PD_EXTERN(size_t) pd_profile_symbol_origin_count(const pd_profile *p);
/** Origin `i` (< pd_profile_symbol_origin_count()), valid until
 *  pd_profile_free(); NULL when out of range. */
PD_EXTERN(const pd_symbol_origin *) pd_profile_symbol_origin(const pd_profile *p, size_t i);

/** Number of events. */
PD_EXTERN(size_t) pd_profile_event_count(const pd_profile *p);

/** Name of event `ev` as perf prints it ("cycles:pp", "cpu-clock:ppp"); NULL when out of range. */
PD_EXTERN(const char *) pd_profile_event_name(const pd_profile *p, size_t ev);

/**
 * The event the robot would pick: cycles (HARDWARE, config low 32 bits 0,
 * any PMU), else cpu-clock, else task-clock, else the first with samples;
 * never `dummy`.  An event with samples is preferred at every step.  -1
 * when there is none.
 */
PD_EXTERN(int) pd_profile_default_event(const pd_profile *p);

/** Find an event by name (exact, or without modifiers: "cycles" finds "cycles:pp"); -1. */
PD_EXTERN(int) pd_profile_find_event(const pd_profile *p, const char *name);

/** Total period of event `ev` in run `run` (run == SIZE_MAX: all runs). */
PD_EXTERN(uint64_t) pd_profile_total(const pd_profile *p, size_t ev, size_t run);

/** Samples of event `ev` in run `run` (SIZE_MAX: all runs). */
PD_EXTERN(uint64_t) pd_profile_samples(const pd_profile *p, size_t ev, size_t run);

/**
 * Period of the samples of event `ev` in run `run` (SIZE_MAX: all runs)
 * whose leaf frame has no symbol.  They are part of the total, unless
 * PD_PROFILE_HIDE_UNRESOLVED dropped them.
 */
PD_EXTERN(uint64_t) pd_profile_unresolved(const pd_profile *p, size_t ev, size_t run);

/** Number of nodes in event `ev`'s tree, the root included. */
PD_EXTERN(size_t) pd_profile_node_count(const pd_profile *p, size_t ev);

/* ------------------------------------------------------------- the tree */

typedef struct pd_cct_node pd_cct_node;

/** The root of event `ev`'s tree (a node with no symbol; its children are
 *  outermost callers); NULL when `ev` is out of range. */
PD_EXTERN(const pd_cct_node *) pd_profile_root(const pd_profile *p, size_t ev);

/** Symbol of a node (canonical name), or NULL for the root. */
PD_EXTERN(const char *) pd_cct_symbol(const pd_cct_node *n);
/** Dso of a node ("[kernel.kallsyms]", path), or NULL for the root. */
PD_EXTERN(const char *) pd_cct_dso(const pd_cct_node *n);
/** Source file of a node's function as its DWARF names it (the DW_AT_name
 *  of its compilation unit, pd_frame.unit), or NULL: unknown (no DWARF
 *  read for it, the kernel, an inline frame, an unresolved frame). */
PD_EXTERN(const char *) pd_cct_unit(const pd_cct_node *n);
/** True when the node is an inline frame. */
PD_EXTERN(bool) pd_cct_inlined(const pd_cct_node *n);
/** True when the frame is kernel code. */
PD_EXTERN(bool) pd_cct_kernel(const pd_cct_node *n);
/** True when the frame has no symbol (its name is its address). */
PD_EXTERN(bool) pd_cct_unresolved(const pd_cct_node *n);
/** Parent (caller), NULL for the root. */
PD_EXTERN(const pd_cct_node *) pd_cct_parent(const pd_cct_node *n);
/** Number of children (callees) and child `i` (order: first seen; NULL when out of range). */
PD_EXTERN(size_t) pd_cct_child_count(const pd_cct_node *n);
PD_EXTERN(const pd_cct_node *) pd_cct_child(const pd_cct_node *n, size_t i);
/** Period of samples whose leaf is this node (run SIZE_MAX: all runs). */
PD_EXTERN(uint64_t) pd_cct_self(const pd_cct_node *n, size_t run);
/** Period of samples passing through this node (inclusive). */
PD_EXTERN(uint64_t) pd_cct_total(const pd_cct_node *n, size_t run);
/**
 * The part of pd_cct_self() from samples whose call chain was dropped
 * (pd_session_chain_dropped(): garbage in it, perf-compatible
 * naming): perf counts them in the Children and Self of their entry but
 * draws no call chain for them, so the robot's calltrace keys leave them
 * out.  Run SIZE_MAX: all runs.  0 for every node of most profiles.
 */
PD_EXTERN(uint64_t) pd_cct_chainless(const pd_cct_node *n, size_t run);
/** Depth of the node: 0 for the root, 1 for an outermost caller. */
PD_EXTERN(size_t) pd_cct_depth(const pd_cct_node *n);
/**
 * The node's number in its event's tree: 0 for the root, every node below
 * pd_cct_count() of its root, so that a caller can keep an array per node.
 * SIZE_MAX for NULL.  Numbers stay while the profile does not change.
 */
PD_EXTERN(size_t) pd_cct_id(const pd_cct_node *n);
/** The number of nodes of the tree that `n` belongs to; 0 for NULL. */
PD_EXTERN(size_t) pd_cct_count(const pd_cct_node *n);

/* ------------------------------------------------------------ time blocks */

/*
 * Time blocks, for estimating a row's variance from one run alone ("batch
 * means").  A two-proportion test takes a run's samples as independent
 * draws; bursts, phases and other load within the run are variance it
 * does not see.  The spread of a node's share across equal slices of the
 * run shows it.
 *
 * Each run has one grid, shared by all its events: blocks of equal
 * duration w = 2^k ns from t0, the time of the run's first sample that
 * enters the profile.  w starts at 2^20 ns (~1 ms) and doubles (merging
 * pairs of blocks) whenever a sample would fall at block 32 or later, so a
 * run has at most 32 blocks; a sample earlier than t0 counts in block 0.
 * The run's block count K is the last block used + 1.  Samples without a
 * time (recorded with --no-timestamp) all count in block 0.
 *
 * Counted are samples (not periods) that enter the profile (those
 * pd_profile_samples() counts), per (event, run, block), and per node
 * those whose leaf is the node.  For every node and run the counts of its
 * blocks add up to the samples whose leaf it is; for every event and run
 * the block totals add up to pd_profile_samples().
 */

/** Blocks of run `run`: K (1..32); 1 when its samples carry no time (or it
 *  has none); 0 when `run` is out of range. */
PD_EXTERN(size_t) pd_profile_block_count(const pd_profile *p, size_t run);

/** Width of run `run`'s blocks in ns (a power of two, at least 2^20); 0
 *  when none of its samples has a time or `run` is out of range. */
PD_EXTERN(uint64_t) pd_profile_block_width(const pd_profile *p, size_t run);

/** Samples of event `ev` in block `block` of run `run` (0 out of range). */
PD_EXTERN(uint64_t) pd_profile_block_samples(const pd_profile *p, size_t ev, size_t run,
					     size_t block);

/** Samples whose leaf is a node in one block. */
typedef struct pd_block_count {
	uint32_t block;    /**< 0 .. pd_profile_block_count() - 1 */
	uint32_t samples;  /**< saturates at UINT32_MAX */
} pd_block_count;

/**
 * The blocks of run `run` in which node `n` was the leaf of some sample:
 * sets `*out` (unless `out` is NULL) to that many entries, nonzero,
 * sorted by block, and returns their number (0 when there are none, `n`
 * is NULL or `run` out of range).  Valid until the profile is freed or
 * changed.
 */
PD_EXTERN(size_t) pd_cct_blocks(const pd_cct_node *n, size_t run, const pd_block_count **out);

/* ------------------------------------------------------------- flat views */

/** One symbol of the flat children/self view. */
typedef struct pd_flat_entry {
	const char *symbol;       /**< canonical name */
	const char *dso;
	bool kernel;
	uint64_t self, children;  /**< periods, all runs */
	const uint64_t *self_runs, *children_runs; /**< per run (pd_profile_run_count values) */
	bool inlined;             /**< the entry of an inline frame ("f (inlined)" in perf) */
	bool unresolved;          /**< no symbol: `symbol` is the address */
} pd_flat_entry;

/**
 * The flat view of event `ev`, keyed by (symbol, dso, inlined), sorted by
 * children descending (then self descending, then name).  Every key of the
 * tree appears once.  Valid until the profile is freed or changed.
 * 0, PD_EINVAL (bad `ev`) or PD_ENOMEM.
 */
PD_EXTERN(int) pd_profile_flat(pd_profile *p, size_t ev, const pd_flat_entry **out,
			       size_t *n, pd_error *err);

/* ------------------------------------------------ chains under an entry */

/** Which way the call chains under a flat entry run (perf's -g caller/callee). */
typedef enum pd_chain_order {
	PD_CHAIN_CALLER = 0, /**< the entry, then its callees down to the leaves:
	                          what the entry spends its time in */
	PD_CHAIN_CALLEE = 1, /**< the entry, then its callers out to the outermost
	                          frame: who calls the entry */
} pd_chain_order;

/**
 * One node of the chains under an entry: the chains of all samples that
 * contain the entry, merged by frame, as `perf report --children` builds
 * them: each sample counts once, from the occurrence of the entry perf
 * would take (callee order: the one nearest the leaf; caller order: the
 * one nearest the root).  Node 0 is the entry, the root of those chains.
 *
 * Caller order, as perf: a sample whose leaf is the entry is hung by its
 * whole outermost → leaf chain instead, even under recursion.  Such chains
 * are further roots (parent SIZE_MAX, depth 0), the nodes right after
 * node 0, one per outermost frame; node 0's total is then the entry's
 * children less its self, and may be 0.  The totals of all roots add up to
 * the entry's children.  Callee order has node 0 as its only root.
 */
typedef struct pd_chain_node {
	const char *symbol, *dso;
	bool kernel, inlined, unresolved;
	uint64_t total;           /**< period of the chains through this node */
	uint64_t self;            /**< period of the chains that end here (perf's own
	                               hits: the row of `-g folded` printing this path) */
	size_t parent;            /**< index of the parent; SIZE_MAX for a root */
	size_t depth;             /**< 0 for a root */
	size_t nchildren;
	const size_t *children;   /**< indices of the children, by total descending */
} pd_chain_node;

typedef struct pd_chain_tree pd_chain_tree;

/**
 * Build the chains under entry `entry` (an index into pd_profile_flat()'s
 * array) of event `ev`, for run `run` (SIZE_MAX: all runs).  Nodes whose
 * total is below `min_total` are left out (their period still counts in
 * their parents, when they have one); node 0 is always there.
 * Children are listed after their parent, roots (see pd_chain_node) right
 * after node 0.  Free with pd_chain_tree_free().  0, PD_EINVAL or
 * PD_ENOMEM.
 */
PD_EXTERN(int) pd_profile_chains(pd_profile *p, size_t ev, size_t entry,
				 pd_chain_order order, size_t run, uint64_t min_total,
				 pd_chain_tree **out, pd_error *err);

/** Number of nodes of a chain tree (at least 1). */
PD_EXTERN(size_t) pd_chain_tree_size(const pd_chain_tree *t);
/** Node `i` (0 = the entry), NULL when out of range. */
PD_EXTERN(const pd_chain_node *) pd_chain_tree_node(const pd_chain_tree *t, size_t i);
/** Free a chain tree.  NULL is allowed. */
PD_EXTERN(void) pd_chain_tree_free(pd_chain_tree *t);

/* ------------------------------------------------------- folded stacks */

/** One distinct stack of one command: the path root → `leaf`. */
typedef struct pd_stack {
	const char *comm;         /**< thread name at the sample's time (":PID" if unknown) */
	const pd_cct_node *leaf;  /**< walk pd_cct_parent() up to the root for the frames */
	uint64_t period;          /**< all runs */
	uint64_t samples;         /**< all runs */
} pd_stack;

/**
 * The distinct (command, stack) pairs of event `ev` in the order first
 * seen: the data of Brendan Gregg's collapsed stacks.  Valid until the
 * profile is freed or changed.  0 or PD_EINVAL.
 */
PD_EXTERN(int) pd_profile_stacks(pd_profile *p, size_t ev, const pd_stack **out,
				 size_t *n, pd_error *err);

/**
 * The same pairs one at a time, without building pd_profile_stacks()'s
 * array: for readers that hold the profile const, such as a diff, which
 * may run on several threads over one profile.  pd_profile_stack_count()
 * is 0 for an event out of range; pd_profile_stack_at() fills `*out` with
 * pair `i` (the order of pd_profile_stacks()) and returns false, leaving
 * it untouched, when `ev` or `i` is out of range.  Valid as long as
 * pd_profile_stacks()'s entries.
 */
PD_EXTERN(size_t) pd_profile_stack_count(const pd_profile *p, size_t ev);
PD_EXTERN(bool) pd_profile_stack_at(const pd_profile *p, size_t ev, size_t i, pd_stack *out);

/**
 * The most processes (distinct pids) that ran under command `comm` in one
 * run: 1 for a program, more for a command run as many processes at once
 * (a parallel build's compilers); 0 for a command the profile does not
 * know, or runs read from pprof without pids.
 */
PD_EXTERN(size_t) pd_profile_comm_processes(const pd_profile *p, const char *comm);

/* ------------------------------------------------------- filter matches */

/** The list filters of pd_profile_options, in the order of their fields. */
typedef enum pd_filter_kind {
	PD_FILTER_COMM = 0,
	PD_FILTER_PID = 1,
	PD_FILTER_TID = 2,
	PD_FILTER_CPU = 3,
	PD_FILTER_DSO = 4,
} pd_filter_kind;

/*
 * What each filter value matched, over all runs read so far.  A value
 * matches a sample that has it (its comm, pid, tid, cpu or leaf dso),
 * whatever the other filters say of that sample, among the samples a
 * profile folds (of an event, with at least one frame): so a value that
 * no sample of the input has is told apart from one that only the other
 * filters ruled out.  A run that failed part way counts the samples read
 * before the failure.
 */

/** Samples that value `i` of filter `kind` (its index in the options'
 *  array) matched; 0 when out of range. */
PD_EXTERN(uint64_t) pd_profile_filter_matches(const pd_profile *p, pd_filter_kind kind,
					      size_t i);

/**
 * The filter values that matched no sample: returns how many there are
 * and, when `i` is below that, sets `*what` to the filter's name ("comm",
 * "pid", "tid", "cpu", "dso") and `*value` to the value as text ("bash",
 * "1234"), valid until pd_profile_free(); either may be NULL.  Ordered by
 * filter as pd_filter_kind, then as in the options.
 *
 *     const char *what, *value;
 *     for (size_t i = 0; i < pd_profile_filter_unmatched(p, &what, &value, i); i++)
 *         printf("%s %s matched no sample\n", what, value);
 */
PD_EXTERN(size_t) pd_profile_filter_unmatched(const pd_profile *p, const char **what,
					      const char **value, size_t i);

/* -------------------------------------------------------- stack filters */

/** The stack filters of pd_profile_options, and what pd_profile_stack_filtered()
 *  counts under each. */
typedef enum pd_stack_filter {
	PD_STACK_FOCUS = 0,      /**< samples dropped: no frame matched `focus` */
	PD_STACK_IGNORE = 1,     /**< samples dropped: a frame matched `ignore` */
	PD_STACK_HIDE = 2,       /**< samples kept with frames removed by `hide` */
	PD_STACK_HIDE_ALL = 3,   /**< samples dropped: `hide` matched every frame */
	PD_STACK_PRUNE_FROM = 4, /**< samples kept with their stack cut by `prune_from` */
} pd_stack_filter;

/** Number of pd_stack_filter values. */
#define PD_STACK_NFILTERS 5

/**
 * What the stack filters did to event `ev` in run `run` (SIZE_MAX: all
 * runs): the samples counted under `f` (each sample under one kind of
 * drop at most: an ignored sample is not also counted as out of focus),
 * and, unless `period` is NULL, their period in `*period`.  Dropped
 * samples (FOCUS, IGNORE, HIDE_ALL) are not in pd_profile_samples() and
 * pd_profile_total(): the total before the stack filters is
 * pd_profile_total() plus their period.  0 when out of range or when the
 * profile has no stack filter.
 */
PD_EXTERN(uint64_t) pd_profile_stack_filtered(const pd_profile *p, size_t ev, size_t run,
					      pd_stack_filter f, uint64_t *period);

/** The expression of stack filter `f` as the options gave it (HIDE_ALL:
 *  hide's), valid until pd_profile_free(); NULL when it is not set. */
PD_EXTERN(const char *) pd_profile_stack_filter_regex(const pd_profile *p, pd_stack_filter f);

/* ----------------------------------------------------------------- peek */

/*
 * Peek: for each function whose name matches an expression, its callers
 * and callees with the period through each edge, as pprof's -peek shows
 * them: a sample counts once per edge even when the edge recurs in its
 * stack, and a function's calls to itself are no edge.  `cum` is the
 * function's children (inclusive) period, `self` its self period.
 * pd_profile_peek() makes one of a profile (the "base" side only);
 * pd_diff_peek() (diff.h) one of a diff, both sides aligned.
 */

/** One function, caller or callee of a peek, on both sides of a diff.
 *  Handed out as arrays: fields are never appended. */
typedef struct pd_peek_line {
	const char *base_symbol, *new_symbol; /**< NULL: absent on that side (a
	                                           profile's peek: new_symbol NULL) */
	const char *dso;                      /**< the base's when both */
	uint64_t base_period, new_period;     /**< through the edge (callers, callees)
	                                           or the function's cum */
	double base_pct, new_pct;             /**< as % of the side's total */
	double change;                        /**< new_pct - base_pct, points */
} pd_peek_line;

/** One matching function: its line, self, callers and callees (by period
 *  through the edge on the base side, then the new, descending).  Fields
 *  may be appended (handed out one at a time by pointer). */
typedef struct pd_peek_entry {
	pd_peek_line fn;                      /**< the function: cum period and share */
	uint64_t base_self, new_self;         /**< self period */
	double base_self_pct, new_self_pct, self_change;
	const pd_peek_line *callers;
	size_t ncallers;
	const pd_peek_line *callees;
	size_t ncallees;
	/* a diff's peek only (pd_diff_peek()), else NULL / 0: */
	const struct pd_diff_row *children_row; /**< its children row: change, q, significance */
	const struct pd_diff_row *self_row;     /**< its self row */
	const struct pd_diff_relation *const *relations; /**< the relations naming it as
	                                                       a symbol or a parent */
	size_t nrelations;
} pd_peek_entry;

typedef struct pd_peek pd_peek;

/**
 * The peek of event `ev` of `p` for the functions whose name matches
 * `regex` (POSIX extended, unanchored, against the name as the profile
 * gives it), in the order of their cum, largest first.  0 with *out set
 * (free with pd_peek_free(); it points into `p`, which must outlive it),
 * PD_EINVAL (a bad expression or event, the message says which) or
 * PD_ENOMEM.  No matching function is a peek with no entry.
 */
PD_EXTERN(int) pd_profile_peek(const pd_profile *p, size_t ev, const char *regex,
			       pd_peek **out, pd_error *err);

/** Entries of a peek, and entry `i` (NULL when out of range). */
PD_EXTERN(size_t) pd_peek_count(const pd_peek *pk);
PD_EXTERN(const pd_peek_entry *) pd_peek_at(const pd_peek *pk, size_t i);

/** Free a peek.  NULL is allowed. */
PD_EXTERN(void) pd_peek_free(pd_peek *pk);

/* ------------------------------------------------------------- warnings */

/** Warnings of the files read (reader and symbolizer), with the file name. */
PD_EXTERN(size_t) pd_profile_warning_count(const pd_profile *p);
PD_EXTERN(const char *) pd_profile_warning(const pd_profile *p, size_t i);
/** What warning `i` means (common.h: the reader's and the symbolizer's
 *  kinds); PD_WARN_OTHER when out of range. */
PD_EXTERN(pd_warning_kind) pd_profile_warning_kind(const pd_profile *p, size_t i);

/* ------------------------------------------------------- symbol facts */

/*
 * What the files behind a profile say about functions: evidence for
 * renames and inlining that samples alone cannot give.  A function absent
 * from the new build's symbol table has vanished; one present but not
 * sampled has not.  A DW_TAG_inlined_subroutine of `callee` inside
 * `caller` in the new build's DWARF confirms that callee's cost moved
 * into caller by inlining.
 *
 * Answers come from the files the profile's sessions actually named each
 * dso from: for user dsos the ELF found by build-id, symfs or recorded
 * path (and its debug file found by build-id), exactly as the symbolizer
 * found it; for "[kernel.kallsyms]" and modules the kallsyms file used
 * (an explicit `kallsyms` option, perf's cached copy, or /proc/kallsyms),
 * with the vmlinux's symbols when one named core kernel text.  Which
 * files those are is noted at the end of each run for every dso with
 * sampled frames; the files themselves are read on the first question
 * about the dso and kept until pd_profile_free(), so a profile nobody asks
 * opens none of them.
 *
 * `dso` is a dso as pd_cct_dso() names it; function names are compared as
 * the profile names nodes (demangled as the session options say, clone
 * suffixes folded unless PD_PROFILE_KEEP_SUFFIXES: see
 * pd_symbol_canonical()).  Over several runs: YES when any run's files
 * say yes; NO only when every run with frames of `dso` had files for it,
 * and all of them were read and say no.
 *
 * Thread safety: unlike the rest of this header, these two may be called
 * on the same profile from several threads at once (two diffs sharing one
 * side); a mutex inside the profile guards what they load.  They must not
 * overlap pd_profile_add_file() or pd_profile_free().
 */
typedef enum pd_symbol_fact {
	PD_FACT_UNKNOWN = 0,  /**< the files cannot tell */
	PD_FACT_NO = 1,
	PD_FACT_YES = 2,
} pd_symbol_fact;

/**
 * Whether `dso`'s symbol table defines a function `name`.  YES: some run's
 * table of `dso` has it (aliases and PLT stubs "f@plt" count).  NO: every
 * table of `dso` was read whole (a .symtab, in the file or its debug
 * file; kallsyms) and lacks it.  UNKNOWN: no whole table: not found, only
 * .dynsym (a stripped binary without debug file lacks its static
 * functions, so only its YES answers are trustworthy), JIT, BPF, the
 * vdso, a dso with no sampled frame.
 */
PD_EXTERN(pd_symbol_fact) pd_profile_symbol_defined(const pd_profile *p, const char *dso,
						    const char *name);

/**
 * Whether `dso`'s DWARF records `callee` inlined into `caller`: YES when a
 * DW_TAG_inlined_subroutine whose abstract origin is named `callee` lies
 * inside a concrete DW_TAG_subprogram named `caller`, at any depth (an
 * instance inlined into a function that was itself inlined into `caller`
 * counts).  NO: the DWARF has `caller` with code of its own and no such
 * instance.  UNKNOWN: no DWARF (kernel symbols from kallsyms, a stripped
 * file without debug file), or `caller` has no code of its own in it (it
 * was only ever inlined, or its unit has no debug info).
 */
PD_EXTERN(pd_symbol_fact) pd_profile_inlined_into(const pd_profile *p, const char *dso,
						  const char *callee, const char *caller);

/**
 * Canonical name of a symbol: compiler clone suffixes (.isra.N,
 * .constprop.N, .part.N, .cold, .llvm.<hash>, .lto_priv.N, .localalias)
 * removed wherever they appear as a dot-separated part of the name (also
 * in demangled C++ " [clone .isra.0]"); @plt kept; everything else, spaces
 * included, kept as is.  Writes at most `n` bytes to `buf` (NUL included;
 * `buf` may be NULL when `n` is 0) and returns the length of the result.
 */
PD_EXTERN(size_t) pd_symbol_canonical(const char *name, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
