/*
 * `perfdiff dump [options] FILE`: list the records of a perf.data input, or
 * with --stats summarise them.  The exit status tells a clean read (0) from
 * a read with warnings (1) and from an error (2).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"

typedef struct dump_opts {
	bool stats;
	bool no_symbols;
	bool ordered;
	pd_format format;
	const char *path;
	pd_writer *out;       /* standard output, through the library's writer */
} dump_opts;

void dump_usage(FILE *f)
{
	fputs(
"Usage: perfdiff dump [OPTIONS] FILE\n"
"\n"
"List the records of a perf.data input, one line per record, or summarise\n"
"them with --stats.  FILE is a perf.data file, '-' for standard input (pipe\n"
"mode, e.g. 'perf record -o - ... | perfdiff dump -'), or the directory that\n"
"'perf record --threads' writes.\n"
"\n"
"Options:\n"
"  --stats            print header facts and counts instead of the records:\n"
"                     records per type, samples per event, lost and\n"
"                     unattributed samples, warnings; then the samples\n"
"                     are symbolized (as 'perfdiff script' does, in\n"
"                     timestamp order) and those whose leaf address has\n"
"                     no symbol are counted per dso\n"
"  --no-symbols       with --stats: the reader's statistics only, without\n"
"                     the symbolizing pass (what bench/bench-reader.sh\n"
"                     times)\n"
"  --ordered          deliver records in timestamp order, as later stages\n"
"                     see them (default: file order, like 'perf report -D')\n"
"  --format=FMT       'text' (default) or 'json' (also '--format FMT'):\n"
"                     JSON lines, one object per record; with --stats, one\n"
"                     object\n"
"  -h, --help         show this help and exit\n"
"  --                 end of options (for a FILE that starts with '-')\n"
"\n"
"Text lines read:\n"
"  OFFSET [SIZE] Z [STREAM] TIME PID/TID TYPE FIELDS...\n"
"  OFFSET  byte offset of the record in its file or stream; for a record\n"
"          from inside a compressed record, the offset of that record\n"
"  Z       'z' when the record came out of a COMPRESSED/COMPRESSED2 record\n"
"  STREAM  'data' or 'data.N' (directory input only)\n"
"  TIME    seconds.nanoseconds, '-' when the record carries no time\n"
"  FIELDS  SAMPLE: event, cpu, cpumode, ip, period, callchain entries\n"
"          (context markers included, as perf -D's nr), ...;\n"
"          MMAP/MMAP2: start-end, pgoff, prot, build-id or dev/inode,\n"
"          file name; COMM: comm, exec; FORK/EXIT: pid ppid tid ptid;\n"
"          LOST: id, lost; KSYMBOL: addr len name; COMPRESSED: data_size\n"
"  Unprintable bytes in names are shown as \\xNN.\n"
"\n"
"Record types that libperfdiff cannot name are shown, and counted by\n"
"--stats, as UNKNOWN (JSON: \"UNKNOWN\" under \"records\").  Records inside\n"
"compressed records are counted by their own type.\n"
"\n"
"The --stats JSON object has: file, mode (file|pipe|directory), error (null\n"
"or the message), byte_order, perf_version, hostname, osrelease, arch,\n"
"nr_cpus_online, nr_cpus_available, cmdline, compressed, sample_time,\n"
"samples, total_records, records (counts by type name), compressed_inner,\n"
"events ([{name, samples, type, config}]), unattributed, lost (LOST sum),\n"
"lost_samples (LOST_SAMPLES sum), out_of_order, bytes_read,\n"
"bytes_decompressed, warnings; unless --no-symbols: samples_symbolized\n"
"(samples with an event), samples_resolved (leaf named), unresolved\n"
"([{dso, samples}], most samples first), unwound_samples (samples whose\n"
"user stack is unwound: --call-graph dwarf, not in a kernel thread),\n"
"truncated ([{dso, samples}], most first: of those, stacks the unwinder\n"
"could not follow to their outermost frame, by the dso where it stopped),\n"
"symbol_warnings (missing files, build-id mismatches, ...) and\n"
"symbols_error (null or the message).  When\n"
"FILE cannot be opened: file, error, mode (null) and zero counts.\n"
"\n"
"Symbolizing reads the input a second time; a pipe on standard input,\n"
"which can be read only once, is read once in timestamp order (as with\n"
"--ordered).  Symbolizer warnings are part of the report, not of the\n"
"exit status.\n"
"\n"
"JSON strings are valid UTF-8: bytes that are not are replaced by U+FFFD.\n"
"Addresses are hex strings; counts and times (ns) are numbers.\n"
"\n"
"Exit status:\n"
"  0  the input was read to the end without warnings\n"
"  1  the input was read (possibly only up to a cut), with warnings\n"
"  2  usage error, the input could not be opened, or it is corrupt; what\n"
"     was read before the error is still printed, the error goes to stderr\n",
	      f);
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, dump_opts *o)
{
	bool no_more_opts = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int m;
		if (no_more_opts || a[0] != '-' || strcmp(a, "-") == 0) {
			if (o->path)
				return cli_usage_error("dump",
					"dump takes one FILE; unexpected '%s'", a);
			o->path = a;
		} else if (strcmp(a, "--") == 0) {
			no_more_opts = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			dump_usage(stdout);
			return CLI_EXIT_OK;
		} else if (strcmp(a, "--stats") == 0) {
			o->stats = true;
		} else if (strcmp(a, "--no-symbols") == 0) {
			o->no_symbols = true;
		} else if (strcmp(a, "--ordered") == 0) {
			o->ordered = true;
		} else if ((m = cli_format_opt("dump", argc, argv, &i, &o->format))) {
			if (m < 0)
				return CLI_EXIT_ERROR;
		} else {
			return cli_usage_error("dump", "unknown option '%s'", a);
		}
	}
	if (!o->path)
		return cli_usage_error("dump",
			"dump needs a FILE (or '-' for standard input)");
	return -1;
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

/* Print the report, then the reader's warnings and error; returns the
 * exit status.  `read_error`: reading stopped at `err`. */
static int report(const dump_opts *o, const pd_reader *r,
		  const stats_times *times, bool read_error,
		  const pd_error *err, const stats_symbols *sym, bool out_failed)
{
	if (o->stats && !out_failed)
		stats_print(o->out, o->format, o->path, r, times,
			    read_error ? error_text(err) : NULL, sym);
	if (finish_output(o) < 0)
		out_failed = true;

	size_t nw = pd_reader_warning_count(r);
	for (size_t i = 0; i < nw; i++)
		cli_warning("%s", pd_reader_warning(r, i));
	if (read_error)
		cli_print_pd_error(o->path, err);
	if (out_failed || read_error)
		return CLI_EXIT_ERROR;
	return nw ? CLI_EXIT_WARNINGS : CLI_EXIT_OK;
}

static int open_failed(const dump_opts *o, const pd_error *err)
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
 * file.  Regular standard input is opened again through /dev/stdin.
 */
static const char *reread_path(const char *path)
{
	if (strcmp(path, "-") != 0)
		return path;
	struct stat sb;
	if (fstat(STDIN_FILENO, &sb) == 0 && S_ISREG(sb.st_mode))
		return "/dev/stdin";
	return NULL;
}

/* Symbolize the samples of `path` into `sym`; false when an error stopped
 * it (in `err` and sym->error). */
static bool symbolize(const char *path, stats_symbols *sym, pd_error *err)
{
	pd_session *s;
	memset(err, 0, sizeof *err);
	if (pd_session_open(&s, path, NULL, err) < 0) {
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
static int stats_one_pass(const dump_opts *o)
{
	pd_session *s;
	pd_error err;
	memset(&err, 0, sizeof err);
	if (pd_session_open(&s, o->path, NULL, &err) < 0)
		return open_failed(o, &err);
	stats_times times = { 0 };
	stats_symbols sym = { 0 };
	int rc = stats_symbols_run(s, &sym, &times, &err);
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

static int run(dump_opts o)
{
	int st;
	bool symbols = o.stats && !o.no_symbols;
	const char *again = symbols ? reread_path(o.path) : NULL;
	if (symbols && !again)
		return stats_one_pass(&o);

	/* The samples are named in a pass of their own, in timestamp order as
	 * perf does, so that every map is known before the samples that fall
	 * in it; the records are counted below exactly as without symbols.
	 * Symbolizing first means that the session's memory is gone before
	 * the reader maps the file again. */
	stats_symbols sym = { 0 };
	bool sym_error = false;
	if (symbols) {
		pd_error serr;
		sym_error = !symbolize(again, &sym, &serr);
	}

	pd_reader *r;
	pd_error err;
	unsigned flags = o.ordered ? 0 : PD_READER_FILE_ORDER;
	if (cli_open_reader(o.path, flags, &r, &err) < 0) {
		stats_symbols_free(&sym);
		return open_failed(&o, &err);
	}

	stats_times times = { 0 };
	const pd_record *rec;
	int rc;
	bool out_failed = false;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
		if (o.stats) {
			stats_times_add(&times, rec);
		} else if (print_record(&o, r, rec) < 0) {
			pd_error werr;
			pd_writer_flush(o.out, &werr);
			cli_error("cannot write record: %s", werr.message);
			out_failed = true;
			break;
		}
	}
	bool read_error = !out_failed && rc != PD_ITEROVER;

	st = report(&o, r, &times, read_error, &err, symbols ? &sym : NULL,
		    out_failed);
	/* the reader's error, when there was one, already explains this */
	if (sym_error && !read_error) {
		cli_error("cannot resolve symbols: %s",
			  sym.error ? sym.error : "out of memory");
		st = CLI_EXIT_ERROR;
	}
	stats_symbols_free(&sym);
	pd_reader_free(r);
	return st;
}

int cmd_dump(int argc, char **argv)
{
	dump_opts o = { .format = PD_FORMAT_TEXT };
	int st = parse_args(argc, argv, &o);
	if (st >= 0)
		return st;
	pd_error err;
	if (pd_writer_new_file(&o.out, stdout, &err) < 0) {
		cli_error("%s", err.message);
		return CLI_EXIT_ERROR;
	}
	st = run(o);
	pd_writer_free(o.out);
	return st;
}
