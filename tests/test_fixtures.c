/*
 * The project's own recordings (tests/data, made by record-fixtures.sh with
 * perf 6.1 on a VM) against what perf itself says about them:
 *
 *   X.stats    record counts per type and samples per event
 *   X.samples  every SAMPLE's offset, time, cpu, pid/tid, misc, ip, period
 *              and raw callchain, from `perf report -D`
 *   X.header   `perf report --header-only`: features and events
 *
 * zpipe.data (a -z pipe) is beyond perf 6.1; its expectations come from
 * tests/tools/pd-walk, which the script checks against perf on every other
 * fixture.  X.be.data are tests/tools/pd-swap's big-endian conversions of
 * the file-mode fixtures, which perf reads with the counts in X.be.stats and
 * the samples of X.samples; here the library must read them exactly as it
 * reads the native files.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/expect.h"

typedef struct fixture {
	const char *name;   /* X: X.data, X.stats, ... */
	const char *path;   /* relative to tests/data */
	pd_input_mode mode;
	bool compressed;
	const char *native; /* byte-swapped copy of this fixture, or NULL */
} fixture;

static const fixture fx[] = {
	{ "fp", "fp.data", PD_MODE_FILE, false, NULL },
	{ "pipe", "pipe.data", PD_MODE_PIPE, false, NULL },
	{ "zstd", "zstd.data", PD_MODE_FILE, true, NULL },
	{ "zpipe", "zpipe.data", PD_MODE_PIPE, true, NULL },
	{ "dwarf", "dwarf.data", PD_MODE_FILE, false, NULL },
	{ "sys", "sys.data", PD_MODE_FILE, false, NULL },
	{ "two", "two.data", PD_MODE_FILE, false, NULL },
	{ "threads", "threads.data", PD_MODE_DIRECTORY, false, NULL },
	{ "fp.be", "fp.be.data", PD_MODE_FILE, false, "fp" },
	{ "dwarf.be", "dwarf.be.data", PD_MODE_FILE, false, "dwarf" },
	{ "sys.be", "sys.be.data", PD_MODE_FILE, false, "sys" },
	{ "two.be", "two.be.data", PD_MODE_FILE, false, "two" },
};
#define NFX (int)(sizeof fx / sizeof fx[0])

#define MAX_ATTRS 16

/* Everything a test wants to know after one complete read. */
typedef struct readout {
	int open_rc, rc;
	pd_error err;
	pd_reader_stats stats;
	pd_input_mode mode;
	bool swapped;
	size_t nattrs;
	uint64_t attr_samples[MAX_ATTRS];
	size_t nwarnings;
	pdx_samples samples;        /* delivery order */
	uint64_t *ktimes;           /* kernel-record times, delivery order */
	size_t nktimes;
	struct rec_pos {
		uint64_t off;
		uint32_t stream, type;
		bool inner;
	} *pos;
	size_t npos;
	char *desc; /* one line per record of the types pd-swap keeps */
	size_t desc_len;
} readout;

static void readout_free(readout *o)
{
	pdx_samples_free(&o->samples);
	free(o->ktimes);
	free(o->pos);
	free(o->desc);
}

static const char *data_path(char *buf, size_t n, const char *rel)
{
	return pd_test_data(buf, n, rel);
}

/* A library SAMPLE in the shape of an X.samples line. */
static void add_sample(pdx_samples *s, const pd_record *rec)
{
	const pd_sample *x = &rec->u.sample;
	pdx_sample *y = pdx_samples_add(s);
	y->off = rec->offset;
	y->time = x->time;
	y->cpu = (x->sample_type & PD_SAMPLE_CPU) ? (int64_t)x->cpu : -1;
	y->pid = (x->sample_type & PD_SAMPLE_TID) ? (int32_t)x->pid : -1;
	y->tid = (x->sample_type & PD_SAMPLE_TID) ? (int32_t)x->tid : -1;
	y->misc = rec->misc;
	y->ip = x->ip;
	y->period = x->period;
	y->nr = (x->sample_type & PD_SAMPLE_CALLCHAIN) ? x->callchain_nr : 0;
	y->chain = calloc(y->nr + 1, sizeof *y->chain);
	ck_assert_ptr_nonnull(y->chain);
	if (y->nr)
		memcpy(y->chain, x->callchain, y->nr * sizeof *y->chain);
}

/* Values of the record types pd-swap keeps, for native-vs-swapped checks. */
static void describe(FILE *f, const pd_record *rec)
{
	const pd_sample_id *sid = &rec->sid;
	switch (rec->type) {
	case PD_RECORD_SAMPLE: {
		const pd_sample *s = &rec->u.sample;
		fprintf(f, "SAMPLE misc %#x attr %d st %#" PRIx64 " ip %#" PRIx64
			   " %u/%u t %" PRIu64 " id %" PRIu64 " cpu %u p %" PRIu64
			   " addr %#" PRIx64 " chain",
			rec->misc, rec->attr, s->sample_type, s->ip, s->pid,
			s->tid, s->time, s->id, s->cpu, s->period, s->addr);
		for (uint64_t k = 0; k < s->callchain_nr; k++)
			fprintf(f, " %" PRIx64, s->callchain[k]);
		if (s->sample_type & PD_SAMPLE_REGS_USER) {
			fprintf(f, " regs %" PRIu64 " %#" PRIx64, s->regs_user_abi,
				s->regs_user_mask);
			if (s->regs_user_abi)
				for (int k = 0; k < __builtin_popcountll(s->regs_user_mask); k++)
					fprintf(f, " %" PRIx64, s->regs_user[k]);
		}
		if (s->sample_type & PD_SAMPLE_STACK_USER)
			fprintf(f, " stack %" PRIu64 " %" PRIu64, s->stack_user_size,
				s->stack_user_dyn_size);
		if (s->sample_type & PD_SAMPLE_DATA_SRC)
			fprintf(f, " dsrc %#" PRIx64, s->data_src);
		break;
	}
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2: {
		const pd_mmap *m = &rec->u.mmap;
		fprintf(f, "MMAP%s misc %#x %u/%u %#" PRIx64 "+%#" PRIx64
			   " pgoff %#" PRIx64 " %u:%u ino %" PRIu64 " gen %" PRIu64
			   " prot %u flags %u %s",
			rec->type == PD_RECORD_MMAP2 ? "2" : "", rec->misc, m->pid,
			m->tid, m->addr, m->len, m->pgoff, m->maj, m->min, m->ino,
			m->ino_generation, m->prot, m->flags,
			m->filename ? m->filename : "(null)");
		break;
	}
	case PD_RECORD_COMM:
		fprintf(f, "COMM misc %#x %u/%u %s exec %d", rec->misc,
			rec->u.comm.pid, rec->u.comm.tid,
			rec->u.comm.comm ? rec->u.comm.comm : "(null)",
			rec->u.comm.exec);
		break;
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT: {
		const pd_task *t = &rec->u.task;
		fprintf(f, "%s %u %u %u %u %" PRIu64,
			rec->type == PD_RECORD_FORK ? "FORK" : "EXIT", t->pid,
			t->ppid, t->tid, t->ptid, t->time);
		break;
	}
	case PD_RECORD_LOST:
		fprintf(f, "LOST %" PRIu64 " %" PRIu64, rec->u.lost.id,
			rec->u.lost.lost);
		break;
	default:
		return;
	}
	fprintf(f, " | sid %#" PRIx64 " %u/%u t %" PRIu64 " id %" PRIu64
		   " cpu %u\n",
		sid->present, sid->pid, sid->tid, sid->time, sid->id, sid->cpu);
}

static void lib_read(const char *path, unsigned flags, readout *o)
{
	memset(o, 0, sizeof *o);
	pd_reader_options opts;
	pd_reader_options_init(&opts, PD_READER_OPTIONS_VERSION);
	opts.flags = flags;
	pd_reader *r = NULL;
	o->open_rc = pd_reader_open(&r, path, &opts, &o->err);
	if (o->open_rc < 0) {
		o->rc = o->open_rc;
		fprintf(stderr, "%s: open failed: %s\n", path, o->err.message);
		return;
	}
	FILE *df = open_memstream(&o->desc, &o->desc_len);
	ck_assert_ptr_nonnull(df);
	size_t cap_t = 0, cap_p = 0;
	const pd_record *rec;
	int rc;
	while ((rc = pd_reader_next(r, &rec, &o->err)) == 0) {
		if (o->npos == cap_p) {
			cap_p = cap_p ? 2 * cap_p : 1024;
			o->pos = realloc(o->pos, cap_p * sizeof *o->pos);
			ck_assert_ptr_nonnull(o->pos);
		}
		o->pos[o->npos++] = (struct rec_pos){ rec->offset, rec->stream,
						      rec->type,
						      rec->from_compressed };
		uint64_t t = 0;
		bool timed = false;
		if (rec->type == PD_RECORD_SAMPLE) {
			add_sample(&o->samples, rec);
			timed = rec->u.sample.sample_type & PD_SAMPLE_TIME;
			t = rec->u.sample.time;
		} else if (rec->type < 64 && (rec->sid.present & PD_SAMPLE_TIME)) {
			timed = true;
			t = rec->sid.time;
		}
		if (timed) {
			if (o->nktimes == cap_t) {
				cap_t = cap_t ? 2 * cap_t : 1024;
				o->ktimes = realloc(o->ktimes, cap_t * sizeof *o->ktimes);
				ck_assert_ptr_nonnull(o->ktimes);
			}
			o->ktimes[o->nktimes++] = t;
		}
		describe(df, rec);
	}
	fclose(df);
	o->rc = rc;
	if (rc != PD_ITEROVER)
		fprintf(stderr, "%s: read stopped with %d: %s\n", path, rc,
			o->err.message);
	o->stats = *pd_reader_stats_get(r);
	o->nattrs = pd_reader_attr_count(r);
	for (size_t i = 0; i < o->nattrs && i < MAX_ATTRS; i++)
		o->attr_samples[i] = pd_reader_attr_samples(r, i);
	o->nwarnings = pd_reader_warning_count(r);
	for (size_t i = 0; i < o->nwarnings; i++)
		fprintf(stderr, "%s: warning: %s\n", path, pd_reader_warning(r, i));
	o->mode = pd_reader_header(r)->mode;
	o->swapped = pd_reader_header(r)->swapped;
	pd_reader_free(r);
}

static void load_expected(const fixture *f, pdx_stats *st, pdx_samples *sm)
{
	char p[4096], rel[256];
	snprintf(rel, sizeof rel, "%s.stats", f->name);
	pdx_stats_load(data_path(p, sizeof p, rel), st);
	ck_assert_msg(st->ok, "%s: no usable stats", rel);
	if (sm) {
		snprintf(rel, sizeof rel, "%s.samples",
			 f->native ? f->native : f->name);
		ck_assert_msg(pdx_samples_load(data_path(p, sizeof p, rel), sm),
			      "%s unreadable", rel);
	}
}

/* ------------------------------------------------------------- counts */

START_TEST(test_counts)
{
	const fixture *f = &fx[_i];
	char path[4096];
	pdx_stats want;
	load_expected(f, &want, NULL);
	readout o;
	lib_read(data_path(path, sizeof path, f->path), 0, &o);
	ck_assert_msg(o.open_rc == 0, "%s: open: %s", f->path, o.err.message);
	ck_assert_msg(o.rc == PD_ITEROVER, "%s: %s", f->path, o.err.message);
	ck_assert_int_eq(o.mode, f->mode);
	ck_assert_msg(o.swapped == (f->native != NULL), "%s: swapped %d",
		      f->path, o.swapped);
	ck_assert_msg(o.nwarnings == 0, "%s: %zu warnings on a clean file",
		      f->path, o.nwarnings);

	int bad = 0;
	for (int t = 0; t < 128; t++)
		if (o.stats.by_type[t] != want.by_type[t]) {
			fprintf(stderr, "%s: type %d (%s): perf %" PRIu64
					", library %" PRIu64 "\n",
				f->path, t,
				pd_record_type_name((uint32_t)t)
					? pd_record_type_name((uint32_t)t) : "?",
				want.by_type[t], o.stats.by_type[t]);
			bad++;
		}
	ck_assert_msg(bad == 0, "%s: %d record types counted differently",
		      f->path, bad);
	ck_assert_msg(o.stats.records == want.total,
		      "%s: TOTAL %" PRIu64 " (perf) vs records %" PRIu64,
		      f->path, want.total, o.stats.records);
	ck_assert_uint_eq(o.stats.unknown_types, 0);
	ck_assert_uint_eq(o.stats.unattributed, 0);
	ck_assert_uint_eq(o.samples.n, want.by_type[PD_RECORD_SAMPLE]);
	if (f->compressed)
		ck_assert_msg(o.stats.compressed_inner > 0 &&
				      o.stats.compressed_inner <=
					      want.total - want.by_type[PD_RECORD_COMPRESSED],
			      "%s: compressed_inner %" PRIu64, f->path,
			      o.stats.compressed_inner);
	else
		ck_assert_uint_eq(o.stats.compressed_inner, 0);
	readout_free(&o);
}
END_TEST

/* Samples per event, matched by name with perf's "<event> stats:" sections. */
START_TEST(test_event_samples)
{
	const fixture *f = &fx[_i];
	char path[4096];
	pdx_stats want;
	load_expected(f, &want, NULL);
	pd_reader *r = NULL;
	pd_error err;
	int rc = pd_reader_open(&r, data_path(path, sizeof path, f->path), NULL, &err);
	ck_assert_msg(rc == 0, "%s: %s", f->path, err.message);
	const pd_record *rec;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0)
		;
	ck_assert_msg(rc == PD_ITEROVER, "%s: %s", f->path, err.message);
	size_t n = pd_reader_attr_count(r);
	ck_assert_uint_ge(n, 1);
	uint64_t sum = 0;
	bool matched[PDX_MAX_EVENTS] = { false };
	for (size_t i = 0; i < n; i++) {
		const pd_attr *a = pd_reader_attr(r, i);
		ck_assert_ptr_nonnull(a);
		uint64_t got = pd_reader_attr_samples(r, i);
		sum += got;
		size_t e;
		for (e = 0; e < want.nevents; e++)
			if (a->name && !strcmp(a->name, want.ev[e].name))
				break;
		if (e == want.nevents) {
			ck_assert_msg(got == 0, "%s: attr %zu (%s) has %" PRIu64
					" samples, perf lists none",
				      f->path, i, a->name ? a->name : "(no name)", got);
			continue;
		}
		ck_assert_msg(!matched[e], "%s: two attrs named %s", f->path,
			      want.ev[e].name);
		matched[e] = true;
		ck_assert_msg(got == want.ev[e].samples,
			      "%s: %s: perf %" PRIu64 " samples, library %" PRIu64,
			      f->path, want.ev[e].name, want.ev[e].samples, got);
	}
	for (size_t e = 0; e < want.nevents; e++)
		ck_assert_msg(matched[e], "%s: no attr named %s", f->path,
			      want.ev[e].name);
	ck_assert_uint_eq(sum, want.by_type[PD_RECORD_SAMPLE]);
	pd_reader_free(r);
}
END_TEST

/* ------------------------------------------------------------ samples */

static void check_samples(const fixture *f, unsigned flags)
{
	char path[4096], what[256];
	pdx_stats st;
	pdx_samples want;
	load_expected(f, &st, &want);
	readout o;
	lib_read(data_path(path, sizeof path, f->path), flags, &o);
	ck_assert_msg(o.rc == PD_ITEROVER, "%s: %s", f->path, o.err.message);
	snprintf(what, sizeof what, "%s%s", f->path,
		 flags & PD_READER_FILE_ORDER ? " (file order)" : "");
	/*
	 * Offsets: records inside compressed ones have perf's offset of the
	 * COMPRESSED record where they end, which the library need not share;
	 * a swapped copy has its own offsets.
	 */
	bool ignore_off = f->compressed || f->native;
	size_t bad = pdx_samples_diff(what, &want, &o.samples, ignore_off);
	ck_assert_msg(bad == 0, "%s: %zu samples differ from perf's", what, bad);
	pdx_samples_free(&want);
	readout_free(&o);
}

START_TEST(test_samples_default) { check_samples(&fx[_i], 0); }
END_TEST

START_TEST(test_samples_file_order)
{
	check_samples(&fx[_i], PD_READER_FILE_ORDER);
}
END_TEST

/* ----------------------------------------------------------- ordering */

static int cmp_u64(const void *a, const void *b)
{
	return pdx_cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

START_TEST(test_order)
{
	const fixture *f = &fx[_i];
	char path[4096];
	data_path(path, sizeof path, f->path);
	readout d, fo;
	lib_read(path, 0, &d);
	lib_read(path, PD_READER_FILE_ORDER, &fo);
	ck_assert_int_eq(d.rc, PD_ITEROVER);
	ck_assert_int_eq(fo.rc, PD_ITEROVER);

	/* default: kernel records come out in time order */
	ck_assert_msg(d.stats.out_of_order == 0, "%s: out_of_order %" PRIu64,
		      f->path, d.stats.out_of_order);
	for (size_t i = 1; i < d.nktimes; i++)
		ck_assert_msg(d.ktimes[i - 1] <= d.ktimes[i],
			      "%s: kernel record #%zu at time %" PRIu64
			      " delivered after time %" PRIu64,
			      f->path, i, d.ktimes[i], d.ktimes[i - 1]);
	/* ... and that is a permutation of file order */
	ck_assert_uint_eq(d.nktimes, fo.nktimes);
	uint64_t *a = malloc((d.samples.n + 1) * 8), *b = malloc((fo.samples.n + 1) * 8);
	ck_assert_uint_eq(d.samples.n, fo.samples.n);
	for (size_t i = 0; i < d.samples.n; i++) {
		a[i] = d.samples.v[i].time;
		b[i] = fo.samples.v[i].time;
	}
	qsort(a, d.samples.n, 8, cmp_u64);
	qsort(b, fo.samples.n, 8, cmp_u64);
	ck_assert_msg(memcmp(a, b, d.samples.n * 8) == 0,
		      "%s: sample times differ between orders", f->path);
	free(a);
	free(b);
	ck_assert_uint_eq(d.npos, fo.npos);

	/* file order really is file order, stream by stream */
	uint64_t last[64] = { 0 };
	size_t decreasing = 0;
	for (size_t i = 0; i < fo.npos; i++) {
		uint32_t s = fo.pos[i].stream;
		ck_assert_uint_lt(s, 64);
		ck_assert_msg(fo.pos[i].off >= last[s] || fo.pos[i].inner,
			      "%s: file order: record at %#" PRIx64
			      " (stream %u) after %#" PRIx64,
			      f->path, fo.pos[i].off, s, last[s]);
		last[s] = fo.pos[i].off;
	}
	for (size_t i = 1; i < fo.samples.n; i++)
		decreasing += fo.samples.v[i].time < fo.samples.v[i - 1].time;
	fprintf(stderr, "%s: %zu samples, %zu time decreases in file order\n",
		f->path, fo.samples.n, decreasing);
	readout_free(&d);
	readout_free(&fo);
}
END_TEST

/* At least one fixture must really need the reordering. */
START_TEST(test_order_is_exercised)
{
	size_t total = 0;
	for (int i = 0; i < NFX; i++) {
		char path[4096];
		pdx_samples s;
		char rel[256];
		snprintf(rel, sizeof rel, "%s.samples", fx[i].name);
		if (fx[i].native || fx[i].mode == PD_MODE_DIRECTORY ||
		    fx[i].compressed)
			continue;
		ck_assert(pdx_samples_load(data_path(path, sizeof path, rel), &s));
		/* file order = offset order for uncompressed single streams */
		for (size_t a = 0; a < s.n; a++)
			for (size_t b = 0; b < s.n; b++)
				if (s.v[a].off < s.v[b].off && s.v[a].time > s.v[b].time) {
					total++;
					a = b = s.n;
				}
		pdx_samples_free(&s);
	}
	ck_assert_msg(total > 0, "no fixture has samples out of time order in the "
				 "file: re-run record-fixtures.sh");
}
END_TEST

/* ---------------------------------------------------------- directory */

START_TEST(test_directory_streams)
{
	char dir[4096], p[4200];
	data_path(dir, sizeof dir, "threads.data");
	readout o;
	lib_read(dir, PD_READER_FILE_ORDER, &o);
	ck_assert_int_eq(o.rc, PD_ITEROVER);
	ck_assert_int_eq(o.mode, PD_MODE_DIRECTORY);

	/* count each stream's records with the test's own walker */
	uint64_t want_recs[64] = { 0 }, want_samples[64] = { 0 };
	uint64_t got_recs[64] = { 0 }, got_samples[64] = { 0 };
	size_t nstreams = 0;
	snprintf(p, sizeof p, "%s/data", dir);
	size_t len;
	uint8_t *d = pd_test_read_file(p, &len);
	ck_assert_ptr_nonnull(d);
	pdx_layout L;
	ck_assert(pdx_walk(d, len, false, &L));
	ck_assert(L.clean);
	for (size_t i = 0; i < L.nrecs; i++) {
		want_recs[0]++;
		want_samples[0] += L.recs[i].type == PD_RECORD_SAMPLE;
	}
	free(L.recs);
	free(d);
	for (int n = 0; n < 62; n++) {
		snprintf(p, sizeof p, "%s/data.%d", dir, n);
		if (!(d = pd_test_read_file(p, &len)))
			break;
		nstreams++;
		ck_assert(pdx_walk(d, len, true, &L));
		ck_assert_msg(L.clean, "%s: walk stopped at %#" PRIx64, p, L.data_end);
		for (size_t i = 0; i < L.nrecs; i++) {
			want_recs[n + 1]++;
			want_samples[n + 1] += L.recs[i].type == PD_RECORD_SAMPLE;
		}
		free(L.recs);
		free(d);
	}
	ck_assert_uint_ge(nstreams, 1);
	for (size_t i = 0; i < o.npos; i++) {
		ck_assert_uint_le(o.pos[i].stream, nstreams);
		got_recs[o.pos[i].stream]++;
		got_samples[o.pos[i].stream] += o.pos[i].type == PD_RECORD_SAMPLE;
	}
	uint64_t all = 0;
	for (size_t s = 0; s <= nstreams; s++) {
		ck_assert_msg(got_recs[s] == want_recs[s],
			      "stream %zu: %" PRIu64 " records in the file, %" PRIu64
			      " delivered", s, want_recs[s], got_recs[s]);
		ck_assert_msg(got_samples[s] == want_samples[s],
			      "stream %zu: %" PRIu64 " samples in the file, %" PRIu64
			      " delivered", s, want_samples[s], got_samples[s]);
		all += want_samples[s];
	}
	ck_assert_uint_eq(all, o.samples.n);
	readout_free(&o);

	pd_reader *r;
	pd_error err;
	ck_assert_int_eq(pd_reader_open(&r, dir, NULL, &err), 0);
	ck_assert_uint_eq(pd_reader_header(r)->dir_format, 1);
	pd_reader_free(r);
}
END_TEST

/* ------------------------------------------------------------- header */

static const char *hval(const char *text, const char *key, char *out, size_t n)
{
	char pat[128];
	snprintf(pat, sizeof pat, "\n# %s : ", key);
	const char *p = strstr(text, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	size_t l = strcspn(p, "\n");
	snprintf(out, n, "%.*s", (int)l, p);
	return out;
}

START_TEST(test_header)
{
	const fixture *f = &fx[_i];
	char path[4096], rel[256], v[1024];
	snprintf(rel, sizeof rel, "%s.header", f->native ? f->native : f->name);
	size_t len;
	char *text = (char *)pd_test_read_file(data_path(path, sizeof path, rel), &len);
	ck_assert_ptr_nonnull(text);
	text = realloc(text, len + 2);
	memmove(text + 1, text, len);
	text[0] = '\n';
	text[len + 1] = 0;

	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, data_path(path, sizeof path, f->path),
				     NULL, &err) == 0, "%s", err.message);
	const pd_record *rec;
	while (pd_reader_next(r, &rec, &err) == 0)
		;
	const pd_header_info *h = pd_reader_header(r);
#define STR_EQ(key, field)                                                      \
	if (hval(text, key, v, sizeof v))                                       \
		ck_assert_msg(h->field && !strcmp(h->field, v),                 \
			      "%s: " key ": perf '%s', library '%s'", f->path, v,  \
			      h->field ? h->field : "(null)")
	STR_EQ("hostname", hostname);
	STR_EQ("os release", osrelease);
	STR_EQ("perf version", version);
	STR_EQ("arch", arch);
	STR_EQ("cpudesc", cpudesc);
	STR_EQ("cpuid", cpuid);
#undef STR_EQ
	if (hval(text, "nrcpus online", v, sizeof v))
		ck_assert_uint_eq(h->nr_cpus_online, strtoul(v, NULL, 10));
	if (hval(text, "nrcpus avail", v, sizeof v))
		ck_assert_uint_eq(h->nr_cpus_available, strtoul(v, NULL, 10));
	if (hval(text, "total memory", v, sizeof v))
		ck_assert_uint_eq(h->total_mem_kb, strtoull(v, NULL, 10));
	if (hval(text, "cmdline", v, sizeof v)) {
		char joined[1024] = "";
		for (size_t i = 0; i < h->cmdline_nr; i++) {
			strncat(joined, h->cmdline[i], sizeof joined - strlen(joined) - 2);
			strcat(joined, " ");
		}
		ck_assert_msg(!strcmp(joined, v), "%s: cmdline '%s' vs '%s'",
			      f->path, v, joined);
	}
	if (hval(text, "time of first sample", v, sizeof v) &&
	    strcmp(v, "0.000000")) {
		unsigned long long sec, usec;
		ck_assert_int_eq(sscanf(v, "%llu.%llu", &sec, &usec), 2);
		ck_assert(h->has_sample_time);
		ck_assert_uint_eq(h->sample_time_first / 1000, sec * 1000000 + usec);
		ck_assert(hval(text, "time of last sample", v, sizeof v));
		ck_assert_int_eq(sscanf(v, "%llu.%llu", &sec, &usec), 2);
		ck_assert_uint_eq(h->sample_time_last / 1000, sec * 1000000 + usec);
	}
	if (hval(text, "compressed", v, sizeof v)) {
		unsigned level;
		ck_assert(h->compressed);
		ck_assert_uint_eq(h->comp_type, 1);
		ck_assert_int_eq(sscanf(v, "Zstd, level = %u", &level), 1);
		ck_assert_uint_eq(h->comp_level, level);
	}
	if (hval(text, "directory data version", v, sizeof v))
		ck_assert_uint_eq(h->dir_format, strtoull(v, NULL, 10));

	/* events: "# event : name = N, , id = { a, b }, type = T, ..." */
	size_t nev = 0;
	for (const char *p = text; (p = strstr(p, "\n# event : name = ")); nev++) {
		p += strlen("\n# event : name = ");
		const pd_attr *a = pd_reader_attr(r, nev);
		ck_assert_msg(a != NULL, "%s: perf lists more events than %zu",
			      f->path, pd_reader_attr_count(r));
		size_t l = strcspn(p, ",");
		ck_assert_msg(a->name && strlen(a->name) == l && !strncmp(a->name, p, l),
			      "%s: event %zu: perf '%.*s', library '%s'", f->path,
			      nev, (int)l, p, a->name ? a->name : "(null)");
		const char *ids = strstr(p, "id = { ");
		const char *eol = strchr(p, '\n');
		ck_assert(ids && (!eol || ids < eol));
		ids += strlen("id = { ");
		size_t k = 0;
		while (*ids >= '0' && *ids <= '9') {
			char *e;
			uint64_t id = strtoull(ids, &e, 10);
			ck_assert_msg(k < a->nr_ids && a->ids[k] == id,
				      "%s: event %zu id #%zu: perf %" PRIu64,
				      f->path, nev, k, id);
			k++;
			ids = e + strspn(e, ", ");
		}
		ck_assert_uint_eq(k, a->nr_ids);
		const char *ty = strstr(p, ", type = ");
		ck_assert(ty && (!eol || ty < eol));
		ck_assert_uint_eq(a->type, strtoul(ty + 9, NULL, 10));
		const char *cf = strstr(p, ", config = ");
		uint64_t config = cf && (!eol || cf < eol) ? strtoull(cf + 11, NULL, 0) : 0;
		ck_assert_uint_eq(a->config, config);
	}
	ck_assert_msg(nev == pd_reader_attr_count(r), "%s: perf %zu events, "
		      "library %zu", f->path, nev, pd_reader_attr_count(r));
	pd_reader_free(r);
	free(text);
}
END_TEST

/* --------------------------------------------------------- real pipe */

/*
 * The pipe fixtures through an actual pipe (pd_reader_open_fd on a FIFO
 * end), so the reader cannot seek or mmap: same counts, same samples.
 */
START_TEST(test_real_pipe)
{
	const fixture *f = &fx[_i];
	if (f->mode != PD_MODE_PIPE)
		return;
	char path[4096];
	size_t len;
	uint8_t *d = pd_test_read_file(data_path(path, sizeof path, f->path), &len);
	ck_assert_ptr_nonnull(d);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		close(fds[0]);
		/* dribble it out in odd-sized pieces to split records */
		size_t off = 0, step = 1;
		while (off < len) {
			size_t n = len - off < step ? len - off : step;
			ssize_t w = write(fds[1], d + off, n);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
			step = step * 3 % 8191 + 1;
		}
		_exit(0);
	}
	close(fds[1]);
	pdx_stats want;
	pdx_samples wsm, got = { 0 };
	load_expected(f, &want, &wsm);
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open_fd(&r, fds[0], "<pipe>", NULL, &err) == 0, "%s",
		      err.message);
	const pd_record *rec;
	int rc;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0)
		if (rec->type == PD_RECORD_SAMPLE)
			add_sample(&got, rec);
	ck_assert_msg(rc == PD_ITEROVER, "%s via a pipe: %s", f->path, err.message);
	ck_assert_int_eq(pd_reader_header(r)->mode, PD_MODE_PIPE);
	ck_assert_uint_eq(pd_reader_warning_count(r), 0);
	const pd_reader_stats *st = pd_reader_stats_get(r);
	for (int t = 0; t < 128; t++)
		ck_assert_msg(st->by_type[t] == want.by_type[t],
			      "%s via a pipe: type %d: %" PRIu64 " vs perf %" PRIu64,
			      f->path, t, st->by_type[t], want.by_type[t]);
	ck_assert_msg(pdx_samples_diff(f->path, &wsm, &got, f->compressed) == 0,
		      "%s via a pipe: samples differ", f->path);
	pd_reader_free(r);
	close(fds[0]);
	int status;
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pdx_samples_free(&wsm);
	pdx_samples_free(&got);
	free(d);
}
END_TEST

/* ------------------------------------------------------------ swapped */

/* The big-endian copy reads exactly like the native file. */
START_TEST(test_swapped_like_native)
{
	const fixture *f = &fx[_i];
	if (!f->native)
		return;
	char p1[4096], p2[4096], rel[256];
	snprintf(rel, sizeof rel, "%s.data", f->native);
	readout n, s;
	lib_read(data_path(p1, sizeof p1, rel), PD_READER_FILE_ORDER, &n);
	lib_read(data_path(p2, sizeof p2, f->path), PD_READER_FILE_ORDER, &s);
	ck_assert_int_eq(n.rc, PD_ITEROVER);
	ck_assert_msg(s.rc == PD_ITEROVER, "%s: %s", f->path, s.err.message);
	ck_assert(!n.swapped);
	ck_assert(s.swapped);
	/* same records of the kept types, same values, same order */
	if (strcmp(n.desc, s.desc)) {
		const char *a = n.desc, *b = s.desc;
		size_t line = 1;
		while (*a && *a == *b) {
			line += *a == '\n';
			a++;
			b++;
		}
		while (a > n.desc && a[-1] != '\n') {
			a--;
			b--;
		}
		ck_abort_msg("%s differs from %s at kept record %zu:\n native: %.*s\n"
			     " swapped: %.*s", f->path, rel, line,
			     (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	}
	/* attrs */
	pd_reader *r1, *r2;
	pd_error err;
	ck_assert_int_eq(pd_reader_open(&r1, p1, NULL, &err), 0);
	ck_assert_msg(pd_reader_open(&r2, p2, NULL, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(pd_reader_attr_count(r1), pd_reader_attr_count(r2));
	for (size_t i = 0; i < pd_reader_attr_count(r1); i++) {
		const pd_attr *a = pd_reader_attr(r1, i), *b = pd_reader_attr(r2, i);
		ck_assert_uint_eq(a->type, b->type);
		ck_assert_uint_eq(a->size, b->size);
		ck_assert_uint_eq(a->config, b->config);
		ck_assert_uint_eq(a->sample_period, b->sample_period);
		ck_assert_uint_eq(a->sample_type, b->sample_type);
		ck_assert_uint_eq(a->read_format, b->read_format);
		ck_assert_msg(a->flags == b->flags, "%s attr %zu: flags %#" PRIx64
			      " native, %#" PRIx64 " swapped", f->path, i,
			      a->flags, b->flags);
		ck_assert_uint_eq(a->freq, b->freq);
		ck_assert_uint_eq(a->sample_id_all, b->sample_id_all);
		ck_assert_uint_eq(a->exclude_callchain_user, b->exclude_callchain_user);
		ck_assert_uint_eq(a->sample_regs_user, b->sample_regs_user);
		ck_assert_uint_eq(a->sample_stack_user, b->sample_stack_user);
		ck_assert_uint_eq(a->sample_max_stack, b->sample_max_stack);
		ck_assert_int_eq(a->clockid, b->clockid);
		ck_assert_str_eq(a->name ? a->name : "", b->name ? b->name : "");
		ck_assert_uint_eq(a->nr_ids, b->nr_ids);
		for (size_t k = 0; k < a->nr_ids; k++)
			ck_assert_uint_eq(a->ids[k], b->ids[k]);
	}
	pd_reader_free(r1);
	pd_reader_free(r2);
	readout_free(&n);
	readout_free(&s);
}
END_TEST

#ifdef PD_SWAP_PATH
/* The committed X.be.data is what tests/tools/pd-swap makes of X.data. */
START_TEST(test_swap_tool_reproduces)
{
	const fixture *f = &fx[_i];
	if (!f->native)
		return;
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char in[4096], want[4096], rel[256], out[4300], st[4300], cmd[13000];
	snprintf(rel, sizeof rel, "%s.data", f->native);
	data_path(in, sizeof in, rel);
	data_path(want, sizeof want, f->path);
	snprintf(out, sizeof out, "%s/out.data", dir);
	snprintf(st, sizeof st, "%s/out.stats", dir);
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' 2>/dev/null", PD_SWAP_PATH,
		 in, out, st);
	int status;
	free(pd_test_run(cmd, &status));
	ck_assert_int_eq(status, 0);
	size_t la, lb;
	uint8_t *a = pd_test_read_file(out, &la), *b = pd_test_read_file(want, &lb);
	ck_assert(a && b);
	ck_assert_msg(la == lb && !memcmp(a, b, la),
		      "pd-swap output differs from %s: re-run record-fixtures.sh",
		      f->path);
	free(a);
	free(b);
	pdx_stats s1, s2;
	pdx_stats_load(st, &s1);
	snprintf(rel, sizeof rel, "%s.stats", f->name);
	pdx_stats_load(data_path(want, sizeof want, rel), &s2);
	ck_assert(s1.ok && s2.ok);
	ck_assert(!memcmp(s1.by_type, s2.by_type, sizeof s1.by_type));
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("fixtures");
	TCase *tc = tcase_create("fixtures");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_counts, 0, NFX);
	tcase_add_loop_test(tc, test_event_samples, 0, NFX);
	tcase_add_loop_test(tc, test_samples_default, 0, NFX);
	tcase_add_loop_test(tc, test_samples_file_order, 0, NFX);
	tcase_add_loop_test(tc, test_order, 0, NFX);
	tcase_add_test(tc, test_order_is_exercised);
	tcase_add_test(tc, test_directory_streams);
	tcase_add_loop_test(tc, test_header, 0, NFX);
	tcase_add_loop_test(tc, test_real_pipe, 0, NFX);
	tcase_add_loop_test(tc, test_swapped_like_native, 0, NFX);
#ifdef PD_SWAP_PATH
	tcase_add_loop_test(tc, test_swap_tool_reproduces, 0, NFX);
#endif
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
