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
 *
 * The profile is then compared by the diff engine: with itself (which
 * must give no relation, no significant row and equal sides: a check of
 * the engine, not only of its memory safety), and against fixed profiles
 * of tests/data/fp.data built once at the first input, in both roles:
 * the fuzzed profile as the new side of a tree-rows diff, and, read the
 * robot's way, as the base of a diff of the robot's keys.  The fixed
 * profiles are only read afterwards (pd_diff_new() takes them const), so
 * an input replays the same alone as within a run.  Every row and
 * relation is walked.
 *
 * The default profile keeps its sites (PD_PROFILE_KEEP_SITES, the CPU too
 * when the input's last byte is odd), as `report --format=pprof` folds:
 * it is exported as pprof and read back, which must give the same sample
 * totals per event.
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

/* The kernel of the diffs' new side (read the robot's way): one function
 * renamed, one split in two, one module function renamed, so that the
 * diffs have shifts to explain wherever an input has kernel samples. */
static const char kallsyms_b_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_one_initcall\n"
	"ffffffff81001100 t __pfx_native_write_msr_safe\n"
	"ffffffff81001110 t native_write_msr_safe\n"
	"ffffffff81002000 T ksys_read\n"
	"ffffffff81003000 W memset\n"
	"ffffffff81003000 T __memset\n"
	"ffffffff81004000 T asm_sysvec_apic_timer_interrupt\n"
	"ffffffff81005000 T entry_SYSCALL_64\n"
	"ffffffff81006000 D some_data\n"
	"ffffffff81400000 t entry_SYSCALL_64.cold\n"
	"ffffffff81e00000 T _etext\n"
	"ffffffffc0000000 t ext4_read_folio\t[ext4]\n"
	"ffffffffc0001000 t ext4_writepage\t[ext4]\n";

/* Set up once per process; the harness (not the library) may keep state. */
static char g_dir[64], g_kallsyms[128], g_kallsyms_b[128], g_buildid[128], g_jit[128],
	g_symfs[128];
static int g_ready = -1;
/* the diffs' other side (NULL where fp.data cannot be read) */
static pd_profile *g_ref, *g_ref_lkp;

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
	pd_profile_free(g_ref);
	pd_profile_free(g_ref_lkp);
	g_ref = g_ref_lkp = NULL;
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
	snprintf(g_kallsyms_b, sizeof g_kallsyms_b, "%s/kallsyms-b", g_dir);
	FILE *f = fopen(g_kallsyms, "w");
	if (!f || fputs(kallsyms_text, f) < 0 || fclose(f) != 0)
		return -1;
	f = fopen(g_kallsyms_b, "w");
	if (!f || fputs(kallsyms_b_text, f) < 0 || fclose(f) != 0)
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

/* The bits of a double: values may be anything (rates of a garbage span) */
static uint64_t dbits(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

/* Every byte a sample's record points to. */
static uint64_t record_sum(const pd_record *rec)
{
	if (!rec || rec->type != PD_RECORD_SAMPLE)
		return 0;
	const pd_sample *smp = &rec->u.sample;
	uint64_t x = rec->size ? ((const uint8_t *)rec->data)[rec->size - 1] : 0;
	for (uint64_t i = 0; smp->callchain && i < smp->callchain_nr; i++)
		x += smp->callchain[i];
	for (uint64_t i = 0; smp->branches && i < smp->branch_nr; i++)
		x += smp->branches[i].from ^ smp->branches[i].to;
	if (smp->regs_user && smp->regs_user_abi)
		for (int i = 0; i < __builtin_popcountll(smp->regs_user_mask); i++)
			x += smp->regs_user[i];
	if (smp->stack_user && smp->stack_user_size)
		x += smp->stack_user[0] + smp->stack_user[smp->stack_user_size - 1];
	if (smp->raw && smp->raw_size)
		x += ((const uint8_t *)smp->raw)[smp->raw_size - 1];
	return x;
}

/* The session of every read: nothing from the host but the fixtures. */
static void session_options(pd_session_options *opts, pd_reader_options *ropts)
{
	pd_session_options_init(opts, PD_SESSION_OPTIONS_VERSION);
	pd_reader_options_init(ropts, PD_READER_OPTIONS_VERSION);
	opts->reader = ropts;
	opts->flags = PD_SESSION_SRCLINE;
	opts->kallsyms = g_kallsyms;
	opts->buildid_dir = g_buildid;
	opts->jit_dir = g_jit;
	opts->symfs = g_symfs;
	/* keep single inputs cheap: the caps are what is being exercised */
	ropts->max_queue_bytes = 64u << 20;
	ropts->max_decompressed = 16u << 20;
}

/* A profile of `path` read with the fixed session (the robot's reading
 * and the second kernel when `lkp`); NULL when it cannot be made or read
 * at all. */
static pd_profile *profile_of(const char *path, bool lkp)
{
	pd_profile_options popts;
	pd_session_options sopts;
	pd_reader_options ropts;
	pd_profile_options_init(&popts, PD_PROFILE_OPTIONS_VERSION);
	session_options(&sopts, &ropts);
	popts.session = &sopts;
	if (lkp) {
		pd_lkp_profile_options(&popts, &sopts);
		sopts.kallsyms = g_kallsyms_b;
	}
	pd_profile *p;
	pd_error err;
	if (pd_profile_new(&p, &popts, &err) < 0)
		return NULL;
	if (pd_profile_add_file(p, path, &err) < 0 && err.message[0] == '\0')
		abort();
	if (pd_profile_run_count(p) == 0) {
		pd_profile_free(p);
		return NULL;
	}
	return p;
}

#ifndef PD_FUZZ_REF_DATA
#define PD_FUZZ_REF_DATA "tests/data/fp.data"
#endif

static void setup_refs(void)
{
	g_ref = profile_of(PD_FUZZ_REF_DATA, false);
	g_ref_lkp = profile_of(PD_FUZZ_REF_DATA, true);
}

/* Walk every row and relation of `d`, checking what must hold whatever
 * the input: sides of the diff's run counts, relations from its own
 * list, finite shares; `self`: a profile against itself. */
static uint64_t walk_diff(const pd_diff *d, bool self)
{
	uint64_t sink = slen(pd_diff_event(d)) + (uint64_t)pd_diff_test(d);
	size_t nrel = pd_diff_relation_count(d), nrows = pd_diff_row_count(d);
	const pd_diff_relation *rel0 = pd_diff_relation_at(d, 0);
	if (self && nrel != 0)
		abort(); /* identical trees align exactly */
	for (size_t i = 0; i < nrel; i++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, i);
		if (!r || !pd_diff_relation_kind_name(r->kind) || !r->evidence || !r->dso)
			abort();
		for (size_t k = 0; k < r->nbase_symbols; k++)
			sink += slen(r->base_symbols[k]);
		for (size_t k = 0; k < r->nnew_symbols; k++)
			sink += slen(r->new_symbols[k]);
		sink += slen(r->base_symbol) + slen(r->new_symbol) + slen(r->base_parent) +
			slen(r->new_parent) + slen(r->evidence);
		sink += dbits(r->net) + dbits(r->score);
	}
	for (int side = 0; side < 2; side++)
		sink += pd_diff_total(d, side, SIZE_MAX) + pd_diff_samples(d, side, SIZE_MAX) +
			pd_diff_span(d, side, SIZE_MAX);
	const char *bd, *nd;
	double sim;
	for (size_t i = 0; pd_diff_dso_pair_at(d, i, &bd, &nd, &sim); i++)
		sink += slen(bd) + slen(nd);
	double phi0, d0;
	size_t prior_rows;
	if (pd_diff_test_prior(d, &phi0, &d0, &prior_rows))
		sink += prior_rows;
	char line[512];
	for (size_t i = 0; i < nrows; i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (!r || !r->key || !pd_diff_metric_name(r->metric))
			abort();
		if (r->relation && (nrel == 0 || (uintptr_t)r->relation < (uintptr_t)rel0 ||
				    (uintptr_t)r->relation >= (uintptr_t)(rel0 + nrel)))
			abort(); /* a relation from elsewhere */
		sink += slen(r->key) + slen(r->symbol) + slen(r->dso);
		const pd_diff_side *sd[2] = { &r->base, &r->new };
		for (int k = 0; k < 2; k++) {
			for (size_t run = 0; run < sd[k]->nruns; run++)
				sink += dbits(sd[k]->runs[run]);
			if (sd[k]->present > sd[k]->nruns || sd[k]->mean != sd[k]->mean)
				abort();
		}
		if (self && (r->significant || r->change != 0 || r->base.mean != r->new.mean))
			abort(); /* nothing changed */
		sink += (uint64_t)r->significant + dbits(r->q_value);
		sink += pd_diff_format_lkp_row(line, sizeof line, r->base.mean, r->base.stddev,
					       r->new.mean, r->new.stddev, r->key);
	}
	return sink;
}

/* `p` (with sites) as pprof and read back: the same samples and period
 * per event, or an export error that says why. */
static uint64_t pprof_round_trip(pd_profile *p)
{
	void *buf;
	size_t len;
	pd_error err;
	memset(&err, 0, sizeof err);
	if (pd_profile_write_pprof_buffer(p, &buf, &len, NULL, &err) < 0) {
		if (err.message[0] == '\0')
			abort();
		return 0;
	}
	pd_profile *q;
	if (pd_profile_new(&q, NULL, &err) < 0 ||
	    pd_profile_add_pprof_buffer(q, buf, len, "export", &err) < 0)
		abort(); /* what the library wrote, it reads */
	/* summed over events: a hostile file may name two events alike */
	uint64_t n[2] = { 0, 0 }, t[2] = { 0, 0 };
	const pd_profile *side[2] = { p, q };
	for (int i = 0; i < 2; i++)
		for (size_t ev = 0; ev < pd_profile_event_count(side[i]); ev++) {
			n[i] += pd_profile_samples(side[i], ev, SIZE_MAX);
			t[i] += pd_profile_total(side[i], ev, SIZE_MAX);
		}
	if (n[0] != n[1] || t[0] != t[1])
		abort();
	uint64_t sink = len + n[0];
	pd_profile_free(q);
	free(buf);
	return sink;
}

/* Compare, walk, free; every failure must say why.  `knobs` (the last
 * byte of the input, which a perf.data does not miss) loosens the
 * evidence relations need, so that inputs near fp.data reach every kind,
 * and picks the depth and the absolute mode. */
static uint64_t fuzz_diff(const pd_profile *base, const pd_profile *new_, unsigned flags,
			  unsigned knobs, bool self)
{
	if (!base || !new_)
		return 0;
	pd_diff_options o;
	pd_diff_options_init(&o, PD_DIFF_OPTIONS_VERSION);
	o.flags = flags;
	if (knobs & 0x100) {
		o.rename_score = (knobs & 3) * 0.2;
		o.cost_tolerance = ((knobs >> 2) & 3) / 3.0;
		o.depth = (knobs >> 4) & 3;
		if (knobs & 0x40)
			o.flags |= PD_DIFF_ABSOLUTE;
		if (knobs & 0x80)
			o.min_change = 0;
	}
	pd_diff *d;
	pd_error err;
	memset(&err, 0, sizeof err);
	if (pd_diff_new(&d, base, new_, &o, &err) < 0) {
		if (err.message[0] == '\0')
			abort();
		return 0;
	}
	uint64_t sink = walk_diff(d, self);
#ifdef PD_FUZZ_COUNT /* -DPD_FUZZ_COUNT, -runs=0 on a corpus: what its diffs reach */
	fprintf(stderr, "diff flags %u: %zu rows, %zu relations\n", flags, pd_diff_row_count(d),
		pd_diff_relation_count(d));
	for (size_t i = 0; i < pd_diff_relation_count(d); i++)
		fprintf(stderr, "rel %s %s -> %s\n",
			pd_diff_relation_kind_name(pd_diff_relation_at(d, i)->kind),
			pd_diff_relation_at(d, i)->base_symbol, pd_diff_relation_at(d, i)->new_symbol);
#endif
	pd_diff_free(d);
	return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (g_ready < 0) {
		g_ready = setup() == 0;
		if (g_ready)
			setup_refs();
	}
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
	pd_reader_options ropts;
	session_options(&opts, &ropts);
	/* samples read while the kernel table loads are held as copies:
	 * their record's arrays are read below, so a copy that points
	 * anywhere but into its own bytes shows under ASan */
	opts.flags |= PD_SESSION_READ_AHEAD;

	pd_session *s;
	pd_error err;
	volatile uint64_t sink = 0;
	if (pd_session_open(&s, path, &opts, &err) == 0) {
		const pd_resolved_sample *rs;
		int rc;
		while ((rc = pd_session_next(s, &rs, &err)) == 0) {
			sink += rs->pid + rs->tid + rs->time + rs->period + slen(rs->comm);
			sink += record_sum(rs->record);
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
	pd_profile_options_init(&popts, PD_PROFILE_OPTIONS_VERSION);
	popts.session = &opts;
	popts.flags = PD_PROFILE_KEEP_SITES |
		      (size && (data[size - 1] & 1) ? PD_PROFILE_KEEP_CPU : 0);
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
		if (pd_profile_run_count(p) == 0) {
			pd_profile_free(p);
			p = NULL;
		} else {
			sink += pprof_round_trip(p);
		}
	} else {
		p = NULL;
	}
	/* the robot's reading drops inline frames and keeps clone suffixes:
	 * against the default reading, a diff with shifts to explain */
	pd_profile *pl = profile_of(path, true);
	unsigned knobs = size ? 0x100u | data[size - 1] : 0;
	sink += fuzz_diff(p, p, 0, 0, true);
	sink += fuzz_diff(g_ref, p, PD_DIFF_TREE_ROWS, knobs, false);
	sink += fuzz_diff(p, pl, 0, knobs, false);
	sink += fuzz_diff(pl, g_ref_lkp, PD_DIFF_TREE_ROWS | PD_DIFF_LKP_KEYS, 0, false);
	pd_profile_free(p);
	pd_profile_free(pl);
	(void)sink;
	close(fd);
	return 0;
}
