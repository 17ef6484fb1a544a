/*
 * Interfaces between the parts of the diff stage:
 *
 *   keys.c     node keys (canonical symbol, dso basename) shared by both sides
 *   dsos.c     pairing dsos that are one program under two names
 *   tree.c     the per-side tree: the profile's CCT for one event with the
 *              inlined flag folded into an attribute, per-run periods
 *   names.c    name similarity for rename evidence
 *   align.c    aligning the two trees and finding relations
 *   stats.c    moderated t, two-proportion / two-rate z, Benjamini–Hochberg
 *   rows.c     calltrace / children / self / tree rows
 *   strata.c   each row's process, its values within it, its CMH sums
 *   blocks.c   each row's variance within a run, from the time blocks
 *   rowstats.c each row's test: filtering, priors per process, q-values
 *   diff.c     the pd_diff object and its accessors
 *
 * Node ids are 32-bit indices; a child's id is always greater than its
 * parent's, so bottom-up passes run over ids in reverse.
 */
#ifndef PD_DIFF_INTERNAL_H
#define PD_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/diff.h"
#include "util/u64map.h"
#include "util/util.h"

#define DT_NONE UINT32_MAX

/* ------------------------------------------------------------------ keys */

typedef struct dt_key {
	const char *sym;      /* as the profile names it (canonical unless suffixes kept) */
	const char *dso;      /* the first full dso path seen for this key */
	const char *dbase;    /* basename of dso: builds in other folders still match */
	uint64_t hash;        /* of (sym, dbase) */
	uint64_t stem;        /* hash of (canonical sym, dbase): clone suffixes folded */
	bool unresolved;      /* no symbol: sym is DT_UNKNOWN */
	bool has_suffix;      /* canonical sym differs from sym */
	uint32_t next;        /* chain of keys with the same map slot */
} dt_key;

typedef struct dt_alias {
	const char *from;     /* dso basename ... */
	const char *to_dso, *to_dbase;  /* ... keyed as this dso */
} dt_alias;

typedef struct dt_keytab {
	dt_key *v;
	uint32_t n, cap;
	dt_alias *alias;      /* dso pairs (dsos.c), few */
	uint32_t nalias;
	pd_u64map index;      /* hash → first id + 1 */
	char *scratch;        /* canonical-name buffer */
	size_t cap_scratch;
} dt_keytab;

void dt_keytab_init(dt_keytab *t);
void dt_keytab_free(dt_keytab *t);
#define DT_UNKNOWN "[unknown]"  /* the name of every unresolved frame of a dso */

/* The id of (sym, basename(dso)), added if new; DT_NONE when out of memory.
 * An unresolved frame (or one named DT_UNKNOWN) is keyed (DT_UNKNOWN, dso)
 * whatever its address.  The strings must outlive the table. */
uint32_t dt_keytab_get(dt_keytab *t, const char *sym, const char *dso, bool unresolved);
/* The id of (sym, dso basename `dbase`), DT_NONE when absent. */
uint32_t dt_keytab_find(const dt_keytab *t, const char *sym, const char *dbase);
/* Key the symbols of dsos named like `from` (basename) as `to_dso`'s from
 * now on.  Both strings must outlive the table.  0 or PD_ENOMEM. */
int dt_keytab_alias(dt_keytab *t, const char *from, const char *to_dso);
/* True when two keys have the same dso basename. */
bool dt_key_same_dso(const dt_keytab *t, uint32_t a, uint32_t b);
const char *dt_basename(const char *path);

/* ------------------------------------------------------------------ tree */

enum dt_node_flag {
	DT_SEEN_INLINED = 1u << 0,   /* some merged frame was an inline frame */
	DT_SEEN_OUTLINE = 1u << 1,   /* some merged frame was a real call */
	DT_KERNEL = 1u << 2,
	/* trees rebuilt from the robot's keys (keytree.c) know only what the
	 * table lists: a value it does not give is an estimate, which no
	 * relation may rest on */
	DT_SELF_UNKNOWN = 1u << 3,   /* self estimated (the table has none for the node) */
	DT_INCL_UNKNOWN = 1u << 4,   /* inclusive estimated: a caller on a listed path */
};

typedef struct dt_node {
	uint32_t key;         /* dt_keytab id; DT_NONE for the root */
	uint32_t parent;      /* DT_NONE for the root */
	uint32_t depth;
	uint32_t kid0, nkids; /* range in dt_tree.kids (after dt_tree_finish) */
	uint32_t flags;       /* dt_node_flag */
	uint32_t partner;     /* aligned node of the other tree, DT_NONE */
	uint32_t rel;         /* relation (index in dt_align.rels) or DT_NONE */
	uint64_t merkle;      /* hash of the labels of the subtree, child order ignored */
	uint32_t size;        /* nodes in the subtree, this one included */
} dt_node;

typedef struct dt_tree {
	dt_keytab *keys;
	dt_node *n;
	uint32_t nn, cap;
	uint32_t *kids;
	pd_u64map child_of;   /* parent << 32 | key → child id + 1 */
	size_t nruns;
	uint64_t *self;       /* [cap * nruns]: self period of node i in run r at i*nruns+r */
	uint64_t *incl;       /* [nn * nruns], after finish */
	double *mean_incl, *mean_self; /* mean share (%) over runs, after finish */
	uint64_t *total, *samples, *span; /* [nruns] */
	uint64_t all_samples;
	const char **unit;    /* per key id: its function's source file here, NULL unknown */
	uint32_t nunit;
	double phi;           /* how much more than sampling noise shares vary here (>= 1;
	                         dt_share_noise() scales by its root), 1 until measured */
	/* where the nodes' samples came from, for their time blocks: each
	 * profile node and the node it was folded into (dt_tree_build); none
	 * in trees built by hand */
	const pd_cct_node **src;
	uint32_t *src_id;
	size_t nsrc, cap_src;
	const pd_profile *prof;
	size_t ev;
	double idle;          /* mean share (%) of the idle loop's subtrees, after finish */
	pd_u64map dso_path;   /* hash of a key's dso basename → this side's dso path */
	/* a tree rebuilt from the robot's keys (keytree.c): its shares vary
	 * by `rel_noise` of their value (the table's standard deviations of
	 * the mean), not by the binomial noise of a count of samples */
	bool from_keys;
	double rel_noise;
} dt_tree;

/* An empty tree (root only) of `nruns` runs over the key table `keys`. */
int dt_tree_init(dt_tree *t, dt_keytab *keys, size_t nruns);
void dt_tree_free(dt_tree *t);
/* The child of `parent` for `key` (merged when it exists); DT_NONE on ENOMEM
 * or when the id space is full.  `flags`: dt_node_flag bits of the frame. */
uint32_t dt_tree_child(dt_tree *t, uint32_t parent, uint32_t key, uint32_t flags);
/* Add self period to node `id` in run `run`. */
void dt_tree_add_self(dt_tree *t, uint32_t id, size_t run, uint64_t period);
/* Child lists, inclusive values, shares and subtree hashes.  Totals and
 * samples per run must be set (dt_tree_build sets them from the profile;
 * hand-built trees get the root's inclusive period and one sample per
 * period unit when left 0). */
int dt_tree_finish(dt_tree *t);
/* The child of `parent` with key `key`, DT_NONE. */
uint32_t dt_tree_find(const dt_tree *t, uint32_t parent, uint32_t key);
/* Key `key`'s function is compiled from `unit` (a source file path,
 * pd_cct_unit(); kept as a pointer) in this tree: the first unit given
 * stays.  0 or PD_ENOMEM. */
int dt_tree_set_unit(dt_tree *t, uint32_t key, const char *unit);
/* The unit of key `key` in this tree, NULL unknown. */
static inline const char *dt_tree_unit(const dt_tree *t, uint32_t key)
{
	return key < t->nunit ? t->unit[key] : NULL;
}
/* Fill a tree from event `ev` of `p`.  0, PD_ENOMEM or PD_ELIMIT. */
int dt_tree_build(dt_tree *t, dt_keytab *keys, const pd_profile *p, size_t ev);
/* t->phi from the runs' time blocks (blocks.c): the median, over the
 * tree's nodes with at least DT_PHI_MIN_SAMPLES samples of self in a run,
 * of their self share's block variance over its binomial variance; 1
 * without blocks.  0 or PD_ENOMEM. */
int dt_tree_measure_phi(dt_tree *t);
#define DT_PHI_MIN_SAMPLES 20.0

/* Key `key`'s dso is named `dso` (a full path) on this side: the first
 * given stays.  0 or PD_ENOMEM. */
int dt_tree_note_dso(dt_tree *t, uint32_t key, const char *dso);
/* The path of key `key`'s dso as this side names it (a rebuilt or renamed
 * program has its own path on each side), else the key's own. */
const char *dt_tree_dso(const dt_tree *t, uint32_t key);

static inline const dt_key *dt_node_key(const dt_tree *t, uint32_t id)
{
	return t->n[id].key == DT_NONE ? NULL : &t->keys->v[t->n[id].key];
}

static inline const char *dt_node_sym(const dt_tree *t, uint32_t id)
{
	const dt_key *k = dt_node_key(t, id);
	return k ? k->sym : NULL;
}

static inline uint32_t dt_kid(const dt_tree *t, uint32_t id, uint32_t i)
{
	return t->kids[t->n[id].kid0 + i];
}

/* Standard deviation (points) of a share of `pct` % estimated from all
 * samples of the tree's runs: binomial, times √phi: the noise a cost
 * comparison must look past. */
double dt_share_noise(const dt_tree *t, double pct);

/* ------------------------------------------------------------------ facts */

/*
 * What the binaries say, beyond the samples (evidence.c): whether a
 * side's build of a dso defines a function, and whether its DWARF has a
 * function inlined into another: pd_profile_symbol_defined() and
 * pd_profile_inlined_into() for real profiles, a table in unit tests.
 * Answers are DT_FACT_* values (profile.h's pd_symbol_fact):
 * DT_FACT_UNKNOWN where nothing was read.  `side` 0 is the
 * base, 1 the new side; `dso` is that side's path of the dso.  A NULL
 * function answers UNKNOWN.
 */
enum {
	DT_FACT_UNKNOWN = PD_FACT_UNKNOWN,
	DT_FACT_NO = PD_FACT_NO,
	DT_FACT_YES = PD_FACT_YES,
};

typedef struct dt_facts {
	int (*defined)(void *ctx, int side, const char *dso, const char *name);
	int (*inlined_into)(void *ctx, int side, const char *dso, const char *callee,
			    const char *caller);
	void *ctx;
	/* What the answers come from, for the evidence's words: NULL for the
	 * builds' symbol tables and DWARF; the robot's keys and the commits'
	 * subject lines for trees rebuilt from a table (keydiff.c) */
	const char *defined_from;       /* "keys": "<keys>: A only in the base ..." */
	const char *inlined_from[2];    /* per side: "the commit subject \"...\"" */
} dt_facts;

/* ------------------------------------------------------------------ dsos */

/* One program under two names: `base_dso` of the base, `new_dso` of the
 * new side (full paths, the first seen), `similarity` the share of their
 * symbol names in common (dsos.c: overlap()). */
typedef struct dt_dso_pair {
	const char *base_dso, *new_dso;
	double similarity;
} dt_dso_pair;

typedef struct dt_dso_pairs {
	dt_dso_pair *v;
	uint32_t n, cap;
} dt_dso_pairs;

#define DT_DSO_OVERLAP 0.5  /* symbol-name overlap a dso pair needs ... */
#define DT_DSO_SHARED 2     /* ... and at least this many names in common */
#define DT_DSO_CAP 64       /* one-sided dsos considered per side, pairs kept */

/*
 * Pairs of dsos costly on one side only whose symbols say they are one
 * program (dsos.c), from trees built (and finished) over `keys`; `min_pts`
 * the smallest cost worth explaining, as align.c's.  0 or PD_ENOMEM.
 */
int dt_pair_dsos(const dt_keytab *keys, const dt_tree *t[2], double min_pts, dt_dso_pairs *out);
void dt_dso_pairs_free(dt_dso_pairs *p);

/* ------------------------------------------------------------------ match */

typedef struct dt_cand {
	uint32_t i, j;   /* a row of nb and a column of nn */
	double s;
} dt_cand;

/*
 * One to one from an nb × nn score matrix `sc` (−1: no pair) (match.c):
 * the candidates `cand` are taken best first when neither i nor j is
 * taken (db[i], dn[j], which the caller clears and this sets) and no free
 * runner-up of row i or column j comes within DT_AMBIGUITY_MARGIN.  The
 * taken ones are moved to the front of `cand`; returns how many.
 */
size_t dt_match(const double *sc, uint32_t nb, uint32_t nn, dt_cand *cand, size_t ncand,
		bool *db, bool *dn);

/* ------------------------------------------------------------------ names */

/* Similarity 0..1 of two identifiers: the better of character-bigram Dice
 * and normalised Levenshtein, leading underscores ignored. */
double dt_name_similarity(const char *a, const char *b);

/* ------------------------------------------------------------------ align */

#define DT_REL_MAX 8

#define DT_EVIDENCE_MAX 400

typedef struct dt_rel {
	pd_diff_relation_kind kind;
	uint32_t b[DT_REL_MAX], nb;   /* base nodes */
	uint32_t n[DT_REL_MAX], nn;   /* new nodes */
	uint32_t bparent, nparent;    /* aligned caller on each side (node ids) */
	double score;
	char evidence[DT_EVIDENCE_MAX];
} dt_rel;

typedef struct dt_align {
	dt_rel *rels;
	size_t nrels, cap;
} dt_align;

/*
 * Align `b` (base) with `n` (new), both finished over one key table:
 * sets every node's partner and rel, and appends the relations found.
 * Options used: flags (PD_DIFF_NO_ALIGN), rename_score, cost_tolerance,
 * min_change.  `facts` may be NULL (nothing known beyond the trees).
 * 0 or PD_ENOMEM.
 */
int dt_align_run(dt_align *al, dt_tree *b, dt_tree *n, const pd_diff_options *o,
		 const dt_facts *facts);
void dt_align_free(dt_align *al);

/* The smallest cost worth explaining: half the smallest change that can
 * be significant (in points; relative changes need some floor). */
static inline double dt_min_pts(const pd_diff_options *o)
{
	return (o->flags & PD_DIFF_ABSOLUTE) || !(o->min_change >= 0) ? 0.05 : 0.5 * o->min_change;
}

/* Tuning that the options do not expose. */
#define DT_AMBIGUITY_MARGIN 0.05  /* a runner-up this close to the best: no pair */
#define DT_MOVE_DICE 0.5          /* descendant-key Dice a moved subtree needs */
#define DT_NOISE_SIGMAS 3.0       /* a relation's costs must exceed this much noise */
#define DT_GONE_ROUNDS 8          /* align_gone passes at most, each under the last's pairs */
#define DT_SHAPE_FRACTION 0.1    /* descendants below this share of a subtree's cost
                                     are not part of its shape */
#define DT_RENAME_CAP 64          /* unmatched siblings considered per side (biggest) */
#define DT_UNIT_WEIGHT 0.1        /* rename score added when both functions come from
                                     the same source file */
#define DT_BAR_FILE 0.15          /* ... and added to the bar when from two files */
#define DT_NAME_DISSIMILAR 0.35   /* names less alike than this ... */
#define DT_BAR_NAME 0.1           /* ... raise the bar a rename must clear by this */
#define DT_NAME_ALIKE 0.6         /* two functions of a table without a caller in
                                     common pair only with names this alike */
#define DT_FACTS_WEIGHT 0.15      /* rename score added when the symbol tables say the
                                     old name is gone and the new one new */
#define DT_DEEP_FRACTION 0.2      /* a subtree with this share of its cost below its
                                     callees' own ... */
#define DT_AGREE_MIN 0.5          /* ... must agree this far below the first level */

/* ------------------------------------------------------------------ stats */

/* Regularised incomplete beta I_x(a, b); NAN for bad arguments. */
double pd_stat_incbeta(double a, double b, double x);
/* Two-sided p-value of Student's t with `df` degrees of freedom. */
double pd_stat_t_p2(double t, double df);
/* Two-sided p-value of a standard normal z. */
double pd_stat_z_p2(double z);
/* Digamma ψ, trigamma ψ′ and the inverse of ψ′ (x > 0; NAN otherwise). */
double pd_stat_digamma(double x);
double pd_stat_trigamma(double x);
double pd_stat_trigamma_inv(double y);
/*
 * Smyth's (2004) prior for n sample variances s2[i] with df[i] degrees of
 * freedom each (limma's fitFDist, method of moments on log variances):
 * the variances are taken as s20 · χ²(d0)/d0 draws, each then observed
 * with its own χ²(df)/df noise.  *d0 is INFINITY when the variances vary
 * no more than their own noise explains; with n < 2, *d0 = 0 and *s20 = 1.
 * 0 or PD_ENOMEM.
 */
int pd_stat_fit_prior(const double *s2, const double *df, size_t n, double *d0, double *s20);
/*
 * The inputs of the moderated t-test for one row from its runs: vals[s]
 * the n[s] values of side s (0 base, 1 new), unit[s] the value of one
 * sample in each run (runs without samples: 0).  Each run's value is a
 * count of samples times its unit, so sampling alone gives run r the
 * variance v_r = unit_r · P · (1 − P/100) for a share in points
 * (`binomial`), unit_r · P for a rate (Poisson), P the pooled value of
 * both sides: the value if nothing changed.  Then, v̄ a side's mean v_r
 * and SS its squared deviations from its mean (E[SS] = (n − 1)·φ·v̄ when
 * the runs vary φ times as much as sampling alone):
 *   diff = mean new − mean base, var = Σ_side v̄/n (var of diff at φ = 1),
 *   df = n_base + n_new − 2,     phi = Σ_side (SS/v̄) / df,
 *   samples = mean samples per run.
 * 0, or PD_EINVAL when there is nothing to test (a side without runs or
 * without sampling variance, no degrees of freedom).
 */
typedef struct pd_stat_row {
	double diff, var, phi, df, samples;
} pd_stat_row;
int pd_stat_overdispersion(const double *const vals[2], const size_t n[2],
			   const double *const unit[2], bool binomial, pd_stat_row *out);
/* The part of pd_stat_overdispersion() that needs no degrees of freedom:
 * the pooled value P, q = 1 − P/100 for shares (else 1) and the mean
 * samples per run.  0, or PD_EINVAL when a side has no runs. */
int pd_stat_pooled(const double *const vals[2], const size_t n[2],
		   const double *const unit[2], bool binomial, double *pooled, double *q,
		   double *samples);
/*
 * The moderated t-test of a difference `diff` whose variance is
 * `var` × φ, φ unknown: φ's own estimate s2 on d degrees of freedom is
 * shrunk to the prior (d0, s20), φ̃ = (d0·s20 + d·s2)/(d0 + d), at least 1
 * (var is the least variance there is); t = diff / √(φ̃·var) with d0 + d
 * degrees of freedom.  Two-sided p-value; *t and *df (may be NULL) get
 * the statistic and its degrees of freedom.
 */
double pd_stat_moderated_t(double diff, double var, double s2, double d, double d0, double s20,
			   double *t, double *df);
/* The same with φ̃ at least `floor` (≥ 1): a variation known from
 * elsewhere (the runs' time blocks) that the runs' own spread may miss. */
double pd_stat_moderated_t_floor(double diff, double var, double s2, double d, double d0,
				 double s20, double floor, double *t, double *df);
/*
 * Two Poisson counts with exposures: c1 over e1 against c2 over e2 (for
 * shares of N samples: count = share × N, exposure = N, which is the
 * two-proportion z-test up to the (1 − p) factor, applied when
 * `binomial`).  Two-sided p-value.
 */
double pd_stat_rate_z(double c1, double e1, double c2, double e2, bool binomial);
/* Its statistic: the z (±INFINITY for a difference without variance, 0
 * for nothing to test). */
double pd_stat_rate_zscore(double c1, double e1, double c2, double e2, bool binomial);
/* The variance of a share X/T estimated from K blocks ("batch means",
 * the ratio estimator over clusters): x[b] of T[b] samples in block b,
 * K/(K−1) · Σ (x_b − p·T_b)² / T², p = X/T.  Under sampling alone its
 * expectation is about p(1−p)/T.  NAN with K < 2 or no samples. */
double pd_stat_batch_var(const uint32_t *x, const double *T, size_t K);
/* Benjamini–Hochberg q-values of p[0..n) into q; 0 or PD_ENOMEM. */
int pd_stat_bh(const double *p, size_t n, double *q);

/* ------------------------------------------------------------------ rows */

/* The moderated t-test's prior (rows.c: fit_prior). */
#define DT_PRIOR_MIN_SAMPLES 10.0 /* mean samples per run a self row needs to inform it */
#define DT_PRIOR_MIN_ROWS 5       /* rows needed to fit it; fewer: their pooled φ̂ ... */
#define DT_PRIOR_D0 4.0           /* ... held with this many degrees of freedom */
#define DT_HYPERVARIABLE 0.01     /* a row whose φ̂ is beyond this upper tail of its
                                     prior's F distribution keeps its own φ̂ */
#define DT_CHI2_1_Q25 0.101531   /* lower quartile of χ²(1): of z² where nothing changed */
#define DT_INFLATION_MIN_ROWS 10  /* self rows a process's inflation needs: a program
                                     has few functions, and when one changed, every
                                     other share within it moves too (they make
                                     100 %): its lower quartile must stay clear of
                                     the two or three rows a change touches */

struct pd_diff;
/* For every node of t, the nearest ancestor with the same key (DT_NONE),
 * into anc[t->nn] (rows.c).  0 or PD_ENOMEM. */
int dt_same_key_ancestors(const dt_tree *t, uint32_t *anc);
/* The values of every calltrace, children, self (and tree) row (rows.c). */
int pd_diff_build_rows(struct pd_diff *d, pd_error *err);
/* Summaries, changes, p- and q-values and significance of every row. */
int pd_diff_row_stats(struct pd_diff *d, pd_error *err);
/* The row (metric, key[0..len), keyid), created when new; DT_NONE on ENOMEM. */
uint32_t pd_diff_row_get(struct pd_diff *d, pd_diff_metric m, const char *key, size_t len,
			 uint32_t keyid);
/* The children row of `sym` (node key `keyid`), or DT_NONE. */
uint32_t pd_diff_children_row(const struct pd_diff *d, const char *sym, uint32_t keyid);
/*
 * The rows a sample counts in, given its leaf: node v's self row, the
 * calltrace row of every ancestor nearest the leaf with its key (callee
 * order, as the values do) and the children row of every key on the
 * path, once (rows.c).  `fn` is called once per row.  The walk needs each
 * node's nearest same-key ancestor (dt_same_key_ancestors) and a stamp
 * per key, zeroed, which it reuses from walk to walk.
 */
typedef struct dt_leafwalk {
	const uint32_t *anc;  /* per node of the side's tree */
	uint32_t *stamp;      /* per key */
	uint32_t walk;
} dt_leafwalk;
void dt_leaf_rows(const struct pd_diff *d, int side, dt_leafwalk *w, uint32_t v,
		  void (*fn)(void *ctx, uint32_t row), void *ctx);
/* Every row's process and its sums for the test stratified by process
 * (strata.c): after the rows and their relations, before the statistics.
 * 0 or PD_ENOMEM. */
int pd_diff_strata(struct pd_diff *d);
/* Every row's variance per run from the runs' time blocks (blocks.c):
 * after the rows and their relations, before the statistics. */
int pd_diff_block_variances(struct pd_diff *d);
/* The rows whose values a shift row sums (relations.c): up to
 * 2 * DT_REL_MAX children rows of relation `i`.  Returns how many. */
size_t pd_diff_shift_members(const struct pd_diff *d, size_t i, uint32_t *rows);
/* Public relations from the aligner's, duplicates folded, each with its
 * shift row's values (relations.c); before the statistics. */
int pd_diff_collect_relations(struct pd_diff *d);
/* After the statistics: each relation's changes, their order, the rows
 * they explain and those rows' significance. */
int pd_diff_finish_relations(struct pd_diff *d);

/* ------------------------------------------------------------------ diff */

/* A public relation's keys, for finding the rows it explains. */
typedef struct dt_relinfo {
	uint32_t keys[2 * DT_REL_MAX];  /* keys of base then new symbols */
	size_t nb, nn;
	uint32_t pkeys[2];              /* moved: keys of the two callers */
	size_t npkeys;
	bool skipped;                   /* inlined/outlined where one side's chains skip
	                                   the caller: that side's caller held none of
	                                   the callee's cost */
	uint32_t row;                   /* its PD_DIFF_SHIFT row */
} dt_relinfo;

typedef struct dt_row {
	pd_diff_row pub;
	uint32_t keyid;       /* identity: children/self/tree: the node key; DT_NONE for
	                         calltrace and LKP rows (the string alone), except a
	                         calltrace whose innermost frame is unresolved: its key */
	uint32_t inner;       /* key of the symbol / innermost frame (DT_NONE in LKP mode) */
	double *vals;         /* [nbase runs + nnew runs] */
	double *bvar;         /* [nbase runs + nnew runs]: the variance of each run's value
	                         from its time blocks (blocks.c); NAN unknown */
	uint32_t next;        /* map chain */
	uint32_t rel;         /* relation index or DT_NONE */
	uint32_t proc;        /* the command with most of its cost (pd_diff.procs),
	                         DT_NONE when unknown (strata.c) */
	double *svals;        /* its values standardized to the commands' mean shares
	                         (strata.c); vals itself for rows without commands */
	double cmh_u, cmh_v;  /* its Cochran–Mantel–Haenszel sums over the commands:
	                         new samples minus expected, variance (strata.c) */
	const pd_lkp_row *lkp; /* a diff of a robot's table: the table's row (keydiff.c) */
} dt_row;

struct pd_diff {
	pd_arena arena;
	pd_diff_options opts;
	const pd_profile *prof[2];
	size_t ev[2];
	size_t nruns[2];
	dt_keytab keys;
	dt_dso_pairs dso_pairs;
	dt_tree tree[2];
	dt_align align;
	const char *event;
	pd_diff_test_kind test;
	double prior_phi, prior_df;  /* the moderated t-test's prior (rowstats.c) */
	size_t prior_rows;           /* rows it was fitted on */
	double block_phi, block_df;  /* the time blocks' prior */
	size_t block_rows;           /* rows it was fitted on (0: no blocks) */
	double inflation;            /* one run a side: the rows' own spread beyond the
	                                test's variance (genomic control), >= 1 */
	bool strata;                 /* rows know their processes (strata.c) */
	const char **procs;          /* command names, in the arena's memory */
	double *proc_samples;        /* per command: its samples, both sides */
	double *proc_share;          /* per command: its mean share (points) over all runs */
	uint32_t *proc_pids;         /* per command: the most processes it ran as in a run */
	uint32_t *vproc[2];          /* per node of each tree: its command, DT_NONE */
	size_t nprocs;
	pd_diff_process *pubprocs;   /* pd_diff_process_at(), by samples (rowstats.c) */
	size_t tested;               /* rows in the FDR family (rowstats.c) */
	/* rows under construction, then sorted */
	dt_row *rows;
	size_t nrows, cap_rows;
	pd_u64map row_index;  /* hash → first row + 1 */
	pd_diff_row *out;     /* sorted public rows */
	pd_diff_relation *rels;
	dt_relinfo *relinfo;  /* [nrels], parallel to rels */
	size_t nrels;
	size_t *nblocks[2];   /* per run: its time blocks (1: none) */
	uint32_t *ctrow[2];   /* per node of each tree: its calltrace row (rows.c) */
	uint32_t *krow[2];    /* per key: its children row [0] and self row [1] */
	double *unit[2];      /* per run: value of one period (share points or per second) */
	double *sunit[2];     /* per run: value of one sample */
	/* the aligned tree as one (nodes.c) and what links it to rows and
	 * relations */
	pd_diff_node *nodes;
	size_t nnodes;
	uint32_t *trow[2];    /* per node of each tree: its tree row (DT_NONE; NULL
	                         without PD_DIFF_TREE_ROWS) */
	size_t *rowpos;       /* per row (d->rows): its place in d->out */
	uint32_t *relmap;     /* per aligner relation: its public one (DT_NONE) */
	pd_u64map node_of[2]; /* per side: profile node with self cost (its address)
	                         → its aligned node + 1, as a pointer-sized integer
	                         (pd_diff_node_of()) */
	/* a diff of two columns of a robot's table (keydiff.c); NULL for profiles */
	const pd_lkp_table *lkp;
	size_t lkp_col[2];
	size_t lkp_runs[2];   /* the columns' runs, as the table says */
};

/* The aligned tree's nodes (nodes.c), once rows and relations are
 * published.  0 or PD_ENOMEM. */
int pd_diff_build_nodes(struct pd_diff *d);
/* pd_diff_options as given (any version), checked, into *o (diff.c). */
int pd_diff_import_options(pd_diff_options *o, const pd_diff_options *opts, pd_error *err);
/* A diff with nothing in it yet but its options; NULL on ENOMEM. */
struct pd_diff *pd_diff_alloc(const pd_diff_options *o);
/* diff.c's last steps, shared by both constructors: each relation's
 * changes and rows, the public rows, the aligned tree. */
int pd_diff_publish(struct pd_diff *d, pd_error *err);

/* ------------------------------------------------------------ keys */

/* What keytree.c rebuilds the two trees from: a table's columns. */
typedef struct kt_input {
	const pd_lkp_table *table;
	size_t col[2];        /* base and new column */
	const char *event;    /* the robot's event of the rows taken */
	size_t R[2];          /* runs per side: the table's per-run values, else 1 (the mean) */
} kt_input;

#define KT_SCALE 1e6      /* periods per point in trees rebuilt from keys */

/* Both sides' trees (finished, over `keys`, whose frame names go in
 * `names`, which must live as long as the keys) from the table.  0 or
 * PD_ENOMEM. */
int kt_build_trees(const kt_input *in, dt_keytab *keys, pd_arena *names, dt_tree out[2]);
/* Every row's summaries, p- and q-values and significance from the
 * table's means, standard deviations and runs (keystats.c). */
int pd_diff_key_stats(struct pd_diff *d, pd_error *err);

#endif
