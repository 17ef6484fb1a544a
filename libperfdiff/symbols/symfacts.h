/*
 * Symbol facts: which files a session named a dso's frames from, and what
 * those files say about functions — defined in the symbol table or not,
 * inlined into a caller per DWARF or not.  Evidence for renames and
 * inlining that a profile's samples alone cannot give (a function absent
 * from the new build's table has vanished; one present but unsampled has
 * not).
 *
 * Split in two on purpose: a session only reports the files it used
 * (cheap, at the end of a run), and the files are read later, when
 * someone asks (symfacts.c for symbol tables, inline_facts.c for DWARF).
 * Names are turned into keys by the caller's function, so the symbols
 * layer need not know how the profile canonicalises them.
 */
#ifndef PD_SYMBOLS_SYMFACTS_H
#define PD_SYMBOLS_SYMFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdiff/common.h"
#include "util/threads.h"

/* Where a dso's names came from. */
typedef enum pd_symsrc_kind {
	PD_SYMSRC_ELF = 1,       /* a user ELF file (and its debug file) */
	PD_SYMSRC_KALLSYMS = 2,  /* a kallsyms file (and a vmlinux for core text) */
} pd_symsrc_kind;

typedef struct pd_symsrc {
	pd_symsrc_kind kind;
	const char *elf_path;    /* ELF: the file found for the dso */
	const char *debug_path;  /* ELF: its separate debug file found by build-id, or NULL */
	const char *kallsyms;    /* KALLSYMS: the file read ("/proc/kallsyms", a copy) */
	const char *vmlinux;     /* KALLSYMS: the vmlinux that named core text, or NULL */
	const char *module;      /* KALLSYMS: the module ("ext4"), NULL for core text */
	unsigned kflags;         /* KALLSYMS: pd_kallsyms_load_flags() flags used */
} pd_symsrc;

/* Called once per file set; strings valid during the call only.  0 or an
 * error, which stops the walk and is returned. */
typedef int (*pd_symsrc_fn)(void *ctx, const pd_symsrc *src);

struct pd_symbolizer;
/* The files a symbolizer named frames of `dso` (a pd_frame.dso string)
 * from, to `fn`, for user dsos (symbolizer.c) and kernel ones
 * (symb_kernel.c): the two halves of pd_session_symbol_sources()
 * (session/session.h). */
int pd_symbolizer_user_sources(struct pd_symbolizer *z, const char *dso, pd_symsrc_fn fn,
			       void *ctx);
int pd_symbolizer_kernel_sources(struct pd_symbolizer *z, const char *dso, pd_symsrc_fn fn,
				 void *ctx);

/* Where the symbols of one dso came from, for the footer. */
typedef struct pd_symorigin {
	const char *from;        /* pd_dsofiles.from, a kernel table's place; NULL: none
	                          * found (kernel: no table of the recorded build) */
	const char *vmlinux;     /* kernel: the vmlinux naming core text, or NULL */
	const char *searched;    /* user, none found: the sources searched */
	const uint8_t *build_id; /* the recorded build-id */
	size_t build_id_size;
} pd_symorigin;

/* The origin of user dso `dso` (a pd_frame.dso string) as the symbolizer
 * looked it up; false when it never did (no build-id, JIT, anonymous). */
bool pd_symbolizer_user_origin(struct pd_symbolizer *z, const char *dso, pd_symorigin *out);
/* The kernel's table; false when no kernel address was looked up.
 * Strings valid until the symbolizer is freed. */
bool pd_symbolizer_kernel_origin(struct pd_symbolizer *z, pd_symorigin *out);

/* How names read from files become keys: displayed as the session
 * displays them (C++/Rust demangled unless !demangle, without C++
 * parameter lists unless params), then hashed by `key`. */
typedef struct pd_symkey {
	bool demangle, params;
	uint64_t (*key)(void *ctx, const char *name);
	void *ctx;
} pd_symkey;

/* A set of keys: pushed in any order, then sealed (sorted, duplicates
 * dropped) before pd_keyset_has(). */
typedef struct pd_keyset {
	uint64_t *v;
	size_t n, cap;
} pd_keyset;

/* 0 or PD_ENOMEM (the set unchanged). */
int pd_keyset_push(pd_keyset *s, uint64_t key);
void pd_keyset_seal(pd_keyset *s);
void pd_keyset_free(pd_keyset *s);
bool pd_keyset_has(const pd_keyset *s, uint64_t key);

/*
 * Keys of every function `src` defines: ELF .symtab and .dynsym of the
 * file and its debug file (functions, IFUNCs, labels in code sections,
 * PLT entries as "<name>@plt"); kallsyms text symbols of the module (or
 * of core text, with the vmlinux's).  *full: a whole table was read (a
 * .symtab, or kallsyms), so a key absent from it is a function the build
 * lacks; with only .dynsym, static functions are missing.  0, or PD_EIO /
 * PD_ENOMEM / PD_ECORRUPT with the reason, path included, in `err`.
 */
int pd_symfacts_symbols(const pd_symsrc *src, const pd_symkey *k, pd_keyset *out, bool *full,
			pd_error *err);

/*
 * DWARF inline facts of one ELF source (inline_facts.c): the file is kept
 * open until pd_inline_index_free().  pd_inline_index_open() fails with
 * PD_EUNSUPPORTED when the source has no DWARF (kallsyms, a stripped file
 * without debug file), PD_EIO when it cannot be read, the reason in
 * `err`.  `k` must outlive the index; `threads` is the budget inflating
 * its debug file may use (NULL: no thread).
 */
typedef struct pd_inline_index pd_inline_index;
int pd_inline_index_open(pd_inline_index **out, const pd_symsrc *src, const pd_symkey *k,
			 pd_threads *threads, pd_error *err);
/* The keys of the functions inlined, at any depth, into the concrete
 * subprograms (functions with code of their own) whose key is `caller`;
 * *found false when there is none.  0 or PD_ENOMEM. */
int pd_inline_index_callees(pd_inline_index *x, uint64_t caller, pd_keyset *out, bool *found);
void pd_inline_index_free(pd_inline_index *x);

#endif
