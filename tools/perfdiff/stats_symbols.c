/*
 * `dump --stats`: how many samples have a leaf that could not be named, per
 * dso, so that a missing binary or a build-id mismatch shows up as numbers
 * rather than as [unknown] frames scattered through `perfdiff script`; and
 * how many DWARF-unwound stacks stopped before their outermost frame, per
 * dso, so that a stack copy too short for the stacks (or code without CFI)
 * shows up before it skews a report's inclusive times.  The session owns
 * the strings it reports; they are copied so that the report can be
 * printed after the session is gone.
 */
#include <stdlib.h>
#include <string.h>

#include "dump.h"

void stats_symbols_free(stats_symbols *sym)
{
	for (size_t i = 0; i < sym->nunresolved; i++)
		free(sym->unresolved[i].dso);
	free(sym->unresolved);
	for (size_t i = 0; i < sym->ntruncated; i++)
		free(sym->truncated[i].dso);
	free(sym->truncated);
	for (size_t i = 0; i < sym->ninvalid; i++)
		free(sym->invalid[i].dso);
	free(sym->invalid);
	for (size_t i = 0; i < sym->nwarnings; i++)
		free(sym->warnings[i]);
	free(sym->warnings);
	free(sym->error);
	memset(sym, 0, sizeof *sym);
}

/* Most samples first, then by name, so the report reads top-down and is
 * the same from run to run. */
static int by_samples(const void *a, const void *b)
{
	const stats_unresolved *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->dso, y->dso);
}

/* `n` per-dso counts of the session into `*out`, most samples first.
 * Entries copied so far are counted in `*nout`, so that a failure half way
 * leaves nothing for stats_symbols_free() to miss. */
static int copy_counts(const pd_unresolved_count *u, size_t n,
		       stats_unresolved **out, size_t *nout)
{
	if (n == 0)
		return 0;
	*out = calloc(n, sizeof **out);
	if (!*out)
		return -1;
	for (size_t i = 0; i < n; i++) {
		(*out)[i].dso = strdup(u[i].dso ? u[i].dso : "[unknown]");
		if (!(*out)[i].dso)
			return -1;
		(*out)[i].samples = u[i].samples;
		(*nout)++;
	}
	qsort(*out, *nout, sizeof **out, by_samples);
	return 0;
}

static int copy_unresolved(const pd_session *s, stats_symbols *out)
{
	const pd_unresolved_count *u;
	size_t n = pd_session_unresolved(s, &u);
	return copy_counts(u, n, &out->unresolved, &out->nunresolved);
}

static int copy_truncated(const pd_session *s, stats_symbols *out)
{
	const pd_unresolved_count *t;
	size_t n = pd_session_truncated(s, &t);
	return copy_counts(t, n, &out->truncated, &out->ntruncated);
}

static int copy_invalid(const pd_session *s, stats_symbols *out)
{
	const pd_unresolved_count *t;
	size_t n = pd_session_invalid_chains(s, &t);
	return copy_counts(t, n, &out->invalid, &out->ninvalid);
}

/* The samples the session hands to the DWARF unwinder: those recorded with
 * `--call-graph dwarf` (user registers and a stack copy) that were taken
 * with user registers, i.e. not in a kernel thread.  The denominator of
 * the truncated counts. */
static bool dwarf_unwound(const pd_record *rec)
{
	const uint64_t both = PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER;
	if (!rec || rec->type != PD_RECORD_SAMPLE)
		return false;
	const pd_sample *smp = &rec->u.sample;
	return (smp->sample_type & both) == both && smp->regs_user_abi != 0;
}

static int copy_warnings(const pd_session *s, stats_symbols *out)
{
	size_t n = pd_session_warning_count(s);
	if (n == 0)
		return 0;
	out->warnings = calloc(n, sizeof *out->warnings);
	if (!out->warnings)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *w = pd_session_warning(s, i);
		out->warnings[i] = strdup(w ? w : "");
		if (!out->warnings[i])
			return -1;
		out->nwarnings++;
		out->nunverified += pd_session_warning_kind(s, i) == PD_WARN_UNVERIFIED;
	}
	return 0;
}

int stats_symbols_run(pd_session *s, stats_symbols *out, stats_times *times,
		      pd_error *err)
{
	const pd_resolved_sample *rs;
	int rc;
	while ((rc = pd_session_next(s, &rs, err)) == 0) {
		out->samples++;
		if (rs->nframes > 0 && rs->frames[0].symbol)
			out->resolved++;
		if (dwarf_unwound(rs->record))
			out->unwound++;
		if (times && rs->record)
			stats_times_add(times, rs->record);
	}
	if (rc != PD_ITEROVER) {
		const char *msg = err->message[0] ? err->message
						  : pd_error_code_str(err->code);
		out->error = strdup(msg ? msg : "unknown error");
	}
	if (copy_unresolved(s, out) < 0 || copy_truncated(s, out) < 0 ||
	    copy_invalid(s, out) < 0 || copy_warnings(s, out) < 0)
		return -1;
	return rc == PD_ITEROVER ? 0 : 1;
}
