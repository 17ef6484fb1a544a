/*
 * Symbol facts of a profile: for every dso with sampled frames, the files
 * each run's session named it from (recorded at the end of the run: a few
 * paths per dso), and what those files say, read only when someone asks
 * (pd_profile_symbol_defined(), pd_profile_inlined_into()) and then kept:
 * a profile that is only reported opens no file for this.
 *
 * Names are compared as the profile names nodes: displayed as the
 * sessions display them (demangled per the session flags), clone suffixes
 * folded unless PD_PROFILE_KEEP_SUFFIXES, then hashed to 64 bits.  The
 * file readers are in symbols/ (symfacts.c, inline_facts.c); what is read
 * is cached here per file set: a sorted set of name keys, and per caller
 * the keys of the functions inlined into it.
 *
 * Queries take a const profile and may run on several threads at once
 * (two diffs reading one profile): one mutex guards the lazy cache.
 */
#include <stdlib.h>

#include "internal.h"
#include "session/session.h"
#include "symbols/symfacts.h"
#include "util/u64map.h"

/* The inline instances under one caller. */
typedef struct callees {
	pd_keyset keys;
	bool found;          /* the caller has code of its own in the DWARF */
} callees;

/* One set of files, read on demand. */
typedef struct factfile {
	pd_symsrc src;       /* strings in the facts' arena */
	bool sym_tried, sym_ok, sym_full;
	pd_keyset syms;
	bool dw_tried;
	pd_inline_index *dw; /* NULL: no DWARF (or not read yet) */
	pd_u64map callers;   /* caller key → callees */
} factfile;

/* A dso string of some run and the files it was named from; NO_FILE:
 * a run had frames of it but no file (not found, JIT, the vdso). */
typedef struct factdso {
	const char *dso;
	size_t file;
} factdso;

#define NO_FILE SIZE_MAX

struct pd_facts {
	pthread_mutex_t mu;
	pd_arena arena;
	factfile *files;
	size_t nfiles, cap_files;
	factdso *dsos;
	size_t ndsos, cap_dsos;
	pd_symkey key;       /* ctx: this object */
	bool keep_suffixes;
	char *name;          /* canonical-name scratch, under mu */
	size_t cap_name;
	size_t loaded;       /* tables and DWARF indexes read */
	pd_threads *threads; /* the profile's budget, for inflating debug files */
};

/* ------------------------------------------------------------ naming */

static uint64_t name_key(void *ctx, const char *name)
{
	pd_facts *f = ctx;
	if (f->keep_suffixes)
		return pd_hash_words(name, strlen(name));
	size_t len = pd_symbol_canonical(name, f->name, f->cap_name);
	if (len >= f->cap_name) {
		size_t cap = len + 1 > 256 ? len + 1 : 256;
		char *b = realloc(f->name, cap);
		if (!b)  /* out of memory: the name as it is, rather than fail */
			return pd_hash_words(name, strlen(name));
		f->name = b;
		f->cap_name = cap;
		pd_symbol_canonical(name, f->name, f->cap_name);
	}
	return pd_hash_words(f->name, len);
}

int pd_facts_new(pd_facts **out, const pd_profile_options *o, pd_threads *threads)
{
	pd_facts *f = calloc(1, sizeof *f);
	if (!f || pthread_mutex_init(&f->mu, NULL) != 0) {
		free(f);
		return PD_ENOMEM;
	}
	pd_arena_init(&f->arena);
	unsigned sf = o->session->flags;
	f->key = (pd_symkey){ .demangle = !(sf & PD_SESSION_NO_DEMANGLE),
			      .params = !(sf & PD_SESSION_PERF_COMPAT), .key = name_key, .ctx = f };
	f->keep_suffixes = (o->flags & PD_PROFILE_KEEP_SUFFIXES) != 0;
	f->threads = threads;
	*out = f;
	return 0;
}

static void file_free(factfile *ff)
{
	pd_keyset_free(&ff->syms);
	pd_inline_index_free(ff->dw);
	for (size_t i = 0; i < ff->callers.cap; i++) {
		callees *c = ff->callers.vals[i];
		if (c) {
			pd_keyset_free(&c->keys);
			free(c);
		}
	}
	pd_u64map_free(&ff->callers);
}

void pd_facts_free(pd_facts *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nfiles; i++)
		file_free(&f->files[i]);
	free(f->files);
	free(f->dsos);
	free(f->name);
	pd_arena_free(&f->arena);
	pthread_mutex_destroy(&f->mu);
	free(f);
}

/* ------------------------------------------------------------ recording */

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_src(const pd_symsrc *a, const pd_symsrc *b)
{
	return a->kind == b->kind && a->kflags == b->kflags && same_str(a->elf_path, b->elf_path) &&
	       same_str(a->debug_path, b->debug_path) && same_str(a->kallsyms, b->kallsyms) &&
	       same_str(a->vmlinux, b->vmlinux) && same_str(a->module, b->module);
}

static const char *copy(pd_facts *f, const char *s, bool *ok)
{
	const char *c = s ? pd_arena_strndup(&f->arena, s, strlen(s)) : NULL;
	*ok = *ok && (c || !s);
	return c;
}

/* The index of the file set `src`, added when new; SIZE_MAX on ENOMEM. */
static size_t file_of(pd_facts *f, const pd_symsrc *src)
{
	for (size_t i = 0; i < f->nfiles; i++)
		if (same_src(&f->files[i].src, src))
			return i;
	if (f->nfiles == f->cap_files) {
		size_t cap = f->cap_files ? f->cap_files * 2 : 16;
		factfile *v = realloc(f->files, cap * sizeof *v);
		if (!v)
			return SIZE_MAX;
		f->files = v;
		f->cap_files = cap;
	}
	bool ok = true;
	factfile *ff = &f->files[f->nfiles];
	memset(ff, 0, sizeof *ff);
	ff->src = (pd_symsrc){ src->kind, copy(f, src->elf_path, &ok), copy(f, src->debug_path, &ok),
			       copy(f, src->kallsyms, &ok), copy(f, src->vmlinux, &ok),
			       copy(f, src->module, &ok), src->kflags };
	pd_u64map_init(&ff->callers);
	return ok ? f->nfiles++ : SIZE_MAX;
}

typedef struct recording {
	pd_facts *f;
	const char *dso;     /* the facts' copy */
	size_t nsrc;
} recording;

static int add_dso(pd_facts *f, const char *dso, size_t file)
{
	for (size_t i = 0; i < f->ndsos; i++)
		if (f->dsos[i].file == file && strcmp(f->dsos[i].dso, dso) == 0)
			return 0;
	if (f->ndsos == f->cap_dsos) {
		size_t cap = f->cap_dsos ? f->cap_dsos * 2 : 64;
		factdso *v = realloc(f->dsos, cap * sizeof *v);
		if (!v)
			return PD_ENOMEM;
		f->dsos = v;
		f->cap_dsos = cap;
	}
	f->dsos[f->ndsos++] = (factdso){ dso, file };
	return 0;
}

static int record_src(void *ctx, const pd_symsrc *src)
{
	recording *r = ctx;
	size_t file = file_of(r->f, src);
	r->nsrc++;
	return file == SIZE_MAX ? PD_ENOMEM : add_dso(r->f, r->dso, file);
}

int pd_facts_record(pd_facts *f, pd_session *s, const char *dso, bool kernel)
{
	const char *known = NULL;
	for (size_t i = 0; i < f->ndsos && !known; i++)
		if (strcmp(f->dsos[i].dso, dso) == 0)
			known = f->dsos[i].dso;
	bool ok = true;
	recording r = { f, known ? known : copy(f, dso, &ok), 0 };
	if (!ok)
		return PD_ENOMEM;
	int rc = pd_session_symbol_sources(s, dso, kernel, record_src, &r);
	return rc == 0 && r.nsrc == 0 ? add_dso(f, r.dso, NO_FILE) : rc;
}

/* ------------------------------------------------------------ reading */

static void load_symbols(pd_facts *f, factfile *ff)
{
	if (ff->sym_tried)
		return;
	ff->sym_tried = true;
	/* a file that cannot be read only leaves its facts unknown: no words */
	ff->sym_ok = pd_symfacts_symbols(&ff->src, &f->key, &ff->syms, &ff->sym_full, NULL) == 0;
	f->loaded++;
}

static void load_dwarf(pd_facts *f, factfile *ff)
{
	if (ff->dw_tried)
		return;
	ff->dw_tried = true;
	/* no DWARF only leaves the inline facts unknown: no words */
	if (pd_inline_index_open(&ff->dw, &ff->src, &f->key, f->threads, NULL) == 0)
		f->loaded++;
}

/* The inline instances under `caller` in `ff`'s DWARF; NULL on ENOMEM. */
static const callees *callees_of(factfile *ff, uint64_t caller)
{
	callees *c = pd_u64map_get(&ff->callers, caller);
	if (c)
		return c;
	c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	if (pd_inline_index_callees(ff->dw, caller, &c->keys, &c->found) < 0 ||
	    pd_u64map_put(&ff->callers, caller, c) < 0) {
		pd_keyset_free(&c->keys);
		free(c);
		return NULL;
	}
	return c;
}

/* ------------------------------------------------------------ queries */

/* Over the file sets of `dso`: YES when one says so, NO when every one
 * was read whole and says no, else UNKNOWN. */
static pd_symbol_fact defined_locked(pd_facts *f, const char *dso, uint64_t key)
{
	bool any = false, all_whole = true;
	for (size_t i = 0; i < f->ndsos; i++) {
		if (strcmp(f->dsos[i].dso, dso) != 0)
			continue;
		any = true;
		if (f->dsos[i].file == NO_FILE) {
			all_whole = false;
			continue;
		}
		factfile *ff = &f->files[f->dsos[i].file];
		load_symbols(f, ff);
		if (ff->sym_ok && pd_keyset_has(&ff->syms, key))
			return PD_FACT_YES;
		all_whole = all_whole && ff->sym_ok && ff->sym_full;
	}
	return any && all_whole ? PD_FACT_NO : PD_FACT_UNKNOWN;
}

static pd_symbol_fact inlined_locked(pd_facts *f, const char *dso, uint64_t callee,
				     uint64_t caller)
{
	bool any = false, all_read = true;
	for (size_t i = 0; i < f->ndsos; i++) {
		if (strcmp(f->dsos[i].dso, dso) != 0)
			continue;
		any = true;
		factfile *ff = f->dsos[i].file == NO_FILE ? NULL : &f->files[f->dsos[i].file];
		if (ff)
			load_dwarf(f, ff);
		const callees *c = ff && ff->dw ? callees_of(ff, caller) : NULL;
		if (c && c->found && pd_keyset_has(&c->keys, callee))
			return PD_FACT_YES;
		all_read = all_read && c && c->found;
	}
	return any && all_read ? PD_FACT_NO : PD_FACT_UNKNOWN;
}

pd_symbol_fact pd_profile_symbol_defined(const pd_profile *p, const char *dso, const char *name)
{
	if (!p || !p->facts || !dso || !name)
		return PD_FACT_UNKNOWN;
	pd_facts *f = p->facts;
	pthread_mutex_lock(&f->mu);
	pd_symbol_fact r = defined_locked(f, dso, name_key(f, name));
	pthread_mutex_unlock(&f->mu);
	return r;
}

pd_symbol_fact pd_profile_inlined_into(const pd_profile *p, const char *dso, const char *callee,
				       const char *caller)
{
	if (!p || !p->facts || !dso || !callee || !caller)
		return PD_FACT_UNKNOWN;
	pd_facts *f = p->facts;
	pthread_mutex_lock(&f->mu);
	uint64_t ce = name_key(f, callee), cr = name_key(f, caller);
	pd_symbol_fact r = inlined_locked(f, dso, ce, cr);
	pthread_mutex_unlock(&f->mu);
	return r;
}

size_t pd_facts_loaded(const pd_profile *p)
{
	if (!p || !p->facts)
		return 0;
	pthread_mutex_lock(&p->facts->mu);
	size_t n = p->facts->loaded;
	pthread_mutex_unlock(&p->facts->mu);
	return n;
}
