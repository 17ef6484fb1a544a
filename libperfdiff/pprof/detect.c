/*
 * Telling pprof from perf.data by content, so that every command that
 * takes a recording takes either, and saying so when a file is neither.
 * perf.data opens with one of its magics ("PERFILE2" in either byte
 * order; "PERFFILE", version 1, as perf wrote it until Linux 2.6.3x);
 * pprof is gzip, or a protobuf Profile whose first fields are checked
 * for their numbers and wire types as far as the bytes read go.  Text
 * and other binaries fail that walk within a few bytes, so they are
 * called neither, rather than sent to a decoder whose error ("malformed
 * protobuf") would mislead.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

bool pp_is_gzip(const uint8_t *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* The bytes perf.data files open with: both versions, both byte orders
 * (version 1 spells its magic as text, but a swapped copy costs nothing). */
static const char *const perf_magics[] = { "PERFILE2", "2ELIFREP", "PERFFILE", "ELIFFREP" };

/* `head` is a perf.data magic, or the start of one when shorter. */
static bool perf_magic(const uint8_t *head, size_t n)
{
	size_t k = n < 8 ? n : 8;
	for (size_t i = 0; i < sizeof perf_magics / sizeof *perf_magics; i++)
		if (k > 0 && memcmp(head, perf_magics[i], k) == 0)
			return true;
	return false;
}

/* A field of Profile (profile.proto, 1 to 15) with its wire type (a tag
 * with more bytes, bit 7 set, is none):
 * messages, strings and packed numbers are length-delimited (2),
 * single numbers varints (0); comment (13) is packed or not. */
static bool profile_tag(uint64_t tag)
{
	uint64_t field = tag >> 3, wire = tag & 7;
	if (field < 1 || field > 15)
		return false;
	bool bytes = field <= 6 || field == 11 || field == 13;
	return wire == (bytes ? 2u : 0u) || (field == 13 && wire == 0);
}

/* A varint at p[*at..n): false when malformed (more than 10 bytes);
 * *done false when the bytes end first. */
static bool varint(const uint8_t *p, size_t n, size_t *at, uint64_t *v, bool *done)
{
	*v = 0;
	*done = false;
	for (unsigned k = 0; k < 10; k++) {
		if (*at >= n)
			return true;
		uint8_t b = p[(*at)++];
		*v |= (uint64_t)(b & 0x7f) << (7 * k);
		if (!(b & 0x80)) {
			*done = true;
			return true;
		}
	}
	return false;
}

/* How far the fields are walked: text and other binaries fail within a
 * few bytes, but a run of bytes that happen to look like fields (a
 * docstring's '"', a length, a tag) can last a hundred. */
#define WALK_MAX 4096

/* The fields in the first bytes: every one complete within them is a
 * field of Profile.  A field cut by the end of the bytes is given the
 * benefit of the doubt, unless the bytes are the `whole` input. */
static bool profile_fields(const uint8_t *p, size_t n, bool whole)
{
	size_t at = 0;
	if (n > WALK_MAX)
		n = WALK_MAX, whole = false;
	while (at < n) {
		/* Profile's fields are 1 to 15: one byte of tag */
		uint64_t tag = p[at++], v;
		bool done;
		if (!profile_tag(tag))
			return false;
		if (!varint(p, n, &at, &v, &done))
			return false;
		if (!done)
			return !whole;
		if ((tag & 7) == 2) {
			if (v > n - at)
				return !whole;
			at += (size_t)v;
		}
	}
	return true;
}

bool pd_pprof_detect(const void *head, size_t n)
{
	const uint8_t *p = head;
	if (n == 0 || !p || perf_magic(p, n))
		return false;
	return pp_is_gzip(p, n) || profile_fields(p, n, false);
}

/* Only a regular file is read ahead: a FIFO or a device would lose the
 * bytes read here, or block; the perf.data reader takes streams. */
static int sniff(const char *path, uint8_t *head, size_t cap, size_t *n, pd_error *err)
{
	struct stat sb;
	int fd;
	*n = SIZE_MAX;
	/* stat() first: opening a FIFO, even without blocking, would take
	 * its writer's place and kill it with SIGPIPE when closed */
	if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    pd_open_regular(path, &fd, NULL, NULL) < 0)
		return 0;  /* the reader says why */
	ssize_t got = read(fd, head, cap);
	int e = errno;
	close(fd);
	if (got < 0)
		return pd_error_set(err, PD_EIO, path, 0, "cannot read: %s", strerror(e));
	*n = (size_t)got;
	return 0;
}

/* What the first `n` bytes of a file hold (`whole`: all of it):
 * PD_INPUT_PERF, PD_INPUT_PPROF, or -1 with *why saying what else. */
static int classify(const uint8_t *head, size_t n, bool whole, const char **why)
{
	*why = "no perf.data magic, not gzip, not a protobuf Profile";
	if (n == 0) {
		*why = "the file is empty";
		return -1;
	}
	if (perf_magic(head, n))
		return PD_INPUT_PERF;
	if (!pp_is_gzip(head, n))
		return profile_fields(head, n, whole) ? PD_INPUT_PPROF : -1;
	/* a gzipped text or tarball: what it inflates to must look like pprof */
	uint8_t raw[1024];
	size_t got = pp_gunzip_head(head, n, raw, sizeof raw);
	*why = "gzip, but not of a protobuf Profile";
	return got == SIZE_MAX || profile_fields(raw, got, false) ? PD_INPUT_PPROF : -1;
}

int pd_input_detect(const char *path, pd_input_kind *kind, pd_error *err)
{
	if (!kind)
		return pd_error_set(err, PD_EINVAL, path ? path : "<null>", PD_NO_OFFSET,
				    "no kind to fill");
	*kind = PD_INPUT_PERF;
	if (!path || strcmp(path, "-") == 0)
		return 0;
	/* enough for a few fields of a Profile, gzipped or not */
	uint8_t head[WALK_MAX];
	size_t n;
	int rc = sniff(path, head, sizeof head, &n, err);
	if (rc < 0 || n == SIZE_MAX)
		return rc;
	const char *why;
	int k = classify(head, n, n < sizeof head, &why);
	if (k < 0)
		return pd_error_set(err, PD_ENOTPERF, path, 0, "neither perf.data nor pprof (%s)",
				    why);
	*kind = (pd_input_kind)k;
	return 0;
}
