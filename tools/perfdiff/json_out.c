#include "json_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

json_t *jo_strn(const char *s, size_t n)
{
	if (!s)
		return json_null();
	if (utf8_is_valid(s, n))
		return json_stringn_nocheck(s, n);
	size_t len;
	char *clean = utf8_sanitize(s, n, &len);
	if (!clean)
		return NULL;
	json_t *v = json_stringn_nocheck(clean, len);
	free(clean);
	return v;
}

json_t *jo_str(const char *s)
{
	return jo_strn(s, s ? strlen(s) : 0);
}

json_t *jo_u64(uint64_t v)
{
	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	char buf[24];
	snprintf(buf, sizeof buf, "%" PRIu64, v);
	return json_string(buf);
}

json_t *jo_hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%" PRIx64, v);
	return json_string(buf);
}

json_t *jo_hexbytes(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char buf[2 * 64 + 1];
	if (n > 64)
		n = 64;
	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = digits[p[i] >> 4];
		buf[2 * i + 1] = digits[p[i] & 15];
	}
	return json_stringn(buf, 2 * n);
}

int jo_set(json_t *obj, const char *key, json_t *val)
{
	if (!val)
		return -1;
	return json_object_set_new(obj, key, val);
}

int jo_emit(json_t *v, FILE *f)
{
	if (!v)
		return -1;
	int rc = json_dumpf(v, f, JSON_COMPACT);
	json_decref(v);
	if (rc < 0 || fputc('\n', f) == EOF)
		return -1;
	return 0;
}
