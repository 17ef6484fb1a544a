/*
 * The `report` subcommand: one or more perf.data files folded into a
 * profile (libperfdiff's profile.h) and printed as a children/self table
 * with call chains (report_text.c), JSON (report_json.c), CSV or
 * collapsed stacks (report_csv.c).  report.c parses the options and
 * builds the profile.
 */
#ifndef PERFDIFF_CLI_REPORT_H
#define PERFDIFF_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_common.h"
#include "outbuf.h"
#include "perfdiff/profile.h"

int cmd_report(int argc, char **argv);
void report_usage(FILE *f);

enum report_format {
	REPORT_TEXT,
	REPORT_JSON,
	REPORT_CSV,
	REPORT_FOLDED,
};

/* What the writers need to know beyond the profile. */
typedef struct report_opts {
	enum report_format format;
	int event;                 /* -1: every event with samples (folded: the default one) */
	pd_chain_order order;
	bool chains;               /* call chains under each row (text) */
	double threshold;          /* % of the event total a chain node needs (text) */
	double percent_limit;      /* % a row (and a JSON tree node) needs */
	bool sort_self;            /* rows by self instead of children */
	bool weight_samples;       /* folded: sample counts instead of periods */
	const pd_profile_options *popts;
} report_opts;

/* Output goes out in blocks of about this size. */
#define REPORT_FLUSH_AT (256u * 1024u)

/* Each writer returns 0, or -1 when writing failed or memory ran out
 * (already reported on stderr). */
int report_text(pd_profile *p, const report_opts *o, outbuf *out);
int report_json(pd_profile *p, const report_opts *o, outbuf *out);
int report_csv(pd_profile *p, const report_opts *o, outbuf *out);
int report_folded(pd_profile *p, const report_opts *o, outbuf *out);

/* Events to print: the chosen one, or every event with samples.  Fills
 * `evs` (room for pd_profile_event_count() entries) and returns how many. */
size_t report_events(const pd_profile *p, const report_opts *o, size_t *evs);

/* 100 * v / total in hundredths, rounded as printf("%.2f") does. */
uint64_t report_hundredths(uint64_t v, uint64_t total);

/* "12.34" for 100 * v / total (two decimals, rounded), right-aligned to
 * `width` columns; total 0 prints 0.00. */
void report_put_pct(outbuf *b, uint64_t v, uint64_t total, unsigned width);

/* One character (outbuf has only the unchecked ob_putc_r). */
static inline void rb_putc(outbuf *b, char c)
{
	if (ob_reserve(b, 1))
		ob_putc_r(b, c);
}

/* Flush when REPORT_FLUSH_AT bytes are buffered; -1 on a write error. */
int report_flush_some(outbuf *b);

/* The last path component of a dso ("libc.so.6"; "[kernel.kallsyms]"). */
const char *report_short_dso(const char *dso);

#endif
