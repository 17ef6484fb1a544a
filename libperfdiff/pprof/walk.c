/*
 * pd_pprof_sample_at(): one Sample of an open pprof (handle.c) as a
 * script prints one: its values, the pid/tid/cpu/comm labels an export
 * writes (sites.c), and its frames leaf first, each Location's Lines
 * expanded innermost first, all but the last inline frames, as
 * import.c reads them.  The frames are pd_frame's (session.h) so that a
 * sample from pprof and one from perf.data are written alike.
 */
#include <stdlib.h>

#include "handle.h"

#define KERNEL_HALF 0xffff800000000000ull

/* A name or NULL for the empty string, which pprof uses for "none". */
static const char *str_or_null(const pp_profile *m, int64_t i)
{
	const char *s = pp_str(m, i);
	return *s ? s : NULL;
}

/* A numeric label's value as a pid, tid or cpu; one out of range is
 * left out. */
static void id_label(const pp_label *l, bool *has, uint32_t *v)
{
	if (l->num < 0 || l->num > UINT32_MAX)
		return;
	*has = true;
	*v = (uint32_t)l->num;
}

static void labels(const pp_profile *m, const pp_sample *s, pd_pprof_sample *out)
{
	for (size_t k = 0; k < s->n_label; k++) {
		const pp_label *l = s->label[k];
		const char *key = pp_str(m, l->key);
		if (strcmp(key, "comm") == 0 && *pp_str(m, l->str))
			out->comm = pp_str(m, l->str);
		else if (strcmp(key, "pid") == 0)
			id_label(l, &out->has_pid, &out->pid);
		else if (strcmp(key, "tid") == 0)
			id_label(l, &out->has_tid, &out->tid);
		else if (strcmp(key, "cpu") == 0)
			id_label(l, &out->has_cpu, &out->cpu);
	}
}

/* The frame both kinds share: address, mapping and its place in it. */
static pd_frame base_frame(const pd_pprof *pp, const pp_location *l)
{
	const pp_mapping *mp = l->mapping_id ? pd_u64map_get(&pp->ix.map, l->mapping_id) : NULL;
	pd_frame f;
	memset(&f, 0, sizeof f);
	f.addr = f.dso_addr = l->address;
	bool kernel = mp && (mp->memory_start >= KERNEL_HALF ||
			     strncmp(pp_str(pp->m, mp->filename), "[kernel", 7) == 0);
	f.cpumode = kernel ? PD_CPUMODE_KERNEL : PD_CPUMODE_USER;
	/* perf prints a user address as its offset in the file */
	if (mp && !kernel && l->address >= mp->memory_start && l->address < mp->memory_limit)
		f.dso_addr = l->address - mp->memory_start + mp->file_offset;
	f.dso = mp ? str_or_null(pp->m, mp->filename) : NULL;
	if (!f.dso)
		f.dso = "[unknown]";
	return f;
}

/* Line `k` of `l` into `f`: name, source file and line. */
static void line_frame(const pd_pprof *pp, const pp_location *l, size_t k, pd_frame *f)
{
	const pp_line *ln = l->line[k];
	const pp_function *fn = pd_u64map_get(&pp->ix.fn, ln->function_id);
	f->symbol = str_or_null(pp->m, fn->name);
	/* an export names an unresolved frame by its address (import.c) */
	if (f->symbol && pp_is_addr_name(f->symbol))
		f->symbol = NULL;
	f->raw_symbol = str_or_null(pp->m, fn->system_name);
	if (!f->symbol && f->raw_symbol && !pp_is_addr_name(f->raw_symbol))
		f->symbol = f->raw_symbol;
	if (!f->raw_symbol || !f->symbol)
		f->raw_symbol = f->symbol;
	f->srcfile = str_or_null(pp->m, fn->filename);
	f->line = ln->line > 0 && ln->line <= UINT32_MAX ? (unsigned)ln->line : 0;
	f->inlined = k + 1 < l->n_line;
}

/* The frames of sample `s` into pp->frames: their number, or -1 without
 * memory. */
static ptrdiff_t sample_frames(pd_pprof *pp, const pp_sample *s)
{
	size_t n = 0;
	for (size_t k = 0; k < s->n_location_id; k++) {
		const pp_location *l = pd_u64map_get(&pp->ix.loc, s->location_id[k]);
		size_t nl = l->n_line ? l->n_line : 1;
		if (pd_grow(&pp->frames, &pp->cap_frames, n + nl, sizeof *pp->frames) < 0)
			return -1;
		pd_frame base = base_frame(pp, l);
		for (size_t i = 0; i < nl; i++) {
			pp->frames[n + i] = base;
			if (l->n_line)
				line_frame(pp, l, i, &pp->frames[n + i]);
		}
		n += nl;
	}
	return (ptrdiff_t)n;
}

const pd_pprof_sample *pd_pprof_sample_at(pd_pprof *pp, size_t i, pd_error *err)
{
	if (!pp || i >= pp->m->n_sample) {
		pd_error_set(err, PD_EINVAL, "pprof", PD_NO_OFFSET, "no such sample");
		return NULL;
	}
	const pp_sample *s = pp->m->sample[i];
	size_t nt = pp->m->n_sample_type;
	if (!pp->values && !(pp->values = calloc(nt ? nt : 1, sizeof *pp->values))) {
		pd_error_set(err, PD_ENOMEM, "pprof", PD_NO_OFFSET, "out of memory");
		return NULL;
	}
	ptrdiff_t nf = sample_frames(pp, s);
	if (nf < 0) {
		pd_error_set(err, PD_ENOMEM, "pprof", PD_NO_OFFSET, "out of memory");
		return NULL;
	}
	pd_pprof_sample *out = &pp->cur;
	memset(out, 0, sizeof *out);
	/* check.c: one value per type, none negative */
	for (size_t k = 0; k < nt; k++)
		pp->values[k] = (uint64_t)s->value[k];
	out->values = pp->values;
	out->nvalues = nt;
	labels(pp->m, s, out);
	out->frames = pp->frames;
	out->nframes = (size_t)nf;
	return out;
}
