#include "kallsyms.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/*
 * Bounds on one line.  The kernel's own limits are 512 bytes for a name
 * (KSYM_NAME_LEN) and 56 for a module; anything much longer is not
 * kallsyms, and the caps keep the work per line bounded whatever the input.
 */
#define KS_NAME_MAX 1024
#define KS_MODULE_MAX 256
/* /proc/kallsyms is ~6 MB; a file far beyond that is not a symbol list. */
#define KS_FILE_MAX ((size_t)256 << 20)
#define KS_PAGE 4096u

struct pd_kallsyms {
	/*
	 * [0, n): one symbol per address, sorted, what pd_kallsyms_find sees;
	 * [n, n + naliases): the names that lost the alias choice, kept only
	 * so that pd_kallsyms_addr finds every name ("_stext" shares its
	 * address with "_text").
	 */
	pd_kallsym *syms;
	size_t n, naliases;
	char *names;
	size_t names_len;      /* the text's bytes, for pd_kallsyms_bytes */
	size_t skipped;
	bool all_zero;
};

/* One parsed line; spans point into the input text. */
typedef struct ks_line {
	uint64_t addr;
	const char *name, *module;
	size_t name_len, module_len;
	char type;
} ks_line;

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool is_blank(unsigned char c) { return c == ' ' || c == '\r'; }

/* Name and module bytes: printable, no blanks (NUL would cut a C string). */
static bool is_word(unsigned char c) { return c > ' ' && c != 0x7f; }

/*
 * `<hex addr> <type> <name>[\t[<module>]]` with optional trailing blanks.
 * False for anything else.  Never looks past `end`.
 */
static bool parse_line(const char *p, const char *end, ks_line *out)
{
	const unsigned char *s = (const unsigned char *)p, *e = (const unsigned char *)end;
	uint64_t addr = 0;
	int digits = 0, v;
	while (s < e && (v = hexval(*s)) >= 0) {
		if (++digits > 16)
			return false;
		addr = addr << 4 | (uint64_t)v;
		s++;
	}
	if (digits == 0 || s == e || *s != ' ')
		return false;
	s++;
	if (s == e || !is_word(*s))
		return false;
	char type = (char)*s++;
	if (s == e || *s != ' ')
		return false;
	s++;
	const unsigned char *name = s;
	while (s < e && is_word(*s)) {
		if ((size_t)(s - name) >= KS_NAME_MAX)
			return false;
		s++;
	}
	if (s == name)
		return false;
	out->addr = addr;
	out->type = type;
	out->name = (const char *)name;
	out->name_len = (size_t)(s - name);
	out->module = NULL;
	out->module_len = 0;
	while (s < e && is_blank(*s))
		s++;
	if (s < e && *s == '\t') {
		s++;
		if (s == e || *s != '[')
			return false;
		const unsigned char *mod = ++s;
		while (s < e && is_word(*s) && *s != ']') {
			if ((size_t)(s - mod) >= KS_MODULE_MAX)
				return false;
			s++;
		}
		if (s == mod || s == e || *s != ']')
			return false;
		out->module = (const char *)mod;
		out->module_len = (size_t)(s - mod);
		s++;
		while (s < e && is_blank(*s))
			s++;
	}
	return s == e;
}

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

/*
 * Symbols that never name an address: __pfx_/__cfi_ are the padding in
 * front of functions on kernels built with CONFIG_CALL_PADDING / kCFI, and
 * a return address that ends a function calling a noreturn one points at
 * the next function's padding; without them the caller keeps that byte.
 * '$' names are ARM mapping symbols, which perf drops as well.
 */
static bool keep_line(const ks_line *l, unsigned flags)
{
	if (l->type != 'T' && l->type != 't' && l->type != 'W' && l->type != 'w')
		return false;
	if (l->name[0] == '$')
		return false;
	if (flags & PD_KALLSYMS_KEEP_PADDING)
		return true; /* perf 6.1 names the padding: reproduce it on request */
	return !has_prefix(l->name, l->name_len, "__pfx_") &&
	       !has_prefix(l->name, l->name_len, "__cfi_");
}

/*
 * One pass over the text, which the table then owns: names and modules
 * are cut out of it in place (a NUL over the byte after each), so nothing
 * is copied.  `text` has a byte past `len` for the last line's NUL.
 */
typedef struct ks_scan {
	size_t kept, cap, wellformed, skipped;
	bool all_zero;
} ks_scan;

static int scan(char *text, size_t len, unsigned flags, ks_scan *sc, pd_kallsym **syms)
{
	memset(sc, 0, sizeof *sc);
	sc->all_zero = true;
	char *p = text, *end = text + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		ks_line l;
		if (eol == p || (eol - p == 1 && *p == '\r')) {
			/* blank lines carry nothing and are not counted as damage */
		} else if (!parse_line(p, eol, &l)) {
			sc->skipped++;
		} else {
			sc->wellformed++;
			if (l.addr != 0)
				sc->all_zero = false;
			if (keep_line(&l, flags)) {
				if (sc->kept == sc->cap) {
					size_t ncap = sc->cap ? sc->cap * 2 : 4096;
					if (ncap > SIZE_MAX / sizeof **syms)
						return PD_ENOMEM;
					pd_kallsym *n = realloc(*syms, ncap * sizeof **syms);
					if (!n)
						return PD_ENOMEM;
					*syms = n;
					sc->cap = ncap;
				}
				pd_kallsym *k = &(*syms)[sc->kept];
				k->start = l.addr;
				/* file order, the tie-break of the sort; ends come later */
				k->end = sc->kept;
				k->type = l.type;
				/* the line was parsed whole: its separators may go now */
				((char *)l.name)[l.name_len] = '\0';
				k->name = l.name;
				k->module = NULL;
				if (l.module) {
					((char *)l.module)[l.module_len] = '\0';
					k->module = l.module;
				}
				sc->kept++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static int cmp_start_then_order(const void *a, const void *b)
{
	const pd_kallsym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* ---- alias choice ---- */

static bool is_sys_wrapper(const char *name)
{
	return strncmp(name, "SyS_", 4) == 0 || strncmp(name, "compat_SyS_", 11) == 0;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/*
 * perf's comparison of two symbols at one address (choose_best_symbol):
 * true when `b` beats `a`.  perf maps kallsyms types to ELF bindings as
 * 'W' weak, other upper case global, lower case (including 'w') local.
 */
static bool alias_beats(const pd_kallsym *a, bool a_sized, const pd_kallsym *b, bool b_sized)
{
	if (a_sized != b_sized)
		return b_sized;
	bool aw = a->type == 'W', bw = b->type == 'W';
	if (aw != bw)
		return aw;
	bool ag = a->type == 'T', bg = b->type == 'T';
	if (ag != bg)
		return bg;
	size_t au = leading_underscores(a->name), bu = leading_underscores(b->name);
	if (au != bu)
		return bu < au;
	size_t al = strlen(a->name), bl = strlen(b->name);
	if (al != bl)
		return bl > al;
	return strncmp(a->name, "SyS", 3) == 0 || strncmp(a->name, "compat_SyS", 10) == 0;
}

/*
 * The winner among t[gs, ge), which hold one address in file order.
 *
 * perf (6.1) computes symbol ends before it drops aliases, and an alias's
 * end is the start of the next symbol, i.e. its own start; only the last
 * alias in file order gets a size, and "has a size" is the first rule of
 * choose_best_symbol.  So perf names an address by its LAST alias
 * (memset, __memset, __pi_memset → __pi_memset), and the binding and
 * underscore rules decide nothing in practice.  We reproduce that exactly
 * by folding perf's comparison over the group with those sizes, in the
 * order perf does, after taking SyS_ wrappers out whenever another name
 * exists (when the wrapper was the last alias, no candidate has a size
 * and the remaining rules apply).
 */
static size_t choose_alias(const pd_kallsym *t, size_t gs, size_t ge)
{
	bool any_plain = false;
	for (size_t i = gs; i < ge && !any_plain; i++)
		any_plain = !is_sys_wrapper(t[i].name);
	size_t best = SIZE_MAX;
	for (size_t i = gs; i < ge; i++) {
		if (any_plain && is_sys_wrapper(t[i].name))
			continue;
		if (best == SIZE_MAX ||
		    alias_beats(&t[best], best == ge - 1, &t[i], i == ge - 1))
			best = i;
	}
	return best;
}

static uint64_t page_end(uint64_t start)
{
	/* perf: roundup(start, 4096) + 4096, i.e. one page past the boundary */
	uint64_t up = (start + (KS_PAGE - 1)) & ~(uint64_t)(KS_PAGE - 1);
	if (start > UINT64_MAX - 2 * (uint64_t)KS_PAGE)
		return UINT64_MAX;
	return up + KS_PAGE;
}

/*
 * Ends of the symbols in t[0, n) (strictly increasing starts): the next
 * start, except where the list crosses between core kernel and module
 * symbols (modules live far from the kernel image; perf does the same),
 * and after the last symbol, where one page has to do.
 */
static void compute_ends(pd_kallsym *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i + 1 == n) {
			t[i].end = page_end(t[i].start);
		} else if ((t[i].module == NULL) != (t[i + 1].module == NULL)) {
			uint64_t pe = page_end(t[i].start);
			t[i].end = pe < t[i + 1].start ? pe : t[i + 1].start;
		} else {
			t[i].end = t[i + 1].start;
		}
	}
}

/* The primary symbol at exactly `addr`, or NULL. */
static const pd_kallsym *primary_at(const pd_kallsyms *k, uint64_t addr)
{
	const pd_kallsym *s = pd_kallsyms_find(k, addr);
	return s && s->start == addr ? s : NULL;
}

int pd_kallsyms_parse(pd_kallsyms **out, const char *text, size_t len, pd_error *err)
{
	return pd_kallsyms_parse_flags(out, text, len, 0, err);
}

/* Parse `text` (len bytes and room for one more), which the result owns
 * from now on, also on failure. */
static int parse_owned(pd_kallsyms **out, char *text, size_t len, unsigned flags,
		       pd_error *err)
{
	*out = NULL;
	pd_kallsyms *k = calloc(1, sizeof *k);
	if (!k) {
		free(text);
		return PD_ENOMEM;
	}
	k->names = text;
	k->names_len = len + 1;
	ks_scan sc;
	if (scan(text, len, flags, &sc, &k->syms) < 0)
		goto nomem;
	if (sc.wellformed == 0) {
		pd_kallsyms_free(k);
		return pd_error_reason(err, PD_ECORRUPT, "no kallsyms line found (%zu malformed)",
				       sc.skipped);
	}
	k->skipped = sc.skipped;
	k->all_zero = sc.all_zero;
	if (sc.kept) {
		size_t n = sc.kept;
		pd_kallsym *t = k->syms;

		/* /proc/kallsyms is sorted but for modules; only sort when needed */
		bool sorted = true;
		for (size_t i = 1; i < n && sorted; i++)
			sorted = t[i - 1].start <= t[i].start;
		if (!sorted)
			qsort(t, n, sizeof *t, cmp_start_then_order);

		/*
		 * Move each address's winner to the front, in order; the
		 * losers collect between the winners and the unread part.
		 */
		size_t w = 0;
		for (size_t gs = 0; gs < n;) {
			size_t ge = gs + 1;
			while (ge < n && t[ge].start == t[gs].start)
				ge++;
			size_t best = choose_alias(t, gs, ge);
			pd_kallsym tmp = t[w];
			t[w] = t[best];
			t[best] = tmp;
			w++;
			gs = ge;
		}
		k->n = w;
		k->naliases = n - w;
		compute_ends(t, w);
		for (size_t i = w; i < n; i++) {
			const pd_kallsym *p = primary_at(k, t[i].start);
			t[i].end = p ? p->end : t[i].start;
		}
	}
	*out = k;
	return 0;
nomem:
	pd_kallsyms_free(k);
	return PD_ENOMEM;
}

int pd_kallsyms_parse_flags(pd_kallsyms **out, const char *text, size_t len, unsigned flags,
			    pd_error *err)
{
	*out = NULL;
	if (!text)
		len = 0;
	if (len == SIZE_MAX)
		return PD_ENOMEM;
	char *copy = malloc(len + 1);
	if (!copy)
		return PD_ENOMEM;
	if (len)
		memcpy(copy, text, len);
	return parse_owned(out, copy, len, flags, err);
}

/* The whole file; /proc files report size 0, so read until EOF. */

int pd_kallsyms_load(pd_kallsyms **out, const char *path, pd_error *err)
{
	return pd_kallsyms_load_flags(out, path, 0, err);
}

int pd_kallsyms_load_flags(pd_kallsyms **out, const char *path, unsigned flags, pd_error *err)
{
	*out = NULL;
	char *data;
	size_t len;
	int rc = pd_read_file(path, KS_FILE_MAX, &data, &len, err);
	if (rc < 0)
		return rc;
	/* room for the last line's NUL; the slack of the read goes back */
	char *fit = realloc(data, len + 1);
	if (!fit) {
		free(data);
		return PD_ENOMEM;
	}
	rc = parse_owned(out, fit, len, flags, err);
	/* the path first, as pd_read_file's reasons have it */
	if (rc == PD_ECORRUPT)
		pd_error_wrap(err, rc, NULL, PD_NO_OFFSET, "%s", path);
	return rc;
}

size_t pd_kallsyms_bytes(const pd_kallsyms *k)
{
	return k ? sizeof *k + k->names_len + (k->n + k->naliases) * sizeof *k->syms : 0;
}

void pd_kallsyms_free(pd_kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

const pd_kallsym *pd_kallsyms_find(const pd_kallsyms *k, uint64_t addr)
{
	if (!k || k->n == 0)
		return NULL;
	/* the first symbol starting after addr; the one before may hold it */
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const pd_kallsym *s = &k->syms[lo - 1];
	return addr < s->end ? s : NULL;
}

bool pd_kallsyms_addr(const pd_kallsyms *k, const char *name, uint64_t *addr)
{
	if (!k || !name)
		return false;
	/* rare (once per session), so a scan beats keeping a name index */
	bool found = false;
	uint64_t best = 0;
	for (size_t i = 0; i < k->n + k->naliases; i++) {
		const pd_kallsym *s = &k->syms[i];
		if (s->name[0] == name[0] && strcmp(s->name, name) == 0 &&
		    (!found || s->start < best)) {
			best = s->start;
			found = true;
		}
	}
	if (found && addr)
		*addr = best;
	return found;
}

bool pd_kallsyms_all_zero(const pd_kallsyms *k) { return k && k->all_zero; }

size_t pd_kallsyms_count(const pd_kallsyms *k) { return k ? k->n : 0; }

size_t pd_kallsyms_name_count(const pd_kallsyms *k) { return k ? k->n + k->naliases : 0; }

const pd_kallsym *pd_kallsyms_name_at(const pd_kallsyms *k, size_t i)
{
	return k && i < k->n + k->naliases ? &k->syms[i] : NULL;
}

size_t pd_kallsyms_skipped_lines(const pd_kallsyms *k) { return k ? k->skipped : 0; }
