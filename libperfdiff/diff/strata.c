/*
 * Rows by process: how each row's cost splits over the commands that
 * spent it, for the statistics (rowstats.c).
 *
 * A system-wide recording mixes processes whose shares move with whatever
 * else ran: another job takes half the samples in one run and none in the
 * next, a build steals the program's CPU in one run and not in the other,
 * and every row of the process moves with it, while the row's share
 * within its process holds still.  So the statistics judge a row by its
 * share within its processes:
 *
 * - with runs, on each run's value standardized to the processes' mean
 *   shares ("direct standardization": Σ over processes P of the row's
 *   share of P in that run times P's mean share over all runs of both
 *   sides, a label-free weight), so that the run-to-run spread is the
 *   row's own and not its process's;
 * - with one run a side, by the Cochran–Mantel–Haenszel test over one 2×2
 *   table per command: (the row, the rest of the command) × (base, new).
 *
 * A process that one side (or one run) lacks informs nothing about a row
 * there: its share within the process is taken as the runs that have it
 * show (pooled).  Each row also learns its process, the command with most
 * of its cost, whose rows its variation is judged beside (rowstats.c fits
 * a prior per process).
 *
 * Which command a tree node's cost belongs to comes from the profile's
 * (command, leaf) stacks (pd_profile_stack_at(), all runs): the one with
 * most samples at it, which is all of them unless one binary ran under
 * several names.  A node's self cost per run then counts in its rows
 * (dt_leaf_rows()), command by command, so memory is one value per row
 * and run whatever the number of commands.  The robot's keys, tree rows
 * and rates (PD_DIFF_ABSOLUTE) are left as they are: `proc` DT_NONE.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct strata {
	pd_diff *d;
	size_t ncols;        /* runs of both sides: base runs, then new */
	pd_u64map byname;    /* hash of a command → its first index + 1 */
	const char **name;   /* per command */
	uint32_t *next;      /* per command: the next with the same hash, DT_NONE */
	size_t nnames, capnames;
	uint32_t *vproc[2];  /* per tree node: its command, DT_NONE (the diff's arena) */
	uint32_t *order;     /* (side << 31 | node) of nodes with self cost, by command */
	size_t norder;
	double *tot;         /* [command * ncols + col]: its period, current command only */
	double *acc;         /* [row * ncols + col]: the current command's period */
	double *share;       /* per command: its mean share (points), the diff's arena */
	uint32_t *pids;      /* per command: the most processes it ran as (the diff's arena) */
	double *best;        /* per row: cost in its process so far */
	uint32_t *seen;      /* per row: the last command (+ 1) that cost it */
	uint32_t *touched;   /* rows with cost of the current command */
	size_t ntouched;
	uint32_t *anc[2];    /* per tree node: nearest ancestor with its key */
	dt_leafwalk walk[2];
	int side;
	uint32_t node;       /* what credit_row() adds: node's self cost of each run */
	uint32_t cur;        /* the command being credited */
} strata;

/* The index of side s's command `comm` (a renamed binary's new command
 * is the base's, pd_diff_base_comm()), added when new, its name kept in
 * the diff's arena; DT_NONE without memory. */
static uint32_t comm_index(strata *st, int s, const char *comm)
{
	char buf[16];
	if (s)
		comm = pd_diff_base_comm(st->d, comm, buf);
	uint64_t h = pd_hash_str(PD_HASH_INIT, comm);
	uintptr_t first = (uintptr_t)pd_u64map_get(&st->byname, h);
	for (uint32_t i = first ? (uint32_t)(first - 1) : DT_NONE; i != DT_NONE; i = st->next[i])
		if (strcmp(st->name[i], comm) == 0)
			return i;
	size_t at = st->nnames;
	if (pd_grow(&st->name, &st->capnames, at + 1, sizeof *st->name) < 0)
		return DT_NONE;
	uint32_t *nx = realloc(st->next, st->capnames * sizeof *nx);
	if (!nx)
		return DT_NONE;
	st->next = nx;
	st->name[at] = pd_arena_strndup(&st->d->arena, comm, strlen(comm));
	if (!st->name[at])
		return DT_NONE;
	st->next[at] = first ? (uint32_t)(first - 1) : DT_NONE;
	if (pd_u64map_put(&st->byname, h, (void *)(uintptr_t)(at + 1)) < 0)
		return DT_NONE;
	st->nnames++;
	return (uint32_t)at;
}

/* Per profile node (pd_cct_id()) of side s: its command and samples
 * there, the command with most samples kept. */
static int leaf_commands(strata *st, int s, uint32_t *comm, uint64_t *most, size_t len)
{
	const dt_tree *t = &st->d->tree[s];
	size_t n = pd_profile_stack_count(t->prof, t->ev);
	for (size_t i = 0; i < n; i++) {
		pd_stack k;
		if (!pd_profile_stack_at(t->prof, t->ev, i, &k))
			continue;
		size_t id = pd_cct_id(k.leaf);
		uint32_t c = comm_index(st, s, k.comm ? k.comm : "");
		if (c == DT_NONE)
			return PD_ENOMEM;
		if (id < len && k.samples > most[id]) {
			most[id] = k.samples;
			comm[id] = c;
		}
	}
	return 0;
}

/* Each tree node of side s: the command of the profile node folded into
 * it with most samples. */
static int node_commands(strata *st, int s)
{
	const dt_tree *t = &st->d->tree[s];
	size_t len = pd_cct_count(pd_profile_root(t->prof, t->ev));
	uint32_t *comm = malloc((len ? len : 1) * sizeof *comm);
	uint64_t *most = calloc(len ? len : 1, sizeof *most);
	uint64_t *vmost = calloc(t->nn ? t->nn : 1, sizeof *vmost);
	st->vproc[s] = pd_arena_alloc(&st->d->arena, (t->nn ? t->nn : 1) * sizeof *st->vproc[s]);
	int rc = comm && most && vmost && st->vproc[s] ? 0 : PD_ENOMEM;
	for (size_t i = 0; i < len && rc == 0; i++)
		comm[i] = DT_NONE;
	for (size_t v = 0; v < t->nn && rc == 0; v++)
		st->vproc[s][v] = DT_NONE;
	if (rc == 0)
		rc = leaf_commands(st, s, comm, most, len);
	for (size_t i = 0; i < t->nsrc && rc == 0; i++) {
		size_t id = pd_cct_id(t->src[i]);
		uint32_t v = t->src_id[i];
		if (id < len && comm[id] != DT_NONE && most[id] > vmost[v]) {
			vmost[v] = most[id];
			st->vproc[s][v] = comm[id];
		}
	}
	free(comm);
	free(most);
	free(vmost);
	return rc;
}

static uint32_t order_proc(const strata *st, uint32_t e)
{
	return st->vproc[e >> 31][e & 0x7fffffffu];
}

/* The nodes with a command, grouped by it (counting sort). */
static int order_nodes(strata *st)
{
	size_t total = st->d->tree[0].nn + (size_t)st->d->tree[1].nn;
	uint32_t *at = calloc(st->nnames + 1, sizeof *at);
	st->order = malloc((total ? total : 1) * sizeof *st->order);
	if (!at || !st->order) {
		free(at);
		return PD_ENOMEM;
	}
	for (int s = 0; s < 2; s++)
		for (uint32_t v = 1; v < st->d->tree[s].nn; v++)
			if (st->vproc[s][v] != DT_NONE)
				at[st->vproc[s][v] + 1]++;
	for (size_t c = 0; c < st->nnames; c++)
		at[c + 1] += at[c];
	st->norder = at[st->nnames];
	for (int s = 0; s < 2; s++)
		for (uint32_t v = 1; v < st->d->tree[s].nn; v++)
			if (st->vproc[s][v] != DT_NONE)
				st->order[at[st->vproc[s][v]]++] = (uint32_t)s << 31 | v;
	free(at);
	return 0;
}

/* Node st->node's self cost of every run of its side counts in `row`. */
static void credit_row(void *ctx, uint32_t row)
{
	strata *st = ctx;
	const dt_tree *t = &st->d->tree[st->side];
	double *a = &st->acc[(size_t)row * st->ncols + (st->side ? st->d->nruns[0] : 0)];
	for (size_t r = 0; r < t->nruns; r++)
		a[r] += (double)t->self[(size_t)st->node * t->nruns + r];
	if (st->seen[row] != st->cur + 1) {
		st->seen[row] = st->cur + 1;
		st->touched[st->ntouched++] = row;
	}
}

/* Shift rows: their members' costs summed, as their values are. */
static void credit_shifts(strata *st)
{
	pd_diff *d = st->d;
	for (size_t i = 0; i < d->nrels; i++) {
		uint32_t rows[2 * DT_REL_MAX], to = d->relinfo[i].row;
		size_t n = pd_diff_shift_members(d, i, rows);
		bool any = false;
		for (size_t k = 0; k < n; k++)
			any |= st->seen[rows[k]] == st->cur + 1;
		if (!any)
			continue;
		double *a = &st->acc[(size_t)to * st->ncols];
		for (size_t k = 0; k < n; k++)
			for (size_t c = 0; c < st->ncols; c++)
				a[c] += st->acc[(size_t)rows[k] * st->ncols + c];
		st->seen[to] = st->cur + 1;
		st->touched[st->ntouched++] = to;
	}
}

/* Run column c's side and run. */
static void col_run(const pd_diff *d, size_t c, int *side, size_t *run)
{
	*side = c >= d->nruns[0];
	*run = *side ? c - d->nruns[0] : c;
}

/* The command's mean share (points) over all runs of both sides. */
static double mean_share(const strata *st, const double *tot)
{
	double sum = 0;
	for (size_t c = 0; c < st->ncols; c++) {
		int s;
		size_t r;
		col_run(st->d, c, &s, &r);
		sum += tot[c] * st->d->unit[s][r];
	}
	return sum / (double)st->ncols;
}

/* Row r's CMH sums over the command's table, in samples: each side's
 * runs pooled, a run's period over its mean period per sample. */
static void cmh_add(strata *st, dt_row *row, const double *a, const double *tot)
{
	double x[2] = { 0, 0 }, n[2] = { 0, 0 };
	for (size_t c = 0; c < st->ncols; c++) {
		int s;
		size_t r;
		col_run(st->d, c, &s, &r);
		const dt_tree *t = &st->d->tree[s];
		double per = t->samples[r] ? (double)t->total[r] / (double)t->samples[r] : 1;
		x[s] += a[c] / per;
		n[s] += tot[c] / per;
	}
	double m = x[0] + x[1], N = n[0] + n[1];
	if (n[0] > 0 && n[1] > 0 && N > 1) {
		row->cmh_u += x[1] - m * n[1] / N;
		row->cmh_v += fmax(0, m * (N - m) * n[0] * n[1] / (N * N * (N - 1)));
	}
}

/*
 * The current command's part of each row it touched: the row's share of
 * the command in each run (the runs' pooled share where the command did
 * not run) times the command's mean share goes to the row's standardized
 * value; the CMH sums; the row's process if the command holds most of it.
 */
static void settle(strata *st)
{
	const double *tot = &st->tot[0];
	double pooled_tot = 0, mean = mean_share(st, tot);
	st->share[st->cur] = mean;
	for (size_t c = 0; c < st->ncols; c++)
		pooled_tot += tot[c];
	for (size_t i = 0; i < st->ntouched; i++) {
		uint32_t r = st->touched[i];
		dt_row *row = &st->d->rows[r];
		double *a = &st->acc[(size_t)r * st->ncols], sum = 0;
		for (size_t c = 0; c < st->ncols; c++)
			sum += a[c];
		for (size_t c = 0; c < st->ncols && pooled_tot > 0; c++)
			row->svals[c] += mean * (tot[c] > 0 ? a[c] / tot[c] : sum / pooled_tot);
		cmh_add(st, row, a, tot);
		if (sum > st->best[r]) {
			st->best[r] = sum;
			row->proc = st->cur;
		}
		memset(a, 0, st->ncols * sizeof *a);
	}
	st->ntouched = 0;
}

/* The commands one after the other: credit their nodes, then settle. */
static void walk_commands(strata *st)
{
	for (size_t i = 0, j; i < st->norder; i = j) {
		st->cur = order_proc(st, st->order[i]);
		memset(st->tot, 0, st->ncols * sizeof *st->tot);
		for (j = i; j < st->norder && order_proc(st, st->order[j]) == st->cur; j++) {
			st->side = (int)(st->order[j] >> 31);
			st->node = st->order[j] & 0x7fffffffu;
			const dt_tree *t = &st->d->tree[st->side];
			size_t col0 = st->side ? st->d->nruns[0] : 0;
			for (size_t r = 0; r < t->nruns; r++)
				st->tot[col0 + r] += (double)t->self[(size_t)st->node * t->nruns + r];
			dt_leaf_rows(st->d, st->side, &st->walk[st->side], st->node, credit_row, st);
		}
		credit_shifts(st);
		settle(st);
	}
}

/* How many processes each command ran as, the larger side's, for
 * pd_diff_process_at() to say (a parallel build's compilers are several);
 * the new side's under its own name, which a renamed binary's is not. */
static int count_pids(strata *st)
{
	pd_diff *d = st->d;
	st->pids = pd_arena_alloc(&d->arena, (st->nnames ? st->nnames : 1) * sizeof *st->pids);
	if (!st->pids)
		return PD_ENOMEM;
	for (size_t c = 0; c < st->nnames; c++) {
		size_t b = pd_profile_comm_processes(d->tree[0].prof, st->name[c]);
		size_t n = pd_profile_comm_processes(d->tree[1].prof, st->name[c]);
		size_t m = b > n ? b : n;
		st->pids[c] = m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
	}
	return 0;
}

static int alloc_all(strata *st)
{
	pd_diff *d = st->d;
	size_t rows = d->nrows ? d->nrows : 1;
	int ok = 1;
	for (int s = 0; s < 2; s++) {
		const dt_tree *t = &d->tree[s];
		st->anc[s] = malloc((t->nn ? t->nn : 1) * sizeof *st->anc[s]);
		st->walk[s].anc = st->anc[s];
		st->walk[s].stamp = calloc(t->keys->n ? t->keys->n : 1, sizeof *st->walk[s].stamp);
		ok &= st->anc[s] && st->walk[s].stamp && dt_same_key_ancestors(t, st->anc[s]) == 0;
	}
	st->tot = calloc(st->ncols, sizeof *st->tot);
	st->share = pd_arena_alloc(&d->arena, (st->nnames ? st->nnames : 1) * sizeof *st->share);
	for (size_t c = 0; st->share && c < st->nnames; c++)
		st->share[c] = 0;
	st->acc = calloc(rows * st->ncols, sizeof *st->acc);
	st->best = calloc(rows, sizeof *st->best);
	st->seen = calloc(rows, sizeof *st->seen);
	st->touched = malloc(rows * sizeof *st->touched);
	return ok && st->tot && st->share && st->acc && st->best && st->seen && st->touched
		       ? 0
		       : PD_ENOMEM;
}

static void strata_free(strata *st)
{
	for (int s = 0; s < 2; s++) {
		free(st->anc[s]);
		free(st->walk[s].stamp);
	}
	free(st->order);
	free(st->tot);
	free(st->acc);
	free(st->best);
	free(st->seen);
	free(st->touched);
	free(st->name);
	free(st->next);
	pd_u64map_free(&st->byname);
}

/* The commands' names and samples, kept in the diff's arena. */
static int keep_names(strata *st)
{
	pd_diff *d = st->d;
	size_t n = st->nnames ? st->nnames : 1;
	d->procs = pd_arena_alloc(&d->arena, n * sizeof *d->procs);
	d->proc_samples = pd_arena_alloc(&d->arena, n * sizeof *d->proc_samples);
	if (!d->procs || !d->proc_samples)
		return PD_ENOMEM;
	memcpy(d->procs, st->name, st->nnames * sizeof *d->procs);
	memset(d->proc_samples, 0, n * sizeof *d->proc_samples);
	for (int s = 0; s < 2; s++) {
		const dt_tree *t = &d->tree[s];
		for (uint32_t v = 1; v < t->nn; v++)
			for (size_t r = 0; st->vproc[s][v] != DT_NONE && r < t->nruns; r++) {
				double per = t->samples[r] ? (double)t->total[r] / (double)t->samples[r]
							   : 1;
				d->proc_samples[st->vproc[s][v]] +=
					(double)t->self[(size_t)v * t->nruns + r] / per;
			}
	}
	d->nprocs = st->nnames;
	d->proc_share = st->share;
	d->proc_pids = st->pids;
	d->vproc[0] = st->vproc[0];
	d->vproc[1] = st->vproc[1];
	return 0;
}

/* Rows the strata speak for get standardized values; the others keep
 * their own (svals pointing at vals). */
static int init_rows(pd_diff *d, size_t ncols)
{
	for (size_t i = 0; i < d->nrows; i++) {
		dt_row *r = &d->rows[i];
		r->proc = DT_NONE;
		r->cmh_u = r->cmh_v = 0;
		r->svals = r->vals;
	}
	if (!d->strata)
		return 0;
	double *all = pd_arena_alloc(&d->arena, (d->nrows ? d->nrows : 1) * ncols * sizeof *all);
	if (!all)
		return PD_ENOMEM;
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].pub.metric != PD_DIFF_TREE) {
			d->rows[i].svals = &all[i * ncols];
			memset(d->rows[i].svals, 0, ncols * sizeof *all);
		}
	return 0;
}

int pd_diff_strata(pd_diff *d)
{
	d->strata = !(d->opts.flags & (PD_DIFF_LKP_KEYS | PD_DIFF_ABSOLUTE)) &&
		    d->tree[0].prof && d->tree[1].prof;
	strata st;
	memset(&st, 0, sizeof st);
	st.d = d;
	st.ncols = d->nruns[0] + d->nruns[1];
	int rc = init_rows(d, st.ncols);
	if (rc < 0 || !d->strata)
		return rc;
	pd_u64map_init(&st.byname);
	for (int s = 0; s < 2 && rc == 0; s++)
		rc = node_commands(&st, s);
	if (rc == 0)
		rc = count_pids(&st);
	if (rc == 0)
		rc = order_nodes(&st);
	if (rc == 0)
		rc = alloc_all(&st);
	if (rc == 0) {
		walk_commands(&st);
		rc = keep_names(&st);
	}
	for (size_t i = 0; i < d->nrows; i++)  /* no command spent it: its own values */
		if (d->rows[i].proc == DT_NONE)
			d->rows[i].svals = d->rows[i].vals;
	strata_free(&st);
	d->strata = rc == 0;
	return rc;
}
