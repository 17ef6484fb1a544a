/*
 * Building and printing JSON with jansson.  jansson rejects strings that are
 * not UTF-8 (json_string() returns NULL), and perf.data strings are raw
 * bytes, so every string goes through jo_str().  Values above INT64_MAX do
 * not fit jansson's integer type; addresses are printed as hex strings.
 */
#ifndef PERFDIFF_CLI_JSON_OUT_H
#define PERFDIFF_CLI_JSON_OUT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* A JSON string of `s` with ill-formed bytes replaced by U+FFFD, or JSON
 * null when `s` is NULL.  NULL only when memory runs out. */
json_t *jo_str(const char *s);
json_t *jo_strn(const char *s, size_t n);

/* An integer when it fits in int64, else its decimal digits as a string. */
json_t *jo_u64(uint64_t v);
/* "0x1234" */
json_t *jo_hex(uint64_t v);
/* Lower-case hex digits of n bytes (at most 64 bytes are shown). */
json_t *jo_hexbytes(const uint8_t *p, size_t n);

/* json_object_set_new() that tolerates a NULL value (out of memory) by
 * skipping the key; returns -1 then. */
int jo_set(json_t *obj, const char *key, json_t *val);

/* Print `v` compactly followed by a newline, then release it.  -1 when `v`
 * is NULL (out of memory) or the write fails. */
int jo_emit(json_t *v, FILE *f);

#endif
