/*
 * One build at two paths: a program and its `strip -o` copy share the
 * build-id (strip keeps .note.gnu.build-id), and both run in one
 * recording.  perf keys dsos by path, so each sample names the file its
 * process mapped; libperfdiff must too, and must take the symbols from the
 * copy that has them.
 *
 * The oracle is `perf script -F comm,ip,sym,dso` on the same file:
 *   - every frame in either program has perf's dso path and address;
 *   - frames of `app` have perf's names, but for a sample in a PLT slot,
 *     which we name "clock_gettime@plt" and perf 6.1 by the symbol before
 *     .plt ("_init");
 *   - perf leaves frames of `app-stripped` [unknown] (it reads only that
 *     file, which has no symbols); ours are named from `app`, which was
 *     mapped with the same build-id, so they must carry the name `app` has
 *     at the same address.  A stripped-copy sample taken before `app`
 *     was mapped may stay [unknown] (the other path is not known yet);
 *     the copy starts first, so that both kinds are there, and a session
 *     that kept its chains' frames from before (session/chain_memo.h)
 *     would leave them all [unknown].
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "perfdiff/session.h"

static const char app_src[] =
	"#include <time.h>\n"
	"static volatile unsigned long sink;\n"
	"__attribute__((noinline)) void bp_leaf(unsigned long n)\n"
	"{ for (unsigned long i = 0; i < n; i++) sink += i * 7; }\n"
	"__attribute__((noinline)) void bp_mid(void) { bp_leaf(200000); }\n"
	"int main(void) {\n"
	"	struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);\n"
	"	do { bp_mid(); clock_gettime(CLOCK_MONOTONIC, &b); }\n"
	"	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000L);\n"
	"	return 0;\n"
	"}\n";

typedef struct uframe {
	unsigned long long ip;
	char sym[128];
	char dso[256];
} uframe;

#define MAX_UF 16

/* One sample's frames in either program, leaf first. */
typedef struct usample {
	size_t n;
	uframe f[MAX_UF];
} usample;

static bool in_programs(const char *dso, const char *prefix)
{
	size_t pl = strlen(prefix);
	return strncmp(dso, prefix, pl) == 0 &&
	       (strcmp(dso + pl, "") == 0 || strcmp(dso + pl, "-stripped") == 0);
}

/* perf script's samples; returns how many (at most `max`). */
static size_t parse_perf(char *text, const char *prefix, usample *out, size_t max)
{
	size_t n = 0;
	bool open = false;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (l[0] != ' ' && l[0] != '\t') {
			/* a header line: a new sample */
			if (n == max)
				break;
			memset(&out[n], 0, sizeof out[n]);
			n++;
			open = true;
			continue;
		}
		char *lp = strrchr(l, '(');
		char *rp = strrchr(l, ')');
		unsigned long long ip;
		int used = 0;
		if (!open || !lp || !rp || rp < lp || sscanf(l, " %llx %n", &ip, &used) != 1)
			continue;
		*rp = '\0';
		usample *s = &out[n - 1];
		if (!in_programs(lp + 1, prefix) || s->n == MAX_UF)
			continue;
		uframe *f = &s->f[s->n++];
		f->ip = ip;
		snprintf(f->dso, sizeof f->dso, "%s", lp + 1);
		char *sym = l + used;
		size_t sl = (size_t)(lp - sym);
		while (sl && sym[sl - 1] == ' ')
			sl--;
		snprintf(f->sym, sizeof f->sym, "%.*s", (int)sl, sym);
	}
	return n;
}

START_TEST(test_stripped_copy)
{
	char *dir;
	PD_SKIP_IF(pd_test_lab_open(true, &dir));
	if (!pd_test_sh_ok("strip --version >/dev/null 2>&1")) {
		pd_test_lab_close(dir);
		PD_SKIP("no strip");
	}
	char src[4200], app[4200], data[4200], cache[4200], cmd[16384];
	snprintf(src, sizeof src, "%s/app.c", dir);
	snprintf(app, sizeof app, "%s/app", dir);
	snprintf(data, sizeof data, "%s/x.data", dir);
	snprintf(cache, sizeof cache, "%s/no-cache", dir);
	pd_test_mkdirs(cache);
	ck_assert(pd_test_write_file(src, app_src, sizeof app_src - 1));
	ck_assert(pd_test_compile("cc", "-g -O1 -fno-omit-frame-pointer", app, src));
	snprintf(cmd, sizeof cmd, "strip -o '%s-stripped' '%s'", app, app);
	ck_assert(pd_test_sh_ok(cmd));
	/* the premise: one build-id at both paths */
	snprintf(cmd, sizeof cmd,
		 "a=$(readelf -n '%s' | grep 'Build ID'); b=$(readelf -n '%s-stripped' | grep 'Build ID');"
		 " test -n \"$a\" && test \"$a\" = \"$b\"", app, app);
	if (!pd_test_sh_ok(cmd)) {
		pd_test_lab_close(dir);
		PD_SKIP("the compiler writes no build-id");
	}
	/* the stripped copy first, so that its first samples are named (or
	 * not) before the path with symbols turns up, and the rest after */
	snprintf(cmd, sizeof cmd, "sh -c \"'%s-stripped' & sleep 0.05; '%s'; wait\"", app, app);
	if (!pd_test_perf_record(data, "-N -q -e cpu-clock -g", cmd)) {
		pd_test_lab_close(dir);
		PD_SKIP("perf record failed");
	}

	snprintf(cmd, sizeof cmd, "perf script -i '%s' -F comm,ip,sym,dso 2>/dev/null", data);
	int status;
	char *text = pd_test_run(cmd, &status);
	ck_assert_ptr_nonnull(text);
	size_t max = 6000;  /* ~0.6 s of cpu-clock at 4 kHz, twice over */
	usample *perf = calloc(max, sizeof *perf);
	ck_assert_ptr_nonnull(perf);
	size_t nperf = parse_perf(text, app, perf, max);
	free(text);

	pd_session_options o;
	pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
	o.flags = PD_SESSION_PERF_COMPAT | PD_SESSION_NO_INLINE;
	o.buildid_dir = cache;  /* not ~/.debug: the recorded files alone */
	pd_session *s;
	pd_error err;
	ck_assert_msg(pd_session_open(&s, data, &o, &err) == 0, "%s", err.message);

	/* address in app → perf's name there, for the stripped copy's frames */
	typedef struct { unsigned long long ip; char sym[256]; } named;
	named *names = calloc(4096, sizeof *names);
	ck_assert_ptr_nonnull(names);
	size_t nnames = 0;
	typedef struct { unsigned long long ip; const char *ours; } pending;
	pending *strip = calloc(200000, sizeof *strip);
	ck_assert_ptr_nonnull(strip);
	size_t nstrip = 0, napp = 0, nstripped = 0, nplt = 0;

	const pd_resolved_sample *rs;
	size_t i = 0;
	int rc;
	while ((rc = pd_session_next(s, &rs, &err)) == 0) {
		ck_assert_uint_lt(i, nperf);
		const usample *p = &perf[i++];
		size_t k = 0;
		for (size_t j = 0; j < rs->nframes; j++) {
			const pd_frame *f = &rs->frames[j];
			if (!f->dso || strncmp(f->dso, dir, strlen(dir)) != 0)
				continue;
			ck_assert_msg(k < p->n, "sample %zu: %s frame %#llx not in perf's chain", i - 1,
				      f->dso, (unsigned long long)f->dso_addr);
			const uframe *pf = &p->f[k++];
			ck_assert_str_eq(f->dso, pf->dso);
			ck_assert_uint_eq(f->dso_addr, pf->ip);
			const char *ours = f->symbol ? f->symbol : "[unknown]";
			if (strcmp(pf->dso, app) == 0) {
				/* A PLT slot (a sample in the call to clock_gettime, now
				 * and then): libperfdiff names it by its relocation,
				 * "clock_gettime@plt"; perf 6.1 stretches the symbol
				 * before .plt over it ("_init").  Known, and counted. */
				size_t ol = strlen(ours);
				bool plt = ol > 4 && strcmp(ours + ol - 4, "@plt") == 0 &&
					   strcmp(ours, pf->sym) != 0;
				nplt += plt;
				ck_assert_msg(plt || strcmp(ours, pf->sym) == 0,
					      "sample %zu app+%#llx: perf %s, ours %s", i - 1, pf->ip,
					      pf->sym, ours);
				napp++;
				bool seen = false;
				for (size_t m = 0; m < nnames && !seen; m++)
					seen = names[m].ip == pf->ip;
				if (!seen && nnames < 4096) {
					/* the stripped copy is checked against this name */
					names[nnames].ip = pf->ip;
					snprintf(names[nnames].sym, sizeof names[nnames].sym, "%s", ours);
					nnames++;
				}
			} else {
				nstripped++;
				if (nstrip < 200000)
					strip[nstrip++] = (pending){ pf->ip, f->symbol };
			}
		}
		ck_assert_msg(k == p->n, "sample %zu: perf has %zu frames in the programs, ours %zu",
			      i - 1, p->n, k);
	}
	ck_assert_msg(rc == PD_ITEROVER, "%s", err.message);
	ck_assert_uint_eq(i, nperf);

	size_t named_n = 0, checked = 0;
	for (size_t k = 0; k < nstrip; k++) {
		if (!strip[k].ours)
			continue;
		named_n++;
		for (size_t m = 0; m < nnames; m++) {
			if (names[m].ip != strip[k].ip)
				continue;
			ck_assert_msg(strcmp(strip[k].ours, names[m].sym) == 0,
				      "app-stripped+%#llx: ours %s, app named there %s", strip[k].ip,
				      strip[k].ours, names[m].sym);
			checked++;
			break;
		}
	}
	fprintf(stderr,
		"build-id shared by 2 paths: %zu samples; %zu app frames as perf (%zu in a PLT slot, "
		"which perf names by the symbol before it); %zu app-stripped frames, "
		"%zu named (%zu checked against our names in app, which are perf's)\n",
		nperf, napp, nplt, nstripped, named_n, checked);
	ck_assert_uint_ge(napp, 20);
	ck_assert_uint_ge(nstripped, 20);
	/* only samples before app was mapped may stay unnamed */
	ck_assert_uint_ge(named_n * 2, nstripped);
	ck_assert_uint_ge(checked * 2, named_n);

	free(strip);
	free(names);
	free(perf);
	pd_session_free(s);
	pd_test_lab_close(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("buildid_paths");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_stripped_copy);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(suite());
}