/*
 * Sample filters: which samples enter the profile.  Lists come as
 * comma-separated strings (the CLI passes them through unchanged) and are
 * parsed once when the profile is created, so that a typo is an error
 * before any file is read.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

static size_t count_items(const char *s)
{
	size_t n = 1;
	for (; *s; s++)
		n += *s == ',';
	return n;
}

static int parse_ids(const char *what, const char *s, pd_idset *out, pd_error *err)
{
	if (!s || !*s)
		return 0;
	size_t n = count_items(s);
	out->v = malloc(n * sizeof *out->v);
	if (!out->v)
		return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET, "out of memory");
	const char *p = s;
	for (size_t i = 0; i < n; i++) {
		char *end;
		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		unsigned long long x = strtoull(p, &end, 10);
		if (errno || x > UINT32_MAX || (*end != ',' && *end != '\0'))
			goto bad;
		out->v[out->n++] = (uint32_t)x;
		p = end + (*end == ',');
	}
	return 0;
bad:
	return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
			    "bad %s list '%s' (N[,N...])", what, s);
}

static int parse_names(const char *what, const char *s, char ***out, size_t *nout,
		       pd_error *err)
{
	if (!s || !*s)
		return 0;
	size_t n = count_items(s);
	*out = calloc(n, sizeof **out);
	if (!*out)
		return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET, "out of memory");
	const char *p = s;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(p, ",");
		if (len == 0)
			return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
					    "bad %s list '%s' (an empty name)", what, s);
		char *name = strndup(p, len);
		if (!name)
			return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET,
					    "out of memory");
		(*out)[(*nout)++] = name;
		p += len + (p[len] == ',');
	}
	return 0;
}

int pd_filters_parse(pd_filters *f, const pd_profile_options *o, pd_error *err)
{
	memset(f, 0, sizeof *f);
	int rc;
	if ((rc = parse_ids("pid", o->pids, &f->pids, err)) < 0 ||
	    (rc = parse_ids("tid", o->tids, &f->tids, err)) < 0 ||
	    (rc = parse_ids("cpu", o->cpus, &f->cpus, err)) < 0 ||
	    (rc = parse_names("comm", o->comms, &f->comms, &f->ncomms, err)) < 0 ||
	    (rc = parse_names("dso", o->dsos, &f->dsos, &f->ndsos, err)) < 0)
		return rc;
	if (o->time_end && o->time_start > o->time_end)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "time range starts (%llu) after it ends (%llu)",
				    (unsigned long long)o->time_start,
				    (unsigned long long)o->time_end);
	f->time_start = o->time_start;
	f->time_end = o->time_end;
	f->any = f->pids.n || f->tids.n || f->cpus.n || f->ncomms || f->time_start ||
		 f->time_end;
	return 0;
}

void pd_filters_free(pd_filters *f)
{
	free(f->pids.v);
	free(f->tids.v);
	free(f->cpus.v);
	for (size_t i = 0; i < f->ncomms; i++)
		free(f->comms[i]);
	free(f->comms);
	for (size_t i = 0; i < f->ndsos; i++)
		free(f->dsos[i]);
	free(f->dsos);
	memset(f, 0, sizeof *f);
}

static bool in_set(const pd_idset *s, uint32_t x)
{
	if (s->n == 0)
		return true;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return true;
	return false;
}

bool pd_filters_sample(const pd_filters *f, const pd_resolved_sample *rs)
{
	if (!f->any)
		return true;
	if (!in_set(&f->pids, rs->pid) || !in_set(&f->tids, rs->tid))
		return false;
	if (f->cpus.n) {
		uint64_t st = rs->record ? rs->record->u.sample.sample_type : 0;
		if (!(st & PD_SAMPLE_CPU) || !in_set(&f->cpus, rs->cpu))
			return false;
	}
	if (f->time_start && rs->time < f->time_start)
		return false;
	if (f->time_end && rs->time > f->time_end)
		return false;
	if (f->ncomms) {
		bool hit = false;
		for (size_t i = 0; i < f->ncomms && !hit; i++)
			hit = rs->comm && strcmp(f->comms[i], rs->comm) == 0;
		if (!hit)
			return false;
	}
	return true;
}

bool pd_filters_dso(const pd_filters *f, const char *dso)
{
	if (f->ndsos == 0)
		return true;
	if (!dso)
		return false;
	const char *base = strrchr(dso, '/');
	base = base ? base + 1 : dso;
	for (size_t i = 0; i < f->ndsos; i++)
		if (strcmp(f->dsos[i], dso) == 0 || strcmp(f->dsos[i], base) == 0)
			return true;
	return false;
}
