/*
 * The symbol cache sessions share (pd_symcache, perfdiff/symcache.h):
 * kallsyms tables by (path, flags), and the opened files of dsos with a
 * separate debug file by (ELF path, debug path, symfs).
 *
 * Each entry is loaded by the first thread that asks for it, outside the
 * cache's lock, while later askers wait on the condition variable: two
 * sides of a diff starting together inflate libc's DWARF once, not twice
 * in parallel.  Entries stay until the cache is freed, so everything an
 * entry hands out (tables, names, DWARF strings) lives as long as the
 * cache.  The few dsos with debug files keep their Dwfls open here; the
 * rest are the symbolizers' own business, as without a cache.
 */
#include <pthread.h>
#include <stdlib.h>

#include "kallsyms.h"
#include "symb_internal.h"

enum { ENTRY_LOADING, ENTRY_DONE };

typedef struct kentry {
	struct kentry *next;
	char *path;
	unsigned flags;
	int state;
	pd_kallsyms *ks;       /* NULL: could not be read, see err */
	pd_error err;          /* with ks NULL: why, for every caller */
} kentry;

typedef struct dentry {
	struct dentry *next;
	char *elf_path, *debug_path, *symfs;
	int state;
	pd_shdso dso;
} dentry;

struct pd_symcache {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	kentry *kallsyms;
	dentry *dsos;
};

int pd_symcache_new(pd_symcache **out, pd_error *err)
{
	if (!out)
		return pd_error_set(err, PD_EINVAL, "symcache", PD_NO_OFFSET,
				    "no output pointer given");
	*out = NULL;
	pd_symcache *c = calloc(1, sizeof *c);
	if (!c)
		return pd_error_set(err, PD_ENOMEM, "symcache", PD_NO_OFFSET, "out of memory");
	if (pthread_mutex_init(&c->mu, NULL) != 0) {
		free(c);
		return pd_error_set(err, PD_ENOMEM, "symcache", PD_NO_OFFSET,
				    "cannot create a mutex");
	}
	if (pthread_cond_init(&c->cv, NULL) != 0) {
		pthread_mutex_destroy(&c->mu);
		free(c);
		return pd_error_set(err, PD_ENOMEM, "symcache", PD_NO_OFFSET,
				    "cannot create a condition variable");
	}
	*out = c;
	return 0;
}

void pd_symcache_free(pd_symcache *c)
{
	if (!c)
		return;
	for (kentry *k = c->kallsyms, *next; k; k = next) {
		next = k->next;
		pd_kallsyms_free(k->ks);
		free(k->path);
		free(k);
	}
	for (dentry *d = c->dsos, *next; d; d = next) {
		next = d->next;
		pd_shdso_close(&d->dso);
		free(d->elf_path);
		free(d->debug_path);
		free(d->symfs);
		free(d);
	}
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static char *dup_or_null(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

/* Under c->mu: until *state is no longer loading, run `help` (unlocked)
 * while it finds work, then wait. */
static void wait_loaded(pd_symcache *c, const int *state, pd_symcache_help_fn help, void *ctx)
{
	while (*state == ENTRY_LOADING) {
		if (help) {
			pthread_mutex_unlock(&c->mu);
			bool did = help(ctx);
			pthread_mutex_lock(&c->mu);
			if (did)
				continue;
			help = NULL;   /* nothing left to do: just wait */
			continue;
		}
		pthread_cond_wait(&c->cv, &c->mu);
	}
}

const pd_kallsyms *pd_symcache_kallsyms(pd_symcache *c, const char *path, unsigned flags,
					pd_error *err, pd_symcache_help_fn help, void *help_ctx)
{
	pthread_mutex_lock(&c->mu);
	kentry *k = c->kallsyms;
	while (k && !(k->flags == flags && strcmp(k->path, path) == 0))
		k = k->next;
	if (k) {
		wait_loaded(c, &k->state, help, help_ctx);
		pthread_mutex_unlock(&c->mu);
		if (!k->ks && err)
			*err = k->err;
		return k->ks;
	}
	k = calloc(1, sizeof *k);
	if (k && !(k->path = strdup(path))) {
		free(k);
		k = NULL;
	}
	if (!k) {
		pthread_mutex_unlock(&c->mu);
		pd_error_reason(err, PD_ENOMEM, "out of memory");
		return NULL;
	}
	k->flags = flags;
	k->state = ENTRY_LOADING;
	k->next = c->kallsyms;
	c->kallsyms = k;
	pthread_mutex_unlock(&c->mu);

	pd_kallsyms *ks = NULL;
	k->err.message[0] = '\0'; /* PD_ENOMEM may come back without words */
	int rc = pd_kallsyms_load_flags(&ks, path, flags, &k->err);
	if (rc < 0) {
		ks = NULL;
		if (!k->err.message[0])
			pd_error_reason(&k->err, rc, "cannot be read");
	}

	pthread_mutex_lock(&c->mu);
	k->ks = ks;
	k->state = ENTRY_DONE;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	if (!ks && err)
		*err = k->err;
	return ks;
}

pd_shdso *pd_symcache_dso(pd_symcache *c, const char *elf_path, const char *debug_path,
			  const char *symfs, pd_shdso_open_fn open, void *ctx,
			  pd_symcache_help_fn help, void *help_ctx)
{
	pthread_mutex_lock(&c->mu);
	dentry *d = c->dsos;
	while (d && !(same_str(d->elf_path, elf_path) && same_str(d->debug_path, debug_path) &&
		      same_str(d->symfs, symfs)))
		d = d->next;
	if (d) {
		wait_loaded(c, &d->state, help, help_ctx);
		pthread_mutex_unlock(&c->mu);
		return &d->dso;
	}
	bool oom = false;
	d = calloc(1, sizeof *d);
	if (d) {
		d->elf_path = dup_or_null(elf_path, &oom);
		d->debug_path = dup_or_null(debug_path, &oom);
		d->symfs = dup_or_null(symfs, &oom);
	}
	if (!d || oom || pthread_mutex_init(&d->dso.lookup_mu, NULL) != 0) {
		if (d) {
			free(d->elf_path);
			free(d->debug_path);
			free(d->symfs);
		}
		free(d);
		pthread_mutex_unlock(&c->mu);
		return NULL;
	}
	d->dso.elf_path = d->elf_path;
	d->dso.debug_path = d->debug_path;
	d->dso.symfs = d->symfs;
	d->dso.failed = true;
	pd_arena_init(&d->dso.arena);
	d->state = ENTRY_LOADING;
	d->next = c->dsos;
	c->dsos = d;
	pthread_mutex_unlock(&c->mu);

	open(ctx, &d->dso);

	pthread_mutex_lock(&c->mu);
	d->state = ENTRY_DONE;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return &d->dso;
}

/* The size of each version of pd_symcache_stats, [0] unused. */
static const size_t stats_sizes[] = { 0, sizeof(pd_symcache_stats) };

int pd_symcache_stats_get(pd_symcache *c, pd_symcache_stats *out, unsigned version)
{
	if (!out || version == 0 || version >= sizeof stats_sizes / sizeof stats_sizes[0])
		return PD_EINVAL;
	pd_symcache_stats st;
	memset(&st, 0, sizeof st);
	if (c) {
		pthread_mutex_lock(&c->mu);
		for (const kentry *k = c->kallsyms; k; k = k->next) {
			st.kernel_tables++;
			st.failed += k->state == ENTRY_DONE && !k->ks;
		}
		for (const dentry *d = c->dsos; d; d = d->next) {
			st.dsos++;
			st.failed += d->state == ENTRY_DONE && d->dso.failed;
		}
		pthread_mutex_unlock(&c->mu);
	}
	memcpy(out, &st, stats_sizes[version]);
	return 0;
}
