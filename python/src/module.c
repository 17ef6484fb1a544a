/*
 * module.c — the `perfdiff._perfdiff` module: its record types, its
 * exceptions and warnings, and the small conversions every part uses.
 *
 * Records (runs, rows, tree nodes, samples, diff rows and relations) are
 * struct sequences, the C API's named tuples (as os.stat_result): fields by
 * name or by index, cheap to make by the thousand.  Errors of the library
 * (pd_error: code, byte offset, message naming the file) become one
 * exception class per code under perfdiff.Error, carrying those three and
 * the path; warnings of the library (pd_warning_kind) go through Python's
 * `warnings`, one category per kind, so that a script filters them as it
 * filters any other.
 *
 * The module is initialised in phases (PEP 489): PyInit__perfdiff() only
 * returns its definition, and its exec slot makes every class -- heap
 * types, records and exceptions alike -- into the module's state, so
 * that each interpreter importing it (a subinterpreter too) gets its own
 * and nothing is global.
 */
#include "pdpy.h"

#define F(n, d) { n, d }
static PyStructSequence_Field run_fields[] = {
	F("path", "the file (or name) the run was read from"),
	F("samples_read", "SAMPLE records read, every event, before filters"),
	F("lost", "samples the kernel reported lost while recording"),
	F("truncated", "the input was cut short or ended in garbage"),
	F("span", "recording span in ns (0: unknown)"),
	F("perf_version", "perf's version from the header, or None"),
	F("hostname", "the recording machine's name, or None"),
	F("cmdline", "perf's command line, or None"),
	{ 0 } };
static PyStructSequence_Field entry_fields[] = {
	F("symbol", "canonical name (an address for an unresolved frame)"),
	F("dso", "the dso's path, \"[kernel.kallsyms]\", ..."),
	F("kernel", "kernel code"), F("inlined", "an inline frame"),
	F("unresolved", "no symbol"),
	F("children", "period of samples whose chain contains it"),
	F("self", "period of samples whose leaf it is"),
	F("children_pct", "children as % of the event's total"),
	F("self_pct", "self as % of the event's total"),
	F("children_runs", "children per run"), F("self_runs", "self per run"),
	{ 0 } };
static PyStructSequence_Field chain_fields[] = {
	F("path", "frames from the entry out to its callers (callee order)"),
	F("dso", "dso of the outermost frame of the path"),
	F("total", "period of the chains through this path"),
	F("self", "period of the chains that end here"),
	F("total_pct", "total as % of the event's total"),
	{ 0 } };
static PyStructSequence_Field node_fields[] = {
	F("id", "position in tree()"), F("parent", "id of the caller, None for the root"),
	F("symbol", "name, None for the root"), F("dso", "dso, None for the root"),
	F("unit", "source file of its compilation unit, or None"),
	F("kernel", "kernel code"), F("inlined", "an inline frame"),
	F("unresolved", "no symbol"), F("depth", "0 for the root"),
	F("self", "period of samples whose chain ends here"),
	F("total", "period of samples through here (inclusive)"),
	F("self_runs", "self per run"), F("total_runs", "total per run"),
	{ 0 } };
static PyStructSequence_Field frame_fields[] = {
	F("addr", "address as recorded"), F("dso_addr", "address within its dso"),
	F("symbol", "demangled name, or None"), F("raw_symbol", "name as in the file"),
	F("offset", "address minus symbol start"), F("dso", "dso"),
	F("inlined", "an inline frame"), F("srcfile", "source file, or None"),
	F("line", "source line, or None"), F("unit", "compilation unit's file, or None"),
	{ 0 } };
static PyStructSequence_Field sample_fields[] = {
	F("comm", "thread name"), F("pid", "process"), F("tid", "thread"),
	F("cpu", "CPU, or None"), F("time", "ns"), F("period", "period"),
	F("event", "event name"), F("frames", "tuple of Frame, leaf first"),
	{ 0 } };
static PyStructSequence_Field side_fields[] = {
	F("mean", "mean over runs"), F("stddev", "population standard deviation"),
	F("runs", "the value of each run"), F("present", "runs in which the key occurs"),
	{ 0 } };
static PyStructSequence_Field row_fields[] = {
	F("metric", "calltrace, children, self, tree or shift"), F("key", "the row's key"),
	F("symbol", "symbol (innermost frame)"), F("dso", "its dso, or None"),
	F("base", "Side of the base"), F("new", "Side of the new profile"),
	F("change", "new mean - base mean (points; % with absolute)"),
	F("p_value", "p-value"), F("q_value", "Benjamini-Hochberg q-value"),
	F("significant", "significant (the shift's, for a row a shift explains)"),
	F("relation", "the Relation explaining it, or None"),
	F("tested", "in the family of the FDR correction: it can reach min_change"),
	F("process", "the command with most of its cost, or None"),
	{ 0 } };
static PyStructSequence_Field relation_fields[] = {
	F("kind", "renamed, inlined, outlined, split, merged or moved"),
	F("base_symbol", "first base symbol"), F("new_symbol", "first new symbol"),
	F("base_symbols", "every base symbol"), F("new_symbols", "every new symbol"),
	F("base_parent", "aligned caller in the base, None: the root"),
	F("new_parent", "aligned caller in the new tree"), F("dso", "dso of the base side"),
	F("base_change", "change of the base symbols' children rows"),
	F("new_change", "change of the new symbols' children rows"),
	F("net", "change left once the cost is carried across"),
	F("score", "evidence, 0..1"), F("evidence", "what made the pair, in words"),
	F("significant", "the net change is significant"),
	F("p_value", "the shift row's p-value"), F("q_value", "the shift row's q-value"),
	F("rows_significant", "some row it explains changed significantly"),
	{ 0 } };

static PyObject *new_record(PyObject *m, const char *name, const char *doc,
			    PyStructSequence_Field *fields)
{
	int n = 0;
	while (fields[n].name)
		n++;
	PyStructSequence_Desc d = { name, doc, fields, n };
	PyTypeObject *t = PyStructSequence_NewType(&d);
	if (!t)
		return NULL;
	const char *dot = strrchr(name, '.');
	if (PyModule_AddObjectRef(m, dot ? dot + 1 : name, (PyObject *)t) < 0) {
		Py_DECREF(t);
		return NULL;
	}
	return (PyObject *)t;
}

static const struct record {
	const char *name, *doc;
	PyStructSequence_Field *fields;
} records[PDPY_PROFILE] = {
	[PDPY_RUN] = { "perfdiff.Run", "One input file of a Profile.", run_fields },
	[PDPY_ENTRY] = { "perfdiff.Entry", "A symbol's children and self (Profile.rows).",
			 entry_fields },
	[PDPY_CHAIN] = { "perfdiff.Chain",
			 "A caller path under a symbol (Profile.rows('calltrace')).", chain_fields },
	[PDPY_NODE] = { "perfdiff.Node", "A node of the calling-context tree (Profile.tree).",
			node_fields },
	[PDPY_FRAME] = { "perfdiff.Frame", "A frame of a Sample.", frame_fields },
	[PDPY_SAMPLE] = { "perfdiff.Sample", "A symbolized sample (perfdiff.samples).",
			  sample_fields },
	[PDPY_SIDE] = { "perfdiff.Side", "One side of a diff row.", side_fields },
	[PDPY_ROW] = { "perfdiff.Row", "A row of a Diff.", row_fields },
	[PDPY_RELATION] = { "perfdiff.Relation", "An explained shift of a Diff.",
			    relation_fields },
};

static int add_records(PyObject *m, pdpy_state *st)
{
	for (int i = 0; i < PDPY_PROFILE; i++)
		if (!(st->classes[i] = new_record(m, records[i].name, records[i].doc,
						  records[i].fields)))
			return -1;
	return 0;
}

/* ------------------------------------------------------------ exceptions */

static const char *const error_names[9] = {
	NULL, NULL, "InvalidArgumentError", "OutOfMemoryError", "ReadError",
	"NotPerfDataError", "UnsupportedError", "CorruptError", "LimitError",
};

static int add_class(PyObject *m, const char *name, PyObject *base, const char *doc,
		     PyObject **out)
{
	char full[64];
	snprintf(full, sizeof full, "perfdiff.%s", name);
	*out = PyErr_NewExceptionWithDoc(full, doc, base, NULL);
	return *out ? PyModule_AddObjectRef(m, name, *out) : -1;
}

static int add_errors(PyObject *m, pdpy_state *st)
{
	if (add_class(m, "Error", NULL,
		      "An error of libperfdiff: .code (a negative PD_E* number), .code_name, "
		      ".offset (byte offset in the file, or None), .path and .message.",
		      &st->errors[1]) < 0)
		return -1;
	for (int i = 2; i < 9; i++)
		if (add_class(m, error_names[i], st->errors[1], pd_error_code_str(-i),
			      &st->errors[i]) < 0)
			return -1;
	return 0;
}

static const char *const warning_names[6] = {
	"PerfdiffWarning", "DataLostWarning", "MetadataWarning", "UnverifiedWarning",
	"NotFoundWarning", "MismatchWarning",
};
/* common.h's pd_warning_kind, in words */
static const char *const warning_docs[6] = {
	"A warning of libperfdiff (its kind: the subclass).",
	"The input is incomplete: cut short, ending in garbage, or never finished by perf.",
	"A header section that is there was skipped (malformed, above a cap).",
	"A file was used without a build-id check: the recording has no build-id for it.",
	"A file (binary, kallsyms, JIT map) was not found or cannot be read.",
	"The file found is another build than the one recorded.",
};

static int add_warnings(PyObject *m, pdpy_state *st)
{
	if (add_class(m, warning_names[0], PyExc_UserWarning, warning_docs[0],
		      &st->warnings[0]) < 0)
		return -1;
	for (int i = 1; i < 6; i++)
		if (add_class(m, warning_names[i], st->warnings[0], warning_docs[i],
			      &st->warnings[i]) < 0)
			return -1;
	return 0;
}

static int set_attr(PyObject *o, const char *name, PyObject *v)
{
	if (!v)
		return -1;
	int rc = PyObject_SetAttrString(o, name, v);
	Py_DECREF(v);
	return rc;
}

void *pdpy_raise(const pdpy_state *st, const pd_error *err, const char *path)
{
	int code = err->code < 0 && err->code >= -8 ? err->code : PD_EINVAL;
	PyObject *cls = st->errors[code <= -2 ? -code : 1];
	PyObject *msg = pdpy_str(err->message), *e = NULL;
	if (msg)
		e = PyObject_CallOneArg(cls, msg);
	Py_XDECREF(msg);
	if (!e)
		return NULL;
	if (set_attr(e, "code", PyLong_FromLong(err->code)) == 0 &&
	    set_attr(e, "code_name", pdpy_str(pd_error_code_str(err->code))) == 0 &&
	    set_attr(e, "offset", err->offset == PD_NO_OFFSET ? Py_NewRef(Py_None)
			     : PyLong_FromUnsignedLongLong(err->offset)) == 0 &&
	    set_attr(e, "path", pdpy_str(path)) == 0 &&
	    set_attr(e, "message", pdpy_str(err->message)) == 0)
		PyErr_SetObject(cls, e);
	Py_DECREF(e);
	return NULL;
}

int pdpy_options_init_rc(const pdpy_state *st, int rc, const char *what)
{
	if (rc >= 0)
		return 0;
	pd_error err = { .code = rc, .offset = PD_NO_OFFSET };
	snprintf(err.message, sizeof err.message,
		 "this libperfdiff refuses the %s of this module, built with another one", what);
	pdpy_raise(st, &err, NULL);
	return -1;
}

/* Not PyErr_WarnEx(), which decodes its text as strict UTF-8 and so
 * fails on a message naming a file whose name is not UTF-8. */
int pdpy_warn(const pdpy_state *st, pd_warning_kind kind, const char *msg)
{
	PyObject *cat = st->warnings[(unsigned)kind < 6 ? kind : 0];
	PyObject *text = pdpy_str(msg);
	if (!text)
		return -1;
	int rc = PyErr_WarnFormat(cat, 1, "%U", text);
	Py_DECREF(text);
	return rc;
}

void pdpy_sink(void *ctx, pd_warning_kind kind, const char *path, const char *msg)
{
	(void)path; /* the library's text names the file already */
	pdpy_pending *w = ctx;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		pd_warning_kind *k = realloc(w->kind, cap * sizeof *k);
		if (k)
			w->kind = k;
		char **m = k ? realloc(w->msg, cap * sizeof *m) : NULL;
		if (!m) {
			w->dropped++;
			return;
		}
		w->msg = m;
		w->cap = cap;
	}
	if (!(w->msg[w->n] = strdup(msg))) {
		w->dropped++;
		return;
	}
	w->kind[w->n++] = kind;
}

void pdpy_pending_free(pdpy_pending *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->msg[i]);
	free(w->msg);
	free(w->kind);
	memset(w, 0, sizeof *w);
}

int pdpy_pending_emit(const pdpy_state *st, pdpy_pending *w)
{
	/* taken out first: a filter's Python code may read into the object
	 * again, and with it into `w` */
	pdpy_pending mine = *w;
	memset(w, 0, sizeof *w);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < mine.n; i++)
		rc = pdpy_warn(st, mine.kind[i], mine.msg[i]);
	pdpy_pending_free(&mine);
	return rc;
}

/* ------------------------------------------------------------ helpers */

void pdpy_lock(PyThread_type_lock lock)
{
	if (PyThread_acquire_lock(lock, NOWAIT_LOCK))
		return;
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(lock, WAIT_LOCK);
	Py_END_ALLOW_THREADS
}

PyObject *pdpy_strn(const char *s, size_t n)
{
	return PyUnicode_DecodeFSDefaultAndSize(s, (Py_ssize_t)n);
}

PyObject *pdpy_str(const char *s)
{
	return s ? pdpy_strn(s, strlen(s)) : Py_NewRef(Py_None);
}

char *pdpy_strdup(PyObject *v)
{
	PyObject *b = NULL;
	if (!PyUnicode_FSConverter(v, &b))
		return NULL;
	char *s = strdup(PyBytes_AS_STRING(b));
	Py_DECREF(b);
	if (!s)
		PyErr_NoMemory();
	return s;
}

PyObject *pdpy_u64_tuple(const uint64_t *v, size_t n)
{
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; t && i < n; i++) {
		PyObject *x = PyLong_FromUnsignedLongLong(v ? v[i] : 0);
		if (!x) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
	}
	return t;
}

PyObject *pdpy_double_tuple(const double *v, size_t n)
{
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; t && i < n; i++) {
		PyObject *x = PyFloat_FromDouble(v[i]);
		if (!x) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
	}
	return t;
}

PyObject *pdpy_struct(const pdpy_state *st, enum pdpy_class cls, PyObject **values, int n)
{
	PyTypeObject *type = (PyTypeObject *)st->classes[cls];
	PyObject *s = NULL;
	int ok = 1;
	for (int i = 0; i < n; i++)
		ok &= values[i] != NULL;
	if (ok)
		s = PyStructSequence_New(type);
	for (int i = 0; i < n; i++) {
		if (s)
			PyStructSequence_SET_ITEM(s, i, values[i]);
		else
			Py_XDECREF(values[i]);
	}
	return s;
}

int pdpy_init_allowed(pdpy_phase phase, const char *type)
{
	if (phase == PDPY_EMPTY)
		return 0;
	PyErr_Format(PyExc_RuntimeError,
		     phase == PDPY_READY ? "a %s is made once: make a new one"
					 : "this %s's __init__ is running in another thread",
		     type);
	return -1;
}

int pdpy_not_ready(const char *type)
{
	PyErr_Format(PyExc_RuntimeError,
		     "this %s is not ready: its __init__ was not called, failed, or is running",
		     type);
	return -1;
}

/* ------------------------------------------------------------ module */

PyObject *pdpy_samples_open(PyObject *mod, PyObject *args, PyObject *kw);

static PyObject *version(PyObject *mod, PyObject *unused)
{
	(void)mod;
	(void)unused;
	return pdpy_str(pd_version());
}

static PyObject *default_symcache(PyObject *mod, PyObject *unused)
{
	(void)unused;
	return Py_XNewRef(pdpy_default_symcache(PyModule_GetState(mod)));
}

static PyMethodDef methods[] = {
	{ "default_symbol_cache", default_symcache, METH_NOARGS,
	  "default_symbol_cache() -> SymbolCache: the one Profile and samples() use without "
	  "symbols=, made on first use and kept while the module lives" },
	{ "samples", (PyCFunction)(void (*)(void))pdpy_samples_open, METH_VARARGS | METH_KEYWORDS,
	  "samples(path, event=None, **options) -> iterator of Sample" },
	{ "library_version", version, METH_NOARGS, "The linked libperfdiff's version." },
	{ 0 } };

static int module_exec(PyObject *m);

/* Every reference the state holds, for the collector. */
static int module_traverse(PyObject *m, visitproc visit, void *arg)
{
	pdpy_state *st = PyModule_GetState(m);
	for (int i = 0; st && i < PDPY_NCLASSES; i++)
		Py_VISIT(st->classes[i]);
	for (int i = 0; st && i < 9; i++)
		Py_VISIT(st->errors[i]);
	for (int i = 0; st && i < 6; i++)
		Py_VISIT(st->warnings[i]);
	if (st)
		Py_VISIT(st->default_symcache);
	return 0;
}

static int module_clear(PyObject *m)
{
	pdpy_state *st = PyModule_GetState(m);
	for (int i = 0; st && i < PDPY_NCLASSES; i++)
		Py_CLEAR(st->classes[i]);
	for (int i = 0; st && i < 9; i++)
		Py_CLEAR(st->errors[i]);
	for (int i = 0; st && i < 6; i++)
		Py_CLEAR(st->warnings[i]);
	if (st)
		Py_CLEAR(st->default_symcache);
	return 0;
}

static void module_free(void *m)
{
	module_clear(m);
}

static PyModuleDef_Slot slots[] = {
	{ Py_mod_exec, (void *)module_exec },
	{ 0, NULL } };

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "perfdiff._perfdiff",
	"libperfdiff's public C API for Python; import `perfdiff`, not this.",
	sizeof(pdpy_state), methods, slots, module_traverse, module_clear, module_free,
};

pdpy_state *pdpy_state_of(PyTypeObject *type)
{
	PyObject *m = PyType_GetModuleByDef(type, &moddef);
	return m ? PyModule_GetState(m) : NULL;
}

/* A heap type of the module from `spec`, into the state and the module. */
static int add_type(PyObject *m, PyType_Spec *spec, PyObject **out)
{
	*out = PyType_FromModuleAndSpec(m, spec, NULL);
	return *out ? PyModule_AddType(m, (PyTypeObject *)*out) : -1;
}

static int module_exec(PyObject *m)
{
	pdpy_state *st = PyModule_GetState(m);
	return add_records(m, st) < 0 || add_errors(m, st) < 0 || add_warnings(m, st) < 0 ||
	       add_type(m, &pdpy_profile_spec, &st->classes[PDPY_PROFILE]) < 0 ||
	       add_type(m, &pdpy_diff_spec, &st->classes[PDPY_DIFF]) < 0 ||
	       add_type(m, &pdpy_samples_spec, &st->classes[PDPY_SAMPLES]) < 0 ||
	       add_type(m, &pdpy_symcache_spec, &st->classes[PDPY_SYMCACHE]) < 0
		       ? -1 : 0;
}

PyMODINIT_FUNC PyInit__perfdiff(void)
{
	return PyModuleDef_Init(&moddef);
}
