/*
 * A program outside the tree that links the installed libperfdiff, as a
 * user's would: through pkg-config or CMake's find_package, with only the
 * installed public headers.  It folds a recording into a profile and
 * prints what `perfdiff dump --stats` says too (samples of each event),
 * then diffs the profile with itself (no shift, nothing significant).
 * Its options take their defaults both ways a program may: the macro,
 * and *_init() given the version of the installed header.
 *
 *     consumer FILE
 */
#include <stdint.h>
#include <stdio.h>

#include <perfdiff/perfdiff.h>

int main(int argc, char **argv)
{
	pd_profile *p;
	pd_diff *d;
	pd_error err;
	pd_profile_options po = PD_PROFILE_OPTIONS_INIT;
	pd_diff_options dopts;
	if (argc != 2 || pd_diff_options_init(&dopts, PD_DIFF_OPTIONS_VERSION) < 0 ||
	    pd_profile_new(&p, &po, &err) < 0)
		return 2;
	if (pd_profile_add_file(p, argv[1], &err) < 0)
		return fprintf(stderr, "%s\n", err.message), 2;
	for (size_t ev = 0; ev < pd_profile_event_count(p); ev++)
		printf("%s %llu\n", pd_profile_event_name(p, ev),
		       (unsigned long long)pd_profile_samples(p, ev, SIZE_MAX));
	if (pd_diff_new(&d, p, p, &dopts, &err) < 0)
		return fprintf(stderr, "%s\n", err.message), 2;
	size_t sig = 0;
	for (size_t i = 0; i < pd_diff_row_count(d); i++)
		sig += pd_diff_row_at(d, i)->significant;
	printf("relations %zu significant %zu\n", pd_diff_relation_count(d), sig);
	pd_diff_free(d);
	pd_profile_free(p);
	return 0;
}
