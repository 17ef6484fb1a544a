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

/* Print why a test is skipped (visible in CTest output) and return from it. */
#define PD_SKIP(...)                                                          \
	do {                                                                  \
		fprintf(stderr, "SKIP %s: ", __func__);                       \
		fprintf(stderr, __VA_ARGS__);                                 \
		fprintf(stderr, "\n");                                        \
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

/* Time of the first sample `perf script` prints for `data`, in ns; false
 * when it prints none (the suites skip then). */
bool pd_test_perf_first_time(const char *data, uint64_t *ns);

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
	pd_input_mode mode;
} pd_test_readout;
void pd_test_read_all(const char *path, unsigned flags, pd_test_readout *out);
/* Same over an in-memory image written to a temp file. */
void pd_test_read_buffer(const void *data, size_t len, unsigned flags,
			 pd_test_readout *out);

/* Run the suite and return the process exit status. */
int pd_test_main(Suite *s);

#endif
