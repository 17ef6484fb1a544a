/*
 * The symbolizer's BPF part: a KSYMBOL-named BPF frame completed from the
 * recording's BPF features (bpf_lines.h).  Results are cached by
 * (program, address) like the kernel's and JIT results.
 */
#include <string.h>

#include "bpf_lines.h"
#include "symb_internal.h"

/* "bpf_prog_<16 hex>" and nothing after: the kernel (or perf) knew no
 * function name when it named the program. */
static bool lacks_func_name(const char *name)
{
	static const char prefix[] = "bpf_prog_";
	return name && strncmp(name, prefix, sizeof prefix - 1) == 0 &&
	       strlen(name) == sizeof prefix - 1 + 2 * BPF_TAG_SIZE;
}

/* The index over `reader`'s programs, rebuilt when the reader or its
 * features changed (pipe mode: features arrive as records). */
static pd_bpf_lines *lines_for(pd_symbolizer *z, const pd_reader *reader,
			       const pd_bpf_meta *meta)
{
	if (z->bpf && z->bpf_reader == reader && z->bpf_progs == meta->progs &&
	    z->bpf_btfs == meta->btfs)
		return z->bpf;
	pd_bpf_lines_free(z->bpf);
	z->bpf = pd_bpf_lines_new(meta);
	z->bpf_reader = reader;
	z->bpf_progs = meta->progs;
	z->bpf_btfs = meta->btfs;
	return z->bpf;
}

const pd_symres *pd_symbolizer_bpf(pd_symbolizer *z, const pd_reader *reader,
				   const pd_ksym *ks, uint64_t addr)
{
	if (!z || !reader || !ks || ks->ksym_type != 1)
		return NULL;
	bool want_name = lacks_func_name(ks->name);
	if (!want_name && !z->cfg.srcline)
		return NULL; /* nothing to add to the KSYMBOL name */
	const pd_bpf_meta *meta = pd_reader_bpf(reader);
	if (meta->nr_progs == 0)
		return NULL;
	if (!pd_bpf_lines_supported()) {
		if (!z->bpf_unsupported_said)
			pd_symbolizer_warn(z, PD_WARN_OTHER,
					   "BPF programs: this perfdiff was built without libbpf "
					   "(PERFDIFF_BPF=OFF); their frames keep their KSYMBOL "
					   "names, without function names from BTF or source lines");
		z->bpf_unsupported_said = true;
		return NULL;
	}
	pd_bpf_lines *b = lines_for(z, reader, meta);
	pd_bpf_where w;
	if (!b || !pd_bpf_lines_find(b, ks, addr, false, &w))
		return NULL;
	const pd_symres *hit = pd_symhash_get(&z->bresults, (uintptr_t)w.prog, addr);
	if (hit)
		return hit;
	pd_bpf_lines_find(b, ks, addr, z->cfg.srcline, &w);
	pd_symframe *f;
	pd_symres *r = pd_symres_new(z, 1, &f);
	if (!r)
		return NULL;
	r->addr = addr;
	r->sym_start = ks->start;
	const char *name = ks->name;
	char buf[512];
	if (want_name && w.func_name) {
		/* perf's name for it: bpf_prog_<tag>_<function> */
		snprintf(buf, sizeof buf, "%s_%s", ks->name, w.func_name);
		name = buf;
	}
	f[0].name = f[0].raw = pd_strpool_intern(&z->strings, &z->arena, name);
	if (!f[0].name)
		return NULL;
	if (w.file) {
		f[0].srcfile = pd_strpool_intern(&z->strings, &z->arena, w.file);
		f[0].line = w.line;
	}
	pd_symhash_put(&z->bresults, (uintptr_t)w.prog, addr, r);
	return r;
}

void pd_symbolizer_free_bpf(pd_symbolizer *z)
{
	pd_bpf_lines_free(z->bpf);
	z->bpf = NULL;
	pd_symhash_free(&z->bresults);
}
