/*
 * Truncated inputs: every fixture (and a few corpus files) cut inside the
 * header, inside the ids/attrs, at record boundaries, inside records and
 * inside compressed records.  The reader must either refuse to open with a
 * message, or deliver the records before the cut and say so with a
 * warning; never crash.  How many samples survive a cut is known from the
 * test's own record walker (tests/tools/expect.h): exactly the complete
 * SAMPLE records before it; for compressed data the samples perf places in
 * the COMPRESSED records before it (X.samples) give the bounds.  The count
 * never decreases as the cut moves on, and the whole file gives the full
 * count.  A file whose perf was killed (data.size 0) gives every sample and
 * a warning.
 */
#include "testutil.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/expect.h"

typedef struct input {
	const char *rel;     /* tests/data/<rel>, or corpus/<rel> */
	bool corpus;
	const char *samples; /* X.samples for compressed fixtures, or NULL */
} input;

static const input inputs[] = {
	{ "fp.data", false, NULL },
	{ "pipe.data", false, NULL },
	{ "zstd.data", false, "zstd.samples" },
	{ "zpipe.data", false, "zpipe.samples" },
	{ "dwarf.data", false, NULL },
	{ "sys.data", false, NULL },
	{ "two.data", false, NULL },
	{ "fp.be.data", false, NULL },
	{ "linux-perf-data/tests/fixtures/fibo.compressed2.pipe.data", true, NULL },
	{ "linux-perf-data/tests/fixtures/sleep.compressed.data", true, NULL },
	{ "perf_data_converter/src/quipper/testdata/perf.data.callgraph-3.8", true, NULL },
	{ "perf_data_converter/src/quipper/testdata/perf.data.piped.target-3.4", true, NULL },
	{ "perfparser/tests/auto/perfdata/probe.data.stream", true, NULL },
	{ "perfparser/tests/auto/perfdata/vector_static_gcc/perf.data.zstd", true, NULL },
};
#define NINPUTS (int)(sizeof inputs / sizeof inputs[0])

static bool is_compressed(uint32_t type)
{
	return type == PD_RECORD_COMPRESSED || type == PD_RECORD_COMPRESSED2;
}

/* Full sample count: X.stats for fixtures, index.jsonl for the corpus. */
static bool full_samples(const input *in, uint64_t *out)
{
	char p[4096];
	if (!in->corpus) {
		char rel[256];
		snprintf(rel, sizeof rel, "%.*s.stats",
			 (int)(strlen(in->rel) - strlen(".data")), in->rel);
		pdx_stats st;
		pdx_stats_load(pd_test_data(p, sizeof p, rel), &st);
		*out = st.by_type[PD_RECORD_SAMPLE];
		return st.ok;
	}
	if (!pd_test_corpus(p, sizeof p, "index.jsonl"))
		return false;
	FILE *f = fopen(p, "r");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	while (!found && getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		const char *file = json_string_value(json_object_get(j, "file"));
		if (file && !strcmp(file, in->rel)) {
			json_t *n = json_object_get(j, "samples_total");
			found = json_is_integer(n);
			*out = (uint64_t)json_integer_value(n);
		}
		json_decref(j);
	}
	free(line);
	fclose(f);
	return found;
}

typedef struct cut {
	uint64_t at;
	const char *why;
	uint64_t lo, hi;   /* bounds on the samples that must survive */
	bool must_open;
	bool must_warn;
} cut;

static int cut_cmp(const void *a, const void *b)
{
	const cut *x = a, *y = b;
	return pdx_cmp_u64(x->at, y->at);
}

typedef struct plan {
	cut *v;
	size_t n, cap;
} plan;

static void add_cut(plan *P, uint64_t at, const char *why, uint64_t len)
{
	if (at == 0 || at >= len)
		return;
	for (size_t i = 0; i < P->n; i++)
		if (P->v[i].at == at)
			return;
	if (P->n == P->cap) {
		P->cap = P->cap ? 2 * P->cap : 64;
		P->v = realloc(P->v, P->cap * sizeof *P->v);
		ck_assert_ptr_nonnull(P->v);
	}
	P->v[P->n++] = (cut){ .at = at, .why = why };
}

/*
 * Samples that must / may survive a cut at `at`.  Plain SAMPLE records:
 * those that end by `at`.  Inner samples of compressed records: perf lists
 * them at the offset of the COMPRESSED record they end in; the records that
 * end by `at` are certainly complete, the one that `at` cuts may have given
 * up some of its samples.
 */
static void bounds(const pdx_layout *L, const pdx_samples *inner, bool compressed,
		   uint64_t at, uint64_t *lo, uint64_t *hi)
{
	uint64_t plain = 0;
	for (size_t i = 0; i < L->nrecs; i++)
		if (L->recs[i].type == PD_RECORD_SAMPLE &&
		    L->recs[i].off + L->recs[i].size <= at)
			plain++;
	*lo = *hi = plain;
	if (!compressed)
		return;
	if (!inner) { /* corpus: nothing known about inner samples */
		for (size_t i = 0; i < L->nrecs; i++)
			if (is_compressed(L->recs[i].type) && L->recs[i].off < at)
				*hi = UINT64_MAX;
		return;
	}
	for (size_t k = 0; k < inner->n; k++) {
		uint64_t o = inner->v[k].off;
		for (size_t i = 0; i < L->nrecs; i++) {
			if (L->recs[i].off != o)
				continue;
			if (!is_compressed(L->recs[i].type))
				break; /* a plain sample, counted above */
			if (o + L->recs[i].size <= at)
				(*lo)++, (*hi)++;
			else if (o < at)
				(*hi)++;
			break;
		}
	}
}

static void make_plan(const uint8_t *d, size_t len, const pdx_layout *L, plan *P)
{
	(void)d;
	add_cut(P, 4, "inside the magic", len);
	add_cut(P, 12, "inside the header size", len);
	if (!L->pipe) {
		add_cut(P, 60, "inside the file header", len);
		add_cut(P, 100, "inside the feature bitmap", len);
		if (L->attrs_off > 104)
			add_cut(P, 104 + 4, "inside the ids", len);
		add_cut(P, L->attrs_off + 10, "inside the attrs", len);
		if (L->attr_size)
			add_cut(P, L->attrs_off + L->attr_size - 4,
				"inside an attr's ids section", len);
		add_cut(P, L->data_off, "at the start of the data", len);
	}
	if (L->nrecs) {
		for (int k = 0; k <= 8; k++) {
			const pdx_rec *r = &L->recs[(L->nrecs - 1) * (size_t)k / 8];
			add_cut(P, r->off, "at a record boundary", len);
			add_cut(P, r->off + 4, "inside a record header", len);
			add_cut(P, r->off + r->size / 2 + 1, "inside a record", len);
			add_cut(P, r->off + r->size - 1, "one byte short of a record end", len);
		}
		size_t nc = 0;
		for (size_t i = 0; i < L->nrecs && nc < 4; i++) {
			const pdx_rec *r = &L->recs[i];
			if (!is_compressed(r->type))
				continue;
			nc++;
			add_cut(P, r->off + 16, "inside a compressed record's header", len);
			add_cut(P, r->off + r->size / 2, "inside a compressed record", len);
			add_cut(P, r->off + r->size - 3, "at the tail of a compressed record", len);
			add_cut(P, r->off + r->size, "after a compressed record", len);
		}
		for (size_t i = 0, n = 0; i < L->nrecs && n < 3; i++)
			if (L->recs[i].extra) {
				n++;
				add_cut(P, L->recs[i].off + L->recs[i].size + 1,
					"inside an out-of-record payload", len);
			}
	}
	if (!L->pipe && L->data_end < len) {
		add_cut(P, L->data_end, "at the feature index", len);
		add_cut(P, L->data_end + 8, "inside the feature index", len);
		add_cut(P, (L->data_end + len) / 2, "inside the feature sections", len);
	}
	add_cut(P, len - 1, "one byte short", len);
	qsort(P->v, P->n, sizeof *P->v, cut_cmp);
}

START_TEST(test_truncated)
{
	const input *in = &inputs[_i];
	char path[4096];
	if (in->corpus) {
		if (!pd_test_corpus(path, sizeof path, in->rel))
			PD_SKIP("corpus absent (%s)", in->rel);
	} else {
		pd_test_data(path, sizeof path, in->rel);
	}
	size_t len;
	uint8_t *d = pd_test_read_file(path, &len);
	if (!d && in->corpus)
		PD_SKIP("%s not in the corpus", in->rel);
	ck_assert_ptr_nonnull(d);
	uint64_t full;
	ck_assert_msg(full_samples(in, &full), "%s: no expected sample count", in->rel);
	pdx_layout L;
	ck_assert_msg(pdx_walk(d, len, false, &L), "%s: not PERFILE2", in->rel);
	bool compressed = false;
	for (size_t i = 0; i < L.nrecs; i++)
		compressed |= is_compressed(L.recs[i].type);
	pdx_samples inner = { 0 };
	if (in->samples) {
		char sp[4096];
		ck_assert(pdx_samples_load(pd_test_data(sp, sizeof sp, in->samples), &inner));
	}

	plan P = { 0 };
	make_plan(d, len, &L, &P);
	uint64_t first_end = L.nrecs ? L.recs[0].off + L.recs[0].size : len;
	for (size_t i = 0; i < P.n; i++) {
		cut *c = &P.v[i];
		bounds(&L, in->samples ? &inner : NULL, compressed, c->at, &c->lo, &c->hi);
		/* after the first record the header and attrs are all there */
		c->must_open = c->at >= first_end;
		/* a pipe may end at any record boundary; everything else is short */
		bool boundary = false;
		for (size_t k = 0; k < L.nrecs; k++)
			boundary |= L.recs[k].off == c->at ||
				    L.recs[k].off + L.recs[k].size + L.recs[k].extra == c->at;
		c->must_warn = !(L.pipe && boundary);
	}

	uint64_t prev = 0;
	int failures = 0;
	size_t refused = 0, exact = 0;
	for (size_t i = 0; i < P.n; i++) {
		const cut *c = &P.v[i];
		pd_test_readout o;
		pd_test_read_buffer(d, c->at, 0, &o);
		char where[512];
		snprintf(where, sizeof where, "%s cut at %" PRIu64 " of %zu (%s)",
			 in->rel, c->at, len, c->why);
		if (o.open_rc < 0) {
			refused++;
			ck_assert_msg(o.err.message[0], "%s: open failed without a message",
				      where);
			if (c->must_open) {
				fprintf(stderr, "%s: open failed: %s\n", where, o.err.message);
				failures++;
			}
			continue;
		}
		if (o.rc != PD_ITEROVER) {
			fprintf(stderr, "%s: reading ended with %d (%s), expected "
					"PD_ITEROVER and a warning\n",
				where, o.rc, o.err.message);
			failures++;
		} else if (c->must_warn && o.warnings == 0) {
			fprintf(stderr, "%s: no warning\n", where);
			failures++;
		}
		if (o.samples < c->lo || o.samples > c->hi) {
			fprintf(stderr, "%s: %" PRIu64 " samples, expected %" PRIu64
					"..%" PRIu64 "\n",
				where, o.samples, c->lo, c->hi);
			failures++;
		}
		/* samples lost to a cut the reader can see (a pipe may end at
		 * any record): the warning says so by its kind (a cut in the
		 * features after the data loses none) */
		if (c->must_warn && o.samples < full && o.data_lost == 0) {
			fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " samples and no "
					"PD_WARN_DATA_LOST warning\n",
				where, o.samples, full);
			failures++;
		}
		if (o.samples < prev) {
			fprintf(stderr, "%s: %" PRIu64 " samples, fewer than the %" PRIu64
					" of a shorter cut\n",
				where, o.samples, prev);
			failures++;
		}
		prev = o.samples;
		exact += c->lo == c->hi;
	}
	/* and the whole file */
	pd_test_readout o;
	pd_test_read_buffer(d, len, 0, &o);
	ck_assert_msg(o.open_rc == 0, "%s: %s", in->rel, o.err.message);
	ck_assert_msg(o.samples == full, "%s: %" PRIu64 " samples, expected %" PRIu64,
		      in->rel, o.samples, full);
	ck_assert_uint_ge(o.samples, prev);
	if (!in->corpus)
		ck_assert_msg(o.rc == PD_ITEROVER && o.warnings == 0 && o.data_lost == 0,
			      "%s: rc %d, %zu warnings on the complete file", in->rel,
			      o.rc, o.warnings);
	fprintf(stderr, "%s: %zu cuts (%zu refused at open, %zu with an exact "
			"sample count), %" PRIu64 " samples in full%s\n",
		in->rel, P.n, refused, exact, full,
		L.clean ? "" : "; the walker stopped early");
	ck_assert_msg(failures == 0, "%s: %d cuts handled wrongly (see above)",
		      in->rel, failures);
	free(P.v);
	free(L.recs);
	pdx_samples_free(&inner);
	free(d);
}
END_TEST

/* ----------------------------------------------------------- data.size 0 */

static const char *const killed[] = {
	"fp.data", "zstd.data", "sys.data", "two.data", "dwarf.data", "fp.be.data",
};
#define NKILLED (int)(sizeof killed / sizeof killed[0])

/*
 * perf killed before it finalised the header: data.size (offset 48) is 0
 * and the feature sections may or may not follow.  Two variants: the file
 * as it is with data.size cleared (features after the data must not be
 * taken for records), and the same cut right after the last record (what a
 * killed perf really leaves).
 */
START_TEST(test_data_size_zero)
{
	const char *rel = killed[_i];
	char path[4096];
	size_t len;
	uint8_t *d = pd_test_read_file(pd_test_data(path, sizeof path, rel), &len);
	ck_assert_ptr_nonnull(d);
	pdx_layout L;
	ck_assert(pdx_walk(d, len, false, &L));
	ck_assert(!L.pipe && L.clean);
	uint64_t full;
	input in = { rel, false, NULL };
	ck_assert(full_samples(&in, &full));
	memset(d + 48, 0, 8); /* zero is zero in either byte order */

	for (int variant = 0; variant < 2; variant++) {
		size_t n = variant ? L.data_end : len;
		pd_test_readout o;
		pd_test_read_buffer(d, n, 0, &o);
		const char *what = variant ? "data.size 0, no features" : "data.size 0";
		ck_assert_msg(o.open_rc == 0, "%s (%s): %s", rel, what, o.err.message);
		ck_assert_msg(o.rc == PD_ITEROVER, "%s (%s): %d %s", rel, what, o.rc,
			      o.err.message);
		ck_assert_msg(o.samples == full, "%s (%s): %" PRIu64 " samples of %" PRIu64,
			      rel, what, o.samples, full);
		ck_assert_msg(o.warnings >= 1, "%s (%s): no warning", rel, what);
		/* perf did not finish the file: whether its end is complete,
		 * the reader cannot know */
		ck_assert_msg(o.data_lost >= 1, "%s (%s): not a warning of data lost", rel, what);
		ck_assert_uint_eq(o.stats.by_type[PD_RECORD_SAMPLE], full);
	}
	/* data.size 0 and the last record cut in half */
	const pdx_rec *last = &L.recs[L.nrecs - 1];
	uint64_t want = 0;
	for (size_t i = 0; i + 1 < L.nrecs; i++)
		want += L.recs[i].type == PD_RECORD_SAMPLE;
	bool comp = false;
	for (size_t i = 0; i < L.nrecs; i++)
		comp |= is_compressed(L.recs[i].type);
	pd_test_readout o;
	pd_test_read_buffer(d, last->off + last->size / 2, 0, &o);
	ck_assert_msg(o.open_rc == 0 && o.rc == PD_ITEROVER, "%s: %s", rel,
		      o.err.message);
	ck_assert_uint_ge(o.warnings, 1);
	if (!comp)
		ck_assert_msg(o.samples == want, "%s: data.size 0 + cut: %" PRIu64
			      " samples, expected %" PRIu64, rel, o.samples, want);
	else
		ck_assert_uint_le(o.samples, full);
	free(L.recs);
	free(d);
}
END_TEST

/* ---------------------------------------------------------- directory */

/* A --threads directory whose busiest data.N stream was cut mid-record. */
START_TEST(test_directory_stream_cut)
{
	char src[4096], p[4300];
	pd_test_data(src, sizeof src, "threads.data");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	uint64_t total = 0, lost = 0;
	int biggest = -1;
	size_t biggest_len = 0;
	for (int n = -1; n < 62; n++) {
		char name[32];
		if (n < 0)
			snprintf(name, sizeof name, "data");
		else
			snprintf(name, sizeof name, "data.%d", n);
		snprintf(p, sizeof p, "%s/%s", src, name);
		size_t len;
		uint8_t *d = pd_test_read_file(p, &len);
		if (!d)
			break;
		pdx_layout L;
		ck_assert(pdx_walk(d, len, n >= 0, &L));
		for (size_t i = 0; i < L.nrecs; i++)
			total += L.recs[i].type == PD_RECORD_SAMPLE;
		if (n >= 0 && len > biggest_len) {
			biggest = n;
			biggest_len = len;
		}
		free(L.recs);
		snprintf(p, sizeof p, "%s/%s", dir, name);
		ck_assert(pd_test_write_file(p, d, len));
		free(d);
	}
	ck_assert_int_ge(biggest, 0);
	/* cut the biggest stream in the middle of a record two thirds in */
	snprintf(p, sizeof p, "%s/data.%d", dir, biggest);
	size_t len;
	uint8_t *d = pd_test_read_file(p, &len);
	pdx_layout L;
	ck_assert(pdx_walk(d, len, true, &L));
	ck_assert_uint_gt(L.nrecs, 3);
	const pdx_rec *r = &L.recs[L.nrecs * 2 / 3];
	uint64_t at = r->off + r->size / 2;
	for (size_t i = 0; i < L.nrecs; i++)
		if (L.recs[i].off + L.recs[i].size > at)
			lost += L.recs[i].type == PD_RECORD_SAMPLE;
	ck_assert(pd_test_write_file(p, d, at));
	free(L.recs);
	free(d);

	pd_test_readout o;
	pd_test_read_all(dir, 0, &o);
	ck_assert_msg(o.open_rc == 0 && o.rc == PD_ITEROVER, "%s", o.err.message);
	ck_assert_int_eq(o.mode, PD_MODE_DIRECTORY);
	ck_assert_msg(o.samples == total - lost, "%" PRIu64 " samples, expected %"
		      PRIu64 " - %" PRIu64, o.samples, total, lost);
	ck_assert_msg(o.warnings >= 1, "no warning for the cut data.%d", biggest);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("truncate");
	TCase *tc = tcase_create("truncate");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_truncated, 0, NINPUTS);
	tcase_add_loop_test(tc, test_data_size_zero, 0, NKILLED);
	tcase_add_test(tc, test_directory_stream_cut);
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
