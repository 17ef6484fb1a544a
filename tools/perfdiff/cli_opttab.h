/*
 * The command line's one option table: every option of every command,
 * once, as data — its name and short name, the kind of value it takes
 * (and for a word, the words), the commands that accept it, where its
 * value goes and where the manual documents it.  From the table come the
 * parsing (cli_parse.c), `perfdiff --list-options CMD` and with it the
 * shell completion (cli_options.c, perfdiff.bash), "did you mean"
 * (cli_suggest.c) and the check of the manual (test_cli), so that none of
 * them can name an option another lacks.
 *
 * Where a value goes is a part and an id: the part says whose setter
 * takes it (the output's, cli_io_set(); the profile's or the session's,
 * cli_profile_opts.h; or the command's own), the id which field.
 */
#ifndef PERFDIFF_CLI_OPTTAB_H
#define PERFDIFF_CLI_OPTTAB_H

#include <stdbool.h>
#include <stddef.h>

/* The commands, as bits of cli_optdef.cmds. */
enum {
	CLI_CMD_TOP = 1u << 0,      /* perfdiff --help, --version */
	CLI_CMD_DUMP = 1u << 1,
	CLI_CMD_SCRIPT = 1u << 2,
	CLI_CMD_REPORT = 1u << 3,
	CLI_CMD_DIFF = 1u << 4,
	CLI_CMD_EXPLAIN = 1u << 5,
	CLI_CMD_RECORD = 1u << 6,
	CLI_CMD_TUI = 1u << 7,      /* diff's profiles and engine, on a screen */
};

typedef enum cli_kind {
	CLI_FLAG,      /* no value */
	CLI_UINT,      /* a whole number in [lo, hi] */
	CLI_DOUBLE,    /* a finite number in [lo, hi] (lo excluded: lo_open) */
	CLI_WORD,      /* one of the words of `arg`, "a|b|c" */
	CLI_STRING,    /* any value, the last one given counts */
	CLI_LIST,      /* repeatable: the values add up */
	CLI_INPUT,     /* a FILE, as if given as an operand */
	CLI_HELP,      /* print the command's help and stop */
	CLI_HINT,      /* not taken: perf's spelling, answered with `hint` */
} cli_kind;

/* Whose setter takes the value. */
typedef enum cli_part {
	CLI_PART_NONE,     /* the parser's own: CLI_INPUT, CLI_HELP, CLI_HINT */
	CLI_PART_IO,       /* cli_io (cli_io_set) */
	CLI_PART_SESSION,  /* pd_session_options (cli_session_set) */
	CLI_PART_PROFILE,  /* cli_profile_opts (cli_profile_set) */
	CLI_PART_OWN,      /* the command's own options */
} cli_part;

/* The ids, by part; a command's own ids are its own business but live
 * here, so that the table can name them. */
enum cli_optid {
	/* CLI_PART_IO */
	CLI_IO_QUIET, CLI_IO_VERBOSE, CLI_IO_OUTPUT, CLI_IO_STRICT, CLI_IO_PROGRESS,
	CLI_IO_NO_PROGRESS, CLI_IO_COLOR,
	/* CLI_PART_SESSION */
	CLI_SO_NO_INLINE, CLI_SO_PERF_COMPAT, CLI_SO_NO_DEMANGLE, CLI_SO_OFFLINE, CLI_SO_MAX_STACK,
	CLI_SO_SYMFS, CLI_SO_KALLSYMS, CLI_SO_VMLINUX, CLI_SO_BUILDID_DIR, CLI_SO_JIT_DIR,
	CLI_SO_SYMBOLS_FROM,
	CLI_SO_UNWINDER,
	/* CLI_PART_PROFILE: the lists first, in CPO_* order */
	CLI_PO_COMM, CLI_PO_PID, CLI_PO_TID, CLI_PO_CPU, CLI_PO_DSO, CLI_PO_EVENT,
	CLI_PO_TIME, CLI_PO_PERF_COMPAT, CLI_PO_KEEP_SUFFIXES, CLI_PO_HIDE_UNRESOLVED,
	CLI_PO_FOCUS, CLI_PO_IGNORE, CLI_PO_HIDE, CLI_PO_PRUNE_FROM,
	/* dump */
	CLI_DUMP_STATS, CLI_DUMP_NO_SYMBOLS, CLI_DUMP_ORDERED, CLI_DUMP_FORMAT,
	/* script */
	CLI_SCRIPT_FORMAT, CLI_SCRIPT_SRCLINE, CLI_SCRIPT_FULL_PATH, CLI_SCRIPT_NS,
	CLI_SCRIPT_COMM, CLI_SCRIPT_PID, CLI_SCRIPT_TID, CLI_SCRIPT_CPU,
	/* report */
	CLI_REPORT_FORMAT, CLI_REPORT_MEAN, CLI_REPORT_MERGE, CLI_REPORT_LABEL,
	CLI_REPORT_ORDER, CLI_REPORT_THRESHOLD, CLI_REPORT_NO_CHAINS,
	CLI_REPORT_PERCENT_LIMIT, CLI_REPORT_SORT, CLI_REPORT_WEIGHT, CLI_REPORT_CALL_GRAPH,
	CLI_REPORT_PEEK, CLI_REPORT_NR_SAMPLES,
	/* diff */
	CLI_DIFF_FORMAT, CLI_DIFF_WEIGHT, CLI_DIFF_NO_COMM, CLI_DIFF_ALL, CLI_DIFF_LKP_KEYS,
	CLI_DIFF_FAIL_ON, CLI_DIFF_ABSOLUTE, CLI_DIFF_DEPTH, CLI_DIFF_MIN_CHANGE,
	CLI_DIFF_FDR, CLI_DIFF_RENAME_SCORE, CLI_DIFF_NO_ALIGN, CLI_DIFF_TREE,
	CLI_DIFF_SORT, CLI_DIFF_PERCENT_LIMIT, CLI_DIFF_PEEK,
	/* explain */
	CLI_EXPLAIN_FORMAT, CLI_EXPLAIN_ALL, CLI_EXPLAIN_TABLE, CLI_EXPLAIN_COLUMN,
	CLI_EXPLAIN_BASE_COLUMN, CLI_EXPLAIN_EVENT, CLI_EXPLAIN_MIN_CHANGE, CLI_EXPLAIN_FDR,
	CLI_EXPLAIN_RENAME_SCORE, CLI_EXPLAIN_NO_ALIGN,
	/* record */
	CLI_RECORD_ALL_CPUS, CLI_RECORD_PID, CLI_RECORD_FREQ, CLI_RECORD_DURATION,
	CLI_RECORD_KERNEL_ONLY, CLI_RECORD_USER_ONLY, CLI_RECORD_FORMAT, CLI_RECORD_INTERVAL,
};

/* Flags of a row. */
enum {
	CLI_SIDED = 1u << 0,    /* diff also takes --base-NAME and --new-NAME */
	CLI_LO_OPEN = 1u << 1,  /* CLI_DOUBLE: lo itself is refused */
	CLI_FORMAT = 1u << 2,   /* CLI_WORD: refused as "unknown format" */
};

typedef struct cli_optdef {
	const char *name;    /* "--format", or a short name alone ("-U") */
	const char *alias;   /* the short name beside a long one ("-o"), or NULL */
	cli_kind kind;
	const char *arg;     /* CLI_WORD's words "a|b"; else what the value is:
	                        FILE, DIR, N, NAME...; NULL for a flag */
	unsigned cmds;       /* CLI_CMD_* that accept it */
	cli_part part;
	int id;              /* enum cli_optid */
	unsigned flags;      /* CLI_SIDED, ... */
	double lo, hi;       /* CLI_UINT, CLI_DOUBLE */
	const char *need;    /* what a number must be, for its error */
	const char *hint;    /* CLI_HINT: the option that does that job */
	const char *anchor;  /* the manual source that documents it
	                        (docs/man/...scd, include/...scd) */
} cli_optdef;

/* The whole table, *n rows. */
const cli_optdef *cli_opttab(size_t *n);

/* The bit of command `cmd` ("dump", ...; NULL: the top level), 0 for an
 * unknown command. */
unsigned cli_command_bit(const char *cmd);

/* The row of command bit `cmd` named name[0..len) (by name or alias),
 * hints included; NULL when there is none. */
const cli_optdef *cli_opt_find(unsigned cmd, const char *name, size_t len);

#endif
