/*
 * Unit tests of the diff engine's alignment and statistics
 * (libperfdiff/diff/internal.h) on hand-built trees.  End-to-end tests on
 * recordings are in test_diff.c.
 *
 * Trees: one run each, periods in samples (one sample per period unit),
 * the base's dso /base/prog and the new one's /new/prog, so every match
 * below also checks that keys use the dso's basename.  The dso-pairing
 * cases name their own dsos: one program built as "a" and as "b".
 *
 * Oracles for the statistics: Student's t tail by Simpson integration of
 * the density (not the incomplete beta the library uses), printed t-table
 * critical values, polygamma values and a moderated t-test worked by
 * hand (reference digits from mpmath at 40 digits), a simulation of the
 * model the moderated test assumes, and Benjamini & Hochberg's (1995)
 * own worked example.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "diff/internal.h"

#define BASE_DSO "/base/prog"
#define NEW_DSO "/new/prog"

typedef struct fixture {
	dt_keytab keys;
	dt_tree b, n;
	dt_align al;
	pd_diff_options o;
	const dt_facts *facts;  /* NULL: nothing known beyond the trees */
} fixture;

static void fx_init(fixture *f)
{
	dt_keytab_init(&f->keys);
	ck_assert_int_eq(dt_tree_init(&f->b, &f->keys, 1), 0);
	ck_assert_int_eq(dt_tree_init(&f->n, &f->keys, 1), 0);
	memset(&f->al, 0, sizeof f->al);
	pd_diff_options_init(&f->o, PD_DIFF_OPTIONS_VERSION);
	f->facts = NULL;
}

static void fx_free(fixture *f)
{
	dt_align_free(&f->al);
	dt_tree_free(&f->b);
	dt_tree_free(&f->n);
	dt_keytab_free(&f->keys);
}

/* Add `sym` under `parent` with `self` samples, on the base or the new side. */
static uint32_t addb(fixture *f, uint32_t parent, const char *sym, uint64_t self)
{
	uint32_t key = dt_keytab_get(&f->keys, sym, BASE_DSO, false);
	ck_assert_uint_ne(key, DT_NONE);
	uint32_t id = dt_tree_child(&f->b, parent, key, DT_SEEN_OUTLINE);
	ck_assert_uint_ne(id, DT_NONE);
	dt_tree_add_self(&f->b, id, 0, self);
	return id;
}

static uint32_t addn(fixture *f, uint32_t parent, const char *sym, uint64_t self)
{
	uint32_t key = dt_keytab_get(&f->keys, sym, NEW_DSO, false);
	ck_assert_uint_ne(key, DT_NONE);
	uint32_t id = dt_tree_child(&f->n, parent, key, DT_SEEN_OUTLINE);
	ck_assert_uint_ne(id, DT_NONE);
	dt_tree_add_self(&f->n, id, 0, self);
	return id;
}

static void run_align(fixture *f)
{
	ck_assert_int_eq(dt_tree_finish(&f->b), 0);
	ck_assert_int_eq(dt_tree_finish(&f->n), 0);
	ck_assert_int_eq(dt_align_run(&f->al, &f->b, &f->n, &f->o, f->facts), 0);
}

static size_t count_kind(const fixture *f, pd_diff_relation_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < f->al.nrels; i++)
		n += f->al.rels[i].kind == k;
	return n;
}

static const dt_rel *find_kind(const fixture *f, pd_diff_relation_kind k)
{
	for (size_t i = 0; i < f->al.nrels; i++)
		if (f->al.rels[i].kind == k)
			return &f->al.rels[i];
	return NULL;
}

/* ------------------------------------------------------------ alignment */

START_TEST(test_exact_by_basename)
{
	fixture f;
	fx_init(&f);
	uint32_t bm = addb(&f, 0, "main", 10), bw = addb(&f, bm, "work", 500);
	uint32_t nm = addn(&f, 0, "main", 10), nw = addn(&f, nm, "work", 520);
	run_align(&f);
	ck_assert_uint_eq(f.b.n[bm].partner, nm);
	ck_assert_uint_eq(f.b.n[bw].partner, nw);
	ck_assert_uint_eq(f.n.n[nw].partner, bw);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
}
END_TEST

START_TEST(test_inlined_flag_merges_siblings)
{
	/* "f (inlined)" and "f" under one caller are one node, flags kept */
	fixture f;
	fx_init(&f);
	uint32_t key = dt_keytab_get(&f.keys, "f", BASE_DSO, false);
	uint32_t a = dt_tree_child(&f.b, 0, key, DT_SEEN_INLINED);
	uint32_t b = dt_tree_child(&f.b, 0, key, DT_SEEN_OUTLINE);
	ck_assert_uint_eq(a, b);
	ck_assert_uint_eq(f.b.n[a].flags, DT_SEEN_INLINED | DT_SEEN_OUTLINE);
	ck_assert_uint_eq(f.b.nn, 2);
	fx_free(&f);
}
END_TEST

START_TEST(test_rename_same_parent)
{
	fixture f;
	fx_init(&f);
	uint32_t bm = addb(&f, 0, "main", 0), bp = addb(&f, bm, "process", 10);
	uint32_t bh = addb(&f, bp, "hash_chunk", 300);
	uint32_t bx = addb(&f, bh, "mix_step", 300);
	addb(&f, bp, "checksum", 340);
	uint32_t nm = addn(&f, 0, "main", 0), np = addn(&f, nm, "process", 10);
	uint32_t nh = addn(&f, np, "hash_block", 320);
	uint32_t nx = addn(&f, nh, "mix_step", 290);
	addn(&f, np, "checksum", 350);
	run_align(&f);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 1);
	ck_assert_uint_eq(f.al.nrels, 1);
	const dt_rel *r = find_kind(&f, PD_REL_RENAMED);
	ck_assert_uint_eq(r->nb, 1);
	ck_assert_uint_eq(r->nn, 1);
	ck_assert_uint_eq(r->b[0], bh);
	ck_assert_uint_eq(r->n[0], nh);
	ck_assert_uint_eq(r->bparent, bp);
	ck_assert_uint_eq(r->nparent, np);
	ck_assert(r->score >= f.o.rename_score);
	ck_assert_msg(strstr(r->evidence, "1 of 1 callees alike (mix_step)"), "%s", r->evidence);
	/* the pair is aligned, and so is what hangs below it */
	ck_assert_uint_eq(f.b.n[bh].partner, nh);
	ck_assert_uint_eq(f.b.n[bx].partner, nx);
	ck_assert_uint_eq(f.b.n[bh].rel, 0);
	ck_assert_uint_eq(f.n.n[nh].rel, 0);
	fx_free(&f);
}
END_TEST

/* base P → compute_x; new P → the listed candidates, same cost, leaves */
static void ambiguity_case(fixture *f, const char *const *cands, size_t n)
{
	fx_init(f);
	uint32_t bp = addb(f, 0, "driver", 100);
	addb(f, bp, "compute_x", 500);
	uint32_t np = addn(f, 0, "driver", 100);
	for (size_t i = 0; i < n; i++)
		addn(f, np, cands[i], 500);
	run_align(f);
}

START_TEST(test_rename_ambiguous_refused)
{
	fixture f;
	/* control: one candidate is taken */
	const char *one[] = { "compute_y" };
	ambiguity_case(&f, one, 1);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 1);
	fx_free(&f);
	/* two equally good candidates: no pair */
	const char *two[] = { "compute_y", "compute_z" };
	ambiguity_case(&f, two, 2);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 0);
	for (uint32_t i = 1; i < f.b.nn; i++)
		if (strcmp(dt_node_sym(&f.b, i), "compute_x") == 0)
			ck_assert_uint_eq(f.b.n[i].partner, DT_NONE);
	fx_free(&f);
}
END_TEST

/* The source file breaks the tie that names and costs leave: of two
 * equally good candidates, the one compiled from the base's file (by
 * basename: the builds ran in other folders). */
START_TEST(test_rename_by_source_file)
{
	fixture f;
	fx_init(&f);
	uint32_t bp = addb(&f, 0, "driver", 100);
	uint32_t bx = addb(&f, bp, "compute_x", 500);
	uint32_t np = addn(&f, 0, "driver", 100);
	uint32_t ny = addn(&f, np, "compute_y", 500);
	uint32_t nz = addn(&f, np, "compute_z", 500);
	ck_assert_int_eq(dt_tree_set_unit(&f.b, f.b.n[bx].key, "/build/a/src/solver.c"), 0);
	ck_assert_int_eq(dt_tree_set_unit(&f.n, f.n.n[ny].key, "/build/b/src/parser.c"), 0);
	ck_assert_int_eq(dt_tree_set_unit(&f.n, f.n.n[nz].key, "src/solver.c"), 0);
	/* the first unit given stays */
	ck_assert_int_eq(dt_tree_set_unit(&f.n, f.n.n[nz].key, "other.c"), 0);
	ck_assert_str_eq(dt_tree_unit(&f.n, f.n.n[nz].key), "src/solver.c");
	ck_assert_ptr_null(dt_tree_unit(&f.n, f.n.n[np].key));
	run_align(&f);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 1);
	const dt_rel *r = find_kind(&f, PD_REL_RENAMED);
	ck_assert_uint_eq(r->b[0], bx);
	ck_assert_uint_eq(r->n[0], nz);
	ck_assert_msg(strstr(r->evidence, "same file solver.c"), "%s", r->evidence);
	ck_assert_uint_eq(f.n.n[ny].partner, DT_NONE);
	fx_free(&f);
}
END_TEST

START_TEST(test_rename_needs_evidence)
{
	/* an unrelated leaf of a very different cost is not a rename */
	fixture f;
	fx_init(&f);
	uint32_t bp = addb(&f, 0, "driver", 100);
	addb(&f, bp, "parse_header", 500);
	uint32_t np = addn(&f, 0, "driver", 100);
	addn(&f, np, "zlib_inflate", 60);
	run_align(&f);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
}
END_TEST

/* base: main → work(200) → helper(300) → scramble(150); main → other(350)
 * new:  main → work(work_self) → scramble(150); main → other(350) */
static void inline_case(fixture *f, uint64_t work_self, uint32_t *bh, uint32_t *bs,
			uint32_t *nw, uint32_t *ns)
{
	fx_init(f);
	uint32_t bm = addb(f, 0, "main", 0), bw = addb(f, bm, "work", 200);
	*bh = addb(f, bw, "helper", 300);
	*bs = addb(f, *bh, "scramble", 150);
	addb(f, bm, "other", 350);
	uint32_t nm = addn(f, 0, "main", 0);
	*nw = addn(f, nm, "work", work_self);
	*ns = addn(f, *nw, "scramble", 150);
	addn(f, nm, "other", 350);
	run_align(f);
}

START_TEST(test_inlined_by_cost)
{
	fixture f;
	uint32_t bh, bs, nw, ns;
	inline_case(&f, 510, &bh, &bs, &nw, &ns);
	ck_assert_uint_eq(f.al.nrels, 1);
	const dt_rel *r = find_kind(&f, PD_REL_INLINED);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->b[0], bh);
	ck_assert_uint_eq(r->n[0], nw);
	/* the callee's callee now hangs off the caller, and is aligned */
	ck_assert_uint_eq(f.b.n[bs].partner, ns);
	ck_assert_uint_eq(f.b.n[bh].partner, DT_NONE);
	ck_assert_uint_eq(f.b.n[bh].rel, 0);
	ck_assert(r->score > 0.95);
	fx_free(&f);

	/* the caller's self did not grow: the cost went elsewhere, no claim */
	inline_case(&f, 200, &bh, &bs, &nw, &ns);
	ck_assert_uint_eq(count_kind(&f, PD_REL_INLINED), 0);
	fx_free(&f);
}
END_TEST

START_TEST(test_outlined_mirror)
{
	/* the inline case read backwards: helper appeared out of work */
	fixture f;
	fx_init(&f);
	uint32_t bm = addb(&f, 0, "main", 0), bw = addb(&f, bm, "work", 500);
	uint32_t bs = addb(&f, bw, "scramble", 150);
	uint32_t nm = addn(&f, 0, "main", 0), nw = addn(&f, nm, "work", 200);
	uint32_t nh = addn(&f, nw, "helper", 300);
	uint32_t ns = addn(&f, nh, "scramble", 150);
	run_align(&f);
	const dt_rel *r = find_kind(&f, PD_REL_OUTLINED);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->b[0], bw);
	ck_assert_uint_eq(r->n[0], nh);
	ck_assert_uint_eq(f.b.n[bs].partner, ns);
	ck_assert_uint_eq(f.al.nrels, 1);
	fx_free(&f);
}
END_TEST

START_TEST(test_split_cold)
{
	fixture f;
	fx_init(&f);
	uint32_t br = addb(&f, 0, "run", 0);
	uint32_t bf = addb(&f, br, "foo", 600);
	addb(&f, br, "bar", 400);
	uint32_t nr = addn(&f, 0, "run", 0);
	uint32_t nf = addn(&f, nr, "foo", 350);
	uint32_t nc = addn(&f, nr, "foo.cold", 250);
	addn(&f, nr, "bar", 400);
	run_align(&f);
	ck_assert_uint_eq(f.al.nrels, 1);
	const dt_rel *r = find_kind(&f, PD_REL_SPLIT);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->nb, 1);
	ck_assert_uint_eq(r->b[0], bf);
	ck_assert_uint_eq(r->nn, 2);
	/* sorted by cost: foo then foo.cold */
	ck_assert_uint_eq(r->n[0], nf);
	ck_assert_uint_eq(r->n[1], nc);
	ck_assert_uint_eq(f.b.n[bf].partner, nf);
	ck_assert_uint_eq(f.n.n[nc].rel, 0);
	fx_free(&f);

	/* the reverse is a merge */
	fx_init(&f);
	br = addb(&f, 0, "run", 0);
	addb(&f, br, "foo", 350);
	addb(&f, br, "foo.cold", 250);
	nr = addn(&f, 0, "run", 0);
	addn(&f, nr, "foo", 600);
	run_align(&f);
	ck_assert_uint_eq(count_kind(&f, PD_REL_MERGED), 1);
	ck_assert_uint_eq(f.al.nrels, 1);
	fx_free(&f);
}
END_TEST

START_TEST(test_split_needs_cost)
{
	/* foo lost 400 of 1000 samples, foo.cold has 20: no split */
	fixture f;
	fx_init(&f);
	uint32_t br = addb(&f, 0, "run", 0);
	addb(&f, br, "foo", 600);
	addb(&f, br, "bar", 400);
	uint32_t nr = addn(&f, 0, "run", 0);
	addn(&f, nr, "foo", 200);
	addn(&f, nr, "foo.cold", 20);
	addn(&f, nr, "bar", 780);
	run_align(&f);
	ck_assert_uint_eq(count_kind(&f, PD_REL_SPLIT), 0);
	fx_free(&f);
}
END_TEST

START_TEST(test_moved_subtree)
{
	fixture f;
	fx_init(&f);
	uint32_t bm = addb(&f, 0, "main", 0);
	uint32_t ba = addb(&f, bm, "a_path", 250);
	uint32_t bl = addb(&f, ba, "leaf_cost", 300);
	uint32_t bd = addb(&f, bl, "deep", 200);
	uint32_t bb = addb(&f, bm, "b_path", 250);
	uint32_t nm = addn(&f, 0, "main", 0);
	uint32_t na = addn(&f, nm, "a_path", 250);
	uint32_t nb = addn(&f, nm, "b_path", 250);
	uint32_t nl = addn(&f, nb, "leaf_cost", 310);
	uint32_t nd = addn(&f, nl, "deep", 190);
	run_align(&f);
	ck_assert_uint_eq(f.al.nrels, 1);
	const dt_rel *r = find_kind(&f, PD_REL_MOVED);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->b[0], bl);
	ck_assert_uint_eq(r->n[0], nl);
	ck_assert_uint_eq(r->bparent, ba);
	ck_assert_uint_eq(r->nparent, nb);
	ck_assert_uint_eq(f.b.n[ba].partner, na);
	ck_assert_uint_eq(f.b.n[bb].partner, nb);
	ck_assert_uint_eq(f.b.n[bl].partner, nl);
	ck_assert_uint_eq(f.b.n[bd].partner, nd);
	fx_free(&f);
}
END_TEST

START_TEST(test_no_align_flag)
{
	fixture f;
	fx_init(&f);
	f.o.flags = PD_DIFF_NO_ALIGN;
	uint32_t bp = addb(&f, 0, "process", 10);
	uint32_t bh = addb(&f, bp, "hash_chunk", 300);
	addb(&f, bh, "mix_step", 300);
	uint32_t np = addn(&f, 0, "process", 10);
	uint32_t nh = addn(&f, np, "hash_block", 300);
	addn(&f, nh, "mix_step", 300);
	run_align(&f);
	ck_assert_uint_eq(f.al.nrels, 0);
	ck_assert_uint_eq(f.b.n[bp].partner, np);
	ck_assert_uint_eq(f.b.n[bh].partner, DT_NONE);
	fx_free(&f);
}
END_TEST

/* An unresolved frame `addr` of `dso` under `parent`, on side `side`. */
static uint32_t add_unres(fixture *f, int side, uint32_t parent, const char *addr,
			  const char *dso, uint64_t self)
{
	dt_tree *t = side ? &f->n : &f->b;
	uint32_t key = dt_keytab_get(&f->keys, addr, dso, true);
	ck_assert_uint_ne(key, DT_NONE);
	uint32_t id = dt_tree_child(t, parent, key, DT_SEEN_OUTLINE);
	ck_assert_uint_ne(id, DT_NONE);
	dt_tree_add_self(t, id, 0, self);
	return id;
}

START_TEST(test_unresolved_keyed_by_dso)
{
	/* ASLR: the same code sampled at other addresses in each run */
	fixture f;
	fx_init(&f);
	uint32_t bp = addb(&f, 0, "driver", 10);
	uint32_t x = add_unres(&f, 0, bp, "0x00007f6c00001000", BASE_DSO, 500);
	uint32_t z = add_unres(&f, 0, bp, "0x00007f6c00003000", BASE_DSO, 100);
	uint32_t bl = addb(&f, z, "memcpy", 50);  /* below an unresolved frame */
	uint32_t bz = add_unres(&f, 0, bp, "0x00007f6c00007000", "/base/libz.so", 200);
	uint32_t np = addn(&f, 0, "driver", 10);
	uint32_t y = add_unres(&f, 1, np, "0x000055d100002000", NEW_DSO, 600);
	uint32_t nl = addn(&f, y, "memcpy", 50);
	uint32_t nz = add_unres(&f, 1, np, "0x000055d100008000", "/new/libz.so", 200);
	/* siblings of one dso merge into one node, whatever their addresses */
	ck_assert_uint_eq(x, z);
	ck_assert_uint_eq(f.b.nn, 5);
	ck_assert_uint_eq(f.n.nn, 5);
	const dt_key *k = dt_node_key(&f.b, x);
	ck_assert_str_eq(k->sym, "[unknown]");
	ck_assert(k->unresolved);
	/* one key per dso basename, shared by both sides */
	ck_assert_uint_eq(f.b.n[x].key, f.n.n[y].key);
	ck_assert_uint_eq(f.b.n[bz].key, f.n.n[nz].key);
	ck_assert_uint_ne(f.b.n[x].key, f.b.n[bz].key);
	ck_assert_str_eq(dt_node_key(&f.b, bz)->dso, "/base/libz.so");
	run_align(&f);
	/* exact matches along the aligned path, and below them */
	ck_assert_uint_eq(f.b.n[x].partner, y);
	ck_assert_uint_eq(f.b.n[bz].partner, nz);
	ck_assert_uint_eq(f.b.n[bl].partner, nl);
	ck_assert_uint_eq(f.al.nrels, 0);
	ck_assert(fabs(f.b.mean_incl[x] - f.n.mean_incl[y]) < 1e-9);
	fx_free(&f);
}
END_TEST

/* driver → {old name, unresolved} → inner on the base; driver → {name,
 * inner-calling name} on the new side: with `unresolved_base` the base
 * callee has no symbol. */
static void rename_shape(fixture *f, bool unresolved_base)
{
	fx_init(f);
	uint32_t bp = addb(f, 0, "driver", 10);
	uint32_t bx = unresolved_base ? add_unres(f, 0, bp, "0x1000", BASE_DSO, 100)
				      : addb(f, bp, "parse_old", 100);
	addb(f, bx, "inner", 400);
	uint32_t np = addn(f, 0, "driver", 10);
	uint32_t ny = addn(f, np, "parse", 100);
	addn(f, ny, "inner", 400);
	run_align(f);
}

/* A callee with its own callee under a_path on the base, under b_path on
 * the new side; `unres`: 1 the callee, 2 the callers (a_path and b_path,
 * in two dsos) have no symbol. */
static void move_shape(fixture *f, int unres)
{
	fx_init(f);
	uint32_t bm = addb(f, 0, "main", 0);
	uint32_t ba = unres == 2 ? add_unres(f, 0, bm, "0x10", "/base/liba.so", 10)
				 : addb(f, bm, "a_path", 10);
	if (unres == 2)
		add_unres(f, 0, bm, "0x20", "/base/libb.so", 10);
	else
		addb(f, bm, "b_path", 10);
	uint32_t bu = unres == 1 ? add_unres(f, 0, ba, "0x1000", BASE_DSO, 500)
				 : addb(f, ba, "hot", 500);
	addb(f, bu, "leaf", 300);
	uint32_t nm = addn(f, 0, "main", 0);
	if (unres == 2)
		add_unres(f, 1, nm, "0x30", "/new/liba.so", 10);
	else
		addn(f, nm, "a_path", 10);
	uint32_t nb = unres == 2 ? add_unres(f, 1, nm, "0x40", "/new/libb.so", 10)
				 : addn(f, nm, "b_path", 10);
	uint32_t nu = unres == 1 ? add_unres(f, 1, nb, "0x2000", NEW_DSO, 500)
				 : addn(f, nb, "hot", 500);
	addn(f, nu, "leaf", 300);
	run_align(f);
}

START_TEST(test_unresolved_never_renamed)
{
	/* the control: the same shape with a name is a rename */
	fixture f;
	rename_shape(&f, false);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 1);
	fx_free(&f);
	/* an unresolved frame pairs with nothing but itself */
	rename_shape(&f, true);
	ck_assert_uint_eq(f.al.nrels, 0);
	ck_assert_uint_eq(f.b.n[2].partner, DT_NONE);
	ck_assert_uint_eq(f.n.n[2].partner, DT_NONE);
	fx_free(&f);

	/* nor is it moved, nor is anything moved from or to it: under
	 * "[unknown]" the caller is not known (the control: named, a move) */
	move_shape(&f, 0);
	ck_assert_uint_eq(count_kind(&f, PD_REL_MOVED), 1);
	fx_free(&f);
	for (int unres = 1; unres <= 2; unres++) {
		move_shape(&f, unres);
		ck_assert_uint_eq(count_kind(&f, PD_REL_MOVED), 0);
		ck_assert_uint_eq(f.al.nrels, 0);
		fx_free(&f);
	}

	/* nor does a callee vanish into an "[unknown]" caller, whose self is
	 * many functions' (test_inlined_by_cost: the named control) */
	fx_init(&f);
	uint32_t bm = addb(&f, 0, "main", 0);
	uint32_t bw = add_unres(&f, 0, bm, "0x1000", BASE_DSO, 200);
	uint32_t bh = addb(&f, bw, "helper", 300);
	addb(&f, bh, "scramble", 150);
	addb(&f, bm, "other", 350);
	uint32_t nm = addn(&f, 0, "main", 0);
	uint32_t nw = add_unres(&f, 1, nm, "0x2000", NEW_DSO, 510);
	addn(&f, nw, "scramble", 150);
	addn(&f, nm, "other", 350);
	run_align(&f);
	ck_assert_uint_eq(f.b.n[bw].partner, nw);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
}
END_TEST

/* BPF programs: the kernel's KSYMBOL name "bpf_prog_<tag>_<name>" (the
 * form of kernel/bpf/core.c's bpf_get_prog_name(): the 8-byte tag as 16
 * lower-case hex digits) changes its tag with every rebuild. */
#define BPF_A "bpf_prog_6deef7357e7b4530_sd_fw_ingress"
#define BPF_B "bpf_prog_0123456789abcdef_sd_fw_ingress"

START_TEST(test_bpf_tag_keys)
{
	dt_keytab t;
	dt_keytab_init(&t);
	const char *dso = "[bpf_prog]";
	uint32_t a = dt_keytab_get(&t, BPF_A, dso, false);
	ck_assert_uint_ne(a, DT_NONE);
	/* another tag, the same program: the key, spelled as first seen */
	ck_assert_uint_eq(dt_keytab_get(&t, BPF_B, dso, false), a);
	ck_assert_uint_eq(dt_keytab_get(&t, "bpf_prog_sd_fw_ingress", dso, false), a);
	ck_assert_uint_eq(dt_keytab_find(&t, BPF_B, "[bpf_prog]"), a);
	ck_assert_str_eq(t.v[a].sym, BPF_A);
	ck_assert(!t.v[a].has_suffix);
	/* not one program: another name, another dso */
	static const char *const others[] = {
		"bpf_prog_6deef7357e7b4530_sd_fw_egress",
		"bpf_prog_6deef7357e7b4530_sd_fw_ingress2",
		"bpf_prog_6deef7357e7b4530",            /* no name: the tag is all */
		"bpf_prog_0123456789abcdef",
		"bpf_prog_6deef7357e7b4530_",           /* empty name */
		"bpf_prog_6DEEF7357E7B4530_sd_fw_ingress", /* not the kernel's hex */
		"bpf_prog_6deef7357e7b453_sd_fw_ingress",  /* 15 digits */
		"bpf_prog_6deef7357e7b4530xsd_fw_ingress",
		"sd_fw_ingress",
		"bpf_trampoline_6deef7357e7b4530_sd_fw_ingress",
	};
	uint32_t ids[sizeof others / sizeof *others];
	for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
		ids[i] = dt_keytab_get(&t, others[i], dso, false);
		ck_assert_msg(ids[i] != DT_NONE && ids[i] != a, "%s keyed as %s", others[i],
			      BPF_A);
		ck_assert_str_eq(t.v[ids[i]].sym, others[i]);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(ids[i] != ids[j], "%s keyed as %s", others[i], others[j]);
	}
	/* tags of programs without a name still tell them apart */
	ck_assert_uint_ne(dt_keytab_get(&t, "bpf_prog_fedcba9876543210", dso, false), ids[2]);
	ck_assert_uint_ne(dt_keytab_get(&t, BPF_B, "[other]", false), a);
	dt_keytab_free(&t);
}
END_TEST

START_TEST(test_bpf_rebuilt_program_matches)
{
	/* a program reloaded after a rebuild (new tag) under the same caller:
	 * an exact match, not a rename; its callee matches below it */
	fixture f;
	fx_init(&f);
	uint32_t bm = addb(&f, 0, "__sys_bpf", 10);
	uint32_t bp = addb(&f, bm, BPF_A, 400), bh = addb(&f, bp, "bpf_map_lookup_elem", 100);
	addb(&f, bm, "other_work", 300);
	uint32_t nm = addn(&f, 0, "__sys_bpf", 10);
	uint32_t np = addn(&f, nm, BPF_B, 420), nh = addn(&f, np, "bpf_map_lookup_elem", 90);
	addn(&f, nm, "other_work", 290);
	run_align(&f);
	ck_assert_uint_eq(f.b.n[bp].key, f.n.n[np].key);
	ck_assert_uint_eq(f.b.n[bp].partner, np);
	ck_assert_uint_eq(f.n.n[np].partner, bp);
	ck_assert_uint_eq(f.b.n[bh].partner, nh);
	ck_assert_uint_eq(f.al.nrels, 0);
	ck_assert_str_eq(dt_node_sym(&f.n, np), BPF_A);  /* the base's spelling */
	fx_free(&f);
}
END_TEST

START_TEST(test_name_similarity)
{
	ck_assert(fabs(dt_name_similarity("foo", "foo") - 1) < 1e-12);
	/* bigrams of "fget_light" and "fdget": ge, et common: 2·2/(9+4) */
	ck_assert(dt_name_similarity("__fget_light", "__fdget") >= 4.0 / 13 - 1e-9);
	ck_assert(dt_name_similarity("hash_chunk", "hash_block") > 0.5);
	ck_assert(dt_name_similarity("parse_header", "zlib_inflate") < 0.3);
}
END_TEST

/* ------------------------------------------------- busy machines */

/* `sym` of `dso` under `parent` on side `side` (0 base), with `flags`. */
static uint32_t add_at(fixture *f, int side, uint32_t parent, const char *sym, const char *dso,
		       uint64_t self, uint32_t flags)
{
	dt_tree *t = side ? &f->n : &f->b;
	uint32_t key = dt_keytab_get(&f->keys, sym, dso, false);
	ck_assert_uint_ne(key, DT_NONE);
	uint32_t id = dt_tree_child(t, parent, key, flags);
	ck_assert_uint_ne(id, DT_NONE);
	ck_assert_int_eq(dt_tree_note_dso(t, key, dso), 0);
	dt_tree_add_self(t, id, 0, self);
	return id;
}

/* A chain of functions of `dso` below `parent`, each with self `self`
 * but the last, which has `leaf`; its last node returned. */
static uint32_t chain(fixture *f, int side, uint32_t parent, const char *dso,
		      const char *const *syms, size_t n, uint64_t self, uint64_t leaf)
{
	for (size_t i = 0; i < n; i++)
		parent = add_at(f, side, parent, syms[i], dso, i + 1 == n ? leaf : self,
				DT_SEEN_OUTLINE | (dso[0] == '[' ? DT_KERNEL : 0));
	return parent;
}

#define KDSO "[kernel.kallsyms]"

/* What the builds say, for the facts callbacks: names each side's build
 * defines or lacks, and (callee, caller) pairs its DWARF has inlined or
 * not; anything else unknown. */
typedef struct tfacts {
	const char *yes[2][8], *no[2][8];
	const char *inl_yes[2][4][2], *inl_no[2][4][2];
} tfacts;

static bool listed(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static int tf_defined(void *ctx, int side, const char *dso, const char *name)
{
	const tfacts *t = ctx;
	ck_assert_ptr_nonnull(dso);
	return listed(t->yes[side], 8, name) ? DT_FACT_YES
	       : listed(t->no[side], 8, name) ? DT_FACT_NO
					       : DT_FACT_UNKNOWN;
}

static int tf_inlined(void *ctx, int side, const char *dso, const char *callee,
		      const char *caller)
{
	const tfacts *t = ctx;
	ck_assert_ptr_nonnull(dso);
	for (int i = 0; i < 4; i++) {
		const char *const *y = t->inl_yes[side][i], *const *n = t->inl_no[side][i];
		if (y[0] && strcmp(y[0], callee) == 0 && strcmp(y[1], caller) == 0)
			return DT_FACT_YES;
		if (n[0] && strcmp(n[0], callee) == 0 && strcmp(n[1], caller) == 0)
			return DT_FACT_NO;
	}
	return DT_FACT_UNKNOWN;
}

/* poll() replaced by epoll_wait(): the wrappers share the system-call
 * entry and do_syscall_64 and nothing below them; a rename keeps it all. */
static void syscall_case(fixture *f, const char *new_wrapper, const char *new_sys,
			 const char *new_impl)
{
	fx_init(f);
	static const char *const poll_k[] = { "entry_SYSCALL_64_after_hwframe", "do_syscall_64",
					      "__x64_sys_poll", "do_sys_poll", "fdget" };
	const char *new_k[] = { "entry_SYSCALL_64_after_hwframe", "do_syscall_64", new_sys,
				new_impl, "fdget" };
	for (int s = 0; s < 2; s++) {
		uint32_t m = add_at(f, s, 0, "main", BASE_DSO, 10, DT_SEEN_OUTLINE);
		uint32_t w = add_at(f, s, m, s ? new_wrapper : "__poll", "/lib/libc.so.6", 160,
				    DT_SEEN_OUTLINE);
		uint32_t k = chain(f, s, w, KDSO, s ? new_k : poll_k, 4, 60, 270);
		add_at(f, s, k, "fdget", KDSO, 60, DT_SEEN_OUTLINE | DT_KERNEL);
		add_at(f, s, m, "other", BASE_DSO, 300, DT_SEEN_OUTLINE);
	}
	run_align(f);
}

START_TEST(test_code_path_not_renamed)
{
	fixture f;
	syscall_case(&f, "epoll_wait", "__x64_sys_epoll_wait", "do_epoll_wait");
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	/* control: the same subtree under a renamed wrapper is a rename */
	syscall_case(&f, "__poll_v2", "__x64_sys_poll", "do_sys_poll");
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 1);
	const dt_rel *r = find_kind(&f, PD_REL_RENAMED);
	ck_assert_str_eq(dt_node_sym(&f.b, r->b[0]), "__poll");
	ck_assert_msg(strstr(r->evidence, "the same below them: 1.00"), "%s", r->evidence);
	fx_free(&f);
}
END_TEST

/* driver → read_block → memcpy on the base, driver → write_page → memcpy
 * on the new side; `elsewhere`: memcpy's cost under twenty other
 * functions, which makes it no evidence of what read_block was. */
static void generic_case(fixture *f, uint64_t elsewhere)
{
	fx_init(f);
	for (int s = 0; s < 2; s++) {
		uint32_t d = add_at(f, s, 0, "driver", BASE_DSO, 50, DT_SEEN_OUTLINE);
		uint32_t x = add_at(f, s, d, s ? "write_page" : "read_block", BASE_DSO, 100,
				    DT_SEEN_OUTLINE);
		add_at(f, s, x, "memcpy", "/lib/libc.so.6", 300, DT_SEEN_OUTLINE);
		for (int i = 0; i < 20 && elsewhere; i++) {
			char name[32];
			snprintf(name, sizeof name, "caller_%d", i);
			uint32_t c = add_at(f, s, 0, name, BASE_DSO, 10, DT_SEEN_OUTLINE);
			add_at(f, s, c, "memcpy", "/lib/libc.so.6", elsewhere / 20, DT_SEEN_OUTLINE);
		}
	}
	run_align(f);
}

START_TEST(test_generic_callee_weak)
{
	fixture f;
	generic_case(&f, 6000);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 0);
	fx_free(&f);
	/* control: memcpy called by that function alone */
	generic_case(&f, 0);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 1);
	fx_free(&f);
}
END_TEST

/* The base recorded beside an idle CPU, the new side beside another
 * program that took it, which also has a function named like the new
 * name (a namesake in another dso): shares of the whole profile halve,
 * shares of the aligned caller do not. */
START_TEST(test_rename_under_other_load)
{
	fixture f;
	fx_init(&f);
	static const char *const idle[] = { "start_secondary", "cpu_startup_entry", "do_idle",
					    "default_idle_call", "pv_native_safe_halt" };
	chain(&f, 0, 0, KDSO, idle, 5, 0, 950);
	uint32_t bp = chain(&f, 0, 0, BASE_DSO, (const char *const[]){ "main", "process" }, 2, 0,
			    10);
	uint32_t bh = add_at(&f, 0, bp, "hash_chunk", BASE_DSO, 300, DT_SEEN_OUTLINE);
	add_at(&f, 0, bh, "mix_step", BASE_DSO, 300, DT_SEEN_OUTLINE);
	add_at(&f, 0, bp, "checksum", BASE_DSO, 340, DT_SEEN_OUTLINE);
	uint32_t bg = chain(&f, 1, 0, "/usr/bin/bg", (const char *const[]){ "main", "spin" }, 2, 0,
			    1500);
	add_at(&f, 1, bg, "hash_block", "/usr/bin/bg", 150, DT_SEEN_OUTLINE);
	uint32_t np = chain(&f, 1, 0, NEW_DSO, (const char *const[]){ "main", "process" }, 2, 0,
			    5);
	uint32_t nh = add_at(&f, 1, np, "hash_block", NEW_DSO, 160, DT_SEEN_OUTLINE);
	add_at(&f, 1, nh, "mix_step", NEW_DSO, 150, DT_SEEN_OUTLINE);
	add_at(&f, 1, np, "checksum", NEW_DSO, 170, DT_SEEN_OUTLINE);
	run_align(&f);
	ck_assert_msg(fabs(f.b.idle - 50) < 0.1 && f.n.idle == 0, "idle %.2f %.2f", f.b.idle,
		      f.n.idle);
	ck_assert_uint_eq(f.al.nrels, 1);
	const dt_rel *r = find_kind(&f, PD_REL_RENAMED);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->b[0], bh);
	ck_assert_uint_eq(r->n[0], nh);
	ck_assert_msg(strstr(r->evidence, "63 % vs 64 % of process's time"), "%s", r->evidence);
	fx_free(&f);
}
END_TEST

/* do_select → __fget_light on the base, → __fdget on the new side: two
 * leaves of one cost under one caller, names unlike (the robot's seed). */
static void kernel_rename_case(fixture *f, const tfacts *tf)
{
	fx_init(f);
	static dt_facts facts = { tf_defined, tf_inlined, NULL, NULL, { NULL, NULL } };
	facts.ctx = (void *)tf;
	f->facts = tf ? &facts : NULL;
	static const char *const path[] = { "do_syscall_64", "core_sys_select", "do_select" };
	for (int s = 0; s < 2; s++) {
		uint32_t ds = chain(f, s, 0, KDSO, path, 3, 20, 200);
		add_at(f, s, ds, s ? "__fdget" : "__fget_light", KDSO, 500,
		       DT_SEEN_OUTLINE | DT_KERNEL);
	}
	run_align(f);
}

START_TEST(test_symbol_tables)
{
	fixture f;
	/* names and cost alone are not enough for names this unlike */
	kernel_rename_case(&f, NULL);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	/* the kernels' symbol tables: the old name gone, the new one new */
	tfacts gone = { .yes = { { "__fget_light" }, { "__fdget" } },
			.no = { { "__fdget" }, { "__fget_light" } } };
	kernel_rename_case(&f, &gone);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 1);
	const dt_rel *r = find_kind(&f, PD_REL_RENAMED);
	ck_assert_msg(strstr(r->evidence, "symbol tables: __fget_light only in the base build, "
					  "__fdget only in the new"), "%s", r->evidence);
	fx_free(&f);
	/* the new kernel still defines the old name: not renamed, whatever
	 * else says so (__fdget split out of a __fget_light that the chains
	 * now skip fits, and is what is left) */
	tfacts kept = { .yes = { { "__fget_light" }, { "__fdget", "__fget_light" } },
			.no = { { "__fdget" } } };
	kernel_rename_case(&f, &kept);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 0);
	fx_free(&f);
}
END_TEST

/* do_select -> __fget_light (500, calling fput) and a near-idle __fdget
 * (5) in the base, __fdget alone (505, calling fput) in the new kernel:
 * the regrown rename, with the builds' answers `tf`.  (Without the callee
 * the base chains' frameless __fget_light reads as inlined into the
 * __fdget they skip: align_inline.c.) */
static void regrown_case(fixture *f, const tfacts *tf)
{
	fx_init(f);
	static dt_facts facts = { tf_defined, tf_inlined, NULL, NULL, { NULL, NULL } };
	facts.ctx = (void *)tf;
	f->facts = &facts;
	static const char *const path[] = { "do_syscall_64", "core_sys_select", "do_select" };
	for (int s = 0; s < 2; s++) {
		uint32_t ds = chain(f, s, 0, KDSO, path, 3, 20, 200);
		uint32_t flags = DT_SEEN_OUTLINE | DT_KERNEL, x;
		if (!s) {
			x = add_at(f, s, ds, "__fget_light", KDSO, 500, flags);
			add_at(f, s, x, "fput", KDSO, 100, flags);
		}
		x = add_at(f, s, ds, "__fdget", KDSO, s ? 505 : 5, flags);
		if (s)
			add_at(f, s, x, "fput", KDSO, 100, flags);
	}
	run_align(f);
}

START_TEST(test_regrown_needs_room)
{
	fixture f;
	/* the old name gone from the new kernel, the new one there before at
	 * almost nothing: one shift, read as the inlining into the __fdget
	 * that the base chains skip (or as the rename, align_regrown.c) */
	tfacts gone = { .yes = { { "__fget_light", "__fdget" }, { "__fdget" } },
			.no = { { NULL }, { "__fget_light" } } };
	regrown_case(&f, &gone);
	ck_assert_uint_eq(f.al.nrels, 1);
	ck_assert_str_eq(dt_node_sym(&f.b, f.al.rels[0].b[0]), "__fget_light");
	fx_free(&f);
	/* the new build's DWARF has __fget_light inlined into __fdget: the
	 * same */
	tfacts inl = gone;
	inl.inl_yes[1][0][0] = "__fget_light";
	inl.inl_yes[1][0][1] = "__fdget";
	regrown_case(&f, &inl);
	ck_assert_uint_eq(f.al.nrels, 1);
	fx_free(&f);
	/* its DWARF has __fdget's code and no __fget_light in it: the cost
	 * that __fdget gained is not __fget_light's, neither inlined nor
	 * renamed, whatever the numbers */
	tfacts refuted = gone;
	refuted.inl_no[1][0][0] = "__fget_light";
	refuted.inl_no[1][0][1] = "__fdget";
	regrown_case(&f, &refuted);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
}
END_TEST

/* inline_case()'s trees (helper inlined into work), with the builds'
 * answers `tf` and every key's dso noted on its side. */
static void inline_facts_case(fixture *f, const tfacts *tf)
{
	fx_init(f);
	static dt_facts facts = { tf_defined, tf_inlined, NULL, NULL, { NULL, NULL } };
	facts.ctx = (void *)tf;
	f->facts = &facts;
	uint32_t bm = addb(f, 0, "main", 0), bw = addb(f, bm, "work", 200);
	uint32_t bh = addb(f, bw, "helper", 300);
	addb(f, bh, "scramble", 150);
	uint32_t nm = addn(f, 0, "main", 0), nw = addn(f, nm, "work", 510);
	addn(f, nw, "scramble", 150);
	for (uint32_t i = 1; i < f->b.nn; i++)
		ck_assert_int_eq(dt_tree_note_dso(&f->b, f->b.n[i].key, BASE_DSO), 0);
	for (uint32_t i = 1; i < f->n.nn; i++)
		ck_assert_int_eq(dt_tree_note_dso(&f->n, f->n.n[i].key, NEW_DSO), 0);
	run_align(f);
}

START_TEST(test_inline_facts)
{
	fixture f;
	/* the new build's DWARF has helper inlined into work: confirmed */
	tfacts yes = { .inl_yes = { { { NULL } }, { { "helper", "work" } } } };
	inline_facts_case(&f, &yes);
	const dt_rel *r = find_kind(&f, PD_REL_INLINED);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(strstr(r->evidence, "DWARF of the new build: helper inlined into work"), "%s",
		      r->evidence);
	fx_free(&f);
	/* the new build's DWARF has no such instance: the trees are wrong */
	tfacts no = { .inl_no = { { { NULL } }, { { "helper", "work" } } } };
	inline_facts_case(&f, &no);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	/* no DWARF, helper still in the symbol table: an out-of-line copy
	 * lives on, nothing says this call was inlined */
	tfacts kept = { .yes = { { NULL }, { "helper" } } };
	inline_facts_case(&f, &kept);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	/* no DWARF, helper gone from the symbol table (kallsyms): inlined */
	tfacts gone = { .no = { { NULL }, { "helper" } } };
	inline_facts_case(&f, &gone);
	r = find_kind(&f, PD_REL_INLINED);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(strstr(r->evidence, "helper gone from the new build's symbol table"), "%s",
		      r->evidence);
	fx_free(&f);
}
END_TEST

/* The base's frame-pointer chains skip `caller` while its frameless leaf
 * `leaf` runs: leaf sits under main beside caller; the new build inlines
 * leaf into caller, whose self then holds both. */
static void skipped_case(fixture *f, const tfacts *tf, uint32_t *bl, uint32_t *nc)
{
	fx_init(f);
	static dt_facts facts = { tf_defined, tf_inlined, NULL, NULL, { NULL, NULL } };
	facts.ctx = (void *)tf;
	f->facts = tf ? &facts : NULL;
	uint32_t bm = add_at(f, 0, 0, "main", BASE_DSO, 20, DT_SEEN_OUTLINE);
	*bl = add_at(f, 0, bm, "leaf", BASE_DSO, 800, DT_SEEN_OUTLINE);
	add_at(f, 0, bm, "caller", BASE_DSO, 60, DT_SEEN_OUTLINE);
	add_at(f, 0, bm, "other", BASE_DSO, 300, DT_SEEN_OUTLINE);
	uint32_t nm = add_at(f, 1, 0, "main", NEW_DSO, 20, DT_SEEN_OUTLINE);
	*nc = add_at(f, 1, nm, "caller", NEW_DSO, 850, DT_SEEN_OUTLINE);
	add_at(f, 1, nm, "other", NEW_DSO, 300, DT_SEEN_OUTLINE);
	run_align(f);
}

START_TEST(test_inline_skipped_caller)
{
	fixture f;
	uint32_t bl, nc;
	tfacts dwarf = { .inl_yes = { { { NULL } }, { { "leaf", "caller" } } } };
	skipped_case(&f, &dwarf, &bl, &nc);
	ck_assert_uint_eq(f.al.nrels, 1);
	const dt_rel *r = find_kind(&f, PD_REL_INLINED);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->b[0], bl);
	ck_assert_uint_eq(r->n[0], nc);
	ck_assert_msg(strstr(r->evidence, "the base chains skip caller"), "%s", r->evidence);
	fx_free(&f);
	/* the symbol table alone (kallsyms has no DWARF): leaf is gone */
	tfacts gone = { .no = { { NULL }, { "leaf" } } };
	skipped_case(&f, &gone, &bl, &nc);
	ck_assert_uint_eq(count_kind(&f, PD_REL_INLINED), 1);
	fx_free(&f);
	/* nothing says leaf went into caller: siblings trade cost all the
	 * time, no claim */
	skipped_case(&f, NULL, &bl, &nc);
	ck_assert_uint_eq(count_kind(&f, PD_REL_INLINED), 0);
	fx_free(&f);
}
END_TEST

/* A helper spread over `ncallers` callers of main, `per` samples under
 * each beside the caller's own `cself`, gone from the new tree, where
 * each caller's self holds it; "other" keeps the rest of the profile.
 * The helper's nodes are each within the noise. */
static void everywhere_in(fixture *f, const tfacts *tf, int ncallers, uint64_t cself,
			  uint64_t per, bool kernel_helper);

static void everywhere_case(fixture *f, const tfacts *tf, int ncallers, uint64_t cself,
			    uint64_t per)
{
	everywhere_in(f, tf, ncallers, cself, per, false);
}

/* everywhere_case(), the helper a kernel function (an interrupt's entry,
 * sampled under whatever user function it hit) when `kernel_helper`. */
static void everywhere_in(fixture *f, const tfacts *tf, int ncallers, uint64_t cself,
			  uint64_t per, bool kernel_helper)
{
	static const char *const callers[] = { "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7" };
	fx_init(f);
	static dt_facts facts = { tf_defined, tf_inlined, NULL, NULL, { NULL, NULL } };
	facts.ctx = (void *)tf;
	f->facts = tf ? &facts : NULL;
	for (int s = 0; s < 2; s++) {
		const char *dso = s ? NEW_DSO : BASE_DSO;
		uint32_t m = add_at(f, s, 0, "main", dso, 0, DT_SEEN_OUTLINE);
		for (int i = 0; i < ncallers; i++) {
			uint32_t c = add_at(f, s, m, callers[i], dso, s ? cself + per : cself,
					    DT_SEEN_OUTLINE);
			if (!s)
				add_at(f, s, c, "helper", kernel_helper ? KDSO : dso, per,
				       DT_SEEN_OUTLINE | (kernel_helper ? DT_KERNEL : 0));
		}
		add_at(f, s, m, "other", dso, 2000, DT_SEEN_OUTLINE);
	}
	run_align(f);
}

START_TEST(test_inlined_everywhere)
{
	fixture f;
	/* the new build's DWARF has helper in each caller: each node is
	 * within the noise, and the callers' big selves hide their growth
	 * from the per-caller pass; all four together are inlinings */
	tfacts dwarf = { .inl_yes = { { { NULL } },
				      { { "helper", "c0" }, { "helper", "c1" }, { "helper", "c2" },
					{ "helper", "c3" } } } };
	everywhere_case(&f, &dwarf, 4, 1000, 6);
	ck_assert_uint_eq(count_kind(&f, PD_REL_INLINED), 4);
	ck_assert_uint_eq(f.al.nrels, 4);
	const dt_rel *r = find_kind(&f, PD_REL_INLINED);
	ck_assert_msg(strstr(r->evidence, "DWARF of the new build: helper inlined into c") &&
			      strstr(r->evidence, "through 4 call paths, all gone"),
		      "%s", r->evidence);
	fx_free(&f);
	/* one caller alone: its 6 samples are noise, no claim however sure
	 * the DWARF is */
	everywhere_case(&f, &dwarf, 1, 1000, 6);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	/* DWARF without the instance, helper still defined: not inlined */
	tfacts refuted = { .yes = { { NULL }, { "helper" } },
			   .inl_no = { { { NULL } },
				       { { "helper", "c0" }, { "helper", "c1" }, { "helper", "c2" },
					 { "helper", "c3" } } } };
	everywhere_case(&f, &refuted, 4, 1000, 6);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	/* no DWARF (kallsyms): helper gone from the symbol table and the
	 * eight callers' self grew by what it cost, together */
	tfacts gone = { .no = { { NULL }, { "helper" } } };
	everywhere_case(&f, &gone, 8, 50, 15);
	ck_assert_uint_eq(count_kind(&f, PD_REL_INLINED), 8);
	r = find_kind(&f, PD_REL_INLINED);
	ck_assert_msg(strstr(r->evidence, "gone from the new build's symbol table"), "%s",
		      r->evidence);
	fx_free(&f);
	/* the same numbers with a kernel helper under user callers: code is
	 * inlined into its own binary only (a CI run saw an interrupt's
	 * asm_common_interrupt "outlined" from a user function) */
	everywhere_in(&f, &gone, 8, 50, 15, true);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	/* the same, but the callers' self did not grow: the cost went away,
	 * nothing went anywhere */
	everywhere_case(&f, &gone, 8, 50, 0);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	/* helper still in the symbol table, or nothing known: no claim */
	tfacts kept = { .yes = { { NULL }, { "helper" } } };
	everywhere_case(&f, &kept, 8, 50, 15);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
	everywhere_case(&f, NULL, 8, 50, 15);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
}
END_TEST

/* A timer interrupt lands in the frameless leaf and in the skipped caller
 * (whose chains rarely show it) in the base, and in the caller in the new
 * build: the leaf's is aligned with the new caller's by the inlining, and
 * the base caller's, left over, is never "renamed" to the one taken. */
START_TEST(test_inline_skipped_caller_same_child)
{
	fixture f;
	fx_init(&f);
	tfacts dwarf = { .inl_yes = { { { NULL } }, { { "leaf", "caller" } } } };
	static dt_facts facts = { tf_defined, tf_inlined, NULL, NULL, { NULL, NULL } };
	facts.ctx = &dwarf;
	f.facts = &facts;
	const char *irq = "asm_sysvec_apic_timer_interrupt";
	uint32_t flags = DT_SEEN_OUTLINE | DT_KERNEL;
	uint32_t bm = add_at(&f, 0, 0, "main", BASE_DSO, 200, DT_SEEN_OUTLINE);
	uint32_t bl = add_at(&f, 0, bm, "leaf", BASE_DSO, 8000, DT_SEEN_OUTLINE);
	uint32_t bli = add_at(&f, 0, bl, irq, "[kernel.kallsyms]", 100, flags);
	uint32_t bc = add_at(&f, 0, bm, "caller", BASE_DSO, 600, DT_SEEN_OUTLINE);
	uint32_t bci = add_at(&f, 0, bc, irq, "[kernel.kallsyms]", 12, flags);
	add_at(&f, 0, bm, "other", BASE_DSO, 3000, DT_SEEN_OUTLINE);
	uint32_t nm = add_at(&f, 1, 0, "main", NEW_DSO, 200, DT_SEEN_OUTLINE);
	uint32_t nc = add_at(&f, 1, nm, "caller", NEW_DSO, 8600, DT_SEEN_OUTLINE);
	uint32_t nci = add_at(&f, 1, nc, irq, "[kernel.kallsyms]", 112, flags);
	add_at(&f, 1, nm, "other", NEW_DSO, 3000, DT_SEEN_OUTLINE);
	run_align(&f);
	ck_assert_uint_eq(count_kind(&f, PD_REL_INLINED), 1);
	ck_assert_msg(count_kind(&f, PD_REL_RENAMED) == 0, "%s renamed to itself",
		      f.al.nrels > 1 ? f.al.rels[1].evidence : "");
	/* one of the base's two is the new one's partner, the other none */
	uint32_t pb = f.b.n[bli].partner == nci ? bli : bci;
	ck_assert_uint_eq(f.b.n[pb].partner, nci);
	ck_assert_uint_eq(f.n.n[nci].partner, pb);
	fx_free(&f);
}
END_TEST

START_TEST(test_plt_never_renamed)
{
	fixture f;
	fx_init(&f);
	uint32_t bm = addb(&f, 0, "main", 100), nm = addn(&f, 0, "main", 100);
	addb(&f, bm, "poll@plt", 500);
	addn(&f, nm, "epoll_wait@plt", 500);
	run_align(&f);
	ck_assert_uint_eq(f.al.nrels, 0);
	fx_free(&f);
}
END_TEST

START_TEST(test_batch_variance)
{
	/* by hand: 10, 20, 30 of 100 each: p = 0.2, residuals −10, 0, 10,
	 * V = 3/2 · 200 / 300² */
	static const uint32_t x[] = { 10, 20, 30 };
	static const double T[] = { 100, 100, 100 };
	ck_assert_double_eq_tol(pd_stat_batch_var(x, T, 3), 1.5 * 200 / 90000.0, 1e-15);
	ck_assert(isnan(pd_stat_batch_var(x, T, 1)));
	/* simulated: binomial draws in 30 blocks of 200 samples at p = 0.1:
	 * V's mean is the binomial variance p(1−p)/6000 within 5 %; draws
	 * whose p switches between 0.05 and 0.15 every 5 blocks vary more,
	 * and V sees it */
	uint64_t seed = 0x243f6a8885a308d3ull;
	double sum = 0, sum_bursty = 0;
	enum { TRIALS = 2000, K = 30 };
	double Tb[K];
	for (int b = 0; b < K; b++)
		Tb[b] = 200;
	for (int t = 0; t < TRIALS; t++) {
		uint32_t xs[K], xb[K];
		for (int b = 0; b < K; b++) {
			xs[b] = xb[b] = 0;
			double pb = (b / 5) % 2 ? 0.15 : 0.05;
			for (int i = 0; i < 200; i++) {
				seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
				double u = ((seed * 0x2545f4914f6cdd1dull) >> 11) * 0x1.0p-53;
				xs[b] += u < 0.1;
				xb[b] += u < pb;
			}
		}
		sum += pd_stat_batch_var(xs, Tb, K);
		sum_bursty += pd_stat_batch_var(xb, Tb, K);
	}
	double binom = 0.1 * 0.9 / 6000;
	ck_assert_msg(fabs(sum / TRIALS / binom - 1) < 0.05, "V %.3g, binomial %.3g",
		      sum / TRIALS, binom);
	ck_assert_msg(sum_bursty / TRIALS > 3 * binom, "bursty V %.3g", sum_bursty / TRIALS);
}
END_TEST

/* ------------------------------------------------------------ dso pairs */

static uint32_t add_in(fixture *f, int side, uint32_t parent, const char *sym, const char *dso,
		       uint64_t self, uint32_t flags)
{
	uint32_t key = dt_keytab_get(&f->keys, sym, dso, false);
	ck_assert_uint_ne(key, DT_NONE);
	uint32_t id = dt_tree_child(side ? &f->n : &f->b, parent, key, DT_SEEN_OUTLINE | flags);
	ck_assert_uint_ne(id, DT_NONE);
	dt_tree_add_self(side ? &f->n : &f->b, id, 0, self);
	return id;
}

/* /tmp/dd's program as hand-built trees: main → __fget_light (670) and
 * other (330) in "a"; the new build, "b", renamed __fget_light to
 * __fdget.  Both call into libc's write (`lib_both`: present on both
 * sides, never a candidate).  `extra_new`: another new-only dso, c, with
 * the symbols of b. */
static void renamed_binary(fixture *f, bool alias, uint32_t kernel_new, bool extra_new)
{
	fx_init(f);
	if (alias)
		ck_assert_int_eq(dt_keytab_alias(&f->keys, "/work/new/b", "/work/old/a"), 0);
	uint32_t m = add_in(f, 0, 0, "main", "/work/old/a", 2, 0);
	uint32_t g = add_in(f, 0, m, "__fget_light", "/work/old/a", 600, 0);
	add_in(f, 0, g, "write", "/lib/libc.so.6", 70, 0);
	add_in(f, 0, m, "other", "/work/old/a", 330, 0);
	m = add_in(f, 1, 0, "main", "/work/new/b", 2, kernel_new);
	g = add_in(f, 1, m, "__fdget", "/work/new/b", 610, kernel_new);
	add_in(f, 1, g, "write", "/lib/libc.so.6", 60, 0);
	add_in(f, 1, m, "other", "/work/new/b", 340, kernel_new);
	if (extra_new) {
		m = add_in(f, 1, 0, "main", "/work/new/c", 2, 0);
		add_in(f, 1, m, "other", "/work/new/c", 300, 0);
		add_in(f, 1, m, "__fdget", "/work/new/c", 300, 0);
	}
	ck_assert_int_eq(dt_tree_finish(&f->b), 0);
	ck_assert_int_eq(dt_tree_finish(&f->n), 0);
}

static uint32_t pairs_of(fixture *f, dt_dso_pairs *p)
{
	const dt_tree *t[2] = { &f->b, &f->n };
	ck_assert_int_eq(dt_pair_dsos(&f->keys, t, dt_min_pts(&f->o), p), 0);
	return p->n;
}

START_TEST(test_dso_pairing)
{
	fixture f;
	dt_dso_pairs p;
	renamed_binary(&f, false, 0, false);
	ck_assert_uint_eq(pairs_of(&f, &p), 1);
	ck_assert_str_eq(p.v[0].base_dso, "/work/old/a");
	ck_assert_str_eq(p.v[0].new_dso, "/work/new/b");
	/* {main, __fget_light, other} and {main, __fdget, other}: 2 of 3 */
	ck_assert(fabs(p.v[0].similarity - 2.0 / 3) < 1e-12);
	/* unpaired, nothing below main aligns: main of a is not main of b */
	ck_assert_int_eq(dt_align_run(&f.al, &f.b, &f.n, &f.o, f.facts), 0);
	ck_assert_uint_eq(f.b.n[1].partner, DT_NONE);
	ck_assert_uint_eq(count_kind(&f, PD_REL_RENAMED), 0);
	dt_dso_pairs_free(&p);
	fx_free(&f);

	/* keyed as one (what pd_diff_new does with a pair): b's symbols take
	 * a's keys, named by a's path, and the rename is found */
	renamed_binary(&f, true, 0, false);
	ck_assert_uint_eq(pairs_of(&f, &p), 0);
	ck_assert_int_eq(dt_align_run(&f.al, &f.b, &f.n, &f.o, f.facts), 0);
	ck_assert_uint_eq(f.b.n[1].partner, 1);
	ck_assert_str_eq(dt_node_key(&f.n, 1)->dso, "/work/old/a");
	ck_assert_uint_eq(f.al.nrels, 1);
	const dt_rel *r = find_kind(&f, PD_REL_RENAMED);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(dt_node_sym(&f.b, r->b[0]), "__fget_light");
	ck_assert_str_eq(dt_node_sym(&f.n, r->n[0]), "__fdget");
	for (uint32_t i = 1; i < f.b.nn; i++)
		if (strcmp(dt_node_sym(&f.b, i), "other") == 0)
			ck_assert_uint_ne(f.b.n[i].partner, DT_NONE);
	dt_dso_pairs_free(&p);
	fx_free(&f);

	/* a kernel dso is never taken for a user one */
	renamed_binary(&f, false, DT_KERNEL, false);
	ck_assert_uint_eq(pairs_of(&f, &p), 0);
	dt_dso_pairs_free(&p);
	fx_free(&f);

	/* two new-only dsos that fit as well: ambiguous, no pair */
	renamed_binary(&f, false, 0, true);
	ck_assert_uint_eq(pairs_of(&f, &p), 0);
	dt_dso_pairs_free(&p);
	fx_free(&f);
}
END_TEST

START_TEST(test_dso_pairing_needs_names)
{
	/* two different programs that share only "main": no pair */
	fixture f;
	dt_dso_pairs p;
	fx_init(&f);
	uint32_t m = add_in(&f, 0, 0, "main", "/x/gzip", 2, 0);
	add_in(&f, 0, m, "deflate", "/x/gzip", 500, 0);
	add_in(&f, 0, m, "crc32", "/x/gzip", 500, 0);
	m = add_in(&f, 1, 0, "main", "/x/bzip2", 2, 0);
	add_in(&f, 1, m, "BZ2_compress", "/x/bzip2", 500, 0);
	add_in(&f, 1, m, "crc32", "/x/bzip2", 5, 0);
	add_in(&f, 1, m, "sort", "/x/bzip2", 495, 0);
	ck_assert_int_eq(dt_tree_finish(&f.b), 0);
	ck_assert_int_eq(dt_tree_finish(&f.n), 0);
	/* 2 shared (main, crc32) of 3: paired -- the overlap is what it is */
	ck_assert_uint_eq(pairs_of(&f, &p), 1);
	dt_dso_pairs_free(&p);
	fx_free(&f);

	fx_init(&f);
	m = add_in(&f, 0, 0, "main", "/x/gzip", 2, 0);
	add_in(&f, 0, m, "deflate", "/x/gzip", 500, 0);
	add_in(&f, 0, m, "crc32", "/x/gzip", 500, 0);
	m = add_in(&f, 1, 0, "main", "/x/bzip2", 2, 0);
	add_in(&f, 1, m, "BZ2_compress", "/x/bzip2", 500, 0);
	add_in(&f, 1, m, "sort", "/x/bzip2", 500, 0);
	ck_assert_int_eq(dt_tree_finish(&f.b), 0);
	ck_assert_int_eq(dt_tree_finish(&f.n), 0);
	ck_assert_uint_eq(pairs_of(&f, &p), 0);
	dt_dso_pairs_free(&p);
	fx_free(&f);
}
END_TEST

/* ------------------------------------------------------------ statistics */

/* Student's t density */
static double t_pdf(double x, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2)) / sqrt(df * M_PI) *
	       pow(1 + x * x / df, -(df + 1) / 2);
}

/* Two-sided tail by Simpson's rule: 1 − 2∫_0^|t| pdf. */
static double t_p2_simpson(double t, double df)
{
	const int n = 200000;
	double h = fabs(t) / n, s = t_pdf(0, df) + t_pdf(fabs(t), df);
	for (int i = 1; i < n; i++)
		s += (i % 2 ? 4 : 2) * t_pdf(i * h, df);
	return 1 - 2 * s * h / 3;
}

START_TEST(test_t_distribution)
{
	/* printed t tables: two-sided 5 % and 1 % critical values */
	static const struct {
		double t, df, p;
	} table[] = {
		{ 12.7062, 1, 0.05 },  { 4.302653, 2, 0.05 }, { 2.570582, 5, 0.05 },
		{ 2.228139, 10, 0.05 }, { 2.845340, 20, 0.01 }, { 3.169273, 10, 0.01 },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		ck_assert_msg(fabs(pd_stat_t_p2(table[i].t, table[i].df) - table[i].p) < 2e-6,
			      "t=%g df=%g: %.8f", table[i].t, table[i].df,
			      pd_stat_t_p2(table[i].t, table[i].df));
	/* numeric integration, fractional degrees of freedom included */
	static const double ts[] = { 0.1, 0.7, 1.5, 2.0, 3.3, 6.0 };
	static const double dfs[] = { 1.5, 2.0, 3.7, 9.0, 24.99, 120.0 };
	for (size_t i = 0; i < 6; i++)
		for (size_t j = 0; j < 6; j++) {
			double a = pd_stat_t_p2(ts[i], dfs[j]), b = t_p2_simpson(ts[i], dfs[j]);
			ck_assert_msg(fabs(a - b) < 1e-7, "t=%g df=%g: %.10f vs %.10f", ts[i],
				      dfs[j], a, b);
		}
	ck_assert(fabs(pd_stat_t_p2(0, 5) - 1) < 1e-12);
	/* large df: the normal */
	ck_assert(fabs(pd_stat_t_p2(1.959964, 1e9) - 0.05) < 1e-6);
	ck_assert(fabs(pd_stat_incbeta(2, 3, 0.4) - 0.5248) < 1e-12);  /* 1 − Σ binomial */
}
END_TEST

START_TEST(test_polygamma)
{
	/* reference values: mpmath 1.3 at 40 digits; ψ(1) = −γ, ψ(½) = −γ −
	 * 2 ln 2, ψ′(1) = π²/6, ψ′(½) = π²/2 in closed form */
	static const struct {
		double x, psi;
	} dg[] = { { 1, -0.5772156649015328606 },
		   { 0.5, -1.9635100260214234794 },
		   { 3.7, 1.1671535393615113859 },
		   { 25, 3.1987425128519740085 } };
	for (size_t i = 0; i < 4; i++)
		ck_assert_msg(fabs(pd_stat_digamma(dg[i].x) - dg[i].psi) < 1e-12, "ψ(%g) = %.15g",
			      dg[i].x, pd_stat_digamma(dg[i].x));
	static const struct {
		double x, tri;
	} tg[] = { { 1, M_PI * M_PI / 6 },
		   { 0.5, M_PI * M_PI / 2 },
		   { 0.3, 12.245364546107730465 },
		   { 3.7, 0.31003785767003831910 },
		   { 25, 0.040810663257225579187 } };
	for (size_t i = 0; i < 5; i++) {
		ck_assert_msg(fabs(pd_stat_trigamma(tg[i].x) - tg[i].tri) < 1e-12 * tg[i].tri,
			      "ψ′(%g) = %.15g", tg[i].x, pd_stat_trigamma(tg[i].x));
		ck_assert_msg(fabs(pd_stat_trigamma_inv(tg[i].tri) - tg[i].x) < 1e-9 * tg[i].x,
			      "ψ′⁻¹(%g) = %.15g", tg[i].tri, pd_stat_trigamma_inv(tg[i].tri));
	}
	ck_assert(isnan(pd_stat_digamma(0)) && isnan(pd_stat_trigamma(-1)));
}
END_TEST

START_TEST(test_fit_prior)
{
	/* limma's fitFDist by hand (mpmath, 40 digits): e_i = log s2_i −
	 * ψ(d_i/2) + log(d_i/2); mean 0.3167…, sample variance − mean
	 * ψ′(d_i/2) = 1.1255153; d0 = 2 ψ′⁻¹(1.1255153) = 2.6146896, s20 =
	 * exp(ē + ψ(d0/2) − log(d0/2)) = 1.3225661 */
	static const double s2[] = { 0.1, 1, 10, 0.5, 5, 2 };
	static const double df[] = { 2, 2, 4, 2, 4, 3 };
	double d0, s20;
	ck_assert_int_eq(pd_stat_fit_prior(s2, df, 6, &d0, &s20), 0);
	ck_assert_msg(fabs(d0 - 2.6146895611527268) < 1e-9, "d0 %.15g", d0);
	ck_assert_msg(fabs(s20 - 1.3225661189080689) < 1e-9, "s20 %.15g", s20);
	/* variances that scatter less than χ² noise alone: d0 = ∞, s20 the
	 * geometric mean corrected for the log's bias (here d = 2: e^γ) */
	static const double same[] = { 1.0, 1.1, 0.9, 1.05, 0.95 };
	static const double two[] = { 2, 2, 2, 2, 2 };
	ck_assert_int_eq(pd_stat_fit_prior(same, two, 5, &d0, &s20), 0);
	ck_assert(isinf(d0));
	double g = 0;
	for (size_t i = 0; i < 5; i++)
		g += log(same[i]) / 5;
	ck_assert(fabs(s20 - exp(g + 0.5772156649015329)) < 1e-12);
	/* fewer than two: the defaults */
	ck_assert_int_eq(pd_stat_fit_prior(s2, df, 1, &d0, &s20), 0);
	ck_assert(d0 == 0 && s20 == 1);
}
END_TEST

START_TEST(test_moderated_t)
{
	/* A row by hand.  Base: 30 and 34 points from runs of 2000 samples
	 * (0.05 points a sample); new: 36 from 1000 samples, 38 from 4000.
	 * Samples 600, 680, 360, 1520 over exposures 40 + 50: pooled share
	 * P = 3160/90 = 35.111 points.  Binomial run variances unit·P·(1 −
	 * P/100): base 1.13917 each, new 2.27834 and 0.56959 (mean 1.42396).
	 * SS: base 2·2² = 8, new 2·1² = 2; φ̂ = (8/1.13917 + 2/1.42396)/2 =
	 * 4.21363 on 2 df; var = 1.13917/2 + 1.42396/2 = 1.28156. */
	static const double b[] = { 30, 34 }, nw[] = { 36, 38 };
	static const double ub[] = { 0.05, 0.05 }, un[] = { 0.1, 0.025 };
	const double *vals[2] = { b, nw }, *units[2] = { ub, un };
	const size_t n[2] = { 2, 2 };
	pd_stat_row r;
	ck_assert_int_eq(pd_stat_overdispersion(vals, n, units, true, &r), 0);
	double P = 3160.0 / 90, q = 1 - P / 100;
	double vb = 0.05 * P * q, vn = (0.1 + 0.025) / 2 * P * q;
	ck_assert(fabs(r.diff - 5) < 1e-12);
	ck_assert(fabs(r.df - 2) < 1e-12);
	ck_assert(fabs(r.var - (vb / 2 + vn / 2)) < 1e-12);
	ck_assert(fabs(r.var - 1.2815555555555556) < 1e-12);
	ck_assert(fabs(r.phi - (8 / vb + 2 / vn) / 2) < 1e-12);
	ck_assert(fabs(r.phi - 4.2136292699843940) < 1e-12);
	ck_assert(fabs(r.samples - 790) < 1e-9);

	/* prior d0 = 4, φ0 = 2: φ̃ = (4·2 + 2·4.21363)/6 = 2.73788; t =
	 * 5/√(2.73788·1.28156) = 2.66928 on 6 df, p = 0.0370621 */
	double t, df;
	double p = pd_stat_moderated_t(r.diff, r.var, r.phi, r.df, 4, 2, &t, &df);
	ck_assert_msg(fabs(t - 2.6692814265071979) < 1e-12, "t %.15g", t);
	ck_assert(df == 6);
	ck_assert_msg(fabs(p - 0.037062087247950485) < 1e-9, "p %.15g", p);
	ck_assert(fabs(p - t_p2_simpson(t, 6)) < 1e-7);
	/* an infinitely sure prior: φ0 alone, the normal */
	p = pd_stat_moderated_t(r.diff, r.var, r.phi, r.df, INFINITY, 2, &t, &df);
	ck_assert(fabs(t - 5 / sqrt(2 * r.var)) < 1e-12);
	ck_assert_msg(fabs(p - 0.0017895519595048871) < 1e-9, "p %.15g", p);
	/* never below sampling noise: φ̃ < 1 counts as 1 */
	pd_stat_moderated_t(r.diff, r.var, 0.1, r.df, 4, 0.2, &t, NULL);
	ck_assert(fabs(t - 5 / sqrt(r.var)) < 1e-12);

	/* the case that made Welch useless with 2 runs a side: 32.77 ±3 % of
	 * 1800 samples a run against 0 in both runs.  Welch: t ≈ 30 on ~1
	 * df, p ≈ 0.02; moderated with the default prior (1, 4 df): p tiny */
	static const double big[] = { 31.8, 33.74 }, none[] = { 0, 0 };
	static const double u1800[] = { 100.0 / 1800, 100.0 / 1800 };
	const double *v2[2] = { big, none }, *u2[2] = { u1800, u1800 };
	ck_assert_int_eq(pd_stat_overdispersion(v2, n, u2, true, &r), 0);
	p = pd_stat_moderated_t(r.diff, r.var, r.phi, r.df, 4, 1, &t, &df);
	ck_assert_msg(p < 1e-6 && t < -30, "p %g t %g", p, t);
	/* a row whose own runs scatter wildly keeps a wide error */
	static const double wild[] = { 20, 40 }, flat[] = { 33, 33 };
	const double *v3[2] = { wild, flat };
	ck_assert_int_eq(pd_stat_overdispersion(v3, n, u2, true, &r), 0);
	ck_assert(pd_stat_moderated_t(r.diff, r.var, r.phi, r.df, 4, 1, NULL, NULL) > 0.5);
	/* nothing to test: a row at 0 everywhere */
	const double *v4[2] = { none, none };
	ck_assert_int_eq(pd_stat_overdispersion(v4, n, u2, true, &r), PD_EINVAL);
}
END_TEST

/* xorshift64* and Box–Muller: a fixed stream of standard normals */
static double normal(uint64_t *s)
{
	double u[2];
	for (int i = 0; i < 2; i++) {
		*s ^= *s >> 12;
		*s ^= *s << 25;
		*s ^= *s >> 27;
		u[i] = ((*s * 0x2545f4914f6cdd1dull) >> 11) * 0x1.0p-53;
	}
	return sqrt(-2 * log(u[0] + 0x1.0p-54)) * cos(2 * M_PI * u[1]);
}

START_TEST(test_moderated_calibration)
{
	/* Smyth's model simulated: each row's overdispersion φ_i drawn as
	 * φ0·d0/χ²(d0) (φ0 = 3, d0 = 6), its 2 + 2 runs normal around a
	 * share with variance φ_i × binomial.  The prior is fitted back from
	 * the rows, and under "no change" the moderated p-values must be
	 * uniform: 5 % of them below 0.05 (the Welch test on 2 runs a side
	 * is exact too, but it has no power: see test_moderated_t). */
	enum { ROWS = 3000 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	static pd_stat_row rows[ROWS];
	static double phi[ROWS], dfs[ROWS];
	static const double u[] = { 100.0 / 3000, 100.0 / 3000 };
	const size_t n[2] = { 2, 2 };
	for (size_t i = 0; i < ROWS; i++) {
		double chi = 0;
		for (int k = 0; k < 6; k++) {
			double z = normal(&seed);
			chi += z * z;
		}
		double phi_i = 3.0 * 6 / chi;
		double share = 1 + (double)(i % 20);  /* 1 .. 20 points */
		double v = u[0] * share * (1 - share / 100);
		double x[2], y[2];
		for (int r = 0; r < 2; r++) {
			x[r] = share + sqrt(phi_i * v) * normal(&seed);
			y[r] = share + sqrt(phi_i * v) * normal(&seed);
		}
		const double *vals[2] = { x, y }, *units[2] = { u, u };
		ck_assert_int_eq(pd_stat_overdispersion(vals, n, units, true, &rows[i]), 0);
		phi[i] = rows[i].phi;
		dfs[i] = rows[i].df;
	}
	double d0, s20;
	ck_assert_int_eq(pd_stat_fit_prior(phi, dfs, ROWS, &d0, &s20), 0);
	ck_assert_msg(d0 > 4 && d0 < 9 && s20 > 2.6 && s20 < 3.4, "prior d0 %g φ0 %g", d0, s20);
	size_t below = 0;
	for (size_t i = 0; i < ROWS; i++)
		below += pd_stat_moderated_t(rows[i].diff, rows[i].var, rows[i].phi, rows[i].df, d0,
					     s20, NULL, NULL) < 0.05;
	double rate = (double)below / ROWS;
	/* ±2.8 binomial standard deviations of 3000 draws at 5 % */
	ck_assert_msg(rate > 0.039 && rate < 0.061, "%zu of %d below 0.05", below, ROWS);
}
END_TEST

START_TEST(test_rate_z)
{
	/* two proportions, 100/1000 vs 150/1000: pooled 0.125,
	 * z = 0.05 / sqrt(0.125·0.875·2/1000) = 3.38062, p = 7.2326e-4 */
	double p = pd_stat_rate_z(100, 1000, 150, 1000, true);
	ck_assert_msg(fabs(p - 7.2326e-4) < 2e-7, "%.8g", p);
	/* Poisson rates 100 vs 150 over equal exposure: z = 50/sqrt(250) */
	p = pd_stat_rate_z(100, 1, 150, 1, false);
	ck_assert(fabs(p - erfc(50 / sqrt(250.0) / sqrt(2.0))) < 1e-12);
	ck_assert(fabs(pd_stat_rate_z(100, 1000, 100, 1000, true) - 1) < 1e-12);
}
END_TEST

START_TEST(test_benjamini_hochberg)
{
	/* Benjamini & Hochberg (1995), §4: 15 p-values; at q = 0.05 the
	 * procedure rejects the 4 smallest */
	static const double p[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201,
				    0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
				    0.4262, 0.5719, 0.6528, 0.7590, 1.000 };
	static const double want[] = { 0.0015,   0.003,    0.0095,   0.035625, 0.0603,
				       0.063857, 0.063857, 0.0645,   0.0765,   0.486,
				       0.581182, 0.714875, 0.753231, 0.813214, 1 };
	/* shuffled order: q-values follow their p-values */
	static const size_t perm[] = { 7, 3, 14, 0, 9, 5, 12, 1, 10, 6, 2, 13, 8, 4, 11 };
	double ps[15], q[15];
	for (size_t i = 0; i < 15; i++)
		ps[i] = p[perm[i]];
	ck_assert_int_eq(pd_stat_bh(ps, 15, q), 0);
	size_t rejected = 0;
	for (size_t i = 0; i < 15; i++) {
		ck_assert_msg(fabs(q[i] - want[perm[i]]) < 1e-6, "p %g: q %g", ps[i], q[i]);
		rejected += q[i] <= 0.05;
	}
	ck_assert_uint_eq(rejected, 4);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("diff_align");
	TCase *a = tcase_create("align");
	tcase_add_test(a, test_exact_by_basename);
	tcase_add_test(a, test_inlined_flag_merges_siblings);
	tcase_add_test(a, test_rename_same_parent);
	tcase_add_test(a, test_rename_ambiguous_refused);
	tcase_add_test(a, test_rename_by_source_file);
	tcase_add_test(a, test_rename_needs_evidence);
	tcase_add_test(a, test_inlined_by_cost);
	tcase_add_test(a, test_outlined_mirror);
	tcase_add_test(a, test_split_cold);
	tcase_add_test(a, test_split_needs_cost);
	tcase_add_test(a, test_moved_subtree);
	tcase_add_test(a, test_no_align_flag);
	tcase_add_test(a, test_unresolved_keyed_by_dso);
	tcase_add_test(a, test_unresolved_never_renamed);
	tcase_add_test(a, test_bpf_tag_keys);
	tcase_add_test(a, test_bpf_rebuilt_program_matches);
	tcase_add_test(a, test_name_similarity);
	tcase_add_test(a, test_dso_pairing);
	tcase_add_test(a, test_dso_pairing_needs_names);
	tcase_add_test(a, test_code_path_not_renamed);
	tcase_add_test(a, test_generic_callee_weak);
	tcase_add_test(a, test_rename_under_other_load);
	tcase_add_test(a, test_symbol_tables);
	tcase_add_test(a, test_regrown_needs_room);
	tcase_add_test(a, test_inline_facts);
	tcase_add_test(a, test_inline_skipped_caller);
	tcase_add_test(a, test_inlined_everywhere);
	tcase_add_test(a, test_inline_skipped_caller_same_child);
	tcase_add_test(a, test_plt_never_renamed);
	suite_add_tcase(s, a);
	TCase *st = tcase_create("stats");
	tcase_add_test(st, test_t_distribution);
	tcase_add_test(st, test_polygamma);
	tcase_add_test(st, test_fit_prior);
	tcase_add_test(st, test_moderated_t);
	tcase_add_test(st, test_moderated_calibration);
	tcase_add_test(st, test_rate_z);
	tcase_add_test(st, test_batch_variance);
	tcase_add_test(st, test_benjamini_hochberg);
	suite_add_tcase(s, st);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}
