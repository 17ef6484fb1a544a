/*
 * libFuzzer harness for the pprof reader (perfdiff/pprof.h): the input is
 * a pprof file, gzipped or raw.  Whatever the bytes, reading ends in a
 * run or an error, never a crash or an unbounded allocation; a profile
 * that was read must export, and its export must read back.
 */
#include <stdint.h>
#include <stdlib.h>

#include "perfdiff/perfdiff.h"

static void reread(pd_profile *p)
{
	void *buf;
	size_t len;
	pd_error err;
	if (pd_profile_write_pprof_buffer(p, &buf, &len, NULL, &err) < 0)
		abort(); /* a profile read must export */
	pd_profile *q;
	if (pd_profile_new(&q, NULL, &err) < 0)
		abort();
	if (pd_profile_add_pprof_buffer(q, buf, len, "export", &err) < 0)
		abort(); /* and its export must read back */
	if (pd_profile_total(q, 0, SIZE_MAX) != pd_profile_total(p, 0, SIZE_MAX))
		abort();
	pd_profile_free(q);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pd_profile *p;
	pd_error err;
	if (pd_profile_new(&p, NULL, &err) < 0)
		return 0;
	if (pd_profile_add_pprof_buffer(p, data, size, "fuzz", &err) == 0) {
		/* the views every report builds */
		const pd_flat_entry *fl;
		size_t n;
		for (size_t ev = 0; ev < pd_profile_event_count(p); ev++)
			(void)pd_profile_flat(p, ev, &fl, &n, &err);
		reread(p);
	}
	pd_profile_free(p);
	return 0;
}
