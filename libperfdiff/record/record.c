/*
 * The public face of a recording (perfdiff/record.h): options by version,
 * the life of the sampler (new, pids, start, poll, stop, free) over
 * bpf.c and drain.c, its statistics, and what was gathered handed on as
 * perf.data (stream.c), to a FILE or as a run of a profile, so that the
 * profile, its symbolizer and the pprof export do the rest as for perf's
 * own recordings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include <linux/types.h>

#include "record/bpf_shared.h"

static const size_t stats_sizes[] = {
	0,
	PD_OPTIONS_END(pd_recorder_stats, duration_ns),
	PD_OPTIONS_END(pd_recorder_stats, bid_stacks),
};

uint64_t rec_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int check_options(const pd_recorder_options *o, pd_error *err)
{
	if (o->freq < 1 || o->freq > 100000)
		return pd_error_reason(err, PD_EINVAL, "frequency %u Hz: 1 to 100000", o->freq);
	if ((unsigned)o->stacks > PD_RECORDER_USER_ONLY)
		return pd_error_reason(err, PD_EINVAL, "stacks %d: not a pd_recorder_stacks",
				       (int)o->stacks);
	return 0;
}

int pd_recorder_new(pd_recorder **out, const pd_recorder_options *uo, pd_error *err)
{
	pd_recorder_options o = PD_RECORDER_OPTIONS_INIT;

	if (!out)
		return pd_error_reason(err, PD_EINVAL, "pd_recorder_new: no place for the result");
	*out = NULL;
	if (uo && pd_options_import(&o, uo, rec_option_sizes, PD_RECORDER_OPTIONS_VERSION,
				    "pd_recorder_options", "record", err) < 0)
		return PD_EINVAL;
	int rc = check_options(&o, err);
	if (rc < 0)
		return rc;
	pd_recorder *r = calloc(1, sizeof *r);
	if (!r || !(r->stackbuf = calloc(PD_BPF_MAX_STACK, sizeof *r->stackbuf))) {
		free(r);
		return pd_error_reason(err, PD_ENOMEM, "out of memory");
	}
	r->o = o;
	pd_u64map_init(&r->proc_index);
	rc = rec_bpf_open(r, err);
	if (rc == 0 && rec_kernel_read(r) < 0)
		rc = pd_error_reason(err, PD_EIO, "/proc/kallsyms gives no address of _text "
				     "(kernel.kptr_restrict?): kernel frames cannot be named");
	if (rc < 0) {
		pd_recorder_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pd_recorder_add_pid(pd_recorder *r, uint32_t pid, pd_error *err)
{
	return rec_bpf_add_pid(r, pid, err);
}

int pd_recorder_start(pd_recorder *r, pd_error *err)
{
	if (r->started)
		return 0;
	r->t_start = r->t_last = rec_now();
	r->started = true;
	return rec_bpf_enable(r, true, err);
}

int pd_recorder_poll(pd_recorder *r, pd_error *err)
{
	return r->started && !r->stopped ? rec_bpf_drain(r, err) : 0;
}

int pd_recorder_wait(pd_recorder *r, int ms, pd_error *err)
{
	return r->started && !r->stopped ? rec_bpf_wait(r, ms < 0 ? 0 : ms, err) : 0;
}

int pd_recorder_stop(pd_recorder *r, pd_error *err)
{
	if (!r->started || r->stopped)
		return 0;
	rec_bpf_enable(r, false, err);
	int rc = rec_bpf_drain(r, err);
	r->stopped = true;
	r->t_stop = r->t_last;
	return rc;
}

int pd_recorder_stats_get(const pd_recorder *r, pd_recorder_stats *out, unsigned version)
{
	if (!r || !out || version == 0 || version > PD_RECORDER_STATS_VERSION)
		return PD_EINVAL;
	pd_recorder_stats s = {
		.version = version,
		.samples = r->samples,
		.stacks = r->nentries,
		.lost_full = r->klost[PD_BPF_LOST_FULL] + r->lost[PD_BPF_LOST_FULL],
		.lost_collision = r->klost[PD_BPF_LOST_COLLISION] + r->lost[PD_BPF_LOST_COLLISION],
		.lost_stack = r->klost[PD_BPF_LOST_STACK] + r->lost[PD_BPF_LOST_STACK],
		.processes = r->nprocs,
		.duration_ns = !r->started ? 0 : (r->stopped ? r->t_stop : rec_now()) - r->t_start,
		.bid_stacks = r->bid_stacks,
	};
	memcpy(out, &s, stats_sizes[version]);
	return 0;
}

int pd_recorder_write_perf(pd_recorder *r, FILE *f, const char *name, pd_error *err)
{
	return rec_stream_write(r, f, name ? name : "perf.data", err);
}

int pd_recorder_add_to_profile(pd_recorder *r, pd_profile *p, pd_error *err)
{
	int fd = memfd_create("perfdiff-record", MFD_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return pd_error_reason(err, PD_EIO, "cannot make a memory file: %s",
				       strerror(errno));
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	int rc = rec_stream_write(r, f, path, err);
	if (rc == 0)
		rc = pd_profile_add_file(p, path, err);
	fclose(f);
	return rc;
}

void pd_recorder_clear(pd_recorder *r)
{
	for (size_t i = 0; i < r->nentries; i++)
		free(r->entries[i].ips);
	r->nentries = 0;
	r->samples = 0;
	r->bid_stacks = 0;
	for (int i = 0; i < PD_BPF_LOST_NR; i++) {
		r->klost_base[i] += r->klost[i];
		r->klost[i] = 0;
		r->lost[i] = 0;
	}
	r->t_start = r->t_last;
}

void pd_recorder_free(pd_recorder *r)
{
	if (!r)
		return;
	rec_bpf_close(r);
	for (size_t i = 0; i < r->nentries; i++)
		free(r->entries[i].ips);
	free(r->entries);
	rec_procs_free(r);
	free(r->stackbuf);
	free(r);
}
