/*
 * Record-type and feature names, spelled as perf prints them (perf report
 * --stats, perf script -D) so output and test expectations can be compared
 * with perf's own.
 */
#include "internal.h"

static const char *const kernel_names[] = {
	[PD_RECORD_MMAP] = "MMAP",
	[PD_RECORD_LOST] = "LOST",
	[PD_RECORD_COMM] = "COMM",
	[PD_RECORD_EXIT] = "EXIT",
	[PD_RECORD_THROTTLE] = "THROTTLE",
	[PD_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PD_RECORD_FORK] = "FORK",
	[PD_RECORD_READ] = "READ",
	[PD_RECORD_SAMPLE] = "SAMPLE",
	[PD_RECORD_MMAP2] = "MMAP2",
	[PD_RECORD_AUX] = "AUX",
	[PD_RECORD_ITRACE_START] = "ITRACE_START",
	[PD_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PD_RECORD_SWITCH] = "SWITCH",
	[PD_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PD_RECORD_NAMESPACES] = "NAMESPACES",
	[PD_RECORD_KSYMBOL] = "KSYMBOL",
	[PD_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PD_RECORD_CGROUP] = "CGROUP",
	[PD_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PD_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PD_RECORD_CALLCHAIN_DEFERRED] = "CALLCHAIN_DEFERRED",
};

/* perf-tool records start at 64; indexed by type - 64. */
static const char *const tool_names[] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA",
	"HEADER_BUILD_ID", "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO",
	"AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
	"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "HEADER_FEATURE",
	"COMPRESSED", "FINISHED_INIT", "COMPRESSED2", "BPF_METADATA",
	"SCHEDSTAT_CPU", "SCHEDSTAT_DOMAIN",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *pd_record_type_name(uint32_t type)
{
	if (type < NELEM(kernel_names))
		return kernel_names[type]; /* NULL for the hole at 0 */
	if (type >= PD_RECORD_HEADER_ATTR && type - PD_RECORD_HEADER_ATTR < NELEM(tool_names))
		return tool_names[type - PD_RECORD_HEADER_ATTR];
	return NULL;
}

/* Indexed by feature bit; bit 0 is reserved in perf (HEADER_RESERVED). */
static const char *const feature_names[] = {
	[PD_FEAT_TRACING_DATA] = "TRACING_DATA",
	[PD_FEAT_BUILD_ID] = "BUILD_ID",
	[PD_FEAT_HOSTNAME] = "HOSTNAME",
	[PD_FEAT_OSRELEASE] = "OSRELEASE",
	[PD_FEAT_VERSION] = "VERSION",
	[PD_FEAT_ARCH] = "ARCH",
	[PD_FEAT_NRCPUS] = "NRCPUS",
	[PD_FEAT_CPUDESC] = "CPUDESC",
	[PD_FEAT_CPUID] = "CPUID",
	[PD_FEAT_TOTAL_MEM] = "TOTAL_MEM",
	[PD_FEAT_CMDLINE] = "CMDLINE",
	[PD_FEAT_EVENT_DESC] = "EVENT_DESC",
	[PD_FEAT_CPU_TOPOLOGY] = "CPU_TOPOLOGY",
	[PD_FEAT_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[PD_FEAT_BRANCH_STACK] = "BRANCH_STACK",
	[PD_FEAT_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[PD_FEAT_GROUP_DESC] = "GROUP_DESC",
	[PD_FEAT_AUXTRACE] = "AUXTRACE",
	[PD_FEAT_STAT] = "STAT",
	[PD_FEAT_CACHE] = "CACHE",
	[PD_FEAT_SAMPLE_TIME] = "SAMPLE_TIME",
	[PD_FEAT_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
	[PD_FEAT_CLOCKID] = "CLOCKID",
	[PD_FEAT_DIR_FORMAT] = "DIR_FORMAT",
	[PD_FEAT_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[PD_FEAT_BPF_BTF] = "BPF_BTF",
	[PD_FEAT_COMPRESSED] = "COMPRESSED",
	[PD_FEAT_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
	[PD_FEAT_CLOCK_DATA] = "CLOCK_DATA",
	[PD_FEAT_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	[PD_FEAT_PMU_CAPS] = "PMU_CAPS",
	[PD_FEAT_CPU_DOMAIN_INFO] = "CPU_DOMAIN_INFO",
};

const char *pd_feature_name(unsigned feature)
{
	return feature < NELEM(feature_names) ? feature_names[feature] : NULL;
}
