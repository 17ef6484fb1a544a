/*
 * Names as perf 6.1 prints them for user-space code.  perf demangles ELF
 * symbols with libiberty's cplus_demangle(name, DMGL_NO_OPTS): no
 * parameter lists, no return types, Rust tried before the C++ ABI; and
 * names a PLT stub "<demangled target>@plt".  libperfdiff's own names keep
 * the parameters (overloads stay apart), so the robot's keys are built
 * from the mangled names (PD_SESSION_NO_DEMANGLE) demangled here.  Kernel
 * names are never demangled by perf and do not come through here.
 *
 * The callback entry points of libiberty are used: they never call
 * xmalloc, whose failure handler would exit the process.
 */
#include "lkp_internal.h"

#include <demangle.h>
#include <stdlib.h>
#include <string.h>

#include "util/u64map.h"
#include "util/util.h"

/* libiberty keeps the parse in stack arrays sized by the input. */
#define DEMANGLE_MAX_INPUT 4096

struct lkp_names {
	pd_u64map cache;   /* raw string address → printed name */
	pd_arena arena;
};

int lkp_names_new(lkp_names **out)
{
	lkp_names *n = calloc(1, sizeof *n);
	if (!n)
		return PD_ENOMEM;
	pd_u64map_init(&n->cache);
	pd_arena_init(&n->arena);
	*out = n;
	return 0;
}

void lkp_names_free(lkp_names *n)
{
	if (!n)
		return;
	pd_u64map_free(&n->cache);
	pd_arena_free(&n->arena);
	free(n);
}

typedef struct sink {
	pd_buf b;
	bool failed;
} sink;

static void put(const char *s, size_t n, void *opaque)
{
	sink *k = opaque;
	if (!k->failed && pd_buf_append(&k->b, s, n) < 0)
		k->failed = true;
}

/* cplus_demangle(s, DMGL_NO_OPTS) into k; false when it does not demangle. */
static bool demangle(const char *s, sink *k)
{
	if (rust_demangle_callback(s, DMGL_NO_OPTS, put, k) && !k->failed && k->b.len)
		return true;
	k->b.len = 0;
	k->failed = false;
	return cplus_demangle_v3_callback(s, DMGL_NO_OPTS, put, k) && !k->failed &&
	       k->b.len;
}

static const char *compute(lkp_names *n, const char *raw)
{
	size_t len = strlen(raw);
	if (len < 3 || raw[0] != '_')
		return raw;   /* every mangling starts with '_' */
	static const char plt[] = "@plt";
	size_t pl = sizeof plt - 1;
	bool stub = len > pl && strcmp(raw + len - pl, plt) == 0;
	size_t base = stub ? len - pl : len;
	if (base > DEMANGLE_MAX_INPUT)
		return raw;
	char *copy = pd_arena_strndup(&n->arena, raw, base);
	if (!copy)
		return raw;
	sink k = { 0 };
	const char *out = raw;
	if (demangle(copy, &k)) {
		if ((!stub || pd_buf_append(&k.b, plt, pl) == 0)) {
			char *s = pd_arena_strndup(&n->arena, (const char *)k.b.data, k.b.len);
			if (s)
				out = s;
		}
	}
	pd_buf_free(&k.b);
	return out;
}

const char *lkp_perf_name(lkp_names *n, const char *raw)
{
	if (!raw)
		return NULL;
	uint64_t key = (uint64_t)(uintptr_t)raw;
	const char *hit = pd_u64map_get(&n->cache, key);
	if (hit)
		return hit;
	const char *out = compute(n, raw);
	/* a failed insert only costs a recomputation next time */
	(void)pd_u64map_put(&n->cache, key, (void *)(uintptr_t)out);
	return out;
}
