/*
 * A recording's options by version (perfdiff/record.h).  Built whether or
 * not the sampler is (none.c stands for it without libbpf, clang or the
 * kernel's BTF), so that a program fills its options the same way against
 * any build and learns what is missing from pd_recorder_new().
 */
#include "internal.h"

const size_t rec_option_sizes[2] = {
	0, PD_OPTIONS_END(pd_recorder_options, stacks),
};

int pd_recorder_options_init(pd_recorder_options *o, unsigned version)
{
	const pd_recorder_options d = PD_RECORDER_OPTIONS_INIT;
	return pd_options_init(o, version, &d, rec_option_sizes, PD_RECORDER_OPTIONS_VERSION);
}
