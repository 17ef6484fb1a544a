/*
 * pd_diff_peek() (diff.h): the profile stage's peek of both sides
 * (profile/peek.h), paired by the diff's renames, each entry given its
 * children and self rows and the relations that name it.  The pairing is
 * the diff's, so that a renamed function is one block whose callers and
 * callees line up.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "profile/peek.h"

/* The other side's name of side `side`'s `sym` by a rename, or NULL. */
static const char *renamed(void *ctx, int side, const char *sym, const char *dso)
{
	const pd_diff *d = ctx;
	(void)dso;
	for (size_t i = 0; i < pd_diff_relation_count(d); i++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, i);
		if (r->kind != PD_REL_RENAMED || !r->base_symbol || !r->new_symbol)
			continue;
		if (strcmp(side ? r->new_symbol : r->base_symbol, sym) == 0)
			return side ? r->base_symbol : r->new_symbol;
	}
	return NULL;
}

/* Whether the base's and the new's dso are one program under two names
 * (the diff's dso pairs). */
static bool paired_dso(void *ctx, const char *base_dso, const char *new_dso)
{
	const pd_diff *d = ctx;
	const char *b, *n;
	double sim;
	for (size_t i = 0; pd_diff_dso_pair_at(d, i, &b, &n, &sim); i++)
		if (strcmp(b, base_dso) == 0 && strcmp(n, new_dso) == 0)
			return true;
	return false;
}

static bool is(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* The row of `metric` for the entry's function: its base name's, else its
 * new name's. */
static const pd_diff_row *row_of(const pd_diff *d, pd_diff_metric metric,
				 const pd_peek_entry *e)
{
	const char *name = e->fn.base_symbol ? e->fn.base_symbol : e->fn.new_symbol;
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (r->metric == metric && is(r->symbol, name) &&
		    (!r->dso || !e->fn.dso || strcmp(r->dso, e->fn.dso) == 0))
			return r;
	}
	return NULL;
}

static bool names(const char *const *v, size_t n, const char *sym)
{
	for (size_t i = 0; i < n; i++)
		if (is(v[i], sym))
			return true;
	return false;
}

/* Whether relation `r` names the function `b` (base) / `n` (new). */
static bool touches(const pd_diff_relation *r, const char *b, const char *n)
{
	return names(r->base_symbols, r->nbase_symbols, b) || is(r->base_symbol, b) ||
	       names(r->new_symbols, r->nnew_symbols, n) || is(r->new_symbol, n) ||
	       is(r->base_parent, b) || is(r->new_parent, n);
}

static int fill_entry(pd_peek *pk, size_t i, const pd_diff *d)
{
	pd_peek_entry *e = pd_peek_entry_edit(pk, i);
	e->children_row = row_of(d, PD_DIFF_CHILDREN, e);
	e->self_row = row_of(d, PD_DIFF_SELF, e);
	size_t nrel = pd_diff_relation_count(d), k = 0;
	const pd_diff_relation **v = malloc((nrel ? nrel : 1) * sizeof *v);
	if (!v || pd_peek_own(pk, v) < 0)
		return PD_ENOMEM;
	for (size_t j = 0; j < nrel; j++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, j);
		if (touches(r, e->fn.base_symbol, e->fn.new_symbol))
			v[k++] = r;
	}
	e->relations = v;
	e->nrelations = k;
	return 0;
}

int pd_diff_peek(const pd_diff *d, const char *regex, pd_peek **out, pd_error *err)
{
	if (!d || !out)
		return pd_error_set(err, PD_EINVAL, "peek", PD_NO_OFFSET, "no diff given");
	*out = NULL;
	const pd_profile *side[2] = { pd_diff_profile(d, 0), pd_diff_profile(d, 1) };
	if (!side[0] || !side[1])
		return pd_error_set(err, PD_EINVAL, "peek", PD_NO_OFFSET,
				    "a diff of a table has no trees to peek into");
	size_t ev[2];
	int rc = pd_diff_events(side[0], side[1], pd_diff_event(d), ev, err);
	if (rc < 0)
		return rc;
	const pd_peek_align al = { renamed, paired_dso, (void *)d };
	pd_peek *pk;
	if ((rc = pd_peek_build(&pk, side, ev, regex, &al, err)) < 0)
		return rc;
	for (size_t i = 0; i < pd_peek_count(pk) && rc == 0; i++)
		rc = fill_entry(pk, i, d);
	if (rc < 0) {
		pd_peek_free(pk);
		return pd_error_set(err, rc, "peek", PD_NO_OFFSET, "out of memory");
	}
	*out = pk;
	return 0;
}
