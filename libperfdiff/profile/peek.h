/*
 * Building a peek (perfdiff/profile.h, "peek") of one profile or of two
 * sides at once: each side's functions are walked in its own tree, then
 * paired.  Which base function is which new one is the caller's to say
 * (the diff's renames), through `other_name`; the diff stage then fills
 * each entry's rows and relations.  Part of the profile stage's interface
 * (docs/architecture.md).
 */
#ifndef PD_PROFILE_PEEK_H
#define PD_PROFILE_PEEK_H

#include "perfdiff/profile.h"

typedef struct pd_peek_align {
	/* The name that side `side`'s function `sym` (of `dso`) has on the
	 * other side, or NULL: the same name. */
	const char *(*other_name)(void *ctx, int side, const char *sym, const char *dso);
	/* Whether the base's `base_dso` and the new's `new_dso` are one
	 * program (a binary renamed between builds); NULL: the same file
	 * name. */
	bool (*same_dso)(void *ctx, const char *base_dso, const char *new_dso);
	void *ctx;
} pd_peek_align;

/* The peek of event ev[s] of side[s] (side[1] NULL: one profile) for
 * `regex`; `al` NULL: names pair only with themselves.  0, PD_EINVAL or
 * PD_ENOMEM, in `err`. */
int pd_peek_build(pd_peek **out, const pd_profile *const side[2], const size_t ev[2],
		  const char *regex, const pd_peek_align *al, pd_error *err);

/* Entry `i`, to fill its diff fields; NULL out of range. */
pd_peek_entry *pd_peek_entry_edit(pd_peek *pk, size_t i);

/* Free `mem` with the peek.  0, or PD_ENOMEM (`mem` freed now). */
int pd_peek_own(pd_peek *pk, void *mem);

#endif
