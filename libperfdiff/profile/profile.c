/*
 * The pd_profile object: options, runs, per-event totals and warnings.
 * Folding is in fold.c, the views in flat.c, chains.c and stacks.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

void pd_profile_options_init(pd_profile_options *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->version = PD_PROFILE_OPTIONS_VERSION;
	pd_session_options_init(&opts->session);
}

/* The filter strings belong to the caller; keep copies in one block. */
static int copy_strings(pd_profile *p)
{
	const char **fields[] = { &p->opts.comms, &p->opts.pids, &p->opts.tids,
				  &p->opts.dsos, &p->opts.cpus };
	size_t total = 0;
	for (size_t i = 0; i < 5; i++)
		if (*fields[i])
			total += strlen(*fields[i]) + 1;
	if (total == 0)
		return 0;
	p->opt_strings = malloc(total);
	if (!p->opt_strings)
		return PD_ENOMEM;
	char *at = p->opt_strings;
	for (size_t i = 0; i < 5; i++)
		if (*fields[i]) {
			size_t len = strlen(*fields[i]) + 1;
			memcpy(at, *fields[i], len);
			*fields[i] = at;
			at += len;
		}
	return 0;
}

int pd_profile_new(pd_profile **out, const pd_profile_options *opts, pd_error *err)
{
	if (!out)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "no output pointer given");
	*out = NULL;
	if (opts && opts->version != PD_PROFILE_OPTIONS_VERSION)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "pd_profile_options version %u, this library knows %u",
				    opts->version, PD_PROFILE_OPTIONS_VERSION);
	pd_profile *p = calloc(1, sizeof *p);
	if (!p)
		return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET, "out of memory");
	if (opts)
		p->opts = *opts;
	else
		pd_profile_options_init(&p->opts);
	pd_strtab_init(&p->strings);
	pd_frametab_init(&p->frames);
	int rc = copy_strings(p);
	if (rc == 0)
		rc = pd_facts_new(&p->facts, &p->opts);
	if (rc < 0) {
		pd_profile_free(p);
		return pd_error_set(err, rc, "profile", PD_NO_OFFSET, "out of memory");
	}
	if ((rc = pd_filters_parse(&p->filters, &p->opts, err)) < 0) {
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
	if (pthread_create(&p->releaser, NULL, release_main, s) == 0)
		p->releasing = true;
	else
		pd_session_free(s);
}

void pd_profile_wait_release(pd_profile *p)
{
	if (!p->releasing)
		return;
	pthread_join(p->releaser, NULL);
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
	free(p->run_block_width);
	free(p->run_blocks);
	pd_facts_free(p->facts);
	for (size_t i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	free(p->warning_kinds);
	pd_filters_free(&p->filters);
	pd_frametab_free(&p->frames);
	pd_strtab_free(&p->strings);
	free(p->opt_strings);
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
	p->run_block_width[p->nruns] = 0;
	p->run_blocks[p->nruns] = 1;
	p->nruns = n;
	pd_events_invalidate(p);
	return 0;
}

/* Room for one more warning and its kind; false when memory ran out. */
static bool warning_room(pd_profile *p)
{
	if (p->nwarnings < p->cap_warnings)
		return true;
	size_t cap = p->cap_warnings ? p->cap_warnings * 2 : 16;
	char **w = realloc(p->warnings, cap * sizeof *w);
	if (w)
		p->warnings = w;
	pd_warning_kind *k = realloc(p->warning_kinds, cap * sizeof *k);
	if (k)
		p->warning_kinds = k;
	if (!w || !k)
		return false;
	p->cap_warnings = cap;
	return true;
}

void pd_profile_warn(pd_profile *p, const char *path, pd_warning_kind kind, const char *msg)
{
	if (!msg)
		return;
	if (kind == PD_WARN_DATA_LOST && p->nruns)
		p->run_data_lost[p->nruns - 1] = true;
	if (!warning_room(p))
		return; /* a warning is not worth failing the read for */
	char *text;
	if (strstr(msg, path))
		text = strdup(msg);
	else if (asprintf(&text, "%s: %s", path, msg) < 0)
		text = NULL;
	if (!text)
		return;
	p->warning_kinds[p->nwarnings] = kind;
	p->warnings[p->nwarnings++] = text;
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
	return p ? p->nwarnings : 0;
}

const char *pd_profile_warning(const pd_profile *p, size_t i)
{
	return p && i < p->nwarnings ? p->warnings[i] : NULL;
}

pd_warning_kind pd_profile_warning_kind(const pd_profile *p, size_t i)
{
	return p && i < p->nwarnings ? p->warning_kinds[i] : PD_WARN_OTHER;
}
