/*
 * Where each dso's symbols came from (pd_profile_symbol_origin()), said
 * next to the numbers: a diff's footer per side, a report's header, and
 * both JSON formats.  A recording read on another machine is named from a
 * tarball, a build-id directory or a server; without these lines a
 * reader could not tell which, nor which dsos were not found at all, nor
 * which table named the kernel's frames (another kernel's /proc/kallsyms
 * would name them wrongly, so the line says whose table it was).
 *
 * Text is concise by default: one clause per source with at most three
 * dso names, a build-id for a source that gave one dso; `all` (the CLI's
 * --verbose) names every dso with its path and full build-id.  JSON is
 * always complete.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "utf8.h"

#define SHOWN 3       /* dsos named per clause unless `all` */
#define SHORT_ID 8    /* hex digits of a build-id shown unless `all` */

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

static void put_id(pd_writer *w, const pd_symbol_origin *o, bool all)
{
	if (!o->build_id_size)
		return;
	char hex[41];
	size_t n = o->build_id_size < 20 ? o->build_id_size : 20;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", o->build_id[i]);
	if (!all && n * 2 > SHORT_ID)
		strcpy(hex + SHORT_ID, "...");
	pdo_printf(w, "build-id %s", hex);
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The user dsos of `p` whose source is `from` (NULL: not found), from
 * index `first` on. */
static size_t count_from(const pd_profile *p, size_t first, const char *from)
{
	size_t n = 0;
	for (size_t i = first; i < pd_profile_symbol_origin_count(p); i++) {
		const pd_symbol_origin *o = pd_profile_symbol_origin(p, i);
		n += !o->kernel && same(o->from, from);
	}
	return n;
}

/* The names of the dsos of one source, with their build-ids where few. */
static void put_names(pd_writer *w, const pd_profile *p, size_t first, const char *from,
		      bool all)
{
	size_t total = count_from(p, first, from), shown = 0;
	for (size_t i = first; i < pd_profile_symbol_origin_count(p); i++) {
		const pd_symbol_origin *o = pd_profile_symbol_origin(p, i);
		if (o->kernel || !same(o->from, from))
			continue;
		if (!all && shown == SHOWN) {
			pdo_printf(w, " and %zu more", total - shown);
			break;
		}
		pdo_puts(w, shown++ ? ", " : "");
		pdo_put_escaped(w, all ? o->dso : base(o->dso));
		if (o->build_id_size && (all || total == 1 || !from)) {
			pdo_puts(w, " (");
			put_id(w, o, all);
			pdo_putc(w, ')');
		}
	}
}

/* Whether an earlier origin than `i` has the same source (its clause is
 * written already). */
static bool said(const pd_profile *p, size_t i)
{
	const pd_symbol_origin *o = pd_profile_symbol_origin(p, i);
	for (size_t k = 0; k < i; k++) {
		const pd_symbol_origin *e = pd_profile_symbol_origin(p, k);
		if (!e->kernel && same(e->from, o->from))
			return true;
	}
	return false;
}

static void put_kernel(pd_writer *w, const pd_symbol_origin *o, const char *indent, bool all)
{
	pdo_printf(w, "%skernel symbols: ", indent);
	if (!o->from && !o->vmlinux) {
		pdo_puts(w, "no table for ");
		put_id(w, o, true);
		pdo_puts(w, o->build_id_size ? ", kernel frames stay [unknown]\n"
					     : "the kernel, kernel frames stay [unknown]\n");
		return;
	}
	if (o->vmlinux) {
		pdo_puts(w, "core text from ");
		pdo_put_escaped(w, o->vmlinux);
		pdo_puts(w, o->from ? ", modules from " : "");
	}
	if (o->from) {
		pdo_puts(w, "kallsyms from ");
		pdo_put_escaped(w, o->from);
		if (strcmp(o->from, "/proc/kallsyms") == 0)
			pdo_puts(w, o->build_id_size ? " (this machine's kernel, the recorded one"
						     : " (this machine's kernel, unverified: no build-id recorded");
		else
			pdo_puts(w, " (");
		if (o->build_id_size && strcmp(o->from, "/proc/kallsyms") == 0)
			pdo_puts(w, ", ");
		put_id(w, o, all);
		pdo_putc(w, ')');
	}
	pdo_putc(w, '\n');
}

void pdo_origins_text(pd_writer *w, const pd_profile *p, const char *indent, bool all)
{
	size_t n = pd_profile_symbol_origin_count(p), clauses = 0;
	for (size_t i = 0; i < n; i++) {
		const pd_symbol_origin *o = pd_profile_symbol_origin(p, i);
		if (o->kernel || !o->from || said(p, i))
			continue;
		pdo_printf(w, clauses++ ? "; " : "%ssymbol sources: ", indent);
		put_names(w, p, i, o->from, all);
		pdo_puts(w, " from ");
		pdo_put_escaped(w, o->from);
	}
	if (clauses)
		pdo_putc(w, '\n');
	size_t missing = count_from(p, 0, NULL);
	for (size_t i = 0; i < n && missing; i++) {
		const pd_symbol_origin *o = pd_profile_symbol_origin(p, i);
		if (o->kernel || o->from)
			continue;
		pdo_printf(w, "%s%zu dso%s not found: ", indent, missing, missing == 1 ? "" : "s");
		put_names(w, p, i, NULL, all);
		if (o->searched) {
			pdo_puts(w, "; searched ");
			pdo_put_escaped(w, o->searched);
		}
		pdo_putc(w, '\n');
		break;
	}
	for (size_t i = 0; i < n; i++) {
		const pd_symbol_origin *o = pd_profile_symbol_origin(p, i);
		if (o->kernel)
			put_kernel(w, o, indent, all);
	}
}

void pdo_origins_json(pd_writer *w, const pd_profile *p)
{
	pdo_json_key(w, "symbol_origins");
	pdo_json_open(w, '[');
	for (size_t i = 0; i < pd_profile_symbol_origin_count(p); i++) {
		const pd_symbol_origin *o = pd_profile_symbol_origin(p, i);
		char hex[41] = "";
		for (size_t k = 0; k < o->build_id_size && k < 20; k++)
			snprintf(hex + 2 * k, 3, "%02x", o->build_id[k]);
		pdo_json_open(w, '{');
		pdo_json_key_str(w, "dso", o->dso);
		pdo_json_key_bool(w, "kernel", o->kernel);
		pdo_json_key_str(w, "build_id", o->build_id_size ? hex : NULL);
		pdo_json_key_str(w, "from", o->from);
		pdo_json_key_str(w, "vmlinux", o->vmlinux);
		pdo_json_key_str(w, "searched", o->searched);
		pdo_json_close(w, '}');
	}
	pdo_json_close(w, ']');
}
