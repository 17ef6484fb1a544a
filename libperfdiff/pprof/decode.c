/*
 * Bytes → the Profile message.  protobuf-c decodes (no codec of ours);
 * its allocations go through a counting allocator, so a message whose
 * repeated fields would take more memory than the cap fails to decode
 * instead of exhausting the machine: a protobuf length or count is a
 * promise the file makes, not a fact.
 */
#include <stdlib.h>

#include "internal.h"

/* Each block carries its size in front, for the count and for free(). */
typedef struct pp_alloc {
	size_t used, cap;
	bool over;
} pp_alloc;

#define HDR 16

static void *counted_alloc(void *data, size_t n)
{
	pp_alloc *a = data;
	if (a && (n > a->cap || a->used > a->cap - n)) {
		a->over = true;
		return NULL;
	}
	unsigned char *p = n <= SIZE_MAX - HDR ? malloc(n + HDR) : NULL;
	if (!p)
		return NULL;
	memcpy(p, &n, sizeof n);
	if (a)
		a->used += n;
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
		a->used -= n;
	}
	free(p);
}

void pp_profile_free(pp_profile *m)
{
	ProtobufCAllocator al = { counted_alloc, counted_free, NULL };
	if (m)
		protobuf_c_message_free_unpacked(&m->base, &al);
}

/* The memory a message of `n` bytes may take decoded: its repeated
 * fields' structs are several times their encoding. */
static size_t memory_cap(size_t n)
{
	size_t cap = n > (PP_MAX_MEMORY - (64u << 20)) / 16 ? PP_MAX_MEMORY : 16 * n + (64u << 20);
	return cap;
}

static int unpack(const uint8_t *buf, size_t n, const char *name, pp_profile **out,
		  pd_error *err)
{
	pp_alloc a = { 0, memory_cap(n), false };
	ProtobufCAllocator al = { counted_alloc, counted_free, &a };
	pp_profile *m = perftools__profiles__profile__unpack(&al, n, buf);
	if (!m && a.over)
		return pd_error_set(err, PD_ELIMIT, name, PD_NO_OFFSET,
				    "pprof: Profile takes more than %zu bytes decoded", a.cap);
	if (!m)
		return pd_error_set(err, PD_ECORRUPT, name, PD_NO_OFFSET,
				    "pprof: malformed protobuf: not a Profile message");
	*out = m;
	return 0;
}

int pp_decode(const uint8_t *data, size_t n, const char *name, pp_profile **out,
	      pd_error *err)
{
	if (!pp_is_gzip(data, n)) {
		if (n > PP_MAX_INFLATED)
			return pd_error_set(err, PD_ELIMIT, name, PD_NO_OFFSET,
					    "pprof: more than %zu bytes of protobuf",
					    (size_t)PP_MAX_INFLATED);
		return unpack(data, n, name, out, err);
	}
	uint8_t *raw;
	size_t len;
	int rc = pp_gunzip(data, n, PP_MAX_INFLATED, &raw, &len, name, err);
	if (rc < 0)
		return rc;
	rc = unpack(raw, len, name, out, err);
	free(raw);
	return rc;
}
