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

struct pd_bpf_key {
	__u32 pid, tid;           /* the process (tgid) and thread */
	__s32 kstack, ustack;     /* ids in the stacks map; -1: none */
	char comm[16];
};

/* What the events ring says of a process. */
struct pd_bpf_proc_event {
	__u32 pid;
	__u32 what;               /* enum pd_bpf_ev */
};

enum pd_bpf_ev {
	PD_BPF_EV_NEW = 0,        /* sampled for the first time */
	PD_BPF_EV_EXEC = 1,       /* a process sampled before ran exec */
};

enum pd_bpf_lost {
	PD_BPF_LOST_FULL = 0,      /* the counts map was full */
	PD_BPF_LOST_COLLISION = 1, /* another stack held the stack id (-EEXIST) */
	PD_BPF_LOST_STACK = 2,     /* any other failure to take a stack */
	PD_BPF_LOST_NR = 3,
};

#endif
