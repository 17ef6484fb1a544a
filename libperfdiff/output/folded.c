/*
 * Brendan Gregg's collapsed stacks ("comm;root;...;leaf WEIGHT"), the
 * input of flamegraph.pl: a report writes one weight a line, a diff two
 * (base and new, as FlameGraph's difffolded.pl writes them).  The stack
 * text is written the same way for both, so that the lines of the two
 * match byte for byte and a differential flame graph lines up with the
 * two plain ones.  The two columns are built here from each side's
 * stacks and a function naming them: their own frames
 * (pd_diff_write_folded()) or the aligned tree's (folded_aligned.c).
 */
#include <stdlib.h>

#include "internal.h"
#include "util/util.h"

void pdo_folded_path_free(pdo_folded_path *fp)
{
	free(fp->v);
	fp->v = NULL;
	fp->cap = 0;
}

/* ';' separates frames and the last ' ' the count, so ';' in a name
 * becomes ':' (C++ templates can hold one) and line breaks spaces. */
void pdo_folded_name(pd_writer *w, const char *s, bool inlined)
{
	size_t n = strlen(s);
	if (!pdo_reserve(w, n + 4))
		return;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		pdo_putc_r(w, c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c);
	}
	if (inlined)
		pdo_putn_r(w, "_[i]", 4);
}

int pdo_folded_stack(pd_writer *w, const pd_stack *s, pdo_folded_path *fp, bool comm)
{
	size_t depth = 0;
	/* the root node has no parent and names no frame */
	for (const pd_cct_node *c = s->leaf; c && pd_cct_parent(c); c = pd_cct_parent(c)) {
		if (depth == fp->cap) {
			size_t cap = fp->cap ? 2 * fp->cap : 128;
			const pd_cct_node **x = realloc(fp->v, cap * sizeof *x);
			if (!x)
				return -1;
			fp->v = x;
			fp->cap = cap;
		}
		fp->v[depth++] = c;
	}
	if (comm)
		pdo_folded_name(w, s->comm, false);
	else if (depth == 0)
		pdo_puts(w, PDO_FOLDED_NO_FRAME);
	for (size_t d = depth; d-- > 0;) {
		if (comm || d + 1 < depth)
			pdo_putc(w, ';');
		pdo_folded_name(w, pd_cct_symbol(fp->v[d]), pd_cct_inlined(fp->v[d]));
	}
	return w->failed ? -1 : 0;
}

/* A stack's weight: samples, or the period (the default). */
static uint64_t weight(const pd_stack *s, bool samples)
{
	return samples ? s->samples : s->period;
}

int pdo_report_folded(const pdo_report *r)
{
	int ev = r->o.event >= 0 ? r->o.event : pd_profile_default_event(r->p);
	if (ev < 0)
		return 0;  /* no event to draw */
	const pd_stack *st;
	size_t n;
	int rc = pd_profile_stacks(r->p, (size_t)ev, &st, &n, r->err);
	if (rc < 0)
		return rc;
	pdo_folded_path fp = { 0 };
	for (size_t i = 0; i < n && rc == 0 && !r->w->failed; i++) {
		if (pdo_folded_stack(r->w, &st[i], &fp, true) < 0)
			rc = pdo_nomem(r->err);
		pdo_putc(r->w, ' ');
		pdo_dec(r->w, weight(&st[i], r->o.weight_samples));
		pdo_putc(r->w, '\n');
		pdo_flush_some(r->w);
	}
	pdo_folded_path_free(&fp);
	return rc;
}

/* ---- a diff's two columns ---- */

typedef struct entry {
	size_t off;          /* of the stack text while the text still grows */
	const char *stack;   /* then the text itself */
	uint64_t w;
	int side;
} entry;

/* Every stack of both sides, its text in `text` (a writer that is never
 * drained), sorted by stack. */
typedef struct stacks {
	entry *e;
	size_t n;
	pd_writer text;
} stacks;

static int by_stack(const void *a, const void *b)
{
	/* strcmp compares as unsigned char: byte order */
	return strcmp(((const entry *)a)->stack, ((const entry *)b)->stack);
}

/* sum / runs rounded to 2 decimals (half up), trailing zeros dropped:
 * "12", "12.5", "12.25".  Exact in integers: r < runs keeps r * 200 small. */
static void put_mean(pd_writer *w, uint64_t sum, size_t runs)
{
	uint64_t n = runs ? runs : 1;
	uint64_t q = sum / n, r = sum % n;
	uint64_t h = (r * 200 + n) / (2 * n);
	if (h == 100) {
		q++;
		h = 0;
	}
	if (!pdo_reserve(w, PDO_DEC_MAX + 3))
		return;
	pdo_dec_r(w, q, 0, ' ', false);
	if (h) {
		pdo_putc_r(w, '.');
		pdo_putc_r(w, (char)('0' + h / 10));
		if (h % 10)
			pdo_putc_r(w, (char)('0' + h % 10));
	}
}

static int collect(stacks *s, const pd_stack *const st[2], const size_t n[2], bool samples,
		   pdo_stack_text text, void *ctx)
{
	size_t total = n[0] + n[1];
	if (total < n[0] || total > SIZE_MAX / sizeof(entry))
		return -1;
	s->e = malloc((total ? total : 1) * sizeof *s->e);
	if (!s->e)
		return -1;
	int rc = 0;
	for (int side = 0; side < 2 && rc == 0; side++)
		for (size_t i = 0; i < n[side] && rc == 0; i++, s->n++) {
			entry *e = &s->e[s->n];
			*e = (entry){ s->text.len, NULL, weight(&st[side][i], samples), side };
			rc = text(&s->text, side, &st[side][i], ctx);
			pdo_putc(&s->text, '\0');
		}
	if (rc < 0 || s->text.failed)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		s->e[i].stack = s->text.p + s->e[i].off;
	qsort(s->e, s->n, sizeof *s->e, by_stack);
	return 0;
}

/* The lines: a stack can come more than once on a side (two frames that
 * print alike, one name in two dsos), its weights summed. */
static void put_lines(pd_writer *w, const stacks *s, const size_t runs[2])
{
	for (size_t i = 0; i < s->n && !w->failed;) {
		uint64_t sum[2] = { 0, 0 };
		size_t j = i;
		for (; j < s->n && strcmp(s->e[j].stack, s->e[i].stack) == 0; j++)
			sum[s->e[j].side] += s->e[j].w;
		pdo_puts(w, s->e[i].stack);
		for (int side = 0; side < 2; side++) {
			pdo_putc(w, ' ');
			put_mean(w, sum[side], runs[side]);
		}
		pdo_putc(w, '\n');
		pdo_flush_some(w);
		i = j;
	}
}

int pdo_folded_columns(pd_writer *w, pd_profile *const p[2], const char *event, bool samples,
		       pdo_stack_text text, void *ctx, pd_error *err)
{
	size_t ev[2], n[2];
	const pd_stack *st[2];
	int rc = pd_diff_events(p[0], p[1], event, ev, err);
	for (int side = 0; side < 2 && rc == 0; side++)
		rc = pd_profile_stacks(p[side], ev[side], &st[side], &n[side], err);
	if (rc < 0)
		return rc;
	stacks s = { 0 };
	if (collect(&s, st, n, samples, text, ctx) < 0)
		rc = pdo_nomem(err);
	size_t runs[2] = { pd_profile_run_count(p[0]), pd_profile_run_count(p[1]) };
	if (rc == 0)
		put_lines(w, &s, runs);
	free(s.e);
	free(s.text.p);
	return rc;
}

/* A stack as its own profile names it, command first. */
static int own_text(pd_writer *w, int side, const pd_stack *s, void *ctx)
{
	(void)side;
	return pdo_folded_stack(w, s, ctx, true);
}

int pd_diff_write_folded(pd_writer *w, pd_profile *base, pd_profile *new_,
			 const pd_diff_write_options *o, pd_error *err)
{
	if (!w || !base || !new_)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET,
				    "no writer or profile given");
	pd_diff_write_options opts;
	int rc = pdo_diff_options(&opts, o, err);
	if (rc < 0)
		return rc;
	pd_profile *p[2] = { base, new_ };
	pdo_folded_path fp = { 0 };
	rc = pdo_folded_columns(w, p, opts.event, opts.weight_samples, own_text, &fp, err);
	pdo_folded_path_free(&fp);
	return rc < 0 ? rc : pdo_done(w, err);
}
