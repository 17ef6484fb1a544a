/*
 * The `perfdiff diff` command line on the recorded fixtures (tests/data):
 * exit statuses and usage errors, the JSON schema (parsed with jansson),
 * the CSV and lkp layouts, --fail-on, and a comparison of a file with
 * itself.  Sample counts, periods and one leaf share are checked against
 * perf's own dump of the fixtures (X.samples, `perf report -D`), the lkp
 * rows against the JSON values through pd_diff_format_lkp_row(), which
 * test_diff_format checks against the robot's e-mails.  Whether the
 * engine finds the right shifts is test_diff's business.
 */
#include <jansson.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define PATHMAX 4096

typedef struct res {
	int status;
	char *out, *err;
} res;

static res run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static res run(const char *fmt, ...)
{
	char args[4 * PATHMAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	res r;
	r.out = pd_test_cli(NULL, args, &r.status, &r.err);
	return r;
}

static void res_free(res *r)
{
	free(r->out);
	free(r->err);
}

static char fp[PATHMAX], sys[PATHMAX], two[PATHMAX];

static void setup(void)
{
	pd_test_data(fp, sizeof fp, "fp.data");
	pd_test_data(sys, sizeof sys, "sys.data");
	pd_test_data(two, sizeof two, "two.data");
}

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	ck_assert_msg(j != NULL, "JSON does not parse: %s (line %d)", e.text, e.line);
	return j;
}

/* Samples and period total of a fixture from perf's dump: one line per
 * SAMPLE, the period in the 8th field. */
static void dump_totals(const char *name, uint64_t *samples, uint64_t *total)
{
	char path[PATHMAX];
	pd_test_data(path, sizeof path, name);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char line[8192];
	*samples = *total = 0;
	while (fgets(line, sizeof line, f)) {
		char *save = NULL, *tok = strtok_r(line, " ", &save);
		for (int i = 1; tok && i < 8; i++)
			tok = strtok_r(NULL, " ", &save);
		ck_assert_ptr_nonnull(tok);
		(*samples)++;
		*total += strtoull(tok, NULL, 10);
	}
	fclose(f);
}

/* ------------------------------------------------------------- errors */

START_TEST(test_usage_errors)
{
	static const struct {
		const char *args, *mention;
	} cases[] = {
		{ "diff '%1$s'", "BASE" },
		{ "diff '%1$s' '%1$s' '%1$s'", "--" },
		{ "diff '%1$s' --", "each side" },
		{ "diff -- '%1$s'", "each side" },
		{ "diff '%1$s' -- '%1$s' -- '%1$s'", "once" },
		{ "diff --bogus '%1$s' '%1$s'", "--bogus" },
		{ "diff --format=xml '%1$s' '%1$s'", "xml" },
		{ "diff --fdr=0 '%1$s' '%1$s'", "--fdr" },
		{ "diff --fdr=1.5 '%1$s' '%1$s'", "--fdr" },
		{ "diff --fail-on=-1 '%1$s' '%1$s'", "--fail-on" },
		{ "diff --fail-on=x '%1$s' '%1$s'", "--fail-on" },
		{ "diff --depth=-2 '%1$s' '%1$s'", "--depth" },
		{ "diff --min-change=nan '%1$s' '%1$s'", "--min-change" },
		{ "diff --rename-score=2 '%1$s' '%1$s'", "--rename-score" },
		{ "diff --unwinder=gdb '%1$s' '%1$s'", "gdb" },
		{ "diff --time=bad '%1$s' '%1$s'", "--time" },
		{ "diff --base-time=bad '%1$s' '%1$s'", "--time" },
		{ "diff --new-event=cycles '%1$s' '%1$s'", "--new-event" },
		{ "diff --base-perf-compat '%1$s' '%1$s'", "--base-perf-compat" },
		{ "diff '%1$s' '%1$s' --new-kallsyms", "--new-kallsyms needs a value" },
		{ "diff '%1$s' '%1$s' --fdr", "--fdr" },
		{ "diff - -", "standard input" },
		{ "frobnicate", "frobnicate" },
		{ "--bogus '%1$s' '%1$s'", "--bogus" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char args[2 * PATHMAX];
		snprintf(args, sizeof args, cases[i].args, fp);
		res r = run("%s", args);
		ck_assert_msg(r.status == 2, "'%s': exit %d, want 2", args, r.status);
		ck_assert_msg(strstr(r.err, cases[i].mention),
			      "'%s': stderr does not mention '%s': %s", args, cases[i].mention,
			      r.err);
		ck_assert_msg(strncmp(r.err, "perfdiff: ", 10) == 0, "'%s': %s", args, r.err);
		ck_assert_str_eq(r.out, "");
		res_free(&r);
	}
}
END_TEST

START_TEST(test_missing_file)
{
	res r = run("diff '%s' /nonexistent/new.data", fp);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent/new.data"));
	ck_assert_str_eq(r.out, "");
	res_free(&r);
	/* the implicit form: the same */
	r = run("/nonexistent/base.data '%s'", fp);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent/base.data"));
	ck_assert_str_eq(r.out, "");
	res_free(&r);
}
END_TEST

START_TEST(test_help)
{
	res r = run("diff --help");
	ck_assert_int_eq(r.status, 0);
	static const char *documented[] = {
		"--format", "lkp", "json", "csv", "--all", "--fail-on", "--absolute",
		"--depth", "--min-change", "--fdr", "--rename-score", "--no-align", "--tree",
		"--event", "--perf-compat", "--no-inline", "--unwinder", "--time", "--symfs",
		"EXIT STATUS", "  0", "  1", "  2", "sampling noise", "perfdiff.diff/1",
	};
	for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++)
		ck_assert_msg(strstr(r.out, documented[i]), "diff --help lacks '%s'",
			      documented[i]);
	res h = run("help diff");
	ck_assert_int_eq(h.status, 0);
	ck_assert_str_eq(h.out, r.out);
	res_free(&h);
	res_free(&r);
	r = run("--help");
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "diff"));
	ck_assert_ptr_nonnull(strstr(r.out, "BASE"));
	res_free(&r);
}
END_TEST

/* ------------------------------------------------------------- outputs */

static void check_side(json_t *side, size_t nfiles, const char *dump)
{
	ck_assert(json_is_object(side));
	json_t *files = json_object_get(side, "files");
	ck_assert(json_is_array(files));
	ck_assert_uint_eq(json_array_size(files), nfiles);
	ck_assert_int_eq(json_integer_value(json_object_get(side, "runs")), (json_int_t)nfiles);
	uint64_t samples, total;
	dump_totals(dump, &samples, &total);
	ck_assert_int_eq(json_integer_value(json_object_get(side, "samples")),
			 (json_int_t)(samples * nfiles));
	ck_assert_int_eq(json_integer_value(json_object_get(side, "total")),
			 (json_int_t)(total * nfiles));
}

/* Colour escapes counted and taken out of `text` in place. */
static void count_colours(char *text, size_t *red, size_t *green, size_t *dim)
{
	char *o = text, *w = text;
	while (*o) {
		if (*o != '\033') {
			*w++ = *o++;
			continue;
		}
		*red += strncmp(o, "\033[31m", 5) == 0;
		*green += strncmp(o, "\033[32m", 5) == 0;
		*dim += strncmp(o, "\033[2m", 4) == 0;
		o = strchr(o, 'm') + 1;
	}
	*w = '\0';
}

/* `rates`: --absolute, the change relative in % (the robot's 1e-100 for a
 * base of 0) */
static void check_row_values(json_t *row, double bm, double nm, bool rates)
{
	double change = json_number_value(json_object_get(row, "change"));
	if (!rates)
		ck_assert_double_eq_tol(change, nm - bm, 1e-9);
	else if (bm != 0)
		ck_assert_double_eq_tol(change, 100 * (nm - bm) / bm, 1e-6 * fabs(change) + 1e-9);
}

static void check_row_fields(json_t *row, size_t base_runs, size_t new_runs, bool rates)
{
	static const char *metrics[] = { "calltrace", "children", "self", "tree" };
	const char *m = json_string_value(json_object_get(row, "metric"));
	ck_assert_ptr_nonnull(m);
	bool known = false;
	for (size_t i = 0; i < 4; i++)
		known |= strcmp(m, metrics[i]) == 0;
	ck_assert_msg(known, "metric %s", m);
	ck_assert(json_is_string(json_object_get(row, "key")));
	ck_assert(json_is_string(json_object_get(row, "symbol")));
	json_t *dso = json_object_get(row, "dso");
	ck_assert(json_is_string(dso) || json_is_null(dso));
	const char *sides[] = { "base", "new" };
	size_t runs[] = { base_runs, new_runs };
	for (int s = 0; s < 2; s++) {
		json_t *o = json_object_get(row, sides[s]);
		ck_assert(json_is_object(o));
		ck_assert(json_is_number(json_object_get(o, "mean")));
		ck_assert(json_is_number(json_object_get(o, "stddev")));
		json_t *rv = json_object_get(o, "runs");
		ck_assert(json_is_array(rv));
		ck_assert_uint_eq(json_array_size(rv), runs[s]);
		/* the mean is the mean of the runs, absent runs counted as 0 */
		double sum = 0;
		size_t present = 0;
		for (size_t k = 0; k < runs[s]; k++) {
			double v = json_number_value(json_array_get(rv, k));
			sum += v;
			present += v > 0;
		}
		ck_assert_double_eq_tol(json_number_value(json_object_get(o, "mean")),
					sum / (double)runs[s], 1e-9);
		json_int_t p = json_integer_value(json_object_get(o, "present"));
		ck_assert_int_ge(p, (json_int_t)present);
		ck_assert_int_le(p, (json_int_t)runs[s]);
	}
	ck_assert(json_is_number(json_object_get(row, "change")));
	ck_assert(json_is_boolean(json_object_get(row, "significant")));
	json_t *pv = json_object_get(row, "p_value"), *qv = json_object_get(row, "q_value");
	ck_assert(json_is_number(pv) || json_is_null(pv));
	ck_assert(json_is_number(qv) || json_is_null(qv));
	json_t *rel = json_object_get(row, "relation");
	ck_assert(json_is_null(rel) || json_is_object(rel));
	double bm = json_number_value(json_object_get(json_object_get(row, "base"), "mean"));
	double nm = json_number_value(json_object_get(json_object_get(row, "new"), "mean"));
	check_row_values(row, bm, nm, rates);
}

START_TEST(test_identical)
{
	/* a file against itself: nothing differs, nothing is significant */
	res r = run("'%s' '%s'", fp, fp);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_ptr_nonnull(strstr(r.out, "no significant change"));
	/* one run a side: the variation within the run, from its time blocks */
	ck_assert_ptr_nonnull(strstr(r.out, "test: moderated t-test over each run's time blocks"));
	ck_assert_ptr_nonnull(strstr(r.out, "one run a side cannot show the variation\n"));
	ck_assert_ptr_null(strstr(r.out, "%stddev"));
	res_free(&r);

	r = run("diff --fail-on=0 '%s' '%s'", fp, fp);
	ck_assert_int_eq(r.status, 0);
	res_free(&r);

	r = run("diff --all --format=json '%s' '%s'", fp, fp);
	ck_assert_int_eq(r.status, 0);
	json_t *j = parse(r.out);
	ck_assert_str_eq(json_string_value(json_object_get(j, "schema")), "perfdiff.diff/1");
	ck_assert_str_eq(json_string_value(json_object_get(j, "test")), "blocks");
	ck_assert_str_eq(json_string_value(json_object_get(j, "event")), "cpu-clock");
	check_side(json_object_get(j, "base"), 1, "fp.samples");
	check_side(json_object_get(j, "new"), 1, "fp.samples");
	json_t *var = json_object_get(j, "variation");
	ck_assert(json_integer_value(json_object_get(var, "base_blocks")) >= 2);
	ck_assert(json_is_null(json_object_get(var, "runs_phi")));
	ck_assert(json_number_value(json_object_get(var, "inflation")) >= 1);
	json_t *rows = json_object_get(j, "rows");
	ck_assert(json_array_size(rows) > 0);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "rows_hidden")), 0);
	size_t i;
	json_t *row;
	bool metric_seen[3] = { false, false, false };
	json_array_foreach(rows, i, row) {
		check_row_fields(row, 1, 1, false);
		ck_assert(json_is_false(json_object_get(row, "significant")));
		ck_assert_double_eq_tol(json_number_value(json_object_get(row, "change")), 0, 1e-12);
		const char *m = json_string_value(json_object_get(row, "metric"));
		metric_seen[0] |= strcmp(m, "calltrace") == 0;
		metric_seen[1] |= strcmp(m, "children") == 0;
		metric_seen[2] |= strcmp(m, "self") == 0;
	}
	ck_assert(metric_seen[0] && metric_seen[1] && metric_seen[2]);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "relations")), 0);

	/* the fixture's workload has no symbols here: its frames are one
	 * "[unknown]" of its dso whatever their addresses, so its self share
	 * is that of the samples whose ip is in its map (at 0x561166f55000;
	 * nothing else is mapped at 0x561166f5xxxx) -- perf's dump: several
	 * addresses, all 229 samples */
	char path[PATHMAX];
	FILE *f = fopen(pd_test_data(path, sizeof path, "fp.samples"), "r");
	ck_assert_ptr_nonnull(f);
	char line[8192], first[64] = "";
	unsigned hits = 0, all = 0, other_ip = 0;
	while (fgets(line, sizeof line, f)) {
		char ip[64];
		ck_assert_int_eq(sscanf(line, "%*s %*s %*s %*s %*s %*s %63s", ip), 1);
		all++;
		if (strncmp(ip, "0x561166f5", 10) != 0 || strlen(ip) != 14)
			continue;
		hits++;
		if (!first[0])
			snprintf(first, sizeof first, "%s", ip);
		other_ip += strcmp(ip, first) != 0;
	}
	fclose(f);
	ck_assert_uint_eq(all, 229);
	ck_assert_uint_gt(other_ip, 0);
	json_t *self = NULL;
	json_array_foreach(rows, i, row) {
		const char *m = json_string_value(json_object_get(row, "metric"));
		const char *sym = json_string_value(json_object_get(row, "symbol"));
		const char *dso = json_string_value(json_object_get(row, "dso"));
		ck_assert(sym && !(sym[0] == '0' && sym[1] == 'x'));  /* no address rows */
		if (strcmp(m, "self") != 0 || strcmp(sym, "[unknown]") != 0 || !dso ||
		    strlen(dso) < 9 || strcmp(dso + strlen(dso) - 9, "/workload") != 0)
			continue;
		ck_assert_msg(self == NULL, "two [unknown] self rows for the workload");
		self = row;
	}
	ck_assert_msg(self != NULL, "no [unknown] self row for the workload");
	ck_assert_double_eq_tol(
		json_number_value(json_object_get(json_object_get(self, "base"), "mean")),
		100.0 * hits / all, 1e-9);
	json_decref(j);
	res_free(&r);
}
END_TEST

/* The largest |change| of the workload's rows in `json` (all rows). */
static double biggest_change(json_t *rows, bool *any_significant)
{
	size_t i;
	json_t *row;
	double biggest = 0;
	*any_significant = false;
	json_array_foreach(rows, i, row) {
		double c = fabs(json_number_value(json_object_get(row, "change")));
		biggest = c > biggest ? c : biggest;
		*any_significant |= json_is_true(json_object_get(row, "significant"));
	}
	return biggest;
}

START_TEST(test_different_one_run)
{
	/* the workload alone against the whole system, one run a side: the
	 * workload's share of the machine drops from 100 % to about half, but
	 * within the workload nothing changed, and one run cannot tell a
	 * process that got less of the machine from one that changed: no row
	 * is significant, and the footer says what was tested */
	res r = run("diff --all --format=json '%s' '%s'", fp, sys);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	json_t *j = parse(r.out);
	bool sig;
	ck_assert_double_gt(biggest_change(json_object_get(j, "rows"), &sig), 20);
	ck_assert_msg(!sig, "a row of the workload is significant with one run a side");
	json_t *procs = json_object_get(json_object_get(j, "variation"), "processes");
	ck_assert_uint_gt(json_array_size(procs), 1);
	json_decref(j);
	res_free(&r);
	r = run("diff '%s' '%s'", fp, sys);
	ck_assert_ptr_nonnull(strstr(r.out, "within its processes"));
	ck_assert_ptr_nonnull(strstr(r.out, "no significant change"));
	res_free(&r);
}
END_TEST

START_TEST(test_different)
{
	/* the whole system against the workload alone, as rates (--absolute:
	 * periods per second, no processes to judge within): every other
	 * process's rate falls to nothing (-100 %) and the workload's moves,
	 * far beyond sampling noise (the other way round, rows that appear
	 * from nothing change by 1e100 % and more, the robot's convention) */
	res r = run("diff --absolute --format=json '%2$s' '%2$s' -- '%1$s' '%1$s'", fp, sys);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	json_t *j = parse(r.out);
	check_side(json_object_get(j, "base"), 2, "sys.samples");
	check_side(json_object_get(j, "new"), 2, "fp.samples");
	json_t *rows = json_object_get(j, "rows");
	ck_assert(json_array_size(rows) > 0);
	size_t i;
	json_t *row;
	double biggest = 0;
	json_array_foreach(rows, i, row) {
		check_row_fields(row, 2, 2, true);
		ck_assert(json_is_true(json_object_get(row, "significant")));
		double c = fabs(json_number_value(json_object_get(row, "change")));
		if (c > biggest)
			biggest = c;
	}
	ck_assert_double_eq_tol(biggest, 100, 1e-9);
	res ra = run("diff --absolute --all --format=json '%2$s' '%2$s' -- '%1$s' '%1$s'", fp,
		     sys);
	json_t *all = parse(ra.out);
	ck_assert_uint_eq(json_array_size(json_object_get(all, "rows")),
			  json_array_size(rows) +
				  (size_t)json_integer_value(json_object_get(j, "rows_hidden")));
	json_decref(all);
	res_free(&ra);
	json_decref(j);
	res_free(&r);

	/* --fail-on: above the biggest change passes, below fails */
	r = run("diff --absolute --fail-on=0 '%2$s' '%2$s' -- '%1$s' '%1$s'", fp, sys);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "%stddev"));
	res_free(&r);
	r = run("diff --absolute --fail-on=%3$.3f '%2$s' '%2$s' -- '%1$s' '%1$s'", fp, sys,
		biggest + 0.01);
	ck_assert_int_eq(r.status, 0);
	res_free(&r);
	r = run("diff --absolute --fail-on=%3$.3f '%2$s' '%2$s' -- '%1$s' '%1$s'", fp, sys,
		biggest - 0.01);
	ck_assert_int_eq(r.status, 1);
	res_free(&r);
}
END_TEST

START_TEST(test_runs)
{
	/* two runs per side: the moderated t-test, two values per row and side */
	/* the implicit form, options after the files */
	res r = run("'%1$s' '%1$s' -- '%2$s' '%2$s' '%2$s' --format=json", fp, two);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	json_t *j = parse(r.out);
	ck_assert_str_eq(json_string_value(json_object_get(j, "test")), "moderated-t");
	check_side(json_object_get(j, "base"), 2, "fp.samples");
	json_t *rows = json_object_get(j, "rows");
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row)
		check_row_fields(row, 2, 3, false);
	json_decref(j);
	res_free(&r);
	r = run("'%1$s' '%1$s' -- '%2$s' '%2$s'", fp, two);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "moderated t-test"));
	ck_assert_ptr_null(strstr(r.out, "only sampling noise"));
	res_free(&r);
}
END_TEST

/* Split one CSV line (RFC 4180 quoting) into fields; returns the count. */
static size_t csv_fields(const char *line, char fields[][512], size_t max)
{
	size_t n = 0, k = 0;
	bool quoted = false;
	for (const char *c = line;; c++) {
		if (quoted) {
			if (*c == '"' && c[1] == '"') {
				if (k < 511)
					fields[n][k++] = '"';
				c++;
			} else if (*c == '"') {
				quoted = false;
			} else if (*c) {
				if (k < 511)
					fields[n][k++] = *c;
			} else {
				break;
			}
			continue;
		}
		if (*c == '"') {
			quoted = true;
		} else if (*c == ',' || *c == '\0') {
			if (n < max)
				fields[n][k] = '\0';
			n++;
			k = 0;
			if (!*c || n == max)
				break;
		} else if (k < 511) {
			fields[n][k++] = *c;
		}
	}
	return n;
}

START_TEST(test_csv)
{
	res r = run("diff --all --format=csv '%1$s' '%1$s' -- '%2$s'", fp, sys);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	res js = run("diff --all --format=json '%1$s' '%1$s' -- '%2$s'", fp, sys);
	json_t *j = parse(js.out);
	json_t *rows = json_object_get(j, "rows");
	static char fields[64][512];
	char *save = NULL;
	char *line = strtok_r(r.out, "\n", &save);
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(line, "metric,key,symbol,dso,base_mean,base_stddev,base_present,"
			       "new_mean,new_stddev,new_present,change,significant,p_value,"
			       "q_value,relation,relation_base,relation_new,relation_net,"
			       "base_0,base_1,new_0\r");
	size_t nrows = 0;
	while ((line = strtok_r(NULL, "\n", &save))) {
		size_t len = strlen(line);
		ck_assert_msg(len && line[len - 1] == '\r', "no CRLF: %s", line);
		line[len - 1] = '\0';
		ck_assert_uint_eq(csv_fields(line, fields, 64), 21);
		json_t *row = json_array_get(rows, nrows++);
		ck_assert_ptr_nonnull(row);
		ck_assert_str_eq(fields[0], json_string_value(json_object_get(row, "metric")));
		ck_assert_str_eq(fields[1], json_string_value(json_object_get(row, "key")));
		ck_assert_double_eq_tol(strtod(fields[10], NULL),
					json_number_value(json_object_get(row, "change")), 1e-6);
		ck_assert_str_eq(fields[11],
				 json_is_true(json_object_get(row, "significant")) ? "1" : "0");
		json_t *bruns = json_object_get(json_object_get(row, "base"), "runs");
		ck_assert_double_eq_tol(strtod(fields[18], NULL),
					json_number_value(json_array_get(bruns, 0)), 1e-6);
	}
	ck_assert_uint_eq(nrows, json_array_size(rows));
	json_decref(j);
	res_free(&js);
	res_free(&r);
}
END_TEST

START_TEST(test_lkp)
{
	res r = run("diff --all --format=lkp '%s' '%s'", fp, sys);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	/* the same diff as JSON: the robot's keys and reading, every row */
	res js = run("diff --all --lkp-keys --format=json '%s' '%s'", fp, sys);
	ck_assert_int_eq(js.status, 0);
	json_t *j = parse(js.out);
	ck_assert(json_is_true(json_object_get(json_object_get(j, "options"), "lkp_keys")));
	const char *ev = json_string_value(json_object_get(j, "lkp_event"));
	ck_assert_str_eq(ev, "cpu-clock");
	json_t *rows = json_object_get(j, "rows");
	/* the robot's header: "%16s %27s " of the names, the dashes, the
	 * %stddev lines (trailing blanks included) */
	char *save = NULL;
	char *line = strtok_r(r.out, "\n", &save);
	ck_assert_str_eq(line, "         fp.data                    sys.data ");
	line = strtok_r(NULL, "\n", &save);
	ck_assert_str_eq(line, "---------------- --------------------------- ");
	line = strtok_r(NULL, "\n", &save);
	ck_assert_str_eq(line, "         %stddev     %change         %stddev");
	line = strtok_r(NULL, "\n", &save);
	ck_assert_str_eq(line, "             \\          |                \\  ");
	/* then exactly one line per row: the robot's row of its values */
	size_t n = 0;
	while ((line = strtok_r(NULL, "\n", &save))) {
		json_t *row = json_array_get(rows, n++);
		ck_assert_msg(row != NULL, "more lines than rows: %s", line);
		ck_assert(json_is_null(json_object_get(row, "dso")));
		json_t *b = json_object_get(row, "base"), *w = json_object_get(row, "new");
		char key[4096], want[8192];
		snprintf(key, sizeof key, "perf-profile.%s.%s.%s",
			 json_string_value(json_object_get(row, "metric")), ev,
			 json_string_value(json_object_get(row, "key")));
		pd_diff_format_lkp_row(want, sizeof want,
				       json_number_value(json_object_get(b, "mean")),
				       json_number_value(json_object_get(b, "stddev")),
				       json_number_value(json_object_get(w, "mean")),
				       json_number_value(json_object_get(w, "stddev")), key);
		ck_assert_str_eq(line, want);
	}
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(n, json_array_size(rows));
	json_decref(j);
	res_free(&js);
	res_free(&r);
}
END_TEST

START_TEST(test_text)
{
	res r = run("diff --all '%s' '%s'", fp, sys);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	/* the table: the sides' names and files over the robot's header */
	const char *table = strstr(r.out, "            BASE                         NEW\n"
					  "         fp.data                    sys.data \n"
					  "---------------- --------------------------- \n"
					  "         %stddev     %change         %stddev\n"
					  "             \\          |                \\  \n");
	ck_assert_msg(table, "no labelled table header:\n%s", r.out);
	ck_assert_ptr_nonnull(strstr(r.out, "  perf-profile.children.cpu-clock."));
	ck_assert_ptr_nonnull(strstr(r.out, "  perf-profile.self.cpu-clock."));
	ck_assert_ptr_nonnull(strstr(r.out, "  perf-profile.calltrace.cpu-clock."));
	ck_assert_ptr_nonnull(strstr(r.out, "base: 1 run ("));
	/* cpu-clock's period is ns: the seconds said too */
	ck_assert_ptr_nonnull(
		strstr(r.out, "229 samples, total period 229000000 (0.23 s of CPU time)\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "new:  1 run ("));
	ck_assert_ptr_nonnull(strstr(r.out, "123 samples, total period 615000000"));
	ck_assert_ptr_nonnull(strstr(r.out, "one run a side cannot show the variation"));
	/* calltrace rows, then children, then self */
	const char *ct = strstr(table, ".calltrace.cpu-clock.");
	const char *ch = strstr(table, ".children.cpu-clock.");
	const char *se = strstr(table, ".self.cpu-clock.");
	ck_assert(ct < ch && ch < se);
	ck_assert_ptr_null(strstr(ch, ".calltrace.cpu-clock."));
	ck_assert_ptr_null(strstr(se, ".children.cpu-clock."));
	res_free(&r);
	/* without --all: the hidden rows are counted */
	r = run("'%s' '%s'", fp, two);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "rows not shown: not significant, or through a shift (--all shows them)"));
	res_free(&r);
}
END_TEST

static int by_abs_change(const void *a, const void *b)
{
	double x = fabs(json_number_value(json_object_get(*(json_t *const *)a, "change")));
	double y = fabs(json_number_value(json_object_get(*(json_t *const *)b, "change")));
	return x > y ? -1 : x < y;
}

/* Nothing significant (two fixtures of one workload): the text shows the
 * largest changes anyway, each marked (n.s.), as perf diff shows its
 * delta column: the flat rows of `--format=json --all` whose change shows
 * at 0.1 points, by |change|, the first 10, in that order.  The JSON
 * stays as it was: no row, all of them hidden. */
START_TEST(test_quiet_largest)
{
	res a = run("diff -q --all --format=json '%s' '%s'", fp, two);
	json_t *j = parse(a.out);
	json_t *rows = json_object_get(j, "rows"), *row, *want[64];
	size_t i, n = 0;
	json_array_foreach(rows, i, row) {
		const char *m = json_string_value(json_object_get(row, "metric"));
		ck_assert(json_is_false(json_object_get(row, "significant")));
		if (strcmp(m, "shift") && strcmp(m, "tree") && n < 64 &&
		    fabs(json_number_value(json_object_get(row, "change"))) >= 0.05)
			want[n++] = row;
	}
	ck_assert_uint_ge(n, 3);
	/* stable: rows of one |change| stay in the JSON's order */
	for (size_t k = 1; k < n; k++)
		for (size_t m = k; m > 0 && by_abs_change(&want[m - 1], &want[m]) > 0; m--) {
			json_t *t = want[m];
			want[m] = want[m - 1];
			want[m - 1] = t;
		}
	if (n > 10)
		n = 10;
	res r = run("diff -q '%s' '%s'", fp, two);
	ck_assert_int_eq(r.status, 0);
	const char *at = strstr(r.out, "no significant change; the largest changes, none "
				       "significant:\n            BASE");
	ck_assert_msg(at, "no list of the largest changes:\n%s", r.out);
	for (size_t k = 0; k < n; k++) {
		char key[1024];
		snprintf(key, sizeof key, " perf-profile.%s.cpu-clock.%s ",
			 json_string_value(json_object_get(want[k], "metric")),
			 json_string_value(json_object_get(want[k], "key")));
		const char *hit = strstr(at, key);
		ck_assert_msg(hit, "row %zu (%s) missing or out of order:\n%s", k, key, r.out);
		const char *eol = strchr(hit, '\n');
		ck_assert_msg(eol && eol - hit > 6 && strncmp(eol - 6, "(n.s.)", 6) == 0,
			      "row %zu not marked (n.s.)", k);
		at = eol;
	}
	ck_assert_ptr_nonnull(strstr(at, "\n\nbase: 1 run ("));  /* nothing more */
	res_free(&r);
	r = run("diff -q --format=json '%s' '%s'", fp, two);
	json_t *plain = parse(r.out);
	ck_assert_uint_eq(json_array_size(json_object_get(plain, "rows")), 0);
	ck_assert_ptr_null(json_object_get(plain, "largest"));
	json_decref(plain);
	res_free(&r);
	json_decref(j);
	res_free(&a);
}
END_TEST

/* "# Samples with an unresolved leaf: 82.11% of the period" of perfdiff
 * report: the profile's own count of them. */
static double report_unresolved(const char *data)
{
	res r = run("report '%s'", data);
	ck_assert_msg(r.status == 0 || r.status == 1, "report: exit %d", r.status); /* 1: warnings */
	const char *at = strstr(r.out, "# Samples with an unresolved leaf: ");
	ck_assert_ptr_nonnull(at);
	double pct = strtod(at + strlen("# Samples with an unresolved leaf: "), NULL);
	res_free(&r);
	return pct;
}

START_TEST(test_unknown_per_dso)
{
	/* sys.data: frames without symbols in several dsos (the workload's,
	 * perf's, libzstd's, and no dso at all) are "[unknown]" of each --
	 * never their addresses -- and their self rows add up to the samples
	 * with an unresolved leaf */
	res r = run("diff --all --format=json '%s' '%s'", sys, sys);
	ck_assert_int_eq(r.status, 0);
	json_t *j = parse(r.out), *rows = json_object_get(j, "rows");
	size_t i, n = json_array_size(rows), dsos = 0;
	json_t *row;
	double unknown_self = 0;
	json_array_foreach(rows, i, row) {
		const char *m = json_string_value(json_object_get(row, "metric"));
		const char *sym = json_string_value(json_object_get(row, "symbol"));
		const char *key = json_string_value(json_object_get(row, "key"));
		const char *dso = json_string_value(json_object_get(row, "dso"));
		ck_assert_msg(!strstr(key, "0x"), "an address in row %s", key);
		if (strcmp(sym, "[unknown]") != 0)
			continue;
		/* one row per (metric, key, dso) */
		for (size_t k = i + 1; k < n; k++) {
			json_t *o = json_array_get(rows, k);
			ck_assert_msg(
				strcmp(m, json_string_value(json_object_get(o, "metric"))) != 0 ||
					strcmp(key, json_string_value(json_object_get(o, "key"))) != 0 ||
					strcmp(dso, json_string_value(json_object_get(o, "dso"))) != 0,
				"two %s rows %s in %s", m, key, dso);
		}
		if (strcmp(m, "self") == 0) {
			dsos++;
			unknown_self += json_number_value(
				json_object_get(json_object_get(row, "base"), "mean"));
		}
	}
	ck_assert_uint_ge(dsos, 3);
	ck_assert_double_eq_tol(unknown_self, report_unresolved(sys), 0.006);
	json_decref(j);
	res_free(&r);

	/* the text names the dso of every "[unknown]" row */
	r = run("diff --all '%s' '%s'", sys, sys);
	ck_assert_int_eq(r.status, 0);
	size_t seen = 0;
	char *save = NULL;
	for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *k = strstr(line, "perf-profile.self.cpu-clock.[unknown]");
		if (!k)
			continue;
		seen++;
		ck_assert_msg(strstr(k, "[unknown] [") == k + strlen("perf-profile.self.cpu-clock."),
			      "no dso: %s", line);
	}
	ck_assert_uint_eq(seen, dsos);
	res_free(&r);
}
END_TEST

/* ------------------------------------------------ a recorded rename */

/*
 * tests/workloads/diff_rename.c built as old/app and, with hash_chunk
 * renamed hash_block (-DPD_NEW), as new/app, each recorded twice: the
 * example of examples/rename-diff.sh.  Recorded once for the tests of
 * the "recorded" case.
 */
#define WORKLOAD PD_TEST_DATA_DIR "/../workloads/diff_rename.c"
#define WFLAGS "-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

static struct pair {
	const char *skip;
	char *dir;
	char runs[2][2][PATHMAX];  /* [side][run] */
} P;

static void pair_setup(void)
{
	memset(&P, 0, sizeof P);
	P.skip = pd_test_lab_open(true, &P.dir);
	if (P.skip)
		return;
	/* ~1200 samples a run; a kernel that lowered
	 * perf_event_max_sample_rate refuses -F 4000: perf's default then */
	const char *args = "-q -N -e cpu-clock -g -F 4000";
	char probe[PATHMAX];
	snprintf(probe, sizeof probe, "%s/probe.data", P.dir);
	if (!pd_test_perf_record(probe, args, "true"))
		args = "-q -N -e cpu-clock -g";
	for (int side = 0; side < 2; side++) {
		char bin[PATHMAX], w[PATHMAX + 16];
		snprintf(bin, sizeof bin, "%s/%s", P.dir, side ? "new" : "old");
		pd_test_mkdirs(bin);
		strcat(bin, "/app");
		if (!pd_test_compile("cc", side ? WFLAGS " -DPD_NEW" : WFLAGS, bin, WORKLOAD)) {
			P.skip = "cannot build tests/workloads/diff_rename.c";
			return;
		}
		snprintf(w, sizeof w, "'%s' 300", bin);
		for (int r = 0; r < 2; r++) {
			snprintf(P.runs[side][r], PATHMAX, "%s/%s%d.data", P.dir,
				 side ? "new" : "old", r + 1);
			if (!pd_test_perf_record(P.runs[side][r], args, w)) {
				P.skip = "perf record failed";
				return;
			}
		}
	}
}

static void pair_teardown(void)
{
	pd_test_lab_close(P.dir);
	memset(&P, 0, sizeof P);
}

#define PAIR(opts)                                                            \
	run("diff %s '%s' '%s' -- '%s' '%s'", opts, P.runs[0][0], P.runs[0][1], P.runs[1][0], \
	    P.runs[1][1])

/* How many lines of perf script's symbols of `data` name `sym`. */
static int perf_script_count(const char *data, const char *sym)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd, "perf script -F ip,sym -i '%s' 2>/dev/null | grep -cw '%s'", data,
		 sym);
	int st;
	char *out = pd_test_run(cmd, &st);
	int n = out ? atoi(out) : -1;
	free(out);
	return n;
}

/* Whether a table key is about the renamed function (its rows or a path
 * through it). */
static bool renamed_key(const char *key)
{
	return strstr(key, "hash_chunk") || strstr(key, "hash_block");
}

/* The explained shift leads the text, its halves under it, and the table
 * below holds none of its rows; --fail-on judges the net change. */
START_TEST(test_relations_first)
{
	PD_SKIP_IF(P.skip);
	/* the independent part: each name is sampled on its side only */
	ck_assert_int_gt(perf_script_count(P.runs[0][0], "hash_chunk"), 100);
	ck_assert_int_eq(perf_script_count(P.runs[0][0], "hash_block"), 0);
	ck_assert_int_gt(perf_script_count(P.runs[1][0], "hash_block"), 100);
	ck_assert_int_eq(perf_script_count(P.runs[1][0], "hash_chunk"), 0);

	res r = PAIR("");
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	fprintf(stderr, "renamed pair, text:\n%s", r.out);
	ck_assert_msg(strncmp(r.out, "explained shifts (", 18) == 0, "%s", r.out);
	const char *shift = strstr(r.out, "\n  hash_chunk -> hash_block (renamed)  ");
	const char *first_row = strstr(r.out, "perf-profile.");
	const char *table = strstr(r.out, "BASE                         NEW\n");
	ck_assert_msg(shift && first_row && shift < first_row, "the shift before its rows");
	const char *gone = strstr(r.out, "  perf-profile.children.cpu-clock.hash_chunk\n");
	const char *came = strstr(r.out, "  perf-profile.children.cpu-clock.hash_block\n");
	ck_assert_msg(gone && came && gone > shift && came > shift && (!table || (gone < table &&
		      came < table)), "both children rows under the shift");
	char *save = NULL;
	for (char *line = strtok_r(table ? (char *)table : r.out + strlen(r.out), "\n", &save);
	     line; line = strtok_r(NULL, "\n", &save)) {
		const char *key = strstr(line, "  perf-profile.");
		ck_assert_msg(!key || !renamed_key(key), "a row of the shift in the table: %s", line);
	}
	res_free(&r);

	/* the gate: a rename changes nothing it should fail on; the same
	 * rows unexplained do */
	res gate = PAIR("--fail-on=5");
	ck_assert_msg(gate.status == 0, "--fail-on=5 on a rename: exit %d", gate.status);
	res_free(&gate);
	gate = PAIR("--no-align --fail-on=5");
	ck_assert_msg(gate.status == 1, "--no-align --fail-on=5: exit %d", gate.status);
	res_free(&gate);

	/* the robot's layout has no shifts; each of its rows is in the text */
	res lkp = PAIR("--format=lkp");
	res txt = PAIR("--lkp-keys");
	ck_assert_int_eq(lkp.status, 0);
	ck_assert_int_eq(txt.status, 0);
	ck_assert_ptr_null(strstr(lkp.out, "(renamed"));
	save = NULL;
	size_t rows = 0;
	for (char *l = strtok_r(lkp.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strstr(l, "perf-profile.")) {
			ck_assert_msg(strstr(txt.out, l), "lkp row '%s' missing from the text", l);
			rows++;
		}
	fprintf(stderr, "%zu rows of the robot's layout found in the text\n", rows);
	res_free(&lkp);
	res_free(&txt);
}
END_TEST

/* ------------------------------------------------ per-side options */

/*
 * One system-wide recording of two programs (dd, sha256sum) read as both
 * sides, each side with its own options: what differs between the sides
 * is only what the options make differ.
 */
static struct sides_lab {
	const char *skip;
	char *dir;
	char data[PATHMAX];
} S;

static void sides_setup(void)
{
	memset(&S, 0, sizeof S);
	S.skip = pd_test_lab_open(true, &S.dir);
	if (S.skip)
		return;
	snprintf(S.data, PATHMAX, "%s/sys.data", S.dir);
	if (!pd_test_perf_record(S.data, "-q -N -a -g -e cpu-clock -F 2000",
				 "sh -c 'dd if=/dev/zero of=/dev/null bs=64 count=400000 2>/dev/null & "
				 "head -c 40000000 /dev/zero | sha256sum >/dev/null; wait'"))
		S.skip = "system-wide perf record failed (perf_event_paranoid?)";
}

static void sides_teardown(void)
{
	pd_test_lab_close(S.dir);
	memset(&S, 0, sizeof S);
}

/* Samples of the recording whose command is `comm`, by perf script. */
static long perf_comm_samples(const char *comm)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf script -F comm -i '%s' 2>/dev/null | awk '$1 == \"%s\" { n++ } END { print n + 0 }'",
		 S.data, comm);
	int st;
	char *out = pd_test_run(cmd, &st);
	long n = out ? atol(out) : -1;
	free(out);
	return n;
}

START_TEST(test_side_filters)
{
	PD_SKIP_IF(S.skip);
	res r = run("diff --format=json --base-comm=dd --new-comm=sha256sum '%s' '%s'", S.data,
		    S.data);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	json_t *j = parse(r.out);
	long dd = perf_comm_samples("dd"), sha = perf_comm_samples("sha256sum");
	ck_assert_msg(dd > 50 && sha > 50, "perf script: %ld dd, %ld sha256sum samples", dd, sha);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "base"), "samples")),
			 dd);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "new"), "samples")),
			 sha);
	json_decref(j);
	res_free(&r);
	/* a common filter and a side's own add up: dd,sha256sum on the new side */
	r = run("diff --format=json --comm=dd --new-comm=sha256sum '%s' '%s'", S.data, S.data);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	j = parse(r.out);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "base"), "samples")),
			 dd);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "new"), "samples")),
			 dd + sha);
	json_decref(j);
	res_free(&r);
}
END_TEST

/* The kernel function with the most leaf samples in the recording, by
 * perf script; its name unique in kallsyms text `ks`. */
static char *hottest_kernel_leaf(const char *ks)
{
	char cmd[2 * PATHMAX];
	snprintf(cmd, sizeof cmd,
		 "perf script -F ip,sym,dso -i '%s' 2>/dev/null | awk 'BEGIN{RS=\"\"} "
		 "{split($0,l,\"\\n\"); n=split(l[1],f,\" \"); if (l[1] ~ /kernel.kallsyms/) "
		 "print f[2]}' | grep -v '^__pfx_' | sort | uniq -c | sort -rn | head -20",
		 S.data);
	int st;
	char *out = pd_test_run(cmd, &st);
	char *best = NULL, *save = NULL;
	for (char *l = out ? strtok_r(out, "\n", &save) : NULL; l && !best;
	     l = strtok_r(NULL, "\n", &save)) {
		char name[256];
		int n;
		if (sscanf(l, "%d %255s", &n, name) != 2 || n < 20)
			continue;
		char pat[300];
		snprintf(pat, sizeof pat, " %s\n", name);
		const char *a = strstr(ks, pat);
		if (a && !strstr(a + 1, pat))
			best = strdup(name);
	}
	free(out);
	return best;
}

/* kallsyms text `ks` with function `from` named `to`, into `path`. */
static void write_renamed(const char *ks, const char *from, const char *to, const char *path)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	char pat[300];
	snprintf(pat, sizeof pat, " %s\n", from);
	const char *at = strstr(ks, pat);
	ck_assert_ptr_nonnull(at);
	fwrite(ks, 1, (size_t)(at - ks) + 1, f);
	fprintf(f, "%s\n", to);
	fputs(at + strlen(pat), f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_side_kallsyms)
{
	PD_SKIP_IF(S.skip);
	int st;
	char *ks = pd_test_run("cat /proc/kallsyms", &st);
	PD_SKIP_IF(!ks || st != 0 || strncmp(ks, "0000000000000000", 16) == 0
		   ? "no readable /proc/kallsyms" : NULL);
	char *hot = hottest_kernel_leaf(ks);
	PD_SKIP_IF(!hot ? "no kernel function with 20 leaf samples" : NULL);
	char k1[PATHMAX], k2[PATHMAX];
	snprintf(k1, sizeof k1, "%s/kallsyms.base", S.dir);
	snprintf(k2, sizeof k2, "%s/kallsyms.new", S.dir);
	write_renamed(ks, hot, "pd_test_old_name", k1);
	write_renamed(ks, hot, "pd_test_new_name", k2);
	/* one recording, each side named by its own kernel symbols */
	res r = run("diff --format=json --base-kallsyms='%s' --new-kallsyms='%s' '%s' '%s'", k1, k2,
		    S.data, S.data);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	json_t *j = parse(r.out);
	json_t *rels = json_object_get(j, "relations"), *rel;
	size_t i, renamed = 0;
	json_array_foreach(rels, i, rel) {
		const char *kind = json_string_value(json_object_get(rel, "kind"));
		const char *b = json_string_value(json_object_get(rel, "base_symbol"));
		const char *n = json_string_value(json_object_get(rel, "new_symbol"));
		const char *ev = json_string_value(json_object_get(rel, "evidence"));
		ck_assert_msg(strcmp(kind, "renamed") == 0 && strcmp(b, "pd_test_old_name") == 0 &&
				      strcmp(n, "pd_test_new_name") == 0 &&
				      strstr(ev, "symbol tables: pd_test_old_name only in the base build"),
			      "%s renamed in kallsyms: %s %s -> %s [%s]", hot, kind, b, n, ev);
		renamed++;
	}
	ck_assert_msg(renamed == 1, "%s renamed in kallsyms: %zu relations\n%s", hot, renamed,
		      r.out);
	json_decref(j);
	res_free(&r);
	/* the common option for both: nothing to explain */
	r = run("diff --format=json --kallsyms='%s' '%s' '%s'", k1, S.data, S.data);
	ck_assert_int_eq(r.status, 0);
	j = parse(r.out);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "relations")), 0);
	json_decref(j);
	res_free(&r);
	free(hot);
	free(ks);
}
END_TEST

/* Warnings that `perfdiff report FILE` prints for one file, "FILE: text",
 * each text appended to texts[] (when new) with the files that give it. */
typedef struct warn_oracle {
	char *text[64];
	const char *files[64][4];
	size_t nfiles[64], n;
} warn_oracle;

static void oracle_add(warn_oracle *o, const char *file, const char *opts)
{
	res r = run("report %s '%s'", opts, file);
	ck_assert_msg(r.status == 0 || r.status == 1, "report: exit %d", r.status);
	char pre[PATHMAX + 32];
	snprintf(pre, sizeof pre, "perfdiff: warning: %s: ", file);
	char *save = NULL;
	for (char *line = strtok_r(r.err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ck_assert_msg(strncmp(line, pre, strlen(pre)) == 0, "report: %s", line);
		const char *text = line + strlen(pre);
		size_t i = 0;
		while (i < o->n && strcmp(o->text[i], text) != 0)
			i++;
		if (i == o->n) {
			ck_assert_uint_lt(o->n, 64);
			o->text[o->n++] = strdup(text);
		}
		if (o->nfiles[i] == 0 || o->files[i][o->nfiles[i] - 1] != file)
			o->files[i][o->nfiles[i]++] = file;
	}
	res_free(&r);
}

START_TEST(test_warnings_collapsed)
{
	PD_SKIP_IF(P.skip);
	/* an empty --symfs: every file warns of its binaries, the shared
	 * libraries in all four, each build's program in two */
	char fs[PATHMAX + 8], opts[PATHMAX + 32];
	snprintf(fs, sizeof fs, "%s/emptyfs", P.dir);
	pd_test_mkdirs(fs);
	snprintf(opts, sizeof opts, "--symfs='%s'", fs);
	warn_oracle o;
	memset(&o, 0, sizeof o);
	for (int side = 0; side < 2; side++)
		for (int r = 0; r < 2; r++)
			oracle_add(&o, P.runs[side][r], opts);
	size_t shared = 0;
	for (size_t i = 0; i < o.n; i++)
		shared += o.nfiles[i] > 1;
	ck_assert_msg(shared > 0, "no warning that two files give");

	/* by default at most three lines of the kind, and one that counts */
	res r = PAIR(opts);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	size_t shown = 0;
	for (const char *c = r.err; (c = strstr(c, "perfdiff: warning: ")); c++)
		shown++;
	ck_assert_uint_eq(shown, o.n > 3 ? 4 : o.n);
	char count[256];
	snprintf(count, sizeof count, "perfdiff: warning: %zu warnings: %zu about files not "
		 "found ([unknown] frames); %zu not shown (-v shows them)\n", o.n, o.n, o.n - 3);
	ck_assert_msg(o.n <= 3 || strstr(r.err, count), "no '%s' in %s", count, r.err);
	res_free(&r);
	/* -v: all of them */
	strcat(opts, " -v");
	r = PAIR(opts);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	fprintf(stderr, "renamed pair, warnings with an empty symfs:\n%s", r.err);
	size_t lines = 0;
	for (const char *c = r.err; (c = strstr(c, "perfdiff: warning: ")); c++)
		lines++;
	ck_assert_uint_eq(lines, o.n);  /* one line per text */
	for (size_t i = 0; i < o.n; i++) {
		char want[4 * PATHMAX + 1024];
		if (o.nfiles[i] == 1) {
			snprintf(want, sizeof want, "perfdiff: warning: %s: %s\n", o.files[i][0],
				 o.text[i]);
		} else {
			int at = snprintf(want, sizeof want, "perfdiff: warning: %s (%zu files: ",
					  o.text[i], o.nfiles[i]);
			for (size_t k = 0; k < o.nfiles[i]; k++)
				at += snprintf(want + at, sizeof want - (size_t)at, "%s%s",
					       k ? ", " : "", o.files[i][k]);
			snprintf(want + at, sizeof want - (size_t)at, ")\n");
		}
		const char *hit = strstr(r.err, want);
		ck_assert_msg(hit, "stderr lacks '%s'", want);
		ck_assert_msg(!strstr(hit + 1, want), "'%s' twice", want);
		free(o.text[i]);
	}
	res_free(&r);
}
END_TEST

/* A row's mean on side `side` ("base", "new"). */
static double side_mean(json_t *row, const char *side)
{
	return json_number_value(json_object_get(json_object_get(row, side), "mean"));
}

/* Whether `a` and `b` hold equal rows, in any order. */
static bool same_rows(json_t *a, json_t *b)
{
	if (json_array_size(a) != json_array_size(b))
		return false;
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) {
		bool found = false;
		size_t k;
		json_t *y;
		json_array_foreach(b, k, y)
			found |= json_equal(x, y);
		if (!found)
			return false;
	}
	return true;
}

/* --sort orders the rows within each metric and changes nothing else;
 * --percent-limit leaves out exactly the rows below it on both sides. */
START_TEST(test_sort_limit)
{
	PD_SKIP_IF(P.skip);
	res all = PAIR("--all --format=json");
	ck_assert_msg(all.status == 0, "exit %d: %s", all.status, all.err);
	json_t *ja = parse(all.out), *rows = json_object_get(ja, "rows");
	static const char *const sorts[] = { "name", "abs-change", "change" };
	for (size_t s = 0; s < 3; s++) {
		char opts[64];
		snprintf(opts, sizeof opts, "--all --format=json --sort=%s", sorts[s]);
		res r = PAIR(opts);
		ck_assert_msg(r.status == 0, "%s: exit %d: %s", opts, r.status, r.err);
		json_t *j = parse(r.out), *v = json_object_get(j, "rows");
		ck_assert_msg(same_rows(v, rows), "%s: other rows", opts);
		for (size_t i = 1; i < json_array_size(v); i++) {
			json_t *a = json_array_get(v, i - 1), *b = json_array_get(v, i);
			const char *ma = json_string_value(json_object_get(a, "metric"));
			if (strcmp(ma, json_string_value(json_object_get(b, "metric"))) != 0)
				continue;
			double ca = json_number_value(json_object_get(a, "change"));
			double cb = json_number_value(json_object_get(b, "change"));
			const char *ka = json_string_value(json_object_get(a, "key"));
			const char *kb = json_string_value(json_object_get(b, "key"));
			if (s == 0)
				ck_assert_msg(strcmp(ka, kb) <= 0, "%s after %s", kb, ka);
			else if (s == 1)
				ck_assert_msg(fabs(ca) >= fabs(cb), "|%g| after |%g|", cb, ca);
			else
				ck_assert_msg(ca <= cb, "%g after %g", cb, ca);
		}
		json_decref(j);
		res_free(&r);
	}
	/* the limit: the rows of the whole at or above it on a side */
	res lim = PAIR("--all --format=json --percent-limit=5");
	ck_assert_msg(lim.status == 0, "exit %d: %s", lim.status, lim.err);
	json_t *jl = parse(lim.out), *want = json_array();
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *m = json_string_value(json_object_get(row, "metric"));
		bool shift = strcmp(m, "shift") == 0;
		if (!shift && (side_mean(row, "base") >= 5 || side_mean(row, "new") >= 5))
			json_array_append(want, row);
	}
	json_t *got = json_array();
	json_array_foreach(json_object_get(jl, "rows"), i, row)
		if (strcmp(json_string_value(json_object_get(row, "metric")), "shift") != 0)
			json_array_append(got, row);
	ck_assert_uint_gt(json_array_size(want), 0);
	ck_assert_uint_lt(json_array_size(want), json_array_size(rows));
	ck_assert_msg(same_rows(got, want), "--percent-limit=5: %zu rows, want %zu",
		      json_array_size(got), json_array_size(want));
	json_decref(got);
	json_decref(want);
	json_decref(jl);
	res_free(&lim);
	res bad = PAIR("--absolute --percent-limit=5");
	ck_assert_int_eq(bad.status, 2);
	ck_assert_ptr_nonnull(strstr(bad.err, "--percent-limit does not go with --absolute"));
	res_free(&bad);

	json_decref(ja);
	res_free(&all);
}
END_TEST

/* --color=always colours the text as git diff does (red: a cost grew,
 * green: it fell, dim: not significant) and changes nothing else;
 * never in JSON, never without a terminal by default. */
START_TEST(test_color)
{
	/* colour: git diff's, on the text only; without escapes the plain
	 * text.  As rates (--absolute), the whole system's processes appear
	 * from nothing beside the workload alone (red), and vanish the other
	 * way round (green). */
	res plain = run("diff --absolute --all '%1$s' '%1$s' -- '%2$s' '%2$s'", fp, sys);
	res col = run("diff --absolute --all --color=always '%1$s' '%1$s' -- '%2$s' '%2$s'", fp,
		      sys);
	res back = run("diff --absolute --all --color=always '%2$s' '%2$s' -- '%1$s' '%1$s'", fp,
		       sys);
	ck_assert_int_eq(col.status, 0);
	size_t red = 0, green = 0, dim = 0, red2 = 0, green2 = 0, dim2 = 0;
	count_colours(col.out, &red, &green, &dim);
	count_colours(back.out, &red2, &green2, &dim2);
	ck_assert_str_eq(col.out, plain.out);
	ck_assert_uint_gt(dim, 0);        /* --all shows rows that are not significant */
	ck_assert_uint_gt(red, 0);        /* the system's processes appeared */
	ck_assert_uint_gt(green2, 0);     /* ... and vanished */
	res_free(&col);
	res_free(&back);
	static const char *const never[] = { "--all --color=never", "--all --color=auto",
					     "--all --format=json --color=always" };
	for (size_t k = 0; k < 3; k++) {
		res r = run("diff --absolute %1$s '%2$s' '%2$s' -- '%3$s' '%3$s'", never[k], fp, sys);
		ck_assert_msg(!strchr(r.out, '\033'), "%s: colour", never[k]);
		if (k < 2)
			ck_assert_str_eq(r.out, plain.out);
		res_free(&r);
	}
	res_free(&plain);
}
END_TEST

/* ------------------------------------------------ --format=folded */

/* Collapsed stacks "STACK V1 [V2]" by stack; equal stacks summed. */
typedef struct fstack {
	char *stack;
	double v[2];
	int cols;
} fstack;

typedef struct fmap {
	fstack *v;
	size_t n;
} fmap;

static int fstack_cmp(const void *a, const void *b)
{
	return strcmp(((const fstack *)a)->stack, ((const fstack *)b)->stack);
}

/* Split `text` into lines of `cols` numbers after the stack (split at the
 * last spaces, as flamegraph.pl does); sorted, duplicates summed unless
 * `keep_dups`.  Fails the test on a malformed line. */
static fmap fmap_parse(const char *text, int cols, bool keep_dups)
{
	fmap m = { NULL, 0 };
	size_t cap = 0;
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		ck_assert_msg(nl != NULL, "unterminated line: %.200s", line);
		char *l = strndup(line, (size_t)(nl - line));
		ck_assert_ptr_nonnull(l);
		fstack f = { l, { 0, 0 }, cols };
		for (int c = cols - 1; c >= 0; c--) {
			char *sp = strrchr(l, ' ');
			ck_assert_msg(sp != NULL, "no value: %s", l);
			char *end;
			f.v[c] = strtod(sp + 1, &end);
			ck_assert_msg(sp[1] >= '0' && sp[1] <= '9' && *end == '\0', "bad value: %s",
				      sp + 1);
			*sp = '\0';
		}
		if (m.n == cap) {
			cap = cap ? 2 * cap : 256;
			m.v = realloc(m.v, cap * sizeof *m.v);
			ck_assert_ptr_nonnull(m.v);
		}
		m.v[m.n++] = f;
		line = nl + 1;
	}
	if (keep_dups || m.n == 0)
		return m;
	qsort(m.v, m.n, sizeof *m.v, fstack_cmp);
	size_t k = 0;
	for (size_t i = 0; i < m.n; i++) {
		if (k && strcmp(m.v[k - 1].stack, m.v[i].stack) == 0) {
			m.v[k - 1].v[0] += m.v[i].v[0];
			free(m.v[i].stack);
			continue;
		}
		m.v[k++] = m.v[i];
	}
	m.n = k;
	return m;
}

static void fmap_free(fmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].stack);
	free(m->v);
}

static double fmap_get(const fmap *m, const char *stack)
{
	fstack key = { (char *)stack, { 0, 0 }, 0 };
	const fstack *f = m->n ? bsearch(&key, m->v, m->n, sizeof *m->v, fstack_cmp) : NULL;
	return f ? f->v[0] : 0;
}

/*
 * A report's stack as the diff's aligned tree names it: a frame without a
 * symbol (the report prints its address, which ASLR moves) is "[unknown]",
 * and with `rename` the new build's hash_block called by process is the
 * base's hash_chunk (diff_rename.c's labelled rename, which the aligner
 * pairs; a stray sample of hash_block elsewhere, say under main where the
 * frame pointer was not yet set up, pairs with nothing and keeps its name).
 */
static char *aligned_names(const char *stack, bool rename)
{
	size_t n = strlen(stack), cap = 2 * n + 16, k = 0;
	char *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	const char *f = stack, *prev = "";
	for (;;) {
		const char *e = strchr(f, ';');
		size_t len = e ? (size_t)(e - f) : strlen(f);
		const char *name = f;
		if (len > 2 && f[0] == '0' && f[1] == 'x' && strspn(f + 2, "0123456789abcdef") == len - 2) {
			name = "[unknown]";
			len = strlen(name);
		} else if (rename && len == 10 && strncmp(f, "hash_block", 10) == 0 &&
			   strncmp(prev, "process;", 8) == 0) {
			name = "hash_chunk";
		}
		prev = f;
		memcpy(out + k, name, len);
		k += len;
		if (!e)
			break;
		out[k++] = ';';
		f = e + 1;
	}
	out[k] = '\0';
	return out;
}

/* The oracle of one side: `perfdiff report --format=folded` of each of its
 * runs, by stack named as the aligned tree names it (aligned_names(), the
 * rename on the new side), the mean over the runs. */
static fmap side_oracle(char runs[][PATHMAX], size_t nruns, const char *opts, bool rename)
{
	fmap all = { NULL, 0 };
	size_t cap = 0;
	for (size_t r = 0; r < nruns; r++) {
		res rep = run("report --format=folded %s '%s'", opts, runs[r]);
		ck_assert_msg(rep.status == 0 || rep.status == 1, "report exit %d: %s", rep.status,
			      rep.err);
		fmap one = fmap_parse(rep.out, 1, true);
		for (size_t i = 0; i < one.n; i++) {
			if (all.n == cap) {
				cap = cap ? 2 * cap : 256;
				all.v = realloc(all.v, cap * sizeof *all.v);
				ck_assert_ptr_nonnull(all.v);
			}
			all.v[all.n] = one.v[i];
			all.v[all.n].stack = aligned_names(one.v[i].stack, rename);
			free(one.v[i].stack);
			all.v[all.n++].v[0] /= (double)nruns;
		}
		free(one.v);
		res_free(&rep);
	}
	/* by stack, a stack's lines summed */
	if (all.n)
		qsort(all.v, all.n, sizeof *all.v, fstack_cmp);
	size_t k = 0;
	for (size_t i = 0; i < all.n; i++) {
		if (k && strcmp(all.v[k - 1].stack, all.v[i].stack) == 0) {
			all.v[k - 1].v[0] += all.v[i].v[0];
			free(all.v[i].stack);
			continue;
		}
		all.v[k++] = all.v[i];
	}
	all.n = k;
	return all;
}

/* Each value a whole number (one run a side) or with 1 or 2 decimals. */
static void check_decimals(char *out, size_t nruns)
{
	char *save = NULL;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *b = strrchr(l, ' ');
		ck_assert_ptr_nonnull(b);
		*b = '\0';
		char *a = strrchr(l, ' ');
		ck_assert_ptr_nonnull(a);
		const char *vals[2] = { a + 1, b + 1 };
		for (int s = 0; s < 2; s++) {
			const char *d = strchr(vals[s], '.');
			if (nruns == 1)
				ck_assert_msg(!d, "not a whole number: %s", vals[s]);
			else if (d)
				ck_assert_msg(strlen(d + 1) >= 1 && strlen(d + 1) <= 2 &&
						      d[strlen(d) - 1] != '0',
					      "not 1 or 2 decimals: %s", vals[s]);
		}
	}
}

/*
 * `diff --format=folded` of runs[0][0..nruns) against runs[1][0..nruns)
 * checked line by line against the two sides' reports: every line's BASE
 * is the base's report, its NEW the new's report with the labelled rename
 * applied; so the renamed function's lines carry both sides, no line names
 * the new name, and each column sums to its side's total.
 */
static void check_folded(size_t nruns, const char *opts)
{
	res r = nruns == 1 ? run("diff --format=folded %s '%s' '%s'", opts, P.runs[0][0],
				 P.runs[1][0])
			   : run("diff --format=folded %s '%s' '%s' -- '%s' '%s'", opts,
				 P.runs[0][0], P.runs[0][1], P.runs[1][0], P.runs[1][1]);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	fmap want[2] = { side_oracle(P.runs[0], nruns, opts, false),
			 side_oracle(P.runs[1], nruns, opts, true) };
	ck_assert_uint_gt(want[0].n, 3);
	ck_assert_uint_gt(want[1].n, 3);
	fmap got = fmap_parse(r.out, 2, true);
	size_t seen[2] = { 0, 0 };
	double sum[2] = { 0, 0 }, total[2] = { 0, 0 }, paired[2] = { 0, 0 }, stray = 0;
	for (size_t i = 0; i < got.n; i++) {
		const fstack *g = &got.v[i];
		/* sorted by stack, each once */
		if (i)
			ck_assert_msg(strcmp(got.v[i - 1].stack, g->stack) < 0, "not sorted: %s / %s",
				      got.v[i - 1].stack, g->stack);
		ck_assert_msg(g->v[0] > 0 || g->v[1] > 0, "empty line: %s", g->stack);
		if (strstr(g->stack, "hash_block"))
			stray += g->v[1];
		for (int s = 0; s < 2; s++) {
			double w = fmap_get(&want[s], g->stack);
			ck_assert_msg(fabs(g->v[s] - w) <= 0.005 + 1e-9 * w,
				      "side %d of %s: %.3f, report says %.3f", s, g->stack, g->v[s], w);
			fstack key = { g->stack, { 0, 0 }, 0 };
			seen[s] += bsearch(&key, want[s].v, want[s].n, sizeof *want[s].v,
					   fstack_cmp) != NULL;
			sum[s] += g->v[s];
		}
		size_t len = strlen(g->stack);
		if (len > 19 && strcmp(g->stack + len - 19, ";process;hash_chunk") == 0)
			for (int s = 0; s < 2; s++)
				paired[s] += g->v[s];
	}
	/* every stack of either report is a line, and nothing else */
	ck_assert_uint_eq(seen[0], want[0].n);
	ck_assert_uint_eq(seen[1], want[1].n);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < want[s].n; i++)
			total[s] += want[s].v[i].v[0];
		ck_assert_msg(fabs(sum[s] - total[s]) <= 0.01 * (double)got.n + 1e-9 * total[s],
			      "side %d sums to %.2f, its report to %.2f", s, sum[s], total[s]);
	}
	/* the renamed function's self cost is one line with both sides' values,
	 * each a large share of its side (diff_rename.c spends a third there) */
	ck_assert_msg(paired[0] > 0.1 * total[0] && paired[1] > 0.1 * total[1],
		      "hash_chunk's line: base %.2f new %.2f of %.2f / %.2f", paired[0], paired[1],
		      total[0], total[1]);
	ck_assert_msg(stray < 0.02 * total[1], "%.2f of %.2f under the new name", stray, total[1]);
	check_decimals(r.out, nruns);
	fmap_free(&got);
	fmap_free(&want[0]);
	fmap_free(&want[1]);
	res_free(&r);
}

/* Whether every line of `out` starts with `prefix` (or, for NULL, with
 * no command: its first frame is the root's, here never "app"). */
static bool lines_start(const char *out, const char *prefix)
{
	size_t n = 0;
	for (const char *l = out; *l; l = strchr(l, '\n') + 1, n++) {
		if (prefix ? strncmp(l, prefix, strlen(prefix)) != 0 : strncmp(l, "app", 3) == 0)
			return false;
		if (!strchr(l, '\n'))
			break;
	}
	return n > 0;
}

/*
 * A renamed binary: the two builds as app-a and app-b, whose command
 * names differ.  The new command is written as the base's, so both sides
 * pair (flamegraph.pl would otherwise draw the whole program as gone and
 * as new); --no-comm leaves the command out.  Each column sums to the
 * side's `report --format=folded`.
 */
static void check_renamed_binary(void)
{
	char data[2][PATHMAX];
	for (int side = 0; side < 2; side++) {
		char bin[PATHMAX], w[PATHMAX + 16];
		snprintf(bin, sizeof bin, "%s/%s/app-%c", P.dir, side ? "new" : "old", side ? 'b' : 'a');
		snprintf(data[side], PATHMAX, "%s/app-%c.data", P.dir, side ? 'b' : 'a');
		ck_assert(pd_test_compile("cc", side ? WFLAGS " -DPD_NEW" : WFLAGS, bin, WORKLOAD));
		snprintf(w, sizeof w, "'%s' 300", bin);
		ck_assert(pd_test_perf_record(data[side], "-q -N -e cpu-clock -g", w));
	}
	res r = run("diff --format=folded '%s' '%s'", data[0], data[1]);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_msg(lines_start(r.out, "app-a;"), "a line not under app-a:\n%s", r.out);
	fmap got = fmap_parse(r.out, 2, true);
	bool both = false;
	for (size_t i = 0; i < got.n; i++)
		both |= strstr(got.v[i].stack, ";process;hash_chunk") && got.v[i].v[0] > 0 &&
			got.v[i].v[1] > 0;
	ck_assert_msg(both, "no hash_chunk line with both sides:\n%s", r.out);
	fmap_free(&got);
	res_free(&r);

	r = run("diff --format=folded --no-comm '%s' '%s'", data[0], data[1]);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_msg(lines_start(r.out, NULL), "a line with a command:\n%s", r.out);
	got = fmap_parse(r.out, 2, true);
	double sum[2] = { 0, 0 };
	for (size_t i = 0; i < got.n; i++)
		for (int s = 0; s < 2; s++)
			sum[s] += got.v[i].v[s];
	for (int s = 0; s < 2; s++) {
		res rep = run("report --format=folded '%s'", data[s]);
		fmap one = fmap_parse(rep.out, 1, true);
		double total = 0;
		for (size_t i = 0; i < one.n; i++)
			total += one.v[i].v[0];
		ck_assert_msg(total > 0 && sum[s] == total, "side %d: %.0f in the lines, report %.0f",
			      s, sum[s], total);
		fmap_free(&one);
		res_free(&rep);
	}
	fmap_free(&got);
	res_free(&r);
}

START_TEST(test_folded)
{
	PD_SKIP_IF(P.skip);
	check_folded(1, "");
	check_folded(2, "");
	check_folded(1, "--weight=samples");
	check_folded(2, "--weight=samples");
	check_renamed_binary();

	/* the independent count: every sample of a run is in one stack */
	res r = run("diff --format=folded --weight=samples '%s' '%s'", P.runs[0][0], P.runs[1][0]);
	ck_assert_int_eq(r.status, 0);
	fmap got = fmap_parse(r.out, 2, true);
	double sum[2] = { 0, 0 };
	for (size_t i = 0; i < got.n; i++)
		for (int s = 0; s < 2; s++)
			sum[s] += got.v[i].v[s];
	fmap_free(&got);
	res_free(&r);
	for (int s = 0; s < 2; s++) {
		char cmd[2 * PATHMAX];
		snprintf(cmd, sizeof cmd, "perf script -F event -i '%s' 2>/dev/null | grep -c cpu-clock",
			 P.runs[s][0]);
		int st;
		char *out = pd_test_run(cmd, &st);
		ck_assert_ptr_nonnull(out);
		ck_assert_msg(sum[s] == atof(out), "side %d: %.0f samples in stacks, perf script %s",
			      s, sum[s], out);
		free(out);
	}

	/* what does not go with it */
	r = run("diff --weight=samples '%s' '%s'", P.runs[0][0], P.runs[1][0]);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "--weight"));
	res_free(&r);
	r = run("diff --no-comm '%s' '%s'", P.runs[0][0], P.runs[1][0]);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "--no-comm"));
	res_free(&r);
	r = run("diff --format=folded --fail-on=1 '%s' '%s'", P.runs[0][0], P.runs[1][0]);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "--fail-on"));
	res_free(&r);
	r = run("diff --format=folded --event=cycles '%s' '%s'", P.runs[0][0], P.runs[1][0]);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "no event 'cycles'"));
	res_free(&r);
	r = run("diff --help");
	ck_assert_ptr_nonnull(strstr(r.out, "folded"));
	ck_assert_ptr_nonnull(strstr(r.out, "--weight"));
	ck_assert_ptr_nonnull(strstr(r.out, "--no-comm"));
	res_free(&r);

	/* FlameGraph's reader, where it is installed (never required) */
	if (pd_test_sh_ok("command -v flamegraph.pl >/dev/null 2>&1")) {
		char cmd[5 * PATHMAX];
		snprintf(cmd, sizeof cmd,
			 "'%s' diff --format=folded '%s' '%s' -- '%s' '%s' "
			 "2>/dev/null | flamegraph.pl | grep -c '<title>'",
			 PD_CLI_PATH, P.runs[0][0], P.runs[0][1],
			 P.runs[1][0], P.runs[1][1]);
		int st;
		char *out = pd_test_run(cmd, &st);
		ck_assert_msg(out && atoi(out) > 3, "flamegraph.pl drew no frames");
		free(out);
	} else {
		fprintf(stderr, "note %s: flamegraph.pl not installed, its reading not checked\n",
			__func__);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("diff_cli");
	TCase *tc = tcase_create("cli");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_usage_errors);
	tcase_add_test(tc, test_color);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_identical);
	tcase_add_test(tc, test_different);
	tcase_add_test(tc, test_different_one_run);
	tcase_add_test(tc, test_runs);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_lkp);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_quiet_largest);
	tcase_add_test(tc, test_unknown_per_dso);
	suite_add_tcase(s, tc);
	TCase *rec = tcase_create("recorded");
	tcase_add_unchecked_fixture(rec, pair_setup, pair_teardown);
	tcase_set_timeout(rec, 300);
	tcase_add_test(rec, test_relations_first);
	tcase_add_test(rec, test_warnings_collapsed);
	tcase_add_test(rec, test_folded);
	tcase_add_test(rec, test_sort_limit);
	suite_add_tcase(s, rec);
	TCase *sides = tcase_create("sides");
	tcase_add_unchecked_fixture(sides, sides_setup, sides_teardown);
	tcase_set_timeout(sides, 300);
	tcase_add_test(sides, test_side_filters);
	tcase_add_test(sides, test_side_kallsyms);
	suite_add_tcase(s, sides);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
