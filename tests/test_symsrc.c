/*
 * Symbol sources for a recording read where its binary is gone: a perf
 * archive tarball read in place (--buildid-dir=FILE, symbols/tarball.c)
 * and debuginfod servers (symbols/debuginfod.c) name its frames as they
 * would be named with the binary in place.
 *
 * The lab, made once: a program compiled here with a build-id, recorded
 * with `perf record -N -e cpu-clock -g`, put into a private build-id cache
 * by `perf buildid-cache` and packed by `perf archive` (both with HOME
 * pointing into the lab: they write ~/.debug whatever PERF_BUILDID_DIR
 * says), the tarball repacked with xz and zstd; then the program renamed.
 *
 * Checks: the robot's keys (`report --format=lkp`) from each tarball equal
 * those taken before the rename, and without the tarball they lack the
 * program's functions (so the comparison can fail); the oracle is perf
 * itself, `perf --buildid-dir` on the tarball extracted by tar, whose
 * self shares of the program's functions ours must match.  Bad tarballs
 * (cut short, a loop of links, another build under the build-id) give a
 * warning that says so, and the frames stay [unknown] rather than named
 * wrongly.
 *
 * debuginfod: Debian's server (`debuginfod -F DIR`) on a free loopback
 * port, serving a directory with the program alone, started by the test
 * and killed at its end: the keys equal those in place, the file lands in
 * DEBUGINFOD_CACHE_PATH (a lab directory), and --offline asks nothing.  A
 * listener that never answers costs the timeout and no more
 * (DEBUGINFOD_TIMEOUT=2, DEBUGINFOD_RETRY_LIMIT=0); a server that returns
 * another program for every build-id (a thread of the test) is refused.
 *
 * --symbols-from: an ordered list of sources per side.  A second
 * build-id directory holds the program with tar_spin renamed tar_spin_B
 * (objcopy keeps the build-id): whichever of it and the tarball comes
 * first names the frames, keys equal to those in place (with the rename),
 * and the report's header names that source for the program; per side
 * (diff --base-/--new-symbols-from) each side's footer names its own.
 * The URL of the loopback debuginfod names the frames with DEBUGINFOD_URLS
 * unset and the footer names the URL; a URL serving another build is
 * refused and the footer counts the program not found.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char prog_src[] =
	"#include <fcntl.h>\n"
	"#include <unistd.h>\n"
	"static volatile double sink;\n"
	"__attribute__((noinline)) void tar_spin(long n)\n"
	"{ double x = 0; for (long i = 0; i < n; i++) x += i * 0.5; sink += x; }\n"
	"__attribute__((noinline)) void tar_hot_a(void) { tar_spin(30000000); }\n"
	"__attribute__((noinline)) void tar_hot_b(void) { tar_spin(10000000); }\n"
	"__attribute__((noinline)) void tar_sys(void)\n"
	"{ int fd = open(\"/dev/null\", O_WRONLY); char b[4096] = { 0 };\n"
	"  for (int i = 0; i < 200000; i++) if (write(fd, b, sizeof b) < 0) break; close(fd); }\n"
	"int main(void) { for (int i = 0; i < 8; i++) { tar_hot_a(); tar_hot_b(); } tar_sys();\n"
	"  return 0; }\n";

/* The lab, made by the unchecked fixture in the parent process. */
static char *lab;
static const char *skip;
static char *keys_in_place;   /* lkp keys with the program at its path */
static char bid[64];          /* the program's build-id, hex */

static char *keys_with(const char *buildid_dir, char **err)
{
	char args[16384];
	snprintf(args, sizeof args, "report --format=lkp --buildid-dir='%s' '%s/p.data'",
		 buildid_dir, lab);
	int st;
	return pd_test_cli(lab, args, &st, err);
}

static bool sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool sh(const char *fmt, ...)
{
	char cmd[16384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	return pd_test_sh_ok(cmd);
}

static bool record(void)
{
	char data[4400], work[4400];
	snprintf(data, sizeof data, "%s/p.data", lab);
	snprintf(work, sizeof work, "'%s/prog'", lab);
	/* a loaded machine may give few samples: try again */
	for (int i = 0; i < 3; i++) {
		if (!pd_test_perf_record(data, "-N -e cpu-clock -g", work))
			return false;
		if (sh("[ $(perf script -i '%s/p.data' -F ip 2>/dev/null | wc -l) -ge 40 ]", lab))
			return true;
	}
	return false;
}

static const char *make_lab(void)
{
	const char *why = pd_test_lab_open(true, &lab);
	if (why)
		return why;
	if (!sh("tar --version >/dev/null 2>&1 && xz --version >/dev/null 2>&1 && "
		"zstd --version >/dev/null 2>&1"))
		return "tar, xz or zstd missing";
	char out[4400], src[4400];
	snprintf(out, sizeof out, "%s/prog", lab);
	snprintf(src, sizeof src, "%s/prog.c", lab);
	if (!pd_test_write_file(src, prog_src, sizeof prog_src - 1) ||
	    !pd_test_compile("cc", "-O1 -g -Wl,--build-id", out, src))
		return "cannot compile the workload";
	if (!record())
		return "perf record gave too few samples";
	if (!sh("cd '%s' && mkdir -p home empty && HOME='%s/home' perf buildid-cache -a '%s/prog' "
		"&& { HOME='%s/home' perf archive p.data >/dev/null 2>&1; [ -s p.data.tar.bz2 ]; } && "
		"bzip2 -dc p.data.tar.bz2 | xz > p.data.tar.xz && "
		"bzip2 -dc p.data.tar.bz2 | zstd -q > p.data.tar.zst",
		lab, lab, lab, lab))
		return "perf archive failed";
	char cmd[4400];
	snprintf(cmd, sizeof cmd,
		 "readelf -n '%s/prog' | sed -n 's/^ *Build ID: *//p' | head -1 | tr -d '\\n'", lab);
	int st;
	char *id = pd_test_run(cmd, &st);
	if (!id || strlen(id) < 8 || strlen(id) >= sizeof bid) {
		free(id);
		return "no build-id in the workload";
	}
	strcpy(bid, id);
	free(id);
	char empty[4400];
	snprintf(empty, sizeof empty, "%s/empty", lab);
	char *err = NULL;
	keys_in_place = keys_with(empty, &err);
	free(err);
	if (!keys_in_place || !strstr(keys_in_place, "tar_spin"))
		return "the program's frames are not named even in place";
	if (!sh("mv '%s/prog' '%s/prog.moved'", lab, lab))
		return "cannot rename the program";
	return NULL;
}

static void lab_setup(void)
{
	skip = make_lab();
}

static void lab_teardown(void)
{
	pd_test_lab_close(lab);
	lab = NULL;
	free(keys_in_place);
}

START_TEST(test_keys_from_tarballs)
{
	PD_SKIP_IF(skip);
	char empty[4400];
	snprintf(empty, sizeof empty, "%s/empty", lab);
	char *err = NULL;
	char *none = keys_with(empty, &err);
	ck_assert_msg(!strstr(none, "tar_spin"), "named without the binary:\n%s", none);
	ck_assert_msg(strstr(err, bid) != NULL, "no word of the missing build-id:\n%s", err);
	free(none);
	free(err);
	static const char *const kinds[] = { "bz2", "xz", "zst" };
	for (size_t i = 0; i < 3; i++) {
		char tar[4400];
		snprintf(tar, sizeof tar, "%s/p.data.tar.%s", lab, kinds[i]);
		char *keys = keys_with(tar, &err);
		ck_assert_msg(strcmp(keys, keys_in_place) == 0,
			      "%s: keys differ:\n%.1500s\n--- in place:\n%.1500s\n--- stderr:\n%.500s",
			      kinds[i], keys, keys_in_place, err);
		ck_assert_msg(!strstr(err, "tarball"), "%s: %s", kinds[i], err);
		free(keys);
		free(err);
	}
}
END_TEST

/* `name` -> self share in the lines of `text` that show dso "prog". */
static double share_of(const char *text, const char *name, bool ours)
{
	char *copy = strdup(text);
	ck_assert_ptr_nonnull(copy);
	double v = -1;
	for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		double a, b;
		char dso[256], sym[256];
		int n = ours ? sscanf(l, " %lf%% %lf%% %255s [.] %255s", &a, &b, dso, sym)
			     : sscanf(l, " %lf%% %255s [.] %255s", &b, dso, sym);
		if (n == (ours ? 4 : 3) && strcmp(dso, "prog") == 0 && strcmp(sym, name) == 0)
			v = b;
	}
	free(copy);
	return v;
}

/* perf on the tarball extracted into a build-id directory names the same
 * functions with the same self shares as we do on the tarball as is. */
START_TEST(test_oracle_perf_extracted)
{
	PD_SKIP_IF(skip);
	ck_assert(sh("mkdir -p '%s/bd' && tar xjf '%s/p.data.tar.bz2' -C '%s/bd'", lab, lab, lab));
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "HOME='%s/empty' perf --buildid-dir '%s/bd' report -i '%s/p.data' --stdio "
		 "--no-children -g none --sort dso,sym -q 2>/dev/null",
		 lab, lab, lab);
	int st;
	char *perf = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(perf);
	char *err = NULL;
	snprintf(cmd, sizeof cmd, "report --buildid-dir='%s/p.data.tar.bz2' '%s/p.data'", lab, lab);
	char *ours = pd_test_cli(lab, cmd, &st, &err);
	static const char *const names[] = { "tar_spin", "tar_hot_a", "tar_hot_b" };
	double sum = 0;
	for (size_t i = 0; i < 3; i++) {
		double p = share_of(perf, names[i], false), o = share_of(ours, names[i], true);
		ck_assert_msg(fabs(p - o) < 0.02, "%s: perf %.2f%%, ours %.2f%%\nperf:\n%s\nours:\n%s",
			      names[i], p, o, perf, ours);
		sum += p > 0 ? p : 0;
	}
	ck_assert_msg(sum > 50, "perf names too little of the program:\n%s", perf);
	free(perf);
	free(ours);
	free(err);
}
END_TEST

/* The keys of a bad tarball: none of the program's names, and `words` in
 * the warnings. */
static void assert_refused(const char *tar, const char *words)
{
	char *err = NULL;
	char *keys = keys_with(tar, &err);
	ck_assert_msg(!strstr(keys, "tar_spin") && !strstr(keys, "tar_hot"),
		      "%s: named from a bad tarball:\n%s", tar, keys);
	ck_assert_msg(strstr(err, words) != NULL, "%s: no \"%s\" in:\n%s", tar, words, err);
	free(keys);
	free(err);
}

START_TEST(test_corrupt_tarball)
{
	PD_SKIP_IF(skip);
	/* cut short inside the compressed stream, and one byte flipped in
	 * the middle of it */
	ck_assert(sh("cd '%s' && head -c $(( $(stat -c %%s p.data.tar.bz2) / 2 )) p.data.tar.bz2 "
		     "> cut.tar.bz2", lab));
	char tar[4400];
	snprintf(tar, sizeof tar, "%s/cut.tar.bz2", lab);
	assert_refused(tar, "cut.tar.bz2");
	ck_assert(sh("cd '%s' && cp p.data.tar.xz flip.tar.xz && printf '\\377' | dd of=flip.tar.xz "
		     "bs=1 seek=$(( $(stat -c %%s flip.tar.xz) / 2 )) conv=notrunc 2>/dev/null",
		     lab));
	snprintf(tar, sizeof tar, "%s/flip.tar.xz", lab);
	assert_refused(tar, "flip.tar.xz");
	snprintf(tar, sizeof tar, "%s/prog.moved", lab);
	assert_refused(tar, "not a readable tarball");
}
END_TEST

START_TEST(test_link_loop)
{
	PD_SKIP_IF(skip);
	/* .build-id/xx/rest -> ../../a -> .build-id/xx/rest, next to the
	 * program's real directory, which no link reaches */
	ck_assert(sh("cd '%s' && rm -rf loop && mkdir loop && tar xjf p.data.tar.bz2 -C loop && "
		     "cd loop && rm .build-id/%.2s/%s && ln -s ../../a .build-id/%.2s/%s && "
		     "ln -s .build-id/%.2s/%s a && tar cjf ../loop.tar.bz2 .build-id a",
		     lab, bid, bid + 2, bid, bid + 2, bid, bid + 2));
	char tar[4400];
	snprintf(tar, sizeof tar, "%s/loop.tar.bz2", lab);
	assert_refused(tar, "loop of links");
}
END_TEST

START_TEST(test_other_build_refused)
{
	PD_SKIP_IF(skip);
	/* the program's place in the tarball holds another program (perf
	 * archive leaves out what is not in its cache: only the program is
	 * there) */
	ck_assert(sh("cd '%s' && rm -rf other && mkdir other && tar xjf p.data.tar.bz2 -C other && "
		     "cp /usr/bin/true \"$(dirname $(find other -name elf | head -1))/elf\" "
		     "&& tar cjf other.tar.bz2 -C other .",
		     lab));
	char tar[4400];
	snprintf(tar, sizeof tar, "%s/other.tar.bz2", lab);
	assert_refused(tar, "refused");
}
END_TEST

/* Every "K_" taken out of `s`, in place. */
static void unmark(char *s)
{
	char *o = s;
	for (const char *i = s; *i;)
		if (i[0] == 'K' && i[1] == '_' && (i == s || i[-1] == '.' || i[-1] == ' '))
			i += 2;
		else
			*o++ = *i++;
	*o = '\0';
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of `s` sorted (names renamed reorder the keys), in place. */
static void sort_lines(char *s)
{
	size_t n = 0, len = strlen(s);
	char *copy = strdup(s);
	char **v = calloc(len + 1, sizeof *v);
	ck_assert(copy && v);
	for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		v[n++] = l;
	qsort(v, n, sizeof *v, cmp_line);
	char *o = s;
	for (size_t i = 0; i < n; i++)
		o += sprintf(o, "%s\n", v[i]);
	free(v);
	free(copy);
}

/*
 * The recording machine's kernel table in the tarball names the kernel's
 * frames, before this machine's /proc/kallsyms (the same kernel here, so
 * the tarball's copy is marked: every text symbol renamed K_name).  The
 * keys are those in place with each kernel name marked.
 */
START_TEST(test_kernel_from_tarball)
{
	PD_SKIP_IF(skip);
	if (!sh("[ \"$(cat /proc/sys/kernel/kptr_restrict)\" = 0 ] && "
		"awk '$2 ~ /^[tT]$/ && $1 !~ /^0+$/ { ok = 1; exit } END { exit !ok }' /proc/kallsyms"))
		PD_SKIP("kernel addresses are hidden here (kptr_restrict)");
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "perf buildid-list -i '%s/p.data' 2>/dev/null | sed -n 's/ \\[kernel.kallsyms\\]$//p' "
		 "| head -1 | tr -d '\\n'",
		 lab);
	int st;
	char *kid = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(kid);
	if (strlen(kid) < 8 || strlen(kid) > 40) {
		free(kid);
		PD_SKIP("the recording has no kernel build-id");
	}
	ck_assert(sh("cd '%s' && rm -rf kt && mkdir kt && tar xjf p.data.tar.bz2 -C kt && cd kt && "
		     "mkdir -p '[kernel.kallsyms]/%s' .build-id/%.2s && "
		     "sed -E 's/^([0-9a-f]+ [tTwW] )/\\1K_/' /proc/kallsyms > '[kernel.kallsyms]/%s/kallsyms' && "
		     "ln -s '../../[kernel.kallsyms]/%s' .build-id/%.2s/%s && tar cjf ../kt.tar.bz2 .",
		     lab, kid, kid, kid, kid, kid, kid + 2));
	char tar[4400];
	snprintf(tar, sizeof tar, "%s/kt.tar.bz2", lab);
	char *err = NULL;
	char *keys = keys_with(tar, &err);
	if (!strstr(keys_in_place, "do_syscall_64")) {
		free(kid);
		free(keys);
		free(err);
		PD_SKIP("no kernel frames in the recording (perf_event_paranoid?)");
	}
	ck_assert_msg(strstr(keys, "K_do_syscall_64") != NULL,
		      "kernel frames not named from the tarball:\n%.1500s\n%.500s", keys, err);
	unmark(keys);
	sort_lines(keys);
	char *want = strdup(keys_in_place);
	ck_assert_ptr_nonnull(want);
	sort_lines(want);
	ck_assert_msg(strcmp(keys, want) == 0, "keys differ:\n%.1500s\n--- in place:\n%.1500s",
		      keys, want);
	free(want);
	free(keys);
	free(err);
	/* the header names the table: the tarball's, given as a source or
	 * as the build-id cache; else this machine's */
	static const char *const how[] = { "--buildid-dir='%s'", "--symbols-from='%s'" };
	for (size_t i = 0; i < 2; i++) {
		char opt[4600], line[4800];
		snprintf(opt, sizeof opt, how[i], tar);
		snprintf(cmd, sizeof cmd, "report %s %s '%s/p.data'", opt,
			 i ? "--buildid-dir=empty" : "", lab);
		char *text = pd_test_cli(lab, cmd, &st, &err);
		snprintf(line, sizeof line, "# kernel symbols: kallsyms from %s (build-id %.8s...)\n",
			 tar, kid);
		ck_assert_msg(strstr(text, line) && strstr(text, "K_do_syscall_64"),
			      "%s: no \"%s\" in:\n%.2000s", opt, line, text);
		free(text);
		free(err);
	}
	snprintf(cmd, sizeof cmd, "report --buildid-dir=empty '%s/p.data'", lab);
	char *text = pd_test_cli(lab, cmd, &st, &err);
	char line[256];
	snprintf(line, sizeof line,
		 "# kernel symbols: kallsyms from /proc/kallsyms (this machine's kernel, the "
		 "recorded one, build-id %.8s...)\n", kid);
	ck_assert_msg(strstr(text, line) && !strstr(text, "K_do_syscall_64"),
		      "no \"%s\" in:\n%.2000s", line, text);
	free(text);
	free(err);
	free(kid);
}
END_TEST

/* ------------------------------------------------------- --symbols-from */

/* `args` of `report` run in the lab with an empty build-id cache: stdout
 * (caller frees), stderr in *err. */
static char *report_with(const char *args, char **err)
{
	char cmd[20000];
	snprintf(cmd, sizeof cmd, "report --buildid-dir='%s/empty' %s '%s/p.data'", lab, args, lab);
	int st;
	return pd_test_cli(lab, cmd, &st, err);
}

/* The directory B: a build-id cache whose program has tar_spin renamed
 * tar_spin_B, same build-id. */
static void make_renamed(void)
{
	ck_assert(sh("cd '%s' && rm -rf B && mkdir -p B/.build-id/%.2s/%s && "
		     "objcopy --redefine-sym tar_spin=tar_spin_B prog.moved B/.build-id/%.2s/%s/elf && "
		     "[ \"$(readelf -n B/.build-id/%.2s/%s/elf | sed -n 's/^ *Build ID: *//p')\" = %s ]",
		     lab, bid, bid + 2, bid, bid + 2, bid, bid + 2, bid));
}

/* keys_in_place with tar_spin renamed tar_spin_B (malloc'd). */
static char *keys_renamed(void)
{
	size_t n = strlen(keys_in_place), k = 0;
	char *out = malloc(2 * n + 1);
	ck_assert_ptr_nonnull(out);
	for (const char *i = keys_in_place; *i;) {
		if (strncmp(i, "tar_spin", 8) == 0) {
			memcpy(out + k, "tar_spin_B", 10);
			k += 10;
			i += 8;
		} else {
			out[k++] = *i++;
		}
	}
	out[k] = '\0';
	return out;
}

/* The header line naming the program's source must say `from`. */
static void assert_source(const char *text, const char *from)
{
	char want[8192];
	snprintf(want, sizeof want, "prog (build-id %.8s...) from %s", bid, from);
	ck_assert_msg(strstr(text, want) != NULL, "no \"%s\" in:\n%.2000s", want, text);
}

START_TEST(test_sources_in_order)
{
	PD_SKIP_IF(skip);
	if (!sh("command -v objcopy >/dev/null"))
		PD_SKIP("no objcopy");
	make_renamed();
	char *renamed = keys_renamed();
	char tar[4400], dirb[4400], args[9000];
	snprintf(tar, sizeof tar, "%s/p.data.tar.bz2", lab);
	snprintf(dirb, sizeof dirb, "%s/B", lab);
	/* each order: the first source names the frames, and is named */
	for (int first_b = 0; first_b < 2; first_b++) {
		const char *a = first_b ? dirb : tar, *b = first_b ? tar : dirb;
		snprintf(args, sizeof args, "--symbols-from='%s' --symbols-from='%s'", a, b);
		char lkp[16384];
		snprintf(lkp, sizeof lkp, "--format=lkp %s", args);
		char *err = NULL;
		char *keys = report_with(lkp, &err);
		const char *want = first_b ? renamed : keys_in_place;
		ck_assert_msg(strcmp(keys, want) == 0, "%s first: keys differ:\n%.1500s\n--- want:\n%.1500s\n%.500s",
			      a, keys, want, err);
		free(keys);
		free(err);
		char *text = report_with(args, &err);
		assert_source(text, a);
		ck_assert_msg(!strstr(text, "not found"), "%.2000s", text);
		free(text);
		free(err);
	}
	/* without them: not found, and the header says so */
	char *err = NULL;
	char *text = report_with("", &err);
	char want[256];
	snprintf(want, sizeof want, "# 1 dso not found: prog (build-id %.8s...)", bid);
	ck_assert_msg(strstr(text, want) != NULL, "no \"%s\" in:\n%.2000s", want, text);
	free(text);
	free(err);
	free(renamed);
}
END_TEST

/* diff: each side its own list; the footer of each names its source. */
START_TEST(test_sources_per_side)
{
	PD_SKIP_IF(skip);
	if (!sh("command -v objcopy >/dev/null"))
		PD_SKIP("no objcopy");
	make_renamed();
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "diff --all --buildid-dir='%s/empty' --base-symbols-from='%s/p.data.tar.bz2' "
		 "--new-symbols-from='%s/B' '%s/p.data' '%s/p.data'",
		 lab, lab, lab, lab, lab);
	int st;
	char *err = NULL;
	char *text = pd_test_cli(lab, cmd, &st, &err);
	ck_assert_msg(strstr(text, "tar_spin_B") && strstr(text, "tar_spin "),
		      "the sides are not named from their own sources:\n%.3000s\n%.500s", text, err);
	char base[8192], new_[8192];
	snprintf(base, sizeof base, "prog (build-id %.8s...) from %s/p.data.tar.bz2", bid, lab);
	snprintf(new_, sizeof new_, "prog (build-id %.8s...) from %s/B", bid, lab);
	const char *b = strstr(text, base), *n = strstr(text, new_);
	ck_assert_msg(b && n && b < n, "footers: base \"%s\", new \"%s\" in:\n%.3000s", base, new_,
		      text);
	free(text);
	free(err);
}
END_TEST

/* ------------------------------------------------------- debuginfod */

/* A loopback socket listening on a free port (in *port), never accepting. */
static int listener(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	ck_assert(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 8) == 0 &&
		  getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void use_server(int port, const char *timeout)
{
	char url[64], cache[4400];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	snprintf(cache, sizeof cache, "%s/dcache.%d", lab, port);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	setenv("DEBUGINFOD_TIMEOUT", timeout, 1);
	setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

START_TEST(test_debuginfod_executable)
{
	PD_SKIP_IF(skip);
	if (!sh("command -v debuginfod >/dev/null && command -v bash >/dev/null"))
		PD_SKIP("no debuginfod here (Debian's debuginfod package)");
	ck_assert(sh("mkdir -p '%s/srv' && cp '%s/prog.moved' '%s/srv/prog'", lab, lab, lab));
	/* a free port: the kernel's choice, released for the server */
	int port, fd = listener(&port);
	close(fd);
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && { debuginfod -F srv -p %d -d '%s/dfd.sqlite' -t 0 -g 0 "
		 ">dfd.log 2>&1 & echo $!; }", lab, port, lab);
	int st;
	char *pidtext = pd_test_run(cmd, &st);
	pid_t pid = pidtext ? (pid_t)atoi(pidtext) : 0;
	free(pidtext);
	ck_assert_int_gt(pid, 0);
	/* wait until it has scanned the program (its metrics say so) */
	bool up = false;
	for (int i = 0; i < 100 && !up; i++) {
		up = sh("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && printf \"GET /metrics "
			"HTTP/1.0\\r\\n\\r\\n\" >&3 && cat <&3' 2>/dev/null | "
			"grep -q '^scanned_files_total{source=\"file\"} [1-9]'", port);
		if (!up)
			usleep(100000);
	}
	if (!up) {
		kill(pid, SIGTERM);
		ck_abort_msg("debuginfod did not scan %s/srv in 10 s", lab);
	}
	use_server(port, "10");
	char empty[4400];
	snprintf(empty, sizeof empty, "%s/empty", lab);
	char *err = NULL;
	char *keys = keys_with(empty, &err);
	ck_assert_msg(strcmp(keys, keys_in_place) == 0, "keys differ:\n%.1500s\n--- in place:\n%.1500s\n--- stderr:\n%.500s",
		      keys, keys_in_place, err);
	free(keys);
	free(err);
	ck_assert(sh("[ -s '%s/dcache.%d/%s/executable' ]", lab, port, bid));
	/* offline: the cache is not a source, and no server is asked */
	char args[16384];
	snprintf(args, sizeof args, "report --format=lkp --offline --buildid-dir='%s' '%s/p.data'",
		 empty, lab);
	keys = pd_test_cli(lab, args, &st, &err);
	ck_assert_msg(!strstr(keys, "tar_spin"), "named offline:\n%.1500s", keys);
	free(keys);
	free(err);
	/* the server as a source of its own, DEBUGINFOD_URLS unset */
	unsetenv("DEBUGINFOD_URLS");
	char lkp[256], url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	snprintf(lkp, sizeof lkp, "--format=lkp --symbols-from=%s", url);
	keys = report_with(lkp, &err);
	ck_assert_msg(strcmp(keys, keys_in_place) == 0,
		      "from the URL: keys differ:\n%.1500s\n--- in place:\n%.1500s\n%.500s", keys,
		      keys_in_place, err);
	free(keys);
	free(err);
	char *text = report_with(lkp + strlen("--format=lkp "), &err);
	assert_source(text, url);
	free(text);
	free(err);
	/* offline: a URL source is not asked either */
	snprintf(lkp, sizeof lkp, "--format=lkp --offline --symbols-from=%s", url);
	keys = report_with(lkp, &err);
	ck_assert_msg(!strstr(keys, "tar_spin"), "named offline:\n%.1500s", keys);
	free(keys);
	free(err);
	kill(pid, SIGTERM);
}
END_TEST

START_TEST(test_debuginfod_hung)
{
	PD_SKIP_IF(skip);
	int port, fd = listener(&port);
	use_server(port, "2");
	char empty[4400];
	snprintf(empty, sizeof empty, "%s/empty", lab);
	char *err = NULL;
	double t0 = now();
	char *keys = keys_with(empty, &err);
	double took = now() - t0;
	close(fd);
	ck_assert_msg(!strstr(keys, "tar_spin"), "named by a server that never answers");
	ck_assert_msg(strstr(err, "no more requests") != NULL, "no word of the server:\n%s", err);
	/* one timeout, plus the run itself (slow under the sanitizers) */
	ck_assert_msg(took < 2 + 4, "a hung server cost %.1f s with a timeout of 2 s", took);
	free(keys);
	free(err);
	/* the same listener as a --symbols-from URL */
	fd = listener(&port);
	unsetenv("DEBUGINFOD_URLS");
	char args[128];
	snprintf(args, sizeof args, "--format=lkp --symbols-from=http://127.0.0.1:%d", port);
	t0 = now();
	keys = report_with(args, &err);
	took = now() - t0;
	close(fd);
	ck_assert_msg(!strstr(keys, "tar_spin"), "named by a URL that never answers");
	ck_assert_msg(strstr(err, "127.0.0.1") != NULL, "no word of the URL:\n%s", err);
	ck_assert_msg(took < 2 + 4, "a hung URL cost %.1f s with a timeout of 2 s", took);
	free(keys);
	free(err);
}
END_TEST

/* Answers every request with /usr/bin/true, whatever build-id it names. */
static void *wrong_server(void *arg)
{
	int lfd = *(int *)arg;
	size_t len = 0;
	uint8_t *body = pd_test_read_file("/usr/bin/true", &len);
	for (;;) {
		int c = accept(lfd, NULL, NULL);
		if (c < 0)
			break;
		char req[4096];
		(void)!read(c, req, sizeof req);
		char head[256];
		int n = snprintf(head, sizeof head,
				 "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
				 len);
		(void)!write(c, head, (size_t)n);
		(void)!write(c, body, len);
		close(c);
	}
	free(body);
	return NULL;
}

START_TEST(test_debuginfod_wrong_build)
{
	PD_SKIP_IF(skip);
	int port, fd = listener(&port);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, wrong_server, &fd), 0);
	use_server(port, "10");
	char empty[4400];
	snprintf(empty, sizeof empty, "%s/empty", lab);
	char *err = NULL;
	char *keys = keys_with(empty, &err);
	ck_assert_msg(!strstr(keys, "tar_spin"), "named from another build:\n%.1500s", keys);
	ck_assert_msg(strstr(err, "refused") != NULL, "no word of the refusal:\n%s", err);
	free(keys);
	free(err);
	/* the same server as a --symbols-from URL: refused, and the header
	 * counts the program not found, the URL among the sources searched */
	unsetenv("DEBUGINFOD_URLS");
	char args[128], want[256];
	snprintf(args, sizeof args, "--symbols-from=http://127.0.0.1:%d", port);
	char *text = report_with(args, &err);
	ck_assert_msg(!strstr(text, "tar_spin"), "named from another build:\n%.1500s", text);
	ck_assert_msg(strstr(err, "refused") != NULL, "no word of the refusal:\n%s", err);
	snprintf(want, sizeof want, "# 1 dso not found: prog (build-id %.8s...); searched http://127.0.0.1:%d",
		 bid, port);
	ck_assert_msg(strstr(text, want) != NULL, "no \"%s\" in:\n%.2000s", want, text);
	free(text);
	free(err);
	shutdown(fd, SHUT_RDWR);
	pthread_join(t, NULL);
	close(fd);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("symsrc");
	TCase *tc = tcase_create("tarball");
	tcase_add_unchecked_fixture(tc, lab_setup, lab_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_keys_from_tarballs);
	tcase_add_test(tc, test_oracle_perf_extracted);
	tcase_add_test(tc, test_corrupt_tarball);
	tcase_add_test(tc, test_link_loop);
	tcase_add_test(tc, test_other_build_refused);
	tcase_add_test(tc, test_kernel_from_tarball);
	tcase_add_test(tc, test_sources_in_order);
	tcase_add_test(tc, test_sources_per_side);
	tcase_add_test(tc, test_debuginfod_executable);
	tcase_add_test(tc, test_debuginfod_hung);
	tcase_add_test(tc, test_debuginfod_wrong_build);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
