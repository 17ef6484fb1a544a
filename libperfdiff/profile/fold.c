/*
 * pd_profile_add_file(): one run.  Samples come from a pd_session with
 * their frames named, packed into records by the pipeline (pipeline.h);
 * each frame becomes a frame id and the chain, walked root → leaf, a path
 * of the event's tree.
 *
 * Names are pointers into the session that stay valid until it is freed,
 * so a per-run cache keyed by those pointers turns a frame into its id
 * without hashing or canonicalising the name again: the string work is
 * done once per distinct (symbol, dso) of the run, not once per frame.
 *
 * The rest is memory latency: the frame cache and the tree's edges are
 * larger than the CPU caches, and a sample touches one slot of each per
 * frame.  So a record is folded in phases: what it shares with its
 * thread's previous sample is taken from a small per-thread path; for the
 * rest, every frame-cache slot is prefetched, then the frame ids are read,
 * then every edge slot (placed by path hash, see internal.h) is
 * prefetched, then the edges are walked.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pipeline.h"
#include "session/session.h"

/* ------------------------------------------------ frame cache (per run) */

/* A pd_fkey's fields with the id in what would be its padding: 32 bytes
 * a slot instead of 40, two to a cache line.  The cache holds every
 * distinct frame key of the run (a million on a heavy system-wide
 * recording with stripped binaries, each unnamed address its own), so
 * this is 17 MB at the fold's peak. */
typedef struct fslot {
	const char *sym, *dso;
	uint64_t addr;       /* pd_fkey's addr or unit, as bits */
	uint32_t flags;
	uint32_t id;         /* PD_NO_ID = free slot */
} fslot;

static fslot fslot_of(const pd_fkey *k, uint32_t id)
{
	return (fslot){ k->sym, k->dso, k->addr, k->flags, id };
}

static pd_fkey fslot_key(const fslot *s)
{
	pd_fkey k = { .sym = s->sym, .dso = s->dso, .addr = s->addr, .flags = s->flags };
	return k;
}

static bool fslot_eq(const fslot *s, const pd_fkey *k)
{
	return s->sym == k->sym && s->dso == k->dso && s->addr == k->addr &&
	       s->flags == k->flags;
}

typedef struct fcache {
	fslot *v;
	size_t cap, n;
} fcache;

static uint64_t fkey_hash(const pd_fkey *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k->sym * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)(uintptr_t)k->dso + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
	h ^= k->addr * 0xc2b2ae3d27d4eb4full + k->flags;
	return pd_mix64(h);
}

static bool fkey_eq(const pd_fkey *a, const pd_fkey *b)
{
	return a->sym == b->sym && a->dso == b->dso && a->addr == b->addr &&
	       a->flags == b->flags;
}

static int fcache_grow(fcache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 4096;
	fslot *v = malloc(cap * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (size_t i = 0; i < cap; i++)
		v[i].id = PD_NO_ID;
	for (size_t i = 0; i < c->cap; i++) {
		if (c->v[i].id == PD_NO_ID)
			continue;
		pd_fkey k = fslot_key(&c->v[i]);
		size_t j = fkey_hash(&k) & (cap - 1);
		while (v[j].id != PD_NO_ID)
			j = (j + 1) & (cap - 1);
		v[j] = c->v[i];
	}
	free(c->v);
	c->v = v;
	c->cap = cap;
	return 0;
}

/* ------------------------------------------------ per-thread path cache */

/*
 * Consecutive samples of one thread often share their outer frames:
 * remembering each thread's last path (frame keys, nodes and path hashes,
 * root first) lets a sample skip the lookups of the part it shares with
 * the previous one.
 */
typedef struct pathent {
	pd_fkey k;
	uint32_t node;
	uint64_t hash;
} pathent;

typedef struct tpath {
	pathent *v;
	uint32_t n, cap;
	uint32_t leaf, comm, stack;  /* last sample's stack entry and command */
	const char *comm_name;       /* the session's string that `comm` came from */
	uint32_t site;               /* last sample's sites entry (sites.c) */
} tpath;

/* One frame of the sample being folded. */
typedef struct work {
	uint64_t khash;      /* frame-cache hash */
	uint32_t frame;
	uint64_t phash;      /* path hash */
} work;

/* ------------------------------------------------------------ the run */

typedef struct run_state {
	pd_profile *p;
	size_t run;
	fcache frames;
	int *ev_of_attr;           /* attr index → event, -1 ignored, -2 unknown yet */
	size_t nattrs;
	bool *claimed;             /* events taken by an attr of this run */
	size_t nclaimed;
	char *name;                /* canonical-name scratch */
	size_t cap_name;
	pd_idmap thread_of;        /* event << 32 | tid → index in paths */
	tpath *paths;
	uint32_t npaths, cap_paths;
	work *w;                   /* one sample's unshared frames, root first */
	size_t cap_w;
	uint32_t *ids;             /* one sample's frame ids, for the stack filters */
	size_t cap_ids;
	uint32_t last_comm_id;
	const char *last_comm_name;
	pd_blockrun blocks;        /* time blocks of this run */
	/* the dsos of this run's frames, for the symbol facts: the session's
	 * name pointers, kernel-mode ones flagged in bit 0 of the key */
	pd_idmap dso_seen;
	const char **dsos;
	bool *dso_kernel;
	uint32_t ndsos, cap_dsos;
	uint64_t last_dso;
	pd_sitefold sites;         /* PD_PROFILE_KEEP_SITES */
} run_state;

static void run_free(run_state *st)
{
	free(st->frames.v);
	free(st->ev_of_attr);
	free(st->claimed);
	free(st->name);
	pd_idmap_free(&st->thread_of);
	for (uint32_t i = 0; i < st->npaths; i++)
		free(st->paths[i].v);
	free(st->paths);
	free(st->w);
	free(st->ids);
	pd_blockrun_free(&st->blocks);
	pd_idmap_free(&st->dso_seen);
	free(st->dsos);
	free(st->dso_kernel);
	pd_sitefold_free(&st->sites);
}

/* Remember a dso of this run's frames (once per new frame key, not per
 * sample); 0 or PD_ENOMEM. */
static int note_dso(run_state *st, const char *dso, bool kernel)
{
	uint64_t key = (uint64_t)(uintptr_t)dso << 1 | kernel;
	if (key == st->last_dso || pd_idmap_get(&st->dso_seen, key) != PD_NO_ID)
		return 0;
	if (st->ndsos == st->cap_dsos) {
		uint32_t cap = st->cap_dsos ? st->cap_dsos * 2 : 64;
		const char **d = cap > st->cap_dsos ? realloc(st->dsos, cap * sizeof *d) : NULL;
		if (!d)
			return PD_ENOMEM;
		st->dsos = d;
		bool *k = realloc(st->dso_kernel, cap * sizeof *k);
		if (!k)
			return PD_ENOMEM;
		st->dso_kernel = k;
		st->cap_dsos = cap;
	}
	if (pd_idmap_put(&st->dso_seen, key, st->ndsos) < 0)
		return PD_ENOMEM;
	st->dsos[st->ndsos] = dso;
	st->dso_kernel[st->ndsos++] = kernel;
	st->last_dso = key;
	return 0;
}

/* The files each dso of the run was named from, before the session goes. */
static int record_facts(run_state *st, pd_session *s)
{
	for (uint32_t i = 0; i < st->ndsos; i++) {
		int rc = pd_facts_record(st->p->facts, s, st->dsos[i], st->dso_kernel[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The profile's frame id for a frame not seen in this run yet. */
static uint32_t new_frame_id(run_state *st, const pd_fkey *k)
{
	pd_profile *p = st->p;
	const char *name;
	size_t len;
	char addr[24];
	if (!k->sym && (p->options.o.flags & PD_PROFILE_MERGE_UNRESOLVED)) {
		name = "[unknown]";
		len = strlen(name);
	} else if (!k->sym) {
		len = (size_t)snprintf(addr, sizeof addr, "0x%016" PRIx64, k->addr);
		name = addr;
	} else if (p->options.o.flags & PD_PROFILE_KEEP_SUFFIXES) {
		name = k->sym;
		len = strlen(name);
	} else {
		len = pd_symbol_canonical(k->sym, st->name, st->cap_name);
		if (len >= st->cap_name) {
			size_t cap = len + 1 > 256 ? len + 1 : 256;
			char *b = realloc(st->name, cap);
			if (!b)
				return PD_NO_ID;
			st->name = b;
			st->cap_name = cap;
			pd_symbol_canonical(k->sym, st->name, st->cap_name);
		}
		name = st->name;
	}
	uint32_t sym = pd_strtab_intern(&p->strings, name, len);
	const char *dso_name = k->dso ? k->dso : "[unknown]";
	if (k->dso && note_dso(st, k->dso, (k->flags & PD_PF_KERNEL) != 0) < 0)
		return PD_NO_ID;
	uint32_t dso = pd_strtab_intern(&p->strings, dso_name, strlen(dso_name));
	if (sym == PD_NO_ID || dso == PD_NO_ID)
		return PD_NO_ID;
	uint32_t id = pd_frametab_get(&p->frames, sym, dso, k->flags);
	if (id != PD_NO_ID && k->sym && k->unit && p->frames.v[id].unit == PD_NO_ID)
		p->frames.v[id].unit = pd_strtab_intern(&p->strings, k->unit, strlen(k->unit));
	return id;
}

static uint32_t frame_id(run_state *st, const pd_fkey *k, uint64_t khash)
{
	fcache *c = &st->frames;
	if (c->cap) {
		size_t mask = c->cap - 1;
		for (size_t i = khash & mask; c->v[i].id != PD_NO_ID; i = (i + 1) & mask)
			if (fslot_eq(&c->v[i], k))
				return c->v[i].id;
	}
	uint32_t id = new_frame_id(st, k);
	if (id == PD_NO_ID)
		return id;
	/* at most three quarters full, like the tree's edges (cct.c) */
	if (4 * (c->n + 1) > 3 * c->cap && fcache_grow(c) < 0)
		return PD_NO_ID;
	size_t mask = c->cap - 1;
	size_t i = khash & mask;
	while (c->v[i].id != PD_NO_ID)
		i = (i + 1) & mask;
	c->v[i] = fslot_of(k, id);
	c->n++;
	return id;
}

/* The event of the record's attr for this run: -1 to ignore the sample. */
static int event_of(run_state *st, const pd_srec *r, int *out)
{
	int a = r->attr_index;
	if (a < 0 || !r->attr) {
		*out = -1;
		return 0;
	}
	if ((size_t)a >= st->nattrs) {
		size_t n = (size_t)a + 1;
		int *v = realloc(st->ev_of_attr, n * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		for (size_t i = st->nattrs; i < n; i++)
			v[i] = -2;
		st->ev_of_attr = v;
		st->nattrs = n;
	}
	if (st->ev_of_attr[a] == -2) {
		int ev = -1, rc;
		if ((rc = pd_events_match(st->p, r->attr, st->claimed, st->nclaimed, &ev)) < 0)
			return rc;
		if (ev >= 0) {
			if ((size_t)ev >= st->nclaimed) {
				size_t n = st->p->nevents;
				bool *c = realloc(st->claimed, n * sizeof *c);
				if (!c)
					return PD_ENOMEM;
				memset(c + st->nclaimed, 0, (n - st->nclaimed) * sizeof *c);
				st->claimed = c;
				st->nclaimed = n;
			}
			st->claimed[ev] = true;
		}
		st->ev_of_attr[a] = ev;
	}
	*out = st->ev_of_attr[a];
	return 0;
}

static uint32_t comm_id(run_state *st, const tpath *tp, const char *comm)
{
	/* command names are the session's own strings, interned
	 * (pd_resolved_sample.comm): a thread's name rarely changes and runs
	 * of samples come from one thread, so a pointer compare settles most;
	 * a different pointer may still be the same name, which interning
	 * finds */
	if (tp->comm != PD_NO_ID && tp->comm_name == comm)
		return tp->comm;
	if (st->last_comm_id != PD_NO_ID && st->last_comm_name == comm)
		return st->last_comm_id;
	uint32_t id = pd_strtab_intern(&st->p->strings, comm, strlen(comm));
	if (id != PD_NO_ID) {
		st->last_comm_id = id;
		st->last_comm_name = comm;
	}
	return id;
}

static int grow_path(tpath *tp, size_t n)
{
	if (n > UINT32_MAX)
		return PD_ELIMIT;
	size_t cap = tp->cap ? tp->cap : 32;
	while (cap < n)
		cap *= 2;
	pathent *v = realloc(tp->v, cap * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	tp->v = v;
	tp->cap = (uint32_t)cap;
	return 0;
}

static tpath *thread_path(run_state *st, uint32_t ev, uint32_t tid)
{
	uint64_t key = (uint64_t)ev << 32 | tid;
	uint32_t i = pd_idmap_get(&st->thread_of, key);
	if (i != PD_NO_ID)
		return &st->paths[i];
	if (st->npaths == st->cap_paths) {
		uint32_t cap = st->cap_paths ? st->cap_paths * 2 : 64;
		if (cap <= st->cap_paths || cap > PD_ID_LIMIT)
			return NULL;
		tpath *v = realloc(st->paths, cap * sizeof *v);
		if (!v)
			return NULL;
		st->paths = v;
		st->cap_paths = cap;
	}
	if (pd_idmap_put(&st->thread_of, key, st->npaths) < 0)
		return NULL;
	tpath *tp = &st->paths[st->npaths++];
	*tp = (tpath){ NULL, 0, 0, PD_NO_ID, PD_NO_ID, PD_NO_ID, NULL, UINT32_MAX };
	return tp;
}

/* The leaf node of the record's path in `t`, through `tp`. */
static uint32_t walk(run_state *st, pd_cct *t, tpath *tp, const pd_fkey *fr, size_t n)
{
	uint32_t node = 0;
	uint64_t h = PD_ROOT_PATH_HASH;
	size_t d = 0;
	/* the part shared with this thread's previous sample */
	for (; d < n && d < tp->n; d++) {
		if (!fkey_eq(&fr[n - 1 - d], &tp->v[d].k))
			break;
		node = tp->v[d].node;
		h = tp->v[d].hash;
	}
	size_t d0 = d, m = n - d0;
	if (m > st->cap_w) {
		work *w = realloc(st->w, m * sizeof *w);
		if (!w)
			return PD_NO_ID;
		st->w = w;
		st->cap_w = m;
	}
	work *w = st->w;
	const fcache *c = &st->frames;
	for (size_t j = 0; j < m; j++) {
		w[j].khash = fkey_hash(&fr[n - 1 - d0 - j]);
		if (c->cap)
			__builtin_prefetch(&c->v[w[j].khash & (c->cap - 1)]);
	}
	for (size_t j = 0; j < m; j++) {
		w[j].frame = frame_id(st, &fr[n - 1 - d0 - j], w[j].khash);
		if (w[j].frame == PD_NO_ID)
			return PD_NO_ID;
		h = pd_path_hash(h, w[j].frame);
		w[j].phash = h;
		pd_cct_prefetch(t, h);
	}
	for (size_t j = 0; j < m; j++) {
		node = pd_cct_child_id(t, node, w[j].frame, w[j].phash);
		if (node == PD_NO_ID)
			return PD_NO_ID;
		tp->v[d0 + j] = (pathent){ fr[n - 1 - d0 - j], node, w[j].phash };
	}
	tp->n = (uint32_t)n;
	return node;
}

/*
 * The leaf node of a record whose stack the stack filters see first
 * (stackfilter.c): its frame ids, filtered, then walked from the root.
 * The per-thread path is not used: a filtered stack is not the record's.
 * *node is PD_NO_ID when the filters dropped the sample.  0 or an error.
 */
static int walk_filtered(run_state *st, pd_pevent *e, const pd_srec *r, uint32_t *node)
{
	size_t n = r->nframes;
	if (n > st->cap_ids) {
		uint32_t *v = realloc(st->ids, n * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		st->ids = v;
		st->cap_ids = n;
	}
	const pd_fkey *fr = pd_srec_frames(r);
	for (size_t i = 0; i < n; i++)
		if ((st->ids[i] = frame_id(st, &fr[i], fkey_hash(&fr[i]))) == PD_NO_ID)
			return PD_ENOMEM;
	const uint32_t *kept;
	int rc = pd_stackfilter_apply(st->p, e, st->run, st->ids, n, 1, r->period, &kept, &n);
	if (rc < 0)
		return rc;
	*node = PD_NO_ID;
	if (n && (*node = pd_cct_leaf_of(&e->tree, kept, n)) == PD_NO_ID)
		return PD_ENOMEM;
	return 0;
}

/* The leaf node of the record's path, through its thread's path cache or
 * the stack filters; PD_NO_ID, 0: dropped by the filters.  0 or an
 * error. */
static int leaf_of(run_state *st, pd_pevent *e, tpath *tp, const pd_srec *r, uint32_t *node)
{
	if (st->p->stackfilter.any)
		return walk_filtered(st, e, r, node);
	*node = walk(st, &e->tree, tp, pd_srec_frames(r), r->nframes);
	if (*node == PD_NO_ID) {
		tp->n = 0;
		return PD_ENOMEM;
	}
	return 0;
}

static int fold_record(run_state *st, const pd_srec *r)
{
	int ev;
	int rc = event_of(st, r, &ev);
	if (rc < 0 || ev < 0)
		return rc;
	pd_pevent *e = st->p->events[ev];
	if (r->hidden || r->nframes == 0) {
		if (r->leaf_unresolved)
			e->unresolved[st->run] += r->period;
		return 0;
	}
	tpath *tp = thread_path(st, (uint32_t)ev, r->tid);
	if (!tp || (r->nframes > tp->cap && grow_path(tp, r->nframes) < 0))
		return PD_ENOMEM;
	pd_cct *t = &e->tree;
	uint32_t node;
	if ((rc = leaf_of(st, e, tp, r, &node)) < 0 || node == PD_NO_ID)
		return rc;  /* a sample the stack filters dropped counts nowhere */
	if (r->leaf_unresolved)
		e->unresolved[st->run] += r->period;
	uint32_t comm = comm_id(st, tp, r->comm);
	if (comm == PD_NO_ID || (rc = pd_cct_add_self(t, node, r->period)) < 0)
		return rc < 0 ? rc : PD_ENOMEM;
	/* a thread's command changes rarely: count its process then */
	if (tp->comm != comm && (rc = pd_procs_note(&st->p->procs, st->run, comm, r->pid)) < 0)
		return rc;
	if (r->chain_dropped && (rc = pd_cct_add_chainless(t, node, r->period)) < 0)
		return rc;
	if (tp->leaf == node && tp->comm == comm && tp->stack != PD_NO_ID) {
		e->stacks.period[tp->stack] += r->period;
		e->stacks.samples[tp->stack]++;
	} else {
		if ((rc = pd_stacktab_add(&e->stacks, comm, node, r->period)) < 0)
			return rc;
		tp->leaf = node;
		tp->stack = pd_idmap_get(&e->stacks.index, (uint64_t)comm << 32 | node);
	}
	tp->comm = comm;
	tp->comm_name = r->comm;
	uint32_t block = pd_blockrun_index(&st->blocks, r->has_time, r->time);
	if ((rc = pd_blockrun_count(&st->blocks, (uint32_t)ev, node, block)) < 0)
		return rc;
	/* the grid may widen later in the run: the block at this width,
	 * renumbered when the run ends (pd_sites_end_run()) */
	pd_sitekey sk = { st->run, node, comm, block | (uint32_t)st->blocks.shift << 16 };
	if (r->sites && (rc = pd_sites_add(st->p, &st->sites, &e->sites, &sk, r, &tp->site)) < 0)
		return rc;
	e->total[st->run] += r->period;
	e->samples[st->run]++;
	return 0;
}

int pd_profile_end_run(pd_profile *p)
{
	int rc = 0;
	for (size_t i = 0; i < p->nevents; i++) {
		pd_pevent *e = p->events[i];
		e->total_sum = e->samples_sum = e->unresolved_sum = 0;
		for (size_t r = 0; r < p->nruns; r++) {
			e->total_sum += e->total[r];
			e->samples_sum += e->samples[r];
			e->unresolved_sum += e->unresolved[r];
		}
		int frc = pd_cct_finalise(&e->tree);
		if (frc < 0)
			rc = frc;
	}
	pd_events_invalidate(p);
	return rc;
}

/* Fold every record the pipeline delivers; 0 or an error in `err`. */
static int fold_all(run_state *st, pd_pipeline *pl, const char *path, pd_error *err)
{
	const uint8_t *data;
	size_t len;
	int rc;
	while ((rc = pd_pipeline_next(pl, &data, &len, err)) > 0) {
		for (size_t off = 0; off < len;) {
			const pd_srec *r = (const pd_srec *)(data + off);
			int frc = fold_record(st, r);
			if (frc < 0) {
				pd_pipeline_cancel(pl);
				return pd_error_set(err, frc, path, PD_NO_OFFSET,
						    "%s while folding samples",
						    frc == PD_ELIMIT ? "too many nodes"
								     : "out of memory");
			}
			off += pd_srec_bytes(r);
		}
	}
	return rc;
}

/*
 * Events first seen in this run, put in the order of their attrs in the
 * file, which is perf report's order (and so the robot's: its parser
 * folds later events into the first).  They were made as their first
 * samples came, an order that depends on how the kernel interleaved the
 * events' buffers.
 */
static void order_new_events(pd_profile *p, run_state *st, size_t first_new)
{
	for (size_t i = first_new + 1; i < p->nevents; i++) {
		for (size_t j = i; j > first_new; j--) {
			size_t ka = SIZE_MAX, kb = SIZE_MAX;
			for (size_t a = 0; a < st->nattrs; a++) {
				if (st->ev_of_attr[a] == (int)j - 1 && ka == SIZE_MAX)
					ka = a;
				if (st->ev_of_attr[a] == (int)j && kb == SIZE_MAX)
					kb = a;
			}
			if (ka <= kb)
				break;
			pd_pevent *t = p->events[j - 1];
			p->events[j - 1] = p->events[j];
			p->events[j] = t;
			/* keep the attr → event map in step for the next compare */
			for (size_t a = 0; a < st->nattrs; a++) {
				if (st->ev_of_attr[a] == (int)j - 1)
					st->ev_of_attr[a] = (int)j;
				else if (st->ev_of_attr[a] == (int)j)
					st->ev_of_attr[a] = (int)j - 1;
			}
		}
	}
}

/* One run's life: run_open() starts its session and pipeline, run_fold()
 * folds every sample, run_close() keeps what the run tells (losses, span,
 * start, warnings, blocks, symbol facts, header), orders its new events
 * and releases the session.  pd_profile_add_input() (pprof.h) is the entry
 * point that also takes pprof files. */
typedef struct run_ctx {
	pd_profile *p;
	const char *path;
	pd_session *s;
	pd_pipeline *pl;
	run_state st;
	size_t first_new;          /* events before this run */
	pd_error rerr;             /* the fold's error, kept past the close */
	uint64_t t_first, t_last;  /* the samples' own times */
	bool have_times;
} run_ctx;

/* The session (with the producer's slot taken first: with a small budget
 * it hides the most work), the run begun, its state and pipeline. */
static int run_open(run_ctx *r, pd_profile *p, const char *path, pd_error *err)
{
	memset(r, 0, sizeof *r);
	r->p = p;
	r->path = path;
	/* one input's session at a time, as before the release thread */
	pd_profile_wait_release(p);
	bool producer = pd_threads_take(&p->threads);
	/* folding keys frames by name: their source lines are never used */
	pd_session_options so = *p->options.o.session;
	so.flags |= PD_SESSION_NO_INLINE_LINES;
	int rc = pd_session_open_in(&r->s, path, &so, &p->threads, err);
	if (rc == 0 && (rc = pd_profile_begin_run(p, path)) < 0) {
		pd_session_free(r->s);
		pd_error_set(err, rc, path, PD_NO_OFFSET, "out of memory");
	}
	if (rc < 0) {
		if (producer)
			pd_threads_give(&p->threads);
		return rc;
	}
	run_state *st = &r->st;
	r->first_new = p->nevents;
	st->p = p;
	st->run = p->nruns - 1;
	st->last_comm_id = PD_NO_ID;
	pd_idmap_init(&st->thread_of);
	pd_blockrun_init(&st->blocks);
	pd_idmap_init(&st->dso_seen);
	st->last_dso = PD_IDMAP_EMPTY;
	pd_sitefold_init(&st->sites);
	rc = p->options.o.flags & PD_PROFILE_KEEP_SITES ? pd_sites_begin_run(p, &st->sites, st->run)
							 : 0;
	if (rc == 0)
		rc = pd_pipeline_start(&r->pl, r->s, p, producer, PD_PIPELINE_HOLD_MAX);
	else if (producer)  /* the pipeline gives its slot back; it never started */
		pd_threads_give(&p->threads);
	if (rc < 0)
		pd_error_set(&r->rerr, rc, path, PD_NO_OFFSET, "out of memory");
	return 0;  /* the run is begun: run_close() ends it, error or not */
}

/* Every sample folded; the pipeline (and with it the producer) done. */
static int run_fold(run_ctx *r, int rc)
{
	if (rc == 0)
		rc = fold_all(&r->st, r->pl, r->path, &r->rerr);
	/* without a SAMPLE_TIME feature (pipe mode, perf before 4.x), per-second
	 * rates are taken over the samples' own times */
	r->have_times = rc == 0 && pd_pipeline_time_range(r->pl, &r->t_first, &r->t_last);
	/* what the filters matched counts for the samples read, error or not */
	if (r->pl)
		pd_pipeline_filter_hits(r->pl, r->p->filter_hits);
	pd_pipeline_free(r->pl);
	r->pl = NULL;
	return rc;
}

/* The reader's losses, span and start, and every warning of the run. */
static void run_keep_stats(run_ctx *r)
{
	pd_profile *p = r->p;
	size_t run = r->st.run;
	const pd_reader *rd = pd_session_reader(r->s);
	const pd_reader_stats *rst = pd_reader_stats_get(rd);
	/* perf since 6.0 writes each loss twice, as the kernel's LOST records
	 * and as a LOST_SAMPLES record of the event's lost count */
	p->run_lost[run] = rst->lost > rst->lost_samples ? rst->lost : rst->lost_samples;
	p->run_read[run] = rst->by_type[PD_RECORD_SAMPLE];
	const pd_header_info *hi = pd_reader_header(rd);
	bool header_times = hi && hi->has_sample_time;
	if (header_times && hi->sample_time_last > hi->sample_time_first)
		p->run_span[run] = hi->sample_time_last - hi->sample_time_first;
	else if (r->have_times)
		p->run_span[run] = r->t_last - r->t_first;
	pd_profile_keep_start(p, run, rd, r->path, header_times || r->have_times,
			      header_times ? hi->sample_time_first : r->t_first);
	for (size_t i = 0; i < pd_reader_warning_count(rd); i++)
		pd_profile_warn(p, r->path, pd_reader_warning_kind(rd, i), pd_reader_warning(rd, i));
	for (size_t i = 0; i < pd_session_warning_count(r->s); i++)
		pd_profile_warn(p, r->path, pd_session_warning_kind(r->s, i),
				pd_session_warning(r->s, i));
}

/* What the run tells kept, the session released, the run ended: `rc` is
 * the fold's; returns the run's. */
static int run_close(run_ctx *r, int rc, pd_error *err)
{
	pd_profile *p = r->p;
	run_state *st = &r->st;
	if (rc < 0 && err)
		*err = r->rerr;
	run_keep_stats(r);
	/* per event index of this run: before new events are reordered */
	int brc = pd_blockrun_finish(&st->blocks, p, st->run);
	pd_sites_end_run(p, st->run, st->blocks.shift);
	if (brc == 0)
		brc = record_facts(st, r->s);
	if (brc == 0)
		brc = pd_profile_keep_header(p, st->run, pd_reader_header(pd_session_reader(r->s)),
					     st->dsos, st->ndsos);
	if (brc == 0)
		brc = pd_profile_keep_origins(p, r->s, st->dsos, st->dso_kernel, st->ndsos);
	if (brc < 0 && rc == 0)
		rc = pd_error_set(err, brc, r->path, PD_NO_OFFSET, "out of memory");
	order_new_events(p, st, r->first_new);
	run_free(st);
	/* every name the folding took from the session is interned by now */
	pd_profile_release_session(p, r->s);
	int frc = pd_profile_end_run(p);
	if (frc < 0 && rc == 0)
		rc = pd_error_set(err, frc, r->path, PD_NO_OFFSET, "out of memory");
	return rc < 0 ? rc : 0;
}

int pd_profile_add_file(pd_profile *p, const char *path, pd_error *err)
{
	if (!p || !path)
		return pd_error_set(err, PD_EINVAL, path ? path : "<null>", PD_NO_OFFSET,
				    "no profile or path given");
	run_ctx r;
	int rc = run_open(&r, p, path, err);
	if (rc < 0)
		return rc;
	rc = run_fold(&r, r.rerr.code < 0 ? r.rerr.code : 0);
	return run_close(&r, rc, err);
}
