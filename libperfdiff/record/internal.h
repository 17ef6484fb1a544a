/*
 * The record stage's parts: the sampler in the kernel (bpf.c, with
 * sampler.bpf.c and its generated skeleton), the processes' maps and
 * build-ids read from /proc (procs.c), the aggregate drained from the
 * kernel (the entries below), and the perf.data stream it is written as
 * (stream.c).  record.c is the public API over them.
 */
#ifndef PD_RECORDER_INTERNAL_H
#define PD_RECORDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/record.h"
#include "util/u64map.h"
#include "util/util.h"

/* One drained key: `count` samples of one (pid, tid, comm, stacks)
 * between drain times t0 and t1; ips[0..nk) the kernel stack, leaf
 * first, then ips[nk..nk+nu) the user stack. */
typedef struct rec_entry {
	uint32_t pid, tid;
	char comm[16];
	uint32_t nk, nu;
	uint64_t count;
	uint64_t t0, t1;
	uint64_t *ips;
} rec_entry;

/* An executable map of a process, as /proc/PID/maps listed it, or a
 * synthetic one: a binary the process's build-id stacks named, placed
 * (pgoff 0) where no real map can be, so that its frames' addresses are
 * start + file offset. */
typedef struct rec_map {
	uint64_t start, end, pgoff;
	char *path;
	bool synth;
} rec_map;

/* Synthetic maps start above every user address (2^60), one 4 GB slot
 * each. */
#define REC_SYNTH_BASE (1ull << 60)
#define REC_SYNTH_SLOT (1ull << 32)

typedef struct rec_proc {
	uint32_t pid;
	uint64_t gen;              /* the drain that last read the maps again */
	rec_map *maps;
	size_t nmaps, cap;
	uint32_t nsynth;           /* synthetic maps so far */
} rec_proc;

/* A binary's build-id, read once per path. */
typedef struct rec_buildid {
	char *path;
	uint8_t id[20];
	uint8_t len;       /* 0: none found */
} rec_buildid;

struct pd_rec;   /* the skeleton */
struct ring_buffer;

struct pd_recorder {
	pd_recorder_options o;
	struct pd_rec *skel;
	int *fds;                  /* one perf event per CPU, -1 where offline */
	struct bpf_link **links;
	struct ring_buffer *rb;    /* new processes and execs */
	int ncpus;
	bool started, stopped;
	uint64_t t_start, t_last, t_stop;   /* CLOCK_MONOTONIC ns; t_start: since the clear */
	rec_entry *entries;
	size_t nentries, entries_cap;
	rec_proc *procs;
	size_t nprocs, procs_cap;
	pd_u64map proc_index;      /* pid -> index + 1 in procs */
	rec_buildid *ids;
	size_t nids, ids_cap;
	uint64_t ktext;            /* the kernel's _text */
	uint8_t kbuildid[20];
	uint8_t kbuildid_len;
	uint64_t samples;
	uint64_t bid_stacks;       /* drained keys whose user stack had build-ids */
	uint64_t drains;           /* drains so far: rec_proc_cover()'s generation */
	uint64_t lost[3];          /* lost in user space, by enum pd_bpf_lost */
	uint64_t klost[3];         /* lost in the kernel since pd_recorder_clear() */
	uint64_t klost_base[3];    /* the kernel's running totals at the clear */
	uint64_t *stackbuf;        /* PD_BPF_MAX_STACK u64 */
};

uint64_t rec_now(void);

/* How far each version of pd_recorder_options went (options.c). */
extern const size_t rec_option_sizes[2];

/* bpf.c */
int rec_bpf_open(struct pd_recorder *r, pd_error *err);
int rec_bpf_add_pid(struct pd_recorder *r, uint32_t pid, pd_error *err);
int rec_bpf_enable(struct pd_recorder *r, bool on, pd_error *err);
int rec_bpf_drain(struct pd_recorder *r, pd_error *err);
/* Wait up to `ms` (-1: do not wait) for new processes and execs. */
int rec_bpf_wait(struct pd_recorder *r, int ms, pd_error *err);
void rec_bpf_close(struct pd_recorder *r);

/* procs.c.  rec_proc_seen() and rec_proc_exec() give 1 when the maps
 * were read (or had been), 0 when the process is gone, or PD_ENOMEM. */
int rec_proc_seen(struct pd_recorder *r, uint32_t pid);
int rec_proc_exec(struct pd_recorder *r, uint32_t pid, const char *path, uint64_t start_code,
		  uint64_t end_code);
/* The maps `pid` has mapped since they were read added (a library). */
int rec_proc_more(struct pd_recorder *r, uint32_t pid);
/* A build-id stack's frame of `pid`: its address in `pid`'s synthetic
 * map of the binary with build-id `id` (20 bytes, zero-padded). */
int rec_proc_synth(struct pd_recorder *r, uint32_t pid, const uint8_t id[20], uint64_t offset,
		   uint64_t *addr);
int rec_proc_cover(struct pd_recorder *r, uint32_t pid, const uint64_t *ips, size_t n,
		   uint64_t gen);
int rec_kernel_read(struct pd_recorder *r);
const rec_buildid *rec_buildid_of(struct pd_recorder *r, const char *path);
void rec_procs_free(struct pd_recorder *r);

/* stream.c */
int rec_stream_write(struct pd_recorder *r, FILE *f, const char *name, pd_error *err);

#endif
