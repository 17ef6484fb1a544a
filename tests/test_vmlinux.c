/*
 * --vmlinux and perf-compatible C++ names.
 *
 * There is no real vmlinux here, so one is built at test time from the
 * running kernel's /proc/kallsyms: an assembly file places every core
 * kernel text name at its kallsyms offset from _text, and `ld` links it
 * 0x200000 below the running kernel (a fake KASLR slide that the
 * relocation must undo) with the running kernel's build-id.  Oracles:
 * /proc/kallsyms through the symbolizer's kallsyms path, for the same
 * frames of a system-wide `perf record`; for C++ names, `perf script`
 * and `c++filt -p`.  The same fake, served by a real `debuginfod -F` on
 * the loopback, must be fetched for the recorded kernel's build-id
 * without --vmlinux, and refused when it carries another build-id.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"
#include "symbols/symb_internal.h"
#include "symbols/symbolizer.h"

#define SLIDE 0x200000u

typedef struct ksym {
	uint64_t addr;
	char type;
	bool alias;     /* shares its address with another name */
	bool included;  /* put into the fake vmlinux */
	char *name;
} ksym;

typedef struct ktab {
	ksym *s;
	size_t n;
	uint64_t text, end;
} ktab;

static bool have(const char *tool)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
	int st;
	free(pd_test_run(cmd, &st));
	return st == 0;
}

/* Core kernel text symbols of /proc/kallsyms, in file order. */
static bool load_kallsyms(ktab *t)
{
	size_t len;
	char *text = (char *)pd_test_read_file("/proc/kallsyms", &len);
	if (!text)
		return false;
	text = realloc(text, len + 1);
	text[len] = '\0';
	size_t cap = 1024;
	*t = (ktab){ .s = malloc(cap * sizeof *t->s) };
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char type, name[512], extra[2];
		if (sscanf(l, "%llx %c %511s %1s", &a, &type, name, extra) != 3)
			continue;  /* modules have a 4th column */
		if (!strchr("TtWw", type) || strchr(name, '"') || strchr(name, '\\'))
			continue;
		if (!strcmp(name, "_text"))
			t->text = a;
		if (t->n == cap)
			t->s = realloc(t->s, (cap *= 2) * sizeof *t->s);
		t->s[t->n++] = (ksym){ .addr = a, .type = type, .name = strdup(name) };
	}
	free(text);
	for (size_t i = 0; i < t->n; i++) {
		if (t->s[i].addr > t->end)
			t->end = t->s[i].addr;
		if ((i && t->s[i - 1].addr == t->s[i].addr) ||
		    (i + 1 < t->n && t->s[i + 1].addr == t->s[i].addr))
			t->s[i].alias = true;
	}
	return t->text != 0 && t->n > 1000;
}

static void free_ktab(ktab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i].name);
	free(t->s);
}

static bool seen_name(pd_symhash *h, const char *name)
{
	uint64_t k = pd_symhash_bytes(name, strlen(name), 7);
	for (uint64_t j = 0;; j++) {
		const char *old = pd_symhash_get(h, k, j);
		if (!old) {
			pd_symhash_put(h, k, j, (void *)name);
			return false;
		}
		if (!strcmp(old, name))
			return true;
	}
}

/*
 * Write and link the fake vmlinux.  Every `skip_every`-th lone symbol is
 * left out (0: none), so that some frames land in a neighbour; repeated
 * names (static functions) appear once.  `prefix` renames every symbol,
 * proving where a name came from.  Marks t->s[i].included.
 */
static bool make_vmlinux(ktab *t, const char *dir, const char *out, const char *prefix,
			 const char *bid_hex, unsigned skip_every)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/fake.s", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	fprintf(f, "\t.section .ktext,\"ax\",@progbits\n");
	pd_symhash names = { 0 };
	uint64_t org = 0;
	size_t lone = 0;
	for (size_t i = 0; i < t->n; i++) {
		ksym *s = &t->s[i];
		s->included = false;
		if (s->addr < t->text || seen_name(&names, s->name))
			continue;
		if (prefix[0] && (!strncmp(s->name, "__pfx_", 6) || !strncmp(s->name, "__cfi_", 6)))
			continue;
		/* the relocation anchors keep their names */
		const char *pfx = !strcmp(s->name, "_text") || !strcmp(s->name, "_stext") ? "" : prefix;
		if (!s->alias && skip_every && ++lone % skip_every == 0)
			continue;
		uint64_t off = s->addr - t->text;
		if (off != org)
			fprintf(f, "\t.org 0x%llx\n", (unsigned long long)off);
		org = off;
		if (s->type == 'T')
			fprintf(f, "\t.globl \"%s%s\"\n", pfx, s->name);
		else if (s->type == 'W' || s->type == 'w')
			fprintf(f, "\t.weak \"%s%s\"\n", pfx, s->name);
		fprintf(f, "\t.type \"%s%s\",@function\n\"%s%s\":\n", pfx, s->name, pfx, s->name);
		s->included = true;
	}
	fprintf(f, "\t.org 0x%llx\n", (unsigned long long)(t->end - t->text + 4096));
	pd_symhash_free(&names);
	fclose(f);
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && printf 'SECTIONS { . = 0x%llx; .ktext : { *(.ktext) } "
		 ".note.gnu.build-id : { *(.note.gnu.build-id) } }\\n' > fake.ld && "
		 "as -o fake.o fake.s && ld -o '%s' -T fake.ld %s%s -e 0 -nostdlib fake.o 2>&1",
		 dir, (unsigned long long)(t->text - SLIDE), out,
		 bid_hex ? "--build-id=0x" : "", bid_hex ? bid_hex : "");
	int st;
	char *o = pd_test_run(cmd, &st);
	if (st != 0)
		fprintf(stderr, "fake vmlinux: %s\n", o ? o : "");
	free(o);
	return st == 0;
}

static size_t running_bid(char *hex)
{
	uint8_t bid[20];
	size_t n = pd_running_kernel_build_id(bid, sizeof bid);
	if (n)
		pd_hex(hex, bid, n);
	return n;
}

/* The kallsyms entry whose name and address a kallsyms-named frame has. */
static const ksym *find_ksym(const ktab *t, uint64_t start, const char *name)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->s[mid].addr < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n && t->s[lo].addr == start; lo++)
		if (!strcmp(t->s[lo].name, name))
			return &t->s[lo];
	return NULL;
}

static bool sorted_by_addr(const ktab *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->s[i].addr < t->s[i - 1].addr)
			return false;
	return true;
}

/* Names straight from the symbolizer: a renamed vmlinux proves that core
 * text is named from it, relocated by the slide, with modules untouched. */
START_TEST(test_vmlinux_direct)
{
	if (!have("as") || !have("ld"))
		PD_SKIP("no binutils");
	ktab t;
	if (!load_kallsyms(&t) || !sorted_by_addr(&t)) {
		free_ktab(&t);
		PD_SKIP("kallsyms unreadable, hidden or unsorted");
	}
	char hex[41];
	uint8_t bid[20];
	size_t nbid = pd_running_kernel_build_id(bid, sizeof bid);
	if (nbid != 20 || !running_bid(hex)) {
		free_ktab(&t);
		PD_SKIP("no running kernel build-id");
	}
	char *dir = pd_test_tmpdir();
	char vm[4200];
	snprintf(vm, sizeof vm, "%s/vmlinux", dir);
	ck_assert(make_vmlinux(&t, dir, vm, "vmx_", hex, 0));

	pd_map kmap = { .start = t.text, .end = t.end + 4096, .pgoff = t.text };
	pd_error err;
	pd_symbolizer_config kc = { .buildid_dir = "/nonexistent" };
	pd_symbolizer_config vc = { .buildid_dir = "/nonexistent", .vmlinux = vm };
	pd_symbolizer *zk, *zv;
	ck_assert_int_eq(pd_symbolizer_new(&zk, &kc, &err), 0);
	ck_assert_int_eq(pd_symbolizer_new(&zv, &vc, &err), 0);
	size_t checked = 0, modules = 0;
	for (size_t i = 0; i < t.n; i++) {
		const ksym *s = &t.s[i];
		if (!s->included || s->alias || !strncmp(s->name, "__pfx_", 6) ||
		    !strncmp(s->name, "__cfi_", 6))
			continue;
		const pd_symres *rk = pd_symbolizer_kernel(zk, &kmap, bid, 20, s->addr);
		const pd_symres *rv = pd_symbolizer_kernel(zv, &kmap, bid, 20, s->addr);
		ck_assert_ptr_nonnull(rk->frames[0].name);
		ck_assert_msg(rv->frames[0].name && !strncmp(rv->frames[0].name, "vmx_", 4) &&
				      !strcmp(rv->frames[0].name + 4, rk->frames[0].name),
			      "%#llx: kallsyms %s, vmlinux %s", (unsigned long long)s->addr,
			      rk->frames[0].name, rv->frames[0].name ? rv->frames[0].name : "(null)");
		ck_assert_uint_eq(rv->sym_start, rk->sym_start);
		ck_assert_uint_eq(rv->sym_start, s->addr);
		checked++;
	}
	/* a module address still comes from kallsyms */
	size_t len;
	char *ks = (char *)pd_test_read_file("/proc/kallsyms", &len);
	ks = realloc(ks, len + 1);
	ks[len] = '\0';
	char *save = NULL;
	for (char *l = strtok_r(ks, "\n", &save); l && modules < 50; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char type, name[256], mod[256];
		/* BPF programs are listed as the module "[bpf]", and come and
		 * go while the test runs (another program's sampler): not a
		 * module the symbolizer's earlier read must know */
		if (sscanf(l, "%llx %c %255s %255s", &a, &type, name, mod) != 4 || type != 't' ||
		    !strncmp(name, "__pfx_", 6) || !strcmp(mod, "[bpf]"))
			continue;
		const pd_symres *rk = pd_symbolizer_kernel(zk, &kmap, bid, 20, a);
		const pd_symres *rv = pd_symbolizer_kernel(zv, &kmap, bid, 20, a);
		ck_assert_ptr_nonnull(rk->frames[0].name);
		ck_assert_str_eq(rv->frames[0].name, rk->frames[0].name);
		modules++;
	}
	free(ks);
	ck_assert_uint_ge(checked, 10000);
	ck_assert_uint_eq(pd_symbolizer_warning_count(zv), 0);
	fprintf(stderr, "vmlinux: %zu core names (relocated by -%#x) and %zu module names as kallsyms\n",
		checked, SLIDE, modules);

	/* without the slide in the map the names are wrong: relocation is real */
	pd_map unslid = kmap;
	unslid.pgoff = t.text - SLIDE;
	size_t differ = 0, tried = 0;
	for (size_t i = 0; i < t.n && tried < 200; i++) {
		if (!t.s[i].included || t.s[i].alias || i + 1 == t.n ||
		    t.s[i + 1].addr - t.s[i].addr > SLIDE / 8)
			continue;
		tried++;
		const pd_symres *r = pd_symbolizer_kernel(zv, &unslid, bid, 20, t.s[i].addr);
		const char *nm = r->frames[0].name;
		differ += !nm || strncmp(nm, "vmx_", 4) || strcmp(nm + 4, t.s[i].name) != 0;
	}
	ck_assert_uint_ge(differ, tried * 9 / 10);

	pd_symbolizer_free(zk);
	pd_symbolizer_free(zv);
	pd_test_rmrf(dir);
	free(dir);
	free_ktab(&t);
}
END_TEST

typedef struct kframe {
	uint64_t addr, start;
	const char *name;
} kframe;

/* Kernel frames of every sample through one session. */
static size_t session_kframes(const char *data, const char *vmlinux, kframe **out,
			      size_t *nwarn, char ***warns)
{
	pd_session_options o;
	pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
	o.flags = PD_SESSION_NO_INLINE;
	o.buildid_dir = "/nonexistent";
	o.vmlinux = vmlinux;
	pd_session *s;
	pd_error err;
	ck_assert_msg(pd_session_open(&s, data, &o, &err) == 0, "%s", err.message);
	size_t n = 0, cap = 1024;
	kframe *f = malloc(cap * sizeof *f);
	const pd_resolved_sample *rs;
	int rc;
	while ((rc = pd_session_next(s, &rs, &err)) == 0)
		for (size_t i = 0; i < rs->nframes; i++) {
			const pd_frame *fr = &rs->frames[i];
			if (fr->cpumode != PD_CPUMODE_KERNEL || strcmp(fr->dso, "[kernel.kallsyms]"))
				continue;
			if (n == cap)
				f = realloc(f, (cap *= 2) * sizeof *f);
			f[n++] = (kframe){ .addr = fr->addr, .start = fr->addr - fr->symbol_offset,
					   .name = fr->symbol ? strdup(fr->symbol) : NULL };
		}
	ck_assert_int_eq(rc, PD_ITEROVER);
	*nwarn = pd_session_warning_count(s);
	*warns = calloc(*nwarn + 1, sizeof **warns);
	for (size_t i = 0; i < *nwarn; i++)
		(*warns)[i] = strdup(pd_session_warning(s, i));
	pd_session_free(s);
	*out = f;
	return n;
}

static void free_kframes(kframe *f, size_t n, char **w, size_t nw)
{
	for (size_t i = 0; i < n; i++)
		free((char *)f[i].name);
	free(f);
	for (size_t i = 0; i < nw; i++)
		free(w[i]);
	free(w);
}

START_TEST(test_vmlinux_session)
{
	if (!pd_test_have_perf() || !have("as") || !have("ld"))
		PD_SKIP("no perf or binutils");
	ktab t;
	char hex[41];
	if (!load_kallsyms(&t) || !sorted_by_addr(&t) || !running_bid(hex)) {
		free_ktab(&t);
		PD_SKIP("kallsyms or kernel build-id unavailable");
	}
	char *dir = pd_test_tmpdir();
	char data[4200], vm[4200], bad[4200], cmd[8600];
	snprintf(data, sizeof data, "%s/perf.data", dir);
	snprintf(vm, sizeof vm, "%s/vmlinux", dir);
	snprintf(bad, sizeof bad, "%s/vmlinux.other", dir);
	snprintf(cmd, sizeof cmd,
		 "perf record -N -q -a -g -e cpu-clock -o '%s' -- sh -c 'cat /proc/kallsyms >/dev/null; sleep 0.2' 2>&1",
		 data);
	int st;
	char *o = pd_test_run(cmd, &st);
	free(o);
	if (st != 0) {
		pd_test_rmrf(dir);
		free(dir);
		free_ktab(&t);
		PD_SKIP("perf record -a failed");
	}

	ck_assert(make_vmlinux(&t, dir, vm, "", hex, 5));
	kframe *fk, *fv;
	char **wk, **wv;
	size_t nwk, nwv;
	size_t nk = session_kframes(data, NULL, &fk, &nwk, &wk);
	size_t nv = session_kframes(data, vm, &fv, &nwv, &wv);
	ck_assert_uint_eq(nk, nv);
	size_t same = 0, outside = 0, unknown = 0;
	for (size_t i = 0; i < nk; i++) {
		ck_assert_uint_eq(fk[i].addr, fv[i].addr);
		const ksym *s = fk[i].name ? find_ksym(&t, fk[i].start, fk[i].name) : NULL;
		if (!s) {
			/* kallsyms could not name it: the vmlinux cannot either */
			ck_assert_ptr_null(fk[i].name);
			ck_assert_ptr_null(fv[i].name);
			unknown++;
			continue;
		}
		if (!s->included) {
			outside++;
			continue;
		}
		ck_assert_msg(fv[i].name && !strcmp(fv[i].name, fk[i].name),
			      "%#llx: kallsyms %s, vmlinux %s", (unsigned long long)fk[i].addr,
			      fk[i].name, fv[i].name ? fv[i].name : "(null)");
		ck_assert_uint_eq(fv[i].start, fk[i].start);
		same++;
	}
	for (size_t i = 0; i < nwv; i++)
		ck_assert_msg(!strstr(wv[i], "vmlinux"), "%s", wv[i]);
	fprintf(stderr, "vmlinux session: %zu kernel frames, %zu named alike, %zu outside the fake vmlinux, %zu unnamed\n",
		nk, same, outside, unknown);
	ck_assert_uint_ge(same, 20);
	free_kframes(fv, nv, wv, nwv);

	/* another kernel's vmlinux: a warning, and kallsyms names everywhere */
	char other[41];
	memcpy(other, hex, sizeof other);
	other[0] = other[0] == 'f' ? '0' : 'f';
	ck_assert(make_vmlinux(&t, dir, bad, "vmx_", other, 0));
	nv = session_kframes(data, bad, &fv, &nwv, &wv);
	ck_assert_uint_eq(nk, nv);
	for (size_t i = 0; i < nk; i++) {
		ck_assert_uint_eq(fk[i].addr, fv[i].addr);
		ck_assert(!fk[i].name == !fv[i].name);
		if (fk[i].name)
			ck_assert_str_eq(fv[i].name, fk[i].name);
	}
	size_t mismatch = 0;
	for (size_t i = 0; i < nwv; i++)
		mismatch += strstr(wv[i], "is not the recorded kernel's") && strstr(wv[i], bad);
	ck_assert_uint_eq(mismatch, 1);
	free_kframes(fv, nv, wv, nwv);

	/* a vmlinux without a build-id cannot be checked: refused as well */
	ck_assert(make_vmlinux(&t, dir, bad, "vmx_", NULL, 0));
	nv = session_kframes(data, bad, &fv, &nwv, &wv);
	for (size_t i = 0; i < nv; i++)
		ck_assert(!fv[i].name || strncmp(fv[i].name, "vmx_", 4));
	mismatch = 0;
	for (size_t i = 0; i < nwv; i++)
		mismatch += strstr(wv[i], "(none)") != NULL;
	ck_assert_uint_eq(mismatch, 1);
	free_kframes(fv, nv, wv, nwv);

	free_kframes(fk, nk, wk, nwk);
	pd_test_rmrf(dir);
	free(dir);
	free_ktab(&t);
}
END_TEST

/* ---- the recorded kernel's vmlinux from a debuginfod server ---- */

/* Start `debuginfod -F DIR/SUB` on a free loopback port, logging to
 * DIR/SUB.log, and wait until it has scanned a file: its pid, or 0. */
static pid_t start_debuginfod(const char *dir, const char *sub, int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	ck_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
		  getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	*port = ntohs(a.sin_port);
	close(fd);
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && { debuginfod -v -F %s -p %d -d %s.sqlite -t 0 -g 0 >%s.log 2>&1 & echo $!; }",
		 dir, sub, *port, sub, sub);
	int st;
	char *o = pd_test_run(cmd, &st);
	pid_t pid = o ? (pid_t)atoi(o) : 0;
	free(o);
	for (int i = 0; pid > 0 && i < 100; i++) {
		snprintf(cmd, sizeof cmd,
			 "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && printf \"GET /metrics HTTP/1.0\\r\\n\\r\\n\" >&3 && "
			 "cat <&3' 2>/dev/null | grep -q '^scanned_files_total{source=\"file\"} [1-9]'", *port);
		if (pd_test_sh_ok(cmd))
			return pid;
		usleep(100000);
	}
	if (pid > 0)
		kill(pid, SIGTERM);
	snprintf(cmd, sizeof cmd, "cat '%s/%s.log' >&2", dir, sub);
	pd_test_sh_ok(cmd);
	return 0;
}

/* How many build-id requests the server at DIR/SUB logged. */
static int requests(const char *dir, const char *sub)
{
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "grep -c '/buildid/' '%s/%s.log' || true", dir, sub);
	int st;
	char *o = pd_test_run(cmd, &st);
	int n = o ? atoi(o) : -1;
	free(o);
	return n;
}

/* A server that answers every request with one file (another build's
 * vmlinux), as a wrong or careless debuginfod would; counts requests. */
typedef struct wrong_srv {
	int fd;
	const char *path;
	int served;
} wrong_srv;

static void *wrong_server(void *arg)
{
	wrong_srv *w = arg;
	size_t len = 0;
	uint8_t *body = pd_test_read_file(w->path, &len);
	for (int c; (c = accept(w->fd, NULL, NULL)) >= 0; close(c)) {
		char req[4096], head[256];
		(void)!read(c, req, sizeof req);
		int n = snprintf(head, sizeof head,
				 "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", len);
		(void)!write(c, head, (size_t)n);
		(void)!write(c, body, len);
		w->served++;
	}
	free(body);
	return NULL;
}

START_TEST(test_vmlinux_debuginfod)
{
	if (!pd_test_have_perf() || !have("as") || !have("ld") || !have("bash"))
		PD_SKIP("no perf, bash or binutils");
	if (!have("debuginfod"))
		PD_SKIP("no debuginfod here (Debian's debuginfod package)");
	ktab t;
	char hex[41], other[41];
	if (!load_kallsyms(&t) || !sorted_by_addr(&t) || !running_bid(hex)) {
		free_ktab(&t);
		PD_SKIP("kallsyms or kernel build-id unavailable");
	}
	char *dir = pd_test_tmpdir();
	char cmd[16384];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/good' '%s/bad' && perf record -N -q -a -g -e cpu-clock "
		 "-o '%s/perf.data' -- sh -c 'cat /proc/kallsyms >/dev/null; sleep 0.2' >/dev/null 2>&1",
		 dir, dir, dir);
	if (!pd_test_sh_ok(cmd)) {
		pd_test_rmrf(dir);
		free(dir);
		free_ktab(&t);
		PD_SKIP("perf record -a failed");
	}
	memcpy(other, hex, sizeof other);
	other[0] = other[0] == 'f' ? '0' : 'f';
	char vm[4200];
	snprintf(vm, sizeof vm, "%s/good/vmlinux", dir);
	ck_assert(make_vmlinux(&t, dir, vm, "vmx_", hex, 0));
	snprintf(vm, sizeof vm, "%s/bad/vmlinux", dir);
	ck_assert(make_vmlinux(&t, dir, vm, "vmx_", other, 0));
	int port;
	pid_t pid = start_debuginfod(dir, "good", &port);
	ck_assert_msg(pid, "debuginfod did not start or scan in 10 s");
	setenv("DEBUGINFOD_CACHE_PATH", dir, 1);
	unsetenv("DEBUGINFOD_URLS");

	char url[64], line[256], *err = NULL;
	int st;
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	snprintf(line, sizeof line, "kernel symbols: core text from vmlinux (build-id %s) from %s", hex, url);
	snprintf(cmd, sizeof cmd, "report --buildid-dir=/nonexistent --symbols-from=%s '%s/perf.data'", url, dir);
	char *out = pd_test_cli(dir, cmd, &st, &err);
	int asked = requests(dir, "good");
	ck_assert_msg(strstr(out, "vmx_") && strstr(out, line), "%d requests; %.300s\n--- stderr:\n%.500s",
		      asked, out, err);
	ck_assert_int_ge(asked, 1);
	free(out);
	free(err);

	/* the same server through DEBUGINFOD_URLS (libdebuginfod) */
	setenv("DEBUGINFOD_URLS", url, 1);
	snprintf(line, sizeof line, "kernel symbols: core text from vmlinux (build-id %s) from debuginfod", hex);
	snprintf(cmd, sizeof cmd, "report --buildid-dir=/nonexistent '%s/perf.data'", dir);
	out = pd_test_cli(dir, cmd, &st, &err);
	ck_assert_msg(strstr(out, "vmx_") && strstr(out, line), "%.300s\n--- stderr:\n%.500s", out, err);
	ck_assert_int_gt(requests(dir, "good"), asked);
	asked = requests(dir, "good");
	free(out);
	free(err);

	/* offline: kallsyms names, and the server hears nothing */
	snprintf(cmd, sizeof cmd, "report --offline --buildid-dir=/nonexistent --symbols-from=%s '%s/perf.data'",
		 url, dir);
	out = pd_test_cli(dir, cmd, &st, &err);
	ck_assert_msg(!strstr(out, "vmx_") && strstr(out, "kallsyms from /proc/kallsyms"), "%.3000s", out);
	ck_assert_int_eq(requests(dir, "good"), asked);
	free(out);
	free(err);

	unsetenv("DEBUGINFOD_URLS");
	/* another kernel's vmlinux: refused with a warning, kallsyms names */
	wrong_srv w = { .fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), .path = vm };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	ck_assert(w.fd >= 0 && bind(w.fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(w.fd, 8) == 0 &&
		  getsockname(w.fd, (struct sockaddr *)&a, &len) == 0);
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, wrong_server, &w), 0);
	snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(a.sin_port));
	snprintf(cmd, sizeof cmd, "report -v --buildid-dir=/nonexistent --symbols-from=%s '%s/perf.data'", url, dir);
	out = pd_test_cli(dir, cmd, &st, &err);
	shutdown(w.fd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(w.fd);
	ck_assert_int_ge(w.served, 1);
	ck_assert_msg(!strstr(out, "vmx_") && strstr(out, "kallsyms from /proc/kallsyms") &&
		      err && strstr(err, "is not the recorded kernel's"),
		      "%.300s\n--- stderr:\n%.3000s", out, err);
	free(out);
	free(err);
	kill(pid, SIGTERM);
	pd_test_rmrf(dir);
	free(dir);
	free_ktab(&t);
}
END_TEST

/* ---- perf-compatible C++ names ---- */

static const char cxx_src[] =
	"#include <cstdio>\n"
	"namespace ns {\n"
	"template <class T> struct Box {\n"
	"  T v;\n"
	"  __attribute__((noipa)) T spin(int n) { T s = v; for (int i = 0; i < n; i++) s = s * 3 + i; return s; }\n"
	"  __attribute__((noipa)) T spin(double d) { T s = v; for (int i = 0; i < (int)d; i++) s = s * 5 + i; return s; }\n"
	"};\n"
	"}\n"
	"int main() { ns::Box<long> b{1}; long s = 0;\n"
	"  for (int k = 0; k < 1500; k++) s += b.spin(100000 + (k & 1)) + b.spin(50000.0 + k);\n"
	"  std::printf(\"%ld\\n\", s); return 0; }\n";

typedef struct ipname {
	uint64_t ip;
	char name[256];
} ipname;

START_TEST(test_cxx_perf_names)
{
	if (!pd_test_have_perf() || !have("g++") || !have("c++filt"))
		PD_SKIP("no perf, g++ or c++filt");
	char *dir = pd_test_tmpdir();
	char src[4200], exe[4200], data[4200], cmd[20000];
	snprintf(src, sizeof src, "%s/box.cc", dir);
	snprintf(exe, sizeof exe, "%s/box", dir);
	snprintf(data, sizeof data, "%s/perf.data", dir);
	ck_assert(pd_test_write_file(src, cxx_src, sizeof cxx_src - 1));
	int st;
	snprintf(cmd, sizeof cmd,
		 "g++ -O1 -g -o '%s' '%s' 2>&1 && perf record -N -q -e cpu-clock -o '%s' -- '%s' 2>&1 >/dev/null",
		 exe, src, data, exe);
	free(pd_test_run(cmd, &st));
	ck_assert_int_eq(st, 0);

	/* perf's names, by address */
	snprintf(cmd, sizeof cmd, "perf script -i '%s' -F ip,sym,dso 2>/dev/null", data);
	char *out = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(out);
	size_t np = 0, capp = 256;
	ipname *perf = malloc(capp * sizeof *perf);
	char *save = NULL;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long ip;
		int pos;
		if (sscanf(l, " %llx %n", &ip, &pos) != 1)
			continue;
		char *rest = l + pos, *dso = strrchr(rest, '(');
		if (!dso || strncmp(dso + 1, exe, strlen(exe)) || dso[1 + strlen(exe)] != ')' ||
		    dso == rest)
			continue;
		size_t n = (size_t)(dso - rest);
		while (n && rest[n - 1] == ' ')
			n--;
		if (np == capp)
			perf = realloc(perf, (capp *= 2) * sizeof *perf);
		perf[np].ip = ip;
		snprintf(perf[np].name, sizeof perf[np].name, "%.*s", (int)n, rest);
		np++;
	}
	free(out);
	ck_assert_uint_ge(np, 20);

	unsigned modes[2] = { PD_SESSION_PERF_COMPAT, 0 };
	size_t matched[2] = { 0, 0 }, spin_int = 0;
	for (int m = 0; m < 2; m++) {
		pd_session_options o;
		pd_session_options_init(&o, PD_SESSION_OPTIONS_VERSION);
		o.flags = modes[m] | PD_SESSION_NO_INLINE;
		o.buildid_dir = "/nonexistent";
		pd_session *s;
		pd_error err;
		ck_assert_msg(pd_session_open(&s, data, &o, &err) == 0, "%s", err.message);
		const pd_resolved_sample *rs;
		size_t pi = 0;
		char last_raw[512] = "", last_filt[512] = "";
		while (pd_session_next(s, &rs, &err) == 0) {
			if (!rs->nframes || strcmp(rs->frames[0].dso, exe))
				continue;
			const pd_frame *f = &rs->frames[0];
			ck_assert_uint_lt(pi, np);
			ck_assert_uint_eq(f->addr, perf[pi].ip);
			ck_assert_ptr_nonnull(f->symbol);
			ck_assert_ptr_nonnull(f->raw_symbol);
			/* c++filt: -p drops the parameters, as perf (one run per name) */
			if (strcmp(last_raw, f->raw_symbol)) {
				snprintf(last_raw, sizeof last_raw, "%s", f->raw_symbol);
				snprintf(cmd, sizeof cmd, "c++filt %s '%s'", m == 0 ? "-p" : "",
					 f->raw_symbol);
				char *cf = pd_test_run(cmd, &st);
				ck_assert_ptr_nonnull(cf);
				cf[strcspn(cf, "\n")] = '\0';
				snprintf(last_filt, sizeof last_filt, "%s", cf);
				free(cf);
			}
			ck_assert_str_eq(f->symbol, last_filt);
			if (m == 0) {
				/* a PLT stub perf 6.1 cannot name (as test_script says):
				 * it stretches `_init`, the symbol before .plt, over it */
				bool stub = strstr(f->symbol, "@plt") && !strcmp(perf[pi].name, "_init");
				if (!stub)
					ck_assert_str_eq(f->symbol, perf[pi].name);
			} else if (!strcmp(perf[pi].name, "ns::Box<long>::spin")) {
				ck_assert(!strcmp(f->symbol, "ns::Box<long>::spin(int)") ||
					  !strcmp(f->symbol, "ns::Box<long>::spin(double)"));
				spin_int += !strcmp(f->symbol, "ns::Box<long>::spin(int)");
			}
			matched[m]++;
			pi++;
		}
		ck_assert_uint_eq(pi, np);
		pd_session_free(s);
	}
	fprintf(stderr, "C++: %zu samples named as perf script (compat), %zu with parameters (%zu spin(int))\n",
		matched[0], matched[1], spin_int);
	ck_assert_uint_gt(spin_int, 0);
	free(perf);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("vmlinux");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_vmlinux_direct);
	tcase_add_test(tc, test_vmlinux_session);
	tcase_add_test(tc, test_vmlinux_debuginfod);
	tcase_add_test(tc, test_cxx_perf_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) { return pd_test_main(suite()); }
