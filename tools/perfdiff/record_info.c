#include <stdio.h>

#include "dump.h"

const char *rec_type_name(uint32_t type)
{
	const char *n = pd_record_type_name(type);
	return n ? n : "UNKNOWN";
}

bool rec_time(const pd_record *rec, uint64_t *t)
{
	if (rec->type == PD_RECORD_SAMPLE &&
	    (rec->u.sample.sample_type & PD_SAMPLE_TIME)) {
		*t = rec->u.sample.time;
		return true;
	}
	if (rec->sid.present & PD_SAMPLE_TIME) {
		*t = rec->sid.time;
		return true;
	}
	switch (rec->type) {
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT:
		*t = rec->u.task.time;
		return true;
	case PD_RECORD_THROTTLE:
	case PD_RECORD_UNTHROTTLE:
		*t = rec->u.throttle.time;
		return true;
	default:
		return false;
	}
}

bool rec_pid_tid(const pd_record *rec, int32_t *pid, int32_t *tid)
{
	/* The body's pid/tid first: synthesized records (kernel maps, the
	 * initial COMMs) carry a zero sample_id_all trailer, and perf -D
	 * shows the body's values too.  perf writes -1 as u32; it is shown
	 * signed, as perf does. */
	if (rec->type == PD_RECORD_SAMPLE &&
	    (rec->u.sample.sample_type & PD_SAMPLE_TID)) {
		*pid = (int32_t)rec->u.sample.pid;
		*tid = (int32_t)rec->u.sample.tid;
		return true;
	}
	switch (rec->type) {
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		*pid = (int32_t)rec->u.mmap.pid;
		*tid = (int32_t)rec->u.mmap.tid;
		return true;
	case PD_RECORD_COMM:
		*pid = (int32_t)rec->u.comm.pid;
		*tid = (int32_t)rec->u.comm.tid;
		return true;
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT:
		*pid = (int32_t)rec->u.task.pid;
		*tid = (int32_t)rec->u.task.tid;
		return true;
	case PD_RECORD_NAMESPACES:
		*pid = (int32_t)rec->u.namespaces.pid;
		*tid = (int32_t)rec->u.namespaces.tid;
		return true;
	case PD_RECORD_ITRACE_START:
		*pid = (int32_t)rec->u.itrace_start.pid;
		*tid = (int32_t)rec->u.itrace_start.tid;
		return true;
	default:
		break;
	}
	if (rec->sid.present & PD_SAMPLE_TID) {
		*pid = (int32_t)rec->sid.pid;
		*tid = (int32_t)rec->sid.tid;
		return true;
	}
	return false;
}

const char *rec_cpumode_name(uint16_t misc)
{
	switch (misc & PD_MISC_CPUMODE_MASK) {
	case PD_CPUMODE_KERNEL:
		return "kernel";
	case PD_CPUMODE_USER:
		return "user";
	case PD_CPUMODE_HYPERVISOR:
		return "hv";
	case PD_CPUMODE_GUEST_KERNEL:
		return "guest-kernel";
	case PD_CPUMODE_GUEST_USER:
		return "guest-user";
	default:
		return "unknown";
	}
}

const char *rec_event_name(const pd_reader *r, const pd_record *rec)
{
	if (rec->attr < 0)
		return NULL;
	const pd_attr *a = pd_reader_attr(r, (size_t)rec->attr);
	return a ? a->name : NULL;
}

void rec_stream_label(uint32_t stream, char *buf, size_t n)
{
	if (stream == 0)
		snprintf(buf, n, "data");
	else
		snprintf(buf, n, "data.%u", stream - 1);
}
