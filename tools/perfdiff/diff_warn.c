/*
 * The reader's and the symbolizer's warnings of `perfdiff diff`, one line
 * per text.  A comparison reads several runs of the same program, so the
 * same warning ("libc.so.6: no build-id in the recording; …") comes once
 * per file, and four identical lines hide a fifth that differs.  Warnings
 * that differ only in the file they name are held until the files are
 * read and then printed once, with the files:
 *
 *   perfdiff: warning: /usr/lib/…/libc.so.6: no build-id …unverified (4 files: old1.data, …)
 *
 * A warning of one file keeps the usual "FILE: text" form.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "diff_cli.h"

/* File names a line lists; more are counted. */
#define WARN_MAX_NAMES 4

typedef struct diff_warning {
	char *text;            /* without the file prefix */
	uint64_t hash;
	const char **files;    /* distinct, in the order seen; point to argv */
	size_t nfiles, cap;
	bool named;            /* text came with the prefix of a file */
} diff_warning;

static uint64_t text_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

void diff_warnings_init(diff_warnings *w)
{
	memset(w, 0, sizeof *w);
}

/* Print `text` of `file` at once: memory for holding it ran out. */
static void print_now(const char *file, const char *text)
{
	cli_warning("%s: %s", file, text);
}

static bool add_file(diff_warning *e, const char *file)
{
	for (size_t i = 0; i < e->nfiles; i++)
		if (strcmp(e->files[i], file) == 0)
			return true;
	if (e->nfiles == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 4;
		const char **v = realloc(e->files, cap * sizeof *v);
		if (!v)
			return false;
		e->files = v;
		e->cap = cap;
	}
	e->files[e->nfiles++] = file;
	return true;
}

void diff_warnings_add(diff_warnings *w, const char *file, const char *warning)
{
	if (!warning)
		return;
	/* pd_profile_warning(): "FILE: text", or text that names the file
	 * itself, which then cannot be shared with another file */
	size_t flen = strlen(file);
	const char *text = warning;
	bool prefixed = strncmp(warning, file, flen) == 0 && warning[flen] == ':' &&
			warning[flen + 1] == ' ';
	if (prefixed)
		text = warning + flen + 2;
	uint64_t h = text_hash(text);
	diff_warning *e = NULL;
	for (size_t i = 0; i < w->n && !e; i++)
		if (w->v[i].hash == h && strcmp(w->v[i].text, text) == 0 &&
		    w->v[i].named == prefixed)
			e = &w->v[i];
	if (!e) {
		if (w->n == w->cap) {
			size_t cap = w->cap ? 2 * w->cap : 16;
			diff_warning *v = realloc(w->v, cap * sizeof *v);
			if (!v) {
				if (prefixed)
					print_now(file, text);
				else
					cli_warning("%s", text);
				return;
			}
			w->v = v;
			w->cap = cap;
		}
		e = &w->v[w->n];
		memset(e, 0, sizeof *e);
		e->text = strdup(text);
		e->hash = h;
		e->named = prefixed;
		if (!e->text) {
			print_now(file, text);
			return;
		}
		w->n++;
	}
	if (prefixed && !add_file(e, file))
		print_now(file, text);
}

void diff_warnings_flush(diff_warnings *w)
{
	for (size_t i = 0; i < w->n; i++) {
		diff_warning *e = &w->v[i];
		if (e->nfiles == 0) {
			cli_warning("%s", e->text);
		} else if (e->nfiles == 1) {
			cli_warning("%s: %s", e->files[0], e->text);
		} else {
			/* "(4 files: a, b, c, d)", "(7 files: a, b, c and 4 more)" */
			size_t shown = e->nfiles <= WARN_MAX_NAMES ? e->nfiles : WARN_MAX_NAMES - 1;
			size_t len = 64;
			for (size_t k = 0; k < shown; k++)
				len += strlen(e->files[k]) + 2;
			char *names = malloc(len);
			if (names) {
				size_t at = 0;
				for (size_t k = 0; k < shown; k++)
					at += (size_t)snprintf(names + at, len - at, "%s%s",
							       k ? ", " : "", e->files[k]);
				if (shown < e->nfiles)
					snprintf(names + at, len - at, " and %zu more",
						 e->nfiles - shown);
			}
			cli_warning("%s (%zu files%s%s)", e->text, e->nfiles, names ? ": " : "",
				    names ? names : "");
			free(names);
		}
		free(e->text);
		free(e->files);
	}
	w->n = 0;
}

void diff_warnings_free(diff_warnings *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].text);
		free(w->v[i].files);
	}
	free(w->v);
	memset(w, 0, sizeof *w);
}
