/*
 * A profile as a pprof Profile.  Per event two sample types, its sample
 * count and its period.  A profile that kept its sites (sites.c) gives
 * its samples from them; else, per tree node that is some sample's leaf,
 * pprof samples for its stack split by command and time block, so that reading
 * the export back gives the same tree, per-run values, collapsed stacks
 * and batch-means blocks (docs/pprof.md).  Samples of different events
 * with the same stack and labels are one pprof sample.
 *
 * The profile keeps, per leaf, samples per block and samples and period
 * per command, not their joint counts: the pieces pair blocks and
 * commands in order (both add up to the leaf's samples), and a command's
 * period is spread over its pieces by their samples.  Every margin the
 * profile has is kept exactly; for one run of a profile of several, whose
 * commands are summed over all runs, the leaf's main command stands for
 * all of it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

typedef struct cm {              /* one command's part of a leaf */
	const char *comm;
	uint64_t samples, period;
} cm;

typedef struct ex {
	pd_profile *p;
	size_t run;
	pp_tables t;
	pp_samples ss;
	size_t slot;                 /* the event's first value index */
	bool timed;
	const pd_stack *st;          /* the event's collapsed stacks */
	size_t *next_st;             /* chain of stacks by leaf: index + 1 */
	pd_u64map st_of_leaf;
	uint64_t loc[PP_MAX_DEPTH];  /* the current stack */
	size_t nloc;
	const pd_cct_node *up[PP_MAX_DEPTH];
	cm cms[64];
	size_t ncm;
} ex;

static int add_piece(ex *x, const char *comm, uint32_t block, uint64_t samples,
		     uint64_t period)
{
	pp_labels l = { .comm = comm, .timed = x->timed, .block = block };
	return pp_samples_add(&x->ss, &x->t, x->loc, x->nloc, &l, x->slot, samples, period);
}

/* Whether nodes a (inlined) and b, its caller, share a location. */
static bool same_place(const pd_cct_node *a, const pd_cct_node *b)
{
	return pd_cct_inlined(a) && pd_cct_kernel(a) == pd_cct_kernel(b) &&
	       strcmp(pd_cct_dso(a), pd_cct_dso(b)) == 0;
}

/* The locations of `leaf`'s stack into x->loc, leaf first: an inline
 * frame joins the location of the frame it was inlined into. */
static int stack_of(ex *x, const pd_cct_node *leaf)
{
	size_t n = 0;
	for (const pd_cct_node *c = leaf; pd_cct_parent(c); c = pd_cct_parent(c)) {
		if (n == PP_MAX_DEPTH)
			return PD_ELIMIT;
		x->up[n++] = c;
	}
	x->nloc = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && j - i + 1 < PP_MAX_LINES && same_place(x->up[j], x->up[j + 1]))
			j++;
		uint64_t id = pp_tables_location(&x->t, x->up + i, j - i + 1);
		if (!id)
			return PD_ENOMEM;
		x->loc[x->nloc++] = id;
		i = j + 1;
	}
	return 0;
}

/* The commands of `leaf` in x->cms: exact when the stacks cover just the
 * run exported; else the main command with all of it. */
static void commands_of(ex *x, const pd_cct_node *leaf, uint64_t samples, uint64_t period)
{
	x->ncm = 0;
	size_t best = 0;
	for (uintptr_t i = (uintptr_t)pd_u64map_get(&x->st_of_leaf, (uintptr_t)leaf); i;
	     i = x->next_st[i - 1]) {
		const pd_stack *s = &x->st[i - 1];
		if (x->ncm < sizeof x->cms / sizeof x->cms[0])
			x->cms[x->ncm++] = (cm){ s->comm, s->samples, s->period };
		if (s->samples > x->cms[best].samples)
			best = x->ncm - 1;
	}
	bool exact = x->run == SIZE_MAX || pd_profile_run_count(x->p) == 1;
	uint64_t ns = 0;
	for (size_t i = 0; i < x->ncm; i++)
		ns += x->cms[i].samples;
	if (x->ncm == 0 || !exact || ns != samples) {
		const char *c = x->ncm ? x->cms[best].comm : "[unknown]";
		x->cms[0] = (cm){ c, samples, period };
		x->ncm = 1;
	}
}

/* A share of `v`: v * a / b, rounded down (a <= b). */
static uint64_t share(uint64_t v, uint64_t a, uint64_t b)
{
	return b ? (uint64_t)((unsigned __int128)v * a / b) : 0;
}

typedef struct blk {
	uint32_t block;
	uint64_t samples;
} blk;

/* The pieces of a leaf: blocks and commands paired in order, a command's
 * period spread over its pieces by samples (its margin exact). */
static int pieces(ex *x, const blk *b, size_t nb)
{
	size_t i = 0, j = 0;
	uint64_t used_b = 0, used_c = 0;
	while (j < x->ncm) {
		const cm *c = &x->cms[j];
		uint64_t left_b = i < nb ? b[i].samples - used_b : 0;
		uint64_t take = c->samples - used_c < left_b ? c->samples - used_c : left_b;
		if (i >= nb)
			take = c->samples - used_c;
		uint64_t per = share(c->period, used_c + take, c->samples) -
			       share(c->period, used_c, c->samples);
		if (c->samples == 0)
			per = c->period;
		int rc = add_piece(x, c->comm, i < nb ? b[i].block : 0, take, per);
		if (rc < 0)
			return rc;
		used_c += take;
		used_b += take;
		if (i < nb && used_b == b[i].samples) {
			i++;
			used_b = 0;
		}
		if (used_c == c->samples) {
			j++;
			used_c = 0;
		}
	}
	return 0;
}

/* The blocks of `n` in the run (SIZE_MAX: every run's, by index). */
static size_t blocks_of(const ex *x, const pd_cct_node *n, blk *out)
{
	uint64_t by[32] = { 0 };
	size_t r0 = x->run == SIZE_MAX ? 0 : x->run;
	size_t r1 = x->run == SIZE_MAX ? pd_profile_run_count(x->p) : x->run + 1;
	for (size_t r = r0; r < r1; r++) {
		const pd_block_count *bc;
		size_t k = pd_cct_blocks(n, r, &bc);
		for (size_t i = 0; i < k; i++)
			by[bc[i].block & 31] += bc[i].samples;
	}
	size_t nb = 0;
	for (uint32_t i = 0; i < 32; i++)
		if (by[i])
			out[nb++] = (blk){ i, by[i] };
	return nb;
}

static int leaf(ex *x, const pd_cct_node *n)
{
	blk b[32];
	size_t nb = blocks_of(x, n, b);
	uint64_t samples = 0, period = pd_cct_self(n, x->run);
	for (size_t i = 0; i < nb; i++)
		samples += b[i].samples;
	if (samples == 0 && period == 0)
		return 0;
	int rc = stack_of(x, n);
	if (rc < 0)
		return rc;
	commands_of(x, n, samples, period);
	return pieces(x, b, nb);
}

/* The event's collapsed stacks chained by leaf, for commands_of(). */
static int index_stacks(ex *x, size_t ev, pd_error *err)
{
	size_t n;
	int rc = pd_profile_stacks(x->p, ev, &x->st, &n, err);
	if (rc < 0)
		return rc;
	pd_u64map_clear(&x->st_of_leaf);
	free(x->next_st);
	x->next_st = malloc((n ? n : 1) * sizeof *x->next_st);
	if (!x->next_st)
		return PD_ENOMEM;
	for (size_t i = n; i-- > 0;) {
		uint64_t key = (uintptr_t)x->st[i].leaf;
		x->next_st[i] = (uintptr_t)pd_u64map_get(&x->st_of_leaf, key);
		if (pd_u64map_put(&x->st_of_leaf, key, (void *)(uintptr_t)(i + 1)) < 0)
			return PD_ENOMEM;
	}
	return 0;
}

/* Every leaf of event `ev`'s tree, depth first. */
static int walk_event(ex *x, size_t ev)
{
	size_t cap = 1024, n = 0;
	const pd_cct_node **todo = malloc(cap * sizeof *todo);
	if (!todo)
		return PD_ENOMEM;
	todo[n++] = pd_profile_root(x->p, ev);
	int rc = 0;
	while (n && rc == 0) {
		const pd_cct_node *c = todo[--n];
		if (pd_cct_parent(c))
			rc = leaf(x, c);
		size_t k = pd_cct_child_count(c);
		if (n + k > cap) {
			cap = (n + k) * 2;
			const pd_cct_node **v = realloc(todo, cap * sizeof *v);
			if (!v)
				rc = PD_ENOMEM;
			else
				todo = v;
		}
		for (size_t i = k; i-- > 0 && rc == 0;)
			todo[n++] = pd_cct_child(c, i);
	}
	free(todo);
	return rc;
}

static void ex_free(ex *x)
{
	pp_tables_free(&x->t);
	pp_samples_free(&x->ss);
	free(x->next_st);
	pd_u64map_free(&x->st_of_leaf);
}

/* The Profile of the tables, samples and head, packed into `b`. */
static int pack(ex *x, const pp_head *h, const pd_pprof_write_options *o, pd_buf *b)
{
	pp_profile m;
	perftools__profiles__profile__init(&m);
	m.sample_type = h->types;
	m.n_sample_type = h->ntypes;
	m.sample = x->ss.v;
	m.n_sample = x->ss.n;
	m.mapping = x->t.map;
	m.n_mapping = x->t.nmap;
	m.location = x->t.loc;
	m.n_location = x->t.nloc;
	m.function = (pp_function **)x->t.fn;
	m.n_function = x->t.nfn;
	m.string_table = x->t.str;
	m.n_string_table = x->t.nstr;
	m.comment = h->comments;
	m.n_comment = h->ncomments;
	m.period_type = h->period_type;
	m.period = h->period;
	m.default_sample_type = h->default_type;
	uint64_t span = pd_profile_run_span(x->p, o->run);
	m.duration_nanos = span > INT64_MAX ? INT64_MAX : (int64_t)span;
	uint64_t start = pd_profile_run_start(x->p, o->run);
	m.time_nanos = start > INT64_MAX ? 0 : (int64_t)start;
	size_t n = perftools__profiles__profile__get_packed_size(&m);
	uint8_t *raw = malloc(n ? n : 1);
	if (!raw)
		return PD_ENOMEM;
	perftools__profiles__profile__pack(&m, raw);
	int rc = o->gzip ? pp_gzip(raw, n, b) : pd_buf_append(b, raw, n);
	free(raw);
	return rc;
}

/* The events' samples: from the sites when every run exported kept them
 * (addresses, pids, tids), else from the trees. */
static int fill(ex *x, const pp_head *h, pd_error *err)
{
	pp_samples_init(&x->ss, h->ntypes);
	bool sites = pd_profile_has_sites(x->p, x->run);
	int rc = 0;
	for (size_t k = 0; k < h->nev && rc == 0; k++) {
		x->slot = 2 * k;
		if (sites)
			rc = pp_export_sites(&x->ss, &x->t, x->p, h->evs[k], x->run, x->slot,
					     x->timed);
		else if ((rc = index_stacks(x, h->evs[k], err)) == 0)
			rc = walk_event(x, h->evs[k]);
	}
	return rc;
}

int pp_export(pd_profile *p, const pd_pprof_write_options *o, pd_buf *b, pd_error *err)
{
	ex *x = calloc(1, sizeof *x);
	if (!x)
		return pd_error_set(err, PD_ENOMEM, "pprof", PD_NO_OFFSET, "out of memory");
	x->p = p;
	x->run = o->run;
	x->timed = pd_profile_block_width(p, o->run == SIZE_MAX ? 0 : o->run) != 0;
	pp_tables_init(&x->t);
	x->t.p = p;
	x->t.run = o->run;
	pd_u64map_init(&x->st_of_leaf);
	pp_head h;
	memset(&h, 0, sizeof h);
	/* string_table[0] is "" */
	int rc = pp_tables_str(&x->t, "") == 0 ? 0 : PD_ENOMEM;
	if (rc == 0)
		rc = pp_head_build(&h, &x->t, p, o);
	if (rc == 0)
		rc = fill(x, &h, err);
	if (rc == 0)
		rc = pack(x, &h, o, b);
	pp_head_free(&h);
	ex_free(x);
	free(x);
	if (rc < 0 && (!err || !err->message[0] || err->code != rc))
		pd_error_set(err, rc, "pprof", PD_NO_OFFSET, "%s while exporting",
			     rc == PD_ELIMIT ? "a stack or value beyond pprof's caps"
					     : "out of memory");
	return rc;
}
