/*
 * The version rule of the options structs (util/options.c,
 * pd_options_import()), through every struct that has it: a struct of an
 * older version is read as far as that version went, the rest defaults;
 * 0, a newer version or a layout the library no longer reads is PD_EINVAL
 * with a message.  Options that point at others (profile → session →
 * reader) are copied whole: the caller's structs may go once the call that
 * took them returns, which ASan checks here.
 */
#include "testutil.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* ------------------------------------------------------ the helper */

typedef struct v3opts {
	unsigned version;
	int a;       /* version 1 */
	int b;       /* version 2, a layout no longer read */
	int c;       /* version 3 */
} v3opts;

static const size_t v3sizes[] = {
	0, PD_OPTIONS_END(v3opts, a), 0, PD_OPTIONS_END(v3opts, c),
};

START_TEST(test_import_helper)
{
	v3opts d = { 3, 10, 20, 30 }, src = { 1, 1, 2, 3 };
	pd_error err;
	ck_assert_int_eq(pd_options_import(&d, &src, v3sizes, 3, "v3opts", "f", &err), 0);
	ck_assert_uint_eq(d.version, 3);
	ck_assert_int_eq(d.a, 1);
	ck_assert_int_eq(d.b, 20); /* defaults past version 1 */
	ck_assert_int_eq(d.c, 30);
	src.version = 3;
	ck_assert_int_eq(pd_options_import(&d, &src, v3sizes, 3, "v3opts", "f", &err), 0);
	ck_assert_int_eq(d.c, 3);
	static const unsigned bad[] = { 0, 2, 4, 99 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		src.version = bad[i];
		ck_assert_int_eq(pd_options_import(&d, &src, v3sizes, 3, "v3opts", "f", &err),
				 PD_EINVAL);
		char want[128];
		snprintf(want, sizeof want, "f: v3opts version %u, this library knows 1 to 3",
			 bad[i]);
		ck_assert_str_eq(err.message, want);
	}
	/* exactly the old size: ASan sees a read past a version-1 struct */
	const int v1_fields[2] = { 1, 7 };
	void *v1 = malloc(sizeof v1_fields);
	ck_assert_ptr_nonnull(v1);
	memcpy(v1, v1_fields, sizeof v1_fields);
	ck_assert_int_eq(pd_options_import(&d, v1, v3sizes, 3, "v3opts", "f", &err), 0);
	ck_assert_int_eq(d.a, 7);
	free(v1);
}
END_TEST

/* ------------------------------------------------------ the structs */

static const char *fp_data(char *buf, size_t n)
{
	return pd_test_data(buf, n, "fp.data");
}

START_TEST(test_session_versions)
{
	char path[PD_TEST_PATHMAX];
	fp_data(path, sizeof path);
	pd_session_options o;
	pd_session *s = NULL;
	pd_error err;
	/* versions 1 and 2 held the reader's options by value */
	static const unsigned bad[] = { 0, 1, 2, PD_SESSION_OPTIONS_VERSION + 1 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
		o.version = bad[i];
		ck_assert_int_eq(pd_session_open(&s, path, &o, &err), PD_EINVAL);
		ck_assert_ptr_null(s);
		ck_assert_ptr_nonnull(strstr(err.message, "pd_session_options version"));
		ck_assert_ptr_nonnull(strstr(err.message, "this library knows 3 to"));
	}
	/* the reader's options by pointer, copied at the open: the caller's
	 * struct may go at once (ASan: use after free otherwise) */
	pd_reader_options *ro = malloc(sizeof *ro);
	ck_assert_ptr_nonnull(ro);
	pd_reader_options_init(ro, PD_READER_OPTIONS_VERSION);
	ro->max_callchain = 1; /* every sample of fp.data has more */
	pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
	o.reader = ro;
	int rc = pd_session_open(&s, path, &o, &err);
	free(ro);
	ck_assert_int_eq(rc, 0);
	const pd_resolved_sample *rs;
	rc = pd_session_next(s, &rs, &err);
	ck_assert_int_eq(rc, PD_ELIMIT);
	ck_assert_ptr_nonnull(strstr(err.message, "max_callchain"));
	pd_session_free(s);
	/* a bad reader version is the session's error too */
	pd_reader_options r;
	pd_reader_options_init(&r, PD_READER_OPTIONS_VERSION);
	r.version = 9;
	o.reader = &r;
	ck_assert_int_eq(pd_session_open(&s, path, &o, &err), PD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "pd_reader_options version 9"));
}
END_TEST

START_TEST(test_profile_versions)
{
	char path[PD_TEST_PATHMAX];
	fp_data(path, sizeof path);
	pd_profile_options o;
	pd_profile *p = NULL;
	pd_error err;
	/* version 1 held the session's options by value */
	static const unsigned bad[] = { 0, 1, PD_PROFILE_OPTIONS_VERSION + 1 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
		o.version = bad[i];
		ck_assert_int_eq(pd_profile_new(&p, &o, &err), PD_EINVAL);
		ck_assert_ptr_null(p);
		ck_assert_ptr_nonnull(strstr(err.message, "pd_profile_options version"));
	}
	/* the session's options (and theirs of the reader) are copied by
	 * pd_profile_new(), used at every pd_profile_add_file() */
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options *so = malloc(sizeof *so);
	pd_reader_options *ro = malloc(sizeof *ro);
	ck_assert(so && ro);
	pd_session_options_init(so, PD_SESSION_OPTIONS_VERSION);
	pd_reader_options_init(ro, PD_READER_OPTIONS_VERSION);
	ro->max_callchain = 1;
	so->reader = ro;
	o.session = so;
	int rc = pd_profile_new(&p, &o, &err);
	free(so);
	free(ro);
	ck_assert_int_eq(rc, 0);
	rc = pd_profile_add_file(p, path, &err);
	ck_assert_int_eq(rc, PD_ELIMIT);
	ck_assert_ptr_nonnull(strstr(err.message, "max_callchain"));
	pd_profile_free(p);
	/* a session version refused is the profile's error */
	pd_session_options s2;
	pd_session_options_init(&s2, PD_SESSION_OPTIONS_VERSION);
	s2.version = 2;
	o.session = &s2;
	ck_assert_int_eq(pd_profile_new(&p, &o, &err), PD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "pd_session_options version 2"));
}
END_TEST

START_TEST(test_diff_and_output_versions)
{
	char path[PD_TEST_PATHMAX];
	fp_data(path, sizeof path);
	pd_profile *p = NULL;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, NULL, &err), 0);
	ck_assert_int_eq(pd_profile_add_file(p, path, &err), 0);
	pd_diff_options d;
	pd_diff *diff = NULL;
	pd_diff_options_init(&d, PD_DIFF_OPTIONS_VERSION);
	d.version = PD_DIFF_OPTIONS_VERSION + 1;
	ck_assert_int_eq(pd_diff_new(&diff, p, p, &d, &err), PD_EINVAL);
	ck_assert_str_eq(err.message, "diff: pd_diff_options version 2, this library knows 1 to 1");
	d.version = PD_DIFF_OPTIONS_VERSION;
	ck_assert_int_eq(pd_diff_new(&diff, p, p, &d, &err), 0);
	pd_diff_free(diff);
	/* the report reads the profile's options through the same rule */
	pd_writer *w;
	ck_assert_int_eq(pd_writer_new_file(&w, stdout, &err), 0);
	pd_report_write_options ro;
	pd_report_write_options_init(&ro, PD_REPORT_WRITE_OPTIONS_VERSION);
	pd_profile_options po;
	pd_profile_options_init(&po, PD_PROFILE_OPTIONS_VERSION);
	po.version = 1;
	ro.profile_options = &po;
	ro.format = PD_FORMAT_JSON;
	ck_assert_int_eq(pd_report_write(w, p, &ro, &err), PD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "pd_profile_options version 1"));
	ro.version = 0;
	ck_assert_int_eq(pd_report_write(w, p, &ro, &err), PD_EINVAL);
	ck_assert_str_eq(err.message,
			 "output: pd_report_write_options version 0, this library knows 1 to 4");
	pd_writer_free(w);
	pd_profile_free(p);
}
END_TEST

static Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("options");
	tcase_add_test(tc, test_import_helper);
	tcase_add_test(tc, test_session_versions);
	tcase_add_test(tc, test_profile_versions);
	tcase_add_test(tc, test_diff_and_output_versions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(options_suite());
}
