#include "testutil.h"

#include <dirent.h>
#include <stdarg.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *pd_test_data(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", PD_TEST_DATA_DIR, rel);
	return buf;
}

bool pd_test_corpus_present(void)
{
	struct stat st;
	char p[4096];
	snprintf(p, sizeof p, "%s/index.jsonl", PD_CORPUS_DIR);
	return stat(p, &st) == 0;
}

const char *pd_test_corpus(char *buf, size_t n, const char *rel)
{
	if (!pd_test_corpus_present())
		return NULL;
	snprintf(buf, n, "%s/%s", PD_CORPUS_DIR, rel);
	return buf;
}

uint8_t *pd_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 65536, n = 0;
	uint8_t *d = malloc(cap);
	size_t got;
	while (d && (got = fread(d + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *nd = realloc(d, cap * 2);
			if (!nd) {
				free(d);
				d = NULL;
				break;
			}
			d = nd;
			cap *= 2;
		}
	}
	fclose(f);
	if (d)
		*len = n;
	return d;
}

bool pd_test_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

char *pd_test_run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t cap = 65536, n = 0;
	char *out = malloc(cap);
	size_t got;
	while (out && (got = fread(out + n, 1, cap - n - 1, p)) > 0) {
		n += got;
		if (n + 1 == cap) {
			char *no = realloc(out, cap * 2);
			if (!no) {
				free(out);
				out = NULL;
				break;
			}
			out = no;
			cap *= 2;
		}
	}
	int st = pclose(p);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (out)
		out[n] = '\0';
	return out;
}

bool pd_test_have_perf(void)
{
	int st = -1;
	char *out = pd_test_run("perf --version 2>/dev/null", &st);
	bool ok = out && st == 0 && strstr(out, "perf version");
	free(out);
	return ok;
}

char *pd_test_tmpdir(void)
{
	char tmpl[] = "/tmp/pdtest.XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

void pd_test_rmrf(const char *path)
{
	if (!path || strncmp(path, "/tmp/pdtest.", 12) != 0)
		return;
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	int rc = system(cmd);
	(void)rc;
}

bool pd_test_sh_ok(const char *cmd)
{
	int st = -1;
	char *out = pd_test_run(cmd, &st);
	free(out);
	return st == 0;
}

bool pd_test_compile(const char *compiler, const char *flags, const char *out,
		     const char *src)
{
	char cmd[16384];
	snprintf(cmd, sizeof cmd, "%s %s -o '%s' '%s' 2>&1", compiler, flags, out, src);
	return pd_test_sh_ok(cmd);
}

bool pd_test_perf_record(const char *data, const char *args, const char *workload)
{
	char cmd[16384];
	snprintf(cmd, sizeof cmd, "perf record %s -o '%s' -- %s >/dev/null 2>&1", args,
		 data, workload);
	struct stat sb;
	return pd_test_sh_ok(cmd) && stat(data, &sb) == 0;
}

bool pd_test_buildid_cache_add(const char *cache, const char *elf)
{
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "id=$(readelf -n '%s' 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -1); "
		 "[ ${#id} -gt 2 ] || exit 1; "
		 "d='%s'/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-); "
		 "mkdir -p \"$d\" && cp '%s' \"$d/elf\"",
		 elf, cache, elf);
	return pd_test_sh_ok(cmd);
}

bool pd_test_perf_first_time(const char *data, uint64_t *ns)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' --ns -F time 2>/dev/null | head -1",
		 data);
	int st;
	char *first = pd_test_run(cmd, &st);
	char *dot = first ? strchr(first, '.') : NULL;
	if (!dot) {
		free(first);
		return false;
	}
	*ns = strtoull(first, NULL, 10) * 1000000000u + strtoull(dot + 1, NULL, 10);
	free(first);
	return true;
}

void pd_test_pstack_push(pd_test_pstack *s, uint64_t addr, const char *name, bool inlined,
			 bool kernel)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->f = realloc(s->f, s->cap * sizeof *s->f);
		ck_assert_ptr_nonnull(s->f);
	}
	pd_test_pframe *f = &s->f[s->n++];
	f->addr = addr;
	f->name = strdup(name);
	ck_assert_ptr_nonnull(f->name);
	f->inlined = inlined;
	f->kernel = kernel;
}

void pd_test_parse_perf_stacks(char *text, pd_test_pstacks *out)
{
	memset(out, 0, sizeof *out);
	pd_test_pstack *cur = NULL;
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		unsigned tid;
		unsigned long long s, ns;
		if (*p != '\t' && sscanf(p, " %u %llu.%llu:", &tid, &s, &ns) == 3) {
			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 1024;
				out->v = realloc(out->v, out->cap * sizeof *out->v);
				ck_assert_ptr_nonnull(out->v);
			}
			cur = &out->v[out->n++];
			memset(cur, 0, sizeof *cur);
			cur->tid = tid;
			cur->time = s * 1000000000ull + ns;
		} else if (*p == '\t' && cur) {
			/* "\t<hex> <symbol> (<dso>)", or "(inlined)" for the dso */
			char *q = p + 1;
			while (*q == ' ')
				q++;
			char *rest;
			uint64_t addr = strtoull(q, &rest, 16);
			while (*rest == ' ')
				rest++;
			size_t len = strlen(rest);
			static const char inl[] = " (inlined)";
			bool inlined = false, kernel = false;
			if (len > sizeof inl - 1 && strcmp(rest + len - (sizeof inl - 1), inl) == 0) {
				inlined = true;
				rest[len - (sizeof inl - 1)] = '\0';
			} else {
				char *dso = strrchr(rest, '(');
				if (dso && dso > rest) {
					kernel = strncmp(dso, "([kernel", 8) == 0;
					dso[-1] = '\0';
				}
			}
			pd_test_pstack_push(cur, addr, rest, inlined, kernel);
		}
		p = nl ? nl + 1 : NULL;
	}
}

bool pd_test_perf_stacks(const char *data, pd_test_pstacks *out)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' --ns -F tid,time,ip,sym,dso 2>/dev/null",
		 data);
	int st;
	char *text = pd_test_run(cmd, &st);
	memset(out, 0, sizeof *out);
	if (!text || st != 0) {
		free(text);
		return false;
	}
	pd_test_parse_perf_stacks(text, out);
	free(text);
	return true;
}

void pd_test_pstacks_free(pd_test_pstacks *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = 0; j < s->v[i].n; j++)
			free(s->v[i].f[j].name);
		free(s->v[i].f);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

const char *pd_test_lab_open(bool need_cc, char **dir)
{
	*dir = NULL;
	if (!pd_test_have_perf())
		return "perf is not usable here";
	if (need_cc && !pd_test_sh_ok("cc --version >/dev/null 2>&1"))
		return "no C compiler (cc)";
	*dir = pd_test_tmpdir();
	if (!*dir)
		return "no temporary directory";
	return NULL;
}

void pd_test_lab_close(char *dir)
{
	if (dir) {
		pd_test_rmrf(dir);
		free(dir);
	}
}

char *pd_test_cli(const char *dir, const char *args, int *status, char **err)
{
	char errpath[4300];
	snprintf(errpath, sizeof errpath, "%s/stderr.%d.txt", dir ? dir : "/tmp",
		 (int)getpid());
	size_t cap = strlen(PD_CLI_PATH) + strlen(args) + strlen(errpath) + 16;
	char *cmd = malloc(cap);
	ck_assert_ptr_nonnull(cmd);
	snprintf(cmd, cap, "'%s' %s 2>'%s'", PD_CLI_PATH, args, errpath);
	char *out = pd_test_run(cmd, status);
	ck_assert_msg(out != NULL, "cannot run: %s", cmd);
	free(cmd);
	size_t n = 0;
	uint8_t *e = pd_test_read_file(errpath, &n);
	char *text = malloc(n + 1);
	ck_assert_ptr_nonnull(text);
	if (e)
		memcpy(text, e, n);
	text[n] = '\0';
	free(e);
	unlink(errpath);
	ck_assert_msg(!strstr(text, "AddressSanitizer") && !strstr(text, "runtime error:") &&
			      !strstr(text, "LeakSanitizer"),
		      "perfdiff %s: sanitizer report:\n%s", args, text);
	if (err)
		*err = text;
	else
		free(text);
	return out;
}

char *pd_test_cli_read(const char *dir, const char *fmt, ...)
{
	char args[8 * PD_TEST_PATHMAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	int st;
	char *err = NULL;
	char *out = pd_test_cli(dir, args, &st, &err);
	ck_assert_msg(st == 0 || st == 1, "perfdiff %s: status %d: %s", args, st, err);
	free(err);
	return out;
}

void pd_test_read_all(const char *path, unsigned flags, pd_test_readout *out)
{
	memset(out, 0, sizeof *out);
	pd_reader_options opts;
	pd_reader_options_init(&opts, PD_READER_OPTIONS_VERSION);
	opts.flags = flags;
	pd_reader *r = NULL;
	out->open_rc = pd_reader_open(&r, path, &opts, &out->err);
	if (out->open_rc < 0) {
		out->rc = out->open_rc;
		return;
	}
	const pd_record *rec;
	int rc;
	while ((rc = pd_reader_next(r, &rec, &out->err)) == 0)
		if (rec->type == PD_RECORD_SAMPLE)
			out->samples++;
	out->rc = rc;
	out->stats = *pd_reader_stats_get(r);
	out->nattrs = pd_reader_attr_count(r);
	out->warnings = pd_reader_warning_count(r);
	for (size_t i = 0; i < out->warnings; i++)
		out->data_lost += pd_reader_warning_kind(r, i) == PD_WARN_DATA_LOST;
	out->mode = pd_reader_header(r)->mode;
	pd_reader_free(r);
}

void pd_test_read_buffer(const void *data, size_t len, unsigned flags,
			 pd_test_readout *out)
{
	char *dir = pd_test_tmpdir();
	char path[4200];
	snprintf(path, sizeof path, "%s/input.data", dir ? dir : "/tmp");
	if (!dir || !pd_test_write_file(path, data, len)) {
		memset(out, 0, sizeof *out);
		out->open_rc = out->rc = PD_EIO;
		free(dir);
		return;
	}
	pd_test_read_all(path, flags, out);
	pd_test_rmrf(dir);
	free(dir);
}

/* Where skips are counted, a byte each: a file opened before check
 * forks the tests, so that every child's write moves the one offset the
 * runner reads at the end.  Test code's own state, not the library's. */
static int skip_fd = -1;

void pd_test_skipped(void)
{
	if (skip_fd >= 0 && write(skip_fd, "s", 1) != 1)
		fprintf(stderr, "cannot count a skip\n");
}

int pd_test_main(Suite *s)
{
	FILE *skips = tmpfile();
	skip_fd = skips ? fileno(skips) : -1;
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr), ran = srunner_ntests_run(sr);
	srunner_free(sr);
	off_t skipped = skip_fd >= 0 ? lseek(skip_fd, 0, SEEK_CUR) : 0;
	if (skips)
		fclose(skips);
	skip_fd = -1;
	if (failed)
		return EXIT_FAILURE;
	if (ran > 0 && skipped >= ran) {
		fprintf(stderr, "all %d tests skipped: not run\n", ran);
		return PD_TEST_SKIPPED;
	}
	return EXIT_SUCCESS;
}

/* ------------------------------------------------ perfparser's data */

/* Bigger than any binary or expected output perfparser ships. */
#define MAX_UNZLIB (512u << 20)

typedef int (*uncompress_fn)(unsigned char *dest, unsigned long *dest_len,
			     const unsigned char *src, unsigned long src_len);

static uncompress_fn zlib_uncompress(void)
{
	void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	uncompress_fn fn;
	void *sym = dlsym(h, "uncompress");
	memcpy(&fn, &sym, sizeof fn);
	return sym ? fn : NULL;
}

uint8_t *pd_test_load_maybe_zlib(const char *path, size_t *len)
{
	uint8_t *d = pd_test_read_file(path, len);
	if (d) {
		uint8_t *t = realloc(d, *len + 1);
		ck_assert_ptr_nonnull(t);
		t[*len] = '\0';
		return t;
	}
	char zpath[PD_TEST_PATHMAX];
	snprintf(zpath, sizeof zpath, "%s.zlib", path);
	size_t zn;
	uint8_t *z = pd_test_read_file(zpath, &zn);
	if (!z)
		return NULL;
	ck_assert_msg(zn > 4, "%s: too short", zpath);
	uint32_t want = (uint32_t)z[0] << 24 | (uint32_t)z[1] << 16 |
			(uint32_t)z[2] << 8 | z[3];
	ck_assert_msg(want > 0 && want <= MAX_UNZLIB, "%s: length %u", zpath, want);
	uncompress_fn un = zlib_uncompress();
	ck_assert_msg(un != NULL, "cannot load zlib (libz.so.1)");
	unsigned long out_len = want;
	d = malloc((size_t)want + 1);
	ck_assert_ptr_nonnull(d);
	int rc = un(d, &out_len, z + 4, zn - 4);
	ck_assert_msg(rc == 0 && out_len == want, "%s: inflate rc %d, %lu of %u bytes",
		      zpath, rc, out_len, want);
	d[want] = '\0';
	free(z);
	*len = want;
	return d;
}

void pd_test_mkdirs(const char *path)
{
	char buf[PD_TEST_PATHMAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

void pd_test_symfs_init(pd_test_symfs *fs, const char *dir, pd_session_options *o)
{
	snprintf(fs->root, sizeof fs->root, "%s/symfs", dir);
	snprintf(fs->nocache, sizeof fs->nocache, "%s/no-buildid-cache", dir);
	pd_test_mkdirs(fs->root);
	pd_test_mkdirs(fs->nocache);
	pd_session_options_init(o, PD_SESSION_OPTIONS_VERSION);
	o->symfs = fs->root;
	o->kallsyms = "/dev/null";
	o->buildid_dir = fs->nocache;
	o->jit_dir = dir;
}

size_t pd_test_symfs_add(const pd_test_symfs *fs, const char *data, const char *name,
			 const uint8_t *bin, size_t len)
{
	pd_reader *r;
	pd_error err;
	ck_assert_msg(pd_reader_open(&r, data, NULL, &err) == 0, "%s", err.message);
	const pd_record *rec;
	size_t placed = 0;
	while (pd_reader_next(r, &rec, &err) == 0) {
		if (rec->type != PD_RECORD_MMAP && rec->type != PD_RECORD_MMAP2)
			continue;
		const char *fn = rec->u.mmap.filename;
		const char *base = fn && fn[0] == '/' ? strrchr(fn, '/') + 1 : NULL;
		if (!base || strcmp(base, name) != 0)
			continue;
		char path[2 * PD_TEST_PATHMAX], dir[2 * PD_TEST_PATHMAX];
		snprintf(path, sizeof path, "%s%s", fs->root, fn);
		struct stat st;
		if (stat(path, &st) == 0)
			continue;
		snprintf(dir, sizeof dir, "%s", path);
		*strrchr(dir, '/') = '\0';
		pd_test_mkdirs(dir);
		ck_assert_msg(pd_test_write_file(path, bin, len), "cannot write %s", path);
		placed++;
	}
	pd_reader_free(r);
	return placed;
}

void pd_test_assert_same_counts(const pd_unresolved_count *a, size_t na,
				const pd_unresolved_count *b, size_t nb)
{
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		size_t j = 0;
		while (j < nb && strcmp(a[i].dso, b[j].dso) != 0)
			j++;
		ck_assert_msg(j < nb && a[i].samples == b[j].samples, "%s: %llu samples", a[i].dso,
			      (unsigned long long)a[i].samples);
	}
}

/* ------------------------------------------------------ byte images */

void pd_test_put(pd_test_img *m, const void *v, size_t n)
{
	if (m->n + n > m->cap) {
		size_t cap = m->cap ? m->cap : 4096;
		while (cap < m->n + n)
			cap *= 2;
		m->b = realloc(m->b, cap);
		ck_assert_ptr_nonnull(m->b);
		m->cap = cap;
	}
	if (n)
		memcpy(m->b + m->n, v, n);
	m->n += n;
}

void pd_test_put16(pd_test_img *m, uint16_t v) { pd_test_put(m, &v, 2); }
void pd_test_put32(pd_test_img *m, uint32_t v) { pd_test_put(m, &v, 4); }
void pd_test_put64(pd_test_img *m, uint64_t v) { pd_test_put(m, &v, 8); }

void pd_test_put_zero(pd_test_img *m, size_t n)
{
	static const uint8_t z[256];
	while (n) {
		size_t k = n < sizeof z ? n : sizeof z;
		pd_test_put(m, z, k);
		n -= k;
	}
}

void pd_test_pad8(pd_test_img *m) { pd_test_put_zero(m, (8 - m->n % 8) % 8); }
void pd_test_set16(pd_test_img *m, size_t at, uint16_t v) { memcpy(m->b + at, &v, 2); }
void pd_test_set64(pd_test_img *m, size_t at, uint64_t v) { memcpy(m->b + at, &v, 8); }

void pd_test_img_free(pd_test_img *m)
{
	free(m->b);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------- written to memory */

char *pd_test_written(pd_test_write_fn write, void *ctx)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	pd_writer *w;
	pd_error err;
	ck_assert_int_eq(pd_writer_new_file(&w, f, &err), 0);
	ck_assert_msg(write(w, ctx, &err) == 0, "%s", err.message);
	ck_assert_int_eq(pd_writer_flush(w, &err), 0);
	pd_writer_free(w);
	fclose(f);
	return text;
}
