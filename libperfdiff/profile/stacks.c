/*
 * Distinct (command, leaf node) pairs with their period: the tree merges
 * commands, collapsed-stack output needs them apart, and keeping one entry
 * per pair costs one lookup per sample instead of a second tree.
 */
#include <stdlib.h>

#include "internal.h"

void pd_stacktab_init(pd_stacktab *s)
{
	memset(s, 0, sizeof *s);
	pd_idmap_init(&s->index);
}

void pd_stacktab_free(pd_stacktab *s)
{
	pd_idmap_free(&s->index);
	free(s->comm);
	free(s->leaf);
	free(s->period);
	free(s->samples);
	free(s->out);
	pd_stacktab_init(s);
}

static int grow(pd_stacktab *s)
{
	uint32_t cap = s->cap ? s->cap * 2 : 256;
	if (cap <= s->cap || cap > PD_ID_LIMIT)
		return PD_ELIMIT;
	uint32_t *c = realloc(s->comm, cap * sizeof *c);
	if (!c)
		return PD_ENOMEM;
	s->comm = c;
	uint32_t *l = realloc(s->leaf, cap * sizeof *l);
	if (!l)
		return PD_ENOMEM;
	s->leaf = l;
	uint64_t *pv = realloc(s->period, cap * sizeof *pv);
	if (!pv)
		return PD_ENOMEM;
	s->period = pv;
	uint64_t *sv = realloc(s->samples, cap * sizeof *sv);
	if (!sv)
		return PD_ENOMEM;
	s->samples = sv;
	s->cap = cap;
	return 0;
}

int pd_stacktab_add(pd_stacktab *s, uint32_t comm, uint32_t leaf, uint64_t period)
{
	return pd_stacktab_add_n(s, comm, leaf, 1, period);
}

int pd_stacktab_add_n(pd_stacktab *s, uint32_t comm, uint32_t leaf, uint64_t samples,
		      uint64_t period)
{
	uint64_t key = (uint64_t)comm << 32 | leaf;
	uint32_t i = pd_idmap_get(&s->index, key);
	if (i == PD_NO_ID) {
		int rc;
		if (s->n == s->cap && (rc = grow(s)) < 0)
			return rc;
		if ((rc = pd_idmap_put(&s->index, key, s->n)) < 0)
			return rc;
		i = s->n++;
		s->comm[i] = comm;
		s->leaf[i] = leaf;
		s->period[i] = 0;
		s->samples[i] = 0;
	}
	s->period[i] += period;
	s->samples[i] += samples;
	s->out_valid = false;
	return 0;
}

int pd_profile_stacks(pd_profile *p, size_t ev, const pd_stack **out, size_t *n,
		      pd_error *err)
{
	if (!p || !out || !n || ev >= p->nevents)
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "no such event: %zu", ev);
	pd_pevent *e = p->events[ev];
	pd_stacktab *s = &e->stacks;
	if (!s->out_valid) {
		pd_stack *o = realloc(s->out, (s->n ? s->n : 1) * sizeof *o);
		if (!o)
			return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET,
					    "out of memory");
		s->out = o;
		for (uint32_t i = 0; i < s->n; i++)
			o[i] = (pd_stack){ pd_strtab_get(&p->strings, s->comm[i]),
					   &e->tree.nodes[s->leaf[i]], s->period[i],
					   s->samples[i] };
		s->out_valid = true;
	}
	*out = s->out;
	*n = s->n;
	return 0;
}

size_t pd_profile_stack_count(const pd_profile *p, size_t ev)
{
	return p && ev < p->nevents ? p->events[ev]->stacks.n : 0;
}

bool pd_profile_stack_at(const pd_profile *p, size_t ev, size_t i, pd_stack *out)
{
	if (!out || i >= pd_profile_stack_count(p, ev))
		return false;
	const pd_pevent *e = p->events[ev];
	const pd_stacktab *s = &e->stacks;
	*out = (pd_stack){ pd_strtab_get(&p->strings, s->comm[i]), &e->tree.nodes[s->leaf[i]],
			   s->period[i], s->samples[i] };
	return true;
}
