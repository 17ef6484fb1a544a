/*
 * `perfdiff script [options] [FILE]`: every sample of a perf.data input with
 * its call chain named (symbol, dso, inline frames, source lines), laid out
 * like `perf script` or as JSON lines.  Options map onto
 * pd_session_options (parsed as for `report`, cli_profile_opts.h);
 * filters pick samples by command, process, thread and CPU.  The exit
 * status tells an input read in full (0) from one that lost data (1) and
 * from an error (2), as for `dump`: a binary that cannot be found or
 * verified is a warning, not a failure, unless --strict.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_help.h"
#include "cli_io.h"
#include "cli_parse.h"
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
	cli_io io;            /* -o, -q, -v, --strict */
	cli_warns warns;      /* the reader's and the symbolizer's */
} script_opts;

void script_usage(FILE *f)
{
	fputs(cli_help_script, f);
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

/* A filter list: 0, or -1 after printing the error. */
static int apply_filter(script_opts *o, const cli_optdef *opt, const char *val)
{
	bool comm = opt->id == CLI_SCRIPT_COMM;
	bool ok = comm ? parse_names(val, &o->comms)
		       : parse_ids(val, opt->id == CLI_SCRIPT_PID ? &o->pids
				   : opt->id == CLI_SCRIPT_TID ? &o->tids : &o->cpus);
	if (ok)
		return 0;
	cli_usage_error(CMD, "bad %s list '%s' (%s)", opt->name, val,
			comm ? "NAME[,NAME...]" : "N[,N...]");
	return -1;
}

/* The setter of script's own rows of the option table. */
static int set_option(void *own, const cli_optdef *opt, const cli_value *v, const char *cmd)
{
	script_opts *o = own;
	(void)cmd;
	switch (opt->id) {
	case CLI_SCRIPT_FULL_PATH:
		o->out.full_path = true;
		return 0;
	case CLI_SCRIPT_NS:
		o->out.ns = true;
		return 0;
	case CLI_SCRIPT_SRCLINE:
		o->session.flags |= PD_SESSION_SRCLINE;
		return 0;
	case CLI_SCRIPT_FORMAT:
		o->out.format = (pd_format)pd_format_parse(v->str);
		return 0;
	default:
		return apply_filter(o, opt, v->str);
	}
}

/* The one FILE (an operand or -i): 0, or -1 after a usage error. */
static int add_path(void *own, const char *path)
{
	script_opts *o = own;
	if (o->path) {
		cli_usage_error(CMD, "script takes one FILE; unexpected '%s'", path);
		return -1;
	}
	o->path = path;
	return 0;
}

/* The arguments, then ./perf.data when no FILE was given, and the
 * session flags the output needs. */
static cli_parse_result parse_args(int argc, char **argv, script_opts *o)
{
	const cli_parser p = { .cmd = CMD, .io = &o->io, .so = &o->session, .own = o,
			       .set = set_option, .operand = add_path };
	cli_parse_result r = cli_parse(&p, argc, argv);
	if (r != CLI_PARSED)
		return r;
	if (!o->path && cli_default_input(CMD, &o->path) < 0)
		return CLI_PARSE_FAILED;
	o->out.srcline = (o->session.flags & PD_SESSION_SRCLINE) != 0;
	/* text shows an inline frame's line only with --srcline */
	if (o->out.format == PD_FORMAT_TEXT)
		o->session.flags |= PD_SESSION_NO_INLINE_LINES;
	/* read and unwind on while the kernel's symbol table loads */
	o->session.flags |= PD_SESSION_READ_AHEAD;
	return CLI_PARSED;
}

/* ------------------------------------------------------------- running */

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
			 pd_error *rerr, pd_error *werr)
{
	const pd_reader *r = pd_session_reader(s);
	const pd_resolved_sample *rs;
	int rc;
	while ((rc = pd_session_next(s, &rs, rerr)) == 0)
		if (wanted(o, rs, sample_type(r, rs)) &&
		    pd_script_write_sample(sw, rs, werr) < 0)
			return 1;
	/* what came before a read error is written all the same */
	if (pd_writer_flush(w, werr) < 0)
		return 1;
	return rc == PD_ITEROVER ? 0 : rc;
}

/* Run the samples of `s` through a script writer to the output; as
 * write_samples(). */
static int write_all(script_opts *o, pd_session *s, pd_error *rerr, pd_error *werr)
{
	pd_writer *w = NULL;
	pd_script_writer *sw = NULL;
	int rc = pd_writer_new_file(&w, o->io.out, werr);
	if (rc == 0)
		rc = pd_script_writer_new(&sw, w, s, &o->out, werr);
	rc = rc < 0 ? 1 : write_samples(o, s, sw, w, rerr, werr);
	pd_script_writer_free(sw);
	pd_writer_free(w);
	return rc;
}

/* The samples lost while recording, to the summary (cli_io.h) after the
 * reader's and the symbolizer's warnings, which their sinks put there. */
static void hold_lost(script_opts *o, const pd_session *s)
{
	const pd_reader_stats *st = pd_reader_stats_get(pd_session_reader(s));
	/* perf since 6.0 writes each loss twice: LOST and LOST_SAMPLES */
	cli_warns_lost(&o->warns, o->path, st->lost > st->lost_samples ? st->lost : st->lost_samples,
		       st->by_type[PD_RECORD_SAMPLE]);
}

/* A pprof input: its samples through the library's pprof script writer;
 * the filters select by facts a pprof sample may not have. */
static int run_pprof(script_opts *o)
{
	if (o->pids.n || o->tids.n || o->cpus.n || o->comms.n)
		return cli_usage_error(CMD, "--comm, --pid, --tid and --cpu are for perf.data "
				       "input, not pprof");
	pd_pprof *pp = NULL;
	pd_writer *w = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_pprof_open(&pp, o->path, &err);
	if (rc == 0)
		rc = pd_writer_new_file(&w, o->io.out, &err);
	if (rc == 0)
		rc = pd_pprof_write_script(pp, w, &o->out, &err);
	if (rc == 0)
		rc = pd_writer_flush(w, &err);
	if (rc < 0)
		cli_print_pd_error(o->path, &err);
	pd_writer_free(w);
	pd_pprof_free(pp);
	return rc < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}

static int run(script_opts *o)
{
	pd_session *s = NULL;
	pd_error err, werr;
	memset(&err, 0, sizeof err);
	memset(&werr, 0, sizeof werr);
	pd_input_kind kind;
	if (pd_input_detect(o->path, &kind, &err) < 0) {
		cli_print_pd_error(o->path, &err);  /* neither perf.data nor pprof */
		return CLI_EXIT_ERROR;
	}
	if (kind == PD_INPUT_PPROF)
		return run_pprof(o);
	/* the session and its reader run on this thread: their warnings go
	 * to the summary as they come */
	const pd_reader_options *given = o->session.reader;
	pd_reader_options ro = given ? *given : PD_READER_OPTIONS_INIT;
	ro.warn = o->session.warn = cli_warns_sink;
	ro.warn_ctx = o->session.warn_ctx = &o->warns;
	o->session.reader = &ro;
	int orc = pd_session_open(&s, o->path, &o->session, &err);
	o->session.reader = given; /* the session has its copy */
	if (orc < 0) {
		cli_print_pd_error(o->path, &err);
		return CLI_EXIT_ERROR;
	}
	int rc = write_all(o, s, &err, &werr);
	if (rc == 1)
		cli_error("cannot write samples: %s", werr.message);
	hold_lost(o, s);
	cli_warns_print(&o->warns, &o->io);
	if (rc < 0)
		cli_print_pd_error(o->path, &err);
	pd_session_free(s);
	return rc ? CLI_EXIT_ERROR : cli_warns_status(&o->warns, &o->io);
}

int cmd_script(int argc, char **argv)
{
	script_opts o;
	memset(&o, 0, sizeof o);
	cli_io_init(&o.io, CMD, false);
	cli_warns_init(&o.warns);
	int st = CLI_EXIT_ERROR;
	if (cli_options_init_rc(pd_script_write_options_init(&o.out, PD_SCRIPT_WRITE_OPTIONS_VERSION),
				"pd_script_write_options") == 0 &&
	    cli_options_init_rc(pd_session_options_init(&o.session, PD_SESSION_OPTIONS_VERSION),
				"pd_session_options") == 0 &&
	    !cli_parse_stop(parse_args(argc, argv, &o), script_usage, &st))
		st = cli_io_open(&o.io, &o.path, 1) < 0 ? CLI_EXIT_ERROR
							: cli_io_close(&o.io, run(&o));
	cli_warns_free(&o.warns);
	free_lists(&o);
	cli_session_opts_free(&o.session);
	return st;
}
