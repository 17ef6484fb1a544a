/*
 * pd_diff_write(): the options of a comparison's output checked, what
 * every diff format needs gathered once (the diff's options, each side's
 * files and runs, the robot's name of the event), then one writer per
 * format (diff_text.c for text and lkp, diff_json.c, csv.c).
 */
#include <stddef.h>
#include <stdlib.h>

#include "internal.h"
#include "perfdiff/report.h"
#include "util/util.h"

/* How far each version of pd_diff_write_options went. */
static const size_t diff_sizes[] = {
	0, PD_OPTIONS_END(pd_diff_write_options, weight_samples),
};

void pd_diff_write_options_init(pd_diff_write_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	o->version = PD_DIFF_WRITE_OPTIONS_VERSION;
	o->format = PD_FORMAT_TEXT;
}

int pdo_diff_options(pd_diff_write_options *out, const pd_diff_write_options *o,
		     pd_error *err)
{
	pd_diff_write_options_init(out);
	if (!o)
		return 0;
	return pd_options_import(out, o, diff_sizes, PD_DIFF_WRITE_OPTIONS_VERSION,
				 "pd_diff_write_options", "output", err);
}

/* The side's files as given, else its runs' paths (`paths` has room for
 * the runs). */
static void side_files(pdo_diff *v, int side, const pd_diff_write_options *o,
		       const char **paths)
{
	const pd_profile *p = pd_diff_profile(v->d, side);
	v->nruns[side] = p ? pd_profile_run_count(p) : 0;
	if (o->files[side]) {
		v->files[side] = o->files[side];
		v->nfiles[side] = o->nfiles[side];
		return;
	}
	for (size_t r = 0; r < v->nruns[side]; r++)
		paths[r] = pd_profile_run_path(p, r);
	v->files[side] = paths;
	v->nfiles[side] = v->nruns[side];
}

static int dispatch(const pdo_diff *v, pd_format f)
{
	switch (f) {
	case PD_FORMAT_LKP:
		return pdo_diff_lkp(v);
	case PD_FORMAT_JSON:
		return pdo_diff_json(v);
	case PD_FORMAT_CSV:
		return pdo_diff_csv(v);
	default:
		return pdo_diff_text(v);
	}
}

static int write_view(pdo_diff *v, const pd_diff_write_options *o)
{
	const char **paths[2] = { NULL, NULL };
	int rc = 0;
	for (int side = 0; side < 2 && rc == 0; side++) {
		const pd_profile *p = pd_diff_profile(v->d, side);
		size_t runs = p ? pd_profile_run_count(p) : 0;
		if (!o->files[side] && !(paths[side] = calloc(runs ? runs : 1, sizeof(char *))))
			rc = pdo_nomem(v->err);
		else
			side_files(v, side, o, paths[side]);
	}
	if (rc == 0)
		rc = dispatch(v, o->format);
	free(paths[0]);
	free(paths[1]);
	return rc;
}

int pd_diff_write(pd_writer *w, const pd_diff *d, const pd_diff_write_options *o,
		  pd_error *err)
{
	if (!w || !d)
		return pd_error_set(err, PD_EINVAL, "output", PD_NO_OFFSET, "no writer or diff given");
	pd_diff_write_options opts;
	int rc = pdo_diff_options(&opts, o, err);
	if (rc == 0)
		rc = pdo_format_check(opts.format, PDO_BIT(PD_FORMAT_TEXT) | PDO_BIT(PD_FORMAT_LKP) |
				      PDO_BIT(PD_FORMAT_JSON) | PDO_BIT(PD_FORMAT_CSV),
				      "a diff (pd_diff_write_folded() writes folded stacks)", err);
	if (rc < 0)
		return rc;
	pdo_diff v = { .w = w, .d = d, .all = opts.all, .err = err };
	pd_diff_options_get(d, &v.opts);
	pd_lkp_event_name(pd_diff_event(d), v.event, sizeof v.event);
	rc = write_view(&v, &opts);
	return rc < 0 ? rc : pdo_done(w, err);
}
