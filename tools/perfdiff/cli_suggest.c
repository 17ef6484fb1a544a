/*
 * "Did you mean": a mistyped command or option is answered with the
 * nearest one the command knows (the option table, cli_opttab.c), as git
 * and perf do, so that `perfdiff reprot x.data` or `--percent-limt=1` costs one look at
 * the message instead of a trip to the manual.  Nearness is the optimal
 * string alignment distance (insertions, deletions, substitutions and
 * swaps of two neighbours each cost 1); a word that starts one known name
 * alone is taken as an abbreviation of it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_opttab.h"

#define MAXLEN 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Distance of a[0..n) and b[0..m), both at most MAXLEN. */
static size_t osa_distance(const char *a, size_t n, const char *b, size_t m)
{
	static const size_t W = MAXLEN + 1;
	size_t d[(MAXLEN + 1) * (MAXLEN + 1)];
	for (size_t i = 0; i <= n; i++)
		d[i * W] = i;
	for (size_t j = 0; j <= m; j++)
		d[j] = j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = min3(d[(i - 1) * W + j] + 1, d[i * W + j - 1] + 1,
					d[(i - 1) * W + j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[(i - 2) * W + j - 2] + 1 < v)
				v = d[(i - 2) * W + j - 2] + 1;
			d[i * W + j] = v;
		}
	return d[n * W + m];
}

const char *cli_closest(const char *word, size_t len, const char *const *names, size_t n)
{
	if (len == 0 || len > MAXLEN)
		return NULL;
	const char *best = NULL, *prefixed = NULL;
	size_t best_d = SIZE_MAX, nprefixed = 0;
	for (size_t i = 0; i < n; i++) {
		size_t m = strlen(names[i]);
		if (m > MAXLEN)
			continue;
		if (m > len && strncmp(names[i], word, len) == 0) {
			prefixed = names[i];
			nprefixed++;
		}
		size_t d = osa_distance(word, len, names[i], m);
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	/* leading dashes are no evidence of likeness: a third of the rest
	 * may differ, at least one character */
	size_t body = len;
	for (size_t i = 0; i < len && word[i] == '-'; i++)
		body--;
	size_t limit = body / 3 ? body / 3 : 1;
	if (best && best_d <= limit)
		return best;
	return nprefixed == 1 && body >= 3 ? prefixed : NULL;
}

/* The names of the options of `cmd` (hints left out: the nearest real
 * option is the answer; `sided`: only those diff also takes as
 * --base-NAME and --new-NAME), in a malloc'd array (*n of them). */
static const char **option_names(const char *cmd, bool sided, size_t *n)
{
	unsigned bit = cli_command_bit(cmd);
	size_t rows;
	const cli_optdef *t = cli_opttab(&rows);
	const char **v = malloc(2 * rows * sizeof *v);
	*n = 0;
	for (size_t i = 0; v && i < rows; i++) {
		if (!(t[i].cmds & bit) || t[i].kind == CLI_HINT ||
		    (sided && !(t[i].flags & CLI_SIDED)))
			continue;
		v[(*n)++] = t[i].name;
		if (t[i].alias && !sided)
			v[(*n)++] = t[i].alias;
	}
	return v;
}

/* The length of the --base- or --new- in front of `arg` when `cmd` has
 * sides, else 0. */
static size_t side_prefix(const char *cmd, const char *arg)
{
	if (!(cli_command_bit(cmd) & (CLI_CMD_DIFF | CLI_CMD_TUI)))
		return 0;
	if (strncmp(arg, "--base-", 7) == 0)
		return 7;
	return strncmp(arg, "--new-", 6) == 0 ? 6 : 0;
}

int cli_unknown_option(const char *cmd, const char *arg)
{
	size_t n = 0, len = strcspn(arg, "="), pl = side_prefix(cmd, arg);
	/* "--new-kalsyms": the side's option is looked for without its side,
	 * "--kalsyms", and the side put back in front of the answer */
	char word[80];
	if (pl)
		snprintf(word, sizeof word, "--%.*s", (int)(len - pl), arg + pl);
	else
		snprintf(word, sizeof word, "%.*s", (int)len, arg);
	const char **names = option_names(cmd, pl > 0, &n);
	const char *near = names ? cli_closest(word, strlen(word), names, n) : NULL;
	if (near && pl)
		cli_usage_error(cmd, "unknown option '%s', did you mean '%.*s%s'?", arg, (int)pl,
				arg, near + 2);
	else if (near)
		cli_usage_error(cmd, "unknown option '%s', did you mean '%s'?", arg, near);
	else
		cli_usage_error(cmd, "unknown option '%s'", arg);
	free(names);
	return CLI_EXIT_ERROR;
}
