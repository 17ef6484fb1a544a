/*
 * The Profile's wire format walked before protobuf-c decodes it.
 * protobuf-c allocates as it parses: a 32-byte record for every field of
 * a message, a slot of an array for every entry of a repeated field, an
 * allocation for every message and string.  200 MB of protobuf (195 KB
 * gzipped) can hold 100 M empty strings or 127 M empty samples, and the
 * decoder took gigabytes before any count could be checked.  This pass
 * allocates nothing: it counts the entries of each repeated field of
 * Profile against the format's caps, adds up what the decoder will
 * allocate, each allocation as decode.c's counting allocator charges it
 * (pp_alloc_cost()), and stops at the first field that crosses a cap,
 * with its byte offset.  The counting allocator stays as the backstop.
 *
 * It follows protobuf-c's parser (protobuf-c.c, 1.4 and 1.5) where that
 * decides what is allocated: field keys of at most 5 bytes and not field
 * 0, lengths below 2^31, packed arrays counted by their varints' last
 * bytes, unknown fields kept with their bytes.  It is never stricter than
 * protobuf-c on a well-formed message.
 */
#include <limits.h>

#include "internal.h"

/* protobuf-c keeps a record of each field of a message while it parses
 * it: the first 16 on its stack, then in slabs of 32, 64, 128...
 * records, allocated as they fill and freed when the message is done. */
#define SCANNED 32u
#define STACK_SCANNED 16u

/* Repeated fields whose entries are counted one by one (Profile has 15
 * fields; a field past these gets an array charged on each entry). */
#define MAX_COUNTED 16

typedef struct field {
	uint32_t tag;
	unsigned wire;
	size_t start;             /* offset of its key in the whole message */
	const uint8_t *val;       /* its value, a length prefix included */
	size_t len, pref;         /* bytes of the value, of its length prefix */
} field;

typedef struct scan {
	const uint8_t *base;      /* the whole message: offsets count from here */
	size_t max;               /* max_pprof_memory */
	size_t before, inner;     /* the Profile's estimate before its current field:
	                           * kept and its slabs, its messages' slabs */
	size_t *at;               /* where it failed */
	pd_error *err;
} scan;

static int malformed(const scan *s, size_t at, const char *why, uint64_t v)
{
	*s->at = at;
	return pd_error_reason(s->err, PD_ECORRUPT, "malformed protobuf: %s %llu", why,
			       (unsigned long long)v);
}

/* The length of the varint at p[0..n) of at most `max` bytes, its value
 * in *v; 0 when it does not end there. */
static inline size_t varint(const uint8_t *p, size_t n, size_t max, uint64_t *v)
{
	if (n && !(p[0] & 0x80)) { /* most keys and lengths: one byte */
		*v = p[0];
		return 1;
	}
	uint64_t x = 0;
	for (size_t i = 0; i < n && i < max; i++) {
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

/* The value's length in *f for its wire type, from q[0..rem). */
static int value_len(const scan *s, const uint8_t *q, size_t rem, field *f)
{
	uint64_t v = 0;
	f->pref = 0;
	switch (f->wire) {
	case 0:
		f->len = varint(q, rem, 10, &v);
		return f->len ? 0 : malformed(s, f->start, "unterminated varint of field", f->tag);
	case 1:
	case 5:
		f->len = f->wire == 1 ? 8 : 4;
		return rem >= f->len ? 0
				     : malformed(s, f->start, "fixed value cut off, field", f->tag);
	case 2:
		f->pref = varint(q, rem, 5, &v);
		if (!f->pref || v > INT_MAX || v > rem - f->pref)
			return malformed(s, f->start, "length runs past its message, field",
					 f->tag);
		f->len = f->pref + (size_t)v;
		return 0;
	default:
		return malformed(s, f->start, "wire type not read (groups?):", f->wire);
	}
}

/* The field at p[*off..n), *off moved past it. */
static int next_field(const scan *s, const uint8_t *p, size_t n, size_t *off, field *f)
{
	const uint8_t *q = p + *off;
	size_t rem = n - *off, k = 0;
	uint64_t key = 0;
	f->start = (size_t)(q - s->base);
	/* protobuf-c: field 0 is no field, a key is at most 5 bytes */
	if (q[0] & 0xf8)
		k = varint(q, rem, 5, &key);
	if (!k)
		return malformed(s, f->start, "bad field key, first byte", q[0]);
	f->tag = (uint32_t)(key >> 3);
	f->wire = (unsigned)(key & 7);
	int rc = value_len(s, q + k, rem - k, f);
	if (rc < 0)
		return rc;
	f->val = q + k;
	*off += k + f->len;
	return 0;
}

/* The scanned records of one message, as its fields are met. */
typedef struct slabs {
	size_t fields, next, size, bytes;
} slabs;

static void slab_add(slabs *sl)
{
	if (++sl->fields <= sl->next)
		return;
	sl->size = sl->size ? sl->size * 2 : 2 * STACK_SCANNED;
	sl->next += sl->size;
	sl->bytes += pp_alloc_cost(sl->size * SCANNED);
}

/* protobuf-c's sizeof_elt_in_repeated_array(). */
static size_t elt_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_ENUM:
		return 4;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	default:
		return 8;
	}
}

/* Entries of a packed array of `t` in v[0..len), as protobuf-c counts them. */
static int count_packed(const scan *s, const field *f, ProtobufCType t, size_t *k)
{
	const uint8_t *v = f->val + f->pref;
	size_t len = f->len - f->pref, n = 0;
	size_t fixed = t == PROTOBUF_C_TYPE_FIXED32 || t == PROTOBUF_C_TYPE_SFIXED32 ||
				       t == PROTOBUF_C_TYPE_FLOAT ? 4
		       : t == PROTOBUF_C_TYPE_FIXED64 || t == PROTOBUF_C_TYPE_SFIXED64 ||
				       t == PROTOBUF_C_TYPE_DOUBLE ? 8
		       : t == PROTOBUF_C_TYPE_BOOL ? 1 : 0;
	if (fixed) {
		if (len % fixed)
			return malformed(s, f->start, "packed array not of whole entries, field",
					 f->tag);
		*k = len / fixed;
		return 0;
	}
	for (size_t i = 0; i < len; i++)
		n += !(v[i] & 0x80);
	*k = n;
	return 0;
}

/* What decoding one message takes: what it keeps (its struct, arrays,
 * strings, unknown fields and messages) and, on top of that while it is
 * decoded, its scanned records' slabs and the most its messages' slabs
 * take at once.  protobuf-c scans every field of a message before it
 * decodes the first message inside it, so a message's slabs and its
 * messages' stack. */
typedef struct need {
	size_t keep, slabs;
} need;

static int walk(scan *s, const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
		bool top, need *out);

/* What the value of field `f` (of descriptor `fd`) takes, in *nd; how
 * many entries it holds, in *k. */
static int value_need(scan *s, const ProtobufCFieldDescriptor *fd, const field *f, size_t *k,
		      need *nd)
{
	size_t len = f->len - f->pref;
	*k = 1;
	nd->keep = nd->slabs = 0;
	if (f->wire != 2)
		return 0;
	const ProtobufCMessageDescriptor *d = fd->descriptor;
	switch (fd->type) {
	case PROTOBUF_C_TYPE_MESSAGE:
		if (len == 0) { /* an empty message is its struct alone */
			nd->keep = pp_alloc_cost(d->sizeof_message);
			return 0;
		}
		return walk(s, d, f->val + f->pref, len, false, nd);
	case PROTOBUF_C_TYPE_STRING:
		nd->keep = pp_alloc_cost(len + 1);
		return 0;
	case PROTOBUF_C_TYPE_BYTES:
		nd->keep = len ? pp_alloc_cost(len) : 0;
		return 0;
	default:
		/* a scalar as bytes: packed if repeated, else protobuf-c refuses it */
		return fd->label == PROTOBUF_C_LABEL_REPEATED ? count_packed(s, f, fd->type, k) : 0;
	}
}

/* The format's cap on the entries of a repeated field of Profile. */
static size_t top_cap(uint32_t id)
{
	if (id == 1)  /* sample_type */
		return PP_MAX_TYPES;
	if (id == 6)  /* string_table */
		return PP_MAX_STRINGS;
	return PP_MAX_ENTRIES; /* sample, mapping, location, function, comment */
}

static int over_memory(const scan *s, size_t at)
{
	*s->at = at;
	return pd_error_reason(s->err, PD_ELIMIT,
			       "decoding the Profile takes more than %zu bytes "
			       "(pd_reader_options.max_pprof_memory)", s->max);
}

/* One message as its fields are met. */
typedef struct msg {
	const ProtobufCMessageDescriptor *d;
	bool top;                     /* the Profile */
	size_t count[MAX_COUNTED];    /* entries of each repeated field */
	size_t unknown;               /* fields it does not have */
	size_t keep;                  /* what it keeps so far */
	size_t inner;                 /* the most its messages' slabs take */
	slabs sl;
	uint32_t last_tag;            /* the field met last, looked up once */
	const ProtobufCFieldDescriptor *last;
} msg;

/* After each field of the Profile: the count of field `fd` (index `i`)
 * within its cap, the estimate so far within memory.  After each field
 * of a message inside it, that message so far on top of the Profile's
 * estimate before it: a lower bound of the whole, to stop early inside
 * one huge message. */
static int check(const scan *s, const msg *m, const ProtobufCFieldDescriptor *fd, size_t i,
		 const field *f)
{
	/* below the top, this message's slabs and those of the Profile's
	 * messages before it are not live at once: the larger of them */
	if (!m->top)
		return s->before + m->keep + (m->sl.bytes > s->inner ? m->sl.bytes : s->inner) >
				       s->max
			       ? over_memory(s, f->start)
			       : 0;
	if (fd && fd->label == PROTOBUF_C_LABEL_REPEATED && i < MAX_COUNTED &&
	    m->count[i] > top_cap(f->tag)) {
		*s->at = f->start;
		return pd_error_reason(s->err, PD_ELIMIT,
				       "Profile has more than %zu %s entries (the cap)",
				       top_cap(f->tag), fd->name);
	}
	return m->keep + m->sl.bytes + m->inner > s->max ? over_memory(s, f->start) : 0;
}

/* The arrays of the repeated fields, one allocation each, sized by the
 * count (their entries' bytes are counted as they are met), and the
 * unknown fields' array. */
static size_t arrays(const msg *m)
{
	size_t c = 0;
	for (size_t i = 0; i < m->d->n_fields && i < MAX_COUNTED; i++) {
		size_t b = m->count[i] * elt_size(m->d->fields[i].type);
		c += m->count[i] ? pp_alloc_cost(b) - b : 0;
	}
	if (m->unknown)
		c += pp_alloc_cost(m->unknown * sizeof(ProtobufCMessageUnknownField));
	return c;
}

/* Field `f` of `m` met: what its value takes added, then checked. */
static int add_field(scan *s, msg *m, const field *f)
{
	if (!m->last || f->tag != m->last_tag) {
		m->last = protobuf_c_message_descriptor_get_field(m->d, f->tag);
		m->last_tag = f->tag;
	}
	const ProtobufCFieldDescriptor *fd = m->last;
	size_t k = 1, i = fd ? (size_t)(fd - m->d->fields) : MAX_COUNTED;
	need nd = { pp_alloc_cost(f->len), 0 }; /* an unknown field's copy */
	int rc;
	if (!fd)
		m->unknown++;
	else if ((rc = value_need(s, fd, f, &k, &nd)) < 0)
		return rc;
	m->keep += nd.keep;
	if (nd.slabs > m->inner)
		m->inner = nd.slabs;
	if (fd && fd->label == PROTOBUF_C_LABEL_REPEATED) {
		m->keep += k * elt_size(fd->type);
		if (i < MAX_COUNTED)
			m->count[i] += k;
		else
			m->keep += pp_alloc_cost(0);
	}
	return check(s, m, fd, i, f);
}

static int walk(scan *s, const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
		bool top, need *out)
{
	msg m = { .d = d, .top = top, .keep = pp_alloc_cost(d->sizeof_message),
		  .sl = { 0, STACK_SCANNED, 0, 0 } };
	for (size_t off = 0; off < n;) {
		field f = { 0 };
		int rc = next_field(s, p, n, &off, &f);
		if (rc < 0)
			return rc;
		slab_add(&m.sl);
		if (top) {
			s->before = m.keep + m.sl.bytes;
			s->inner = m.inner;
		}
		if ((rc = add_field(s, &m, &f)) < 0)
			return rc;
	}
	out->keep = m.keep + arrays(&m);
	out->slabs = m.sl.bytes + m.inner;
	return 0;
}

int pp_prescan(const uint8_t *buf, size_t n, size_t max_memory, size_t *need_out, size_t *at,
	       pd_error *err)
{
	scan s = { buf, max_memory, 0, 0, at, err };
	need nd;
	*at = 0;
	int rc = walk(&s, &perftools__profiles__profile__descriptor, buf, n, true, &nd);
	if (rc < 0)
		return rc;
	*need_out = nd.keep + nd.slabs;
	return *need_out > max_memory ? over_memory(&s, n) : 0;
}
