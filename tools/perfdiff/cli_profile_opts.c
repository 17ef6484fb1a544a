/*
 * Profile and session options shared by `report`, `diff` and (the
 * session part) `script`; see cli_profile_opts.h.
 */
#include "cli_profile_opts.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_parse.h"

#define NELEMS(a) (sizeof (a) / sizeof (a)[0])

/* ------------------------------------------------------------ session */

/* The words of --unwinder, in the table's order (cli_opttab.c). */
static const pd_unwinder unwinders[] = {
	PD_UNWINDER_LIBDW, PD_UNWINDER_LIBUNWIND, PD_UNWINDER_NONE, PD_UNWINDER_LIBDW_UNCACHED,
};

/* The paths: where code is found. */
static void set_path(pd_session_options *so, int id, const char *val)
{
	if (id == CLI_SO_SYMFS)
		so->symfs = val;
	else if (id == CLI_SO_KALLSYMS)
		so->kallsyms = val;
	else if (id == CLI_SO_VMLINUX)
		so->vmlinux = val;
	else if (id == CLI_SO_BUILDID_DIR)
		so->buildid_dir = val;
	else
		so->jit_dir = val;
}

/* One more --symbols-from, after those given before (a side's after the
 * common ones): the sources are searched in the order given. */
static int add_source(pd_session_options *so, const char *val)
{
	size_t n = so->symbols_from ? so->nsymbols_from : 0;
	const char **v = realloc((void *)(uintptr_t)so->symbols_from, (n + 1) * sizeof *v);
	if (!v) {
		cli_error("out of memory");
		return -1;
	}
	v[n] = val;
	so->symbols_from = v;
	so->nsymbols_from = n + 1;
	return 0;
}

void cli_session_opts_free(pd_session_options *so)
{
	free((void *)(uintptr_t)so->symbols_from);
	so->symbols_from = NULL;
	so->nsymbols_from = 0;
}

/* A copy of src's --symbols-from list for dst (whose struct is src's
 * copy): false out of memory, dst without a list. */
static bool copy_sources(pd_session_options *dst, const pd_session_options *src)
{
	dst->symbols_from = NULL;
	dst->nsymbols_from = 0;
	size_t n = src->symbols_from ? src->nsymbols_from : 0;
	const char **v = n ? malloc(n * sizeof *v) : NULL;
	if (n && !v)
		return false;
	if (n)
		memcpy(v, src->symbols_from, n * sizeof *v);
	dst->symbols_from = v;
	dst->nsymbols_from = n;
	return true;
}

int cli_session_set(pd_session_options *so, const cli_optdef *o, const cli_value *v,
		    const char *cmd)
{
	(void)cmd;  /* the values are checked by the parser */
	switch (o->id) {
	case CLI_SO_SYMBOLS_FROM:
		return add_source(so, v->str);
	case CLI_SO_NO_INLINE:
		so->flags |= PD_SESSION_NO_INLINE;
		break;
	case CLI_SO_PERF_COMPAT:
		so->flags |= PD_SESSION_PERF_COMPAT;
		break;
	case CLI_SO_OFFLINE:
		so->flags |= PD_SESSION_OFFLINE;
		break;
	case CLI_SO_NO_DEMANGLE:
		so->flags |= PD_SESSION_NO_DEMANGLE;
		break;
	case CLI_SO_MAX_STACK:
		so->max_stack = (unsigned)v->count;
		break;
	case CLI_SO_UNWINDER:
		so->unwinder = unwinders[v->word];
		break;
	default:
		set_path(so, o->id, v->str);
		break;
	}
	return 0;
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
	cli_session_opts_free(&po->sopts);
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

/* The profile's flags: on the session (how frames are named) or on the
 * profile (which frames count). */
static void set_flag(cli_profile_opts *po, int id)
{
	if (id == CLI_PO_PERF_COMPAT)  /* perf report shows no inline frames */
		po->sopts.flags |= PD_SESSION_PERF_COMPAT | PD_SESSION_NO_INLINE;
	else if (id == CLI_PO_KEEP_SUFFIXES)
		po->popts.flags |= PD_PROFILE_KEEP_SUFFIXES;
	else
		po->popts.flags |= PD_PROFILE_HIDE_UNRESOLVED;
}

int cli_profile_set(cli_profile_opts *po, const cli_optdef *o, const cli_value *v,
		    const char *cmd)
{
	if (o->kind == CLI_FLAG) {
		set_flag(po, o->id);
	} else if (o->id == CLI_PO_EVENT) {
		po->event = v->str;
	} else if (o->id >= CLI_PO_FOCUS && o->id <= CLI_PO_PRUNE_FROM) {
		const char **re[] = { &po->popts.focus, &po->popts.ignore, &po->popts.hide,
				      &po->popts.prune_from };
		*re[o->id - CLI_PO_FOCUS] = v->str;
	} else if (o->id == CLI_PO_TIME) {
		if (!parse_time(v->str, &po->popts)) {
			cli_usage_error(cmd,
				"bad --time '%s' (START,END in seconds, e.g. 405.5,406.25)", v->str);
			return -1;
		}
	} else if (!append_list(&po->lists[o->id - CLI_PO_COMM], v->str)) {
		cli_error("out of memory");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ sides */

int cli_profile_opts_copy(cli_profile_opts *dst, const cli_profile_opts *src)
{
	*dst = *src;
	dst->popts.session = &dst->sopts;
	if (!copy_sources(&dst->sopts, &src->sopts))
		return -1;
	/* the parsed lists are the source's: the copy parses its own */
	memset(dst->names, 0, sizeof dst->names);
	memset(dst->ids, 0, sizeof dst->ids);
	memset(dst->nvalues, 0, sizeof dst->nvalues);
	for (size_t i = 0; i < NELEMS(src->lists); i++) {
		dst->lists[i] = src->lists[i] ? strdup(src->lists[i]) : NULL;
		if (src->lists[i] && !dst->lists[i]) {
			while (i-- > 0)
				free(dst->lists[i]);
			cli_session_opts_free(&dst->sopts);
			return -1;
		}
	}
	/* the symbol cache stays the source's, which frees it */
	return 0;
}
