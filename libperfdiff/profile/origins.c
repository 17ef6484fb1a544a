/*
 * Where each dso's symbols came from, kept per profile so that the
 * footers can say it: a recording read on another machine is named from
 * a tarball, a build-id directory or a server, and a reader must see
 * which (and what was not found) next to the numbers, not only in
 * warnings that scrolled away.  The kernel's line names the table that
 * named its frames (a tarball's kallsyms, this machine's /proc/kallsyms,
 * a vmlinux), so that one kernel's frames are never silently named with
 * another's table.  One entry per (dso, kernel), the first run's: the
 * runs of one profile share their sources.  Strings live in the
 * profile's string table.
 */
#include <stdlib.h>

#include "internal.h"
#include "session/session.h"

static bool known(const pd_profile *p, const char *dso, bool kernel)
{
	for (size_t i = 0; i < p->norigins; i++)
		if (p->origins[i].kernel == kernel && strcmp(p->origins[i].dso, dso) == 0)
			return true;
	return false;
}

static int add(pd_profile *p, const char *dso, bool kernel, const pd_symorigin *o)
{
	if (p->norigins == p->cap_origins) {
		size_t cap = p->cap_origins ? p->cap_origins * 2 : 16;
		pd_symbol_origin *v = realloc(p->origins, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		p->origins = v;
		p->cap_origins = cap;
	}
	pd_symbol_origin e = { 0 };
	e.kernel = kernel;
	size_t n = o->build_id_size < sizeof e.build_id ? o->build_id_size : sizeof e.build_id;
	memcpy(e.build_id, o->build_id, n);
	e.build_id_size = n;
	if (!pd_profile_keep_str(p, dso, &e.dso) || !pd_profile_keep_str(p, o->from, &e.from) ||
	    !pd_profile_keep_str(p, o->vmlinux, &e.vmlinux) ||
	    !pd_profile_keep_str(p, o->searched, &e.searched))
		return PD_ENOMEM;
	p->origins[p->norigins++] = e;
	return 0;
}

/* A user dso worth a line: a file (or the vdso), not anonymous memory,
 * JIT code or an unknown map. */
static bool user_file(const char *dso)
{
	return (dso[0] == '/' && strncmp(dso, "//anon", 6) != 0) || strcmp(dso, "[vdso]") == 0;
}

int pd_profile_keep_origins(pd_profile *p, pd_session *s, const char *const *dsos,
			    const bool *kernel, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool k = kernel[i];
		/* modules are named by the core kernel's table */
		const char *dso = k ? "[kernel.kallsyms]" : dsos[i];
		if ((!k && !user_file(dso)) || known(p, dso, k))
			continue;
		pd_symorigin o;
		if (pd_session_symbol_origin(s, dso, k, &o) && add(p, dso, k, &o) < 0)
			return PD_ENOMEM;
	}
	return 0;
}

size_t pd_profile_symbol_origin_count(const pd_profile *p)
{
	return p ? p->norigins : 0;
}

const pd_symbol_origin *pd_profile_symbol_origin(const pd_profile *p, size_t i)
{
	return p && i < p->norigins ? &p->origins[i] : NULL;
}

void pd_profile_origins_free(pd_profile *p)
{
	free(p->origins);
}
