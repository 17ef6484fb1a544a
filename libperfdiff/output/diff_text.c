/*
 * pd_diff_write() as text (`perfdiff diff`): what the robot cannot say
 * first — which -X/+X pairs are one shift of cost, with the rows each
 * explains — then the kernel test robot's compare table of the other
 * rows (so that a comparison reads like the robot's e-mails and lines up
 * with them), and what the numbers rest on.  PD_FORMAT_LKP
 * (--format=lkp) is the table alone, with the robot's own header.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* `s` escaped for a terminal line (pdo_escape_to()'s rules), malloc'd. */
static char *escaped(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	char *e = malloc(4 * n + 1);
	if (!e)
		return NULL;
	e[n ? pdo_escape_to(e, s, n) : 0] = '\0';
	return e;
}

/* "perf-profile.<metric>.<event>.<key>" (with PD_DIFF_ABSOLUTE
 * "perf-rate.…", whose change the robot's layout prints as relative),
 * malloc'd; NULL when memory runs out. */
static char *row_key(const pdo_diff *v, const pd_diff_row *r)
{
	const char *prefix = v->opts.flags & PD_DIFF_ABSOLUTE ? "perf-rate" : "perf-profile";
	const char *metric = pd_diff_metric_name(r->metric);
	const char *key = r->key ? r->key : "";
	size_t n = strlen(prefix) + strlen(metric ? metric : "") + strlen(v->event) +
		   strlen(key) + 4;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s.%s.%s.%s", prefix, metric ? metric : "", v->event, key);
	return s;
}

/* perf's --sort=comm,dso,...: the Command and Shared Object columns of
 * `r`, before its key. */
static void put_columns(const pdo_diff *v, const pd_diff_row *r, pd_writer *w)
{
	if (v->col_comm)
		pdo_printf(w, "%-*s  ", (int)v->col_comm, r->process ? r->process : "-");
	if (v->col_dso)
		pdo_printf(w, "%-*s  ", (int)v->col_dso, r->dso ? pdo_short_dso(r->dso) : "-");
}

typedef struct row_ref {
	const pd_diff_row *r;
	size_t i;
} row_ref;

static int cmp_metric_key(const void *a, const void *b)
{
	const pd_diff_row *x = ((const row_ref *)a)->r, *y = ((const row_ref *)b)->r;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return strcmp(x->key ? x->key : "", y->key ? y->key : "");
}

/* For each row, whether another row of its metric has the same key (then
 * the dso tells them apart).  NULL when memory runs out or there are no
 * rows. */
static bool *shared_keys(const pd_diff *d)
{
	size_t n = pd_diff_row_count(d);
	if (n == 0)
		return NULL;
	bool *dup = calloc(n, sizeof *dup);
	row_ref *refs = malloc(n * sizeof *refs);
	if (!dup || !refs) {
		free(dup);
		free(refs);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		refs[i] = (row_ref){ pd_diff_row_at(d, i), i };
	qsort(refs, n, sizeof *refs, cmp_metric_key);
	for (size_t i = 1; i < n; i++)
		if (cmp_metric_key(&refs[i - 1], &refs[i]) == 0)
			dup[refs[i - 1].i] = dup[refs[i].i] = true;
	free(refs);
	return dup;
}

/* One table row, with the dso when `with_dso`, and when `marks` a
 * "(n.s.)" mark if it is not significant; no newline.  -1 when memory
 * runs out. */
static int put_row_plain(const pdo_diff *v, const pd_diff_row *r, bool with_dso, bool marks,
		   pd_writer *w)
{
	char *key = row_key(v, r);
	char *ekey = key ? escaped(key) : NULL;
	free(key);
	if (!ekey)
		return -1;
	size_t need = pd_diff_format_lkp_row(NULL, 0, r->base.mean, r->base.stddev,
					     r->new.mean, r->new.stddev, ekey);
	char *line = malloc(need + 1);
	if (!line) {
		free(ekey);
		return -1;
	}
	pd_diff_format_lkp_row(line, need + 1, r->base.mean, r->base.stddev, r->new.mean,
			       r->new.stddev, ekey);
	/* the key ends the robot's line: the columns go just before it */
	size_t klen = strlen(ekey), llen = strlen(line);
	if ((v->col_comm || v->col_dso) && llen >= klen && strcmp(line + llen - klen, ekey) == 0) {
		line[llen - klen] = '\0';
		pdo_puts(w, line);
		put_columns(v, r, w);
		pdo_puts(w, ekey);
	} else {
		pdo_puts(w, line);
	}
	free(line);
	free(ekey);
	if (with_dso && r->dso) {
		const char *sd = pdo_short_dso(r->dso);
		/* "[kernel.kallsyms]" is bracketed already */
		pdo_puts(w, sd[0] == '[' ? " " : " [");
		pdo_put_escaped(w, sd);
		if (sd[0] != '[')
			pdo_putc(w, ']');
	}
	if (marks && !r->significant)
		pdo_puts(w, "  (n.s.)");
	return 0;
}

/* ANSI colours as git diff and perf use them: a cost that grew is red, one
 * that fell green, what is not significant dim. */
#define COLOR_RED "\033[31m"
#define COLOR_GREEN "\033[32m"
#define COLOR_DIM "\033[2m"
#define COLOR_RESET "\033[m"

/* The colour of a line of the text (not of the robot's layout), or NULL. */
static const char *color_of(const pdo_diff *v, bool significant, double change)
{
	if (!v->color)
		return NULL;
	if (!significant)
		return COLOR_DIM;
	return change > 0 ? COLOR_RED : change < 0 ? COLOR_GREEN : NULL;
}

/* One row: put_row_plain() coloured in the text (`text`), not in the
 * robot's layout. */
static int put_row(const pdo_diff *v, const pd_diff_row *r, bool with_dso, bool marks,
		   bool text, pd_writer *w)
{
	const char *color = text ? color_of(v, r->significant, r->change) : NULL;
	if (color)
		pdo_puts(w, color);
	int rc = put_row_plain(v, r, with_dso, marks, w);
	if (color)
		pdo_puts(w, COLOR_RESET);
	return rc;
}

static void put_perf_header(pd_writer *w)
{
	/* the robot's, trailing blanks included */
	pdo_puts(w, "         %stddev     %change         %stddev\n"
	      "             \\          |                \\  \n");
}

/* The robot's column title: the side's file names, cut to the column. */
static void put_title(const pdo_diff *v, int side, int width, pd_writer *w)
{
	char buf[64];
	size_t len = 0;
	for (size_t i = 0; i < v->nfiles[side] && len < (size_t)width; i++) {
		const char *path = v->files[side][i];
		const char *base = strrchr(path, '/');
		base = base && base[1] ? base + 1 : path;
		if (i && len < (size_t)width)
			buf[len++] = ',';
		for (const char *c = base; *c && len < (size_t)width; c++)
			buf[len++] = (*c > ' ' && *c < 0x7f) ? *c : '?';
	}
	buf[len] = '\0';
	pdo_printf(w, "%*s ", width, buf);
}

/* The columns' titles: which side is which, by name and by file. */
static void put_labels(const pdo_diff *v, pd_writer *w)
{
	pdo_printf(w, "%16s %27s\n", "BASE", "NEW");
	put_title(v, 0, 16, w);
	put_title(v, 1, 27, w);
	pdo_puts(w, "\n---------------- --------------------------- \n");
	put_perf_header(w);
	if (v->col_comm || v->col_dso) {
		pdo_printf(w, "%44s", "");
		if (v->col_comm)
			pdo_printf(w, "%-*s  ", (int)v->col_comm, "Command");
		if (v->col_dso)
			pdo_printf(w, "%-*s  ", (int)v->col_dso, "Shared Object");
		pdo_puts(w, "Key\n");
	}
}

/* The robot's table (--format=lkp): its rows by significance alone. */
static bool dv_lkp_shown(const pdo_diff *v, const pd_diff_row *r)
{
	return (v->all || r->significant) && r->metric != PD_DIFF_SHIFT && pdo_row_kept(v, r);
}

/* A row of the main table: shown and not part of an explained shift,
 * which lists its own rows. */
static bool in_table(const pdo_diff *v, const pd_diff_row *r)
{
	return pdo_row_shown(v, r) && !r->relation;
}

/* The table's rows; *shown counts them.  -1 when memory runs out. */
static int put_rows(const pdo_diff *v, bool text, size_t *shown, pd_writer *w)
{
	size_t n = pd_diff_row_count(v->d);
	bool *dup = text ? shared_keys(v->d) : NULL;
	if (text && n && !dup)
		return -1;
	*shown = 0;
	int rc = 0;
	for (size_t k = 0; k < n && rc == 0; k++) {
		size_t i = v->order[k];
		const pd_diff_row *r = pd_diff_row_at(v->d, i);
		if (text ? !in_table(v, r) : !dv_lkp_shown(v, r))
			continue;
		if ((*shown)++ == 0)
			text ? put_labels(v, w) : put_perf_header(w);
		/* "[unknown]" alone says nothing: which dso it is in does */
		bool unknown = r->symbol && strcmp(r->symbol, "[unknown]") == 0;
		rc = put_row(v, r, (dup && dup[i]) || (text && unknown), text && v->all, text, w);
		pdo_putc(w, '\n');
	}
	free(dup);
	return rc;
}

/* Nothing significant: the largest changes all the same, each marked,
 * under the table's labels; *shown counts them.  -1 without memory. */
static int put_largest(const pdo_diff *v, size_t *shown, pd_writer *w)
{
	size_t top[PDO_LARGEST];
	*shown = pdo_largest_changes(v, top, PDO_LARGEST);
	if (*shown == 0)
		return 0;
	bool *dup = shared_keys(v->d);
	if (!dup)
		return -1;
	pdo_puts(w, "no significant change; the largest changes, none significant:\n");
	put_labels(v, w);
	int rc = 0;
	for (size_t k = 0; k < *shown && rc == 0; k++) {
		const pd_diff_row *r = pd_diff_row_at(v->d, top[k]);
		bool unknown = r->symbol && strcmp(r->symbol, "[unknown]") == 0;
		rc = put_row(v, r, dup[top[k]] || unknown, true, true, w);
		pdo_putc(w, '\n');
	}
	free(dup);
	return rc;
}

/* "a + b + c" of a relation side, escaped. */
static void put_symbols(const char *const *syms, size_t n, const char *first, pd_writer *w)
{
	if (!syms || n == 0) {
		pdo_put_escaped(w, first ? first : "?");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			pdo_puts(w, " + ");
		pdo_put_escaped(w, syms[i] ? syms[i] : "?");
	}
}

/* As the robot prints a change: "%.2g" once it is huge (a relative change
 * from 0, with --absolute). */
static void put_change(double x, pd_writer *w)
{
	pdo_printf(w, x < 100000 && x > -100000 ? "%+.1f" : "%+.2g", x);
}

/* Whether a row of a symbol named `sym` shares its key with a row of
 * another dso (`dup`, shared_keys()): its name alone does not say which. */
static bool name_shared(const pdo_diff *v, const bool *dup, const char *sym)
{
	for (size_t i = 0; dup && sym && i < pd_diff_row_count(v->d); i++) {
		const pd_diff_row *r = pd_diff_row_at(v->d, i);
		if (dup[i] && r->symbol && strcmp(r->symbol, sym) == 0)
			return true;
	}
	return false;
}

static void put_dso(const char *dso, pd_writer *w)
{
	const char *sd = pdo_short_dso(dso);
	pdo_puts(w, sd[0] == '[' ? " " : " [");  /* "[kernel.kallsyms]" is bracketed */
	pdo_put_escaped(w, sd);
	if (sd[0] != '[')
		pdo_putc(w, ']');
}

static void put_relation_line(const pdo_diff *v, const pd_diff_relation *rel,
			      const bool *dup, pd_writer *w)
{
	const char *color = color_of(v, rel->row && rel->row->significant, rel->net);
	pdo_puts(w, "  ");
	if (color)
		pdo_puts(w, color);
	if (rel->kind == PD_REL_MOVED) {
		pdo_put_escaped(w, rel->base_symbol ? rel->base_symbol : "?");
		pdo_puts(w, ": ");
		pdo_put_escaped(w, rel->base_parent ? rel->base_parent : "[root]");
		pdo_puts(w, " -> ");
		pdo_put_escaped(w, rel->new_parent ? rel->new_parent : "[root]");
	} else {
		put_symbols(rel->base_symbols, rel->nbase_symbols, rel->base_symbol, w);
		pdo_puts(w, " -> ");
		put_symbols(rel->new_symbols, rel->nnew_symbols, rel->new_symbol, w);
	}
	/* two functions of one name: the dso says which this is */
	if (rel->dso && (name_shared(v, dup, rel->base_symbol) || name_shared(v, dup, rel->new_symbol)))
		put_dso(rel->dso, w);
	const char *kind = pd_diff_relation_kind_name(rel->kind);
	pdo_printf(w, " (%s)  ", kind ? kind : "?");
	put_change(rel->base_change, w);
	pdo_puts(w, " -> ");
	put_change(rel->new_change, w);
	pdo_puts(w, "  net ");
	put_change(rel->net, w);
	if (rel->row && !rel->row->significant)
		pdo_puts(w, "  (n.s.)");
	if (color)
		pdo_puts(w, COLOR_RESET);
	pdo_putc(w, '\n');
	if (rel->evidence && rel->evidence[0]) {
		pdo_puts(w, "      ");
		pdo_put_escaped(w, rel->evidence);
		pdo_putc(w, '\n');
	}
}

/* A row of shift `rel` printed under it: by default the flat rows of its
 * own symbols (its halves), with --all every row it explains. */
static bool half_of(const pdo_diff *v, const pd_diff_relation *rel, const pd_diff_row *r)
{
	if (r->relation != rel || r->metric == PD_DIFF_SHIFT || !pdo_row_shown(v, r))
		return false;
	if (v->all)
		return true;
	if (r->metric != PD_DIFF_CHILDREN && r->metric != PD_DIFF_SELF)
		return false;
	for (size_t i = 0; i < rel->nbase_symbols; i++)
		if (r->symbol && strcmp(r->symbol, rel->base_symbols[i]) == 0)
			return true;
	for (size_t i = 0; i < rel->nnew_symbols; i++)
		if (r->symbol && strcmp(r->symbol, rel->new_symbols[i]) == 0)
			return true;
	return false;
}

/* The shift, then the rows it explains (*rows counts them); the others
 * it explains counted. */
static int put_relation(const pdo_diff *v, const pd_diff_relation *rel, const bool *dup,
			size_t *rows, pd_writer *w)
{
	put_relation_line(v, rel, dup, w);
	size_t n = pd_diff_row_count(v->d), more = 0;
	int rc = 0;
	for (size_t k = 0; k < n && rc == 0; k++) {
		const pd_diff_row *r = pdo_diff_row(v, k);
		if (half_of(v, rel, r)) {
			bool unknown = r->symbol && strcmp(r->symbol, "[unknown]") == 0;
			rc = put_row(v, r, unknown || (dup && dup[v->order[k]]), false, true, w);
			pdo_putc(w, '\n');
			(*rows)++;
		} else if (r->relation == rel && r->metric != PD_DIFF_SHIFT) {
			more++;
		}
	}
	if (more)
		pdo_printf(w, "      (%zu more row%s through it: --all lists them)\n", more,
			more == 1 ? "" : "s");
	return rc;
}

/* Seconds when the event's period is time (ns): what "total period"
 * means to a reader of a cpu-clock profile; 0 otherwise. */
static double period_seconds(const pdo_diff *v, uint64_t period)
{
	const char *ev = pd_diff_event(v->d);
	size_t n = ev ? strcspn(ev, ":") : 0;
	bool ns = (n == 9 && strncmp(ev, "cpu-clock", 9) == 0) ||
		  (n == 10 && strncmp(ev, "task-clock", 10) == 0);
	return ns ? (double)period / 1e9 : 0;
}

static void put_side(const pdo_diff *v, int side, pd_writer *w)
{
	size_t runs = v->nruns[side];
	pdo_printf(w, "%s %zu run%s (", side ? "new: " : "base:", runs, runs == 1 ? "" : "s");
	for (size_t i = 0; i < v->nfiles[side]; i++) {
		if (i)
			pdo_puts(w, ", ");
		pdo_put_escaped(w, v->files[side][i]);
	}
	uint64_t total = pd_diff_total(v->d, side, SIZE_MAX);
	pdo_printf(w, "), %llu samples, total period %llu",
		(unsigned long long)pd_diff_samples(v->d, side, SIZE_MAX),
		(unsigned long long)total);
	double sec = period_seconds(v, total);
	if (sec > 0)
		pdo_printf(w, " (%.2f s of CPU time)", sec);
	pdo_putc(w, '\n');
}

/* The range of the processes' priors: the rows of each process are
 * shrunk toward their own. */
static void put_process_priors(const pd_diff *d, pd_writer *w)
{
	double lo = INFINITY, hi = 0;
	size_t n = pd_diff_process_count(d), own = 0;
	for (size_t i = 0; i < n; i++) {
		const pd_diff_process *p = pd_diff_process_at(d, i);
		if (!p->prior_rows)
			continue;
		own++;
		lo = fmin(lo, p->phi0);
		hi = fmax(hi, p->phi0);
	}
	pdo_printf(w, "test: moderated t-test over the runs of each side (run-to-run variation,\n"
		      "      each row's shrunk toward the rows of its own process");
	if (own)
		pdo_printf(w, ": %.2fx to\n      %.2fx sampling variance over %zu processes)\n",
			   lo, hi, own);
	else
		pdo_puts(w, ")\n");
}

/* Which variance the test used, in words. */
static void put_test(const pdo_diff *v, pd_writer *w)
{
	double phi0, d0, bphi = 0, bd0 = 0;
	size_t blocks[2] = { 0, 0 };
	bool have_blocks = pd_diff_block_prior(v->d, &bphi, &bd0, NULL, blocks);
	switch (pd_diff_test(v->d)) {
	case PD_DIFF_TEST_MODERATED_T:
		pd_diff_test_prior(v->d, &phi0, &d0, NULL);
		if (pd_diff_process_count(v->d) > 1)
			put_process_priors(v->d, w);
		else
			pdo_printf(w,
				"test: moderated t-test over the runs of each side (run-to-run "
				"variation,\n      each row's shrunk toward all rows': %.2fx sampling "
				"variance, %.1f df)\n",
				phi0, d0);
		if (have_blocks)
			pdo_printf(w,
				"      never below the variation within each run's time blocks (%.2fx)\n",
				bphi);
		break;
	case PD_DIFF_TEST_BLOCKS:
		pdo_printf(w,
			"test: moderated t-test over each run's time blocks (%zu and %zu blocks):\n"
			"      the variation within the runs, bursts of other load included (%.2fx\n"
			"      sampling variance, %.1f df); one run a side cannot show the variation\n"
			"      between runs (record several runs per side and pass them all)\n",
			blocks[0], blocks[1], bphi, bd0);
		if (pd_diff_process_count(v->d))
			pdo_puts(w, "      each row's share within its processes, whatever share of the\n"
				    "      machine they had in each recording\n");
		break;
	default:
		pdo_puts(w, "test: two-proportion z-test on the sample counts: with one run on a\n"
		      "      side and no time blocks only sampling noise is covered, not the\n"
		      "      variation within or between runs (record several runs per side)\n");
		if (pd_diff_process_count(v->d))
			pdo_puts(w, "      each row's share within its processes (Cochran-Mantel-"
				    "Haenszel)\n");
	}
	double infl = pd_diff_inflation(v->d);
	if (infl > 1 && pd_diff_process_count(v->d))
		pdo_printf(w, "      some processes' rows vary more than that as a whole: their\n"
			   "      variances raised by up to %.2fx (genomic control)\n", infl);
	else if (infl > 1)
		pdo_printf(w, "      the rows vary %.2fx more than that as a whole: every variance\n"
			   "      raised by that factor (genomic control)\n", infl);
	if (!(v->opts.flags & PD_DIFF_NO_ALIGN))
		pdo_printf(w, "shifts: costs beyond 3 sd of each side's own variation (%.2fx and %.2fx\n"
			   "      sampling variance within runs)\n",
			pd_diff_noise(v->d, 0), pd_diff_noise(v->d, 1));
}

static void put_footer(const pdo_diff *v, size_t shown, size_t rels_hidden, pd_writer *w)
{
	bool abs_mode = v->opts.flags & PD_DIFF_ABSOLUTE;
	for (int side = 0; side < 2; side++) {
		put_side(v, side, w);
		pdo_facts_text(w, &v->facts[side]);
	}
	pdo_puts(w, "event: ");
	pdo_put_escaped(w, pd_diff_event(v->d));
	pdo_putc(w, '\n');
	/* programs compared under two names: rows name them by the base's */
	const char *bd, *nd;
	double sim;
	for (size_t i = 0; pd_diff_dso_pair_at(v->d, i, &bd, &nd, &sim); i++) {
		pdo_puts(w, "dso: ");
		pdo_put_escaped(w, bd);
		pdo_puts(w, " ~ ");
		pdo_put_escaped(w, nd);
		pdo_printf(w, " (%.0f %% of symbol names shared)\n", 100 * sim);
	}
	put_test(v, w);
	pdo_printf(w, "significant: |change| >= %g %s and Benjamini-Hochberg q-value <= %g\n"
		   "      over the %zu rows that could reach both\n",
		   v->opts.min_change, abs_mode ? "%" : "points", v->opts.fdr,
		   pd_diff_tested_count(v->d));
	size_t n = pd_diff_row_count(v->d);
	if (shown < n && v->percent_limit > 0)
		pdo_printf(w, "%zu of %zu rows not shown: below %g %% on both sides, not "
			"significant, or through a shift\n", n - shown, n, v->percent_limit);
	else if (shown < n)
		pdo_printf(w, "%zu of %zu rows not shown: not significant, or through a shift "
			"(--all shows them)\n", n - shown, n);
	if (rels_hidden)
		pdo_printf(w, "%zu explained shift%s of rows that did not change significantly, "
			"not shown\n", rels_hidden, rels_hidden == 1 ? "" : "s");
}

/* The explained shifts that are listed (pdo_rel_listed), each with the
 * rows it explains; *listed counts them, *rows the rows printed. */
static int put_relations(const pdo_diff *v, size_t *listed, size_t *rows, pd_writer *w)
{
	size_t nrel = pd_diff_relation_count(v->d);
	*listed = *rows = 0;
	bool *dup = shared_keys(v->d);
	if (!dup && pd_diff_row_count(v->d))
		return -1;
	int rc = 0;
	for (size_t i = 0; i < nrel && rc == 0; i++) {
		const pd_diff_relation *rel = pd_diff_relation_at(v->d, i);
		if (!pdo_rel_listed(v, rel))
			continue;
		if ((*listed)++ == 0)
			pdo_puts(w, "explained shifts (base -> new, the changes of each side's children\n"
			      "row and the net change once the cost is carried across; a shift is\n"
			      "significant by its net change, and so are the rows it explains):\n");
		rc = put_relation(v, rel, dup, rows, w);
		(*rows)++;  /* its shift row, as its first line */
	}
	free(dup);
	if (*listed)
		pdo_putc(w, '\n');
	return rc;
}

int pdo_diff_text(const pdo_diff *v)
{
	pd_writer *w = v->w;
	size_t shown, listed, explained;
	if (put_relations(v, &listed, &explained, w) < 0 || put_rows(v, true, &shown, w) < 0)
		return pdo_nomem(v->err);
	if (shown == 0 && !listed && put_largest(v, &shown, w) < 0)
		return pdo_nomem(v->err);
	if (shown == 0)
		pdo_puts(w, listed ? "no other significant change\n" : "no significant change\n");
	pdo_putc(w, '\n');
	if (pd_diff_lkp_table(v->d, NULL, NULL))  /* a robot's table: explain.c */
		pdo_diff_table_footer(v, shown + explained, pd_diff_relation_count(v->d) - listed, w);
	else
		put_footer(v, shown + explained, pd_diff_relation_count(v->d) - listed, w);
	return 0;
}

int pdo_diff_lkp(const pdo_diff *v)
{
	pd_writer *w = v->w;
	/* widths: the robot's ABS_WIDTH + ERR_WIDTH, then + REL_WIDTH + 1 */
	put_title(v, 0, 16, w);
	put_title(v, 1, 27, w);
	pdo_putc(w, '\n');
	pdo_puts(w, "---------------- --------------------------- \n");
	size_t shown;
	if (put_rows(v, false, &shown, w) < 0)
		return pdo_nomem(v->err);
	if (shown == 0)
		put_perf_header(w);
	return 0;
}
