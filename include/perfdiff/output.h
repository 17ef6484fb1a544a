/*
 * perfdiff/output.h — every format perfdiff prints, for any program.
 *
 * The `perfdiff` command line tool is option parsing around these calls:
 * what it prints for `report`, `diff` and `script` is written here, byte
 * for byte, so a Python binding, an HTML report or a CI gate gets the same
 * JSON, CSV, folded stacks, text tables and kernel-test-robot keys without
 * re-implementing them.
 *
 * Overview
 * --------
 * 1. Make a pd_writer: to a FILE (pd_writer_new_file()) or to a callback
 *    (pd_writer_new_callback()) that receives the bytes in large blocks.
 *    For a file on disk, pd_outfile gives the FILE and writes the file
 *    whole or not at all (a temporary file renamed into place).
 * 2. Write with it:
 *      pd_report_write()         a profile (profile.h): text like
 *                                `perf report --children`, JSON, CSV,
 *                                folded stacks, the robot's lkp keys
 *      pd_diff_write()           a comparison (diff.h): text with explained
 *                                shifts first, the robot's compare table
 *                                (lkp), JSON, CSV, an HTML page, an SVG
 *                                and a differential flame graph's
 *                                input (folded, named by the aligned tree)
 *      pd_diff_write_folded()    two profiles as a differential flame
 *                                graph's input (no comparison needed)
 *      pd_script_write_sample()  one sample (session.h) at a time, like
 *                                `perf script` or as a JSON line
 *      pd_json_*, pd_writer_text()  the JSON and text escaping the formats
 *                                use, for a program's own records
 * 3. pd_writer_flush() to push out what is buffered and learn whether
 *    every write succeeded, then pd_writer_free().
 *
 *     pd_writer *w;
 *     pd_error err;
 *     pd_report_write_options ro;
 *     pd_report_write_options_init(&ro, PD_REPORT_WRITE_OPTIONS_VERSION);
 *     ro.format = PD_FORMAT_JSON;
 *     if (pd_writer_new_file(&w, stdout, &err) == 0) {
 *         if (pd_report_write(w, profile, &ro, &err) == 0)
 *             pd_writer_flush(w, &err);
 *         pd_writer_free(w);
 *     }
 *
 * Errors
 * ------
 * As everywhere in libperfdiff (common.h): 0 or a negative PD_E* code, and
 * `err` filled when it is not NULL.  A writer's errors are sticky: once an
 * allocation or a write has failed, later writes are dropped and every
 * call returns the same code (PD_ENOMEM, or PD_EIO for a failed write;
 * the message of pd_writer_flush() says why, "output: No space left on
 * device").  So a caller may write a whole document and check once.
 *
 * Options structs
 * ---------------
 * Each has `version` first: fill it with the matching *_init(), which sets
 * the current PD_*_VERSION and the defaults, then change fields.  A struct
 * of an older version (a program built against an older header) is
 * accepted: the fields it lacks take their defaults.  A version of 0 or
 * newer than the library's is PD_EINVAL.
 *
 * Formats and schemas
 * -------------------
 * JSON is compact, one document per call (one line per sample for
 * script), strings are well-formed UTF-8 (ill-formed bytes of perf.data
 * names become U+FFFD), integers above INT64_MAX and addresses are
 * strings.  Each JSON document names its schema as "perfdiff.<kind>/<n>":
 * "perfdiff.report/1" (docs/report-json.md) and "perfdiff.diff/1"
 * (docs/diff-json.md); a change that could break a reader raises n.  CSV
 * is RFC 4180 with CRLF line ends.  Text escapes control characters and
 * ill-formed UTF-8 as \xNN (pd_writer_text()).
 *
 * Threads: a writer is used by one thread at a time; different writers
 * are independent.  pd_report_write() in text format builds call chains
 * on a second thread while it writes, when the profile's thread budget
 * (its session options' `threads`, profile.h) has a slot free; none else
 * here starts a thread.
 */
#ifndef PERFDIFF_OUTPUT_H
#define PERFDIFF_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"
#include "diff.h"
#include "pprof.h"
#include "profile.h"
#include "session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ formats */

/** An output format.  Which commands take which is said at each writer. */
typedef enum pd_format {
	PD_FORMAT_TEXT = 0,   /**< for people: perf's layouts */
	PD_FORMAT_JSON = 1,   /**< compact JSON, schemas in docs/ */
	PD_FORMAT_CSV = 2,    /**< RFC 4180, CRLF line ends */
	PD_FORMAT_FOLDED = 3, /**< collapsed stacks, flamegraph.pl's input */
	PD_FORMAT_LKP = 4,    /**< the kernel test robot's layouts (report.h) */
	PD_FORMAT_HTML = 5,   /**< one self-contained page with flame graphs */
	PD_FORMAT_SVG = 6,    /**< a static differential flame graph */
} pd_format;

/**
 * The format named `name` ("text", "json", "csv", "folded", "lkp",
 * "html", "svg"), or
 * PD_EINVAL (negative) for anything else, NULL included.
 */
PD_EXTERN(int) pd_format_parse(const char *name);

/** The name pd_format_parse() takes for `f`; NULL for no format. */
PD_EXTERN(const char *) pd_format_name(pd_format f);

/* ================================================================ writer */

/**
 * Where a callback writer's bytes go: all `n` bytes of `buf` (n > 0),
 * which are only valid during the call.  Return 0, or anything else to
 * fail the writer (PD_EIO from then on).
 */
typedef int (*pd_write_fn)(void *ctx, const char *buf, size_t n);

/** A buffered output: formats write into it, it writes out in blocks of
 * about 256 KiB. */
typedef struct pd_writer pd_writer;

/**
 * A writer to `f`, which must stay open until pd_writer_free().
 * pd_writer_flush() also fflush()es `f` and checks ferror().
 * @return 0, PD_EINVAL (no `out` or `f`) or PD_ENOMEM
 */
PD_EXTERN(int) pd_writer_new_file(pd_writer **out, FILE *f, pd_error *err);

/**
 * A writer that hands its bytes to `fn` with `ctx`.
 * @return 0, PD_EINVAL (no `out` or `fn`) or PD_ENOMEM
 */
PD_EXTERN(int) pd_writer_new_callback(pd_writer **out, pd_write_fn fn, void *ctx,
				      pd_error *err);

/**
 * Write out everything buffered.  Output also goes out by itself in
 * blocks while a format writes, so call this at the end, or where the
 * bytes must be out now (before printing a warning to the same terminal).
 * @return 0, or the writer's sticky error (PD_ENOMEM, PD_EIO) with the
 *         reason in `err`
 */
PD_EXTERN(int) pd_writer_flush(pd_writer *w, pd_error *err);

/** Free the writer.  What is still buffered is dropped: call
 * pd_writer_flush() first.  NULL is allowed. */
PD_EXTERN(void) pd_writer_free(pd_writer *w);

/** Append `n` bytes as they are.  0 or the sticky error. */
PD_EXTERN(int) pd_writer_write(pd_writer *w, const void *buf, size_t n);

/** Append printf() output.  0 or the sticky error. */
PD_EXTERN(int) pd_writer_printf(pd_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Append `s` safe for one line of a terminal, as every text format
 * writes names: printable UTF-8 as it is; control characters (C0, DEL,
 * C1), bytes that are not well-formed UTF-8 and '\' as \xNN and \\.
 * 0 or the sticky error.
 */
PD_EXTERN(int) pd_writer_text(pd_writer *w, const char *s);

/* ================================================================ files */

/*
 * A file written whole or not at all (git's lockfile.c): the bytes go to
 * a temporary file in the target's directory, ".NAME.XXXXXX", which
 * pd_outfile_commit() flushes, fsync()s and renames over NAME.  Until
 * then NAME is untouched: an error, pd_outfile_abort(), or a process
 * killed by a signal (after the caller's handler has unlinked
 * pd_outfile_temp_path()) leave it as it was, byte for byte.
 *
 *     pd_outfile *of;
 *     pd_writer *w;
 *     if (pd_outfile_check(path, inputs, ninputs, &err) < 0 ||
 *         pd_outfile_open(&of, path, &err) < 0)
 *         return fail(&err);
 *     int rc = pd_writer_new_file(&w, pd_outfile_stream(of), &err);
 *     if (rc == 0) rc = pd_report_write(w, profile, &ro, &err);
 *     if (rc == 0) rc = pd_writer_flush(w, &err);
 *     pd_writer_free(w);
 *     if (rc == 0) rc = pd_outfile_commit(of, &err);  // frees `of`
 *     else pd_outfile_abort(of);                       // NAME as it was
 *
 * What the target becomes (its directory must be writable, as the
 * temporary file is made there):
 * - a regular file is replaced (rename): it keeps its permission bits
 *   (not its owner, nor other hard links to it, which keep the old
 *   bytes); one the caller may not write is refused, as fopen() would;
 * - an absent file is made with mode 0666 less the umask, as fopen();
 * - a symlink is followed: the file it names is replaced, the link
 *   stays (a dangling link: the file is made where it points);
 * - anything else (a character device such as /dev/null, a FIFO) is
 *   written in place: there is nothing to rename over, and nothing a
 *   partial write could destroy.
 *
 * The library installs no signal handler (no global state): a program
 * that must leave no temporary file behind when interrupted unlinks
 * pd_outfile_temp_path() in its own handler (unlink() is
 * async-signal-safe), as the perfdiff command does.
 *
 * Threads: a pd_outfile is used by one thread at a time.
 */

/** A file being written; see above. */
typedef struct pd_outfile pd_outfile;

/**
 * Whether writing `path` would replace one of the `n` `inputs` (as
 * pd_reader_open() names them: "-" is standard input, a directory is a
 * `perf record --threads` recording whose files count): the same device
 * and inode, so a hard link or a symlink to an input counts too.  Call
 * it before opening anything.
 * @return 0 (also when `path` does not exist yet), or PD_EINVAL with a
 *         message naming `path` and the input ("x.data: is an input;
 *         not overwriting it")
 */
PD_EXTERN(int) pd_outfile_check(const char *path, const char *const *inputs, size_t n,
				pd_error *err);

/**
 * Start writing `path` (see above for what it becomes).  Nothing at
 * `path` changes until pd_outfile_commit().
 * @return 0 with `*out` set (commit or abort it), PD_EINVAL (no path),
 *         PD_ENOMEM, or PD_EIO ("out.txt: cannot write: Permission
 *         denied"; also for a directory)
 */
PD_EXTERN(int) pd_outfile_open(pd_outfile **out, const char *path, pd_error *err);

/** Where to write: a FILE owned by `f` (do not fclose() it). */
PD_EXTERN(FILE *) pd_outfile_stream(pd_outfile *f);

/**
 * The temporary file's path, for a signal handler to unlink(); NULL when
 * the target is written in place.  Valid until commit or abort.
 */
PD_EXTERN(const char *) pd_outfile_temp_path(const pd_outfile *f);

/**
 * Flush, fsync() and rename the file into place, then free `f` (always,
 * also on failure, when the temporary file is removed and the target
 * left as it was).
 * @return 0, PD_EINVAL (NULL `f`) or PD_EIO with the reason ("out.txt:
 *         cannot write: No space left on device")
 */
PD_EXTERN(int) pd_outfile_commit(pd_outfile *f, pd_error *err);

/** Drop what was written: the temporary file is removed, the target
 * stays as it was; frees `f`.  NULL is allowed. */
PD_EXTERN(void) pd_outfile_abort(pd_outfile *f);

/* ================================================================ JSON */

/*
 * The JSON writer every format uses, for a program that writes its own
 * records next to libperfdiff's (the CLI's `dump` does).  The writer
 * tracks nesting (up to 64 levels) and puts the commas; a value comes
 * after pd_json_key() inside an object, alone inside an array or at the
 * top.  pd_json_end() closes a top-level document with a newline, so
 * several documents make JSON lines.  Each call returns 0 or the sticky
 * error; PD_EINVAL for a call out of place where that is cheap to see
 * (closing at the top level).
 *
 *     pd_json_begin_object(w);
 *     pd_json_key(w, "pid");   pd_json_u64(w, 42);
 *     pd_json_key(w, "comm");  pd_json_string(w, comm);
 *     pd_json_end_object(w);
 *     pd_json_end(w);          // {"pid":42,"comm":"..."}\n
 */
PD_EXTERN(int) pd_json_begin_object(pd_writer *w);
PD_EXTERN(int) pd_json_end_object(pd_writer *w);
PD_EXTERN(int) pd_json_begin_array(pd_writer *w);
PD_EXTERN(int) pd_json_end_array(pd_writer *w);
/** A key of the open object, escaped as a string. */
PD_EXTERN(int) pd_json_key(pd_writer *w, const char *key);
/** A string: ill-formed UTF-8 bytes become U+FFFD; NULL writes null. */
PD_EXTERN(int) pd_json_string(pd_writer *w, const char *s);
/** A number up to INT64_MAX; above, a string of its digits (JSON readers
 * that read numbers as doubles or int64 would lose it). */
PD_EXTERN(int) pd_json_u64(pd_writer *w, uint64_t v);
PD_EXTERN(int) pd_json_i64(pd_writer *w, int64_t v);
/** A real, with 17 significant digits and always a '.' or an exponent
 * ("100.0", "1e-5"); null when NaN or infinite. */
PD_EXTERN(int) pd_json_real(pd_writer *w, double x);
PD_EXTERN(int) pd_json_bool(pd_writer *w, bool v);
PD_EXTERN(int) pd_json_null(pd_writer *w);
/** An address as the string "0x1f2e" (lower case). */
PD_EXTERN(int) pd_json_hex(pd_writer *w, uint64_t v);
/** `n` bytes as a string of lower-case hex digit pairs (a build-id). */
PD_EXTERN(int) pd_json_hex_bytes(pd_writer *w, const uint8_t *p, size_t n);
/** Put the next key or value of the open object or array on a new line
 * (the comma, if one is due, stays at the end of this line). */
PD_EXTERN(int) pd_json_newline(pd_writer *w);
/** End a top-level document: a newline; the writer is at the top again. */
PD_EXTERN(int) pd_json_end(pd_writer *w);

/* ================================================================ report */

/** Options of pd_report_write().  Initialise with PD_REPORT_WRITE_OPTIONS_INIT
 * or pd_report_write_options_init(&o, PD_REPORT_WRITE_OPTIONS_VERSION). */
/** pd_report_write_options.threshold: perf's rule (see there). */
#define PD_REPORT_THRESHOLD_AUTO (-1.0)

typedef struct pd_report_write_options {
	unsigned int version;
	pd_format format;        /**< text (default), json, csv, folded, lkp or html */
	int event;               /**< event index; -1 (default): every event with samples;
	                              folded: then the default event
	                              (pd_profile_default_event()), nothing without one;
	                              lkp: then every event under the first one's
	                              name, the robot's way (PD_LKP_ALL_EVENTS) */
	pd_chain_order order;    /**< text: chains under each row (default caller) */
	bool chains;             /**< text: call chains under each row (default true) */
	double threshold;        /**< text: % of the event total a chain node needs;
	                              PD_REPORT_THRESHOLD_AUTO (default): the
	                              percent_limit when one is set (perf's
	                              --percent-limit hides chains below it too),
	                              else 0.5 */
	double percent_limit;    /**< % a row (text, json, csv) and a JSON tree node
	                              need (default 0) */
	bool sort_self;          /**< rows by self instead of children; the limit
	                              applies to self then */
	bool weight_samples;     /**< folded: sample counts, not periods */
	bool mean;               /**< lkp: one block of each key's mean over the runs */
	const char *const *files; /**< lkp with several runs: the name of run i for
	                              its "# NAME" header (NULL: "# run N") */
	size_t nfiles;
	const pd_profile_options *profile_options; /**< as the profile was built: the
	                              text header and the JSON "settings" describe it;
	                              NULL: PD_PROFILE_OPTIONS_INIT */
	/* version 2 */
	bool color;              /**< text: Children and Self coloured as perf colours
	                              them (ANSI: red from 5 %, green from 0.5 %); for
	                              a terminal (default false) */
	/* version 3 */
	const char *peek;        /**< a POSIX extended expression: text writes, per
	                              event, the pd_profile_peek() block of the
	                              functions it matches instead of the rows
	                              (pprof's -peek), JSON adds it to each event as
	                              "peek"; other formats refuse it (NULL: none) */
	const char *sort_keys;   /**< text: rows keyed as perf's --sort keys them,
	                              "comm,dso,sym" or any of the three in any order,
	                              with a Command and a Shared Object column where
	                              given, and no call chains (NULL: the default
	                              rows, by dso and symbol, with chains) */
	bool nr_samples;         /**< text: perf's -n, a Samples column (the samples
	                              whose leaf the row is); rows as with sort_keys
	                              (NULL keys: "dso,sym") */
	/* version 4 */
	bool all_origins;        /**< text: the header's lines of where symbols came
	                              from (pd_profile_symbol_origin()) name every dso
	                              with its path and full build-id (default false:
	                              a few names per source, short build-ids; JSON
	                              is always complete) */
} pd_report_write_options;

/*
 * Version 2 added `color`, version 3 `peek`, `sort_keys` and
 * `nr_samples`, version 4 `all_origins`.  A caller built with an
 * older version still works: its struct is read up to its last field,
 * and the new fields take their defaults.
 */
#define PD_REPORT_WRITE_OPTIONS_VERSION 4

/** The defaults, for C callers:
 * `pd_report_write_options o = PD_REPORT_WRITE_OPTIONS_INIT;` (a compound
 * literal; the fields not named are 0, false or NULL). */
#define PD_REPORT_WRITE_OPTIONS_INIT                                           \
	((pd_report_write_options){ .version = PD_REPORT_WRITE_OPTIONS_VERSION, \
				    .format = PD_FORMAT_TEXT,                   \
				    .event = -1,                                \
				    .order = PD_CHAIN_CALLER,                   \
				    .chains = true,                             \
				    .threshold = PD_REPORT_THRESHOLD_AUTO })

/**
 * Fill `o` with the defaults of PD_REPORT_WRITE_OPTIONS_INIT as far as
 * `version` went, and set `o->version` to `version`; pass
 * PD_REPORT_WRITE_OPTIONS_VERSION.  Only the fields of that version are
 * written, so that a program built against an older header, whose struct is
 * smaller, may run against a newer library.
 * @return 0, or PD_EINVAL for a NULL `o` or a version this library does not
 *         know (nothing written)
 */
PD_EXTERN(int) pd_report_write_options_init(pd_report_write_options *o, unsigned version);

/**
 * Write profile `p` in `o->format` (NULL `o`: the defaults):
 *   text    per event a header, the children/self table of
 *           `perf report --children --stdio` and the call chains under
 *           each row, drawn as perf draws them; the header also names a
 *           run whose input is cut, samples lost above 5 %, an event
 *           with fewer than 100 samples in a run, filter values that
 *           matched nothing
 *   json    schema "perfdiff.report/1" (docs/report-json.md): settings,
 *           runs, per event totals, rows and the calling-context tree
 *   csv     event,symbol,dso,level,inlined,children_pct,self_pct,
 *           children,self, then children_N,self_N for each run N
 *   folded  "comm;root;...;leaf WEIGHT" per distinct stack of one event
 *   lkp     the robot's perf-profile keys ("self.cycles-pp.f: 12.05"),
 *           report.h: the profile must be built with
 *           pd_lkp_profile_options(); several runs: each run's keys
 *           under a "# NAME" line, or with `mean` their means
 *   html    one self-contained page (script, style and data inline, no
 *           network): per event a flame graph with search, zoom and
 *           tooltips, and the children/self table (docs/html-report.md)
 * The profile is not changed but builds its views on first use, hence
 * not const.
 * @return 0; PD_EINVAL (bad options or event); the profile's error; or
 *         the writer's sticky error
 */
PD_EXTERN(int) pd_report_write(pd_writer *w, pd_profile *p, const pd_report_write_options *o,
			       pd_error *err);

/* ================================================================ diff */

/** The order of a diff's rows within each metric (pd_diff_write_options.sort). */
typedef enum pd_diff_sort {
	PD_DIFF_SORT_CHANGE = 0,     /**< by change, most negative first: the robot's */
	PD_DIFF_SORT_ABS_CHANGE = 1, /**< by |change|, largest first */
	PD_DIFF_SORT_NAME = 2,       /**< by key (byte order), then dso */
} pd_diff_sort;

/** Options of pd_diff_write() and pd_diff_write_folded().  Initialise
 * with PD_DIFF_WRITE_OPTIONS_INIT or
 * pd_diff_write_options_init(&o, PD_DIFF_WRITE_OPTIONS_VERSION). */
typedef struct pd_diff_write_options {
	unsigned int version;
	pd_format format;        /**< text (default), lkp, json, csv, html, svg or folded */
	bool all;                /**< every row, not only the significant ones and those
	                              of the listed shifts */
	const char *const *files[2]; /**< the file names of each side (0 base, 1 new),
	                              for the columns' titles and the footer; NULL: the
	                              runs' paths (pd_profile_run_path()) */
	size_t nfiles[2];
	const char *event;       /**< pd_diff_write_folded(): the event, as
	                              pd_diff_events() takes it (NULL: the default) */
	bool weight_samples;     /**< pd_diff_write_folded(): sample counts, not periods */
	/* version 2 */
	bool color;              /**< text: rows coloured as git diff colours lines
	                              (ANSI): a cost that grew red, one that fell
	                              green, a row that is not significant dim; for a
	                              terminal (default false) */
	pd_diff_sort sort;       /**< the order of the rows within each metric, in
	                              every format (default PD_DIFF_SORT_CHANGE) */
	double percent_limit;    /**< rows whose mean is below this share (points) on
	                              both sides are not written, significant or not,
	                              and a shift none of whose rows is written is not
	                              listed; they count as hidden (default 0: none;
	                              not with PD_DIFF_ABSOLUTE, whose values are
	                              rates: PD_EINVAL) */
	/* version 3 */
	bool no_comm;            /**< folded: no command-name frame first (default
	                              false: "comm;root;...;leaf") */
	/* version 4 */
	const char *peek;        /**< a POSIX extended expression: text writes the
	                              pd_diff_peek() block of the functions it matches
	                              instead of the rows (pprof's -peek), JSON adds
	                              it as "peek"; other formats refuse it (NULL:
	                              none) */
	bool show_comm;          /**< text: a Command column before each row's key,
	                              the command with most of its samples (perf's
	                              --sort=comm,...; "-" where rows are not split by
	                              process) */
	bool show_dso;           /**< text: a Shared Object column before each row's
	                              key (perf's --sort=dso,...) */
	/* version 5 */
	bool all_origins;        /**< text: each side's footer lines of where symbols
	                              came from (pd_profile_symbol_origin()) name every
	                              dso with its path and full build-id (default
	                              false: a few names per source; JSON is always
	                              complete) */
} pd_diff_write_options;

/*
 * Version 2 added `color`, `sort` and `percent_limit`, version 3
 * `no_comm`, version 4 `peek`, `show_comm` and `show_dso`, version 5
 * `all_origins`.  A caller built with an older version still works: its
 * struct is read up to its last field, and the new fields take their
 * defaults.
 */
#define PD_DIFF_WRITE_OPTIONS_VERSION 5

/** The defaults, for C callers:
 * `pd_diff_write_options o = PD_DIFF_WRITE_OPTIONS_INIT;` (a compound
 * literal; the fields not named are 0, false or NULL). */
#define PD_DIFF_WRITE_OPTIONS_INIT                                             \
	((pd_diff_write_options){ .version = PD_DIFF_WRITE_OPTIONS_VERSION,    \
				  .format = PD_FORMAT_TEXT,                    \
				  .sort = PD_DIFF_SORT_CHANGE })

/**
 * Fill `o` with the defaults of PD_DIFF_WRITE_OPTIONS_INIT as far as
 * `version` went, and set `o->version` to `version`; pass
 * PD_DIFF_WRITE_OPTIONS_VERSION.  Only the fields of that version are
 * written, so that a program built against an older header, whose struct is
 * smaller, may run against a newer library.
 * @return 0, or PD_EINVAL for a NULL `o` or a version this library does not
 *         know (nothing written)
 */
PD_EXTERN(int) pd_diff_write_options_init(pd_diff_write_options *o, unsigned version);

/**
 * Write comparison `d` in `o->format` (NULL `o`: the defaults):
 *   text  the explained shifts (base -> new, with the rows each explains),
 *         then the robot's compare table of the other shown rows, then
 *         what the numbers rest on (runs, event, test, significance); per
 *         side also, where they apply: 10 % or more of the period with an
 *         unresolved leaf, inputs cut short, samples lost while recording,
 *         a run with fewer than 100 samples, filter values that matched
 *         nothing (and in JSON, always, as keys of "base" and "new")
 *   lkp   the robot's compare table alone, as its e-mails show it
 *   json  schema "perfdiff.diff/1" (docs/diff-json.md)
 *   csv   one line per shown row, the fields of the JSON rows and the
 *         value of every run
 *   html  one self-contained page (docs/html-report.md): the text's
 *         header, shifts and table, and an interactive differential
 *         flame graph of the aligned tree (pd_diff_node); its colours
 *         grey a node by its tree row's test, so make the diff with
 *         PD_DIFF_TREE_ROWS (without, nodes are coloured untested)
 *   svg   the same flame graph, static, with <title> tooltips
 *   folded  the collapsed stacks of a differential flame graph, as
 *         pd_diff_write_folded() writes them but with both sides' stacks
 *         named by the aligned tree: a new stack under its aligned node's
 *         path, each frame the base's name where the base has the node
 *         (a renamed, inlined or moved function's stacks are one line
 *         with both sides' values); a renamed binary's new command as
 *         the base's, or none with `no_comm`.  Values: the mean over a
 *         side's runs of the event's period (or with `weight_samples`
 *         sample counts) per stack; `all`, `sort` and `percent_limit`
 *         do not apply
 * A row is shown when it is significant, explained by a listed shift, or
 * with `all`.  The diff's profiles must still exist.
 * @return 0, PD_EINVAL (bad options, a format a diff has not) or the
 *         writer's sticky error
 */
PD_EXTERN(int) pd_diff_write(pd_writer *w, const pd_diff *d, const pd_diff_write_options *o,
			     pd_error *err);

/**
 * Write the explanation of a robot's mail or result directories `t`
 * (robot.h): the comparisons `diffs[0..n)`, each made from a table of `t`
 * by pd_diff_new_lkp() (usually each column against the base, table after
 * table), in `o->format`:
 *   text  the mail's name and subject, then per comparison its table
 *         (test machine, parameters) and commits (subjects, runs), and
 *         what pd_diff_write() writes of it: the explained shifts, each
 *         with its raw rows under it, then the robot's table of the other
 *         shown rows, then what the numbers rest on (the columns' runs and
 *         where their number comes from, the test); a last line counts
 *         the comparisons and the rows of other metrics ignored, or says
 *         that there were no perf-profile rows (n 0)
 *   json  one "perfdiff.diff/1" document a line per comparison
 *         (docs/diff-json.md), with a "table" object naming its table
 *         and commits; nothing for n 0
 *   lkp, csv  pd_diff_write()'s, one after the other
 *   html  pd_diff_write()'s page, for exactly one comparison
 * `o->files` is not used: the sides are named by their commits.
 * @return 0, PD_EINVAL (bad options, another format, HTML of n != 1, a
 *         diff of profiles) or the writer's sticky error
 */
PD_EXTERN(int) pd_explain_write(pd_writer *w, const pd_lkp_tables *t, const pd_diff *const *diffs,
				size_t n, const pd_diff_write_options *o, pd_error *err);

/**
 * The collapsed stacks of a differential flame graph, as FlameGraph's
 * difffolded.pl writes them: "comm;root;...;leaf BASE NEW", one line per
 * distinct stack of either side of `o->event`, each value the mean of the
 * side's periods (or sample counts) over its runs ("12", "12.5"), sorted
 * by stack.  No comparison is made: a flame graph shows every stack, each
 * side's under its own names (pd_diff_write() with PD_FORMAT_FOLDED names
 * them by the aligned tree, so a renamed function pairs).
 * @return 0, PD_EINVAL (an event missing on a side), the profiles' error
 *         or the writer's sticky error
 */
PD_EXTERN(int) pd_diff_write_folded(pd_writer *w, pd_profile *base, pd_profile *new_,
				    const pd_diff_write_options *o, pd_error *err);

/* ================================================================ script */

/** Options of a pd_script_writer.  Initialise with PD_SCRIPT_WRITE_OPTIONS_INIT
 * or pd_script_write_options_init(&o, PD_SCRIPT_WRITE_OPTIONS_VERSION). */
typedef struct pd_script_write_options {
	unsigned int version;
	pd_format format;        /**< text (default) or json */
	bool srcline;            /**< text: a "  file:line" line under each frame (the
	                              session needs PD_SESSION_SRCLINE for the lines) */
	bool full_path;          /**< text: srcline with the file's full path */
	bool ns;                 /**< text: times with nanoseconds (perf script --ns) */
} pd_script_write_options;

#define PD_SCRIPT_WRITE_OPTIONS_VERSION 1

/** The defaults, for C callers:
 * `pd_script_write_options o = PD_SCRIPT_WRITE_OPTIONS_INIT;` (a compound
 * literal; the fields not named are false). */
#define PD_SCRIPT_WRITE_OPTIONS_INIT                                           \
	((pd_script_write_options){ .version = PD_SCRIPT_WRITE_OPTIONS_VERSION, \
				    .format = PD_FORMAT_TEXT })

/**
 * Fill `o` with the defaults of PD_SCRIPT_WRITE_OPTIONS_INIT as far as
 * `version` went, and set `o->version` to `version`; pass
 * PD_SCRIPT_WRITE_OPTIONS_VERSION.  Only the fields of that version are
 * written, so that a program built against an older header, whose struct is
 * smaller, may run against a newer library.
 * @return 0, or PD_EINVAL for a NULL `o` or a version this library does not
 *         know (nothing written)
 */
PD_EXTERN(int) pd_script_write_options_init(pd_script_write_options *o, unsigned version);

/** Writes the samples of one session (it remembers the session's names,
 * which live as long as the session). */
typedef struct pd_script_writer pd_script_writer;

/**
 * A writer of the samples of session `s` to `w`.  Free it before the
 * session.
 * @return 0, PD_EINVAL (bad options or format) or PD_ENOMEM
 */
PD_EXTERN(int) pd_script_writer_new(pd_script_writer **out, pd_writer *w, const pd_session *s,
				    const pd_script_write_options *o, pd_error *err);

/**
 * Write sample `rs` (from pd_session_next() of the writer's session):
 *   text  perf 6.1's `perf script` layout: "COMM PID/TID [CPU] SECS.USECS:
 *         PERIOD EVENT:", then "\t<addr> sym+0xoff (dso)" per frame and a
 *         blank line; an event without call chains has the leaf on the
 *         header line
 *   json  one line: {"comm","pid","tid","cpu","time","period","event",
 *         "frames":[{"addr","dso_addr","symbol","raw_symbol","offset",
 *         "dso","inlined","srcfile","line","unit"}]}, absent facts null
 * @return 0 or the writer's sticky error
 */
PD_EXTERN(int) pd_script_write_sample(pd_script_writer *sw, const pd_resolved_sample *rs,
				      pd_error *err);

/** Free the script writer (not its pd_writer).  NULL is allowed. */
PD_EXTERN(void) pd_script_writer_free(pd_script_writer *sw);

/* ================================================================ pprof */

/**
 * `perfdiff script` of a pprof file (pprof.h's pd_pprof): every sample,
 * as pd_script_write_sample() writes one of perf.data, with what pprof
 * lacks left out.  Text: "COMM PID/TID [CPU]: VALUE TYPE, VALUE TYPE...:"
 * (pid, tid, cpu from the labels an export writes; 0 and no CPU without
 * them), then one "\t<dso_addr> symbol (dso)" line per frame, inline
 * frames "symbol (inlined)", a blank line after each; no time and no
 * "+0xoffset" (pprof has neither).  JSON: the object of
 * pd_script_write_sample() with time, offset and unit null, pid, tid and
 * cpu null without their label, "period" and "event" the default sample
 * type's (pd_pprof_default_type()) value and name, and "values" every
 * value in sample-type order.  One pprof sample stands for every
 * recorded sample of its stack and labels: its values count them.
 * @return 0, PD_EINVAL (bad options or format), PD_ENOMEM, or the
 *         writer's error
 */
PD_EXTERN(int) pd_pprof_write_script(pd_pprof *pp, pd_writer *w,
				     const pd_script_write_options *o, pd_error *err);

/**
 * `perfdiff dump --stats` of a pprof file named `path`: its sample types
 * with their totals (the default marked), period type and period,
 * time_nanos, duration_nanos, comments and the number of samples,
 * locations, functions, mappings and strings, as text ("label:" lines)
 * or one JSON object (fmt PD_FORMAT_TEXT or PD_FORMAT_JSON, docs/pprof.md).
 * @return 0, PD_EINVAL, or the writer's error
 */
PD_EXTERN(int) pd_pprof_write_stats(const pd_pprof *pp, pd_writer *w, pd_format fmt,
				    const char *path, pd_error *err);

#ifdef __cplusplus
}
#endif

#endif
