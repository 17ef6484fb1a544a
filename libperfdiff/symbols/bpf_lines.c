/*
 * BPF program lines (bpf_lines.h).  A sorted index of every sub-program
 * entry address of every recorded program finds the program behind a
 * KSYMBOL; libbpf turns the program's line info into file:line.
 *
 * The arrays of pd_bpf_prog were bounds-checked by the reader; what libbpf
 * 1.1.2 does not check itself is checked here: BTF type ids (its
 * btf__type_by_id() indexes without a range check) and the sub-program
 * index against the function records.
 */
#include "bpf_lines.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
	uint64_t addr;
	uint32_t prog, func;
} entry;

typedef struct prog_state {
	bool tried;                     /* btf and linfo built (or found missing) */
	struct btf *btf;
	struct bpf_prog_linfo *linfo;
} prog_state;

struct pd_bpf_lines {
	const pd_bpf_meta *meta;
	entry *index;
	size_t nindex;
	prog_state *state;              /* one per program */
};

static uint64_t array_u64(uint64_t ptr, uint32_t i)
{
	uint64_t v;
	memcpy(&v, (const uint8_t *)(uintptr_t)ptr + (size_t)i * 8, sizeof v);
	return v;
}

static uint32_t array_u32(uint64_t ptr, uint64_t byte_off)
{
	uint32_t v;
	memcpy(&v, (const uint8_t *)(uintptr_t)ptr + byte_off, sizeof v);
	return v;
}

static int cmp_entry(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* same address: file order, so the last one is the newest program */
	return x->prog < y->prog ? -1 : x->prog > y->prog;
}

bool pd_bpf_lines_supported(void)
{
	return true;
}

pd_bpf_lines *pd_bpf_lines_new(const pd_bpf_meta *meta)
{
	pd_bpf_lines *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->meta = meta;
	size_t n = 0;
	for (size_t i = 0; i < meta->nr_progs; i++)
		n += meta->progs[i].info.nr_jited_ksyms;
	b->state = calloc(meta->nr_progs ? meta->nr_progs : 1, sizeof *b->state);
	b->index = calloc(n ? n : 1, sizeof *b->index);
	if (!b->state || !b->index) {
		pd_bpf_lines_free(b);
		return NULL;
	}
	for (size_t i = 0; i < meta->nr_progs; i++) {
		const struct bpf_prog_info *in = &meta->progs[i].info;
		for (uint32_t f = 0; f < in->nr_jited_ksyms; f++)
			b->index[b->nindex++] = (entry){ array_u64(in->jited_ksyms, f),
							 (uint32_t)i, f };
	}
	qsort(b->index, b->nindex, sizeof *b->index, cmp_entry);
	return b;
}

void pd_bpf_lines_free(pd_bpf_lines *b)
{
	if (!b)
		return;
	for (size_t i = 0; b->state && i < b->meta->nr_progs; i++) {
		bpf_prog_linfo__free(b->state[i].linfo);
		btf__free(b->state[i].btf);
	}
	free(b->state);
	free(b->index);
	free(b);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The tag of a "bpf_prog_<16 hex>[_name]" KSYMBOL name. */
static bool name_tag(const char *name, uint8_t tag[BPF_TAG_SIZE])
{
	static const char prefix[] = "bpf_prog_";
	if (!name || strncmp(name, prefix, sizeof prefix - 1) != 0)
		return false;
	const char *h = name + sizeof prefix - 1;
	for (int i = 0; i < BPF_TAG_SIZE; i++) {
		int hi = hexval(h[2 * i]), lo = hi < 0 ? -1 : hexval(h[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		tag[i] = (uint8_t)(hi << 4 | lo);
	}
	char end = h[2 * BPF_TAG_SIZE];
	return end == '\0' || end == '_';
}

/* Does sub-program `func` of `p` fit the KSYMBOL `ks`? */
static bool matches(const pd_bpf_prog *p, uint32_t func, const pd_ksym *ks, bool have_tag,
		    const uint8_t tag[BPF_TAG_SIZE])
{
	const struct bpf_prog_info *in = &p->info;
	if (have_tag) {
		/* the kernel names the main program by the program's tag,
		 * the others by their own; perf's synthesized names use
		 * prog_tags for all */
		if (memcmp(tag, in->tag, BPF_TAG_SIZE) == 0)
			return true;
		return func < in->nr_prog_tags &&
		       memcmp(tag, (const uint8_t *)(uintptr_t)in->prog_tags + (size_t)func * BPF_TAG_SIZE,
			      BPF_TAG_SIZE) == 0;
	}
	return func >= in->nr_jited_func_lens ||
	       array_u32(in->jited_func_lens, (uint64_t)func * 4) == ks->end - ks->start;
}

static prog_state *load(pd_bpf_lines *b, uint32_t i)
{
	prog_state *st = &b->state[i];
	if (st->tried)
		return st;
	st->tried = true;
	const pd_bpf_prog *p = &b->meta->progs[i];
	const pd_bpf_btf *blob = p->info.btf_id ? pd_bpf_meta_btf(b->meta, p->info.btf_id) : NULL;
	if (blob && blob->size) {
		/* libbpf ≥ 1.0: NULL (errno set) on failure */
		st->btf = btf__new(blob->data, blob->size);
	}
	if (p->info.nr_line_info && p->info.nr_jited_line_info) {
		st->linfo = bpf_prog_linfo__new(&p->info);
	}
	return st;
}

/* BTF name of sub-program `func`, from its func_info record. */
static const char *func_name(const prog_state *st, const pd_bpf_prog *p, uint32_t func)
{
	const struct bpf_prog_info *in = &p->info;
	if (!st->btf || func >= in->nr_func_info)
		return NULL;
	/* struct bpf_func_info { u32 insn_off; u32 type_id; } */
	uint32_t type_id = array_u32(in->func_info, (uint64_t)func * in->func_info_rec_size + 4);
	if (type_id == 0 || type_id >= btf__type_cnt(st->btf))
		return NULL;
	const struct btf_type *t = btf__type_by_id(st->btf, type_id);
	if (!t || !btf_is_func(t))
		return NULL;
	const char *name = btf__name_by_offset(st->btf, t->name_off);
	return name && *name ? name : NULL;
}

bool pd_bpf_lines_find(pd_bpf_lines *b, const pd_ksym *ks, uint64_t addr, bool want_line,
		       pd_bpf_where *out)
{
	memset(out, 0, sizeof *out);
	size_t lo = 0, hi = b->nindex;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->index[mid].addr < ks->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint8_t tag[BPF_TAG_SIZE];
	bool have_tag = name_tag(ks->name, tag);
	const entry *best = NULL;
	for (size_t i = lo; i < b->nindex && b->index[i].addr == ks->start; i++) {
		const entry *e = &b->index[i];
		if (matches(&b->meta->progs[e->prog], e->func, ks, have_tag, tag))
			best = e;
	}
	if (!best)
		return false;
	const pd_bpf_prog *p = &b->meta->progs[best->prog];
	prog_state *st = load(b, best->prog);
	out->prog = p;
	out->func = best->func;
	out->func_name = func_name(st, p, best->func);
	if (!want_line || !st->linfo || !st->btf)
		return true;
	const struct bpf_line_info *li =
		bpf_prog_linfo__lfind_addr_func(st->linfo, addr, best->func, 0);
	if (!li)
		return true;
	const char *file = btf__name_by_offset(st->btf, li->file_name_off);
	if (file && *file) {
		out->file = file;
		out->line = BPF_LINE_INFO_LINE_NUM(li->line_col);
		out->col = BPF_LINE_INFO_LINE_COL(li->line_col);
	}
	return true;
}
