/*
 * Helpers shared by the check suites: locating test data and the corpus,
 * running commands, reading whole files, and a runner main().
 */
#ifndef PD_TESTUTIL_H
#define PD_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perfdiff/perfdiff.h"

/* CTest's "not run": pd_test_main()'s exit status when every test of
 * the suite skipped (tests/CMakeLists.txt sets SKIP_RETURN_CODE to it). */
#define PD_TEST_SKIPPED 77

/* Count a skip for pd_test_main() (PD_SKIP does). */
void pd_test_skipped(void);

/* Print why a test is skipped (visible in CTest output), count the skip
 * and return from the test. */
#define PD_SKIP(...)                                                          \
	do {                                                                  \
		fprintf(stderr, "SKIP %s: ", __func__);                       \
		fprintf(stderr, __VA_ARGS__);                                 \
		fprintf(stderr, "\n");                                        \
		pd_test_skipped();                                            \
		return;                                                       \
	} while (0)

/* "<tests/data>/<rel>" in a static buffer of the caller. */
const char *pd_test_data(char *buf, size_t n, const char *rel);
/* "<corpus>/<rel>"; NULL if the corpus folder is absent. */
const char *pd_test_corpus(char *buf, size_t n, const char *rel);
bool pd_test_corpus_present(void);

/* Read a whole file; NULL on failure.  Caller frees. */
uint8_t *pd_test_read_file(const char *path, size_t *len);
/* Write a whole file; false on failure. */
bool pd_test_write_file(const char *path, const void *data, size_t len);

/* Run `cmd` through /bin/sh, capture stdout (caller frees); exit status in *status. */
char *pd_test_run(const char *cmd, int *status);

/* True if `perf` runs here (`perf --version`). */
bool pd_test_have_perf(void);

/* A fresh temporary directory (caller removes it with pd_test_rmrf). */
char *pd_test_tmpdir(void);
void pd_test_rmrf(const char *path);

/* Run `cmd` through /bin/sh, discarding stdout; true if it exited 0. */
bool pd_test_sh_ok(const char *cmd);

/* Compile `src` into `out` with `compiler` ("cc", "c++") and `flags`;
 * true on success.  Diagnostics go to the discarded stdout. */
bool pd_test_compile(const char *compiler, const char *flags, const char *out,
		     const char *src);

/* `perf record ARGS -o DATA -- WORKLOAD` (ARGS and WORKLOAD are shell
 * text), all output discarded; true if it exited 0 and DATA exists. */
bool pd_test_perf_record(const char *data, const char *args, const char *workload);

/* Copy the ELF file `elf` into `cache`, a private build-id cache laid out
 * as perf's ~/.debug (.build-id/xx/rest/elf), for the session's
 * buildid_dir: recordings of a program stay symbolizable after it is
 * rebuilt at the same path.  Never `perf buildid-cache`, which writes
 * ~/.debug whatever PERF_BUILDID_DIR says.  True on success. */
bool pd_test_buildid_cache_add(const char *cache, const char *elf);

/* Time of the first sample `perf script` prints for `data`, in ns; false
 * when it prints none (the suites skip then). */
bool pd_test_perf_first_time(const char *data, uint64_t *ns);

/* One frame of `perf script --ns -F tid,time,ip,sym,dso` output. */
typedef struct pd_test_pframe {
	uint64_t addr;      /* as printed: in its dso for user frames */
	char *name;         /* the symbol text ("[unknown]" included; owned) */
	bool inlined;       /* "(inlined)" where the dso would be */
	bool kernel;        /* a "[kernel..." dso */
} pd_test_pframe;

/* One sample of that output, leaf first. */
typedef struct pd_test_pstack {
	uint32_t tid;
	uint64_t time;      /* ns */
	bool cut;           /* free for the suites' own use (0 from the parser) */
	size_t n, cap;
	pd_test_pframe *f;
} pd_test_pstack;

typedef struct pd_test_pstacks {
	size_t n, cap;
	pd_test_pstack *v;
} pd_test_pstacks;

/* Parse `perf script --ns -F tid,time,ip,sym,dso` output (`text` is
 * modified) into `out`, in the order perf prints the samples. */
void pd_test_parse_perf_stacks(char *text, pd_test_pstacks *out);
/* Run that perf script on `data` and parse it; false when perf fails. */
bool pd_test_perf_stacks(const char *data, pd_test_pstacks *out);
/* Append a frame to `s` (the name is copied); the test fails without memory. */
void pd_test_pstack_push(pd_test_pstack *s, uint64_t addr, const char *name, bool inlined,
			 bool kernel);
void pd_test_pstacks_free(pd_test_pstacks *s);

/* Fixture preamble of the suites that record with perf: checks that perf
 * (and with need_cc a C compiler, `cc`) runs and makes a temporary
 * directory, returned in *dir.  NULL on success; otherwise the reason to
 * skip (static text) with *dir NULL. */
const char *pd_test_lab_open(bool need_cc, char **dir);
/* Remove and free a directory from pd_test_lab_open; NULL is fine. */
void pd_test_lab_close(char *dir);

/* Skip the current test with `reason` (a fixture's skip text) unless NULL. */
#define PD_SKIP_IF(reason)                                                    \
	do {                                                                  \
		const char *pd_skip_reason_ = (reason);                       \
		if (pd_skip_reason_)                                          \
			PD_SKIP("%s", pd_skip_reason_);                       \
	} while (0)

/* Run `perfdiff ARGS` (shell text) with its stderr captured through a file
 * in `dir` (/tmp when NULL): stdout returned (caller frees), exit status in
 * *status, stderr text in *err (caller frees; may be NULL).  Fails the test
 * when the command cannot run or stderr holds a sanitizer report, whose
 * exit status 1 would otherwise pass for "read with warnings". */
char *pd_test_cli(const char *dir, const char *args, int *status, char **err);

/* pd_test_cli() of printf-formatted ARGS that must exit 0 or 1 (read, with
 * warnings or not): stdout returned (caller frees). */
char *pd_test_cli_read(const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- recordings of binaries that are not on this machine ----
 * (perfparser's test data: static binaries shipped next to their
 * `--call-graph dwarf` recordings) */

/* Room for the paths below. */
#define PD_TEST_PATHMAX 4200

/* The contents of `path`, else of `path`.zlib (a 4-byte big-endian length,
 * then a zlib stream, as perfparser ships its larger files) inflated; NULL
 * when neither can be read.  A NUL follows the *len bytes, so text can be
 * parsed in place.  A malformed .zlib, or no zlib (libz.so.1, loaded at
 * run time: the tests do not link it) fails the test.  Caller frees. */
uint8_t *pd_test_load_maybe_zlib(const char *path, size_t *len);

/* mkdir -p; failures show in the writes that follow. */
void pd_test_mkdirs(const char *path);

/* A --symfs root where the binaries are put at their recorded paths. */
typedef struct pd_test_symfs {
	char root[PD_TEST_PATHMAX];     /* DIR/symfs */
	char nocache[PD_TEST_PATHMAX];  /* DIR/no-buildid-cache, left empty */
} pd_test_symfs;

/* Make both directories under `dir` and initialise `o` to look code up
 * there alone: symfs the root, kallsyms /dev/null (kernel frames stay
 * unnamed, as in perfparser's own test), buildid_dir the empty cache (not
 * ~/.debug), jit_dir `dir`.  `o` points into `fs`. */
void pd_test_symfs_init(pd_test_symfs *fs, const char *dir, pd_session_options *o);

/* Write `bin` under the root at every path an MMAP record of `data` gives
 * for a file whose base name is `name`; a path that already holds a file
 * is left alone.  Returns how many it wrote. */
size_t pd_test_symfs_add(const pd_test_symfs *fs, const char *data, const char *name,
			 const uint8_t *bin, size_t len);

/* Read every record of `path`; fills stats and returns the final code
 * (PD_ITEROVER on success) and the warning count. */
typedef struct pd_test_readout {
	int open_rc;
	int rc;
	pd_error err;
	pd_reader_stats stats;
	size_t nattrs;
	uint64_t samples;
	size_t warnings;
	size_t data_lost;    /* of those, PD_WARN_DATA_LOST */
	pd_input_mode mode;
} pd_test_readout;
void pd_test_read_all(const char *path, unsigned flags, pd_test_readout *out);
/* Same over an in-memory image written to a temp file. */
void pd_test_read_buffer(const void *data, size_t len, unsigned flags,
			 pd_test_readout *out);

/* A growable byte image for files and records built by hand.  The
 * writes are little-endian: the host is x86-64 or another LE machine. */
typedef struct pd_test_img {
	uint8_t *b;
	size_t n, cap;
} pd_test_img;
void pd_test_put(pd_test_img *m, const void *v, size_t n);
void pd_test_put16(pd_test_img *m, uint16_t v);
void pd_test_put32(pd_test_img *m, uint32_t v);
void pd_test_put64(pd_test_img *m, uint64_t v);
void pd_test_put_zero(pd_test_img *m, size_t n);
/* Zeros up to the next multiple of 8. */
void pd_test_pad8(pd_test_img *m);
/* Overwrite bytes already written at `at`. */
void pd_test_set16(pd_test_img *m, size_t at, uint16_t v);
void pd_test_set64(pd_test_img *m, size_t at, uint64_t v);
void pd_test_img_free(pd_test_img *m);

/* What `write` puts into a pd_writer, as a NUL-terminated string (caller
 * frees); the test fails when it, the flush or the writer fails. */
typedef int (*pd_test_write_fn)(pd_writer *w, void *ctx, pd_error *err);
char *pd_test_written(pd_test_write_fn write, void *ctx);

/* Two per-dso count lists (pd_session_unresolved(), pd_session_truncated())
 * hold the same dsos with the same counts, in any order. */
void pd_test_assert_same_counts(const pd_unresolved_count *a, size_t na,
				const pd_unresolved_count *b, size_t nb);

/* Run the suite: EXIT_FAILURE when a test failed; PD_TEST_SKIPPED when
 * every test skipped (a suite that ran nothing did not pass: CTest shows
 * it as not run); EXIT_SUCCESS otherwise, some tests skipped or not. */
int pd_test_main(Suite *s);

#endif
