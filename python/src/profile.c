/*
 * profile.c — perfdiff.Profile: a pd_profile of one run per input.
 *
 * Profile(paths, **options) reads each path (perf.data or pprof, by
 * content, pd_profile_add_input()) or in-memory pprof bytes
 * (pd_profile_add_pprof_buffer(), what Dask workers send back) as one run,
 * with the GIL released; the library's warnings of each input, which its
 * sink keeps meanwhile, become Python warnings once the input is read.  The object is immutable afterwards; its
 * views (flat entries, chains, the tree, keys, exports, reports) are
 * built on demand under the object's lock, so threads may share it.
 * python/perfdiff/__init__.py adds the conveniences (rows(), json(),
 * text(), folded(), write_pprof(), to_pandas()).
 */
#include "pdpy.h"

#include <stdlib.h>
#include <string.h>

/* A Profile holds no Python object, but a subclass instance's __dict__
 * (perfdiff.Profile's) can hold a Diff of it: the type takes part in the
 * collector so that such a cycle is found (its subclass traverses the
 * dict). */
static int profile_traverse(pdpy_profile *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self)); /* a heap type: the object holds it */
	if (self->opts)
		Py_VISIT(self->opts->symbols);   /* the SymbolCache it reads with */
	return 0;
}

/* Whatever a failed or earlier __init__ left, freed.  The fields are
 * emptied before the GIL is let go, so that no other thread finds them
 * half freed; the caller says what phase the object is in. */
static void profile_release(pdpy_profile *self)
{
	pd_profile *p = self->p;
	pdpy_opts *o = self->opts;
	self->p = NULL;
	self->opts = NULL;
	self->ev = -1;
	/* the library's free joins its releaser thread: without the GIL */
	if (p) {
		Py_BEGIN_ALLOW_THREADS
		pd_profile_free(p);
		Py_END_ALLOW_THREADS
	}
	pdpy_opts_free(o);
	pdpy_pending_free(&self->pending);
}

static void profile_dealloc(pdpy_profile *self)
{
	PyTypeObject *type = Py_TYPE(self);
	PyObject_GC_UnTrack(self);
	profile_release(self);
	if (self->lock)
		PyThread_free_lock(self->lock);
	type->tp_free((PyObject *)self);
	Py_DECREF(type);
}

static PyObject *profile_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	(void)args;
	(void)kw;
	pdpy_state *st = pdpy_state_of(type);
	pdpy_profile *self = st ? (pdpy_profile *)type->tp_alloc(type, 0) : NULL;
	if (!self)
		return NULL;
	self->st = st;
	self->ev = -1;
	if (!(self->lock = PyThread_allocate_lock())) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	return (PyObject *)self;
}

/* An input: a path (str, os.PathLike), pprof bytes, or (name, bytes). */
typedef struct input {
	char *path;       /* owned; the name of a buffer */
	Py_buffer data;   /* data.obj NULL for a path */
} input;

static int input_get(input *in, PyObject *item, size_t idx)
{
	memset(in, 0, sizeof *in);
	PyObject *name = NULL, *data = item;
	if (PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 2)
		name = PyTuple_GET_ITEM(item, 0), data = PyTuple_GET_ITEM(item, 1);
	else if (!PyObject_CheckBuffer(item))
		data = NULL, name = item;
	if (data && PyObject_GetBuffer(data, &in->data, PyBUF_SIMPLE) < 0)
		return -1;
	PyObject *b = NULL;
	if (name && !PyUnicode_FSConverter(name, &b))
		return -1;
	char tmp[32];
	snprintf(tmp, sizeof tmp, "<pprof %zu>", idx);
	in->path = strdup(b ? PyBytes_AS_STRING(b) : tmp);
	Py_XDECREF(b);
	return in->path ? 0 : (PyErr_NoMemory(), -1);
}

static void input_free(input *in)
{
	free(in->path);
	if (in->data.obj)
		PyBuffer_Release(&in->data);
}

static int add_one(pdpy_profile *self, PyObject *item, size_t idx)
{
	input in;
	if (input_get(&in, item, idx) < 0) {
		input_free(&in);
		return -1;
	}
	pd_error err;
	int rc;
	/* the profile's sink keeps the input's warnings in self->pending */
	Py_BEGIN_ALLOW_THREADS
	rc = in.data.obj ? pd_profile_add_pprof_buffer(self->p, in.data.buf, (size_t)in.data.len,
						       in.path, &err)
			 : pd_profile_add_input(self->p, in.path, &err);
	Py_END_ALLOW_THREADS
	int st = pdpy_pending_emit(self->st, &self->pending);
	if (st == 0 && rc < 0)
		st = -1, pdpy_raise(self->st, &err, in.path);
	input_free(&in);
	return st;
}

/* The event `event=` names, or the default one. */
static int choose_event(pdpy_profile *self)
{
	if (!self->opts->event) {
		self->ev = pd_profile_default_event(self->p);
		return 0;
	}
	self->ev = pd_profile_find_event(self->p, self->opts->event);
	if (self->ev >= 0)
		return 0;
	pd_error err = { .code = PD_EINVAL, .offset = PD_NO_OFFSET };
	int n = snprintf(err.message, sizeof err.message, "no event '%s' in the input; its events:",
			 self->opts->event);
	for (size_t i = 0; i < pd_profile_event_count(self->p) && n > 0 &&
			   (size_t)n < sizeof err.message; i++)
		n += snprintf(err.message + n, sizeof err.message - (size_t)n, " %s",
			      pd_profile_event_name(self->p, i));
	pdpy_raise(self->st, &err, NULL);
	return -1;
}

/* One input, or a sequence of them, or an iterator taken one input at a
 * time: a generator handing over pprof bytes as they arrive keeps only
 * the run being read in memory (examples/fleet_diff.py). */
static int read_all(pdpy_profile *self, PyObject *paths)
{
	bool pair = PyTuple_Check(paths) && PyTuple_GET_SIZE(paths) == 2 &&
		    !PyUnicode_Check(PyTuple_GET_ITEM(paths, 1)) &&
		    PyObject_CheckBuffer(PyTuple_GET_ITEM(paths, 1));
	bool one = pair || PyUnicode_Check(paths) || PyObject_CheckBuffer(paths) ||
		   PyObject_HasAttrString(paths, "__fspath__");
	PyObject *it = one ? NULL : PyObject_GetIter(paths), *item;
	if (one)
		return add_one(self, paths, 0) < 0 ? -1 : choose_event(self);
	if (!it)
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && (item = PyIter_Next(it)); i++) {
		rc = add_one(self, item, i);
		Py_DECREF(item);
	}
	Py_DECREF(it);
	return rc < 0 || PyErr_Occurred() ? -1 : choose_event(self);
}

/* The profile of `paths`, read with the GIL released between inputs.  No
 * lock is held: the object is BUSY, so no other thread uses it, and the
 * user's iterator and `warnings` may run (and call back into it). */
static int profile_build(pdpy_profile *self, PyObject *paths, PyObject *kw)
{
	pd_error err;
	if (!(self->opts = pdpy_opts_parse(self->st, kw, 1)))
		return -1;
	/* the library warns while the GIL is released: kept until add_one()
	 * issues them */
	self->opts->po.warn = pdpy_sink;
	self->opts->po.warn_ctx = &self->pending;
	if (pd_profile_new(&self->p, &self->opts->po, &err) < 0) {
		pdpy_raise(self->st, &err, NULL);
		return -1;
	}
	return read_all(self, paths);
}

static int profile_init(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	PyObject *paths;
	if (!PyArg_ParseTuple(args, "O:Profile", &paths) ||
	    pdpy_init_allowed(self->phase, "Profile") < 0)
		return -1;
	self->phase = PDPY_BUSY;
	profile_release(self);
	if (profile_build(self, paths, kw) < 0) {
		profile_release(self);
		self->phase = PDPY_EMPTY; /* only now: the release may let the GIL go */
		return -1;
	}
	self->phase = PDPY_READY;
	return 0;
}

/* ------------------------------------------------------------ arguments */

int pdpy_profile_ready(pdpy_profile *self)
{
	return self->phase == PDPY_READY ? 0 : pdpy_not_ready("Profile");
}

int pdpy_profile_event(pdpy_profile *self, PyObject *event)
{
	if (pdpy_profile_ready(self) < 0)
		return -1;
	size_t n = pd_profile_event_count(self->p);
	if (!event || event == Py_None) {
		if (self->ev < 0)
			PyErr_SetString(self->st->errors[2], "the profile has no samples, so no event");
		return self->ev;
	}
	if (PyLong_Check(event)) {
		Py_ssize_t i = PyLong_AsSsize_t(event);
		if (i >= 0 && (size_t)i < n)
			return (int)i;
		if (!PyErr_Occurred())
			PyErr_Format(PyExc_IndexError, "event %zd of %zu", i, n);
		return -1;
	}
	char *name = pdpy_strdup(event);
	int ev = name ? pd_profile_find_event(self->p, name) : -1;
	if (name && ev < 0)
		PyErr_Format(self->st->errors[2], "no event %R in the profile", event);
	free(name);
	return ev;
}

/* A run number (None: SIZE_MAX, all runs); 0, or -1 with an exception. */
static int run_arg(pdpy_profile *self, PyObject *run, size_t *out)
{
	*out = SIZE_MAX;
	if (!run || run == Py_None)
		return 0;
	Py_ssize_t r = PyLong_AsSsize_t(run);
	size_t n = pd_profile_run_count(self->p);
	if (r >= 0 && (size_t)r < n) {
		*out = (size_t)r;
		return 0;
	}
	if (!PyErr_Occurred())
		PyErr_Format(PyExc_IndexError, "run %zd of %zu", r, n);
	return -1;
}

/* ------------------------------------------------------------ getters */

static PyObject *get_events(pdpy_profile *self, void *unused)
{
	(void)unused;
	if (pdpy_profile_ready(self) < 0)
		return NULL;
	size_t n = pd_profile_event_count(self->p);
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		PyObject *s = pdpy_str(pd_profile_event_name(self->p, i));
		if (!s)
			Py_CLEAR(l);
		else
			PyList_SET_ITEM(l, (Py_ssize_t)i, s);
	}
	return l;
}

static PyObject *get_event(pdpy_profile *self, void *unused)
{
	(void)unused;
	if (pdpy_profile_ready(self) < 0)
		return NULL;
	return self->ev < 0 ? Py_NewRef(Py_None)
			    : pdpy_str(pd_profile_event_name(self->p, (size_t)self->ev));
}

static PyObject *run_record(const pdpy_state *st, pd_profile *p, size_t r)
{
	const pd_run_info *ri = pd_profile_run_info(p, r);
	PyObject *v[8] = {
		pdpy_str(pd_profile_run_path(p, r)),
		PyLong_FromUnsignedLongLong(pd_profile_run_samples_read(p, r)),
		PyLong_FromUnsignedLongLong(pd_profile_lost(p, r)),
		PyBool_FromLong(pd_profile_run_truncated(p, r)),
		PyLong_FromUnsignedLongLong(pd_profile_run_span(p, r)),
		pdpy_str(ri ? ri->perf_version : NULL), pdpy_str(ri ? ri->hostname : NULL),
		pdpy_str(ri ? ri->cmdline : NULL),
	};
	return pdpy_struct(st, PDPY_RUN, v, 8);
}

static PyObject *get_runs(pdpy_profile *self, void *unused)
{
	(void)unused;
	if (pdpy_profile_ready(self) < 0)
		return NULL;
	size_t n = pd_profile_run_count(self->p);
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		PyObject *r = run_record(self->st, self->p, i);
		if (!r)
			Py_CLEAR(l);
		else
			PyList_SET_ITEM(l, (Py_ssize_t)i, r);
	}
	return l;
}

static const char *const kind_names[6] = { "other", "data_lost", "metadata", "unverified",
					   "not_found", "mismatch" };

static PyObject *get_warnings(pdpy_profile *self, void *unused)
{
	(void)unused;
	if (pdpy_profile_ready(self) < 0)
		return NULL;
	PyObject *l = PyList_New(0);
	for (size_t i = 0; l && i < pd_profile_warning_count(self->p); i++) {
		unsigned k = (unsigned)pd_profile_warning_kind(self->p, i);
		PyObject *t = Py_BuildValue("(sN)", k < 6 ? kind_names[k] : "other",
					    pdpy_str(pd_profile_warning(self->p, i)));
		if (!t || PyList_Append(l, t) < 0)
			Py_CLEAR(l);
		Py_XDECREF(t);
	}
	return l;
}

static PyObject *get_unmatched(pdpy_profile *self, void *unused)
{
	(void)unused;
	if (pdpy_profile_ready(self) < 0)
		return NULL;
	PyObject *l = PyList_New(0);
	const char *what, *value;
	for (size_t i = 0; l && i < pd_profile_filter_unmatched(self->p, &what, &value, i); i++) {
		PyObject *t = Py_BuildValue("(sN)", what, pdpy_str(value));
		if (!t || PyList_Append(l, t) < 0)
			Py_CLEAR(l);
		Py_XDECREF(t);
	}
	return l;
}

/* ------------------------------------------------------------ totals */

static PyObject *counted(pdpy_profile *self, PyObject *args, PyObject *kw,
			 uint64_t (*fn)(const pd_profile *, size_t, size_t))
{
	static char *kws[] = { "event", "run", NULL };
	PyObject *event = NULL, *run = NULL;
	size_t r;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kws, &event, &run))
		return NULL;
	int ev = pdpy_profile_event(self, event);
	if (ev < 0 || run_arg(self, run, &r) < 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(fn(self->p, (size_t)ev, r));
}

static PyObject *total(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	return counted(self, args, kw, pd_profile_total);
}

static PyObject *sample_count(pdpy_profile *self, PyObject *args, PyObject *kw)
{
	return counted(self, args, kw, pd_profile_samples);
}

/* ------------------------------------------------------------ views */

PyObject *pdpy_profile_flat(pdpy_profile *self, PyObject *args, PyObject *kw);
PyObject *pdpy_profile_chains(pdpy_profile *self, PyObject *args, PyObject *kw);
PyObject *pdpy_profile_tree(pdpy_profile *self, PyObject *args, PyObject *kw);
PyObject *pdpy_profile_lkp_keys(pdpy_profile *self, PyObject *args, PyObject *kw);
PyObject *pdpy_profile_pprof(pdpy_profile *self, PyObject *args, PyObject *kw);
PyObject *pdpy_profile_write_pprof(pdpy_profile *self, PyObject *args, PyObject *kw);
PyObject *pdpy_profile_report(pdpy_profile *self, PyObject *args, PyObject *kw);

#define KW(f) ((PyCFunction)(void (*)(void))(f)), METH_VARARGS | METH_KEYWORDS
static PyMethodDef profile_methods[] = {
	{ "total", KW(total), "total(event=None, run=None) -> the event's total period" },
	{ "sample_count", KW(sample_count),
	  "sample_count(event=None, run=None) -> samples of the event in the profile" },
	{ "_flat", KW(pdpy_profile_flat), "_flat(event=None) -> [Entry] by children" },
	{ "_chains", KW(pdpy_profile_chains),
	  "_chains(event=None) -> [Chain]: the callers of every entry" },
	{ "tree", KW(pdpy_profile_tree),
	  "tree(event=None) -> [Node]: the calling-context tree in preorder, parents first" },
	{ "lkp_keys", KW(pdpy_profile_lkp_keys),
	  "lkp_keys(run=None, event=None, mean=False) -> {key: value}: the kernel test "
	  "robot's perf-profile keys (build the profile with lkp=True for the robot's)" },
	{ "pprof", KW(pdpy_profile_pprof),
	  "pprof(run=None, gzip=True) -> bytes: the profile (or one run) as pprof" },
	{ "write_pprof", KW(pdpy_profile_write_pprof),
	  "write_pprof(path, run=None, gzip=True): pprof() to the file `path`, whole or "
	  "not at all; refused when `path` is one of the runs" },
	{ "report", KW(pdpy_profile_report),
	  "report(format='text', event=None, ...) -> str: what `perfdiff report` prints" },
	{ 0 } };

static PyGetSetDef profile_getset[] = {
	{ "events", (getter)get_events, NULL, "names of the events, in profile order", NULL },
	{ "event", (getter)get_event, NULL, "the event used when none is given", NULL },
	{ "runs", (getter)get_runs, NULL, "one Run per input, in order", NULL },
	{ "warnings", (getter)get_warnings, NULL, "[(kind, message)] of the inputs", NULL },
	{ "unmatched_filters", (getter)get_unmatched, NULL,
	  "[(filter, value)] of filter values that matched no sample", NULL },
	{ 0 } };

static PyType_Slot profile_slots[] = {
	{ Py_tp_dealloc, (void *)profile_dealloc },
	{ Py_tp_traverse, (void *)profile_traverse },
	{ Py_tp_doc, (void *)"Profile(paths, **options): runs folded into calling-context trees." },
	{ Py_tp_methods, profile_methods },
	{ Py_tp_getset, profile_getset },
	{ Py_tp_init, (void *)profile_init },
	{ Py_tp_new, (void *)profile_new },
	{ 0, NULL } };

PyType_Spec pdpy_profile_spec = {
	.name = "perfdiff._perfdiff.Profile",
	.basicsize = sizeof(pdpy_profile),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = profile_slots,
};
