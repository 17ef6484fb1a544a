/*
 * pd_script_writer: the samples of one session written one at a time, as
 * `perfdiff script` streams them (text in script_text.c, JSON lines in
 * script_json.c).  It holds the cache of the session's names
 * (namecache.h), which is why it belongs to one session and must not
 * outlive it.
 */
#include <stdlib.h>

#include "namecache.h"
#include "script_internal.h"
#include "util/util.h"

/* How far each version of pd_script_write_options went. */
static const size_t script_sizes[] = {
	0, PD_OPTIONS_END(pd_script_write_options, ns),
};

int pd_script_write_options_init(pd_script_write_options *o, unsigned version)
{
	const pd_script_write_options d = PD_SCRIPT_WRITE_OPTIONS_INIT;
	return pd_options_init(o, version, &d, script_sizes, PD_SCRIPT_WRITE_OPTIONS_VERSION);
}

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

int pdo_script_options(pd_script_write_options *out, const pd_script_write_options *o,
			 pd_error *err)
{
	*out = PD_SCRIPT_WRITE_OPTIONS_INIT;
	int rc = o ? pd_options_import(out, o, script_sizes, PD_SCRIPT_WRITE_OPTIONS_VERSION,
				       "pd_script_write_options", "output", err) : 0;
	if (rc == 0)
		rc = pdo_format_check(out->format, PDO_BIT(PD_FORMAT_TEXT) | PDO_BIT(PD_FORMAT_JSON),
				      "script", err);
	return rc;
}

int pd_script_writer_new(pd_script_writer **out, pd_writer *w, const pd_session *s,
			 const pd_script_write_options *o, pd_error *err)
{
	if (!out || !w || !s)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no pointer, writer or session given");
	*out = NULL;
	pd_script_write_options opts;
	int rc = pdo_script_options(&opts, o, err);
	if (rc < 0)
		return rc;
	pd_script_writer *sw = calloc(1, sizeof *sw);
	if (!sw)
		return pdo_nomem(err);
	sw->w = w;
	sw->reader = pd_session_reader(s);
	sw->o = opts;
	*out = sw;
	return 0;
}

void pd_script_writer_free(pd_script_writer *sw)
{
	free(sw);
}

int pd_script_write_sample(pd_script_writer *sw, const pd_resolved_sample *rs, pd_error *err)
{
	if (!sw || !rs)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no script writer or sample given");
	const pd_attr *attr = rs->attr >= 0 ? pd_reader_attr(sw->reader, (size_t)rs->attr)
					    : NULL;
	const char *event = attr ? attr->name : NULL;
	uint64_t st = rs->record ? rs->record->u.sample.sample_type
				 : attr ? attr->sample_type : 0;
	if (sw->o.format == PD_FORMAT_JSON)
		pdo_script_json(sw, rs, event, st);
	else
		pdo_script_text(sw, rs, event, st);
	if (pdo_flush_some(sw->w) < 0)
		return pdo_status(sw->w, err);
	return 0;
}
