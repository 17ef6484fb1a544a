/*
 * The third-party corpus against index.jsonl, whose counts come from an
 * independent record walker (checked against `perf report --stats`): one
 * loop test per indexed file, so a failure names the file.  Then the
 * quipper fuzzer inputs, each read in its own child process, which must end
 * in a clean error or a result, never a crash or a hang.
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FUZZ_DIR "perf_data_converter/src/quipper/corpus"
#define MAX_FUZZ 64
/* A fuzzer input is tiny; a child still running after this is hung. */
#ifndef FUZZ_CHILD_SECONDS
#define FUZZ_CHILD_SECONDS 60
#endif

/* Test inputs, filled by main() before the suite forks its children. */
static json_t *g_index[256];
static int g_nindex;
static char *g_fuzz[MAX_FUZZ];
static int g_nfuzz;

/* Files the index describes up to a fatal error: where reading must stop. */
static const struct known_error {
	const char *file_suffix;
	int code;
	uint64_t offset;
} known_errors[] = {
	{ "perf.data.piped.corrupted.zero_size_sample-3.2", PD_ECORRUPT, 49104 },
};

static const struct known_error *known_error_for(const char *file)
{
	size_t fl = strlen(file);
	for (size_t i = 0; i < sizeof known_errors / sizeof known_errors[0]; i++) {
		size_t sl = strlen(known_errors[i].file_suffix);
		if (fl >= sl && strcmp(file + fl - sl, known_errors[i].file_suffix) == 0)
			return &known_errors[i];
	}
	return NULL;
}

/* The index writes sample_type as perf's bit names joined by '|'. */
static void sample_type_string(uint64_t st, char *buf, size_t n)
{
	static const char *const bits[] = {
		"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
		"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
		"STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
		"REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
		"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
	};
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned b = 0; b < 64 && used < n; b++) {
		if (!(st & (1ull << b)))
			continue;
		char unk[16];
		const char *name = bits[0];
		if (b < sizeof bits / sizeof bits[0]) {
			name = bits[b];
		} else {
			snprintf(unk, sizeof unk, "bit%u", b);
			name = unk;
		}
		int w = snprintf(buf + used, n - used, "%s%s", used ? "|" : "", name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* Record type number of an index key (perf's name or "typeN"); -1 if none. */
static long record_type_of(const char *key)
{
	for (uint32_t t = 0; t < 128; t++) {
		const char *name = pd_record_type_name(t);
		if (name && strcmp(name, key) == 0)
			return (long)t;
	}
	char *end;
	if (strncmp(key, "type", 4) == 0) {
		errno = 0;
		unsigned long v = strtoul(key + 4, &end, 10);
		if (errno == 0 && end != key + 4 && *end == '\0' && v <= UINT32_MAX)
			return (long)v;
	}
	return -1;
}

static unsigned feature_of(const char *name)
{
	for (unsigned f = 0; f < 256; f++) {
		const char *n = pd_feature_name(f);
		if (n && strcmp(n, name) == 0)
			return f;
	}
	return 256;
}

typedef struct attr_view {
	uint32_t type;
	uint64_t config, sample_type, branch_sample_type;
	bool sample_id_all;
} attr_view;

/* What one full read of a file shows; the reader itself is freed. */
typedef struct readout {
	int open_rc, rc;
	pd_error err;
	pd_input_mode mode;
	pd_reader_stats stats;
	uint64_t features[4];
	size_t nattrs;
	attr_view *attrs;
	uint64_t attr_samples_sum;
	uint64_t samples, cpumode[8];
	size_t warnings;
	char first_warning[PD_ERROR_MESSAGE_MAX];
} readout;

static void read_file(const char *path, unsigned flags, readout *o)
{
	memset(o, 0, sizeof *o);
	pd_reader_options opts;
	pd_reader_options_init(&opts, PD_READER_OPTIONS_VERSION);
	opts.flags = flags;
	pd_reader *r = NULL;
	o->open_rc = o->rc = pd_reader_open(&r, path, &opts, &o->err);
	if (o->open_rc < 0)
		return;
	const pd_record *rec;
	while ((o->rc = pd_reader_next(r, &rec, &o->err)) == 0) {
		if (rec->type == PD_RECORD_SAMPLE) {
			o->samples++;
			o->cpumode[rec->misc & PD_MISC_CPUMODE_MASK]++;
		}
	}
	o->stats = *pd_reader_stats_get(r);
	const pd_header_info *h = pd_reader_header(r);
	o->mode = h->mode;
	memcpy(o->features, h->features, sizeof o->features);
	o->nattrs = pd_reader_attr_count(r);
	o->attrs = calloc(o->nattrs ? o->nattrs : 1, sizeof *o->attrs);
	for (size_t i = 0; o->attrs && i < o->nattrs; i++) {
		const pd_attr *a = pd_reader_attr(r, i);
		if (!a)
			continue;
		o->attrs[i] = (attr_view){ a->type, a->config, a->sample_type,
					   a->branch_sample_type, a->sample_id_all };
		o->attr_samples_sum += pd_reader_attr_samples(r, i);
	}
	o->warnings = pd_reader_warning_count(r);
	if (o->warnings) {
		const char *w = pd_reader_warning(r, 0);
		snprintf(o->first_warning, sizeof o->first_warning, "%s", w ? w : "(null)");
	}
	pd_reader_free(r);
}

static uint64_t jcount(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

static const char *const cpumode_names[8] = {
	"unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user",
	"mode6", "mode7",
};

/* Every check of one read against the index entry of `file`. */
static void check_readout(const char *file, const char *order, json_t *e,
			  const readout *o)
{
	ck_assert_msg(o->open_rc == 0, "%s [%s]: open failed (%d): %s", file,
		      order, o->open_rc, o->err.message);

	const char *mode = json_string_value(json_object_get(e, "mode"));
	const char *got_mode = o->mode == PD_MODE_FILE ? "file"
			     : o->mode == PD_MODE_PIPE ? "pipe" : "directory";
	ck_assert_msg(mode && strcmp(mode, got_mode) == 0,
		      "%s [%s]: mode: expected %s, got %s", file, order,
		      mode ? mode : "?", got_mode);

	/* How reading ends. */
	const struct known_error *ke = known_error_for(file);
	if (ke) {
		char off[32];
		snprintf(off, sizeof off, "%" PRIu64, ke->offset);
		ck_assert_msg(o->rc == ke->code,
			      "%s [%s]: expected %s at offset %s, got rc %d (%s)",
			      file, order, pd_error_code_str(ke->code), off, o->rc,
			      o->err.message);
		ck_assert_msg(o->err.offset == ke->offset,
			      "%s [%s]: error offset: expected %s, got %" PRIu64 " (%s)",
			      file, order, off, o->err.offset, o->err.message);
		ck_assert_msg(strstr(o->err.message, off) != NULL,
			      "%s [%s]: error message does not name offset %s: \"%s\"",
			      file, order, off, o->err.message);
	} else {
		ck_assert_msg(o->rc == PD_ITEROVER,
			      "%s [%s]: reading ended with rc %d (%s): \"%s\"", file,
			      order, o->rc, pd_error_code_str(o->rc), o->err.message);
	}

	/* Attributes. */
	json_t *attrs = json_object_get(e, "attrs");
	size_t nattrs = json_array_size(attrs);
	ck_assert_msg(o->nattrs == nattrs, "%s [%s]: attr count: expected %zu, got %zu",
		      file, order, nattrs, o->nattrs);
	ck_assert_msg(o->attrs != NULL, "%s: out of memory", file);
	for (size_t i = 0; i < nattrs; i++) {
		json_t *a = json_array_get(attrs, i);
		const attr_view *g = &o->attrs[i];
		uint64_t type = jcount(a, "type"), config = jcount(a, "config");
		uint64_t bst = jcount(a, "bst");
		ck_assert_msg(g->type == type, "%s [%s]: attr %zu type: expected %" PRIu64
			      ", got %u", file, order, i, type, g->type);
		ck_assert_msg(g->config == config, "%s [%s]: attr %zu config: expected %#"
			      PRIx64 ", got %#" PRIx64, file, order, i, config, g->config);
		char st[512];
		sample_type_string(g->sample_type, st, sizeof st);
		const char *want = json_string_value(json_object_get(a, "st"));
		ck_assert_msg(want && strcmp(want, st) == 0,
			      "%s [%s]: attr %zu sample_type: expected %s, got %s (%#"
			      PRIx64 ")", file, order, i, want ? want : "?", st,
			      g->sample_type);
		ck_assert_msg(g->branch_sample_type == bst, "%s [%s]: attr %zu "
			      "branch_sample_type: expected %#" PRIx64 ", got %#" PRIx64,
			      file, order, i, bst, g->branch_sample_type);
		json_t *sid_all = json_object_get(a, "sid_all");
		if (json_is_boolean(sid_all))
			ck_assert_msg(g->sample_id_all == json_is_true(sid_all),
				      "%s [%s]: attr %zu sample_id_all: expected %d, got %d",
				      file, order, i, json_is_true(sid_all),
				      g->sample_id_all);
	}

	/* Records by type: the index splits out records found inside
	 * compressed ones ("z:TYPE"); the reader counts them by their type. */
	uint64_t want_by_type[128] = { 0 };
	uint64_t want_inner = 0, want_total = 0, garbage = 0;
	json_t *records = json_object_get(e, "records");
	const char *key;
	json_t *val;
	json_object_foreach(records, key, val) {
		bool inner = strncmp(key, "z:", 2) == 0;
		long t = record_type_of(inner ? key + 2 : key);
		uint64_t n = (uint64_t)json_integer_value(val);
		ck_assert_msg(t >= 0, "%s: index key \"%s\" names no record type "
			      "known to pd_record_type_name()", file, key);
		if (t >= 128) {
			/* Trailing text after the last record reads as a huge
			 * type; perf-data-format.md §14: stop with a warning. */
			garbage += n;
			continue;
		}
		want_by_type[t] += n;
		want_total += n;
		if (inner)
			want_inner += n;
	}
	for (uint32_t t = 0; t < 128; t++) {
		const char *name = pd_record_type_name(t);
		ck_assert_msg(o->stats.by_type[t] == want_by_type[t],
			      "%s [%s]: %s (type %u) records: expected %" PRIu64
			      ", got %" PRIu64, file, order, name ? name : "?", t,
			      want_by_type[t], o->stats.by_type[t]);
	}
	ck_assert_msg(o->stats.compressed_inner == want_inner,
		      "%s [%s]: records inside compressed records: expected %" PRIu64
		      ", got %" PRIu64, file, order, want_inner, o->stats.compressed_inner);
	if (garbage)
		ck_assert_msg(o->warnings > 0 || o->stats.unknown_types == garbage,
			      "%s [%s]: %" PRIu64 " trailing garbage record(s) "
			      "neither warned about nor counted as unknown", file,
			      order, garbage);
	else
		ck_assert_msg(o->stats.unknown_types == 0,
			      "%s [%s]: unknown record types: expected 0, got %" PRIu64,
			      file, order, o->stats.unknown_types);
	ck_assert_msg(o->stats.records == want_total + o->stats.unknown_types,
		      "%s [%s]: total records: expected %" PRIu64 ", got %" PRIu64,
		      file, order, want_total + o->stats.unknown_types, o->stats.records);

	/* Samples: counted, delivered, attributed, and by cpumode. */
	uint64_t samples = jcount(e, "samples_total");
	ck_assert_msg(o->samples == samples, "%s [%s]: samples delivered: expected %"
		      PRIu64 ", got %" PRIu64, file, order, samples, o->samples);
	ck_assert_msg(o->stats.by_type[PD_RECORD_SAMPLE] == samples,
		      "%s [%s]: samples counted: expected %" PRIu64 ", got %" PRIu64,
		      file, order, samples, o->stats.by_type[PD_RECORD_SAMPLE]);
	ck_assert_msg(o->attr_samples_sum + o->stats.unattributed == samples,
		      "%s [%s]: per-attr samples (%" PRIu64 ") + unattributed (%"
		      PRIu64 ") != %" PRIu64, file, order, o->attr_samples_sum,
		      o->stats.unattributed, samples);
	json_t *cpumode = json_object_get(e, "sample_cpumode");
	for (int m = 0; m < 8; m++) {
		uint64_t want = jcount(cpumode, cpumode_names[m]);
		ck_assert_msg(o->cpumode[m] == want, "%s [%s]: %s samples: expected %"
			      PRIu64 ", got %" PRIu64, file, order, cpumode_names[m],
			      want, o->cpumode[m]);
	}

	/* File mode: the feature bitmap. */
	json_t *features = json_object_get(e, "features");
	if (o->mode == PD_MODE_FILE && json_is_array(features)) {
		uint64_t want[4] = { 0 };
		size_t i;
		json_t *f;
		json_array_foreach(features, i, f) {
			unsigned bit = feature_of(json_string_value(f));
			ck_assert_msg(bit < 256, "%s: feature \"%s\" unknown to "
				      "pd_feature_name()", file, json_string_value(f));
			want[bit / 64] |= 1ull << (bit % 64);
		}
		for (int w = 0; w < 4; w++)
			ck_assert_msg(o->features[w] == want[w], "%s [%s]: feature bitmap "
				      "word %d: expected %#" PRIx64 ", got %#" PRIx64,
				      file, order, w, want[w], o->features[w]);
	}
}

START_TEST(test_corpus_file)
{
	json_t *e = g_index[_i];
	const char *file = json_string_value(json_object_get(e, "file"));
	ck_assert_msg(file != NULL, "index line %d has no \"file\"", _i + 1);
	char path[4096];
	ck_assert(pd_test_corpus(path, sizeof path, file) != NULL);

	/* Timestamp ordering must neither lose nor invent records. */
	static const struct {
		unsigned flags;
		const char *name;
	} orders[] = { { 0, "time order" }, { PD_READER_FILE_ORDER, "file order" } };
	for (size_t k = 0; k < 2; k++) {
		readout o;
		read_file(path, orders[k].flags, &o);
		check_readout(file, orders[k].name, e, &o);
		free(o.attrs);
	}
}
END_TEST

START_TEST(test_corpus_absent)
{
	PD_SKIP("corpus not found at %s", PD_CORPUS_DIR);
}
END_TEST

/* What a child reports about one fuzzer input. */
typedef struct fuzz_result {
	int open_rc, rc[2];
	pd_error err[2];
	size_t warnings[2];
} fuzz_result;

static _Noreturn void fuzz_child(const char *path, int fd)
{
	/* check's own SIGALRM handler, inherited, would kill the whole test. */
	signal(SIGALRM, SIG_DFL);
	alarm(FUZZ_CHILD_SECONDS);
	fuzz_result res;
	memset(&res, 0, sizeof res);
	for (int k = 0; k < 2; k++) {
		pd_reader_options opts;
		pd_reader_options_init(&opts, PD_READER_OPTIONS_VERSION);
		opts.flags = k ? PD_READER_FILE_ORDER : 0;
		pd_reader *r = NULL;
		res.rc[k] = pd_reader_open(&r, path, &opts, &res.err[k]);
		res.open_rc = res.rc[k];
		if (res.rc[k] < 0)
			continue;
		const pd_record *rec;
		while ((res.rc[k] = pd_reader_next(r, &rec, &res.err[k])) == 0)
			;
		res.warnings[k] = pd_reader_warning_count(r);
		for (size_t w = 0; w < res.warnings[k]; w++)
			if (!pd_reader_warning(r, w))
				res.warnings[k] = SIZE_MAX; /* flagged below */
		pd_reader_free(r);
	}
	ssize_t n = write(fd, &res, sizeof res);
	close(fd);
	/* exit(), not _exit(): LeakSanitizer checks at exit. */
	exit(n == (ssize_t)sizeof res ? 0 : 3);
}

START_TEST(test_fuzz_input)
{
	const char *name = g_fuzz[_i];
	char rel[4096], path[4096];
	snprintf(rel, sizeof rel, "%s/%s", FUZZ_DIR, name);
	ck_assert(pd_test_corpus(path, sizeof path, rel) != NULL);

	int fds[2];
	ck_assert_msg(pipe(fds) == 0, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		fuzz_child(path, fds[1]);
	}
	close(fds[1]);
	fuzz_result res;
	size_t got = 0;
	while (got < sizeof res) {
		ssize_t n = read(fds[0], (char *)&res + got, sizeof res - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ck_assert_msg(!WIFSIGNALED(st), "%s: reader child killed by signal %d (%s)",
		      name, WTERMSIG(st),
		      WTERMSIG(st) == SIGALRM ? "hung" : strsignal(WTERMSIG(st)));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "%s: reader child exited with status %d", name,
		      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	ck_assert_msg(got == sizeof res, "%s: short report from child", name);

	for (int k = 0; k < 2; k++) {
		const char *order = k ? "file order" : "time order";
		int rc = res.rc[k];
		ck_assert_msg(rc == PD_ITEROVER || (rc <= PD_EINVAL && rc >= PD_ELIMIT),
			      "%s [%s]: unexpected result %d", name, order, rc);
		ck_assert_msg(res.warnings[k] != SIZE_MAX,
			      "%s [%s]: a warning index below the count gave NULL",
			      name, order);
		if (rc == PD_ITEROVER)
			continue;
		const pd_error *e = &res.err[k];
		ck_assert_msg(e->code == rc, "%s [%s]: err.code %d != rc %d", name,
			      order, e->code, rc);
		ck_assert_msg(memchr(e->message, '\0', sizeof e->message) != NULL &&
				      e->message[0] != '\0',
			      "%s [%s]: %s with an empty message", name, order,
			      pd_error_code_str(rc));
		ck_assert_msg(strstr(e->message, name) != NULL,
			      "%s [%s]: message does not name the file: \"%s\"", name,
			      order, e->message);
	}
}
END_TEST

START_TEST(test_fuzz_inputs_found)
{
	if (!pd_test_corpus_present())
		PD_SKIP("corpus not found at %s", PD_CORPUS_DIR);
	/* The corpus README promises 28; fewer means the folder moved. */
	ck_assert_int_eq(g_nfuzz, 28);
}
END_TEST

static void load_index(void)
{
	char path[4096];
	if (!pd_test_corpus(path, sizeof path, "index.jsonl"))
		return;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		json_error_t jerr;
		json_t *e = json_loads(line, 0, &jerr);
		if (!e || !json_is_object(e)) {
			fprintf(stderr, "index.jsonl:%d: %s\n", lineno, jerr.text);
			json_decref(e);
			/* A broken index must fail, not silently shrink. */
			e = json_object();
		}
		if (g_nindex < (int)(sizeof g_index / sizeof g_index[0]))
			g_index[g_nindex++] = e;
		else
			json_decref(e);
	}
	free(line);
	fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_fuzz_inputs(void)
{
	char dir[4096];
	if (!pd_test_corpus(dir, sizeof dir, FUZZ_DIR))
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL && g_nfuzz < MAX_FUZZ)
		if (de->d_name[0] != '.')
			g_fuzz[g_nfuzz++] = strdup(de->d_name);
	closedir(d);
	qsort(g_fuzz, (size_t)g_nfuzz, sizeof g_fuzz[0], cmp_str);
}

int main(void)
{
	Suite *s = suite_create("corpus");
	TCase *tc = tcase_create("index");
	TCase *tf = tcase_create("fuzz");
	tcase_set_timeout(tc, 120);
	tcase_set_timeout(tf, 2 * FUZZ_CHILD_SECONDS + 30);
	if (!pd_test_corpus_present()) {
		tcase_add_test(tc, test_corpus_absent);
	} else {
		load_index();
		load_fuzz_inputs();
		tcase_add_loop_test(tc, test_corpus_file, 0, g_nindex);
		tcase_add_loop_test(tf, test_fuzz_input, 0, g_nfuzz);
	}
	tcase_add_test(tf, test_fuzz_inputs_found);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tf);
	int rc = pd_test_main(s);
	for (int i = 0; i < g_nindex; i++)
		json_decref(g_index[i]);
	for (int i = 0; i < g_nfuzz; i++)
		free(g_fuzz[i]);
	return rc;
}
