/*
 * symcache.c — perfdiff.SymbolCache: a pd_symcache profiles share.
 *
 * A script reading many recordings of one machine, or a Dask worker
 * folding one after another, would otherwise read the kernel's table and
 * every binary's symbols and DWARF again for each (perfdiff/symcache.h).
 * Profile(..., symbols=cache) and samples(..., symbols=cache) hand the
 * cache to the library; without `symbols=`, the module's own cache serves
 * them (one per module object, so per interpreter: made on first use and
 * kept in the module's state, default_symbol_cache()), and
 * `symbols=False` reads without one.  The library's cache is thread-safe:
 * the object needs no lock.  Whoever uses a cache keeps a reference to the
 * object, so that it outlives the library's sessions that point into it.
 */
#include "pdpy.h"

static void symcache_dealloc(pdpy_symcache *self)
{
	PyTypeObject *type = Py_TYPE(self);
	PyObject_GC_UnTrack(self);
	pd_symcache *c = self->c;
	self->c = NULL;
	if (c) {   /* dropping DWARF may take a while: without the GIL */
		Py_BEGIN_ALLOW_THREADS
		pd_symcache_free(c);
		Py_END_ALLOW_THREADS
	}
	type->tp_free((PyObject *)self);
	Py_DECREF(type);
}

static int symcache_traverse(pdpy_symcache *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self));
	return 0;
}

/* `max_bytes` (None: the library's default, 0: no limit) into a new
 * pd_symcache; -1 with an exception. */
static int symcache_make(pdpy_symcache *self, PyObject *max_bytes)
{
	pd_symcache_options o;
	if (pdpy_options_init_rc(self->st, pd_symcache_options_init(&o, PD_SYMCACHE_OPTIONS_VERSION),
				 "pd_symcache_options") < 0)
		return -1;
	if (max_bytes && max_bytes != Py_None) {
		size_t n = PyLong_AsSize_t(max_bytes);
		if (n == (size_t)-1 && PyErr_Occurred()) {
			if (PyErr_ExceptionMatches(PyExc_OverflowError))
				PyErr_SetString(PyExc_ValueError,
						"max_bytes is a number of bytes, 0 or more");
			return -1;
		}
		o.max_bytes = n;
	}
	pd_error err;
	if (pd_symcache_new_opts(&self->c, &o, &err) < 0) {
		pdpy_raise(self->st, &err, NULL);
		return -1;
	}
	return 0;
}

static int symcache_init(pdpy_symcache *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "max_bytes", NULL };
	PyObject *max_bytes = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:SymbolCache", kws, &max_bytes))
		return -1;
	if (self->c) {
		PyErr_SetString(PyExc_RuntimeError, "a SymbolCache is made once: make a new one");
		return -1;
	}
	return symcache_make(self, max_bytes);
}

static PyObject *symcache_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	(void)args;
	(void)kw;
	pdpy_state *st = pdpy_state_of(type);
	pdpy_symcache *self = st ? (pdpy_symcache *)type->tp_alloc(type, 0) : NULL;
	if (self)
		self->st = st;
	return (PyObject *)self;
}

static PyObject *symcache_stats(pdpy_symcache *self, PyObject *unused)
{
	(void)unused;
	pd_symcache_stats s;
	if (!self->c)
		return PyErr_Format(PyExc_RuntimeError, "this SymbolCache's __init__ did not run");
	if (pd_symcache_stats_get(self->c, &s, PD_SYMCACHE_STATS_VERSION) < 0) {
		pd_error err = { .code = PD_EINVAL, .offset = PD_NO_OFFSET };
		snprintf(err.message, sizeof err.message,
			 "this libperfdiff refuses the pd_symcache_stats of this module");
		return pdpy_raise(self->st, &err, NULL);
	}
	return Py_BuildValue("{snsnsnsKsKsKsnsn}", "kernel_tables", (Py_ssize_t)s.kernel_tables,
			     "dsos", (Py_ssize_t)s.dsos, "failed", (Py_ssize_t)s.failed,
			     "hits", (unsigned long long)s.hits, "misses",
			     (unsigned long long)s.misses, "evictions",
			     (unsigned long long)s.evictions, "bytes", (Py_ssize_t)s.bytes,
			     "max_bytes", (Py_ssize_t)s.max_bytes);
}

static PyMethodDef symcache_methods[] = {
	{ "stats", (PyCFunction)symcache_stats, METH_NOARGS,
	  "stats() -> {kernel_tables, dsos, failed, hits, misses, evictions, bytes, "
	  "max_bytes}: what the cache holds and how it has served" },
	{ 0 } };

static PyType_Slot symcache_slots[] = {
	{ Py_tp_dealloc, (void *)symcache_dealloc },
	{ Py_tp_traverse, (void *)symcache_traverse },
	{ Py_tp_doc, (void *)"SymbolCache(max_bytes=None): kernel tables and binaries' symbols "
			     "and DWARF, read once for every Profile given it (symbols=)." },
	{ Py_tp_methods, symcache_methods },
	{ Py_tp_init, (void *)symcache_init },
	{ Py_tp_new, (void *)symcache_new },
	{ 0, NULL } };

PyType_Spec pdpy_symcache_spec = {
	.name = "perfdiff._perfdiff.SymbolCache",
	.basicsize = sizeof(pdpy_symcache),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.slots = symcache_slots,
};

/* The module's own cache, made on first use. */
PyObject *pdpy_default_symcache(pdpy_state *st)
{
	if (st->default_symcache)
		return st->default_symcache;
	PyTypeObject *type = (PyTypeObject *)st->classes[PDPY_SYMCACHE];
	pdpy_symcache *c = (pdpy_symcache *)type->tp_alloc(type, 0);
	if (!c)
		return NULL;
	c->st = st;
	if (symcache_make(c, NULL) < 0) {
		Py_DECREF(c);
		return NULL;
	}
	st->default_symcache = (PyObject *)c;
	return st->default_symcache;
}

int pdpy_symcache_arg(pdpy_state *st, PyObject *v, PyObject **out)
{
	*out = NULL;
	if (!v || v == Py_None)
		v = pdpy_default_symcache(st);
	else if (v == Py_False)
		return 0;
	if (!v)
		return -1;
	if (!PyObject_TypeCheck(v, (PyTypeObject *)st->classes[PDPY_SYMCACHE]) ||
	    !((pdpy_symcache *)v)->c) {
		PyErr_Format(PyExc_TypeError,
			     "symbols is a perfdiff.SymbolCache, None (the module's) or False "
			     "(none), not %R", v);
		return -1;
	}
	*out = Py_NewRef(v);
	return 0;
}
