/*
 * Collapsed-stack text shared by `report` and `diff` (folded.h).
 */
#include <stdlib.h>
#include <string.h>

#include "folded.h"

void folded_path_free(folded_path *fp)
{
	free(fp->v);
	fp->v = NULL;
	fp->cap = 0;
}

/* ';' separates frames and the last ' ' the count, so ';' in a name
 * becomes ':' (C++ templates can hold one) and line breaks spaces. */
static void put_name(outbuf *b, const char *s, bool inlined)
{
	size_t n = strlen(s);
	if (!ob_reserve(b, n + 4))
		return;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		ob_putc_r(b, c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c);
	}
	if (inlined)
		ob_putn_r(b, "_[i]", 4);
}

int folded_put_stack(outbuf *b, const pd_stack *s, folded_path *fp)
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
	put_name(b, s->comm, false);
	for (size_t d = depth; d-- > 0;) {
		if (ob_reserve(b, 1))
			ob_putc_r(b, ';');
		put_name(b, pd_cct_symbol(fp->v[d]), pd_cct_inlined(fp->v[d]));
	}
	return b->oom ? -1 : 0;
}
