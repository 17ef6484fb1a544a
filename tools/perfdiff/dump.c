/*
 * `perfdiff dump [options] FILE`: list the records of a perf.data input, or
 * with --stats summarise them.  The exit status tells a clean read (0) from
 * a read with warnings (1) and from an error (2).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "dump.h"
#include "json_out.h"

typedef struct dump_opts {
	bool stats;
	bool ordered;
	enum cli_format format;
	const char *path;
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
"                     unattributed samples, warnings\n"
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
"bytes_decompressed, warnings.  When FILE cannot be opened: file, error,\n"
"mode (null) and zero counts.\n"
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
		const char *val;
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
		} else if (strcmp(a, "--ordered") == 0) {
			o->ordered = true;
		} else if ((m = cli_opt_value(argc, argv, &i, "--format", &val))) {
			if (m < 0)
				return cli_usage_error("dump",
					"option '--format' needs a value (text or json)");
			if (!cli_parse_format(val, &o->format))
				return cli_usage_error("dump",
					"unknown format '%s' (use text or json)", val);
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
	if (o->format == CLI_FORMAT_JSON)
		return jo_emit(dump_record_json(r, rec, dir), stdout);
	dump_record_text(stdout, r, rec, dir);
	return 0;
}

static const char *error_text(const pd_error *err)
{
	if (err->message[0])
		return err->message;
	const char *s = pd_error_code_str(err->code);
	return s ? s : "unknown error";
}

static int finish_output(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("error writing output: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	dump_opts o = { .format = CLI_FORMAT_TEXT };
	int st = parse_args(argc, argv, &o);
	if (st >= 0)
		return st;

	pd_reader *r;
	pd_error err;
	unsigned flags = o.ordered ? 0 : PD_READER_FILE_ORDER;
	if (cli_open_reader(o.path, flags, &r, &err) < 0) {
		if (o.stats && o.format == CLI_FORMAT_JSON)
			stats_print(stdout, o.format, o.path, NULL, NULL,
				    error_text(&err));
		finish_output();
		cli_print_pd_error(o.path, &err);
		return CLI_EXIT_ERROR;
	}

	stats_times times = { 0 };
	const pd_record *rec;
	int rc;
	bool out_failed = false;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
		if (o.stats) {
			stats_times_add(&times, rec);
		} else if (print_record(&o, r, rec) < 0) {
			cli_error("cannot write record: %s",
				  ferror(stdout) ? strerror(errno)
						 : "out of memory");
			out_failed = true;
			break;
		}
	}
	bool read_error = !out_failed && rc != PD_ITEROVER;
	if (o.stats && !out_failed &&
	    stats_print(stdout, o.format, o.path, r, &times,
			read_error ? error_text(&err) : NULL) < 0) {
		cli_error("cannot write the statistics");
		out_failed = true;
	}
	if (finish_output() < 0)
		out_failed = true;

	size_t nw = pd_reader_warning_count(r);
	for (size_t i = 0; i < nw; i++)
		cli_warning("%s", pd_reader_warning(r, i));
	if (read_error)
		cli_print_pd_error(o.path, &err);
	pd_reader_free(r);

	if (out_failed || read_error)
		return CLI_EXIT_ERROR;
	return nw ? CLI_EXIT_WARNINGS : CLI_EXIT_OK;
}
