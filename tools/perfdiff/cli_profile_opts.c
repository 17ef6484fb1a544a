/*
 * Profile and session options shared by `report`, `diff` and (the
 * session part) `script`; see cli_profile_opts.h.
 */
#include "cli_profile_opts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

#define NELEMS(a) (sizeof (a) / sizeof (a)[0])

/* ------------------------------------------------------------ session */

void cli_session_opts_usage(FILE *f)
{
	fputs(
"  --no-inline        no inline frames (by default a sample in inlined code\n"
"                     has the inline function as its leaf, 'f (inlined)')\n"
"  --no-demangle      keep C++/Rust symbol names mangled\n"
"  --max-stack=N      keep at most N frames per sample (default 127)\n"
"  --symfs=DIR        look every file up under DIR\n"
"  --kallsyms=FILE    kernel symbols from FILE (default: perf's build-id\n"
"                     cache, then /proc/kallsyms when the running kernel is\n"
"                     the recorded one)\n"
"  --vmlinux=FILE     core kernel symbols from this vmlinux (its build-id must\n"
"                     be the recorded kernel's); modules still from kallsyms\n"
"  --buildid-dir=DIR  perf's build-id cache (default $PERF_BUILDID_DIR, else\n"
"                     ~/.debug)\n"
"  --jit-dir=DIR      where perf-PID.map files are (default /tmp)\n"
"  --unwinder=NAME    how user stacks recorded with --call-graph=dwarf are\n"
"                     unwound: libdw (default), libunwind, none (the\n"
"                     sampled address only) or libdw-uncached (libdw's\n"
"                     unwinder for every frame: the same frames, slower)\n",
	      f);
}

enum session_opt {
	SO_MAX_STACK, SO_SYMFS, SO_KALLSYMS, SO_VMLINUX, SO_BUILDID_DIR, SO_JIT_DIR,
	SO_UNWINDER,
};

static const cli_value_opt session_values[] = {
	{ "--max-stack", SO_MAX_STACK }, { "--symfs", SO_SYMFS },
	{ "--kallsyms", SO_KALLSYMS },   { "--vmlinux", SO_VMLINUX },
	{ "--buildid-dir", SO_BUILDID_DIR }, { "--jit-dir", SO_JIT_DIR },
	{ "--unwinder", SO_UNWINDER },
};

static const struct {
	const char *name;
	unsigned flag;
} session_flags[] = {
	{ "--no-inline", PD_SESSION_NO_INLINE },
	{ "--perf-compat", PD_SESSION_PERF_COMPAT },
	{ "--no-demangle", PD_SESSION_NO_DEMANGLE },
};

static bool parse_unwinder(const char *s, pd_unwinder *out)
{
	if (strcmp(s, "libdw") == 0)
		*out = PD_UNWINDER_LIBDW;
	else if (strcmp(s, "libunwind") == 0)
		*out = PD_UNWINDER_LIBUNWIND;
	else if (strcmp(s, "none") == 0)
		*out = PD_UNWINDER_NONE;
	else if (strcmp(s, "libdw-uncached") == 0)
		*out = PD_UNWINDER_LIBDW_UNCACHED;
	else
		return false;
	return true;
}

/* 1, or -1 after printing the error. */
static int apply_session(pd_session_options *so, const char *cmd, int kind,
			 const char *val)
{
	switch ((enum session_opt)kind) {
	case SO_MAX_STACK: {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(val, &end, 10);
		if (val[0] < '0' || val[0] > '9' || *end || errno || n == 0 || n > UINT_MAX) {
			cli_usage_error(cmd, "--max-stack needs a positive number, not '%s'", val);
			return -1;
		}
		so->max_stack = (unsigned)n;
		break;
	}
	case SO_SYMFS:
		so->symfs = val;
		break;
	case SO_KALLSYMS:
		so->kallsyms = val;
		break;
	case SO_VMLINUX:
		so->vmlinux = val;
		break;
	case SO_BUILDID_DIR:
		so->buildid_dir = val;
		break;
	case SO_JIT_DIR:
		so->jit_dir = val;
		break;
	case SO_UNWINDER:
		if (!parse_unwinder(val, &so->unwinder)) {
			cli_usage_error(cmd, "--unwinder is libdw, libunwind, none or libdw-uncached, not '%s'",
					val);
			return -1;
		}
		break;
	}
	return 1;
}

int cli_session_opts_parse(pd_session_options *so, const char *cmd, int argc,
			   char **argv, int *i)
{
	for (size_t k = 0; k < NELEMS(session_flags); k++)
		if (strcmp(argv[*i], session_flags[k].name) == 0) {
			so->flags |= session_flags[k].flag;
			return 1;
		}
	int kind;
	const char *val;
	int m = cli_value_opt_match(session_values, NELEMS(session_values), cmd, argc,
				    argv, i, &kind, &val);
	return m > 0 ? apply_session(so, cmd, kind, val) : m;
}

void cli_filter_opts_usage(FILE *f)
{
	fputs(
"  --comm=NAME[,NAME] only samples of threads with these command names\n"
"  --pid=N[,N]        only samples of these processes\n"
"  --tid=N[,N]        only samples of these threads\n"
"  --cpu=N[,N]        only samples taken on these CPUs\n",
	      f);
}

/* ------------------------------------------------------------ profile */

int cli_profile_opts_init(cli_profile_opts *po)
{
	memset(po, 0, sizeof *po);
	if (cli_options_init_rc(pd_profile_options_init(&po->popts, PD_PROFILE_OPTIONS_VERSION),
				"pd_profile_options") < 0)
		return -1;
	po->popts.session = &po->sopts;
	return cli_options_init_rc(pd_session_options_init(&po->sopts, PD_SESSION_OPTIONS_VERSION),
				   "pd_session_options");
}

void cli_profile_opts_share_symbols(cli_profile_opts *po)
{
	pd_error err;
	if (!po->sopts.symcache && pd_symcache_new(&po->sopts.symcache, &err) < 0)
		po->sopts.symcache = NULL;
}

/* The parsed lists, and popts' filters with them. */
static void free_parsed(cli_profile_opts *po)
{
	for (size_t i = 0; i < CPO_NLISTS; i++) {
		for (size_t k = 0; po->names[i] && k < po->nvalues[i]; k++)
			free(po->names[i][k]);
		free(po->names[i]);
		free(po->ids[i]);
		po->names[i] = NULL;
		po->ids[i] = NULL;
		po->nvalues[i] = 0;
	}
	po->popts.comms = po->popts.dsos = NULL;
	po->popts.pids = po->popts.tids = po->popts.cpus = NULL;
	po->popts.ncomms = po->popts.ndsos = po->popts.npids = 0;
	po->popts.ntids = po->popts.ncpus = 0;
}

void cli_profile_opts_free(cli_profile_opts *po)
{
	free_parsed(po);
	for (size_t i = 0; i < NELEMS(po->lists); i++) {
		free(po->lists[i]);
		po->lists[i] = NULL;
	}
	pd_symcache_free(po->sopts.symcache);
	po->sopts.symcache = NULL;
}

static const char *const list_names[CPO_NLISTS] = {
	[CPO_COMM] = "comm", [CPO_PID] = "pid", [CPO_TID] = "tid", [CPO_CPU] = "cpu",
	[CPO_DSO] = "dso",
};

/* Number of comma-separated items in `s` (at least 1). */
static size_t count_items(const char *s)
{
	size_t n = 1;
	for (; *s; s++)
		n += *s == ',';
	return n;
}

/* "N[,N...]" into po->ids[k]: 1, 0 malformed, -1 out of memory. */
static int parse_ids(cli_profile_opts *po, int k, const char *s)
{
	size_t n = count_items(s);
	if (!(po->ids[k] = malloc(n * sizeof *po->ids[k])))
		return -1;
	for (size_t i = 0; i < n; i++) {
		char *end;
		if (*s < '0' || *s > '9')
			return 0;
		errno = 0;
		unsigned long long x = strtoull(s, &end, 10);
		if (errno || x > UINT32_MAX || (*end != ',' && *end != '\0'))
			return 0;
		po->ids[k][po->nvalues[k]++] = (uint32_t)x;
		s = end + (*end == ',');
	}
	return 1;
}

/* "NAME[,NAME...]" into po->names[k]: 1, 0 an empty name, -1 out of
 * memory. */
static int parse_names(cli_profile_opts *po, int k, const char *s)
{
	size_t n = count_items(s);
	if (!(po->names[k] = calloc(n, sizeof *po->names[k])))
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(s, ",");
		if (len == 0)
			return 0;
		if (!(po->names[k][po->nvalues[k]] = strndup(s, len)))
			return -1;
		po->nvalues[k]++;
		s += len + (s[len] == ',');
	}
	return 1;
}

/* List k parsed (an empty list is none); 0, or -1 after the error. */
static int parse_list(cli_profile_opts *po, int k)
{
	const char *s = po->lists[k];
	if (!s || !*s)
		return 0;
	bool names = k == CPO_COMM || k == CPO_DSO;
	int m = names ? parse_names(po, k, s) : parse_ids(po, k, s);
	if (m < 0)
		cli_error("out of memory");
	else if (m == 0)
		cli_error("profile: bad %s list '%s' (%s)", list_names[k], s,
			  names ? "an empty name" : "N[,N...]");
	return m > 0 ? 0 : -1;
}

int cli_profile_opts_finish(cli_profile_opts *po)
{
	free_parsed(po);
	static const int order[] = { CPO_PID, CPO_TID, CPO_CPU, CPO_COMM, CPO_DSO };
	for (size_t i = 0; i < NELEMS(order); i++)
		if (parse_list(po, order[i]) < 0)
			return -1;
	pd_profile_options *o = &po->popts;
	o->comms = (const char *const *)po->names[CPO_COMM];
	o->ncomms = po->nvalues[CPO_COMM];
	o->dsos = (const char *const *)po->names[CPO_DSO];
	o->ndsos = po->nvalues[CPO_DSO];
	o->pids = po->ids[CPO_PID];
	o->npids = po->nvalues[CPO_PID];
	o->tids = po->ids[CPO_TID];
	o->ntids = po->nvalues[CPO_TID];
	o->cpus = po->ids[CPO_CPU];
	o->ncpus = po->nvalues[CPO_CPU];
	return 0;
}

void cli_profile_opts_usage(FILE *f)
{
	fputs(
"  --keep-suffixes    keep clone suffixes: foo.isra.0 stays apart from foo\n"
"  -U, --hide-unresolved  as perf -U: drop samples whose leaf has no symbol\n"
"                     (they leave the total) and skip unnamed frames in chains\n"
"  --perf-compat      name frames exactly as perf 6.1 does for comparisons:\n"
"                     return addresses without - 1, no inline frames\n",
	      f);
	cli_session_opts_usage(f);
	cli_filter_opts_usage(f);
	fputs(
"  --dso=NAME[,NAME]  only samples whose leaf frame is in these dsos (full\n"
"                     path or file name, e.g. libc.so.6, [kernel.kallsyms])\n"
"  --time=START,END   only samples with START <= time <= END (seconds, as\n"
"                     perf script prints them; either may be left empty)\n",
	      f);
}

static bool append_list(char **list, const char *val)
{
	size_t old = *list ? strlen(*list) : 0, add = strlen(val);
	char *s = realloc(*list, old + add + 2);
	if (!s)
		return false;
	if (old)
		s[old++] = ',';
	memcpy(s + old, val, add + 1);
	*list = s;
	return true;
}

/* "SECS[.FRACTION]" as nanoseconds, exactly (no floating point). */
static bool parse_secs(const char *s, size_t n, uint64_t *out)
{
	uint64_t secs = 0, ns = 0;
	size_t i = 0;
	if (n == 0)
		return false;
	for (; i < n && s[i] != '.'; i++) {
		if (s[i] < '0' || s[i] > '9' || secs > UINT64_MAX / 10 / 1000000000u)
			return false;
		secs = secs * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < n) {
		uint64_t scale = 100000000u;
		if (++i == n)
			return false;
		for (; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return false;
			ns += (uint64_t)(s[i] - '0') * scale;
			scale /= 10;
		}
	}
	if (secs > (UINT64_MAX - ns) / 1000000000u)
		return false;
	*out = secs * 1000000000u + ns;
	return true;
}

static bool parse_time(const char *s, pd_profile_options *o)
{
	const char *comma = strchr(s, ',');
	if (!comma || strchr(comma + 1, ','))
		return false;
	size_t n1 = (size_t)(comma - s), n2 = strlen(comma + 1);
	if (n1 == 0 && n2 == 0)
		return false;
	o->time_start = o->time_end = 0;
	if (n1 && !parse_secs(s, n1, &o->time_start))
		return false;
	if (n2 && !parse_secs(comma + 1, n2, &o->time_end))
		return false;
	/* 0 means open: a range starting at 0 is the same as an open start */
	return !(o->time_end && o->time_start > o->time_end);
}

/* The list options are the CPO_* indexes themselves. */
enum { PO_EVENT = CPO_NLISTS, PO_TIME };

static const cli_value_opt profile_values[] = {
	{ "--event", PO_EVENT },
	{ "--comm", CPO_COMM }, { "--pid", CPO_PID }, { "--tid", CPO_TID },
	{ "--cpu", CPO_CPU },   { "--dso", CPO_DSO }, { "--time", PO_TIME },
};

static const struct {
	const char *name;
	unsigned session_flag, profile_flag;
} profile_flags[] = {
	/* before the session's --perf-compat, which leaves inline frames */
	{ "--perf-compat", PD_SESSION_PERF_COMPAT | PD_SESSION_NO_INLINE, 0 },
	{ "--keep-suffixes", 0, PD_PROFILE_KEEP_SUFFIXES },
	{ "--hide-unresolved", 0, PD_PROFILE_HIDE_UNRESOLVED },
	{ "-U", 0, PD_PROFILE_HIDE_UNRESOLVED },
};

/* 1, or -1 after printing the error. */
static int apply_profile(cli_profile_opts *po, const char *cmd, int kind,
			 const char *val)
{
	if (kind == PO_EVENT) {
		po->event = val;
	} else if (kind == PO_TIME) {
		if (!parse_time(val, &po->popts)) {
			cli_usage_error(cmd,
				"bad --time '%s' (START,END in seconds, e.g. 405.5,406.25)", val);
			return -1;
		}
	} else if (!append_list(&po->lists[kind], val)) {
		cli_error("out of memory");
		return -1;
	}
	return 1;
}

int cli_profile_opts_parse(cli_profile_opts *po, const char *cmd, int argc, char **argv,
			   int *i)
{
	for (size_t k = 0; k < NELEMS(profile_flags); k++)
		if (strcmp(argv[*i], profile_flags[k].name) == 0) {
			po->sopts.flags |= profile_flags[k].session_flag;
			po->popts.flags |= profile_flags[k].profile_flag;
			return 1;
		}
	int kind;
	const char *val;
	int m = cli_value_opt_match(profile_values, NELEMS(profile_values), cmd, argc,
				    argv, i, &kind, &val);
	if (m != 0)
		return m > 0 ? apply_profile(po, cmd, kind, val) : m;
	return cli_session_opts_parse(&po->sopts, cmd, argc, argv, i);
}

/* ------------------------------------------------------------ sides */

int cli_profile_opts_copy(cli_profile_opts *dst, const cli_profile_opts *src)
{
	*dst = *src;
	dst->popts.session = &dst->sopts;
	/* the parsed lists are the source's: the copy parses its own */
	memset(dst->names, 0, sizeof dst->names);
	memset(dst->ids, 0, sizeof dst->ids);
	memset(dst->nvalues, 0, sizeof dst->nvalues);
	for (size_t i = 0; i < NELEMS(src->lists); i++) {
		dst->lists[i] = src->lists[i] ? strdup(src->lists[i]) : NULL;
		if (src->lists[i] && !dst->lists[i]) {
			while (i-- > 0)
				free(dst->lists[i]);
			return -1;
		}
	}
	/* the symbol cache stays the source's, which frees it */
	return 0;
}

/* Options that may differ between the sides of a comparison: where code
 * is found and which samples count, never how frames are named. */
static bool side_option(const char *name, size_t len)
{
	static const char *const names[] = { "comm", "pid", "tid", "cpu", "dso", "time",
					     "symfs", "kallsyms", "vmlinux", "buildid-dir",
					     "jit-dir" };
	for (size_t i = 0; i < NELEMS(names); i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return true;
	return false;
}

int cli_side_opt(const char *cmd, int argc, char **argv, int *i, int *side, char **opt)
{
	const char *a = argv[*i];
	static const char *const prefix[2] = { "--base-", "--new-" };
	for (int s = 0; s < 2; s++) {
		size_t pl = strlen(prefix[s]);
		if (strncmp(a, prefix[s], pl) != 0)
			continue;
		const char *name = a + pl, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		if (!side_option(name, len))
			return 0;
		if (!eq && *i + 1 >= argc) {
			cli_usage_error(cmd, "%s needs a value", a);
			return -1;
		}
		const char *val = eq ? eq + 1 : argv[++*i];
		size_t n = len + strlen(val) + 4;
		if (!(*opt = malloc(n))) {
			cli_error("out of memory");
			return -1;
		}
		snprintf(*opt, n, "--%.*s=%s", (int)len, name, val);
		*side = s;
		return 1;
	}
	return 0;
}

int cli_profile_opts_apply(cli_profile_opts *po, const char *cmd, char *opt)
{
	char *argv[2] = { NULL, opt };
	int i = 1;
	return cli_profile_opts_parse(po, cmd, 2, argv, &i);
}

int cli_profile_opts_or_value(cli_profile_opts *po, const cli_value_opt *opts, size_t n,
			      const char *cmd, int argc, char **argv, int *i, int *kind,
			      const char **value)
{
	int m = cli_profile_opts_parse(po, cmd, argc, argv, i);
	if (m != 0)
		return m;
	return cli_value_opt_last(opts, n, cmd, argc, argv, i, kind, value) < 0 ? -1 : 2;
}
