/*
 * perfdiff/report.h — the kernel test robot's perf-profile keys.
 *
 * The Intel LKP / 0-day robot turns
 *
 *     perf report --children --header -U -g folded,0.5,callee \
 *                 --sort=dso,symbol -i perf.data
 *
 * into lines such as
 *
 *     calltrace.cycles-pp.__fget_light.do_select.core_sys_select.kern_select.__x64_sys_select: 12.09
 *     children.cycles-pp.__fget_light: 12.09
 *     self.cycles-pp.__fget_light: 12.05
 *
 * and its regression e-mails compare these numbers between commits.  The
 * functions below compute the same keys, with the same values, from a
 * profile, so that libperfdiff's results can be laid next to the robot's
 * history.  The rules, all of them the robot's (lkp-perf-profile.md §3–4):
 *
 *   event     perf's event name with every ':' turned into '-' and quotes
 *             removed ("cycles:pp" → "cycles-pp").
 *   rows      one per (dso, symbol) with its Children % and Self % as perf
 *             prints them ("%.2f"); the dso is then forgotten, so
 *             same-named symbols of different dsos are summed.
 *   chains    under the row of X, one per distinct chain X ← caller ← …
 *             ← outermost frame (callee order), where X is the occurrence
 *             of X nearest the sample's leaf (perf credits a sample once
 *             per entry); a chain is kept only if the period of the samples
 *             whose chain is exactly that one is at least 0.5 % of the
 *             event's total (perf truncates the limit to an integer
 *             period).  Key: the first 5 frames joined with '.'.
 *   names     ".isra.N", ".constprop.N", ".part.N" are removed anywhere in
 *             a name; ".cold", ".llvm.*", "@plt" … are kept; a row whose
 *             symbol or dso has white space is dropped, and so is a chain
 *             with white space in any frame (inline frames print as
 *             "f (inlined)").
 *   values    summed per key from the 2-decimal numbers perf prints, kept
 *             when the sum is ≥ 0.05, sorted by key (byte order).
 *   events    the robot reads only the first "# Samples: … of event" line
 *             and adds the rows and chains of every later event to that
 *             first event's keys (lkp-perf-profile.md §7 #9);
 *             PD_LKP_ALL_EVENTS reproduces this, an event index gives the
 *             keys of that event alone.
 *
 * The profile must be built the way perf report reads the file:
 * pd_lkp_profile_options() sets the flags (perf's return-address lookup,
 * no inline frames, clone suffixes kept for the robot's own partial
 * clean-up, -U, and mangled names).  Names are then printed as perf 6.1
 * prints them: user-space C++ and Rust names demangled without parameter
 * lists ("ns::f" for every overload of ns::f, each overload still its own
 * entry, as in perf), kernel names as they are.  A profile built
 * otherwise gives other keys: unnamed frames under the profile's names
 * for them, inline frames dropped as names with white space, C++ names
 * with parameter lists.
 *
 * Known differences from perf: perf keys chain frames by symbol address,
 * libperfdiff's tree by symbol name, so two local functions of one dso
 * with the same name are one frame here; OCaml and Java names are not
 * demangled (perf 6.1 does); events first seen in a later run come after
 * the events of the first run.  Where libperfdiff names a frame
 * differently from perf (see session.h), the keys differ accordingly.
 *
 *     pd_profile_options o;
 *     pd_session_options so;
 *     pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
 *     pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
 *     pd_lkp_profile_options(&o, &so);
 *     pd_profile_new(&p, &o, &err);
 *     pd_profile_add_file(p, "perf.data", &err);
 *     pd_lkp_key *keys;
 *     size_t n;
 *     if (pd_lkp_keys(&keys, &n, p, PD_LKP_ALL_EVENTS, 0, &err) == 0) {
 *         for (size_t i = 0; i < n; i++)
 *             printf("%s: %.2f\n", keys[i].key, keys[i].value);
 *         pd_lkp_keys_free(keys, n);
 *     }
 */
#ifndef PERFDIFF_REPORT_H
#define PERFDIFF_REPORT_H

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One key and its value, a percentage of the event's total period. */
typedef struct pd_lkp_key {
	char *key;     /**< "children.cycles-pp.foo" (no "perf-profile." prefix) */
	double value;  /**< a multiple of 0.01 for one run; print with "%.2f" */
} pd_lkp_key;

/** `ev` for the robot's reading of a file: every event under the first's name. */
#define PD_LKP_ALL_EVENTS SIZE_MAX
/** `run` for all runs of the profile folded together, as one perf.data. */
#define PD_LKP_ALL_RUNS SIZE_MAX

/**
 * Set the flags the robot's perf report implies on options initialised
 * with pd_profile_options_init() and pd_session_options_init():
 * PD_PROFILE_KEEP_SUFFIXES and PD_PROFILE_HIDE_UNRESOLVED on `opts`;
 * PD_SESSION_PERF_COMPAT, PD_SESSION_NO_INLINE and PD_SESSION_NO_DEMANGLE
 * on `session`, which opts->session is then pointed at.  Either may be
 * NULL (then only the other is set).  Other fields (filters, symfs, ...)
 * are left alone.
 */
PD_EXTERN(void) pd_lkp_profile_options(pd_profile_options *opts, pd_session_options *session);

/**
 * The robot's keys for run `run` (or PD_LKP_ALL_RUNS) of event `ev` (or
 * PD_LKP_ALL_EVENTS), sorted by key, values ≥ 0.05 only.  An event with no
 * period in that run gives no keys.
 *
 * @param out   set to a new array (NULL when empty); free with
 *              pd_lkp_keys_free()
 * @return 0, PD_EINVAL (no such event or run) or PD_ENOMEM
 */
PD_EXTERN(int) pd_lkp_keys(pd_lkp_key **out, size_t *n, const pd_profile *p,
			   size_t ev, size_t run, pd_error *err);

/**
 * The mean over all runs of each key, as the robot's compare table shows
 * it: a key missing from a run (below a threshold there) counts as 0 in
 * that run, and the mean is Ruby's Array#sum of the runs' values (a
 * compensated sum, in run order) divided by the number of runs.  Keys
 * present in at least one run, sorted; no further threshold.
 */
PD_EXTERN(int) pd_lkp_keys_mean(pd_lkp_key **out, size_t *n, const pd_profile *p,
				size_t ev, pd_error *err);

/** Free what pd_lkp_keys() or pd_lkp_keys_mean() returned.  NULL is allowed. */
PD_EXTERN(void) pd_lkp_keys_free(pd_lkp_key *keys, size_t n);

/**
 * The robot's event name for perf's ("cycles:pp" → "cycles-pp").  Writes
 * at most `n` bytes to `buf` (NUL included, truncating) and returns the
 * length of the full result.
 */
PD_EXTERN(size_t) pd_lkp_event_name(const char *perf_name, char *buf, size_t n);

/**
 * The robot's symbol clean-up: every ".isra.<digits>", ".constprop.<digits>"
 * and ".part.<digits>" removed, nothing else changed
 * ("foo.constprop.0.isra.0" → "foo", "bar.cold" stays).  Same buffer
 * contract as pd_lkp_event_name().
 */
PD_EXTERN(size_t) pd_lkp_symbol_clean(const char *name, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
