/*
 * `perfdiff script [options] FILE`: every sample of a perf.data input with
 * its call chain named (symbol, dso, inline frames, source lines), laid out
 * like `perf script` or as JSON lines.  Options map onto
 * pd_session_options (parsed as for `report`, cli_profile_opts.h);
 * filters pick samples by command, process, thread and CPU.  The exit
 * status tells a clean read (0) from one with warnings (1) and from an
 * error (2), as for `dump`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_profile_opts.h"
#include "script.h"

#define CMD "script"

/* A comma-separated filter list; an empty list lets everything through. */
typedef struct id_list {
	size_t n;
	uint32_t *v;
} id_list;

typedef struct name_list {
	size_t n;
	char **v;
} name_list;

typedef struct script_opts {
	pd_script_write_options out;
	pd_session_options session;
	const char *path;
	id_list pids, tids, cpus;
	name_list comms;
} script_opts;

void script_usage(FILE *f)
{
	fputs(
"Usage: perfdiff script [OPTIONS] FILE\n"
"\n"
"Print every sample of a perf.data input with its call chain named, in the\n"
"layout of 'perf script' (default) or as JSON lines.  FILE is a perf.data\n"
"file, '-' for standard input (pipe mode) or a 'perf record --threads'\n"
"directory.  Samples come in timestamp order.\n"
"\n"
"Text output, one block per sample:\n"
"  COMM PID/TID [CPU] SECS.USECS:     PERIOD EVENT: \n"
"  \\t<address> symbol+0xoffset (dso)          one line per frame, leaf first\n"
"  \\t<address> function+0xoffset (inlined)    an inline frame (no dso)\n"
"  (blank line)\n"
"  [CPU] appears when the event samples the CPU.  Unknown symbols and\n"
"  addresses outside any mapping print as '[unknown]'.  For an event\n"
"  recorded without call chains the leaf goes on the header line and the\n"
"  command is padded to 16 columns, as perf does.  User-space addresses are\n"
"  printed as offsets in their dso, as perf does (the JSON output has both).\n"
"  Caller frames are named at return address - 1, so that\n"
"  a call to a function that never returns is credited to the caller; the\n"
"  offset shown is still that of the recorded address.\n"
"\n"
"Options:\n"
"  --format=FMT       'text' (default) or 'json' (also '--format FMT')\n"
"  --srcline          add source lines: a '  file:line' line under each\n"
"                     frame (text; '  dso[address]' where none is known),\n"
"                     srcfile/line for every frame (JSON)\n"
"  --full-source-path show the full path of source files (text)\n"
"  --ns               print times with nanoseconds (text)\n"
"  --perf-compat      name return addresses as perf does (no - 1) and drop\n"
"                     C++ parameter lists, to reproduce perf's names exactly\n"
"                     (inline frames stay unless --no-inline)\n",
	      f);
	cli_session_opts_usage(f);
	cli_filter_opts_usage(f);
	fputs(
"  -h, --help         show this help and exit\n"
"  --                 end of options (for a FILE that starts with '-')\n"
"  Options that take a value accept '--opt=VALUE' and '--opt VALUE'.\n"
"\n"
"JSON output: one object per sample with comm, pid, tid, cpu (null when not\n"
"sampled), time (ns; null when not sampled), period, event and frames, leaf\n"
"first: [{addr (hex string), symbol, raw_symbol (as in the symbol table),\n"
"offset, dso, inlined, srcfile, line, unit}].  symbol and offset are null\n"
"when the symbol is unknown; srcfile and line are null when no line is known\n"
"(inline frames have them, other frames with --srcline); unit is the source\n"
"file the function was compiled from (its DWARF compilation unit), null\n"
"without DWARF and for inline frames.  Strings are valid\n"
"UTF-8: bytes that are not are replaced by U+FFFD.\n"
"\n"
"Where code is found: user binaries by build-id in perf's build-id cache,\n"
"/usr/lib/debug/.build-id, then at the recorded path when its build-id\n"
"matches (each under --symfs); the kernel from --kallsyms, perf's cached\n"
"kallsyms or /proc/kallsyms; JIT code from perf-PID.map files.  What cannot\n"
"be found (a deleted binary, a build-id mismatch) gives [unknown] frames and\n"
"a warning.\n"
"\n"
"Exit status:\n"
"  0  the input was read to the end without warnings\n"
"  1  the input was read (possibly only up to a cut), with warnings from the\n"
"     reader or the symbolizer (missing files, build-id mismatches, ...)\n"
"  2  usage error, the input could not be opened, or it is corrupt; what\n"
"     was read before the error is still printed, the error goes to stderr\n"
"Warnings go to stderr as 'perfdiff: warning: ...'.\n",
	      f);
}

/* ------------------------------------------------------------- filters */

static void free_lists(script_opts *o)
{
	free(o->pids.v);
	free(o->tids.v);
	free(o->cpus.v);
	for (size_t i = 0; i < o->comms.n; i++)
		free(o->comms.v[i]);
	free(o->comms.v);
}

/* Number of comma-separated items in `s` (at least 1). */
static size_t count_items(const char *s)
{
	size_t n = 1;
	for (; *s; s++)
		n += *s == ',';
	return n;
}

/* Append the numbers of "N[,N...]" to `l`; false on a malformed list. */
static bool parse_ids(const char *s, id_list *l)
{
	size_t add = count_items(s);
	uint32_t *v = realloc(l->v, (l->n + add) * sizeof *v);
	if (!v)
		return false;
	l->v = v;
	const char *p = s;
	for (size_t i = 0; i < add; i++) {
		char *end;
		if (*p < '0' || *p > '9')
			return false;
		errno = 0;
		unsigned long long x = strtoull(p, &end, 10);
		if (errno || x > UINT32_MAX || (*end != ',' && *end != '\0'))
			return false;
		l->v[l->n++] = (uint32_t)x;
		p = end + (*end == ',');
	}
	return true;
}

static bool parse_names(const char *s, name_list *l)
{
	size_t add = count_items(s);
	char **v = realloc(l->v, (l->n + add) * sizeof *v);
	if (!v)
		return false;
	l->v = v;
	const char *p = s;
	for (size_t i = 0; i < add; i++) {
		size_t len = strcspn(p, ",");
		if (len == 0)
			return false;
		char *name = strndup(p, len);
		if (!name)
			return false;
		l->v[l->n++] = name;
		p += len + (p[len] == ',');
	}
	return true;
}

static bool id_in(const id_list *l, uint32_t x)
{
	if (l->n == 0)
		return true;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == x)
			return true;
	return false;
}

static bool name_in(const name_list *l, const char *s)
{
	if (l->n == 0)
		return true;
	for (size_t i = 0; i < l->n; i++)
		if (s && strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

static bool wanted(const script_opts *o, const pd_resolved_sample *rs,
		   uint64_t sample_type)
{
	if (!id_in(&o->pids, rs->pid) || !id_in(&o->tids, rs->tid))
		return false;
	/* a CPU filter drops samples that carry no CPU, as perf does */
	if (o->cpus.n && (!(sample_type & PD_SAMPLE_CPU) ||
			  !id_in(&o->cpus, rs->cpu)))
		return false;
	return name_in(&o->comms, rs->comm);
}

/* ------------------------------------------------------------- options */

/* script's own value options; --format and the session's are shared
 * (cli_common.h, cli_profile_opts.h) */
typedef enum opt_kind { OPT_COMM, OPT_PID, OPT_TID, OPT_CPU } opt_kind;

/* in opt_kind order: apply_filter finds a name by its kind */
static const cli_value_opt value_opts[] = {
	{ "--comm", OPT_COMM }, { "--pid", OPT_PID },
	{ "--tid", OPT_TID },   { "--cpu", OPT_CPU },
};

#define NELEMS(a) (sizeof (a) / sizeof (a)[0])

/* 1, or -1 after printing the error. */
static int apply_filter(script_opts *o, opt_kind kind, const char *val)
{
	const char *name = value_opts[kind].name;
	bool ok;
	if (kind == OPT_COMM)
		ok = parse_names(val, &o->comms);
	else
		ok = parse_ids(val, kind == OPT_PID ? &o->pids
				    : kind == OPT_TID ? &o->tids : &o->cpus);
	if (ok)
		return 1;
	cli_usage_error(CMD, "bad %s list '%s' (%s)", name, val,
			kind == OPT_COMM ? "NAME[,NAME...]" : "N[,N...]");
	return -1;
}

/* Any option but --help and --; 1: taken, 0: unknown, -1: a usage error,
 * already printed. */
static int parse_option(script_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (strcmp(a, "--full-source-path") == 0) {
		o->out.full_path = true;
		return 1;
	}
	if (strcmp(a, "--ns") == 0) {
		o->out.ns = true;
		return 1;
	}
	if (strcmp(a, "--srcline") == 0) {
		o->session.flags |= PD_SESSION_SRCLINE;
		return 1;
	}
	int m = cli_format_opt(CMD, argc, argv, i, &o->out.format);
	if (m == 0)
		m = cli_session_opts_parse(&o->session, CMD, argc, argv, i);
	if (m != 0)
		return m;
	int kind;
	const char *val;
	m = cli_value_opt_match(value_opts, NELEMS(value_opts), CMD, argc, argv, i, &kind,
				&val);
	return m > 0 ? apply_filter(o, (opt_kind)kind, val) : m;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, script_opts *o)
{
	bool no_more_opts = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (no_more_opts || a[0] != '-' || strcmp(a, "-") == 0) {
			if (o->path)
				return cli_usage_error(CMD,
					"script takes one FILE; unexpected '%s'", a);
			o->path = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			no_more_opts = true;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			script_usage(stdout);
			return CLI_EXIT_OK;
		}
		int m = parse_option(o, argc, argv, &i);
		if (m < 0)
			return CLI_EXIT_ERROR;
		if (m == 0)
			return cli_usage_error(CMD, "unknown option '%s'", a);
	}
	if (!o->path)
		return cli_usage_error(CMD,
			"script needs a FILE (or '-' for standard input)");
	o->out.srcline = (o->session.flags & PD_SESSION_SRCLINE) != 0;
	/* text shows an inline frame's line only with --srcline */
	if (o->out.format == PD_FORMAT_TEXT)
		o->session.flags |= PD_SESSION_NO_INLINE_LINES;
	/* read and unwind on while the kernel's symbol table loads */
	o->session.flags |= PD_SESSION_READ_AHEAD;
	return -1;
}

/* ------------------------------------------------------------- running */

/* Print the session's warnings from `*shown` on.  The samples before them
 * are written first, so that where both go to one terminal a warning
 * shows up near the samples it concerns. */
static int flush_warnings(const pd_session *s, size_t *shown, pd_writer *w, pd_error *err)
{
	size_t n = pd_session_warning_count(s);
	if (*shown == n)
		return 0;
	int rc = pd_writer_flush(w, err);
	for (; *shown < n; (*shown)++) {
		const char *msg = pd_session_warning(s, *shown);
		if (msg)
			cli_warning("%s", msg);
	}
	return rc;
}

/* The sample's event's PD_SAMPLE_* bits, for the filters. */
static uint64_t sample_type(const pd_reader *r, const pd_resolved_sample *rs)
{
	if (rs->record)
		return rs->record->u.sample.sample_type;
	const pd_attr *attr = rs->attr >= 0 ? pd_reader_attr(r, (size_t)rs->attr) : NULL;
	return attr ? attr->sample_type : 0;
}

/* Every wanted sample of `s` to `w`.  0 at the end of the input, 1 when
 * writing failed (*werr says why), else the session's error (in *rerr). */
static int write_samples(script_opts *o, pd_session *s, pd_script_writer *sw, pd_writer *w,
			 size_t *shown, pd_error *rerr, pd_error *werr)
{
	const pd_reader *r = pd_session_reader(s);
	const pd_resolved_sample *rs;
	int rc;
	while ((rc = pd_session_next(s, &rs, rerr)) == 0) {
		if (wanted(o, rs, sample_type(r, rs)) &&
		    pd_script_write_sample(sw, rs, werr) < 0)
			return 1;
		if (flush_warnings(s, shown, w, werr) < 0)
			return 1;
	}
	/* what came before a read error is written all the same */
	if (pd_writer_flush(w, werr) < 0)
		return 1;
	return rc == PD_ITEROVER ? 0 : rc;
}

/* Run the samples of `s` through a script writer to standard output; as
 * write_samples(). */
static int write_all(script_opts *o, pd_session *s, size_t *shown, pd_error *rerr,
		     pd_error *werr)
{
	pd_writer *w = NULL;
	pd_script_writer *sw = NULL;
	int rc = pd_writer_new_file(&w, stdout, werr);
	if (rc == 0)
		rc = pd_script_writer_new(&sw, w, s, &o->out, werr);
	rc = rc < 0 ? 1 : write_samples(o, s, sw, w, shown, rerr, werr);
	pd_script_writer_free(sw);
	pd_writer_free(w);
	return rc;
}

static int run(script_opts *o)
{
	pd_session *s = NULL;
	pd_error err, werr;
	memset(&err, 0, sizeof err);
	memset(&werr, 0, sizeof werr);
	if (pd_session_open(&s, o->path, &o->session, &err) < 0) {
		cli_print_pd_error(o->path, &err);
		return CLI_EXIT_ERROR;
	}
	size_t shown = 0;
	int rc = write_all(o, s, &shown, &err, &werr);
	bool out_failed = rc == 1, read_error = rc < 0;
	if (out_failed)
		cli_error("cannot write samples: %s", werr.message);
	const pd_reader *r = pd_session_reader(s);
	size_t nrw = pd_reader_warning_count(r);
	for (size_t i = 0; i < nrw; i++)
		cli_warning("%s", pd_reader_warning(r, i));
	size_t nsw = pd_session_warning_count(s);
	for (; shown < nsw; shown++) {
		const char *w = pd_session_warning(s, shown);
		if (w)
			cli_warning("%s", w);
	}
	if (read_error)
		cli_print_pd_error(o->path, &err);
	pd_session_free(s);

	if (out_failed || read_error)
		return CLI_EXIT_ERROR;
	return nrw || shown ? CLI_EXIT_WARNINGS : CLI_EXIT_OK;
}

int cmd_script(int argc, char **argv)
{
	script_opts o;
	memset(&o, 0, sizeof o);
	pd_script_write_options_init(&o.out);
	pd_session_options_init(&o.session);
	int st = parse_args(argc, argv, &o);
	if (st < 0)
		st = run(&o);
	free_lists(&o);
	return st;
}
