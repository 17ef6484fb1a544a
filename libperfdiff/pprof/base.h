/*
 * The part of the pprof stage that needs neither protobuf-c nor zlib, and
 * so is built with PERFDIFF_PPROF=OFF too: telling pprof from perf.data
 * by content (detect.c), the export's options and the entry point that
 * takes either (input.c).  In such a build none.c stands for the rest:
 * every call that would decode or encode pprof fails with
 * PD_EUNSUPPORTED and says why, and a gzip input counts as pprof, since
 * nothing can look inside it.
 */
#ifndef PD_PPROF_BASE_H
#define PD_PPROF_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/pprof.h"
#include "util/util.h"

/* The refusal of a build without pprof, as an error's text. */
#define PP_UNSUPPORTED "this perfdiff was built without pprof support (PERFDIFF_PPROF=OFF)"

/* detect.c.  Whether `p` starts with gzip's magic. */
bool pp_is_gzip(const uint8_t *p, size_t n);
/* gzip.c.  The first bytes (at most `cap`) that the start of a gzip
 * stream, `n` bytes at `in`, inflates to, for a look at what it holds;
 * SIZE_MAX when they cannot be inflated (not gzip, bad data: the full
 * read says why; none.c: always). */
size_t pp_gunzip_head(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

/* input.c.  The caller's export options `src` (NULL: the defaults) over
 * PD_PPROF_WRITE_OPTIONS_INIT in `dst`: 0, or PD_EINVAL for a version
 * the library does not read. */
int pp_write_options_import(pd_pprof_write_options *dst, const pd_pprof_write_options *src,
			    pd_error *err);

#endif
