/*
 * Source lines and function names of BPF programs, from the recording's
 * BPF_PROG_INFO and BPF_BTF features (reader/bpf_info.h) through libbpf:
 * btf__new() over the program's BTF, bpf_prog_linfo__new() over its jited
 * line info.  Both are built the first time a program is asked about and
 * kept for the rest of the session.
 */
#ifndef PD_SYMBOLS_BPF_LINES_H
#define PD_SYMBOLS_BPF_LINES_H

#include <stdbool.h>
#include <stdint.h>

#include "reader/bpf_info.h"
#include "machine/machine.h"

typedef struct pd_bpf_lines pd_bpf_lines;

/* Whether the library was built with libbpf (PERFDIFF_BPF): without it,
 * bpf_lines_none.c builds no index and finds nothing. */
bool pd_bpf_lines_supported(void);

/* An index over `meta` (which must outlive it).  NULL on allocation failure. */
pd_bpf_lines *pd_bpf_lines_new(const pd_bpf_meta *meta);
void pd_bpf_lines_free(pd_bpf_lines *b);

/* What one address of a program is.  Strings live as long as `b`. */
typedef struct pd_bpf_where {
	const pd_bpf_prog *prog;  /* the program holding the address */
	uint32_t func;            /* its sub-program (index in jited_ksyms) */
	const char *func_name;    /* BTF name of the sub-program, or NULL */
	const char *file;         /* source file, or NULL when unknown */
	unsigned line, col;
} pd_bpf_where;

/*
 * The program and sub-program behind the KSYMBOL range `ks` (its start is
 * a jited_ksyms entry; when its name carries a tag, that tag is the
 * program's or the sub-program's, which tells apart programs that were
 * loaded at the same address one after the other), and, when `want_line`,
 * the source line of `addr` in it.  False when the recording has no
 * information on that program.
 */
bool pd_bpf_lines_find(pd_bpf_lines *b, const pd_ksym *ks, uint64_t addr, bool want_line,
		       pd_bpf_where *out);

#endif
