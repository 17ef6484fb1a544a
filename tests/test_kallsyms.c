/*
 * kallsyms and perf-PID.map parsing: hand-written tables pinning perf's
 * alias choice (the last alias of an address wins because only it has a
 * size when perf drops aliases), ends, padding and wrapper skipping,
 * modules and damage; 10 MB of garbage; and the real thing: names of the
 * kernel frames of a system-wide recording compared with `perf script`,
 * and a JIT (this binary, re-executed) whose perf-PID.map perf and we both
 * read.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "symbols/jitmap.h"
#include "symbols/kallsyms.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static pd_kallsyms *parse_ok(const char *text)
{
	pd_kallsyms *k = NULL;
	pd_error e = { 0 };
	int rc = pd_kallsyms_parse(&k, text, strlen(text), &e);
	ck_assert_msg(rc == 0, "parse failed: %d %s", rc, e.message);
	ck_assert_ptr_nonnull(k);
	return k;
}

/* find(addr) names `name` with [start, end). */
static void expect_sym(const pd_kallsyms *k, uint64_t addr, const char *name, uint64_t start,
		       uint64_t end)
{
	const pd_kallsym *s = pd_kallsyms_find(k, addr);
	ck_assert_msg(s != NULL, "0x%llx: no symbol, want %s", (unsigned long long)addr, name);
	ck_assert_msg(strcmp(s->name, name) == 0, "0x%llx: %s, want %s",
		      (unsigned long long)addr, s->name, name);
	ck_assert_msg(s->start == start && s->end == end,
		      "%s: [0x%llx, 0x%llx), want [0x%llx, 0x%llx)", name,
		      (unsigned long long)s->start, (unsigned long long)s->end,
		      (unsigned long long)start, (unsigned long long)end);
}

static void expect_none(const pd_kallsyms *k, uint64_t addr)
{
	const pd_kallsym *s = pd_kallsyms_find(k, addr);
	ck_assert_msg(s == NULL, "0x%llx: %s, want nothing", (unsigned long long)addr,
		      s ? s->name : "");
}

/* ---- kallsyms: hand-written ---- */

START_TEST(aliases_last_in_file_order)
{
	/* perf 6.1 on this layout shows __pi_memset (see the real-data test) */
	pd_kallsyms *k = parse_ok("0000000000001000 T memset\n"
				  "0000000000001000 T __memset\n"
				  "0000000000001000 T __pi_memset\n"
				  "0000000000001040 T next_fn\n");
	ck_assert_uint_eq(pd_kallsyms_count(k), 2);
	expect_sym(k, 0x1000, "__pi_memset", 0x1000, 0x1040);
	/* the aliases share the range: memset+0xd is not a zero-length miss */
	expect_sym(k, 0x100d, "__pi_memset", 0x1000, 0x1040);
	expect_sym(k, 0x103f, "__pi_memset", 0x1000, 0x1040);
	/* the last symbol: roundup(start, 4096) + 4096, as perf */
	expect_sym(k, 0x1040, "next_fn", 0x1040, 0x3000);
	expect_sym(k, 0x2fff, "next_fn", 0x1040, 0x3000);
	expect_none(k, 0x3000);
	expect_none(k, 0xfff);
	expect_none(k, 0);
	uint64_t a = 0;
	ck_assert(pd_kallsyms_addr(k, "memset", &a) && a == 0x1000);
	ck_assert(pd_kallsyms_addr(k, "__memset", &a) && a == 0x1000);
	ck_assert(pd_kallsyms_addr(k, "next_fn", &a) && a == 0x1040);
	ck_assert(!pd_kallsyms_addr(k, "memse", &a));
	ck_assert(!pd_kallsyms_all_zero(k));
	ck_assert_uint_eq(pd_kallsyms_skipped_lines(k), 0);
	pd_kallsyms_free(k);

	/* same names, other order: the winner follows the file, not the name */
	k = parse_ok("0000000000001000 T __pi_memset\n"
		     "0000000000001000 T memset\n"
		     "0000000000001000 T __memset\n");
	expect_sym(k, 0x1001, "__memset", 0x1000, 0x2000);
	pd_kallsyms_free(k);

	/* a page-aligned last symbol ends one page later */
	k = parse_ok("0000000000004000 t aligned\n");
	expect_sym(k, 0x4fff, "aligned", 0x4000, 0x5000);
	expect_none(k, 0x5000);
	pd_kallsyms_free(k);
}
END_TEST

/*
 * The ranking rules decide only when the sized (last) alias is a SyS_
 * wrapper that we refuse; then perf's remaining order applies:
 * not weak > global > fewer leading underscores > longer name.
 */
START_TEST(ranking_when_last_alias_is_a_wrapper)
{
	pd_kallsyms *k = parse_ok("0000000000001000 W weak_a\n"
				  "0000000000001000 T strong_a\n"
				  "0000000000001000 T SyS_a\n"
				  "0000000000002000 t local_long_name\n"
				  "0000000000002000 T glob\n"
				  "0000000000002000 T SyS_b\n"
				  "0000000000003000 T __two\n"
				  "0000000000003000 T _one\n"
				  "0000000000003000 T SyS_c\n"
				  "0000000000004000 T ab\n"
				  "0000000000004000 T abc\n"
				  "0000000000004000 T SyS_d\n"
				  /* perf maps 'w' to a local binding, not a weak one */
				  "0000000000005000 W upper_weak\n"
				  "0000000000005000 w lower_w\n"
				  "0000000000005000 T compat_SyS_e\n"
				  "0000000000006000 T SyS_only\n"
				  "0000000000007000 T SyS_x\n"
				  "0000000000007000 T sys_x\n"
				  "0000000000008000 T sys_y\n"
				  "0000000000008000 T SyS_y\n"
				  /* weak beats nothing: strong first, weak second */
				  "0000000000009000 T strong_i\n"
				  "0000000000009000 W weak_i\n"
				  "0000000000009000 T SyS_i\n");
	ck_assert_uint_eq(pd_kallsyms_count(k), 9);
	expect_sym(k, 0x1000, "strong_a", 0x1000, 0x2000);
	expect_sym(k, 0x2000, "glob", 0x2000, 0x3000);
	expect_sym(k, 0x3000, "_one", 0x3000, 0x4000);
	expect_sym(k, 0x4000, "abc", 0x4000, 0x5000);
	expect_sym(k, 0x5000, "lower_w", 0x5000, 0x6000);
	expect_sym(k, 0x6000, "SyS_only", 0x6000, 0x7000);
	expect_sym(k, 0x7000, "sys_x", 0x7000, 0x8000);
	expect_sym(k, 0x8000, "sys_y", 0x8000, 0x9000);
	expect_sym(k, 0x9000, "strong_i", 0x9000, 0xa000);
	uint64_t a;
	ck_assert(pd_kallsyms_addr(k, "SyS_b", &a) && a == 0x2000);
	pd_kallsyms_free(k);
}
END_TEST

START_TEST(padding_symbols_skipped)
{
	pd_kallsyms *k = parse_ok("0000000000010000 T alpha\n"
				  "0000000000010ff0 t __pfx_beta\n"
				  "0000000000011000 T beta\n"
				  "0000000000011ff0 t __cfi_gamma\n"
				  "0000000000012000 T gamma\n"
				  "0000000000012ff0 t __pfx_delta\n"
				  "0000000000013000 d some_data\n"
				  "0000000000013000 T delta\n");
	ck_assert_uint_eq(pd_kallsyms_count(k), 4);
	/* the padding belongs to the function before it */
	expect_sym(k, 0x10ff0, "alpha", 0x10000, 0x11000);
	expect_sym(k, 0x11ff8, "beta", 0x11000, 0x12000);
	expect_sym(k, 0x12ff0, "gamma", 0x12000, 0x13000);
	expect_sym(k, 0x13000, "delta", 0x13000, 0x14000);
	uint64_t a;
	ck_assert(!pd_kallsyms_addr(k, "__pfx_beta", &a));
	ck_assert(!pd_kallsyms_addr(k, "__cfi_gamma", &a));
	ck_assert(!pd_kallsyms_addr(k, "some_data", &a));
	ck_assert_uint_eq(pd_kallsyms_skipped_lines(k), 0);
	pd_kallsyms_free(k);
}
END_TEST

START_TEST(modules_and_order)
{
	/* module lines out of order, a core line after them, and an alias of
	 * `first` defined far from it in the file */
	pd_kallsyms *k = parse_ok("ffffffff81000000 T _stext\n"
				  "ffffffff81000000 T _text\n"
				  "ffffffff81000100 T first\n"
				  "ffffffff81000200 T core_mid\n"
				  "ffffffffc0001000 t xfs_fn\t[xfs]\n"
				  "ffffffffc0000100 t ext4_b\t[ext4]\n"
				  "ffffffffc0000000 T ext4_a\t[ext4]\n"
				  "ffffffff81000100 T second\n"
				  "ffffffff81000010 t core_last_but\n"
				  "ffffffff81000300 t core_last\n");
	ck_assert_uint_eq(pd_kallsyms_count(k), 8);
	expect_sym(k, 0xffffffff81000000, "_text", 0xffffffff81000000, 0xffffffff81000010);
	expect_sym(k, 0xffffffff81000010, "core_last_but", 0xffffffff81000010,
		   0xffffffff81000100);
	expect_sym(k, 0xffffffff81000180, "second", 0xffffffff81000100, 0xffffffff81000200);
	/* crossing from core to modules: one page past the boundary, not the
	 * start of the first module */
	expect_sym(k, 0xffffffff81001fff, "core_last", 0xffffffff81000300, 0xffffffff81002000);
	expect_none(k, 0xffffffff81002000);
	expect_none(k, 0xffffffffbfffffff);
	expect_sym(k, 0xffffffffc0000000, "ext4_a", 0xffffffffc0000000, 0xffffffffc0000100);
	/* between two modules: the next start */
	expect_sym(k, 0xffffffffc0000fff, "ext4_b", 0xffffffffc0000100, 0xffffffffc0001000);
	expect_sym(k, 0xffffffffc0001fff, "xfs_fn", 0xffffffffc0001000, 0xffffffffc0002000);
	expect_none(k, 0xffffffffc0002000);
	ck_assert_ptr_null(pd_kallsyms_find(k, 0xffffffff81000000)->module);
	ck_assert_str_eq(pd_kallsyms_find(k, 0xffffffffc0000000)->module, "ext4");
	ck_assert_str_eq(pd_kallsyms_find(k, 0xffffffffc0000100)->module, "ext4");
	ck_assert_str_eq(pd_kallsyms_find(k, 0xffffffffc0001000)->module, "xfs");
	ck_assert_int_eq(pd_kallsyms_find(k, 0xffffffffc0000100)->type, 't');
	uint64_t a;
	ck_assert(pd_kallsyms_addr(k, "_stext", &a) && a == 0xffffffff81000000);
	ck_assert(pd_kallsyms_addr(k, "first", &a) && a == 0xffffffff81000100);
	pd_kallsyms_free(k);
}
END_TEST

START_TEST(all_zero_addresses)
{
	pd_kallsyms *k = parse_ok("0000000000000000 T _text\n"
				  "0000000000000000 t foo\n"
				  "0000000000000000 D data\t[mod]\n");
	ck_assert(pd_kallsyms_all_zero(k));
	ck_assert_uint_eq(pd_kallsyms_count(k), 1);
	expect_none(k, 0xffffffff81000000);
	pd_kallsyms_free(k);

	/* data only: well formed, nothing to name, still "hidden" */
	k = parse_ok("0000000000000000 D data\n");
	ck_assert(pd_kallsyms_all_zero(k));
	ck_assert_uint_eq(pd_kallsyms_count(k), 0);
	expect_none(k, 0);
	pd_kallsyms_free(k);

	k = parse_ok("0000000000000000 T zero\n0000000000000010 T ten\n");
	ck_assert(!pd_kallsyms_all_zero(k));
	pd_kallsyms_free(k);
}
END_TEST

START_TEST(malformed_lines)
{
	char longname[2100];
	memset(longname, 'x', sizeof longname);
	longname[sizeof longname - 1] = '\0';
	char text[8192];
	int n = snprintf(text, sizeof text,
			 "T nohex\n"                          /* no address */
			 "zz12 T badhex\n"                    /* bad hex */
			 "12345678901234567 T seventeen\n"    /* 17 digits */
			 "1000 nameonly\n"                    /* no type */
			 "1000 T\n"                           /* no name */
			 "1000 T \n"                          /* empty name */
			 "1000 T name trailing\n"             /* junk after name */
			 "1000 T name\t[mod\n"                /* open module */
			 "1000 T name\tmod\n"                 /* module without [] */
			 "1000  T double_space\n"             /* type is a blank */
			 "1000 T %s\n"                        /* overlong */
			 "\n\n\r\n"                           /* blank: not counted */
			 "0000000000002000 T crlf\r\n"
			 "0000000000001000 T good\t[m] \n"
			 "1000 T embedded_nul",
			 longname);
	ck_assert_int_lt(n, (int)sizeof text);
	size_t len = (size_t)n;
	text[len++] = '\0';
	memcpy(text + len, "x\n3000 T last", 13);
	len += 13;
	pd_kallsyms *k = NULL;
	pd_error e = { 0 };
	ck_assert_int_eq(pd_kallsyms_parse(&k, text, len, &e), 0);
	ck_assert_uint_eq(pd_kallsyms_skipped_lines(k), 12);
	ck_assert_uint_eq(pd_kallsyms_count(k), 3);
	expect_sym(k, 0x1000, "good", 0x1000, 0x2000);
	ck_assert_str_eq(pd_kallsyms_find(k, 0x1000)->module, "m");
	expect_sym(k, 0x2000, "crlf", 0x2000, 0x3000);
	expect_sym(k, 0x3000, "last", 0x3000, 0x4000);
	pd_kallsyms_free(k);

	/* nothing parses: an error that says why */
	ck_assert_int_eq(pd_kallsyms_parse(&k, "", 0, &e), PD_ECORRUPT);
	ck_assert_ptr_null(k);
	ck_assert(e.message[0] != '\0');
	ck_assert_int_eq(pd_kallsyms_parse(&k, "garbage\nmore garbage\n", 21, &e),
			 PD_ECORRUPT);
	ck_assert_ptr_null(k);
	/* not NUL-terminated: stops at len */
	ck_assert_int_eq(pd_kallsyms_parse(&k, "1000 T abcdef", 9, &e), 0);
	expect_sym(k, 0x1000, "ab", 0x1000, 0x2000);
	pd_kallsyms_free(k);

	ck_assert_int_eq(pd_kallsyms_load(&k, "/nonexistent/kallsyms", &e), PD_EIO);
	ck_assert_ptr_null(k);
	ck_assert(strstr(e.message, "/nonexistent/kallsyms") != NULL);
}
END_TEST

/* ---- garbage ---- */

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

START_TEST(garbage_is_bounded)
{
	const size_t total = 10u << 20;
	char *buf = malloc(total + 256);
	ck_assert_ptr_nonnull(buf);
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t len = 0, known = 0;
	static const char printable[] =
		" \t0123456789abcdefABCDEFTtWwDd_[]$.xyz\r";
	while (len < total) {
		uint64_t r = rng_next(&seed);
		size_t kind = r % 16, n = (r >> 8) % 300;
		if (kind == 0 && len + 64 < total) {
			/* a real line the parser must find among the junk */
			len += (size_t)sprintf(buf + len, "\nffffffff9%07zx T known_%zu\n",
					       known * 0x100, known);
			known++;
		} else if (kind <= 6) {
			for (size_t i = 0; i < n && len < total; i++)
				buf[len++] = (char)rng_next(&seed);
		} else if (kind <= 14) {
			for (size_t i = 0; i < n && len < total; i++)
				buf[len++] = printable[rng_next(&seed) % (sizeof printable - 1)];
			if (len < total)
				buf[len++] = '\n';
		} else {
			/* an overlong line */
			size_t m = 5000 + (r >> 20) % 5000;
			for (size_t i = 0; i < m && len < total; i++)
				buf[len++] = (char)('a' + i % 26);
		}
	}
	ck_assert_uint_gt(known, 500);
	double t0 = now_ms();
	pd_kallsyms *k = NULL;
	pd_error e = { 0 };
	int rc = pd_kallsyms_parse(&k, buf, len, &e);
	double t1 = now_ms();
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_gt(pd_kallsyms_skipped_lines(k), 5000);
	for (size_t i = 0; i < known; i++) {
		char want[32];
		snprintf(want, sizeof want, "known_%zu", i);
		const pd_kallsym *s = pd_kallsyms_find(k, 0xffffffff90000000ULL + i * 0x100);
		ck_assert_msg(s && strcmp(s->name, want) == 0, "%s: got %s", want,
			      s ? s->name : "nothing");
	}
	fprintf(stderr, "garbage: %zu bytes, %zu known, %zu symbols, %zu skipped, %.1f ms\n",
		len, known, pd_kallsyms_count(k), pd_kallsyms_skipped_lines(k), t1 - t0);
	ck_assert_msg(t1 - t0 < 10000, "took %.0f ms", t1 - t0);
	pd_kallsyms_free(k);

	pd_jitmap *j = NULL;
	t0 = now_ms();
	ck_assert_int_eq(pd_jitmap_parse(&j, buf, len), 0);
	t1 = now_ms();
	ck_assert_uint_gt(pd_jitmap_skipped_lines(j), 5000);
	fprintf(stderr, "garbage as jit map: %zu skipped, %.1f ms\n",
		pd_jitmap_skipped_lines(j), t1 - t0);
	pd_jitmap_free(j);
	free(buf);
}
END_TEST

/* ---- kallsyms: the running kernel against perf ---- */

START_TEST(proc_kallsyms_matches_perf_script)
{
	size_t clen = 0;
	char *copy = (char *)pd_test_read_file("/proc/kallsyms", &clen);
	if (!copy || clen == 0) {
		free(copy);
		PD_SKIP("/proc/kallsyms unreadable");
	}
	pd_kallsyms *k = NULL;
	pd_error e = { 0 };
	size_t lines = 0;
	for (size_t i = 0; i < clen; i++)
		lines += copy[i] == '\n';
	/* parse cost alone, without the kernel's cost of producing the file */
	double best = 1e9;
	for (int rep = 0; rep < 3; rep++) {
		pd_kallsyms *kk = NULL;
		double a = now_ms();
		ck_assert_int_eq(pd_kallsyms_parse(&kk, copy, clen, &e), 0);
		double b = now_ms();
		if (b - a < best)
			best = b - a;
		bool hidden = pd_kallsyms_all_zero(kk);
		pd_kallsyms_free(kk);
		if (hidden) {
			free(copy);
			PD_SKIP("/proc/kallsyms addresses are hidden (kptr_restrict)");
		}
	}
	/* addresses that carry several text names, read independently */
	size_t nal = 0;
	uint64_t *addrs = malloc(lines * sizeof *addrs + 1);
	ck_assert_ptr_nonnull(addrs);
	for (char *p = copy; p && p < copy + clen;) {
		char *nl = memchr(p, '\n', (size_t)(copy + clen - p));
		unsigned long long a;
		char type, name[600];
		if (nl && sscanf(p, "%llx %c %599s", &a, &type, name) == 3 &&
		    strchr("TtWw", type) && strncmp(name, "__pfx_", 6) != 0 &&
		    strncmp(name, "__cfi_", 6) != 0)
			addrs[nal++] = a;
		p = nl ? nl + 1 : NULL;
	}
	qsort(addrs, nal, sizeof *addrs, cmp_u64);
	free(copy);
	int st;
	if (!pd_test_have_perf()) {
		free(addrs);
		PD_SKIP("perf not available");
	}
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char cmd[4608];
	snprintf(cmd, sizeof cmd,
		 "perf record -N -a -g -e cpu-clock -o %s/k.data -- sh -c "
		 "'dd if=/dev/zero of=/dev/null bs=64k count=20000; sleep 0.2' >/dev/null 2>&1",
		 dir);
	char *o = pd_test_run(cmd, &st);
	free(o);
	if (st != 0) {
		pd_test_rmrf(dir);
		free(dir);
		free(addrs);
		PD_SKIP("perf record -a failed (permissions?)");
	}
	snprintf(cmd, sizeof cmd, "perf script -F ip,sym,dso -i %s/k.data 2>/dev/null", dir);
	char *out = pd_test_run(cmd, &st);
	/* the kernel perf just read: load ours right after, from the same file */
	double t0 = now_ms();
	ck_assert_int_eq(pd_kallsyms_load(&k, "/proc/kallsyms", &e), 0);
	double t1 = now_ms();
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(st, 0);

	size_t frames = 0, agree = 0, pfx = 0, unknown_both = 0, mismatch = 0;
	size_t shown = 0, aliased = 0, user_side = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		char *endp;
		unsigned long long ip = strtoull(p, &endp, 16);
		if (endp == p || ip < 0xffff800000000000ULL)
			continue;
		while (*endp == ' ')
			endp++;
		const char *perf_sym = endp;
		/* "sym (dso)": perf looked the address up in the kernel's maps
		 * only if the dso is the kernel or a module; junk values of
		 * user frame-pointer chains go to the process's maps */
		char *dso = strrchr(endp, '(');
		if (!dso || dso == endp)
			continue;
		dso[-1] = '\0';
		if (strncmp(dso, "([", 2) != 0 || strcmp(dso, "([unknown])") == 0) {
			user_side++;
			continue;
		}
		const pd_kallsym *s = pd_kallsyms_find(k, ip);
		frames++;
		if (s && strcmp(s->name, perf_sym) == 0) {
			agree++;
			uint64_t key = s->start;
			uint64_t *hit = bsearch(&key, addrs, nal, sizeof *addrs, cmp_u64);
			if (hit && ((hit > addrs && hit[-1] == key) ||
				    (hit + 1 < addrs + nal && hit[1] == key)))
				aliased++;
		} else if (strncmp(perf_sym, "__pfx_", 6) == 0 && s) {
			/* padding we give to the function before it */
			pfx++;
			if (shown++ < 5)
				fprintf(stderr, "  pfx: %llx perf %s, ours %s\n", ip, perf_sym,
					s->name);
		} else if (!s && strcmp(perf_sym, "[unknown]") == 0) {
			unknown_both++;
		} else {
			mismatch++;
			if (mismatch <= 20)
				fprintf(stderr, "  MISMATCH %llx perf %s, ours %s\n", ip,
					perf_sym, s ? s->name : "(none)");
		}
	}
	fprintf(stderr,
		"/proc/kallsyms: %zu lines, %zu symbols, load %.1f ms, parse %.1f ms; "
		"kernel frames %zu: agree %zu (%zu at aliased addresses), __pfx_ only %zu, "
		"unknown to both %zu, mismatch %zu (%zu kernel-range values in user context)\n",
		lines, pd_kallsyms_count(k), t1 - t0, best, frames, agree, aliased, pfx,
		unknown_both, mismatch, user_side);
	ck_assert_uint_gt(frames, 0);
	ck_assert_uint_eq(mismatch, 0);
	ck_assert_uint_eq(agree + pfx + unknown_both, frames);
	/* generous: the target is well under 100 ms unsanitized */
	ck_assert_msg(best < 2000, "parse took %.0f ms", best);
	pd_kallsyms_free(k);
	free(addrs);
	free(out);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* ---- jitmap ---- */

static void expect_jit(const pd_jitmap *j, uint64_t addr, const char *name, uint64_t start,
		       uint64_t end)
{
	const pd_jitsym *s = pd_jitmap_find(j, addr);
	ck_assert_msg(s != NULL, "0x%llx: nothing, want %s", (unsigned long long)addr, name);
	ck_assert_msg(strcmp(s->name, name) == 0, "0x%llx: '%s', want '%s'",
		      (unsigned long long)addr, s->name, name);
	ck_assert_msg(s->start == start && s->end == end, "%s: [0x%llx, 0x%llx)", name,
		      (unsigned long long)s->start, (unsigned long long)s->end);
}

START_TEST(jitmap_hand_written)
{
	/* sizeof, not strlen: one line holds a NUL */
	static const char text[] = "1000 100 A outer\n"
				   "0x1050 0x10 B inner\n"
				   "2000 20 LazyCompile:*foo bar.js:10\n"
				   " 3000\t10\tTabbed name  \r\n"
				   "4000 0 zero\n"
				   "5050 10 early narrow\n"
				   "5000 100 late wide\n"
				   "\n"
				   "xyz 10 badhex\n"
				   "6000 10\n"
				   "6000\n"
				   "6000 zz name\n"
				   "ffffffffffffffff 10 overflow\n"
				   "12345678901234567 1 toolong\n"
				   "6000 10 nul\0name\n"
				   "7000 10 last, no newline";
	const char *buf = text;
	size_t len = sizeof text - 1;

	pd_jitmap *j = NULL;
	ck_assert_int_eq(pd_jitmap_parse(&j, buf, len), 0);
	ck_assert_uint_eq(pd_jitmap_skipped_lines(j), 7);
	expect_jit(j, 0x1000, "A outer", 0x1000, 0x1100);
	expect_jit(j, 0x104f, "A outer", 0x1000, 0x1100);
	expect_jit(j, 0x1050, "B inner", 0x1050, 0x1060);
	expect_jit(j, 0x105f, "B inner", 0x1050, 0x1060);
	expect_jit(j, 0x1060, "A outer", 0x1000, 0x1100);
	expect_jit(j, 0x10ff, "A outer", 0x1000, 0x1100);
	ck_assert_ptr_null(pd_jitmap_find(j, 0x1100));
	ck_assert_ptr_null(pd_jitmap_find(j, 0xfff));
	expect_jit(j, 0x2010, "LazyCompile:*foo bar.js:10", 0x2000, 0x2020);
	expect_jit(j, 0x3000, "Tabbed name", 0x3000, 0x3010);
	expect_jit(j, 0x4000, "zero", 0x4000, 0x4001);
	ck_assert_ptr_null(pd_jitmap_find(j, 0x4001));
	/* defined earlier and narrower: hidden by the later wide entry */
	expect_jit(j, 0x5055, "late wide", 0x5000, 0x5100);
	expect_jit(j, 0x7000, "last, no newline", 0x7000, 0x7010);
	ck_assert_ptr_null(pd_jitmap_find(j, 0x6000));
	pd_jitmap_free(j);

	/* code reused: a later full redefinition hides the older inner one */
	{
		const char *t = "1000 100 A\n1050 10 B\n1000 100 C\n";
		ck_assert_int_eq(pd_jitmap_parse(&j, t, strlen(t)), 0);
	}
	expect_jit(j, 0x1055, "C", 0x1000, 0x1100);
	pd_jitmap_free(j);

	/* empty input is an empty map, not an error */
	ck_assert_int_eq(pd_jitmap_parse(&j, "", 0), 0);
	ck_assert_ptr_null(pd_jitmap_find(j, 0));
	pd_jitmap_free(j);

	pd_error e = { 0 };
	ck_assert_int_eq(pd_jitmap_load(&j, "/nonexistent/perf-1.map", &e), PD_EIO);
	ck_assert_ptr_null(j);
}
END_TEST

/* Random overlapping entries against the obvious model: scan newest first. */
START_TEST(jitmap_random_overlaps)
{
	enum { N = 3000, SPACE = 4096 };
	static uint64_t st[N], en[N];
	char *text = malloc((size_t)N * 48);
	ck_assert_ptr_nonnull(text);
	uint64_t seed = 12345;
	size_t len = 0;
	for (int i = 0; i < N; i++) {
		uint64_t r = rng_next(&seed);
		st[i] = 0x10000 + r % SPACE;
		uint64_t size = (r >> 20) % 64 == 0 ? (r >> 30) % 2048 : (r >> 30) % 40;
		en[i] = st[i] + (size ? size : 1);
		len += (size_t)sprintf(text + len, "%llx %llx f%d\n", (unsigned long long)st[i],
				       (unsigned long long)size, i);
	}
	pd_jitmap *j = NULL;
	ck_assert_int_eq(pd_jitmap_parse(&j, text, len), 0);
	ck_assert_uint_eq(pd_jitmap_skipped_lines(j), 0);
	for (uint64_t a = 0x10000 - 4; a < 0x10000 + SPACE + 2100; a++) {
		int want = -1;
		for (int i = N - 1; i >= 0; i--)
			if (st[i] <= a && a < en[i]) {
				want = i;
				break;
			}
		const pd_jitsym *s = pd_jitmap_find(j, a);
		if (want < 0) {
			ck_assert_msg(s == NULL, "0x%llx: %s, want nothing",
				      (unsigned long long)a, s->name);
			continue;
		}
		char name[16];
		snprintf(name, sizeof name, "f%d", want);
		ck_assert_msg(s && strcmp(s->name, name) == 0, "0x%llx: %s, want %s",
			      (unsigned long long)a, s ? s->name : "nothing", name);
		ck_assert(s->start == st[want] && s->end == en[want]);
	}
	pd_jitmap_free(j);
	free(text);
}
END_TEST

#if defined(__x86_64__)
/*
 * The JIT child: code in anonymous executable memory, named in
 * /tmp/perf-PID.map (where perf looks for it), run long enough to be
 * sampled.  Entries: two plain functions and an inner function defined
 * after the outer range that contains it.
 */
static const uint8_t spin_code[] = {
	0x48, 0x89, 0xf8, /* mov %rdi,%rax */
	0x48, 0xff, 0xc8, /* 1: dec %rax */
	0x75, 0xfb,       /* jnz 1b */
	0xc3,             /* ret */
};

static int jit_child(const char *dir)
{
	uint8_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 2;
	memset(mem, 0xcc, 4096);
	const size_t offs[3] = { 0x000, 0x040, 0x140 };
	for (int i = 0; i < 3; i++)
		memcpy(mem + offs[i], spin_code, sizeof spin_code);
	char path[4200];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 3;
	uintptr_t b = (uintptr_t)mem;
	fprintf(f, "%lx 20 jit_spin_alpha\n", (unsigned long)b);
	fprintf(f, "0x%lx 0x20 jit spin beta (with spaces)\n", (unsigned long)(b + 0x40));
	fprintf(f, "%lx 100 jit_outer\n", (unsigned long)(b + 0x100));
	fprintf(f, "%lx 20 jit_inner\n", (unsigned long)(b + 0x140));
	fclose(f);
	snprintf(path, sizeof path, "%s/pid", dir);
	f = fopen(path, "w");
	if (!f)
		return 4;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	for (int i = 0; i < 3; i++) {
		uint64_t (*fn)(uint64_t);
		void *entry = mem + offs[i];
		memcpy(&fn, &entry, sizeof fn);
		double t0 = now_ms();
		while (now_ms() - t0 < 150)
			fn(200000);
	}
	return 0;
}
#endif

START_TEST(jitmap_real_perf_map)
{
#if !defined(__x86_64__)
	PD_SKIP("the JIT child is x86-64 machine code");
#else
	if (!pd_test_have_perf())
		PD_SKIP("perf not available");
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	ck_assert_int_gt(sl, 0);
	self[sl] = '\0';
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char cmd[8400];
	snprintf(cmd, sizeof cmd,
		 "perf record -N -e cpu-clock -o %s/j.data -- '%s' --jit-child %s "
		 ">/dev/null 2>&1",
		 dir, self, dir);
	int st;
	free(pd_test_run(cmd, &st));
	if (st != 0) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf record of the JIT child failed");
	}
	char path[4300];
	snprintf(path, sizeof path, "%s/pid", dir);
	size_t plen;
	char *pidtxt = (char *)pd_test_read_file(path, &plen);
	ck_assert_ptr_nonnull(pidtxt);
	int pid = atoi(pidtxt);
	free(pidtxt);
	char mapfile[64];
	snprintf(mapfile, sizeof mapfile, "/tmp/perf-%d.map", pid);

	snprintf(cmd, sizeof cmd, "perf script -F ip,sym -i %s/j.data 2>/dev/null", dir);
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	pd_jitmap *j = NULL;
	pd_error e = { 0 };
	ck_assert_msg(pd_jitmap_load(&j, mapfile, &e) == 0, "%s", e.message);
	unlink(mapfile);
	ck_assert_uint_eq(pd_jitmap_skipped_lines(j), 0);

	size_t alpha = 0, beta = 0, inner = 0, agree = 0, mismatch = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *p = line;
		while (*p == ' ')
			p++;
		char *e;
		unsigned long long ip = strtoull(p, &e, 16);
		if (e == p)
			continue;
		while (*e == ' ')
			e++;
		const pd_jitsym *s = pd_jitmap_find(j, ip);
		if (!s)
			continue;
		if (strcmp(s->name, "jit_inner") == 0) {
			/* perf's tree search picks either overlapping entry; the
			 * later definition is the live code */
			inner++;
			continue;
		}
		alpha += strcmp(s->name, "jit_spin_alpha") == 0;
		beta += strcmp(s->name, "jit spin beta (with spaces)") == 0;
		if (strcmp(s->name, e) == 0)
			agree++;
		else if (mismatch++ < 10)
			fprintf(stderr, "  JIT MISMATCH %llx perf '%s', ours '%s'\n", ip, e,
				s->name);
	}
	fprintf(stderr, "jit map: alpha %zu, beta %zu, inner %zu, agree %zu, mismatch %zu\n",
		alpha, beta, inner, agree, mismatch);
	ck_assert_uint_gt(alpha, 10);
	ck_assert_uint_gt(beta, 10);
	ck_assert_uint_gt(inner, 10);
	ck_assert_uint_eq(mismatch, 0);
	pd_jitmap_free(j);
	free(out);
	pd_test_rmrf(dir);
	free(dir);
#endif
}
END_TEST


/* --perf-compat: perf 6.1 names the padding before a function, e.g. the
 * return address after a call to a noreturn function at the end of the
 * previous one; the default names it after the function that holds it. */
START_TEST(padding_kept_on_request)
{
	static const char text[] =
		"ffffffff81000000 T start_kernel_caller\n"
		"ffffffff81000030 t __pfx_clear_bss\n"
		"ffffffff81000040 T clear_bss\n"
		"ffffffff81000080 T after\n";
	pd_kallsyms *k;
	pd_error e = { 0 };
	ck_assert_int_eq(pd_kallsyms_parse_flags(&k, text, sizeof text - 1, 0, &e), 0);
	const pd_kallsym *s = pd_kallsyms_find(k, 0xffffffff81000030ull);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "start_kernel_caller");
	pd_kallsyms_free(k);

	ck_assert_int_eq(pd_kallsyms_parse_flags(&k, text, sizeof text - 1,
						 PD_KALLSYMS_KEEP_PADDING, &e), 0);
	s = pd_kallsyms_find(k, 0xffffffff81000030ull);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "__pfx_clear_bss");
	ck_assert_uint_eq(s->end, 0xffffffff81000040ull);
	s = pd_kallsyms_find(k, 0xffffffff8100002full);
	ck_assert_str_eq(s->name, "start_kernel_caller");
	s = pd_kallsyms_find(k, 0xffffffff81000040ull);
	ck_assert_str_eq(s->name, "clear_bss");
	pd_kallsyms_free(k);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kallsyms");
	TCase *t = tcase_create("kallsyms");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, aliases_last_in_file_order);
	tcase_add_test(t, ranking_when_last_alias_is_a_wrapper);
	tcase_add_test(t, padding_symbols_skipped);
	tcase_add_test(t, padding_kept_on_request);
	tcase_add_test(t, modules_and_order);
	tcase_add_test(t, all_zero_addresses);
	tcase_add_test(t, malformed_lines);
	tcase_add_test(t, garbage_is_bounded);
	tcase_add_test(t, proc_kallsyms_matches_perf_script);
	suite_add_tcase(s, t);
	TCase *jt = tcase_create("jitmap");
	tcase_set_timeout(jt, 300);
	tcase_add_test(jt, jitmap_hand_written);
	tcase_add_test(jt, jitmap_random_overlaps);
	tcase_add_test(jt, jitmap_real_perf_map);
	suite_add_tcase(s, jt);
	return s;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	if (argc == 3 && strcmp(argv[1], "--jit-child") == 0)
		return jit_child(argv[2]);
#else
	(void)argc;
	(void)argv;
#endif
	return pd_test_main(suite());
}
