/*
 * Events.  Each run's attrs are matched to the profile's events so that
 * the runs of one setup add up per event, and so that the robot's choice
 * of event (cycles, else cpu-clock, else task-clock) can be made on the
 * profile.  Identity is (type, low 32 bits of config, PMU): hybrid CPUs
 * put the PMU's type in the high config bits, and sampling modifiers
 * (":pp") do not make a different event.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define TYPE_HARDWARE 0u
#define TYPE_SOFTWARE 1u
#define TYPE_HW_CACHE 3u
#define TYPE_FIRST_DYNAMIC 6u
#define SW_CPU_CLOCK 0u
#define SW_TASK_CLOCK 1u
#define SW_DUMMY 9u
#define HW_CPU_CYCLES 0u

static bool is_dummy(uint32_t type, uint64_t config)
{
	return type == TYPE_SOFTWARE && config == SW_DUMMY;
}

static bool same_pmu(const pd_pevent *e, const pd_attr *a)
{
	if (e->pmu && a->pmu_name)
		return strcmp(e->pmu, a->pmu_name) == 0;
	if (e->pmu || a->pmu_name)
		return false;
	/* hybrid: the PMU's type sits in the high bits of a hardware config */
	if (a->type == TYPE_HARDWARE || a->type == TYPE_HW_CACHE)
		return (e->config >> 32) == (a->config >> 32);
	return true;
}

static bool same_event(const pd_pevent *e, const pd_attr *a)
{
	if ((uint32_t)e->config != (uint32_t)a->config || !same_pmu(e, a))
		return false;
	/* dynamic PMU type numbers differ between machines; a known PMU name
	 * identifies the PMU */
	if (e->type >= TYPE_FIRST_DYNAMIC && a->type >= TYPE_FIRST_DYNAMIC && e->pmu &&
	    a->pmu_name)
		return true;
	return e->type == a->type;
}

void pd_event_free(pd_pevent *e)
{
	if (!e)
		return;
	free(e->name);
	free(e->pmu);
	pd_cct_free(&e->tree);
	pd_stacktab_free(&e->stacks);
	pd_sitetab_free(&e->sites);
	free(e->total);
	free(e->samples);
	free(e->unresolved);
	free(e->block_samples);
	free(e->sf);
	free(e->flat);
	free(e->flat_frame);
	free(e->flat_vals);
	free(e->flat_of_frame);
	free(e->same_anc);
	free(e->frame_nodes);
	free(e->frame_nodes_at);
	free(e);
}

static int new_event(pd_profile *p, const pd_attr *a, int *out)
{
	if (p->nevents == p->cap_events) {
		size_t cap = p->cap_events ? p->cap_events * 2 : 4;
		pd_pevent **v = realloc(p->events, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		p->events = v;
		p->cap_events = cap;
	}
	if (p->nevents >= INT32_MAX)
		return PD_ELIMIT;
	pd_pevent *e = calloc(1, sizeof *e);
	if (!e)
		return PD_ENOMEM;
	char fallback[48];
	const char *name = a->name;
	if (!name) {
		snprintf(fallback, sizeof fallback, "%u:%llu", a->type,
			 (unsigned long long)a->config);
		name = fallback;
	}
	e->name = strdup(name);
	e->pmu = a->pmu_name ? strdup(a->pmu_name) : NULL;
	e->type = a->type;
	e->config = a->config;
	size_t nr = p->nruns ? p->nruns : 1;
	e->total = calloc(nr, sizeof *e->total);
	e->samples = calloc(nr, sizeof *e->samples);
	e->unresolved = calloc(nr, sizeof *e->unresolved);
	e->block_samples = calloc(nr * PD_BLOCK_MAX, sizeof *e->block_samples);
	pd_stacktab_init(&e->stacks);
	pd_sitetab_init(&e->sites);
	int rc = 0;
	if (!e->name || (a->pmu_name && !e->pmu) || !e->total || !e->samples ||
	    !e->unresolved || !e->block_samples || (rc = pd_cct_init(&e->tree, p)) < 0) {
		pd_event_free(e);
		return rc < 0 ? rc : PD_ENOMEM;
	}
	for (size_t r = 0; r < p->nruns; r++)
		if ((rc = pd_cct_begin_run(&e->tree, r)) < 0) {
			pd_event_free(e);
			return rc;
		}
	p->events[p->nevents] = e;
	*out = (int)p->nevents++;
	return 0;
}

int pd_events_match(pd_profile *p, const pd_attr *a, const bool *claimed, size_t nclaimed,
		    int *out)
{
	if (is_dummy(a->type, a->config)) {
		*out = -1;
		return 0;
	}
	for (size_t i = 0; i < p->nevents; i++)
		if ((i >= nclaimed || !claimed[i]) && same_event(p->events[i], a)) {
			*out = (int)i;
			return 0;
		}
	return new_event(p, a, out);
}

void pd_events_invalidate(pd_profile *p)
{
	for (size_t i = 0; i < p->nevents; i++) {
		p->events[i]->flat_valid = false;
		p->events[i]->stacks.out_valid = false;
	}
}

size_t pd_profile_event_count(const pd_profile *p)
{
	return p ? p->nevents : 0;
}

const char *pd_profile_event_name(const pd_profile *p, size_t ev)
{
	return p && ev < p->nevents ? p->events[ev]->name : NULL;
}

typedef bool (*event_pred)(const pd_pevent *e);

static bool is_cycles(const pd_pevent *e)
{
	return e->type == TYPE_HARDWARE && (uint32_t)e->config == HW_CPU_CYCLES;
}

static bool is_cpu_clock(const pd_pevent *e)
{
	return e->type == TYPE_SOFTWARE && e->config == SW_CPU_CLOCK;
}

static bool is_task_clock(const pd_pevent *e)
{
	return e->type == TYPE_SOFTWARE && e->config == SW_TASK_CLOCK;
}

static bool is_any(const pd_pevent *e)
{
	(void)e;
	return true;
}

int pd_profile_default_event(const pd_profile *p)
{
	if (!p)
		return -1;
	static const event_pred order[] = { is_cycles, is_cpu_clock, is_task_clock, is_any };
	for (int need_samples = 1; need_samples >= 0; need_samples--)
		for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
			for (size_t i = 0; i < p->nevents; i++) {
				const pd_pevent *e = p->events[i];
				if (order[k](e) && (!need_samples || e->samples_sum > 0))
					return (int)i;
			}
	return -1;
}

/* Length of `name` without a trailing ":modifiers" (perf's u k h p P G H
 * I S D W e b letters); tracepoint names such as "sched:sched_switch" keep
 * their colon because their tail is not all modifiers. */
static size_t base_len(const char *name)
{
	const char *colon = strrchr(name, ':');
	if (!colon || colon == name)
		return strlen(name);
	for (const char *c = colon + 1; *c; c++)
		if (!strchr("ukhpPGHISDWeb", *c))
			return strlen(name);
	return (size_t)(colon - name);
}

int pd_profile_find_event(const pd_profile *p, const char *name)
{
	if (!p || !name)
		return -1;
	for (size_t i = 0; i < p->nevents; i++)
		if (strcmp(p->events[i]->name, name) == 0)
			return (int)i;
	size_t qlen = base_len(name);
	for (size_t i = 0; i < p->nevents; i++) {
		const char *en = p->events[i]->name;
		size_t elen = base_len(en);
		if (elen == qlen && strncmp(en, name, qlen) == 0)
			return (int)i;
	}
	return -1;
}
