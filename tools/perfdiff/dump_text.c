/*
 * One text line per record:
 *
 *   OFFSET [SIZE] Z [STREAM] TIME PID/TID TYPE key=value ...
 *
 * Z is "z" for a record that came out of a compressed record (its OFFSET is
 * then that record's offset) and "." otherwise; STREAM appears for
 * directory input only.  Strings are escaped so each record stays one line.
 */
#include <inttypes.h>
#include <stdio.h>

#include "dump.h"

static void put_time(pd_writer *w, const pd_record *rec)
{
	uint64_t t;
	if (rec_time(rec, &t))
		pd_writer_printf(w, " %6" PRIu64 ".%09" PRIu64, t / 1000000000u,
			t % 1000000000u);
	else
		pd_writer_printf(w, " %16s", "-");
}

static void put_pid_tid(pd_writer *w, const pd_record *rec)
{
	int32_t pid, tid;
	char buf[32];
	if (rec_pid_tid(rec, &pid, &tid))
		snprintf(buf, sizeof buf, "%" PRId32 "/%" PRId32, pid, tid);
	else
		snprintf(buf, sizeof buf, "-/-");
	pd_writer_printf(w, " %13s", buf);
}

static void put_str(pd_writer *w, const char *key, const char *s)
{
	pd_writer_printf(w, " %s", key);
	pd_writer_text(w, s ? s : "?");
}

static void put_hex(pd_writer *w, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pd_writer_printf(w, "%02x", p[i]);
}

static void sample_fields(pd_writer *w, const pd_reader *r, const pd_record *rec)
{
	const pd_sample *s = &rec->u.sample;
	uint64_t st = s->sample_type;
	put_str(w, "", rec_event_name(r, rec));
	if (st & PD_SAMPLE_CPU)
		pd_writer_printf(w, " cpu=%" PRIu32, s->cpu);
	pd_writer_printf(w, " %s", rec_cpumode_name(rec->misc));
	if (st & PD_SAMPLE_IP)
		pd_writer_printf(w, " ip=0x%" PRIx64, s->ip);
	pd_writer_printf(w, " period=%" PRIu64, s->period);
	if (st & PD_SAMPLE_ADDR)
		pd_writer_printf(w, " addr=0x%" PRIx64, s->addr);
	if (st & PD_SAMPLE_CALLCHAIN)
		pd_writer_printf(w, " callchain=%" PRIu64, s->callchain_nr);
	if (st & PD_SAMPLE_BRANCH_STACK)
		pd_writer_printf(w, " branches=%" PRIu64, s->branch_nr);
	if (st & PD_SAMPLE_RAW)
		pd_writer_printf(w, " raw=%" PRIu32, s->raw_size);
	if (st & PD_SAMPLE_STACK_USER)
		pd_writer_printf(w, " ustack=%" PRIu64, s->stack_user_dyn_size);
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		pd_writer_printf(w, " weight=%" PRIu64, s->weight);
	if (rec->attr < 0)
		cli_puts(w, " unattributed");
}

static void mmap_fields(pd_writer *w, const pd_record *rec)
{
	const pd_mmap *m = &rec->u.mmap;
	pd_writer_printf(w, " 0x%" PRIx64 "-0x%" PRIx64 " pgoff=0x%" PRIx64, m->addr,
		m->addr + m->len, m->pgoff);
	if (rec->type == PD_RECORD_MMAP2) {
		/* perf's /proc/PID/maps style: r-xp */
		pd_writer_printf(w, " %c%c%c%c", m->prot & 1 ? 'r' : '-',
			m->prot & 2 ? 'w' : '-', m->prot & 4 ? 'x' : '-',
			m->flags & 1 ? 's' : 'p');
		if (rec->misc & PD_MISC_MMAP_BUILD_ID) {
			cli_puts(w, " build_id=");
			put_hex(w, m->build_id, m->build_id_size);
		} else {
			pd_writer_printf(w, " dev=%x:%x ino=%" PRIu64, m->maj, m->min,
				m->ino);
		}
	}
	if (rec->misc & PD_MISC_MMAP_DATA)
		cli_puts(w, " data");
	put_str(w, "", m->filename);
}

static void details(pd_writer *w, const pd_reader *r, const pd_record *rec)
{
	switch (rec->type) {
	case PD_RECORD_SAMPLE:
		sample_fields(w, r, rec);
		break;
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		mmap_fields(w, rec);
		break;
	case PD_RECORD_COMM:
		put_str(w, "comm=", rec->u.comm.comm);
		if (rec->u.comm.exec)
			cli_puts(w, " exec");
		break;
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT:
		pd_writer_printf(w, " pid=%" PRId32 " ppid=%" PRId32 " tid=%" PRId32
			   " ptid=%" PRId32,
			(int32_t)rec->u.task.pid, (int32_t)rec->u.task.ppid,
			(int32_t)rec->u.task.tid, (int32_t)rec->u.task.ptid);
		break;
	case PD_RECORD_LOST:
		pd_writer_printf(w, " id=%" PRIu64 " lost=%" PRIu64, rec->u.lost.id,
			rec->u.lost.lost);
		break;
	case PD_RECORD_LOST_SAMPLES:
		pd_writer_printf(w, " lost=%" PRIu64, rec->u.lost.lost);
		break;
	case PD_RECORD_THROTTLE:
	case PD_RECORD_UNTHROTTLE:
		pd_writer_printf(w, " id=%" PRIu64 " stream_id=%" PRIu64,
			rec->u.throttle.id, rec->u.throttle.stream_id);
		break;
	case PD_RECORD_KSYMBOL:
		pd_writer_printf(w, " 0x%" PRIx64 " len=%" PRIu32 " ksym_type=%u%s",
			rec->u.ksymbol.addr, rec->u.ksymbol.len,
			rec->u.ksymbol.ksym_type,
			rec->u.ksymbol.flags & 1 ? " unregister" : "");
		put_str(w, "", rec->u.ksymbol.name);
		break;
	case PD_RECORD_BPF_EVENT:
		pd_writer_printf(w, " %s id=%" PRIu32 " tag=",
			rec->u.bpf_event.type == 1   ? "load"
			: rec->u.bpf_event.type == 2 ? "unload"
						     : "unknown",
			rec->u.bpf_event.id);
		put_hex(w, rec->u.bpf_event.tag, sizeof rec->u.bpf_event.tag);
		break;
	case PD_RECORD_SWITCH:
	case PD_RECORD_SWITCH_CPU_WIDE:
		pd_writer_printf(w, " %s%s", rec->u.sw.out ? "out" : "in",
			rec->u.sw.preempt ? " preempt" : "");
		if (rec->type == PD_RECORD_SWITCH_CPU_WIDE)
			pd_writer_printf(w, " next_prev=%" PRId32 "/%" PRId32,
				(int32_t)rec->u.sw.next_prev_pid,
				(int32_t)rec->u.sw.next_prev_tid);
		break;
	case PD_RECORD_NAMESPACES:
		pd_writer_printf(w, " nr=%" PRIu64, rec->u.namespaces.nr);
		break;
	case PD_RECORD_CGROUP:
		pd_writer_printf(w, " id=%" PRIu64, rec->u.cgroup.id);
		put_str(w, "", rec->u.cgroup.path);
		break;
	case PD_RECORD_AUX:
		pd_writer_printf(w, " offset=0x%" PRIx64 " size=%" PRIu64 " flags=0x%" PRIx64,
			rec->u.aux.aux_offset, rec->u.aux.aux_size,
			rec->u.aux.flags);
		break;
	case PD_RECORD_AUXTRACE:
		pd_writer_printf(w, " size=%" PRIu64 " offset=0x%" PRIx64
			   " ref=0x%" PRIx64 " idx=%" PRIu32 " tid=%" PRId32
			   " cpu=%" PRId32,
			rec->u.auxtrace.size, rec->u.auxtrace.offset,
			rec->u.auxtrace.reference, rec->u.auxtrace.idx,
			(int32_t)rec->u.auxtrace.tid,
			(int32_t)rec->u.auxtrace.cpu);
		break;
	case PD_RECORD_HEADER_FEATURE: {
		uint64_t id = rec->u.feature.feature;
		const char *n = id <= 0xffff ? pd_feature_name((unsigned)id) : NULL;
		if (n)
			pd_writer_printf(w, " %s", n);
		else
			pd_writer_printf(w, " feature=%" PRIu64, id);
		break;
	}
	case PD_RECORD_COMPRESSED:
	case PD_RECORD_COMPRESSED2:
		pd_writer_printf(w, " data_size=%" PRIu64, rec->u.compressed.data_size);
		break;
	default:
		if (!pd_record_type_name(rec->type))
			pd_writer_printf(w, " type=%" PRIu32, rec->type);
		break;
	}
}

void dump_record_text(pd_writer *w, const pd_reader *r, const pd_record *rec,
		      bool show_stream)
{
	char off[24], size[16];
	snprintf(off, sizeof off, "0x%" PRIx64, rec->offset);
	snprintf(size, sizeof size, "0x%" PRIx32, rec->size);
	pd_writer_printf(w, "%10s [%6s] %c", off, size, rec->from_compressed ? 'z' : '.');
	if (show_stream) {
		char label[24];
		rec_stream_label(rec->stream, label, sizeof label);
		pd_writer_printf(w, " %-7s", label);
	}
	put_time(w, rec);
	put_pid_tid(w, rec);
	pd_writer_printf(w, " %s", rec_type_name(rec->type));
	details(w, r, rec);
	cli_putc(w, '\n');
}
