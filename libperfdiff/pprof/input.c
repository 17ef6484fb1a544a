/*
 * The pprof export's options, and reading an input as what its content
 * says it is (detect.c tells), so that every command that takes a
 * recording takes either.  Built with or without pprof support
 * (PERFDIFF_PPROF): without it, a pprof input is told apart all the same
 * and refused by none.c with a clear error instead of being misread as
 * a broken perf.data file.
 */
#include "base.h"

static const size_t write_sizes[] = {
	0, PD_OPTIONS_END(pd_pprof_write_options, ncomments),
};

int pd_pprof_write_options_init(pd_pprof_write_options *o, unsigned version)
{
	const pd_pprof_write_options d = PD_PPROF_WRITE_OPTIONS_INIT;
	return pd_options_init(o, version, &d, write_sizes, PD_PPROF_WRITE_OPTIONS_VERSION);
}

int pp_write_options_import(pd_pprof_write_options *dst, const pd_pprof_write_options *src,
			    pd_error *err)
{
	*dst = PD_PPROF_WRITE_OPTIONS_INIT;
	if (!src)
		return 0;
	return pd_options_import(dst, src, write_sizes, PD_PPROF_WRITE_OPTIONS_VERSION,
				 "pd_pprof_write_options", "pprof", err);
}

int pd_profile_add_input(pd_profile *p, const char *path, pd_error *err)
{
	pd_input_kind kind;
	int rc = pd_input_detect(path, &kind, err);
	if (rc < 0)
		return rc;
	return kind == PD_INPUT_PPROF ? pd_profile_add_pprof(p, path, err)
				      : pd_profile_add_file(p, path, err);
}
