/*
 * Entries of a decoded Profile by id.  pprof refers to Mappings,
 * Locations and Functions by id, and readers may not assume the ids are
 * dense or sorted, so they are hashed; an id of 0 (pprof's "none") or one
 * given twice is an error here, before anything refers to it.
 */
#include <inttypes.h>

#include "internal.h"

const char *pp_str(const pp_profile *m, int64_t i)
{
	return m->string_table[i];
}

/* Entries `v` (ids at `id_off` in each) of message `what` into `map`. */
static int index_of(pd_u64map *map, void *const *v, size_t n, size_t id_off,
		    const char *what, const char *name, pd_error *err)
{
	if (n > PP_MAX_ENTRIES)
		return pd_error_set(err, PD_ELIMIT, name, PD_NO_OFFSET,
				    "pprof: %zu %s entries, above the cap of %zu", n, what,
				    (size_t)PP_MAX_ENTRIES);
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		memcpy(&id, (const char *)v[i] + id_off, sizeof id);
		if (id == 0 || id > PP_MAX_ID)
			return pd_error_set(err, PD_ECORRUPT, name, PD_NO_OFFSET,
					    "pprof: %s %zu: id %" PRIu64 " (1 to 2^40)", what, i, id);
		if (pd_u64map_get(map, id))
			return pd_error_set(err, PD_ECORRUPT, name, PD_NO_OFFSET,
					    "pprof: %s %zu: id %" PRIu64 " given twice", what, i, id);
		if (pd_u64map_put(map, id, v[i]) < 0)
			return pd_error_set(err, PD_ENOMEM, name, PD_NO_OFFSET, "out of memory");
	}
	return 0;
}

int pp_index_build(pp_index *ix, const pp_profile *m, const char *name, pd_error *err)
{
	pd_u64map_init(&ix->loc);
	pd_u64map_init(&ix->fn);
	pd_u64map_init(&ix->map);
	int rc = index_of(&ix->map, (void *const *)m->mapping, m->n_mapping,
			  offsetof(pp_mapping, id), "Mapping", name, err);
	if (rc == 0)
		rc = index_of(&ix->fn, (void *const *)m->function, m->n_function,
			      offsetof(pp_function, id), "Function", name, err);
	if (rc == 0)
		rc = index_of(&ix->loc, (void *const *)m->location, m->n_location,
			      offsetof(pp_location, id), "Location", name, err);
	if (rc < 0)
		pp_index_free(ix);
	return rc;
}

void pp_index_free(pp_index *ix)
{
	pd_u64map_free(&ix->loc);
	pd_u64map_free(&ix->fn);
	pd_u64map_free(&ix->map);
}
