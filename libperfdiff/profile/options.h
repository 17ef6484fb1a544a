/*
 * A profile's options as the library keeps them: the caller's
 * pd_profile_options, the session options it points to and theirs of the
 * reader, each of any version the library reads, imported over the
 * defaults into structs of the current layout that point at one another.
 * The profile keeps one for all its runs; pd_report_write() reads the
 * options a profile was built with through one.  Part of the profile
 * stage's interface (docs/architecture.md).
 */
#ifndef PD_PROFILE_OPTIONS_H
#define PD_PROFILE_OPTIONS_H

#include "perfdiff/profile.h"

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

#endif
