/*
 * Bytes → the Profile message.  protobuf-c decodes (no codec of ours),
 * after prescan.c has counted the message's fields and estimated what
 * decoding takes without allocating anything; a message over the caps is
 * refused there, with the offset of the field that crossed them.  The
 * decoder's allocations still go through a counting allocator under the
 * same cap, charged as the estimate charges them: a protobuf length or
 * count is a promise the file makes, not a fact.
 */
#include <stdlib.h>

#include "internal.h"

/* Each block carries its size in front, for the count and for free(). */
typedef struct pp_alloc {
	size_t used, cap;
	bool over;
} pp_alloc;

#define HDR PP_ALLOC_HDR

static void *counted_alloc(void *data, size_t n)
{
	pp_alloc *a = data;
	size_t cost = pp_alloc_cost(n);
	if (a && (cost > a->cap || a->used > a->cap - cost)) {
		a->over = true;
		return NULL;
	}
	unsigned char *p = n <= SIZE_MAX - HDR ? malloc(n + HDR) : NULL;
	if (!p)
		return NULL;
	memcpy(p, &n, sizeof n);
	if (a)
		a->used += cost;
	return p + HDR;
}

static void counted_free(void *data, void *ptr)
{
	if (!ptr)
		return;
	unsigned char *p = (unsigned char *)ptr - HDR;
	pp_alloc *a = data;
	if (a) {
		size_t n;
		memcpy(&n, p, sizeof n);
		a->used -= pp_alloc_cost(n);
	}
	free(p);
}

void pp_profile_free(pp_profile *m)
{
	ProtobufCAllocator al = { counted_alloc, counted_free, NULL };
	if (m)
		protobuf_c_message_free_unpacked(&m->base, &al);
}

void pp_caps_of(pp_caps *c, const pd_reader_options *o)
{
	const pd_reader_options d = PD_READER_OPTIONS_INIT;
	if (!o)
		o = &d;
	c->max_bytes = o->max_pprof_bytes > SIZE_MAX ? SIZE_MAX : (size_t)o->max_pprof_bytes;
	c->max_memory = o->max_pprof_memory > SIZE_MAX ? SIZE_MAX : (size_t)o->max_pprof_memory;
}

/* The file and the place of a failure of the prescan: an offset of the
 * file for raw protobuf, of the inflated bytes for gzip. */
static int place(pd_error *err, int rc, const char *name, bool gz, size_t at)
{
	if (gz)
		return pd_error_wrap(err, rc, name, PD_NO_OFFSET,
				     "pprof: at byte %zu of the gunzipped protobuf", at);
	return pd_error_wrap(err, rc, name, at, "pprof");
}

static int unpack(const uint8_t *buf, size_t n, const char *name, bool gz,
		  const pp_caps *caps, pp_profile **out, pd_error *err)
{
	size_t need, at;
	int rc = pp_prescan(buf, n, caps->max_memory, &need, &at, err);
	if (rc < 0)
		return place(err, rc, name, gz, at);
	pp_alloc a = { 0, caps->max_memory, false };
	ProtobufCAllocator al = { counted_alloc, counted_free, &a };
	pp_profile *m = perftools__profiles__profile__unpack(&al, n, buf);
	if (!m && a.over)
		return pd_error_set(err, PD_ELIMIT, name, PD_NO_OFFSET,
				    "pprof: decoding the Profile takes more than %zu bytes "
				    "(pd_reader_options.max_pprof_memory)", a.cap);
	if (!m)
		return pd_error_set(err, PD_ECORRUPT, name, PD_NO_OFFSET,
				    "pprof: malformed protobuf: not a Profile message");
	*out = m;
	return 0;
}

int pp_decode(const uint8_t *data, size_t n, const char *name, const pp_caps *caps,
	      pp_profile **out, pd_error *err)
{
	if (!pp_is_gzip(data, n)) {
		if (n > caps->max_bytes)
			return pd_error_set(err, PD_ELIMIT, name, PD_NO_OFFSET,
					    "pprof: more than %zu bytes of protobuf "
					    "(pd_reader_options.max_pprof_bytes)", caps->max_bytes);
		return unpack(data, n, name, false, caps, out, err);
	}
	uint8_t *raw;
	size_t len;
	int rc = pp_gunzip(data, n, caps->max_bytes, &raw, &len, name, err);
	if (rc < 0)
		return rc;
	rc = unpack(raw, len, name, true, caps, out, err);
	free(raw);
	return rc;
}
