/*
 * pd_writer: the buffer every format writes into, and the way out to the
 * caller's FILE or callback (writer.h says why it is buffered and why
 * numbers are converted by hand).  Errors are sticky so that a format can
 * write a whole document and learn once, at the end, that memory ran out
 * or the disk filled up.
 */
#include "writer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "util/util.h"

static int file_write(void *ctx, const char *buf, size_t n)
{
	pd_writer *w = ctx;
	if (fwrite(buf, 1, n, w->file) == n)
		return 0;
	w->err_no = errno ? errno : EIO;
	return -1;
}

static int writer_new(pd_writer **out, pd_write_fn fn, void *ctx, FILE *f, pd_error *err)
{
	if (!out || (!fn && !f))
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no writer pointer, FILE or callback given");
	*out = NULL;
	pd_writer *w = calloc(1, sizeof *w);
	if (!w)
		return pd_error_set(err, PD_ENOMEM, "output", PD_NO_OFFSET, "out of memory");
	w->fn = fn ? fn : file_write;
	w->ctx = fn ? ctx : w;
	w->file = f;
	*out = w;
	return 0;
}

int pd_writer_new_file(pd_writer **out, FILE *f, pd_error *err)
{
	if (!f)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no FILE given");
	return writer_new(out, NULL, NULL, f, err);
}

int pd_writer_new_callback(pd_writer **out, pd_write_fn fn, void *ctx, pd_error *err)
{
	if (!fn)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no callback given");
	return writer_new(out, fn, ctx, NULL, err);
}

void pd_writer_free(pd_writer *w)
{
	if (!w)
		return;
	free(w->p);
	free(w);
}

bool pdo_grow(pd_writer *w, size_t n)
{
	if (w->failed)
		return false;
	if (w->cap - w->len >= n)
		return true;
	size_t cap = w->cap ? w->cap : 1u << 16;
	while (cap - w->len < n) {
		if (cap > SIZE_MAX / 2) {
			w->failed = PD_ENOMEM;
			return false;
		}
		cap *= 2;
	}
	char *p = realloc(w->p, cap);
	if (!p) {
		w->failed = PD_ENOMEM;
		return false;
	}
	w->p = p;
	w->cap = cap;
	return true;
}

int pdo_drain(pd_writer *w)
{
	if (w->failed)
		return w->failed;
	size_t n = w->len;
	w->len = 0;
	if (n && w->fn(w->ctx, w->p, n) != 0)
		w->failed = PD_EIO;
	return w->failed;
}

int pdo_status(const pd_writer *w, pd_error *err)
{
	if (!w->failed)
		return 0;
	if (w->failed == PD_ENOMEM)
		return pd_error_set(err, PD_ENOMEM, "output", PD_NO_OFFSET, "out of memory");
	if (w->file)
		return pd_error_set(err, PD_EIO, "output", PD_NO_OFFSET, "%s",
				    strerror(w->err_no ? w->err_no : EIO));
	return pd_error_set(err, PD_EIO, "output", PD_NO_OFFSET, "the write callback failed");
}

int pd_writer_flush(pd_writer *w, pd_error *err)
{
	if (!w)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no writer given");
	if (pdo_drain(w) == 0 && w->file && (fflush(w->file) != 0 || ferror(w->file))) {
		w->err_no = errno ? errno : EIO;
		w->failed = PD_EIO;
	}
	return pdo_status(w, err);
}

int pd_writer_write(pd_writer *w, const void *buf, size_t n)
{
	if (!w || (!buf && n))
		return PD_EINVAL;
	pdo_putn(w, buf, n);
	return pdo_flush_some(w);
}

static void pdo_vprintf(pd_writer *w, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	/* most lines fit the room already there: one pass */
	size_t room = pdo_reserve(w, 256) ? w->cap - w->len : 0;
	int n = room ? vsnprintf(w->p + w->len, room, fmt, ap) : -1;
	if (n >= 0 && (size_t)n >= room && pdo_reserve(w, (size_t)n + 1))
		n = vsnprintf(w->p + w->len, (size_t)n + 1, fmt, again);
	va_end(again);
	if (n < 0) {
		if (!w->failed)
			w->failed = PD_ENOMEM;
		return;
	}
	if (!w->failed)
		w->len += (size_t)n;
}

void pdo_printf(pd_writer *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pdo_vprintf(w, fmt, ap);
	va_end(ap);
}

int pd_writer_printf(pd_writer *w, const char *fmt, ...)
{
	if (!w || !fmt)
		return PD_EINVAL;
	va_list ap;
	va_start(ap, fmt);
	pdo_vprintf(w, fmt, ap);
	va_end(ap);
	return pdo_flush_some(w);
}

void pdo_fill(pd_writer *w, char c, size_t n)
{
	if (pdo_reserve(w, n)) {
		memset(w->p + w->len, c, n);
		w->len += n;
	}
}

/* Two digits at a time: half the divisions of a digit-by-digit loop. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of `v`, right-aligned ending at `end`; returns the start. */
static char *dec_digits(char *end, uint64_t v)
{
	char *p = end;
	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;
		v /= 100;
		*--p = digit_pairs[i + 1];
		*--p = digit_pairs[i];
	}
	if (v >= 10) {
		unsigned i = (unsigned)v * 2;
		*--p = digit_pairs[i + 1];
		*--p = digit_pairs[i];
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

static void put_padded(pd_writer *w, const char *s, size_t n, unsigned width, char pad,
		       bool left)
{
	size_t fill = width > n ? width - n : 0;
	char *o = w->p + w->len;
	if (left) {
		memcpy(o, s, n);
		memset(o + n, ' ', fill);
	} else {
		memset(o, pad, fill);
		memcpy(o + fill, s, n);
	}
	w->len += n + fill;
}

void pdo_dec_r(pd_writer *w, uint64_t v, unsigned width, char pad, bool left)
{
	char tmp[PDO_DEC_MAX];
	char *s = dec_digits(tmp + sizeof tmp, v);
	put_padded(w, s, (size_t)(tmp + sizeof tmp - s), width, pad, left);
}

void pdo_dec(pd_writer *w, uint64_t v)
{
	if (pdo_reserve(w, PDO_DEC_MAX))
		pdo_dec_r(w, v, 0, ' ', false);
}

/* Hex digits of v: 1 for 0, else 16 - leading zero bits / 4. */
static unsigned hex_len(uint64_t v)
{
	return v ? 16 - (unsigned)__builtin_clzll(v) / 4 : 1;
}

void pdo_hex_r(pd_writer *w, uint64_t v, unsigned width)
{
	static const char digits[] = "0123456789abcdef";
	unsigned n = hex_len(v);
	char *o = w->p + w->len;
	if (width > n) {
		memset(o, ' ', width - n);
		o += width - n;
	}
	w->len = (size_t)(o + n - w->p);
	/* A byte (two digits) per step. */
	char *p = o + n;
	for (; p - o >= 2; v >>= 8) {
		*--p = digits[v & 15];
		*--p = digits[(v >> 4) & 15];
	}
	if (p > o)
		*--p = digits[v & 15];
}
