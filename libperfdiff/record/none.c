/*
 * A library built without the BPF sampler (PERFDIFF_RECORD=OFF, or
 * PERFDIFF_BPF=OFF, or no clang, bpftool or kernel BTF at build time): the
 * calls of perfdiff/record.h are still there, so that a program links
 * against any build.  pd_recorder_new() fails with PD_EUNSUPPORTED and a
 * sentence saying why; no recording can exist, so the calls that take one
 * refuse the NULL they can only be given.
 */
#include "internal.h"

int pd_recorder_new(pd_recorder **out, const pd_recorder_options *o, pd_error *err)
{
	(void)o;
	if (out)
		*out = NULL;
	return pd_error_reason(err, PD_EUNSUPPORTED,
			       "this perfdiff was built without BPF sampling (PERFDIFF_RECORD "
			       "needs libbpf, clang, bpftool and the kernel's BTF at build time)");
}

/* PD_EINVAL: every call below can only be given the NULL recording. */
static int no_recording(pd_error *err)
{
	return pd_error_reason(err, PD_EINVAL, "no recording (built without BPF sampling)");
}

int pd_recorder_add_pid(pd_recorder *r, uint32_t pid, pd_error *err)
{
	(void)r, (void)pid;
	return no_recording(err);
}

int pd_recorder_start(pd_recorder *r, pd_error *err)
{
	(void)r;
	return no_recording(err);
}

int pd_recorder_wait(pd_recorder *r, int ms, pd_error *err)
{
	(void)r, (void)ms;
	return no_recording(err);
}

int pd_recorder_poll(pd_recorder *r, pd_error *err)
{
	(void)r;
	return no_recording(err);
}

int pd_recorder_stop(pd_recorder *r, pd_error *err)
{
	(void)r;
	return no_recording(err);
}

int pd_recorder_stats_get(const pd_recorder *r, pd_recorder_stats *out, unsigned version)
{
	(void)r, (void)out, (void)version;
	return PD_EINVAL;
}

int pd_recorder_write_perf(pd_recorder *r, FILE *f, const char *name, pd_error *err)
{
	(void)r, (void)f, (void)name;
	return no_recording(err);
}

int pd_recorder_add_to_profile(pd_recorder *r, pd_profile *p, pd_error *err)
{
	(void)r, (void)p;
	return no_recording(err);
}

void pd_recorder_clear(pd_recorder *r)
{
	(void)r;
}

void pd_recorder_free(pd_recorder *r)
{
	(void)r;
}
