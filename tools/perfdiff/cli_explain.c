/*
 * Why a profile came out empty, in the user's own words: the filters as
 * they were typed ("--new-comm=app-1.3"), and the events a profile does
 * have.  "new profile has no event 'cpu-clock'" after a --comm that
 * matched nothing sent users looking for a missing event; naming the
 * filters and what the file holds points at the real cause.  The filters
 * are read back from argv rather than from the parsed options, so that
 * the wording is what was typed.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_explain.h"

#define NELEMS(a) (sizeof (a) / sizeof (a)[0])

static const char *const filter_names[] = { "comm", "pid", "tid", "cpu", "dso", "time" };

/* Whether argv[i], "--PREFIXNAME[=V]", is a filter option; its name's
 * length after "--" in *len. */
static bool is_filter(const char *a, const char *prefix, size_t *len)
{
	size_t pl = strlen(prefix);
	if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, prefix, pl) != 0)
		return false;
	for (size_t k = 0; k < NELEMS(filter_names); k++) {
		size_t n = strlen(filter_names[k]);
		const char *rest = a + 2 + pl;
		if (strncmp(rest, filter_names[k], n) == 0 && (rest[n] == '=' || rest[n] == '\0')) {
			*len = pl + n;
			return true;
		}
	}
	return false;
}

/* Append " --NAME=VALUE" for argv[*i] to buf (at *at of n). */
static void append(char *buf, size_t n, size_t *at, int argc, char **argv, int *i, size_t len)
{
	const char *a = argv[*i];
	const char *val = a[2 + len] == '=' ? a + 3 + len : *i + 1 < argc ? argv[++*i] : "";
	int k = snprintf(buf + *at, n - *at, "%s--%.*s=%s", *at ? " " : "", (int)len, a + 2, val);
	if (k > 0)
		*at = *at + (size_t)k < n ? *at + (size_t)k : n - 1;
}

size_t cli_filters_given(int argc, char **argv, int side, char *buf, size_t n)
{
	static const char *const prefixes[] = { "base-", "new-" };
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 1; i < argc; i++) {
		size_t len;
		if (is_filter(argv[i], "", &len) ||
		    (side >= 0 && is_filter(argv[i], prefixes[side], &len)))
			append(buf, n, &at, argc, argv, &i, len);
	}
	return at;
}

size_t cli_events_note(const pd_profile *p, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < pd_profile_event_count(p) && at + 1 < n; i++) {
		uint64_t samples = pd_profile_samples(p, i, SIZE_MAX);
		if (samples == 0)
			continue;
		int k = snprintf(buf + at, n - at, "%s%s (%llu samples)", at ? ", " : "",
				 pd_profile_event_name(p, i), (unsigned long long)samples);
		if (k > 0)
			at = at + (size_t)k < n ? at + (size_t)k : n - 1;
	}
	return at;
}

uint64_t cli_profile_samples(const pd_profile *p)
{
	uint64_t n = 0;
	for (size_t i = 0; i < pd_profile_event_count(p); i++)
		n += pd_profile_samples(p, i, SIZE_MAX);
	return n;
}
