/*
 * `perfdiff dump [options] [FILE]`: list the records of a perf.data input,
 * or with --stats summarise them.  The exit status tells an input read in
 * full (0) from one that lost data (1: cut short, a garbage tail, samples
 * lost while recording) and from an error (2).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_help.h"
#include "cli_io.h"
#include "cli_parse.h"
#include "dump.h"
#include "cli_progress.h"

#define CMD "dump"

typedef struct dump_opts {
	bool stats;
	bool no_symbols;
	bool ordered;
	pd_format format;
	const char *path;
	cli_io io;            /* -o, -q, -v, --strict */
	cli_warns warns;      /* the reader's, summed up at the end */
	pd_writer *out;       /* io.out, through the library's writer */
} dump_opts;

/* The one FILE (an operand or -i): 0, or -1 after a usage error. */
static int add_path(void *own, const char *path)
{
	dump_opts *o = own;
	if (o->path) {
		cli_usage_error(CMD, "dump takes one FILE; unexpected '%s'", path);
		return -1;
	}
	o->path = path;
	return 0;
}

void dump_usage(FILE *f)
{
	fputs(cli_help_dump, f);
}

/* The setter of dump's own rows of the option table. */
static int set_option(void *own, const cli_optdef *opt, const cli_value *v, const char *cmd)
{
	dump_opts *o = own;
	(void)cmd;
	if (opt->id == CLI_DUMP_STATS)
		o->stats = true;
	else if (opt->id == CLI_DUMP_NO_SYMBOLS)
		o->no_symbols = true;
	else if (opt->id == CLI_DUMP_ORDERED)
		o->ordered = true;
	else
		o->format = (pd_format)pd_format_parse(v->str);
	return 0;
}

/* The arguments, then ./perf.data when no FILE was given. */
static cli_parse_result parse_args(int argc, char **argv, dump_opts *o)
{
	const cli_parser p = { .cmd = CMD, .io = &o->io, .own = o, .set = set_option,
			       .operand = add_path };
	cli_parse_result r = cli_parse(&p, argc, argv);
	if (r == CLI_PARSED && !o->path && cli_default_input(CMD, &o->path) < 0)
		return CLI_PARSE_FAILED;
	return r;
}

static int print_record(const dump_opts *o, const pd_reader *r,
			const pd_record *rec)
{
	bool dir = pd_reader_header(r)->mode == PD_MODE_DIRECTORY;
	if (o->format == PD_FORMAT_JSON)
		dump_record_json(o->out, r, rec, dir);
	else
		dump_record_text(o->out, r, rec, dir);
	/* 0, or the writer's sticky error */
	return pd_writer_write(o->out, "", 0);
}

static const char *error_text(const pd_error *err)
{
	if (err->message[0])
		return err->message;
	const char *s = pd_error_code_str(err->code);
	return s ? s : "unknown error";
}

static int finish_output(const dump_opts *o)
{
	pd_error err;
	if (pd_writer_flush(o->out, &err) < 0) {
		cli_error("error writing output: %s", err.message);
		return -1;
	}
	return 0;
}

/* `base` (NULL: the defaults) with the reader's warnings going to the
 * summary (cli_io.h) as it reads. */
static pd_reader_options warning_reader(dump_opts *o, const pd_reader_options *base)
{
	pd_reader_options ro = base ? *base : PD_READER_OPTIONS_INIT;
	ro.warn = cli_warns_sink;
	ro.warn_ctx = &o->warns;
	return ro;
}

/* The samples the reader says were lost, to the summary after its
 * warnings. */
static void hold_lost(dump_opts *o, const pd_reader *r)
{
	const pd_reader_stats *st = pd_reader_stats_get(r);
	/* perf since 6.0 writes each loss twice: LOST and LOST_SAMPLES */
	cli_warns_lost(&o->warns, o->path, st->lost > st->lost_samples ? st->lost : st->lost_samples,
		       st->by_type[PD_RECORD_SAMPLE]);
}

/* Print the report, then the reader's warnings and error; returns the
 * exit status.  `read_error`: reading stopped at `err`. */
static int report(dump_opts *o, const pd_reader *r,
		  const stats_times *times, bool read_error,
		  const pd_error *err, const stats_symbols *sym, bool out_failed)
{
	if (o->stats && !out_failed)
		stats_print(o->out, o->format, o->path, r, times,
			    read_error ? error_text(err) : NULL, sym);
	if (finish_output(o) < 0)
		out_failed = true;
	hold_lost(o, r);
	cli_warns_print(&o->warns, &o->io);
	if (read_error)
		cli_print_pd_error(o->path, err);
	if (out_failed || read_error)
		return CLI_EXIT_ERROR;
	/* --stats lists the symbolizer's warnings; --strict fails on them */
	if (o->io.strict && sym && sym->nwarnings > sym->nunverified)
		return CLI_EXIT_WARNINGS;
	return cli_warns_status(&o->warns, &o->io);
}

static int open_failed(dump_opts *o, const pd_error *err)
{
	if (o->stats && o->format == PD_FORMAT_JSON)
		stats_print(o->out, o->format, o->path, NULL, NULL,
			    error_text(err), NULL);
	finish_output(o);
	cli_print_pd_error(o->path, err);
	return CLI_EXIT_ERROR;
}

/*
 * The path a second, symbolizing pass can read the input from, or NULL
 * when it can be read only once: standard input that is not a regular
 * file, or a named pipe.  Regular standard input is opened again through
 * /dev/stdin.
 */
static const char *reread_path(const char *path)
{
	struct stat sb;
	/* a named pipe (mkfifo, bash's <(...)) is read once, as stdin is */
	if (strcmp(path, "-") != 0)
		return stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode) ? NULL : path;
	if (fstat(STDIN_FILENO, &sb) == 0 && S_ISREG(sb.st_mode))
		return "/dev/stdin";
	return NULL;
}

/* Symbolize the samples of `path` into `sym`; false when an error stopped
 * it (in `err` and sym->error). */
static bool symbolize(const char *path, stats_symbols *sym, const pd_reader_options *ropts,
		      pd_error *err)
{
	pd_session *s;
	pd_session_options so;
	memset(err, 0, sizeof *err);
	if (pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION) < 0) {
		sym->error = strdup("this libperfdiff refuses the pd_session_options of this "
				    "perfdiff, built with another one");
		return false;
	}
	so.reader = ropts;
	if (pd_session_open(&s, path, &so, err) < 0) {
		sym->error = strdup(error_text(err));
		return false;
	}
	int rc = stats_symbols_run(s, sym, NULL, err);
	pd_session_free(s);
	if (rc < 0 && !sym->error)
		sym->error = strdup("out of memory");
	return rc == 0;
}

/*
 * --stats for an input that can be read only once (a pipe on standard
 * input): a session reads it, in timestamp order, which symbolizing
 * needs; the counts are its reader's.
 */
static int stats_one_pass(dump_opts *o)
{
	pd_session *s;
	pd_error err;
	memset(&err, 0, sizeof err);
	pd_session_options so;
	if (cli_options_init_rc(pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION),
				"pd_session_options") < 0)
		return CLI_EXIT_ERROR;
	cli_progress prog;
	cli_progress_start(&prog, &o->io, 1, NULL);
	pd_reader_options ro = warning_reader(o, cli_progress_reader(&prog, 0));
	so.reader = &ro;
	if (pd_session_open(&s, o->path, &so, &err) < 0) {
		cli_progress_stop(&prog);
		return open_failed(o, &err);
	}
	stats_times times = { 0 };
	stats_symbols sym = { 0 };
	int rc = stats_symbols_run(s, &sym, &times, &err);
	cli_progress_stop(&prog);
	/* a read error is the report's own error: not repeated as the
	 * symbolizer's */
	bool read_error = rc > 0;
	free(sym.error);
	sym.error = NULL;
	bool oom = rc < 0;
	if (oom)
		cli_error("cannot resolve symbols: out of memory");
	int st = report(o, pd_session_reader(s), &times, read_error, &err,
			&sym, oom);
	stats_symbols_free(&sym);
	pd_session_free(s);
	return st;
}

/* Every record, printed (or with --stats, timed); 0 at the end, else
 * the reader's error (in `err`), or 1 when writing failed. */
static int read_records(dump_opts *o, pd_reader *r, stats_times *times, pd_error *err)
{
	const pd_record *rec;
	int rc;
	while ((rc = pd_reader_next(r, &rec, err)) == 0) {
		if (o->stats) {
			stats_times_add(times, rec);
		} else if (print_record(o, r, rec) < 0) {
			pd_error werr;
			pd_writer_flush(o->out, &werr);
			cli_error("cannot write record: %s", werr.message);
			return 1;
		}
	}
	return rc == PD_ITEROVER ? 0 : rc;
}

/* A pprof input: no records, so plain dump and --stats both give what
 * the profile holds; naming is done already (--no-symbols is moot). */
static int run_pprof(dump_opts *o)
{
	if (o->ordered)
		return cli_usage_error(CMD, "--ordered is for perf.data input: a pprof "
				       "profile has no records to order");
	pd_pprof *pp = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_pprof_open(&pp, o->path, &err);
	if (rc == 0)
		rc = pd_pprof_write_stats(pp, o->out, o->format, o->path, &err);
	if (rc == 0)
		rc = pd_writer_flush(o->out, &err);
	if (rc < 0)
		cli_print_pd_error(o->path, &err);
	pd_pprof_free(pp);
	return rc < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}

static int run(dump_opts *o)
{
	pd_input_kind kind;
	pd_error derr;
	if (pd_input_detect(o->path, &kind, &derr) < 0)
		return open_failed(o, &derr);  /* neither perf.data nor pprof */
	if (kind == PD_INPUT_PPROF)
		return run_pprof(o);
	bool symbols = o->stats && !o->no_symbols;
	const char *again = symbols ? reread_path(o->path) : NULL;
	if (symbols && !again)
		return stats_one_pass(o);

	/* The samples are named in a pass of their own, in timestamp order as
	 * perf does, so that every map is known before the samples that fall
	 * in it; the records are counted below exactly as without symbols.
	 * Symbolizing first means that the session's memory is gone before
	 * the reader maps the file again. */
	stats_symbols sym = { 0 };
	pd_error serr;
	/* --stats prints at the end: a progress line cannot mix with records.
	 * With symbols the file is read twice, each pass on its own part of
	 * the line. */
	static const char *const passes[2] = { "naming", "counting" };
	cli_progress prog;
	cli_progress_start(&prog, &o->io, symbols ? 2 : 1, symbols ? passes : NULL);
	bool sym_error = symbols && !symbolize(again, &sym, cli_progress_reader(&prog, 0), &serr);

	pd_reader *r;
	pd_error err;
	unsigned flags = o->ordered ? 0 : PD_READER_FILE_ORDER;
	pd_reader_options ro =
		warning_reader(o, o->stats ? cli_progress_reader(&prog, symbols) : NULL);
	if (cli_open_reader(o->path, flags, &ro, &r, &err) < 0) {
		cli_progress_stop(&prog);
		stats_symbols_free(&sym);
		return open_failed(o, &err);
	}
	stats_times times = { 0 };
	int rc = read_records(o, r, &times, &err);
	cli_progress_stop(&prog);
	bool read_error = rc < 0;
	int st = report(o, r, &times, read_error, &err, symbols ? &sym : NULL, rc == 1);
	/* the reader's error, when there was one, already explains this */
	if (sym_error && !read_error) {
		cli_error("cannot resolve symbols: %s", sym.error ? sym.error : "out of memory");
		st = CLI_EXIT_ERROR;
	}
	stats_symbols_free(&sym);
	pd_reader_free(r);
	return st;
}

int cmd_dump(int argc, char **argv)
{
	dump_opts o = { .format = PD_FORMAT_TEXT };
	cli_io_init(&o.io, CMD, false);
	cli_warns_init(&o.warns);
	int st;
	if (cli_parse_stop(parse_args(argc, argv, &o), dump_usage, &st))
		return st;
	if (cli_io_open(&o.io, &o.path, 1) < 0)
		return CLI_EXIT_ERROR;
	pd_error err;
	if (pd_writer_new_file(&o.out, o.io.out, &err) < 0) {
		cli_error("%s", err.message);
		return cli_io_close(&o.io, CLI_EXIT_ERROR);
	}
	st = run(&o);
	pd_writer_free(o.out);
	st = cli_io_close(&o.io, st);
	cli_warns_free(&o.warns);
	return st;
}
