/*
 * pd_pprof: a pprof file held open for reading as it is, rather than
 * folded into a profile's run (import.c): `perfdiff dump` summarises its
 * tables and `perfdiff script` prints its samples from these accessors.
 * The message goes through the same decoder, index and checks as an
 * import (decode.c, lookup.c, check.c), so every id and string index the
 * accessors and walk.c follow is known good.
 */
#include <stdlib.h>
#include <unistd.h>

#include "handle.h"

int pp_open(pd_pprof **out, const void *buf, size_t len, const char *name,
	    const pp_caps *caps, pd_error *err)
{
	if (!name)
		name = "<pprof>";
	if (!out || (!buf && len))
		return pd_error_set(err, PD_EINVAL, name, PD_NO_OFFSET, "no handle or data given");
	*out = NULL;
	if (!pd_pprof_detect(buf, len))
		return pd_error_set(err, PD_ENOTPERF, name, 0,
				    "not a pprof profile (neither gzip nor protobuf)");
	pd_pprof *pp = calloc(1, sizeof *pp);
	if (!pp)
		return pd_error_set(err, PD_ENOMEM, name, PD_NO_OFFSET, "out of memory");
	int rc = pp_decode(buf, len, name, caps, &pp->m, err);
	if (rc == 0 && (rc = pp_index_build(&pp->ix, pp->m, name, err)) == 0) {
		pp->indexed = true;
		rc = pp_check(pp->m, &pp->ix, name, err);
	}
	if (rc < 0) {
		pd_pprof_free(pp);
		return rc;
	}
	*out = pp;
	return 0;
}

int pd_pprof_open_buffer(pd_pprof **out, const void *buf, size_t len, const char *name,
			 pd_error *err)
{
	pp_caps caps;
	pp_caps_of(&caps, NULL);
	return pp_open(out, buf, len, name, &caps, err);
}

/* The reason `why` of a failed util call (it starts with the path), or
 * "out of memory" under the path when there is none. */
static int read_failed(int rc, const char *path, const pd_error *why, pd_error *err)
{
	if (!why->message[0])  /* PD_ENOMEM may come without a reason */
		return pd_error_set(err, rc, path, PD_NO_OFFSET, "out of memory");
	if (err)
		*err = *why;
	return rc;
}

int pp_read_file(const char *path, size_t cap, char **data, size_t *len, pd_error *err)
{
	pd_error why;
	why.message[0] = '\0';
	int fd;
	uint64_t size;
	/* a FIFO or a device is refused before it can block or stream
	 * forever: a pprof file is read whole */
	int rc = pd_open_regular(path, &fd, &size, &why);
	if (rc < 0)
		return read_failed(rc, path, &why, err);
	uint8_t head[8];
	ssize_t got = pread(fd, head, sizeof head, 0);
	if (size > cap)
		rc = pd_error_set(err, PD_ELIMIT, path, PD_NO_OFFSET,
				  "pprof: %llu bytes, more than %zu (pd_reader_options.max_pprof_bytes)",
				  (unsigned long long)size, cap);
	else if (got <= 0 || !pd_pprof_detect(head, (size_t)got))
		rc = pd_error_set(err, PD_ENOTPERF, path, 0,
				  "not a pprof profile (neither gzip nor protobuf)");
	else if ((rc = pd_read_fd(fd, path, cap, data, len, &why)) < 0)
		rc = read_failed(rc, path, &why, err);
	close(fd);
	return rc;
}

int pd_pprof_open(pd_pprof **out, const char *path, pd_error *err)
{
	if (!path || !out)
		return pd_error_set(err, PD_EINVAL, "<null>", PD_NO_OFFSET, "no path given");
	pp_caps caps;
	pp_caps_of(&caps, NULL);
	char *data;
	size_t len;
	*out = NULL;
	int rc = pp_read_file(path, caps.max_bytes, &data, &len, err);
	if (rc < 0)
		return rc;
	rc = pp_open(out, data, len, path, &caps, err);
	free(data);
	return rc;
}

void pd_pprof_free(pd_pprof *pp)
{
	if (!pp)
		return;
	if (pp->indexed)
		pp_index_free(&pp->ix);
	pp_profile_free(pp->m);
	free(pp->frames);
	free(pp->values);
	free(pp);
}

size_t pd_pprof_type_count(const pd_pprof *pp)
{
	return pp ? pp->m->n_sample_type : 0;
}

const char *pd_pprof_type_name(const pd_pprof *pp, size_t i)
{
	return pp && i < pp->m->n_sample_type ? pp_str(pp->m, pp->m->sample_type[i]->type) : NULL;
}

const char *pd_pprof_type_unit(const pd_pprof *pp, size_t i)
{
	return pp && i < pp->m->n_sample_type ? pp_str(pp->m, pp->m->sample_type[i]->unit) : NULL;
}

/* go tool pprof's rule: the type default_sample_type names, else the last. */
size_t pd_pprof_default_type(const pd_pprof *pp)
{
	size_t n = pd_pprof_type_count(pp);
	if (n == 0)
		return 0;
	const char *want = pp_str(pp->m, pp->m->default_sample_type);
	for (size_t i = 0; *want && i < n; i++)
		if (strcmp(pd_pprof_type_name(pp, i), want) == 0)
			return i;
	return n - 1;
}

size_t pd_pprof_count(const pd_pprof *pp, pd_pprof_table t)
{
	if (!pp)
		return 0;
	switch (t) {
	case PD_PPROF_SAMPLES:
		return pp->m->n_sample;
	case PD_PPROF_LOCATIONS:
		return pp->m->n_location;
	case PD_PPROF_FUNCTIONS:
		return pp->m->n_function;
	case PD_PPROF_MAPPINGS:
		return pp->m->n_mapping;
	case PD_PPROF_STRINGS:
		return pp->m->n_string_table;
	}
	return 0;
}

uint64_t pd_pprof_total(const pd_pprof *pp, size_t type)
{
	if (!pp || type >= pp->m->n_sample_type)
		return 0;
	/* check.c: one value per type, none negative, their sums within
	 * INT64_MAX */
	uint64_t sum = 0;
	for (size_t i = 0; i < pp->m->n_sample; i++)
		sum += (uint64_t)pp->m->sample[i]->value[type];
	return sum;
}

void pd_pprof_period(const pd_pprof *pp, const char **type, const char **unit, int64_t *period)
{
	const pp_valuetype *pt = pp ? pp->m->period_type : NULL;
	if (type)
		*type = pt ? pp_str(pp->m, pt->type) : "";
	if (unit)
		*unit = pt ? pp_str(pp->m, pt->unit) : "";
	if (period)
		*period = pp ? pp->m->period : 0;
}

int64_t pd_pprof_time_nanos(const pd_pprof *pp)
{
	return pp ? pp->m->time_nanos : 0;
}

int64_t pd_pprof_duration_nanos(const pd_pprof *pp)
{
	return pp ? pp->m->duration_nanos : 0;
}

size_t pd_pprof_comment_count(const pd_pprof *pp)
{
	return pp ? pp->m->n_comment : 0;
}

const char *pd_pprof_comment(const pd_pprof *pp, size_t i)
{
	return pp && i < pp->m->n_comment ? pp_str(pp->m, pp->m->comment[i]) : NULL;
}
