/*
 * The sampler's life in the kernel: the capabilities it needs checked
 * first (one sentence naming the missing one), the skeleton opened with
 * the options in its read-only data and loaded, one cpu-clock perf event
 * per online CPU at the asked frequency with the program attached, and
 * the drain: each key of the counts map taken out with its count
 * (lookup-and-delete, so a sample counted meanwhile goes to the next
 * drain, not lost), its stacks read from the stack map, and the stack ids
 * used freed afterwards so that the map does not fill over a long run.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include "record/bpf_shared.h"
#include "pd_rec.skel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

/* Which capability is missing, or NULL. */
static const char *missing_cap(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) != 0 || has_cap(d, CAP_SYS_ADMIN))
		return NULL;
	if (!has_cap(d, CAP_BPF))
		return "CAP_BPF";
	if (!has_cap(d, CAP_PERFMON))
		return "CAP_PERFMON";
	return NULL;
}

static int open_event(const pd_recorder_options *o, int cpu)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof a,
		.freq = 1,
		.sample_freq = o->freq,
		.disabled = 1,
	};
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int open_events(struct pd_recorder *r, pd_error *err)
{
	r->ncpus = libbpf_num_possible_cpus();
	if (r->ncpus <= 0)
		return pd_error_reason(err, PD_EIO, "cannot count the CPUs");
	r->fds = malloc(sizeof *r->fds * (size_t)r->ncpus);
	r->links = calloc((size_t)r->ncpus, sizeof *r->links);
	if (!r->fds || !r->links)
		return PD_ENOMEM;
	int opened = 0;
	for (int c = 0; c < r->ncpus; c++) {
		r->fds[c] = open_event(&r->o, c);
		opened += r->fds[c] >= 0;
		if (r->fds[c] < 0 && errno != ENODEV && errno != ENOENT)
			return pd_error_reason(err, errno == EACCES || errno == EPERM ? PD_EPERM
										      : PD_EIO,
					       "perf_event_open cpu-clock on CPU %d: %s", c,
					       strerror(errno));
	}
	return opened ? 0 : pd_error_reason(err, PD_EIO, "no CPU is online");
}

static int load(struct pd_recorder *r, pd_error *err)
{
	r->skel = pd_rec__open();
	if (!r->skel)
		return pd_error_reason(err, PD_EUNSUPPORTED, "the sampler does not open: %s",
				       strerror(errno));
	r->skel->rodata->filter = !r->o.system_wide;
	r->skel->rodata->want_kernel = r->o.stacks != PD_RECORDER_USER_ONLY;
	r->skel->rodata->want_user = r->o.stacks != PD_RECORDER_KERNEL_ONLY;
	if (r->o.system_wide)
		bpf_program__set_autoload(r->skel->progs.pd_fork, false);
	int rc = pd_rec__load(r->skel);
	if (rc)
		return pd_error_reason(err, PD_EUNSUPPORTED,
				       "the kernel refuses the sampler: %s", strerror(-rc));
	r->skel->links.pd_exec = bpf_program__attach(r->skel->progs.pd_exec);
	if (!r->skel->links.pd_exec)
		return pd_error_reason(err, PD_EUNSUPPORTED,
				       "cannot follow execs (sched_process_exec): %s", strerror(errno));
	/* without them a library mapped later is read at a drain */
	r->skel->links.pd_mmap_enter = bpf_program__attach(r->skel->progs.pd_mmap_enter);
	r->skel->links.pd_mmap_exit = bpf_program__attach(r->skel->progs.pd_mmap_exit);
	if (!r->o.system_wide) {
		r->skel->links.pd_fork = bpf_program__attach(r->skel->progs.pd_fork);
		if (!r->skel->links.pd_fork)
			return pd_error_reason(err, PD_EUNSUPPORTED,
					       "cannot follow forks (sched_process_fork): %s",
					       strerror(errno));
	}
	return 0;
}

/* A process sampled for the first time, or one that ran exec: its maps
 * are read now, while it is still there, and the sampler told so (its
 * user stacks are addresses from then on).  A process gone stays with
 * build-id stacks, which is what it needs. */
static int on_event(void *ctx, void *data, size_t size)
{
	struct pd_recorder *r = ctx;
	struct pd_bpf_exec_event ev;

	if (size < sizeof ev.ev)
		return 0;
	memcpy(&ev, data, size < sizeof ev ? size : sizeof ev);
	ev.path[sizeof ev.path - 1] = '\0';
	int rc = ev.ev.what == PD_BPF_EV_NEW    ? rec_proc_seen(r, ev.ev.pid)
		 : ev.ev.what == PD_BPF_EV_MMAP ? rec_proc_more(r, ev.ev.pid)
		 : size >= sizeof ev	       ? rec_proc_exec(r, ev.ev.pid, ev.path, ev.start_code,
								       ev.end_code)
						: rec_proc_exec(r, ev.ev.pid, "", 0, 0);
	if (rc == 1) {
		__u8 read = PD_BPF_SEEN_READ;
		bpf_map__update_elem(r->skel->maps.seen, &ev.ev.pid, sizeof ev.ev.pid, &read,
				     sizeof read, BPF_EXIST);
	}
	return rc < 0 ? rc : 0;
}

static int open_ring(struct pd_recorder *r, pd_error *err)
{
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, r, NULL);
	return r->rb ? 0 : pd_error_reason(err, PD_EUNSUPPORTED, "no ring buffer: %s",
					   strerror(errno));
}

int rec_bpf_wait(struct pd_recorder *r, int ms, pd_error *err)
{
	int n = ms < 0 ? ring_buffer__consume(r->rb) : ring_buffer__poll(r->rb, ms);
	if (n >= 0 || n == -EINTR)
		return 0;
	return pd_error_reason(err, PD_ENOMEM, "out of memory reading a process's maps");
}

int rec_bpf_open(struct pd_recorder *r, pd_error *err)
{
	const char *cap = missing_cap();
	if (cap)
		return pd_error_reason(err, PD_EPERM,
				       "sampling with BPF needs %s (run as root, or with "
				       "CAP_BPF and CAP_PERFMON)", cap);
	int rc = load(r, err);
	if (rc == 0)
		rc = open_ring(r, err);
	return rc < 0 ? rc : open_events(r, err);
}

int rec_bpf_add_pid(struct pd_recorder *r, uint32_t pid, pd_error *err)
{
	__u8 one = 1;
	if (bpf_map__update_elem(r->skel->maps.pids, &pid, sizeof pid, &one, sizeof one,
				 BPF_ANY))
		return pd_error_reason(err, errno == E2BIG ? PD_ELIMIT : PD_EIO,
				       "cannot follow pid %" PRIu32 ": %s", pid, strerror(errno));
	return 0;
}

/* Attach (which enables) or disable the events. */
int rec_bpf_enable(struct pd_recorder *r, bool on, pd_error *err)
{
	for (int c = 0; c < r->ncpus; c++) {
		if (r->fds[c] < 0)
			continue;
		if (!on) {
			ioctl(r->fds[c], PERF_EVENT_IOC_DISABLE, 0);
			continue;
		}
		r->links[c] = bpf_program__attach_perf_event(r->skel->progs.pd_sample, r->fds[c]);
		if (!r->links[c])
			return pd_error_reason(err, PD_EUNSUPPORTED,
					       "cannot attach the sampler on CPU %d: %s", c,
					       strerror(errno));
	}
	return 0;
}

void rec_bpf_close(struct pd_recorder *r)
{
	ring_buffer__free(r->rb);
	for (int c = 0; r->links && c < r->ncpus; c++)
		bpf_link__destroy(r->links[c]);
	for (int c = 0; r->fds && c < r->ncpus; c++)
		if (r->fds[c] >= 0)
			close(r->fds[c]);
	free(r->links);
	free(r->fds);
	pd_rec__destroy(r->skel);
}
