/*
 * The tag that says, on a row of the text table, which explained shift
 * the row belongs to: without it the robot's −63.1 and +63.1 rows of a
 * renamed function read as two findings until the reader finds the
 * section below.  The tag is written from the row's point of view — the
 * arrow points away from the row's own symbol — so each side of a pair
 * names the other:
 *
 *   …children.cpu-clock.hash_chunk  (renamed -> hash_block)
 *   …children.cpu-clock.hash_block  (renamed <- hash_chunk)
 *   …children.cpu-clock.mix_hash    (inlined into work)
 *   …children.cpu-clock.work        (mix_hash inlined here)
 *   …calltrace.cpu-clock.leaf.hash_chunk.main  (renamed hash_chunk -> hash_block)
 *
 * A row that carries a relation only through its path (a calltrace below
 * a renamed frame) gets the whole relation, since its own symbol is not
 * part of it.
 */
#include <string.h>

#include "diff_cli.h"
#include "perfdiff/report.h"
#include "utf8.h"

/* Symbols of a relation side listed in a tag; more are counted. */
#define TAG_MAX_SYMBOLS 3

/* Whether row symbol `sym` is `rel_sym`: rows of the robot's keys carry
 * the robot's clean-up of the name (perfdiff/report.h). */
static bool same_symbol(const char *sym, const char *rel_sym)
{
	if (!sym || !rel_sym)
		return false;
	if (strcmp(sym, rel_sym) == 0)
		return true;
	char buf[512];
	size_t n = pd_lkp_symbol_clean(rel_sym, buf, sizeof buf);
	return n < sizeof buf && strcmp(buf, sym) == 0;
}

/* Symbols of one side of a relation: the list, else the first alone. */
static size_t side_count(const pd_diff_relation *rel, int side)
{
	size_t n = side ? rel->nnew_symbols : rel->nbase_symbols;
	const char *const *v = side ? rel->new_symbols : rel->base_symbols;
	return v && n ? n : 1;
}

static const char *side_sym(const pd_diff_relation *rel, int side, size_t i)
{
	size_t n = side ? rel->nnew_symbols : rel->nbase_symbols;
	const char *const *v = side ? rel->new_symbols : rel->base_symbols;
	if (v && i < n)
		return v[i];
	return side ? rel->new_symbol : rel->base_symbol;
}

static bool on_side(const pd_diff_relation *rel, int side, const char *sym)
{
	for (size_t i = 0; i < side_count(rel, side); i++)
		if (same_symbol(sym, side_sym(rel, side, i)))
			return true;
	return false;
}

static void put_name(const char *s, FILE *f)
{
	utf8_fput_escaped(s ? s : "?", f);
}

/* "a + b + c + 2 more" */
static void put_side(const pd_diff_relation *rel, int side, FILE *f)
{
	size_t n = side_count(rel, side);
	for (size_t i = 0; i < n && i < TAG_MAX_SYMBOLS; i++) {
		if (i)
			fputs(" + ", f);
		put_name(side_sym(rel, side, i), f);
	}
	if (n > TAG_MAX_SYMBOLS)
		fprintf(f, " + %zu more", n - TAG_MAX_SYMBOLS);
}

static void put_parent(const char *p, FILE *f)
{
	put_name(p ? p : "[root]", f);
}

/* moved: the symbol's own rows say where it went from their side; its
 * callers' rows what left or joined them; rows below it the whole move. */
static void put_moved(const pd_diff_row *r, const pd_diff_relation *rel, FILE *f)
{
	const char *sym = r->symbol;
	bool base_only = r->new.present == 0 && r->base.present > 0;
	bool new_only = r->base.present == 0 && r->new.present > 0;
	if (same_symbol(sym, rel->base_symbol)) {
		fputs("moved", f);
	} else if (rel->base_parent && same_symbol(sym, rel->base_parent)) {
		put_name(rel->base_symbol, f);
		fputs(" moved to ", f);
		put_parent(rel->new_parent, f);
		return;
	} else if (rel->new_parent && same_symbol(sym, rel->new_parent)) {
		put_name(rel->base_symbol, f);
		fputs(" moved from ", f);
		put_parent(rel->base_parent, f);
		return;
	} else {
		put_name(rel->base_symbol, f);
		fputs(" moved", f);
		base_only = new_only = false;
	}
	/* a row of one side says where the cost went, or came from */
	if (!base_only) {
		fputs(" from ", f);
		put_parent(rel->base_parent, f);
	}
	if (!new_only) {
		fputs(" to ", f);
		put_parent(rel->new_parent, f);
	}
}

/* inlined (base: the callee, new: its caller) and outlined (the reverse) */
static void put_inline(const pd_diff_row *r, const pd_diff_relation *rel, FILE *f)
{
	bool inl = rel->kind == PD_REL_INLINED;
	const char *callee = inl ? rel->base_symbol : rel->new_symbol;
	const char *caller = inl ? rel->new_symbol : rel->base_symbol;
	const char *verb = inl ? "inlined" : "outlined";
	if (same_symbol(r->symbol, callee)) {
		fprintf(f, "%s %s ", verb, inl ? "into" : "from");
		put_name(caller, f);
	} else if (same_symbol(r->symbol, caller)) {
		put_name(callee, f);
		fprintf(f, " %s %s", verb, inl ? "here" : "from here");
	} else {
		put_name(callee, f);
		fprintf(f, " %s %s ", verb, inl ? "into" : "from");
		put_name(caller, f);
	}
}

void diff_put_relation_tag(const pd_diff_row *r, FILE *f)
{
	const pd_diff_relation *rel = r->relation;
	if (!rel)
		return;
	const char *kind = pd_diff_relation_kind_name(rel->kind);
	fputs("  (", f);
	switch (rel->kind) {
	case PD_REL_MOVED:
		put_moved(r, rel, f);
		break;
	case PD_REL_INLINED:
	case PD_REL_OUTLINED:
		put_inline(r, rel, f);
		break;
	default: {
		/* a split keeps its name on both sides ("foo" -> "foo" +
		 * "foo.cold"): seen from the single side, toward the many */
		bool in_base = on_side(rel, 0, r->symbol), in_new = on_side(rel, 1, r->symbol);
		if (in_base && in_new)
			in_base = rel->kind != PD_REL_MERGED;
		fputs(kind ? kind : "?", f);
		if (in_base) {
			fputs(" -> ", f);
			put_side(rel, 1, f);
		} else if (in_new) {
			fputs(" <- ", f);
			put_side(rel, 0, f);
		} else {
			fputc(' ', f);
			put_side(rel, 0, f);
			fputs(" -> ", f);
			put_side(rel, 1, f);
		}
		break;
	}
	}
	fputc(')', f);
}
