/*
 * Feature payload parsing: hand-built payloads in both byte orders, broken
 * counts and sizes, and real recordings checked against what
 * `perf report --header-only` and `perf buildid-list` print.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"

/* ---------------------------------------------------------------- builder */

typedef struct pbuf {
	uint8_t b[16384];
	size_t n;
	bool swap; /* write in the other byte order */
} pbuf;

static void put(pbuf *p, const void *v, size_t n)
{
	ck_assert_uint_le(p->n + n, sizeof p->b);
	memcpy(p->b + p->n, v, n);
	p->n += n;
}

static void put16(pbuf *p, uint16_t v)
{
	if (p->swap)
		v = __builtin_bswap16(v);
	put(p, &v, 2);
}

static void put32(pbuf *p, uint32_t v)
{
	if (p->swap)
		v = __builtin_bswap32(v);
	put(p, &v, 4);
}

static void put64(pbuf *p, uint64_t v)
{
	if (p->swap)
		v = __builtin_bswap64(v);
	put(p, &v, 8);
}

static void put_zero(pbuf *p, size_t n)
{
	ck_assert_uint_le(p->n + n, sizeof p->b);
	memset(p->b + p->n, 0, n);
	p->n += n;
}

/* A perf string padded like perf does: NUL included, multiple of 64. */
static void put_str(pbuf *p, const char *s)
{
	size_t len = strlen(s) + 1;
	size_t padded = (len + 63) / 64 * 64;
	put32(p, (uint32_t)padded);
	put(p, s, len - 1);
	put_zero(p, padded - (len - 1));
}

typedef struct fx {
	pd_meta m;
	pd_reader_options opts;
	pd_error perr;
} fx;

static void fx_init(fx *f)
{
	pd_meta_init(&f->m);
	pd_reader_options_init(&f->opts, PD_READER_OPTIONS_VERSION);
	f->perr.message[0] = '\0';
}

/* Parse, and check the payload was left untouched. */
static int parse(fx *f, unsigned feat, const pbuf *p)
{
	uint8_t copy[sizeof p->b];
	memcpy(copy, p->b, p->n);
	int rc = pd_feature_parse(&f->m, feat, p->b, p->n, p->swap, &f->opts, &f->perr);
	ck_assert_mem_eq(copy, p->b, p->n);
	return rc;
}

static bool has_bit(const pd_meta *m, unsigned feat)
{
	return (m->info.features[feat / 64] >> (feat % 64)) & 1;
}

/* ---------------------------------------------------------------- strings */

static void check_strings(bool swap)
{
	fx f;
	fx_init(&f);
	ck_assert_int_eq(f.m.info.clockid, -1);
	ck_assert_ptr_null(f.m.info.hostname);

	pbuf p = { .swap = swap };
	put_str(&p, "vm-host");
	ck_assert_int_eq(parse(&f, PD_FEAT_HOSTNAME, &p), 0);
	ck_assert_str_eq(f.m.info.hostname, "vm-host");
	ck_assert(has_bit(&f.m, PD_FEAT_HOSTNAME));

	/* len 0: an empty string, not absent */
	p = (pbuf){ .swap = swap };
	put32(&p, 0);
	ck_assert_int_eq(parse(&f, PD_FEAT_VERSION, &p), 0);
	ck_assert_ptr_nonnull(f.m.info.version);
	ck_assert_str_eq(f.m.info.version, "");

	/* "" padded to 64 (ChromeOS files) */
	p = (pbuf){ .swap = swap };
	put_str(&p, "");
	ck_assert_int_eq(parse(&f, PD_FEAT_OSRELEASE, &p), 0);
	ck_assert_str_eq(f.m.info.osrelease, "");

	/* no NUL inside len: bounded by len */
	p = (pbuf){ .swap = swap };
	put32(&p, 6);
	put(&p, "x86_64", 6);
	ck_assert_int_eq(parse(&f, PD_FEAT_ARCH, &p), 0);
	ck_assert_str_eq(f.m.info.arch, "x86_64");

	p = (pbuf){ .swap = swap };
	put_str(&p, "AMD EPYC");
	ck_assert_int_eq(parse(&f, PD_FEAT_CPUDESC, &p), 0);
	ck_assert_str_eq(f.m.info.cpudesc, "AMD EPYC");
	p = (pbuf){ .swap = swap };
	put_str(&p, "AuthenticAMD,26,2,1");
	ck_assert_int_eq(parse(&f, PD_FEAT_CPUID, &p), 0);
	ck_assert_str_eq(f.m.info.cpuid, "AuthenticAMD,26,2,1");

	/* len past the payload */
	p = (pbuf){ .swap = swap };
	put32(&p, 65);
	put_zero(&p, 64);
	ck_assert_int_eq(parse(&f, PD_FEAT_HOSTNAME, &p), PD_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(f.perr.message, "truncated"));
	ck_assert_str_eq(f.m.info.hostname, "vm-host");

	/* no room for len at all */
	p = (pbuf){ .swap = swap };
	put16(&p, 1);
	ck_assert_int_eq(parse(&f, PD_FEAT_HOSTNAME, &p), PD_ECORRUPT);
	pd_meta_free(&f.m);
}

START_TEST(strings_native) { check_strings(false); }
END_TEST
START_TEST(strings_swapped) { check_strings(true); }
END_TEST

/* ------------------------------------------------------- fixed layouts */

static void check_fixed(bool swap)
{
	fx f;
	fx_init(&f);
	pbuf p = { .swap = swap };

	put32(&p, 64);
	put32(&p, 12);
	ck_assert_int_eq(parse(&f, PD_FEAT_NRCPUS, &p), 0);
	ck_assert_uint_eq(f.m.info.nr_cpus_available, 64);
	ck_assert_uint_eq(f.m.info.nr_cpus_online, 12);
	p.n = 6;
	ck_assert_int_eq(parse(&f, PD_FEAT_NRCPUS, &p), PD_ECORRUPT);

	p = (pbuf){ .swap = swap };
	put64(&p, 24684092);
	ck_assert_int_eq(parse(&f, PD_FEAT_TOTAL_MEM, &p), 0);
	ck_assert_uint_eq(f.m.info.total_mem_kb, 24684092);
	p.n = 7;
	ck_assert_int_eq(parse(&f, PD_FEAT_TOTAL_MEM, &p), PD_ECORRUPT);

	p = (pbuf){ .swap = swap };
	put64(&p, 273324866000ull);
	put64(&p, 273325363123ull);
	ck_assert_int_eq(parse(&f, PD_FEAT_SAMPLE_TIME, &p), 0);
	ck_assert(f.m.info.has_sample_time);
	ck_assert_uint_eq(f.m.info.sample_time_first, 273324866000ull);
	ck_assert_uint_eq(f.m.info.sample_time_last, 273325363123ull);
	p.n = 15;
	ck_assert_int_eq(parse(&f, PD_FEAT_SAMPLE_TIME, &p), PD_ECORRUPT);

	p = (pbuf){ .swap = swap };
	put64(&p, 1);
	ck_assert_int_eq(parse(&f, PD_FEAT_CLOCKID, &p), 0);
	ck_assert_uint_eq(f.m.info.clockid_res_ns, 1);
	ck_assert_int_eq(f.m.info.clockid, -1); /* attr clockid, not this */

	p = (pbuf){ .swap = swap };
	put32(&p, 0);
	put32(&p, 1);
	put32(&p, 3);
	put32(&p, 9);
	put32(&p, 528384);
	ck_assert_int_eq(parse(&f, PD_FEAT_COMPRESSED, &p), 0);
	ck_assert(f.m.info.compressed);
	ck_assert_uint_eq(f.m.info.comp_version, 0);
	ck_assert_uint_eq(f.m.info.comp_type, 1);
	ck_assert_uint_eq(f.m.info.comp_level, 3);
	ck_assert_uint_eq(f.m.info.comp_ratio, 9);
	ck_assert_uint_eq(f.m.info.comp_mmap_len, 528384);
	p.n = 16;
	ck_assert_int_eq(parse(&f, PD_FEAT_COMPRESSED, &p), PD_ECORRUPT);

	p = (pbuf){ .swap = swap };
	put64(&p, 1);
	ck_assert_int_eq(parse(&f, PD_FEAT_DIR_FORMAT, &p), 0);
	ck_assert_uint_eq(f.m.info.dir_format, 1);

	for (unsigned b = PD_FEAT_NRCPUS; b <= PD_FEAT_DIR_FORMAT; b++) {
		bool want = b == PD_FEAT_NRCPUS || b == PD_FEAT_TOTAL_MEM ||
			    b == PD_FEAT_SAMPLE_TIME || b == PD_FEAT_CLOCKID ||
			    b == PD_FEAT_DIR_FORMAT;
		ck_assert_int_eq(has_bit(&f.m, b), want);
	}
	ck_assert(has_bit(&f.m, PD_FEAT_COMPRESSED));
	pd_meta_free(&f.m);
}

/* CLOCK_DATA: version 1 gives the reference pair; another version is
 * skipped; a short payload is corrupt.  (test_pprof_sites holds the
 * start time made from it to perf script -F tod.) */
static void check_clock_data(bool swap)
{
	fx f;
	fx_init(&f);
	pbuf p = { .swap = swap };
	put32(&p, 1);
	put32(&p, 1);
	put64(&p, 1796189289828871000ull);
	put64(&p, 25024233186090ull);
	ck_assert_int_eq(parse(&f, PD_FEAT_CLOCK_DATA, &p), 0);
	ck_assert(f.m.has_clock_data);
	ck_assert_uint_eq(f.m.clock_tod_ns, 1796189289828871000ull);
	ck_assert_uint_eq(f.m.clock_ref_ns, 25024233186090ull);
	pd_meta_free(&f.m);
	fx_init(&f);
	pbuf v2 = { .swap = swap };
	put32(&v2, 2);
	put32(&v2, 1);
	put64(&v2, 1);
	put64(&v2, 2);
	ck_assert_int_eq(parse(&f, PD_FEAT_CLOCK_DATA, &v2), 0);
	ck_assert(!f.m.has_clock_data);
	pbuf shortp = { .swap = swap };
	put32(&shortp, 1);
	put32(&shortp, 1);
	ck_assert_int_eq(parse(&f, PD_FEAT_CLOCK_DATA, &shortp), PD_ECORRUPT);
	ck_assert(!f.m.has_clock_data);
	pd_meta_free(&f.m);
}

START_TEST(clock_data_native) { check_clock_data(false); }
END_TEST
START_TEST(clock_data_swapped) { check_clock_data(true); }
END_TEST

START_TEST(fixed_native) { check_fixed(false); }
END_TEST
START_TEST(fixed_swapped) { check_fixed(true); }
END_TEST

/* Features libperfdiff does not use are accepted untouched. */
START_TEST(skipped_features)
{
	fx f;
	fx_init(&f);
	pbuf p = { 0 };
	put32(&p, 0xffffffff); /* garbage that would fail any real parse */
	unsigned skip[] = { PD_FEAT_TRACING_DATA, PD_FEAT_CPU_TOPOLOGY,
			    PD_FEAT_NUMA_TOPOLOGY, PD_FEAT_BRANCH_STACK,
			    PD_FEAT_GROUP_DESC, PD_FEAT_CACHE, PD_FEAT_MEM_TOPOLOGY,
			    /* BPF_PROG_INFO / BPF_BTF are parsed: test_bpf */
			    PD_FEAT_PMU_CAPS, 0, 33, 130, 255,
			    1000 };
	for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
		ck_assert_int_eq(parse(&f, skip[i], &p), 0);
	for (int w = 0; w < 4; w++)
		ck_assert_uint_eq(f.m.info.features[w], 0);
	pd_meta_free(&f.m);
}
END_TEST

START_TEST(feature_size_limit)
{
	fx f;
	fx_init(&f);
	pbuf p = { 0 };
	put_str(&p, "a-host-name");
	f.opts.max_feature_bytes = 16;
	ck_assert_int_eq(parse(&f, PD_FEAT_HOSTNAME, &p), PD_ELIMIT);
	ck_assert_ptr_null(f.m.info.hostname);
	pd_meta_free(&f.m);
}
END_TEST

/* ---------------------------------------------------------------- CMDLINE */

static void check_cmdline(bool swap)
{
	fx f;
	fx_init(&f);
	pbuf p = { .swap = swap };
	put32(&p, 4);
	put_str(&p, "/usr/bin/perf");
	put_str(&p, "record");
	put32(&p, 0); /* an empty argument */
	put_str(&p, "./prog");
	ck_assert_int_eq(parse(&f, PD_FEAT_CMDLINE, &p), 0);
	ck_assert_uint_eq(f.m.info.cmdline_nr, 4);
	ck_assert_str_eq(f.m.info.cmdline[0], "/usr/bin/perf");
	ck_assert_str_eq(f.m.info.cmdline[1], "record");
	ck_assert_str_eq(f.m.info.cmdline[2], "");
	ck_assert_str_eq(f.m.info.cmdline[3], "./prog");
	ck_assert(has_bit(&f.m, PD_FEAT_CMDLINE));

	/* a count the payload cannot hold must not size an allocation */
	p = (pbuf){ .swap = swap };
	put32(&p, 0x40000000);
	put_str(&p, "x");
	ck_assert_int_eq(parse(&f, PD_FEAT_CMDLINE, &p), PD_ECORRUPT);
	/* a count that fits by the 4-byte bound but whose strings do not */
	p = (pbuf){ .swap = swap };
	put32(&p, 3);
	put_str(&p, "x");
	put32(&p, 0);
	put32(&p, 0);
	ck_assert_int_eq(parse(&f, PD_FEAT_CMDLINE, &p), 0);
	ck_assert_uint_eq(f.m.info.cmdline_nr, 3);
	p.n -= 4;
	ck_assert_int_eq(parse(&f, PD_FEAT_CMDLINE, &p), PD_ECORRUPT);

	p = (pbuf){ .swap = swap };
	put32(&p, 0);
	ck_assert_int_eq(parse(&f, PD_FEAT_CMDLINE, &p), 0);
	ck_assert_uint_eq(f.m.info.cmdline_nr, 0);
	pd_meta_free(&f.m);
}

START_TEST(cmdline_native) { check_cmdline(false); }
END_TEST
START_TEST(cmdline_swapped) { check_cmdline(true); }
END_TEST

/* ------------------------------------------------------------- EVENT_DESC */

static void put_attr(pbuf *p, uint32_t attr_size, uint32_t type, uint64_t config)
{
	size_t start = p->n;
	put32(p, type);
	put32(p, attr_size);
	put64(p, config);
	put_zero(p, attr_size - (p->n - start));
}

static void check_event_desc(bool swap)
{
	fx f;
	fx_init(&f);
	pbuf p = { .swap = swap };
	put32(&p, 3);
	put32(&p, 136);
	put_attr(&p, 136, 0, 0x400000000ull);
	put32(&p, 2);
	put_str(&p, "cpu_core/cycles/");
	put64(&p, 26);
	put64(&p, 27);
	put_attr(&p, 136, 1, 9);
	put32(&p, 0);
	put_str(&p, "dummy:u");
	put_attr(&p, 136, 1, 0);
	put32(&p, 1);
	put32(&p, 0); /* empty name */
	put64(&p, 0x123456789aull);
	ck_assert_int_eq(parse(&f, PD_FEAT_EVENT_DESC, &p), 0);
	ck_assert_uint_eq(f.m.nr_event_names, 3);
	ck_assert_str_eq(f.m.event_names[0].name, "cpu_core/cycles/");
	ck_assert(f.m.event_names[0].has_id);
	ck_assert_uint_eq(f.m.event_names[0].first_id, 26);
	ck_assert_uint_eq(f.m.event_names[0].attr_type, 0);
	ck_assert_uint_eq(f.m.event_names[0].attr_config, 0x400000000ull);
	ck_assert_str_eq(f.m.event_names[1].name, "dummy:u");
	ck_assert(!f.m.event_names[1].has_id);
	ck_assert_uint_eq(f.m.event_names[1].attr_type, 1);
	ck_assert_uint_eq(f.m.event_names[1].attr_config, 9);
	ck_assert_str_eq(f.m.event_names[2].name, "");
	ck_assert(f.m.event_names[2].has_id);
	ck_assert_uint_eq(f.m.event_names[2].first_id, 0x123456789aull);
	ck_assert(has_bit(&f.m, PD_FEAT_EVENT_DESC));
	pbuf good = p;

	/* nr larger than the payload can hold */
	p = good;
	uint32_t big = swap ? __builtin_bswap32(1000000) : 1000000;
	memcpy(p.b, &big, 4);
	ck_assert_int_eq(parse(&f, PD_FEAT_EVENT_DESC, &p), PD_ECORRUPT);
	/* nr that just does not fit: 4 events, payload for 3 */
	uint32_t four = swap ? __builtin_bswap32(4) : 4;
	memcpy(p.b, &four, 4);
	ck_assert_int_eq(parse(&f, PD_FEAT_EVENT_DESC, &p), PD_ECORRUPT);
	/* attr_size past the payload, and too small to hold type/config */
	p = good;
	uint32_t huge = swap ? __builtin_bswap32(0xfffffff0u) : 0xfffffff0u;
	memcpy(p.b + 4, &huge, 4);
	ck_assert_int_eq(parse(&f, PD_FEAT_EVENT_DESC, &p), PD_ECORRUPT);
	uint32_t tiny = swap ? __builtin_bswap32(8) : 8;
	memcpy(p.b + 4, &tiny, 4);
	ck_assert_int_eq(parse(&f, PD_FEAT_EVENT_DESC, &p), PD_ECORRUPT);
	/* nr_ids of the first event past the payload */
	p = good;
	uint32_t ids = swap ? __builtin_bswap32(0x20000000) : 0x20000000;
	memcpy(p.b + 8 + 136, &ids, 4);
	ck_assert_int_eq(parse(&f, PD_FEAT_EVENT_DESC, &p), PD_ECORRUPT);
	/* cut anywhere: an error, never a crash or an over-read */
	for (size_t cut = 0; cut < good.n; cut += 7) {
		p = good;
		p.n = cut;
		ck_assert_int_eq(parse(&f, PD_FEAT_EVENT_DESC, &p), PD_ECORRUPT);
	}
	/* the good table survives failed re-parses */
	ck_assert_uint_eq(f.m.nr_event_names, 3);
	ck_assert_str_eq(f.m.event_names[1].name, "dummy:u");

	/* more events than max_attrs */
	f.opts.max_attrs = 2;
	ck_assert_int_eq(parse(&f, PD_FEAT_EVENT_DESC, &good), PD_ELIMIT);
	pd_meta_free(&f.m);
}

START_TEST(event_desc_native) { check_event_desc(false); }
END_TEST
START_TEST(event_desc_swapped) { check_event_desc(true); }
END_TEST

/* ----------------------------------------------------------- PMU_MAPPINGS */

static void check_pmus(bool swap)
{
	fx f;
	fx_init(&f);
	pbuf p = { .swap = swap };
	put32(&p, 3);
	put32(&p, 1);
	put_str(&p, "software");
	put32(&p, 4);
	put_str(&p, "cpu_core");
	put32(&p, 10);
	put_str(&p, "cpu_atom");
	ck_assert_int_eq(parse(&f, PD_FEAT_PMU_MAPPINGS, &p), 0);
	ck_assert_uint_eq(f.m.nr_pmus, 3);
	ck_assert_uint_eq(f.m.pmus[0].type, 1);
	ck_assert_str_eq(f.m.pmus[0].name, "software");
	ck_assert_uint_eq(f.m.pmus[1].type, 4);
	ck_assert_str_eq(f.m.pmus[1].name, "cpu_core");
	ck_assert_uint_eq(f.m.pmus[2].type, 10);
	ck_assert_str_eq(f.m.pmus[2].name, "cpu_atom");
	ck_assert(has_bit(&f.m, PD_FEAT_PMU_MAPPINGS));

	pbuf bad = p;
	uint32_t big = swap ? __builtin_bswap32(0x7fffffff) : 0x7fffffff;
	memcpy(bad.b, &big, 4);
	ck_assert_int_eq(parse(&f, PD_FEAT_PMU_MAPPINGS, &bad), PD_ECORRUPT);
	bad = p;
	bad.n -= 10;
	ck_assert_int_eq(parse(&f, PD_FEAT_PMU_MAPPINGS, &bad), PD_ECORRUPT);
	pd_meta_free(&f.m);
}

START_TEST(pmus_native) { check_pmus(false); }
END_TEST
START_TEST(pmus_swapped) { check_pmus(true); }
END_TEST

/* --------------------------------------------------------------- BUILD_ID */

static void put_bid(pbuf *p, uint16_t misc, int32_t pid, const uint8_t *id,
		    uint8_t id_size, const char *path, size_t path_room)
{
	put32(p, 67); /* type: ignored in the feature section */
	put16(p, misc);
	put16(p, (uint16_t)(36 + path_room));
	put32(p, (uint32_t)pid);
	put(p, id, 20);
	uint8_t sz[4] = { id_size, 0, 0, 0 };
	put(p, sz, 4);
	size_t len = strlen(path);
	put(p, path, len < path_room ? len : path_room);
	if (len < path_room)
		put_zero(p, path_room - len);
}

static void check_build_ids(bool swap)
{
	uint8_t id1[20], id2[20];
	for (int i = 0; i < 20; i++) {
		id1[i] = (uint8_t)(0xa0 + i);
		id2[i] = (uint8_t)(i * 7);
	}
	fx f;
	fx_init(&f);
	pbuf p = { .swap = swap };
	put_bid(&p, 0x8001, -1, id1, 20, "[kernel.kallsyms]", 64);
	put_bid(&p, 0x0002, 1234, id2, 99, "/usr/lib/libfoo.so", 28);
	put_bid(&p, 0x8002, 77, id2, 8, "/bin/x", 4); /* path fills its room, no NUL */
	put_bid(&p, 0x8005, 0, id1, 16, "", 0);
	ck_assert_int_eq(parse(&f, PD_FEAT_BUILD_ID, &p), 0);
	ck_assert_uint_eq(f.m.info.nr_build_ids, 4);
	ck_assert_ptr_eq(f.m.info.build_ids, f.m.build_ids);
	const pd_build_id *b = f.m.info.build_ids;
	ck_assert_int_eq(b[0].pid, -1);
	ck_assert_uint_eq(b[0].misc, 0x8001);
	ck_assert_uint_eq(b[0].size, 20);
	ck_assert_mem_eq(b[0].id, id1, 20);
	ck_assert_str_eq(b[0].path, "[kernel.kallsyms]");
	/* size byte ignored without misc bit 15 */
	ck_assert_int_eq(b[1].pid, 1234);
	ck_assert_uint_eq(b[1].misc & 7, 2);
	ck_assert_uint_eq(b[1].size, 20);
	ck_assert_mem_eq(b[1].id, id2, 20);
	ck_assert_str_eq(b[1].path, "/usr/lib/libfoo.so");
	ck_assert_uint_eq(b[2].size, 8);
	ck_assert_str_eq(b[2].path, "/bin");
	ck_assert_uint_eq(b[3].size, 16);
	ck_assert_uint_eq(b[3].misc & 7, 5);
	ck_assert_str_eq(b[3].path, "");
	ck_assert(has_bit(&f.m, PD_FEAT_BUILD_ID));

	/* pipe-mode HEADER_BUILD_ID records append */
	pbuf r = { .swap = swap };
	put_bid(&r, 0x8002, 5, id1, 20, "/usr/bin/prog", 64);
	ck_assert_int_eq(pd_build_id_parse(&f.m, r.b, r.n, swap, NULL, &f.perr), 0);
	ck_assert_uint_eq(f.m.info.nr_build_ids, 5);
	ck_assert_str_eq(f.m.info.build_ids[4].path, "/usr/bin/prog");
	ck_assert_str_eq(f.m.info.build_ids[0].path, "[kernel.kallsyms]");
	/* record header size larger than the bytes given */
	ck_assert_int_eq(pd_build_id_parse(&f.m, r.b, r.n - 8, swap, NULL, &f.perr), PD_ECORRUPT);
	ck_assert_int_eq(pd_build_id_parse(&f.m, r.b, 20, swap, NULL, &f.perr), PD_ECORRUPT);

	/* entry size < 36 */
	pbuf bad = { .swap = swap };
	put_bid(&bad, 0x8001, -1, id1, 20, "x", 8);
	uint16_t s = swap ? __builtin_bswap16(35) : 35;
	memcpy(bad.b + 6, &s, 2);
	ck_assert_int_eq(parse(&f, PD_FEAT_BUILD_ID, &bad), PD_ECORRUPT);
	s = 0;
	memcpy(bad.b + 6, &s, 2); /* would loop forever if accepted */
	ck_assert_int_eq(parse(&f, PD_FEAT_BUILD_ID, &bad), PD_ECORRUPT);
	/* entry past the section */
	bad = p;
	bad.n -= 1;
	ck_assert_int_eq(parse(&f, PD_FEAT_BUILD_ID, &bad), PD_ECORRUPT);
	/* trailing bytes too short for an entry */
	bad = p;
	put_zero(&bad, 20);
	ck_assert_int_eq(parse(&f, PD_FEAT_BUILD_ID, &bad), PD_ECORRUPT);
	/* stated build-id length > 20 */
	bad = (pbuf){ .swap = swap };
	put_bid(&bad, 0x8001, -1, id1, 21, "x", 8);
	ck_assert_int_eq(parse(&f, PD_FEAT_BUILD_ID, &bad), PD_ECORRUPT);
	/* an empty section is fine */
	bad.n = 0;
	ck_assert_int_eq(parse(&f, PD_FEAT_BUILD_ID, &bad), 0);
	pd_meta_free(&f.m);
}

START_TEST(build_ids_native) { check_build_ids(false); }
END_TEST
START_TEST(build_ids_swapped) { check_build_ids(true); }
END_TEST

/* Many entries: the table grows and info follows it. */
START_TEST(build_ids_many)
{
	fx f;
	fx_init(&f);
	uint8_t id[20] = { 1 };
	char path[32];
	for (int i = 0; i < 1000; i++) {
		pbuf r = { 0 };
		snprintf(path, sizeof path, "/lib/l%d.so", i);
		id[1] = (uint8_t)i;
		put_bid(&r, 2, i, id, 20, path, 24);
		ck_assert_int_eq(pd_build_id_parse(&f.m, r.b, r.n, false, NULL, &f.perr), 0);
	}
	ck_assert_uint_eq(f.m.info.nr_build_ids, 1000);
	ck_assert_int_eq(f.m.info.build_ids[999].pid, 999);
	ck_assert_str_eq(f.m.info.build_ids[500].path, "/lib/l500.so");
	ck_assert_uint_eq(f.m.info.build_ids[300].id[1], 300 & 0xff);
	pd_meta_free(&f.m);
}
END_TEST

/* ------------------------------------------------------ real recordings */

/*
 * Walk a native file-mode perf.data's feature index the way doc §5 says
 * and parse every section.  Returns the file image (caller frees).
 */
static uint8_t *parse_file_features(const char *path, pd_meta *m, size_t *lenp,
				    uint64_t sec_off[256], uint64_t sec_size[256])
{
	size_t len = 0;
	uint8_t *d = pd_test_read_file(path, &len);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_ge(len, 104);
	ck_assert_mem_eq(d, "PERFILE2", 8);
	ck_assert_uint_eq(pd_ld64(d + 8, false), 104);
	uint64_t doff = pd_ld64(d + 40, false), dsize = pd_ld64(d + 48, false);
	uint64_t idx = doff + dsize;
	pd_reader_options opts;
	pd_reader_options_init(&opts, PD_READER_OPTIONS_VERSION);
	pd_error perr = { 0 };
	unsigned k = 0;
	for (unsigned bit = 0; bit < 256; bit++) {
		sec_off[bit] = sec_size[bit] = 0;
		if (!((pd_ld64(d + 72 + 8 * (bit / 64), false) >> (bit % 64)) & 1))
			continue;
		ck_assert_uint_le(idx + 16 * (k + 1), len);
		uint64_t off = pd_ld64(d + idx + 16 * k, false);
		uint64_t size = pd_ld64(d + idx + 16 * k + 8, false);
		k++;
		ck_assert_uint_le(off, len);
		ck_assert_uint_le(size, len - off);
		sec_off[bit] = off;
		sec_size[bit] = size;
		int rc = pd_feature_parse(m, bit, d + off, size, false, &opts, &perr);
		ck_assert_msg(rc == 0, "feature %u: %d %s", bit, rc, perr.message);
	}
	*lenp = len;
	return d;
}

/* Value of "# <key> : value" in perf's header dump (static buffer). */
static const char *hdr_field(const char *dump, const char *key)
{
	static char val[4096];
	char pat[256];
	snprintf(pat, sizeof pat, "# %s : ", key);
	const char *s = strstr(dump, pat);
	if (!s)
		return NULL;
	s += strlen(pat);
	size_t n = strcspn(s, "\n");
	ck_assert_uint_lt(n, sizeof val);
	memcpy(val, s, n);
	val[n] = '\0';
	return val;
}

static char *record(const char *dir, const char *name, const char *extra)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && perf record -N %s -e cpu-clock -o %s -- sleep 0.05 "
		 ">/dev/null 2>&1 && echo ok", dir, extra, name);
	int st;
	char *out = pd_test_run(cmd, &st);
	bool ok = out && st == 0 && strstr(out, "ok");
	free(out);
	if (!ok)
		return NULL;
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(path, "%s/%s", dir, name);
	return path;
}

static char *perf_header(const char *path)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "perf report --header-only -i '%s' 2>/dev/null", path);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(st, 0);
	return out;
}

START_TEST(real_file_vs_perf)
{
	if (!pd_test_have_perf())
		PD_SKIP("perf not available");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char *path = record(dir, "x.data", "");
	if (!path) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf record failed");
	}
	pd_meta m;
	pd_meta_init(&m);
	uint64_t off[256], size[256];
	size_t len;
	uint8_t *img = parse_file_features(path, &m, &len, off, size);
	char *dump = perf_header(path);
	const pd_header_info *h = &m.info;

	ck_assert_str_eq(h->hostname, hdr_field(dump, "hostname"));
	ck_assert_str_eq(h->osrelease, hdr_field(dump, "os release"));
	ck_assert_str_eq(h->version, hdr_field(dump, "perf version"));
	ck_assert_str_eq(h->arch, hdr_field(dump, "arch"));
	ck_assert_str_eq(h->cpudesc, hdr_field(dump, "cpudesc"));
	ck_assert_str_eq(h->cpuid, hdr_field(dump, "cpuid"));
	char buf[8192];
	snprintf(buf, sizeof buf, "%u", h->nr_cpus_online);
	ck_assert_str_eq(buf, hdr_field(dump, "nrcpus online"));
	snprintf(buf, sizeof buf, "%u", h->nr_cpus_available);
	ck_assert_str_eq(buf, hdr_field(dump, "nrcpus avail"));
	snprintf(buf, sizeof buf, "%" PRIu64 " kB", h->total_mem_kb);
	ck_assert_str_eq(buf, hdr_field(dump, "total memory"));

	/* perf prints every argument followed by a space */
	size_t n = 0;
	for (size_t i = 0; i < h->cmdline_nr; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s ", h->cmdline[i]);
	ck_assert_str_eq(buf, hdr_field(dump, "cmdline"));
	ck_assert_uint_ge(h->cmdline_nr, 9);

	/* "name = cpu-clock, , id = { 26, 27 }, type = 1, ..." */
	const char *ev = hdr_field(dump, "event");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(m.nr_event_names, 1);
	snprintf(buf, sizeof buf, "name = %s, , id = { %" PRIu64 ",",
		 m.event_names[0].name, m.event_names[0].first_id);
	ck_assert_msg(strncmp(ev, buf, strlen(buf)) == 0, "'%s' vs '%s'", ev, buf);
	snprintf(buf, sizeof buf, "type = %u,", m.event_names[0].attr_type);
	ck_assert_ptr_nonnull(strstr(ev, buf));
	ck_assert_uint_eq(m.event_names[0].attr_config, 0); /* cpu-clock */

	/* "# pmu mappings: software = 1, uprobe = 8, ..." */
	n = 0;
	for (size_t i = 0; i < m.nr_pmus; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s = %u",
				      i ? ", " : "", m.pmus[i].name, m.pmus[i].type);
	const char *pm = strstr(dump, "# pmu mappings: ");
	ck_assert_ptr_nonnull(pm);
	pm += strlen("# pmu mappings: ");
	ck_assert_int_eq(strncmp(pm, buf, strlen(buf)), 0);
	ck_assert_int_eq(pm[strlen(buf)], '\n');

	/* perf prints sample times as seconds.microseconds, truncated */
	ck_assert(h->has_sample_time);
	snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64,
		 h->sample_time_first / 1000000000, h->sample_time_first / 1000 % 1000000);
	ck_assert_str_eq(buf, hdr_field(dump, "time of first sample"));
	snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64,
		 h->sample_time_last / 1000000000, h->sample_time_last / 1000 % 1000000);
	ck_assert_str_eq(buf, hdr_field(dump, "time of last sample"));
	ck_assert(!h->compressed);
	ck_assert_uint_eq(h->dir_format, 0);

	/* build-ids vs `perf buildid-list` (compared as sorted line sets) */
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "perf buildid-list -i '%s' 2>/dev/null | sort", path);
	int st;
	char *bl = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(bl);
	ck_assert_uint_ge(h->nr_build_ids, 1);
	char *tmp = NULL;
	size_t tmpn = 0;
	FILE *mf = open_memstream(&tmp, &tmpn);
	for (size_t i = 0; i < h->nr_build_ids; i++) {
		for (unsigned j = 0; j < h->build_ids[i].size; j++)
			fprintf(mf, "%02x", h->build_ids[i].id[j]);
		fprintf(mf, " %s\n", h->build_ids[i].path);
	}
	fclose(mf);
	char tf[4096];
	snprintf(tf, sizeof tf, "%s/ours.txt", dir);
	ck_assert(pd_test_write_file(tf, tmp, tmpn));
	snprintf(cmd, sizeof cmd, "sort '%s'", tf);
	char *ours = pd_test_run(cmd, &st);
	ck_assert_str_eq(ours, bl);
	free(ours);
	free(tmp);
	free(bl);

	/* the reader's header view is built from the same sections */
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, path, NULL, &err) == 0, "%s", err.message);
	const pd_header_info *rh = pd_reader_header(r);
	ck_assert_str_eq(rh->hostname, h->hostname);
	ck_assert_str_eq(rh->osrelease, h->osrelease);
	ck_assert_str_eq(rh->arch, h->arch);
	ck_assert_str_eq(rh->version, h->version);
	ck_assert_uint_eq(rh->nr_cpus_online, h->nr_cpus_online);
	ck_assert_uint_eq(rh->nr_cpus_available, h->nr_cpus_available);
	ck_assert_uint_eq(rh->total_mem_kb, h->total_mem_kb);
	ck_assert_uint_eq(rh->cmdline_nr, h->cmdline_nr);
	for (size_t i = 0; i < h->cmdline_nr; i++)
		ck_assert_str_eq(rh->cmdline[i], h->cmdline[i]);
	ck_assert_uint_eq(rh->sample_time_first, h->sample_time_first);
	ck_assert_uint_eq(rh->sample_time_last, h->sample_time_last);
	ck_assert_uint_eq(rh->nr_build_ids, h->nr_build_ids);
	for (size_t i = 0; i < h->nr_build_ids; i++) {
		ck_assert_str_eq(rh->build_ids[i].path, h->build_ids[i].path);
		ck_assert_mem_eq(rh->build_ids[i].id, h->build_ids[i].id, 20);
	}
	for (unsigned b = 0; b < 256; b++)
		if (size[b])
			ck_assert_msg((rh->features[b / 64] >> (b % 64)) & 1,
				      "feature bit %u", b);
	ck_assert_uint_eq(pd_reader_attr_count(r), 1);
	ck_assert_str_eq(pd_reader_attr(r, 0)->name, m.event_names[0].name);
	pd_reader_free(r);

	/*
	 * NRCPUS order: both values are equal on most machines, so make them
	 * differ and let perf say which is which.
	 */
	ck_assert_uint_ge(size[PD_FEAT_NRCPUS], 8);
	uint32_t seven = 7, three = 3;
	memcpy(img + off[PD_FEAT_NRCPUS], &seven, 4);
	memcpy(img + off[PD_FEAT_NRCPUS] + 4, &three, 4);
	snprintf(tf, sizeof tf, "%s/nrcpus.data", dir);
	ck_assert(pd_test_write_file(tf, img, len));
	char *dump2 = perf_header(tf);
	pd_meta m2;
	pd_meta_init(&m2);
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_feature_parse(&m2, PD_FEAT_NRCPUS, img + off[PD_FEAT_NRCPUS],
					  size[PD_FEAT_NRCPUS], false, NULL, &perr), 0);
	snprintf(buf, sizeof buf, "%u", m2.info.nr_cpus_online);
	ck_assert_str_eq(buf, hdr_field(dump2, "nrcpus online"));
	snprintf(buf, sizeof buf, "%u", m2.info.nr_cpus_available);
	ck_assert_str_eq(buf, hdr_field(dump2, "nrcpus avail"));
	ck_assert_uint_eq(m2.info.nr_cpus_available, 7);
	pd_meta_free(&m2);

	free(dump2);
	free(dump);
	free(img);
	pd_meta_free(&m);
	free(path);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* -z and -k: COMPRESSED and CLOCKID against perf's header dump. */
START_TEST(real_compressed_clockid_vs_perf)
{
	if (!pd_test_have_perf())
		PD_SKIP("perf not available");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char *path = record(dir, "z.data", "-z -k monotonic");
	if (!path) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf record -z -k failed");
	}
	pd_meta m;
	pd_meta_init(&m);
	uint64_t off[256], size[256];
	size_t len;
	uint8_t *img = parse_file_features(path, &m, &len, off, size);
	char *dump = perf_header(path);
	const pd_header_info *h = &m.info;

	/* "# compressed : Zstd, level = 1, ratio = 2" */
	ck_assert(h->compressed);
	ck_assert_uint_eq(h->comp_type, 1);
	char buf[256];
	snprintf(buf, sizeof buf, "Zstd, level = %u, ratio = %u", h->comp_level,
		 h->comp_ratio);
	ck_assert_str_eq(buf, hdr_field(dump, "compressed"));
	ck_assert_uint_gt(h->comp_mmap_len, 0);

	/* "# clockid frequency: 1000 MHz" = 1000 / resolution in ns */
	ck_assert(has_bit(&m, PD_FEAT_CLOCKID));
	ck_assert_uint_gt(h->clockid_res_ns, 0);
	snprintf(buf, sizeof buf, "# clockid frequency: %" PRIu64 " MHz\n",
		 1000 / h->clockid_res_ns);
	ck_assert_msg(strstr(dump, buf), "no '%s' in perf's header", buf);
	ck_assert_int_eq(h->clockid, -1);

	free(dump);
	free(img);
	pd_meta_free(&m);
	free(path);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("features");
	TCase *t = tcase_create("payloads");
	tcase_add_test(t, strings_native);
	tcase_add_test(t, strings_swapped);
	tcase_add_test(t, fixed_native);
	tcase_add_test(t, fixed_swapped);
	tcase_add_test(t, skipped_features);
	tcase_add_test(t, clock_data_native);
	tcase_add_test(t, clock_data_swapped);
	tcase_add_test(t, feature_size_limit);
	tcase_add_test(t, cmdline_native);
	tcase_add_test(t, cmdline_swapped);
	tcase_add_test(t, event_desc_native);
	tcase_add_test(t, event_desc_swapped);
	tcase_add_test(t, pmus_native);
	tcase_add_test(t, pmus_swapped);
	tcase_add_test(t, build_ids_native);
	tcase_add_test(t, build_ids_swapped);
	tcase_add_test(t, build_ids_many);
	suite_add_tcase(s, t);
	TCase *r = tcase_create("real");
	tcase_set_timeout(r, 120);
	tcase_add_test(r, real_file_vs_perf);
	tcase_add_test(r, real_compressed_clockid_vs_perf);
	suite_add_tcase(s, r);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
