/*
 * Kernel records other than SAMPLE, the sample_id_all trailer, the few
 * perf-tool records with a fixed layout, and id peeking for attribution.
 *
 * The trailer's length depends only on sample_type, while the body before it
 * may hold a variable-length string, so the trailer is read backwards from
 * the record end and strings are searched only in the bytes before it.
 * The one exception, KSYMBOL and BPF_EVENT records whose size overstates
 * them, is pd_record_id_end()'s.
 */
#include "internal.h"

#include <stdio.h>

typedef struct body {
	uint8_t *p;
	size_t end;   /* first byte of the trailer (or the record end) */
	bool swap;
	pd_error *err;
	const char *name;
	const pd_reader_options *opts; /* caps; NULL: none */
} body;

static int too_short(const body *b, size_t need)
{
	return pd_error_reason(b->err, PD_ECORRUPT,
			       "%s record too short: %zu bytes without its sample_id trailer, need %zu",
			       b->name, b->end, need);
}

static uint64_t f64(const body *b, size_t off)
{
	pd_fix64(b->p + off, b->swap);
	return pd_ld64(b->p + off, false);
}

static uint32_t f32(const body *b, size_t off)
{
	pd_fix32(b->p + off, b->swap);
	return pd_ld32(b->p + off, false);
}

static uint16_t f16(const body *b, size_t off)
{
	pd_fix16(b->p + off, b->swap);
	return pd_ld16(b->p + off, false);
}

/* A NUL-terminated string at `off` that ends before the trailer. */
static int str(const body *b, size_t off, const char *field, const char **out)
{
	if (off >= b->end)
		return pd_error_reason(b->err, PD_ECORRUPT, "%s record has no room for its %s",
				       b->name, field);
	const char *s = (const char *)b->p + off;
	if (strnlen(s, b->end - off) == b->end - off)
		return pd_error_reason(b->err, PD_ECORRUPT, "%s record: %s is not NUL-terminated",
				       b->name, field);
	int rc = pd_string_cap(s, b->end - off, b->opts, field, b->err);
	if (rc) /* named here, not before: this runs for every COMM and MMAP */
		return pd_error_wrap(b->err, rc, NULL, PD_NO_OFFSET, "%s record", b->name);
	*out = s;
	return 0;
}

/* Swap every whole u64 in [off, end) for records decoded only for byte order. */
static void fix_words(const body *b, size_t off)
{
	if (!b->swap)
		return;
	for (; off + 8 <= b->end; off += 8)
		pd_fix64(b->p + off, true);
}

#define TRAILER_BITS                                                           \
	((uint64_t)(PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID |            \
		    PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU | PD_SAMPLE_IDENTIFIER))

size_t pd_trailer_size(uint64_t sample_type)
{
	return 8 * (size_t)__builtin_popcountll(sample_type & TRAILER_BITS);
}

/*
 * Linux (seen on 6.18) builds one KSYMBOL or BPF_EVENT per program load and
 * adds the trailer's length to its shared header once for every event it
 * sends it to, so each copy after the first claims more bytes than it
 * fills: its trailer still follows the body, stale ring bytes follow that.
 * Both bodies tell their own length (BPF_EVENT 24 bytes, KSYMBOL 24 and a
 * NUL-terminated name padded to 8), so the trailer's true end is known.
 */
size_t pd_record_id_end(const uint8_t *p, size_t size, uint32_t type, size_t tlen)
{
	size_t body = 24;
	if ((type != PD_RECORD_KSYMBOL && type != PD_RECORD_BPF_EVENT) || tlen == 0 ||
	    size < body + tlen)
		return size;
	if (type == PD_RECORD_KSYMBOL) {
		/* the name must end before the earliest place a trailer can start */
		size_t room = size - tlen - body;
		size_t n = strnlen((const char *)p + body, room);
		if (n == room)
			return size;
		body += (n + 8) & ~(size_t)7;
	}
	return body + tlen < size ? body + tlen : size;
}

/* The trailer ending at `size`; *body_end is where it starts. */
static int trailer(pd_sample_id *sid, uint8_t *p, size_t size, uint64_t type,
		   bool swap, const char *name, pd_error *err, size_t *body_end)
{
	uint64_t present = type & TRAILER_BITS;
	size_t len = pd_trailer_size(type);
	if (size - 8 < len)
		return pd_error_reason(err, PD_ECORRUPT,
				       "%s record of %zu bytes cannot hold its %zu-byte sample_id trailer",
				       name, size, len);
	size_t pos = size;
	sid->present = present;
	/* Last field first. */
	if (present & PD_SAMPLE_IDENTIFIER) {
		pos -= 8;
		pd_fix64(p + pos, swap);
		sid->id = pd_ld64(p + pos, false);
	}
	if (present & PD_SAMPLE_CPU) {
		pos -= 8;
		pd_fix32(p + pos, swap);
		pd_fix32(p + pos + 4, swap);
		sid->cpu = pd_ld32(p + pos, false);
	}
	if (present & PD_SAMPLE_STREAM_ID) {
		pos -= 8;
		pd_fix64(p + pos, swap);
		sid->stream_id = pd_ld64(p + pos, false);
	}
	if (present & PD_SAMPLE_ID) {
		pos -= 8;
		pd_fix64(p + pos, swap);
		sid->id = pd_ld64(p + pos, false);
	}
	if (present & PD_SAMPLE_TIME) {
		pos -= 8;
		pd_fix64(p + pos, swap);
		sid->time = pd_ld64(p + pos, false);
	}
	if (present & PD_SAMPLE_TID) {
		pos -= 8;
		pd_fix32(p + pos, swap);
		pd_fix32(p + pos + 4, swap);
		sid->pid = pd_ld32(p + pos, false);
		sid->tid = pd_ld32(p + pos + 4, false);
	}
	*body_end = pos;
	return 0;
}

static int mmap1(pd_record *rec, const body *b)
{
	pd_mmap *m = &rec->u.mmap;
	if (b->end < 40)
		return too_short(b, 41);
	m->pid = f32(b, 8);
	m->tid = f32(b, 12);
	m->addr = f64(b, 16);
	m->len = f64(b, 24);
	m->pgoff = f64(b, 32);
	return str(b, 40, "filename", &m->filename);
}

/*
 * MMAP2 has had two layouts.  Linux 3.12 added it with the filename right
 * after ino_generation, at byte 64; 3.16 put `u32 prot, flags` there and
 * moved the filename to 72.  Vendor 3.10 kernels (RHEL 7) and perf tools
 * of that time write the first one; a newer perf on such a kernel writes
 * both in one file (its synthesized maps in the new layout), so the choice
 * is made per record.  Sizes cannot tell them apart (both pad the filename
 * to 8, and the sample_id trailer after it is sized by sample_type alone),
 * but the word at 64 can: the kernel and perf only ever set PROT_READ,
 * PROT_WRITE and PROT_EXEC there, while in the first layout it holds the
 * first bytes of a filename ('/', '[', a letter), never all below 8 unless
 * the name is empty.  The current layout also needs at least 80 bytes
 * (72 plus a padded NUL); the first one fits an empty name in 72.
 */
#define MMAP2_PROT_BITS 7u /* PROT_READ | PROT_WRITE | PROT_EXEC */
#define MMAP2_PROT_EXEC 4u

static bool mmap2_first_layout(const pd_record *rec, const body *b)
{
	if (rec->misc & PD_MISC_MMAP_BUILD_ID) /* Linux 5.12 on */
		return false;
	if (b->end < 80)
		return true;
	return (pd_ld32(b->p + 64, b->swap) & ~MMAP2_PROT_BITS) != 0;
}

static void mmap2_ids(pd_record *rec, const body *b)
{
	pd_mmap *m = &rec->u.mmap;
	m->maj = f32(b, 40);
	m->min = f32(b, 44);
	m->ino = f64(b, 48);
	m->ino_generation = f64(b, 56);
}

static int mmap2(pd_record *rec, const body *b)
{
	pd_mmap *m = &rec->u.mmap;
	if (b->end < 72)
		return too_short(b, 73);
	m->pid = f32(b, 8);
	m->tid = f32(b, 12);
	m->addr = f64(b, 16);
	m->len = f64(b, 24);
	m->pgoff = f64(b, 32);
	if (mmap2_first_layout(rec, b)) {
		mmap2_ids(rec, b);
		/* no prot: what MMAP says with MMAP_DATA, so a code map stays one */
		m->prot = rec->misc & PD_MISC_MMAP_DATA ? 1u : 1u | MMAP2_PROT_EXEC;
		m->flags = 0;
		return str(b, 64, "filename", &m->filename);
	}
	if (rec->misc & PD_MISC_MMAP_BUILD_ID) {
		uint8_t n = b->p[40];
		if (n > sizeof m->build_id)
			return pd_error_reason(b->err, PD_ECORRUPT,
					       "MMAP2 record: build-id size %u exceeds 20", n);
		m->build_id_size = n;
		memcpy(m->build_id, b->p + 44, sizeof m->build_id);
	} else {
		mmap2_ids(rec, b);
	}
	m->prot = f32(b, 64);
	m->flags = f32(b, 68);
	return str(b, 72, "filename", &m->filename);
}

static int decode_body(pd_record *rec, const body *b)
{
	switch (rec->type) {
	case PD_RECORD_MMAP:
		return mmap1(rec, b);
	case PD_RECORD_MMAP2:
		return mmap2(rec, b);
	case PD_RECORD_COMM:
		if (b->end < 16)
			return too_short(b, 17);
		rec->u.comm.pid = f32(b, 8);
		rec->u.comm.tid = f32(b, 12);
		rec->u.comm.exec = (rec->misc & PD_MISC_COMM_EXEC) != 0;
		return str(b, 16, "comm", &rec->u.comm.comm);
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT:
		if (b->end < 32)
			return too_short(b, 32);
		rec->u.task.pid = f32(b, 8);
		rec->u.task.ppid = f32(b, 12);
		rec->u.task.tid = f32(b, 16);
		rec->u.task.ptid = f32(b, 20);
		rec->u.task.time = f64(b, 24);
		return 0;
	case PD_RECORD_LOST:
		if (b->end < 24)
			return too_short(b, 24);
		rec->u.lost.id = f64(b, 8);
		rec->u.lost.lost = f64(b, 16);
		return 0;
	case PD_RECORD_LOST_SAMPLES:
		if (b->end < 16)
			return too_short(b, 16);
		rec->u.lost.lost = f64(b, 8);
		return 0;
	case PD_RECORD_THROTTLE:
	case PD_RECORD_UNTHROTTLE:
		if (b->end < 32)
			return too_short(b, 32);
		rec->u.throttle.time = f64(b, 8);
		rec->u.throttle.id = f64(b, 16);
		rec->u.throttle.stream_id = f64(b, 24);
		return 0;
	case PD_RECORD_AUX:
		if (b->end < 32)
			return too_short(b, 32);
		rec->u.aux.aux_offset = f64(b, 8);
		rec->u.aux.aux_size = f64(b, 16);
		rec->u.aux.flags = f64(b, 24);
		return 0;
	case PD_RECORD_ITRACE_START:
		if (b->end < 16)
			return too_short(b, 16);
		rec->u.itrace_start.pid = f32(b, 8);
		rec->u.itrace_start.tid = f32(b, 12);
		return 0;
	case PD_RECORD_SWITCH:
	case PD_RECORD_SWITCH_CPU_WIDE:
		rec->u.sw.out = (rec->misc & PD_MISC_SWITCH_OUT) != 0;
		rec->u.sw.preempt = (rec->misc & PD_MISC_SWITCH_OUT_PREEMPT) != 0;
		if (rec->type == PD_RECORD_SWITCH)
			return 0;
		if (b->end < 16)
			return too_short(b, 16);
		rec->u.sw.next_prev_pid = f32(b, 8);
		rec->u.sw.next_prev_tid = f32(b, 12);
		return 0;
	case PD_RECORD_NAMESPACES: {
		pd_namespaces *ns = &rec->u.namespaces;
		if (b->end < 24)
			return too_short(b, 24);
		ns->pid = f32(b, 8);
		ns->tid = f32(b, 12);
		ns->nr = f64(b, 16);
		if (ns->nr > (b->end - 24) / 16)
			return pd_error_reason(b->err, PD_ECORRUPT,
					       "NAMESPACES record: nr %llu exceeds the %zu bytes left",
					       (unsigned long long)ns->nr, b->end - 24);
		ns->dev_ino = (const uint64_t *)(void *)(b->p + 24);
		for (uint64_t i = 0; i < ns->nr * 2; i++)
			pd_fix64(b->p + 24 + i * 8, b->swap);
		return 0;
	}
	case PD_RECORD_KSYMBOL:
		if (b->end < 24)
			return too_short(b, 25);
		rec->u.ksymbol.addr = f64(b, 8);
		rec->u.ksymbol.len = f32(b, 16);
		rec->u.ksymbol.ksym_type = f16(b, 20);
		rec->u.ksymbol.flags = f16(b, 22);
		return str(b, 24, "name", &rec->u.ksymbol.name);
	case PD_RECORD_BPF_EVENT:
		if (b->end < 24)
			return too_short(b, 24);
		rec->u.bpf_event.type = f16(b, 8);
		rec->u.bpf_event.flags = f16(b, 10);
		rec->u.bpf_event.id = f32(b, 12);
		memcpy(rec->u.bpf_event.tag, b->p + 16, 8);
		return 0;
	case PD_RECORD_CGROUP:
		if (b->end < 16)
			return too_short(b, 17);
		rec->u.cgroup.id = f64(b, 8);
		return str(b, 16, "path", &rec->u.cgroup.path);
	/* Not exposed in rec->u; only their byte order is fixed. */
	case PD_RECORD_READ:
		if (b->end >= 16) {
			f32(b, 8);
			f32(b, 12);
			fix_words(b, 16);
		}
		return 0;
	case PD_RECORD_TEXT_POKE:
		if (b->end >= 20) {
			f64(b, 8);
			f16(b, 16);
			f16(b, 18);
		}
		return 0;
	case PD_RECORD_AUX_OUTPUT_HW_ID:
	case PD_RECORD_CALLCHAIN_DEFERRED:
		fix_words(b, 8);
		return 0;
	default:
		return 0;
	}
}

int pd_record_decode(pd_record *rec, uint8_t *p, size_t size,
		     const pd_attr *attr, bool swap, const pd_reader_options *opts,
		     pd_error *err)
{
	memset(&rec->sid, 0, sizeof rec->sid);
	memset(&rec->u, 0, sizeof rec->u);
	const char *name = pd_record_type_name(rec->type);
	bool known = name != NULL;
	if (!name)
		name = "unknown";
	if (rec->type == PD_RECORD_SAMPLE || rec->type >= PD_RECORD_HEADER_ATTR)
		return pd_error_reason(err, PD_EINVAL,
				       "record type %u is not a non-sample kernel record",
				       rec->type);
	if (size < 8)
		return pd_error_reason(err, PD_ECORRUPT,
				       "%s record size %zu is smaller than its header",
				       name, size);

	size_t end = size, id_end = size;
	if (attr && attr->sample_id_all) {
		id_end = pd_record_id_end(p, size, rec->type, pd_trailer_size(attr->sample_type));
		int rc = trailer(&rec->sid, p, id_end, attr->sample_type, swap, name, err, &end);
		/* A type this version does not know may not follow the trailer
		 * convention at all; it is skipped, not treated as corrupt. */
		if (rc && !known) {
			memset(&rec->sid, 0, sizeof rec->sid);
			return 0;
		}
		if (rc)
			return rc;
	}
	body b = { p, end, swap, err, name, opts };
	int rc = decode_body(rec, &b);
	return rc < 0 ? rc : id_end < size;
}

int pd_tool_record_decode(pd_record *rec, uint8_t *p, size_t size, bool swap,
			  pd_error *err)
{
	const char *name = pd_record_type_name(rec->type);
	body b = { p, size, swap, err, name ? name : "unknown", NULL };
	size_t need;

	switch (rec->type) {
	case PD_RECORD_AUXTRACE: need = 48; break;
	case PD_RECORD_HEADER_FEATURE: need = 16; break;
	case PD_RECORD_COMPRESSED2: need = 16; break;
	case PD_RECORD_COMPRESSED: need = 8; break;
	default: return 0;
	}
	memset(&rec->u, 0, sizeof rec->u);
	if (size < need)
		return pd_error_reason(err, PD_ECORRUPT, "%s record too short: %zu bytes, need %zu",
				       b.name, size, need);
	switch (rec->type) {
	case PD_RECORD_AUXTRACE:
		rec->u.auxtrace.size = f64(&b, 8);
		rec->u.auxtrace.offset = f64(&b, 16);
		rec->u.auxtrace.reference = f64(&b, 24);
		rec->u.auxtrace.idx = f32(&b, 32);
		rec->u.auxtrace.tid = f32(&b, 36);
		rec->u.auxtrace.cpu = f32(&b, 40);
		f32(&b, 44); /* reserved */
		break;
	case PD_RECORD_HEADER_FEATURE:
		rec->u.feature.feature = f64(&b, 8);
		break;
	case PD_RECORD_COMPRESSED2:
		/* Not checked against `size`: the writer's u16 size can wrap,
		 * and the reader decides which of the two to trust. */
		rec->u.compressed.data_size = f64(&b, 8);
		break;
	case PD_RECORD_COMPRESSED:
		rec->u.compressed.data_size = size - 8;
		break;
	}
	return 0;
}

bool pd_record_peek_id(const uint8_t *p, size_t size, uint32_t type,
		       int id_pos, int is_pos, size_t tlen, bool swap, uint64_t *id)
{
	size_t off;
	if (size < 8)
		return false;
	if (type == PD_RECORD_SAMPLE) {
		if (id_pos < 0 || (size - 8) / 8 <= (size_t)id_pos)
			return false;
		off = 8 + (size_t)id_pos * 8;
	} else if (type != 0 && type < PD_RECORD_HEADER_ATTR) {
		size = pd_record_id_end(p, size, type, tlen);
		if (is_pos <= 0 || (size - 8) / 8 < (size_t)is_pos)
			return false;
		off = size - (size_t)is_pos * 8;
	} else {
		return false;
	}
	*id = pd_ld64(p + off, swap);
	return true;
}
