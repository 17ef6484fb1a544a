/*
 * The command line parsed from the option table (cli_parse.h).  Each
 * argument is an operand, "--", or an option looked up in the table for
 * the command; the option's kind says whether a value follows and how it
 * is checked, so that every command words the same mistake the same way:
 * "option '--fdr' needs a value", "--order is caller or callee, not
 * 'up'", "--fdr needs a rate above 0 and at most 1, not '2'".
 */
#include "cli_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "a, b or c" of the words "a|b|c", into buf. */
static const char *word_list(const char *words, char *buf, size_t n)
{
	const char *bar = strrchr(words, '|');
	size_t at = 0, len = strlen(words), last = bar ? (size_t)(bar - words) : len;
	for (size_t i = 0; i < len && at + 5 < n; i++) {
		if (words[i] != '|') {
			buf[at++] = words[i];
		} else {
			const char *sep = i == last ? " or " : ", ";
			memcpy(buf + at, sep, strlen(sep));
			at += strlen(sep);
		}
	}
	buf[at] = '\0';
	return buf;
}

/* The index of `val` among the words "a|b|c", or -1. */
static int word_index(const char *words, const char *val)
{
	size_t n = strlen(val);
	int k = 0;
	for (const char *w = words; *w; k++) {
		size_t len = strcspn(w, "|");
		if (len == n && strncmp(w, val, n) == 0)
			return k;
		w += len + (w[len] == '|');
	}
	return -1;
}

static int check_word(const cli_optdef *o, const char *cmd, cli_value *v)
{
	char list[256];
	v->word = word_index(o->arg, v->str);
	if (v->word >= 0)
		return 0;
	if (o->flags & CLI_FORMAT)
		cli_usage_error(cmd, "unknown format '%s' (use %s)", v->str,
				word_list(o->arg, list, sizeof list));
	else
		cli_usage_error(cmd, "%s is %s, not '%s'", o->name,
				word_list(o->arg, list, sizeof list), v->str);
	return -1;
}

static bool parse_uint(const char *s, double lo, double hi, unsigned long long *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || (double)v < lo || (double)v > hi)
		return false;
	*out = v;
	return true;
}

static bool parse_double(const char *s, const cli_optdef *o, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (s[0] == '\0' || *end || errno || !isfinite(v) || v < o->lo || v > o->hi ||
	    ((o->flags & CLI_LO_OPEN) && v == o->lo))
		return false;
	*out = v;
	return true;
}

/* The value checked as its kind says: 0, or -1 after the error. */
static int check(const cli_optdef *o, const char *cmd, cli_value *v)
{
	bool ok = true;
	if (o->kind == CLI_WORD)
		return check_word(o, cmd, v);
	if (o->kind == CLI_UINT)
		ok = parse_uint(v->str, o->lo, o->hi, &v->count);
	else if (o->kind == CLI_DOUBLE)
		ok = parse_double(v->str, o, &v->num);
	if (ok)
		return 0;
	cli_usage_error(cmd, "%s needs %s, not '%s'", o->name, o->need, v->str);
	return -1;
}

static int dispatch(const cli_parser *p, const cli_optdef *o, const cli_value *v)
{
	switch (o->part) {
	case CLI_PART_IO:
		return cli_io_set(p->io, o, v->str);
	case CLI_PART_SESSION:
		return cli_session_set(p->so, o, v, p->cmd);
	case CLI_PART_PROFILE:
		return cli_profile_set(p->po, o, v, p->cmd);
	case CLI_PART_OWN:
		return p->set(p->own, o, v, p->cmd);
	case CLI_PART_NONE:
		break;
	}
	return o->kind == CLI_INPUT ? p->operand(p->own, v->str) : 0;
}

int cli_apply(const cli_parser *p, const cli_optdef *o, const char *val)
{
	cli_value v = { .str = val };
	if (check(o, p->cmd, &v) < 0)
		return -1;
	return dispatch(p, o, &v);
}

/* --base-OPT / --new-OPT of a command that has sides: the row and side,
 * or NULL. */
static const cli_optdef *side_row(const cli_parser *p, unsigned bit, const char *name,
				  size_t len, int *side)
{
	static const char *const prefix[2] = { "--base-", "--new-" };
	for (int s = 0; p->side && s < 2; s++) {
		size_t pl = strlen(prefix[s]);
		if (len <= pl || strncmp(name, prefix[s], pl) != 0)
			continue;
		char full[128];
		int n = snprintf(full, sizeof full, "--%.*s", (int)(len - pl), name + pl);
		const cli_optdef *o = n > 0 && (size_t)n < sizeof full
				      ? cli_opt_find(bit, full, (size_t)n) : NULL;
		*side = s;
		return o && (o->flags & CLI_SIDED) ? o : NULL;
	}
	return NULL;
}

/* A hint row: perf's spelling, answered with the option for that job. */
static int hinted(const cli_parser *p, const cli_optdef *o, const char *a)
{
	cli_usage_error(p->cmd, "unknown option '%s', did you mean '%s'?", a, o->hint);
	return -1;
}

/* The value of option argv[*i] (`eq` its "=V" or NULL) into *val; *i
 * past a separate one.  0, or -1 after the error. */
static int value_of(const cli_parser *p, const cli_optdef *o, bool side, int argc,
		    char **argv, int *i, const char *eq, const char **val)
{
	const char *a = argv[*i];
	if (eq) {
		*val = eq + 1;
		return 0;
	}
	if (*i + 1 < argc) {
		*val = argv[++*i];
		return 0;
	}
	char list[256];
	if (side)
		cli_usage_error(p->cmd, "%s needs a value", a);
	else if (o->kind == CLI_INPUT)
		cli_usage_error(p->cmd, "option '%s' needs a FILE", a);
	else if (o->kind == CLI_WORD)
		cli_usage_error(p->cmd, "option '%s' needs a value (%s)", a,
				word_list(o->arg, list, sizeof list));
	else
		cli_usage_error(p->cmd, "option '%s' needs a value", a);
	return -1;
}

/* The row of option a[0..len): the command's own, else (for diff) a
 * side's, *side then 0 or 1; NULL after "unknown option". */
static const cli_optdef *lookup(const cli_parser *p, unsigned bit, const char *a, size_t len,
				int *side)
{
	const cli_optdef *o = cli_opt_find(bit, a, len);
	if (!o)
		o = side_row(p, bit, a, len, side);
	/* a flag takes no "=V" */
	bool flag = o && (o->kind == CLI_FLAG || o->kind == CLI_HELP);
	if (!o || (flag && a[len] == '=')) {
		cli_unknown_option(p->cmd, a);
		return NULL;
	}
	return o;
}

/* argv[*i], an option: 1 for --help, 0 taken, -1 after a usage error. */
static int option(const cli_parser *p, unsigned bit, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *eq = strchr(a, '=');
	int side = -1;
	const cli_optdef *o = lookup(p, bit, a, eq ? (size_t)(eq - a) : strlen(a), &side);
	if (!o)
		return -1;
	if (o->kind == CLI_HINT)
		return hinted(p, o, a);
	if (o->kind == CLI_HELP)
		return 1;
	cli_value v = { 0 };
	if (o->kind != CLI_FLAG && value_of(p, o, side >= 0, argc, argv, i, eq, &v.str) < 0)
		return -1;
	if (side >= 0)  /* checked when the sides are split (cli_apply()) */
		return p->side(p->own, side, o, v.str);
	if (check(o, p->cmd, &v) < 0)
		return -1;
	return dispatch(p, o, &v) < 0 ? -1 : 0;
}

cli_parse_result cli_parse(const cli_parser *p, int argc, char **argv)
{
	unsigned bit = cli_command_bit(p->cmd);
	bool options = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;
		if (options && strcmp(a, "--") == 0)
			rc = p->dashdash ? p->dashdash(p->own) : (options = false, 0);
		else if (!options || a[0] != '-' || a[1] == '\0')
			rc = p->operand(p->own, a);
		else
			rc = option(p, bit, argc, argv, &i);
		if (rc != 0)
			return rc > 0 ? CLI_PARSED_HELP : CLI_PARSE_FAILED;
	}
	return CLI_PARSED;
}

bool cli_parse_stop(cli_parse_result r, void (*usage)(FILE *f), int *status)
{
	if (r == CLI_PARSED_HELP)
		usage(stdout);
	*status = r == CLI_PARSED_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	return r != CLI_PARSED;
}

cli_parse_result cli_parse_refuse(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cli_usage_error(cmd, "%s", msg);
	return CLI_PARSE_FAILED;
}
