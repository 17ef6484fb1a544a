/*
 * Strings from perf.data (comm names, paths, event names, symbols) are
 * arbitrary bytes.  JSON needs well-formed UTF-8, and a text line must not
 * let a newline or an escape sequence in a name break the line or the
 * terminal, so every string a format writes goes through here (text) or
 * through json.c (JSON).
 */
#ifndef PD_OUTPUT_UTF8_H
#define PD_OUTPUT_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "writer.h"

/* Length (1..4) of the well-formed UTF-8 sequence at `p` (`n` bytes
 * available), or 0 when the bytes there are ill-formed or cut short.
 * Overlong forms, surrogates and code points above U+10FFFF are ill-formed. */
size_t pdo_utf8_seq_len(const unsigned char *p, size_t n);

/* Escape s[0..n) for a text line into `dst` (room for 4n bytes): printable
 * UTF-8 as is; control characters (C0, DEL, C1), ill-formed bytes and the
 * backslash as \xNN / \\.  Returns the length written. */
size_t pdo_escape_to(char *dst, const char *s, size_t n);

/* `s` escaped as pdo_escape_to() does.  Makes its own room. */
void pdo_put_escaped(pd_writer *w, const char *s);

#endif
