/*
 * Draining the kernel's aggregate: every key of the counts map is taken
 * out with its count (lookup-and-delete: a sample counted after the read
 * makes a new key for the next drain, so nothing is counted twice or
 * dropped), its stacks are copied out of the stack map, and the stack ids
 * used are freed afterwards so the map does not fill over a long run.  A
 * key whose stack id was freed by the previous drain's clean-up before
 * its own stack was read is a lost sample, counted with the kernel's
 * failures to take a stack.  The first sight of a process reads its maps.
 * A user stack of the build-id map has its (build-id, file offset)
 * frames turned into addresses in the process's synthetic maps
 * (procs.c); frames the kernel could give only as addresses stay so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include <linux/types.h>

#include "record/bpf_shared.h"
#include "pd_rec.skel.h"

/* The stack map of stack id `*id` (>= 0), whose flags are taken off. */
static struct bpf_map *map_of(struct pd_recorder *r, int32_t *id)
{
	bool two = *id & PD_BPF_STACK2, bid = *id & PD_BPF_STACK_BID;

	*id &= ~(PD_BPF_STACK2 | PD_BPF_STACK_BID);
	if (bid)
		return two ? r->skel->maps.bidstacks2 : r->skel->maps.bidstacks;
	return two ? r->skel->maps.stacks2 : r->skel->maps.stacks;
}

/* Build-id stack `id` of `pid` into r->stackbuf as addresses: how many
 * frames, -1 when gone, or PD_ENOMEM. */
static int read_bid_stack(struct pd_recorder *r, uint32_t pid, int32_t id)
{
	struct bpf_stack_build_id f[PD_BPF_MAX_STACK];
	struct bpf_map *m = map_of(r, &id);

	if (bpf_map__lookup_elem(m, &id, sizeof id, f, sizeof f, 0))
		return -1;
	int n = 0;
	for (; n < PD_BPF_MAX_STACK && f[n].status != BPF_STACK_BUILD_ID_EMPTY; n++) {
		uint64_t *ip = &r->stackbuf[n];
		if (f[n].status == BPF_STACK_BUILD_ID_IP) {
			*ip = f[n].ip;
		} else if (f[n].offset >= REC_SYNTH_SLOT) {
			*ip = f[n].offset;     /* no binary is that large: left unnamed */
		} else {
			int rc = rec_proc_synth(r, pid, f[n].build_id, f[n].offset, ip);
			if (rc < 0)
				return rc;
		}
	}
	r->bid_stacks++;
	return n;
}

/* Stack `id`'s frames into r->stackbuf: how many (0: none, -1: gone),
 * or PD_ENOMEM. */
static int read_stack(struct pd_recorder *r, uint32_t pid, int32_t id)
{
	if (id < 0)
		return 0;
	if (id & PD_BPF_STACK_BID)
		return read_bid_stack(r, pid, id);
	struct bpf_map *m = map_of(r, &id);
	if (bpf_map__lookup_elem(m, &id, sizeof id, r->stackbuf,
				 PD_BPF_MAX_STACK * sizeof(uint64_t), 0))
		return -1;
	int n = 0;
	while (n < PD_BPF_MAX_STACK && r->stackbuf[n])
		n++;
	return n;
}

static int add_entry(struct pd_recorder *r, const struct pd_bpf_key *k, uint64_t count,
		     uint64_t now)
{
	uint64_t kern[PD_BPF_MAX_STACK];
	int nk = read_stack(r, k->pid, k->kstack);
	if (nk > 0)
		memcpy(kern, r->stackbuf, (size_t)nk * sizeof *kern);
	int nu = nk < 0 ? -1 : read_stack(r, k->pid, k->ustack);
	if (nu == PD_ENOMEM)
		return PD_ENOMEM;
	if (nk < 0 || nu < 0) {
		r->lost[PD_BPF_LOST_STACK] += count;
		return 0;
	}
	if (pd_grow(&r->entries, &r->entries_cap, r->nentries + 1, sizeof *r->entries) < 0)
		return PD_ENOMEM;
	rec_entry *e = &r->entries[r->nentries];
	*e = (rec_entry){ .pid = k->pid, .tid = k->tid, .nk = (uint32_t)nk, .nu = (uint32_t)nu,
			  .count = count, .t0 = r->t_last, .t1 = now };
	memcpy(e->comm, k->comm, sizeof e->comm);
	e->comm[sizeof e->comm - 1] = '\0';
	e->ips = malloc(((size_t)nk + (size_t)nu + 1) * sizeof *e->ips);
	if (!e->ips)
		return PD_ENOMEM;
	memcpy(e->ips, kern, (size_t)nk * sizeof *kern);
	memcpy(e->ips + nk, r->stackbuf, (size_t)nu * sizeof *e->ips);
	r->nentries++;
	r->samples += count;
	return rec_proc_cover(r, k->pid, e->ips + nk, (size_t)nu, r->drains);
}

/* The kernel's lost counters, summed over CPUs (they only grow). */
static void read_lost(struct pd_recorder *r, uint64_t kernel_lost[PD_BPF_LOST_NR])
{
	uint64_t *v = calloc((size_t)r->ncpus, sizeof *v);
	for (uint32_t i = 0; v && i < PD_BPF_LOST_NR; i++) {
		kernel_lost[i] = 0;
		if (bpf_map__lookup_elem(r->skel->maps.lost, &i, sizeof i, v,
					 (size_t)r->ncpus * sizeof *v, 0) == 0)
			for (int c = 0; c < r->ncpus; c++)
				kernel_lost[i] += v[c];
	}
	free(v);
}

/* Every key now in the map (a snapshot: keys added while we go on wait
 * for the next drain).  *out: malloc'd, `*n` keys. */
static int snapshot_keys(struct pd_recorder *r, struct pd_bpf_key **out, size_t *n)
{
	struct pd_bpf_key *keys = NULL, k;
	size_t cap = 0, m = 0;
	const void *prev = NULL;

	while (bpf_map__get_next_key(r->skel->maps.counts, prev, &k, sizeof k) == 0) {
		if (pd_grow(&keys, &cap, m + 1, sizeof *keys) < 0) {
			free(keys);
			return PD_ENOMEM;
		}
		keys[m++] = k;
		prev = &keys[m - 1];
	}
	*out = keys;
	*n = m;
	return 0;
}

static void free_stack(struct pd_recorder *r, int32_t id)
{
	if (id < 0)
		return;
	struct bpf_map *m = map_of(r, &id);
	bpf_map__delete_elem(m, &id, sizeof id, 0);
}

/* Free the stack ids the drained keys used, but those keys counted
 * since the snapshot use too: their stacks are read at the next drain
 * (a freed id could be taken by another stack meanwhile).  A key made in
 * the moment between that second look and the delete finds its stack
 * gone, a lost sample, rather than a wrong one. */
static int free_stacks(struct pd_recorder *r, const struct pd_bpf_key *keys, size_t n)
{
	struct pd_bpf_key *live;
	size_t nlive;
	pd_u64map keep;

	if (snapshot_keys(r, &live, &nlive) < 0)
		return PD_ENOMEM;
	pd_u64map_init(&keep);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < nlive; i++) {
		if (live[i].kstack >= 0)
			rc = pd_u64map_put(&keep, (uint64_t)live[i].kstack, (void *)1);
		if (rc == 0 && live[i].ustack >= 0)
			rc = pd_u64map_put(&keep, (uint64_t)live[i].ustack, (void *)1);
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (keys[i].kstack >= 0 && !pd_u64map_get(&keep, (uint64_t)keys[i].kstack))
			free_stack(r, keys[i].kstack);
		if (keys[i].ustack >= 0 && !pd_u64map_get(&keep, (uint64_t)keys[i].ustack))
			free_stack(r, keys[i].ustack);
	}
	pd_u64map_free(&keep);
	free(live);
	return rc;
}

int rec_bpf_drain(struct pd_recorder *r, pd_error *err)
{
	struct pd_bpf_key *keys;
	size_t n;
	uint64_t now = rec_now(), klost[PD_BPF_LOST_NR];

	if (rec_bpf_wait(r, -1, err) < 0)
		return PD_ENOMEM;
	r->drains++;
	if (snapshot_keys(r, &keys, &n) < 0)
		return pd_error_reason(err, PD_ENOMEM, "out of memory draining the samples");
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		uint64_t count;
		if (bpf_map__lookup_and_delete_elem(r->skel->maps.counts, &keys[i], sizeof keys[i],
						    &count, sizeof count, 0) == 0)
			rc = add_entry(r, &keys[i], count, now);
	}
	if (rc == 0)
		rc = free_stacks(r, keys, n);
	free(keys);
	read_lost(r, klost);
	for (int i = 0; i < PD_BPF_LOST_NR; i++)
		r->klost[i] = klost[i] - r->klost_base[i];
	r->t_last = now;
	return rc < 0 ? pd_error_reason(err, rc, "out of memory draining the samples") : 0;
}
