/*
 * Inputs that once broke the reader or the stages after it (found by the
 * fuzzers in fuzz/), kept under tests/data/regress/.  `file-*` is a whole
 * file; `pipe-*` is what follows a pipe-mode header, read through the
 * stream path as the pipe harness does; `session-*` is a whole file read
 * into a profile and diffed with itself, as the session harness does.
 * Each must end in a result or an error with a message; under the
 * sanitizer build a leak, a bad access or undefined behaviour fails the
 * run.
 */
#include "testutil.h"

#include "perfdiff/diff.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static char **list_regress(size_t *n)
{
	char dir[4096];
	pd_test_data(dir, sizeof dir, "regress");
	DIR *d = opendir(dir);
	char **names = NULL;
	*n = 0;
	if (!d)
		return NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "file-", 5) && strncmp(de->d_name, "pipe-", 5) &&
		    strncmp(de->d_name, "session-", 8))
			continue;
		names = realloc(names, (*n + 1) * sizeof *names);
		names[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	return names;
}

/* A whole file folded into a profile, then diffed with itself: no
 * relation, nothing significant. */
static void check_session(const char *name, const char *path)
{
	pd_profile *p = NULL;
	pd_error err;
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(pd_profile_new(&p, NULL, &err), 0);
	int rc = pd_profile_add_file(p, path, &err);
	ck_assert_msg(rc == 0 || err.message[0], "%s: error %d without a message", name, rc);
	pd_diff *d = NULL;
	if (pd_profile_run_count(p) && pd_profile_default_event(p) >= 0 &&
	    pd_diff_new(&d, p, p, NULL, &err) == 0) {
		ck_assert_uint_eq(pd_diff_relation_count(d), 0);
		for (size_t i = 0; i < pd_diff_row_count(d); i++)
			ck_assert(!pd_diff_row_at(d, i)->significant);
	}
	fprintf(stderr, "%s: rc %d, %zu runs, %zu diff rows\n", name, rc,
		pd_profile_run_count(p), d ? pd_diff_row_count(d) : 0);
	pd_diff_free(d);
	pd_profile_free(p);
}

static void check_one(const char *name)
{
	char path[4096], rel[1024];
	snprintf(rel, sizeof rel, "regress/%s", name);
	pd_test_data(path, sizeof path, rel);
	if (strncmp(name, "session-", 8) == 0) {
		check_session(name, path);
		return;
	}
	size_t len;
	uint8_t *bytes = pd_test_read_file(path, &len);
	ck_assert_msg(bytes != NULL, "cannot read %s", path);
	pd_test_readout out;
	if (strncmp(name, "pipe-", 5) == 0) {
		static const uint8_t hdr[16] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16};
		uint8_t *full = malloc(len + 16);
		memcpy(full, hdr, 16);
		memcpy(full + 16, bytes, len);
		pd_test_read_buffer(full, len + 16, PD_READER_NO_MMAP, &out);
		free(full);
	} else {
		pd_test_read_buffer(bytes, len, 0, &out);
	}
	free(bytes);
	if (out.rc != PD_ITEROVER)
		ck_assert_msg(out.err.message[0] != '\0', "%s: error %d without a message",
			      name, out.rc);
	fprintf(stderr, "%s: rc %d, %llu samples, %zu warnings%s%s\n", name, out.rc,
		(unsigned long long)out.samples, out.warnings,
		out.rc != PD_ITEROVER ? ": " : "", out.rc != PD_ITEROVER ? out.err.message : "");
}

START_TEST(every_regression_input)
{
	size_t n;
	char **names = list_regress(&n);
	ck_assert_msg(n > 0, "no inputs in tests/data/regress");
	for (size_t i = 0; i < n; i++) {
		check_one(names[i]);
		free(names[i]);
	}
	free(names);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("regress");
	TCase *tc = tcase_create("regress");
	tcase_add_test(tc, every_regression_input);
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
