/*
 * The one JSON writer of libperfdiff: every JSON format (report, diff,
 * script samples, and the CLI's dump through output.h's pd_json_*) is
 * written with these, so strings are escaped and numbers printed one way.
 * Before, the CLI had two engines: jansson objects for diff and dump, and
 * a hand-written writer for script, which jansson made 20 times slower.
 * The bytes are what jansson's compact dump wrote (docs/diff-json.md):
 * its string escapes, integers above INT64_MAX as strings, reals as
 * "%.17g" with ".0" added to an integral value and the exponent's '+' and
 * leading zeros dropped.
 *
 * Two layers: value encoders that only append (pdo_json_*; `perfdiff
 * script` writes its fixed keys as literals around them, for speed), and
 * the structure of pd_json_* (output.h), which puts the commas.
 */
#ifndef PD_OUTPUT_JSON_H
#define PD_OUTPUT_JSON_H

#include "writer.h"

/* `s` as a JSON string with quotes: ill-formed UTF-8 bytes become U+FFFD,
 * '"', '\\' and control characters are escaped; NULL gives null. */
void pdo_json_str(pd_writer *w, const char *s);

/* A number up to INT64_MAX, else a string of the decimal digits. */
void pdo_json_u64(pd_writer *w, uint64_t v);

/* "0x…" (lower case) as a JSON string. */
void pdo_json_hex(pd_writer *w, uint64_t v);

/* A real as jansson prints it; null when it is not finite (JSON has no
 * NaN or infinity: a p-value the engine could not compute). */
void pdo_json_real(pd_writer *w, double x);

/* A real with 5 significant digits ("12.346", "1.5e-05"), null when not
 * finite: the flame graphs' data, where 200k nodes of 17 digits each
 * would make a page too big to open quickly and a pixel is 0.1 %. */
void pdo_json_short(pd_writer *w, double x);

/* The separator a value needs where it stands (structure layer). */
void pdo_json_item(pd_writer *w);

/* A key whose text needs no escaping (the formats' own keys). */
void pdo_json_key(pd_writer *w, const char *key);

/* Structure for the library's own formats: the public pd_json_* calls
 * without their checks and without the call through the PLT that a
 * function exported from a shared library costs.  `c` is '{' or '[',
 * '}' or ']'. */
void pdo_json_open(pd_writer *w, char c);
void pdo_json_close(pd_writer *w, char c);
void pdo_json_newline(pd_writer *w);
void pdo_json_end(pd_writer *w);

/* Text that is a JSON value as it is ("12.3456", "true"), after the
 * separator it needs. */
void pdo_json_raw(pd_writer *w, const char *text);

/* "key": value, for the common kinds (a NULL string is null). */
void pdo_json_key_str(pd_writer *w, const char *k, const char *v);
void pdo_json_key_u64(pd_writer *w, const char *k, uint64_t v);
void pdo_json_key_real(pd_writer *w, const char *k, double x);
void pdo_json_key_bool(pd_writer *w, const char *k, bool v);
void pdo_json_key_null(pd_writer *w, const char *k);

#endif
