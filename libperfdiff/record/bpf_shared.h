/*
 * What the sampler (sampler.bpf.c) and the user side of the record stage
 * agree on: the key of the counts map, the depth of a stack, the reasons
 * a sample is lost.  Included by both, so only fixed-size types.
 */
#ifndef PD_RECORDER_BPF_SHARED_H
#define PD_RECORDER_BPF_SHARED_H

/* perf's default --max-stack is 127; a stack map value is this many u64 */
#define PD_BPF_MAX_STACK 127
/* entries of each of the two stack maps (1 KB each) */
#define PD_BPF_STACK_ENTRIES 16384
/* set in a stack id of the second stack map */
#define PD_BPF_STACK2 (1 << 30)
/* set in a user stack id of the build-id stack map, whose frames are
 * (build-id, file offset): taken while user space has not read the
 * process's maps yet, so that a process gone before it does is named */
#define PD_BPF_STACK_BID (1 << 29)
/* entries of each of the two build-id stack maps (4 KB each): only
 * stacks of processes whose maps are not read yet go there, between two
 * drains */
#define PD_BPF_BID_ENTRIES 2048
/* the longest executable path an exec event carries */
#define PD_BPF_PATH_MAX 512

struct pd_bpf_key {
	__u32 pid, tid;           /* the process (tgid) and thread */
	__s32 kstack, ustack;     /* ids in the stacks map; -1: none */
	char comm[16];
};

/* What the events ring says of a process.  An exec event is followed
 * by where the binary's code is and the path the process ran
 * (NUL-terminated, at most PD_BPF_PATH_MAX bytes with the NUL). */
struct pd_bpf_proc_event {
	__u32 pid;
	__u32 what;               /* enum pd_bpf_ev */
};

struct pd_bpf_exec_event {
	struct pd_bpf_proc_event ev;
	__u64 start_code, end_code;   /* the new image's text (mm_struct) */
	char path[PD_BPF_PATH_MAX];
};

enum pd_bpf_ev {
	PD_BPF_EV_NEW = 0,        /* sampled for the first time */
	PD_BPF_EV_EXEC = 1,       /* a followed process ran exec */
	PD_BPF_EV_MMAP = 2,       /* a process whose maps were read mapped code */
};

/* The values of the `seen` map: a process whose maps user space has not
 * read (since it was first sampled or since its exec) has its user
 * stacks taken with build-ids; once they are read, as addresses. */
enum pd_bpf_seen {
	PD_BPF_SEEN_PENDING = 1,
	PD_BPF_SEEN_READ = 2,
};

enum pd_bpf_lost {
	PD_BPF_LOST_FULL = 0,      /* the counts map was full */
	PD_BPF_LOST_COLLISION = 1, /* another stack held the stack id (-EEXIST) */
	PD_BPF_LOST_STACK = 2,     /* any other failure to take a stack */
	PD_BPF_LOST_NR = 3,
};

#endif
