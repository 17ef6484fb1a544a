/*
 * diff.c — perfdiff.Diff: two Profiles compared by pd_diff_new().
 *
 * The diff is made once, with the GIL released and both profiles locked
 * (in address order, so two threads diffing a against b and b against a
 * cannot deadlock); its rows and relations are then copied into Python
 * records, each row pointing at the same Relation record as the library's
 * row points at its relation.  The diff keeps both Profile objects alive:
 * it points into them (diff.h).  write() gives what `perfdiff diff`
 * prints in any of its formats, byte for byte.
 */
#include "pdpy.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pdpy_diff {
	PyObject_HEAD
	pdpy_state *st;              /* its module's */
	pd_diff *d;
	pdpy_phase phase;
	pdpy_profile *side[2];
	PyThread_type_lock lock;
	PyObject *rows, *relations;
	char *event;
} pdpy_diff;

/* Everything the diff holds, in the order it depends on it: the library's
 * diff points into both sides' profiles, so it goes before them.  Each
 * field is emptied before its object is let go (a side's last reference
 * may free a profile, and that lets the GIL go); the caller says what
 * phase the object is in. */
static void diff_release(pdpy_diff *self)
{
	/* joins no thread: freed with the GIL held, as fits a tp_clear */
	pd_diff_free(self->d);
	self->d = NULL;
	free(self->event);
	self->event = NULL;
	Py_CLEAR(self->rows);
	Py_CLEAR(self->relations);
	Py_CLEAR(self->side[0]);
	Py_CLEAR(self->side[1]);
}

static int diff_clear(pdpy_diff *self)
{
	self->phase = PDPY_EMPTY;
	diff_release(self);
	return 0;
}

/* The sides make `a.d = Diff(a, b)` a cycle: the collector must see them. */
static int diff_traverse(pdpy_diff *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self)); /* a heap type: the object holds it */
	Py_VISIT(self->side[0]);
	Py_VISIT(self->side[1]);
	Py_VISIT(self->rows);
	Py_VISIT(self->relations);
	return 0;
}

static void diff_dealloc(pdpy_diff *self)
{
	PyTypeObject *type = Py_TYPE(self);
	PyObject_GC_UnTrack(self);
	diff_release(self);
	if (self->lock)
		PyThread_free_lock(self->lock);
	type->tp_free((PyObject *)self);
	Py_DECREF(type);
}

static PyObject *diff_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	(void)args;
	(void)kw;
	pdpy_state *st = pdpy_state_of(type);
	pdpy_diff *self = st ? (pdpy_diff *)type->tp_alloc(type, 0) : NULL;
	if (!self)
		return NULL;
	self->st = st;
	if (!(self->lock = PyThread_allocate_lock())) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	return (PyObject *)self;
}

/* Both profiles' locks, in address order (one when they are the same). */
static void lock_sides(pdpy_diff *self, bool take)
{
	pdpy_profile *a = self->side[0], *b = self->side[1];
	if ((uintptr_t)a > (uintptr_t)b) {
		pdpy_profile *t = a;
		a = b, b = t;
	}
	if (take) {
		pdpy_lock(a->lock);
		if (b != a)
			pdpy_lock(b->lock);
	} else {
		if (b != a)
			PyThread_release_lock(b->lock);
		PyThread_release_lock(a->lock);
	}
}

/* ------------------------------------------------------------ records */

static PyObject *side_record(const pdpy_state *st, const pd_diff_side *s)
{
	PyObject *v[4] = { PyFloat_FromDouble(s->mean), PyFloat_FromDouble(s->stddev),
			   pdpy_double_tuple(s->runs, s->nruns), PyLong_FromSize_t(s->present) };
	return pdpy_struct(st, PDPY_SIDE, v, 4);
}

static PyObject *str_tuple(const char *const *s, size_t n)
{
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; t && i < n; i++) {
		PyObject *x = pdpy_str(s[i]);
		if (!x)
			Py_CLEAR(t);
		else
			PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
	}
	return t;
}

static PyObject *relation_record(const pdpy_state *st, const pd_diff_relation *r)
{
	const pd_diff_row *row = r->row;
	PyObject *v[17] = {
		pdpy_str(pd_diff_relation_kind_name(r->kind)), pdpy_str(r->base_symbol),
		pdpy_str(r->new_symbol), str_tuple(r->base_symbols, r->nbase_symbols),
		str_tuple(r->new_symbols, r->nnew_symbols), pdpy_str(r->base_parent),
		pdpy_str(r->new_parent), pdpy_str(r->dso), PyFloat_FromDouble(r->base_change),
		PyFloat_FromDouble(r->new_change), PyFloat_FromDouble(r->net),
		PyFloat_FromDouble(r->score), pdpy_str(r->evidence),
		PyBool_FromLong(row && row->significant),
		row ? PyFloat_FromDouble(row->p_value) : Py_NewRef(Py_None),
		row ? PyFloat_FromDouble(row->q_value) : Py_NewRef(Py_None),
		PyBool_FromLong(r->rows_significant),
	};
	return pdpy_struct(st, PDPY_RELATION, v, 17);
}

static PyObject *row_record(const pdpy_state *st, const pd_diff_row *r, PyObject *relation)
{
	PyObject *v[13] = {
		pdpy_str(pd_diff_metric_name(r->metric)), pdpy_str(r->key), pdpy_str(r->symbol),
		pdpy_str(r->dso), side_record(st, &r->base), side_record(st, &r->new),
		PyFloat_FromDouble(r->change), PyFloat_FromDouble(r->p_value),
		PyFloat_FromDouble(r->q_value), PyBool_FromLong(r->significant),
		Py_NewRef(relation ? relation : Py_None), PyBool_FromLong(r->tested),
		pdpy_str(r->process),
	};
	return pdpy_struct(st, PDPY_ROW, v, 13);
}

/* self->relations, and a map from each relation's address to its record. */
static PyObject *make_relations(pdpy_diff *self)
{
	PyObject *map = PyDict_New();
	size_t n = pd_diff_relation_count(self->d);
	self->relations = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; map && self->relations && i < n; i++) {
		const pd_diff_relation *r = pd_diff_relation_at(self->d, i);
		PyObject *rec = relation_record(self->st, r), *key = PyLong_FromVoidPtr((void *)r);
		if (!rec || !key || PyDict_SetItem(map, key, rec) < 0)
			Py_CLEAR(map);
		Py_XDECREF(key);
		if (rec)
			PyList_SET_ITEM(self->relations, (Py_ssize_t)i, rec);
	}
	return self->relations ? map : (Py_XDECREF(map), NULL);
}

static int make_records(pdpy_diff *self)
{
	PyObject *map = make_relations(self);
	if (!map)
		return -1;
	size_t n = pd_diff_row_count(self->d);
	self->rows = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; self->rows && i < n; i++) {
		const pd_diff_row *r = pd_diff_row_at(self->d, i);
		PyObject *rel = NULL, *key = r->relation ? PyLong_FromVoidPtr((void *)r->relation)
							 : NULL;
		if (key)
			rel = PyDict_GetItemWithError(map, key);
		Py_XDECREF(key);
		PyObject *rec = PyErr_Occurred() ? NULL : row_record(self->st, r, rel);
		if (!rec)
			Py_CLEAR(self->rows);
		else
			PyList_SET_ITEM(self->rows, (Py_ssize_t)i, rec);
	}
	Py_DECREF(map);
	return self->rows ? 0 : -1;
}

/* ------------------------------------------------------------ __init__ */

/* The InvalidArgumentError of an option value, in the command's words:
 * those the library checks raise it too. */
static int bad_value(const pdpy_state *st, const char *what, const char *value)
{
	pd_error err = { .code = PD_EINVAL, .offset = PD_NO_OFFSET };
	snprintf(err.message, sizeof err.message, "%s, not %s", what, value);
	pdpy_raise(st, &err, NULL);
	return -1;
}

/* v within [lo, hi], above lo when `open`, as `perfdiff diff` checks its
 * option. */
static int check_number(const pdpy_state *st, double v, double lo, double hi, bool open,
			const char *what)
{
	if (isfinite(v) && v >= lo && v <= hi && !(open && v == lo))
		return 0;
	char num[32];
	snprintf(num, sizeof num, "%g", v);
	return bad_value(st, what, num);
}

/* depth=, a number of frames (0: all), as the command checks --depth. */
static int parse_depth(const pdpy_state *st, PyObject *depth, unsigned *out)
{
	if (!depth)
		return 0;
	unsigned long long n = PyLong_AsUnsignedLongLong(depth);
	if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_OverflowError))
		return -1; /* not an int: its TypeError */
	if (!PyErr_Occurred() && n <= UINT_MAX) {
		*out = (unsigned)n;
		return 0;
	}
	PyErr_Clear();
	PyObject *r = PyObject_Repr(depth);
	const char *s = r ? PyUnicode_AsUTF8(r) : NULL;
	if (s)
		bad_value(st, "depth needs a number of frames (0: all)", s);
	Py_XDECREF(r);
	return -1;
}

/* The numbers of the options, as the command checks them; min_change
 * None keeps the library's "the mode's default" (a negative number). */
static int parse_numbers(const pdpy_state *st, pd_diff_options *o, PyObject *depth,
			 PyObject *minc)
{
	if (parse_depth(st, depth, &o->depth) < 0)
		return -1;
	if (minc && minc != Py_None &&
	    (((o->min_change = PyFloat_AsDouble(minc)) == -1.0 && PyErr_Occurred()) ||
	     check_number(st, o->min_change, 0, HUGE_VAL, false, "min_change needs a number >= 0") < 0))
		return -1;
	return check_number(st, o->fdr, 0, 1, true, "fdr needs a rate above 0 and at most 1") < 0 ||
	       check_number(st, o->rename_score, 0, 1, false,
			    "rename_score needs a score from 0 to 1") < 0 ||
	       check_number(st, o->cost_tolerance, 0, 1, false,
			    "cost_tolerance needs a number from 0 to 1") < 0 ? -1 : 0;
}

static int parse_diff_args(pdpy_diff *self, PyObject *args, PyObject *kw, pd_diff_options *o)
{
	static char *kws[] = { "base", "new", "event", "fdr", "min_change", "depth", "tree",
			       "align", "absolute", "lkp", "rename_score", "cost_tolerance",
			       NULL };
	PyTypeObject *profile_type = (PyTypeObject *)self->st->classes[PDPY_PROFILE];
	PyObject *base, *new_, *event = NULL, *minc = NULL, *depth = NULL;
	int tree = 0, align = 1, absolute = 0, lkp = 0;
	if (pdpy_options_init_rc(self->st, pd_diff_options_init(o, PD_DIFF_OPTIONS_VERSION),
				 "pd_diff_options") < 0)
		return -1;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|OdOOppppdd:Diff", kws,
					 profile_type, &base, profile_type, &new_,
					 &event, &o->fdr, &minc, &depth, &tree, &align,
					 &absolute, &lkp, &o->rename_score, &o->cost_tolerance) ||
	    parse_numbers(self->st, o, depth, minc) < 0)
		return -1;
	o->flags |= (tree ? PD_DIFF_TREE_ROWS : 0) | (align ? 0 : PD_DIFF_NO_ALIGN) |
		    (absolute ? PD_DIFF_ABSOLUTE : 0) | (lkp ? PD_DIFF_LKP_KEYS : 0);
	if (event && event != Py_None && !(self->event = pdpy_strdup(event)))
		return -1;
	o->event = self->event;
	self->side[0] = (pdpy_profile *)Py_NewRef(base);
	self->side[1] = (pdpy_profile *)Py_NewRef(new_);
	return pdpy_profile_ready(self->side[0]) < 0 || pdpy_profile_ready(self->side[1]) < 0
		       ? -1 : 0;
}

/* The library's diff of the two sides, with the GIL released and both
 * sides locked, then its rows and relations as Python records. */
static int diff_build(pdpy_diff *self, PyObject *args, PyObject *kw)
{
	pd_diff_options o;
	pd_error err;
	int rc;
	if (parse_diff_args(self, args, kw, &o) < 0)
		return -1;
	lock_sides(self, true);
	Py_BEGIN_ALLOW_THREADS
	rc = pd_diff_new(&self->d, self->side[0]->p, self->side[1]->p, &o, &err);
	Py_END_ALLOW_THREADS
	lock_sides(self, false);
	if (rc < 0) {
		pdpy_raise(self->st, &err, NULL);
		return -1;
	}
	return make_records(self);
}

/* BUSY while it runs (a failed or earlier __init__'s sides, event and
 * records released first), READY only once everything is made. */
static int diff_init(pdpy_diff *self, PyObject *args, PyObject *kw)
{
	if (pdpy_init_allowed(self->phase, "Diff") < 0)
		return -1;
	self->phase = PDPY_BUSY;
	diff_release(self);
	if (diff_build(self, args, kw) < 0) {
		diff_release(self);
		self->phase = PDPY_EMPTY; /* only now: the release may let the GIL go */
		return -1;
	}
	self->phase = PDPY_READY;
	return 0;
}

/* ------------------------------------------------------------ methods */

static int ready(pdpy_diff *self)
{
	return self->phase == PDPY_READY ? 0 : pdpy_not_ready("Diff");
}

static int parse_sort(const char *s, pd_diff_sort *out)
{
	static const char *const names[] = { "change", "abs-change", "name" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (pd_diff_sort)i;
			return 0;
		}
	PyErr_Format(PyExc_ValueError, "sort is change, abs-change or name, not '%s'", s);
	return -1;
}

static PyObject *diff_write(pdpy_diff *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "format", "all", "sort", "percent_limit", "color", NULL };
	const char *format = "text", *sort = "change";
	int all = 0, color = 0;
	pd_diff_write_options o;
	if (pdpy_options_init_rc(self->st, pd_diff_write_options_init(&o, PD_DIFF_WRITE_OPTIONS_VERSION),
				 "pd_diff_write_options") < 0)
		return NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|spsdp", kws, &format, &all, &sort,
					 &o.percent_limit, &color) ||
	    ready(self) < 0 || parse_sort(sort, &o.sort) < 0)
		return NULL;
	int f = pd_format_parse(format);
	if (f < 0)
		return PyErr_Format(PyExc_ValueError, "no format '%s'", format);
	o.format = (pd_format)f, o.all = all, o.color = color;
	pdpy_out out;
	pd_error err;
	int rc = pdpy_out_open(&out, &err);
	if (rc < 0)
		return pdpy_raise(self->st, &err, NULL);
	pdpy_lock(self->lock);
	lock_sides(self, true);
	Py_BEGIN_ALLOW_THREADS
	rc = pd_diff_write(out.w, self->d, &o, &err);
	Py_END_ALLOW_THREADS
	lock_sides(self, false);
	PyThread_release_lock(self->lock);
	return pdpy_out_finish(self->st, &out, rc, &err);
}

static PyObject *get_rows(pdpy_diff *self, void *unused)
{
	(void)unused;
	return ready(self) < 0 ? NULL : PyList_GetSlice(self->rows, 0, PY_SSIZE_T_MAX);
}

static PyObject *get_relations(pdpy_diff *self, void *unused)
{
	(void)unused;
	return ready(self) < 0 ? NULL : PyList_GetSlice(self->relations, 0, PY_SSIZE_T_MAX);
}

static PyObject *get_event(pdpy_diff *self, void *unused)
{
	(void)unused;
	return ready(self) < 0 ? NULL : pdpy_str(pd_diff_event(self->d));
}

static PyObject *get_test(pdpy_diff *self, void *unused)
{
	(void)unused;
	static const char *const names[] = { "moderated-t", "proportion", "blocks" };
	unsigned t = ready(self) < 0 ? 3 : (unsigned)pd_diff_test(self->d);
	return t < 3 ? pdpy_str(names[t]) : NULL;
}

static PyObject *get_sides(pdpy_diff *self, void *which)
{
	int s = which != NULL;
	return ready(self) < 0 ? NULL : Py_NewRef((PyObject *)self->side[s]);
}

static PyMethodDef diff_methods[] = {
	{ "write", (PyCFunction)(void (*)(void))diff_write, METH_VARARGS | METH_KEYWORDS,
	  "write(format='text', all=False, sort='change', percent_limit=0.0, color=False) -> "
	  "str: what `perfdiff diff --format=FORMAT` prints (text, json, csv, lkp, html, svg)" },
	{ 0 } };

static PyGetSetDef diff_getset[] = {
	{ "rows", (getter)get_rows, NULL, "every Row, in the robot's order", NULL },
	{ "relations", (getter)get_relations, NULL, "every explained shift (Relation)", NULL },
	{ "event", (getter)get_event, NULL, "the event compared, by the base's name", NULL },
	{ "test", (getter)get_test, NULL, "moderated-t, proportion or blocks", NULL },
	{ "base", (getter)get_sides, NULL, "the base Profile", NULL },
	{ "new", (getter)get_sides, NULL, "the new Profile", (void *)1 },
	{ 0 } };

static PyType_Slot diff_slots[] = {
	{ Py_tp_dealloc, (void *)diff_dealloc },
	{ Py_tp_traverse, (void *)diff_traverse },
	{ Py_tp_clear, (void *)diff_clear },
	{ Py_tp_doc, (void *)"Diff(base, new, **options): two Profiles compared." },
	{ Py_tp_methods, diff_methods },
	{ Py_tp_getset, diff_getset },
	{ Py_tp_init, (void *)diff_init },
	{ Py_tp_new, (void *)diff_new },
	{ 0, NULL } };

PyType_Spec pdpy_diff_spec = {
	.name = "perfdiff._perfdiff.Diff",
	.basicsize = sizeof(pdpy_diff),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = diff_slots,
};
