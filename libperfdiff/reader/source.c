/*
 * Opening and reading one input stream (source.h): a regular file is
 * mapped, a pipe is read forward into a buffer.  Opening never blocks on
 * a file it then refuses: a FIFO in a `perf record --threads` directory
 * or a device named as the input would otherwise hang or be read forever
 * before a single byte was checked.
 */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Stream reads are this large so that a pipe costs few system calls. */
#define PD_STREAM_CHUNK (1u << 20)

int pd_source_open_fd(pd_source *s, int fd, bool own, bool no_mmap, const char *name,
		      pd_error *err)
{
	memset(s, 0, sizeof *s);
	s->fd = fd;
	s->own_fd = own;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return pd_error_set(err, PD_EIO, name, PD_NO_OFFSET, "cannot stat: %s",
				    strerror(errno));
	if (S_ISDIR(st.st_mode))
		return pd_error_set(err, PD_EINVAL, name, PD_NO_OFFSET,
				    "is a directory (open it by path)");
	if (S_ISREG(st.st_mode) && st.st_size > 0 && !no_mmap) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			/* the reader walks the file once, front to back */
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			s->map = m;
			s->map_size = (uint64_t)st.st_size;
			return 0;
		}
		/* fall back to reading it as a stream */
	}
	if (S_ISREG(st.st_mode) && st.st_size == 0 && !no_mmap) {
		s->map = NULL;
		s->map_size = 0;
		return 0;
	}
	s->is_stream = true;
	return 0;
}

/* Whether a file of this kind may be read: a regular file always; a
 * FIFO or socket as a pipe-mode stream unless `regular_only`; a directory
 * is pd_source_open_fd()'s to refuse.  Devices never: /dev/zero and
 * /dev/urandom would be read forever, a tty waits for typing. */
static int check_kind(const struct stat *st, bool regular_only, const char *path,
		      pd_error *err)
{
	mode_t m = st->st_mode;
	if (S_ISREG(m) || (!regular_only && (S_ISFIFO(m) || S_ISSOCK(m) || S_ISDIR(m))))
		return 0;
	if (regular_only)
		return pd_error_set(err, PD_ENOTPERF, path, PD_NO_OFFSET,
				    "%s, not a regular file: the files of a `perf record "
				    "--threads` directory are regular files",
				    pd_file_kind((unsigned)m));
	return pd_error_set(err, PD_ENOTPERF, path, PD_NO_OFFSET,
			    "%s is not a perf.data file (nor a pipe: read standard "
			    "input as `-`)", pd_file_kind((unsigned)m));
}

/* A FIFO was opened without blocking, so that one that is not wanted
 * cannot hang the open; one that is read waits for its writer's first
 * bytes, or its going, as `cat` would.  Not by opening it again: a
 * writer that came with the first open may be done and gone by then, and
 * the second open would wait for another.  (Linux: poll() on a FIFO no
 * writer has opened since the read end was opened reports nothing.) */
static int wait_for_writer(int fd, const char *path, pd_error *err)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int n;
	while ((n = poll(&p, 1, -1)) < 0 && errno == EINTR)
		;
	return n < 0 ? pd_error_set(err, PD_EIO, path, PD_NO_OFFSET,
				    "cannot wait for the pipe's writer: %s", strerror(errno))
		     : 0;
}

int pd_source_open(pd_source *s, const char *path, bool no_mmap, bool regular_only,
		   pd_error *err)
{
	if (strcmp(path, "-") == 0)
		return pd_source_open_fd(s, STDIN_FILENO, false, no_mmap, "<stdin>", err);
	memset(s, 0, sizeof *s);
	s->fd = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pd_error_set(err, PD_EIO, path, PD_NO_OFFSET, "cannot open: %s",
				    pd_open_strerror(errno));
	struct stat st;
	int rc = fstat(fd, &st) < 0 ? pd_error_set(err, PD_EIO, path, PD_NO_OFFSET,
						   "cannot stat: %s", strerror(errno))
				    : check_kind(&st, regular_only, path, err);
	if (rc == 0 && S_ISFIFO(st.st_mode))
		rc = wait_for_writer(fd, path, err);
	if (rc == 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (rc == 0)
		rc = pd_source_open_fd(s, fd, true, no_mmap, path, err);
	if (rc < 0) {
		close(fd);
		s->fd = -1;
		s->own_fd = false;
	}
	return rc;
}

void pd_source_close(pd_source *s)
{
	if (s->map)
		munmap((void *)s->map, (size_t)s->map_size);
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	pd_buf_free(&s->buf);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

size_t pd_source_get(pd_source *s, uint64_t off, size_t want, const uint8_t **p)
{
	if (!s->is_stream) {
		if (off >= s->map_size) {
			*p = NULL;
			return 0;
		}
		*p = s->map + off;
		return (size_t)(s->map_size - off);
	}
	if (off < s->base) { /* went backwards past dropped bytes: caller bug */
		*p = NULL;
		return 0;
	}
	/* drop what lies before `off` */
	uint64_t drop = off - s->base;
	if (drop >= s->buf.len) {
		/* skip unread bytes by reading and discarding them */
		uint64_t skip = drop - s->buf.len;
		s->base += s->buf.len;
		s->buf.len = 0;
		while (skip > 0 && !s->eof) {
			if (pd_buf_reserve(&s->buf, PD_STREAM_CHUNK) < 0)
				break;
			size_t n = skip < PD_STREAM_CHUNK ? (size_t)skip : PD_STREAM_CHUNK;
			ssize_t got = read(s->fd, s->buf.data, n);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				if (got < 0)
					s->read_errno = errno;
				s->eof = true;
				break;
			}
			skip -= (uint64_t)got;
			s->base += (uint64_t)got;
		}
		if (skip > 0) {
			*p = NULL;
			return 0;
		}
	} else if (drop > 0) {
		pd_buf_consume(&s->buf, (size_t)drop);
		s->base = off;
	}
	while (s->buf.len < want && !s->eof) {
		/* grow with what actually arrives, never by what a record header
		 * claims: a corrupt size must not allocate gigabytes up front */
		size_t chunk = PD_STREAM_CHUNK;
		if (pd_buf_reserve(&s->buf, chunk) < 0)
			break;
		ssize_t got = read(s->fd, s->buf.data + s->buf.len, chunk);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0)
				s->read_errno = errno;
			s->eof = true;
			break;
		}
		s->buf.len += (size_t)got;
	}
	*p = s->buf.len ? s->buf.data : NULL;
	return s->buf.len;
}
