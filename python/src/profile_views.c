/*
 * profile_views.c — what a perfdiff.Profile shows: flat entries, the
 * chains under them, the calling-context tree, the robot's keys, pprof
 * bytes and the reports of `perfdiff report`.
 *
 * Each view comes from one call of the public API (pd_profile_flat(),
 * pd_profile_chains(), pd_cct_*, pd_lkp_keys(), pd_profile_write_pprof_buffer(),
 * pd_report_write(); a pprof file through pd_outfile, written whole or not
 * at all) made under the object's lock with the GIL released
 * where the library may take long, then copied into Python records while
 * the lock is still held (the library's arrays are valid until the profile
 * changes, which under the lock it cannot).
 */
#include "pdpy.h"

#include <stdlib.h>
#include <string.h>

static PyObject *entry_record(const pdpy_state *st, const pd_flat_entry *e, size_t runs,
			      double total)
{
	double scale = total > 0 ? 100.0 / total : 0;
	PyObject *v[11] = {
		pdpy_str(e->symbol), pdpy_str(e->dso), PyBool_FromLong(e->kernel),
		PyBool_FromLong(e->inlined), PyBool_FromLong(e->unresolved),
		PyLong_FromUnsignedLongLong(e->children), PyLong_FromUnsignedLongLong(e->self),
		PyFloat_FromDouble((double)e->children * scale),
		PyFloat_FromDouble((double)e->self * scale),
		pdpy_u64_tuple(e->children_runs, runs), pdpy_u64_tuple(e->self_runs, runs),
	};
	return pdpy_struct(st, PDPY_ENTRY, v, 11);
}

/* The flat view of the event argument, under the lock; -1 with an
 * exception (the lock released then). */
static int flat_locked(pdpy_profile *self, PyObject *event, int *ev,
		       const pd_flat_entry **e, size_t *n)
{
	if ((*ev = pdpy_profile_event(self, event)) < 0)
		return -1;
	pd_error err;
	int rc;
	pdpy_lock(self->lock);
	Py_BEGIN_ALLOW_THREADS
	rc = pd_profile_flat(self->p, (size_t)*ev, e, n, &err);
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		PyThread_release_lock(self->lock);
		pdpy_raise(self->st, &err, NULL);
	}
	return rc;
}

PyObject *pdpy_profile_flat(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "event", NULL };
	PyObject *event = NULL;
	const pd_flat_entry *e;
	size_t n;
	int ev;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kws, &event) ||
	    flat_locked(self, event, &ev, &e, &n) < 0)
		return NULL;
	size_t runs = pd_profile_run_count(self->p);
	double total = (double)pd_profile_total(self->p, (size_t)ev, SIZE_MAX);
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		PyObject *r = entry_record(self->st, &e[i], runs, total);
		if (!r)
			Py_CLEAR(l);
		else
			PyList_SET_ITEM(l, (Py_ssize_t)i, r);
	}
	PyThread_release_lock(self->lock);
	return l;
}

/* ------------------------------------------------------------ chains */

/* Chain node `i` of `t`: its path from node 0 (the entry) out. */
static PyObject *chain_record(const pdpy_state *st, const pd_chain_tree *t, size_t i,
			      double scale)
{
	const pd_chain_node *c = pd_chain_tree_node(t, i);
	size_t depth = 0;
	for (size_t k = i; k != SIZE_MAX; k = pd_chain_tree_node(t, k)->parent)
		depth++;
	PyObject *path = PyTuple_New((Py_ssize_t)depth);
	size_t d = depth;
	for (size_t k = i; path && k != SIZE_MAX; k = pd_chain_tree_node(t, k)->parent) {
		PyObject *s = pdpy_str(pd_chain_tree_node(t, k)->symbol);
		if (!s)
			Py_CLEAR(path);
		else
			PyTuple_SET_ITEM(path, (Py_ssize_t)--d, s);
	}
	PyObject *v[5] = {
		path, pdpy_str(c->dso), PyLong_FromUnsignedLongLong(c->total),
		PyLong_FromUnsignedLongLong(c->self), PyFloat_FromDouble((double)c->total * scale),
	};
	return pdpy_struct(st, PDPY_CHAIN, v, 5);
}

static int add_chains(PyObject *l, pdpy_profile *self, int ev, size_t entry, double scale)
{
	pd_chain_tree *t;
	pd_error err;
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = pd_profile_chains(self->p, (size_t)ev, entry, PD_CHAIN_CALLEE, SIZE_MAX, 0, &t, &err);
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		pdpy_raise(self->st, &err, NULL);
		return -1;
	}
	for (size_t i = 0; rc == 0 && i < pd_chain_tree_size(t); i++) {
		PyObject *r = chain_record(self->st, t, i, scale);
		rc = r ? PyList_Append(l, r) : -1;
		Py_XDECREF(r);
	}
	pd_chain_tree_free(t);
	return rc;
}

PyObject *pdpy_profile_chains(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "event", NULL };
	PyObject *event = NULL;
	const pd_flat_entry *e;
	size_t n;
	int ev;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kws, &event) ||
	    flat_locked(self, event, &ev, &e, &n) < 0)
		return NULL;
	uint64_t total = pd_profile_total(self->p, (size_t)ev, SIZE_MAX);
	double scale = total ? 100.0 / (double)total : 0;
	PyObject *l = PyList_New(0);
	for (size_t i = 0; l && i < n; i++)
		if (add_chains(l, self, ev, i, scale) < 0)
			Py_CLEAR(l);
	PyThread_release_lock(self->lock);
	return l;
}

/* ------------------------------------------------------------ tree */

static PyObject *runs_of(const pd_cct_node *n, size_t runs,
			 uint64_t (*fn)(const pd_cct_node *, size_t))
{
	PyObject *t = PyTuple_New((Py_ssize_t)runs);
	for (size_t r = 0; t && r < runs; r++) {
		PyObject *x = PyLong_FromUnsignedLongLong(fn(n, r));
		if (!x)
			Py_CLEAR(t);
		else
			PyTuple_SET_ITEM(t, (Py_ssize_t)r, x);
	}
	return t;
}

static PyObject *node_record(const pdpy_state *st, const pd_cct_node *n, size_t id,
			     size_t parent, size_t runs)
{
	PyObject *v[13] = {
		PyLong_FromSize_t(id),
		parent == SIZE_MAX ? Py_NewRef(Py_None) : PyLong_FromSize_t(parent),
		pdpy_str(pd_cct_symbol(n)), pdpy_str(pd_cct_dso(n)), pdpy_str(pd_cct_unit(n)),
		PyBool_FromLong(pd_cct_kernel(n)), PyBool_FromLong(pd_cct_inlined(n)),
		PyBool_FromLong(pd_cct_unresolved(n)), PyLong_FromSize_t(pd_cct_depth(n)),
		PyLong_FromUnsignedLongLong(pd_cct_self(n, SIZE_MAX)),
		PyLong_FromUnsignedLongLong(pd_cct_total(n, SIZE_MAX)),
		runs_of(n, runs, pd_cct_self), runs_of(n, runs, pd_cct_total),
	};
	return pdpy_struct(st, PDPY_NODE, v, 13);
}

/* A node waiting to be listed, with its parent's id. */
typedef struct pending {
	const pd_cct_node *n;
	size_t parent;
} pending;

/* Preorder from the root: a stack of nodes, children pushed last first. */
static int walk_tree(const pdpy_state *st, PyObject *l, const pd_cct_node *root, size_t runs)
{
	size_t cap = 64, top = 0;
	pending *stack = malloc(cap * sizeof *stack);
	if (!stack)
		return PyErr_NoMemory(), -1;
	stack[top++] = (pending){ root, SIZE_MAX };
	int rc = 0;
	while (rc == 0 && top > 0) {
		pending p = stack[--top];
		size_t id = (size_t)PyList_GET_SIZE(l), nc = pd_cct_child_count(p.n);
		PyObject *r = node_record(st, p.n, id, p.parent, runs);
		rc = r ? PyList_Append(l, r) : -1;
		Py_XDECREF(r);
		if (rc == 0 && top + nc > cap) {
			while (top + nc > cap)
				cap *= 2;
			pending *g = realloc(stack, cap * sizeof *stack);
			rc = g ? 0 : (PyErr_NoMemory(), -1);
			stack = g ? g : stack;
		}
		for (size_t i = nc; rc == 0 && i-- > 0;)
			stack[top++] = (pending){ pd_cct_child(p.n, i), id };
	}
	free(stack);
	return rc;
}

PyObject *pdpy_profile_tree(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "event", NULL };
	PyObject *event = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kws, &event))
		return NULL;
	int ev = pdpy_profile_event(self, event);
	if (ev < 0)
		return NULL;
	pdpy_lock(self->lock);
	PyObject *l = PyList_New(0);
	if (l && walk_tree(self->st, l, pd_profile_root(self->p, (size_t)ev),
			   pd_profile_run_count(self->p)) < 0)
		Py_CLEAR(l);
	PyThread_release_lock(self->lock);
	return l;
}

/* ------------------------------------------------------------ keys */

PyObject *pdpy_profile_lkp_keys(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "run", "event", "mean", NULL };
	PyObject *run = NULL, *event = NULL;
	int mean = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOp", kws, &run, &event, &mean))
		return NULL;
	if (pdpy_profile_ready(self) < 0)
		return NULL;
	size_t ev = PD_LKP_ALL_EVENTS, r = PD_LKP_ALL_RUNS;
	if (event && event != Py_None) {
		int e = pdpy_profile_event(self, event);
		if (e < 0)
			return NULL;
		ev = (size_t)e;
	}
	if (run && run != Py_None) {
		Py_ssize_t x = PyLong_AsSsize_t(run);
		if (x < 0 || (size_t)x >= pd_profile_run_count(self->p))
			return PyErr_Occurred() ? NULL
						: PyErr_Format(PyExc_IndexError, "run %zd", x);
		r = (size_t)x;
	}
	pd_lkp_key *keys = NULL;
	size_t n = 0;
	pd_error err;
	int rc;
	pdpy_lock(self->lock);
	Py_BEGIN_ALLOW_THREADS
	rc = mean ? pd_lkp_keys_mean(&keys, &n, self->p, ev, &err)
		  : pd_lkp_keys(&keys, &n, self->p, ev, r, &err);
	Py_END_ALLOW_THREADS
	PyThread_release_lock(self->lock);
	if (rc < 0)
		return pdpy_raise(self->st, &err, NULL);
	PyObject *d = PyDict_New();
	for (size_t i = 0; d && i < n; i++) {
		PyObject *v = PyFloat_FromDouble(keys[i].value), *k = pdpy_str(keys[i].key);
		if (!v || !k || PyDict_SetItem(d, k, v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
		Py_XDECREF(k);
	}
	pd_lkp_keys_free(keys, n);
	return d;
}

/* ------------------------------------------------------------ exports */

/* pprof()'s and write_pprof()'s `run` and `gzip` into `o`: 0, or -1 with
 * the exception set. */
static int pprof_options(pdpy_profile *self, PyObject *run, int gzip, pd_pprof_write_options *o)
{
	if (pdpy_options_init_rc(self->st, pd_pprof_write_options_init(o, PD_PPROF_WRITE_OPTIONS_VERSION),
				 "pd_pprof_write_options") < 0)
		return -1;
	o->gzip = gzip;
	if (!run || run == Py_None)
		return 0;
	Py_ssize_t x = PyLong_AsSsize_t(run);
	if (x < 0 || (size_t)x >= pd_profile_run_count(self->p)) {
		if (!PyErr_Occurred())
			PyErr_Format(PyExc_IndexError, "run %zd", x);
		return -1;
	}
	o->run = (size_t)x;
	return 0;
}

PyObject *pdpy_profile_pprof(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "run", "gzip", NULL };
	PyObject *run = NULL;
	int gzip = 1;
	pd_pprof_write_options o;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|Op", kws, &run, &gzip) ||
	    pdpy_profile_ready(self) < 0 || pprof_options(self, run, gzip, &o) < 0)
		return NULL;
	void *buf = NULL;
	size_t len = 0;
	pd_error err;
	int rc;
	pdpy_lock(self->lock);
	Py_BEGIN_ALLOW_THREADS
	rc = pd_profile_write_pprof_buffer(self->p, &buf, &len, &o, &err);
	Py_END_ALLOW_THREADS
	PyThread_release_lock(self->lock);
	PyObject *b = rc < 0 ? pdpy_raise(self->st, &err, NULL)
			     : PyBytes_FromStringAndSize(buf, (Py_ssize_t)len);
	free(buf);
	return b;
}

/* The export of `p` to `path` through the library's whole-or-nothing
 * file (pd_outfile), refused when `path` is one of the profile's runs. */
static int write_pprof_file(pd_profile *p, const char *path, const pd_pprof_write_options *o,
			    pd_error *err)
{
	size_t n = pd_profile_run_count(p);
	const char **runs = calloc(n ? n : 1, sizeof *runs);
	if (!runs) {
		*err = (pd_error){ .code = PD_ENOMEM, .offset = PD_NO_OFFSET };
		snprintf(err->message, sizeof err->message, "%s: out of memory", path);
		return PD_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		runs[i] = pd_profile_run_path(p, i);
	pd_outfile *f = NULL;
	int rc = pd_outfile_check(path, runs, n, err);
	free(runs);
	if (rc == 0)
		rc = pd_outfile_open(&f, path, err);
	if (rc == 0)
		rc = pd_profile_write_pprof(p, pd_outfile_stream(f), o, err);
	if (rc == 0)
		return pd_outfile_commit(f, err);
	pd_outfile_abort(f);
	return rc;
}

PyObject *pdpy_profile_write_pprof(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "path", "run", "gzip", NULL };
	PyObject *path = NULL, *run = NULL;
	int gzip = 1;
	pd_pprof_write_options o;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|Op", kws, PyUnicode_FSConverter, &path,
					 &run, &gzip))
		return NULL;
	if (pdpy_profile_ready(self) < 0 || pprof_options(self, run, gzip, &o) < 0) {
		Py_DECREF(path);
		return NULL;
	}
	const char *cpath = PyBytes_AS_STRING(path);
	pd_error err;
	int rc;
	pdpy_lock(self->lock);
	Py_BEGIN_ALLOW_THREADS
	rc = write_pprof_file(self->p, cpath, &o, &err);
	Py_END_ALLOW_THREADS
	PyThread_release_lock(self->lock);
	PyObject *r = rc < 0 ? pdpy_raise(self->st, &err, cpath) : (Py_INCREF(Py_None), Py_None);
	Py_DECREF(path);
	return r;
}

static int parse_format(const char *name, pd_format *out)
{
	int f = pd_format_parse(name);
	if (f < 0) {
		PyErr_Format(PyExc_ValueError, "no format '%s'", name);
		return -1;
	}
	*out = (pd_format)f;
	return 0;
}

PyObject *pdpy_profile_report(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "format", "event", "percent_limit", "sort_self", "chains",
			       "threshold", "callee", "weight_samples", "mean", NULL };
	const char *format = "text";
	PyObject *event = NULL;
	pd_report_write_options o;
	if (pdpy_options_init_rc(self->st, pd_report_write_options_init(&o, PD_REPORT_WRITE_OPTIONS_VERSION),
				 "pd_report_write_options") < 0)
		return NULL;
	int sort_self = 0, chains = 1, callee = 0, weight = 0, mean = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|sOdppdppp", kws, &format, &event,
					 &o.percent_limit, &sort_self, &chains, &o.threshold,
					 &callee, &weight, &mean) ||
	    parse_format(format, &o.format) < 0 || pdpy_profile_ready(self) < 0)
		return NULL;
	if (event && event != Py_None && (o.event = pdpy_profile_event(self, event)) < 0)
		return NULL;
	o.sort_self = sort_self, o.chains = chains, o.weight_samples = weight, o.mean = mean;
	o.order = callee ? PD_CHAIN_CALLEE : PD_CHAIN_CALLER;
	o.profile_options = &self->opts->po;
	/* the runs' names head the lkp format's blocks, as the command's */
	size_t runs = pd_profile_run_count(self->p);
	const char **files = calloc(runs + 1, sizeof *files);
	if (!files)
		return PyErr_NoMemory();
	for (size_t i = 0; i < runs; i++)
		files[i] = pd_profile_run_path(self->p, i);
	o.files = files;
	o.nfiles = runs;
	pdpy_out out;
	pd_error err;
	int rc = pdpy_out_open(&out, &err);
	if (rc < 0) {
		free(files);
		return pdpy_raise(self->st, &err, NULL);
	}
	pdpy_lock(self->lock);
	Py_BEGIN_ALLOW_THREADS
	rc = pd_report_write(out.w, self->p, &o, &err);
	Py_END_ALLOW_THREADS
	PyThread_release_lock(self->lock);
	free(files);
	return pdpy_out_finish(self->st, &out, rc, &err);
}
