/*
 * pd_session: the reader, the address-space model and the symbolizer put
 * together.  Side-band records update the model; each sample's call chain
 * is walked leaf first, every address placed in its map and named, inline
 * frames expanded.
 */
#include "perfdiff/session.h"

#include <stdio.h>
#include <stdlib.h>

#include "../session/machine.h"
#include "symbolizer.h"

#define PD_DEFAULT_MAX_STACK 127

struct pd_session {
	pd_reader *reader;
	pd_machine *machine;
	pd_symbolizer *symz;
	pd_session_options opts;
	uint8_t kernel_build_id[20];
	size_t kernel_build_id_size;
	pd_resolved_sample out;
	pd_frame *frames;
	size_t cap_frames;
	char comm[32];
	pd_unresolved_count *unresolved;
	size_t nunresolved, cap_unresolved;
};

void pd_session_options_init(pd_session_options *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->version = PD_SESSION_OPTIONS_VERSION;
	pd_reader_options_init(&opts->reader);
	opts->max_stack = PD_DEFAULT_MAX_STACK;
}

static void find_kernel_build_id(pd_session *s)
{
	const pd_header_info *h = pd_reader_header(s->reader);
	for (size_t i = 0; i < h->nr_build_ids; i++) {
		const pd_build_id *b = &h->build_ids[i];
		if (b->path && strcmp(b->path, "[kernel.kallsyms]") == 0) {
			s->kernel_build_id_size = b->size <= 20 ? b->size : 20;
			memcpy(s->kernel_build_id, b->id, s->kernel_build_id_size);
			return;
		}
	}
}

int pd_session_open(pd_session **out, const char *path, const pd_session_options *opts,
		    pd_error *err)
{
	if (!out || !path)
		return pd_error_set(err, PD_EINVAL, path ? path : "<null>", PD_NO_OFFSET,
				    "no output pointer or path given");
	if (opts && opts->version != PD_SESSION_OPTIONS_VERSION)
		return pd_error_set(err, PD_EINVAL, path, PD_NO_OFFSET,
				    "pd_session_options version %u, this library knows %u",
				    opts->version, PD_SESSION_OPTIONS_VERSION);
	pd_session *s = calloc(1, sizeof *s);
	if (!s)
		return pd_error_set(err, PD_ENOMEM, path, PD_NO_OFFSET, "out of memory");
	if (opts)
		s->opts = *opts;
	else
		pd_session_options_init(&s->opts);
	if (s->opts.max_stack == 0)
		s->opts.max_stack = PD_DEFAULT_MAX_STACK;
	int rc = pd_reader_open(&s->reader, path, &s->opts.reader, err);
	if (rc < 0)
		goto fail;
	rc = pd_machine_new(&s->machine, pd_reader_header(s->reader));
	if (rc < 0) {
		pd_error_set(err, rc, path, PD_NO_OFFSET, "out of memory");
		goto fail;
	}
	pd_symbolizer_config cfg = {
		.symfs = s->opts.symfs,
		.buildid_dir = s->opts.buildid_dir,
		.kallsyms = s->opts.kallsyms,
		.jit_dir = s->opts.jit_dir,
		.inline_frames = !(s->opts.flags & PD_SESSION_NO_INLINE),
		.srcline = (s->opts.flags & PD_SESSION_SRCLINE) != 0,
		.demangle = !(s->opts.flags & PD_SESSION_NO_DEMANGLE),
		.demangle_no_params = (s->opts.flags & PD_SESSION_PERF_COMPAT) != 0,
		.kernel_padding_names = (s->opts.flags & PD_SESSION_PERF_COMPAT) != 0,
		.vmlinux = s->opts.vmlinux,
	};
	rc = pd_symbolizer_new(&s->symz, &cfg, err);
	if (rc < 0)
		goto fail;
	find_kernel_build_id(s);
	*out = s;
	return 0;
fail:
	pd_session_free(s);
	return rc;
}

void pd_session_free(pd_session *s)
{
	if (!s)
		return;
	pd_symbolizer_free(s->symz);
	pd_machine_free(s->machine);
	pd_reader_free(s->reader);
	free(s->frames);
	free(s->unresolved);
	free(s);
}

const pd_reader *pd_session_reader(const pd_session *s)
{
	return s->reader;
}

size_t pd_session_warning_count(const pd_session *s)
{
	return pd_symbolizer_warning_count(s->symz);
}

const char *pd_session_warning(const pd_session *s, size_t i)
{
	return pd_symbolizer_warning(s->symz, i);
}

size_t pd_session_unresolved(const pd_session *s, const pd_unresolved_count **out)
{
	*out = s->unresolved;
	return s->nunresolved;
}

static void count_unresolved(pd_session *s, const char *dso)
{
	for (size_t i = 0; i < s->nunresolved; i++)
		if (s->unresolved[i].dso == dso || strcmp(s->unresolved[i].dso, dso) == 0) {
			s->unresolved[i].samples++;
			return;
		}
	if (s->nunresolved == s->cap_unresolved) {
		size_t cap = s->cap_unresolved ? s->cap_unresolved * 2 : 16;
		pd_unresolved_count *u = realloc(s->unresolved, cap * sizeof *u);
		if (!u)
			return; /* a statistic, not worth failing the read for */
		s->unresolved = u;
		s->cap_unresolved = cap;
	}
	s->unresolved[s->nunresolved++] = (pd_unresolved_count){ dso, 1 };
}

static pd_frame *new_frame(pd_session *s)
{
	if (s->out.nframes == s->cap_frames) {
		size_t cap = s->cap_frames ? s->cap_frames * 2 : 64;
		pd_frame *f = realloc(s->frames, cap * sizeof *f);
		if (!f)
			return NULL;
		s->frames = f;
		s->cap_frames = cap;
	}
	pd_frame *f = &s->frames[s->out.nframes++];
	memset(f, 0, sizeof *f);
	return f;
}

static bool is_kernel_mode(uint8_t cpumode)
{
	return cpumode == PD_CPUMODE_KERNEL || cpumode == PD_CPUMODE_GUEST_KERNEL ||
	       cpumode == PD_CPUMODE_HYPERVISOR;
}

static bool is_jit_dso(const char *name)
{
	return strncmp(name, "//anon", 6) == 0 || strncmp(name, "[anon", 5) == 0 ||
	       strncmp(name, "/memfd:", 7) == 0 || strncmp(name, "/tmp/perf-", 10) == 0;
}

/*
 * Name `addr` and append its frames (inline ones first).  `caller` marks a
 * return address, looked up one byte earlier unless perf-compatible.
 */
static int add_address(pd_session *s, uint32_t pid, uint8_t cpumode, uint64_t addr,
		       bool caller)
{
	uint64_t look = addr;
	if (caller && !(s->opts.flags & PD_SESSION_PERF_COMPAT) && addr > 0)
		look = addr - 1;
	const pd_symres *res = NULL;
	const char *dso = "[unknown]";
	const pd_map *map = pd_machine_find_map(s->machine, pid, cpumode, look);
	const pd_map *kmap = pd_machine_kernel_map(s->machine);
	bool kernel = map ? map->dso->kernel : is_kernel_mode(cpumode);
	uint8_t mode = kernel ? PD_CPUMODE_KERNEL : PD_CPUMODE_USER;
	uint64_t dso_addr = map && !kernel ? addr - map->start + map->pgoff : addr;
	if (kernel) {
		const pd_ksym *ks = pd_machine_find_ksym(s->machine, look);
		if (ks) {
			pd_frame *f = new_frame(s);
			if (!f)
				return PD_ENOMEM;
			f->addr = addr;
			f->cpumode = mode;
			f->symbol = f->raw_symbol = ks->name;
			f->symbol_offset = addr - ks->start;
			f->dso = ks->ksym_type == 1 ? "[bpf_prog]" : "[kernel.kallsyms]";
			f->dso_addr = addr;
			return 0;
		}
		dso = map ? map->dso->name : "[kernel.kallsyms]";
		if (kmap && (!map || map == kmap || map->dso->kernel))
			res = pd_symbolizer_kernel(s->symz, kmap, s->kernel_build_id,
						   s->kernel_build_id_size, look);
		if (map == kmap || !map)
			dso = "[kernel.kallsyms]";
	} else if (map) {
		dso = map->dso->name;
		if (is_jit_dso(dso))
			res = pd_symbolizer_jit(s->symz, pid, look);
		else
			res = pd_symbolizer_lookup(s->symz, map->dso, look - map->start + map->pgoff);
	}
	if (!res || res->nframes == 0 || !res->frames[res->nframes - 1].name) {
		pd_frame *f = new_frame(s);
		if (!f)
			return PD_ENOMEM;
		f->addr = addr;
		f->cpumode = mode;
		f->dso = dso;
		f->dso_addr = dso_addr;
		return 0;
	}
	bool inl = !(s->opts.flags & PD_SESSION_NO_INLINE);
	for (size_t i = inl ? 0 : res->nframes - 1; i < res->nframes; i++) {
		const pd_symframe *sf = &res->frames[i];
		pd_frame *f = new_frame(s);
		if (!f)
			return PD_ENOMEM;
		f->addr = addr;
		f->cpumode = mode;
		f->inlined = sf->inlined;
		f->symbol = sf->name;
		f->raw_symbol = sf->raw;
		/* the offset perf prints is that of the recorded address */
		f->symbol_offset = res->addr + (addr - look) - res->sym_start;
		f->dso = dso;
		f->srcfile = sf->srcfile;
		f->line = sf->line;
		f->dso_addr = dso_addr;
	}
	return 0;
}

static int resolve(pd_session *s, const pd_record *rec)
{
	const pd_sample *smp = &rec->u.sample;
	s->out.nframes = 0;
	uint8_t cpumode = rec->misc & PD_MISC_CPUMODE_MASK;
	uint32_t pid = smp->pid;
	unsigned left = s->opts.max_stack;
	bool first = true;
	int rc;
	if ((smp->sample_type & PD_SAMPLE_CALLCHAIN) && smp->callchain_nr > 0) {
		uint8_t mode = cpumode;
		bool have_ip = false;
		for (uint64_t i = 0; i < smp->callchain_nr && left > 0; i++) {
			uint64_t a = smp->callchain[i];
			if (a >= PD_CONTEXT_MAX) {
				switch (a) {
				case PD_CONTEXT_HV: mode = PD_CPUMODE_HYPERVISOR; break;
				case PD_CONTEXT_KERNEL: mode = PD_CPUMODE_KERNEL; break;
				case PD_CONTEXT_USER: mode = PD_CPUMODE_USER; break;
				case PD_CONTEXT_GUEST_KERNEL: mode = PD_CPUMODE_GUEST_KERNEL; break;
				case PD_CONTEXT_GUEST_USER: mode = PD_CPUMODE_GUEST_USER; break;
				case PD_CONTEXT_USER_DEFERRED:
					i++; /* the cookie of a deferred user chain */
					mode = PD_CPUMODE_USER;
					break;
				default:
					break;
				}
				continue;
			}
			if (first && a != smp->ip && (smp->sample_type & PD_SAMPLE_IP)) {
				/* a chain that starts elsewhere (user-only chain of a
				 * kernel sample): the sample's own ip leads */
				if ((rc = add_address(s, pid, cpumode, smp->ip, false)) < 0)
					return rc;
				left--;
				have_ip = true;
				first = false;
				if (left == 0)
					break;
			}
			if ((rc = add_address(s, pid, mode, a, !first)) < 0)
				return rc;
			first = false;
			left--;
		}
		(void)have_ip;
	}
	if (first && (smp->sample_type & PD_SAMPLE_IP)) {
		if ((rc = add_address(s, pid, cpumode, smp->ip, false)) < 0)
			return rc;
	}
	if (s->out.nframes > 0 && !s->frames[0].symbol)
		count_unresolved(s, s->frames[0].dso);
	return 0;
}

int pd_session_next(pd_session *s, const pd_resolved_sample **out, pd_error *err)
{
	if (!s || !out)
		return pd_error_set(err, PD_EINVAL, "<session>", PD_NO_OFFSET,
				    "no session or output pointer given");
	for (;;) {
		const pd_record *rec;
		int rc = pd_reader_next(s->reader, &rec, err);
		if (rc < 0)
			return rc;
		if (rec->type != PD_RECORD_SAMPLE) {
			if (rec->type < 64 && pd_machine_apply(s->machine, rec) < 0)
				return pd_error_set(err, PD_ENOMEM, pd_reader_path(s->reader),
						    rec->offset, "out of memory");
			continue;
		}
		if (rec->attr < 0)
			continue; /* an event the file does not describe */
		const pd_sample *smp = &rec->u.sample;
		pd_machine_note_sample(s->machine, smp->pid, rec->misc & PD_MISC_CPUMODE_MASK);
		if (resolve(s, rec) < 0)
			return pd_error_set(err, PD_ENOMEM, pd_reader_path(s->reader), rec->offset,
					    "out of memory");
		pd_resolved_sample *o = &s->out;
		o->record = rec;
		o->attr = rec->attr;
		o->pid = smp->pid;
		o->tid = smp->tid;
		o->cpu = smp->cpu;
		o->time = smp->time;
		o->period = smp->period;
		o->comm = pd_machine_comm(s->machine, smp->pid, smp->tid);
		if (!o->comm) {
			snprintf(s->comm, sizeof s->comm, ":%u", smp->pid);
			o->comm = s->comm;
		}
		o->frames = s->frames;
		*out = o;
		return 0;
	}
}
