/*
 * The sliding window over an mmap'd input.  Mapping the whole file kept
 * every page the reader had walked resident, so peak memory grew with the
 * file (a 1 GB recording cost over 1 GB).  Here the pages behind the
 * reader are handed back to the kernel with MADV_DONTNEED, 4 MB at a time,
 * up to the lowest byte a record still in use may lie in:
 *
 *   - in file order, the record being read: the one delivered before it
 *     is done with once the caller asks for the next;
 *   - in timestamp order, also the records waiting in the ordering queue
 *     without a copy.  The queue releases, at each FINISHED_ROUND, every
 *     record up to the newest time seen at the round before, and the
 *     reader reads on only once those have been delivered; so after round
 *     k's flush nothing queued was read before round k - 1's marker
 *     (queue.c keeps perf's rule).  That bound moves with the markers and
 *     costs nothing per record.  Without markers (or in a directory,
 *     whose streams are merged at the end) it never moves and the file
 *     stays resident, as the queue holds every record then anyway.
 *
 * Handing pages back never invalidates a pointer: the mapping is private,
 * read-only and file-backed, so a page touched again is read back from the
 * file.  A record the bound misses (a round whose flush limit is still 0
 * keeps its records) costs a page fault, never a wrong byte.
 */
#include "source.h"

#include <sys/mman.h>
#include <unistd.h>

void pd_window_init(pd_source *s, bool ordered)
{
	s->window = s->map != NULL;
	s->released = s->checked = s->last_round = 0;
	s->keep_from = ordered ? 0 : UINT64_MAX;
}

void pd_window_release(pd_source *s, uint64_t cursor)
{
	uint64_t bound = cursor < s->keep_from ? cursor : s->keep_from;
	uint64_t to = bound >> PD_WINDOW_SHIFT << PD_WINDOW_SHIFT;
	if (to <= s->released)
		return;
	/* chunk boundaries are page-aligned: 4 MB is a multiple of any page */
	madvise((void *)(s->map + s->released), (size_t)(to - s->released), MADV_DONTNEED);
	s->released = to;
}

void pd_window_drop(pd_source *s, uint64_t from, uint64_t to)
{
	if (!s->map || to > s->map_size)
		return;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	from = (from + page - 1) / page * page; /* whole pages only */
	if (from < to)
		madvise((void *)(s->map + from), (size_t)(to - from), MADV_DONTNEED);
}
