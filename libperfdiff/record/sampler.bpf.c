// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sampler `perfdiff record` loads: attached to a cpu-clock (or
 * cycles) perf event on every CPU, it takes the interrupted task's kernel
 * and user stacks into a stack-trace map and counts identical (pid, tid,
 * comm, kernel stack, user stack) keys in a hash map, so that user space
 * reads an aggregate instead of one record per sample.  What cannot be
 * counted (the hash map full, a stack id refused) is counted in `lost`
 * by reason, for the report's lost samples.  With `filter` set only the
 * processes in `pids` are sampled; a process forked by one of them joins
 * it (sched_process_fork), so a command is followed with its children.
 * The user stack of a process whose maps user space has not read yet (it
 * was just sampled for the first time, or ran exec) goes to build-id
 * stack maps instead, whose frames are (build-id, file offset): a child
 * that is gone before user space reads its /proc/PID/maps is named from
 * those.  Once the maps are read (user space marks it in `seen`), user
 * frames are plain addresses, 8 bytes instead of 32.  An exec tells user
 * space the path run and where its code is, so that the build-id of a
 * binary no live process maps still finds its file.  A process whose maps were read that maps
 * more code (the dynamic loader's libraries, a dlopen) has them read
 * again, its user stacks meanwhile with build-ids.
 * Built with clang -target bpf against the running kernel's BTF
 * (vmlinux.h, generated at build time); its skeleton is bpftool's.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "record/bpf_shared.h"

#define PROT_EXEC 4
#define MAX_ERRNO 4095

/* errno values, which vmlinux.h does not carry */
#define EFAULT 14
#define EEXIST 17

/* Set by user space before loading (the skeleton's rodata). */
const volatile bool filter = false;
const volatile bool want_kernel = true;
const volatile bool want_user = true;

/* Two stack maps: a stack whose id (a hash bucket) another stack holds
 * in the first goes to the second, so that a collision loses a sample
 * only when both buckets are taken. */
struct stack_map {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PD_BPF_MAX_STACK * sizeof(__u64));
	__uint(max_entries, PD_BPF_STACK_ENTRIES);
};
struct stack_map stacks SEC(".maps");
struct stack_map stacks2 SEC(".maps");

/* The build-id stack maps, two for the same reason. */
struct bid_stack_map {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(map_flags, BPF_F_STACK_BUILD_ID);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PD_BPF_MAX_STACK * sizeof(struct bpf_stack_build_id));
	__uint(max_entries, PD_BPF_BID_ENTRIES);
};
struct bid_stack_map bidstacks SEC(".maps");
struct bid_stack_map bidstacks2 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct pd_bpf_key);
	__type(value, __u64);
	__uint(max_entries, 65536);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 65536);
} pids SEC(".maps");

/* Processes sampled so far (enum pd_bpf_seen), and the ring that tells
 * user space of a new one (or of an exec) at once, so that it reads the
 * maps while the process is there. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 65536);
} seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, PD_BPF_LOST_NR);
} lost SEC(".maps");

static void count_lost(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&lost, &why);

	if (n)
		*n += 1;
}

/* A stack id, or -1 for none: -EFAULT is "this context has no such
 * stack" (a kernel thread's user stack, a user-mode sample's kernel
 * stack), not a loss.  Ids of the second map have PD_BPF_STACK2 set. */
static __s32 stack_id(void *ctx, __u64 flags, bool *failed)
{
	long id = bpf_get_stackid(ctx, &stacks, flags);

	if (id == -EEXIST) {
		id = bpf_get_stackid(ctx, &stacks2, flags);
		if (id >= 0)
			return (__s32)(id | PD_BPF_STACK2);
	}
	if (id >= 0)
		return (__s32)id;
	if (id == -EFAULT)
		return -1;
	count_lost(id == -EEXIST ? PD_BPF_LOST_COLLISION : PD_BPF_LOST_STACK);
	*failed = true;
	return -1;
}

/* The user stack with build-ids while the maps are not read; where
 * neither build-id map can take it (collisions, full), as addresses. */
static __s32 user_stack_id(void *ctx, bool pending, bool *failed)
{
	if (pending) {
		long id = bpf_get_stackid(ctx, &bidstacks, BPF_F_USER_STACK);

		if (id == -EEXIST) {
			id = bpf_get_stackid(ctx, &bidstacks2, BPF_F_USER_STACK);
			if (id >= 0)
				return (__s32)(id | PD_BPF_STACK_BID | PD_BPF_STACK2);
		}
		if (id >= 0)
			return (__s32)(id | PD_BPF_STACK_BID);
		if (id == -EFAULT)
			return -1;
	}
	return stack_id(ctx, BPF_F_USER_STACK, failed);
}

/* Whether `tgid`'s maps are still to be read; a first sight says so on
 * the ring. */
static bool maps_pending(__u32 tgid)
{
	__u8 *st = bpf_map_lookup_elem(&seen, &tgid);

	if (st)
		return *st != PD_BPF_SEEN_READ;
	__u8 pending = PD_BPF_SEEN_PENDING;
	struct pd_bpf_proc_event ev = { .pid = tgid, .what = PD_BPF_EV_NEW };

	if (bpf_map_update_elem(&seen, &tgid, &pending, BPF_NOEXIST) == 0)
		bpf_ringbuf_output(&events, &ev, sizeof ev, 0);
	return true;
}

SEC("perf_event")
int pd_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = (__u32)(id >> 32);
	struct pd_bpf_key key = { .pid = tgid, .tid = (__u32)id };
	bool failed = false;

	if (filter && !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	bool pending = maps_pending(tgid);
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	key.kstack = want_kernel ? stack_id(ctx, 0, &failed) : -1;
	key.ustack = want_user ? user_stack_id(ctx, pending, &failed) : -1;
	if (failed)
		return 0;

	__u64 *n = bpf_map_lookup_elem(&counts, &key);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return 0;
	}
	__u64 one = 1;
	long err = bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* another CPU added the key since the lookup */
		n = bpf_map_lookup_elem(&counts, &key);
		if (n)
			__sync_fetch_and_add(n, 1);
	} else if (err) {
		count_lost(PD_BPF_LOST_FULL);
	}
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(pd_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (filter && ptgid != ctgid && bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* An exec of a followed process: its maps are to be read again (its
 * user stacks meanwhile with build-ids), and the path it ran is told. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(pd_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;

	if (filter && !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	__u8 *st = bpf_map_lookup_elem(&seen, &tgid);
	if (st)
		*st = PD_BPF_SEEN_PENDING;
	struct pd_bpf_exec_event *ev = bpf_ringbuf_reserve(&events, sizeof *ev, 0);
	if (!ev)
		return 0;
	ev->ev.pid = tgid;
	ev->ev.what = PD_BPF_EV_EXEC;
	ev->start_code = p->mm ? p->mm->start_code : 0;
	ev->end_code = p->mm ? p->mm->end_code : 0;
	if (bpf_probe_read_kernel_str(ev->path, sizeof ev->path, bprm->filename) < 0)
		ev->path[0] = '\0';
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

/* The threads in an mmap of code, of a process whose maps were read. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 4096);
} mmaps SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_mmap")
int pd_mmap_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = (__u32)(id >> 32), tid = (__u32)id;

	if (!(ctx->args[2] & PROT_EXEC) || (int)ctx->args[4] < 0)
		return 0;
	__u8 *st = bpf_map_lookup_elem(&seen, &tgid);
	__u8 one = 1;
	if (st && *st == PD_BPF_SEEN_READ)
		bpf_map_update_elem(&mmaps, &tid, &one, BPF_ANY);
	return 0;
}

/* Code mapped by a process whose maps were read: read them again. */
SEC("tracepoint/syscalls/sys_exit_mmap")
int pd_mmap_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = (__u32)(id >> 32), tid = (__u32)id;

	if (!bpf_map_lookup_elem(&mmaps, &tid))
		return 0;
	bpf_map_delete_elem(&mmaps, &tid);
	if (ctx->ret < 0 && ctx->ret >= -MAX_ERRNO)
		return 0;
	__u8 *st = bpf_map_lookup_elem(&seen, &tgid);
	if (!st || *st != PD_BPF_SEEN_READ)
		return 0;
	struct pd_bpf_proc_event ev = { .pid = tgid, .what = PD_BPF_EV_MMAP };
	*st = PD_BPF_SEEN_PENDING;
	bpf_ringbuf_output(&events, &ev, sizeof ev, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
