/*
 * What the stack filters (--focus, --ignore, --hide, --prune-from,
 * pd_profile_options) removed, said beside the numbers they changed: a
 * report's event header, a diff's footer per side, and both JSON
 * documents.  Shares are of the period before the stack filters, so that
 * a reader sees how much of the recording the result still covers.
 */
#include <inttypes.h>
#include <stdio.h>

#include "internal.h"
#include "json.h"

static const char *const opt_names[PD_STACK_NFILTERS] = { "focus", "ignore", "hide", "hide",
							  "prune-from" };
static const char *const effects[PD_STACK_NFILTERS] = {
	"dropped", "dropped", "removed frames of", "dropped (every frame hidden)", "cut",
};

/* The period of event `ev` before the stack filters dropped samples. */
static uint64_t period_before(const pd_profile *p, size_t ev)
{
	uint64_t sum = pd_profile_total(p, ev, SIZE_MAX), dropped;
	static const pd_stack_filter drops[] = { PD_STACK_FOCUS, PD_STACK_IGNORE,
						 PD_STACK_HIDE_ALL };
	for (size_t i = 0; i < sizeof drops / sizeof drops[0]; i++) {
		pd_profile_stack_filtered(p, ev, SIZE_MAX, drops[i], &dropped);
		sum += dropped;
	}
	return sum;
}

bool pdo_stack_filtered(const pd_profile *p)
{
	for (int f = 0; p && f < PD_STACK_NFILTERS; f++)
		if (pd_profile_stack_filter_regex(p, (pd_stack_filter)f))
			return true;
	return false;
}

void pdo_stack_filters_text(pd_writer *w, const pd_profile *p, size_t ev, const char *indent)
{
	if (!pdo_stack_filtered(p) || ev >= pd_profile_event_count(p))
		return;
	uint64_t before = period_before(p, ev);
	for (int f = 0; f < PD_STACK_NFILTERS; f++) {
		const char *re = pd_profile_stack_filter_regex(p, (pd_stack_filter)f);
		uint64_t period, n = pd_profile_stack_filtered(p, ev, SIZE_MAX, (pd_stack_filter)f,
							      &period);
		/* hide's drops are said only when there are some */
		if (!re || (f == PD_STACK_HIDE_ALL && n == 0))
			continue;
		pdo_printf(w, "%sstack filter --%s=", indent, opt_names[f]);
		pdo_put_escaped(w, re);
		pdo_printf(w, " %s %" PRIu64 " samples (%.2f %% of the period before the "
			   "stack filters)\n", effects[f], n,
			   before ? 100.0 * (double)period / (double)before : 0.0);
	}
}

void pdo_stack_filters_json(pd_writer *w, const pd_profile *p, size_t ev)
{
	pdo_json_key(w, "stack_filters");
	if (!pdo_stack_filtered(p) || ev >= pd_profile_event_count(p)) {
		pdo_json_raw(w, "null");
		return;
	}
	uint64_t before = period_before(p, ev);
	static const char *const kinds[PD_STACK_NFILTERS] = { "focus", "ignore", "hide",
							      "hide_all", "prune_from" };
	pdo_json_open(w, '{');
	pdo_json_key(w, "period_before");
	pdo_json_item(w);
	pdo_json_u64(w, before);
	for (int f = 0; f < PD_STACK_NFILTERS; f++) {
		const char *re = pd_profile_stack_filter_regex(p, (pd_stack_filter)f);
		pdo_json_key(w, kinds[f]);
		if (!re) {
			pdo_json_raw(w, "null");
			continue;
		}
		uint64_t period, n = pd_profile_stack_filtered(p, ev, SIZE_MAX, (pd_stack_filter)f,
							      &period);
		pdo_json_open(w, '{');
		pdo_json_key(w, "regex");
		pdo_json_item(w);
		pdo_json_str(w, re);
		pdo_json_key(w, "samples");
		pdo_json_item(w);
		pdo_json_u64(w, n);
		pdo_json_key(w, "period");
		pdo_json_item(w);
		pdo_json_u64(w, period);
		/* 4 decimals, as every share of the formats */
		char pct[32];
		snprintf(pct, sizeof pct, "%.4f",
			 before ? 100.0 * (double)period / (double)before : 0.0);
		pdo_json_key(w, "pct");
		pdo_json_raw(w, pct);
		pdo_json_close(w, '}');
	}
	pdo_json_close(w, '}');
}
