/*
 * A small open-addressing hash table from 64-bit keys to non-NULL pointers,
 * and 64-bit hashes for building keys out of strings and structs.
 *
 * Typed and without callbacks, unlike libiberty's hashtab: the session
 * keys processes and threads by pid/tid directly, and interns strings and
 * dso identities by hashing them to a key whose value heads a chain of
 * candidates that the caller compares itself.  No removal: owners reset
 * entries in place or rebuild the table.
 */
#ifndef PD_UTIL_U64MAP_H
#define PD_UTIL_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct pd_u64map {
	uint64_t *keys;
	void **vals;     /* NULL marks an empty slot */
	size_t cap, n;   /* cap is 0 or a power of two */
} pd_u64map;

void pd_u64map_init(pd_u64map *m);
void pd_u64map_free(pd_u64map *m);
/* Forget every entry, keeping the slots. */
void pd_u64map_clear(pd_u64map *m);
/* The value stored for `key`, or NULL. */
void *pd_u64map_get(const pd_u64map *m, uint64_t key);
/* Insert or replace; `val` must not be NULL.  0 or PD_ENOMEM (map unchanged). */
int pd_u64map_put(pd_u64map *m, uint64_t key, void *val);

/* 64-bit FNV-1a, continued from `h` (start with PD_HASH_INIT). */
#define PD_HASH_INIT 0xcbf29ce484222325ull
uint64_t pd_hash_bytes(uint64_t h, const void *p, size_t n);

/* A hash of n bytes, eight a step, mixed: for keys hashed often (names,
 * paths), where pd_hash_bytes()'s byte-at-a-time chain costs ~1 ns a
 * byte.  Not incremental. */
uint64_t pd_hash_words(const void *p, size_t n);
uint64_t pd_hash_str(uint64_t h, const char *s);

#endif
