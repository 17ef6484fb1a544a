/*
 * `perfdiff script` (pd_script_write_sample()) writes the same few
 * thousand symbol, dso and file names millions of times.  The session keeps those strings at fixed addresses
 * until pd_session_free() (session.h), so what a name needs — its length
 * and whether it can be copied as is — is worked out once per address and
 * looked up by pointer afterwards.  Collisions simply replace the entry: a
 * cache miss only costs the scan again.
 *
 * Only strings with that lifetime may be looked up (not the comm, which
 * can change at each sample).
 */
#ifndef PD_OUTPUT_NAMECACHE_H
#define PD_OUTPUT_NAMECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "utf8.h"

typedef struct name_info {
	const char *s;
	uint32_t len;
	bool text_plain;  /* pdo_escape_to() would copy it unchanged */
	bool json_plain;  /* a JSON string of it needs no escapes */
} name_info;

#define NAME_CACHE_BITS 12

typedef struct name_cache {
	name_info e[1u << NAME_CACHE_BITS];
} name_cache;

/* Fill `e` for `s` (a miss). */
void name_info_fill(name_info *e, const char *s);

static inline const name_info *name_cache_get(name_cache *c, const char *s)
{
	uint64_t h = ((uint64_t)(uintptr_t)s >> 3) * 0x9E3779B97F4A7C15u;
	name_info *e = &c->e[h >> (64 - NAME_CACHE_BITS)];
	if (e->s != s)
		name_info_fill(e, s);
	return e;
}

/* pdo_put_escaped(w, s) for a name with the session's lifetime. */
static inline void pdo_put_name(pd_writer *w, name_cache *c, const char *s)
{
	const name_info *e = name_cache_get(c, s);
	if (e->text_plain)
		pdo_putn(w, s, e->len);
	else
		pdo_put_escaped(w, s);
}

/* pdo_json_str(w, s) for a name with the session's lifetime (or NULL). */
static inline void pdo_json_name(pd_writer *w, name_cache *c, const char *s)
{
	const name_info *e = s ? name_cache_get(c, s) : NULL;
	if (e && e->json_plain && pdo_reserve(w, (size_t)e->len + 2)) {
		pdo_putc_r(w, '"');
		pdo_putn_r(w, s, e->len);
		pdo_putc_r(w, '"');
	} else {
		pdo_json_str(w, s);
	}
}

#endif
