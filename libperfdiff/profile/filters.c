/*
 * Sample filters: which samples enter the profile.  The lists come typed
 * (names, numbers; parsing text is the caller's business) and are copied
 * and checked once when the profile is created, so that a bad option is
 * an error before any file is read.
 *
 * Every value of a list also counts the samples it matched, whatever the
 * other filters said of them: a value no sample of the input has (a typo,
 * a process of another recording) is what pd_profile_filter_unmatched()
 * reports.  The counting happens where the filters are applied, on the
 * pipeline's producer thread, into that run's counts (`hits`, one counter
 * per value, in the order of pd_filter_kind); the profile adds them up
 * when the run ends.  Without a list filter nothing is counted.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static const char *const kind_names[PD_FILTER_NKINDS] = { "comm", "pid", "tid", "cpu", "dso" };

static int nomem(pd_error *err)
{
	return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET, "out of memory");
}

/* A copy of `n` names, none NULL or empty; *nout counts those copied. */
static int copy_names(pd_filter_kind k, const char *const *v, size_t n, char ***out,
		      size_t *nout, pd_error *err)
{
	if (n && !v)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "%s filter: %zu values and no array", kind_names[k], n);
	if (n == 0)
		return 0;
	if (!(*out = calloc(n, sizeof **out)))
		return nomem(err);
	for (size_t i = 0; i < n; i++) {
		if (!v[i] || !v[i][0])
			return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
					    "%s filter: value %zu is %s", kind_names[k], i,
					    v[i] ? "empty" : "NULL");
		if (!((*out)[i] = strdup(v[i])))
			return nomem(err);
		*nout = i + 1;
	}
	return 0;
}

static int copy_ids(pd_filter_kind k, const uint32_t *v, size_t n, pd_idset *out,
		    pd_error *err)
{
	if (n && !v)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "%s filter: %zu values and no array", kind_names[k], n);
	if (n == 0)
		return 0;
	if (!(out->v = malloc(n * sizeof *out->v)))
		return nomem(err);
	memcpy(out->v, v, n * sizeof *v);
	out->n = n;
	return 0;
}

/* Each value as text, for pd_profile_filter_unmatched(). */
static int value_texts(pd_filters *f)
{
	size_t n = f->at[PD_FILTER_NKINDS];
	if (n && !(f->text = calloc(n, sizeof *f->text)))
		return PD_ENOMEM;
	const pd_idset *ids[] = { &f->pids, &f->tids, &f->cpus };
	for (size_t i = 0; i < f->ncomms; i++)
		f->text[f->at[PD_FILTER_COMM] + i] = f->comms[i];
	for (size_t i = 0; i < f->ndsos; i++)
		f->text[f->at[PD_FILTER_DSO] + i] = f->dsos[i];
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < ids[k]->n; i++) {
			char buf[16];
			snprintf(buf, sizeof buf, "%" PRIu32, ids[k]->v[i]);
			char **t = &f->text[f->at[PD_FILTER_PID + k] + i];
			if (!(*t = strdup(buf)))
				return PD_ENOMEM;
		}
	return 0;
}

/* Where each kind's counters start. */
static void place(pd_filters *f)
{
	size_t n[PD_FILTER_NKINDS] = { f->ncomms, f->pids.n, f->tids.n, f->cpus.n, f->ndsos };
	f->at[0] = 0;
	for (int k = 0; k < PD_FILTER_NKINDS; k++)
		f->at[k + 1] = f->at[k] + n[k];
}

int pd_filters_copy(pd_filters *f, const pd_profile_options *o, pd_error *err)
{
	memset(f, 0, sizeof *f);
	int rc;
	if ((rc = copy_names(PD_FILTER_COMM, o->comms, o->ncomms, &f->comms, &f->ncomms,
			     err)) < 0 ||
	    (rc = copy_names(PD_FILTER_DSO, o->dsos, o->ndsos, &f->dsos, &f->ndsos, err)) < 0 ||
	    (rc = copy_ids(PD_FILTER_PID, o->pids, o->npids, &f->pids, err)) < 0 ||
	    (rc = copy_ids(PD_FILTER_TID, o->tids, o->ntids, &f->tids, err)) < 0 ||
	    (rc = copy_ids(PD_FILTER_CPU, o->cpus, o->ncpus, &f->cpus, err)) < 0)
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
	place(f);
	return value_texts(f) < 0 ? nomem(err) : 0;
}

void pd_filters_free(pd_filters *f)
{
	for (size_t i = f->at[PD_FILTER_PID]; f->text && i < f->at[PD_FILTER_DSO]; i++)
		free(f->text[i]);
	free(f->text);
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

const char *pd_filters_kind_name(pd_filter_kind k)
{
	return (unsigned)k < PD_FILTER_NKINDS ? kind_names[k] : NULL;
}

/* Whether `x` is in the set (an empty set: always), each equal value
 * counted in `hits`. */
static bool in_set(const pd_idset *s, uint32_t x, uint64_t *hits)
{
	bool hit = s->n == 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == x) {
			hits[i]++;
			hit = true;
		}
	return hit;
}

static bool comm_in(const pd_filters *f, const char *comm, uint64_t *hits)
{
	bool hit = f->ncomms == 0;
	for (size_t i = 0; comm && i < f->ncomms; i++)
		if (strcmp(f->comms[i], comm) == 0) {
			hits[i]++;
			hit = true;
		}
	return hit;
}

/* A cpu filter drops samples that carry no CPU, as perf does. */
static bool cpu_in(const pd_filters *f, const pd_resolved_sample *rs, uint64_t *hits)
{
	if (f->cpus.n == 0)
		return true;
	uint64_t st = rs->record ? rs->record->u.sample.sample_type : 0;
	return (st & PD_SAMPLE_CPU) && in_set(&f->cpus, rs->cpu, hits);
}

bool pd_filters_sample(const pd_filters *f, const pd_resolved_sample *rs, uint64_t *hits)
{
	if (!f->any)
		return true;
	/* every list is looked at, for its counts, whatever the others say */
	bool ok = comm_in(f, rs->comm, hits + f->at[PD_FILTER_COMM]);
	ok &= in_set(&f->pids, rs->pid, hits + f->at[PD_FILTER_PID]);
	ok &= in_set(&f->tids, rs->tid, hits + f->at[PD_FILTER_TID]);
	ok &= cpu_in(f, rs, hits + f->at[PD_FILTER_CPU]);
	if (f->time_start && rs->time < f->time_start)
		return false;
	if (f->time_end && rs->time > f->time_end)
		return false;
	return ok;
}

/* Whether dso filter value `v` names `dso`, by full path or file name. */
static bool dso_is(const char *v, const char *dso, const char *base)
{
	return strcmp(v, dso) == 0 || strcmp(v, base) == 0;
}

static const char *base_name(const char *dso)
{
	const char *base = strrchr(dso, '/');
	return base ? base + 1 : dso;
}

bool pd_filters_dso(const pd_filters *f, const char *dso)
{
	if (f->ndsos == 0)
		return true;
	if (!dso)
		return false;
	const char *base = base_name(dso);
	for (size_t i = 0; i < f->ndsos; i++)
		if (dso_is(f->dsos[i], dso, base))
			return true;
	return false;
}

void pd_filters_dso_hits(const pd_filters *f, const char *dso, uint64_t n, uint64_t *hits)
{
	if (!dso)
		return;
	const char *base = base_name(dso);
	for (size_t i = 0; i < f->ndsos; i++)
		if (dso_is(f->dsos[i], dso, base))
			hits[f->at[PD_FILTER_DSO] + i] += n;
}
