/*
 * pprof exports of profiles that kept their sites (PD_PROFILE_KEEP_SITES,
 * docs/pprof.md): labels, Locations per address, Mappings, raw names and
 * inline chains, each held to an independent oracle on a recording made
 * here: perf script's pids, tids, CPUs, sample addresses, MMAP events and
 * inline frames; nm and c++filt for raw names; go tool pprof's reading.
 * The export is decoded with protoc-c's code, not the library's reader.
 */
#include "testutil.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile.pb-c.h"

#define PATHMAX 4096
#define KERNEL_HALF 0x8000000000000000ull

typedef Perftools__Profiles__Profile pprof_msg;
typedef Perftools__Profiles__Location pp_location;
typedef Perftools__Profiles__Mapping pp_mapping;
typedef Perftools__Profiles__Function pp_function;

/* ---------------------------------------------------------------- helpers */

/* `data` folded with `flags` and exported raw, decoded. */
static pprof_msg *export_of(const char *data, unsigned flags)
{
	pd_profile_options po;
	pd_profile_options_init(&po, PD_PROFILE_OPTIONS_VERSION);
	po.flags = flags;
	pd_profile *p;
	pd_error err;
	ck_assert_int_eq(pd_profile_new(&p, &po, &err), 0);
	ck_assert_msg(pd_profile_add_file(p, data, &err) == 0, "%s", err.message);
	pd_pprof_write_options o;
	pd_pprof_write_options_init(&o, PD_PPROF_WRITE_OPTIONS_VERSION);
	o.gzip = false;
	void *buf;
	size_t len;
	ck_assert_msg(pd_profile_write_pprof_buffer(p, &buf, &len, &o, &err) == 0, "%s",
		      err.message);
	pprof_msg *m = perftools__profiles__profile__unpack(NULL, len, buf);
	ck_assert_ptr_nonnull(m);
	free(buf);
	pd_profile_free(p);
	return m;
}

static const char *str(const pprof_msg *m, int64_t i)
{
	ck_assert(i >= 0 && (size_t)i < m->n_string_table);
	return m->string_table[i];
}

static const pp_location *location(const pprof_msg *m, uint64_t id)
{
	for (size_t i = 0; i < m->n_location; i++)
		if (m->location[i]->id == id)
			return m->location[i];
	ck_abort_msg("no location %" PRIu64, id);
	return NULL;
}

static const pp_mapping *mapping(const pprof_msg *m, uint64_t id)
{
	for (size_t i = 0; i < m->n_mapping; i++)
		if (m->mapping[i]->id == id)
			return m->mapping[i];
	ck_abort_msg("no mapping %" PRIu64, id);
	return NULL;
}

static const pp_function *function(const pprof_msg *m, uint64_t id)
{
	for (size_t i = 0; i < m->n_function; i++)
		if (m->function[i]->id == id)
			return m->function[i];
	ck_abort_msg("no function %" PRIu64, id);
	return NULL;
}

/* The numeric label `key` of sample `s`: 0 when absent (pprof's reading
 * of a 0 too); *has says whether it was there. */
static int64_t num_label(const pprof_msg *m, const Perftools__Profiles__Sample *s,
			 const char *key, bool *has)
{
	*has = false;
	for (size_t i = 0; i < s->n_label; i++)
		if (strcmp(str(m, s->label[i]->key), key) == 0) {
			*has = true;
			return s->label[i]->num;
		}
	return 0;
}

/* Lines "KEY" counted: a sorted list of `n` strings, each once per count. */
typedef struct bag {
	char **v;
	size_t n, cap;
} bag;

static void bag_add(bag *b, const char *s, uint64_t times)
{
	for (uint64_t t = 0; t < times; t++) {
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 1024;
			b->v = realloc(b->v, b->cap * sizeof *b->v);
			ck_assert_ptr_nonnull(b->v);
		}
		b->v[b->n++] = strdup(s);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void bag_assert_eq(bag *a, bag *b, const char *what)
{
	qsort(a->v, a->n, sizeof *a->v, cmp_str);
	qsort(b->v, b->n, sizeof *b->v, cmp_str);
	ck_assert_msg(a->n == b->n, "%s: %zu against %zu samples", what, a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		ck_assert_msg(strcmp(a->v[i], b->v[i]) == 0, "%s: '%s' against '%s'", what,
			      a->v[i], b->v[i]);
}

static void bag_free(bag *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i]);
	free(b->v);
}

/* perf script's samples of `data` as "pid tid [cpu] ip" (cpu with `cpu`). */
static void perf_leaves(const char *data, bool cpu, bag *out)
{
	char cmd[PATHMAX + 128];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' -F pid,tid,cpu,ip -G 2>/dev/null", data);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_int_eq(st, 0);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int pid, tid;
		unsigned c;
		unsigned long long ip;
		if (sscanf(line, " %d/%d [%u] %llx", &pid, &tid, &c, &ip) != 4)
			continue;
		char key[96];
		if (cpu)
			snprintf(key, sizeof key, "%d %d %u %llx", pid, tid, c, ip);
		else
			snprintf(key, sizeof key, "%d %d %llx", pid, tid, ip);
		bag_add(out, key, 1);
	}
	free(text);
}

/* The export's samples the same way: labels and the leaf's address, once
 * per sample counted (values[0], samples/count). */
static void export_leaves(const pprof_msg *m, bool cpu, bag *out)
{
	ck_assert_str_eq(str(m, m->sample_type[0]->type), "samples");
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		bool hp, ht, hc;
		int64_t pid = num_label(m, s, "pid", &hp), tid = num_label(m, s, "tid", &ht);
		int64_t c = num_label(m, s, "cpu", &hc);
		ck_assert(hp && ht);
		ck_assert_msg(hc == cpu, "cpu label %s", hc ? "without --label=cpu" : "missing");
		uint64_t ip = location(m, s->location_id[0])->address;
		char key[96];
		if (cpu)
			snprintf(key, sizeof key, "%" PRId64 " %" PRId64 " %" PRId64 " %" PRIx64, pid,
				 tid, c, ip);
		else
			snprintf(key, sizeof key, "%" PRId64 " %" PRId64 " %" PRIx64, pid, tid, ip);
		bag_add(out, key, (uint64_t)s->value[0]);
	}
}

/* No two samples with the same locations and labels. */
static void assert_aggregated(const pprof_msg *m)
{
	bag b = { 0 };
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		char key[8192];
		size_t at = 0;
		for (size_t k = 0; k < s->n_location_id && at < sizeof key - 64; k++)
			at += (size_t)snprintf(key + at, sizeof key - at, "%" PRIu64 ",",
					       s->location_id[k]);
		for (size_t k = 0; k < s->n_label && at < sizeof key - 64; k++)
			at += (size_t)snprintf(key + at, sizeof key - at, "|%" PRId64 "=%" PRId64
					       "/%" PRId64, s->label[k]->key, s->label[k]->str,
					       s->label[k]->num);
		bag_add(&b, key, 1);
	}
	qsort(b.v, b.n, sizeof *b.v, cmp_str);
	for (size_t i = 1; i < b.n; i++)
		ck_assert_msg(strcmp(b.v[i - 1], b.v[i]) != 0, "two samples of %s", b.v[i]);
	bag_free(&b);
}

/* A recording of tests/data/workload.c (2 threads), system-wide. */
static bool record_sys(const char *dir, char *data)
{
	char bin[PATHMAX], w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/workload", dir);
	ck_assert(pd_test_compile("cc", "-O1 -g -fno-omit-frame-pointer -pthread", bin,
				  PD_TEST_DATA_DIR "/workload.c"));
	snprintf(w, sizeof w, "'%s' 300 2", bin);
	snprintf(data, PATHMAX, "%s/sys.data", dir);
	return pd_test_perf_record(data, "-q -N -a -g -e cpu-clock", w);
}

/* ------------------------------------------------------------------ tests */

/* Per sample the pid, tid (and CPU) labels and the leaf's address are
 * what perf script prints for the recording's samples, counted alike;
 * samples are aggregated per distinct (stack, labels). */
START_TEST(test_labels_and_leaves)
{
	char *dir, data[PATHMAX];
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	if (!record_sys(dir, data)) {
		pd_test_lab_close(dir);
		PD_SKIP("perf record -a failed (needs privileges)");
	}
	for (int cpu = 0; cpu < 2; cpu++) {
		pprof_msg *m = export_of(data, PD_PROFILE_KEEP_SITES | (cpu ? PD_PROFILE_KEEP_CPU : 0));
		bag want = { 0 }, got = { 0 };
		perf_leaves(data, cpu, &want);
		export_leaves(m, cpu, &got);
		ck_assert_uint_gt(want.n, 50);
		bag_assert_eq(&want, &got, cpu ? "pid tid cpu leaf" : "pid tid leaf");
		assert_aggregated(m);
		fprintf(stderr, "labels%s: %zu samples as perf script has them, in %zu pprof samples\n",
			cpu ? " with cpu" : "", got.n, m->n_sample);
		bag_free(&want);
		bag_free(&got);
		perftools__profiles__profile__free_unpacked(m, NULL);
	}
	pd_test_lab_close(dir);
}
END_TEST

/* "START LEN PGOFF FILE" of each MMAP/MMAP2 event perf script shows. */
static void perf_mmaps(const char *data, bag *out)
{
	char cmd[PATHMAX + 128];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' --show-mmap-events -F comm 2>/dev/null "
		 "| grep 'PERF_RECORD_MMAP'", data);
	int st;
	char *text = pd_test_run(cmd, &st);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *b = strchr(line, '[');
		unsigned long long start, len, pgoff;
		if (!b || sscanf(b, "[%llx(%llx) @ %llx", &start, &len, &pgoff) != 3)
			continue;
		/* "]: PROT FILE", the file name may hold spaces */
		const char *file = strstr(b, "]: ");
		file = file ? strchr(file + 3, ' ') : NULL;
		if (!file)
			continue;
		char key[PATHMAX + 64];
		snprintf(key, sizeof key, "%llx %llx %llx %s", start, len, pgoff, file + 1);
		bag_add(out, key, 1);
	}
	free(text);
}

/* Every Location lies in its Mapping; every user Mapping is a map the
 * recording's MMAP events laid out (start, length, file offset, file). */
START_TEST(test_mappings)
{
	char *dir, data[PATHMAX];
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	if (!record_sys(dir, data)) {
		pd_test_lab_close(dir);
		PD_SKIP("perf record -a failed (needs privileges)");
	}
	pprof_msg *m = export_of(data, PD_PROFILE_KEEP_SITES);
	bag mm = { 0 };
	perf_mmaps(data, &mm);
	ck_assert_uint_gt(mm.n, 0);
	qsort(mm.v, mm.n, sizeof *mm.v, cmp_str);
	size_t user = 0, kernel = 0;
	for (size_t i = 0; i < m->n_mapping; i++) {
		const pp_mapping *mp = m->mapping[i];
		if (mp->memory_limit == 0 || mp->memory_start >= KERNEL_HALF) {
			kernel += mp->memory_start >= KERNEL_HALF;
			continue;
		}
		char key[PATHMAX + 64];
		snprintf(key, sizeof key, "%" PRIx64 " %" PRIx64 " %" PRIx64 " %s", mp->memory_start,
			 mp->memory_limit - mp->memory_start, mp->file_offset,
			 str(m, mp->filename));
		const char *k = key;
		ck_assert_msg(bsearch(&k, mm.v, mm.n, sizeof *mm.v, cmp_str),
			      "mapping %s is no MMAP event of the recording", key);
		user++;
	}
	ck_assert_uint_gt(user, 0);
	ck_assert_uint_gt(kernel, 0);
	for (size_t i = 0; i < m->n_location; i++) {
		const pp_location *l = m->location[i];
		const pp_mapping *mp = mapping(m, l->mapping_id);
		if (mp->memory_limit)
			ck_assert_msg(l->address >= mp->memory_start && l->address < mp->memory_limit,
				      "location %" PRIu64 " at %" PRIx64 " outside its mapping",
				      l->id, l->address);
	}
	fprintf(stderr, "mappings: %zu user ones as perf's MMAP events, %zu kernel\n", user,
		kernel);
	bag_free(&mm);
	perftools__profiles__profile__free_unpacked(m, NULL);
	pd_test_lab_close(dir);
}
END_TEST

/* perf script --inline's chains: "DSO ADDR" → "inner;...;outer" for the
 * addresses whose frames are inlined. */
static void perf_inline_chains(const char *data, bag *out)
{
	char cmd[PATHMAX + 128];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' -F ip,sym,dso --inline 2>/dev/null", data);
	int st;
	char *text = pd_test_run(cmd, &st);
	ck_assert_int_eq(st, 0);
	char chain[4096] = "", *save = NULL;
	unsigned long long at = 0;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long ip;
		char name[512], dso[PATHMAX];
		if (sscanf(line, " %llx %511s (%4095[^)])", &ip, name, dso) != 3)
			continue;
		bool inl = strcmp(dso, "inlined") == 0;
		if (ip != at || !chain[0])
			chain[0] = 0;
		if (chain[0] && ip != at)
			chain[0] = 0;
		size_t n = strlen(chain);
		snprintf(chain + n, sizeof chain - n, "%s%s", n ? ";" : "", name);
		at = ip;
		if (!inl) {
			if (strchr(chain, ';')) {
				char key[PATHMAX + 4200];
				snprintf(key, sizeof key, "%s %llx %s", dso, ip, chain);
				bag_add(out, key, 1);
			}
			chain[0] = 0;
		}
	}
	free(text);
}

/* A Location of the workload with an inline chain holds its frames as
 * Lines, innermost first, as perf script --inline prints them at that
 * address; its Mapping says has_inline_frames.  (The workload's only:
 * where a leaf's own symbol is a function perf also sees inlined there,
 * as in ld.so's start-up code, perf prints the chain without it.) */
START_TEST(test_inline_lines)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	char bin[PATHMAX], data[PATHMAX], w[PATHMAX + 16];
	snprintf(bin, sizeof bin, "%s/inline", dir);
	ck_assert(pd_test_compile("cc", "-O2 -g -fno-omit-frame-pointer", bin,
				  PD_TEST_DATA_DIR "/../workloads/inline.c"));
	snprintf(w, sizeof w, "'%s' 300", bin);
	snprintf(data, sizeof data, "%s/dwarf.data", dir);
	if (!pd_test_perf_record(data, "-q -N -e cpu-clock --call-graph dwarf", w)) {
		pd_test_lab_close(dir);
		PD_SKIP("perf record --call-graph dwarf failed");
	}
	pprof_msg *m = export_of(data, PD_PROFILE_KEEP_SITES);
	bag perf = { 0 };
	perf_inline_chains(data, &perf);
	qsort(perf.v, perf.n, sizeof *perf.v, cmp_str);
	size_t chains = 0;
	/* leaves only: perf looks a return address up where it points, this
	 * library one byte earlier, in the call (docs/perf-compat) */
	for (size_t i = 0; i < m->n_location; i++) {
		const pp_location *l = m->location[i];
		const pp_mapping *mp = mapping(m, l->mapping_id);
		bool leaf = false;
		for (size_t k = 0; k < m->n_sample && !leaf; k++)
			leaf = m->sample[k]->location_id[0] == l->id;
		if (!leaf || l->n_line < 2 || strcmp(str(m, mp->filename), bin) != 0)
			continue;
		ck_assert(mp->has_inline_frames);
		char key[PATHMAX + 4200];
		size_t at = (size_t)snprintf(key, sizeof key, "%s %" PRIx64 " ", str(m, mp->filename),
					     l->address - mp->memory_start + mp->file_offset);
		for (size_t k = 0; k < l->n_line; k++)
			at += (size_t)snprintf(key + at, sizeof key - at, "%s%s", k ? ";" : "",
					       str(m, function(m, l->line[k]->function_id)->name));
		const char *kp = key;
		ck_assert_msg(bsearch(&kp, perf.v, perf.n, sizeof *perf.v, cmp_str),
			      "inline chain %s is not perf script's", key);
		chains++;
	}
	ck_assert_msg(chains > 0, "no location with an inline chain");
	fprintf(stderr, "inline: %zu locations' chains as perf script --inline prints them\n",
		chains);
	bag_free(&perf);
	perftools__profiles__profile__free_unpacked(m, NULL);
	pd_test_lab_close(dir);
}
END_TEST

static const char cxx_program[] =
	"#include <cstdlib>\n"
	"namespace calc {\n"
	"template <typename T> struct Box { T v; };\n"
	"volatile unsigned long sink;\n"
	"__attribute__((noinline)) unsigned long spin(Box<unsigned long> b, int n)\n"
	"{ unsigned long x = b.v; for (int i = 0; i < n; i++) x = x * 6364136223846793005ul + 1;\n"
	"  sink = x; return x; }\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{ long n = argc > 1 ? atol(argv[1]) : 200; unsigned long s = 0;\n"
	"  for (long k = 0; k < n * 40; k++) s += calc::spin(calc::Box<unsigned long>{s}, 100000);\n"
	"  return (int)(s & 1); }\n";

/* Function.system_name is the symbol as the binary has it (nm), and it
 * demangles (c++filt) to the canonical name given as Function.name. */
START_TEST(test_raw_names)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	if (!pd_test_sh_ok("command -v c++ && command -v nm && command -v c++filt")) {
		pd_test_lab_close(dir);
		PD_SKIP("c++, nm or c++filt missing");
	}
	char src[PATHMAX], bin[PATHMAX], data[PATHMAX], w[PATHMAX + 16], cmd[3 * PATHMAX];
	snprintf(src, sizeof src, "%s/calc.cc", dir);
	snprintf(bin, sizeof bin, "%s/calc", dir);
	ck_assert(pd_test_write_file(src, cxx_program, strlen(cxx_program)));
	ck_assert(pd_test_compile("c++", "-O1 -g -fno-omit-frame-pointer", bin, src));
	snprintf(w, sizeof w, "'%s' 20", bin);
	snprintf(data, sizeof data, "%s/cxx.data", dir);
	if (!pd_test_perf_record(data, "-q -N -e cpu-clock -g", w)) {
		pd_test_lab_close(dir);
		PD_SKIP("perf record failed");
	}
	pprof_msg *m = export_of(data, PD_PROFILE_KEEP_SITES);
	size_t mangled = 0;
	for (size_t i = 0; i < m->n_function; i++) {
		const pp_function *f = m->function[i];
		const char *raw = str(m, f->system_name), *name = str(m, f->name);
		if (strncmp(raw, "_Z", 2) != 0 || !strstr(name, "calc::"))
			continue;
		snprintf(cmd, sizeof cmd, "nm '%s' | awk '$3 == \"%s\"' | grep -c .", bin, raw);
		int st;
		char *out = pd_test_run(cmd, &st);
		ck_assert_msg(atoi(out) == 1, "%s is not a symbol of the binary", raw);
		free(out);
		snprintf(cmd, sizeof cmd, "echo '%s' | c++filt", raw);
		out = pd_test_run(cmd, &st);
		ck_assert_msg(strncmp(out, name, strlen(name)) == 0 && strcmp(raw, name) != 0,
			      "%s demangles to %s, not to the name %s", raw, out, name);
		free(out);
		mangled++;
	}
	ck_assert_msg(mangled > 0, "no C++ function with a mangled system_name");
	fprintf(stderr, "raw names: %zu C++ functions' system_name in nm, demangling to name\n",
		mangled);
	perftools__profiles__profile__free_unpacked(m, NULL);
	pd_test_lab_close(dir);
}
END_TEST

/* The earliest `perf script -F tod` of `data` in ns since the epoch (UTC);
 * 0 when perf prints none. */
static uint64_t perf_first_tod(const char *data)
{
	char cmd[PATHMAX + 128];
	snprintf(cmd, sizeof cmd, "TZ=UTC perf script -i '%s' -F tod --ns 2>/dev/null | sort | "
		 "head -1", data);
	int st;
	char *out = pd_test_run(cmd, &st);
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	unsigned long ns = 0;
	char frac[16] = "";
	uint64_t t = 0;
	if (sscanf(out, "%d-%d-%d %d:%d:%d.%15[0-9]", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, frac) == 7 && strlen(frac) == 9) {
		ns = strtoul(frac, NULL, 10);
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		t = (uint64_t)timegm(&tm) * 1000000000u + ns;
	}
	free(out);
	return t;
}

/* The run's wall-clock start and span: duration_nanos is the span perf's
 * header gives; time_nanos is what perf script -F tod prints for the first
 * sample of a recording with CLOCK_DATA (perf record -k); without it, the
 * file's modification time (stat) less duration_nanos; both travel
 * through an export read back. */
START_TEST(test_start_time)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	char bin[PATHMAX], data[PATHMAX], w[PATHMAX + 16], cmd[2 * PATHMAX];
	snprintf(bin, sizeof bin, "%s/workload", dir);
	ck_assert(pd_test_compile("cc", "-O1 -g -fno-omit-frame-pointer -pthread", bin,
				  PD_TEST_DATA_DIR "/workload.c"));
	snprintf(w, sizeof w, "'%s' 200 1", bin);
	for (int clock = 0; clock < 2; clock++) {
		snprintf(data, sizeof data, "%s/%s.data", dir, clock ? "clock" : "plain");
		if (!pd_test_perf_record(data, clock ? "-q -N -k mono -e cpu-clock -g"
						     : "-q -N -e cpu-clock -g", w)) {
			if (clock)
				break;  /* perf without -k: the fallback was checked */
			pd_test_lab_close(dir);
			PD_SKIP("perf record failed");
		}
		pprof_msg *m = export_of(data, 0);
		uint64_t want;
		if (clock) {
			want = perf_first_tod(data);
			ck_assert_msg(want > 0, "perf script -F tod printed no time");
		} else {
			snprintf(cmd, sizeof cmd, "stat -c %%.9Y '%s'", data);
			int st;
			char *out = pd_test_run(cmd, &st);
			unsigned long long sec = 0, ns = 0;
			ck_assert_int_eq(sscanf(out, "%llu.%llu", &sec, &ns), 2);
			free(out);
			want = sec * 1000000000ull + ns - (uint64_t)m->duration_nanos;
		}
		ck_assert_int_gt(m->duration_nanos, 0);
		/* perf report --header-only prints the SAMPLE_TIME feature in us */
		snprintf(cmd, sizeof cmd, "perf report -i '%s' --header-only 2>/dev/null | awk "
			 "'/time of first sample/ { f = $NF } /time of last sample/ { l = $NF } "
			 "END { printf \"%%.0f\", (l - f) * 1e9 }'", data);
		int hst;
		char *span = pd_test_run(cmd, &hst);
		double perf_span = strtod(span, NULL);
		free(span);
		ck_assert_msg(perf_span > 0 && fabs(perf_span - (double)m->duration_nanos) <= 2000,
			      "duration_nanos %" PRId64 ", perf's header %.0f", m->duration_nanos,
			      perf_span);
		ck_assert_msg((uint64_t)m->time_nanos == want, "time_nanos %" PRId64 ", want %" PRIu64
			      " (%s)", m->time_nanos, want, clock ? "perf script -F tod" : "mtime");
		/* read back: the run keeps its start */
		size_t n = perftools__profiles__profile__get_packed_size(m);
		uint8_t *buf = malloc(n);
		perftools__profiles__profile__pack(m, buf);
		pd_profile *q;
		pd_error err;
		ck_assert_int_eq(pd_profile_new(&q, NULL, &err), 0);
		ck_assert_msg(pd_profile_add_pprof_buffer(q, buf, n, "x.pb", &err) == 0, "%s",
			      err.message);
		ck_assert_uint_eq(pd_profile_run_start(q, 0), want);
		ck_assert_uint_eq(pd_profile_run_span(q, 0), (uint64_t)m->duration_nanos);
		fprintf(stderr, "start: time_nanos %" PRId64 " as %s\n", m->time_nanos,
			clock ? "perf script -F tod's first sample" : "mtime less the span");
		pd_profile_free(q);
		free(buf);
		perftools__profiles__profile__free_unpacked(m, NULL);
	}
	pd_test_lab_close(dir);
}
END_TEST

/* -------------------------------------------------------------- go tool */

#define GOENV "GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-buildvcs=false GO111MODULE=off "

/* A location's address in its file, as go tool pprof -raw prints the
 * Mappings ("ID: 0xSTART/0xLIMIT/0xOFFSET FILE ...") and Locations ("ID:
 * 0xADDR M=MAPPING ..."): Go may move a mapping of the same file to one
 * start and its addresses with it, which keeps this. */
typedef struct go_loc {
	uint64_t addr, map;
} go_loc;

static void go_tables(char *locs, go_loc *loc, size_t cap, uint64_t *start, uint64_t *off)
{
	char *maps = strstr(locs, "\nMappings\n");
	ck_assert_ptr_nonnull(maps);
	*maps = 0;
	char *save = NULL;
	for (char *line = strtok_r(maps + 10, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long id, a, b, c;
		if (sscanf(line, "%llu: %llx/%llx/%llx", &id, &a, &b, &c) == 4 && id < cap) {
			start[id] = a;
			off[id] = c;
		}
	}
	save = NULL;
	for (char *line = strtok_r(locs, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long id, a, mp;
		if (sscanf(line, " %llu: %llx M=%llu", &id, &a, &mp) == 3 && id < cap)
			loc[id] = (go_loc){ a, mp };
	}
}

/* The export's samples as "pid tid cpu leaf-file-address". */
static void export_file_leaves(const pprof_msg *m, bag *out)
{
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		bool h;
		const pp_location *l = location(m, s->location_id[0]);
		const pp_mapping *mp = mapping(m, l->mapping_id);
		char key[96];
		snprintf(key, sizeof key, "%" PRId64 " %" PRId64 " %" PRId64 " %" PRIx64,
			 num_label(m, s, "pid", &h), num_label(m, s, "tid", &h),
			 num_label(m, s, "cpu", &h), l->address - mp->memory_start + mp->file_offset);
		bag_add(out, key, (uint64_t)s->value[0]);
	}
}

/* go tool pprof -raw of the CLI's export (--label=cpu) reads per sample
 * the pid, tid and cpu labels and the leaf's place that the export holds
 * (test_labels_and_leaves holds those to perf script); -traces shows the
 * labels. */
START_TEST(test_go_reads_labels)
{
	if (!pd_test_sh_ok(GOENV "go version >/dev/null 2>&1"))
		PD_SKIP("go (golang-go) is not installed");
	char *dir, data[PATHMAX], cmd[4 * PATHMAX];
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	if (!record_sys(dir, data)) {
		pd_test_lab_close(dir);
		PD_SKIP("perf record -a failed (needs privileges)");
	}
	snprintf(cmd, sizeof cmd, "'%s' report --format=pprof --label=cpu -o '%s/x.pb.gz' '%s' "
		 ">/dev/null 2>&1", PD_CLI_PATH, dir, data);
	ck_assert(pd_test_sh_ok(cmd));
	snprintf(cmd, sizeof cmd, GOENV "go tool pprof -raw '%s/x.pb.gz' 2>/dev/null", dir);
	int st;
	char *raw = pd_test_run(cmd, &st);
	ck_assert_int_eq(st, 0);
	char *locs = strstr(raw, "\nLocations\n");
	ck_assert_ptr_nonnull(locs);
	*locs = 0;
	size_t cap = 1 << 17;
	go_loc *loc = calloc(cap, sizeof *loc);
	uint64_t *start = calloc(cap, sizeof *start), *off = calloc(cap, sizeof *off);
	go_tables(locs + 11, loc, cap, start, off);
	bag want = { 0 }, got = { 0 };
	pprof_msg *m = export_of(data, PD_PROFILE_KEEP_SITES | PD_PROFILE_KEEP_CPU);
	export_file_leaves(m, &want);
	/* samples: "COUNT VALUE: LOC ...", then label lines; go omits a
	 * numeric label of 0 (the idle task's pid and tid) */
	unsigned long long count = 0, leaf = 0, pid = 0, tid = 0, c = 0;
	bool open = false;
	char *samples = strstr(raw, "\nSamples:\n"), *save = NULL;
	ck_assert_ptr_nonnull(samples);
	strtok_r(samples + 10, "\n", &save);  /* the sample types */
	for (char *line = strtok_r(NULL, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b, l;
		bool next = !line || sscanf(line, " %llu %llu: %llu", &a, &b, &l) == 3;
		if (next && open) {
			char key[96];
			ck_assert(leaf < cap && loc[leaf].map && loc[leaf].map < cap);
			const go_loc *g = &loc[leaf];
			snprintf(key, sizeof key, "%lld %lld %llu %llx", (long long)(int)pid,
				 (long long)(int)tid, c,
				 (unsigned long long)(g->addr - start[g->map] + off[g->map]));
			bag_add(&got, key, count);
		}
		if (!line)
			break;
		if (next) {
			count = a;
			leaf = l;
			pid = tid = c = 0;
			open = true;
			continue;
		}
		const char *p;
		if ((p = strstr(line, "pid:[")))
			pid = (unsigned long long)strtoll(p + 5, NULL, 10);
		if ((p = strstr(line, "tid:[")))
			tid = (unsigned long long)strtoll(p + 5, NULL, 10);
		if ((p = strstr(line, "cpu:[")))
			c = strtoull(p + 5, NULL, 10);
	}
	ck_assert_uint_gt(got.n, 50);
	bag_assert_eq(&want, &got, "go tool pprof -raw: pid tid cpu leaf");
	snprintf(cmd, sizeof cmd, GOENV "go tool pprof -traces '%s/x.pb.gz' 2>/dev/null | "
		 "grep -cE '^ +(pid|tid|cpu): +[0-9]+$'", dir);
	char *n = pd_test_run(cmd, &st);
	ck_assert_msg(atoi(n) > 0, "go tool pprof -traces shows no pid, tid or cpu label");
	fprintf(stderr, "go: %zu samples' labels and leaves as the export holds them\n", got.n);
	free(n);
	free(loc);
	free(start);
	free(off);
	free(raw);
	bag_free(&want);
	bag_free(&got);
	perftools__profiles__profile__free_unpacked(m, NULL);
	pd_test_lab_close(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pprof_sites");
	TCase *tc = tcase_create("recorded");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_labels_and_leaves);
	tcase_add_test(tc, test_mappings);
	tcase_add_test(tc, test_inline_lines);
	tcase_add_test(tc, test_raw_names);
	tcase_add_test(tc, test_start_time);
	tcase_add_test(tc, test_go_reads_labels);
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
