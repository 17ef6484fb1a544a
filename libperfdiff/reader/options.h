/*
 * The reader's options as later stages keep them: a caller's
 * pd_reader_options of any version the library reads, imported over the
 * defaults into a struct of the current layout (util/'s version rule).
 * The session copies its reader options with it, so that they need not
 * outlive the call that gave them.  Part of the reader stage's interface
 * (docs/architecture.md).
 */
#ifndef PD_READER_OPTIONS_H
#define PD_READER_OPTIONS_H

#include "perfdiff/reader.h"

/* `src` (NULL: the defaults) over PD_READER_OPTIONS_INIT in `dst`.
 * 0, or PD_EINVAL for a version the library does not read, the message
 * under `file`. */
int pd_reader_options_import(pd_reader_options *dst, const pd_reader_options *src,
			     const char *file, pd_error *err);

#endif
