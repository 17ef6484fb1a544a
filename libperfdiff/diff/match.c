/*
 * One to one from scores: the pairing that renamed functions and renamed
 * binaries share.  Candidates go best first; a candidate is taken when
 * neither of its two is taken yet and no free runner-up of either comes
 * within DT_AMBIGUITY_MARGIN of it: where the evidence cannot tell two
 * candidates apart, nothing is paired rather than a guess.
 */
#include <stdlib.h>

#include "internal.h"

static int cand_cmp(const void *a, const void *b)
{
	const dt_cand *x = a, *y = b;
	if (x->s != y->s)
		return x->s > y->s ? -1 : 1;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* The best score of row i or column j among the pairs still free, other
 * than (i, j) itself. */
static double rival(const double *sc, uint32_t nb, uint32_t nn, uint32_t i, uint32_t j,
		    const bool *db, const bool *dn)
{
	double r = -1;
	for (uint32_t jj = 0; jj < nn; jj++)
		if (jj != j && !dn[jj] && sc[(size_t)i * nn + jj] > r)
			r = sc[(size_t)i * nn + jj];
	for (uint32_t ii = 0; ii < nb; ii++)
		if (ii != i && !db[ii] && sc[(size_t)ii * nn + j] > r)
			r = sc[(size_t)ii * nn + j];
	return r;
}

size_t dt_match(const double *sc, uint32_t nb, uint32_t nn, dt_cand *cand, size_t ncand,
		bool *db, bool *dn)
{
	qsort(cand, ncand, sizeof *cand, cand_cmp);
	size_t taken = 0;
	for (size_t k = 0; k < ncand; k++) {
		uint32_t i = cand[k].i, j = cand[k].j;
		if (db[i] || dn[j] || cand[k].s - rival(sc, nb, nn, i, j, db, dn) < DT_AMBIGUITY_MARGIN)
			continue;
		db[i] = dn[j] = true;
		cand[taken++] = cand[k];
	}
	return taken;
}
