/*
 * One JSON object per record.  Keys common to all records: offset, size,
 * type, type_id, misc, compressed, time (ns or null), pid/tid (or null),
 * and stream for directory input.  Addresses are hex strings because they
 * do not fit JSON integers that most parsers read as doubles or int64.
 */
#include "dump.h"
#include "json_out.h"

static void sample_fields(json_t *o, const pd_reader *r, const pd_record *rec)
{
	const pd_sample *s = &rec->u.sample;
	uint64_t st = s->sample_type;
	jo_set(o, "event", jo_str(rec_event_name(r, rec)));
	jo_set(o, "attr", json_integer(rec->attr));
	jo_set(o, "cpumode", json_string(rec_cpumode_name(rec->misc)));
	if (st & PD_SAMPLE_CPU)
		jo_set(o, "cpu", json_integer(s->cpu));
	if (st & PD_SAMPLE_IP)
		jo_set(o, "ip", jo_hex(s->ip));
	jo_set(o, "period", jo_u64(s->period));
	if (st & PD_SAMPLE_ADDR)
		jo_set(o, "addr", jo_hex(s->addr));
	if (st & PD_SAMPLE_ID)
		jo_set(o, "id", jo_u64(s->id));
	if (st & PD_SAMPLE_CALLCHAIN)
		jo_set(o, "callchain", jo_u64(s->callchain_nr));
	if (st & PD_SAMPLE_BRANCH_STACK)
		jo_set(o, "branches", jo_u64(s->branch_nr));
	if (st & PD_SAMPLE_RAW)
		jo_set(o, "raw_size", json_integer(s->raw_size));
	if (st & PD_SAMPLE_STACK_USER)
		jo_set(o, "stack_user_size", jo_u64(s->stack_user_dyn_size));
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		jo_set(o, "weight", jo_u64(s->weight));
}

static void mmap_fields(json_t *o, const pd_record *rec)
{
	const pd_mmap *m = &rec->u.mmap;
	jo_set(o, "addr", jo_hex(m->addr));
	jo_set(o, "len", jo_hex(m->len));
	jo_set(o, "pgoff", jo_hex(m->pgoff));
	if (rec->type == PD_RECORD_MMAP2) {
		jo_set(o, "prot", json_integer(m->prot));
		jo_set(o, "flags", json_integer(m->flags));
		if (rec->misc & PD_MISC_MMAP_BUILD_ID) {
			jo_set(o, "build_id",
			       jo_hexbytes(m->build_id, m->build_id_size));
		} else {
			jo_set(o, "maj", json_integer(m->maj));
			jo_set(o, "min", json_integer(m->min));
			jo_set(o, "ino", jo_u64(m->ino));
		}
	}
	jo_set(o, "data", json_boolean(rec->misc & PD_MISC_MMAP_DATA));
	jo_set(o, "filename", jo_str(m->filename));
}

static void body_fields(json_t *o, const pd_reader *r, const pd_record *rec)
{
	switch (rec->type) {
	case PD_RECORD_SAMPLE:
		sample_fields(o, r, rec);
		break;
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		mmap_fields(o, rec);
		break;
	case PD_RECORD_COMM:
		jo_set(o, "comm", jo_str(rec->u.comm.comm));
		jo_set(o, "exec", json_boolean(rec->u.comm.exec));
		break;
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT:
		jo_set(o, "task_pid", json_integer((int32_t)rec->u.task.pid));
		jo_set(o, "ppid", json_integer((int32_t)rec->u.task.ppid));
		jo_set(o, "task_tid", json_integer((int32_t)rec->u.task.tid));
		jo_set(o, "ptid", json_integer((int32_t)rec->u.task.ptid));
		break;
	case PD_RECORD_LOST:
		jo_set(o, "id", jo_u64(rec->u.lost.id));
		jo_set(o, "lost", jo_u64(rec->u.lost.lost));
		break;
	case PD_RECORD_LOST_SAMPLES:
		jo_set(o, "lost", jo_u64(rec->u.lost.lost));
		break;
	case PD_RECORD_THROTTLE:
	case PD_RECORD_UNTHROTTLE:
		jo_set(o, "id", jo_u64(rec->u.throttle.id));
		jo_set(o, "stream_id", jo_u64(rec->u.throttle.stream_id));
		break;
	case PD_RECORD_KSYMBOL:
		jo_set(o, "addr", jo_hex(rec->u.ksymbol.addr));
		jo_set(o, "len", json_integer(rec->u.ksymbol.len));
		jo_set(o, "ksym_type", json_integer(rec->u.ksymbol.ksym_type));
		jo_set(o, "unregister",
		       json_boolean(rec->u.ksymbol.flags & 1));
		jo_set(o, "name", jo_str(rec->u.ksymbol.name));
		break;
	case PD_RECORD_BPF_EVENT:
		jo_set(o, "bpf_type", json_integer(rec->u.bpf_event.type));
		jo_set(o, "id", json_integer(rec->u.bpf_event.id));
		jo_set(o, "tag", jo_hexbytes(rec->u.bpf_event.tag,
					     sizeof rec->u.bpf_event.tag));
		break;
	case PD_RECORD_SWITCH:
	case PD_RECORD_SWITCH_CPU_WIDE:
		jo_set(o, "out", json_boolean(rec->u.sw.out));
		jo_set(o, "preempt", json_boolean(rec->u.sw.preempt));
		if (rec->type == PD_RECORD_SWITCH_CPU_WIDE) {
			jo_set(o, "next_prev_pid",
			       json_integer((int32_t)rec->u.sw.next_prev_pid));
			jo_set(o, "next_prev_tid",
			       json_integer((int32_t)rec->u.sw.next_prev_tid));
		}
		break;
	case PD_RECORD_NAMESPACES:
		jo_set(o, "nr", jo_u64(rec->u.namespaces.nr));
		break;
	case PD_RECORD_CGROUP:
		jo_set(o, "id", jo_u64(rec->u.cgroup.id));
		jo_set(o, "path", jo_str(rec->u.cgroup.path));
		break;
	case PD_RECORD_AUX:
		jo_set(o, "aux_offset", jo_hex(rec->u.aux.aux_offset));
		jo_set(o, "aux_size", jo_u64(rec->u.aux.aux_size));
		jo_set(o, "flags", jo_hex(rec->u.aux.flags));
		break;
	case PD_RECORD_AUXTRACE:
		jo_set(o, "aux_size", jo_u64(rec->u.auxtrace.size));
		jo_set(o, "aux_offset", jo_hex(rec->u.auxtrace.offset));
		jo_set(o, "reference", jo_hex(rec->u.auxtrace.reference));
		jo_set(o, "idx", json_integer(rec->u.auxtrace.idx));
		jo_set(o, "aux_tid", json_integer((int32_t)rec->u.auxtrace.tid));
		jo_set(o, "cpu", json_integer((int32_t)rec->u.auxtrace.cpu));
		break;
	case PD_RECORD_HEADER_FEATURE: {
		uint64_t id = rec->u.feature.feature;
		jo_set(o, "feature", jo_u64(id));
		jo_set(o, "feature_name",
		       jo_str(id <= 0xffff ? pd_feature_name((unsigned)id)
					   : NULL));
		break;
	}
	case PD_RECORD_COMPRESSED:
	case PD_RECORD_COMPRESSED2:
		jo_set(o, "data_size", jo_u64(rec->u.compressed.data_size));
		break;
	default:
		break;
	}
}

json_t *dump_record_json(const pd_reader *r, const pd_record *rec,
			 bool show_stream)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	jo_set(o, "offset", jo_u64(rec->offset));
	jo_set(o, "size", json_integer(rec->size));
	jo_set(o, "type", json_string(rec_type_name(rec->type)));
	jo_set(o, "type_id", json_integer(rec->type));
	jo_set(o, "misc", json_integer(rec->misc));
	jo_set(o, "compressed", json_boolean(rec->from_compressed));
	if (show_stream)
		jo_set(o, "stream", json_integer(rec->stream));
	uint64_t t;
	jo_set(o, "time", rec_time(rec, &t) ? jo_u64(t) : json_null());
	int32_t pid, tid;
	bool has_pid = rec_pid_tid(rec, &pid, &tid);
	jo_set(o, "pid", has_pid ? json_integer(pid) : json_null());
	jo_set(o, "tid", has_pid ? json_integer(tid) : json_null());
	body_fields(o, r, rec);
	return o;
}
