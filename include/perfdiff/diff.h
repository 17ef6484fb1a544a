/*
 * perfdiff/diff.h — comparing two profiles: aligned call trees, explained
 * shifts, and a test that tells signal from noise.
 *
 * Every other profile-diff tool pairs nodes by exact name, so a renamed or
 * inlined function shows up as two unrelated rows, −X and +X.  A pd_diff
 * aligns the base and new calling-context trees (profile.h) and reports
 * each such shift once, as a relation that names both sides:
 *
 *   renamed   a node of the base pairs with a differently named node of the
 *             new tree under the same aligned caller, by evidence
 *             ("__fget_light" → "__fdget"; see "Evidence" below);
 *   inlined   a callee present only in the base whose cost reappears as
 *             self of its caller (or as an inline frame of it) in the new
 *             tree, its own callees now hanging off the caller; also where
 *             the base's frame-pointer chains skip that caller (a
 *             frameless leaf runs with the frame pointer still at its
 *             caller's frame): the callee under the caller's caller;
 *   outlined  the reverse;
 *   split     one base node ↔ several new siblings whose names share its
 *             stem ("foo" → "foo" + "foo.cold"), costs summing up;
 *   merged    the reverse;
 *   moved     the same subtree under a different aligned parent.
 * Nodes are never matched by address, and ambiguous evidence leaves nodes
 * unpaired rather than guessing.
 *
 * Evidence, made to hold on system-wide recordings of busy machines:
 *   - costs compare on scales other load does not move: a rename's two
 *     nodes as shares of their aligned caller, an inlining's as shares of
 *     the caller's caller, a move's as shares of the side's time outside
 *     the idle loop (do_idle, cpu_startup_entry);
 *   - a shared callee weighs as much of its function's cost as flows
 *     through the pair on each side: the system-call entry of a machine
 *     making many calls is weak evidence, a helper of the renamed
 *     function alone strong;
 *   - where much of a subtree's cost lies below its first level, the self
 *     cost there must sit at the same places on both sides (a change of
 *     system call shares the entry and do_syscall_64 and nothing below);
 *   - a rename scores callees, cost, name and source file (pd_cct_unit(),
 *     by basename) against `rename_score`, raised by 0.1 for names less
 *     alike than 0.35 and by 0.15 for two different source files;
 *   - the builds' files (profile.h, "symbol facts"): a function the new
 *     build still defines was not renamed away, a rename whose old name is
 *     gone and whose new name is new scores higher; DWARF with the callee
 *     inlined into the caller confirms an inlining, DWARF without refutes
 *     it, and without DWARF the callee must be gone from the symbol table;
 *   - keys are (symbol, dso basename): namesakes in other dsos, the kernel
 *     included, are other keys, and pairs never cross dsos (but for a
 *     renamed binary) nor kernel and user code; PLT stubs never pair;
 *   - every cost a relation rests on, and an inlining's growth of the
 *     caller's self, must clear three standard deviations of
 *     the side's own variation (pd_diff_noise()).
 * Each relation's `evidence` says in words what made it.  Frames without a symbol (which the
 * profile names by an address that ASLR moves from run to run) are
 * "[unknown]" of their dso, one node per caller and dso, as perf diff
 * merges them; they match only exactly, never in a relation, and their
 * rows are symbol "[unknown]" with the dso.
 *
 * Rows.  For the event compared, one row per key of three metrics, the
 * kernel test robot's (report.h, lkp-perf-profile.md):
 *
 *   calltrace  a caller path, callee order ("__fdget.do_select.
 *              core_sys_select"), cut to `depth` frames; value: the
 *              inclusive share of the samples whose path ends so, each
 *              sample credited at the occurrence nearest its leaf (as the
 *              robot's perf report does), no 0.5 % threshold; one row per
 *              dso when the innermost frame is "[unknown]";
 *   children   a (symbol, dso): inclusive share;
 *   self       a (symbol, dso): exclusive share;
 *   tree       a node of the aligned tree (PD_DIFF_TREE_ROWS): the full
 *              path, the inclusive share.
 *
 * Each row has, per side, one value per run, their mean and population
 * standard deviation (as the robot computes them), and the change: new
 * mean − base mean in percentage points of the event's total (or, with
 * PD_DIFF_ABSOLUTE, values are periods per second of recording and the
 * change is relative, in %).
 *
 * Statistics.  A run's value of a row is a count of samples times the
 * value of one sample, so sampling alone gives it a known variance v
 * (binomial for shares, Poisson for rates, at the value of both sides
 * pooled: the value if nothing changed).  Real runs vary more than that
 * (the program, the machine, the schedule), by a factor φ that differs
 * between rows and that 2 or 3 runs measure poorly: Welch's t on 2 runs a
 * side has about 1 degree of freedom, Cauchy tails, and a 30-sigma change
 * gets p ≈ 0.01 — which the correction for ~200 rows then discards.
 *
 * Processes.  A row belongs to a process: the command with most of its
 * cost (pd_diff_row.process; a renamed binary's new command is the
 * base's).  How much of the machine a process got moves with whatever
 * else ran — another job present in one run and not the next, a build
 * taking the program's CPU — while a row's share *within* its processes
 * holds still unless the code changed.  So rows are judged within their
 * processes, and each process's rows beside each other
 * (pd_diff_process_at()).
 *
 * With at least 2 runs on each side, a row's p-value comes from a
 * moderated t-test (Smyth 2004, the empirical Bayes of limma) on the
 * runs' values:
 *
 *   φ̂    = Σ_side SS_side / v̄_side  /  d,   d = n_base + n_new − 2
 *          (SS: squared deviations of a side's runs from its mean; v̄: the
 *          side's mean sampling variance of one run; E[SS] = (n − 1)·φ·v̄)
 *   prior  (d0, φ0) per process, fitted on its self rows of at least 10
 *          samples a run (self shares partition the samples: nearly
 *          independent) by limma's method of moments on log φ̂; with
 *          fewer than 5 such rows, their median φ̂ on a log scale (1
 *          without any) with d0 = 4; d0 never more than the degrees of
 *          freedom of the rows behind it, φ0 never below 1; rows without
 *          a process take the prior of all rows
 *   φ̃    = max(1, (d0·φ0 + d·φ̂) / (d0 + d), the time blocks' φ)
 *          — never below sampling noise nor the variation within runs
 *   t     = (new mean − base mean) / √(φ̃ · (v̄_base/n_base + v̄_new/n_new))
 *          with d0 + d degrees of freedom,
 *
 * on the runs' values standardized to their processes' mean shares (Σ
 * over the row's processes of its share of the process in the run times
 * the process's mean share over all runs of both sides): a process's
 * swings between runs cancel, and so does a process that got more of the
 * machine on one side — another job's absence cannot be told from it with
 * a handful of runs, and it moves every row of the process alike.  A row
 * whose standardized change goes against its plain change is not a change
 * of its own (p = 1).
 *
 * Every row borrows the run-to-run variation its process's rows show, so
 * 2 runs a side judge a 30-point change as clearly as they should, while
 * a row whose own runs scatter keeps its wide error, and another job's
 * swings do not widen the program's.  One φ serves both sides of a row:
 * under "no change" both sides are the same measurement.
 *
 * With one run on a side, the Cochran–Mantel–Haenszel statistic of the
 * row's samples over one 2×2 table per command (the row, the rest of the
 * command) × (base, new), its variance raised by the time blocks' φ of
 * the row within its process (PD_DIFF_TEST_BLOCKS; the statistic alone
 * without blocks, PD_DIFF_TEST_PROPORTION) and by its process's
 * inflation (pd_diff_inflation()).  A command that one side lacks informs
 * nothing; a row whose share within its processes moved against its share
 * of the whole is not a change of its own.
 *
 * Only rows that can be significant are tested together (independent
 * filtering, Bourgon et al. 2010): a row whose mean over all runs of both
 * sides, times the runs over those of the smaller side, is below
 * min_change cannot change by it, and one whose samples, all put on one
 * side, cannot reach the z the FDR level needs, cannot be significant;
 * neither depends on which run is on which side.  pd_diff_row.tested
 * says which rows were tested, pd_diff_tested_count() how many.  Their
 * p-values are corrected with Benjamini–Hochberg (q-values; 1 for a row
 * not tested).  A row is significant when its q-value is at most `fdr`
 * and its change is at least `min_change`.  Without processes (the
 * robot's keys, PD_DIFF_ABSOLUTE), the plain shares (rates) alone are
 * tested, and with one run a side their two-proportion or blocks test.
 *
 * Renamed binaries.  Keys use a dso's basename, so /old/app and /new/app
 * match.  A dso that costs more than sampling noise on one side only is
 * paired with one that does so on the other side only when their sampled
 * symbol names are mostly the same (at least 2, and at least half of the
 * smaller set, in common), 1:1, never a kernel dso with a user one, and
 * not when another candidate comes as close: ./app-1.2 and ./app-1.3
 * then share keys, named by the base's dso, and renames inside them are
 * found (pd_diff_dso_pair_at(); relations in them say so).
 *
 * BPF programs.  The kernel names a program "bpf_prog_<tag>_<name>", the
 * tag 16 hex digits of a hash of its instructions that any rebuild
 * changes.  Keys compare such names as "bpf_prog_<name>", so a program
 * recorded before and after a rebuild is one row, never a rename; rows
 * and relations spell it as the base does, tag included (the name perf
 * report shows for the base; the new side's when only it has the
 * program).  A program without a name keeps its tag.  With
 * PD_DIFF_LKP_KEYS rows are the robot's keys, which keep the tags.
 *
 *     pd_profile *base, *new;            // one or more runs each
 *     ...
 *     pd_diff_options o;
 *     pd_diff_options_init(&o, PD_DIFF_OPTIONS_VERSION);
 *     pd_diff *d;
 *     if (pd_diff_new(&d, base, new, &o, &err) == 0) {
 *         for (size_t i = 0; i < pd_diff_row_count(d); i++) {
 *             const pd_diff_row *r = pd_diff_row_at(d, i);
 *             if (r->significant)
 *                 printf("%s %+.1f\n", r->key, r->change);
 *         }
 *         pd_diff_free(d);
 *     }
 *
 * Lifetime: a diff points into both profiles (names, dsos); they must
 * outlive it and stay unchanged.  Rows, relations and their strings stay
 * valid until pd_diff_free().  A diff is used by one thread at a time.
 * The diff starts no thread of its own; reading the files behind its
 * symbol facts may (the profiles' budgets, profile.h).
 */
#ifndef PERFDIFF_DIFF_H
#define PERFDIFF_DIFF_H

#include "profile.h"
#include "robot.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Diff flags. */
enum pd_diff_flag {
	PD_DIFF_ABSOLUTE = 1u << 0,  /**< values: period per second of each run's recording
	                                  (SAMPLE_TIME span), change relative (%) */
	PD_DIFF_NO_ALIGN = 1u << 1,  /**< exact name matching only: no relations */
	PD_DIFF_TREE_ROWS = 1u << 2, /**< also give PD_DIFF_TREE rows */
	PD_DIFF_LKP_KEYS = 1u << 3,  /**< calltrace/children/self rows are the robot's keys
	                                  (pd_lkp_keys() of every run, zero-filled), for
	                                  profiles built with pd_lkp_profile_options() */
};

/** Options.  Initialise with PD_DIFF_OPTIONS_INIT or
 * pd_diff_options_init(&o, PD_DIFF_OPTIONS_VERSION). */
typedef struct pd_diff_options {
	unsigned int version;
	unsigned int flags;       /**< pd_diff_flag bits */
	const char *event;        /**< event to compare, by name as pd_profile_find_event()
	                               takes it; NULL: the base's pd_profile_default_event(),
	                               found in the new profile by name */
	unsigned depth;           /**< calltrace key frames (default 5, the robot's); 0: all */
	double min_change;        /**< smallest change that can be significant: points of
	                               share (default 0.1), or % with PD_DIFF_ABSOLUTE (default 5);
	                               negative (what PD_DIFF_OPTIONS_INIT sets): the default
	                               of the mode */
	double fdr;               /**< false discovery rate for Benjamini–Hochberg (default 0.05) */
	double rename_score;      /**< evidence score (0..1) a renamed pair needs (default 0.6) */
	double cost_tolerance;    /**< relative mismatch allowed when cost moves between
	                               nodes (inlined, split, moved; default 0.25) */
} pd_diff_options;

#define PD_DIFF_OPTIONS_VERSION 1

/** The defaults, for C callers: `pd_diff_options o = PD_DIFF_OPTIONS_INIT;`
 * (a compound literal; the fields not named are 0 or NULL). */
#define PD_DIFF_OPTIONS_INIT                                                   \
	((pd_diff_options){ .version = PD_DIFF_OPTIONS_VERSION,                \
			    .depth = 5,                                        \
			    .min_change = -1,                                  \
			    .fdr = 0.05,                                       \
			    .rename_score = 0.6,                               \
			    .cost_tolerance = 0.25 })

/**
 * Fill `opts` with the defaults of PD_DIFF_OPTIONS_INIT as far as `version`
 * went, and set `opts->version` to `version`; pass PD_DIFF_OPTIONS_VERSION.
 * Only the fields of that version are written, so that a program built
 * against an older header, whose struct is smaller, may run against a newer
 * library.
 * @return 0, or PD_EINVAL for a NULL `opts` or a version this library does
 *         not know (nothing written)
 */
PD_EXTERN(int) pd_diff_options_init(pd_diff_options *opts, unsigned version);

/** The metric of a row. */
typedef enum pd_diff_metric {
	PD_DIFF_CALLTRACE = 0,
	PD_DIFF_CHILDREN = 1,
	PD_DIFF_SELF = 2,
	PD_DIFF_TREE = 3,
	PD_DIFF_SHIFT = 4,  /**< the net of an explained shift (pd_diff_relation.row) */
} pd_diff_metric;

/** "calltrace", "children", "self", "tree", "shift"; NULL when out of range. */
PD_EXTERN(const char *) pd_diff_metric_name(pd_diff_metric m);

/** The kind of an explained shift. */
typedef enum pd_diff_relation_kind {
	PD_REL_RENAMED = 0,
	PD_REL_INLINED = 1,
	PD_REL_OUTLINED = 2,
	PD_REL_SPLIT = 3,
	PD_REL_MERGED = 4,
	PD_REL_MOVED = 5,
} pd_diff_relation_kind;

/** "renamed", "inlined", ...; NULL when out of range. */
PD_EXTERN(const char *) pd_diff_relation_kind_name(pd_diff_relation_kind k);

/**
 * One explained shift.  For split the new side may name several symbols
 * (`new_symbols`), for merged the base side; otherwise one each.
 * renamed: base_symbol → new_symbol.  inlined: base_symbol (the callee)
 * vanished into new_symbol (its caller); outlined: new_symbol (the callee)
 * appeared out of base_symbol (its caller).  moved: the same symbol, under
 * base_parent in the base and new_parent in the new tree.
 */
typedef struct pd_diff_relation {
	pd_diff_relation_kind kind;
	const char *base_symbol, *new_symbol;  /**< the first symbol of each side */
	const char *const *base_symbols;       /**< all symbols of the base side */
	size_t nbase_symbols;
	const char *const *new_symbols;        /**< all symbols of the new side */
	size_t nnew_symbols;
	const char *base_parent, *new_parent;  /**< aligned caller of each side (NULL: root);
	                                            inlined/outlined: the caller itself */
	const char *dso;                       /**< the dso (of the base side) */
	double base_change;    /**< change of the base symbols' children rows (summed
	                            over base_symbols), in the rows' unit */
	double new_change;     /**< the same over new_symbols */
	double net;            /**< the change left once the cost is carried across:
	                            renamed/split/merged: sum of the children changes of
	                            the distinct symbols of both sides; inlined: the
	                            caller's children change (new_change), outlined:
	                            the caller's (base_change) — the caller's inclusive
	                            cost holds the callee's either way — but where one
	                            side's chains skip the caller, both summed, as a
	                            rename's; moved: the symbol's children change (flat
	                            views ignore moves) */
	double score;          /**< evidence, 0..1 (1 for structural kinds that conserve cost exactly) */
	const char *evidence;  /**< what made the pair, in words ("symbol tables: __fget_light
	                            only in the base build, __fdget only in the new; 96 % vs
	                            95 % of do_select's time; names 0.17 alike") */
	const struct pd_diff_row *row; /**< the shift's own row (PD_DIFF_SHIFT): per run the
	                                    value whose change is `net`, tested like every row;
	                                    its `significant` is the shift's */
	bool rows_significant; /**< some row the shift explains changed significantly by
	                            its own test (a rename's −62.3 and +62.4): worth
	                            listing even when the net change is not */
} pd_diff_relation;

/** One side of a row. */
typedef struct pd_diff_side {
	double mean;           /**< mean over runs (absent in a run = 0, as the robot) */
	double stddev;         /**< population standard deviation over runs */
	const double *runs;    /**< the value of each run, pd_profile_run_count() of them */
	size_t nruns;
	size_t present;        /**< runs in which the key occurs at all */
} pd_diff_side;

/** One row. */
typedef struct pd_diff_row {
	pd_diff_metric metric;
	const char *key;       /**< robot-style key without "perf-profile.<metric>.<event>."
	                            (calltrace: frames joined by '.'; tree: frames root →
	                            node joined by ';') */
	const char *symbol;    /**< children/self: the symbol; calltrace/tree: innermost frame */
	const char *dso;       /**< the dso of `symbol` (NULL with PD_DIFF_LKP_KEYS) */
	pd_diff_side base, new;
	double change;         /**< points, or % with PD_DIFF_ABSOLUTE (a base mean of 0
	                            counts as 1e-100, as the robot does: huge values) */
	double p_value, q_value;  /**< of the row's own change */
	bool significant;      /**< q_value ≤ fdr and |change| ≥ min_change; for a row
	                            that a shift explains (`relation` set, not a shift row
	                            itself), the significance of the shift's net change
	                            instead: a renamed function's −X and +X rows are
	                            significant only when what is left once the cost is
	                            carried across is */
	const pd_diff_relation *relation; /**< the shift explaining this row, or NULL: the
	                                       largest relation naming the row's symbol
	                                       (moves: calltrace/tree rows only), else one
	                                       with a symbol on the row's path, else a move
	                                       from or to the row's symbol; for a
	                                       PD_DIFF_SHIFT row, its own shift */
	const char *process;   /**< the command with most of the row's samples, whose
	                            rows it is judged beside (pd_diff_process_at()); NULL
	                            when rows are not split by process */
	bool tested;           /**< the row is in the family of the FDR correction: it
	                            can reach min_change and significance whichever runs
	                            are on which side ("Statistics" above); q_value is 1
	                            and significant false when not */
} pd_diff_row;

/** Which test the p-values come from. */
typedef enum pd_diff_test_kind {
	PD_DIFF_TEST_MODERATED_T = 0, /**< ≥ 2 runs per side: moderated t over the runs
	                                   (run-to-run variation, shrunk to all rows'),
	                                   never below the time blocks' variation */
	PD_DIFF_TEST_PROPORTION = 1,  /**< 1 run on a side and no time blocks (samples
	                                   without time, PD_DIFF_ABSOLUTE, PD_DIFF_LKP_KEYS):
	                                   sampling noise only */
	PD_DIFF_TEST_BLOCKS = 2,      /**< 1 run on a side: moderated t over each run's
	                                   time blocks (variation within the run) */
	PD_DIFF_TEST_WELCH = PD_DIFF_TEST_MODERATED_T, /**< former name of the value, kept
	                                                    for sources written against it */
	PD_DIFF_TEST_TABLE = 3,       /**< a diff of a robot's table (pd_diff_new_lkp()):
	                                   Welch's t on each side's mean, standard
	                                   deviation and runs as the table gives them */
} pd_diff_test_kind;

typedef struct pd_diff pd_diff;

/**
 * Compare `base` with `new`.  Both profiles must have at least one run and
 * the event.  0, PD_EINVAL (bad options, no such event on a side, with
 * PD_DIFF_ABSOLUTE a run without a recording span: the message says
 * which), PD_ENOMEM or PD_ELIMIT (more than 2^32 tree nodes).
 */
PD_EXTERN(int) pd_diff_new(pd_diff **out, const pd_profile *base, const pd_profile *new_,
			   const pd_diff_options *opts, pd_error *err);

/**
 * The events pd_diff_new() compares: `event` (as pd_diff_options.event; a
 * name with modifiers also finds the event without them) or, for NULL,
 * the base's default event (pd_profile_default_event()), and on the new
 * side the event of the same name (its own default first when that is
 * it: several PMUs may share a name).  For callers that compare the two
 * profiles their own way (flame-graph stacks, say) and must pick the same.
 * @return 0 with ev[0] (base) and ev[1] (new) set, or PD_EINVAL when a
 *         side lacks the event (the message says which, and lists the
 *         events that side has with their samples, or that it has none).
 */
PD_EXTERN(int) pd_diff_events(const pd_profile *base, const pd_profile *new_, const char *event,
			      size_t ev[2], pd_error *err);

/**
 * Compare two columns of a kernel test robot's table (robot.h): column
 * `base_col` (usually 0, the parent commit) with `new_col`, for the rows
 * of event `event` (the robot's name, "cycles-pp"; NULL: the table's
 * first).  The same alignment as pd_diff_new(), on trees rebuilt from
 * the keys: each side's partial calling-context tree, the calltrace keys
 * (caller paths cut to five frames) joined where one continues another,
 * each function with a children or self key a node of its own under the
 * root, the shares the keys give attached to the nodes they describe,
 * and what the table does not list (a caller whose cost did not change)
 * estimated as the same on both sides and never a relation's evidence.
 * What makes a relation, beyond the trees:
 *   - a name that vanishes (0.00 in every run, the robot's print of a key
 *     absent from all runs) while another appears, or grows from near
 *     nothing by about its cost, under the same callers ("keys: X only in
 *     the base runs, Y only in the new");
 *   - two functions with no caller in common (the root's children) pair
 *     only with names alike;
 *   - the new commit's subject line naming a callee and inlining it
 *     ("entry: Inline syscall_exit_to_user_mode()") confirms an inlining
 *     into its caller whose own cost the table does not list; a subject
 *     that un-inlines ("noinline", "out of line") confirms an outlining.
 * The rows are the table's perf-profile rows of the event (metric
 * calltrace, children, self; keys without "perf-profile.<metric>.<event>."
 * as with PD_DIFF_LKP_KEYS, which the diff takes; dso NULL) and a shift row
 * per relation.  Each side of a row has the table's mean and standard
 * deviation, and its runs' values when the table has them (result
 * directories; a mail's rows have none: `runs` NULL, `nruns` 0).  Each
 * row is tested with Welch's t on the two means, their standard
 * deviations and the columns' runs (PD_DIFF_TEST_TABLE), a shift row on
 * its members' summed means with their variances summed (or, with per-run
 * values, the runs' sums); Benjamini–Hochberg over the rows whose larger
 * mean could change by min_change.  PD_DIFF_ABSOLUTE does not apply.
 * The diff points into `table`, which must outlive it.
 * @return 0, PD_EINVAL (no such column or event, the same column twice,
 *         PD_DIFF_ABSOLUTE, bad options) or PD_ENOMEM.
 */
PD_EXTERN(int) pd_diff_new_lkp(pd_diff **out, const pd_lkp_table *table, size_t base_col,
			       size_t new_col, const char *event, const pd_diff_options *opts,
			       pd_error *err);

/**
 * The table and columns a diff compares (pd_diff_new_lkp()); NULL for a
 * diff of profiles.  Either output may be NULL.
 */
PD_EXTERN(const pd_lkp_table *) pd_diff_lkp_table(const pd_diff *d, size_t *base_col,
						  size_t *new_col);

/**
 * The runs of a side (`side` 0 base, 1 new): its profile's runs, or the
 * runs of its table's column (which a mail states or implies, robot.h).
 * 0 for another side.
 */
PD_EXTERN(size_t) pd_diff_run_count(const pd_diff *d, int side);

/** Free a diff.  NULL is allowed. */
PD_EXTERN(void) pd_diff_free(pd_diff *d);

/** The event compared, by the base's name ("cpu-clock:ppp"). */
PD_EXTERN(const char *) pd_diff_event(const pd_diff *d);

/** The profile of a side (`side` 0 = base, 1 = new) the diff was made
 * from; NULL for another side.  The diff does not own it. */
PD_EXTERN(const pd_profile *) pd_diff_profile(const pd_diff *d, int side);

/**
 * The options the diff was made with, copied to `out` as far as `version`
 * went (pass PD_DIFF_OPTIONS_VERSION; as pd_diff_options_init(), never
 * past a struct of an older header), with a negative min_change replaced
 * by the default of the mode that the test used (so that an output can
 * say what "significant" meant).  `event` points into the diff.  NULL
 * `d`: the defaults.
 * @return 0, or PD_EINVAL for a NULL `out` or a version this library does
 *         not know (nothing written)
 */
PD_EXTERN(int) pd_diff_options_get(const pd_diff *d, pd_diff_options *out, unsigned version);

/** The test used for p-values. */
PD_EXTERN(pd_diff_test_kind) pd_diff_test(const pd_diff *d);

/**
 * The moderated t-test's prior of all rows together (each process's own:
 * pd_diff_process_at()): `phi0` the run-to-run variance as a multiple of
 * sampling variance that the rows show together, `d0` the degrees of
 * freedom it is worth (at most those of the rows), `rows` the self rows
 * it was fitted on (0: the default, φ0 = 1 and d0 = 4).
 * Returns false (outputs untouched) when the proportion test was used.
 * Any output may be NULL.
 */
PD_EXTERN(bool) pd_diff_test_prior(const pd_diff *d, double *phi0, double *d0, size_t *rows);

/**
 * The time blocks' estimate of variation within runs, as
 * pd_diff_test_prior()'s (fitted on the same self rows, from each run's
 * block variance; `blocks[side]` gets the blocks of that side's first
 * run).  It is the test with PD_DIFF_TEST_BLOCKS and the least variation
 * allowed with PD_DIFF_TEST_MODERATED_T.  false (outputs untouched) when
 * no run had time blocks.  Any output may be NULL.
 */
PD_EXTERN(bool) pd_diff_block_prior(const pd_diff *d, double *phi0, double *d0, size_t *rows,
				    size_t blocks[2]);

/**
 * With one run on a side (PD_DIFF_TEST_BLOCKS, PD_DIFF_TEST_PROPORTION):
 * the factor by which rows' variances were raised because the rows
 * themselves vary more than the test covers, and one run cannot show why.
 * Per process: the lower quartile of its self rows' squared statistics
 * over its value where nothing changed (0.102, χ²(1)), at least 1, from 10
 * such rows on ("genomic control", Devlin & Roeder 1999).  The largest
 * factor of any process (pd_diff_process_at() has each); 1 with runs.
 */
PD_EXTERN(double) pd_diff_inflation(const pd_diff *d);

/**
 * The processes rows were judged by ("Statistics" above): a row's process
 * is the command with most of its samples; each process's rows are shrunk
 * toward their own prior, and with one run a side tested within their
 * processes and inflated by their own factor.  In order of samples, most
 * first.  None (count 0) with PD_DIFF_LKP_KEYS, PD_DIFF_ABSOLUTE or
 * profiles without their stacks.  The pointer stays valid until
 * pd_diff_free(); NULL when `i` is out of range.
 */
typedef struct pd_diff_process {
	const char *comm;     /**< the command's name */
	uint64_t samples;     /**< its samples over both sides' runs */
	size_t rows;          /**< rows whose process it is */
	double phi0, d0;      /**< the prior its rows were shrunk toward, as
	                           pd_diff_test_prior() (moderated t) or
	                           pd_diff_block_prior() (one run a side): its own
	                           when prior_rows > 0, else all rows' */
	size_t prior_rows;    /**< its self rows the prior was fitted on */
	double inflation;     /**< one run a side: its rows' factor (1: none) */
	size_t pids;          /**< the most processes it ran as at once in a run, the
	                           larger side's (pd_profile_comm_processes()): 1 for a
	                           program, more for a parallel build's compilers or a
	                           benchmark's workers, whose composition may say which
	                           jobs ran as much as what code costs; 0 for runs read
	                           from pprof, which need not carry pids (and so not in
	                           the JSON, which an export must read back alike) */
} pd_diff_process;
PD_EXTERN(size_t) pd_diff_process_count(const pd_diff *d);
PD_EXTERN(const pd_diff_process *) pd_diff_process_at(const pd_diff *d, size_t i);

/**
 * The rows in the family of the FDR correction (pd_diff_row.tested): those
 * that can be significant.  The others keep their p-value and have a
 * q-value of 1.
 */
PD_EXTERN(size_t) pd_diff_tested_count(const pd_diff *d);

/**
 * How much more than sampling noise a side's shares vary within its runs
 * (`side` 0 base, 1 new): the median, over the leaves with at least 20
 * samples in a run, of their share's time-block variance over its
 * binomial variance; at least 1 (1 without time blocks).  Every cost a
 * relation rests on must stand clear of three standard deviations of a
 * share at this variance.
 */
PD_EXTERN(double) pd_diff_noise(const pd_diff *d, int side);

/**
 * Dsos taken for one program under two names (see "Renamed binaries"
 * above): pair `i`'s full dso path on the base and on the new side (the
 * first seen of each basename) and the share of symbol names they have
 * in common (of the smaller set).  Rows and relations name the base's dso.  false (outputs
 * untouched) when `i` is out of range; any output may be NULL.
 */
PD_EXTERN(size_t) pd_diff_dso_pair_count(const pd_diff *d);
PD_EXTERN(bool) pd_diff_dso_pair_at(const pd_diff *d, size_t i, const char **base_dso,
				    const char **new_dso, double *similarity);

/**
 * The base's name for the new side's command `comm`: a renamed binary
 * (a pair above) runs under its file name cut to 15 characters, the
 * kernel's command length, so its new command is written as the base
 * binary's; any other command is itself.  The result is `comm` or `buf`
 * (room for 16 bytes), which it fills.  Rows are judged within their
 * processes by these names, and a differential flame graph draws both
 * sides' command under one.
 */
PD_EXTERN(const char *) pd_diff_base_comm(const pd_diff *d, const char *comm, char buf[16]);

/**
 * Rows, in the robot's order: calltrace, children, self (then tree, then
 * one shift row per relation); in each metric by change ascending (most
 * negative first), then by key.  Every key of either side is a row;
 * filter on `significant` for the default view.
 *
 * A shift row's key is "BASE->NEW" (symbols joined by '+' where a side
 * has several; moved: "SYMBOL:FROM->TO"), its symbol the base's, and its
 * run values those whose change is the relation's `net`: for renamed,
 * split and merged the children values of all its symbols summed, for
 * inlined and outlined the caller's children values (both symbols'
 * summed where one side's chains skip the caller, which then held none
 * of the callee's cost there), for moved the symbol's.  So a pure rename
 * (−62.3 and +62.4 children rows, net +0.1) is tested once, on +0.1.
 */
PD_EXTERN(size_t) pd_diff_row_count(const pd_diff *d);
PD_EXTERN(const pd_diff_row *) pd_diff_row_at(const pd_diff *d, size_t i);

/** Explained shifts, by |base_change| + |new_change| descending. */
PD_EXTERN(size_t) pd_diff_relation_count(const pd_diff *d);
PD_EXTERN(const pd_diff_relation *) pd_diff_relation_at(const pd_diff *d, size_t i);

/**
 * The aligned tree: the base and new calling-context trees of the event
 * compared drawn as one, what a differential flame graph shows.  Node 0
 * is the root; a node's parent comes before it.  An aligned pair (the
 * same function, or two a relation pairs: renamed, inlined frames that
 * reappear one level up, a moved subtree) is one node with both names;
 * a node of one side only has NULL for the other side's name and zeros
 * for its values.  A moved subtree hangs where the base has it; its new
 * values are the new tree's, so a node's new value may exceed the sum of
 * its children's.  Nodes are built by pd_diff_new(); pointers stay valid
 * until pd_diff_free().
 */
typedef struct pd_diff_node {
	size_t parent;             /**< index of the caller's node; SIZE_MAX for the root */
	const char *base_symbol;   /**< NULL: not in the base tree (or the root) */
	const char *new_symbol;    /**< NULL: not in the new tree (or the root) */
	const char *dso;           /**< the dso (the base's when both); NULL for the root */
	pd_diff_side base, new;    /**< inclusive value per run, in the rows' unit
	                                (points, or per second with PD_DIFF_ABSOLUTE) */
	double base_self, new_self; /**< mean self value (the node's own cost) */
	double change;             /**< new.mean - base.mean (points; absolute: per second) */
	const pd_diff_row *row;    /**< its PD_DIFF_TREE row (p, q, significant) when the
	                                diff was made with PD_DIFF_TREE_ROWS, else NULL */
	const pd_diff_relation *relation; /**< the relation its node(s) take part in, or NULL */
} pd_diff_node;

/** Nodes of the aligned tree (at least 1, the root) and node `i` (NULL
 * when out of range). */
PD_EXTERN(size_t) pd_diff_node_count(const pd_diff *d);
PD_EXTERN(const pd_diff_node *) pd_diff_node_at(const pd_diff *d, size_t i);

/**
 * The aligned-tree node that profile node `c` of side `side` (0 base, 1
 * new) of the event compared was folded into: for the leaves of the
 * side's stacks (pd_profile_stacks(): nodes with self cost), so that a
 * stack of either side can be named as the aligned tree names it (a new
 * stack of a renamed function under the base's name).  SIZE_MAX for a
 * node without self cost, of another profile or event, or a bad side.
 */
PD_EXTERN(size_t) pd_diff_node_of(const pd_diff *d, int side, const pd_cct_node *c);

/**
 * pprof's -peek on both sides of the diff, aligned: for each function
 * whose name on either side matches `regex` (POSIX extended, unanchored),
 * its callers and callees on both sides (pd_peek_entry, profile.h), one
 * entry for a renamed function (its base and new names on one line, its
 * callers and callees paired by name, renamed ones by their relation),
 * with its children and self rows (change, q-value, significance) and
 * the relations that name it as a symbol or a parent.  Periods and shares
 * are of the event compared, all runs of a side pooled: what
 * `go tool pprof -peek` shows of each side's pprof export.  0 with *out
 * set (pd_peek_free(); it points into the diff and its profiles, which
 * must outlive it), PD_EINVAL (a bad expression, a diff of a table,
 * which has no trees) or PD_ENOMEM.
 */
PD_EXTERN(int) pd_diff_peek(const pd_diff *d, const char *regex, pd_peek **out,
			    pd_error *err);

/**
 * Total period, samples and recording span (ns, pd_profile_run_span(); 0
 * unknown) of the event on a side (`side` 0 = base, 1 = new), for run
 * `run` (SIZE_MAX: all runs).  0 for a diff of a table, which has none.
 */
PD_EXTERN(uint64_t) pd_diff_total(const pd_diff *d, int side, size_t run);
PD_EXTERN(uint64_t) pd_diff_samples(const pd_diff *d, int side, size_t run);
PD_EXTERN(uint64_t) pd_diff_span(const pd_diff *d, int side, size_t run);

/**
 * One row of the robot's compare table, as lkp-tests prints it
 * (lkp-perf-profile.md §6.2): base mean "%10.2f" (or "%10d"/"%10.4g" when
 * large), " ±%3d%%" of the truncated relative stddev when it exceeds 2 %
 * (else 6 blanks; stddev < 0 means unknown: blanks), the change —
 * absolute "%+10.1f" + 2 blanks for keys that start with "perf-profile"
 * or end in '%', else relative "%+10.1f%%" + 1 blank — then the new mean
 * and stddev the same way, 2 blanks and the key.  No newline.  Writes at
 * most `n` bytes (NUL included) and returns the length of the full line.
 */
PD_EXTERN(size_t) pd_diff_format_lkp_row(char *buf, size_t n, double base_mean,
					 double base_stddev, double new_mean,
					 double new_stddev, const char *key);

#ifdef __cplusplus
}
#endif

#endif
