/*
 * perf-tool records (types 64 and up) that change what the reader knows:
 * pipe-mode attrs, ids, event names, features and build-ids, and the
 * FINISHED_ROUND ordering barrier.  The records are delivered afterwards
 * like any other.
 */
#include "reader_impl.h"

#include <stdlib.h>

#define PD_EVENT_UPDATE_NAME 2

static int header_attr(pd_reader *r, pd_raw *raw, const char *path)
{
	const uint8_t *body = raw->data + 8;
	uint64_t room = raw->size - 8;
	if (room < 8)
		return pd_reader_fail(r, PD_ECORRUPT, path, raw->offset,
				      "HEADER_ATTR record of %u bytes holds no attr", raw->size);
	uint32_t asz = pd_ld32(body + 4, r->swap);
	if (asz == 0)
		asz = 64;
	if (asz < 64 || asz > room)
		return pd_reader_fail(r, PD_ECORRUPT, path, raw->offset,
				      "HEADER_ATTR: attr size %u does not fit the %llu-byte record",
				      asz, (unsigned long long)raw->size);
	pd_attr *a;
	int rc = pd_reader_add_attr(r, body, asz, &a);
	if (rc == PD_ELIMIT)
		return pd_reader_fail(r, rc, path, raw->offset,
				      "more than %u events (pd_reader_options.max_attrs)",
				      r->opts.max_attrs);
	if (rc < 0)
		return pd_reader_fail(r, rc, path, raw->offset, "out of memory");
	rc = pd_reader_add_ids(r, a, (uint32_t)(r->nattrs - 1), body + asz,
			       (room - asz) / 8, r->swap);
	if (rc == PD_ELIMIT)
		return pd_reader_fail(r, rc, path, raw->offset,
				      "%llu ids exceed the cap of %llu "
				      "(pd_reader_options.max_ids_per_attr)",
				      (unsigned long long)((room - asz) / 8),
				      (unsigned long long)r->opts.max_ids_per_attr);
	if (rc < 0)
		return pd_reader_fail(r, rc, path, raw->offset, "out of memory");
	pd_reader_name_attrs(r);
	return 0;
}

/*
 * ID_INDEX maps each sample id to the mmap index, cpu and tid it was read
 * from; the event an id belongs to comes from the attrs' id lists, so only
 * the record's bounds are checked here.
 */
static int id_index(pd_reader *r, pd_raw *raw, const char *path)
{
	if (raw->size < 16)
		return pd_reader_fail(r, PD_ECORRUPT, path, raw->offset,
				      "ID_INDEX record of %u bytes has no count", raw->size);
	uint64_t nr = pd_ld64(raw->data + 8, r->swap);
	if (nr > (raw->size - 16) / 32)
		return pd_reader_fail(r, PD_ECORRUPT, path, raw->offset,
				      "ID_INDEX claims %llu entries; the record holds %u",
				      (unsigned long long)nr, (raw->size - 16) / 32);
	return 0;
}

static int event_update(pd_reader *r, pd_raw *raw, const char *path)
{
	if (raw->size < 24)
		return 0; /* too short to say anything; perf ignores it too */
	uint64_t type = pd_ld64(raw->data + 8, r->swap);
	uint64_t id = pd_ld64(raw->data + 16, r->swap);
	if (type != PD_EVENT_UPDATE_NAME)
		return 0;
	int idx = pd_id_table_find(&r->ids, id);
	if (idx < 0 && r->nattrs == 1)
		idx = 0;
	if (idx < 0)
		return 0;
	pd_error e;
	if (pd_string_cap((const char *)raw->data + 24, raw->size - 24, &r->opts,
			  "EVENT_UPDATE name", &e) < 0)
		return pd_reader_fail(r, PD_ELIMIT, path, raw->offset, "%s", e.message);
	const char *name = pd_arena_strndup(&r->meta.arena, (const char *)raw->data + 24,
					    raw->size - 24);
	if (!name)
		return pd_reader_fail(r, PD_ENOMEM, path, raw->offset, "out of memory");
	r->attrs[idx]->name = name;
	return 0;
}

static int header_feature(pd_reader *r, pd_raw *raw, const char *path)
{
	if (raw->size < 16)
		return pd_reader_fail(r, PD_ECORRUPT, path, raw->offset,
				      "HEADER_FEATURE record of %u bytes has no feature id",
				      raw->size);
	uint64_t feat = pd_ld64(raw->data + 8, r->swap);
	if (raw->size == 16 || feat >= 256)
		return 0; /* end-of-features marker, or a feature we cannot know */
	pd_error e;
	int rc = pd_feature_parse(&r->meta, (unsigned)feat, raw->data + 16, raw->size - 16,
				  r->swap, &r->opts, &e);
	if (rc == PD_ENOMEM)
		return pd_reader_fail(r, rc, path, raw->offset, "out of memory");
	if (rc < 0) {
		const char *name = pd_feature_name((unsigned)feat);
		pd_reader_warn(r, PD_WARN_METADATA, path, raw->offset, "feature %s: %s; skipped",
			       name ? name : "?", e.message);
		return 0;
	}
	r->meta.info.features[feat / 64] |= 1ull << (feat % 64);
	if (feat == PD_FEAT_EVENT_DESC || feat == PD_FEAT_PMU_MAPPINGS)
		pd_reader_name_attrs(r);
	return 0;
}

int pd_tool_record(pd_reader *r, pd_raw *raw, const char *path)
{
	switch (raw->type) {
	case PD_RECORD_HEADER_ATTR:
		return header_attr(r, raw, path);
	case PD_RECORD_HEADER_BUILD_ID: {
		pd_error e;
		int rc = pd_build_id_parse(&r->meta, raw->data, raw->size, r->swap, &r->opts,
					   &e);
		if (rc == PD_ENOMEM)
			return pd_reader_fail(r, rc, path, raw->offset, "out of memory");
		if (rc < 0)
			pd_reader_warn(r, PD_WARN_METADATA, path, raw->offset, "HEADER_BUILD_ID: %s; skipped", e.message);
		return 0;
	}
	case PD_RECORD_FINISHED_ROUND:
		/* directory streams are merged at the end, rounds do not span them */
		if (r->nstreams == 1) {
			pd_queue_round(&r->queue);
			pd_window_round(&r->streams[0].src, raw->offset);
		}
		return 0;
	case PD_RECORD_ID_INDEX:
		return id_index(r, raw, path);
	case PD_RECORD_EVENT_UPDATE:
		return event_update(r, raw, path);
	case PD_RECORD_HEADER_FEATURE:
		return header_feature(r, raw, path);
	default:
		return 0;
	}
}
