/*
 * libFuzzer harness for the kallsyms parser: the input is the text of a
 * kallsyms file.  After parsing, lookups must keep find()'s contract
 * (start <= addr < end) at addresses taken from the input and at every
 * symbol boundary reached by walking the table end to end; names are read
 * whole so that ASan catches one that is not a terminated string.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/kallsyms.h"

static uint64_t check_find(const pd_kallsyms *k, uint64_t addr, const pd_kallsym **out)
{
	const pd_kallsym *s = pd_kallsyms_find(k, addr);
	*out = s;
	if (!s)
		return 0;
	if (!(s->start <= addr && addr < s->end) || !s->name)
		abort(); /* find() returned a symbol that does not hold addr */
	uint64_t h = strlen(s->name) + (uint64_t)(unsigned char)s->type;
	if (s->module)
		h += strlen(s->module);
	return h;
}

static uint64_t load_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pd_kallsyms *k = NULL;
	pd_error e = { 0 };
	int rc = pd_kallsyms_parse(&k, (const char *)data, size, &e);
	if (rc < 0) {
		if (k || e.message[0] == '\0')
			abort(); /* a failure leaves no table and says why */
		return 0;
	}
	volatile uint64_t sink = pd_kallsyms_count(k) + pd_kallsyms_skipped_lines(k) +
				 pd_kallsyms_all_zero(k);
	const pd_kallsym *s;

	/* fixed probes, and u64s of the input itself */
	static const uint64_t fixed[] = { 0, 1, 0xffffffff81000000ull, 0xffffffffc0000000ull,
					  UINT64_MAX - 1, UINT64_MAX };
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		sink += check_find(k, fixed[i], &s);
	for (size_t off = 0; off + 8 <= size && off < 64 * 8; off += 8)
		sink += check_find(k, load_u64(data + off), &s);

	/* walk: each symbol's end is where the next lookup starts */
	uint64_t addr = 0;
	size_t steps = 0, n = pd_kallsyms_count(k);
	for (size_t probe = 0; probe < 2 * n + 2 && steps < 4096; probe++) {
		sink += check_find(k, addr, &s);
		if (s) {
			if (s->end - 1 != addr)
				sink += check_find(k, s->end - 1, &s);
			if (!s || s->end <= addr)
				break;
			addr = s->end;
			steps++;
		} else if (addr == UINT64_MAX) {
			break;
		} else {
			addr++;
			/* skip a gap quickly: the next few bytes and then a page */
			if ((probe & 3) == 3)
				addr = addr + 4096 < addr ? UINT64_MAX : addr + 4096;
		}
	}

	uint64_t a;
	static const char *const names[] = { "_text", "_stext", "_etext", "" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (pd_kallsyms_addr(k, names[i], &a))
			sink += check_find(k, a, &s) + a;
	pd_kallsyms_free(k);
	(void)sink;
	return 0;
}
