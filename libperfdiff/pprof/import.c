/*
 * A checked Profile as one more run of a profile (profile/builder.h).
 * Each Location becomes its frames once (its Lines innermost first, all
 * but the last inline frames), each Sample the concatenation of its
 * locations' frames with its command and time block, once per event.
 *
 * What pprof does not say is filled with defaults (docs/pprof.md): a
 * location without lines is an unresolved frame named by its address; a
 * mapping is kernel code when it lies in the kernel's half of the address
 * space or is named "[kernel..."; a sample without a "comm" label has the
 * main binary's file name as its command; one without a "block" label
 * is in block 0.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define KERNEL_HALF 0xffff800000000000ull

typedef struct imp {
	pd_pbuild *b;
	const pp_profile *m;
	const pp_index *ix;
	const char *name;
	pd_error *err;
	pd_u64map loc_at;          /* location id → 1 + index into `at` */
	uint32_t *frames;          /* every location's frames, innermost first */
	size_t *at;                /* location i: frames[at[i] .. at[i + 1]) */
	uint32_t *stack;           /* one sample's frames, scratch */
	const char *comm0;         /* the default command */
	int ev[PP_MAX_TYPES];
	pp_event events[PP_MAX_TYPES];
	size_t nev;
} imp;

static bool kernel_map(const pp_profile *m, const pp_mapping *mp)
{
	return mp && (mp->memory_start >= KERNEL_HALF ||
		      strncmp(pp_str(m, mp->filename), "[kernel", 7) == 0);
}

static const char *dso_of(const pp_profile *m, const pp_mapping *mp)
{
	const char *d = mp ? pp_str(m, mp->filename) : "";
	return *d ? d : "[unknown]";
}

/* The frame of line `k` of location `l`. */
static int line_frame(imp *im, const pp_location *l, size_t k, uint32_t *id)
{
	const pp_mapping *mp = l->mapping_id ? pd_u64map_get(&im->ix->map, l->mapping_id) : NULL;
	const pp_function *f = pd_u64map_get(&im->ix->fn, l->line[k]->function_id);
	const char *sym = pp_str(im->m, f->name);
	if (!*sym)
		sym = pp_str(im->m, f->system_name);
	unsigned flags = kernel_map(im->m, mp) ? PD_PBUILD_KERNEL : 0;
	flags |= k + 1 < l->n_line ? PD_PBUILD_INLINED : 0;
	char addr[PP_ADDR_NAME_LEN + 1];
	if (!*sym) {
		snprintf(addr, sizeof addr, "0x%016" PRIx64, l->address);
		sym = addr;
	}
	if (sym == addr || pp_is_addr_name(sym))
		flags |= PD_PBUILD_UNRESOLVED;
	return pd_pbuild_frame(im->b, sym, dso_of(im->m, mp), pp_str(im->m, f->filename), flags,
			       id);
}

/* An unsymbolized location: one unresolved frame named by its address. */
static int addr_frame(imp *im, const pp_location *l, uint32_t *id)
{
	const pp_mapping *mp = l->mapping_id ? pd_u64map_get(&im->ix->map, l->mapping_id) : NULL;
	char addr[PP_ADDR_NAME_LEN + 1];
	snprintf(addr, sizeof addr, "0x%016" PRIx64, l->address);
	unsigned flags = PD_PBUILD_UNRESOLVED | (kernel_map(im->m, mp) ? PD_PBUILD_KERNEL : 0);
	return pd_pbuild_frame(im->b, addr, dso_of(im->m, mp), NULL, flags, id);
}

static int location_frames(imp *im)
{
	const pp_profile *m = im->m;
	size_t total = 0;
	for (size_t i = 0; i < m->n_location; i++)
		total += m->location[i]->n_line ? m->location[i]->n_line : 1;
	im->frames = malloc((total ? total : 1) * sizeof *im->frames);
	im->at = malloc((m->n_location + 1) * sizeof *im->at);
	if (!im->frames || !im->at)
		return PD_ENOMEM;
	size_t w = 0;
	for (size_t i = 0; i < m->n_location; i++) {
		const pp_location *l = m->location[i];
		im->at[i] = w;
		int rc = 0;
		for (size_t k = 0; k < l->n_line && rc == 0; k++)
			rc = line_frame(im, l, k, &im->frames[w++]);
		if (l->n_line == 0)
			rc = addr_frame(im, l, &im->frames[w++]);
		if (rc == 0)
			rc = pd_u64map_put(&im->loc_at, l->id, (void *)(uintptr_t)(i + 1));
		if (rc < 0)
			return rc;
	}
	im->at[m->n_location] = w;
	return 0;
}

/* Sample `s`'s frames, leaf first, into im->stack: their number. */
static size_t sample_frames(imp *im, const pp_sample *s)
{
	size_t n = 0;
	for (size_t k = 0; k < s->n_location_id; k++) {
		size_t i = (uintptr_t)pd_u64map_get(&im->loc_at, s->location_id[k]) - 1;
		for (size_t j = im->at[i]; j < im->at[i + 1]; j++)
			im->stack[n++] = im->frames[j];
	}
	return n;
}

/* The command and block labels of `s` (blocks checked by check.c). */
static void labels(imp *im, const pp_sample *s, const char **comm, uint32_t *block)
{
	*comm = im->comm0;
	*block = 0;
	for (size_t k = 0; k < s->n_label; k++) {
		const pp_label *l = s->label[k];
		const char *key = pp_str(im->m, l->key);
		if (strcmp(key, "comm") == 0 && *pp_str(im->m, l->str))
			*comm = pp_str(im->m, l->str);
		if (strcmp(key, "block") == 0)
			*block = (uint32_t)l->num;
	}
}

static int add_sample(imp *im, const pp_sample *s, uint64_t *nsamples)
{
	const char *comm;
	uint32_t block;
	labels(im, s, &comm, &block);
	int rc = 0;
	size_t n = sample_frames(im, s);
	for (size_t e = 0; e < im->nev && rc == 0 && n; e++) {
		const pp_event *pe = &im->events[e];
		uint64_t period = (uint64_t)s->value[pe->period_at];
		uint64_t count = pe->samples_at >= 0 ? (uint64_t)s->value[pe->samples_at]
						     : period != 0;
		if (im->ev[e] < 0 || (count == 0 && period == 0))
			continue;
		*nsamples += count;
		rc = pd_pbuild_stack(im->b, im->ev[e], im->stack, n, comm, block, count, period);
	}
	return rc;
}

/* The default command: the main binary's file name (the first mapping's). */
static const char *default_comm(const pp_profile *m)
{
	const char *f = m->n_mapping ? pp_str(m, m->mapping[0]->filename) : "";
	const char *slash = strrchr(f, '/');
	f = slash ? slash + 1 : f;
	return *f ? f : "[unknown]";
}

/* `hex` as bytes into id[20]: their number, 0 when it is no build-id
 * (odd length, not hex, longer than 20 bytes: Go writes its own kind). */
static size_t unhex(const char *hex, uint8_t *id)
{
	size_t n = strlen(hex);
	if (n == 0 || n % 2 || n > 40 || strspn(hex, "0123456789abcdefABCDEF") != n)
		return 0;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		id[i] = (uint8_t)v;
	}
	return n / 2;
}

/* Each mapping's build-id, for pd_profile_dso_build_id(). */
static int build_ids(imp *im)
{
	int rc = 0;
	for (size_t i = 0; i < im->m->n_mapping && rc == 0; i++) {
		const pp_mapping *mp = im->m->mapping[i];
		uint8_t id[20];
		size_t n = unhex(pp_str(im->m, mp->build_id), id);
		if (n)
			rc = pd_pbuild_build_id(im->b, dso_of(im->m, mp), id, n);
	}
	return rc;
}

static int setup(imp *im)
{
	int rc = pp_events(im->m, im->events, &im->nev, im->name, im->err);
	if (rc == 0)
		rc = build_ids(im);
	for (size_t e = 0; e < im->nev && rc == 0; e++)
		rc = pd_pbuild_event(im->b, im->events[e].type, im->events[e].config,
				     im->events[e].pmu, im->events[e].name, &im->ev[e]);
	if (rc == 0)
		rc = location_frames(im);
	size_t depth = (size_t)PP_MAX_DEPTH * PP_MAX_LINES;
	if (rc == 0 && !(im->stack = malloc(depth * sizeof *im->stack)))
		rc = PD_ENOMEM;
	return rc;
}

static int run_samples(imp *im, uint64_t *nsamples)
{
	int rc = 0;
	for (size_t i = 0; i < im->m->n_sample && rc == 0; i++)
		rc = add_sample(im, im->m->sample[i], nsamples);
	return rc;
}

int pp_import(pd_profile *p, const pp_profile *m, const pp_index *ix, const char *name,
	      pd_error *err)
{
	imp im;
	memset(&im, 0, sizeof im);
	im = (imp){ .m = m, .ix = ix, .name = name, .err = err, .comm0 = default_comm(m) };
	pd_u64map_init(&im.loc_at);
	int rc = pd_pbuild_begin(&im.b, p, name, err);
	if (rc < 0)
		return rc;
	uint64_t nsamples = 0;
	pd_error e2;
	memset(&e2, 0, sizeof e2);
	im.err = &e2;
	if ((rc = setup(&im)) == 0)
		rc = run_samples(&im, &nsamples);
	pp_runinfo ri;
	pp_runinfo_read(m, &ri);
	if (!ri.from_perfdiff)
		ri.run.read = nsamples;
	if (rc < 0) {
		pd_pbuild_abort(im.b);
		if (!e2.message[0])
			pd_error_set(&e2, rc, name, PD_NO_OFFSET, "%s while importing",
				     rc == PD_ELIMIT ? "too many nodes" : "out of memory");
		if (err)
			*err = e2;
	} else {
		rc = pd_pbuild_finish(im.b, &ri.run, err);
	}
	pd_u64map_free(&im.loc_at);
	free(im.frames);
	free(im.at);
	free(im.stack);
	return rc;
}
