/*
 * BPF_PROG_INFO and BPF_BTF feature payloads (layouts in bpf_info.h).
 *
 * Everything in them comes from the file, so every count is checked
 * against the bytes that are actually there before anything is sized by
 * it, and every array against its program's data before a pointer to it
 * is handed on: libbpf trusts the struct bpf_prog_info it is given.
 */
#include "bpf_info.h"

#include <stddef.h>
#include <stdio.h>

#include "reader_impl.h"

/* Per-program header: info_len, data_len, arrays. */
#define PROG_HDR 16u
/* Per-BTF header: id, size. */
#define BTF_HDR 8u
/* Programs whose recorded info stops before the line-info fields cannot be
 * used for lines, and keeping them would let a hostile file make us store
 * a whole struct per 16 bytes of input. */
#define PROG_INFO_MIN (offsetof(struct bpf_prog_info, jited_line_info_rec_size) + 4)

/* The kernel's minimum record sizes (kernel/bpf/syscall.c) below which
 * libbpf would read past a record. */
#define LINE_REC_MIN sizeof(struct bpf_line_info)
#define FUNC_REC_MIN sizeof(struct bpf_func_info)
#define JITED_LINE_REC_MIN sizeof(uint64_t)

/* One pointer field of bpf_prog_info and how to size what it points to. */
typedef struct array_desc {
	const char *name;
	__u64 *ptr;
	__u32 *count;
	uint64_t rec_size;   /* bytes per element */
	uint64_t rec_min;    /* a smaller stated record size drops the array */
} array_desc;

static void describe_arrays(struct bpf_prog_info *in, array_desc d[PD_BPIL_COUNT])
{
	d[PD_BPIL_JITED_INSNS] = (array_desc){ "jited_prog_insns", &in->jited_prog_insns,
					       &in->jited_prog_len, 1, 1 };
	d[PD_BPIL_XLATED_INSNS] = (array_desc){ "xlated_prog_insns", &in->xlated_prog_insns,
						&in->xlated_prog_len, 1, 1 };
	d[PD_BPIL_MAP_IDS] = (array_desc){ "map_ids", &in->map_ids, &in->nr_map_ids, 4, 4 };
	d[PD_BPIL_JITED_KSYMS] = (array_desc){ "jited_ksyms", &in->jited_ksyms,
					       &in->nr_jited_ksyms, 8, 8 };
	d[PD_BPIL_JITED_FUNC_LENS] = (array_desc){ "jited_func_lens", &in->jited_func_lens,
						   &in->nr_jited_func_lens, 4, 4 };
	d[PD_BPIL_FUNC_INFO] = (array_desc){ "func_info", &in->func_info, &in->nr_func_info,
					     in->func_info_rec_size, FUNC_REC_MIN };
	d[PD_BPIL_LINE_INFO] = (array_desc){ "line_info", &in->line_info, &in->nr_line_info,
					     in->line_info_rec_size, LINE_REC_MIN };
	d[PD_BPIL_JITED_LINE_INFO] = (array_desc){ "jited_line_info", &in->jited_line_info,
						   &in->nr_jited_line_info,
						   in->jited_line_info_rec_size,
						   JITED_LINE_REC_MIN };
	d[PD_BPIL_PROG_TAGS] = (array_desc){ "prog_tags", &in->prog_tags, &in->nr_prog_tags,
					     BPF_TAG_SIZE, BPF_TAG_SIZE };
}

/*
 * Turn the offsets of `prog` into pointers into its data, after checking
 * that each array lies inside it.  Arrays perf did not fetch, or with a
 * record size too small to read, are cleared (pointer and count 0).
 */
static int bind_arrays(pd_bpf_prog *prog, uint32_t index, pd_error *err)
{
	array_desc d[PD_BPIL_COUNT];
	describe_arrays(&prog->info, d);
	for (unsigned i = 0; i < PD_BPIL_COUNT; i++) {
		bool fetched = (prog->arrays >> i) & 1;
		if (!fetched || d[i].rec_size < d[i].rec_min || *d[i].count == 0) {
			*d[i].ptr = 0;
			*d[i].count = 0;
			continue;
		}
		uint64_t off = *d[i].ptr;
		uint64_t need = (uint64_t)*d[i].count * d[i].rec_size; /* u32 × u32: no overflow */
		if (off > prog->data_len || need > prog->data_len - off)
			return pd_error_reason(err, PD_ECORRUPT,
					       "BPF_PROG_INFO: program %u (id %u): %s of %u × %llu bytes "
					       "at data offset %llu does not fit its %u data bytes",
					       index, prog->info.id, d[i].name, *d[i].count,
					       (unsigned long long)d[i].rec_size, (unsigned long long)off,
					       prog->data_len);
		*d[i].ptr = (__u64)(uintptr_t)(prog->data + off);
	}
	return 0;
}

static int parse_progs(pd_meta *m, const uint8_t *p, size_t size, pd_error *err)
{
	if (size < 4)
		return pd_error_reason(err, PD_ECORRUPT,
				       "BPF_PROG_INFO: %zu bytes hold no count", size);
	uint32_t nr = pd_ld32(p, false);
	size_t pos = 4;
	/* First pass: the entries must fit, and say how many are kept. */
	size_t keep = 0;
	for (uint32_t i = 0; i < nr; i++) {
		if (size - pos < PROG_HDR)
			return pd_error_reason(err, PD_ECORRUPT,
					       "BPF_PROG_INFO: program %u of %u starts at payload offset %zu, "
					       "%zu bytes left", i, nr, pos, size - pos);
		uint64_t info_len = pd_ld32(p + pos, false), data_len = pd_ld32(p + pos + 4, false);
		if (info_len + data_len > size - pos - PROG_HDR)
			return pd_error_reason(err, PD_ECORRUPT,
					       "BPF_PROG_INFO: program %u at payload offset %zu claims %llu + %llu "
					       "bytes, %zu left", i, pos, (unsigned long long)info_len,
					       (unsigned long long)data_len, size - pos - PROG_HDR);
		if (info_len >= PROG_INFO_MIN)
			keep++;
		pos += PROG_HDR + info_len + data_len;
	}
	pd_bpf_prog *v = keep ? pd_arena_alloc(&m->arena, keep * sizeof *v) : NULL;
	if (keep && !v)
		return PD_ENOMEM;
	pos = 4;
	size_t n = 0;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t info_len = pd_ld32(p + pos, false), data_len = pd_ld32(p + pos + 4, false);
		const uint8_t *info = p + pos + PROG_HDR, *data = info + info_len;
		uint64_t arrays = pd_ld64(p + pos + 8, false);
		pos += PROG_HDR + (size_t)info_len + data_len;
		if (info_len < PROG_INFO_MIN)
			continue;
		pd_bpf_prog *prog = &v[n];
		/* perf ≠ this build: copy what both know, the rest stays 0 */
		memcpy(&prog->info, info,
		       info_len < sizeof prog->info ? info_len : sizeof prog->info);
		prog->arrays = arrays;
		prog->data_len = data_len;
		if (data_len) {
			prog->data = pd_arena_memdup(&m->arena, data, data_len);
			if (!prog->data)
				return PD_ENOMEM;
		}
		int rc = bind_arrays(prog, i, err);
		if (rc)
			return rc;
		n++;
	}
	m->bpf.progs = v;
	m->bpf.nr_progs = n;
	return 0;
}

static int parse_btfs(pd_meta *m, const uint8_t *p, size_t size, pd_error *err)
{
	if (size < 4)
		return pd_error_reason(err, PD_ECORRUPT, "BPF_BTF: %zu bytes hold no count", size);
	uint32_t nr = pd_ld32(p, false);
	if (nr > (size - 4) / BTF_HDR)
		return pd_error_reason(err, PD_ECORRUPT,
				       "BPF_BTF: %u entries cannot fit in %zu bytes", nr,
				       size - 4);
	pd_bpf_btf *v = nr ? pd_arena_alloc(&m->arena, (size_t)nr * sizeof *v) : NULL;
	if (nr && !v)
		return PD_ENOMEM;
	size_t pos = 4;
	for (uint32_t i = 0; i < nr; i++) {
		if (size - pos < BTF_HDR)
			return pd_error_reason(err, PD_ECORRUPT,
					       "BPF_BTF: entry %u of %u starts at payload offset %zu, %zu bytes left",
					       i, nr, pos, size - pos);
		v[i].id = pd_ld32(p + pos, false);
		v[i].size = pd_ld32(p + pos + 4, false);
		pos += BTF_HDR;
		if (v[i].size > size - pos)
			return pd_error_reason(err, PD_ECORRUPT,
					       "BPF_BTF: entry %u (id %u) claims %u bytes, %zu left", i,
					       v[i].id, v[i].size, size - pos);
		if (v[i].size) {
			v[i].data = pd_arena_memdup(&m->arena, p + pos, v[i].size);
			if (!v[i].data)
				return PD_ENOMEM;
		}
		pos += v[i].size;
	}
	m->bpf.btfs = v;
	m->bpf.nr_btfs = nr;
	return 0;
}

int pd_bpf_feature_parse(pd_meta *m, unsigned feat, const uint8_t *p, size_t size,
			 bool swap, pd_error *err)
{
	if (swap) {
		/* the payload is kernel structs in the writer's byte order; perf
		 * refuses it too */
		return pd_error_reason(err, PD_EUNSUPPORTED,
				       "BPF program data of a file of the other byte order is not read");
	}
	if (feat == PD_FEAT_BPF_PROG_INFO)
		return parse_progs(m, p, size, err);
	return parse_btfs(m, p, size, err);
}

const pd_bpf_meta *pd_reader_bpf(const pd_reader *r)
{
	return &r->meta.bpf;
}

const pd_bpf_btf *pd_bpf_meta_btf(const pd_bpf_meta *b, uint32_t id)
{
	for (size_t i = 0; i < b->nr_btfs; i++)
		if (b->btfs[i].id == id)
			return &b->btfs[i];
	return NULL;
}
