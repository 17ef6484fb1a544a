/*
 * The robot's result files (matrix.json, a run's perf-profile.json or
 * stats.json): a top-level object whose members the caller wants when
 * they are numbers or arrays of numbers
 * ("perf-profile.children.cycles-pp.foo": [1.2, 1.3, 1.25]); anything
 * else (strings, nested objects, arrays of other things) is skipped.
 *
 * jansson (Debian's libjansson-dev) parses them: a well-kept, fuzzed
 * parser that checks the whole syntax and UTF-8, caps nesting, and says
 * on which line and at which byte the text goes wrong, which is what a
 * user needs to find it in an editor.  The files are a few megabytes at
 * most (LT_MAIL_MAX caps what is read), so a tree in memory is no cost.
 */
#include <jansson.h>
#include <stdlib.h>

#include "internal.h"

/* `v` as numbers into *vals: how many, or -1 when it is something else. */
static long numbers(json_t *v, double **vals, size_t *cap)
{
	if (json_is_number(v)) {
		if (pd_grow(vals, cap, 1, sizeof **vals) < 0)
			return PD_ENOMEM;
		(*vals)[0] = json_number_value(v);
		return 1;
	}
	if (!json_is_array(v))
		return -1;
	size_t n = json_array_size(v);
	for (size_t i = 0; i < n; i++)
		if (!json_is_number(json_array_get(v, i)))
			return -1;
	if (n && pd_grow(vals, cap, n, sizeof **vals) < 0)
		return PD_ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*vals)[i] = json_number_value(json_array_get(v, i));
	return (long)n;
}

static int members(json_t *root, lt_json_member_fn fn, void *ctx)
{
	double *vals = NULL;
	size_t cap = 0;
	const char *key;
	json_t *v;
	int rc = 0;
	json_object_foreach(root, key, v) {
		long n = numbers(v, &vals, &cap);
		if (n == PD_ENOMEM)
			rc = PD_ENOMEM;
		else if (n >= 0)
			rc = fn(ctx, key, vals, (size_t)n);
		if (rc)
			break;
	}
	free(vals);
	return rc;
}

int lt_json_members(const char *s, size_t len, const char *name, lt_json_member_fn fn,
		    void *ctx, pd_error *err)
{
	json_error_t je;
	json_t *root = json_loadb(s, len, 0, &je);
	if (!root)
		return pd_error_set(err, PD_ECORRUPT, name, (uint64_t)je.position, "line %d: %s",
				    je.line, je.text);
	int rc = json_is_object(root) ? members(root, fn, ctx)
				      : pd_error_set(err, PD_ECORRUPT, name, 0,
						     "line 1: a JSON object expected");
	json_decref(root);
	if (rc == PD_ENOMEM)
		pd_error_set(err, rc, name, PD_NO_OFFSET, "out of memory");
	return rc;
}
