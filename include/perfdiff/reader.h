/*
 * perfdiff/reader.h — reading perf.data files.
 *
 * The reader turns any `perf record` output into a stream of decoded
 * records: file mode (PERFILE2, both byte orders), pipe mode (a file, or
 * standard input when the path is "-"), directory mode (`perf record
 * --threads`: `data` plus `data.N`), and zstd-compressed data (COMPRESSED
 * and COMPRESSED2 records, decoded by one streaming context).
 *
 * Typical use:
 *
 *     pd_reader *r;
 *     pd_error err;
 *     if (pd_reader_open(&r, "perf.data", NULL, &err) < 0) {
 *         fprintf(stderr, "%s\n", err.message);
 *         return 2;
 *     }
 *     const pd_record *rec;
 *     int rc;
 *     while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
 *         if (rec->type == PD_RECORD_SAMPLE)
 *             use(rec->u.sample.ip, rec->u.sample.period);
 *     }
 *     if (rc != PD_ITEROVER)
 *         fprintf(stderr, "%s\n", err.message);   // records so far were delivered
 *     for (size_t i = 0; i < pd_reader_warning_count(r); i++)
 *         fprintf(stderr, "warning: %s\n", pd_reader_warning(r, i));
 *     pd_reader_free(r);
 *
 * Order.  By default kernel records (types below 64: samples and side-band)
 * are delivered in timestamp order the way perf does it: records are queued
 * and released at each FINISHED_ROUND up to the newest time seen before the
 * previous round, the rest at the end, so memory stays bounded by two rounds.
 * perf-tool records (types 64 and up) are delivered as they are read, as
 * perf does.  PD_READER_FILE_ORDER delivers everything in file order.
 *
 * Lifetime.  A delivered record, and every pointer inside it, stays valid
 * until the next call of pd_reader_next() or pd_reader_free().  In file mode
 * records point straight into the mmap'd file (zero copy); records from a
 * pipe, a compressed chunk or a byte-swapped file point into reader buffers.
 * Memory does not grow with the file: the mapped pages behind the records
 * still queued or delivered are handed back to the kernel as reading goes.
 * All multi-byte values are in host byte order.
 *
 * Bad input.  A truncated input (including a file whose perf was killed, with
 * data.size 0) delivers every record before the cut and adds a warning.  A
 * corrupt record stops reading: everything read before it is still delivered,
 * then pd_reader_next() returns PD_ECORRUPT with the byte offset.  No
 * allocation is sized by a field that was not checked against the input size
 * or a cap in pd_reader_options, and a record that exceeds a cap (a callchain
 * deeper than max_callchain, ...) stops reading with PD_ELIMIT.
 *
 * Threads.  A pd_reader is used by one thread at a time; separate readers are
 * independent (no global state).  The reader starts no thread.
 */
#ifndef PERFDIFF_READER_H
#define PERFDIFF_READER_H

#include <stdbool.h>
#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- records */

/** Record types (perf_event_header.type).  Unknown types are delivered too. */
typedef enum pd_record_type {
	PD_RECORD_MMAP = 1,
	PD_RECORD_LOST = 2,
	PD_RECORD_COMM = 3,
	PD_RECORD_EXIT = 4,
	PD_RECORD_THROTTLE = 5,
	PD_RECORD_UNTHROTTLE = 6,
	PD_RECORD_FORK = 7,
	PD_RECORD_READ = 8,
	PD_RECORD_SAMPLE = 9,
	PD_RECORD_MMAP2 = 10,
	PD_RECORD_AUX = 11,
	PD_RECORD_ITRACE_START = 12,
	PD_RECORD_LOST_SAMPLES = 13,
	PD_RECORD_SWITCH = 14,
	PD_RECORD_SWITCH_CPU_WIDE = 15,
	PD_RECORD_NAMESPACES = 16,
	PD_RECORD_KSYMBOL = 17,
	PD_RECORD_BPF_EVENT = 18,
	PD_RECORD_CGROUP = 19,
	PD_RECORD_TEXT_POKE = 20,
	PD_RECORD_AUX_OUTPUT_HW_ID = 21,
	PD_RECORD_CALLCHAIN_DEFERRED = 22,
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_HEADER_EVENT_TYPE = 65,
	PD_RECORD_HEADER_TRACING_DATA = 66,
	PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
	PD_RECORD_ID_INDEX = 69,
	PD_RECORD_AUXTRACE_INFO = 70,
	PD_RECORD_AUXTRACE = 71,
	PD_RECORD_AUXTRACE_ERROR = 72,
	PD_RECORD_THREAD_MAP = 73,
	PD_RECORD_CPU_MAP = 74,
	PD_RECORD_STAT_CONFIG = 75,
	PD_RECORD_STAT = 76,
	PD_RECORD_STAT_ROUND = 77,
	PD_RECORD_EVENT_UPDATE = 78,
	PD_RECORD_TIME_CONV = 79,
	PD_RECORD_HEADER_FEATURE = 80,
	PD_RECORD_COMPRESSED = 81,
	PD_RECORD_FINISHED_INIT = 82,
	PD_RECORD_COMPRESSED2 = 83,
	PD_RECORD_BPF_METADATA = 84,
	PD_RECORD_SCHEDSTAT_CPU = 85,
	PD_RECORD_SCHEDSTAT_DOMAIN = 86,
} pd_record_type;

/** perf's name of a record type ("SAMPLE", "MMAP2"), or NULL if unknown. */
PD_EXTERN(const char *) pd_record_type_name(uint32_t type);

/** header.misc & PD_MISC_CPUMODE_MASK: where the sample or map belongs. */
#define PD_MISC_CPUMODE_MASK 7u
enum pd_cpumode {
	PD_CPUMODE_UNKNOWN = 0,
	PD_CPUMODE_KERNEL = 1,
	PD_CPUMODE_USER = 2,
	PD_CPUMODE_HYPERVISOR = 3,
	PD_CPUMODE_GUEST_KERNEL = 4,
	PD_CPUMODE_GUEST_USER = 5,
};
#define PD_MISC_PROC_MAP_PARSE_TIMEOUT (1u << 12)
#define PD_MISC_MMAP_DATA (1u << 13)     /* MMAP/MMAP2: data, not code */
#define PD_MISC_COMM_EXEC (1u << 13)     /* COMM: the thread exec'd */
#define PD_MISC_FORK_EXEC (1u << 13)
#define PD_MISC_SWITCH_OUT (1u << 13)
#define PD_MISC_EXACT_IP (1u << 14)      /* SAMPLE */
#define PD_MISC_MMAP_BUILD_ID (1u << 14) /* MMAP2 carries a build-id */
#define PD_MISC_SWITCH_OUT_PREEMPT (1u << 14)

/** attr.sample_type bits. */
enum pd_sample_type {
	PD_SAMPLE_IP = 1u << 0,
	PD_SAMPLE_TID = 1u << 1,
	PD_SAMPLE_TIME = 1u << 2,
	PD_SAMPLE_ADDR = 1u << 3,
	PD_SAMPLE_READ = 1u << 4,
	PD_SAMPLE_CALLCHAIN = 1u << 5,
	PD_SAMPLE_ID = 1u << 6,
	PD_SAMPLE_CPU = 1u << 7,
	PD_SAMPLE_PERIOD = 1u << 8,
	PD_SAMPLE_STREAM_ID = 1u << 9,
	PD_SAMPLE_RAW = 1u << 10,
	PD_SAMPLE_BRANCH_STACK = 1u << 11,
	PD_SAMPLE_REGS_USER = 1u << 12,
	PD_SAMPLE_STACK_USER = 1u << 13,
	PD_SAMPLE_WEIGHT = 1u << 14,
	PD_SAMPLE_DATA_SRC = 1u << 15,
	PD_SAMPLE_IDENTIFIER = 1u << 16,
	PD_SAMPLE_TRANSACTION = 1u << 17,
	PD_SAMPLE_REGS_INTR = 1u << 18,
	PD_SAMPLE_PHYS_ADDR = 1u << 19,
	PD_SAMPLE_AUX = 1u << 20,
	PD_SAMPLE_CGROUP = 1u << 21,
	PD_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
	PD_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
	PD_SAMPLE_WEIGHT_STRUCT = 1u << 24,
};

/** attr.read_format bits. */
enum pd_read_format {
	PD_FORMAT_TOTAL_TIME_ENABLED = 1u << 0,
	PD_FORMAT_TOTAL_TIME_RUNNING = 1u << 1,
	PD_FORMAT_ID = 1u << 2,
	PD_FORMAT_GROUP = 1u << 3,
	PD_FORMAT_LOST = 1u << 4,
};

/** Callchain context markers (values >= PD_CONTEXT_MAX are markers). */
#define PD_CONTEXT_HV ((uint64_t)-32)
#define PD_CONTEXT_KERNEL ((uint64_t)-128)
#define PD_CONTEXT_USER ((uint64_t)-512)
#define PD_CONTEXT_USER_DEFERRED ((uint64_t)-640)
#define PD_CONTEXT_GUEST ((uint64_t)-2048)
#define PD_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PD_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define PD_CONTEXT_MAX ((uint64_t)-4095)

/** branch_sample_type bit that adds hw_idx to BRANCH_STACK. */
#define PD_BRANCH_HW_INDEX (1ull << 17)

/** Which fields of pd_sample_id are present (bits of attr.sample_type). */
typedef struct pd_sample_id {
	uint64_t present; /**< PD_SAMPLE_TID|TIME|ID|STREAM_ID|CPU|IDENTIFIER subset */
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
} pd_sample_id;

/** One branch stack entry; `flags` is the raw perf_branch_entry bitfield. */
typedef struct pd_branch_entry {
	uint64_t from, to, flags;
} pd_branch_entry;

/**
 * A decoded SAMPLE.  A field is meaningful iff its PD_SAMPLE_* bit is in
 * `sample_type` (copied from the owning attr); array pointers point into the
 * record.  `period` falls back to the attr's sample_period when PERIOD is not
 * sampled (and the attr is not in frequency mode).
 */
typedef struct pd_sample {
	uint64_t sample_type;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	/*
	 * READ.  With PD_FORMAT_GROUP: `read_nr` entries at `read_values`, each
	 * 1 + [ID] + [LOST] u64s ({value, id, lost}).  Without it: read_nr is 1,
	 * read_values[0] is the value and its id and lost are in read_id and
	 * read_lost (the time fields sit between them in the record).
	 */
	uint64_t read_time_enabled, read_time_running;
	uint64_t read_nr;
	const uint64_t *read_values;
	uint64_t read_id, read_lost;
	uint64_t callchain_nr;
	const uint64_t *callchain;   /**< leaf first, with PD_CONTEXT_* markers */
	uint32_t raw_size;
	const void *raw;
	uint64_t branch_nr;
	uint64_t branch_hw_idx;      /**< valid iff branch_has_hw_idx */
	bool branch_has_hw_idx;
	const pd_branch_entry *branches;
	uint64_t regs_user_abi;      /**< 0: no registers (kernel thread) */
	uint64_t regs_user_mask;
	const uint64_t *regs_user;   /**< popcount(mask) values when abi != 0 */
	uint64_t stack_user_size;    /**< bytes copied */
	uint64_t stack_user_dyn_size;/**< bytes valid (<= stack_user_size) */
	const uint8_t *stack_user;
	uint64_t weight;             /**< WEIGHT, or WEIGHT_STRUCT as a raw u64 */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	uint64_t regs_intr_mask;
	const uint64_t *regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const void *aux;
} pd_sample;

/**
 * MMAP and MMAP2 (fields not in MMAP are 0).  MMAP2 in its first layout
 * (Linux 3.12-3.15, vendor 3.10 kernels such as RHEL 7) has no prot and
 * flags: prot is then PROT_READ plus PROT_EXEC unless PD_MISC_MMAP_DATA
 * (what MMAP says), and flags is 0.
 */
typedef struct pd_mmap {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;            /**< MMAP2 without build-id */
	uint64_t ino, ino_generation;
	uint32_t prot, flags;         /**< MMAP2 */
	uint8_t build_id_size;        /**< MMAP2 with PD_MISC_MMAP_BUILD_ID; else 0 */
	uint8_t build_id[20];
	const char *filename;         /**< NUL-terminated within the record */
} pd_mmap;

/** COMM. */
typedef struct pd_comm {
	uint32_t pid, tid;
	const char *comm;
	bool exec;                    /**< PD_MISC_COMM_EXEC */
} pd_comm;

/** FORK and EXIT. */
typedef struct pd_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
} pd_task;

/** LOST (id, lost) and LOST_SAMPLES (lost only). */
typedef struct pd_lost {
	uint64_t id, lost;
} pd_lost;

/** THROTTLE / UNTHROTTLE. */
typedef struct pd_throttle {
	uint64_t time, id, stream_id;
} pd_throttle;

/** KSYMBOL. */
typedef struct pd_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type;           /**< 1 BPF, 2 out-of-line (trampolines) */
	uint16_t flags;               /**< bit 0: unregister */
	const char *name;
} pd_ksymbol;

/** BPF_EVENT. */
typedef struct pd_bpf_event {
	uint16_t type, flags;         /**< type 1 load, 2 unload */
	uint32_t id;
	uint8_t tag[8];
} pd_bpf_event;

/** SWITCH / SWITCH_CPU_WIDE (next_prev_* only for the CPU-wide form). */
typedef struct pd_switch {
	uint32_t next_prev_pid, next_prev_tid;
	bool out, preempt;
} pd_switch;

/** NAMESPACES: `nr` pairs of {dev, ino} u64s. */
typedef struct pd_namespaces {
	uint32_t pid, tid;
	uint64_t nr;
	const uint64_t *dev_ino;
} pd_namespaces;

/** CGROUP. */
typedef struct pd_cgroup {
	uint64_t id;
	const char *path;
} pd_cgroup;

/** AUX. */
typedef struct pd_aux {
	uint64_t aux_offset, aux_size, flags;
} pd_aux;

/** ITRACE_START. */
typedef struct pd_itrace_start {
	uint32_t pid, tid;
} pd_itrace_start;

/** AUXTRACE: `size` bytes of trace data follow the record in the input. */
typedef struct pd_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
} pd_auxtrace;

/** HEADER_FEATURE (pipe mode): feature id; the payload follows in the record. */
typedef struct pd_header_feature {
	uint64_t feature;
} pd_header_feature;

/** COMPRESSED / COMPRESSED2: size of the compressed payload. */
typedef struct pd_compressed {
	uint64_t data_size;
} pd_compressed;

/**
 * A record as delivered.  `data` holds the whole record (header included,
 * host byte order, `size` bytes); the union member that matches `type` is
 * decoded when the type is one listed there.  Out-of-record payloads
 * (AUXTRACE data, HEADER_TRACING_DATA) are skipped and not part of `data`.
 */
typedef struct pd_record {
	uint32_t type;
	uint16_t misc;
	uint32_t size;          /**< bytes in `data`; COMPRESSED2 may exceed 65535 */
	const void *data;
	uint64_t offset;        /**< byte offset in its stream; inner records of a
	                             compressed record: that record's offset */
	uint32_t stream;        /**< 0 = main file; N + 1 = data.N of a directory */
	bool from_compressed;   /**< came out of a COMPRESSED/COMPRESSED2 record */
	int attr;               /**< index of the owning event attr, or -1 */
	pd_sample_id sid;       /**< sample fields / sample_id_all trailer */
	union {
		pd_sample sample;
		pd_mmap mmap;
		pd_comm comm;
		pd_task task;
		pd_lost lost;
		pd_throttle throttle;
		pd_ksymbol ksymbol;
		pd_bpf_event bpf_event;
		pd_switch sw;
		pd_namespaces namespaces;
		pd_cgroup cgroup;
		pd_aux aux;
		pd_itrace_start itrace_start;
		pd_auxtrace auxtrace;
		pd_header_feature feature;
		pd_compressed compressed;
	} u;
} pd_record;

/** The record's time (sample TIME or trailer TIME), or 0 when it has none. */
#define PD_RECORD_TIME(rec) ((rec)->sid.time)

/* ------------------------------------------------------------------ events */

/**
 * One event: its perf_event_attr (the fields known to this version; a
 * larger attr's extra bytes are skipped, a smaller one's missing fields are
 * 0) and what the file says about it.
 */
typedef struct pd_attr {
	uint32_t type;
	uint32_t size;             /**< attr.size as written (0 means 64) */
	uint64_t config;
	uint64_t sample_period;    /**< a frequency when `freq` */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;            /**< the bitfield word at offset 40 */
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1, config2;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint64_t sig_data;
	uint64_t config3;
	bool freq, sample_id_all, exclude_callchain_user, exclude_callchain_kernel;
	unsigned precise_ip;
	const char *name;          /**< EVENT_DESC / EVENT_UPDATE name, or "type:config" */
	const char *pmu_name;      /**< from PMU_MAPPINGS when known, else NULL */
	size_t nr_ids;
	const uint64_t *ids;
} pd_attr;

/** attr.flags bits used by readers. */
#define PD_ATTR_FLAG_FREQ (1ull << 10)
#define PD_ATTR_FLAG_SAMPLE_ID_ALL (1ull << 18)
#define PD_ATTR_FLAG_EXCLUDE_CALLCHAIN_KERNEL (1ull << 21)
#define PD_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER (1ull << 22)

/* ---------------------------------------------------------------- header */

/** Input kinds. */
typedef enum pd_input_mode {
	PD_MODE_FILE = 0,
	PD_MODE_PIPE = 1,
	PD_MODE_DIRECTORY = 2,
} pd_input_mode;

/** Feature bits (HEADER_* in perf). */
enum pd_feature {
	PD_FEAT_TRACING_DATA = 1, PD_FEAT_BUILD_ID = 2, PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4, PD_FEAT_VERSION = 5, PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7, PD_FEAT_CPUDESC = 8, PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10, PD_FEAT_CMDLINE = 11, PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_CPU_TOPOLOGY = 13, PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15, PD_FEAT_PMU_MAPPINGS = 16,
	PD_FEAT_GROUP_DESC = 17, PD_FEAT_AUXTRACE = 18, PD_FEAT_STAT = 19,
	PD_FEAT_CACHE = 20, PD_FEAT_SAMPLE_TIME = 21, PD_FEAT_MEM_TOPOLOGY = 22,
	PD_FEAT_CLOCKID = 23, PD_FEAT_DIR_FORMAT = 24, PD_FEAT_BPF_PROG_INFO = 25,
	PD_FEAT_BPF_BTF = 26, PD_FEAT_COMPRESSED = 27, PD_FEAT_CPU_PMU_CAPS = 28,
	PD_FEAT_CLOCK_DATA = 29, PD_FEAT_HYBRID_TOPOLOGY = 30,
	PD_FEAT_PMU_CAPS = 31, PD_FEAT_CPU_DOMAIN_INFO = 32,
};

/** perf's name of a feature ("HOSTNAME"), or NULL if unknown. */
PD_EXTERN(const char *) pd_feature_name(unsigned feature);

/** One BUILD_ID feature entry or HEADER_BUILD_ID record. */
typedef struct pd_build_id {
	int32_t pid;               /**< -1: host / kernel */
	uint16_t misc;             /**< cpumode in misc & 7 */
	uint8_t size;              /**< bytes of `id` in use (20 when not stated) */
	uint8_t id[20];
	const char *path;          /**< "[kernel.kallsyms]", "/usr/bin/x", ... */
} pd_build_id;

/**
 * What the header and the feature sections say.  Strings are NULL when the
 * feature is absent, "" when present but empty.  In pipe mode the values
 * fill in as HEADER_* records are read.
 */
typedef struct pd_header_info {
	pd_input_mode mode;
	bool swapped;              /**< written with the other byte order */
	bool v1;                   /**< PERFFILE (version 1) magic */
	uint64_t file_size;        /**< bytes of the main file (0 for a pipe) */
	uint64_t data_offset, data_size; /**< file mode: the data section as stated */
	uint64_t features[4];      /**< feature bitmap (file), or features seen (pipe) */
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_available, nr_cpus_online;
	uint64_t total_mem_kb;
	size_t cmdline_nr;
	const char *const *cmdline;
	uint64_t sample_time_first, sample_time_last; /**< SAMPLE_TIME, ns */
	bool has_sample_time;
	int32_t clockid;           /**< CLOCKID feature: -1 when absent */
	uint64_t clockid_res_ns;
	bool compressed;           /**< COMPRESSED feature present */
	uint32_t comp_version, comp_type, comp_level, comp_ratio, comp_mmap_len;
	uint64_t dir_format;       /**< DIR_FORMAT version, 0 when absent */
	size_t nr_build_ids;
	const pd_build_id *build_ids;
} pd_header_info;

/* ---------------------------------------------------------------- reader */

typedef struct pd_reader pd_reader;

/** Reader flags. */
enum pd_reader_flag {
	PD_READER_FILE_ORDER = 1u << 0, /**< no timestamp ordering */
	PD_READER_NO_MMAP = 1u << 1,    /**< read regular files with read(), as a
	                                     pipe is read (file mode then needs
	                                     seeking and is refused) */
};

/**
 * Options and resource caps.  Initialise with PD_READER_OPTIONS_INIT or
 * pd_reader_options_init(&o, PD_READER_OPTIONS_VERSION), then change what
 * you need.
 *
 * A cap bounds what one hostile or corrupt input can make the reader (and
 * whoever consumes its records) allocate or walk.  A cap on records or
 * events that is exceeded stops reading with PD_ELIMIT and an error naming
 * the file, the byte offset and the option to raise; the records before it
 * are still delivered.  Feature sections are optional metadata, so a cap
 * exceeded inside one (max_feature_bytes, max_string) skips that feature
 * with a warning naming its offset, as a corrupt feature is skipped.
 *
 * The defaults never reject a file perf writes in practice:
 *   max_record_bytes  64 MiB: only COMPRESSED2 records can exceed the 64 KiB
 *                     of a u16 header size (their data_size is a u64);
 *   max_string        64 KiB: comm, file names, KSYMBOL / CGROUP names,
 *                     event names and feature strings (a kernel record,
 *                     string included, is at most 64 KiB anyway);
 *   max_callchain     4096: perf samples 127 frames unless the
 *                     kernel.perf_event_max_stack sysctl was raised; a
 *                     64 KiB record holds at most 8190;
 *   max_branches      1024: hardware branch stacks hold 8 to 64 entries
 *                     (Intel LBR 32, AMD BRS 16, Arm BRBE 64).
 *
 * Two caps are for pprof inputs (perfdiff/pprof.h), which a profile reads
 * with its session's reader options (pd_profile_add_pprof(),
 * pd_profile_add_input()); pd_pprof_open() uses the defaults:
 *   max_pprof_bytes   256 MiB: the protobuf after gunzip (a zip bomb stops
 *                     there), and the file as given;
 *   max_pprof_memory  1 GiB: what decoding the message takes, estimated
 *                     from a pass over its wire format before anything is
 *                     allocated and counted again while it is decoded
 *                     (docs/pprof.md): an export takes about 10 times its
 *                     protobuf, so this reads about 100 MB of protobuf.
 * Both stop the file with PD_ELIMIT and a message naming the option.
 */
/**
 * Progress of a reader through its input, for a caller that shows it.
 * Called from pd_reader_next() (on the thread that calls it) each time
 * another MiB of input has been read, and once more when the input has
 * been read to its end, with `bytes` == `total` for a file or a directory.
 * `bytes` never decreases; `total` is the input's size (all files of a
 * directory), or 0 when unknown (a pipe, where the last call's `bytes` is
 * what was read).  The callback may call the reader's getters
 * (pd_reader_stats_get() for records and samples, pd_reader_path()), not
 * pd_reader_next().  The library never writes to a terminal itself.
 */
typedef void (*pd_reader_progress_cb)(const pd_reader *r, uint64_t bytes, uint64_t total,
				      void *payload);

typedef struct pd_reader_options {
	unsigned int version;
	unsigned int flags;            /**< pd_reader_flag bits */
	uint32_t max_attrs;            /**< events per file (default 4096) */
	uint64_t max_ids_per_attr;     /**< sample ids per event (default 1 << 20) */
	uint64_t max_feature_bytes;    /**< one feature section (default 256 MiB) */
	uint64_t max_queue_bytes;      /**< ordering queue (default 2 GiB) */
	uint64_t max_decompressed;     /**< bytes out of one compressed record (default 64 MiB) */
	/* version 2 */
	uint64_t max_record_bytes;     /**< one record, header included (default 64 MiB) */
	uint32_t max_string;           /**< bytes of one string before its NUL (default 64 KiB) */
	uint32_t max_callchain;        /**< callchain entries of one sample (default 4096) */
	uint32_t max_branches;         /**< branch stack entries of one sample (default 1024) */
	/* version 3 */
	pd_reader_progress_cb progress; /**< NULL (default): none */
	void *progress_payload;        /**< handed to `progress` */
	/* version 4 */
	uint64_t max_pprof_bytes;      /**< a pprof input's protobuf (default 256 MiB) */
	uint64_t max_pprof_memory;     /**< a pprof input decoded (default 1 GiB) */
	/* version 5 */
	pd_warn_fn warn;               /**< each warning as it is kept (common.h),
	                                    with the reader's path; NULL (default):
	                                    poll pd_reader_warning() */
	void *warn_ctx;                /**< handed to `warn` */
} pd_reader_options;

/*
 * Version 2 added the fields after max_decompressed, version 3 the
 * progress callback, version 4 the pprof caps, version 5 the warning sink.  A caller built with an older version still works:
 * its smaller struct is read up to its last field and the newer ones take
 * their defaults.
 */
#define PD_READER_OPTIONS_VERSION 5

/** The defaults, for C callers: `pd_reader_options o = PD_READER_OPTIONS_INIT;`
 * (a compound literal; the fields not named are 0). */
#define PD_READER_OPTIONS_INIT                                                 \
	((pd_reader_options){ .version = PD_READER_OPTIONS_VERSION,            \
			      .max_attrs = 4096,                               \
			      .max_ids_per_attr = 1u << 20,                    \
			      .max_feature_bytes = 256ull << 20,               \
			      .max_queue_bytes = 2ull << 30,                   \
			      .max_decompressed = 64ull << 20,                 \
			      .max_record_bytes = 64ull << 20,                 \
			      .max_string = 64u << 10,                         \
			      .max_callchain = 4096,                           \
			      .max_branches = 1024,                            \
			      .max_pprof_bytes = 256ull << 20,                 \
			      .max_pprof_memory = 1ull << 30 })

/**
 * Fill `opts` with the defaults of PD_READER_OPTIONS_INIT as far as
 * `version` went, and set `opts->version` to `version`; pass
 * PD_READER_OPTIONS_VERSION.  Only the fields of that version are written,
 * so that a program built against an older header, whose struct is
 * smaller, may run against a newer library (libgit2's
 * git_diff_options_init()).
 * @return 0, or PD_EINVAL for a NULL `opts` or a version of 0 or newer
 *         than the library's (nothing written)
 */
PD_EXTERN(int) pd_reader_options_init(pd_reader_options *opts, unsigned version);

/**
 * Open a perf.data file, a `perf record --threads` directory, or standard
 * input ("-").  Reads the header, the attrs and (file mode) the feature
 * sections; records are read by pd_reader_next().
 *
 * @param out   the new reader; set only on success
 * @param path  file, directory or "-"
 * @param opts  options, or NULL for the defaults
 * @param err   filled on failure (may be NULL)
 * @return 0, or PD_EIO / PD_ENOTPERF / PD_EUNSUPPORTED / PD_ECORRUPT /
 *         PD_ELIMIT / PD_ENOMEM / PD_EINVAL
 */
PD_EXTERN(int) pd_reader_open(pd_reader **out, const char *path,
			      const pd_reader_options *opts, pd_error *err);

/**
 * Open from a file descriptor.  A regular file is mmap'd; anything else is
 * read as a stream (pipe mode only).  The reader does not close `fd`.
 * `name` is used in messages (e.g. "<stdin>").
 */
PD_EXTERN(int) pd_reader_open_fd(pd_reader **out, int fd, const char *name,
				 const pd_reader_options *opts, pd_error *err);

/** Close a reader and free everything it owns.  NULL is allowed. */
PD_EXTERN(void) pd_reader_free(pd_reader *r);

/**
 * Deliver the next record.
 *
 * @return 0 with `*out` set; PD_ITEROVER at the end; a negative error code
 *         (with `err` filled) when the input is corrupt or unreadable.  After
 *         an error or PD_ITEROVER every further call returns the same code.
 */
PD_EXTERN(int) pd_reader_next(pd_reader *r, const pd_record **out, pd_error *err);

/** Callback for pd_reader_foreach(); return non-zero to stop (that value is returned). */
typedef int (*pd_record_cb)(const pd_record *rec, void *payload);

/**
 * Call `cb` for every remaining record.  Returns 0 at the end, the
 * callback's non-zero value if it stopped, or a negative error code.
 */
PD_EXTERN(int) pd_reader_foreach(pd_reader *r, pd_record_cb cb, void *payload,
				 pd_error *err);

/** Header facts (updated in pipe mode as header records arrive). */
PD_EXTERN(const pd_header_info *) pd_reader_header(const pd_reader *r);

/**
 * The CLOCK_DATA feature (perf record -k/--clockid, perf 5.12 and later):
 * a wall-clock time (ns since the epoch, UTC) and the time of the
 * samples' clock taken at the same moment, so that a sample time t is the
 * wall-clock time *tod_ns + (t - *clock_ns), as `perf script -F tod`
 * prints it.  Either pointer may be NULL.
 * @return false when the recording has no (version 1) CLOCK_DATA
 */
PD_EXTERN(bool) pd_reader_clock_data(const pd_reader *r, uint64_t *tod_ns,
				     uint64_t *clock_ns);

/** Number of events known so far (all of them in file mode). */
PD_EXTERN(size_t) pd_reader_attr_count(const pd_reader *r);

/** Event `i`, or NULL when out of range.  Valid until pd_reader_free(). */
PD_EXTERN(const pd_attr *) pd_reader_attr(const pd_reader *r, size_t i);

/** Number of warnings so far (truncation, trailing garbage, ...). */
PD_EXTERN(size_t) pd_reader_warning_count(const pd_reader *r);

/** Warning `i` as a message naming the file and offset, or NULL. */
PD_EXTERN(const char *) pd_reader_warning(const pd_reader *r, size_t i);

/** What warning `i` means (common.h): PD_WARN_DATA_LOST for an input that
 *  is incomplete (a cut, a garbage tail), PD_WARN_METADATA for a header
 *  section skipped that is there; PD_WARN_OTHER when out of range.  A warning of data
 *  lost is never dropped by the cap on stored warnings. */
PD_EXTERN(pd_warning_kind) pd_reader_warning_kind(const pd_reader *r, size_t i);

/** The path or name the reader was opened with. */
PD_EXTERN(const char *) pd_reader_path(const pd_reader *r);

/**
 * Counters of what was read so far.  Records inside compressed records are
 * counted by their own type (and also in `compressed_inner`).
 */
typedef struct pd_reader_stats {
	uint64_t records;              /**< all records, inner ones included */
	uint64_t by_type[128];         /**< types 0..127 */
	uint64_t unknown_types;        /**< records with type >= 128 (skipped by size) */
	uint64_t compressed_inner;     /**< records that came out of compressed ones */
	uint64_t bytes_read;           /**< input bytes consumed */
	uint64_t bytes_decompressed;
	uint64_t lost;                 /**< sum of LOST.lost */
	uint64_t lost_samples;         /**< sum of LOST_SAMPLES.lost */
	uint64_t unattributed;         /**< samples whose id matched no attr */
	uint64_t out_of_order;         /**< kernel records older than one already delivered */
	uint64_t oversized_sideband;   /**< KSYMBOL and BPF_EVENT records whose size exceeds
					    body + sample_id trailer (a kernel bug: stale bytes
					    follow), their trailer read after the body */
} pd_reader_stats;

/** Counters so far. */
PD_EXTERN(const pd_reader_stats *) pd_reader_stats_get(const pd_reader *r);

/** Samples delivered so far for event `i` (0 when out of range). */
PD_EXTERN(uint64_t) pd_reader_attr_samples(const pd_reader *r, size_t i);

#ifdef __cplusplus
}
#endif

#endif
