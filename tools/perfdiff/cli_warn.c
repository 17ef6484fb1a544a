/*
 * The warnings of the files a command read, summed up once at its end.
 * A system-wide recording made with `perf record -N` gives dozens of
 * "no build-id in the recording; using … unverified" lines the user can do
 * nothing about, and a comparison of four runs gives each of them four
 * times; in that noise a truncated file goes unseen.  So: one line per
 * text, naming the files that gave it
 *
 *   perfdiff: warning: libc.so.6: no build-id … unverified (4 files: old1.data, …)
 *
 * at most the first few of each kind (pd_warning_kind), and a last line
 * that counts them by kind when some were left out (-v prints them all,
 * -q none).  The kinds also give the exit status:
 * 1 when data was lost, or with --strict when there was any warning.
 *
 * Files used without a build-id check (PD_WARN_UNVERIFIED) are no
 * warnings of that kind: every `perf record -N` recording has them (ld.so,
 * libc, the kernel), perf says nothing of them, and a line each would
 * bury the warnings that matter.  They are counted in one line,
 *
 *   perfdiff: 3 binaries read without a recorded build-id (unverified); -v lists them
 *
 * listed only with -v, and do not count for --strict, which would
 * otherwise fail every -N recording and so say nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_io.h"

/* Lines a kind shows by default. */
#define SHOWN_PER_KIND 3
/* File names a line lists; more are counted. */
#define MAX_NAMES 4
#define NKINDS 6

struct cli_warn_entry {
	char *text;            /* without the file prefix */
	uint64_t hash;
	pd_warning_kind kind;
	char **files;          /* distinct, in the order seen; owned */
	size_t nfiles, cap;
};

static const char *const kind_words[NKINDS] = {
	[PD_WARN_OTHER] = "others",
	[PD_WARN_DATA_LOST] = "about lost records",
	[PD_WARN_METADATA] = "about skipped header sections",
	[PD_WARN_UNVERIFIED] = "about files used without a build-id check",  /* -v only */
	[PD_WARN_NOT_FOUND] = "about files not found ([unknown] frames)",
	[PD_WARN_MISMATCH] = "about build-id mismatches ([unknown] frames)",
};

static unsigned kind_index(pd_warning_kind k)
{
	return (unsigned)k < NKINDS ? (unsigned)k : PD_WARN_OTHER;
}

static uint64_t text_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

void cli_warns_init(cli_warns *w)
{
	memset(w, 0, sizeof *w);
}

/* `file` (a copy: the library's path goes with its object) among the
 * entry's. */
static bool add_file(cli_warn_entry *e, const char *file)
{
	for (size_t i = 0; i < e->nfiles; i++)
		if (strcmp(e->files[i], file) == 0)
			return true;
	if (e->nfiles == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 4;
		char **v = realloc(e->files, cap * sizeof *v);
		if (!v)
			return false;
		e->files = v;
		e->cap = cap;
	}
	if (!(e->files[e->nfiles] = strdup(file)))
		return false;
	e->nfiles++;
	return true;
}

/* The entry holding `text` of `kind`, made when new; NULL without memory. */
static cli_warn_entry *entry(cli_warns *w, const char *text, pd_warning_kind kind)
{
	uint64_t h = text_hash(text);
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].hash == h && w->v[i].kind == kind && strcmp(w->v[i].text, text) == 0)
			return &w->v[i];
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		cli_warn_entry *v = realloc(w->v, cap * sizeof *v);
		if (!v)
			return NULL;
		w->v = v;
		w->cap = cap;
	}
	cli_warn_entry *e = &w->v[w->n];
	memset(e, 0, sizeof *e);
	if (!(e->text = strdup(text)))
		return NULL;
	e->hash = h;
	e->kind = kind;
	w->n++;
	return e;
}

void cli_warns_add(cli_warns *w, const char *file, pd_warning_kind kind, const char *text)
{
	if (!text)
		return;
	size_t flen = file ? strlen(file) : 0;
	if (file && strncmp(text, file, flen) == 0 && text[flen] == ':' && text[flen + 1] == ' ')
		text += flen + 2;
	if (kind == PD_WARN_DATA_LOST)
		w->data_lost = true;
	if (kind != PD_WARN_UNVERIFIED)
		w->count++;
	cli_warn_entry *e = entry(w, text, kind);
	if (!e || (file && !add_file(e, file))) {
		/* no memory to hold it: at once, as it is */
		if (file)
			cli_warning("%s: %s", file, text);
		else
			cli_warning("%s", text);
	}
}

void cli_warns_sink(void *ctx, pd_warning_kind kind, const char *path, const char *msg)
{
	cli_warns_add(ctx, path, kind, msg);
}

/* `text` of `kind` about `file` (NULL: none) into `w`, not counted: the
 * entry of a merge. */
static void merge_one(cli_warns *w, const char *file, pd_warning_kind kind, const char *text)
{
	cli_warn_entry *e = entry(w, text, kind);
	if (e && (!file || add_file(e, file)))
		return;
	/* no memory to hold it: at once, as it is */
	if (file)
		cli_warning("%s: %s", file, text);
	else
		cli_warning("%s", text);
}

void cli_warns_merge(cli_warns *dst, cli_warns *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const cli_warn_entry *e = &src->v[i];
		if (e->nfiles == 0)
			merge_one(dst, NULL, e->kind, e->text);
		for (size_t k = 0; k < e->nfiles; k++)
			merge_one(dst, e->files[k], e->kind, e->text);
	}
	dst->count += src->count;
	dst->data_lost |= src->data_lost;
	cli_warns_free(src);
}

void cli_warns_lost(cli_warns *w, const char *file, uint64_t lost, uint64_t samples)
{
	if (lost == 0)
		return;
	double share = (double)lost / (double)(lost + samples);
	char text[256];
	snprintf(text, sizeof text,
		 "%llu samples lost while recording (%.1f %% of %llu)%s",
		 (unsigned long long)lost, 100 * share, (unsigned long long)(lost + samples),
		 share > CLI_LOST_SHARE ? ": perf could not keep up (a bigger -m, a lower -F)"
					: "");
	cli_warns_add(w, file, share > CLI_LOST_SHARE ? PD_WARN_DATA_LOST : PD_WARN_OTHER, text);
}

/* "(4 files: a, b, c, d)", "(7 files: a, b, c and 4 more)" into buf. */
static void file_list(const cli_warn_entry *e, char *buf, size_t n)
{
	size_t shown = e->nfiles <= MAX_NAMES ? e->nfiles : MAX_NAMES - 1;
	int at = snprintf(buf, n, " (%zu files: ", e->nfiles);
	for (size_t k = 0; k < shown && at > 0 && (size_t)at < n; k++)
		at += snprintf(buf + at, n - (size_t)at, "%s%s", k ? ", " : "", e->files[k]);
	if (at > 0 && (size_t)at < n)
		snprintf(buf + at, n - (size_t)at, shown < e->nfiles ? " and %zu more)" : ")",
			 e->nfiles - shown);
}

static void print_one(const cli_warn_entry *e)
{
	if (e->nfiles == 0) {
		cli_warning("%s", e->text);
	} else if (e->nfiles == 1) {
		cli_warning("%s: %s", e->files[0], e->text);
	} else {
		char names[1024];
		file_list(e, names, sizeof names);
		cli_warning("%s%s", e->text, names);
	}
}

/* "12 warnings: 9 about files not found ([unknown] frames), 3 others;
 * 6 not shown (-v shows them)"; files used unverified have their own line. */
static void print_summary(const size_t *per_kind, size_t hidden)
{
	char line[1024];
	size_t n = 0;
	for (unsigned k = 0; k < NKINDS; k++)
		n += k == PD_WARN_UNVERIFIED ? 0 : per_kind[k];
	int at = snprintf(line, sizeof line, "%zu warnings:", n);
	bool first = true;
	for (unsigned k = 0; k < NKINDS && at > 0 && (size_t)at < sizeof line; k++) {
		if (!per_kind[k] || k == PD_WARN_UNVERIFIED)
			continue;
		at += snprintf(line + at, sizeof line - (size_t)at, "%s %zu %s", first ? "" : ",",
			       per_kind[k], kind_words[k]);
		first = false;
	}
	cli_warning("%s; %zu not shown (-v shows them)", line, hidden);
}

/* "3 binaries read without a recorded build-id (unverified); -v lists them" */
static void print_unverified(size_t n)
{
	cli_note("%zu %s read without a recorded build-id (unverified); -v lists them", n,
		 n == 1 ? "binary" : "binaries");
}

void cli_warns_print(cli_warns *w, const cli_io *io)
{
	size_t per_kind[NKINDS] = { 0 }, hidden = 0;
	bool verbose = io->verbosity == CLI_VERBOSE;
	for (size_t i = 0; i < w->n; i++) {
		cli_warn_entry *e = &w->v[i];
		unsigned k = kind_index(e->kind);
		bool show = verbose || (per_kind[k] < SHOWN_PER_KIND && k != PD_WARN_UNVERIFIED);
		per_kind[k]++;
		if (io->verbosity == CLI_QUIET)
			continue;
		if (show)
			print_one(e);
		else if (k != PD_WARN_UNVERIFIED)
			hidden++;
	}
	if (hidden)
		print_summary(per_kind, hidden);
	/* one per binary: its text names it, whatever files used it */
	if (per_kind[PD_WARN_UNVERIFIED] && !verbose && io->verbosity != CLI_QUIET)
		print_unverified(per_kind[PD_WARN_UNVERIFIED]);
	size_t count = w->count;
	bool lost = w->data_lost;
	cli_warns_free(w);
	w->count = count;
	w->data_lost = lost;
}

int cli_warns_status(const cli_warns *w, const cli_io *io)
{
	if (w->data_lost || (io->strict && w->count))
		return CLI_EXIT_WARNINGS;
	return CLI_EXIT_OK;
}

void cli_warns_free(cli_warns *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].text);
		for (size_t k = 0; k < w->v[i].nfiles; k++)
			free(w->v[i].files[k]);
		free(w->v[i].files);
	}
	free(w->v);
	memset(w, 0, sizeof *w);
}
