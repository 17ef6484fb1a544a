/*
 * When a run started, on the wall clock: what pprof's time_nanos says,
 * so that a profile sent to a profiling server is placed at its time.
 * Sample times are of perf's clock (monotonic-like, since boot); only the
 * CLOCK_DATA feature, written with `perf record -k`, ties them to the
 * wall clock.  Without it the file's modification time, less the run's
 * span, is the best there is: perf writes the header when the recording
 * ends.  A pipe has neither: 0, unknown (docs/pprof.md).
 */
#include <sys/stat.h>

#include "internal.h"

/* The file's modification time in ns since the epoch, 0 unknown. */
static uint64_t mtime_ns(const char *path)
{
	struct stat st;
	if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0 ||
	    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) || st.st_mtim.tv_sec < 0)
		return 0;
	return (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
}

void pd_profile_keep_start(pd_profile *p, size_t run, const pd_reader *r, const char *path,
			   bool have_first, uint64_t first)
{
	uint64_t tod, ref;
	if (have_first && pd_reader_clock_data(r, &tod, &ref)) {
		/* tod + (first - ref), in either direction, never below 0 */
		p->run_start[run] = first >= ref ? tod + (first - ref)
						 : (tod > ref - first ? tod - (ref - first) : 0);
		return;
	}
	uint64_t m = mtime_ns(path), span = p->run_span[run];
	p->run_start[run] = m > span ? m - span : 0;
}

uint64_t pd_profile_run_start(const pd_profile *p, size_t run)
{
	if (!p)
		return 0;
	if (run != SIZE_MAX)
		return run < p->nruns ? p->run_start[run] : 0;
	uint64_t best = 0;
	for (size_t r = 0; r < p->nruns; r++)
		if (p->run_start[r] && (!best || p->run_start[r] < best))
			best = p->run_start[r];
	return best;
}
