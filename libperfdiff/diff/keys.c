/*
 * Node keys of the diff: (symbol, dso basename).  The basename because
 * the two builds compared usually live in different folders (/tmp/a/prog
 * and /tmp/b/prog) and are the same program all the same; addresses never
 * enter a key.  One table serves both trees, so equal keys are equal ids.
 * A dso paired with one of another name (dsos.c) is an alias: its symbols
 * take the keys of the other.
 *
 * A frame without a symbol is named by its address, which ASLR moves
 * between runs: keyed so, it would give rows that never pair.  All of a
 * dso's unresolved frames share the key ("[unknown]", dso), as perf diff
 * merges them; the key stays marked unresolved so that it never takes
 * part in renames or moves, only in exact matches along aligned paths.
 *
 * A BPF program is named "bpf_prog_<tag>_<name>" by its KSYMBOL record,
 * the tag being 16 hex digits of a hash of its instructions: every
 * rebuild, however small, changes it, and the program would pair only
 * through the rename pass, or not at all.  Keys compare such names as
 * "bpf_prog_<name>" and keep the first spelling seen (the base's) to
 * show.  A program without a name ("bpf_prog_<tag>") has nothing else to
 * be told apart by and keeps its tag.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void dt_keytab_init(dt_keytab *t)
{
	memset(t, 0, sizeof *t);
	pd_u64map_init(&t->index);
}

void dt_keytab_free(dt_keytab *t)
{
	free(t->v);
	free(t->alias);
	free(t->scratch);
	pd_u64map_free(&t->index);
	memset(t, 0, sizeof *t);
}

const char *dt_basename(const char *path)
{
	if (!path)
		return "";
	/* "[kernel.kallsyms]" and friends have no folder; a path may end in '/' */
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

#define BPF_PREFIX "bpf_prog_"
#define BPF_PREFIX_LEN 9
#define BPF_TAG_LEN 16

/*
 * What a key compares of `sym`: (BPF_PREFIX when *bpf) + the returned
 * string.  "bpf_prog_<tag>_<name>" gives <name>; any other name starting
 * with BPF_PREFIX (a canonical name already, or one without a name) what
 * follows the prefix, so both spellings of a program meet.
 */
static const char *compared_part(const char *sym, bool *bpf)
{
	*bpf = strncmp(sym, BPF_PREFIX, BPF_PREFIX_LEN) == 0;
	if (!*bpf)
		return sym;
	const char *tag = sym + BPF_PREFIX_LEN;
	for (size_t i = 0; i < BPF_TAG_LEN; i++)
		/* the kernel prints the tag with %02x: lower case only */
		if (!((tag[i] >= '0' && tag[i] <= '9') || (tag[i] >= 'a' && tag[i] <= 'f')))
			return tag;
	if (tag[BPF_TAG_LEN] != '_' || tag[BPF_TAG_LEN + 1] == '\0')
		return tag;
	return tag + BPF_TAG_LEN + 1;
}

static bool same_sym(const char *a, const char *b)
{
	bool ba, bb;
	const char *pa = compared_part(a, &ba), *pb = compared_part(b, &bb);
	return ba == bb && strcmp(pa, pb) == 0;
}

static uint64_t key_hash(const char *sym, const char *dbase)
{
	bool bpf;
	const char *part = compared_part(sym, &bpf);
	uint64_t h = PD_HASH_INIT;
	if (bpf)
		h = pd_hash_bytes(h, BPF_PREFIX, BPF_PREFIX_LEN);
	h = pd_hash_str(h, part);
	h = pd_hash_bytes(h, "\0", 1);
	return pd_mix64(pd_hash_str(h, dbase));
}

/* Hash of the name without clone suffixes, for split/merge stems. */
static int stem_of(dt_keytab *t, const char *sym, const char *dbase, uint64_t *stem,
		   bool *differs)
{
	size_t len = pd_symbol_canonical(sym, t->scratch, t->cap_scratch);
	if (len >= t->cap_scratch) {
		size_t cap = len + 1 > 128 ? len + 1 : 128;
		char *b = realloc(t->scratch, cap);
		if (!b)
			return PD_ENOMEM;
		t->scratch = b;
		t->cap_scratch = cap;
		pd_symbol_canonical(sym, t->scratch, t->cap_scratch);
	}
	/* the BPF tag is no clone suffix: compared, not counted as one */
	*differs = strcmp(t->scratch, sym) != 0;
	*stem = key_hash(t->scratch, dbase);
	return 0;
}

int dt_keytab_alias(dt_keytab *t, const char *from, const char *to_dso)
{
	dt_alias *v = realloc(t->alias, (t->nalias + 1) * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	t->alias = v;
	v[t->nalias++] = (dt_alias){ dt_basename(from), to_dso, dt_basename(to_dso) };
	return 0;
}

static uint32_t find(const dt_keytab *t, const char *sym, const char *dbase, uint64_t h)
{
	uintptr_t head = (uintptr_t)pd_u64map_get(&t->index, h);
	for (uint32_t i = head ? (uint32_t)(head - 1) : DT_NONE; i != DT_NONE; i = t->v[i].next)
		if (same_sym(t->v[i].sym, sym) && strcmp(t->v[i].dbase, dbase) == 0)
			return i;
	return DT_NONE;
}

uint32_t dt_keytab_find(const dt_keytab *t, const char *sym, const char *dbase)
{
	return find(t, sym ? sym : "", dbase, key_hash(sym ? sym : "", dbase));
}

uint32_t dt_keytab_get(dt_keytab *t, const char *sym, const char *dso, bool unresolved)
{
	if (!sym)
		sym = "";
	/* a profile may already spell it so: one key all the same */
	if (unresolved || strcmp(sym, DT_UNKNOWN) == 0) {
		sym = DT_UNKNOWN;
		unresolved = true;
	}
	const char *dbase = dt_basename(dso);
	for (uint32_t i = 0; i < t->nalias; i++)
		if (strcmp(t->alias[i].from, dbase) == 0) {
			dso = t->alias[i].to_dso;
			dbase = t->alias[i].to_dbase;
			break;
		}
	uint64_t h = key_hash(sym, dbase);
	uint32_t found = find(t, sym, dbase, h);
	if (found != DT_NONE)
		return found;
	uintptr_t head = (uintptr_t)pd_u64map_get(&t->index, h);
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		if (cap <= t->cap || cap >= DT_NONE - 1)
			return DT_NONE;
		dt_key *v = realloc(t->v, (size_t)cap * sizeof *v);
		if (!v)
			return DT_NONE;
		t->v = v;
		t->cap = cap;
	}
	dt_key *k = &t->v[t->n];
	memset(k, 0, sizeof *k);
	k->sym = sym;
	k->dso = dso ? dso : "";
	k->dbase = dbase;
	k->hash = h;
	k->unresolved = unresolved;
	k->next = head ? (uint32_t)(head - 1) : DT_NONE;
	if (stem_of(t, sym, dbase, &k->stem, &k->has_suffix) < 0)
		return DT_NONE;
	if (pd_u64map_put(&t->index, h, (void *)(uintptr_t)(t->n + 1)) < 0)
		return DT_NONE;
	return t->n++;
}

bool dt_key_same_dso(const dt_keytab *t, uint32_t a, uint32_t b)
{
	if (a == DT_NONE || b == DT_NONE)
		return false;
	return strcmp(t->v[a].dbase, t->v[b].dbase) == 0;
}
