/*
 * `perfdiff report` text output: per event a header and a children/self
 * table in the layout of `perf report --children --stdio`, each row
 * followed by its call chains drawn as perf draws its graph: a chain that
 * continues with all of its weight goes straight down without a new
 * branch, so deep kernel paths stay narrow.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_ahead.h"
#include "utf8.h"

#define ROW_INDENT 12   /* chains start under the Self column, as in perf */

static void put_name(outbuf *b, const char *sym, bool inlined)
{
	ob_put_escaped(b, sym ? sym : "[unknown]");
	if (inlined)
		ob_puts(b, " (inlined)");
}

static void put_pct_trim(outbuf *b, uint64_t v, uint64_t total)
{
	report_put_pct(b, v, total, 0);
}

static size_t pct_len(uint64_t v, uint64_t total)
{
	uint64_t hundredths = report_hundredths(v, total);
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
 */
static int put_chains(outbuf *b, const pd_chain_tree *t, uint64_t total)
{
	const pd_chain_node *root = pd_chain_tree_node(t, 0);
	if (!root)
		return 0;
	size_t nroots = 0, nt = pd_chain_tree_size(t);
	while (nroots + 1 < nt && pd_chain_tree_node(t, nroots + 1)->parent == SIZE_MAX)
		nroots++;
	if (root->total)
		nroots++;
	else if (nroots == 0)
		return 0;
	if (nroots == 1 && root->total && root->nchildren == 0)
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
	if (root->total)
		roots[nr++] = 0;
	for (size_t i = 1; nr < nroots; i++)
		roots[nr++] = i;
	sort_roots(roots, nroots, t);
	if (nroots == 1) {
		const pd_chain_node *r = pd_chain_tree_node(t, roots[0]);
		ob_putn(b, pf.s, ROW_INDENT);
		ob_puts(b, "|\n");
		ob_putn(b, pf.s, ROW_INDENT);
		ob_puts(b, "---");
		put_name(b, r->symbol, r->inlined);
		ob_putc_r(b, '\n');
		st[depth++] = (walk){ r->children, r->nchildren, 0, r->total, ROW_INDENT + 3 };
	} else {
		st[depth++] = (walk){ roots, nroots, 0, 0, ROW_INDENT };
	}
	while (depth) {
		walk *w = &st[depth - 1];
		if (w->next == w->nkids) {
			depth--;
			continue;
		}
		size_t ki = w->kids[w->next++];
		bool last = w->next == w->nkids;
		const pd_chain_node *k = pd_chain_tree_node(t, ki);
		size_t plen = w->plen;
		size_t child_plen;
		/* the branch below writes the prefix twice */
		if (!ob_reserve(b, 2 * plen + 64))
			goto out;
		if (w->nkids == 1 && k->total == w->total) {
			/* the whole weight goes on: straight down, no branch */
			ob_putn_r(b, pf.s, plen);
			put_name(b, k->symbol, k->inlined);
			rb_putc(b, '\n');
			child_plen = plen;
		} else {
			ob_putn_r(b, pf.s, plen);
			ob_putn_r(b, "|\n", 2);
			ob_putn_r(b, pf.s, plen);
			ob_putn_r(b, last ? " --" : "|--", 3);
			put_pct_trim(b, k->total, total);
			ob_puts(b, "%--");
			put_name(b, k->symbol, k->inlined);
			rb_putc(b, '\n');
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
		if (report_flush_some(b) < 0)
			goto out;
	}
	rb_putc(b, '\n');
	rc = 0;
out:
	free(roots);
	free(pf.s);
	free(st);
	return rc;
}

static void put_header(outbuf *b, const pd_profile *p, const report_opts *o)
{
	size_t runs = pd_profile_run_count(p);
	char tmp[256];
	snprintf(tmp, sizeof tmp, "# perfdiff report: %zu run%s\n", runs, runs == 1 ? "" : "s");
	ob_puts(b, tmp);
	for (size_t r = 0; r < runs; r++) {
		snprintf(tmp, sizeof tmp, "#   run %zu: ", r);
		ob_puts(b, tmp);
		ob_put_escaped(b, pd_profile_run_path(p, r));
		snprintf(tmp, sizeof tmp, " (lost samples: %" PRIu64 ")\n", pd_profile_lost(p, r));
		ob_puts(b, tmp);
	}
	unsigned flags = o->popts->flags, sflags = o->popts->session.flags;
	snprintf(tmp, sizeof tmp, "# symbols: %s, %s, %s%s\n",
		 flags & PD_PROFILE_KEEP_SUFFIXES ? "clone suffixes kept"
						  : "clone suffixes folded",
		 sflags & PD_SESSION_NO_INLINE ? "no inline frames" : "inline frames",
		 sflags & PD_SESSION_PERF_COMPAT ? "return addresses as perf"
						 : "return addresses - 1",
		 flags & PD_PROFILE_HIDE_UNRESOLVED ? ", unresolved samples hidden (-U)" : "");
	ob_puts(b, tmp);
	ob_puts(b, "#\n");
}

static void put_event_header(outbuf *b, const pd_profile *p, size_t ev, const report_opts *o)
{
	char tmp[512];
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	ob_puts(b, "# Event '");
	ob_put_escaped(b, pd_profile_event_name(p, ev));
	snprintf(tmp, sizeof tmp,
		 "'\n# Samples: %" PRIu64 "  Event count: %" PRIu64 "\n",
		 pd_profile_samples(p, ev, SIZE_MAX), total);
	ob_puts(b, tmp);
	uint64_t unres = pd_profile_unresolved(p, ev, SIZE_MAX);
	if (unres) {
		bool hidden = o->popts->flags & PD_PROFILE_HIDE_UNRESOLVED;
		uint64_t denom = hidden ? total + unres : total;
		ob_puts(b, "# Samples with an unresolved leaf: ");
		report_put_pct(b, unres, denom, 0);
		ob_puts(b, hidden ? "% of the period, left out (-U)\n" : "% of the period\n");
	}
	if (o->chains)
		ob_puts(b, o->order == PD_CHAIN_CALLER ? "# Chains: caller order (what each symbol calls)\n"
						       : "# Chains: callee order (who calls each symbol)\n");
	ob_puts(b, "#\n");
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

static int put_event(pd_profile *p, size_t ev, const report_opts *o, outbuf *b)
{
	const pd_flat_entry *fl;
	size_t n;
	pd_error err;
	if (pd_profile_flat(p, ev, &fl, &n, &err) < 0) {
		cli_error("%s", err.message);
		return -1;
	}
	uint64_t total = pd_profile_total(p, ev, SIZE_MAX);
	uint64_t row_min = (uint64_t)((double)total * o->percent_limit / 100.0);
	uint64_t chain_min = (uint64_t)((double)total * o->threshold / 100.0);
	row_sort *rows = malloc((n ? n : 1) * sizeof *rows);
	if (!rows)
		return -1;
	size_t nrows = 0, width = 13; /* "Shared Object" */
	for (size_t i = 0; i < n; i++) {
		uint64_t key = o->sort_self ? fl[i].self : fl[i].children;
		if (key == 0 || key < row_min)
			continue;
		rows[nrows++] = (row_sort){ &fl[i], i };
		size_t w = strlen(report_short_dso(fl[i].dso));
		if (w > width)
			width = w > 40 ? 40 : w;
	}
	if (o->sort_self)
		qsort(rows, nrows, sizeof *rows, cmp_self);

	put_event_header(b, p, ev, o);
	ob_puts(b, "# Children      Self  ");
	ob_puts(b, "Shared Object");
	for (size_t k = 13; k < width; k++)
		rb_putc(b, ' ');
	ob_puts(b, "  Symbol\n#\n");
	/* the rows that get chains, whose trees are built ahead */
	size_t *centries = malloc((nrows ? nrows : 1) * sizeof *centries);
	if (!centries) {
		free(rows);
		return -1;
	}
	size_t nchains = 0;
	for (size_t r = 0; o->chains && r < nrows; r++)
		if (rows[r].e->children >= chain_min)
			centries[nchains++] = rows[r].i;
	report_ahead *ahead = NULL;
	if (nchains) {
		ahead = report_ahead_start(p, ev, centries, nchains, o->order, chain_min);
		if (!ahead) {
			free(centries);
			free(rows);
			return -1;
		}
	}
	int rc = 0;
	size_t ci = 0;
	for (size_t r = 0; r < nrows && rc == 0; r++) {
		const pd_flat_entry *e = rows[r].e;
		if (!ob_reserve(b, 64))
			break;
		report_put_pct(b, e->children, total, 9);
		ob_puts(b, "% ");
		report_put_pct(b, e->self, total, 8);
		ob_puts(b, "%  ");
		const char *dso = report_short_dso(e->dso);
		ob_put_escaped(b, dso);
		for (size_t k = strlen(dso); k < width; k++)
			rb_putc(b, ' ');
		ob_puts(b, e->kernel ? "  [k] " : "  [.] ");
		put_name(b, e->symbol, e->inlined);
		rb_putc(b, '\n');
		if (o->chains && e->children >= chain_min) {
			pd_chain_tree *t;
			if (report_ahead_take(ahead, ci++, &t, &err) < 0) {
				cli_error("%s", err.message);
				rc = -1;
				break;
			}
			rc = put_chains(b, t, total);
			pd_chain_tree_free(t);
		}
		if (rc == 0 && report_flush_some(b) < 0)
			rc = -1;
	}
	report_ahead_free(ahead);
	free(centries);
	rb_putc(b, '\n');
	free(rows);
	return b->oom ? -1 : rc;
}

int report_text(pd_profile *p, const report_opts *o, outbuf *out)
{
	size_t nev = pd_profile_event_count(p);
	size_t *evs = malloc((nev ? nev : 1) * sizeof *evs);
	if (!evs)
		return -1;
	put_header(out, p, o);
	size_t k = report_events(p, o, evs);
	if (k == 0)
		ob_puts(out, "# no samples\n");
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0; i++)
		rc = put_event(p, evs[i], o, out);
	free(evs);
	return rc < 0 || out->oom ? -1 : 0;
}
