/*
 * The version rule of every options struct of the public API (pd_*_options,
 * pd_*_write_options): `version` comes first; a struct of an older version
 * (a program built against an older header) is copied over the defaults as
 * far as that version went, so the fields added since keep their defaults;
 * a version of 0, newer than the library's, or of a layout the library no
 * longer reads is refused with PD_EINVAL and a message.  One helper, so that
 * every stage accepts and refuses versions alike.
 *
 * pd_options_init() is the other side of the same rule, libgit2's way: the
 * caller's struct is as large as the header it was built with says, which
 * may be an older one than the library's, so init writes only as far as
 * the version the caller names went, never sizeof of the library's struct.
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

int pd_options_init(void *opts, unsigned version, const void *defaults, const size_t *sizes,
		    unsigned current)
{
	/* refused before anything is written: the struct stays as it was */
	if (!opts || version == 0 || version > current || sizes[version] == 0)
		return PD_EINVAL;
	memcpy(opts, defaults, sizes[version]);
	memcpy(opts, &version, sizeof version);
	return 0;
}
