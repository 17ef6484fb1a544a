/*
 * BPF program lines in a library built without libbpf (PERFDIFF_BPF=OFF):
 * no index is ever built, so a BPF frame keeps the name its KSYMBOL
 * record gave it (bpf_prog_<tag>, or with the function perf appended),
 * with no source line; the symbolizer says so once per session when a
 * recording has programs to tell about (bpf_symbolize.c).
 */
#include "bpf_lines.h"

bool pd_bpf_lines_supported(void)
{
	return false;
}

pd_bpf_lines *pd_bpf_lines_new(const pd_bpf_meta *meta)
{
	(void)meta;
	return NULL;
}

void pd_bpf_lines_free(pd_bpf_lines *b)
{
	(void)b;
}

bool pd_bpf_lines_find(pd_bpf_lines *b, const pd_ksym *ks, uint64_t addr, bool want_line,
		       pd_bpf_where *out)
{
	(void)b, (void)ks, (void)addr, (void)want_line, (void)out;
	return false;
}
