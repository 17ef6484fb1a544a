/*
 * samples.c — perfdiff.samples(path, ...): the symbolized samples of one
 * recording, one at a time (the view of `perfdiff script`).
 *
 * A pd_session read lazily: each next() asks pd_session_next() for one
 * sample with the GIL released and copies it into a Sample record (the
 * library's sample is valid only until the next call), so a recording of
 * any size is walked in constant memory.  The session's and the reader's
 * warnings, which their sinks keep meanwhile, go through `warnings` at the
 * end; an error raises the Error
 * of its code, after the samples before it.  As `perfdiff script`, the
 * session reads ahead while the kernel's symbol table loads.
 *
 * The iterator's lock is held only around the library's calls and the
 * copying: the ended session is taken out of the object first, so that
 * `warnings` (filters, showwarning: Python code, which may call back into
 * the iterator) runs unlocked, and the session's threads are joined with
 * the GIL released.
 */
#include "pdpy.h"

#include <stdlib.h>
#include <string.h>

typedef struct pdpy_samples {
	PyObject_HEAD
	pdpy_state *st;              /* its module's */
	pd_session *s;
	pdpy_opts *opts;
	PyThread_type_lock lock;
	char *path;
	int done;
	pd_reader_options ro;        /* the session's reader's, copied at the open */
	pdpy_pending pending;        /* the warnings of both, until the end */
} pdpy_samples;

/* The session and its warnings, taken out of the object under its lock:
 * the iterator is done, and what is left to do with them needs no lock. */
static pd_session *samples_detach_locked(pdpy_samples *self, pdpy_pending *warns)
{
	pd_session *s = self->s;
	self->s = NULL;
	self->done = 1;
	*warns = self->pending;
	memset(&self->pending, 0, sizeof self->pending);
	return s;
}

/* Freeing a session joins its read-ahead threads: without the GIL. */
static void session_free(pd_session *s)
{
	if (!s)
		return;
	Py_BEGIN_ALLOW_THREADS
	pd_session_free(s);
	Py_END_ALLOW_THREADS
}

/* Of a heap type, the object holds its type: the collector sees that. */
static int samples_traverse(pdpy_samples *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self));
	if (self->opts)
		Py_VISIT(self->opts->symbols);   /* the SymbolCache it reads with */
	return 0;
}

static void samples_dealloc(pdpy_samples *self)
{
	PyTypeObject *type = Py_TYPE(self);
	PyObject_GC_UnTrack(self);
	pdpy_pending warns;
	session_free(samples_detach_locked(self, &warns));
	pdpy_pending_free(&warns);
	pdpy_opts_free(self->opts);
	free(self->path);
	if (self->lock)
		PyThread_free_lock(self->lock);
	type->tp_free((PyObject *)self);
	Py_DECREF(type);
}

/* A Samples of module state `st` for `path`, its options parsed, its
 * session not open yet; NULL with an exception. */
static pdpy_samples *samples_alloc(pdpy_state *st, PyObject *path, PyObject *kw)
{
	pdpy_samples *self = PyObject_GC_New(pdpy_samples,
					     (PyTypeObject *)st->classes[PDPY_SAMPLES]);
	if (!self)
		return NULL;
	self->st = st;
	self->s = NULL;
	self->done = 0;
	self->opts = NULL;
	memset(&self->pending, 0, sizeof self->pending);
	self->lock = PyThread_allocate_lock();
	self->path = strdup(PyBytes_AS_STRING(path));
	PyObject_GC_Track(self);
	self->opts = self->lock && self->path ? pdpy_opts_parse(st, kw, 0) : NULL;
	if (self->opts &&
	    pdpy_options_init_rc(st, pd_reader_options_init(&self->ro, PD_READER_OPTIONS_VERSION),
				 "pd_reader_options") == 0)
		return self;
	if (!PyErr_Occurred())
		PyErr_NoMemory();
	Py_DECREF(self);
	return NULL;
}

PyObject *pdpy_samples_open(PyObject *mod, PyObject *args, PyObject *kw)
{
	PyObject *path = NULL;
	if (!PyArg_ParseTuple(args, "O&:samples", PyUnicode_FSConverter, &path))
		return NULL;
	pdpy_samples *self = samples_alloc(PyModule_GetState(mod), path, kw);
	Py_DECREF(path);
	if (!self)
		return NULL;
	/* as `perfdiff script --format=json`: inline frames with their lines */
	pd_session_options *so = &self->opts->so;
	so->flags |= PD_SESSION_READ_AHEAD;
	/* the session's and its reader's warnings come while the GIL is
	 * released: kept until the end */
	so->warn = self->ro.warn = pdpy_sink;
	so->warn_ctx = self->ro.warn_ctx = &self->pending;
	so->reader = &self->ro;
	pd_error err;
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = pd_session_open(&self->s, self->path, so, &err);
	Py_END_ALLOW_THREADS
	so->reader = NULL; /* copied */
	if (rc < 0) {
		if (pdpy_pending_emit(self->st, &self->pending) == 0)
			pdpy_raise(self->st, &err, self->path);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

/* ------------------------------------------------------------ records */

/* A frame as `perfdiff script --format=json` gives it: raw_symbol and
 * offset only with a symbol, srcfile and line together or neither. */
static PyObject *frame_record(const pdpy_state *st, const pd_frame *f)
{
	bool line = f->srcfile && f->line;
	PyObject *v[10] = {
		PyLong_FromUnsignedLongLong(f->addr), PyLong_FromUnsignedLongLong(f->dso_addr),
		pdpy_str(f->symbol), pdpy_str(f->symbol ? f->raw_symbol : NULL),
		f->symbol ? PyLong_FromUnsignedLongLong(f->symbol_offset) : Py_NewRef(Py_None),
		pdpy_str(f->dso ? f->dso : "[unknown]"), PyBool_FromLong(f->inlined),
		pdpy_str(line ? f->srcfile : NULL),
		line ? PyLong_FromUnsignedLong(f->line) : Py_NewRef(Py_None), pdpy_str(f->unit),
	};
	return pdpy_struct(st, PDPY_FRAME, v, 10);
}

/* A sample; cpu and time None when the event does not sample them. */
static PyObject *sample_record(pdpy_samples *self, const pd_resolved_sample *rs)
{
	const pd_attr *a = pd_reader_attr(pd_session_reader(self->s), (size_t)rs->attr);
	uint64_t st = a ? a->sample_type : 0;
	PyObject *frames = PyTuple_New((Py_ssize_t)rs->nframes);
	for (size_t i = 0; frames && i < rs->nframes; i++) {
		PyObject *f = frame_record(self->st, &rs->frames[i]);
		if (!f)
			Py_CLEAR(frames);
		else
			PyTuple_SET_ITEM(frames, (Py_ssize_t)i, f);
	}
	PyObject *v[8] = {
		pdpy_str(rs->comm), PyLong_FromUnsignedLong(rs->pid), PyLong_FromUnsignedLong(rs->tid),
		st & PD_SAMPLE_CPU ? PyLong_FromUnsignedLong(rs->cpu) : Py_NewRef(Py_None),
		st & PD_SAMPLE_TIME ? PyLong_FromUnsignedLongLong(rs->time) : Py_NewRef(Py_None),
		PyLong_FromUnsignedLongLong(rs->period), pdpy_str(a ? a->name : NULL), frames,
	};
	return pdpy_struct(self->st, PDPY_SAMPLE, v, 8);
}

/* Whether sample `rs` is of the event asked for (all without one). */
static bool wanted(pdpy_samples *self, const pd_resolved_sample *rs)
{
	if (!self->opts->event)
		return true;
	const pd_attr *a = pd_reader_attr(pd_session_reader(self->s), (size_t)rs->attr);
	return a && a->name && strcmp(a->name, self->opts->event) == 0;
}

/* The next sample of the event asked for: 0, PD_ITEROVER at the end (or
 * when done already), or an error. */
static int next_wanted_locked(pdpy_samples *self, const pd_resolved_sample **rs,
			      pd_error *err)
{
	int rc = PD_ITEROVER;
	while (!self->done) {
		Py_BEGIN_ALLOW_THREADS
		rc = pd_session_next(self->s, rs, err);
		Py_END_ALLOW_THREADS
		if (rc < 0 || wanted(self, *rs))
			break;
	}
	return rc;
}

/* The end of an ended session, unlocked: its warnings, then its error
 * (the warnings first, as the command prints them). */
static void samples_end(const pdpy_state *st, pd_session *s, pdpy_pending *warns, int rc,
			const pd_error *err, const char *path)
{
	if (pdpy_pending_emit(st, warns) == 0 && rc != PD_ITEROVER)
		pdpy_raise(st, err, path);
	session_free(s);
}

static PyObject *samples_next(pdpy_samples *self)
{
	const pd_resolved_sample *rs = NULL;
	pd_error err;
	pdpy_lock(self->lock);
	int rc = next_wanted_locked(self, &rs, &err);
	PyObject *out = rc == 0 ? sample_record(self, rs) : NULL;
	pdpy_pending warns = { 0 };
	pd_session *ended = rc != 0 ? samples_detach_locked(self, &warns) : NULL;
	PyThread_release_lock(self->lock);
	if (ended)
		samples_end(self->st, ended, &warns, rc, &err, self->path);
	return out;
}

static PyObject *samples_close(pdpy_samples *self, PyObject *unused)
{
	(void)unused;
	pdpy_lock(self->lock);
	pdpy_pending warns;
	pd_session *s = samples_detach_locked(self, &warns);
	PyThread_release_lock(self->lock);
	session_free(s);
	pdpy_pending_free(&warns); /* closed early: as before, not issued */
	Py_RETURN_NONE;
}

static PyObject *samples_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *samples_exit(pdpy_samples *self, PyObject *args)
{
	(void)args;
	return samples_close(self, NULL);
}

static PyMethodDef samples_methods[] = {
	{ "close", (PyCFunction)samples_close, METH_NOARGS, "Stop reading and free the session." },
	{ "__enter__", samples_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)samples_exit, METH_VARARGS, NULL },
	{ 0 } };

static PyType_Slot samples_slots[] = {
	{ Py_tp_dealloc, (void *)samples_dealloc },
	{ Py_tp_traverse, (void *)samples_traverse },
	{ Py_tp_doc,
	  (void *)"An iterator of the Sample records of one recording (perfdiff.samples())." },
	{ Py_tp_iter, (void *)PyObject_SelfIter },
	{ Py_tp_iternext, (void *)samples_next },
	{ Py_tp_methods, samples_methods },
	{ 0, NULL } };

/* made by perfdiff.samples() only */
PyType_Spec pdpy_samples_spec = {
	.name = "perfdiff._perfdiff.Samples",
	.basicsize = sizeof(pdpy_samples),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
	.slots = samples_slots,
};
