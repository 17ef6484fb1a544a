/*
 * libFuzzer harness for the whole read → address space → symbolize → fold
 * path: the input is a file-mode perf.data, opened through a memfd's
 * /proc/self/fd path with pd_session_open(), and every sample's frames are
 * read string by string; then the same bytes are folded into a profile and
 * its flat view and the robot's keys are computed.
 *
 * Nothing on the host may change the outcome, so that a crash replays:
 * the session gets a fixed kallsyms file, an empty build-id cache, an empty
 * perf-PID.map directory and a symfs holding only copies of libc and the
 * dynamic loader (the fixtures were recorded on this machine, so their
 * build-ids match and samples there exercise the ELF and DWARF paths).
 * These live in one temporary directory made at the first input.
 */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdiff/perfdiff.h"
#include "perfdiff/session.h"

static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_one_initcall\n"
	"ffffffff81001100 t __pfx_native_write_msr\n"
	"ffffffff81001110 t native_write_msr\n"
	"ffffffff81002000 T __x64_sys_read\n"
	"ffffffff81002000 T __ia32_sys_read\n"
	"ffffffff81003000 W memset\n"
	"ffffffff81003000 T __memset\n"
	"ffffffff81004000 T asm_sysvec_apic_timer_interrupt\n"
	"ffffffff81005000 T entry_SYSCALL_64\n"
	"ffffffff81006000 D some_data\n"
	"ffffffff81e00000 T _etext\n"
	"ffffffffc0000000 t ext4_readpage\t[ext4]\n"
	"ffffffffc0001000 t ext4_writepage\t[ext4]\n";

/* Set up once per process; the harness (not the library) may keep state. */
static char g_dir[64], g_kallsyms[128], g_buildid[128], g_jit[128], g_symfs[128];
static int g_ready = -1;

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb");
	if (!in)
		return -1;
	FILE *out = fopen(to, "wb");
	if (!out) {
		fclose(in);
		return -1;
	}
	char buf[65536];
	size_t n;
	int rc = 0;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	fclose(in);
	if (fclose(out) != 0)
		rc = -1;
	return rc;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* libFuzzer leaves through exit() when its time is up */
static void cleanup(void)
{
	if (g_dir[0])
		nftw(g_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int setup(void)
{
	snprintf(g_dir, sizeof g_dir, "/tmp/pd-fuzz-session-XXXXXX");
	if (!mkdtemp(g_dir)) {
		g_dir[0] = '\0';
		return -1;
	}
	atexit(cleanup);
	snprintf(g_kallsyms, sizeof g_kallsyms, "%s/kallsyms", g_dir);
	snprintf(g_buildid, sizeof g_buildid, "%s/buildid", g_dir);
	snprintf(g_jit, sizeof g_jit, "%s/jit", g_dir);
	snprintf(g_symfs, sizeof g_symfs, "%s/symfs", g_dir);
	FILE *f = fopen(g_kallsyms, "w");
	if (!f || fputs(kallsyms_text, f) < 0 || fclose(f) != 0)
		return -1;
	if (mkdir(g_buildid, 0755) < 0 || mkdir(g_jit, 0755) < 0 || mkdir(g_symfs, 0755) < 0)
		return -1;
	char d[256], p[256];
	snprintf(d, sizeof d, "%s/usr", g_symfs);
	mkdir(d, 0755);
	snprintf(d, sizeof d, "%s/usr/lib", g_symfs);
	mkdir(d, 0755);
	snprintf(d, sizeof d, "%s/usr/lib/x86_64-linux-gnu", g_symfs);
	mkdir(d, 0755);
	static const char *const libs[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6",
					    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" };
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
		snprintf(p, sizeof p, "%s%s", g_symfs, libs[i]);
		copy_file(libs[i], p); /* absent on other hosts: frames stay unknown */
	}
	return 0;
}

static uint64_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (g_ready < 0)
		g_ready = setup() == 0;
	if (!g_ready)
		abort(); /* the harness cannot run deterministically */

	int fd = memfd_create("fuzz.data", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	pd_session_options opts;
	pd_session_options_init(&opts);
	opts.flags = PD_SESSION_SRCLINE;
	opts.kallsyms = g_kallsyms;
	opts.buildid_dir = g_buildid;
	opts.jit_dir = g_jit;
	opts.symfs = g_symfs;
	/* keep single inputs cheap: the caps are what is being exercised */
	opts.reader.max_queue_bytes = 64u << 20;
	opts.reader.max_decompressed = 16u << 20;

	pd_session *s;
	pd_error err;
	volatile uint64_t sink = 0;
	if (pd_session_open(&s, path, &opts, &err) == 0) {
		const pd_resolved_sample *rs;
		int rc;
		while ((rc = pd_session_next(s, &rs, &err)) == 0) {
			sink += rs->pid + rs->tid + rs->time + rs->period + slen(rs->comm);
			for (size_t i = 0; i < rs->nframes; i++) {
				const pd_frame *f = &rs->frames[i];
				sink += f->addr + f->line + f->dso_addr + f->symbol_offset;
				sink += slen(f->symbol) + slen(f->raw_symbol) + slen(f->srcfile);
				if (!f->dso)
					abort(); /* every frame names its dso, "[unknown]" at least */
				sink += slen(f->dso);
			}
		}
		if (rc != PD_ITEROVER && err.message[0] == '\0')
			abort(); /* every error must say what happened */
		for (size_t i = 0; i < pd_session_warning_count(s); i++)
			sink += slen(pd_session_warning(s, i));
		const pd_unresolved_count *u;
		size_t nu = pd_session_unresolved(s, &u);
		for (size_t i = 0; i < nu; i++)
			sink += slen(u[i].dso) + u[i].samples;
		pd_session_free(s);
	} else if (err.message[0] == '\0') {
		abort();
	}

	pd_profile_options popts;
	pd_profile_options_init(&popts);
	popts.session = opts;
	pd_profile *p;
	if (pd_profile_new(&p, &popts, &err) == 0) {
		if (pd_profile_add_file(p, path, &err) < 0 && err.message[0] == '\0')
			abort();
		for (size_t ev = 0; ev < pd_profile_event_count(p); ev++) {
			const pd_flat_entry *fe;
			size_t nf;
			if (pd_profile_flat(p, ev, &fe, &nf, &err) == 0)
				for (size_t i = 0; i < nf; i++)
					sink += slen(fe[i].symbol) + slen(fe[i].dso) + fe[i].self +
						fe[i].children;
		}
		pd_lkp_key *keys;
		size_t nk;
		if (pd_lkp_keys(&keys, &nk, p, PD_LKP_ALL_EVENTS, 0, &err) == 0) {
			for (size_t i = 0; i < nk; i++)
				sink += slen(keys[i].key);
			pd_lkp_keys_free(keys, nk);
		}
		pd_profile_free(p);
	}
	(void)sink;
	close(fd);
	return 0;
}
