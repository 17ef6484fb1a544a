/*
 * The public calls of perfdiff/pprof.h that encode or decode pprof:
 * writing to a FILE or to memory, reading a file or memory as a run.
 * The options and reading an input as what its content says it is are
 * in input.c, built without protobuf-c too.
 */
#include <errno.h>
#include <stdlib.h>

#include "handle.h"
#include "profile/options.h"

static int export_buf(pd_profile *p, const pd_pprof_write_options *uo, pd_buf *b,
		      pd_error *err)
{
	pd_pprof_write_options o;
	if (!p)
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET, "no profile given");
	if (pp_write_options_import(&o, uo, err) < 0)
		return PD_EINVAL;
	if (o.run != SIZE_MAX && o.run >= pd_profile_run_count(p))
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET,
				    "run %zu of a profile of %zu runs", o.run,
				    pd_profile_run_count(p));
	if (o.ncomments && !o.comments)
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET,
				    "comments counted but not given");
	return pp_export(p, &o, b, err);
}

int pd_profile_write_pprof(pd_profile *p, FILE *f, const pd_pprof_write_options *o,
			   pd_error *err)
{
	pd_buf b = { NULL, 0, 0 };
	if (!f)
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET, "no output given");
	int rc = export_buf(p, o, &b, err);
	if (rc == 0 && (fwrite(b.data, 1, b.len, f) != b.len || fflush(f) != 0))
		rc = pd_error_set(err, PD_EIO, "output", PD_NO_OFFSET, "%s", strerror(errno));
	pd_buf_free(&b);
	return rc;
}

int pd_profile_write_pprof_buffer(pd_profile *p, void **out, size_t *len,
				  const pd_pprof_write_options *o, pd_error *err)
{
	pd_buf b = { NULL, 0, 0 };
	if (!out || !len)
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET, "no output given");
	int rc = export_buf(p, o, &b, err);
	if (rc < 0) {
		pd_buf_free(&b);
		return rc;
	}
	*out = b.data;
	*len = b.len;
	return 0;
}

int pd_profile_add_pprof_buffer(pd_profile *p, const void *buf, size_t len, const char *name,
				pd_error *err)
{
	if (!name)
		name = "<pprof>";
	if (!p || (!buf && len))
		return pd_error_set(err, PD_EINVAL, name, PD_NO_OFFSET, "no profile or data given");
	/* the handle decodes, indexes and checks the message as dump and
	 * script see it; the import reads the same tables */
	pp_caps caps;
	pp_caps_of(&caps, pd_profile_reader_options(p));
	pd_pprof *pp;
	int rc = pp_open(&pp, buf, len, name, &caps, err);
	if (rc < 0)
		return rc;
	rc = pp_import(p, pp->m, &pp->ix, name, err);
	pd_pprof_free(pp);
	return rc;
}

int pd_profile_add_pprof(pd_profile *p, const char *path, pd_error *err)
{
	if (!path)
		return pd_error_set(err, PD_EINVAL, "<null>", PD_NO_OFFSET, "no path given");
	if (!p)
		return pd_error_set(err, PD_EINVAL, path, PD_NO_OFFSET, "no profile given");
	pp_caps caps;
	pp_caps_of(&caps, pd_profile_reader_options(p));
	char *data;
	size_t len;
	int rc = pp_read_file(path, caps.max_bytes, &data, &len, err);
	if (rc < 0)
		return rc;
	rc = pd_profile_add_pprof_buffer(p, data, len, path, err);
	free(data);
	return rc;
}
