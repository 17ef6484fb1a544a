/*
 * The public calls of perfdiff/pprof.h: options, writing to a FILE or to
 * memory, reading a file or memory, and telling pprof from perf.data by
 * content, so that every command that takes a recording takes either.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handle.h"
#include "profile/options.h"

static const size_t write_sizes[] = {
	0, PD_OPTIONS_END(pd_pprof_write_options, ncomments),
};

void pd_pprof_write_options_init(pd_pprof_write_options *o)
{
	memset(o, 0, sizeof *o);
	o->version = PD_PPROF_WRITE_OPTIONS_VERSION;
	o->run = SIZE_MAX;
	o->gzip = true;
}

static int export_buf(pd_profile *p, const pd_pprof_write_options *uo, pd_buf *b,
		      pd_error *err)
{
	pd_pprof_write_options o;
	pd_pprof_write_options_init(&o);
	if (!p)
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET, "no profile given");
	if (uo && pd_options_import(&o, uo, write_sizes, PD_PPROF_WRITE_OPTIONS_VERSION,
				    "pd_pprof_write_options", "pprof", err) < 0)
		return PD_EINVAL;
	if (o.run != SIZE_MAX && o.run >= pd_profile_run_count(p))
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET,
				    "run %zu of a profile of %zu runs", o.run,
				    pd_profile_run_count(p));
	if (o.ncomments && !o.comments)
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET,
				    "comments counted but not given");
	return pp_export(p, &o, b, err);
}

int pd_profile_write_pprof(pd_profile *p, FILE *f, const pd_pprof_write_options *o,
			   pd_error *err)
{
	pd_buf b = { NULL, 0, 0 };
	if (!f)
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET, "no output given");
	int rc = export_buf(p, o, &b, err);
	if (rc == 0 && (fwrite(b.data, 1, b.len, f) != b.len || fflush(f) != 0))
		rc = pd_error_set(err, PD_EIO, "output", PD_NO_OFFSET, "%s", strerror(errno));
	pd_buf_free(&b);
	return rc;
}

int pd_profile_write_pprof_buffer(pd_profile *p, void **out, size_t *len,
				  const pd_pprof_write_options *o, pd_error *err)
{
	pd_buf b = { NULL, 0, 0 };
	if (!out || !len)
		return pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET, "no output given");
	int rc = export_buf(p, o, &b, err);
	if (rc < 0) {
		pd_buf_free(&b);
		return rc;
	}
	*out = b.data;
	*len = b.len;
	return 0;
}

int pd_profile_add_pprof_buffer(pd_profile *p, const void *buf, size_t len, const char *name,
				pd_error *err)
{
	if (!name)
		name = "<pprof>";
	if (!p || (!buf && len))
		return pd_error_set(err, PD_EINVAL, name, PD_NO_OFFSET, "no profile or data given");
	/* the handle decodes, indexes and checks the message as dump and
	 * script see it; the import reads the same tables */
	pp_caps caps;
	pp_caps_of(&caps, pd_profile_reader_options(p));
	pd_pprof *pp;
	int rc = pp_open(&pp, buf, len, name, &caps, err);
	if (rc < 0)
		return rc;
	rc = pp_import(p, pp->m, &pp->ix, name, err);
	pd_pprof_free(pp);
	return rc;
}

int pd_profile_add_pprof(pd_profile *p, const char *path, pd_error *err)
{
	if (!path)
		return pd_error_set(err, PD_EINVAL, "<null>", PD_NO_OFFSET, "no path given");
	if (!p)
		return pd_error_set(err, PD_EINVAL, path, PD_NO_OFFSET, "no profile given");
	pp_caps caps;
	pp_caps_of(&caps, pd_profile_reader_options(p));
	char *data;
	size_t len;
	int rc = pp_read_file(path, caps.max_bytes, &data, &len, err);
	if (rc < 0)
		return rc;
	rc = pd_profile_add_pprof_buffer(p, data, len, path, err);
	free(data);
	return rc;
}

/* A first byte that opens a field of Profile (1 to 15) with its wire type. */
static bool profile_tag(uint8_t b)
{
	unsigned field = b >> 3, wire = b & 7;
	if (field < 1 || field > 15)
		return false;
	bool bytes = field <= 6 || field == 11 || field == 13; /* messages, strings, packed */
	return wire == (bytes ? 2u : 0u) || (field == 13 && wire == 0);
}

bool pd_pprof_detect(const void *head, size_t n)
{
	const uint8_t *p = head;
	if (n == 0 || !p)
		return false;
	if (pp_is_gzip(p, n))
		return true;
	/* perf.data's "PERFILE2" opens with 'P', which reads as field 10 */
	if (n >= 7 && memcmp(p, "PERFILE", 7) == 0)
		return false;
	return profile_tag(p[0]);
}

int pd_profile_add_input(pd_profile *p, const char *path, pd_error *err)
{
	if (!path || strcmp(path, "-") == 0)
		return pd_profile_add_file(p, path, err);
	uint8_t head[8];
	ssize_t n = 0;
	int fd;
	struct stat st;
	/* regular files only, by stat() before any open: a FIFO is a
	 * pipe-mode recording, whose writer would take this open for the
	 * reader's and die of SIGPIPE when it closes; a directory (perf
	 * record --threads), a device or an unreadable file: the perf.data
	 * reader says what is wrong */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    pd_open_regular(path, &fd, NULL, NULL) == 0) {
		n = read(fd, head, sizeof head);
		close(fd);
	}
	if (n > 0 && pd_pprof_detect(head, (size_t)n))
		return pd_profile_add_pprof(p, path, err);
	return pd_profile_add_file(p, path, err);
}
