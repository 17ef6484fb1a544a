/*
 * Canonical symbol names.  Compilers emit clones of one function under
 * suffixed names (gcc: .isra.N, .constprop.N, .part.N, .cold, .lto_priv.N,
 * .localalias; clang: .llvm.<hash>); which clones exist changes with
 * unrelated edits, so a profile that kept them apart would show one
 * function's cost moving between names.  The suffixes are folded into the
 * base name; demangled C++ shows the same suffixes as " [clone .isra.0]".
 */
#include "internal.h"

typedef struct suffix {
	const char *word;
	size_t len;
	bool need_number;  /* ".word.N" (true) or ".word" with an optional ".N" */
} suffix;

static const suffix suffixes[] = {
	{ "isra", 4, true },      { "constprop", 9, true }, { "part", 4, true },
	{ "cold", 4, false },     { "llvm", 4, true },      { "lto_priv", 8, true },
	{ "localalias", 10, false },
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of ".N" at s (0 when s is not a dot followed by digits). */
static size_t number_len(const char *s)
{
	if (s[0] != '.' || !is_digit(s[1]))
		return 0;
	size_t i = 1;
	while (is_digit(s[i]))
		i++;
	return i;
}

/* A suffix ends where the name ends, where another dot-separated part
 * starts, at a symbol version ("@GLIBC_2.2.5", "@plt") or at `stop`. */
static bool at_boundary(char c, char stop)
{
	return c == '\0' || c == '.' || c == stop || c == '@';
}

/*
 * Length of the clone suffix starting at the '.' at s, or 0.  `stop` is a
 * character that also ends the name (']' inside "[clone ...]").
 */
static size_t suffix_len(const char *s, char stop)
{
	if (s[0] != '.')
		return 0;
	for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
		const suffix *x = &suffixes[k];
		if (strncmp(s + 1, x->word, x->len) != 0)
			continue;
		size_t at = 1 + x->len;
		size_t num = number_len(s + at);
		if (x->need_number && num == 0)
			continue;
		at += num;
		if (at_boundary(s[at], stop))
			return at;
	}
	return 0;
}

/* Length of " [clone .x.N...]" at s when every part inside is a clone
 * suffix, else 0. */
static size_t clone_bracket_len(const char *s)
{
	static const char open[] = " [clone ";
	if (strncmp(s, open, sizeof open - 1) != 0)
		return 0;
	size_t i = sizeof open - 1;
	if (s[i] != '.')
		return 0;
	while (s[i] == '.') {
		size_t n = suffix_len(s + i, ']');
		if (n == 0)
			return 0;
		i += n;
	}
	return s[i] == ']' ? i + 1 : 0;
}

size_t pd_symbol_canonical(const char *name, char *buf, size_t n)
{
	size_t out = 0;
	if (!name)
		name = "";
	for (size_t i = 0; name[i];) {
		/* a suffix needs a base name before it */
		if (i > 0 && name[i] == '.') {
			size_t k = suffix_len(name + i, '\0');
			if (k) {
				i += k;
				continue;
			}
		}
		if (i > 0 && name[i] == ' ') {
			size_t k = clone_bracket_len(name + i);
			if (k) {
				i += k;
				continue;
			}
		}
		if (out + 1 < n)
			buf[out] = name[i];
		out++;
		i++;
	}
	if (n > 0)
		buf[out < n ? out : n - 1] = '\0';
	return out;
}
