#include "namecache.h"

#include <string.h>

void name_info_fill(name_info *e, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	bool text = true, json = true;
	for (; p[n]; n++) {
		unsigned char c = p[n];
		if (c < 0x20 || c >= 0x80 || c == '\\' || c == '"') {
			text = text && c >= 0x20 && c < 0x7F && c != '\\';
			json = false;
		} else if (c == 0x7F) {
			text = false;
		}
	}
	/* A name too long for the length field is never marked plain and so
	 * always takes the escaping path, which measures it itself. */
	e->s = s;
	e->len = n > UINT32_MAX ? 0 : (uint32_t)n;
	e->text_plain = text && n <= UINT32_MAX;
	e->json_plain = json && n <= UINT32_MAX;
}
