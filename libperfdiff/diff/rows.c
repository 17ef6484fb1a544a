/*
 * The rows of a diff: one per key of the robot's metrics (calltrace,
 * children, self) and optionally one per aligned tree node, with one
 * value per run of each side.
 *
 * From the trees (the default), values follow the robot's meaning with
 * libperfdiff's names: children counts a sample once per symbol however
 * deep the recursion, and a calltrace key credits a sample to the
 * occurrence of its symbol nearest the leaf, as perf's callee-order
 * chains do; no 0.5 % cut.  With PD_DIFF_LKP_KEYS the values are
 * report.h's keys, the robot's numbers to the hundredth.  Their tests
 * are in rowstats.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdiff/report.h"
#include "internal.h"

static uint64_t row_hash(pd_diff_metric m, const char *key, size_t len, uint32_t keyid)
{
	/* calltrace keys are whole paths: hashed eight bytes a step */
	uint64_t h = pd_hash_words(key, len) ^ ((uint64_t)m << 32 | keyid);
	return pd_mix64(h * 0x9e3779b97f4a7c15ull);
}

/* The row (metric, key[0..len), keyid), or DT_NONE. */
static uint32_t row_find(const pd_diff *d, pd_diff_metric m, const char *key, size_t len,
			 uint32_t keyid)
{
	uintptr_t head = (uintptr_t)pd_u64map_get(&d->row_index, row_hash(m, key, len, keyid));
	for (uint32_t i = head ? (uint32_t)(head - 1) : DT_NONE; i != DT_NONE; i = d->rows[i].next) {
		const dt_row *r = &d->rows[i];
		if (r->pub.metric == m && r->keyid == keyid && strlen(r->pub.key) == len &&
		    memcmp(r->pub.key, key, len) == 0)
			return i;
	}
	return DT_NONE;
}

uint32_t pd_diff_row_get(pd_diff *d, pd_diff_metric m, const char *key, size_t len,
			 uint32_t keyid)
{
	uint32_t i = row_find(d, m, key, len, keyid);
	if (i != DT_NONE)
		return i;
	if (d->nrows == d->cap_rows) {
		size_t cap = d->cap_rows ? d->cap_rows * 2 : 256;
		if (cap >= DT_NONE)
			return DT_NONE;
		dt_row *v = realloc(d->rows, cap * sizeof *v);
		if (!v)
			return DT_NONE;
		d->rows = v;
		d->cap_rows = cap;
	}
	uint64_t h = row_hash(m, key, len, keyid);
	uintptr_t head = (uintptr_t)pd_u64map_get(&d->row_index, h);
	dt_row *r = &d->rows[d->nrows];
	memset(r, 0, sizeof *r);
	r->pub.metric = m;
	r->pub.key = pd_arena_strndup(&d->arena, key, len);
	r->keyid = keyid;
	r->inner = DT_NONE;
	r->rel = DT_NONE;
	r->next = head ? (uint32_t)(head - 1) : DT_NONE;
	size_t nv = d->nruns[0] + d->nruns[1];
	r->vals = pd_arena_alloc(&d->arena, nv * sizeof *r->vals);
	r->bvar = pd_arena_alloc(&d->arena, nv * sizeof *r->bvar);
	for (size_t i = 0; r->bvar && i < nv; i++)
		r->bvar[i] = NAN;
	if (!r->pub.key || !r->vals || !r->bvar ||
	    pd_u64map_put(&d->row_index, h, (void *)(uintptr_t)(d->nrows + 1)) < 0)
		return DT_NONE;
	return (uint32_t)d->nrows++;
}

static void row_add(pd_diff *d, uint32_t row, int side, size_t run, double v)
{
	d->rows[row].vals[(side ? d->nruns[0] : 0) + run] += v;
}

/* ------------------------------------------------------------ from trees */

/*
 * For every node, the nearest ancestor with the same key (DT_NONE): the
 * samples of that ancestor that pass through the node belong, in callee
 * order, to the node's occurrence.  A depth-first walk keeps the
 * innermost open node of each key.
 */
int dt_same_key_ancestors(const dt_tree *t, uint32_t *anc)
{
	uint32_t nkeys = t->keys->n;
	uint32_t *top = malloc((nkeys ? nkeys : 1) * sizeof *top);
	size_t cap = 256, n = 0;
	uint64_t *st = malloc(cap * sizeof *st);
	if (!top || !st) {
		free(top);
		free(st);
		return PD_ENOMEM;
	}
	for (uint32_t k = 0; k < nkeys; k++)
		top[k] = DT_NONE;
	anc[0] = DT_NONE;
	st[n++] = 0;
	while (n > 0) {
		uint64_t e = st[--n];
		uint32_t v = (uint32_t)e;
		if (e >> 32) {  /* leaving v */
			top[t->n[v].key] = anc[v];
			continue;
		}
		if (v != 0) {
			anc[v] = top[t->n[v].key];
			top[t->n[v].key] = v;
		}
		if (n + 1 + t->n[v].nkids > cap) {
			while (n + 1 + t->n[v].nkids > cap)
				cap *= 2;
			uint64_t *s2 = realloc(st, cap * sizeof *st);
			if (!s2) {
				free(top);
				free(st);
				return PD_ENOMEM;
			}
			st = s2;
		}
		if (v != 0)
			st[n++] = (uint64_t)1 << 32 | v;
		for (uint32_t k = 0; k < t->n[v].nkids; k++)
			st[n++] = dt_kid(t, v, k);
	}
	free(top);
	free(st);
	return 0;
}

void dt_leaf_rows(const pd_diff *d, int side, dt_leafwalk *w, uint32_t v,
		  void (*fn)(void *ctx, uint32_t row), void *ctx)
{
	const dt_tree *t = &d->tree[side];
	if (++w->walk == 0) {
		memset(w->stamp, 0, t->keys->n * sizeof *w->stamp);
		w->walk = 1;
	}
	fn(ctx, d->krow[1][t->n[v].key]);
	for (uint32_t u = v; u != 0; u = t->n[u].parent) {
		uint32_t k = t->n[u].key;
		if (w->stamp[k] != w->walk) {  /* nearest the leaf: its calltrace */
			w->stamp[k] = w->walk;
			fn(ctx, d->ctrow[side][u]);
		}
		if (w->anc[u] == DT_NONE)  /* topmost: the key's children, once */
			fn(ctx, d->krow[0][k]);
	}
}

/* Frames of v outwards, `depth` of them (0: all), joined by `sep`; or
 * root → v when `down`. */
static int node_path(const dt_tree *t, uint32_t v, unsigned depth, bool down, char sep,
		     pd_buf *b)
{
	b->len = 0;
	uint32_t nf = 0;
	for (uint32_t u = v; u != 0 && u != DT_NONE; u = t->n[u].parent)
		nf++;
	if (!down && depth && nf > depth)
		nf = depth;
	if (down) {
		/* collect ids first, then print root first */
		uint32_t *ids = malloc((nf ? nf : 1) * sizeof *ids);
		if (!ids)
			return PD_ENOMEM;
		uint32_t i = nf;
		for (uint32_t u = v; u != 0 && u != DT_NONE; u = t->n[u].parent)
			ids[--i] = u;
		int rc = 0;
		for (i = 0; i < nf && rc == 0; i++) {
			const char *s = dt_node_sym(t, ids[i]);
			if (i)
				rc = pd_buf_append(b, &sep, 1);
			if (rc == 0)
				rc = pd_buf_append(b, s, strlen(s));
		}
		free(ids);
		return rc;
	}
	uint32_t u = v;
	for (uint32_t i = 0; i < nf; i++, u = t->n[u].parent) {
		const char *s = dt_node_sym(t, u);
		int rc;
		if (i && (rc = pd_buf_append(b, &sep, 1)) < 0)
			return rc;
		if ((rc = pd_buf_append(b, s, strlen(s))) < 0)
			return rc;
	}
	return 0;
}

static void set_sym(dt_row *r, const dt_tree *t, uint32_t v)
{
	if (!r->pub.symbol) {
		const dt_key *k = dt_node_key(t, v);
		r->pub.symbol = k->sym;
		r->pub.dso = k->dso;
		r->inner = t->n[v].key;
	}
}

/* The children and self rows of each key, found once (d->krow): many
 * nodes share a key (a function under several callers), and a lookup
 * hashes its name. */
static int key_rows_init(pd_diff *d)
{
	uint32_t nkeys = d->keys.n;
	for (int m = 0; m < 2; m++) {
		d->krow[m] = malloc((nkeys ? nkeys : 1) * sizeof *d->krow[m]);
		if (!d->krow[m])
			return PD_ENOMEM;
		for (uint32_t k = 0; k < nkeys; k++)
			d->krow[m][k] = DT_NONE;
	}
	return 0;
}

static uint32_t key_row(pd_diff *d, uint32_t *cache, pd_diff_metric m, const dt_key *k,
			uint32_t keyid)
{
	if (cache[keyid] == DT_NONE)
		cache[keyid] = pd_diff_row_get(d, m, k->sym, strlen(k->sym), keyid);
	return cache[keyid];
}

static int tree_metrics(pd_diff *d, int side, pd_buf *b)
{
	const dt_tree *t = &d->tree[side];
	size_t R = t->nruns, N = t->nn;
	const double *unit = d->unit[side];
	uint32_t *anc = malloc(N * sizeof *anc);
	uint64_t *contrib = malloc(N * R * sizeof *contrib);
	uint32_t *ct = d->ctrow[side] = malloc(N * sizeof *ct);
	int rc = 0;
	if (!anc || !contrib || !ct) {
		rc = PD_ENOMEM;
		goto out;
	}
	if ((rc = dt_same_key_ancestors(t, anc)) < 0)
		goto out;
	memcpy(contrib, t->incl, N * R * sizeof *contrib);
	for (size_t v = 1; v < N; v++)
		if (anc[v] != DT_NONE)
			for (size_t r = 0; r < R; r++)
				contrib[(size_t)anc[v] * R + r] -= t->incl[v * R + r];
	for (uint32_t v = 1; v < N; v++) {
		const dt_key *k = dt_node_key(t, v);
		const uint64_t *inc = &t->incl[(size_t)v * R], *slf = &t->self[(size_t)v * R];
		uint32_t rc_ = key_row(d, d->krow[0], PD_DIFF_CHILDREN, k, t->n[v].key);
		uint32_t rs = key_row(d, d->krow[1], PD_DIFF_SELF, k, t->n[v].key);
		if ((rc = node_path(t, v, d->opts.depth, false, '.', b)) < 0)
			goto out;
		/* a path ending in "[unknown]" is one per dso: the dsos' unknowns
		 * have nothing in common but the name */
		uint32_t rt = pd_diff_row_get(d, PD_DIFF_CALLTRACE, (const char *)b->data, b->len,
				      k->unresolved ? t->n[v].key : DT_NONE);
		if (rc_ == DT_NONE || rs == DT_NONE || rt == DT_NONE) {
			rc = PD_ENOMEM;
			goto out;
		}
		ct[v] = rt;
		set_sym(&d->rows[rc_], t, v);
		set_sym(&d->rows[rs], t, v);
		set_sym(&d->rows[rt], t, v);
		for (size_t r = 0; r < R; r++) {
			if (anc[v] == DT_NONE)
				row_add(d, rc_, side, r, (double)inc[r] * unit[r]);
			row_add(d, rs, side, r, (double)slf[r] * unit[r]);
			row_add(d, rt, side, r, (double)contrib[(size_t)v * R + r] * unit[r]);
		}
	}
out:
	free(anc);
	free(contrib);
	return rc;
}

static int tree_rows(pd_diff *d, pd_buf *b)
{
	for (int side = 0; side < 2; side++) {
		uint32_t nn = d->tree[side].nn;
		if (!(d->trow[side] = malloc((nn ? nn : 1) * sizeof *d->trow[side])))
			return PD_ENOMEM;
		for (uint32_t v = 0; v < nn; v++)
			d->trow[side][v] = DT_NONE;
	}
	for (int side = 0; side < 2; side++) {
		const dt_tree *t = &d->tree[side];
		const dt_tree *o = &d->tree[!side];
		for (uint32_t v = 1; v < t->nn; v++) {
			uint32_t p = t->n[v].partner;
			if (side == 1 && p != DT_NONE)
				continue;  /* done from the base */
			/* an aligned pair is named by its new path */
			const dt_tree *nt = p != DT_NONE ? o : t;
			uint32_t nv = p != DT_NONE ? p : v;
			int rc = node_path(nt, nv, 0, true, ';', b);
			if (rc < 0)
				return rc;
			uint32_t row = pd_diff_row_get(d, PD_DIFF_TREE, (const char *)b->data, b->len,
					       nt->n[nv].key);
			if (row == DT_NONE)
				return PD_ENOMEM;
			set_sym(&d->rows[row], nt, nv);
			d->trow[side][v] = row;
			if (p != DT_NONE)
				d->trow[!side][p] = row;
			for (size_t r = 0; r < t->nruns; r++)
				row_add(d, row, side, r,
					(double)t->incl[(size_t)v * t->nruns + r] * d->unit[side][r]);
			if (p != DT_NONE)
				for (size_t r = 0; r < o->nruns; r++)
					row_add(d, row, !side, r,
						(double)o->incl[(size_t)p * o->nruns + r] *
							d->unit[!side][r]);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ LKP keys */

static int lkp_metrics(pd_diff *d, int side, pd_error *err)
{
	const pd_profile *p = d->prof[side];
	const char *evn = pd_profile_event_name(p, d->ev[side]);
	char ev[256];
	size_t evlen = pd_lkp_event_name(evn ? evn : "", ev, sizeof ev);
	if (evlen >= sizeof ev)
		return pd_error_set(err, PD_EINVAL, "diff", PD_NO_OFFSET, "event name too long");
	static const struct {
		const char *name;
		pd_diff_metric m;
	} metrics[] = { { "calltrace.", PD_DIFF_CALLTRACE },
			{ "children.", PD_DIFF_CHILDREN },
			{ "self.", PD_DIFF_SELF } };
	for (size_t r = 0; r < d->nruns[side]; r++) {
		pd_lkp_key *keys = NULL;
		size_t n = 0;
		int rc = pd_lkp_keys(&keys, &n, p, d->ev[side], r, err);
		if (rc < 0)
			return rc;
		/* report.h's values are % of the total: back to periods for rates */
		double scale = (d->opts.flags & PD_DIFF_ABSOLUTE)
				       ? d->unit[side][r] * (double)d->tree[side].total[r] / 100.0
				       : 1.0;
		for (size_t i = 0; i < n && rc == 0; i++) {
			const char *k = keys[i].key;
			size_t mi = 0;
			while (mi < 3 && strncmp(k, metrics[mi].name, strlen(metrics[mi].name)) != 0)
				mi++;
			if (mi == 3)
				continue;
			k += strlen(metrics[mi].name);
			if (strncmp(k, ev, evlen) != 0 || k[evlen] != '.')
				continue;
			k += evlen + 1;
			uint32_t row = pd_diff_row_get(d, metrics[mi].m, k, strlen(k), DT_NONE);
			if (row == DT_NONE) {
				rc = PD_ENOMEM;
				break;
			}
			dt_row *rw = &d->rows[row];
			if (!rw->pub.symbol) {
				const char *dot = metrics[mi].m == PD_DIFF_CALLTRACE ? strchr(k, '.') : NULL;
				rw->pub.symbol = dot ? pd_arena_strndup(&d->arena, k, (size_t)(dot - k))
						     : rw->pub.key;
				if (!rw->pub.symbol)
					rc = PD_ENOMEM;
			}
			row_add(d, row, side, r, keys[i].value * scale);
		}
		pd_lkp_keys_free(keys, n);
		if (rc < 0)
			return pd_error_set(err, rc, "diff", PD_NO_OFFSET, "out of memory");
	}
	return 0;
}

int pd_diff_build_rows(pd_diff *d, pd_error *err)
{
	pd_buf b;
	memset(&b, 0, sizeof b);
	/* both trees key into d->keys */
	int rc = key_rows_init(d);
	for (int side = 0; side < 2 && rc == 0; side++) {
		if (d->opts.flags & PD_DIFF_LKP_KEYS) {
			if ((rc = lkp_metrics(d, side, err)) < 0) {
				pd_buf_free(&b);
				return rc;
			}
		} else {
			rc = tree_metrics(d, side, &b);
		}
	}
	if (rc == 0 && (d->opts.flags & PD_DIFF_TREE_ROWS))
		rc = tree_rows(d, &b);
	pd_buf_free(&b);
	if (rc < 0)
		return pd_error_set(err, rc, "diff", PD_NO_OFFSET, "%s",
				    rc == PD_ENOMEM ? "out of memory" : "too many rows");
	return 0;
}

/* ------------------------------------------------------------ lookups */

uint32_t pd_diff_children_row(const pd_diff *d, const char *sym, uint32_t keyid)
{
	if (!(d->opts.flags & PD_DIFF_LKP_KEYS))
		return row_find(d, PD_DIFF_CHILDREN, sym, strlen(sym), keyid);
	char buf[512];
	size_t n = pd_lkp_symbol_clean(sym, buf, sizeof buf);
	if (n >= sizeof buf)
		return DT_NONE;
	return row_find(d, PD_DIFF_CHILDREN, buf, n, DT_NONE);
}
