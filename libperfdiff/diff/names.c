/*
 * How alike two function names are, for rename evidence.  Weak on its own
 * ("__fget_light" and "__fdget" share little but "f", "get"), so align.c
 * weighs it below callees and cost.  Two measures, the better one taken:
 * character-bigram Dice catches shared parts in another order
 * ("read_page_cache" / "cache_read_page"), normalised Levenshtein catches
 * small edits of short names ("do_foo" / "do_foo2").
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Names longer than this are compared on their first NAME_MAX bytes:
 * C++ names can be kilobytes and the measures are quadratic. */
#define NAME_MAX_CMP 128

static const char *skip_underscores(const char *s)
{
	while (*s == '_')
		s++;
	return s;
}

static size_t cmp_len(const char *s)
{
	size_t n = strlen(s);
	return n > NAME_MAX_CMP ? NAME_MAX_CMP : n;
}

static double bigram_dice(const char *a, size_t na, const char *b, size_t nb)
{
	if (na < 2 || nb < 2)
		return na == nb && memcmp(a, b, na) == 0 ? 1.0 : 0.0;
	/* each bigram of b may be used once */
	bool used[NAME_MAX_CMP];
	memset(used, 0, sizeof used);
	size_t common = 0;
	for (size_t i = 0; i + 1 < na; i++)
		for (size_t j = 0; j + 1 < nb; j++)
			if (!used[j] && a[i] == b[j] && a[i + 1] == b[j + 1]) {
				used[j] = true;
				common++;
				break;
			}
	return 2.0 * (double)common / (double)(na - 1 + nb - 1);
}

static double levenshtein_sim(const char *a, size_t na, const char *b, size_t nb)
{
	size_t row[NAME_MAX_CMP + 1];
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t m = na > nb ? na : nb;
	return m ? 1.0 - (double)row[nb] / (double)m : 1.0;
}

double dt_name_similarity(const char *a, const char *b)
{
	if (!a || !b)
		return 0;
	a = skip_underscores(a);
	b = skip_underscores(b);
	size_t na = cmp_len(a), nb = cmp_len(b);
	double d = bigram_dice(a, na, b, nb);
	double l = levenshtein_sim(a, na, b, nb);
	return d > l ? d : l;
}
