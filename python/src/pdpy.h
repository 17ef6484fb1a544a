/*
 * pdpy.h — what the parts of the `perfdiff` Python extension share.
 *
 * The extension (`perfdiff._perfdiff`, wrapped by python/perfdiff/__init__.py)
 * is a client of libperfdiff's public C API and nothing else: it includes
 * only <perfdiff/perfdiff.h> and links the shared library, as any user's
 * program would.  One file per concern: module.c (types, exceptions,
 * warnings), options.c (keyword arguments into the library's options),
 * profile.c, diff.c, samples.c (the three Python types over sessions and
 * profiles), symcache.c (SymbolCache, the module's default one), out.c (a
 * pd_writer into a Python string).
 *
 * Python objects wrapping library handles carry a lock: the GIL is released
 * while the library reads, folds, diffs or writes, so the lock is what keeps
 * two Python threads from using one handle at once (the library's handles
 * are used by one thread at a time, profile.h and diff.h).  No Python code
 * runs under such a lock, since it may call back into the object.
 *
 * Nothing is global: the classes live in the module's state (pdpy_state),
 * which each object reaches through a pointer it keeps, so that every
 * interpreter importing the module has its own.
 */
#ifndef PDPY_H
#define PDPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <perfdiff/perfdiff.h>

/* The module's classes, made by its exec slot (module.c) into its state,
 * one set per module object (PEP 489), so that each interpreter that
 * imports it has its own and no class is shared between them. */
enum pdpy_class {
	/* records (struct sequences) */
	PDPY_RUN, PDPY_ENTRY, PDPY_CHAIN, PDPY_NODE, PDPY_FRAME, PDPY_SAMPLE,
	PDPY_SIDE, PDPY_ROW, PDPY_RELATION,
	/* the types wrapping library handles */
	PDPY_PROFILE, PDPY_DIFF, PDPY_SAMPLES, PDPY_SYMCACHE,
	PDPY_NCLASSES
};

typedef struct pdpy_state {
	PyObject *classes[PDPY_NCLASSES];   /* by pdpy_class */
	PyObject *errors[9];   /* [1]: perfdiff.Error; [2..8]: by -code (PD_EINVAL..) */
	PyObject *warnings[6]; /* by pd_warning_kind; [0]: PerfdiffWarning */
	PyObject *default_symcache;  /* the module's SymbolCache, NULL until used */
} pdpy_state;

/* The state of the module whose type `type` is or derives from.  An
 * object keeps this pointer: the object holds its type, the type its
 * module, so the state lives as long as the object. */
pdpy_state *pdpy_state_of(PyTypeObject *type);

/* The three types, as specs the module makes its heap types from. */
extern PyType_Spec pdpy_profile_spec, pdpy_diff_spec, pdpy_samples_spec, pdpy_symcache_spec;

/* A wrapped pd_symcache (symcache.c): thread-safe in the library, so no
 * lock; NULL `c` until __init__ ran. */
typedef struct pdpy_symcache {
	PyObject_HEAD
	pdpy_state *st;
	pd_symcache *c;
} pdpy_symcache;

/* The warnings the library hands its sink (pdpy_sink, the `warn` of the
 * options) while the GIL is released or an object's lock is held, kept
 * in C until pdpy_pending_emit() issues them: `warnings` runs Python code
 * (filters, showwarning) that may call back into the object. */
typedef struct pdpy_pending {
	size_t n, cap;
	pd_warning_kind *kind;
	char **msg;
	size_t dropped;              /* no memory to keep them */
} pdpy_pending;

/* Where an object's __init__ is.  Only a READY object is used; BUSY keeps
 * other threads off (and a second __init__ out) while __init__ runs
 * without the GIL, so that __init__ needs no lock and may call Python
 * code (a user's iterator, `warnings`).  Set and read under the GIL. */
typedef enum pdpy_phase { PDPY_EMPTY, PDPY_BUSY, PDPY_READY } pdpy_phase;

/* A wrapped pd_profile: immutable once built (its views are built lazily,
 * under `lock`). */
typedef struct pdpy_profile {
	PyObject_HEAD
	pdpy_state *st;              /* its module's */
	pd_profile *p;
	pdpy_phase phase;
	PyThread_type_lock lock;
	int ev;                      /* the default event, -1: none */
	struct pdpy_opts *opts;      /* what the profile was built with (owned) */
	pdpy_pending pending;        /* the input being read's warnings, until issued */
} pdpy_profile;

/* ---- module.c */

/* Raise the Error subclass of err->code, with `path` (may be NULL). */
void *pdpy_raise(const pdpy_state *st, const pd_error *err, const char *path);
/* `rc` of a pd_*_options_init() of the struct `what`: 0, or -1 with the
 * library's error raised when it refuses the options version the module
 * was built with (another build of libperfdiff under the same SONAME). */
int pdpy_options_init_rc(const pdpy_state *st, int rc, const char *what);
/* Issue a library warning of kind `kind` through `warnings`; -1 with an
 * exception set when a filter turned it into an error. */
int pdpy_warn(const pdpy_state *st, pd_warning_kind kind, const char *msg);

/* A pd_warn_fn for a pdpy_pending `ctx`: no Python, no GIL needed. */
void pdpy_sink(void *ctx, pd_warning_kind kind, const char *path, const char *msg);
/* Issue what `w` holds through `warnings`, in order, and empty it: 0, or
 * -1 with the exception of a filter that turned one into an error (the
 * rest dropped).  Call with the GIL and no object's lock. */
int pdpy_pending_emit(const pdpy_state *st, pdpy_pending *w);
void pdpy_pending_free(pdpy_pending *w);
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
/* A new record of class `cls` from the n values (references stolen;
 * any NULL: everything released, NULL returned). */
PyObject *pdpy_struct(const pdpy_state *st, enum pdpy_class cls, PyObject **values, int n);

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
	char **sources;              /* `symbols_from=`, in order */
	size_t nsources;
	PyObject *symbols;           /* the SymbolCache so.symcache is, or NULL */
} pdpy_opts;

/* Options from the keyword arguments the Profile and samples() share
 * (`profile`: also filters and profile flags); NULL with an exception. */
pdpy_opts *pdpy_opts_parse(pdpy_state *st, PyObject *kw, int profile);
/* With the GIL (it lets go of the SymbolCache): after the profile or
 * session using the options is freed. */
void pdpy_opts_free(pdpy_opts *o);

/* ---- symcache.c */

/* The SymbolCache `symbols=` names (None or absent: the module's own,
 * made on first use; False: none, *out NULL), a new reference; -1 with a
 * TypeError for anything else. */
int pdpy_symcache_arg(pdpy_state *st, PyObject *v, PyObject **out);
/* The module's own cache (borrowed), made on first use; NULL with an
 * exception. */
PyObject *pdpy_default_symcache(pdpy_state *st);

/* 0 when __init__ may run on an object in `phase` (EMPTY); else -1 with
 * a RuntimeError naming `type` ("made once", "running"). */
int pdpy_init_allowed(pdpy_phase phase, const char *type);
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
PyObject *pdpy_out_finish(const pdpy_state *st, pdpy_out *o, int rc, pd_error *err);

/* ---- profile.c */

/* 0, or -1 with an exception for a Profile whose __init__ did not run,
 * failed or is running. */
int pdpy_profile_ready(pdpy_profile *self);
/* The event argument (None: the profile's default, str: by name, int: an
 * index) as an index; -1 with an exception. */
int pdpy_profile_event(pdpy_profile *self, PyObject *event);

#endif
