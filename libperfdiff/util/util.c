/*
 * The util stage's helpers that are not inline (util.h): the bit order of
 * swapped attr flags, growing arrays, the arena, the byte buffer, reading
 * a whole file and pd_error formatting.  Gathered here because every stage
 * needs them and none should grow its own; the warnings sink is in
 * warnings.c.
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t pd_bitfield_swap(uint64_t v)
{
	uint64_t out = 0;
	for (int byte = 0; byte < 8; byte++) {
		uint8_t b = (uint8_t)(v >> (8 * byte)), r = 0;
		for (int bit = 0; bit < 8; bit++)
			if (b & (1u << bit))
				r |= (uint8_t)(0x80u >> bit);
		out |= (uint64_t)r << (8 * byte);
	}
	return out;
}

struct pd_arena_chunk {
	pd_arena_chunk *next;
	size_t cap;
	_Alignas(8) uint8_t mem[];
};

void pd_arena_init(pd_arena *a)
{
	a->head = NULL;
	a->used = a->cap = 0;
}

void pd_arena_free(pd_arena *a)
{
	pd_arena_chunk *c = a->head;
	while (c) {
		pd_arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	pd_arena_init(a);
}

size_t pd_arena_bytes(const pd_arena *a)
{
	size_t n = 0;
	for (const pd_arena_chunk *c = a->head; c; c = c->next)
		n += sizeof *c + c->cap;
	return n;
}

void *pd_arena_alloc(pd_arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if (n == 0)
		n = 8;
	if (!a->head || a->cap - a->used < n) {
		size_t cap = n > 16384 ? n : 16384;
		if (cap > SIZE_MAX - sizeof(pd_arena_chunk))
			return NULL;
		pd_arena_chunk *c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		if (a->head && n > 16384) {
			/* a large block: keep the current chunk as the one to fill */
			c->next = a->head->next;
			a->head->next = c;
			memset(c->mem, 0, n);
			return c->mem;
		}
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->cap = cap;
	}
	void *p = a->head->mem + a->used;
	a->used += n;
	memset(p, 0, n);
	return p;
}

char *pd_arena_strndup(pd_arena *a, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = pd_arena_alloc(a, len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

void *pd_arena_memdup(pd_arena *a, const void *p, size_t n)
{
	void *d = pd_arena_alloc(a, n);
	if (d && n)
		memcpy(d, p, n);
	return d;
}

int pd_buf_reserve(pd_buf *b, size_t extra)
{
	if (extra <= b->cap - b->len)
		return 0;
	if (extra > SIZE_MAX / 2 - b->len)
		return PD_ENOMEM;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len < extra)
		cap *= 2;
	uint8_t *d = realloc(b->data, cap);
	if (!d)
		return PD_ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

int pd_buf_append(pd_buf *b, const void *p, size_t n)
{
	int rc = pd_buf_reserve(b, n);
	if (rc)
		return rc;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void pd_buf_consume(pd_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

void pd_buf_free(pd_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int pd_error_vset(pd_error *err, int code, const char *file, uint64_t offset,
		  const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	err->offset = offset;
	int n;
	if (offset != PD_NO_OFFSET)
		n = snprintf(err->message, sizeof err->message, "%s: offset %llu: ",
			     file ? file : "<input>", (unsigned long long)offset);
	else
		n = snprintf(err->message, sizeof err->message, "%s: ",
			     file ? file : "<input>");
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof err->message)
		vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
	return code;
}

int pd_error_set(pd_error *err, int code, const char *file, uint64_t offset,
		 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pd_error_vset(err, code, file, offset, fmt, ap);
	va_end(ap);
	return code;
}

int pd_error_vreason(pd_error *err, int code, const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	err->offset = PD_NO_OFFSET;
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	return code;
}

int pd_error_reason(pd_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pd_error_vreason(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int pd_error_wrap(pd_error *err, int code, const char *file, uint64_t offset,
		  const char *fmt, ...)
{
	if (!err)
		return code;
	/* both copied out first: err->message is the reason and the result */
	char context[PD_ERROR_MESSAGE_MAX] = "", reason[PD_ERROR_MESSAGE_MAX];
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(context, sizeof context, fmt, ap);
		va_end(ap);
	}
	memcpy(reason, err->message, sizeof reason);
	const char *sep = fmt ? ": " : "";
	if (file)
		return pd_error_set(err, code, file, offset, "%s%s%s", context, sep, reason);
	return pd_error_reason(err, code, "%s%s%s", context, sep, reason);
}

const char *pd_error_code_str(int code)
{
	switch (code) {
	case PD_OK: return "ok";
	case PD_ITEROVER: return "end of iteration";
	case PD_EINVAL: return "invalid argument";
	case PD_ENOMEM: return "out of memory";
	case PD_EIO: return "I/O error";
	case PD_ENOTPERF: return "not a perf.data file";
	case PD_EUNSUPPORTED: return "unsupported";
	case PD_ECORRUPT: return "corrupt input";
	case PD_ELIMIT: return "resource limit exceeded";
	case PD_EPERM: return "permission denied";
	default: return "unknown error";
	}
}

const char *pd_version(void)
{
	return PD_VERSION_STRING;
}

const char *pd_open_strerror(int errnum)
{
	/* "Too many levels of symbolic links" hides that a link names itself */
	return errnum == ELOOP ? "symbolic link loop" : strerror(errnum);
}

const char *pd_file_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

int pd_open_regular(const char *path, int *fd, uint64_t *size, pd_error *err)
{
	*fd = -1;
	/* O_NONBLOCK: opening a FIFO without a writer returns at once */
	int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f < 0)
		return pd_error_reason(err, PD_EIO, "%s: cannot open: %s", path,
				       pd_open_strerror(errno));
	struct stat st;
	if (fstat(f, &st) < 0) {
		int e = errno;
		close(f);
		return pd_error_reason(err, PD_EIO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(f);
		return pd_error_reason(err, PD_EINVAL, "%s: %s, not a regular file", path,
				       pd_file_kind((unsigned)st.st_mode));
	}
	/* reads of a regular file do not care, but a caller may hand it on */
	fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
	*fd = f;
	if (size)
		*size = (uint64_t)st.st_size;
	return 0;
}

int pd_read_fd(int fd, const char *path, size_t max, char **data, size_t *len, pd_error *err)
{
	*data = NULL;
	*len = 0;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int rc = buf ? 0 : PD_ENOMEM;
	while (rc == 0) {
		if (n == cap) {
			if (cap >= max) {
				rc = pd_error_reason(err, PD_ELIMIT, "%s: larger than %zu MiB",
						     path, max >> 20);
				break;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				rc = PD_ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = pd_error_reason(err, PD_EIO, "%s: read failed: %s", path,
					     strerror(errno));
		} else if (got == 0) {
			break;
		} else {
			n += (size_t)got;
		}
	}
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*data = buf;
	*len = n;
	return 0;
}

int pd_read_file(const char *path, size_t max, char **data, size_t *len, pd_error *err)
{
	*data = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pd_error_reason(err, PD_EIO, "%s: cannot open: %s", path,
				       pd_open_strerror(errno));
	int rc = pd_read_fd(fd, path, max, data, len, err);
	close(fd);
	return rc;
}

int pd_grow_slow(void *arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap > 16 ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return PD_ENOMEM;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return PD_ENOMEM;
	/* `arr` points at a T *: copied through void * so that no caller
	 * needs a cast (all object pointers share a representation here) */
	void *old;
	memcpy(&old, arr, sizeof old);
	void *v = realloc(old, n * elem);
	if (!v)
		return PD_ENOMEM;
	memcpy(arr, &v, sizeof v);
	*cap = n;
	return 0;
}

void *pd_zalloc_touched(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	size_t bytes = n * size;
	void *p = malloc(bytes > 0 ? bytes : 1);
	if (p)
		memset(p, 0, bytes);
	return p;
}

int pd_tmpfd(const char *tag)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !dir[0])
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	char tmpl[4200];
	snprintf(tmpl, sizeof tmpl, "%s/perfdiff-%s-XXXXXX", dir, tag);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}
