/*
 * SAMPLE records.  The body is a sequence of optional fields whose presence
 * and order come from attr.sample_type alone, so every count and size read
 * from the record is checked against the bytes that remain before it is used
 * (multiplications are avoided by dividing the remainder instead).
 */
#include "internal.h"
#include "record_move.h"

#include <stdio.h>

/* branch_sample_type bit: one u64 counter word per branch entry follows. */
#define BRANCH_COUNTERS (1ull << 19)

/* sample_type bits whose fields come after RAW in the body. */
#define AFTER_RAW                                                              \
	((uint64_t)(PD_SAMPLE_BRANCH_STACK | PD_SAMPLE_REGS_USER |             \
		    PD_SAMPLE_STACK_USER | PD_SAMPLE_WEIGHT | PD_SAMPLE_DATA_SRC | \
		    PD_SAMPLE_TRANSACTION | PD_SAMPLE_REGS_INTR |              \
		    PD_SAMPLE_PHYS_ADDR | PD_SAMPLE_AUX | PD_SAMPLE_CGROUP |   \
		    PD_SAMPLE_DATA_PAGE_SIZE | PD_SAMPLE_CODE_PAGE_SIZE |      \
		    PD_SAMPLE_WEIGHT_STRUCT))

typedef struct cursor {
	uint8_t *p;
	size_t off, size;
	bool swap;
	pd_error *err;
	const pd_reader_options *opts; /* caps; NULL: none */
} cursor;

static size_t left(const cursor *c)
{
	return c->size - c->off;
}

static int short_field(cursor *c, const char *field)
{
	return pd_error_reason(c->err, PD_ECORRUPT,
			       "SAMPLE too short for %s: %zu bytes left at byte %zu of %zu",
			       field, left(c), c->off, c->size);
}

static int u64_field(cursor *c, const char *field, uint64_t *v)
{
	if (left(c) < 8)
		return short_field(c, field);
	pd_fix64(c->p + c->off, c->swap);
	*v = pd_ld64(c->p + c->off, false);
	c->off += 8;
	return 0;
}

/* Two u32s sharing one u64 slot (pid/tid, cpu/res). */
static int u32_pair(cursor *c, const char *field, uint32_t *a, uint32_t *b)
{
	if (left(c) < 8)
		return short_field(c, field);
	pd_fix32(c->p + c->off, c->swap);
	pd_fix32(c->p + c->off + 4, c->swap);
	*a = pd_ld32(c->p + c->off, false);
	if (b)
		*b = pd_ld32(c->p + c->off + 4, false);
	c->off += 8;
	return 0;
}

/* `n` u64s, n already checked to fit. */
static const uint64_t *u64_array(cursor *c, uint64_t n)
{
	const uint64_t *a = (const uint64_t *)(void *)(c->p + c->off);
	if (c->swap)
		for (uint64_t i = 0; i < n; i++)
			pd_fix64(c->p + c->off + i * 8, true);
	c->off += (size_t)n * 8;
	return a;
}

/* A count read from the record, followed by `n * words` u64s that must fit. */
static int counted(cursor *c, const char *field, uint64_t n, uint64_t words)
{
	if (words && n > left(c) / 8 / words)
		return pd_error_reason(c->err, PD_ECORRUPT,
				       "SAMPLE %s count %llu exceeds the %zu bytes left",
				       field, (unsigned long long)n, left(c));
	return 0;
}

/* A count that fits the record but exceeds what the caller allows. */
static int over_cap(cursor *c, const char *field, uint64_t n, uint32_t cap,
		    const char *option)
{
	return pd_error_reason(c->err, PD_ELIMIT,
			       "SAMPLE %s of %llu entries exceeds the cap of %u "
			       "(pd_reader_options.%s)",
			       field, (unsigned long long)n, cap, option);
}

static int read_values(cursor *c, pd_sample *s, uint64_t fmt)
{
	int rc;
	uint64_t per = 1 + ((fmt & PD_FORMAT_ID) != 0) + ((fmt & PD_FORMAT_LOST) != 0);

	if (fmt & PD_FORMAT_GROUP) {
		if ((rc = u64_field(c, "READ nr", &s->read_nr)))
			return rc;
		if ((fmt & PD_FORMAT_TOTAL_TIME_ENABLED) &&
		    (rc = u64_field(c, "READ time_enabled", &s->read_time_enabled)))
			return rc;
		if ((fmt & PD_FORMAT_TOTAL_TIME_RUNNING) &&
		    (rc = u64_field(c, "READ time_running", &s->read_time_running)))
			return rc;
		if ((rc = counted(c, "READ group", s->read_nr, per)))
			return rc;
		s->read_values = u64_array(c, s->read_nr * per);
		return 0;
	}

	/*
	 * One value: value, [enabled], [running], [id], [lost].  read_values
	 * points at `value`; id and lost are not contiguous with it when a time
	 * field sits in between, so they are copied out.
	 */
	uint64_t words = per + ((fmt & PD_FORMAT_TOTAL_TIME_ENABLED) != 0) +
			 ((fmt & PD_FORMAT_TOTAL_TIME_RUNNING) != 0);
	if (left(c) / 8 < words)
		return short_field(c, "READ");
	s->read_nr = 1;
	s->read_values = u64_array(c, 1);
	if (fmt & PD_FORMAT_TOTAL_TIME_ENABLED)
		u64_field(c, "READ time_enabled", &s->read_time_enabled);
	if (fmt & PD_FORMAT_TOTAL_TIME_RUNNING)
		u64_field(c, "READ time_running", &s->read_time_running);
	if (fmt & PD_FORMAT_ID)
		u64_field(c, "READ id", &s->read_id);
	if (fmt & PD_FORMAT_LOST)
		u64_field(c, "READ lost", &s->read_lost);
	return 0;
}

/*
 * perf_branch_entry.flags as a big-endian host lays it out (fields from the
 * most significant bit) → the little-endian layout, field by field.  Widths
 * follow the uapi struct: mispred, predicted, in_tx, abort, cycles, type,
 * spec, new_type, priv, reserved.
 */
static uint64_t branch_flags_from_other_order(uint64_t v)
{
	static const uint8_t width[] = { 1, 1, 1, 1, 16, 4, 2, 4, 3, 31 };
	uint64_t out = 0;
	unsigned pos = 0;
	for (size_t i = 0; i < sizeof width; i++) {
		unsigned w = width[i];
		uint64_t mask = (1ull << w) - 1;
		out |= ((v >> (64 - pos - w)) & mask) << pos;
		pos += w;
	}
	return out;
}

static int branch_stack(cursor *c, pd_sample *s, const pd_attr *attr)
{
	int rc;
	if ((rc = u64_field(c, "BRANCH_STACK nr", &s->branch_nr)))
		return rc;
	if (attr->branch_sample_type & PD_BRANCH_HW_INDEX) {
		if ((rc = u64_field(c, "BRANCH_STACK hw_idx", &s->branch_hw_idx)))
			return rc;
		s->branch_has_hw_idx = true;
	}
	/* Entries are 3 u64s; with branch counters one more u64 per entry. */
	bool counters = (attr->branch_sample_type & BRANCH_COUNTERS) != 0;
	if ((rc = counted(c, "BRANCH_STACK", s->branch_nr, counters ? 4 : 3)))
		return rc;
	if (c->opts && s->branch_nr > c->opts->max_branches)
		return over_cap(c, "BRANCH_STACK", s->branch_nr, c->opts->max_branches,
				"max_branches");
	s->branches = (const pd_branch_entry *)(void *)(c->p + c->off);
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		uint8_t *e = c->p + c->off;
		pd_fix64(e, c->swap);
		pd_fix64(e + 8, c->swap);
		if (c->swap) {
			uint64_t f = branch_flags_from_other_order(pd_ld64(e + 16, true));
			memcpy(e + 16, &f, 8);
		}
		c->off += 24;
	}
	if (counters)
		u64_array(c, s->branch_nr);
	return 0;
}

static int regs(cursor *c, const char *field, uint64_t mask, uint64_t *abi,
		uint64_t *mask_out, const uint64_t **values)
{
	int rc;
	if ((rc = u64_field(c, field, abi)))
		return rc;
	*mask_out = mask;
	if (*abi == 0)
		return 0; /* no registers: a kernel thread, or none captured */
	uint64_t n = (uint64_t)__builtin_popcountll(mask);
	if ((rc = counted(c, field, n, 1)))
		return rc;
	*values = u64_array(c, n);
	return 0;
}

static int stack_user(cursor *c, pd_sample *s)
{
	int rc;
	if ((rc = u64_field(c, "STACK_USER size", &s->stack_user_size)))
		return rc;
	if (s->stack_user_size == 0)
		return 0;
	/* The copied bytes and the dyn_size word after them. */
	if (left(c) < 8 || s->stack_user_size > left(c) - 8)
		return pd_error_reason(c->err, PD_ECORRUPT,
				       "SAMPLE STACK_USER size %llu exceeds the %zu bytes left",
				       (unsigned long long)s->stack_user_size, left(c));
	s->stack_user = c->p + c->off;
	c->off += (size_t)s->stack_user_size;
	u64_field(c, "STACK_USER dyn_size", &s->stack_user_dyn_size);
	if (s->stack_user_dyn_size > s->stack_user_size)
		s->stack_user_dyn_size = s->stack_user_size;
	return 0;
}

static int raw(cursor *c, pd_sample *s, uint64_t later_fields)
{
	if (left(c) < 4)
		return short_field(c, "RAW size");
	pd_fix32(c->p + c->off, c->swap);
	s->raw_size = pd_ld32(c->p + c->off, false);
	c->off += 4;
	if (s->raw_size > left(c))
		return pd_error_reason(c->err, PD_ECORRUPT,
				       "SAMPLE RAW size %u exceeds the %zu bytes left",
				       s->raw_size, left(c));
	/* The kernel pads RAW so the next field is u64-aligned; a record that
	 * is not would hand out misaligned arrays. */
	if (later_fields && (s->raw_size + 4) % 8 != 0)
		return pd_error_reason(c->err, PD_ECORRUPT,
				       "SAMPLE RAW size %u leaves the next field unaligned",
				       s->raw_size);
	s->raw = c->p + c->off;
	c->off += s->raw_size;
	return 0;
}

static int weight(cursor *c, pd_sample *s, uint64_t type)
{
	if (!(type & PD_SAMPLE_WEIGHT) && c->swap) {
		/* WEIGHT_STRUCT is {u32 var1_dw; u16 var2_w; u16 var3_w}. */
		if (left(c) < 8)
			return short_field(c, "WEIGHT_STRUCT");
		pd_fix32(c->p + c->off, true);
		pd_fix16(c->p + c->off + 4, true);
		pd_fix16(c->p + c->off + 6, true);
		s->weight = pd_ld64(c->p + c->off, false);
		c->off += 8;
		return 0;
	}
	return u64_field(c, "WEIGHT", &s->weight);
}

/* The one-word fields that lead a sample's body, in their order, all before
 * READ and CALLCHAIN. */
#define LEADING_WORDS                                                          \
	((uint64_t)(PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID |      \
		    PD_SAMPLE_TIME | PD_SAMPLE_ADDR | PD_SAMPLE_ID |           \
		    PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU | PD_SAMPLE_PERIOD))

/*
 * The leading one-word fields with one bounds check for all of them, when
 * nothing needs swapping: every record of a big file passes here, and a
 * check, a byte-order test and a store per field cost a fifth of decoding
 * it.  False when the fields must be read one by one (another byte order,
 * or a record too short for them, whose error names the missing field).
 */
static bool leading_words(pd_sample *out, cursor *c, uint64_t t)
{
	size_t need = 8 * (size_t)__builtin_popcountll(t & LEADING_WORDS);
	if (c->swap || left(c) < need)
		return false;
	const uint8_t *q = c->p + c->off;
#define TAKE(bit, dst)                                                         \
	do {                                                                   \
		if (t & (bit)) {                                               \
			(dst) = pd_ld64(q, false);                             \
			q += 8;                                                \
		}                                                              \
	} while (0)
	TAKE(PD_SAMPLE_IDENTIFIER, out->id);
	TAKE(PD_SAMPLE_IP, out->ip);
	if (t & PD_SAMPLE_TID) {
		out->pid = pd_ld32(q, false);
		out->tid = pd_ld32(q + 4, false);
		q += 8;
	}
	TAKE(PD_SAMPLE_TIME, out->time);
	TAKE(PD_SAMPLE_ADDR, out->addr);
	TAKE(PD_SAMPLE_ID, out->id);
	TAKE(PD_SAMPLE_STREAM_ID, out->stream_id);
	if (t & PD_SAMPLE_CPU) {
		out->cpu = pd_ld32(q, false);
		q += 8;
	}
	TAKE(PD_SAMPLE_PERIOD, out->period);
#undef TAKE
	c->off += need;
	return true;
}

int pd_sample_decode(pd_sample *out, uint8_t *p, size_t size,
		     const pd_attr *attr, bool swap, const pd_reader_options *opts,
		     pd_error *err)
{
	memset(out, 0, sizeof *out);
	if (!attr)
		return pd_error_reason(err, PD_EINVAL, "SAMPLE without an event attr");
	if (size < 8)
		return pd_error_reason(err, PD_ECORRUPT,
				       "SAMPLE size %zu is smaller than its header", size);

	uint64_t t = attr->sample_type;
	cursor c = { p, 8, size, swap, err, opts };
	int rc = 0;
	out->sample_type = t;

#define U64(bit, name, dst)                                                    \
	do {                                                                   \
		if ((t & (bit)) && (rc = u64_field(&c, name, dst)))            \
			return rc;                                             \
	} while (0)

	if (!leading_words(out, &c, t)) {
		U64(PD_SAMPLE_IDENTIFIER, "IDENTIFIER", &out->id);
		U64(PD_SAMPLE_IP, "IP", &out->ip);
		if ((t & PD_SAMPLE_TID) &&
		    (rc = u32_pair(&c, "TID", &out->pid, &out->tid)))
			return rc;
		U64(PD_SAMPLE_TIME, "TIME", &out->time);
		U64(PD_SAMPLE_ADDR, "ADDR", &out->addr);
		U64(PD_SAMPLE_ID, "ID", &out->id);
		U64(PD_SAMPLE_STREAM_ID, "STREAM_ID", &out->stream_id);
		if ((t & PD_SAMPLE_CPU) && (rc = u32_pair(&c, "CPU", &out->cpu, NULL)))
			return rc;
		U64(PD_SAMPLE_PERIOD, "PERIOD", &out->period);
	}
	if (!(t & PD_SAMPLE_PERIOD)) {
		/* In frequency mode the attr holds a frequency, not a period;
		 * each sample then stands for one event. */
		out->period = attr->freq ? 1 : attr->sample_period;
	}
	if ((t & PD_SAMPLE_READ) && (rc = read_values(&c, out, attr->read_format)))
		return rc;
	if (t & PD_SAMPLE_CALLCHAIN) {
		if ((rc = u64_field(&c, "CALLCHAIN nr", &out->callchain_nr)) ||
		    (rc = counted(&c, "CALLCHAIN", out->callchain_nr, 1)))
			return rc;
		if (opts && out->callchain_nr > opts->max_callchain)
			return over_cap(&c, "CALLCHAIN", out->callchain_nr, opts->max_callchain,
					"max_callchain");
		out->callchain = u64_array(&c, out->callchain_nr);
	}
	if ((t & PD_SAMPLE_RAW) && (rc = raw(&c, out, t & AFTER_RAW)))
		return rc;
	if ((t & PD_SAMPLE_BRANCH_STACK) && (rc = branch_stack(&c, out, attr)))
		return rc;
	if ((t & PD_SAMPLE_REGS_USER) &&
	    (rc = regs(&c, "REGS_USER", attr->sample_regs_user, &out->regs_user_abi,
		       &out->regs_user_mask, &out->regs_user)))
		return rc;
	if ((t & PD_SAMPLE_STACK_USER) && (rc = stack_user(&c, out)))
		return rc;
	if ((t & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT)) && (rc = weight(&c, out, t)))
		return rc;
	U64(PD_SAMPLE_DATA_SRC, "DATA_SRC", &out->data_src);
	U64(PD_SAMPLE_TRANSACTION, "TRANSACTION", &out->transaction);
	if ((t & PD_SAMPLE_REGS_INTR) &&
	    (rc = regs(&c, "REGS_INTR", attr->sample_regs_intr, &out->regs_intr_abi,
		       &out->regs_intr_mask, &out->regs_intr)))
		return rc;
	U64(PD_SAMPLE_PHYS_ADDR, "PHYS_ADDR", &out->phys_addr);
	U64(PD_SAMPLE_CGROUP, "CGROUP", &out->cgroup);
	U64(PD_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE", &out->data_page_size);
	U64(PD_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE", &out->code_page_size);
	if (t & PD_SAMPLE_AUX) {
		if ((rc = u64_field(&c, "AUX size", &out->aux_size)))
			return rc;
		if (out->aux_size > left(&c))
			return pd_error_reason(err, PD_ECORRUPT,
					       "SAMPLE AUX size %llu exceeds the %zu bytes left",
					       (unsigned long long)out->aux_size, left(&c));
		out->aux = c.p + c.off;
		c.off += (size_t)out->aux_size;
	}
#undef U64
	return 0;
}

/* ------------------------------------------------------------- moving */

/* `p` inside [from, from + size]: the same place in `to`; else NULL. */
static const void *moved(const void *p, const uint8_t *from, const uint8_t *to, size_t size)
{
	if (!p)
		return NULL;
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)from;
	if (a < base || a - base > size)
		return NULL;
	return to + (a - base);
}

void pd_record_move_sample(pd_record *copy, const void *data)
{
	const uint8_t *from = copy->data, *to = data;
	size_t size = copy->size;
	pd_sample *s = &copy->u.sample;
#define MOVE(field) s->field = moved(s->field, from, to, size)
	MOVE(read_values);
	MOVE(callchain);
	MOVE(raw);
	MOVE(branches);
	MOVE(regs_user);
	MOVE(stack_user);
	MOVE(regs_intr);
	MOVE(aux);
#undef MOVE
	copy->data = data;
}
