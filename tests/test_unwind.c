/*
 * DWARF unwinding (libdw back end) against perf itself, and on broken
 * input.
 *
 *   - tests/workloads/unwind.c, built with -O2 -g -fomit-frame-pointer and
 *     recorded here with `perf record -N -e cpu-clock --call-graph dwarf`:
 *     every sample's user frames (address within the dso and function,
 *     inline frames included) against `perf script`.
 *   - the same recording with each sample's stack copy cut short or its
 *     registers garbled: no crash (run under ASan), the stack is counted as
 *     truncated, and what is unwound is a prefix of the real stack.
 *   - PD_SESSION_READ_AHEAD, on a `--call-graph dwarf` recording of dd
 *     (kernel frames in nearly every sample): the samples it held while the
 *     kernel's symbol table loaded, and all after, equal a plain session's,
 *     byte for byte (record, stack copy, frames, names).
 *
 * perf 6.1 names the function containing an address by its DWARF name,
 * marked "(inlined)", when that differs from the ELF symbol
 * (init_cpu_features vs init_cpu_features.constprop.0,
 * __memcpy_avx512_unaligned_erms vs its alias __memmove_...); libperfdiff
 * keeps the ELF symbol.  Such a pair counts as equal, and is counted.
 * perf ends a stack it could not unwind to the end (the 8 KiB stack copy
 * is too short) with a frame ffffffffffffffff [unknown]; libperfdiff counts
 * the stack as truncated instead (pd_session_truncated()).
 *
 * Two known perf 6.1 differences are counted apart, and accepted:
 *   - the signal trampoline: libdw marks the __restore_rt frame as an
 *     activation (its CFI is a signal frame), so its address is exact and
 *     names __restore_rt; perf takes one off it anyway and lands on the
 *     padding before the symbol ("3c04f [unknown]");
 *   - libc's IRELATIVE PLT slots: perf prints "@plt" without the name that
 *     the relocation gives ("memcpy@plt").
 */
#include "testutil.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdiff/session.h"
#include "session/session.h" /* internal: the read-ahead's cap and count */

#define WORKLOAD_DIR PD_TEST_DATA_DIR "/../workloads"
#define PATHMAX 4096
/* perf's chains and ours, in pd_test_pstack form (testutil.h): `cut`
 * marks a perf chain that ended in perf's ffffffffffffffff marker. */
typedef pd_test_pframe ent;
typedef pd_test_pstack stack;
typedef pd_test_pstacks stacks;

static void strip_markers(stacks *s)
{
	for (size_t i = 0; i < s->n; i++) {
		stack *st = &s->v[i];
		if (st->n > 0 && st->f[st->n - 1].addr == UINT64_MAX) {
			free(st->f[--st->n].name);
			st->cut = true;
		}
	}
}

/* Our user frames, as perf would print them (PD_SESSION_PERF_COMPAT: a
 * return address minus one). */
static void ours_of(const pd_resolved_sample *rs, stack *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->f[i].name);
	st->n = 0;
	st->tid = rs->tid;
	st->time = rs->time;
	for (size_t i = 0; i < rs->nframes; i++) {
		const pd_frame *f = &rs->frames[i];
		if (f->cpumode == PD_CPUMODE_USER)
			pd_test_pstack_push(st, f->dso_addr, f->symbol ? f->symbol : "[unknown]",
					    f->inlined, false);
	}
}

/* Samples where perf showed a DWARF name for the containing function, and
 * samples with the two known perf differences. */
static size_t dwarf_named, known_sigframe, known_plt;

/* perf names an outer function by its DWARF name, marked inlined, when the
 * ELF symbol differs: "init_cpu_features" for
 * "init_cpu_features.constprop.0".  Ours is the ELF symbol, not inlined
 * (so the last at its address, as perf's is). */
static bool same_name(const ent *ours, const ent *perf, bool *dwarf)
{
	if (strcmp(ours->name, perf->name) == 0 && ours->inlined == perf->inlined)
		return true;
	if (ours->inlined || !perf->inlined)
		return false;
	*dwarf = true;
	return true;
}

static bool same_stack(const stack *ours, const stack *perf)
{
	bool dwarf = false, sig = false, plt = false;
	size_t np = 0;
	for (size_t i = 0; i < perf->n; i++)
		np += !perf->f[i].kernel;
	if (ours->n != np)
		return false;
	for (size_t i = 0, j = 0; i < perf->n; i++) {
		if (perf->f[i].kernel)
			continue;
		const ent *o = &ours->f[j], *p = &perf->f[i];
		size_t on = strlen(o->name);
		if (strcmp(o->name, "__restore_rt") == 0 && strcmp(p->name, "[unknown]") == 0 &&
		    p->addr + 1 == o->addr) {
			sig = true;
		} else if (strcmp(p->name, "@plt") == 0 && on > 4 &&
			   strcmp(o->name + on - 4, "@plt") == 0 && o->addr == p->addr) {
			plt = true;
		} else if (o->addr != p->addr || !same_name(o, p, &dwarf)) {
			return false;
		}
		j++;
	}
	dwarf_named += dwarf;
	known_sigframe += sig;
	known_plt += plt;
	return true;
}

static void print_stack(const char *who, const stack *s)
{
	fprintf(stderr, "      %s:", who);
	for (size_t i = 0; i < s->n; i++)
		if (!s->f[i].kernel)
			fprintf(stderr, " %" PRIx64 " %s%s;", s->f[i].addr, s->f[i].name,
				s->f[i].inlined ? " (inl)" : "");
	fprintf(stderr, "\n");
}

static const stack *find(const stacks *s, uint32_t tid, uint64_t time)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].tid == tid && s->v[i].time == time)
			return &s->v[i];
	return NULL;
}

static char *lab;
static char data[PATHMAX];
static const char *skip_why;
/* dd moving 64-byte blocks: nearly every sample has kernel frames */
static char sysdata[PATHMAX];
static const char *sys_skip_why;

static void setup(void)
{
	skip_why = pd_test_lab_open(true, &lab);
	if (skip_why)
		return;
	char bin[PATHMAX], w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/unwind", lab);
	if (!pd_test_compile("cc", "-O2 -g -fomit-frame-pointer", bin, WORKLOAD_DIR "/unwind.c")) {
		skip_why = "cannot compile tests/workloads/unwind.c";
		return;
	}
	snprintf(data, sizeof data, "%s/unwind.data", lab);
	snprintf(w, sizeof w, "'%s' 400", bin);
	if (!pd_test_perf_record(data, "-N -e cpu-clock --call-graph dwarf", w)) {
		skip_why = "perf record --call-graph dwarf failed";
		return;
	}
	snprintf(sysdata, sizeof sysdata, "%s/syscalls.data", lab);
	if (!pd_test_perf_record(sysdata, "-N -e cpu-clock --call-graph dwarf",
				 "dd if=/dev/zero of=/dev/null bs=64 count=1000000"))
		sys_skip_why = "perf record --call-graph dwarf of dd failed";
}

static void teardown(void)
{
	pd_test_lab_close(lab);
	lab = NULL;
}

static void options(pd_session_options *o)
{
	static char cache[PATHMAX];
	snprintf(cache, sizeof cache, "%s/no-buildid-cache", lab);
	pd_session_options_init(o, PD_SESSION_OPTIONS_VERSION);
	o->buildid_dir = cache;
	o->jit_dir = lab;
	o->flags = PD_SESSION_PERF_COMPAT;
}

START_TEST(test_unwind_vs_perf_script)
{
	PD_SKIP_IF(skip_why);
	stacks perf;
	ck_assert_msg(pd_test_perf_stacks(data, &perf), "perf script failed");
	strip_markers(&perf);
	ck_assert_uint_gt(perf.n, 100);

	pd_session_options o;
	options(&o);
	pd_session *s;
	pd_error err;
	ck_assert_msg(pd_session_open(&s, data, &o, &err) == 0, "%s", err.message);
	const pd_resolved_sample *rs;
	int rc;
	size_t n = 0, same = 0, unmatched = 0, frames = 0, shown = 0, prefix = 0, deep = 0;
	size_t cut = 0;
	dwarf_named = known_sigframe = known_plt = 0;
	stacks mine = { 0 };   /* one stack, reused for every sample */
	stack *ours = calloc(1, sizeof *ours);
	ck_assert_ptr_nonnull(ours);
	mine.v = ours;
	mine.n = mine.cap = 1;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		const stack *p = find(&perf, rs->tid, rs->time);
		if (!p) {
			unmatched++;
			continue;
		}
		n++;
		cut += p->cut;
		ours_of(rs, ours);
		frames += ours->n;
		deep += ours->n >= 4;
		if (same_stack(ours, p)) {
			same++;
			continue;
		}
		/* perf 6.1 drops real callers in some cases (§8.4 of the notes):
		 * count the samples where perf's user stack is a prefix of ours
		 * (views that borrow the frames of both) */
		ent *user = malloc((p->n ? p->n : 1) * sizeof *user);
		ck_assert_ptr_nonnull(user);
		size_t k = 0;
		for (size_t i = 0; i < p->n; i++)
			if (!p->f[i].kernel)
				user[k++] = p->f[i];
		stack pp = *p, cut = *ours;
		pp.f = user;
		pp.n = k;
		cut.n = k < ours->n ? k : ours->n;
		prefix += k < ours->n && same_stack(&cut, &pp);
		free(user);
		if (shown++ < 10) {
			fprintf(stderr, "    differs: tid %u time %" PRIu64 "\n", rs->tid, rs->time);
			print_stack("ours", ours);
			print_stack("perf", p);
		}
	}
	ck_assert_int_eq(rc, PD_ITEROVER);
	const pd_unresolved_count *t;
	size_t nt = pd_session_truncated(s, &t);
	uint64_t truncated = 0;
	for (size_t i = 0; i < nt; i++) {
		fprintf(stderr, "    truncated in %s: %" PRIu64 "\n", t[i].dso, t[i].samples);
		truncated += t[i].samples;
	}
	fprintf(stderr,
		"unwind vs perf script: %zu/%zu samples identical (%.2f%%), %zu where perf's "
		"stack is a strict prefix of ours; %zu user frames, %zu stacks of 4+ frames; "
		"%zu samples not in perf's output; %zu with perf's DWARF name for a "
		"function; %zu cut by perf (ffffffffffffffff), %" PRIu64 " truncated here; "
		"known perf differences: %zu signal frames, %zu unnamed PLT slots\n",
		same, n, n ? 100.0 * (double)same / (double)n : 0.0, prefix, frames, deep,
		unmatched, dwarf_named, cut, truncated, known_sigframe, known_plt);
	pd_test_pstacks_free(&mine);
	pd_session_free(s);
	pd_test_pstacks_free(&perf);
	ck_assert_uint_gt(n, 100);
	ck_assert_uint_eq(unmatched, 0);
	ck_assert_uint_gt(deep, n / 2);   /* unwinding happened */
	ck_assert_msg(same * 100 >= n * 99, "only %zu of %zu samples identical", same, n);
	/* the accepted differences stay exceptions */
	ck_assert_uint_le((known_sigframe + known_plt) * 4, n);
	/* every stack perf could not finish is one we count as truncated */
	ck_assert_uint_ge(truncated, cut);
}
END_TEST

/* ---------------------------------------------------- broken input */

/*
 * A session over a copy of the recording whose samples are damaged by
 * `damage` (applied to each sample's register and stack bytes in place:
 * the reader delivers records of a regular file straight from its mapping,
 * so the copy is edited on disk first).
 */
typedef enum { CUT_STACK, GARBLE_REGS, ZERO_STACK } damage_kind;

/* Sample offsets of REGS_USER / STACK_USER fields found by reading the
 * file, then patched in a private copy. */
static char *damaged_copy(damage_kind kind, size_t *patched)
{
	size_t len;
	uint8_t *bytes = pd_test_read_file(data, &len);
	ck_assert_ptr_nonnull(bytes);
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, data, NULL, &err) == 0, "%s", err.message);
	const pd_record *rec;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	*patched = 0;
	while (pd_reader_next(r, &rec, &err) == 0) {
		if (rec->type != PD_RECORD_SAMPLE || rec->from_compressed || rec->stream != 0)
			continue;
		const pd_sample *smp = &rec->u.sample;
		const uint8_t *base = rec->data;
		if (kind == GARBLE_REGS && smp->regs_user && smp->regs_user_abi) {
			size_t off = (size_t)((const uint8_t *)smp->regs_user - base);
			size_t nregs = (size_t)__builtin_popcountll(smp->regs_user_mask);
			ck_assert(rec->offset + off + nregs * 8 <= len);
			for (size_t i = 0; i < nregs; i++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				/* keep ip (perf reg 8) on some samples so the unwinder runs */
				if (i == 8 && (seed >> 60) & 1)
					continue;
				memcpy(bytes + rec->offset + off + i * 8, &seed, 8);
			}
			(*patched)++;
		} else if ((kind == CUT_STACK || kind == ZERO_STACK) && smp->stack_user &&
			   smp->stack_user_size >= 16) {
			/* dyn_size follows the data */
			size_t off = (size_t)(smp->stack_user - base) + (size_t)smp->stack_user_size;
			ck_assert(rec->offset + off + 8 <= len);
			uint64_t dyn = kind == CUT_STACK ? smp->stack_user_dyn_size / 3 : 0;
			if (kind == CUT_STACK)
				/* garbage in what is left, too */
				memset(bytes + rec->offset + (size_t)(smp->stack_user - base) + 8, 0xff,
				       dyn > 16 ? 8 : 0);
			memcpy(bytes + rec->offset + off, &dyn, 8);
			(*patched)++;
		}
	}
	pd_reader_free(r);
	static const char *names[] = { "cut", "garbled", "zero" };
	char *path = malloc(PATHMAX);
	ck_assert_ptr_nonnull(path);
	snprintf(path, PATHMAX, "%s/%s.data", lab, names[kind]);
	ck_assert(pd_test_write_file(path, bytes, len));
	free(bytes);
	return path;
}

static void run_damaged(damage_kind kind)
{
	PD_SKIP_IF(skip_why);
	size_t patched;
	char *path = damaged_copy(kind, &patched);
	ck_assert_uint_gt(patched, 100);
	pd_session_options o;
	options(&o);
	pd_session *s;
	pd_error err;
	ck_assert_msg(pd_session_open(&s, path, &o, &err) == 0, "%s", err.message);
	const pd_resolved_sample *rs;
	int rc;
	size_t n = 0, frames = 0;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		n++;
		frames += rs->nframes;
		ck_assert_uint_le(rs->nframes, 127 * 65);  /* max_stack, inline frames aside */
	}
	ck_assert_int_eq(rc, PD_ITEROVER);
	const pd_unresolved_count *t;
	size_t nt = pd_session_truncated(s, &t);
	uint64_t truncated = 0;
	for (size_t i = 0; i < nt; i++)
		truncated += t[i].samples;
	fprintf(stderr, "damaged (%d): %zu samples, %zu frames, %" PRIu64 " truncated\n",
		(int)kind, n, frames, truncated);
	ck_assert_uint_gt(n, 100);
	/* most damaged samples must be seen as cut */
	ck_assert_uint_ge(truncated * 2, patched);
	pd_session_free(s);
	free(path);
}

START_TEST(test_unwind_cut_stack)
{
	run_damaged(CUT_STACK);
}
END_TEST

START_TEST(test_unwind_zero_stack)
{
	run_damaged(ZERO_STACK);
}
END_TEST

START_TEST(test_unwind_garbled_regs)
{
	run_damaged(GARBLE_REGS);
}
END_TEST

/* Unwinding off: the user part is the sample ip alone. */
START_TEST(test_unwind_none)
{
	PD_SKIP_IF(skip_why);
	pd_session_options o;
	options(&o);
	o.unwinder = PD_UNWINDER_NONE;
	pd_session *s;
	pd_error err;
	ck_assert_msg(pd_session_open(&s, data, &o, &err) == 0, "%s", err.message);
	const pd_resolved_sample *rs;
	size_t n = 0;
	while (pd_session_next(s, &rs, &err) == 0) {
		size_t user = 0;
		for (size_t i = 0; i < rs->nframes; i++)
			user += rs->frames[i].cpumode == PD_CPUMODE_USER && !rs->frames[i].inlined;
		ck_assert_uint_le(user, 1);
		n++;
	}
	ck_assert_uint_gt(n, 100);
	pd_session_free(s);
}
END_TEST

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Everything a sample says, and everything its record points to. */
static void assert_same_sample(const pd_resolved_sample *a, const pd_resolved_sample *b,
			       size_t i)
{
	ck_assert_msg(a->time == b->time && a->pid == b->pid && a->tid == b->tid &&
			      a->cpu == b->cpu && a->period == b->period && a->attr == b->attr,
		      "sample %zu: not the same sample", i);
	ck_assert_msg(same_str(a->comm, b->comm), "sample %zu: comm %s vs %s", i, a->comm,
		      b->comm);
	const pd_record *ra = a->record, *rb = b->record;
	ck_assert_uint_eq(ra->size, rb->size);
	ck_assert_uint_eq(ra->offset, rb->offset);
	ck_assert_msg(ra->data != rb->data && memcmp(ra->data, rb->data, ra->size) == 0,
		      "sample %zu: record bytes differ", i);
	const pd_sample *sa = &ra->u.sample, *sb = &rb->u.sample;
	ck_assert_uint_eq(sa->callchain_nr, sb->callchain_nr);
	ck_assert(memcmp(sa->callchain, sb->callchain, sa->callchain_nr * 8) == 0);
	ck_assert_uint_eq(sa->regs_user_mask, sb->regs_user_mask);
	if (sa->regs_user_abi)
		ck_assert(memcmp(sa->regs_user, sb->regs_user,
				 (size_t)__builtin_popcountll(sa->regs_user_mask) * 8) == 0);
	ck_assert_uint_eq(sa->stack_user_size, sb->stack_user_size);
	ck_assert_uint_eq(sa->stack_user_dyn_size, sb->stack_user_dyn_size);
	if (sa->stack_user_size)
		ck_assert(memcmp(sa->stack_user, sb->stack_user, sa->stack_user_size) == 0);
	/* the arrays point into the record's own bytes */
	ck_assert((const uint8_t *)sa->callchain >= (const uint8_t *)ra->data &&
		  (const uint8_t *)(sa->callchain + sa->callchain_nr) <=
			  (const uint8_t *)ra->data + ra->size);
	ck_assert_uint_eq(a->nframes, b->nframes);
	for (size_t k = 0; k < a->nframes; k++) {
		const pd_frame *fa = &a->frames[k], *fb = &b->frames[k];
		ck_assert_msg(fa->addr == fb->addr && fa->cpumode == fb->cpumode &&
				      fa->inlined == fb->inlined &&
				      fa->symbol_offset == fb->symbol_offset &&
				      fa->dso_addr == fb->dso_addr && fa->line == fb->line &&
				      same_str(fa->symbol, fb->symbol) &&
				      same_str(fa->raw_symbol, fb->raw_symbol) &&
				      same_str(fa->dso, fb->dso) &&
				      same_str(fa->srcfile, fb->srcfile) &&
				      same_str(fa->unit, fb->unit),
			      "sample %zu frame %zu: %s+%#" PRIx64 " (%s) vs %s+%#" PRIx64 " (%s)", i,
			      k, fa->symbol, fa->symbol_offset, fa->dso, fb->symbol,
			      fb->symbol_offset, fb->dso);
	}
}

/*
 * The kernel's table, written into a FIFO once `delay_ms` have passed: the
 * session's prefetch thread blocks reading it, so the table is "still
 * loading" for as long as the test wants, whatever the machine's speed.
 */
typedef struct slow_table {
	const char *fifo;
	const uint8_t *text;
	size_t len;
	unsigned delay_ms;
	bool written;
} slow_table;

static void *write_table(void *arg)
{
	slow_table *t = arg;
	usleep(t->delay_ms * 1000u);
	/* wait (10 s at most) for the session to open its end */
	int fd = -1;
	for (int i = 0; i < 1000 && fd < 0; i++) {
		fd = open(t->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			usleep(10000);
	}
	if (fd < 0)
		return NULL;
	fcntl(fd, F_SETFL, 0);
	size_t off = 0;
	while (off < t->len) {
		ssize_t n = write(fd, t->text + off, t->len - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	t->written = off == t->len;
	return NULL;
}

/*
 * Read ahead while the kernel's table loads, once holding up to the usual
 * cap and once with a small one (the session waits in mid-file and goes
 * on): every sample equals a plain session's, and so do the unresolved and
 * truncated counts at the end.  The read-ahead session reads the table
 * from a FIFO filled 300 ms after it opens; the plain one from /proc.  On
 * a recording of dd (the workload above has kernel frames in few samples,
 * some runs none, and a session that meets none never reads the table).
 */
START_TEST(test_read_ahead_same_samples)
{
	PD_SKIP_IF(skip_why);
	PD_SKIP_IF(sys_skip_why);
	char table[PATHMAX], fifo[PATHMAX];
	snprintf(table, sizeof table, "%s/kallsyms.txt", lab);
	snprintf(fifo, sizeof fifo, "%s/kallsyms.fifo", lab);
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "cat /proc/kallsyms > '%s'", table);
	if (!pd_test_sh_ok(cmd))
		PD_SKIP("cannot read /proc/kallsyms");
	size_t len;
	uint8_t *text = pd_test_read_file(table, &len);
	ck_assert_ptr_nonnull(text);
	static const size_t caps[] = { PD_SESSION_AHEAD_MAX, 16 << 10 };
	for (size_t ci = 0; ci < 2; ci++) {
		unlink(fifo);
		ck_assert_int_eq(mkfifo(fifo, 0600), 0);
		pd_session_options o;
		options(&o);
		pd_session *plain, *ahead;
		pd_error err;
		ck_assert_msg(pd_session_open(&plain, sysdata, &o, &err) == 0, "%s", err.message);
		o.flags |= PD_SESSION_READ_AHEAD;
		o.kallsyms = fifo;
		slow_table st = { fifo, text, len, 300, false };
		pthread_t writer;
		ck_assert_int_eq(pthread_create(&writer, NULL, write_table, &st), 0);
		ck_assert_msg(pd_session_open(&ahead, sysdata, &o, &err) == 0, "%s", err.message);
		pd_session_set_read_ahead_max(ahead, caps[ci]);
		const pd_resolved_sample *a, *b;
		int ra, rb;
		size_t n = 0, kernel_frames = 0;
		for (;;) {
			ra = pd_session_next(ahead, &a, &err);
			rb = pd_session_next(plain, &b, &err);
			ck_assert_int_eq(ra, rb);
			if (ra != 0)
				break;
			assert_same_sample(a, b, n++);
			for (size_t k = 0; k < a->nframes; k++)
				kernel_frames += a->frames[k].cpumode == PD_CPUMODE_KERNEL;
		}
		ck_assert_int_eq(ra, PD_ITEROVER);
		pthread_join(writer, NULL);
		ck_assert_msg(st.written, "the session never read the kernel's table");
		size_t held = pd_session_held(ahead);
		const pd_unresolved_count *ua, *ub;
		size_t na = pd_session_unresolved(ahead, &ua);
		size_t nb = pd_session_unresolved(plain, &ub);
		pd_test_assert_same_counts(ua, na, ub, nb);
		na = pd_session_truncated(ahead, &ua);
		nb = pd_session_truncated(plain, &ub);
		pd_test_assert_same_counts(ua, na, ub, nb);
		pd_session_free(plain);
		pd_session_free(ahead);
		fprintf(stderr, "read-ahead (at most %zu bytes): %zu of %zu samples held, "
				"%zu kernel frames, the same samples\n",
			caps[ci], held, n, kernel_frames);
		ck_assert_uint_gt(n, 100);
		ck_assert_uint_gt(kernel_frames, 0);
		ck_assert_uint_gt(held, 0);
	}
	unlink(fifo);
	free(text);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("libdw");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_unwind_vs_perf_script);
	tcase_add_test(tc, test_unwind_cut_stack);
	tcase_add_test(tc, test_unwind_zero_stack);
	tcase_add_test(tc, test_unwind_garbled_regs);
	tcase_add_test(tc, test_unwind_none);
	tcase_add_test(tc, test_read_ahead_same_samples);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
