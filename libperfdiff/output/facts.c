/*
 * What a profile's numbers rest on, gathered once for the formats that
 * state it (the diff's footers, the report's header, their JSON): facts
 * that change what a result means and that used to reach only standard
 * error, or nobody.  A side whose leaves are 99 % unresolved (its binary
 * deleted), an input cut short, samples the kernel dropped, a run of
 * three samples whose forty "significant" rows are noise, a filter that
 * matched nothing: each is said next to the numbers it concerns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

size_t pdo_unmatched_filters(const pd_profile *p, const char ***out)
{
	/* one block: the n pointers, then "--what=value\0" for each, so that
	 * the caller's free() of the array frees all */
	*out = NULL;
	const char *what, *value;
	size_t n = pd_profile_filter_unmatched(p, NULL, NULL, 0), bytes = n * sizeof(char *);
	for (size_t i = 0; i < n; i++) {
		pd_profile_filter_unmatched(p, &what, &value, i);
		bytes += strlen(what) + strlen(value) + 4;
	}
	const char **v = n ? malloc(bytes) : NULL;
	if (!v)
		return 0;  /* a fact not stated is better than no output */
	char *t = (char *)(v + n);
	for (size_t i = 0; i < n; i++) {
		pd_profile_filter_unmatched(p, &what, &value, i);
		v[i] = t;
		t += sprintf(t, "--%s=%s", what, value) + 1;
	}
	*out = v;
	return n;
}

/* The unresolved share and the sparsest run of event `ev`. */
static void event_facts(pdo_facts *f, const pd_profile *p, size_t ev)
{
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	uint64_t unres = pd_profile_unresolved(p, ev, SIZE_MAX);
	f->unresolved_pct = total ? 100.0 * (double)unres / (double)total : 0;
	if (f->unresolved_pct > 100)
		f->unresolved_pct = 100;  /* -U left them out of the total */
	size_t runs = pd_profile_run_count(p);
	f->fewest = runs ? UINT64_MAX : 0;
	for (size_t r = 0; r < runs; r++) {
		uint64_t n = pd_profile_samples(p, ev, r);
		if (n < f->fewest)
			f->fewest = n;
	}
	f->too_few = runs && f->fewest < PDO_FEW_SAMPLES;
}

int pdo_facts_get(pdo_facts *f, pd_profile *p, size_t ev, const char *const *files,
		  size_t nfiles)
{
	memset(f, 0, sizeof *f);
	f->ev = ev;
	if (!p)
		return 0;  /* a robot's table: no recordings behind it */
	f->prof = p;
	size_t runs = pd_profile_run_count(p);
	f->lost = pd_profile_lost(p, SIZE_MAX);
	f->read = pd_profile_run_samples_read(p, SIZE_MAX);
	if (ev != SIZE_MAX)
		event_facts(f, p, ev);
	f->truncated = malloc((runs ? runs : 1) * sizeof *f->truncated);
	if (!f->truncated)
		return PD_ENOMEM;
	for (size_t r = 0; r < runs; r++)
		if (pd_profile_run_truncated(p, r))
			f->truncated[f->ntruncated++] = files && r < nfiles ? files[r]
									 : pd_profile_run_path(p, r);
	f->nunmatched = pdo_unmatched_filters(p, &f->unmatched);
	return 0;
}

void pdo_facts_free(pdo_facts *f)
{
	free(f->truncated);
	free(f->unmatched);
	memset(f, 0, sizeof *f);
}

/* "a.data, b.data" of `v` */
static void put_list(pd_writer *w, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			pdo_puts(w, ", ");
		pdo_put_escaped(w, v[i]);
	}
}

void pdo_facts_text(pd_writer *w, const pdo_facts *f)
{
	if (f->unresolved_pct >= PDO_UNRESOLVED_SHOWN)
		pdo_printf(w, "      %.1f %% of the period has no symbol for its leaf "
			   "(a binary missing, stripped or rebuilt)\n", f->unresolved_pct);
	if (f->ntruncated) {
		pdo_puts(w, "      truncated (records after the cut are missing): ");
		put_list(w, f->truncated, f->ntruncated);
		pdo_putc(w, '\n');
	}
	if (f->lost)
		pdo_printf(w, "      %llu samples lost while recording (%.1f %% of %llu)\n",
			   (unsigned long long)f->lost,
			   100.0 * (double)f->lost / (double)(f->lost + f->read),
			   (unsigned long long)(f->lost + f->read));
	if (f->too_few)
		pdo_printf(w, "      too few samples: %llu in a run, fewer than %d: the test "
			   "cannot be trusted\n", (unsigned long long)f->fewest, PDO_FEW_SAMPLES);
	if (f->nunmatched) {
		pdo_puts(w, "      filters that matched nothing: ");
		put_list(w, f->unmatched, f->nunmatched);
		pdo_putc(w, '\n');
	}
	pdo_stack_filters_text(w, f->prof, f->ev, "      ");
	if (f->prof)
		pdo_origins_text(w, f->prof, "      ", f->all_origins);
}
