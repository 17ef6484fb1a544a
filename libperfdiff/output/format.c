/*
 * Format names (one enum for every command, so `--format` is parsed once)
 * and the check of a format against what a writer takes.  (The version
 * rule of the options structs is util/'s pd_options_import().)
 */
#include "internal.h"

#include "util/util.h"

static const char *const names[] = {
	[PD_FORMAT_TEXT] = "text", [PD_FORMAT_JSON] = "json", [PD_FORMAT_CSV] = "csv",
	[PD_FORMAT_FOLDED] = "folded", [PD_FORMAT_LKP] = "lkp", [PD_FORMAT_HTML] = "html",
	[PD_FORMAT_SVG] = "svg",
};

#define NNAMES (sizeof names / sizeof names[0])

int pd_format_parse(const char *name)
{
	for (size_t i = 0; name && i < NNAMES; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return PD_EINVAL;
}

const char *pd_format_name(pd_format f)
{
	return (unsigned)f < NNAMES ? names[f] : NULL;
}

int pdo_format_check(pd_format f, unsigned allowed, const char *what, pd_error *err)
{
	if ((unsigned)f < NNAMES && (allowed >> f & 1))
		return 0;
	const char *name = pd_format_name(f);
	if (name)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "%s has no %s format", what, name);
	return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "%s: no format %d", what,
			    (int)f);
}

int pdo_nomem(pd_error *err)
{
	return pd_error_set(err, PD_ENOMEM, "output", PD_NO_OFFSET, "out of memory");
}
