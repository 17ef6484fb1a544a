/*
 * `perfdiff explain`: the kernel test robot's tables read back and
 * explained (robot.h, pd_diff_new_lkp(), pd_explain_write()).
 *
 *   - The catalogue of real robot mails (tests/data/robot-mails, each
 *     with its source and its labels: the relations it must show, the
 *     readings it must not): every table and column explained, each
 *     relation scored against the labels; precision and recall are
 *     printed and must be 100 %.
 *   - The parser on lines as the mails mangle them (a "±" as "?", "ą",
 *     "+-", "A+-", "~", "Â±" or nothing, blanks collapsed, a key moved to
 *     the next line, quoted-printable soft breaks, quotes, three commit
 *     columns, relative changes, fail:runs runs), each value against the
 *     line's own text; bad input named by file and line; a mail without
 *     perf-profile rows.
 *   - Result directories in the robot's layout, filled with the robot's
 *     keys of recordings made at test time (3 runs a side, a renamed
 *     function and a real regression): every row's values against the
 *     files written, its test against Welch's t computed here, the
 *     rename found and the regression significant.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define PATHMAX 4096

/* ------------------------------------------------------------ labels */

typedef struct label {
	bool must;
	int table, column;      /* 0: any */
	char kinds[64];         /* "renamed|inlined", "*" */
	char base[128], new_[128];
	bool hit;
} label;

typedef struct labels {
	label v[64];
	size_t n;
	bool none;
} labels;

static int num_or_any(const char *s)
{
	return strcmp(s, "*") == 0 ? 0 : atoi(s);
}

static void read_labels(const char *path, labels *l)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: a mail without labels", path);
	memset(l, 0, sizeof *l);
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char word[16], t[16], c[16];
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (strncmp(line, "none", 4) == 0) {
			l->none = true;
			continue;
		}
		label *x = &l->v[l->n];
		ck_assert_msg(l->n < 64 && sscanf(line, "%15s %15s %15s %63s %127s %127s", word, t, c,
						  x->kinds, x->base, x->new_) == 6,
			      "%s: bad label line '%s'", path, line);
		x->must = strcmp(word, "must") == 0;
		ck_assert_msg(x->must || strcmp(word, "mustnot") == 0, "%s: '%s'", path, word);
		x->table = num_or_any(t);
		x->column = num_or_any(c);
		l->n++;
	}
	fclose(f);
	bool any_must = false;
	for (size_t i = 0; i < l->n; i++)
		any_must |= l->v[i].must;
	ck_assert_msg(l->none != any_must, "%s: 'none' or must lines, one of them", path);
}

static bool kind_ok(const char *kinds, const char *kind)
{
	if (strcmp(kinds, "*") == 0)
		return true;
	char buf[64];
	snprintf(buf, sizeof buf, "%s", kinds);
	for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|"))
		if (strcmp(tok, kind) == 0)
			return true;
	return false;
}

static bool label_matches(const label *x, int table, int column, const pd_diff_relation *r)
{
	return (!x->table || x->table == table) && (!x->column || x->column == column) &&
	       kind_ok(x->kinds, pd_diff_relation_kind_name(r->kind)) &&
	       (strcmp(x->base, "*") == 0 || strcmp(x->base, r->base_symbol) == 0) &&
	       (strcmp(x->new_, "*") == 0 || strcmp(x->new_, r->new_symbol) == 0);
}

typedef struct score {
	size_t tp, fp, fn, mails, tables, comparisons;
	unsigned years[64];
	size_t nyears;
} score;

/* The year a mail's source file gives ("date: Mon, 8 Jul 2019 ..."). */
static unsigned source_year(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: a mail without its source", path);
	char line[1024];
	unsigned year = 0;
	bool url = false;
	while (fgets(line, sizeof line, f)) {
		url |= strstr(line, "https://") != NULL;
		if (strncmp(line, "date:", 5) == 0)
			for (char *p = line; *p && !year; p++)
				if (p[0] >= '1' && p[0] <= '2' && sscanf(p, "%4u", &year) == 1 &&
				    (year < 1990 || year > 2100 || p[4] != ' '))
					year = 0;
	}
	fclose(f);
	ck_assert_msg(url && year, "%s: names no URL or date", path);
	return year;
}

/* One comparison's relations against the labels. */
static void score_diff(const char *mail, const pd_diff *d, int table, int column, labels *l,
		       score *s)
{
	for (size_t k = 0; k < pd_diff_relation_count(d); k++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, k);
		bool good = false;
		for (size_t i = 0; i < l->n; i++) {
			label *x = &l->v[i];
			if (!label_matches(x, table, column, r))
				continue;
			if (x->must) {
				good = true;
				x->hit = true;
			} else {
				printf("  %s: table %d column %d: %s -> %s (%s), a reading its labels "
				       "rule out\n", mail, table, column, r->base_symbol, r->new_symbol,
				       pd_diff_relation_kind_name(r->kind));
			}
		}
		if (!good)
			printf("  %s: table %d column %d: false %s -> %s (%s): %s\n", mail, table,
			       column, r->base_symbol, r->new_symbol,
			       pd_diff_relation_kind_name(r->kind), r->evidence);
		s->tp += good;
		s->fp += !good;
	}
}

static void score_mail(const char *dir, const char *name, score *s)
{
	char *mail, *lab, *src;
	int stem = (int)strlen(name) - 4;
	ck_assert(asprintf(&mail, "%s/%s", dir, name) > 0 &&
		  asprintf(&lab, "%s/%.*s.labels", dir, stem, name) > 0 &&
		  asprintf(&src, "%s/%.*s.source", dir, stem, name) > 0);
	unsigned year = source_year(src);
	bool seen = false;
	for (size_t i = 0; i < s->nyears; i++)
		seen |= s->years[i] == year;
	if (!seen && s->nyears < 64)
		s->years[s->nyears++] = year;
	labels l;
	read_labels(lab, &l);
	pd_lkp_tables *t;
	pd_error err;
	ck_assert_msg(pd_lkp_tables_read_mail(&t, mail, &err) == 0, "%s", err.message);
	ck_assert_msg(pd_lkp_tables_count(t) > 0, "%s: no table read", mail);
	for (size_t ti = 0; ti < pd_lkp_tables_count(t); ti++) {
		const pd_lkp_table *tab = pd_lkp_tables_at(t, ti);
		s->tables++;
		for (size_t c = 1; c < tab->ncolumns; c++) {
			pd_diff *d;
			ck_assert_msg(pd_diff_new_lkp(&d, tab, 0, c, NULL, NULL, &err) == 0, "%s: %s",
				      mail, err.message);
			score_diff(name, d, (int)ti + 1, (int)c, &l, s);
			s->comparisons++;
			pd_diff_free(d);
		}
	}
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].must && !l.v[i].hit) {
			printf("  %s: missed table %d column %d %s -> %s (%s)\n", name, l.v[i].table,
			       l.v[i].column, l.v[i].base, l.v[i].new_, l.v[i].kinds);
			s->fn++;
		}
	s->mails++;
	printf("  %u %s: %zu table(s)\n", year, name, pd_lkp_tables_count(t));
	pd_lkp_tables_free(t);
	free(mail);
	free(lab);
	free(src);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_catalogue)
{
	char dir[PATHMAX];
	pd_test_data(dir, sizeof dir, "robot-mails");
	DIR *dp = opendir(dir);
	ck_assert_msg(dp != NULL, "%s", dir);
	char *names[256];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(dp)) && n < 256) {
		size_t len = strlen(de->d_name);
		if (len > 4 && strcmp(de->d_name + len - 4, ".eml") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof *names, by_name);
	score s = { 0 };
	for (size_t i = 0; i < n; i++) {
		score_mail(dir, names[i], &s);
		free(names[i]);
	}
	double precision = s.tp + s.fp ? 100.0 * (double)s.tp / (double)(s.tp + s.fp) : 100;
	double recall = s.tp + s.fn ? 100.0 * (double)s.tp / (double)(s.tp + s.fn) : 100;
	printf("robot mails: %zu mails of %zu years, %zu tables, %zu comparisons; "
	       "%zu relations right, %zu false, %zu missed: precision %.1f %%, recall %.1f %%\n",
	       s.mails, s.nyears, s.tables, s.comparisons, s.tp, s.fp, s.fn, precision, recall);
	ck_assert_uint_ge(s.mails, 10);
	ck_assert_uint_ge(s.nyears, 8);
	ck_assert_uint_gt(s.tp, 0);
	ck_assert_msg(s.fp == 0 && s.fn == 0, "precision %.1f %%, recall %.1f %%", precision,
		      recall);
}
END_TEST

/* ------------------------------------------------------------ parser */

static pd_lkp_tables *read_text(const char *name, const char *text)
{
	pd_lkp_tables *t;
	pd_error err;
	ck_assert_msg(pd_lkp_tables_read_mail_mem(&t, name, text, strlen(text), &err) == 0, "%s",
		      err.message);
	return t;
}

/* The row of `t` whose key ends in `tail`. */
static const pd_lkp_row *row_of(const pd_lkp_tables *t, size_t table, const char *tail)
{
	const pd_lkp_table *tab = pd_lkp_tables_at(t, table);
	ck_assert_ptr_nonnull(tab);
	size_t n = strlen(tail);
	for (size_t i = 0; i < tab->nrows; i++) {
		size_t k = strlen(tab->rows[i].key);
		if (k >= n && strcmp(tab->rows[i].key + k - n, tail) == 0)
			return &tab->rows[i];
	}
	ck_abort_msg("no row %s", tail);
	return NULL;
}

static void check_cell(const pd_lkp_cell *c, double mean, int pct, double change)
{
	ck_assert_double_eq_tol(c->mean, mean, 1e-9);
	ck_assert_int_eq(c->stddev_pct, pct);
	if (isnan(change))
		ck_assert(isnan(c->change));
	else
		ck_assert_double_eq_tol(c->change, change, 1e-9);
}

/* The "±" in each of its mangled forms, from real mails' lines. */
START_TEST(test_stddev_forms)
{
	static const struct {
		const char *line;
		int pct0, pct1;
	} v[] = {
		/* UTF-8, 2023 */
		{ "     12.09 \xc2\xb1 36%     -12.1        0.00        perf-profile.children.cycles-pp.__fget_light\n", 36, -1 },
		/* ISO-8859-1's single byte */
		{ "      0.05 \xb1" "299%     +14.9       14.97 \xb1 51%  perf-profile.calltrace.cycles-pp.__fdget.do_select\n", 299, 51 },
		/* UTF-8 read as Latin-1 and written back ("Â±"), 2019 */
		{ "      0.60 \xc3\x82\xc2\xb1  6%      -0.3        0.26 \xc3\x82\xc2\xb1" "100%  perf-profile.calltrace.cycles-pp.stack_trace_save_tsk\n", 6, 100 },
		/* ISO-8859-2's "ą", 2020 */
		{ "> > >      20.90 \xc4\x85 47%      -6.4       14.49 \xc4\x85" "100%  perf-profile.calltrace.cycles-pp.mwait_idle_with_hints.intel_idle\n", 47, 100 },
		/* '?' */
		{ "     20.90 ? 47%      -6.4       14.49 ?100%  perf-profile.children.cycles-pp.intel_idle\n", 47, 100 },
		/* "+-" and "A+-", 2016, and its "-1%" for none */
		{ "     10.86 +- 12%     -23.4%       8.31 +- 16%  perf-profile.cycles-pp._raw_spin_lock_irq.__add_to_swap_cache\n", 12, 16 },
		{ "     10.36 A+- 11%    -100.0%       0.00 A+- -1%  perf-profile.cycles-pp._raw_spin_lock_irqsave.__test_set_page_writeback\n", 11, -1 },
		/* "~", 2014 */
		{ "      2.94 ~ 6%     -37.0%       1.85 ~ 4%  TOTAL perf-profile.cpu-cycles.inet_putpeer.__ip_select_ident\n", 6, 4 },
		/* lost on the way, 2022 */
		{ ">> >      95.23           -79.8       15.41   6%  perf-profile.calltrace.cycles-pp.__munmap\n", -1, 6 },
	};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		pd_lkp_tables *t = read_text("forms", v[i].line);
		ck_assert_uint_eq(pd_lkp_tables_count(t), 1);
		const pd_lkp_table *tab = pd_lkp_tables_at(t, 0);
		ck_assert_uint_eq(tab->nrows, 1);
		ck_assert_int_eq(tab->rows[0].cells[0].stddev_pct, v[i].pct0);
		ck_assert_int_eq(tab->rows[0].cells[1].stddev_pct, v[i].pct1);
		pd_lkp_tables_free(t);
	}
}
END_TEST

/* A 2016 chain key, relative changes; collapsed blanks and a key moved
 * to the next line; quoted-printable soft breaks inside a key. */
START_TEST(test_mangled_lines)
{
	pd_lkp_tables *t = read_text("lines",
		"   2506952 A+-  2%     +28.1%    3212076 A+-  7%  vm-scalability.throughput\n"
		"     10.82 A+- 13%     -33.1%       7.24 A+- 14%  perf-profile.cycles-pp._raw_spin_lock_irqsave.__remove_mapping.shrink_page_list\n"
		">> >      41.55 -41.6 0.00\n"
		">> > perf-profile.calltrace.cycles-pp.native_queued_spin_lock_slowpath._raw_spin_lock_irqsave\n");
	const pd_lkp_row *r = row_of(t, 0, "_raw_spin_lock_irqsave.__remove_mapping.shrink_page_list");
	ck_assert_int_eq(r->metric, PD_LKP_CALLTRACE);
	ck_assert_str_eq(r->event, "cycles-pp");
	ck_assert_str_eq(r->name, "_raw_spin_lock_irqsave.__remove_mapping.shrink_page_list");
	check_cell(&r->cells[0], 10.82, 13, NAN);
	check_cell(&r->cells[1], 7.24, 14, -33.1);
	ck_assert(r->cells[1].change_pct);
	r = row_of(t, 0, "native_queued_spin_lock_slowpath._raw_spin_lock_irqsave");
	check_cell(&r->cells[0], 41.55, -1, NAN);
	check_cell(&r->cells[1], 0, -1, -41.6);
	ck_assert(!r->cells[1].change_pct);
	ck_assert_uint_eq(r->line, 3);  /* the line of its numbers */
	ck_assert_uint_eq(pd_lkp_tables_other_rows(t), 1);
	pd_lkp_tables_free(t);

	t = read_text("qp",
		"Subject: =?utf-8?q?Re=3A_=5Bmm=5D_f35b5d7d67?=\n"
		"Content-Type: text/plain; charset=utf-8\n"
		"Content-Transfer-Encoding: quoted-printable\n"
		"\n"
		">> >      42.74           -42.7        0.00        perf-profile.calltrace.c=\n"
		"ycles-pp.lru_add_drain_cpu.lru_add_drain.unmap_region.__do_munmap.__vm_munm=\n"
		"ap\n"
		">> >       0.00           +65.5       65.48 =C2=B1  2%  perf-profile.children.cycl=\n"
		"es-pp.clear_page_erms\n");
	ck_assert_str_eq(pd_lkp_tables_subject(t), "Re: [mm] f35b5d7d67");
	r = row_of(t, 0, "lru_add_drain_cpu.lru_add_drain.unmap_region.__do_munmap.__vm_munmap");
	check_cell(&r->cells[0], 42.74, -1, NAN);
	ck_assert_uint_eq(r->line, 5);  /* where it starts in the file */
	r = row_of(t, 0, "children.cycles-pp.clear_page_erms");
	check_cell(&r->cells[1], 65.48, 2, 65.5);
	pd_lkp_tables_free(t);
}
END_TEST

/* Titles, several tables, three columns, fail:runs, subjects. */
START_TEST(test_tables)
{
	pd_lkp_tables *t = read_text("tables",
		"commit: \n"
		"  93faf426e3 (\"vfs: shave work on failed file open\")\n"
		"  0ede61d858 (\"file: convert to SLAB_TYPESAFE_BY_RCU\")\n"
		"\n"
		"93faf426e3cc000c 0ede61d8589cc2d93aa78230d74 c712b4365b5b4dbe1d1380edd37\n"
		"---------------- --------------------------- ---------------------------\n"
		"       fail:runs  %reproduction    fail:runs  %reproduction    fail:runs\n"
		"           |             |             |             |             |\n"
		"          1:4          -25%            :6           -25%           :5     dmesg.WARNING:at\n"
		"         %stddev     %change         %stddev     %change         %stddev\n"
		"             \\          |                \\          |                \\\n"
		"      1.27 \xc2\xb1  5%      +0.8        2.11 \xc2\xb1  3%     +31.1       32.36 \xc2\xb1  2%  perf-profile.calltrace.cycles-pp.__fdget.do_poll\n"
		"    228481 \xc2\xb1  4%      -4.6%     217900 \xc2\xb1  6%     -11.7%     201857 \xc2\xb1  5%  meminfo.DirectMap4k\n"
		"\n"
		"***\n"
		"lkp-gnr-2ap2: 384 threads 2 sockets Intel(R) Xeon(R) 6972P (Granite Rapids) with 128G memory\n"
		"compiler/cpufreq_governor/kconfig:\n"
		"  gcc-12/performance/x86_64-rhel-9.4\n"
		"\n"
		"7ace1602abf21da5 e43b8bb56e537bfc8d907679309 \n"
		"---------------- --------------------------- \n"
		"         %stddev     %change         %stddev\n"
		"      4.04 \xc2\xb1 70%      -4.0        0.00        perf-profile.calltrace.cycles-pp.syscall_exit_to_user_mode.do_syscall_64\n"
		"      0.05 \xc2\xb1" "299%      -0.0        0.00        perf-profile.self.cycles-pp.x\n");
	ck_assert_uint_eq(pd_lkp_tables_count(t), 2);
	const pd_lkp_table *a = pd_lkp_tables_at(t, 0), *b = pd_lkp_tables_at(t, 1);
	ck_assert_uint_eq(a->ncolumns, 3);
	ck_assert_str_eq(a->commits[1], "0ede61d8589cc2d93aa78230d74");
	ck_assert_str_eq(a->subjects[1], "file: convert to SLAB_TYPESAFE_BY_RCU");
	ck_assert_ptr_null(a->subjects[2]);
	ck_assert_int_eq(a->runs_source, PD_LKP_RUNS_FAIL_RUNS);
	ck_assert_uint_eq(a->runs[0], 4);
	ck_assert_uint_eq(a->runs[1], 6);
	ck_assert_uint_eq(a->runs[2], 5);
	ck_assert_uint_eq(a->fail_rows, 1);
	ck_assert_uint_eq(a->other_rows, 1);
	check_cell(&a->rows[0].cells[2], 32.36, 2, 31.1);
	ck_assert_str_eq(b->machine, "lkp-gnr-2ap2: 384 threads 2 sockets Intel(R) Xeon(R) 6972P "
				     "(Granite Rapids) with 128G memory");
	ck_assert_str_eq(b->parameters, "compiler/cpufreq_governor/kconfig:\n  gcc-12/performance/x86_64-rhel-9.4");
	/* ±299 % takes 1 + 2.99² runs at least: ten */
	ck_assert_int_eq(b->runs_source, PD_LKP_RUNS_STDDEV);
	ck_assert_uint_eq(b->runs[0], 10);
	ck_assert_uint_eq(b->runs[1], 3);
	pd_lkp_tables_free(t);
}
END_TEST

START_TEST(test_bad_input)
{
	pd_lkp_tables *t;
	pd_error err;
	const char *text = "aaaa bbbb\n"
			   "---------------- --------------------------- \n"
			   "      1.27 \xc2\xb1  5%      +0.8        2.11  perf-profile.children.cycles-pp.a\n"
			   "      1.27        +0.8        2.11    +0.1   2.2  perf-profile.children.cycles-pp.b\n";
	ck_assert_int_eq(pd_lkp_tables_read_mail_mem(&t, "bad.eml", text, strlen(text), &err),
			 PD_ECORRUPT);
	ck_assert_msg(strstr(err.message, "bad.eml") && strstr(err.message, "line 4"), "%s",
		      err.message);
	ck_assert_ptr_null(t);
	/* a perf-profile row whose numbers are garbage: named, not skipped
	 * (it ended the table, and its row was lost without a word) */
	const char *garbage = "aaaa bbbb\n"
			      "---------------- --------------------------- \n"
			      "      1.27 \xc2\xb1  5%      +0.8        2.11  perf-profile.self.cycles-pp.a\n"
			      "      1e999x      +0.8        2.11  perf-profile.self.cycles-pp.b\n"
			      "      1.00        +0.1        1.10  perf-profile.self.cycles-pp.c\n";
	ck_assert_int_eq(pd_lkp_tables_read_mail_mem(&t, "bad.eml", garbage, strlen(garbage), &err),
			 PD_ECORRUPT);
	ck_assert_msg(strstr(err.message, "bad.eml: line 4: a perf-profile row whose numbers"),
		      "%s", err.message);
	ck_assert_ptr_null(t);
	/* a message of empty lines, with headers and without (the text's
	 * store never allocated: fuzz_robot found the lines pointed into
	 * NULL, which UBSan refuses in CI) */
	static const char *const blanks[] = { "From: a\nSubject: b\n\n\n\n", "\n\n\n" };
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(pd_lkp_tables_read_mail_mem(&t, "blank.eml", blanks[i],
							     strlen(blanks[i]), &err), 0);
		ck_assert_uint_eq(pd_lkp_tables_count(t), 0);
		pd_lkp_tables_free(t);
	}
	/* no perf-profile rows: no error, no table, the others counted */
	const char *none = "    228481            -4.6%     217900        meminfo.DirectMap4k\n";
	ck_assert_int_eq(pd_lkp_tables_read_mail_mem(&t, "none", none, strlen(none), &err), 0);
	ck_assert_uint_eq(pd_lkp_tables_count(t), 0);
	ck_assert_uint_eq(pd_lkp_tables_other_rows(t), 1);
	pd_lkp_tables_free(t);
	/* result files that are no JSON: named with their line */
	char *dir = pd_test_tmpdir(), a[PATHMAX], b[PATHMAX];
	snprintf(a, sizeof a, "%s/a.json", dir);
	snprintf(b, sizeof b, "%s/b.json", dir);
	const char *cut = "{\n \"perf-profile.self.cycles-pp.a\": [1, 2],\n";
	ck_assert(pd_test_write_file(a, cut, strlen(cut)));
	ck_assert(pd_test_write_file(b, "{}", 2));
	const char *paths[] = { a, b };
	ck_assert_int_eq(pd_lkp_tables_read_results(&t, paths, 2, &err), PD_ECORRUPT);
	ck_assert_msg(strstr(err.message, "a.json") && strstr(err.message, "line 3"), "%s",
		      err.message);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* ------------------------------------------------------------ CLI */

static char *cli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int cli_status;

static char *cli(const char *fmt, ...)
{
	char args[4 * PATHMAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	char *err = NULL;
	char *out = pd_test_cli(NULL, args, &cli_status, &err);
	free(err);
	return out;
}

static json_t *json_line(const char *text, size_t i)
{
	const char *at = text;
	for (size_t k = 0; k < i && at; k++)
		at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
	ck_assert_ptr_nonnull(at);
	json_error_t e;
	json_t *j = json_loadb(at, strcspn(at, "\n"), 0, &e);
	ck_assert_msg(j != NULL, "JSON line %zu: %s", i, e.text);
	return j;
}

/* The lmbench/poll2 mail: text, one JSON document a comparison, a net
 * change that sums both rows of a rename-like inlining. */
START_TEST(test_cli_mail)
{
	char mail[PATHMAX];
	pd_test_data(mail, sizeof mail, "robot-mails/2023-fget-light-select.eml");
	char *out = cli("explain %s", mail);
	ck_assert_int_eq(cli_status, 0);
	ck_assert_msg(strstr(out, "__fget_light -> __fdget (inlined)  -45.8 -> +40.5  net -5.3\n"),
		      "%s", out);
	ck_assert_msg(strstr(out, "     45.80           -45.8        0.00        "
				  "perf-profile.children.cycles-pp.__fget_light\n"), "%s", out);
	free(out);
	out = cli("explain --format=json %s", mail);
	ck_assert_int_eq(cli_status, 0);
	json_t *j = json_line(out, 1);
	ck_assert_str_eq(json_string_value(json_object_get(j, "schema")), "perfdiff.diff/1");
	ck_assert_str_eq(json_string_value(json_object_get(j, "test")), "table");
	json_t *tab = json_object_get(j, "table");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(tab, "new"), "subject")),
			 "Improve __fget_files_rcu() code generation (and thus __fget_light())");
	json_t *rel = json_array_get(json_object_get(j, "relations"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(rel, "base_symbol")), "__fget_light");
	/* the base chains skip __fdget: its children held none of
	 * __fget_light's cost, so the net is both rows' (-45.80 + 40.46) */
	ck_assert_double_eq_tol(json_real_value(json_object_get(rel, "net")), -5.34, 1e-9);
	json_decref(j);
	free(out);
	/* no perf-profile rows: said, and status 0 */
	char *dir = pd_test_tmpdir(), p[PATHMAX];
	snprintf(p, sizeof p, "%s/none.eml", dir);
	ck_assert(pd_test_write_file(p, "     49055 \xc2\xb1  2%      -4.1%      47032        "
					"proc-vmstat.pgreuse\n", 67));
	out = cli("explain %s", p);
	ck_assert_int_eq(cli_status, 0);
	ck_assert_msg(strstr(out, "no perf-profile rows; 1 rows of other metrics ignored"), "%s",
		      out);
	free(out);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/* ------------------------------------------------------------ results */

#define RUNS 3

static const char workload[] =
	"#include <stdlib.h>\n"
	"static volatile unsigned long sink;\n"
	"__attribute__((noinline)) static void CRUNCH(long n)\n"
	"{ for (long i = 0; i < n; i++) sink += (unsigned long)i * 7; }\n"
	"__attribute__((noinline)) static void steady(long n)\n"
	"{ for (long i = 0; i < n; i++) sink += (unsigned long)i * 7; }\n"
	"__attribute__((noinline)) static void other(long n)\n"
	"{ for (long i = 0; i < n; i++) sink += (unsigned long)i * 7; }\n"
	"int main(void)\n"
	"{ long k = 40000000; CRUNCH(4 * k); steady(STEADY * k); other(OTHER * k); return 0; }\n";

/* The robot's keys of one recording, as key → value, into `out` (a JSON
 * object, "perf-profile." before each key). */
static json_t *robot_keys(const char *data)
{
	pd_profile_options o;
	pd_session_options so;
	pd_profile_options_init(&o, PD_PROFILE_OPTIONS_VERSION);
	pd_session_options_init(&so, PD_SESSION_OPTIONS_VERSION);
	pd_lkp_profile_options(&o, &so);
	pd_profile *p;
	pd_error err;
	ck_assert_msg(pd_profile_new(&p, &o, &err) == 0 && pd_profile_add_file(p, data, &err) == 0,
		      "%s", err.message);
	pd_lkp_key *keys;
	size_t n;
	ck_assert_msg(pd_lkp_keys(&keys, &n, p, PD_LKP_ALL_EVENTS, 0, &err) == 0, "%s",
		      err.message);
	json_t *j = json_object();
	for (size_t i = 0; i < n; i++) {
		char k[1024];
		snprintf(k, sizeof k, "perf-profile.%s", keys[i].key);
		json_object_set_new(j, k, json_real(keys[i].value));
	}
	json_object_set_new(j, "time.elapsed_time", json_real(1.0));  /* another metric */
	pd_lkp_keys_free(keys, n);
	pd_profile_free(p);
	return j;
}

/* Runs of `bin` recorded into side directory `side`: base as the runs'
 * own stats files (0/perf-profile.json ...), new as one matrix.json.
 * The values written, per key, in `vals` (an object of arrays). */
static void record_side(const char *dir, const char *side, const char *bin, bool matrix,
			json_t *vals)
{
	char path[PATHMAX], data[PATHMAX];
	json_t *runs[RUNS];
	for (int r = 0; r < RUNS; r++) {
		snprintf(data, sizeof data, "%s/%s-%d.data", dir, side, r);
		ck_assert(pd_test_perf_record(data, "-N -e cpu-clock -g", bin));
		runs[r] = robot_keys(data);
	}
	/* every key of any run, zero-filled, as the robot's matrix */
	for (int r = 0; r < RUNS; r++) {
		const char *k;
		json_t *v;
		json_object_foreach(runs[r], k, v) {
			if (json_object_get(vals, k))
				continue;
			json_t *a = json_array();
			for (int q = 0; q < RUNS; q++) {
				json_t *x = json_object_get(runs[q], k);
				json_array_append_new(a, json_real(x ? json_real_value(x) : 0));
			}
			json_object_set_new(vals, k, a);
		}
	}
	snprintf(path, sizeof path, "%s/%s", dir, side);
	pd_test_mkdirs(path);
	for (int r = 0; r < RUNS && !matrix; r++) {
		snprintf(path, sizeof path, "%s/%s/%d", dir, side, r);
		pd_test_mkdirs(path);
		snprintf(path, sizeof path, "%s/%s/%d/perf-profile.json", dir, side, r);
		ck_assert(json_dump_file(runs[r], path, JSON_INDENT(2)) == 0);
	}
	if (matrix) {
		snprintf(path, sizeof path, "%s/%s/matrix.json", dir, side);
		ck_assert(json_dump_file(vals, path, JSON_INDENT(2)) == 0);
	}
	for (int r = 0; r < RUNS; r++)
		json_decref(runs[r]);
}

static void moments(json_t *a, double *mean, double *sd)
{
	double s = 0, ss = 0;
	size_t n = json_array_size(a);
	for (size_t i = 0; i < n; i++)
		s += json_real_value(json_array_get(a, i));
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = json_real_value(json_array_get(a, i)) - *mean;
		ss += d * d;
	}
	*sd = sqrt(ss / (double)n);
}

/* Welch's t and its degrees of freedom, from two samples' values. */
static void welch(json_t *a, json_t *b, double *t, double *df)
{
	double ma, sa, mb, sb;
	moments(a, &ma, &sa);
	moments(b, &mb, &sb);
	double na = (double)json_array_size(a), nb = (double)json_array_size(b);
	double va = sa * sa * na / (na - 1) / na, vb = sb * sb * nb / (nb - 1) / nb;
	*t = (mb - ma) / sqrt(va + vb);
	*df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
}

/* Values of key `k` of one side (zeros when the side lacks it). */
static json_t *side_vals(json_t *vals, const char *k)
{
	json_t *a = json_object_get(vals, k);
	if (a)
		return json_incref(a);
	a = json_array();
	for (int r = 0; r < RUNS; r++)
		json_array_append_new(a, json_real(0));
	return a;
}

START_TEST(test_results)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	char src[PATHMAX], bin[2][PATHMAX];
	snprintf(src, sizeof src, "%s/w.c", dir);
	ck_assert(pd_test_write_file(src, workload, sizeof workload - 1));
	static const char *const flags[] = {
		"-O1 -fno-omit-frame-pointer -DCRUNCH=crunch_old -DSTEADY=3 -DOTHER=3",
		"-O1 -fno-omit-frame-pointer -DCRUNCH=crunch_new -DSTEADY=4 -DOTHER=2",
	};
	for (int s = 0; s < 2; s++) {
		snprintf(bin[s], sizeof bin[s], "%s/w%d", dir, s);
		ck_assert(pd_test_compile("cc", flags[s], bin[s], src));
	}
	json_t *vals[2] = { json_object(), json_object() };
	record_side(dir, "base", bin[0], false, vals[0]);
	record_side(dir, "new", bin[1], true, vals[1]);

	char paths[2][PATHMAX];
	snprintf(paths[0], PATHMAX, "%s/base", dir);
	snprintf(paths[1], PATHMAX, "%s/new", dir);
	const char *pp[2] = { paths[0], paths[1] };
	pd_lkp_tables *t;
	pd_error err;
	ck_assert_msg(pd_lkp_tables_read_results(&t, pp, 2, &err) == 0, "%s", err.message);
	const pd_lkp_table *tab = pd_lkp_tables_at(t, 0);
	ck_assert_int_eq(tab->runs_source, PD_LKP_RUNS_COUNTED);
	ck_assert_uint_eq(tab->runs[0], RUNS);
	ck_assert_uint_eq(tab->runs[1], RUNS);
	ck_assert_uint_eq(tab->other_rows, 1);  /* time.elapsed_time */
	/* every row's per-run values and summaries are the files' */
	for (size_t i = 0; i < tab->nrows; i++)
		for (int s = 0; s < 2; s++) {
			json_t *a = side_vals(vals[s], tab->rows[i].key);
			const pd_lkp_cell *c = &tab->rows[i].cells[s];
			ck_assert_uint_eq(c->nruns, RUNS);
			for (int r = 0; r < RUNS; r++)
				ck_assert_double_eq_tol(c->runs[r],
							json_real_value(json_array_get(a, (size_t)r)),
							1e-9);
			double m, sd;
			moments(a, &m, &sd);
			ck_assert_double_eq_tol(c->mean, m, 1e-9);
			ck_assert_double_eq_tol(c->stddev, sd, 1e-9);
			json_decref(a);
		}

	pd_diff *d;
	ck_assert_msg(pd_diff_new_lkp(&d, tab, 0, 1, NULL, NULL, &err) == 0, "%s", err.message);
	ck_assert_int_eq(pd_diff_test(d), PD_DIFF_TEST_TABLE);
	bool renamed = false;
	for (size_t k = 0; k < pd_diff_relation_count(d); k++) {
		const pd_diff_relation *r = pd_diff_relation_at(d, k);
		printf("  %s -> %s (%s) net %+.2f q %.3g: %s\n", r->base_symbol, r->new_symbol,
		       pd_diff_relation_kind_name(r->kind), r->net, r->row->q_value, r->evidence);
		if (r->kind == PD_REL_RENAMED && strcmp(r->base_symbol, "crunch_old") == 0 &&
		    strcmp(r->new_symbol, "crunch_new") == 0) {
			renamed = true;
			/* the net's test: Welch's t on the runs' sums */
			json_t *sum[2];
			for (int s = 0; s < 2; s++) {
				json_t *a = side_vals(vals[s], "perf-profile.children.cpu-clock.crunch_old");
				json_t *b = side_vals(vals[s], "perf-profile.children.cpu-clock.crunch_new");
				sum[s] = json_array();
				for (int q = 0; q < RUNS; q++)
					json_array_append_new(sum[s], json_real(
						json_real_value(json_array_get(a, (size_t)q)) +
						json_real_value(json_array_get(b, (size_t)q))));
				json_decref(a);
				json_decref(b);
			}
			double tt, df, mb, sb, mn, sn;
			welch(sum[0], sum[1], &tt, &df);
			moments(sum[0], &mb, &sb);
			moments(sum[1], &mn, &sn);
			ck_assert_double_eq_tol(r->net, mn - mb, 1e-9);
			ck_assert_double_eq_tol(r->row->base.stddev, sb, 1e-9);
			/* two-sided t p-value through the regularized beta, by series */
			double x = df / (df + tt * tt), pv = 0;
			{
				/* I_x(df/2, 1/2) by numerical integration of the beta density */
				double a = df / 2, b = 0.5, lb = lgamma(a) + lgamma(b) - lgamma(a + b);
				int steps = 200000;
				for (int i = 0; i < steps; i++) {
					double u = x * (i + 0.5) / steps;
					pv += exp((a - 1) * log(u) + (b - 1) * log1p(-u) - lb) * x / steps;
				}
			}
			ck_assert_double_eq_tol(r->row->p_value, pv, 1e-3 + 1e-2 * pv);
			json_decref(sum[0]);
			json_decref(sum[1]);
		}
	}
	ck_assert_msg(renamed, "crunch_old -> crunch_new not found");
	/* steady's share grew by about 10 points in every run: significant */
	bool steady = false;
	for (size_t i = 0; i < pd_diff_row_count(d); i++) {
		const pd_diff_row *r = pd_diff_row_at(d, i);
		if (r->metric == PD_DIFF_CHILDREN && strcmp(r->key, "steady") == 0) {
			steady = true;
			ck_assert_msg(r->significant && r->change > 5, "steady %+.2f q %g", r->change,
				      r->q_value);
		}
	}
	ck_assert(steady);
	pd_diff_free(d);
	pd_lkp_tables_free(t);

	/* the command, on the directories */
	char *out = cli("explain %s %s", paths[0], paths[1]);
	ck_assert_int_eq(cli_status, 0);
	ck_assert_msg(strstr(out, "crunch_old -> crunch_new (renamed)") &&
		      strstr(out, "runs: 3 (base) and 3 (new), the runs read"), "%s", out);
	free(out);
	json_decref(vals[0]);
	json_decref(vals[1]);
	pd_test_lab_close(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("explain");
	TCase *tc = tcase_create("explain");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_catalogue);
	tcase_add_test(tc, test_stddev_forms);
	tcase_add_test(tc, test_mangled_lines);
	tcase_add_test(tc, test_tables);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_cli_mail);
	tcase_add_test(tc, test_results);
	suite_add_tcase(s, tc);
	return pd_test_main(s);
}
