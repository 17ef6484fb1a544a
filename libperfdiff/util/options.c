/*
 * The version rule of every options struct of the public API (pd_*_options,
 * pd_*_write_options): `version` comes first; a struct of an older version
 * (a program built against an older header) is copied over the defaults as
 * far as that version went, so the fields added since keep their defaults;
 * a version of 0, newer than the library's, or of a layout the library no
 * longer reads is refused with PD_EINVAL and a message.  One helper, so that
 * every stage accepts and refuses versions alike.
 */
#include "util.h"

/* The oldest version `sizes` accepts (0: none). */
static unsigned first_version(const size_t *sizes, unsigned current)
{
	for (unsigned v = 1; v <= current; v++)
		if (sizes[v])
			return v;
	return 0;
}

int pd_options_import(void *dst, const void *src, const size_t *sizes, unsigned current,
		      const char *what, const char *file, pd_error *err)
{
	unsigned v;
	memcpy(&v, src, sizeof v);
	if (v == 0 || v > current || sizes[v] == 0)
		return pd_error_set(err, PD_EINVAL, file, PD_NO_OFFSET,
				    "%s version %u, this library knows %u to %u", what, v,
				    first_version(sizes, current), current);
	/* the defaults are in `dst`: keep those of fields added since v */
	memcpy(dst, src, sizes[v]);
	memcpy(dst, &current, sizeof current);
	return 0;
}
