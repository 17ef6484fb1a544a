/*
 * A program that uses libperfdiff through its public headers alone: two
 * perf.data files, their diff, written as JSON or as the kernel test
 * robot's compare table.  test_output.c requires its bytes to be those
 * of `perfdiff diff --format=json|lkp` on the same files, which shows
 * that a program embedding the library gets what the CLI prints.
 *
 *     diff_min json|lkp BASE NEW
 */
#include <perfdiff/perfdiff.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int fmt = argc == 4 ? pd_format_parse(argv[1]) : PD_EINVAL;
	if (fmt != PD_FORMAT_JSON && fmt != PD_FORMAT_LKP) {
		fprintf(stderr, "usage: diff_min json|lkp BASE NEW\n");
		return 2;
	}
	/* the defaults: the macro, or *_init() given the version this program
	 * was built with (a library that does not know it says so) */
	pd_profile_options po = PD_PROFILE_OPTIONS_INIT;
	pd_session_options so = PD_SESSION_OPTIONS_INIT;
	pd_diff_options dopts = PD_DIFF_OPTIONS_INIT;
	pd_diff_write_options wo;
	if (pd_diff_write_options_init(&wo, PD_DIFF_WRITE_OPTIONS_VERSION) < 0) {
		fprintf(stderr, "diff_min: libperfdiff refuses pd_diff_write_options version %u\n",
			PD_DIFF_WRITE_OPTIONS_VERSION);
		return 2;
	}
	if (fmt == PD_FORMAT_LKP) {  /* the robot's reading of the files */
		pd_lkp_profile_options(&po, &so);
		dopts.flags |= PD_DIFF_LKP_KEYS;
	}
	pd_profile *p[2] = { NULL, NULL };
	pd_diff *d = NULL;
	pd_writer *w = NULL;
	pd_error err = { 0 };
	int rc = 0;
	for (int s = 0; s < 2 && rc == 0; s++)
		if ((rc = pd_profile_new(&p[s], &po, &err)) == 0)
			rc = pd_profile_add_file(p[s], argv[2 + s], &err);
	if (rc == 0)
		rc = pd_diff_new(&d, p[0], p[1], &dopts, &err);
	if (rc == 0)
		rc = pd_writer_new_file(&w, stdout, &err);
	wo.format = (pd_format)fmt;
	for (int s = 0; s < 2; s++) {  /* the column titles, as given */
		wo.files[s] = (const char *const *)&argv[2 + s];
		wo.nfiles[s] = 1;
	}
	if (rc == 0 && (rc = pd_diff_write(w, d, &wo, &err)) == 0)
		rc = pd_writer_flush(w, &err);
	if (rc < 0)
		fprintf(stderr, "diff_min: %s\n", err.message);
	pd_writer_free(w);
	pd_diff_free(d);
	pd_profile_free(p[0]);
	pd_profile_free(p[1]);
	return rc < 0 ? 2 : 0;
}
