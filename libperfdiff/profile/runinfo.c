/*
 * What a run says of where it was recorded, kept so that an export can
 * say it too: perf's header facts (perf version, hostname, kernel
 * release, arch, perf's command line) per run, and per (run, dso) the
 * build-id the recording listed for the dso.  A pprof profile carries
 * both (comments, Mapping.build_id), so a profile that travels still
 * names the machine and the builds it came from.
 *
 * Only the dsos of the run's frames get a build-id: the header lists
 * every dso perf saw (hundreds on a system-wide recording), and the rest
 * would never be asked for.  Strings live in the profile's string table.
 */
#include <stdlib.h>

#include "internal.h"

typedef struct pd_dsobid {
	uint8_t len;
	uint8_t id[20];
} pd_dsobid;

/* What a run without facts answers: every field NULL. */
static const pd_run_info no_info;

bool pd_profile_keep_str(pd_profile *p, const char *s, const char **out)
{
	*out = NULL;
	if (!s)
		return true;
	uint32_t id = pd_strtab_intern(&p->strings, s, strlen(s));
	if (id == PD_NO_ID)
		return false;
	*out = pd_strtab_get(&p->strings, id);
	return true;
}

static int grow_info(pd_profile *p, size_t run)
{
	if (run < p->cap_info)
		return 0;
	size_t cap = p->cap_info ? p->cap_info : 4;
	while (cap <= run)
		cap *= 2;
	pd_run_info *v = realloc(p->run_info, cap * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	memset(v + p->cap_info, 0, (cap - p->cap_info) * sizeof *v);
	p->run_info = v;
	p->cap_info = cap;
	return 0;
}

int pd_profile_keep_run_info(pd_profile *p, size_t run, const pd_run_info *ri)
{
	if (grow_info(p, run) < 0)
		return PD_ENOMEM;
	pd_run_info k;
	if (!pd_profile_keep_str(p, ri->perf_version, &k.perf_version) ||
	    !pd_profile_keep_str(p, ri->hostname, &k.hostname) ||
	    !pd_profile_keep_str(p, ri->osrelease, &k.osrelease) ||
	    !pd_profile_keep_str(p, ri->arch, &k.arch) ||
	    !pd_profile_keep_str(p, ri->cmdline, &k.cmdline))
		return PD_ENOMEM;
	p->run_info[run] = k;
	return 0;
}

const pd_run_info *pd_profile_run_info(const pd_profile *p, size_t run)
{
	if (!p || run >= p->nruns)
		return NULL;
	return run < p->cap_info ? &p->run_info[run] : &no_info;
}

int pd_profile_keep_build_id(pd_profile *p, size_t run, const char *dso, const uint8_t *id,
			     size_t len)
{
	if (len == 0 || len > sizeof p->bids->id || run > UINT32_MAX)
		return PD_EINVAL;
	uint32_t d = pd_strtab_intern(&p->strings, dso, strlen(dso));
	if (d == PD_NO_ID)
		return PD_ENOMEM;
	uint64_t key = (uint64_t)run << 32 | d;
	if (pd_idmap_get(&p->bid_of, key) != PD_NO_ID)
		return 0;
	if (p->nbids == p->cap_bids) {
		uint32_t cap = p->cap_bids ? p->cap_bids * 2 : 64;
		pd_dsobid *v = cap > p->cap_bids ? realloc(p->bids, cap * sizeof *v) : NULL;
		if (!v)
			return PD_ENOMEM;
		p->bids = v;
		p->cap_bids = cap;
	}
	if (pd_idmap_put(&p->bid_of, key, p->nbids) < 0)
		return PD_ENOMEM;
	pd_dsobid *b = &p->bids[p->nbids++];
	b->len = (uint8_t)len;
	memcpy(b->id, id, len);
	return 0;
}

static const pd_dsobid *bid_of(const pd_profile *p, size_t run, uint32_t dso)
{
	uint32_t i = pd_idmap_get(&p->bid_of, (uint64_t)run << 32 | dso);
	return i == PD_NO_ID ? NULL : &p->bids[i];
}

size_t pd_profile_dso_build_id(const pd_profile *p, size_t run, const char *dso,
			       const uint8_t **id)
{
	uint32_t d = p && dso ? pd_strtab_find(&p->strings, dso, strlen(dso)) : PD_NO_ID;
	if (d == PD_NO_ID || (run != SIZE_MAX && run >= p->nruns))
		return 0;
	const pd_dsobid *one = NULL;
	for (size_t r = run == SIZE_MAX ? 0 : run; r < p->nruns; r++) {
		const pd_dsobid *b = bid_of(p, r, d);
		/* two builds at one path: no one build-id stands for both */
		if (b && one && (b->len != one->len || memcmp(b->id, one->id, b->len)))
			return 0;
		one = b ? b : one;
		if (run != SIZE_MAX)
			break;
	}
	if (one && id)
		*id = one->id;
	return one ? one->len : 0;
}

/* perf's arguments as one line, joined by spaces; NULL without them. */
static char *join_cmdline(const pd_header_info *hi, bool *nomem)
{
	if (!hi->cmdline || hi->cmdline_nr == 0)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < hi->cmdline_nr; i++)
		n += strlen(hi->cmdline[i] ? hi->cmdline[i] : "") + 1;
	char *s = malloc(n), *w = s;
	*nomem = !s;
	for (size_t i = 0; s && i < hi->cmdline_nr; i++) {
		const char *a = hi->cmdline[i] ? hi->cmdline[i] : "";
		size_t l = strlen(a);
		memcpy(w, a, l);
		w += l;
		*w++ = i + 1 < hi->cmdline_nr ? ' ' : '\0';
	}
	return s;
}

/* The header's build-id entry for `dso`: the host's (pid -1) first. */
static const pd_build_id *header_bid(const pd_header_info *hi, const char *dso)
{
	const pd_build_id *any = NULL;
	for (size_t i = 0; i < hi->nr_build_ids; i++) {
		const pd_build_id *b = &hi->build_ids[i];
		if (!b->path || strcmp(b->path, dso) != 0 || b->size == 0)
			continue;
		if (b->pid == -1)
			return b;
		any = any ? any : b;
	}
	return any;
}

int pd_profile_keep_header(pd_profile *p, size_t run, const pd_header_info *hi,
			   const char *const *dsos, size_t n)
{
	if (!hi)
		return 0;
	bool nomem = false;
	char *cmd = join_cmdline(hi, &nomem);
	pd_run_info ri = { hi->version, hi->hostname, hi->osrelease, hi->arch, cmd };
	int rc = nomem ? PD_ENOMEM : pd_profile_keep_run_info(p, run, &ri);
	free(cmd);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const pd_build_id *b = header_bid(hi, dsos[i]);
		size_t len = b ? (b->size < sizeof b->id ? b->size : sizeof b->id) : 0;
		if (len)
			rc = pd_profile_keep_build_id(p, run, dsos[i], b->id, len);
	}
	return rc;
}

void pd_profile_runinfo_free(pd_profile *p)
{
	free(p->run_info);
	free(p->bids);
	pd_idmap_free(&p->bid_of);
}
