/*
 * pd_symcache: sessions that share one name every frame exactly as
 * sessions on their own do, also when they run at the same time on two
 * threads, and the cache holds what it says (one kallsyms table, one
 * opened debug file) however many sessions used it.
 *
 * The program's DWARF lives in a zlib-compressed separate debug file in a
 * private build-id cache next to a stripped copy, as distributions ship
 * libraries: the case the cache is for.  The oracle is a session without
 * a cache on the same recording (itself checked against perf script by
 * test_script and test_symbolizer); the inline frames of `hot_inline`
 * show that the shared DWARF was read, the counts that it was shared.
 */
#include "testutil.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "perfdiff/session.h"

static char *g_dir;
static const char *g_skip;
static char g_data[2][4200], g_cache[4200];

static void lab_setup(void)
{
	g_skip = pd_test_lab_open(true, &g_dir);
	if (g_skip)
		return;
	if (!pd_test_sh_ok("objcopy --version >/dev/null 2>&1 && strip --version >/dev/null 2>&1")) {
		g_skip = "no objcopy/strip";
		return;
	}
	char src[4200], bin[4200], cmd[20000];
	if (!pd_test_data(src, sizeof src, "../workloads/inline.c")) {
		g_skip = "workload source not found";
		return;
	}
	snprintf(bin, sizeof bin, "%s/inl", g_dir);
	if (!pd_test_compile("cc", "-O2 -g -fno-omit-frame-pointer -Wl,--build-id", bin, src)) {
		g_skip = "cannot compile the workload";
		return;
	}
	/* stripped file + compressed debug file under .build-id, as perf's
	 * cache lays them out: the recorded path itself holds no DWARF use */
	snprintf(g_cache, sizeof g_cache, "%s/cache", g_dir);
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && id=$(readelf -n inl | sed -n 's/.*Build ID: //p') && test -n \"$id\" && "
		 "d=cache/x/$id && mkdir -p $d cache/.build-id/$(echo $id | cut -c1-2) && "
		 "objcopy --only-keep-debug --compress-debug-sections=zlib inl $d/debug && "
		 "strip -o $d/elf inl && "
		 "ln -s ../../x/$id cache/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-)",
		 g_dir);
	if (!pd_test_sh_ok(cmd)) {
		g_skip = "cannot make the build-id cache";
		return;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(g_data[i], sizeof g_data[i], "%s/run%d.data", g_dir, i);
		snprintf(cmd, sizeof cmd, "'%s' 300", bin);
		if (!pd_test_perf_record(g_data[i], "-N -q -e cpu-clock -g", cmd)) {
			g_skip = "perf record failed";
			return;
		}
	}
}

static void lab_teardown(void)
{
	pd_test_lab_close(g_dir);
	g_dir = NULL;
}

typedef struct dump {
	char *text;
	size_t len, cap;
	size_t samples, inline_hot, kernel_named;
} dump;

static void put(dump *d, const char *s)
{
	size_t n = strlen(s);
	if (d->len + n + 1 > d->cap) {
		d->cap = (d->len + n + 1) * 2;
		d->text = realloc(d->text, d->cap);
		ck_assert_ptr_nonnull(d->text);
	}
	memcpy(d->text + d->len, s, n + 1);
	d->len += n;
}

typedef struct job {
	const char *path;
	pd_symcache *cache;
	dump out;
	int rc;
	char why[512];
} job;

/* Every frame of every sample as text: name, inline mark, file:line, dso. */
static void *read_all(void *arg)
{
	job *j = arg;
	pd_session_options o;
	pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
	o.flags = PD_SESSION_SRCLINE;
	o.buildid_dir = g_cache;
	o.symcache = j->cache;
	pd_session *s;
	pd_error err;
	memset(&err, 0, sizeof err);
	j->rc = pd_session_open(&s, j->path, &o, &err);
	if (j->rc < 0) {
		snprintf(j->why, sizeof j->why, "%s", err.message);
		return NULL;
	}
	const pd_resolved_sample *rs;
	char line[1024];
	while ((j->rc = pd_session_next(s, &rs, &err)) == 0) {
		j->out.samples++;
		for (size_t i = 0; i < rs->nframes; i++) {
			const pd_frame *f = &rs->frames[i];
			snprintf(line, sizeof line, "%s%s %s:%u %s|", f->symbol ? f->symbol : "?",
				 f->inlined ? "(i)" : "", f->srcfile ? f->srcfile : "-", f->line,
				 f->dso ? f->dso : "-");
			put(&j->out, line);
			if (f->inlined && f->symbol && strcmp(f->symbol, "hot_inline") == 0)
				j->out.inline_hot++;
			if (f->symbol && f->dso && strcmp(f->dso, "[kernel.kallsyms]") == 0)
				j->out.kernel_named++;
		}
		put(&j->out, "\n");
	}
	if (j->rc != PD_ITEROVER)
		snprintf(j->why, sizeof j->why, "%s", err.message);
	pd_session_free(s);
	return NULL;
}

static void check_job(const job *j)
{
	ck_assert_msg(j->rc == PD_ITEROVER, "%s: %s", j->path, j->why);
	ck_assert_uint_gt(j->out.samples, 50);
}

START_TEST(test_shared_equals_alone)
{
	PD_SKIP_IF(g_skip);
	job alone[2] = { { .path = g_data[0] }, { .path = g_data[1] } };
	for (int i = 0; i < 2; i++) {
		read_all(&alone[i]);
		check_job(&alone[i]);
	}
	/* the premise: DWARF from the debug file gives inline frames */
	ck_assert_uint_gt(alone[0].out.inline_hot, 20);

	pd_symcache *c;
	pd_error err;
	ck_assert_int_eq(pd_symcache_new(&c, &err), 0);

	/* one after the other, then both at once (two sides of a diff) */
	job seq[2] = { { .path = g_data[0], .cache = c }, { .path = g_data[1], .cache = c } };
	pd_symcache_stats st, first;
	for (int i = 0; i < 2; i++) {
		read_all(&seq[i]);
		check_job(&seq[i]);
		ck_assert_str_eq(seq[i].out.text, alone[i].out.text);
		ck_assert_int_eq(pd_symcache_stats_get(c, i == 0 ? &first : &st,
						       PD_SYMCACHE_STATS_VERSION), 0);
	}
	/* the program's debug file (and libc's, where libc6-dbg is
	 * installed), opened by the first session and reused by the second,
	 * which may add a dso the first had no sample in (ld.so) */
	ck_assert_uint_ge(first.dsos, 1);
	ck_assert_uint_ge(st.dsos, first.dsos);
	ck_assert_uint_eq(st.failed, 0);
	pd_symcache_stats both = st;
	/* a kernel table only when a recording named kernel frames */
	ck_assert_uint_eq(st.kernel_tables,
			  alone[0].out.kernel_named + alone[1].out.kernel_named > 0 ? 1 : 0);
	pd_symcache_free(c);

	ck_assert_int_eq(pd_symcache_new(&c, &err), 0);
	job par[2] = { { .path = g_data[0], .cache = c }, { .path = g_data[1], .cache = c } };
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, read_all, &par[1]), 0);
	read_all(&par[0]);
	pthread_join(t, NULL);
	for (int i = 0; i < 2; i++) {
		check_job(&par[i]);
		ck_assert_str_eq(par[i].out.text, alone[i].out.text);
	}
	/* the same entries as one after the other: none opened twice */
	ck_assert_int_eq(pd_symcache_stats_get(c, &st, PD_SYMCACHE_STATS_VERSION), 0);
	ck_assert_uint_eq(st.dsos, both.dsos);
	ck_assert_uint_eq(st.kernel_tables, both.kernel_tables);
	pd_symcache_free(c);

	/* a budget of one byte: every entry goes once no session holds it,
	 * the next session reads it again, and the frames stay the same */
	pd_symcache_options co;
	ck_assert_int_eq(pd_symcache_options_init(&co, PD_SYMCACHE_OPTIONS_VERSION), 0);
	ck_assert_uint_eq(co.max_bytes, PD_SYMCACHE_MAX_BYTES_DEFAULT);
	co.max_bytes = 1;
	ck_assert_int_eq(pd_symcache_new_opts(&c, &co, &err), 0);
	job tiny[2] = { { .path = g_data[0], .cache = c }, { .path = g_data[1], .cache = c } };
	for (int i = 0; i < 2; i++) {
		read_all(&tiny[i]);
		check_job(&tiny[i]);
		ck_assert_str_eq(tiny[i].out.text, alone[i].out.text);
	}
	ck_assert_int_eq(pd_symcache_stats_get(c, &st, PD_SYMCACHE_STATS_VERSION), 0);
	ck_assert_uint_eq(st.max_bytes, 1);
	ck_assert_uint_eq(st.dsos + st.kernel_tables, 0);
	ck_assert_uint_eq(st.bytes, 0);
	ck_assert_uint_ge(st.evictions, st.misses);
	ck_assert_uint_ge(st.misses, 2 * both.dsos);   /* each read again */
	pd_symcache_free(c);
	for (int i = 0; i < 2; i++)
		free(tiny[i].out.text);
	fprintf(stderr, "symcache: %zu + %zu samples, %zu inline hot_inline frames, %zu kernel "
		"frames named; shared, sequential and concurrent, identical to alone\n",
		alone[0].out.samples, alone[1].out.samples, alone[0].out.inline_hot,
		alone[0].out.kernel_named);
	for (int i = 0; i < 2; i++) {
		free(alone[i].out.text);
		free(seq[i].out.text);
		free(par[i].out.text);
	}
}
END_TEST

START_TEST(test_api_edges)
{
	pd_error err;
	ck_assert_int_eq(pd_symcache_new(NULL, &err), PD_EINVAL);
	pd_symcache_free(NULL);
	pd_symcache_stats st;
	ck_assert_int_eq(pd_symcache_stats_get(NULL, &st, PD_SYMCACHE_STATS_VERSION), 0);
	ck_assert_uint_eq(st.dsos + st.kernel_tables + st.failed, 0);
	pd_symcache *c;
	ck_assert_int_eq(pd_symcache_new(&c, &err), 0);
	ck_assert_int_eq(pd_symcache_stats_get(c, &st, PD_SYMCACHE_STATS_VERSION), 0);
	ck_assert_uint_eq(st.dsos + st.kernel_tables + st.failed, 0);
	/* a version this library does not know, or none: nothing written */
	memset(&st, 0xa5, sizeof st);
	ck_assert_int_eq(pd_symcache_stats_get(c, &st, 0), PD_EINVAL);
	ck_assert_int_eq(pd_symcache_stats_get(c, &st, PD_SYMCACHE_STATS_VERSION + 1), PD_EINVAL);
	ck_assert_int_eq(pd_symcache_stats_get(c, NULL, PD_SYMCACHE_STATS_VERSION), PD_EINVAL);
	for (size_t i = 0; i < sizeof st; i++)
		ck_assert_uint_eq(((const unsigned char *)&st)[i], 0xa5);
	/* version 1 (no counters): only its three fields written */
	ck_assert_int_eq(pd_symcache_stats_get(c, &st, 1), 0);
	ck_assert_uint_eq(st.dsos + st.kernel_tables + st.failed, 0);
	ck_assert_uint_eq(st.hits, 0xa5a5a5a5a5a5a5a5ull);
	pd_symcache_free(c);

	/* options: versions known, and refused */
	pd_symcache_options o;
	ck_assert_int_eq(pd_symcache_options_init(&o, 0), PD_EINVAL);
	ck_assert_int_eq(pd_symcache_options_init(&o, PD_SYMCACHE_OPTIONS_VERSION + 1), PD_EINVAL);
	ck_assert_int_eq(pd_symcache_options_init(NULL, PD_SYMCACHE_OPTIONS_VERSION), PD_EINVAL);
	pd_symcache_options bad = PD_SYMCACHE_OPTIONS_INIT;
	bad.version = PD_SYMCACHE_OPTIONS_VERSION + 1;
	ck_assert_int_eq(pd_symcache_new_opts(&c, &bad, &err), PD_EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(pd_symcache_new_opts(&c, NULL, &err), 0);
	ck_assert_int_eq(pd_symcache_stats_get(c, &st, PD_SYMCACHE_STATS_VERSION), 0);
	ck_assert_uint_eq(st.max_bytes, PD_SYMCACHE_MAX_BYTES_DEFAULT);
	pd_symcache_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("symcache");
	TCase *tc = tcase_create("symcache");
	tcase_add_unchecked_fixture(tc, lab_setup, lab_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_shared_equals_alone);
	tcase_add_test(tc, test_api_edges);
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
