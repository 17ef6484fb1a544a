/*
 * pdpy.h — what the parts of the `perfdiff` Python extension share.
 *
 * The extension (`perfdiff._perfdiff`, wrapped by python/perfdiff/__init__.py)
 * is a client of libperfdiff's public C API and nothing else: it includes
 * only <perfdiff/perfdiff.h> and links the shared library, as any user's
 * program would.  One file per concern: module.c (types, exceptions,
 * warnings), options.c (keyword arguments into the library's options),
 * profile.c, diff.c, samples.c (the three Python types), out.c (a
 * pd_writer into a Python string).
 *
 * Python objects wrapping library handles carry a lock: the GIL is released
 * while the library reads, folds, diffs or writes, so the lock is what keeps
 * two Python threads from using one handle at once (the library's handles
 * are used by one thread at a time, profile.h and diff.h).
 */
#ifndef PDPY_H
#define PDPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <perfdiff/perfdiff.h>

/* Types and exception classes, made once at import (module.c) and only
 * read afterwards. */
typedef struct pdpy_types {
	PyObject *error;             /* perfdiff.Error */
	PyObject *errors[9];         /* by -code (PD_EINVAL .. PD_ELIMIT) */
	PyObject *warning;           /* perfdiff.PerfdiffWarning */
	PyObject *warnings[6];       /* by pd_warning_kind */
	PyTypeObject *run, *entry, *chain, *node, *frame, *sample;
	PyTypeObject *side, *row, *relation;
} pdpy_types;

extern pdpy_types pdpy;
extern PyTypeObject pdpy_profile_type, pdpy_diff_type, pdpy_samples_type;

/* Where an object's __init__ is.  Only a READY object is used; BUSY keeps
 * other threads off (and a second __init__ out) while __init__ runs
 * without the GIL, so that __init__ needs no lock and may call Python
 * code (a user's iterator, `warnings`).  Set and read under the GIL. */
typedef enum pdpy_state { PDPY_EMPTY, PDPY_BUSY, PDPY_READY } pdpy_state;

/* A wrapped pd_profile: immutable once built (its views are built lazily,
 * under `lock`). */
typedef struct pdpy_profile {
	PyObject_HEAD
	pd_profile *p;
	pdpy_state state;
	PyThread_type_lock lock;
	int ev;                      /* the default event, -1: none */
	struct pdpy_opts *opts;      /* what the profile was built with (owned) */
} pdpy_profile;

/* ---- module.c */

/* Raise the Error subclass of err->code, with `path` (may be NULL). */
void *pdpy_raise(const pd_error *err, const char *path);
/* Issue a library warning of kind `kind` through `warnings`; -1 with an
 * exception set when a filter turned it into an error. */
int pdpy_warn(pd_warning_kind kind, const char *msg);
/* Take `lock`, letting other Python threads run while waiting. */
void pdpy_lock(PyThread_type_lock lock);
/* Text between Python and the library, one way for all of it.  The
 * library's text is bytes: paths, and names that come from the recorded
 * programs (symbols, comms, event names), in no promised encoding.  Every
 * such text is decoded as os.fsdecode() does and every text given to the
 * library (paths, filters, event names) encoded as os.fsencode() does,
 * so that anything handed out can be handed back and means the same
 * bytes, whatever they are. */
/* A str of s's bytes (NULL: None); of n bytes for pdpy_strn(). */
PyObject *pdpy_str(const char *s);
PyObject *pdpy_strn(const char *s, size_t n);
/* A malloc'd copy of str, bytes or os.PathLike `v`'s bytes; NULL with an
 * exception. */
char *pdpy_strdup(PyObject *v);
/* A tuple of n uint64s / doubles. */
PyObject *pdpy_u64_tuple(const uint64_t *v, size_t n);
PyObject *pdpy_double_tuple(const double *v, size_t n);
/* A new struct sequence of `type` from the n values (references stolen;
 * any NULL: everything released, NULL returned). */
PyObject *pdpy_struct(PyTypeObject *type, PyObject **values, int n);

/* ---- options.c */

/* The options of a profile or a session, and the memory they point to. */
typedef struct pdpy_opts {
	pd_profile_options po;
	pd_session_options so;
	char *strs[5];               /* symfs, kallsyms, buildid_dir, vmlinux, jit_dir */
	char **names[2];             /* comm, dso lists */
	size_t nnames[2];
	uint32_t *ids[3];            /* pid, tid, cpu lists */
	char *event;                 /* `event=`, or NULL */
} pdpy_opts;

/* Options from the keyword arguments the Profile and samples() share
 * (`profile`: also filters and profile flags); NULL with an exception. */
pdpy_opts *pdpy_opts_parse(PyObject *kw, int profile);
void pdpy_opts_free(pdpy_opts *o);

/* 0 when __init__ may run on an object in `state` (EMPTY); else -1 with
 * a RuntimeError naming `type` ("made once", "running"). */
int pdpy_init_allowed(pdpy_state state, const char *type);
/* The RuntimeError of a method called on an object that is not READY. */
int pdpy_not_ready(const char *type);

/* ---- out.c */

/* A writer collecting its bytes in memory. */
typedef struct pdpy_out {
	pd_writer *w;
	char *buf;
	size_t len, cap;
} pdpy_out;

int pdpy_out_open(pdpy_out *o, pd_error *err);
/* Flush, and the bytes as a str (NULL with an exception); frees `o`. */
PyObject *pdpy_out_finish(pdpy_out *o, int rc, pd_error *err);

/* ---- profile.c */

/* 0, or -1 with an exception for a Profile whose __init__ did not run,
 * failed or is running. */
int pdpy_profile_ready(pdpy_profile *self);
/* The event argument (None: the profile's default, str: by name, int: an
 * index) as an index; -1 with an exception. */
int pdpy_profile_event(pdpy_profile *self, PyObject *event);

#endif
