/*
 * Record decoders (attr.c, sample.c, record.c, names.c).
 *
 * Every record is built here byte by byte with explicit little- or
 * big-endian writes, from the layouts in the format reference, so the
 * expected values never come from the decoder itself.  Each builder runs
 * twice: little-endian (decoded with swap = false) and big-endian (decoded
 * with swap = true); both must give the same values.  Inputs are copied
 * into buffers of exactly their size so AddressSanitizer catches any read
 * past the end.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"

/* ------------------------------------------------------------ builder */

typedef struct bld {
	uint8_t b[8192];
	size_t n;
	bool be;
} bld;

static void put(bld *w, uint64_t v, int bytes)
{
	ck_assert_uint_le(w->n + (size_t)bytes, sizeof w->b);
	for (int i = 0; i < bytes; i++) {
		int shift = w->be ? 8 * (bytes - 1 - i) : 8 * i;
		w->b[w->n++] = (uint8_t)(v >> shift);
	}
}
static void put8(bld *w, uint64_t v) { put(w, v, 1); }
static void put16(bld *w, uint64_t v) { put(w, v, 2); }
static void put32(bld *w, uint64_t v) { put(w, v, 4); }
static void put64(bld *w, uint64_t v) { put(w, v, 8); }

static void put_bytes(bld *w, const void *p, size_t n)
{
	ck_assert_uint_le(w->n + n, sizeof w->b);
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

/* A string, NUL-terminated and zero-padded to a multiple of 8. */
static void put_str(bld *w, const char *s)
{
	size_t len = strlen(s) + 1, padded = (len + 7) & ~(size_t)7;
	put_bytes(w, s, len - 1);
	for (size_t i = len - 1; i < padded; i++)
		put8(w, 0);
}

static void header(bld *w, uint32_t type, uint16_t misc)
{
	w->n = 0;
	put32(w, type);
	put16(w, misc);
	put16(w, 0); /* patched by finish() */
}

static void finish(bld *w)
{
	size_t n = w->n;
	ck_assert_uint_le(n, 65535);
	w->n = 6;
	put16(w, n);
	w->n = n;
}

/* A private copy of exactly the built bytes. */
static uint8_t *exact(const bld *w)
{
	uint8_t *p = malloc(w->n ? w->n : 1);
	ck_assert_ptr_nonnull(p);
	memcpy(p, w->b, w->n);
	return p;
}

static uint64_t rd64le(const void *p)
{
	const uint8_t *b = p;
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | b[i];
	return v;
}

/* ------------------------------------------------------------ attrs */

/* Bits of the attr flags word as a little-endian writer lays them out. */
#define F_DISABLED 0
#define F_FREQ 10
#define F_PRECISE 15 /* two bits */
#define F_SAMPLE_ID_ALL 18
#define F_EXCL_CC_KERNEL 21
#define F_EXCL_CC_USER 22
#define F_MMAP2 23

static uint64_t flags_le(unsigned precise)
{
	return 1ull << F_DISABLED | 1ull << F_FREQ | (uint64_t)precise << F_PRECISE |
	       1ull << F_SAMPLE_ID_ALL | 1ull << F_EXCL_CC_USER | 1ull << F_MMAP2;
}

/* The same flags as a big-endian compiler allocates them: from the MSB. */
static uint64_t flags_be(unsigned precise)
{
	return 1ull << (63 - F_DISABLED) | 1ull << (63 - F_FREQ) |
	       (uint64_t)precise << (64 - F_PRECISE - 2) |
	       1ull << (63 - F_SAMPLE_ID_ALL) | 1ull << (63 - F_EXCL_CC_USER) |
	       1ull << (63 - F_MMAP2);
}

/* A 144-byte attr (VER9-sized) with a distinct value in every field. */
static void build_attr(bld *w, uint32_t size_field, unsigned precise)
{
	w->n = 0;
	put32(w, 4);                    /* type */
	put32(w, size_field);           /* size */
	put64(w, 0x1122334455667788);   /* config */
	put64(w, 4000);                 /* sample_freq */
	put64(w, 0x10107);              /* sample_type */
	put64(w, 0x1c);                 /* read_format */
	put64(w, w->be ? flags_be(precise) : flags_le(precise));
	put32(w, 0x31);                 /* wakeup_events */
	put32(w, 0x32);                 /* bp_type */
	put64(w, 0x56);                 /* config1 */
	put64(w, 0x64);                 /* config2 (VER1 ends 72) */
	put64(w, 1ull << 17 | 1);       /* branch_sample_type (VER2 ends 80) */
	put64(w, 0xff0fff);             /* sample_regs_user */
	put32(w, 8192);                 /* sample_stack_user */
	put32(w, (uint32_t)-7);         /* clockid (VER3 ends 96) */
	put64(w, 0xf0);                 /* sample_regs_intr (VER4 ends 104) */
	put32(w, 0x68);                 /* aux_watermark */
	put16(w, 127);                  /* sample_max_stack */
	put16(w, 0);                    /* __reserved_2 (VER5 ends 112) */
	put32(w, 0x70);                 /* aux_sample_size */
	put32(w, 0);                    /* __reserved_3 (VER6 ends 120) */
	put64(w, 0x78);                 /* sig_data (VER7 ends 128) */
	put64(w, 0x80);                 /* config3 (VER8 ends 136) */
	put64(w, 0xdeadbeef);           /* config4 (proposed VER9): ignored */
}

static void check_attr(const pd_attr *a, uint32_t size, unsigned precise)
{
	ck_assert_uint_eq(a->type, 4);
	ck_assert_uint_eq(a->size, size);
	ck_assert_uint_eq(a->config, 0x1122334455667788);
	ck_assert_uint_eq(a->sample_period, 4000);
	ck_assert_uint_eq(a->sample_type, 0x10107);
	ck_assert_uint_eq(a->read_format, 0x1c);
	ck_assert_uint_eq(a->flags, flags_le(precise));
	ck_assert(a->freq);
	ck_assert(a->sample_id_all);
	ck_assert(a->exclude_callchain_user);
	ck_assert(!a->exclude_callchain_kernel);
	ck_assert_uint_eq(a->precise_ip, precise);
	ck_assert_uint_eq(a->wakeup_events, 0x31);
	ck_assert_uint_eq(a->bp_type, 0x32);
	ck_assert_uint_eq(a->config1, 0x56);
	uint32_t eff = size ? size : 64;
#define UPTO(end, field, val) ck_assert_uint_eq(a->field, eff >= (end) ? (val) : 0)
	UPTO(72, config2, 0x64);
	UPTO(80, branch_sample_type, 1ull << 17 | 1);
	UPTO(96, sample_regs_user, 0xff0fff);
	UPTO(96, sample_stack_user, 8192);
	ck_assert_int_eq(a->clockid, eff >= 96 ? -7 : 0);
	UPTO(104, sample_regs_intr, 0xf0);
	UPTO(112, aux_watermark, 0x68);
	UPTO(112, sample_max_stack, 127);
	UPTO(120, aux_sample_size, 0x70);
	UPTO(128, sig_data, 0x78);
	UPTO(136, config3, 0x80);
#undef UPTO
}

START_TEST(test_attr_every_size)
{
	static const uint32_t sizes[] = { 0, 64, 72, 80, 96, 104, 112, 120, 128, 136, 144 };
	for (int be = 0; be < 2; be++) {
		for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
			for (unsigned precise = 0; precise < 4; precise++) {
				bld w = { .be = be };
				build_attr(&w, sizes[i], precise);
				/* The attr occupies exactly its size (0 means 64). */
				w.n = sizes[i] ? sizes[i] : 64;
				uint8_t *p = exact(&w);
				pd_attr a;
				memset(&a, 0xa5, sizeof a);
				a.name = "kept";
				a.pmu_name = NULL;
				a.nr_ids = 3;
				a.ids = (const uint64_t *)sizes;
				pd_attr_decode(&a, p, sizes[i], be);
				check_attr(&a, sizes[i], precise);
				ck_assert_str_eq(a.name, "kept");
				ck_assert_uint_eq(a.nr_ids, 3);
				ck_assert_ptr_eq(a.ids, (const uint64_t *)sizes);
				free(p);
			}
		}
	}
}
END_TEST

START_TEST(test_attr_flag_bits)
{
	/* exclude_callchain_kernel alone, and no freq: each flag on its own. */
	for (int be = 0; be < 2; be++) {
		bld w = { .be = be };
		put32(&w, 1);
		put32(&w, 64);
		put64(&w, 0);
		put64(&w, 1000);
		put64(&w, 0);
		put64(&w, 0);
		put64(&w, be ? 1ull << (63 - F_EXCL_CC_KERNEL) : 1ull << F_EXCL_CC_KERNEL);
		put64(&w, 0);
		put64(&w, 0);
		uint8_t *p = exact(&w);
		pd_attr a = { 0 };
		pd_attr_decode(&a, p, 64, be);
		ck_assert(!a.freq);
		ck_assert(!a.sample_id_all);
		ck_assert(a.exclude_callchain_kernel);
		ck_assert(!a.exclude_callchain_user);
		ck_assert_uint_eq(a.precise_ip, 0);
		ck_assert_uint_eq(a.flags, PD_ATTR_FLAG_EXCLUDE_CALLCHAIN_KERNEL);
		ck_assert_uint_eq(a.sample_period, 1000);
		free(p);
	}
}
END_TEST

START_TEST(test_id_positions)
{
	static const struct {
		uint64_t st;
		int id_pos, is_pos;
	} cases[] = {
		{ PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_ID, 0, 1 },
		{ PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID |
			  PD_SAMPLE_PERIOD | PD_SAMPLE_CALLCHAIN, 3, 1 },
		{ PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ADDR |
			  PD_SAMPLE_ID | PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU, 4, 3 },
		{ PD_SAMPLE_IP | PD_SAMPLE_ID | PD_SAMPLE_CPU, 1, 2 },
		{ PD_SAMPLE_ID, 0, 1 },
		{ PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_PERIOD, -1, -1 },
		{ 0, -1, -1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int id_pos = 99, is_pos = 99;
		pd_id_positions(cases[i].st, &id_pos, &is_pos);
		ck_assert_int_eq(id_pos, cases[i].id_pos);
		ck_assert_int_eq(is_pos, cases[i].is_pos);
	}
}
END_TEST

START_TEST(test_id_table)
{
	pd_id_table t = { 0 };
	ck_assert_int_eq(pd_id_table_find(&t, 5), -1);
	/* 1000 ids in a scrambled order: id = 7919 * k mod 100003, attr = k % 5. */
	for (uint32_t k = 1; k <= 1000; k++)
		ck_assert_int_eq(pd_id_table_add(&t, (7919ull * k) % 100003, k % 5), 0);
	for (uint32_t k = 1; k <= 1000; k++)
		ck_assert_int_eq(pd_id_table_find(&t, (7919ull * k) % 100003), (int)(k % 5));
	ck_assert_int_eq(pd_id_table_find(&t, 0), -1);
	ck_assert_int_eq(pd_id_table_find(&t, 100003), -1);
	ck_assert_int_eq(pd_id_table_find(&t, UINT64_MAX), -1);
	/* Adding after a lookup: found on the next lookup. */
	ck_assert_int_eq(pd_id_table_add(&t, 3, 4), 0);
	ck_assert_int_eq(pd_id_table_add(&t, UINT64_MAX, 2), 0);
	ck_assert_int_eq(pd_id_table_find(&t, 3), 4);
	ck_assert_int_eq(pd_id_table_find(&t, UINT64_MAX), 2);
	/* A duplicate id resolves to the lowest attr, whatever the order. */
	ck_assert_int_eq(pd_id_table_add(&t, 42, 3), 0);
	ck_assert_int_eq(pd_id_table_add(&t, 42, 1), 0);
	ck_assert_int_eq(pd_id_table_find(&t, 42), 1);
	pd_id_table_free(&t);
	ck_assert_int_eq(pd_id_table_find(&t, 3), -1);
	pd_id_table_free(&t);
}
END_TEST

/* ------------------------------------------------------------ samples */

/* perf_branch_entry flags from its fields, for each writer byte order. */
typedef struct brf {
	uint64_t mispred, predicted, in_tx, abort, cycles, type, spec, new_type, priv;
} brf;

static uint64_t brf_le(brf f)
{
	return f.mispred | f.predicted << 1 | f.in_tx << 2 | f.abort << 3 | f.cycles << 4 |
	       f.type << 20 | f.spec << 24 | f.new_type << 26 | f.priv << 30;
}

static uint64_t brf_be(brf f)
{
	return f.mispred << 63 | f.predicted << 62 | f.in_tx << 61 | f.abort << 60 |
	       f.cycles << 44 | f.type << 40 | f.spec << 38 | f.new_type << 34 | f.priv << 31;
}

static const brf BR0 = { 1, 0, 1, 0, 0x1234, 5, 2, 9, 3 };
static const brf BR1 = { 0, 1, 0, 1, 0xfedc, 0xa, 1, 6, 4 };

static const uint8_t RAW_BYTES[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
static const uint8_t STACK_BYTES[16] = "stack-bytes-0123";
static const uint8_t AUX_BYTES[8] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8 };

#define ALL_FIELDS                                                             \
	((uint64_t)PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID |       \
	 PD_SAMPLE_TIME | PD_SAMPLE_ADDR | PD_SAMPLE_ID | PD_SAMPLE_STREAM_ID | \
	 PD_SAMPLE_CPU | PD_SAMPLE_PERIOD | PD_SAMPLE_READ |                   \
	 PD_SAMPLE_CALLCHAIN | PD_SAMPLE_RAW | PD_SAMPLE_BRANCH_STACK |        \
	 PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER | PD_SAMPLE_DATA_SRC |     \
	 PD_SAMPLE_TRANSACTION | PD_SAMPLE_REGS_INTR | PD_SAMPLE_PHYS_ADDR |   \
	 PD_SAMPLE_CGROUP | PD_SAMPLE_DATA_PAGE_SIZE | PD_SAMPLE_CODE_PAGE_SIZE | \
	 PD_SAMPLE_AUX)

static pd_attr all_fields_attr(uint64_t weight_bit)
{
	pd_attr a = { 0 };
	a.sample_type = ALL_FIELDS | weight_bit;
	a.read_format = PD_FORMAT_GROUP | PD_FORMAT_TOTAL_TIME_ENABLED |
			PD_FORMAT_TOTAL_TIME_RUNNING | PD_FORMAT_ID | PD_FORMAT_LOST;
	a.branch_sample_type = PD_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x83;  /* 3 registers */
	a.sample_regs_intr = 0x300; /* 2 registers */
	a.sample_period = 999;
	return a;
}

/* One sample with every field, in the order of the format reference §7. */
static void build_all_fields(bld *w, uint64_t weight_bit)
{
	header(w, PD_RECORD_SAMPLE, PD_CPUMODE_USER | PD_MISC_EXACT_IP);
	put64(w, 0x1d);                     /* IDENTIFIER */
	put64(w, 0x7f0011223344);           /* IP */
	put32(w, 4242); put32(w, 4243);     /* TID: pid, tid */
	put64(w, 123456789012345);          /* TIME */
	put64(w, 0xaddaddadd);              /* ADDR */
	put64(w, 0x1d);                     /* ID */
	put64(w, 0x5e);                     /* STREAM_ID */
	put32(w, 3); put32(w, 0xeeee);      /* CPU, res */
	put64(w, 100003);                   /* PERIOD */
	/* READ, group: nr, enabled, running, {value, id, lost} x 2 */
	put64(w, 2);
	put64(w, 5000); put64(w, 4000);
	put64(w, 11); put64(w, 0x1d); put64(w, 0);
	put64(w, 22); put64(w, 0x1e); put64(w, 7);
	/* CALLCHAIN */
	put64(w, 4);
	put64(w, PD_CONTEXT_KERNEL); put64(w, 0xffffffff81000010);
	put64(w, PD_CONTEXT_USER); put64(w, 0x401000);
	/* RAW: size 12, +4 = 16 */
	put32(w, sizeof RAW_BYTES);
	put_bytes(w, RAW_BYTES, sizeof RAW_BYTES);
	/* BRANCH_STACK with hw_idx */
	put64(w, 2);
	put64(w, 0x55);
	put64(w, 0x1000); put64(w, 0x2000); put64(w, w->be ? brf_be(BR0) : brf_le(BR0));
	put64(w, 0x3000); put64(w, 0x4000); put64(w, w->be ? brf_be(BR1) : brf_le(BR1));
	/* REGS_USER abi 2 (64-bit) + 3 regs */
	put64(w, 2); put64(w, 0xa0); put64(w, 0xa1); put64(w, 0xa7);
	/* STACK_USER size, bytes, dyn_size */
	put64(w, sizeof STACK_BYTES);
	put_bytes(w, STACK_BYTES, sizeof STACK_BYTES);
	put64(w, 10);
	/* WEIGHT (u64) or WEIGHT_STRUCT {u32 var1, u16 var2, u16 var3} */
	if (weight_bit == PD_SAMPLE_WEIGHT) {
		put64(w, 0x0102030405060708);
	} else {
		put32(w, 0x11223344); put16(w, 0x5566); put16(w, 0x7788);
	}
	put64(w, 0x68100142);               /* DATA_SRC */
	put64(w, 0x7a);                     /* TRANSACTION */
	put64(w, 2); put64(w, 0xb8); put64(w, 0xb9); /* REGS_INTR */
	put64(w, 0x9876000);                /* PHYS_ADDR */
	put64(w, 0xc6);                     /* CGROUP */
	put64(w, 4096);                     /* DATA_PAGE_SIZE */
	put64(w, 2097152);                  /* CODE_PAGE_SIZE */
	put64(w, sizeof AUX_BYTES);         /* AUX */
	put_bytes(w, AUX_BYTES, sizeof AUX_BYTES);
	finish(w);
}

static void check_all_fields(const pd_sample *s, const uint8_t *rec, size_t size,
			     uint64_t weight_bit)
{
	ck_assert_uint_eq(s->sample_type, ALL_FIELDS | weight_bit);
	ck_assert_uint_eq(s->id, 0x1d);
	ck_assert_uint_eq(s->ip, 0x7f0011223344);
	ck_assert_uint_eq(s->pid, 4242);
	ck_assert_uint_eq(s->tid, 4243);
	ck_assert_uint_eq(s->time, 123456789012345);
	ck_assert_uint_eq(s->addr, 0xaddaddadd);
	ck_assert_uint_eq(s->stream_id, 0x5e);
	ck_assert_uint_eq(s->cpu, 3);
	ck_assert_uint_eq(s->period, 100003);

	ck_assert_uint_eq(s->read_nr, 2);
	ck_assert_uint_eq(s->read_time_enabled, 5000);
	ck_assert_uint_eq(s->read_time_running, 4000);
	static const uint64_t rv[6] = { 11, 0x1d, 0, 22, 0x1e, 7 };
	for (int i = 0; i < 6; i++)
		ck_assert_uint_eq(s->read_values[i], rv[i]);

	ck_assert_uint_eq(s->callchain_nr, 4);
	ck_assert_uint_eq(s->callchain[0], PD_CONTEXT_KERNEL);
	ck_assert_uint_eq(s->callchain[1], 0xffffffff81000010);
	ck_assert_uint_eq(s->callchain[2], PD_CONTEXT_USER);
	ck_assert_uint_eq(s->callchain[3], 0x401000);

	ck_assert_uint_eq(s->raw_size, sizeof RAW_BYTES);
	ck_assert_mem_eq(s->raw, RAW_BYTES, sizeof RAW_BYTES);

	ck_assert_uint_eq(s->branch_nr, 2);
	ck_assert(s->branch_has_hw_idx);
	ck_assert_uint_eq(s->branch_hw_idx, 0x55);
	ck_assert_uint_eq(s->branches[0].from, 0x1000);
	ck_assert_uint_eq(s->branches[0].to, 0x2000);
	ck_assert_uint_eq(s->branches[0].flags, brf_le(BR0));
	ck_assert_uint_eq(s->branches[1].from, 0x3000);
	ck_assert_uint_eq(s->branches[1].to, 0x4000);
	ck_assert_uint_eq(s->branches[1].flags, brf_le(BR1));

	ck_assert_uint_eq(s->regs_user_abi, 2);
	ck_assert_uint_eq(s->regs_user_mask, 0x83);
	ck_assert_uint_eq(s->regs_user[0], 0xa0);
	ck_assert_uint_eq(s->regs_user[1], 0xa1);
	ck_assert_uint_eq(s->regs_user[2], 0xa7);

	ck_assert_uint_eq(s->stack_user_size, sizeof STACK_BYTES);
	ck_assert_uint_eq(s->stack_user_dyn_size, 10);
	ck_assert_mem_eq(s->stack_user, STACK_BYTES, sizeof STACK_BYTES);

	if (weight_bit == PD_SAMPLE_WEIGHT)
		ck_assert_uint_eq(s->weight, 0x0102030405060708);
	else /* var1 in the low 32 bits, then var2, var3: the LE union view */
		ck_assert_uint_eq(s->weight, 0x7788556611223344);
	ck_assert_uint_eq(s->data_src, 0x68100142);
	ck_assert_uint_eq(s->transaction, 0x7a);
	ck_assert_uint_eq(s->regs_intr_abi, 2);
	ck_assert_uint_eq(s->regs_intr_mask, 0x300);
	ck_assert_uint_eq(s->regs_intr[0], 0xb8);
	ck_assert_uint_eq(s->regs_intr[1], 0xb9);
	ck_assert_uint_eq(s->phys_addr, 0x9876000);
	ck_assert_uint_eq(s->cgroup, 0xc6);
	ck_assert_uint_eq(s->data_page_size, 4096);
	ck_assert_uint_eq(s->code_page_size, 2097152);
	ck_assert_uint_eq(s->aux_size, sizeof AUX_BYTES);
	ck_assert_mem_eq(s->aux, AUX_BYTES, sizeof AUX_BYTES);
	/* AUX is the last field: every byte of the record was consumed. */
	ck_assert_ptr_eq((const uint8_t *)s->aux + s->aux_size, rec + size);
}

START_TEST(test_sample_every_field)
{
	static const uint64_t weights[] = { PD_SAMPLE_WEIGHT, PD_SAMPLE_WEIGHT_STRUCT };
	for (int be = 0; be < 2; be++) {
		for (int wi = 0; wi < 2; wi++) {
			pd_attr a = all_fields_attr(weights[wi]);
			bld w = { .be = be };
			build_all_fields(&w, weights[wi]);
			uint8_t *p = exact(&w);
			pd_sample s;
			pd_error perr = { 0 };
			ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, be, NULL, &perr), 0);
			check_all_fields(&s, p, w.n, weights[wi]);
			/* Swapped bytes are native now: a second decode without
			 * swap gives the same values. */
			if (be) {
				ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, false, NULL, &perr), 0);
				check_all_fields(&s, p, w.n, weights[wi]);
			}
			free(p);
		}
	}
}
END_TEST

START_TEST(test_sample_no_swap_never_writes)
{
	pd_attr a = all_fields_attr(PD_SAMPLE_WEIGHT_STRUCT);
	bld w = { .be = false };
	build_all_fields(&w, PD_SAMPLE_WEIGHT_STRUCT);
	uint8_t *p = exact(&w);
	pd_sample s;
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, false, NULL, &perr), 0);
	ck_assert_mem_eq(p, w.b, w.n);
	free(p);
}
END_TEST

/* Every prefix of a valid sample is too short: a clean error each time. */
START_TEST(test_sample_every_truncation)
{
	for (int be = 0; be < 2; be++) {
		pd_attr a = all_fields_attr(PD_SAMPLE_WEIGHT_STRUCT);
		bld w = { .be = be };
		build_all_fields(&w, PD_SAMPLE_WEIGHT_STRUCT);
		for (size_t cut = 0; cut < w.n; cut++) {
			uint8_t *p = malloc(cut ? cut : 1);
			memcpy(p, w.b, cut);
			pd_sample s;
			pd_error perr = { 0 };
			ck_assert_int_eq(pd_sample_decode(&s, p, cut, &a, be, NULL, &perr), PD_ECORRUPT);
			ck_assert_msg(perr.message[0] != '\0', "no reason at cut %zu", cut);
			free(p);
		}
	}
}
END_TEST

START_TEST(test_sample_read_single)
{
	for (int be = 0; be < 2; be++) {
		/* value, id, lost: contiguous */
		pd_attr a = { 0 };
		a.sample_type = PD_SAMPLE_IP | PD_SAMPLE_READ;
		a.read_format = PD_FORMAT_ID | PD_FORMAT_LOST;
		bld w = { .be = be };
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 0x400100);
		put64(&w, 77); put64(&w, 0x99); put64(&w, 3);
		finish(&w);
		uint8_t *p = exact(&w);
		pd_sample s;
		pd_error perr = { 0 };
		ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, be, NULL, &perr), 0);
		ck_assert_uint_eq(s.ip, 0x400100);
		ck_assert_uint_eq(s.read_nr, 1);
		ck_assert_uint_eq(s.read_values[0], 77);
		ck_assert_uint_eq(s.read_values[1], 0x99);
		ck_assert_uint_eq(s.read_values[2], 3);
		free(p);

		/* value, enabled, running, id, then CALLCHAIN */
		a.sample_type = PD_SAMPLE_READ | PD_SAMPLE_CALLCHAIN;
		a.read_format = PD_FORMAT_TOTAL_TIME_ENABLED | PD_FORMAT_TOTAL_TIME_RUNNING |
				PD_FORMAT_ID;
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 55); put64(&w, 900); put64(&w, 800); put64(&w, 0x98);
		put64(&w, 1); put64(&w, 0x401234);
		finish(&w);
		p = exact(&w);
		ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, be, NULL, &perr), 0);
		ck_assert_uint_eq(s.read_nr, 1);
		ck_assert_uint_eq(s.read_values[0], 55);
		ck_assert_uint_eq(s.read_time_enabled, 900);
		ck_assert_uint_eq(s.read_time_running, 800);
		ck_assert_uint_eq(s.callchain_nr, 1);
		ck_assert_uint_eq(s.callchain[0], 0x401234);
		free(p);
	}
}
END_TEST

START_TEST(test_sample_regs_abi0_stack_empty)
{
	for (int be = 0; be < 2; be++) {
		pd_attr a = { 0 };
		a.sample_type = PD_SAMPLE_TID | PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER |
				PD_SAMPLE_DATA_SRC;
		a.sample_regs_user = 0xff0fff;
		bld w = { .be = be };
		header(&w, PD_RECORD_SAMPLE, PD_CPUMODE_KERNEL);
		put32(&w, 0); put32(&w, 12);
		put64(&w, 0);          /* abi 0: no registers follow */
		put64(&w, 0);          /* stack size 0: no bytes, no dyn_size */
		put64(&w, 0x1234);     /* DATA_SRC */
		finish(&w);
		uint8_t *p = exact(&w);
		pd_sample s;
		pd_error perr = { 0 };
		ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, be, NULL, &perr), 0);
		ck_assert_uint_eq(s.tid, 12);
		ck_assert_uint_eq(s.regs_user_abi, 0);
		ck_assert_ptr_null(s.regs_user);
		ck_assert_uint_eq(s.stack_user_size, 0);
		ck_assert_uint_eq(s.stack_user_dyn_size, 0);
		ck_assert_uint_eq(s.data_src, 0x1234);
		free(p);
	}
}
END_TEST

START_TEST(test_sample_stack_dyn_size_clamped)
{
	pd_attr a = { 0 };
	a.sample_type = PD_SAMPLE_STACK_USER;
	bld w = { .be = false };
	header(&w, PD_RECORD_SAMPLE, 0);
	put64(&w, 8);
	put64(&w, 0x0807060504030201);
	put64(&w, 4096); /* dyn_size larger than what was copied */
	finish(&w);
	uint8_t *p = exact(&w);
	pd_sample s;
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, false, NULL, &perr), 0);
	ck_assert_uint_eq(s.stack_user_size, 8);
	ck_assert_uint_eq(s.stack_user_dyn_size, 8);
	ck_assert_uint_eq(s.stack_user[0], 1);
	ck_assert_uint_eq(s.stack_user[7], 8);
	free(p);
}
END_TEST

START_TEST(test_sample_period_fallback)
{
	pd_attr a = { 0 };
	a.sample_type = PD_SAMPLE_IP;
	a.sample_period = 250000;
	bld w = { .be = false };
	header(&w, PD_RECORD_SAMPLE, 0);
	put64(&w, 0x401000);
	finish(&w);
	uint8_t *p = exact(&w);
	pd_sample s;
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, false, NULL, &perr), 0);
	ck_assert_uint_eq(s.period, 250000);
	a.freq = true; /* sample_period is a frequency then */
	a.sample_period = 4000;
	ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, false, NULL, &perr), 0);
	ck_assert_uint_eq(s.period, 1);
	/* Bytes after the announced fields are tolerated. */
	bld w2 = { .be = false };
	header(&w2, PD_RECORD_SAMPLE, 0);
	put64(&w2, 0x401000);
	put64(&w2, 0xdead);
	finish(&w2);
	free(p);
	p = exact(&w2);
	ck_assert_int_eq(pd_sample_decode(&s, p, w2.n, &a, false, NULL, &perr), 0);
	ck_assert_uint_eq(s.ip, 0x401000);
	free(p);
}
END_TEST

START_TEST(test_sample_branch_plain_and_counters)
{
	for (int be = 0; be < 2; be++) {
		pd_attr a = { 0 };
		a.sample_type = PD_SAMPLE_BRANCH_STACK | PD_SAMPLE_PHYS_ADDR;
		bld w = { .be = be };
		/* No hw_idx: entries follow nr directly. */
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 1);
		put64(&w, 0xa); put64(&w, 0xb); put64(&w, be ? brf_be(BR1) : brf_le(BR1));
		put64(&w, 0x77);
		finish(&w);
		uint8_t *p = exact(&w);
		pd_sample s;
		pd_error perr = { 0 };
		ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, be, NULL, &perr), 0);
		ck_assert(!s.branch_has_hw_idx);
		ck_assert_uint_eq(s.branch_nr, 1);
		ck_assert_uint_eq(s.branches[0].from, 0xa);
		ck_assert_uint_eq(s.branches[0].to, 0xb);
		ck_assert_uint_eq(s.branches[0].flags, brf_le(BR1));
		ck_assert_uint_eq(s.phys_addr, 0x77);
		free(p);

		/* Branch counters (branch_sample_type bit 19): one u64 per entry. */
		a.branch_sample_type = 1ull << 19;
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 2);
		put64(&w, 0xa); put64(&w, 0xb); put64(&w, 0);
		put64(&w, 0xc); put64(&w, 0xd); put64(&w, 0);
		put64(&w, 5); put64(&w, 6);
		put64(&w, 0x78);
		finish(&w);
		p = exact(&w);
		ck_assert_int_eq(pd_sample_decode(&s, p, w.n, &a, be, NULL, &perr), 0);
		ck_assert_uint_eq(s.branch_nr, 2);
		ck_assert_uint_eq(s.branches[1].to, 0xd);
		ck_assert_uint_eq(s.phys_addr, 0x78);
		free(p);
	}
}
END_TEST

/* Decode `w` (exact copy) and expect PD_ECORRUPT with a reason. */
static void expect_sample_corrupt(const bld *w, const pd_attr *a, const char *what)
{
	uint8_t *p = exact(w);
	pd_sample s;
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_sample_decode(&s, p, w->n, a, w->be, NULL, &perr), PD_ECORRUPT);
	ck_assert_msg(strstr(perr.message, what) != NULL, "reason \"%s\" lacks \"%s\"", perr.message, what);
	free(p);
}

START_TEST(test_sample_malformed)
{
	for (int be = 0; be < 2; be++) {
		bld w = { .be = be };
		pd_attr a = { 0 };
		pd_error perr = { 0 };
		pd_sample s;

		a.sample_type = PD_SAMPLE_IP | PD_SAMPLE_CALLCHAIN;
		static const uint64_t huge[] = { 1ull << 60, 1ull << 61, UINT64_MAX, 3 };
		for (size_t i = 0; i < 4; i++) {
			header(&w, PD_RECORD_SAMPLE, 0);
			put64(&w, 1);
			put64(&w, huge[i]); /* nr*8 would wrap for the first three */
			put64(&w, 0x10); put64(&w, 0x20);
			finish(&w);
			expect_sample_corrupt(&w, &a, "CALLCHAIN");
		}

		a.sample_type = PD_SAMPLE_BRANCH_STACK;
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 0x0aaaaaaaaaaaaaab); /* * 24 wraps to a small number */
		put64(&w, 1); put64(&w, 2); put64(&w, 3);
		finish(&w);
		expect_sample_corrupt(&w, &a, "BRANCH_STACK");

		a.sample_type = PD_SAMPLE_RAW;
		header(&w, PD_RECORD_SAMPLE, 0);
		put32(&w, 0xfffffffc);
		put32(&w, 0);
		finish(&w);
		expect_sample_corrupt(&w, &a, "RAW");

		/* RAW whose size leaves the next field misaligned */
		a.sample_type = PD_SAMPLE_RAW | PD_SAMPLE_CGROUP;
		header(&w, PD_RECORD_SAMPLE, 0);
		put32(&w, 3);
		put8(&w, 1); put8(&w, 2); put8(&w, 3);
		put8(&w, 0); put64(&w, 0); put64(&w, 0);
		finish(&w);
		expect_sample_corrupt(&w, &a, "RAW");

		a.sample_type = PD_SAMPLE_STACK_USER;
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, UINT64_MAX - 3);
		put64(&w, 0);
		finish(&w);
		expect_sample_corrupt(&w, &a, "STACK_USER");
		/* size fits but dyn_size does not */
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 8);
		put64(&w, 0);
		finish(&w);
		expect_sample_corrupt(&w, &a, "STACK_USER");

		a.sample_type = PD_SAMPLE_AUX;
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 1ull << 62);
		put64(&w, 0);
		finish(&w);
		expect_sample_corrupt(&w, &a, "AUX");

		a.sample_type = PD_SAMPLE_READ;
		a.read_format = PD_FORMAT_GROUP | PD_FORMAT_ID;
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 1ull << 63); /* * 2 words wraps to 0 */
		put64(&w, 0); put64(&w, 0);
		finish(&w);
		expect_sample_corrupt(&w, &a, "READ");

		a.sample_type = PD_SAMPLE_REGS_USER;
		a.sample_regs_user = UINT64_MAX; /* 64 registers announced, 1 present */
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 2); put64(&w, 1);
		finish(&w);
		expect_sample_corrupt(&w, &a, "REGS_USER");

		/* smaller than a header */
		uint8_t tiny[4] = { 9, 0, 0, 0 };
		a.sample_type = PD_SAMPLE_IP;
		ck_assert_int_eq(pd_sample_decode(&s, tiny, sizeof tiny, &a, be, NULL, &perr), PD_ECORRUPT);
		ck_assert(perr.message[0] != '\0');
	}
}
END_TEST

/* ------------------------------------------------------------ kernel records */

#define TRAILER_TYPE                                                           \
	((uint64_t)PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID |             \
	 PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU | PD_SAMPLE_IDENTIFIER |          \
	 PD_SAMPLE_IP | PD_SAMPLE_PERIOD | PD_SAMPLE_CALLCHAIN)

static void put_trailer(bld *w)
{
	put32(w, 501); put32(w, 502);   /* TID */
	put64(w, 9000000001);           /* TIME */
	put64(w, 0x77);                 /* ID */
	put64(w, 0x78);                 /* STREAM_ID */
	put32(w, 6); put32(w, 0xffff);  /* CPU, res */
	put64(w, 0x77);                 /* IDENTIFIER */
}

static void check_trailer(const pd_sample_id *sid)
{
	ck_assert_uint_eq(sid->present, PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID |
						PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU |
						PD_SAMPLE_IDENTIFIER);
	ck_assert_uint_eq(sid->pid, 501);
	ck_assert_uint_eq(sid->tid, 502);
	ck_assert_uint_eq(sid->time, 9000000001);
	ck_assert_uint_eq(sid->id, 0x77);
	ck_assert_uint_eq(sid->stream_id, 0x78);
	ck_assert_uint_eq(sid->cpu, 6);
}

typedef struct kcase {
	const char *name;
	void (*build)(bld *w);     /* header + body, no trailer, no finish */
	void (*check)(const pd_record *r);
} kcase;

static void b_mmap(bld *w)
{
	header(w, PD_RECORD_MMAP, PD_CPUMODE_KERNEL);
	put32(w, (uint32_t)-1); put32(w, 0);
	put64(w, 0xffffffff81000000); put64(w, 0x120bb08); put64(w, 0xffffffff81000000);
	put_str(w, "[kernel.kallsyms]_text");
}
static void c_mmap(const pd_record *r)
{
	ck_assert_uint_eq(r->u.mmap.pid, UINT32_MAX);
	ck_assert_uint_eq(r->u.mmap.tid, 0);
	ck_assert_uint_eq(r->u.mmap.addr, 0xffffffff81000000);
	ck_assert_uint_eq(r->u.mmap.len, 0x120bb08);
	ck_assert_uint_eq(r->u.mmap.pgoff, 0xffffffff81000000);
	ck_assert_str_eq(r->u.mmap.filename, "[kernel.kallsyms]_text");
	ck_assert_uint_eq(r->u.mmap.build_id_size, 0);
}

static void b_mmap2_ino(bld *w)
{
	header(w, PD_RECORD_MMAP2, PD_CPUMODE_USER);
	put32(w, 1234); put32(w, 1235);
	put64(w, 0x7f0000001000); put64(w, 0x2000); put64(w, 0x1000);
	put32(w, 8); put32(w, 3);                 /* maj, min */
	put64(w, 0x112233); put64(w, 0x44);       /* ino, ino_generation */
	put32(w, 5); put32(w, 2);                 /* prot, flags */
	put_str(w, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}
static void c_mmap2_ino(const pd_record *r)
{
	const pd_mmap *m = &r->u.mmap;
	ck_assert_uint_eq(m->pid, 1234);
	ck_assert_uint_eq(m->tid, 1235);
	ck_assert_uint_eq(m->addr, 0x7f0000001000);
	ck_assert_uint_eq(m->len, 0x2000);
	ck_assert_uint_eq(m->pgoff, 0x1000);
	ck_assert_uint_eq(m->maj, 8);
	ck_assert_uint_eq(m->min, 3);
	ck_assert_uint_eq(m->ino, 0x112233);
	ck_assert_uint_eq(m->ino_generation, 0x44);
	ck_assert_uint_eq(m->prot, 5);
	ck_assert_uint_eq(m->flags, 2);
	ck_assert_uint_eq(m->build_id_size, 0);
	ck_assert_str_eq(m->filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

/*
 * MMAP2 in its first layout (Linux 3.12-3.15, vendor 3.10 kernels such as
 * RHEL 7): no prot and flags, the filename at 64 right after
 * ino_generation (uapi perf_event.h of v3.12 against v3.16).
 */
static void b_mmap2_v312(bld *w)
{
	header(w, PD_RECORD_MMAP2, PD_CPUMODE_USER);
	put32(w, 4321); put32(w, 4322);
	put64(w, 0x7f1234560000); put64(w, 0x1c3000); put64(w, 0);
	put32(w, 253); put32(w, 1);               /* maj, min */
	put64(w, 0x60a1b2); put64(w, 0x9e);       /* ino, ino_generation */
	put_str(w, "/usr/lib64/libc-2.17.so");
}
static void c_mmap2_v312(const pd_record *r)
{
	const pd_mmap *m = &r->u.mmap;
	ck_assert_uint_eq(m->pid, 4321);
	ck_assert_uint_eq(m->tid, 4322);
	ck_assert_uint_eq(m->addr, 0x7f1234560000);
	ck_assert_uint_eq(m->len, 0x1c3000);
	ck_assert_uint_eq(m->pgoff, 0);
	ck_assert_uint_eq(m->maj, 253);
	ck_assert_uint_eq(m->min, 1);
	ck_assert_uint_eq(m->ino, 0x60a1b2);
	ck_assert_uint_eq(m->ino_generation, 0x9e);
	ck_assert_uint_eq(m->prot, 5); /* PROT_READ | PROT_EXEC: not MMAP_DATA */
	ck_assert_uint_eq(m->flags, 0);
	ck_assert_uint_eq(m->build_id_size, 0);
	ck_assert_str_eq(m->filename, "/usr/lib64/libc-2.17.so");
}

/* A name of under 8 bytes: 72 bytes before the trailer, too few for the
 * current layout, which needs 72 plus a padded NUL. */
static void b_mmap2_v312_short(bld *w)
{
	header(w, PD_RECORD_MMAP2, PD_CPUMODE_USER);
	put32(w, 4321); put32(w, 4321);
	put64(w, 0x7ffff7ffd000); put64(w, 0x2000); put64(w, 0);
	put32(w, 0); put32(w, 0);
	put64(w, 0); put64(w, 0);
	put_str(w, "[vdso]");
}
static void c_mmap2_v312_short(const pd_record *r)
{
	const pd_mmap *m = &r->u.mmap;
	ck_assert_uint_eq(m->addr, 0x7ffff7ffd000);
	ck_assert_uint_eq(m->len, 0x2000);
	ck_assert_uint_eq(m->prot, 5);
	ck_assert_str_eq(m->filename, "[vdso]");
}

/* A data mapping (MMAP_DATA): readable, not executable. */
static void b_mmap2_v312_data(bld *w)
{
	header(w, PD_RECORD_MMAP2, PD_CPUMODE_USER | PD_MISC_MMAP_DATA);
	put32(w, 99); put32(w, 100);
	put64(w, 0x601000); put64(w, 0x1000); put64(w, 0x1000);
	put32(w, 8); put32(w, 2);
	put64(w, 0x1234); put64(w, 7);
	put_str(w, "/tmp/data.bin");
}
static void c_mmap2_v312_data(const pd_record *r)
{
	const pd_mmap *m = &r->u.mmap;
	ck_assert_uint_eq(m->pid, 99);
	ck_assert_uint_eq(m->pgoff, 0x1000);
	ck_assert_uint_eq(m->maj, 8);
	ck_assert_uint_eq(m->min, 2);
	ck_assert_uint_eq(m->ino, 0x1234);
	ck_assert_uint_eq(m->ino_generation, 7);
	ck_assert_uint_eq(m->prot, 1);
	ck_assert_uint_eq(m->flags, 0);
	ck_assert_str_eq(m->filename, "/tmp/data.bin");
}

/* An empty name: the smallest first-layout record. */
static void b_mmap2_v312_empty(bld *w)
{
	header(w, PD_RECORD_MMAP2, PD_CPUMODE_USER);
	put32(w, 5); put32(w, 6);
	put64(w, 0x10000); put64(w, 0x1000); put64(w, 0);
	put32(w, 1); put32(w, 2); put64(w, 3); put64(w, 4);
	put_str(w, "");
}
static void c_mmap2_v312_empty(const pd_record *r)
{
	const pd_mmap *m = &r->u.mmap;
	ck_assert_uint_eq(m->ino, 3);
	ck_assert_uint_eq(m->ino_generation, 4);
	ck_assert_str_eq(m->filename, "");
}

/* The current layout with prot 0 (perf tools that did not fill it) and a
 * short name: the smallest current-layout record stays current. */
static void b_mmap2_prot0(bld *w)
{
	header(w, PD_RECORD_MMAP2, PD_CPUMODE_USER);
	put32(w, 7); put32(w, 7);
	put64(w, 0x400000); put64(w, 0x1000); put64(w, 0);
	put32(w, 8); put32(w, 1); put64(w, 42); put64(w, 0);
	put32(w, 0); put32(w, 0);
	put_str(w, "/a");
}
static void c_mmap2_prot0(const pd_record *r)
{
	const pd_mmap *m = &r->u.mmap;
	ck_assert_uint_eq(m->ino, 42);
	ck_assert_uint_eq(m->prot, 0);
	ck_assert_uint_eq(m->flags, 0);
	ck_assert_str_eq(m->filename, "/a");
}

static const uint8_t BUILD_ID[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
				      7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void b_mmap2_bid(bld *w)
{
	header(w, PD_RECORD_MMAP2, PD_CPUMODE_USER | PD_MISC_MMAP_BUILD_ID);
	put32(w, 77); put32(w, 78);
	put64(w, 0x400000); put64(w, 0x3000); put64(w, 0);
	put8(w, 16); put8(w, 0); put16(w, 0);     /* build_id_size, reserved */
	put_bytes(w, BUILD_ID, 20);
	put32(w, 5); put32(w, 0x1002);
	put_str(w, "/bin/true");
}
static void c_mmap2_bid(const pd_record *r)
{
	const pd_mmap *m = &r->u.mmap;
	ck_assert_uint_eq(m->pid, 77);
	ck_assert_uint_eq(m->addr, 0x400000);
	ck_assert_uint_eq(m->build_id_size, 16);
	ck_assert_mem_eq(m->build_id, BUILD_ID, 16);
	ck_assert_uint_eq(m->maj, 0);
	ck_assert_uint_eq(m->ino, 0);
	ck_assert_uint_eq(m->prot, 5);
	ck_assert_uint_eq(m->flags, 0x1002);
	ck_assert_str_eq(m->filename, "/bin/true");
}

static void b_comm(bld *w)
{
	header(w, PD_RECORD_COMM, PD_MISC_COMM_EXEC);
	put32(w, 300); put32(w, 301);
	put_str(w, "a-command"); /* 9 chars + NUL: padded to 16 */
}
static void c_comm(const pd_record *r)
{
	ck_assert_uint_eq(r->u.comm.pid, 300);
	ck_assert_uint_eq(r->u.comm.tid, 301);
	ck_assert(r->u.comm.exec);
	ck_assert_str_eq(r->u.comm.comm, "a-command");
}

static void b_comm8(bld *w)
{
	header(w, PD_RECORD_COMM, 0);
	put32(w, 1); put32(w, 1);
	put_str(w, "sevench"); /* exactly 8 with its NUL */
}
static void c_comm8(const pd_record *r)
{
	ck_assert(!r->u.comm.exec);
	ck_assert_str_eq(r->u.comm.comm, "sevench");
}

static void b_fork(bld *w)
{
	header(w, PD_RECORD_FORK, 0);
	put32(w, 10); put32(w, 9); put32(w, 11); put32(w, 9);
	put64(w, 555);
}
static void b_exit(bld *w)
{
	b_fork(w);
	w->b[0] = w->be ? 0 : PD_RECORD_EXIT;
	w->b[3] = w->be ? PD_RECORD_EXIT : 0;
}
static void c_task(const pd_record *r)
{
	ck_assert_uint_eq(r->u.task.pid, 10);
	ck_assert_uint_eq(r->u.task.ppid, 9);
	ck_assert_uint_eq(r->u.task.tid, 11);
	ck_assert_uint_eq(r->u.task.ptid, 9);
	ck_assert_uint_eq(r->u.task.time, 555);
}

static void b_lost(bld *w)
{
	header(w, PD_RECORD_LOST, 0);
	put64(w, 0x1d); put64(w, 1234567);
}
static void c_lost(const pd_record *r)
{
	ck_assert_uint_eq(r->u.lost.id, 0x1d);
	ck_assert_uint_eq(r->u.lost.lost, 1234567);
}

static void b_lost_samples(bld *w)
{
	header(w, PD_RECORD_LOST_SAMPLES, 0);
	put64(w, 42);
}
static void c_lost_samples(const pd_record *r)
{
	ck_assert_uint_eq(r->u.lost.lost, 42);
	ck_assert_uint_eq(r->u.lost.id, 0);
}

static void b_throttle(bld *w)
{
	header(w, PD_RECORD_THROTTLE, 0);
	put64(w, 7777); put64(w, 0x21); put64(w, 0x22);
}
static void b_unthrottle(bld *w)
{
	header(w, PD_RECORD_UNTHROTTLE, 0);
	put64(w, 7777); put64(w, 0x21); put64(w, 0x22);
}
static void c_throttle(const pd_record *r)
{
	ck_assert_uint_eq(r->u.throttle.time, 7777);
	ck_assert_uint_eq(r->u.throttle.id, 0x21);
	ck_assert_uint_eq(r->u.throttle.stream_id, 0x22);
}

static void b_aux(bld *w)
{
	header(w, PD_RECORD_AUX, 0);
	put64(w, 0x10000); put64(w, 0x800); put64(w, 1);
}
static void c_aux(const pd_record *r)
{
	ck_assert_uint_eq(r->u.aux.aux_offset, 0x10000);
	ck_assert_uint_eq(r->u.aux.aux_size, 0x800);
	ck_assert_uint_eq(r->u.aux.flags, 1);
}

static void b_itrace(bld *w)
{
	header(w, PD_RECORD_ITRACE_START, 0);
	put32(w, 61); put32(w, 62);
}
static void c_itrace(const pd_record *r)
{
	ck_assert_uint_eq(r->u.itrace_start.pid, 61);
	ck_assert_uint_eq(r->u.itrace_start.tid, 62);
}

static void b_switch(bld *w)
{
	header(w, PD_RECORD_SWITCH, PD_MISC_SWITCH_OUT | PD_MISC_SWITCH_OUT_PREEMPT);
}
static void c_switch(const pd_record *r)
{
	ck_assert(r->u.sw.out);
	ck_assert(r->u.sw.preempt);
	ck_assert_uint_eq(r->u.sw.next_prev_pid, 0);
}

static void b_switch_cpu(bld *w)
{
	header(w, PD_RECORD_SWITCH_CPU_WIDE, 0);
	put32(w, 91); put32(w, 92);
}
static void c_switch_cpu(const pd_record *r)
{
	ck_assert(!r->u.sw.out);
	ck_assert(!r->u.sw.preempt);
	ck_assert_uint_eq(r->u.sw.next_prev_pid, 91);
	ck_assert_uint_eq(r->u.sw.next_prev_tid, 92);
}

static void b_namespaces(bld *w)
{
	header(w, PD_RECORD_NAMESPACES, 0);
	put32(w, 40); put32(w, 41);
	put64(w, 3);
	for (uint64_t i = 0; i < 3; i++) {
		put64(w, 0x100 + i);
		put64(w, 0xf0000000 + i);
	}
}
static void c_namespaces(const pd_record *r)
{
	ck_assert_uint_eq(r->u.namespaces.pid, 40);
	ck_assert_uint_eq(r->u.namespaces.tid, 41);
	ck_assert_uint_eq(r->u.namespaces.nr, 3);
	for (uint64_t i = 0; i < 3; i++) {
		ck_assert_uint_eq(r->u.namespaces.dev_ino[2 * i], 0x100 + i);
		ck_assert_uint_eq(r->u.namespaces.dev_ino[2 * i + 1], 0xf0000000 + i);
	}
}

static void b_ksymbol(bld *w)
{
	header(w, PD_RECORD_KSYMBOL, 0);
	put64(w, 0xffffffffc0001000); put32(w, 0x1a0); put16(w, 1); put16(w, 1);
	put_str(w, "bpf_prog_6deef7357e7b4530_sd_fw_egress");
}
static void c_ksymbol(const pd_record *r)
{
	ck_assert_uint_eq(r->u.ksymbol.addr, 0xffffffffc0001000);
	ck_assert_uint_eq(r->u.ksymbol.len, 0x1a0);
	ck_assert_uint_eq(r->u.ksymbol.ksym_type, 1);
	ck_assert_uint_eq(r->u.ksymbol.flags, 1);
	ck_assert_str_eq(r->u.ksymbol.name, "bpf_prog_6deef7357e7b4530_sd_fw_egress");
}

static const uint8_t TAG[8] = { 0x6d, 0xee, 0xf7, 0x35, 0x7e, 0x7b, 0x45, 0x30 };

static void b_bpf(bld *w)
{
	header(w, PD_RECORD_BPF_EVENT, 0);
	put16(w, 2); put16(w, 0x10); put32(w, 0x456);
	put_bytes(w, TAG, 8);
}
static void c_bpf(const pd_record *r)
{
	ck_assert_uint_eq(r->u.bpf_event.type, 2);
	ck_assert_uint_eq(r->u.bpf_event.flags, 0x10);
	ck_assert_uint_eq(r->u.bpf_event.id, 0x456);
	ck_assert_mem_eq(r->u.bpf_event.tag, TAG, 8);
}

static void b_cgroup(bld *w)
{
	header(w, PD_RECORD_CGROUP, 0);
	put64(w, 0x1122);
	put_str(w, "/system.slice/foo.service");
}
static void c_cgroup(const pd_record *r)
{
	ck_assert_uint_eq(r->u.cgroup.id, 0x1122);
	ck_assert_str_eq(r->u.cgroup.path, "/system.slice/foo.service");
}

/* Records not exposed in rec->u: only the trailer (and byte order). */
static void b_text_poke(bld *w)
{
	header(w, PD_RECORD_TEXT_POKE, 0);
	put64(w, 0xffffffff81001234); put16(w, 2); put16(w, 2);
	put8(w, 0x90); put8(w, 0x90); put8(w, 0xeb); put8(w, 0xfe);
}
static void c_text_poke(const pd_record *r)
{
	const uint8_t *d = r->data;
	ck_assert_uint_eq(rd64le(d + 8), 0xffffffff81001234);
	ck_assert_uint_eq(d[16] | d[17] << 8, 2);
	ck_assert_uint_eq(d[20], 0x90);
	ck_assert_uint_eq(d[23], 0xfe);
}

static void b_read(bld *w)
{
	header(w, PD_RECORD_READ, 0);
	put32(w, 8); put32(w, 9);
	put64(w, 12345);
}
static void c_read(const pd_record *r)
{
	const uint8_t *d = r->data;
	ck_assert_uint_eq(d[8], 8);
	ck_assert_uint_eq(d[12], 9);
	ck_assert_uint_eq(rd64le(d + 16), 12345);
}

static void b_unknown(bld *w)
{
	header(w, 40, 0);
	put64(w, 0xabcdef);
}
static void c_unknown(const pd_record *r)
{
	const uint8_t *d = r->data;
	/* Unknown layout: bytes left as they are. */
	uint64_t v = rd64le(d + 8);
	ck_assert(v == 0xabcdef || v == __builtin_bswap64(0xabcdef));
}

static const kcase KCASES[] = {
	{ "MMAP", b_mmap, c_mmap },
	{ "MMAP2 inode", b_mmap2_ino, c_mmap2_ino },
	{ "MMAP2 build-id", b_mmap2_bid, c_mmap2_bid },
	{ "MMAP2 3.12 layout", b_mmap2_v312, c_mmap2_v312 },
	{ "MMAP2 3.12 short name", b_mmap2_v312_short, c_mmap2_v312_short },
	{ "MMAP2 3.12 data map", b_mmap2_v312_data, c_mmap2_v312_data },
	{ "MMAP2 3.12 empty name", b_mmap2_v312_empty, c_mmap2_v312_empty },
	{ "MMAP2 prot 0", b_mmap2_prot0, c_mmap2_prot0 },
	{ "COMM", b_comm, c_comm },
	{ "COMM 8", b_comm8, c_comm8 },
	{ "FORK", b_fork, c_task },
	{ "EXIT", b_exit, c_task },
	{ "LOST", b_lost, c_lost },
	{ "LOST_SAMPLES", b_lost_samples, c_lost_samples },
	{ "THROTTLE", b_throttle, c_throttle },
	{ "UNTHROTTLE", b_unthrottle, c_throttle },
	{ "AUX", b_aux, c_aux },
	{ "ITRACE_START", b_itrace, c_itrace },
	{ "SWITCH", b_switch, c_switch },
	{ "SWITCH_CPU_WIDE", b_switch_cpu, c_switch_cpu },
	{ "NAMESPACES", b_namespaces, c_namespaces },
	{ "KSYMBOL", b_ksymbol, c_ksymbol },
	{ "BPF_EVENT", b_bpf, c_bpf },
	{ "CGROUP", b_cgroup, c_cgroup },
	{ "TEXT_POKE", b_text_poke, c_text_poke },
	{ "READ", b_read, c_read },
	{ "unknown", b_unknown, c_unknown },
};
#define NKCASES (sizeof KCASES / sizeof KCASES[0])

/* The header as the caller sets it: from the built bytes. */
static void rec_from(pd_record *r, const bld *w, const uint8_t *p)
{
	memset(r, 0xcc, sizeof *r);
	const uint8_t *b = w->b;
	r->type = w->be ? (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
			: (uint32_t)b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0];
	r->misc = w->be ? (uint16_t)(b[4] << 8 | b[5]) : (uint16_t)(b[5] << 8 | b[4]);
	r->size = (uint32_t)w->n;
	r->data = p;
	r->attr = 0;
}

START_TEST(test_kernel_records)
{
	int i = _i;
	const kcase *k = &KCASES[i];
	for (int be = 0; be < 2; be++) {
		for (int with_trailer = 0; with_trailer < 2; with_trailer++) {
			pd_attr a = { 0 };
			a.sample_type = TRAILER_TYPE;
			a.sample_id_all = with_trailer;
			bld w = { .be = be };
			k->build(&w);
			if (with_trailer)
				put_trailer(&w);
			finish(&w);
			uint8_t *p = exact(&w);
			pd_record r;
			rec_from(&r, &w, p);
			pd_error perr = { 0 };
			int rc = pd_record_decode(&r, p, w.n, &a, be, NULL, &perr);
			ck_assert_msg(rc == 0, "%s (be %d, trailer %d): %d %s", k->name, be,
				      with_trailer, rc, perr.message);
			if (with_trailer) {
				check_trailer(&r.sid);
			} else {
				ck_assert_uint_eq(r.sid.present, 0);
				ck_assert_uint_eq(r.sid.time, 0);
			}
			k->check(&r);
			/* NULL attr: no trailer is looked for. */
			if (!with_trailer && !be) {
				ck_assert_int_eq(pd_record_decode(&r, p, w.n, NULL, false, NULL, &perr), 0);
				k->check(&r);
			}
			free(p);
		}
	}
}
END_TEST

START_TEST(test_kernel_records_never_write_unswapped)
{
	for (size_t i = 0; i < NKCASES; i++) {
		pd_attr a = { 0 };
		a.sample_type = TRAILER_TYPE;
		a.sample_id_all = true;
		bld w = { .be = false };
		KCASES[i].build(&w);
		put_trailer(&w);
		finish(&w);
		uint8_t *p = exact(&w);
		pd_record r;
		rec_from(&r, &w, p);
		pd_error perr = { 0 };
		ck_assert_int_eq(pd_record_decode(&r, p, w.n, &a, false, NULL, &perr), 0);
		ck_assert_mem_eq(p, w.b, w.n);
		free(p);
	}
}
END_TEST

/* Every prefix of each record (trailer included) fails cleanly or, where
 * the cut still leaves a complete body, decodes; never reads past the end. */
START_TEST(test_kernel_records_truncated)
{
	for (size_t i = 0; i < NKCASES; i++) {
		pd_attr a = { 0 };
		a.sample_type = TRAILER_TYPE;
		a.sample_id_all = true;
		bld w = { .be = false };
		KCASES[i].build(&w);
		put_trailer(&w);
		finish(&w);
		for (size_t cut = 0; cut < w.n; cut++) {
			uint8_t *p = malloc(cut ? cut : 1);
			memcpy(p, w.b, cut);
			pd_record r;
			rec_from(&r, &w, p);
			pd_error perr = { 0 };
			int rc = pd_record_decode(&r, p, cut, &a, false, NULL, &perr);
			ck_assert_msg(rc == 0 || rc == PD_ECORRUPT, "%s cut %zu: %d",
				      KCASES[i].name, cut, rc);
			if (rc)
				ck_assert(perr.message[0] != '\0');
			/* Below header + trailer no known record decodes; an
			 * unknown type is only skipped, never corrupt. */
			bool known = pd_record_type_name(r.type) != NULL;
			if (cut < 8 + 48 && cut >= 8)
				ck_assert_int_eq(rc, known ? PD_ECORRUPT : 0);
			if (!known && cut >= 8 && cut < 8 + 48)
				ck_assert_uint_eq(r.sid.present, 0);
			free(p);
		}
	}
}
END_TEST

static void expect_record_corrupt(const bld *w, const pd_attr *a, const char *what)
{
	uint8_t *p = exact(w);
	pd_record r;
	rec_from(&r, w, p);
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_record_decode(&r, p, w->n, a, w->be, NULL, &perr), PD_ECORRUPT);
	ck_assert_msg(strstr(perr.message, what) != NULL, "reason \"%s\" lacks \"%s\"", perr.message, what);
	free(p);
}

START_TEST(test_kernel_records_malformed)
{
	for (int be = 0; be < 2; be++) {
		bld w = { .be = be };
		pd_attr none = { 0 };
		pd_attr tr = { 0 };
		tr.sample_type = TRAILER_TYPE;
		tr.sample_id_all = true;

		/* filename filling the record with no NUL */
		header(&w, PD_RECORD_MMAP, 0);
		put32(&w, 1); put32(&w, 1);
		put64(&w, 0); put64(&w, 0); put64(&w, 0);
		put_bytes(&w, "abcdefgh", 8);
		finish(&w);
		expect_record_corrupt(&w, &none, "NUL");

		/* NUL only inside the trailer: the string must end before it */
		header(&w, PD_RECORD_COMM, 0);
		put32(&w, 1); put32(&w, 1);
		put_bytes(&w, "abcdefgh", 8);
		put_trailer(&w); /* its pid/tid words contain zero bytes */
		finish(&w);
		expect_record_corrupt(&w, &tr, "NUL");

		/* KSYMBOL name unterminated */
		header(&w, PD_RECORD_KSYMBOL, 0);
		put64(&w, 1); put32(&w, 1); put16(&w, 1); put16(&w, 0);
		put_bytes(&w, "bpf_prog", 8);
		finish(&w);
		expect_record_corrupt(&w, &none, "NUL");

		/* CGROUP with no room for its path */
		header(&w, PD_RECORD_CGROUP, 0);
		put64(&w, 1);
		finish(&w);
		expect_record_corrupt(&w, &none, "path");

		/* MMAP2 too short for its fixed part */
		header(&w, PD_RECORD_MMAP2, 0);
		put32(&w, 1); put32(&w, 1); put64(&w, 0);
		finish(&w);
		expect_record_corrupt(&w, &none, "too short");

		/* MMAP2 build-id size over 20 */
		header(&w, PD_RECORD_MMAP2, PD_MISC_MMAP_BUILD_ID);
		put32(&w, 1); put32(&w, 1);
		put64(&w, 0); put64(&w, 0); put64(&w, 0);
		put8(&w, 21); put8(&w, 0); put16(&w, 0); put_bytes(&w, BUILD_ID, 20);
		put32(&w, 0); put32(&w, 0);
		put_str(&w, "x");
		finish(&w);
		expect_record_corrupt(&w, &none, "build-id");

		/* NAMESPACES nr larger than the record (and nr*16 wraps) */
		header(&w, PD_RECORD_NAMESPACES, 0);
		put32(&w, 1); put32(&w, 1);
		put64(&w, 1ull << 60);
		put64(&w, 1); put64(&w, 2);
		finish(&w);
		expect_record_corrupt(&w, &none, "nr");

		/* trailer larger than the record */
		header(&w, PD_RECORD_LOST_SAMPLES, 0);
		put64(&w, 1);
		put64(&w, 2);
		finish(&w);
		expect_record_corrupt(&w, &tr, "trailer");

		/* body too short once the trailer is taken off */
		header(&w, PD_RECORD_FORK, 0);
		put32(&w, 1); put32(&w, 1); put32(&w, 1); put32(&w, 1);
		put_trailer(&w);
		finish(&w);
		expect_record_corrupt(&w, &tr, "too short");

		/* not a kernel record */
		uint8_t hdr[8] = { 0 };
		pd_record r = { 0 };
		pd_error perr = { 0 };
		r.type = PD_RECORD_SAMPLE;
		ck_assert_int_eq(pd_record_decode(&r, hdr, 8, NULL, false, NULL, &perr), PD_EINVAL);
		r.type = PD_RECORD_FINISHED_ROUND;
		ck_assert_int_eq(pd_record_decode(&r, hdr, 8, NULL, false, NULL, &perr), PD_EINVAL);
		r.type = PD_RECORD_LOST;
		ck_assert_int_eq(pd_record_decode(&r, hdr, 4, NULL, false, NULL, &perr), PD_ECORRUPT);
		/* unknown types (0 included) are skipped, even without room
		 * for a trailer */
		r.type = 0;
		ck_assert_int_eq(pd_record_decode(&r, hdr, 8, &tr, false, NULL, &perr), 0);
		ck_assert_uint_eq(r.sid.present, 0);
		r.type = 50;
		ck_assert_int_eq(pd_record_decode(&r, hdr, 8, &tr, false, NULL, &perr), 0);
	}
}
END_TEST

/* Trailers with a subset of fields: read from the end, in §8 order. */
START_TEST(test_trailer_subsets)
{
	for (int be = 0; be < 2; be++) {
		pd_attr a = { 0 };
		a.sample_type = PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_CPU |
				PD_SAMPLE_PERIOD;
		a.sample_id_all = true;
		bld w = { .be = be };
		header(&w, PD_RECORD_COMM, 0);
		put32(&w, 5); put32(&w, 6);
		put_str(&w, "0123456789abcdef01234"); /* 22 with NUL → 24 */
		put32(&w, 5); put32(&w, 6);
		put64(&w, 31337);
		put32(&w, 2); put32(&w, 0);
		finish(&w);
		uint8_t *p = exact(&w);
		pd_record r;
		rec_from(&r, &w, p);
		pd_error perr = { 0 };
		ck_assert_int_eq(pd_record_decode(&r, p, w.n, &a, be, NULL, &perr), 0);
		ck_assert_uint_eq(r.sid.present, PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_CPU);
		ck_assert_uint_eq(r.sid.pid, 5);
		ck_assert_uint_eq(r.sid.tid, 6);
		ck_assert_uint_eq(r.sid.time, 31337);
		ck_assert_uint_eq(r.sid.cpu, 2);
		ck_assert_uint_eq(r.sid.id, 0);
		ck_assert_str_eq(r.u.comm.comm, "0123456789abcdef01234");
		free(p);
	}
}
END_TEST

/* Bytes a ring buffer left behind: never a trailer value checked here. */
static void put_stale(bld *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(w, 0xe0 + i % 16);
}

/*
 * A KSYMBOL or BPF_EVENT whose size overstates body + trailer by `extra`
 * bytes (some kernels add the trailer's length once per event they send it
 * to): the trailer is the one after the body, the id peek finds the same
 * id, decoding says 1.  With extra 0 nothing changes.
 */
START_TEST(test_sideband_oversized)
{
	static const kcase cases[] = {
		{ "KSYMBOL", b_ksymbol, c_ksymbol },
		{ "BPF_EVENT", b_bpf, c_bpf },
	};
	static const size_t extras[] = { 0, 8, 48, 96 };
	pd_attr a = { 0 };
	a.sample_type = TRAILER_TYPE;
	a.sample_id_all = true;
	const size_t tlen = 48;
	ck_assert_uint_eq(pd_trailer_size(a.sample_type), tlen);
	for (int be = 0; be < 2; be++)
		for (size_t c = 0; c < 2; c++)
			for (size_t x = 0; x < 4; x++) {
				bld w = { .be = be };
				cases[c].build(&w);
				size_t body = w.n;
				put_trailer(&w);
				put_stale(&w, extras[x]);
				finish(&w);
				uint8_t *p = exact(&w);
				uint32_t type = c ? PD_RECORD_BPF_EVENT : PD_RECORD_KSYMBOL;
				ck_assert_uint_eq(pd_record_id_end(p, w.n, type, tlen), body + tlen);
				uint64_t id = 0;
				/* IDENTIFIER (is_pos 1) and ID (4 words from the end) */
				ck_assert(pd_record_peek_id(p, w.n, type, -1, 1, tlen, be, &id));
				ck_assert_uint_eq(id, 0x77);
				ck_assert(pd_record_peek_id(p, w.n, type, -1, 4, tlen, be, &id));
				ck_assert_uint_eq(id, 0x77);
				pd_record r;
				rec_from(&r, &w, p);
				pd_error perr = { 0 };
				int rc = pd_record_decode(&r, p, w.n, &a, be, NULL, &perr);
				ck_assert_msg(rc == (extras[x] > 0), "%s be %d extra %zu: %d %s",
					      cases[c].name, be, extras[x], rc, perr.message);
				check_trailer(&r.sid);
				cases[c].check(&r);
				free(p);
			}
}
END_TEST

/* Other types, and side-band records too short for body + trailer, are
 * read from their end as before. */
START_TEST(test_sideband_oversized_limits)
{
	pd_attr a = { 0 };
	a.sample_type = TRAILER_TYPE;
	a.sample_id_all = true;
	for (int be = 0; be < 2; be++) {
		bld w = { .be = be };
		/* a COMM with stale bytes: the trailer is its last 48 bytes */
		header(&w, PD_RECORD_COMM, 0);
		put32(&w, 1); put32(&w, 2); put_str(&w, "x");
		put_stale(&w, 48);
		put_trailer(&w);
		finish(&w);
		uint8_t *p = exact(&w);
		ck_assert_uint_eq(pd_record_id_end(p, w.n, PD_RECORD_COMM, 48), w.n);
		pd_record r;
		rec_from(&r, &w, p);
		pd_error perr = { 0 };
		ck_assert_int_eq(pd_record_decode(&r, p, w.n, &a, be, NULL, &perr), 0);
		check_trailer(&r.sid);
		free(p);

		/* a KSYMBOL with no room for its name */
		header(&w, PD_RECORD_KSYMBOL, 0);
		put64(&w, 1); put32(&w, 1); put16(&w, 1); put16(&w, 0);
		put_trailer(&w);
		finish(&w);
		p = exact(&w);
		ck_assert_uint_eq(pd_record_id_end(p, w.n, PD_RECORD_KSYMBOL, 48), w.n);
		free(p);
		expect_record_corrupt(&w, &a, "name");

		/* a BPF_EVENT one word short */
		header(&w, PD_RECORD_BPF_EVENT, 0);
		put16(&w, 1); put16(&w, 0); put32(&w, 7);
		put_trailer(&w);
		finish(&w);
		p = exact(&w);
		ck_assert_uint_eq(pd_record_id_end(p, w.n, PD_RECORD_BPF_EVENT, 48), w.n);
		free(p);
		expect_record_corrupt(&w, &a, "too short");

		/* no trailer (tlen 0): nothing to find, the size stands */
		b_bpf(&w);
		put_stale(&w, 16);
		finish(&w);
		p = exact(&w);
		ck_assert_uint_eq(pd_record_id_end(p, w.n, PD_RECORD_BPF_EVENT, 0), w.n);
		free(p);
	}
}
END_TEST

/* ------------------------------------------------------------ tool records */

START_TEST(test_tool_records)
{
	for (int be = 0; be < 2; be++) {
		bld w = { .be = be };
		pd_record r;
		pd_error perr = { 0 };
		uint8_t *p;

		header(&w, PD_RECORD_AUXTRACE, 0);
		put64(&w, 0x10000); put64(&w, 0x2000); put64(&w, 0xfeedface12345678);
		put32(&w, 3); put32(&w, 4444); put32(&w, 7); put32(&w, 0);
		finish(&w);
		p = exact(&w);
		rec_from(&r, &w, p);
		ck_assert_int_eq(pd_tool_record_decode(&r, p, w.n, be, &perr), 0);
		ck_assert_uint_eq(r.u.auxtrace.size, 0x10000);
		ck_assert_uint_eq(r.u.auxtrace.offset, 0x2000);
		ck_assert_uint_eq(r.u.auxtrace.reference, 0xfeedface12345678);
		ck_assert_uint_eq(r.u.auxtrace.idx, 3);
		ck_assert_uint_eq(r.u.auxtrace.tid, 4444);
		ck_assert_uint_eq(r.u.auxtrace.cpu, 7);
		ck_assert_int_eq(pd_tool_record_decode(&r, p, 40, be, &perr), PD_ECORRUPT);
		ck_assert(perr.message[0] != '\0');
		free(p);

		header(&w, PD_RECORD_HEADER_FEATURE, 0);
		put64(&w, PD_FEAT_HOSTNAME);
		put32(&w, 8); put_bytes(&w, "host\0\0\0\0", 8); put32(&w, 0);
		finish(&w);
		p = exact(&w);
		rec_from(&r, &w, p);
		ck_assert_int_eq(pd_tool_record_decode(&r, p, w.n, be, &perr), 0);
		ck_assert_uint_eq(r.u.feature.feature, PD_FEAT_HOSTNAME);
		/* the payload is the feature parser's: left as it was */
		ck_assert_uint_eq(p[16], be ? 0 : 8);
		free(p);

		header(&w, PD_RECORD_COMPRESSED2, 0);
		put64(&w, 13);
		put_bytes(&w, "0123456789abc\0\0\0", 16);
		finish(&w);
		p = exact(&w);
		rec_from(&r, &w, p);
		ck_assert_int_eq(pd_tool_record_decode(&r, p, w.n, be, &perr), 0);
		ck_assert_uint_eq(r.u.compressed.data_size, 13);
		ck_assert_int_eq(pd_tool_record_decode(&r, p, 12, be, &perr), PD_ECORRUPT);
		free(p);

		header(&w, PD_RECORD_COMPRESSED, 0);
		put_bytes(&w, "zstdzstdzstd\0\0\0\0", 16);
		finish(&w);
		p = exact(&w);
		rec_from(&r, &w, p);
		ck_assert_int_eq(pd_tool_record_decode(&r, p, w.n, be, &perr), 0);
		ck_assert_uint_eq(r.u.compressed.data_size, 16);
		free(p);

		/* Records without a fixed layout here: untouched, success. */
		header(&w, PD_RECORD_FINISHED_ROUND, 0);
		finish(&w);
		p = exact(&w);
		rec_from(&r, &w, p);
		ck_assert_int_eq(pd_tool_record_decode(&r, p, w.n, be, &perr), 0);
		ck_assert_mem_eq(p, w.b, w.n);
		free(p);
	}
}
END_TEST

/* ------------------------------------------------------------ id peeking */

START_TEST(test_peek_id)
{
	for (int be = 0; be < 2; be++) {
		bld w = { .be = be };
		uint64_t id = 0;
		/* SAMPLE IP|TID|TIME|ID|PERIOD: id at u64 index 3 */
		header(&w, PD_RECORD_SAMPLE, 0);
		put64(&w, 0x401000); put32(&w, 1); put32(&w, 2); put64(&w, 100);
		put64(&w, 0xabc); put64(&w, 1);
		finish(&w);
		uint8_t *p = exact(&w);
		ck_assert(pd_record_peek_id(p, w.n, PD_RECORD_SAMPLE, 3, 1, 0, be, &id));
		ck_assert_uint_eq(id, 0xabc);
		ck_assert(pd_record_peek_id(p, w.n, PD_RECORD_SAMPLE, 0, 1, 0, be, &id));
		ck_assert_uint_eq(id, 0x401000);
		ck_assert(!pd_record_peek_id(p, w.n, PD_RECORD_SAMPLE, -1, 1, 0, be, &id));
		ck_assert(!pd_record_peek_id(p, w.n, PD_RECORD_SAMPLE, 5, 1, 0, be, &id));
		ck_assert(pd_record_peek_id(p, w.n, PD_RECORD_SAMPLE, 4, 1, 0, be, &id));
		ck_assert_uint_eq(id, 1);
		ck_assert_mem_eq(p, w.b, w.n);
		free(p);

		/* COMM with trailer TID|TIME|ID|CPU: is_pos = 1 + CPU = 2 */
		header(&w, PD_RECORD_COMM, 0);
		put32(&w, 1); put32(&w, 1); put_str(&w, "x");
		put32(&w, 1); put32(&w, 1); put64(&w, 5); put64(&w, 0xdef); put32(&w, 0); put32(&w, 0);
		finish(&w);
		p = exact(&w);
		ck_assert(pd_record_peek_id(p, w.n, PD_RECORD_COMM, 3, 2, 32, be, &id));
		ck_assert_uint_eq(id, 0xdef);
		ck_assert(!pd_record_peek_id(p, w.n, PD_RECORD_COMM, 3, -1, 32, be, &id));
		ck_assert(pd_record_peek_id(p, w.n, PD_RECORD_COMM, 3, 6, 32, be, &id)); /* first body word */
		ck_assert(!pd_record_peek_id(p, w.n, PD_RECORD_COMM, 3, 7, 32, be, &id)); /* the header */
		ck_assert(!pd_record_peek_id(p, w.n, PD_RECORD_FINISHED_ROUND, 0, 1, 32, be, &id));
		ck_assert(!pd_record_peek_id(p, 4, PD_RECORD_COMM, 0, 1, 32, be, &id));
		ck_assert_mem_eq(p, w.b, w.n);
		free(p);
	}
}
END_TEST

/* ------------------------------------------------------------ names */

START_TEST(test_names)
{
	ck_assert_str_eq(pd_record_type_name(PD_RECORD_MMAP), "MMAP");
	ck_assert_str_eq(pd_record_type_name(PD_RECORD_SAMPLE), "SAMPLE");
	ck_assert_str_eq(pd_record_type_name(PD_RECORD_CALLCHAIN_DEFERRED), "CALLCHAIN_DEFERRED");
	ck_assert_str_eq(pd_record_type_name(PD_RECORD_HEADER_ATTR), "HEADER_ATTR");
	ck_assert_str_eq(pd_record_type_name(PD_RECORD_FINISHED_ROUND), "FINISHED_ROUND");
	ck_assert_str_eq(pd_record_type_name(PD_RECORD_COMPRESSED2), "COMPRESSED2");
	ck_assert_str_eq(pd_record_type_name(PD_RECORD_SCHEDSTAT_DOMAIN), "SCHEDSTAT_DOMAIN");
	static const uint32_t unknown[] = { 0, 23, 63, 87, 128, 32769, 1701847131, UINT32_MAX };
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
		ck_assert_ptr_null(pd_record_type_name(unknown[i]));
	/* every known type has a distinct name */
	for (uint32_t t = 1; t <= 86; t++) {
		const char *n = pd_record_type_name(t);
		ck_assert_msg((n != NULL) == (t <= 22 || t >= 64), "type %u", t);
		for (uint32_t u = 1; n && u < t; u++) {
			const char *m = pd_record_type_name(u);
			ck_assert(!m || strcmp(m, n) != 0);
		}
	}
	ck_assert_str_eq(pd_feature_name(PD_FEAT_TRACING_DATA), "TRACING_DATA");
	ck_assert_str_eq(pd_feature_name(PD_FEAT_HOSTNAME), "HOSTNAME");
	ck_assert_str_eq(pd_feature_name(PD_FEAT_HYBRID_TOPOLOGY), "HYBRID_TOPOLOGY");
	ck_assert_str_eq(pd_feature_name(PD_FEAT_CPU_DOMAIN_INFO), "CPU_DOMAIN_INFO");
	ck_assert_ptr_null(pd_feature_name(0));
	ck_assert_ptr_null(pd_feature_name(33));
	ck_assert_ptr_null(pd_feature_name(128));
	for (unsigned f = 1; f <= 32; f++)
		ck_assert_ptr_nonnull(pd_feature_name(f));
}
END_TEST

static bool is_record_name(const char *s)
{
	for (uint32_t t = 1; t < 128; t++) {
		const char *n = pd_record_type_name(t);
		if (n && strcmp(n, s) == 0)
			return true;
	}
	return false;
}

static bool is_feature_name(const char *s)
{
	for (unsigned f = 1; f < 64; f++) {
		const char *n = pd_feature_name(f);
		if (n && strcmp(n, s) == 0)
			return true;
	}
	return false;
}

/* The corpus index was written by an independent walker with perf's names. */
START_TEST(test_names_match_corpus_index)
{
	char path[4096];
	if (!pd_test_corpus(path, sizeof path, "index.jsonl"))
		PD_SKIP("corpus not present");
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char line[65536];
	size_t rec_names = 0, feat_names = 0;
	while (fgets(line, sizeof line, f)) {
		json_error_t jerr;
		json_t *o = json_loads(line, 0, &jerr);
		ck_assert_msg(o != NULL, "index line: %s", jerr.text);
		const char *key;
		json_t *v, *recs = json_object_get(o, "records");
		ck_assert_ptr_nonnull(recs);
		json_object_foreach(recs, key, v) {
			/* (the iteration needs `key` itself unchanged) */
			const char *name = strncmp(key, "z:", 2) == 0 ? key + 2 : key;
			if (strncmp(name, "type", 4) == 0)
				continue; /* unknown types are listed by number */
			ck_assert_msg(is_record_name(name), "record name %s", name);
			rec_names++;
		}
		size_t i;
		json_array_foreach(json_object_get(o, "features"), i, v) {
			ck_assert_msg(is_feature_name(json_string_value(v)), "feature %s",
				      json_string_value(v));
			feat_names++;
		}
		json_decref(o);
	}
	fclose(f);
	ck_assert_uint_gt(rec_names, 100);
	ck_assert_uint_gt(feat_names, 100);
}
END_TEST

/* ------------------------------------------------------------ real perf */

typedef struct tup {
	uint32_t pid, tid;
	uint64_t time, period, ip;
} tup;

static int cmp_tup(const void *a, const void *b)
{
	const tup *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return 0;
}

/*
 * A minimal file-mode walk (native byte order, no compression) using only
 * the decoders, compared with `perf script` on the same file.
 */
START_TEST(test_real_perf_samples)
{
	if (!pd_test_have_perf())
		PD_SKIP("perf not available");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char cmd[8192], file[4096];
	snprintf(file, sizeof file, "%s/perf.data", dir);
	int st;
	snprintf(cmd, sizeof cmd,
		 "perf record -q -N -e cpu-clock -c 100000 -g -o %s -- "
		 "sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' "
		 ">/dev/null 2>&1", file);
	free(pd_test_run(cmd, &st));
	if (st != 0) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf record failed (status %d)", st);
	}
	snprintf(cmd, sizeof cmd,
		 "perf script -i %s -F pid,tid,time,period,ip -G --ns 2>/dev/null", file);
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(st, 0);

	size_t ne = 0, cap = 1024;
	tup *exp = malloc(cap * sizeof *exp);
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		tup t;
		unsigned long long s, ns, period, ip;
		if (sscanf(l, " %u/%u %llu.%llu: %llu %llx", &t.pid, &t.tid, &s, &ns, &period,
			   &ip) != 6)
			continue;
		t.time = s * 1000000000ull + ns;
		t.period = period;
		t.ip = ip;
		if (ne == cap)
			exp = realloc(exp, (cap *= 2) * sizeof *exp);
		exp[ne++] = t;
	}
	free(out);
	ck_assert_uint_gt(ne, 10);

	size_t len;
	uint8_t *d = pd_test_read_file(file, &len);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_ge(len, 104);
	ck_assert_uint_eq(rd64le(d), 0x32454c4946524550ull);
	uint64_t aoff = rd64le(d + 24), asz = rd64le(d + 32);
	uint64_t doff = rd64le(d + 40), dsz = rd64le(d + 48);
	ck_assert_uint_le(doff + dsz, len);

	pd_attr attrs[8];
	size_t na = 0;
	pd_id_table ids = { 0 };
	for (uint64_t o = aoff; o < aoff + asz; na++) {
		ck_assert_uint_lt(na, 8);
		uint32_t sz = (uint32_t)(d[o + 4] | d[o + 5] << 8);
		memset(&attrs[na], 0, sizeof attrs[na]);
		pd_attr_decode(&attrs[na], d + o, sz, false);
		uint64_t io = rd64le(d + o + sz), is = rd64le(d + o + sz + 8);
		for (uint64_t k = 0; k < is / 8; k++)
			ck_assert_int_eq(pd_id_table_add(&ids, rd64le(d + io + 8 * k), (uint32_t)na), 0);
		o += sz + 16;
	}
	ck_assert_uint_ge(na, 1);
	ck_assert_uint_eq(attrs[0].type, 1);   /* SOFTWARE */
	ck_assert_uint_eq(attrs[0].config, 0); /* cpu-clock */
	ck_assert_uint_eq(attrs[0].sample_period, 100000);
	ck_assert(attrs[0].sample_id_all);
	int id_pos, is_pos;
	pd_id_positions(attrs[0].sample_type, &id_pos, &is_pos);

	size_t ng = 0, comms = 0, mmaps = 0;
	tup *got = malloc((ne + 64) * sizeof *got);
	uint8_t *copy = malloc(65536);
	for (uint64_t o = doff; o + 8 <= doff + dsz;) {
		uint32_t type = (uint32_t)rd64le(d + o);
		uint16_t misc = (uint16_t)(d[o + 4] | d[o + 5] << 8);
		uint16_t size = (uint16_t)(d[o + 6] | d[o + 7] << 8);
		ck_assert_uint_ge(size, 8);
		memcpy(copy, d + o, size);
		if (type < 64) {
			const pd_attr *a = &attrs[0];
			uint64_t id;
			if (na > 1 && pd_record_peek_id(copy, size, type, id_pos, is_pos,
							       pd_trailer_size(a->sample_type), false, &id) &&
			    id != 0) {
				int k = pd_id_table_find(&ids, id);
				ck_assert_int_ge(k, 0);
				a = &attrs[k];
			}
			pd_error perr = { 0 };
			pd_record r = { .type = type, .misc = misc, .size = size, .data = copy };
			if (type == PD_RECORD_SAMPLE) {
				pd_sample s;
				ck_assert_msg(pd_sample_decode(&s, copy, size, a, false, NULL, &perr) == 0,
					      "%s", perr.message);
				ck_assert_uint_lt(ng, ne + 64);
				got[ng++] = (tup){ s.pid, s.tid, s.time, s.period, s.ip };
				/* perf puts the sample ip first in the chain, after a marker */
				ck_assert_uint_ge(s.callchain_nr, 2);
				ck_assert_uint_ge(s.callchain[0], PD_CONTEXT_MAX);
				ck_assert_uint_eq(s.callchain[1], s.ip);
			} else {
				/* 1: a side-band record larger than its contents */
				ck_assert_msg(pd_record_decode(&r, copy, size, a, false, NULL, &perr) >= 0,
					      "type %u: %s", type, perr.message);
				if (type == PD_RECORD_COMM && strcmp(r.u.comm.comm, "sh") == 0)
					comms++;
				if (type == PD_RECORD_MMAP2 || type == PD_RECORD_MMAP)
					mmaps++;
			}
		}
		o += size;
	}
	ck_assert_uint_ge(comms, 1);
	ck_assert_uint_ge(mmaps, 2);
	ck_assert_uint_eq(ng, ne);
	qsort(got, ng, sizeof *got, cmp_tup);
	qsort(exp, ne, sizeof *exp, cmp_tup);
	for (size_t i = 0; i < ne; i++) {
		ck_assert_uint_eq(got[i].pid, exp[i].pid);
		ck_assert_uint_eq(got[i].tid, exp[i].tid);
		ck_assert_uint_eq(got[i].time, exp[i].time);
		ck_assert_uint_eq(got[i].period, exp[i].period);
		ck_assert_uint_eq(got[i].ip, exp[i].ip);
	}
	free(copy);
	free(got);
	free(exp);
	free(d);
	pd_id_table_free(&ids);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("attr");
	tcase_add_test(tc, test_attr_every_size);
	tcase_add_test(tc, test_attr_flag_bits);
	tcase_add_test(tc, test_id_positions);
	tcase_add_test(tc, test_id_table);
	suite_add_tcase(s, tc);

	tc = tcase_create("sample");
	tcase_add_test(tc, test_sample_every_field);
	tcase_add_test(tc, test_sample_no_swap_never_writes);
	tcase_add_test(tc, test_sample_every_truncation);
	tcase_add_test(tc, test_sample_read_single);
	tcase_add_test(tc, test_sample_regs_abi0_stack_empty);
	tcase_add_test(tc, test_sample_stack_dyn_size_clamped);
	tcase_add_test(tc, test_sample_period_fallback);
	tcase_add_test(tc, test_sample_branch_plain_and_counters);
	tcase_add_test(tc, test_sample_malformed);
	suite_add_tcase(s, tc);

	tc = tcase_create("record");
	tcase_add_loop_test(tc, test_kernel_records, 0, (int)NKCASES);
	tcase_add_test(tc, test_kernel_records_never_write_unswapped);
	tcase_add_test(tc, test_kernel_records_truncated);
	tcase_add_test(tc, test_kernel_records_malformed);
	tcase_add_test(tc, test_trailer_subsets);
	tcase_add_test(tc, test_sideband_oversized);
	tcase_add_test(tc, test_sideband_oversized_limits);
	tcase_add_test(tc, test_tool_records);
	tcase_add_test(tc, test_peek_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_names_match_corpus_index);
	suite_add_tcase(s, tc);

	tc = tcase_create("perf");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_real_perf_samples);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(decode_suite());
}
