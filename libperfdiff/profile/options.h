/*
 * A profile's options as the library keeps them: the caller's
 * pd_profile_options, the session options it points to and theirs of the
 * reader, each of any version the library reads, imported over the
 * defaults into structs of the current layout that point at one another.
 * The profile keeps one for all its runs; pd_report_write() reads the
 * options a profile was built with through one, and takes the slot of
 * its chain builder from the profile's thread budget, and a pprof import
 * reads its caps in the reader options.  Part of the
 * profile stage's interface (docs/architecture.md).
 */
#ifndef PD_PROFILE_OPTIONS_H
#define PD_PROFILE_OPTIONS_H

#include "perfdiff/profile.h"
#include "util/threads.h"

/* o.session points at `session`, session.reader at `reader`: a copy must
 * not be moved once filled. */
typedef struct pd_profile_opts {
	pd_profile_options o;
	pd_session_options session;
	pd_reader_options reader;
} pd_profile_opts;

/* `src` (NULL: the defaults) and what it points to imported into `dst`.
 * Strings, filter arrays and the symbol cache stay the caller's.  0, or
 * PD_EINVAL for a version the library does not read, the message under
 * `file`. */
int pd_profile_opts_import(pd_profile_opts *dst, const pd_profile_options *src,
			   const char *file, pd_error *err);

/* The profile's thread budget (its session options' `threads`), shared by
 * its runs and by what reads it on threads of its own
 * (pd_report_write()'s chain builder). */
pd_threads *pd_profile_threads(const pd_profile *p);

/* The reader options the profile reads its inputs with (its session
 * options'), whose pprof caps an import of pprof keeps to. */
const pd_reader_options *pd_profile_reader_options(const pd_profile *p);

#endif
