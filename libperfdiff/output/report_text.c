/*
 * pd_report_write() as text (`perfdiff report`): per event a header and
 * a children/self table in the layout of `perf report --children --stdio`,
 * each row followed by its call chains drawn as perf draws its graph: a
 * chain that continues with all of its weight goes straight down without
 * a new branch, so deep kernel paths stay narrow.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report_ahead.h"

#define ROW_INDENT 12   /* chains start under the Self column, as in perf */

static void put_name(pd_writer *w, const char *sym, bool inlined)
{
	pdo_put_escaped(w, sym ? sym : "[unknown]");
	if (inlined)
		pdo_puts(w, " (inlined)");
}

static void put_pct_trim(pd_writer *w, uint64_t v, uint64_t total)
{
	pdo_put_pct(w, v, total, 0);
}

static size_t pct_len(uint64_t v, uint64_t total)
{
	uint64_t hundredths = pdo_hundredths(v, total);
	size_t n = 4; /* "d.dd" */
	for (uint64_t x = hundredths / 100; x >= 10; x /= 10)
		n++;
	return n;
}

typedef struct prefix {
	char *s;
	size_t len, cap;
} prefix;

static bool prefix_set(prefix *p, size_t at, const char *s, size_t n, size_t pad)
{
	size_t need = at + n + pad + 1;
	if (need > p->cap) {
		size_t cap = p->cap ? p->cap : 256;
		while (cap < need)
			cap *= 2;
		char *x = realloc(p->s, cap);
		if (!x)
			return false;
		p->s = x;
		p->cap = cap;
	}
	memcpy(p->s + at, s, n);
	memset(p->s + at + n, ' ', pad);
	p->len = at + n + pad;
	return true;
}

typedef struct walk {
	const size_t *kids;     /* children, drawn in this order */
	size_t nkids, next;
	uint64_t total;
	size_t plen;
} walk;

static int cmp_root(const size_t *a, const size_t *b, const pd_chain_tree *t)
{
	const pd_chain_node *x = pd_chain_tree_node(t, *a);
	const pd_chain_node *y = pd_chain_tree_node(t, *b);
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	int c = strcmp(x->symbol ? x->symbol : "", y->symbol ? y->symbol : "");
	if (c)
		return c;
	return *a < *b ? -1 : 1;
}

/* Sort roots by total descending, then name, as perf sorts a level. */
static void sort_roots(size_t *v, size_t n, const pd_chain_tree *t)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_root(&v[j - 1], &v[j], t) > 0; j--) {
			size_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
}

/*
 * The chains of one row as a tree; -1 when memory runs out.  Node 0 is
 * the entry; in caller order the samples whose leaf is the entry come as
 * further roots (their whole chains, as perf hangs them).  One root goes
 * straight down from "---"; several branch from the row like children.
 * The entry's own root is a branch like the others: below `min` (the
 * threshold) perf leaves it out, as it does every lighter node.
 */
static int put_chains(pd_writer *w, const pd_chain_tree *t, uint64_t total, uint64_t min)
{
	const pd_chain_node *root = pd_chain_tree_node(t, 0);
	if (!root)
		return 0;
	size_t nroots = 0, nt = pd_chain_tree_size(t);
	while (nroots + 1 < nt && pd_chain_tree_node(t, nroots + 1)->parent == SIZE_MAX)
		nroots++;
	bool own = root->total && root->total >= min;
	if (own)
		nroots++;
	else if (nroots == 0)
		return 0;
	if (nroots == 1 && own && root->nchildren == 0)
		return 0;
	prefix pf = { 0 };
	walk *st = NULL;
	size_t depth = 0, cap = 64;
	size_t *roots = malloc(nroots * sizeof *roots);
	int rc = -1;
	st = malloc(cap * sizeof *st);
	if (!roots || !st || !prefix_set(&pf, 0, "", 0, ROW_INDENT + 3))
		goto out;
	size_t nr = 0;
	if (own)
		roots[nr++] = 0;
	for (size_t i = 1; nr < nroots; i++)
		roots[nr++] = i;
	sort_roots(roots, nroots, t);
	if (nroots == 1) {
		const pd_chain_node *r = pd_chain_tree_node(t, roots[0]);
		pdo_putn(w, pf.s, ROW_INDENT);
		pdo_puts(w, "|\n");
		pdo_putn(w, pf.s, ROW_INDENT);
		pdo_puts(w, "---");
		put_name(w, r->symbol, r->inlined);
		pdo_putc(w, '\n');
		st[depth++] = (walk){ r->children, r->nchildren, 0, r->total, ROW_INDENT + 3 };
	} else {
		st[depth++] = (walk){ roots, nroots, 0, 0, ROW_INDENT };
	}
	while (depth) {
		walk *wk = &st[depth - 1];
		if (wk->next == wk->nkids) {
			depth--;
			continue;
		}
		size_t ki = wk->kids[wk->next++];
		bool last = wk->next == wk->nkids;
		const pd_chain_node *k = pd_chain_tree_node(t, ki);
		size_t plen = wk->plen;
		size_t child_plen;
		/* the branch below writes the prefix twice */
		if (!pdo_reserve(w, 2 * plen + 64))
			goto out;
		if (wk->nkids == 1 && k->total == wk->total) {
			/* the whole weight goes on: straight down, no branch */
			pdo_putn_r(w, pf.s, plen);
			put_name(w, k->symbol, k->inlined);
			pdo_putc(w, '\n');
			child_plen = plen;
		} else {
			pdo_putn_r(w, pf.s, plen);
			pdo_putn_r(w, "|\n", 2);
			pdo_putn_r(w, pf.s, plen);
			pdo_putn_r(w, last ? " --" : "|--", 3);
			put_pct_trim(w, k->total, total);
			pdo_puts(w, "%--");
			put_name(w, k->symbol, k->inlined);
			pdo_putc(w, '\n');
			/* under the branch: a bar while siblings follow, then room
			 * for "--12.34%--" */
			size_t pad = 2 + pct_len(k->total, total) + 3;
			if (!prefix_set(&pf, plen, last ? " " : "|", 1, pad))
				goto out;
			child_plen = plen + 1 + pad;
		}
		if (depth == cap) {
			walk *x = realloc(st, 2 * cap * sizeof *x);
			if (!x)
				goto out;
			st = x;
			cap *= 2;
		}
		st[depth++] = (walk){ k->children, k->nchildren, 0, k->total, child_plen };
		if (pdo_flush_some(w) < 0)
			goto out;
	}
	pdo_putc(w, '\n');
	rc = 0;
out:
	free(roots);
	free(pf.s);
	free(st);
	return rc;
}

/* What the runs' numbers rest on, where it changes what they mean: an
 * input cut short, samples lost above 5 %, filter values that matched
 * nothing (facts.c). */
static void put_run_facts(pd_writer *w, const pd_profile *p, size_t r)
{
	if (pd_profile_run_truncated(p, r))
		pdo_puts(w, "#     truncated: records after the cut are missing\n");
	uint64_t lost = pd_profile_lost(p, r), read = pd_profile_run_samples_read(p, r);
	if (lost && (double)lost > 0.05 * (double)(lost + read))
		pdo_printf(w, "#     %.1f %% of the samples were lost while recording\n",
			   100.0 * (double)lost / (double)(lost + read));
}

static void put_unmatched(pd_writer *w, const pd_profile *p)
{
	const char **v;
	size_t n = pdo_unmatched_filters(p, &v);
	for (size_t i = 0; i < n; i++) {
		pdo_puts(w, i ? ", " : "# filters that matched nothing: ");
		pdo_put_escaped(w, v[i]);
	}
	if (n)
		pdo_putc(w, '\n');
	free(v);
}

static void put_header(pd_writer *w, const pd_profile *p, const pdo_report *r)
{
	size_t runs = pd_profile_run_count(p);
	char tmp[256];
	snprintf(tmp, sizeof tmp, "# perfdiff report: %zu run%s\n", runs, runs == 1 ? "" : "s");
	pdo_puts(w, tmp);
	for (size_t r = 0; r < runs; r++) {
		snprintf(tmp, sizeof tmp, "#   run %zu: ", r);
		pdo_puts(w, tmp);
		pdo_put_escaped(w, pd_profile_run_path(p, r));
		snprintf(tmp, sizeof tmp, " (lost samples: %" PRIu64 ")\n", pd_profile_lost(p, r));
		pdo_puts(w, tmp);
		put_run_facts(w, p, r);
	}
	put_unmatched(w, p);
	unsigned flags = r->popts->flags, sflags = r->popts->session->flags;
	snprintf(tmp, sizeof tmp, "# symbols: %s, %s, %s%s\n",
		 flags & PD_PROFILE_KEEP_SUFFIXES ? "clone suffixes kept"
						  : "clone suffixes folded",
		 sflags & PD_SESSION_NO_INLINE ? "no inline frames" : "inline frames",
		 sflags & PD_SESSION_PERF_COMPAT ? "return addresses as perf"
						 : "return addresses - 1",
		 flags & PD_PROFILE_HIDE_UNRESOLVED ? ", unresolved samples hidden (-U)" : "");
	pdo_puts(w, tmp);
	pdo_origins_text(w, p, "# ", r->o.all_origins);
	pdo_puts(w, "#\n");
}

static void put_event_header(pd_writer *w, const pd_profile *p, size_t ev, const pdo_report *r)
{
	const pd_report_write_options *o = &r->o;
	char tmp[512];
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	pdo_puts(w, "# Event '");
	pdo_put_escaped(w, pd_profile_event_name(p, ev));
	snprintf(tmp, sizeof tmp,
		 "'\n# Samples: %" PRIu64 "  Event count: %" PRIu64 "\n",
		 pd_profile_samples(p, ev, SIZE_MAX), total);
	pdo_puts(w, tmp);
	uint64_t unres = pd_profile_unresolved(p, ev, SIZE_MAX);
	if (unres) {
		bool hidden = r->popts->flags & PD_PROFILE_HIDE_UNRESOLVED;
		uint64_t denom = hidden ? total + unres : total;
		pdo_puts(w, "# Samples with an unresolved leaf: ");
		pdo_put_pct(w, unres, denom, 0);
		pdo_puts(w, hidden ? "% of the period, left out (-U)\n" : "% of the period\n");
	}
	pdo_stack_filters_text(w, p, ev, "# ");
	uint64_t fewest = UINT64_MAX;
	for (size_t run = 0; run < pd_profile_run_count(p); run++)
		if (pd_profile_samples(p, ev, run) < fewest)
			fewest = pd_profile_samples(p, ev, run);
	if (fewest < PDO_FEW_SAMPLES)
		pdo_printf(w, "# Too few samples: %" PRIu64 " in a run, fewer than %d: "
			   "shares are coarse\n", fewest, PDO_FEW_SAMPLES);
	/* a peek and perf's sort keys draw no chains */
	if (o->chains && !o->peek && !o->sort_keys && !o->nr_samples)
		pdo_puts(w, o->order == PD_CHAIN_CALLER ? "# Chains: caller order (what each symbol calls)\n"
						       : "# Chains: callee order (who calls each symbol)\n");
	pdo_puts(w, "#\n");
}

typedef struct row_sort {
	const pd_flat_entry *e;
	size_t i;
} row_sort;

static int cmp_self(const void *a, const void *b)
{
	const row_sort *x = a, *y = b;
	if (x->e->self != y->e->self)
		return x->e->self > y->e->self ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The rows of an event above the limit, in the order written, and the
 * width of the dso column; NULL when memory runs out. */
static row_sort *select_rows(const pdo_report *r, const pd_flat_entry *fl, size_t n,
			     uint64_t row_min, size_t *nrows, size_t *width)
{
	row_sort *rows = malloc((n ? n : 1) * sizeof *rows);
	if (!rows)
		return NULL;
	*nrows = 0;
	*width = 13; /* "Shared Object" */
	for (size_t i = 0; i < n; i++) {
		uint64_t key = r->o.sort_self ? fl[i].self : fl[i].children;
		if (key == 0 || key < row_min)
			continue;
		rows[(*nrows)++] = (row_sort){ &fl[i], i };
		size_t dw = strlen(pdo_short_dso(fl[i].dso));
		if (dw > *width)
			*width = dw > 40 ? 40 : dw;
	}
	if (r->o.sort_self)
		qsort(rows, *nrows, sizeof *rows, cmp_self);
	return rows;
}

/* perf's colours of a percentage (percent_color_snprintf): red from 5 %,
 * green from 0.5 %; the column as perf prints it, its colour around it. */
static void put_pct_colored(pd_writer *w, uint64_t v, uint64_t total, unsigned width,
			    bool color)
{
	uint64_t h = pdo_hundredths(v, total);
	const char *c = !color ? NULL : h >= 500 ? "\033[31m" : h >= 50 ? "\033[32m" : NULL;
	if (c)
		pdo_puts(w, c);
	pdo_put_pct(w, v, total, width);
	pdo_putc(w, '%');
	if (c)
		pdo_puts(w, "\033[m");
}

static void put_row(pd_writer *w, const pd_flat_entry *e, uint64_t total, size_t width,
		    bool color)
{
	if (!pdo_reserve(w, 64))
		return;
	put_pct_colored(w, e->children, total, 9, color);
	pdo_putc(w, ' ');
	put_pct_colored(w, e->self, total, 8, color);
	pdo_puts(w, "  ");
	const char *dso = pdo_short_dso(e->dso);
	pdo_put_escaped(w, dso);
	for (size_t k = strlen(dso); k < width; k++)
		pdo_putc(w, ' ');
	pdo_puts(w, e->kernel ? "  [k] " : "  [.] ");
	put_name(w, e->symbol, e->inlined);
	pdo_putc(w, '\n');
}

/* The rows that get chains, whose trees are built ahead on a second
 * thread (report_ahead.h) while the rows before them are written. */
static int start_chains(const pdo_report *r, size_t ev, const row_sort *rows, size_t nrows,
			uint64_t chain_min, size_t **centries, report_ahead **ahead)
{
	*ahead = NULL;
	*centries = malloc((nrows ? nrows : 1) * sizeof **centries);
	if (!*centries)
		return pdo_nomem(r->err);
	size_t nchains = 0;
	for (size_t k = 0; r->o.chains && k < nrows; k++)
		if (rows[k].e->children >= chain_min)
			(*centries)[nchains++] = rows[k].i;
	if (nchains == 0)
		return 0;
	*ahead = report_ahead_start(r->p, ev, *centries, nchains, r->o.order, chain_min);
	return *ahead ? 0 : pdo_nomem(r->err);
}

static int put_rows(const pdo_report *r, size_t ev, const row_sort *rows, size_t nrows,
		    size_t width)
{
	pd_writer *w = r->w;
	uint64_t total = pd_profile_total(r->p, ev, SIZE_MAX);
	uint64_t chain_min = (uint64_t)((double)total * r->o.threshold / 100.0);
	size_t *centries;
	report_ahead *ahead;
	int rc = start_chains(r, ev, rows, nrows, chain_min, &centries, &ahead);
	size_t ci = 0;
	for (size_t k = 0; k < nrows && rc == 0 && !w->failed; k++) {
		const pd_flat_entry *e = rows[k].e;
		put_row(w, e, total, width, r->o.color);
		if (r->o.chains && e->children >= chain_min) {
			pd_chain_tree *t;
			if ((rc = report_ahead_take(ahead, ci++, &t, r->err)) < 0)
				break;
			if (put_chains(w, t, total, chain_min) < 0)
				rc = pdo_nomem(r->err);
			pd_chain_tree_free(t);
		}
		if (rc == 0)
			pdo_flush_some(w);
	}
	report_ahead_free(ahead);
	free(centries);
	return rc;
}

static int put_event(const pdo_report *r, size_t ev)
{
	pd_writer *w = r->w;
	if (r->o.peek) {  /* the peek instead of the rows, as pprof's -peek */
		put_event_header(w, r->p, ev, r);
		int prc = pdo_report_peek(r, ev);
		pdo_putc(w, '\n');
		return prc;
	}
	if (r->o.sort_keys || r->o.nr_samples) {  /* perf's --sort keys, -n */
		put_event_header(w, r->p, ev, r);
		int src = pdo_report_sorted(r, ev);
		pdo_putc(w, '\n');
		return src;
	}
	const pd_flat_entry *fl;
	size_t n;
	int rc = pd_profile_flat(r->p, ev, &fl, &n, r->err);
	if (rc < 0)
		return rc;
	uint64_t total = pd_profile_total(r->p, ev, SIZE_MAX);
	uint64_t row_min = (uint64_t)((double)total * r->o.percent_limit / 100.0);
	size_t nrows, width;
	row_sort *rows = select_rows(r, fl, n, row_min, &nrows, &width);
	if (!rows)
		return pdo_nomem(r->err);
	put_event_header(w, r->p, ev, r);
	pdo_puts(w, "# Children      Self  ");
	pdo_puts(w, "Shared Object");
	for (size_t k = 13; k < width; k++)
		pdo_putc(w, ' ');
	pdo_puts(w, "  Symbol\n#\n");
	rc = put_rows(r, ev, rows, nrows, width);
	pdo_putc(w, '\n');
	free(rows);
	return rc;
}

int pdo_report_text(const pdo_report *r)
{
	size_t nev = pd_profile_event_count(r->p);
	size_t *evs = malloc((nev ? nev : 1) * sizeof *evs);
	if (!evs)
		return pdo_nomem(r->err);
	put_header(r->w, r->p, r);
	size_t k = pdo_report_events(r, evs);
	if (k == 0)
		pdo_puts(r->w, "# no samples\n");
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0 && !r->w->failed; i++)
		rc = put_event(r, evs[i]);
	free(evs);
	return rc;
}
