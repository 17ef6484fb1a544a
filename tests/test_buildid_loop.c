/*
 * A build-id cache with symbolic link loops must not hang or crash the
 * symbolizer: the dso whose cache entry loops keeps [unknown] frames and
 * gets a warning, like any dso whose file is missing.
 *
 * tests/data/sys.data (system-wide) has build-ids for the workload, libc
 * and perf.  The caches built here hold, for those:
 *   workload  .build-id/xx/rest -> rest                    (a self loop)
 *   libc      .build-id/xx/rest -> rest.2 -> rest          (two links)
 *   perf      .build-id/xx/rest/{elf,debug} loops          (perf's dir layout)
 * and a second cache whose .build-id/xx directory links to itself.  The
 * symfs is an empty directory, so the recorded paths are not found either.
 * A control run with a real copy of the host's libc in the cache (when its
 * build-id is the recorded one) shows that the entry would have been used.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdiff/session.h"

typedef struct dso_id {
	char path[256];
	char hex[41];
} dso_id;

/* The recording's build-id for `path`, as hex; false when absent. */
static bool recorded_id(const char *data, const char *path, dso_id *out)
{
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, data, NULL, &err) == 0, "%s", err.message);
	const pd_header_info *h = pd_reader_header(r);
	bool found = false;
	for (size_t i = 0; i < h->nr_build_ids && !found; i++) {
		const pd_build_id *b = &h->build_ids[i];
		if (!b->path || strcmp(b->path, path) != 0 || b->size == 0)
			continue;
		snprintf(out->path, sizeof out->path, "%s", b->path);
		for (size_t k = 0; k < b->size && k < 20; k++)
			snprintf(out->hex + 2 * k, 3, "%02x", b->id[k]);
		found = true;
	}
	pd_reader_free(r);
	return found;
}

/* Workload path as recorded (a temporary directory of the fixture script). */
static bool recorded_workload(const char *data, dso_id *out)
{
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, data, NULL, &err) == 0, "%s", err.message);
	const pd_header_info *h = pd_reader_header(r);
	bool found = false;
	for (size_t i = 0; i < h->nr_build_ids && !found; i++) {
		const char *p = h->build_ids[i].path;
		size_t n = p ? strlen(p) : 0;
		if (n > 9 && strcmp(p + n - 9, "/workload") == 0) {
			char path[256];
			snprintf(path, sizeof path, "%s", p); /* p dies with the reader */
			pd_reader_free(r);
			return recorded_id(data, path, out);
		}
	}
	pd_reader_free(r);
	return found;
}

static void xsymlink(const char *target, const char *dir, const char *name)
{
	char p[4096];
	int w = snprintf(p, sizeof p, "%s/%s", dir, name);
	ck_assert_msg(w > 0 && (size_t)w < sizeof p, "path too long: %s/%s", dir, name);
	ck_assert_msg(symlink(target, p) == 0, "symlink %s -> %s failed", p, target);
}

/* "<cache>/.build-id/xx", created; returns it in buf. */
static const char *id_dir(char *buf, size_t n, const char *cache, const dso_id *d)
{
	snprintf(buf, n, "%.1000s/.build-id", cache);
	mkdir(buf, 0755);
	snprintf(buf, n, "%.1000s/.build-id/%.2s", cache, d->hex);
	mkdir(buf, 0755);
	return buf;
}

typedef struct outcome {
	int rc;
	pd_error err;
	size_t samples;
	size_t frames_in[3], named_in[3]; /* per looked-at dso */
	char warnings[64][PD_ERROR_MESSAGE_MAX];
	size_t nwarnings;
} outcome;

static void run(const char *data, const char *cache, const char *aux, const dso_id *dsos,
		size_t ndsos, outcome *o)
{
	memset(o, 0, sizeof *o);
	char kallsyms[4200], symfs[4200], jit[4200];
	snprintf(kallsyms, sizeof kallsyms, "%s/kallsyms", aux);
	snprintf(symfs, sizeof symfs, "%s/symfs", aux);
	snprintf(jit, sizeof jit, "%s/jit", aux);
	pd_session_options opts;
	pd_session_options_init(&opts, PD_SESSION_OPTIONS_VERSION);
	opts.kallsyms = kallsyms;
	opts.symfs = symfs;
	opts.jit_dir = jit;
	opts.buildid_dir = cache;
	pd_session *s;
	ck_assert_msg(pd_session_open(&s, data, &opts, &o->err) == 0, "%s", o->err.message);
	const pd_resolved_sample *rs;
	while ((o->rc = pd_session_next(s, &rs, &o->err)) == 0) {
		o->samples++;
		for (size_t i = 0; i < rs->nframes; i++)
			for (size_t k = 0; k < ndsos; k++)
				if (strcmp(rs->frames[i].dso, dsos[k].path) == 0) {
					o->frames_in[k]++;
					o->named_in[k] += rs->frames[i].symbol != NULL;
				}
	}
	for (size_t i = 0; i < pd_session_warning_count(s) && i < 64; i++)
		snprintf(o->warnings[o->nwarnings++], PD_ERROR_MESSAGE_MAX, "%s",
			 pd_session_warning(s, i));
	pd_session_free(s);
}

static bool warned_about(const outcome *o, const dso_id *d)
{
	for (size_t i = 0; i < o->nwarnings; i++)
		if (strstr(o->warnings[i], d->path) && strstr(o->warnings[i], d->hex) &&
		    strstr(o->warnings[i], "[unknown]"))
			return true;
	return false;
}

static void write_text(const char *path, const char *text)
{
	ck_assert(pd_test_write_file(path, text, strlen(text)));
}

START_TEST(test_loops)
{
	char data[4096];
	pd_test_data(data, sizeof data, "sys.data");
	dso_id d[3];
	ck_assert(recorded_workload(data, &d[0]));
	ck_assert(recorded_id(data, "/usr/lib/x86_64-linux-gnu/libc.so.6", &d[1]));
	ck_assert(recorded_id(data, "/usr/bin/perf", &d[2]));

	char *aux = pd_test_tmpdir();
	char p[4200], dir[4200];
	snprintf(p, sizeof p, "%s/symfs", aux);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/jit", aux);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/kallsyms", aux);
	write_text(p, "ffffffff81000000 T _text\nffffffff81001000 T do_syscall_64\n");

	/* cache A: loops at the entries themselves */
	char cache[1024];
	snprintf(cache, sizeof cache, "%.900s/cache-a", aux);
	ck_assert_int_eq(mkdir(cache, 0755), 0);
	xsymlink(d[0].hex + 2, id_dir(dir, sizeof dir, cache, &d[0]), d[0].hex + 2);
	char two[64];
	snprintf(two, sizeof two, "%.38s.2", d[1].hex + 2);
	id_dir(dir, sizeof dir, cache, &d[1]);
	xsymlink(two, dir, d[1].hex + 2);
	xsymlink(d[1].hex + 2, dir, two);
	id_dir(dir, sizeof dir, cache, &d[2]);
	snprintf(p, sizeof p, "%.2000s/%.38s", dir, d[2].hex + 2);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	xsymlink("elf", p, "elf");
	xsymlink("debug.2", p, "debug");
	xsymlink("debug", p, "debug.2");
	xsymlink("vdso", p, "vdso");

	outcome o;
	run(data, cache, aux, d, 3, &o);
	ck_assert_msg(o.rc == PD_ITEROVER, "%s", o.err.message);
	ck_assert_uint_gt(o.samples, 100);
	for (size_t k = 0; k < 3; k++) {
		fprintf(stderr, "%s: %zu frames, %zu named\n", d[k].path, o.frames_in[k],
			o.named_in[k]);
		ck_assert_msg(o.frames_in[k] > 0, "no frames in %s", d[k].path);
		ck_assert_msg(o.named_in[k] == 0, "%s: %zu frames named through a loop",
			      d[k].path, o.named_in[k]);
		ck_assert_msg(warned_about(&o, &d[k]), "no warning names %s (%s)", d[k].path,
			      d[k].hex);
	}

	/* cache B: the .build-id/xx directory itself loops */
	snprintf(cache, sizeof cache, "%.900s/cache-b", aux);
	ck_assert_int_eq(mkdir(cache, 0755), 0);
	snprintf(p, sizeof p, "%.1000s/.build-id", cache);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	for (size_t k = 0; k < 3; k++) {
		char name[3] = { d[k].hex[0], d[k].hex[1], 0 };
		char q[4300];
		snprintf(q, sizeof q, "%s/%s", p, name);
		if (access(q, F_OK) != 0 && symlink(name, q) != 0)
			ck_abort_msg("symlink %s failed", q);
	}
	run(data, cache, aux, d, 3, &o);
	ck_assert_msg(o.rc == PD_ITEROVER, "%s", o.err.message);
	for (size_t k = 0; k < 3; k++) {
		ck_assert_uint_eq(o.named_in[k], 0);
		ck_assert_msg(warned_about(&o, &d[k]), "no warning names %s", d[k].path);
	}

	/* control: a real libc in the cache is found and names libc frames */
	char host_hex[129] = "";
	size_t n = 0;
	{
		int st;
		char *out = pd_test_run("readelf -n /usr/lib/x86_64-linux-gnu/libc.so.6 2>/dev/null"
					" | sed -n 's/.*Build ID: *//p'", &st);
		if (out) {
			n = strspn(out, "0123456789abcdef");
			if (n < sizeof host_hex)
				memcpy(host_hex, out, n);
			free(out);
		}
	}
	if (n != 40 || strcmp(host_hex, d[1].hex) != 0) {
		fprintf(stderr, "control skipped: host libc build-id %s, recorded %s\n", host_hex,
			d[1].hex);
	} else {
		snprintf(cache, sizeof cache, "%.900s/cache-c", aux);
		ck_assert_int_eq(mkdir(cache, 0755), 0);
		id_dir(dir, sizeof dir, cache, &d[1]);
		snprintf(p, sizeof p, "%.2000s/%.38s", dir, d[1].hex + 2);
		size_t len;
		uint8_t *lib = pd_test_read_file("/usr/lib/x86_64-linux-gnu/libc.so.6", &len);
		ck_assert_ptr_nonnull(lib);
		ck_assert(pd_test_write_file(p, lib, len));
		free(lib);
		run(data, cache, aux, d, 3, &o);
		fprintf(stderr, "control: libc %zu frames, %zu named\n", o.frames_in[1],
			o.named_in[1]);
		ck_assert_uint_gt(o.named_in[1], 0);
		ck_assert(!warned_about(&o, &d[1]));
	}
	pd_test_rmrf(aux);
	free(aux);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("buildid_loop");
	TCase *tc = tcase_create("loops");
	tcase_set_timeout(tc, 120); /* a hang fails here, not after 10 minutes */
	tcase_add_test(tc, test_loops);
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
