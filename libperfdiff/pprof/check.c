/*
 * A decoded Profile checked whole before anything is imported: every
 * string index within the table, every count within its cap, every id
 * known, every sample with one value per sample type and the sums of its
 * values within 64 bits.  The import then indexes without checking, and
 * a hostile file fails here with the message and entry it broke.
 */
#include <inttypes.h>

#include "internal.h"

typedef struct ck {
	const pp_profile *m;
	const pp_index *ix;
	const char *name;
	pd_error *err;
} ck;

static int bad(const ck *c, int code, const char *what, size_t i, const char *why, uint64_t v)
{
	return pd_error_set(c->err, code, c->name, PD_NO_OFFSET, "pprof: %s %zu: %s %" PRIu64,
			    what, i, why, v);
}

/* String index `s` of entry `i` of `what`. */
static int str(const ck *c, const char *what, size_t i, const char *field, int64_t s)
{
	if (s >= 0 && (uint64_t)s < c->m->n_string_table)
		return 0;
	return pd_error_set(c->err, PD_ECORRUPT, c->name, PD_NO_OFFSET,
			    "pprof: %s %zu: %s is string %" PRId64 ", string_table has %zu",
			    what, i, field, s, c->m->n_string_table);
}

static int counts(const ck *c)
{
	const pp_profile *m = c->m;
	if (m->n_string_table > PP_MAX_STRINGS)
		return bad(c, PD_ELIMIT, "Profile", 0, "string_table entries above the cap:",
			   m->n_string_table);
	if (m->n_string_table == 0 || m->string_table[0][0])
		return pd_error_set(c->err, PD_ECORRUPT, c->name, PD_NO_OFFSET,
				    "pprof: Profile: string_table[0] is not the empty string");
	size_t n[] = { m->n_sample, m->n_location, m->n_function, m->n_mapping, m->n_comment };
	for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
		if (n[i] > PP_MAX_ENTRIES)
			return bad(c, PD_ELIMIT, "Profile", 0, "entries of a field above the cap:",
				   n[i]);
	/* no sample type: an export of a run without samples */
	if ((m->n_sample_type == 0 && m->n_sample) || m->n_sample_type > PP_MAX_TYPES)
		return bad(c, PD_ECORRUPT, "Profile", 0, "sample_type entries (1 to 64):",
			   m->n_sample_type);
	return 0;
}

static int header(const ck *c)
{
	const pp_profile *m = c->m;
	int rc = 0;
	for (size_t i = 0; i < m->n_sample_type && !rc; i++)
		if (!(rc = str(c, "ValueType", i, "type", m->sample_type[i]->type)))
			rc = str(c, "ValueType", i, "unit", m->sample_type[i]->unit);
	for (size_t i = 0; i < m->n_comment && !rc; i++)
		rc = str(c, "Profile", 0, "comment", m->comment[i]);
	if (!rc && m->period_type && !(rc = str(c, "Profile", 0, "period_type.type",
						 m->period_type->type)))
		rc = str(c, "Profile", 0, "period_type.unit", m->period_type->unit);
	if (!rc && !(rc = str(c, "Profile", 0, "default_sample_type", m->default_sample_type)) &&
	    !(rc = str(c, "Profile", 0, "drop_frames", m->drop_frames)) &&
	    !(rc = str(c, "Profile", 0, "keep_frames", m->keep_frames)))
		rc = str(c, "Profile", 0, "doc_url", m->doc_url);
	return rc;
}

static int mappings(const ck *c)
{
	int rc = 0;
	for (size_t i = 0; i < c->m->n_mapping && !rc; i++) {
		const pp_mapping *mp = c->m->mapping[i];
		if (!(rc = str(c, "Mapping", i, "filename", mp->filename)))
			rc = str(c, "Mapping", i, "build_id", mp->build_id);
	}
	return rc;
}

static int functions(const ck *c)
{
	int rc = 0;
	for (size_t i = 0; i < c->m->n_function && !rc; i++) {
		const pp_function *f = c->m->function[i];
		if (!(rc = str(c, "Function", i, "name", f->name)) &&
		    !(rc = str(c, "Function", i, "system_name", f->system_name)))
			rc = str(c, "Function", i, "filename", f->filename);
	}
	return rc;
}

static int location(const ck *c, size_t i, const pp_location *l)
{
	if (l->mapping_id && !pd_u64map_get(&c->ix->map, l->mapping_id))
		return bad(c, PD_ECORRUPT, "Location", i, "mapping_id is no Mapping:", l->mapping_id);
	if (l->n_line > PP_MAX_LINES)
		return bad(c, PD_ELIMIT, "Location", i, "lines above the cap:", l->n_line);
	for (size_t k = 0; k < l->n_line; k++)
		if (!pd_u64map_get(&c->ix->fn, l->line[k]->function_id))
			return bad(c, PD_ECORRUPT, "Location", i, "line's function_id is no Function:",
				   l->line[k]->function_id);
	return 0;
}

static int sample(const ck *c, size_t i, const pp_sample *s, uint64_t *sums)
{
	if (s->n_value != c->m->n_sample_type)
		return bad(c, PD_ECORRUPT, "Sample", i, "values, not one per sample_type:",
			   s->n_value);
	if (s->n_location_id > PP_MAX_DEPTH)
		return bad(c, PD_ELIMIT, "Sample", i, "locations above the cap:", s->n_location_id);
	for (size_t k = 0; k < s->n_location_id; k++)
		if (!pd_u64map_get(&c->ix->loc, s->location_id[k]))
			return bad(c, PD_ECORRUPT, "Sample", i, "location_id is no Location:",
				   s->location_id[k]);
	for (size_t k = 0; k < s->n_value; k++) {
		if (s->value[k] < 0)
			return bad(c, PD_ECORRUPT, "Sample", i, "negative value at index", k);
		if ((uint64_t)s->value[k] > UINT64_MAX / 2 - sums[k])
			return bad(c, PD_ELIMIT, "Sample", i, "values' sum overflows at index", k);
		sums[k] += (uint64_t)s->value[k];
	}
	int rc = 0;
	for (size_t k = 0; k < s->n_label && !rc; k++) {
		const pp_label *l = s->label[k];
		if (!(rc = str(c, "Sample", i, "label key", l->key)) &&
		    !(rc = str(c, "Sample", i, "label str", l->str)))
			rc = str(c, "Sample", i, "label num_unit", l->num_unit);
		/* a time block of the export's grid (import.c) */
		if (!rc && strcmp(c->m->string_table[l->key], "block") == 0 &&
		    (l->num < 0 || l->num >= 32))
			rc = pd_error_set(c->err, PD_ECORRUPT, c->name, PD_NO_OFFSET,
					  "pprof: Sample %zu: label block %" PRId64 " outside 0..31",
					  i, l->num);
	}
	return rc;
}

int pp_check(const pp_profile *m, const pp_index *ix, const char *name, pd_error *err)
{
	ck c = { m, ix, name, err };
	int rc;
	if ((rc = counts(&c)) < 0 || (rc = header(&c)) < 0 || (rc = mappings(&c)) < 0 ||
	    (rc = functions(&c)) < 0)
		return rc;
	for (size_t i = 0; i < m->n_location; i++)
		if ((rc = location(&c, i, m->location[i])) < 0)
			return rc;
	uint64_t sums[PP_MAX_TYPES] = { 0 };
	for (size_t i = 0; i < m->n_sample; i++)
		if ((rc = sample(&c, i, m->sample[i], sums)) < 0)
			return rc;
	return 0;
}
