/*
 * Dsos opened ahead of need.  libdw decompresses a debug file's sections
 * whole when it opens them (libc's: 3.8 MB of zlib into 10 MB, ~40 ms),
 * and the first sample in the dso waits for it; each dso's symbol table
 * costs up to ~10 ms more.  The recording's BUILD_ID table names the dsos
 * that have samples before any record is read, so a thread opens them
 * meanwhile, those with separate debug files first: the session is busy
 * with other first-use work then (the kernel's symbol table), and the two
 * overlap instead of following one another.
 *
 * The thread works on Dwfls and tables of its own and nothing else of
 * the symbolizer: paths are found again with a private arena (which also
 * holds the tables' names, until the symbolizer is freed), warnings are
 * dropped (the session's own lookup makes them, at the usual point).
 * load_state() takes a dso over when its own file search found the same
 * files; one the thread has not started on yet it opens itself as before.
 *
 * The kernel's symbol table comes first when the recording has kernel
 * samples: reading /proc/kallsyms is ~40 ms of the kernel formatting
 * 120k lines, and the session reaches its first kernel frame only after
 * the recording's opening records.  The largest debug files come next.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kallsyms.h"
#include "symb_internal.h"

/* Dsos opened ahead at most: each holds descriptors and mappings until
 * it is taken over (or the symbolizer is freed). */
#define PD_PREFETCH_MAX 48

enum { JOB_PENDING, JOB_RUNNING, JOB_DONE, JOB_SKIPPED };

typedef struct pf_job {
	pd_dso_id id;
	int state;                           /* under mu */
	const char *elf_path, *debug_path;   /* as found by the thread */
	pd_dsostate *shadow;                 /* find_debuginfo's view during the open */
	Dwfl *dwfl;                          /* NULL: nothing to take over */
	Dwfl_Module *mod;
	pd_symtab *symtab;                   /* NULL: not built */
} pf_job;

struct pd_prefetch {
	pd_symbolizer *z;        /* read only: callbacks and config */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool cancel;             /* under mu */
	pf_job *jobs;
	size_t n;
	pd_arena arena;          /* the thread's strings, then the jobs' */
	pd_arena helper_arena;   /* strings of jobs the session ran (help()) */
	/* the kernel's table: path NULL when not prefetched */
	const char *ks_path;
	int ks_state;            /* under mu */
	pd_kallsyms *ks;         /* NULL: failed (the session reports why) */
};

static off_t file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
}

/* The size of the separate debug file that may exist (0: none), the cheap
 * test before the real search. */
static off_t debug_size(const pd_symbolizer *z, const pd_dso_id *id)
{
	char hex[2 * PD_BUILD_ID_MAX + 1];
	pd_hex(hex, id->build_id, id->build_id_size);
	char p[4400];
	snprintf(p, sizeof p, "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
		 z->cfg.symfs ? z->cfg.symfs : "", hex, hex + 2);
	off_t size = file_size(p);
	if (size > 0 || !z->buildid_dir || z->archive)
		return size;
	snprintf(p, sizeof p, "%s/.build-id/%.2s/%s/debug", z->buildid_dir, hex, hex + 2);
	return file_size(p);
}

static void open_one(struct pd_prefetch *pf, pf_job *j, pd_arena *arena)
{
	pd_symbolizer *z = pf->z;
	pd_dsofiles f;
	/* no warnings from a guess ahead: the symbolizer's own lookup of the
	 * dso, if it comes, tells them, and z's sink is not this thread's;
	 * no server asked either: that lookup asks once, where it waits */
	pd_symsources src = { z->cfg.symfs, z->buildid_dir,     z->archive,
			      NULL,          z->sources,   z->cfg.nsources, true };
	if (pd_find_dso_files(&src, &j->id, arena, &f, NULL) < 0)
		return;
	if (f.vdso_fd >= 0)
		close(f.vdso_fd);
	if (!f.elf_path || f.vdso_fd >= 0)
		return;
	/* with a pd_symcache and DWARF wanted, dsos are opened into it */
	if (pd_symbolizer_open_shared(z, &f))
		return;
	j->shadow = pd_dsostate_shadow(j->id.name, f.debug_path, z->cfg.symfs, z->cfg.threads,
				       z->debuginfod);
	if (!j->shadow)
		return;
	j->elf_path = f.elf_path;
	j->debug_path = f.debug_path;
	bool dwarf = f.debug_path && (z->cfg.inline_frames || z->cfg.srcline);
	pd_dwfl_open_detached(z, j->shadow, f.elf_path, dwarf, &j->dwfl, &j->mod);
	if (j->mod)
		j->symtab = pd_symtab_build(j->mod, arena);
}

/* Claim a job in `*state` (the kallsyms one or a dso's): false when it is
 * not pending any more (taken by a session) or the thread is cancelled. */
static bool claim(struct pd_prefetch *pf, int *state)
{
	pthread_mutex_lock(&pf->mu);
	bool go = !pf->cancel && *state == JOB_PENDING;
	if (go)
		*state = JOB_RUNNING;
	pthread_mutex_unlock(&pf->mu);
	return go;
}

static void finish(struct pd_prefetch *pf, int *state)
{
	pthread_mutex_lock(&pf->mu);
	*state = JOB_DONE;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
}

static void load_kallsyms(struct pd_prefetch *pf)
{
	/* no pd_error: the session loads it again on failure and says why */
	unsigned flags = pf->z->cfg.kernel_padding_names ? PD_KALLSYMS_KEEP_PADDING : 0;
	pd_kallsyms *ks = NULL;
	if (pf->z->cfg.cache && !pd_symarchive_owns(pf->ks_path))
		(void)pd_symcache_kallsyms(pf->z->cfg.cache, pf->ks_path, flags, NULL, NULL, NULL,
					   NULL);
	else if (pd_kallsyms_load_flags(&ks, pf->ks_path, flags, NULL) < 0)
		ks = NULL;
	/* published by finish()'s lock */
	pf->ks = ks;
}

static void *run(void *arg)
{
	struct pd_prefetch *pf = arg;
	if (pf->ks_path && claim(pf, &pf->ks_state)) {
		load_kallsyms(pf);
		finish(pf, &pf->ks_state);
	}
	for (size_t i = 0; i < pf->n; i++) {
		pf_job *j = &pf->jobs[i];
		if (!claim(pf, &j->state))
			continue;
		open_one(pf, j, &pf->arena);
		finish(pf, &j->state);
	}
	return NULL;
}

static bool same_id(const pd_dso_id *a, const pd_dso_id *b)
{
	return a->build_id_size && a->build_id_size == b->build_id_size &&
	       memcmp(a->build_id, b->build_id, a->build_id_size) == 0;
}

/* The kallsyms the session will load for the recorded kernel `b`, unless
 * there is none or it lacks a build-id (then it warns, and reads unverified
 * text only if a kernel sample comes). */
static void choose_kallsyms(struct pd_prefetch *pf, const pd_build_id *b)
{
	char cached[4400];
	pd_kallsyms_choice why;
	size_t n = b->size < PD_BUILD_ID_MAX ? b->size : PD_BUILD_ID_MAX;
	const char *path = pd_kallsyms_choose(pf->z, b->id, n, cached, sizeof cached, &why);
	if (path && why == PD_KALLSYMS_VERIFIED)
		pf->ks_path = pd_arena_strndup(&pf->arena, path, strlen(path));
}

void pd_symbolizer_prefetch(pd_symbolizer *z, const pd_build_id *ids, size_t n)
{
	if (!z || z->prefetch || !ids || n == 0)
		return;
	struct pd_prefetch *pf = calloc(1, sizeof *pf);
	if (!pf)
		return;  /* only an optimisation */
	pf->z = z;
	pd_arena_init(&pf->arena);
	pd_arena_init(&pf->helper_arena);
	pf->jobs = calloc(n < PD_PREFETCH_MAX ? n : PD_PREFETCH_MAX, sizeof *pf->jobs);
	if (!pf->jobs)
		goto fail;
	/* every distinct user dso by path, with the size of its debug file;
	 * the kernel and its modules are named from kallsyms */
	off_t *size = calloc(n, sizeof *size);
	if (!size)
		goto fail;
	size_t cand = 0;
	for (size_t k = 0; k < n; k++) {
		const pd_build_id *b = &ids[k];
		uint16_t mode = b->misc & PD_MISC_CPUMODE_MASK;
		if (b->path && strcmp(b->path, "[kernel.kallsyms]") == 0 && !pf->ks_path)
			choose_kallsyms(pf, b);
		if (!b->path || b->path[0] != '/' || b->size == 0 || mode == PD_CPUMODE_KERNEL ||
		    mode == PD_CPUMODE_GUEST_KERNEL)
			continue;
		pd_dso_id id = { .name = b->path };
		id.build_id_size = b->size < PD_BUILD_ID_MAX ? b->size : PD_BUILD_ID_MAX;
		memcpy(id.build_id, b->id, id.build_id_size);
		bool dup = false;
		for (size_t i = 0; i < cand && !dup; i++)
			dup = same_id(&pf->jobs[i].id, &id);
		if (dup)
			continue;
		if (cand == PD_PREFETCH_MAX) {
			/* a bigger debug file displaces the last plain one */
			off_t sz = debug_size(z, &id);
			size_t last = cand - 1;
			if (sz <= size[last])
				continue;
			cand = last;
			size[cand] = sz;
		} else {
			size[cand] = debug_size(z, &id);
		}
		pf->jobs[cand++].id = id;
		/* kept ordered: debug files by size, largest first (inflating
		 * them is the long part), then the others as listed */
		for (size_t i = cand - 1; i > 0 && size[i] > size[i - 1]; i--) {
			off_t ts = size[i];
			size[i] = size[i - 1];
			size[i - 1] = ts;
			pd_dso_id tid = pf->jobs[i].id;
			pf->jobs[i].id = pf->jobs[i - 1].id;
			pf->jobs[i - 1].id = tid;
		}
	}
	free(size);
	/* the header's strings are the reader's: the thread keeps copies */
	for (size_t i = 0; i < cand; i++) {
		const char *name = pf->jobs[i].id.name;
		pf->jobs[i].id.name = pd_arena_strndup(&pf->arena, name, strlen(name));
		if (!pf->jobs[i].id.name)
			goto fail;
	}
	pf->n = cand;
	if (pf->n == 0 && !pf->ks_path)
		goto fail;
	if (pthread_mutex_init(&pf->mu, NULL) != 0)
		goto fail;
	if (pthread_cond_init(&pf->cv, NULL) != 0) {
		pthread_mutex_destroy(&pf->mu);
		goto fail;
	}
	if (!pd_threads_start(z->cfg.threads, &pf->thread, run, pf)) {
		pthread_cond_destroy(&pf->cv);
		pthread_mutex_destroy(&pf->mu);
		goto fail;
	}
	z->prefetch = pf;
	return;
fail:
	free(pf->jobs);
	pd_arena_free(&pf->arena);
	pd_arena_free(&pf->helper_arena);
	free(pf);
}

static bool same_path(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/*
 * Wait, under mu, until the thread is done with what *state says it is
 * running.  Meanwhile the session opens dsos the thread has not started
 * (the largest first, as the thread would) instead of idling: the kernel's
 * table is wanted at the first sample of most system-wide recordings.
 */
/* Under mu: open one job the thread has not started, as the thread
 * would; false when none is left. */
static bool run_one_pending(struct pd_prefetch *pf)
{
	pf_job *next = NULL;
	for (size_t i = 0; i < pf->n && !next; i++)
		if (pf->jobs[i].state == JOB_PENDING)
			next = &pf->jobs[i];
	if (!next || pf->cancel)
		return false;
	next->state = JOB_RUNNING;
	pthread_mutex_unlock(&pf->mu);
	open_one(pf, next, &pf->helper_arena);
	pthread_mutex_lock(&pf->mu);
	next->state = JOB_DONE;
	pthread_cond_broadcast(&pf->cv);
	return true;
}

static void help_while_running(struct pd_prefetch *pf, const int *state)
{
	while (*state == JOB_RUNNING)
		if (!run_one_pending(pf))
			pthread_cond_wait(&pf->cv, &pf->mu);
}

bool pd_prefetch_help(void *symbolizer)
{
	pd_symbolizer *z = symbolizer;
	struct pd_prefetch *pf = z->prefetch;
	if (!pf)
		return false;
	pthread_mutex_lock(&pf->mu);
	bool did = run_one_pending(pf);
	pthread_mutex_unlock(&pf->mu);
	return did;
}

bool pd_prefetch_take(pd_symbolizer *z, const pd_dso_id *d, const char *elf_path,
		      const char *debug_path, Dwfl **dwfl, Dwfl_Module **mod,
		      pd_symtab **symtab)
{
	struct pd_prefetch *pf = z->prefetch;
	if (!pf || !elf_path)
		return false;
	pf_job *j = NULL;
	for (size_t i = 0; i < pf->n && !j; i++)
		if (same_id(&pf->jobs[i].id, d))
			j = &pf->jobs[i];
	if (!j)
		return false;
	pthread_mutex_lock(&pf->mu);
	/* not started: quicker to do it here than to wait for the jobs before */
	if (j->state == JOB_PENDING)
		j->state = JOB_SKIPPED;
	help_while_running(pf, &j->state);
	bool done = j->state == JOB_DONE;
	pthread_mutex_unlock(&pf->mu);
	if (!done || !j->dwfl || !same_path(j->elf_path, elf_path) ||
	    !same_path(j->debug_path, debug_path))
		return false;
	*dwfl = j->dwfl;
	*mod = j->mod;
	*symtab = j->symtab;
	j->dwfl = NULL;
	j->mod = NULL;
	j->symtab = NULL;
	return true;
}

bool pd_prefetch_take_kallsyms(pd_symbolizer *z, const char *path, pd_kallsyms **out)
{
	struct pd_prefetch *pf = z->prefetch;
	if (!pf || !pf->ks_path || strcmp(pf->ks_path, path) != 0)
		return false;
	pthread_mutex_lock(&pf->mu);
	if (pf->ks_state == JOB_PENDING)
		pf->ks_state = JOB_SKIPPED;
	help_while_running(pf, &pf->ks_state);
	pd_kallsyms *ks = pf->ks;
	pf->ks = NULL;
	pthread_mutex_unlock(&pf->mu);
	*out = ks;
	return ks != NULL;
}

bool pd_prefetch_kallsyms_loading(pd_symbolizer *z)
{
	struct pd_prefetch *pf = z->prefetch;
	if (!pf || !pf->ks_path)
		return false;
	pthread_mutex_lock(&pf->mu);
	/* pending: the thread's first job, about to start */
	bool busy = !pf->cancel && (pf->ks_state == JOB_PENDING || pf->ks_state == JOB_RUNNING);
	pthread_mutex_unlock(&pf->mu);
	return busy;
}

void pd_prefetch_free(pd_symbolizer *z)
{
	/* the tables taken over keep their names in pf->arena: this runs
	 * when the symbolizer is freed */
	struct pd_prefetch *pf = z->prefetch;
	if (!pf)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->cancel = true;
	pthread_mutex_unlock(&pf->mu);
	pd_threads_join(z->cfg.threads, pf->thread);
	pthread_cond_destroy(&pf->cv);
	pthread_mutex_destroy(&pf->mu);
	for (size_t i = 0; i < pf->n; i++) {
		if (pf->jobs[i].dwfl)
			dwfl_end(pf->jobs[i].dwfl);
		pd_symtab_free(pf->jobs[i].symtab);
		free(pf->jobs[i].shadow);
	}
	pd_kallsyms_free(pf->ks);
	free(pf->jobs);
	pd_arena_free(&pf->arena);
	pd_arena_free(&pf->helper_arena);
	free(pf);
	z->prefetch = NULL;
}
