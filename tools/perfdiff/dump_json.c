/*
 * One JSON object per record.  Keys common to all records: offset, size,
 * type, type_id, misc, compressed, time (ns or null), pid/tid (or null),
 * and stream for directory input.  Addresses are hex strings because they
 * do not fit JSON integers that most parsers read as doubles or int64.
 * Written with the library's JSON writer (perfdiff/output.h), the one
 * every JSON of perfdiff goes through.
 */
#include "dump.h"

/* Bytes as hex digit pairs, at most 64 of them (a build-id, a tag). */
static void hex_bytes(pd_writer *w, const uint8_t *p, size_t n)
{
	pd_json_hex_bytes(w, p, n > 64 ? 64 : n);
}

static void sample_fields(pd_writer *w, const pd_reader *r, const pd_record *rec)
{
	const pd_sample *s = &rec->u.sample;
	uint64_t st = s->sample_type;
	cli_json_str(w, "event", rec_event_name(r, rec));
	cli_json_i64(w, "attr", rec->attr);
	cli_json_str(w, "cpumode", rec_cpumode_name(rec->misc));
	if (st & PD_SAMPLE_CPU)
		cli_json_i64(w, "cpu", s->cpu);
	if (st & PD_SAMPLE_IP)
		cli_json_hex(w, "ip", s->ip);
	cli_json_u64(w, "period", s->period);
	if (st & PD_SAMPLE_ADDR)
		cli_json_hex(w, "addr", s->addr);
	if (st & PD_SAMPLE_ID)
		cli_json_u64(w, "id", s->id);
	if (st & PD_SAMPLE_CALLCHAIN)
		cli_json_u64(w, "callchain", s->callchain_nr);
	if (st & PD_SAMPLE_BRANCH_STACK)
		cli_json_u64(w, "branches", s->branch_nr);
	if (st & PD_SAMPLE_RAW)
		cli_json_i64(w, "raw_size", s->raw_size);
	if (st & PD_SAMPLE_STACK_USER)
		cli_json_u64(w, "stack_user_size", s->stack_user_dyn_size);
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		cli_json_u64(w, "weight", s->weight);
}

static void mmap_fields(pd_writer *w, const pd_record *rec)
{
	const pd_mmap *m = &rec->u.mmap;
	cli_json_hex(w, "addr", m->addr);
	cli_json_hex(w, "len", m->len);
	cli_json_hex(w, "pgoff", m->pgoff);
	if (rec->type == PD_RECORD_MMAP2) {
		cli_json_i64(w, "prot", m->prot);
		cli_json_i64(w, "flags", m->flags);
		if (rec->misc & PD_MISC_MMAP_BUILD_ID) {
			pd_json_key(w, "build_id");
			hex_bytes(w, m->build_id, m->build_id_size);
		} else {
			cli_json_i64(w, "maj", m->maj);
			cli_json_i64(w, "min", m->min);
			cli_json_u64(w, "ino", m->ino);
		}
	}
	cli_json_bool(w, "data", rec->misc & PD_MISC_MMAP_DATA);
	cli_json_str(w, "filename", m->filename);
}

static void body_fields(pd_writer *w, const pd_reader *r, const pd_record *rec)
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
		cli_json_str(w, "comm", rec->u.comm.comm);
		cli_json_bool(w, "exec", rec->u.comm.exec);
		break;
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT:
		cli_json_i64(w, "task_pid", (int32_t)rec->u.task.pid);
		cli_json_i64(w, "ppid", (int32_t)rec->u.task.ppid);
		cli_json_i64(w, "task_tid", (int32_t)rec->u.task.tid);
		cli_json_i64(w, "ptid", (int32_t)rec->u.task.ptid);
		break;
	case PD_RECORD_LOST:
		cli_json_u64(w, "id", rec->u.lost.id);
		cli_json_u64(w, "lost", rec->u.lost.lost);
		break;
	case PD_RECORD_LOST_SAMPLES:
		cli_json_u64(w, "lost", rec->u.lost.lost);
		break;
	case PD_RECORD_THROTTLE:
	case PD_RECORD_UNTHROTTLE:
		cli_json_u64(w, "id", rec->u.throttle.id);
		cli_json_u64(w, "stream_id", rec->u.throttle.stream_id);
		break;
	case PD_RECORD_KSYMBOL:
		cli_json_hex(w, "addr", rec->u.ksymbol.addr);
		cli_json_i64(w, "len", rec->u.ksymbol.len);
		cli_json_i64(w, "ksym_type", rec->u.ksymbol.ksym_type);
		cli_json_bool(w, "unregister", rec->u.ksymbol.flags & 1);
		cli_json_str(w, "name", rec->u.ksymbol.name);
		break;
	case PD_RECORD_BPF_EVENT:
		cli_json_i64(w, "bpf_type", rec->u.bpf_event.type);
		cli_json_i64(w, "id", rec->u.bpf_event.id);
		pd_json_key(w, "tag");
		hex_bytes(w, rec->u.bpf_event.tag, sizeof rec->u.bpf_event.tag);
		break;
	case PD_RECORD_SWITCH:
	case PD_RECORD_SWITCH_CPU_WIDE:
		cli_json_bool(w, "out", rec->u.sw.out);
		cli_json_bool(w, "preempt", rec->u.sw.preempt);
		if (rec->type == PD_RECORD_SWITCH_CPU_WIDE) {
			cli_json_i64(w, "next_prev_pid", (int32_t)rec->u.sw.next_prev_pid);
			cli_json_i64(w, "next_prev_tid", (int32_t)rec->u.sw.next_prev_tid);
		}
		break;
	case PD_RECORD_NAMESPACES:
		cli_json_u64(w, "nr", rec->u.namespaces.nr);
		break;
	case PD_RECORD_CGROUP:
		cli_json_u64(w, "id", rec->u.cgroup.id);
		cli_json_str(w, "path", rec->u.cgroup.path);
		break;
	case PD_RECORD_AUX:
		cli_json_hex(w, "aux_offset", rec->u.aux.aux_offset);
		cli_json_u64(w, "aux_size", rec->u.aux.aux_size);
		cli_json_hex(w, "flags", rec->u.aux.flags);
		break;
	case PD_RECORD_AUXTRACE:
		cli_json_u64(w, "aux_size", rec->u.auxtrace.size);
		cli_json_hex(w, "aux_offset", rec->u.auxtrace.offset);
		cli_json_hex(w, "reference", rec->u.auxtrace.reference);
		cli_json_i64(w, "idx", rec->u.auxtrace.idx);
		cli_json_i64(w, "aux_tid", (int32_t)rec->u.auxtrace.tid);
		cli_json_i64(w, "cpu", (int32_t)rec->u.auxtrace.cpu);
		break;
	case PD_RECORD_HEADER_FEATURE: {
		uint64_t id = rec->u.feature.feature;
		cli_json_u64(w, "feature", id);
		cli_json_str(w, "feature_name",
		       (id <= 0xffff ? pd_feature_name((unsigned)id)
					   : NULL));
		break;
	}
	case PD_RECORD_COMPRESSED:
	case PD_RECORD_COMPRESSED2:
		cli_json_u64(w, "data_size", rec->u.compressed.data_size);
		break;
	default:
		break;
	}
}

void dump_record_json(pd_writer *w, const pd_reader *r, const pd_record *rec,
		      bool show_stream)
{
	pd_json_begin_object(w);
	cli_json_u64(w, "offset", rec->offset);
	cli_json_i64(w, "size", rec->size);
	cli_json_str(w, "type", rec_type_name(rec->type));
	cli_json_i64(w, "type_id", rec->type);
	cli_json_i64(w, "misc", rec->misc);
	cli_json_bool(w, "compressed", rec->from_compressed);
	if (show_stream)
		cli_json_i64(w, "stream", rec->stream);
	uint64_t t;
	if (rec_time(rec, &t))
		cli_json_u64(w, "time", t);
	else
		cli_json_null(w, "time");
	int32_t pid, tid;
	if (rec_pid_tid(rec, &pid, &tid)) {
		cli_json_i64(w, "pid", pid);
		cli_json_i64(w, "tid", tid);
	} else {
		cli_json_null(w, "pid");
		cli_json_null(w, "tid");
	}
	body_fields(w, r, rec);
	pd_json_end_object(w);
	pd_json_end(w);
}
