/*
 * The BPF_PROG_INFO (25) and BPF_BTF (26) features: what perf knew about the
 * BPF programs loaded while it recorded, kept so that samples in a program
 * can be named down to its source lines (symbols/bpf_lines.c).  Internal
 * to libperfdiff: part of the reader stage's interface for later stages
 * (docs/architecture.md), so it includes none of the reader's private
 * headers; the parser's entry point is in internal.h.
 *
 * Layouts (perf 6.1 util/header.c, doc perf-data-format.md §5):
 *   25: u32 count; count × { u32 info_len; u32 data_len; u64 arrays;
 *       u8 info[info_len]; u8 data[data_len] }
 *       `info` is the recording perf's struct bpf_prog_info; its pointer
 *       fields whose bit (enum pd_bpil_array) is set in `arrays` hold
 *       offsets into `data`.
 *   26: u32 count; count × { u32 id; u32 size; u8 btf[size] }
 */
#ifndef PD_READER_BPF_INFO_H
#define PD_READER_BPF_INFO_H

#include <linux/bpf.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "perfdiff/reader.h"

/* Bits of `arrays`: which pointer fields perf fetched (perf's bpil order). */
enum pd_bpil_array {
	PD_BPIL_JITED_INSNS = 0,
	PD_BPIL_XLATED_INSNS,
	PD_BPIL_MAP_IDS,
	PD_BPIL_JITED_KSYMS,
	PD_BPIL_JITED_FUNC_LENS,
	PD_BPIL_FUNC_INFO,
	PD_BPIL_LINE_INFO,
	PD_BPIL_JITED_LINE_INFO,
	PD_BPIL_PROG_TAGS,
	PD_BPIL_COUNT
};

/*
 * One program.  `info` is the recorded struct (missing tail zeroed, excess
 * dropped) with every pointer field either pointing into `data` at an array
 * whose count × record size was checked to lie inside it, or 0 with its
 * count 0 (not fetched, or a record size below the kernel's minimum for
 * line and function info).  So `info` can go to libbpf as it is.  `data` is
 * 8-byte aligned and lives as long as the reader.
 */
typedef struct pd_bpf_prog {
	struct bpf_prog_info info;
	uint64_t arrays;
	const uint8_t *data;
	uint32_t data_len;
} pd_bpf_prog;

/* One BTF object, as the kernel gave it (`data` 8-byte aligned). */
typedef struct pd_bpf_btf {
	uint32_t id;
	uint32_t size;
	const uint8_t *data;
} pd_bpf_btf;

/* BPF_PROG_INFO / BPF_BTF of a recording, as parsed by bpf_info.c
 * (pd_bpf_feature_parse(), internal.h); each NULL/0 when absent or
 * skipped. */
typedef struct pd_bpf_meta {
	const pd_bpf_prog *progs;
	size_t nr_progs;
	const pd_bpf_btf *btfs;
	size_t nr_btfs;
} pd_bpf_meta;

/* The BPF features of the recording `r` reads (never NULL). */
const pd_bpf_meta *pd_reader_bpf(const pd_reader *r);

/* The BTF object with `id`, or NULL. */
const pd_bpf_btf *pd_bpf_meta_btf(const pd_bpf_meta *b, uint32_t id);

#endif
