/*
 * A run built from imported stacks (builder.h): the pprof reader hands
 * over events, named frames and aggregated stacks, and they land in the
 * same tree, totals, collapsed stacks and time blocks that folding a
 * perf.data file fills, so every view, report and diff treats the run
 * like any other.  Speed matters less than in fold.c: an imported stack
 * stands for many samples already.
 */
#include <stdlib.h>

#include "builder.h"
#include "internal.h"

_Static_assert((int)PD_PBUILD_INLINED == (int)PD_PF_INLINED &&
		       (int)PD_PBUILD_KERNEL == (int)PD_PF_KERNEL &&
		       (int)PD_PBUILD_UNRESOLVED == (int)PD_PF_UNRESOLVED,
	       "builder flags are the frame flags");

struct pd_pbuild {
	pd_profile *p;
	size_t run;
	bool *claimed;         /* events this run took, by index */
	size_t nclaimed;
	char *name;            /* canonical-name scratch */
	size_t cap_name;
	uint32_t *kept;        /* a stack's frames after the options' cuts */
	size_t cap_kept;
	pd_blockrun blocks;
};

int pd_pbuild_begin(pd_pbuild **out, pd_profile *p, const char *path, pd_error *err)
{
	pd_profile_wait_release(p);
	pd_pbuild *b = calloc(1, sizeof *b);
	int rc = b ? pd_profile_begin_run(p, path) : PD_ENOMEM;
	if (rc < 0) {
		free(b);
		return pd_error_set(err, rc, path, PD_NO_OFFSET, "out of memory");
	}
	b->p = p;
	b->run = p->nruns - 1;
	pd_blockrun_init(&b->blocks);
	*out = b;
	return 0;
}

static int claim(pd_pbuild *b, int ev)
{
	if ((size_t)ev >= b->nclaimed) {
		size_t n = b->p->nevents;
		bool *c = realloc(b->claimed, n * sizeof *c);
		if (!c)
			return PD_ENOMEM;
		memset(c + b->nclaimed, 0, (n - b->nclaimed) * sizeof *c);
		b->claimed = c;
		b->nclaimed = n;
	}
	b->claimed[ev] = true;
	return 0;
}

int pd_pbuild_event(pd_pbuild *b, uint32_t type, uint64_t config, const char *pmu,
		    const char *name, int *ev)
{
	pd_attr a;
	memset(&a, 0, sizeof a);
	a.type = type;
	a.config = config;
	a.pmu_name = pmu;
	a.name = name;
	int rc = pd_events_match(b->p, &a, b->claimed, b->nclaimed, ev);
	if (rc < 0 || *ev < 0)
		return rc;
	return claim(b, *ev);
}

/* `sym` as the profile names frames: clone suffixes folded unless kept. */
static const char *canonical(pd_pbuild *b, const char *sym, size_t *len)
{
	if (b->p->options.o.flags & PD_PROFILE_KEEP_SUFFIXES) {
		*len = strlen(sym);
		return sym;
	}
	*len = pd_symbol_canonical(sym, b->name, b->cap_name);
	if (*len < b->cap_name)
		return b->name;
	char *n = realloc(b->name, *len + 1);
	if (!n)
		return NULL;
	b->name = n;
	b->cap_name = *len + 1;
	pd_symbol_canonical(sym, b->name, b->cap_name);
	return b->name;
}

int pd_pbuild_frame(pd_pbuild *b, const char *sym, const char *dso, const char *unit,
		    unsigned flags, uint32_t *id)
{
	pd_profile *p = b->p;
	size_t len;
	/* an unresolved frame's name is its address, never canonicalised */
	const char *name = flags & PD_PF_UNRESOLVED ? sym : canonical(b, sym, &len);
	if (!name)
		return PD_ENOMEM;
	if (flags & PD_PF_UNRESOLVED)
		len = strlen(sym);
	uint32_t s = pd_strtab_intern(&p->strings, name, len);
	uint32_t d = pd_strtab_intern(&p->strings, dso, strlen(dso));
	if (s == PD_NO_ID || d == PD_NO_ID)
		return PD_ENOMEM;
	*id = pd_frametab_get(&p->frames, s, d, flags & 7u);
	if (*id == PD_NO_ID)
		return PD_ELIMIT;
	pd_pframe *f = &p->frames.v[*id];
	if (unit && *unit && f->unit == PD_NO_ID && !(flags & PD_PF_UNRESOLVED))
		f->unit = pd_strtab_intern(&p->strings, unit, strlen(unit));
	return 0;
}

int pd_pbuild_build_id(pd_pbuild *b, const char *dso, const uint8_t *id, size_t len)
{
	return pd_profile_keep_build_id(b->p, b->run, dso, id, len);
}

/*
 * The frames the profile's options keep, as folding a session with them
 * would: without inline frames (PD_SESSION_NO_INLINE), without unnamed
 * ones (PD_PROFILE_HIDE_UNRESOLVED, which drops a sample whose leaf is
 * unnamed: *n = 0 then).  `frames` itself when nothing goes.
 */
static const uint32_t *cut(pd_pbuild *b, const uint32_t *frames, size_t *n)
{
	const pd_profile *p = b->p;
	uint32_t drop = (p->options.o.flags & PD_PROFILE_HIDE_UNRESOLVED ? PD_PF_UNRESOLVED : 0) |
			(p->options.session.flags & PD_SESSION_NO_INLINE ? PD_PF_INLINED : 0);
	if (!drop)
		return frames;
	if (*n > b->cap_kept) {
		uint32_t *k = realloc(b->kept, *n * sizeof *k);
		if (!k)
			return NULL;
		b->kept = k;
		b->cap_kept = *n;
	}
	size_t m = 0;
	for (size_t i = 0; i < *n; i++)
		if (!(p->frames.v[frames[i]].flags & drop))
			b->kept[m++] = frames[i];
	bool hidden = (drop & PD_PF_UNRESOLVED) && (p->frames.v[frames[0]].flags & PD_PF_UNRESOLVED);
	*n = hidden ? 0 : m;
	return b->kept;
}

int pd_pbuild_stack(pd_pbuild *b, int ev, const uint32_t *frames, size_t n, const char *comm,
		    uint32_t block, uint64_t samples, uint64_t period)
{
	pd_profile *p = b->p;
	if (ev < 0 || (size_t)ev >= p->nevents || block >= PD_BLOCK_MAX || n == 0)
		return PD_EINVAL;
	for (size_t i = 0; i < n; i++)
		if (frames[i] >= p->frames.n)
			return PD_EINVAL;
	pd_pevent *e = p->events[ev];
	if (p->frames.v[frames[0]].flags & PD_PF_UNRESOLVED)
		e->unresolved[b->run] += period;
	int rc;
	if (!(frames = cut(b, frames, &n)))
		return PD_ENOMEM;
	if (n && p->stackfilter.any &&
	    (rc = pd_stackfilter_apply(p, e, b->run, frames, n, samples, period, &frames,
					   &n)) < 0)
		return rc;
	if (n == 0)
		return 0;
	uint32_t node = pd_cct_leaf_of(&e->tree, frames, n);
	if (node == PD_NO_ID)
		return PD_ELIMIT;
	uint32_t c = pd_strtab_intern(&p->strings, comm, strlen(comm));
	if (c == PD_NO_ID)
		return PD_ENOMEM;
	if ((rc = pd_cct_add_self(&e->tree, node, period)) < 0 ||
	    (rc = pd_stacktab_add_n(&e->stacks, c, node, samples, period)) < 0)
		return rc;
	if (block > b->blocks.last)
		b->blocks.last = block;
	if ((rc = pd_blockrun_count_n(&b->blocks, (uint32_t)ev, node, block, samples)) < 0)
		return rc;
	e->total[b->run] += period;
	e->samples[b->run] += samples;
	return 0;
}

static void pbuild_free(pd_pbuild *b)
{
	pd_blockrun_free(&b->blocks);
	free(b->claimed);
	free(b->name);
	free(b->kept);
	free(b);
}

/* The block grid of the run: width 2^shift, as folding would have made. */
static void set_grid(pd_pbuild *b, uint64_t width)
{
	b->blocks.timed = width != 0;
	unsigned shift = PD_BLOCK_SHIFT0;
	while (shift < 63 && ((uint64_t)1 << shift) < width)
		shift++;
	b->blocks.shift = shift;
}

int pd_pbuild_finish(pd_pbuild *b, const pd_pbuild_run *r, pd_error *err)
{
	pd_profile *p = b->p;
	const char *path = p->run_paths[b->run];
	p->run_span[b->run] = r->span;
	p->run_start[b->run] = r->start;
	p->run_lost[b->run] = r->lost;
	p->run_read[b->run] = r->read;
	p->run_data_lost[b->run] = r->truncated;
	set_grid(b, r->block_width);
	int rc = pd_blockrun_finish(&b->blocks, p, b->run);
	if (rc == 0)
		rc = pd_profile_keep_run_info(p, b->run, &r->info);
	int erc = pd_profile_end_run(p);
	pbuild_free(b);
	rc = rc < 0 ? rc : erc;
	return rc < 0 ? pd_error_set(err, rc, path, PD_NO_OFFSET, "out of memory") : 0;
}

void pd_pbuild_abort(pd_pbuild *b)
{
	if (!b)
		return;
	pd_blockrun_finish(&b->blocks, b->p, b->run);
	pd_profile_end_run(b->p);
	pbuild_free(b);
}

int pd_profile_event_ident(const pd_profile *p, size_t ev, uint32_t *type, uint64_t *config,
			   const char **pmu)
{
	if (!p || ev >= p->nevents)
		return PD_EINVAL;
	*type = p->events[ev]->type;
	*config = p->events[ev]->config;
	*pmu = p->events[ev]->pmu;
	return 0;
}
