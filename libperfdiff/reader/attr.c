/*
 * perf_event_attr of any size, event-id positions, and the id → attr table.
 *
 * Attrs grow with every kernel ABI version; an attr is read field by field
 * and a field is taken only when it lies wholly inside the stored size, so a
 * smaller (older) attr leaves the newer fields 0 and a larger (newer) one's
 * extra bytes are never looked at.
 */
#include "internal.h"

#include <stdlib.h>

/* perf treats attr.size 0 as the first ABI version. */
#define ATTR_SIZE_VER0 64

#define ATTR_FLAGS_OFFSET 40
#define PRECISE_IP_SHIFT 15

static uint64_t get64(const uint8_t *p, uint32_t avail, uint32_t off, bool swap)
{
	return off + 8 <= avail ? pd_ld64(p + off, swap) : 0;
}

static uint32_t get32(const uint8_t *p, uint32_t avail, uint32_t off, bool swap)
{
	return off + 4 <= avail ? pd_ld32(p + off, swap) : 0;
}

static uint16_t get16(const uint8_t *p, uint32_t avail, uint32_t off, bool swap)
{
	return off + 2 <= avail ? pd_ld16(p + off, swap) : 0;
}

/* The flags word as a little-endian u64 whatever the host order, because
 * pd_bitfield_swap() is defined on that load. */
static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/*
 * A big-endian writer allocates bitfields from the most significant bit, so
 * reversing the bits of each byte moves every one-bit flag to its
 * little-endian place, but it also reverses the bit order inside a multi-bit
 * field.  precise_ip (bits 15-16) is the only multi-bit field readers use;
 * its two bits are exchanged back here.
 */
static uint64_t flags_from_other_order(uint64_t raw_le)
{
	uint64_t v = pd_bitfield_swap(raw_le);
	uint64_t lo = (v >> PRECISE_IP_SHIFT) & 1, hi = (v >> (PRECISE_IP_SHIFT + 1)) & 1;
	v &= ~(3ull << PRECISE_IP_SHIFT);
	return v | (lo << (PRECISE_IP_SHIFT + 1)) | (hi << PRECISE_IP_SHIFT);
}

void pd_attr_decode(pd_attr *out, const uint8_t *p, uint32_t size, bool swap)
{
	const char *name = out->name, *pmu_name = out->pmu_name;
	size_t nr_ids = out->nr_ids;
	const uint64_t *ids = out->ids;

	memset(out, 0, sizeof *out);
	out->name = name;
	out->pmu_name = pmu_name;
	out->nr_ids = nr_ids;
	out->ids = ids;

	uint32_t avail = size ? size : ATTR_SIZE_VER0;
	if (avail > PD_ATTR_KNOWN_SIZE)
		avail = PD_ATTR_KNOWN_SIZE;

	out->type = get32(p, avail, 0, swap);
	out->size = get32(p, avail, 4, swap);
	out->config = get64(p, avail, 8, swap);
	out->sample_period = get64(p, avail, 16, swap);
	out->sample_type = get64(p, avail, 24, swap);
	out->read_format = get64(p, avail, 32, swap);
	if (ATTR_FLAGS_OFFSET + 8 <= avail)
		out->flags = swap ? flags_from_other_order(load_le64(p + ATTR_FLAGS_OFFSET))
				  : pd_ld64(p + ATTR_FLAGS_OFFSET, false);
	out->wakeup_events = get32(p, avail, 48, swap);
	out->bp_type = get32(p, avail, 52, swap);
	out->config1 = get64(p, avail, 56, swap);
	out->config2 = get64(p, avail, 64, swap);
	out->branch_sample_type = get64(p, avail, 72, swap);
	out->sample_regs_user = get64(p, avail, 80, swap);
	out->sample_stack_user = get32(p, avail, 88, swap);
	out->clockid = (int32_t)get32(p, avail, 92, swap);
	out->sample_regs_intr = get64(p, avail, 96, swap);
	out->aux_watermark = get32(p, avail, 104, swap);
	out->sample_max_stack = get16(p, avail, 108, swap);
	out->aux_sample_size = get32(p, avail, 112, swap);
	out->sig_data = get64(p, avail, 120, swap);
	out->config3 = get64(p, avail, 128, swap);

	out->freq = (out->flags & PD_ATTR_FLAG_FREQ) != 0;
	out->sample_id_all = (out->flags & PD_ATTR_FLAG_SAMPLE_ID_ALL) != 0;
	out->exclude_callchain_kernel = (out->flags & PD_ATTR_FLAG_EXCLUDE_CALLCHAIN_KERNEL) != 0;
	out->exclude_callchain_user = (out->flags & PD_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER) != 0;
	out->precise_ip = (unsigned)((out->flags >> PRECISE_IP_SHIFT) & 3);
}

void pd_id_positions(uint64_t sample_type, int *id_pos, int *is_pos)
{
	if (sample_type & PD_SAMPLE_IDENTIFIER) {
		*id_pos = 0;
		*is_pos = 1;
		return;
	}
	if (!(sample_type & PD_SAMPLE_ID)) {
		*id_pos = -1;
		*is_pos = -1;
		return;
	}
	/* SAMPLE: fields that precede ID in the body. */
	int n = 0;
	n += (sample_type & PD_SAMPLE_IP) != 0;
	n += (sample_type & PD_SAMPLE_TID) != 0;
	n += (sample_type & PD_SAMPLE_TIME) != 0;
	n += (sample_type & PD_SAMPLE_ADDR) != 0;
	*id_pos = n;
	/* Trailer: fields that follow ID, counted back from the end. */
	n = 1;
	n += (sample_type & PD_SAMPLE_CPU) != 0;
	n += (sample_type & PD_SAMPLE_STREAM_ID) != 0;
	*is_pos = n;
}

int pd_id_table_add(pd_id_table *t, uint64_t id, uint32_t attr)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		if (cap < t->cap || cap > SIZE_MAX / sizeof *t->v)
			return PD_ENOMEM;
		pd_id_entry *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	/* Ids usually arrive in increasing order: keep the table sorted then. */
	if (t->n && (t->v[t->n - 1].id > id ||
		     (t->v[t->n - 1].id == id && t->v[t->n - 1].attr > attr)))
		t->sorted = false;
	else if (t->n == 0)
		t->sorted = true;
	t->v[t->n].id = id;
	t->v[t->n].attr = attr;
	t->n++;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const pd_id_entry *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->attr != y->attr)
		return x->attr < y->attr ? -1 : 1;
	return 0;
}

/*
 * An id listed for several attrs (a corrupt or merged file) resolves to the
 * lowest attr index, so the answer does not depend on insertion order.
 */
int pd_id_table_find(pd_id_table *t, uint64_t id)
{
	if (t->n == 0)
		return -1;
	if (!t->sorted) {
		qsort(t->v, t->n, sizeof *t->v, cmp_entry);
		t->sorted = true;
	}
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->v[lo].id == id)
		return (int)t->v[lo].attr;
	return -1;
}

void pd_id_table_free(pd_id_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
	t->sorted = false;
}
