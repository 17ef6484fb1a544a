/*
 * BPF programs named down to file:line from the BPF_PROG_INFO and BPF_BTF
 * features.
 *
 *   - a hand-built program (BTF made with libbpf's writer, line info laid
 *     out by hand): the lines and names the construction implies;
 *   - hostile payloads: every truncation, byte garbling, impossible counts,
 *     the other byte order; and a recording whose feature section is cut;
 *   - the corpus: program counts against the file's BPF_EVENT and KSYMBOL
 *     records and against `perf report --header-only`;
 *   - a live recording: tests/workloads/bpf_spin.c built with clang for
 *     the BPF target, loaded and run through BPF_PROG_TEST_RUN while
 *     `perf record -a` runs.  The expected file:line of every sampled
 *     address is computed here from what the kernel reports for the loaded
 *     program (bpf_obj_get_info_by_fd: jited_ksyms, func_lens, line_info,
 *     jited_line_info) and the object's BTF — not from the perf.data — and
 *     the names are checked against `perf script`.
 */
#include "testutil.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reader/bpf_info.h"
#include "reader/internal.h"
#include "symbols/bpf_lines.h"
#include "symbols/symbolizer.h"

#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#define PATHMAX 4200

/* ------------------------------------------------------ a built program */

typedef struct pbuf {
	uint8_t b[8192];
	size_t n;
} pbuf;

static void put(pbuf *p, const void *v, size_t n)
{
	ck_assert_uint_le(p->n + n, sizeof p->b);
	memcpy(p->b + p->n, v, n);
	p->n += n;
}

static void put32(pbuf *p, uint32_t v) { put(p, &v, 4); }
static void put64(pbuf *p, uint64_t v) { put(p, &v, 8); }

#define K0 0xffffffffc0001000ull   /* pd_main, 0x40 bytes */
#define K1 0xffffffffc0001040ull   /* pd_helper, 0x30 bytes */
#define BTF_ID 7u
static const uint8_t TAG0[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
static const uint8_t TAG1[8] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8 };

typedef struct built {
	pbuf progs;   /* feature 25 payload */
	pbuf btfs;    /* feature 26 payload */
	size_t data_at; /* payload offset of the program's data */
} built;

/*
 * One program of two sub-programs.  Line info (insn, jited address, line):
 * pd_main: (0, K0, 10) (3, K0+0x10, 11) (6, K0+0x20, 12);
 * pd_helper: (9, K1, 20) (11, K1+0x18, 21); file "/src/prog.bpf.c".
 */
static void build(built *out)
{
	memset(out, 0, sizeof *out);
	struct btf *btf = btf__new_empty();
	ck_assert_ptr_nonnull(btf);
	int int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int proto = btf__add_func_proto(btf, int_id);
	int f_main = btf__add_func(btf, "pd_main", BTF_FUNC_GLOBAL, proto);
	int f_help = btf__add_func(btf, "pd_helper", BTF_FUNC_STATIC, proto);
	int file = btf__add_str(btf, "/src/prog.bpf.c");
	ck_assert(int_id > 0 && proto > 0 && f_main > 0 && f_help > 0 && file > 0);
	uint32_t btf_size;
	const void *raw = btf__raw_data(btf, &btf_size);
	ck_assert_ptr_nonnull(raw);

	/* data: jited_ksyms, func_lens, func_info, line_info, jited_line_info, prog_tags */
	pbuf d = { .n = 0 };
	uint64_t o_ksyms = d.n;
	put64(&d, K0);
	put64(&d, K1);
	uint64_t o_lens = d.n;
	put32(&d, 0x40);
	put32(&d, 0x30);
	uint64_t o_finfo = d.n;
	put32(&d, 0); put32(&d, (uint32_t)f_main);
	put32(&d, 9); put32(&d, (uint32_t)f_help);
	uint64_t o_linfo = d.n;
	const uint32_t insn[5] = { 0, 3, 6, 9, 11 }, line[5] = { 10, 11, 12, 20, 21 };
	for (int i = 0; i < 5; i++) {
		put32(&d, insn[i]);
		put32(&d, (uint32_t)file);
		put32(&d, 0);
		put32(&d, line[i] << 10 | 5);
	}
	uint64_t o_jlinfo = d.n;
	const uint64_t jit[5] = { K0, K0 + 0x10, K0 + 0x20, K1, K1 + 0x18 };
	for (int i = 0; i < 5; i++)
		put64(&d, jit[i]);
	uint64_t o_tags = d.n;
	put(&d, TAG0, 8);
	put(&d, TAG1, 8);

	struct bpf_prog_info in;
	memset(&in, 0, sizeof in);
	in.id = 42;
	memcpy(in.tag, TAG0, 8);
	strcpy(in.name, "pd_main");
	in.nr_jited_ksyms = 2;
	in.jited_ksyms = o_ksyms;
	in.nr_jited_func_lens = 2;
	in.jited_func_lens = o_lens;
	in.btf_id = BTF_ID;
	in.func_info_rec_size = 8;
	in.nr_func_info = 2;
	in.func_info = o_finfo;
	in.nr_line_info = 5;
	in.line_info_rec_size = 16;
	in.line_info = o_linfo;
	in.nr_jited_line_info = 5;
	in.jited_line_info_rec_size = 8;
	in.jited_line_info = o_jlinfo;
	in.nr_prog_tags = 2;
	in.prog_tags = o_tags;
	uint64_t arrays = 1u << PD_BPIL_JITED_KSYMS | 1u << PD_BPIL_JITED_FUNC_LENS |
			  1u << PD_BPIL_FUNC_INFO | 1u << PD_BPIL_LINE_INFO |
			  1u << PD_BPIL_JITED_LINE_INFO | 1u << PD_BPIL_PROG_TAGS;

	put32(&out->progs, 1);
	put32(&out->progs, sizeof in);
	put32(&out->progs, (uint32_t)d.n);
	put64(&out->progs, arrays);
	put(&out->progs, &in, sizeof in);
	out->data_at = out->progs.n;
	put(&out->progs, d.b, d.n);

	put32(&out->btfs, 1);
	put32(&out->btfs, BTF_ID);
	put32(&out->btfs, btf_size);
	put(&out->btfs, raw, btf_size);
	btf__free(btf);
}

static void tag_name(char *buf, size_t n, const uint8_t tag[8], const char *suffix)
{
	int k = snprintf(buf, n, "bpf_prog_");
	for (int i = 0; i < 8; i++)
		k += snprintf(buf + k, n - (size_t)k, "%02x", tag[i]);
	snprintf(buf + k, n - (size_t)k, "%s", suffix);
}

START_TEST(built_program_lines)
{
	built b;
	build(&b);
	pd_meta m;
	pd_meta_init(&m);
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_bpf_feature_parse(&m, PD_FEAT_BPF_PROG_INFO, b.progs.b, b.progs.n,
					      false, &perr), 0);
	ck_assert_int_eq(pd_bpf_feature_parse(&m, PD_FEAT_BPF_BTF, b.btfs.b, b.btfs.n, false,
					      &perr), 0);
	ck_assert_uint_eq(m.bpf.nr_progs, 1);
	ck_assert_uint_eq(m.bpf.nr_btfs, 1);
	ck_assert_uint_eq(m.bpf.progs[0].info.id, 42);
	ck_assert_ptr_nonnull(pd_bpf_meta_btf(&m.bpf, BTF_ID));

	pd_bpf_lines *bl = pd_bpf_lines_new(&m.bpf);
	ck_assert_ptr_nonnull(bl);
	char n0[64], n1[64], bad[64];
	tag_name(n0, sizeof n0, TAG0, "_pd_main");
	tag_name(n1, sizeof n1, TAG1, "");   /* a name without its function */
	tag_name(bad, sizeof bad, TAG1, "_pd_main");
	pd_ksym k0 = { K0, K0 + 0x40, 1, n0 }, k1 = { K1, K1 + 0x30, 1, n1 };
	pd_bpf_where w;
	/* each address takes the last jited line at or below it */
	const struct { const pd_ksym *ks; uint64_t addr; unsigned line; const char *fn; } cases[] = {
		{ &k0, K0, 10, "pd_main" },        { &k0, K0 + 0xf, 10, "pd_main" },
		{ &k0, K0 + 0x10, 11, "pd_main" }, { &k0, K0 + 0x3f, 12, "pd_main" },
		{ &k1, K1 + 0x17, 20, "pd_helper" }, { &k1, K1 + 0x2f, 21, "pd_helper" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert(pd_bpf_lines_find(bl, cases[i].ks, cases[i].addr, true, &w));
		ck_assert_str_eq(w.file, "/src/prog.bpf.c");
		ck_assert_uint_eq(w.line, cases[i].line);
		ck_assert_uint_eq(w.col, 5);
		ck_assert_str_eq(w.func_name, cases[i].fn);
	}
	/* a KSYMBOL whose tag is neither the program's nor the sub-program's
	 * belongs to another program loaded at that address */
	pd_ksym kb = { K0, K0 + 0x40, 1, bad };
	ck_assert(!pd_bpf_lines_find(bl, &kb, K0 + 4, true, &w));
	pd_ksym kn = { K0 + 8, K0 + 0x40, 1, n0 };
	ck_assert(!pd_bpf_lines_find(bl, &kn, K0 + 9, true, &w));
	/* no tag in the name: the length decides */
	pd_ksym kt = { K1, K1 + 0x30, 1, "bpf_trampoline_6442" };
	ck_assert(pd_bpf_lines_find(bl, &kt, K1 + 0x20, false, &w));
	ck_assert_ptr_null(w.file);
	ck_assert_str_eq(w.func_name, "pd_helper");
	kt.end = K1 + 0x31;
	ck_assert(!pd_bpf_lines_find(bl, &kt, K1 + 0x20, false, &w));
	pd_bpf_lines_free(bl);
	pd_meta_free(&m);
}
END_TEST

/* A minimal perf.data: one attr, a FINISHED_ROUND, features 25 and 26. */
static bool write_minimal(const char *path, const built *b)
{
	static pbuf f;
	f.n = 0;
	const uint64_t attrs = 104, attr_len = 128 + 16, data = attrs + attr_len, dlen = 8;
	put(&f, "PERFILE2", 8);
	put64(&f, 104);
	put64(&f, attr_len);
	put64(&f, attrs);
	put64(&f, attr_len);
	put64(&f, data);
	put64(&f, dlen);
	put64(&f, 0);
	put64(&f, 0);
	put64(&f, 1ull << PD_FEAT_BPF_PROG_INFO | 1ull << PD_FEAT_BPF_BTF);
	put64(&f, 0);
	put64(&f, 0);
	put64(&f, 0);
	uint8_t attr[128] = { 0 };
	attr[0] = 1;                          /* PERF_TYPE_SOFTWARE */
	uint32_t asize = 128;
	memcpy(attr + 4, &asize, 4);
	put(&f, attr, sizeof attr);
	put64(&f, 0);                         /* ids: none */
	put64(&f, 0);
	put32(&f, 68);                        /* FINISHED_ROUND */
	put32(&f, 8u << 16);
	uint64_t p25 = data + dlen + 32;
	put64(&f, p25);
	put64(&f, b->progs.n);
	put64(&f, p25 + b->progs.n);
	put64(&f, b->btfs.n);
	put(&f, b->progs.b, b->progs.n);
	put(&f, b->btfs.b, b->btfs.n);
	return pd_test_write_file(path, f.b, f.n);
}

/* The symbolizer's use of it: name completed, line with srcline only. */
START_TEST(symbolizer_bpf_frames)
{
	built b;
	build(&b);
	char *dir = pd_test_tmpdir();
	char path[PATHMAX];
	snprintf(path, sizeof path, "%s/min.data", dir);
	ck_assert(write_minimal(path, &b));
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, path, NULL, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(pd_reader_warning_count(r), 0);
	ck_assert_uint_eq(pd_reader_bpf(r)->nr_progs, 1);
	char bare[64], full[64];
	tag_name(bare, sizeof bare, TAG1, "");
	tag_name(full, sizeof full, TAG1, "_pd_helper");
	pd_ksym bare_ks = { K1, K1 + 0x30, 1, bare }, full_ks = { K1, K1 + 0x30, 1, full };
	for (int srcline = 0; srcline < 2; srcline++) {
		pd_symbolizer_config cfg = { .kallsyms = "/dev/null", .srcline = srcline };
		pd_symbolizer *z;
		ck_assert_int_eq(pd_symbolizer_new(&z, &cfg, &err), 0);
		const pd_symres *res = pd_symbolizer_bpf(z, r, &bare_ks, K1 + 0x20);
		ck_assert_ptr_nonnull(res);
		ck_assert_str_eq(res->frames[0].name, full);
		ck_assert_uint_eq(res->sym_start, K1);
		if (srcline) {
			ck_assert_str_eq(res->frames[0].srcfile, "/src/prog.bpf.c");
			ck_assert_uint_eq(res->frames[0].line, 21);
			res = pd_symbolizer_bpf(z, r, &full_ks, K1 + 0x4);
			ck_assert_ptr_nonnull(res);
			ck_assert_str_eq(res->frames[0].name, full);
			ck_assert_uint_eq(res->frames[0].line, 20);
		} else {
			ck_assert_ptr_null(res->frames[0].srcfile);
			/* nothing to add to a full name without lines */
			ck_assert_ptr_null(pd_symbolizer_bpf(z, r, &full_ks, K1 + 0x4));
		}
		pd_symbolizer_free(z);
	}
	pd_reader_free(r);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* --------------------------------------------------- hostile payloads */

/* Parse and, when accepted, use: nothing may crash or read outside. */
static int parse_and_use(const uint8_t *p25, size_t n25, const uint8_t *p26, size_t n26)
{
	pd_meta m;
	pd_meta_init(&m);
	pd_error perr = { 0 };
	int rc = pd_bpf_feature_parse(&m, PD_FEAT_BPF_PROG_INFO, p25, n25, false, &perr);
	if (rc)
		ck_assert_msg(perr.message[0], "an error without a reason");
	int rc2 = pd_bpf_feature_parse(&m, PD_FEAT_BPF_BTF, p26, n26, false, &perr);
	pd_bpf_lines *bl = pd_bpf_lines_new(&m.bpf);
	ck_assert_ptr_nonnull(bl);
	char n0[64];
	tag_name(n0, sizeof n0, TAG0, "");
	for (size_t i = 0; i < m.bpf.nr_progs; i++) {
		const struct bpf_prog_info *in = &m.bpf.progs[i].info;
		const pd_bpf_prog *pr = &m.bpf.progs[i];
		/* every array the reader hands on lies inside the program's data */
		if (in->nr_line_info) {
			uint64_t a = in->line_info - (uintptr_t)pr->data;
			ck_assert_uint_le(a + (uint64_t)in->nr_line_info * in->line_info_rec_size,
					  pr->data_len);
		}
		for (uint32_t f = 0; f < in->nr_jited_ksyms && f < 4; f++) {
			uint64_t k;
			memcpy(&k, (const uint8_t *)(uintptr_t)in->jited_ksyms + 8 * f, 8);
			pd_ksym ks = { k, k + 0x40, 1, n0 };
			pd_bpf_where w;
			for (uint64_t off = 0; off < 0x40; off += 7)
				pd_bpf_lines_find(bl, &ks, k + off, true, &w);
			ks.name = "bpf_prog_x";
			pd_bpf_lines_find(bl, &ks, k, true, &w);
		}
	}
	pd_bpf_lines_free(bl);
	pd_meta_free(&m);
	return rc ? rc : rc2;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

START_TEST(hostile_payloads)
{
	built b;
	build(&b);
	/* every truncation of either feature is refused */
	for (size_t n = 0; n < b.progs.n; n++)
		ck_assert_int_eq(parse_and_use(b.progs.b, n, b.btfs.b, b.btfs.n), PD_ECORRUPT);
	for (size_t n = 0; n < b.btfs.n; n++)
		ck_assert_int_eq(parse_and_use(b.progs.b, b.progs.n, b.btfs.b, n), PD_ECORRUPT);
	ck_assert_int_eq(parse_and_use(b.progs.b, b.progs.n, b.btfs.b, b.btfs.n), 0);

	/* every byte set to values that break counts, offsets, sizes */
	static const uint8_t vals[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
	pbuf g;
	size_t accepted = 0;
	for (size_t i = 0; i < b.progs.n; i++)
		for (size_t v = 0; v < sizeof vals; v++) {
			g = b.progs;
			g.b[i] = vals[v];
			int rc = parse_and_use(g.b, g.n, b.btfs.b, b.btfs.n);
			ck_assert(rc == 0 || rc == PD_ECORRUPT);
			accepted += rc == 0;
		}
	ck_assert_uint_gt(accepted, 0);
	/* garbled BTF goes to libbpf, which must refuse it or give names;
	 * its complaints (on stderr by default) are not wanted here */
	libbpf_print_fn_t old_print = libbpf_set_print(quiet);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 2000; round++) {
		pbuf h = b.btfs;
		for (int k = 0; k < 4; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			h.b[12 + (x >> 33) % (h.n - 12)] = (uint8_t)(x >> 17);
		}
		parse_and_use(b.progs.b, b.progs.n, h.b, h.n);
	}
	libbpf_set_print(old_print);

	/* impossible counts and sizes: refused, and nothing sized by them */
	pbuf c = { .n = 0 };
	put32(&c, 0xffffffffu);
	ck_assert_int_eq(parse_and_use(c.b, c.n, b.btfs.b, b.btfs.n), PD_ECORRUPT);
	ck_assert_int_eq(parse_and_use(b.progs.b, b.progs.n, c.b, c.n), PD_ECORRUPT);
	g = b.progs;
	uint32_t big = 0xfffffff0u;
	memcpy(g.b + 4, &big, 4);                          /* info_len */
	ck_assert_int_eq(parse_and_use(g.b, g.n, b.btfs.b, b.btfs.n), PD_ECORRUPT);
	g = b.progs;
	memcpy(g.b + 8, &big, 4);                          /* data_len */
	ck_assert_int_eq(parse_and_use(g.b, g.n, b.btfs.b, b.btfs.n), PD_ECORRUPT);
	/* an array count that runs past the data; a record size that makes
	 * count × size overflow 32 bits */
	const size_t info_at = 16 + 4;
	g = b.progs;
	uint32_t nl = 0x10000000u;
	memcpy(g.b + info_at + offsetof(struct bpf_prog_info, nr_line_info), &nl, 4);
	ck_assert_int_eq(parse_and_use(g.b, g.n, b.btfs.b, b.btfs.n), PD_ECORRUPT);
	g = b.progs;
	memcpy(g.b + info_at + offsetof(struct bpf_prog_info, line_info_rec_size), &big, 4);
	ck_assert_int_eq(parse_and_use(g.b, g.n, b.btfs.b, b.btfs.n), PD_ECORRUPT);
	/* an offset past the data */
	g = b.progs;
	uint64_t far = 1ull << 40;
	memcpy(g.b + info_at + offsetof(struct bpf_prog_info, jited_ksyms), &far, 8);
	ck_assert_int_eq(parse_and_use(g.b, g.n, b.btfs.b, b.btfs.n), PD_ECORRUPT);
	/* record sizes below the kernel's minimum drop the array, not the program */
	g = b.progs;
	uint32_t four = 4;
	memcpy(g.b + info_at + offsetof(struct bpf_prog_info, line_info_rec_size), &four, 4);
	pd_meta m;
	pd_meta_init(&m);
	pd_error perr = { 0 };
	ck_assert_int_eq(pd_bpf_feature_parse(&m, PD_FEAT_BPF_PROG_INFO, g.b, g.n, false, &perr), 0);
	ck_assert_uint_eq(m.bpf.nr_progs, 1);
	ck_assert_uint_eq(m.bpf.progs[0].info.nr_line_info, 0);
	ck_assert_uint_eq(m.bpf.progs[0].info.line_info, 0);
	ck_assert_uint_eq(m.bpf.progs[0].info.nr_jited_ksyms, 2);
	/* an array whose bit is clear in `arrays` is not there */
	g = b.progs;
	g.b[12] &= (uint8_t)~(1u << PD_BPIL_JITED_KSYMS);
	pd_meta_free(&m);
	pd_meta_init(&m);
	ck_assert_int_eq(pd_bpf_feature_parse(&m, PD_FEAT_BPF_PROG_INFO, g.b, g.n, false, &perr), 0);
	ck_assert_uint_eq(m.bpf.progs[0].info.nr_jited_ksyms, 0);
	ck_assert_uint_eq(m.bpf.progs[0].info.jited_ksyms, 0);
	/* a shorter recorded struct is zero-extended, a longer one cut */
	pd_meta_free(&m);
	pd_meta_init(&m);
	g = b.progs;
	uint32_t longer = sizeof(struct bpf_prog_info) + 8;
	pbuf l = { .n = 0 };
	put32(&l, 1);
	put32(&l, longer);
	put(&l, g.b + 8, 12);                                     /* data_len, arrays */
	put(&l, g.b + info_at, sizeof(struct bpf_prog_info));
	put64(&l, 0xdeadbeefull);                                 /* a newer field */
	put(&l, g.b + b.data_at, g.n - b.data_at);
	ck_assert_int_eq(pd_bpf_feature_parse(&m, PD_FEAT_BPF_PROG_INFO, l.b, l.n, false, &perr), 0);
	ck_assert_uint_eq(m.bpf.nr_progs, 1);
	ck_assert_uint_eq(m.bpf.progs[0].info.nr_line_info, 5);
	/* the other byte order is not read, as perf does not */
	pd_meta_free(&m);
	pd_meta_init(&m);
	ck_assert_int_eq(pd_bpf_feature_parse(&m, PD_FEAT_BPF_PROG_INFO, b.progs.b, b.progs.n,
					      true, &perr), PD_EUNSUPPORTED);
	ck_assert_int_eq(pd_bpf_feature_parse(&m, PD_FEAT_BPF_BTF, b.btfs.b, b.btfs.n, true,
					      &perr), PD_EUNSUPPORTED);
	ck_assert_uint_eq(m.bpf.nr_progs, 0);
	pd_meta_free(&m);
}
END_TEST

/* ------------------------------------------------------------- files */

/* The section (offset, length) of feature `feat` of a native-order file. */
static bool feature_section(const uint8_t *f, size_t n, unsigned feat, size_t *entry)
{
	if (n < 104)
		return false;
	uint64_t doff, dsize, bits[4];
	memcpy(&doff, f + 40, 8);
	memcpy(&dsize, f + 48, 8);
	memcpy(bits, f + 72, sizeof bits);
	if (!(bits[feat / 64] >> (feat % 64) & 1))
		return false;
	uint64_t at = doff + dsize;
	for (unsigned i = 1; i < feat; i++)
		if (bits[i / 64] >> (i % 64) & 1)
			at += 16;
	if (at + 16 > n)
		return false;
	*entry = at;
	return true;
}

typedef struct counts {
	size_t ksym_bpf;       /* KSYMBOL type 1 registrations */
	uint64_t ksym_addr[512];
	size_t nks;
	uint32_t event_ids[512];
	size_t nevents;        /* BPF_EVENT loads */
} counts;

static void count_records(pd_reader *r, counts *c)
{
	memset(c, 0, sizeof *c);
	const pd_record *rec;
	pd_error err;
	int rc;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
		if (rec->type == PD_RECORD_KSYMBOL && rec->u.ksymbol.ksym_type == 1 &&
		    !(rec->u.ksymbol.flags & 1)) {
			c->ksym_bpf++;
			if (c->nks < 512)
				c->ksym_addr[c->nks++] = rec->u.ksymbol.addr;
		}
		if (rec->type == PD_RECORD_BPF_EVENT && rec->u.bpf_event.type == 1 &&
		    c->nevents < 512)
			c->event_ids[c->nevents++] = rec->u.bpf_event.id;
	}
	ck_assert_int_eq(rc, PD_ITEROVER);
}

/* `perf report --header-only` lines starting with `prefix`, or -1. */
static int perf_header_count(const char *path, const char *prefix)
{
	if (!pd_test_have_perf())
		return -1;
	char cmd[PATHMAX + 128];
	snprintf(cmd, sizeof cmd, "perf report -i '%s' --header-only 2>/dev/null", path);
	int st;
	char *out = pd_test_run(cmd, &st);
	if (!out || st != 0 || !strstr(out, "# hostname")) {
		free(out);
		return -1; /* perf 6.1 cannot read newer files */
	}
	int n = 0;
	for (char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	free(out);
	return n;
}

/* Checks the BPF features of `path` against its records (and perf). */
static void check_recording(const char *path, size_t *nprogs)
{
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, path, NULL, &err) == 0, "%s", err.message);
	const pd_bpf_meta *m = pd_reader_bpf(r);
	counts c;
	count_records(r, &c);
	for (size_t i = 0; i < pd_reader_warning_count(r); i++)
		ck_assert_msg(!strstr(pd_reader_warning(r, i), "BPF"), "%s",
			      pd_reader_warning(r, i));
	/* every program loaded during the recording (BPF_EVENT) is described,
	 * and each described program's entry points were announced */
	size_t sub = 0;
	for (size_t i = 0; i < m->nr_progs; i++) {
		const struct bpf_prog_info *in = &m->progs[i].info;
		for (uint32_t f = 0; f < in->nr_jited_ksyms; f++) {
			uint64_t k;
			memcpy(&k, (const uint8_t *)(uintptr_t)in->jited_ksyms + 8 * f, 8);
			bool seen = false;
			for (size_t j = 0; j < c.nks && !seen; j++)
				seen = c.ksym_addr[j] == k;
			ck_assert_msg(seen, "%s: program %u entry %#" PRIx64 " has no KSYMBOL",
				      path, in->id, k);
			sub++;
		}
		if (in->btf_id)
			ck_assert_msg(pd_bpf_meta_btf(m, in->btf_id), "%s: btf %u missing", path,
				      in->btf_id);
	}
	ck_assert_uint_le(sub, c.ksym_bpf);
	for (size_t j = 0; j < c.nevents; j++) {
		bool found = false;
		for (size_t i = 0; i < m->nr_progs && !found; i++)
			found = m->progs[i].info.id == c.event_ids[j];
		if (!found)
			fprintf(stderr, "note %s: BPF_EVENT id %u has no BPF_PROG_INFO entry\n",
				path, c.event_ids[j]);
	}
	int perf_progs = perf_header_count(path, "# bpf_prog_info ");
	int perf_btfs = perf_header_count(path, "# btf info of id ");
	/* A perf that reads the file but prints nothing of either section did
	 * not decode them (a perf older than the file skips a bpf_prog_info
	 * larger than its own, silently): no oracle then, and the BPF_EVENT
	 * count the caller checks stays the only one. */
	if (perf_progs == 0 && perf_btfs == 0 && m->nr_progs > 0) {
		fprintf(stderr, "note %s: perf printed no BPF sections; not compared\n", path);
		perf_progs = perf_btfs = -1;
	}
	if (perf_progs >= 0) {
		ck_assert_int_eq(perf_progs, (int)m->nr_progs);
		ck_assert_int_eq(perf_btfs, (int)m->nr_btfs);
	}
	fprintf(stderr, "%s: %zu programs (%zu entry points), %zu BTF, %zu KSYMBOL, "
		"%zu BPF_EVENT loads, perf header %d/%d\n", path, m->nr_progs, sub, m->nr_btfs,
		c.ksym_bpf, c.nevents, perf_progs, perf_btfs);
	*nprogs = m->nr_progs;
	pd_reader_free(r);
}

START_TEST(corpus_files)
{
	static const struct { const char *rel; size_t progs; } files[] = {
		/* BPF_EVENT load records: 14 and 35; the fixtures' sleep.data
		 * has the feature with no program */
		{ "linux-perf-data/tests/fixtures/sleep.compressed.data", 14 },
		{ "perf_data_converter/src/quipper/testdata/perf.data.branch_stack_spec", 35 },
		{ "linux-perf-data/tests/fixtures/sleep.data", 0 },
	};
	if (!pd_test_corpus_present())
		PD_SKIP("no corpus");
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char buf[PATHMAX];
		const char *p = pd_test_corpus(buf, sizeof buf, files[i].rel);
		if (access(p, R_OK) != 0) {
			fprintf(stderr, "note: %s absent\n", p);
			continue;
		}
		size_t n;
		check_recording(p, &n);
		ck_assert_uint_eq(n, files[i].progs);
	}
	/* samples in these programs must not trip the symbolizer */
	char buf[PATHMAX];
	const char *p = pd_test_corpus(buf, sizeof buf, files[1].rel);
	if (access(p, R_OK) == 0) {
		char *err = NULL;
		int st;
		char args[PATHMAX + 64];
		snprintf(args, sizeof args, "script --srcline --kallsyms /dev/null '%s'", p);
		free(pd_test_cli(NULL, args, &st, &err));
		ck_assert_int_le(st, 1);
		free(err);
	}
}
END_TEST

/* A copy of `src` with feature `feat`'s section cut to `len` bytes, or its
 * first word set to `word` (when len is SIZE_MAX). */
static bool damaged_copy(const char *src, const char *dst, size_t len, uint32_t word)
{
	size_t n;
	uint8_t *f = pd_test_read_file(src, &n);
	size_t e;
	if (!f || !feature_section(f, n, PD_FEAT_BPF_PROG_INFO, &e)) {
		free(f);
		return false;
	}
	uint64_t off, sz;
	memcpy(&off, f + e, 8);
	memcpy(&sz, f + e + 8, 8);
	if (len != SIZE_MAX) {
		uint64_t l = len < sz ? len : sz;
		memcpy(f + e + 8, &l, 8);
	} else if (off + 4 <= n) {
		memcpy(f + off, &word, 4);
	}
	bool ok = pd_test_write_file(dst, f, n);
	free(f);
	return ok;
}

/* A damaged feature section is skipped with a warning; records still come. */
static void check_damaged(const char *src, const char *dir)
{
	char dst[PATHMAX];
	snprintf(dst, sizeof dst, "%s/damaged.data", dir);
	size_t n;
	uint8_t *f = pd_test_read_file(src, &n);
	size_t e;
	ck_assert(f && feature_section(f, n, PD_FEAT_BPF_PROG_INFO, &e));
	uint64_t sz;
	memcpy(&sz, f + e + 8, 8);
	free(f);
	const size_t cuts[] = { 1, 3, 4, 5, 19, 20, 100, sz / 3, sz / 2, sz - 1 };
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0] + 2; i++) {
		bool cut = i < sizeof cuts / sizeof cuts[0];
		if (cut && cuts[i] >= sz)
			continue;
		ck_assert(damaged_copy(src, dst, cut ? cuts[i] : SIZE_MAX,
				       i == sizeof cuts / sizeof cuts[0] ? 0xffffffffu : 0x7fffffffu));
		pd_reader *r;
		pd_error err;
		ck_assert_msg(pd_reader_open(&r, dst, NULL, &err) == 0, "%s", err.message);
		ck_assert_uint_eq(pd_reader_bpf(r)->nr_progs, 0);
		bool warned = false;
		for (size_t w = 0; w < pd_reader_warning_count(r); w++)
			warned |= strstr(pd_reader_warning(r, w), "BPF_PROG_INFO") != NULL;
		ck_assert_msg(warned, "no warning for a damaged BPF_PROG_INFO (cut %zu)",
			      cut ? cuts[i] : 0);
		counts c;
		count_records(r, &c);
		pd_reader_free(r);
	}
}

START_TEST(damaged_sections)
{
	char buf[PATHMAX];
	const char *p = pd_test_corpus(buf, sizeof buf,
		"perf_data_converter/src/quipper/testdata/perf.data.branch_stack_spec");
	if (!p || access(p, R_OK) != 0)
		PD_SKIP("corpus file with BPF programs absent");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	check_damaged(p, dir);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* ------------------------------------------------------------ live */

/* What the kernel says about the loaded program: the oracle. */
typedef struct kinfo {
	uint32_t id;
	uint32_t nfunc, nline;
	uint64_t ksyms[16];
	uint32_t lens[16];
	struct bpf_line_info lines[512];
	uint64_t jited[512];
} kinfo;

static bool kernel_info(int fd, kinfo *k)
{
	memset(k, 0, sizeof *k);
	struct bpf_prog_info in;
	memset(&in, 0, sizeof in);
	uint32_t len = sizeof in;
	if (bpf_obj_get_info_by_fd(fd, &in, &len) != 0)
		return false;
	if (in.nr_jited_ksyms > 16 || in.nr_line_info > 512 ||
	    in.nr_jited_line_info != in.nr_line_info || in.nr_jited_func_lens != in.nr_jited_ksyms)
		return false;
	k->id = in.id;
	k->nfunc = in.nr_jited_ksyms;
	k->nline = in.nr_line_info;
	struct bpf_prog_info q;
	memset(&q, 0, sizeof q);
	q.nr_jited_ksyms = k->nfunc;
	q.jited_ksyms = (uintptr_t)k->ksyms;
	q.nr_jited_func_lens = k->nfunc;
	q.jited_func_lens = (uintptr_t)k->lens;
	q.nr_line_info = k->nline;
	q.line_info_rec_size = sizeof(struct bpf_line_info);
	q.line_info = (uintptr_t)k->lines;
	q.nr_jited_line_info = k->nline;
	q.jited_line_info_rec_size = sizeof(uint64_t);
	q.jited_line_info = (uintptr_t)k->jited;
	len = sizeof q;
	return bpf_obj_get_info_by_fd(fd, &q, &len) == 0 && k->nline > 0;
}

/* Expected line of `addr`: in the function whose jited range holds it,
 * the last jited line entry of that function at or below it. */
static bool expected_line(const kinfo *k, const struct btf *btf, uint64_t addr,
			  const char **file, unsigned *line)
{
	for (uint32_t f = 0; f < k->nfunc; f++) {
		if (addr < k->ksyms[f] || addr >= k->ksyms[f] + k->lens[f])
			continue;
		int best = -1;
		for (uint32_t i = 0; i < k->nline; i++)
			if (k->jited[i] >= k->ksyms[f] && k->jited[i] < k->ksyms[f] + k->lens[f] &&
			    k->jited[i] <= addr)
				best = (int)i;
		if (best < 0)
			return false;
		*file = btf__name_by_offset(btf, k->lines[best].file_name_off);
		*line = BPF_LINE_INFO_LINE_NUM(k->lines[best].line_col);
		return *file != NULL;
	}
	return false;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Address → name as `perf script` prints BPF frames. */
typedef struct perf_names {
	uint64_t addr[4096];
	char name[4096][96];
	size_t n;
} perf_names;

static void load_perf_names(const char *data, perf_names *pn)
{
	pn->n = 0;
	char cmd[PATHMAX + 128];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' -F ip,sym 2>/dev/null | "
		 "grep ' bpf_prog_' | sort -u", data);
	int st;
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	for (char *l = out; *l && pn->n < 4096;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		uint64_t a;
		char name[96];
		if (sscanf(l, " %" SCNx64 " %95s", &a, name) == 2) {
			pn->addr[pn->n] = a;
			strcpy(pn->name[pn->n], name);
			pn->n++;
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	free(out);
}

static const char *perf_name(const perf_names *pn, uint64_t a)
{
	for (size_t i = 0; i < pn->n; i++)
		if (pn->addr[i] == a)
			return pn->name[i];
	return NULL;
}

START_TEST(live_program_lines)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(false, &dir));
	char obj_path[PATHMAX], data[PATHMAX], src[PATHMAX];
	snprintf(src, sizeof src, "%s/bpf_spin.c", WORKLOAD_DIR);
	snprintf(obj_path, sizeof obj_path, "%s/bpf_spin.o", dir);
	snprintf(data, sizeof data, "%s/bpf.data", dir);
	if (!pd_test_compile("clang", "-O2 -g -target bpf -c", obj_path, src)) {
		pd_test_lab_close(dir);
		PD_SKIP("clang cannot build for the BPF target");
	}
	struct bpf_object *obj = bpf_object__open_file(obj_path, NULL);
	ck_assert_ptr_nonnull(obj);

	/* perf first, so that the load is seen as it happens (KSYMBOL and
	 * BPF_EVENT from the kernel, program info fetched by perf's side-band
	 * thread) */
	char cmd[PATHMAX * 2];
	snprintf(cmd, sizeof cmd, "perf record -N -a -g -e cpu-clock -o '%s' -- sleep 4 "
		 ">/dev/null 2>&1", data);
	FILE *perf = popen(cmd, "r");
	ck_assert_ptr_nonnull(perf);
	sleep(1);
	int rc = bpf_object__load(obj);
	if (rc) {
		pclose(perf);
		bpf_object__close(obj);
		pd_test_lab_close(dir);
		if (rc == -EPERM || rc == -EACCES)
			PD_SKIP("loading BPF programs is not permitted here");
		ck_abort_msg("bpf_object__load: %d", rc);
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "pd_spin");
	ck_assert_ptr_nonnull(prog);
	int fd = bpf_program__fd(prog);
	static kinfo k;
	ck_assert(kernel_info(fd, &k));
	ck_assert_uint_eq(k.nfunc, 2);
	char pkt[64] = { 0 };
	double t0 = now_s();
	unsigned runs = 0;
	while (now_s() - t0 < 1.5) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof pkt,
			    .repeat = 20000);
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &o), 0);
		runs++;
	}
	int st = pclose(perf);
	/* keep the program loaded until perf is done with it */
	const struct btf *btf = bpf_object__btf(obj);
	ck_assert_ptr_nonnull(btf);
	if (st != 0 || access(data, R_OK) != 0) {
		bpf_object__close(obj);
		pd_test_lab_close(dir);
		PD_SKIP("perf record -a failed (status %d)", st);
	}

	/* the features are there and describe the program */
	pd_session_options opts;
	pd_session_options_init(&opts, PD_SESSION_OPTIONS_VERSION);
	opts.flags |= PD_SESSION_SRCLINE;
	pd_session *s;
	pd_error err;
	ck_assert_msg(pd_session_open(&s, data, &opts, &err) == 0, "%s", err.message);
	const pd_reader *r = pd_session_reader(s);
	const pd_header_info *h = pd_reader_header(r);
	ck_assert(h->features[0] >> PD_FEAT_BPF_PROG_INFO & 1);
	ck_assert(h->features[0] >> PD_FEAT_BPF_BTF & 1);
	const pd_bpf_meta *m = pd_reader_bpf(r);
	const pd_bpf_prog *mine = NULL;
	for (size_t i = 0; i < m->nr_progs; i++)
		if (m->progs[i].info.id == k.id)
			mine = &m->progs[i];
	ck_assert_msg(mine, "program %u not in BPF_PROG_INFO (%zu programs)", k.id, m->nr_progs);
	ck_assert_uint_eq(mine->info.nr_jited_ksyms, 2);
	ck_assert_uint_eq(mine->info.nr_line_info, k.nline);

	static perf_names pn;
	load_perf_names(data, &pn);
	const pd_resolved_sample *smp;
	size_t checked = 0, named = 0, leaves = 0;
	unsigned lines_seen[4] = { 0 };
	size_t nlines_seen = 0;
	const char *hot_file = NULL;
	unsigned hot_line = 0;
	while ((rc = pd_session_next(s, &smp, &err)) == 0) {
		for (size_t i = 0; i < smp->nframes; i++) {
			const pd_frame *f = &smp->frames[i];
			uint64_t look = i == 0 ? f->addr : f->addr - 1;
			const char *file;
			unsigned line;
			if (!expected_line(&k, btf, look, &file, &line))
				continue;
			ck_assert_str_eq(f->dso, "[bpf_prog]");
			ck_assert_msg(f->srcfile && strcmp(f->srcfile, file) == 0 && f->line == line,
				      "%#" PRIx64 ": %s:%u, the kernel's line info says %s:%u",
				      f->addr, f->srcfile ? f->srcfile : "(none)", f->line, file,
				      line);
			checked++;
			const char *pname = perf_name(&pn, f->addr);
			if (pname) {
				ck_assert_str_eq(f->symbol, pname);
				named++;
			}
			if (i == 0) {
				leaves++;
				hot_file = f->srcfile;
				hot_line = f->line;
			}
			bool have = false;
			for (size_t j = 0; j < nlines_seen; j++)
				have |= lines_seen[j] == line;
			if (!have && nlines_seen < 4)
				lines_seen[nlines_seen++] = line;
		}
	}
	ck_assert_int_eq(rc, PD_ITEROVER);
	fprintf(stderr, "live: %u × 20000 runs, program %u: %zu frames checked against the "
		"kernel's line info (%zu leaves, %zu named as perf script does), %zu+ lines\n",
		runs, k.id, checked, leaves, named, nlines_seen);
	ck_assert_uint_ge(checked, 50);
	ck_assert_uint_ge(named, checked / 2);
	ck_assert_uint_ge(nlines_seen, 2);

	/* the CLI shows it */
	char args[PATHMAX + 64], want[PATHMAX];
	snprintf(args, sizeof args, "script --srcline '%s'", data);
	const char *base = strrchr(hot_file, '/') ? strrchr(hot_file, '/') + 1 : hot_file;
	snprintf(want, sizeof want, "\n  %s:%u\n", base, hot_line);
	char *out = pd_test_cli(dir, args, &st, NULL);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, want), "perfdiff script --srcline lacks '%s'", want + 1);
	free(out);

	pd_session_free(s);
	bpf_object__close(obj);
	check_damaged(data, dir);
	pd_test_lab_close(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("bpf");
	TCase *tc = tcase_create("bpf");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, built_program_lines);
	tcase_add_test(tc, symbolizer_bpf_frames);
	tcase_add_test(tc, hostile_payloads);
	tcase_add_test(tc, corpus_files);
	tcase_add_test(tc, damaged_sections);
	tcase_add_test(tc, live_program_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
