/*
 * A library built without pprof support (PERFDIFF_PPROF=OFF, so without
 * protobuf-c and zlib): the calls of perfdiff/pprof.h that would encode or
 * decode pprof are still there, so that a program links against any
 * build, and fail with PD_EUNSUPPORTED and a message that says why,
 * naming the input.  No pd_pprof handle can be opened, so its accessors
 * answer as for an empty one.  detect.c and input.c are built either way:
 * a pprof input is recognised, and refused here rather than misread as a
 * broken perf.data file.
 */
#include "base.h"

/* PD_EUNSUPPORTED about `name`. */
static int refuse(const char *name, pd_error *err)
{
	return pd_error_set(err, PD_EUNSUPPORTED, name ? name : "pprof", PD_NO_OFFSET,
			    "%s", PP_UNSUPPORTED);
}

size_t pp_gunzip_head(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	(void)in, (void)n, (void)out, (void)cap;
	return SIZE_MAX; /* no zlib: gzip may be pprof, and is taken for it */
}

int pd_profile_write_pprof(pd_profile *p, FILE *f, const pd_pprof_write_options *o,
			   pd_error *err)
{
	(void)p, (void)f, (void)o;
	return refuse("pprof", err);
}

int pd_profile_write_pprof_buffer(pd_profile *p, void **out, size_t *len,
				  const pd_pprof_write_options *o, pd_error *err)
{
	(void)p, (void)out, (void)len, (void)o;
	return refuse("pprof", err);
}

int pd_profile_add_pprof(pd_profile *p, const char *path, pd_error *err)
{
	(void)p;
	return refuse(path, err);
}

int pd_profile_add_pprof_buffer(pd_profile *p, const void *buf, size_t len, const char *name,
				pd_error *err)
{
	(void)p, (void)buf, (void)len;
	return refuse(name ? name : "<pprof>", err);
}

int pd_pprof_open(pd_pprof **out, const char *path, pd_error *err)
{
	if (out)
		*out = NULL;
	return refuse(path, err);
}

int pd_pprof_open_buffer(pd_pprof **out, const void *buf, size_t len, const char *name,
			 pd_error *err)
{
	(void)buf, (void)len;
	if (out)
		*out = NULL;
	return refuse(name, err);
}

/* ---- the accessors of a handle that cannot exist ---- */

void pd_pprof_free(pd_pprof *pp)
{
	(void)pp;
}

size_t pd_pprof_type_count(const pd_pprof *pp)
{
	(void)pp;
	return 0;
}

const char *pd_pprof_type_name(const pd_pprof *pp, size_t i)
{
	(void)pp, (void)i;
	return NULL;
}

const char *pd_pprof_type_unit(const pd_pprof *pp, size_t i)
{
	(void)pp, (void)i;
	return NULL;
}

size_t pd_pprof_default_type(const pd_pprof *pp)
{
	(void)pp;
	return 0;
}

uint64_t pd_pprof_total(const pd_pprof *pp, size_t type)
{
	(void)pp, (void)type;
	return 0;
}

size_t pd_pprof_count(const pd_pprof *pp, pd_pprof_table t)
{
	(void)pp, (void)t;
	return 0;
}

void pd_pprof_period(const pd_pprof *pp, const char **type, const char **unit, int64_t *period)
{
	(void)pp;
	if (type)
		*type = "";
	if (unit)
		*unit = "";
	if (period)
		*period = 0;
}

int64_t pd_pprof_time_nanos(const pd_pprof *pp)
{
	(void)pp;
	return 0;
}

int64_t pd_pprof_duration_nanos(const pd_pprof *pp)
{
	(void)pp;
	return 0;
}

size_t pd_pprof_comment_count(const pd_pprof *pp)
{
	(void)pp;
	return 0;
}

const char *pd_pprof_comment(const pd_pprof *pp, size_t i)
{
	(void)pp, (void)i;
	return NULL;
}

const pd_pprof_sample *pd_pprof_sample_at(pd_pprof *pp, size_t i, pd_error *err)
{
	(void)pp, (void)i;
	pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET, "%s", PP_UNSUPPORTED);
	return NULL;
}
