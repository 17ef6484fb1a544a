/*
 * The sliding window over an mmap'd input.  Mapping the whole file keeps
 * every page the reader has walked resident, so peak memory grew with the
 * file (a 1 GB recording cost over 1 GB).  Here the file is cut into
 * chunks; each chunk counts the records in it that something still points
 * at (queued for timestamp ordering without a copy, or delivered and not
 * yet done with).  Chunks below both the lowest such chunk and the one
 * being read are handed back to the kernel with MADV_DONTNEED, so what
 * stays resident is about the ordering queue's two rounds.
 *
 * Handing pages back never invalidates a pointer: the mapping is private,
 * read-only and file-backed, so a page that is touched again is read back
 * from the file.  A miscount would cost a page fault, never a wrong byte.
 */
#include "source.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int pd_window_init(pd_source *s)
{
	if (!s->map)
		return 0;
	size_t n = (size_t)(s->map_size >> PD_WINDOW_SHIFT) + 1;
	s->pins = calloc(n, sizeof *s->pins);
	if (!s->pins)
		return PD_ENOMEM;
	s->nchunks = n;
	return 0;
}

void pd_window_advance(pd_source *s, uint64_t cursor)
{
	size_t cur = (size_t)(cursor >> PD_WINDOW_SHIFT);
	if (!s->pins || cur <= s->released)
		return;
	size_t low = s->released;
	while (low < cur && low < s->nchunks && s->pins[low] == 0)
		low++;
	if (low == s->released)
		return;
	uint64_t from = (uint64_t)s->released << PD_WINDOW_SHIFT;
	uint64_t to = (uint64_t)low << PD_WINDOW_SHIFT;
	/* chunk boundaries are page-aligned: 4 MB is a multiple of any page */
	madvise((void *)(s->map + from), (size_t)(to - from), MADV_DONTNEED);
	s->released = low;
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
