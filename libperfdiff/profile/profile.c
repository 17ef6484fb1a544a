/*
 * The pd_profile object: options, runs, per-event totals and warnings.
 * Folding is in fold.c, the views in flat.c, chains.c and stacks.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "session/session.h"

/* How far each version of pd_profile_options went; version 1 held the
 * session's options by value, a layout no longer read; version 2 ended at
 * time_end, version 3 at prune_from, version 4 at warn_ctx. */
static const size_t profile_sizes[] = {
	0, 0, PD_OPTIONS_END(pd_profile_options, time_end),
	PD_OPTIONS_END(pd_profile_options, prune_from),
	PD_OPTIONS_END(pd_profile_options, warn_ctx),
};

int pd_profile_options_init(pd_profile_options *opts, unsigned version)
{
	const pd_profile_options d = PD_PROFILE_OPTIONS_INIT;
	return pd_options_init(opts, version, &d, profile_sizes, PD_PROFILE_OPTIONS_VERSION);
}

int pd_profile_opts_import(pd_profile_opts *dst, const pd_profile_options *src,
			   const char *file, pd_error *err)
{
	dst->o = PD_PROFILE_OPTIONS_INIT;
	int rc = src ? pd_options_import(&dst->o, src, profile_sizes, PD_PROFILE_OPTIONS_VERSION,
					 "pd_profile_options", file, err) : 0;
	if (rc == 0)
		rc = pd_session_options_import(&dst->session, &dst->reader, dst->o.session, file,
					       err);
	dst->o.session = &dst->session;
	/* a run's session and reader work on the producer thread: their
	 * warnings reach the caller through the profile's sink, from the
	 * caller's thread (pd_profile_warn()) */
	dst->session.warn = NULL;
	dst->session.warn_ctx = NULL;
	dst->reader.warn = NULL;
	dst->reader.warn_ctx = NULL;
	return rc;
}

/* The options' filter lists point at the profile's copies from now on. */
static void own_filters(pd_profile *p)
{
	pd_profile_options *o = &p->options.o;
	const pd_filters *f = &p->filters;
	o->comms = (const char *const *)f->comms;
	o->dsos = (const char *const *)f->dsos;
	o->pids = f->pids.v;
	o->tids = f->tids.v;
	o->cpus = f->cpus.v;
}

/* The filters copied and checked, their counters zeroed.  0 or an error. */
static int new_filters(pd_profile *p, pd_error *err)
{
	int rc = pd_filters_copy(&p->filters, &p->options.o, err);
	if (rc < 0)
		return rc;
	own_filters(p);
	size_t n = p->filters.at[PD_FILTER_NKINDS];
	if (n && !(p->filter_hits = calloc(n, sizeof *p->filter_hits)))
		return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET, "out of memory");
	return 0;
}

int pd_profile_new(pd_profile **out, const pd_profile_options *opts, pd_error *err)
{
	if (!out)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "no output pointer given");
	*out = NULL;
	pd_profile *p = calloc(1, sizeof *p);
	if (!p)
		return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET, "out of memory");
	int rc = pd_profile_opts_import(&p->options, opts, "profile", err);
	if (rc < 0) {
		free(p);
		return rc;
	}
	pd_strtab_init(&p->strings);
	pd_frametab_init(&p->frames);
	pd_procs_init(&p->procs);
	pd_warnings_init(&p->warnings, 0);
	pd_warnings_set_sink(&p->warnings, p->options.o.warn, p->options.o.warn_ctx, NULL);
	pd_threads_init(&p->threads, p->options.session.threads);
	rc = pd_facts_new(&p->facts, &p->options.o, &p->threads);
	if (rc < 0) {
		pd_profile_free(p);
		return pd_error_set(err, rc, "profile", PD_NO_OFFSET, "out of memory");
	}
	if ((rc = new_filters(p, err)) < 0 ||
	    (rc = pd_stackfilter_init(&p->stackfilter, &p->options.o, err)) < 0) {
		pd_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

static void *release_main(void *arg)
{
	pd_session_free(arg);
	return NULL;
}

void pd_profile_release_session(pd_profile *p, pd_session *s)
{
	pd_profile_wait_release(p);
	if (pd_threads_start(&p->threads, &p->releaser, release_main, s))
		p->releasing = true;
	else
		pd_session_free(s);
}

void pd_profile_wait_release(pd_profile *p)
{
	if (!p->releasing)
		return;
	pd_threads_join(&p->threads, p->releaser);
	p->releasing = false;
}

void pd_profile_free(pd_profile *p)
{
	if (!p)
		return;
	pd_profile_wait_release(p);
	for (size_t i = 0; i < p->nevents; i++)
		pd_event_free(p->events[i]);
	free(p->events);
	for (size_t i = 0; i < p->nruns; i++)
		free(p->run_paths[i]);
	free(p->run_paths);
	free(p->run_lost);
	free(p->run_read);
	free(p->run_data_lost);
	free(p->run_span);
	free(p->run_start);
	free(p->run_block_width);
	free(p->run_blocks);
	pd_facts_free(p->facts);
	pd_sitemaps_free(&p->sitemaps);
	pd_procs_free(&p->procs);
	pd_profile_runinfo_free(p);
	pd_profile_origins_free(p);
	pd_warnings_free(&p->warnings);
	pd_filters_free(&p->filters);
	pd_stackfilter_free(&p->stackfilter);
	free(p->filter_hits);
	pd_frametab_free(&p->frames);
	pd_strtab_free(&p->strings);
	free(p);
}

static int grow_u64(uint64_t **v, size_t n)
{
	uint64_t *x = realloc(*v, n * sizeof *x);
	if (!x)
		return PD_ENOMEM;
	x[n - 1] = 0;
	*v = x;
	return 0;
}

/* Room for `n` runs of per-block counts, the last run's zeroed. */
static int grow_blocks(uint64_t **v, size_t n)
{
	uint64_t *x = realloc(*v, n * PD_BLOCK_MAX * sizeof *x);
	if (!x)
		return PD_ENOMEM;
	memset(x + (n - 1) * PD_BLOCK_MAX, 0, PD_BLOCK_MAX * sizeof *x);
	*v = x;
	return 0;
}

int pd_profile_begin_run(pd_profile *p, const char *path)
{
	size_t n = p->nruns + 1;
	if (n > p->cap_runs) {
		size_t cap = p->cap_runs ? p->cap_runs * 2 : 4;
		char **paths = realloc(p->run_paths, cap * sizeof *paths);
		if (!paths)
			return PD_ENOMEM;
		p->run_paths = paths;
		uint64_t *lost = realloc(p->run_lost, cap * sizeof *lost);
		if (!lost)
			return PD_ENOMEM;
		p->run_lost = lost;
		uint64_t *nread = realloc(p->run_read, cap * sizeof *nread);
		if (!nread)
			return PD_ENOMEM;
		p->run_read = nread;
		bool *dl = realloc(p->run_data_lost, cap * sizeof *dl);
		if (!dl)
			return PD_ENOMEM;
		p->run_data_lost = dl;
		uint64_t *span = realloc(p->run_span, cap * sizeof *span);
		if (!span)
			return PD_ENOMEM;
		p->run_span = span;
		uint64_t *start = realloc(p->run_start, cap * sizeof *start);
		if (!start)
			return PD_ENOMEM;
		p->run_start = start;
		uint64_t *bw = realloc(p->run_block_width, cap * sizeof *bw);
		if (!bw)
			return PD_ENOMEM;
		p->run_block_width = bw;
		uint32_t *nb = realloc(p->run_blocks, cap * sizeof *nb);
		if (!nb)
			return PD_ENOMEM;
		p->run_blocks = nb;
		p->cap_runs = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return PD_ENOMEM;
	for (size_t i = 0; i < p->nevents; i++) {
		pd_pevent *e = p->events[i];
		int rc;
		if ((rc = grow_u64(&e->total, n)) < 0 || (rc = grow_u64(&e->samples, n)) < 0 ||
		    (rc = grow_u64(&e->unresolved, n)) < 0 ||
		    (rc = grow_blocks(&e->block_samples, n)) < 0 ||
		    (rc = pd_cct_begin_run(&e->tree, n - 1)) < 0) {
			free(copy);
			return rc;
		}
	}
	p->run_paths[p->nruns] = copy;
	p->run_lost[p->nruns] = 0;
	p->run_read[p->nruns] = 0;
	p->run_data_lost[p->nruns] = false;
	p->run_span[p->nruns] = 0;
	p->run_start[p->nruns] = 0;
	p->run_block_width[p->nruns] = 0;
	p->run_blocks[p->nruns] = 1;
	p->nruns = n;
	pd_events_invalidate(p);
	return 0;
}

void pd_profile_warn(pd_profile *p, const char *path, pd_warning_kind kind, const char *msg)
{
	if (!msg)
		return;
	if (kind == PD_WARN_DATA_LOST && p->nruns)
		p->run_data_lost[p->nruns - 1] = true;
	if (strstr(msg, path)) {
		pd_warnings_add_about(&p->warnings, kind, path, msg);
		return;
	}
	/* not pd_warnings_addf(): a long path must not cut the message */
	char *text;
	if (asprintf(&text, "%s: %s", path, msg) < 0) {
		p->warnings.dropped++; /* a warning is not worth failing the read for */
		return;
	}
	pd_warnings_add_about(&p->warnings, kind, path, text);
	free(text);
}

size_t pd_profile_run_count(const pd_profile *p)
{
	return p ? p->nruns : 0;
}

const char *pd_profile_run_path(const pd_profile *p, size_t run)
{
	return p && run < p->nruns ? p->run_paths[run] : NULL;
}

uint64_t pd_profile_lost(const pd_profile *p, size_t run)
{
	if (!p)
		return 0;
	if (run != SIZE_MAX)
		return run < p->nruns ? p->run_lost[run] : 0;
	uint64_t sum = 0;
	for (size_t r = 0; r < p->nruns; r++)
		sum += p->run_lost[r];
	return sum;
}

uint64_t pd_profile_run_samples_read(const pd_profile *p, size_t run)
{
	if (!p)
		return 0;
	if (run != SIZE_MAX)
		return run < p->nruns ? p->run_read[run] : 0;
	uint64_t sum = 0;
	for (size_t r = 0; r < p->nruns; r++)
		sum += p->run_read[r];
	return sum;
}

bool pd_profile_run_truncated(const pd_profile *p, size_t run)
{
	return p && run < p->nruns && p->run_data_lost[run];
}

uint64_t pd_profile_run_span(const pd_profile *p, size_t run)
{
	if (!p)
		return 0;
	if (run != SIZE_MAX)
		return run < p->nruns ? p->run_span[run] : 0;
	uint64_t sum = 0;
	for (size_t r = 0; r < p->nruns; r++)
		sum += p->run_span[r];
	return sum;
}

static uint64_t per_run(const pd_profile *p, size_t ev, size_t run, size_t which)
{
	if (!p || ev >= p->nevents)
		return 0;
	const pd_pevent *e = p->events[ev];
	const uint64_t *v = which == 0 ? e->total : which == 1 ? e->samples : e->unresolved;
	if (run == SIZE_MAX)
		return which == 0 ? e->total_sum : which == 1 ? e->samples_sum : e->unresolved_sum;
	return run < p->nruns ? v[run] : 0;
}

uint64_t pd_profile_total(const pd_profile *p, size_t ev, size_t run)
{
	return per_run(p, ev, run, 0);
}

uint64_t pd_profile_samples(const pd_profile *p, size_t ev, size_t run)
{
	return per_run(p, ev, run, 1);
}

uint64_t pd_profile_unresolved(const pd_profile *p, size_t ev, size_t run)
{
	return per_run(p, ev, run, 2);
}

size_t pd_profile_node_count(const pd_profile *p, size_t ev)
{
	return p && ev < p->nevents ? p->events[ev]->tree.n : 0;
}

const pd_cct_node *pd_profile_root(const pd_profile *p, size_t ev)
{
	return p && ev < p->nevents ? &p->events[ev]->tree.nodes[0] : NULL;
}

size_t pd_profile_warning_count(const pd_profile *p)
{
	return p ? pd_warnings_count(&p->warnings) : 0;
}

const char *pd_profile_warning(const pd_profile *p, size_t i)
{
	return p ? pd_warnings_get(&p->warnings, i) : NULL;
}

uint64_t pd_profile_filter_matches(const pd_profile *p, pd_filter_kind kind, size_t i)
{
	if (!p || (unsigned)kind >= PD_FILTER_NKINDS)
		return 0;
	size_t at = p->filters.at[kind] + i;
	return i < p->filters.at[kind + 1] - p->filters.at[kind] ? p->filter_hits[at] : 0;
}

size_t pd_profile_filter_unmatched(const pd_profile *p, const char **what, const char **value,
				   size_t i)
{
	size_t n = 0;
	for (int k = 0; p && k < PD_FILTER_NKINDS; k++)
		for (size_t v = p->filters.at[k]; v < p->filters.at[k + 1]; v++) {
			if (p->filter_hits[v])
				continue;
			if (n++ != i)
				continue;
			if (what)
				*what = pd_filters_kind_name((pd_filter_kind)k);
			if (value)
				*value = p->filters.text[v];
		}
	return n;
}

pd_threads *pd_profile_threads(const pd_profile *p)
{
	/* the budget changes under a const profile: its slots are atomic */
	return (pd_threads *)&p->threads;
}

const pd_reader_options *pd_profile_reader_options(const pd_profile *p)
{
	return &p->options.reader;
}

pd_warning_kind pd_profile_warning_kind(const pd_profile *p, size_t i)
{
	return p ? pd_warnings_kind_of(&p->warnings, i) : PD_WARN_OTHER;
}
