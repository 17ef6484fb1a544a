/*
 * Processes per command: how many pids ran under each command name at
 * once in a run, the most over the runs (pd_profile_comm_processes()).
 *
 * A diff judges a row within its process, by command name, because a
 * program's pid differs from run to run.  That holds for a program, one
 * process a run; a command run as many processes (a parallel build's
 * compilers, several perf tools, a shell script's children) is a mix of
 * jobs whose composition says which jobs ran, not what a code path costs.
 * The diff needs to tell the two apart, and only the fold sees pids.
 * Counting costs one lookup when a thread's command changes, not one a
 * sample.
 */
#include <stdlib.h>

#include "internal.h"

void pd_procs_init(pd_procs *t)
{
	memset(t, 0, sizeof *t);
	pd_idmap_init(&t->of);
	pd_idmap_init(&t->seen);
}

void pd_procs_free(pd_procs *t)
{
	pd_idmap_free(&t->of);
	pd_idmap_free(&t->seen);
	free(t->most);
	free(t->now);
	free(t->run_of);
	pd_procs_init(t);
}

/* The index of command `comm`, added when new; PD_NO_ID without memory. */
static uint32_t proc_index(pd_procs *t, uint32_t comm)
{
	uint32_t i = pd_idmap_get(&t->of, comm);
	if (i != PD_NO_ID)
		return i;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 64;
		uint32_t *m = realloc(t->most, cap * sizeof *m);
		if (m)
			t->most = m;
		uint32_t *w = m ? realloc(t->now, cap * sizeof *w) : NULL;
		if (w)
			t->now = w;
		uint32_t *r = w ? realloc(t->run_of, cap * sizeof *r) : NULL;
		if (!r)
			return PD_NO_ID;
		t->run_of = r;
		t->cap = cap;
	}
	if (pd_idmap_put(&t->of, comm, t->n) < 0)
		return PD_NO_ID;
	t->most[t->n] = t->now[t->n] = 0;
	t->run_of[t->n] = UINT32_MAX;
	return t->n++;
}

int pd_procs_note(pd_procs *t, size_t run, uint32_t comm, uint32_t pid)
{
	if (run != t->run) {  /* a new run: its own set of pids */
		pd_idmap_free(&t->seen);
		pd_idmap_init(&t->seen);
		t->run = run;
	}
	uint64_t key = (uint64_t)comm << 32 | pid;
	if (pd_idmap_get(&t->seen, key) != PD_NO_ID)
		return 0;
	uint32_t i = proc_index(t, comm);
	if (i == PD_NO_ID || pd_idmap_put(&t->seen, key, 1) < 0)
		return PD_ENOMEM;
	if (t->run_of[i] != (uint32_t)run) {
		t->run_of[i] = (uint32_t)run;
		t->now[i] = 0;
	}
	if (++t->now[i] > t->most[i])
		t->most[i] = t->now[i];
	return 0;
}

size_t pd_profile_comm_processes(const pd_profile *p, const char *comm)
{
	if (!p || !comm)
		return 0;
	uint32_t id = pd_strtab_find(&p->strings, comm, strlen(comm));
	uint32_t i = id == PD_NO_ID ? PD_NO_ID : pd_idmap_get(&p->procs.of, id);
	return i == PD_NO_ID ? 0 : p->procs.most[i];
}
