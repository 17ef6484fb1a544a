/*
 * `perfdiff diff --format=folded`: the two-column collapsed stacks of a
 * differential flame graph, as FlameGraph's difffolded.pl writes them
 * and flamegraph.pl (or inferno-flamegraph) reads them:
 *
 *     comm;root;...;leaf BASE NEW
 *
 * one line per distinct stack of either side, the stack as `report
 * --format=folded` writes it (folded.c), each value the mean over the
 * side's runs, 0 where the side lacks the stack.  Lines sorted by stack,
 * byte order, so that the output does not depend on the order samples
 * came in.  The diff engine plays no part: a flame graph shows every
 * stack, and the reader of the graph judges the change.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "diff_cli.h"
#include "folded.h"

typedef struct entry {
	size_t off;          /* of the stack text while the text still grows */
	const char *stack;   /* then the text itself */
	uint64_t w;
	int side;
} entry;

static int by_stack(const void *a, const void *b)
{
	/* strcmp compares as unsigned char: byte order */
	return strcmp(((const entry *)a)->stack, ((const entry *)b)->stack);
}

/* sum / runs rounded to 2 decimals (half up), trailing zeros dropped:
 * "12", "12.5", "12.25".  Exact in integers: r < runs keeps r * 200 small. */
static void put_mean(outbuf *b, uint64_t sum, size_t runs)
{
	uint64_t n = runs ? runs : 1;
	uint64_t q = sum / n, r = sum % n;
	uint64_t h = (r * 200 + n) / (2 * n);
	if (h == 100) {
		q++;
		h = 0;
	}
	if (!ob_reserve(b, OB_DEC_MAX + 3))
		return;
	ob_dec_r(b, q, 0, ' ', false);
	if (h) {
		ob_putc_r(b, '.');
		ob_putc_r(b, (char)('0' + h / 10));
		if (h % 10)
			ob_putc_r(b, (char)('0' + h % 10));
	}
}

int diff_write_folded(pd_profile *const p[2], const size_t ev[2], bool weight_samples, FILE *f)
{
	const pd_stack *st[2];
	size_t n[2];
	for (int s = 0; s < 2; s++) {
		pd_error err;
		memset(&err, 0, sizeof err);
		if (pd_profile_stacks(p[s], ev[s], &st[s], &n[s], &err) < 0) {
			cli_error("%s", err.message);
			return -2;
		}
	}
	size_t total = n[0] + n[1];
	if (total < n[0] || total > SIZE_MAX / sizeof(entry)) {
		errno = ENOMEM;
		return -1;
	}
	entry *e = malloc((total ? total : 1) * sizeof *e);
	if (!e)
		return -1;
	/* every stack's text once, NUL-terminated, then sorted */
	outbuf text = { 0 };
	folded_path fp = { 0 };
	int rc = 0;
	size_t k = 0;
	for (int s = 0; s < 2 && rc == 0; s++)
		for (size_t i = 0; i < n[s] && rc == 0; i++, k++) {
			e[k].off = text.len;
			e[k].w = folded_weight(&st[s][i], weight_samples);
			e[k].side = s;
			rc = folded_put_stack(&text, &st[s][i], &fp);
			if (ob_reserve(&text, 1))
				ob_putc_r(&text, '\0');
		}
	folded_path_free(&fp);
	if (rc < 0 || text.oom) {
		ob_free(&text);
		free(e);
		return -1;
	}
	for (size_t i = 0; i < total; i++)
		e[i].stack = text.p + e[i].off;
	qsort(e, total, sizeof *e, by_stack);

	size_t runs[2] = { pd_profile_run_count(p[0]), pd_profile_run_count(p[1]) };
	outbuf out = { 0 };
	for (size_t i = 0; i < total && rc == 0;) {
		/* a stack can come more than once on a side: two frames that
		 * print alike (one name in two dsos) */
		uint64_t sum[2] = { 0, 0 };
		size_t j = i;
		for (; j < total && strcmp(e[j].stack, e[i].stack) == 0; j++)
			sum[e[j].side] += e[j].w;
		ob_puts(&out, e[i].stack);
		for (int s = 0; s < 2; s++) {
			if (ob_reserve(&out, 1))
				ob_putc_r(&out, ' ');
			put_mean(&out, sum[s], runs[s]);
		}
		if (ob_reserve(&out, 1))
			ob_putc_r(&out, '\n');
		i = j;
		rc = out.oom ? -1 : ob_flush_if(&out, f, 256u * 1024u);
	}
	if (rc == 0)
		rc = ob_flush(&out, f);
	ob_free(&out);
	ob_free(&text);
	free(e);
	return rc < 0 ? -1 : 0;
}
