/*
 * The library's output helpers (libperfdiff/output), tested directly: the
 * hand-written number formatting against printf, the JSON strings, numbers
 * and reals against jansson (whose bytes the CLI's JSON once was, and
 * docs/report-json.md and docs/diff-json.md promise), the text escaping against a byte-at-a-time
 * reference, the name cache against the uncached paths, and the commas of
 * the public pd_json_* writer; and that a program on the public headers
 * alone (tests/programs/diff_min.c) writes a diff as the CLI does.  The UTF-8 cases and the formatting checks
 * came from test_cli.c, where they tested the CLI's own copies.
 */
#include "testutil.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "output/namecache.h"
#include "output/utf8.h"
#include "output/writer.h"

/* The JSON string jansson was given: ill-formed bytes replaced by U+FFFD. */
static char *sanitize(const char *s, size_t n, size_t *outlen)
{
	char *out = malloc(3 * n + 1);
	ck_assert_ptr_nonnull(out);
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t l = pdo_utf8_seq_len((const unsigned char *)s + i, n - i);
		if (l == 0) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, s + i, l);
			o += l;
			i += l;
		}
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

static bool is_valid(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t l = pdo_utf8_seq_len((const unsigned char *)s + i, n - i);
		if (l == 0)
			return false;
		i += l;
	}
	return true;
}

/* --------------------------------- the formatting of `perfdiff script` */

static char *wr_string(pd_writer *b)
{
	ck_assert(!b->failed);
	char *s = malloc(b->len + 1);
	ck_assert_ptr_nonnull(s);
	memcpy(s, b->p, b->len);
	s[b->len] = '\0';
	b->len = 0;
	return s;
}

START_TEST(test_script_numbers)
{
	static const uint64_t values[] = {
		0, 1, 9, 10, 15, 16, 99, 100, 255, 256, 999, 1000, 4095, 65535,
		123456, 999999, 1000000, 0x7fffffffu, 4294967295u, 4294967296u,
		0xffffffff81000000u, 999999999999999999u, 1000000000000000000u,
		INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX,
	};
	static const unsigned widths[] = { 0, 1, 3, 5, 6, 9, 10, 16, 20, 24 };
	pd_writer b = { 0 };
	char want[64];
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		uint64_t v = values[i];
		for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
			int w = (int)widths[k];
			const struct {
				char pad;
				bool left;
				const char *fmt;
			} forms[] = {
				{ ' ', false, "%*" PRIu64 },
				{ '0', false, "%0*" PRIu64 },
				{ ' ', true, "%-*" PRIu64 },
			};
			for (size_t f = 0; f < 3; f++) {
				ck_assert(pdo_reserve(&b, 64));
				pdo_dec_r(&b, v, (unsigned)w, forms[f].pad, forms[f].left);
				char *got = wr_string(&b);
				snprintf(want, sizeof want, forms[f].fmt, w, v);
				ck_assert_msg(strcmp(got, want) == 0, "'%s' gives '%s', printf '%s'",
					      forms[f].fmt, got, want);
				free(got);
			}
			ck_assert(pdo_reserve(&b, 64));
			pdo_hex_r(&b, v, (unsigned)w);
			char *got = wr_string(&b);
			snprintf(want, sizeof want, "%*" PRIx64, w, v);
			ck_assert_msg(strcmp(got, want) == 0, "hex gives '%s', printf '%s'", got,
				      want);
			free(got);
		}
		pdo_json_u64(&b, v);
		char *got = wr_string(&b);
		if (v <= (uint64_t)INT64_MAX)
			snprintf(want, sizeof want, "%" PRIu64, v);
		else
			snprintf(want, sizeof want, "\"%" PRIu64 "\"", v);
		ck_assert_str_eq(got, want);
		free(got);
		pdo_json_hex(&b, v);
		got = wr_string(&b);
		snprintf(want, sizeof want, "\"0x%" PRIx64 "\"", v);
		ck_assert_str_eq(got, want);
		free(got);
	}
	free(b.p);
}
END_TEST

/* What jansson writes for jo_str(s): ill-formed bytes replaced, then
 * jansson's own escaping. */
static char *jansson_string(const char *s)
{
	size_t n = strlen(s), len;
	char *clean = sanitize(s, n, &len);
	ck_assert_ptr_nonnull(clean);
	json_t *v = json_stringn(clean, len);
	ck_assert_ptr_nonnull(v);
	char *out = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	ck_assert_ptr_nonnull(out);
	json_decref(v);
	free(clean);
	return out;
}

/* The text escaping spelled out a byte at a time, as the CLI's
 * utf8_fput_escaped() wrote it before the library had it. */
static char *reference_escaped(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = malloc(4 * n + 1);
	ck_assert_ptr_nonnull(out);
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t l = pdo_utf8_seq_len(p + i, n - i);
		bool ctl = l == 0 || (l == 1 && (p[i] < 0x20 || p[i] == 0x7F)) ||
			   (l == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0);
		size_t k = l ? l : 1;
		for (size_t j = 0; j < k; j++) {
			if (ctl)
				o += (size_t)sprintf(out + o, "\\x%02x", p[i + j]);
			else if (p[i + j] == '\\')
				o += (size_t)sprintf(out + o, "\\\\");
			else
				out[o++] = (char)p[i + j];
		}
		i += k;
	}
	out[o] = '\0';
	return out;
}

/* pdo_put_escaped / pdo_json_str and their cached forms against a
 * reference escaper and jansson, for every single byte and for long
 * strings with multi-byte and ill-formed sequences at every position
 * around utf8_fput_escaped's chunk boundary. */
static void check_string(pd_writer *b, name_cache *nc, const char *s)
{
	char *want = reference_escaped(s);
	pdo_put_escaped(b, s);
	char *got = wr_string(b);
	ck_assert_msg(strcmp(got, want) == 0, "escaped text differs for a %zu-byte string",
		      strlen(s));
	free(got);
	for (int pass = 0; pass < 2; pass++) { /* a miss, then a hit */
		pdo_put_name(b, nc, s);
		got = wr_string(b);
		ck_assert_msg(strcmp(got, want) == 0, "cached text differs");
		free(got);
	}
	free(want);

	want = jansson_string(s);
	pdo_json_str(b, s);
	got = wr_string(b);
	ck_assert_msg(strcmp(got, want) == 0, "JSON '%s', jansson '%s'", got, want);
	free(got);
	for (int pass = 0; pass < 2; pass++) {
		pdo_json_name(b, nc, s);
		got = wr_string(b);
		ck_assert_msg(strcmp(got, want) == 0, "cached JSON '%s', jansson '%s'", got,
			      want);
		free(got);
	}
	free(want);
}

START_TEST(test_script_strings)
{
	pd_writer b = { 0 };
	name_cache *nc = calloc(1, sizeof *nc);
	ck_assert_ptr_nonnull(nc);
	/* distinct buffers: the cache is keyed by address */
	static char single[255][4];
	for (int c = 1; c < 256; c++) {
		snprintf(single[c - 1], sizeof single[c - 1], "a%cz", c);
		check_string(&b, nc, single[c - 1]);
	}
	static const char *pieces[] = {
		"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xFF", "\xE2\x82",
		"\xC2\x85", "\\", "\"", "\x7F", "\x01", "\n", "x",
	};
	for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++)
		for (size_t at = 1016; at <= 1028; at++) {
			char *s = malloc(2100);
			ck_assert_ptr_nonnull(s);
			memset(s, 'a', at);
			strcpy(s + at, pieces[p]);
			size_t l = strlen(s);
			memset(s + l, 'b', 1500 - l);
			s[1500] = '\0';
			check_string(&b, nc, s);
			free(s);
		}
	/* a run of continuation bytes across the boundary */
	char *s = malloc(1200);
	ck_assert_ptr_nonnull(s);
	memset(s, 'a', 1200);
	memset(s + 1018, 0x80, 12);
	s[1199] = '\0';
	check_string(&b, nc, s);
	free(s);

	pdo_json_str(&b, NULL);
	pdo_json_name(&b, nc, NULL);
	char *got = wr_string(&b);
	ck_assert_str_eq(got, "nullnull");
	free(got);
	free(nc);
	free(b.p);
}
END_TEST

START_TEST(test_utf8_helper)
{
	static const struct {
		const char *in;
		size_t n;
		const char *out;
	} cases[] = {
		{ "plain", 5, "plain" },
		{ "caf\xC3\xA9", 5, "caf\xC3\xA9" },
		{ "\xF0\x9F\x98\x80", 4, "\xF0\x9F\x98\x80" },   /* U+1F600 */
		{ "a\xFF" "b", 3, "a\xEF\xBF\xBD" "b" },
		{ "\xC0\xAF", 2, "\xEF\xBF\xBD\xEF\xBF\xBD" },     /* overlong '/' */
		{ "\xE0\x80\xAF", 3, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },
		{ "\xED\xA0\x80", 3, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" }, /* surrogate */
		{ "\xF4\x90\x80\x80", 4, /* above U+10FFFF */
		  "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },
		{ "x\xE2\x82", 3, "x\xEF\xBF\xBD\xEF\xBF\xBD" }, /* cut sequence */
		{ "\xF4\x8F\xBF\xBF", 4, "\xF4\x8F\xBF\xBF" },   /* U+10FFFF */
		{ "", 0, "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = 99;
		char *s = sanitize(cases[i].in, cases[i].n, &len);
		ck_assert_ptr_nonnull(s);
		ck_assert_msg(strcmp(s, cases[i].out) == 0, "case %zu", i);
		ck_assert_uint_eq(len, strlen(cases[i].out));
		ck_assert(is_valid(s, len));
		ck_assert(is_valid(cases[i].in, cases[i].n) ==
			  (strcmp(cases[i].in, cases[i].out) == 0));
		free(s);
	}

	pd_writer b = { 0 };
	pdo_put_escaped(&b, "a\tb\\c\xC2\x85\xC3\xA9\xFF\n");
	char *buf = wr_string(&b);
	ck_assert_str_eq(buf, "a\\x09b\\\\c\\xc2\\x85\xC3\xA9\\xff\\x0a");
	free(buf);
	free(b.p);
}
END_TEST

/* Reals as jansson's compact dump prints them. */
START_TEST(test_json_reals)
{
	static const double values[] = {
		0, -0.0, 0.1, 1.0 / 3, 100, 2.5, 1e15, 1e16, 1.5e16, 1e17, 123e15, 1e21, 1e-4,
		1e-5, 0.00012345, 5e-324, 1.7976931348623157e308, -3.25e-7, 0.3,
		9007199254740993.0, 12.34, -12.5, 0.05, 0.6, 1e100, -1e-100,
	};
	pd_writer b = { 0 };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		json_t *v = json_real(values[i]);
		char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		json_decref(v);
		pdo_json_real(&b, values[i]);
		char *got = wr_string(&b);
		ck_assert_msg(strcmp(got, want) == 0, "%.17g: '%s', jansson '%s'", values[i], got,
			      want);
		free(got);
		free(want);
	}
	pdo_json_real(&b, NAN);
	pdo_json_real(&b, INFINITY);
	char *got = wr_string(&b);
	ck_assert_str_eq(got, "nullnull");
	free(got);
	free(b.p);
}
END_TEST

/* The commas and nesting of the public JSON writer, against jansson's
 * dump of the same document. */
START_TEST(test_json_structure)
{
	pd_writer b = { 0 };
	pd_json_begin_object(&b);
	pd_json_key(&b, "a");
	pd_json_begin_array(&b);
	pd_json_begin_array(&b);
	pd_json_end_array(&b);
	pd_json_u64(&b, UINT64_MAX);
	pd_json_begin_object(&b);
	pd_json_end_object(&b);
	pd_json_i64(&b, -5);
	pd_json_end_array(&b);
	pd_json_key(&b, "k\"ey");
	pd_json_bool(&b, true);
	pd_json_newline(&b);
	pd_json_key(&b, "s");
	pd_json_string(&b, "x\xFFy");
	pd_json_key(&b, "n");
	pd_json_null(&b);
	pd_json_key(&b, "h");
	pd_json_hex(&b, 0xabc);
	pd_json_key(&b, "r");
	pd_json_real(&b, 2.0);
	pd_json_end_object(&b);
	ck_assert_int_eq(pd_json_end(&b), 0);
	ck_assert_int_eq(pd_json_end_object(&b), PD_EINVAL);  /* nothing open */
	char *got = wr_string(&b);
	ck_assert_str_eq(got, "{\"a\":[[],\"18446744073709551615\",{},-5],\"k\\\"ey\":true,\n"
			      "\"s\":\"x\xEF\xBF\xBDy\",\"n\":null,\"h\":\"0xabc\",\"r\":2.0}\n");
	free(got);
	free(b.p);
}
END_TEST


/* ----------------------------------------------------- the public writer */

typedef struct sink {
	char buf[4096];
	size_t len;
	int calls;
	bool fail;
} sink;

static int sink_write(void *ctx, const char *buf, size_t n)
{
	sink *k = ctx;
	k->calls++;
	if (k->fail || k->len + n > sizeof k->buf)
		return -1;
	memcpy(k->buf + k->len, buf, n);
	k->len += n;
	return 0;
}

/* A callback writer gets the bytes at pd_writer_flush(); a failing
 * callback makes every later call report PD_EIO. */
START_TEST(test_callback_writer)
{
	sink k = { .len = 0 };
	pd_writer *w;
	pd_error err;
	ck_assert_int_eq(pd_writer_new_callback(&w, sink_write, &k, &err), 0);
	ck_assert_int_eq(pd_writer_printf(w, "%d-%s ", 42, "x"), 0);
	ck_assert_int_eq(pd_writer_text(w, "a\nb"), 0);
	ck_assert_int_eq(k.calls, 0);  /* buffered */
	ck_assert_int_eq(pd_writer_flush(w, &err), 0);
	ck_assert_int_eq((int)k.len, 11);
	k.buf[k.len] = '\0';
	ck_assert_str_eq(k.buf, "42-x a\\x0ab");
	k.fail = true;
	pd_writer_write(w, "y", 1);
	ck_assert_int_eq(pd_writer_flush(w, &err), PD_EIO);
	ck_assert_int_eq(err.code, PD_EIO);
	ck_assert_int_eq(pd_writer_write(w, "z", 1), PD_EIO);
	pd_writer_free(w);
	ck_assert_int_eq(pd_writer_new_callback(&w, NULL, NULL, &err), PD_EINVAL);
	ck_assert_int_eq(pd_format_parse("folded"), PD_FORMAT_FOLDED);
	ck_assert_int_eq(pd_format_parse("yaml"), PD_EINVAL);
	ck_assert_int_eq(pd_format_parse(NULL), PD_EINVAL);
	ck_assert_str_eq(pd_format_name(PD_FORMAT_LKP), "lkp");
}
END_TEST

/* ------------------------------- a program on the public headers alone */

/* tests/programs/diff_min.c diffs two files with the library and writes
 * JSON or the robot's table; its bytes must be the CLI's. */
static void check_program(const char *fmt, const char *base, const char *new_)
{
	char b[4096], n[4096], cmd[9000];
	pd_test_data(b, sizeof b, base);
	pd_test_data(n, sizeof n, new_);
	int st1, st2;
	snprintf(cmd, sizeof cmd, "'%s' %s '%s' '%s' 2>/dev/null", PD_DIFF_MIN_PATH, fmt, b, n);
	char *lib = pd_test_run(cmd, &st1);
	snprintf(cmd, sizeof cmd, "'%s' diff --format=%s '%s' '%s' 2>/dev/null", PD_CLI_PATH, fmt,
		 b, n);
	char *cli = pd_test_run(cmd, &st2);
	ck_assert_ptr_nonnull(lib);
	ck_assert_ptr_nonnull(cli);
	ck_assert_msg(st1 == 0 && st2 == 0, "%s %s %s: status %d and %d", fmt, base, new_, st1,
		      st2);
	ck_assert_msg(strlen(cli) > 100, "%s %s %s: little output", fmt, base, new_);
	ck_assert_msg(strcmp(lib, cli) == 0, "%s %s %s: the program's bytes differ from the CLI's",
		      fmt, base, new_);
	free(lib);
	free(cli);
}

START_TEST(test_program_like_cli)
{
	static const char *const pairs[][2] = {
		{ "fp.data", "dwarf.data" }, { "sys.data", "threads.data" },
		{ "two.data", "fp.data" },
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		check_program("json", pairs[i][0], pairs[i][1]);
		check_program("lkp", pairs[i][0], pairs[i][1]);
	}
}
END_TEST

static Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("output");
	tcase_add_test(tc, test_utf8_helper);
	tcase_add_test(tc, test_script_numbers);
	tcase_add_test(tc, test_script_strings);
	tcase_add_test(tc, test_json_reals);
	tcase_add_test(tc, test_json_structure);
	tcase_add_test(tc, test_callback_writer);
	tcase_add_test(tc, test_program_like_cli);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(output_suite());
}
