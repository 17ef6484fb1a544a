/*
 * options.c — keyword arguments into pd_profile_options and
 * pd_session_options.
 *
 * Profile() and samples() take the command line's naming and lookup
 * options under the same names (inline=, perf_compat=, kallsyms=, ...);
 * Profile() also its filters and profile flags.  The library copies the
 * options but not the strings they point to, and a report describes its
 * profile from the options it was built with, so everything they point to
 * lives in one pdpy_opts as long as the object that uses it.  An unknown
 * keyword is a TypeError, as for any Python function.
 */
#include "pdpy.h"

#include <stdlib.h>
#include <string.h>

enum { S_SYMFS, S_KALLSYMS, S_BUILDID_DIR, S_VMLINUX, S_JIT_DIR };
static const char *const str_keys[5] = { "symfs", "kallsyms", "buildid_dir", "vmlinux",
					 "jit_dir" };
static const char *const name_keys[2] = { "comm", "dso" };
static const char *const id_keys[3] = { "pid", "tid", "cpu" };

void pdpy_opts_free(pdpy_opts *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < 5; i++)
		free(o->strs[i]);
	for (size_t i = 0; i < 2; i++) {
		for (size_t k = 0; o->names[i] && k < o->nnames[i]; k++)
			free(o->names[i][k]);
		free(o->names[i]);
	}
	for (size_t i = 0; i < 3; i++)
		free(o->ids[i]);
	free(o->event);
	for (size_t i = 0; i < o->nsources; i++)
		free(o->sources[i]);
	free(o->sources);
	Py_XDECREF(o->symbols);
	free(o);
}

/* A str, bytes or a single int becomes a list of one; otherwise a
 * sequence. */
static PyObject *as_list(PyObject *v)
{
	if (PyUnicode_Check(v) || PyBytes_Check(v) || PyLong_Check(v))
		return PyTuple_Pack(1, v);
	return PySequence_Fast(v, "a filter is a value or a sequence of values");
}

static int parse_names(pdpy_opts *o, int k, PyObject *v)
{
	PyObject *seq = as_list(v);
	if (!seq)
		return -1;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
	o->names[k] = calloc((size_t)n + 1, sizeof *o->names[k]);
	int rc = o->names[k] ? 0 : (PyErr_NoMemory(), -1);
	for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
		if (!(o->names[k][i] = pdpy_strdup(PySequence_Fast_GET_ITEM(seq, i))))
			rc = -1;
		else
			o->nnames[k]++;
	}
	Py_DECREF(seq);
	return rc;
}

static int parse_ids(pdpy_opts *o, int k, PyObject *v, size_t *count)
{
	PyObject *seq = as_list(v);
	if (!seq)
		return -1;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
	o->ids[k] = malloc(((size_t)n + 1) * sizeof *o->ids[k]);
	int rc = o->ids[k] ? 0 : (PyErr_NoMemory(), -1);
	for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
		unsigned long long x = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
		if (PyErr_Occurred() || x > UINT32_MAX) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_ValueError, "%s %llu is out of range", id_keys[k], x);
			rc = -1;
		} else {
			o->ids[k][(*count)++] = (uint32_t)x;
		}
	}
	Py_DECREF(seq);
	return rc;
}

/* Value of `key` in `kw` (borrowed) or NULL; counts what was taken. */
static PyObject *take(PyObject *kw, const char *key, Py_ssize_t *taken)
{
	PyObject *v = kw ? PyDict_GetItemString(kw, key) : NULL;
	if (v == Py_None)
		v = NULL, ++*taken;
	else if (v)
		++*taken;
	return v;
}

/* Set `flag` in `*flags` when key's truth is `when`; -1 on error. */
static int take_flag(PyObject *kw, const char *key, Py_ssize_t *taken, unsigned *flags,
		     unsigned flag, int when)
{
	PyObject *v = take(kw, key, taken);
	int t = v ? PyObject_IsTrue(v) : -2;
	if (t == -1)
		return -1;
	if (t == when)
		*flags |= flag;
	return 0;
}

static int take_uint(PyObject *kw, const char *key, Py_ssize_t *taken, unsigned *out)
{
	PyObject *v = take(kw, key, taken);
	if (!v)
		return 0;
	unsigned long x = PyLong_AsUnsignedLong(v);
	if (PyErr_Occurred())
		return -1;
	if (x > UINT_MAX) {
		PyErr_Format(PyExc_ValueError, "%s is out of range", key);
		return -1;
	}
	*out = (unsigned)x;
	return 0;
}

static int parse_unwinder(PyObject *kw, Py_ssize_t *taken, pd_session_options *so)
{
	static const char *const names[] = { "libdw", "libunwind", "none", "libdw-uncached" };
	static const pd_unwinder values[] = { PD_UNWINDER_LIBDW, PD_UNWINDER_LIBUNWIND,
					      PD_UNWINDER_NONE, PD_UNWINDER_LIBDW_UNCACHED };
	PyObject *v = take(kw, "unwinder", taken);
	const char *s = v ? PyUnicode_AsUTF8(v) : NULL;
	if (!v)
		return 0;
	for (size_t i = 0; s && i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			so->unwinder = values[i];
			return 0;
		}
	if (s)
		PyErr_Format(PyExc_ValueError,
			     "unwinder is libdw, libunwind, none or libdw-uncached, not '%s'", s);
	return -1;
}

/* `symbols_from=`: a path or URL, or a sequence of them, searched in
 * their order (pd_session_options.symbols_from). */
static int parse_sources(pdpy_opts *o, PyObject *kw, Py_ssize_t *taken)
{
	PyObject *v = take(kw, "symbols_from", taken);
	PyObject *seq = v ? as_list(v) : NULL;
	if (!v || !seq)
		return v ? -1 : 0;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
	o->sources = calloc((size_t)n + 1, sizeof *o->sources);
	int rc = o->sources ? 0 : (PyErr_NoMemory(), -1);
	for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
		if (!(o->sources[i] = pdpy_strdup(PySequence_Fast_GET_ITEM(seq, i))))
			rc = -1;
		else
			o->nsources++;
	}
	Py_DECREF(seq);
	o->so.symbols_from = (const char *const *)o->sources;
	o->so.nsymbols_from = o->nsources;
	return rc;
}

static int parse_session(pdpy_opts *o, PyObject *kw, Py_ssize_t *taken, int profile)
{
	pd_session_options *so = &o->so;
	unsigned compat = PD_SESSION_PERF_COMPAT | (profile ? PD_SESSION_NO_INLINE : 0);
	if (take_flag(kw, "inline", taken, &so->flags, PD_SESSION_NO_INLINE, 0) < 0 ||
	    take_flag(kw, "perf_compat", taken, &so->flags, compat, 1) < 0 ||
	    take_flag(kw, "demangle", taken, &so->flags, PD_SESSION_NO_DEMANGLE, 0) < 0 ||
	    take_flag(kw, "offline", taken, &so->flags, PD_SESSION_OFFLINE, 1) < 0 ||
	    take_uint(kw, "max_stack", taken, &so->max_stack) < 0 ||
	    take_uint(kw, "threads", taken, &so->threads) < 0 ||
	    parse_unwinder(kw, taken, so) < 0 || parse_sources(o, kw, taken) < 0)
		return -1;
	for (int i = 0; i < 5; i++) {
		PyObject *v = take(kw, str_keys[i], taken);
		if (v && !(o->strs[i] = pdpy_strdup(v)))
			return -1;
	}
	so->symfs = o->strs[S_SYMFS];
	so->kallsyms = o->strs[S_KALLSYMS];
	so->buildid_dir = o->strs[S_BUILDID_DIR];
	so->vmlinux = o->strs[S_VMLINUX];
	so->jit_dir = o->strs[S_JIT_DIR];
	return 0;
}

static int parse_time(pd_profile_options *po, PyObject *v)
{
	unsigned long long a = 0, b = 0;
	PyObject *sa, *sb;
	if (!PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 2) {
		PyErr_SetString(PyExc_TypeError, "time is a (start_ns, end_ns) pair, None for open");
		return -1;
	}
	sa = PyTuple_GET_ITEM(v, 0);
	sb = PyTuple_GET_ITEM(v, 1);
	if (sa != Py_None && (a = PyLong_AsUnsignedLongLong(sa), PyErr_Occurred()))
		return -1;
	if (sb != Py_None && (b = PyLong_AsUnsignedLongLong(sb), PyErr_Occurred()))
		return -1;
	po->time_start = a;
	po->time_end = b;
	return 0;
}

static int parse_filters(pdpy_opts *o, PyObject *kw, Py_ssize_t *taken)
{
	pd_profile_options *po = &o->po;
	size_t nids[3] = { 0, 0, 0 };
	for (int k = 0; k < 2; k++) {
		PyObject *v = take(kw, name_keys[k], taken);
		if (v && parse_names(o, k, v) < 0)
			return -1;
	}
	for (int k = 0; k < 3; k++) {
		PyObject *v = take(kw, id_keys[k], taken);
		if (v && parse_ids(o, k, v, &nids[k]) < 0)
			return -1;
	}
	PyObject *t = take(kw, "time", taken);
	if (t && parse_time(po, t) < 0)
		return -1;
	po->comms = (const char *const *)o->names[0];
	po->ncomms = o->nnames[0];
	po->dsos = (const char *const *)o->names[1];
	po->ndsos = o->nnames[1];
	po->pids = o->ids[0], po->npids = nids[0];
	po->tids = o->ids[1], po->ntids = nids[1];
	po->cpus = o->ids[2], po->ncpus = nids[2];
	return 0;
}

static int parse_profile(pdpy_opts *o, PyObject *kw, Py_ssize_t *taken)
{
	pd_profile_options *po = &o->po;
	PyObject *lkp = take(kw, "lkp", taken);
	int t = lkp ? PyObject_IsTrue(lkp) : 0;
	if (t < 0 || take_flag(kw, "keep_suffixes", taken, &po->flags,
			       PD_PROFILE_KEEP_SUFFIXES, 1) < 0 ||
	    take_flag(kw, "hide_unresolved", taken, &po->flags,
		      PD_PROFILE_HIDE_UNRESOLVED, 1) < 0 ||
	    take_flag(kw, "merge_unresolved", taken, &po->flags,
		      PD_PROFILE_MERGE_UNRESOLVED, 1) < 0 ||
	    parse_filters(o, kw, taken) < 0)
		return -1;
	if (t)
		pd_lkp_profile_options(po, &o->so);
	return 0;
}

static const char *const session_keys[] = {
	"event", "inline", "perf_compat", "demangle", "offline", "max_stack", "threads",
	"unwinder", "symfs", "kallsyms", "buildid_dir", "vmlinux", "jit_dir", "symbols",
	"symbols_from",
};
static const char *const profile_keys[] = {
	"comm", "dso", "pid", "tid", "cpu", "time", "lkp", "keep_suffixes", "hide_unresolved",
	"merge_unresolved",
};

static bool known_key(const char *k, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(k, keys[i]) == 0)
			return true;
	return false;
}

/* The first keyword of `kw` this call does not take, as a TypeError. */
static int unknown_key(PyObject *kw, int profile)
{
	PyObject *key;
	Py_ssize_t pos = 0;
	while (PyDict_Next(kw, &pos, &key, NULL)) {
		const char *k = PyUnicode_AsUTF8(key);
		if (!k)
			return -1;
		if (known_key(k, session_keys, sizeof session_keys / sizeof *session_keys) ||
		    (profile ? known_key(k, profile_keys, sizeof profile_keys / sizeof *profile_keys)
			     : strcmp(k, "srcline") == 0))
			continue;
		PyErr_Format(PyExc_TypeError, "unexpected keyword argument %R", key);
		return -1;
	}
	return 0;
}

/* `symbols=`: the SymbolCache the session shares (perfdiff/symcache.h). */
static int parse_symbols(pdpy_state *st, pdpy_opts *o, PyObject *kw)
{
	PyObject *v = kw ? PyDict_GetItemString(kw, "symbols") : NULL;
	if (pdpy_symcache_arg(st, v, &o->symbols) < 0)
		return -1;
	o->so.symcache = o->symbols ? ((pdpy_symcache *)o->symbols)->c : NULL;
	return 0;
}

pdpy_opts *pdpy_opts_parse(pdpy_state *st, PyObject *kw, int profile)
{
	pdpy_opts *o = calloc(1, sizeof *o);
	if (!o) {
		PyErr_NoMemory();
		return NULL;
	}
	if (pdpy_options_init_rc(st, pd_profile_options_init(&o->po, PD_PROFILE_OPTIONS_VERSION),
				 "pd_profile_options") < 0 ||
	    pdpy_options_init_rc(st, pd_session_options_init(&o->so, PD_SESSION_OPTIONS_VERSION),
				 "pd_session_options") < 0) {
		pdpy_opts_free(o);
		return NULL;
	}
	o->po.session = &o->so;
	Py_ssize_t taken = 0;
	PyObject *ev = take(kw, "event", &taken);
	if ((ev && !(o->event = pdpy_strdup(ev))) ||
	    (!profile && take_flag(kw, "srcline", &taken, &o->so.flags, PD_SESSION_SRCLINE, 1) < 0) ||
	    parse_session(o, kw, &taken, profile) < 0 ||
	    (profile && parse_profile(o, kw, &taken) < 0) || parse_symbols(st, o, kw) < 0 ||
	    (kw && unknown_key(kw, profile) < 0)) {
		pdpy_opts_free(o);
		return NULL;
	}
	return o;
}
