/*
 * Pairing dsos that are one program under two names.
 *
 * Keys hold a dso's basename, so a rebuild in another folder matches; a
 * rebuild under another name (./app-1.2 and ./app-1.3, vmlinux-old and
 * vmlinux-new) would leave every key of the program apart, nothing below
 * it aligned and no rename found.  A dso that costs something on one side
 * only is paired with one that costs something on the other side only
 * when their symbol names overlap (overlap() ≥ DT_DSO_OVERLAP, over every
 * resolved symbol sampled), kernel with kernel and user with user,
 * 1:1, and only when no other candidate comes within DT_AMBIGUITY_MARGIN:
 * two programs that merely share "main" stay apart.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct dso_info {
	const char *dbase, *dso;   /* dso: the first full path seen */
	double cost[2];            /* per side: largest inclusive share of a node */
	bool kernel;
	uint32_t key0, nkeys;      /* range in the by-dso key order */
} dso_info;

typedef struct dso_set {
	dso_info *v;
	uint32_t n;
	uint32_t *of_key;          /* key → dso index */
	uint32_t *keys;            /* keys grouped by dso */
	bool *seen[2];             /* key → sampled on that side */
	pd_u64map index;           /* hash of dbase → first dso index + 1 */
} dso_set;

static void set_free(dso_set *s)
{
	free(s->v);
	free(s->of_key);
	free(s->keys);
	free(s->seen[0]);
	free(s->seen[1]);
	pd_u64map_free(&s->index);
}

/* The index of dso basename `dbase`, added if new; DT_NONE on ENOMEM. */
static uint32_t dso_index(dso_set *s, const dt_key *k, uint32_t *cap)
{
	uint64_t h = pd_hash_str(PD_HASH_INIT, k->dbase);
	uintptr_t at = (uintptr_t)pd_u64map_get(&s->index, h);
	if (at && strcmp(s->v[at - 1].dbase, k->dbase) == 0)
		return (uint32_t)(at - 1);
	if (at) {  /* a hash collision: rare, search them all */
		for (uint32_t i = 0; i < s->n; i++)
			if (strcmp(s->v[i].dbase, k->dbase) == 0)
				return i;
	}
	if (s->n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 16;
		dso_info *v = realloc(s->v, (size_t)c * sizeof *v);
		if (!v)
			return DT_NONE;
		s->v = v;
		*cap = c;
	}
	memset(&s->v[s->n], 0, sizeof s->v[s->n]);
	s->v[s->n].dbase = k->dbase;
	s->v[s->n].dso = k->dso;
	if (!at && pd_u64map_put(&s->index, h, (void *)(uintptr_t)(s->n + 1)) < 0)
		return DT_NONE;
	return s->n++;
}

static int collect(dso_set *s, const dt_keytab *keys, const dt_tree *t[2])
{
	uint32_t nk = keys->n, cap = 0;
	s->of_key = malloc((nk ? nk : 1) * sizeof *s->of_key);
	s->keys = malloc((nk ? nk : 1) * sizeof *s->keys);
	s->seen[0] = calloc(nk ? nk : 1, sizeof *s->seen[0]);
	s->seen[1] = calloc(nk ? nk : 1, sizeof *s->seen[1]);
	if (!s->of_key || !s->keys || !s->seen[0] || !s->seen[1])
		return PD_ENOMEM;
	for (uint32_t k = 0; k < nk; k++)
		if ((s->of_key[k] = dso_index(s, &keys->v[k], &cap)) == DT_NONE)
			return PD_ENOMEM;
	for (int side = 0; side < 2; side++)
		for (uint32_t i = 1; i < t[side]->nn; i++) {
			const dt_node *n = &t[side]->n[i];
			dso_info *d = &s->v[s->of_key[n->key]];
			s->seen[side][n->key] = true;
			d->kernel |= (n->flags & DT_KERNEL) != 0;
			if (t[side]->mean_incl[i] > d->cost[side])
				d->cost[side] = t[side]->mean_incl[i];
		}
	/* keys grouped by dso: a counting sort */
	for (uint32_t k = 0; k < nk; k++)
		s->v[s->of_key[k]].nkeys++;
	uint32_t at = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		s->v[i].key0 = at;
		at += s->v[i].nkeys;
		s->v[i].nkeys = 0;
	}
	for (uint32_t k = 0; k < nk; k++) {
		dso_info *d = &s->v[s->of_key[k]];
		s->keys[d->key0 + d->nkeys++] = k;
	}
	return 0;
}

/* Cost beyond sampling noise on a side (as align.c judges nodes). */
static bool costs(const dso_info *d, const dt_tree *t, int side, double min_pts)
{
	double v = d->cost[side];
	return v > 0 && v >= min_pts && v >= DT_NOISE_SIGMAS * dt_share_noise(t, v);
}

/*
 * How far the resolved symbol names sampled in base dso `a` and in new
 * dso `b` are one set: shared names over the smaller set's (the overlap
 * coefficient), 0 with fewer than DT_DSO_SHARED shared.  Not Jaccard:
 * a program of three sampled functions, one renamed, shares 2 of 4 names
 * in all, and one stray sample on either side would tip it below a half;
 * the smaller set is the one sampling noise thins out least.
 */
static double overlap(const dso_set *s, const dt_keytab *keys, const dso_info *a,
		      const dso_info *b)
{
	uint32_t na = 0, nb = 0, common = 0;
	for (uint32_t i = 0; i < a->nkeys; i++) {
		uint32_t k = s->keys[a->key0 + i];
		if (!s->seen[0][k] || keys->v[k].unresolved)
			continue;
		na++;
		uint32_t o = dt_keytab_find(keys, keys->v[k].sym, b->dbase);
		common += o != DT_NONE && s->seen[1][o];
	}
	for (uint32_t i = 0; i < b->nkeys; i++) {
		uint32_t k = s->keys[b->key0 + i];
		nb += s->seen[1][k] && !keys->v[k].unresolved;
	}
	if (common < DT_DSO_SHARED)
		return 0;
	return (double)common / (na < nb ? na : nb);
}

int dt_pair_dsos(const dt_keytab *keys, const dt_tree *t[2], double min_pts, dt_dso_pairs *out)
{
	memset(out, 0, sizeof *out);
	dso_set s;
	memset(&s, 0, sizeof s);
	pd_u64map_init(&s.index);
	uint32_t *only[2] = { NULL, NULL }, nonly[2] = { 0, 0 };
	double *sim = NULL;
	dt_cand *cand = NULL;
	bool *used[2] = { NULL, NULL };
	int rc = collect(&s, keys, t);
	if (rc < 0)
		goto out;
	for (int side = 0; side < 2; side++) {
		only[side] = malloc((s.n ? s.n : 1) * sizeof *only[side]);
		used[side] = calloc(s.n ? s.n : 1, sizeof *used[side]);
		if (!only[side] || !used[side]) {
			rc = PD_ENOMEM;
			goto out;
		}
		for (uint32_t i = 0; i < s.n && nonly[side] < DT_DSO_CAP; i++)
			if (costs(&s.v[i], t[side], side, min_pts) &&
			    !costs(&s.v[i], t[!side], !side, min_pts))
				only[side][nonly[side]++] = i;
	}
	if (nonly[0] == 0 || nonly[1] == 0)
		goto out;
	size_t nb = nonly[0], nn = nonly[1], nc = 0;
	sim = malloc(nb * nn * sizeof *sim);
	cand = malloc(nb * nn * sizeof *cand);
	if (!sim || !cand) {
		rc = PD_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < nb; i++)
		for (uint32_t j = 0; j < nn; j++) {
			const dso_info *a = &s.v[only[0][i]], *b = &s.v[only[1][j]];
			double x = a->kernel == b->kernel ? overlap(&s, keys, a, b) : 0;
			sim[(size_t)i * nn + j] = x;
			if (x >= DT_DSO_OVERLAP)
				cand[nc++] = (dt_cand){ i, j, x };
		}
	nc = dt_match(sim, (uint32_t)nb, (uint32_t)nn, cand, nc, used[0], used[1]);
	for (size_t c = 0; c < nc && out->n < DT_DSO_CAP; c++) {
		uint32_t i = cand[c].i, j = cand[c].j;
		if (out->n == out->cap) {
			uint32_t cap = out->cap ? out->cap * 2 : 4;
			dt_dso_pair *v = realloc(out->v, cap * sizeof *v);
			if (!v) {
				rc = PD_ENOMEM;
				goto out;
			}
			out->v = v;
			out->cap = cap;
		}
		out->v[out->n++] = (dt_dso_pair){ s.v[only[0][i]].dso, s.v[only[1][j]].dso,
						   cand[c].s };
	}
out:
	set_free(&s);
	free(only[0]);
	free(only[1]);
	free(used[0]);
	free(used[1]);
	free(sim);
	free(cand);
	if (rc < 0)
		dt_dso_pairs_free(out);
	return rc;
}

void dt_dso_pairs_free(dt_dso_pairs *p)
{
	free(p->v);
	memset(p, 0, sizeof *p);
}
