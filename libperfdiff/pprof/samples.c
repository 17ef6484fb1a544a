/*
 * The export's samples: one pprof Sample per distinct (locations, labels),
 * the values of every event side by side, so that samples of several
 * events with the same stack and labels are one.  Labels are the command
 * ("comm"), and as the profile has them the pid, tid and CPU (numeric
 * "pid", "tid", "cpu") and the time block ("block").
 */
#include <stdlib.h>

#include "internal.h"

void pp_samples_init(pp_samples *s, size_t ntypes)
{
	memset(s, 0, sizeof *s);
	s->ntypes = ntypes;
	pd_u64map_init(&s->of);
}

void pp_samples_free(pp_samples *s)
{
	free(s->v);
	pd_u64map_free(&s->of);
}

/* The label keys' string indexes, made once. */
static int keys(pp_samples *s, pp_tables *t)
{
	if (s->k_comm)
		return 0;
	s->k_comm = pp_tables_str(t, "comm");
	s->k_block = pp_tables_str(t, "block");
	s->k_pid = pp_tables_str(t, "pid");
	s->k_tid = pp_tables_str(t, "tid");
	s->k_cpu = pp_tables_str(t, "cpu");
	return s->k_comm < 0 || s->k_block < 0 || s->k_pid < 0 || s->k_tid < 0 || s->k_cpu < 0
		       ? PD_ENOMEM
		       : 0;
}

/* The labels of `l` in pprof's order of keys written: comm, pid, tid,
 * cpu, block; their number. */
static size_t label_list(const pp_samples *s, const pp_labels *l, int64_t comm,
			 pp_label *out)
{
	size_t n = 0;
	out[n++] = (pp_label){ .key = s->k_comm, .str = comm };
	if (l->has_pid) {
		/* as perf prints them: a tid of -1 is -1 */
		out[n++] = (pp_label){ .key = s->k_pid, .num = (int32_t)l->pid };
		out[n++] = (pp_label){ .key = s->k_tid, .num = (int32_t)l->tid };
	}
	if (l->has_cpu)
		out[n++] = (pp_label){ .key = s->k_cpu, .num = l->cpu };
	if (l->timed)
		out[n++] = (pp_label){ .key = s->k_block, .num = l->block };
	return n;
}

static bool same_sample(const pp_sample *s, const uint64_t *loc, size_t nloc,
			const pp_label *lab, size_t nl)
{
	if (s->n_location_id != nloc || s->n_label != nl ||
	    memcmp(s->location_id, loc, nloc * sizeof *loc) != 0)
		return false;
	for (size_t i = 0; i < nl; i++)
		if (s->label[i]->key != lab[i].key || s->label[i]->str != lab[i].str ||
		    s->label[i]->num != lab[i].num)
			return false;
	return true;
}

static pp_sample *new_sample(pp_samples *ss, pp_tables *t, const uint64_t *loc, size_t nloc,
			     const pp_label *lab, size_t nl)
{
	pd_arena *a = &t->arena;
	pp_sample *s = pd_arena_alloc(a, sizeof *s);
	pp_label **lp = pd_arena_alloc(a, nl * sizeof *lp);
	if (!s || !lp)
		return NULL;
	perftools__profiles__sample__init(s);
	s->location_id = pd_arena_memdup(a, loc, nloc * sizeof *loc);
	s->value = pd_arena_alloc(a, ss->ntypes * sizeof *s->value);
	if (!s->location_id || !s->value)
		return NULL;
	s->n_location_id = nloc;
	s->n_value = ss->ntypes;
	memset(s->value, 0, ss->ntypes * sizeof *s->value);
	for (size_t i = 0; i < nl; i++) {
		if (!(lp[i] = pd_arena_alloc(a, sizeof *lp[i])))
			return NULL;
		perftools__profiles__label__init(lp[i]);
		lp[i]->key = lab[i].key;
		lp[i]->str = lab[i].str;
		lp[i]->num = lab[i].num;
	}
	s->label = lp;
	s->n_label = nl;
	return s;
}

/* The sample of (loc, labels), made if new; NULL without memory. */
static pp_sample *sample_of(pp_samples *s, pp_tables *t, const uint64_t *loc, size_t nloc,
			    const pp_labels *l)
{
	int64_t comm = pp_tables_str(t, l->comm);
	if (comm < 0 || keys(s, t) < 0)
		return NULL;
	pp_label lab[5];
	size_t nl = label_list(s, l, comm, lab);
	uint64_t w[3] = { (uint64_t)comm << 8 | l->block, (uint64_t)l->pid << 32 | l->tid,
			  l->cpu };
	uint64_t h = pd_hash_words(loc, nloc * sizeof *loc) ^ pd_hash_words(w, sizeof w);
	for (;; h++) {
		uintptr_t i = (uintptr_t)pd_u64map_get(&s->of, h);
		if (!i)
			break;
		if (same_sample(s->v[i - 1], loc, nloc, lab, nl))
			return s->v[i - 1];
	}
	if (pd_grow(&s->v, &s->cap, s->n + 1, sizeof *s->v) < 0)
		return NULL;
	pp_sample *n = new_sample(s, t, loc, nloc, lab, nl);
	if (!n || pd_u64map_put(&s->of, h, (void *)(uintptr_t)(s->n + 1)) < 0)
		return NULL;
	s->v[s->n++] = n;
	return n;
}

int pp_samples_add(pp_samples *s, pp_tables *t, const uint64_t *loc, size_t nloc,
		   const pp_labels *l, size_t slot, uint64_t samples, uint64_t period)
{
	pp_sample *x = sample_of(s, t, loc, nloc, l);
	if (!x)
		return PD_ENOMEM;
	/* sums in 128 bits: beyond INT64_MAX the format cannot hold them */
	unsigned __int128 a = (unsigned __int128)(uint64_t)x->value[slot] + samples;
	unsigned __int128 b = (unsigned __int128)(uint64_t)x->value[slot + 1] + period;
	if (a > INT64_MAX || b > INT64_MAX)
		return PD_ELIMIT;
	x->value[slot] = (int64_t)a;
	x->value[slot + 1] = (int64_t)b;
	return 0;
}
