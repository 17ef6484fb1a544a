/*
 * Strings from perf.data (comm names, paths, event names) are arbitrary
 * bytes.  JSON needs well-formed UTF-8 and a one-line-per-record text dump
 * must not let a newline or an escape sequence in a name break the line or
 * the terminal, so every string the CLI prints goes through here.
 */
#ifndef PERFDIFF_CLI_UTF8_H
#define PERFDIFF_CLI_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Length (1..4) of the well-formed UTF-8 sequence at `p` (`n` bytes
 * available), or 0 when the bytes there are ill-formed or cut short.
 * Overlong forms, surrogates and code points above U+10FFFF are ill-formed. */
size_t utf8_seq_len(const unsigned char *p, size_t n);

bool utf8_is_valid(const char *s, size_t n);

/* A malloc'd, NUL-terminated copy of s[0..n) in which every byte that is not
 * part of a well-formed sequence is replaced by U+FFFD.  *outlen (if not
 * NULL) gets the length without the NUL.  NULL on allocation failure. */
char *utf8_sanitize(const char *s, size_t n, size_t *outlen);

/* Escape s[0..n) for a text line into `dst` (room for 4n bytes), as
 * utf8_fput_escaped() writes it; returns the length written. */
size_t utf8_escape_to(char *dst, const char *s, size_t n);

/* Write `s` for a text line: printable UTF-8 as-is; control characters
 * (C0, DEL, C1), ill-formed bytes and the backslash as \xNN / \\. */
void utf8_fput_escaped(const char *s, FILE *f);

#endif
