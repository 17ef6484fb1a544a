/*
 * C++ and Rust demangling through libiberty (what gcc, binutils and perf
 * use).  The callback entry points are used instead of cplus_demangle():
 * they never call xmalloc, whose failure handler exits the process, and
 * they do not consult libiberty's global demangling style.
 */
#include <demangle.h>
#include <stdlib.h>

#include "symb_internal.h"

/* The v3 demangler keeps its parse tree in stack arrays sized by the
 * input; very long names (rare, template-heavy) stay mangled rather than
 * risk a deep stack. */
#define PD_DEMANGLE_MAX_INPUT 4096

/* By default arguments are part of the name: without them C++ overloads
 * would fold into one row.  perf 6.1 leaves them out unless run with -v,
 * so its compatibility mode asks for that. */
#define PD_DMGL_OPTS (DMGL_PARAMS | DMGL_ANSI)
#define PD_DMGL_OPTS_PERF DMGL_ANSI

typedef struct sink {
	char *buf;
	size_t len, cap;
	bool failed;
} sink;

static void put(const char *s, size_t n, void *opaque)
{
	sink *k = opaque;
	if (k->failed)
		return;
	if (k->len + n + 1 > k->cap) {
		size_t ncap = k->cap ? k->cap : 128;
		while (ncap < k->len + n + 1)
			ncap *= 2;
		char *nb = realloc(k->buf, ncap);
		if (!nb) {
			k->failed = true;
			return;
		}
		k->buf = nb;
		k->cap = ncap;
	}
	memcpy(k->buf + k->len, s, n);
	k->len += n;
	k->buf[k->len] = '\0';
}

char *pd_demangle(const char *raw, pd_arena *arena)
{
	return pd_demangle_opts(raw, true, arena);
}

char *pd_demangle_opts(const char *raw, bool params, pd_arena *arena)
{
	int opts = params ? PD_DMGL_OPTS : PD_DMGL_OPTS_PERF;
	if (!raw || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return NULL;
	/* "name@plt", "name@@GLIBCXX_3.4": demangle the name, keep the tail */
	const char *at = strchr(raw, '@');
	size_t n = at ? (size_t)(at - raw) : strlen(raw);
	if (n < 3 || n > PD_DEMANGLE_MAX_INPUT)
		return NULL;
	char mangled[PD_DEMANGLE_MAX_INPUT + 1];
	memcpy(mangled, raw, n);
	mangled[n] = '\0';

	sink k = { 0 };
	/* Legacy Rust names are valid C++ manglings too ("_ZN...17h<hash>E");
	 * the Rust demangler recognises the hash and must go first. */
	int ok = rust_demangle_callback(mangled, opts, put, &k);
	if (!ok || k.failed || !k.len) {
		k.len = 0;
		k.failed = false;
		ok = mangled[1] == 'Z' && cplus_demangle_v3_callback(mangled, opts, put, &k);
	}
	char *out = NULL;
	if (ok && !k.failed && k.len) {
		size_t tail = at ? strlen(at) : 0;
		out = pd_arena_alloc(arena, k.len + tail + 1);
		if (out) {
			memcpy(out, k.buf, k.len);
			if (tail)
				memcpy(out + k.len, at, tail);
			out[k.len + tail] = '\0';
		}
	}
	free(k.buf);
	return out;
}
