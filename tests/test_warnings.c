/*
 * The warnings sink (util.h, util/warnings.c) and the array growth helper
 * it uses (pd_grow): the reader, the symbolizer and the profile keep their
 * warnings there, so its rules are their public behaviour: order and kind
 * kept, the cap counts what it drops but never drops a lost tail, a NULL
 * sink takes anything, and "file: offset N: text" as an error has it.
 */
#include "testutil.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void at(pd_warnings *w, pd_warning_kind kind, const char *file, uint64_t offset,
	       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pd_warnings_vat(w, kind, file, offset, fmt, ap);
	va_end(ap);
}

START_TEST(test_order_and_kinds)
{
	pd_warnings w;
	pd_warnings_init(&w, 0);
	pd_warnings_add(&w, PD_WARN_NOT_FOUND, "a");
	pd_warnings_addf(&w, PD_WARN_MISMATCH, "%s %d", "b", 2);
	at(&w, PD_WARN_DATA_LOST, "perf.data", 49104, "cut %s", "short");
	at(&w, PD_WARN_METADATA, "perf.data", PD_NO_OFFSET, "skipped");
	pd_warnings_add(&w, PD_WARN_OTHER, NULL); /* nothing */
	ck_assert_uint_eq(pd_warnings_count(&w), 4);
	ck_assert_str_eq(pd_warnings_get(&w, 0), "a");
	ck_assert_str_eq(pd_warnings_get(&w, 1), "b 2");
	ck_assert_str_eq(pd_warnings_get(&w, 2), "perf.data: offset 49104: cut short");
	ck_assert_str_eq(pd_warnings_get(&w, 3), "perf.data: skipped");
	ck_assert_int_eq(pd_warnings_kind_of(&w, 0), PD_WARN_NOT_FOUND);
	ck_assert_int_eq(pd_warnings_kind_of(&w, 1), PD_WARN_MISMATCH);
	ck_assert_int_eq(pd_warnings_kind_of(&w, 2), PD_WARN_DATA_LOST);
	ck_assert_int_eq(pd_warnings_kind_of(&w, 3), PD_WARN_METADATA);
	ck_assert_ptr_null(pd_warnings_get(&w, 4));
	ck_assert_int_eq(pd_warnings_kind_of(&w, 4), PD_WARN_OTHER);
	ck_assert_uint_eq(w.dropped, 0);
	pd_warnings_free(&w);
	ck_assert_uint_eq(pd_warnings_count(&w), 0);
}
END_TEST

START_TEST(test_cap_keeps_lost_tails)
{
	pd_warnings w;
	pd_warnings_init(&w, 3);
	for (int i = 0; i < 5; i++)
		pd_warnings_addf(&w, PD_WARN_METADATA, "m%d", i);
	pd_warnings_add(&w, PD_WARN_DATA_LOST, "tail");
	pd_warnings_add(&w, PD_WARN_OTHER, "late");
	ck_assert_uint_eq(pd_warnings_count(&w), 4);
	ck_assert_str_eq(pd_warnings_get(&w, 2), "m2");
	ck_assert_str_eq(pd_warnings_get(&w, 3), "tail");
	ck_assert_int_eq(pd_warnings_kind_of(&w, 3), PD_WARN_DATA_LOST);
	ck_assert_uint_eq(w.dropped, 3);
	pd_warnings_free(&w);
}
END_TEST

START_TEST(test_null_sink_and_long_text)
{
	pd_warnings_add(NULL, PD_WARN_OTHER, "x");
	pd_warnings_addf(NULL, PD_WARN_OTHER, "%s", "x");
	at(NULL, PD_WARN_OTHER, "f", 0, "x");
	ck_assert_uint_eq(pd_warnings_count(NULL), 0);
	ck_assert_ptr_null(pd_warnings_get(NULL, 0));

	/* formatted: a sentence at most; added: whole */
	char big[3000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	pd_warnings w;
	pd_warnings_init(&w, 0);
	pd_warnings_addf(&w, PD_WARN_OTHER, "%s", big);
	pd_warnings_add(&w, PD_WARN_OTHER, big);
	ck_assert_uint_eq(strlen(pd_warnings_get(&w, 0)), PD_WARNING_MAX - 1);
	ck_assert_uint_eq(strlen(pd_warnings_get(&w, 1)), sizeof big - 1);
	pd_warnings_free(&w);
}
END_TEST

/* A caller's sink: what it is handed, joined as "kind:path:msg;". */
static void collect(void *ctx, pd_warning_kind kind, const char *path, const char *msg)
{
	char *buf = ctx;
	size_t n = strlen(buf);
	snprintf(buf + n, 256 - n, "%d:%s:%s;", (int)kind, path ? path : "-", msg);
}

/* The sink is handed each warning kept, with the default path or the one
 * given, and nothing of what the cap drops: what the getters hold. */
START_TEST(test_caller_sink)
{
	char buf[256] = "";
	pd_warnings w;
	pd_warnings_init(&w, 2);
	pd_warnings_set_sink(&w, collect, buf, "in.data");
	pd_warnings_add(&w, PD_WARN_NOT_FOUND, "a");
	pd_warnings_add_about(&w, PD_WARN_OTHER, NULL, "b");
	pd_warnings_add(&w, PD_WARN_METADATA, "dropped");
	pd_warnings_add(&w, PD_WARN_DATA_LOST, "tail");
	ck_assert_str_eq(buf, "4:in.data:a;0:-:b;1:in.data:tail;");
	ck_assert_uint_eq(pd_warnings_count(&w), 3);
	ck_assert_uint_eq(w.dropped, 1);
	/* emptied, still handed on */
	pd_warnings_free(&w);
	buf[0] = 0;
	pd_warnings_add(&w, PD_WARN_OTHER, "c");
	ck_assert_str_eq(buf, "0:in.data:c;");
	pd_warnings_free(&w);
}
END_TEST

START_TEST(test_grow)
{
	int *v = NULL;
	size_t cap = 0;
	for (size_t n = 0; n < 1000; n++) {
		ck_assert_int_eq(pd_grow(&v, &cap, n + 1, sizeof *v), 0);
		ck_assert_uint_ge(cap, n + 1);
		v[n] = (int)n;
	}
	for (size_t n = 0; n < 1000; n++)
		ck_assert_int_eq(v[n], (int)n);
	ck_assert_uint_eq(cap, 1024); /* doubling from 16 */
	size_t before = cap;
	ck_assert_int_eq(pd_grow(&v, &cap, SIZE_MAX, sizeof *v), PD_ENOMEM);
	ck_assert_uint_eq(cap, before);
	free(v);
}
END_TEST

/* A reason without a place, then the place and context its caller adds:
 * the same words pd_error_set() would have written in one go. */
START_TEST(test_error_reason_and_wrap)
{
	pd_error e, whole;
	ck_assert_int_eq(pd_error_reason(&e, PD_ECORRUPT, "nr %d too large", 7), PD_ECORRUPT);
	ck_assert_str_eq(e.message, "nr 7 too large");
	ck_assert(e.offset == PD_NO_OFFSET);
	ck_assert_int_eq(pd_error_wrap(&e, PD_ECORRUPT, "perf.data", 4096, "%s record", "MMAP"),
			 PD_ECORRUPT);
	pd_error_set(&whole, PD_ECORRUPT, "perf.data", 4096, "MMAP record: nr 7 too large");
	ck_assert_str_eq(e.message, whole.message);
	ck_assert(e.offset == 4096);
	/* no place: context only; no context: place only */
	pd_error_reason(&e, PD_EIO, "gone");
	pd_error_wrap(&e, PD_EIO, NULL, PD_NO_OFFSET, "%s", "/x/kallsyms");
	ck_assert_str_eq(e.message, "/x/kallsyms: gone");
	pd_error_wrap(&e, PD_EIO, "f", PD_NO_OFFSET, NULL);
	ck_assert_str_eq(e.message, "f: /x/kallsyms: gone");
	ck_assert_int_eq(e.code, PD_EIO);
	/* NULL: only the code */
	ck_assert_int_eq(pd_error_reason(NULL, PD_ENOMEM, "x"), PD_ENOMEM);
	ck_assert_int_eq(pd_error_wrap(NULL, PD_ENOMEM, "f", 1, "y"), PD_ENOMEM);
}
END_TEST

static Suite *warnings_suite(void)
{
	Suite *s = suite_create("warnings");
	TCase *tc = tcase_create("warnings");
	tcase_add_test(tc, test_order_and_kinds);
	tcase_add_test(tc, test_cap_keeps_lost_tails);
	tcase_add_test(tc, test_null_sink_and_long_text);
	tcase_add_test(tc, test_caller_sink);
	tcase_add_test(tc, test_grow);
	tcase_add_test(tc, test_error_reason_and_wrap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(warnings_suite());
}
