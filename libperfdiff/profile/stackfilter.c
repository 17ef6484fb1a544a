/*
 * Stack filters: pprof's -focus, -ignore, -hide and -prune_from, applied
 * to each sample's stack while it is folded, so that the tree, the totals
 * and every view built from them (shares, a diff's statistics and
 * relations) are of what remains.  Filtering before folding rather than
 * pruning the finished tree is what keeps a hidden frame's self with its
 * caller and a dropped sample out of the total.
 *
 * Expressions are POSIX extended ones (regcomp(3)), matched against the
 * name the profile gives a frame.  A frame's verdict depends on its name
 * alone, so it is decided once per frame id and kept (`verdict`); a
 * stack then costs a byte read per frame.  The order is pprof's
 * (FilterSamplesByName, then PruneFrom): ignore and focus look at the
 * whole stack, hide removes frames, prune-from cuts what is left below
 * its innermost match.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static const char *const slot_names[PD_SF_NRE] = { "focus", "ignore", "hide", "prune_from" };

/* The options' field of slot `k`. */
static const char **slot_field(pd_profile_options *o, int k)
{
	const char **f[PD_SF_NRE] = { &o->focus, &o->ignore, &o->hide, &o->prune_from };
	return f[k];
}

static int compile(pd_stackfilter *f, int k, const char *text, pd_error *err)
{
	int rc = regcomp(&f->re[k], text, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		char msg[256];
		regerror(rc, &f->re[k], msg, sizeof msg);
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "%s: bad regular expression '%s': %s", slot_names[k], text, msg);
	}
	if (!(f->text[k] = strdup(text))) {
		regfree(&f->re[k]);
		return pd_error_set(err, PD_ENOMEM, "profile", PD_NO_OFFSET, "out of memory");
	}
	return 0;
}

int pd_stackfilter_init(pd_stackfilter *f, pd_profile_options *o, pd_error *err)
{
	memset(f, 0, sizeof *f);
	for (int k = 0; k < PD_SF_NRE; k++) {
		const char **field = slot_field(o, k);
		const char *text = *field;
		*field = NULL;
		if (!text || !*text)
			continue;
		int rc = compile(f, k, text, err);
		if (rc < 0)
			return rc;
		*field = f->text[k];
		f->any = true;
	}
	if ((f->text[PD_SF_HIDE] || f->text[PD_SF_PRUNE]) && (o->flags & PD_PROFILE_KEEP_SITES))
		return pd_error_set(err, PD_EINVAL, "profile", PD_NO_OFFSET,
				    "%s changes stacks, which a profile keeping sites (a "
				    "pprof export) cannot follow",
				    f->text[PD_SF_HIDE] ? "hide" : "prune_from");
	return 0;
}

void pd_stackfilter_free(pd_stackfilter *f)
{
	for (int k = 0; k < PD_SF_NRE; k++)
		if (f->text[k]) {
			regfree(&f->re[k]);
			free(f->text[k]);
		}
	free(f->verdict);
	free(f->kept);
	memset(f, 0, sizeof *f);
}

/* The slots frame `id` matches, as bits 1 << slot. */
static int verdict(pd_profile *p, uint32_t id)
{
	pd_stackfilter *f = &p->stackfilter;
	if (id >= f->cap) {
		size_t cap = f->cap ? f->cap : 1024;
		while (cap <= id)
			cap *= 2;
		uint8_t *v = realloc(f->verdict, cap);
		if (!v)
			return PD_ENOMEM;
		memset(v + f->cap, 0, cap - f->cap);
		f->verdict = v;
		f->cap = cap;
	}
	if (!f->verdict[id]) {
		const char *name = pd_strtab_get(&p->strings, p->frames.v[id].sym);
		uint8_t bits = 1;
		for (int k = 0; k < PD_SF_NRE; k++)
			if (f->text[k] && regexec(&f->re[k], name, 0, NULL, 0) == 0)
				bits |= (uint8_t)(2u << k);
		f->verdict[id] = bits;
	}
	return f->verdict[id] >> 1;
}

/* Count `samples` samples of `period` in all under kind `kind` in run
 * `run` of `e`. */
static int count(pd_pevent *e, size_t run, pd_stack_filter kind, uint64_t samples,
		 uint64_t period)
{
	const size_t per = 2 * PD_STACK_NFILTERS;
	if (run >= e->sf_runs) {
		uint64_t *v = realloc(e->sf, (run + 1) * per * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		memset(v + e->sf_runs * per, 0, (run + 1 - e->sf_runs) * per * sizeof *v);
		e->sf = v;
		e->sf_runs = run + 1;
	}
	e->sf[run * per + 2 * (size_t)kind] += samples;
	e->sf[run * per + 2 * (size_t)kind + 1] += period;
	return 0;
}

/* The union of the slots the frames match, each frame's in bits[]. */
static int match_all(pd_profile *p, const uint32_t *frames, size_t n, uint8_t *bits, int *any)
{
	*any = 0;
	for (size_t i = 0; i < n; i++) {
		int v = verdict(p, frames[i]);
		if (v < 0)
			return v;
		bits[i] = (uint8_t)v;
		*any |= v;
	}
	return 0;
}

static int room(pd_stackfilter *f, size_t n)
{
	/* the frames, then one verdict byte per frame */
	size_t need = n + (n + sizeof(uint32_t) - 1) / sizeof(uint32_t);
	if (need <= f->cap_kept)
		return 0;
	uint32_t *k = realloc(f->kept, need * sizeof *k);
	if (!k)
		return PD_ENOMEM;
	f->kept = k;
	f->cap_kept = need;
	return 0;
}

/* Hide, then prune, into f->kept: its length, 0 when hide took all. */
static size_t cut(pd_stackfilter *f, const uint32_t *frames, size_t n, const uint8_t *bits,
		  bool *pruned)
{
	size_t m = 0, keep_from = 0;
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		if (bits[i] & (1u << PD_SF_HIDE))
			continue;
		if (!found && (bits[i] & (1u << PD_SF_PRUNE))) {
			keep_from = m;  /* the innermost match: frames before it go */
			found = true;
		}
		f->kept[m++] = frames[i];
	}
	*pruned = found && keep_from > 0;
	if (*pruned) {
		memmove(f->kept, f->kept + keep_from, (m - keep_from) * sizeof *f->kept);
		m -= keep_from;
	}
	return m;
}

int pd_stackfilter_apply(pd_profile *p, pd_pevent *e, size_t run, const uint32_t *frames,
			 size_t n, uint64_t samples, uint64_t period, const uint32_t **out,
			 size_t *nout)
{
	pd_stackfilter *f = &p->stackfilter;
	*out = frames;
	*nout = n;
	int rc = room(f, n), any;
	if (rc < 0)
		return rc;
	uint8_t *bits = (uint8_t *)(f->kept + n);
	if ((rc = match_all(p, frames, n, bits, &any)) < 0)
		return rc;
	if (any & (1 << PD_SF_IGNORE)) {
		*nout = 0;
		return count(e, run, PD_STACK_IGNORE, samples, period);
	}
	if (f->text[PD_SF_FOCUS] && !(any & (1 << PD_SF_FOCUS))) {
		*nout = 0;
		return count(e, run, PD_STACK_FOCUS, samples, period);
	}
	if (!(any & (1 << PD_SF_HIDE | 1 << PD_SF_PRUNE)))
		return 0;
	bool pruned;
	size_t m = cut(f, frames, n, bits, &pruned);
	*out = f->kept;
	*nout = m;
	if (m == 0)
		return count(e, run, PD_STACK_HIDE_ALL, samples, period);
	if ((any & (1 << PD_SF_HIDE)) && (rc = count(e, run, PD_STACK_HIDE, samples, period)) < 0)
		return rc;
	return pruned ? count(e, run, PD_STACK_PRUNE_FROM, samples, period) : 0;
}

uint64_t pd_profile_stack_filtered(const pd_profile *p, size_t ev, size_t run,
				   pd_stack_filter f, uint64_t *period)
{
	if (period)
		*period = 0;
	if (!p || ev >= p->nevents || (unsigned)f >= PD_STACK_NFILTERS)
		return 0;
	const pd_pevent *e = p->events[ev];
	const size_t per = 2 * PD_STACK_NFILTERS;
	uint64_t n = 0, sum = 0;
	for (size_t r = 0; r < e->sf_runs; r++)
		if (run == SIZE_MAX || run == r) {
			n += e->sf[r * per + 2 * (size_t)f];
			sum += e->sf[r * per + 2 * (size_t)f + 1];
		}
	if (period)
		*period = sum;
	return n;
}

const char *pd_profile_stack_filter_regex(const pd_profile *p, pd_stack_filter f)
{
	static const int slot[PD_STACK_NFILTERS] = { PD_SF_FOCUS, PD_SF_IGNORE, PD_SF_HIDE,
						     PD_SF_HIDE, PD_SF_PRUNE };
	if (!p || (unsigned)f >= PD_STACK_NFILTERS)
		return NULL;
	return p->stackfilter.text[slot[f]];
}
