/*
 * Samples per dso name (pd_dso_tally, unwind.h): the one counter that the
 * unwinder's and the session's footers share, so both count and grow the
 * same way.
 */
#include <stdlib.h>
#include <string.h>

#include "unwind.h"
#include "util/util.h"

void pd_dso_tally_add(pd_dso_tally *t, const char *dso, uint64_t samples)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].dso == dso || strcmp(t->v[i].dso, dso) == 0) {
			t->v[i].samples += samples;
			return;
		}
	if (pd_grow(&t->v, &t->cap, t->n + 1, sizeof *t->v) < 0)
		return;
	t->v[t->n++] = (pd_unresolved_count){ dso, samples };
}

void pd_dso_tally_free(pd_dso_tally *t)
{
	free(t->v);
	*t = (pd_dso_tally){ 0 };
}
