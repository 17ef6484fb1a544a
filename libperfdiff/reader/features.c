/*
 * Feature payloads (file-mode feature sections and pipe-mode HEADER_FEATURE
 * bodies; both use the same layout, doc §5).  Only the features libperfdiff
 * uses are parsed; the payload is never modified (integers are loaded with
 * pd_ld32/pd_ld64 and the swap flag).
 */
#include "internal.h"
#include "bpf_info.h"

#include <stdio.h>
#include <stdlib.h>

void pd_meta_init(pd_meta *m)
{
	memset(m, 0, sizeof *m);
	pd_arena_init(&m->arena);
	m->info.clockid = -1;
}

void pd_meta_free(pd_meta *m)
{
	free(m->build_ids);
	pd_arena_free(&m->arena);
	memset(m, 0, sizeof *m);
	m->info.clockid = -1;
}

/* A bounds-checked reader over one payload. */
typedef struct cursor {
	const uint8_t *p;
	size_t size, pos;
	bool swap;
	pd_error *err;
	const pd_reader_options *opts; /* caps; NULL: none */
} cursor;

static size_t left(const cursor *c)
{
	return c->size - c->pos;
}

/* PD_ECORRUPT, as a constant: the callers' out-values stay unset on this
 * path, which gcc can tell only when it sees the code is never 0. */
static int truncated(cursor *c, const char *what, size_t need)
{
	pd_error_reason(c->err, PD_ECORRUPT,
			"feature payload truncated: %s needs %zu bytes at payload offset %zu, %zu left",
			what, need, c->pos, left(c));
	return PD_ECORRUPT;
}

static int get_u32(cursor *c, const char *what, uint32_t *v)
{
	if (left(c) < 4)
		return truncated(c, what, 4);
	*v = pd_ld32(c->p + c->pos, c->swap);
	c->pos += 4;
	return 0;
}

static int get_u64(cursor *c, const char *what, uint64_t *v)
{
	if (left(c) < 8)
		return truncated(c, what, 8);
	*v = pd_ld64(c->p + c->pos, c->swap);
	c->pos += 8;
	return 0;
}

int pd_string_cap(const char *s, size_t room, const pd_reader_options *opts,
		  const char *field, pd_error *err)
{
	if (!opts)
		return 0;
	size_t look = room;
	if ((uint64_t)opts->max_string < look)
		look = (size_t)opts->max_string + 1;
	if (strnlen(s, look) > opts->max_string)
		return pd_error_reason(err, PD_ELIMIT,
				       "%s is longer than the cap of %u bytes (pd_reader_options.max_string)",
				       field, opts->max_string);
	return 0;
}

/* perf string {u32 len; char s[len]}: len counts the NUL and padding. */
static int get_string(cursor *c, pd_arena *a, const char *what, const char **out)
{
	uint32_t len;
	int rc = get_u32(c, what, &len);
	if (rc)
		return rc;
	if (len > left(c))
		return truncated(c, what, len);
	char field[64];
	snprintf(field, sizeof field, "feature %s at payload offset %zu", what, c->pos);
	rc = pd_string_cap((const char *)c->p + c->pos, len, c->opts, field, c->err);
	if (rc)
		return rc;
	char *s = pd_arena_strndup(a, (const char *)c->p + c->pos, len);
	if (!s)
		return PD_ENOMEM;
	c->pos += len;
	*out = s;
	return 0;
}

static int parse_string_list(pd_meta *m, cursor *c)
{
	uint32_t nr;
	int rc = get_u32(c, "CMDLINE count", &nr);
	if (rc)
		return rc;
	/* every string costs at least its 4-byte length */
	if (nr > left(c) / 4)
		return pd_error_reason(c->err, PD_ECORRUPT,
				       "CMDLINE: %u strings cannot fit in %zu bytes", nr, left(c));
	const char **v = pd_arena_alloc(&m->arena, (size_t)nr * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		rc = get_string(c, &m->arena, "CMDLINE string", &v[i]);
		if (rc)
			return rc;
	}
	m->info.cmdline = v;
	m->info.cmdline_nr = nr;
	return 0;
}

/* Fixed bytes each EVENT_DESC event needs besides the attr: nr_ids and the
 * name's length word. */
#define EVENT_DESC_MIN_EXTRA 8u
/* attr.type (u32 at 0) and attr.config (u64 at 8) are what matching needs */
#define EVENT_DESC_MIN_ATTR 16u

static int parse_event_desc(pd_meta *m, cursor *c, const pd_reader_options *opts)
{
	uint32_t nr, attr_size;
	int rc = get_u32(c, "EVENT_DESC count", &nr);
	if (!rc)
		rc = get_u32(c, "EVENT_DESC attr size", &attr_size);
	if (rc)
		return rc;
	if (nr == 0) {
		m->event_names = NULL;
		m->nr_event_names = 0;
		return 0;
	}
	if (attr_size < EVENT_DESC_MIN_ATTR || attr_size > left(c))
		return pd_error_reason(c->err, PD_ECORRUPT,
				       "EVENT_DESC: attr size %u invalid (payload has %zu bytes)",
				       attr_size, left(c));
	if (nr > left(c) / ((uint64_t)attr_size + EVENT_DESC_MIN_EXTRA))
		return pd_error_reason(c->err, PD_ECORRUPT,
				       "EVENT_DESC: %u events of at least %llu bytes cannot fit in %zu bytes",
				       nr, (unsigned long long)attr_size + EVENT_DESC_MIN_EXTRA,
				       left(c));
	if (opts && nr > opts->max_attrs)
		return pd_error_reason(c->err, PD_ELIMIT,
				       "EVENT_DESC: %u events exceed the cap of %u "
				       "(pd_reader_options.max_attrs)", nr,
				       opts->max_attrs);
	struct pd_event_name *v = pd_arena_alloc(&m->arena, (size_t)nr * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		/* attr_size <= left(c) was only checked for the first event */
		if (left(c) < attr_size)
			return truncated(c, "EVENT_DESC attr", attr_size);
		const uint8_t *attr = c->p + c->pos;
		v[i].attr_type = pd_ld32(attr, c->swap);
		v[i].attr_config = pd_ld64(attr + 8, c->swap);
		c->pos += attr_size;
		uint32_t nr_ids;
		rc = get_u32(c, "EVENT_DESC id count", &nr_ids);
		if (!rc)
			rc = get_string(c, &m->arena, "EVENT_DESC name", &v[i].name);
		if (rc)
			return rc;
		if (nr_ids > left(c) / 8)
			return pd_error_reason(c->err, PD_ECORRUPT,
					       "EVENT_DESC: event %u claims %u ids, only %zu bytes left",
					       i, nr_ids, left(c));
		if (nr_ids) {
			v[i].has_id = true;
			v[i].first_id = pd_ld64(c->p + c->pos, c->swap);
		}
		c->pos += (size_t)nr_ids * 8;
	}
	m->event_names = v;
	m->nr_event_names = nr;
	return 0;
}

static int parse_pmu_mappings(pd_meta *m, cursor *c)
{
	uint32_t nr;
	int rc = get_u32(c, "PMU_MAPPINGS count", &nr);
	if (rc)
		return rc;
	/* each mapping: u32 type + the name's u32 length at least */
	if (nr > left(c) / 8)
		return pd_error_reason(c->err, PD_ECORRUPT,
				       "PMU_MAPPINGS: %u entries cannot fit in %zu bytes", nr,
				       left(c));
	struct pd_pmu_map *v = pd_arena_alloc(&m->arena, (size_t)nr * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		rc = get_u32(c, "PMU_MAPPINGS type", &v[i].type);
		if (!rc)
			rc = get_string(c, &m->arena, "PMU_MAPPINGS name", &v[i].name);
		if (rc)
			return rc;
	}
	m->pmus = nr ? v : NULL;
	m->nr_pmus = nr;
	return 0;
}

/* BUILD_ID entry layout (doc §5). */
#define BID_HDR_MISC 4
#define BID_HDR_SIZE 6
#define BID_PID 8
#define BID_ID 12
#define BID_ID_SIZE 32
#define BID_PATH 36
#define BID_MISC_HAS_SIZE (1u << 15)

int pd_build_id_parse(pd_meta *m, const uint8_t *p, size_t size, bool swap,
		      const pd_reader_options *opts, pd_error *err)
{
	if (size < BID_PATH)
		return pd_error_reason(err, PD_ECORRUPT,
				       "build-id entry of %zu bytes is shorter than %d",
				       size, BID_PATH);
	uint16_t esize = pd_ld16(p + BID_HDR_SIZE, swap);
	if (esize < BID_PATH || esize > size)
		return pd_error_reason(err, PD_ECORRUPT,
				       "build-id entry size %u invalid (%d..%zu bytes allowed)",
				       esize, BID_PATH, size);
	pd_build_id b;
	memset(&b, 0, sizeof b);
	b.misc = pd_ld16(p + BID_HDR_MISC, swap);
	b.pid = (int32_t)pd_ld32(p + BID_PID, swap);
	b.size = (b.misc & BID_MISC_HAS_SIZE) ? p[BID_ID_SIZE] : sizeof b.id;
	if (b.size > sizeof b.id)
		return pd_error_reason(err, PD_ECORRUPT, "build-id length %u exceeds %zu",
				       b.size, sizeof b.id);
	memcpy(b.id, p + BID_ID, sizeof b.id);
	int rc = pd_string_cap((const char *)p + BID_PATH, esize - BID_PATH, opts,
			       "build-id path", err);
	if (rc)
		return rc;
	b.path = pd_arena_strndup(&m->arena, (const char *)p + BID_PATH,
				  esize - BID_PATH);
	if (!b.path)
		goto oom;

	if (m->nr_build_ids == m->cap_build_ids) {
		size_t cap = m->cap_build_ids ? m->cap_build_ids * 2 : 16;
		if (cap > SIZE_MAX / sizeof *m->build_ids)
			goto oom;
		pd_build_id *v = realloc(m->build_ids, cap * sizeof *v);
		if (!v)
			goto oom;
		m->build_ids = v;
		m->cap_build_ids = cap;
	}
	m->build_ids[m->nr_build_ids++] = b;
	m->info.build_ids = m->build_ids;
	m->info.nr_build_ids = m->nr_build_ids;
	return 0;
oom:
	return pd_error_reason(err, PD_ENOMEM, "out of memory storing a build-id");
}

static int parse_build_ids(pd_meta *m, cursor *c)
{
	while (left(c) > 0) {
		if (left(c) < BID_PATH)
			return truncated(c, "build-id entry", BID_PATH);
		uint16_t esize = pd_ld16(c->p + c->pos + BID_HDR_SIZE, c->swap);
		if (esize < BID_PATH || esize > left(c))
			return pd_error_reason(c->err, PD_ECORRUPT,
					       "build-id entry at payload offset %zu has size %u (%zu bytes left)",
					       c->pos, esize, left(c));
		int rc = pd_build_id_parse(m, c->p + c->pos, esize, c->swap, c->opts, c->err);
		if (rc)
			return rc;
		c->pos += esize;
	}
	return 0;
}

static bool feature_is_string(unsigned feat, const char ***slot, pd_header_info *h)
{
	switch (feat) {
	case PD_FEAT_HOSTNAME: *slot = &h->hostname; return true;
	case PD_FEAT_OSRELEASE: *slot = &h->osrelease; return true;
	case PD_FEAT_VERSION: *slot = &h->version; return true;
	case PD_FEAT_ARCH: *slot = &h->arch; return true;
	case PD_FEAT_CPUDESC: *slot = &h->cpudesc; return true;
	case PD_FEAT_CPUID: *slot = &h->cpuid; return true;
	default: return false;
	}
}

/* CLOCK_DATA (perf record -k): u32 version, u32 clockid, u64 wall-clock
 * ns, u64 ns of the sample clock at that moment.  Version 1 only. */
static int parse_clock_data(pd_meta *m, cursor *c)
{
	uint32_t version, clockid;
	uint64_t tod, ref;
	int rc = get_u32(c, "CLOCK_DATA version", &version);
	if (!rc)
		rc = get_u32(c, "CLOCK_DATA clockid", &clockid);
	if (!rc)
		rc = get_u64(c, "CLOCK_DATA wall-clock time", &tod);
	if (!rc)
		rc = get_u64(c, "CLOCK_DATA clock time", &ref);
	if (rc || version != 1)
		return rc;
	m->has_clock_data = true;
	m->clock_tod_ns = tod;
	m->clock_ref_ns = ref;
	return 0;
}

static int parse_fixed(pd_header_info *h, unsigned feat, cursor *c)
{
	int rc = 0;
	uint32_t w[5];
	switch (feat) {
	case PD_FEAT_NRCPUS:
		/* perf writes available first, then online (checked against
		 * `perf report --header-only` of perf 6.1) */
		rc = get_u32(c, "NRCPUS available", &w[0]);
		if (!rc)
			rc = get_u32(c, "NRCPUS online", &w[1]);
		if (!rc) {
			h->nr_cpus_available = w[0];
			h->nr_cpus_online = w[1];
		}
		return rc;
	case PD_FEAT_TOTAL_MEM:
		return get_u64(c, "TOTAL_MEM", &h->total_mem_kb);
	case PD_FEAT_SAMPLE_TIME: {
		uint64_t first, last;
		rc = get_u64(c, "SAMPLE_TIME first", &first);
		if (!rc)
			rc = get_u64(c, "SAMPLE_TIME last", &last);
		if (!rc) {
			h->sample_time_first = first;
			h->sample_time_last = last;
			h->has_sample_time = true;
		}
		return rc;
	}
	case PD_FEAT_CLOCKID:
		return get_u64(c, "CLOCKID resolution", &h->clockid_res_ns);
	case PD_FEAT_DIR_FORMAT:
		return get_u64(c, "DIR_FORMAT version", &h->dir_format);
	case PD_FEAT_COMPRESSED:
		for (int i = 0; i < 5 && !rc; i++)
			rc = get_u32(c, "COMPRESSED fields", &w[i]);
		if (!rc) {
			h->compressed = true;
			h->comp_version = w[0];
			h->comp_type = w[1];
			h->comp_level = w[2];
			h->comp_ratio = w[3];
			h->comp_mmap_len = w[4];
		}
		return rc;
	default:
		return 0;
	}
}

int pd_feature_parse(pd_meta *m, unsigned feat, const uint8_t *p, size_t size,
		     bool swap, const pd_reader_options *opts, pd_error *err)
{
	const char **slot;
	cursor c = { p, size, 0, swap, err, opts };
	int rc;

	bool is_string = feature_is_string(feat, &slot, &m->info);
	bool wanted = is_string || feat == PD_FEAT_NRCPUS ||
		      feat == PD_FEAT_TOTAL_MEM || feat == PD_FEAT_CMDLINE ||
		      feat == PD_FEAT_EVENT_DESC || feat == PD_FEAT_PMU_MAPPINGS ||
		      feat == PD_FEAT_SAMPLE_TIME || feat == PD_FEAT_CLOCKID ||
		      feat == PD_FEAT_COMPRESSED || feat == PD_FEAT_DIR_FORMAT ||
		      feat == PD_FEAT_BUILD_ID || feat == PD_FEAT_BPF_PROG_INFO ||
		      feat == PD_FEAT_BPF_BTF || feat == PD_FEAT_CLOCK_DATA;
	if (!wanted)
		return 0;
	if (opts && size > opts->max_feature_bytes)
		return pd_error_reason(err, PD_ELIMIT,
				       "feature %u payload of %zu bytes exceeds the cap of %llu "
				       "(pd_reader_options.max_feature_bytes)",
				       feat, size, (unsigned long long)opts->max_feature_bytes);

	if (is_string)
		rc = get_string(&c, &m->arena, "string", slot);
	else if (feat == PD_FEAT_CMDLINE)
		rc = parse_string_list(m, &c);
	else if (feat == PD_FEAT_EVENT_DESC)
		rc = parse_event_desc(m, &c, opts);
	else if (feat == PD_FEAT_PMU_MAPPINGS)
		rc = parse_pmu_mappings(m, &c);
	else if (feat == PD_FEAT_BUILD_ID)
		rc = parse_build_ids(m, &c);
	else if (feat == PD_FEAT_BPF_PROG_INFO || feat == PD_FEAT_BPF_BTF)
		rc = pd_bpf_feature_parse(m, feat, p, size, swap, err);
	else if (feat == PD_FEAT_CLOCK_DATA)
		rc = parse_clock_data(m, &c);
	else
		rc = parse_fixed(&m->info, feat, &c);
	if (rc == PD_ENOMEM)
		pd_error_reason(err, rc, "out of memory reading feature %u", feat);
	if (rc)
		return rc;
	m->info.features[feat / 64] |= 1ull << (feat % 64);
	return 0;
}
