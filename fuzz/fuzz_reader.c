/*
 * libFuzzer harness for the reader.  The input becomes a memory-backed file
 * that is read to the end, touching every decoded field so that a decoder
 * which points outside the record is caught by ASan.
 *
 * fuzz_reader_file: the bytes are the whole file (file mode, mmap'd).
 * fuzz_reader_pipe (PD_FUZZ_PIPE): the bytes follow a pipe-mode header and
 * are read with read() like a real pipe, so the stream buffering, HEADER_*
 * records and compressed records get the fuzzer's attention.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perfdiff/perfdiff.h"

static uint64_t touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0;
	for (size_t i = 0; i < n; i++)
		h = h * 31 + b[i];
	return h;
}

static uint64_t touch_record(const pd_record *rec)
{
	uint64_t h = touch(rec->data, rec->size);
	switch (rec->type) {
	case PD_RECORD_SAMPLE: {
		const pd_sample *s = &rec->u.sample;
		if (s->callchain)
			h += touch(s->callchain, s->callchain_nr * 8);
		if (s->branches)
			h += touch(s->branches, s->branch_nr * sizeof *s->branches);
		if (s->raw)
			h += touch(s->raw, s->raw_size);
		if (s->stack_user)
			h += touch(s->stack_user, s->stack_user_size);
		if (s->regs_user)
			h += touch(s->regs_user, 8 * (size_t)__builtin_popcountll(s->regs_user_mask));
		if (s->regs_intr)
			h += touch(s->regs_intr, 8 * (size_t)__builtin_popcountll(s->regs_intr_mask));
		if (s->aux)
			h += touch(s->aux, s->aux_size);
		break;
	}
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		if (rec->u.mmap.filename)
			h += strlen(rec->u.mmap.filename);
		break;
	case PD_RECORD_COMM:
		if (rec->u.comm.comm)
			h += strlen(rec->u.comm.comm);
		break;
	case PD_RECORD_KSYMBOL:
		if (rec->u.ksymbol.name)
			h += strlen(rec->u.ksymbol.name);
		break;
	case PD_RECORD_CGROUP:
		if (rec->u.cgroup.path)
			h += strlen(rec->u.cgroup.path);
		break;
	default:
		break;
	}
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz.data", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
#ifdef PD_FUZZ_PIPE
	static const uint8_t pipe_header[16] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2',
						16, 0, 0, 0, 0, 0, 0, 0};
	if (write(fd, pipe_header, sizeof pipe_header) != (ssize_t)sizeof pipe_header) {
		close(fd);
		return 0;
	}
	unsigned flags = PD_READER_NO_MMAP;
#else
	unsigned flags = 0;
#endif
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	lseek(fd, 0, SEEK_SET);

	pd_reader_options opts;
	pd_reader_options_init(&opts, PD_READER_OPTIONS_VERSION);
	opts.flags = flags;
	/* keep single inputs cheap: the caps are what is being exercised */
	opts.max_queue_bytes = 64u << 20;
	opts.max_decompressed = 16u << 20;
	pd_reader *r;
	pd_error err;
	volatile uint64_t sink = 0;
	if (pd_reader_open_fd(&r, fd, "fuzz.data", &opts, &err) == 0) {
		const pd_header_info *h = pd_reader_header(r);
		for (size_t i = 0; i < h->cmdline_nr; i++)
			sink += strlen(h->cmdline[i]);
		for (size_t i = 0; i < pd_reader_attr_count(r); i++)
			sink += strlen(pd_reader_attr(r, i)->name);
		const pd_record *rec;
		int rc;
		while ((rc = pd_reader_next(r, &rec, &err)) == 0)
			sink += touch_record(rec);
		if (rc != PD_ITEROVER && err.message[0] == '\0')
			abort(); /* every error must say what happened */
		for (size_t i = 0; i < pd_reader_warning_count(r); i++)
			sink += strlen(pd_reader_warning(r, i));
		pd_reader_free(r);
	} else if (err.message[0] == '\0') {
		abort();
	}
	(void)sink;
	close(fd);
	return 0;
}
