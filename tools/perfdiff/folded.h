/*
 * The stack text of Brendan Gregg's collapsed stacks ("comm;root;...;leaf"),
 * written the same way by `report --format=folded` (one weight a line)
 * and `diff --format=folded` (a weight per side), so that the lines of
 * the two commands match byte for byte and a differential flame graph
 * lines up with the two plain ones.
 */
#ifndef PERFDIFF_CLI_FOLDED_H
#define PERFDIFF_CLI_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outbuf.h"
#include "perfdiff/profile.h"

/* Room to walk a stack from its leaf up, reused from stack to stack.
 * Zero-initialise; folded_path_free() when done. */
typedef struct folded_path {
	const pd_cct_node **v;
	size_t cap;
} folded_path;

void folded_path_free(folded_path *fp);

/*
 * Append the frames of `s` to `b`: its comm, then every frame from the
 * root to the leaf, joined by ';' (';' in a name becomes ':', line breaks
 * spaces; inline frames end in "_[i]").  No weight, no newline.  0, or -1
 * when memory runs out (then `b` may hold part of the stack).
 */
int folded_put_stack(outbuf *b, const pd_stack *s, folded_path *fp);

/* A stack's weight by --weight: samples, or the period (the default). */
static inline uint64_t folded_weight(const pd_stack *s, bool samples)
{
	return samples ? s->samples : s->period;
}

#endif
