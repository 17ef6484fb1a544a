/*
 * Mutated inputs: every fixture in tests/data (each file of the
 * threads.data directory mutated inside a copy of the directory) and every
 * perf.data of the corpus, cut at 16 offsets and with 16 sets of random bit
 * flips (a seeded PRNG: the same cases every run).  The reader must end each
 * one with a result or an error that has a message, never a signal, a
 * sanitizer report or a hang; the fixtures also go through pd_session
 * (maps and symbolization).
 *
 * Each case runs in its own child process, so a crash fails the test with
 * the file, the mutation (offset, or seed and flipped bytes) and the
 * signal or exit status; the child's stderr holds any sanitizer report.
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfdiff/session.h"

#define NCUTS 16
#define NFLIPS 16
#define MAX_FLIP_BITS 4
/* a case that takes this long is a hang (ASan builds are ~5x slower) */
#define CASE_TIMEOUT_S 60
/* the child reports a broken contract (an error without a message, ...) */
#define EXIT_CONTRACT 3

/* ------------------------------------------------------------ inputs */

typedef struct input {
	char *path;        /* file, or the directory for dir mode */
	char *name;        /* as printed */
	bool fixture;      /* also run through pd_session */
	bool dir;          /* mutate `member` inside a copy of the directory */
	char *member;
} input;

static input *g_inputs;
static size_t g_ninputs, g_nfixtures;

static void add_input(const char *path, const char *name, bool fixture, const char *member)
{
	g_inputs = realloc(g_inputs, (g_ninputs + 1) * sizeof *g_inputs);
	input *in = &g_inputs[g_ninputs++];
	in->path = strdup(path);
	in->name = strdup(name);
	in->fixture = fixture;
	in->dir = member != NULL;
	in->member = member ? strdup(member) : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in `dir` accepted by `keep`. */
static char **list_dir(const char *dir, bool (*keep)(const char *dir, const char *name),
		       size_t *n)
{
	*n = 0;
	char **v = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !keep(dir, de->d_name))
			continue;
		v = realloc(v, (*n + 1) * sizeof *v);
		v[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_str);
	return v;
}

static bool is_data_file(const char *dir, const char *name)
{
	size_t n = strlen(name);
	char p[4096];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return n > 5 && strcmp(name + n - 5, ".data") == 0 && stat(p, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

static bool is_regular(const char *dir, const char *name)
{
	char p[4096];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool has_perf_magic(const char *path)
{
	FILE *f = fopen(path, "rb");
	char m[8];
	bool ok = f && fread(m, 1, 8, f) == 8 &&
		  (!memcmp(m, "PERFILE2", 8) || !memcmp(m, "2ELIFREP", 8) ||
		   !memcmp(m, "PERFFILE", 8) || !memcmp(m, "ELIFFREP", 8));
	if (f)
		fclose(f);
	return ok;
}

/* Every perf.data under the corpus, found by its magic. */
static void add_corpus(const char *root, const char *rel)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/%s", root, rel);
	DIR *d = opendir(dir);
	if (!d)
		return;
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof *names);
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		char sub[4096], path[8192];
		snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", names[i]);
		snprintf(path, sizeof path, "%s/%s", root, sub);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			add_corpus(root, sub);
		else if (S_ISREG(st.st_mode) && st.st_size > 0 && has_perf_magic(path))
			add_input(path, sub, false, NULL);
		free(names[i]);
	}
	free(names);
}

static void collect_inputs(void)
{
	char data[4096];
	pd_test_data(data, sizeof data, "");
	size_t n;
	char **files = list_dir(data, is_data_file, &n);
	for (size_t i = 0; i < n; i++) {
		char p[8192];
		snprintf(p, sizeof p, "%s/%s", data, files[i]);
		add_input(p, files[i], true, NULL);
		free(files[i]);
	}
	free(files);
	char threads[4200];
	snprintf(threads, sizeof threads, "%s/threads.data", data);
	char **members = list_dir(threads, is_regular, &n);
	for (size_t i = 0; i < n; i++) {
		char name[4400];
		snprintf(name, sizeof name, "threads.data/%s", members[i]);
		add_input(threads, name, true, members[i]);
		free(members[i]);
	}
	free(members);
	g_nfixtures = g_ninputs;
	char corpus[4096];
	if (pd_test_corpus(corpus, sizeof corpus, ""))
		add_corpus(corpus, "");
}

/* ------------------------------------------------------------ mutations */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t name_seed(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

typedef struct mutation {
	bool cut;
	size_t len;                      /* bytes kept */
	uint64_t seed;
	size_t nflips;
	size_t flip_at[MAX_FLIP_BITS];
	unsigned flip_bit[MAX_FLIP_BITS];
	char desc[256];
} mutation;

/*
 * Case k of a `len`-byte file.  Cuts: four inside the headers, twelve spread
 * over the file with some jitter.  Flips: 1 to 4 bits; odd cases aim at the
 * first or last 4 KiB (headers, attrs, feature sections), even ones anywhere.
 */
static void make_mutation(const char *name, size_t len, int k, mutation *m)
{
	memset(m, 0, sizeof *m);
	m->seed = name_seed(name) ^ (uint64_t)k * 0x9e3779b97f4a7c15ull;
	uint64_t s = m->seed;
	if (k < NCUTS) {
		static const size_t early[] = { 7, 16, 103, 150 };
		size_t at;
		if (k < 4) {
			at = early[k];
		} else {
			uint64_t jitter = splitmix(&s) % 64;
			at = (size_t)((uint64_t)len * (uint64_t)(k - 3) / (NCUTS - 3));
			at = at + jitter >= 32 ? at + jitter - 32 : 0;
		}
		m->cut = true;
		m->len = len ? (at < len ? at : len - 1) : 0;
		snprintf(m->desc, sizeof m->desc, "cut at %zu of %zu bytes", m->len, len);
		return;
	}
	int f = k - NCUTS;
	m->len = len;
	m->nflips = 1 + (size_t)f % MAX_FLIP_BITS;
	size_t lo = 0, span = len;
	if (f % 2 == 1 && len > 4096) {
		span = 4096;
		lo = f % 4 == 1 ? 0 : len - 4096;
	}
	int n = snprintf(m->desc, sizeof m->desc, "seed %#llx flips", (unsigned long long)m->seed);
	for (size_t i = 0; i < m->nflips && span; i++) {
		m->flip_at[i] = lo + (size_t)(splitmix(&s) % span);
		m->flip_bit[i] = (unsigned)(splitmix(&s) % 8);
		if (n > 0 && (size_t)n < sizeof m->desc)
			n += snprintf(m->desc + n, sizeof m->desc - (size_t)n, " %zu.%u",
				      m->flip_at[i], m->flip_bit[i]);
	}
}

static void apply(uint8_t *b, const mutation *m)
{
	for (size_t i = 0; i < m->nflips; i++)
		b[m->flip_at[i]] ^= (uint8_t)(1u << m->flip_bit[i]);
}

/* --------------------------------------------------------- child side */

static int contract(const char *what, int rc, const pd_error *e)
{
	fprintf(stderr, "%s: rc %d, message '%s'\n", what, rc, e->message);
	return EXIT_CONTRACT;
}

static bool valid_error(int rc, const pd_error *e)
{
	return rc <= PD_EINVAL && rc >= PD_ELIMIT && e->message[0] != '\0' && e->code == rc;
}

/* Read everything; 0 when the reader kept its contract. */
static int run_reader(const char *path, unsigned flags)
{
	pd_reader_options o;
	pd_reader_options_init(&o, PD_READER_OPTIONS_VERSION);
	o.flags = flags;
	pd_reader *r;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_reader_open(&r, path, &o, &err);
	if (rc < 0)
		return valid_error(rc, &err) ? 0 : contract("open", rc, &err);
	const pd_record *rec;
	volatile uint64_t sink = 0;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
		const uint8_t *d = rec->data;
		sink += d[0] + d[rec->size - 1];
		if (rec->type == PD_RECORD_SAMPLE && rec->attr >= 0 && rec->u.sample.callchain_nr)
			sink += rec->u.sample.callchain[rec->u.sample.callchain_nr - 1];
	}
	int status = 0;
	if (rc != PD_ITEROVER && !valid_error(rc, &err))
		status = contract("next", rc, &err);
	/* once ended, it stays ended with the same code */
	pd_error again;
	memset(&again, 0, sizeof again);
	int rc2 = pd_reader_next(r, &rec, &again);
	if (!status && rc2 != rc)
		status = contract("next after the end", rc2, &again);
	for (size_t i = 0; i < pd_reader_warning_count(r); i++)
		sink += strlen(pd_reader_warning(r, i));
	pd_reader_free(r);
	(void)sink;
	return status;
}

static int run_session(const char *path, const char *aux)
{
	char kallsyms[4200], buildid[4200], jit[4200];
	snprintf(kallsyms, sizeof kallsyms, "%s/kallsyms", aux);
	snprintf(buildid, sizeof buildid, "%s/buildid", aux);
	snprintf(jit, sizeof jit, "%s/jit", aux);
	pd_session_options o;
	pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
	o.kallsyms = kallsyms;
	o.buildid_dir = buildid;
	o.jit_dir = jit;
	pd_session *s;
	pd_error err;
	memset(&err, 0, sizeof err);
	int rc = pd_session_open(&s, path, &o, &err);
	if (rc < 0)
		return valid_error(rc, &err) ? 0 : contract("session open", rc, &err);
	const pd_resolved_sample *rs;
	volatile uint64_t sink = 0;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		sink += strlen(rs->comm ? rs->comm : "");
		for (size_t i = 0; i < rs->nframes; i++) {
			const pd_frame *f = &rs->frames[i];
			sink += strlen(f->dso) + (f->symbol ? strlen(f->symbol) : 0) +
				(f->raw_symbol ? strlen(f->raw_symbol) : 0) +
				(f->srcfile ? strlen(f->srcfile) : 0);
		}
	}
	int status = 0;
	if (rc != PD_ITEROVER && !valid_error(rc, &err))
		status = contract("session next", rc, &err);
	for (size_t i = 0; i < pd_session_warning_count(s); i++)
		sink += strlen(pd_session_warning(s, i));
	pd_session_free(s);
	(void)sink;
	return status;
}

static bool write_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}

static bool write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = (n == 0 || fwrite(b, 1, n, f) == n);
	return fclose(f) == 0 && ok;
}

typedef struct job {
	const input *in;
	uint8_t *bytes;             /* the file, or the directory member */
	size_t len;
	const char *caseroot;       /* scratch directory for directory copies */
	const char *aux;            /* kallsyms, empty build-id cache and jit dir */
} job;

/* In the child: build the mutated input, read it every way; exit status. */
static int child(const job *j, const mutation *m)
{
	alarm(CASE_TIMEOUT_S);
	uint8_t *b = j->bytes; /* the child's copy-on-write view: ours to change */
	apply(b, m);
	char path[8400];
	int fd = -1;
	if (j->in->dir) {
		/* the other members as they are, this one mutated */
		char dst[8800];
		snprintf(path, sizeof path, "%s/dir", j->caseroot);
		if (mkdir(path, 0755) < 0)
			return 4;
		size_t n;
		char **members = list_dir(j->in->path, is_regular, &n);
		for (size_t i = 0; i < n; i++) {
			snprintf(dst, sizeof dst, "%s/%s", path, members[i]);
			if (strcmp(members[i], j->in->member) == 0) {
				if (!write_file(dst, b, m->len))
					return 4;
			} else {
				char src[8400];
				size_t len;
				snprintf(src, sizeof src, "%s/%s", j->in->path, members[i]);
				uint8_t *o = pd_test_read_file(src, &len);
				if (!o || !write_file(dst, o, len))
					return 4;
				free(o);
			}
			free(members[i]);
		}
		free(members);
	} else {
		fd = memfd_create("mutated.data", MFD_CLOEXEC);
		if (fd < 0 || !write_all(fd, b, m->len))
			return 4;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	int status = run_reader(path, 0);
	if (!status)
		status = run_reader(path, PD_READER_FILE_ORDER);
	if (!status && !j->in->dir)
		status = run_reader(path, PD_READER_NO_MMAP);
	if (!status && j->in->fixture)
		status = run_session(path, j->aux);
	if (fd >= 0)
		close(fd);
	return status;
}

/* --------------------------------------------------------- parent side */

static void rm_dir_files(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	char p[8400];
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static void make_aux(const char *aux)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/kallsyms", aux);
	static const char text[] = "ffffffff81000000 T _text\n"
				   "ffffffff81000000 T _stext\n"
				   "ffffffff81001000 T do_syscall_64\n"
				   "ffffffff81002000 t native_write_msr\n"
				   "ffffffffc0000000 t ext4_readpage\t[ext4]\n";
	ck_assert(write_file(p, (const uint8_t *)text, sizeof text - 1));
	snprintf(p, sizeof p, "%s/buildid", aux);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/jit", aux);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/case", aux);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void run_input(const input *in)
{
	char src[8400];
	if (in->dir)
		snprintf(src, sizeof src, "%s/%s", in->path, in->member);
	else
		snprintf(src, sizeof src, "%s", in->path);
	size_t len;
	uint8_t *bytes = pd_test_read_file(src, &len);
	ck_assert_msg(bytes != NULL, "cannot read %s", src);
	char *aux = pd_test_tmpdir();
	ck_assert_ptr_nonnull(aux);
	make_aux(aux);
	char caseroot[4200];
	snprintf(caseroot, sizeof caseroot, "%s/case", aux);
	job j = { in, bytes, len, caseroot, aux };
	size_t failures = 0, cases = 0;
	char first[1024] = "";
	for (int k = 0; k < NCUTS + NFLIPS; k++) {
		if (len == 0 && k > 0)
			break; /* an empty file has one case: itself */
		mutation m;
		make_mutation(in->name, len, k, &m);
		fflush(stdout);
		fflush(stderr);
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			exit(child(&j, &m)); /* exit, not _exit: LeakSanitizer runs at exit */
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		cases++;
		char dir[4300];
		snprintf(dir, sizeof dir, "%s/dir", caseroot);
		rm_dir_files(dir);
		const char *what = NULL;
		char buf[128];
		if (WIFSIGNALED(st)) {
			snprintf(buf, sizeof buf, "signal %d (%s)%s", WTERMSIG(st),
				 strsignal(WTERMSIG(st)), WTERMSIG(st) == SIGALRM ? ": a hang" : "");
			what = buf;
		} else if (WEXITSTATUS(st) == EXIT_CONTRACT) {
			what = "an error without a message, or a changed end code (see stderr)";
		} else if (WEXITSTATUS(st) != 0) {
			snprintf(buf, sizeof buf, "exit status %d (a sanitizer report on stderr?)",
				 WEXITSTATUS(st));
			what = buf;
		}
		if (what) {
			failures++;
			fprintf(stderr, "FAIL %s: %s: %s\n", in->name, m.desc, what);
			if (!first[0])
				snprintf(first, sizeof first, "%s: %s: %s", in->name, m.desc, what);
		}
	}
	pd_test_rmrf(aux);
	free(aux);
	free(bytes);
	ck_assert_msg(failures == 0, "%zu of %zu mutated cases failed; first: %s", failures,
		      cases, first);
}

START_TEST(test_fixture)
{
	ck_assert_uint_lt((size_t)_i, g_nfixtures);
	run_input(&g_inputs[_i]);
}
END_TEST

START_TEST(test_corpus_file)
{
	run_input(&g_inputs[g_nfixtures + (size_t)_i]);
}
END_TEST

START_TEST(test_corpus_absent)
{
	PD_SKIP("no corpus at %s", PD_CORPUS_DIR);
}
END_TEST

int main(void)
{
	collect_inputs();
	Suite *s = suite_create("mutate");
	TCase *tc = tcase_create("fixtures");
	tcase_set_timeout(tc, 600);
	if (g_nfixtures < 10) {
		fprintf(stderr, "only %zu fixtures found under tests/data\n", g_nfixtures);
		return EXIT_FAILURE;
	}
	tcase_add_loop_test(tc, test_fixture, 0, (int)g_nfixtures);
	suite_add_tcase(s, tc);
	TCase *tcc = tcase_create("corpus");
	tcase_set_timeout(tcc, 600);
	if (g_ninputs > g_nfixtures)
		tcase_add_loop_test(tcc, test_corpus_file, 0, (int)(g_ninputs - g_nfixtures));
	else
		tcase_add_test(tcc, test_corpus_absent);
	suite_add_tcase(s, tcc);
	int rc = pd_test_main(s);
	for (size_t i = 0; i < g_ninputs; i++) {
		free(g_inputs[i].path);
		free(g_inputs[i].name);
		free(g_inputs[i].member);
	}
	free(g_inputs);
	return rc;
}
