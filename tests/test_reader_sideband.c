/*
 * KSYMBOL and BPF_EVENT records whose header.size overstates them.  Linux
 * (seen on 6.18, `perf record -a` while BPF programs load) adds the
 * sample_id trailer's length to a shared header once for every event it
 * sends such a record to, so a copy can claim 32 bytes more than body +
 * trailer: the trailer still follows the body, stale ring bytes follow it.
 * Read from the end, the trailer gave garbage times (140126 s in a 20 s
 * recording), pids and ids, misplacing the records in time order and
 * attributing them to the wrong event; perf itself stops on them.
 *
 * A perf.data is built here byte by byte: two events (cpu-clock, dummy)
 * sharing TID|TIME|ID|CPU trailers, samples, and side-band records with
 * known trailers, two of them followed by 32 stale bytes copied from such
 * a recording.  The reader must give the trailers' values, the dummy
 * event, the time order the trailers imply, and count the two records in
 * pd_reader_stats and `perfdiff dump --stats`; the well-formed ones stay
 * as they were.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"

/* ------------------------------------------------------------ builder */

#define ST_TRAILER (PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID | PD_SAMPLE_CPU)
#define ST (PD_SAMPLE_IP | ST_TRAILER | PD_SAMPLE_PERIOD)
#define ID_CLOCK 1000
#define ID_DUMMY 2000

/* A 136-byte attr with sample_id_all (flags bit 18). */
static void put_attr(pd_test_img *m, uint64_t config)
{
	size_t at = m->n;
	pd_test_put32(m, 1);                   /* PERF_TYPE_SOFTWARE */
	pd_test_put32(m, PD_ATTR_KNOWN_SIZE);
	pd_test_put64(m, config);              /* 0 cpu-clock, 9 dummy */
	pd_test_put64(m, 1000);
	pd_test_put64(m, ST);
	pd_test_put64(m, 0);                   /* read_format */
	pd_test_put64(m, 1ull << 18);
	pd_test_put_zero(m, PD_ATTR_KNOWN_SIZE - (m->n - at));
}

static size_t rec_begin(pd_test_img *m, uint32_t type)
{
	size_t at = m->n;
	pd_test_put32(m, type);
	pd_test_put16(m, 0);
	pd_test_put16(m, 0);
	return at;
}

/* Body done: `stale` bytes after the trailer, and a size that counts them. */
static void rec_end(pd_test_img *m, size_t at, const uint8_t *stale, size_t nstale)
{
	if (nstale)
		pd_test_put(m, stale, nstale);
	uint16_t size = (uint16_t)(m->n - at);
	memcpy(m->b + at + 6, &size, 2);
}

static void put_sid(pd_test_img *m, uint32_t pid, uint64_t time, uint64_t id, uint32_t cpu)
{
	pd_test_put32(m, pid);
	pd_test_put32(m, pid);
	pd_test_put64(m, time);
	pd_test_put64(m, id);
	pd_test_put32(m, cpu);
	pd_test_put32(m, 0);
}

static void put_sample(pd_test_img *m, uint64_t time)
{
	size_t at = rec_begin(m, PD_RECORD_SAMPLE);
	pd_test_put64(m, 0xffffffff81000000);
	put_sid(m, 42, time, ID_CLOCK, 0); /* TID TIME ID CPU in sample order */
	pd_test_put64(m, 1000);
	rec_end(m, at, NULL, 0);
}

static void put_ksymbol(pd_test_img *m, const char *name, uint32_t pid, uint64_t time,
			const uint8_t *stale)
{
	size_t at = rec_begin(m, PD_RECORD_KSYMBOL);
	pd_test_put64(m, 0xffffffffc0023924);
	pd_test_put32(m, 23);
	pd_test_put16(m, 1);                       /* BPF */
	pd_test_put16(m, 0);
	size_t len = strlen(name) + 1;
	pd_test_put(m, name, len);
	pd_test_put_zero(m, (8 - len % 8) % 8);
	put_sid(m, pid, time, ID_DUMMY + 1, 1);
	rec_end(m, at, stale, stale ? 32 : 0);
}

static const uint8_t TAG[8] = { 0x62, 0xef, 0xe5, 0x9b, 0x7d, 0x4f, 0x5e, 0xa1 };

static void put_bpf_event(pd_test_img *m, uint32_t pid, uint64_t time, const uint8_t *stale)
{
	size_t at = rec_begin(m, PD_RECORD_BPF_EVENT);
	pd_test_put16(m, 1);                       /* PROG_LOAD */
	pd_test_put16(m, 0);
	pd_test_put32(m, 101);
	pd_test_put(m, TAG, 8);
	put_sid(m, pid, time, ID_DUMMY + 1, 1);
	rec_end(m, at, stale, stale ? 32 : 0);
}

/* The 32 bytes after two such records of a real recording: read as a
 * trailer, times of 140126 s and pids 9 and -926370993. */
static const uint8_t STALE_KSYM[32] = {
	0x09, 0x00, 0x00, 0x00, 0x02, 0x00, 0x68, 0x00, 0xbf, 0xf2, 0xc7, 0xc8,
	0x71, 0x7f, 0x00, 0x00, 0x5c, 0x30, 0x00, 0x00, 0x5c, 0x30, 0x00, 0x00,
	0xe8, 0x8b, 0xbf, 0x7b, 0x82, 0x01, 0x00, 0x00,
};
static const uint8_t STALE_BPF[32] = {
	0x4f, 0xb3, 0xc8, 0xc8, 0x71, 0x7f, 0x00, 0x00, 0x78, 0xbb, 0xc8, 0xc8,
	0x71, 0x7f, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x02, 0x00, 0x68, 0x00,
	0x44, 0xf3, 0xc7, 0xc8, 0x71, 0x7f, 0x00, 0x00,
};

/* The records, in file order; what the reader must deliver, in time order. */
typedef struct want {
	uint32_t type;
	uint64_t time;
	uint32_t pid;
	int attr;
	uint32_t cpu;
} want;

static const want WANT[] = {
	{ PD_RECORD_COMM, 100, 42, 1, 0 },
	{ PD_RECORD_SAMPLE, 1000, 42, 0, 0 },
	{ PD_RECORD_KSYMBOL, 2000, 12369, 1, 1 },
	{ PD_RECORD_BPF_EVENT, 2500, 12369, 1, 1 },
	{ PD_RECORD_KSYMBOL, 2600, 12370, 1, 1 },
	{ PD_RECORD_SAMPLE, 3000, 42, 0, 0 },
	{ PD_RECORD_SAMPLE, 4000, 42, 0, 0 },
};
#define NWANT (sizeof WANT / sizeof WANT[0])

static void put_records(pd_test_img *m)
{
	size_t at = rec_begin(m, PD_RECORD_COMM);
	pd_test_put32(m, 42);
	pd_test_put32(m, 42);
	pd_test_put(m, "spin\0\0\0", 8);
	put_sid(m, 42, 100, ID_DUMMY, 0);
	rec_end(m, at, NULL, 0);
	put_sample(m, 1000);
	put_sample(m, 3000);
	put_ksymbol(m, "bpf_prog_62efe59b7d4f5ea1", 12369, 2000, STALE_KSYM);
	put_bpf_event(m, 12369, 2500, STALE_BPF);
	put_ksymbol(m, "bpf_prog_62efe59b7d4f5ea1_x", 12370, 2600, NULL);
	put_sample(m, 4000);
}

/* File mode: header, two attrs (ids 1000/1001 and 2000/2001), the records. */
static void build_file(pd_test_img *m)
{
	const size_t attr_size = PD_ATTR_KNOWN_SIZE + 16;
	pd_test_put(m, "PERFILE2", 8);
	pd_test_put64(m, 104);
	pd_test_put64(m, attr_size);
	pd_test_put64(m, 104);
	pd_test_put64(m, 2 * attr_size);
	size_t data_hdr = m->n;
	pd_test_put_zero(m, 64);                /* data, event_types, features */
	size_t ids = 104 + 2 * attr_size;
	for (size_t i = 0; i < 2; i++) {
		put_attr(m, i ? 9 : 0);
		pd_test_put64(m, ids + 16 * i);
		pd_test_put64(m, 16);
	}
	pd_test_put64(m, ID_CLOCK);
	pd_test_put64(m, ID_CLOCK + 1);
	pd_test_put64(m, ID_DUMMY);
	pd_test_put64(m, ID_DUMMY + 1);
	size_t data = m->n;
	put_records(m);
	pd_test_set64(m, data_hdr, data);
	pd_test_set64(m, data_hdr + 8, m->n - data);
}

/* ------------------------------------------------------------ tests */

static char *g_dir;
static char g_path[PD_TEST_PATHMAX];

static void setup(void)
{
	g_dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(g_dir);
	snprintf(g_path, sizeof g_path, "%s/sideband.data", g_dir);
	pd_test_img m = { 0 };
	build_file(&m);
	ck_assert(pd_test_write_file(g_path, m.b, m.n));
	pd_test_img_free(&m);
}

static void teardown(void)
{
	pd_test_rmrf(g_dir);
	free(g_dir);
}

static void check_record(const pd_record *rec, const want *w, size_t i)
{
	ck_assert_msg(rec->type == w->type, "#%zu: type %u, want %u", i, rec->type, w->type);
	ck_assert_msg(rec->sid.time == w->time, "#%zu: time %llu, want %llu", i,
		      (unsigned long long)rec->sid.time, (unsigned long long)w->time);
	ck_assert_uint_eq(rec->sid.pid, w->pid);
	ck_assert_uint_eq(rec->sid.tid, w->pid);
	ck_assert_uint_eq(rec->sid.cpu, w->cpu);
	ck_assert_int_eq(rec->attr, w->attr);
	if (rec->type == PD_RECORD_KSYMBOL) {
		ck_assert_uint_eq(rec->sid.id, ID_DUMMY + 1);
		ck_assert_uint_eq(rec->u.ksymbol.addr, 0xffffffffc0023924);
		ck_assert_str_eq(rec->u.ksymbol.name, w->pid == 12369 ? "bpf_prog_62efe59b7d4f5ea1"
								     : "bpf_prog_62efe59b7d4f5ea1_x");
	}
	if (rec->type == PD_RECORD_BPF_EVENT) {
		ck_assert_uint_eq(rec->sid.id, ID_DUMMY + 1);
		ck_assert_uint_eq(rec->u.bpf_event.id, 101);
		ck_assert_mem_eq(rec->u.bpf_event.tag, TAG, 8);
	}
}

/* In time order (the default) and in file order (no queue: decoded once). */
START_TEST(trailer_after_body)
{
	const unsigned flags[] = { 0, PD_READER_FILE_ORDER };
	static const size_t file_order[NWANT] = { 0, 1, 5, 2, 3, 4, 6 };
	for (size_t f = 0; f < 2; f++) {
		pd_reader *r;
		pd_error err;
		pd_reader_options o;
		pd_reader_options_init(&o, PD_READER_OPTIONS_VERSION);
		o.flags = flags[f];
		ck_assert_msg(pd_reader_open(&r, g_path, &o, &err) == 0, "%s", err.message);
		const pd_record *rec;
		size_t n = 0;
		int rc;
		while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
			ck_assert_uint_lt(n, NWANT);
			check_record(rec, &WANT[f ? file_order[n] : n], n);
			n++;
		}
		ck_assert_msg(rc == PD_ITEROVER, "%s", err.message);
		ck_assert_uint_eq(n, NWANT);
		const pd_reader_stats *st = pd_reader_stats_get(r);
		ck_assert_uint_eq(st->oversized_sideband, 2);
		ck_assert_uint_eq(st->by_type[PD_RECORD_KSYMBOL], 2);
		ck_assert_uint_eq(st->by_type[PD_RECORD_BPF_EVENT], 1);
		ck_assert_uint_eq(st->out_of_order, 0);
		ck_assert_uint_eq(pd_reader_warning_count(r), 0);
		pd_reader_free(r);
	}
}
END_TEST

/* Through the test helper: the samples all keep their event. */
START_TEST(samples_unchanged)
{
	pd_test_readout out;
	pd_test_read_all(g_path, 0, &out);
	ck_assert_int_eq(out.rc, PD_ITEROVER);
	ck_assert_uint_eq(out.samples, 3);
	ck_assert_uint_eq(out.stats.unattributed, 0);
	ck_assert_uint_eq(out.stats.oversized_sideband, 2);
}
END_TEST

START_TEST(dump_stats_counts)
{
	char args[PD_TEST_PATHMAX + 64];
	int st;
	snprintf(args, sizeof args, "dump --stats --no-symbols --format=json '%s'", g_path);
	char *out = pd_test_cli(g_dir, args, &st, NULL);
	ck_assert_msg(st == 0, "%s: status %d", args, st);
	json_error_t jerr;
	json_t *j = json_loads(out, 0, &jerr);
	ck_assert_msg(j != NULL, "invalid JSON (%s): %.200s", jerr.text, out);
	json_t *v = json_object_get(j, "oversized_sideband");
	ck_assert(json_is_integer(v));
	ck_assert_int_eq(json_integer_value(v), 2);
	json_decref(j);
	free(out);

	snprintf(args, sizeof args, "dump --stats --no-symbols '%s'", g_path);
	out = pd_test_cli(g_dir, args, &st, NULL);
	ck_assert_int_eq(st, 0);
	const char *line = strstr(out, "\noversized side-band:");
	ck_assert_msg(line != NULL, "no side-band line in:\n%s", out);
	ck_assert_int_eq(atoi(line + 23), 2);
	free(out);

	/* the records themselves: the trailer's pid/tid and time */
	snprintf(args, sizeof args, "dump '%s'", g_path);
	out = pd_test_cli(g_dir, args, &st, NULL);
	ck_assert_int_eq(st, 0);
	const char *ks = strstr(out, " 12369/12369 KSYMBOL");
	ck_assert_msg(ks != NULL, "no KSYMBOL by 12369 in:\n%s", out);
	const char *bol = ks;
	while (bol > out && bol[-1] != '\n')
		bol--;
	const char *t = strstr(bol, " 0.000002000 ");
	ck_assert_msg(t != NULL && t < ks, "KSYMBOL not at 2000 ns in:\n%s", out);
	free(out);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("reader_sideband");
	TCase *tc = tcase_create("sideband");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, trailer_after_body);
	tcase_add_test(tc, samples_unchanged);
	tcase_add_test(tc, dump_stats_counts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
