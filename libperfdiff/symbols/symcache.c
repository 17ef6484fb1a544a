/*
 * The symbol cache sessions share (pd_symcache, perfdiff/symcache.h):
 * kallsyms tables by (path, flags), and the opened files of dsos by (ELF
 * path, debug path, symfs), each also by the identity its files had on
 * disk when read (device, inode, size, mtime; for /proc files the boot and
 * the module list), so that a file changed since is read anew.
 *
 * Each entry is loaded by the first thread that asks for it, outside the
 * cache's lock, while later askers wait on the condition variable: two
 * sides of a diff starting together inflate libc's DWARF once, not twice
 * in parallel.  A session holds the entries it uses (a count) until it is
 * freed, since its results point into them (tables, names, DWARF
 * strings); entries nobody holds stay for the next session, within the
 * memory budget, and past it go least recently used first.  An entry whose
 * file changed goes as soon as nobody holds it.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "kallsyms.h"
#include "symb_internal.h"

#define PROC_SUPER_MAGIC_ 0x9fa0   /* <linux/magic.h>'s PROC_SUPER_MAGIC */

enum { ENTRY_LOADING, ENTRY_DONE };
enum { KIND_KALLSYMS, KIND_DSO };

/* A file as it is on disk: what a change of it changes. */
typedef struct file_id {
	bool ok;                /* stat() succeeded */
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
	uint64_t proc;          /* /proc files: boot id and module list, hashed */
} file_id;

struct pd_symcache_entry {
	pd_symcache_entry *next;
	int kind, state;
	size_t refs;             /* sessions (and loaders, waiters) using it */
	size_t bytes;            /* counted in the cache's bytes once loaded */
	uint64_t tick;           /* last look-up, for least recently used */
	bool stale;              /* its file changed: never found again */
	file_id id[2];           /* kallsyms: [0]; a dso: ELF and debug file */
	/* kallsyms */
	char *path;
	unsigned flags;
	pd_kallsyms *ks;         /* NULL: could not be read, see err */
	pd_error err;            /* with ks NULL: why, for every caller */
	/* dso */
	char *elf_path, *debug_path, *symfs;
	pd_shdso dso;
};

struct pd_symcache {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pd_symcache_entry *entries;
	size_t max_bytes, bytes;
	uint64_t tick, hits, misses, evictions;
};

/* The size of each version of pd_symcache_options, [0] unused. */
static const size_t options_sizes[] = { 0, PD_OPTIONS_END(pd_symcache_options, max_bytes) };

int pd_symcache_options_init(pd_symcache_options *opts, unsigned version)
{
	const pd_symcache_options d = PD_SYMCACHE_OPTIONS_INIT;
	return pd_options_init(opts, version, &d, options_sizes, PD_SYMCACHE_OPTIONS_VERSION);
}

int pd_symcache_new(pd_symcache **out, pd_error *err)
{
	return pd_symcache_new_opts(out, NULL, err);
}

int pd_symcache_new_opts(pd_symcache **out, const pd_symcache_options *opts, pd_error *err)
{
	if (!out)
		return pd_error_set(err, PD_EINVAL, "symcache", PD_NO_OFFSET,
				    "no output pointer given");
	*out = NULL;
	pd_symcache_options o = PD_SYMCACHE_OPTIONS_INIT;
	int rc = opts ? pd_options_import(&o, opts, options_sizes, PD_SYMCACHE_OPTIONS_VERSION,
					  "pd_symcache_options", "symcache", err) : 0;
	if (rc < 0)
		return rc;
	pd_symcache *c = calloc(1, sizeof *c);
	if (!c)
		return pd_error_set(err, PD_ENOMEM, "symcache", PD_NO_OFFSET, "out of memory");
	c->max_bytes = o.max_bytes;
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

static void entry_free(pd_symcache_entry *e)
{
	if (e->kind == KIND_KALLSYMS)
		pd_kallsyms_free(e->ks);
	else
		pd_shdso_close(&e->dso);
	free(e->path);
	free(e->elf_path);
	free(e->debug_path);
	free(e->symfs);
	free(e);
}

void pd_symcache_free(pd_symcache *c)
{
	if (!c)
		return;
	for (pd_symcache_entry *e = c->entries, *next; e; e = next) {
		next = e->next;
		entry_free(e);
	}
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

/* ---- identity on disk ---- */

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h;
}

/* What a /proc file's content follows: the boot, and the kernel modules
 * loaded (a missing /proc/modules, a kernel without modules, hashes as
 * empty). */
static uint64_t proc_state(void)
{
	static const char *const files[] = { "/proc/sys/kernel/random/boot_id", "/proc/modules" };
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < 2; i++) {
		char *data = NULL;
		size_t len = 0;
		if (pd_read_file(files[i], (size_t)16 << 20, &data, &len, NULL) == 0)
			h = fnv(h, data, len);
		free(data);
		h = fnv(h, "/", 1);
	}
	return h;
}

static void file_id_of(const char *path, file_id *id)
{
	memset(id, 0, sizeof *id);
	struct stat st;
	if (!path || stat(path, &st) != 0)
		return;
	id->ok = true;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	struct statfs fs;
	if (S_ISREG(st.st_mode) && st.st_size == 0 && statfs(path, &fs) == 0 &&
	    fs.f_type == PROC_SUPER_MAGIC_)
		id->proc = proc_state();
}

static bool same_id(const file_id *a, const file_id *b)
{
	return a->ok == b->ok && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->proc == b->proc;
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

/* ---- the budget ---- */

/* Under c->mu: take `e` out of the list onto `*dead`. */
static void unlink_entry(pd_symcache *c, pd_symcache_entry *e, pd_symcache_entry **dead)
{
	for (pd_symcache_entry **p = &c->entries; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			break;
		}
	c->bytes -= e->bytes;
	c->evictions++;
	e->next = *dead;
	*dead = e;
}

/* The unused loaded entry looked up longest ago, or NULL. */
static pd_symcache_entry *lru_unused(pd_symcache *c)
{
	pd_symcache_entry *lru = NULL;
	for (pd_symcache_entry *e = c->entries; e; e = e->next)
		if (e->refs == 0 && e->state == ENTRY_DONE && (!lru || e->tick < lru->tick))
			lru = e;
	return lru;
}

/* Under c->mu: the entries to drop now (stale and unused; then unused
 * ones while above the budget), unlinked, for trim_free() after the lock. */
static pd_symcache_entry *trim(pd_symcache *c)
{
	pd_symcache_entry *dead = NULL;
	for (pd_symcache_entry *e = c->entries, *next; e; e = next) {
		next = e->next;
		if (e->stale && e->refs == 0 && e->state == ENTRY_DONE)
			unlink_entry(c, e, &dead);
	}
	pd_symcache_entry *lru;
	while (c->max_bytes && c->bytes > c->max_bytes && (lru = lru_unused(c)))
		unlink_entry(c, lru, &dead);
	return dead;
}

/* Free what trim() took out (a Dwfl's end may take a while: unlocked). */
static void trim_free(pd_symcache_entry *dead)
{
	for (pd_symcache_entry *next; dead; dead = next) {
		next = dead->next;
		entry_free(dead);
	}
}

void pd_symcache_release(pd_symcache *c, pd_symcache_entry *e)
{
	if (!c || !e)
		return;
	pthread_mutex_lock(&c->mu);
	e->refs--;
	pd_symcache_entry *dead = trim(c);
	pthread_mutex_unlock(&c->mu);
	trim_free(dead);
}

/* ---- look-ups ---- */

/* Under c->mu: until *state is no longer loading, run `help` (unlocked)
 * while it finds work, then wait. */
static void wait_loaded(pd_symcache *c, const int *state, pd_symcache_help_fn help, void *ctx)
{
	while (*state == ENTRY_LOADING) {
		if (help) {
			pthread_mutex_unlock(&c->mu);
			bool did = help(ctx);
			pthread_mutex_lock(&c->mu);
			if (!did)
				help = NULL;   /* nothing left to do: just wait */
			continue;
		}
		pthread_cond_wait(&c->cv, &c->mu);
	}
}

/* Under c->mu: the live entry of `key` (kind and names, as `match`
 * says) whose files are still `ids`; one whose files changed is marked
 * stale on the way.  Found: held (refs), counted a hit. */
typedef bool (*match_fn)(const pd_symcache_entry *e, const pd_symcache_entry *key);

static pd_symcache_entry *find(pd_symcache *c, const pd_symcache_entry *key, match_fn match)
{
	for (pd_symcache_entry *e = c->entries; e; e = e->next) {
		if (e->stale || e->kind != key->kind || !match(e, key))
			continue;
		if (!same_id(&e->id[0], &key->id[0]) || !same_id(&e->id[1], &key->id[1])) {
			e->stale = true;
			continue;
		}
		e->refs++;
		e->tick = ++c->tick;
		c->hits++;
		return e;
	}
	return NULL;
}

/* Under c->mu: `e` (allocated by the caller) in the list, loading, held. */
static void add_loading(pd_symcache *c, pd_symcache_entry *e)
{
	e->state = ENTRY_LOADING;
	e->refs = 1;
	e->tick = ++c->tick;
	c->misses++;
	e->next = c->entries;
	c->entries = e;
}

/* `e` loaded, `bytes` big: the waiters woken, the budget kept. */
static void loaded(pd_symcache *c, pd_symcache_entry *e, size_t bytes)
{
	pthread_mutex_lock(&c->mu);
	e->bytes = bytes;
	c->bytes += bytes;
	e->state = ENTRY_DONE;
	pthread_cond_broadcast(&c->cv);
	pd_symcache_entry *dead = trim(c);
	pthread_mutex_unlock(&c->mu);
	trim_free(dead);
}

/* The caller's hold of `e`, or its release when it wants none. */
static void hand_over(pd_symcache *c, pd_symcache_entry *e, pd_symcache_entry **hold)
{
	if (hold)
		*hold = e;
	else
		pd_symcache_release(c, e);
}

static bool match_kallsyms(const pd_symcache_entry *e, const pd_symcache_entry *key)
{
	return e->flags == key->flags && strcmp(e->path, key->path) == 0;
}

static void load_kallsyms(pd_symcache *c, pd_symcache_entry *k)
{
	pd_kallsyms *ks = NULL;
	k->err.message[0] = '\0'; /* PD_ENOMEM may come back without words */
	int rc = pd_kallsyms_load_flags(&ks, k->path, k->flags, &k->err);
	if (rc < 0) {
		ks = NULL;
		if (!k->err.message[0])
			pd_error_reason(&k->err, rc, "cannot be read");
	}
	k->ks = ks;
	loaded(c, k, pd_kallsyms_bytes(ks));
}

/* A new kallsyms entry for the key's file, or NULL (memory). */
static pd_symcache_entry *new_kallsyms(const pd_symcache_entry *key)
{
	pd_symcache_entry *k = calloc(1, sizeof *k);
	if (k && !(k->path = strdup(key->path))) {
		free(k);
		return NULL;
	}
	if (k) {
		k->kind = KIND_KALLSYMS;
		k->flags = key->flags;
		k->id[0] = key->id[0];
	}
	return k;
}

const pd_kallsyms *pd_symcache_kallsyms(pd_symcache *c, const char *path, unsigned flags,
					pd_error *err, pd_symcache_help_fn help, void *help_ctx,
					pd_symcache_entry **hold)
{
	if (hold)
		*hold = NULL;
	pd_symcache_entry key = { .kind = KIND_KALLSYMS, .path = (char *)path, .flags = flags };
	file_id_of(path, &key.id[0]);
	pthread_mutex_lock(&c->mu);
	pd_symcache_entry *k = find(c, &key, match_kallsyms);
	if (k) {
		wait_loaded(c, &k->state, help, help_ctx);
		pthread_mutex_unlock(&c->mu);
	} else {
		if (!(k = new_kallsyms(&key))) {
			pthread_mutex_unlock(&c->mu);
			pd_error_reason(err, PD_ENOMEM, "out of memory");
			return NULL;
		}
		add_loading(c, k);
		pthread_mutex_unlock(&c->mu);
		load_kallsyms(c, k);
	}
	const pd_kallsyms *ks = k->ks;
	if (!ks && err)
		*err = k->err;
	hand_over(c, k, ks ? hold : NULL);
	return ks;
}

static bool match_dso(const pd_symcache_entry *e, const pd_symcache_entry *key)
{
	return same_str(e->elf_path, key->elf_path) && same_str(e->debug_path, key->debug_path) &&
	       same_str(e->symfs, key->symfs);
}

/* A new dso entry for the key's files, or NULL (memory). */
static pd_symcache_entry *new_dso(const pd_symcache_entry *key)
{
	bool oom = false;
	pd_symcache_entry *d = calloc(1, sizeof *d);
	if (d) {
		d->kind = KIND_DSO;
		d->elf_path = dup_or_null(key->elf_path, &oom);
		d->debug_path = dup_or_null(key->debug_path, &oom);
		d->symfs = dup_or_null(key->symfs, &oom);
	}
	if (!d || oom || pthread_mutex_init(&d->dso.lookup_mu, NULL) != 0) {
		if (d) {
			free(d->elf_path);
			free(d->debug_path);
			free(d->symfs);
		}
		free(d);
		return NULL;
	}
	d->id[0] = key->id[0];
	d->id[1] = key->id[1];
	d->dso.elf_path = d->elf_path;
	d->dso.debug_path = d->debug_path;
	d->dso.symfs = d->symfs;
	d->dso.failed = true;
	pd_arena_init(&d->dso.arena);
	return d;
}

pd_shdso *pd_symcache_dso(pd_symcache *c, const char *elf_path, const char *debug_path,
			  const char *symfs, pd_shdso_open_fn open, void *ctx,
			  pd_symcache_help_fn help, void *help_ctx, pd_symcache_entry **hold)
{
	if (hold)
		*hold = NULL;
	pd_symcache_entry key = { .kind = KIND_DSO, .elf_path = (char *)elf_path,
				  .debug_path = (char *)debug_path, .symfs = (char *)symfs };
	file_id_of(elf_path, &key.id[0]);
	file_id_of(debug_path, &key.id[1]);
	pthread_mutex_lock(&c->mu);
	pd_symcache_entry *d = find(c, &key, match_dso);
	if (d) {
		wait_loaded(c, &d->state, help, help_ctx);
		pthread_mutex_unlock(&c->mu);
	} else {
		if (!(d = new_dso(&key))) {
			pthread_mutex_unlock(&c->mu);
			return NULL;
		}
		add_loading(c, d);
		pthread_mutex_unlock(&c->mu);
		open(ctx, &d->dso);
		loaded(c, d, d->dso.bytes + pd_arena_bytes(&d->dso.arena));
	}
	hand_over(c, d, hold);
	return hold ? &d->dso : NULL;   /* unheld, it may be gone already */
}

/* ---- stats ---- */

/* The size of each version of pd_symcache_stats, [0] unused. */
static const size_t stats_sizes[] = {
	0, PD_OPTIONS_END(pd_symcache_stats, failed), sizeof(pd_symcache_stats),
};

int pd_symcache_stats_get(pd_symcache *c, pd_symcache_stats *out, unsigned version)
{
	if (!out || version == 0 || version >= sizeof stats_sizes / sizeof stats_sizes[0])
		return PD_EINVAL;
	pd_symcache_stats st;
	memset(&st, 0, sizeof st);
	if (c) {
		pthread_mutex_lock(&c->mu);
		for (const pd_symcache_entry *e = c->entries; e; e = e->next) {
			bool failed = e->state == ENTRY_DONE &&
				      (e->kind == KIND_KALLSYMS ? !e->ks : e->dso.failed);
			st.kernel_tables += e->kind == KIND_KALLSYMS;
			st.dsos += e->kind == KIND_DSO;
			st.failed += failed;
		}
		st.hits = c->hits;
		st.misses = c->misses;
		st.evictions = c->evictions;
		st.bytes = c->bytes;
		st.max_bytes = c->max_bytes;
		pthread_mutex_unlock(&c->mu);
	}
	memcpy(out, &st, stats_sizes[version]);
	return 0;
}
