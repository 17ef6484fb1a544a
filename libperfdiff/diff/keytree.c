/*
 * The partial calling-context trees that a robot's table implies, one per
 * side, for the diff's one alignment code to align (align.c).
 *
 * What the keys say:
 *   calltrace  "X.A.B.C.D": X's inclusive share when reached through
 *              A ← B ← C ← D, the path cut to five frames; shorter keys
 *              are whole paths, from the outermost frame;
 *   children   a function's inclusive share, over all its callers;
 *   self       its exclusive share.
 * A calltrace key is a path from the root; one cut to five frames hangs
 * under the key whose first four frames are its last four (the caller's
 * own calltrace, "A.B.C.D.E" for "X.A.B.C.D"), when exactly one such key
 * is there, so that the cut paths join into one tree as far as the
 * table allows.  Each function with a children or self key is also a
 * node of its own under the root: the function as a whole, which is all
 * the table says of a function without calltrace keys.  Where a function
 * has one node on the paths, its children and self keys describe that
 * node too.
 *
 * The table lists only keys that changed.  A caller on a listed path has
 * no row of its own when its cost did not change: its inclusive cost is
 * taken as the same on both sides, the larger of what its listed callees
 * need, and marked estimated (DT_INCL_UNKNOWN); a self the table does not
 * give is what the node's inclusive cost leaves (DT_SELF_UNKNOWN), which
 * no relation rests on (align_inline.c).  A node exists on a side where
 * its key has a value above 0 there (0.00 without "±" is the robot's
 * "absent in every run"), and every caller of an existing node exists.
 *
 * Values are shares in points; the trees hold them as periods of
 * KT_SCALE per point, of a total of 100 points per run.  Each run is a
 * column's run when the table has per-run values (result directories),
 * else the column's mean is the one run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define KT_MAX_PATH 256     /* frames of a joined path, at most */
#define KT_NOISE_MIN 0.002  /* the table's relative noise of a mean, clamped ... */
#define KT_NOISE_MAX 0.05   /* ... for runs that lacked the profile (±100 %) */

typedef struct kt_node {
	uint32_t key, parent, first_kid, next;
	bool exists[2], incl_known[2], self_known[2], path;
	bool seen[2];                /* a row through it has a value on the side */
	bool absent[2];              /* its own row is 0.00 there: in no run */
	double *incl[2], *self[2];   /* per run */
} kt_node;

typedef struct kt_row {           /* a calltrace row: its frames' keys */
	const pd_lkp_row *row;
	uint32_t *f;
	size_t nf;
	uint32_t parent;             /* the row it hangs under, DT_NONE */
	int state;                   /* path joining: 0 new, 1 on the way, 2 done */
	uint32_t node;               /* its node in the trie */
} kt_row;

typedef struct kt {
	const kt_input *in;
	dt_keytab *keys;
	pd_arena *names;             /* the frames' names: the key table keeps them */
	pd_arena arena;
	kt_node *v;
	size_t n, cap;
	pd_u64map child;             /* parent << 32 | key → node + 1 */
	kt_row *ct;
	size_t nct, cap_ct;
} kt;

/* ------------------------------------------------------------ values */

/* Row value of side s in run r (the mean when the table has no runs). */
static double cell_value(const kt_input *in, const pd_lkp_row *row, int s, size_t r)
{
	const pd_lkp_cell *c = &row->cells[in->col[s]];
	return c->runs && r < c->nruns ? c->runs[r] : c->mean;
}

static double *run_array(kt *k, int s)
{
	return pd_arena_alloc(&k->arena, (k->in->R[s] ? k->in->R[s] : 1) * sizeof(double));
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

/* ------------------------------------------------------------ trie */

static uint32_t node_child(kt *k, uint32_t parent, uint32_t key)
{
	uint64_t h = (uint64_t)parent << 32 | key;
	uintptr_t v = (uintptr_t)pd_u64map_get(&k->child, h);
	if (v)
		return (uint32_t)(v - 1);
	if (k->n >= DT_NONE - 2 || pd_grow(&k->v, &k->cap, k->n + 1, sizeof *k->v) < 0)
		return DT_NONE;
	uint32_t id = (uint32_t)k->n;
	kt_node *u = &k->v[id];
	memset(u, 0, sizeof *u);
	u->key = key;
	u->parent = parent;
	u->first_kid = DT_NONE;
	u->next = k->v[parent].first_kid;
	for (int s = 0; s < 2; s++)
		if (!(u->incl[s] = run_array(k, s)) || !(u->self[s] = run_array(k, s)))
			return DT_NONE;
	k->v[parent].first_kid = id;
	if (pd_u64map_put(&k->child, h, (void *)(uintptr_t)(id + 1)) < 0)
		return DT_NONE;
	k->n++;
	return id;
}

/* A row through node u has a value on side s: u and its callers ran. */
static void mark_seen(kt *k, uint32_t u, int s)
{
	for (; u != DT_NONE && u != 0 && !k->v[u].seen[s]; u = k->v[u].parent)
		k->v[u].seen[s] = true;
}

/* A cell that some run had: a mean above 0, or a "±" printed. */
static bool cell_seen(const pd_lkp_cell *c)
{
	return c->mean > 0 || c->stddev_pct >= 0;
}

/* Row `row`'s values as node u's inclusive (or self) cost, added. */
static void put_values(kt *k, uint32_t u, const pd_lkp_row *row, bool self)
{
	for (int s = 0; s < 2; s++) {
		double *dst = self ? k->v[u].self[s] : k->v[u].incl[s];
		bool *known = self ? &k->v[u].self_known[s] : &k->v[u].incl_known[s];
		for (size_t r = 0; r < k->in->R[s]; r++)
			dst[r] = (*known ? dst[r] : 0) + cell_value(k->in, row, s, r);
		*known = true;
		if (cell_seen(&row->cells[k->in->col[s]]))
			mark_seen(k, u, s);
		else
			k->v[u].absent[s] = true;
	}
}

/* A children row over a function's leaf, which a self row set first. */
static void put_values_over(kt *k, uint32_t u, const pd_lkp_row *row)
{
	for (int s = 0; s < 2; s++) {
		for (size_t r = 0; r < k->in->R[s]; r++)
			k->v[u].incl[s][r] = cell_value(k->in, row, s, r);
		k->v[u].incl_known[s] = true;
		if (cell_seen(&row->cells[k->in->col[s]]))
			mark_seen(k, u, s);
		else
			k->v[u].absent[s] = true;
	}
}

/* ------------------------------------------------------------ frames */

/* Is w[0..n) a piece of a clone suffix, which the robot's '.' split off
 * its frame ("do_wp_page.cold", "foo.isra.0", "bar.llvm.123")? */
static bool suffix_piece(const char *w, size_t n)
{
	static const char *const words[] = { "cold", "part", "isra", "constprop", "lto_priv",
					     "llvm", "localalias", "const" };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strlen(words[i]) == n && memcmp(w, words[i], n) == 0)
			return true;
	size_t d = 0;
	while (d < n && ((w[d] >= '0' && w[d] <= '9') || (w[d] >= 'a' && w[d] <= 'f')))
		d++;
	return d == n && n > 0 && (w[0] >= '0' && w[0] <= '9');
}

/* The frames of a calltrace key's name, callee first, as keys. */
static int split_frames(kt *k, const char *name, kt_row *out)
{
	size_t len = strlen(name), cap = 0;
	out->f = NULL;
	out->nf = 0;
	for (size_t at = 0; at < len;) {
		size_t end = at;
		for (;;) {
			const char *dot = memchr(name + end, '.', len - end);
			end = dot ? (size_t)(dot - name) : len;
			/* a suffix piece after the dot stays with this frame */
			size_t nx = end + 1, ne = nx;
			while (ne < len && name[ne] != '.')
				ne++;
			if (end < len && suffix_piece(name + nx, ne - nx)) {
				end = ne;
				if (end < len)
					continue;
			}
			break;
		}
		const char *f = pd_arena_strndup(k->names, name + at, end - at);
		uint32_t key = f ? dt_keytab_get(k->keys, f, NULL, false) : DT_NONE;
		if (key == DT_NONE || pd_grow(&out->f, &cap, out->nf + 1, sizeof *out->f) < 0)
			return PD_ENOMEM;
		out->f[out->nf++] = key;
		at = end + 1;
	}
	return out->nf ? 0 : PD_EINVAL;
}

/* ------------------------------------------------------------ paths */

/* Row j continues row i: i's first nf − 1 frames are j's last ones. */
static bool continues(const kt_row *i, const kt_row *j)
{
	if (i == j || j->nf < 2 || i->nf < j->nf - 1)
		return false;
	return memcmp(i->f, j->f + 1, (j->nf - 1) * sizeof *j->f) == 0;
}

static uint64_t frames_hash(const uint32_t *f, size_t n)
{
	uint64_t h = PD_HASH_INIT;
	for (size_t i = 0; i < n; i++)
		h = pd_mix64(h ^ (f[i] + 0x9e3779b97f4a7c15ull));
	return h;
}

#define KT_MANY ((uintptr_t)-1)  /* two rows or more start so */

/* Each cut row's parent row: the one row it continues, if one only.  The
 * rows are indexed by their first depth − 1 frames, so that a table of
 * many rows is joined in one pass. */
static int find_parents(kt *k, size_t depth)
{
	pd_u64map by_start;
	pd_u64map_init(&by_start);
	int rc = 0;
	for (size_t i = 0; i < k->nct && depth >= 2 && rc == 0; i++) {
		if (k->ct[i].nf < depth - 1)
			continue;
		uint64_t h = frames_hash(k->ct[i].f, depth - 1);
		uintptr_t v = (uintptr_t)pd_u64map_get(&by_start, h);
		rc = pd_u64map_put(&by_start, h, (void *)(v ? KT_MANY : (uintptr_t)(i + 1)));
	}
	for (size_t j = 0; j < k->nct && rc == 0; j++) {
		kt_row *r = &k->ct[j];
		r->parent = DT_NONE;
		if (r->nf < depth || depth < 2)
			continue;  /* a whole path, from the outermost frame */
		uintptr_t v = (uintptr_t)pd_u64map_get(&by_start, frames_hash(r->f + 1, depth - 1));
		if (v && v != KT_MANY && continues(&k->ct[v - 1], r))
			r->parent = (uint32_t)(v - 1);
	}
	pd_u64map_free(&by_start);
	return rc < 0 ? PD_ENOMEM : 0;
}

/* The node of row j's leaf, its path joined under its parent's. */
static uint32_t row_node(kt *k, size_t j, unsigned depth)
{
	kt_row *r = &k->ct[j];
	if (r->state == 2)
		return r->node;
	uint32_t at = 0;
	if (r->parent != DT_NONE && r->state == 0 && depth < KT_MAX_PATH) {
		r->state = 1;  /* a loop of rows (recursion) ends here */
		at = row_node(k, r->parent, depth + 1);
		if (at != DT_NONE)
			at = node_child(k, at, r->f[0]);
	} else {
		for (size_t i = r->nf; i-- > 0 && at != DT_NONE;)
			at = node_child(k, at, r->f[i]);
	}
	if (at == DT_NONE)
		return DT_NONE;
	for (uint32_t a = at; a && a != DT_NONE; a = k->v[a].parent)
		k->v[a].path = true;
	r->state = 2;
	r->node = at;
	return at;
}

static int add_paths(kt *k)
{
	const pd_lkp_table *t = k->in->table;
	size_t depth = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const pd_lkp_row *row = &t->rows[i];
		if (row->metric != PD_LKP_CALLTRACE || strcmp(row->event, k->in->event) != 0)
			continue;
		if (pd_grow(&k->ct, &k->cap_ct, k->nct + 1, sizeof *k->ct) < 0)
			return PD_ENOMEM;
		kt_row *r = &k->ct[k->nct];
		memset(r, 0, sizeof *r);
		r->row = row;
		int rc = split_frames(k, row->name, r);
		if (rc < 0)
			return rc;
		k->nct++;
		depth = r->nf > depth ? r->nf : depth;
	}
	if (find_parents(k, depth) < 0)
		return PD_ENOMEM;
	for (size_t j = 0; j < k->nct; j++) {
		uint32_t u = row_node(k, j, 0);
		if (u == DT_NONE)
			return PD_ENOMEM;
		put_values(k, u, k->ct[j].row, false);
	}
	return 0;
}

/* ------------------------------------------------------------ functions */

#define KT_SEVERAL (DT_NONE - 1)  /* a key with two path nodes or more */

/* Per key of the paths (*n of them): its one path node, DT_NONE (none)
 * or KT_SEVERAL, into *out. */
static int path_nodes(const kt *k, uint32_t **out, uint32_t *n)
{
	*n = k->keys->n;
	uint32_t *v = malloc((k->keys->n ? k->keys->n : 1) * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (uint32_t i = 0; i < k->keys->n; i++)
		v[i] = DT_NONE;
	for (size_t i = 1; i < k->n; i++)
		if (k->v[i].path)
			v[k->v[i].key] = v[k->v[i].key] == DT_NONE ? (uint32_t)i : KT_SEVERAL;
	*out = v;
	return 0;
}

static int add_functions(kt *k)
{
	const pd_lkp_table *t = k->in->table;
	uint32_t *pn, npn;
	if (path_nodes(k, &pn, &npn) < 0)
		return PD_ENOMEM;
	for (size_t i = 0; i < t->nrows; i++) {
		const pd_lkp_row *row = &t->rows[i];
		if (row->metric == PD_LKP_CALLTRACE || strcmp(row->event, k->in->event) != 0)
			continue;
		uint32_t key = dt_keytab_get(k->keys, row->name, NULL, false);
		uint32_t fn = key == DT_NONE ? DT_NONE : node_child(k, 0, key);
		if (fn == DT_NONE) {
			free(pn);
			return PD_ENOMEM;
		}
		bool self = row->metric == PD_LKP_SELF;
		/* a key new here has no path node */
		uint32_t u = key < npn && pn[key] != KT_SEVERAL ? pn[key] : DT_NONE;
		if (u != DT_NONE && u != fn && !(self ? k->v[u].self_known[0] : k->v[u].incl_known[0]))
			put_values(k, u, row, self);
		/* the function as a whole is a leaf: its inclusive cost is all
		 * there is of it, its self row standing in only without a
		 * children row */
		if (!k->v[fn].path) {
			if (!self)
				put_values_over(k, fn, row);
			else if (!k->v[fn].incl_known[0])
				put_values(k, fn, row, false);
		} else if (!(self ? k->v[fn].self_known[0] : k->v[fn].incl_known[0])) {
			put_values(k, fn, row, self);
		}
	}
	free(pn);
	return 0;
}

/* ------------------------------------------------------------ existence */

/* A function's rows on one side: none, all 0.00 (absent), or some seen. */
enum { KT_UNNAMED = 0, KT_ABSENT = 1, KT_PRESENT = 2 };

static void note_row(uint8_t *state, uint32_t key, const pd_lkp_cell *c)
{
	if (key == DT_NONE || state[key] == KT_PRESENT)
		return;
	state[key] = cell_seen(c) ? KT_PRESENT : KT_ABSENT;
}

/* Per key and side: what the function's own rows (children, self, the
 * calltraces it is the callee of) say, in one pass over the table. */
static void function_states(const kt *k, uint8_t *state[2])
{
	const pd_lkp_table *t = k->in->table;
	for (size_t i = 0; i < t->nrows; i++) {
		const pd_lkp_row *r = &t->rows[i];
		if (r->metric == PD_LKP_CALLTRACE || strcmp(r->event, k->in->event) != 0)
			continue;
		uint32_t key = dt_keytab_find(k->keys, r->name, "");
		for (int s = 0; s < 2; s++)
			note_row(state[s], key, &r->cells[k->in->col[s]]);
	}
	for (size_t j = 0; j < k->nct; j++)
		for (int s = 0; s < 2; s++)
			note_row(state[s], k->ct[j].f[0], &k->ct[j].row->cells[k->in->col[s]]);
}

/*
 * Which nodes each side has, callers first: a node a row with a value
 * there runs through; else not one whose own row says 0.00, nor one of a
 * function all of whose rows do; else a caller on a listed path, which
 * the table lists only where its cost changed: there.
 */
static int settle_existence(kt *k)
{
	uint8_t *state[2];
	for (int s = 0; s < 2; s++)
		state[s] = calloc(k->keys->n ? k->keys->n : 1, 1);
	if (!state[0] || !state[1]) {
		free(state[0]);
		free(state[1]);
		return PD_ENOMEM;
	}
	function_states(k, state);
	for (size_t i = 1; i < k->n; i++) {
		kt_node *v = &k->v[i];
		for (int s = 0; s < 2; s++) {
			bool up = v->parent == 0 || k->v[v->parent].exists[s];
			v->exists[s] = up && (v->seen[s] || (v->path && !v->absent[s] &&
							     state[s][v->key] != KT_ABSENT));
		}
	}
	free(state[0]);
	free(state[1]);
	return 0;
}

/* ------------------------------------------------------------ estimates */

/* The inclusive costs of u's callees on side s, per run, into sum. */
static void kids_sum(const kt *k, uint32_t u, int s, double *sum)
{
	for (size_t r = 0; r < k->in->R[s]; r++)
		sum[r] = 0;
	for (uint32_t c = k->v[u].first_kid; c != DT_NONE; c = k->v[c].next)
		if (k->v[c].exists[s])
			for (size_t r = 0; r < k->in->R[s]; r++)
				sum[r] += k->v[c].incl[s][r];
}

/*
 * Node u's inclusive cost on each side from its callees' (`kids`): a
 * listed one stays (raised to what its callees need); with only its self
 * listed, that self and its callees; else the same on both sides, what
 * its callees need on the side that needs more (a caller the table does
 * not list did not change).
 */
static void estimate(kt *k, uint32_t u, double *const kids[2])
{
	kt_node *v = &k->v[u];
	double m[2] = { 0, 0 };
	for (int s = 0; s < 2; s++)
		m[s] = v->exists[s] ? mean_of(kids[s], k->in->R[s]) : 0;
	double est = fmax(m[0], m[1]);
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < k->in->R[s]; r++) {
			if (v->incl_known[s])
				v->incl[s][r] = fmax(v->incl[s][r], kids[s][r]);
			else if (v->self_known[s])
				v->incl[s][r] = v->self[s][r] + kids[s][r];
			else
				v->incl[s][r] = kids[s][r] + (est - m[s]);
		}
	for (int s = 0; s < 2; s++)
		v->incl_known[s] |= v->self_known[s];
}

/*
 * Bottom-up (a callee's id is above its caller's): every inclusive cost,
 * and each self as what it leaves beyond the callees.  A leaf's self is
 * its inclusive cost (its own callees, unlisted, are in it); a caller's
 * self holds its unlisted callees' cost too, which did not change, so
 * that its growth is its self's.  The trees keep each node's inclusive
 * cost so, as its self and its callees'.
 */
static int settle(kt *k)
{
	double *kids[2] = { run_array(k, 0), run_array(k, 1) };
	if (!kids[0] || !kids[1])
		return PD_ENOMEM;
	for (size_t i = k->n; i-- > 1;) {
		kt_node *v = &k->v[i];
		for (int s = 0; s < 2; s++)
			kids_sum(k, (uint32_t)i, s, kids[s]);
		estimate(k, (uint32_t)i, kids);
		for (int s = 0; s < 2; s++)
			for (size_t r = 0; r < k->in->R[s]; r++)
				v->self[s][r] = fmax(0, v->incl[s][r] - kids[s][r]);
	}
	return 0;
}

/* ------------------------------------------------------------ noise */

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The table's relative standard deviation of a mean on side s: the
 * median over its rows of at least half a point. */
static double side_noise(const kt_input *in, int s, double *buf)
{
	const pd_lkp_table *t = in->table;
	size_t n = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const pd_lkp_cell *c = &t->rows[i].cells[in->col[s]];
		if (strcmp(t->rows[i].event, in->event) == 0 && c->mean >= 0.5 && c->nruns)
			buf[n++] = c->stddev / c->mean / sqrt((double)c->nruns);
	}
	if (n == 0)
		return KT_NOISE_MIN;
	qsort(buf, n, sizeof *buf, dbl_cmp);
	return fmin(KT_NOISE_MAX, fmax(KT_NOISE_MIN, buf[n / 2]));
}

/* ------------------------------------------------------------ trees */

static int emit(kt *k, int s, dt_tree *t)
{
	int rc = dt_tree_init(t, k->keys, k->in->R[s]);
	uint32_t *id = malloc((k->n ? k->n : 1) * sizeof *id);
	double *buf = malloc((k->in->table->nrows + 1) * sizeof *buf);
	if (rc == 0 && (!id || !buf))
		rc = PD_ENOMEM;
	if (rc == 0) {
		t->from_keys = true;
		t->rel_noise = side_noise(k->in, s, buf);
		id[0] = 0;
		for (size_t r = 0; r < t->nruns; r++)
			t->total[r] = t->samples[r] = (uint64_t)(100 * KT_SCALE);
	}
	for (size_t i = 1; i < k->n && rc == 0; i++) {
		const kt_node *v = &k->v[i];
		id[i] = DT_NONE;
		if (!v->exists[s] || id[v->parent] == DT_NONE)
			continue;
		uint32_t flags = DT_SEEN_OUTLINE | (v->incl_known[s] ? 0 : DT_INCL_UNKNOWN) |
				 (v->self_known[s] ? 0 : DT_SELF_UNKNOWN);
		id[i] = dt_tree_child(t, id[v->parent], v->key, flags);
		if (id[i] == DT_NONE) {
			rc = PD_ENOMEM;
			break;
		}
		/* the keys have no dso: "" stands for it, so that facts are asked */
		if (dt_tree_note_dso(t, v->key, "") < 0)
			rc = PD_ENOMEM;
		for (size_t r = 0; r < t->nruns; r++)
			dt_tree_add_self(t, id[i], r, (uint64_t)llround(v->self[s][r] * KT_SCALE));
	}
	free(id);
	free(buf);
	return rc ? rc : dt_tree_finish(t);
}

int kt_build_trees(const kt_input *in, dt_keytab *keys, pd_arena *names, dt_tree out[2])
{
	kt k = { .in = in, .keys = keys, .names = names };
	pd_arena_init(&k.arena);
	pd_u64map_init(&k.child);
	int rc = pd_grow(&k.v, &k.cap, 1, sizeof *k.v);
	if (rc == 0) {
		memset(&k.v[0], 0, sizeof k.v[0]);
		k.v[0].first_kid = DT_NONE;
		k.v[0].key = DT_NONE;
		k.v[0].parent = DT_NONE;
		k.v[0].exists[0] = k.v[0].exists[1] = true;
		k.n = 1;
		rc = add_paths(&k);
	}
	if (rc == 0)
		rc = add_functions(&k);
	if (rc == 0)
		rc = settle_existence(&k);
	if (rc == 0)
		rc = settle(&k);
	for (int s = 0; s < 2 && rc == 0; s++)
		rc = emit(&k, s, &out[s]);
	for (size_t j = 0; j < k.nct; j++)
		free(k.ct[j].f);
	free(k.ct);
	free(k.v);
	pd_u64map_free(&k.child);
	pd_arena_free(&k.arena);
	return rc;
}
